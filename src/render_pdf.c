/* render_pdf.c: the sign-off PDF, laid out over the report's cmark tree
 * and drawn with libharu.
 *
 * One pass lays out and draws the body onto pages kept in an array; a
 * second pass writes the running header and "page N of M" footer, which
 * need the page count.  Nothing here computes a figure: text, tables and
 * chart primitives come from the report model as they are.
 *
 * libharu errors are sticky and reported through a callback: the callback
 * records the first one (no longjmp) and each phase checks it. */
#include "trainbudget/render.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hpdf.h>

#include "pdf_text.h"
#include "trainbudget/version.h"
#include "trainbudget/xalloc.h"

#define S_DEFAULT_FONT_DIR "/usr/share/fonts/truetype/dejavu"
#define S_MARGIN_PT 54.0
#define S_BODY_PT 9.5
#define S_LEAD 1.32        /* line height as a multiple of the font size */
#define S_ASCENT 0.93      /* DejaVu's ascent: first baseline below the top */
#define S_ITALIC_SKEW 0.2  /* synthetic oblique: tan(11 deg) */
#define S_PI 3.14159265358979323846

enum { S_REGULAR, S_BOLD, S_MONO, S_NFACES };

static const char *const S_face_file[S_NFACES] = {
	"DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf",
};

typedef struct S_pdf {
	HPDF_Doc doc;
	HPDF_STATUS err, err_detail;    /* the first libharu error */
	bool failed;                    /* an error already reported in d */
	tb_diags *d;
	const char *font_dir;
	HPDF_Font font[S_NFACES];       /* loaded on first use: only faces used are embedded */
	HPDF_Encoder utf8;
	const tb_report_meta *meta;
	tb_pdf_block_fn block;

	double page_w, page_h;
	double left, right, top, bottom; /* the body's box */
	HPDF_Page page;
	double y;                       /* top of the next thing drawn */
	HPDF_Page *pages;
	size_t npages, pcap;

	double indent;                  /* lists and quotes */
	char marker[16];                /* list marker waiting for its item's first line */
	double marker_x;
	int base_level;                 /* heading level numbered "1" */
	int counters[7];
	cmark_node *title_node;         /* a leading H1: the title, unnumbered */
	bool verdict_drawn;             /* the next numbered section opens a page */
} S_pdf;

static void S_error_handler(HPDF_STATUS error_no, HPDF_STATUS detail_no, void *user)
{
	S_pdf *st = user;
	if (!st->err) {
		st->err = error_no;
		st->err_detail = detail_no;
	}
}

static bool S_ok(const S_pdf *st)
{
	return !st->err && !st->failed;
}

/* ---- fonts and text ---------------------------------------------------- */

static HPDF_Font S_font(S_pdf *st, unsigned style)
{
	int face = (style & TB_PDF_MONO) ? S_MONO : (style & TB_PDF_BOLD) ? S_BOLD : S_REGULAR;
	if (st->font[face] || st->failed)
		return st->font[face];
	tb_buf path;
	tb_buf_init(&path);
	tb_buf_printf(&path, "%s/%s", st->font_dir, S_face_file[face]);
	/* libharu reports a missing file as a bare error number: check first
	 * so the message names the file. */
	FILE *f = fopen(path.ptr, "rb");
	if (!f) {
		tb_diags_add(st->d, TB_DIAG_ERROR, path.ptr, NULL, 0, 0, 0,
		             "cannot read font: %s; expected the DejaVu fonts "
		             "(Debian package fonts-dejavu-core) or --font-dir naming "
		             "a folder with %s, %s and %s",
		             strerror(errno), S_face_file[0], S_face_file[1], S_face_file[2]);
		st->failed = true;
		tb_buf_release(&path);
		return NULL;
	}
	fclose(f);
	const char *name = HPDF_LoadTTFontFromFile(st->doc, path.ptr, HPDF_TRUE);
	if (name)
		st->font[face] = HPDF_GetFont(st->doc, name, "UTF-8");
	if (!st->font[face]) {
		tb_diags_add(st->d, TB_DIAG_ERROR, path.ptr, NULL, 0, 0, 0,
		             "libharu could not load this TrueType font (error 0x%04X); "
		             "expected a DejaVu TrueType file",
		             (unsigned)st->err);
		st->failed = true;
	}
	tb_buf_release(&path);
	return st->font[face];
}

static double S_measure(void *ctx, unsigned style, double size_pt, const char *s,
                        size_t len)
{
	S_pdf *st = ctx;
	HPDF_Font font = S_font(st, style);
	if (!font || !len)
		return font ? 0 : (double)len * size_pt * 0.6;
	HPDF_TextWidth tw = HPDF_Font_TextWidth(font, (const HPDF_BYTE *)s, (HPDF_UINT)len);
	return tw.width * size_pt / 1000.0;
}

static double S_width(S_pdf *st, unsigned style, double size_pt, const char *s)
{
	return S_measure(st, style, size_pt, s, strlen(s));
}

static void S_fill_rgb(HPDF_Page page, tb_rgb c)
{
	HPDF_Page_SetRGBFill(page, c.r / 255.0f, c.g / 255.0f, c.b / 255.0f);
}

static void S_stroke_rgb(HPDF_Page page, tb_rgb c)
{
	HPDF_Page_SetRGBStroke(page, c.r / 255.0f, c.g / 255.0f, c.b / 255.0f);
}

static const tb_rgb S_black = {26, 26, 26};
static const tb_rgb S_grey = {96, 96, 96};
static const tb_rgb S_rule = {170, 170, 170};
static const tb_rgb S_shade = {243, 244, 246};

/* Draws `len` bytes of sanitized UTF-8 with its left end of baseline at
 * (x, y); `angle_rad` turns it counter-clockwise about that point. */
static void S_text_at(S_pdf *st, double x, double y, unsigned style, double size_pt,
                      tb_rgb color, const char *s, size_t len, double angle_rad)
{
	HPDF_Font font = S_font(st, style);
	if (!font || !len)
		return;
	char *z = tb_xstrndup(s, len);
	HPDF_Page p = st->page;
	S_fill_rgb(p, color);
	HPDF_Page_BeginText(p);
	HPDF_Page_SetFontAndSize(p, font, (HPDF_REAL)size_pt);
	double c = cos(angle_rad), sn = sin(angle_rad);
	double skew = (style & TB_PDF_ITALIC) ? S_ITALIC_SKEW : 0;
	HPDF_Page_SetTextMatrix(p, (HPDF_REAL)c, (HPDF_REAL)sn,
	                        (HPDF_REAL)(skew * c - sn), (HPDF_REAL)(skew * sn + c),
	                        (HPDF_REAL)x, (HPDF_REAL)y);
	HPDF_Page_ShowText(p, z);
	HPDF_Page_EndText(p);
	free(z);
}

