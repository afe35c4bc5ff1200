/* perf.c: the step-time model (perf.h; every term in docs/formulas.md).
 *
 * One prediction times one layer of each kind once (a mixture's expert
 * layer and its leading dense layers), the embedding and the logits once,
 * for one micro-batch on one GPU, and assembles the step from them: the
 * busiest pipeline stage runs m micro-batches, the 1F1B schedule adds
 * (p-1)/v of them as fill and drain, then the pipeline sends, the exposed
 * data-parallel reduction and the optimizer step.  About forty divisions
 * and a handful of log2/ceil: no loops over layers, stages or GPUs, so a
 * search can afford millions.  perf_input.c fills the input from a
 * scenario.
 *
 * Never NaN or inf: inputs are checked first, and every quotient below has
 * a positive denominator once they pass. */
#include "trainbudget/perf.h"
#include "perf_int.h"

#include <math.h>
#include <string.h>


/* Fitted by `make validate` on the fit half of the published runs
 * (tests/validate_perf.c, docs/validation.md). */
const tb_perf_consts tb_perf_fitted = {
	.matmul_dim_half = 321.8,
	.coll_chunk_half_bytes = 256e3,
	.mem_fraction = 0.90,
	.layer_overhead_s = 1e-6,
	.zero3_overlap_cost = 1.0,
	.fsdp_overlap_cost = 0.163,
	.power_exponent = 1.074,
	.moe_dropless_load = 1.301,
	.nvlink_latency_s = 10e-6,
	.network_latency_s = 15e-6,
};

static const char *const S_term_names[TB_PERF_TERMS] = {
	"compute", "recompute", "tp_comm", "cp_comm", "ep_comm",
	"pp_comm", "bubble", "dp_comm", "optimizer", "other",
};

static const char *const S_term_labels[TB_PERF_TERMS] = {
	"compute", "recomputation", "tensor-parallel comm", "context-parallel comm",
	"expert all-to-all", "pipeline sends", "bubble", "data-parallel comm",
	"optimizer", "fixed overheads",
};

const char *tb_perf_term_name(int term)
{
	return term >= 0 && term < TB_PERF_TERMS ? S_term_names[term] : "?";
}

const char *tb_perf_term_label(int term)
{
	return term >= 0 && term < TB_PERF_TERMS ? S_term_labels[term] : "?";
}

/* ---- one prediction -------------------------------------------------- */

typedef tb_perf_ctx S_ctx;

/* tb_perf_layer (perf.h) is one micro-batch through one layer, and through
 * the embedding and the logits. */
typedef tb_perf_layer S_layer;

static double S_coll(const S_ctx *x, tb_coll kind, double bytes, int64_t n,
                     int64_t per_node)
{
	return tb_perf_ctx_coll(x, kind, bytes, n, per_node);
}

static int64_t S_per_node(const S_ctx *x, int64_t stride, int64_t n)
{
	return tb_perf_ctx_per_node(x, stride, n);
}

/* The attention's weights: those split over the tensor-parallel ranks and
 * those every rank holds whole (MLA's down-projections to its latents,
 * replicated as Megatron-LM's MLA does; every other matrix is split by
 * heads). */
void tb_perf_attn_weights(const S_ctx *x, double *split, double *whole)
{
	double h = x->h, H = x->H;
	if (!x->mla) {
		*split = h * (x->hq + 2 * x->hkv) + x->hq * h;
		*whole = 0;
		return;
	}
	*whole = (x->rq > 0 ? x->rq * h : 0) + (x->rkv + x->dr) * h;
	*split = (x->rq > 0 ? H * x->dqk * x->rq : H * x->dqk * h) +
	         H * (x->dn + x->dv) * x->rkv + H * x->dv * h;
}

/* Dense and expert parameters of one layer on one GPU: an expert layer
 * when `experts`.  The router is whole on every tensor-parallel rank. */
void tb_perf_layer_params(const S_ctx *x, bool experts, double *dense, double *expert)
{
	double h = x->h, split, whole;
	tb_perf_attn_weights(x, &split, &whole);
	if (experts) {
		*dense = (split + (x->nmat + 1) * x->fs * h) / x->t + whole + x->E * h + 2 * h;
		*expert = x->E / x->e * (x->nmat + 1) * x->fe * h / x->et;
	} else {
		*dense = (split + (x->nmat + 1) * x->f * h) / x->t + whole + 2 * h;
		*expert = 0;
	}
}

double tb_perf_tp_gather_elem_bytes(const tb_perf_input *in)
{
	return in->sequence_parallel && in->matmul_bytes < in->act_bytes ? in->matmul_bytes
	                                                                  : in->act_bytes;
}

/* A mixture's leading dense layers; 0 for a dense model. */
int64_t tb_perf_dense_count(const tb_perf_input *in)
{
	if (in->experts <= 1)
		return 0;
	return tb_perf_clamp(in->dense_layers, 0, in->layers);
}

/* in's pipeline layout where it is for in's pipeline; NULL: the even
 * split.  The virtual size is not compared: a floor asks at another. */
static inline const tb_pipe_layout *S_layout(const tb_perf_input *in, int64_t pi)
{
	const tb_pipe_layout *l = in->layout;
	return l && pi > 1 && l->pipeline == pi ? l : NULL;
}

/* The layers full recomputation of recompute_layers a chunk redoes, over
 * every rank. */
static int64_t S_recomputed(const S_ctx *x, int64_t v)
{
	const tb_perf_input *in = x->in;
	const tb_pipe_layout *pl = S_layout(in, x->pi);
	if (!pl)
		return tb_perf_recomputed_layers(in->layers, x->pi, v, in->recompute_layers);
	int64_t r = tb_perf_stage_recomputed(pl->first.layers, v, in->recompute_layers) +
	            tb_perf_stage_recomputed(pl->last.layers, v, in->recompute_layers);
	for (int i = 0; i < pl->n_middle; i++)
		r += pl->middle[i].count *
		     tb_perf_stage_recomputed(pl->middle[i].layers, v, in->recompute_layers);
	return r;
}

/* Model FLOPs per token as flops.c counts them (PaLM App. B), and the
 * forward FLOPs checkpointing recomputes. */
