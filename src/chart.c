/* chart.c: from a chart description to a display list in points.
 *
 * All the arithmetic of a chart (ranges, nice ticks, positions, legend
 * rows) lives here, so the SVG and PDF back ends draw identical charts and
 * never compute anything.  Coordinates are y-down, origin top-left. */
#include "trainbudget/chart.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart_int.h"
#include "trainbudget/buf.h"
#include "trainbudget/fmt.h"
#include "trainbudget/xalloc.h"

#define S_TITLE_PT   TB_CHART_TITLE_PT
#define S_LABEL_PT   TB_CHART_LABEL_PT
#define S_AXIS_PT    TB_CHART_AXIS_PT
#define S_SMALL_PT   TB_CHART_SMALL_PT
#define S_PAD        TB_CHART_PAD
#define S_CHAR_EM    0.55

const tb_rgb tb_chart_white = { 255, 255, 255 };
const tb_rgb tb_chart_ink = { 51, 51, 51 };
const tb_rgb tb_chart_muted = { 119, 119, 119 };
const tb_rgb tb_chart_vermilion = { 213, 94, 0 };
#define S_WHITE tb_chart_white
#define S_TEXT tb_chart_ink
#define S_MUTED tb_chart_muted
#define S_VERMILION tb_chart_vermilion
static const tb_rgb S_AXIS = { 64, 64, 64 };
static const tb_rgb S_GRID = { 226, 226, 226 };

tb_rgb tb_chart_palette(size_t i)
{
	static const tb_rgb pal[8] = {
		{ 0, 114, 178 },   /* blue */
		{ 230, 159, 0 },   /* orange */
		{ 0, 158, 115 },   /* bluish green */
		{ 213, 94, 0 },    /* vermilion */
		{ 86, 180, 233 },  /* sky blue */
		{ 204, 121, 167 }, /* reddish purple */
		{ 240, 228, 66 },  /* yellow */
		{ 0, 0, 0 },       /* black */
	};
	return pal[i % 8];
}

double tb_chart_text_width_pt(const char *utf8, double font_size_pt)
{
	if (!utf8)
		return 0;
	return (double)tb_fmt_width(utf8) * S_CHAR_EM * font_size_pt;
}

/* Copies at most srccap bytes of src (which may lack a NUL, being a fixed
 * array in a spec) into dst, cutting at a UTF-8 character boundary. */
void tb_chart_copy(char *dst, size_t dstcap, const char *src, size_t srccap)
{
	size_t n = 0;
	if (src)
		while (n < srccap && src[n])
			n++;
	if (n >= dstcap) {
		n = dstcap - 1;
		while (n > 0 && ((unsigned char)src[n] & 0xC0) == 0x80)
			n--;
	}
	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Shortens s (in place, cap bytes) with an ellipsis until it fits in
 * max_w at size pt, so a long name never runs into its neighbour. */
void tb_chart_fit(char *s, size_t cap, double max_w, double pt)
{
	if (tb_chart_text_width_pt(s, pt) <= max_w || cap < 4)
		return;
	size_t n = strlen(s);
	while (n > 0) {
		do
			n--;
		while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80);
		if (n + 4 > cap)
			continue;
		s[n] = '\0';
		char tmp[256];
		snprintf(tmp, sizeof tmp, "%s\u2026", s);
		if (tb_chart_text_width_pt(tmp, pt) <= max_w || n == 0) {
			tb_chart_copy(s, cap, tmp, sizeof tmp);
			return;
		}
	}
}

/* ---- the display list ------------------------------------------------ */

tb_prim *tb_chart_push(tb_chart *c, tb_prim_kind kind, tb_prim_role role)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 64;
		c->prims = tb_xrealloc(c->prims, c->cap * sizeof *c->prims);
	}
	tb_prim *p = &c->prims[c->n++];
	memset(p, 0, sizeof *p);
	p->kind = kind;
	p->role = role;
	p->series = -1;
	return p;
}

tb_prim *tb_chart_rect(tb_chart *c, tb_prim_role role, double x, double y,
                       double w, double h, tb_rgb fill)
{
	tb_prim *p = tb_chart_push(c, TB_PRIM_RECT, role);
	p->x = x;
	p->y = y;
	p->w = w > 0 ? w : 0;
	p->h = h > 0 ? h : 0;
	p->fill = fill;
	return p;
}

tb_prim *tb_chart_line(tb_chart *c, tb_prim_role role, double x, double y,
                       double x2, double y2, tb_rgb stroke, double w)
{
	tb_prim *p = tb_chart_push(c, TB_PRIM_LINE, role);
	p->x = x;
	p->y = y;
	p->x2 = x2;
	p->y2 = y2;
	p->stroke = stroke;
	p->stroke_w = w;
	return p;
}

