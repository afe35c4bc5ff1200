/* Tests for chart.c: geometry that can be checked by hand.  A bar twice
 * the value is twice as tall; ticks are the 1-2-5 numbers a person would
 * draw (0, 20, ... 80 for a maximum of 80); a line at 80 of 150 sits 8/15
 * of the way up; Okabe-Ito colours are the published sRGB values. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/chart.h"

#define EPS 1e-9

static void S_spec(tb_chart_spec *s, tb_chart_kind kind, size_t ncats,
                   size_t nseries)
{
	memset(s, 0, sizeof *s);
	s->kind = kind;
	s->ncats = ncats;
	s->nseries = nseries;
	s->y_scale = 1;
	strcpy(s->id, "t");
	strcpy(s->title, "Test chart");
	for (size_t i = 0; i < ncats; i++) {
		s->cats[i][0] = (char)('A' + i);
		s->xs[i] = (double)(i + 1);
	}
	for (size_t j = 0; j < nseries; j++) {
		s->series[j].name[0] = (char)('p' + j);
	}
}

static size_t S_count(const tb_chart *c, tb_prim_kind kind, tb_prim_role role)
{
	size_t n = 0;
	for (size_t i = 0; i < c->n; i++)
		if (c->prims[i].kind == kind && c->prims[i].role == role)
			n++;
	return n;
}

static const tb_prim *S_find(const tb_chart *c, tb_prim_kind kind,
                             tb_prim_role role, size_t nth)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->prims[i].kind == kind && c->prims[i].role == role && nth-- == 0)
			return &c->prims[i];
	return NULL;
}

static const tb_prim *S_find_text(const tb_chart *c, const char *text)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->prims[i].kind == TB_PRIM_TEXT && !strcmp(c->prims[i].text, text))
			return &c->prims[i];
	return NULL;
}

/* Y-axis tick labels are the end-anchored tick labels, bottom to top. */
static size_t S_y_labels(const tb_chart *c, const char *out[], size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < c->n && n < max; i++) {
		const tb_prim *p = &c->prims[i];
		if (p->kind == TB_PRIM_TEXT && p->role == TB_ROLE_TICK_LABEL &&
		    p->anchor == TB_ANCHOR_END)
			out[n++] = p->text;
	}
	return n;
}

static void S_all_finite(const tb_chart *c)
{
	cr_assert(isfinite(c->width_pt) && isfinite(c->height_pt));
	for (size_t i = 0; i < c->n; i++) {
		const tb_prim *p = &c->prims[i];
		cr_assert(isfinite(p->x) && isfinite(p->y) && isfinite(p->w) &&
		          isfinite(p->h) && isfinite(p->x2) && isfinite(p->y2) &&
		          isfinite(p->stroke_w) && isfinite(p->font_size),
		          "primitive %zu has a non-finite coordinate", i);
		cr_assert(p->w >= 0 && p->h >= 0, "primitive %zu has negative size", i);
		cr_assert(strstr(p->text, "nan") == NULL && strstr(p->text, "inf") == NULL,
		          "primitive %zu text \"%s\"", i, p->text);
	}
}

Test(chart, palette_is_okabe_ito)
{
	tb_rgb blue = tb_chart_palette(0), orange = tb_chart_palette(1);
	cr_expect(blue.r == 0 && blue.g == 114 && blue.b == 178);
	cr_expect(orange.r == 230 && orange.g == 159 && orange.b == 0);
	tb_rgb green = tb_chart_palette(2), wrap = tb_chart_palette(10);
	cr_expect(green.r == 0 && green.g == 158 && green.b == 115);
	cr_expect(wrap.r == green.r && wrap.g == green.g && wrap.b == green.b);
}

Test(chart, text_width_estimate)
{
	cr_expect_float_eq(tb_chart_text_width_pt("abc", 10), 16.5, EPS);
	/* "4 × 10" is six characters, whatever its UTF-8 length. */
	cr_expect_float_eq(tb_chart_text_width_pt("4 \u00d7 10", 10), 33.0, EPS);
	cr_expect_float_eq(tb_chart_text_width_pt(NULL, 10), 0.0, EPS);
}

