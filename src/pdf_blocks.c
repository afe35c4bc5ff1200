/* pdf_blocks.c: the report's blocks in the PDF: tables (columns fitted
 * to the body, the header repeated on each page), charts (the chart
 * model's primitives, scaled to the body), code and derivations. */
#include "pdf_doc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/xalloc.h"

#define S_PI 3.14159265358979323846

/* ---- tables ------------------------------------------------------------ */

#define S_CELL_PAD_X 4.0
#define S_CELL_PAD_Y 2.5

typedef struct S_grid {
	const tb_table *t;
	tb_pdf_para *cells;     /* nrows * ncols */
	double *col_w;
	double *row_h;
	double size_pt;
} S_grid;

static void S_grid_build(tb_pdf_doc *st, S_grid *g, const tb_table *t, double size_pt)
{
	g->t = t;
	g->size_pt = size_pt;
	size_t n = t->nrows * t->ncols;
	g->cells = tb_xcalloc(n ? n : 1, sizeof *g->cells);
	g->col_w = tb_xcalloc(t->ncols ? t->ncols : 1, sizeof *g->col_w);
	g->row_h = tb_xcalloc(t->nrows ? t->nrows : 1, sizeof *g->row_h);
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t c = 0; c < t->ncols; c++) {
			tb_pdf_para *p = &g->cells[r * t->ncols + c];
			const char *s = t->cells[r * t->ncols + c];
			tb_pdf_para_init(p, size_pt);
			if (s)
				tb_pdf_para_add(p, r == 0 ? TB_PDF_BOLD : 0, s, strlen(s));
		}
	}
	(void)st;
}

static void S_grid_release(S_grid *g)
{
	size_t n = g->t->nrows * g->t->ncols;
	for (size_t i = 0; i < n; i++)
		tb_pdf_para_release(&g->cells[i]);
	free(g->cells);
	free(g->col_w);
	free(g->row_h);
}

/* The widest unbreakable word of a laid-out paragraph. */
static double S_max_word(const tb_pdf_para *p)
{
	double best = 0, w = 0;
	for (size_t i = 0; i < p->npieces; i++) {
		if (p->pieces[i].space_before || p->pieces[i].newline)
			w = 0;
		w += p->pieces[i].width_pt;
		if (w > best)
			best = w;
	}
	return best;
}

/* Natural width of each column (no wrapping) and the least it can take
 * without cutting a word, padding included.  Numbers never wrap. */
static double S_grid_natural(tb_pdf_doc *st, S_grid *g, double *nat, double *least)
{
	const tb_table *t = g->t;
	double sum = 0;
	for (size_t c = 0; c < t->ncols; c++) {
		nat[c] = 0;
		least[c] = 0;
		for (size_t r = 0; r < t->nrows; r++) {
			tb_pdf_para *p = &g->cells[r * t->ncols + c];
			p->size_pt = g->size_pt;
			tb_pdf_para_layout(p, 1e9, tb_pdf_fontset_measure, st);
			for (size_t i = 0; i < p->nlines; i++)
				if (p->lines[i].width_pt > nat[c])
					nat[c] = p->lines[i].width_pt;
			double mw = r > 0 && t->numeric && t->numeric[c] ? nat[c] : S_max_word(p);
			if (mw > least[c])
				least[c] = mw;
		}
		nat[c] += 2 * S_CELL_PAD_X;
		least[c] += 2 * S_CELL_PAD_X;
		sum += nat[c];
	}
	return sum;
}

/* Column widths within `avail`: shrink the type to 7 pt first; then give
 * each column the least it needs and share what is left by how much more
 * each would like; only when even that is too wide do cells cut words. */
