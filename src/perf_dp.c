/* perf_dp.c: the data-parallel reduction of a step under each ZeRO stage
 * and framework's rule, with the overlap rule of perf.h: what the step
 * waits for of the all-reduce, the reduce-scatters and the gathers.  Part
 * of the step-time model (perf.c assembles the step; docs/formulas.md,
 * "Schedule and overlap rule"). */
#include "perf_int.h"

#include <math.h>
#include <string.h>

double tb_perf_zero3_overlap_cost(tb_framework fw, const tb_perf_consts *k)
{
	if (!k)
		k = &tb_perf_fitted;
	return fw == TB_FW_FSDP || fw == TB_FW_MEGATRON ? k->fsdp_overlap_cost : k->zero3_overlap_cost;
}

const char *tb_perf_dp_rule(tb_framework fw, int zero, bool no_sync, int64_t pipeline)
{
	if (tb_fsdp_holds_stage(fw, zero, pipeline))
		return "FSDP under a pipeline schedule (torch.distributed.pipelining): each stage's "
		       "weights gathered once, behind its first forward, and held to the step's end, "
		       "the gradients accumulated unsharded and reduce-scattered once, after the "
		       "stage's last backward, with no compute left to hide behind; what the gather "
		       "hides behind costs fsdp_overlap_cost of its time";
	switch (zero) {
	case 0:
		return "gradients all-reduced once a step";
	case 1:
		return "ZeRO-1 (Megatron-LM's distributed optimizer, DeepSpeed's stage 1): gradients "
		       "reduce-scattered once a step, the updated weights gathered for the next forward";
	case 2:
		if (fw == TB_FW_FSDP)
			return no_sync ? "FSDP SHARD_GRAD_OP with no_sync: the weights gathered for every "
			                 "micro-batch, the gradients reduce-scattered once a step"
			               : "FSDP SHARD_GRAD_OP: the weights gathered for every micro-batch, the "
			                 "gradients reduce-scattered after each backward";
		return no_sync ? "DeepSpeed ZeRO-2 with the reduction once a step: gradients reduce-"
		                 "scattered after the last backward, the weights gathered once"
		               : "DeepSpeed ZeRO-2: gradients reduce-scattered after each micro-batch's "
		                 "backward, the weights gathered once a step";
	default:
		if (fw == TB_FW_FSDP || fw == TB_FW_MEGATRON)
			return "FSDP FULL_SHARD (or Megatron-FSDP): the weights gathered for each forward "
			       "and backward and the gradients reduce-scattered, every micro-batch, "
			       "prefetched on streams of their own; what hides behind compute costs "
			       "fsdp_overlap_cost of its time";
		return "DeepSpeed ZeRO-3: the weights gathered for each forward and backward and the "
		       "gradients reduce-scattered, every micro-batch; what hides behind compute costs "
		       "zero3_overlap_cost of its time";
	}
}

double tb_perf_dp_bucket(tb_framework fw, bool overlap, int zero, int64_t dp_cp, int64_t written,
                         double grad_bytes, const char **basis)
{
	const char *b = "one collective of the whole gradient";
	double n = 0;
	if (zero >= 3) {
		b = "ZeRO-3's collectives, a layer's at a time";
	} else if (!overlap) {
		/* Megatron-LM: "Set bucket_size to infinity if
		 * overlap_grad_reduce is False"; a reduction after the backward
		 * runs whole anywhere */
		b = "one collective of the whole gradient, after the backward";
	} else if (written > 0) {
		n = (double)written;
		b = "parallelism.bucket_size";
	} else if (fw == TB_FW_MEGATRON) {
		n = fmax(40e6, 1e6 * (double)(dp_cp > 1 ? dp_cp : 1));
		b = "Megatron-LM's default, max(40M, 1M x the data-parallel ranks)";
	} else if (fw == TB_FW_FSDP && zero == 0 && grad_bytes > 0) {
		n = 25.0 * 1048576 / grad_bytes;
		b = "PyTorch DDP's default, 25 MiB of gradients";
	}
	if (basis)
		*basis = b;
	return n;
}

bool tb_perf_dp_hidden(const tb_parallelism *pa)
{
	return !pa->no_overlap_dp && pa->cuda_graph != TB_CUDA_GRAPH_FULL_ITERATION;
}

bool tb_perf_cuda_graph_ok(tb_cuda_graph g, tb_framework fw, int zero, const char **why)
{
	const char *w = NULL;
	if (g == TB_CUDA_GRAPH_FULL_ITERATION && fw != TB_FW_ANY && fw != TB_FW_MEGATRON)
		w = "a whole-step graph is Megatron-LM's (--cuda-graph-scope full_iteration); expected "
		    "parallelism.framework megatron, or cuda_graph none or layers";
	else if (g == TB_CUDA_GRAPH_FULL_ITERATION && zero >= 3)
		w = "a whole-step graph is priced over the bucketed reduction of ZeRO 0-2, and ZeRO 3 "
		    "gathers a layer at a time; expected parallelism.zero 0 to 2, or cuda_graph none or layers";
	if (why)
		*why = w ? w : "";
	return w == NULL;
}

