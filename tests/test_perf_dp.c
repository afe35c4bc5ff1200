/* test_perf_dp.c: the data-parallel reduction of a step (perf_dp.c):
 * the ZeRO stages each framework has, their reductions per step, HSDP,
 * FSDP's no_sync and its own overlap cost, and the whole reduction exposed
 * without overlap. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "trainbudget/budget.h"
#include "trainbudget/gpus.h"
#include "trainbudget/perf.h"
#include "trainbudget/presets.h"
#include "perf_fixtures.h"

/* Llama 3.1 405B as torchtitan's docs ran it (docs/performance.md, commit
 * 4d88a8a): 128 H100 of 95 GB HBM2e at a lower TDP (taken as 500 W), FSDP
 * 16 x TP 8, local batch 2 of 8,192, full recomputation, fp8 linears: 177
 * tokens/s per GPU. */
static void S_torchtitan_405b(tb_inputs *x, tb_framework fw)
{
	S_torchtitan_8b(x, TB_SELECTIVE_ATTENTION, 500);
	x->model.layers = 126;
	x->model.hidden = 16384;
	x->model.heads = 128;
	x->model.ffn_hidden = 53248;
	x->training.global_batch = 32;
	x->training.checkpointing = TB_CKPT_FULL;
	x->training.precision = TB_PREC_FP8_MIXED;
	x->parallelism.tensor = 8;
	x->parallelism.data = 16;
	x->parallelism.sequence_parallel = true;
	x->parallelism.framework = fw;
	x->hardware.count = 128;
}

Test(perf, framework_zero_stages)
{
	const char *why;
	cr_expect(!tb_perf_framework_zero_ok(TB_FW_MEGATRON, 2, 1, &why));
	cr_expect(strstr(why, "ZeRO-1") != NULL, "%s", why);
	cr_expect(tb_perf_framework_zero_ok(TB_FW_MEGATRON, 1, 16, NULL));
	cr_expect(!tb_perf_framework_zero_ok(TB_FW_FSDP, 1, 1, NULL));
	cr_expect(tb_perf_framework_zero_ok(TB_FW_FSDP, 2, 1, NULL));
	cr_expect(tb_perf_framework_zero_ok(TB_FW_DEEPSPEED, 2, 1, NULL));
	cr_expect(!tb_perf_framework_zero_ok(TB_FW_DEEPSPEED, 2, 4, NULL));
	cr_expect(tb_perf_framework_zero_ok(TB_FW_DEEPSPEED, 1, 4, NULL));
	for (int z = 0; z < 4; z++)
		cr_expect(tb_perf_framework_zero_ok(TB_FW_ANY, z, 16, NULL));
}

/* How many reductions a step makes, by framework (docs/formulas.md): the
 * distributed optimizer (ZeRO-1) reduces and gathers once a step; ZeRO-2
 * reduce-scatters every micro-batch and gathers once (DeepSpeed), or every
 * micro-batch too (FSDP's SHARD_GRAD_OP); ZeRO-3 gathers twice and reduces
 * once every micro-batch. */
Test(perf, reductions_per_step_by_framework)
{
	tb_perf_input in;
	S_gpt(&in, "h100-sxm", 4096, 32, 32, 2048, 512, 2, 1, 1, 1, 64, TB_CKPT_NONE, false);
	tb_perf_result r;
	double m = 512.0 / (2 * 64);                /* 4 micro-batches */
	in.zero = 1;
	tb_perf_predict(&in, NULL, &r);
	cr_assert(r.ok && r.microbatches == 4);
	cr_expect(rel(r.dp_total_s, r.dp_s) < 1e-12);
	in.zero = 3;
	tb_perf_predict(&in, NULL, &r);
	cr_expect(rel(r.dp_total_s, m * r.dp_s) < 1e-12);
	in.zero = 2;
	in.framework = TB_FW_FSDP;
	tb_perf_predict(&in, NULL, &r);
	cr_expect(rel(r.dp_total_s, m * r.dp_s) < 1e-12);
	double fsdp = r.dp_total_s;
	in.framework = TB_FW_DEEPSPEED;
	tb_perf_predict(&in, NULL, &r);
	cr_expect(r.dp_total_s < fsdp && r.dp_total_s > r.dp_s * 1.5);
}

/* HSDP by hand (FSDP's HYBRID_SHARD): ZeRO-3 over 64 ranks in shard groups
 * of 8 (one node each): every micro-batch gathers the weights twice and
 * reduce-scatters the gradients inside the node, then all-reduces the
 * 1/8 gradient shard across the 8 nodes, one rank a node; each rank
 * updates 1/8 of the weights, and holds 8 times the sharded states of
 * ZeRO-3 over all 64. */
