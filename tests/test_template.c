/* test_template.c: the template language against a small fake environment,
 * so these tests pin the syntax and the tree handling, not the figures. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "template.h"
#include "trainbudget/diag.h"

/* ---- the fake environment -------------------------------------------- */

/* Values meant for link destinations, by number: every way of hiding a
 * scheme that the link rule decodes, and a few honest URLs. */
static const char *const S_link_values[] = {
	"&#106;avascript:alert(1)", "javascript:alert(1)", " JavaScript:alert(3)",
	"java\tscript:x", "java\nscript:x", "&#x6A;avascript:x", "&#106avascript:x",
	"javascript&colon;alert(1)", "%6Aavascript:x", "&amp;#106;avascript:x",
	"vbscript:x", "data:text/html,<script>alert(1)</script>", "file:///etc/passwd",
	"JAVASCRIPT:x", "\xe2\x80\xaejavascript:x", "javascript\x01:x", ":x", "java script:x",
	"https://ok.example/a b?c=(1)", "mailto:a@b.example", "llama-7b", "HTTP://OK.EXAMPLE/",
};

/* A value of one MiB of 'x'. */
static const char *S_mib(void)
{
	static char *v;
	if (!v) {
		v = malloc(((size_t)1 << 20) + 1);
		memset(v, 'x', (size_t)1 << 20);
		v[(size_t)1 << 20] = '\0';
	}
	return v;
}

static const char *S_link_value(const char *num)
{
	char *end;
	long i = strtol(num, &end, 10);
	if (*end || i < 0 || (size_t)i >= sizeof S_link_values / sizeof S_link_values[0])
		return NULL;
	return S_link_values[i];
}

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
	else if (strcmp(name, "mib") == 0)
		v = S_mib();
	else if (strncmp(name, "v.", 2) == 0 && S_link_value(name + 2))
		v = S_link_value(name + 2);
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

/* A pipe table as "[PIPE 2x3 lr: a|b|c|d|e|f]". */
static void S_table(void *ctx, size_t ncols, size_t nrows, const char *const *cells,
                    const char *align, cmark_node *into)
{
	(void)ctx;
	tb_buf b;
	tb_buf_init(&b);
	tb_buf_printf(&b, "[PIPE %zux%zu %s:", ncols, nrows, align);
	for (size_t i = 0; i < ncols * nrows; i++)
		tb_buf_printf(&b, "%s%s", i ? "|" : " ", cells[i]);
	tb_buf_putc(&b, ']');
	cmark_node *cb = cmark_node_new(CMARK_NODE_CUSTOM_BLOCK);
	cmark_node_set_on_enter(cb, b.ptr);
	cmark_node_set_on_exit(cb, "");
	cmark_node_append_child(into, cb);
	tb_buf_release(&b);
}

static const tb_tpl_env S_env = { NULL, S_value, S_cond, S_dir, S_suggest, S_table };

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
	/* the issue's repro: an entity-encoded scheme, as a title */
	char *out = S_run("[t]({{v.0}})\n", NULL);
	cr_assert_str_eq(out, "[t](./%26#106;avascript:alert%281%29)\n");
	free(out);
	out = S_run("[x]({{js}})\n", NULL);
	cr_assert_str_eq(out, "[x](./%20JavaScript:alert%283%29)\n");
	free(out);
	/* honest URLs keep their shape; what is not URL text is encoded */
	out = S_run("[a]({{v.18}}) [b]({{v.19}}) [c](https://w.example/{{v.20}}) [d]({{v.21}})\n", NULL);
	cr_assert_str_eq(out, "[a](https://ok.example/a%20b?c=%281%29) [b](mailto:a@b.example) "
	                      "[c](https://w.example/llama-7b) [d](HTTP://OK.EXAMPLE/)\n");
	free(out);
}

/* Each value, alone in a destination: the Markdown written, parsed again
 * by cmark and then decoded as a careless renderer might (entities again,
 * percent-escapes, spaces out, lower case), never names a scheme other
 * than http, https or mailto. */
