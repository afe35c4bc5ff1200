/* test_perf_blocks.c: the step-time model's building blocks
 * (perf_blocks.c).
 *
 * Collective times against hand-worked arithmetic (round link figures,
 * latencies and the size term switched off so each case is one line of
 * arithmetic in its comment) and against the published bus bandwidths the
 * node table is built from; the 1F1B bubble; the clocks a power limit
 * leaves; the attention's keys under local windows and chunks. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/budget.h"
#include "trainbudget/gpus.h"
#include "trainbudget/perf.h"
#include "trainbudget/presets.h"
#include "te_gemm_layer.h"

static double rel(double got, double want)
{
	return fabs(got - want) / fabs(want);
}

/* 100 GB/s NVLink, 10 GB/s network, nothing lost: a collective is bytes x
 * factor / link. */
static tb_perf_hw S_round_hw(void)
{
	tb_perf_hw hw;
	memset(&hw, 0, sizeof hw);
	hw.gpus_per_node = 8;
	hw.nvlink_bytes_per_s = 100e9;
	hw.network_bytes_per_s = 10e9;
	hw.nvlink_fraction = 1;
	hw.network_fraction = 1;
	return hw;
}

static tb_perf_consts S_bare(void)
{
	tb_perf_consts k = tb_perf_fitted;
	k.coll_chunk_half_bytes = 0;
	k.nvlink_latency_s = 0;
	k.network_latency_s = 0;
	return k;
}

Test(perf_blocks, collectives_hand_worked)
{
	tb_perf_hw hw = S_round_hw();
	tb_perf_consts k = S_bare();
	/* all-reduce of 8 GB over 8 GPUs of a node: 2 x 7/8 x 8e9 / 100e9 */
	cr_expect(rel(tb_perf_collective_s(TB_COLL_ALL_REDUCE, 8e9, 8, 8, &hw, &k), 0.14) < 1e-12);
	/* reduce-scatter and all-gather: half of it, 7/8 x 8e9 / 100e9 */
	cr_expect(rel(tb_perf_collective_s(TB_COLL_REDUCE_SCATTER, 8e9, 8, 8, &hw, &k), 0.07) < 1e-12);
	cr_expect(rel(tb_perf_collective_s(TB_COLL_ALL_GATHER, 8e9, 8, 8, &hw, &k), 0.07) < 1e-12);
	/* all-to-all in a node: 7/8 of the buffer leaves each GPU on NVLink */
	cr_expect(rel(tb_perf_collective_s(TB_COLL_ALL_TO_ALL, 8e9, 8, 8, &hw, &k), 0.07) < 1e-12);
	/* 16 GPUs on 2 nodes of 8: the boundary is crossed on 8 ports at once,
	 * min(100, 8 x 10) = 80 GB/s: 2 x 15/16 x 8e9 / 80e9 */
	cr_expect(rel(tb_perf_collective_s(TB_COLL_ALL_REDUCE, 8e9, 16, 8, &hw, &k), 0.1875) < 1e-12);
	/* 8 GPUs, one per node (a data-parallel group beside TP 8): one port,
	 * 2 x 7/8 x 8e9 / 10e9 */
	cr_expect(rel(tb_perf_collective_s(TB_COLL_ALL_REDUCE, 8e9, 8, 1, &hw, &k), 1.4) < 1e-12);
	/* all-to-all over 2 nodes of 8: 7/16 stays on NVLink, 8/16 leaves on
	 * the GPU's port: 7/16 x 8e9/100e9 + 8/16 x 8e9/10e9 */
	cr_expect(rel(tb_perf_collective_s(TB_COLL_ALL_TO_ALL, 8e9, 16, 8, &hw, &k), 0.435) < 1e-12);
	/* one send between nodes: 1e9 / 10e9; inside a node: 1e9 / 100e9 */
	cr_expect(rel(tb_perf_collective_s(TB_COLL_P2P, 1e9, 2, 1, &hw, &k), 0.1) < 1e-12);
	cr_expect(rel(tb_perf_collective_s(TB_COLL_P2P, 1e9, 2, 2, &hw, &k), 0.01) < 1e-12);
	/* nothing to do */
	cr_expect_eq(tb_perf_collective_s(TB_COLL_ALL_REDUCE, 8e9, 1, 1, &hw, &k), 0);
	cr_expect_eq(tb_perf_collective_s(TB_COLL_ALL_REDUCE, 0, 8, 8, &hw, &k), 0);
}

