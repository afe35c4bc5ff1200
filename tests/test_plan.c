/* test_plan.c: the layout search (src/plan.c) against a brute-force walk
 * written here from the rules of docs/plan.md: every candidate of the
 * space built by hand, each one priced by the full tb_budget_compute.
 * The search must find the same feasible set (pruning never removes a
 * feasible layout), the same counts, the same ranking and, for every
 * layout, the budget's own figures to the last bit.  Then: the ranking is
 * a total order, the result does not depend on --top, two runs are
 * identical, the explanations name the terms that differ and only those,
 * and the interleaving rules hold. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calc.h"
#include "trainbudget/gpus.h"
#include "trainbudget/plan.h"

/* A small GQA decoder (8 layers, 8 heads, 4 key/value groups) on 16
 * H100s with a tight card, so that memory prunes too. */
static void small_dense(tb_inputs *in)
{
	memset(in, 0, sizeof *in);
	tb_model *m = &in->model;
	m->has_shape = true;
	m->layers = 8; m->hidden = 1024; m->heads = 8; m->kv_heads = 4; m->head_dim = 128;
	m->ffn_hidden = 2816; m->vocab = 32000; m->mlp = TB_MLP_GATED;
	m->norm = TB_NORM_RMSNORM; m->positions = TB_POS_ROPE;
	tb_training *tr = &in->training;
	tr->tokens = 1e10;
	tr->seq_len = 2048;
	tr->global_batch = 32;
	tr->micro_batch = 1;
	tr->precision = TB_PREC_BF16_MIXED;
	tr->optimizer = TB_OPT_ADAMW;
	tr->checkpointing = TB_CKPT_NONE;
	tr->attention_flops = TB_ATTN_FLOPS_CAUSAL;
	tr->flash_attention = false;
	tb_hardware *hw = &in->hardware;
	hw->gpu = *tb_gpus_find("h100-sxm");
	hw->gpu.memory_bytes = 5e9;
	hw->count = 16;
	hw->mfu_predicted = true;
	hw->mfu[0] = 0.3; hw->mfu[1] = 0.4; hw->mfu[2] = 0.5;
	hw->price_per_gpu_hour = 2.5;
	strcpy(hw->currency, "USD");
	hw->pue = 1;
	hw->overhead_bytes = 1e9;
	tb_parallelism *pa = &in->parallelism;
	pa->tensor = 2; pa->pipeline = 2; pa->virtual_pipeline = 1; pa->context = 1;
	pa->expert = 1; pa->data = 4; pa->zero = 1;
}

/* The same with 8 routed experts (2 per token) and flash attention, so
 * that expert and context parallelism enter. */
static void small_moe(tb_inputs *in)
{
	small_dense(in);
	in->model.experts = 8;
	in->model.experts_per_token = 2;
	in->model.ffn_hidden = 1408;
	in->training.flash_attention = true;
	in->hardware.gpu.memory_bytes = 4e9;
}

/* ---- the brute force -------------------------------------------------- */

#define FEAS_MAX 40000

static tb_plan_layout S_feas[FEAS_MAX];
static int S_nfeas;
static tb_plan_objective S_obj;

typedef struct {
	uint64_t searched, rules, batch, memory, feasible;
} counts;

static int cmp_layout(const void *a, const void *b)
{
	return tb_plan_compare(a, b, S_obj);
}

static int divisors(int64_t n, int64_t *out)
{
	int k = 0;
	for (int64_t i = 1; i <= n; i++)
		if (n % i == 0)
			out[k++] = i;
	return k;
}

/* The budget's figures for the scenario set to layout l. */
static void price(const tb_inputs *base, tb_plan_layout *l, bool *fits)
{
	static tb_budget b;
	tb_inputs x = *base;
	x.hardware.count = l->count;
	x.parallelism.tensor = l->tensor;
	x.parallelism.pipeline = l->pipeline;
	x.parallelism.virtual_pipeline = l->virtual_pipeline;
	x.parallelism.context = l->context;
	x.parallelism.expert = l->expert;
	x.parallelism.data = l->data;
	x.parallelism.zero = l->zero;
	x.parallelism.sequence_parallel = l->sequence_parallel;
	x.training.checkpointing = l->checkpointing;
	x.training.micro_batch = l->micro_batch;
	x.training.global_batch = l->global_batch;
	tb_budget_compute(&x, &b);
	l->memory_per_gpu_bytes = b.memory.per_gpu.total;
	l->capacity_bytes = b.memory.capacity_bytes;
	*fits = b.memory.fits;
	cr_assert(b.perf.known, "the budget times every layout the rules keep: %s", b.perf.why);
	l->step_s = b.perf.r.step_s;
	l->mfu = b.perf.r.mfu;
	l->microbatches = b.perf.r.microbatches;
	l->bubble_fraction = b.perf.r.bubble_fraction;
	memcpy(l->breakdown_s, b.perf.r.breakdown_s, sizeof l->breakdown_s);
	l->seconds = b.time.seconds[1];
	l->cost = b.time.cost[1];
}

/* Every candidate of the space, counted under the first check it fails
 * in the order the search meets them (docs/plan.md). */
