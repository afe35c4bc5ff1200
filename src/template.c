/* template.c: the template language, applied to the cmark tree.
 *
 * Four passes over a parsed document, none recursive (a fuzzer will hand us
 * ten thousand nested block quotes):
 *   1. merge adjacent text nodes, because cmark splits text at every
 *      potential delimiter (`_` in `per_gpu`) and a placeholder must be seen
 *      whole;
 *   2. pair the `{{#if}}`/`{{/if}}` markers inside each container and mark
 *      what a false condition drops (nothing is freed yet);
 *   3. find the pipe tables (template_table.c), then expand directives,
 *      placeholders and link destinations (each held to linkdest.h's
 *      rule) and drop raw HTML; inside dropped regions names are only
 *      checked, so a template's errors do not depend on the scenario; then
 *      build the tables from their cells, expanded one by one;
 *   4. free what was replaced or dropped, deepest first.
 * Before pass 1 and after pass 4 the tree's depth is held to
 * TB_TEMPLATE_MAX_DEPTH, and the template's size, blocks and values to
 * their limits (template.h), so no template makes an output without
 * bound. */
#include "template.h"

#include "linkdest.h"
#include "template_int.h"
#include "template_tag.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/xalloc.h"
#include "utf8.h"

/* user_data sentinels on nodes of the template tree (custom blocks made
 * later own their user_data). */
char tb_tpl_dropped_mark, tb_tpl_marker_mark, tb_tpl_table_mark, tb_tpl_table_dropped_mark;


void tb_tpl_nodes_push(tb_tpl_nodes *ns, cmark_node *n, bool dead)
{
	if (ns->n == ns->cap) {
		ns->cap = ns->cap ? ns->cap * 2 : 64;
		ns->v = tb_xrealloc(ns->v, ns->cap * sizeof *ns->v);
		ns->dead = tb_xrealloc(ns->dead, ns->cap * sizeof *ns->dead);
	}
	ns->v[ns->n] = n;
	ns->dead[ns->n] = dead;
	ns->n++;
}

void tb_tpl_nodes_release(tb_tpl_nodes *ns)
{
	free(ns->v);
	free(ns->dead);
	memset(ns, 0, sizeof *ns);
}

/* cmark_iter gives these no exit event. */
static bool S_is_leaf(cmark_node *n)
{
	cmark_node_type ty = cmark_node_get_type(n);
	return ty == CMARK_NODE_CODE_BLOCK || ty == CMARK_NODE_HTML_BLOCK ||
	       ty == CMARK_NODE_THEMATIC_BREAK || ty == CMARK_NODE_TEXT ||
	       ty == CMARK_NODE_SOFTBREAK || ty == CMARK_NODE_LINEBREAK ||
	       ty == CMARK_NODE_CODE || ty == CMARK_NODE_HTML_INLINE;
}

/* Pre-order, entering events only; `dead` is true inside a node marked
 * dropped. */
void tb_tpl_collect(cmark_node *root, tb_tpl_nodes *out)
{
	cmark_iter *it = cmark_iter_new(root);
	size_t dead_depth = 0;
	cmark_event_type ev;
	while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		cmark_node *n = cmark_iter_get_node(it);
		void *ud = cmark_node_get_user_data(n);
		bool marked = ud == &tb_tpl_dropped_mark || ud == &tb_tpl_table_dropped_mark;
		bool leaf = S_is_leaf(n);
		if (ev == CMARK_EVENT_ENTER) {
			tb_tpl_nodes_push(out, n, dead_depth > 0 || marked);
			if (marked && !leaf)
				dead_depth++;
		} else if (marked && dead_depth > 0) {
			dead_depth--;
		}
	}
	cmark_iter_free(it);
}

/* ---- UTF-8 ---------------------------------------------------------- */

void tb_template_put_utf8(tb_buf *out, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	while (i < len) {
		/* a run of ASCII other than NUL, most of any text, as it is */
		size_t r = i;
		while (r < len && u[r] != 0 && u[r] < 0x80)
			r++;
		if (r > i) {
			tb_buf_put(out, s + i, r - i);
			i = r;
			continue;
		}
		/* a NUL is no more text than a bad byte */
		size_t k = u[i] ? tb_utf8_seq(u + i, len - i, NULL) : 0;
		if (k == 0) {
			tb_buf_puts(out, "\xEF\xBF\xBD");
			i++;
		} else {
			tb_buf_put(out, s + i, k);
			i += k;
		}
	}
}

/* ---- the expansion state --------------------------------------------- */


