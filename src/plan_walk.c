/* plan_walk.c: the loops of the layout search over one card and batch
 * (plan_int.h; docs/plan.md, "Speed"): every count, tensor size,
 * sequence parallelism, checkpointing, context, expert, pipeline,
 * micro-batch, ZeRO stage and virtual split, each candidate counted under
 * the first rule it breaks, the ones that fit timed unless the bound on
 * their whole layer shape or their own floor already loses. */
#include "plan_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/xalloc.h"

/* One GPU count of a card and batch: its divisors, the interleaving rule
 * of each pipeline size among them, the constants of its floor. */
typedef struct S_count {
	int64_t N;
	int ni, nt;
	bool here;              /* the scenario's card, count and batch */
	/* days and objective per second of step on this card, count and
	 * batch (a constant: the steps of the run, times GPUs and price for
	 * cost), from the first layout timed */
	double k_sec, k_obj;
	int64_t ts[TB_PLAN_DIVS_MAX];
	uint64_t vok_of[TB_PLAN_DIVS_MAX];    /* bit v: v virtual stages split the layers */
} S_count;

/* The divisors of n's count over x (x one of its divisors), ascending,
 * into out: those of the count's own that x times them divides, as
 * tb_plan_divisors would list them (which it does where the count's list
 * was cut at TB_PLAN_DIVS_MAX). */
static int S_divisors_over(const S_count *n, int64_t x, int64_t *out)
{
	if (n->nt >= TB_PLAN_DIVS_MAX)
		return tb_plan_divisors(n->N / x, out, TB_PLAN_DIVS_MAX);
	int64_t q = n->N / x;
	int k = 0;
	for (int j = 0; j < n->nt && n->ts[j] <= q; j++)
		if (q % n->ts[j] == 0)
			out[k++] = n->ts[j];
	return k;
}

/* What a step adds to its floor at most (tb_perf_extras_max) for a GPU
 * count, pipeline and ZeRO stage of the (context, expert) walked, which no
 * checkpointing mode changes: kept for the three. */
typedef struct S_extras_slot {
	unsigned gen;
	int z;
	int64_t N, p;
	signed char ok;
	tb_perf_extras e;
} S_extras_slot;

#define S_EXTRAS_SLOTS 1024

/* What one ticket's loops share below its tensor size. */
typedef struct S_walk {
	tb_plan_state *st;
	const tb_plan_card *cd;
	tb_plan_counts *k;
	tb_plan_pmemo *pmemo;
	int64_t B, t;
	uint64_t V;
	S_count *n;             /* the count walked */
	const int64_t *bs;
	int nb;
	int64_t *vlist;         /* the virtual splits a pipeline allows */
	int *pairs;             /* [4 x vlist]: (ZeRO, split) pairs not past the card */
	int *alive;             /* [vlist]: ZeRO stages of the split not past it */
	unsigned *zmask;        /* [vlist]: which, for S_count_only */
	/* one layer's time per checkpointing mode and micro-batch of the
	 * (sequence parallelism, context, expert) walked: made when a
	 * candidate of that micro-batch first fits, for every pipeline of
	 * every count, from the micro-batch's base (what no mode changes,
	 * timed once for the three: tb_perf_layer_mode) */
	tb_perf_layer *layer;           /* [3 x nb] */
	signed char *layer_state;       /* [3 x nb]: 0 not made, 1 made, -1 refused */
	int layers_made[3];             /* per mode, the layer_state not 0 */
	tb_perf_layer *base;            /* [nb] */
	signed char *base_state;        /* [nb] */
	/* per micro-batch, a layer of the (context) walked at any expert
	 * size, whose dense layers serve the others (dense_from[b] set) */
	int *dense_from;
	tb_perf_layer *dense;
	/* the busiest stage's time per (micro-batch, pipeline) of the
	 * (context, expert) walked, which the floor of every count takes */
	struct S_stage_slot *stage;
	unsigned stage_gen;
	/* what a step adds to its floor at most, per (count, pipeline, ZeRO
	 * stage) of the (context, expert) walked (S_extras) */
	struct S_extras_slot *extras, extras_spare;
	/* per checkpointing mode, the bound per sequence of every candidate
	 * of the (context, expert) walked whose layer is not yet timed
	 * (S_shape_ruled_out): 0 not made, 1 made, -1 none; and per mode and
	 * count whether the bars rule it out */
	signed char shape_state[3];
	double shape_s[3];
	unsigned char *shape_out;       /* [3 x counts] */
	const S_count *cc;
	int ncounts;
	int64_t *cu;            /* [counts x TB_PLAN_DIVS_MAX]: S_walk_ts's context sizes */
	/* what no mode changes of it: the layer at the largest micro-batch
	 * (0 not made, 1 made, -1 refused) */
	signed char shape_base_state;
	int64_t shape_bmax;
	/* the largest micro-batch any pipeline of any count allows at the
	 * (tensor, context) walked, which no expert size changes: 0 not
	 * made, -1 none */
	int64_t bmax_c;
	/* per count, the pipelines of the (tensor, context) walked (its
	 * divisors over t c): [counts x TB_PLAN_DIVS_MAX], made once a
	 * context for its expert sizes and modes; np_c[count] -1 where the
	 * context does not divide the count */
	int64_t *ps_c;
	int *np_c;
	tb_perf_layer shape_base;
	/* a layer made for the bound at the context walked, whose dense
	 * layers serve its other expert sizes (at the same bmax) */
	bool shape_dense_ok;
	int64_t shape_dense_b;
	tb_perf_layer shape_dense;
	/* per divisor x of B (its index in bs): the micro-batches b with
	 * x b dividing B that the layout's fixed micro-batch allows, as
	 * indices into bs, made when first asked (S_bs_of) */
	int *bx_at, *bx_len;            /* [nb]: into bx_pool; at -1 not made */
	int *bx_pool;
	size_t bx_used, bx_cap;
	int fixed_out;                  /* micro-batches the fixed one rules out */
	/* the card's perf input, copied once; a pipeline sets its layout's
	 * fields (tb_plan_perf_fields) where it first needs it */
	tb_perf_input pin;
	/* S_count_only: one split's activations per micro-batch, made when
	 * first asked (act_gen) */
	double (*act)[3];
	unsigned *act_gen, act_at;
} S_walk;

#define S_STAGE_SLOTS 4096

