/* render_html.c: one self-contained HTML page.
 *
 * The body is cmark_render_html in its default, safe mode (raw HTML in a
 * template is dropped); our custom blocks carry their own HTML, built here
 * with every piece of text escaped.  Charts are inlined from tb_render_svg.
 * Nothing depends on the clock or on addresses: the same report gives the
 * same bytes. */
#include "trainbudget/render.h"

#include <stdlib.h>
#include <string.h>

#include "template.h"
#include "trainbudget/version.h"
#include "trainbudget/xalloc.h"

static const char S_css[] =
	":root{--fg:#1b1f24;--muted:#57606a;--rule:#d0d7de;--head:#24292f;"
	"--good:#1a7f37;--warn:#9a6700;--bad:#cf222e;--code:#f6f8fa}\n"
	"*{box-sizing:border-box}\n"
	"body{margin:0;color:var(--fg);background:#fff;"
	"font:16px/1.55 system-ui,-apple-system,\"Segoe UI\",Roboto,\"DejaVu Sans\",sans-serif}\n"
	"main{max-width:72rem;margin:0 auto;padding:2rem 1.5rem 4rem}\n"
	"h1{font-size:2rem;line-height:1.2;margin:0 0 .6rem}\n"
	"h2{font-size:1.4rem;margin:2.4rem 0 .7rem;padding-bottom:.25rem;"
	"border-bottom:1px solid var(--rule)}\n"
	"h3{font-size:1.12rem;margin:1.6rem 0 .5rem}\n"
	"p,li{max-width:48rem}\n"
	"a{color:#0969da}\n"
	".table-wrap{overflow-x:auto;margin:.8rem 0 1.4rem}\n"
	"table{border-collapse:collapse;font-size:.92rem;"
	"font-variant-numeric:tabular-nums}\n"
	"caption{caption-side:top;text-align:left;color:var(--muted);"
	"font-size:.85rem;padding-bottom:.3rem}\n"
	"th,td{padding:.32rem .7rem;border-bottom:1px solid var(--rule);"
	"text-align:left;vertical-align:top}\n"
	"th{border-bottom:2px solid #8c959f;font-weight:600;color:var(--head)}\n"
	"th.num,td.num{text-align:right;white-space:nowrap}\n"
	"td:first-child{min-width:12rem}\n"
	"tbody tr:nth-child(even){background:#f6f8fa}\n"
	"td.good{color:var(--good);font-weight:700}\n"
	"td.warn{color:var(--warn);font-weight:700}\n"
	"td.bad{color:var(--bad);font-weight:700}\n"
	"td.na{color:#57606a;font-weight:700}\n"
	"code,pre{font-family:\"DejaVu Sans Mono\",Menlo,Consolas,monospace;font-size:.88em}\n"
	"code{background:var(--code);padding:.1em .3em;border-radius:3px;word-break:break-all}\n"
	"pre{background:var(--code);border:1px solid var(--rule);border-radius:6px;"
	"padding:.8rem 1rem;overflow-x:auto;white-space:pre-wrap;word-break:break-word;"
	"line-height:1.45}\n"
	"pre code{background:none;padding:0;word-break:normal}\n"
	"figure.chart{margin:1rem 0 1.6rem}\n"
	"figure.chart svg{display:block;max-width:100%;height:auto}\n"
	"figcaption{color:var(--muted);font-size:.88rem;margin-top:.35rem}\n"
	".deriv{margin:1rem 0 1.4rem}\n"
	".deriv .title{font-weight:600;margin:0 0 .3rem}\n"
	".deriv ul{margin:.3rem 0;padding-left:1.4rem;font-size:.92rem}\n"
	".deriv .source{color:var(--muted);font-size:.88rem;margin:.3rem 0 0}\n"
	"@media print{body{font-size:10.5pt}main{max-width:none;padding:0}"
	"h2{break-after:avoid}table,figure,.deriv,pre{break-inside:avoid}"
	"tbody tr:nth-child(even){background:none}a{color:inherit}"
	".table-wrap{overflow:visible}}\n";

static void S_esc(tb_buf *o, const char *s)
{
	tb_buf clean;
	tb_buf_init(&clean);
	tb_template_put_utf8(&clean, s ? s : "", s ? strlen(s) : 0);
	for (const char *p = clean.ptr;;) {
		/* what needs no escape, most of it, as one copy */
		size_t n = strcspn(p, "&<>\"'");
		tb_buf_put(o, p, n);
		p += n;
		if (!*p)
			break;
		switch (*p++) {
		case '&': tb_buf_puts(o, "&amp;"); break;
		case '<': tb_buf_puts(o, "&lt;"); break;
		case '>': tb_buf_puts(o, "&gt;"); break;
		case '"': tb_buf_puts(o, "&quot;"); break;
		default: tb_buf_puts(o, "&#39;"); break;
		}
	}
	tb_buf_release(&clean);
}

static const char *S_outcome_class(const char *s)
{
	if (strcmp(s, "GOOD") == 0)
		return "good";
	if (strcmp(s, "WARN") == 0)
		return "warn";
	if (strcmp(s, "BAD") == 0)
		return "bad";
	if (strcmp(s, "N/A") == 0)
		return "na";
	return NULL;
}

