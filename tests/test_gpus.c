/* test_gpus.c: the hardware table against the vendors' published dense
 * figures (../shared/reference/published.yaml, hw.*), within the dataset's
 * 0.5% tolerance for rounded vendor numbers; memory against what the cards
 * report (nvidia-smi memory.total, rocm-smi VRAM total; sources in gpus.c),
 * exactly. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "trainbudget/gpus.h"

#define TF 1e12
#define MIB 1048576.0

typedef struct {
	char name[32];
	double fp32, tf32, bf16, fp16, fp8;   /* dense TFLOP/s; 0 = none */
	double memory_bytes, bw_bytes_per_s, tdp_w;
	double fp4;     /* dense TFLOP/s of NVFP4/MXFP4; 0 (left out) = none */
} gpu_case;

static const gpu_case cases[] = {
	{ "h100-sxm", 66.9, 494.7, 989.4, 989.4, 1978.9, 81559 * MIB, 3.35e12, 700, 0 },
	{ "h100-pcie", 51.2, 378, 756, 756, 1513, 81559 * MIB, 2.0e12, 350, 0 },
	{ "h200", 67, 494.7, 989.4, 989.4, 1978.9, 143771 * MIB, 4.8e12, 700, 0 },
	{ "b200", -1, 1100, 2250, 2250, 4500, 183359 * MIB, 8e12, 1000, 9000 },
	{ "a100-40gb", 19.5, 156, 312, 312, 0, 40960 * MIB, 1555e9, 400, 0 },
	{ "a100-80gb", 19.5, 156, 312, 312, 0, 81920 * MIB, 2039e9, 400, 0 },
	{ "v100-sxm2", 15.7, 0, 0, 125, 0, 32510 * MIB, 900e9, 300, 0 },
	{ "l40s", 91.6, 183, 362.05, 362.05, 733, 46068 * MIB, 864e9, 350, 0 },
	{ "rtx-4090", 82.6, 82.6, 165.2, 165.2, 330.3, 24564 * MIB, 1008e9, 450, 0 },
	{ "mi300x", 163.4, 653.7, 1307.4, 1307.4, 2614.9, 205822885888.0, 5.3e12, 750, 0 },
	{ "tpu-v4", -1, -1, 275, -1, -1, 32.0 * 1073741824.0, 1200e9, -1, 0 },
	{ "tpu-v5e", -1, -1, 197, -1, -1, 16e9, 819e9, -1, 0 },
	{ "tpu-v5p", -1, -1, 459, -1, -1, 95e9, 2765e9, -1, 0 },
	/* 2026 cards.  H800 SXM datasheet, sparse figures halved (67, 989,
	 * 1,979, 3,958 TFLOPS); 80 GB as nvidia-smi reports it, 700 W. */
	{ "h800", 67, 494.5, 989.5, 989.5, 1979, 81559 * MIB, 3.35e12, 700, 0 },
	/* A800 80GB datasheet: the A100 80GB's figures; 81,920 MiB, 400 W in
	 * nvidia-smi (dexmal/dexbotic#41) */
	{ "a800", 19.5, 156, 312, 312, 0, 81920 * MIB, 2039e9, 400, 0 },
	/* HGX H20 spec sheet (resellers' copies): dense FP32 44, TF32 74,
	 * BF16/FP16 148, FP8 296; 4.0 TB/s; nvidia-smi 97,871 MiB and a 500 W
	 * power cap (NVIDIA/nvtrust#128; the sheet's copies say 400 W) */
	{ "h20", 44, 74, 148, 148, 296, 97871 * MIB, 4.0e12, 500, 0 },
	/* GB200 NVL72 table, one GPU, sparse halved: TF32 2.5, BF16 5, FP8 10,
	 * FP4 20 PF (the rack's 1,440 / 72); FP32 80 TF; 8 TB/s; 1,200 W;
	 * nvidia-smi 189,471 MiB */
	{ "gb200", 80, 1250, 2500, 2500, 5000, 189471 * MIB, 8e12, 1200, 1440e3 / 72 / 2 },
	/* GB300 NVL72 rack, dense: FP8 360 PF, BF16 180 PF, FP4 1,080 PF,
	 * 576 TB/s, / 72;
	 * 1,400 W cap and 284,208 MiB in nvidia-smi.  TF32 and FP32 only in
	 * a third party's table: not pinned. */
	{ "gb300", -1, -1, 180e3 / 72, 180e3 / 72, 360e3 / 72, 284208 * MIB, 576e12 / 72, 1400,
	  1080e3 / 72 },
	/* HGX B300 table per 8 GPUs, sparse: TF32 18, BF16 36, FP8 72 PF;
	 * FP4 105 PF dense; FP32 600 TF; nvidia-smi 275,040 MiB, 1,100 W cap */
	{ "b300", 600.0 / 8, 18e3 / 16, 36e3 / 16, 36e3 / 16, 72e3 / 16, 275040 * MIB, 8e12, 1100,
	  105e3 / 8 },
	/* MI325X data sheet: the MI300X's dense rates; 256 GiB (ROCm GPU
	 * specs, VRAM GiB); 6 TB/s; 1,000 W */
	{ "mi325x", 163.4, 653.7, 1307.4, 1307.4, 2614.9, 256 * 1073741824.0, 6e12, 1000, 0 },
	/* MI355X: FP8 10.1 PF sparse (data sheet) = 5,033 dense, 16-bit half
	 * of it (the sheet rounds to 2.5 PF); FP32 157.3 TF; 288 GiB; 8 TB/s;
	 * 1,400 W; MXFP4 10.1 PF (no sparsity on MXFP4).  No TF32 rate found:
	 * not pinned. */
	{ "mi355x", 157.3, -1, 10.1e3 / 4, 10.1e3 / 4, 10.1e3 / 2, 288 * 1073741824.0, 8e12, 1400,
	  10.1e3 },
	/* Cloud TPU docs, v6e: 918 TFLOPs bf16, 32 GB, 1,638 GBps; no published
	 * power (0) */
	{ "tpu-v6e", -1, -1, 918, -1, -1, 32e9, 1638e9, 0, 0 },
	/* AWS Neuron docs, Trainium2: 181 FP32, 667 BF16/FP16/TF32, 1,299 FP8
	 * TFLOPS; 96 GiB; 2.9 TB/s; no published power (0) */
	{ "trainium2", 181, 667, 667, 667, 1299, 96 * 1073741824.0, 2.9e12, 0, 0 },
};