typedef struct S_stage_slot {
	unsigned gen;           /* the (context, expert) it was made under */
	int bi;                 /* the layer: checkpointing x micro-batches + micro-batch */
	int64_t p;
	double stage_s;
} S_stage_slot;

/* tb_perf_stage_s of the layer of micro-batch and mode bi (index x 3 +
 * checkpointing) under pipeline p, kept for the other counts (computed
 * when the table is three-quarters full). */
static inline double S_stage_of_p(S_walk *w, int bi, int64_t p, const tb_perf_input *pin,
                           const tb_perf_layer *layer)
{
	if (!w->stage)          /* one count: each is met once */
		return tb_perf_stage_s(pin, NULL, layer);
	uint64_t h = ((uint64_t)bi * 0x9E3779B97F4A7C15u) ^ ((uint64_t)p * 0xC2B2AE3D27D4EB4Fu);
	unsigned i = (unsigned)(h >> 40) & (S_STAGE_SLOTS - 1);
	for (unsigned probe = 0; probe < S_STAGE_SLOTS / 4; probe++) {
		S_stage_slot *s = &w->stage[i];
		if (s->gen != w->stage_gen) {
			s->gen = w->stage_gen;
			s->bi = bi;
			s->p = p;
			s->stage_s = tb_perf_stage_s(pin, NULL, layer);
			return s->stage_s;
		}
		if (s->bi == bi && s->p == p)
			return s->stage_s;
		i = (i + 1) & (S_STAGE_SLOTS - 1);
	}
	return tb_perf_stage_s(pin, NULL, layer);
}

/* The floor of pin's candidates from layer (kept under key: S_stage_of_p)
 * at up to vmax virtual stages. */
static inline double S_floor(S_walk *w, int key, tb_perf_input *pin, const tb_perf_layer *layer,
                      int64_t vmax)
{
	double stage_s = S_stage_of_p(w, key, pin->pipeline, pin, layer);
	int64_t v = pin->virtual_pipeline;
	pin->virtual_pipeline = vmax;
	double floor_s = tb_perf_step_floor_from_s(pin, stage_s);
	pin->virtual_pipeline = v;
	return floor_s;
}

/* Whether a floor rules out the candidates of its micro-batch: the bars
 * only fall, so a floor they rule out stays out for the rest of it
 * (*out). */
static inline bool S_ruled_out(const S_walk *w, double floor_s, bool *out)
{
	if (!(floor_s > 0))
		return false;
	const S_count *n = w->n;
	if (!*out && tb_plan_may_place(w->st, w->cd->index, n->ni, n->here, floor_s * n->k_obj,
	                               floor_s * n->k_sec))
		return false;
	*out = true;
	return true;
}

/* The bound of mode ck's shape, made (shape_state 1): whether it rules out
 * a candidate of the count walked whose m b / p is mbs b / p. */
static bool S_shape_bound_out(S_walk *w, int ck, int64_t p, int64_t mbs, int64_t b,
                              unsigned char *ruled)
{
	/* m b / p is B t c / N, whatever the pipeline and micro-batch */
	double bound_s = (double)mbs * (double)b / (double)p * w->shape_s[ck] * (1 - 1e-9);
	bool out = false;
	if (!S_ruled_out(w, bound_s, &out))
		return false;
	*ruled = 1;
	return true;
}

/* Whether every candidate of the (context, expert) walked, under pin's
 * checkpointing mode and on the count walked, is ruled out before its
 * layer is timed (*ruled: that count's flag).  p ranks share a micro-batch's pass through every layer,
 * the embedding and the head, W (tb_perf_stage_s at p = 1), so the busiest
 * rank's stage is at least W / p and any split's floor, m stage passes and
 * the bubble, at least m W(b) / p.  A layer's time per sequence does not
 * grow with the micro-batch b: its matmuls' overhead share (1 + d0/m)
 * falls, a collective's latency and chunk rule and a fixed cost are spread
 * over more tokens, the rest is linear in them, and what hides one part
 * behind another (sums, max, min) grows with its parts and is linear in
 * them together; so W(b) / b falls too (tests/test_perf_layer.c checks it).
 * With m b / p = B t c / N for every pipeline and micro-batch, every
 * candidate's floor is at least B t c / N x W(bmax) / bmax, bmax the
 * largest micro-batch any pipeline of any count allows: one layer timed
 * bounds the shape's every pipeline, micro-batch, ZeRO stage and split.
 * Not where part of the layers is recomputed, whose count per rank the
 * split sets.  The bars only fall, so once ruled out it stays so. */
static bool S_shape_ruled_out(S_walk *w, tb_perf_input *pin, int64_t p, int64_t mbs, int64_t b,
                              unsigned char *ruled)
{
	int ck = (int)pin->checkpointing;
	if (w->shape_state[ck] < 0)
		return false;
	if (w->shape_state[ck] == 0) {
		w->shape_state[ck] = -1;
		if (pin->recompute_layers > 0 && pin->checkpointing == TB_CKPT_FULL)
			return false;
		int64_t b0 = pin->micro_batch, p0 = pin->pipeline, v0 = pin->virtual_pipeline;
		if (w->shape_base_state == 0) {
			/* the deepest pipeline the count allows sets the smallest
			 * data-parallel group d, and so the largest micro-batch:
			 * d b divides B, so b <= B / d */
			w->shape_base_state = -1;
			if (w->bmax_c == 0) {
				int64_t L = w->st->in->model.layers, tc = w->t * pin->context, bmax = 0;
				for (int ni = 0; ni < w->ncounts; ni++) {
					int64_t N = w->cc[ni].N;
					if (N % tc)
						continue;
					int64_t ps[TB_PLAN_DIVS_MAX], pmax = 1;
					int np = tb_plan_divisors(N / tc, ps, TB_PLAN_DIVS_MAX);
					for (int i = 0; i < np; i++)
						if (ps[i] <= L)
							pmax = ps[i];
					int64_t dmin = N / tc / pmax;
					for (int i = 0; i < w->nb; i++)
						if (w->bs[i] <= w->B / dmin && w->bs[i] > bmax)
							bmax = w->bs[i];
				}
				w->bmax_c = bmax > 0 ? bmax : -1;
			}
			int64_t bmax = w->bmax_c > 0 ? w->bmax_c : 0;
			if (bmax > 0) {
				pin->micro_batch = bmax;
				const tb_perf_layer *dl = w->shape_dense_ok && w->shape_dense_b == bmax
				                          ? &w->shape_dense : NULL;
				if (tb_perf_layer_time_reuse(pin, NULL, dl, &w->shape_base, NULL)) {
					w->shape_base_state = 1;
					w->shape_bmax = bmax;
					if (!dl) {
						w->shape_dense = w->shape_base;
						w->shape_dense_b = bmax;
						w->shape_dense_ok = true;
					}
				}
				pin->micro_batch = b0;
			}
		}
		if (w->shape_base_state < 0)
			return false;
		tb_perf_layer layer = w->shape_base;
		pin->micro_batch = w->shape_bmax;
		tb_perf_layer_mode(pin, &layer);
		pin->pipeline = 1;
		pin->virtual_pipeline = 1;
		double W = tb_perf_stage_s(pin, NULL, &layer);
		pin->micro_batch = b0;
		pin->pipeline = p0;
		pin->virtual_pipeline = v0;
		if (!(W > 0 && W < HUGE_VAL))
			return false;
		w->shape_s[ck] = W / (double)w->shape_bmax;
		w->shape_state[ck] = 1;
	}
	return S_shape_bound_out(w, ck, p, mbs, b, ruled);
}

