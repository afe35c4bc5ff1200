/* Tests for the PDF back end (render_pdf.c) and its line breaker
 * (pdf_text.c).  Documents are hand-made: a cmark tree parsed from
 * Markdown here, with tables and charts spliced in as custom blocks, and a
 * hand-made meta, so these tests do not depend on the report model.  The
 * PDFs are read back with poppler's pdftotext/pdffonts/pdfinfo, which
 * know nothing of our code. */
#include <criterion/criterion.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pdf_text.h"
#include "pdf_write.h"
#include "trainbudget/budget.h"
#include "trainbudget/render.h"
#include "trainbudget/sha256.h"
#include "trainbudget/scenario.h"
#include "trainbudget/xalloc.h"

/* ---- the line breaker, with a fake font: every character 1 pt wide ---- */

static double S_chars(void *ctx, unsigned style, double size_pt, const char *s, size_t len)
{
	(void)ctx;
	(void)style;
	(void)size_pt;
	double n = 0;
	for (size_t i = 0; i < len; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80)
			n++;
	return n;
}

static char *S_line(const tb_pdf_para *p, size_t li)
{
	tb_buf b;
	tb_buf_init(&b);
	const tb_pdf_line *ln = &p->lines[li];
	for (size_t k = ln->first; k < ln->first + ln->n; k++) {
		if (k > ln->first && p->pieces[k].space_before)
			tb_buf_putc(&b, ' ');
		tb_buf_put(&b, p->text.ptr + p->pieces[k].off, p->pieces[k].len);
	}
	return tb_buf_detach(&b, NULL);
}

static void S_expect_lines(tb_pdf_para *p, double width, const char *const *want, size_t n)
{
	cr_assert_eq(tb_pdf_para_layout(p, width, S_chars, NULL), n);
	for (size_t i = 0; i < n; i++) {
		char *got = S_line(p, i);
		cr_expect_str_eq(got, want[i], "line %zu", i);
		cr_expect_leq(p->lines[i].width_pt, width);
		free(got);
	}
}

Test(render_pdf, breaks_between_words)
{
	tb_pdf_para p;
	tb_pdf_para_init(&p, 10);
	tb_pdf_para_add(&p, 0, "aaa bbb  ccc\tdd", 15);
	const char *want[] = {"aaa bbb", "ccc dd"};
	S_expect_lines(&p, 7, want, 2);
	tb_pdf_para_release(&p);
}

Test(render_pdf, counts_characters_not_bytes)
{
	/* "×" is two bytes: a byte-counting breaker would wrap after one word */
	tb_pdf_para p;
	tb_pdf_para_init(&p, 10);
	const char *s = "\xC3\x97\xC3\x97 \xE2\x89\x88\xE2\x89\x88 ab";
	tb_pdf_para_add(&p, 0, s, strlen(s));
	const char *want[] = {"\xC3\x97\xC3\x97 \xE2\x89\x88\xE2\x89\x88", "ab"};
	S_expect_lines(&p, 5, want, 2);
	tb_pdf_para_release(&p);
}

Test(render_pdf, cuts_long_words_between_characters)
{
	tb_pdf_para p;
	tb_pdf_para_init(&p, 10);
	/* five Greek alphas (two bytes each) in a two-character line */
	const char *s = "x \xCE\xB1\xCE\xB1\xCE\xB1\xCE\xB1\xCE\xB1";
	tb_pdf_para_add(&p, 0, s, strlen(s));
	const char *want[] = {"x", "\xCE\xB1\xCE\xB1", "\xCE\xB1\xCE\xB1", "\xCE\xB1"};
	S_expect_lines(&p, 2, want, 4);
	tb_pdf_para_release(&p);
}

Test(render_pdf, glued_styles_wrap_together)
{
	/* "**bold**," is one word in two styles: the comma never starts a line */
	tb_pdf_para p;
	tb_pdf_para_init(&p, 10);
	tb_pdf_para_add(&p, 0, "aaaa ", 5);
	tb_pdf_para_add(&p, TB_PDF_BOLD, "bb", 2);
	tb_pdf_para_add(&p, 0, ", c", 3);
	const char *want[] = {"aaaa", "bb, c"};
	S_expect_lines(&p, 6, want, 2);
	tb_pdf_para_release(&p);
}

/* Laid out again at the width, size and measure of its last layout, with
 * no text added, a paragraph keeps its lines without measuring again (a
 * derivation is laid out for its height, then drawn); anything else lays
 * it out anew: more text, another size (a table's shrinking font), another
 * width or measure. */
static int S_measured;

static double S_chars_counted(void *ctx, unsigned style, double size_pt, const char *s, size_t len)
{
	S_measured++;
	return S_chars(ctx, style, size_pt, s, len) * size_pt / 10;
}

Test(render_pdf, a_layout_asked_again_stands)
{
	tb_pdf_para p;
	tb_pdf_para_init(&p, 10);
	tb_pdf_para_add(&p, 0, "aaa bbb ccc", 11);
	S_measured = 0;
	cr_assert_eq(tb_pdf_para_layout(&p, 7, S_chars_counted, NULL), 2);
	int once = S_measured;
	cr_assert_gt(once, 0);
	cr_expect_eq(tb_pdf_para_layout(&p, 7, S_chars_counted, NULL), 2);
	cr_expect_eq(S_measured, once, "the same layout asked again: nothing measured");

	cr_expect_eq(tb_pdf_para_layout(&p, 7, S_chars, NULL), 2);
	cr_expect_eq(tb_pdf_para_layout(&p, 11, S_chars_counted, NULL), 1, "another width");
	cr_expect_gt(S_measured, once);

	p.size_pt = 20;        /* twice as wide: one word a line */
	cr_expect_eq(tb_pdf_para_layout(&p, 11, S_chars_counted, NULL), 3, "another size");

	p.size_pt = 10;
	cr_expect_eq(tb_pdf_para_layout(&p, 11, S_chars_counted, NULL), 1);
	tb_pdf_para_add(&p, 0, " dd", 3);
	cr_expect_eq(tb_pdf_para_layout(&p, 11, S_chars_counted, NULL), 2, "text added");
	char *last = S_line(&p, 1);
	cr_expect_str_eq(last, "dd");
	free(last);
	tb_pdf_para_release(&p);
}

