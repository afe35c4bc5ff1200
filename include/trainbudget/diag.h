/* diag.h: diagnostics, collected and printed later (jq's locfile).
 *
 * Modules never print: they append here.  Only main.c prints, through
 * tb_diags_format().  Lines and columns are 1-based (libyaml's marks are
 * 0-based: add 1); 0 means "no position".  Each diagnostic keeps a copy of
 * its source line so the caret survives the text it points into. */
#ifndef TB_DIAG_H
#define TB_DIAG_H

#include <stddef.h>

typedef enum { TB_DIAG_ERROR, TB_DIAG_WARNING, TB_DIAG_NOTE } tb_diag_level;

typedef struct tb_diag {
	tb_diag_level level;
	char *file;         /* owned; "<stdin>", "<--set>", "<builtin>" as needed */
	size_t line, col;   /* 1-based; 0 = unknown */
	char *msg;          /* owned: "what is wrong; what was expected" */
	char *source_line;  /* owned copy of the line, or NULL */
} tb_diag;

typedef struct tb_diags {
	tb_diag *items;
	size_t n, cap;
	size_t errors, warnings;
} tb_diags;

void tb_diags_init(tb_diags *d);
void tb_diags_release(tb_diags *d);

/* Appends a diagnostic.  `text`/`text_len` is the whole source the position
 * points into (may be NULL): its line `line` is copied for the caret. */
#if defined(__GNUC__)
__attribute__((format(printf, 8, 9)))
#endif
void tb_diags_add(tb_diags *d, tb_diag_level level, const char *file,
                  const char *text, size_t text_len, size_t line, size_t col,
                  const char *fmt, ...);

/* GCC style, every diagnostic, then the count line:
 *   file:7:8: error: unknown GPU 'h1000'; did you mean 'h100-sxm'?
 *       gpu: h1000
 *            ^
 *   1 error
 * Returns a string the caller frees; "" when there is nothing to say. */
char *tb_diags_format(const tb_diags *d);

/* The closest of `n` candidates to `word` by edit distance, or NULL when
 * none is close enough to suggest.  Borrowed from cands. */
const char *tb_diags_suggest(const char *word, const char *const *cands, size_t n);

#endif