static void S_model_flops(const S_ctx *x, double *model, double *recompute)
{
	const tb_perf_input *in = x->in;
	double L = (double)in->layers, h = x->h;
	double nd = (double)tb_perf_dense_count(in);
	double split, whole;
	tb_perf_attn_weights(x, &split, &whole);
	double attn_w = split + whole;
	double dense_w = (x->nmat + 1) * h * x->f;
	double mlp_w = x->moe ? (x->kt * x->fe + x->fs) * (x->nmat + 1) * h + h * x->E : dense_w;
	double logits = 2 * x->V * h;
	double mm = 2 * (L * attn_w + (L - nd) * mlp_w + nd * dense_w) + logits;
	double attn = (in->causal_attention_flops ? 0.5 : 1) * 2 * L * x->H * (x->dqk + x->dv) * x->s *
	              tb_perf_key_share(in, x->s, in->causal_attention_flops);
	/* as flops.c counts each method (the adapters' share, under a
	 * percent, is the caller's model_flops_per_token's) */
	switch (in->method) {
	case TB_METHOD_LORA: case TB_METHOD_QLORA: *model = 2 * mm + 3 * attn; break;
	case TB_METHOD_FROZEN: *model = mm + attn; *recompute = 0; return;
	case TB_METHOD_DPO: *model = 4 * (mm + attn); break;
	case TB_METHOD_FULL: case TB_METHOD_COUNT: default: *model = 3 * (mm + attn); break;
	}
	switch (in->checkpointing) {
	case TB_CKPT_FULL:
		*recompute = mm - logits + attn;
		if (in->recompute_layers > 0) {
			int64_t v = x->pi > 1 ? tb_perf_at_least_1(in->virtual_pipeline) : 1;
			int64_t r = S_recomputed(x, v);
			if (r < in->layers)
				*recompute *= (double)r / L;
		}
		break;
	case TB_CKPT_SELECTIVE:
		*recompute = in->selective_policy == TB_SELECTIVE_OP
			? 2 * L * (h * x->hkv + x->hq * h + x->f * h)
			: in->selective_policy == TB_SELECTIVE_DEEPSEEK
			? (x->mla ? 2 * L * (x->rq * x->H * x->dqk + x->rkv * x->H * (x->dn + x->dv)) : 0)
			: in->selective_policy == TB_SELECTIVE_MOE
			? (x->moe ? 2 * (L - nd) * mlp_w : 0)
			: attn;
		break;
	case TB_CKPT_NONE: default: *recompute = 0; break;
	}
}

static const char *S_check(const tb_perf_input *in)
{
	if (in->layers <= 0 || in->hidden <= 0 || in->heads <= 0 || in->ffn_hidden <= 0)
		return "the model has no shape (layers, hidden size, heads, MLP width)";
	if (in->seq_len <= 0 || in->global_batch <= 0 || in->micro_batch <= 0)
		return "the batch is not set (sequence length, global batch, micro-batch)";
	if (in->pipeline > in->layers)
		return "more pipeline stages than layers";
	if (in->experts > 1 && in->expert > in->experts)
		return "more expert-parallel ranks than experts";
	if (in->shard_group > 0 &&
	    (tb_perf_at_least_1(in->context) * tb_perf_at_least_1(in->data)) % in->shard_group != 0)
		return "the shard group does not divide the data-parallel group";
	if (in->experts > 1) {
		int64_t t = tb_perf_at_least_1(in->tensor);
		int64_t et = tb_perf_expert_tensor(in->expert_tensor, t);
		int64_t ranks = t * tb_perf_at_least_1(in->context) * tb_perf_at_least_1(in->data);
		if (et < 1 || t % et != 0)
			return "the expert layers' tensor-parallel size does not divide the tensor-parallel size";
		if (ranks % (et * tb_perf_at_least_1(in->expert)) != 0)
			return "expert x expert tensor parallelism does not divide tensor x context x data";
	}
	if (!tb_perf_cp_ok(in->cp_comm, in->heads, in->kv_heads, tb_perf_at_least_1(in->tensor),
	                   tb_perf_at_least_1(in->context)))
		return "the context-parallel all-to-all needs whole query heads and key-value groups on each rank";
	if (in->ub_no_sms && in->overlap_tp && in->sequence_parallel)
		return "an overlapped GEMM would give all of the card's SMs to its collective "
		       "(parallelism.overlap_tp_sms)";
	const tb_perf_hw *hw = &in->hw;
	if (!tb_perf_pos(hw->peak_flops) || !tb_perf_pos(hw->attention_peak_flops) ||
	    !tb_perf_pos(hw->matmul_ceiling) || !tb_perf_pos(hw->attention_fraction) ||
	    !tb_perf_pos(hw->hbm_bytes_per_s))
		return "the GPU lists no usable peak or memory bandwidth";
	if (hw->gpus_per_node < 1 || !tb_perf_pos(hw->nvlink_bytes_per_s) ||
	    !tb_perf_pos(hw->network_bytes_per_s) || !tb_perf_pos(hw->nvlink_fraction) ||
	    !tb_perf_pos(hw->network_fraction))
		return "the node's links are not known";
	if (!tb_perf_pos(in->matmul_bytes) || !tb_perf_pos(in->act_bytes) ||
	    !tb_perf_pos(in->param_bytes) || !tb_perf_pos(in->grad_bytes) ||
	    !tb_perf_pos(in->optimizer_bytes_per_param))
		return "the precision's byte sizes are not set";
	return NULL;
}

void tb_perf_stage_split(int64_t layers, int64_t p, int64_t out[3])
{
	if (p <= 1) {
		out[0] = out[1] = out[2] = layers;
		return;
	}
	int64_t base = layers / p, r = layers % p;
	int64_t middle = p - 2;
	int64_t on_middle = r < middle ? r : middle;
	out[0] = base + (r - on_middle > 0 ? 1 : 0);
	out[1] = middle > 0 ? base + (on_middle > 0 ? 1 : 0) : 0;
	out[2] = base;
}

int64_t tb_perf_stage_recomputed(int64_t n, int64_t v, int64_t per_chunk)
{
	if (per_chunk <= 0 || n <= 0)
		return n > 0 ? n : 0;
	if (v < 1)
		v = 1;
	return per_chunk >= (n + v - 1) / v ? n : per_chunk * v;
}

