/* perf_layer.c: one micro-batch through one layer on one GPU (perf.h's
 * tb_perf_layer): the matmuls at their shapes, the attention core, the
 * memory-bound kernels, FP8's casts, LoRA's adapters and QLoRA's
 * dequantization, then what checkpointing redoes and the tensor-, context-
 * and expert-parallel collectives exposed around the layer; the embedding
 * and the logits.  perf.c assembles the step from it (docs/formulas.md). */
#include "trainbudget/perf.h"
#include "perf_int.h"

#include <math.h>
#include <string.h>

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

/* Dropless routing's busiest rank (docs/formulas.md, "Dropless routing"):
 * what the other ranks wait for at the combine.  It cannot hold more than
 * every routed token, e times the mean of e ranks. */
double tb_perf_expert_load(const tb_perf_input *in, const tb_perf_consts *k)
{
	if (in->experts <= 1 || in->expert <= 1)
		return 1;
	if (!k)
		k = &tb_perf_fitted;
	double f = in->expert_load > 0 ? in->expert_load : k->moe_dropless_load;
	return fmin(f > 1 ? f : 1, (double)in->expert);
}

/* Expert parallelism's dispatch and combine for a micro-batch through a
 * layer, forward, or their gradients backward; DeepEP dispatches in fp8
 * under fp8 matmuls, and the backward's gradient toward the experts too. */
static inline void S_ep_one(const S_ctx *x, double *send, double *back)
{
	const tb_perf_input *in = x->in;
	double h = x->h, ab = in->act_bytes;
	int64_t g = S_per_node(x, x->eti, x->ei);
	/* the busiest rank receives load times the mean, and the collective
	 * ends when it has */
	double tok = x->tok_e * x->load;
	if (in->dispatcher == TB_DISPATCH_DEEPEP) {
		*send = S_deepep(x, tok * h * (in->matmul_bytes == 1 ? 1 : ab), g);
		*back = S_deepep(x, tok * h * ab, g);
	} else {
		*send = *back = S_coll(x, TB_COLL_ALL_TO_ALL, tok * x->kt * h * ab, x->ei, g);
	}
}

/* What of `total` seconds of expert all-to-all a layer waits for: all of
 * it, or, beside the other micro-batch's `hide` seconds of compute, which
 * runs on the SMs the communication leaves, what outlasts it and the slowing
 * of what it hides behind. */
static inline double S_ep_exposed(const tb_perf_input *in, double total, double hide)
{
	if (!in->overlap_ep)
		return total;
	double share = TB_PERF_EP_OVERLAP_SM_SHARE;
	return tb_perf_max0(total - hide) + fmin(total, hide) * share / (1 - share);
}

/* Megatron-LM's 1F1B all-to-all overlap (--overlap-moe-expert-parallel-
 * comm) runs one micro-batch's forward through a layer beside another's
 * backward in three phases, each all-to-all behind a named piece of the
 * other's compute (TransformerLayerSchedulePlan.run, megatron/core/models/
 * common/model_chunk_schedule_plan.py): the backward's combine beside the
 * forward's pre-dispatch computation (attention, norms, router); the
 * forward's and the backward's dispatch beside both MLPs (the backward's,
 * its weight gradients, the forward's); the forward's combine beside the
 * backward's pre-dispatch computation.  Each phase waits for the longer
 * side; what hides slows its compute as S_ep_exposed says.  The backward's
 * combine and dispatch move what the forward's dispatch and combine do. */
bool tb_perf_ep_phased(tb_framework fw, tb_method method, bool overlap_ep)
{
	return overlap_ep && fw == TB_FW_MEGATRON && method != TB_METHOD_FROZEN && method != TB_METHOD_DPO;
}

int64_t tb_perf_ep_unpaired_passes(int64_t pipeline, int64_t virtual_pipeline,
                                   int64_t microbatches)
{
	/* each held under 2^31, so no product below passes 2^63 */
	int64_t p = tb_perf_clamp(pipeline, 1, INT32_MAX);
	int64_t v = p > 1 ? tb_perf_clamp(virtual_pipeline, 1, INT32_MAX) : 1;
	int64_t m = tb_perf_clamp(microbatches, 1, INT32_MAX);
	int64_t w = p > 1 ? 2 * (p - 1) + (v - 1) * p + 1 : 1;
	return w < m * v ? w : m * v;
}

const char *tb_perf_ep_rule(tb_framework fw, tb_method method, bool overlap_ep)
{
	if (!overlap_ep)
		return NULL;
	return tb_perf_ep_phased(fw, method, overlap_ep)
	       ? "each beside its phase of Megatron-LM's 1F1B schedule (a combine beside the other "
	         "pass's attention side, the dispatches beside the MLPs), on the SMs it leaves; "
	         "the schedule's warm-up forwards and cool-down backwards run alone"
	       : "beside another micro-batch's whole layer (DeepSeek-V3's DualPipe), on the SMs it "
	         "leaves";
}

bool tb_perf_cp_ok(tb_cp_comm comm, int64_t heads, int64_t kv_heads, int64_t t, int64_t c)
{
	int64_t kv = kv_heads > 0 ? kv_heads : heads;
	if (comm != TB_CP_A2A || c <= 1)
		return true;
	return t > 0 && heads % t == 0 && kv % t == 0 && (heads / t) % c == 0 && (kv / t) % c == 0;
}

const char *tb_perf_cp_rule(tb_cp_comm comm)
{
	switch (comm) {
	case TB_CP_A2A:
		return "all-to-alls of the queries, keys, values and output around the attention core "
		       "(Ulysses), each tensor copied into and out of the exchange's layout, in line with "
		       "the compute";
	case TB_CP_ALLGATHER:
		return "every rank's keys and values gathered before the attention core (again for its "
		       "backward) and their gradients reduce-scattered after it, reordered into sequence "
		       "order and back, in line with the compute";
	default:
		return "each rank's keys and values passed round a ring, hidden behind the attention core "
		       "where it is longer";
	}
}