Test(perf, hsdp_shards_within_a_group)
{
	tb_inputs x;
	S_budget_inputs(&x);
	x.parallelism.tensor = 1;
	x.parallelism.pipeline = 1;
	x.parallelism.data = 64;
	x.parallelism.zero = 3;
	x.hardware.count = 64;
	static tb_budget whole, hsdp;
	tb_budget_compute(&x, &whole);
	x.parallelism.shard_group = 8;
	tb_budget_compute(&x, &hsdp);
	cr_assert(whole.perf.known && hsdp.perf.known, "%s %s", whole.perf.why, hsdp.perf.why);
	const tb_perf_input *in = &hsdp.perf.in;
	cr_expect_eq(in->shard_group, 8);
	const tb_perf_result *r = &hsdp.perf.r;
	double dense = r->dp_bytes / (2 * in->param_bytes + in->grad_bytes);
	double ag = tb_perf_collective_s(TB_COLL_ALL_GATHER, dense * in->param_bytes, 8, 8, &in->hw, NULL);
	double rs = tb_perf_collective_s(TB_COLL_REDUCE_SCATTER, dense * in->grad_bytes, 8, 8, &in->hw, NULL) +
	            tb_perf_collective_s(TB_COLL_ALL_REDUCE, dense * in->grad_bytes / 8, 8, 1, &in->hw, NULL);
	cr_expect(rel(r->dp_s, 2 * ag + rs) < 1e-12, "%g vs %g", r->dp_s, 2 * ag + rs);
	cr_expect(rel(r->optimizer_params, dense / 8) < 1e-12);
	cr_expect(rel(whole.perf.r.optimizer_params, dense / 64) < 1e-12);
	/* the sharded states: 8x ZeRO-3's over 64 */
	cr_expect(rel(hsdp.memory.per_gpu.optimizer, 8 * whole.memory.per_gpu.optimizer) < 1e-9,
	          "%g vs %g", hsdp.memory.per_gpu.optimizer, whole.memory.per_gpu.optimizer);
	/* a group that does not divide the replicas is refused */
	tb_perf_input bad = *in;
	bad.shard_group = 7;
	tb_perf_result rb;
	tb_perf_predict(&bad, NULL, &rb);
	cr_expect(!rb.ok && strstr(rb.why, "shard"));
}

/* FSDP's no_sync: ZeRO-3 still gathers the weights twice every micro-batch
 * but reduce-scatters once a step, after the last backward, keeping the
 * whole gradient until then: (m - 1) reduce-scatters fewer, the gradients
 * unsharded in memory (d times ZeRO-3's share). */
Test(perf, fsdp_no_sync)
{
	tb_inputs x;
	S_budget_inputs(&x);
	x.parallelism.tensor = 1;
	x.parallelism.pipeline = 1;
	x.parallelism.data = 64;
	x.parallelism.zero = 3;
	x.parallelism.framework = TB_FW_FSDP;
	x.hardware.count = 64;
	static tb_budget each, once;
	tb_budget_compute(&x, &each);
	x.parallelism.no_sync = true;
	tb_budget_compute(&x, &once);
	cr_assert(each.perf.known && once.perf.known);
	const tb_perf_result *a = &each.perf.r, *b = &once.perf.r;
	cr_assert_gt(a->microbatches, 1);
	const tb_perf_input *in = &once.perf.in;
	double dense = b->dp_bytes / (2 * in->param_bytes + in->grad_bytes);
	double rs = tb_perf_collective_s(TB_COLL_REDUCE_SCATTER, dense * in->grad_bytes, 64, 8,
	                                 &in->hw, NULL);
	cr_expect(rel(a->dp_total_s - b->dp_total_s, (double)(a->microbatches - 1) * rs) < 1e-9,
	          "%g vs %g", a->dp_total_s - b->dp_total_s, (double)(a->microbatches - 1) * rs);
	cr_expect(b->breakdown_s[TB_PERF_DP_COMM] <= a->breakdown_s[TB_PERF_DP_COMM]);
	/* the sharded gradients: the unit's ZeRO-3 holds at once are no_sync's too */
	const tb_mem_items *me = &each.memory.per_gpu, *mo = &once.memory.per_gpu;
	cr_expect(rel(mo->gradients - mo->gathered_gradients, 64 * (me->gradients - me->gathered_gradients)) < 1e-9,
	          "%g vs %g", mo->gradients, me->gradients);
	cr_expect_eq(mo->weights, me->weights);
}

/* FSDP under a pipeline (torch.distributed.pipelining turns FSDP's gradient
 * sync and reshard-after-backward off for every micro-batch and reduces
 * after the last; torchtitan turns reshard-after-forward off under PP):
 * one gather of the stage's weights and one reduce-scatter of its
 * gradients a step, whatever the micro-batches, the reduce-scatter after
 * the last backward with no compute beside it; in memory the stage's
 * weights and gradients whole, DP times ZeRO-3's share.  GPT-3 175B at
 * TP 8, PP 8, DP 16: 96 micro-batches of 1 a step, then 48. */