Test(chart, grouped_bar_twice_the_value_is_twice_as_tall)
{
	tb_chart_spec s;
	S_spec(&s, TB_CHART_GROUPED_BARS, 2, 1);
	s.series[0].values[0] = 10;
	s.series[0].values[1] = 20;
	tb_chart c;
	tb_chart_layout(&s, 480, 300, &c);
	cr_assert_eq(S_count(&c, TB_PRIM_RECT, TB_ROLE_BAR), 2);
	const tb_prim *a = S_find(&c, TB_PRIM_RECT, TB_ROLE_BAR, 0);
	const tb_prim *b = S_find(&c, TB_PRIM_RECT, TB_ROLE_BAR, 1);
	cr_expect(a->h > 0);
	cr_expect_float_eq(b->h, 2 * a->h, 1e-6);
	/* Bars stand on the x axis. */
	cr_expect_float_eq(a->y + a->h, c.plot_y_pt + c.plot_h_pt, 1e-6);
	cr_expect_float_eq(b->y + b->h, c.plot_y_pt + c.plot_h_pt, 1e-6);
	cr_expect(a->x + a->w <= b->x, "bars of different categories overlap");
	tb_chart_release(&c);
}

Test(chart, stacked_segments_add_up)
{
	tb_chart_spec s;
	S_spec(&s, TB_CHART_STACKED_BARS, 1, 3);
	s.series[0].values[0] = 10;
	s.series[1].values[0] = 20;
	s.series[2].values[0] = 30;
	tb_chart c;
	tb_chart_layout(&s, 480, 300, &c);
	cr_assert_eq(S_count(&c, TB_PRIM_RECT, TB_ROLE_BAR), 3);
	const tb_prim *p0 = S_find(&c, TB_PRIM_RECT, TB_ROLE_BAR, 0);
	const tb_prim *p1 = S_find(&c, TB_PRIM_RECT, TB_ROLE_BAR, 1);
	const tb_prim *p2 = S_find(&c, TB_PRIM_RECT, TB_ROLE_BAR, 2);
	cr_expect_float_eq(p1->h, 2 * p0->h, 1e-6);
	cr_expect_float_eq(p2->h, 3 * p0->h, 1e-6);
	/* Each segment sits on the one below. */
	cr_expect_float_eq(p0->y, p1->y + p1->h, 1e-6);
	cr_expect_float_eq(p1->y, p2->y + p2->h, 1e-6);
	cr_expect_eq(p0->series, 0);
	cr_expect_eq(p2->series, 2);
	/* The total, 60, is printed above the stack. */
	const tb_prim *t = S_find_text(&c, "60.0");
	cr_assert_not_null(t);
	cr_expect(t->y < p2->y);
	tb_chart_release(&c);
}

Test(chart, ticks_for_a_maximum_of_80)
{
	tb_chart_spec s;
	S_spec(&s, TB_CHART_GROUPED_BARS, 1, 1);
	s.series[0].values[0] = 80;
	tb_chart c;
	tb_chart_layout(&s, 480, 300, &c);
	const char *lab[16];
	size_t n = S_y_labels(&c, lab, 16);
	cr_assert_eq(n, 5);
	cr_expect_str_eq(lab[0], "0");
	cr_expect_str_eq(lab[1], "20");
	cr_expect_str_eq(lab[2], "40");
	cr_expect_str_eq(lab[3], "60");
	cr_expect_str_eq(lab[4], "80");
	tb_chart_release(&c);
}

Test(chart, ticks_in_display_units_with_unit)
{
	/* 1.2 TB of values on a GB axis: 0 to 1,200 GB in steps of 200. */
	tb_chart_spec s;
	S_spec(&s, TB_CHART_GROUPED_BARS, 1, 1);
	s.series[0].values[0] = 1.2e12;
	s.y_scale = 1e9;
	strcpy(s.y_unit, "GB");
	tb_chart c;
	tb_chart_layout(&s, 480, 300, &c);
	const char *lab[16];
	size_t n = S_y_labels(&c, lab, 16);
	cr_assert_eq(n, 7);
	cr_expect_str_eq(lab[0], "0 GB");
	cr_expect_str_eq(lab[1], "200 GB");
	cr_expect_str_eq(lab[6], "1,200 GB");
	tb_chart_release(&c);
}

Test(chart, fractional_ticks)
{
	tb_chart_spec s;
	S_spec(&s, TB_CHART_GROUPED_BARS, 1, 1);
	s.series[0].values[0] = 0.9;
	tb_chart c;
	tb_chart_layout(&s, 480, 300, &c);
	const char *lab[16];
	size_t n = S_y_labels(&c, lab, 16);
	cr_assert_eq(n, 6);
	cr_expect_str_eq(lab[0], "0.0"); /* every label with the step's decimals */
	cr_expect_str_eq(lab[1], "0.2");
	cr_expect_str_eq(lab[5], "1.0");
	tb_chart_release(&c);
}

/* Any maximum gives 4 to 7 evenly spaced ticks whose step is 1, 2 or 5
 * times a power of ten, and whose top covers the data. */