double tb_perf_dp_bucket_of(const tb_inputs *in, const char **basis)
{
	const tb_parallelism *pa = &in->parallelism;
	return tb_perf_dp_bucket(pa->framework, !pa->no_overlap_dp, pa->zero, tb_parallelism_dp_cp(pa),
	                         pa->bucket_size, tb_grad_bytes(&in->training), basis);
}

/* A collective of `bytes`, `elem` bytes a weight, run in the framework's
 * buckets (tb_perf_dp_bucket): each its own collective, whose message a
 * rank sends is the bucket's share (the size term of
 * tb_perf_collective_s), one latency each.  A bucket holds whole
 * parameters (Megatron-LM's param_and_grad_buffer closes one after the
 * parameter that fills it), so none is priced below `tensor`, the mean
 * weight tensor it reduces; elem 0: one collective. */
static double S_bucketed(const tb_perf_ctx *x, tb_coll kind, double bytes, double elem,
                         double tensor, int64_t n, int64_t g)
{
	const tb_perf_input *in = x->in;
	double b = tb_perf_dp_bucket(in->framework, in->overlap_dp || in->dp_buckets_unhidden, in->zero,
	                             x->ci * x->di, in->bucket_size, in->grad_bytes, NULL);
	double bucket = (b > 0 ? fmax(b, tensor) : 0) * elem;
	if (!(bucket > 0) || bytes <= bucket)
		return tb_perf_ctx_coll(x, kind, bytes, n, g);
	return bytes / bucket * tb_perf_ctx_coll(x, kind, bucket, n, g);
}

/* What a step pays of `total` seconds of ZeRO-0, 1 and 2's collectives of
 * which the overlap rule leaves `exposed`: that, and fsdp_overlap_cost of
 * what hides.  Hiding is not free under any stage: the collectives'
 * kernels take SMs and HBM bandwidth from the compute beside them (Lee et
 * al. 2025, arXiv:2507.03114: compute overlapped with communication ran
 * 18.9% slower on average on A100, H100, MI250 and MI210), which is what
 * the constant fitted on FSDP's ZeRO-3 rows measures. */
static double S_paid(const tb_perf_consts *k, double total, double exposed)
{
	return exposed + k->fsdp_overlap_cost * tb_perf_max0(total - exposed);
}

/* A dense gradient of `bytes` reduce-scattered over the shard group of
 * n_sh ranks (g_sh a node), its shard then all-reduced over the n_rep
 * replica groups, ranks n_sh apart (HSDP; n_rep 1: nothing more). */
static double S_dense_reduce(const tb_perf_ctx *x, double bytes, double elem, double tensor,
                             int64_t n_sh, int64_t g_sh, int64_t n_rep)
{
	return S_bucketed(x, TB_COLL_REDUCE_SCATTER, bytes, elem, tensor, n_sh, g_sh) +
	       tb_perf_ctx_coll(x, TB_COLL_ALL_REDUCE, bytes / (double)n_sh, n_rep,
	                        tb_perf_ctx_per_node(x, x->ti * n_sh, n_rep));
}