Test(perf, fsdp_pipeline_holds_the_stage)
{
	tb_inputs x;
	S_budget_inputs(&x);
	x.parallelism.zero = 3;
	static tb_budget any, held, half;
	tb_budget_compute(&x, &any);
	x.parallelism.framework = TB_FW_FSDP;
	tb_budget_compute(&x, &held);
	x.training.global_batch /= 2;
	tb_budget_compute(&x, &half);
	cr_assert(any.perf.known && held.perf.known && half.perf.known);
	const tb_perf_result *a = &any.perf.r, *h = &held.perf.r;
	const tb_perf_input *in = &held.perf.in;
	cr_assert_eq(h->microbatches, 96);
	/* the step's bytes: the stage's weights once and its gradients */
	double dense = h->dp_bytes / (in->param_bytes + in->grad_bytes);
	double rs = tb_perf_collective_s(TB_COLL_REDUCE_SCATTER, dense * in->grad_bytes, 16, 1, &in->hw, NULL);
	double ag = tb_perf_collective_s(TB_COLL_ALL_GATHER, dense * in->param_bytes, 16, 1, &in->hw, NULL);
	cr_expect(rel(h->dp_total_s, ag + rs) < 1e-9, "%g vs %g", h->dp_total_s, ag + rs);
	cr_expect(rel(half.perf.r.dp_total_s, h->dp_total_s) < 1e-12);
	/* ZeRO-3 elsewhere: two gathers and a reduce-scatter every micro-batch */
	cr_expect(rel(a->dp_total_s, 96 * (2 * ag + rs)) < 1e-9, "%g vs %g", a->dp_total_s, 96 * (2 * ag + rs));
	cr_expect(h->breakdown_s[TB_PERF_DP_COMM] >= rs && h->breakdown_s[TB_PERF_DP_COMM] <= ag + rs,
	          "%g not in %g..%g", h->breakdown_s[TB_PERF_DP_COMM], rs, ag + rs);
	/* held whole: nothing gathered a unit at a time on top */
	const tb_mem_items *ma = &any.memory.per_gpu, *mh = &held.memory.per_gpu;
	cr_expect(mh->gathered_weights == 0 && mh->gathered_gradients == 0);
	double wa = ma->weights - ma->gathered_weights, ga = ma->gradients - ma->gathered_gradients;
	cr_expect(rel(mh->weights, 16 * wa) < 1e-12, "%g vs %g", mh->weights, wa);
	cr_expect(rel(mh->gradients, 16 * ga) < 1e-12, "%g vs %g", mh->gradients, ga);
	cr_expect_eq(mh->master_weights, ma->master_weights);
	cr_expect_eq(mh->optimizer, ma->optimizer);
	cr_expect(held.memory.weights_whole && held.memory.gradients_whole);
	cr_expect(!any.memory.weights_whole && !any.memory.gradients_whole);
	cr_expect(strstr(tb_perf_dp_rule(TB_FW_FSDP, 3, false, 8), "pipeline"));
	cr_expect(!strstr(tb_perf_dp_rule(TB_FW_FSDP, 3, false, 1), "pipeline"));
	/* SHARD_GRAD_OP alike: its gradients whole, its weights were */
	x.parallelism.zero = 2;
	tb_budget_compute(&x, &held);
	x.parallelism.framework = TB_FW_ANY;
	tb_budget_compute(&x, &any);
	cr_expect(rel(mh->gradients, 16 * ma->gradients) < 1e-12);
	cr_expect_eq(mh->weights, ma->weights);
	cr_expect(held.memory.gradients_whole && !held.memory.weights_whole);
	/* one stage: FULL_SHARD as ever */
	x.parallelism.framework = TB_FW_FSDP;
	x.parallelism.zero = 3;
	x.parallelism.pipeline = 1;
	x.parallelism.data = 128;
	tb_budget_compute(&x, &held);
	cr_expect(!held.memory.weights_whole && !held.memory.gradients_whole);
	cr_expect(held.perf.known && held.perf.r.dp_total_s > held.perf.r.microbatches * held.perf.r.dp_s * 0.999);
}

/* Forward only under FSDP in a pipeline: the weights gathered once a step
 * and held, whatever the micro-batches (the memory holds them whole too),
 * nothing reduced.  GPT-3 175B at TP 8, PP 8, DP 16, 96 micro-batches
 * then 48. */
Test(perf, fsdp_pipeline_forward_only_gathers_once)
{
	tb_inputs x;
	S_budget_inputs(&x);
	x.parallelism.zero = 3;
	x.parallelism.framework = TB_FW_FSDP;
	x.training.method = TB_METHOD_FROZEN;
	static tb_budget a, b;
	tb_budget_compute(&x, &a);
	x.training.global_batch /= 2;
	tb_budget_compute(&x, &b);
	cr_assert(a.perf.known && b.perf.known);
	cr_assert(a.memory.weights_whole);
	const tb_perf_input *in = &a.perf.in;
	double ag = tb_perf_collective_s(TB_COLL_ALL_GATHER, a.perf.r.dp_bytes, 16, 1, &in->hw, NULL);
	cr_expect(rel(a.perf.r.dp_total_s, ag) < 1e-9, "%g vs %g", a.perf.r.dp_total_s, ag);
	cr_expect(rel(b.perf.r.dp_total_s, a.perf.r.dp_total_s) < 1e-12);
	/* a stage's weights once (the busiest stage, the embedding's, a few
	 * percent over an even share) */
	cr_expect(rel(a.perf.r.dp_bytes, a.params.total / 64 * in->param_bytes) < 0.05, "%g vs %g",
	          a.perf.r.dp_bytes, a.params.total / 64 * in->param_bytes);
}

/* parallelism.overlap_dp: false, Megatron-LM as MegaScale's baseline ran it
 * (commit 285068c8, January 2023; --overlap-grad-reduce arrived in August
 * 2023): the distributed optimizer's reduce-scatter and gather wait for the
 * backward, so the whole of the data-parallel communication is in the step;
 * with the overlap, what one micro-batch's pass covers hides.  MegaScale Table 2's 175B layout at
 * 12,288 GPUs (TP 8, PP 8, 6 virtual stages, DP 192, batch 6,144). */
