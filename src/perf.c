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
	.fsdp_overlap_cost = 0.048,
	.power_exponent = 1.456,
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

static bool S_pos(double v)
{
	return v > 0 && isfinite(v);
}

static double S_max0(double v)
{
	return v > 0 ? v : 0;
}

static int64_t S_clamp(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static int64_t S_at_least_1(int64_t v)
{
	return v > 1 ? v : 1;
}

/* ---- one prediction -------------------------------------------------- */

typedef tb_perf_ctx S_ctx;

/* tb_perf_layer (perf.h) is one micro-batch through one layer, and through
 * the embedding and the logits. */
typedef tb_perf_layer S_layer;

static double S_mm(const S_ctx *x, double m, double n, double k)
{
	return tb_perf_matmul_s(m, n, k, x->in->matmul_bytes, x->hw, x->k);
}

static double S_coll(const S_ctx *x, tb_coll kind, double bytes, int64_t n,
                     int64_t per_node)
{
	return tb_perf_ctx_coll(x, kind, bytes, n, per_node);
}

static int64_t S_per_node(const S_ctx *x, int64_t stride, int64_t n)
{
	return tb_perf_ctx_per_node(x, stride, n);
}

/* One way of DeepEP's dispatch or combine for a micro-batch through a
 * layer, tok_bytes being its tokens' hidden states at the wire's width:
 * each token crosses the network once per distinct remote node among its
 * experts, D = A (1 - (1 - 1/A)^k) of the A nodes its routing allows (all N
 * the group spans, or N x topk_group / n_group under group-limited
 * routing), a fraction (N-1)/N of them remote; there NVLink forwards it to
 * each of its experts on the other GPUs (DeepSeek-V3 Sec. 3.2.2). */
static double S_deepep(const S_ctx *x, double tok_bytes, int64_t per_node)
{
	double N = ceil(x->e / (double)per_node);
	if (N <= 1)
		return S_coll(x, TB_COLL_ALL_TO_ALL, tok_bytes * x->kt, x->ei, per_node);
	const tb_perf_input *in = x->in;
	double A = N;
	if (in->route_groups > 1 && in->route_groups_per_token > 0 &&
	    in->route_groups_per_token < in->route_groups)
		A = fmax(1, N * (double)in->route_groups_per_token / (double)in->route_groups);
	/* a search asks for the same few (A, k) again and again */
	static _Thread_local double memo_a, memo_k, memo_p;
	if (A != memo_a || x->kt != memo_k) {
		memo_a = A;
		memo_k = x->kt;
		memo_p = pow(1 - 1 / A, x->kt);
	}
	double D = A * (1 - memo_p);
	double g = (double)per_node;
	return S_coll(x, TB_COLL_P2P, tok_bytes * D * (N - 1) / N, 2, 1) +
	       S_coll(x, TB_COLL_P2P, tok_bytes * x->kt * (g - 1) / g, 2, 2);
}

/* The elements a layer's linear GEMMs read as input (forward) and as
 * output gradient (backward): what fp8 casts each micro-batch. */
typedef struct S_cast {
	double in, out;
} S_cast;

/* One linear layer's GEMM of M x K by K x N, its casts counted in *c. */
static double S_lin(const S_ctx *x, double m, double n, double k, S_cast *c)
{
	c->in += m * k;
	c->out += m * n;
	return S_mm(x, m, n, k);
}

/* The attention's weights: those split over the tensor-parallel ranks and
 * those every rank holds whole (MLA's down-projections to its latents,
 * replicated as Megatron-LM's MLA does; every other matrix is split by
 * heads). */
static void S_attn_weights(const S_ctx *x, double *split, double *whole)
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

/* The attention's projections for tok tokens on one GPU: their time, and
 * their forward FLOPs in *flops (two a weight a token). */
static double S_attn_proj(const S_ctx *x, double tok, double *flops, S_cast *c)
{
	double t = x->t, h = x->h, H = x->H, split, whole;
	S_attn_weights(x, &split, &whole);
	*flops = 2 * tok * (split / t + whole);
	if (!x->mla)
		return S_lin(x, tok, (x->hq + 2 * x->hkv) / t, h, c) + S_lin(x, tok, h, x->hq / t, c);
	double s = x->rq > 0 ? S_lin(x, tok, x->rq, h, c) + S_lin(x, tok, H * x->dqk / t, x->rq, c)
	                     : S_lin(x, tok, H * x->dqk / t, h, c);
	s += S_lin(x, tok, x->rkv + x->dr, h, c) + S_lin(x, tok, H * (x->dn + x->dv) / t, x->rkv, c);
	return s + S_lin(x, tok, h, H * x->dv / t, c);
}

static void S_layer_params(const S_ctx *x, bool experts, double *dense, double *expert);

/* One group of LoRA adapters for T tokens: x A (in -> r), then (x A) B
 * (r -> out), column-parallel modules with their out split over ts,
 * row-parallel ones with their in; skinny GEMMs, mostly memory-bound. */
static double S_adapter_group(const S_ctx *x, const double io[4], double T, double ts)
{
	double r = (double)x->in->lora_rank, s = 0;
	if (io[0] > 0)
		s += S_mm(x, T, r, io[0]) + S_mm(x, T, io[1] / ts, r);
	if (io[2] > 0)
		s += S_mm(x, T, r, io[2] / ts) + S_mm(x, T, io[3], r);
	return s;
}

/* The adapters' forward through one layer; 0 without LoRA. */
static double S_adapters_f(const S_ctx *x, bool experts)
{
	const tb_perf_input *in = x->in;
	if (!tb_method_adapters(in->method) || in->lora_rank < 1)
		return 0;
	if (!experts)
		return S_adapter_group(x, in->lora_io[0], x->tok, x->t);
	double local = x->E / x->e, rows = x->tok_e * x->kt * x->e / x->E;
	return S_adapter_group(x, in->lora_io[1], x->tok, x->t) +
	       local * S_adapter_group(x, in->lora_io[2], rows, x->et);
}

/* QLoRA dequantizes every frozen weight of the layer to 16 bits before
 * each use: one pass reads the stored bytes and writes two a weight. */
static double S_dequant(const S_ctx *x, bool experts)
{
	if (!(x->in->quant_bytes > 0))
		return 0;
	double dense, expert;
	S_layer_params(x, experts, &dense, &expert);
	return (dense + expert) * (x->in->quant_bytes + 2) / x->mem_bw;
}

/* The matmuls the op policy recomputes in a layer: k, o and the MLP's
 * second, in the order torchtitan's layers run them (q, k, v, o, then
 * gate, up, down or up, down); the scenario allows the policy for dense
 * layers without MLA only. */
static double S_op_recompute(const S_ctx *x)
{
	double t = x->t, h = x->h, tok = x->tok;
	double second = x->nmat > 1 ? S_mm(x, tok, x->f / t, h) : S_mm(x, tok, h, x->f / t);
	return S_mm(x, tok, x->hkv / t, h) + S_mm(x, tok, h, x->hq / t) + second;
}

/* What DeepSeek-V3's recipe redoes in a layer's backward (Sec. 3.2.3 and
 * 3.3.2): the two norms over the residual (read and write, over tok/t
 * under sequence parallelism) and, under MLA, the latents' norms and the
 * up-projections of queries, keys and values; in an expert layer the
 * SwiGLU's output from its two cached inputs (`swiglu` elements). */
static double S_deepseek_recompute(const S_ctx *x, double swiglu)
{
	const tb_perf_input *in = x->in;
	double ab = in->act_bytes, t = x->t, tok = x->tok;
	double tok_n = in->sequence_parallel ? tok / t : tok;
	double bytes = 2 * 2 * tok_n * x->h * ab + 3 * swiglu * ab;
	double s = 0;
	if (x->mla) {
		bytes += 2 * tok * (x->rq + x->rkv) * ab;
		if (x->rq > 0)
			s += S_mm(x, tok, x->H * x->dqk / t, x->rq);
		s += S_mm(x, tok, x->H * (x->dn + x->dv) / t, x->rkv);
	}
	return s + bytes / x->mem_bw;
}

/* What checkpointing changes of a layer whose other parts are timed:
 * the forward it redoes and the collectives exposed around it (a search
 * times the rest once for every checkpointing mode; tb_perf_layer_mode).
 * ti, ci, ei: the tensor, context and expert sizes (ei 1: no all-to-all). */
static void S_layer_mode(const tb_perf_input *in, int64_t ti, int64_t ci, int64_t ei, S_layer *L)
{
	bool fwd_only = in->method == TB_METHOD_FROZEN;
	double passes_f = in->method == TB_METHOD_DPO ? 2 : 1;
	switch (fwd_only ? TB_CKPT_NONE : in->checkpointing) {
	case TB_CKPT_FULL:
		L->recompute = L->fwd / passes_f;       /* one forward (exact: 1 or 2) */
		break;
	case TB_CKPT_SELECTIVE:
		L->recompute = L->rc_selective;
		break;
	case TB_CKPT_NONE:
	default:
		L->recompute = 0;
		break;
	}
	bool full = !fwd_only && in->checkpointing == TB_CKPT_FULL;
	/* part of the layers recomputed: the others' communication too */
	bool part = full && in->recompute_layers > 0;
	/* collectives of a forward pass (the reference's too) and of a
	 * backward, each over the pass's count; full recomputation repeats
	 * the forward's */
	double nf = passes_f + (full ? 1 : 0), nb = fwd_only ? 0 : 1;
	L->tp = L->cp = L->ep = L->tp_keep = L->cp_keep = L->ep_keep = 0;
	if (ti > 1) {
		double total = L->tp_one * 2 * (nf + nb);
		double hide = in->overlap_tp ? L->mm_f * (nf + 2 * nb) : 0;
		L->tp = S_max0(total - hide);
		if (part) {
			total = L->tp_one * 2 * (passes_f + nb);
			hide = in->overlap_tp ? L->mm_f * (passes_f + 2 * nb) : 0;
			L->tp_keep = S_max0(total - hide);
		}
	}
	if (ci > 1) {
		L->cp = passes_f * S_max0(L->cp_f - L->attn_f) + nb * S_max0(L->cp_b - L->attn_b);
		if (part)
			L->cp_keep = L->cp;
		if (full)
			L->cp += S_max0(L->cp_f - L->attn_f);
	}
	if (ei > 1) {
		double total = L->ep_one * (nf + nb);
		double total_keep = L->ep_one * (passes_f + nb);
		if (in->overlap_ep) {
			/* beside the other micro-batch's forward and backward,
			 * which run on the SMs the communication leaves */
			double hide = L->fwd + L->bwd + L->recompute;
			double share = TB_PERF_EP_OVERLAP_SM_SHARE;
			L->ep = S_max0(total - hide) + fmin(total, hide) * share / (1 - share);
			if (part) {
				hide = L->fwd + L->bwd;
				L->ep_keep = S_max0(total_keep - hide) +
				             fmin(total_keep, hide) * share / (1 - share);
			}
		} else {
			L->ep = total;
			if (part)
				L->ep_keep = total_keep;
		}
	}
}

/* One micro-batch through one layer: an expert layer of a mixture when
 * `experts`, else a dense one. */
static void S_layer_time(const S_ctx *x, bool experts, S_layer *L)
{
	const tb_perf_input *in = x->in;
	double tok = x->tok, t = x->t, h = x->h, ab = in->act_bytes;
	memset(L, 0, sizeof *L);

	/* matmuls: the attention's projections, then the MLP, or the router,
	 * the local experts at the rows routed to them and the shared ones */
	S_cast cast = { 0, 0 };
	L->mm_f = S_attn_proj(x, tok, &L->mm_flops_f, &cast);
	double act_elems;               /* MLP activation-function inputs */
	double moe_perm_bytes = 0;
	if (experts) {
		double local = x->E / x->e, et = x->et;
		double rows = x->tok_e * x->kt * x->e / x->E;   /* tokens per local expert */
		S_cast one = { 0, 0 };
		/* the router stays in 16 bits (Transformer Engine, torchao) */
		L->mm_f += S_mm(x, tok, x->E, h);
		L->mm_f += local * (S_lin(x, rows, x->nmat * x->fe / et, h, &one) +
		                    S_lin(x, rows, h, x->fe / et, &one));
		cast.in += local * one.in;
		cast.out += local * one.out;
		if (x->fs > 0)
			L->mm_f += S_lin(x, tok, x->nmat * x->fs / t, h, &cast) +
			           S_lin(x, tok, h, x->fs / t, &cast);
		L->mm_flops_f += 2 * tok * x->E * h +
		                 2 * (x->tok_e * x->kt * x->fe / et + tok * x->fs / t) * (x->nmat + 1) * h;
		act_elems = x->tok_e * x->kt * x->fe / et + tok * x->fs / t;
		/* dispatch and combine: gather and scatter the routed rows */
		moe_perm_bytes = 4 * x->tok_e * x->kt * h * ab;
	} else {
		L->mm_f += S_lin(x, tok, x->nmat * x->f / t, h, &cast) + S_lin(x, tok, h, x->f / t, &cast);
		L->mm_flops_f += 2 * tok * (x->nmat + 1) * x->f * h / t;
		act_elems = tok * x->f / t;
	}

	/* attention core over this rank's heads and queries, all keys */
	double heads = (double)in->heads / t;
	double q = x->s / x->c;
	double full_flops = 2 * x->b * heads * q * x->s * (x->dqk + x->dv);
	double score_fwd_bytes = 0, score_bwd_bytes = 0;
	if (in->flash_attention) {
		/* causal blocks above the diagonal are skipped; the backward
		 * recomputes the scores: 2.5x the forward's matmul FLOPs */
		double exec = full_flops / 2;
		L->attn_f = exec / (x->hw->attention_peak_flops * x->hw->attention_fraction *
		                    tb_perf_clock_fraction(x->hw, x->k));
		L->attn_b = 2.5 * L->attn_f;
		L->flops_f += exec;
	} else {
		double bmm = x->b * heads;
		double core = bmm * (S_mm(x, q, x->s, x->dqk) + S_mm(x, q, x->dv, x->s));
		double elems = bmm * q * x->s;
		/* softmax reads and writes the scores; dropout reads, writes and
		 * keeps a one-byte mask; backward reads one more tensor each */
		score_fwd_bytes = elems * (2 * ab + (in->dropout ? 2 * ab + 1 : 0));
		score_bwd_bytes = elems * (3 * ab + (in->dropout ? 2 * ab + 1 : 0));
		L->attn_f = core + score_fwd_bytes / x->mem_bw;
		L->attn_b = 2 * core + score_bwd_bytes / x->mem_bw;
		L->flops_f += full_flops;
	}
	L->flops_f += L->mm_flops_f;

	/* memory-bound kernels: two norms (read + write), two residual adds
	 * (read two, write one) with their dropout masks, the activation
	 * function (read one or two, write one); over tokens/t under
	 * sequence parallelism.  Backward moves about twice the bytes. */
	double tok_n = in->sequence_parallel ? tok / t : tok;
	double ew = tok_n * h * (4 * ab + 6 * ab + (in->dropout ? 2 : 0)) +
	            act_elems * ab * (x->nmat + 1) + moe_perm_bytes;
	/* fp8: every linear layer's input is cast forward and its output
	 * gradient backward, each read in 16 bits and written as fp8 and its
	 * transpose (for the other GEMM); the weights' casts are cached
	 * across micro-batches (Transformer Engine's is_first_microbatch,
	 * torchao's fp8 all-gather) and left out */
	double cast_b = in->matmul_bytes == 1 ? ab + 2 : 0;
	L->mem_f = (ew + cast.in * cast_b) / x->mem_bw;
	L->mem_b = (2 * ew + cast.out * cast_b) / x->mem_bw;

	/* the method: frozen matrices' backward is the input gradient's GEMM
	 * alone; adapters run forward and twice that back; forward-only runs
	 * have no backward */
	double ad_f = S_adapters_f(x, experts), dq = S_dequant(x, experts);
	L->fwd = L->mm_f + L->attn_f + L->mem_f + ad_f + dq;
	switch (in->method) {
	case TB_METHOD_LORA:
	case TB_METHOD_QLORA:
		L->bwd = L->mm_f + L->attn_b + L->mem_b + 2 * ad_f + dq;
		break;
	case TB_METHOD_FROZEN:
		L->bwd = 0;
		break;
	case TB_METHOD_FULL:
	case TB_METHOD_DPO:
	case TB_METHOD_COUNT:
	default:
		L->bwd = 2 * L->mm_f + L->attn_b + L->mem_b;
		break;
	}
	bool fwd_only = in->method == TB_METHOD_FROZEN;
	/* DPO: the reference model's forward on every micro-batch, the
	 * same shapes again, never recomputed */
	double passes_f = in->method == TB_METHOD_DPO ? 2 : 1;
	/* what selective checkpointing redoes: the attention core again
	 * (flash attention already recomputes it inside its backward); the
	 * op policy keeps the attention and redoes every second matmul (k,
	 * o, then up when gated or down when plain) and every memory-bound
	 * op; DeepSeek-V3's recipe its norms, up-projections and SwiGLU */
	if (in->selective_policy == TB_SELECTIVE_OP)
		L->rc_selective = S_op_recompute(x) + L->mem_f;
	else if (in->selective_policy == TB_SELECTIVE_DEEPSEEK)
		L->rc_selective = S_deepseek_recompute(x, experts ? act_elems : 0);
	else
		L->rc_selective = in->flash_attention ? 0 : L->attn_f;
	L->fwd *= passes_f;
	(void)fwd_only;

	/* tensor parallel: two all-reduces forward, two backward (reduce-
	 * scatter + all-gather under sequence parallelism) */
	if (x->ti > 1) {
		double bytes = tok * h * ab;
		int64_t g = S_per_node(x, 1, x->ti);
		L->tp_one = in->sequence_parallel
			? S_coll(x, TB_COLL_REDUCE_SCATTER, bytes, x->ti, g) +
			  S_coll(x, TB_COLL_ALL_GATHER, bytes, x->ti, g)
			: S_coll(x, TB_COLL_ALL_REDUCE, bytes, x->ti, g);
	}

	/* context parallel: a ring passes each rank's K and V chunk c-1
	 * times forward, K, V and their gradients backward, behind the
	 * attention core */
	if (x->ci > 1) {
		double bytes = x->b * q * (x->hk + x->hv) / t * ab;
		int64_t g = S_per_node(x, x->ti, x->ci);
		double hop = S_coll(x, TB_COLL_P2P, bytes, 2, g >= x->ci ? 2 : 1);
		L->cp_f = (x->c - 1) * hop;
		L->cp_b = 2 * (x->c - 1) * hop;
	}

	/* expert parallel: dispatch and combine, forward, and their
	 * gradients backward; DeepEP dispatches in fp8 under fp8 matmuls, and
	 * the backward's gradient toward the experts too */
	if (experts && x->ei > 1) {
		int64_t g = S_per_node(x, x->eti, x->ei);
		double send, back;
		if (in->dispatcher == TB_DISPATCH_DEEPEP) {
			send = S_deepep(x, x->tok_e * h * (in->matmul_bytes == 1 ? 1 : ab), g);
			back = S_deepep(x, x->tok_e * h * ab, g);
		} else {
			send = back = S_coll(x, TB_COLL_ALL_TO_ALL, x->tok_e * x->kt * h * ab, x->ei, g);
		}
		L->ep_one = send + back;
	}
	S_layer_mode(in, x->ti, x->ci, experts ? x->ei : 1, L);
}

/* Dense and expert parameters of one layer on one GPU: an expert layer
 * when `experts`.  The router is whole on every tensor-parallel rank. */
static void S_layer_params(const S_ctx *x, bool experts, double *dense, double *expert)
{
	double h = x->h, split, whole;
	S_attn_weights(x, &split, &whole);
	if (experts) {
		*dense = (split + (x->nmat + 1) * x->fs * h) / x->t + whole + x->E * h + 2 * h;
		*expert = x->E / x->e * (x->nmat + 1) * x->fe * h / x->et;
	} else {
		*dense = (split + (x->nmat + 1) * x->f * h) / x->t + whole + 2 * h;
		*expert = 0;
	}
}

/* A mixture's leading dense layers; 0 for a dense model. */
static int64_t S_dense_count(const tb_perf_input *in)
{
	if (in->experts <= 1)
		return 0;
	return S_clamp(in->dense_layers, 0, in->layers);
}

/* Model FLOPs per token as flops.c counts them (PaLM App. B), and the
 * forward FLOPs checkpointing recomputes. */
static void S_model_flops(const S_ctx *x, double *model, double *recompute)
{
	const tb_perf_input *in = x->in;
	double L = (double)in->layers, h = x->h;
	double nd = (double)S_dense_count(in);
	double split, whole;
	S_attn_weights(x, &split, &whole);
	double attn_w = split + whole;
	double dense_w = (x->nmat + 1) * h * x->f;
	double mlp_w = x->moe ? (x->kt * x->fe + x->fs) * (x->nmat + 1) * h + h * x->E : dense_w;
	double logits = 2 * x->V * h;
	double mm = 2 * (L * attn_w + (L - nd) * mlp_w + nd * dense_w) + logits;
	double attn = (in->causal_attention_flops ? 0.5 : 1) * 2 * L * x->H * (x->dqk + x->dv) * x->s;
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
			int64_t v = x->pi > 1 ? S_at_least_1(in->virtual_pipeline) : 1;
			int64_t r = tb_perf_recomputed_layers(in->layers, x->pi, v, in->recompute_layers);
			if (r < in->layers)
				*recompute *= (double)r / L;
		}
		break;
	case TB_CKPT_SELECTIVE:
		*recompute = in->selective_policy == TB_SELECTIVE_OP
			? 2 * L * (h * x->hkv + x->hq * h + x->f * h)
			: in->selective_policy == TB_SELECTIVE_DEEPSEEK
			? (x->mla ? 2 * L * (x->rq * x->H * x->dqk + x->rkv * x->H * (x->dn + x->dv)) : 0)
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
	    (S_at_least_1(in->context) * S_at_least_1(in->data)) % in->shard_group != 0)
		return "the shard group does not divide the data-parallel group";
	if (in->experts > 1) {
		int64_t t = S_at_least_1(in->tensor);
		int64_t et = tb_perf_expert_tensor(in->expert_tensor, t);
		int64_t ranks = t * S_at_least_1(in->context) * S_at_least_1(in->data);
		if (et < 1 || t % et != 0)
			return "the expert layers' tensor-parallel size does not divide the tensor-parallel size";
		if (ranks % (et * S_at_least_1(in->expert)) != 0)
			return "expert x expert tensor parallelism does not divide tensor x context x data";
	}
	const tb_perf_hw *hw = &in->hw;
	if (!S_pos(hw->peak_flops) || !S_pos(hw->attention_peak_flops) ||
	    !S_pos(hw->matmul_ceiling) || !S_pos(hw->attention_fraction) ||
	    !S_pos(hw->hbm_bytes_per_s))
		return "the GPU lists no usable peak or memory bandwidth";
	if (hw->gpus_per_node < 1 || !S_pos(hw->nvlink_bytes_per_s) ||
	    !S_pos(hw->network_bytes_per_s) || !S_pos(hw->nvlink_fraction) ||
	    !S_pos(hw->network_fraction))
		return "the node's links are not known";
	if (!S_pos(in->matmul_bytes) || !S_pos(in->act_bytes) ||
	    !S_pos(in->param_bytes) || !S_pos(in->grad_bytes) ||
	    !S_pos(in->optimizer_bytes_per_param))
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
static const char *S_ctx_init(S_ctx *x, const tb_perf_input *in, const tb_perf_consts *k)
{
	memset(x, 0, sizeof *x);
	x->in = in;
	x->k = k;
	x->hw = &in->hw;
	x->ti = S_at_least_1(in->tensor);
	x->pi = S_at_least_1(in->pipeline);
	x->ci = S_at_least_1(in->context);
	x->ei = S_at_least_1(in->expert);
	x->di = S_at_least_1(in->data);
	x->gpn = S_at_least_1(in->hw.gpus_per_node);
	x->t = (double)x->ti; x->p = (double)x->pi; x->c = (double)x->ci;
	x->e = (double)x->ei; x->d = (double)x->di;
	x->v = x->pi > 1 ? (double)S_at_least_1(in->virtual_pipeline) : 1;
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
	x->kt = x->moe ? (double)S_at_least_1(in->experts_per_token) : 1;
	x->fe = x->moe && in->expert_ffn_hidden > 0 ? (double)in->expert_ffn_hidden : x->f;
	x->fs = x->moe && in->shared_ffn_hidden > 0 ? (double)in->shared_ffn_hidden : 0;
	if (!x->moe)
		x->e = 1, x->ei = 1;
	x->nmat = in->gated_mlp ? 2 : 1;
	x->mem_bw = in->hw.hbm_bytes_per_s * k->mem_fraction;
	if (x->mla && (!S_pos(x->dqk) || !S_pos(x->dv)))
		return "the latent attention's head widths are not set";
	if (!S_pos(x->mem_bw) || !S_pos(k->matmul_dim_half + 1))
		return "the model's constants are not usable";
	return NULL;
}