static counts brute(const tb_inputs *in, int64_t vmax, tb_plan_objective obj)
{
	counts k = { 0, 0, 0, 0, 0 };
	S_nfeas = 0;
	S_obj = obj;
	const tb_model *m = &in->model;
	int64_t N = in->hardware.count, B = in->training.global_batch;
	int64_t L = m->layers, S = in->training.seq_len;
	int64_t shard = in->parallelism.shard_group;
	tb_framework fw = in->parallelism.framework;
	bool flash = in->training.flash_attention, moe = m->experts > 1;
	int64_t ts[64], cs[64], ps[64], es[64], bs[64];
	int nt = divisors(N, ts), nb = divisors(B, bs);
	int ne = moe ? divisors(m->experts, es) : (es[0] = 1, 1);
	for (int ti = 0; ti < nt; ti++)
	for (int sp = 0; sp < 2; sp++)
	for (int ck = 0; ck < 3; ck++) {
		int64_t t = ts[ti];
		int nc = divisors(N / t, cs);
		for (int ci = 0; ci < nc; ci++) {
			int64_t c = cs[ci];
			int np = divisors(N / t / c, ps);
			for (int ei = 0; ei < ne; ei++)
			for (int bi = 0; bi < nb; bi++)
			for (int pi = 0; pi < np; pi++)
			for (int z = 0; z < 4; z++)
			for (int64_t v = 1; v <= vmax; v++) {
				int64_t e = es[ei], b = bs[bi], p = ps[pi], d = N / t / c / p;
				k.searched++;
				bool t_ok = m->heads % t == 0 && m->kv_heads % t == 0 &&
				            m->ffn_hidden % t == 0 && t <= 8 && 8 % t == 0;
				bool outer_ok = t_ok && !(sp && t == 1) &&
				                !(ck == TB_CKPT_SELECTIVE && flash) &&
				                (c == 1 || (S % (2 * c) == 0 && flash)) &&
				                p <= L && !(e > 1 && (d * c) % e) &&
				                !(shard > 0 && (d * c) % shard);
				if (!outer_ok) {
					k.rules++;
					continue;
				}
				if (B % (d * b)) {
					k.batch++;
					continue;
				}
				int64_t mbs = B / (d * b);
				if ((z > 0 && d * c == 1) ||
				    (z == 3 && p > 1 && !tb_fsdp_holds_stage(fw, z, p)) ||
				    !tb_perf_framework_zero_ok(fw, z, p, NULL) ||
				    (v > 1 && (p == 1 || L % (p * v) || mbs % p))) {
					k.rules++;
					continue;
				}
				tb_plan_layout l;
				memset(&l, 0, sizeof l);
				l.tensor = t; l.pipeline = p; l.virtual_pipeline = v; l.context = c;
				l.expert = e; l.data = d; l.zero = z; l.checkpointing = (tb_checkpointing)ck;
				l.sequence_parallel = sp; l.micro_batch = b; l.global_batch = B;
				l.count = N; l.gpu = 0;
				bool fits;
				price(in, &l, &fits);
				if (!fits) {
					k.memory++;
					continue;
				}
				k.feasible++;
				cr_assert(S_nfeas < FEAS_MAX);
				S_feas[S_nfeas++] = l;
			}
		}
	}
	qsort(S_feas, (size_t)S_nfeas, sizeof S_feas[0], cmp_layout);
	return k;
}

static void expect_same(const tb_plan_layout *got, const tb_plan_layout *want, int i)
{
	cr_expect(tb_plan_same_layout(got, want), "rank %d: t%lld p%lld v%lld c%lld e%lld z%d ck%d sp%d b%lld "
	          "instead of t%lld p%lld v%lld c%lld e%lld z%d ck%d sp%d b%lld", i + 1,
	          (long long)got->tensor, (long long)got->pipeline, (long long)got->virtual_pipeline,
	          (long long)got->context, (long long)got->expert, got->zero, got->checkpointing,
	          got->sequence_parallel, (long long)got->micro_batch,
	          (long long)want->tensor, (long long)want->pipeline, (long long)want->virtual_pipeline,
	          (long long)want->context, (long long)want->expert, want->zero, want->checkpointing,
	          want->sequence_parallel, (long long)want->micro_batch);
	/* the budget's figures, to the last bit */
	cr_expect(got->step_s == want->step_s, "rank %d step %.17g vs %.17g", i + 1, got->step_s, want->step_s);
	cr_expect(got->mfu == want->mfu, "rank %d mfu", i + 1);
	cr_expect(got->memory_per_gpu_bytes == want->memory_per_gpu_bytes, "rank %d memory %.17g vs %.17g",
	          i + 1, got->memory_per_gpu_bytes, want->memory_per_gpu_bytes);
	cr_expect(got->seconds == want->seconds, "rank %d seconds %.17g vs %.17g", i + 1,
	          got->seconds, want->seconds);
	cr_expect(got->cost == want->cost, "rank %d cost", i + 1);
	for (int t = 0; t < TB_PERF_TERMS; t++)
		cr_expect(got->breakdown_s[t] == want->breakdown_s[t], "rank %d term %d", i + 1, t);
}

static void against_brute_top(const tb_inputs *in, tb_plan_objective obj, int top)
{
	tb_plan_space sp;
	memset(&sp, 0, sizeof sp);
	sp.objective = obj;
	sp.top = top;
	sp.max_virtual = 4;
	static tb_plan_result r;
	tb_plan_search(in, &sp, &r);
	counts k = brute(in, 4, obj);
	cr_assert(r.known);
	cr_expect_eq(r.searched, k.searched);
	/* the size counted up front from the divisors is the brute force's */
	cr_expect(r.space == (double)k.searched, "space %.17g vs %llu", r.space,
	          (unsigned long long)k.searched);
	cr_expect_eq(r.pruned_rules, k.rules);
	cr_expect_eq(r.pruned_batch, k.batch);
	cr_expect_eq(r.pruned_memory, k.memory);
	cr_expect_eq(r.feasible, k.feasible);
	cr_expect(k.memory > 0 && k.feasible > TB_PLAN_TOP_MAX, "the case prunes by memory and keeps more than the top");
	int n = S_nfeas < top ? S_nfeas : top;
	cr_assert_eq(r.n_layouts, n);
	for (int i = 0; i < n; i++)
		expect_same(&r.layouts[i], &S_feas[i], i);
	/* the scenario's own layout: its figures and its rank */
	tb_plan_layout own;
	memset(&own, 0, sizeof own);
	own.tensor = in->parallelism.tensor; own.pipeline = in->parallelism.pipeline;
	own.virtual_pipeline = 1; own.context = 1; own.expert = 1;
	own.data = in->parallelism.data; own.zero = in->parallelism.zero;
	own.checkpointing = in->training.checkpointing;
	own.sequence_parallel = in->parallelism.sequence_parallel;
	own.micro_batch = in->training.micro_batch; own.global_batch = in->training.global_batch;
	own.count = in->hardware.count;
	bool fits;
	price(in, &own, &fits);
	cr_assert(fits, "the test's own layout fits");
	cr_expect(r.scenario_fits && r.scenario_known);
	expect_same(&r.scenario, &own, -1);
	uint64_t ahead = 0;
	for (int i = 0; i < S_nfeas; i++)
		ahead += tb_plan_compare(&S_feas[i], &own, obj) < 0;
	cr_expect_eq(r.scenario_rank, ahead + 1);
}

