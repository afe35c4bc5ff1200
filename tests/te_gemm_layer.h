/* te_gemm_layer.h: the layer Transformer Engine's GEMM profiling guide
 * times (NVIDIA/TransformerEngine docs/examples/gemm_profiling, 1609c890e,
 * 2026-06), through the step-time model's GEMM law: shared by
 * test_perf_blocks.c, which pins the card table's fp4 fraction and
 * backward ratios to it, and validate.c, which holds the MAMF ceilings
 * against it. */
#ifndef TB_TESTS_TE_GEMM_LAYER_H
#define TB_TESTS_TE_GEMM_LAYER_H

#include <string.h>

#include "trainbudget/gpus.h"
#include "trainbudget/perf.h"

/* The 12 GEMMs of one layer of hidden 4,096 and MLP 16,384 at 15,872
 * tokens (QKV 4,096 -> 12,288, the output projection, the up and the down
 * projection; forward, data gradient, weight gradient) on card `card` in
 * dtype d with operands of `bytes` at matmul ceiling `ceiling`, the
 * backward's at the card's ratio for recipe r; the forward's four alone
 * in *fwd_s. */
static inline double tb_te_gemm_layer_s(const char *card, tb_dtype d, tb_fp8_recipe r,
                                        double bytes, double ceiling, double *fwd_s)
{
	const tb_gpu *g = tb_gpus_find(card);
	tb_perf_hw hw;
	memset(&hw, 0, sizeof hw);
	hw.peak_flops = g->peak_flops[d];
	hw.hbm_bytes_per_s = g->bandwidth_bytes_per_s;
	hw.matmul_ceiling = ceiling;
	const double M = 15872, kn[4][2] = { { 4096, 12288 }, { 4096, 4096 }, { 4096, 16384 }, { 16384, 4096 } };
	double back = tb_gpus_backward_gemm(tb_gpus_node(card), d, r), f = 0, b = 0;
	for (int i = 0; i < 4; i++) {
		double K = kn[i][0], N = kn[i][1];
		f += tb_perf_matmul_s(M, N, K, bytes, &hw, NULL);
		b += back * (tb_perf_matmul_s(M, K, N, bytes, &hw, NULL) + tb_perf_matmul_s(K, N, M, bytes, &hw, NULL));
	}
	if (fwd_s)
		*fwd_s = f;
	return f + b;
}

#endif