int64_t tb_perf_recomputed_layers(int64_t layers, int64_t p, int64_t v, int64_t per_chunk)
{
	if (layers <= 0)
		return 0;
	if (p <= 1)
		return tb_perf_stage_recomputed(layers, 1, per_chunk);
	/* tb_perf_stage_split's classes: the first rank, the middle ones
	 * with the remainder's extra layer and without, the last */
	int64_t base = layers / p, r = layers % p, middle = p - 2;
	int64_t on_middle = r < middle ? r : middle;
	int64_t first = base + (r - on_middle > 0 ? 1 : 0);
	return tb_perf_stage_recomputed(first, v, per_chunk) +
	       on_middle * tb_perf_stage_recomputed(base + 1, v, per_chunk) +
	       (middle - on_middle) * tb_perf_stage_recomputed(base, v, per_chunk) +
	       tb_perf_stage_recomputed(base, v, per_chunk);
}

int64_t tb_perf_expert_tensor(int64_t expert_tensor, int64_t tensor)
{
	return expert_tensor > 0 ? expert_tensor : tensor;
}

bool tb_perf_virtual_ok(int64_t layers, int64_t pipeline, int64_t virtual_pipeline)
{
	if (virtual_pipeline <= 1 || pipeline <= 1)
		return true;
	if (layers <= 0 || virtual_pipeline > INT64_MAX / pipeline)
		return false;
	int64_t chunks = pipeline * virtual_pipeline;
	if (chunks > layers)
		return false;
	/* tb_perf_stage_split then gives the first and the last rank the one
	 * layer fewer */
	for (int64_t k = 0; k <= 2; k++)
		if ((layers + k) % chunks == 0)
			return true;
	return false;
}

bool tb_perf_split_ok(const tb_pipe_layout *pl, int64_t layers, int64_t pipeline,
                      int64_t virtual_pipeline)
{
	if (pl && pl->pipeline > 1 && pl->pipeline == pipeline)
		return virtual_pipeline == pl->virtual_pipeline;
	return tb_perf_virtual_ok(layers, pipeline, virtual_pipeline);
}

bool tb_perf_framework_zero_ok(tb_framework fw, int zero, int64_t pipeline, const char **why)
{
	const char *w = NULL;
	if (fw == TB_FW_MEGATRON && zero == 2)
		w = "Megatron-LM's distributed optimizer is ZeRO-1 (its gradient buffer stays whole): "
		    "it has ZeRO 0, 1 and 3 (Megatron-FSDP), no ZeRO-2";
	else if (fw == TB_FW_FSDP && zero == 1)
		w = "FSDP shards NO_SHARD, SHARD_GRAD_OP or FULL_SHARD (ZeRO 0, 2, 3): it has no ZeRO-1";
	else if (fw == TB_FW_DEEPSPEED && zero >= 2 && pipeline > 1)
		w = "DeepSpeed's pipeline engine runs ZeRO stage 0 or 1 only";
	if (why)
		*why = w ? w : "";
	return w == NULL;
}

/* Fills x from a checked input; returns why it cannot, or NULL. */
const char *tb_perf_ctx_init(S_ctx *x, const tb_perf_input *in, const tb_perf_consts *k)
{
	memset(x, 0, sizeof *x);
	x->in = in;
	x->k = k;
	x->hw = &in->hw;
	x->ti = tb_perf_at_least_1(in->tensor);
	x->pi = tb_perf_at_least_1(in->pipeline);
	x->ci = tb_perf_at_least_1(in->context);
	x->ei = tb_perf_at_least_1(in->expert);
	x->di = tb_perf_at_least_1(in->data);
	x->gpn = tb_perf_at_least_1(in->hw.gpus_per_node);
	x->t = (double)x->ti; x->p = (double)x->pi; x->c = (double)x->ci;
	x->e = (double)x->ei; x->d = (double)x->di;
	x->v = x->pi > 1 ? (double)tb_perf_at_least_1(in->virtual_pipeline) : 1;
	x->b = (double)in->micro_batch;
	x->s = (double)in->seq_len;
	x->tok = x->b * x->s / x->c;
	x->eti = tb_perf_expert_tensor(in->expert_tensor, x->ti);
	x->et = (double)x->eti;
	/* under sequence parallelism each rank holds tok/t tokens; an expert
	 * tensor group of et gathers et of those shares */
	x->tok_e = in->sequence_parallel ? x->tok * x->et / x->t : x->tok;
	x->h = (double)in->hidden;
	x->hd = in->head_dim > 0 ? (double)in->head_dim : x->h / (double)in->heads;
	x->hq = (double)in->heads * x->hd;
	x->hkv = (double)(in->kv_heads > 0 ? in->kv_heads : in->heads) * x->hd;
	x->f = (double)in->ffn_hidden;
	x->H = (double)in->heads;
	x->dqk = x->dv = x->hd;
	x->hk = x->hv = x->hkv;
	x->mla = in->kv_lora_rank > 0;
	if (x->mla) {
		/* every head has its own key and value, expanded from the latent */
		x->rq = (double)(in->q_lora_rank > 0 ? in->q_lora_rank : 0);
		x->rkv = (double)in->kv_lora_rank;
		x->dn = (double)(in->qk_nope_dim > 0 ? in->qk_nope_dim : 0);
		x->dr = (double)(in->qk_rope_dim > 0 ? in->qk_rope_dim : 0);
		x->dqk = x->dn + x->dr;
		x->dv = in->v_head_dim > 0 ? (double)in->v_head_dim : x->hd;
		x->hq = x->H * x->dqk;
		x->hk = x->H * x->dqk;
		x->hv = x->H * x->dv;
	}
	x->V = in->vocab > 0 ? (double)in->vocab : 0;
	x->moe = in->experts > 1;
	x->E = x->moe ? (double)in->experts : 1;
	x->kt = x->moe ? (double)tb_perf_at_least_1(in->experts_per_token) : 1;
	x->fe = x->moe && in->expert_ffn_hidden > 0 ? (double)in->expert_ffn_hidden : x->f;
	x->fs = x->moe && in->shared_ffn_hidden > 0 ? (double)in->shared_ffn_hidden : 0;
	if (!x->moe)
		x->e = 1, x->ei = 1;
	x->load = tb_perf_expert_load(in, k);
	x->nmat = in->gated_mlp ? 2 : 1;
	x->mem_bw = in->hw.hbm_bytes_per_s * tb_perf_mem_fraction(&in->hw, k);
	if (x->mla && (!tb_perf_pos(x->dqk) || !tb_perf_pos(x->dv)))
		return "the latent attention's head widths are not set";
	if (!tb_perf_pos(x->mem_bw) || !tb_perf_pos(k->matmul_dim_half + 1))
		return "the model's constants are not usable";
	return NULL;
}

