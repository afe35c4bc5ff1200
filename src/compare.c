/* compare.c: proposals side by side (compare.h).  Loads every file before
 * judging any, so one run reports every error of every file; then the
 * checks that make proposals comparable; then the budgets, the inputs
 * that differ and, per headline figure, the best and the differences. */
#include "trainbudget/compare.h"
#include "trainbudget/stages.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/fmt.h"
#include "trainbudget/gpus.h"
#include "trainbudget/sha256.h"
#include "trainbudget/xalloc.h"

#include "pool.h"
#include "yamltree.h"

/* ---- the inputs a reader compares --------------------------------------- */

typedef void (*S_show_fn)(const tb_scenario *sc, tb_buf *o);

static void S_model(const tb_scenario *sc, tb_buf *o)
{
	const tb_model *m = &sc->inputs.model;
	if (m->preset[0])
		tb_buf_puts(o, m->preset);
	else if (!m->has_shape) {
		tb_fmt_count(o, m->params_count);
		tb_buf_puts(o, " parameters (count only)");
	} else {
		tb_buf_puts(o, "own shape");
	}
}

#define S_I64(fn, expr) \
	static void fn(const tb_scenario *sc, tb_buf *o) { tb_fmt_grouped(o, (double)(expr)); }
S_I64(S_layers, sc->inputs.model.layers)
S_I64(S_hidden, sc->inputs.model.hidden)
S_I64(S_heads, sc->inputs.model.heads)
S_I64(S_kv_heads, sc->inputs.model.kv_heads)
S_I64(S_ffn, sc->inputs.model.ffn_hidden)
S_I64(S_vocab, sc->inputs.model.vocab)
S_I64(S_experts, sc->inputs.model.experts)
S_I64(S_seq, sc->inputs.training.seq_len)
S_I64(S_gbatch, sc->inputs.training.global_batch)
S_I64(S_mbatch, sc->inputs.training.micro_batch)
S_I64(S_count, sc->inputs.hardware.count)
S_I64(S_tensor, sc->inputs.parallelism.tensor)
S_I64(S_pipeline, sc->inputs.parallelism.pipeline)
S_I64(S_vpipe, sc->inputs.parallelism.virtual_pipeline ? sc->inputs.parallelism.virtual_pipeline : 1)
S_I64(S_context, sc->inputs.parallelism.context ? sc->inputs.parallelism.context : 1)
S_I64(S_expert, sc->inputs.parallelism.expert)
S_I64(S_data, sc->inputs.parallelism.data)
S_I64(S_zero, sc->inputs.parallelism.zero)
S_I64(S_node, sc->inputs.hardware.node.gpus)