/* Sanitizes then draws a NUL-terminated string. */
static void S_label(S_pdf *st, double x, double y, unsigned style, double size_pt,
                    tb_rgb color, const char *s)
{
	tb_buf t;
	tb_buf_init(&t);
	tb_pdf_sanitize(&t, s, strlen(s));
	S_text_at(st, x, y, style, size_pt, color, t.ptr, t.len, 0);
	tb_buf_release(&t);
}

/* ---- pages --------------------------------------------------------------- */

static void S_new_page(S_pdf *st)
{
	HPDF_Page p = HPDF_AddPage(st->doc);
	if (!p)
		return;
	HPDF_Page_SetWidth(p, (HPDF_REAL)st->page_w);
	HPDF_Page_SetHeight(p, (HPDF_REAL)st->page_h);
	if (st->npages == st->pcap) {
		st->pcap = st->pcap ? st->pcap * 2 : 16;
		st->pages = tb_xrealloc(st->pages, st->pcap * sizeof *st->pages);
	}
	st->pages[st->npages++] = p;
	st->page = p;
	st->y = st->top;
}

static bool S_page_empty(const S_pdf *st)
{
	return st->y >= st->top - 0.01;
}

/* Starts a new page unless `h` points still fit on this one (or the page
 * is empty: a thing taller than a page then runs on regardless). */
static void S_need(S_pdf *st, double h)
{
	if (st->y - h < st->bottom && !S_page_empty(st))
		S_new_page(st);
}

/* ---- paragraphs -------------------------------------------------------- */

typedef struct S_para_opts {
	double x, width;
	bool right;           /* right-aligned (numbers) */
	bool shade;           /* a grey band behind each line (code) */
	tb_rgb color;
	bool page_breaks;     /* false: draw at st->y without breaking (table cells) */
} S_para_opts;

static double S_lead(const tb_pdf_para *p)
{
	return p->size_pt * S_LEAD;
}

/* Draws line `li` with its baseline at `base`. */
static void S_draw_line(S_pdf *st, const tb_pdf_para *p, size_t li, double x0,
                        double width, bool right, tb_rgb color, double base)
{
	const tb_pdf_line *ln = &p->lines[li];
	double x = x0 + (right ? width - ln->width_pt : 0);
	tb_buf run;
	tb_buf_init(&run);
	size_t k = ln->first, end = ln->first + ln->n;
	while (k < end) {
		unsigned style = p->pieces[k].style;
		tb_buf_truncate(&run, 0);
		double lead_sp = 0;
		if (k > ln->first && p->pieces[k].space_before)
			lead_sp = S_measure(st, style, p->size_pt, " ", 1);
		size_t j = k;
		while (j < end && p->pieces[j].style == style) {
			if (j > k && p->pieces[j].space_before)
				tb_buf_putc(&run, ' ');
			tb_buf_put(&run, p->text.ptr + p->pieces[j].off, p->pieces[j].len);
			j++;
		}
		x += lead_sp;
		S_text_at(st, x, base, style, p->size_pt, color, run.ptr, run.len, 0);
		x += S_measure(st, style, p->size_pt, run.ptr, run.len);
		k = j;
	}
	tb_buf_release(&run);
}

static void S_draw_marker(S_pdf *st, double base, double size_pt)
{
	if (!st->marker[0])
		return;
	S_label(st, st->marker_x, base, 0, size_pt, S_black, st->marker);
	st->marker[0] = '\0';
}

/* Lays out and draws a paragraph at st->y, breaking pages between lines. */
static void S_draw_para(S_pdf *st, tb_pdf_para *p, const S_para_opts *o)
{
	double lead = S_lead(p);
	double pad = o->shade ? 4 : 0;
	tb_pdf_para_layout(p, o->width - 2 * pad, S_measure, st);
	for (size_t i = 0; i < p->nlines; i++) {
		S_need(st, lead + (i == 0 || i + 1 == p->nlines ? pad : 0));
		bool top_of_band = i == 0 || S_page_empty(st);
		if (o->shade) {
			double band_top = st->y + (top_of_band ? 0 : 0.5);
			double band_h = lead + (top_of_band ? pad : 0) +
			                (i + 1 == p->nlines ? pad : 0) + (top_of_band ? 0 : 0.5);
			S_fill_rgb(st->page, S_shade);
			HPDF_Page_Rectangle(st->page, (HPDF_REAL)o->x, (HPDF_REAL)(band_top - band_h),
			                    (HPDF_REAL)o->width, (HPDF_REAL)band_h);
			HPDF_Page_Fill(st->page);
			if (top_of_band)
				st->y -= pad;
		}
		double base = st->y - p->size_pt * S_ASCENT - (lead - p->size_pt) / 2;
		S_draw_marker(st, base, S_BODY_PT);
		S_draw_line(st, p, i, o->x + pad, o->width - 2 * pad, o->right, o->color, base);
		st->y -= lead;
		if (o->shade && i + 1 == p->nlines)
			st->y -= pad;
	}
}

/* The inlines under `n`, walked with cmark's iterator rather than by
 * recursion: a template can nest emphasis and links as deep as it likes,
 * and the style in force is kept on a stack of our own. */
static void S_inlines(tb_pdf_para *p, cmark_node *n, unsigned style)
{
	cmark_iter *it = cmark_iter_new(n);
	unsigned *stack = NULL;
	size_t depth = 0, cap = 0;
	cmark_event_type ev;
	while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		cmark_node *c = cmark_iter_get_node(it);
		if (c == n)
			continue;
		const char *lit = cmark_node_get_literal(c);
		cmark_node_type type = cmark_node_get_type(c);
		if (ev == CMARK_EVENT_EXIT) {
			if (depth)
				style = stack[--depth];
			continue;
		}
		switch (type) {
		case CMARK_NODE_TEXT:
		case CMARK_NODE_HTML_INLINE:
			if (lit)
				tb_pdf_para_add(p, style, lit, strlen(lit));
			break;
		case CMARK_NODE_CODE:
			if (lit)
				tb_pdf_para_add(p, style | TB_PDF_MONO, lit, strlen(lit));
			break;
		case CMARK_NODE_SOFTBREAK:
			p->pending_space = true;
			break;
		case CMARK_NODE_LINEBREAK:
			tb_pdf_para_add_break(p);
			break;
		default: /* emphasis, links, images (their alt text), custom inlines */
			if (depth == cap) {
				cap = cap ? cap * 2 : 16;
				stack = tb_xrealloc(stack, cap * sizeof *stack);
			}
			stack[depth++] = style;
			if (type == CMARK_NODE_EMPH)
				style |= TB_PDF_ITALIC;
			else if (type == CMARK_NODE_STRONG)
				style |= TB_PDF_BOLD;
			break;
		}
	}
	free(stack);
	cmark_iter_free(it);
}