static void against_brute(const tb_inputs *in, tb_plan_objective obj)
{
	against_brute_top(in, obj, TB_PLAN_TOP_MAX);
}

Test(plan, dense_against_brute_force_by_time)
{
	tb_inputs in;
	small_dense(&in);
	against_brute(&in, TB_PLAN_BY_TIME);
}

Test(plan, moe_against_brute_force_by_cost)
{
	tb_inputs in;
	small_moe(&in);
	against_brute(&in, TB_PLAN_BY_COST);
}

/* HSDP: a shard group of 4 out of data x context.  The step-time model
 * refuses a layout whose replicas the group does not divide; the search
 * once timed them anyway (its checks ran on the first pipeline of a
 * micro-batch only), counting feasible what `estimate` refuses. */
Test(plan, shard_group_against_brute_force)
{
	tb_inputs in;
	small_dense(&in);
	in.parallelism.shard_group = 4;
	in.parallelism.zero = 2;
	against_brute(&in, TB_PLAN_BY_TIME);
}

/* PyTorch's eager cross-entropy (three fp32 buffers a logit, where the
 * fused loss keeps one): the search's memory fit holds the loss's buffers
 * as the budget does, to the bit, so that both call a layout whose last
 * stage holds the loss fitting or not alike. */
Test(plan, eager_cross_entropy_against_brute_force)
{
	tb_inputs in;
	small_dense(&in);
	in.training.cross_entropy = TB_CE_EAGER;
	against_brute(&in, TB_PLAN_BY_TIME);
}

/* FSDP: no ZeRO-1, and ZeRO-3 under a pipeline, which holds each stage's
 * weights gathered and its gradients unsharded (tb_fsdp_holds_stage): the
 * search's memory and step of those layouts must be the budget's bits. */
Test(plan, fsdp_pipeline_against_brute_force)
{
	tb_inputs in;
	small_dense(&in);
	in.parallelism.framework = TB_FW_FSDP;
	in.parallelism.zero = 3;
	against_brute(&in, TB_PLAN_BY_TIME);
}

/* Full checkpointing of the first 3 layers of each chunk (Megatron-LM's
 * block method): the 8 layers make stages of 8, 4, 2 and 1 and chunks of
 * 1 to 8, so that some stages recompute all their layers and some part,
 * and the search's memory fit and layer times (the floor at one virtual
 * stage, the fewest recomputed) must give the budget's bits. */
Test(plan, partial_recomputation_against_brute_force)
{
	tb_inputs in;
	small_dense(&in);
	in.training.recompute_layers = 3;
	against_brute(&in, TB_PLAN_BY_TIME);
	small_moe(&in);
	in.training.recompute_layers = 3;
	in.parallelism.overlap_ep = true;
	against_brute(&in, TB_PLAN_BY_COST);
}

/* A list of one: the bars are the best layout's, so the bound of a whole
 * layer shape rules shapes out early and the pipelines walked after it
 * are counted without a sum per micro-batch (plan_walk.c S_count_only),
 * which must give the brute force's counts.  64 GPUs, for pipelines
 * enough. */
static void on_64(tb_inputs *in)
{
	in->hardware.count = 64;
	in->parallelism.data = 16;
	in->training.global_batch = 128;
}

Test(plan, counted_shapes_against_brute_force)
{
	tb_inputs in;
	small_dense(&in);
	on_64(&in);
	against_brute_top(&in, TB_PLAN_BY_TIME, 1);
	small_moe(&in);
	on_64(&in);
	against_brute_top(&in, TB_PLAN_BY_COST, 1);
}

/* ---- ranking ----------------------------------------------------------- */

Test(plan, ranking_is_a_total_order_and_top_is_a_prefix)
{
	tb_inputs in;
	small_dense(&in);
	tb_plan_space sp;
	memset(&sp, 0, sizeof sp);
	sp.top = TB_PLAN_TOP_MAX;
	static tb_plan_result all, five, again;
	tb_plan_search(&in, &sp, &all);
	sp.top = 5;
	tb_plan_search(&in, &sp, &five);
	cr_assert_eq(five.n_layouts, 5);
	for (int i = 0; i < 5; i++)
		cr_expect(memcmp(&five.layouts[i], &all.layouts[i], sizeof all.layouts[i]) == 0);
	for (int i = 0; i + 1 < all.n_layouts; i++) {
		cr_expect(tb_plan_compare(&all.layouts[i], &all.layouts[i + 1], TB_PLAN_BY_TIME) < 0);
		cr_expect(tb_plan_compare(&all.layouts[i + 1], &all.layouts[i], TB_PLAN_BY_TIME) > 0);
	}
	for (int i = 0; i < all.n_layouts; i++)
		cr_expect(tb_plan_compare(&all.layouts[i], &all.layouts[i], TB_PLAN_BY_TIME) == 0);
	/* two layouts the model times alike still differ in rank */
	tb_plan_layout a = all.layouts[0], b = a;
	b.sequence_parallel = !a.sequence_parallel;
	cr_expect(tb_plan_compare(&a, &b, TB_PLAN_BY_TIME) != 0);
	sp.top = TB_PLAN_TOP_MAX;
	tb_plan_search(&in, &sp, &again);
	cr_expect(memcmp(&again, &all, sizeof all) == 0, "two runs give the same bytes");
}

/* ---- hardware search and the front ---------------------------------------- */

/* Two cards at their prices over 4 to 64 GPUs (five counts). */
static void S_two_cards(tb_plan_space *sp, int top, tb_plan_objective obj)
{
	memset(sp, 0, sizeof *sp);
	sp->top = top;
	sp->objective = obj;
	const char *names[2] = { "h100-sxm", "a100-80gb" };
	for (int i = 0; i < 2; i++) {
		sp->gpus[i].gpu = *tb_gpus_find(names[i]);
		sp->gpus[i].price_per_gpu_hour = i ? 1.1 : 2.5;
		sp->gpus[i].price_given = true;
	}
	sp->n_gpus = 2;
	for (int64_t n = 4; n <= 64; n *= 2)
		sp->counts[sp->n_counts++] = n;
}

