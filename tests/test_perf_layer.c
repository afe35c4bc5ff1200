/* test_perf_layer.c: one layer's time (perf_layer.c): the bound a search
 * asks before timing a layer shape.  The layer itself is pinned through
 * whole predictions in test_perf.c. */
#include <criterion/criterion.h>
#include <string.h>

#include "trainbudget/gpus.h"
#include "trainbudget/perf.h"
#include "trainbudget/presets.h"

/* A mixture of the presets on 8-GPU H100 nodes, 4K sequences, the layout
 * and training varied by the caller. */
static void S_moe(tb_inputs *x, const char *preset)
{
	const tb_preset *pr = tb_presets_find(preset);
	cr_assert_not_null(pr, "%s", preset);
	memset(x, 0, sizeof *x);
	x->model = pr->model;
	x->training.tokens = 1e12;
	x->training.seq_len = 4096;
	x->training.global_batch = 4096;
	x->training.micro_batch = 1;
	x->training.precision = TB_PREC_BF16_MIXED;
	x->training.optimizer = TB_OPT_ADAMW;
	x->training.flash_attention = true;
	x->parallelism.pipeline = 4;
	x->hardware.gpu = *tb_gpus_find("h100-sxm");
	x->hardware.count = 1024;
}

static double S_lt(const tb_perf_layer *L)
{
	return L->fwd + L->bwd + L->recompute + L->tp + L->cp + L->ep;
}

/* tb_perf_layer_floor_s never exceeds the expert layer it bounds, under
 * every method, checkpointing (part of the layers recomputed too, whose
 * kept layers run without the recomputation), dispatcher, overlap,
 * precision, micro-batch and tensor, context and expert size: a search
 * that drops a shape by it drops only what its timed floor would have
 * (the brute-force tests of test_plan.c check the results).  A bound
 * that fell to nothing would pass that, so at DeepSeek-V3's own layout it
 * must hold most of the layer, and so must its matmuls where the
 * all-to-all stays in a node. */
Test(perf_layer, floor_bounds_the_layer)
{
	const char *presets[] = { "deepseek-v3", "mixtral-8x7b", "qwen1.5-moe-a2.7b" };
	const tb_method methods[] = { TB_METHOD_FULL, TB_METHOD_DPO, TB_METHOD_LORA, TB_METHOD_FROZEN };
	const int64_t shapes[][4] = {   /* tensor, context, expert, micro-batch */
		{ 1, 1, 8, 1 }, { 1, 1, 64, 1 }, { 2, 1, 8, 4 }, { 1, 2, 16, 2 }, { 8, 1, 32, 1 }, { 1, 1, 1, 2 },
	};
	int checked = 0;
	for (size_t pi = 0; pi < sizeof presets / sizeof *presets; pi++)
		for (size_t mi = 0; mi < sizeof methods / sizeof *methods; mi++)
			for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++)
				for (int var = 0; var < 8; var++) {
					tb_inputs x;
					S_moe(&x, presets[pi]);
					x.training.method = methods[mi];
					if (methods[mi] == TB_METHOD_LORA)
						x.training.lora.rank = 16;
					x.parallelism.tensor = shapes[si][0];
					x.parallelism.sequence_parallel = shapes[si][0] > 1;
					x.parallelism.context = shapes[si][1];
					x.parallelism.expert = shapes[si][2];
					x.training.micro_batch = shapes[si][3];
					x.parallelism.data = 1024 / 4 / shapes[si][0] / shapes[si][1];
					x.parallelism.dispatcher = var & 1 ? TB_DISPATCH_DEEPEP : TB_DISPATCH_ALLTOALL;
					x.parallelism.overlap_ep = var & 2;
					x.parallelism.overlap_tp = var & 2;
					if (var & 4)
						x.training.precision = TB_PREC_FP8_MIXED;
					tb_perf_input in;
					tb_perf_input_from(&x, &in);
					tb_perf_floor f;
					if (!tb_perf_layer_floor(&in, NULL, &f))
						continue;
					for (int ck = 0; ck < 3; ck++)
						for (int64_t part = 0; part <= 2; part += 2) {
							in.checkpointing = (tb_checkpointing)ck;
							in.recompute_layers = ck == TB_CKPT_FULL ? part : 0;
							tb_perf_layer L;
							cr_assert(tb_perf_layer_time(&in, NULL, &L, NULL));
							double lb = tb_perf_layer_floor_s(&in, &f);
							cr_expect(lb > 0 && lb <= S_lt(&L),
							          "%s method %d shape %zu var %d mode %d: %g > %g", presets[pi],
							          (int)methods[mi], si, var, ck, lb, S_lt(&L));
							/* the kept layers, as S_stage_of reads them */
							if (in.recompute_layers > 0 && L.recompute > 0) {
								double kept = L.fwd + L.bwd + L.tp_keep + L.cp_keep + L.ep_keep;
								cr_expect(lb <= kept, "%s shape %zu var %d: kept %g < %g",
								          presets[pi], si, var, kept, lb);
							}
							checked++;
						}
				}
	cr_expect(checked > 1000, "%d", checked);

	/* DeepSeek-V3 on DeepSeek's layout: EP 64 over 8 nodes, DeepEP */
	tb_inputs x;
	S_moe(&x, "deepseek-v3");
	x.training.precision = TB_PREC_FP8_MIXED;
	x.parallelism.pipeline = 16;
	x.parallelism.expert = 64;
	x.parallelism.data = 128;
	x.parallelism.dispatcher = TB_DISPATCH_DEEPEP;
	x.parallelism.overlap_ep = true;
	tb_perf_input in;
	tb_perf_input_from(&x, &in);
	tb_perf_floor f;
	tb_perf_layer L;
	cr_assert(tb_perf_layer_floor(&in, NULL, &f));
	cr_assert(tb_perf_layer_time(&in, NULL, &L, NULL));
	double lb = tb_perf_layer_floor_s(&in, &f);
	cr_expect(lb > 0.6 * S_lt(&L) && lb <= S_lt(&L), "%g of %g", lb, S_lt(&L));

	/* Mixtral 8x7B with its experts in one node, where the matmuls, not
	 * the all-to-all, make the layer */
	S_moe(&x, "mixtral-8x7b");
	x.parallelism.expert = 8;
	x.parallelism.data = 256;
	tb_perf_input_from(&x, &in);
	cr_assert(tb_perf_layer_floor(&in, NULL, &f));
	cr_assert(tb_perf_layer_time(&in, NULL, &L, NULL));
	lb = tb_perf_layer_floor_s(&in, &f);
	cr_expect(f.a2a_s < 0.2 * f.fwd_s, "%g against %g", f.a2a_s, f.fwd_s);
	cr_expect(lb > 0.6 * S_lt(&L) && lb <= S_lt(&L), "%g of %g", lb, S_lt(&L));

	/* a dense model has no expert layer to bound */
	S_moe(&x, "deepseek-v3");
	x.model.experts = 0;
	tb_perf_input_from(&x, &in);
	cr_expect(!tb_perf_layer_floor(&in, NULL, &f));
}
