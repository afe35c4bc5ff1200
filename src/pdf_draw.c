/* pdf_draw.c: the PDF's drawing steps: content-stream operators, runs
 * of text in the fonts pdf_fontset.c picks (joined, in visual order),
 * pages and bookmarks, and paragraphs laid out by pdf_text.c. */
#include "pdf_doc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "linkdest.h"
#include "pdf_deflate.h"
#include "pdf_write.h"
#include "trainbudget/xalloc.h"

#define S_ITALIC_SKEW 0.2  /* synthetic oblique: tan(11 deg) */

/* ---- drawing operators ------------------------------------------------- */

static void S_num(tb_pdf_page *p, double v)
{
	tb_pdfw_num(&p->c, v);
	tb_buf_putc(&p->c, ' ');
}

void tb_pdf_draw_op(tb_pdf_page *p, const char *op)
{
	tb_buf_puts(&p->c, op);
	tb_buf_putc(&p->c, '\n');
}

static void S_rgb(tb_pdf_page *p, tb_rgb c, const char *op)
{
	uint32_t key = ((uint32_t)c.r << 16 | (uint32_t)c.g << 8 | c.b) + 1;
	uint32_t *now = op[0] == 'r' ? &p->fill : &p->stroke;
	if (*now == key)
		return;
	*now = key;
	S_num(p, c.r / 255.0);
	S_num(p, c.g / 255.0);
	S_num(p, c.b / 255.0);
	tb_pdf_draw_op(p, op);
}

void tb_pdf_draw_fill_rgb(tb_pdf_page *p, tb_rgb c)
{
	S_rgb(p, c, "rg");
}

void tb_pdf_draw_stroke_rgb(tb_pdf_page *p, tb_rgb c)
{
	S_rgb(p, c, "RG");
}

void tb_pdf_draw_rect(tb_pdf_page *p, double x, double y, double w, double h)
{
	S_num(p, x);
	S_num(p, y);
	S_num(p, w);
	S_num(p, h);
	tb_pdf_draw_op(p, "re");
}

void tb_pdf_draw_move_to(tb_pdf_page *p, double x, double y)
{
	S_num(p, x);
	S_num(p, y);
	tb_pdf_draw_op(p, "m");
}

void tb_pdf_draw_line_to(tb_pdf_page *p, double x, double y)
{
	S_num(p, x);
	S_num(p, y);
	tb_pdf_draw_op(p, "l");
}

void tb_pdf_draw_line_width(tb_pdf_page *p, double w)
{
	if (p->line_width_set && p->line_width == w)
		return;
	p->line_width_set = true;
	p->line_width = w;
	S_num(p, w);
	tb_pdf_draw_op(p, "w");
}

/* A circle as four Bezier arcs (kappa = 4(sqrt 2 - 1)/3). */
void tb_pdf_draw_circle(tb_pdf_page *p, double x, double y, double r)
{
	double k = 0.5522847498 * r;
	tb_pdf_draw_move_to(p, x - r, y);
	double pts[4][6] = {
		{x - r, y + k, x - k, y + r, x, y + r},
		{x + k, y + r, x + r, y + k, x + r, y},
		{x + r, y - k, x + k, y - r, x, y - r},
		{x - k, y - r, x - r, y - k, x - r, y},
	};
	for (int i = 0; i < 4; i++) {
		for (int j = 0; j < 6; j++)
			S_num(p, pts[i][j]);
		tb_pdf_draw_op(p, "c");
	}
}

const tb_rgb tb_pdf_black = {26, 26, 26};
const tb_rgb tb_pdf_grey = {96, 96, 96};
const tb_rgb tb_pdf_rule = {170, 170, 170};
const tb_rgb tb_pdf_shade = {243, 244, 246};

void tb_pdf_put_cid(tb_buf *b, unsigned cid)
{
	char o[16];     /* 4 used; tb_buf_put may read up to 8 */
	size_t n = 0;
	for (int i = 0; i < 2; i++) {
		unsigned char c = (unsigned char)(i ? cid : cid >> 8);
		if (c == '(' || c == ')' || c == '\\') {
			o[n++] = '\\';
			o[n++] = (char)c;
		} else if (c == '\r') {
			o[n++] = '\\';
			o[n++] = 'r';
		} else {
			o[n++] = (char)c;
		}
	}
	tb_buf_put(b, o, n);
}