const char *tb_perf_ctx_checked(S_ctx *x, const tb_perf_input *in, const tb_perf_consts *k)
{
	const char *bad = S_check(in);
	return bad ? bad : tb_perf_ctx_init(x, in, k ? k : &tb_perf_fitted);
}

double tb_perf_causal_mfu_scale(const tb_perf_input *in)
{
	S_ctx x;
	if (tb_perf_ctx_checked(&x, in, NULL))
		return 1;
	double used, causal, re;
	S_model_flops(&x, &used, &re);
	if (tb_perf_pos(in->model_flops_per_token))
		used = in->model_flops_per_token;
	tb_perf_input c = *in;
	c.causal_attention_flops = true;
	x.in = &c;
	S_model_flops(&x, &causal, &re);
	return tb_perf_pos(used) && tb_perf_pos(causal) ? causal / used : 1;
}

static void S_assemble(const S_ctx *x, const S_layer *L, tb_perf_result *out);

/* The busiest stage: its layers (of which dense) and MTP modules, the
 * time of one micro-batch through it, and the micro-batches of a step
 * (shared by the step and its floor).  Class 0 is the first rank (the
 * embedding), 2 the last (the head), 1 the busiest middle one. */
typedef struct S_stage {
	int64_t n[3], nd[3], mtp[3];
	double re[3];           /* the share of each stage's layers recomputed */
	double stage_s[3];
	int busy;
	int64_t m;
} S_stage;

/* Dense layers among the n that start at layer `first` (the dense ones
 * lead). */
static int64_t S_dense_in(int64_t dense, int64_t first, int64_t n)
{
	return tb_perf_clamp(dense - first, 0, n);
}

/* The micro-batches of a step on one replica (the step and its floor). */
static int64_t S_step_microbatches(const tb_perf_input *in)
{
	int64_t mb_ranks = in->micro_batch * tb_perf_at_least_1(in->data);
	int64_t m = (in->global_batch + mb_ranks - 1) / mb_ranks;
	return m < 1 ? 1 : m;
}

/* The layers of the first, a middle and the last stage (n), the dense ones
 * of the first and last (nd[0], nd[2]), and of the middle stages the most
 * and the fewest dense ones a stage holds (mid[0], mid[1]: the first
 * middle stage holds the most, the last the fewest); the MTP modules ride
 * with the head.  Under a layout the middle class is the caller's to
 * choose among its kinds. */
__attribute__((always_inline))
static inline void S_stage_layers(const S_ctx *x, int64_t n[3], int64_t nd[3], int64_t mtp[3],
                                  int64_t mid[2])
{
	const tb_perf_input *in = x->in;
	const tb_pipe_layout *pl = S_layout(in, x->pi);
	if (pl) {
		const tb_pipe_rank *k[3] = { &pl->first, pl->n_middle ? &pl->middle[0] : NULL, &pl->last };
		for (int i = 0; i < 3; i++) {
			n[i] = k[i] ? k[i]->layers : 0;
			nd[i] = k[i] ? k[i]->dense : 0;
			mtp[i] = k[i] ? k[i]->mtp : 0;
		}
		mid[0] = mid[1] = nd[1];
		return;
	}
	int64_t dense = tb_perf_dense_count(in);
	tb_perf_stage_split(in->layers, x->pi, n);
	mtp[0] = mtp[1] = mtp[2] = 0;
	if (x->pi == 1) {
		/* one stage, priced as class 0; class 2 carries the same head */
		nd[0] = nd[1] = nd[2] = mid[0] = mid[1] = dense;
		mtp[0] = mtp[2] = in->mtp_modules;
		return;
	}
	mtp[2] = in->mtp_modules;
	nd[0] = S_dense_in(dense, 0, n[0]);
	nd[2] = S_dense_in(dense, in->layers - n[2], n[2]);
	mid[0] = S_dense_in(dense, n[0], n[1]);
	mid[1] = x->pi > 3 ? S_dense_in(dense, in->layers - n[2] - n[1], n[1]) : mid[0];
	nd[1] = mid[0];
}

/* A layer's time for a micro-batch, of each kind, with and without its
 * recomputation (S_stage_of). */
typedef struct S_times {
	double lt, ld;          /* an expert (or any) layer, a dense one */
	double lk, ldk;         /* the same, not recomputed */
	bool part;              /* part of the layers recomputed */
	int64_t v;
} S_times;

/* A stage's layers for a micro-batch, part of them recomputed; *lt_mtp is
 * the layer an MTP module on it runs as (recomputed when every layer of
 * the stage is).  *re: the share of its layers recomputed. */
static inline double S_layers_s(const S_ctx *x, const S_times *tm, int64_t n, int64_t nd,
                                double *re, double *lt_mtp)
{
	*re = 1;
	*lt_mtp = tm->lt;
	double s = (double)nd * tm->ld + (double)(n - nd) * tm->lt;
	if (tm->part) {
		int64_t r = tb_perf_stage_recomputed(n, tm->v, x->in->recompute_layers);
		if (n > 0 && r < n) {
			*re = (double)r / (double)n;
			s = (double)nd * (tm->ldk + *re * (tm->ld - tm->ldk)) +
			    (double)(n - nd) * (tm->lk + *re * (tm->lt - tm->lk));
			*lt_mtp = tm->lk;
		}
	}
	return s;
}

/* mtp MTP modules, each one more layer (lt), the projection of
 * [h; embedding] (tok, h, 2h) forward and back, and the shared head once
 * more (DeepSeek-V3 Sec. 2.2). */
static inline double S_mtp_s(const S_layer *L, int64_t mtp, double lt)
{
	return (double)mtp * (lt + L->logits_s + L->logits_tp + L->mtp_proj_s);
}