/* -1: not pinned by the dataset */
static void near(const char *what, const char *gpu, double got, double want)
{
	if (want < 0)
		return;
	if (want == 0) {
		cr_expect(got == 0, "%s %s: %g, expected 0 (unsupported)", gpu, what, got);
		return;
	}
	cr_expect(fabs(got - want) <= 0.005 * want, "%s %s: %g, expected %g", gpu, what, got, want);
}

Test(gpus, published_dense_figures)
{
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const gpu_case *c = &cases[i];
		const tb_gpu *g = tb_gpus_find(c->name);
		cr_assert(g, "%s missing", c->name);
		near("fp32", c->name, g->peak_flops[TB_DTYPE_FP32], c->fp32 < 0 ? -1 : c->fp32 * TF);
		near("tf32", c->name, g->peak_flops[TB_DTYPE_TF32], c->tf32 < 0 ? -1 : c->tf32 * TF);
		near("bf16", c->name, g->peak_flops[TB_DTYPE_BF16], c->bf16 * TF);
		near("fp16", c->name, g->peak_flops[TB_DTYPE_FP16], c->fp16 < 0 ? -1 : c->fp16 * TF);
		near("fp8", c->name, g->peak_flops[TB_DTYPE_FP8], c->fp8 < 0 ? -1 : c->fp8 * TF);
		near("fp4", c->name, g->peak_flops[TB_DTYPE_FP4], c->fp4 * TF);
		cr_expect(g->memory_bytes == c->memory_bytes, "%s memory: %.0f B, reported %.0f B",
		          c->name, g->memory_bytes, c->memory_bytes);
		cr_expect(strlen(g->memory_source) > 10, "%s: no memory source", c->name);
		near("bandwidth", c->name, g->bandwidth_bytes_per_s, c->bw_bytes_per_s);
		near("tdp", c->name, g->tdp_w, c->tdp_w);
		cr_expect(strlen(g->source) > 10, "%s has no source", c->name);
		cr_expect(strlen(g->label) > 3, "%s has no label", c->name);
	}
}

/* An "80GB" H100 holds 80 GiB; the driver reports 81,559 MiB of it
 * (nvidia-smi, NVIDIA/nccl#1264), 85.5e9 bytes: the label stays nominal. */
Test(gpus, memory_is_what_the_card_reports)
{
	const tb_gpu *g = tb_gpus_find("h100-sxm");
	cr_assert(g);
	cr_expect(g->memory_bytes == 85520809984.0, "%.0f", g->memory_bytes);
	cr_expect(g->memory_bytes > 80e9 && g->memory_bytes <= 80 * 1073741824.0);
	cr_expect(strstr(g->label, "80GB") != NULL, "%s", g->label);
	cr_expect(strstr(g->memory_source, "81,559 MiB") != NULL, "%s", g->memory_source);
	/* an A100 80GB reports the whole 80 GiB */
	g = tb_gpus_find("a100-80gb");
	cr_assert(g);
	cr_expect(g->memory_bytes == 80 * 1073741824.0);
	cr_expect(strstr(g->label, "80GB") != NULL);
}