static double S_body_x(const S_pdf *st)
{
	return st->left + st->indent;
}

static double S_body_w(const S_pdf *st)
{
	return st->right - st->left - st->indent;
}

static void S_simple_para(S_pdf *st, unsigned style, double size_pt, tb_rgb color,
                          const char *text, double after_pt)
{
	tb_pdf_para p;
	tb_pdf_para_init(&p, size_pt);
	tb_pdf_para_add(&p, style, text, strlen(text));
	S_para_opts o = {S_body_x(st), S_body_w(st), false, false, color, true};
	S_draw_para(st, &p, &o);
	tb_pdf_para_release(&p);
	st->y -= after_pt;
}

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

static void S_grid_build(S_pdf *st, S_grid *g, const tb_table *t, double size_pt)
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
static double S_grid_natural(S_pdf *st, S_grid *g, double *nat, double *least)
{
	const tb_table *t = g->t;
	double sum = 0;
	for (size_t c = 0; c < t->ncols; c++) {
		nat[c] = 0;
		least[c] = 0;
		for (size_t r = 0; r < t->nrows; r++) {
			tb_pdf_para *p = &g->cells[r * t->ncols + c];
			p->size_pt = g->size_pt;
			tb_pdf_para_layout(p, 1e9, S_measure, st);
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
static void S_grid_fit(S_pdf *st, S_grid *g, double avail)
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
			size_t nl = tb_pdf_para_layout(p, g->col_w[c] - 2 * S_CELL_PAD_X, S_measure, st);
			double ch = (double)(nl ? nl : 1) * S_lead(p);
			if (ch > h)
				h = ch;
		}
		g->row_h[r] = h + 2 * S_CELL_PAD_Y;
	}
}

static void S_grid_row(S_pdf *st, S_grid *g, size_t r, double x0)
{
	const tb_table *t = g->t;
	double h = g->row_h[r];
	double w = 0;
	for (size_t c = 0; c < t->ncols; c++)
		w += g->col_w[c];
	HPDF_Page p = st->page;
	if (r == 0 || r % 2 == 0) {
		tb_rgb bg = r == 0 ? (tb_rgb){228, 231, 236} : (tb_rgb){247, 248, 250};
		S_fill_rgb(p, bg);
		HPDF_Page_Rectangle(p, (HPDF_REAL)x0, (HPDF_REAL)(st->y - h), (HPDF_REAL)w, (HPDF_REAL)h);
		HPDF_Page_Fill(p);
	}
	double x = x0;
	for (size_t c = 0; c < t->ncols; c++) {
		tb_pdf_para *cp = &g->cells[r * t->ncols + c];
		double lead = S_lead(cp);
		double base = st->y - S_CELL_PAD_Y - cp->size_pt * S_ASCENT - (lead - cp->size_pt) / 2;
		bool right = t->numeric && t->numeric[c];
		for (size_t i = 0; i < cp->nlines; i++) {
			S_draw_line(st, cp, i, x + S_CELL_PAD_X, g->col_w[c] - 2 * S_CELL_PAD_X,
			            right, S_black, base);
			base -= lead;
		}
		x += g->col_w[c];
	}
	S_stroke_rgb(p, r == 0 ? S_grey : S_rule);
	HPDF_Page_SetLineWidth(p, r == 0 ? 0.8f : 0.3f);
	HPDF_Page_MoveTo(p, (HPDF_REAL)x0, (HPDF_REAL)(st->y - h));
	HPDF_Page_LineTo(p, (HPDF_REAL)(x0 + w), (HPDF_REAL)(st->y - h));
	HPDF_Page_Stroke(p);
	st->y -= h;
}

static void S_table(S_pdf *st, const tb_table *t)
{
	if (!t->ncols || !t->nrows || !t->cells)
		return;
	S_grid g;
	S_grid_build(st, &g, t, 8.5);
	S_grid_fit(st, &g, S_body_w(st));
	double x0 = S_body_x(st);
	double cap_h = 0;
	tb_pdf_para cap;
	tb_pdf_para_init(&cap, 8.5);
	if (t->caption && t->caption[0]) {
		tb_pdf_para_add(&cap, TB_PDF_BOLD, t->caption, strlen(t->caption));
		cap_h = (double)tb_pdf_para_layout(&cap, S_body_w(st), S_measure, st) * S_lead(&cap) + 2;
	}
	/* caption, header and first row stay together */
	S_need(st, cap_h + g.row_h[0] + (t->nrows > 1 ? g.row_h[1] : 0));
	if (cap_h > 0) {
		S_para_opts o = {x0, S_body_w(st), false, false, S_black, true};
		S_draw_para(st, &cap, &o);
		st->y -= 2;
	}
	S_grid_row(st, &g, 0, x0);
	for (size_t r = 1; r < t->nrows; r++) {
		if (st->y - g.row_h[r] < st->bottom) {
			S_new_page(st);
			S_grid_row(st, &g, 0, x0); /* the header again */
		}
		S_grid_row(st, &g, r, x0);
	}
	tb_pdf_para_release(&cap);
	S_grid_release(&g);
	st->y -= 8;
}

/* ---- charts ------------------------------------------------------------ */