/* The layer, then the embedding (first stage: rows read and written,
 * gradient rows accumulated; with tensor parallelism its output is
 * all-reduced) and the logits (last stage: the vocabulary GEMM forward and
 * backward, the fp32 cross-entropy over V/t columns, four passes). */
static void S_layer_all(const S_ctx *x, S_layer *L, const S_layer *dense)
{
	S_layer_time(x, x->moe, L);
	if (S_dense_count(x->in) > 0 && dense) {
		L->dense_fwd = dense->dense_fwd;
		L->dense_bwd = dense->dense_bwd;
		L->dense_recompute = dense->dense_recompute;
		L->dense_tp = dense->dense_tp;
		L->dense_cp = dense->dense_cp;
		L->dense_tp_keep = dense->dense_tp_keep;
		L->dense_cp_keep = dense->dense_cp_keep;
		L->dense_mm_f = dense->dense_mm_f;
		L->dense_rc_selective = dense->dense_rc_selective;
	} else if (S_dense_count(x->in) > 0) {
		S_layer D;
		S_layer_time(x, false, &D);
		L->dense_fwd = D.fwd;
		L->dense_bwd = D.bwd;
		L->dense_recompute = D.recompute;
		L->dense_tp = D.tp;
		L->dense_cp = D.cp;
		L->dense_tp_keep = D.tp_keep;
		L->dense_cp_keep = D.cp_keep;
		L->dense_mm_f = D.mm_f;
		L->dense_rc_selective = D.rc_selective;
	}
	double ab = x->in->act_bytes;
	L->embed_s = 4 * x->tok * x->h * ab / x->mem_bw;
	L->mtp_proj_s = x->in->mtp_modules > 0 ? 3 * S_mm(x, x->tok, x->h, 2 * x->h) : 0;
	L->embed_tp = x->ti > 1 ? L->tp_one : 0;
	L->logits_s = 0;
	L->logits_tp = 0;
	if (x->V > 0) {
		/* the head's GEMMs: forward, input and weight gradients; a
		 * frozen head has no weight gradient, a forward-only run no
		 * backward, and DPO's reference one more forward; the
		 * cross-entropy's passes likewise */
		double gemms = 3, ce = 16;
		switch (x->in->method) {
		case TB_METHOD_LORA: case TB_METHOD_QLORA: gemms = 2; break;
		case TB_METHOD_FROZEN: gemms = 1; ce = 8; break;
		case TB_METHOD_DPO: gemms = 4; ce = 24; break;
		case TB_METHOD_FULL: case TB_METHOD_COUNT: default: break;
		}
		L->logits_s = gemms * S_mm(x, x->tok, x->V / x->t, x->h) +
		              ce * x->tok * x->V / x->t / x->mem_bw;
		L->logits_tp = x->ti > 1 && x->in->sequence_parallel ? L->tp_one : 0;
	}
}