Test(render_pdf, verbatim_keeps_spaces_and_lines)
{
	tb_pdf_para p;
	tb_pdf_para_init(&p, 10);
	const char *s = "a  b\n\n\tc";
	tb_pdf_para_add_verbatim(&p, TB_PDF_MONO, s, strlen(s));
	const char *want[] = {"a  b", "", "    c"};
	S_expect_lines(&p, 40, want, 3);
	tb_pdf_para_release(&p);
}

Test(render_pdf, sanitize_keeps_every_plane)
{
	tb_buf b;
	tb_buf_init(&b);
	/* an emoji (outside the BMP) stays, for a fallback font to draw or
	 * the document to refuse; a stray continuation byte and a truncated
	 * sequence become '?'; a control character a space */
	const char in[] = "\xE2\x82\xAC \xF0\x9F\x98\x80 \x80 a\x01" "b \xE2\x82";
	tb_pdf_sanitize(&b, in, sizeof in - 1);
	cr_expect_str_eq(b.ptr, "\xE2\x82\xAC \xF0\x9F\x98\x80 ? a b ??");
	tb_buf_release(&b);
	cr_expect_eq(tb_pdf_utf8_floor("a\xC3\x97" "b", 4, 2), 1);
	cr_expect_eq(tb_pdf_utf8_floor("a\xC3\x97" "b", 4, 3), 3);
}

/* Characters that draw nothing are skipped when no font has them. */
Test(render_pdf, ignorable_characters)
{
	cr_expect(tb_pdf_ignorable(0x200D));  /* zero-width joiner */
	cr_expect(tb_pdf_ignorable(0xFE0F));  /* emoji presentation selector */
	cr_expect(!tb_pdf_ignorable('a'));
}

/* ---- whole documents ----------------------------------------------------- */

static const tb_block *S_lookup(cmark_node *n)
{
	if (cmark_node_get_type(n) != CMARK_NODE_CUSTOM_BLOCK)
		return NULL;
	return cmark_node_get_user_data(n);
}

/* Replaces each paragraph that reads exactly `mark` with a custom block
 * carrying `b`. */
static void S_splice(cmark_node *root, const char *mark, tb_block *b)
{
	cmark_node *c = cmark_node_first_child(root);
	while (c) {
		cmark_node *next = cmark_node_next(c);
		cmark_node *t = cmark_node_first_child(c);
		if (cmark_node_get_type(c) == CMARK_NODE_PARAGRAPH && t &&
		    cmark_node_get_type(t) == CMARK_NODE_TEXT &&
		    strcmp(cmark_node_get_literal(t), mark) == 0) {
			cmark_node *cb = cmark_node_new(CMARK_NODE_CUSTOM_BLOCK);
			cmark_node_set_user_data(cb, b);
			cmark_node_replace(c, cb);
			cmark_node_free(c);
		}
		c = next;
	}
}

static const tb_verdict_line S_verdicts[4] = {
	{TB_OUTCOME_GOOD, (char *)"Fits in memory: 61.2 GB of 80 GB per GPU."},
	{TB_OUTCOME_WARN, (char *)"Meets the deadline only above 45% MFU."},
	{TB_OUTCOME_BAD, (char *)"Costs \xE2\x82\xAC" "1.2M to \xE2\x82\xAC" "1.9M, over the budget."},
	/* nothing to judge against: labelled N/A, never a green YES */
	{TB_OUTCOME_NONE, (char *)"No deadline set: training takes 2.2 days."},
};
static const char *const S_key_labels[2] = {"Training compute", "Per-GPU memory"};
static const char *const S_key_values[2] = {"4.20 \xC3\x97 10\xC2\xB2\xC2\xB9 FLOP", "61.2 GB"};

static tb_report_meta S_meta(const char *title)
{
	tb_report_meta m;
	memset(&m, 0, sizeof m);
	m.title = title;
	m.author = "Ada Lovelace";
	m.date = "2025-03-14";
	m.version = "9.8.7";
	m.sha256 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
	m.hash_of = "inputs";
	m.command = "trainbudget report docs/examples/default-7b.yaml -o out --format pdf";
	m.nverdict = 4;
	m.verdict = S_verdicts;
	m.nkey = 2;
	m.key_labels = S_key_labels;
	m.key_values = S_key_values;
	return m;
}

/* Writes `pdf` to a temporary file; returns its path (free it, unlink it). */
static char *S_write(const tb_buf *pdf)
{
	char *path = tb_xstrdup("/tmp/tb-test-pdf-XXXXXX");
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, pdf->ptr, pdf->len), (ssize_t)pdf->len);
	close(fd);
	return path;
}

/* Output of a shell command, stderr discarded. */
static char *S_cmd(const char *tool, const char *path, const char *rest)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "%s %s %s", tool, path, rest);
	FILE *f = popen(cmd, "r");
	cr_assert_not_null(f);
	tb_buf b;
	tb_buf_init(&b);
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		tb_buf_put(&b, chunk, n);
	pclose(f);
	return tb_buf_detach(&b, NULL);
}

static size_t S_count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static int S_render_md(const char *md, const tb_report_meta *m, tb_paper paper,
                       tb_block *blocks, const char *const *marks, size_t nblocks,
                       tb_buf *out, tb_diags *d)
{
	cmark_node *root = cmark_parse_document(md, strlen(md), CMARK_OPT_DEFAULT);
	for (size_t i = 0; i < nblocks; i++)
		S_splice(root, marks[i], &blocks[i]);
	tb_pdf_options opt = { .paper = paper };
	int rc = tb_render_pdf_tree(root, m, S_lookup, &opt, out, d);
	cmark_node_free(root);
	return rc;
}

