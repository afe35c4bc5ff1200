/* report_values.c: the template's placeholders ({{name|filter}}) and
 * conditions ({{#if name}}) over the scenario and its budget.  A value is a
 * line in S_values (a field of the budget or the inputs, with its default
 * filter) or a text name; a condition is a name and a line in the switch. */
#include "report_build.h"

#include <stdint.h>
#include <string.h>

#include "trainbudget/version.h"

/* ---- values ---------------------------------------------------------- */

typedef enum { S_T_D, S_T_I64, S_T_INT, S_T_BOOL } S_vtype;
typedef enum { S_SRC_BUDGET, S_SRC_INPUTS } S_src;

typedef struct S_value_def {
	const char *name;
	size_t len;             /* strlen(name): most names are told apart by it */
	S_src src;
	size_t off;
	S_vtype type;
	tb_rfilter filter;      /* default */
} S_value_def;

/* n, a string literal: its size is its length and NUL */
#define BD(n, field, f) { n, sizeof(n) - 1, S_SRC_BUDGET, offsetof(tb_budget, field), S_T_D, f }
#define BI(n, field, f) { n, sizeof(n) - 1, S_SRC_BUDGET, offsetof(tb_budget, field), S_T_I64, f }
#define BB(n, field) { n, sizeof(n) - 1, S_SRC_BUDGET, offsetof(tb_budget, field), S_T_BOOL, TB_RF_PLAIN }
#define ID(n, field, f) { n, sizeof(n) - 1, S_SRC_INPUTS, offsetof(tb_inputs, field), S_T_D, f }
#define II(n, field, f) { n, sizeof(n) - 1, S_SRC_INPUTS, offsetof(tb_inputs, field), S_T_I64, f }
#define IN(n, field, f) { n, sizeof(n) - 1, S_SRC_INPUTS, offsetof(tb_inputs, field), S_T_INT, f }
#define IB(n, field) { n, sizeof(n) - 1, S_SRC_INPUTS, offsetof(tb_inputs, field), S_T_BOOL, TB_RF_PLAIN }

