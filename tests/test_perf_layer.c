/* test_perf_layer.c: one micro-batch through one layer (perf_layer.c):
 * a mixture's shapes, its dense layers reused across expert sizes, the
 * expert all-to-all by hand, under DeepEP and in Megatron-LM's overlap
 * phases, fp8's tensor-parallel gathers, the expert tensor group, the
 * selective policies' recomputation, the attention kernel, a layer set to
 * another checkpointing mode, and the fall per sequence with the
 * micro-batch that the search's bound on a layer shape rests on.  What the
 * layer moves and casts beside its GEMMs is test_perf_kernels.c's. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "trainbudget/budget.h"
#include "trainbudget/gpus.h"
#include "trainbudget/perf.h"
#include "trainbudget/presets.h"
#include "perf_fixtures.h"

static double S_lt(const tb_perf_layer *L)
{
	return L->fwd + L->bwd + L->recompute + L->tp + L->cp + L->ep;
}

/* The search bounds every micro-batch of a layer shape by the largest
 * one's time per sequence (plan_walk.c, S_shape_ruled_out): that holds
 * only if a layer's time, and the pass at one stage made of it, never grow
 * faster than the micro-batch.  Checked over mixtures and dense models,
 * four methods, every checkpointing mode, both dispatchers, overlap on and
 * off (the moe policy with it; the all-to-all's under Megatron-LM's phases
 * and behind the whole layer), context parallelism's three exchanges,
 * bf16 and fp8, flash attention and not, and
 * tensor, context and expert sizes, at micro-batches 1 to 256 (a factor of
 * 3 among them). */
Test(perf, layer_per_sequence_falls_with_the_micro_batch)
{
	const char *presets[] = { "deepseek-v3", "mixtral-8x7b", "qwen1.5-moe-a2.7b", "llama-2-7b",
	                          "llama-3.1-405b" };
	const tb_method methods[] = { TB_METHOD_FULL, TB_METHOD_DPO, TB_METHOD_LORA, TB_METHOD_FROZEN };
	const int64_t shapes[][3] = {   /* tensor, context, expert */
		{ 1, 1, 8 }, { 1, 1, 64 }, { 2, 1, 8 }, { 1, 2, 16 }, { 8, 1, 32 }, { 1, 1, 1 }, { 4, 2, 1 },
	};
	const int64_t mbs[] = { 1, 2, 3, 4, 6, 8, 12, 16, 32, 48, 64, 128, 256 };
	int checked = 0;
	for (size_t pi = 0; pi < sizeof presets / sizeof *presets; pi++)
		for (size_t mi = 0; mi < sizeof methods / sizeof *methods; mi++)
			for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++)
				for (int var = 0; var < 16; var++)
					for (int ck = 0; ck < 3; ck++) {
						tb_inputs x;
						S_moe(&x, presets[pi]);
						x.training.method = methods[mi];
						if (methods[mi] == TB_METHOD_LORA)
							x.training.lora.rank = 16;
						x.training.flash_attention = !(var & 8);
						x.parallelism.tensor = shapes[si][0];
						x.parallelism.sequence_parallel = shapes[si][0] > 1;
						x.parallelism.context = shapes[si][1];
						x.parallelism.expert = shapes[si][2];
						x.parallelism.data = 1024 / 4 / shapes[si][0] / shapes[si][1];
						x.parallelism.dispatcher = var & 1 ? TB_DISPATCH_DEEPEP : TB_DISPATCH_ALLTOALL;
						/* context parallelism's ring, all-to-all and gather */
						x.parallelism.cp_comm = (tb_cp_comm)((var & 1) + (var & 4 ? 1 : 0));
						x.parallelism.overlap_ep = var & 2;
						/* the overlapped all-to-all by both rules:
						 * Megatron-LM's phases with DeepEP, DualPipe's
						 * whole layer with the all-to-all */
						x.parallelism.framework = var & 1 ? TB_FW_MEGATRON : TB_FW_ANY;
						x.parallelism.overlap_tp = var & 2;
						/* and with parts taken out of it */
						x.parallelism.no_overlap_tp_qkv = var & 4;
						x.parallelism.no_overlap_tp_dgrad = var & 8;
						/* the moe policy's third all-to-all with the overlap */
						x.training.selective_policy = var & 2 ? TB_SELECTIVE_MOE : TB_SELECTIVE_ATTENTION;
						if (var & 4)
							x.training.precision = TB_PREC_FP8_MIXED;
						tb_perf_input in;
						tb_perf_input_from(&x, &in);
						in.checkpointing = (tb_checkpointing)ck;
						in.pipeline = 1;
						in.virtual_pipeline = 1;
						double last_lt = 0, last_w = 0;
						for (size_t bi = 0; bi < sizeof mbs / sizeof *mbs; bi++) {
							in.micro_batch = mbs[bi];
							tb_perf_layer L;
							if (!tb_perf_layer_time(&in, NULL, &L, NULL))
								break;
							double b = (double)mbs[bi];
							double lt = (S_lt(&L) + L.dense_fwd + L.dense_bwd + L.dense_recompute +
							             L.dense_tp + L.dense_cp + L.logits_s + L.embed_s) / b;
							double w = tb_perf_stage_s(&in, NULL, &L) / b;
							cr_assert(lt > 0 && w > 0);
							if (bi > 0) {
								cr_expect(lt <= last_lt * (1 + 1e-12) && w <= last_w * (1 + 1e-12),
								          "%s method %d shape %zu var %d mode %d b %lld: "
								          "%.17g > %.17g or %.17g > %.17g",
								          presets[pi], (int)methods[mi], si, var, ck,
								          (long long)mbs[bi], lt, last_lt, w, last_w);
								checked++;
							}
							last_lt = lt;
							last_w = w;
						}
					}
	cr_expect(checked > 60000, "%d", checked);
}

/* The step-time model counts a mixture's FLOPs from the shapes it times:
 * routed experts at their own width, the shared expert, the leading dense
 * layers and MLA's low-rank projections.  Its count must be flops.c's
 * (within what each leaves out: norms, the router's bias) and DeepSeek's
 * own: 37B activated parameters (arXiv:2412.19437 Sec. 1), six FLOPs each
 * per token.  Before the shapes were read, the model timed DeepSeek-V3's
 * experts at the dense width, 9 times theirs (5.3 times flops.c's count). */
Test(perf, moe_shapes_count_like_flops)
{
	static const char *const names[] = {
		"mixtral-8x7b", "qwen1.5-moe-a2.7b", "deepseek-v2-lite", "deepseek-v3",
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		tb_inputs x;
		S_deepseek_v3(&x);
		x.model = tb_presets_find(names[i])->model;
		x.parallelism.expert = 8;
		x.parallelism.pipeline = 4;
		x.parallelism.data = 512;
		x.parallelism.zero = 1;
		static tb_budget b;
		tb_budget_compute(&x, &b);
		tb_perf_input in;
		tb_perf_input_from(&x, &in);
		in.model_flops_per_token = 0;
		tb_perf_result r;
		tb_perf_predict(&in, NULL, &r);
		cr_assert(r.ok, "%s: %s", names[i], r.why);
		double per_token = r.model_flops_per_step / (15360.0 * 4096);
		cr_expect(rel(per_token, b.flops.per_token_model) < 0.01, "%s: %.4g vs flops.c %.4g",
		          names[i], per_token, b.flops.per_token_model);
	}
	tb_inputs x;
	S_deepseek_v3(&x);
	x.training.seq_len = 1;     /* the attention core vanishes */
	x.training.global_batch = 15360 * 4096;
	tb_perf_input in;
	tb_perf_input_from(&x, &in);
	in.model_flops_per_token = 0;
	tb_perf_result r;
	tb_perf_predict(&in, NULL, &r);
	cr_assert(r.ok, "%s", r.why);
	double n_active = r.model_flops_per_step / (15360.0 * 4096) / 6;
	cr_expect(rel(n_active, 37e9) < 0.03, "%.4g activated parameters", n_active);
}

/* A mixture's dense layers do not read the expert-parallel size, so a
 * search times them once per shape (tb_perf_layer_time_reuse): a layer
 * made at one expert size, its dense fields taken from a layer made at
 * another, is the layer made whole, to the last bit, under every
 * checkpointing, with and without sequence parallelism and tensor 4. */
