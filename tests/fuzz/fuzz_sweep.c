/* fuzz_sweep.c: libFuzzer target for --sweep arguments (sweep.c).
 *
 * The input is one argument.  Contract: tb_sweep_parse either fails with
 * exactly one error at a column inside the argument (or just past it), or
 * gives 2 to max distinct, non-empty values, each at a column inside the
 * argument.  A parsed argument of up to 16 values is then swept over the
 * built-in scenario: NULL with at least one error, or one point per value,
 * every figure of every valid point finite and no memory figure negative,
 * and every cliff at a value that exists.  A violation aborts. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/scenario.h"
#include "trainbudget/sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void S_finite(double v)
{
	if (!isfinite(v))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *arg = malloc(size + 1);
	if (!arg)
		return 0;
	memcpy(arg, data, size);
	arg[size] = '\0';
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
	bool sweep = rc == 0 && a.n <= 16;
	tb_sweep_axis_release(&a);
	tb_diags_release(&d);
	if (sweep) {
		tb_diags_init(&d);
		const char *text = tb_scenario_default_text();
		const char *args[1] = { arg };
		tb_sweep *s = tb_sweep_run(args, 1, "<builtin>", text, strlen(text), NULL, 0, &d);
		if (!s && d.errors == 0)
			abort();
		if (s) {
			if (d.errors != 0 || s->npoints != s->axis[0].n || s->nvalid == 0)
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
				if (s->cliffs[c].at >= s->axis[0].n)
					abort();
				S_finite(s->cliffs[c].gain);
			}
		}
		tb_sweep_free(s);
		tb_diags_release(&d);
	}
	free(arg);
	return 0;
}
