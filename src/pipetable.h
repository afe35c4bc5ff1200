/* pipetable.h: GFM pipe tables, split from a template's source lines.
 *
 * Debian's cmark 0.30.2 has no table extension, so a table written in a
 * template reaches the engine as a paragraph.  The engine hands the
 * paragraph's source lines here; if they are a GitHub-flavoured pipe table
 * (a header row, a delimiter row of as many cells such as `| :--- | ---: |`,
 * then rows), they are split GFM's way: a leading and a trailing `|` are
 * optional, `\|` is a pipe inside a cell (a code span's too), a
 * row with fewer cells is padded, extra cells are dropped.  One addition:
 * a `|` inside `{{ }}` is a placeholder's filter, not a cell border. */
#ifndef TB_PIPETABLE_H
#define TB_PIPETABLE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct tb_pipetable {
	size_t ncols, nrows;    /* nrows counts the header row (row 0) */
	char **cells;           /* nrows * ncols, owned: each cell's Markdown, trimmed */
	size_t *cols;           /* nrows * ncols: 1-based byte column of each
	                         * cell's text in its line; 0 for padding */
	char *align;            /* ncols: 'l', 'c', 'r', or '-' for none */
} tb_pipetable;

/* True when line (len bytes, no line end) is a delimiter row, with its
 * cell count in *ncols. */
bool tb_pipetable_is_delimiter(const char *line, size_t len, size_t *ncols);

/* The number of cells the row splits into. */
size_t tb_pipetable_count(const char *line, size_t len);

/* Splits nlines lines (lines[i], lens[i] bytes) as a table whose header is
 * line 0 and delimiter row line 1.  False, and *t untouched, when they are
 * not one. */
bool tb_pipetable_parse(const char *const *lines, const size_t *lens, size_t nlines,
                        tb_pipetable *t);

void tb_pipetable_release(tb_pipetable *t);

#endif