Test(perf, dense_layers_reused_across_expert_sizes)
{
	static const int64_t es[] = { 1, 2, 8, 64, 256 };
	for (int ck = 0; ck < 3; ck++)
		for (int t = 1; t <= 4; t *= 4) {
			tb_inputs x;
			S_deepseek_v3(&x);
			x.training.checkpointing = (tb_checkpointing)ck;
			x.parallelism.tensor = t;
			x.parallelism.sequence_parallel = t > 1;
			tb_perf_input in;
			tb_perf_input_from(&x, &in);
			in.data = 256;      /* every expert size divides the ranks */
			in.expert = 8;
			tb_perf_layer first;
			cr_assert(tb_perf_layer_time(&in, NULL, &first, NULL));
			cr_assert(first.dense_fwd > 0 && first.dense_fwd != first.fwd);
			for (size_t i = 0; i < sizeof es / sizeof es[0]; i++) {
				in.expert = es[i];
				tb_perf_layer whole, reused;
				memset(&whole, 0, sizeof whole);
				memset(&reused, 0, sizeof reused);
				cr_assert(tb_perf_layer_time(&in, NULL, &whole, NULL));
				cr_assert(tb_perf_layer_time_reuse(&in, NULL, &first, &reused, NULL));
				cr_expect(memcmp(&whole, &reused, sizeof whole) == 0,
				          "ck %d, t %d, e %lld: reused dense fields differ", ck, t,
				          (long long)es[i]);
				cr_expect(whole.fwd != first.fwd || es[i] == 8,
				          "the expert layer does read the expert size");
			}
		}
}

/* The expert all-to-all by hand: each GPU sends every routed copy of its
 * tokens' hidden states, 4,096 tokens x 8 experts x 7,168 x 2 bytes =
 * 469,762,048 bytes, dispatched and combined, forward and backward (4);
 * 56 of EP 64's ranks are in other nodes.  Overlapped with another
 * micro-batch's compute, what the compute cannot hide is exposed, and the
 * compute it hides behind runs on 112 of 132 SMs (DeepSeek-V3 Sec. 3.2.2). */
/* DeepSeek-V3's layout with every expert rank at the mean's share (the
 * busiest rank's is dropless_waits_for_the_busiest_rank's) */
static void S_ds3_balanced(tb_inputs *x, tb_perf_input *in)
{
	S_deepseek_v3(x);
	x->training.moe_routing = TB_MOE_BALANCED;
	tb_perf_input_from(x, in);
}

Test(perf, expert_all_to_all_hand_worked)
{
	tb_inputs x;
	tb_perf_input in;
	S_ds3_balanced(&x, &in);
	tb_perf_result r;
	tb_perf_predict(&in, NULL, &r);
	cr_assert(r.ok, "%s", r.why);
	cr_expect_eq(r.ep_bytes, 469762048.0);
	tb_perf_layer L;
	cr_assert(tb_perf_layer_time(&in, NULL, &L, NULL));
	double one = tb_perf_collective_s(TB_COLL_ALL_TO_ALL, 469762048.0, 64, 8, &in.hw, NULL);
	cr_expect(rel(L.ep, 4 * one) < 1e-12, "%g vs %g", L.ep, 4 * one);
	/* the 56/64 that leave the node dominate: 0.875 x 470 MB at 50 GB/s */
	cr_expect(one > 0.875 * 469762048.0 / 50e9);

	in.overlap_ep = true;
	tb_perf_layer O;
	cr_assert(tb_perf_layer_time(&in, NULL, &O, NULL));
	double hide = O.fwd + O.bwd + O.recompute, total = 4 * one;
	double share = 20.0 / 132.0;
	double want = fmax(total - hide, 0) + fmin(total, hide) * share / (1 - share);
	cr_expect(rel(O.ep, want) < 1e-12, "%g vs %g", O.ep, want);
	cr_expect(O.ep < L.ep);
	cr_expect_eq(O.fwd, L.fwd);
}

/* Dropless routing (training.moe_routing): the busiest of EP 64's ranks
 * receives `load` times the mean's 469,762,048 bytes a pass and runs its
 * experts over load times the mean's rows, and the combine waits for it.
 * A measured factor is priced as written; without one the fitted
 * moe_dropless_load; balanced routing, a dense model and one expert rank
 * (every expert on one GPU, whatever their loads) are 1. */
Test(perf, dropless_waits_for_the_busiest_rank)
{
	tb_inputs x;
	tb_perf_input in;
	S_ds3_balanced(&x, &in);
	tb_perf_layer B;
	cr_assert(tb_perf_layer_time(&in, NULL, &B, NULL));
	cr_expect_eq(tb_perf_expert_load(&in, NULL), 1);

	x.training.moe_routing = TB_MOE_DROPLESS;
	x.training.moe_load_factor = 1.5;
	tb_perf_input_from(&x, &in);
	cr_expect_eq(tb_perf_expert_load(&in, NULL), 1.5);
	tb_perf_layer D;
	cr_assert(tb_perf_layer_time(&in, NULL, &D, NULL));
	double one = tb_perf_collective_s(TB_COLL_ALL_TO_ALL, 1.5 * 469762048.0, 64, 8, &in.hw, NULL);
	cr_expect(rel(D.ep, 4 * one) < 1e-12, "%g vs %g", D.ep, 4 * one);
	/* the experts' GEMMs and SwiGLU grow, attention does not */
	cr_expect(D.fwd > B.fwd && D.bwd > B.bwd);
	cr_expect_eq(D.attn_f, B.attn_f);
	tb_perf_result rb, rd;
	x.training.moe_routing = TB_MOE_BALANCED;
	x.training.moe_load_factor = 0;
	S_predict(&x, &in, &rb);
	x.training.moe_routing = TB_MOE_DROPLESS;
	x.training.moe_load_factor = 1.5;
	S_predict(&x, &in, &rd);
	/* the useful work is the same: MFU counts it, the busiest rank's
	 * extra rows are waiting */
	cr_expect_eq(rd.model_flops_per_step, rb.model_flops_per_step);
	cr_expect(rd.step_s > rb.step_s);
	/* the result carries the share it priced, for the report and JSON */
	cr_expect_eq(rd.expert_load, 1.5);
	cr_expect_eq(rb.expert_load, 1);

	x.training.moe_load_factor = 0;
	tb_perf_input_from(&x, &in);
	cr_expect_eq(tb_perf_expert_load(&in, NULL), tb_perf_fitted.moe_dropless_load);
	tb_perf_consts k = tb_perf_fitted;
	k.moe_dropless_load = 1.1;
	cr_expect_eq(tb_perf_expert_load(&in, &k), 1.1);
	/* no rank receives more than every routed token: e times the mean */
	in.expert = 2;
	in.expert_load = 3;
	cr_expect_eq(tb_perf_expert_load(&in, NULL), 2);
	in.expert = 1;
	cr_expect_eq(tb_perf_expert_load(&in, NULL), 1);
	in.expert = 64;
	in.experts = 1;
	cr_expect_eq(tb_perf_expert_load(&in, NULL), 1);
}

/* Megatron-LM's 1F1B all-to-all overlap runs a forward beside a backward
 * in three phases (model_chunk_schedule_plan.py): the backward's combine
 * beside the forward's pre-dispatch computation, both dispatches beside
 * both MLPs, the forward's combine beside the backward's pre-dispatch
 * computation.  DeepSeek-V3's layer at EP 16 over two nodes of H800s:
 * each all-to-all (6.3 ms) outlasts the forward's attention side (3.0
 * ms), so the phases leave 7.3 ms out where hiding behind the whole layer
 * (DualPipe's rule, kept for every other framework) left 5.2; the hidden
 * part slows the compute by the SMs it takes, as there. */
Test(perf, megatron_all_to_all_overlap_phases)
{
	tb_inputs x;
	S_deepseek_v3(&x);
	x.parallelism.expert = 16;
	x.parallelism.overlap_ep = true;
	tb_perf_input in;
	tb_perf_input_from(&x, &in);
	tb_perf_layer D, M;
	cr_assert(tb_perf_layer_time(&in, NULL, &D, NULL));
	x.parallelism.framework = TB_FW_MEGATRON;
	tb_perf_input_from(&x, &in);
	cr_assert(tb_perf_layer_time(&in, NULL, &M, NULL));
	double send = M.ep_send, back = M.ep_back, share = 20.0 / 132.0, k = share / (1 - share);
	cr_expect(send > 0 && send == back && rel(M.ep_one, send + back) < 1e-15);
	/* the pre-dispatch side holds the attention core and is less than
	 * the pass */
	cr_assert(M.ep_pre_f > M.attn_f && M.ep_pre_f < M.fwd, "%g", M.ep_pre_f);
	cr_assert(M.ep_pre_b > M.attn_b && M.ep_pre_b < M.bwd, "%g", M.ep_pre_b);
	double mlp = (M.fwd - M.ep_pre_f) + (M.bwd - M.ep_pre_b);
	double out = fmax(0, send - M.ep_pre_f) + fmax(0, send + back - mlp) + fmax(0, back - M.ep_pre_b);
	/* selective recomputation adds no pass of all-to-alls */
	double want = out + (2 * (send + back) - out) * k;
	cr_expect(rel(M.ep, want) < 1e-12, "%g vs %g", M.ep, want);
	double hide = M.fwd + M.bwd + M.recompute, total = 2 * (send + back);
	double whole = fmax(total - hide, 0) + fmin(total, hide) * k;
	cr_expect(send > M.ep_pre_f && M.ep > whole, "%g vs %g behind the whole layer (send %g, pre %g, "
	          "total %g, hide %g)", M.ep, whole, send, M.ep_pre_f, total, hide);
	/* a forward and a backward alone wait for all four, unslowed */
	cr_expect(rel(M.ep_unpaired, 2 * (send + back) - want) < 1e-12, "%g", M.ep_unpaired);
	/* every other framework: behind the whole layer */
	double dhide = D.fwd + D.bwd + D.recompute, dtotal = 2 * D.ep_one;
	cr_expect(rel(D.ep, fmax(dtotal - dhide, 0) + fmin(dtotal, dhide) * k) < 1e-12);
	cr_expect(D.ep_unpaired == 0);
}

