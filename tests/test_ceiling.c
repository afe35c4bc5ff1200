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
		cr_expect_eq(tb_ceiling_find(c->card, c->fp8), c, "%s listed twice", c->card);
	}
	cr_expect_null(tb_ceiling_at(tb_ceiling_count()));
	cr_expect_null(tb_ceiling_find("no-such-card", false));
	cr_expect_null(tb_ceiling_find(NULL, false));
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
	cr_expect(f->fp8 && !b->fp8);
	cr_expect_str_eq(f->run, "mlperf40.gpt3.512");
	const tb_ceiling *a = tb_ceiling_for(a100, TB_PREC_FP8_MIXED);
	cr_assert_not_null(a);
	cr_expect(!a->fp8);
	cr_expect_null(tb_ceiling_for(NULL, TB_PREC_BF16_MIXED));
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