struct S_max { double v; };
ParameterizedTestParameters(chart, nice_ticks_any_maximum)
{
	static struct S_max p[] = {
		{ 1 }, { 3 }, { 7.3 }, { 9.99 }, { 10 }, { 10.1 }, { 42 }, { 99 },
		{ 101 }, { 250 }, { 333 }, { 999 }, { 1234 }, { 0.0042 }, { 6.5e5 },
	};
	return cr_make_param_array(struct S_max, p, sizeof p / sizeof p[0]);
}
ParameterizedTest(struct S_max *m, chart, nice_ticks_any_maximum)
{
	tb_chart_spec s;
	S_spec(&s, TB_CHART_LINES, 2, 1);
	s.series[0].values[0] = 0;
	s.series[0].values[1] = m->v;
	tb_chart c;
	tb_chart_layout(&s, 480, 300, &c);
	/* Grid lines are at every tick but the bottom one. */
	size_t ngrid = 0;
	double ys[16];
	for (size_t i = 0; i < c.n && ngrid < 16; i++) {
		const tb_prim *p = &c.prims[i];
		if (p->kind == TB_PRIM_LINE && p->role == TB_ROLE_GRID && p->y == p->y2)
			ys[ngrid++] = p->y;
	}
	size_t nticks = ngrid + 1;
	cr_expect(nticks >= 4 && nticks <= 7, "max %g: %zu ticks", m->v, nticks);
	double bottom = c.plot_y_pt + c.plot_h_pt;
	double gap = bottom - ys[0];
	for (size_t i = 1; i < ngrid; i++)
		cr_expect_float_eq(ys[i - 1] - ys[i], gap, 1e-6);
	/* Top tick value = nticks-1 steps; the data's top point lies inside. */
	const tb_prim *top = S_find(&c, TB_PRIM_CIRCLE, TB_ROLE_MARKER, 1);
	cr_assert_not_null(top);
	cr_expect(top->y >= c.plot_y_pt - 1e-6);
	/* step = top / (nticks - 1) must be 1, 2 or 5 x 10^k: read it from
	 * the data point's height, which is v / top of the plot height. */
	double frac = (bottom - top->y) / c.plot_h_pt;
	double axis_top = m->v / frac;
	double step = axis_top / (double)(nticks - 1);
	double mant = step / pow(10, floor(log10(step) + 1e-9));
	cr_expect(fabs(mant - 1) < 1e-6 || fabs(mant - 2) < 1e-6 || fabs(mant - 5) < 1e-6,
	          "max %g: step %g", m->v, step);
	tb_chart_release(&c);
}

Test(chart, horizontal_reference_line_height)
{
	/* Stack of 120 GB: with headroom the axis runs 0..150 GB; a capacity
	 * line at 80 GB sits at 80/150 of the height. */
	tb_chart_spec s;
	S_spec(&s, TB_CHART_STACKED_BARS, 1, 2);
	s.series[0].values[0] = 100e9;
	s.series[1].values[0] = 20e9;
	s.y_scale = 1e9;
	strcpy(s.y_unit, "GB");
	s.nrefs = 1;
	s.refs[0].value = 80e9;
	strcpy(s.refs[0].label, "capacity");
	tb_chart c;
	tb_chart_layout(&s, 480, 300, &c);
	const char *lab[16];
	size_t n = S_y_labels(&c, lab, 16);
	cr_assert_eq(n, 4);
	cr_expect_str_eq(lab[3], "150 GB");
	const tb_prim *ref = S_find(&c, TB_PRIM_LINE, TB_ROLE_REF, 0);
	cr_assert_not_null(ref);
	cr_expect(ref->dashed);
	double want = c.plot_y_pt + c.plot_h_pt * (1 - 80.0 / 150.0);
	cr_expect_float_eq(ref->y, want, 1e-6);
	cr_expect_float_eq(ref->y2, want, 1e-6);
	cr_expect_float_eq(ref->x, c.plot_x_pt, 1e-6);
	cr_expect_float_eq(ref->x2, c.plot_x_pt + c.plot_w_pt, 1e-6);
	cr_expect_not_null(S_find_text(&c, "capacity"));
	tb_chart_release(&c);
}

Test(chart, reference_above_the_data_widens_the_axis)
{
	tb_chart_spec s;
	S_spec(&s, TB_CHART_GROUPED_BARS, 1, 1);
	s.series[0].values[0] = 10;
	s.nrefs = 1;
	s.refs[0].value = 70;
	tb_chart c;
	tb_chart_layout(&s, 480, 300, &c);
	const tb_prim *ref = S_find(&c, TB_PRIM_LINE, TB_ROLE_REF, 0);
	cr_assert_not_null(ref);
	cr_expect(ref->y > c.plot_y_pt, "the line must be inside the plot");
	const char *lab[16];
	size_t n = S_y_labels(&c, lab, 16);
	cr_expect_str_eq(lab[n - 1], "80");
	tb_chart_release(&c);
}