Test(plan, hardware_search_front_is_pareto)
{
	tb_inputs in;
	small_dense(&in);
	in.hardware.gpu.memory_bytes = 80e9;
	tb_plan_space sp;
	S_two_cards(&sp, 10, TB_PLAN_BY_COST);
	static tb_plan_result r;
	tb_plan_search(&in, &sp, &r);
	cr_assert(r.known && r.hardware_searched);
	cr_expect(r.space == (double)r.searched, "two cards, five counts: space %.17g vs %llu",
	          r.space, (unsigned long long)r.searched);
	cr_assert(r.n_front >= 2);
	for (int i = 0; i + 1 < r.n_front; i++) {
		cr_expect(r.front[i].seconds <= r.front[i + 1].seconds);
		cr_expect(r.front[i].cost > r.front[i + 1].cost, "each point is cheaper than the faster ones");
	}
	/* nothing in the top list beats a front point on both */
	for (int i = 0; i < r.n_layouts; i++)
		for (int j = 0; j < r.n_front; j++)
			cr_expect(!(r.layouts[i].seconds < r.front[j].seconds &&
			            r.layouts[i].cost < r.front[j].cost));
	cr_expect(r.layouts[0].cost <= r.layouts[1].cost);
	/* the scenario's card is the first, so its layout keeps index 0 */
	cr_expect_eq(r.scenario.gpu, 0);
}

/* Each card's memory is its own: Transformer Engine keeps an fp8 copy of a
 * linear weight with its transpose on H100 (TN-only fp8 GEMMs) and without
 * it on B200 (memory.c), so the same layout on the same card holds the same
 * bytes whichever card the scenario names, and H100's copy is the B200
 * one's plus the transpose. */
Test(plan, each_card_prices_its_own_fp8_copies)
{
	static tb_plan_result r[2];
	const char *names[2] = { "h100-sxm", "b200" };
	for (int k = 0; k < 2; k++) {
		tb_inputs in;
		small_dense(&in);
		in.training.precision = TB_PREC_FP8_MIXED;
		in.parallelism.framework = TB_FW_MEGATRON;
		in.hardware.gpu = *tb_gpus_find(names[k]);
		tb_plan_space sp;
		memset(&sp, 0, sizeof sp);
		sp.top = TB_PLAN_TOP_MAX;
		for (int i = 0; i < 2; i++) {
			sp.gpus[i].gpu = *tb_gpus_find(names[i]);
			sp.gpus[i].price_per_gpu_hour = 2;
			sp.gpus[i].price_given = true;
		}
		sp.n_gpus = 2;
		sp.counts[sp.n_counts++] = 16;
		tb_plan_search(&in, &sp, &r[k]);
		cr_assert(r[k].known && r[k].n_layouts > 0);
	}
	int same = 0;
	for (int i = 0; i < r[0].n_layouts; i++)
		for (int j = 0; j < r[1].n_layouts; j++) {
			const tb_plan_layout *a = &r[0].layouts[i], *b = &r[1].layouts[j];
			if (a->gpu != b->gpu || a->tensor != b->tensor || a->pipeline != b->pipeline ||
			    a->virtual_pipeline != b->virtual_pipeline || a->data != b->data ||
			    a->zero != b->zero || a->micro_batch != b->micro_batch ||
			    a->checkpointing != b->checkpointing || a->sequence_parallel != b->sequence_parallel ||
			    a->context != b->context || a->expert != b->expert)
				continue;
			cr_expect(a->memory_per_gpu_bytes == b->memory_per_gpu_bytes,
			          "card %d TP %lld PP %lld: %.17g against %.17g", a->gpu, (long long)a->tensor,
			          (long long)a->pipeline, a->memory_per_gpu_bytes, b->memory_per_gpu_bytes);
			same++;
		}
	cr_expect(same > 0, "no layout in both lists");
}

/* ---- rules ---------------------------------------------------------------- */

/* Llama 3 405B on 16,384 H100: 126 layers leave no whole split into
 * virtual stages for p = 16, so no layout of p = 16 interleaves; and
 * nothing interleaves beyond the bound. */
Test(plan, interleaving_rules_at_scale)
{
	tb_inputs in;
	memset(&in, 0, sizeof in);
	small_dense(&in);
	tb_model *m = &in.model;
	m->layers = 126; m->hidden = 16384; m->heads = 128; m->kv_heads = 8;
	m->head_dim = 128; m->ffn_hidden = 53248; m->vocab = 128256;
	in.training.seq_len = 8192;
	in.training.global_batch = 2048;
	in.training.flash_attention = true;
	in.hardware.gpu.memory_bytes = 80e9;
	in.hardware.overhead_bytes = 2.0 * 1073741824.0;
	in.hardware.count = 16384;
	in.parallelism.tensor = 8; in.parallelism.pipeline = 16; in.parallelism.data = 128;
	in.parallelism.sequence_parallel = true; in.parallelism.zero = 2;
	tb_plan_space sp;
	memset(&sp, 0, sizeof sp);
	sp.top = TB_PLAN_TOP_MAX;
	static tb_plan_result r;
	tb_plan_search(&in, &sp, &r);
	cr_assert(r.known && r.n_layouts > 0);
	/* Meta trained with this layout on 80 GB cards (Dubey et al. 2024
	 * Sec. 3.3.2), so it fits the 81,559 MiB an H100 exposes, and is
	 * ranked behind or level with the best */
	cr_expect(r.scenario_fits, "%.4g bytes of %.4g", r.scenario.memory_per_gpu_bytes,
	          r.scenario.capacity_bytes);
	cr_expect(r.scenario_rank >= 1 &&
	          tb_plan_compare(&r.layouts[0], &r.scenario, TB_PLAN_BY_TIME) <= 0);
	for (int i = 0; i < r.n_layouts; i++) {
		const tb_plan_layout *l = &r.layouts[i];
		cr_expect(l->virtual_pipeline <= TB_PLAN_VIRTUAL_MAX);
		if (l->virtual_pipeline > 1)
			cr_expect(tb_perf_virtual_ok(126, l->pipeline, l->virtual_pipeline) &&
			          l->microbatches % l->pipeline == 0);
		cr_expect(l->tensor <= 8);
		cr_expect(!(l->zero == 3 && l->pipeline > 1));
		cr_expect(l->memory_per_gpu_bytes <= 80e9);
	}
}

