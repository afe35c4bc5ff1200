/* yamltree.c: libyaml events -> a located tree (yamltree.h), look-ups,
 * and typed getters that report where a bad value is.
 *
 * The messages speak of "a scenario", today the only document read this
 * way; they are pinned by the malformed-scenario catalogue. */
#include "yamltree.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "trainbudget/units.h"
#include "trainbudget/xalloc.h"

#define S_MAX_DEPTH 32
#define S_MAX_NODES 20000

/* ---- the located tree ------------------------------------------------ */

static void S_errv(tb_yaml_ctx *c, const tb_yaml_src *src, size_t line, size_t col,
                   const char *fmt, va_list ap)
{
	if (c->quiet) {
		c->suppressed++;
		return;
	}
	tb_buf b;
	tb_buf_init(&b);
	tb_buf_vprintf(&b, fmt, ap);
	tb_diags_add(c->d, TB_DIAG_ERROR, src ? src->file : NULL,
	             src ? src->text : NULL, src ? src->len : 0, line, col,
	             "%s", b.ptr);
	tb_buf_release(&b);
}

void tb_yaml_err(tb_yaml_ctx *c, const tb_yaml_node *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	S_errv(c, at ? at->src : NULL, at ? at->line : 0, at ? at->col : 0, fmt, ap);
	va_end(ap);
}

void tb_yaml_err_at(tb_yaml_ctx *c, const tb_yaml_src *src, size_t line, size_t col,
                    const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	S_errv(c, src, line, col, fmt, ap);
	va_end(ap);
}

bool tb_yaml_value_col(const tb_yaml_node *n, size_t offset, size_t *col)
{
	const tb_yaml_src *src = n ? n->src : NULL;
	if (!src || !src->text || n->kind != TB_YAML_SCALAR || !n->str || n->line < 1 ||
	    n->col < 1 || offset > strlen(n->str))
		return false;
	size_t pos = 0;
	for (size_t l = 1; l < n->line; l++) {
		const char *nl = memchr(src->text + pos, '\n', src->len - pos);
		if (!nl)
			return false;
		pos = (size_t)(nl - src->text) + 1;
	}
	size_t skip = n->col - 1 + (n->quoted ? 1 : 0);
	if (skip > src->len - pos || offset > src->len - pos - skip ||
	    memcmp(src->text + pos + skip, n->str, offset) != 0)
		return false;
	*col = n->col + (n->quoted ? 1 : 0) + offset;
	return true;
}

tb_yaml_node *tb_yaml_node_new(tb_yaml_ctx *c, tb_yaml_kind kind,
                               const tb_yaml_src *src, size_t line, size_t col)
{
	tb_yaml_node *n = tb_xcalloc(1, sizeof *n);
	n->kind = kind;
	n->src = src;
	n->line = line;
	n->col = col;
	c->nodes++;
	return n;
}

void tb_yaml_node_free(tb_yaml_node *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n; i++) {
		if (n->keys)
			tb_yaml_node_free(n->keys[i]);
		tb_yaml_node_free(n->vals[i]);
	}
	free(n->keys);
	free(n->vals);
	free(n->str);
	free(n);
}

tb_yaml_node *tb_yaml_node_copy(const tb_yaml_node *n)
{
	if (!n)
		return NULL;
	tb_yaml_node *c = tb_xmalloc(sizeof *c);
	*c = *n;
	c->str = n->str ? tb_xstrdup(n->str) : NULL;
	c->keys = c->vals = NULL;
	c->cap = n->n;
	if (n->n) {
		c->vals = tb_xcalloc(n->n, sizeof *c->vals);
		if (n->keys)
			c->keys = tb_xcalloc(n->n, sizeof *c->keys);
		for (size_t i = 0; i < n->n; i++) {
			if (n->keys)
				c->keys[i] = tb_yaml_node_copy(n->keys[i]);
			c->vals[i] = tb_yaml_node_copy(n->vals[i]);
		}
	}
	return c;
}