static void S_chart(S_pdf *st, const tb_chart *ch)
{
	if (!(ch->width_pt > 0) || !(ch->height_pt > 0))
		return;
	double avail = S_body_w(st);
	double s = ch->width_pt > avail ? avail / ch->width_pt : 1;
	double h = ch->height_pt * s;
	double max_h = (st->top - st->bottom) * 0.9;
	if (h > max_h) {
		s *= max_h / h;
		h = max_h;
	}
	S_need(st, h + 6);
	double x0 = S_body_x(st) + (avail - ch->width_pt * s) / 2;
	double top = st->y;
	HPDF_Page p = st->page;
	for (size_t i = 0; i < ch->n; i++) {
		const tb_prim *pr = &ch->prims[i];
		double x = x0 + pr->x * s, y = top - pr->y * s;
		switch (pr->kind) {
		case TB_PRIM_RECT:
			if (!(pr->w > 0) || !(pr->h > 0))
				break;
			/* colours first: libharu refuses them once a path is open */
			S_fill_rgb(p, pr->fill);
			if (pr->stroke_w > 0) {
				S_stroke_rgb(p, pr->stroke);
				HPDF_Page_SetLineWidth(p, (HPDF_REAL)(pr->stroke_w * s));
			}
			HPDF_Page_Rectangle(p, (HPDF_REAL)x, (HPDF_REAL)(y - pr->h * s),
			                    (HPDF_REAL)(pr->w * s), (HPDF_REAL)(pr->h * s));
			if (pr->stroke_w > 0) {
				HPDF_Page_FillStroke(p);
			} else {
				HPDF_Page_Fill(p);
			}
			break;
		case TB_PRIM_LINE: {
			S_stroke_rgb(p, pr->stroke);
			HPDF_Page_SetLineWidth(p, (HPDF_REAL)((pr->stroke_w > 0 ? pr->stroke_w : 1) * s));
			if (pr->dashed) {
				static const HPDF_UINT16 dash[2] = {4, 3};
				HPDF_Page_SetDash(p, dash, 2, 0);
			}
			HPDF_Page_MoveTo(p, (HPDF_REAL)x, (HPDF_REAL)y);
			HPDF_Page_LineTo(p, (HPDF_REAL)(x0 + pr->x2 * s), (HPDF_REAL)(top - pr->y2 * s));
			HPDF_Page_Stroke(p);
			if (pr->dashed)
				HPDF_Page_SetDash(p, NULL, 0, 0);
			break;
		}
		case TB_PRIM_CIRCLE:
			if (!(pr->w > 0))
				break;
			S_fill_rgb(p, pr->fill);
			HPDF_Page_Circle(p, (HPDF_REAL)x, (HPDF_REAL)y, (HPDF_REAL)(pr->w * s));
			HPDF_Page_Fill(p);
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
			double w = S_measure(st, style, size, t.ptr, t.len);
			double off = pr->anchor == TB_ANCHOR_MIDDLE ? w / 2 : pr->anchor == TB_ANCHOR_END ? w : 0;
			/* the model's angles follow SVG (y down): -90 reads upwards,
			 * which is +90 in PDF's y-up space */
			double a = -pr->rotate_deg * S_PI / 180.0;
			S_text_at(st, x - off * cos(a), y - off * sin(a), style, size, pr->fill,
			          t.ptr, t.len, a);
			tb_buf_release(&t);
			break;
		}
		}
	}
	st->y -= h + 10;
}

/* ---- derivations and code ---------------------------------------------- */

static void S_code(S_pdf *st, const char *text, size_t len)
{
	tb_pdf_para p;
	tb_pdf_para_init(&p, 8.0);
	while (len && text[len - 1] == '\n')
		len--;
	tb_pdf_para_add_verbatim(&p, TB_PDF_MONO, text, len);
	S_para_opts o = {S_body_x(st), S_body_w(st), false, true, S_black, true};
	S_draw_para(st, &p, &o);
	tb_pdf_para_release(&p);
	st->y -= 8;
}

static void S_derivation(S_pdf *st, const tb_derivation *dv)
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
	/* a derivation is read as a whole: keep it on one page when it fits */
	tb_pdf_para probe;
	tb_pdf_para_init(&probe, 8.0);
	tb_pdf_para_add_verbatim(&probe, TB_PDF_MONO, b.ptr, b.len ? b.len - 1 : 0);
	double h = (double)tb_pdf_para_layout(&probe, S_body_w(st) - 8, S_measure, st) *
	           S_lead(&probe) + 16;
	tb_pdf_para_release(&probe);
	h += (dv->title ? 9.0 * S_LEAD + 2 : 0) + (dv->source ? 2 * 8.0 * S_LEAD : 0);
	double page_h = st->top - st->bottom;
	S_need(st, h < page_h ? h : 3 * 8.0 * S_LEAD);
	if (dv->title)
		S_simple_para(st, TB_PDF_BOLD, 9.0, S_black, dv->title, 2);
	if (b.len)
		S_code(st, b.ptr, b.len);
	if (dv->source && dv->source[0]) {
		st->y += 5;
		tb_buf_truncate(&b, 0);
		tb_buf_printf(&b, "Source: %s", dv->source);
		S_simple_para(st, TB_PDF_ITALIC, 8.0, S_grey, b.ptr, 8);
	}
	tb_buf_release(&b);
}

/* ---- headings and the tree walk ---------------------------------------- */

static double S_heading_size(int depth)
{
	return depth <= 1 ? 14.5 : depth == 2 ? 12.0 : 10.5;
}

/* Roughly the first piece of a block: a heading waits for it. */
static double S_min_height(S_pdf *st, cmark_node *n)
{
	if (!n)
		return 0;
	switch (cmark_node_get_type(n)) {
	case CMARK_NODE_CUSTOM_BLOCK: {
		const tb_block *b = st->block ? st->block(n) : NULL;
		if (b && b->kind == TB_BLOCK_CHART) {
			double s = b->chart.width_pt > S_body_w(st) ? S_body_w(st) / b->chart.width_pt : 1;
			double h = b->chart.height_pt * s;
			return h < (st->top - st->bottom) * 0.9 ? h : (st->top - st->bottom) * 0.9;
		}
		return 60;
	}
	case CMARK_NODE_HEADING:
		return 40;
	case CMARK_NODE_PARAGRAPH: {
		/* a sentence that introduces a table or chart ("What each change
		 * does:") stays with its start, or the heading is left alone */
		cmark_node *next = cmark_node_next(n);
		double h = 3 * S_BODY_PT * S_LEAD;
		if (next && cmark_node_get_type(next) == CMARK_NODE_CUSTOM_BLOCK)
			h += S_min_height(st, next);
		return h;
	}
	default:
		return 3 * S_BODY_PT * S_LEAD;
	}
}