Test(gpus, dense_not_sparse)
{
	/* the sparse H100 bf16 figure is 1978.9: an MFU against it halves */
	const tb_gpu *g = tb_gpus_find("h100-sxm");
	cr_assert(g);
	cr_expect(g->peak_flops[TB_DTYPE_BF16] < 1000 * TF);
	for (size_t i = 0; i < tb_gpus_count(); i++) {
		const tb_gpu *x = tb_gpus_at(i);
		for (int d = 0; d < TB_DTYPE_COUNT; d++)
			cr_expect(x->peak_flops[d] >= 0 && isfinite(x->peak_flops[d]));
		cr_expect(x->memory_bytes > 0 && x->bandwidth_bytes_per_s > 0);
	}
}

Test(gpus, table_shape)
{
	cr_expect_geq(tb_gpus_count(), 23);
	cr_expect_null(tb_gpus_at(tb_gpus_count()));
	cr_expect_null(tb_gpus_find("h1000"));
	cr_expect_null(tb_gpus_find(NULL));
	for (size_t i = 0; i < tb_gpus_count(); i++)
		for (size_t j = i + 1; j < tb_gpus_count(); j++)
			cr_expect(strcmp(tb_gpus_at(i)->name, tb_gpus_at(j)->name) != 0,
			          "duplicate %s", tb_gpus_at(i)->name);
	/* Volta has no bf16: 0, never a made-up figure */
	cr_expect(tb_gpus_find("v100-sxm2")->peak_flops[TB_DTYPE_BF16] == 0);
	cr_expect(tb_gpus_find("a100-80gb")->peak_flops[TB_DTYPE_FP8] == 0);
}

/* The node a card comes in: the scale-up domain (NVL72 racks, 8-GPU HGX
 * boards, a 16-chip trn2.48xlarge, an 8-chip v6e host) and its links per
 * GPU, one direction, from the published both-ways figures. */
typedef struct {
	char name[32];
	long long gpus;
	double nvlink, network; /* bytes/s per GPU, one direction */
	bool assumed;
} node_case;

static const node_case node_cases[] = {
	/* NVLink 400 GB/s both ways (H800, A800 datasheets); DeepSeek-V3's
	 * H800 nodes: 8 x 400 Gb/s InfiniBand (arXiv:2505.09343) */
	{ "h800", 8, 200e9, 8 * 400e9 / 8 / 8, false },
	{ "a800", 8, 200e9, -1, false },
	{ "h20", 8, 900e9 / 2, -1, true },
	/* NVLink 5: 1.8 TB/s both ways per GPU, 72 in a rack, 8 on HGX;
	 * ConnectX-7 400 Gb/s (GB200), ConnectX-8 800 Gb/s (GB300, B300) */
	{ "gb200", 72, 1.8e12 / 2, 400e9 / 8, true },
	{ "gb300", 72, 1.8e12 / 2, 800e9 / 8, true },
	{ "b300", 8, 1.8e12 / 2, 800e9 / 8, true },
	{ "mi325x", 8, -1, -1, true },
	{ "mi355x", 8, -1, -1, true },
	/* v6e: 8 chips per host, ICI 800 GBps both ways per chip */
	{ "tpu-v6e", 8, 800e9 / 2, 800e9 / 2, true },
	/* trn2.48xlarge: 16 chips; EFA 3,200 Gb/s per instance */
	{ "trainium2", 16, -1, 3200e9 / 8 / 16, true },
};

Test(gpus, nodes_of_the_new_cards)
{
	for (size_t i = 0; i < sizeof node_cases / sizeof node_cases[0]; i++) {
		const node_case *c = &node_cases[i];
		const tb_gpu_node *n = tb_gpus_node(c->name);
		cr_assert_str_eq(n->name, c->name);
		cr_expect_eq(n->gpus, c->gpus, "%s: %lld per node, expected %lld", c->name,
		             (long long)n->gpus, c->gpus);
		near("nvlink", c->name, n->nvlink_bytes_per_s, c->nvlink);
		near("network", c->name, n->network_bytes_per_s, c->network);
		cr_expect(n->efficiency_assumed == c->assumed, "%s: efficiency_assumed %d", c->name,
		          n->efficiency_assumed);
		cr_expect(strlen(n->source) > 40, "%s: no node source", c->name);
	}
}

/* efficiency_assumed: false only where the fractions were measured on the
 * card or on the same die at the same clocks and power; the generic row
 * and every copied row say so in their source. */