/* Selects font `font` at size_pt, unless the page's text state has it. */
static void S_font(tb_pdf_page *p, int font, double size_pt)
{
	if (p->tf_font == font + 1 && p->tf_size == size_pt)
		return;
	p->tf_font = font + 1;
	p->tf_size = size_pt;
	tb_buf_puts(&p->c, "/F");
	tb_buf_int(&p->c, font + 1);
	tb_buf_putc(&p->c, ' ');
	S_num(p, size_pt);
	tb_pdf_draw_op(p, "Tf");
}

/* Opens a text object at (x, y) turned angle_rad, slanted for italic. */
static void S_begin_text(tb_pdf_page *p, double x, double y, unsigned style, double angle_rad)
{
	tb_pdf_draw_op(p, "BT");
	double skew = (style & TB_PDF_ITALIC) ? S_ITALIC_SKEW : 0;
	if (angle_rad == 0 && skew == 0) {
		/* a text object starts at the identity: a move is the matrix */
		S_num(p, x);
		S_num(p, y);
		tb_pdf_draw_op(p, "Td");
		return;
	}
	double co = cos(angle_rad), sn = sin(angle_rad);
	S_num(p, co);
	S_num(p, sn);
	S_num(p, skew * co - sn);
	S_num(p, skew * sn + co);
	S_num(p, x);
	S_num(p, y);
	tb_pdf_draw_op(p, "Tm");
}

/* Draws cells[a..b) (visual order, one style) with the left end of the
 * baseline at (x, y), turned `angle_rad` counter-clockwise about it; a
 * gap cell is advanced over, never drawn.  Returns the width drawn, in
 * points. */
static double S_show(tb_pdf_doc *st, double x, double y, double size_pt, tb_rgb color,
                     const tb_pdf_cells *c, size_t a, size_t b, double angle_rad)
{
	if (a >= b || !tb_pdf_ok(st))
		return 0;
	tb_pdf_page *p = st->page;
	tb_pdf_draw_fill_rgb(p, color);
	S_begin_text(p, x, y, c->v[a].style, angle_rad);
	int font = -1;
	bool open = false;
	long w = 0;
	for (size_t i = a; i < b; i++) {
		const tb_pdf_cell *e = &c->v[i];
		tb_pdf_glyph_hit g;
		/* a gap is advanced over, never drawn: no CID of its own */
		if (!(e->gap ? tb_pdf_fontset_glyph(st, e->style, e->cp, &g)
		             : tb_pdf_fontset_glyph_cid(st, e->style, e->cp, &g))) {
			if (!tb_pdf_ignorable(e->cp))
				tb_pdf_fontset_missing(st, e->cp, c);
			continue;
		}
		if (e->gap) {
			/* move the text position without drawing: a negative
			 * adjustment in a TJ array advances */
			if (open)
				tb_buf_puts(&p->c, ") Tj\n");
			open = false;
			tb_buf_putc(&p->c, '[');
			tb_buf_int(&p->c, -g.width);
			tb_buf_puts(&p->c, "] TJ\n");
			w += g.width;
			continue;
		}
		if (g.font != font) {
			if (open)
				tb_buf_puts(&p->c, ") Tj\n");
			open = false;
			font = g.font;
			p->fonts |= 1u << font;
			S_font(p, font, size_pt);
		}
		if (!open)
			tb_buf_putc(&p->c, '(');
		open = true;
		tb_pdf_put_cid(&p->c, g.cid);
		w += g.width;
	}
	if (open)
		tb_buf_puts(&p->c, ") Tj\n");
	tb_pdf_draw_op(p, "ET");
	return (double)w * size_pt / 1000.0;
}

/* A new annotation of the current page over (x0, y0)-(x1, y1). */
static tb_pdf_annot *S_new_annot(tb_pdf_doc *st, double x0, double y0, double x1, double y1)
{
	tb_pdf_page *p = st->page;
	p->annots = tb_xgrow(p->annots, &p->acap, p->nannots + 1, sizeof *p->annots, 8);
	tb_pdf_annot *a = &p->annots[p->nannots++];
	memset(a, 0, sizeof *a);
	a->x0 = x0;
	a->y0 = y0;
	a->x1 = x1;
	a->y1 = y1;
	return a;
}

/* Where a link's run was drawn, on the current page: the run's box from
 * below the baseline to the ascent, joined to the previous box when it
 * continues it (the same link, the same line). */
