/* report_compute.c: what the model is and what training it costs in
 * FLOPs: the parameters table and the FLOP counts. */
#include "report_build.h"

static void S_table_parameters(tb_report *r, tb_table *t)
{
	const tb_params *p = &r->b->params;
	tb_rtab tb;
	tb_rtab_init(&tb, t, r, NULL, "lrrr", "Component", "Parameters", "Exact", "Share", NULL);
	struct { const char *label; double v; } rows[] = {
		{ "Embedding", p->embedding }, { "Attention (q, k, v, o)", p->attention },
		{ "MLP (all experts, router included)", p->mlp }, { "Router", p->router },
		{ "Norms", p->norm }, { "Output head", p->output },
	};
	if (p->known_breakdown) {
		for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
			if (i == 3 && p->router == 0)
				continue;
			tb_rtab_str(&tb, rows[i].label);
			tb_rtab_num(&tb, TB_RF_COUNT, rows[i].v);
			tb_rtab_num(&tb, TB_RF_GROUPED, rows[i].v);
			tb_rtab_share(&tb, rows[i].v, p->total);
		}
	}
	tb_rtab_str(&tb, "Total");
	tb_rtab_num(&tb, TB_RF_COUNT, p->total);
	tb_rtab_num(&tb, TB_RF_GROUPED, p->total);
	tb_rtab_str(&tb, p->total > 0 ? "100%" : "n/a");
	tb_rtab_str(&tb, "Active per token");
	tb_rtab_num(&tb, TB_RF_COUNT, p->active);
	tb_rtab_num(&tb, TB_RF_GROUPED, p->active);
	tb_rtab_share(&tb, p->active, p->total);
}

static void S_table_flops(tb_report *r, tb_table *t)
{
	const tb_flops *f = &r->b->flops;
	tb_rtab tb;
	tb_rtab_init(&tb, t, r, NULL, "lrr", "Count", "Per token (FLOP)", "Whole run (FLOP)", NULL);
	tb_rtab_str(&tb, "6N rule (6ND)");
	tb_rtab_num(&tb, TB_RF_SCI, f->per_token_6n);
	tb_rtab_num(&tb, TB_RF_SCI, f->total_6nd);
	tb_rtab_str(&tb, "Operator level (model FLOPs)");
	tb_rtab_num(&tb, TB_RF_SCI, f->per_token_model);
	tb_rtab_num(&tb, TB_RF_SCI, f->total_model);
	tb_rtab_str(&tb, "With recomputation (hardware FLOPs)");
	tb_rtab_num(&tb, TB_RF_SCI, f->per_token_hardware);
	tb_rtab_num(&tb, TB_RF_SCI, f->total_hardware);
}

static const tb_rtable_def S_tables[] = {
	{ "parameters", S_table_parameters },
	{ "flops", S_table_flops },
};

const tb_rsection tb_rsection_compute = {
	S_tables, sizeof S_tables / sizeof S_tables[0], NULL, 0,
};
