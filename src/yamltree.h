/* yamltree.h: YAML as a small tree that keeps every value's place, and
 * typed getters whose errors point at it.  Internal to the library.
 *
 * libyaml's events build the tree; each node keeps its source and 1-based
 * line:col (jq's locfile), so a check made long after parsing still points
 * at the value it is about.  Nothing here knows what a scenario is: the
 * scenario's key-by-key checks (scenario*.c) are written on top of it, and
 * a new YAML input would be too.
 *
 * Every problem is appended to the context's diagnostics as
 * "what is wrong; what was expected" and the getters return false (or
 * NULL); nothing prints.  Untrusted input: nesting depth and node count
 * are bounded, and aliases are refused (no "billion laughs"). */
#ifndef TB_YAMLTREE_H
#define TB_YAMLTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trainbudget/buf.h"
#include "trainbudget/diag.h"

/* The number of entries of a static array. */
#define TB_N(a) (sizeof (a) / sizeof *(a))

/* A text the nodes point into.  Borrowed: it must outlive its nodes. */
typedef struct tb_yaml_src {
	const char *file;       /* as diagnostics print it */
	const char *text;       /* the whole source, for the caret line */
	size_t len;
	size_t col_offset;      /* --set values: where VALUE starts in KEY=VALUE;
	                         * non-zero puts every node on line 1 */
} tb_yaml_src;

typedef enum { TB_YAML_SCALAR, TB_YAML_SEQ, TB_YAML_MAP } tb_yaml_kind;

typedef struct tb_yaml_node tb_yaml_node;
struct tb_yaml_node {
	tb_yaml_kind kind;
	char *str;              /* scalars: the text; otherwise NULL */
	bool quoted;
	size_t line, col;
	const tb_yaml_src *src;
	size_t n, cap;
	tb_yaml_node **keys;    /* maps: key scalars, index-aligned with vals */
	tb_yaml_node **vals;    /* maps: values; sequences: items */
	bool dup;               /* a duplicate key: reported, then ignored */
};

typedef struct tb_yaml_ctx {
	tb_diags *d;
	size_t nodes;           /* made by the current parse, for the limit */
	const char *path;       /* the document's path as given: files it
	                         * names are found relative to it */
	bool parse_failed;      /* the last tb_yaml_parse hit a syntax error */
	bool quiet;             /* a trial parse: report nothing */
	size_t suppressed;      /* errors a quiet parse did not report */
} tb_yaml_ctx;

/* ---- errors ---------------------------------------------------------- */

/* An error at node `at` (NULL: no position). */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
void tb_yaml_err(tb_yaml_ctx *c, const tb_yaml_node *at, const char *fmt, ...);

/* An error at line:col of src (0: unknown). */
#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
void tb_yaml_err_at(tb_yaml_ctx *c, const tb_yaml_src *src, size_t line, size_t col,
                    const char *fmt, ...);
/* The column of byte `offset` of scalar n's value in its source, where
 * the value's bytes before it stand there as written (a plain scalar, or
 * a quoted one up to its first escape); false otherwise (an escape, a
 * folded or block scalar), for the caller to point at n. */
bool tb_yaml_value_col(const tb_yaml_node *n, size_t offset, size_t *col);

/* ---- the tree -------------------------------------------------------- */

/* Parses `len` bytes of text (src's or a part of it) into a tree the caller
 * frees with tb_yaml_node_free.  An empty document gives NULL without an
 * error; a syntax error is reported (unless `quiet_syntax`), sets
 * c->parse_failed and gives NULL. */
tb_yaml_node *tb_yaml_parse(tb_yaml_ctx *c, const tb_yaml_src *src,
                            const char *text, size_t len, bool quiet_syntax);

/* A deep copy, each node keeping its source (which must outlive it):
 * a tree parsed once, copied for each load that overrides it. */
tb_yaml_node *tb_yaml_node_copy(const tb_yaml_node *n);

/* Reports each line whose indentation holds a tab (libyaml's own words for
 * it are obscure); returns how many. */
size_t tb_yaml_check_tabs(tb_yaml_ctx *c, const tb_yaml_src *src,
                          const char *text, size_t len);

tb_yaml_node *tb_yaml_node_new(tb_yaml_ctx *c, tb_yaml_kind kind,
                               const tb_yaml_src *src, size_t line, size_t col);
/* Frees n and everything under it; NULL does nothing. */
void tb_yaml_node_free(tb_yaml_node *n);
/* Appends to a sequence (key NULL) or a mapping; takes both nodes. */
void tb_yaml_append(tb_yaml_node *parent, tb_yaml_node *key, tb_yaml_node *val);

/* Removes entry `at` of a mapping (key and value, freed); out of range
 * does nothing. */
void tb_yaml_remove(tb_yaml_node *map, size_t at);

/* "a scalar", "a list", "a mapping": for messages. */
const char *tb_yaml_kind_name(const tb_yaml_node *n);