static void S_annot(tb_pdf_doc *st, unsigned link, double x0, double x1, double y,
                    double size_pt)
{
	tb_pdf_page *p = st->page;
	double y0 = y - 0.25 * size_pt, y1 = y + TB_PDF_ASCENT * size_pt;
	if (p->nannots) {
		tb_pdf_annot *last = &p->annots[p->nannots - 1];
		if (!last->sig_role && last->link == link && last->y0 == y0 && last->y1 == y1 &&
		    fabs(last->x1 - x0) < 0.01 * size_pt) {
			last->x1 = x1;
			return;
		}
	}
	tb_pdf_annot *a = S_new_annot(st, x0, y0, x1, y1);
	a->link = link;
	/* the Link element its text was drawn in (tb_pdf_tag_link_begin) */
	if (st->nelems && !strcmp(st->elems[st->cur].type, "Link"))
		a->elem = st->cur;
}

void tb_pdf_draw_sig_field(tb_pdf_doc *st, const char *role, double x0, double y0, double x1,
                           double y1)
{
	tb_pdf_annot *a = S_new_annot(st, x0, y0, x1, y1);
	a->sig_role = role;
	tb_pdf_tag_form(st, a);
}

/* At most this many links a document: more are drawn as their text. */
#define S_LINKS_MAX 4096

unsigned tb_pdf_draw_link(tb_pdf_doc *st, const char *url)
{
	char scheme[32];
	if (!url || !url[0] || !tb_linkdest_allowed(url, scheme, sizeof scheme) ||
	    st->nlinks >= S_LINKS_MAX)
		return 0;
	for (size_t i = 0; i < st->nlinks; i++)
		if (strcmp(st->links[i], url) == 0)
			return (unsigned)i + 1;
	if (st->nlinks == st->lcap) {
		st->lcap = st->lcap ? st->lcap * 2 : 16;
		st->links = tb_xrealloc(st->links, st->lcap * sizeof *st->links);
	}
	st->links[st->nlinks++] = tb_xstrdup(url);
	return (unsigned)st->nlinks;
}

/* Draws shaped glyphs [a, b) (visual order, one style) like S_show:
 * each glyph's /W width is what a viewer advances, so the shaper's
 * advance and offsets are given as TJ adjustments, its vertical offsets
 * as text rise.  Returns the width drawn, in points. */
static double S_show_glyphs(tb_pdf_doc *st, double x, double y, double size_pt, tb_rgb color,
                            const tb_pdf_cells *c, const tb_pdf_shaped *sh, size_t a,
                            size_t b, double angle_rad)
{
	tb_pdf_page *p = st->page;
	tb_pdf_draw_fill_rgb(p, color);
	S_begin_text(p, x, y, sh->v[a].style, angle_rad);
	int font = -1;
	bool array = false, str = false;
	long move = 0;          /* thousandths still to move right before the next glyph */
	int32_t rise = 0;
	long w = 0;
	for (size_t i = a; i < b; i++) {
		const tb_pdf_glyph *g = &sh->v[i];
		w += g->adv;
		if (g->gap) {
			move += g->adv;
			continue;
		}
		if (g->font != font || g->dy != rise) {
			if (str)
				tb_buf_putc(&p->c, ')');
			if (array)
				tb_buf_puts(&p->c, "] TJ\n");
			array = str = false;
		}
		if (g->font != font) {
			font = g->font;
			p->fonts |= 1u << font;
			S_font(p, font, size_pt);
		}
		if (g->dy != rise) {
			rise = g->dy;
			S_num(p, rise * size_pt / 1000.0);
			tb_pdf_draw_op(p, "Ts");
		}
		move += g->dx;
		if (!array)
			tb_buf_putc(&p->c, '[');
		array = true;
		if (move) {
			if (str)
				tb_buf_putc(&p->c, ')');
			str = false;
			tb_buf_int(&p->c, -move);
		}
		if (!str)
			tb_buf_putc(&p->c, '(');
		str = true;
		uint32_t text[TB_PDF_CID_TEXT_MAX];
		size_t nt = 0;
		for (size_t k = 0; g->text && k < g->ncells && nt < TB_PDF_CID_TEXT_MAX; k++)
			text[nt++] = c->v[g->cell + k].cp;
		if (sh->runs[g->run].rtl) /* visual order: see tb_pdf_run */
			for (size_t k = 0; k < nt / 2; k++) {
				uint32_t t = text[k];
				text[k] = text[nt - 1 - k];
				text[nt - 1 - k] = t;
			}
		tb_pdf_put_cid(&p->c, tb_pdf_font_cid(st->fonts[font].f, g->gid, text, nt));
		move = g->adv - g->w - g->dx;
	}
	if (str)
		tb_buf_putc(&p->c, ')');
	if (array)
		tb_buf_puts(&p->c, "] TJ\n");
	if (rise)
		tb_pdf_draw_op(p, "0 Ts");
	tb_pdf_draw_op(p, "ET");
	return (double)w * size_pt / 1000.0;
}