/* The layer times S_stage_of and S_stage_of_layout read. */
static inline void S_times_of(const S_ctx *x, const S_layer *L, S_times *tm)
{
	const tb_perf_input *in = x->in;
	double over = x->k->layer_overhead_s;
	tm->lt = L->fwd + L->bwd + L->recompute + L->tp + L->cp + L->ep + over;
	tm->ld = L->dense_fwd + L->dense_bwd + L->dense_recompute + L->dense_tp +
	         L->dense_cp + over;
	/* part of the layers recomputed: a chunk's first recompute_layers,
	 * the dense and expert ones in proportion; the layers past them run
	 * their forward's communication once */
	tm->part = in->checkpointing == TB_CKPT_FULL && in->recompute_layers > 0 &&
	           tb_perf_pos(L->recompute);
	tm->lk = tm->ldk = 0;
	tm->v = x->pi > 1 ? tb_perf_at_least_1(in->virtual_pipeline) : 1;
	if (tm->part) {
		tm->lk = L->fwd + L->bwd + L->tp_keep + L->cp_keep + L->ep_keep + over;
		tm->ldk = L->dense_fwd + L->dense_bwd + L->dense_tp_keep + L->dense_cp_keep + over;
	}
}

/* The three stages' times under a layout, its busiest middle kind the
 * middle stage: the general form of S_stage_of's sums, in their order. */
__attribute__((noinline))
static void S_stage_of_layout(const S_ctx *x, const S_layer *L, const tb_pipe_layout *pl,
                              S_stage *g)
{
	S_times tm;
	S_times_of(x, L, &tm);
	double lt_mtp[3];
	for (int i = 0; i < 3; i++)
		g->stage_s[i] = S_layers_s(x, &tm, g->n[i], g->nd[i], &g->re[i], &lt_mtp[i]);
	double head = L->logits_s + L->logits_tp + S_mtp_s(L, g->mtp[2], lt_mtp[2]);
	g->stage_s[0] += L->embed_s + L->embed_tp + S_mtp_s(L, g->mtp[0], lt_mtp[0]);
	g->stage_s[1] += S_mtp_s(L, g->mtp[1], lt_mtp[1]);
	g->stage_s[2] += head;
	for (int j = 1; j < pl->n_middle; j++) {
		const tb_pipe_rank *k = &pl->middle[j];
		double re, ltm;
		double s = S_layers_s(x, &tm, k->layers, k->dense, &re, &ltm) +
		           S_mtp_s(L, k->mtp, ltm);
		if (s > g->stage_s[1]) {
			g->stage_s[1] = s, g->re[1] = re;
			g->n[1] = k->layers, g->nd[1] = k->dense, g->mtp[1] = k->mtp;
		}
	}
}

static void S_stage_of(const S_ctx *x, const S_layer *L, S_stage *g)
{
	const tb_perf_input *in = x->in;
	int64_t *n = g->n, *nd = g->nd, mid[2];
	S_stage_layers(x, n, nd, g->mtp, mid);
	const tb_pipe_layout *pl = S_layout(in, x->pi);
	if (pl) {
		S_stage_of_layout(x, L, pl, g);
	} else {
		/* the even split, the search's inner loop: S_stage_of_layout's
		 * sums with the MTP modules on the last stage (on the only one
		 * when p = 1), written out (tests/test_perf.c checks the two
		 * agree to the bit) */
		double over = x->k->layer_overhead_s;
		double lt = L->fwd + L->bwd + L->recompute + L->tp + L->cp + L->ep + over;
		double ld = L->dense_fwd + L->dense_bwd + L->dense_recompute + L->dense_tp +
		            L->dense_cp + over;
		/* the busier middle stage is the one with more of the slower kind */
		if (x->pi > 1)
			nd[1] = ld > lt ? mid[0] : mid[1];
		for (int i = 0; i < 3; i++) {
			g->re[i] = 1;
			g->stage_s[i] = (double)nd[i] * ld + (double)(n[i] - nd[i]) * lt;
		}
		double lt_last = lt;
		if (in->checkpointing == TB_CKPT_FULL && in->recompute_layers > 0 &&
		    tb_perf_pos(L->recompute)) {
			S_times tm;
			S_times_of(x, L, &tm);
			double ltm;
			for (int i = 0; i < 3; i++)
				g->stage_s[i] = S_layers_s(x, &tm, n[i], nd[i], &g->re[i],
				                           i == 2 ? &lt_last : &ltm);
		}
		double head = L->logits_s + L->logits_tp + S_mtp_s(L, in->mtp_modules, lt_last);
		g->stage_s[0] += L->embed_s + L->embed_tp + (x->pi == 1 ? head : 0);
		g->stage_s[2] += head;
	}
	g->busy = 0;
	if (x->pi > 1) {
		if (g->stage_s[1] > g->stage_s[g->busy])
			g->busy = 1;
		if (g->stage_s[2] > g->stage_s[g->busy])
			g->busy = 2;
	}
	g->m = S_step_microbatches(in);
}

double tb_perf_stage_s(const tb_perf_input *in, const tb_perf_consts *k, const tb_perf_layer *L)
{
	if (!k)
		k = &tb_perf_fitted;
	if (in->layers <= 0 || in->micro_batch <= 0 || in->global_batch <= 0)
		return 0;
	/* the fewest layers recomputed are at one virtual stage, so the
	 * floor holds for every split */
	tb_perf_input one;
	if (in->recompute_layers > 0 && in->virtual_pipeline > 1) {
		one = *in;
		one.virtual_pipeline = 1;
		in = &one;
	}
	/* what S_stage_of reads: a search calls this for every pipeline */
	S_ctx x;
	x.in = in;
	x.k = k;
	x.pi = tb_perf_at_least_1(in->pipeline);
	x.di = tb_perf_at_least_1(in->data);
	S_stage g;
	S_stage_of(&x, L, &g);
	return g.stage_s[g.busy];
}

double tb_perf_step_floor_from_s(const tb_perf_input *in, double stage_s)
{
	if (in->layers <= 0 || in->micro_batch <= 0 || in->global_batch <= 0)
		return 0;
	int64_t m = S_step_microbatches(in);
	int64_t p = tb_perf_at_least_1(in->pipeline);
	double v = (double)m * stage_s;
	/* the bubble, (p - 1) / (v m) of m stage passes, at the most virtual
	 * stages the caller allows */
	if (p > 1)
		v += (double)(p - 1) / (double)tb_perf_at_least_1(in->virtual_pipeline) * stage_s;
	return tb_perf_pos(v) ? v : 0;
}