tb_prim *tb_chart_text(tb_chart *c, tb_prim_role role, double x, double y,
                       const char *text, double pt, tb_anchor anchor,
                       tb_rgb color)
{
	tb_prim *p = tb_chart_push(c, TB_PRIM_TEXT, role);
	p->x = x;
	p->y = y;
	tb_chart_copy(p->text, sizeof p->text, text, strlen(text));
	p->font_size = pt;
	p->anchor = anchor;
	p->fill = color;
	return p;
}

void tb_chart_cross(tb_chart *c, tb_prim_role role, double x, double y, double r,
                    tb_rgb color, int series)
{
	/* One stroke at a time: the second push may move the array the first
	 * pointer points into. */
	tb_chart_line(c, role, x - r, y - r, x + r, y + r, color, 1.6)->series = series;
	tb_chart_line(c, role, x - r, y + r, x + r, y - r, color, 1.6)->series = series;
}

/* ---- the layout ------------------------------------------------------ */

typedef struct S_ctx {
	const tb_chart_spec *sp;
	tb_chart *c;
	size_t ncats, nseries, nrefs;
	double y_scale;
	char unit[sizeof ((tb_chart_spec *)0)->y_unit];
	tb_rgb colors[TB_CHART_MAX_SERIES];
	char names[TB_CHART_MAX_SERIES][sizeof ((tb_chart_series *)0)->name];
	tb_chart_axis y, x;      /* x is used by TB_CHART_LINES only */
	bool flag_legend; /* a flagged point is drawn: name it in the legend */
	double px, py, pw, ph;
} S_ctx;

static bool S_rgb_unset(tb_rgb c)
{
	return c.r == 0 && c.g == 0 && c.b == 0;
}

/* A value that can be drawn on the y axis, in display units. */
static bool S_yval(const S_ctx *k, double v, double *out)
{
	if (!isfinite(v) || v < 0)
		return false;
	v /= k->y_scale;
	if (!isfinite(v) || (k->sp->log_y && v <= 0))
		return false;
	*out = v;
	return true;
}

static bool S_xval(const S_ctx *k, double v)
{
	return isfinite(v) && (k->sp->x_cats || !k->sp->log_x || v > 0);
}

/* The x of point i: its index when the x values are categories. */
static double S_xat(const S_ctx *k, size_t i)
{
	return k->sp->x_cats ? (double)i : k->sp->xs[i];
}

static double S_ymap(const S_ctx *k, double v)
{
	return k->py + k->ph - tb_chart_axis_frac(&k->y, v) * k->ph;
}

static double S_xmap(const S_ctx *k, double v)
{
	return k->px + tb_chart_axis_frac(&k->x, v) * k->pw;
}

/* Range of everything that will be drawn against y; false when nothing. */
static bool S_y_range(const S_ctx *k, double *lo, double *hi)
{
	const tb_chart_spec *sp = k->sp;
	bool any = false;
	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t i = 0; i < k->ncats; i++) {
		if (sp->kind == TB_CHART_LINES && !S_xval(k, S_xat(k, i)))
			continue;
		double sum = 0;
		for (size_t s = 0; s < k->nseries; s++) {
			double v;
			if (!S_yval(k, sp->series[s].values[i], &v))
				continue;
			any = true;
			sum = sp->kind == TB_CHART_STACKED_BARS ? sum + v : v;
			if (sum < *lo)
				*lo = sum;
			if (sum > *hi)
				*hi = sum;
			if (v < *lo)
				*lo = v;
		}
	}
	if (!any)
		return false;
	for (size_t r = 0; r < k->nrefs; r++) {
		double v;
		if (!sp->refs[r].vertical && S_yval(k, sp->refs[r].value, &v)) {
			if (v > *hi)
				*hi = v;
			if (v < *lo)
				*lo = v;
		}
	}
	return true;
}

static void S_legend_item(const S_ctx *k, size_t s, double *w)
{
	*w = 9 + 4 + tb_chart_text_width_pt(k->names[s], S_LABEL_PT) + 14;
}

/* Lays the legend out in rows from the plot's left edge; returns the
 * height used.  When draw is false it only measures. */