static const char S_doc_md[] =
	"TITLE\n\n"
	"VERDICT\n\n"
	"## Compute\n\n"
	"Training takes *about* **4.20 \xC3\x97 10\xC2\xB2\xC2\xB9 FLOP**, "
	"which is \xE2\x89\x88 6ND with `N = 6.74B`.\n\n"
	"### Operator count\n\n"
	"- first point\n- second point \xE2\x89\xA4 10 \xC2\xB5s\n\n"
	"1. one\n2. two\n\n"
	"```\nC = 6 * N * D\n```\n\n"
	"## Memory\n\n"
	"TABLE\n\n"
	"CHART\n";

static void S_fill_table(tb_table *t, size_t nrows)
{
	memset(t, 0, sizeof *t);
	t->ncols = 3;
	t->nrows = nrows;
	t->cells = tb_xcalloc(nrows * 3, sizeof *t->cells);
	t->numeric = tb_xcalloc(3, sizeof *t->numeric);
	t->numeric[2] = true;
	t->cells[0] = tb_xstrdup("Item");
	t->cells[1] = tb_xstrdup("Note");
	t->cells[2] = tb_xstrdup("Bytes");
	for (size_t r = 1; r < nrows; r++) {
		char s[64];
		snprintf(s, sizeof s, "row%zu", r);
		t->cells[r * 3] = tb_xstrdup(s);
		t->cells[r * 3 + 1] = tb_xstrdup(r == 1 ? "a note long enough that it must wrap inside "
		                                          "its cell rather than run over the margin "
		                                          "of the page, with an unbreakable "
		                                          "word_that_goes_on_and_on_and_on_and_on_and_on_"
		                                          "and_on_and_on_and_on_and_on_and_on_and_on_and_on"
		                                        : "short");
		snprintf(s, sizeof s, "%zu", r * 1000);
		t->cells[r * 3 + 2] = tb_xstrdup(s);
	}
	t->caption = tb_xstrdup("Memory by line item");
}

static void S_free_table(tb_table *t)
{
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->numeric);
	free(t->caption);
}

static void S_fill_chart(tb_chart *c)
{
	memset(c, 0, sizeof *c);
	c->width_pt = 480;
	c->height_pt = 260;
	c->n = 4;
	c->prims = tb_xcalloc(4, sizeof *c->prims);
	c->prims[0] = (tb_prim){.kind = TB_PRIM_RECT, .x = 60, .y = 40, .w = 40, .h = 180,
	                        .fill = {31, 119, 180}};
	c->prims[1] = (tb_prim){.kind = TB_PRIM_LINE, .x = 50, .y = 60, .x2 = 460, .y2 = 60,
	                        .stroke = {200, 0, 0}, .stroke_w = 1.5, .dashed = true};
	c->prims[2] = (tb_prim){.kind = TB_PRIM_TEXT, .x = 460, .y = 55, .text = "Capacity 80 GB",
	                        .font_size = 9, .anchor = TB_ANCHOR_END};
	c->prims[3] = (tb_prim){.kind = TB_PRIM_TEXT, .x = 20, .y = 130, .text = "Memory per GPU",
	                        .font_size = 9, .anchor = TB_ANCHOR_MIDDLE, .rotate_deg = -90};
}

static void S_fixture(tb_block b[4], size_t nrows)
{
	memset(b, 0, 4 * sizeof *b);
	b[0].kind = TB_BLOCK_TABLE;
	S_fill_table(&b[0].table, nrows);
	b[1].kind = TB_BLOCK_CHART;
	S_fill_chart(&b[1].chart);
	b[2].kind = TB_BLOCK_TITLE;
	b[3].kind = TB_BLOCK_VERDICT;
}

static void S_fixture_free(tb_block b[4])
{
	S_free_table(&b[0].table);
	free(b[1].chart.prims);
}

static const char *const S_marks[4] = {"TABLE", "CHART", "TITLE", "VERDICT"};

Test(render_pdf, document_text_reads_back)
{
	tb_block b[4];
	S_fixture(b, 4);
	tb_report_meta m = S_meta("A 7B model on 64 H100s");
	tb_buf out;
	tb_buf_init(&out);
	tb_diags d;
	tb_diags_init(&d);
	cr_assert_eq(S_render_md(S_doc_md, &m, TB_PAPER_A4, b, S_marks, 4, &out, &d), 0);
	cr_assert_eq(d.errors, 0);
	cr_assert(out.len > 1000);
	cr_expect_eq(memcmp(out.ptr, "%PDF-", 5), 0);
	char *path = S_write(&out);
	char *text = S_cmd("pdftotext -layout", path, "- 2>/dev/null");
	/* the symbols the issue names, through the embedded fonts */
	cr_expect(strstr(text, "4.20 \xC3\x97 10\xC2\xB2\xC2\xB9 FLOP"), "%s", text);
	cr_expect(strstr(text, "\xE2\x89\x88 6ND"));
	cr_expect(strstr(text, "\xE2\x89\xA4 10 \xC2\xB5s"));
	cr_expect(strstr(text, "\xE2\x82\xAC" "1.2M"));
	/* numbered headings */
	cr_expect(strstr(text, "1 Compute"));
	cr_expect(strstr(text, "1.1 Operator count"));
	cr_expect(strstr(text, "2 Memory"));
	/* the title block and verdict box where the tree puts them, once */
	cr_expect(strstr(text, "A 7B model on 64 H100s"));
	cr_expect_eq(S_count(text, "Ada Lovelace"), 1);
	cr_expect_eq(S_count(text, "Meets the deadline only above 45% MFU."), 1);
	cr_expect(strstr(text, "CHECK"));
	cr_expect(strstr(text, "N/A") && strstr(text, "No deadline set: training takes 2.2 days."),
	          "%s", text);
	cr_expect(strstr(text, "YES") == NULL || strstr(text, "YES") < strstr(text, "CHECK"),
	          "only the GOOD line says YES");
	cr_expect_eq(S_count(text, "Per-GPU memory"), 1);
	/* the verdict's page stands alone: "1 Compute" opens page 2 */
	char *p2 = strchr(text, '\f');
	cr_assert_not_null(p2);
	cr_expect(strstr(text, "1 Compute") > p2);
	/* last page */
	cr_expect(strstr(text, "Capacity 80 GB"));
	cr_expect(strstr(text, "Requester"));
	cr_expect(strstr(text, "Approver"));
	cr_expect(strstr(text, m.command));
	cr_expect(strstr(text, m.sha256));
	/* footer on every page: version and the first 12 hex digits */
	char *pages = S_cmd("pdfinfo", path, "2>/dev/null | sed -n 's/^Pages: *//p'");
	size_t npages = strtoul(pages, NULL, 10);
	cr_expect_geq(npages, 2);
	char want[64];
	snprintf(want, sizeof want, "Page %zu of %zu", npages, npages);
	cr_expect(strstr(text, want));
	cr_expect_eq(S_count(text, "trainbudget 9.8.7 \xC2\xB7 inputs 0123456789ab"), npages);
	/* info dictionary */
	char *info = S_cmd("pdfinfo", path, "2>/dev/null");
	cr_expect(strstr(info, "A 7B model on 64 H100s"));
	cr_expect(strstr(info, "Creator:         trainbudget 9.8.7"));
	cr_expect(strstr(info, "Author:          Ada Lovelace"));
	cr_expect(strstr(info, "A4"));
	unlink(path);
	free(info);
	free(pages);
	free(text);
	free(path);
	tb_buf_release(&out);
	tb_diags_release(&d);
	S_fixture_free(b);
}