/* The 1F1B overlap pairs passes only in the steady state.  Megatron-LM's
 * interleaved schedule runs 2(p - r - 1) + (v - 1)p chunk forwards before
 * it, and one more under the overlap (schedules.py, "we schedule one extra
 * micro-batch forward step"); the first rank's count, as many backwards
 * alone at the end; without a pipeline the first forward and the last
 * backward (combined_1f1b.py's docstring: 4 micro-batches, 5 phases). */
Test(perf, all_to_all_overlap_lone_passes)
{
	/* Model Zoo's GB200 MXFP8 Qwen3 row: PP 4, 6 virtual, 16 micro-batches */
	cr_expect_eq(tb_perf_ep_unpaired_passes(4, 6, 16), 2 * 3 + 5 * 4 + 1);
	/* its H100 rows: PP 8, 4 virtual */
	cr_expect_eq(tb_perf_ep_unpaired_passes(8, 4, 64), 2 * 7 + 3 * 8 + 1);
	/* never more than the step's chunk passes */
	cr_expect_eq(tb_perf_ep_unpaired_passes(8, 4, 2), 8);
	cr_expect_eq(tb_perf_ep_unpaired_passes(1, 1, 128), 1);
	cr_expect_eq(tb_perf_ep_unpaired_passes(1, 4, 128), 1);
	cr_expect_eq(tb_perf_ep_unpaired_passes(0, 0, 0), 1);
	/* hostile sizes: held, never overflowing nor dropping the term */
	cr_expect_eq(tb_perf_ep_unpaired_passes(4, 6, INT64_MAX), 27);
	cr_expect_eq(tb_perf_ep_unpaired_passes(-3, -1, -7), 1);
	int64_t big = tb_perf_ep_unpaired_passes(INT64_MAX, INT64_MAX, INT64_MAX);
	cr_expect(big > 0 && big <= (int64_t)INT32_MAX * INT32_MAX, "%lld", (long long)big);

	/* in the step: DeepSeek-V3 at EP 16 without a pipeline, 58 expert
	 * layers and the MTP module's one on the only stage, each paying
	 * ep_unpaired once beyond its m pairs */
	tb_inputs x;
	S_deepseek_v3(&x);
	x.parallelism.framework = TB_FW_MEGATRON;
	x.parallelism.overlap_ep = true;
	x.parallelism.expert = 16;
	x.parallelism.pipeline = 1;
	x.parallelism.data = 2048;
	x.training.global_batch = 16384;
	tb_perf_input in;
	tb_perf_input_from(&x, &in);
	tb_perf_layer L, L0;
	cr_assert(tb_perf_layer_time(&in, NULL, &L, NULL));
	cr_assert(L.ep_unpaired > 0);
	L0 = L;
	L0.ep_unpaired = 0;
	tb_perf_result a, b;
	tb_perf_assemble(&in, NULL, &L, &a);
	tb_perf_assemble(&in, NULL, &L0, &b);
	cr_assert(a.ok && b.ok);
	double lone = a.breakdown_s[TB_PERF_EP_COMM] - b.breakdown_s[TB_PERF_EP_COMM];
	cr_expect(rel(lone, 59 * L.ep_unpaired) < 1e-9, "%g vs %g", lone, 59 * L.ep_unpaired);
	cr_expect(rel(a.step_s - b.step_s, lone) < 1e-9);
}

/* Which rule prices an overlapped all-to-all is decided once, for the
 * step and the report's words: Megatron-LM's phases under framework
 * megatron where a forward pairs with a backward (not a forward-only run,
 * not DPO's two forwards a backward), DualPipe's elsewhere. */
Test(perf, all_to_all_rule_decided_once)
{
	cr_expect(tb_perf_ep_phased(TB_FW_MEGATRON, TB_METHOD_FULL, true));
	cr_expect(tb_perf_ep_phased(TB_FW_MEGATRON, TB_METHOD_LORA, true));
	cr_expect(!tb_perf_ep_phased(TB_FW_MEGATRON, TB_METHOD_FULL, false));
	cr_expect(!tb_perf_ep_phased(TB_FW_MEGATRON, TB_METHOD_FROZEN, true));
	cr_expect(!tb_perf_ep_phased(TB_FW_MEGATRON, TB_METHOD_DPO, true));
	cr_expect(!tb_perf_ep_phased(TB_FW_ANY, TB_METHOD_FULL, true));
	cr_expect(!tb_perf_ep_phased(TB_FW_DEEPSPEED, TB_METHOD_FULL, true));
	cr_expect_null(tb_perf_ep_rule(TB_FW_MEGATRON, TB_METHOD_FULL, false));
	cr_expect(strstr(tb_perf_ep_rule(TB_FW_MEGATRON, TB_METHOD_FULL, true), "1F1B"));
	cr_expect(strstr(tb_perf_ep_rule(TB_FW_ANY, TB_METHOD_FULL, true), "DualPipe"));
}

/* Under fp8 matmuls with sequence parallelism an fp8 linear's all-gathers
 * (its input forward, a row-parallel one's output gradient backward) move
 * fp8, as Transformer Engine (since v0.10) and torchao's float8 tensor
 * parallel cast before gathering; the reduce-scatters stay bf16, and so
 * does a mixture's expert block.  Llama 3.1 8B at TP 8 with SP, 4,096
 * tokens of 4,096: 33,554,432 bytes a 16-bit collective, 16,777,216 an
 * fp8 gather; Mixtral 8x7B's expert layer likewise, its MLP pair 16-bit. */
static void S_tp8(tb_inputs *x, const char *preset)
{
	S_moe(x, preset);
	x->parallelism.pipeline = 1;
	x->parallelism.tensor = 8;
	x->parallelism.sequence_parallel = true;
	x->hardware.count = 8;
	x->training.global_batch = 8;
}

Test(perf, fp8_linears_gather_in_fp8)
{
	tb_inputs x;
	S_tp8(&x, "llama-3.1-8b");
	tb_perf_input in;
	tb_perf_input_from(&x, &in);
	tb_perf_layer L;
	cr_assert(tb_perf_layer_time(&in, NULL, &L, NULL));
	double rs = tb_perf_collective_s(TB_COLL_REDUCE_SCATTER, 33554432.0, 8, 8, &in.hw, NULL);
	double ag = tb_perf_collective_s(TB_COLL_ALL_GATHER, 33554432.0, 8, 8, &in.hw, NULL);
	double ag8 = tb_perf_collective_s(TB_COLL_ALL_GATHER, 16777216.0, 8, 8, &in.hw, NULL);
	cr_expect(rel(L.tp_one, rs + ag) < 1e-12, "%g vs %g", L.tp_one, rs + ag);
	cr_expect_eq(L.tp_layer, 2 * L.tp_one, "bf16: both pairs 16-bit");

	x.training.precision = TB_PREC_FP8_MIXED;
	tb_perf_input_from(&x, &in);
	tb_perf_layer F;
	cr_assert(tb_perf_layer_time(&in, NULL, &F, NULL));
	cr_expect_eq(F.tp_one, L.tp_one, "the 16-bit pair (embedding, head) unchanged");
	/* the result says what the derivation shows: 16-bit and fp8 bytes */
	tb_perf_result r;
	tb_perf_predict(&in, NULL, &r);
	cr_assert(r.ok, "%s", r.why);
	cr_expect_eq(r.tp_bytes, 33554432.0);
	cr_expect_eq(r.tp_gather_bytes, 16777216.0);
	cr_expect(rel(r.tp_s, rs + ag8) < 1e-12, "%g vs %g", r.tp_s, rs + ag8);
	cr_expect(rel(F.tp_layer, 2 * (rs + ag8)) < 1e-12, "%g vs %g", F.tp_layer, 2 * (rs + ag8));
	cr_expect(F.tp < L.tp);
	/* a forward and a backward, each its two pairs: no overlap, no recomputation */
	cr_expect(rel(F.tp, 2 * F.tp_layer) < 1e-12, "%g vs %g", F.tp, 2 * F.tp_layer);

	/* a mixture's expert layer: the attention's pair in fp8, the expert
	 * block's 16-bit */
	S_tp8(&x, "mixtral-8x7b");
	x.training.precision = TB_PREC_FP8_MIXED;
	tb_perf_input_from(&x, &in);
	tb_perf_layer M;
	cr_assert(tb_perf_layer_time(&in, NULL, &M, NULL));
	cr_expect(rel(M.tp_layer, (rs + ag8) + (rs + ag)) < 1e-12, "%g vs %g", M.tp_layer,
	          (rs + ag8) + (rs + ag));

	/* without sequence parallelism the all-reduces are 16-bit whatever the matmuls */
	x.parallelism.sequence_parallel = false;
	tb_perf_input_from(&x, &in);
	cr_assert(tb_perf_layer_time(&in, NULL, &M, NULL));
	cr_expect_eq(M.tp_layer, 2 * M.tp_one);
}