Test(perf_blocks, collective_latency_and_size)
{
	tb_perf_hw hw = S_round_hw();
	tb_perf_consts k = S_bare();
	k.nvlink_latency_s = 10e-6;
	k.network_latency_s = 15e-6;
	/* 64 GPUs on 8 nodes: 10 us + 3 doublings x 15 us, plus 2 x 63/64 x
	 * 1e9 / 80e9 */
	double want = 10e-6 + 45e-6 + 2.0 * 63 / 64 * 1e9 / 80e9;
	cr_expect(rel(tb_perf_collective_s(TB_COLL_ALL_REDUCE, 1e9, 64, 8, &hw, &k), want) < 1e-12);
	/* a chunk of x0 bytes per rank runs at half speed: 8 GPUs x 1 MB */
	k.nvlink_latency_s = k.network_latency_s = 0;
	k.coll_chunk_half_bytes = 1e6;
	double full = 2.0 * 7 / 8 * 8e6 / 100e9;
	cr_expect(rel(tb_perf_collective_s(TB_COLL_ALL_REDUCE, 8e6, 8, 8, &hw, &k), 2 * full) < 1e-12);
}

/* The node table reproduces the bus bandwidths it was built from
 * (interconnect.yaml, ml-engineering network/README.md): 235 GB/s
 * all-reduce on an 8 x A100 node and 377.34 GB/s over four 8 x B200 nodes
 * at 4 GiB; in one node the ring's figures, NVLink SHARP off: 682.2 GB/s
 * all-reduce on 8 x B200 at 8 GiB, all-gather 361.4 and reduce-scatter
 * 362.9 GB/s on 8 x H200 at 16 GiB; 312.912 GB/s all-reduce on 8 x
 * MI300X at 4 GiB.  busbw = 2(n-1)/n x size / time for
 * an all-reduce, (n-1)/n x size / time for the others (nccl-tests
 * doc/PERFORMANCE.md). */
static void S_node_hw(const char *gpu, tb_perf_hw *hw)
{
	memset(hw, 0, sizeof *hw);
	tb_perf_hw_links(tb_gpus_node(gpu), hw);
}

static double S_busbw(const char *gpu, tb_coll kind, int64_t n, double bytes)
{
	tb_perf_hw hw;
	S_node_hw(gpu, &hw);
	double t = tb_perf_collective_s(kind, bytes, n, hw.gpus_per_node, &hw, NULL);
	double f = kind == TB_COLL_ALL_REDUCE ? 2.0 : 1.0;
	return f * (double)(n - 1) / (double)n * bytes / t;
}

Test(perf_blocks, published_bus_bandwidths)
{
	double gib = 1073741824.0;
	static const struct {
		const char *gpu;
		tb_coll kind;
		int64_t n;
		double bytes, busbw;
	} c[] = {
		{ "a100-80gb", TB_COLL_ALL_REDUCE, 8, 4, 235e9 },
		{ "b200", TB_COLL_ALL_REDUCE, 32, 4, 377.34e9 },
		{ "b200", TB_COLL_ALL_REDUCE, 8, 8, 682.2e9 },
		{ "h200", TB_COLL_ALL_GATHER, 8, 16, 361.4e9 },
		{ "h200", TB_COLL_REDUCE_SCATTER, 8, 16, 362.9e9 },
		{ "mi300x", TB_COLL_ALL_REDUCE, 8, 4, 312.912e9 },
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		double got = S_busbw(c[i].gpu, c[i].kind, c[i].n, c[i].bytes * gib);
		cr_expect(rel(got, c[i].busbw) < 0.005, "%s %d: %g", c[i].gpu, (int)c[i].kind, got);
	}
	/* MI300X's Infinity Fabric is a full mesh, 7 links of 64 GB/s: two of
	 * its GPUs share one link, 47.671 GB/s measured at 4 GiB, where a
	 * switch would give the pair all 448; the model's seventh of the
	 * 8-GPU figure comes within 7% of it */
	double pair = S_busbw("mi300x", TB_COLL_ALL_REDUCE, 2, 4 * gib);
	cr_expect(rel(pair, 47.671e9) < 0.07, "%g", pair);
	/* a send between nodes leaves through the GPU's own port, mesh or not */
	tb_perf_hw hw;
	S_node_hw("mi300x", &hw);
	cr_assert(hw.mesh);
	double across = tb_perf_collective_s(TB_COLL_P2P, gib, 2, 1, &hw, NULL);
	double inside = tb_perf_collective_s(TB_COLL_P2P, gib, 2, 2, &hw, NULL);
	hw.mesh = false;
	cr_expect(across == tb_perf_collective_s(TB_COLL_P2P, gib, 2, 1, &hw, NULL), "%g s", across);
	cr_expect(inside > tb_perf_collective_s(TB_COLL_P2P, gib, 2, 2, &hw, NULL) * 6, "one link of seven");
	cr_expect(S_busbw("h100-sxm", TB_COLL_ALL_REDUCE, 2, 4 * gib) >
	          S_busbw("h100-sxm", TB_COLL_ALL_REDUCE, 8, 4 * gib) * 0.99, "a switch: any pair at full rate");
}