/* A template without {{title_block}} and {{verdict}} gets neither: the
 * template decides.  Its leading H1 is then the title, drawn unnumbered. */
Test(render_pdf, no_title_or_verdict_block_draws_neither)
{
	tb_report_meta m = S_meta("Running header only");
	tb_buf out;
	tb_buf_init(&out);
	tb_diags d;
	tb_diags_init(&d);
	const char *md = "# My own title\n\n## First\n\nText.\n";
	cr_assert_eq(S_render_md(md, &m, TB_PAPER_A4, NULL, NULL, 0, &out, &d), 0);
	char *path = S_write(&out);
	char *text = S_cmd("pdftotext -layout", path, "- 2>/dev/null");
	cr_expect(strstr(text, "My own title"), "%s", text);
	cr_expect(strstr(text, "1 My own title") == NULL, "%s", text);
	cr_expect(strstr(text, "1 First"), "%s", text);
	cr_expect(strstr(text, "Ada Lovelace") == NULL, "%s", text);
	cr_expect(strstr(text, "Meets the deadline") == NULL, "%s", text);
	unlink(path);
	free(text);
	free(path);
	tb_buf_release(&out);
	tb_diags_release(&d);
}

/* Quotes, lists and emphasis nested thousands deep render: the walks are
 * iterative, so no depth overflows the stack (a recursive walk did). */
Test(render_pdf, any_nesting_depth_renders)
{
	tb_report_meta m = S_meta("Deep");
	tb_buf md;
	tb_buf_init(&md);
	for (int i = 0; i < 20000; i++)
		tb_buf_puts(&md, "> ");
	tb_buf_puts(&md, "- - 1. *a **b deepest** c*\n");
	for (int i = 0; i < 5000; i++)
		tb_buf_puts(&md, "*a ");
	tb_buf_puts(&md, "inner");
	for (int i = 0; i < 5000; i++)
		tb_buf_puts(&md, "*");
	tb_buf_puts(&md, "\n");
	tb_buf out;
	tb_buf_init(&out);
	tb_diags d;
	tb_diags_init(&d);
	cr_assert_eq(S_render_md(md.ptr, &m, TB_PAPER_A4, NULL, NULL, 0, &out, &d), 0);
	cr_expect_eq(d.errors, 0);
	char *path = S_write(&out);
	char *text = S_cmd("pdftotext", path, "- 2>/dev/null");
	cr_expect(strstr(text, "deepest"), "%s", text);
	cr_expect(strstr(text, "inner"), "%s", text);
	unlink(path);
	free(text);
	free(path);
	tb_buf_release(&out);
	tb_buf_release(&md);
	tb_diags_release(&d);
}

Test(render_pdf, byte_identical_and_dated_from_the_report)
{
	tb_block b[4];
	S_fixture(b, 4);
	tb_report_meta m = S_meta("Same twice");
	tb_buf one, two;
	tb_buf_init(&one);
	tb_buf_init(&two);
	tb_diags d;
	tb_diags_init(&d);
	cr_assert_eq(S_render_md(S_doc_md, &m, TB_PAPER_A4, b, S_marks, 4, &one, &d), 0);
	sleep(1); /* a clock-dated document would differ now */
	cr_assert_eq(S_render_md(S_doc_md, &m, TB_PAPER_A4, b, S_marks, 4, &two, &d), 0);
	cr_assert_eq(one.len, two.len);
	cr_expect_eq(memcmp(one.ptr, two.ptr, one.len), 0);
	char *path = S_write(&one);
	char *info = S_cmd("pdfinfo -isodates", path, "2>/dev/null");
	cr_expect(strstr(info, "2025-03-14"), "%s", info);
	unlink(path);
	free(info);
	free(path);
	tb_buf_release(&one);
	tb_buf_release(&two);
	tb_diags_release(&d);
	S_fixture_free(b);
}