Test(chart, log_x_powers_of_two_and_vertical_reference)
{
	tb_chart_spec s;
	S_spec(&s, TB_CHART_LINES, 11, 1);
	s.log_x = true;
	for (size_t i = 0; i < 11; i++) {
		s.xs[i] = (double)(8u << i);
		s.series[0].values[i] = 8192.0 / s.xs[i];
	}
	s.nrefs = 1;
	s.refs[0].vertical = true;
	s.refs[0].value = 256;
	tb_chart c;
	tb_chart_layout(&s, 480, 300, &c);
	static const char *const want[] = { "8", "16", "32", "64", "128", "256",
		"512", "1,024", "2,048", "4,096", "8,192" };
	double prev = -1;
	for (size_t i = 0; i < 11; i++) {
		const tb_prim *t = S_find_text(&c, want[i]);
		cr_assert_not_null(t, "tick %s", want[i]);
		cr_expect_eq(t->anchor, TB_ANCHOR_MIDDLE);
		double want_x = c.plot_x_pt + c.plot_w_pt * (double)i / 10.0;
		cr_expect_float_eq(t->x, want_x, 1e-6, "tick %s", want[i]);
		cr_expect(t->x > prev);
		prev = t->x;
	}
	/* 256 = 2^8 is the sixth of 2^3..2^13: half way. */
	const tb_prim *ref = S_find(&c, TB_PRIM_LINE, TB_ROLE_REF, 0);
	cr_assert_not_null(ref);
	cr_expect_float_eq(ref->x, c.plot_x_pt + c.plot_w_pt / 2, 1e-6);
	cr_expect_float_eq(ref->x2, ref->x, 1e-9);
	/* 11 points: 10 segments and 11 markers. */
	cr_expect_eq(S_count(&c, TB_PRIM_LINE, TB_ROLE_LINE), 10);
	cr_expect_eq(S_count(&c, TB_PRIM_CIRCLE, TB_ROLE_MARKER), 11);
	tb_chart_release(&c);
}

Test(chart, line_breaks_at_missing_points)
{
	tb_chart_spec s;
	S_spec(&s, TB_CHART_LINES, 4, 1);
	s.series[0].values[0] = 1;
	s.series[0].values[1] = NAN;
	s.series[0].values[2] = 3;
	s.series[0].values[3] = 4;
	tb_chart c;
	tb_chart_layout(&s, 480, 300, &c);
	cr_expect_eq(S_count(&c, TB_PRIM_CIRCLE, TB_ROLE_MARKER), 3);
	cr_expect_eq(S_count(&c, TB_PRIM_LINE, TB_ROLE_LINE), 1);
	tb_chart_release(&c);
}

Test(chart, hostile_values_stay_finite)
{
	tb_chart_spec s;
	S_spec(&s, TB_CHART_STACKED_BARS, 4, 3);
	s.series[0].values[0] = NAN;
	s.series[0].values[1] = -5;
	s.series[0].values[2] = INFINITY;
	s.series[0].values[3] = 3;
	s.series[1].values[3] = -INFINITY;
	s.series[2].values[0] = 1e308;
	s.series[2].values[1] = 1e308;
	s.y_scale = NAN;
	s.nrefs = 2;
	s.refs[0].value = NAN;
	s.refs[1].vertical = true;
	s.refs[1].value = INFINITY;
	s.ncats = 99;     /* more than the arrays hold */
	s.nseries = 99;
	tb_chart c;
	tb_chart_layout(&s, NAN, 300, &c);
	cr_expect_float_eq(c.width_pt, 480, EPS);
	S_all_finite(&c);
	/* The negative and non-finite values draw nothing: of series 0 only
	 * the 3 in category 3 (of the 16 kept) is a bar. */
	size_t n0 = 0;
	for (size_t i = 0; i < c.n; i++)
		if (c.prims[i].role == TB_ROLE_BAR && c.prims[i].series == 0) {
			n0++;
			cr_expect(c.prims[i].x > c.plot_x_pt + c.plot_w_pt * 3 / 16);
			cr_expect(c.prims[i].x < c.plot_x_pt + c.plot_w_pt * 4 / 16);
		}
	cr_expect_eq(n0, 1);
	tb_chart_release(&c);

	S_spec(&s, TB_CHART_LINES, 3, 2);
	s.log_x = s.log_y = true;
	s.xs[0] = -1;
	s.xs[1] = 0;
	s.xs[2] = 64;
	s.series[0].values[2] = 0;
	s.series[1].values[2] = 5;
	tb_chart_layout(&s, 480, 300, &c);
	S_all_finite(&c);
	cr_expect_eq(S_count(&c, TB_PRIM_CIRCLE, TB_ROLE_MARKER), 1);
	tb_chart_release(&c);
}