static double S_legend(S_ctx *k, double left, double right, double top,
                       bool draw)
{
	double x = left, row = 0, h = 0;
	bool any = false;
	for (size_t s = 0; s < k->nseries; s++) {
		if (!k->names[s][0])
			continue;
		double w;
		S_legend_item(k, s, &w);
		if (any && x + w - 14 > right) {
			row++;
			x = left;
		}
		any = true;
		double base = top + row * 14 + 9;
		if (draw) {
			tb_prim *sw = tb_chart_rect(k->c, TB_ROLE_LEGEND, x, base - 8, 9, 9,
			                     k->colors[s]);
			sw->series = (int)s;
			tb_prim *t = tb_chart_text(k->c, TB_ROLE_LEGEND, x + 13, base,
			                    k->names[s], S_LABEL_PT, TB_ANCHOR_START,
			                    S_TEXT);
			t->series = (int)s;
		}
		x += w;
		h = (row + 1) * 14;
	}
	if (k->flag_legend) {
		char name[sizeof k->sp->flag_label + 4];
		tb_chart_copy(name, sizeof name, k->sp->flag_label, sizeof k->sp->flag_label);
		double w = 9 + 4 + tb_chart_text_width_pt(name, S_LABEL_PT) + 14;
		if (any && x + w - 14 > right) {
			row++;
			x = left;
		}
		double base = top + row * 14 + 9;
		if (draw) {
			tb_chart_cross(k->c, TB_ROLE_LEGEND, x + 4.5, base - 3.5, 3.5,
			               S_VERMILION, -1);
			tb_chart_text(k->c, TB_ROLE_LEGEND, x + 13, base, name, S_LABEL_PT,
			              TB_ANCHOR_START, S_TEXT);
		}
		h = (row + 1) * 14;
	}
	return h;
}

/* Category labels under bars: one line, or two split at the space nearest
 * the middle, or shortened with an ellipsis. */
static int S_cat_lines(const char *cat, double band, char l1[64], char l2[64])
{
	tb_chart_copy(l1, 64, cat, 24);
	l2[0] = '\0';
	if (tb_chart_text_width_pt(l1, S_LABEL_PT) <= band)
		return 1;
	size_t n = strlen(l1), best = 0;
	for (size_t i = 1; i < n; i++)
		if (l1[i] == ' ' && (!best || labs((long)(2 * i) - (long)n) < labs((long)(2 * best) - (long)n)))
			best = i;
	if (best) {
		tb_chart_copy(l2, 64, l1 + best + 1, n - best - 1);
		l1[best] = '\0';
	}
	tb_chart_fit(l1, 64, band, S_LABEL_PT);
	tb_chart_fit(l2, 64, band, S_LABEL_PT);
	return l2[0] ? 2 : 1;
}

static void S_no_data(S_ctx *k)
{
	tb_prim *f = tb_chart_rect(k->c, TB_ROLE_FRAME, k->px, k->py, k->pw, k->ph,
	                    S_WHITE);
	f->stroke = S_GRID;
	f->stroke_w = 1;
	tb_chart_text(k->c, TB_ROLE_NO_DATA, k->px + k->pw / 2, k->py + k->ph / 2 + 4,
	       "no data", S_AXIS_PT, TB_ANCHOR_MIDDLE, S_MUTED);
}

static void S_alt(S_ctx *k)
{
	const tb_chart_spec *sp = k->sp;
	static const char *const kinds[] = {
		"Stacked bar chart", "Grouped bar chart", "Line chart", "Heat map"
	};
	tb_buf b;
	tb_buf_init(&b);
	if (sp->y_zoom && sp->kind == TB_CHART_GROUPED_BARS && !sp->log_y)
		tb_buf_puts(&b, "Dot chart (y axis not from 0)");
	else
		tb_buf_puts(&b, kinds[sp->kind <= TB_CHART_HEATMAP ? sp->kind : 0]);
	if (sp->y_label[0]) {
		char t[sizeof sp->y_label];
		tb_chart_copy(t, sizeof t, sp->y_label, sizeof sp->y_label);
		tb_buf_printf(&b, " of %s", t);
	}
	if (sp->x_label[0]) {
		char t[sizeof sp->x_label];
		tb_chart_copy(t, sizeof t, sp->x_label, sizeof sp->x_label);
		tb_buf_printf(&b, " by %s", t);
	}
	size_t named = 0;
	for (size_t s = 0; s < k->nseries; s++)
		if (k->names[s][0])
			tb_buf_printf(&b, "%s%s", named++ ? ", " : "; series: ",
			              k->names[s]);
	/* flagged points or cells: said in words as the legend says them */
	bool flagged = false;
	for (size_t s = 0; sp->kind == TB_CHART_LINES && s < k->nseries; s++)
		for (size_t i = 0; i < k->ncats; i++)
			flagged |= sp->series[s].flagged[i];
	for (size_t r = 0; sp->kind == TB_CHART_HEATMAP && r < TB_CHART_MAX_CATS; r++)
		for (size_t c = 0; c < TB_CHART_MAX_CATS; c++)
			flagged |= sp->heat_flagged[r][c];
	if (flagged && sp->flag_label[0]) {
		char t[sizeof sp->flag_label + 1];
		tb_chart_copy(t, sizeof t, sp->flag_label, sizeof sp->flag_label);
		tb_buf_printf(&b, "; crossed: %s", t);
	}
	for (size_t r = 0; r < k->nrefs; r++) {
		char t[sizeof sp->refs[r].label];
		tb_chart_copy(t, sizeof t, sp->refs[r].label, sizeof t);
		if (t[0])
			tb_buf_printf(&b, "; line: %s", t);
	}
	tb_buf_putc(&b, '.');
	tb_chart_copy(k->c->alt, sizeof k->c->alt, b.ptr, b.len);
	tb_buf_release(&b);
}