Test(gpus, efficiency_assumed)
{
	static const char *const measured[] = { "h100-sxm", "h200", "a100-40gb", "a100-80gb",
	                                        "h800", "a800" };
	for (size_t i = 0; i < sizeof measured / sizeof measured[0]; i++)
		cr_expect(!tb_gpus_node(measured[i])->efficiency_assumed, "%s", measured[i]);
	cr_expect(tb_gpus_node("b200")->efficiency_assumed);
	/* its matmul was measured, its attention was not */
	cr_expect(tb_gpus_node("mi300x")->efficiency_assumed);
	cr_expect(tb_gpus_node("no-such-card")->efficiency_assumed);
	for (size_t i = 0; i < tb_gpus_count(); i++) {
		const tb_gpu_node *n = tb_gpus_node(tb_gpus_at(i)->name);
		if (n->efficiency_assumed)
			cr_expect(strstr(n->source, "assumed") || strstr(n->source, "as A100") ||
			          strstr(n->source, "as H100"),
			          "%s: assumed fractions, but the source does not say so", n->name);
	}
	/* what a report says was copied: the whole of it, or the attention
	 * alone where the card's own matmul was measured (in that precision:
	 * MI355X has no fp8 ceiling of its own, so its fp8 runs copy both;
	 * MI300X's fp8 one is AMD's), or the matmul alone where the kernel
	 * priced is FlashAttention-2 and that was measured on the card (B200,
	 * GB200, GB300: cudnn-frontend's PyTorch SDPA figures) */
	const tb_attn_kernel F = TB_ATTN_KERNEL_FLASH2, C = TB_ATTN_KERNEL_CUDNN;
	cr_expect_null(tb_gpus_assumed(tb_gpus_node("h100-sxm"), false, C));
	cr_expect_null(tb_gpus_assumed(tb_gpus_node("h800"), true, F));
	cr_expect_str_eq(tb_gpus_assumed(tb_gpus_node("b200"), false, C), "attention efficiency");
	cr_expect_null(tb_gpus_assumed(tb_gpus_node("b200"), false, F));
	cr_expect_str_eq(tb_gpus_assumed(tb_gpus_node("gb200"), true, C), "attention efficiency");
	cr_expect_null(tb_gpus_assumed(tb_gpus_node("gb200"), true, F));
	cr_expect_str_eq(tb_gpus_assumed(tb_gpus_node("b300"), true, F), "attention efficiency");
	cr_expect_str_eq(tb_gpus_assumed(tb_gpus_node("mi300x"), false, F), "attention efficiency");
	cr_expect_str_eq(tb_gpus_assumed(tb_gpus_node("mi300x"), true, C), "attention efficiency");
	cr_expect_str_eq(tb_gpus_assumed(tb_gpus_node("mi355x"), true, F),
	                 "matmul and attention efficiencies");
	cr_expect_str_eq(tb_gpus_assumed(tb_gpus_node("gb300"), false, C), "matmul efficiency");
	cr_expect_str_eq(tb_gpus_assumed(tb_gpus_node("gb300"), false, F), "matmul efficiency");
	cr_expect_str_eq(tb_gpus_assumed(tb_gpus_node("gb200"), false, C), "attention efficiency");
	cr_expect_str_eq(tb_gpus_assumed(tb_gpus_node("no-such-card"), false, F),
	                 "matmul and attention efficiencies");
	/* the H20's bf16 matmul was measured: 142.25 of 148 TFLOP/s */
	cr_expect(fabs(tb_gpus_node("h20")->matmul_ceiling - 142.25 / 148) < 0.001);
	/* MAMF (stas00/ml-engineering, insights/when-to-upgrade-gpus): B200 SXM
	 * bf16 1,745.0 of 2,250 and fp8 3,432.5 of 4,500 TFLOP/s; H200 fp8
	 * 1,453.4 of 1,979; the Blackwell rows without their own take B200's */
	cr_expect(fabs(tb_gpus_node("b200")->matmul_ceiling - 1745.0 / 2250) < 0.001);
	cr_expect(fabs(tb_gpus_node("b200")->matmul_ceiling_fp8 - 3432.5 / 4500) < 0.001);
	cr_expect(fabs(tb_gpus_node("h200")->matmul_ceiling_fp8 - 1453.4 / 1979) < 0.001);
	cr_expect(fabs(tb_gpus_node("h100-sxm")->matmul_ceiling_fp8 - 1402.6 / 1979) < 0.001);
	/* MAMF (ml-engineering compute/accelerator/README.md, 2026-08): GB200
	 * bf16 1,822.0 of 2,500 and fp8 3,615.6 of 5,000; B300 1,769.0 of 2,250
	 * and 3,353.3 of 4,500; MI325X 784.9 and MI355X 1,565.0 TFLOP/s bf16,
	 * whatever peak the table divides by; GB300, unmeasured, takes B300's
	 * (the same die) */
	cr_expect(fabs(tb_gpus_node("gb200")->matmul_ceiling * tb_gpus_find("gb200")->peak_flops[TB_DTYPE_BF16] -
	               1822.0e12) < 1e12);
	cr_expect(fabs(tb_gpus_node("gb200")->matmul_ceiling_fp8 * tb_gpus_find("gb200")->peak_flops[TB_DTYPE_FP8] -
	               3615.6e12) < 5e12);
	cr_expect(fabs(tb_gpus_node("b300")->matmul_ceiling * tb_gpus_find("b300")->peak_flops[TB_DTYPE_BF16] -
	               1769.0e12) < 1e12);
	cr_expect(fabs(tb_gpus_node("b300")->matmul_ceiling_fp8 * tb_gpus_find("b300")->peak_flops[TB_DTYPE_FP8] -
	               3353.3e12) < 5e12);
	cr_expect(fabs(tb_gpus_node("mi325x")->matmul_ceiling * tb_gpus_find("mi325x")->peak_flops[TB_DTYPE_BF16] -
	               784.9e12) < 1e12);
	cr_expect(fabs(tb_gpus_node("mi355x")->matmul_ceiling * tb_gpus_find("mi355x")->peak_flops[TB_DTYPE_BF16] -
	               1565.0e12) < 1e12);
	/* fp8 on CDNA 3: AMD's Max-Achievable FLOPs (ROCm blogs, 2025-02),
	 * MI300X 1,273 and MI325X 1,519 TFLOP/s */
	cr_expect(fabs(tb_gpus_node("mi300x")->matmul_ceiling_fp8 * tb_gpus_find("mi300x")->peak_flops[TB_DTYPE_FP8] -
	               1273e12) < 1e12);
	cr_expect(fabs(tb_gpus_node("mi325x")->matmul_ceiling_fp8 * tb_gpus_find("mi325x")->peak_flops[TB_DTYPE_FP8] -
	               1519e12) < 1e12);
	cr_expect(tb_gpus_node("gb300")->matmul_ceiling == tb_gpus_node("b300")->matmul_ceiling);
	cr_expect(tb_gpus_node("gb300")->matmul_ceiling_fp8 == tb_gpus_node("b300")->matmul_ceiling_fp8);
	/* fp4: B300's NVFP4 kernel measured (test_perf_blocks pins it against
	 * the guide); the other Blackwell parts copy it and say so; MI355X has
	 * no fp4 kernel measured nor an fp8 one, so its 16-bit fraction */
	const char *basis;
	double b300 = tb_gpus_fp4_ceiling(tb_gpus_node("b300"), &basis);
	cr_expect_str_eq(basis, "measured on it");
	static const char *const copies[] = { "b200", "gb200", "gb300" };
	for (size_t i = 0; i < sizeof copies / sizeof copies[0]; i++) {
		cr_expect(tb_gpus_fp4_ceiling(tb_gpus_node(copies[i]), &basis) == b300, "%s", copies[i]);
		cr_expect(strstr(basis, "copied"), "%s: %s", copies[i], basis);
		cr_expect(strstr(tb_gpus_node(copies[i])->source, "B300"), "%s", copies[i]);
	}
	cr_expect(tb_gpus_fp4_ceiling(tb_gpus_node("mi355x"), &basis) == tb_gpus_node("mi355x")->matmul_ceiling);
	cr_expect(strstr(basis, "16-bit"));
	cr_expect(tb_gpus_fp4_ceiling(tb_gpus_node("h100-sxm"), &basis) == tb_gpus_node("h100-sxm")->matmul_ceiling_fp8);
	cr_expect(strstr(basis, "fp8"));
	/* DeepSeek-V3: NVLink 160 GB/s achieved on the H800 */
	cr_expect(fabs(tb_gpus_node("h800")->nvlink_fraction * tb_gpus_node("h800")->nvlink_bytes_per_s -
	               160e9) < 1e6);
}

