/* test_render_html.c: the self-contained HTML page. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/budget.h"
#include "trainbudget/render.h"
#include "trainbudget/report.h"
#include "trainbudget/scenario.h"

static char *S_html(const char *path, const char *title, const char *tpl)
{
	tb_diags d;
	tb_diags_init(&d);
	tb_scenario *sc = tb_scenario_load_file(path, NULL, 0, &d);
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
	char *h = tb_render_html(r);
	tb_report_free(r);
	tb_scenario_free(sc);
	tb_diags_release(&d);
	return h;
}

Test(render_html, one_self_contained_page)
{
	char *h = S_html("docs/examples/default-7b.yaml", NULL, NULL);
	cr_assert(strncmp(h, "<!doctype html>\n", 16) == 0);
	cr_assert(strstr(h, "<meta charset=\"utf-8\">") != NULL);
	cr_assert(strstr(h, "<style>") != NULL);
	cr_assert(strstr(h, "@media print") != NULL);
	/* nothing fetched from elsewhere */
	cr_assert(strstr(h, "<link") == NULL && strstr(h, "src=\"http") == NULL);
	cr_assert(strstr(h, "<script") == NULL);
	/* four inline charts, no XML prolog inside the page */
	size_t n = 0;
	for (const char *p = h; (p = strstr(p, "<svg")) != NULL; p++)
		n++;
	cr_assert_eq(n, 4);
	cr_assert(strstr(h, "<?xml") == NULL);
	cr_assert(strstr(h, "</html>\n") != NULL);
	free(h);
}

Test(render_html, hostile_title_is_escaped_everywhere)
{
	const char *t = "<script>alert(1)</script> **x** [l](javascript:alert(2))";
	char *h = S_html("docs/examples/default-7b.yaml", t, "# {{scenario.title}}\n\n{{table key_figures}}\n");
	cr_assert(strstr(h, "<script") == NULL, "%s", h);
	cr_assert(strstr(h, "javascript:alert(2)") != NULL);
	cr_assert(strstr(h, "href") == NULL, "%s", h);
	cr_assert(strstr(h, "<title>&lt;script&gt;alert(1)&lt;/script&gt; **x** [l](javascript:alert(2))</title>") != NULL, "%s", h);
	cr_assert(strstr(h, "<h1>&lt;script&gt;alert(1)&lt;/script&gt; **x** [l](javascript:alert(2))</h1>") != NULL, "%s", h);
	free(h);
}

Test(render_html, numeric_columns_are_right_aligned)
{
	char *h = S_html("docs/examples/default-7b.yaml", NULL, "{{table parameters}}\n");
	cr_assert(strstr(h, "<th>Component</th><th class=\"num\">Parameters</th>") != NULL, "%s", h);
	cr_assert(strstr(h, "<td>Total</td><td class=\"num\">6.74B</td><td class=\"num\">6,738,415,616</td>") != NULL, "%s", h);
	free(h);
}

Test(render_html, derivations_in_pre)
{
	char *h = S_html("docs/examples/default-7b.yaml", NULL, "{{derivation flops.total_6nd}}\n");
	cr_assert(strstr(h, "<pre>C = 6 * N * D\n") != NULL, "%s", h);
	free(h);
}

Test(render_html, raw_html_in_a_template_is_not_passed_through)
{
	char *h = S_html("docs/examples/default-7b.yaml", NULL, "<script>x()</script>\n\nText <b>bold</b>\n");
	cr_assert(strstr(h, "<script>x()") == NULL, "%s", h);
	cr_assert(strstr(h, "<b>bold") == NULL, "%s", h);
	free(h);
}

Test(render_html, same_report_same_bytes)
{
	char *a = S_html("docs/examples/mixtral-8x7b.yaml", NULL, NULL);
	char *b = S_html("docs/examples/mixtral-8x7b.yaml", NULL, NULL);
	cr_assert_str_eq(a, b);
	cr_assert(strstr(a, "NaN") == NULL && strstr(a, ">nan") == NULL && strstr(a, ">inf") == NULL);
	free(a);
	free(b);
}
