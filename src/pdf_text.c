#include "pdf_text.h"

#include <stdlib.h>
#include <string.h>

#include "trainbudget/xalloc.h"
#include "utf8.h"

void tb_pdf_para_init(tb_pdf_para *p, double size_pt)
{
	memset(p, 0, sizeof *p);
	p->size_pt = size_pt;
	tb_buf_init(&p->text);
}

void tb_pdf_para_release(tb_pdf_para *p)
{
	tb_buf_release(&p->text);
	free(p->pieces);
	free(p->lines);
	memset(p, 0, sizeof *p);
}

/* Length of the UTF-8 sequence starting at s (1 for a bad one), and
 * whether it is well formed (tb_utf8_seq: RFC 3629). */
static size_t S_seq_len(const unsigned char *s, size_t len, bool *ok)
{
	size_t n = tb_utf8_seq(s, len, NULL);
	*ok = n > 0;
	return n ? n : 1;
}

void tb_pdf_sanitize(tb_buf *out, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	while (i < len) {
		bool ok;
		size_t n = S_seq_len(u + i, len - i, &ok);
		if (!ok) {
			tb_buf_putc(out, '?');
		} else if (n == 1 && (u[i] < 0x20 || u[i] == 0x7F)) {
			tb_buf_putc(out, ' ');
		} else {
			tb_buf_put(out, s + i, n);
		}
		i += n;
	}
}

size_t tb_pdf_utf8_floor(const char *s, size_t len, size_t max_bytes)
{
	if (max_bytes >= len)
		return len;
	size_t n = max_bytes;
	while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--;
	return n;
}

static tb_pdf_piece *S_push(tb_pdf_para *p)
{
	if (p->npieces == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 16;
		p->pieces = tb_xrealloc(p->pieces, p->cap * sizeof *p->pieces);
	}
	tb_pdf_piece *pc = &p->pieces[p->npieces++];
	memset(pc, 0, sizeof *pc);
	return pc;
}

static void S_add_word(tb_pdf_para *p, unsigned style, const char *s, size_t len)
{
	tb_pdf_piece *pc = S_push(p);
	pc->style = style;
	pc->off = p->text.len;
	tb_pdf_sanitize(&p->text, s, len);
	pc->len = p->text.len - pc->off;
	pc->space_before = p->pending_space && p->npieces > 1;
	pc->newline = p->pending_newline;
	p->pending_space = false;
	p->pending_newline = false;
}

void tb_pdf_para_add(tb_pdf_para *p, unsigned style, const char *s, size_t len)
{
	size_t i = 0;
	while (i < len) {
		if (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
			p->pending_space = true;
			i++;
			continue;
		}
		size_t j = i;
		while (j < len && s[j] != ' ' && s[j] != '\t' && s[j] != '\n' && s[j] != '\r')
			j++;
		S_add_word(p, style, s + i, j - i);
		i = j;
	}
}

void tb_pdf_para_add_verbatim(tb_pdf_para *p, unsigned style, const char *s,
                              size_t len)
{
	size_t i = 0;
	while (i < len) {
		size_t j = i;
		while (j < len && s[j] != '\n')
			j++;
		tb_buf line;
		tb_buf_init(&line);
		for (size_t k = i; k < j; k++) {
			if (s[k] == '\t')
				tb_buf_puts(&line, "    ");
			else if (s[k] != '\r')
				tb_buf_putc(&line, s[k]);
		}
		if (line.len) {
			S_add_word(p, style, line.ptr, line.len);
		} else {
			/* an empty line still takes a line: a zero-width piece */
			S_add_word(p, style, "", 0);
		}
		tb_buf_release(&line);
		if (j < len)
			p->pending_newline = true;
		i = j + 1;
	}
}

void tb_pdf_para_add_break(tb_pdf_para *p)
{
	p->pending_newline = true;
	p->pending_space = false;
}