static void S_tokens(const tb_scenario *sc, tb_buf *o) { tb_fmt_count(o, sc->inputs.training.tokens); }
static void S_precision(const tb_scenario *sc, tb_buf *o)
{
	tb_buf_puts(o, tb_precision_name(sc->inputs.training.precision));
}
static void S_optimizer(const tb_scenario *sc, tb_buf *o)
{
	tb_buf_puts(o, tb_optimizer_name(sc->inputs.training.optimizer));
}
static void S_ckpt(const tb_scenario *sc, tb_buf *o)
{
	tb_buf_puts(o, tb_checkpointing_name(sc->inputs.training.checkpointing));
	if (sc->inputs.training.checkpointing == TB_CKPT_FULL && sc->inputs.training.recompute_layers > 0)
		tb_buf_printf(o, ", %lld layers a chunk", (long long)sc->inputs.training.recompute_layers);
}
static void S_gpu(const tb_scenario *sc, tb_buf *o) { tb_buf_puts(o, sc->inputs.hardware.gpu.name); }
static void S_method(const tb_scenario *sc, tb_buf *o)
{
	tb_buf_puts(o, tb_method_name(sc->inputs.training.method));
}
static void S_policy(const tb_scenario *sc, tb_buf *o)
{
	tb_buf_puts(o, tb_selective_name(sc->inputs.training.selective_policy));
}
static void S_attn_kernel(const tb_scenario *sc, tb_buf *o)
{
	tb_buf_puts(o, tb_attn_kernel_name(sc->inputs.training.attention_kernel));
}
static void S_fp8_recipe(const tb_scenario *sc, tb_buf *o)
{
	tb_buf_puts(o, tb_fp8_recipe_name(sc->inputs.training.fp8_recipe));
}
static void S_fp8_attn(const tb_scenario *sc, tb_buf *o)
{
	tb_buf_puts(o, tb_fp8_attn_name(sc->inputs.training.fp8_attention));
}
static void S_framework(const tb_scenario *sc, tb_buf *o)
{
	tb_buf_puts(o, tb_framework_name(sc->inputs.parallelism.framework));
}
static void S_yes(tb_buf *o, bool v) { tb_buf_puts(o, v ? "yes" : "no"); }
static void S_lora_kernels(const tb_scenario *sc, tb_buf *o)
{
	const tb_training *t = &sc->inputs.training;
	tb_buf_puts(o, tb_method_adapters(t->method) ? tb_kernels_name(tb_lora_eager(t)) : "-");
}
static void S_moe_routing(const tb_scenario *sc, tb_buf *o)
{
	const tb_training *t = &sc->inputs.training;
	if (sc->inputs.model.experts <= 1) {
		tb_buf_puts(o, "-");
		return;
	}
	tb_buf_puts(o, tb_moe_routing_name(t->moe_routing));
	if (t->moe_routing == TB_MOE_DROPLESS && t->moe_load_factor > 0)
		tb_buf_printf(o, ", busiest rank %.4g x the mean", t->moe_load_factor);
}
static void S_kernels(const tb_scenario *sc, tb_buf *o)
{
	tb_buf_puts(o, tb_kernels_name(sc->inputs.training.eager_kernels));
}
static void S_cross_entropy(const tb_scenario *sc, tb_buf *o)
{
	tb_buf_puts(o, tb_cross_entropy_name(tb_cross_entropy_eager(&sc->inputs)));
}
static void S_accum_fusion(const tb_scenario *sc, tb_buf *o)
{
	S_yes(o, !sc->inputs.training.no_grad_accum_fusion);
}
static void S_fp8_params(const tb_scenario *sc, tb_buf *o)
{
	S_yes(o, sc->inputs.training.fp8_param_gather);
}
static void S_fp8_head(const tb_scenario *sc, tb_buf *o)
{
	S_yes(o, sc->inputs.training.fp8_head);
}
static void S_grad_dtype(const tb_scenario *sc, tb_buf *o)
{
	tb_buf_puts(o, tb_grad_dtype_name(tb_grad_dtype_of(&sc->inputs.training)));
}
static void S_attn_flops(const tb_scenario *sc, tb_buf *o)
{
	tb_buf_puts(o, tb_attention_flops_name(sc->inputs.training.attention_flops));
}
static void S_flash(const tb_scenario *sc, tb_buf *o) { S_yes(o, sc->inputs.training.flash_attention); }
static void S_dropout(const tb_scenario *sc, tb_buf *o) { S_yes(o, sc->inputs.training.dropout); }
static void S_examples(const tb_scenario *sc, tb_buf *o)
{
	const tb_training *t = &sc->inputs.training;
	tb_buf_puts(o, t->packing ? "packed" : "padded");
	if (t->avg_seq_len > 0)
		tb_buf_printf(o, ", %.0f tokens on average", t->avg_seq_len);
}
static void S_layout(const tb_scenario *sc, tb_buf *o)
{
	const tb_parallelism *p = &sc->inputs.parallelism;
	tb_buf_puts(o, p->layout.pipeline > 0 ? p->layout.text : "the even split");
}
static void S_expert_tensor(const tb_scenario *sc, tb_buf *o)
{
	int64_t et = sc->inputs.parallelism.expert_tensor;
	if (et > 0)
		tb_buf_printf(o, "%lld", (long long)et);
	else
		tb_buf_puts(o, "as tensor");
}
static void S_shard(const tb_scenario *sc, tb_buf *o)
{
	int64_t g = sc->inputs.parallelism.shard_group;
	if (g > 0)
		tb_buf_printf(o, "%lld", (long long)g);
	else
		tb_buf_puts(o, "the whole group");
}
static void S_bucket(const tb_scenario *sc, tb_buf *o)
{
	const char *basis;
	double n = tb_perf_dp_bucket_of(&sc->inputs, &basis);
	if (n > 0) {
		tb_fmt_grouped(o, n);
		tb_buf_printf(o, " %s (%s)", n == 1 ? "weight" : "weights", basis);
	} else
		tb_buf_puts(o, basis);
}
static void S_no_sync(const tb_scenario *sc, tb_buf *o) { S_yes(o, sc->inputs.parallelism.no_sync); }
static void S_overlap_dp(const tb_scenario *sc, tb_buf *o) { S_yes(o, !sc->inputs.parallelism.no_overlap_dp); }
static void S_cuda_graph(const tb_scenario *sc, tb_buf *o)
{
	tb_buf_puts(o, tb_cuda_graph_name(sc->inputs.parallelism.cuda_graph));
}
static void S_overlap_tp(const tb_scenario *sc, tb_buf *o) { S_yes(o, sc->inputs.parallelism.overlap_tp); }
static void S_overlap_tp_qkv(const tb_scenario *sc, tb_buf *o) { S_yes(o, tb_overlap_tp_qkv(&sc->inputs.parallelism)); }
static void S_overlap_tp_dgrad(const tb_scenario *sc, tb_buf *o) { S_yes(o, tb_overlap_tp_dgrad(&sc->inputs.parallelism)); }
static void S_overlap_tp_sms(const tb_scenario *sc, tb_buf *o)
{
	char t[256];
	tb_overlap_tp_sms_text(&sc->inputs.parallelism, t, sizeof t);
	tb_buf_puts(o, t);
}
static void S_overlap_ep(const tb_scenario *sc, tb_buf *o) { S_yes(o, sc->inputs.parallelism.overlap_ep); }
static void S_dispatcher(const tb_scenario *sc, tb_buf *o)
{
	tb_buf_puts(o, tb_dispatcher_name(sc->inputs.parallelism.dispatcher));
}
static void S_cp_comm(const tb_scenario *sc, tb_buf *o)
{
	tb_buf_puts(o, tb_cp_comm_name(sc->inputs.parallelism.cp_comm));
}
static void S_power(const tb_scenario *sc, tb_buf *o)
{
	const tb_hardware *h = &sc->inputs.hardware;
	if (h->power_limit_w > 0)
		tb_buf_printf(o, "%.0f W", h->power_limit_w);
	else
		tb_buf_puts(o, "the TDP");
}
static void S_cudnn(const tb_scenario *sc, tb_buf *o)
{
	char b[16];
	int v = sc->inputs.hardware.cudnn_version;
	tb_buf_puts(o, v > 0 ? tb_gpus_cudnn_name(v, b) : "the newest timed");
}