Test(plan, count_only_model_is_refused_with_a_reason)
{
	tb_inputs in;
	small_dense(&in);
	in.model.has_shape = false;
	in.model.params_count = 7e9;
	static tb_plan_result r;
	tb_plan_search(&in, NULL, &r);
	cr_expect(!r.known);
	cr_expect(strstr(r.why, "parameter count") != NULL);
}

/* Issue 18: 83,160 experts on 73.5M GPUs once spent 217 s in an estimate's
 * search.  A space past the bound is refused before anything is
 * enumerated, with the size and the bound; one just under it is searched. */
Test(plan, a_space_past_the_bound_is_refused_up_front, .timeout = 10)
{
	tb_inputs in;
	small_moe(&in);
	in.model.experts = 83160;
	in.hardware.count = 73513440;
	in.training.global_batch = 73513440;
	static tb_plan_result r;
	tb_plan_search(&in, NULL, &r);
	cr_expect(!r.known);
	cr_expect(r.space > TB_PLAN_CANDIDATES_MAX, "space %g", r.space);
	cr_expect_eq(r.searched, 0);
	cr_expect(strstr(r.why, "4 billion") != NULL, "%s", r.why);
	/* 24 x 8 virtual x d(83,160) = 128 x d(B) x d4(N), by hand: 73,513,440 =
	 * 2^5 3^3 5 7 11 13 17, so d(B) = 6 x 4 x 2^5 = 768 and d4(N) = C(8,3)
	 * C(6,3) 4^5 = 56 x 20 x 1024 */
	cr_expect_eq(r.space, 24.0 * 8 * 128 * 768 * (56.0 * 20 * 1024));
	tb_plan_space sp;
	memset(&sp, 0, sizeof sp);
	cr_expect_eq(tb_plan_space_size(&in, &sp), r.space);
}

/* Issue 18: a global batch holding more tokens than the run ranked runs
 * shorter than one optimizer step.  Every candidate of such a batch breaks
 * the batch rule, and the counts still add up to the space. */
Test(plan, a_batch_past_the_run_is_never_ranked)
{
	tb_inputs in;
	small_dense(&in);
	in.hardware.gpu.memory_bytes = 80e9;
	tb_plan_space sp;
	memset(&sp, 0, sizeof sp);
	sp.batches[sp.n_batches++] = 32;
	/* 1e10 tokens / 2048 per sequence: 4,882,812 sequences at most */
	cr_expect(tb_plan_batch_ok(&in, 4882812));
	cr_expect(!tb_plan_batch_ok(&in, 4882813));
	sp.batches[sp.n_batches++] = 8388608;
	static tb_plan_result r, only;
	tb_plan_search(&in, &sp, &r);
	cr_assert(r.known && r.n_layouts > 0);
	for (int i = 0; i < r.n_layouts; i++)
		cr_expect_eq(r.layouts[i].global_batch, 32);
	cr_expect(r.space == (double)r.searched, "space %.17g vs %llu", r.space,
	          (unsigned long long)r.searched);
	sp.n_batches = 0;
	sp.batches[sp.n_batches++] = 8388608;
	tb_plan_search(&in, &sp, &only);
	cr_expect_eq(only.n_layouts, 0);
	cr_expect_eq(only.feasible, 0);
	cr_expect_eq(only.pruned_batch, only.searched);
	cr_expect(only.space == (double)only.searched);
}

/* ---- explanations --------------------------------------------------------- */

static tb_plan_layout S_base_layout(void)
{
	tb_plan_layout l;
	memset(&l, 0, sizeof l);
	l.tensor = 8; l.pipeline = 16; l.virtual_pipeline = 1; l.context = 1; l.expert = 1;
	l.data = 128; l.zero = 1; l.checkpointing = TB_CKPT_NONE; l.sequence_parallel = true;
	l.micro_batch = 1; l.global_batch = 2048; l.count = 16384; l.microbatches = 16;
	l.step_s = 10; l.mfu = 0.3; l.seconds = 1e6; l.cost = 1e7;
	l.memory_per_gpu_bytes = 60e9;
	l.breakdown_s[TB_PERF_COMPUTE] = 8;
	l.breakdown_s[TB_PERF_BUBBLE] = 1;
	l.breakdown_s[TB_PERF_TP_COMM] = 0.5;
	l.breakdown_s[TB_PERF_DP_COMM] = 0.5;
	return l;
}

