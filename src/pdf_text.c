#include "pdf_text.h"

#include <stdlib.h>
#include <string.h>

#include "pdf_break.h"
#include "pdf_shape.h"
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
		/* a run of printable ASCII, most of any text, is kept as it is */
		size_t r = i;
		while (r < len && u[r] >= 0x20 && u[r] < 0x7F)
			r++;
		if (r > i) {
			tb_buf_put(out, s + i, r - i);
			i = r;
			continue;
		}
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

/* Splits piece k where pdf_break.h allows a break without a space: the
 * first part stays piece k, the others follow it with break_before. */
static void S_split_words(tb_pdf_para *p, size_t k)
{
	size_t off = p->pieces[k].off, n = p->pieces[k].len;
	unsigned char *brk = tb_xmalloc(n ? n : 1);
	tb_pdf_breaks(p->text.ptr + off, n, brk);
	size_t cuts = 0;
	for (size_t i = 1; i < n; i++)
		cuts += brk[i] == TB_PDF_BREAK_WORD;
	if (!cuts) {
		free(brk);
		return;
	}
	tb_pdf_piece tmpl = p->pieces[k];
	size_t old = p->npieces;
	for (size_t c = 0; c < cuts; c++)
		S_push(p);
	memmove(&p->pieces[k + 1 + cuts], &p->pieces[k + 1], (old - k - 1) * sizeof *p->pieces);
	size_t start = 0, at = k;
	for (size_t i = 1; i <= n; i++) {
		if (i < n && brk[i] != TB_PDF_BREAK_WORD)
			continue;
		tb_pdf_piece *q = &p->pieces[at];
		if (at > k) {
			*q = tmpl;
			q->space_before = false;
			q->newline = false;
			q->break_before = true;
		}
		q->off = off + start;
		q->len = i - start;
		start = i;
		at++;
	}
	free(brk);
}

static void S_add_word(tb_pdf_para *p, unsigned style, const char *s, size_t len)
{
	p->laid_measure = NULL;
	tb_pdf_piece *pc = S_push(p);
	pc->style = style;
	pc->off = p->text.len;
	tb_pdf_sanitize(&p->text, s, len);
	pc->len = p->text.len - pc->off;
	pc->space_before = p->pending_space && p->npieces > 1;
	pc->newline = p->pending_newline;
	p->pending_space = false;
	p->pending_newline = false;
	/* ideographs, Thai words and the like break without a space */
	bool plain = true;
	for (size_t i = pc->off; i < p->text.len && plain;) {
		uint32_t cp = (unsigned char)p->text.ptr[i];
		size_t k = cp < 0x80 ? 1 : tb_utf8_seq((const unsigned char *)p->text.ptr + i,
		                                       p->text.len - i, &cp);
		plain = cp < 0x3000 && tb_pdf_cp_simple(cp);
		i += k ? k : 1;
	}
	if (plain || !tb_pdf_breaks_inside(p->text.ptr + pc->off, pc->len))
		return;
	S_split_words(p, p->npieces - 1);
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
		if (!memchr(s + i, '\t', j - i) && !memchr(s + i, '\r', j - i)) {
			/* nothing to expand or drop: the line as it is (an empty
			 * one still takes a line, as a zero-width piece) */
			S_add_word(p, style, s + i, j - i);
		} else {
			tb_buf line;
			tb_buf_init(&line);
			for (size_t k = i; k < j; k++) {
				if (s[k] == '\t')
					tb_buf_puts(&line, "    ");
				else if (s[k] != '\r')
					tb_buf_putc(&line, s[k]);
			}
			S_add_word(p, style, line.len ? line.ptr : "", line.len);
			tb_buf_release(&line);
		}
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

/* The end of the grapheme cluster starting at byte i of s[0..len), by
 * the break opportunities brk[] known for s[0..span): past span, each
 * character ends one. */
static size_t S_cluster_end(const char *s, size_t len, const unsigned char *brk, size_t span,
                            size_t i)
{
	do {
		bool ok;
		i += S_seq_len((const unsigned char *)s + i, len - i, &ok);
	} while (i < len && i < span && brk[i] == TB_PDF_BREAK_NONE);
	return i;
}

/* Splits piece k so that its first part is at most avail_pt wide (at least
 * one character when `force`); returns false when nothing fits. */
static bool S_split(tb_pdf_para *p, size_t k, double avail_pt, bool force,
                    tb_pdf_measure_fn measure, void *ctx)
{
	tb_pdf_piece pc = p->pieces[k];
	const char *s = p->text.ptr + pc.off;
	/* Longest fitting prefix, found by walking clusters: words are short
	 * and this runs only for the rare word wider than a line.  Clusters
	 * are found in a window a little past the first prefix too wide, not
	 * in the whole word: a 200 KB word is cut a line at a time, and
	 * looking at all of it each time made that quadratic. */
	size_t win = pc.len < 256 ? pc.len : 256;
	while (win < pc.len && measure(ctx, pc.style, p->size_pt, s, win) <= avail_pt)
		win = tb_pdf_utf8_floor(s, pc.len, win * 4);
	size_t span = tb_pdf_utf8_floor(s, pc.len, win + 64);
	unsigned char *brk = tb_xmalloc(span ? span : 1);
	tb_pdf_breaks(s, span, brk);
	size_t best = 0, i = 0;
	double best_w = 0;
	while (i < pc.len) {
		size_t e = S_cluster_end(s, pc.len, brk, span, i);
		double w = measure(ctx, pc.style, p->size_pt, s, e);
		if (w > avail_pt)
			break;
		i = e;
		best = i;
		best_w = w;
	}
	if (best == 0) {
		if (!force) {
			free(brk);
			return false;
		}
		best = S_cluster_end(s, pc.len, brk, span, 0);
		best_w = measure(ctx, pc.style, p->size_pt, s, best);
	}
	free(brk);
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
	b->break_before = false;
	b->newline = false;
	b->width_pt = measure(ctx, pc.style, p->size_pt, p->text.ptr + b->off, b->len);
	return true;
}

size_t tb_pdf_para_layout(tb_pdf_para *p, double width_pt,
                          tb_pdf_measure_fn measure, void *ctx)
{
	if (p->laid_measure == measure && p->laid_ctx == ctx && p->laid_w == width_pt &&
	    p->laid_size_pt == p->size_pt)
		return p->nlines;
	p->laid_measure = measure;
	p->laid_ctx = ctx;
	p->laid_w = width_pt;
	p->laid_size_pt = p->size_pt;
	/* a width computed as natural + padding - padding may round below
	 * the natural width: allow for it rather than wrap */
	width_pt += 1e-6;
	p->nlines = 0;
	p->rtl = tb_pdf_shape_dir(p->text.ptr, p->text.len) == TB_PDF_DIR_RTL;
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
		while (j < p->npieces && !p->pieces[j].space_before && !p->pieces[j].newline &&
		       !p->pieces[j].break_before)
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
		e->cp = cp;
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