double tb_perf_causal_mfu_scale(const tb_perf_input *in)
{
	S_ctx x;
	if (S_check(in) || S_ctx_init(&x, in, &tb_perf_fitted))
		return 1;
	double used, causal, re;
	S_model_flops(&x, &used, &re);
	if (S_pos(in->model_flops_per_token))
		used = in->model_flops_per_token;
	tb_perf_input c = *in;
	c.causal_attention_flops = true;
	x.in = &c;
	S_model_flops(&x, &causal, &re);
	return S_pos(used) && S_pos(causal) ? causal / used : 1;
}

bool tb_perf_layer_time(const tb_perf_input *in, const tb_perf_consts *k,
                        tb_perf_layer *out, const char **why)
{
	return tb_perf_layer_time_reuse(in, k, NULL, out, why);
}

bool tb_perf_layer_time_reuse(const tb_perf_input *in, const tb_perf_consts *k,
                              const tb_perf_layer *dense, tb_perf_layer *out, const char **why)
{
	memset(out, 0, sizeof *out);
	if (!k)
		k = &tb_perf_fitted;
	const char *bad = S_check(in);
	S_ctx x;
	if (!bad)
		bad = S_ctx_init(&x, in, k);
	if (why)
		*why = bad ? bad : "";
	if (bad)
		return false;
	S_layer_all(&x, out, dense);
	return true;
}