Test(plan, explanation_names_the_terms_that_differ)
{
	static tb_plan_result r;
	memset(&r, 0, sizeof r);
	tb_plan_layout b = S_base_layout(), a = b;
	/* pipeline 8 instead of 16: the bubble halves; nothing else moves */
	a.pipeline = 8;
	a.data = 256;
	a.breakdown_s[TB_PERF_BUBBLE] = 0.5;
	a.step_s = 9.5;
	a.seconds = 0.95e6;
	a.cost = 0.95e7;
	char buf[1024];
	tb_plan_explain(&r, &a, "the best layout", &b, "the scenario's layout", buf, sizeof buf);
	cr_expect(strstr(buf, "pipeline 8 instead of 16 halves the bubble") != NULL, "%s", buf);
	cr_expect(strstr(buf, "5.3% faster") != NULL, "%s", buf);
	cr_expect(strstr(buf, "recomputation") == NULL, "%s", buf);
	cr_expect(strstr(buf, "tensor-parallel") == NULL, "%s", buf);
	cr_expect(strstr(buf, "compute") == NULL, "%s", buf);

	/* checkpointing: full instead of none adds the recomputation */
	a = b;
	a.checkpointing = TB_CKPT_FULL;
	a.breakdown_s[TB_PERF_RECOMPUTE] = 2.5;
	a.step_s = 12.5;
	a.memory_per_gpu_bytes = 30e9;
	tb_plan_explain(&r, &b, "A", &a, "B", buf, sizeof buf);
	cr_expect(strstr(buf, "no recomputation instead of full recomputation removes the "
	                      "recomputation") != NULL, "%s", buf);
	cr_expect(strstr(buf, "it needs 30 GB more per GPU") != NULL, "%s", buf);
	cr_expect(strstr(buf, "bubble") == NULL, "%s", buf);

	/* ZeRO and the memory it frees for a larger micro-batch */
	a = b;
	a.zero = 2;
	a.micro_batch = 2;
	a.memory_per_gpu_bytes = 38e9;
	a.breakdown_s[TB_PERF_DP_COMM] = 0.2;
	a.step_s = 9.7;
	tb_plan_explain(&r, &a, "the best layout", &b, "the runner-up", buf, sizeof buf);
	cr_expect(strstr(buf, "ZeRO-2 instead of ZeRO-1") != NULL, "%s", buf);
	cr_expect(strstr(buf, "data-parallel communication") != NULL, "%s", buf);
	cr_expect(strstr(buf, "needs 22 GB less per GPU, enough for micro-batch 2") != NULL, "%s", buf);

	/* the same layout: nothing is named */
	tb_plan_explain(&r, &b, "A", &b, "B", buf, sizeof buf);
	cr_expect(strstr(buf, "the same layout") != NULL, "%s", buf);
	/* a small buffer is cut, never overrun */
	char tiny[16];
	tb_plan_explain(&r, &a, "the best layout", &b, "the runner-up", tiny, sizeof tiny);
	cr_expect_eq(strlen(tiny), sizeof tiny - 1);
}

/* Narrowing the space to what a framework offers only removes candidates:
 * the same space size, every kept layout within the limits, and the best
 * one no better than the unrestricted best. */
Test(plan, restrictions_narrow_the_space)
{
	tb_inputs in;
	small_moe(&in);
	tb_plan_space sp;
	memset(&sp, 0, sizeof sp);
	sp.top = TB_PLAN_TOP_MAX;
	static tb_plan_result all, some;
	tb_plan_search(&in, &sp, &all);
	sp.zero_stages = 1u | 2u;
	sp.checkpointing_modes = 1u << TB_CKPT_FULL;
	sp.no_sequence_parallel = true;
	sp.no_context_parallel = true;
	sp.max_tensor = 2;
	sp.max_pipeline = 2;
	sp.max_virtual = 1;
	tb_plan_search(&in, &sp, &some);
	cr_expect_eq(some.searched * 8, all.searched,
	             "the space is the same but for the virtual stages (8 offered, 1 kept)");
	cr_expect(some.feasible > 0 && some.feasible < all.feasible);
	for (int i = 0; i < some.n_layouts; i++) {
		const tb_plan_layout *l = &some.layouts[i];
		cr_expect(l->zero <= 1 && l->checkpointing == TB_CKPT_FULL && !l->sequence_parallel &&
		          l->context == 1 && l->tensor <= 2 && l->pipeline <= 2 &&
		          l->virtual_pipeline == 1);
	}
	cr_expect(tb_plan_compare(&all.layouts[0], &some.layouts[0], TB_PLAN_BY_TIME) < 0);
}

/* Issue 19: a slower layout is "slower", never "level". */
Test(plan, a_slower_layout_is_never_level)
{
	tb_plan_result r;
	memset(&r, 0, sizeof r);
	r.objective = TB_PLAN_BY_TIME;
	tb_plan_layout a = S_base_layout(), b = S_base_layout();
	b.seconds = a.seconds * 0.9;
	b.step_s = a.step_s * 0.9;
	char buf[1024];
	tb_plan_explain(&r, &a, "the first", &b, "the second", buf, sizeof buf);
	cr_expect(strstr(buf, "the first is 11% slower than the second") != NULL, "%s", buf);
	cr_expect(strstr(buf, "level") == NULL, "%s", buf);
}

/* ---- threads ------------------------------------------------------------- */

static void S_same_result(const tb_plan_result *a, const tb_plan_result *b, int jobs)
{
	cr_expect_eq(a->searched, b->searched, "jobs %d", jobs);
	cr_expect_eq(a->pruned_rules, b->pruned_rules, "jobs %d", jobs);
	cr_expect_eq(a->pruned_batch, b->pruned_batch, "jobs %d", jobs);
	cr_expect_eq(a->pruned_memory, b->pruned_memory, "jobs %d", jobs);
	cr_expect_eq(a->feasible, b->feasible, "jobs %d", jobs);
	cr_expect_eq(a->scenario_rank, b->scenario_rank, "jobs %d", jobs);
	cr_assert_eq(a->n_layouts, b->n_layouts, "jobs %d", jobs);
	for (int i = 0; i < a->n_layouts; i++)
		expect_same(&a->layouts[i], &b->layouts[i], i);
	cr_assert_eq(a->n_front, b->n_front, "jobs %d", jobs);
	for (int i = 0; i < a->n_front; i++)
		expect_same(&a->front[i], &b->front[i], i);
	cr_expect_eq(a->have_best_here, b->have_best_here);
	if (a->have_best_here)
		expect_same(&a->best_here, &b->best_here, -1);
}

/* small_dense on an 80 GB card over two cards and twenty counts: a
 * space the thread tests search whole. */
static void S_two_card_case(tb_inputs *in, tb_plan_space *sp)
{
	small_dense(in);
	in->hardware.gpu.memory_bytes = 80e9;
	S_two_cards(sp, 20, TB_PLAN_BY_TIME);
}

/* The same result, to the last bit, on 1 to 8 threads: the brute-force
 * cases (each job prunes against its own lists, so a job times more and
 * keeps nothing else) and a search over two cards and five counts. */