void tb_perf_dp(const tb_perf_ctx *x, const tb_perf_dp_in *a, tb_perf_dp_out *o)
{
	const tb_perf_input *in = x->in;
	const tb_perf_consts *k = x->k;
	memset(o, 0, sizeof *o);
	double dense = a->dense, expert = a->expert, gdense = a->gdense, gexpert = a->gexpert;
	double nb = a->layers, dm = a->microbatches;
	int64_t n_dp = x->ci * x->di;
	int64_t n_edp = tb_perf_at_least_1(x->ti * n_dp / (x->eti * x->ei));
	int64_t g_dp = tb_perf_ctx_per_node(x, x->ti, n_dp);
	/* HSDP: ZeRO over a shard group of n_sh ranks, then its gradient
	 * shard all-reduced over the n_dp / n_sh groups, ranks n_sh apart */
	int64_t n_sh = in->zero >= 1 && in->shard_group > 0 && in->shard_group < n_dp
	               ? in->shard_group : n_dp;
	int64_t g_sh = tb_perf_ctx_per_node(x, x->ti, n_sh);
	int64_t n_rep = n_dp / n_sh;
	int64_t g_edp = tb_perf_ctx_per_node(x, x->eti * x->ei, n_edp);
	double fwd_mb = a->fwd_mb, bwd_mb = a->bwd_mb;
	double dp = 0, dp_one = 0, dp_total = 0;
	/* what ZeRO-3's hidden collectives still cost: FSDP's and
	 * Megatron-FSDP's prefetching streams, or DeepSpeed's */
	double oc = tb_perf_zero3_overlap_cost(in->framework, k);
	bool held = tb_fsdp_holds_stage(in->framework, in->zero, x->pi);
	if (n_dp > 1) {
		/* torchao's per-tensor fp8 gathers the linear layers' weights in
		 * fp8 (Float8Linear's all-gather); the embedding and the head are
		 * no linear layers of it and go in 16 bits, and so do a mixture's
		 * grouped experts (no nn.Linear for torchao to convert), which
		 * Megatron-LM's fp8 parameters hold in fp8 (pbe) */
		double gb = in->grad_bytes, pb = in->fp8_gather ? fmin(1, in->param_bytes) : in->param_bytes;
		double pbe = in->te_casts ? pb : in->param_bytes;
		/* every weight the stage runs, as ZeRO-3 gathers it */
		double wall = (dense - a->extras) * pb + expert * pbe + a->extras * in->param_bytes;
		/* only the collectives this stage uses: a search times millions */
		double ar = 0, rs = 0, ag = 0;
		/* the mean trained weight tensor a bucket cannot split: a layer's
		 * four dense matrices (QKV, output, MLP in and out; LoRA's two
		 * adapters of two targets alike), an expert's two */
		double nl = nb > 0 ? nb : 1;
		double td = gdense / (4 * nl);
		double te = x->moe && x->E > 0 ? gexpert / (2 * nl * fmax(1, x->E / x->e)) : 0;
		if (in->zero == 0) {
			ar = S_bucketed(x, TB_COLL_ALL_REDUCE, gdense * gb, gb, td, n_dp, g_dp) +
			     S_bucketed(x, TB_COLL_ALL_REDUCE, gexpert * gb, gb, te, n_edp, g_edp);
		} else {
			rs = S_dense_reduce(x, gdense * gb, gb, td, n_sh, g_sh, n_rep) +
			     S_bucketed(x, TB_COLL_REDUCE_SCATTER, gexpert * gb, gb, te, n_edp, g_edp);
			/* ZeRO-1 and 2 gather what the optimizer updated; ZeRO-3
			 * every weight it runs, frozen ones too */
			double ad = in->zero >= 3 ? dense : gdense, ae = in->zero >= 3 ? expert : gexpert;
			double xe = in->zero >= 3 || gdense == dense ? a->extras : 0;
			/* adapters are gathered as they train, not as the
			 * quantized or fp8 base they ride on is stored */
			bool own = in->zero < 3 && tb_method_adapters(in->method);
			double pa = own ? in->trained_bytes : pb, pae = own ? in->trained_bytes : pbe;
			double agd = (ad - xe) * pa + xe * in->param_bytes;
			ag = S_bucketed(x, TB_COLL_ALL_GATHER, agd, ad > 0 ? agd / ad : pa, td, n_sh, g_sh) +
			     S_bucketed(x, TB_COLL_ALL_GATHER, ae * pae, pae, te, n_edp, g_edp);
		}
		/* ZeRO-3's first layer's gather, which nothing before it hides */
		double first = nb > 0 ? ag / nb : ag;
		/* what no compute hides under the overlap: the reduction of
		 * the input embedding's gradient, made last (Megatron-LM's and
		 * PyTorch DDP's buckets follow the backward, so it closes the
		 * last one and nothing is left to run beside it), and the gather
		 * of its weight, read first (Megatron-LM dispatches the first
		 * bucket's in the forward's first pre-hook and waits for it) */
		bool ov = in->overlap_dp;
		double red1 = 0, ag1 = 0;
		if (ov && a->first > 0 && in->zero <= 2) {
			double f = a->first;
			if (in->zero == 0) {
				red1 = tb_perf_ctx_coll(x, TB_COLL_ALL_REDUCE, f * gb, n_dp, g_dp);
			} else {
				/* one bucket: a bucket holds whole parameters
				 * (Megatron-LM's param_and_grad_buffer closes one
				 * after the parameter that fills it) */
				red1 = S_dense_reduce(x, f * gb, 0, 0, n_sh, g_sh, n_rep);
				ag1 = tb_perf_ctx_coll(x, TB_COLL_ALL_GATHER, f * in->param_bytes, n_sh, g_sh);
			}
		}
		/* those collectives as the step's total counts them: they are
		 * the first stage's, so a busier stage without the embedding
		 * adds them to its own (perf.c S_dp_in) where they end the
		 * step, under the overlap (without it they run beside that
		 * stage's own, on other GPUs) */
		double tail = 0;
		o->bytes = (gdense + gexpert) * gb;
		if (held) {
			/* FSDP in a pipeline (tb_fsdp_holds_stage): one gather
			 * behind the stage's first forward, one reduce-scatter
			 * after its last backward, with no compute left beside
			 * it; forward only, the gather alone */
			bool fwd_only = in->method == TB_METHOD_FROZEN;
			double r = fwd_only ? 0 : rs;
			dp_one = dp_total = ag + r;
			if (fwd_only)
				o->bytes = 0;
			if (in->zero >= 3)
				o->bytes += wall;
			double a1 = fwd_only ? 0 : ag1;
			dp = S_paid(k, dp_total, (ov ? fmax(fmax(first, a1), ag - fwd_mb) : ag) + r);
			tail = fwd_only ? 0 : red1 + ag1;
		} else switch (in->method == TB_METHOD_FROZEN ? -1 : in->zero) {
		case -1:
			/* forward only: ZeRO-3's gathers, nothing to reduce */
			if (in->zero >= 3) {
				dp_one = ag;
				dp_total = dm * ag;
				double per = ov ? fmax(first, ag - fwd_mb) : ag;
				per += oc * (ag - per);
				dp = dm * per;
				o->bytes = wall;
			}
			break;
		case 0:
			dp_one = dp_total = ar;
			dp = S_paid(k, ar, ov ? fmax(red1, ar - bwd_mb) : ar);
			tail = red1;
			break;
		case 1:
			dp_one = dp_total = rs + ag;
			dp = S_paid(k, rs + ag, ov ? fmax(red1, rs - bwd_mb) + fmax(ag1, ag - fwd_mb) : rs + ag);
			tail = red1 + ag1;
			break;
		case 2: {
			/* the weights' gather: once a step behind the first
			 * forward; FSDP's SHARD_GRAD_OP keeps them sharded between
			 * steps, so one gather every micro-batch's forward, kept
			 * for its backward */
			bool each = in->framework == TB_FW_FSDP;
			double gathers = each ? dm : 1;
			double ag_x = gathers * (ov ? fmax(ag1, ag - fwd_mb) : ag);
			dp_one = rs + ag;
			dp_total = (in->no_sync ? 1 : dm) * rs + gathers * ag;
			tail = (in->no_sync ? 1 : dm) * red1 + gathers * ag1;
			if (!ov) {
				dp = dp_total;
			} else if (in->no_sync) {
				/* one reduce-scatter, behind the last backward */
				dp = fmax(red1, rs - bwd_mb) + ag_x;
			} else if (x->pi == 1) {
				/* DeepSpeed and FSDP wait for each backward's
				 * reduce-scatter before the next micro-batch */
				dp = dm * fmax(red1, rs - bwd_mb) + ag_x;
			} else {
				/* a pipeline schedule never waits for them: the
				 * reductions queue on their own stream from the
				 * first backward to the step's end (the forwards
				 * after the warm-up, every backward, the drain);
				 * only the last one's overrun of its own
				 * backward, or the queue's overrun of that window,
				 * is exposed (Llama 3 Sec. 3.3.2: FSDP's
				 * per-micro-batch reduce-scatter under an
				 * interleaved schedule) */
				double warm = x->v > 1 ? ((x->v + 1) * x->p - 1) / x->v : x->p;
				double window = dm * bwd_mb + tb_perf_max0(dm - warm) * fwd_mb +
				                a->bubble_s;
				dp = fmax(fmax(red1, rs - bwd_mb), dm * rs - window) + ag_x;
			}
			dp = S_paid(k, dp_total, dp);
			break;
		}
		default: {
			/* ZeRO-3: gather for the forward, again for the backward,
			 * reduce-scatter the gradients, every micro-batch; the
			 * first layer's gather cannot hide */
			dp_one = 2 * ag + rs;
			o->bytes = wall * 2 +
			           (gdense + gexpert) * gb;
			/* what hides still costs: the gathers' kernels take SMs and
			 * HBM bandwidth from the compute they overlap (fitted) */
			if (in->no_sync) {
				/* the gathers every micro-batch, one reduce-scatter */
				dp_total = dm * 2 * ag + rs;
				double per = ov ? fmax(first, ag - fwd_mb) + fmax(first, ag - bwd_mb) : 2 * ag;
				per += oc * (2 * ag - per);
				double last = ov ? tb_perf_max0(rs - bwd_mb) : rs;
				last += oc * (rs - last);
				dp = dm * per + last;
			} else {
				dp_total = dm * dp_one;
				double per = ov ? fmax(first, ag - fwd_mb) + fmax(first, ag + rs - bwd_mb)
				                : 2 * ag + rs;
				per += oc * (dp_one - per);
				dp = dm * per;
			}
			break;
		}
		}
		if (!a->first_held)
			dp_total += tail;
	}
	o->dp = dp;
	o->dp_one = dp_one;
	o->dp_total = dp_total;
	o->n_shard = n_sh;
	o->n_edp = n_edp;
}
