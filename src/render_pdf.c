/* render_pdf.c: the sign-off PDF, laid out over the report's cmark tree
 * and written by our own small PDF writer (pdf_write.c) with embedded
 * TrueType subsets (pdf_font.c).
 *
 * One pass lays out and draws the body onto pages kept in an array; a
 * second pass writes the running header and "page N of M" footer, which
 * need the page count; then the objects are written.  Nothing here
 * computes a figure: text, tables and chart primitives come from the
 * report model as they are.
 *
 * Every character is drawn or the document is refused: a character the
 * report's face lacks is looked for in the regular face, then in fallback
 * fonts found on the system (CJK, emoji); one no font has stops the PDF
 * with an error naming it, so text never vanishes from a signed page. */
#include "trainbudget/render.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pdf_font.h"
#include "pdf_text.h"
#include "pdf_write.h"
#include "trainbudget/version.h"
#include "trainbudget/xalloc.h"

#define S_DEFAULT_FONT_DIR "/usr/share/fonts/truetype/dejavu"
#define S_MARGIN_PT 54.0
#define S_BODY_PT 9.5
#define S_LEAD 1.32        /* line height as a multiple of the font size */
#define S_ASCENT 0.93      /* DejaVu's ascent: first baseline below the top */
#define S_ITALIC_SKEW 0.2  /* synthetic oblique: tan(11 deg) */
#define S_PI 3.14159265358979323846
/* zlib level for every stream: level 6 saves 1-2% of the file over level
 * 1 and costs twice the time; the demo stays far inside the 300 KB aim */
#define S_DEFLATE_LEVEL 6

enum { S_REGULAR, S_BOLD, S_MONO, S_NFACES };

static const char *const S_face_file[S_NFACES] = {
	"DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf",
};

/* Where fallback fonts are looked for, in order, when neither the face
 * nor the regular face draws a character: each file's name is tried in
 * the font folder first, then at the path Debian installs it to. */
static const char *const S_system_fallbacks[] = {
	/* fonts-dejavu-core: the full faces (Armenian, Georgian, N'Ko, more
	 * symbols) beyond the subsets the build makes */
	"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
	/* fonts-droid-fallback: Chinese, Japanese (few Korean syllables) */
	"/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
	/* fonts-nanum: Korean */
	"/usr/share/fonts/truetype/nanum/NanumGothic.ttf",
	/* fonts-wqy-microhei, fonts-wqy-zenhei, fonts-arphic-uming: CJK */
	"/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
	"/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
	"/usr/share/fonts/truetype/arphic/uming.ttc",
	/* fonts-symbola: emoji and symbols, in outline */
	"/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf",
	/* fonts-freefont-ttf: many scripts */
	"/usr/share/fonts/truetype/freefont/FreeSerif.ttf",
	NULL,
};

#define S_MAX_FONTS 24

typedef struct S_font_slot {
	tb_pdf_font *f;
	bool tried;             /* a load was attempted */
	char *path;             /* fallbacks: the path to try */
	unsigned obj;           /* the Type0 font's object number, when written */
} S_font_slot;

typedef struct S_page {
	tb_buf c;               /* the content stream */
	uint32_t fonts;         /* bit i: font i is used on the page */
	unsigned obj;
} S_page;

typedef struct S_outline_item {
	char *title;            /* sanitized UTF-8 */
	size_t page;
	double top;             /* NAN: the whole page */
} S_outline_item;

/* A cache of characters already looked up, per style: which font draws it
 * with which glyph, and how wide. */
#define S_CACHE_SIZE 4096
typedef struct S_glyph_hit {
	uint32_t key;           /* (face << 21 | cp) + 1; 0 empty */
	unsigned char font;
	uint16_t gid;
	int16_t width;
} S_glyph_hit;