Test(render_pdf, fonts_embedded_and_only_those_used)
{
	tb_buf out;
	tb_buf_init(&out);
	tb_diags d;
	tb_diags_init(&d);
	tb_report_meta m = S_meta("Fonts");
	m.sha256 = ""; /* the reproducibility block then needs no monospace hash */
	m.command = "";
	const char *md = "## Plain\n\nNo code here.\n";
	cr_assert_eq(S_render_md(md, &m, TB_PAPER_A4, NULL, NULL, 0, &out, &d), 0);
	char *path = S_write(&out);
	char *fonts = S_cmd("pdffonts", path, "2>/dev/null | tail -n +3");
	cr_expect_eq(S_count(fonts, "\n"), 2, "%s", fonts);
	cr_expect_eq(S_count(fonts, " yes yes yes "), 2, "%s", fonts);
	cr_expect(strstr(fonts, "Mono") == NULL);
	unlink(path);
	free(fonts);
	free(path);
	tb_buf_release(&out);

	/* with code, the mono face joins, embedded too */
	tb_buf_init(&out);
	md = "## Code\n\nUse `x`.\n";
	cr_assert_eq(S_render_md(md, &m, TB_PAPER_A4, NULL, NULL, 0, &out, &d), 0);
	path = S_write(&out);
	fonts = S_cmd("pdffonts", path, "2>/dev/null | tail -n +3");
	cr_expect_eq(S_count(fonts, " yes yes yes "), 3, "%s", fonts);
	cr_expect(strstr(fonts, "DejaVuSansMono"));
	unlink(path);
	free(fonts);
	free(path);
	tb_buf_release(&out);
	tb_diags_release(&d);
}

Test(render_pdf, letter_paper)
{
	tb_buf out;
	tb_buf_init(&out);
	tb_diags d;
	tb_diags_init(&d);
	tb_report_meta m = S_meta("Letter");
	cr_assert_eq(S_render_md("Text.\n", &m, TB_PAPER_LETTER, NULL, NULL, 0, &out, &d), 0);
	char *path = S_write(&out);
	char *info = S_cmd("pdfinfo", path, "2>/dev/null");
	cr_expect(strstr(info, "612 x 792 pts (letter)"), "%s", info);
	unlink(path);
	free(info);
	free(path);
	tb_buf_release(&out);
	tb_diags_release(&d);
}

Test(render_pdf, missing_font_is_a_clear_error)
{
	cmark_node *root = cmark_parse_document("Text.\n", 6, CMARK_OPT_DEFAULT);
	tb_report_meta m = S_meta("No fonts");
	tb_pdf_options opt = { .paper = TB_PAPER_A4, .font_dir = "/nonexistent/fonts" };
	tb_buf out;
	tb_buf_init(&out);
	tb_diags d;
	tb_diags_init(&d);
	cr_expect_eq(tb_render_pdf_tree(root, &m, S_lookup, &opt, &out, &d), -1);
	cr_expect_eq(out.len, 0);
	cr_assert_geq(d.errors, 1);
	cr_expect_str_eq(d.items[0].file, "/nonexistent/fonts/DejaVuSans.ttf");
	cr_expect(strstr(d.items[0].msg, "fonts-dejavu-core"), "%s", d.items[0].msg);
	cmark_node_free(root);
	tb_buf_release(&out);
	tb_diags_release(&d);
}

/* Renders `md` with meta `m` and the given fallback fonts. */
static int S_render_fb(const char *md, const tb_report_meta *m, const char *const *fallbacks,
                       tb_buf *out, tb_diags *d)
{
	cmark_node *root = cmark_parse_document(md, strlen(md), CMARK_OPT_DEFAULT);
	static tb_block title = {.kind = TB_BLOCK_TITLE};
	S_splice(root, "TITLE", &title);
	tb_pdf_options opt = { .paper = TB_PAPER_A4, .fallback_fonts = fallbacks };
	int rc = tb_render_pdf_tree(root, m, S_lookup, &opt, out, d);
	cmark_node_free(root);
	return rc;
}

#define S_DROID "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf"
#define S_SYMBOLA "/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf"

/* Chinese, Japanese, Hebrew, Arabic and an emoji in the title, the author
 * and the body: each drawn (the fallback fonts embedded), read back by
 * poppler without a warning, and the right-to-left text in its order. */
Test(render_pdf, other_scripts_drawn_with_fallback_fonts)
{
	if (access(S_DROID, R_OK) != 0 || access(S_SYMBOLA, R_OK) != 0)
		cr_skip_test("fonts-droid-fallback and fonts-symbola are not installed (.ci/deps test)");
	const char *const fb[] = {S_DROID, S_SYMBOLA, NULL};
	tb_report_meta m = S_meta("\xE8\xAE\xAD\xE7\xBB\x83\xE9\xA2\x84\xE7\xAE\x97 " /* 训练预算 */
	                          "\xF0\x9F\x9A\x80");                                /* rocket */
	m.author = "\xE5\xB1\xB1\xE7\x94\xB0\xE5\xA4\xAA\xE9\x83\x8E";              /* 山田太郎 */
	const char *md = "TITLE\n\n## Scripts\n\n"
	                 "Hebrew \xD7\xA9\xD7\x9C\xD7\x95\xD7\x9D and Arabic "      /* שלום */
	                 "\xD9\x85\xD8\xB1\xD8\xAD\xD8\xA8\xD8\xA7 end.\n";        /* مرحبا */
	tb_buf out;
	tb_buf_init(&out);
	tb_diags d;
	tb_diags_init(&d);
	cr_assert_eq(S_render_fb(md, &m, fb, &out, &d), 0, "%s", d.n ? d.items[0].msg : "");
	char *path = S_write(&out);
	char *text = S_cmd("pdftotext", path, "- 2>&1");
	cr_expect(strstr(text, "\xE8\xAE\xAD\xE7\xBB\x83\xE9\xA2\x84\xE7\xAE\x97 \xF0\x9F\x9A\x80"), "%s", text);
	cr_expect(strstr(text, "\xE5\xB1\xB1\xE7\x94\xB0\xE5\xA4\xAA\xE9\x83\x8E"), "%s", text);
	cr_expect(strstr(text, "\xD7\xA9\xD7\x9C\xD7\x95\xD7\x9D"), "%s", text);
	cr_expect(strstr(text, "\xD9\x85\xD8\xB1\xD8\xAD\xD8\xA8\xD8\xA7"), "%s", text);
	cr_expect(strstr(text, "Warning") == NULL && strstr(text, "Error") == NULL, "%s", text);
	char *fonts = S_cmd("pdffonts", path, "2>&1");
	cr_expect(strstr(fonts, "DroidSansFallback"), "%s", fonts);
	cr_expect(strstr(fonts, "Symbola"), "%s", fonts);
	/* Hebrew drawn right to left: -bbox lists a word's glyphs in the order
	 * they were drawn, so shalom comes out as final mem first */
	char *bbox = S_cmd("pdftotext -bbox", path, "- 2>/dev/null");
	cr_expect(strstr(bbox, ">\xD7\x9D\xD7\x95\xD7\x9C\xD7\xA9</word>") != NULL, "%s", bbox);
	unlink(path);
	free(bbox);
	free(fonts);
	free(text);
	free(path);
	tb_buf_release(&out);
	tb_diags_release(&d);
}