double tb_perf_step_floor_s(const tb_perf_input *in, const tb_perf_consts *k,
                            const tb_perf_layer *L)
{
	return tb_perf_step_floor_from_s(in, tb_perf_stage_s(in, k, L));
}

void tb_perf_assemble(const tb_perf_input *in, const tb_perf_consts *k,
                      const tb_perf_layer *L, tb_perf_result *out)
{
	if (!k)
		k = &tb_perf_fitted;
	S_ctx x;
	const char *bad = tb_perf_ctx_init(&x, in, k);
	if (bad) {
		memset(out, 0, sizeof *out);
		out->why = bad;
		return;
	}
	S_assemble(&x, L, out);
}

void tb_perf_predict(const tb_perf_input *in, const tb_perf_consts *k,
                     tb_perf_result *out)
{
	if (!k)
		k = &tb_perf_fitted;
	S_ctx x;
	const char *bad = tb_perf_ctx_checked(&x, in, k);
	if (bad) {
		memset(out, 0, sizeof *out);
		out->why = bad;
		return;
	}
	S_layer L;
	tb_perf_layer_all(&x, &L, NULL);
	S_assemble(&x, &L, out);
}

/* The times a micro-batch crosses a chunk boundary: forward, and back
 * with its gradient unless nothing trains. */
static double S_crossings(const tb_perf_input *in)
{
	return in->method == TB_METHOD_FROZEN ? 1 : 2;
}

/* One micro-batch's send across one chunk boundary: 1/t of the
 * activation (scatter-gather, or sequence parallelism), gathered again over
 * the tensor-parallel group when not sequence parallel. */
static double S_send(const S_ctx *x)
{
	double bytes = x->tok * x->h * x->in->act_bytes / x->t;
	int64_t stride = x->ti * x->ci * x->di;
	double one = S_coll(x, TB_COLL_P2P, bytes, 2, stride < x->gpn ? 2 : 1);
	if (x->ti > 1 && !x->in->sequence_parallel)
		one += S_coll(x, TB_COLL_ALL_GATHER, bytes * x->t, x->ti, S_per_node(x, 1, x->ti));
	return one;
}

/* The data-parallel reduction's input for stage class `busy` of g (its
 * layers with its MTP modules, its weights with the embedding on the
 * first and the head on the last, what of them gets gradients); the
 * micro-batches and what hides the collectives are the caller's. */
static void S_dp_in(const S_ctx *x, const S_stage *g, int busy, tb_perf_dp_in *da)
{
	const tb_perf_input *in = x->in;
	double nb = (double)g->n[busy];
	double ndb = (double)g->nd[busy], nm = nb - ndb;  /* dense, expert layers */
	if (g->mtp[busy] > 0) {
		double mt = (double)g->mtp[busy];
		nb += mt;
		nm += mt;
	}
	double dense1, expert1, dense_d, expert_d;
	tb_perf_layer_params(x, x->moe, &dense1, &expert1);
	tb_perf_layer_params(x, false, &dense_d, &expert_d);
	double dense = nm * dense1 + ndb * dense_d, expert = nm * expert1;
	double vocab_p = x->V * x->h / x->t, extras = 0;
	if (busy == 0)
		extras += vocab_p;
	if (busy == 2 || x->pi == 1)
		extras += vocab_p;
	dense += extras;
	/* what gets gradients: the weights, or the adapters (dense ones
	 * split over the tensor ranks like their matrices), or nothing */
	double gdense = dense, gexpert = expert;
	if (tb_method_adapters(in->method)) {
		gdense = nb * in->adapters_dense_per_layer / x->t;
		gexpert = nb * in->adapters_expert_per_layer / (x->et * x->e);
	} else if (in->method == TB_METHOD_FROZEN) {
		gdense = gexpert = 0;
	}
	memset(da, 0, sizeof *da);
	/* the input embedding's gradient is the backward's last and its
	 * weight the forward's first read, on the first stage whichever stage
	 * is busiest: no compute is left to hide that reduction behind, nor
	 * any yet to hide that gather behind (perf_dp.c) */
	da->first = tb_method_trains_base(in->method) ? vocab_p : 0;
	da->first_held = busy == 0 || x->pi == 1;
	da->extras = extras;
	da->dense = dense;
	da->expert = expert;
	da->gdense = gdense;
	da->gexpert = gexpert;
	da->layers = nb;
}

/* The parameters this GPU's optimizer updates. */
static double S_updated(const S_ctx *x, const tb_perf_dp_in *da, const tb_perf_dp_out *dpo)
{
	bool z = x->in->zero >= 1;
	return da->gdense / (z ? (double)dpo->n_shard : 1) + da->gexpert / (z ? (double)dpo->n_edp : 1);
}