Test(perf, overlap_dp_false_exposes_the_whole_reduction)
{
	tb_inputs x;
	memset(&x, 0, sizeof x);
	x.model.has_shape = true;
	x.model.layers = 96;
	x.model.hidden = 12288;
	x.model.heads = 96;
	x.model.kv_heads = 96;
	x.model.head_dim = 128;
	x.model.ffn_hidden = 4 * 12288;
	x.model.vocab = 64000;
	x.training.seq_len = 2048;
	x.training.global_batch = 6144;
	x.training.micro_batch = 1;
	x.training.precision = TB_PREC_BF16_MIXED;
	x.training.optimizer = TB_OPT_ADAMW;
	x.training.flash_attention = true;
	x.parallelism.tensor = 8;
	x.parallelism.pipeline = 8;
	x.parallelism.virtual_pipeline = 6;
	x.parallelism.data = 192;
	x.parallelism.zero = 1;
	x.parallelism.sequence_parallel = true;
	x.parallelism.framework = TB_FW_MEGATRON;
	x.hardware.gpu = *tb_gpus_find("a100-80gb");
	x.hardware.count = 12288;
	tb_perf_input in;
	tb_perf_result on, off;
	tb_perf_input_from(&x, &in);
	cr_assert(in.overlap_dp, "the default overlaps");
	tb_perf_predict(&in, NULL, &on);
	cr_assert(on.ok, "%s", on.why);
	x.parallelism.no_overlap_dp = true;
	tb_perf_input_from(&x, &in);
	cr_assert(!in.overlap_dp);
	tb_perf_predict(&in, NULL, &off);
	cr_assert(off.ok, "%s", off.why);
	cr_expect(rel(off.breakdown_s[TB_PERF_DP_COMM], off.dp_total_s) < 1e-12, "%g of %g s",
	          off.breakdown_s[TB_PERF_DP_COMM], off.dp_total_s);
	/* overlapped, the last micro-batch's backward and the first one's
	 * forward hide what they can */
	cr_expect(on.breakdown_s[TB_PERF_DP_COMM] < off.breakdown_s[TB_PERF_DP_COMM], "%g of %g s",
	          on.breakdown_s[TB_PERF_DP_COMM], on.dp_total_s);
	/* the first stage's embedding tail ends the overlapped step, and
	 * counts among its collectives, where another stage is busiest */
	cr_expect(on.dp_total_s >= off.dp_total_s, "%g against %g s", on.dp_total_s, off.dp_total_s);
	cr_expect(off.step_s > on.step_s);
}

/* ZeRO-3's hidden collectives cost zero3_overlap_cost of their time under
 * DeepSpeed (and a framework not named), fsdp_overlap_cost under FSDP and
 * Megatron-FSDP: dp = E + k (T - E), E what the overlap rule exposes and T
 * the collectives' whole time.  At 405B the gathers are about half the
 * step; FSDP hides them, as torchtitan's published figure shows. */
Test(perf, fsdp_pays_its_own_overlap_cost)
{
	tb_inputs x;
	tb_perf_input in;
	tb_perf_result r[3];
	tb_perf_consts k = tb_perf_fitted;
	S_torchtitan_405b(&x, TB_FW_FSDP);
	tb_perf_input_from(&x, &in);
	double cost[3] = { 0, 0.5, 1 };
	for (int i = 0; i < 3; i++) {
		k.fsdp_overlap_cost = cost[i];
		tb_perf_predict(&in, &k, &r[i]);
		cr_assert(r[i].ok, "%s", r[i].why);
	}
	double e = r[0].breakdown_s[TB_PERF_DP_COMM], t = r[2].breakdown_s[TB_PERF_DP_COMM];
	cr_expect(e < 0.2 * t, "exposed %g of %g s", e, t);
	cr_expect(rel(t, r[2].dp_total_s) < 1e-9, "%g vs %g s", t, r[2].dp_total_s);
	cr_expect(rel(r[1].breakdown_s[TB_PERF_DP_COMM], (e + t) / 2) < 1e-9);

	/* DeepSpeed's constant is the other one: fsdp_overlap_cost moves nothing */
	tb_perf_result ds, ds0;
	S_torchtitan_405b(&x, TB_FW_DEEPSPEED);
	tb_perf_input_from(&x, &in);
	k = tb_perf_fitted;
	tb_perf_predict(&in, &k, &ds);
	k.fsdp_overlap_cost = 0;
	tb_perf_predict(&in, &k, &ds0);
	cr_assert(ds.ok && ds0.ok);
	cr_expect(ds.step_s == ds0.step_s);
	S_torchtitan_405b(&x, TB_FW_ANY);
	tb_perf_input_from(&x, &in);
	tb_perf_result any;
	tb_perf_predict(&in, NULL, &any);
	cr_expect(any.step_s == ds.step_s, "a framework not named is priced as DeepSpeed");
	/* the report's assumptions say the same rule */
	cr_expect(tb_perf_zero3_overlap_cost(TB_FW_ANY, NULL) == tb_perf_fitted.zero3_overlap_cost);
	cr_expect(tb_perf_zero3_overlap_cost(TB_FW_MEGATRON, NULL) == tb_perf_fitted.fsdp_overlap_cost);
	cr_expect(strstr(tb_perf_dp_rule(TB_FW_FSDP, 3, false, 1), "fsdp_overlap_cost"));
	cr_expect(strstr(tb_perf_dp_rule(TB_FW_ANY, 3, false, 1), "zero3_overlap_cost"));
	cr_expect(strstr(tb_perf_dp_rule(TB_FW_FSDP, 2, false, 1), "every micro-batch"));
	cr_expect(strstr(tb_perf_dp_rule(TB_FW_ANY, 2, false, 1), "gathered once a step"));

	/* the published step: 32 x 8,192 tokens at 177 tokens/s on each of 128 */
	double published = 32 * 8192.0 / (128 * 177.0);
	tb_perf_result fsdp;
	S_torchtitan_405b(&x, TB_FW_FSDP);
	tb_perf_input_from(&x, &in);
	tb_perf_predict(&in, NULL, &fsdp);
	cr_expect(rel(fsdp.step_s, published) < 0.15, "%g s vs %g s", fsdp.step_s, published);
	cr_expect(ds.step_s > 1.5 * published, "%g s", ds.step_s);
}