static void S_heading(S_pdf *st, cmark_node *n)
{
	int level = cmark_node_get_heading_level(n);
	int depth = level - st->base_level + 1;
	if (depth < 1)
		depth = 1;
	if (depth > 6)
		depth = 6;
	st->counters[depth]++;
	for (int i = depth + 1; i < 7; i++)
		st->counters[i] = 0;
	tb_buf num;
	tb_buf_init(&num);
	for (int i = 1; i <= depth; i++)
		tb_buf_printf(&num, i > 1 ? ".%d" : "%d", st->counters[i]);
	double size = S_heading_size(depth);
	tb_pdf_para p;
	tb_pdf_para_init(&p, size);
	tb_pdf_para_add(&p, TB_PDF_BOLD, num.ptr, num.len);
	p.pending_space = true;
	S_inlines(&p, n, TB_PDF_BOLD);
	double before = depth == 1 ? 12 : 8;
	/* the verdict's section is the summary a signer reads first: it
	 * keeps its page to itself, and the next section starts a new one */
	if (depth == 1 && st->verdict_drawn) {
		st->verdict_drawn = false;
		if (!S_page_empty(st))
			S_new_page(st);
	}
	size_t nl = tb_pdf_para_layout(&p, S_body_w(st), S_measure, st);
	double h = before + (double)nl * S_lead(&p) + 4;
	S_need(st, h + S_min_height(st, cmark_node_next(n)));
	if (!S_page_empty(st))
		st->y -= before;
	if (depth == 1) {
		/* a bookmark per section, titled as printed */
		tb_buf title;
		tb_buf_init(&title);
		for (size_t i = 0; i < p.npieces; i++) {
			if (i && p.pieces[i].space_before)
				tb_buf_putc(&title, ' ');
			tb_buf_put(&title, p.text.ptr + p.pieces[i].off, p.pieces[i].len);
		}
		HPDF_Outline o = HPDF_CreateOutline(st->doc, NULL, title.ptr, st->utf8);
		if (o) {
			HPDF_Destination dst = HPDF_Page_CreateDestination(st->page);
			if (dst) {
				HPDF_Destination_SetFitH(dst, (HPDF_REAL)(st->y + 4));
				HPDF_Outline_SetDestination(o, dst);
			}
		}
		tb_buf_release(&title);
	}
	S_para_opts o = {S_body_x(st), S_body_w(st), false, false, S_black, true};
	S_draw_para(st, &p, &o);
	st->y -= 4;
	tb_pdf_para_release(&p);
	tb_buf_release(&num);
}

static void S_title_block(S_pdf *st);
static void S_verdict(S_pdf *st);

static void S_block(S_pdf *st, cmark_node *n)
{
	if (!S_ok(st))
		return;
	switch (cmark_node_get_type(n)) {
	case CMARK_NODE_HEADING:
		if (n == st->title_node) {
			tb_pdf_para p;
			tb_pdf_para_init(&p, 19);
			S_inlines(&p, n, TB_PDF_BOLD);
			S_para_opts o = {S_body_x(st), S_body_w(st), false, false, S_black, true};
			S_draw_para(st, &p, &o);
			tb_pdf_para_release(&p);
			st->y -= 8;
			break;
		}
		S_heading(st, n);
		break;
	case CMARK_NODE_PARAGRAPH: {
		tb_pdf_para p;
		tb_pdf_para_init(&p, S_BODY_PT);
		S_inlines(&p, n, 0);
		S_para_opts o = {S_body_x(st), S_body_w(st), false, false, S_black, true};
		S_draw_para(st, &p, &o);
		tb_pdf_para_release(&p);
		/* items of a tight list sit closer together */
		cmark_node *up = cmark_node_parent(n);
		cmark_node *list = up ? cmark_node_parent(up) : NULL;
		bool tight = list && cmark_node_get_type(list) == CMARK_NODE_LIST &&
		             cmark_node_get_list_tight(list);
		st->y -= tight ? 1.5 : 5;
		break;
	}
	case CMARK_NODE_CODE_BLOCK:
	case CMARK_NODE_HTML_BLOCK: {
		const char *lit = cmark_node_get_literal(n);
		if (lit)
			S_code(st, lit, strlen(lit));
		break;
	}
	case CMARK_NODE_THEMATIC_BREAK:
		S_need(st, 12);
		S_stroke_rgb(st->page, S_rule);
		HPDF_Page_SetLineWidth(st->page, 0.5f);
		HPDF_Page_MoveTo(st->page, (HPDF_REAL)S_body_x(st), (HPDF_REAL)(st->y - 6));
		HPDF_Page_LineTo(st->page, (HPDF_REAL)st->right, (HPDF_REAL)(st->y - 6));
		HPDF_Page_Stroke(st->page);
		st->y -= 12;
		break;
	case CMARK_NODE_CUSTOM_BLOCK: {
		const tb_block *b = st->block ? st->block(n) : NULL;
		if (!b)
			break;
		switch (b->kind) {
		case TB_BLOCK_TABLE: S_table(st, &b->table); break;
		case TB_BLOCK_CHART: S_chart(st, &b->chart); break;
		case TB_BLOCK_DERIVATION: S_derivation(st, &b->deriv); break;
		/* drawn from the meta in place of their children (the same
		 * content as tables), which would say it all again */
		case TB_BLOCK_TITLE: S_title_block(st); break;
		case TB_BLOCK_VERDICT:
			S_verdict(st);
			st->verdict_drawn = true;
			break;
		}
		break;
	}
	default:
		break;
	}
}

/* Whether the walk goes into a node's children: quotes, lists, items and
 * custom blocks that are not ours.  Everything else is drawn whole. */
static bool S_is_container(const S_pdf *st, cmark_node *n)
{
	switch (cmark_node_get_type(n)) {
	case CMARK_NODE_DOCUMENT:
	case CMARK_NODE_BLOCK_QUOTE:
	case CMARK_NODE_LIST:
	case CMARK_NODE_ITEM:
		return true;
	case CMARK_NODE_CUSTOM_BLOCK:
		return !(st->block && st->block(n));
	default:
		return false;
	}
}

/* What a container changed, put back when the walk leaves it. */
typedef struct S_frame {
	double indent;
	int num;              /* a list's next item number */
} S_frame;

/* Quotes and lists indent by a step a level, but never past this share of
 * the body's width: deeper levels draw at the deepest indent. */
#define S_MAX_INDENT_SHARE 0.4

/* The block tree, walked with cmark's iterator rather than by recursion, so
 * a template that nests quotes or lists thousands deep renders instead of
 * overflowing the stack. */
