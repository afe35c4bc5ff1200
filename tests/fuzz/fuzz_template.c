/* fuzz_template.c: libFuzzer target for the template engine alone
 * (src/template.h), with a toy environment so no scenario is needed.
 *
 * The toy knows the names a-z/./_ and the filters of the real language,
 * says "unknown" to the rest, and builds a custom block for each directive,
 * so every branch of the engine (substitution, filters, directives,
 * conditions, errors) is reachable.  The document is then rendered by
 * cmark's HTML and CommonMark renderers, as the back ends do.  The engine
 * must return a document exactly when it reports no error. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmark.h>
#include "trainbudget/buf.h"
#include "trainbudget/diag.h"
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

	tb_tpl_env env = { NULL, S_value, S_condition, S_directive, S_suggest };
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
		free(html);
		free(md);
		cmark_node_free(doc);
	}
	tb_diags_release(&d);
	free(text);
	return 0;
}