/* Without a font for them, CJK text and an emoji are refused by name,
 * never drawn blank; no PDF comes out.  A title made only of such
 * characters would otherwise print as nothing. */
Test(render_pdf, characters_no_font_draws_are_refused)
{
	const char *const none[] = {NULL};
	const char *titles[] = {"\xE4\xB8\xAD\xE6\x96\x87", "\xF0\x9F\x9A\x80"};
	const char *want[] = {"U+4E2D", "U+1F680"};
	const char *pkg[] = {"fonts-droid-fallback", "fonts-symbola"};
	/* the text around it: ideographs are measured one by one (a line may
	 * break between any two), so the first is what is quoted */
	const char *quoted[] = {"\"\xE4\xB8\xAD\"", "\"\xF0\x9F\x9A\x80\""};
	for (int i = 0; i < 2; i++) {
		tb_report_meta m = S_meta(titles[i]);
		tb_buf out;
		tb_buf_init(&out);
		tb_diags d;
		tb_diags_init(&d);
		cr_expect_eq(S_render_fb("TITLE\n\nText.\n", &m, none, &out, &d), -1);
		cr_expect_eq(out.len, 0);
		cr_assert_geq(d.errors, 1);
		cr_expect(strstr(d.items[0].msg, want[i]), "%s", d.items[0].msg);
		cr_expect(strstr(d.items[0].msg, pkg[i]), "%s", d.items[0].msg);
		cr_expect(strstr(d.items[0].msg, quoted[i]), "%s", d.items[0].msg);
		tb_buf_release(&out);
		tb_diags_release(&d);
	}
	/* an author in a script no font has is refused too, from the info line */
	tb_report_meta m = S_meta("Plain");
	m.author = "\xE4\xB8\xAD";
	tb_buf out;
	tb_buf_init(&out);
	tb_diags d;
	tb_diags_init(&d);
	cmark_node *root = cmark_parse_document("T\n", 2, CMARK_OPT_DEFAULT);
	tb_block b = {.kind = TB_BLOCK_TITLE};
	S_splice(root, "T", &b);
	tb_pdf_options opt = { .paper = TB_PAPER_A4, .fallback_fonts = none };
	cr_expect_eq(tb_render_pdf_tree(root, &m, S_lookup, &opt, &out, &d), -1);
	cr_expect(d.errors >= 1 && strstr(d.items[0].msg, "U+4E2D"));
	cmark_node_free(root);
	tb_buf_release(&out);
	tb_diags_release(&d);
}

/* The ToUnicode map is bfchar/bfrange (libharu wrote a CID-range map
 * poppler warns about): poppler reads the whole document without a word
 * on stderr, and the text comes back. */
Test(render_pdf, poppler_reads_without_warnings)
{
	tb_block b[4];
	S_fixture(b, 4);
	tb_report_meta m = S_meta("Warnings \xE2\x89\x88 none");
	tb_buf out;
	tb_buf_init(&out);
	tb_diags d;
	tb_diags_init(&d);
	cr_assert_eq(S_render_md(S_doc_md, &m, TB_PAPER_A4, b, S_marks, 4, &out, &d), 0);
	char *path = S_write(&out);
	char *fonts_err = S_cmd("pdffonts", path, "2>&1 >/dev/null");
	cr_expect_str_eq(fonts_err, "");
	char *text_err = S_cmd("pdftotext", path, "/dev/null 2>&1");
	cr_expect_str_eq(text_err, "");
	unlink(path);
	free(fonts_err);
	free(text_err);
	free(path);
	tb_buf_release(&out);
	tb_diags_release(&d);
	S_fixture_free(b);
}

/* Every word pdftotext finds lies inside the page's margins (54 pt on A4). */
Test(render_pdf, long_table_repeats_header_and_stays_in_margins)
{
	tb_block b[4];
	S_fixture(b, 150);
	tb_report_meta m = S_meta("A title that is long enough to wrap onto a second line on the "
	                          "first page and to be cut short in the running header of the "
	                          "following pages of the document");
	tb_buf out;
	tb_buf_init(&out);
	tb_diags d;
	tb_diags_init(&d);
	cr_assert_eq(S_render_md("## Big\n\nTABLE\n", &m, TB_PAPER_A4, b, S_marks, 1, &out, &d), 0);
	char *path = S_write(&out);
	char *text = S_cmd("pdftotext -layout", path, "- 2>/dev/null");
	char *pages = S_cmd("pdfinfo", path, "2>/dev/null | sed -n 's/^Pages: *//p'");
	size_t npages = strtoul(pages, NULL, 10);
	cr_assert_geq(npages, 4); /* 150 rows + the sign-off page */
	/* the header row ("Item ... Note ... Bytes") on every page the table
	 * touches: all but the sign-off page */
	cr_expect_eq(S_count(text, "Bytes"), npages - 1, "%s", text);
	cr_expect(strstr(text, "row149"));
	/* the running header is cut with an ellipsis */
	cr_expect(strstr(text, "\xE2\x80\xA6"));
	char *bbox = S_cmd("pdftotext -bbox", path, "- 2>/dev/null");
	size_t words = 0;
	for (const char *p = strstr(bbox, "<word xMin=\""); p; p = strstr(p + 1, "<word xMin=\"")) {
		double x0, y0, x1, y1;
		cr_assert_eq(sscanf(p, "<word xMin=\"%lf\" yMin=\"%lf\" xMax=\"%lf\" yMax=\"%lf\"",
		                    &x0, &y0, &x1, &y1), 4);
		cr_expect_geq(x0, 53.5, "word at x %g", x0);
		cr_expect_leq(x1, 595.276 - 53.5, "word ends at x %g: %.60s", x1, p);
		cr_expect_geq(y0, 20);
		cr_expect_leq(y1, 841.89 - 20);
		words++;
	}
	cr_expect_gt(words, 400);
	unlink(path);
	free(bbox);
	free(pages);
	free(text);
	free(path);
	tb_buf_release(&out);
	tb_diags_release(&d);
	S_fixture_free(b);
}

