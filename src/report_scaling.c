/* report_scaling.c: scaling laws: the compute-optimal allocation for this
 * run, its deadline and its budget, and the plans table with its loss
 * chart. */
#include "report_build.h"

#include <math.h>

static void S_table_optimum(tb_report *r, tb_table *t)
{
	const tb_chinchilla *ch = &r->b->chinchilla;
	tb_rtab tb;
	tb_rtab_init(&tb, t, r, NULL, "lrlrr", "Compute", "FLOPs", "Method", "Parameters", "Tokens",
	             NULL);
	const tb_optimum *rows[3] = { &ch->run, ch->has_deadline ? &ch->deadline : NULL,
	                              ch->has_budget ? &ch->budget : NULL };
	static const char *const labels[] = { "This run", "Within the deadline", "Within the budget" };
	for (int i = 0; i < 3; i++) {
		const tb_optimum *o = rows[i];
		if (!o)
			continue;
		static const char *const methods[] = { "D = 20N", "Hoffmann et al. 2022 fit",
		                                       "Epoch AI 2024 fit" };
		double np[3] = { o->params, o->params_fit, o->params_epoch };
		double nt[3] = { o->tokens, o->tokens_fit, o->tokens_epoch };
		for (int k = 0; k < 3; k++) {
			tb_rtab_str(&tb, k == 0 ? labels[i] : "");
			if (k == 0)
				tb_rtab_num(&tb, TB_RF_SCI, o->compute_flops);
			else
				tb_rtab_str(&tb, "");
			tb_rtab_str(&tb, methods[k]);
			tb_rtab_num(&tb, TB_RF_COUNT, np[k]);
			tb_rtab_num(&tb, TB_RF_COUNT, nt[k]);
		}
	}
}

static void S_table_plans(tb_report *r, tb_table *t)
{
	const tb_chinchilla *ch = &r->b->chinchilla;
	bool lifetime = r->sc->inputs.plan.has_inference;
	tb_rtab tb;
	/* a NULL header ends the row: no lifetime column without inference */
	tb_rtab_init(&tb, t, r, NULL, "lrrrrrrrr", "Plan", "Parameters", "Tokens", "FLOPs",
	             "Wall clock", "Cost", "Loss (Hoffmann)", "Loss (Epoch AI)",
	             lifetime ? "Lifetime FLOPs" : NULL, NULL);
	int n = ch->n_plans < TB_PLANS_MAX ? ch->n_plans : TB_PLANS_MAX;
	for (int i = 0; i < n; i++)
		tb.money_ref = fmax(tb.money_ref, ch->plans[i].cost);
	for (int i = 0; i < n; i++) {
		const tb_plan_row *p = &ch->plans[i];
		char label[64];
		tb_plan_label(p, false, label, sizeof label);
		tb_rtab_str(&tb, label);
		tb_rtab_num(&tb, TB_RF_COUNT, p->params);
		tb_rtab_num(&tb, TB_RF_COUNT, p->tokens);
		tb_rtab_num(&tb, TB_RF_SCI, p->flops);
		tb_rtab_num(&tb, TB_RF_DAYS, p->seconds);
		tb_rtab_num(&tb, TB_RF_MONEY, p->cost);
		tb_rtab_num(&tb, TB_RF_PLAIN, p->loss);
		tb_rtab_num(&tb, TB_RF_PLAIN, p->loss_epoch);
		if (lifetime)
			tb_rtab_num(&tb, TB_RF_SCI, p->lifetime_flops);
	}
}

static void S_chart_plans(const tb_report *r, tb_chart_spec *s)
{
	const tb_chinchilla *ch = &r->b->chinchilla;
	tb_rchart_init(s, TB_CHART_GROUPED_BARS, "plans",
	               "Predicted loss: compute-optimal against over-trained plans",
	               "Plan (D/N: training tokens per parameter)", "Predicted loss (nats/token)", "", 1);
	/* the plans differ by hundredths of a nat: an axis from 0 hides that */
	s->y_zoom = true;
	size_t n = tb_rchart_ncats(s, ch->n_plans, TB_PLANS_MAX);
	tb_rchart_series(s, "Hoffmann et al. 2022 fit");
	tb_rchart_series(s, "Epoch AI 2024 fit");
	for (size_t i = 0; i < n; i++) {
		tb_plan_label(&ch->plans[i], true, s->cats[i], sizeof s->cats[i]);
		s->series[0].values[i] = ch->plans[i].loss;
		s->series[1].values[i] = ch->plans[i].loss_epoch;
	}
}

static const tb_rtable_def S_tables[] = {
	{ "chinchilla.optimum", S_table_optimum },
	{ "chinchilla.plans", S_table_plans },
};

static const tb_rchart_def S_charts[] = {
	{ "plans", S_chart_plans },
};

const tb_rsection tb_rsection_scaling = {
	S_tables, sizeof S_tables / sizeof S_tables[0],
	S_charts, sizeof S_charts / sizeof S_charts[0],
};