static double S_ep_pair(const S_layer *L)
{
	double mlp = tb_perf_max0(L->fwd - L->ep_pre_f) + tb_perf_max0(L->bwd - L->ep_pre_b);
	double c1 = L->ep_send, c2 = L->ep_send + L->ep_back, c3 = L->ep_back;
	double out = tb_perf_max0(c1 - L->ep_pre_f) + tb_perf_max0(c2 - mlp) + tb_perf_max0(c3 - L->ep_pre_b);
	double share = TB_PERF_EP_OVERLAP_SM_SHARE;
	return out + (c1 + c2 + c3 - out) * share / (1 - share);
}

/* The elements a layer's linear GEMMs read as input (forward), as output
 * gradient (backward) and as weight: what fp8 casts each micro-batch. */
typedef struct S_cast {
	double in, out, w;
} S_cast;

/* One linear layer's GEMM of M x K by K x N, its casts counted in *c. */
static double S_lin(const S_ctx *x, double m, double n, double k, S_cast *c)
{
	c->in += m * k;
	c->out += m * n;
	c->w += k * n;
	return S_mm(x, m, n, k);
}

/* What the recipe casts around linear layers, in bytes a pass: forward
 * their inputs and (where it recasts them each micro-batch) weights,
 * backward their output gradients and weights; the layer's and the fp8
 * head's alike. */
static double S_cast_f(const tb_perf_input *in, const S_cast *c)
{
	return c->in * in->fp8_cast_bytes + c->w * in->fp8_weight_cast_f_bytes;
}

static double S_cast_b(const tb_perf_input *in, const S_cast *c)
{
	return c->out * in->fp8_cast_bytes + c->w * in->fp8_weight_cast_b_bytes;
}

/* What adding one weight's gradient into its main gradient moves each
 * micro-batch where the weight-gradient GEMM does not accumulate into it
 * itself (training.grad_accumulation_fusion false; Megatron-LM's
 * param.main_grad.add_(param.grad)): the GEMM's 16-bit output read, the
 * main gradient read and written.  0 where nothing trains the weights. */
static double S_accum_bytes(const tb_perf_input *in)
{
	if (!in->grad_accum_unfused || (in->method != TB_METHOD_FULL && in->method != TB_METHOD_DPO))
		return 0;
	return in->act_bytes + 2 * in->grad_bytes;
}

/* The attention's projections for tok tokens on one GPU: their time, and
 * their forward FLOPs in *flops (two a weight a token). */
static double S_attn_proj_flops(const S_ctx *x, double tok)
{
	double split, whole;
	tb_perf_attn_weights(x, &split, &whole);
	return 2 * tok * (split / x->t + whole);
}

static double S_attn_proj(const S_ctx *x, double tok, double *flops, double *out_s, S_cast *c)
{
	double t = x->t, h = x->h, H = x->H;
	*flops = S_attn_proj_flops(x, tok);
	if (!x->mla) {
		*out_s = S_lin(x, tok, h, x->hq / t, c);
		return S_lin(x, tok, (x->hq + 2 * x->hkv) / t, h, c) + *out_s;
	}
	double s = x->rq > 0 ? S_lin(x, tok, x->rq, h, c) + S_lin(x, tok, H * x->dqk / t, x->rq, c)
	                     : S_lin(x, tok, H * x->dqk / t, h, c);
	s += S_lin(x, tok, x->rkv + x->dr, h, c) + S_lin(x, tok, H * (x->dn + x->dv) / t, x->rkv, c);
	*out_s = S_lin(x, tok, h, H * x->dv / t, c);
	return s + *out_s;
}

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

/* LoRA's dropout (lora.dropout > 0) in HBM bytes for one group: every
 * adapter drops its own copy of its module's input before A (PEFT's
 * lora_dropout per module; NeMo's "pre" position, Transformer Engine's
 * te.ops.Dropout an op of its own), reading the input and writing the
 * copy and a one-byte mask forward, and back the copy's gradient read,
 * the mask read and the input's gradient written: the same bytes each
 * way.  The memory model keeps that copy and mask (memory_act.c). */
static double S_drop_group(const S_ctx *x, const double io[4], double T, double ts)
{
	return T * (io[0] + io[2] / ts) * (2 * x->in->act_bytes + 1);
}

typedef double (*S_group_fn)(const S_ctx *, const double io[4], double T, double ts);

/* One per-group figure summed over a layer's adapters: a dense layer's
 * group, or an expert layer's attention and shared expert and its local
 * routed experts at the rows routed to each; 0 without LoRA. */
static double S_adapters(const S_ctx *x, bool experts, S_group_fn g)
{
	const tb_perf_input *in = x->in;
	if (!tb_method_adapters(in->method) || in->lora_rank < 1)
		return 0;
	if (!experts)
		return g(x, in->lora_io[0], x->tok, x->t);
	double local = x->E / x->e, rows = x->tok_e * x->kt * x->e / x->E * x->load;
	return g(x, in->lora_io[1], x->tok, x->t) + local * g(x, in->lora_io[2], rows, x->et);
}

/* QLoRA dequantizes every frozen weight of the layer to 16 bits before
 * each use: one pass reads the stored bytes and writes two a weight. */