/* MX block scaling in the matrix units: Blackwell's fifth-generation Tensor
 * Cores and CDNA 4's matrix cores have it, Hopper, Ampere and CDNA 3 not;
 * a card the table lacks is unknown, never refused. */
Test(gpus, mx_blocks_on_blackwell_and_cdna4)
{
	static const struct {
		const char *name;
		bool mx, known;
	} mx_cases[] = {
		{ "b200", true, true }, { "gb200", true, true }, { "b300", true, true },
		{ "gb300", true, true }, { "mi355x", true, true }, { "h100-sxm", false, true },
		{ "h200", false, true }, { "h800", false, true }, { "a100-80gb", false, true },
		{ "mi300x", false, true }, { "mi325x", false, true }, { "my-card", false, false },
	};
	for (size_t i = 0; i < sizeof mx_cases / sizeof mx_cases[0]; i++) {
		bool known = !mx_cases[i].known;
		cr_expect_eq(tb_gpus_mx_blocks(mx_cases[i].name, &known), mx_cases[i].mx, "%s", mx_cases[i].name);
		cr_expect_eq(known, mx_cases[i].known, "%s", mx_cases[i].name);
	}
}

/* A card without MX block scaling runs the 1x128 and 128x128 blocks where
 * the scenario writes mxfp8 (the search over cards prices it so); every
 * other recipe, and every card that has MX or is not in the table, keeps
 * the written one. */