static const tb_perf_extras *S_extras(S_walk *w, const tb_perf_input *pin)
{
	int64_t N = w->n->N, p = pin->pipeline;
	int z = pin->zero;
	if (!w->extras)         /* made when first asked: most walks never do */
		w->extras = tb_xcalloc(S_EXTRAS_SLOTS, sizeof *w->extras);
	uint64_t h = ((uint64_t)N * 0x9E3779B97F4A7C15u) ^ ((uint64_t)p * 0xC2B2AE3D27D4EB4Fu) ^ (uint64_t)z;
	unsigned i = (unsigned)(h >> 40) & (S_EXTRAS_SLOTS - 1);
	for (unsigned probe = 0; probe < S_EXTRAS_SLOTS / 4; probe++) {
		S_extras_slot *s = &w->extras[i];
		if (s->gen != w->stage_gen) {
			s->gen = w->stage_gen;
			s->N = N;
			s->p = p;
			s->z = z;
			s->ok = tb_perf_extras_max(pin, NULL, &s->e);
			return s->ok ? &s->e : NULL;
		}
		if (s->N == N && s->p == p && s->z == z)
			return s->ok ? &s->e : NULL;
		i = (i + 1) & (S_EXTRAS_SLOTS - 1);
	}
	w->extras_spare.ok = tb_perf_extras_max(pin, NULL, &w->extras_spare.e);
	return w->extras_spare.ok ? &w->extras_spare.e : NULL;
}

/* The ceiling of pin's step from its timed layer; 0: none. */
static double S_ceiling(S_walk *w, int li, tb_perf_input *pin, const tb_perf_layer *layer)
{
	const tb_perf_extras *e = S_extras(w, pin);
	if (!e)
		return 0;
	double stage_s = S_stage_of_p(w, li, pin->pipeline, pin, layer);
	return tb_perf_step_ceiling_from_s(pin, stage_s, e);
}

/* The memory of a pipeline's split i under ZeRO stage z at micro-batch bs[bi],
 * as S_walk_pipeline's loop sums it. */
static double S_count_bytes(S_walk *w, tb_plan_mem *mem, const tb_mem_fit *fit, int64_t p,
                            int64_t v, int i, int bi)
{
	int64_t b = w->bs[bi];
	if (i >= TB_PLAN_ACT_V) {
		memcpy(mem->c.states, fit->states, sizeof mem->c.states);
		return tb_plan_mem_total(mem, v, b);
	}
	if (w->act_gen[bi] != w->act_at) {
		w->act_gen[bi] = w->act_at;
		mem->c.v = p > 1 ? v : 1;
		tb_memory_stage_act(&mem->c, b, w->act[bi]);
	}
	return tb_memory_fit_sum(fit, w->act[bi], NULL);
}

/* How many of the n micro-batches bi[] (ascending) S_walk_pipeline's loop
 * finds within the card for split i under ZeRO stage z: the ones it sums
 * before the first past the card by more than rounding.  Memory is
 * non-decreasing in the micro-batch (calc.h) and a sum's rounding is far
 * below 1e-9 of it, so a micro-batch whose sum is under the card by more
 * than 1e-9 has every smaller one within the card: the last such is
 * found by bisection, and the loop's own test runs from the next one on.
 * The bisection needs no monotony to end: whatever pair it stops at, the
 * argument holds for the lower one. */
static uint64_t S_count_fits(S_walk *w, tb_plan_mem *mem, const tb_mem_fit *fit, int64_t p,
                             int64_t v, int i, const int *bi, int n, double cap)
{
	int lo = -1, hi = n;
	double hi_bytes = 0;
	while (hi - lo > 1) {
		int mid = lo + (hi - lo) / 2;
		double bytes = S_count_bytes(w, mem, fit, p, v, i, bi[mid]);
		if (bytes <= cap * (1 - 1e-9)) {
			lo = mid;
		} else {
			hi = mid;
			hi_bytes = bytes;
		}
	}
	uint64_t fits = (uint64_t)(lo + 1);
	for (int j = lo + 1; j < n; j++) {
		/* the first is the bisection's upper end, already summed */
		double bytes = j == hi ? hi_bytes : S_count_bytes(w, mem, fit, p, v, i, bi[j]);
		if (bytes <= cap)
			fits++;
		else if (bytes > cap * (1 + 1e-9))
			break;
	}
	return fits;
}

/* The micro-batches b of bs, ascending, with x b dividing B (so that B / (x
 * b) micro-batches of b make the batch over x replicas) and allowed by a
 * fixed micro-batch: for x the data-parallel size they pass the batch
 * rule, for x the data-parallel size times the pipeline they also make a
 * multiple of the pipeline's micro-batches (every virtual split).  Made
 * once a batch per x; where they start in bx_pool, which the next one
 * made may move. */