Test(template, no_value_hides_a_scheme_from_any_decoder)
{
	for (size_t i = 0; i < sizeof S_link_values / sizeof S_link_values[0]; i++) {
		char src[64];
		snprintf(src, sizeof src, "[t]({{v.%zu}})\n", i);
		char *diag = NULL;
		char *md = S_run(src, &diag);
		cr_assert_not_null(md, "value %zu refused: %s", i, diag ? diag : "");
		free(diag);
		cmark_node *doc = cmark_parse_document(md, strlen(md), CMARK_OPT_DEFAULT);
		cmark_node *link = cmark_node_first_child(cmark_node_first_child(doc));
		cr_assert_eq(cmark_node_get_type(link), CMARK_NODE_LINK, "value %zu: %s", i, md);
		const char *url = cmark_node_get_url(link);
		/* a value brings no reference and no escape of its own */
		cr_assert(strchr(url, '&') == NULL, "value %zu: %s", i, url);
		for (const char *p = strchr(url, '%'); p; p = strchr(p + 1, '%'))
			cr_assert(p[1] && p[2] && strchr("0123456789ABCDEF", p[1]) && strchr("0123456789ABCDEF", p[2]),
			          "value %zu: %s", i, url);
		/* decode it all and find the scheme */
		char dec[512];
		size_t k = 0;
		for (const char *p = url; *p && k + 1 < sizeof dec; p++) {
			int hi, lo;
			if (*p == '%' && sscanf(p + 1, "%1x%1x", (unsigned *)&hi, (unsigned *)&lo) == 2) {
				dec[k++] = (char)(hi * 16 + lo);
				p += 2;
			} else {
				dec[k++] = *p;
			}
		}
		dec[k] = '\0';
		char flat[512];
		k = 0;
		for (const char *p = dec; *p; p++)
			if ((unsigned char)*p > 0x20 && *p != 0x7f)
				flat[k++] = (char)((*p >= 'A' && *p <= 'Z') ? *p + 32 : *p);
		flat[k] = '\0';
		/* &#106; and &colon; after decoding: no '&' survives, checked above,
		 * but the percent-decoded text may hold one again */
		size_t end = strcspn(flat, ":/?#");
		if (flat[end] == ':' && !strstr(flat, "&")) {
			cr_assert(strncmp(flat, "http:", 5) == 0 || strncmp(flat, "https:", 6) == 0 ||
			          strncmp(flat, "mailto:", 7) == 0, "value %zu gives '%s'", i, flat);
		} else if (flat[end] == ':') {
			/* a reference revealed by percent-decoding: only after "./" */
			cr_assert(strncmp(flat, "./", 2) == 0, "value %zu gives '%s'", i, flat);
		}
		cmark_node_free(doc);
		free(md);
	}
}

/* What a template writes itself is held to the same rule: an error. */
typedef struct link_case {
	char src[96];
	char want[220];
} link_case;