static void S_emit(tb_pdf_para *p, size_t first, size_t end, double w)
{
	if (p->nlines == p->lcap) {
		p->lcap = p->lcap ? p->lcap * 2 : 8;
		p->lines = tb_xrealloc(p->lines, p->lcap * sizeof *p->lines);
	}
	p->lines[p->nlines].first = first;
	p->lines[p->nlines].n = end - first;
	p->lines[p->nlines].width_pt = w;
	p->nlines++;
}

/* Splits piece k so that its first part is at most avail_pt wide (at least
 * one character when `force`); returns false when nothing fits. */
static bool S_split(tb_pdf_para *p, size_t k, double avail_pt, bool force,
                    tb_pdf_measure_fn measure, void *ctx)
{
	tb_pdf_piece pc = p->pieces[k];
	const char *s = p->text.ptr + pc.off;
	/* Longest fitting prefix, found by walking characters: words are short
	 * and this runs only for the rare word wider than a line. */
	size_t best = 0, i = 0;
	double best_w = 0;
	while (i < pc.len) {
		bool ok;
		size_t n = S_seq_len((const unsigned char *)s + i, pc.len - i, &ok);
		double w = measure(ctx, pc.style, p->size_pt, s, i + n);
		if (w > avail_pt)
			break;
		i += n;
		best = i;
		best_w = w;
	}
	if (best == 0) {
		if (!force)
			return false;
		bool ok;
		best = S_seq_len((const unsigned char *)s, pc.len, &ok);
		best_w = measure(ctx, pc.style, p->size_pt, s, best);
	}
	if (best >= pc.len)
		return true;
	S_push(p); /* room for one more; may move the array */
	memmove(&p->pieces[k + 2], &p->pieces[k + 1],
	        (p->npieces - k - 2) * sizeof *p->pieces);
	tb_pdf_piece *a = &p->pieces[k], *b = &p->pieces[k + 1];
	*b = pc;
	a->len = best;
	a->width_pt = best_w;
	b->off = pc.off + best;
	b->len = pc.len - best;
	b->space_before = false;
	b->newline = false;
	b->width_pt = measure(ctx, pc.style, p->size_pt, p->text.ptr + b->off, b->len);
	return true;
}

size_t tb_pdf_para_layout(tb_pdf_para *p, double width_pt,
                          tb_pdf_measure_fn measure, void *ctx)
{
	/* a width computed as natural + padding - padding may round below
	 * the natural width: allow for it rather than wrap */
	width_pt += 1e-6;
	p->nlines = 0;
	for (size_t i = 0; i < p->npieces; i++) {
		tb_pdf_piece *pc = &p->pieces[i];
		pc->width_pt = measure(ctx, pc->style, p->size_pt, p->text.ptr + pc->off, pc->len);
	}
	size_t first = 0, i = 0;
	double line_w = 0;
	while (i < p->npieces) {
		if (p->pieces[i].newline && i > first) {
			S_emit(p, first, i, line_w);
			first = i;
			line_w = 0;
		}
		/* a word: pieces glued together without a space between them */
		size_t j = i + 1;
		while (j < p->npieces && !p->pieces[j].space_before && !p->pieces[j].newline)
			j++;
		double word_w = 0;
		for (size_t k = i; k < j; k++)
			word_w += p->pieces[k].width_pt;
		double sp = 0;
		if (i > first && p->pieces[i].space_before)
			sp = measure(ctx, p->pieces[i].style, p->size_pt, " ", 1);
		if (line_w + sp + word_w <= width_pt) {
			line_w += sp + word_w;
			i = j;
			continue;
		}
		if (i > first) {
			/* the space before a word that wraps is dropped */
			S_emit(p, first, i, line_w);
			first = i;
			line_w = 0;
			continue;
		}
		/* The word alone is wider than the line: cut it between characters. */
		size_t k = i;
		while (k < j && line_w + p->pieces[k].width_pt <= width_pt)
			line_w += p->pieces[k++].width_pt;
		if (S_split(p, k, width_pt - line_w, k == first, measure, ctx)) {
			line_w += p->pieces[k].width_pt;
			k++;
		}
		S_emit(p, first, k, line_w);
		first = k;
		i = k;
		line_w = 0;
	}
	if (first < p->npieces)
		S_emit(p, first, p->npieces, line_w);
	return p->nlines;
}

