#include "trainbudget/diag.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/buf.h"
#include "trainbudget/xalloc.h"

void tb_diags_init(tb_diags *d)
{
	memset(d, 0, sizeof *d);
}

void tb_diags_release(tb_diags *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->items[i].file);
		free(d->items[i].msg);
		free(d->items[i].source_line);
	}
	free(d->items);
	tb_diags_init(d);
}

/* Copies line `line` (1-based) of text, without its newline. */
static char *S_line_of(const char *text, size_t len, size_t line)
{
	if (!text || line == 0)
		return NULL;
	size_t i = 0;
	for (size_t l = 1; l < line; l++) {
		const char *nl = memchr(text + i, '\n', len - i);
		if (!nl)
			return NULL;
		i = (size_t)(nl - text) + 1;
	}
	size_t j = i;
	while (j < len && text[j] != '\n' && text[j] != '\r')
		j++;
	return tb_xstrndup(text + i, j - i);
}

void tb_diags_add(tb_diags *d, tb_diag_level level, const char *file,
                  const char *text, size_t text_len, size_t line, size_t col,
                  const char *fmt, ...)
{
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 8;
		d->items = tb_xrealloc(d->items, d->cap * sizeof *d->items);
	}
	tb_buf msg;
	tb_buf_init(&msg);
	va_list ap;
	va_start(ap, fmt);
	tb_buf_vprintf(&msg, fmt, ap);
	va_end(ap);

	tb_diag *g = &d->items[d->n++];
	g->level = level;
	g->file = tb_xstrdup(file ? file : "trainbudget");
	g->line = line;
	g->col = col;
	g->msg = tb_buf_detach(&msg, NULL);
	g->source_line = S_line_of(text, text_len, line);
	if (level == TB_DIAG_ERROR)
		d->errors++;
	else if (level == TB_DIAG_WARNING)
		d->warnings++;
}

static const char *S_level_name(tb_diag_level l)
{
	switch (l) {
	case TB_DIAG_ERROR: return "error";
	case TB_DIAG_WARNING: return "warning";
	case TB_DIAG_NOTE: return "note";
	}
	return "error";
}

/* Readers scan a file top to bottom, so diagnostics print in source order
 * per file (files in the order they first appear), whatever pass of the
 * loader found them.  Stable: equal positions keep their order. */
static bool S_before(const tb_diags *d, size_t i, size_t j)
{
	const tb_diag *a = &d->items[i], *b = &d->items[j];
	if (strcmp(a->file, b->file) != 0) {
		for (size_t k = 0; k < d->n; k++) {
			if (strcmp(d->items[k].file, a->file) == 0)
				return true;
			if (strcmp(d->items[k].file, b->file) == 0)
				return false;
		}
	}
	if (a->line != b->line)
		return a->line < b->line;
	if (a->col != b->col)
		return a->col < b->col;
	return i < j;
}

char *tb_diags_format(const tb_diags *d)
{
	tb_buf b;
	tb_buf_init(&b);
	size_t *order = tb_xcalloc(d->n, sizeof *order);
	for (size_t i = 0; i < d->n; i++) {
		/* insertion sort: a scenario has tens of diagnostics, not millions */
		size_t k = i;
		while (k > 0 && S_before(d, i, order[k - 1])) {
			order[k] = order[k - 1];
			k--;
		}
		order[k] = i;
	}
	for (size_t o = 0; o < d->n; o++) {
		const tb_diag *g = &d->items[order[o]];
		tb_buf_puts(&b, g->file);
		if (g->line) {
			tb_buf_printf(&b, ":%zu", g->line);
			if (g->col)
				tb_buf_printf(&b, ":%zu", g->col);
		}
		tb_buf_printf(&b, ": %s: %s\n", S_level_name(g->level), g->msg);
		if (g->source_line && g->col) {
			tb_buf_printf(&b, "    %s\n    ", g->source_line);
			/* Keep tabs so the caret lines up under a tabbed line. */
			size_t n = strlen(g->source_line);
			for (size_t c = 1; c < g->col; c++)
				tb_buf_putc(&b, c - 1 < n && g->source_line[c - 1] == '\t' ? '\t' : ' ');
			tb_buf_puts(&b, "^\n");
		}
	}
	free(order);
	if (d->errors)
		tb_buf_printf(&b, "%zu error%s\n", d->errors, d->errors == 1 ? "" : "s");
	return tb_buf_detach(&b, NULL);
}

static size_t S_min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;
	return m < c ? m : c;
}

/* Damerau-free Levenshtein on at most 63 bytes: enough for key names. */
static size_t S_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 63 || lb > 63)
		return (size_t)-1;
	size_t row[64];
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
			row[j] = S_min3(row[j] + 1, row[j - 1] + 1, diag + cost);
			diag = up;
		}
	}
	return row[lb];
}

/* A candidate's first '-' segment: "h100" for "h100-sxm", so a user who
 * types the family name (or a near miss of it) is pointed at a variant. */
static size_t S_stem_distance(const char *word, const char *cand)
{
	const char *dash = strchr(cand, '-');
	if (!dash || dash == cand || (size_t)(dash - cand) > 63)
		return (size_t)-1;
	char stem[64];
	memcpy(stem, cand, (size_t)(dash - cand));
	stem[dash - cand] = '\0';
	return S_distance(word, stem);
}

const char *tb_diags_suggest(const char *word, const char *const *cands, size_t n)
{
	const char *best = NULL;
	size_t best_d = (size_t)-1;
	for (size_t i = 0; i < n; i++) {
		size_t dist = S_distance(word, cands[i]);
		size_t sd = S_stem_distance(word, cands[i]);
		/* Ties go to a whole-name match: 'bf17' -> 'bf16', not 'bf16-mixed'. */
		size_t score = dist * 2 < sd * 2 + 1 ? dist * 2 : sd * 2 + 1;
		if (dist == (size_t)-1 && sd == (size_t)-1)
			continue;
		if (score < best_d) {
			best_d = score;
			best = cands[i];
		}
	}
	size_t len = strlen(word);
	size_t limit = len <= 3 ? 1 : len <= 6 ? 2 : 3;
	return best && best_d / 2 <= limit ? best : NULL;
}
