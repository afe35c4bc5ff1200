/* test_record.c: the model's held-out record per card (record.c).
 *
 * The figures are checked against runs.yaml by `make validate`; here,
 * that each row is a coherent count on a card the table has, that the
 * format is picked as the ceilings pick it, that the bar is strict and
 * that the words say which way the model errs. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "trainbudget/buf.h"
#include "trainbudget/ceiling.h"
#include "trainbudget/gpus.h"
#include "trainbudget/record.h"

Test(record, rows_are_counts_on_known_cards)
{
	cr_assert_gt(tb_record_count(), 0);
	for (size_t i = 0; i < tb_record_count(); i++) {
		const tb_record *r = tb_record_at(i);
		cr_expect_not_null(tb_gpus_find(r->card), "%s", r->card);
		cr_expect(r->sources >= 1 && r->sources <= r->runs, "%s", r->card);
		cr_expect(r->sources_within >= 0 && r->sources_within <= r->sources, "%s", r->card);
		cr_expect(isfinite(r->median_err) && fabs(r->median_err) < 1, "%s", r->card);
		cr_expect_eq(tb_record_find(r->card, r->dtype), r, "%s listed twice", r->card);
	}
	cr_expect_null(tb_record_at(tb_record_count()));
	cr_expect_null(tb_record_find("no-such-card", TB_DTYPE_BF16));
	cr_expect_null(tb_record_find(NULL, TB_DTYPE_BF16));
}

/* H100 in fp8-mixed is held to its fp8 runs, in bf16 to its 16-bit ones;
 * an A100 has no fp8 peak, so fp8-mixed there is held to its 16-bit runs,
 * as its time is priced. */
Test(record, precision_picks_the_row)
{
	const tb_gpu *h100 = tb_gpus_find("h100-sxm"), *a100 = tb_gpus_find("a100-80gb");
	cr_assert(h100 && a100);
	const tb_record *f = tb_record_for(h100, TB_PREC_FP8_MIXED);
	const tb_record *b = tb_record_for(h100, TB_PREC_BF16_MIXED);
	cr_assert(f && b && f != b);
	cr_expect(f->dtype == TB_DTYPE_FP8 && b->dtype == TB_DTYPE_BF16);
	const tb_record *a = tb_record_for(a100, TB_PREC_FP8_MIXED);
	cr_assert_not_null(a);
	cr_expect_eq(a->dtype, TB_DTYPE_BF16);
	cr_expect_null(tb_record_for(NULL, TB_PREC_BF16_MIXED));
	/* a card no held-out run covers has no record */
	cr_expect_null(tb_record_for(tb_gpus_find("rtx-4090"), TB_PREC_BF16_MIXED));
}

/* Said only beyond the bar, either way, and in the direction it errs. */
Test(record, off_is_beyond_the_bar_and_says_which_way)
{
	int off = 0;
	for (size_t i = 0; i < tb_record_count(); i++) {
		const tb_record *r = tb_record_at(i);
		const tb_gpu *g = tb_gpus_find(r->card);
		tb_precision p = r->dtype == TB_DTYPE_FP8 ? TB_PREC_FP8_MIXED
		                 : r->dtype == TB_DTYPE_FP4 ? TB_PREC_FP4_MIXED : TB_PREC_BF16_MIXED;
		if (tb_record_for(g, p) != r)
			continue;
		const tb_record *o = tb_record_off(g, p);
		cr_expect_eq(o != NULL, fabs(r->median_err) > TB_RECORD_BAR, "%s", r->card);
		if (!o)
			continue;
		off++;
		tb_buf s;
		tb_buf_init(&s);
		tb_record_say(o, &s);
		cr_expect(strstr(s.ptr, r->card) == s.ptr + 3, "%s", s.ptr);
		cr_expect_not_null(strstr(s.ptr, r->median_err < 0 ? "shorter than published" : "longer than published"), "%s", s.ptr);
		cr_expect_not_null(strstr(s.ptr, r->median_err < 0 ? "optimistic" : "pessimistic"), "%s", s.ptr);
		tb_buf_release(&s);
	}
	cr_expect_gt(off, 0);
	tb_record_say(NULL, NULL);
}

/* A run calibrated on pilots of the card carries the calibrated band
 * instead; one calibrated on another card, or none, is told the record
 * (tried on the first card and format beyond the bar, whichever that is). */
Test(record, said_unless_calibrated_on_the_card)
{
	static tb_inputs in;
	const tb_record *off = NULL;
	const tb_gpu *g = NULL;
	for (size_t i = 0; !off && i < tb_record_count(); i++) {
		const tb_record *r = tb_record_at(i);
		in.training.precision = r->dtype == TB_DTYPE_FP8 ? TB_PREC_FP8_MIXED
		                        : r->dtype == TB_DTYPE_FP4 ? TB_PREC_FP4_MIXED : TB_PREC_BF16_MIXED;
		g = tb_gpus_find(r->card);
		off = tb_record_off(g, in.training.precision) == r ? r : NULL;
	}
	if (!off)
		cr_skip_test("no card's held-out record is beyond the bar");
	cr_expect_eq(tb_record_said(&in, g), off);
	in.calib.known = true;
	snprintf(in.calib.card, sizeof in.calib.card, "%s", strcmp(g->name, "h100-sxm") ? "h100-sxm" : "a100-80gb");
	cr_expect_eq(tb_record_said(&in, g), off);
	snprintf(in.calib.card, sizeof in.calib.card, "%s", g->name);
	cr_expect_null(tb_record_said(&in, g));
	cr_expect_null(tb_record_said(NULL, g));
	cr_expect_null(tb_record_said(&in, NULL));
}

/* An inline card that borrows a table name with other peaks is not the
 * table's card: neither the model's record of it nor its published
 * ceiling applies (an MFU is over the card's own peaks); one that copies
 * the table's peaks under its name is the table's card. */
Test(record, inline_card_under_a_table_name)
{
	const tb_gpu *t = tb_gpus_find("gb200");
	cr_assert_not_null(t);
	tb_gpu g = *t;
	snprintf(g.source, sizeof g.source, "inline in the scenario file");
	cr_expect_eq(tb_gpus_table_card(&g), t);
	cr_expect_eq(tb_record_for(&g, TB_PREC_FP8_MIXED), tb_record_for(t, TB_PREC_FP8_MIXED));
	cr_expect_eq(tb_ceiling_for(&g, TB_PREC_FP8_MIXED), tb_ceiling_for(t, TB_PREC_FP8_MIXED));
	g.peak_flops[TB_DTYPE_BF16] /= 2;
	cr_expect_null(tb_gpus_table_card(&g));
	cr_expect_null(tb_record_for(&g, TB_PREC_FP8_MIXED));
	cr_expect_null(tb_ceiling_for(&g, TB_PREC_FP8_MIXED));
	static tb_inputs in;
	in.training.precision = TB_PREC_FP8_MIXED;
	cr_expect_null(tb_record_said(&in, &g));
	cr_expect_null(tb_gpus_table_card(NULL));
}