static void S_grid_fit(tb_pdf_doc *st, S_grid *g, double avail)
{
	const tb_table *t = g->t;
	size_t nc = t->ncols ? t->ncols : 1;
	double *nat = tb_xcalloc(nc, sizeof *nat);
	double *least = tb_xcalloc(nc, sizeof *least);
	double sum = S_grid_natural(st, g, nat, least);
	while (sum > avail && g->size_pt > 7.01) {
		g->size_pt = g->size_pt - 0.5 < 7 ? 7 : g->size_pt - 0.5;
		sum = S_grid_natural(st, g, nat, least);
	}
	double sum_least = 0;
	for (size_t c = 0; c < t->ncols; c++)
		sum_least += least[c];
	if (sum <= avail) {
		memcpy(g->col_w, nat, t->ncols * sizeof *nat);
	} else if (sum_least <= avail) {
		double extra = avail - sum_least, want = sum - sum_least;
		for (size_t c = 0; c < t->ncols; c++)
			g->col_w[c] = least[c] + (want > 0 ? extra * (nat[c] - least[c]) / want : 0);
	} else {
		/* too many columns even for whole words: numbers keep theirs (a cut
		 * number misleads), text columns share the rest and cut words */
		double num = 0, text = 0;
		for (size_t c = 0; c < t->ncols; c++) {
			if (t->numeric && t->numeric[c])
				num += least[c];
			else
				text += least[c];
		}
		bool keep_num = num < avail * 0.8 && text > 0;
		for (size_t c = 0; c < t->ncols; c++) {
			bool is_num = t->numeric && t->numeric[c];
			if (!keep_num)
				g->col_w[c] = avail * least[c] / sum_least;
			else
				g->col_w[c] = is_num ? least[c] : (avail - num) * least[c] / text;
		}
	}
	free(least);
	free(nat);
	for (size_t r = 0; r < t->nrows; r++) {
		double h = 0;
		for (size_t c = 0; c < t->ncols; c++) {
			tb_pdf_para *p = &g->cells[r * t->ncols + c];
			p->size_pt = g->size_pt;
			size_t nl = tb_pdf_para_layout(p, g->col_w[c] - 2 * S_CELL_PAD_X, tb_pdf_fontset_measure, st);
			double ch = (double)(nl ? nl : 1) * tb_pdf_draw_lead(p);
			if (ch > h)
				h = ch;
		}
		g->row_h[r] = h + 2 * S_CELL_PAD_Y;
	}
}

static void S_grid_row(tb_pdf_doc *st, S_grid *g, size_t r, double x0)
{
	const tb_table *t = g->t;
	double h = g->row_h[r];
	double w = 0;
	for (size_t c = 0; c < t->ncols; c++)
		w += g->col_w[c];
	tb_pdf_page *p = st->page;
	if (r == 0 || r % 2 == 0) {
		tb_rgb bg = r == 0 ? (tb_rgb){228, 231, 236} : (tb_rgb){247, 248, 250};
		tb_pdf_draw_fill_rgb(p, bg);
		tb_pdf_draw_rect(p, x0, (st->y - h), w, h);
		tb_pdf_draw_op(p, "f");
	}
	double x = x0;
	tb_pdf_tag_open(st, "TR");
	for (size_t c = 0; c < t->ncols; c++) {
		tb_pdf_para *cp = &g->cells[r * t->ncols + c];
		tb_pdf_tag_open(st, r == 0 ? "TH" : "TD");
		double lead = tb_pdf_draw_lead(cp);
		double base = st->y - S_CELL_PAD_Y - cp->size_pt * TB_PDF_ASCENT - (lead - cp->size_pt) / 2;
		bool right = t->numeric && t->numeric[c];
		bool mark = !st->marked;
		if (mark)
			tb_pdf_tag_mark(st);
		for (size_t i = 0; i < cp->nlines; i++) {
			tb_pdf_draw_line(st, cp, i, x + S_CELL_PAD_X, g->col_w[c] - 2 * S_CELL_PAD_X,
			                 right, tb_pdf_black, base);
			base -= lead;
		}
		if (mark)
			tb_pdf_tag_unmark(st);
		tb_pdf_tag_close(st);
		x += g->col_w[c];
	}
	tb_pdf_tag_close(st);
	tb_pdf_draw_stroke_rgb(p, r == 0 ? tb_pdf_grey : tb_pdf_rule);
	tb_pdf_draw_line_width(p, r == 0 ? 0.8 : 0.3);
	tb_pdf_draw_move_to(p, x0, (st->y - h));
	tb_pdf_draw_line_to(p, (x0 + w), (st->y - h));
	tb_pdf_draw_op(p, "S");
	st->y -= h;
}

