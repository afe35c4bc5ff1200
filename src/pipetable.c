/* pipetable.c: GFM pipe tables from source lines (pipetable.h). */
#include "pipetable.h"

#include <stdlib.h>
#include <string.h>

#include "trainbudget/xalloc.h"

static bool S_space(char c) { return c == ' ' || c == '\t'; }

/* The cells of one row as [start, end) byte spans, trimmed; at most cap
 * are stored, all are counted. */
static size_t S_split(const char *s, size_t len, size_t *starts, size_t *ends, size_t cap)
{
	size_t i = 0, end = len;
	while (i < end && S_space(s[i]))
		i++;
	while (end > i && S_space(s[end - 1]))
		end--;
	if (i < end && s[i] == '|')
		i++;
	/* a trailing pipe, unless escaped */
	if (end > i && s[end - 1] == '|' && !(end - 1 > i && s[end - 2] == '\\'))
		end--;
	size_t n = 0, cs = i;
	for (size_t j = i; j <= end;) {
		if (j < end && s[j] == '\\' && j + 1 < end) {
			j += 2;
			continue;
		}
		if (j + 1 < end && s[j] == '{' && s[j + 1] == '{') {
			size_t k = j + 2;
			while (k + 1 < end && !(s[k] == '}' && s[k + 1] == '}'))
				k++;
			if (k + 1 < end) {
				j = k + 2;
				continue;
			}
		}
		if (j == end || s[j] == '|') {
			size_t a = cs, z = j;
			while (a < z && S_space(s[a]))
				a++;
			while (z > a && S_space(s[z - 1]))
				z--;
			if (n < cap) {
				starts[n] = a;
				ends[n] = z;
			}
			n++;
			cs = j + 1;
		}
		j++;
	}
	return n;
}

size_t tb_pipetable_count(const char *line, size_t len)
{
	return S_split(line, len, NULL, NULL, 0);
}

bool tb_pipetable_is_delimiter(const char *line, size_t len, size_t *ncols)
{
	if (!memchr(line, '|', len))
		return false;
	size_t n = S_split(line, len, NULL, NULL, 0);
	size_t *st = tb_xcalloc(n, sizeof *st), *en = tb_xcalloc(n, sizeof *en);
	S_split(line, len, st, en, n);
	bool ok = n > 0;
	for (size_t k = 0; ok && k < n; k++) {
		size_t a = st[k], z = en[k];
		if (a < z && line[a] == ':')
			a++;
		if (z > a && line[z - 1] == ':')
			z--;
		ok = z > a;
		for (size_t i = a; ok && i < z; i++)
			ok = line[i] == '-';
	}
	free(st);
	free(en);
	if (ok && ncols)
		*ncols = n;
	return ok;
}

/* GFM takes `\|` out before the cell's inline parse, so it is a pipe even
 * inside a code span. */
static char *S_unescape_pipes(const char *s, size_t n)
{
	char *o = tb_xstrndup(s, n);
	size_t j = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n && s[i + 1] == '|')
			continue;
		o[j++] = s[i];
	}
	o[j] = '\0';
	return o;
}

bool tb_pipetable_parse(const char *const *lines, const size_t *lens, size_t nlines,
                        tb_pipetable *t)
{
	size_t ncols;
	if (nlines < 2 || !tb_pipetable_is_delimiter(lines[1], lens[1], &ncols) ||
	    tb_pipetable_count(lines[0], lens[0]) != ncols)
		return false;
	memset(t, 0, sizeof *t);
	t->ncols = ncols;
	t->nrows = nlines - 1;
	t->cells = tb_xcalloc(t->nrows * ncols, sizeof *t->cells);
	t->cols = tb_xcalloc(t->nrows * ncols, sizeof *t->cols);
	t->align = tb_xcalloc(ncols + 1, 1);
	size_t *st = tb_xcalloc(ncols, sizeof *st), *en = tb_xcalloc(ncols, sizeof *en);
	S_split(lines[1], lens[1], st, en, ncols);
	for (size_t k = 0; k < ncols; k++) {
		bool left = lines[1][st[k]] == ':', right = lines[1][en[k] - 1] == ':';
		t->align[k] = left && right ? 'c' : right ? 'r' : left ? 'l' : '-';
	}
	for (size_t r = 0; r < t->nrows; r++) {
		size_t li = r == 0 ? 0 : r + 1;     /* skip the delimiter row */
		size_t n = S_split(lines[li], lens[li], st, en, ncols);
		for (size_t k = 0; k < ncols; k++) {
			size_t at = r * ncols + k;
			if (k < n) {
				t->cells[at] = S_unescape_pipes(lines[li] + st[k], en[k] - st[k]);
				t->cols[at] = st[k] + 1;
			} else {
				t->cells[at] = tb_xstrdup("");
			}
		}
	}
	free(st);
	free(en);
	return true;
}

void tb_pipetable_release(tb_pipetable *t)
{
	for (size_t i = 0; t->cells && i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->cols);
	free(t->align);
	memset(t, 0, sizeof *t);
}