Test(gpus, fp8_recipe_a_card_runs)
{
	cr_expect_eq(tb_gpus_fp8_recipe("h100-sxm", TB_FP8_MXFP8), TB_FP8_BLOCKWISE);
	cr_expect_eq(tb_gpus_fp8_recipe("mi300x", TB_FP8_MXFP8), TB_FP8_BLOCKWISE);
	cr_expect_eq(tb_gpus_fp8_recipe("b200", TB_FP8_MXFP8), TB_FP8_MXFP8);
	cr_expect_eq(tb_gpus_fp8_recipe("my-card", TB_FP8_MXFP8), TB_FP8_MXFP8);
	for (int r = TB_FP8_AUTO; r <= TB_FP8_BLOCKWISE; r++)
		cr_expect_eq(tb_gpus_fp8_recipe("h100-sxm", (tb_fp8_recipe)r), (tb_fp8_recipe)r);
}

/* a name's SMs as the card table has them, 0 for a name it lacks */
static int64_t S_sms(const char *name)
{
	const tb_gpu *g = tb_gpus_find(name);
	return g ? tb_gpu_sms(g) : 0;
}

/* NVIDIA's architecture papers: H100 SXM5 132 SMs, H100 PCIe 114 (H100
 * Tensor Core GPU Architecture, 2022), A100 108 (A100 Tensor Core GPU
 * Architecture, 2020), V100 80 (Volta, 2017); B200 148 as Chips and
 * Cheese measured it; no count where no source gives one per product, and
 * none for a name not in the table. */
Test(gpus, sm_counts_from_the_architecture_papers)
{
	cr_expect_eq(S_sms("h100-sxm"), 132);
	cr_expect_eq(S_sms("h100-pcie"), 114);
	cr_expect_eq(S_sms("h200"), 132);
	cr_expect_eq(S_sms("a100-80gb"), 108);
	cr_expect_eq(S_sms("v100-sxm2"), 80);
	cr_expect_eq(S_sms("b200"), 148);   /* Chips and Cheese, measured */
	cr_expect_eq(S_sms("gb200"), 0);
	cr_expect_eq(S_sms("my-card"), 0);
	cr_expect_eq(tb_gpu_sms(NULL), 0);
	/* an inline card's own count wins; without one, its name's */
	tb_gpu g = *tb_gpus_find("gb200");
	cr_expect_eq(tb_gpu_sms(&g), 0);
	g.sms = 148;
	cr_expect_eq(tb_gpu_sms(&g), 148);
	tb_gpu h = *tb_gpus_find("h100-sxm");
	cr_expect_eq(tb_gpu_sms(&h), 132);
}

/* What a memory-bound kernel reaches of the HBM bandwidth, from NVIDIA's
 * cudnn-frontend benchmark/norms results (2026-02; cuDNN 9.19): its
 * RMSNorm over 16,384 x 4,096 bf16, forward and backward achieved GB/s,
 * H200 3,708.1 and 3,801.0 of 4,800; GB200 6,424.6 and 6,187.3 of 8,000;
 * GB300 6,459.5 and 6,133.5 of 8,000.  The same die at the same clocks
 * takes its sibling's (H100 SXM and H800 the H200's, B200 the GB200's,
 * B300 the GB300's); a card with none keeps the fitted constant (0). */
Test(gpus, memory_bound_fraction_from_cudnn_norms)
{
	struct { const char *card; double fwd, bwd, peak; } m[] = {
		{ "h200", 3708.1, 3801.0, 4800 },
		{ "gb200", 6424.6, 6187.3, 8000 },
		{ "gb300", 6459.5, 6133.5, 8000 },
	};
	for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
		double want = (m[i].fwd + m[i].bwd) / 2 / m[i].peak;
		double got = tb_gpus_node(m[i].card)->mem_fraction;
		cr_expect(fabs(got - want) < 0.0005, "%s: %g against %g", m[i].card, got, want);
		cr_expect(tb_gpus_find(m[i].card)->bandwidth_bytes_per_s == m[i].peak * 1e9, "%s", m[i].card);
	}
	cr_expect_eq(tb_gpus_node("h100-sxm")->mem_fraction, tb_gpus_node("h200")->mem_fraction);
	cr_expect_eq(tb_gpus_node("h800")->mem_fraction, tb_gpus_node("h200")->mem_fraction);
	cr_expect_eq(tb_gpus_node("b200")->mem_fraction, tb_gpus_node("gb200")->mem_fraction);
	cr_expect_eq(tb_gpus_node("b300")->mem_fraction, tb_gpus_node("gb300")->mem_fraction);
	cr_expect_eq(tb_gpus_node("a100-80gb")->mem_fraction, 0);
	cr_expect_eq(tb_gpus_node("mi300x")->mem_fraction, 0);
	cr_expect_eq(tb_gpus_node("no-such-card")->mem_fraction, 0);
}

/* fp4-mixed on each kind of card: B200 multiplies in fp4 (its 9,000
 * TFLOP/s dense fp4 above), H100 has fp8 and no fp4, A100 neither; the
 * other precisions keep their own dtype. */