void tb_pdf_blocks_table(tb_pdf_doc *st, const tb_table *t)
{
	if (!t->ncols || !t->nrows || !t->cells)
		return;
	S_grid g;
	S_grid_build(st, &g, t, 8.5);
	S_grid_fit(st, &g, tb_pdf_draw_body_w(st));
	double x0 = tb_pdf_draw_body_x(st);
	double cap_h = 0;
	tb_pdf_para cap;
	tb_pdf_para_init(&cap, 8.5);
	if (t->caption && t->caption[0]) {
		tb_pdf_para_add(&cap, TB_PDF_BOLD, t->caption, strlen(t->caption));
		cap_h = (double)tb_pdf_para_layout(&cap, tb_pdf_draw_body_w(st), tb_pdf_fontset_measure, st) * tb_pdf_draw_lead(&cap) + 2;
	}
	/* caption, header and first row stay together */
	tb_pdf_draw_need(st, cap_h + g.row_h[0] + (t->nrows > 1 ? g.row_h[1] : 0));
	tb_pdf_tag_open(st, "Table");
	if (cap_h > 0) {
		tb_pdf_tag_open(st, "Caption");
		tb_pdf_para_opts o = {x0, tb_pdf_draw_body_w(st), false, false, tb_pdf_black};
		tb_pdf_draw_para(st, &cap, &o);
		tb_pdf_tag_close(st);
		st->y -= 2;
	}
	S_grid_row(st, &g, 0, x0);
	for (size_t r = 1; r < t->nrows; r++) {
		if (st->y - g.row_h[r] < st->bottom) {
			tb_pdf_draw_new_page(st);
			/* the header again, for the eye: an artifact, read once */
			tb_pdf_tag_artifact(st, true);
			S_grid_row(st, &g, 0, x0);
			tb_pdf_tag_artifact(st, false);
		}
		S_grid_row(st, &g, r, x0);
	}
	tb_pdf_tag_close(st);
	tb_pdf_para_release(&cap);
	S_grid_release(&g);
	st->y -= 8;
}

/* ---- charts ------------------------------------------------------------ */

void tb_pdf_blocks_chart(tb_pdf_doc *st, const tb_chart *ch)
{
	if (!(ch->width_pt > 0) || !(ch->height_pt > 0))
		return;
	double avail = tb_pdf_draw_body_w(st);
	double s = ch->width_pt > avail ? avail / ch->width_pt : 1;
	double h = ch->height_pt * s;
	double max_h = (st->top - st->bottom) * 0.9;
	if (h > max_h) {
		s *= max_h / h;
		h = max_h;
	}
	tb_pdf_draw_need(st, h + 6);
	/* a figure, its alternate description the chart's one sentence */
	tb_pdf_tag_open(st, "Figure");
	tb_pdf_tag_alt(st, ch->alt[0] ? ch->alt : ch->title);
	tb_pdf_tag_mark(st);
	double x0 = tb_pdf_draw_body_x(st) + (avail - ch->width_pt * s) / 2;
	double top = st->y;
	tb_pdf_page *p = st->page;
	for (size_t i = 0; i < ch->n; i++) {
		const tb_prim *pr = &ch->prims[i];
		double x = x0 + pr->x * s, y = top - pr->y * s;
		switch (pr->kind) {
		case TB_PRIM_RECT:
			if (!(pr->w > 0) || !(pr->h > 0))
				break;
			/* colours first: PDF allows no colour operator inside a path */
			tb_pdf_draw_fill_rgb(p, pr->fill);
			if (pr->stroke_w > 0) {
				tb_pdf_draw_stroke_rgb(p, pr->stroke);
				tb_pdf_draw_line_width(p, (pr->stroke_w * s));
			}
			tb_pdf_draw_rect(p, x, (y - pr->h * s),
			                 (pr->w * s), (pr->h * s));
			if (pr->stroke_w > 0) {
				tb_pdf_draw_op(p, "B");
			} else {
				tb_pdf_draw_op(p, "f");
			}
			break;
		case TB_PRIM_LINE: {
			tb_pdf_draw_stroke_rgb(p, pr->stroke);
			tb_pdf_draw_line_width(p, ((pr->stroke_w > 0 ? pr->stroke_w : 1) * s));
			if (pr->dashed) {
				tb_pdf_draw_op(p, "[4 3] 0 d");
			}
			tb_pdf_draw_move_to(p, x, y);
			tb_pdf_draw_line_to(p, (x0 + pr->x2 * s), (top - pr->y2 * s));
			tb_pdf_draw_op(p, "S");
			if (pr->dashed)
				tb_pdf_draw_op(p, "[] 0 d");
			break;
		}
		case TB_PRIM_CIRCLE:
			if (!(pr->w > 0))
				break;
			tb_pdf_draw_fill_rgb(p, pr->fill);
			tb_pdf_draw_circle(p, x, y, (pr->w * s));
			tb_pdf_draw_op(p, "f");
			break;
		case TB_PRIM_TEXT: {
			char text[sizeof pr->text + 1];
			memcpy(text, pr->text, sizeof pr->text);
			text[sizeof pr->text] = '\0';
			tb_buf t;
			tb_buf_init(&t);
			tb_pdf_sanitize(&t, text, strlen(text));
			unsigned style = pr->bold ? TB_PDF_BOLD : 0;
			double size = (pr->font_size > 0 ? pr->font_size : 8) * s;
			double w = tb_pdf_fontset_measure(st, style, size, t.ptr, t.len);
			double off = pr->anchor == TB_ANCHOR_MIDDLE ? w / 2 : pr->anchor == TB_ANCHOR_END ? w : 0;
			/* the model's angles follow SVG (y down): -90 reads upwards,
			 * which is +90 in PDF's y-up space */
			double a = -pr->rotate_deg * S_PI / 180.0;
			tb_pdf_draw_text_at(st, x - off * cos(a), y - off * sin(a), style, size, pr->fill,
			                    t.ptr, t.len, a);
			tb_buf_release(&t);
			break;
		}
		}
	}
	tb_pdf_tag_unmark(st);
	tb_pdf_tag_close(st);
	st->y -= h + 10;
}