/* ---- cells: shaping and bidi ------------------------------------------ */

void tb_pdf_cells_release(tb_pdf_cells *c)
{
	free(c->v);
	memset(c, 0, sizeof *c);
}

static tb_pdf_cell *S_cell(tb_pdf_cells *c)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 64;
		c->v = tb_xrealloc(c->v, c->cap * sizeof *c->v);
	}
	tb_pdf_cell *e = &c->v[c->n++];
	memset(e, 0, sizeof *e);
	return e;
}

void tb_pdf_cells_add(tb_pdf_cells *c, unsigned style, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	while (i < len) {
		bool ok;
		size_t n = S_seq_len(u + i, len - i, &ok);
		uint32_t cp = '?';
		if (ok) {
			cp = n == 1 ? u[i] : n == 2 ? (u[i] & 0x1Fu) : n == 3 ? (u[i] & 0x0Fu) : (u[i] & 0x07u);
			for (size_t k = 1; k < n; k++)
				cp = cp << 6 | (u[i + k] & 0x3Fu);
		}
		tb_pdf_cell *e = S_cell(c);
		e->cp = e->uni[0] = cp;
		e->nuni = 1;
		e->style = style;
		i += n;
	}
}

bool tb_pdf_ignorable(uint32_t cp)
{
	return cp == 0x00AD || cp == 0x034F || cp == 0x061C || (cp >= 0x200B && cp <= 0x200F) ||
	       (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2060 && cp <= 0x206F) ||
	       (cp >= 0xFE00 && cp <= 0xFE0F) || cp == 0xFEFF || (cp >= 0xE0000 && cp <= 0xE0FFF);
}

/* Arabic letters U+0621..U+064A: the first of their presentation forms
 * (isolated, final, initial, medial follow in that order) and how they
 * join: 'R' only to the letter before, 'D' on both sides, 'U' not at all. */
static const struct { uint16_t form; char join; } S_arabic[0x64B - 0x621] = {
	{0xFE80, 'U'}, {0xFE81, 'R'}, {0xFE83, 'R'}, {0xFE85, 'R'}, {0xFE87, 'R'}, /* 0621-0625 */
	{0xFE89, 'D'}, {0xFE8D, 'R'}, {0xFE8F, 'D'}, {0xFE93, 'R'}, {0xFE95, 'D'}, /* 0626-062A */
	{0xFE99, 'D'}, {0xFE9D, 'D'}, {0xFEA1, 'D'}, {0xFEA5, 'D'}, {0xFEA9, 'R'}, /* 062B-062F */
	{0xFEAB, 'R'}, {0xFEAD, 'R'}, {0xFEAF, 'R'}, {0xFEB1, 'D'}, {0xFEB5, 'D'}, /* 0630-0634 */
	{0xFEB9, 'D'}, {0xFEBD, 'D'}, {0xFEC1, 'D'}, {0xFEC5, 'D'}, {0xFEC9, 'D'}, /* 0635-0639 */
	{0xFECD, 'D'}, {0, 'U'}, {0, 'U'}, {0, 'U'}, {0, 'U'}, {0, 'U'},          /* 063A-063F */
	{0, 'C'}, {0xFED1, 'D'}, {0xFED5, 'D'}, {0xFED9, 'D'}, {0xFEDD, 'D'},      /* 0640-0644 */
	{0xFEE1, 'D'}, {0xFEE5, 'D'}, {0xFEE9, 'D'}, {0xFEED, 'R'}, {0xFEEF, 'R'}, /* 0645-0649 */
	{0xFEF1, 'D'},                                                             /* 064A */
};