static void S_mfu(const tb_scenario *sc, tb_buf *o)
{
	const tb_hardware *h = &sc->inputs.hardware;
	if (h->mfu_predicted) {
		tb_buf_puts(o, "predicted");
		return;
	}
	tb_fmt_pct(o, h->mfu[0]);
	tb_buf_puts(o, " / ");
	tb_fmt_pct(o, h->mfu[1]);
	tb_buf_puts(o, " / ");
	tb_fmt_pct(o, h->mfu[2]);
}

static void S_price(const tb_scenario *sc, tb_buf *o)
{
	tb_fmt_money(o, sc->inputs.hardware.price_per_gpu_hour, sc->inputs.hardware.currency);
}
static void S_pue(const tb_scenario *sc, tb_buf *o) { tb_fmt_sig(o, sc->inputs.hardware.pue, 3); }
static void S_failures(const tb_scenario *sc, tb_buf *o)
{
	tb_fmt_sig(o, sc->inputs.hardware.failures_per_node_day, 3);
}
static void S_restart(const tb_scenario *sc, tb_buf *o) { tb_fmt_days(o, sc->inputs.hardware.restart_s); }
static void S_ckpt_bw(const tb_scenario *sc, tb_buf *o)
{
	tb_fmt_bytes(o, sc->inputs.hardware.checkpoint_bytes_per_s);
	tb_buf_puts(o, "/s");
}
static void S_interval(const tb_scenario *sc, tb_buf *o)
{
	double s = sc->inputs.training.checkpoint_interval_s;
	if (s > 0)
		tb_fmt_days(o, s);
	else
		tb_buf_puts(o, "Young's optimum");
}
static void S_sp(const tb_scenario *sc, tb_buf *o)
{
	tb_buf_puts(o, sc->inputs.parallelism.sequence_parallel ? "yes" : "no");
}
static void S_deadline(const tb_scenario *sc, tb_buf *o)
{
	if (sc->inputs.plan.has_deadline)
		tb_fmt_days(o, sc->inputs.plan.deadline_s);
	else
		tb_buf_puts(o, "none");
}
static void S_budget(const tb_scenario *sc, tb_buf *o)
{
	if (sc->inputs.plan.has_budget)
		tb_fmt_money(o, sc->inputs.plan.budget, sc->inputs.hardware.currency);
	else
		tb_buf_puts(o, "none");
}