static size_t S_bs_of(S_walk *w, int64_t x, int *n)
{
	if (x <= 0 || w->B % x) {
		*n = 0;
		return 0;
	}
	int xi = tb_plan_index_of(w->bs, w->nb, x);
	if (w->bx_at[xi] < 0) {
		const tb_plan_space *fx = w->st->sp;
		if (w->bx_cap - w->bx_used < (size_t)w->nb) {
			w->bx_cap = 2 * w->bx_cap + (size_t)w->nb;
			w->bx_pool = tb_xrealloc(w->bx_pool, w->bx_cap * sizeof *w->bx_pool);
		}
		int len = 0, *out = &w->bx_pool[w->bx_used];
		int64_t q = w->B / x;
		for (int bi = 0; bi < w->nb; bi++)
			if (q % w->bs[bi] == 0 &&
			    !((fx->fix & TB_LAYOUT_MICRO_BATCH) && w->bs[bi] != fx->fix_micro_batch))
				out[len++] = bi;
		w->bx_at[xi] = (int)w->bx_used;
		w->bx_len[xi] = len;
		w->bx_used += (size_t)len;
	}
	*n = w->bx_len[xi];
	return (size_t)w->bx_at[xi];
}

/* S_walk_pipeline's counts where the bound has ruled the shape out on this
 * count and no micro-batch's layer of the mode is timed: every candidate
 * that fits is counted feasible untimed, so only the counts are made, each
 * (ZeRO, split) pair's from its own bisection (S_count_fits) rather than a
 * sum per micro-batch.  ok[] are the micro-batches left (ascending), every[]
 * those of them that allow every split; zmask[i] the ZeRO stages of split i
 * not yet past the card (the others are past it at each micro-batch left).
 * The same counts as the loop's. */
static void S_count_only(S_walk *w, tb_plan_mem *mem, const tb_mem_fit fit[4],
                         const unsigned *zmask, int nz, const int64_t *vlist, int nv_all,
                         int nv_one, int64_t p, const int *ok, int nok, const int *every,
                         int nevery, double cap)
{
	tb_plan_counts *k = w->k;
	uint64_t V = w->V;
	/* the rules' count, as the loop adds it a micro-batch at a time: of
	 * 4 V candidates, nz x nv pass */
	uint64_t nv_sum = (uint64_t)nevery * (uint64_t)nv_all + (uint64_t)(nok - nevery) * (uint64_t)nv_one;
	k->rules += (uint64_t)nok * 4 * V - (uint64_t)nz * nv_sum;
	if (nz == 0)
		return;
	for (int i = 0; i < nv_all; i++) {
		/* split i is summed where the micro-batch allows i + 1 splits:
		 * the first wherever one is allowed */
		const int *bi = i == 0 && nv_one > 0 ? ok : every;
		int n = i == 0 && nv_one > 0 ? nok : nevery;
		if (n == 0)
			continue;
		k->memory += (uint64_t)(nz - __builtin_popcount(zmask[i])) * (uint64_t)n;
		if (!zmask[i])
			continue;
		w->act_at++;
		for (int z = 0; z < 4; z++)
			if (zmask[i] >> z & 1) {
				uint64_t fits = S_count_fits(w, mem, &fit[z], p, vlist[i], i, bi, n, cap);
				k->feasible += fits;
				k->memory += (uint64_t)n - fits;
			}
	}
}

/* Every micro-batch, ZeRO stage and virtual split of one (tensor, sequence
 * parallelism, checkpointing, context, expert, pipeline), d = N / (t c p)
 * its data-parallel size: what the pipeline fixes of the memory is
 * computed once, before the micro-batches. */