/* Llama 3.1 8B on 16 H100 (two nodes) as MLPerf's 8B runs: one
 * micro-batch of two sequences a step, bf16 gradients, no recomputation;
 * its input embedding is 128,256 x 4,096 = 525,336,576 weights. */
static const double S_embedding_bytes = 525336576.0 * 2;

static void S_mlperf_8b(tb_inputs *x)
{
	S_torchtitan_8b(x, TB_SELECTIVE_ATTENTION, 0);
	x->hardware.gpu = *tb_gpus_find("h100-sxm");
	x->hardware.count = 16;
	x->training.checkpointing = TB_CKPT_NONE;
	x->training.global_batch = 32;
	x->training.grad_dtype = TB_GRAD_BF16;
	x->parallelism.data = 16;
}

/* The bucket a perf input's layout runs (its data and context as set,
 * a search's as well as a scenario's). */
static double S_bucket(const tb_perf_input *in)
{
	return tb_perf_dp_bucket(in->framework, in->overlap_dp || in->dp_buckets_unhidden, in->zero,
	                         in->context * in->data, in->bucket_size, in->grad_bytes, NULL);
}

/* Buckets by hand: Llama 3.1 8B (8,030,261,248 weights, 2 bytes a
 * gradient and a weight) under Megatron-LM's distributed optimizer on 16
 * H100 of two nodes.  Each bucket is a collective of its own, at its own
 * message size: the step's reduce-scatter and gather cost
 * bytes / bucket x T(bucket) against T(bytes) for one collective.  NeMo's
 * distributed Adam of MLPerf v4.0 (bucket_cap_mb 200 of bf16: 104,857,600
 * weights) pays more than one collective, Megatron-LM's default on 16
 * ranks (max(40M, 1M x 16) = 40M weights) more still, though a bucket
 * holds whole parameters, so none is smaller than the mean trained tensor,
 * a layer's four: 8,030,261,248 / (4 x 32) = 62,736,416.  The
 * default follows the ranks: 448M weights on 448.  Without the overlap
 * Megatron-LM reduces the whole buffer at once; DeepSpeed's default is one
 * collective too; PyTorch DDP's 25 MiB of gradients under ZeRO 0. */