/* Look-ups in a mapping (NULL or a non-mapping finds nothing); duplicate
 * keys are skipped.  Borrowed from map. */
long tb_yaml_find(const tb_yaml_node *map, const char *key);     /* index or -1 */
tb_yaml_node *tb_yaml_get(const tb_yaml_node *map, const char *key);
tb_yaml_node *tb_yaml_get_key(const tb_yaml_node *map, const char *key);

/* The mapping under `name` in map, or NULL when it is absent, empty
 * ("training:" with nothing under it) or not a mapping, which is reported
 * as "NAME is a list; expected a mapping of NAME keys". */
const tb_yaml_node *tb_yaml_get_map(tb_yaml_ctx *c, const tb_yaml_node *map,
                                    const char *name);
/* The same without reporting: the mapping under `name` or NULL. */
const tb_yaml_node *tb_yaml_child_map(const tb_yaml_node *map, const char *name);
/* Whether `name` is present but neither a mapping nor empty: its error is
 * already said, so the keys it should hold are not "missing" as well. */
bool tb_yaml_map_broken(const tb_yaml_node *map, const char *name);

/* ---- keys ------------------------------------------------------------ */

bool tb_yaml_in(const char *word, const char *const *list, size_t n);
/* Appends "a, b, c". */
void tb_yaml_join(tb_buf *b, const char *const *list, size_t n);
/* At most 40 bytes of a user's value, for a message: s itself or buf. */
const char *tb_yaml_show(const char *s, char buf[48]);
/* "unknown key 'PREFIXkey'; did you mean ...?" or "...; expected one of". */
void tb_yaml_unknown_key(tb_yaml_ctx *c, const tb_yaml_node *key, const char *prefix,
                         const char *const *list, size_t n);
/* Reports every key of map that is not in list (prefix as above). */
void tb_yaml_check_keys(tb_yaml_ctx *c, const tb_yaml_node *map, const char *prefix,
                        const char *const *list, size_t n);

/* ---- typed getters ---------------------------------------------------
 * `name` is the value's full key as the user writes it ("training.tokens"),
 * `expected` the phrase after "expected".  Each returns false (or NULL)
 * after reporting; *out is written only on success. */

/* The text of a scalar; a list, a mapping or an unquoted empty/null value
 * is an error. */
const char *tb_yaml_scalar(tb_yaml_ctx *c, const tb_yaml_node *n, const char *name,
                           const char *expected);

typedef enum {
	TB_YAML_Q_COUNT,        /* tb_units_parse_count: 7B, 4k, 1e9 */
	TB_YAML_Q_BYTES,        /* tb_units_parse_bytes: 80GiB */
	TB_YAML_Q_DURATION,     /* tb_units_parse_duration: 30 days */
	TB_YAML_Q_FRACTION,     /* tb_units_parse_fraction: 0.35, 35% */
	TB_YAML_Q_NUMBER,       /* tb_units_parse_number */
	TB_YAML_Q_RATE,         /* tb_units_parse_rate: 450GB/s, 400Gbit/s */
} tb_yaml_qkind;

/* A quantity with its unit.  `max` bounds it (0 = no bound beyond
 * finiteness).  `min` 0 allows zero; above 0 it refuses zero and every value
 * below it, so that a rate of 1e-300 B/s or a run of 1e-300 tokens is named
 * as the nonsense it is instead of underflowing a quotient downstream. */
bool tb_yaml_quant(tb_yaml_ctx *c, const tb_yaml_node *n, const char *name,
                   tb_yaml_qkind kind, const char *expected, double min,
                   double max, double *out);
/* A whole number in [min, max]; units such as 4k allowed. */
bool tb_yaml_int(tb_yaml_ctx *c, const tb_yaml_node *n, const char *name,
                 int64_t min, int64_t max, int64_t *out);
/* true/false and YAML 1.1's yes/no/on/off. */
bool tb_yaml_bool(tb_yaml_ctx *c, const tb_yaml_node *n, const char *name, bool *out);
/* One of `count` names; *out is its index. */
bool tb_yaml_enum(tb_yaml_ctx *c, const tb_yaml_node *n, const char *name,
                  const char *const *names, size_t count, int *out);
/* A switch that may also name how: names[0] is "off" and names[1] "on",
 * and the boolean spellings tb_yaml_bool takes give index 0 or 1; any
 * other value is one of the names, as tb_yaml_enum. */
bool tb_yaml_switch(tb_yaml_ctx *c, const tb_yaml_node *n, const char *name,
                    const char *const *names, size_t count, int *out);
/* A copy the caller frees, at most max_len bytes.  `one_line`: a title or
 * a name, which lands in headings, PDF running headers and tables, so
 * control characters (a newline, a bell) are refused. */
char *tb_yaml_string(tb_yaml_ctx *c, const tb_yaml_node *n, const char *name,
                     size_t max_len, bool one_line);

#endif
