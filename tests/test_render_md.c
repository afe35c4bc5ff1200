/* test_render_md.c: GFM Markdown from the report model. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/budget.h"
#include "trainbudget/render.h"
#include "trainbudget/report.h"
#include "trainbudget/scenario.h"

static const char S_hostile[] = "<script>alert(1)</script> **x** [l](javascript:alert(2))";

/* The default example with its title replaced, rendered with `tpl`. */
static char *S_md(const char *title, const char *tpl, const char *prefix)
{
	tb_diags d;
	tb_diags_init(&d);
	tb_scenario *sc = tb_scenario_load_file("docs/examples/default-7b.yaml", NULL, 0, &d);
	cr_assert_not_null(sc);
	if (title) {
		free(sc->title);
		sc->title = strdup(title);
	}
	tb_budget b;
	tb_budget_compute(&sc->inputs, &b);
	tb_report_options o;
	memset(&o, 0, sizeof o);
	o.date = "2026-01-02";
	if (tpl) {
		o.template_text = tpl;
		o.template_len = strlen(tpl);
	}
	tb_report *r = tb_report_new(sc, &b, &o, &d);
	cr_assert_not_null(r);
	char *md = tb_render_md(r, prefix);
	tb_report_free(r);
	tb_scenario_free(sc);
	tb_diags_release(&d);
	return md;
}

/* What a Markdown reader makes of it. */
static char *S_to_html(const char *md)
{
	cmark_node *doc = cmark_parse_document(md, strlen(md), CMARK_OPT_DEFAULT);
	char *h = cmark_render_html(doc, CMARK_OPT_DEFAULT);
	char *out = strdup(h);
	free(h);
	cmark_node_free(doc);
	return out;
}

Test(render_md, hostile_title_comes_out_literally)
{
	char *md = S_md(S_hostile, "# {{scenario.title}}\n\nAbout {{scenario.title}}.\n", "x-");
	char *h = S_to_html(md);
	cr_assert(strstr(h, "<script") == NULL, "%s", h);
	cr_assert(strstr(h, "<strong>") == NULL, "%s", h);
	cr_assert(strstr(h, "<a ") == NULL, "%s", h);
	cr_assert(strstr(h, "<h1>&lt;script&gt;alert(1)&lt;/script&gt; **x** [l](javascript:alert(2))</h1>") != NULL, "%s", h);
	free(h);
	free(md);
}

Test(render_md, tables_are_gfm_pipe_tables_with_numbers_right_aligned)
{
	char *md = S_md(NULL, "{{table parameters}}\n", "x-");
	const char *head = "| Component | Parameters | Exact | Share |\n| --- | ---: | ---: | ---: |\n";
	cr_assert(strncmp(md, head, strlen(head)) == 0, "%s", md);
	cr_assert(strstr(md, "| Total | 6.74B | 6,738,415,616 | 100% |\n") != NULL, "%s", md);
	free(md);
}

Test(render_md, pipes_and_newlines_in_cells_are_escaped)
{
	/* a scenario title reaches a table through the plans' labels only
	 * indirectly; the escaping is the same for every cell, so check it on
	 * a title rendered in a table-free paragraph and a key-figure table */
	char *md = S_md("a|b\nc", "{{scenario.title}}\n\n{{table key_figures}}\n", "x-");
	cr_assert(strstr(md, "a|b") != NULL, "%s", md);
	free(md);
	md = S_md(NULL, "{{table verdict}}\n", "x-");
	/* a dollar amount in a cell is escaped so no math renderer takes it */
	cr_assert(strstr(md, "\\$") != NULL, "%s", md);
	char *h = S_to_html(md);
	cr_assert(strstr(h, "\\$") == NULL, "%s", h);
	free(h);
	free(md);
}

Test(render_md, charts_are_relative_image_links)
{
	char *md = S_md(NULL, "{{chart zero}}\n\n{{chart gpu-scan}}\n", "my run-");
	cr_assert(strstr(md, "](my%20run-zero.svg)") != NULL, "%s", md);
	cr_assert(strstr(md, "](my%20run-gpu-scan.svg)") != NULL, "%s", md);
	cr_assert(strstr(md, "![") != NULL);
	free(md);
}

Test(render_md, derivations_are_fenced_code)
{
	char *md = S_md(NULL, "{{derivation flops.total_6nd}}\n", "x-");
	cr_assert(strstr(md, "```text\nC = 6 * N * D\n") != NULL, "%s", md);
	cr_assert(strstr(md, "4.04 × 10²¹ FLOP\n") != NULL, "%s", md);
	free(md);
}

Test(render_md, same_report_same_bytes)
{
	char *a = S_md(NULL, NULL, "x-");
	char *b = S_md(NULL, NULL, "x-");
	cr_assert_str_eq(a, b);
	cr_assert(strstr(a, " nan") == NULL && strstr(a, " inf") == NULL && strstr(a, "NaN") == NULL);
	free(a);
	free(b);
}