void tb_perf_layer_mode(const tb_perf_input *in, tb_perf_layer *L)
{
	int64_t ti = S_at_least_1(in->tensor), ci = S_at_least_1(in->context);
	int64_t ei = in->experts > 1 ? S_at_least_1(in->expert) : 1;
	S_layer_mode(in, ti, ci, ei, L);
	if (S_dense_count(in) <= 0)
		return;
	/* the mixture's dense layers: the same attention, their own MLP */
	S_layer D;
	memset(&D, 0, sizeof D);
	D.fwd = L->dense_fwd;
	D.bwd = L->dense_bwd;
	D.mm_f = L->dense_mm_f;
	D.rc_selective = L->dense_rc_selective;
	D.attn_f = L->attn_f;
	D.attn_b = L->attn_b;
	D.tp_one = L->tp_one;
	D.cp_f = L->cp_f;
	D.cp_b = L->cp_b;
	S_layer_mode(in, ti, ci, 1, &D);
	L->dense_recompute = D.recompute;
	L->dense_tp = D.tp;
	L->dense_cp = D.cp;
	L->dense_tp_keep = D.tp_keep;
	L->dense_cp_keep = D.cp_keep;
}

static void S_assemble(const S_ctx *x, const S_layer *L, tb_perf_result *out);