ParameterizedTestParameters(template, dangerous_links_in_the_template)
{
	static link_case cases[] = {
		{ "[x](javascript:alert(1))\n", "T.md:1:1: link destination 'javascript:alert(1)' is a 'javascript:' link once decoded; expected an http, https or mailto URL or a relative path" },
		{ "a [x](&#106;avascript:alert(1))\n", "T.md:1:3: link destination 'javascript:alert(1)' is a 'javascript:' link once decoded; expected an http, https or mailto URL or a relative path" },
		{ "[x](&amp;#106;avascript:alert(1))\n", "T.md:1:1: link destination '&#106;avascript:alert(1)' is a 'javascript:' link once decoded; expected an http, https or mailto URL or a relative path" },
		{ "<javascript:alert(2)>\n", "T.md:1:1: link destination 'javascript:alert(2)' is a 'javascript:' link once decoded; expected an http, https or mailto URL or a relative path" },
		{ "[x](java%09script:x)\n", "T.md:1:1: link destination 'java%09script:x' is a 'javascript:' link once decoded; expected an http, https or mailto URL or a relative path" },
		{ "[x](JAVA&Tab;SCRIPT&colon;x)\n", "T.md:1:1: link destination 'JAVA\\x09SCRIPT:x' is a 'javascript:' link once decoded; expected an http, https or mailto URL or a relative path" },
		{ "![i](data:image/png;base64,AAAA)\n", "T.md:1:1: image destination 'data:image/png;base64,AAAA' is a 'data:' link once decoded; expected an http, https or mailto URL or a relative path" },
		{ "[x]({{a.b_c}}:foo)\n", "T.md:1:1: link destination '{{a.b_c}}:foo' is a 'x:' link once decoded; expected an http, https or mailto URL or a relative path" },
		{ "{{#if no}}\n\n[x](vbscript:x)\n\n{{/if}}\n", "T.md:3:1: link destination 'vbscript:x' is a 'vbscript:' link once decoded; expected an http, https or mailto URL or a relative path" },
		{ "[x](&amp;amp;amp;amp;amp;amp;amp;amp;amp;amp;amp;amp;amp;amp;amp;amp;amp;amp;#106;x:y)\n", "T.md:1:1: link destination '&amp;amp;amp;amp;amp;amp;amp;amp;amp;amp;amp;amp;amp;amp;amp...' is still encoded after 16 rounds of decoding; expected an http, https or mailto URL or a relative path" },
	};
	return cr_make_param_array(link_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(link_case *c, template, dangerous_links_in_the_template)
{
	char *diag;
	char *out = S_run(c->src, &diag);
	cr_assert_null(out, "expected an error for %s", c->src);
	cr_assert_str_eq(diag, c->want);
	free(diag);
}

Test(template, honest_links_in_the_template_pass)
{
	char *diag = NULL;
	char *out = S_run("[a](https://x.example/?a=1&amp;b=2) [b](mailto:x@y.example) [c](#top) "
	                  "[d](../r/7b.html) [e](//cdn.example/x) [f](HTTPS://X.EXAMPLE) "
	                  "[g](./a:b) [h](?q=a:b) <https://auto.example>\n", &diag);
	cr_assert_not_null(out, "%s", diag ? diag : "");
	free(out);
}

/* Raw HTML would be copied into the Markdown: it is dropped, with one
 * warning for what is not a comment. */
Test(template, raw_html_is_dropped_with_a_warning)
{
	const char *src = "<!-- a note -->\n\ntext <b onclick=\"x\">bold</b>\n\n"
	                  "<a href=\"javascript:alert(1)\">x</a>\n";
	tb_diags d;
	tb_diags_init(&d);
	cmark_node *doc = tb_template_expand(src, strlen(src), "T.md", &S_env, &d);
	cr_assert_not_null(doc);
	char *md = cmark_render_commonmark(doc, CMARK_OPT_DEFAULT, 0);
	cr_assert_str_eq(md, "text bold\n\nx\n");
	free(md);
	char *h = cmark_render_html(doc, CMARK_OPT_DEFAULT);
	cr_assert_str_eq(h, "<p>text bold</p>\n<p>x</p>\n");
	free(h);
	cmark_node_free(doc);
	cr_assert_eq(d.errors, 0);
	cr_assert_eq(d.warnings, 1);
	cr_assert_eq(d.items[0].line, 3);
	cr_assert_eq(d.items[0].col, 6);
	cr_assert_str_eq(d.items[0].msg, "raw HTML is dropped from every format (4 places); expected Markdown");
	tb_diags_release(&d);
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

/* ---- pipe tables -------------------------------------------------------- */

Test(template, pipe_table_becomes_a_table)
{
	char *diag = NULL;
	char *out = S_run("Before\n\n| Name | Value | Note |\n| :--- | ---: | :-: |\n"
	                  "| *total* | {{a.b_c}} | `x \\| y` |\n| short |\n\nAfter\n", &diag);
	cr_assert_not_null(out, "%s", diag ? diag : "");
	/* markup flattened to its words, the escaped pipe kept, a short row
	 * padded, alignment per column */
	cr_assert_str_eq(out, "Before\n\n[PIPE 3x3 lrc: Name|Value|Note|total|42|x | y|short||]\n\nAfter\n");
	free(out);
	/* no leading or trailing pipes, and a filter's pipe inside {{ }} */
	out = S_run("a | b\n--- | ---\n{{ a.b_c | up }} | 2\n", &diag);
	/* (cmark ends a document that ends with a custom block with a blank line) */
	cr_assert_str_eq(out, "[PIPE 2x2 --: a|b|UP:42|2]\n\n");
	free(out);
}

Test(template, a_value_in_a_cell_cannot_split_it)
{
	char *out = S_run("| t |\n| - |\n| {{title}} |\n", NULL);
	cr_assert_str_eq(out, "[PIPE 1x2 -: t|<script>alert(1)</script> **x** [l](javascript:alert(2))]\n\n");
	free(out);
}

Test(template, errors_in_cells_are_placed_in_the_template)
{
	char *diag = NULL;
	cr_assert_null(S_run("# T\n\n| a | b |\n|---|---|\n| 1 |  x {{nope}} |\n", &diag));
	cr_assert_str_eq(diag, "T.md:5:10: unknown placeholder 'nope'; did you mean 'a.b_c'?");
	free(diag);
	cr_assert_null(S_run("| a |\n|---|\n| {{table t1}} |\n", &diag));
	cr_assert_str_eq(diag, "T.md:3:3: '{{table t1}}' cannot be used inside a table cell; expected a value placeholder such as '{{flops.total_6nd}}'");
	free(diag);
	cr_assert_null(S_run("| a |\n|---|\n| [x](javascript:y) |\n", &diag));
	cr_assert_str_eq(diag, "T.md:3:3: link destination 'javascript:y' is a 'javascript:' link once decoded; expected an http, https or mailto URL or a relative path");
	free(diag);
}

Test(template, pipe_tables_in_dropped_regions_are_checked_not_built)
{
	char *diag = NULL;
	char *out = S_run("{{#if no}}\n\n| a |\n|---|\n| 1 |\n\n{{/if}}\n\nz\n", &diag);
	cr_assert_str_eq(out, "z\n");
	free(out);
	cr_assert_null(S_run("{{#if no}}\n\n| a |\n|---|\n| {{nope}} |\n\n{{/if}}\n", &diag));
	cr_assert_str_eq(diag, "T.md:5:3: unknown placeholder 'nope'; did you mean 'a.b_c'?");
	free(diag);
}

/* Where a table cannot be built it stays text, and a warning says why. */
Test(template, pipe_table_where_none_can_be_is_text_with_a_warning)
{
	static const struct { const char *src; size_t line; const char *msg; } cases[] = {
		{ "Some text\n| a | b |\n|---|---|\n", 2, "a pipe table after text in the same paragraph stays text; expected a blank line before its header row" },
		{ "> | a | b |\n> |---|---|\n> | 1 | 2 |\n", 1, "a pipe table inside a block quote or list item stays text; expected it at the top level of the template" },
		{ "- | a | b |\n  |---|---|\n", 1, "a pipe table inside a block quote or list item stays text; expected it at the top level of the template" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		tb_diags d;
		tb_diags_init(&d);
		cmark_node *doc = tb_template_expand(cases[i].src, strlen(cases[i].src), "T.md", &S_env, &d);
		cr_assert_not_null(doc);
		char *md = cmark_render_commonmark(doc, CMARK_OPT_DEFAULT, 0);
		cr_assert(strstr(md, "PIPE") == NULL, "%s", md);
		free(md);
		cmark_node_free(doc);
		cr_assert_eq(d.warnings, 1, "case %zu", i);
		cr_assert_eq(d.items[0].line, cases[i].line, "case %zu", i);
		cr_assert_str_eq(d.items[0].msg, cases[i].msg);
		tb_diags_release(&d);
	}
	/* not a table at all: a header without a matching delimiter row */
	char *out = S_run("| a | b |\n| --- |\n", NULL);
	cr_assert(strstr(out, "PIPE") == NULL, "%s", out);
	free(out);
}

/* ---- limits: no template makes an output without bound ----------------- */

Test(template, a_template_over_the_size_limit_is_refused)
{
	size_t n = TB_TEMPLATE_MAX_BYTES + 1;
	char *src = malloc(n);
	memset(src, 'a', n);
	tb_diags d;
	tb_diags_init(&d);
	cr_assert_null(tb_template_expand(src, n, "T.md", &S_env, &d));
	cr_assert_eq(d.errors, 1);
	cr_assert_str_eq(d.items[0].msg, "the template is larger than 1 MiB; expected a CommonMark file of a few kilobytes");
	tb_diags_release(&d);
	/* exactly the limit is fine */
	tb_diags_init(&d);
	cmark_node *doc = tb_template_expand(src, n - 1, "T.md", &S_env, &d);
	cr_assert_not_null(doc);
	cmark_node_free(doc);
	tb_diags_release(&d);
	free(src);
}

Test(template, at_most_256_blocks)
{
	tb_buf src;
	tb_buf_init(&src);
	for (int i = 0; i < TB_TEMPLATE_MAX_BLOCKS; i++)
		tb_buf_puts(&src, "{{table t1}}\n\n");
	char *diag = NULL;
	char *out = S_run(src.ptr, &diag);
	cr_assert_not_null(out, "%s", diag ? diag : "");
	free(out);
	/* one more, inside a dropped region: still counted (errors do not
	 * depend on the scenario) */
	tb_buf_puts(&src, "{{#if no}}\n\n{{table t1}}\n\n{{/if}}\n");
	out = S_run(src.ptr, &diag);
	cr_assert_null(out);
	cr_assert_str_eq(diag, "T.md:515:1: more than 256 tables, charts, derivations and blocks; expected at most 256 in one report");
	free(diag);
	tb_buf_release(&src);
}

Test(template, at_most_16_mib_of_values)
{
	tb_buf src;
	tb_buf_init(&src);
	for (int i = 0; i < 16; i++)
		tb_buf_puts(&src, "`{{mib}}`\n\n");
	char *diag = NULL;
	char *out = S_run(src.ptr, &diag);
	cr_assert_not_null(out, "%s", diag ? diag : "");
	free(out);
	tb_buf_puts(&src, "x {{a.b_c}}\n");
	out = S_run(src.ptr, &diag);
	cr_assert_null(out);
	cr_assert_str_eq(diag, "T.md:33:3: the values placed so far come to more than 16 MiB; expected a template that places a large value such as '{{scenario.text}}' once");
	free(diag);
	tb_buf_release(&src);
}

Test(template, invalid_utf8_in_values_is_replaced)
{
	tb_buf b;
	tb_buf_init(&b);
	tb_template_put_utf8(&b, "a\xff" "b\xc3(\xed\xa0\x80", 8);
	cr_assert_str_eq(b.ptr, "a\xEF\xBF\xBD" "b\xEF\xBF\xBD(\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
	tb_buf_release(&b);
}
