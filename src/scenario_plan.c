/* scenario_plan.c: the plan section: a deadline, a budget, inference
 * tokens and the over-training multiples the plans table compares. */
#include "scenario_sections.h"

static const char *const S_keys[] = {
	"deadline", "budget", "overtrain", "inference_tokens", "ablations", "storage",
};
static const char *const S_storage_keys[] = { "kept", "data", "retention", "price_per_tb_month" };
static const tb_scenario_subsection S_subs[] = {
	{ "storage", S_storage_keys, TB_N(S_storage_keys),
	  "a storage field: kept, data, retention or price_per_tb_month" },
};

/* plan.storage: checkpoints kept at once (2: the last and the one being
 * written), the dataset's bytes, the last checkpoint's retention after
 * the run (0), and the price per TB-month (Amazon S3 Standard's $23, its
 * first 50 TB in us-east-1: docs/formulas.md, "The bill"). */
static bool S_storage(tb_yaml_ctx *c, const tb_yaml_node *pn, tb_plan *pl)
{
	pl->storage_kept = 2;
	pl->storage_price_per_tb_month = 23;
	const tb_yaml_node *sm = tb_yaml_get_map(c, pn, "storage");
	if (!sm)
		return !tb_yaml_map_broken(pn, "storage");
	pl->has_storage = true;
	bool ok = true;
	const tb_yaml_node *n;
	int64_t k;
	if ((n = tb_yaml_get(sm, "kept"))) {
		if (tb_yaml_int(c, n, "plan.storage.kept", 1, 100000, &k))
			pl->storage_kept = (double)k;
		else
			ok = false;
	}
	if ((n = tb_yaml_get(sm, "data")) &&
	    !tb_yaml_quant(c, n, "plan.storage.data", TB_YAML_Q_BYTES, "a size such as 40TB", 0, 1e21,
	                   &pl->storage_data_bytes))
		ok = false;
	if ((n = tb_yaml_get(sm, "retention")) &&
	    !tb_yaml_quant(c, n, "plan.storage.retention", TB_YAML_Q_DURATION,
	                   "a duration such as 90 days (0: deleted with the run)", 0,
	                   100 * 365.25 * 86400, &pl->storage_retention_s))
		ok = false;
	if ((n = tb_yaml_get(sm, "price_per_tb_month")) &&
	    !tb_yaml_quant(c, n, "plan.storage.price_per_tb_month", TB_YAML_Q_NUMBER,
	                   "a price per TB-month such as 23", 0, 1e9, &pl->storage_price_per_tb_month))
		ok = false;
	return ok;
}

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
	pl->storage_kept = 2;
	pl->storage_price_per_tb_month = 23;
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
		if ((n = tb_yaml_get(pn, "ablations")) &&
		    !tb_yaml_quant(c, n, "plan.ablations", TB_YAML_Q_FRACTION,
		                   "a share of the run's GPU time from 0 to 100% such as 20% (ablations "
		                   "and evaluation; more is a stage of its own)", 0, 1, &pl->ablations))
			ok = false;
		if (!S_storage(c, pn, pl))
			ok = false;
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
	"plan", S_keys, TB_N(S_keys), S_subs, TB_N(S_subs), S_load,
};