void tb_yaml_append(tb_yaml_node *parent, tb_yaml_node *key, tb_yaml_node *val)
{
	if (parent->n == parent->cap) {
		parent->cap = parent->cap ? parent->cap * 2 : 8;
		parent->vals = tb_xrealloc(parent->vals, parent->cap * sizeof *parent->vals);
		if (parent->kind == TB_YAML_MAP)
			parent->keys = tb_xrealloc(parent->keys, parent->cap * sizeof *parent->keys);
	}
	if (parent->kind == TB_YAML_MAP)
		parent->keys[parent->n] = key;
	parent->vals[parent->n++] = val;
}

void tb_yaml_remove(tb_yaml_node *map, size_t at)
{
	if (!map || map->kind != TB_YAML_MAP || at >= map->n)
		return;
	tb_yaml_node_free(map->keys[at]);
	tb_yaml_node_free(map->vals[at]);
	memmove(map->keys + at, map->keys + at + 1, (map->n - at - 1) * sizeof *map->keys);
	memmove(map->vals + at, map->vals + at + 1, (map->n - at - 1) * sizeof *map->vals);
	map->n--;
}

const char *tb_yaml_kind_name(const tb_yaml_node *n)
{
	switch (n->kind) {
	case TB_YAML_SCALAR: return "a scalar";
	case TB_YAML_SEQ: return "a list";
	case TB_YAML_MAP: return "a mapping";
	}
	return "a value";
}

long tb_yaml_find(const tb_yaml_node *map, const char *key)
{
	if (!map || map->kind != TB_YAML_MAP)
		return -1;
	for (size_t i = 0; i < map->n; i++)
		if (!map->keys[i]->dup && strcmp(map->keys[i]->str, key) == 0)
			return (long)i;
	return -1;
}

tb_yaml_node *tb_yaml_get(const tb_yaml_node *map, const char *key)
{
	long i = tb_yaml_find(map, key);
	return i < 0 ? NULL : map->vals[i];
}

tb_yaml_node *tb_yaml_get_key(const tb_yaml_node *map, const char *key)
{
	long i = tb_yaml_find(map, key);
	return i < 0 ? NULL : map->keys[i];
}

/* ---- parsing --------------------------------------------------------- */

typedef struct S_frame {
	tb_yaml_node *node;
	tb_yaml_node *pending_key;    /* maps: the key awaiting its value */
} S_frame;

static size_t S_line_of(const tb_yaml_src *src, const yaml_mark_t *m)
{
	return src->col_offset ? 1 : m->line + 1;
}

static size_t S_col_of(const tb_yaml_src *src, const yaml_mark_t *m)
{
	return src->col_offset + m->column + 1;
}

/* libyaml's reader errors (a byte that is not UTF-8, a control character)
 * carry a byte offset into the input and no mark: make the mark, counting
 * columns in characters as libyaml does, so the error is reported where
 * the byte is rather than at 1:1. */
static yaml_mark_t S_mark_at(const char *text, size_t len, size_t off)
{
	yaml_mark_t m;
	memset(&m, 0, sizeof m);
	if (off > len)
		off = len;
	for (size_t i = 0; i < off; i++) {
		if (text[i] == '\n') {
			m.line++;
			m.column = 0;
		} else if (((unsigned char)text[i] & 0xC0) != 0x80) {
			m.column++;
		}
	}
	return m;
}

/* Attaches a finished scalar or a freshly opened collection to the frame
 * on top of the stack.  Returns false when the node was not kept (and has
 * been freed). */