/* The expert dispatch through NCCL's all-to-all, as NVIDIA's Megatron
 * Core MoE report times it (arXiv:2603.07685v2 Table 7: a DeepSeek-V3
 * layer, hidden 7,168, 4,096 tokens a GPU, 8 of 256 experts, each GPU
 * handing 4,096 x 8 x 7,168 bf16 to the others; the communication alone):
 * 735, 743, 769 and 930 us on GB200 at EP 8, 16, 32 and 64, one NVLink
 * domain, and 1,265, 5,774, 8,059 and 9,164 us on H100, 8 a node.  GB200's
 * all-to-all fraction, 0.64 of the link, is set from its four figures
 * (their geometric mean, within 1%: gpus.c); H100's all-to-all has no
 * figure of its own, its ring one serves, and the table tests it. */
static double S_dispatch_us(const char *gpu, int64_t ep)
{
	tb_perf_hw hw;
	S_node_hw(gpu, &hw);
	double bytes = 4096.0 * 8 * 7168 * 2;
	int64_t g = ep < hw.gpus_per_node ? ep : hw.gpus_per_node;
	return 1e6 * tb_perf_collective_s(TB_COLL_ALL_TO_ALL, bytes, ep, g, &hw, NULL);
}

Test(perf_blocks, expert_dispatch_against_the_moe_report)
{
	static const int64_t ep[] = { 8, 16, 32, 64 };
	static const double gb200[] = { 735, 743, 769, 930 }, h100[] = { 1265, 5774, 8059, 9164 };
	double log_sum = 0;
	for (size_t i = 0; i < 4; i++) {
		double g = S_dispatch_us("gb200", ep[i]), h = S_dispatch_us("h100-sxm", ep[i]);
		cr_expect(fabs(g / gb200[i] - 1) < 0.11, "gb200 EP %lld: %g us, published %g",
		          (long long)ep[i], g, gb200[i]);
		cr_expect(fabs(h / h100[i] - 1) < 0.10, "h100 EP %lld: %g us, published %g",
		          (long long)ep[i], h, h100[i]);
		log_sum += log(g / gb200[i]);
	}
	cr_expect(fabs(log_sum / 4) < 0.01, "gb200's geometric mean ratio %g", exp(log_sum / 4));
	/* the figure is the all-to-all's alone: GB200's rings keep theirs */
	tb_perf_hw hw, rings;
	S_node_hw("gb200", &hw);
	rings = hw;
	rings.a2a_fraction = 0;
	cr_expect_eq(tb_perf_collective_s(TB_COLL_ALL_GATHER, 1e9, 64, 64, &hw, NULL),
	             tb_perf_collective_s(TB_COLL_ALL_GATHER, 1e9, 64, 64, &rings, NULL));
	cr_expect(tb_perf_collective_s(TB_COLL_ALL_TO_ALL, 1e9, 64, 64, &hw, NULL) >
	          tb_perf_collective_s(TB_COLL_ALL_TO_ALL, 1e9, 64, 64, &rings, NULL));
}