static void S_walk_pipeline(S_walk *w, bool sp, tb_checkpointing ck, int64_t c, int64_t e,
                            int64_t p, int64_t d)
{
	tb_plan_state *st = w->st;
	const tb_plan_card *cd = w->cd;
	const tb_plan_space *fx = st->sp;
	tb_plan_counts *k = w->k;
	const S_count *n = w->n;
	int64_t t = w->t, N = n->N, B = w->B;
	int64_t L = st->in->model.layers, shard = st->in->parallelism.shard_group;
	uint64_t V = w->V, per_p = 4 * V;      /* ZeRO stages x virtual stages */
	double cap = cd->g->gpu.memory_bytes;
	/* expert groups are carved from data x context, and so is an HSDP
	 * shard group */
	if (p > L || (e > 1 && (d * c) % e) || (shard > 0 && (d * c) % shard) ||
	    (fx->max_pipeline > 0 && p > fx->max_pipeline) ||
	    ((fx->fix & TB_LAYOUT_PIPELINE) && p != fx->fix_pipeline)) {
		k->rules += (uint64_t)w->nb * per_p;
		return;
	}
	/* whether the bound of the whole shape rules out this count's
	 * candidates under this mode (S_shape_ruled_out): where the counts
	 * are not wanted and no layer of the mode is timed, nothing of the
	 * pipeline is */
	unsigned char *ruled = &w->shape_out[(int)ck * w->ncounts + n->ni];
	if (fx->best_only && *ruled && n->k_sec > 0 && w->layers_made[ck] == 0) {
		k->skipped += (uint64_t)w->nb * per_p;
		return;
	}
	/* the ZeRO stages: nothing to shard without replicas; ZeRO-3
	 * re-gathers every micro-batch, which no pipeline engine does, but
	 * FSDP's holds the stage gathered (tb_fsdp_holds_stage); the
	 * framework's own */
	unsigned zok = 0;
	int nz = 0;
	for (int z = 0; z < 4; z++) {
		if ((z > 0 && d * c == 1) ||
		    (z == 3 && p > 1 && !tb_fsdp_holds_stage(cd->base.framework, z, p)) ||
		    !tb_perf_framework_zero_ok(cd->base.framework, z, p, NULL) ||
		    !tb_perf_cuda_graph_ok(cd->in.parallelism.cuda_graph, cd->base.framework, z, NULL) ||
		    /* Megatron-LM's fp8 parameters need its distributed
		     * optimizer (or Megatron-FSDP) over the replicas */
		    (z == 0 && d * c > 1 && tb_fp8_params(&cd->in)) ||
		    (fx->zero_stages && !(fx->zero_stages & (1u << z))) ||
		    ((fx->fix & TB_LAYOUT_ZERO) && z != fx->fix_zero))
			continue;
		zok |= 1u << z;
		nz++;
	}
	/* Megatron-LM's interleaving: a pipeline, whole layers per virtual
	 * stage (the embedding and loss may count as one), micro-batches a
	 * multiple of the stages (else v = 1 alone, the list's first when
	 * allowed).  No split past L + 2 chunks passes. */
	uint64_t vok = n->vok_of[tb_plan_index_of(n->ts, n->nt, p)];
	int64_t *vlist = w->vlist;
	int nv_all = 0;
	int64_t vend = p == 1 ? 1 : st->vmax < L + 2 ? st->vmax : L + 2;
	const tb_pipe_layout *pl = &st->in->parallelism.layout;
	if (pl->pipeline == p && pl->virtual_pipeline > vend)
		vend = pl->virtual_pipeline;
	for (int64_t v = 1; v <= vend; v++)
		if ((v < 64 ? (vok >> v & 1) : tb_perf_split_ok(pl, L, p, v)) &&
		    !((fx->fix & TB_LAYOUT_VIRTUAL) && v != fx->fix_virtual))
			vlist[nv_all++] = v;
	int nv_one = nv_all > 0 && vlist[0] == 1;

	/* a search for the best alone asks the bound of the whole shape
	 * before it sums any memory: what the bound rules out is skipped
	 * whether it fits or not, and no count is kept to tell them apart
	 * (m b / p = B / (d p) whatever the micro-batch); where the mode's
	 * bound is made, before the layout is even set up */
	bool bound_first = fx->best_only && !*ruled && n->k_sec > 0 && w->layers_made[ck] == 0 &&
	                   nz > 0 && nv_all > 0 && B % d == 0;
	if (bound_first && w->shape_state[ck] > 0 && S_shape_bound_out(w, (int)ck, p, B / d, 1, ruled)) {
		k->skipped += (uint64_t)w->nb * per_p;
		return;
	}

	tb_plan_layout l0;
	memset(&l0, 0, sizeof l0);
	l0.tensor = t; l0.pipeline = p; l0.virtual_pipeline = 1;
	l0.context = c; l0.expert = e; l0.data = d;
	l0.checkpointing = ck; l0.sequence_parallel = sp;
	l0.recompute_layers = ck == TB_CKPT_FULL ? st->in->training.recompute_layers : 0;
	l0.selective_policy = ck == TB_CKPT_SELECTIVE ? st->in->training.selective_policy : TB_SELECTIVE_ATTENTION;
	l0.global_batch = B;
	l0.gpu = cd->index; l0.count = N;
	l0.capacity_bytes = cap;
	/* the layout's perf input, made once a pipeline where first needed:
	 * the loop below sets the micro-batch, ZeRO stage and split */
	tb_perf_input *pin = &w->pin;
	bool have_pin = false;
	/* the mode's bound not yet made: made here, from this layout */
	if (bound_first && w->shape_state[ck] == 0) {
		tb_plan_perf_fields(&l0, pin);
		have_pin = true;
		pin->micro_batch = 1;
		if (S_shape_ruled_out(w, pin, p, B / d, 1, ruled)) {
			k->skipped += (uint64_t)w->nb * per_p;
			return;
		}
	}
	tb_plan_mem mem;
	tb_plan_pm *pm = tb_plan_pm_get(w->pmemo, c, e, p, d);
	tb_plan_mem_init(st, &cd->mm, &l0, &mem, pm);
	/* the fit under each ZeRO stage: its states in place, so that a
	 * micro-batch's sums read them without copying */
	tb_mem_fit fit[4];
	for (int z = 0; z < 4; z++)
		if (zok >> z & 1) {
			tb_plan_mem_zero(st, &cd->mm, &mem, z, pm);
			fit[z] = mem.c;
		}
	/* the micro-batches past the batch rule (and a fixed micro-batch's),
	 * and of those the ones whose micro-batches the pipeline divides,
	 * which allow every split (else the first alone: nv_one); the others
	 * counted at once */
	int nok, nevery = 0;
	size_t at_ok = S_bs_of(w, d, &nok);
	size_t at_every = p > 1 ? S_bs_of(w, d * p, &nevery) : 0;
	const int *ok = w->bx_pool ? &w->bx_pool[at_ok] : NULL;
	const int *every = w->bx_pool ? &w->bx_pool[at_every] : NULL;
	k->rules += (uint64_t)w->fixed_out * per_p;
	k->batch += (uint64_t)(w->nb - w->fixed_out - nok) * per_p;
	/* the shape already ruled out on this count: what fits is counted
	 * feasible untimed, unless a micro-batch's layer of the mode is timed
	 * (its candidates are then timed, as the loop below does) */
	unsigned *zmask = w->zmask;
	if (*ruled && n->k_sec > 0 && w->layers_made[ck] == 0) {
		for (int i = 0; i < nv_all; i++)
			zmask[i] = zok;
		S_count_only(w, &mem, fit, zmask, nz, vlist, nv_all, nv_one, p, ok, nok, every, nevery,
		             cap);
		return;
	}
	/* Memory is non-decreasing in the micro-batch (calc.h): a (ZeRO,
	 * virtual) pair past the card by more than rounding at one
	 * micro-batch is past it at every larger one (the micro-batches
	 * ascend).  So the pairs not yet past it are kept in a list, in the
	 * walk's order (ZeRO stage, then split), each split index x 4 + z,
	 * and the ones past it are counted in bulk, those of the first split
	 * apart (where only v = 1 is allowed, they alone count). */
	int *pairs = w->pairs, npairs = 0;
	for (int z = 0; z < 4; z++)
		if (zok >> z & 1)
			for (int i = 0; i < nv_all; i++)
				pairs[npairs++] = i << 2 | z;
	uint64_t over_all = 0, over_first = 0;
	/* of each virtual split, the ZeRO stages not yet past the card */
	int *alive = w->alive;
	for (int i = 0; i < nv_all; i++)
		alive[i] = nz;
	int64_t alive_all = (int64_t)nz * nv_all;       /* the sum of alive[] */

	for (int j = 0, je = 0; j < nok; j++) {
		int bi = ok[j];
		int64_t b = w->bs[bi];
		int64_t mbs = B / (d * b);
		/* every[] is the part of ok[] that allows every split, ascending */
		int nv = nv_one;
		if (je < nevery && every[je] == bi) {
			nv = nv_all;
			je++;
		}
		k->rules += (uint64_t)(4 - nz) * V + (uint64_t)nz * (V - (uint64_t)nv);
		if (nz == 0 || nv == 0)
			continue;
		if (alive_all == 0) {
			/* every pair is past the card at a smaller micro-batch */
			k->memory += (uint64_t)nz * (uint64_t)nv;
			continue;
		}
		l0.micro_batch = b;
		/* the activations of each virtual split, which no ZeRO stage
		 * changes */
		double act[TB_PLAN_ACT_V][3];
		for (int i = 0; i < nv && i < TB_PLAN_ACT_V; i++) {
			if (alive[i] == 0)
				continue;
			mem.c.v = p > 1 ? vlist[i] : 1;
			tb_memory_stage_act(&mem.c, b, act[i]);
		}
		double floor_s = -1;
		int shape_out = -1;
		bool ruled_out = false;
		k->memory += nv == nv_all ? over_all : over_first;
		int removed = 0;
		for (int pi = 0; pi < npairs; pi++) {
			int z = pairs[pi] & 3, i = pairs[pi] >> 2;
			if (i >= nv)
				continue;
			int64_t v = vlist[i];
			double bytes;
			if (i < TB_PLAN_ACT_V) {
				bytes = tb_memory_fit_sum(&fit[z], act[i], NULL);
			} else {
				memcpy(mem.c.states, fit[z].states, sizeof mem.c.states);
				bytes = tb_plan_mem_total(&mem, v, b);
			}
			if (!(bytes <= cap)) {
				k->memory++;
				if (bytes > cap * (1 + 1e-9)) {
					pairs[pi] = -1;
					removed++;
					over_all++;
					over_first += i == 0;
					alive[i]--;
					alive_all--;
				}
				continue;
			}
			int li = (int)ck * w->nb + bi;
			tb_perf_layer *layer = &w->layer[li];
			signed char *made = &w->layer_state[li];
			/* a layer not yet timed: first the bound of its whole
			 * shape on this count (S_shape_ruled_out), asked once a
			 * micro-batch and pipeline; once it rules the shape
			 * out, what is left of it is counted */
			bool ask = *made == 0 && n->k_sec > 0;
			if (ask && shape_out < 0 && *ruled)
				shape_out = 1;
			if (ask && shape_out > 0) {
				k->feasible++;
				continue;
			}
			if (!have_pin) {
				tb_plan_perf_fields(&l0, pin);
				have_pin = true;
			}
			pin->micro_batch = b;
			pin->zero = z;
			pin->virtual_pipeline = v;
			if (ask && shape_out < 0) {
				shape_out = S_shape_ruled_out(w, pin, p, mbs, b, ruled);
				if (shape_out) {
					k->feasible++;
					continue;
				}
			}
			if (*made == 0) {
				/* what no mode changes, once for the three */
				tb_perf_layer *base = &w->base[bi];
				if (w->base_state[bi] == 0) {
					const tb_perf_layer *dl = w->dense_from[bi] ? &w->dense[bi] : NULL;
					w->base_state[bi] = tb_perf_layer_time_reuse(pin, NULL, dl, base, NULL) ? 1 : -1;
					if (w->base_state[bi] > 0 && !dl) {
						w->dense[bi] = *base;
						w->dense_from[bi] = 1;
					}
				}
				*made = w->base_state[bi];
				w->layers_made[ck] += *made != 0;
				if (*made > 0) {
					*layer = *base;
					tb_perf_layer_mode(pin, layer);
				}
			}
			bool bad = *made < 0;
			/* what every ZeRO stage and virtual split of this
			 * pipeline and micro-batch costs at least: a candidate
			 * it already rules out is feasible, not timed */
			if (!bad && n->k_sec > 0) {
				/* at the most virtual stages this micro-batch allows */
				if (floor_s < 0)
					floor_s = S_floor(w, li, pin, layer, vlist[nv - 1]);
				if (S_ruled_out(w, floor_s, &ruled_out)) {
					k->feasible++;
					continue;
				}
				/* one that no list but the rank can take: counted
				 * ahead of the scenario's layout, untimed, when its
				 * ceiling already is (not where part of the layers
				 * is recomputed: the floor's stage is at one virtual
				 * stage, tb_perf_stage_s) */
				if (st->rank_it && !(ck == TB_CKPT_FULL && pin->recompute_layers > 0) &&
				    !tb_plan_may_list(st, cd->index, n->ni, n->here, floor_s * n->k_obj,
				                      floor_s * n->k_sec)) {
					double ceil_s = S_ceiling(w, li, pin, layer);
					if (ceil_s > 0 && tb_plan_surely_ahead(st, ceil_s * n->k_obj)) {
						st->ahead++;
						k->feasible++;
						continue;
					}
				}
			}
			tb_plan_layout l = l0;
			l.zero = z;
			l.virtual_pipeline = v;
			l.memory_per_gpu_bytes = bytes;
			tb_perf_result r;
			if (!bad)
				tb_perf_assemble(pin, NULL, layer, &r);
			if (bad || !r.ok) {
				k->rules++;
				continue;
			}
			k->feasible++;
			tb_plan_figures(cd, &r, &l);
			if (n->k_sec == 0 && l.step_s > 0 && l.seconds > 0) {
				w->n->k_sec = l.seconds / l.step_s;
				w->n->k_obj = st->out->objective == TB_PLAN_BY_COST ? l.cost / l.step_s
				                                                    : n->k_sec;
			}
			tb_plan_keep(st, &l);
			tb_plan_note_best(st, cd->index, n->ni, &l);
			if (n->here)
				tb_plan_note_here(st, &l);
		}
		/* the pairs past the card leave the list, in order */
		if (removed) {
			int kept = 0;
			for (int pi = 0; pi < npairs; pi++)
				if (pairs[pi] >= 0)
					pairs[kept++] = pairs[pi];
			npairs = kept;
		}
		/* the bound ruled the shape out at this micro-batch, and no layer
		 * of the mode is timed: the micro-batches left are counted */
		if (*ruled && n->k_sec > 0 && w->layers_made[ck] == 0 && j + 1 < nok) {
			if (fx->best_only) {
				k->skipped += (uint64_t)(nok - j - 1) * per_p;
				return;
			}
			for (int i = 0; i < nv_all; i++)
				zmask[i] = 0;
			for (int pi = 0; pi < npairs; pi++)
				zmask[pairs[pi] >> 2] |= 1u << (pairs[pi] & 3);
			S_count_only(w, &mem, fit, zmask, nz, vlist, nv_all, nv_one, p, ok + j + 1,
			             nok - j - 1, every + je, nevery - je, cap);
			return;
		}
	}
}