Test(gpus, matmul_dtype_falls_back_by_card)
{
	const tb_gpu *b = tb_gpus_find("b200"), *h = tb_gpus_find("h100-sxm"),
	             *a = tb_gpus_find("a100-80gb");
	cr_assert(b && h && a);
	cr_expect(tb_matmul_dtype(TB_PREC_FP4_MIXED, b) == TB_DTYPE_FP4);
	cr_expect(tb_matmul_dtype(TB_PREC_FP4_MIXED, h) == TB_DTYPE_FP8);
	cr_expect(tb_matmul_dtype(TB_PREC_FP4_MIXED, a) == TB_DTYPE_BF16);
	cr_expect(tb_matmul_dtype(TB_PREC_FP8_MIXED, h) == TB_DTYPE_FP8);
	cr_expect(tb_matmul_dtype(TB_PREC_BF16_MIXED, b) == TB_DTYPE_BF16);
}

/* cuDNN's fp8 attention over its bf16 attention, as NVIDIA cudnn-frontend
 * times both (benchmark/sdpa_benchmark_training, causal, 8,192 tokens),
 * TFLOP/s bf16 then fp8 or MXFP8, forward then backward.  Under 9.22 on
 * GB200 and GB300: Llama 3.1's grouped heads and DeepSeek-V3's MLA heads;
 * H200 under 9.19, grouped only (its MLA shape failed in fp8, and it has
 * no MXFP8).  Grouped heads at earlier releases: B200 under 9.10.2 (NGC
 * 25.06) and 9.13.1 (25.09), GB300 under 9.13.1 and 9.19.  B200 and B300
 * take their dies' series and say so; a card with no timing gets none. */
Test(gpus, fp8_attention_from_cudnn_frontend)
{
	static const struct {
		const char *card, *release;
		bool grouped, mx, ok, measured;
		int table;
		double bf_f, bf_b, q_f, q_b;
	} c[] = {
		{ "gb200", NULL, true, false, true, true, 92200, 1574, 1332, 2047, 1454 },
		{ "gb200", NULL, false, false, true, true, 92200, 1585, 1193, 2397, 1959 },
		{ "gb200", NULL, true, true, true, true, 92200, 1574, 1332, 1902, 1287 },
		{ "gb300", NULL, true, false, true, true, 92200, 1856, 1435, 2897, 1781 },
		{ "gb300", NULL, false, false, true, true, 92200, 1825, 1291, 3128, 2310 },
		{ "gb300", NULL, false, true, true, true, 92200, 1825, 1291, 2829, 1780 },
		{ "h200", NULL, true, false, true, true, 91900, 644, 541, 964, 430 },
		{ "b200", NULL, true, false, true, false, 92200, 1574, 1332, 2047, 1454 },
		{ "b300", NULL, false, false, true, false, 92200, 1825, 1291, 3128, 2310 },
		{ "h100-sxm", NULL, true, false, true, false, 91900, 644, 541, 964, 430 },
		{ "h800", NULL, true, false, true, false, 91900, 644, 541, 964, 430 },
		/* by release, grouped heads */
		{ "gb300", "9.13", true, false, true, true, 91301, 1716.056, 1150.498, 2073.580, 1513.772 },
		{ "b300", "9.13.1", true, false, true, false, 91301, 1716.056, 1150.498, 2073.580, 1513.772 },
		{ "gb300", "9.20", true, false, true, true, 91900, 1887, 1385, 2780, 1590 },
		{ "b200", "9.13", true, false, true, true, 91301, 1384.231, 994.850, 1502.114, 1254.687 },
		{ "gb200", "9.13", true, false, true, false, 91301, 1384.231, 994.850, 1502.114, 1254.687 },
		{ "b200", "9.9", true, false, true, true, 91002, 1248.265, 987.670, 1370.101, 1214.331 },
		{ "b200", "9.21", true, false, true, false, 92200, 1574, 1332, 2047, 1454 },
		/* MLA's heads and MXFP8 were timed under the newest release only */
		{ "gb300", "9.13", false, false, true, true, 92200, 1825, 1291, 3128, 2310 },
		{ "gb300", "9.13", true, true, true, true, 92200, 1856, 1435, 2570, 1404 },
		{ "h200", NULL, false, false, false, false, 0, 1, 1, 1, 1 },
		{ "h200", NULL, true, true, false, false, 0, 1, 1, 1, 1 },
		{ "mi300x", NULL, true, false, false, false, 0, 1, 1, 1, 1 },
		{ "a100-80gb", NULL, true, false, false, false, 0, 1, 1, 1, 1 },
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		double f = 0, b = 0;
		bool measured = true;
		int t = -1;
		int v = c[i].release ? tb_gpus_cudnn_parse(c[i].release) : 0;
		bool ok = tb_gpus_fp8_attention(tb_gpus_node(c[i].card), c[i].grouped, c[i].mx, v, &f, &b,
		                                &measured, &t);
		cr_expect_eq(ok, c[i].ok, "%zu %s", i, c[i].card);
		cr_expect_eq(measured, c[i].measured, "%zu %s", i, c[i].card);
		cr_expect_eq(t, c[i].table, "%zu %s: release %d", i, c[i].card, t);
		cr_expect(fabs(f - c[i].q_f / c[i].bf_f) < 1e-12, "%zu %s forward %g", i, c[i].card, f);
		cr_expect(fabs(b - c[i].q_b / c[i].bf_b) < 1e-12, "%zu %s backward %g", i, c[i].card, b);
	}
	double f, b;
	bool m;
	int t;
	cr_expect_not(tb_gpus_fp8_attention(NULL, true, false, 0, &f, &b, &m, &t));
}