static const S_value_def S_values[] = {
	/* model */
	II("model.layers", model.layers, TB_RF_GROUPED),
	II("model.hidden", model.hidden, TB_RF_GROUPED),
	II("model.heads", model.heads, TB_RF_GROUPED),
	II("model.kv_heads", model.kv_heads, TB_RF_GROUPED),
	II("model.head_dim", model.head_dim, TB_RF_GROUPED),
	II("model.ffn_hidden", model.ffn_hidden, TB_RF_GROUPED),
	II("model.vocab", model.vocab, TB_RF_GROUPED),
	II("model.experts", model.experts, TB_RF_GROUPED),
	II("model.experts_per_token", model.experts_per_token, TB_RF_GROUPED),
	IB("model.tied_embeddings", model.tied_embeddings),
	/* training */
	ID("training.tokens", training.tokens, TB_RF_COUNT),
	II("training.seq_len", training.seq_len, TB_RF_GROUPED),
	II("training.global_batch", training.global_batch, TB_RF_GROUPED),
	II("training.micro_batch", training.micro_batch, TB_RF_GROUPED),
	IB("training.flash_attention", training.flash_attention),
	IB("training.dropout", training.dropout),
	/* hardware */
	II("hardware.count", hardware.count, TB_RF_GROUPED),
	ID("hardware.mfu.low", hardware.mfu[0], TB_RF_PCT),
	ID("hardware.mfu.expected", hardware.mfu[1], TB_RF_PCT),
	ID("hardware.mfu.high", hardware.mfu[2], TB_RF_PCT),
	ID("hardware.price_per_gpu_hour", hardware.price_per_gpu_hour, TB_RF_MONEY),
	ID("hardware.pue", hardware.pue, TB_RF_PLAIN),
	ID("hardware.overhead_bytes", hardware.overhead_bytes, TB_RF_BYTES),
	ID("hardware.memory_bytes", hardware.gpu.memory_bytes, TB_RF_BYTES),
	ID("hardware.tdp_w", hardware.gpu.tdp_w, TB_RF_GROUPED),
	/* parallelism */
	II("parallelism.tensor", parallelism.tensor, TB_RF_GROUPED),
	II("parallelism.pipeline", parallelism.pipeline, TB_RF_GROUPED),
	II("parallelism.virtual_pipeline", parallelism.virtual_pipeline, TB_RF_GROUPED),
	II("parallelism.context", parallelism.context, TB_RF_GROUPED),
	II("parallelism.data", parallelism.data, TB_RF_GROUPED),
	II("parallelism.expert", parallelism.expert, TB_RF_GROUPED),
	IN("parallelism.zero", parallelism.zero, TB_RF_PLAIN),
	IB("parallelism.sequence_parallel", parallelism.sequence_parallel),
	IB("parallelism.overlap_ep", parallelism.overlap_ep),
	/* plan */
	ID("plan.deadline_s", plan.deadline_s, TB_RF_DAYS),
	ID("plan.budget", plan.budget, TB_RF_MONEY),
	ID("plan.inference_tokens", plan.inference_tokens, TB_RF_COUNT),
	/* parameters */
	BD("parameters.total", params.total, TB_RF_COUNT),
	BD("parameters.active", params.active, TB_RF_COUNT),
	BD("parameters.embedding", params.embedding, TB_RF_COUNT),
	BD("parameters.attention", params.attention, TB_RF_COUNT),
	BD("parameters.mlp", params.mlp, TB_RF_COUNT),
	BD("parameters.router", params.router, TB_RF_COUNT),
	BD("parameters.norm", params.norm, TB_RF_COUNT),
	BD("parameters.output", params.output, TB_RF_COUNT),
	BD("parameters.position", params.position, TB_RF_COUNT),
	BD("parameters.per_layer", params.per_layer, TB_RF_COUNT),
	BD("parameters.trainable", params.trainable, TB_RF_COUNT),
	BD("parameters.adapters", params.adapters, TB_RF_COUNT),
	BD("memory.frozen_weights_bytes", memory.frozen_weights_bytes, TB_RF_BYTES),
	/* flops */
	BD("flops.per_token_6n", flops.per_token_6n, TB_RF_SCI),
	BD("flops.per_token_model", flops.per_token_model, TB_RF_SCI),
	BD("flops.per_token_hardware", flops.per_token_hardware, TB_RF_SCI),
	BD("flops.total_6nd", flops.total_6nd, TB_RF_SCI),
	BD("flops.total_model", flops.total_model, TB_RF_SCI),
	BD("flops.total_hardware", flops.total_hardware, TB_RF_SCI),
	BD("flops.fwd_matmul_per_token", flops.fwd_matmul_per_token, TB_RF_SCI),
	BD("flops.fwd_attention_per_token", flops.fwd_attention_per_token, TB_RF_SCI),
	BD("flops.fwd_logits_per_token", flops.fwd_logits_per_token, TB_RF_SCI),
	BD("flops.recompute_per_token", flops.recompute_per_token, TB_RF_SCI),
	BD("flops.model_over_6n", flops.model_over_6n, TB_RF_PLAIN),
	/* memory */
	BD("memory.bytes_per_param.weights", memory.bytes_per_param.weights, TB_RF_PLAIN),
	BD("memory.bytes_per_param.gradients", memory.bytes_per_param.gradients, TB_RF_PLAIN),
	BD("memory.bytes_per_param.master_weights", memory.bytes_per_param.master_weights, TB_RF_PLAIN),
	BD("memory.bytes_per_param.optimizer", memory.bytes_per_param.optimizer, TB_RF_PLAIN),
	BD("memory.bytes_per_param.total", memory.bytes_per_param.total, TB_RF_PLAIN),
	BD("memory.model_states_bytes", memory.model_states_bytes, TB_RF_BYTES),
	BD("memory.activations_per_layer_bytes", memory.activations_per_layer_bytes, TB_RF_BYTES),
	BD("memory.activations_bytes", memory.activations_bytes, TB_RF_BYTES),
	BD("memory.logits_bytes", memory.logits_bytes, TB_RF_BYTES),
	BD("memory.embedding_dropout_bytes", memory.embedding_dropout_bytes, TB_RF_BYTES),
	BI("memory.inflight_microbatches", memory.inflight_microbatches, TB_RF_GROUPED),
	BI("memory.layers_on_busiest_stage", memory.layers_on_busiest_stage, TB_RF_GROUPED),
	BD("memory.per_gpu.weights", memory.per_gpu.weights, TB_RF_BYTES),
	BD("memory.per_gpu.gradients", memory.per_gpu.gradients, TB_RF_BYTES),
	BD("memory.per_gpu.master_weights", memory.per_gpu.master_weights, TB_RF_BYTES),
	BD("memory.per_gpu.optimizer", memory.per_gpu.optimizer, TB_RF_BYTES),
	BD("memory.per_gpu.activations", memory.per_gpu.activations, TB_RF_BYTES),
	BD("memory.per_gpu.other", memory.per_gpu.other, TB_RF_BYTES),
	BD("memory.per_gpu.total", memory.per_gpu.total, TB_RF_BYTES),
	BD("memory.per_gpu.capacity", memory.capacity_bytes, TB_RF_BYTES),
	BI("memory.max_micro_batch", memory.max_micro_batch, TB_RF_GROUPED),
	BD("memory.kv_cache_bytes_per_token", memory.kv_cache_bytes_per_token, TB_RF_BYTES),
	BD("memory.kv_cache_bytes_per_sequence", memory.kv_cache_bytes_per_sequence, TB_RF_BYTES),
	BD("memory.max_params_fully_sharded", memory.max_params_fully_sharded, TB_RF_COUNT),
	BD("memory.max_params_one_gpu", memory.max_params_one_gpu, TB_RF_COUNT),
	BD("memory.max_params_this_layout", memory.max_params_this_layout, TB_RF_COUNT),
	/* the step-time model (0 when it has no prediction: test {{#if perf}}) */
	BD("perf.step_s", perf.r.step_s, TB_RF_PLAIN),
	BD("perf.tokens_per_s_per_gpu", perf.r.tokens_per_s_per_gpu, TB_RF_GROUPED),
	BD("perf.mfu", perf.r.mfu, TB_RF_PCT),
	BD("perf.hfu", perf.r.hfu, TB_RF_PCT),
	BD("perf.tflops_per_gpu", perf.r.tflops_per_gpu, TB_RF_PLAIN),
	BD("perf.mfu_band.low", perf.mfu_band[0], TB_RF_PCT),
	BD("perf.mfu_band.high", perf.mfu_band[1], TB_RF_PCT),
	BD("perf.bubble_fraction", perf.r.bubble_fraction, TB_RF_PCT),
	BI("perf.microbatches", perf.r.microbatches, TB_RF_GROUPED),
	BI("perf.stage_layers.first", perf.r.stage_layers[0], TB_RF_GROUPED),
	BI("perf.stage_layers.middle", perf.r.stage_layers[1], TB_RF_GROUPED),
	BI("perf.stage_layers.last", perf.r.stage_layers[2], TB_RF_GROUPED),
	BI("perf.node.gpus", perf.in.hw.gpus_per_node, TB_RF_GROUPED),
	BD("perf.node.nvlink_bytes_per_s", perf.in.hw.nvlink_bytes_per_s, TB_RF_BYTES),
	BD("perf.node.network_bytes_per_s", perf.in.hw.network_bytes_per_s, TB_RF_BYTES),
	BD("perf.breakdown.compute", perf.r.breakdown_s[TB_PERF_COMPUTE], TB_RF_PLAIN),
	BD("perf.breakdown.recompute", perf.r.breakdown_s[TB_PERF_RECOMPUTE], TB_RF_PLAIN),
	BD("perf.breakdown.tp_comm", perf.r.breakdown_s[TB_PERF_TP_COMM], TB_RF_PLAIN),
	BD("perf.breakdown.cp_comm", perf.r.breakdown_s[TB_PERF_CP_COMM], TB_RF_PLAIN),
	BD("perf.breakdown.ep_comm", perf.r.breakdown_s[TB_PERF_EP_COMM], TB_RF_PLAIN),
	BD("perf.breakdown.pp_comm", perf.r.breakdown_s[TB_PERF_PP_COMM], TB_RF_PLAIN),
	BD("perf.breakdown.bubble", perf.r.breakdown_s[TB_PERF_BUBBLE], TB_RF_PLAIN),
	BD("perf.breakdown.dp_comm", perf.r.breakdown_s[TB_PERF_DP_COMM], TB_RF_PLAIN),
	BD("perf.breakdown.optimizer", perf.r.breakdown_s[TB_PERF_OPTIMIZER], TB_RF_PLAIN),
	BD("perf.breakdown.other", perf.r.breakdown_s[TB_PERF_OTHER], TB_RF_PLAIN),
	/* time, cost, energy: .low/.expected/.high are the MFU's index */
	BD("time.peak_flops_per_gpu", time.peak_flops_per_gpu, TB_RF_SCI),
	BD("time.mfu.low", time.mfu[0], TB_RF_PCT),
	BD("time.mfu.expected", time.mfu[1], TB_RF_PCT),
	BD("time.mfu.high", time.mfu[2], TB_RF_PCT),
	BD("time.seconds.low", time.seconds[0], TB_RF_DAYS),
	BD("time.seconds.expected", time.seconds[1], TB_RF_DAYS),
	BD("time.seconds.high", time.seconds[2], TB_RF_DAYS),
	BD("time.gpu_hours.low", time.gpu_hours[0], TB_RF_GROUPED),
	BD("time.gpu_hours.expected", time.gpu_hours[1], TB_RF_GROUPED),
	BD("time.gpu_hours.high", time.gpu_hours[2], TB_RF_GROUPED),
	BD("time.cost.low", time.cost[0], TB_RF_MONEY),
	BD("time.cost.expected", time.cost[1], TB_RF_MONEY),
	BD("time.cost.high", time.cost[2], TB_RF_MONEY),
	BD("time.energy_kwh.low", time.energy_kwh[0], TB_RF_GROUPED),
	BD("time.energy_kwh.expected", time.energy_kwh[1], TB_RF_GROUPED),
	BD("time.energy_kwh.high", time.energy_kwh[2], TB_RF_GROUPED),
	BD("time.deadline_s", time.deadline_s, TB_RF_DAYS),
	BB("time.meets_deadline", time.meets_deadline),
	BD("time.gpus_for_deadline", time.gpus_for_deadline, TB_RF_GROUPED),
	BD("time.gpus_for_deadline_compute", time.gpus_for_deadline_compute, TB_RF_GROUPED),
	BD("time.global_batch_for_compute", time.global_batch_for_compute, TB_RF_GROUPED),
	BD("time.tokens_in_deadline", time.tokens_in_deadline, TB_RF_COUNT),
	BD("time.budget", time.budget, TB_RF_MONEY),
	BB("time.within_budget", time.within_budget),
	BD("time.tokens_in_budget", time.tokens_in_budget, TB_RF_COUNT),
	BD("time.achieved_mfu", time.achieved_mfu, TB_RF_PCT),
	BD("time.achieved_hfu", time.achieved_hfu, TB_RF_PCT),
	BD("time.measured_seconds", time.measured_seconds, TB_RF_DAYS),
	BD("time.measured_peak_bytes", time.measured_peak_bytes, TB_RF_BYTES),
	BD("time.memory_estimate_error", time.memory_estimate_error, TB_RF_PCT),
	/* failures, checkpoints and confidence */
	ID("hardware.failures_per_node_day", hardware.failures_per_node_day, TB_RF_PLAIN),
	ID("hardware.restart_s", hardware.restart_s, TB_RF_DAYS),
	ID("training.checkpoint_interval_s", training.checkpoint_interval_s, TB_RF_DAYS),
	II("training.lora.rank", training.lora.rank, TB_RF_GROUPED),
	ID("training.lora.alpha", training.lora.alpha, TB_RF_PLAIN),
	BD("goodput.nodes", goodput.nodes, TB_RF_GROUPED),
	BD("goodput.mtbf_s", goodput.mtbf_s, TB_RF_DAYS),
	BD("goodput.checkpoint_bytes", goodput.checkpoint_bytes, TB_RF_BYTES),
	BD("goodput.checkpoint_save_s", goodput.checkpoint_save_s, TB_RF_DAYS),
	BD("goodput.checkpoint_interval_s", goodput.checkpoint_interval_s, TB_RF_DAYS),
	BD("goodput.lost_per_failure_s", goodput.lost_per_failure_s, TB_RF_DAYS),
	BD("goodput.expected_failures", goodput.expected_failures, TB_RF_PLAIN),
	BD("goodput.lost_s", goodput.lost_s, TB_RF_DAYS),
	BD("goodput.checkpoint_s", goodput.checkpoint_s, TB_RF_DAYS),
	BD("goodput.fraction", goodput.fraction, TB_RF_PCT),
	BD("goodput.seconds.low", losses.seconds[0], TB_RF_DAYS),
	BD("goodput.seconds.expected", losses.seconds[1], TB_RF_DAYS),
	BD("goodput.seconds.high", losses.seconds[2], TB_RF_DAYS),
	BD("goodput.gpu_hours.expected", losses.gpu_hours[1], TB_RF_GROUPED),
	BD("goodput.cost.low", losses.cost[0], TB_RF_MONEY),
	BD("goodput.cost.expected", losses.cost[1], TB_RF_MONEY),
	BD("goodput.cost.high", losses.cost[2], TB_RF_MONEY),
	BD("goodput.energy_kwh.expected", losses.energy_kwh[1], TB_RF_GROUPED),
	/* the band the simulation draws from: the MFU basis's (time.mfu), not
	 * the scenario's range, which a predicted or measured MFU replaces */
	BD("risk.mfu.low", time.mfu[0], TB_RF_PCT),
	BD("risk.mfu.expected", time.mfu[1], TB_RF_PCT),
	BD("risk.mfu.high", time.mfu[2], TB_RF_PCT),
	BD("risk.cost_p10", risk.cost_p10, TB_RF_MONEY),
	BD("risk.cost_p50", risk.cost_p50, TB_RF_MONEY),
	BD("risk.cost_p90", risk.cost_p90, TB_RF_MONEY),
	BD("risk.budget_p90", risk.budget_p90, TB_RF_MONEY),
	BD("risk.p_meets_deadline", risk.p_meets_deadline, TB_RF_PROB),
	BD("risk.p_within_budget", risk.p_within_budget, TB_RF_PROB),
	/* scaling laws */
	BD("chinchilla.compute_flops", chinchilla.compute_flops, TB_RF_SCI),
	BD("chinchilla.optimal_params", chinchilla.optimal_params, TB_RF_COUNT),
	BD("chinchilla.optimal_tokens", chinchilla.optimal_tokens, TB_RF_COUNT),
	BD("chinchilla.tokens_per_param", chinchilla.tokens_per_param, TB_RF_PLAIN),
	BD("chinchilla.scenario_tokens_per_param", chinchilla.scenario_tokens_per_param, TB_RF_PLAIN),
	BD("chinchilla.params_fit", chinchilla.run.params_fit, TB_RF_COUNT),
	BD("chinchilla.tokens_fit", chinchilla.run.tokens_fit, TB_RF_COUNT),
	BD("chinchilla.params_epoch", chinchilla.run.params_epoch, TB_RF_COUNT),
	BD("chinchilla.tokens_epoch", chinchilla.run.tokens_epoch, TB_RF_COUNT),
	BD("chinchilla.loss", chinchilla.loss, TB_RF_PLAIN),
	BD("chinchilla.loss_epoch", chinchilla.loss_epoch, TB_RF_PLAIN),
	BD("chinchilla.deadline.compute_flops", chinchilla.deadline.compute_flops, TB_RF_SCI),
	BD("chinchilla.deadline.params", chinchilla.deadline.params, TB_RF_COUNT),
	BD("chinchilla.deadline.tokens", chinchilla.deadline.tokens, TB_RF_COUNT),
	BD("chinchilla.budget.compute_flops", chinchilla.budget.compute_flops, TB_RF_SCI),
	BD("chinchilla.budget.params", chinchilla.budget.params, TB_RF_COUNT),
	BD("chinchilla.budget.tokens", chinchilla.budget.tokens, TB_RF_COUNT),
};