Test(perf_blocks, bubble_formula)
{
	/* (p-1)/(v m): Narayanan et al. 2021 Sec. 2.2 */
	cr_expect(rel(tb_perf_bubble_fraction(8, 1, 64), 7.0 / 64) < 1e-15);
	cr_expect(rel(tb_perf_bubble_fraction(8, 3, 64), 7.0 / 192) < 1e-15);
	cr_expect(rel(tb_perf_bubble_fraction(12, 1, 2), 11.0 / 2) < 1e-15);
	cr_expect_eq(tb_perf_bubble_fraction(1, 4, 64), 0);
	/* more micro-batches never widen the bubble; interleaving never does */
	for (int64_t p = 2; p <= 64; p *= 2)
		for (int64_t m = 1; m < 512; m++) {
			cr_assert(tb_perf_bubble_fraction(p, 1, m + 1) <= tb_perf_bubble_fraction(p, 1, m));
			cr_assert(tb_perf_bubble_fraction(p, 2, m) <= tb_perf_bubble_fraction(p, 1, m));
		}
}

Test(perf_blocks, inside_a_node_never_slower)
{
	const char *cards[] = { "a100-80gb", "h100-sxm", "b200", "gb200", "l40s", "tpu-v4" };
	tb_coll kinds[] = { TB_COLL_ALL_REDUCE, TB_COLL_REDUCE_SCATTER, TB_COLL_ALL_GATHER,
	                    TB_COLL_ALL_TO_ALL };
	for (size_t c = 0; c < sizeof cards / sizeof cards[0]; c++) {
		const tb_gpu_node *nd = tb_gpus_node(cards[c]);
		tb_perf_hw hw;
		S_node_hw(cards[c], &hw);
		for (size_t kk = 0; kk < sizeof kinds / sizeof kinds[0]; kk++)
			for (int64_t n = 2; n <= nd->gpus; n++)
				for (double bytes = 1e3; bytes < 1e11; bytes *= 7) {
					double inside = tb_perf_collective_s(kinds[kk], bytes, n, n, &hw, NULL);
					/* the same n GPUs spread over more nodes */
					for (int64_t per = 1; per < n; per++) {
						if (n % per)
							continue;
						double across = tb_perf_collective_s(kinds[kk], bytes, n, per, &hw, NULL);
						cr_assert(inside <= across, "%s kind %zu n %lld per %lld bytes %g: %g > %g",
						          cards[c], kk, (long long)n, (long long)per, bytes, inside, across);
					}
				}
		cr_assert(tb_perf_collective_s(TB_COLL_P2P, 1e8, 2, 2, &hw, NULL) <=
		          tb_perf_collective_s(TB_COLL_P2P, 1e8, 2, 1, &hw, NULL));
	}
}

/* A power limit slows the clocks of the compute, not the memory or the
 * links: a compute-bound GEMM takes 1 / (p^x) as long, a memory-bound one
 * and a collective the same; no limit, or a nonsense fraction, is 1. */
Test(perf_blocks, power_limit_slows_compute_only)
{
	tb_perf_hw hw = S_round_hw();
	hw.peak_flops = 989.4e12;
	hw.matmul_ceiling = 0.803;
	hw.hbm_bytes_per_s = 3.35e12;
	tb_perf_hw cap = hw;
	cap.power_fraction = 500.0 / 700.0;
	double clock = pow(500.0 / 700.0, tb_perf_fitted.power_exponent);
	cr_expect(tb_perf_clock_fraction(&cap, NULL) == clock);
	cr_expect(clock > 0.5 && clock < 0.8, "%g", clock);
	hw.power_fraction = 1;
	cr_expect(tb_perf_clock_fraction(&hw, NULL) == 1);
	hw.power_fraction = 0;
	cr_expect(tb_perf_clock_fraction(&hw, NULL) == 1);
	hw.power_fraction = NAN;
	cr_expect(tb_perf_clock_fraction(&hw, NULL) == 1);
	hw.power_fraction = 1;
	double big = tb_perf_matmul_s(8192, 8192, 8192, 2, &hw, NULL);
	cr_expect(rel(tb_perf_matmul_s(8192, 8192, 8192, 2, &cap, NULL), big / clock) < 1e-12);
	/* one row through a card with a tenth of the bandwidth: memory-bound */
	hw.hbm_bytes_per_s = cap.hbm_bytes_per_s = 0.1e12;
	double thin = tb_perf_matmul_s(1, 8192, 8192, 2, &hw, NULL);
	cr_expect(thin == 8192.0 * 8192 * 2 / (0.1e12 * tb_perf_fitted.mem_fraction) * (1 + 2 / 8192.0));
	cr_expect(tb_perf_matmul_s(1, 8192, 8192, 2, &cap, NULL) == thin);
	cr_expect(tb_perf_collective_s(TB_COLL_ALL_REDUCE, 1e9, 8, 8, &cap, NULL) ==
	          tb_perf_collective_s(TB_COLL_ALL_REDUCE, 1e9, 8, 8, &hw, NULL));
	/* a card's measured memory fraction replaces the fitted one on the
	 * memory-bound side (gpus.h mem_fraction) */
	cr_expect(tb_perf_mem_fraction(&hw, NULL) == tb_perf_fitted.mem_fraction);
	cr_expect(!tb_perf_mem_measured(&hw) && !tb_perf_mem_measured(NULL));
	hw.mem_fraction = 0.782;
	cr_expect(tb_perf_mem_fraction(&hw, NULL) == 0.782 && tb_perf_mem_measured(&hw));
	cr_expect(rel(tb_perf_matmul_s(1, 8192, 8192, 2, &hw, NULL), thin * tb_perf_fitted.mem_fraction / 0.782) < 1e-12);
}