Test(chart, empty_spec_draws_frame_and_no_data)
{
	tb_chart c;
	tb_chart_layout(NULL, 480, 300, &c);
	cr_expect_not_null(S_find_text(&c, "no data"));
	cr_expect_eq(S_count(&c, TB_PRIM_RECT, TB_ROLE_FRAME), 1);
	S_all_finite(&c);
	tb_chart_release(&c);

	tb_chart_spec s;
	S_spec(&s, TB_CHART_GROUPED_BARS, 3, 2); /* all values zero... */
	s.series[0].values[0] = NAN;             /* ...or missing */
	tb_chart_layout(&s, 480, 300, &c);
	cr_expect_null(S_find_text(&c, "no data"), "zeros are data");
	tb_chart_release(&c);

	S_spec(&s, TB_CHART_GROUPED_BARS, 2, 1);
	s.series[0].values[0] = NAN;
	s.series[0].values[1] = -1;
	tb_chart_layout(&s, 480, 300, &c);
	cr_expect_not_null(S_find_text(&c, "no data"));
	cr_expect_str_eq(c.title, "Test chart");
	tb_chart_release(&c);
}

Test(chart, legend_above_the_plot_without_overlap)
{
	tb_chart_spec s;
	S_spec(&s, TB_CHART_STACKED_BARS, 3, 6);
	static const char *const names[] = { "Weights", "Gradients",
		"Optimizer state", "Activations", "Communication buffers",
		"Fragmentation reserve" };
	for (size_t j = 0; j < 6; j++) {
		strcpy(s.series[j].name, names[j]);
		for (size_t i = 0; i < 3; i++)
			s.series[j].values[i] = (double)(j + i + 1);
	}
	tb_chart c;
	tb_chart_layout(&s, 300, 240, &c); /* narrow: the legend wraps */
	size_t ntext = 0;
	double rows[8];
	size_t nrows = 0;
	for (size_t i = 0; i < c.n; i++) {
		const tb_prim *p = &c.prims[i];
		if (p->role != TB_ROLE_LEGEND)
			continue;
		double bottom = p->kind == TB_PRIM_TEXT ? p->y + 3 : p->y + p->h;
		cr_expect(bottom <= c.plot_y_pt, "legend overlaps the plot");
		if (p->kind != TB_PRIM_TEXT)
			continue;
		ntext++;
		double right = p->x + tb_chart_text_width_pt(p->text, p->font_size);
		cr_expect(right <= c.width_pt, "legend runs off the chart");
		/* No two entries on one row overlap. */
		for (size_t j = 0; j < c.n; j++) {
			const tb_prim *q = &c.prims[j];
			if (q == p || q->role != TB_ROLE_LEGEND || q->kind != TB_PRIM_TEXT ||
			    q->y != p->y || q->x < p->x)
				continue;
			cr_expect(q->x - 13 >= right, "\"%s\" runs into \"%s\"", p->text, q->text);
		}
		bool seen = false;
		for (size_t r = 0; r < nrows; r++)
			seen = seen || rows[r] == p->y;
		if (!seen && nrows < 8)
			rows[nrows++] = p->y;
	}
	cr_expect_eq(ntext, 6);
	cr_expect(nrows >= 2, "six long names in 300 pt must wrap");
	tb_chart_release(&c);
}

Test(chart, labels_title_and_alt)
{
	tb_chart_spec s;
	S_spec(&s, TB_CHART_GROUPED_BARS, 2, 1);
	s.series[0].values[0] = 1;
	strcpy(s.x_label, "ZeRO stage");
	strcpy(s.y_label, "Memory per GPU");
	strcpy(s.series[0].name, "Weights");
	tb_chart c;
	tb_chart_layout(&s, 480, 300, &c);
	const tb_prim *y = S_find_text(&c, "Memory per GPU");
	cr_assert_not_null(y);
	cr_expect_float_eq(y->rotate_deg, -90, EPS);
	cr_expect(y->x < c.plot_x_pt);
	const tb_prim *x = S_find_text(&c, "ZeRO stage");
	cr_assert_not_null(x);
	cr_expect(x->y > c.plot_y_pt + c.plot_h_pt);
	const tb_prim *t = S_find(&c, TB_PRIM_TEXT, TB_ROLE_TITLE, 0);
	cr_assert_not_null(t);
	cr_expect(t->bold);
	cr_expect(t->font_size >= 11 && t->font_size <= 12);
	cr_expect_str_eq(c.id, "t");
	cr_expect_str_eq(c.alt, "Grouped bar chart of Memory per GPU by ZeRO stage; series: Weights.");
	tb_chart_release(&c);
}

