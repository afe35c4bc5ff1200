/* diag.c: collect, locate, print, count (jq's locfile).
 *
 * Everything kept is small and escaped when it arrives: a window of the
 * line, not the line; the first TB_DIAGS_MAX_SHOWN diagnostics in source
 * order, not all of them.  A one-line file of 9,000 unknown keys once made
 * 1.2 GB of errors, each quoting the whole 89 KB line. */
#include "trainbudget/diag.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "trainbudget/xalloc.h"
#include "utf8.h"

void tb_diags_init(tb_diags *d)
{
	memset(d, 0, sizeof *d);
}

static void S_diag_release(tb_diag *g)
{
	free(g->file);
	free(g->msg);
	free(g->source_line);
	free(g->caret);
}

void tb_diags_release(tb_diags *d)
{
	for (size_t i = 0; i < d->n; i++)
		S_diag_release(&d->items[i]);
	free(d->items);
	for (size_t i = 0; i < d->nfiles; i++)
		free(d->files[i]);
	free(d->files);
	tb_diags_init(d);
}

/* ---- escaping ---------------------------------------------------------- */

/* Appends the character at s (escaped as needed) to out when out is not
 * NULL; returns the bytes it takes and sets *width to the columns it shows
 * as (tabs count 1; the caret line copies them). */
static size_t S_put_char(tb_buf *out, const unsigned char *s, size_t n,
                         const char *keep, size_t *width)
{
	unsigned c = s[0];
	char esc[16];
	if (c < 0x80) {
		if ((c < 0x20 || c == 0x7f) && !(c != 0 && strchr(keep, (int)c))) {
			*width = (size_t)snprintf(esc, sizeof esc, "\\x%02x", c);
			if (out)
				tb_buf_puts(out, esc);
		} else {
			*width = 1;
			if (out)
				tb_buf_putc(out, (char)c);
		}
		return 1;
	}
	uint32_t cp = 0;
	size_t k = tb_utf8_seq(s, n, &cp);
	if (k == 0) {
		*width = (size_t)snprintf(esc, sizeof esc, "\\x%02x", c);
		if (out)
			tb_buf_puts(out, esc);
		return 1;
	}
	if (tb_utf8_invisible(cp)) {
		*width = (size_t)snprintf(esc, sizeof esc, "\\u{%x}", (unsigned)cp);
		if (out)
			tb_buf_puts(out, esc);
	} else {
		*width = 1;
		if (out)
			tb_buf_put(out, (const char *)s, k);
	}
	return k;
}

void tb_diags_escape(tb_buf *out, const char *s, size_t len, const char *keep)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t w;
	for (size_t i = 0; i < len;)
		i += S_put_char(out, u + i, len - i, keep ? keep : "", &w);
}

/* ---- the source window --------------------------------------------------- */

/* The byte span of line `line` (1-based) of text, without its line end;
 * false when the text has no such line.  Starts from where the last call
 * ended when it can, so many diagnostics in source order stay linear. */
static bool S_find_line(tb_diags *d, const char *text, size_t len, size_t line,
                        size_t *start, size_t *end)
{
	size_t i = 0, l = 1;
	if (d->lc_text == text && d->lc_len == len && d->lc_line <= line && d->lc_off <= len &&
	    (d->lc_off == 0 || text[d->lc_off - 1] == '\n')) {
		i = d->lc_off;
		l = d->lc_line;
	}
	for (; l < line; l++) {
		const char *nl = memchr(text + i, '\n', len - i);
		if (!nl)
			return false;
		i = (size_t)(nl - text) + 1;
	}
	d->lc_text = text;
	d->lc_len = len;
	d->lc_line = line;
	d->lc_off = i;
	size_t j = i;
	while (j < len && text[j] != '\n' && text[j] != '\r')
		j++;
	*start = i;
	*end = j;
	return true;
}

/* Keeps the characters of s[0..n) within TB_DIAGS_WINDOW of column col
 * (1-based, in characters; past the end means just after it), escaped,
 * with "..." where the line was cut; and the caret line under it. */
