/* render_text_sweep.c: what `estimate --sweep` adds to the summary: a
 * line per point (the value, whether it fits, memory per GPU, predicted
 * MFU, expected wall clock and cost), then the
 * cliffs in the words every report uses.  Lays out; computes nothing. */
#include "trainbudget/render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/fmt.h"
#include "trainbudget/sweep.h"
#include "trainbudget/xalloc.h"

#define S_NCOLS 7

static char *S_value(const tb_sweep *s, size_t a, size_t i)
{
	tb_buf b;
	tb_buf_init(&b);
	tb_sweep_value_text(s, a, i, &b);
	return tb_buf_detach(&b, NULL);
}

char *tb_render_text_sweep(const tb_sweep *sw)
{
	tb_buf out;
	tb_buf_init(&out);
	if (!sw)
		return tb_buf_detach(&out, NULL);
	size_t na = sw->naxes, rows = sw->npoints + 1;
	size_t ncols = na + 5;
	char **cell = tb_xcalloc(rows * ncols, sizeof *cell);
	cell[0] = tb_xstrdup(sw->axis[0].key);
	if (na == 2)
		cell[1] = tb_xstrdup(sw->axis[1].key);
	static const char *const head[5] = { "fits", "memory/GPU", "pred. MFU", "wall clock", "cost" };
	for (size_t c = 0; c < 5; c++)
		cell[na + c] = tb_xstrdup(head[c]);
	/* the cost column in one style: its largest amount's */
	double money_ref = 0;
	for (size_t p = 0; p < sw->npoints; p++)
		if (sw->points[p].valid && sw->points[p].f.time_known && isfinite(sw->points[p].f.cost))
			money_ref = fmax(money_ref, fabs(sw->points[p].f.cost));
	bool any_replaced = false;
	for (size_t p = 0; p < sw->npoints; p++) {
		const tb_sweep_point *pt = &sw->points[p];
		const tb_sweep_figures *f = &pt->f;
		char **row = cell + (p + 1) * ncols;
		row[0] = S_value(sw, 0, pt->i);
		if (na == 2)
			row[1] = S_value(sw, 1, pt->j);
		if (!pt->valid) {
			tb_buf b;
			tb_buf_init(&b);
			tb_buf_printf(&b, "not valid: %s", pt->why ? pt->why : "refused");
			row[na] = tb_buf_detach(&b, NULL);
			continue;
		}
		tb_buf b;
		tb_buf_init(&b);
		bool replaced = tb_sweep_point_replaced(pt);
		any_replaced |= replaced;
		row[na] = tb_xstrdup(!f->fits_known ? "unknown" : f->fits ? "yes" : replaced ? "NO*" : "NO");
		if (f->activations_known)
			tb_fmt_bytes(&b, f->memory_per_gpu_bytes);
		else
			tb_buf_puts(&b, "n/a");
		row[na + 1] = tb_buf_detach(&b, NULL);
		tb_buf_init(&b);
		if (f->perf_known)
			tb_fmt_pct(&b, f->mfu_predicted);
		else
			tb_buf_puts(&b, "n/a");
		row[na + 2] = tb_buf_detach(&b, NULL);
		tb_buf_init(&b);
		if (f->time_known)
			tb_fmt_days(&b, f->seconds);
		else
			tb_buf_puts(&b, f->seconds_compute > 0 ? "never finishes" : "n/a");
		row[na + 3] = tb_buf_detach(&b, NULL);
		tb_buf_init(&b);
		if (f->time_known)
			tb_fmt_money_ref(&b, f->cost, sw->currency[0] ? sw->currency : "USD", money_ref);
		else
			tb_buf_puts(&b, "n/a");
		row[na + 4] = tb_buf_detach(&b, NULL);
	}
	size_t width[S_NCOLS] = { 0 };
	for (size_t r = 0; r < rows; r++)
		for (size_t c = 0; c < ncols; c++) {
			const char *s = cell[r * ncols + c];
			/* a reason runs on; it does not widen its column */
			bool reason = r > 0 && c == na && s && strncmp(s, "not valid", 9) == 0;
			if (s && !reason && tb_fmt_width(s) > width[c])
				width[c] = tb_fmt_width(s);
		}
	tb_buf_printf(&out, "\nSweep over %s%s%s: %zu points\n", sw->axis[0].key,
	              na == 2 ? " and " : "", na == 2 ? sw->axis[1].key : "", sw->npoints);
	for (size_t r = 0; r < rows; r++) {
		tb_buf line;
		tb_buf_init(&line);
		tb_buf_puts(&line, "  ");
		for (size_t c = 0; c < ncols; c++) {
			const char *s = cell[r * ncols + c];
			if (!s)
				break;
			/* the values and figures right-aligned, the fit word left */
			bool right = c != na;
			size_t w = tb_fmt_width(s);
			if (c)
				tb_buf_puts(&line, "  ");
			if (right)
				for (; w < width[c]; w++)
					tb_buf_putc(&line, ' ');
			tb_buf_puts(&line, s);
			if (!right && c + 1 < ncols && cell[r * ncols + c + 1])
				for (; w < width[c]; w++)
					tb_buf_putc(&line, ' ');
		}
		while (line.len && line.ptr[line.len - 1] == ' ')
			tb_buf_truncate(&line, line.len - 1);
		tb_buf_printf(&out, "%s\n", line.ptr);
		tb_buf_release(&line);
	}
	tb_buf_puts(&out, "  (expected: the mean of simulated runs, failures and checkpoints included)\n");
	if (any_replaced)
		tb_buf_puts(&out, "  * " TB_SWEEP_REPLACED_NOTE "\n");
	if (sw->ncliffs == 0)
		tb_buf_puts(&out, "Cliffs: none within the values swept.\n");
	else
		tb_buf_puts(&out, "Cliffs:\n");
	for (size_t c = 0; c < sw->ncliffs; c++) {
		tb_buf_puts(&out, "  - ");
		tb_sweep_cliff_words(sw, &sw->cliffs[c], &out);
		tb_buf_puts(&out, ".\n");
	}
	for (size_t i = 0; i < rows * ncols; i++)
		free(cell[i]);
	free(cell);
	return tb_buf_detach(&out, NULL);
}