static char S_join(uint32_t cp)
{
	if (cp >= 0x621 && cp < 0x64B)
		return S_arabic[cp - 0x621].join;
	if ((cp >= 0x64B && cp <= 0x65F) || cp == 0x670)
		return 'T'; /* harakat: transparent */
	return 'U';
}

/* Lam followed by an alef: one ligature glyph (isolated form; +1 final). */
static uint32_t S_lam_alef(uint32_t alef)
{
	switch (alef) {
	case 0x622: return 0xFEF5;
	case 0x623: return 0xFEF7;
	case 0x625: return 0xFEF9;
	case 0x627: return 0xFEFB;
	default: return 0;
	}
}

void tb_pdf_cells_shape(tb_pdf_cells *c)
{
	bool any = false;
	for (size_t i = 0; i < c->n && !any; i++)
		any = c->v[i].cp >= 0x621 && c->v[i].cp < 0x671;
	if (!any)
		return;
	size_t out = 0;
	for (size_t i = 0; i < c->n; i++) {
		tb_pdf_cell e = c->v[i];
		char t = S_join(e.cp);
		if (t != 'D' && t != 'R') {
			c->v[out++] = e;
			continue;
		}
		/* neighbours, skipping transparent marks; the one before has
		 * already been shaped, so judge it by its original letter */
		size_t p = out;
		while (p > 0 && S_join(c->v[p - 1].uni[0]) == 'T')
			p--;
		char tp = p > 0 && c->v[p - 1].nuni == 1 ? S_join(c->v[p - 1].uni[0]) : 'U';
		size_t nx = i + 1;
		while (nx < c->n && S_join(c->v[nx].cp) == 'T')
			nx++;
		char tn = nx < c->n ? S_join(c->v[nx].cp) : 'U';
		bool before = (tp == 'D' || tp == 'C');
		if (e.cp == 0x644 && nx == i + 1 && nx < c->n && S_lam_alef(c->v[nx].cp)) {
			e.cp = S_lam_alef(c->v[nx].cp) + (before ? 1 : 0);
			e.uni[1] = c->v[nx].cp;
			e.nuni = 2;
			c->v[out++] = e;
			i = nx;
			continue;
		}
		bool after = t == 'D' && (tn == 'D' || tn == 'R' || tn == 'C');
		unsigned form = before && after ? 3 : before ? 1 : after ? 2 : 0;
		e.cp = S_arabic[e.cp - 0x621].form + form;
		c->v[out++] = e;
	}
	c->n = out;
}

/* Strong right-to-left: Hebrew, Arabic, Syriac, Thaana, NKo, Samaritan
 * and their presentation forms, and the RTL blocks of the SMP. */
static bool S_is_rtl(uint32_t cp)
{
	return (cp >= 0x0590 && cp <= 0x08FF && !(cp >= 0x0660 && cp <= 0x0669) &&
	        !(cp >= 0x06F0 && cp <= 0x06F9) && !(cp >= 0x064B && cp <= 0x065F)) ||
	       (cp >= 0xFB1D && cp <= 0xFDFF) || (cp >= 0xFE70 && cp <= 0xFEFE) ||
	       (cp >= 0x10800 && cp <= 0x10FFF) || (cp >= 0x1E800 && cp <= 0x1EFFF);
}

static bool S_is_digit(uint32_t cp)
{
	return (cp >= '0' && cp <= '9') || (cp >= 0x0660 && cp <= 0x0669) ||
	       (cp >= 0x06F0 && cp <= 0x06F9);
}