Test(chart, long_title_is_shortened_to_fit)
{
	tb_chart_spec s;
	S_spec(&s, TB_CHART_GROUPED_BARS, 1, 1);
	s.series[0].values[0] = 1;
	memset(s.title, 'W', sizeof s.title); /* no NUL: a full fixed array */
	tb_chart c;
	tb_chart_layout(&s, 200, 150, &c);
	const tb_prim *t = S_find(&c, TB_PRIM_TEXT, TB_ROLE_TITLE, 0);
	cr_assert_not_null(t);
	cr_expect(tb_chart_text_width_pt(t->text, t->font_size) <= 200 - 16 + EPS);
	cr_expect(strstr(t->text, "\u2026") != NULL);
	cr_expect_eq(strlen(c.title), sizeof c.title - 1);
	tb_chart_release(&c);
}

Test(chart, deterministic)
{
	tb_chart_spec s;
	S_spec(&s, TB_CHART_LINES, 5, 3);
	for (size_t j = 0; j < 3; j++)
		for (size_t i = 0; i < 5; i++)
			s.series[j].values[i] = (double)(j * 7 + i * i);
	tb_chart a, b;
	tb_chart_layout(&s, 480, 300, &a);
	tb_chart_layout(&s, 480, 300, &b);
	cr_assert_eq(a.n, b.n);
	cr_expect(memcmp(a.prims, b.prims, a.n * sizeof *a.prims) == 0);
	tb_chart_release(&a);
	tb_chart_release(&b);
	tb_chart_release(NULL);
}

/* Losses 2.06 .. 2.21: a zoomed axis spans about the data in 1-2-5 steps
 * (2.00 .. 2.30 by 0.05), marks itself as cut, and draws dots, not bars
 * from a baseline that is not zero; a dot at 2.15 sits half-way between
 * the 2.10 and 2.20 ticks. */
Test(chart, zoomed_axis_draws_dots_and_says_it_is_cut)
{
	tb_chart_spec s;
	S_spec(&s, TB_CHART_GROUPED_BARS, 3, 1);
	s.y_zoom = true;
	s.series[0].values[0] = 2.06;
	s.series[0].values[1] = 2.15;
	s.series[0].values[2] = 2.21;
	tb_chart c;
	tb_chart_layout(&s, 480, 300, &c);
	cr_expect_eq(S_count(&c, TB_PRIM_RECT, TB_ROLE_BAR), 0);
	cr_assert_eq(S_count(&c, TB_PRIM_CIRCLE, TB_ROLE_MARKER), 3);
	const tb_prim *t0 = S_find_text(&c, "2.00");
	const tb_prim *t1 = S_find_text(&c, "2.10");
	const tb_prim *t2 = S_find_text(&c, "2.20");
	cr_assert(t0 && t1 && t2);
	cr_expect_null(S_find_text(&c, "0"));
	/* the dot at 2.15 level with the 2.15 tick (labels sit 0.35 em low) */
	const tb_prim *dot = S_find(&c, TB_PRIM_CIRCLE, TB_ROLE_MARKER, 1);
	const tb_prim *tick = S_find_text(&c, "2.15");
	cr_assert_not_null(tick);
	cr_expect_eq(tick->role, TB_ROLE_TICK_LABEL);
	cr_expect(fabs(dot->y + tick->font_size * 0.35 - tick->y) < 1e-6, "%g vs %g", dot->y, tick->y);
	cr_expect(t1->y > dot->y && dot->y > t2->y);
	cr_expect_not_null(S_find_text(&c, "y axis does not start at 0"));
	/* each dot carries its value */
	size_t labels = S_count(&c, TB_PRIM_TEXT, TB_ROLE_VALUE_LABEL);
	cr_expect_eq(labels, 3);
	tb_chart_release(&c);
}

/* A capacity line just under a stacked total: its label moves clear of
 * the total (below the line, or to the left end) instead of covering it. */
