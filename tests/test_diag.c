/* Diagnostics: the exact GCC-style text (jq's shtest pins stderr). */
#include <criterion/criterion.h>
#include <stdio.h>
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
	/* the wrong case is no typo: the name itself, whatever its length */
	cr_assert_str_eq(tb_diags_suggest("H100-PCIE", gpus, 4), "h100-pcie");
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

/* ---- bounded output ------------------------------------------------------ */

/* A long line is quoted as a window around the column, cut with "...". */
Test(diag, long_line_is_quoted_as_a_window)
{
	char line[1001];
	for (int i = 0; i < 1000; i++)
		line[i] = (char)('a' + i % 26);
	line[1000] = '\0';
	tb_diags d;
	tb_diags_init(&d);
	tb_diags_add(&d, TB_DIAG_ERROR, "w.yaml", line, 1000, 1, 500, "here");
	char *s = tb_diags_format(&d);
	/* characters 440..559 (0-based), the caret under 499 */
	char want[512];
	snprintf(want, sizeof want, "w.yaml:1:500: error: here\n    ...%.120s...\n    %64s\n1 error\n",
	         line + 439, "^");
	cr_assert_str_eq(s, want);
	free(s);
	tb_diags_release(&d);
}

Test(diag, window_at_the_ends_of_a_line)
{
	char line[201];
	memset(line, 'x', 200);
	line[200] = '\0';
	tb_diags d;
	tb_diags_init(&d);
	tb_diags_add(&d, TB_DIAG_ERROR, "a", line, 200, 1, 1, "start");
	tb_diags_add(&d, TB_DIAG_ERROR, "a", line, 200, 1, 201, "just past the end");
	tb_diags_add(&d, TB_DIAG_ERROR, "a", line, 200, 1, 99999, "far past the end");
	char *s = tb_diags_format(&d);
	char want[1024];
	snprintf(want, sizeof want,
	         "a:1:1: error: start\n    %.60s...\n    ^\n"
	         "a:1:201: error: just past the end\n    ...%.60s\n    %64s\n"
	         "a:1:99999: error: far past the end\n    ...%.60s\n    %64s\n3 errors\n",
	         line, line, "^", line, "^");
	cr_assert_str_eq(s, want);
	free(s);
	tb_diags_release(&d);
}

/* Only the first TB_DIAGS_MAX_SHOWN in source order are kept, whatever
 * order they came in; the rest are counted. */
Test(diag, number_shown_is_capped_and_the_rest_counted)
{
	tb_diags d;
	tb_diags_init(&d);
	for (int i = 30; i >= 1; i--)
		tb_diags_add(&d, TB_DIAG_ERROR, "c.yaml", NULL, 0, (size_t)i, 1, "line %d", i);
	tb_diags_add(&d, TB_DIAG_WARNING, "c.yaml", NULL, 0, 40, 1, "late warning");
	cr_assert_eq(d.n, TB_DIAGS_MAX_SHOWN);
	cr_assert_eq(d.errors, 30);
	cr_assert_eq(d.warnings, 1);
	char *s = tb_diags_format(&d);
	tb_buf want;
	tb_buf_init(&want);
	for (int i = 1; i <= 20; i++)
		tb_buf_printf(&want, "c.yaml:%d:1: error: line %d\n", i, i);
	tb_buf_puts(&want, "10 more errors and 1 more warning not shown (the first 20 in source order are)\n30 errors\n");
	cr_assert_str_eq(s, want.ptr);
	tb_buf_release(&want);
	free(s);
	tb_diags_release(&d);
}

/* The repro in-process: 200,000 errors on one 1.2 MB line keep
 * twenty windows, not 200,000 copies of the line. */
Test(diag, memory_and_output_stay_small, .timeout = 10)
{
	size_t n = 200000, len = 6 * n;
	char *text = malloc(len + 1);
	for (size_t i = 0; i < n; i++)
		memcpy(text + 6 * i, "a: 1, ", 6);
	text[len] = '\0';
	tb_diags d;
	tb_diags_init(&d);
	for (size_t i = 0; i < n; i++)
		tb_diags_add(&d, TB_DIAG_ERROR, "big.yaml", text, len, 1, 6 * i + 1,
		             "duplicate key '%s'; expected each key once", "a");
	cr_assert_eq(d.n, TB_DIAGS_MAX_SHOWN);
	char *s = tb_diags_format(&d);
	cr_assert_lt(strlen(s), 8000, "%zu bytes", strlen(s));
	cr_assert(strstr(s, "199980 more errors not shown") != NULL);
	cr_assert(strstr(s, "\n200000 errors\n") != NULL);
	free(s);
	tb_diags_release(&d);
	free(text);
}

