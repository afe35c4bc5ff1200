/* Diagnostics: the exact GCC-style text (jq's shtest pins stderr). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/diag.h"

Test(diag, format_with_caret_and_count)
{
	tb_diags d;
	tb_diags_init(&d);
	const char *src = "title: t\nhardware:\n  gpu: h1000\n";
	tb_diags_add(&d, TB_DIAG_ERROR, "s.yaml", src, strlen(src), 3, 8,
	             "unknown GPU '%s'; did you mean '%s'?", "h1000", "h100-sxm");
	tb_diags_add(&d, TB_DIAG_ERROR, "<--set>", "x=1", 3, 1, 1, "second");
	char *s = tb_diags_format(&d);
	cr_assert_str_eq(s,
		"s.yaml:3:8: error: unknown GPU 'h1000'; did you mean 'h100-sxm'?\n"
		"      gpu: h1000\n"
		"           ^\n"
		"<--set>:1:1: error: second\n"
		"    x=1\n"
		"    ^\n"
		"2 errors\n");
	free(s);
	cr_assert_eq(d.errors, 2);
	tb_diags_release(&d);
	s = tb_diags_format(&d);
	cr_assert_str_eq(s, "");
	free(s);
}

Test(diag, no_position_and_line_past_end)
{
	tb_diags d;
	tb_diags_init(&d);
	tb_diags_add(&d, TB_DIAG_ERROR, "f.yaml", "a\n", 2, 0, 0, "cannot read");
	tb_diags_add(&d, TB_DIAG_WARNING, "f.yaml", "a\n", 2, 9, 1, "far");
	char *s = tb_diags_format(&d);
	cr_assert_str_eq(s, "f.yaml: error: cannot read\nf.yaml:9:1: warning: far\n1 error\n");
	free(s);
	tb_diags_release(&d);
}

Test(diag, suggest)
{
	static const char *const gpus[] = { "h100-sxm", "h100-pcie", "h200", "a100-80gb" };
	cr_assert_str_eq(tb_diags_suggest("h100", gpus, 4), "h100-sxm");
	cr_assert_str_eq(tb_diags_suggest("h1000", gpus, 4), "h100-sxm");
	cr_assert_str_eq(tb_diags_suggest("h100-pcei", gpus, 4), "h100-pcie");
	cr_assert_str_eq(tb_diags_suggest("h20", gpus, 4), "h200");
	cr_assert_null(tb_diags_suggest("tpu-v9", gpus, 4));
	static const char *const prec[] = { "fp32", "bf16-mixed", "fp16-mixed", "bf16", "fp8-mixed" };
	cr_assert_str_eq(tb_diags_suggest("bf17", prec, 5), "bf16");
	cr_assert_str_eq(tb_diags_suggest("bf16-mixd", prec, 5), "bf16-mixed");
	cr_assert_null(tb_diags_suggest("x", prec, 0));
}

/* A reader scans top to bottom: the loader's passes may find line 9 before
 * line 2, but they print in source order, files in first-seen order. */
Test(diag, source_order_per_file)
{
	tb_diags d;
	tb_diags_init(&d);
	tb_diags_add(&d, TB_DIAG_ERROR, "a.yaml", NULL, 0, 9, 3, "nine");
	tb_diags_add(&d, TB_DIAG_ERROR, "b.json", NULL, 0, 1, 1, "other file");
	tb_diags_add(&d, TB_DIAG_ERROR, "a.yaml", NULL, 0, 2, 5, "two-five");
	tb_diags_add(&d, TB_DIAG_ERROR, "a.yaml", NULL, 0, 2, 1, "two-one");
	tb_diags_add(&d, TB_DIAG_ERROR, "a.yaml", NULL, 0, 2, 1, "two-one again");
	char *s = tb_diags_format(&d);
	cr_assert_str_eq(s,
	                 "a.yaml:2:1: error: two-one\n"
	                 "a.yaml:2:1: error: two-one again\n"
	                 "a.yaml:2:5: error: two-five\n"
	                 "a.yaml:9:3: error: nine\n"
	                 "b.json:1:1: error: other file\n"
	                 "5 errors\n");
	free(s);
	tb_diags_release(&d);
}