typedef struct S_pdf {
	bool failed;                    /* an error already reported in d */
	tb_diags *d;
	const char *font_dir;
	S_font_slot fonts[S_MAX_FONTS]; /* the faces, then the fallbacks */
	size_t nfonts;
	S_glyph_hit cache[S_CACHE_SIZE];
	tb_pdf_cells cells;             /* scratch for measuring */
	const tb_report_meta *meta;
	tb_pdf_block_fn block;

	double page_w, page_h;
	double left, right, top, bottom; /* the body's box */
	S_page *page;
	double y;                       /* top of the next thing drawn */
	S_page **pages;
	size_t npages, pcap;
	S_outline_item *outline;
	size_t noutline, ocap;

	double indent;                  /* lists and quotes */
	char marker[16];                /* list marker waiting for its item's first line */
	double marker_x;
	int base_level;                 /* heading level numbered "1" */
	int counters[7];
	cmark_node *title_node;         /* a leading H1: the title, unnumbered */
	bool verdict_drawn;             /* the next numbered section opens a page */
} S_pdf;

static bool S_ok(const S_pdf *st)
{
	return !st->failed;
}

/* ---- fonts ------------------------------------------------------------- */

static int S_face(unsigned style)
{
	return (style & TB_PDF_MONO) ? S_MONO : (style & TB_PDF_BOLD) ? S_BOLD : S_REGULAR;
}

/* Font i, loaded on first use: only fonts a page uses are read, and only
 * those text used are embedded.  A face that cannot be read is an error;
 * a fallback that cannot be read is passed over. */
static tb_pdf_font *S_font_at(S_pdf *st, size_t i)
{
	S_font_slot *s = &st->fonts[i];
	if (s->tried || st->failed)
		return s->f;
	s->tried = true;
	char why[160];
	if (i < S_NFACES) {
		tb_buf path;
		tb_buf_init(&path);
		tb_buf_printf(&path, "%s/%s", st->font_dir, S_face_file[i]);
		s->f = tb_pdf_font_load(path.ptr, why, sizeof why);
		if (!s->f) {
			tb_diags_add(st->d, TB_DIAG_ERROR, path.ptr, NULL, 0, 0, 0,
			             "cannot read font: %s; expected the DejaVu fonts "
			             "(Debian package fonts-dejavu-core) or --font-dir naming "
			             "a folder with %s, %s and %s", why,
			             S_face_file[0], S_face_file[1], S_face_file[2]);
			st->failed = true;
		}
		tb_buf_release(&path);
		return s->f;
	}
	/* the font folder's copy first, then the system's */
	const char *base = strrchr(s->path, '/');
	base = base ? base + 1 : s->path;
	tb_buf local;
	tb_buf_init(&local);
	tb_buf_printf(&local, "%s/%s", st->font_dir, base);
	if (strcmp(local.ptr, s->path) != 0)
		s->f = tb_pdf_font_load(local.ptr, why, sizeof why);
	if (!s->f)
		s->f = tb_pdf_font_load(s->path, why, sizeof why);
	tb_buf_release(&local);
	return s->f;
}

static void S_fonts_init(S_pdf *st, const tb_pdf_options *opt)
{
	st->nfonts = S_NFACES;
	const char *const *list = opt && opt->fallback_fonts ? opt->fallback_fonts
	                          : S_system_fallbacks;
	for (size_t i = 0; list[i] && st->nfonts < S_MAX_FONTS; i++)
		st->fonts[st->nfonts++].path = tb_xstrdup(list[i]);
}

static void S_fonts_release(S_pdf *st)
{
	for (size_t i = 0; i < st->nfonts; i++) {
		tb_pdf_font_free(st->fonts[i].f);
		free(st->fonts[i].path);
	}
}

/* Which Debian package draws code point cp: for the error message. */
static const char *S_package_for(uint32_t cp)
{
	if ((cp >= 0xAC00 && cp <= 0xD7AF) || (cp >= 0x1100 && cp <= 0x11FF) ||
	    (cp >= 0x3130 && cp <= 0x318F))
		return "fonts-nanum (Korean)";
	if ((cp >= 0x2E80 && cp <= 0x9FFF) ||
	    (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFF00 && cp <= 0xFFEF) ||
	    (cp >= 0x20000 && cp <= 0x3FFFF))
		return "fonts-droid-fallback (Chinese, Japanese)";
	if ((cp >= 0x1F000 && cp <= 0x1FAFF) || (cp >= 0x2600 && cp <= 0x27BF))
		return "fonts-symbola (emoji and symbols)";
	return "fonts-freefont-ttf or another TrueType font that covers it";
}