/* The busiest stage: its layers (of which dense), the time of one
 * micro-batch through it, and the micro-batches of a step (shared by the
 * step and its floor). */
typedef struct S_stage {
	int64_t n[3], nd[3];
	double re[3];           /* the share of each stage's layers recomputed */
	double stage_s[3];
	int busy;
	int64_t m;
} S_stage;

/* Dense layers among the n that start at layer `first` (the dense ones
 * lead). */
static int64_t S_dense_in(int64_t dense, int64_t first, int64_t n)
{
	return S_clamp(dense - first, 0, n);
}

/* The micro-batches of a step on one replica (the step and its floor). */
static int64_t S_step_microbatches(const tb_perf_input *in)
{
	int64_t mb_ranks = in->micro_batch * S_at_least_1(in->data);
	int64_t m = (in->global_batch + mb_ranks - 1) / mb_ranks;
	return m < 1 ? 1 : m;
}

static void S_stage_of(const S_ctx *x, const S_layer *L, S_stage *g)
{
	const tb_perf_input *in = x->in;
	int64_t *n = g->n, *nd = g->nd, dense = S_dense_count(in);
	tb_perf_stage_split(in->layers, x->pi, n);
	double over = x->k->layer_overhead_s;
	double lt = L->fwd + L->bwd + L->recompute + L->tp + L->cp + L->ep + over;
	double ld = L->dense_fwd + L->dense_bwd + L->dense_recompute + L->dense_tp +
	            L->dense_cp + over;
	if (x->pi == 1) {
		nd[0] = nd[1] = nd[2] = dense;
	} else {
		nd[0] = S_dense_in(dense, 0, n[0]);
		nd[2] = S_dense_in(dense, in->layers - n[2], n[2]);
		/* of the middle stages, the first holds the most dense layers,
		 * the last the fewest: the busier is the one with more of the
		 * slower kind */
		int64_t most = S_dense_in(dense, n[0], n[1]);
		int64_t fewest = x->pi > 3 ? S_dense_in(dense, in->layers - n[2] - n[1], n[1]) : most;
		nd[1] = ld > lt ? most : fewest;
	}
	for (int i = 0; i < 3; i++) {
		g->re[i] = 1;
		g->stage_s[i] = (double)nd[i] * ld + (double)(n[i] - nd[i]) * lt;
	}
	/* part of the layers recomputed: a chunk's first recompute_layers,
	 * the dense and expert ones in proportion; the layers past them run
	 * their forward's communication once */
	double lt_last = lt;
	if (in->checkpointing == TB_CKPT_FULL && in->recompute_layers > 0 && S_pos(L->recompute)) {
		int64_t v = x->pi > 1 ? S_at_least_1(in->virtual_pipeline) : 1;
		double lk = L->fwd + L->bwd + L->tp_keep + L->cp_keep + L->ep_keep + over;
		double ldk = L->dense_fwd + L->dense_bwd + L->dense_tp_keep + L->dense_cp_keep + over;
		for (int i = 0; i < 3; i++) {
			int64_t r = tb_perf_stage_recomputed(n[i], v, in->recompute_layers);
			if (n[i] <= 0 || r >= n[i])
				continue;
			g->re[i] = (double)r / (double)n[i];
			g->stage_s[i] = (double)nd[i] * (ldk + g->re[i] * (ld - ldk)) +
			                (double)(n[i] - nd[i]) * (lk + g->re[i] * (lt - lk));
		}
		if (g->re[2] < 1)
			lt_last = lk;
	}
	/* multi-token prediction (DeepSeek-V3 Sec. 2.2): each module is one
	 * more layer (recomputed when its stage's every layer is), the
	 * projection of [h; embedding] (tok, h, 2h) forward and back, and the
	 * shared head once more, after the last layer */
	double head = L->logits_s + L->logits_tp +
	              (double)in->mtp_modules * (lt_last + L->logits_s + L->logits_tp + L->mtp_proj_s);
	g->stage_s[0] += L->embed_s + L->embed_tp + (x->pi == 1 ? head : 0);
	g->stage_s[2] += head;
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
	x.pi = S_at_least_1(in->pipeline);
	x.di = S_at_least_1(in->data);
	S_stage g;
	S_stage_of(&x, L, &g);
	return g.stage_s[g.busy];
}