/* Every count's candidates under one (tensor, sequence parallelism):
 * the rules of those loops counted per count, then for each (context,
 * expert) and checkpointing mode the pipelines of every count that
 * context divides, so that one micro-batch's layer time serves them all
 * and what no mode changes of it is timed once for the three. */
static void S_walk_ts(S_walk *w, S_count *cc, int ncounts, const int64_t *es, int ne, bool sp)
{
	tb_plan_state *st = w->st;
	const tb_plan_space *fx = st->sp;
	tb_plan_counts *k = w->k;
	int64_t t = w->t;
	uint64_t per_p = 4 * w->V;
	int64_t cs[TB_PLAN_DIVS_MAX];
	/* the context sizes of the counts t divides: the union of the
	 * divisors of N/t, ascending */
	int64_t *cu = w->cu;
	int ncu = 0;
	uint64_t per_ck = 0;            /* candidates under this (t, sp) and one mode, every count */
	for (int i = 0; i < ncounts; i++) {
		const S_count *n = &cc[i];
		if (n->N % t)
			continue;
		int nc = S_divisors_over(n, t, cs);
		for (int ci = 0; ci < nc; ci++) {
			per_ck += (uint64_t)ne * (uint64_t)w->nb * (uint64_t)tb_plan_ndivisors(n->N / t / cs[ci]) * per_p;
			int j = ncu;
			while (j > 0 && cu[j - 1] > cs[ci])
				j--;
			if (j > 0 && cu[j - 1] == cs[ci])
				continue;
			memmove(&cu[j + 1], &cu[j], (size_t)(ncu - j) * sizeof *cu);
			cu[j] = cs[ci];
			ncu++;
		}
	}
	/* the tensor rule; sequence parallelism needs a tensor group; with
	 * flash attention, the attention policy has nothing left to
	 * recompute: it is "none" again */
	bool ts_ok = tb_plan_tensor_ok(st, w->cd, t) && !((fx->fix & TB_LAYOUT_TENSOR) && t != fx->fix_tensor) &&
	             !(sp && (t == 1 || fx->no_sequence_parallel)) &&
	             !((fx->fix & TB_LAYOUT_SEQUENCE_PARALLEL) && sp != fx->fix_sequence_parallel);
	bool ck_ok[3];
	int nck = 0;
	for (int m = 0; m < 3; m++) {
		tb_checkpointing ck = (tb_checkpointing)m;
		ck_ok[m] = ts_ok && !(ck == TB_CKPT_SELECTIVE && tb_selective_is_none(&st->in->training)) &&
		           !(fx->checkpointing_modes && !(fx->checkpointing_modes & (1u << ck))) &&
		           !((fx->fix & TB_LAYOUT_CHECKPOINTING) && ck != fx->fix_checkpointing);
		if (ck_ok[m])
			nck++;
		else
			k->rules += per_ck;
	}
	if (nck == 0)
		return;
	for (int ci = 0; ci < ncu; ci++) {
		int64_t c = cu[ci];
		bool c_ok = tb_plan_context_ok(st, t, c) && !((fx->fix & TB_LAYOUT_CONTEXT) && c != fx->fix_context);
		memset(w->dense_from, 0, (size_t)w->nb * sizeof *w->dense_from);
		w->shape_dense_ok = false;
		w->bmax_c = 0;
		for (int i = 0; i < ncounts; i++) {
			const S_count *n = &cc[i];
			w->np_c[i] = n->N % t || (n->N / t) % c
			             ? -1 : S_divisors_over(n, t * c, &w->ps_c[(size_t)i * TB_PLAN_DIVS_MAX]);
		}
		for (int ei = 0; ei < ne; ei++) {
			int64_t e = es[ei];
			bool e_ok = !((fx->fix & TB_LAYOUT_EXPERT) && e != fx->fix_expert);
			if (c_ok && e_ok) {
				memset(w->layer_state, 0, (size_t)(3 * w->nb));
				memset(w->layers_made, 0, sizeof w->layers_made);
				memset(w->base_state, 0, (size_t)w->nb);
				memset(w->shape_state, 0, sizeof w->shape_state);
				memset(w->shape_out, 0, (size_t)(3 * ncounts));
				w->shape_base_state = 0;
				w->stage_gen++;
			}
			for (int m = 0; m < 3; m++) {
				if (!ck_ok[m])
					continue;
				for (int i = 0; i < ncounts; i++) {
					S_count *n = &cc[i];
					int np = w->np_c[i];
					if (np < 0)
						continue;
					const int64_t *ps = &w->ps_c[(size_t)i * TB_PLAN_DIVS_MAX];
					if (!c_ok || !e_ok) {
						k->rules += (uint64_t)w->nb * (uint64_t)np * per_p;
						continue;
					}
					w->n = n;
					/* the data-parallel size N / (t c p), from the
					 * count's quotient by t c, made once */
					int64_t q = n->N / (t * c);
					for (int pi = 0; pi < np; pi++)
						S_walk_pipeline(w, sp, (tb_checkpointing)m, c, e, ps[pi], q / ps[pi]);
				}
			}
		}
	}
}

