/* scenario_plan.c: the plan section: a deadline, a budget, inference
 * tokens and the over-training multiples the plans table compares. */
#include "scenario_sections.h"

static const char *const S_keys[] = {
	"deadline", "budget", "overtrain", "inference_tokens",
};

static bool S_load(tb_yaml_ctx *c, const tb_yaml_node *root, tb_scenario *sc)
{
	tb_inputs *in = &sc->inputs;
	const tb_yaml_node *n;
	bool ok = true;

	tb_plan *pl = &in->plan;
	pl->n_overtrain = 3;
	pl->overtrain[0] = 1;
	pl->overtrain[1] = 2;
	pl->overtrain[2] = 5;
	const tb_yaml_node *pn = tb_yaml_get_map(c, root, "plan");
	if (pn) {
		if ((n = tb_yaml_get(pn, "deadline"))) {
			if (tb_yaml_quant(c, n, "plan.deadline", TB_YAML_Q_DURATION, "a duration such as 30 days or 720h", 1, 100 * 365.25 * 86400, &pl->deadline_s))
				pl->has_deadline = true;
			else
				ok = false;
		}
		if ((n = tb_yaml_get(pn, "budget"))) {
			if (tb_yaml_quant(c, n, "plan.budget", TB_YAML_Q_COUNT, "an amount of money such as 500000 or 500k", 0.01, 1e15, &pl->budget))
				pl->has_budget = true;
			else
				ok = false;
		}
		if ((n = tb_yaml_get(pn, "inference_tokens"))) {
			if (tb_yaml_quant(c, n, "plan.inference_tokens", TB_YAML_Q_COUNT, "a token count such as 2T", 1, 1e30, &pl->inference_tokens))
				pl->has_inference = true;
			else
				ok = false;
		}
		if ((n = tb_yaml_get(pn, "overtrain"))) {
			const char *expected = "a multiple from 0.01 to 1000 such as 2";
			if (n->kind == TB_YAML_SEQ) {
				if (n->n < 1 || n->n > TB_OVERTRAIN_MAX) {
					tb_yaml_err(c, n, "plan.overtrain has %zu values; expected 1 to %d multiples such as [1, 2, 5]", n->n, TB_OVERTRAIN_MAX);
					ok = false;
				} else {
					pl->n_overtrain = (int)n->n;
					for (size_t i = 0; i < n->n; i++)
						if (!tb_yaml_quant(c, n->vals[i], "plan.overtrain", TB_YAML_Q_NUMBER, expected, 1e-3, 1000, &pl->overtrain[i]))
							ok = false;
				}
			} else if (tb_yaml_quant(c, n, "plan.overtrain", TB_YAML_Q_NUMBER, expected, 1e-3, 1000, &pl->overtrain[0])) {
				pl->n_overtrain = 1;
			} else {
				ok = false;
			}
		}
	}
	return ok;
}

const tb_scenario_section tb_scenario_section_plan = {
	"plan", S_keys, TB_N(S_keys), NULL, 0, S_load,
};