static void S_html_table(tb_buf *o, const tb_table *t)
{
	if (t->ncols == 0 || t->nrows == 0)
		return;
	tb_buf_puts(o, "<div class=\"table-wrap\"><table>");
	if (t->caption && *t->caption) {
		tb_buf_puts(o, "<caption>");
		S_esc(o, t->caption);
		tb_buf_puts(o, "</caption>");
	}
	tb_buf_puts(o, "\n<thead><tr>");
	for (size_t c = 0; c < t->ncols; c++) {
		tb_buf_puts(o, t->numeric[c] ? "<th class=\"num\">" : "<th>");
		S_esc(o, t->cells[c]);
		tb_buf_puts(o, "</th>");
	}
	tb_buf_puts(o, "</tr></thead>\n<tbody>\n");
	for (size_t r = 1; r < t->nrows; r++) {
		tb_buf_puts(o, "<tr>");
		for (size_t c = 0; c < t->ncols; c++) {
			const char *cell = t->cells[r * t->ncols + c];
			const char *cls = NULL;
			if (strcmp(t->cells[c], "Outcome") == 0)
				cls = S_outcome_class(cell ? cell : "");
			if (cls)
				tb_buf_printf(o, "<td class=\"%s\">", cls);
			else
				tb_buf_puts(o, t->numeric[c] ? "<td class=\"num\">" : "<td>");
			S_esc(o, cell);
			tb_buf_puts(o, "</td>");
		}
		tb_buf_puts(o, "</tr>\n");
	}
	tb_buf_puts(o, "</tbody></table></div>");
}

/* The SVG document without its XML prolog or doctype, inline. */
static void S_html_chart(tb_buf *o, const tb_chart *c)
{
	tb_buf_puts(o, "<figure class=\"chart\" id=\"chart-");
	S_esc(o, c->id);
	tb_buf_puts(o, "\">\n");
	char *svg = tb_render_svg(c);
	const char *p = svg ? strstr(svg, "<svg") : NULL;
	if (p) {
		size_t n = strlen(p);
		while (n && (p[n - 1] == '\n' || p[n - 1] == ' '))
			n--;
		tb_buf_put(o, p, n);
		tb_buf_putc(o, '\n');
	} else if (c->alt[0]) {
		tb_buf_puts(o, "<p>");
		S_esc(o, c->alt);
		tb_buf_puts(o, "</p>\n");
	}
	free(svg);
	/* the SVG draws its own title; a caption only stands in for a missing one */
	if (!p) {
		tb_buf_puts(o, "<figcaption>");
		S_esc(o, c->title);
		tb_buf_puts(o, "</figcaption>\n");
	}
	tb_buf_puts(o, "</figure>");
}

static void S_html_deriv(tb_buf *o, const tb_derivation *d)
{
	tb_buf_puts(o, "<div class=\"deriv\">\n<p class=\"title\">");
	S_esc(o, d->title);
	tb_buf_puts(o, "</p>\n<pre>");
	S_esc(o, d->formula);
	tb_buf_putc(o, '\n');
	S_esc(o, d->substituted);
	tb_buf_putc(o, '\n');
	S_esc(o, d->result);
	tb_buf_puts(o, "</pre>\n");
	if (d->nwhere) {
		tb_buf_puts(o, "<ul>\n");
		for (size_t i = 0; i < d->nwhere; i++) {
			tb_buf_puts(o, "<li>");
			S_esc(o, d->where[i]);
			tb_buf_puts(o, "</li>\n");
		}
		tb_buf_puts(o, "</ul>\n");
	}
	if (d->source && *d->source) {
		tb_buf_puts(o, "<p class=\"source\">Source: ");
		S_esc(o, d->source);
		tb_buf_puts(o, "</p>\n");
	}
	tb_buf_puts(o, "</div>");
}

char *tb_render_html(const tb_report *r)
{
	cmark_node *root = tb_report_root(r);
	const tb_report_meta *m = tb_report_get_meta(r);
	tb_buf o;
	tb_buf_init(&o);
	if (root) {
		cmark_iter *it = cmark_iter_new(root);
		cmark_event_type ev;
		while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
			cmark_node *n = cmark_iter_get_node(it);
			const tb_block *blk = tb_report_block(n);
			if (ev != CMARK_EVENT_ENTER || !blk)
				continue;
			tb_buf_truncate(&o, 0);
			switch (blk->kind) {
			case TB_BLOCK_TABLE: S_html_table(&o, &blk->table); break;
			case TB_BLOCK_CHART: S_html_chart(&o, &blk->chart); break;
			case TB_BLOCK_DERIVATION: S_html_deriv(&o, &blk->deriv); break;
			case TB_BLOCK_TITLE:    /* its children are the content */
			case TB_BLOCK_VERDICT: break;
			}
			cmark_node_set_on_enter(n, o.ptr);
			cmark_node_set_on_exit(n, "");
		}
		cmark_iter_free(it);
	}
	tb_buf_truncate(&o, 0);
	/* a checked tag (letters, digits, '-'): nothing to escape */
	tb_buf_printf(&o, "<!doctype html>\n<html lang=\"%s\">\n", m && m->lang ? m->lang : "en");
	tb_buf_puts(&o, "<head>\n<meta charset=\"utf-8\">\n"
	                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	                "<meta name=\"generator\" content=\"trainbudget " TB_VERSION "\">\n<title>");
	S_esc(&o, m && m->title ? m->title : "trainbudget report");
	tb_buf_puts(&o, "</title>\n<style>\n");
	tb_buf_puts(&o, S_css);
	tb_buf_puts(&o, "</style>\n</head>\n<body>\n<main>\n");
	if (root) {
		char *body = cmark_render_html(root, CMARK_OPT_DEFAULT);
		tb_buf_puts(&o, body);
		cmark_get_default_mem_allocator()->free(body);
	}
	tb_buf_puts(&o, "</main>\n</body>\n</html>\n");
	return tb_buf_detach(&o, NULL);
}