static const struct S_input_def {
	const char *key, *label;
	S_show_fn show;
} S_inputs[] = {
	{ "model", "Model", S_model },
	{ "model.layers", "Layers", S_layers },
	{ "model.hidden", "Hidden size", S_hidden },
	{ "model.heads", "Attention heads", S_heads },
	{ "model.kv_heads", "Key/value heads", S_kv_heads },
	{ "model.ffn_hidden", "MLP width", S_ffn },
	{ "model.vocab", "Vocabulary", S_vocab },
	{ "model.experts", "Routed experts", S_experts },
	{ "training.tokens", "Training tokens", S_tokens },
	{ "training.seq_len", "Sequence length", S_seq },
	{ "training.global_batch", "Global batch (sequences)", S_gbatch },
	{ "training.micro_batch", "Micro-batch (sequences)", S_mbatch },
	{ "training.precision", "Precision", S_precision },
	{ "training.optimizer", "Optimizer", S_optimizer },
	{ "training.checkpointing", "Activation checkpointing", S_ckpt },
	{ "training.checkpoint_interval", "Checkpoint interval", S_interval },
	{ "training.method", "What is trained", S_method },
	{ "training.selective_policy", "Selective recomputation policy", S_policy },
	{ "training.attention_kernel", "Attention kernel", S_attn_kernel },
	{ "training.fp8_recipe", "fp8 scaling", S_fp8_recipe },
	{ "training.grad_accumulation_fusion", "Gradient accumulation fused", S_accum_fusion },
	{ "training.fp8_param_gather", "Weights kept in fp8", S_fp8_params },
	{ "training.fp8_attention", "Attention in fp8", S_fp8_attn },
	{ "training.fp8_head", "Vocabulary head in fp8", S_fp8_head },
	{ "training.kernels", "Memory-bound kernels", S_kernels },
	{ "training.cross_entropy", "Cross-entropy", S_cross_entropy },
	{ "training.lora.kernels", "LoRA adapters' kernels", S_lora_kernels },
	{ "training.moe_routing", "Experts' routing", S_moe_routing },
	{ "training.grad_dtype", "Gradient dtype", S_grad_dtype },
	{ "training.flash_attention", "Flash attention", S_flash },
	{ "training.attention_flops", "Attention FLOPs counted", S_attn_flops },
	{ "training.dropout", "Dropout", S_dropout },
	{ "training.packing", "Examples", S_examples },
	{ "hardware.gpu", "GPU", S_gpu },
	{ "hardware.count", "GPUs", S_count },
	{ "hardware.mfu", "MFU (low / most likely / high)", S_mfu },
	{ "hardware.price_per_gpu_hour", "Price per GPU-hour", S_price },
	{ "hardware.pue", "PUE", S_pue },
	{ "hardware.power_limit", "Power limit", S_power },
	{ "hardware.cudnn", "cuDNN release", S_cudnn },
	{ "hardware.node.gpus", "GPUs per node", S_node },
	{ "hardware.failures_per_node_day", "Failures per node-day", S_failures },
	{ "hardware.restart_time", "Restart time", S_restart },
	{ "hardware.checkpoint_bandwidth", "Checkpoint bandwidth per node", S_ckpt_bw },
	{ "parallelism.tensor", "Tensor parallel", S_tensor },
	{ "parallelism.pipeline", "Pipeline parallel", S_pipeline },
	{ "parallelism.virtual_pipeline", "Virtual pipeline stages", S_vpipe },
	{ "parallelism.context", "Context parallel", S_context },
	{ "parallelism.expert", "Expert parallel", S_expert },
	{ "parallelism.data", "Data parallel", S_data },
	{ "parallelism.sequence_parallel", "Sequence parallel", S_sp },
	{ "parallelism.zero", "ZeRO stage", S_zero },
	{ "parallelism.framework", "Framework", S_framework },
	{ "parallelism.pipeline_layout", "Pipeline layout", S_layout },
	{ "parallelism.expert_tensor", "Expert tensor parallel", S_expert_tensor },
	{ "parallelism.shard_group", "ZeRO shard group", S_shard },
	{ "parallelism.bucket_size", "Data-parallel bucket", S_bucket },
	{ "parallelism.no_sync", "Gradients reduced once a step (no_sync)", S_no_sync },
	{ "parallelism.overlap_dp", "Data-parallel communication overlapped", S_overlap_dp },
	{ "parallelism.cuda_graph", "CUDA graphs", S_cuda_graph },
	{ "parallelism.overlap_tp", "Tensor-parallel communication overlapped", S_overlap_tp },
	{ "parallelism.overlap_tp_qkv", "QKV projection's collectives overlapped", S_overlap_tp_qkv },
	{ "parallelism.overlap_tp_dgrad", "Input gradients' reduce-scatters behind the data-gradient GEMMs", S_overlap_tp_dgrad },
	{ "parallelism.overlap_tp_sms", "SMs the overlapped GEMMs give up", S_overlap_tp_sms },
	{ "parallelism.overlap_ep", "Expert all-to-all overlapped", S_overlap_ep },
	{ "parallelism.dispatcher", "Expert dispatcher", S_dispatcher },
	{ "parallelism.cp_comm_type", "Context-parallel exchange", S_cp_comm },
	{ "plan.deadline", "Deadline", S_deadline },
	{ "plan.budget", "Budget", S_budget },
};

