/* fuzz_template.c: libFuzzer target for the template engine alone
 * (src/template.h), with a toy environment so no scenario is needed.
 *
 * The toy knows the names a-z/./_ and the filters of the real language,
 * says "unknown" to the rest, and builds a custom block for each directive,
 * so every branch of the engine (substitution, filters, directives,
 * conditions, pipe tables, errors) is reachable.  The document is then
 * rendered by cmark's HTML and CommonMark renderers, as the back ends do.
 * The engine must return a document exactly when it reports no error; the
 * document nests at most TB_TEMPLATE_MAX_DEPTH deep and holds no raw HTML;
 * the Markdown, parsed again, holds no link whose destination decodes to a
 * scheme other than http, https or mailto (names starting with 'j' give a
 * value that tries, `&#106;avascript:alert(1)`); a table has cells. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmark.h>
#include "trainbudget/buf.h"
#include "trainbudget/diag.h"
#include "linkdest.h"
#include "template.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int S_known(const char *name)
{
	if (!name || !*name)
		return 0;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || *p == '.' || *p == '_'))
			return 0;
	return 1;
}

static tb_tpl_status S_value(void *ctx, const char *name, const char *filter,
                             tb_buf *out)
{
	static const char *const filters[] = { "sci", "bytes", "days", "money", "pct" };
	(void)ctx;
	if (!S_known(name))
		return TB_TPL_UNKNOWN_NAME;
	if (filter) {
		size_t i;
		for (i = 0; i < sizeof filters / sizeof filters[0]; i++)
			if (strcmp(filter, filters[i]) == 0)
				break;
		if (i == sizeof filters / sizeof filters[0])
			return TB_TPL_UNKNOWN_FILTER;
		if (name[0] == 's' && i == 1)
			return TB_TPL_BAD_FILTER;
	}
	if (name[0] == 'j') {
		tb_buf_puts(out, "&#106;avascript:alert(1)");
		return TB_TPL_OK;
	}
	if (name[0] == 'h') {
		tb_buf_puts(out, "https://x.example/a b");
		return TB_TPL_OK;
	}
	/* Markup in a value must come out literally. */
	tb_buf_puts(out, "<b>*");
	tb_buf_puts(out, name);
	tb_buf_puts(out, "*</b>");
	return TB_TPL_OK;
}

static tb_tpl_status S_condition(void *ctx, const char *name, int *truth)
{
	(void)ctx;
	if (!S_known(name))
		return TB_TPL_UNKNOWN_NAME;
	*truth = (int)(strlen(name) & 1);
	return TB_TPL_OK;
}

static tb_tpl_status S_directive(void *ctx, const char *kind, const char *arg,
                                 cmark_node *into)
{
	(void)ctx;
	if (!S_known(arg))
		return TB_TPL_UNKNOWN_NAME;
	/* In a region a false condition drops, the engine only checks the
	 * name and passes no document. */
	if (!into)
		return TB_TPL_OK;
	cmark_node *n;
	if (strcmp(kind, "table") == 0) {
		n = cmark_node_new(CMARK_NODE_CUSTOM_BLOCK);
		cmark_node_set_on_enter(n, "<table></table>");
	} else {
		n = cmark_node_new(CMARK_NODE_PARAGRAPH);
		cmark_node *t = cmark_node_new(CMARK_NODE_TEXT);
		cmark_node_set_literal(t, arg);
		cmark_node_append_child(n, t);
	}
	cmark_node_append_child(into, n);
	return TB_TPL_OK;
}

static void S_table(void *ctx, size_t ncols, size_t nrows, const char *const *cells,
                    const char *align, cmark_node *into)
{
	(void)ctx;
	if (ncols == 0 || nrows == 0 || !cells || !align || !into)
		abort();
	for (size_t k = 0; k < ncols; k++)
		if (!strchr("lcr-", align[k]) || !align[k])
			abort();
	for (size_t i = 0; i < ncols * nrows; i++)
		if (!cells[i] || strchr(cells[i], '\n'))
			abort();
	cmark_node *n = cmark_node_new(CMARK_NODE_CUSTOM_BLOCK);
	cmark_node_set_on_enter(n, "<table></table>");
	cmark_node_append_child(into, n);
}

/* The deepest node below root, counted as template.h counts. */
static size_t S_depth(cmark_node *root)
{
	cmark_iter *it = cmark_iter_new(root);
	size_t depth = 0, max = 0;
	cmark_event_type ev;
	while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		cmark_node *n = cmark_iter_get_node(it);
		if (n == root)
			continue;
		cmark_node_type ty = cmark_node_get_type(n);
		bool leaf = ty == CMARK_NODE_CODE_BLOCK || ty == CMARK_NODE_HTML_BLOCK ||
		            ty == CMARK_NODE_THEMATIC_BREAK || ty == CMARK_NODE_TEXT ||
		            ty == CMARK_NODE_SOFTBREAK || ty == CMARK_NODE_LINEBREAK ||
		            ty == CMARK_NODE_CODE || ty == CMARK_NODE_HTML_INLINE;
		if (ev == CMARK_EVENT_EXIT) {
			depth--;
			continue;
		}
		if (ty == CMARK_NODE_HTML_BLOCK || ty == CMARK_NODE_HTML_INLINE)
			abort();
		if (depth + 1 > max)
			max = depth + 1;
		if (!leaf)
			depth++;
	}
	cmark_iter_free(it);
	return max;
}

/* Every link in the Markdown, read back by cmark. */
static void S_links_are_safe(const char *md)
{
	cmark_node *doc = cmark_parse_document(md, strlen(md), CMARK_OPT_DEFAULT);
	cmark_iter *it = cmark_iter_new(doc);
	cmark_event_type ev;
	char scheme[32];
	while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		cmark_node *n = cmark_iter_get_node(it);
		cmark_node_type ty = cmark_node_get_type(n);
		if (ev == CMARK_EVENT_ENTER && (ty == CMARK_NODE_LINK || ty == CMARK_NODE_IMAGE) &&
		    !tb_linkdest_allowed(cmark_node_get_url(n), scheme, sizeof scheme))
			abort();
	}
	cmark_iter_free(it);
	cmark_node_free(doc);
}

static const char *S_suggest(void *ctx, const char *what, const char *word)
{
	(void)ctx;
	(void)what;
	return word && word[0] == 'x' ? "flops.total_model" : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size ? size : 1);
	if (!text)
		return 0;
	if (size)
		memcpy(text, data, size);

	tb_tpl_env env = { NULL, S_value, S_condition, S_directive, S_suggest, S_table };
	tb_diags d;
	tb_diags_init(&d);
	cmark_node *doc = tb_template_expand(text, size, "fuzz.md", &env, &d);
	if ((doc == NULL) != (d.errors != 0))
		abort();
	char *msg = tb_diags_format(&d);
	free(msg);
	if (doc) {
		char *html = cmark_render_html(doc, CMARK_OPT_DEFAULT);
		char *md = cmark_render_commonmark(doc, CMARK_OPT_DEFAULT, 0);
		/* the toy's values carry "<b>": unescaped, it would be raw HTML */
		if (html && strstr(html, "<b>*"))
			abort();
		if (S_depth(doc) > TB_TEMPLATE_MAX_DEPTH)
			abort();
		if (md)
			S_links_are_safe(md);
		free(html);
		free(md);
		cmark_node_free(doc);
	}
	tb_diags_release(&d);
	free(text);
	return 0;
}