static void S_window(const char *s, size_t n, size_t col, char **line_out, char **caret_out)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, ch = 0, w;
	/* the caret's character index, at most just past the last one */
	while (i < n && ch + 1 < col) {
		i += S_put_char(NULL, u + i, n - i, "\t", &w);
		ch++;
	}
	size_t target = ch;
	size_t first = target > TB_DIAGS_WINDOW ? target - TB_DIAGS_WINDOW : 0;
	size_t last = target + TB_DIAGS_WINDOW;  /* exclusive */
	tb_buf line, caret;
	tb_buf_init(&line);
	tb_buf_init(&caret);
	if (first > 0) {
		tb_buf_puts(&line, "...");
		tb_buf_puts(&caret, "   ");
	}
	for (i = 0, ch = 0; i < n && ch < first; ch++)
		i += S_put_char(NULL, u + i, n - i, "\t", &w);
	for (; i < n && ch < last; ch++) {
		size_t k = S_put_char(&line, u + i, n - i, "\t", &w);
		if (ch < target) {
			if (u[i] == '\t')
				tb_buf_putc(&caret, '\t');
			else
				for (size_t j = 0; j < w; j++)
					tb_buf_putc(&caret, ' ');
		}
		i += k;
	}
	if (i < n)
		tb_buf_puts(&line, "...");
	tb_buf_putc(&caret, '^');
	*line_out = tb_buf_detach(&line, NULL);
	*caret_out = tb_buf_detach(&caret, NULL);
}

/* ---- adding ---------------------------------------------------------------- */

static size_t S_file_seq(tb_diags *d, const char *file)
{
	for (size_t i = 0; i < d->nfiles; i++)
		if (strcmp(d->files[i], file) == 0)
			return i;
	d->files = tb_xrealloc(d->files, (d->nfiles + 1) * sizeof *d->files);
	d->files[d->nfiles] = tb_xstrdup(file);
	return d->nfiles++;
}

/* Readers scan a file top to bottom, so diagnostics print in source order
 * per file (files in the order they first appear), whatever pass of the
 * loader found them.  Stable: equal positions keep their order. */
static bool S_before(const tb_diag *a, const tb_diag *b)
{
	if (a->file_seq != b->file_seq)
		return a->file_seq < b->file_seq;
	if (a->line != b->line)
		return a->line < b->line;
	if (a->col != b->col)
		return a->col < b->col;
	return a->seq < b->seq;
}

static void S_count_hidden(tb_diags *d, tb_diag_level level)
{
	if (level == TB_DIAG_ERROR)
		d->hidden_errors++;
	else if (level == TB_DIAG_WARNING)
		d->hidden_warnings++;
	else
		d->hidden_notes++;
}

/* At most TB_DIAGS_MAX_MSG bytes of a message: its head and its tail
 * (which says what was expected), cut between characters. */
static void S_cap_message(tb_buf *raw)
{
	if (raw->len <= TB_DIAGS_MAX_MSG)
		return;
	size_t head = TB_DIAGS_MAX_MSG * 3 / 5, tail = raw->len - TB_DIAGS_MAX_MSG * 2 / 5;
	while (head > 0 && ((unsigned char)raw->ptr[head] & 0xC0) == 0x80)
		head--;
	while (tail < raw->len && ((unsigned char)raw->ptr[tail] & 0xC0) == 0x80)
		tail++;
	tb_buf capped;
	tb_buf_init(&capped);
	tb_buf_put(&capped, raw->ptr, head);
	tb_buf_puts(&capped, " ... ");
	tb_buf_put(&capped, raw->ptr + tail, raw->len - tail);
	tb_buf_release(raw);
	*raw = capped;
}