/* Expert tensor parallelism below the tensor size folds the expert group
 * over the tensor ranks (MoE Parallel Folding, arXiv:2504.14960): Qwen3-
 * 235B's TP 2 with expert_tensor 1 and EP 32 on DP 16.  Each rank sends
 * its own half of the sequence-parallel tokens, 4,096 / 2 x 8 x 4,096 x
 * 2 bytes = 134,217,728, to 31 others of which 7 share its node (the group
 * is consecutive ranks); each holds 4 of the 128 experts whole. */
Test(perf, expert_tensor_folds_over_tensor_ranks)
{
	tb_perf_input in;
	memset(&in, 0, sizeof in);
	in.layers = 94, in.hidden = 4096, in.heads = 64, in.kv_heads = 4, in.head_dim = 128;
	in.ffn_hidden = 12288, in.vocab = 151936, in.experts = 128, in.experts_per_token = 8;
	in.expert_ffn_hidden = 1536, in.gated_mlp = true;
	in.seq_len = 4096, in.global_batch = 2048, in.micro_batch = 1;
	in.tensor = 2, in.pipeline = 8, in.virtual_pipeline = 4, in.context = 1;
	in.expert = 32, in.data = 16, in.zero = 1, in.sequence_parallel = true;
	in.checkpointing = TB_CKPT_SELECTIVE, in.flash_attention = true, in.overlap_dp = true;
	in.matmul_bytes = 2, in.act_bytes = 2, in.param_bytes = 2, in.grad_bytes = 4;
	in.optimizer_bytes_per_param = 34;
	in.expert_load = 1;
	tb_inputs x;
	memset(&x, 0, sizeof x);
	x.hardware.gpu = *tb_gpus_find("h100-sxm");
	x.training.precision = TB_PREC_BF16_MIXED;
	tb_perf_input hw;
	tb_perf_input_from(&x, &hw);
	in.hw = hw.hw;

	/* expert tensor 2 (the default, the tensor size): 32 x 2 ranks are
	 * more than the 32 there are */
	tb_perf_result r;
	tb_perf_predict(&in, NULL, &r);
	cr_expect(!r.ok && strstr(r.why, "expert"), "%s", r.why);

	in.expert_tensor = 1;
	tb_perf_predict(&in, NULL, &r);
	cr_assert(r.ok, "%s", r.why);
	cr_expect_eq(r.ep_bytes, 134217728.0);
	tb_perf_layer L;
	cr_assert(tb_perf_layer_time(&in, NULL, &L, NULL));
	double one = tb_perf_collective_s(TB_COLL_ALL_TO_ALL, 134217728.0, 32, 8, &in.hw, NULL);
	cr_expect(rel(L.ep, 4 * one) < 1e-12, "%g vs %g", L.ep, 4 * one);
	/* nothing in the expert block is split, so no tensor-parallel pair
	 * around it (Megatron-Core gathers over expt_tp alone): the layer
	 * pays the attention's pair only; shared experts, tensor-parallel
	 * MLPs, bring theirs back */
	cr_expect(L.tp_one > 0 && L.moe_tp == 0, "%g", L.moe_tp);
	double attn_pair = L.tp;
	in.shared_ffn_hidden = 1536;
	tb_perf_layer S;
	cr_assert(tb_perf_layer_time(&in, NULL, &S, NULL));
	cr_expect(S.moe_tp == S.tp_one, "%g vs %g", S.moe_tp, S.tp_one);
	cr_expect(S.tp > attn_pair, "%g vs %g", S.tp, attn_pair);
	in.shared_ffn_hidden = 0;
	cr_expect_eq(tb_perf_expert_tensor(0, 4), 4);
	cr_expect_eq(tb_perf_expert_tensor(1, 4), 1);
}

/* DeepEP by hand (DeepSeek-V3 Sec. 3.2.2): EP 64 spans 8 nodes; routing
 * allows 4 of the 8 groups, one a node, so a token's 8 experts fall on
 * D = 4 (1 - (3/4)^8) = 3.5995 nodes on average, 7/8 of them remote.  It
 * crosses the network once per such node, 4,096 x 7,168 bytes a token
 * row in fp8 for the dispatch (2 bytes for the combine), and NVLink
 * forwards each of its 8 copies to the other 7 GPUs of the node. */
Test(perf, deepep_sends_once_per_node)
{
	tb_inputs x;
	S_deepseek_v3(&x);
	x.training.moe_routing = TB_MOE_BALANCED;
	x.parallelism.dispatcher = TB_DISPATCH_DEEPEP;
	tb_perf_input in;
	tb_perf_input_from(&x, &in);
	cr_expect_eq(in.route_groups, 8);
	tb_perf_layer L;
	cr_assert(tb_perf_layer_time(&in, NULL, &L, NULL));
	double D = 4 * (1 - pow(0.75, 8));
	cr_expect(fabs(D - 3.5995) < 1e-4);
	double row = 4096.0 * 7168;
	double send = tb_perf_collective_s(TB_COLL_P2P, row * 1 * D * 7 / 8, 2, 1, &in.hw, NULL) +
	              tb_perf_collective_s(TB_COLL_P2P, row * 1 * 8 * 7 / 8, 2, 2, &in.hw, NULL);
	double back = tb_perf_collective_s(TB_COLL_P2P, row * 2 * D * 7 / 8, 2, 1, &in.hw, NULL) +
	              tb_perf_collective_s(TB_COLL_P2P, row * 2 * 8 * 7 / 8, 2, 2, &in.hw, NULL);
	cr_expect(rel(L.ep, 2 * (send + back)) < 1e-12, "%g vs %g", L.ep, 2 * (send + back));
	/* against every routed copy in bf16 through Megatron-LM's all-to-all:
	 * about half the time (the network carries 3.15 rows a token in place
	 * of 7, at 1.5 bytes an element in place of 2; NVLink carries more) */
	in.dispatcher = TB_DISPATCH_ALLTOALL;
	tb_perf_layer A;
	cr_assert(tb_perf_layer_time(&in, NULL, &A, NULL));
	cr_expect(L.ep < 0.55 * A.ep, "%g vs %g", L.ep, A.ep);
	/* without the group limit a token reaches 8 (1 - (7/8)^8) = 5.25 nodes */
	in.dispatcher = TB_DISPATCH_DEEPEP;
	in.route_groups = 0;
	tb_perf_layer U;
	cr_assert(tb_perf_layer_time(&in, NULL, &U, NULL));
	cr_expect(U.ep > L.ep);
}

/* The op policy redoes k, o and up (the layer's second, fourth and sixth
 * matmuls) and every memory-bound op, and never the attention; the
 * attention policy under flash attention redoes nothing. */
Test(perf, op_policy_recomputes_its_matmuls)
{
	tb_inputs x;
	tb_perf_input in;
	tb_perf_layer L;
	S_torchtitan_8b(&x, TB_SELECTIVE_OP, 0);
	tb_perf_input_from(&x, &in);
	cr_assert(tb_perf_layer_time(&in, NULL, &L, NULL));
	double tok = 2 * 8192.0;
	double want = tb_perf_matmul_s(tok, 1024, 4096, 2, &in.hw, NULL) +
	              tb_perf_matmul_s(tok, 4096, 4096, 2, &in.hw, NULL) +
	              tb_perf_matmul_s(tok, 14336, 4096, 2, &in.hw, NULL) + L.mem_f;
	cr_expect(rel(L.recompute, want) < 1e-12, "%g vs %g", L.recompute, want);
	S_torchtitan_8b(&x, TB_SELECTIVE_ATTENTION, 0);
	tb_perf_input_from(&x, &in);
	cr_assert(tb_perf_layer_time(&in, NULL, &L, NULL));
	cr_expect_eq(L.recompute, 0);
}

/* DeepSeek-V3's recomputation (arXiv:2412.19437 Sec. 3.2.3, 3.3.2) in an
 * expert layer, micro-batch 1 of 4,096 tokens at t = 1: the up-projections
 * of MLA's query latent (1,536 to 128 heads x 192) and key/value latent
 * (512 to 128 x (128 + 128)) again, as GEMMs at the fp8 matmul rate; the
 * two norms over the residual (4,096 x 7,168, read and written in 16
 * bits), the latents' norms, and the SwiGLU's output from its two inputs
 * for the 8 routed and the shared expert's rows (4,096 x 2,048 each), at
 * the HBM rate.  The recomputed FLOPs are the up-projections' alone. */
