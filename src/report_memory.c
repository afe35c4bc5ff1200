/* report_memory.c: memory per GPU: the line items per parameter, the
 * activations kept for backward, the per-GPU sum against the card, and the
 * ZeRO stages and checkpointing modes side by side (table and chart). */
#include "report_build.h"

#include <math.h>
#include <stdio.h>

/* ZeRO-3's working set, which the memory counts in the weights and the
 * gradients, on a row of its own in both tables: the rows beside it are
 * then the shards (*w, *g) */
static double S_working_set(const tb_mem_items *pg, double *w, double *g)
{
	*w = pg->weights - pg->gathered_weights;
	*g = pg->gradients - pg->gathered_gradients;
	return pg->gathered_weights + pg->gathered_gradients;
}

static void S_table_line_items(tb_report *r, tb_table *t)
{
	const tb_memory *m = &r->b->memory;
	const tb_params *p = &r->b->params;
	tb_rtab tb;
	tb_rtab_init(&tb, t, r, NULL, "lrrr", "Line item", "Bytes per parameter", "Whole model",
	             "Per GPU", NULL);
	double w, g, ws = S_working_set(&m->per_gpu, &w, &g);
	struct { const char *label; double bpp, gpu; } rows[] = {
		{ "Weights", m->bytes_per_param.weights, w },
		{ "Gradients", m->bytes_per_param.gradients, g },
		{ "Master weights (fp32)", m->bytes_per_param.master_weights, m->per_gpu.master_weights },
		{ "Optimizer state", m->bytes_per_param.optimizer, m->per_gpu.optimizer },
		{ "Model states", m->bytes_per_param.total,
		  m->per_gpu.weights + m->per_gpu.gradients + m->per_gpu.master_weights + m->per_gpu.optimizer },
	};
	tb_method meth = r->sc->inputs.training.method;
	/* the linear layers' fp8 copies (or fp8 weights) on a row of their
	 * own, out of the weights' row and its 16-bit weights they replace */
	double w16 = m->trained_weights_bytes;
	rows[0].gpu -= m->per_gpu.fp8_weights;
	if (m->per_gpu.gathered_weights > 0 && m->bytes_per_param.master_weights > 0 &&
	    !(rows[0].gpu > 0))
		rows[0].label = "Weights in 16 bits (FSDP shards only the fp32 copy, the master "
		                "weights; these are gathered, in the working set)";
	if (m->fp8_replaced_bytes > 0)
		rows[0].label = "Weights in 16 bits (the embedding, the head, the norms)";
	if (meth != TB_METHOD_FULL) {
		/* the trained parameters' rows are per trained parameter */
		rows[0].label = tb_method_adapters(meth) ? "Weights, adapters"
		                : m->fp8_replaced_bytes > 0
		                ? "Weights, trained, in 16 bits (the embedding, the head, the norms)"
		                : "Weights, trained";
		rows[0].gpu -= m->per_gpu.frozen_weights;
		tb_rtab_str(&tb, r->sc->inputs.training.quantization != TB_QUANT_NONE
		                 ? "Frozen weights (linear layers quantized)" : "Frozen weights");
		tb_rtab_num(&tb, TB_RF_PLAIN, p->total > 0 ? m->frozen_weights_bytes / p->total : 0);
		tb_rtab_num(&tb, TB_RF_BYTES, m->frozen_weights_bytes);
		tb_rtab_num(&tb, TB_RF_BYTES, m->per_gpu.frozen_weights);
	}
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		if (meth != TB_METHOD_FULL && i == 4)
			rows[i].label = "Model states (trained and frozen)";
		double whole = i == 4 ? m->model_states_bytes : i == 0 ? w16 : rows[i].bpp * p->trainable;
		tb_rtab_str(&tb, rows[i].label);
		if (meth != TB_METHOD_FULL && i == 4)
			tb_rtab_str(&tb, "");
		else
			tb_rtab_num(&tb, TB_RF_PLAIN, p->trainable > 0 && (i == 0 || i == 4)
			            ? whole / p->trainable : rows[i].bpp);
		tb_rtab_num(&tb, TB_RF_BYTES, whole);
		tb_rtab_num(&tb, TB_RF_BYTES, rows[i].gpu);
		if (i == 0 && m->fp8_weights_bytes > 0) {
			tb_rtab_str(&tb, m->fp8_replaced_bytes > 0
			                 ? "Weights of the linear layers, in fp8 (fp8_param_gather)"
			                 : r->sc->inputs.training.precision == TB_PREC_FP4_MIXED
			                 ? "fp4 copies of the linear layers' weights (Transformer Engine)"
			                 : "fp8 copies of the linear layers' weights (Transformer Engine)");
			tb_rtab_num(&tb, TB_RF_PLAIN, p->trainable > 0 ? m->fp8_weights_bytes / p->trainable : 0);
			tb_rtab_num(&tb, TB_RF_BYTES, m->fp8_weights_bytes);
			tb_rtab_num(&tb, TB_RF_BYTES, m->per_gpu.fp8_weights);
		}
		if (i == 1 && ws > 0) {
			tb_rtab_str(&tb, "FSDP's working set: the unit gathered, the next prefetched, "
			                 "the unit's gradients before their reduce-scatter");
			tb_rtab_str(&tb, "");
			tb_rtab_str(&tb, "");
			tb_rtab_num(&tb, TB_RF_BYTES, ws);
		}
	}
}