/* The file's SHA-256 from its writer (tb_pdf_options.sha256_hex, which
 * continues the /ID's hash over the trailer) is the digest of the bytes
 * written, into an empty buffer (moved there) and after others (appended:
 * the file's own bytes); the /ID is the first half of the hash of the
 * file up to the cross-reference stream. */
Test(render_pdf, the_writers_hash_is_the_files)
{
	tb_diags d;
	tb_diags_init(&d);
	tb_scenario *sc = tb_scenario_load_file("docs/examples/default-7b.yaml", NULL, 0, &d);
	cr_assert_not_null(sc);
	tb_budget b;
	tb_budget_compute(&sc->inputs, &b);
	tb_report_options o;
	memset(&o, 0, sizeof o);
	o.date = "2026-01-02";
	tb_report *r = tb_report_new(sc, &b, &o, &d);
	cr_assert_not_null(r);
	char hex[65] = "", want[65];
	tb_pdf_options po = { .paper = TB_PAPER_A4, .sha256_hex = hex };
	tb_buf out;
	tb_buf_init(&out);
	cr_assert_eq(tb_render_pdf(r, &po, &out, &d), 0);
	tb_sha256_hex(out.ptr, out.len, want);
	cr_expect_str_eq(hex, want);
	cr_assert_gt(out.len, 64);
	/* the tail follows the xref stream's binary data, which may hold a
	 * NUL: searched byte by byte, not with strstr */
	const char *xref = NULL;
	for (size_t i = out.len - 10; i > out.len - 64 && !xref; i--)
		if (memcmp(out.ptr + i, "startxref\n", 10) == 0)
			xref = out.ptr + i;
	cr_assert_not_null(xref);
	size_t at = (size_t)strtoull(xref + 10, NULL, 10);
	char prefix[65], id[96];
	tb_sha256_hex(out.ptr, at, prefix);
	prefix[32] = '\0';
	snprintf(id, sizeof id, "/ID [<%s>", prefix);
	cr_expect(strstr(out.ptr + at, id) != NULL, "%s", id);

	tb_buf more;
	tb_buf_init(&more);
	tb_buf_puts(&more, "before ");
	char again[65] = "";
	po.sha256_hex = again;
	cr_assert_eq(tb_render_pdf(r, &po, &more, &d), 0);
	cr_expect_eq(more.len, out.len + 7);
	cr_expect(memcmp(more.ptr + 7, out.ptr, out.len) == 0, "the same file after the bytes there");
	cr_expect_str_eq(again, want);
	tb_buf_release(&more);
	tb_buf_release(&out);
	tb_report_free(r);
	tb_scenario_free(sc);
	tb_diags_release(&d);
}

/* Through the real report model: the default example, a hostile title
 * printed literally, sections numbered in template order, every table and
 * chart reaching the page. */
Test(render_pdf, default_report_end_to_end)
{
	tb_diags d;
	tb_diags_init(&d);
	tb_scenario *sc = tb_scenario_load_file("docs/examples/default-7b.yaml", NULL, 0, &d);
	cr_assert_not_null(sc);
	free(sc->title);
	sc->title = tb_xstrdup("<b>x</b> **not bold** \xE2\x82\xAC");
	tb_budget b;
	tb_budget_compute(&sc->inputs, &b);
	tb_report_options o;
	memset(&o, 0, sizeof o);
	o.date = "2026-01-02";
	o.command = "trainbudget report docs/examples/default-7b.yaml";
	tb_report *r = tb_report_new(sc, &b, &o, &d);
	cr_assert_not_null(r);
	tb_pdf_options po = { .paper = TB_PAPER_A4 };
	tb_buf out;
	tb_buf_init(&out);
	cr_assert_eq(tb_render_pdf(r, &po, &out, &d), 0);
	char *path = S_write(&out);
	char *text = S_cmd("pdftotext -layout", path, "- 2>/dev/null");
	cr_expect(strstr(text, "<b>x</b> **not bold** \xE2\x82\xAC"), "%s", text);
	cr_expect(strstr(text, "Requester"));
	/* the inputs digest on the first page, in Appendix B's table of
	 * inputs and on the sign-off page, and the scenario file's own hash
	 * among the inputs listed with it */
	const tb_report_meta *rm = tb_report_get_meta(r);
	cr_expect_eq(strlen(rm->sha256), 64);
	cr_expect_str_eq(rm->sha256, sc->signoff.digest, "the default template adds nothing");
	cr_expect_eq(S_count(text, rm->sha256), 3, "%s", text);
	cr_expect(strstr(text, sc->sha256));
	cr_expect(strstr(text, "Scenario default-7b.yaml") == NULL, "the path as given, not its base name");
	cr_expect(strstr(text, "Scenario docs/examples/default-7b.yaml"));
	/* the ZeRO chart's stages, drawn from the chart model */
	cr_expect(strstr(text, "ZeRO-3"));
	/* the title block, verdict and key figures once each: the box, not
	 * the tables that stand in for it in Markdown and HTML */
	cr_expect_eq(S_count(text, "Author: trainbudget examples"), 1, "%s", text);
	cr_expect_eq(S_count(text, "Key figure"), 1, "%s", text);
	cr_expect_eq(S_count(text, "Meets the deadline"), 1, "%s", text);
	cr_expect(strstr(text, "Outcome") == NULL, "%s", text);
	/* the outline: a bookmark per top-level section, titled as printed */
	char *outline = S_cmd("qpdf --json --json-key=outlines", path, "2>/dev/null");
	cr_expect(strstr(outline, "\"title\": \"1 Verdict\""), "%s", outline);
	cr_expect(strstr(outline, "\"title\": \"Sign-off\""), "%s", outline);
	unlink(path);
	free(outline);
	free(text);
	free(path);
	tb_buf_release(&out);
	tb_report_free(r);
	tb_scenario_free(sc);
	tb_diags_release(&d);
}