#define S_NVALUES (sizeof S_values / sizeof S_values[0])

/* Text values; each returns NULL when absent (printed as "n/a"). */
static const char *const S_text_names[] = {
	"scenario.title", "scenario.author", "scenario.date", "scenario.sha256",
	"scenario.sha256_short", "scenario.name", "scenario.path", "scenario.notes",
	"scenario.text", "report.date", "report.version", "report.command",
	"model.preset", "training.precision", "training.optimizer",
	"training.checkpointing", "training.attention_flops", "hardware.gpu",
	"hardware.gpu_label", "hardware.gpu_source", "hardware.currency",
	"time.dtype", "memory.fits", "memory.headroom", "memory.shortfall",
	"flops.recompute_fraction", "memory.per_gpu.known",
	"risk.days_p10", "risk.days_p50", "risk.days_p90", "risk.samples",
	"perf.source", "perf.why", "training.grad_dtype", "hardware.gpu_memory_source",
	"scenario.inputs_sha256", "scenario.inputs_sha256_short",
	"training.method", "training.quantization",
};

#define S_NTEXT (sizeof S_text_names / sizeof S_text_names[0])

static const char *const S_act_names[] = {
	"memory.activations_per_layer_bytes", "memory.activations_bytes",
	"memory.logits_bytes", "memory.embedding_dropout_bytes",
	"memory.per_gpu.activations", "memory.per_gpu.total", "memory.headroom",
	"memory.shortfall", "memory.max_micro_batch",
};

