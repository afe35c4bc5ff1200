/* test_ceiling.c: the best published MFU per card (ceiling.c).
 *
 * The figures themselves are checked against runs.yaml by `make
 * validate`; here, that each names a card the table has, that fp8 is
 * chosen only where the precision and the card have it, and that the test
 * the renderers share is strict. */
#include <criterion/criterion.h>
#include <string.h>

#include "trainbudget/ceiling.h"
#include "trainbudget/gpus.h"

Test(ceiling, rows_name_known_cards_once)
{
	cr_assert_gt(tb_ceiling_count(), 0);
	for (size_t i = 0; i < tb_ceiling_count(); i++) {
		const tb_ceiling *c = tb_ceiling_at(i);
		cr_expect_not_null(tb_gpus_find(c->card), "%s", c->card);
		cr_expect(c->mfu > 0.05 && c->mfu < 0.8, "%s %g", c->card, c->mfu);
		cr_expect(c->run && c->run[0] && c->source && c->source[0]);
		cr_expect_eq(tb_ceiling_find(c->card, c->dtype), c, "%s listed twice", c->card);
	}
	cr_expect_null(tb_ceiling_at(tb_ceiling_count()));
	cr_expect_null(tb_ceiling_find("no-such-card", TB_DTYPE_BF16));
	cr_expect_null(tb_ceiling_find(NULL, TB_DTYPE_BF16));
}

/* H100 in fp8-mixed is held against the fp8 runs (NVIDIA's MLPerf Training
 * v4.0 GPT-3 175B on 512 H100, 45.0% of the fp8 peak), in bf16 against the
 * 16-bit ones; an A100 has no fp8
 * peak, so fp8-mixed there is held against its 16-bit runs. */
Test(ceiling, precision_picks_the_row)
{
	const tb_gpu *h100 = tb_gpus_find("h100-sxm"), *a100 = tb_gpus_find("a100-80gb");
	cr_assert(h100 && a100);
	const tb_ceiling *f = tb_ceiling_for(h100, TB_PREC_FP8_MIXED);
	const tb_ceiling *b = tb_ceiling_for(h100, TB_PREC_BF16_MIXED);
	cr_assert(f && b);
	cr_expect(f->dtype == TB_DTYPE_FP8 && b->dtype == TB_DTYPE_BF16);
	cr_expect_str_eq(f->run, "mlperf40.gpt3.512");
	const tb_ceiling *a = tb_ceiling_for(a100, TB_PREC_FP8_MIXED);
	cr_assert_not_null(a);
	cr_expect(a->dtype == TB_DTYPE_BF16);
	cr_expect_null(tb_ceiling_for(NULL, TB_PREC_BF16_MIXED));
}

/* fp4-mixed on a B200 is held against the NVFP4 runs (Dell's Llama 3.1 8B
 * on 8 B200 in MLPerf Training v5.1), never against its fp8 or 16-bit
 * ones: an MFU on the 9 PF fp4 peak is half the one on fp8's.  MI355X has
 * an fp4 peak and no published fp4 run: no bound.  A card without fp4 is
 * held where its matmuls fall back, fp8. */
Test(ceiling, fp4_has_its_own_row)
{
	const tb_gpu *b200 = tb_gpus_find("b200"), *mi355x = tb_gpus_find("mi355x");
	const tb_gpu *h100 = tb_gpus_find("h100-sxm");
	cr_assert(b200 && mi355x && h100);
	const tb_ceiling *f4 = tb_ceiling_for(b200, TB_PREC_FP4_MIXED);
	const tb_ceiling *f8 = tb_ceiling_for(b200, TB_PREC_FP8_MIXED);
	cr_assert(f4 && f8);
	cr_expect_eq(f4->dtype, TB_DTYPE_FP4);
	/* whichever NVFP4 run holds it (src/ceiling.c follows make validate) */
	cr_expect_not_null(strstr(f4->run, ".nvfp4."));
	cr_expect_str_eq(tb_ceiling_format(f4), "fp4");
	cr_expect_eq(f8->dtype, TB_DTYPE_FP8);
	cr_expect_null(tb_ceiling_for(mi355x, TB_PREC_FP4_MIXED));
	const tb_ceiling *h = tb_ceiling_for(h100, TB_PREC_FP4_MIXED);
	cr_assert_not_null(h);
	cr_expect_eq(h->dtype, TB_DTYPE_FP8);
}

Test(ceiling, above_is_strict)
{
	const tb_gpu *h100 = tb_gpus_find("h100-sxm");
	const tb_ceiling *b = tb_ceiling_for(h100, TB_PREC_BF16_MIXED);
	cr_assert_not_null(b);
	cr_expect_null(tb_ceiling_above(h100, TB_PREC_BF16_MIXED, b->mfu));
	cr_expect_null(tb_ceiling_above(h100, TB_PREC_BF16_MIXED, b->mfu - 0.05));
	cr_expect_eq(tb_ceiling_above(h100, TB_PREC_BF16_MIXED, b->mfu + 0.02), b);
	/* a card no published run covers never warns */
	cr_expect_null(tb_ceiling_above(tb_gpus_find("rtx-4090"), TB_PREC_BF16_MIXED, 0.99));
}