/* The hops of a collective: libm's ceil(log2(n)), to the bit, from the
 * bit length the search uses. */
Test(perf_blocks, ceil_log2_is_libm)
{
	for (uint32_t n = 2; n <= (1u << 20); n++)
		cr_assert(tb_perf_ceil_log2(n) == ceil(log2(n)), "n = %u", n);
	for (int k = 1; k <= 31; k++)
		for (int d = -3; d <= 3; d++) {
			double n = ldexp(1, k) + d;
			if (n >= 2)
				cr_assert(tb_perf_ceil_log2(n) == ceil(log2(n)), "n = %.0f", n);
		}
	/* past the bound, and not whole: libm's */
	cr_expect(tb_perf_ceil_log2(1e12) == ceil(log2(1e12)));
	cr_expect(tb_perf_ceil_log2(2.5) == 2);
}

/* Transformer Engine's GEMM profiling guide (NVIDIA/TransformerEngine
 * docs/examples/gemm_profiling, 1609c890e, 2026-06), B300 SXM6 AC, the
 * inputs pre-quantized (the kernels alone): a layer's 12 GEMMs take
 * 13.102 ms in bf16, 6.812 ms in fp8 with per-tensor scales and 3.764 ms
 * in NVFP4; the forward's four alone 4.250 ms in bf16 and 2.158 ms in
 * fp8.  The bf16 and fp8 ceilings are ml-engineering's best-shape MAMF,
 * measured elsewhere: held against the guide, within 5% and 2%.  The fp4
 * one is the guide's figure itself, read through this GEMM law, and the
 * backward's ratios its own (dgrad + wgrad over twice fprop): pinned. */