/* A character no font draws: the document is refused, naming it. */
static void S_missing(S_pdf *st, uint32_t cp, const tb_pdf_cells *c)
{
	if (st->failed)
		return;
	tb_buf ctx;
	tb_buf_init(&ctx);
	for (size_t i = 0; i < c->n && i < 60; i++) {
		uint32_t u = c->v[i].uni[0];
		char b[4];
		size_t n = u < 0x80 ? 1 : u < 0x800 ? 2 : u < 0x10000 ? 3 : 4;
		if (n == 1) b[0] = (char)u;
		else if (n == 2) { b[0] = (char)(0xC0 | u >> 6); b[1] = (char)(0x80 | (u & 0x3F)); }
		else if (n == 3) { b[0] = (char)(0xE0 | u >> 12); b[1] = (char)(0x80 | ((u >> 6) & 0x3F)); b[2] = (char)(0x80 | (u & 0x3F)); }
		else { b[0] = (char)(0xF0 | u >> 18); b[1] = (char)(0x80 | ((u >> 12) & 0x3F)); b[2] = (char)(0x80 | ((u >> 6) & 0x3F)); b[3] = (char)(0x80 | (u & 0x3F)); }
		tb_buf_put(&ctx, b, n);
	}
	if (c->n > 60)
		tb_buf_puts(&ctx, "\xE2\x80\xA6");
	tb_diags_add(st->d, TB_DIAG_ERROR, "pdf", NULL, 0, 0, 0,
	             "no font can draw U+%04X in \"%s\", so the PDF would lose it; "
	             "expected a font that covers it: install Debian's %s (looked for "
	             "in --font-dir, then where Debian puts it), or leave pdf out of --format",
	             (unsigned)cp, ctx.ptr, S_package_for(cp));
	tb_buf_release(&ctx);
	st->failed = true;
}

/* The font and glyph that draw `cp` in `style`: the style's face, the
 * regular face, then the fallbacks.  False when none has it. */
static bool S_glyph(S_pdf *st, unsigned style, uint32_t cp, S_glyph_hit *out)
{
	int face = S_face(style);
	uint32_t key = ((uint32_t)face << 21 | cp) + 1;
	S_glyph_hit *h = &st->cache[(cp * 2654435761u ^ (uint32_t)face) % S_CACHE_SIZE];
	if (h->key == key) {
		*out = *h;
		return true;
	}
	for (size_t i = 0; i < st->nfonts; i++) {
		if (i != (size_t)face && (i < S_NFACES && i != S_REGULAR))
			continue;
		size_t fi = i == 0 ? (size_t)face : i == (size_t)face ? S_REGULAR : i;
		tb_pdf_font *f = S_font_at(st, fi);
		if (!f)
			continue;
		unsigned gid = tb_pdf_font_glyph(f, cp);
		if (!gid)
			continue;
		h->key = key;
		h->font = (unsigned char)fi;
		h->gid = (uint16_t)gid;
		h->width = (int16_t)tb_pdf_font_width(f, gid);
		*out = *h;
		return true;
	}
	return false;
}

/* Width in thousandths of the font size of cells[a..b), in the order
 * given; reports a character no font has. */
static long S_cells_width(S_pdf *st, const tb_pdf_cells *c, size_t a, size_t b)
{
	long w = 0;
	for (size_t i = a; i < b; i++) {
		S_glyph_hit g;
		if (S_glyph(st, c->v[i].style, c->v[i].cp, &g))
			w += g.width;
		else if (!tb_pdf_ignorable(c->v[i].cp))
			S_missing(st, c->v[i].cp, c);
	}
	return w;
}

static double S_measure(void *ctx, unsigned style, double size_pt, const char *s,
                        size_t len)
{
	S_pdf *st = ctx;
	st->cells.n = 0;
	tb_pdf_cells_add(&st->cells, style, s, len);
	tb_pdf_cells_shape(&st->cells);
	return (double)S_cells_width(st, &st->cells, 0, st->cells.n) * size_pt / 1000.0;
}

static double S_width(S_pdf *st, unsigned style, double size_pt, const char *s)
{
	return S_measure(st, style, size_pt, s, strlen(s));
}

/* ---- drawing operators ------------------------------------------------- */

static void S_num(S_page *p, double v)
{
	tb_pdfw_num(&p->c, v);
	tb_buf_putc(&p->c, ' ');
}

static void S_op(S_page *p, const char *op)
{
	tb_buf_puts(&p->c, op);
	tb_buf_putc(&p->c, '\n');
}