/* tb_pdfw_num formats thousandths by hand; it must print what "%.3f"
 * stripped of trailing zeros prints (the PDF's bytes, hence every
 * signed document's hash, rest on it), halves included; beyond +-1e9 (no
 * page is that large) it prints the bound. */
static void S_num_ref(char *out, size_t cap, double v)
{
	if (!isfinite(v))
		v = 0;
	if (fabs(v) > 1e9)
		v = v < 0 ? -1e9 : 1e9;
	snprintf(out, cap, "%.3f", v);
	size_t n = strlen(out);
	while (n > 0 && out[n - 1] == '0')
		n--;
	if (n > 0 && out[n - 1] == '.')
		n--;
	out[n] = '\0';
	if (strcmp(out, "-0") == 0)
		strcpy(out, "0");
}

Test(render_pdf, numbers_as_printf_prints_them)
{
	static const double edge[] = {
		0, -0.0, 5, -5, 0.5, 0.0005, -0.0005, 0.0015, 0.0025, 1.0005, 2.5e-4, -2.5e-4,
		0.1, 0.2, 0.3, 595.276, 841.89, 1e-9, -1e-9, 999.9995, 123456.7895, 1e9 + 0.0005,
		1e12, -1e12, 1e13, 4e15, 1e300, -1e300, NAN, INFINITY, -INFINITY, 72.0 / 25.4,
	};
	char want[400];
	tb_buf got;
	tb_buf_init(&got);
	for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
		tb_buf_truncate(&got, 0);
		tb_pdfw_num(&got, edge[i]);
		S_num_ref(want, sizeof want, edge[i]);
		cr_expect_str_eq(got.ptr, want, "%.17g: %s instead of %s", edge[i], got.ptr, want);
	}
	/* a million values of every magnitude a page uses, and thousandths
	 * exactly on and beside their halves */
	uint64_t x = 88172645463325252ULL;
	for (int i = 0; i < 1000000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		double v;
		switch (i % 3) {
		case 0: v = ldexp((double)(x >> 11), -53) * 2000 - 1000; break;
		case 1: v = ((double)(int64_t)(x % 2000001) - 1000000) / 2000.0; break;
		default: v = ldexp((double)(x >> 11), -53) * pow(10, (double)(x % 15)) - 3; break;
		}
		tb_buf_truncate(&got, 0);
		tb_pdfw_num(&got, v);
		S_num_ref(want, sizeof want, v);
		if (strcmp(got.ptr, want) != 0) {
			cr_expect_str_eq(got.ptr, want, "%.17g", v);
			break;
		}
	}
	tb_buf_release(&got);
}

static void *S_help(void *h)
{
	tb_pdf_helper_work(h);
	return NULL;
}

/* The report's PDF is the same file whether another thread helped
 * deflate its pages or not; and a document that fails lets the helping
 * thread go. */
Test(render_pdf, a_helper_thread_changes_no_byte)
{
	/* enough paragraphs for several pages */
	tb_buf md;
	tb_buf_init(&md);
	tb_buf_puts(&md, "# Title\n\n");
	for (int i = 0; i < 150; i++)
		tb_buf_printf(&md, "Paragraph %d of a document long enough to fill several pages.\n\n", i);
	cmark_node *root = cmark_parse_document(md.ptr, md.len, CMARK_OPT_DEFAULT);
	tb_buf_release(&md);
	tb_report_meta m = S_meta("Helper");
	tb_buf alone, helped;
	tb_buf_init(&alone);
	tb_buf_init(&helped);
	tb_diags d;
	tb_diags_init(&d);
	tb_pdf_options opt = { .paper = TB_PAPER_A4 };
	cr_assert_eq(tb_render_pdf_tree(root, &m, S_lookup, &opt, &alone, &d), 0);
	opt.helper = tb_pdf_helper_new();
	pthread_t th;
	cr_assert_eq(pthread_create(&th, NULL, S_help, opt.helper), 0);
	cr_assert_eq(tb_render_pdf_tree(root, &m, S_lookup, &opt, &helped, &d), 0);
	pthread_join(th, NULL);
	tb_pdf_helper_free(opt.helper);
	cr_assert_eq(alone.len, helped.len);
	cr_expect_eq(memcmp(alone.ptr, helped.ptr, alone.len), 0);
	char *path = S_write(&alone);
	char *info = S_cmd("pdfinfo", path, "2>/dev/null");
	const char *pages = strstr(info, "Pages:");
	cr_expect(pages && atoi(pages + 6) >= 3, "several pages: %s", info);
	/* each page's contents two streams, its body (deflated while the
	 * next page was laid out) and its header and footer */
	char *two = S_cmd("qpdf --object-streams=disable", path,
	                  "- 2>/dev/null | grep -ao '/Contents \\[ [0-9]* 0 R [0-9]* 0 R \\]' | wc -l");
	cr_expect(pages && atoi(two) == atoi(pages + 6), "every page: %s of %s", two, info);
	free(two);
	unlink(path);
	free(path);
	free(info);

	tb_pdf_options bad = { .paper = TB_PAPER_A4, .font_dir = "/nonexistent/fonts",
	                       .helper = tb_pdf_helper_new() };
	cr_assert_eq(pthread_create(&th, NULL, S_help, bad.helper), 0);
	tb_buf none;
	tb_buf_init(&none);
	cr_expect_eq(tb_render_pdf_tree(root, &m, S_lookup, &bad, &none, &d), -1);
	pthread_join(th, NULL);
	tb_pdf_helper_free(bad.helper);
	cmark_node_free(root);
	tb_buf_release(&alone);
	tb_buf_release(&helped);
	tb_buf_release(&none);
	tb_diags_release(&d);
}