static void S_walk(S_pdf *st, cmark_node *root)
{
	cmark_iter *it = cmark_iter_new(root);
	S_frame *stack = NULL;
	size_t depth = 0, cap = 0;
	double max_base = (st->right - st->left) * S_MAX_INDENT_SHARE;
	cmark_event_type ev;
	while (S_ok(st) && (ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		cmark_node *n = cmark_iter_get_node(it);
		if (n == root)
			continue;
		if (!S_is_container(st, n)) {
			if (ev == CMARK_EVENT_ENTER) {
				S_block(st, n);
				/* its inlines were drawn with it */
				if (cmark_node_first_child(n))
					cmark_iter_reset(it, n, CMARK_EVENT_EXIT);
			}
			continue;
		}
		cmark_node_type type = cmark_node_get_type(n);
		if (ev == CMARK_EVENT_EXIT) {
			if (depth)
				st->indent = stack[--depth].indent;
			if (type == CMARK_NODE_ITEM)
				st->marker[0] = '\0';
			else if (type == CMARK_NODE_LIST)
				st->y -= 3;
			continue;
		}
		if (depth == cap) {
			cap = cap ? cap * 2 : 16;
			stack = tb_xrealloc(stack, cap * sizeof *stack);
		}
		S_frame *f = &stack[depth++];
		f->indent = st->indent;
		f->num = 0;
		double base = st->indent < max_base ? st->indent : max_base;
		if (type == CMARK_NODE_BLOCK_QUOTE) {
			st->indent = base + 14;
		} else if (type == CMARK_NODE_LIST) {
			f->num = cmark_node_get_list_start(n);
		} else if (type == CMARK_NODE_ITEM) {
			/* the frame below is the list's */
			S_frame *list = depth >= 2 ? &stack[depth - 2] : NULL;
			cmark_node *up = cmark_node_parent(n);
			bool ordered = up && cmark_node_get_list_type(up) == CMARK_ORDERED_LIST;
			if (ordered)
				snprintf(st->marker, sizeof st->marker, "%d.", list ? list->num++ : 1);
			else
				snprintf(st->marker, sizeof st->marker, "\xE2\x80\xA2"); /* bullet */
			st->marker_x = st->left + base + 2;
			st->indent = base + (ordered ? 18 : 13);
		}
	}
	free(stack);
	cmark_iter_free(it);
}

/* ---- first and last page ----------------------------------------------- */

static const char *S_str(const char *s)
{
	return s ? s : "";
}

static void S_title_block(S_pdf *st)
{
	const tb_report_meta *m = st->meta;
	const char *title = m->title && m->title[0] ? m->title : "Training budget";
	S_simple_para(st, TB_PDF_BOLD, 19, S_black, title, 4);
	tb_buf b;
	tb_buf_init(&b);
	if (m->author && m->author[0])
		tb_buf_printf(&b, "Author: %s \xC2\xB7 ", m->author);
	if (m->date && m->date[0])
		tb_buf_printf(&b, "Date: %s \xC2\xB7 ", m->date);
	tb_buf_printf(&b, "trainbudget %s", m->version && m->version[0] ? m->version : TB_VERSION);
	S_simple_para(st, 0, 9.5, S_grey, b.ptr, 1);
	if (m->sha256 && m->sha256[0]) {
		tb_buf_truncate(&b, 0);
		tb_buf_printf(&b, "Scenario SHA-256: %s", m->sha256);
		tb_pdf_para p;
		tb_pdf_para_init(&p, 7.5);
		tb_pdf_para_add(&p, 0, "Scenario SHA-256:", 17);
		p.pending_space = true;
		tb_pdf_para_add(&p, TB_PDF_MONO, m->sha256, strlen(m->sha256));
		S_para_opts o = {S_body_x(st), S_body_w(st), false, false, S_grey, true};
		S_draw_para(st, &p, &o);
		tb_pdf_para_release(&p);
	}
	tb_buf_release(&b);
	st->y -= 10;
}

/* GOOD, WARN, BAD, NONE: a finding with nothing to judge it against is
 * grey and says N/A, never a green YES */
static const tb_rgb S_tint[4] = {{226, 244, 230}, {255, 243, 214}, {252, 226, 226}, {238, 238, 238}};
static const tb_rgb S_edge[4] = {{46, 125, 50}, {191, 120, 0}, {183, 28, 28}, {97, 97, 97}};
static const char *const S_outcome_word[4] = {"YES", "CHECK", "NO", "N/A"};

static void S_verdict(S_pdf *st)
{
	const tb_report_meta *m = st->meta;
	if (!m->nverdict && !m->nkey)
		return;
	double x = S_body_x(st), w = S_body_w(st);
	for (size_t i = 0; i < m->nverdict; i++) {
		const tb_verdict_line *v = &m->verdict[i];
		int k = v->outcome == TB_OUTCOME_GOOD ? 0 : v->outcome == TB_OUTCOME_WARN ? 1
		        : v->outcome == TB_OUTCOME_BAD ? 2 : 3;
		tb_pdf_para p;
		tb_pdf_para_init(&p, 10);
		const char *text = S_str(v->text);
		tb_pdf_para_add(&p, 0, text, strlen(text));
		double tag_w = 48;
		size_t nl = tb_pdf_para_layout(&p, w - tag_w - 12, S_measure, st);
		double h = (double)nl * S_lead(&p) + 10;
		S_need(st, h);
		S_fill_rgb(st->page, S_tint[k]);
		HPDF_Page_Rectangle(st->page, (HPDF_REAL)x, (HPDF_REAL)(st->y - h), (HPDF_REAL)w, (HPDF_REAL)h);
		HPDF_Page_Fill(st->page);
		S_fill_rgb(st->page, S_edge[k]);
		HPDF_Page_Rectangle(st->page, (HPDF_REAL)x, (HPDF_REAL)(st->y - h), 4, (HPDF_REAL)h);
		HPDF_Page_Fill(st->page);
		double base = st->y - 5 - 10 * S_ASCENT - (S_lead(&p) - 10) / 2;
		/* the outcome in words too: the page may be printed in grey */
		S_label(st, x + 10, base, TB_PDF_BOLD, 9, S_edge[k], S_outcome_word[k]);
		for (size_t l = 0; l < p.nlines; l++) {
			S_draw_line(st, &p, l, x + tag_w + 4, w - tag_w - 12, false, S_black, base);
			base -= S_lead(&p);
		}
		st->y -= h + 3;
		tb_pdf_para_release(&p);
	}
	if (m->nkey) {
		tb_table t;
		memset(&t, 0, sizeof t);
		t.ncols = 2;
		t.nrows = m->nkey + 1;
		t.cells = tb_xcalloc(t.nrows * 2, sizeof *t.cells);
		bool numeric[2] = {false, true};
		t.numeric = numeric;
		t.cells[0] = (char *)"Key figure";
		t.cells[1] = (char *)"Value";
		for (size_t i = 0; i < m->nkey; i++) {
			t.cells[(i + 1) * 2] = (char *)S_str(m->key_labels ? m->key_labels[i] : NULL);
			t.cells[(i + 1) * 2 + 1] = (char *)S_str(m->key_values ? m->key_values[i] : NULL);
		}
		st->y -= 4;
		S_table(st, &t);
		free(t.cells);
	}
	st->y -= 6;
}

static void S_signoff(S_pdf *st)
{
	const tb_report_meta *m = st->meta;
	static const char *const roles[3] = {"Requester", "Reviewer", "Approver"};
	/* both blocks on the last page, together */
	if (!S_page_empty(st))
		S_new_page(st);
	S_simple_para(st, TB_PDF_BOLD, 14.5, S_black, "Sign-off", 6);
	HPDF_Outline o = HPDF_CreateOutline(st->doc, NULL, "Sign-off", st->utf8);
	if (o) {
		HPDF_Destination dst = HPDF_Page_CreateDestination(st->page);
		if (dst)
			HPDF_Outline_SetDestination(o, dst);
	}
	S_simple_para(st, 0, S_BODY_PT, S_black,
	              "By signing, each person confirms they have read this estimate "
	              "and the assumptions it rests on.", 10);
	double x = S_body_x(st), w = S_body_w(st);
	static const char *const fields[3] = {"Name", "Signature", "Date"};
	for (int r = 0; r < 3; r++) {
		S_need(st, 80);
		S_label(st, x, st->y - 11, TB_PDF_BOLD, 11, S_black, roles[r]);
		st->y -= 22;
		for (int f = 0; f < 3; f++) {
			double base = st->y - 14;
			if (f == 1)
				base -= 10; /* room to sign */
			S_label(st, x + 6, base, 0, S_BODY_PT, S_grey, fields[f]);
			S_stroke_rgb(st->page, S_grey);
			HPDF_Page_SetLineWidth(st->page, 0.6f);
			HPDF_Page_MoveTo(st->page, (HPDF_REAL)(x + 70), (HPDF_REAL)(base - 2));
			HPDF_Page_LineTo(st->page, (HPDF_REAL)(x + w * 0.75), (HPDF_REAL)(base - 2));
			HPDF_Page_Stroke(st->page);
			st->y -= f == 1 ? 30 : 20;
		}
		st->y -= 8;
	}
	st->y -= 6;
	S_need(st, 90);
	S_simple_para(st, TB_PDF_BOLD, 12, S_black, "Reproducibility", 4);
	struct { const char *label, *value; } rows[3] = {
		{"Scenario SHA-256", S_str(m->sha256)},
		{"Tool version", m->version && m->version[0] ? m->version : TB_VERSION},
		{"Regenerate with", S_str(m->command)},
	};
	for (int i = 0; i < 3; i++) {
		S_simple_para(st, TB_PDF_BOLD, 8.5, S_black, rows[i].label, 0);
		tb_pdf_para p;
		tb_pdf_para_init(&p, 8);
		/* only machine text in mono: the face is embedded only when used;
		 * the command wraps between its words, not inside them */
		tb_pdf_para_add(&p, i == 1 ? 0 : TB_PDF_MONO, rows[i].value, strlen(rows[i].value));
		S_para_opts po = {x + 10, w - 10, false, false, S_black, true};
		S_draw_para(st, &p, &po);
		tb_pdf_para_release(&p);
		st->y -= 5;
	}
}

/* Running header (pages after the first) and footer, once the count is known. */
static void S_furniture(S_pdf *st)
{
	const tb_report_meta *m = st->meta;
	char hash12[13];
	snprintf(hash12, sizeof hash12, "%s", S_str(m->sha256));
	tb_buf title, foot, num;
	tb_buf_init(&title);
	tb_buf_init(&foot);
	tb_buf_init(&num);
	tb_pdf_sanitize(&title, S_str(m->title), strlen(S_str(m->title)));
	double w = st->right - st->left;
	double size = 8;
	if (S_measure(st, 0, size, title.ptr, title.len) > w) {
		/* cut on a character boundary and mark the cut */
		double ell = S_width(st, 0, size, "\xE2\x80\xA6");
		size_t n = title.len;
		while (n > 0 && S_measure(st, 0, size, title.ptr, n) + ell > w)
			n = tb_pdf_utf8_floor(title.ptr, title.len, n - 1);
		while (n > 0 && title.ptr[n - 1] == ' ')
			n--;
		tb_buf_truncate(&title, n);
		tb_buf_puts(&title, "\xE2\x80\xA6");
	}
	tb_buf_printf(&foot, "trainbudget %s", m->version && m->version[0] ? m->version : TB_VERSION);
	if (hash12[0])
		tb_buf_printf(&foot, " \xC2\xB7 scenario %s", hash12);
	for (size_t i = 0; i < st->npages; i++) {
		st->page = st->pages[i];
		double fy = st->bottom - 24;
		if (i > 0 && title.len) {
			double hy = st->top + 22;
			S_text_at(st, st->left, hy, 0, size, S_grey, title.ptr, title.len, 0);
			S_stroke_rgb(st->page, S_rule);
			HPDF_Page_SetLineWidth(st->page, 0.4f);
			HPDF_Page_MoveTo(st->page, (HPDF_REAL)st->left, (HPDF_REAL)(hy - 5));
			HPDF_Page_LineTo(st->page, (HPDF_REAL)st->right, (HPDF_REAL)(hy - 5));
			HPDF_Page_Stroke(st->page);
		}
		S_text_at(st, st->left, fy, 0, size, S_grey, foot.ptr, foot.len, 0);
		tb_buf_truncate(&num, 0);
		tb_buf_printf(&num, "Page %zu of %zu", i + 1, st->npages);
		S_text_at(st, st->right - S_measure(st, 0, size, num.ptr, num.len), fy, 0, size,
		          S_grey, num.ptr, num.len, 0);
	}
	tb_buf_release(&title);
	tb_buf_release(&foot);
	tb_buf_release(&num);
}

/* ---- the document -------------------------------------------------------- */

static void S_info(S_pdf *st)
{
	const tb_report_meta *m = st->meta;
	tb_buf b;
	tb_buf_init(&b);
	if (m->title && m->title[0]) {
		tb_pdf_sanitize(&b, m->title, strlen(m->title));
		HPDF_SetInfoAttr(st->doc, HPDF_INFO_TITLE, b.ptr);
	}
	if (m->author && m->author[0]) {
		tb_buf_truncate(&b, 0);
		tb_pdf_sanitize(&b, m->author, strlen(m->author));
		HPDF_SetInfoAttr(st->doc, HPDF_INFO_AUTHOR, b.ptr);
	}
	HPDF_SetInfoAttr(st->doc, HPDF_INFO_SUBJECT, "LLM training compute budget for sign-off");
	tb_buf_truncate(&b, 0);
	tb_buf_printf(&b, "trainbudget %s", m->version && m->version[0] ? m->version : TB_VERSION);
	HPDF_SetInfoAttr(st->doc, HPDF_INFO_CREATOR, b.ptr);
	tb_buf_release(&b);
	/* dated from the report, never the clock, so runs are byte-identical */
	int y, mo, dd;
	if (m->date && sscanf(m->date, "%4d-%2d-%2d", &y, &mo, &dd) == 3 &&
	    mo >= 1 && mo <= 12 && dd >= 1 && dd <= 31) {
		HPDF_Date dt;
		memset(&dt, 0, sizeof dt);
		dt.year = y;
		dt.month = mo;
		dt.day = dd;
		dt.ind = 'Z';
		HPDF_SetInfoDateAttr(st->doc, HPDF_INFO_CREATION_DATE, dt);
		HPDF_SetInfoDateAttr(st->doc, HPDF_INFO_MOD_DATE, dt);
	}
}

/* The tree's title: a first-level heading that opens the document, drawn
 * unnumbered in title type (a template without {{title_block}}). */
static cmark_node *S_title_node(cmark_node *root)
{
	cmark_node *first = root ? cmark_node_first_child(root) : NULL;
	if (first && cmark_node_get_type(first) == CMARK_NODE_HEADING &&
	    cmark_node_get_heading_level(first) == 1)
		return first;
	return NULL;
}

static void S_layout(S_pdf *st, cmark_node *root)
{
	cmark_node *title_node = S_title_node(root);
	st->title_node = title_node;
	/* number the shallowest remaining heading level "1" */
	st->base_level = 7;
	if (root) {
		for (cmark_node *c = cmark_node_first_child(root); c; c = cmark_node_next(c)) {
			if (c != title_node && cmark_node_get_type(c) == CMARK_NODE_HEADING &&
			    cmark_node_get_heading_level(c) < st->base_level)
				st->base_level = cmark_node_get_heading_level(c);
		}
	}
	if (st->base_level == 7)
		st->base_level = 1;

	S_new_page(st);
	if (root)
		S_walk(st, root);
	if (S_ok(st))
		S_signoff(st);
}

static void S_fail(S_pdf *st, const char *phase)
{
	if (st->failed)
		return;
	tb_diags_add(st->d, TB_DIAG_ERROR, "pdf", NULL, 0, 0, 0,
	             "libharu failed while %s (error 0x%04X, detail %u); "
	             "expected a complete PDF document",
	             phase, (unsigned)st->err, (unsigned)st->err_detail);
	st->failed = true;
}

static int S_render(S_pdf *st, cmark_node *root, const tb_pdf_options *opt, tb_buf *out)
{
	if (HPDF_SetCompressionMode(st->doc, HPDF_COMP_ALL) != HPDF_OK ||
	    HPDF_UseUTFEncodings(st->doc) != HPDF_OK ||
	    HPDF_SetCurrentEncoder(st->doc, "UTF-8") != HPDF_OK) {
		S_fail(st, "setting up the document");
		return -1;
	}
	st->utf8 = HPDF_GetEncoder(st->doc, "UTF-8");
	HPDF_SetPageMode(st->doc, HPDF_PAGE_MODE_USE_OUTLINE);
	bool letter = opt && opt->paper == TB_PAPER_LETTER;
	st->page_w = letter ? 612 : 595.276;
	st->page_h = letter ? 792 : 841.89;
	st->left = S_MARGIN_PT;
	st->right = st->page_w - S_MARGIN_PT;
	st->top = st->page_h - S_MARGIN_PT - 6;
	st->bottom = S_MARGIN_PT + 6;
	/* the fonts every document uses, first, so a missing one fails early */
	S_font(st, 0);
	S_font(st, TB_PDF_BOLD);
	if (!S_ok(st)) {
		S_fail(st, "loading fonts");
		return -1;
	}
	S_info(st);
	S_layout(st, root);
	if (!S_ok(st)) {
		S_fail(st, "laying out pages");
		return -1;
	}
	S_furniture(st);
	if (!S_ok(st)) {
		S_fail(st, "writing headers and footers");
		return -1;
	}
	if (HPDF_SaveToStream(st->doc) != HPDF_OK || !S_ok(st)) {
		S_fail(st, "saving the document");
		return -1;
	}
	HPDF_ResetStream(st->doc);
	tb_buf pdf;
	tb_buf_init(&pdf);
	for (;;) {
		HPDF_BYTE chunk[8192];
		HPDF_UINT32 n = sizeof chunk;
		HPDF_STATUS rc = HPDF_ReadFromStream(st->doc, chunk, &n);
		tb_buf_put(&pdf, chunk, n);
		if (rc == HPDF_STREAM_EOF)
			break;
		if (rc != HPDF_OK) {
			S_fail(st, "reading the document back");
			tb_buf_release(&pdf);
			return -1;
		}
	}
	tb_buf_put(out, pdf.ptr, pdf.len);
	tb_buf_release(&pdf);
	return 0;
}

int tb_render_pdf_tree(cmark_node *root, const tb_report_meta *meta,
                       tb_pdf_block_fn block, const tb_pdf_options *opt,
                       tb_buf *out, tb_diags *d)
{
	static const tb_report_meta empty_meta;
	S_pdf st;
	memset(&st, 0, sizeof st);
	st.d = d;
	st.meta = meta ? meta : &empty_meta;
	st.block = block;
	st.font_dir = opt && opt->font_dir ? opt->font_dir : S_DEFAULT_FONT_DIR;
	st.doc = HPDF_New(S_error_handler, &st);
	if (!st.doc) {
		tb_diags_add(d, TB_DIAG_ERROR, "pdf", NULL, 0, 0, 0,
		             "libharu could not create a document; expected memory for it");
		return -1;
	}
	int rc = S_render(&st, root, opt, out);
	HPDF_Free(st.doc);
	free(st.pages);
	return rc;
}

int tb_render_pdf(const tb_report *r, const tb_pdf_options *opt, tb_buf *out,
                  tb_diags *d)
{
	return tb_render_pdf_tree(tb_report_root(r), tb_report_get_meta(r),
	                          tb_report_block, opt, out, d);
}
