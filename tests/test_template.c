/* test_template.c: the template language against a small fake environment,
 * so these tests pin the syntax and the tree handling, not the figures. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdlib.h>
#include <string.h>

#include "template.h"
#include "trainbudget/diag.h"

/* ---- the fake environment -------------------------------------------- */

static tb_tpl_status S_value(void *ctx, const char *name, const char *filter, tb_buf *out)
{
	(void)ctx;
	const char *v = NULL;
	if (strcmp(name, "a.b_c") == 0)
		v = "42";
	else if (strcmp(name, "title") == 0)
		v = "<script>alert(1)</script> **x** [l](javascript:alert(2))";
	else if (strcmp(name, "two.lines") == 0)
		v = "# not a heading\n- not a list\n";
	else if (strcmp(name, "braces") == 0)
		v = "{{a.b_c}}";
	else if (strcmp(name, "js") == 0)
		v = " JavaScript:alert(3)";
	if (!v)
		return TB_TPL_UNKNOWN_NAME;
	if (filter && strcmp(filter, "up") != 0 && strcmp(filter, "plain") != 0)
		return TB_TPL_UNKNOWN_FILTER;
	if (filter && strcmp(filter, "up") == 0) {
		tb_buf_puts(out, "UP:");
	}
	tb_buf_puts(out, v);
	return TB_TPL_OK;
}

static tb_tpl_status S_cond(void *ctx, const char *name, int *truth)
{
	(void)ctx;
	if (strcmp(name, "yes") == 0)
		*truth = 1;
	else if (strcmp(name, "no") == 0)
		*truth = 0;
	else
		return TB_TPL_UNKNOWN_NAME;
	return TB_TPL_OK;
}

static int S_directives_built;

static tb_tpl_status S_dir(void *ctx, const char *kind, const char *arg, cmark_node *into)
{
	(void)ctx;
	bool block = strcmp(kind, "block") == 0 && strcmp(arg, "b1") == 0;
	if (strcmp(kind, "block") == 0 && strcmp(arg, "b2") == 0) {
		/* a block with content of its own, as the report's title block */
		if (into) {
			cmark_node *cb = cmark_node_new(CMARK_NODE_CUSTOM_BLOCK);
			cmark_node *p = cmark_node_new(CMARK_NODE_PARAGRAPH);
			cmark_node *t = cmark_node_new(CMARK_NODE_TEXT);
			cmark_node_set_literal(t, "inside");
			cmark_node_append_child(p, t);
			cmark_node_append_child(cb, p);
			cmark_node_append_child(into, cb);
		}
		return TB_TPL_OK;
	}
	if (!block && (strcmp(kind, "table") != 0 || strcmp(arg, "t1") != 0))
		return TB_TPL_UNKNOWN_NAME;
	if (into) {
		S_directives_built++;
		cmark_node *cb = cmark_node_new(CMARK_NODE_CUSTOM_BLOCK);
		cmark_node_set_on_enter(cb, block ? "[BLOCK b1]" : "[TABLE t1]");
		cmark_node_set_on_exit(cb, "");
		cmark_node_append_child(into, cb);
	}
	return TB_TPL_OK;
}

static const char *S_suggest(void *ctx, const char *what, const char *word)
{
	(void)ctx;
	(void)word;
	return strcmp(what, "placeholder") == 0 ? "a.b_c" : NULL;
}

static const tb_tpl_env S_env = { NULL, S_value, S_cond, S_dir, S_suggest };

/* Expands src and renders it as CommonMark; NULL (and *diag set to the
 * first message as "LINE:COL: msg") on error. */
static char *S_run(const char *src, char **diag)
{
	tb_diags d;
	tb_diags_init(&d);
	cmark_node *doc = tb_template_expand(src, strlen(src), "T.md", &S_env, &d);
	char *out = NULL;
	if (doc) {
		char *md = cmark_render_commonmark(doc, CMARK_OPT_DEFAULT, 0);
		out = strdup(md);
		free(md);
		cmark_node_free(doc);
	}
	if (diag) {
		*diag = NULL;
		if (d.n) {
			char buf[512];
			snprintf(buf, sizeof buf, "%s:%zu:%zu: %s", d.items[0].file,
			         d.items[0].line, d.items[0].col, d.items[0].msg);
			*diag = strdup(buf);
		}
	}
	cr_assert(doc != NULL || d.errors > 0, "NULL without a diagnostic");
	tb_diags_release(&d);
	return out;
}

static char *S_html(const char *src)
{
	tb_diags d;
	tb_diags_init(&d);
	cmark_node *doc = tb_template_expand(src, strlen(src), "T.md", &S_env, &d);
	cr_assert_not_null(doc);
	char *h = cmark_render_html(doc, CMARK_OPT_DEFAULT);
	char *out = strdup(h);
	free(h);
	cmark_node_free(doc);
	tb_diags_release(&d);
	return out;
}