Test(diag, long_message_keeps_head_and_tail)
{
	char word[5001];
	memset(word, 'k', 5000);
	word[5000] = '\0';
	tb_diags d;
	tb_diags_init(&d);
	tb_diags_add(&d, TB_DIAG_ERROR, "m", NULL, 0, 1, 1, "unknown key '%s'; expected one of a, b", word);
	cr_assert_leq(strlen(d.items[0].msg), TB_DIAGS_MAX_MSG + 5);
	cr_assert(strncmp(d.items[0].msg, "unknown key 'kkk", 16) == 0);
	cr_assert(strstr(d.items[0].msg, "kkk ... kkk") != NULL);
	cr_assert(strstr(d.items[0].msg, "'; expected one of a, b") != NULL);
	tb_diags_release(&d);
}

/* ---- nothing from an input acts on the terminal -------------------------- */

Test(diag, escape_makes_controls_visible)
{
	static const struct { const char *in, *keep, *want; } cases[] = {
		{ "\033]0;PWNED\007title", NULL, "\\x1b]0;PWNED\\x07title" },
		{ "a\tb\nc\rd\x7f", NULL, "a\\x09b\\x0ac\\x0dd\\x7f" },
		{ "a\tb\nc", "\t\n", "a\tb\nc" },
		/* C1 CSI (U+009B) and the bidi override U+202E, as code points */
		{ "x\xc2\x9b" "2Jy\xe2\x80\xae" "z", NULL, "x\\u{9b}2Jy\\u{202e}z" },
		{ "\xe2\x81\xa6\xd8\x9c\xe2\x80\x8f", NULL, "\\u{2066}\\u{61c}\\u{200f}" },
		/* not UTF-8: each byte shown */
		{ "a\xff\xc3(\xed\xa0\x80", NULL, "a\\xff\\xc3(\\xed\\xa0\\x80" },
		/* ordinary text, accents and right-to-left letters, untouched */
		{ "caf\xc3\xa9 \xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d \xe4\xb8\xad", NULL,
		  "caf\xc3\xa9 \xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d \xe4\xb8\xad" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		tb_buf b;
		tb_buf_init(&b);
		tb_diags_escape(&b, cases[i].in, strlen(cases[i].in), cases[i].keep);
		cr_assert_str_eq(b.ptr, cases[i].want, "case %zu", i);
		tb_buf_release(&b);
	}
	/* a NUL inside the span is shown, not a terminator */
	tb_buf b;
	tb_buf_init(&b);
	tb_diags_escape(&b, "a\0b", 3, NULL);
	cr_assert_str_eq(b.ptr, "a\\x00b");
	tb_buf_release(&b);
}

/* File, message and source line are all escaped; the caret still lands
 * under the column, past the wider escapes. */
Test(diag, every_part_is_escaped_and_the_caret_lines_up)
{
	const char *src = "\033]0;PWNED\007title: \xe2\x80\xae" "x\tbad\n";
	tb_diags d;
	tb_diags_init(&d);
	/* column 21 (characters): the 'b' of "bad" */
	tb_diags_add(&d, TB_DIAG_ERROR, "e\033[2J.yaml", src, strlen(src), 1, 21,
	             "unknown key '%s'", "x\033[31m");
	char *s = tb_diags_format(&d);
	cr_assert_str_eq(s,
		"e\\x1b[2J.yaml:1:21: error: unknown key 'x\\x1b[31m'\n"
		"    \\x1b]0;PWNED\\x07title: \\u{202e}x\tbad\n"
		/* 4 + 8 + 4 + 7 + 8 + 1 columns, then the tab copied */
		"                                    \t^\n"
		"1 error\n");
	cr_assert(strchr(s, '\033') == NULL);
	free(s);
	tb_diags_release(&d);
}