Test(plan, any_number_of_threads_gives_the_same_result)
{
	static const int jobs[] = {2, 3, 5, 8};
	for (size_t i = 0; i < sizeof jobs / sizeof jobs[0]; i++) {
		tb_plan_set_jobs(jobs[i]);
		tb_inputs in;
		small_dense(&in);
		against_brute(&in, TB_PLAN_BY_TIME);
		small_moe(&in);
		against_brute(&in, TB_PLAN_BY_COST);
	}
	tb_inputs in;
	tb_plan_space sp;
	S_two_card_case(&in, &sp);
	static tb_plan_result one, many;
	tb_plan_set_jobs(1);
	tb_plan_search(&in, &sp, &one);
	for (size_t i = 0; i < sizeof jobs / sizeof jobs[0]; i++) {
		tb_plan_set_jobs(jobs[i]);
		tb_plan_search(&in, &sp, &many);
		S_same_result(&many, &one, jobs[i]);
	}
	tb_plan_set_jobs(0);
}

/* The caller's work beside a search (tb_plan_space.beside): run once, on
 * the search's second thread, not the caller's, before the search ends;
 * not at all with one thread; the result the same to the last bit. */
typedef struct S_beside {
	int calls;
	pthread_t caller, ran_on;
	bool search_running;    /* read back: the search had not returned */
	bool *returned;
} S_beside;

static void S_beside_run(void *ctx)
{
	S_beside *b = ctx;
	b->calls++;
	b->ran_on = pthread_self();
	b->search_running = !*b->returned;
}

Test(plan, the_callers_work_runs_once_on_the_searchs_second_thread)
{
	tb_inputs in;
	tb_plan_space sp;
	S_two_card_case(&in, &sp);
	static tb_plan_result plain, with;
	tb_plan_set_jobs(1);
	tb_plan_search(&in, &sp, &plain);
	static const int jobs[] = {1, 2, 5};
	for (size_t i = 0; i < sizeof jobs / sizeof jobs[0]; i++) {
		tb_plan_set_jobs(jobs[i]);
		bool returned = false;
		S_beside b = { 0, pthread_self(), pthread_self(), false, &returned };
		tb_plan_space sb = sp;
		sb.beside = S_beside_run;
		sb.beside_ctx = &b;
		tb_plan_search(&in, &sb, &with);
		returned = true;
		S_same_result(&with, &plain, jobs[i]);
		if (jobs[i] == 1) {
			cr_expect_eq(b.calls, 0, "one thread: the caller runs its work itself");
			continue;
		}
		cr_expect_eq(b.calls, 1, "jobs %d: called %d times", jobs[i], b.calls);
		cr_expect(b.search_running, "jobs %d: before the search returned", jobs[i]);
		cr_expect(!pthread_equal(b.ran_on, b.caller), "jobs %d: on the caller's thread",
		          jobs[i]);
	}
	tb_plan_set_jobs(0);
}

/* Threads are decided by what a search times, not by its space: one
 * whose keys are held (the answer's search of a written layout) spans a
 * space past the threading threshold and times a few candidates, so it
 * runs on the caller's thread alone (its work beside it is then left to
 * the caller); the same space with nothing held goes on the cores. */
Test(plan, a_search_of_held_keys_stays_on_its_thread)
{
	tb_plan_set_jobs(0);
	if (tb_plan_jobs() < 2)
		cr_skip_test("one CPU online: every search runs on one thread");
	tb_inputs in;
	small_dense(&in);
	in.hardware.count = 4096;
	in.hardware.gpu.memory_bytes = 80e9;
	in.training.global_batch = 4096;
	tb_plan_space sp;
	memset(&sp, 0, sizeof sp);
	sp.best_only = true;
	static tb_plan_result r;
	tb_plan_search(&in, &sp, &r);
	cr_assert(r.space >= 200000, "a space past the threshold: %.0f", r.space);

	bool returned = false;
	S_beside b = { 0, pthread_self(), pthread_self(), false, &returned };
	sp.beside = S_beside_run;
	sp.beside_ctx = &b;
	sp.fix = TB_LAYOUT_ALL;
	sp.fix_tensor = 4;
	sp.fix_pipeline = 8;
	sp.fix_virtual = 1;
	sp.fix_context = 1;
	sp.fix_expert = 1;
	sp.fix_zero = 1;
	sp.fix_micro_batch = 1;
	sp.fix_checkpointing = TB_CKPT_NONE;
	tb_plan_search(&in, &sp, &r);
	cr_expect_eq(b.calls, 0, "every key held: no second thread");
	cr_expect_eq(r.n_layouts, 1);
	cr_expect_eq(r.layouts[0].tensor, 4);
	cr_expect_eq(r.layouts[0].pipeline, 8);

	sp.fix = 0;
	tb_plan_search(&in, &sp, &r);
	returned = true;
	cr_expect_eq(b.calls, 1, "nothing held: the space goes on the cores");
}

/* A search for the best alone (tb_plan_space.best_only: a text estimate
 * prints nothing else) finds the same best layout and the same scenario
 * row to the last bit, keeps a list of one, ranks nothing and says that it
 * skipped candidates; the space is still the space.  On 16 and 64 GPUs,
 * dense and mixture, by time and by cost, against the full search's list
 * of ten, on 1 to 8 threads (whose jobs then prune against each other's
 * finds, plan_int.h tb_plan_bars). */
Test(plan, the_best_alone_is_the_full_searchs_best)
{
	static const tb_plan_objective objs[] = { TB_PLAN_BY_TIME, TB_PLAN_BY_COST };
	static const int jobs[] = { 1, 2, 5, 8 };
	int skipped = 0;
	for (size_t ji = 0; ji < sizeof jobs / sizeof jobs[0]; ji++)
	for (int big = 0; big < 2; big++)
		for (int moe = 0; moe < 2; moe++)
			for (size_t o = 0; o < sizeof objs / sizeof objs[0]; o++) {
				tb_inputs in;
				if (moe)
					small_moe(&in);
				else
					small_dense(&in);
				if (big)
					on_64(&in);
				tb_plan_space sp;
				memset(&sp, 0, sizeof sp);
				sp.objective = objs[o];
				sp.max_virtual = 4;
				static tb_plan_result all, best;
				tb_plan_set_jobs(1);
				tb_plan_search(&in, &sp, &all);
				sp.best_only = true;
				tb_plan_set_jobs(jobs[ji]);
				tb_plan_search(&in, &sp, &best);
				cr_assert(all.known && best.known);
				cr_expect(all.counted);
				skipped += !best.counted;
				cr_expect_eq(best.searched, all.searched);
				cr_expect_leq(best.feasible, all.feasible);
				cr_expect(all.scenario_rank > 1, "the scenario's layout is not the best");
				cr_expect_eq(best.scenario_rank, 0);
				cr_assert(all.n_layouts > 1);
				cr_assert_eq(best.n_layouts, 1);
				expect_same(&best.layouts[0], &all.layouts[0], 0);
				cr_expect_eq(best.scenario_known, all.scenario_known);
				cr_expect_eq(best.scenario_fits, all.scenario_fits);
				expect_same(&best.scenario, &all.scenario, -1);
			}
	tb_plan_set_jobs(0);
	cr_expect(skipped >= 16, "the bound ruled shapes out and they were skipped (%d of 32)", skipped);
}

