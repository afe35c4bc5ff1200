/* perf_int.h: what the step-time model's files share (perf.c, perf_layer.c,
 * perf_dp.c, and perf_budget.c for the dense-layer count); internal to the
 * library. */
#ifndef TB_PERF_INT_H
#define TB_PERF_INT_H

#include <stdbool.h>
#include <math.h>
#include <stdint.h>

#include "trainbudget/perf.h"

/* The normalized layout and shapes every part below reads. */
typedef struct tb_perf_ctx {
	const tb_perf_input *in;
	const tb_perf_consts *k;
	const tb_perf_hw *hw;
	double t, p, v, c, e, d;        /* layout sizes as doubles */
	double et;                      /* the expert layers' tensor size */
	int64_t ti, ci, ei, di, pi, gpn, eti;
	double b, s, tok;               /* micro-batch, sequence, tokens per GPU */
	double tok_e;                   /* tokens each GPU dispatches to the experts */
	double load;                    /* the busiest expert rank's share over the mean */
	double h, hq, hkv, hk, hv, hd, f, V, E, kt;
	double H, dqk, dv;              /* heads; per head, query-key and value widths */
	double rq, rkv, dn, dr;         /* MLA's latent ranks and head parts */
	double fe, fs;                  /* a routed expert's width, the shared experts' */
	double nmat;                    /* MLP input matrices: 2 gated, 1 plain */
	bool moe, mla;
	double mem_bw;                  /* achieved HBM bytes/s */
} tb_perf_ctx;

static inline double tb_perf_ctx_coll(const tb_perf_ctx *x, tb_coll kind, double bytes,
                                      int64_t n, int64_t per_node)
{
	return tb_perf_collective_s(kind, bytes, n, per_node, x->hw, x->k);
}

/* Members of a group per node, the group's ranks `stride` apart
 * (Megatron-LM's order: tensor innermost, then context, expert, data,
 * pipeline outermost). */
static inline int64_t tb_perf_ctx_per_node(const tb_perf_ctx *x, int64_t stride, int64_t n)
{
	if (stride < 1)
		stride = 1;
	int64_t g = x->gpn / stride;
	return g < 1 ? 1 : g > n ? n : g;
}

static inline bool tb_perf_pos(double v)
{
	return v > 0 && isfinite(v);
}

static inline double tb_perf_max0(double v)
{
	return v > 0 ? v : 0;
}

static inline int64_t tb_perf_clamp(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static inline int64_t tb_perf_at_least_1(int64_t v)
{
	return v > 1 ? v : 1;
}

/* perf.c: the normalized layout every part reads, from an input already
 * checked, or checked here first (k NULL: tb_perf_fitted); NULL, or why
 * the input cannot be timed.  The attention's weights split over the
 * tensor ranks and whole on each; a layer's dense and expert parameters
 * on one GPU; a mixture's leading dense layers (0 for a dense model) */
const char *tb_perf_ctx_init(tb_perf_ctx *x, const tb_perf_input *in, const tb_perf_consts *k);
const char *tb_perf_ctx_checked(tb_perf_ctx *x, const tb_perf_input *in, const tb_perf_consts *k);
void tb_perf_attn_weights(const tb_perf_ctx *x, double *split, double *whole);
void tb_perf_layer_params(const tb_perf_ctx *x, bool experts, double *dense, double *expert);
int64_t tb_perf_dense_count(const tb_perf_input *in);
/* The bytes an element of a linear's sequence-parallel all-gather moves:
 * the matmuls' fp8 under fp8 (Transformer Engine and torchao cast before
 * gathering), else the activations' 16 bits (docs/formulas.md) */
double tb_perf_tp_gather_elem_bytes(const tb_perf_input *in);

/* perf_layer.c: the layer of x's kind (an expert layer of a mixture), its
 * leading dense layers (taken from `dense` when not NULL), the embedding
 * and the logits */
void tb_perf_layer_all(const tb_perf_ctx *x, tb_perf_layer *L, const tb_perf_layer *dense);

/* One step's data-parallel work on the busiest stage: its parameters
 * (dense, routed experts') as gathered, those that get gradients, its
 * layers, micro-batches, one micro-batch's forward and backward (with
 * recomputation) and the bubble, the window a pipeline's reductions may
 * queue in. */
typedef struct tb_perf_dp_in {
	double dense, expert, gdense, gexpert;
	double first;           /* the input embedding's trained weights (S_dp_in) */
	double extras;          /* the embedding and head weights this stage holds, in dense:
	                         * gathered in 16 bits even where the linear layers' go in fp8 */
	bool first_held;        /* ... held by this stage, in gdense */
	double layers, microbatches;
	double fwd_mb, bwd_mb, bubble_s;
} tb_perf_dp_in;

typedef struct tb_perf_dp_out {
	double dp;              /* exposed */
	double dp_one;          /* one step's reduction (ZeRO-3: one micro-batch's, but held) */
	double dp_total;        /* every collective of the step, before overlap */
	double bytes;           /* what they move */
	int64_t n_shard, n_edp; /* ranks the dense and the expert states are sharded over */
} tb_perf_dp_out;

void tb_perf_dp(const tb_perf_ctx *x, const tb_perf_dp_in *a, tb_perf_dp_out *o);

#endif