bool tb_perf_extras_max(const tb_perf_input *in, const tb_perf_consts *k, tb_perf_extras *out)
{
	memset(out, 0, sizeof *out);
	S_ctx x;
	if (tb_perf_ctx_checked(&x, in, k))
		return false;
	/* every stage class S_stage_of can make the busiest, the middle one
	 * with the most dense layers and with the fewest (which it is depends
	 * on the layer's time, which this does not read), or each of a
	 * layout's middle kinds */
	S_stage g;
	memset(&g, 0, sizeof g);
	int64_t nd1[2];
	S_stage_layers(&x, g.n, g.nd, g.mtp, nd1);
	const tb_pipe_layout *pl = S_layout(in, x.pi);
	int kinds = pl ? pl->n_middle : 2;
	/* the collectives grow with the bytes they move and the optimizer
	 * with what it updates: the largest of each over the classes bounds
	 * every class's */
	tb_perf_dp_in top;
	memset(&top, 0, sizeof top);
	for (int c = 0; c < kinds + 2; c++) {
		int busy = c == 0 ? 0 : c <= kinds ? 1 : 2;
		if (x.pi == 1 ? busy != 0 : busy == 1 && x.pi == 2)
			continue;
		if (busy == 1 && pl) {
			g.n[1] = pl->middle[c - 1].layers;
			g.nd[1] = pl->middle[c - 1].dense;
			g.mtp[1] = pl->middle[c - 1].mtp;
		} else if (busy == 1) {
			g.nd[1] = nd1[c - 1];
		}
		tb_perf_dp_in da;
		S_dp_in(&x, &g, busy, &da);
		top.dense = fmax(top.dense, da.dense);
		top.extras = fmax(top.extras, da.extras);
		top.expert = fmax(top.expert, da.expert);
		top.gdense = fmax(top.gdense, da.gdense);
		top.gexpert = fmax(top.gexpert, da.gexpert);
		top.layers = fmax(top.layers, da.layers);
	}
	/* the collectives once a step (no micro-batch) and each
	 * micro-batch's: dp_total is affine in the micro-batches.  top.first
	 * stays 0: the embedding's tail is part of what top.gdense (which the
	 * first stage's class gives it) already moves, and only dp_total is
	 * read here */
	tb_perf_dp_out d0, d1;
	top.microbatches = 0;
	tb_perf_dp(&x, &top, &d0);
	top.microbatches = 1;
	tb_perf_dp(&x, &top, &d1);
	/* every parameter the stage holds bounds its linear weights' cast */
	out->once_s = d0.dp_total + S_updated(&x, &top, &d1) * in->optimizer_bytes_per_param / x.mem_bw +
	              tb_perf_weight_cast_s(in, x.k, top.dense + top.expert);
	out->per_microbatch_s = d1.dp_total - d0.dp_total;
	/* a send is affine in its bytes (tb_perf_collective_s: the latency,
	 * then the bytes and the chunk's half-rate size at the link's rate),
	 * so in the micro-batch: its time at one and two sequences */
	if (x.pi > 1) {
		S_ctx y = x;
		y.b = 1;
		y.tok = x.s / x.c;
		double s1 = S_send(&y);
		y.b = 2;
		y.tok = 2 * x.s / x.c;
		double s2 = S_send(&y);
		out->send_per_sequence_s = s2 - s1;
		out->send_s = s1 - out->send_per_sequence_s;
	}
	return isfinite(out->once_s) && isfinite(out->per_microbatch_s);
}

double tb_perf_step_ceiling_from_s(const tb_perf_input *in, double stage_s, const tb_perf_extras *e)
{
	if (in->layers <= 0 || in->micro_batch <= 0 || in->global_batch <= 0)
		return INFINITY;
	double m = (double)S_step_microbatches(in);
	int64_t p = tb_perf_at_least_1(in->pipeline);
	double v = p > 1 ? (double)tb_perf_at_least_1(in->virtual_pipeline) : 1;
	double send = p > 1 ? e->send_s + e->send_per_sequence_s * (double)in->micro_batch : 0;
	double s = tb_perf_step_floor_from_s(in, stage_s) + m * v * S_crossings(in) * send + e->once_s +
	           m * e->per_microbatch_s;
	/* a lone pass waits at most for its whole layer (ep_unpaired is 2
	 * ep_one less a pair's share, which hides behind no more than a
	 * forward and a backward) */
	if (in->experts > 1 && in->expert > 1 &&
	    tb_perf_ep_phased(in->framework, in->method, in->overlap_ep))
		s += (double)tb_perf_ep_unpaired_passes(p, (int64_t)v, (int64_t)m) / v * stage_s;
	/* the sums run in another order than the step's: a millionth over */
	return s * (1 + 1e-6);
}

/* The step from one layer's time: the busiest stage's micro-batches, the
 * bubble, the pipeline sends, the data-parallel collectives under the
 * overlap rule and the optimizer. */