Test(perf, deepseek_recipe_recomputes_norms_up_projections_swiglu)
{
	tb_inputs x;
	S_deepseek_v3(&x);
	x.training.moe_routing = TB_MOE_BALANCED;
	x.training.selective_policy = TB_SELECTIVE_DEEPSEEK;
	tb_perf_input in;
	tb_perf_input_from(&x, &in);
	tb_perf_result r;
	tb_perf_predict(&in, NULL, &r);
	cr_assert(r.ok, "%s", r.why);
	double s = 4096, h = 7168, ab = in.act_bytes;
	double gemm = tb_perf_matmul_s(s, 128 * 192, 1536, in.matmul_bytes, &in.hw, NULL) +
	              tb_perf_matmul_s(s, 128 * 256, 512, in.matmul_bytes, &in.hw, NULL);
	double bytes = 4 * s * h * ab + 2 * s * (1536 + 512) * ab + 3 * s * 2048 * (8 + 1) * ab;
	double want = gemm + bytes / (in.hw.hbm_bytes_per_s * tb_perf_mem_fraction(&in.hw, NULL));
	cr_expect(rel(r.layer_recompute_s, want) < 1e-12, "%.9g vs %.9g", r.layer_recompute_s, want);
	double per_token = 2 * 61 * 128 * (1536 * 192 + 512 * 256.0);
	double tokens = 15360 * 4096.0;            /* one step */
	cr_expect(rel(r.hardware_flops_per_step - r.model_flops_per_step, per_token * tokens) < 1e-9,
	          "%.6g vs %.6g", r.hardware_flops_per_step - r.model_flops_per_step, per_token * tokens);
}

/* A layer timed under one checkpointing mode and set to another by
 * tb_perf_layer_mode is, to the last bit, the layer timed under the other:
 * dense and MoE (with leading dense layers, DeepEP and the all-to-all
 * overlapped), context and tensor parallelism with the overlap, DPO's
 * second forward, part of the layers recomputed and each selective
 * policy. */
Test(perf, layer_mode_is_the_layer_timed_in_that_mode)
{
	tb_inputs xs[5];
	S_deepseek_v3(&xs[0]);
	xs[0].parallelism.dispatcher = TB_DISPATCH_DEEPEP;
	xs[0].parallelism.overlap_ep = true;
	xs[0].training.selective_policy = TB_SELECTIVE_DEEPSEEK;
	S_budget_inputs(&xs[1]);
	xs[1].parallelism.context = 2;
	xs[1].parallelism.data = 8;
	xs[1].parallelism.overlap_tp = true;
	xs[1].training.flash_attention = true;
	S_budget_inputs(&xs[2]);
	xs[2].training.method = TB_METHOD_DPO;
	xs[2].training.flash_attention = false;
	S_budget_inputs(&xs[3]);
	xs[3].training.selective_policy = TB_SELECTIVE_OP;
	xs[3].training.flash_attention = true;
	S_deepseek_v3(&xs[4]);
	xs[4].parallelism.tensor = 2;
	xs[4].parallelism.sequence_parallel = true;
	xs[4].training.selective_policy = TB_SELECTIVE_MOE;
	for (int i = 0; i < 5; i++) {
		for (int from = 0; from < 3; from++)
			for (int to = 0; to < 3; to++)
				for (int64_t part = 0; part <= 2; part += 2) {
					tb_perf_input a, b;
					tb_perf_input_from(&xs[i], &a);
					a.checkpointing = (tb_checkpointing)from;
					b = a;
					b.checkpointing = (tb_checkpointing)to;
					b.recompute_layers = to == TB_CKPT_FULL ? part : 0;
					tb_perf_layer la, lb;
					cr_assert(tb_perf_layer_time(&a, NULL, &la, NULL));
					cr_assert(tb_perf_layer_time(&b, NULL, &lb, NULL));
					tb_perf_layer_mode(&b, &la);
					cr_expect(memcmp(&la, &lb, sizeof la) == 0, "case %d: %d -> %d (part %lld)", i,
					          from, to, (long long)part);
				}
	}
}

/* Which attention kernel is priced (perf_input.c): Megatron-LM's layers
 * are Transformer Engine's, which on Hopper and later runs cuDNN's fused
 * attention; PyTorch's SDPA and a framework not named run
 * FlashAttention-2; a card without cuDNN's figure (A100) keeps
 * FlashAttention-2's, whatever is written.  The attention core of Llama 3
 * 8B at 8,192 tokens, worked by hand: the causal half of 32 heads' score
 * and value matmuls, 32 x 8192^2 x (128 + 128) FLOPs, at the fraction of
 * H100's 989.4 TFLOP/s bf16 peak that FlashAttention-3's paper measured
 * for each kernel (Shah et al. 2024, Fig. 5: cuDNN 595-617 TFLOP/s,
 * FlashAttention-2 362-370), times the causal kernel's share of it (the
 * same figure's causal panel, 2K to 16K: cuDNN 484-539, FlashAttention-2
 * 298-335), which grows with the sequence: 8K is two thirds of the way
 * from 2K to 16K in log2. */
Test(perf, attention_kernel_as_transformer_engine_picks)
{
	static const struct {
		const char *gpu;
		tb_framework fw;
		tb_attn_kernel written, priced;
	} cases[] = {
		{ "h100-sxm", TB_FW_MEGATRON, TB_ATTN_KERNEL_AUTO, TB_ATTN_KERNEL_CUDNN },
		{ "h100-sxm", TB_FW_FSDP, TB_ATTN_KERNEL_AUTO, TB_ATTN_KERNEL_CUDNN },
		{ "h100-sxm", TB_FW_DEEPSPEED, TB_ATTN_KERNEL_AUTO, TB_ATTN_KERNEL_FLASH2 },
		{ "h100-sxm", TB_FW_FSDP, TB_ATTN_KERNEL_FLASH2, TB_ATTN_KERNEL_FLASH2 },
		{ "h100-sxm", TB_FW_ANY, TB_ATTN_KERNEL_AUTO, TB_ATTN_KERNEL_FLASH2 },
		{ "h100-sxm", TB_FW_MEGATRON, TB_ATTN_KERNEL_FLASH2, TB_ATTN_KERNEL_FLASH2 },
		{ "h100-sxm", TB_FW_FSDP, TB_ATTN_KERNEL_CUDNN, TB_ATTN_KERNEL_CUDNN },
		{ "h200", TB_FW_MEGATRON, TB_ATTN_KERNEL_AUTO, TB_ATTN_KERNEL_CUDNN },
		{ "a100-80gb", TB_FW_MEGATRON, TB_ATTN_KERNEL_AUTO, TB_ATTN_KERNEL_FLASH2 },
		{ "a100-80gb", TB_FW_ANY, TB_ATTN_KERNEL_CUDNN, TB_ATTN_KERNEL_FLASH2 },
		{ "mi300x", TB_FW_MEGATRON, TB_ATTN_KERNEL_AUTO, TB_ATTN_KERNEL_FLASH2 },
	};
	double exec = 32.0 * 8192 * 8192 * 256;
	double on_h100[2] = { 0, 0 };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		tb_inputs x;
		S_moe(&x, "llama-3-8b");
		x.training.seq_len = 8192;
		x.parallelism.pipeline = 1;
		x.parallelism.framework = cases[i].fw;
		x.training.attention_kernel = cases[i].written;
		x.hardware.gpu = *tb_gpus_find(cases[i].gpu);
		tb_perf_input in;
		tb_perf_input_from(&x, &in);
		const tb_gpu_node *n = tb_gpus_node(cases[i].gpu);
		double want_f = cases[i].priced == TB_ATTN_KERNEL_CUDNN ? n->attention_fraction_cudnn
		                                                        : n->attention_fraction;
		cr_expect_eq(in.hw.attention_kernel, cases[i].priced, "case %zu", i);
		cr_expect_eq(in.hw.attention_fraction, want_f, "case %zu", i);
		tb_perf_layer L;
		cr_assert(tb_perf_layer_time(&in, NULL, &L, NULL), "case %zu", i);
		double causal = 1;
		if (n->attention_backward_ratio > 0) {
			double lo = cases[i].priced == TB_ATTN_KERNEL_CUDNN ? 484.0 / 595 : 298.0 / 362;
			double hi = cases[i].priced == TB_ATTN_KERNEL_CUDNN ? 539.0 / 617 : 335.0 / 370;
			causal = lo + (hi - lo) * 2.0 / 3;
		}
		double want = exec / (in.hw.attention_peak_flops * want_f * causal);
		cr_expect(fabs(L.attn_f / want - 1) < 1e-12, "case %zu: %g s, by hand %g", i, L.attn_f, want);
		/* the backward at its own rate where the figure is the forward's:
		 * 0.865 of it (FlashAttention-3 Figs. 5 and 6: FlashAttention-2
		 * 318-322 against 362-370 TFLOP/s, cuDNN 516-518 against
		 * 595-617); A100's 0.55 covers both passes */
		double rb = strncmp(cases[i].gpu, "a100", 4) == 0 ? 1 : 0.865;
		cr_expect_eq(n->attention_backward_ratio, rb == 1 ? 0 : rb, "case %zu", i);
		cr_expect(fabs(L.attn_b / (2.5 * L.attn_f / rb) - 1) < 1e-12, "case %zu", i);
		if (strcmp(cases[i].gpu, "h100-sxm") == 0 && cases[i].written == TB_ATTN_KERNEL_AUTO &&
		    cases[i].fw != TB_FW_ANY)
			on_h100[cases[i].priced == TB_ATTN_KERNEL_CUDNN] = L.attn_f;
	}
	/* the figure's two kernels on H100, causal, 2K to 16K tokens, forward */
	double cudnn_tflops = exec / on_h100[1] / 1e12, flash2_tflops = exec / on_h100[0] / 1e12;
	cr_expect(cudnn_tflops >= 484 && cudnn_tflops <= 539, "cuDNN %g TFLOP/s", cudnn_tflops);
	cr_expect(flash2_tflops >= 298 && flash2_tflops <= 335, "FlashAttention-2 %g TFLOP/s", flash2_tflops);
	/* the ends of the range at the ends of the sequences, held outside */
	cr_expect(rel(tb_perf_causal_rate(TB_ATTN_KERNEL_CUDNN, 2048) * 595, 484) < 1e-12);
	cr_expect(rel(tb_perf_causal_rate(TB_ATTN_KERNEL_CUDNN, 16384) * 617, 539) < 1e-12);
	cr_expect(rel(tb_perf_causal_rate(TB_ATTN_KERNEL_FLASH2, 131072) * 370, 335) < 1e-12);
	cr_expect(rel(tb_perf_causal_rate(TB_ATTN_KERNEL_FLASH2, 512) * 362, 298) < 1e-12);
}

