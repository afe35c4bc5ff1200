/* render_svg.c: a laid-out chart (chart.h) as a standalone SVG document.
 *
 * One element per primitive, in display-list order; the layout has already
 * decided every coordinate, so this file only prints.  Numbers go through
 * %.2f so the same chart gives the same bytes on every machine. */
#include "trainbudget/render.h"

#include <math.h>
#include <string.h>

#include "trainbudget/buf.h"

#define S_FONT "DejaVu Sans, Verdana, sans-serif"

/* XML text and attribute values: all five specials, so a label can never
 * open a tag or close an attribute.  Control characters other than tab and
 * newline are not allowed in XML 1.0 at all: drop them. */
static void S_esc(tb_buf *b, const char *s)
{
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		switch (ch) {
		case '&': tb_buf_puts(b, "&amp;"); break;
		case '<': tb_buf_puts(b, "&lt;"); break;
		case '>': tb_buf_puts(b, "&gt;"); break;
		case '"': tb_buf_puts(b, "&quot;"); break;
		case '\'': tb_buf_puts(b, "&apos;"); break;
		default:
			if (ch >= 0x20 || ch == '\t' || ch == '\n')
				tb_buf_putc(b, (char)ch);
		}
	}
}

/* A coordinate: never NaN or inf in the file, never "-0.00". */
static void S_num(tb_buf *b, double v)
{
	if (!isfinite(v))
		v = 0;
	if (fabs(v) < 0.005)
		v = 0;
	tb_buf_fixed(b, v, 2);
}

static void S_attr(tb_buf *b, const char *name, double v)
{
	tb_buf_putc(b, ' ');
	tb_buf_puts(b, name);
	tb_buf_puts(b, "=\"");
	S_num(b, v);
	tb_buf_putc(b, '"');
}

static void S_color(tb_buf *b, const char *name, tb_rgb c)
{
	static const char hex[] = "0123456789abcdef";
	char s[8] = { '#', hex[c.r >> 4 & 15], hex[c.r & 15], hex[c.g >> 4 & 15], hex[c.g & 15],
	              hex[c.b >> 4 & 15], hex[c.b & 15], '"' };
	tb_buf_putc(b, ' ');
	tb_buf_puts(b, name);
	tb_buf_puts(b, "=\"");
	tb_buf_put(b, s, sizeof s);
}

static const char *S_role_class(tb_prim_role r)
{
	static const char *const names[] = {
		"", "background", "title", "legend", "grid", "axis", "tick-label",
		"axis-label", "bar", "line", "marker", "ref", "ref-label",
		"value-label", "frame", "no-data",
	};
	if ((size_t)r < sizeof names / sizeof names[0])
		return names[r];
	return "";
}

static void S_class(tb_buf *b, const tb_prim *p)
{
	const char *cls = S_role_class(p->role);
	if (*cls) {
		tb_buf_puts(b, " class=\"");
		tb_buf_puts(b, cls);
		tb_buf_putc(b, '"');
	}
}