/* Neither strong direction: spaces, punctuation, symbols, combining marks. */
static bool S_is_neutral(uint32_t cp)
{
	if (cp < 0x80)
		return !((cp >= 'A' && cp <= 'Z') || (cp >= 'a' && cp <= 'z') || S_is_digit(cp));
	return (cp >= 0x00A0 && cp <= 0x00BF) || cp == 0x00D7 || cp == 0x00F7 ||
	       (cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x064B && cp <= 0x065F) ||
	       (cp >= 0x2000 && cp <= 0x2BFF) || (cp >= 0x3000 && cp <= 0x3003) ||
	       (cp >= 0xFE10 && cp <= 0xFE6F) || (cp >= 0x1F000 && cp <= 0x1FAFF);
}

bool tb_pdf_cells_has_rtl(const tb_pdf_cells *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (S_is_rtl(c->v[i].cp))
			return true;
	return false;
}

static uint32_t S_mirror(uint32_t cp)
{
	static const uint32_t pairs[][2] = {
		{'(', ')'}, {'[', ']'}, {'{', '}'}, {'<', '>'}, {0xAB, 0xBB}, {0x2039, 0x203A},
		{0x2264, 0x2265},
	};
	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
		if (cp == pairs[i][0])
			return pairs[i][1];
		if (cp == pairs[i][1])
			return pairs[i][0];
	}
	return cp;
}

static void S_reverse(tb_pdf_cell *v, size_t a, size_t b)
{
	while (a + 1 < b) {
		tb_pdf_cell t = v[a];
		v[a] = v[b - 1];
		v[b - 1] = t;
		a++;
		b--;
	}
}

void tb_pdf_cells_reorder(tb_pdf_cells *c)
{
	tb_pdf_cell *v = c->v;
	size_t n = c->n;
	/* strong types: 'L', 'R', or 'N' neutral, 'E' a digit */
	char *t = tb_xmalloc(n ? n : 1);
	for (size_t i = 0; i < n; i++) {
		uint32_t cp = v[i].uni[0];
		t[i] = S_is_rtl(v[i].cp) || S_is_rtl(cp) ? 'R' : S_is_digit(cp) ? 'E'
		       : S_is_neutral(cp) ? 'N' : 'L';
	}
	/* W2/W7: a digit takes the direction of the strong type before it:
	 * 'r' after R (kept left to right one level up), 'l' otherwise */
	char last = 'L';
	for (size_t i = 0; i < n; i++) {
		if (t[i] == 'L' || t[i] == 'R')
			last = t[i];
		else if (t[i] == 'E')
			t[i] = last == 'R' ? 'r' : 'l';
	}
	/* N1/N2: neutrals between two right-to-left sides (numbers there
	 * count as right-to-left) go with them, else with the paragraph */
	for (size_t i = 0; i < n;) {
		if (t[i] != 'N') {
			v[i].level = t[i] == 'R' ? 1 : t[i] == 'r' ? 2 : 0;
			i++;
			continue;
		}
		size_t j = i;
		while (j < n && t[j] == 'N')
			j++;
		bool rb = i > 0 && (t[i - 1] == 'R' || t[i - 1] == 'r');
		bool ra = j < n && (t[j] == 'R' || t[j] == 'r');
		for (size_t k = i; k < j; k++)
			v[k].level = rb && ra ? 1 : 0;
		i = j;
	}
	/* L1: trailing whitespace goes to the paragraph's level */
	for (size_t i = n; i > 0 && (v[i - 1].cp == ' ' || v[i - 1].gap); i--)
		v[i - 1].level = 0;
	/* L4 and L2: mirror, then reverse from the highest level down */
	for (size_t i = 0; i < n; i++)
		if (v[i].level == 1)
			v[i].cp = S_mirror(v[i].cp);
	for (unsigned lvl = 2; lvl >= 1; lvl--) {
		for (size_t i = 0; i < n;) {
			if (v[i].level < lvl) {
				i++;
				continue;
			}
			size_t j = i;
			while (j < n && v[j].level >= lvl)
				j++;
			S_reverse(v, i, j);
			i = j;
		}
	}
	free(t);
}