Test(perf_blocks, gemms_against_te_profiling_guide)
{
	const tb_gpu_node *n = tb_gpus_node("b300");
	double bf16 = tb_te_gemm_layer_s("b300", TB_DTYPE_BF16, TB_FP8_AUTO, 2, n->matmul_ceiling, NULL);
	double fp8 = tb_te_gemm_layer_s("b300", TB_DTYPE_FP8, TB_FP8_TENSORWISE, 1, n->matmul_ceiling_fp8, NULL);
	double fp4 = tb_te_gemm_layer_s("b300", TB_DTYPE_FP4, TB_FP8_AUTO, 0.5 + 1.0 / 16,
	                                tb_gpus_fp4_ceiling(n, NULL), NULL);
	cr_expect(rel(bf16, 13.102e-3) < 0.05, "bf16 %.4g ms", bf16 * 1e3);
	cr_expect(rel(fp8, 6.812e-3) < 0.02, "fp8 %.4g ms", fp8 * 1e3);
	cr_expect(rel(fp4, 3.764e-3) < 0.01, "nvfp4 %.4g ms", fp4 * 1e3);
	cr_expect(n->matmul_fp4_measured);
	/* the backward over the forward, per format, as the guide times them */
	cr_expect(fabs(tb_gpus_backward_gemm(n, TB_DTYPE_BF16, TB_FP8_AUTO) - (4.434 + 4.418) / (2 * 4.250)) < 1e-3);
	cr_expect(fabs(tb_gpus_backward_gemm(n, TB_DTYPE_FP8, TB_FP8_TENSORWISE) - (2.329 + 2.325) / (2 * 2.158)) < 1e-3);
	cr_expect(fabs(tb_gpus_backward_gemm(n, TB_DTYPE_FP8, TB_FP8_DELAYED) - (2.329 + 2.325) / (2 * 2.158)) < 1e-3);
	cr_expect(fabs(tb_gpus_backward_gemm(n, TB_DTYPE_FP8, TB_FP8_MXFP8) - (2.397 + 2.400) / (2 * 2.365)) < 1e-3);
	cr_expect(fabs(tb_gpus_backward_gemm(n, TB_DTYPE_FP4, TB_FP8_AUTO) - (1.305 + 1.205) / (2 * 1.254)) < 1e-3);
	/* Hopper's are its forward's (H200 NVL: bf16 1.001, fp8 1.005) */
	cr_expect_eq(tb_gpus_backward_gemm(tb_gpus_node("h100-sxm"), TB_DTYPE_FP8, TB_FP8_DELAYED), 1);
	cr_expect_eq(tb_gpus_backward_gemm(tb_gpus_node("h200"), TB_DTYPE_BF16, TB_FP8_AUTO), 1);
	cr_expect_eq(tb_gpus_backward_gemm(tb_gpus_node("b200"), TB_DTYPE_FP8, TB_FP8_TENSORWISE),
	             tb_gpus_backward_gemm(n, TB_DTYPE_FP8, TB_FP8_TENSORWISE));
	/* MXFP8's GEMMs against per-tensor scaling's on the same card: the
	 * forward 2.365 ms against 2.158, so the whole layer 7.162 against
	 * 6.812 once the backward's own ratio is on it; Blackwell's blockwise
	 * GEMMs are its MXFP8 ones; the other Blackwell parts copy B300's */
	double mx = tb_gpus_recipe_gemm(n, TB_DTYPE_FP8, TB_FP8_MXFP8);
	cr_expect(fabs(mx * 2.158 - 2.365) < 1e-3, "%g", mx);
	double f_mx, f_pt;
	double l_mx = tb_te_gemm_layer_s("b300", TB_DTYPE_FP8, TB_FP8_MXFP8, 1 + 1.0 / 32,
	                                 n->matmul_ceiling_fp8 / mx, &f_mx);
	double l_pt = tb_te_gemm_layer_s("b300", TB_DTYPE_FP8, TB_FP8_TENSORWISE, 1, n->matmul_ceiling_fp8, &f_pt);
	cr_expect(rel(l_mx / l_pt, (171.869 / 24) / (163.493 / 24)) < 0.01, "%g", l_mx / l_pt);
	cr_expect(rel(f_mx / f_pt, 2.365 / 2.158) < 1e-3, "%g", f_mx / f_pt);
	cr_expect_eq(tb_gpus_recipe_gemm(n, TB_DTYPE_FP8, TB_FP8_BLOCKWISE), mx);
	cr_expect_eq(tb_gpus_recipe_gemm(tb_gpus_node("gb200"), TB_DTYPE_FP8, TB_FP8_MXFP8), mx);
	cr_expect_eq(tb_gpus_recipe_gemm(n, TB_DTYPE_FP8, TB_FP8_TENSORWISE), 1);
	cr_expect_eq(tb_gpus_recipe_gemm(n, TB_DTYPE_FP8, TB_FP8_DEEPSEEK), 1);
	cr_expect_eq(tb_gpus_recipe_gemm(n, TB_DTYPE_FP4, TB_FP8_MXFP8), 1);
}

/* The same guide times each recipe's layer in autocast too, quantization
 * included (ms a layer: the 24-layer totals over 24): on an H200 NVL
 * (4.8 TB/s) current scaling 20.285 and delayed 18.978 against current
 * scaling's GEMMs alone 16.785; on a B300 (8 TB/s) current 219.522 / 24,
 * delayed 187.246 / 24 and MXFP8 215.608 / 24 against 163.493 / 24 and
 * 171.869 / 24 alone (delayed's GEMMs are current's kernel: delayed scaling
 * has no pre-quantized run).  The difference moves the layer's 455,081,984
 * input, 585,105,408 output-gradient and 201,326,592 weight elements at the
 * bytes perf_input.c prices for each
 * recipe's casts (6, 4 and 4.0625 B an element, checked below): that
 * bandwidth over the card's, the median of the five, is
 * TB_PERF_CAST_BW_FRACTION. */
static int S_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

