/* test_memory_act.c: what one layer keeps for its backward under fp8
 * attention (memory_act.c; the inventory's other items are test_memory.c's
 * against Korthikanti et al. 2022).  Transformer Engine's FusedAttnFunc
 * (attention/dot_product_attention/backends.py) saves for the backward the
 * query, key and value it quantized, in fp8, and under delayed scaling its
 * fp8 output beside the 16-bit one the output projection reads; under
 * current scaling it keeps the 16-bit output instead (NVTE_DPA_FP8CS_O_in_F16,
 * on by default and in MLPerf's configs), and MXFP8 does the same.  On a
 * card without fp8 the flag keeps nothing in fp8. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "calc.h"
#include "trainbudget/gpus.h"
#include "trainbudget/presets.h"

/* The layer's items of `name`, summed; -1 where there is none. */
static double S_item(const tb_act_item *it, int n, const char *name)
{
	double v = -1;
	for (int i = 0; i < n; i++)
		if (strcmp(it[i].name, name) == 0)
			v = (v < 0 ? 0 : v) + it[i].bytes;
	return v;
}

/* Llama 3 8B at 8,192 tokens, one sequence, no tensor parallelism: 32
 * query heads and 8 key-value heads of 128.  In 16 bits the layer keeps
 * Q and K as 2 x 8,192 x (32 + 8) x 128 B and V as 2 x 8,192 x 8 x 128;
 * under fp8 attention half of each, and under delayed scaling the fp8
 * output, 8,192 x 32 x 128 B, more. */
Test(memory_act, fp8_attention_keeps_its_fp8_tensors)
{
	const tb_preset *pr = tb_presets_find("llama-3-8b");
	cr_assert_not_null(pr);
	tb_inputs in;
	memset(&in, 0, sizeof in);
	in.model = pr->model;
	in.training.seq_len = 8192;
	in.training.micro_batch = 1;
	in.training.precision = TB_PREC_FP8_MIXED;
	in.training.flash_attention = true;
	in.parallelism.framework = TB_FW_MEGATRON;
	in.parallelism.tensor = 1;
	in.hardware.gpu = *tb_gpus_find("gb300");
	tb_arch ar;
	tb_calc_arch(&in.model, &ar);
	const double s = 8192, qk = s * (32 + 8) * 128, v = s * 8 * 128, o = s * 32 * 128;
	static const struct {
		tb_fp8_attn a;
		double bytes, out8;   /* B an element kept; the fp8 output's, -1 none */
	} c[] = {
		{ TB_FP8_ATTN_OFF, 2, -1 },
		{ TB_FP8_ATTN_ON, 1, 1 },        /* delayed, as the linears under megatron */
		{ TB_FP8_ATTN_DELAYED, 1, 1 },
		{ TB_FP8_ATTN_CURRENT, 1, -1 },
	};
	double total[4];
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		in.training.fp8_attention = c[i].a;
		tb_act_item it[TB_ACT_ITEMS_MAX];
		int n = 0;
		total[i] = tb_memory_act_layer(&in, &ar, TB_CKPT_NONE, it, &n);
		bool f8 = c[i].bytes == 1;
		cr_expect_eq(S_item(it, n, f8 ? "attention: Q and K (fp8)" : "attention: Q and K"),
		             c[i].bytes * qk, "case %zu", i);
		cr_expect_eq(S_item(it, n, f8 ? "attention: V (fp8)" : "attention: V"), c[i].bytes * v,
		             "case %zu", i);
		double out8 = S_item(it, n, "attention: output (fp8, for its backward)");
		cr_expect_eq(out8, c[i].out8 < 0 ? -1 : c[i].out8 * o, "case %zu", i);
		/* the 16-bit output the projection reads stays */
		cr_expect_eq(S_item(it, n, "attention: output projection input"), 2 * o, "case %zu", i);
	}
	cr_expect(fabs(total[0] - total[2] - (qk + v - o)) < 1e-6);
	cr_expect(fabs(total[0] - total[3] - (qk + v)) < 1e-6);
	/* in 16-bit precision the flag is not read */
	in.training.precision = TB_PREC_BF16_MIXED;
	in.training.fp8_attention = TB_FP8_ATTN_ON;
	cr_expect_eq(tb_fp8_attention_recipe(&in), TB_FP8_AUTO);
	in.training.precision = TB_PREC_FP4_MIXED;
	cr_expect_eq(tb_fp8_attention_recipe(&in), TB_FP8_TENSORWISE);
	in.training.precision = TB_PREC_FP8_MIXED;
	in.training.fp8_recipe = TB_FP8_MXFP8;
	cr_expect_eq(tb_fp8_attention_recipe(&in), TB_FP8_MXFP8);
	in.training.fp8_recipe = TB_FP8_BLOCKWISE;
	cr_expect_eq(tb_fp8_attention_recipe(&in), TB_FP8_TENSORWISE);
	/* a card without fp8 runs fp8-mixed's matmuls, and its attention, in 16 bits */
	in.hardware.gpu = *tb_gpus_find("a100-80gb");
	cr_expect_eq(tb_fp8_attention_recipe(&in), TB_FP8_AUTO);
}
