/* test_report_build.c: the helpers the report's sections share
 * (src/report_build.c): a table filled cell by cell, its headers and
 * alignment, shares and changes as the template filters show them, and a
 * chart's common set-up.  Expected texts are the filters' documented forms
 * (include/trainbudget/fmt.h: bytes in three figures, "80.0 GB"; pct "35%"). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_build.h"

static void S_table_release(tb_table *t)
{
	for (size_t i = 0; i < t->ncols * t->nrows; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->numeric);
	free(t->caption);
}

Test(report_build, table_headers_alignment_and_rows)
{
	tb_table t;
	memset(&t, 0, sizeof t);
	tb_rtab tb;
	tb_rtab_init(&tb, &t, NULL, "Per GPU", "lr", "Item", "Bytes", NULL);
	cr_assert(t.ncols == 2 && t.nrows == 1);
	cr_expect(!t.numeric[0] && t.numeric[1]);
	cr_expect_str_eq(t.caption, "Per GPU");
	tb_rtab_str(&tb, "Weights");
	tb_rtab_num(&tb, TB_RF_BYTES, 80e9);
	tb_rtab_str(&tb, NULL);                 /* a figure the budget lacks */
	tb_rtab_fmt(&tb, "%d%s", 3, " (this run)");
	cr_assert(t.nrows == 3);
	cr_expect_str_eq(t.cells[0], "Item");
	cr_expect_str_eq(t.cells[2], "Weights");
	cr_expect_str_eq(t.cells[3], "80.0 GB");
	cr_expect_str_eq(t.cells[4], "n/a");
	cr_expect_str_eq(t.cells[5], "3 (this run)");
	S_table_release(&t);
}

Test(report_build, a_null_header_ends_the_row)
{
	tb_table t;
	memset(&t, 0, sizeof t);
	tb_rtab tb;
	tb_rtab_init(&tb, &t, NULL, NULL, "lrr", "Plan", "Loss", (const char *)NULL, "Lifetime", NULL);
	cr_expect(t.ncols == 2);
	cr_expect_null(t.caption);
	S_table_release(&t);
}

Test(report_build, shares_and_changes)
{
	tb_table t;
	memset(&t, 0, sizeof t);
	tb_rtab tb;
	tb_rtab_init(&tb, &t, NULL, NULL, "rrrr", "a", "b", "c", "d", NULL);
	tb_rtab_share(&tb, 1, 4);
	tb_rtab_share(&tb, 1, 0);               /* no total: no share */
	tb_rtab_delta(&tb, 0.25);
	tb_rtab_delta(&tb, -0.5);
	cr_expect_str_eq(t.cells[4], "25%");
	cr_expect_str_eq(t.cells[5], "n/a");
	cr_expect_str_eq(t.cells[6], "+25%");
	cr_expect_str_eq(t.cells[7], "-50%");
	S_table_release(&t);
}

Test(report_build, chart_setup_and_reference_lines)
{
	tb_chart_spec s;
	tb_rchart_init(&s, TB_CHART_STACKED_BARS, "zero", "Memory per GPU", "ZeRO stage",
	               "Memory", "GB", 1e9);
	cr_expect_str_eq(s.id, "zero");
	cr_expect_str_eq(s.y_unit, "GB");
	cr_expect(s.y_scale == 1e9 && s.nseries == 0 && s.nrefs == 0);
	for (int i = 0; i < TB_CHART_MAX_SERIES + 2; i++)
		tb_rchart_series(&s, "x");
	cr_expect(s.nseries == TB_CHART_MAX_SERIES);
	cr_expect(tb_rchart_ncats(&s, 40, 30) == TB_CHART_MAX_CATS);
	cr_expect(tb_rchart_ncats(&s, 3, 30) == 3 && s.ncats == 3);
	tb_chart_ref *ref = tb_rchart_ref(&s, 80e9, "capacity ", TB_RF_BYTES, 80e9, tb_rchart_ref_grey);
	cr_assert_not_null(ref);
	cr_expect_str_eq(ref->label, "capacity 80.0 GB");
	cr_expect(ref->value == 80e9 && !ref->vertical);
	while (tb_rchart_add_ref(&s, 1, tb_rchart_ref_grey))
		;
	cr_expect(s.nrefs == TB_CHART_MAX_REFS);
}

Test(report_build, filters_by_name)
{
	tb_rfilter f;
	cr_expect(tb_rfilter_find("pct", &f) && f == TB_RF_PCT);
	cr_expect(!tb_rfilter_find("percent", &f));
	cr_expect_str_eq(tb_rfilter_name(0), "sci");
	cr_expect_null(tb_rfilter_name(TB_RF_NFILTERS));
	cr_expect(tb_rfit_of(true, false) == TB_RFIT_UNKNOWN);
	cr_expect_str_eq(tb_rfits_word(false, true), "no");
}