static bool S_needs_activations(const char *name)
{
	for (size_t k = 0; k < sizeof S_act_names / sizeof S_act_names[0]; k++)
		if (strcmp(S_act_names[k], name) == 0)
			return true;
	return false;
}

/* Fills *num and returns true for numbers; sets *txt for text. */
static bool S_lookup(const tb_report *r, const char *name, double *num,
                     tb_rfilter *deflt, const char **txt, bool *found)
{
	const tb_scenario *sc = r->sc;
	const tb_inputs *in = &sc->inputs;
	const tb_budget *b = r->b;
	*found = true;
	*txt = NULL;
	size_t len = strlen(name);
	for (size_t k = 0; k < S_NVALUES; k++) {
		const S_value_def *v = &S_values[k];
		if (v->len != len || memcmp(v->name, name, len) != 0)
			continue;
		const char *base = v->src == S_SRC_BUDGET ? (const char *)b : (const char *)in;
		*deflt = v->filter;
		switch (v->type) {
		case S_T_D: { double x; memcpy(&x, base + v->off, sizeof x); *num = x; return true; }
		case S_T_I64: { int64_t x; memcpy(&x, base + v->off, sizeof x); *num = (double)x; return true; }
		case S_T_INT: { int x; memcpy(&x, base + v->off, sizeof x); *num = x; return true; }
		case S_T_BOOL: { bool x; memcpy(&x, base + v->off, sizeof x); *txt = tb_ryesno(x); return false; }
		}
	}
	size_t k = 0;
	for (; k < S_NTEXT; k++)
		if (strcmp(S_text_names[k], name) == 0)
			break;
	if (k == S_NTEXT) {
		*found = false;
		return false;
	}
	*deflt = TB_RF_PLAIN;
	switch (k) {
	case 0: *txt = sc->title; break;
	case 1: *txt = sc->author; break;
	case 2: *txt = sc->date; break;
	case 3: *txt = sc->sha256; break;
	case 4: *txt = r->file_short; break;
	case 5: *txt = sc->name; break;
	/* as published: never an absolute path of the user's machine */
	case 6: *txt = r->signoff.nfiles && r->signoff.files[0].kind == TB_INPUT_SCENARIO
		         ? r->signoff.files[0].path : NULL; break;
	case 7: *txt = sc->notes; break;
	case 8: *txt = sc->text; break;
	case 9: *txt = r->date; break;
	case 10: *txt = TB_VERSION; break;
	case 11: *txt = r->command; break;
	case 12: *txt = in->model.preset[0] ? in->model.preset : NULL; break;
	case 13: *txt = tb_precision_name(in->training.precision); break;
	case 14: *txt = tb_optimizer_name(in->training.optimizer); break;
	case 15: *txt = tb_checkpointing_name(in->training.checkpointing); break;
	case 16: *txt = in->training.attention_flops == TB_ATTN_FLOPS_CAUSAL
		         ? "causal (FlashAttention: the lower triangle, half the score matrix)"
		         : "full (PaLM: the whole score matrix)"; break;
	case 17: *txt = in->hardware.gpu.name; break;
	case 18: *txt = in->hardware.gpu.label; break;
	case 19: *txt = in->hardware.gpu.source; break;
	case 20: *txt = tb_rcurrency(r); break;
	case 21: *txt = tb_dtype_name(b->time.dtype); break;
	case 22: *txt = tb_rfits_word(b->memory.fits, b->memory.fits_known); break;
	/* never a negative memory figure: the two sides are separate names */
	case 23: *num = b->memory.headroom_bytes > 0 ? b->memory.headroom_bytes : 0;
		*deflt = TB_RF_BYTES; return true;
	case 24: *num = b->memory.headroom_bytes < 0 ? -b->memory.headroom_bytes : 0;
		*deflt = TB_RF_BYTES; return true;
	case 25: {
		int m = (int)in->training.checkpointing;
		*num = m >= 0 && m < 3 ? b->memory.checkpointing[m].extra_flops_fraction : 0;
		*deflt = TB_RF_PCT;
		return true;
	}
	case 26: *num = b->memory.per_gpu.total - b->memory.per_gpu.activations; *deflt = TB_RF_BYTES; return true;
	/* the risk keeps days; the days filter reads seconds */
	case 27: *num = b->risk.days_p10 * 86400; *deflt = TB_RF_DAYS; return true;
	case 28: *num = b->risk.days_p50 * 86400; *deflt = TB_RF_DAYS; return true;
	case 29: *num = b->risk.days_p90 * 86400; *deflt = TB_RF_DAYS; return true;
	case 30: *num = b->risk.samples; *deflt = TB_RF_GROUPED; return true;
	case 31: *txt = !b->perf.known ? NULL : b->perf.source_predicted ? "predicted" : "assumed"; break;
	case 32: *txt = b->perf.known ? NULL : b->perf.why; break;
	case 33: *txt = tb_grad_dtype_name(tb_grad_dtype_of(&in->training)); break;
	case 34: *txt = in->hardware.gpu.memory_source[0] ? in->hardware.gpu.memory_source : NULL; break;
	case 35: *txt = r->signoff.digest; break;
	case 36: *txt = r->short_hash; break;
	case 37: *txt = tb_method_name(in->training.method); break;
	case 38: *txt = tb_quant_name(in->training.quantization); break;
	default: break;
	}
	return false;
}

