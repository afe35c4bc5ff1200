/* scenario.c: a scenario file -> a located tree -> --set -> checked inputs.
 *
 * libyaml's events build a small tree in which every node keeps its source
 * and 1-based line:col (jq's locfile), so a check made long after parsing
 * still points at the value it is about.  --set overrides are parsed as
 * YAML of their own and grafted onto the tree; their nodes point into the
 * "KEY=VALUE" string under the file name "<--set>".  Every problem is
 * collected in one pass; any error makes the load return NULL.
 *
 * Untrusted input: nesting depth, node count, input size and every integer
 * are bounded, and aliases are refused (no "billion laughs"). */
#include "trainbudget/scenario.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "trainbudget/buf.h"
#include "trainbudget/fileio.h"
#include "trainbudget/gpus.h"
#include "trainbudget/hfconfig.h"
#include "trainbudget/presets.h"
#include "trainbudget/sha256.h"
#include "trainbudget/units.h"
#include "trainbudget/xalloc.h"

#define S_MAX_DEPTH 32
#define S_MAX_NODES 20000
#define S_MAX_FILE_BYTES (4u << 20)
#define S_MAX_HF_BYTES (16u << 20)

/* ---- the located tree ------------------------------------------------ */

typedef struct S_src {
	const char *file;       /* as diagnostics print it */
	const char *text;       /* the whole source, for the caret line */
	size_t len;
	size_t col_offset;      /* --set values: where VALUE starts in KEY=VALUE */
} S_src;

typedef enum { S_SCALAR, S_SEQ, S_MAP } S_kind;

typedef struct S_node S_node;
struct S_node {
	S_kind kind;
	char *str;              /* scalars: the text; otherwise NULL */
	bool quoted;
	size_t line, col;
	const S_src *src;
	size_t n, cap;
	S_node **keys;          /* maps: key scalars, index-aligned with vals */
	S_node **vals;          /* maps: values; sequences: items */
	bool dup;               /* a duplicate key: reported, then ignored */
};

typedef struct S_ctx {
	tb_diags *d;
	size_t nodes;
	const char *scenario_path;
	bool parse_failed;      /* the last S_parse hit a syntax error */
	bool quiet;             /* a trial parse: report nothing */
	size_t suppressed;      /* errors a quiet parse did not report */
} S_ctx;

static void S_errv(S_ctx *c, const S_src *src, size_t line, size_t col,
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

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void S_err(S_ctx *c, const S_node *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	S_errv(c, at ? at->src : NULL, at ? at->line : 0, at ? at->col : 0, fmt, ap);
	va_end(ap);
}

#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static void S_err_at(S_ctx *c, const S_src *src, size_t line, size_t col,
                     const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	S_errv(c, src, line, col, fmt, ap);
	va_end(ap);
}

static S_node *S_node_new(S_ctx *c, S_kind kind, const S_src *src, size_t line, size_t col)
{
	S_node *n = tb_xcalloc(1, sizeof *n);
	n->kind = kind;
	n->src = src;
	n->line = line;
	n->col = col;
	c->nodes++;
	return n;
}

static void S_node_free(S_node *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n; i++) {
		if (n->keys)
			S_node_free(n->keys[i]);
		S_node_free(n->vals[i]);
	}
	free(n->keys);
	free(n->vals);
	free(n->str);
	free(n);
}

static void S_append(S_node *parent, S_node *key, S_node *val)
{
	if (parent->n == parent->cap) {
		parent->cap = parent->cap ? parent->cap * 2 : 8;
		parent->vals = tb_xrealloc(parent->vals, parent->cap * sizeof *parent->vals);
		if (parent->kind == S_MAP)
			parent->keys = tb_xrealloc(parent->keys, parent->cap * sizeof *parent->keys);
	}
	if (parent->kind == S_MAP)
		parent->keys[parent->n] = key;
	parent->vals[parent->n++] = val;
}

static const char *S_kind_name(const S_node *n)
{
	switch (n->kind) {
	case S_SCALAR: return "a scalar";
	case S_SEQ: return "a list";
	case S_MAP: return "a mapping";
	}
	return "a value";
}

/* Index of the first non-duplicate entry named key, or -1. */
static long S_find(const S_node *map, const char *key)
{
	if (!map || map->kind != S_MAP)
		return -1;
	for (size_t i = 0; i < map->n; i++)
		if (!map->keys[i]->dup && strcmp(map->keys[i]->str, key) == 0)
			return (long)i;
	return -1;
}

static S_node *S_get(const S_node *map, const char *key)
{
	long i = S_find(map, key);
	return i < 0 ? NULL : map->vals[i];
}

static S_node *S_get_key(const S_node *map, const char *key)
{
	long i = S_find(map, key);
	return i < 0 ? NULL : map->keys[i];
}

/* ---- parsing --------------------------------------------------------- */

typedef struct S_frame {
	S_node *node;
	S_node *pending_key;    /* maps: the key awaiting its value */
} S_frame;

static size_t S_line_of(const S_src *src, const yaml_mark_t *m)
{
	return src->col_offset ? 1 : m->line + 1;
}

static size_t S_col_of(const S_src *src, const yaml_mark_t *m)
{
	return src->col_offset + m->column + 1;
}

/* Attaches a finished scalar or a freshly opened collection to the frame
 * on top of the stack.  Returns false when the node was not kept (and has
 * been freed). */
static bool S_attach(S_ctx *c, S_frame *top, S_node **root, S_node *n)
{
	if (!top) {
		if (!*root) {
			*root = n;
			return true;
		}
		S_node_free(n);
		return false;
	}
	S_node *p = top->node;
	if (p->kind == S_SEQ) {
		S_append(p, NULL, n);
		return true;
	}
	if (!top->pending_key) {
		/* Keys are scalars here: S_parse turns a collection used as a
		 * key into a scalar placeholder before it attaches it. */
		long prev = S_find(p, n->str);
		if (prev >= 0 && !n->dup) {
			S_err(c, n, "duplicate key '%s' (first at line %zu); expected each key once",
			      n->str, p->keys[prev]->line);
			n->dup = true;
		}
		top->pending_key = n;
		return true;
	}
	S_append(p, top->pending_key, n);
	top->pending_key = NULL;
	return true;
}

/* Parses text into a tree.  On a syntax error, reports it (unless
 * `quiet_syntax`) and returns NULL. */