/* A node's position in the template: a cell's nodes are placed by where
 * the cell is. */
static void S_node_pos(const tb_tpl_ctx *c, cmark_node *n, size_t *line, size_t *col)
{
	int l = cmark_node_get_start_line(n), k = cmark_node_get_start_column(n);
	*line = l > 0 ? (size_t)l : 0;
	*col = k > 0 ? (size_t)k : 0;
	if (c->sub_line && *line) {
		if (*line == 1 && *col)
			*col = c->sub_col + *col - 1;
		*line = c->sub_line + *line - 1;
	}
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static void S_error(tb_tpl_ctx *c, size_t line, size_t col, const char *fmt, ...)
{
	tb_buf msg;
	tb_buf_init(&msg);
	va_list ap;
	va_start(ap, fmt);
	tb_buf_vprintf(&msg, fmt, ap);
	va_end(ap);
	tb_diags_add(c->d, TB_DIAG_ERROR, c->file, c->text, c->len, line, col,
	             "%s", msg.ptr);
	tb_buf_release(&msg);
}

static void S_hint(tb_tpl_ctx *c, tb_buf *msg, const char *what, const char *word)
{
	const char *s = c->env->suggest ? c->env->suggest(c->env->ctx, what, word) : NULL;
	if (s)
		tb_buf_printf(msg, "; did you mean '%s'?", s);
	else
		tb_buf_puts(msg, "; see docs/templates.md for the list");
}

static void S_unknown(tb_tpl_ctx *c, size_t line, size_t col, const char *what,
                      const char *word, const char *extra)
{
	tb_buf msg;
	tb_buf_init(&msg);
	tb_buf_printf(&msg, "unknown %s '%s'", what, word);
	if (extra)
		tb_buf_printf(&msg, "; %s", extra);
	S_hint(c, &msg, what, word);
	S_error(c, line, col, "%s", msg.ptr);
	tb_buf_release(&msg);
}

/* ---- pass 1: merge text ---------------------------------------------- */

/* cmark may leave a placeholder split over adjacent text nodes (at `_`,
 * `*`, `[`): cmark_consolidate_text_nodes() joins them first. */

/* ---- pass 2: conditions ---------------------------------------------- */

/* A paragraph holding one tag and nothing else: its tag in *t. */
static bool S_lone_tag(const tb_tpl_ctx *c, cmark_node *para, tb_tag *t, size_t *line, size_t *col)
{
	if (cmark_node_get_type(para) != CMARK_NODE_PARAGRAPH)
		return false;
	cmark_node *txt = cmark_node_first_child(para);
	if (!txt || cmark_node_next(txt) || cmark_node_get_type(txt) != CMARK_NODE_TEXT)
		return false;
	const char *s = cmark_node_get_literal(txt);
	if (!s)
		return false;
	size_t n = strlen(s), a = 0, z = n;
	while (a < n && tb_tag_is_space(s[a]))
		a++;
	while (z > a && tb_tag_is_space(s[z - 1]))
		z--;
	if (z - a < 4 || memcmp(s + a, "{{", 2) != 0 || memcmp(s + z - 2, "}}", 2) != 0)
		return false;
	/* exactly one tag: no other "}}" inside */
	for (size_t i = a + 2; i + 1 < z - 2; i++)
		if (s[i] == '}' && s[i + 1] == '}')
			return false;
	tb_tag_parse(s + a + 2, z - a - 4, t);
	S_node_pos(c, txt, line, col);
	if (*col)
		*col += a;
	return true;
}

typedef struct S_frame {
	bool active, is_unless;
	size_t line, col;
	char name[128];
} S_frame;

static void S_conditions_in(tb_tpl_ctx *c, cmark_node *container)
{
	S_frame *st = NULL;
	size_t n = 0, cap = 0;
	for (cmark_node *ch = cmark_node_first_child(container); ch; ch = cmark_node_next(ch)) {
		bool active = n == 0 || st[n - 1].active;
		tb_tag t;
		size_t line = 0, col = 0;
		if (S_lone_tag(c, ch, &t, &line, &col) &&
		    (t.kind == TB_TAG_IF || t.kind == TB_TAG_UNLESS)) {
			int truth = 1;
			tb_tpl_status s = c->env->condition(c->env->ctx, t.name, &truth);
			if (s != TB_TPL_OK)
				S_unknown(c, line, col, "condition", t.name, NULL);
			if (n == cap) {
				cap = cap ? cap * 2 : 4;
				st = tb_xrealloc(st, cap * sizeof *st);
			}
			S_frame *f = &st[n++];
			f->is_unless = t.kind == TB_TAG_UNLESS;
			f->active = active && (f->is_unless ? !truth : !!truth);
			f->line = line;
			f->col = col;
			strcpy(f->name, t.name);
			cmark_node_set_user_data(ch, &tb_tpl_marker_mark);
			tb_tpl_nodes_push(&c->dropped, ch, false);
		} else if (S_lone_tag(c, ch, &t, &line, &col) &&
		           (t.kind == TB_TAG_END_IF || t.kind == TB_TAG_END_UNLESS)) {
			bool unless = t.kind == TB_TAG_END_UNLESS;
			if (n == 0) {
				S_error(c, line, col, "'%s' without an open '%s'; expected a matching marker earlier in the same block",
				        unless ? "{{/unless}}" : "{{/if}}",
				        unless ? "{{#unless ...}}" : "{{#if ...}}");
			} else {
				S_frame *f = &st[n - 1];
				if (f->is_unless != unless)
					S_error(c, line, col, "'%s' closes '{{#%s %s}}' opened at %zu:%zu; expected '%s'",
					        unless ? "{{/unless}}" : "{{/if}}",
					        f->is_unless ? "unless" : "if", f->name, f->line, f->col,
					        f->is_unless ? "{{/unless}}" : "{{/if}}");
				n--;
			}
			cmark_node_set_user_data(ch, &tb_tpl_marker_mark);
			tb_tpl_nodes_push(&c->dropped, ch, false);
		} else if (!active) {
			cmark_node_set_user_data(ch, &tb_tpl_dropped_mark);
			tb_tpl_nodes_push(&c->dropped, ch, false);
		}
	}
	for (size_t k = 0; k < n; k++)
		S_error(c, st[k].line, st[k].col,
		        "unterminated '{{#%s %s}}'; expected '{{/%s}}' later in the same block",
		        st[k].is_unless ? "unless" : "if", st[k].name,
		        st[k].is_unless ? "unless" : "if");
	free(st);
}

static void S_conditions(tb_tpl_ctx *c, cmark_node *root)
{
	tb_tpl_nodes all = {0};
	tb_tpl_collect(root, &all);
	for (size_t k = 0; k < all.n; k++) {
		cmark_node_type ty = cmark_node_get_type(all.v[k]);
		if (ty == CMARK_NODE_DOCUMENT || ty == CMARK_NODE_BLOCK_QUOTE ||
		    ty == CMARK_NODE_ITEM)
			S_conditions_in(c, all.v[k]);
	}
	tb_tpl_nodes_release(&all);
}

/* ---- pass 3: placeholders and directives ----------------------------- */

typedef enum { S_IN_TEXT, S_IN_CODE, S_IN_CODE_BLOCK, S_IN_LINK } S_where;

/* memmem is a GNU extension; C11 has none. */
static const char *S_memmem(const char *hay, size_t n, const char *needle, size_t m)
{
	if (m == 0 || m > n)
		return NULL;
	for (const char *p = hay; (p = memchr(p, needle[0], n - (size_t)(p - hay) - m + 1)); p++)
		if (memcmp(p, needle, m) == 0)
			return p;
	return NULL;
}

/* Line start offsets, built once when first needed: many code blocks and
 * links stay linear. */
void tb_tpl_bol_build(tb_tpl_ctx *c)
{
	if (c->bol)
		return;
	size_t cap = 16;
	c->bol = tb_xmalloc(cap * sizeof *c->bol);
	c->bol[c->nbol++] = 0;
	for (size_t j = 0; j < c->len; j++)
		if (c->text[j] == '\n') {
			if (c->nbol == cap) {
				cap *= 2;
				c->bol = tb_xrealloc(c->bol, cap * sizeof *c->bol);
			}
			c->bol[c->nbol++] = j + 1;
		}
}

/* The 1-based line and column of byte offset `off` in the template. */
static void S_line_col(tb_tpl_ctx *c, size_t off, size_t *line, size_t *col)
{
	tb_tpl_bol_build(c);
	size_t lo = 0, hi = c->nbol;    /* last line start <= off */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->bol[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	*line = lo + 1;
	*col = off - c->bol[lo] + 1;
}

/* cmark 0.30 does not say whether a code block was fenced: look. */
static bool S_line_is_fence(tb_tpl_ctx *c, size_t line)
{
	tb_tpl_bol_build(c);
	if (line == 0 || line > c->nbol)
		return false;
	size_t i = c->bol[line - 1];
	while (i < c->len && c->text[i] == ' ')
		i++;
	return i + 2 < c->len &&
	       ((c->text[i] == '`' && c->text[i + 1] == '`' && c->text[i + 2] == '`') ||
	        (c->text[i] == '~' && c->text[i + 1] == '~' && c->text[i + 2] == '~'));
}

/* Where a node's literal lies, so a byte offset in it becomes line:col.
 * Advanced monotonically: many tags in one code block stay linear. */
typedef struct S_posmap {
	S_where w;
	size_t line0, col0;
	bool fenced;
	size_t scanned, nl, bol;
} S_posmap;

static void S_posmap_init(S_posmap *pm, tb_tpl_ctx *c, cmark_node *n, S_where w)
{
	memset(pm, 0, sizeof *pm);
	pm->w = w;
	S_node_pos(c, n, &pm->line0, &pm->col0);
	if (w == S_IN_CODE_BLOCK && pm->line0)
		pm->fenced = S_line_is_fence(c, pm->line0);
}

static void S_pos(S_posmap *pm, const char *lit, size_t off, size_t *line, size_t *col)
{
	if (pm->w != S_IN_CODE_BLOCK) {
		*line = pm->line0;
		/* cmark starts a code span at its content, past the backticks */
		*col = pm->col0 ? pm->col0 + off : 0;
		return;
	}
	for (; pm->scanned < off; pm->scanned++)
		if (lit[pm->scanned] == '\n') {
			pm->nl++;
			pm->bol = pm->scanned + 1;
		}
	*line = pm->line0 ? pm->line0 + pm->nl + (pm->fenced ? 1 : 0) : 0;
	/* cmark starts an indented block at its content */
	*col = (pm->col0 ? pm->col0 : 1) + (off - pm->bol);
}

static void S_put_value(tb_buf *cur, const char *v, S_where w)
{
	if (w == S_IN_CODE || w == S_IN_LINK) {
		tb_buf tmp;
		tb_buf_init(&tmp);
		tb_template_put_utf8(&tmp, v, strlen(v));
		for (size_t i = 0; i < tmp.len; i++)
			tb_buf_putc(cur, tmp.ptr[i] == '\n' || tmp.ptr[i] == '\r' ? ' ' : tmp.ptr[i]);
		tb_buf_release(&tmp);
	} else {
		tb_template_put_utf8(cur, v, strlen(v));
	}
}

/* Checks one tag (`inner` bytes at `tag`, inside its braces) found at
 * line:col, and puts its value in *val.  False when it is not a value to
 * insert; an error has then been reported. */
static bool S_eval_tag(tb_tpl_ctx *c, const char *tag, size_t inner, size_t line,
                       size_t col, S_where w, tb_buf *val)
{
	tb_tag t;
	tb_tag_parse(tag, inner, &t);
	if (t.kind == TB_TAG_BAD) {
		/* quote at most 60 bytes, cut between characters */
		size_t shown = inner > 60 ? 60 : inner;
		while (shown < inner && shown > 0 && ((unsigned char)tag[shown] & 0xC0) == 0x80)
			shown--;
		S_error(c, line, col, "malformed placeholder '{{%.*s}}'; %s", (int)shown, tag, t.why);
		return false;
	}
	if (t.kind != TB_TAG_VALUE) {
		tb_buf tt;
		tb_buf_init(&tt);
		tb_tag_text(&tt, &t);
		if (w == S_IN_TEXT)
			S_error(c, line, col, "'%s' must stand alone in its paragraph; expected a blank line before and after it", tt.ptr);
		else if (w == S_IN_LINK)
			S_error(c, line, col, "'%s' cannot be used inside a link destination or title; expected a value placeholder such as '{{scenario.name}}'", tt.ptr);
		else
			S_error(c, line, col, "'%s' cannot be used inside code; expected a value placeholder such as '{{flops.total_6nd}}'", tt.ptr);
		tb_buf_release(&tt);
		return false;
	}
	tb_buf_truncate(val, 0);
	tb_tpl_status s = c->env->value(c->env->ctx, t.name,
	                                t.filter[0] ? t.filter : NULL, val);
	if (s == TB_TPL_OK && c->value_bytes <= TB_TEMPLATE_MAX_VALUE_BYTES) {
		c->value_bytes += val->len;
		if (c->value_bytes > TB_TEMPLATE_MAX_VALUE_BYTES) {
			S_error(c, line, col, "the values placed so far come to more than %zu MiB; "
			        "expected a template that places a large value such as "
			        "'{{scenario.text}}' once", TB_TEMPLATE_MAX_VALUE_BYTES >> 20);
			return false;
		}
	} else if (s == TB_TPL_OK) {
		return false;   /* said once */
	}
	if (s == TB_TPL_UNKNOWN_NAME && !t.filter[0] &&
	    c->env->directive(c->env->ctx, "block", t.name, NULL) == TB_TPL_OK) {
		S_error(c, line, col, "'{{%s}}' must stand alone in its paragraph; expected a blank line before and after it", t.name);
		return false;
	}
	if (s == TB_TPL_UNKNOWN_NAME) {
		S_unknown(c, line, col, "placeholder", t.name, NULL);
		return false;
	}
	if (s == TB_TPL_UNKNOWN_FILTER) {
		S_unknown(c, line, col, "filter", t.filter,
		          "expected one of sci, bytes, gib, count, grouped, days, money, pct, plain");
		return false;
	}
	if (s == TB_TPL_BAD_FILTER) {
		S_error(c, line, col, "filter '%s' does not apply to '%s'; expected a number for numeric filters",
		        t.filter, t.name);
		return false;
	}
	return true;
}

/* Expands the placeholders of one literal.  In text, a value's newlines
 * become hard line breaks (text nodes inserted before n), so a multi-line
 * note keeps its lines without any of them being read as Markdown. */
static void S_expand_literal(tb_tpl_ctx *c, cmark_node *n, S_where w, bool dead)
{
	const char *lit0 = cmark_node_get_literal(n);
	if (!lit0 || !strstr(lit0, "{{"))
		return;
	char *lit = tb_xstrdup(lit0);
	size_t len = strlen(lit);
	S_posmap pm;
	S_posmap_init(&pm, c, n, w);
	tb_buf cur, val;
	tb_buf_init(&cur);
	tb_buf_init(&val);
	size_t i = 0;
	while (i < len) {
		const char *open = strstr(lit + i, "{{");
		if (!open) {
			tb_buf_put(&cur, lit + i, len - i);
			break;
		}
		size_t o = (size_t)(open - lit);
		tb_buf_put(&cur, lit + i, o - i);
		size_t line, col;
		S_pos(&pm, lit, o, &line, &col);
		/* The tag ends on its own line; without "}}" there, the rest of
		 * the line is literal (one error, and linear time). */
		const char *eol = memchr(open + 2, '\n', len - o - 2);
		size_t end = eol ? (size_t)(eol - lit) : len;
		const char *close = NULL;
		for (size_t j = o + 2; j + 1 < end; j++)
			if (lit[j] == '}' && lit[j + 1] == '}') {
				close = lit + j;
				break;
			}
		if (!close) {
			S_error(c, line, col, "unterminated '{{'; expected '}}' on the same line");
			tb_buf_put(&cur, open, end - o);
			i = end;
			continue;
		}
		size_t inner = (size_t)(close - open) - 2;
		i = (size_t)(close - lit) + 2;
		if (!S_eval_tag(c, open + 2, inner, line, col, w, &val))
			continue;
		if (dead)
			continue;
		/* a note's final newline would become a dangling line break */
		while (w == S_IN_TEXT && val.len &&
		       (val.ptr[val.len - 1] == '\n' || val.ptr[val.len - 1] == '\r'))
			tb_buf_truncate(&val, val.len - 1);
		if (w != S_IN_TEXT || !strchr(val.ptr, '\n')) {
			S_put_value(&cur, val.ptr, w);
			continue;
		}
		const char *p = val.ptr;
		for (;;) {
			const char *nl = strchr(p, '\n');
			if (!nl) {
				S_put_value(&cur, p, w);
				break;
			}
			char *seg = tb_xstrndup(p, (size_t)(nl - p));
			size_t sl = strlen(seg);
			if (sl && seg[sl - 1] == '\r')
				seg[sl - 1] = '\0';
			S_put_value(&cur, seg, w);
			free(seg);
			cmark_node *tn = cmark_node_new(CMARK_NODE_TEXT);
			cmark_node_set_literal(tn, cur.ptr);
			cmark_node_insert_before(n, tn);
			cmark_node_insert_before(n, cmark_node_new(CMARK_NODE_LINEBREAK));
			tb_buf_truncate(&cur, 0);
			p = nl + 1;
		}
	}
	if (!dead)
		cmark_node_set_literal(n, cur.ptr);
	tb_buf_release(&cur);
	tb_buf_release(&val);
	free(lit);
}

/* Counts a block against TB_TEMPLATE_MAX_BLOCKS; false past it (said
 * once). */
bool tb_tpl_count_block(tb_tpl_ctx *c, size_t line, size_t col)
{
	if (++c->blocks <= TB_TEMPLATE_MAX_BLOCKS)
		return true;
	if (c->blocks == TB_TEMPLATE_MAX_BLOCKS + 1)
		S_error(c, line, col, "more than %d tables, charts, derivations and blocks; "
		        "expected at most %d in one report", TB_TEMPLATE_MAX_BLOCKS,
		        TB_TEMPLATE_MAX_BLOCKS);
	return false;
}

static void S_directive(tb_tpl_ctx *c, cmark_node *para, const tb_tag *t,
                        size_t line, size_t col, bool dead)
{
	if (c->in_cell) {
		tb_buf tt;
		tb_buf_init(&tt);
		tb_tag_text(&tt, t);
		S_error(c, line, col, "'%s' cannot be used inside a table cell; expected a value "
		        "placeholder such as '{{flops.total_6nd}}'", tt.ptr);
		tb_buf_release(&tt);
		return;
	}
	if (!tb_tpl_count_block(c, line, col))
		return;
	cmark_node *into = dead ? NULL : cmark_node_new(CMARK_NODE_DOCUMENT);
	tb_tpl_status s = c->env->directive(c->env->ctx, t->directive, t->name, into);
	if (s != TB_TPL_OK) {
		char what[48];
		snprintf(what, sizeof what, "%s", t->directive);
		S_unknown(c, line, col, what, t->name, NULL);
	} else if (into) {
		cmark_node *ch;
		while ((ch = cmark_node_first_child(into)) != NULL)
			cmark_node_insert_before(para, ch);
		tb_tpl_nodes_push(&c->to_free, para, false);
	}
	if (into)
		cmark_node_free(into);
}

/* A link's or image's destination and title.  cmark keeps no position for
 * them, so each tag is found in the source from the link's start.  A value
 * goes in as one line; in a destination, percent-encoded and kept from
 * supplying a scheme (linkdest.h), after which S_check_link judges the
 * whole destination. */
static void S_expand_link(tb_tpl_ctx *c, cmark_node *n, bool dead)
{
	tb_tpl_bol_build(c);
	size_t line0, col0;
	S_node_pos(c, n, &line0, &col0);
	size_t from = line0 >= 1 && line0 <= c->nbol && col0 >= 1
	              ? c->bol[line0 - 1] + col0 - 1 : 0;
	for (int part = 0; part < 2; part++) {
		const char *s0 = part ? cmark_node_get_title(n) : cmark_node_get_url(n);
		if (!s0 || !strstr(s0, "{{"))
			continue;
		size_t len = strlen(s0);
		tb_buf cur, val;
		tb_buf_init(&cur);
		tb_buf_init(&val);
		size_t i = 0;
		while (i < len) {
			const char *open = strstr(s0 + i, "{{");
			const char *close = open ? strstr(open + 2, "}}") : NULL;
			if (!close) {
				tb_buf_put(&cur, s0 + i, len - i);
				break;
			}
			tb_buf_put(&cur, s0 + i, (size_t)(open - (s0 + i)));
			size_t tag_len = (size_t)(close - open) + 2;
			i = (size_t)(close - s0) + 2;
			size_t line = line0, col = col0;
			const char *at = from < c->len
			                 ? S_memmem(c->text + from, c->len - from, open, tag_len) : NULL;
			if (at) {
				from = (size_t)(at - c->text) + tag_len;
				S_line_col(c, (size_t)(at - c->text), &line, &col);
			}
			if (!S_eval_tag(c, open + 2, tag_len - 4, line, col, S_IN_LINK, &val) || dead)
				continue;
			if (part) {
				S_put_value(&cur, val.ptr, S_IN_LINK);
			} else {
				tb_buf one;
				tb_buf_init(&one);
				S_put_value(&one, val.ptr, S_IN_LINK);
				tb_linkdest_put_value(&cur, cur.ptr, one.ptr);
				tb_buf_release(&one);
			}
		}
		if (!dead) {
			if (part)
				cmark_node_set_title(n, cur.ptr);
			else
				cmark_node_set_url(n, cur.ptr);
		}
		tb_buf_release(&cur);
		tb_buf_release(&val);
	}
}

/* Reports a destination linkdest.h does not allow; false when it is
 * allowed.  `shown` is what the message quotes. */
static bool S_link_refused(tb_tpl_ctx *c, cmark_node *n, const char *url, const char *shown)
{
	char scheme[32];
	if (tb_linkdest_allowed(url, scheme, sizeof scheme))
		return false;
	size_t len = strlen(shown), cut = len > 60 ? 60 : len;
	while (cut < len && cut > 0 && ((unsigned char)shown[cut] & 0xC0) == 0x80)
		cut--;
	const char *what = cmark_node_get_type(n) == CMARK_NODE_IMAGE ? "image" : "link";
	size_t line, col;
	S_node_pos(c, n, &line, &col);
	if (scheme[0])
		S_error(c, line, col, "%s destination '%.*s%s' is a '%s:' link once decoded; "
		        "expected an http, https or mailto URL or a relative path",
		        what, (int)cut, shown, cut < len ? "..." : "", scheme);
	else
		S_error(c, line, col, "%s destination '%.*s%s' is still encoded after 16 rounds of "
		        "decoding; expected an http, https or mailto URL or a relative path",
		        what, (int)cut, shown, cut < len ? "..." : "");
	return true;
}

/* Every link and image destination, as the template wrote it (each
 * placeholder standing for a plain word, so the verdict does not depend
 * on the scenario) and, when expanded, as it came out. */
static void S_check_link(tb_tpl_ctx *c, cmark_node *n, const char *as_written, bool dead)
{
	tb_buf t;
	tb_buf_init(&t);
	for (const char *p = as_written; *p;) {
		const char *open = strstr(p, "{{");
		const char *close = open ? strstr(open + 2, "}}") : NULL;
		if (!close) {
			tb_buf_puts(&t, p);
			break;
		}
		tb_buf_put(&t, p, (size_t)(open - p));
		tb_buf_putc(&t, 'x');
		p = close + 2;
	}
	if (!S_link_refused(c, n, t.ptr, as_written) && !dead) {
		const char *url = cmark_node_get_url(n);
		S_link_refused(c, n, url ? url : "", url ? url : "");
	}
	tb_buf_release(&t);
}

/* Raw HTML is dropped from every format (cmark's safe HTML renderer drops
 * it from the HTML; its Markdown renderer would copy it): comments
 * silently, anything else with one warning. */
static void S_raw_html(tb_tpl_ctx *c, cmark_node *n, bool dead)
{
	const char *lit = cmark_node_get_literal(n);
	while (lit && (*lit == ' ' || *lit == '\t' || *lit == '\n'))
		lit++;
	if (!lit || strncmp(lit, "<!--", 4) != 0) {
		if (c->raw_html++ == 0) {
			S_node_pos(c, n, &c->raw_html_line, &c->raw_html_col);
		}
	}
	/* a cell's document is freed whole */
	if (!dead && !c->in_cell)
		tb_tpl_nodes_push(&c->to_free, n, false);
}

void tb_tpl_expand_tree(tb_tpl_ctx *c, cmark_node *root)
{
	tb_tpl_nodes all = {0};
	tb_tpl_collect(root, &all);
	for (size_t k = 0; k < all.n; k++) {
		cmark_node *n = all.v[k];
		bool dead = all.dead[k];
		if (c->ntables && tb_tpl_in_table(n))
			continue;
		switch (cmark_node_get_type(n)) {
		case CMARK_NODE_TEXT: {
			cmark_node *par = cmark_node_parent(n);
			if (par && cmark_node_get_user_data(par) == &tb_tpl_marker_mark)
				break;
			tb_tag t;
			size_t line, col;
			if (par && S_lone_tag(c, par, &t, &line, &col) && t.kind == TB_TAG_DIRECTIVE) {
				S_directive(c, par, &t, line, col, dead);
				break;
			}
			/* a bare `{{NAME}}` alone may name a block ({{verdict}}):
			 * the environment says, so the engine stays syntax only */
			if (par && S_lone_tag(c, par, &t, &line, &col) && t.kind == TB_TAG_VALUE &&
			    !t.filter[0] &&
			    c->env->directive(c->env->ctx, "block", t.name, NULL) == TB_TPL_OK) {
				strcpy(t.directive, "block");
				S_directive(c, par, &t, line, col, dead);
				break;
			}
			S_expand_literal(c, n, S_IN_TEXT, dead);
			break;
		}
		case CMARK_NODE_CODE:
			S_expand_literal(c, n, S_IN_CODE, dead);
			break;
		case CMARK_NODE_CODE_BLOCK:
			S_expand_literal(c, n, S_IN_CODE_BLOCK, dead);
			break;
		case CMARK_NODE_LINK:
		case CMARK_NODE_IMAGE: {
			const char *u = cmark_node_get_url(n);
			char *as_written = tb_xstrdup(u ? u : "");
			S_expand_link(c, n, dead);
			S_check_link(c, n, as_written, dead);
			free(as_written);
			break;
		}
		case CMARK_NODE_HTML_BLOCK:
		case CMARK_NODE_HTML_INLINE:
			S_raw_html(c, n, dead);
			break;
		default:
			break;
		}
	}
	tb_tpl_nodes_release(&all);
}

/* ---- depth --------------------------------------------------------- */

/* The first node (pre-order) deeper than TB_TEMPLATE_MAX_DEPTH, or NULL. */
static cmark_node *S_too_deep(cmark_node *root)
{
	cmark_iter *it = cmark_iter_new(root);
	size_t depth = 0;   /* of the container being walked; the document's is 0 */
	cmark_node *found = NULL;
	cmark_event_type ev;
	while (!found && (ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		cmark_node *n = cmark_iter_get_node(it);
		if (n == root)
			continue;
		if (ev == CMARK_EVENT_EXIT)
			depth--;
		else if (depth + 1 > TB_TEMPLATE_MAX_DEPTH)
			found = n;
		else if (!S_is_leaf(n))
			depth++;
	}
	cmark_iter_free(it);
	return found;
}

/* Reports a tree nested too deep; false when it is not.  A node a
 * directive built has no position: its nearest placed ancestor stands in. */
static bool S_depth_error(tb_tpl_ctx *c, cmark_node *root, const char *after)
{
	cmark_node *n = S_too_deep(root);
	if (!n)
		return false;
	while (cmark_node_parent(n) && cmark_node_get_start_line(n) <= 0)
		n = cmark_node_parent(n);
	int line = cmark_node_get_start_line(n), col = cmark_node_get_start_column(n);
	S_error(c, line > 0 ? (size_t)line : 0, col > 0 ? (size_t)col : 0,
	        "nesting deeper than %d levels%s; expected at most %d nested block quotes, "
	        "lists, emphases and links", TB_TEMPLATE_MAX_DEPTH, after, TB_TEMPLATE_MAX_DEPTH);
	return true;
}

cmark_node *tb_template_expand(const char *text, size_t len, const char *file,
                               const tb_tpl_env *env, tb_diags *d)
{
	tb_tpl_ctx c;
	memset(&c, 0, sizeof c);
	c.text = text ? text : "";
	c.len = text ? len : 0;
	c.file = file ? file : "<template>";
	c.env = env;
	c.d = d;
	size_t errors0 = d->errors;

	if (c.len > TB_TEMPLATE_MAX_BYTES) {
		S_error(&c, 0, 0, "the template is larger than %zu MiB; expected a CommonMark file "
		        "of a few kilobytes", TB_TEMPLATE_MAX_BYTES >> 20);
		return NULL;
	}
	cmark_node *doc = cmark_parse_document(c.text, c.len,
	                                       CMARK_OPT_DEFAULT | CMARK_OPT_VALIDATE_UTF8);
	if (!doc) {
		S_error(&c, 0, 0, "the template could not be parsed; expected CommonMark text");
		return NULL;
	}
	/* Deeper input is refused before anything walks it: the back ends
	 * may recurse, and the Markdown's line prefixes grow with depth. */
	if (S_depth_error(&c, doc, "")) {
		cmark_node_free(doc);
		return NULL;
	}
	cmark_consolidate_text_nodes(doc);
	S_conditions(&c, doc);
	tb_tpl_find_tables(&c, doc);
	tb_tpl_expand_tree(&c, doc);
	tb_tpl_build_tables(&c);
	if (c.raw_html)
		tb_diags_add(d, TB_DIAG_WARNING, c.file, c.text, c.len, c.raw_html_line, c.raw_html_col,
		             "raw HTML is dropped from every format (%zu place%s); expected Markdown",
		             c.raw_html, c.raw_html == 1 ? "" : "s");

	for (size_t k = 0; k < c.to_free.n; k++)
		cmark_node_free(c.to_free.v[k]);
	for (size_t k = c.dropped.n; k-- > 0;)
		cmark_node_free(c.dropped.v[k]);
	tb_tpl_nodes_release(&c.to_free);
	tb_tpl_nodes_release(&c.dropped);
	tb_tpl_release_tables(&c);

	if (d->errors == errors0)
		S_depth_error(&c, doc, " once its tables and blocks are built");
	free(c.bol);

	if (d->errors > errors0) {
		cmark_node_free(doc);
		return NULL;
	}
	return doc;
}