static void S_rgb(S_page *p, tb_rgb c, const char *op)
{
	S_num(p, c.r / 255.0);
	S_num(p, c.g / 255.0);
	S_num(p, c.b / 255.0);
	S_op(p, op);
}

static void S_fill_rgb(S_page *p, tb_rgb c)
{
	S_rgb(p, c, "rg");
}

static void S_stroke_rgb(S_page *p, tb_rgb c)
{
	S_rgb(p, c, "RG");
}

static void S_rect(S_page *p, double x, double y, double w, double h)
{
	S_num(p, x);
	S_num(p, y);
	S_num(p, w);
	S_num(p, h);
	S_op(p, "re");
}

static void S_move_to(S_page *p, double x, double y)
{
	S_num(p, x);
	S_num(p, y);
	S_op(p, "m");
}

static void S_line_to(S_page *p, double x, double y)
{
	S_num(p, x);
	S_num(p, y);
	S_op(p, "l");
}

static void S_line_width(S_page *p, double w)
{
	S_num(p, w);
	S_op(p, "w");
}

/* A circle as four Bezier arcs (kappa = 4(sqrt 2 - 1)/3). */
static void S_circle(S_page *p, double x, double y, double r)
{
	double k = 0.5522847498 * r;
	S_move_to(p, x - r, y);
	double pts[4][6] = {
		{x - r, y + k, x - k, y + r, x, y + r},
		{x + k, y + r, x + r, y + k, x + r, y},
		{x + r, y - k, x + k, y - r, x, y - r},
		{x - k, y - r, x - r, y - k, x - r, y},
	};
	for (int i = 0; i < 4; i++) {
		for (int j = 0; j < 6; j++)
			S_num(p, pts[i][j]);
		S_op(p, "c");
	}
}

static const tb_rgb S_black = {26, 26, 26};
static const tb_rgb S_grey = {96, 96, 96};
static const tb_rgb S_rule = {170, 170, 170};
static const tb_rgb S_shade = {243, 244, 246};

/* Draws cells[a..b) (visual order, one style) with the left end of the
 * baseline at (x, y), turned `angle_rad` counter-clockwise about it; a
 * gap cell is advanced over, never drawn.  Returns the width drawn, in
 * points. */
static double S_show(S_pdf *st, double x, double y, double size_pt, tb_rgb color,
                     const tb_pdf_cells *c, size_t a, size_t b, double angle_rad)
{
	if (a >= b || !S_ok(st))
		return 0;
	S_page *p = st->page;
	unsigned style = c->v[a].style;
	S_fill_rgb(p, color);
	S_op(p, "BT");
	double co = cos(angle_rad), sn = sin(angle_rad);
	double skew = (style & TB_PDF_ITALIC) ? S_ITALIC_SKEW : 0;
	S_num(p, co);
	S_num(p, sn);
	S_num(p, skew * co - sn);
	S_num(p, skew * sn + co);
	S_num(p, x);
	S_num(p, y);
	S_op(p, "Tm");
	int font = -1;
	bool open = false;
	long w = 0;
	for (size_t i = a; i < b; i++) {
		const tb_pdf_cell *e = &c->v[i];
		S_glyph_hit g;
		if (!S_glyph(st, e->style, e->cp, &g)) {
			if (!tb_pdf_ignorable(e->cp))
				S_missing(st, e->cp, c);
			continue;
		}
		if (e->gap) {
			/* move the text position without drawing: a negative
			 * adjustment in a TJ array advances */
			if (open)
				tb_buf_puts(&p->c, "> Tj\n");
			open = false;
			tb_buf_printf(&p->c, "[%d] TJ\n", -g.width);
			w += g.width;
			continue;
		}
		if (g.font != font) {
			if (open)
				tb_buf_puts(&p->c, "> Tj\n");
			open = false;
			font = g.font;
			p->fonts |= 1u << font;
			tb_buf_printf(&p->c, "/F%d ", font + 1);
			S_num(p, size_pt);
			S_op(p, "Tf");
		}
		if (!open)
			tb_buf_putc(&p->c, '<');
		open = true;
		unsigned cid = tb_pdf_font_cid(st->fonts[font].f, g.gid, e->uni, e->nuni);
		tb_buf_printf(&p->c, "%04X", cid);
		w += g.width;
	}
	if (open)
		tb_buf_puts(&p->c, "> Tj\n");
	S_op(p, "ET");
	return (double)w * size_pt / 1000.0;
}

