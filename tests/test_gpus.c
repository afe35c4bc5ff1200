/* test_gpus.c: the hardware table against the vendors' published dense
 * figures (../shared/reference/published.yaml, hw.*), within the dataset's
 * 0.5% tolerance for rounded vendor numbers; memory against what the cards
 * report (nvidia-smi memory.total, rocm-smi VRAM total; sources in gpus.c),
 * exactly. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "trainbudget/gpus.h"

#define TF 1e12
#define MIB 1048576.0

typedef struct {
	char name[32];
	double fp32, tf32, bf16, fp16, fp8;   /* dense TFLOP/s; 0 = none */
	double memory_bytes, bw_bytes_per_s, tdp_w;
} gpu_case;

static const gpu_case cases[] = {
	{ "h100-sxm", 66.9, 494.7, 989.4, 989.4, 1978.9, 81559 * MIB, 3.35e12, 700 },
	{ "h100-pcie", 51.2, 378, 756, 756, 1513, 81559 * MIB, 2.0e12, 350 },
	{ "h200", 67, 494.7, 989.4, 989.4, 1978.9, 143771 * MIB, 4.8e12, 700 },
	{ "b200", -1, 1100, 2250, 2250, 4500, 183359 * MIB, 8e12, 1000 },
	{ "a100-40gb", 19.5, 156, 312, 312, 0, 40960 * MIB, 1555e9, 400 },
	{ "a100-80gb", 19.5, 156, 312, 312, 0, 81920 * MIB, 2039e9, 400 },
	{ "v100-sxm2", 15.7, 0, 0, 125, 0, 32510 * MIB, 900e9, 300 },
	{ "l40s", 91.6, 183, 362.05, 362.05, 733, 46068 * MIB, 864e9, 350 },
	{ "rtx-4090", 82.6, 82.6, 165.2, 165.2, 330.3, 24564 * MIB, 1008e9, 450 },
	{ "mi300x", 163.4, 653.7, 1307.4, 1307.4, 2614.9, 205822885888.0, 5.3e12, 750 },
	{ "tpu-v4", -1, -1, 275, -1, -1, 32.0 * 1073741824.0, 1200e9, -1 },
	{ "tpu-v5e", -1, -1, 197, -1, -1, 16e9, 819e9, -1 },
	{ "tpu-v5p", -1, -1, 459, -1, -1, 95e9, 2765e9, -1 },
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
	cr_expect_geq(tb_gpus_count(), 13);
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