/* Opens a span whose text is cells[a..b) (/ActualText): what a run drawn
 * in another order, or with glyphs that are not one a character, says. */
static void S_actual_text(tb_pdf_page *p, const tb_pdf_cells *c, size_t a, size_t b)
{
	tb_buf_puts(&p->c, "/Span <</ActualText <FEFF");
	for (size_t i = a; i < b; i++) {
		uint32_t u = c->v[i].cp;
		if (u >= 0x10000) {
			u -= 0x10000;
			tb_buf_hex4(&p->c, 0xD800 + (u >> 10));
			tb_buf_hex4(&p->c, 0xDC00 + (u & 0x3FF));
		} else {
			tb_buf_hex4(&p->c, u);
		}
	}
	tb_buf_puts(&p->c, ">>> BDC\n");
}

static void S_link_box(tb_pdf_doc *st, unsigned style, double x, double from, double to,
                       double y, double size_pt, double angle_rad)
{
	unsigned link = TB_PDF_LINK_OF(style);
	if (link && angle_rad == 0 && to > from)
		S_annot(st, link, x + from, x + to, y, size_pt);
}

/* Complex text: shaped, in visual order, a span of one style at a time,
 * each run drawn in another order than its text said again. */
static void S_show_shaped(tb_pdf_doc *st, double x, double y, double size_pt, tb_rgb color,
                          const tb_pdf_cells *c, int dir, double angle_rad)
{
	tb_pdf_shaped *sh = &st->shaped;
	tb_pdf_shape(st, c, dir, sh);
	double co = cos(angle_rad), sn = sin(angle_rad);
	double adv = 0;
	for (size_t r = 0; r < sh->nruns && tb_pdf_ok(st); r++) {
		const tb_pdf_run *run = &sh->runs[r];
		if (run->reordered)
			S_actual_text(st->page, c, run->cell, run->cell + run->ncells);
		size_t k = run->first, end = run->first + run->n;
		while (k < end) {
			size_t j = k + 1;
			while (j < end && !sh->v[j].gap)
				j++;
			if (sh->v[k].gap) {
				adv += sh->v[k].adv * size_pt / 1000.0;
				k++;
				continue;
			}
			double from = adv;
			int tag = TB_PDF_LINK_OF(sh->v[k].style) && angle_rad == 0
			          ? tb_pdf_tag_link_begin(st) : 0;
			adv += S_show_glyphs(st, x + adv * co, y + adv * sn, size_pt, color, c, sh, k, j,
			                     angle_rad);
			S_link_box(st, sh->v[k].style, x, from, adv, y, size_pt, angle_rad);
			tb_pdf_tag_link_end(st, tag);
			k = j;
		}
		if (run->reordered)
			tb_pdf_draw_op(st->page, "EMC");
	}
}

/* Draws the cells, in logical order, as a line from x: text that needs
 * no shaping one glyph a character, a run of one style at a time; other
 * text shaped. */
static void S_show_line(tb_pdf_doc *st, double x, double y, double size_pt, tb_rgb color,
                        tb_pdf_cells *c, int dir, double angle_rad)
{
	if (!tb_pdf_shape_simple(c)) {
		S_show_shaped(st, x, y, size_pt, color, c, dir, angle_rad);
		return;
	}
	double co = cos(angle_rad), sn = sin(angle_rad);
	double adv = 0;
	size_t k = 0;
	while (k < c->n) {
		size_t j = k + 1;
		while (j < c->n && c->v[j].style == c->v[k].style && !c->v[j].gap)
			j++;
		/* a gap cell at a style change is its own run: advance only */
		if (c->v[k].gap) {
			adv += (double)tb_pdf_fontset_cells_width(st, c, k, k + 1) * size_pt / 1000.0;
			k++;
			continue;
		}
		double from = adv;
		int tag = TB_PDF_LINK_OF(c->v[k].style) && angle_rad == 0
		          ? tb_pdf_tag_link_begin(st) : 0;
		adv += S_show(st, x + adv * co, y + adv * sn, size_pt, color, c, k, j, angle_rad);
		S_link_box(st, c->v[k].style, x, from, adv, y, size_pt, angle_rad);
		tb_pdf_tag_link_end(st, tag);
		k = j;
	}
}