static void S_differing_inputs(tb_compare *c)
{
	for (size_t k = 0; k < sizeof S_inputs / sizeof *S_inputs && c->ninputs < TB_COMPARE_INPUTS; k++) {
		tb_compare_input_row *row = &c->inputs[c->ninputs];
		bool differ = false;
		for (size_t i = 0; i < c->n; i++) {
			tb_buf o;
			tb_buf_init(&o);
			S_inputs[k].show(c->p[i].sc, &o);
			row->values[i] = tb_buf_detach(&o, NULL);
			if (i > 0 && strcmp(row->values[i], row->values[0]) != 0)
				differ = true;
		}
		if (differ) {
			row->key = S_inputs[k].key;
			row->label = S_inputs[k].label;
			c->ninputs++;
		} else {
			for (size_t i = 0; i < c->n; i++) {
				free(row->values[i]);
				row->values[i] = NULL;
			}
		}
	}
}

/* ---- the headline figures ----------------------------------------------- */

static tb_compare_figure *S_figure(tb_compare *c, const char *key, const char *label,
                                   tb_compare_fmt fmt, tb_better better)
{
	tb_compare_figure *f = &c->figures[c->nfigures++];
	f->key = key;
	f->label = label;
	f->fmt = fmt;
	f->better = better;
	return f;
}

static void S_set(tb_compare_figure *f, size_t i, double v, bool known)
{
	f->known[i] = known && isfinite(v);
	f->v[i] = f->known[i] ? v : 0;
}

static void S_judge(tb_compare *c, tb_compare_figure *f)
{
	size_t nk = 0;
	double best = 0;
	for (size_t i = 0; i < c->n; i++) {
		if (!f->known[i])
			continue;
		if (nk++ == 0 || (f->better == TB_BETTER_LOWER ? f->v[i] < best : f->v[i] > best))
			best = f->v[i];
	}
	for (size_t i = 0; i < c->n; i++) {
		f->best[i] = f->better != TB_BETTER_NONE && nk >= 2 && f->known[i] && f->v[i] == best;
		f->delta_known[i] = i > 0 && f->known[i] && f->known[0] && f->v[0] != 0;
		f->delta[i] = f->delta_known[i] ? (f->v[i] - f->v[0]) / f->v[0] : 0;
	}
	/* every proposal the same: nothing is best */
	size_t nbest = 0;
	for (size_t i = 0; i < c->n; i++)
		nbest += f->best[i];
	if (nbest == nk)
		for (size_t i = 0; i < c->n; i++)
			f->best[i] = false;
}

