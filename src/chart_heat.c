/* chart_heat.c: the heat map, a grid of coloured cells (a sweep over two
 * settings: one cell per pair of values).
 *
 * Colour runs from light (the smallest value) to dark (the largest) on
 * one hue, so it reads in grey too; every cell also carries its number
 * where it fits, and a flagged cell ("does not fit") a vermilion frame
 * and cross, so nothing depends on telling shades apart. */
#include "chart_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "trainbudget/buf.h"
#include "trainbudget/fmt.h"

static const tb_rgb S_LIGHT = { 239, 243, 255 };
static const tb_rgb S_DARK = { 8, 81, 156 };
static const tb_rgb S_BLANK = { 242, 242, 242 };

static tb_rgb S_shade(double t)
{
	t = t < 0 ? 0 : t > 1 ? 1 : t;
	tb_rgb c;
	c.r = (unsigned char)lround(S_LIGHT.r + (S_DARK.r - S_LIGHT.r) * t);
	c.g = (unsigned char)lround(S_LIGHT.g + (S_DARK.g - S_LIGHT.g) * t);
	c.b = (unsigned char)lround(S_LIGHT.b + (S_DARK.b - S_LIGHT.b) * t);
	return c;
}

/* A value as its cell shows it: 3 significant digits of value / scale. */
static void S_value(char *out, size_t cap, double v, double scale, const char *unit)
{
	tb_buf b;
	tb_buf_init(&b);
	tb_fmt_sig(&b, v / scale, 3);
	if (unit && *unit)
		tb_buf_printf(&b, " %s", unit);
	tb_chart_copy(out, cap, b.ptr, b.len);
	tb_buf_release(&b);
}