Test(perf, data_parallel_buckets_by_hand)
{
	tb_inputs x;
	S_mlperf_8b(&x);
	x.parallelism.zero = 1;
	x.parallelism.framework = TB_FW_MEGATRON;
	double bytes = 8030261248.0 * 2;
	tb_perf_input in;
	tb_perf_result one, b200, dflt;
	x.parallelism.bucket_size = 1000000000000LL;
	tb_perf_input_from(&x, &in);
	tb_perf_predict(&in, NULL, &one);
	cr_assert(one.ok, "%s", one.why);
	x.parallelism.bucket_size = 104857600;
	tb_perf_input_from(&x, &in);
	tb_perf_predict(&in, NULL, &b200);
	x.parallelism.bucket_size = 0;
	tb_perf_input_from(&x, &in);
	cr_expect_eq(S_bucket(&in), 40e6);
	tb_perf_predict(&in, NULL, &dflt);
	cr_assert(b200.ok && dflt.ok);
	const tb_coll k[2] = { TB_COLL_REDUCE_SCATTER, TB_COLL_ALL_GATHER };
	double whole = 0, by200 = 0, by40 = 0;
	for (int i = 0; i < 2; i++) {
		whole += tb_perf_collective_s(k[i], bytes, 16, 8, &in.hw, NULL);
		by200 += bytes / (104857600 * 2.0) * tb_perf_collective_s(k[i], 104857600 * 2.0, 16, 8, &in.hw, NULL);
		by40 += bytes / (62736416 * 2.0) * tb_perf_collective_s(k[i], 62736416 * 2.0, 16, 8, &in.hw, NULL);
	}
	cr_expect(by40 > by200 && by200 > whole, "%g %g %g", by40, by200, whole);
	cr_expect(rel(b200.dp_total_s - one.dp_total_s, by200 - whole) < 1e-6, "%g against %g",
	          b200.dp_total_s - one.dp_total_s, by200 - whole);
	cr_expect(rel(dflt.dp_total_s - one.dp_total_s, by40 - whole) < 1e-6, "%g against %g",
	          dflt.dp_total_s - one.dp_total_s, by40 - whole);
	/* the default follows the ranks, a search's layout's as well (plan
	 * sets a layout's sizes on an input it made once) */
	tb_perf_input patched = in;
	patched.data = 448;
	x.parallelism.data = 448;
	x.hardware.count = 448;
	tb_perf_input_from(&x, &in);
	cr_expect_eq(S_bucket(&in), 448e6);
	tb_perf_result fresh, searched;
	tb_perf_predict(&in, NULL, &fresh);
	tb_perf_predict(&patched, NULL, &searched);
	cr_assert(fresh.ok && searched.ok);
	cr_expect(rel(searched.dp_total_s, fresh.dp_total_s) < 1e-12, "%g against %g",
	          searched.dp_total_s, fresh.dp_total_s);
	/* one collective: no overlap (a written size too, as Megatron-LM
	 * drops it), DeepSpeed, ZeRO-3 */
	x.parallelism.no_overlap_dp = true;
	x.parallelism.bucket_size = 104857600;
	tb_perf_input_from(&x, &in);
	cr_expect_eq(S_bucket(&in), 0);
	x.parallelism.bucket_size = 0;
	x.parallelism.no_overlap_dp = false;
	x.parallelism.framework = TB_FW_DEEPSPEED;
	tb_perf_input_from(&x, &in);
	cr_expect_eq(S_bucket(&in), 0);
	x.parallelism.framework = TB_FW_FSDP;
	x.parallelism.zero = 3;
	tb_perf_input_from(&x, &in);
	cr_expect_eq(S_bucket(&in), 0);
	/* PyTorch DDP: 25 MiB of bf16 gradients */
	x.parallelism.zero = 0;
	tb_perf_input_from(&x, &in);
	cr_expect_eq(S_bucket(&in), 25.0 * 1048576 / 2);
	const char *basis;
	cr_expect(tb_perf_dp_bucket(in.framework, in.overlap_dp, in.zero, in.context * in.data,
	                            in.bucket_size, in.grad_bytes, &basis) > 0 && strstr(basis, "DDP"));
}

/* MLPerf v5.1's fp8 Llama 3.1 8B on B200 at n GPUs, as NeMo 25.09 ran it:
 * two sequences of 8,192 tokens a GPU a step, fp8 weights (FP8_PARAM_GATHER),
 * Megatron-LM's distributed optimizer in buckets of 768M weights
 * (BUCKET_SIZE), the step captured whole (FULL_CUDA_GRAPH=1). */
static void S_mlperf_8b_b200(tb_inputs *x, int64_t n)
{
	S_mlperf_8b(x);
	x->hardware.gpu = *tb_gpus_find("b200");
	x->hardware.count = n;
	x->parallelism.data = n;
	x->training.global_batch = 2 * n;
	x->training.precision = TB_PREC_FP8_MIXED;
	x->training.fp8_recipe = TB_FP8_TENSORWISE;
	x->training.fp8_param_gather = true;
	x->parallelism.zero = 1;
	x->parallelism.framework = TB_FW_MEGATRON;
	x->parallelism.bucket_size = 768000000;
	x->parallelism.cuda_graph = TB_CUDA_GRAPH_FULL_ITERATION;
}

/* parallelism.cuda_graph: full_iteration.  The same work a GPU on one
 * B200 node and on two: the University of Florida's published steps are
 * 0.5441 s on 8 GPUs and 0.5749 s on 16, 30.8 ms apart, which the hidden
 * reduction cannot give (it grows by under a millisecond) and the
 * reduce-scatter and fp8 gather crossing the network in their buckets,
 * unhidden, do.  Without the graph the overlap rule is as before; with
 * overlap_dp: false the reduction runs whole, not in buckets. */
Test(perf, full_iteration_graph_leaves_the_reduction_unhidden)
{
	tb_inputs x;
	tb_perf_input in;
	tb_perf_result one, two, one_h, two_h, whole;
	S_mlperf_8b_b200(&x, 8);
	tb_perf_input_from(&x, &in);
	cr_assert(!in.overlap_dp && in.dp_buckets_unhidden && !tb_perf_dp_hidden(&x.parallelism));
	cr_expect_eq(S_bucket(&in), 768e6);
	tb_perf_predict(&in, NULL, &one);
	S_mlperf_8b_b200(&x, 16);
	tb_perf_input_from(&x, &in);
	tb_perf_predict(&in, NULL, &two);
	cr_assert(one.ok && two.ok, "%s %s", one.why, two.why);
	/* nothing of it hides */
	cr_expect(rel(two.breakdown_s[TB_PERF_DP_COMM], two.dp_total_s) < 1e-12, "%g of %g s",
	          two.breakdown_s[TB_PERF_DP_COMM], two.dp_total_s);
	double published = 0.5749 - 0.5441;
	cr_expect(rel(two.step_s - one.step_s, published) < 0.2, "%g s between the nodes, published %g",
	          two.step_s - one.step_s, published);
	x.parallelism.cuda_graph = TB_CUDA_GRAPH_LAYERS;
	tb_perf_input_from(&x, &in);
	cr_assert(in.overlap_dp && !in.dp_buckets_unhidden && tb_perf_dp_hidden(&x.parallelism));
	tb_perf_predict(&in, NULL, &two_h);
	S_mlperf_8b_b200(&x, 8);
	x.parallelism.cuda_graph = TB_CUDA_GRAPH_NONE;
	tb_perf_input_from(&x, &in);
	tb_perf_predict(&in, NULL, &one_h);
	cr_assert(one_h.ok && two_h.ok);
	/* hidden, the second node costs what hiding pays (fsdp_overlap_cost
	 * of the collectives' time): 4.5 ms of the 30.8 published */
	cr_expect(two_h.step_s - one_h.step_s < 0.2 * published, "%g s", two_h.step_s - one_h.step_s);
	cr_expect(two_h.dp_total_s == two.dp_total_s, "the same collectives, hidden or not");
	S_mlperf_8b_b200(&x, 16);
	x.parallelism.no_overlap_dp = true;
	tb_perf_input_from(&x, &in);
	cr_expect(!in.overlap_dp && !in.dp_buckets_unhidden && S_bucket(&in) == 0);
	tb_perf_predict(&in, NULL, &whole);
	cr_assert(whole.ok);
	cr_expect(whole.dp_total_s < two.dp_total_s, "%g s whole against %g s in buckets",
	          whole.dp_total_s, two.dp_total_s);
}

