/* diag.h: diagnostics, collected and printed later (jq's locfile).
 *
 * Modules never print: they append here.  Only main.c prints, through
 * tb_diags_format().  Lines and columns are 1-based (libyaml's marks are
 * 0-based: add 1); 0 means "no position".
 *
 * Bounded whatever the input: each diagnostic keeps a window of at most
 * TB_DIAGS_WINDOW characters either side of its column (not the whole
 * line), a message of at most TB_DIAGS_MAX_MSG bytes, and only the first
 * TB_DIAGS_MAX_SHOWN diagnostics in source order are kept; the others are
 * counted.  Every piece of text kept is escaped for a terminal
 * (tb_diags_escape), so nothing read from an input can move the cursor,
 * retitle the window or reorder the line. */
#ifndef TB_DIAG_H
#define TB_DIAG_H

#include <stddef.h>
#include "trainbudget/buf.h"

typedef enum { TB_DIAG_ERROR, TB_DIAG_WARNING, TB_DIAG_NOTE } tb_diag_level;

#define TB_DIAGS_MAX_SHOWN 20   /* as clang's -ferror-limit */
#define TB_DIAGS_WINDOW 60      /* characters either side of the caret */
#define TB_DIAGS_MAX_MSG 1024   /* bytes; longer ones keep head and tail */

typedef struct tb_diag {
	tb_diag_level level;
	char *file;         /* owned, escaped; "<stdin>", "<--set>", "<builtin>" as needed */
	size_t line, col;   /* 1-based; 0 = unknown */
	char *msg;          /* owned, escaped: "what is wrong; what was expected" */
	char *source_line;  /* owned: the escaped window of the line, or NULL */
	char *caret;        /* owned: the indent (spaces and tabs) then '^' */
	size_t file_seq;    /* order of the file's first appearance */
	size_t seq;         /* order of arrival, for ties */
} tb_diag;

typedef struct tb_diags {
	tb_diag *items;     /* at most TB_DIAGS_MAX_SHOWN, not in order */
	size_t n, cap;
	size_t errors, warnings;        /* all of them, shown or not */
	size_t hidden_errors, hidden_warnings, hidden_notes;
	size_t seq;
	char **files;       /* owned: every file name seen, in order */
	size_t nfiles;
	/* where the last source line was found, so diagnostics that arrive
	 * in source order cost one pass over the text in all */
	const char *lc_text;
	size_t lc_len, lc_line, lc_off;
} tb_diags;

void tb_diags_init(tb_diags *d);
void tb_diags_release(tb_diags *d);

/* Appends a diagnostic.  `text`/`text_len` is the whole source the position
 * points into (may be NULL): a window of its line `line` around column
 * `col` (counted in characters) is kept for the caret. */
#if defined(__GNUC__)
__attribute__((format(printf, 8, 9)))
#endif
void tb_diags_add(tb_diags *d, tb_diag_level level, const char *file,
                  const char *text, size_t text_len, size_t line, size_t col,
                  const char *fmt, ...);

/* GCC style, every diagnostic kept, in source order, then what was not
 * shown and the count line:
 *   file:7:8: error: unknown GPU 'h1000'; did you mean 'h100-sxm'?
 *       gpu: h1000
 *            ^
 *   1 error
 * Returns a string the caller frees; "" when there is nothing to say. */
char *tb_diags_format(const tb_diags *d);

/* Appends len bytes of s to out so that a terminal shows them and obeys
 * none of them: C0 controls and DEL as \x1b, C1 controls and the
 * invisible bidirectional controls (U+202E...) as \u{202e}, bytes that are
 * not UTF-8 as \xff.  Tabs and newlines are escaped too unless `keep`
 * names them ("\t", "\t\n"); everything else is copied.  For every path
 * that prints text read from an input (file names, keys, titles). */
void tb_diags_escape(tb_buf *out, const char *s, size_t len, const char *keep);

/* The closest of `n` candidates to `word` by edit distance, or NULL when
 * none is close enough to suggest.  Borrowed from cands. */
const char *tb_diags_suggest(const char *word, const char *const *cands, size_t n);

#endif