/* FlashAttention-2 on Blackwell, as NVIDIA's cudnn-frontend measures
 * PyTorch's SDPA flash backend (benchmark/sdpa_benchmark_bf16_training and
 * sdpa_benchmark_training: causal, head dim 128, 128 query and 8 key
 * heads, one sequence of 8,192 tokens): forward and backward 5.848 and
 * 17.781 ms on a B200 (PyTorch 2.8; 5.889 and 18.395 in the later run),
 * 5.308 and 16.249 on a GB200, 5.259 and 16.023 on a GB300 (PyTorch 2.10).
 * The model prices the same layer within 1.5% of each (the B200's
 * fraction is the two runs' mean), about a third of cuDNN's speed there. */
Test(perf, flash2_on_blackwell_as_measured)
{
	static const struct {
		const char *gpu;
		double ms;
	} cases[] = {
		{ "b200", 5.848 + 17.781 }, { "b200", 5.889 + 18.395 },
		{ "gb200", 5.308 + 16.249 }, { "gb300", 5.259 + 16.023 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		tb_inputs x;
		S_moe(&x, "llama-3.1-405b");
		x.training.seq_len = 8192;
		x.training.micro_batch = 1;
		x.parallelism.tensor = 1;
		x.parallelism.pipeline = 1;
		x.parallelism.framework = TB_FW_FSDP;
		x.training.attention_kernel = TB_ATTN_KERNEL_FLASH2;
		x.hardware.gpu = *tb_gpus_find(cases[i].gpu);
		tb_perf_input in;
		tb_perf_input_from(&x, &in);
		cr_assert_eq(in.heads, 128);
		tb_perf_layer L;
		cr_assert(tb_perf_layer_time(&in, NULL, &L, NULL), "case %zu", i);
		double ms = (L.attn_f + L.attn_b) * 1e3;
		cr_expect(fabs(ms / cases[i].ms - 1) < 0.015, "%s: %g ms, measured %g", cases[i].gpu, ms,
		          cases[i].ms);
		cr_expect(tb_gpus_node(cases[i].gpu)->flash2_measured, "%s", cases[i].gpu);
		/* cuDNN's, Transformer Engine's and today's FSDP default, 2-3x */
		x.training.attention_kernel = TB_ATTN_KERNEL_AUTO;
		tb_perf_input_from(&x, &in);
		cr_expect_eq(in.hw.attention_kernel, TB_ATTN_KERNEL_CUDNN);
		tb_perf_layer C;
		cr_assert(tb_perf_layer_time(&in, NULL, &C, NULL));
		cr_expect(L.attn_f > 2 * C.attn_f, "%s", cases[i].gpu);
	}
	/* B300 copies GB300's, its own not measured */
	cr_expect_eq(tb_gpus_node("b300")->attention_fraction, tb_gpus_node("gb300")->attention_fraction);
	cr_expect(!tb_gpus_node("b300")->flash2_measured);
}

/* cuDNN's attention on Blackwell, the same benchmark under MLPerf v5.1's
 * container (PyTorch 2.9, cuDNN 9.13.1: benchmark/sdpa_benchmark_training,
 * causal, head dim 128, 128 query and 8 key heads, 8,192 tokens): on a
 * B200 1,171.3 TFLOP/s forward and 942.5 backward, which H100's copied
 * forward fraction and B200's own backward ratio give within 0.1%; on a
 * GB300 1,495.7 and 1,130.1, its own.  The frontend's direct timings of
 * both racks under one later cuDNN (9.22, results of 2026-04, the same
 * shape) put GB300 at 1,856 / 1,574 of GB200's forward and 1,435 / 1,332
 * of its backward: the priced pair within 3%. */
Test(perf, cudnn_attention_backward_on_blackwell)
{
	double exec = 128.0 * 8192 * 8192 * 256;
	const char *cards[] = { "b200", "gb300", "gb200" };
	double f[3], b[3];
	for (int i = 0; i < 3; i++) {
		tb_inputs x;
		S_moe(&x, "llama-3.1-405b");
		x.training.seq_len = 8192;
		x.parallelism.tensor = 1;
		x.parallelism.pipeline = 1;
		x.parallelism.framework = TB_FW_MEGATRON;
		x.hardware.gpu = *tb_gpus_find(cards[i]);
		/* the release the SDPA figures ran under (the 25.09 container) */
		x.hardware.cudnn_version = 91301;
		tb_perf_input in;
		tb_perf_input_from(&x, &in);
		cr_assert_eq(in.hw.attention_kernel, TB_ATTN_KERNEL_CUDNN);
		tb_perf_layer L;
		cr_assert(tb_perf_layer_time(&in, NULL, &L, NULL));
		double fwd = exec / L.attn_f / 1e12, bwd = 2.5 * exec / L.attn_b / 1e12;
		if (i == 1) {
			/* under 9.22 the frontend's own gain over 9.13.1 on the card,
			 * 1,856 / 1,716.1 forward and 1,435 / 1,150.5 backward */
			x.hardware.cudnn_version = 92200;
			tb_perf_input_from(&x, &in);
			cr_assert_eq(in.cudnn_table, 92200);
			tb_perf_layer L2;
			cr_assert(tb_perf_layer_time(&in, NULL, &L2, NULL));
			cr_expect(fabs(L.attn_f / L2.attn_f / (1856 / 1716.056) - 1) < 1e-9, "forward %g",
			          L.attn_f / L2.attn_f);
			cr_expect(fabs(L.attn_b / L2.attn_b / (1435 / 1150.498) - 1) < 1e-9, "backward %g",
			          L.attn_b / L2.attn_b);
		}
		f[i] = fwd;
		b[i] = bwd;
		if (i == 0) {
			cr_expect(fabs(fwd / 1171.3 - 1) < 0.01, "B200 forward %g TFLOP/s", fwd);
			cr_expect(fabs(bwd / 942.5 - 1) < 0.01, "B200 backward %g TFLOP/s", bwd);
		} else if (i == 1) {
			cr_expect(fabs(fwd / 1495.7 - 1) < 0.01, "GB300 forward %g TFLOP/s", fwd);
			cr_expect(fabs(bwd / 1130.1 - 1) < 0.01, "GB300 backward %g TFLOP/s", bwd);
		}
	}
	cr_expect(fabs(f[1] / f[2] / (1856.0 / 1574) - 1) < 0.03, "GB300/GB200 forward %g", f[1] / f[2]);
	cr_expect(fabs(b[1] / b[2] / (1435.0 / 1332) - 1) < 0.03, "GB300/GB200 backward %g", b[1] / b[2]);
	/* GB200 is B200's die, B300 GB300's */
	cr_expect_eq(tb_gpus_node("gb200")->attention_backward_ratio,
	             tb_gpus_node("b200")->attention_backward_ratio);
	cr_expect_eq(tb_gpus_node("b300")->attention_backward_ratio,
	             tb_gpus_node("gb300")->attention_backward_ratio);
}

/* Megatron-LM's --recompute-modules layernorm moe (the moe policy): an
 * expert layer's whole block is redone, so what a layer's forward gains
 * from routing each token to more experts its recomputation gains too,
 * to the rounding; the block's dispatch and combine run a third time
 * (forward, recomputed forward, backward) and its tensor-parallel pair a
 * second time forward.  Mixtral 8x7B on TP 2 with sequence parallelism
 * and EP 4, nothing overlapped. */
Test(perf, moe_policy_redoes_the_expert_block)
{
	tb_perf_layer L[2][2];          /* [top-k 2, 4][attention, moe policy] */
	for (int ki = 0; ki < 2; ki++)
		for (int pi = 0; pi < 2; pi++) {
			tb_inputs x;
			S_moe(&x, "mixtral-8x7b");
			x.model.experts_per_token = ki ? 4 : 2;
			x.parallelism.tensor = 2;
			x.parallelism.sequence_parallel = true;
			x.parallelism.expert = 4;
			x.parallelism.framework = TB_FW_MEGATRON;
			x.training.checkpointing = TB_CKPT_SELECTIVE;
			x.training.selective_policy = pi ? TB_SELECTIVE_MOE : TB_SELECTIVE_ATTENTION;
			tb_perf_input in;
			tb_perf_input_from(&x, &in);
			cr_assert(tb_perf_layer_time(&in, NULL, &L[ki][pi], NULL));
		}
	for (int ki = 0; ki < 2; ki++) {
		const tb_perf_layer *a = &L[ki][0], *m = &L[ki][1];
		cr_expect(a->recompute == 0, "flash attention's policy redoes nothing");
		cr_expect(m->recompute > 0 && m->recompute < m->fwd);
		cr_expect(fabs(m->ep / (1.5 * a->ep) - 1) < 1e-12, "all-to-all %g against %g", m->ep, a->ep);
		cr_expect(m->moe_tp > 0 && m->moe_tp == m->tp_one);
		cr_expect(fabs((m->tp - a->tp) / m->moe_tp - 1) < 1e-12, "tp %g against %g", m->tp, a->tp);
	}
	double dfwd = L[1][1].fwd - L[0][1].fwd, drc = L[1][1].recompute - L[0][1].recompute;
	cr_expect(dfwd > 0 && fabs(drc / dfwd - 1) < 1e-9, "forward +%g s, recomputation +%g s", dfwd, drc);
}

/* Context parallelism's all-to-all form (Megatron-LM's --cp-comm-type a2a,
 * Transformer Engine's flash_attn_a2a_communicate) by hand: Llama 3 8B at
 * CP 2, one 8,192-token sequence, each rank 4,096 tokens of Q (32 x 128),
 * K and V (8 x 128 each) and the output (32 x 128), 2 bytes an element:
 * 4,096 x 10,240 x 2 = 83,886,080 bytes through the all-to-alls a pass,
 * each tensor copied into the exchange's layout and out of it (read and
 * write each side, 4 x the bytes of HBM traffic), all in line with the
 * compute.  The ring moves K and V alone and hides behind the core. */
Test(perf, context_all_to_all_by_hand)
{
	tb_inputs x;
	S_moe(&x, "llama-3-8b");
	x.parallelism.pipeline = 1;
	x.parallelism.context = 2;
	x.training.seq_len = 8192;
	x.training.checkpointing = TB_CKPT_NONE;
	x.parallelism.cp_comm = TB_CP_A2A;
	tb_perf_input in;
	tb_perf_result r;
	S_predict(&x, &in, &r);
	cr_expect_eq(r.cp_bytes, 83886080.0);
	tb_perf_layer A;
	cr_assert(tb_perf_layer_time(&in, NULL, &A, NULL));
	double one = tb_perf_collective_s(TB_COLL_ALL_TO_ALL, 83886080.0, 2, 2, &in.hw, NULL) +
	             4 * 83886080.0 / (in.hw.hbm_bytes_per_s * tb_perf_mem_fraction(&in.hw, NULL));
	cr_expect(rel(A.cp_f, one) < 1e-12 && rel(A.cp_b, one) < 1e-12, "%g %g vs %g", A.cp_f, A.cp_b, one);
	cr_expect(rel(A.cp, 2 * one) < 1e-12, "exposed forward and backward: %g vs %g", A.cp, 2 * one);

	x.parallelism.cp_comm = TB_CP_P2P;
	S_predict(&x, &in, &r);
	cr_expect_eq(r.cp_bytes, 4096.0 * 2048 * 2);
	tb_perf_layer P;
	cr_assert(tb_perf_layer_time(&in, NULL, &P, NULL));
	double hid = fmax(0, P.cp_f - P.attn_f) + fmax(0, P.cp_b - P.attn_b);
	cr_expect(fabs(P.cp - hid) <= 1e-12 * P.cp_b, "%g vs %g", P.cp, hid);
	cr_expect(P.cp_f > 0 && P.cp_b == 2 * P.cp_f);
	cr_expect(P.cp < A.cp);
	/* the ring merges its steps' partial results (Transformer Engine's
	 * AttnFuncWithCPAndKVP2P, 2 bytes an element): forward the last rank
	 * copies the first step's output (32 x 128 a token) and reads the
	 * second's with a read and write of the sum, 5 passes, and copies K and
	 * V (8 x 128 each) into the send buffer, 2 passes: 4,096 x (5 x 4,096 +
	 * 2 x 2,048) x 2 = 201,326,592 bytes; backward dQ the same 5 passes,
	 * dK and dV 4 (half before the diagonal: a copy then a read and write
	 * of the whole), the send buffer again: 4,096 x (5 x 4,096 + 4 x 2,048 +
	 * 2 x 2,048) x 2 = 268,435,456 (rank 0 moves less: 3.5 x 4,096 + 4.5 x
	 * 2,048) */
	double hbm = in.hw.hbm_bytes_per_s * tb_perf_mem_fraction(&in.hw, NULL);
	cr_expect(rel(P.fwd - A.fwd, 201326592.0 / hbm) < 1e-9, "%g", (P.fwd - A.fwd) * hbm);
	cr_expect(rel(P.bwd - A.bwd, 268435456.0 / hbm) < 1e-9, "%g", (P.bwd - A.bwd) * hbm);
	/* at CP 4 each rank holds 2,048 tokens: forward 11 passes of the
	 * output and the copy, 2,048 x (11 x 4,096 + 2 x 2,048) x 2 =
	 * 201,326,592; backward the last rank's dQ 11 and dK, dV 7 (a half
	 * copy, two half sums, the whole diagonal) against rank 0's 6.5 and
	 * 10.5: 2,048 x (11 x 4,096 + 7 x 2,048 + 2 x 2,048) x 2 = 260,046,848.
	 * Against the all-to-all at CP 4, which merges nothing. */
	x.parallelism.context = 4;
	x.parallelism.cp_comm = TB_CP_A2A;
	tb_perf_input_from(&x, &in);
	tb_perf_layer A4, P4;
	cr_assert(tb_perf_layer_time(&in, NULL, &A4, NULL));
	x.parallelism.cp_comm = TB_CP_P2P;
	tb_perf_input_from(&x, &in);
	cr_assert(tb_perf_layer_time(&in, NULL, &P4, NULL));
	cr_expect(rel(P4.fwd - A4.fwd, 201326592.0 / hbm) < 1e-9, "%g", (P4.fwd - A4.fwd) * hbm);
	cr_expect(rel(P4.bwd - A4.bwd, 260046848.0 / hbm) < 1e-9, "%g", (P4.bwd - A4.bwd) * hbm);
	x.parallelism.context = 2;

	/* the all-gather form (Llama 3's; Transformer Engine's
	 * AttnFuncWithCPAndKVAllGather): each rank's K and V (4,096 x 2,048 x
	 * 2 = 16,777,216 bytes) gathered from both ranks forward and again
	 * backward, their gradients reduce-scattered; the local chunk made
	 * contiguous and the gathered one reordered forward (2 x local + 2 x
	 * all of HBM traffic), the gathered one reordered, the gradients
	 * reordered back and made contiguous backward (4 x all + 2 x local) */
	x.parallelism.cp_comm = TB_CP_ALLGATHER;
	S_predict(&x, &in, &r);
	double local = 16777216.0, all = 2 * local, bw = in.hw.hbm_bytes_per_s * tb_perf_mem_fraction(&in.hw, NULL);
	cr_expect_eq(r.cp_bytes, all);
	tb_perf_layer G;
	cr_assert(tb_perf_layer_time(&in, NULL, &G, NULL));
	double ag = tb_perf_collective_s(TB_COLL_ALL_GATHER, all, 2, 2, &in.hw, NULL);
	double rs = tb_perf_collective_s(TB_COLL_REDUCE_SCATTER, all, 2, 2, &in.hw, NULL);
	double f = ag + (2 * local + 2 * all) / bw, b = ag + rs + (4 * all + 2 * local) / bw;
	cr_expect(rel(G.cp_f, f) < 1e-12 && rel(G.cp_b, b) < 1e-12, "%g %g vs %g %g", G.cp_f, G.cp_b, f, b);
	cr_expect(rel(G.cp, f + b) < 1e-12, "in line: %g vs %g", G.cp, f + b);
	cr_expect(tb_perf_cp_ok(TB_CP_ALLGATHER, 32, 8, 1, 16));

	/* whole heads and key-value groups on each of the t x c ranks */
	cr_expect(tb_perf_cp_ok(TB_CP_A2A, 32, 8, 1, 8));
	cr_expect(!tb_perf_cp_ok(TB_CP_A2A, 32, 8, 1, 16));
	cr_expect(!tb_perf_cp_ok(TB_CP_A2A, 32, 8, 2, 8));
	cr_expect(tb_perf_cp_ok(TB_CP_A2A, 64, 0, 2, 32));
	cr_expect(tb_perf_cp_ok(TB_CP_P2P, 32, 8, 2, 16));
	/* and the step refuses a layout that splits them (a sweep's point) */
	x.parallelism.cp_comm = TB_CP_A2A;
	x.parallelism.context = 16;
	tb_perf_input_from(&x, &in);
	tb_perf_predict(&in, NULL, &r);
	cr_expect(!r.ok && strstr(r.why, "all-to-all"), "%s", r.ok ? "ok" : r.why);
}

/* Transformer Engine launches a GEMM whose collective it pipelines or
 * overlaps in bulk on the SMs that collective leaves (set_sm_margin:
 * _math_sms = sm_count - num_sm, comm_gemm_overlap.cpp), as MLPerf's
 * Llama 2 70B LoRA on H100 at TP 4 gives 32 of 132 SMs from the output
 * projection's forward GEMM and 16 from fc2's (h100tp4mbs1.yaml).  On the
 * 8B layer at TP 8: o x 32/100 + w2 x 16/116 more forward, nothing
 * backward, and the reduce-scatters, which outlast the output
 * projection, hide behind the longer GEMMs (charged once, not twice).
 * Transformer Engine 2's defaults under megatron: 16 from the two forward
 * row-parallel GEMMs and the QKV and fc1 data gradients, and from their
 * weight gradients only in bulk mode (overlap_tp_dgrad false); LoRA runs
 * no base weight gradients; none without sequence parallelism, on a card
 * without a known count or under other frameworks; a margin of all the
 * card's SMs is refused. */
Test(perf_layer, overlapped_gemms_run_on_the_sms_left)
{
	tb_inputs x;
	S_torchtitan_8b(&x, TB_SELECTIVE_ATTENTION, 500);
	x.training.checkpointing = TB_CKPT_NONE;
	tb_perf_input in;
	tb_perf_layer L, M;
	S_tp_overlap(&x, 8, 12, 96, &in, &L);
	double tok = 12 * 8192.0, e = in.matmul_bytes, b = tok * 4096 * 2;
	double rs = tb_perf_collective_s(TB_COLL_REDUCE_SCATTER, b, 8, 8, &in.hw, NULL);
	double qkv = tb_perf_matmul_s(tok, 768, 4096, e, &in.hw, NULL);
	double o = tb_perf_matmul_s(tok, 4096, 512, e, &in.hw, NULL);
	double w13 = tb_perf_matmul_s(tok, 3584, 4096, e, &in.hw, NULL);
	double w2 = tb_perf_matmul_s(tok, 4096, 1792, e, &in.hw, NULL);
	double gb = in.hw.backward_gemm_ratio > 0 ? in.hw.backward_gemm_ratio : 1;
	x.parallelism.overlap_tp_sms[TB_UB_PROJ_FPROP] = 32;
	x.parallelism.overlap_tp_sms[TB_UB_FC2_FPROP] = 16;
	x.parallelism.overlap_tp_sms_set = 1u << TB_UB_PROJ_FPROP | 1u << TB_UB_FC2_FPROP;
	S_tp_overlap(&x, 8, 12, 96, &in, &M);
	double f = o * 32 / 100 + w2 * 16 / 116;
	cr_expect(rel(M.fwd - L.fwd, f) < 1e-9, "forward %g more, %g by hand", M.fwd - L.fwd, f);
	cr_expect(rel(M.bwd, L.bwd) < 1e-12, "backward unchanged");
#define HIDE(c, g, tail) fmin((c), fmax(0, (c) - (g)) + (tail))
	double hid = HIDE(rs, o, rs / 8) - HIDE(rs, o * 132 / 100, rs / 8) +
	             HIDE(rs, w2, rs / 8) - HIDE(rs, w2 * 132 / 116, rs / 8);
#undef HIDE
	cr_assert(rs > o && hid > 0, "the attention block's reduce-scatter outlasts its GEMM");
	cr_expect(rel(L.tp - M.tp, hid) < 1e-9, "hidden behind the stretch %g, %g by hand",
	          L.tp - M.tp, hid);

	/* Transformer Engine 2's defaults under Megatron-LM, rs_dgrad then
	 * bulk, each against every margin written 0 */
	x.parallelism.framework = TB_FW_MEGATRON;
	double fd = (o + w2) * 16 / 116, dgrad = gb * (qkv + w13) * 16 / 116;
	for (int bulk = 0; bulk < 2; bulk++) {
		tb_perf_layer D, F;
		x.parallelism.no_overlap_tp_dgrad = bulk;
		x.parallelism.overlap_tp_sms_set = 0;
		S_tp_overlap(&x, 8, 12, 96, &in, &D);
		for (int g = 0; g < TB_UB_COUNT; g++) {
			x.parallelism.overlap_tp_sms[g] = 0;
			x.parallelism.overlap_tp_sms_set |= (uint16_t)(1u << g);
		}
		S_tp_overlap(&x, 8, 12, 96, &in, &F);
		cr_expect(rel(D.fwd - F.fwd, fd) < 1e-9, "defaults forward %g, %g by hand", D.fwd - F.fwd, fd);
		cr_expect(rel(D.bwd - F.bwd, (bulk ? 2 : 1) * dgrad) < 1e-9,
		          "defaults backward (bulk %d) %g, %g by hand", bulk, D.bwd - F.bwd, (bulk ? 2 : 1) * dgrad);
	}

	/* LoRA in bulk mode: the data gradients alone */
	x.training.method = TB_METHOD_LORA;
	x.training.lora.rank = 16;
	tb_perf_layer D, F;
	x.parallelism.overlap_tp_sms_set = 0;
	S_tp_overlap(&x, 8, 12, 96, &in, &D);
	x.parallelism.overlap_tp_sms_set = (uint16_t)((1u << TB_UB_COUNT) - 1);
	S_tp_overlap(&x, 8, 12, 96, &in, &F);
	cr_expect(rel(D.bwd - F.bwd, dgrad) < 1e-9, "LoRA backward %g, %g", D.bwd - F.bwd, dgrad);
	x.training.method = TB_METHOD_FULL;
	x.parallelism.no_overlap_tp_dgrad = false;

	/* a margin of every SM: no GEMM can run, the layer refuses */
	x.parallelism.overlap_tp_sms[TB_UB_PROJ_FPROP] = 132;
	x.parallelism.overlap_tp_sms_set = 1u << TB_UB_PROJ_FPROP;
	tb_perf_input_from(&x, &in);
	cr_expect(in.ub_no_sms && !tb_perf_layer_time(&in, NULL, &D, NULL));

	/* none without sequence parallelism, on a card with no count, or
	 * under another framework */
	x.parallelism.overlap_tp_sms_set = 0;
	x.parallelism.sequence_parallel = false;
	for (int g = 0; g < TB_UB_COUNT; g++)
		cr_expect(tb_overlap_tp_sms(&x.parallelism, (tb_ub_gemm)g) == 0, "no SP %d", g);
	/* a layout search turns sequence parallelism on and off on the perf
	 * input itself: the layer holds the SMs exactly where it is on */
	x.parallelism.framework = TB_FW_MEGATRON;
	tb_perf_input_from(&x, &in);
	tb_perf_layer off, on;
	cr_assert(tb_perf_layer_time(&in, NULL, &off, NULL));
	in.sequence_parallel = true;
	cr_assert(tb_perf_layer_time(&in, NULL, &on, NULL));
	x.parallelism.sequence_parallel = true;
	S_tp_overlap(&x, 8, 12, 96, &in, &D);
	cr_expect(on.fwd == D.fwd && on.bwd == D.bwd, "turned on by the search, as written on");
	in.sequence_parallel = false;
	cr_assert(tb_perf_layer_time(&in, NULL, &on, NULL));
	cr_expect(on.fwd == off.fwd && on.bwd == off.bwd, "turned off by the search, as written off");
	x.parallelism.framework = TB_FW_FSDP;
	x.hardware.gpu = *tb_gpus_find("gb200");
	tb_perf_input_from(&x, &in);
	for (int g = 0; g < TB_UB_COUNT; g++)
		cr_expect(in.ub_extra[g] == 0, "gb200 %s", tb_ub_gemm_name((tb_ub_gemm)g));
	x.parallelism.framework = TB_FW_FSDP;
	for (int g = 0; g < TB_UB_COUNT; g++)
		cr_expect(tb_overlap_tp_sms(&x.parallelism, (tb_ub_gemm)g) == 0, "fsdp %d", g);
}
