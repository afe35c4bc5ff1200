/* chart_axis.c: the scales of a chart: nice linear ticks, decades, powers
 * of two, categories, where a value falls and how a tick is labelled.
 * Shared by the chart layouts (chart.c, chart_heat.c) through chart_int.h. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "chart_int.h"
#include "trainbudget/buf.h"
#include "trainbudget/fmt.h"

/* 1-2-5 steps: the first step, from small to large, that covers lo..hi in
 * at most 6 intervals.  Successive candidates differ by at most 2.5x, so
 * the chosen one gives at least 3 intervals: 4 to 7 ticks. */
void tb_chart_axis_nice(tb_chart_axis *a, double lo, double hi)
{
	if (!(hi > lo)) {
		double m = fabs(hi) > 0 ? fabs(hi) : 1.0;
		hi = lo + m;
	}
	double span = hi - lo;
	int k = (int)floor(log10(span / 10.0));
	static const double mult[3] = { 1, 2, 5 };
	for (int tries = 0; tries < 12; tries++, k++) {
		for (int i = 0; i < 3; i++) {
			double step = mult[i] * pow(10.0, k);
			double t0 = floor(lo / step + 1e-9) * step;
			double t1 = ceil(hi / step - 1e-9) * step;
			double n = floor((t1 - t0) / step + 0.5);
			if (n <= 6 && n >= 1) {
				a->log = false;
				a->lo = t0;
				a->hi = t1;
				a->step = step;
				a->nticks = (size_t)n + 1;
				for (size_t j = 0; j < a->nticks; j++) {
					a->ticks[j] = t0 + (double)j * step;
					if (fabs(a->ticks[j]) < step * 1e-9)
						a->ticks[j] = 0; /* no "-0" from t0 + j*step */
				}
				return;
			}
		}
	}
	/* Unreachable for finite input; keep a usable axis anyway. */
	a->lo = lo;
	a->hi = hi;
	a->step = span;
	a->nticks = 2;
	a->ticks[0] = lo;
	a->ticks[1] = hi;
}

/* Decades for a log y axis: 10^floor(log10 lo) .. 10^ceil(log10 hi). */
void tb_chart_axis_log10(tb_chart_axis *a, double lo, double hi)
{
	int e0 = (int)floor(log10(lo) + 1e-9);
	int e1 = (int)ceil(log10(hi) - 1e-9);
	if (e1 <= e0)
		e1 = e0 + 1;
	int every = 1;
	while ((e1 - e0) / every + 1 > 7)
		every++;
	a->log = true;
	a->lo = pow(10.0, e0);
	a->hi = pow(10.0, e1);
	a->step = 0;
	a->nticks = 0;
	for (int e = e0; e <= e1 && a->nticks < 32; e += every)
		a->ticks[a->nticks++] = pow(10.0, e);
}

/* Powers of two for a log x axis (GPU counts 8..8192). */
void tb_chart_axis_log2(tb_chart_axis *a, double lo, double hi)
{
	int e0 = (int)floor(log2(lo) + 1e-9);
	int e1 = (int)ceil(log2(hi) - 1e-9);
	if (e1 <= e0)
		e1 = e0 + 1;
	if (e1 - e0 > 30)
		e0 = e1 - 30;
	a->log = true;
	a->lo = ldexp(1.0, e0);
	a->hi = ldexp(1.0, e1);
	a->step = 1;
	a->nticks = 0;
	for (int e = e0; e <= e1 && a->nticks < 32; e++)
		a->ticks[a->nticks++] = ldexp(1.0, e);
}

/* Categories along x (lines with x_cats): point i at i, half a step of
 * room at each end, one tick per point. */
void tb_chart_axis_cats(tb_chart_axis *a, size_t n)
{
	a->log = false;
	a->lo = -0.5;
	a->hi = (double)(n ? n : 1) - 0.5;
	a->step = 1;
	a->nticks = n < 32 ? n : 32;
	for (size_t i = 0; i < a->nticks; i++)
		a->ticks[i] = (double)i;
}

/* Fraction 0..1 of v along the axis, clamped so every coordinate stays
 * inside the plot. */
double tb_chart_axis_frac(const tb_chart_axis *a, double v)
{
	double f;
	if (a->log)
		f = (log(v) - log(a->lo)) / (log(a->hi) - log(a->lo));
	else
		f = (v - a->lo) / (a->hi - a->lo);
	if (!isfinite(f))
		return 0;
	return f < 0 ? 0 : f > 1 ? 1 : f;
}

/* A tick label: as many decimals as the step needs; thousands grouped;
 * from a million, k/M/B/T suffixes chosen by the axis maximum. */
void tb_chart_tick_label(char *out, size_t cap, const tb_chart_axis *a, double v,
                         const char *unit)
{
	static const char *const suffix[] = { "", "k", "M", "B", "T" };
	double top = fabs(a->hi) > fabs(a->lo) ? fabs(a->hi) : fabs(a->lo);
	size_t s = 0;
	double div = 1;
	if (top >= 1e6)
		while (s + 1 < 5 && top / (div * 1000) >= 1) {
			div *= 1000;
			s++;
		}
	double step = a->log ? v : a->step;
	int dec = 0;
	if (step / div < 1)
		dec = (int)ceil(-log10(step / div) - 1e-9);
	if (dec > 6)
		dec = 6;
	tb_buf b;
	tb_buf_init(&b);
	if (dec == 0)
		tb_fmt_grouped(&b, v / div);
	else
		tb_buf_fixed(&b, v / div, dec);
	tb_buf_puts(&b, suffix[s]);
	if (unit && *unit)
		tb_buf_printf(&b, " %s", unit);
	tb_chart_copy(out, cap, b.ptr, b.len);
	tb_buf_release(&b);
}