static void S_bars(S_ctx *k)
{
	const tb_chart_spec *sp = k->sp;
	double band = k->pw / (double)k->ncats;
	bool stacked = sp->kind == TB_CHART_STACKED_BARS;
	for (size_t i = 0; i < k->ncats; i++) {
		double cx = k->px + band * ((double)i + 0.5);
		if (stacked) {
			double bw = band * 0.6, sum = 0, top = k->py + k->ph;
			bool any = false;
			for (size_t s = 0; s < k->nseries; s++) {
				double v;
				if (!S_yval(k, sp->series[s].values[i], &v) || v == 0)
					continue;
				double y0 = S_ymap(k, sum);
				sum += v;
				double y1 = S_ymap(k, sum);
				tb_prim *p = tb_chart_rect(k->c, TB_ROLE_BAR, cx - bw / 2, y1,
				                    bw, y0 - y1, k->colors[s]);
				p->series = (int)s;
				p->stroke = S_WHITE;
				p->stroke_w = 0.5;
				top = y1;
				any = true;
			}
			if (any && k->nseries > 1) {
				char lab[80];
				tb_buf b;
				tb_buf_init(&b);
				tb_fmt_sig(&b, sum, 3);
				if (k->unit[0])
					tb_buf_printf(&b, " %s", k->unit);
				tb_chart_copy(lab, sizeof lab, b.ptr, b.len);
				tb_buf_release(&b);
				if (tb_chart_text_width_pt(lab, S_SMALL_PT) <= band)
					tb_chart_text(k->c, TB_ROLE_VALUE_LABEL, cx, top - 3, lab,
					       S_SMALL_PT, TB_ANCHOR_MIDDLE, S_TEXT);
			}
		} else if (sp->y_zoom) {
			/* dots on a zoomed axis: a bar's length would lie */
			double gw = band * 0.8;
			double bw = gw / (double)k->nseries;
			for (size_t s = 0; s < k->nseries; s++) {
				double v;
				if (!S_yval(k, sp->series[s].values[i], &v))
					continue;
				double x = cx - gw / 2 + bw * ((double)s + 0.5);
				double y = S_ymap(k, v);
				tb_prim *m = tb_chart_push(k->c, TB_PRIM_CIRCLE, TB_ROLE_MARKER);
				m->x = x;
				m->y = y;
				m->w = 3.2;
				m->fill = k->colors[s];
				m->stroke = S_WHITE;
				m->stroke_w = 0.8;
				m->series = (int)s;
				char lab[80];
				tb_buf b;
				tb_buf_init(&b);
				tb_fmt_sig(&b, sp->series[s].values[i] / k->y_scale, 3);
				tb_chart_copy(lab, sizeof lab, b.ptr, b.len);
				tb_buf_release(&b);
				if (tb_chart_text_width_pt(lab, S_SMALL_PT * 0.85) <= bw + 2)
					tb_chart_text(k->c, TB_ROLE_VALUE_LABEL, x, y - 6, lab,
					       S_SMALL_PT * 0.85, TB_ANCHOR_MIDDLE, S_TEXT);
			}
		} else {
			double gw = band * 0.8;
			double bw = gw / (double)k->nseries;
			for (size_t s = 0; s < k->nseries; s++) {
				double v;
				if (!S_yval(k, sp->series[s].values[i], &v))
					continue;
				double y1 = S_ymap(k, v);
				double x = cx - gw / 2 + bw * (double)s;
				tb_prim *p = tb_chart_rect(k->c, TB_ROLE_BAR, x + bw * 0.05, y1,
				                    bw * 0.9, k->py + k->ph - y1,
				                    k->colors[s]);
				p->series = (int)s;
			}
		}
	}
}

