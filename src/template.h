/* template.h: the report template language, on the cmark tree.
 *
 * A template is a CommonMark document.  After cmark has parsed it, this
 * engine walks the tree (never the source text) and
 *   - replaces `{{name}}` / `{{name | filter}}` inside text, code spans and
 *     code blocks with the value's text, so whatever a value holds comes
 *     out literally in every back end;
 *   - replaces a paragraph holding only `{{table X}}`, `{{chart X}}` or
 *     `{{derivation X}}`, or a bare `{{NAME}}` the environment knows as a
 *     block (`{{verdict}}`), with what the environment builds;
 *   - keeps or drops the blocks between `{{#if C}}` / `{{#unless C}}` and
 *     `{{/if}}` / `{{/unless}}`, each marker alone in its paragraph;
 *   - turns a GFM pipe table written at the top level into a table the
 *     environment builds (Debian's cmark 0.30.2 has no table extension).
 * Names, filters, conditions and directives belong to the caller (the
 * environment below): the engine knows only the syntax, so it can be
 * fuzzed alone.  It never recurses on the tree, so any input is safe. */
#ifndef TB_TEMPLATE_H
#define TB_TEMPLATE_H

#include <stddef.h>
#include <cmark.h>
#include "trainbudget/buf.h"
#include "trainbudget/diag.h"

/* The deepest a document this engine returns may nest: a node's depth is
 * the number of its ancestors below the document (a paragraph at the top
 * level is 1, its text 2; each block quote, list, item, emphasis or link
 * adds one).  Deeper templates are refused with an error at the first node
 * past the limit, so every back end (the PDF's recursive layout included)
 * can rely on it: a back end given any other tree must refuse deeper ones
 * itself.  32 leaves room for any report a person writes (the default one
 * nests 5 deep) while bounding the Markdown renderer's per-line prefixes,
 * which grow with depth on every lazy continuation line. */
#define TB_TEMPLATE_MAX_DEPTH 32

/* What one template may ask for, so that no template makes an output
 * without bound: its own size (the default report is 4 KB; as a scenario
 * has 4 MiB), the tables, charts, derivations and blocks it places (each
 * may render to tens of kilobytes: the default report places 24), and the
 * bytes of the values it places (one `{{scenario.text}}` may be a whole
 * 4 MiB scenario).  Past any of them the template is refused. */
#define TB_TEMPLATE_MAX_BYTES ((size_t)1 << 20)
#define TB_TEMPLATE_MAX_BLOCKS 256
#define TB_TEMPLATE_MAX_VALUE_BYTES ((size_t)16 << 20)

typedef enum {
	TB_TPL_OK = 0,
	TB_TPL_UNKNOWN_NAME,    /* no such value, condition or directive argument */
	TB_TPL_UNKNOWN_FILTER,  /* the value exists; the filter does not */
	TB_TPL_BAD_FILTER       /* the filter exists but does not apply to it */
} tb_tpl_status;

typedef struct tb_tpl_env {
	void *ctx;
	/* Appends the text of `name` through `filter` (NULL: the name's
	 * default) to out. */
	tb_tpl_status (*value)(void *ctx, const char *name, const char *filter,
	                       tb_buf *out);
	/* Sets *truth. */
	tb_tpl_status (*condition)(void *ctx, const char *name, int *truth);
	/* `kind` is "table", "chart" or "derivation".  Appends the blocks it
	 * builds (custom blocks or plain paragraphs) to `into`, a document
	 * node the engine then moves them out of.  `into` is NULL when the
	 * engine only asks whether the directive exists.  A paragraph holding
	 * only `{{NAME}}` (no filter) is first offered as kind "block" with
	 * arg NAME; TB_TPL_UNKNOWN_NAME makes it an ordinary placeholder. */
	tb_tpl_status (*directive)(void *ctx, const char *kind, const char *arg,
	                           cmark_node *into);
	/* Optional: the closest known word, for "did you mean" (borrowed). */
	const char *(*suggest)(void *ctx, const char *what, const char *word);
	/* Optional: builds a GFM pipe table the template wrote (at its top
	 * level) as one block appended to `into`.  `cells` holds nrows *
	 * ncols plain-text cells, the header row first, each cell's Markdown
	 * expanded and flattened; align[c] is 'l', 'c', 'r' or '-' (none).
	 * NULL: pipe tables stay paragraphs, with a warning. */
	void (*table)(void *ctx, size_t ncols, size_t nrows, const char *const *cells,
	              const char *align, cmark_node *into);
} tb_tpl_env;

/* Parses `len` bytes of template named `file` (for diagnostics) and expands
 * it.  Returns the document (caller frees with cmark_node_free), or NULL
 * with errors at FILE:LINE:COL in d.  Every error in the template is
 * reported, not just the first.  The document returned nests at most
 * TB_TEMPLATE_MAX_DEPTH deep; a template over the limits above is
 * refused. */
cmark_node *tb_template_expand(const char *text, size_t len, const char *file,
                               const tb_tpl_env *env, tb_diags *d);

/* Appends s to out with invalid UTF-8 replaced by U+FFFD and NUL-free:
 * cmark's renderers stop at the first malformed byte. */
void tb_template_put_utf8(tb_buf *out, const char *s, size_t len);

#endif