static void S_table_activations(tb_report *r, tb_table *t)
{
	const tb_memory *m = &r->b->memory;
	tb_rtab tb;
	tb_rtab_init(&tb, t, r, "Per layer, per micro-batch, per GPU", "llr",
	             "Tensor kept for backward", "Shape", "Bytes per layer", NULL);
	if (!m->activations_known) {
		tb_rtab_str(&tb, "Per GPU (unknown for a model given only by its parameter count)");
		tb_rtab_str(&tb, "");
		tb_rtab_str(&tb, "n/a");
		return;
	}
	int n = m->n_act_items < TB_ACT_ITEMS_MAX ? m->n_act_items : TB_ACT_ITEMS_MAX;
	for (int i = 0; i < n; i++) {
		tb_rtab_str(&tb, m->act_items[i].name);
		tb_rtab_str(&tb, m->act_items[i].shape);
		tb_rtab_num(&tb, TB_RF_BYTES, m->act_items[i].bytes);
	}
	tb_rtab_str(&tb, "One layer");
	tb_rtab_str(&tb, "");
	tb_rtab_num(&tb, TB_RF_BYTES, m->activations_per_layer_bytes);
	tb_rtab_str(&tb, "Embedding dropout mask (its output is layer 1's input)");
	tb_rtab_str(&tb, !r->sc->inputs.training.dropout ? "none: no dropout"
	                 : r->sc->inputs.parallelism.sequence_parallel ? "s*b*h/t bytes x in flight"
	                 : "s*b*h bytes x in flight");
	tb_rtab_num(&tb, TB_RF_BYTES, m->embedding_dropout_bytes);
	tb_rtab_str(&tb, "Logits / cross-entropy buffer");
	tb_rtab_str(&tb, "s*b*V");
	tb_rtab_num(&tb, TB_RF_BYTES, m->logits_bytes);
	tb_rtab_fmt(&tb, "Per GPU (layers: %lld; micro-batches in flight: %lld)",
	            (long long)m->layers_on_busiest_stage, (long long)m->inflight_microbatches);
	tb_rtab_str(&tb, "");
	tb_rtab_num(&tb, TB_RF_BYTES, m->activations_bytes);
}