tb_tpl_status tb_rvalue(void *ctx, const char *name, const char *filter,
                               tb_buf *out)
{
	const tb_report *r = ctx;
	double num = 0;
	tb_rfilter deflt = TB_RF_PLAIN, f = TB_RF_PLAIN;
	const char *txt = NULL;
	bool found;
	bool is_num = S_lookup(r, name, &num, &deflt, &txt, &found);
	if (!found)
		return TB_TPL_UNKNOWN_NAME;
	if (filter && !tb_rfilter_find(filter, &f))
		return TB_TPL_UNKNOWN_FILTER;
	if (!r->b->memory.activations_known && S_needs_activations(name)) {
		/* a shortfall the states alone make is still a shortfall */
		if (strcmp(name, "memory.shortfall") == 0 && num > 0)
			tb_rfmt(out, filter ? f : deflt, num, tb_rcurrency(r));
		else
			tb_buf_puts(out, "n/a");
		return TB_TPL_OK;
	}
	if (!is_num) {
		if (filter && strcmp(filter, "plain") != 0)
			return TB_TPL_BAD_FILTER;
		tb_buf_puts(out, txt && *txt ? txt : "n/a");
		return TB_TPL_OK;
	}
	f = filter ? f : deflt;
	if (f == TB_RF_MONEY && strcmp(name, "hardware.price_per_gpu_hour") != 0)
		tb_rmoney(out, r, num);     /* totals in one style; the rate keeps cents */
	else
		tb_rfmt(out, f, num, tb_rcurrency(r));
	return TB_TPL_OK;
}