/* ---- placeholders ----------------------------------------------------- */

Test(template, placeholder_with_underscore_is_seen_whole)
{
	/* cmark splits text at `_`; the merge must put it back together */
	char *out = S_run("Value {{a.b_c}} and {{ a.b_c | up }}.\n", NULL);
	cr_assert_str_eq(out, "Value 42 and UP:42.\n");
	free(out);
}

Test(template, placeholder_in_heading_code_span_and_code_block)
{
	char *out = S_run("# T {{a.b_c}}\n\n`x = {{a.b_c}}`\n\n```\ny = {{a.b_c}}\n```\n", NULL);
	/* cmark writes an empty info string as a space after the fence */
	cr_assert_str_eq(out, "# T 42\n\n`x = 42`\n\n``` \ny = 42\n```\n");
	free(out);
}

Test(template, placeholders_in_link_destinations_and_titles)
{
	char *out = S_run("See [x](https://w/{{a.b_c}} \"n {{a.b_c}}\") ![i]({{a.b_c}}.svg)\n", NULL);
	cr_assert_str_eq(out, "See [x](https://w/42 \"n 42\") ![i](42.svg)\n");
	free(out);
	/* cmark keeps no position for a destination: the tag is found in the
	 * source, column of its "{{" */
	char *diag = NULL;
	out = S_run("# T\n\nSee [run](x/{{nosuch}}) now.\n", &diag);
	cr_assert_null(out);
	cr_assert_not_null(diag);
	cr_assert(strncmp(diag, "T.md:3:13: unknown placeholder 'nosuch'", 39) == 0, "%s", diag);
	free(diag);
}

Test(template, a_value_cannot_make_a_dangerous_link)
{
	/* as a destination "JavaScript:..." is emptied, in Markdown as
	 * cmark's safe renderer does in HTML */
	char *out = S_run("[x]({{js}})\n", NULL);
	cr_assert_str_eq(out, "[x]()\n");
	free(out);
}

Test(template, values_are_not_rescanned)
{
	char *out = S_run("{{braces}}\n", NULL);
	cr_assert(strstr(out, "{{a.b\\_c}}") != NULL, "got %s", out);
	free(out);
}

Test(template, hostile_value_is_literal_in_html)
{
	char *h = S_html("# {{title}}\n\nBy {{title}}\n");
	cr_assert(strstr(h, "<script>") == NULL, "%s", h);
	cr_assert(strstr(h, "<strong>") == NULL, "%s", h);
	cr_assert(strstr(h, "<a ") == NULL, "%s", h);
	cr_assert(strstr(h, "&lt;script&gt;alert(1)&lt;/script&gt; **x** [l](javascript:alert(2))") != NULL, "%s", h);
	free(h);
}

Test(template, hostile_value_round_trips_through_markdown)
{
	/* The Markdown we write, parsed again, must give back the same text. */
	char *md = S_run("{{title}}\n", NULL);
	cmark_node *doc = cmark_parse_document(md, strlen(md), CMARK_OPT_DEFAULT);
	char *h = cmark_render_html(doc, CMARK_OPT_DEFAULT);
	cr_assert_str_eq(h, "<p>&lt;script&gt;alert(1)&lt;/script&gt; **x** [l](javascript:alert(2))</p>\n");
	free(h);
	cmark_node_free(doc);
	free(md);
}

Test(template, multi_line_value_keeps_lines_and_is_not_markdown)
{
	char *h = S_html("> {{two.lines}}\n");
	cr_assert_str_eq(h, "<blockquote>\n<p># not a heading<br />\n- not a list</p>\n</blockquote>\n");
	free(h);
}

/* ---- directives -------------------------------------------------------- */

Test(template, directive_alone_becomes_a_custom_block)
{
	char *out = S_run("Before\n\n{{table t1}}\n\nAfter\n", NULL);
	cr_assert_str_eq(out, "Before\n\n[TABLE t1]\n\nAfter\n");
	free(out);
}

Test(template, directive_inside_a_list_item)
{
	char *out = S_run("- {{table t1}}\n", NULL);
	cr_assert(strstr(out, "[TABLE t1]") != NULL, "%s", out);
	free(out);
}

Test(template, directive_inline_is_an_error)
{
	char *diag;
	char *out = S_run("See {{table t1}} here\n", &diag);
	cr_assert_null(out);
	cr_assert_str_eq(diag, "T.md:1:5: '{{table t1}}' must stand alone in its paragraph; "
	                       "expected a blank line before and after it");
	free(diag);
}

/* A bare {{NAME}} alone is a block when the environment says so (the
 * report's {{title_block}} and {{verdict}}); otherwise a value. */