static void S_figures(tb_compare *c)
{
	tb_compare_figure *f[TB_COMPARE_FIGURES];
	size_t n = 0;
	f[n++] = S_figure(c, "parameters", "Parameters", TB_CFMT_COUNT, TB_BETTER_NONE);
	f[n++] = S_figure(c, "tokens", "Training tokens", TB_CFMT_COUNT, TB_BETTER_NONE);
	f[n++] = S_figure(c, "flops", "Training compute (model FLOPs)", TB_CFMT_SCI, TB_BETTER_NONE);
	f[n++] = S_figure(c, "memory_per_gpu_bytes", "Memory per GPU", TB_CFMT_BYTES, TB_BETTER_LOWER);
	f[n++] = S_figure(c, "headroom_bytes", "Memory to spare per GPU", TB_CFMT_BYTES, TB_BETTER_HIGHER);
	f[n++] = S_figure(c, "mfu_predicted", "Predicted MFU", TB_CFMT_PCT, TB_BETTER_HIGHER);
	f[n++] = S_figure(c, "seconds", "Wall clock, expected (failures and checkpoints)", TB_CFMT_DAYS,
	                  TB_BETTER_LOWER);
	f[n++] = S_figure(c, "seconds_compute", "Wall clock, compute alone", TB_CFMT_DAYS, TB_BETTER_LOWER);
	f[n++] = S_figure(c, "gpu_hours", "GPU-hours, expected", TB_CFMT_GROUPED, TB_BETTER_LOWER);
	f[n++] = S_figure(c, "cost", "Cost, expected", TB_CFMT_MONEY, TB_BETTER_LOWER);
	f[n++] = S_figure(c, "energy_kwh", "Energy, expected (kWh)", TB_CFMT_GROUPED, TB_BETTER_LOWER);
	f[n++] = S_figure(c, "goodput", "Goodput", TB_CFMT_PCT, TB_BETTER_HIGHER);
	f[n++] = S_figure(c, "seconds_p90", "Wall clock, P90", TB_CFMT_DAYS, TB_BETTER_LOWER);
	f[n++] = S_figure(c, "cost_p90", "Cost, P90", TB_CFMT_MONEY, TB_BETTER_LOWER);
	f[n++] = S_figure(c, "p_meets_deadline", "Chance of meeting the deadline", TB_CFMT_PROB,
	                  TB_BETTER_HIGHER);
	f[n++] = S_figure(c, "p_within_budget", "Chance of staying within the budget", TB_CFMT_PROB,
	                  TB_BETTER_HIGHER);
	for (size_t i = 0; i < c->n; i++) {
		const tb_budget *b = c->p[i].b;
		const tb_inputs *in = &c->p[i].sc->inputs;
		bool act = b->memory.activations_known;
		bool rk = b->risk.known;
		S_set(f[0], i, b->params.total, true);
		S_set(f[1], i, in->training.tokens, true);
		S_set(f[2], i, b->flops.total_model, true);
		S_set(f[3], i, tb_budget_memory_per_gpu(b), act);
		S_set(f[4], i, b->memory.headroom_bytes, act);   /* its sign kept: 5.7 GB over is not "0 B to spare" */
		S_set(f[5], i, b->perf.r.mfu, b->perf.known);
		tb_expected x = tb_budget_expected(b);
		S_set(f[6], i, x.seconds, x.known);
		double alone_s, alone_cost;
		bool alone = tb_budget_compute_alone(b, &alone_s, &alone_cost);
		S_set(f[7], i, alone_s, alone);
		S_set(f[8], i, x.gpu_hours, x.known);
		S_set(f[9], i, x.cost, x.known);
		S_set(f[10], i, x.energy_kwh, x.known && b->time.energy_known);
		S_set(f[11], i, b->goodput.fraction, b->time.known);
		S_set(f[12], i, b->risk.days_p90 * 86400, rk);
		S_set(f[13], i, b->risk.cost_p90, rk);
		S_set(f[14], i, b->risk.p_meets_deadline, rk && b->risk.has_deadline);
		S_set(f[15], i, b->risk.p_within_budget, rk && b->risk.has_budget);
	}
	for (size_t k = 0; k < n; k++)
		S_judge(c, f[k]);
}