static double S_dequant(const S_ctx *x, bool experts)
{
	if (!(x->in->quant_bytes > 0))
		return 0;
	double dense, expert;
	tb_perf_layer_params(x, experts, &dense, &expert);
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

/* A layer's two norms rebuilt: each reads and writes the residual stream
 * (over the sequence-parallel share of the tokens). */
static double S_norms_bytes(const S_ctx *x)
{
	const tb_perf_input *in = x->in;
	double tok_n = in->sequence_parallel ? x->tok / x->t : x->tok;
	return 2 * 2 * tok_n * x->h * in->act_bytes;
}

/* LoRA's adapters under PyTorch eager (PEFT's forward, base(x) +
 * B(A(dropout(x))) x scaling), in bytes for one group: forward the
 * scaling's product over each adapter's output (read and written, 2e) and
 * its sum into the base module's output (two read, one written, 3e);
 * backward the product again over the output's gradient (2e) and the
 * input's gradient summed from the base and the adapter paths (3e).
 * Transformer Engine's fused branch folds all three into its GEMMs
 * (te.ops.ConstantScale, AddExtraInput and MakeExtraOutput: alpha, and
 * beta = 1 forward and backward). */
static double S_eager_lora_f(const S_ctx *x, const double io[4], double T, double ts)
{
	return T * (io[1] / ts + io[3]) * 5 * x->in->act_bytes;
}

static double S_eager_lora_b(const S_ctx *x, const double io[4], double T, double ts)
{
	double ab = x->in->act_bytes;
	return T * ((io[1] / ts + io[3]) * 2 * ab + (io[0] + io[2] / ts) * 3 * ab);
}

/* What PyTorch eager moves beyond the fused kernels (training.kernels:
 * eager), forward into *f and backward into *b, as torchtitan's Llama
 * writes its layer (models/norms.py RMSNorm, models/llama/model.py at
 * 9dec370, the commit of its 2024-12 benchmark): each RMSNorm is
 * x.float(), pow, mean, the product with rsqrt, type_as and the weight's
 * product, 28 + 4e bytes an element against the fused kernel's 2e (e the
 * activation's bytes); a gated MLP's SiLU then its product, 5e against
 * 3e; RoPE as complex numbers, float(), the product and type_as, 16 + 2e
 * against 2e; and under grouped-query attention repeat_kv's expand and
 * reshape copies the keys and values out to every query head, reading
 * hkv and writing hq elements each.  The backward of the norms and the
 * activation moves twice their forward, as the fused ones'; RoPE's and
 * the copy's once (the rotation's conjugate, the heads' sum).  A
 * LayerNorm is one ATen kernel eager too; residual adds cost the same.
 * LoRA's adapters add S_eager_lora's bytes wherever they run unfused
 * (training.lora.kernels, which follows training.kernels unless written:
 * NeMo's ParallelLinearAdapter is unfused under fused base kernels). */
static void S_eager_bytes(const S_ctx *x, bool experts, double tok_n, double act_elems, double rope,
                          double *f, double *b)
{
	const tb_perf_input *in = x->in;
	*f = *b = 0;
	if (in->lora_eager) {
		*f = S_adapters(x, experts, S_eager_lora_f);
		*b = S_adapters(x, experts, S_eager_lora_b);
	}
	if (!in->eager_kernels)
		return;
	double ab = in->act_bytes;
	double norms = in->rmsnorm ? 2 * tok_n * x->h * (28 + 2 * ab) : 0;
	double act = act_elems * 2 * ab * (x->nmat - 1);
	/* rope is the fused pass's 2e an element */
	double rot = rope / (2 * ab) * 16;
	double rep = !x->mla && x->hkv < x->hq ? 2 * ab * x->tok * (x->hkv + x->hq) / x->t : 0;
	*f += norms + act + rot + rep;
	*b += 2 * (norms + act) + rot + rep;
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
	double bytes = S_norms_bytes(x) + 3 * swiglu * ab;
	double s = 0;
	if (x->mla) {
		bytes += 2 * tok * (x->rq + x->rkv) * ab;
		if (x->rq > 0)
			s += S_mm(x, tok, x->H * x->dqk / t, x->rq);
		s += S_mm(x, tok, x->H * (x->dn + x->dv) / t, x->rkv);
	}
	return s + bytes / x->mem_bw;
}

/* The tensor-parallel overlap (parallelism.overlap_tp: Transformer
 * Engine's userbuffers, PyTorch's async TP) splits each collective and the
 * GEMM next to it into t chunks, so a collective hides only behind that
 * GEMM: forward a block's gather behind the column-parallel GEMMs that
 * consume it, its reduce-scatter behind the row-parallel GEMM that feeds
 * it, whose last chunk can only leave when that GEMM ends (1/t of it
 * exposed); backward the output gradient's gather behind the row-parallel
 * linear's GEMM and the input gradient's reduce-scatter behind the
 * column-parallel one's (TE's proj/fc2 dgrad ring exchange and qkv/fc1
 * bulk overlap).  Without sequence parallelism `red` is the block's
 * all-reduce, exposed past its GEMM. */
static double S_hide(double comm, double gemm, double tail)
{
	return fmin(comm, tb_perf_max0(comm - gemm) + tail);
}

/* One block's pair in one pass: the gather behind `g_ag`, the reduction
 * behind `g_red` (forward the column- and row-parallel GEMMs, backward
 * the other way round). */
static double S_overlap(const S_ctx *x, double ag, double red, double g_ag, double g_red)
{
	double tail = x->in->sequence_parallel ? red / (double)x->ti : 0;
	return S_hide(ag, g_ag, 0) + S_hide(red, g_red, tail);
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
	/* the moe policy redoes an expert block forward, its collectives too */
	bool moe_rc = !fwd_only && in->checkpointing == TB_CKPT_SELECTIVE &&
	              in->selective_policy == TB_SELECTIVE_MOE;
	/* part of the layers recomputed: the others' communication too */
	bool part = full && in->recompute_layers > 0;
	/* collectives of a forward pass (the reference's too) and of a
	 * backward, each over the pass's count; full recomputation repeats
	 * the forward's */
	double nf = passes_f + (full ? 1 : 0), nb = fwd_only ? 0 : 1;
	L->tp = L->cp = L->ep = L->tp_keep = L->cp_keep = L->ep_keep = L->ep_unpaired = 0;
	if (ti > 1) {
		/* under the overlap each pass waits for what its collectives
		 * outlast of the GEMMs beside them (S_overlap) */
		double total = L->tp_layer * (nf + nb) + (moe_rc ? L->moe_tp : 0);
		L->tp = in->overlap_tp
			? fmin(total, nf * L->tp_ovl_f + nb * L->tp_ovl_b + (moe_rc ? L->moe_tp_ovl : 0))
			: total;
		if (part) {
			total = L->tp_layer * (passes_f + nb);
			L->tp_keep = in->overlap_tp ? fmin(total, passes_f * L->tp_ovl_f + nb * L->tp_ovl_b)
			                            : total;
		}
	}
	if (ci > 1) {
		/* the ring hides behind the core; the all-to-alls and the
		 * gathers wait in line */
		bool ring = in->cp_comm == TB_CP_P2P;
		double f = ring ? tb_perf_max0(L->cp_f - L->attn_f) : L->cp_f;
		double b = ring ? tb_perf_max0(L->cp_b - L->attn_b) : L->cp_b;
		L->cp = passes_f * f + nb * b;
		if (part)
			L->cp_keep = L->cp;
		if (full)
			L->cp += f;
	}
	if (ei > 1) {
		/* Megatron-LM pairs one forward with one backward; the passes
		 * beyond them (a recomputed forward, the moe policy's block)
		 * hide behind the recomputation */
		bool pair = tb_perf_ep_phased(in->framework, in->method, in->overlap_ep);
		double extra = nf - 1 + (moe_rc ? 1 : 0);
		L->ep_unpaired = pair ? tb_perf_max0(2 * L->ep_one - S_ep_pair(L)) : 0;
		L->ep = pair ? S_ep_pair(L) + S_ep_exposed(in, L->ep_one * extra, L->recompute)
		             : S_ep_exposed(in, L->ep_one * (nf + nb + (moe_rc ? 1 : 0)),
		                            L->fwd + L->bwd + L->recompute);
		if (part)
			L->ep_keep = pair ? S_ep_pair(L)
			                  : S_ep_exposed(in, L->ep_one * (passes_f + nb), L->fwd + L->bwd);
	}
}

/* The forward FLOPs of an expert layer's router, local experts and shared
 * experts on one GPU. */
static double S_expert_mm_flops(const S_ctx *x, double *routed)
{
	double tok = x->tok, h = x->h;
	*routed = 2 * x->tok_e * x->kt * x->fe / x->et * (x->nmat + 1) * h;
	return 2 * tok * x->E * h + 2 * (x->tok_e * x->kt * x->fe / x->et + tok * x->fs / x->t) * (x->nmat + 1) * h;
}

double tb_perf_causal_rate(tb_attn_kernel kernel, double seq)
{
	/* FlashAttention-3's Fig. 5 (Shah et al. 2024, H100, head dim 128):
	 * causal cuDNN 484 to 539 TFLOP/s from 2K to 16K tokens against 595
	 * to 617 without the mask, FlashAttention-2 298 to 335 against 362 to
	 * 370; the masked kernel gains on the plain one as the sequence grows
	 * (the diagonal's partial tiles a smaller share), so the ratio is read
	 * at each end and taken linear in log2 of the sequence between them,
	 * held outside */
	double lo = kernel == TB_ATTN_KERNEL_CUDNN ? 484.0 / 595 : 298.0 / 362;
	double hi = kernel == TB_ATTN_KERNEL_CUDNN ? 539.0 / 617 : 335.0 / 370;
	double f = seq > 0 ? (log2(seq) - 11) / 3 : 0;
	f = f < 0 ? 0 : f > 1 ? 1 : f;
	return lo + (hi - lo) * f;
}

/* What fp8 attention casts around its kernel, in bytes a pass (Transformer
 * Engine's FusedAttnFunc with fp8_dpa and 16-bit inputs): forward the
 * query, key and value quantized and the output dequantized to 16 bits;
 * backward the output's gradient quantized and the query's, key's and
 * value's gradients dequantized.  A quantize reads 16 bits and writes
 * one byte, and under current scaling reads the tensor once more for its
 * amax (delayed scaling takes last step's; MXFP8 writes a scale per 32);
 * a dequantize reads the byte and writes 16 bits.  MLA's key is expanded
 * per head before the kernel, as its query. */
static void S_attn_casts(const S_ctx *x, double tok, double *f, double *b)
{
	double ab = x->in->act_bytes;
	tb_fp8_recipe r = x->in->fp8_attention_recipe;
	double quant = r == TB_FP8_MXFP8 ? ab + 1 + 1.0 / 32
	               : r == TB_FP8_DELAYED ? ab + 1 : 2 * ab + 1;
	double dequant = 1 + ab;
	double qkv = tok * (x->hq + x->hk + x->hv) / x->t, o = tok * x->H * x->dv / x->t;
	*f = qkv * quant + o * dequant;
	*b = o * quant + qkv * dequant;
}

/* The attention core's forward under flash attention: the causal half of
 * the score and value matmuls, at the attention kernels' rate, causal
 * where that rate is FlashAttention-3's figure (the cards whose backward
 * ratio is set: A100's FlashAttention-2 fraction covers both already).
 * A layer with a window skips the blocks outside it (FlashAttention's and
 * cuDNN's sliding-window masks), so the layers' mean is taken over the
 * keys each sees, as flops.c counts them, at the same rate. */
static double S_flash_f(const S_ctx *x, double *exec)
{
	double heads = (double)x->in->heads / x->t, q = x->s / x->c;
	*exec = x->b * heads * q * x->s * (x->dqk + x->dv) * tb_perf_key_share(x->in, x->s, true);
	double causal = x->hw->attention_backward_ratio > 0
	                ? tb_perf_causal_rate(x->hw->attention_kernel, x->s) : 1;
	return *exec / (x->hw->attention_peak_flops * x->hw->attention_fraction * causal *
	                tb_perf_clock_fraction(x->hw, x->k));
}

/* A causal ring's own memory-bound work on its busiest rank, in bytes a
 * pass (Transformer Engine's AttnFuncWithCPAndKVP2P, load-balanced: rank
 * r holds sequence chunks r and 2c-1-r).  Each of the c steps' partial
 * output is rescaled by its log-sum-exp and added into the running one: the
 * first a copy (2 element passes), each later one a read of the step's and
 * a read and write of the sum (3), whole on the last rank, the second half
 * alone on rank 0 after its first step.  Backward the gradients of Q, K
 * and V are summed over the steps the same way; on the last rank K's and V's
 * are half-size before the diagonal step, on rank 0 Q's are.  K and V are
 * also copied into the send buffer once a pass.  Forward the last rank is
 * the busiest; backward whichever of the last and the first moves more. */
static void S_ring_merges(const S_ctx *x, double tok, double *fwd, double *bwd)
{
	double c = x->c, q = x->hq / x->t, kv = (x->hk + x->hv) / x->t;
	double unit = tok * x->in->act_bytes, stage = 2 * kv;
	*fwd = unit * ((2 + 3 * (c - 1)) * x->H * x->dv / x->t + stage);
	double last = (3 * c - 1) * q + (1.5 * c + 1) * kv;
	double first = (1.5 * c + 0.5) * q + (3 * c - 1.5) * kv;
	*bwd = unit * (fmax(last, first) + stage);
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
	S_cast cast = { 0, 0, 0 };
	/* each block's column-parallel GEMMs (before its gather's consumer)
	 * and row-parallel ones (its reduce-scatter's producer) */
	double attn_row, mlp_col, mlp_row, router = 0;
	L->mm_f = S_attn_proj(x, tok, &L->mm_flops_f, &attn_row, &cast);
	double act_elems;               /* MLP activation-function inputs */
	double moe_perm_bytes = 0;
	double attn_mm = L->mm_f;       /* the matmuls before the MLP */
	if (experts) {
		double local = x->E / x->e, et = x->et;
		/* tokens per local expert on the busiest rank */
		double rows = x->tok_e * x->kt * x->e / x->E * x->load;
		S_cast one = { 0, 0, 0 };
		/* the router stays in 16 bits (Transformer Engine, torchao), on
		 * the rank's own tokens: under sequence parallelism its shard */
		double up = S_lin(x, rows, x->nmat * x->fe / et, h, &one);
		double down = S_lin(x, rows, h, x->fe / et, &one);
		router = S_mm(x, in->sequence_parallel ? tok / t : tok, x->E, h);
		mlp_col = router + local * up;
		mlp_row = local * down;
		cast.in += local * one.in;
		cast.out += local * one.out;
		cast.w += local * one.w;
		if (x->fs > 0) {
			mlp_col += S_lin(x, tok, x->nmat * x->fs / t, h, &cast);
			mlp_row += S_lin(x, tok, h, x->fs / t, &cast);
		}
		L->mm_f += mlp_col + mlp_row;
		double routed;
		L->mm_flops_f += S_expert_mm_flops(x, &routed);
		act_elems = x->tok_e * x->load * x->kt * x->fe / et + tok * x->fs / t;
		/* dispatch and combine: gather and scatter the routed rows */
		moe_perm_bytes = 4 * x->tok_e * x->load * x->kt * h * ab;
	} else {
		mlp_col = S_lin(x, tok, x->nmat * x->f / t, h, &cast);
		mlp_row = S_lin(x, tok, h, x->f / t, &cast);
		L->mm_f += mlp_col + mlp_row;
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
		double exec;
		L->attn_f = S_flash_f(x, &exec);
		/* at the backward's own rate where the card's figure is the
		 * forward's */
		double rb = x->hw->attention_backward_ratio;
		L->attn_b = 2.5 * L->attn_f / (rb > 0 ? rb : 1);
		if (x->hw->attention_fp8_fwd_ratio > 0) {
			L->attn_f /= x->hw->attention_fp8_fwd_ratio;
			L->attn_b /= x->hw->attention_fp8_bwd_ratio;
		}
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
	double norms_res = tok_n * h * (4 * ab + 6 * ab + (in->dropout ? 2 : 0));
	double ew = norms_res + act_elems * ab * (x->nmat + 1) + moe_perm_bytes;
	/* rotary positions: this rank's query and key heads read and written
	 * forward, their gradients backward (Transformer Engine's fused RoPE,
	 * torch.compile's; no attention kernel the model prices applies it);
	 * under MLA the rope part of each query head and the shared rope key */
	double rope = !in->rope ? 0
	              : 2 * ab * tok * (x->mla ? x->H * x->dr / t + x->dr : (x->hq + x->hkv) / t);
	/* fp8: every linear layer's input is cast forward and its output
	 * gradient backward, at the recipe's bytes an element (perf_input.c);
	 * its weights too where the recipe casts them every micro-batch
	 * (torchao's per row, blocks and MX) */
	double eager_f = 0, eager_b = 0;
	S_eager_bytes(x, experts, tok_n, act_elems, rope, &eager_f, &eager_b);
	double cast_bw = x->hw->hbm_bytes_per_s * tb_perf_cast_bw_fraction(in, x->k);
	double drop = in->lora_dropout ? S_adapters(x, experts, S_drop_group) : 0;
	double ring_f = 0, ring_b = 0;
	if (x->ci > 1 && in->cp_comm == TB_CP_P2P)
		S_ring_merges(x, tok, &ring_f, &ring_b);
	L->cast_w = cast.w;
	double acast_f = 0, acast_b = 0;
	if (x->hw->attention_fp8_fwd_ratio > 0)
		S_attn_casts(x, tok, &acast_f, &acast_b);
	L->mem_f = (ew + rope + eager_f + drop + ring_f) / x->mem_bw +
	           (S_cast_f(in, &cast) + acast_f) / cast_bw;
	L->mem_b = (2 * ew + rope + eager_b + drop + ring_b + cast.w * S_accum_bytes(in)) / x->mem_bw +
	           (S_cast_b(in, &cast) + acast_b) / cast_bw;

	/* the method: frozen matrices' backward is the input gradient's GEMM
	 * alone; adapters run forward and twice that back; forward-only runs
	 * have no backward */
	double ad_f = S_adapters(x, experts, S_adapter_group), dq = S_dequant(x, experts);
	L->fwd = L->mm_f + L->attn_f + L->mem_f + ad_f + dq;
	/* the backward's GEMMs of the same FLOPs as a forward one (perf.h) */
	double gb = x->hw->backward_gemm_ratio > 0 ? x->hw->backward_gemm_ratio : 1;
	switch (in->method) {
	case TB_METHOD_LORA:
	case TB_METHOD_QLORA:
		L->bwd = gb * L->mm_f + L->attn_b + L->mem_b + 2 * ad_f + dq;
		break;
	case TB_METHOD_FROZEN:
		L->bwd = 0;
		break;
	case TB_METHOD_FULL:
	case TB_METHOD_DPO:
	case TB_METHOD_COUNT:
	default:
		L->bwd = 2 * gb * L->mm_f + L->attn_b + L->mem_b;
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
	 * op; DeepSeek-V3's recipe its norms, up-projections and SwiGLU;
	 * Megatron-LM's layernorm and moe modules the norms and an expert
	 * layer's whole block: router, experts, their activation and the
	 * rows' permutation (its dispatch and combine again: S_layer_mode) */
	if (in->selective_policy == TB_SELECTIVE_MOE) {
		double norms = S_norms_bytes(x);
		L->rc_selective = experts ? (L->mm_f - attn_mm) +
		                            (norms + act_elems * ab * (x->nmat + 1) + moe_perm_bytes) / x->mem_bw
		                          : norms / x->mem_bw;
	} else if (in->selective_policy == TB_SELECTIVE_OP)
		L->rc_selective = S_op_recompute(x) + L->mem_f;
	else if (in->selective_policy == TB_SELECTIVE_DEEPSEEK)
		L->rc_selective = S_deepseek_recompute(x, experts ? act_elems : 0);
	else
		L->rc_selective = in->flash_attention ? 0 : L->attn_f;
	L->fwd *= passes_f;
	(void)fwd_only;

	/* tensor parallel: two all-reduces forward, two backward (reduce-
	 * scatter + all-gather under sequence parallelism).  Under fp8
	 * matmuls a column-parallel linear's input is cast before it is
	 * gathered, and a row-parallel one's output gradient before it is
	 * gathered backward: Transformer Engine since v0.10 (2023-06,
	 * layernorm_linear.py, base.py grad_output_preprocess) and torchao's
	 * float8 tensor parallel (Float8ColwiseParallel, PrepareFloat8-
	 * ModuleInput); the reduce-scatters stay 16-bit, and so does a
	 * mixture's expert block, whose tokens are gathered before the
	 * router casts anything.  An expert block has a pair only where
	 * something in it is tensor-parallel: its shared experts (Megatron-
	 * Core's SharedExpertMLP gathers its input and reduce-scatters its
	 * output), or routed experts over an expert tensor group of more
	 * than one (the alltoall dispatcher's AG and RS over expt_tp); with
	 * expert_tensor 1 each rank dispatches its own sequence shard and
	 * nothing is gathered (token_dispatcher.py). */
	double ub_attn_f = 0, ub_attn_b = 0;   /* the attention GEMMs' SM stretch */
	if (x->ti > 1) {
		double bytes = tok * h * ab;
		int64_t g = S_per_node(x, 1, x->ti);
		/* one block's pair: a gather (in fp8 where its linears take
		 * fp8) and a reduce-scatter, or without sequence parallelism
		 * one all-reduce after the block's last GEMM; only the
		 * collectives this layout runs (a search times millions) */
		bool sp = in->sequence_parallel;
		double gather = tb_perf_tp_gather_elem_bytes(in);
		bool fp8_ag = gather < ab;
		double rs = sp || fp8_ag ? S_coll(x, TB_COLL_REDUCE_SCATTER, bytes, x->ti, g) : 0;
		double ag16 = sp ? S_coll(x, TB_COLL_ALL_GATHER, bytes, x->ti, g) : 0;
		L->tp_rs_one = sp ? rs : 0;
		L->tp_one = sp ? rs + ag16 : S_coll(x, TB_COLL_ALL_REDUCE, bytes, x->ti, g);
		double ag = fp8_ag ? S_coll(x, TB_COLL_ALL_GATHER, tok * h * gather, x->ti, g) : ag16;
		double red = fp8_ag || sp ? rs : L->tp_one;
		double lin = ag + red;
		bool moe_pair = x->eti > 1 || x->fs > 0;
		L->moe_tp = experts && moe_pair ? L->tp_one : 0;
		L->tp_layer = lin + (experts ? L->moe_tp : lin);
		L->dense_tp_layer = lin + lin;
		double mag = experts ? (moe_pair ? ag16 : 0) : ag;
		double mred = experts ? (moe_pair ? (sp ? rs : L->tp_one) : 0) : red;
		double attn_col = attn_mm - attn_row;
		/* each overlapped GEMM on the SMs its collective leaves
		 * (Transformer Engine's set_sm_margin: ub_extra of it more, 0
		 * without overlap_tp); an expert block's grouped GEMMs overlap
		 * nothing.  The collectives hide behind the GEMMs as stretched,
		 * so a collective longer than its GEMM costs only its own time */
		static const double none[TB_UB_COUNT];
		const double *u = in->overlap_tp && sp ? in->ub_extra : none;
		double mc = experts ? 0 : mlp_col, mr = experts ? 0 : mlp_row;
		double qf = attn_col * u[TB_UB_QKV_FPROP], of = attn_row * u[TB_UB_PROJ_FPROP];
		double uf = mc * u[TB_UB_FC1_FPROP], df = mr * u[TB_UB_FC2_FPROP];
		double qd = attn_col * u[TB_UB_QKV_DGRAD], od = attn_row * u[TB_UB_PROJ_DGRAD];
		double ud = mc * u[TB_UB_FC1_DGRAD], dd = mr * u[TB_UB_FC2_DGRAD];
		bool base = tb_method_trains_base(in->method);
		double qw = base ? attn_col * u[TB_UB_QKV_WGRAD] : 0, uw = base ? mc * u[TB_UB_FC1_WGRAD] : 0;
		/* backward, the input gradients' reduce-scatters behind the
		 * data-gradient GEMMs, or (no_overlap_tp_dgrad) behind the
		 * weight-gradient ones, which frozen base weights do not run;
		 * the QKV projection's pair left out (no_overlap_tp_qkv) */
		bool bulk = in->no_overlap_tp_dgrad;
		double qkv = in->no_overlap_tp_qkv ? 0 : 1;
		double q_red = bulk ? (base ? gb * (attn_col + qw) : 0) : gb * (attn_col + qd);
		double m_red = bulk ? (base ? gb * (mlp_col + uw) : 0) : gb * (mlp_col + ud);
		L->tp_ovl_f = S_overlap(x, ag, red, qkv * (attn_col + qf), attn_row + of) +
		              S_overlap(x, mag, mred, mlp_col + uf, mlp_row + df);
		L->tp_ovl_b = S_overlap(x, ag, red, gb * (attn_row + od), qkv * q_red) +
		              S_overlap(x, mag, mred, gb * (mlp_row + dd), m_red);
		L->moe_tp_ovl = experts ? S_overlap(x, mag, mred, mlp_col, mlp_row) : 0;
		ub_attn_f = qf + of;
		ub_attn_b = gb * (qd + od + qw);
		L->fwd += passes_f * (ub_attn_f + uf + df);
		if (!fwd_only)
			L->bwd += ub_attn_b + gb * (ud + dd + uw);
	}

	/* context parallel: a ring passes each rank's K and V chunk c-1
	 * times forward, K, V and their gradients backward, behind the
	 * attention core; or (a2a) all-to-alls trade the sequence for heads
	 * before the core and back after it: Q, K and V then the output
	 * forward, the output's gradient then Q's, K's and V's backward, the
	 * same bytes each way, each tensor copied into the exchange's layout
	 * before it and out of it after (Transformer Engine's
	 * flash_attn_a2a_communicate: a read and a write each side), all on
	 * the core's path */
	if (x->ci > 1) {
		int64_t g = S_per_node(x, x->ti, x->ci);
		if (in->cp_comm == TB_CP_A2A) {
			double bytes = x->b * q * (x->hq + x->hk + x->hv + x->H * x->dv) / t * ab;
			L->cp_f = L->cp_b = S_coll(x, TB_COLL_ALL_TO_ALL, bytes, x->ci, g) +
			                    4 * bytes / x->mem_bw;
		} else if (in->cp_comm == TB_CP_ALLGATHER) {
			double local = x->b * q * (x->hk + x->hv) / t * ab, all = x->c * local;
			double ag = S_coll(x, TB_COLL_ALL_GATHER, all, x->ci, g);
			/* forward: the local chunk made contiguous, gathered and
			 * reordered; backward: gathered and reordered again, the
			 * gradients reordered back, reduce-scattered, made
			 * contiguous */
			L->cp_f = ag + (2 * local + 2 * all) / x->mem_bw;
			L->cp_b = ag + S_coll(x, TB_COLL_REDUCE_SCATTER, all, x->ci, g) +
			          (4 * all + 2 * local) / x->mem_bw;
		} else {
			double bytes = x->b * q * (x->hk + x->hv) / t * ab;
			double hop = S_coll(x, TB_COLL_P2P, bytes, 2, g >= x->ci ? 2 : 1);
			L->cp_f = (x->c - 1) * hop;
			L->cp_b = 2 * (x->c - 1) * hop;
		}
	}

	if (experts && x->ei > 1) {
		S_ep_one(x, &L->ep_send, &L->ep_back);
		L->ep_one = L->ep_send + L->ep_back;
		/* the pre-dispatch computation: the attention's GEMMs, the
		 * router's and the core, the norms, residuals and rotation,
		 * forward and backward (the weight gradients where they train) */
		double pre_mm = attn_mm + router;
		double wg = in->method == TB_METHOD_LORA || in->method == TB_METHOD_QLORA ? 1 : 2;
		L->ep_pre_f = pre_mm + L->attn_f + (norms_res + rope) / x->mem_bw + ub_attn_f;
		L->ep_pre_b = wg * gb * pre_mm + L->attn_b + (2 * norms_res + rope) / x->mem_bw + ub_attn_b;
	}
	S_layer_mode(in, x->ti, x->ci, experts ? x->ei : 1, L);
}

/* The vocabulary head's GEMM of M x N x K.  fp8 training leaves the head
 * in 16 bits unless asked (training.fp8_head, S_fp8_head): Megatron-LM builds it as a plain ColumnParallelLinear, not
 * Transformer Engine's (gpt_model.py), torchtitan's float8 configs filter
 * "output" and its MX converter skips it by default, and DeepSeek-V3 keeps
 * the output head in BF16 (arXiv:2412.19437 Sec. 3.3.1). */
static double S_head_mm(const S_ctx *x, double m, double n, double k)
{
	const tb_perf_hw *hw = x->hw;
	if (!(x->in->matmul_bytes < x->in->act_bytes) || !(hw->head_matmul_ceiling > 0))
		return S_mm(x, m, n, k);
	tb_perf_hw h16 = *hw;
	h16.peak_flops = hw->attention_peak_flops;
	h16.matmul_ceiling = hw->head_matmul_ceiling;
	return tb_perf_matmul_s(m, n, k, x->in->act_bytes, &h16, x->k);
}

/* The head under training.fp8_head (Megatron-LM's --fp8-output-proj:
 * Transformer Engine's column-parallel linear under the linear layers'
 * recipe): nf forward and nb backward GEMMs at the fp8 rate, the
 * backward's at the card's backward ratio, and the recipe's casts: the
 * input's forward, the logits' gradient's backward (V/t of them a token,
 * the head's widest cast), the weight's where the recipe recasts it each
 * micro-batch (once a step otherwise: perf.c). */
static double S_fp8_head(const S_ctx *x, double nf, double nb)
{
	const tb_perf_input *in = x->in;
	S_cast c = { 0, 0, 0 };
	double mm = S_lin(x, x->tok, x->V / x->t, x->h, &c);
	double gb = x->hw->backward_gemm_ratio > 0 ? x->hw->backward_gemm_ratio : 1;
	double bw = x->hw->hbm_bytes_per_s * tb_perf_cast_bw_fraction(in, x->k);
	return nf * (mm + S_cast_f(in, &c) / bw) + (nb > 0 ? nb * gb * mm + S_cast_b(in, &c) / bw : 0);
}

/* The layer, then the embedding (first stage: rows read and written,
 * gradient rows accumulated; with tensor parallelism its output is
 * all-reduced) and the logits (last stage: the vocabulary GEMM forward and
 * backward, the fp32 cross-entropy over V/t columns, four passes). */
void tb_perf_layer_all(const S_ctx *x, S_layer *L, const S_layer *dense)
{
	S_layer_time(x, x->moe, L);
	if (tb_perf_dense_count(x->in) > 0 && dense) {
		L->dense_fwd = dense->dense_fwd;
		L->dense_bwd = dense->dense_bwd;
		L->dense_recompute = dense->dense_recompute;
		L->dense_tp = dense->dense_tp;
		L->dense_cp = dense->dense_cp;
		L->dense_tp_keep = dense->dense_tp_keep;
		L->dense_cp_keep = dense->dense_cp_keep;
		L->dense_mm_f = dense->dense_mm_f;
		L->dense_rc_selective = dense->dense_rc_selective;
		L->dense_cast_w = dense->dense_cast_w;
		L->dense_tp_ovl_f = dense->dense_tp_ovl_f;
		L->dense_tp_ovl_b = dense->dense_tp_ovl_b;
	} else if (tb_perf_dense_count(x->in) > 0) {
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
		L->dense_cast_w = D.cast_w;
		L->dense_tp_ovl_f = D.tp_ovl_f;
		L->dense_tp_ovl_b = D.tp_ovl_b;
	}
	double ab = x->in->act_bytes;
	/* the embedding's and the head's weight gradients, added into their
	 * main gradients (V/t rows each) where that is a kernel of its own */
	double accum = x->V * x->h / x->t * S_accum_bytes(x->in) / x->mem_bw;
	L->embed_s = 4 * x->tok * x->h * ab / x->mem_bw + accum;
	L->mtp_proj_s = x->in->mtp_modules > 0 ? 3 * S_mm(x, x->tok, x->h, 2 * x->h) : 0;
	L->embed_tp = x->ti > 1 ? L->tp_one : 0;
	L->logits_s = 0;
	L->logits_tp = 0;
	if (x->V > 0) {
		/* the head's GEMMs: forward, input and weight gradients; a
		 * frozen head has no weight gradient, a forward-only run no
		 * backward, and DPO's reference one more forward; the
		 * cross-entropy's passes likewise */
		double nf = 1, nb = 2, ce = 16;
		switch (x->in->method) {
		case TB_METHOD_LORA: case TB_METHOD_QLORA: nb = 1; break;
		case TB_METHOD_FROZEN: nb = 0; ce = 8; break;
		case TB_METHOD_DPO: nf = 2; ce = 24; break;
		case TB_METHOD_FULL: case TB_METHOD_COUNT: default: break;
		}
		double gemms = x->in->fp8_head ? S_fp8_head(x, nf, nb)
		                               : (nf + nb) * S_head_mm(x, x->tok, x->V / x->t, x->h);
		L->logits_s = gemms + ce * x->tok * x->V / x->t / x->mem_bw + accum;
		L->logits_tp = x->ti > 1 && x->in->sequence_parallel ? L->tp_one : 0;
	}
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
	S_ctx x;
	const char *bad = tb_perf_ctx_checked(&x, in, k);
	if (why)
		*why = bad ? bad : "";
	if (bad)
		return false;
	tb_perf_layer_all(&x, out, dense);
	return true;
}

void tb_perf_layer_mode(const tb_perf_input *in, tb_perf_layer *L)
{
	int64_t ti = tb_perf_at_least_1(in->tensor), ci = tb_perf_at_least_1(in->context);
	int64_t ei = in->experts > 1 ? tb_perf_at_least_1(in->expert) : 1;
	S_layer_mode(in, ti, ci, ei, L);
	if (tb_perf_dense_count(in) <= 0)
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
	D.tp_rs_one = L->tp_rs_one;
	D.tp_layer = L->dense_tp_layer;
	D.tp_ovl_f = L->dense_tp_ovl_f;
	D.tp_ovl_b = L->dense_tp_ovl_b;
	D.cp_f = L->cp_f;
	D.cp_b = L->cp_b;
	S_layer_mode(in, ti, ci, 1, &D);
	L->dense_recompute = D.recompute;
	L->dense_tp = D.tp;
	L->dense_cp = D.cp;
	L->dense_tp_keep = D.tp_keep;
	L->dense_cp_keep = D.cp_keep;
}