Test(template, bare_block_name_alone_becomes_a_block)
{
	char *out = S_run("Before\n\n{{b1}}\n\n{{a.b_c}}\n\nAfter\n", NULL);
	cr_assert_str_eq(out, "Before\n\n[BLOCK b1]\n\n42\n\nAfter\n");
	free(out);
}

Test(template, bare_block_name_inline_is_an_error)
{
	char *diag;
	char *out = S_run("See {{b1}} here\n", &diag);
	cr_assert_null(out);
	cr_assert_str_eq(diag, "T.md:1:5: '{{b1}}' must stand alone in its paragraph; "
	                       "expected a blank line before and after it");
	free(diag);
}

/* ---- conditions -------------------------------------------------------- */

Test(template, if_and_unless_keep_and_drop_blocks)
{
	char *out = S_run("{{#if yes}}\n\nA\n\n{{/if}}\n\n{{#if no}}\n\nB\n\n{{table t1}}\n\n{{/if}}\n\n"
	                  "{{#unless no}}\n\nC\n\n{{/unless}}\n", NULL);
	cr_assert_str_eq(out, "A\n\nC\n");
	free(out);
}

Test(template, nested_conditions)
{
	char *out = S_run("{{#if yes}}\n\n{{#if no}}\n\nX\n\n{{/if}}\n\nY\n\n{{/if}}\n", NULL);
	cr_assert_str_eq(out, "Y\n");
	free(out);
}

Test(template, dropped_directives_are_not_built)
{
	S_directives_built = 0;
	char *out = S_run("{{#if no}}\n\n{{table t1}}\n\n{{/if}}\n", NULL);
	cr_assert_str_eq(out, "\n");
	cr_assert_eq(S_directives_built, 0);
	free(out);
}

Test(template, errors_in_dropped_sections_are_still_errors)
{
	char *diag;
	char *out = S_run("{{#if no}}\n\nText {{nope}}\n\n{{/if}}\n", &diag);
	cr_assert_null(out);
	cr_assert_str_eq(diag, "T.md:3:6: unknown placeholder 'nope'; did you mean 'a.b_c'?");
	free(diag);
}

/* ---- errors, each at its line and column ------------------------------ */

typedef struct err_case {
	char src[160];
	char want[200];
} err_case;