static void S_table_per_gpu(tb_report *r, tb_table *t)
{
	const tb_memory *m = &r->b->memory;
	tb_rtab tb;
	tb_rtab_init(&tb, t, r, NULL, "lrr", "Per GPU", "Bytes", "Of capacity", NULL);
	bool act = m->activations_known;
	double w, g, ws = S_working_set(&m->per_gpu, &w, &g);
	struct { const char *label; double v; bool known; } rows[] = {
		{ "Weights", w, true }, { "Gradients", g, true },
		{ "FSDP's working set (weights gathered, their gradients)", ws, ws > 0 },
		{ "Master weights", m->per_gpu.master_weights, true },
		{ m->per_gpu.paged > 0 ? "Optimizer state (pages to host: not in the total)"
		                       : "Optimizer state", m->per_gpu.optimizer, true },
		{ "Activations", m->per_gpu.activations, act },
		{ "Other (CUDA context, allocator, buffers)", m->per_gpu.other, true },
		/* without activations the sum is a floor, and says so */
		{ act ? "Total" : "Total without activations", m->per_gpu.total, true },
		{ "Capacity", m->capacity_bytes, true },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		if (i == 2 && !rows[i].known)
			continue;
		tb_rtab_str(&tb, rows[i].label);
		if (!rows[i].known) {
			tb_rtab_str(&tb, "n/a");
			tb_rtab_str(&tb, "n/a");
			continue;
		}
		tb_rtab_num(&tb, TB_RF_BYTES, rows[i].v);
		tb_rtab_share(&tb, rows[i].v, m->capacity_bytes);
	}
	switch (tb_rmem_fit(r->b)) {
	case TB_RFIT_YES:
		tb_rtab_str(&tb, "Headroom");
		tb_rtab_num(&tb, TB_RF_BYTES, m->capacity_bytes - m->per_gpu.total);
		break;
	case TB_RFIT_NO:
		tb_rtab_str(&tb, act ? "Shortfall" : "Shortfall before activations");
		tb_rtab_num(&tb, TB_RF_BYTES, m->per_gpu.total - m->capacity_bytes);
		break;
	case TB_RFIT_UNKNOWN:
		tb_rtab_str(&tb, "Headroom");
		tb_rtab_str(&tb, "n/a");
		break;
	}
	tb_rtab_str(&tb, "");
}

static void S_table_zero(tb_report *r, tb_table *t)
{
	const tb_memory *m = &r->b->memory;
	tb_rtab tb;
	bool act = m->activations_known;
	/* without activations the total is a floor, and its header says so */
	tb_rtab_init(&tb, t, r, "Per GPU", "lrrrrrrl", "ZeRO stage", "Weights", "Gradients",
	             "Optimizer state", "Activations", "Other",
	             act ? "Total" : "Total without activations", "Fits", NULL);
	for (int i = 0; i < 4; i++) {
		const tb_zero_row *z = &m->zero[i];
		tb_rtab_fmt(&tb, "%d%s", i, i == r->sc->inputs.parallelism.zero ? " (this run)" : "");
		tb_rtab_num(&tb, TB_RF_BYTES, z->bytes.weights);
		tb_rtab_num(&tb, TB_RF_BYTES, z->bytes.gradients);
		tb_rtab_num(&tb, TB_RF_BYTES, z->bytes.master_weights + z->bytes.optimizer);
		if (act)
			tb_rtab_num(&tb, TB_RF_BYTES, z->bytes.activations);
		else
			tb_rtab_str(&tb, "n/a");
		tb_rtab_num(&tb, TB_RF_BYTES, z->bytes.other);
		tb_rtab_num(&tb, TB_RF_BYTES, z->bytes.total);
		tb_rtab_str(&tb, tb_rfits_word(z->fits, z->fits_known));
	}
}