/* Draws the cells, in logical order, as a line: joined, put in visual
 * order, and shown a run of one style at a time from x. */
static void S_show_line(S_pdf *st, double x, double y, double size_pt, tb_rgb color,
                        tb_pdf_cells *c, double angle_rad)
{
	tb_pdf_cells_shape(c);
	if (tb_pdf_cells_has_rtl(c))
		tb_pdf_cells_reorder(c);
	double co = cos(angle_rad), sn = sin(angle_rad);
	double adv = 0;
	size_t k = 0;
	while (k < c->n) {
		size_t j = k + 1;
		while (j < c->n && c->v[j].style == c->v[k].style && !c->v[j].gap)
			j++;
		/* a gap cell at a style change is its own run: advance only */
		if (c->v[k].gap) {
			adv += (double)S_cells_width(st, c, k, k + 1) * size_pt / 1000.0;
			k++;
			continue;
		}
		adv += S_show(st, x + adv * co, y + adv * sn, size_pt, color, c, k, j, angle_rad);
		k = j;
	}
}

/* Draws `len` bytes of sanitized UTF-8 with its left end of baseline at
 * (x, y); `angle_rad` turns it counter-clockwise about that point. */
static void S_text_at(S_pdf *st, double x, double y, unsigned style, double size_pt,
                      tb_rgb color, const char *s, size_t len, double angle_rad)
{
	if (!len)
		return;
	tb_pdf_cells c = {0};
	tb_pdf_cells_add(&c, style, s, len);
	S_show_line(st, x, y, size_pt, color, &c, angle_rad);
	tb_pdf_cells_release(&c);
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
	if (st->npages == st->pcap) {
		st->pcap = st->pcap ? st->pcap * 2 : 16;
		st->pages = tb_xrealloc(st->pages, st->pcap * sizeof *st->pages);
	}
	S_page *p = tb_xcalloc(1, sizeof *p);
	tb_buf_init(&p->c);
	st->pages[st->npages++] = p;
	st->page = p;
	st->y = st->top;
}