/* Draws `len` bytes of sanitized UTF-8 with its left end of baseline at
 * (x, y); `angle_rad` turns it counter-clockwise about that point. */
void tb_pdf_draw_text_at(tb_pdf_doc *st, double x, double y, unsigned style, double size_pt,
                         tb_rgb color, const char *s, size_t len, double angle_rad)
{
	if (!len)
		return;
	tb_pdf_cells c = {0};
	tb_pdf_cells_add(&c, style, s, len);
	S_show_line(st, x, y, size_pt, color, &c, TB_PDF_DIR_AUTO, angle_rad);
	tb_pdf_cells_release(&c);
}

/* Sanitizes then draws a NUL-terminated string. */
void tb_pdf_draw_label(tb_pdf_doc *st, double x, double y, unsigned style, double size_pt,
                       tb_rgb color, const char *s)
{
	tb_buf t;
	tb_buf_init(&t);
	tb_pdf_sanitize(&t, s, strlen(s));
	tb_pdf_draw_text_at(st, x, y, style, size_pt, color, t.ptr, t.len, 0);
	tb_buf_release(&t);
}

/* ---- pages --------------------------------------------------------------- */

void tb_pdf_draw_new_page(tb_pdf_doc *st)
{
	/* marked content ends on its page and begins again on the next */
	int marked = st->marked;
	if (marked == 1)
		tb_pdf_tag_unmark(st);
	else if (marked == 2)
		tb_pdf_tag_artifact(st, false);
	tb_pdf_draw_end_page(st);
	if (st->npages == st->pcap) {
		st->pcap = st->pcap ? st->pcap * 2 : 16;
		st->pages = tb_xrealloc(st->pages, st->pcap * sizeof *st->pages);
	}
	tb_pdf_page *p = tb_xcalloc(1, sizeof *p);
	tb_buf_init(&p->c);
	st->pages[st->npages++] = p;
	st->page = p;
	st->y = st->top;
	if (marked == 1)
		tb_pdf_tag_mark(st);
	else if (marked == 2)
		tb_pdf_tag_artifact(st, true);
}

void tb_pdf_draw_end_page(tb_pdf_doc *st)
{
	tb_pdf_page *p = st->page;
	if (!p || p->ended)
		return;
	p->ended = true;
	p->body = p->c;
	tb_buf_init(&p->c);
	tb_pdf_helper_add(st->deflate, p->body.ptr, p->body.len, TB_PDF_DEFLATE_LEVEL);
}

/* A bookmark to the current page, at `top` (NAN: the whole page). */
void tb_pdf_draw_bookmark(tb_pdf_doc *st, const char *title, double top)
{
	if (st->noutline == st->ocap) {
		st->ocap = st->ocap ? st->ocap * 2 : 16;
		st->outline = tb_xrealloc(st->outline, st->ocap * sizeof *st->outline);
	}
	tb_pdf_outline_item *o = &st->outline[st->noutline++];
	tb_buf t;
	tb_buf_init(&t);
	tb_pdf_sanitize(&t, title, strlen(title));
	o->title = tb_buf_detach(&t, NULL);
	o->page = st->npages - 1;
	o->top = top;
}

bool tb_pdf_draw_page_empty(const tb_pdf_doc *st)
{
	return st->y >= st->top - 0.01;
}

/* Starts a new page unless `h` points still fit on this one (or the page
 * is empty: a thing taller than a page then runs on regardless). */
void tb_pdf_draw_need(tb_pdf_doc *st, double h)
{
	if (st->y - h < st->bottom && !tb_pdf_draw_page_empty(st))
		tb_pdf_draw_new_page(st);
}

/* ---- paragraphs -------------------------------------------------------- */

double tb_pdf_draw_lead(const tb_pdf_para *p)
{
	return p->size_pt * TB_PDF_LEAD;
}

/* Draws line `li` with its baseline at `base`: its pieces become cells in
 * logical order, a space between two pieces of one style drawn, one at a
 * change of style only advanced over (in the second style's width). */