static bool S_attach(tb_yaml_ctx *c, S_frame *top, tb_yaml_node **root, tb_yaml_node *n)
{
	if (!top) {
		if (!*root) {
			*root = n;
			return true;
		}
		tb_yaml_node_free(n);
		return false;
	}
	tb_yaml_node *p = top->node;
	if (p->kind == TB_YAML_SEQ) {
		tb_yaml_append(p, NULL, n);
		return true;
	}
	if (!top->pending_key) {
		/* Keys are scalars here: tb_yaml_parse turns a collection used as a
		 * key into a scalar placeholder before it attaches it. */
		long prev = tb_yaml_find(p, n->str);
		if (prev >= 0 && !n->dup) {
			tb_yaml_err(c, n, "duplicate key '%s' (first at line %zu); expected each key once",
			            n->str, p->keys[prev]->line);
			n->dup = true;
		}
		top->pending_key = n;
		return true;
	}
	tb_yaml_append(p, top->pending_key, n);
	top->pending_key = NULL;
	return true;
}

tb_yaml_node *tb_yaml_parse(tb_yaml_ctx *c, const tb_yaml_src *src, const char *text, size_t len,
                            bool quiet_syntax)
{
	yaml_parser_t parser;
	if (!yaml_parser_initialize(&parser)) {
		tb_yaml_err_at(c, src, 0, 0, "cannot initialise the YAML parser; expected enough memory");
		return NULL;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	c->nodes = 0;   /* the limit is per document */

	S_frame stack[S_MAX_DEPTH];
	size_t depth = 0;
	tb_yaml_node *root = NULL;
	bool failed = false, done = false;
	int docs = 0;
	/* Collections nested below the depth limit are skipped, not built. */
	size_t skip_depth = 0;

	while (!done && !failed) {
		yaml_event_t ev;
		if (!yaml_parser_parse(&parser, &ev)) {
			if (!quiet_syntax && parser.error == YAML_READER_ERROR) {
				const char *problem = parser.problem ? parser.problem : "unreadable input";
				size_t off = parser.problem_offset < len ? parser.problem_offset : len;
				/* libyaml names the byte where the sequence broke (the '"'
				 * after a Latin-1 'é'); the reader wants the byte that
				 * started it */
				if (strstr(problem, "trailing")) {
					for (size_t k = 0; k < 3 && off > 0 &&
					     ((unsigned char)text[off - 1] & 0xC0) == 0x80; k++)
						off--;
					if (off > 0 && (unsigned char)text[off - 1] >= 0xC0)
						off--;
				}
				yaml_mark_t at = S_mark_at(text, len, off);
				if (strstr(problem, "control"))
					tb_yaml_err_at(c, src, S_line_of(src, &at), S_col_of(src, &at),
					               "control character U+%04X; expected printable text "
					               "(tabs and line breaks are fine)",
					               (unsigned)parser.problem_value);
				else
					tb_yaml_err_at(c, src, S_line_of(src, &at), S_col_of(src, &at),
					               "not UTF-8 (byte 0x%02X); expected UTF-8 text "
					               "(a Latin-1 file can be converted with iconv)",
					               off < len ? (unsigned char)text[off] : 0u);
			} else if (!quiet_syntax) {
				const yaml_mark_t *m = &parser.problem_mark;
				if (parser.context && strstr(parser.context, "quoted scalar"))
					/* libyaml reports the end of the file; the opening
					 * quote is where the mistake is. */
					tb_yaml_err_at(c, src, S_line_of(src, &parser.context_mark),
					               S_col_of(src, &parser.context_mark),
					               "unterminated quoted string; expected a closing quote");
				else if (parser.context)
					tb_yaml_err_at(c, src, S_line_of(src, m), S_col_of(src, m),
					               "invalid YAML: %s %s; expected well-formed YAML (check indentation, colons and quotes)",
					               parser.problem ? parser.problem : "syntax error", parser.context);
				else
					tb_yaml_err_at(c, src, S_line_of(src, m), S_col_of(src, m),
					               "invalid YAML: %s; expected well-formed YAML (check indentation, colons and quotes)",
					               parser.problem ? parser.problem : "syntax error");
			}
			failed = true;
			break;
		}
		size_t line = S_line_of(src, &ev.start_mark), col = S_col_of(src, &ev.start_mark);
		S_frame *top = depth ? &stack[depth - 1] : NULL;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (++docs > 1) {
				tb_yaml_err_at(c, src, line, col,
				               "a second YAML document; expected one scenario per file");
				failed = true;
			}
			break;
		case YAML_ALIAS_EVENT:
			tb_yaml_err_at(c, src, line, col,
			               "YAML alias '*%s'; expected the value written out (aliases are not supported)",
			               (const char *)ev.data.alias.anchor);
			failed = true;
			break;
		case YAML_SCALAR_EVENT: {
			if (skip_depth)
				break;
			if (c->nodes >= S_MAX_NODES) {
				tb_yaml_err_at(c, src, line, col, "too many values (over %d); expected a scenario of ordinary size",
				               S_MAX_NODES);
				failed = true;
				break;
			}
			/* "\0" in a quoted string: the C string would end there,
			 * silently cutting the value */
			if (memchr(ev.data.scalar.value, '\0', ev.data.scalar.length))
				tb_yaml_err_at(c, src, line, col,
				               "a NUL character (\\0) in a string; expected text without "
				               "control characters");
			tb_yaml_node *n = tb_yaml_node_new(c, TB_YAML_SCALAR, src, line, col);
			n->str = tb_xstrndup((const char *)ev.data.scalar.value, ev.data.scalar.length);
			n->quoted = ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
			S_attach(c, top, &root, n);
			break;
		}
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT: {
			if (skip_depth) {
				skip_depth++;
				break;
			}
			if (depth >= S_MAX_DEPTH || c->nodes >= S_MAX_NODES) {
				tb_yaml_err_at(c, src, line, col,
				               depth >= S_MAX_DEPTH ? "nesting deeper than %d levels; expected a shallow scenario"
				                                    : "too many values (over %d); expected a scenario of ordinary size",
				               depth >= S_MAX_DEPTH ? S_MAX_DEPTH : S_MAX_NODES);
				failed = true;
				break;
			}
			tb_yaml_node *n = tb_yaml_node_new(c, ev.type == YAML_SEQUENCE_START_EVENT ? TB_YAML_SEQ : TB_YAML_MAP,
			                                   src, line, col);
			bool kept = true;
			if (top && top->node->kind == TB_YAML_MAP && !top->pending_key) {
				/* A collection as a key: report it and drop its contents. */
				tb_yaml_err(c, n, "%s used as a key; expected a plain key name", tb_yaml_kind_name(n));
				/* A placeholder key takes the value that follows, so
				 * the keys after it stay keys. */
				tb_yaml_node *k = tb_yaml_node_new(c, TB_YAML_SCALAR, src, line, col);
				k->str = tb_xstrdup("");
				k->dup = true;
				S_attach(c, top, &root, k);
				tb_yaml_node_free(n);
				kept = false;
				skip_depth = 1;
			} else {
				kept = S_attach(c, top, &root, n);
			}
			if (kept) {
				stack[depth].node = n;
				stack[depth].pending_key = NULL;
				depth++;
			} else if (!skip_depth) {
				skip_depth = 1;
			}
			break;
		}
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			if (skip_depth) {
				skip_depth--;
				break;
			}
			if (depth) {
				/* A key left without a value cannot happen in valid YAML. */
				tb_yaml_node_free(stack[depth - 1].pending_key);
				stack[depth - 1].pending_key = NULL;
				depth--;
			}
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	for (size_t i = 0; i < depth; i++) {
		tb_yaml_node_free(stack[i].pending_key);
		stack[i].pending_key = NULL;
	}
	yaml_parser_delete(&parser);
	c->parse_failed = failed;
	if (failed) {
		tb_yaml_node_free(root);
		return NULL;
	}
	return root;
}

/* Tabs in indentation are a YAML error libyaml words obscurely. */
size_t tb_yaml_check_tabs(tb_yaml_ctx *c, const tb_yaml_src *src, const char *text, size_t len)
{
	size_t found = 0, line = 1, i = 0;
	while (i < len) {
		size_t start = i, tab_col = 0;
		while (i < len && (text[i] == ' ' || text[i] == '\t')) {
			if (text[i] == '\t' && !tab_col)
				tab_col = i - start + 1;
			i++;
		}
		bool content = i < len && text[i] != '\n' && text[i] != '\r' && text[i] != '#';
		if (tab_col && content) {
			tb_yaml_err_at(c, src, line, tab_col, "tab character in indentation; use spaces");
			found++;
		}
		while (i < len && text[i] != '\n')
			i++;
		if (i < len)
			i++;
		line++;
	}
	return found;
}

/* ---- keys ------------------------------------------------------------ */

bool tb_yaml_in(const char *word, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(word, list[i]) == 0)
			return true;
	return false;
}

void tb_yaml_join(tb_buf *b, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		tb_buf_printf(b, "%s%s", i ? ", " : "", list[i]);
}

const char *tb_yaml_show(const char *s, char buf[48])
{
	size_t n = strlen(s);
	if (n <= 40)
		return s;
	memcpy(buf, s, 37);
	memcpy(buf + 37, "...", 4);
	return buf;
}

void tb_yaml_unknown_key(tb_yaml_ctx *c, const tb_yaml_node *key, const char *prefix,
                         const char *const *list, size_t n)
{
	char sh[48];
	const char *sugg = tb_diags_suggest(key->str, list, n);
	if (sugg) {
		tb_yaml_err(c, key, "unknown key '%s%s'; did you mean '%s%s'?", prefix,
		            tb_yaml_show(key->str, sh), prefix, sugg);
		return;
	}
	tb_buf b;
	tb_buf_init(&b);
	tb_yaml_join(&b, list, n);
	tb_yaml_err(c, key, "unknown key '%s%s'; expected one of %s", prefix, tb_yaml_show(key->str, sh), b.ptr);
	tb_buf_release(&b);
}

void tb_yaml_check_keys(tb_yaml_ctx *c, const tb_yaml_node *map, const char *prefix,
                        const char *const *list, size_t n)
{
	for (size_t i = 0; i < map->n; i++)
		if (!map->keys[i]->dup && !tb_yaml_in(map->keys[i]->str, list, n))
			tb_yaml_unknown_key(c, map->keys[i], prefix, list, n);
}

/* ---- typed getters --------------------------------------------------- */

const char *tb_yaml_scalar(tb_yaml_ctx *c, const tb_yaml_node *n, const char *name, const char *expected)
{
	if (n->kind != TB_YAML_SCALAR) {
		tb_yaml_err(c, n, "%s is %s; expected %s", name, tb_yaml_kind_name(n), expected);
		return NULL;
	}
	if (!n->quoted && (n->str[0] == '\0' || strcmp(n->str, "~") == 0 ||
	                   strcmp(n->str, "null") == 0 || strcmp(n->str, "Null") == 0 ||
	                   strcmp(n->str, "NULL") == 0)) {
		tb_yaml_err(c, n, "%s has no value; expected %s", name, expected);
		return NULL;
	}
	return n->str;
}

static const char *S_status_phrase(tb_units_status st)
{
	switch (st) {
	case TB_UNITS_OK: return "is valid";
	case TB_UNITS_EMPTY: return "is empty";
	case TB_UNITS_SYNTAX: return "is not a number";
	case TB_UNITS_SUFFIX: return "has an unknown unit";
	case TB_UNITS_NEGATIVE: return "is negative";
	case TB_UNITS_ZERO: return "is zero";
	case TB_UNITS_RANGE: return "is out of range (too large, too small, NaN or infinite)";
	case TB_UNITS_FRACTION: return "is outside (0, 1]";
	}
	return "is invalid";
}

bool tb_yaml_quant(tb_yaml_ctx *c, const tb_yaml_node *n, const char *name, tb_yaml_qkind kind,
                   const char *expected, double min, double max, double *out)
{
	const char *s = tb_yaml_scalar(c, n, name, expected);
	if (!s)
		return false;
	double v = 0;
	tb_units_status st;
	switch (kind) {
	case TB_YAML_Q_COUNT: st = tb_units_parse_count(s, &v); break;
	case TB_YAML_Q_BYTES: st = tb_units_parse_bytes(s, &v); break;
	case TB_YAML_Q_DURATION: st = tb_units_parse_duration(s, &v); break;
	case TB_YAML_Q_FRACTION: st = tb_units_parse_fraction(s, &v); break;
	case TB_YAML_Q_RATE: st = tb_units_parse_rate(s, &v); break;
	default: st = tb_units_parse_number(s, &v); break;
	}
	bool allow_zero = !(min > 0);
	if (st == TB_UNITS_ZERO && allow_zero) {
		st = TB_UNITS_OK;
		v = 0;
	}
	char sh[48];
	if (st == TB_UNITS_OK && v == 0 && !allow_zero)
		st = TB_UNITS_ZERO;
	if (st != TB_UNITS_OK) {
		tb_yaml_err(c, n, "%s '%s' %s; expected %s", name, tb_yaml_show(s, sh), S_status_phrase(st), expected);
		return false;
	}
	if (min > 0 && v < min) {
		/* the floor in the unit people write: 1 MB/s, not 1e+06 */
		const char *unit = kind == TB_YAML_Q_RATE ? " MB/s" : kind == TB_YAML_Q_BYTES ? " MB"
		                 : kind == TB_YAML_Q_DURATION ? " s" : "";
		double shown = kind == TB_YAML_Q_RATE || kind == TB_YAML_Q_BYTES ? min / 1e6 : min;
		tb_yaml_err(c, n, "%s '%s' is too small (the least is %g%s); expected %s", name, tb_yaml_show(s, sh), shown, unit, expected);
		return false;
	}
	if (max > 0 && v > max) {
		if (kind == TB_YAML_Q_COUNT && max <= 1e9)   /* whole numbers: `expected` states the range */
			tb_yaml_err(c, n, "%s '%s' is too large; expected %s", name, tb_yaml_show(s, sh), expected);
		else
			tb_yaml_err(c, n, "%s '%s' is too large (the limit is %.4g); expected %s", name, tb_yaml_show(s, sh), max, expected);
		return false;
	}
	*out = v;
	return true;
}

bool tb_yaml_int(tb_yaml_ctx *c, const tb_yaml_node *n, const char *name, int64_t min,
                 int64_t max, int64_t *out)
{
	char expected[96];
	snprintf(expected, sizeof expected, "a whole number from %lld to %lld",
	         (long long)min, (long long)max);
	double v = 0;
	/* the range is checked below, whole-number first: DBL_MIN only refuses zero */
	if (!tb_yaml_quant(c, n, name, TB_YAML_Q_COUNT, expected, min <= 0 ? 0 : DBL_MIN, (double)max, &v))
		return false;
	char sh[48];
	if (v != floor(v)) {
		tb_yaml_err(c, n, "%s '%s' is not a whole number; expected %s", name, tb_yaml_show(n->str, sh), expected);
		return false;
	}
	if (v < (double)min) {
		tb_yaml_err(c, n, "%s '%s' is too small; expected %s", name, tb_yaml_show(n->str, sh), expected);
		return false;
	}
	*out = (int64_t)v;
	return true;
}

static const char *const S_yes[] = { "true", "True", "TRUE", "yes", "Yes", "on" };
static const char *const S_no[] = { "false", "False", "FALSE", "no", "No", "off" };

bool tb_yaml_bool(tb_yaml_ctx *c, const tb_yaml_node *n, const char *name, bool *out)
{
	const char *s = tb_yaml_scalar(c, n, name, "true or false");
	if (!s)
		return false;
	if (tb_yaml_in(s, S_yes, TB_N(S_yes))) {
		*out = true;
		return true;
	}
	if (tb_yaml_in(s, S_no, TB_N(S_no))) {
		*out = false;
		return true;
	}
	char sh[48];
	tb_yaml_err(c, n, "%s '%s' is not a boolean; expected true or false", name, tb_yaml_show(s, sh));
	return false;
}

bool tb_yaml_enum(tb_yaml_ctx *c, const tb_yaml_node *n, const char *name,
                  const char *const *names, size_t count, int *out)
{
	tb_buf b;
	tb_buf_init(&b);
	tb_buf_puts(&b, "one of ");
	tb_yaml_join(&b, names, count);
	const char *s = tb_yaml_scalar(c, n, name, b.ptr);
	bool ok = false;
	if (s) {
		for (size_t i = 0; i < count; i++)
			if (strcmp(s, names[i]) == 0) {
				*out = (int)i;
				ok = true;
			}
		if (!ok) {
			char sh[48];
			const char *sugg = tb_diags_suggest(s, names, count);
			if (sugg)
				tb_yaml_err(c, n, "unknown %s '%s'; did you mean '%s'? expected %s", name, tb_yaml_show(s, sh), sugg, b.ptr);
			else
				tb_yaml_err(c, n, "unknown %s '%s'; expected %s", name, tb_yaml_show(s, sh), b.ptr);
		}
	}
	tb_buf_release(&b);
	return ok;
}

bool tb_yaml_switch(tb_yaml_ctx *c, const tb_yaml_node *n, const char *name,
                    const char *const *names, size_t count, int *out)
{
	const char *s = n && n->kind == TB_YAML_SCALAR ? n->str : NULL;
	if (s && count >= 2 && (tb_yaml_in(s, S_yes, TB_N(S_yes)) || tb_yaml_in(s, S_no, TB_N(S_no)))) {
		bool on;
		if (!tb_yaml_bool(c, n, name, &on))
			return false;
		*out = on ? 1 : 0;
		return true;
	}
	return tb_yaml_enum(c, n, name, names, count, out);
}

char *tb_yaml_string(tb_yaml_ctx *c, const tb_yaml_node *n, const char *name, size_t max_len,
                     bool one_line)
{
	const char *s = tb_yaml_scalar(c, n, name, "a string");
	if (!s)
		return NULL;
	if (strlen(s) > max_len) {
		tb_yaml_err(c, n, "%s is %zu bytes long; expected at most %zu", name, strlen(s), max_len);
		return NULL;
	}
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		bool line_end = *p == '\t' || *p == '\n' || *p == '\r';
		if ((*p < 0x20 || *p == 0x7f) && (one_line || !line_end)) {
			tb_yaml_err(c, n, one_line ? "%s holds a control character (0x%02x); expected one line of text"
			                           : "%s holds a control character (0x%02x); expected text (tabs and line breaks are fine)",
			            name, *p);
			return NULL;
		}
	}
	return tb_xstrdup(s);
}

/* ---- sections -------------------------------------------------------- */

const tb_yaml_node *tb_yaml_child_map(const tb_yaml_node *map, const char *name)
{
	const tb_yaml_node *n = tb_yaml_get(map, name);
	return n && n->kind == TB_YAML_MAP ? n : NULL;
}

bool tb_yaml_map_broken(const tb_yaml_node *map, const char *name)
{
	const tb_yaml_node *n = tb_yaml_get(map, name);
	return n && n->kind != TB_YAML_MAP &&
	       !(n->kind == TB_YAML_SCALAR && !n->quoted && n->str[0] == '\0');
}

const tb_yaml_node *tb_yaml_get_map(tb_yaml_ctx *c, const tb_yaml_node *map, const char *name)
{
	const tb_yaml_node *n = tb_yaml_get(map, name);
	if (!n)
		return NULL;
	if (n->kind != TB_YAML_MAP) {
		if (n->kind == TB_YAML_SCALAR && !n->quoted && n->str[0] == '\0')
			return NULL;    /* "training:" with nothing under it */
		tb_yaml_err(c, n, "%s is %s; expected a mapping of %s keys", name, tb_yaml_kind_name(n), name);
		return NULL;
	}
	return n;
}