/* A bookmark to the current page, at `top` (NAN: the whole page). */
static void S_bookmark(S_pdf *st, const char *title, double top)
{
	if (st->noutline == st->ocap) {
		st->ocap = st->ocap ? st->ocap * 2 : 16;
		st->outline = tb_xrealloc(st->outline, st->ocap * sizeof *st->outline);
	}
	S_outline_item *o = &st->outline[st->noutline++];
	tb_buf t;
	tb_buf_init(&t);
	tb_pdf_sanitize(&t, title, strlen(title));
	o->title = tb_buf_detach(&t, NULL);
	o->page = st->npages - 1;
	o->top = top;
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

/* Draws line `li` with its baseline at `base`: its pieces become cells in
 * logical order, a space between two pieces of one style drawn, one at a
 * change of style only advanced over (in the second style's width). */
static void S_draw_line(S_pdf *st, const tb_pdf_para *p, size_t li, double x0,
                        double width, bool right, tb_rgb color, double base)
{
	const tb_pdf_line *ln = &p->lines[li];
	double x = x0 + (right ? width - ln->width_pt : 0);
	tb_pdf_cells c = {0};
	for (size_t k = ln->first; k < ln->first + ln->n; k++) {
		const tb_pdf_piece *pc = &p->pieces[k];
		if (k > ln->first && pc->space_before) {
			tb_pdf_cells_add(&c, pc->style, " ", 1);
			c.v[c.n - 1].gap = pc->style != p->pieces[k - 1].style;
		}
		tb_pdf_cells_add(&c, pc->style, p->text.ptr + pc->off, pc->len);
	}
	S_show_line(st, x, base, p->size_pt, color, &c, 0);
	tb_pdf_cells_release(&c);
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
			S_rect(st->page, o->x, (band_top - band_h),
			                    o->width, band_h);
			S_op(st->page, "f");
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
	S_page *p = st->page;
	if (r == 0 || r % 2 == 0) {
		tb_rgb bg = r == 0 ? (tb_rgb){228, 231, 236} : (tb_rgb){247, 248, 250};
		S_fill_rgb(p, bg);
		S_rect(p, x0, (st->y - h), w, h);
		S_op(p, "f");
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
	S_line_width(p, r == 0 ? 0.8 : 0.3);
	S_move_to(p, x0, (st->y - h));
	S_line_to(p, (x0 + w), (st->y - h));
	S_op(p, "S");
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
	S_page *p = st->page;
	for (size_t i = 0; i < ch->n; i++) {
		const tb_prim *pr = &ch->prims[i];
		double x = x0 + pr->x * s, y = top - pr->y * s;
		switch (pr->kind) {
		case TB_PRIM_RECT:
			if (!(pr->w > 0) || !(pr->h > 0))
				break;
			/* colours first: PDF allows no colour operator inside a path */
			S_fill_rgb(p, pr->fill);
			if (pr->stroke_w > 0) {
				S_stroke_rgb(p, pr->stroke);
				S_line_width(p, (pr->stroke_w * s));
			}
			S_rect(p, x, (y - pr->h * s),
			                    (pr->w * s), (pr->h * s));
			if (pr->stroke_w > 0) {
				S_op(p, "B");
			} else {
				S_op(p, "f");
			}
			break;
		case TB_PRIM_LINE: {
			S_stroke_rgb(p, pr->stroke);
			S_line_width(p, ((pr->stroke_w > 0 ? pr->stroke_w : 1) * s));
			if (pr->dashed) {
				S_op(p, "[4 3] 0 d");
			}
			S_move_to(p, x, y);
			S_line_to(p, (x0 + pr->x2 * s), (top - pr->y2 * s));
			S_op(p, "S");
			if (pr->dashed)
				S_op(p, "[] 0 d");
			break;
		}
		case TB_PRIM_CIRCLE:
			if (!(pr->w > 0))
				break;
			S_fill_rgb(p, pr->fill);
			S_circle(p, x, y, (pr->w * s));
			S_op(p, "f");
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
		S_bookmark(st, title.ptr, st->y + 4);
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
		S_line_width(st->page, 0.5);
		S_move_to(st->page, S_body_x(st), (st->y - 6));
		S_line_to(st->page, st->right, (st->y - 6));
		S_op(st->page, "S");
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
		const char *label = m->hash_of ? "Proposals SHA-256:" : "Scenario SHA-256:";
		tb_pdf_para p;
		tb_pdf_para_init(&p, 7.5);
		tb_pdf_para_add(&p, 0, label, strlen(label));
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
		S_rect(st->page, x, (st->y - h), w, h);
		S_op(st->page, "f");
		S_fill_rgb(st->page, S_edge[k]);
		S_rect(st->page, x, (st->y - h), 4, h);
		S_op(st->page, "f");
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
	S_bookmark(st, "Sign-off", NAN);
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
			S_line_width(st->page, 0.6);
			S_move_to(st->page, (x + 70), (base - 2));
			S_line_to(st->page, (x + w * 0.75), (base - 2));
			S_op(st->page, "S");
			st->y -= f == 1 ? 30 : 20;
		}
		st->y -= 8;
	}
	st->y -= 6;
	S_need(st, 90);
	S_simple_para(st, TB_PDF_BOLD, 12, S_black, "Reproducibility", 4);
	struct { const char *label, *value; } rows[3] = {
		{m->hash_of ? "Proposals SHA-256" : "Scenario SHA-256", S_str(m->sha256)},
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
		tb_buf_printf(&foot, " \xC2\xB7 %s %s", m->hash_of ? m->hash_of : "scenario", hash12);
	for (size_t i = 0; i < st->npages; i++) {
		st->page = st->pages[i];
		double fy = st->bottom - 24;
		if (i > 0 && title.len) {
			double hy = st->top + 22;
			S_text_at(st, st->left, hy, 0, size, S_grey, title.ptr, title.len, 0);
			S_stroke_rgb(st->page, S_rule);
			S_line_width(st->page, 0.4);
			S_move_to(st->page, st->left, (hy - 5));
			S_line_to(st->page, st->right, (hy - 5));
			S_op(st->page, "S");
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

static void S_info_text(tb_buf *b, const char *key, const char *s)
{
	tb_buf t;
	tb_buf_init(&t);
	tb_pdf_sanitize(&t, s, strlen(s));
	tb_buf_printf(b, " /%s ", key);
	tb_pdfw_text(b, t.ptr, t.len);
	tb_buf_release(&t);
}

/* The document information dictionary, dated from the report, never the
 * clock, so runs are byte-identical. */
static void S_info(S_pdf *st, tb_buf *b)
{
	const tb_report_meta *m = st->meta;
	tb_buf_puts(b, "<<");
	if (m->title && m->title[0])
		S_info_text(b, "Title", m->title);
	if (m->author && m->author[0])
		S_info_text(b, "Author", m->author);
	S_info_text(b, "Subject", "LLM training compute budget for sign-off");
	tb_buf v;
	tb_buf_init(&v);
	tb_buf_printf(&v, "trainbudget %s", m->version && m->version[0] ? m->version : TB_VERSION);
	S_info_text(b, "Creator", v.ptr);
	tb_buf_release(&v);
	int y, mo, dd;
	if (m->date && sscanf(m->date, "%4d-%2d-%2d", &y, &mo, &dd) == 3 &&
	    y >= 0 && y <= 9999 && mo >= 1 && mo <= 12 && dd >= 1 && dd <= 31) {
		tb_buf_printf(b, " /CreationDate (D:%04d%02d%02d000000Z) /ModDate (D:%04d%02d%02d000000Z)",
		              y, mo, dd, y, mo, dd);
	}
	tb_buf_puts(b, " >>");
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

/* Every object, numbered and written: catalog, pages, fonts, outline. */
static void S_save(S_pdf *st, tb_buf *out)
{
	tb_pdfw w;
	tb_pdfw_init(&w, S_DEFLATE_LEVEL);
	unsigned catalog = tb_pdfw_alloc(&w), pages = tb_pdfw_alloc(&w), info = tb_pdfw_alloc(&w);
	unsigned outlines = st->noutline ? tb_pdfw_alloc(&w) : 0;
	for (size_t i = 0; i < st->nfonts; i++)
		if (st->fonts[i].f && tb_pdf_font_used(st->fonts[i].f))
			st->fonts[i].obj = tb_pdfw_alloc(&w);
	for (size_t i = 0; i < st->npages; i++)
		st->pages[i]->obj = tb_pdfw_alloc(&w);
	tb_buf b;
	tb_buf_init(&b);

	tb_buf_printf(&b, "<< /Type /Catalog /Pages %u 0 R", pages);
	if (outlines)
		tb_buf_printf(&b, " /Outlines %u 0 R /PageMode /UseOutlines", outlines);
	tb_buf_puts(&b, " >>");
	tb_pdfw_obj(&w, catalog, b.ptr, b.len);

	tb_buf_truncate(&b, 0);
	tb_buf_puts(&b, "<< /Type /Pages /Kids [");
	for (size_t i = 0; i < st->npages; i++)
		tb_buf_printf(&b, "%s%u 0 R", i ? " " : "", st->pages[i]->obj);
	tb_buf_printf(&b, "] /Count %zu /MediaBox [0 0 ", st->npages);
	tb_pdfw_num(&b, st->page_w);
	tb_buf_putc(&b, ' ');
	tb_pdfw_num(&b, st->page_h);
	tb_buf_puts(&b, "] >>");
	tb_pdfw_obj(&w, pages, b.ptr, b.len);

	tb_buf_truncate(&b, 0);
	S_info(st, &b);
	tb_pdfw_obj(&w, info, b.ptr, b.len);

	for (size_t i = 0; i < st->npages; i++) {
		S_page *p = st->pages[i];
		unsigned content = tb_pdfw_alloc(&w);
		tb_buf_truncate(&b, 0);
		tb_buf_printf(&b, "<< /Type /Page /Parent %u 0 R /Resources << /ProcSet [/PDF /Text]",
		              pages);
		if (p->fonts) {
			tb_buf_puts(&b, " /Font <<");
			for (size_t f = 0; f < st->nfonts; f++)
				if (p->fonts & (1u << f))
					tb_buf_printf(&b, " /F%zu %u 0 R", f + 1, st->fonts[f].obj);
			tb_buf_puts(&b, " >>");
		}
		tb_buf_printf(&b, " >> /Contents %u 0 R >>", content);
		tb_pdfw_obj(&w, p->obj, b.ptr, b.len);
		tb_pdfw_stream(&w, content, "", p->c.ptr, p->c.len, true);
	}

	if (outlines) {
		unsigned first = w.nobj + 1;
		for (size_t i = 0; i < st->noutline; i++)
			tb_pdfw_alloc(&w);
		tb_buf_truncate(&b, 0);
		tb_buf_printf(&b, "<< /Type /Outlines /First %u 0 R /Last %u 0 R /Count %zu >>",
		              first, first + (unsigned)st->noutline - 1, st->noutline);
		tb_pdfw_obj(&w, outlines, b.ptr, b.len);
		for (size_t i = 0; i < st->noutline; i++) {
			const S_outline_item *o = &st->outline[i];
			tb_buf_truncate(&b, 0);
			tb_buf_puts(&b, "<< /Title ");
			tb_pdfw_text(&b, o->title, strlen(o->title));
			tb_buf_printf(&b, " /Parent %u 0 R", outlines);
			if (i > 0)
				tb_buf_printf(&b, " /Prev %u 0 R", first + (unsigned)i - 1);
			if (i + 1 < st->noutline)
				tb_buf_printf(&b, " /Next %u 0 R", first + (unsigned)i + 1);
			tb_buf_printf(&b, " /Dest [%u 0 R ", st->pages[o->page]->obj);
			if (isnan(o->top)) {
				tb_buf_puts(&b, "/Fit]");
			} else {
				tb_buf_puts(&b, "/FitH ");
				tb_pdfw_num(&b, o->top);
				tb_buf_putc(&b, ']');
			}
			tb_buf_puts(&b, " >>");
			tb_pdfw_obj(&w, first + (unsigned)i, b.ptr, b.len);
		}
	}

	for (size_t i = 0; i < st->nfonts; i++)
		if (st->fonts[i].obj)
			tb_pdf_font_write(st->fonts[i].f, &w, st->fonts[i].obj);
	tb_buf_release(&b);
	tb_pdfw_finish(&w, catalog, info, out);
	tb_pdfw_release(&w);
}

static int S_render(S_pdf *st, cmark_node *root, const tb_pdf_options *opt, tb_buf *out)
{
	bool letter = opt && opt->paper == TB_PAPER_LETTER;
	st->page_w = letter ? 612 : 595.276;
	st->page_h = letter ? 792 : 841.89;
	st->left = S_MARGIN_PT;
	st->right = st->page_w - S_MARGIN_PT;
	st->top = st->page_h - S_MARGIN_PT - 6;
	st->bottom = S_MARGIN_PT + 6;
	/* the faces every document uses, first, so a missing one fails early */
	S_font_at(st, S_REGULAR);
	S_font_at(st, S_BOLD);
	if (!S_ok(st))
		return -1;
	S_layout(st, root);
	if (!S_ok(st))
		return -1;
	S_furniture(st);
	if (!S_ok(st))
		return -1;
	S_save(st, out);
	return 0;
}

int tb_render_pdf_tree(cmark_node *root, const tb_report_meta *meta,
                       tb_pdf_block_fn block, const tb_pdf_options *opt,
                       tb_buf *out, tb_diags *d)
{
	static const tb_report_meta empty_meta;
	S_pdf *st = tb_xcalloc(1, sizeof *st);
	st->d = d;
	st->meta = meta ? meta : &empty_meta;
	st->block = block;
	st->font_dir = opt && opt->font_dir ? opt->font_dir : S_DEFAULT_FONT_DIR;
	S_fonts_init(st, opt);
	int rc = S_render(st, root, opt, out);
	S_fonts_release(st);
	for (size_t i = 0; i < st->npages; i++) {
		tb_buf_release(&st->pages[i]->c);
		free(st->pages[i]);
	}
	free(st->pages);
	for (size_t i = 0; i < st->noutline; i++)
		free(st->outline[i].title);
	free(st->outline);
	tb_pdf_cells_release(&st->cells);
	free(st);
	return rc;
}

int tb_render_pdf(const tb_report *r, const tb_pdf_options *opt, tb_buf *out,
                  tb_diags *d)
{
	return tb_render_pdf_tree(tb_report_root(r), tb_report_get_meta(r),
	                          tb_report_block, opt, out, d);
}