Test(perf_blocks, cast_bandwidth_from_te_profiling_guide)
{
	/* inputs forward, output gradients backward, weights */
	const double elems = 15872.0 * (4096 * 3 + 16384) + 15872.0 * (12288 + 4096 + 16384 + 4096) +
	                     (4096.0 * 12288 + 4096.0 * 4096 + 4096.0 * 16384 + 16384.0 * 4096);
	const struct {
		double hbm, with_ms, alone_ms, bytes;
	} pts[] = {
		{ 4.8e12, 20.285, 16.785, 2 + (2 + 2) },                 /* H200 NVL current */
		{ 4.8e12, 18.978, 16.785, 2 + 2 },                       /* H200 NVL delayed */
		{ 8e12, 219.522 / 24, 163.493 / 24, 2 + (2 + 2) },       /* B300 current */
		{ 8e12, 187.246 / 24, 163.493 / 24, 2 + 2 },             /* B300 delayed */
		{ 8e12, 215.608 / 24, 171.869 / 24, 2 + 2 * (1 + 1.0 / 32) }, /* B300 MXFP8 */
	};
	double f[5];
	for (int i = 0; i < 5; i++)
		f[i] = elems * pts[i].bytes / ((pts[i].with_ms - pts[i].alone_ms) * 1e-3) / pts[i].hbm;
	qsort(f, 5, sizeof f[0], S_cmp);
	cr_expect(fabs(f[2] - TB_PERF_CAST_BW_FRACTION) < 1e-4, "median %g, perf.h %g", f[2],
	          TB_PERF_CAST_BW_FRACTION);
	/* the recipes' cast bytes those figures are read at are the model's */
	tb_inputs x;
	memset(&x, 0, sizeof x);
	x.model = tb_presets_find("llama-3-8b")->model;
	x.training.tokens = 1e12;
	x.training.seq_len = 4096;
	x.training.global_batch = 64;
	x.training.micro_batch = 1;
	x.training.precision = TB_PREC_FP8_MIXED;
	x.hardware.gpu = *tb_gpus_find("b300");
	x.hardware.count = 8;
	x.parallelism.framework = TB_FW_MEGATRON;
	const tb_fp8_recipe rs[3] = { TB_FP8_TENSORWISE, TB_FP8_DELAYED, TB_FP8_MXFP8 };
	const double want[3] = { 6, 4, 2 + 2 * (1 + 1.0 / 32) };
	for (int i = 0; i < 3; i++) {
		x.training.fp8_recipe = rs[i];
		tb_perf_input in;
		tb_perf_input_from(&x, &in);
		cr_expect_eq(in.fp8_cast_bytes, want[i], "%s", tb_fp8_recipe_name(rs[i]));
		cr_expect(in.te_casts, "%s", tb_fp8_recipe_name(rs[i]));
	}
}

/* A scenario of `preset` at T tokens a sequence, one H100 node, FSDP,
 * flash attention: the step-time model's input for it and flops.c's
 * count beside it. */
static void S_windowed(const char *preset, int64_t T, tb_perf_input *in, tb_budget *b)
{
	tb_inputs x;
	memset(&x, 0, sizeof x);
	x.model = tb_presets_find(preset)->model;
	x.training.tokens = 1e11;
	x.training.seq_len = T;
	x.training.global_batch = 64;
	x.training.micro_batch = 1;
	x.training.precision = TB_PREC_BF16_MIXED;
	x.training.optimizer = TB_OPT_ADAMW;
	x.training.flash_attention = true;
	x.parallelism.zero = 3;
	x.parallelism.framework = TB_FW_FSDP;
	x.hardware.gpu = *tb_gpus_find("h100-sxm");
	x.hardware.count = 8;
	tb_budget_compute(&x, b);
	tb_perf_input_from(&x, in);
	in->model_flops_per_token = 0;
}

