/* report_compute.c: what the model is and what training it costs in
 * FLOPs: the parameters table and the FLOP counts. */
#include "report_build.h"

static void S_table_parameters(tb_report *r, tb_table *t)
{
	const tb_params *p = &r->b->params;
	const tb_model *m = &r->sc->inputs.model;
	bool moe = m->has_shape && m->experts > 1;
	tb_rtab tb;
	tb_rtab_init(&tb, t, r, NULL, "lrrr", "Component", "Parameters", "Exact", "Share", NULL);
	/* what each row holds, in the model's own terms: multi-head latent
	 * attention has no k and v matrices of its own, and an MoE's MLP row
	 * holds dense layers, shared and routed experts and the routers */
	const char *attn = m->kv_lora_rank > 0
		? "Attention (MLA: q and kv latents with their norms, up-projections, o)"
		: "Attention (q, k, v, o)";
	const char *mlp = !moe ? "MLP (all experts, router included)"
	                : m->shared_ffn_hidden > 0 || m->dense_layers > 0
	                ? "MLP (dense layers, shared and routed experts, routers)"
	                : "MLP (routed experts and routers)";
	struct { const char *label; double v; } rows[] = {
		{ "Embedding", p->embedding }, { attn, p->attention },
		{ mlp, p->mlp }, { "Routed experts (part of the MLP)", p->experts },
		{ "Router", p->router },
		{ "Norms", p->norm }, { "Output head", p->output },
	};
	if (p->known_breakdown) {
		for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
			if ((i == 3 && !moe) || (i == 4 && p->router == 0))
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
	if (p->mtp > 0) {
		/* reported beside the total, never in it (budget.h) */
		tb_rtab_fmt(&tb, "Multi-token prediction (%lld module%s, not in the total)",
		            (long long)m->mtp_modules, m->mtp_modules == 1 ? "" : "s");
		tb_rtab_num(&tb, TB_RF_COUNT, p->mtp);
		tb_rtab_num(&tb, TB_RF_GROUPED, p->mtp);
		tb_rtab_str(&tb, "n/a");
	}
	tb_method meth = r->sc->inputs.training.method;
	if (tb_method_adapters(meth)) {
		/* beside the total, as PEFT prints "all params" = base + adapters */
		const tb_lora *l = &r->sc->inputs.training.lora;
		tb_rtab_fmt(&tb, "LoRA adapters (rank %lld, not in the total): trained", (long long)l->rank);
		tb_rtab_num(&tb, TB_RF_COUNT, p->adapters);
		tb_rtab_num(&tb, TB_RF_GROUPED, p->adapters);
		tb_rtab_share(&tb, p->adapters, p->total + p->adapters);
	} else if (meth != TB_METHOD_FULL) {
		tb_rtab_fmt(&tb, "Trained (training.method %s)", tb_method_name(meth));
		tb_rtab_num(&tb, TB_RF_COUNT, p->trainable);
		tb_rtab_num(&tb, TB_RF_GROUPED, p->trainable);
		tb_rtab_share(&tb, p->trainable, p->total);
	}
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