double tb_perf_step_floor_from_s(const tb_perf_input *in, double stage_s)
{
	if (in->layers <= 0 || in->micro_batch <= 0 || in->global_batch <= 0)
		return 0;
	int64_t m = S_step_microbatches(in);
	int64_t p = S_at_least_1(in->pipeline);
	double v = (double)m * stage_s;
	/* the bubble, (p - 1) / (v m) of m stage passes, at the most virtual
	 * stages the caller allows */
	if (p > 1)
		v += (double)(p - 1) / (double)S_at_least_1(in->virtual_pipeline) * stage_s;
	return S_pos(v) ? v : 0;
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
	const char *bad = S_ctx_init(&x, in, k);
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
	const char *bad = S_check(in);
	S_ctx x;
	if (!bad)
		bad = S_ctx_init(&x, in, k);
	if (bad) {
		memset(out, 0, sizeof *out);
		out->why = bad;
		return;
	}
	S_layer L;
	S_layer_all(&x, &L, NULL);
	S_assemble(&x, &L, out);
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
	if (busy == 2 || x->pi == 1) {
		/* the head, and each MTP module's layer, projection and head */
		double mt = (double)in->mtp_modules;
		extra_compute += logits_s + mt * (logits_s + L->mtp_proj_s);
		extra_tp += logits_tp * (1 + mt);
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
	br[TB_PERF_OTHER] = dm * nb * k->layer_overhead_s;
	double per_mb = stage_s[busy];
	out->bubble_fraction = tb_perf_bubble_fraction(x->pi, (int64_t)x->v, m);
	br[TB_PERF_BUBBLE] = out->bubble_fraction * dm * per_mb;

	/* pipeline: each micro-batch crosses each of the stage's v chunk
	 * boundaries forward and backward; 1/t of the activation is sent
	 * (scatter-gather, or sequence parallelism), gathered again over the
	 * tensor-parallel group when not sequence parallel */
	if (x->pi > 1) {
		double bytes = x->tok * x->h * ab / x->t;
		int64_t stride = x->ti * x->ci * x->di;
		double one = S_coll(x, TB_COLL_P2P, bytes, 2, stride < x->gpn ? 2 : 1);
		if (x->ti > 1 && !in->sequence_parallel)
			one += S_coll(x, TB_COLL_ALL_GATHER, bytes * x->t, x->ti,
			              S_per_node(x, 1, x->ti));
		out->pp_bytes = bytes;
		out->pp_s = one;
		br[TB_PERF_PP_COMM] = dm * x->v * 2 * one;
	}

	/* data parallel, with the overlap rule of perf.h */
	double dense1, expert1, dense_d, expert_d;
	S_layer_params(x, x->moe, &dense1, &expert1);
	S_layer_params(x, false, &dense_d, &expert_d);
	double dense = nm * dense1 + ndb * dense_d, expert = nm * expert1;
	double vocab_p = x->V * x->h / x->t;
	if (busy == 0)
		dense += vocab_p;
	if (busy == 2 || x->pi == 1)
		dense += vocab_p;
	/* what gets gradients: the weights, or the adapters (dense ones
	 * split over the tensor ranks like their matrices), or nothing */
	double gdense = dense, gexpert = expert;
	if (tb_method_adapters(in->method)) {
		gdense = nb * in->adapters_dense_per_layer / x->t;
		gexpert = nb * in->adapters_expert_per_layer / (x->et * x->e);
	} else if (in->method == TB_METHOD_FROZEN) {
		gdense = gexpert = 0;
	}
	tb_perf_dp_in da = {
		.dense = dense, .expert = expert, .gdense = gdense, .gexpert = gexpert,
		.layers = nb, .microbatches = dm,
		.fwd_mb = nm * L->fwd + ndb * L->dense_fwd,
		.bwd_mb = nm * (L->bwd + re * L->recompute) + ndb * (L->dense_bwd + re * L->dense_recompute),
		.bubble_s = br[TB_PERF_BUBBLE],
	};
	tb_perf_dp_out dpo;
	tb_perf_dp(x, &da, &dpo);
	double dp = dpo.dp, dp_one = dpo.dp_one, dp_total = dpo.dp_total;
	int64_t n_sh = dpo.n_shard, n_edp = dpo.n_edp;
	out->dp_bytes = dpo.bytes;
	out->dp_s = dp_one;
	out->dp_total_s = dp_total;
	out->stage_extra_s = extra_compute;
	out->stage_extra_tp_s = extra_tp;
	br[TB_PERF_DP_COMM] = dp;

	/* optimizer: every parameter this GPU updates, at HBM speed */
	double upd = gdense / (in->zero >= 1 ? (double)n_sh : 1) +
	             gexpert / (in->zero >= 1 ? (double)n_edp : 1);
	out->optimizer_params = upd;
	br[TB_PERF_OPTIMIZER] = upd * in->optimizer_bytes_per_param / x->mem_bw;

	double step = 0;
	for (int i = 0; i < TB_PERF_TERMS; i++)
		step += br[i];
	if (!S_pos(step)) {
		memset(out, 0, sizeof *out);
		out->why = "the step time could not be computed";
		return;
	}

	double per_tok_model, per_tok_re;
	S_model_flops(x, &per_tok_model, &per_tok_re);
	if (S_pos(in->model_flops_per_token) && S_pos(per_tok_model)) {
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
	out->busiest_stage = busy;
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
	out->tp_s = L->tp_one;
	out->cp_bytes = x->ci > 1 ? x->b * (x->s / x->c) * (x->hk + x->hv) / x->t * ab : 0;
	out->ep_bytes = x->moe && x->ei > 1 ? x->tok_e * x->kt * x->h * ab : 0;
	out->stage_microbatch_s = per_mb;
}