static void S_lines(S_ctx *k)
{
	const tb_chart_spec *sp = k->sp;
	for (size_t s = 0; s < k->nseries; s++) {
		bool have_prev = false;
		double px = 0, py = 0;
		for (size_t i = 0; i < k->ncats; i++) {
			double v;
			if (!S_xval(k, S_xat(k, i)) ||
			    !S_yval(k, sp->series[s].values[i], &v)) {
				have_prev = false; /* a gap, never a made-up segment */
				continue;
			}
			double x = S_xmap(k, S_xat(k, i)), y = S_ymap(k, v);
			if (have_prev) {
				tb_prim *l = tb_chart_line(k->c, TB_ROLE_LINE, px, py, x, y,
				                    k->colors[s], 1.8);
				l->series = (int)s;
			}
			px = x;
			py = y;
			have_prev = true;
		}
		for (size_t i = 0; i < k->ncats; i++) {
			double v;
			if (!S_xval(k, S_xat(k, i)) ||
			    !S_yval(k, sp->series[s].values[i], &v))
				continue;
			if (sp->series[s].flagged[i]) {
				tb_chart_cross(k->c, TB_ROLE_MARKER, S_xmap(k, S_xat(k, i)),
				               S_ymap(k, v), 3.5, S_VERMILION, (int)s);
				continue;
			}
			tb_prim *m = tb_chart_push(k->c, TB_PRIM_CIRCLE, TB_ROLE_MARKER);
			m->x = S_xmap(k, S_xat(k, i));
			m->y = S_ymap(k, v);
			m->w = 2.8;
			m->fill = k->colors[s];
			m->stroke = S_WHITE;
			m->stroke_w = 0.8;
			m->series = (int)s;
		}
	}
}

/* Does a text box (left x, baseline y, width w, size pt) touch a value
 * label or a reference line's label already laid out?  Two limits a few
 * pixels apart (85.5 and 85.9 GB of two cards) would otherwise print one
 * label over the other. */
static bool S_hits_label(const tb_chart *c, double x, double y, double w, double pt)
{
	for (size_t i = 0; i < c->n; i++) {
		const tb_prim *p = &c->prims[i];
		if (p->kind != TB_PRIM_TEXT ||
		    (p->role != TB_ROLE_VALUE_LABEL && p->role != TB_ROLE_REF_LABEL))
			continue;
		double pw = tb_chart_text_width_pt(p->text, p->font_size);
		double l = p->anchor == TB_ANCHOR_START ? p->x
		           : p->anchor == TB_ANCHOR_END ? p->x - pw : p->x - pw / 2;
		double r = l + pw;
		if (x < r + 2 && l < x + w + 2 && y - pt < p->y + 1 && p->y - p->font_size < y + 1)
			return true;
	}
	return false;
}

static void S_refs(S_ctx *k)
{
	const tb_chart_spec *sp = k->sp;
	for (size_t r = 0; r < k->nrefs; r++) {
		const tb_chart_ref *ref = &sp->refs[r];
		tb_rgb col = S_rgb_unset(ref->color) ? S_VERMILION : ref->color;
		char label[sizeof ref->label + 4];
		tb_chart_copy(label, sizeof label, ref->label, sizeof ref->label);
		if (!ref->vertical) {
			double v;
			if (!S_yval(k, ref->value, &v))
				continue;
			double y = S_ymap(k, v);
			tb_prim *l = tb_chart_line(k->c, TB_ROLE_REF, k->px, y, k->px + k->pw,
			                    y, col, 1.4);
			l->dashed = true;
			tb_chart_fit(label, sizeof label, k->pw - 8, S_SMALL_PT);
			/* Above the line, unless that leaves the plot; then below.
			 * Clear of the value labels: right end first, else left. */
			double above = y - 4, below = y + S_SMALL_PT + 3, line = S_SMALL_PT + 2;
			double w = tb_chart_text_width_pt(label, S_SMALL_PT);
			double rx = k->px + k->pw - 4 - w, lx = k->px + 4;
			/* then a line further out, for a second limit beside the first */
			double tries[8][2] = {
				{ rx, above }, { rx, below }, { lx, above }, { lx, below },
				{ rx, above - line }, { rx, below + line },
				{ lx, above - line }, { lx, below + line },
			};
			size_t pick = 0;
			for (size_t t = 0; t < 8; t++) {
				double tx = tries[t][0], ty = tries[t][1];
				if (ty - S_SMALL_PT < k->py || ty > k->py + k->ph)
					continue;
				if (!S_hits_label(k->c, tx, ty, w, S_SMALL_PT)) {
					pick = t;
					break;
				}
			}
			if (tries[pick][1] - S_SMALL_PT < k->py)
				pick = 1; /* the old rule: below when above leaves the plot */
			/* the right-hand places keep an end anchor, so a face wider
			 * than the estimate still ends inside the plot */
			bool at_right = pick % 4 < 2;
			tb_chart_text(k->c, TB_ROLE_REF_LABEL, at_right ? k->px + k->pw - 4 : tries[pick][0],
			       tries[pick][1], label, S_SMALL_PT,
			       at_right ? TB_ANCHOR_END : TB_ANCHOR_START, col);
		} else {
			double x;
			if (sp->kind == TB_CHART_LINES) {
				if (!S_xval(k, ref->value))
					continue;
				x = S_xmap(k, ref->value);
			} else {
				if (!isfinite(ref->value) || ref->value < -0.5 ||
				    ref->value > (double)k->ncats - 0.5)
					continue;
				x = k->px + k->pw / (double)k->ncats * (ref->value + 0.5);
			}
			tb_prim *l = tb_chart_line(k->c, TB_ROLE_REF, x, k->py, x,
			                    k->py + k->ph, col, 1.4);
			l->dashed = true;
			/* Label on the side with more room. */
			bool left = x > k->px + k->pw / 2;
			tb_chart_fit(label, sizeof label,
			      (left ? x - k->px : k->px + k->pw - x) - 6, S_SMALL_PT);
			tb_chart_text(k->c, TB_ROLE_REF_LABEL, left ? x - 3 : x + 3,
			       k->py + S_SMALL_PT + 2, label, S_SMALL_PT,
			       left ? TB_ANCHOR_END : TB_ANCHOR_START, col);
		}
	}
}