/* One card and batch, every count; of the (tensor, sequence parallelism)
 * pairs, the tensor sizes the union of the counts'
 * divisors, those whose tickets this job draws from *ticket (shared by
 * the jobs, so that a job free takes the next: the first sizes hold the
 * most layouts).  *done: candidates counted so far by every job, for the
 * progress line, which job 0 draws. */
void tb_plan_search_batch(tb_plan_state *st, const tb_plan_card *cd, const int64_t *counts, int ncounts,
                           int64_t B, tb_plan_counts *k, double total, int job, int *ticket,
                           uint64_t *done)
{
	const tb_inputs *in = st->in;
	const tb_model *m = &in->model;
	uint64_t V = (uint64_t)st->vmax;
	int64_t L = m->layers;

	int64_t es[TB_PLAN_DIVS_MAX], bs[TB_PLAN_DIVS_MAX];
	int ne = 1;
	es[0] = 1;
	if (m->experts > 1)
		ne = tb_plan_divisors(m->experts, es, TB_PLAN_DIVS_MAX);
	int nb = tb_plan_divisors(B, bs, TB_PLAN_DIVS_MAX);

	/* one step's tokens past the run's: the run would end before its first
	 * optimizer step, so every candidate of this batch breaks the rule */
	if (!tb_plan_batch_ok(in, B)) {
		/* counted once, by the job that draws the first ticket */
		if (__atomic_fetch_add(ticket, 1, __ATOMIC_RELAXED) == 0)
			for (int i = 0; i < ncounts; i++)
				k->batch += (uint64_t)(24.0 * (double)V * (double)ne * tb_plan_splits(B, 2) *
				                       tb_plan_splits(counts[i], 4));
		return;
	}

	/* not zeroed: what is read is written first, and pages never
	 * touched (most of ts and vok_of) cost no fault */
	S_count *cc = tb_xmalloc((size_t)ncounts * sizeof *cc);
	int64_t *tu = tb_xmalloc((size_t)ncounts * TB_PLAN_DIVS_MAX * sizeof *tu);
	int ntu = 0;
	for (int i = 0; i < ncounts; i++) {
		S_count *n = &cc[i];
		n->k_sec = n->k_obj = 0;
		n->N = counts[i];
		n->ni = i;
		n->here = cd->index == st->own_card && n->N == in->hardware.count &&
		          B == in->training.global_batch;
		n->nt = tb_plan_divisors(n->N, n->ts, TB_PLAN_DIVS_MAX);
		/* Megatron-LM's interleaving rule for each pipeline size (a
		 * divisor of N), once */
		for (int j = 0; j < n->nt; j++) {
			n->vok_of[j] = 0;
			for (int64_t v = 1; v < 64; v++)
				if (v <= st->vmax || v == in->parallelism.layout.virtual_pipeline)
					n->vok_of[j] |= (uint64_t)tb_perf_split_ok(&in->parallelism.layout, L,
					                                          n->ts[j], v) << v;
			/* the tensor sizes: the union, ascending */
			int64_t t = n->ts[j];
			int at = ntu;
			while (at > 0 && tu[at - 1] > t)
				at--;
			if (at > 0 && tu[at - 1] == t)
				continue;
			memmove(&tu[at + 1], &tu[at], (size_t)(ntu - at) * sizeof *tu);
			tu[at] = t;
			ntu++;
		}
	}
	S_walk w;
	memset(&w, 0, sizeof w);
	w.st = st;
	w.cd = cd;
	w.pin = cd->base;
	w.k = k;
	w.B = B;
	w.V = V;
	w.bs = bs;
	w.nb = nb;
	int64_t vcap = st->vmax < L + 2 ? st->vmax : L + 2;
	w.vlist = tb_xcalloc((size_t)(vcap > 1 ? vcap : 1), sizeof *w.vlist);
	w.pairs = tb_xcalloc((size_t)(vcap > 1 ? vcap : 1) * 4, sizeof *w.pairs);
	w.alive = tb_xcalloc((size_t)(vcap > 1 ? vcap : 1), sizeof *w.alive);
	w.zmask = tb_xcalloc((size_t)(vcap > 1 ? vcap : 1), sizeof *w.zmask);
	/* the layers are read only where their state says made */
	w.layer = tb_xmalloc((size_t)(3 * nb) * sizeof *w.layer);
	w.layer_state = tb_xcalloc((size_t)(3 * nb), sizeof *w.layer_state);
	w.base = tb_xmalloc((size_t)nb * sizeof *w.base);
	w.base_state = tb_xcalloc((size_t)nb, sizeof *w.base_state);
	w.dense = tb_xmalloc((size_t)nb * sizeof *w.dense);
	w.stage = ncounts > 1 ? tb_xcalloc(S_STAGE_SLOTS, sizeof *w.stage) : NULL;
	w.dense_from = tb_xcalloc((size_t)nb, sizeof *w.dense_from);
	w.pmemo = tb_xcalloc(1, sizeof *w.pmemo);
	w.shape_out = tb_xcalloc((size_t)(3 * ncounts), 1);
	w.cc = cc;
	w.ncounts = ncounts;
	w.cu = tb_xmalloc((size_t)ncounts * TB_PLAN_DIVS_MAX * sizeof *w.cu);
	w.ps_c = tb_xmalloc((size_t)ncounts * TB_PLAN_DIVS_MAX * sizeof *w.ps_c);
	w.np_c = tb_xmalloc((size_t)ncounts * sizeof *w.np_c);
	w.act = tb_xmalloc((size_t)nb * sizeof *w.act);
	w.bx_at = tb_xmalloc((size_t)nb * sizeof *w.bx_at);
	w.bx_len = tb_xmalloc((size_t)nb * sizeof *w.bx_len);
	for (int i = 0; i < nb; i++)
		w.bx_at[i] = -1;
	if (st->sp->fix & TB_LAYOUT_MICRO_BATCH)
		for (int i = 0; i < nb; i++)
			w.fixed_out += bs[i] != st->sp->fix_micro_batch;
	w.act_gen = tb_xcalloc((size_t)nb, sizeof *w.act_gen);

	uint64_t counted = k->rules + k->batch + k->memory + k->feasible + k->skipped;
	for (int ti = __atomic_fetch_add(ticket, 1, __ATOMIC_RELAXED); ti < 2 * ntu;
	     ti = __atomic_fetch_add(ticket, 1, __ATOMIC_RELAXED)) {
		/* the memo holds one tensor size's tuples */
		if (w.t != tu[ti / 2]) {
			w.t = tu[ti / 2];
			w.pmemo->gen++;
			w.pmemo->used = 0;
		}
		uint64_t now = k->rules + k->batch + k->memory + k->feasible + k->skipped;
		uint64_t all = __atomic_add_fetch(done, now - counted, __ATOMIC_RELAXED);
		counted = now;
		/* the line is drawn by the first job alone */
		if (st->sp->progress && job == 0)
			st->sp->progress(st->sp->progress_ctx, all, (uint64_t)total);
		S_walk_ts(&w, cc, ncounts, es, ne, ti % 2 == 1);
	}
	free(w.pmemo);
	free(w.shape_out);
	free(w.cu);
	free(w.ps_c);
	free(w.np_c);
	free(w.act);
	free(w.bx_at);
	free(w.bx_len);
	free(w.bx_pool);
	free(w.act_gen);
	free(w.layer_state);
	free(w.layer);
	free(w.base);
	free(w.base_state);
	free(w.dense);
	free(w.dense_from);
	free(w.stage);
	free(w.extras);
	free(w.vlist);
	free(w.pairs);
	free(w.alive);
	free(w.zmask);
	free(tu);
	free(cc);
}