void tb_diags_add(tb_diags *d, tb_diag_level level, const char *file,
                  const char *text, size_t text_len, size_t line, size_t col,
                  const char *fmt, ...)
{
	if (level == TB_DIAG_ERROR)
		d->errors++;
	else if (level == TB_DIAG_WARNING)
		d->warnings++;

	tb_buf fname;
	tb_buf_init(&fname);
	const char *f = file ? file : "trainbudget";
	tb_diags_escape(&fname, f, strlen(f), NULL);
	tb_diag key;
	memset(&key, 0, sizeof key);
	key.level = level;
	key.line = line;
	key.col = col;
	key.file_seq = S_file_seq(d, fname.ptr);
	key.seq = d->seq++;

	/* Full: the new one is kept only if it comes before the last kept. */
	tb_diag *slot = NULL;
	if (d->n < TB_DIAGS_MAX_SHOWN) {
		if (d->n == d->cap) {
			d->cap = d->cap ? d->cap * 2 : 8;
			d->items = tb_xrealloc(d->items, d->cap * sizeof *d->items);
		}
		slot = &d->items[d->n++];
	} else {
		size_t worst = 0;
		for (size_t i = 1; i < d->n; i++)
			if (S_before(&d->items[worst], &d->items[i]))
				worst = i;
		if (!S_before(&key, &d->items[worst])) {
			S_count_hidden(d, level);
			tb_buf_release(&fname);
			return;
		}
		slot = &d->items[worst];
		S_count_hidden(d, slot->level);
		S_diag_release(slot);
	}

	tb_buf raw, msg;
	tb_buf_init(&raw);
	tb_buf_init(&msg);
	va_list ap;
	va_start(ap, fmt);
	tb_buf_vprintf(&raw, fmt, ap);
	va_end(ap);
	S_cap_message(&raw);
	tb_diags_escape(&msg, raw.ptr, raw.len, NULL);
	tb_buf_release(&raw);

	*slot = key;
	slot->file = tb_buf_detach(&fname, NULL);
	slot->msg = tb_buf_detach(&msg, NULL);
	size_t ls, le;
	if (text && line && col && S_find_line(d, text, text_len, line, &ls, &le))
		S_window(text + ls, le - ls, col, &slot->source_line, &slot->caret);
}

/* ---- printing -------------------------------------------------------------- */

static const char *S_level_name(tb_diag_level l)
{
	switch (l) {
	case TB_DIAG_ERROR: return "error";
	case TB_DIAG_WARNING: return "warning";
	case TB_DIAG_NOTE: return "note";
	}
	return "error";
}

static void S_plural(tb_buf *b, size_t n, const char *what, bool *first)
{
	if (n == 0)
		return;
	tb_buf_printf(b, "%s%zu %s%s", *first ? "" : " and ", n, what, n == 1 ? "" : "s");
	*first = false;
}

char *tb_diags_format(const tb_diags *d)
{
	tb_buf b;
	tb_buf_init(&b);
	const tb_diag **order = tb_xcalloc(d->n ? d->n : 1, sizeof *order);
	for (size_t i = 0; i < d->n; i++) {
		/* insertion sort: at most TB_DIAGS_MAX_SHOWN */
		size_t k = i;
		while (k > 0 && S_before(&d->items[i], order[k - 1])) {
			order[k] = order[k - 1];
			k--;
		}
		order[k] = &d->items[i];
	}
	for (size_t o = 0; o < d->n; o++) {
		const tb_diag *g = order[o];
		tb_buf_puts(&b, g->file);
		if (g->line) {
			tb_buf_printf(&b, ":%zu", g->line);
			if (g->col)
				tb_buf_printf(&b, ":%zu", g->col);
		}
		tb_buf_printf(&b, ": %s: %s\n", S_level_name(g->level), g->msg);
		if (g->source_line && g->caret)
			tb_buf_printf(&b, "    %s\n    %s\n", g->source_line, g->caret);
	}
	free(order);
	if (d->hidden_errors + d->hidden_warnings + d->hidden_notes) {
		bool first = true;
		S_plural(&b, d->hidden_errors, "more error", &first);
		S_plural(&b, d->hidden_warnings, "more warning", &first);
		S_plural(&b, d->hidden_notes, "more note", &first);
		tb_buf_printf(&b, " not shown (the first %d in source order are)\n",
		              TB_DIAGS_MAX_SHOWN);
	}
	if (d->errors)
		tb_buf_printf(&b, "%zu error%s\n", d->errors, d->errors == 1 ? "" : "s");
	return tb_buf_detach(&b, NULL);
}

/* ---- suggestions ------------------------------------------------------------ */

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
	/* a name written in the wrong case is that name, however long
	 * ('EAGER', 'H100-SXM'): the edit distance would count every letter */
	for (size_t i = 0; i < n; i++)
		if (strcasecmp(word, cands[i]) == 0)
			return cands[i];
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