void tb_pdf_draw_line(tb_pdf_doc *st, const tb_pdf_para *p, size_t li, double x0,
                      double width, bool right, tb_rgb color, double base)
{
	const tb_pdf_line *ln = &p->lines[li];
	/* a right-to-left paragraph is set flush right, its lines in its order */
	int dir = p->rtl ? TB_PDF_DIR_RTL : TB_PDF_DIR_LTR;
	double x = x0 + (right || p->rtl ? width - ln->width_pt : 0);
	tb_pdf_cells c = {0};
	for (size_t k = ln->first; k < ln->first + ln->n; k++) {
		const tb_pdf_piece *pc = &p->pieces[k];
		if (k > ln->first && pc->space_before) {
			tb_pdf_cells_add(&c, pc->style, " ", 1);
			c.v[c.n - 1].gap = pc->style != p->pieces[k - 1].style;
		}
		tb_pdf_cells_add(&c, pc->style, p->text.ptr + pc->off, pc->len);
	}
	/* each line is marked content of the element open (a paragraph, a
	 * heading, a table cell), unless what draws it marked it whole */
	bool mark = !st->marked;
	if (mark)
		tb_pdf_tag_mark(st);
	S_show_line(st, x, base, p->size_pt, color, &c, dir, 0);
	if (mark)
		tb_pdf_tag_unmark(st);
	tb_pdf_cells_release(&c);
}

static void S_draw_marker(tb_pdf_doc *st, double base, double size_pt)
{
	if (!st->marker[0])
		return;
	tb_pdf_draw_label(st, st->marker_x, base, 0, size_pt, tb_pdf_black, st->marker);
	st->marker[0] = '\0';
}

/* Lays out and draws a paragraph at st->y, breaking pages between lines. */
void tb_pdf_draw_para(tb_pdf_doc *st, tb_pdf_para *p, const tb_pdf_para_opts *o)
{
	double lead = tb_pdf_draw_lead(p);
	double pad = o->shade ? 4 : 0;
	tb_pdf_para_layout(p, o->width - 2 * pad, tb_pdf_fontset_measure, st);
	/* the paragraph is one marked-content sequence (a page break splits it) */
	bool mark = !st->marked;
	if (mark)
		tb_pdf_tag_mark(st);
	for (size_t i = 0; i < p->nlines; i++) {
		tb_pdf_draw_need(st, lead + (i == 0 || i + 1 == p->nlines ? pad : 0));
		bool top_of_band = i == 0 || tb_pdf_draw_page_empty(st);
		if (o->shade) {
			double band_top = st->y + (top_of_band ? 0 : 0.5);
			double band_h = lead + (top_of_band ? pad : 0) +
			                (i + 1 == p->nlines ? pad : 0) + (top_of_band ? 0 : 0.5);
			tb_pdf_draw_fill_rgb(st->page, tb_pdf_shade);
			tb_pdf_draw_rect(st->page, o->x, (band_top - band_h),
			                 o->width, band_h);
			tb_pdf_draw_op(st->page, "f");
			if (top_of_band)
				st->y -= pad;
		}
		double base = st->y - p->size_pt * TB_PDF_ASCENT - (lead - p->size_pt) / 2;
		S_draw_marker(st, base, TB_PDF_BODY_PT);
		tb_pdf_draw_line(st, p, i, o->x + pad, o->width - 2 * pad, o->right, o->color, base);
		st->y -= lead;
		if (o->shade && i + 1 == p->nlines)
			st->y -= pad;
	}
	if (mark)
		tb_pdf_tag_unmark(st);
}

double tb_pdf_draw_body_x(const tb_pdf_doc *st)
{
	return st->left + st->indent;
}

double tb_pdf_draw_body_w(const tb_pdf_doc *st)
{
	return st->right - st->left - st->indent;
}

void tb_pdf_draw_simple_para(tb_pdf_doc *st, unsigned style, double size_pt, tb_rgb color,
                             const char *text, double after_pt)
{
	tb_pdf_para p;
	tb_pdf_para_init(&p, size_pt);
	tb_pdf_para_add(&p, style, text, strlen(text));
	tb_pdf_para_opts o = {tb_pdf_draw_body_x(st), tb_pdf_draw_body_w(st), false, false, color};
	tb_pdf_draw_para(st, &p, &o);
	tb_pdf_para_release(&p);
	st->y -= after_pt;
}