void tb_chart_layout(const tb_chart_spec *spec, double width_pt,
                     double height_pt, tb_chart *out)
{
	static const tb_chart_spec empty;
	memset(out, 0, sizeof *out);
	if (!isfinite(width_pt) || !isfinite(height_pt) || width_pt < 120 ||
	    height_pt < 90 || width_pt > 1e5 || height_pt > 1e5) {
		width_pt = 480;
		height_pt = 300;
	}
	out->width_pt = width_pt;
	out->height_pt = height_pt;

	S_ctx k;
	memset(&k, 0, sizeof k);
	k.sp = spec ? spec : &empty;
	k.c = out;
	const tb_chart_spec *sp = k.sp;
	size_t max_cats = sp->kind == TB_CHART_LINES && !sp->x_cats ? TB_CHART_MAX_POINTS
	                                                             : TB_CHART_MAX_CATS;
	k.ncats = sp->ncats < max_cats ? sp->ncats : max_cats;
	k.nseries = sp->nseries < TB_CHART_MAX_SERIES ? sp->nseries : TB_CHART_MAX_SERIES;
	k.nrefs = sp->nrefs < TB_CHART_MAX_REFS ? sp->nrefs : TB_CHART_MAX_REFS;
	k.y_scale = isfinite(sp->y_scale) && sp->y_scale > 0 ? sp->y_scale : 1.0;
	tb_chart_copy(k.unit, sizeof k.unit, sp->y_unit, sizeof sp->y_unit);
	for (size_t s = 0; s < k.nseries; s++) {
		k.colors[s] = S_rgb_unset(sp->series[s].color) ? tb_chart_palette(s)
		                                               : sp->series[s].color;
		tb_chart_copy(k.names[s], sizeof k.names[s], sp->series[s].name,
		       sizeof sp->series[s].name);
	}
	tb_chart_copy(out->id, sizeof out->id, sp->id, sizeof sp->id);
	tb_chart_copy(out->title, sizeof out->title, sp->title, sizeof sp->title);
	S_alt(&k);

	tb_chart_rect(out, TB_ROLE_BACKGROUND, 0, 0, width_pt, height_pt, S_WHITE);

	/* Title. */
	double top = S_PAD;
	if (out->title[0]) {
		char t[sizeof out->title + 4];
		tb_chart_copy(t, sizeof t, out->title, sizeof out->title);
		/* Bold faces run about 15% wider than the estimate's regular. */
		tb_chart_fit(t, sizeof t, (width_pt - 2 * S_PAD) / 1.15, S_TITLE_PT);
		tb_prim *p = tb_chart_text(out, TB_ROLE_TITLE, S_PAD, top + S_TITLE_PT, t,
		                    S_TITLE_PT, TB_ANCHOR_START, S_TEXT);
		p->bold = true;
		top += S_TITLE_PT + 8;
	}

	if (sp->kind == TB_CHART_HEATMAP) {
		tb_chart_layout_heat(sp, out, top);
		return;
	}

	/* Ranges.  Stacked totals sit above their bars: leave them room. */
	double ylo, yhi;
	bool have = k.ncats > 0 && k.nseries > 0 && S_y_range(&k, &ylo, &yhi);
	double xlo = INFINITY, xhi = -INFINITY;
	if (have && sp->kind == TB_CHART_LINES) {
		for (size_t i = 0; i < k.ncats; i++)
			if (S_xval(&k, S_xat(&k, i))) {
				xlo = fmin(xlo, S_xat(&k, i));
				xhi = fmax(xhi, S_xat(&k, i));
			}
		for (size_t r = 0; r < k.nrefs; r++)
			if (sp->refs[r].vertical && S_xval(&k, sp->refs[r].value)) {
				xlo = fmin(xlo, sp->refs[r].value);
				xhi = fmax(xhi, sp->refs[r].value);
			}
		have = xlo <= xhi;
	}
	if (have) {
		if (sp->log_y)
			tb_chart_axis_log10(&k.y, ylo, yhi);
		else if (sp->y_zoom && ylo > 0)
			/* room above the top dot for its number */
			tb_chart_axis_nice(&k.y, ylo - (yhi - ylo) * 0.15, yhi + (yhi - ylo) * 0.25 + 1e-9 * yhi);
		else
			tb_chart_axis_nice(&k.y, 0, sp->kind == TB_CHART_STACKED_BARS ? yhi * 1.04 : yhi);
		if (sp->kind == TB_CHART_LINES) {
			if (sp->x_cats)
				tb_chart_axis_cats(&k.x, k.ncats);
			else if (sp->log_x)
				tb_chart_axis_log2(&k.x, xlo, xhi);
			else
				tb_chart_axis_nice(&k.x, xlo, xhi);
		}
	}

	/* Horizontal space: y label, widest tick label, tick marks. */
	char ylab[32][80];
	double left = S_PAD, tickw = 0;
	if (have)
		for (size_t t = 0; t < k.y.nticks; t++) {
			tb_chart_tick_label(ylab[t], sizeof ylab[t], &k.y, k.y.ticks[t], k.unit);
			tickw = fmax(tickw, tb_chart_text_width_pt(ylab[t], S_LABEL_PT));
		}
	char ytitle[sizeof sp->y_label + 4], xtitle[sizeof sp->x_label + 4];
	tb_chart_copy(ytitle, sizeof ytitle, sp->y_label, sizeof sp->y_label);
	tb_chart_copy(xtitle, sizeof xtitle, sp->x_label, sizeof sp->x_label);
	if (ytitle[0])
		left += S_AXIS_PT + 6;
	left += tickw + 7;

	/* X tick labels, to size the right margin and bottom. */
	char xlab[32][80];
	double right = 14;
	if (have && sp->kind == TB_CHART_LINES) {
		for (size_t t = 0; t < k.x.nticks; t++) {
			tb_buf b;
			tb_buf_init(&b);
			if (sp->x_cats)
				tb_chart_copy(xlab[t], sizeof xlab[t], sp->cats[t], sizeof sp->cats[t]);
			else if (k.x.log)
				tb_fmt_grouped(&b, k.x.ticks[t]);
			else
				tb_chart_tick_label(xlab[t], sizeof xlab[t], &k.x, k.x.ticks[t], "");
			if (!sp->x_cats && k.x.log)
				tb_chart_copy(xlab[t], sizeof xlab[t], b.ptr, b.len);
			tb_buf_release(&b);
		}
		right = fmax(right, tb_chart_text_width_pt(xlab[k.x.nticks - 1], S_LABEL_PT) / 2 + 6);
	}

	k.px = left;
	k.pw = width_pt - left - right;
	if (sp->kind == TB_CHART_LINES && sp->flag_label[0])
		for (size_t s = 0; s < k.nseries; s++)
			for (size_t i = 0; i < k.ncats; i++)
				if (sp->series[s].flagged[i] && isfinite(sp->series[s].values[i]))
					k.flag_legend = true;
	double legend_h = S_legend(&k, k.px, k.px + k.pw, top, false);
	if (legend_h > 0)
		top += legend_h + 6;
	k.py = top + 8;

	/* Bottom: category labels may take two lines. */
	int cat_lines = 1;
	char cl1[TB_CHART_MAX_CATS][64], cl2[TB_CHART_MAX_CATS][64];
	if (have && sp->kind != TB_CHART_LINES)
		for (size_t i = 0; i < k.ncats; i++) {
			int n = S_cat_lines(sp->cats[i], k.pw / (double)k.ncats - 4,
			                    cl1[i], cl2[i]);
			if (n > cat_lines)
				cat_lines = n;
		}
	double bottom = S_PAD + 4 + cat_lines * (S_LABEL_PT + 2);
	if (xtitle[0])
		bottom += S_AXIS_PT + 6;
	k.ph = height_pt - k.py - bottom;
	if (k.ph < 20 || k.pw < 20) {
		/* Too small for axes: still honest, still finite. */
		k.px = S_PAD;
		k.pw = width_pt - 2 * S_PAD;
		k.py = top;
		k.ph = height_pt - top - S_PAD;
		have = false;
	}
	out->plot_x_pt = k.px;
	out->plot_y_pt = k.py;
	out->plot_w_pt = k.pw;
	out->plot_h_pt = k.ph;

	if (!have) {
		S_no_data(&k);
		return;
	}
	S_legend(&k, k.px, k.px + k.pw, top - (legend_h > 0 ? legend_h + 6 : 0), true);

	/* Grid and y tick labels. */
	for (size_t t = 0; t < k.y.nticks; t++) {
		double y = S_ymap(&k, k.y.ticks[t]);
		if (t > 0)
			tb_chart_line(out, TB_ROLE_GRID, k.px, y, k.px + k.pw, y, S_GRID, 0.6);
		tb_chart_line(out, TB_ROLE_AXIS, k.px - 3, y, k.px, y, S_AXIS, 0.8);
		tb_chart_text(out, TB_ROLE_TICK_LABEL, k.px - 6, y + S_LABEL_PT * 0.35,
		       ylab[t], S_LABEL_PT, TB_ANCHOR_END, S_TEXT);
	}
	double xlab_y = k.py + k.ph + 4 + S_LABEL_PT;
	if (sp->kind == TB_CHART_LINES) {
		/* Thin the labels when they would touch. */
		double gap = k.pw / (double)(k.x.nticks > 1 ? k.x.nticks - 1 : 1);
		double widest = 0;
		for (size_t t = 0; t < k.x.nticks; t++)
			widest = fmax(widest, tb_chart_text_width_pt(xlab[t], S_LABEL_PT));
		size_t every = 1;
		while (widest + 6 > gap * (double)every)
			every++;
		for (size_t t = 0; t < k.x.nticks; t++) {
			double x = S_xmap(&k, k.x.ticks[t]);
			if (t > 0 && t + 1 < k.x.nticks)
				tb_chart_line(out, TB_ROLE_GRID, x, k.py, x, k.py + k.ph, S_GRID, 0.6);
			tb_chart_line(out, TB_ROLE_AXIS, x, k.py + k.ph, x, k.py + k.ph + 3,
			       S_AXIS, 0.8);
			if (t % every == 0)
				tb_chart_text(out, TB_ROLE_TICK_LABEL, x, xlab_y, xlab[t],
				       S_LABEL_PT, TB_ANCHOR_MIDDLE, S_TEXT);
		}
		S_lines(&k);
	} else {
		S_bars(&k);
		double band = k.pw / (double)k.ncats;
		for (size_t i = 0; i < k.ncats; i++) {
			double cx = k.px + band * ((double)i + 0.5);
			tb_chart_text(out, TB_ROLE_TICK_LABEL, cx, xlab_y, cl1[i], S_LABEL_PT,
			       TB_ANCHOR_MIDDLE, S_TEXT);
			if (cl2[i][0])
				tb_chart_text(out, TB_ROLE_TICK_LABEL, cx, xlab_y + S_LABEL_PT + 2,
				       cl2[i], S_LABEL_PT, TB_ANCHOR_MIDDLE, S_TEXT);
		}
	}
	S_refs(&k);

	/* Axes over the bars' edges. */
	tb_chart_line(out, TB_ROLE_AXIS, k.px, k.py, k.px, k.py + k.ph, S_AXIS, 0.8);
	tb_chart_line(out, TB_ROLE_AXIS, k.px, k.py + k.ph, k.px + k.pw, k.py + k.ph,
	       S_AXIS, 0.8);
	if (!k.y.log && k.y.lo > 0) {
		/* a cut axis says so: the usual break mark, and in words */
		double by = k.py + k.ph - 7;
		tb_chart_rect(out, TB_ROLE_AXIS, k.px - 4, by - 3, 8, 5, S_WHITE);
		tb_chart_line(out, TB_ROLE_AXIS, k.px - 4, by + 1, k.px + 4, by - 2, S_AXIS, 0.8);
		tb_chart_line(out, TB_ROLE_AXIS, k.px - 4, by + 4, k.px + 4, by + 1, S_AXIS, 0.8);
		tb_chart_text(out, TB_ROLE_AXIS_LABEL, k.px + 6, k.py + k.ph - 4,
		       "y axis does not start at 0", S_SMALL_PT, TB_ANCHOR_START, S_MUTED);
	}

	if (xtitle[0]) {
		tb_chart_fit(xtitle, sizeof xtitle, k.pw, S_AXIS_PT);
		tb_chart_text(out, TB_ROLE_AXIS_LABEL, k.px + k.pw / 2,
		       height_pt - S_PAD - 2, xtitle, S_AXIS_PT, TB_ANCHOR_MIDDLE,
		       S_TEXT);
	}
	if (ytitle[0]) {
		tb_chart_fit(ytitle, sizeof ytitle, k.ph, S_AXIS_PT);
		tb_prim *p = tb_chart_text(out, TB_ROLE_AXIS_LABEL, S_PAD + S_AXIS_PT,
		                    k.py + k.ph / 2, ytitle, S_AXIS_PT,
		                    TB_ANCHOR_MIDDLE, S_TEXT);
		p->rotate_deg = -90;
	}
}

void tb_chart_release(tb_chart *c)
{
	if (!c)
		return;
	free(c->prims);
	c->prims = NULL;
	c->n = c->cap = 0;
}