const tb_compare_figure *tb_compare_figure_find(const tb_compare *c, const char *key)
{
	for (size_t k = 0; c && k < c->nfigures; k++)
		if (strcmp(c->figures[k].key, key) == 0)
			return &c->figures[k];
	return NULL;
}

/* ---- loading and the checks ------------------------------------------- */

static const char *S_shown(const char *path)
{
	return strcmp(path, "-") == 0 ? "<stdin>" : path;
}

/* Where a file sets hardware.currency, for the error that names it. */
static void S_currency_at(const tb_compare_input *in, size_t *line, size_t *col)
{
	*line = *col = 0;
	tb_diags quiet;
	tb_diags_init(&quiet);
	tb_yaml_ctx c = { &quiet, 0, in->path, false, true, 0 };
	tb_yaml_src src = { S_shown(in->path), in->text, in->len, 0 };
	tb_yaml_node *root = in->len ? tb_yaml_parse(&c, &src, in->text, in->len, true) : NULL;
	const tb_yaml_node *hw = root ? tb_yaml_child_map(root, "hardware") : NULL;
	const tb_yaml_node *cur = hw ? tb_yaml_get(hw, "currency") : NULL;
	if (cur) {
		*line = cur->line;
		*col = cur->col;
	}
	tb_yaml_node_free(root);
	tb_diags_release(&quiet);
}

static bool S_comparable(tb_compare *c, const tb_compare_input *in, tb_diags *d)
{
	bool ok = true;
	const char *cur0 = c->p[0].sc->inputs.hardware.currency;
	for (size_t i = 1; i < c->n; i++) {
		const char *cur = c->p[i].sc->inputs.hardware.currency;
		if (strcmp(cur, cur0) == 0)
			continue;
		size_t line, col;
		S_currency_at(&in[i], &line, &col);
		tb_diags_add(d, TB_DIAG_ERROR, S_shown(in[i].path), in[i].text, in[i].len, line, col,
		             "this proposal prices in %s and %s in %s; expected every proposal in one "
		             "currency (hardware.currency), since no exchange rate is known",
		             cur, S_shown(in[0].path), cur0);
		ok = false;
	}
	/* The same inputs, not the same file bytes: one YAML beside two
	 * different config.json files is two proposals. */
	for (size_t i = 1; i < c->n; i++)
		for (size_t k = 0; k < i; k++)
			if (strcmp(c->p[i].sc->signoff.digest, c->p[k].sc->signoff.digest) == 0) {
				tb_diags_add(d, TB_DIAG_ERROR, S_shown(in[i].path), NULL, 0, 0, 0,
				             "the same inputs as %s (inputs SHA-256 %.12s: the scenario, "
				             "the config it names, the overrides); expected proposals "
				             "that differ", S_shown(in[k].path), c->p[i].sc->signoff.digest);
				ok = false;
				break;
			}
	return ok;
}

/* Column labels: the stems, a repeated one numbered ("plan", "plan (2)"). */
static void S_labels(tb_compare *c)
{
	for (size_t i = 0; i < c->n; i++) {
		const char *stem = c->p[i].sc->name && *c->p[i].sc->name ? c->p[i].sc->name : "proposal";
		size_t same = 0;
		for (size_t k = 0; k < i; k++)
			if (strcmp(c->p[k].sc->name ? c->p[k].sc->name : "", c->p[i].sc->name ? c->p[i].sc->name : "") == 0)
				same++;
		char stem_cut[40];
		size_t l = strlen(stem);
		if (l >= sizeof stem_cut) {
			/* never cut inside a UTF-8 character */
			l = sizeof stem_cut - 1;
			while (l > 0 && ((unsigned char)stem[l] & 0xC0) == 0x80)
				l--;
		}
		memcpy(stem_cut, stem, l);
		stem_cut[l] = '\0';
		if (same)
			snprintf(c->p[i].label, sizeof c->p[i].label, "%s (%zu)", stem_cut, same + 1);
		else
			snprintf(c->p[i].label, sizeof c->p[i].label, "%s", stem_cut);
	}
}