Test(chart, reference_label_clears_stack_totals)
{
	tb_chart_spec s;
	S_spec(&s, TB_CHART_STACKED_BARS, 4, 2);
	for (size_t i = 0; i < 4; i++) {
		s.series[0].values[i] = 40;
		s.series[1].values[i] = 38;
	}
	s.nrefs = 1;
	s.refs[0].value = 80;
	strcpy(s.refs[0].label, "capacity 80.0 GB");
	tb_chart c;
	tb_chart_layout(&s, 480, 300, &c);
	const tb_prim *ref = S_find(&c, TB_PRIM_TEXT, TB_ROLE_REF_LABEL, 0);
	cr_assert_not_null(ref);
	double rw = tb_chart_text_width_pt(ref->text, ref->font_size);
	double rl = ref->anchor == TB_ANCHOR_END ? ref->x - rw : ref->x;
	for (size_t i = 0; i < c.n; i++) {
		const tb_prim *p = &c.prims[i];
		if (p->kind != TB_PRIM_TEXT || p->role != TB_ROLE_VALUE_LABEL)
			continue;
		double pw = tb_chart_text_width_pt(p->text, p->font_size);
		bool x_overlap = rl < p->x + pw / 2 && p->x - pw / 2 < rl + rw;
		bool y_overlap = ref->y - ref->font_size < p->y && p->y - p->font_size < ref->y;
		cr_expect(!(x_overlap && y_overlap), "\"%s\" covers \"%s\"", ref->text, p->text);
	}
	tb_chart_release(&c);
}

/* Two limits a few pixels apart (two cards' capacities in a comparison,
 * 85.5 and 85.9 GB): the second label finds its own line. */
Test(chart, close_reference_labels_do_not_overprint)
{
	tb_chart_spec s;
	S_spec(&s, TB_CHART_GROUPED_BARS, 2, 1);
	s.series[0].values[0] = 30;
	s.series[0].values[1] = 29;
	s.nrefs = 2;
	s.refs[0].value = 85.5;
	strcpy(s.refs[0].label, "capacity 85.5 GB (h100-512-6w)");
	s.refs[1].value = 85.9;
	strcpy(s.refs[1].label, "capacity 85.9 GB (a100-1024-8w)");
	tb_chart c;
	tb_chart_layout(&s, 480, 300, &c);
	const tb_prim *a = S_find(&c, TB_PRIM_TEXT, TB_ROLE_REF_LABEL, 0);
	const tb_prim *b = S_find(&c, TB_PRIM_TEXT, TB_ROLE_REF_LABEL, 1);
	cr_assert(a && b);
	double aw = tb_chart_text_width_pt(a->text, a->font_size);
	double bw = tb_chart_text_width_pt(b->text, b->font_size);
	double al = a->anchor == TB_ANCHOR_END ? a->x - aw : a->x;
	double bl = b->anchor == TB_ANCHOR_END ? b->x - bw : b->x;
	bool x_overlap = al < bl + bw && bl < al + aw;
	bool y_overlap = a->y - a->font_size < b->y && b->y - b->font_size < a->y;
	cr_expect(!(x_overlap && y_overlap), "\"%s\" at %.1f covers \"%s\" at %.1f", a->text,
	          a->y, b->text, b->y);
	tb_chart_release(&c);
}

/* ---- sweeps: many points, flagged points, categories, heat maps ------ */

Test(chart, lines_hold_a_hundred_points)
{
	tb_chart_spec s;
	S_spec(&s, TB_CHART_LINES, 0, 1);
	s.ncats = 100;
	for (size_t i = 0; i < 100; i++) {
		s.xs[i] = (double)(i + 1);
		s.series[0].values[i] = 1000.0 / (double)(i + 1);
	}
	tb_chart c;
	tb_chart_layout(&s, 480, 300, &c);
	cr_expect_eq(S_count(&c, TB_PRIM_CIRCLE, TB_ROLE_MARKER), 100);
	cr_expect_eq(S_count(&c, TB_PRIM_LINE, TB_ROLE_LINE), 99);
	/* x runs left to right with the values */
	const tb_prim *a = S_find(&c, TB_PRIM_CIRCLE, TB_ROLE_MARKER, 0);
	const tb_prim *b = S_find(&c, TB_PRIM_CIRCLE, TB_ROLE_MARKER, 99);
	cr_expect_lt(a->x, b->x);
	cr_expect_lt(a->y, b->y);   /* 1000 is higher up than 10 */
	tb_chart_release(&c);
	/* past the arrays: kept to TB_CHART_MAX_POINTS (the rest are zeros) */
	s.ncats = 1000;
	tb_chart_layout(&s, 480, 300, &c);
	cr_expect_eq(S_count(&c, TB_PRIM_CIRCLE, TB_ROLE_MARKER), TB_CHART_MAX_POINTS);
	tb_chart_release(&c);
}