/* cudnn-frontend's bf16 timings by release (gpus.c): causal, 8,192
 * tokens, forward and backward TFLOP/s; on a GB300 under 9.13.1 (1,716.056
 * and 1,150.498), 9.19 (1,887 and 1,385) and 9.22 (1,856 and 1,435); on a
 * B200 under 9.10.2 (1,248.265 and 987.670) and 9.13.1 (1,384.231 and
 * 994.850), its 9.22 figure a GB200's (another card: no scale); H200 has
 * none at 9.13.1. */
Test(gpus, cudnn_attention_by_release)
{
	static const struct {
		const char *card, *version;
		bool ok;
		int table;
		double f, b;
	} c[] = {
		{ "gb300", NULL, true, 92200, 1856 / 1716.056, 1435 / 1150.498 },
		{ "gb300", "9.22", true, 92200, 1856 / 1716.056, 1435 / 1150.498 },
		{ "gb300", "9.21", true, 92200, 1856 / 1716.056, 1435 / 1150.498 },
		{ "gb300", "9.20", true, 91900, 1887 / 1716.056, 1385 / 1150.498 },
		{ "gb300", "9.13.1", true, 91301, 1, 1 },
		{ "gb300", "9.13", true, 91301, 1, 1 },
		{ "gb300", "9.1", true, 91301, 1, 1 },
		{ "gb300", "9.16", true, 91301, 1, 1 },
		{ "gb300", "9.17", true, 91900, 1887 / 1716.056, 1385 / 1150.498 },
		{ "b300", "9.21", true, 92200, 1856 / 1716.056, 1435 / 1150.498 },
		{ "b200", "9.21", false, 0, 1, 1 },
		{ "gb200", "9.21", false, 0, 1, 1 },
		{ "b200", "9.10", true, 91002, 1248.265 / 1384.231, 987.670 / 994.850 },
		{ "gb200", "9.9", true, 91002, 1248.265 / 1384.231, 987.670 / 994.850 },
		{ "b200", "9.13", true, 91301, 1, 1 },
		{ "b200", "9.17", true, 91301, 1, 1 },
		{ "b200", "9.18", false, 0, 1, 1 },
		{ "h200", "9.19", false, 0, 1, 1 },
		{ "h100-sxm", NULL, false, 0, 1, 1 },
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		double f = 0, b = 0;
		int t = -1;
		int v = c[i].version ? tb_gpus_cudnn_parse(c[i].version) : 0;
		bool ok = tb_gpus_cudnn_attention(tb_gpus_node(c[i].card), v, &f, &b, &t);
		cr_expect_eq(ok, c[i].ok, "%s %s", c[i].card, c[i].version ? c[i].version : "newest");
		cr_expect_eq(t, c[i].table, "%s %s: table %d", c[i].card, c[i].version, t);
		cr_expect_float_eq(f, c[i].f, 1e-12, "%s %s forward", c[i].card, c[i].version);
		cr_expect_float_eq(b, c[i].b, 1e-12, "%s %s backward", c[i].card, c[i].version);
	}
	/* 9.22 is the 1.082x forward and 1.247x backward docs/formulas.md says */
	double f, b;
	int t;
	tb_gpus_cudnn_attention(tb_gpus_node("gb300"), 0, &f, &b, &t);
	cr_expect(fabs(f - 1.082) < 5e-4 && fabs(b - 1.247) < 5e-4, "%g %g", f, b);
}

Test(gpus, cudnn_release_parse)
{
	cr_expect_eq(tb_gpus_cudnn_parse("9.21"), 92100);
	cr_expect_eq(tb_gpus_cudnn_parse("9.13.1"), 91301);
	cr_expect_eq(tb_gpus_cudnn_parse("10.0"), 100000);
	static const char *const bad[] = { "", "9", "9.", ".9", "9.2.1.4", "9.100", "0.9", "v9.21",
	                                   "9.21 ", "9,21", "9..1", "123.1" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		cr_expect_eq(tb_gpus_cudnn_parse(bad[i]), 0, "'%s'", bad[i]);
	cr_expect_eq(tb_gpus_cudnn_parse(NULL), 0);
}