/* What the overlap cannot hide: Llama 3.1 8B under Megatron-LM's
 * distributed optimizer on 16 H100 (two nodes), one micro-batch of two
 * sequences a step, as MLPerf's 8B runs.  Its input embedding (128,256 x
 * 4,096 = 525,336,576 weights, 2 bytes a gradient and a weight) is the
 * backward's last gradient and the forward's first weight: that
 * reduce-scatter and that gather are exposed whatever the backward and
 * the forward hide of the rest.  LoRA trains no embedding: no tail. */
Test(perf, the_embedding_reduction_is_exposed)
{
	tb_inputs x;
	S_mlperf_8b(&x);
	x.parallelism.zero = 1;
	x.parallelism.framework = TB_FW_MEGATRON;
	tb_perf_input in;
	tb_perf_result r;
	tb_perf_input_from(&x, &in);
	cr_assert(in.overlap_dp && in.grad_bytes == 2 && in.param_bytes == 2);
	tb_perf_predict(&in, NULL, &r);
	cr_assert(r.ok, "%s", r.why);
	double bytes = S_embedding_bytes;
	/* Megatron-LM's buckets are 40M weights on 16 ranks, and a bucket
	 * holds whole parameters: the embedding's 525M are one */
	cr_expect_eq(S_bucket(&in), 40e6);
	double rs = tb_perf_collective_s(TB_COLL_REDUCE_SCATTER, bytes, 16, 8, &in.hw, NULL);
	double ag = tb_perf_collective_s(TB_COLL_ALL_GATHER, bytes, 16, 8, &in.hw, NULL);
	/* the rest hides: the whole reduction is far shorter than a pass,
	 * and what hides costs fsdp_overlap_cost of its time */
	cr_assert(r.dp_total_s < r.layer_fwd_s * 32, "%g s", r.dp_total_s);
	double kc = tb_perf_fitted.fsdp_overlap_cost;
	cr_expect(rel(r.breakdown_s[TB_PERF_DP_COMM], rs + ag + kc * (r.dp_total_s - rs - ag)) < 1e-9,
	          "%g s against %g + %g and %g of the rest", r.breakdown_s[TB_PERF_DP_COMM], rs, ag, kc);
	tb_perf_consts free = tb_perf_fitted;
	free.fsdp_overlap_cost = 0;
	tb_perf_result r0;
	tb_perf_predict(&in, &free, &r0);
	cr_expect(rel(r0.breakdown_s[TB_PERF_DP_COMM], rs + ag) < 1e-9, "hidden for nothing: %g s",
	          r0.breakdown_s[TB_PERF_DP_COMM]);
	cr_expect(rs > tb_perf_collective_s(TB_COLL_REDUCE_SCATTER, bytes, 8, 8, &in.hw, NULL),
	          "two nodes: %g s", rs);

	x.training.method = TB_METHOD_LORA;
	x.training.lora.rank = 16;
	tb_perf_input_from(&x, &in);
	tb_perf_predict(&in, NULL, &r);
	cr_assert(r.ok, "%s", r.why);
	cr_expect(r.breakdown_s[TB_PERF_DP_COMM] < 0.01 * (rs + ag), "%g s",
	          r.breakdown_s[TB_PERF_DP_COMM]);
}

/* The same embedding's tail under each stage's rule, by hand: ZeRO-0's
 * all-reduce; DeepSpeed's ZeRO-2 waits for each micro-batch's
 * reduce-scatter (two here) and gathers once; DPO trains the base too; a
 * forward-only run reduces nothing.  Under a pipeline whose busiest stage is
 * the last, the first stage's tail still ends the step, and the step's
 * collectives count it. */