/* Context parallelism's all-to-all form hands each of the t x c ranks
 * whole query heads and key-value groups: under cp_comm_type a2a the
 * search keeps only the context sizes that divide both on each tensor
 * rank (the scenario's check and this rule read tb_perf_cp_ok), where the
 * ring keeps every size the sequence splits into. */
Test(plan, context_all_to_all_needs_whole_heads)
{
	tb_inputs in;
	small_moe(&in);
	in.model.kv_heads = 2;
	tb_plan_space sp;
	memset(&sp, 0, sizeof sp);
	sp.top = TB_PLAN_TOP_MAX;
	static tb_plan_result ring, a2a;
	tb_plan_search(&in, &sp, &ring);
	in.parallelism.cp_comm = TB_CP_A2A;
	tb_plan_search(&in, &sp, &a2a);
	cr_expect(a2a.feasible > 0 && a2a.feasible < ring.feasible, "%llu vs %llu",
	          (unsigned long long)a2a.feasible, (unsigned long long)ring.feasible);
	bool wide = false;
	for (int i = 0; i < ring.n_layouts; i++)
		wide = wide || ring.layouts[i].context * ring.layouts[i].tensor > 2;
	cr_expect(wide, "the ring's layouts include a context the all-to-all cannot take");
	for (int i = 0; i < a2a.n_layouts; i++) {
		const tb_plan_layout *l = &a2a.layouts[i];
		cr_expect(tb_perf_cp_ok(TB_CP_A2A, in.model.heads, 2, l->tensor, l->context),
		          "tensor %lld context %lld", (long long)l->tensor, (long long)l->context);
	}
}

/* Every layout of in on 16 of its card that the search keeps. */
static void S_search16(const tb_inputs *in, tb_plan_result *r)
{
	tb_plan_space sp;
	memset(&sp, 0, sizeof sp);
	sp.top = TB_PLAN_TOP_MAX;
	sp.counts[sp.n_counts++] = 16;
	tb_plan_search(in, &sp, r);
	cr_assert(r->known && r->n_layouts > 0);
}

/* Megatron-LM's fp8 parameters need a sharding optimizer over the
 * replicas, so the search offers no ZeRO-0 with them; the flag is read
 * only under fp8-mixed (tb_fp8_params), so a bf16 run that carries it is
 * searched as any bf16 run is, ZeRO-0 included. */
Test(plan, fp8_parameters_rule_out_zero0_in_fp8_only)
{
	static tb_plan_result r;
	const tb_precision precs[2] = { TB_PREC_FP8_MIXED, TB_PREC_BF16_MIXED };
	for (int k = 0; k < 2; k++) {
		tb_inputs in;
		small_dense(&in);
		in.training.precision = precs[k];
		in.training.fp8_param_gather = true;
		in.parallelism.framework = TB_FW_MEGATRON;
		cr_expect_eq(tb_fp8_params(&in), k == 0);
		S_search16(&in, &r);
		int zero0 = 0;
		for (int i = 0; i < r.n_layouts; i++)
			zero0 += r.layouts[i].zero == 0 && r.layouts[i].data * r.layouts[i].context > 1;
		if (k == 0)
			cr_expect_eq(zero0, 0, "fp8 parameters: %d ZeRO-0 layouts", zero0);
		else
			cr_expect(zero0 > 0, "bf16: no ZeRO-0 layout offered");
	}
	/* nor under fsdp or for a method that trains no base */
	tb_inputs in;
	small_dense(&in);
	in.training.precision = TB_PREC_FP8_MIXED;
	in.training.fp8_param_gather = true;
	in.parallelism.framework = TB_FW_FSDP;
	cr_expect(!tb_fp8_params(&in));
	in.parallelism.framework = TB_FW_MEGATRON;
	in.training.method = TB_METHOD_LORA;
	cr_expect(!tb_fp8_params(&in));
}

/* A step captured whole in a CUDA graph is priced over the bucketed
 * reduction of ZeRO 0-2 (tb_perf_cuda_graph_ok): the search, free to pick
 * the stage, offers ZeRO 3 without the graph (framework not named, where
 * ZeRO-3 layouts are offered) and none with it. */
Test(plan, whole_step_graph_rules_out_zero3)
{
	static tb_plan_result r;
	const tb_cuda_graph graphs[2] = { TB_CUDA_GRAPH_NONE, TB_CUDA_GRAPH_FULL_ITERATION };
	for (int k = 0; k < 2; k++) {
		tb_inputs in;
		small_dense(&in);
		in.parallelism.cuda_graph = graphs[k];
		S_search16(&in, &r);
		int zero3 = 0;
		for (int i = 0; i < r.n_layouts; i++)
			zero3 += r.layouts[i].zero == 3;
		if (k == 0)
			cr_expect(zero3 > 0, "no ZeRO-3 layout offered without the graph");
		else
			cr_expect_eq(zero3, 0, "whole-step graph: %d ZeRO-3 layouts", zero3);
	}
	const char *why;
	cr_expect(!tb_perf_cuda_graph_ok(TB_CUDA_GRAPH_FULL_ITERATION, TB_FW_FSDP, 1, &why) &&
	          strstr(why, "Megatron-LM's"));
	cr_expect(tb_perf_cuda_graph_ok(TB_CUDA_GRAPH_LAYERS, TB_FW_FSDP, 3, &why) && !*why);
}