Test(chart, flagged_points_are_crosses_named_in_the_legend)
{
	tb_chart_spec s;
	S_spec(&s, TB_CHART_LINES, 5, 1);
	for (size_t i = 0; i < 5; i++)
		s.series[0].values[i] = 10.0 * (double)(i + 1);
	s.series[0].flagged[3] = s.series[0].flagged[4] = true;
	strcpy(s.flag_label, "does not fit");
	tb_chart c;
	tb_chart_layout(&s, 480, 300, &c);
	cr_expect_eq(S_count(&c, TB_PRIM_CIRCLE, TB_ROLE_MARKER), 3);
	cr_expect_eq(S_count(&c, TB_PRIM_LINE, TB_ROLE_MARKER), 4);   /* two strokes each */
	cr_expect_not_null(S_find_text(&c, "does not fit"));
	tb_chart_release(&c);
	/* no flagged point drawn: no legend entry */
	s.series[0].flagged[3] = s.series[0].flagged[4] = false;
	tb_chart_layout(&s, 480, 300, &c);
	cr_expect_null(S_find_text(&c, "does not fit"));
	tb_chart_release(&c);
}

Test(chart, lines_over_categories_label_each_point)
{
	tb_chart_spec s;
	S_spec(&s, TB_CHART_LINES, 3, 1);
	s.x_cats = true;
	strcpy(s.cats[0], "a100-80gb");
	strcpy(s.cats[1], "h100-sxm");
	strcpy(s.cats[2], "b200");
	for (size_t i = 0; i < 3; i++) {
		s.xs[i] = NAN;      /* not used */
		s.series[0].values[i] = 3.0 - (double)i;
	}
	tb_chart c;
	tb_chart_layout(&s, 480, 300, &c);
	cr_expect_eq(S_count(&c, TB_PRIM_CIRCLE, TB_ROLE_MARKER), 3);
	const tb_prim *l0 = S_find_text(&c, "a100-80gb"), *l2 = S_find_text(&c, "b200");
	cr_assert(l0 && l2);
	cr_expect_lt(l0->x, l2->x);
	/* evenly spaced, half a step in from each end */
	const tb_prim *m0 = S_find(&c, TB_PRIM_CIRCLE, TB_ROLE_MARKER, 0);
	const tb_prim *m1 = S_find(&c, TB_PRIM_CIRCLE, TB_ROLE_MARKER, 1);
	const tb_prim *m2 = S_find(&c, TB_PRIM_CIRCLE, TB_ROLE_MARKER, 2);
	cr_expect_float_eq(m1->x - m0->x, m2->x - m1->x, 1e-6);
	cr_expect_float_eq(m0->x - c.plot_x_pt, c.plot_w_pt / 6, 1e-6);
	tb_chart_release(&c);
}

Test(chart, heat_map_cells_darken_with_the_value)
{
	tb_chart_spec s;
	S_spec(&s, TB_CHART_HEATMAP, 3, 0);
	s.nrows = 2;
	strcpy(s.rows[0], "r0");
	strcpy(s.rows[1], "r1");
	double v[2][3] = { { 1, 2, 3 }, { 4, 5, NAN } };
	for (size_t r = 0; r < 2; r++)
		for (size_t k = 0; k < 3; k++)
			s.heat[r][k] = v[r][k];
	s.heat_flagged[1][1] = true;
	strcpy(s.flag_label, "does not fit");
	tb_chart c;
	tb_chart_layout(&s, 480, 300, &c);
	cr_expect_eq(S_count(&c, TB_PRIM_RECT, TB_ROLE_BAR), 6);
	const tb_prim *c1 = S_find(&c, TB_PRIM_RECT, TB_ROLE_BAR, 0);
	const tb_prim *c5 = S_find(&c, TB_PRIM_RECT, TB_ROLE_BAR, 4);
	cr_expect_lt(c5->fill.r + c5->fill.g + c5->fill.b, c1->fill.r + c1->fill.g + c1->fill.b);
	cr_expect_lt(c1->y, c5->y);             /* rows top to bottom */
	cr_expect_not_null(S_find_text(&c, "n/a"));
	cr_expect_not_null(S_find_text(&c, "does not fit"));
	cr_expect_eq(S_count(&c, TB_PRIM_RECT, TB_ROLE_MARKER), 1);   /* the flagged frame */
	for (size_t i = 0; i < c.n; i++) {
		cr_expect(isfinite(c.prims[i].x) && isfinite(c.prims[i].y));
		cr_expect(c.prims[i].x >= 0 && c.prims[i].x <= 480);
	}
	cr_expect(strstr(c.alt, "Heat map") == c.alt);
	tb_chart_release(&c);
	/* nothing finite: an honest empty frame */
	for (size_t r = 0; r < 2; r++)
		for (size_t k = 0; k < 3; k++)
			s.heat[r][k] = NAN;
	tb_chart_layout(&s, 480, 300, &c);
	cr_expect_not_null(S_find_text(&c, "no data"));
	tb_chart_release(&c);
}