static void S_assemble(const S_ctx *x, const S_layer *L, tb_perf_result *out)
{
	const tb_perf_input *in = x->in;
	const tb_perf_consts *k = x->k;
	memset(out, 0, sizeof *out);
	out->why = "";
	double ab = in->act_bytes;
	double embed_s = L->embed_s, embed_tp = L->embed_tp;
	double logits_s = L->logits_s, logits_tp = L->logits_tp;

	S_stage g;
	S_stage_of(x, L, &g);
	const int64_t *n = g.n;
	const double *stage_s = g.stage_s;
	int busy = g.busy;
	double nb = (double)n[busy];
	double ndb = (double)g.nd[busy], nm = nb - ndb;  /* dense, expert layers */
	double extra_compute = 0, extra_tp = 0;
	if (busy == 0) {
		extra_compute += embed_s;
		extra_tp += embed_tp;
	}
	bool head = busy == 2 || x->pi == 1;
	if (head || g.mtp[busy] > 0) {
		/* the head, and each MTP module's layer, projection and head */
		double mt = (double)g.mtp[busy];
		extra_compute += (head ? logits_s : 0) + mt * (logits_s + L->mtp_proj_s);
		extra_tp += logits_tp * ((head ? 1 : 0) + mt);
		nb += mt;
		nm += mt;
	}

	int64_t m = g.m;
	double dm = (double)m;

	double *br = out->breakdown_s;
	br[TB_PERF_COMPUTE] = dm * (nm * (L->fwd + L->bwd) + ndb * (L->dense_fwd + L->dense_bwd) +
	                            extra_compute);
	/* part of the busiest stage's layers recomputed (S_stage_of) */
	double re = g.re[busy];
	out->recomputed_share = re;
	br[TB_PERF_RECOMPUTE] = dm * (re * (nm * L->recompute + ndb * L->dense_recompute));
	if (re < 1) {
		double k1 = 1 - re;
		br[TB_PERF_TP_COMM] = dm * (nm * (re * L->tp + k1 * L->tp_keep) +
		                            ndb * (re * L->dense_tp + k1 * L->dense_tp_keep) + extra_tp);
		br[TB_PERF_CP_COMM] = dm * (nm * (re * L->cp + k1 * L->cp_keep) +
		                            ndb * (re * L->dense_cp + k1 * L->dense_cp_keep));
		br[TB_PERF_EP_COMM] = dm * nm * (re * L->ep + k1 * L->ep_keep);
	} else {
		br[TB_PERF_TP_COMM] = dm * (nm * L->tp + ndb * L->dense_tp + extra_tp);
		br[TB_PERF_CP_COMM] = dm * (nm * L->cp + ndb * L->dense_cp);
		br[TB_PERF_EP_COMM] = dm * nm * L->ep;
	}
	if (L->ep_unpaired > 0) {
		/* the warm-up's lone forwards and the cool-down's lone
		 * backwards, each a chunk's expert layers */
		double lone = (double)tb_perf_ep_unpaired_passes(x->pi, (int64_t)x->v, m);
		br[TB_PERF_EP_COMM] += lone * nm / x->v * L->ep_unpaired;
	}
	br[TB_PERF_OTHER] = dm * nb * k->layer_overhead_s;
	double per_mb = stage_s[busy];
	out->bubble_fraction = tb_perf_bubble_fraction(x->pi, (int64_t)x->v, m);
	br[TB_PERF_BUBBLE] = out->bubble_fraction * dm * per_mb;

	/* pipeline: each micro-batch crosses each of the stage's v chunk
	 * boundaries forward and, unless nothing trains, backward (S_send) */
	if (x->pi > 1) {
		double one = S_send(x);
		out->pp_bytes = x->tok * x->h * ab / x->t;
		out->pp_s = one;
		br[TB_PERF_PP_COMM] = dm * x->v * S_crossings(in) * one;
	}

	/* data parallel, with the overlap rule of perf.h */
	tb_perf_dp_in da;
	S_dp_in(x, &g, busy, &da);
	da.microbatches = dm;
	da.fwd_mb = nm * L->fwd + ndb * L->dense_fwd;
	da.bwd_mb = nm * (L->bwd + re * L->recompute) + ndb * (L->dense_bwd + re * L->dense_recompute);
	da.bubble_s = br[TB_PERF_BUBBLE];
	tb_perf_dp_out dpo;
	tb_perf_dp(x, &da, &dpo);
	double dp = dpo.dp, dp_one = dpo.dp_one, dp_total = dpo.dp_total;
	out->dp_bytes = dpo.bytes;
	out->dp_s = dp_one;
	out->dp_total_s = dp_total;
	out->stage_extra_s = extra_compute;
	out->stage_extra_tp_s = extra_tp;
	br[TB_PERF_DP_COMM] = dp;

	/* optimizer: every parameter this GPU updates, at HBM speed */
	double upd = S_updated(x, &da, &dpo);
	out->optimizer_params = upd;
	/* the head's weight too under training.fp8_head, where the busiest
	 * stage holds it (an MTP module's head is the same weight) */
	double head_w = in->fp8_head && (head || g.mtp[busy] > 0) ? x->V * x->h / x->t : 0;
	out->weight_cast_s = tb_perf_weight_cast_s(in, x->k, nm * L->cast_w + ndb * L->dense_cast_w + head_w);
	br[TB_PERF_OPTIMIZER] = upd * in->optimizer_bytes_per_param / x->mem_bw + out->weight_cast_s;

	double step = 0;
	for (int i = 0; i < TB_PERF_TERMS; i++)
		step += br[i];
	if (!tb_perf_pos(step)) {
		memset(out, 0, sizeof *out);
		out->why = "the step time could not be computed";
		return;
	}

	double per_tok_model, per_tok_re;
	S_model_flops(x, &per_tok_model, &per_tok_re);
	if (tb_perf_pos(in->model_flops_per_token) && tb_perf_pos(per_tok_model)) {
		/* the caller's count; recomputation in the same proportion */
		double scale = in->model_flops_per_token / per_tok_model;
		per_tok_model *= scale;
		per_tok_re *= scale;
	}
	double tokens = (double)in->global_batch * x->s;
	double gpus = x->t * x->p * x->c * x->d;
	double peak = in->hw.peak_flops;

	out->ok = true;
	out->step_s = step;
	out->gpus = x->ti * x->pi * x->ci * x->di;
	out->microbatches = m;
	out->stage_layers[0] = n[0];
	out->stage_layers[1] = n[1];
	out->stage_layers[2] = n[2];
	memcpy(out->stage_s, g.stage_s, sizeof out->stage_s);
	out->busiest_stage = busy;
	out->expert_load = x->load;
	out->tokens_per_s_per_gpu = tokens / step / gpus;
	out->model_flops_per_step = per_tok_model * tokens;
	out->hardware_flops_per_step = (per_tok_model + per_tok_re) * tokens;
	out->mfu = out->model_flops_per_step / (step * gpus * peak);
	out->hfu = out->hardware_flops_per_step / (step * gpus * peak);
	out->tflops_per_gpu = out->hfu * peak / 1e12;
	out->layer_fwd_flops = L->flops_f;
	out->matmul_fraction = L->mm_f > 0 ? L->mm_flops_f / (L->mm_f * in->hw.peak_flops) : 0;
	out->layer_fwd_s = L->fwd;
	out->layer_bwd_s = L->bwd;
	out->layer_recompute_s = L->recompute;
	out->layer_mem_s = L->mem_f + L->mem_b;
	out->tp_bytes = x->ti > 1 ? x->tok * x->h * ab : 0;
	out->tp_gather_bytes = x->ti > 1 ? x->tok * x->h * tb_perf_tp_gather_elem_bytes(in) : 0;
	/* one pair (or all-reduce) of the stage's layers, the mean where its
	 * dense and expert layers gather differently (fp8 linears in fp8) */
	out->tp_s = L->tp_layer == L->dense_tp_layer || ndb <= 0
	            ? L->tp_layer / 2
	            : (nm * L->tp_layer + ndb * L->dense_tp_layer) / (2 * (nm + ndb));
	/* one exchange: a ring hop's keys and values, the all-to-alls of a
	 * pass (queries, keys, values and output), or the gathered keys and
	 * values */
	double cpw = in->cp_comm == TB_CP_A2A ? x->hq + x->hk + x->hv + x->H * x->dv
	             : in->cp_comm == TB_CP_ALLGATHER ? x->c * (x->hk + x->hv) : x->hk + x->hv;
	out->cp_bytes = x->ci <= 1 ? 0 : x->b * (x->s / x->c) / x->t * ab * cpw;
	out->ep_bytes = x->moe && x->ei > 1 ? x->tok_e * x->kt * x->h * ab : 0;
	out->stage_microbatch_s = per_mb;
}