static void S_table_checkpointing(tb_report *r, tb_table *t)
{
	const tb_memory *m = &r->b->memory;
	tb_rtab tb;
	tb_rtab_init(&tb, t, r, NULL, "lrrrl", "Checkpointing", "Activations per GPU",
	             "Extra FLOPs", "Total per GPU", "Fits", NULL);
	for (int i = 0; i < 3; i++) {
		const tb_ckpt_row *c = &m->checkpointing[i];
		tb_selective pol = r->sc->inputs.training.selective_policy;
		const char *policy = i != TB_CKPT_SELECTIVE ? ""
		                     : pol == TB_SELECTIVE_OP ? ", op policy"
		                     : pol == TB_SELECTIVE_DEEPSEEK ? ", DeepSeek-V3's recipe"
		                     : pol == TB_SELECTIVE_MOE ? ", the norms and expert layers" : "";
		int64_t part = i == TB_CKPT_FULL ? r->sc->inputs.training.recompute_layers : 0;
		char per[48] = "";
		if (part > 0)
			snprintf(per, sizeof per, ", %lld layers a chunk", (long long)part);
		tb_rtab_fmt(&tb, "%s%s%s%s", tb_checkpointing_name((tb_checkpointing)i),
		            policy, per,
		            i == (int)r->sc->inputs.training.checkpointing ? " (this run)" : "");
		if (m->activations_known) {
			tb_rtab_num(&tb, TB_RF_BYTES, c->activations_bytes);
			tb_rtab_num(&tb, TB_RF_PCT, c->extra_flops_fraction);
			tb_rtab_num(&tb, TB_RF_BYTES, c->total_bytes);
			tb_rtab_str(&tb, tb_rfits_word(c->fits, c->fits_known));
			continue;
		}
		/* checkpointing changes only activations: the states and overhead
		 * are those of the scenario's own ZeRO stage */
		tb_rtab_str(&tb, "n/a");
		tb_rtab_num(&tb, TB_RF_PCT, c->extra_flops_fraction);
		tb_rtab_str(&tb, "n/a");
		tb_rtab_str(&tb, tb_rfits_word(c->fits, c->fits_known));
	}
	/* the fewest layers full recomputation could redo and fit (memory.c) */
	if (m->fewest_recompute_layers > 0) {
		tb_rtab_fmt(&tb, "full, %lld layers a chunk (the fewest that fit)",
		            (long long)m->fewest_recompute_layers);
		tb_rtab_num(&tb, TB_RF_BYTES, m->fewest_recompute_act_bytes);
		tb_rtab_num(&tb, TB_RF_PCT, m->fewest_recompute_flops_fraction);
		tb_rtab_num(&tb, TB_RF_BYTES, m->fewest_recompute_bytes);
		tb_rtab_str(&tb, tb_rfits_word(true, true));
	}
}

static void S_chart_zero(const tb_report *r, tb_chart_spec *s)
{
	const tb_memory *m = &r->b->memory;
	tb_rchart_init(s, TB_CHART_STACKED_BARS, "zero", "Memory per GPU by ZeRO stage",
	               "ZeRO stage", "Memory per GPU", "GB", 1e9);
	s->ncats = 4;
	for (int i = 0; i < 4; i++)
		snprintf(s->cats[i], sizeof s->cats[i], "ZeRO-%d", i);
	tb_rchart_series(s, "Weights");
	tb_rchart_series(s, "Gradients");
	tb_rchart_series(s, "Optimizer state (master + moments)");
	/* unknown activations draw no bar at all, rather than one of 0 B */
	tb_rchart_series(s, m->activations_known ? "Activations" : "Activations (unknown)");
	tb_rchart_series(s, "Other");
	for (int i = 0; i < 4; i++) {
		const tb_mem_items *z = &m->zero[i].bytes;
		s->series[0].values[i] = z->weights;
		s->series[1].values[i] = z->gradients;
		s->series[2].values[i] = z->master_weights + z->optimizer;
		s->series[3].values[i] = m->activations_known ? z->activations : NAN;
		s->series[4].values[i] = z->other;
	}
	if (m->capacity_bytes > 0)
		tb_rchart_ref(s, m->capacity_bytes, "capacity ", TB_RF_BYTES, m->capacity_bytes,
		              tb_rchart_ref_grey);
}

static const tb_rtable_def S_tables[] = {
	{ "memory.line_items", S_table_line_items },
	{ "memory.activations", S_table_activations },
	{ "memory.per_gpu", S_table_per_gpu },
	{ "memory.zero", S_table_zero },
	{ "memory.checkpointing", S_table_checkpointing },
};

static const tb_rchart_def S_charts[] = {
	{ "zero", S_chart_zero },
};

const tb_rsection tb_rsection_memory = {
	S_tables, sizeof S_tables / sizeof S_tables[0],
	S_charts, sizeof S_charts / sizeof S_charts[0],
};