/* Local attention in the step (docs/formulas.md, Nodes): a layer with a
 * window of w keys executes, causal, w - w^2/2T keys a query where a
 * global one executes T/2, and a chunked one n C^2/2T for n whole chunks
 * of C.  By hand: Gemma 2 9B's 21 of 42 layers at 4,096 over 8,192
 * tokens see 4,096 - 4,096^2/16,384 = 3,072 keys against 4,096, so the
 * cores run (21 x 4,096 + 21 x 3,072)/(42 x 4,096) = 0.875 of the
 * all-global work; the whole square (the MFU's PaLM convention) counts
 * 4,096 against 8,192, 0.75.  Three of four layers in chunks of 8,192 over
 * 16,384 tokens (Llama 4's pattern): 2 x 8,192^2/2/16,384 = 4,096 keys
 * against 8,192, (8,192 + 3 x 4,096)/(4 x 8,192) = 0.625.  The layer's
 * attention time falls by the same share, and the step's model FLOPs are
 * flops.c's, which counted the windows first: before the step read them,
 * a windowed model was timed all-global and its MFU under-read. */
Test(perf_blocks, local_attention_keys_by_hand)
{
	tb_perf_input in;
	static tb_budget b;
	S_windowed("gemma-2-9b", 8192, &in, &b);
	cr_assert_eq(in.window, 4096);
	cr_assert_eq(in.window_layers, 21);
	cr_expect(rel(tb_perf_key_share(&in, 8192, true), 0.875) < 1e-12);
	cr_expect(rel(tb_perf_key_share(&in, 8192, false), 0.75) < 1e-12);
	cr_expect_eq(tb_perf_key_share(&in, 4096, true), 1, "a window of the whole sequence is global");

	tb_perf_input c = in;
	c.layers = 4, c.window = 8192, c.window_layers = 3, c.window_chunked = true;
	cr_expect(rel(tb_perf_key_share(&c, 16384, true), 0.625) < 1e-12);
	c.window = 0;
	cr_expect_eq(tb_perf_key_share(&c, 16384, true), 1);
	/* the ends a config.json may give (sliding_window 1 to 1e8, hfconfig.c),
	 * more local layers than layers, one token: a share in (0, 1], never
	 * NaN; a window of one key leaves a global layer's share alone */
	static const double w[] = { 1, 2, 1e8 };
	for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
		for (int ch = 0; ch < 2; ch++) {
			c.window = (int64_t)w[i], c.window_layers = 1000000, c.window_chunked = ch;
			for (double T = 1; T <= 1048576; T *= 32) {
				double sh = tb_perf_key_share(&c, T, true);
				cr_expect(sh > 0 && sh <= 1, "w %g chunked %d T %g: %g", w[i], ch, T, sh);
			}
		}
	c.window = 1, c.window_layers = 2, c.window_chunked = false;
	cr_expect(rel(tb_perf_key_share(&c, 16384, true), (2 * 8192 + 2 * (1 - 1.0 / 32768)) / (4 * 8192)) < 1e-12);

	/* the layer: the attention core at 0.875 of its all-global time, the
	 * rest untouched */
	tb_perf_input g = in;
	g.window = g.window_layers = 0;
	tb_perf_layer Lw, Lg;
	cr_assert(tb_perf_layer_time(&in, NULL, &Lw, NULL));
	cr_assert(tb_perf_layer_time(&g, NULL, &Lg, NULL));
	cr_expect(rel(Lw.attn_f, 0.875 * Lg.attn_f) < 1e-12, "%g against %g", Lw.attn_f, Lg.attn_f);
	cr_expect(rel(Lw.attn_b, 0.875 * Lg.attn_b) < 1e-12);
	cr_expect(rel(Lw.fwd - Lw.attn_f, Lg.fwd - Lg.attn_f) < 1e-12);

	/* the step's model FLOPs are flops.c's, windows and all, for Gemma 2
	 * and for gpt-oss (128 keys on half its layers) */
	static const char *const names[] = { "gemma-2-9b", "gpt-oss-120b", "phi-3-mini" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		S_windowed(names[i], 8192, &in, &b);
		if (in.experts > 1)
			in.expert = 8;
		tb_perf_result r, rg;
		tb_perf_predict(&in, NULL, &r);
		cr_assert(r.ok, "%s: %s", names[i], r.why);
		double per_token = r.model_flops_per_step / (64.0 * 8192);
		cr_expect(rel(per_token, b.flops.per_token_model) < 0.01, "%s: %.5g against flops.c %.5g",
		          names[i], per_token, b.flops.per_token_model);
		g = in;
		g.window = g.window_layers = 0;
		tb_perf_predict(&g, NULL, &rg);
		cr_assert(rg.ok);
		cr_expect(r.step_s < rg.step_s, "%s: %g s windowed, %g s global", names[i], r.step_s, rg.step_s);
	}
}