/* ---- derivations and code ---------------------------------------------- */

/* A code block's text: its trailing newlines dropped. */
static void S_code_text(tb_pdf_para *p, const char *text, size_t len)
{
	tb_pdf_para_init(p, 8.0);
	while (len && text[len - 1] == '\n')
		len--;
	tb_pdf_para_add_verbatim(p, TB_PDF_MONO, text, len);
}

static void S_code_draw(tb_pdf_doc *st, tb_pdf_para *p)
{
	tb_pdf_para_opts o = {tb_pdf_draw_body_x(st), tb_pdf_draw_body_w(st), false, true, tb_pdf_black};
	tb_pdf_draw_para(st, p, &o);
	st->y -= 8;
}

void tb_pdf_blocks_code(tb_pdf_doc *st, const char *text, size_t len)
{
	tb_pdf_para p;
	S_code_text(&p, text, len);
	S_code_draw(st, &p);
	tb_pdf_para_release(&p);
}

void tb_pdf_blocks_derivation(tb_pdf_doc *st, const tb_derivation *dv)
{
	tb_buf b;
	tb_buf_init(&b);
	if (dv->formula)
		tb_buf_printf(&b, "%s\n", dv->formula);
	if (dv->substituted)
		tb_buf_printf(&b, "%s\n", dv->substituted);
	if (dv->result)
		tb_buf_printf(&b, "%s\n", dv->result);
	if (dv->nwhere) {
		tb_buf_puts(&b, "where\n");
		for (size_t i = 0; i < dv->nwhere; i++)
			if (dv->where[i])
				tb_buf_printf(&b, "  %s\n", dv->where[i]);
	}
	/* a derivation is read as a whole: keep it on one page when it fits
	 * (laid out once: the block draws it at the same width) */
	tb_pdf_para code;
	S_code_text(&code, b.ptr, b.len);
	double h = (double)tb_pdf_para_layout(&code, tb_pdf_draw_body_w(st) - 8, tb_pdf_fontset_measure, st) *
	           tb_pdf_draw_lead(&code) + 16;
	h += (dv->title ? 9.0 * TB_PDF_LEAD + 2 : 0) + (dv->source ? 2 * 8.0 * TB_PDF_LEAD : 0);
	double page_h = st->top - st->bottom;
	tb_pdf_draw_need(st, h < page_h ? h : 3 * 8.0 * TB_PDF_LEAD);
	if (dv->title)
		tb_pdf_draw_simple_para(st, TB_PDF_BOLD, 9.0, tb_pdf_black, dv->title, 2);
	if (b.len)
		S_code_draw(st, &code);
	tb_pdf_para_release(&code);
	if (dv->source && dv->source[0]) {
		st->y += 5;
		tb_buf_truncate(&b, 0);
		tb_buf_printf(&b, "Source: %s", dv->source);
		tb_pdf_draw_simple_para(st, TB_PDF_ITALIC, 8.0, tb_pdf_grey, b.ptr, 8);
	}
	tb_buf_release(&b);
}