void tb_chart_layout_heat(const tb_chart_spec *sp, tb_chart *out, double top)
{
	const double W = out->width_pt, H = out->height_pt;
	size_t ncols = sp->ncats < TB_CHART_MAX_CATS ? sp->ncats : TB_CHART_MAX_CATS;
	size_t nrows = sp->nrows < TB_CHART_MAX_CATS ? sp->nrows : TB_CHART_MAX_CATS;
	double scale = isfinite(sp->y_scale) && sp->y_scale > 0 ? sp->y_scale : 1.0;
	char unit[sizeof sp->y_unit + 1];
	tb_chart_copy(unit, sizeof unit, sp->y_unit, sizeof sp->y_unit);

	double lo = INFINITY, hi = -INFINITY;
	bool flagged = false;
	for (size_t r = 0; r < nrows; r++)
		for (size_t c = 0; c < ncols; c++) {
			double v = sp->heat[r][c];
			if (!isfinite(v) || !isfinite(v / scale))
				continue;
			lo = fmin(lo, v);
			hi = fmax(hi, v);
			if (sp->heat_flagged[r][c])
				flagged = true;
		}
	bool have = lo <= hi;

	/* The colour key (and the flag) on one row under the title. */
	double x = TB_CHART_PAD;
	if (have) {
		char a[48], b[48];
		S_value(a, sizeof a, lo, scale, unit);
		S_value(b, sizeof b, hi, scale, unit);
		double base = top + 9;
		tb_prim *t = tb_chart_text(out, TB_ROLE_LEGEND, x, base, a, TB_CHART_LABEL_PT,
		                           TB_ANCHOR_START, tb_chart_ink);
		x += tb_chart_text_width_pt(t->text, TB_CHART_LABEL_PT) + 4;
		for (int i = 0; i < 5; i++) {
			tb_chart_rect(out, TB_ROLE_LEGEND, x, base - 8, 12, 9, S_shade(i / 4.0));
			x += 12;
		}
		t = tb_chart_text(out, TB_ROLE_LEGEND, x + 4, base, b, TB_CHART_LABEL_PT,
		                  TB_ANCHOR_START, tb_chart_ink);
		x += 4 + tb_chart_text_width_pt(t->text, TB_CHART_LABEL_PT) + 14;
		if (flagged && sp->flag_label[0]) {
			char name[sizeof sp->flag_label + 1];
			tb_chart_copy(name, sizeof name, sp->flag_label, sizeof sp->flag_label);
			tb_chart_cross(out, TB_ROLE_LEGEND, x + 4.5, base - 3.5, 3.5, tb_chart_vermilion, -1);
			tb_chart_text(out, TB_ROLE_LEGEND, x + 13, base, name, TB_CHART_LABEL_PT,
			              TB_ANCHOR_START, tb_chart_ink);
		}
		top += 14 + 6;
	}

	/* Margins: the y title and the widest row label on the left; column
	 * labels and the x title below. */
	char ytitle[sizeof sp->y_label + 4], xtitle[sizeof sp->x_label + 4];
	tb_chart_copy(ytitle, sizeof ytitle, sp->y_label, sizeof sp->y_label);
	tb_chart_copy(xtitle, sizeof xtitle, sp->x_label, sizeof sp->x_label);
	double left = TB_CHART_PAD, roww = 0;
	for (size_t r = 0; r < nrows; r++)
		roww = fmax(roww, tb_chart_text_width_pt(sp->rows[r], TB_CHART_LABEL_PT));
	if (roww > W / 4)
		roww = W / 4;
	if (ytitle[0])
		left += TB_CHART_AXIS_PT + 6;
	left += roww + 6;
	double bottom = TB_CHART_PAD + 4 + TB_CHART_LABEL_PT + 2;
	if (xtitle[0])
		bottom += TB_CHART_AXIS_PT + 6;
	double px = left, py = top + 4, pw = W - left - 14, ph = H - py - bottom;
	out->plot_x_pt = px;
	out->plot_y_pt = py;
	out->plot_w_pt = pw;
	out->plot_h_pt = ph;
	if (!have || ncols == 0 || nrows == 0 || pw < 20 || ph < 20) {
		tb_prim *f = tb_chart_rect(out, TB_ROLE_FRAME, TB_CHART_PAD, top,
		                           W - 2 * TB_CHART_PAD, H - top - TB_CHART_PAD, tb_chart_white);
		f->stroke = (tb_rgb){ 226, 226, 226 };
		f->stroke_w = 1;
		tb_chart_text(out, TB_ROLE_NO_DATA, W / 2, (top + H) / 2 + 4, "no data",
		              TB_CHART_AXIS_PT, TB_ANCHOR_MIDDLE, tb_chart_muted);
		return;
	}

	double cw = pw / (double)ncols, ch = ph / (double)nrows;
	double pt = fmin(TB_CHART_SMALL_PT, ch * 0.6);
	for (size_t r = 0; r < nrows; r++) {
		double y = py + ch * (double)r;
		char lab[64];
		tb_chart_copy(lab, sizeof lab, sp->rows[r], sizeof sp->rows[r]);
		tb_chart_fit(lab, sizeof lab, roww, TB_CHART_LABEL_PT);
		tb_chart_text(out, TB_ROLE_TICK_LABEL, px - 6, y + ch / 2 + TB_CHART_LABEL_PT * 0.35,
		              lab, TB_CHART_LABEL_PT, TB_ANCHOR_END, tb_chart_ink);
		for (size_t c = 0; c < ncols; c++) {
			double cx = px + cw * (double)c, v = sp->heat[r][c];
			bool finite = isfinite(v) && isfinite(v / scale);
			double t = hi > lo ? (v - lo) / (hi - lo) : 0.5;
			tb_prim *cell = tb_chart_rect(out, TB_ROLE_BAR, cx, y, cw, ch,
			                              finite ? S_shade(t) : S_BLANK);
			cell->stroke = tb_chart_white;
			cell->stroke_w = 1;
			char txt[48];
			if (finite)
				S_value(txt, sizeof txt, v, scale, "");
			else
				snprintf(txt, sizeof txt, "n/a");
			bool flag = finite && sp->heat_flagged[r][c];
			if (flag) {
				tb_prim *f = tb_chart_rect(out, TB_ROLE_MARKER, cx + 1.5, y + 1.5, cw - 3,
				                           ch - 3, cell->fill);
				f->stroke = tb_chart_vermilion;
				f->stroke_w = 1.5;
			}
			if (tb_chart_text_width_pt(txt, pt) <= cw - 4)
				tb_chart_text(out, TB_ROLE_VALUE_LABEL, cx + cw / 2, y + ch / 2 + pt * 0.35, txt, pt,
				              TB_ANCHOR_MIDDLE, !finite ? tb_chart_muted
				              : t > 0.55 ? tb_chart_white : tb_chart_ink);
			if (flag) {
				double rr = fmin(3.5, fmin(cw, ch) / 6);
				tb_chart_cross(out, TB_ROLE_MARKER, cx + cw - rr - 3, y + rr + 3, rr,
				               tb_chart_vermilion, -1);
			}
		}
	}
	double laby = py + ph + 4 + TB_CHART_LABEL_PT;
	for (size_t c = 0; c < ncols; c++) {
		char lab[64];
		tb_chart_copy(lab, sizeof lab, sp->cats[c], sizeof sp->cats[c]);
		tb_chart_fit(lab, sizeof lab, cw - 2, TB_CHART_LABEL_PT);
		tb_chart_text(out, TB_ROLE_TICK_LABEL, px + cw * ((double)c + 0.5), laby, lab,
		              TB_CHART_LABEL_PT, TB_ANCHOR_MIDDLE, tb_chart_ink);
	}
	if (xtitle[0]) {
		tb_chart_fit(xtitle, sizeof xtitle, pw, TB_CHART_AXIS_PT);
		tb_chart_text(out, TB_ROLE_AXIS_LABEL, px + pw / 2, H - TB_CHART_PAD - 2, xtitle,
		              TB_CHART_AXIS_PT, TB_ANCHOR_MIDDLE, tb_chart_ink);
	}
	if (ytitle[0]) {
		tb_chart_fit(ytitle, sizeof ytitle, ph, TB_CHART_AXIS_PT);
		tb_prim *p = tb_chart_text(out, TB_ROLE_AXIS_LABEL, TB_CHART_PAD + TB_CHART_AXIS_PT,
		                           py + ph / 2, ytitle, TB_CHART_AXIS_PT, TB_ANCHOR_MIDDLE,
		                           tb_chart_ink);
		p->rotate_deg = -90;
	}
}
