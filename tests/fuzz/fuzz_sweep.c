/* fuzz_sweep.c: libFuzzer target for --sweep arguments (sweep.c).
 *
 * The input is one argument, or two separated by a newline (a grid).  Contract: tb_sweep_parse either fails with
 * exactly one error at a column inside the argument (or just past it), or
 * gives 2 to max distinct, non-empty values, each at a column inside the
 * argument.  A parsed argument of up to 16 values is then swept over the
 * built-in scenario: NULL with at least one error, or one point per value,
 * every figure of every valid point finite and no memory figure negative,
 * and every cliff at a value that exists.  A sweep that ran is then
 * drawn: the report (Markdown, HTML with its charts, PDF) and a comparison
 * of the built-in scenario against itself on twice the GPUs, both with the
 * sweep, whatever of it does not fit (issue 18: a chart wrote through a
 * moved array when a grid's points did not fit).  A violation aborts. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/budget.h"
#include "trainbudget/compare.h"
#include "trainbudget/render.h"
#include "trainbudget/report.h"
#include "trainbudget/scenario.h"
#include "trainbudget/sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void S_finite(double v)
{
	if (!isfinite(v))
		abort();
}

/* One argument's contract; true when it parsed with at most 16 values. */
static bool S_parse_ok(const char *arg)
{
	size_t len = strlen(arg);
	tb_diags d;
	tb_diags_init(&d);
	tb_sweep_axis a;
	int rc = tb_sweep_parse(arg, TB_SWEEP_MAX_VALUES, &a, &d);
	if (rc != 0) {
		if (d.errors != 1 || d.n != 1 || d.items[0].col < 1 || d.items[0].col > len + 1)
			abort();
	} else {
		if (d.errors != 0 || a.n < 2 || a.n > TB_SWEEP_MAX_VALUES || !a.key || !*a.key)
			abort();
		for (size_t i = 0; i < a.n; i++) {
			if (!a.values[i] || !*a.values[i] || a.cols[i] < 1 || a.cols[i] > len)
				abort();
			for (size_t k = 0; k < i; k++)
				if (strcmp(a.values[i], a.values[k]) == 0)
					abort();
		}
	}
	bool small = rc == 0 && a.n <= 16;
	tb_sweep_axis_release(&a);
	tb_diags_release(&d);
	return small;
}

/* The sweep drawn in every format, and compared: nothing may crash, leak
 * or report an error the renderers do not explain. */
static void S_draw(const char *const *args, size_t nargs)
{
	const char *text = tb_scenario_default_text();
	tb_diags d;
	tb_diags_init(&d);
	tb_scenario *sc = tb_scenario_load("<builtin>", text, strlen(text), NULL, 0, &d);
	tb_sweep *s = sc ? tb_sweep_run(args, nargs, "<builtin>", text, strlen(text), NULL, 0, &d) : NULL;
	if (sc && s) {
		tb_budget *b = calloc(1, sizeof *b);
		if (!b)
			abort();
		tb_budget_compute(&sc->inputs, b);
		tb_budget_compute_risk(&sc->inputs, b);
		tb_report_options opt;
		memset(&opt, 0, sizeof opt);
		opt.date = "2024-01-01";
		opt.command = "trainbudget report";
		opt.sweep = s;
		tb_report *r = tb_report_new(sc, b, &opt, &d);
		if (!r)
			abort();
		free(tb_render_md(r, "x-"));
		free(tb_render_html(r));
		const char *dir = getenv("TB_FUZZ_FONT_DIR");
		tb_pdf_options po = { .paper = TB_PAPER_A4, .font_dir = dir ? dir : "build/fonts" };
		tb_buf pdf;
		tb_buf_init(&pdf);
		if (tb_render_pdf(r, &po, &pdf, &d) != 0 && d.errors == 0)
			abort();
		tb_buf_release(&pdf);
		tb_report_free(r);
		free(b);
		/* the same grid over two proposals */
		static char twice[1024];
		const char *at = strstr(text, "count: 64");
		if (at && strlen(text) + 2 < sizeof twice) {
			size_t head = (size_t)(at - text);
			memcpy(twice, text, head);
			snprintf(twice + head, sizeof twice - head, "count: 128%s", at + 9);
			tb_compare_input in[2] = { { "a.yaml", text, strlen(text) },
			                           { "b.yaml", twice, strlen(twice) } };
			tb_diags cd;
			tb_diags_init(&cd);
			tb_compare *c = tb_compare_new(in, 2, NULL, 0, args, nargs, &cd);
			if (c) {
				tb_report *cr = tb_report_new_compare(c, &opt, &cd);
				if (!cr)
					abort();
				free(tb_render_md(cr, "x-"));
				free(tb_render_html(cr));
				tb_report_free(cr);
				tb_compare_free(c);
			} else if (cd.errors == 0) {
				abort();
			}
			tb_diags_release(&cd);
		}
	}
	tb_sweep_free(s);
	tb_scenario_free(sc);
	tb_diags_release(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *arg = malloc(size + 1);
	if (!arg)
		return 0;
	memcpy(arg, data, size);
	arg[size] = '\0';
	/* a newline splits a grid's two arguments */
	char *second = strchr(arg, '\n');
	if (second)
		*second++ = '\0';
	size_t nargs = second ? 2 : 1;
	const char *args[2] = { arg, second };
	bool sweep = S_parse_ok(arg);
	if (second)
		sweep = S_parse_ok(second) && sweep;
	tb_diags d;
	if (sweep) {
		tb_diags_init(&d);
		const char *text = tb_scenario_default_text();
		tb_sweep *s = tb_sweep_run(args, nargs, "<builtin>", text, strlen(text), NULL, 0, &d);
		if (!s && d.errors == 0)
			abort();
		if (s) {
			if (d.errors != 0 || s->npoints != s->axis[0].n * (nargs == 2 ? s->axis[1].n : 1) ||
			    s->nvalid == 0)
				abort();
			for (size_t p = 0; p < s->npoints; p++) {
				const tb_sweep_point *pt = &s->points[p];
				if (!pt->valid) {
					if (!pt->why)
						abort();
					continue;
				}
				const tb_sweep_figures *f = &pt->f;
				S_finite(f->params);
				S_finite(f->flops);
				S_finite(f->memory_per_gpu_bytes);
				S_finite(f->seconds);
				S_finite(f->cost);
				S_finite(f->mfu);
				if (f->memory_per_gpu_bytes < 0 || f->capacity_bytes < 0)
					abort();
			}
			for (size_t c = 0; c < s->ncliffs; c++) {
				if (s->cliffs[c].at >= s->axis[0].n ||
				    (nargs == 2 && s->cliffs[c].row >= s->axis[1].n))
					abort();
				S_finite(s->cliffs[c].gain);
			}
		}
		bool drawn = s != NULL;
		tb_sweep_free(s);
		tb_diags_release(&d);
		if (drawn)
			S_draw(args, nargs);
	}
	free(arg);
	return 0;
}