static void S_prim(tb_buf *b, const tb_prim *p)
{
	switch (p->kind) {
	case TB_PRIM_RECT:
		tb_buf_puts(b, "<rect");
		S_class(b, p);
		S_attr(b, "x", p->x);
		S_attr(b, "y", p->y);
		S_attr(b, "width", p->w > 0 ? p->w : 0);
		S_attr(b, "height", p->h > 0 ? p->h : 0);
		S_color(b, "fill", p->fill);
		if (p->stroke_w > 0) {
			S_color(b, "stroke", p->stroke);
			S_attr(b, "stroke-width", p->stroke_w);
		}
		tb_buf_puts(b, "/>\n");
		break;
	case TB_PRIM_LINE:
		tb_buf_puts(b, "<line");
		S_class(b, p);
		S_attr(b, "x1", p->x);
		S_attr(b, "y1", p->y);
		S_attr(b, "x2", p->x2);
		S_attr(b, "y2", p->y2);
		S_color(b, "stroke", p->stroke);
		S_attr(b, "stroke-width", p->stroke_w > 0 ? p->stroke_w : 1);
		if (p->dashed)
			tb_buf_puts(b, " stroke-dasharray=\"5 3\"");
		if (p->role == TB_ROLE_LINE)
			tb_buf_puts(b, " stroke-linecap=\"round\"");
		tb_buf_puts(b, "/>\n");
		break;
	case TB_PRIM_CIRCLE:
		tb_buf_puts(b, "<circle");
		S_class(b, p);
		S_attr(b, "cx", p->x);
		S_attr(b, "cy", p->y);
		S_attr(b, "r", p->w > 0 ? p->w : 0);
		S_color(b, "fill", p->fill);
		if (p->stroke_w > 0) {
			S_color(b, "stroke", p->stroke);
			S_attr(b, "stroke-width", p->stroke_w);
		}
		tb_buf_puts(b, "/>\n");
		break;
	case TB_PRIM_TEXT: {
		static const char *const anchors[] = { "start", "middle", "end" };
		tb_buf_puts(b, "<text");
		S_class(b, p);
		S_attr(b, "x", p->x);
		S_attr(b, "y", p->y);
		S_attr(b, "font-size", p->font_size > 0 ? p->font_size : 9);
		if (p->anchor != TB_ANCHOR_START)
			tb_buf_printf(b, " text-anchor=\"%s\"",
			              anchors[p->anchor <= TB_ANCHOR_END ? p->anchor : 0]);
		if (p->bold)
			tb_buf_puts(b, " font-weight=\"bold\"");
		S_color(b, "fill", p->fill);
		if (p->rotate_deg != 0 && isfinite(p->rotate_deg)) {
			tb_buf_puts(b, " transform=\"rotate(");
			S_num(b, p->rotate_deg);
			tb_buf_putc(b, ' ');
			S_num(b, p->x);
			tb_buf_putc(b, ' ');
			S_num(b, p->y);
			tb_buf_puts(b, ")\"");
		}
		tb_buf_putc(b, '>');
		char text[sizeof p->text + 1];
		memcpy(text, p->text, sizeof p->text);
		text[sizeof p->text] = '\0';
		S_esc(b, text);
		tb_buf_puts(b, "</text>\n");
		break;
	}
	}
}

char *tb_render_svg(const tb_chart *c)
{
	tb_buf b;
	tb_buf_init(&b);
	double w = c && isfinite(c->width_pt) && c->width_pt > 0 ? c->width_pt : 480;
	double h = c && isfinite(c->height_pt) && c->height_pt > 0 ? c->height_pt : 300;
	char title[sizeof c->title + 1] = "", alt[sizeof c->alt + 1] = "";
	char id[sizeof c->id + 1] = "";
	if (c) {
		memcpy(title, c->title, sizeof c->title);
		memcpy(alt, c->alt, sizeof c->alt);
		memcpy(id, c->id, sizeof c->id);
	}

	tb_buf_puts(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\"");
	if (id[0]) {
		tb_buf_puts(&b, " id=\"chart-");
		S_esc(&b, id);
		tb_buf_putc(&b, '"');
	}
	tb_buf_puts(&b, " width=\"");
	S_num(&b, w);
	tb_buf_puts(&b, "pt\" height=\"");
	S_num(&b, h);
	tb_buf_puts(&b, "pt\" viewBox=\"0 0 ");
	S_num(&b, w);
	tb_buf_putc(&b, ' ');
	S_num(&b, h);
	tb_buf_puts(&b, "\" role=\"img\" aria-label=\"");
	S_esc(&b, alt[0] ? alt : title);
	tb_buf_puts(&b, "\" font-family=\"" S_FONT "\">\n");
	tb_buf_puts(&b, "<title>");
	S_esc(&b, title);
	tb_buf_puts(&b, "</title>\n<desc>");
	S_esc(&b, alt);
	tb_buf_puts(&b, "</desc>\n");
	if (c)
		for (size_t i = 0; i < c->n; i++)
			S_prim(&b, &c->prims[i]);
	tb_buf_puts(&b, "</svg>\n");
	return tb_buf_detach(&b, NULL);
}