Test(perf, the_embedding_tail_by_stage_and_method)
{
	tb_inputs x;
	S_mlperf_8b(&x);
	tb_perf_input in;
	tb_perf_result r;
	double bytes = S_embedding_bytes;

	x.parallelism.zero = 0;
	x.parallelism.framework = TB_FW_DEEPSPEED;
	tb_perf_input_from(&x, &in);
	tb_perf_predict(&in, NULL, &r);
	cr_assert(r.ok, "%s", r.why);
	double rs = tb_perf_collective_s(TB_COLL_REDUCE_SCATTER, bytes, 16, 8, &in.hw, NULL);
	double ag = tb_perf_collective_s(TB_COLL_ALL_GATHER, bytes, 16, 8, &in.hw, NULL);
	double ar = tb_perf_collective_s(TB_COLL_ALL_REDUCE, bytes, 16, 8, &in.hw, NULL);
	double kc = tb_perf_fitted.fsdp_overlap_cost;
	cr_expect(rel(r.breakdown_s[TB_PERF_DP_COMM], ar + kc * (r.dp_total_s - ar)) < 1e-9,
	          "ZeRO-0: %g s against %g", r.breakdown_s[TB_PERF_DP_COMM], ar);

	x.parallelism.zero = 2;
	x.training.global_batch = 64;
	tb_perf_input_from(&x, &in);
	tb_perf_predict(&in, NULL, &r);
	cr_assert(r.ok && r.microbatches == 2, "%s", r.why);
	cr_expect(rel(r.breakdown_s[TB_PERF_DP_COMM], 2 * rs + ag + kc * (r.dp_total_s - 2 * rs - ag)) < 1e-9,
	          "ZeRO-2: %g s against %g", r.breakdown_s[TB_PERF_DP_COMM], 2 * rs + ag);

	x.parallelism.zero = 1;
	x.parallelism.framework = TB_FW_MEGATRON;
	x.training.global_batch = 32;
	x.training.method = TB_METHOD_DPO;
	tb_perf_input_from(&x, &in);
	tb_perf_predict(&in, NULL, &r);
	cr_assert(r.ok, "%s", r.why);
	cr_expect(rel(r.breakdown_s[TB_PERF_DP_COMM], rs + ag + kc * (r.dp_total_s - rs - ag)) < 1e-9,
	          "DPO: %g s", r.breakdown_s[TB_PERF_DP_COMM]);
	x.training.method = TB_METHOD_FROZEN;
	tb_perf_input_from(&x, &in);
	tb_perf_predict(&in, NULL, &r);
	cr_assert(r.ok, "%s", r.why);
	cr_expect(r.breakdown_s[TB_PERF_DP_COMM] == 0, "frozen: %g s", r.breakdown_s[TB_PERF_DP_COMM]);

	x.training.method = TB_METHOD_FULL;
	x.parallelism.pipeline = 4;
	x.parallelism.data = 4;
	tb_perf_input_from(&x, &in);
	tb_perf_predict(&in, NULL, &r);
	cr_assert(r.ok, "%s", r.why);
	cr_assert(r.busiest_stage != 0, "stage %d", r.busiest_stage);
	cr_expect(r.breakdown_s[TB_PERF_DP_COMM] <= r.dp_total_s, "%g of %g s",
	          r.breakdown_s[TB_PERF_DP_COMM], r.dp_total_s);
	double rs4 = tb_perf_collective_s(TB_COLL_REDUCE_SCATTER, bytes, 4, 4, &in.hw, NULL);
	cr_expect(r.breakdown_s[TB_PERF_DP_COMM] >= rs4, "%g s against %g", r.breakdown_s[TB_PERF_DP_COMM], rs4);
}

/* Megatron-LM's fp8 parameters (--fp8-param-gather): the distributed
 * optimizer gathers the linear layers' weights as stored, 1 B each; the
 * embedding and the head stay 16-bit.  Llama 3.1 8B on 16 H100 (two
 * nodes), ZeRO-1 without overlap, so the step waits for the whole gather:
 * 6,979,321,856 linear weights at 1 B and the other 1,050,939,392 at 2 B,
 * where 16-bit weights gather all 8,030,261,248 at 2 B.  The model gathers
 * the norms' 266,240 weights with the linear layers' (4e-5 of the saving). */
Test(perf, fp8_param_gather_halves_the_linear_gather)
{
	tb_inputs x;
	S_mlperf_8b(&x);
	x.parallelism.zero = 1;
	x.parallelism.framework = TB_FW_MEGATRON;
	x.parallelism.no_overlap_dp = true;
	x.training.precision = TB_PREC_FP8_MIXED;
	tb_perf_result r[2];
	tb_perf_input in;
	for (int i = 0; i < 2; i++) {
		x.training.fp8_param_gather = i;
		tb_perf_input_from(&x, &in);
		cr_assert_eq(in.fp8_gather, i == 1);
		tb_perf_predict(&in, NULL, &r[i]);
		cr_assert(r[i].ok, "%s", r[i].why);
	}
	double n = 8030261248.0, m = 6979321856.0;
	double ag16 = tb_perf_collective_s(TB_COLL_ALL_GATHER, 2 * n, 16, 8, &in.hw, NULL);
	double ag8 = tb_perf_collective_s(TB_COLL_ALL_GATHER, m + 2 * (n - m), 16, 8, &in.hw, NULL);
	double saved = r[0].breakdown_s[TB_PERF_DP_COMM] - r[1].breakdown_s[TB_PERF_DP_COMM];
	cr_expect(rel(saved, ag16 - ag8) < 1e-4, "%g s against %g s", saved, ag16 - ag8);
}