static S_node *S_parse(S_ctx *c, const S_src *src, const char *text, size_t len,
                       bool quiet_syntax)
{
	yaml_parser_t parser;
	if (!yaml_parser_initialize(&parser)) {
		S_err_at(c, src, 0, 0, "cannot initialise the YAML parser; expected enough memory");
		return NULL;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	c->nodes = 0;   /* the limit is per document */

	S_frame stack[S_MAX_DEPTH];
	size_t depth = 0;
	S_node *root = NULL;
	bool failed = false, done = false;
	int docs = 0;
	/* Collections nested below the depth limit are skipped, not built. */
	size_t skip_depth = 0;

	while (!done && !failed) {
		yaml_event_t ev;
		if (!yaml_parser_parse(&parser, &ev)) {
			if (!quiet_syntax) {
				const yaml_mark_t *m = &parser.problem_mark;
				if (parser.context && strstr(parser.context, "quoted scalar"))
					/* libyaml reports the end of the file; the opening
					 * quote is where the mistake is. */
					S_err_at(c, src, S_line_of(src, &parser.context_mark),
					         S_col_of(src, &parser.context_mark),
					         "unterminated quoted string; expected a closing quote");
				else if (parser.context)
					S_err_at(c, src, S_line_of(src, m), S_col_of(src, m),
					         "invalid YAML: %s %s; expected well-formed YAML (check indentation, colons and quotes)",
					         parser.problem ? parser.problem : "syntax error", parser.context);
				else
					S_err_at(c, src, S_line_of(src, m), S_col_of(src, m),
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
				S_err_at(c, src, line, col,
				         "a second YAML document; expected one scenario per file");
				failed = true;
			}
			break;
		case YAML_ALIAS_EVENT:
			S_err_at(c, src, line, col,
			         "YAML alias '*%s'; expected the value written out (aliases are not supported)",
			         (const char *)ev.data.alias.anchor);
			failed = true;
			break;
		case YAML_SCALAR_EVENT: {
			if (skip_depth)
				break;
			if (c->nodes >= S_MAX_NODES) {
				S_err_at(c, src, line, col, "too many values (over %d); expected a scenario of ordinary size",
				         S_MAX_NODES);
				failed = true;
				break;
			}
			S_node *n = S_node_new(c, S_SCALAR, src, line, col);
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
				S_err_at(c, src, line, col,
				         depth >= S_MAX_DEPTH ? "nesting deeper than %d levels; expected a shallow scenario"
				                              : "too many values (over %d); expected a scenario of ordinary size",
				         depth >= S_MAX_DEPTH ? S_MAX_DEPTH : S_MAX_NODES);
				failed = true;
				break;
			}
			S_node *n = S_node_new(c, ev.type == YAML_SEQUENCE_START_EVENT ? S_SEQ : S_MAP,
			                       src, line, col);
			bool kept = true;
			if (top && top->node->kind == S_MAP && !top->pending_key) {
				/* A collection as a key: report it and drop its contents. */
				S_err(c, n, "%s used as a key; expected a plain key name", S_kind_name(n));
				/* A placeholder key takes the value that follows, so
				 * the keys after it stay keys. */
				S_node *k = S_node_new(c, S_SCALAR, src, line, col);
				k->str = tb_xstrdup("");
				k->dup = true;
				S_attach(c, top, &root, k);
				S_node_free(n);
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
				S_node_free(stack[depth - 1].pending_key);
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
		S_node_free(stack[i].pending_key);
		stack[i].pending_key = NULL;
	}
	yaml_parser_delete(&parser);
	c->parse_failed = failed;
	if (failed) {
		S_node_free(root);
		return NULL;
	}
	return root;
}

/* Tabs in indentation are a YAML error libyaml words obscurely. */
static size_t S_check_tabs(S_ctx *c, const S_src *src, const char *text, size_t len)
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
			S_err_at(c, src, line, tab_col, "tab character in indentation; use spaces");
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

/* ---- the schema: which keys exist where ------------------------------ */

static const char *const S_top_keys[] = {
	"title", "author", "date", "notes", "model", "training", "hardware",
	"parallelism", "plan", "measured",
};
static const char *const S_model_keys[] = {
	"preset", "hf_config", "params", "layers", "hidden", "heads", "kv_heads",
	"head_dim", "ffn_hidden", "mlp", "vocab", "tied_embeddings", "norm",
	"bias", "qkv_bias", "positions", "max_positions", "experts",
	"experts_per_token",
};
static const char *const S_training_keys[] = {
	"tokens", "seq_len", "global_batch", "micro_batch", "precision",
	"optimizer", "checkpointing", "flash_attention", "dropout",
	"attention_flops",
};
static const char *const S_hardware_keys[] = {
	"gpu", "count", "mfu", "price_per_gpu_hour", "currency", "pue", "overhead",
};
static const char *const S_gpu_keys[] = {
	"name", "label", "memory", "bf16", "fp16", "fp8", "tf32", "fp32",
	"bandwidth", "tdp",
};
static const char *const S_par_keys[] = {
	"tensor", "pipeline", "expert", "sequence_parallel", "zero",
};
static const char *const S_plan_keys[] = {
	"deadline", "budget", "overtrain", "inference_tokens",
};
static const char *const S_measured_keys[] = { "step_time", "peak_memory" };

#define S_N(a) (sizeof (a) / sizeof *(a))

typedef struct S_section {
	const char *name;
	const char *const *keys;
	size_t n;
} S_section;

static const S_section S_sections[] = {
	{ "model", S_model_keys, S_N(S_model_keys) },
	{ "training", S_training_keys, S_N(S_training_keys) },
	{ "hardware", S_hardware_keys, S_N(S_hardware_keys) },
	{ "parallelism", S_par_keys, S_N(S_par_keys) },
	{ "plan", S_plan_keys, S_N(S_plan_keys) },
	{ "measured", S_measured_keys, S_N(S_measured_keys) },
};

static const S_section *S_section_find(const char *name)
{
	for (size_t i = 0; i < S_N(S_sections); i++)
		if (strcmp(S_sections[i].name, name) == 0)
			return &S_sections[i];
	return NULL;
}

static bool S_in(const char *word, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(word, list[i]) == 0)
			return true;
	return false;
}

static void S_join(tb_buf *b, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		tb_buf_printf(b, "%s%s", i ? ", " : "", list[i]);
}

/* Shows at most 40 bytes of a user's value in a message. */
static const char *S_show(const char *s, char buf[48])
{
	size_t n = strlen(s);
	if (n <= 40)
		return s;
	memcpy(buf, s, 37);
	memcpy(buf + 37, "...", 4);
	return buf;
}

static void S_unknown_key(S_ctx *c, const S_node *key, const char *prefix,
                          const char *const *list, size_t n)
{
	char sh[48];
	const char *sugg = tb_diags_suggest(key->str, list, n);
	if (sugg) {
		S_err(c, key, "unknown key '%s%s'; did you mean '%s%s'?", prefix,
		      S_show(key->str, sh), prefix, sugg);
		return;
	}
	tb_buf b;
	tb_buf_init(&b);
	S_join(&b, list, n);
	S_err(c, key, "unknown key '%s%s'; expected one of %s", prefix, S_show(key->str, sh), b.ptr);
	tb_buf_release(&b);
}

static void S_check_map_keys(S_ctx *c, const S_node *map, const char *prefix,
                             const char *const *list, size_t n)
{
	for (size_t i = 0; i < map->n; i++)
		if (!map->keys[i]->dup && !S_in(map->keys[i]->str, list, n))
			S_unknown_key(c, map->keys[i], prefix, list, n);
}

/* ---- --set ----------------------------------------------------------- */

static void S_apply_set(S_ctx *c, S_node **root, const S_src *src)
{
	const char *s = src->text;
	const char *eq = strchr(s, '=');
	if (!eq) {
		S_err_at(c, src, 1, strlen(s) + 1, "--set without '='; expected KEY=VALUE such as hardware.count=128");
		return;
	}
	/* Split KEY into at most 3 segments, remembering their columns. */
	char seg[3][64];
	size_t segcol[3], nseg = 0;
	const char *p = s;
	while (p <= eq) {
		const char *dot = p;
		while (dot < eq && *dot != '.')
			dot++;
		size_t l = (size_t)(dot - p);
		if (l == 0 || l >= sizeof seg[0] || nseg == 3) {
			S_err_at(c, src, 1, (size_t)(p - s) + 1,
			         nseg == 3 ? "--set key nested too deeply; expected SECTION.KEY such as training.tokens"
			                   : "empty or overlong --set key segment; expected SECTION.KEY such as training.tokens");
			return;
		}
		memcpy(seg[nseg], p, l);
		seg[nseg][l] = '\0';
		segcol[nseg++] = (size_t)(p - s) + 1;
		p = dot + 1;
		if (dot == eq)
			break;
	}

	/* Validate the path against the schema. */
	char sh[48];
	if (!S_in(seg[0], S_top_keys, S_N(S_top_keys))) {
		const char *sugg = tb_diags_suggest(seg[0], S_top_keys, S_N(S_top_keys));
		if (sugg)
			S_err_at(c, src, 1, segcol[0], "unknown key '%s'; did you mean '%s'?", S_show(seg[0], sh), sugg);
		else
			S_err_at(c, src, 1, segcol[0], "unknown key '%s'; expected a section such as training or hardware",
			         S_show(seg[0], sh));
		return;
	}
	const S_section *sec = S_section_find(seg[0]);
	if ((sec && nseg < 2) || (!sec && nseg > 1)) {
		S_err_at(c, src, 1, segcol[0], sec ? "--set '%s' names a whole section; expected %s.KEY"
		                                   : "'%s' has no sub-keys; expected %s=VALUE",
		         seg[0], seg[0]);
		return;
	}
	if (sec && !S_in(seg[1], sec->keys, sec->n)) {
		const char *sugg = tb_diags_suggest(seg[1], sec->keys, sec->n);
		if (sugg)
			S_err_at(c, src, 1, segcol[1], "unknown key '%s.%s'; did you mean '%s.%s'?",
			         seg[0], S_show(seg[1], sh), seg[0], sugg);
		else
			S_err_at(c, src, 1, segcol[1], "unknown key '%s.%s'; expected a key of %s", seg[0],
			         S_show(seg[1], sh), seg[0]);
		return;
	}
	if (nseg == 3) {
		if (strcmp(seg[0], "hardware") != 0 || strcmp(seg[1], "gpu") != 0) {
			S_err_at(c, src, 1, segcol[2], "'%s.%s' has no sub-keys; expected %s.%s=VALUE",
			         seg[0], seg[1], seg[0], seg[1]);
			return;
		}
		if (!S_in(seg[2], S_gpu_keys, S_N(S_gpu_keys))) {
			const char *sugg = tb_diags_suggest(seg[2], S_gpu_keys, S_N(S_gpu_keys));
			S_err_at(c, src, 1, segcol[2], "unknown key 'hardware.gpu.%s'; %s%s%s", S_show(seg[2], sh),
			         sugg ? "did you mean 'hardware.gpu." : "expected a GPU field such as memory or bf16",
			         sugg ? sugg : "", sugg ? "'?" : "");
			return;
		}
	}

	size_t errors0 = c->d->errors;
	S_node *val = S_parse(c, src, eq + 1, strlen(eq + 1), false);
	if (!val) {
		if (c->d->errors == errors0)    /* an empty VALUE parses to nothing */
			S_err_at(c, src, 1, (size_t)(eq - s) + 2, "--set '%.*s' has no value; expected KEY=VALUE",
			         (int)(eq - s), s);
		return;
	}
	if (!*root)
		*root = S_node_new(c, S_MAP, src, 1, 1);
	S_node *map = *root;
	if (map->kind != S_MAP) {
		S_node_free(val);
		return;     /* the root's type error is reported later */
	}
	for (size_t i = 0; i + 1 < nseg; i++) {
		S_node *next = S_get(map, seg[i]);
		if (!next) {
			S_node *k = S_node_new(c, S_SCALAR, src, 1, segcol[i]);
			k->str = tb_xstrdup(seg[i]);
			next = S_node_new(c, S_MAP, src, 1, segcol[i]);
			S_append(map, k, next);
		} else if (next->kind != S_MAP) {
			S_err_at(c, src, 1, segcol[i + 1],
			         "cannot set '%s' inside '%s', which is %s in the scenario; expected a mapping there",
			         seg[i + 1], seg[i], S_kind_name(next));
			S_node_free(val);
			return;
		}
		map = next;
	}
	long at = S_find(map, seg[nseg - 1]);
	if (at >= 0) {
		S_node_free(map->vals[at]);
		map->vals[at] = val;
	} else {
		S_node *k = S_node_new(c, S_SCALAR, src, 1, segcol[nseg - 1]);
		k->str = tb_xstrdup(seg[nseg - 1]);
		S_append(map, k, val);
	}
}

/* ---- typed getters --------------------------------------------------- */

/* The text of a scalar, or NULL after reporting a type error. */
static const char *S_scalar(S_ctx *c, const S_node *n, const char *name, const char *expected)
{
	if (n->kind != S_SCALAR) {
		S_err(c, n, "%s is %s; expected %s", name, S_kind_name(n), expected);
		return NULL;
	}
	if (!n->quoted && (n->str[0] == '\0' || strcmp(n->str, "~") == 0 ||
	                   strcmp(n->str, "null") == 0 || strcmp(n->str, "Null") == 0 ||
	                   strcmp(n->str, "NULL") == 0)) {
		S_err(c, n, "%s has no value; expected %s", name, expected);
		return NULL;
	}
	return n->str;
}

typedef enum { S_Q_COUNT, S_Q_BYTES, S_Q_DURATION, S_Q_FRACTION, S_Q_NUMBER } S_qkind;

static const char *S_status_phrase(tb_units_status st)
{
	switch (st) {
	case TB_UNITS_OK: return "is valid";
	case TB_UNITS_EMPTY: return "is empty";
	case TB_UNITS_SYNTAX: return "is not a number";
	case TB_UNITS_SUFFIX: return "has an unknown unit";
	case TB_UNITS_NEGATIVE: return "is negative";
	case TB_UNITS_ZERO: return "is zero";
	case TB_UNITS_RANGE: return "is out of range (too large, NaN or infinite)";
	case TB_UNITS_FRACTION: return "is outside (0, 1]";
	}
	return "is invalid";
}

/* Parses a quantity.  `max` bounds it (0 = no bound beyond finiteness);
 * zero is refused unless allow_zero.  Returns false after reporting. */
static bool S_quant(S_ctx *c, const S_node *n, const char *name, S_qkind kind,
                    const char *expected, bool allow_zero, double max, double *out)
{
	const char *s = S_scalar(c, n, name, expected);
	if (!s)
		return false;
	double v = 0;
	tb_units_status st;
	switch (kind) {
	case S_Q_COUNT: st = tb_units_parse_count(s, &v); break;
	case S_Q_BYTES: st = tb_units_parse_bytes(s, &v); break;
	case S_Q_DURATION: st = tb_units_parse_duration(s, &v); break;
	case S_Q_FRACTION: st = tb_units_parse_fraction(s, &v); break;
	default: st = tb_units_parse_number(s, &v); break;
	}
	if (st == TB_UNITS_ZERO && allow_zero) {
		st = TB_UNITS_OK;
		v = 0;
	}
	char sh[48];
	if (st == TB_UNITS_OK && v == 0 && !allow_zero)
		st = TB_UNITS_ZERO;
	if (st != TB_UNITS_OK) {
		S_err(c, n, "%s '%s' %s; expected %s", name, S_show(s, sh), S_status_phrase(st), expected);
		return false;
	}
	if (max > 0 && v > max) {
		if (kind == S_Q_COUNT && max <= 1e9)   /* whole numbers: `expected` states the range */
			S_err(c, n, "%s '%s' is too large; expected %s", name, S_show(s, sh), expected);
		else
			S_err(c, n, "%s '%s' is too large (the limit is %.4g); expected %s", name, S_show(s, sh), max, expected);
		return false;
	}
	*out = v;
	return true;
}

/* A whole number in [min, max], units such as 4k allowed. */
static bool S_int(S_ctx *c, const S_node *n, const char *name, int64_t min,
                  int64_t max, int64_t *out)
{
	char expected[96];
	snprintf(expected, sizeof expected, "a whole number from %lld to %lld",
	         (long long)min, (long long)max);
	double v = 0;
	if (!S_quant(c, n, name, S_Q_COUNT, expected, min <= 0, (double)max, &v))
		return false;
	char sh[48];
	if (v != floor(v)) {
		S_err(c, n, "%s '%s' is not a whole number; expected %s", name, S_show(n->str, sh), expected);
		return false;
	}
	if (v < (double)min) {
		S_err(c, n, "%s '%s' is too small; expected %s", name, S_show(n->str, sh), expected);
		return false;
	}
	*out = (int64_t)v;
	return true;
}

static bool S_bool(S_ctx *c, const S_node *n, const char *name, bool *out)
{
	const char *s = S_scalar(c, n, name, "true or false");
	if (!s)
		return false;
	static const char *const yes[] = { "true", "True", "TRUE", "yes", "Yes", "on" };
	static const char *const no[] = { "false", "False", "FALSE", "no", "No", "off" };
	if (S_in(s, yes, S_N(yes))) {
		*out = true;
		return true;
	}
	if (S_in(s, no, S_N(no))) {
		*out = false;
		return true;
	}
	char sh[48];
	S_err(c, n, "%s '%s' is not a boolean; expected true or false", name, S_show(s, sh));
	return false;
}

static bool S_enum(S_ctx *c, const S_node *n, const char *name,
                   const char *const *names, size_t count, int *out)
{
	tb_buf b;
	tb_buf_init(&b);
	tb_buf_puts(&b, "one of ");
	S_join(&b, names, count);
	const char *s = S_scalar(c, n, name, b.ptr);
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
				S_err(c, n, "unknown %s '%s'; did you mean '%s'? expected %s", name, S_show(s, sh), sugg, b.ptr);
			else
				S_err(c, n, "unknown %s '%s'; expected %s", name, S_show(s, sh), b.ptr);
		}
	}
	tb_buf_release(&b);
	return ok;
}

/* A string value.  `one_line`: a title or a name, which lands in headings,
 * PDF running headers and tables, so control characters (a newline, a
 * bell) are refused rather than printed. */
static char *S_string(S_ctx *c, const S_node *n, const char *name, size_t max_len,
                      bool one_line)
{
	const char *s = S_scalar(c, n, name, "a string");
	if (!s)
		return NULL;
	if (strlen(s) > max_len) {
		S_err(c, n, "%s is %zu bytes long; expected at most %zu", name, strlen(s), max_len);
		return NULL;
	}
	for (const unsigned char *p = (const unsigned char *)s; one_line && *p; p++)
		if (*p < 0x20 || *p == 0x7f) {
			S_err(c, n, "%s holds a control character (0x%02x); expected one line of text",
			      name, *p);
			return NULL;
		}
	return tb_xstrdup(s);
}

/* A section present but not a mapping (already reported by S_section_map):
 * the keys it should hold are not "missing", so nothing more is said. */
static bool S_section_broken(const S_node *root, const char *name)
{
	const S_node *n = S_get(root, name);
	return n && n->kind != S_MAP &&
	       !(n->kind == S_SCALAR && !n->quoted && n->str[0] == '\0');
}

/* The section mapping `name`, or NULL (reporting a non-mapping). */
static const S_node *S_section_map(S_ctx *c, const S_node *root, const char *name)
{
	const S_node *n = S_get(root, name);
	if (!n)
		return NULL;
	if (n->kind != S_MAP) {
		if (n->kind == S_SCALAR && !n->quoted && n->str[0] == '\0')
			return NULL;    /* "training:" with nothing under it */
		S_err(c, n, "%s is %s; expected a mapping of %s keys", name, S_kind_name(n), name);
		return NULL;
	}
	return n;
}

/* ---- model ----------------------------------------------------------- */

static const char *const S_mlp_names[] = { "gated", "plain" };
static const char *const S_norm_names[] = { "rmsnorm", "layernorm" };
static const char *const S_pos_names[] = { "rope", "learned", "alibi", "none" };
static const char *const S_prec_names[] = { "fp32", "bf16-mixed", "fp16-mixed", "bf16", "fp8-mixed" };
static const char *const S_opt_names[] = { "adamw", "adamw-8bit", "adafactor", "sgd", "sgd-momentum", "lion" };
static const char *const S_ckpt_names[] = { "none", "selective", "full" };
static const char *const S_attn_names[] = { "full", "causal" };

static char *S_dir_join(const char *scenario_path, const char *rel)
{
	tb_buf b;
	tb_buf_init(&b);
	const char *slash = scenario_path ? strrchr(scenario_path, '/') : NULL;
	if (rel[0] != '/' && slash && scenario_path[0] != '<')
		tb_buf_put(&b, scenario_path, (size_t)(slash - scenario_path) + 1);
	tb_buf_puts(&b, rel);
	return tb_buf_detach(&b, NULL);
}

/* Whether a preset or a config.json was loaded into *m. */
static bool S_model_base(S_ctx *c, const S_node *mm, tb_model *m, bool *failed)
{
	const S_node *pn = S_get(mm, "preset"), *hn = S_get(mm, "hf_config");
	if (pn && hn) {
		S_err(c, hn, "model.preset and model.hf_config are both given; expected one of them");
		*failed = true;
		return false;
	}
	if (pn) {
		const char *name = S_scalar(c, pn, "model.preset", "a preset name from `trainbudget models`");
		if (!name) {
			*failed = true;
			return false;
		}
		const tb_preset *p = tb_presets_find(name);
		if (!p) {
			const char *names[64];
			size_t n = 0;
			for (size_t i = 0; i < tb_presets_count() && n < S_N(names); i++)
				names[n++] = tb_presets_at(i)->name;
			const char *sugg = tb_diags_suggest(name, names, n);
			char sh[48];
			if (sugg)
				S_err(c, pn, "unknown model preset '%s'; did you mean '%s'?", S_show(name, sh), sugg);
			else
				S_err(c, pn, "unknown model preset '%s'; expected a name from `trainbudget models`",
				      S_show(name, sh));
			*failed = true;
			return false;
		}
		*m = p->model;
		snprintf(m->preset, sizeof m->preset, "%s", p->name);
		return true;
	}
	if (hn) {
		const char *rel = S_scalar(c, hn, "model.hf_config", "a path to a Hugging Face config.json");
		if (!rel) {
			*failed = true;
			return false;
		}
		char *path = S_dir_join(c->scenario_path, rel);
		size_t len = 0;
		char *text = tb_fileio_slurp(path, S_MAX_HF_BYTES, &len);
		if (!text) {
			char sh[48];
			S_err(c, hn, "cannot read hf_config '%s' (%s); expected a config.json path relative to the scenario file",
			      S_show(rel, sh), errno == EFBIG ? "larger than 16 MiB" : strerror(errno));
			free(path);
			*failed = true;
			return false;
		}
		int rc = tb_hfconfig_parse(path, text, len, m, c->d);
		free(text);
		free(path);
		if (rc != 0) {
			*failed = true;
			return false;
		}
		return true;
	}
	return false;
}

#define S_SHAPE_INTS 10

static void S_load_model(S_ctx *c, const S_node *root, tb_model *m)
{
	memset(m, 0, sizeof *m);
	const S_node *mm = S_section_map(c, root, "model");
	if (!mm) {
		if (!S_get(root, "model"))
			S_err(c, root, "missing key 'model'; expected a preset, hf_config, explicit shape or params");
		return;
	}
	bool failed = false;
	bool have_base = S_model_base(c, mm, m, &failed);
	const tb_model base = *m;

	static const char *const int_keys[S_SHAPE_INTS] = {
		"layers", "hidden", "heads", "kv_heads", "head_dim", "ffn_hidden",
		"vocab", "max_positions", "experts", "experts_per_token",
	};
	static const int64_t int_max[S_SHAPE_INTS] = {
		10000, 1000000, 100000, 100000, 100000, 10000000,
		100000000, 100000000, 100000, 100000,
	};
	int64_t *int_dst[S_SHAPE_INTS] = {
		&m->layers, &m->hidden, &m->heads, &m->kv_heads, &m->head_dim,
		&m->ffn_hidden, &m->vocab, &m->max_positions, &m->experts,
		&m->experts_per_token,
	};
	bool given[S_SHAPE_INTS] = { false };
	bool any_shape = false;
	char name[48];
	for (size_t i = 0; i < S_SHAPE_INTS; i++) {
		const S_node *n = S_get(mm, int_keys[i]);
		if (!n)
			continue;
		any_shape = true;
		snprintf(name, sizeof name, "model.%s", int_keys[i]);
		int64_t lo = (i == 7 || i == 8) ? 0 : 1;
		if (S_int(c, n, name, lo, int_max[i], int_dst[i]))
			given[i] = true;
		else
			failed = true;
	}
	const S_node *n;
	int e;
	if ((n = S_get(mm, "mlp"))) {
		any_shape = true;
		if (S_enum(c, n, "model.mlp", S_mlp_names, S_N(S_mlp_names), &e)) m->mlp = (tb_mlp)e; else failed = true;
	} else if (!have_base) {
		m->mlp = TB_MLP_GATED;
	}
	if ((n = S_get(mm, "norm"))) {
		any_shape = true;
		if (S_enum(c, n, "model.norm", S_norm_names, S_N(S_norm_names), &e)) m->norm = (tb_norm)e; else failed = true;
	}
	bool pos_given = false;
	if ((n = S_get(mm, "positions"))) {
		any_shape = true;
		pos_given = true;
		if (S_enum(c, n, "model.positions", S_pos_names, S_N(S_pos_names), &e)) m->positions = (tb_positions)e; else failed = true;
	}
	static const char *const bool_keys[] = { "tied_embeddings", "bias", "qkv_bias" };
	bool *bool_dst[] = { &m->tied_embeddings, &m->bias, &m->qkv_bias };
	for (size_t i = 0; i < S_N(bool_keys); i++) {
		if (!(n = S_get(mm, bool_keys[i])))
			continue;
		any_shape = true;
		snprintf(name, sizeof name, "model.%s", bool_keys[i]);
		if (!S_bool(c, n, name, bool_dst[i]))
			failed = true;
	}

	const S_node *params = S_get(mm, "params");
	if (params) {
		if (have_base || any_shape || S_get(mm, "preset") || S_get(mm, "hf_config")) {
			S_err(c, params, "model.params given with a model shape; expected params alone (a count-only budget) or a shape without params");
			return;
		}
		double v = 0;
		if (S_quant(c, params, "model.params", S_Q_COUNT, "a parameter count such as 7B", false, 1e16, &v)) {
			memset(m, 0, sizeof *m);
			m->has_shape = false;
			m->params_count = v;
		}
		return;
	}
	if (failed)
		return;
	const S_node *mkey = S_get_key(root, "model");
	if (!have_base) {
		if (!any_shape) {
			S_err(c, mkey, "model has no preset, hf_config, shape or params; expected one of them");
			return;
		}
		static const size_t required[] = { 0, 1, 2, 5, 6 };
		bool missing = false;
		for (size_t i = 0; i < S_N(required); i++) {
			if (!given[required[i]]) {
				S_err(c, mkey, "missing key 'model.%s'; expected it with an explicit shape (or use a preset)",
				      int_keys[required[i]]);
				missing = true;
			}
		}
		if (missing)
			return;
	}
	m->has_shape = true;
	const S_node *heads_n = S_get(mm, "heads"), *kv_n = S_get(mm, "kv_heads");
	const S_node *hd_n = S_get(mm, "head_dim");
	bool geometry_changed = given[1] || given[2];
	if (!given[4] && (!have_base || geometry_changed)) {
		if (m->hidden % m->heads != 0) {
			S_err(c, heads_n ? heads_n : S_get(mm, "hidden"),
			      "model.heads (%lld) does not divide model.hidden (%lld); expected a divisor of hidden, or give head_dim",
			      (long long)m->heads, (long long)m->hidden);
			failed = true;
		} else {
			m->head_dim = m->hidden / m->heads;
		}
	}
	if (!given[3] && (!have_base || given[2]))
		m->kv_heads = have_base && base.kv_heads < base.heads && given[2] ? base.kv_heads : m->heads;
	if (m->kv_heads > m->heads || m->heads % m->kv_heads != 0) {
		S_err(c, kv_n ? kv_n : heads_n,
		      "model.kv_heads (%lld) does not divide model.heads (%lld); expected a divisor of heads (equal GQA groups)",
		      (long long)m->kv_heads, (long long)m->heads);
		failed = true;
	}
	(void)hd_n;
	const S_node *ex_n = S_get(mm, "experts"), *ept_n = S_get(mm, "experts_per_token");
	if (m->experts > 1) {
		if (!given[9] && !(have_base && base.experts > 1))
			m->experts_per_token = 2 < m->experts ? 2 : m->experts;
		if (m->experts_per_token > m->experts) {
			S_err(c, ept_n ? ept_n : ex_n,
			      "model.experts_per_token (%lld) is above model.experts (%lld); expected at most the number of experts",
			      (long long)m->experts_per_token, (long long)m->experts);
			failed = true;
		}
	} else {
		if (given[9] && m->experts_per_token > 1) {
			S_err(c, ept_n,
			      "model.experts_per_token (%lld) is above model.experts (%lld); expected at most experts (set experts above 1 for a mixture of experts)",
			      (long long)m->experts_per_token, (long long)m->experts);
			failed = true;
		}
		m->experts_per_token = 1;
	}
	if (m->positions == TB_POS_LEARNED) {
		if (!given[7] && !(have_base && base.positions == TB_POS_LEARNED && !pos_given)) {
			S_err(c, S_get(mm, "positions"),
			      "model.positions is learned but model.max_positions is missing; expected the size of the position table such as 2048");
			failed = true;
		} else if (m->max_positions < 1) {
			S_err(c, S_get(mm, "max_positions"),
			      "model.max_positions is 0; expected a positive table size with learned positions");
			failed = true;
		}
	} else {
		m->max_positions = 0;
	}
	if (failed)
		m->has_shape = false;
}

/* ---- the whole scenario ---------------------------------------------- */

static void S_check_all_keys(S_ctx *c, const S_node *root)
{
	S_check_map_keys(c, root, "", S_top_keys, S_N(S_top_keys));
	for (size_t i = 0; i < S_N(S_sections); i++) {
		const S_node *sec = S_get(root, S_sections[i].name);
		if (!sec || sec->kind != S_MAP)
			continue;
		char prefix[32];
		snprintf(prefix, sizeof prefix, "%s.", S_sections[i].name);
		S_check_map_keys(c, sec, prefix, S_sections[i].keys, S_sections[i].n);
		if (strcmp(S_sections[i].name, "hardware") == 0) {
			const S_node *g = S_get(sec, "gpu");
			if (g && g->kind == S_MAP)
				S_check_map_keys(c, g, "hardware.gpu.", S_gpu_keys, S_N(S_gpu_keys));
		}
	}
}

static void S_lower(char *dst, size_t cap, const char *src)
{
	size_t i = 0;
	for (; src[i] && i + 1 < cap; i++)
		dst[i] = (char)tolower((unsigned char)src[i]);
	dst[i] = '\0';
}

/* Prepares a unit string for the units parser: drops a trailing "/s"
 * (bandwidth) or "W" (power) the user may write. */
static const char *S_strip_unit(const char *s, const char *suffix, char *buf, size_t cap)
{
	size_t n = strlen(s), k = strlen(suffix);
	if (n >= k && n < cap && strcmp(s + n - k, suffix) == 0) {
		memcpy(buf, s, n - k);
		buf[n - k] = '\0';
		return buf;
	}
	return s;
}

static bool S_inline_gpu(S_ctx *c, const S_node *g, tb_gpu *gpu)
{
	memset(gpu, 0, sizeof *gpu);
	bool ok = true;
	const S_node *n;
	if ((n = S_get(g, "name"))) {
		char *s = S_string(c, n, "hardware.gpu.name", sizeof gpu->name - 1, true);
		if (s)
			memcpy(gpu->name, s, strlen(s) + 1);
		else
			ok = false;
		free(s);
	} else {
		S_err(c, g, "missing key 'hardware.gpu.name'; expected a name for the inline GPU");
		ok = false;
	}
	if ((n = S_get(g, "label"))) {
		char *s = S_string(c, n, "hardware.gpu.label", sizeof gpu->label - 1, true);
		if (s)
			memcpy(gpu->label, s, strlen(s) + 1);
		else
			ok = false;
		free(s);
	} else {
		/* a name is at most 31 bytes: this fits the 64 of the label */
		snprintf(gpu->label, sizeof gpu->label, "%s (inline)", gpu->name);
	}
	snprintf(gpu->source, sizeof gpu->source, "inline in the scenario file");
	if ((n = S_get(g, "memory"))) {
		if (!S_quant(c, n, "hardware.gpu.memory", S_Q_BYTES, "a size such as 80GB or 80GiB", false, 1e15, &gpu->memory_bytes))
			ok = false;
	} else {
		S_err(c, g, "missing key 'hardware.gpu.memory'; expected the GPU's memory such as 80GB");
		ok = false;
	}
	static const char *const peak_keys[TB_DTYPE_COUNT] = { "fp32", "tf32", "bf16", "fp16", "fp8" };
	for (int i = 0; i < TB_DTYPE_COUNT; i++) {
		if (!(n = S_get(g, peak_keys[i])))
			continue;
		char name[32];
		snprintf(name, sizeof name, "hardware.gpu.%s", peak_keys[i]);
		char buf[96];
		const char *s = n->kind == S_SCALAR ? S_strip_unit(n->str, "FLOP/s", buf, sizeof buf) : NULL;
		if (s && s != n->str) {
			S_node tmp = *n;
			tmp.str = (char *)buf;
			if (!S_quant(c, &tmp, name, S_Q_COUNT, "dense FLOP/s such as 989T or 989e12", true, 1e18, &gpu->peak_flops[i]))
				ok = false;
		} else if (!S_quant(c, n, name, S_Q_COUNT, "dense FLOP/s such as 989T or 989e12", true, 1e18, &gpu->peak_flops[i])) {
			ok = false;
		}
	}
	if ((n = S_get(g, "bandwidth"))) {
		char buf[96];
		S_node tmp = *n;
		if (n->kind == S_SCALAR)
			tmp.str = (char *)S_strip_unit(n->str, "/s", buf, sizeof buf);
		if (!S_quant(c, &tmp, "hardware.gpu.bandwidth", S_Q_BYTES, "bytes per second such as 3.35TB", true, 1e15, &gpu->bandwidth_bytes_per_s))
			ok = false;
	}
	if ((n = S_get(g, "tdp"))) {
		char buf[96];
		S_node tmp = *n;
		if (n->kind == S_SCALAR)
			tmp.str = (char *)S_strip_unit(n->str, "W", buf, sizeof buf);
		if (!S_quant(c, &tmp, "hardware.gpu.tdp", S_Q_NUMBER, "watts such as 700", true, 1e5, &gpu->tdp_w))
			ok = false;
	}
	return ok;
}

static void S_load_gpu(S_ctx *c, const S_node *root, const S_node *hw, tb_gpu *gpu, bool *ok)
{
	const S_node *g = hw ? S_get(hw, "gpu") : NULL;
	if (g && g->kind == S_MAP) {
		if (!S_inline_gpu(c, g, gpu))
			*ok = false;
		return;
	}
	const char *name = "h100-sxm";
	if (g) {
		name = S_scalar(c, g, "hardware.gpu", "a GPU name from `trainbudget gpus` or an inline mapping");
		if (!name) {
			*ok = false;
			return;
		}
	}
	char lower[64];
	S_lower(lower, sizeof lower, name);
	const tb_gpu *found = tb_gpus_find(name);
	if (!found)
		found = tb_gpus_find(lower);
	if (found) {
		*gpu = *found;
		return;
	}
	const char *names[128];
	size_t n = 0;
	for (size_t i = 0; i < tb_gpus_count() && n < S_N(names); i++)
		names[n++] = tb_gpus_at(i)->name;
	const char *sugg = tb_diags_suggest(lower, names, n);
	char sh[48];
	if (!g)
		S_err(c, hw ? S_get_key(root, "hardware") : root,
		      "the default GPU 'h100-sxm' is not in the GPU table; expected hardware.gpu");
	else if (sugg)
		S_err(c, g, "unknown GPU '%s'; did you mean '%s'?", S_show(name, sh), sugg);
	else
		S_err(c, g, "unknown GPU '%s'; expected a name from `trainbudget gpus` or an inline mapping", S_show(name, sh));
	*ok = false;
}

static void S_load_mfu(S_ctx *c, const S_node *n, double mfu[3], bool *ok)
{
	mfu[0] = 0.25;
	mfu[1] = 0.35;
	mfu[2] = 0.45;
	if (!n)
		return;
	const char *expected = "a fraction in (0, 1] such as 0.35 or 35%";
	double v[3] = { 0, 0, 0 };
	size_t count = 0;
	if (n->kind == S_SEQ) {
		if (n->n < 2 || n->n > 3) {
			S_err(c, n, "hardware.mfu has %zu values; expected a number, [low, high] or [low, expected, high]", n->n);
			*ok = false;
			return;
		}
		count = n->n;
		for (size_t i = 0; i < count; i++) {
			if (!S_quant(c, n->vals[i], "hardware.mfu", S_Q_FRACTION, expected, true, 0, &v[i])) {
				*ok = false;
				return;
			}
		}
	} else {
		if (!S_quant(c, n, "hardware.mfu", S_Q_FRACTION, expected, true, 0, &v[0])) {
			*ok = false;
			return;
		}
		count = 1;
	}
	for (size_t i = 0; i < count; i++) {
		if (!(v[i] > 0)) {
			S_err(c, count == 1 ? n : n->vals[i], "hardware.mfu '%s' is outside (0, 1]; expected %s",
			      count == 1 ? n->str : n->vals[i]->str, expected);
			*ok = false;
			return;
		}
	}
	if (count == 1) {
		mfu[0] = mfu[1] = mfu[2] = v[0];
	} else if (count == 2) {
		mfu[0] = v[0];
		mfu[2] = v[1];
		mfu[1] = (v[0] + v[1]) / 2;
	} else {
		mfu[0] = v[0];
		mfu[1] = v[1];
		mfu[2] = v[2];
	}
	if (mfu[0] > mfu[2]) {
		S_err(c, n, "hardware.mfu range [%g, %g] is reversed; expected [low, high] with low <= high", mfu[0], mfu[2]);
		*ok = false;
	} else if (mfu[1] < mfu[0] || mfu[1] > mfu[2]) {
		S_err(c, n, "hardware.mfu expected value %g lies outside [%g, %g]; expected [low, expected, high] in order",
		      mfu[1], mfu[0], mfu[2]);
		*ok = false;
	}
}

static bool S_valid_date(const char *s)
{
	if (strlen(s) != 10 || s[4] != '-' || s[7] != '-')
		return false;
	for (int i = 0; i < 10; i++)
		if (i != 4 && i != 7 && !isdigit((unsigned char)s[i]))
			return false;
	int yr = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
	int mo = (s[5] - '0') * 10 + (s[6] - '0');
	int day = (s[8] - '0') * 10 + (s[9] - '0');
	static const int S_mdays[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	if (mo < 1 || mo > 12 || day < 1)
		return false;
	bool leap = (yr % 4 == 0 && yr % 100 != 0) || yr % 400 == 0;
	return day <= S_mdays[mo - 1] + (mo == 2 && leap);
}

static void S_load(S_ctx *c, const S_node *root, tb_scenario *sc)
{
	tb_inputs *in = &sc->inputs;
	bool ok = true;
	const S_node *n;

	S_check_all_keys(c, root);

	/* title and the free-text keys */
	if ((n = S_get(root, "title"))) {
		sc->title = S_string(c, n, "title", 200, true);
		if (sc->title && !sc->title[0]) {
			S_err(c, n, "title is empty; expected a one-line description of the run");
			free(sc->title);
			sc->title = NULL;
		}
	} else {
		S_err(c, root, "missing key 'title'; expected a one-line description of the run");
	}
	if ((n = S_get(root, "author")))
		sc->author = S_string(c, n, "author", 200, true);
	if ((n = S_get(root, "notes")))
		sc->notes = S_string(c, n, "notes", 65536, false);
	if ((n = S_get(root, "date"))) {
		const char *s = S_scalar(c, n, "date", "a date as YYYY-MM-DD");
		if (s && S_valid_date(s))
			sc->date = tb_xstrdup(s);
		else if (s) {
			char sh[48];
			S_err(c, n, "date '%s' is not a date; expected YYYY-MM-DD such as 2026-11-29", S_show(s, sh));
		}
	}

	S_load_model(c, root, &in->model);

	/* training */
	tb_training *t = &in->training;
	t->seq_len = 4096;
	t->global_batch = 1024;
	t->micro_batch = 1;
	t->precision = TB_PREC_BF16_MIXED;
	t->optimizer = TB_OPT_ADAMW;
	t->checkpointing = TB_CKPT_NONE;
	t->attention_flops = TB_ATTN_FLOPS_FULL;
	t->flash_attention = true;
	t->dropout = false;
	const S_node *tr = S_section_map(c, root, "training");
	const S_node *trkey = S_get_key(root, "training");
	if (tr && (n = S_get(tr, "tokens"))) {
		if (!S_quant(c, n, "training.tokens", S_Q_COUNT, "a token count such as 100B or 1.5T", false, 1e30, &t->tokens))
			ok = false;
	} else {
		if (!S_section_broken(root, "training"))
			S_err(c, tr ? trkey : root, "missing key 'training.tokens'; expected a token count such as 100B or 1.5T");
		ok = false;
	}
	int e;
	if (tr) {
		if ((n = S_get(tr, "seq_len")) && !S_int(c, n, "training.seq_len", 1, 100000000, &t->seq_len)) ok = false;
		if ((n = S_get(tr, "global_batch")) && !S_int(c, n, "training.global_batch", 1, 1000000000, &t->global_batch)) ok = false;
		if ((n = S_get(tr, "micro_batch")) && !S_int(c, n, "training.micro_batch", 1, 10000000, &t->micro_batch)) ok = false;
		if ((n = S_get(tr, "precision"))) {
			if (S_enum(c, n, "training.precision", S_prec_names, S_N(S_prec_names), &e)) t->precision = (tb_precision)e; else ok = false;
		}
		if ((n = S_get(tr, "optimizer"))) {
			if (S_enum(c, n, "training.optimizer", S_opt_names, S_N(S_opt_names), &e)) t->optimizer = (tb_optimizer)e; else ok = false;
		}
		if ((n = S_get(tr, "checkpointing"))) {
			if (S_enum(c, n, "training.checkpointing", S_ckpt_names, S_N(S_ckpt_names), &e)) t->checkpointing = (tb_checkpointing)e; else ok = false;
		}
		if ((n = S_get(tr, "attention_flops"))) {
			if (S_enum(c, n, "training.attention_flops", S_attn_names, S_N(S_attn_names), &e)) t->attention_flops = (tb_attention_flops)e; else ok = false;
		}
		if ((n = S_get(tr, "flash_attention")) && !S_bool(c, n, "training.flash_attention", &t->flash_attention)) ok = false;
		if ((n = S_get(tr, "dropout")) && !S_bool(c, n, "training.dropout", &t->dropout)) ok = false;
	}

	/* hardware */
	tb_hardware *h = &in->hardware;
	const S_node *hw = S_section_map(c, root, "hardware");
	const S_node *hwkey = S_get_key(root, "hardware");
	S_load_gpu(c, root, hw, &h->gpu, &ok);
	if (hw && (n = S_get(hw, "count"))) {
		if (!S_int(c, n, "hardware.count", 1, 100000000, &h->count))
			ok = false;
	} else {
		if (!S_section_broken(root, "hardware"))
			S_err(c, hw ? hwkey : root, "missing key 'hardware.count'; expected the number of GPUs such as 64");
		ok = false;
	}
	S_load_mfu(c, hw ? S_get(hw, "mfu") : NULL, h->mfu, &ok);
	sc->mfu_assumed = !hw || !S_get(hw, "mfu");
	sc->gpu_assumed = !hw || !S_get(hw, "gpu");
	sc->price_assumed = !hw || !S_get(hw, "price_per_gpu_hour");
	h->price_per_gpu_hour = 2.00;
	snprintf(h->currency, sizeof h->currency, "USD");
	h->pue = 1.0;
	h->overhead_bytes = 2.0 * 1073741824.0;
	if (hw) {
		if ((n = S_get(hw, "price_per_gpu_hour")) &&
		    !S_quant(c, n, "hardware.price_per_gpu_hour", S_Q_NUMBER, "a price per GPU-hour such as 2.50", true, 1e6, &h->price_per_gpu_hour))
			ok = false;
		if ((n = S_get(hw, "currency"))) {
			const char *s = S_scalar(c, n, "hardware.currency", "a currency code such as USD or EUR");
			bool good = s && strlen(s) >= 1 && strlen(s) < sizeof h->currency;
			for (size_t i = 0; good && s[i]; i++)
				good = isalpha((unsigned char)s[i]) || s[i] == '$';
			if (good)
				snprintf(h->currency, sizeof h->currency, "%s", s);
			else {
				if (s) {
					char sh[48];
					S_err(c, n, "hardware.currency '%s' is not a currency code; expected a code such as USD or EUR", S_show(s, sh));
				}
				ok = false;
			}
		}
		if ((n = S_get(hw, "pue"))) {
			if (!S_quant(c, n, "hardware.pue", S_Q_NUMBER, "a power usage effectiveness from 1 to 3 such as 1.2", false, 3, &h->pue))
				ok = false;
			else if (h->pue < 1) {
				S_err(c, n, "hardware.pue '%s' is below 1; expected a power usage effectiveness from 1 to 3 such as 1.2", n->str);
				ok = false;
			}
		}
		if ((n = S_get(hw, "overhead")) &&
		    !S_quant(c, n, "hardware.overhead", S_Q_BYTES, "a size such as 2GiB", true, 1e15, &h->overhead_bytes))
			ok = false;
	}

	/* parallelism */
	tb_parallelism *par = &in->parallelism;
	par->tensor = par->pipeline = par->expert = 1;
	const S_node *pm = S_section_map(c, root, "parallelism");
	int64_t zero = 0;
	if (pm) {
		if ((n = S_get(pm, "tensor")) && !S_int(c, n, "parallelism.tensor", 1, 1000000, &par->tensor)) ok = false;
		if ((n = S_get(pm, "pipeline")) && !S_int(c, n, "parallelism.pipeline", 1, 1000000, &par->pipeline)) ok = false;
		if ((n = S_get(pm, "expert")) && !S_int(c, n, "parallelism.expert", 1, 1000000, &par->expert)) ok = false;
		if ((n = S_get(pm, "sequence_parallel")) && !S_bool(c, n, "parallelism.sequence_parallel", &par->sequence_parallel)) ok = false;
		if ((n = S_get(pm, "zero")) && !S_int(c, n, "parallelism.zero", 0, 3, &zero)) ok = false;
	}
	par->zero = (int)zero;

	/* plan */
	tb_plan *pl = &in->plan;
	pl->n_overtrain = 3;
	pl->overtrain[0] = 1;
	pl->overtrain[1] = 2;
	pl->overtrain[2] = 5;
	const S_node *pn = S_section_map(c, root, "plan");
	if (pn) {
		if ((n = S_get(pn, "deadline"))) {
			if (S_quant(c, n, "plan.deadline", S_Q_DURATION, "a duration such as 30 days or 720h", false, 100 * 365.25 * 86400, &pl->deadline_s))
				pl->has_deadline = true;
			else
				ok = false;
		}
		if ((n = S_get(pn, "budget"))) {
			if (S_quant(c, n, "plan.budget", S_Q_NUMBER, "an amount of money such as 500000", false, 1e15, &pl->budget))
				pl->has_budget = true;
			else
				ok = false;
		}
		if ((n = S_get(pn, "inference_tokens"))) {
			if (S_quant(c, n, "plan.inference_tokens", S_Q_COUNT, "a token count such as 2T", false, 1e30, &pl->inference_tokens))
				pl->has_inference = true;
			else
				ok = false;
		}
		if ((n = S_get(pn, "overtrain"))) {
			const char *expected = "a multiple from 0.01 to 1000 such as 2";
			if (n->kind == S_SEQ) {
				if (n->n < 1 || n->n > TB_OVERTRAIN_MAX) {
					S_err(c, n, "plan.overtrain has %zu values; expected 1 to %d multiples such as [1, 2, 5]", n->n, TB_OVERTRAIN_MAX);
					ok = false;
				} else {
					pl->n_overtrain = (int)n->n;
					for (size_t i = 0; i < n->n; i++)
						if (!S_quant(c, n->vals[i], "plan.overtrain", S_Q_NUMBER, expected, false, 1000, &pl->overtrain[i]))
							ok = false;
				}
			} else if (S_quant(c, n, "plan.overtrain", S_Q_NUMBER, expected, false, 1000, &pl->overtrain[0])) {
				pl->n_overtrain = 1;
			} else {
				ok = false;
			}
		}
	}

	/* measured */
	tb_measured *me = &in->measured;
	const S_node *mn = S_section_map(c, root, "measured");
	if (mn) {
		/* A measurement below these floors is a unit slip (ms for s, MB
		 * for GB), and would turn into an MFU or an error of 1e300. */
		if ((n = S_get(mn, "step_time"))) {
			if (!S_quant(c, n, "measured.step_time", S_Q_DURATION, "a duration such as 1.8 s", false, 1e7, &me->step_time_s)) {
				ok = false;
			} else if (me->step_time_s < 1e-3) {
				S_err(c, n, "measured.step_time is under a millisecond; expected a training step's time such as 1.8 s");
				ok = false;
			} else {
				me->has_step_time = true;
			}
		}
		if ((n = S_get(mn, "peak_memory"))) {
			if (!S_quant(c, n, "measured.peak_memory", S_Q_BYTES, "a size such as 71 GiB", false, 1e15, &me->peak_memory_bytes)) {
				ok = false;
			} else if (me->peak_memory_bytes < 1048576.0) {
				S_err(c, n, "measured.peak_memory is under 1 MiB; expected a GPU's peak such as 71 GiB");
				ok = false;
			} else {
				me->has_peak_memory = true;
			}
		}
	}

	/* Contradictions between sections, checked once each part is valid. */
	if (!ok)
		return;
	const S_node *tn = pm ? S_get(pm, "tensor") : NULL, *ppn = pm ? S_get(pm, "pipeline") : NULL;
	const S_node *where = tn ? tn : ppn ? ppn : hw ? S_get(hw, "count") : root;
	int64_t tp = par->tensor * par->pipeline;
	if (h->count % tp != 0) {
		S_err(c, where, "parallelism.tensor x parallelism.pipeline (%lld x %lld = %lld) does not divide hardware.count (%lld); expected a divisor of the GPU count",
		      (long long)par->tensor, (long long)par->pipeline, (long long)tp, (long long)h->count);
		return;
	}
	par->data = h->count / tp;
	const S_node *gb = tr ? S_get(tr, "global_batch") : NULL, *mb = tr ? S_get(tr, "micro_batch") : NULL;
	int64_t per_step = par->data * t->micro_batch;
	if (t->global_batch % per_step != 0) {
		S_err(c, mb ? mb : gb ? gb : (hw ? S_get(hw, "count") : root),
		      "training.global_batch (%lld) is not a multiple of data-parallel size x micro_batch (%lld x %lld = %lld); expected whole micro-batches on every replica",
		      (long long)t->global_batch, (long long)par->data, (long long)t->micro_batch, (long long)per_step);
	}
	const tb_model *m = &in->model;
	const S_node *mm = S_get(root, "model");
	if (m->has_shape) {
		if (m->heads % par->tensor != 0)
			S_err(c, tn, "parallelism.tensor (%lld) does not divide model.heads (%lld); expected a divisor of the attention heads",
			      (long long)par->tensor, (long long)m->heads);
		if (par->pipeline > m->layers)
			S_err(c, ppn, "parallelism.pipeline (%lld) is above model.layers (%lld); expected at most one stage per layer",
			      (long long)par->pipeline, (long long)m->layers);
	}
	const S_node *en = pm ? S_get(pm, "expert") : NULL;
	if (par->expert > 1) {
		if (!m->has_shape || m->experts <= 1)
			S_err(c, en, "parallelism.expert (%lld) with a dense model; expected 1 unless model.experts is above 1",
			      (long long)par->expert);
		else if (m->experts % par->expert != 0 || par->data % par->expert != 0)
			S_err(c, en, "parallelism.expert (%lld) does not divide both model.experts (%lld) and the data-parallel size (%lld); expected a common divisor",
			      (long long)par->expert, (long long)m->experts, (long long)par->data);
	}
	tb_dtype dt = tb_precision_compute_dtype(t->precision);
	/* fp32 training runs on plain FP32 units where there are no TF32 tensor
	 * cores (V100); no other format can stand in for a missing one. */
	bool fp32_fallback = dt == TB_DTYPE_TF32 && h->gpu.peak_flops[TB_DTYPE_FP32] > 0;
	if (!(h->gpu.peak_flops[dt] > 0) && !fp32_fallback) {
		const S_node *prn = tr ? S_get(tr, "precision") : NULL;
		S_err(c, prn ? prn : (hw && S_get(hw, "gpu") ? S_get(hw, "gpu") : root),
		      "GPU '%s' has no %s peak for training.precision %s; expected a precision the GPU supports",
		      h->gpu.name, tb_dtype_name(dt), tb_precision_name(t->precision));
	}
	if (h->gpu.memory_bytes > 0 && h->overhead_bytes >= h->gpu.memory_bytes) {
		const S_node *on = hw ? S_get(hw, "overhead") : NULL;
		S_err(c, on ? on : (hw && S_get(hw, "gpu") ? S_get(hw, "gpu") : root),
		      "hardware.overhead (%.3g GB) leaves nothing of the GPU's %.3g GB; "
		      "expected the CUDA context and allocator reserve, a few GiB",
		      h->overhead_bytes / 1e9, h->gpu.memory_bytes / 1e9);
	}
	(void)mm;
}

/* ---- entry points ---------------------------------------------------- */

static char *S_stem(const char *path)
{
	if (strcmp(path, "-") == 0)
		return tb_xstrdup("stdin");
	if (path[0] == '<')
		return tb_xstrdup("default");
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *dot = strrchr(base, '.');
	size_t n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
	if (n == 0)
		return tb_xstrdup("scenario");
	return tb_xstrndup(base, n);
}

tb_scenario *tb_scenario_load(const char *path, const char *text, size_t len,
                              const char *const *sets, size_t nsets,
                              tb_diags *d)
{
	if (!path)
		path = "<builtin>";
	if (!text)
		len = 0;
	size_t errors0 = d->errors;
	const char *shown = strcmp(path, "-") == 0 ? "<stdin>" : path;
	S_ctx c = { d, 0, path, false, false, 0 };
	S_src file_src = { shown, text, len, 0 };

	S_node *root = NULL;
	if (len > S_MAX_FILE_BYTES) {
		S_err_at(&c, &file_src, 0, 0, "the scenario is larger than 4 MiB; expected a small YAML file");
		return NULL;
	}
	if (len && memchr(text, '\0', len)) {
		size_t off = (size_t)((const char *)memchr(text, '\0', len) - text), line = 1, col = 1;
		for (size_t i = 0; i < off; i++) {
			if (text[i] == '\n') {
				line++;
				col = 1;
			} else {
				col++;
			}
		}
		S_err_at(&c, &file_src, line, col, "NUL byte in the scenario; expected UTF-8 text");
		return NULL;
	}
	if (len) {
		/* A tab libyaml accepts (inside a block scalar, after a key) is
		 * harmless; only when the parse fails are tabs in indentation
		 * named as the cause, since libyaml's own words are obscure. */
		c.quiet = true;
		c.suppressed = 0;
		root = S_parse(&c, &file_src, text, len, true);
		c.quiet = false;
		if (c.parse_failed) {
			/* Silent first try: report from a second parse. */
			if (S_check_tabs(&c, &file_src, text, len) == 0)
				S_node_free(S_parse(&c, &file_src, text, len, false));
			c.parse_failed = true;
		} else if (c.suppressed) {
			/* the tree is fine, but what the quiet pass found (a
			 * duplicate key) must still be said */
			S_node_free(root);
			root = S_parse(&c, &file_src, text, len, false);
		}
	}
	bool syntax_failed = c.parse_failed;

	S_src *set_src = nsets ? tb_xcalloc(nsets, sizeof *set_src) : NULL;
	for (size_t i = 0; i < nsets; i++) {
		set_src[i].file = "<--set>";
		set_src[i].text = sets[i] ? sets[i] : "";
		set_src[i].len = strlen(set_src[i].text);
		const char *eq = strchr(set_src[i].text, '=');
		set_src[i].col_offset = eq ? (size_t)(eq - set_src[i].text) + 1 : 0;
		if (!syntax_failed)
			S_apply_set(&c, &root, &set_src[i]);
	}

	tb_scenario *sc = tb_xcalloc(1, sizeof *sc);
	if (!syntax_failed) {
		if (!root) {
			S_err_at(&c, &file_src, 1, 1, "the scenario is empty; expected a mapping with title, model, training and hardware");
		} else if (root->kind != S_MAP) {
			S_err(&c, root, "the scenario is %s; expected a mapping with title, model, training and hardware",
			      S_kind_name(root));
		} else {
			S_load(&c, root, sc);
		}
	}
	S_node_free(root);
	free(set_src);

	if (d->errors > errors0) {
		tb_scenario_free(sc);
		return NULL;
	}
	sc->path = tb_xstrdup(path);
	sc->name = S_stem(path);
	sc->text = tb_xmalloc(len + 1);
	if (len)
		memcpy(sc->text, text, len);
	sc->text[len] = '\0';
	sc->text_len = len;
	tb_sha256_hex(sc->text, len, sc->sha256);
	sc->nsets = nsets;
	sc->sets = nsets ? tb_xcalloc(nsets, sizeof *sc->sets) : NULL;
	for (size_t i = 0; i < nsets; i++)
		sc->sets[i] = tb_xstrdup(sets[i] ? sets[i] : "");
	return sc;
}

tb_scenario *tb_scenario_load_file(const char *path,
                                   const char *const *sets, size_t nsets,
                                   tb_diags *d)
{
	size_t len = 0;
	char *text = tb_fileio_slurp(path, S_MAX_FILE_BYTES, &len);
	if (!text) {
		tb_diags_add(d, TB_DIAG_ERROR, strcmp(path, "-") == 0 ? "<stdin>" : path, NULL, 0, 0, 0,
		             "cannot read the scenario (%s); expected a readable YAML file",
		             errno == EFBIG ? "larger than 4 MiB" : strerror(errno));
		return NULL;
	}
	tb_scenario *sc = tb_scenario_load(path, text, len, sets, nsets, d);
	free(text);
	return sc;
}

const char *tb_scenario_default_text(void)
{
	return "# The built-in question: can we train a 7B model on 100B tokens\n"
	       "# in a month with 64 H100s?\n"
	       "title: \"7B on 100B tokens in a month with 64 x H100\"\n"
	       "model:\n"
	       "  preset: llama-2-7b\n"
	       "training:\n"
	       "  tokens: 100B\n"
	       "hardware:\n"
	       "  gpu: h100-sxm\n"
	       "  count: 64\n"
	       "plan:\n"
	       "  deadline: 30 days\n";
}

void tb_scenario_free(tb_scenario *s)
{
	if (!s)
		return;
	free(s->path);
	free(s->name);
	free(s->title);
	free(s->author);
	free(s->date);
	free(s->notes);
	free(s->text);
	for (size_t i = 0; i < s->nsets; i++)
		free(s->sets[i]);
	free(s->sets);
	free(s);
}