/* ---- conditions ------------------------------------------------------ */

static const char *const S_cond_names[] = {
	"moe", "measured", "measured_step", "measured_memory", "deadline",
	"budget", "notes", "author", "date", "fits", "meets_deadline",
	"within_budget", "activations_known", "inference", "breakdown",
	"warnings", "tied_embeddings", "flash_attention", "pipeline", "tensor",
	"zero", "levers", "plans", "gpu_scan", "derivations", "mixed_precision",
	"does_not_fit", "fit_unknown", "failures", "finishes", "risk",
	"perf", "mfu_predicted", "mfu_above_prediction", "calibrated",
	"fine_tuning", "adapters", "quantized", "billed", "stages",
};

#define S_NCOND (sizeof S_cond_names / sizeof S_cond_names[0])

tb_tpl_status tb_rcondition(void *ctx, const char *name, int *truth)
{
	const tb_report *r = ctx;
	const tb_inputs *in = &r->sc->inputs;
	const tb_budget *b = r->b;
	size_t k = 0;
	for (; k < S_NCOND; k++)
		if (strcmp(S_cond_names[k], name) == 0)
			break;
	bool t;
	switch (k) {
	case 0: t = in->model.experts > 1; break;
	case 1: t = in->measured.has_step_time || in->measured.has_peak_memory; break;
	case 2: t = in->measured.has_step_time; break;
	case 3: t = in->measured.has_peak_memory; break;
	case 4: t = in->plan.has_deadline; break;
	case 5: t = in->plan.has_budget; break;
	case 6: t = r->sc->notes && *r->sc->notes; break;
	case 7: t = r->sc->author && *r->sc->author; break;
	case 8: t = r->date && strcmp(r->date, "undated") != 0; break;
	/* fits: a definite yes; does_not_fit: a definite no; else fit_unknown */
	case 9: t = tb_rmem_fit(b) == TB_RFIT_YES; break;
	case 10: t = b->time.meets_deadline; break;
	case 11: t = b->time.within_budget; break;
	case 12: t = b->memory.activations_known; break;
	case 13: t = in->plan.has_inference; break;
	case 14: t = b->params.known_breakdown; break;
	case 15: t = b->n_warnings > 0; break;
	case 16: t = in->model.tied_embeddings; break;
	case 17: t = in->training.flash_attention; break;
	case 18: t = in->parallelism.pipeline > 1; break;
	case 19: t = in->parallelism.tensor > 1; break;
	case 20: t = in->parallelism.zero > 0; break;
	case 21: t = b->n_levers > 0; break;
	case 22: t = b->chinchilla.n_plans > 0; break;
	case 23: t = b->time.n_gpu_scan > 0; break;
	case 24: t = b->n_derivs > 0; break;
	case 25: t = in->training.precision != TB_PREC_FP32 && in->training.precision != TB_PREC_BF16; break;
	case 26: t = tb_rmem_fit(b) == TB_RFIT_NO; break;
	case 27: t = tb_rmem_fit(b) == TB_RFIT_UNKNOWN; break;
	case 28: t = b->goodput.failures; break;
	case 29: t = b->goodput.progress; break;
	case 30: t = b->risk.known; break;
	case 31: t = b->perf.known; break;
	case 32: t = b->perf.known && b->perf.source_predicted; break;
	case 33: t = b->perf.assumption_above; break;
	case 34: t = b->perf.known && b->perf.calibrated; break;
	case 35: t = in->training.method != TB_METHOD_FULL; break;
	case 36: t = tb_method_adapters(in->training.method); break;
	case 37: t = in->training.quantization != TB_QUANT_NONE; break;
	case 38: t = tb_bill_any(&b->bill_in) && tb_budget_expected(b).known; break;
	case 39: t = b->n_stages > 0; break;
	default: return TB_TPL_UNKNOWN_NAME;
	}
	*truth = t;
	return TB_TPL_OK;
}

const char *tb_rvalue_name(size_t i)
{
	if (i < S_NVALUES)
		return S_values[i].name;
	i -= S_NVALUES;
	return i < S_NTEXT ? S_text_names[i] : NULL;
}

const char *tb_rcondition_name(size_t i)
{
	return i < S_NCOND ? S_cond_names[i] : NULL;
}