/* Each proposal's inputs digest covers its file, the config.json it
 * names and every config its sweep read: what a proposal's figures rest
 * on, as for a report. */
static void S_hash(tb_compare *c)
{
	const tb_signoff *so = &c->p[0].sc->signoff;
	tb_buf b;
	tb_buf_init(&b);
	for (size_t i = 0; i < c->n; i++)
		tb_buf_printf(&b, "%s\n", c->p[i].sc->signoff.digest);
	for (size_t k = 0; k < so->nsets; k++)
		tb_buf_printf(&b, "--set %s\n", so->sets[k]);
	for (size_t k = 0; k < so->nsweeps; k++)
		tb_buf_printf(&b, "--sweep %s\n", so->sweeps[k]);
	if (c->template_sha256[0])
		tb_buf_printf(&b, "--template %s\n", c->template_sha256);
	tb_sha256_hex(b.ptr, b.len, c->sha256);
	tb_buf_release(&b);
}

void tb_compare_add_template(tb_compare *c, const char *text, size_t len)
{
	tb_sha256_hex(text, len, c->template_sha256);
	S_hash(c);
}


/* Prices proposal i of c (tb_pool_for): its budget, its answer and its
 * stages. */
static void S_price_one(void *ctx, size_t i)
{
	tb_compare *c = ctx;
	c->p[i].b = tb_xcalloc(1, sizeof *c->p[i].b);
	tb_budget_compute_answer(&c->p[i].sc->inputs, &c->p[i].sc->inputs, c->p[i].b);
	tb_budget_compute_stages(&c->p[i].sc->inputs, c->p[i].sc->stages, c->p[i].sc->nstages,
	                         c->p[i].b);
}

tb_compare *tb_compare_new(const tb_compare_input *in, size_t n, const char *const *sets,
                           size_t nsets, const char *const *sweeps, size_t nsweeps,
                           tb_diags *d)
{
	if (n < 2 || n > TB_COMPARE_MAX)
		return NULL;
	size_t errors0 = d->errors;
	tb_compare *c = tb_xcalloc(1, sizeof *c);
	c->n = n;
	/* every file first, so every error of every file is reported */
	for (size_t i = 0; i < n; i++)
		c->p[i].sc = tb_scenario_load(in[i].path, in[i].text, in[i].len, sets, nsets, d);
	if (d->errors > errors0 || !S_comparable(c, in, d)) {
		tb_compare_free(c);
		return NULL;
	}
	/* each proposal as estimate prices it (the answer's layout), each
	 * into its own slot, on the cores */
	tb_pool_for(n, S_price_one, c);
	for (size_t i = 0; i < n; i++) {
		if (nsweeps) {
			c->p[i].sweep = tb_sweep_run(sweeps, nsweeps, in[i].path, in[i].text, in[i].len,
			                             sets, nsets, d);
			if (!c->p[i].sweep)
				break;  /* a bad argument would say the same for every file */
			if (!tb_sweep_add_inputs(c->p[i].sweep, c->p[i].sc, sweeps, nsweeps, S_shown(in[i].path), d))
				break;
		}
	}
	if (d->errors > errors0) {
		tb_compare_free(c);
		return NULL;
	}
	snprintf(c->currency, sizeof c->currency, "%s", c->p[0].b->time.currency[0]
	         ? c->p[0].b->time.currency : c->p[0].sc->inputs.hardware.currency);
	S_labels(c);
	S_hash(c);
	S_differing_inputs(c);
	S_figures(c);
	return c;
}

void tb_compare_free(tb_compare *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		tb_scenario_free(c->p[i].sc);
		free(c->p[i].b);
		tb_sweep_free(c->p[i].sweep);
	}
	for (size_t k = 0; k < c->ninputs; k++)
		for (size_t i = 0; i < c->n; i++)
			free(c->inputs[k].values[i]);
	free(c);
}