ParameterizedTestParameters(template, errors)
{
	static err_case cases[] = {
		{ "x\n\nab {{nope}}\n", "T.md:3:4: unknown placeholder 'nope'; did you mean 'a.b_c'?" },
		{ "{{a.b_c | sciz}}\n", "T.md:1:1: unknown filter 'sciz'; expected one of sci, bytes, gib, count, grouped, days, money, pct, plain; see docs/templates.md for the list" },
		{ "x {{a.b_c\n", "T.md:1:3: unterminated '{{'; expected '}}' on the same line" },
		{ "{{table nope}}\n", "T.md:1:1: unknown table 'nope'; see docs/templates.md for the list" },
		{ "{{#if maybe}}\n\nA\n\n{{/if}}\n", "T.md:1:1: unknown condition 'maybe'; see docs/templates.md for the list" },
		{ "{{#if yes}}\n\nA\n", "T.md:1:1: unterminated '{{#if yes}}'; expected '{{/if}}' later in the same block" },
		{ "A\n\n{{/if}}\n", "T.md:3:1: '{{/if}}' without an open '{{#if ...}}'; expected a matching marker earlier in the same block" },
		{ "{{#if yes}}\n\n{{/unless}}\n", "T.md:3:1: '{{/unless}}' closes '{{#if yes}}' opened at 1:1; expected '{{/if}}'" },
		{ "{{#if yes}}\nA\n{{/if}}\n", "T.md:1:1: '{{#if yes}}' must stand alone in its paragraph; expected a blank line before and after it" },
		{ "{{ }}\n", "T.md:1:1: malformed placeholder '{{ }}'; expected a value name such as 'flops.total_6nd' (letters, digits, '_', '.', '-')" },
		{ "```\nok\n  {{nope}}\n```\n", "T.md:3:3: unknown placeholder 'nope'; did you mean 'a.b_c'?" },
		{ "    {{nope}}\n", "T.md:1:5: unknown placeholder 'nope'; did you mean 'a.b_c'?" },
		{ "{{title | up}} {{table t1}}\n", "T.md:1:16: '{{table t1}}' must stand alone in its paragraph; expected a blank line before and after it" },
	};
	return cr_make_param_array(err_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(err_case *c, template, errors)
{
	char *diag;
	char *out = S_run(c->src, &diag);
	cr_assert_null(out, "expected an error for %s", c->src);
	cr_assert_str_eq(diag, c->want);
	free(diag);
}

/* ---- robustness --------------------------------------------------------- */

Test(template, hostile_inputs_never_crash)
{
	static const char *const srcs[] = {
		"", "{{", "}}", "{{}}", "{{{{{{{{", "{{#if", "{{/", "{{#if yes}}",
		"{{#unless no}}\n\n{{#if yes}}\n\n{{/unless}}\n\n{{/if}}\n",
		"> > > > > > {{a.b_c}}\n", "\xff\xfe{{a.b_c}}\xc3", "{{a.b_c|}}", "{{a.b_c | up | up}}",
		"`{{table t1}}`", "[{{a.b_c}}]({{a.b_c}})", "<div>{{a.b_c}}</div>\n",
	};
	for (size_t i = 0; i < sizeof srcs / sizeof srcs[0]; i++) {
		tb_diags d;
		tb_diags_init(&d);
		cmark_node *doc = tb_template_expand(srcs[i], strlen(srcs[i]), "T.md", &S_env, &d);
		cr_assert(doc != NULL || d.errors > 0);
		if (doc)
			cmark_node_free(doc);
		tb_diags_release(&d);
	}
}

/* `> ` repeated `quotes` times, then `tail` and a newline. */
static char *S_quoted(size_t quotes, const char *tail)
{
	char *src = malloc(2 * quotes + strlen(tail) + 2);
	for (size_t i = 0; i < quotes; i++)
		memcpy(src + 2 * i, "> ", 2);
	strcpy(src + 2 * quotes, tail);
	strcat(src, "\n");
	return src;
}

Test(template, nesting_up_to_the_limit_renders)
{
	/* 30 block quotes, the paragraph at 31, its text at 32 */
	char *src = S_quoted(TB_TEMPLATE_MAX_DEPTH - 2, "{{a.b_c}}");
	char *diag = NULL;
	char *out = S_run(src, &diag);
	cr_assert_not_null(out, "%s", diag ? diag : "");
	cr_assert(strstr(out, "> 42\n") != NULL, "%s", out);
	free(out);
	free(src);
}

Test(template, nesting_past_the_limit_is_refused_where_it_starts)
{
	char *src = S_quoted(TB_TEMPLATE_MAX_DEPTH - 1, "x");
	char *diag = NULL;
	cr_assert_null(S_run(src, &diag));
	/* the text, 33 deep, starts after 31 "> " */
	cr_assert_str_eq(diag, "T.md:1:63: nesting deeper than 32 levels; expected at most 32 "
	                       "nested block quotes, lists, emphases and links");
	free(diag);
	free(src);
}

Test(template, deep_nesting_of_any_kind_is_refused_quickly)
{
	/* 20,000 of each opener (and its closer): refused, and nothing walks
	 * the tree recursively on the way */
	static const struct { const char *open, *close; } unit[] = {
		{ "> ", "" }, { "- ", "" }, { "1. ", "" }, { "> - ", "" },
		{ "*", "*" }, { "![", "](u)" },
	};
	for (size_t u = 0; u < sizeof unit / sizeof unit[0]; u++) {
		size_t n = 20000, ol = strlen(unit[u].open), cl = strlen(unit[u].close);
		char *src = malloc(n * (ol + cl) + 4);
		size_t k = 0;
		for (size_t i = 0; i < n; i++, k += ol)
			memcpy(src + k, unit[u].open, ol);
		src[k++] = 'x';
		for (size_t i = 0; i < n; i++, k += cl)
			memcpy(src + k, unit[u].close, cl);
		src[k] = '\0';
		tb_diags d;
		tb_diags_init(&d);
		cmark_node *doc = tb_template_expand(src, k, "T.md", &S_env, &d);
		cr_assert_null(doc, "'%s' was not refused", unit[u].open);
		cr_assert_eq(d.errors, 1);
		cr_assert(strstr(d.items[0].msg, "nesting deeper than 32 levels") == d.items[0].msg,
		          "%s", d.items[0].msg);
		tb_diags_release(&d);
		free(src);
	}
}

Test(template, blocks_built_past_the_limit_are_refused)
{
	/* b2 builds a block holding a paragraph: 30 quotes, then 3 levels */
	char *src = S_quoted(TB_TEMPLATE_MAX_DEPTH - 2, "{{b2}}");
	char *diag = NULL;
	cr_assert_null(S_run(src, &diag));
	cr_assert_str_eq(diag, "T.md:1:59: nesting deeper than 32 levels once its tables and "
	                       "blocks are built; expected at most 32 nested block quotes, lists, "
	                       "emphases and links");
	free(diag);
	free(src);
}

Test(template, invalid_utf8_in_values_is_replaced)
{
	tb_buf b;
	tb_buf_init(&b);
	tb_template_put_utf8(&b, "a\xff" "b\xc3(\xed\xa0\x80", 8);
	cr_assert_str_eq(b.ptr, "a\xEF\xBF\xBD" "b\xEF\xBF\xBD(\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
	tb_buf_release(&b);
}
