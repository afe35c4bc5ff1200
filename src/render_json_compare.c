/* render_json_compare.c: a sweep and a comparison as JSON, around the
 * budget's own document (render_json.c); the keys are docs/json.md's.
 * SI units as everywhere: a sweep's values are numbers when every value
 * is one (hardware.count, training.tokens), else the strings given. */
#include "trainbudget/render.h"

#include <string.h>

#include "json_write.h"
#include "trainbudget/compare.h"
#include "trainbudget/sweep.h"
#include "trainbudget/version.h"

static void S_value(tb_jw *j, const char *key, const tb_sweep_axis *ax, size_t i)
{
	if (ax->numeric)
		tb_jw_num(j, key, ax->x[i]);
	else
		tb_jw_str(j, key, ax->shown ? ax->shown[i] : ax->values[i]);
}

static void S_values(tb_jw *j, const tb_sweep_axis *ax)
{
	tb_jw_arr_inline(j, "values");
	for (size_t i = 0; i < ax->n; i++)
		S_value(j, NULL, ax, i);
	tb_jw_arr_end(j);
}

static void S_point(tb_jw *j, const tb_sweep *s, const tb_sweep_point *p)
{
	const tb_sweep_figures *f = &p->f;
	bool v = p->valid;
	tb_jw_obj(j, NULL);
	S_value(j, "value", &s->axis[0], p->i);
	if (s->naxes == 2)
		S_value(j, "value2", &s->axis[1], p->j);
	tb_jw_bool(j, "valid", v);
	tb_jw_str(j, "why", p->why);
	tb_jw_numk(j, "gpus", (double)f->gpus, v);
	tb_jw_numk(j, "parameters", f->params, v);
	tb_jw_numk(j, "tokens", f->tokens, v);
	tb_jw_numk(j, "flops", f->flops, v);
	tb_jw_numk(j, "memory_per_gpu_bytes", f->memory_per_gpu_bytes, v && f->activations_known);
	tb_jw_numk(j, "capacity_bytes", f->capacity_bytes, v);
	if (v && f->fits_known)
		tb_jw_bool(j, "fits", f->fits);
	else
		tb_jw_null(j, "fits");
	tb_jw_numk(j, "max_micro_batch", (double)f->max_micro_batch, v && f->activations_known);
	tb_jw_numk(j, "mfu_predicted", f->mfu_predicted, v && f->perf_known);
	tb_jw_numk(j, "step_s", f->step_s, v && f->perf_known);
	tb_jw_numk(j, "mfu", f->mfu, v);
	tb_jw_numk(j, "seconds_compute", f->seconds_compute, v && f->seconds_compute > 0);
	tb_jw_numk(j, "seconds", f->seconds, v && f->time_known);
	tb_jw_numk(j, "gpu_hours", f->gpu_hours, v && f->time_known);
	tb_jw_numk(j, "cost", f->cost, v && f->time_known);
	tb_jw_numk(j, "energy_kwh", f->energy_kwh, v && f->time_known);
	/* what the point prices (answer.h): the figures above are its */
	if (v && f->answer_decided) {
		const tb_plan_layout *l = &f->answer_layout;
		tb_jw_obj(j, "answer");
		tb_jw_obj(j, "layout");
		tb_render_json_layout_keys(j, l);
		tb_jw_obj_end(j);
		tb_jw_str(j, "layout_source", tb_layout_source_name(f->answer_source));
		tb_jw_bool(j, "runs", f->answer_runs);
		tb_jw_numk(j, "mfu", f->mfu, f->answer_runs && f->time_known);
		tb_jw_numk(j, "days", f->seconds / 86400, f->answer_runs && f->time_known);
		tb_jw_numk(j, "cost", f->cost, f->answer_runs && f->time_known);
		tb_jw_obj_end(j);
	} else {
		tb_jw_null(j, "answer");
	}
	tb_jw_numk(j, "goodput", f->goodput, v && f->seconds_compute > 0);
	if (v && f->has_deadline)
		tb_jw_bool(j, "meets_deadline", f->meets_deadline);
	else
		tb_jw_null(j, "meets_deadline");
	if (v && f->has_budget)
		tb_jw_bool(j, "within_budget", f->within_budget);
	else
		tb_jw_null(j, "within_budget");
	tb_jw_obj_end(j);
}

static void S_sweep(tb_jw *j, const tb_sweep *s)
{
	static const char *const kinds[] = {
		[TB_CLIFF_STOPS_FITTING] = "stops_fitting", [TB_CLIFF_STARTS_FITTING] = "starts_fitting",
		[TB_CLIFF_NEVER_FITS] = "never_fits", [TB_CLIFF_SCALING] = "scaling",
		[TB_CLIFF_NOT_VALID] = "not_valid",
	};
	tb_jw_obj(j, "sweep");
	tb_jw_str(j, "key", s->axis[0].key);
	S_values(j, &s->axis[0]);
	if (s->naxes == 2) {
		tb_jw_obj(j, "grid");
		tb_jw_str(j, "key", s->axis[1].key);
		S_values(j, &s->axis[1]);
		tb_jw_obj_end(j);
	} else {
		tb_jw_null(j, "grid");
	}
	tb_jw_arr(j, "points");
	for (size_t p = 0; p < s->npoints; p++)
		S_point(j, s, &s->points[p]);
	tb_jw_arr_end(j);
	tb_jw_arr(j, "cliffs");
	for (size_t c = 0; c < s->ncliffs; c++) {
		const tb_sweep_cliff *cl = &s->cliffs[c];
		tb_jw_obj(j, NULL);
		tb_jw_str(j, "kind", kinds[cl->kind]);
		if (cl->kind == TB_CLIFF_NEVER_FITS)
			tb_jw_null(j, "value");
		else
			S_value(j, "value", &s->axis[0], cl->at);
		if (s->naxes == 2)
			S_value(j, "value2", &s->axis[1], cl->row);
		tb_jw_numk(j, "gain", cl->gain, cl->kind == TB_CLIFF_SCALING);
		tb_buf t;
		tb_buf_init(&t);
		tb_sweep_cliff_words(s, cl, &t);
		tb_jw_str(j, "text", t.ptr);
		tb_buf_release(&t);
		tb_jw_obj_end(j);
	}
	tb_jw_arr_end(j);
	tb_jw_obj_end(j);
}

char *tb_render_json_sweep(const tb_scenario *sc, const tb_budget *b, const tb_sweep *sw)
{
	tb_buf out;
	tb_buf_init(&out);
	tb_jw j;
	memset(&j, 0, sizeof j);
	j.out = &out;
	tb_jw_obj(&j, NULL);
	tb_render_json_members(&j, sc, b);
	if (sw)
		S_sweep(&j, sw);
	tb_jw_obj_end(&j);
	tb_buf_putc(&out, '\n');
	return tb_buf_detach(&out, NULL);
}

static void S_bools(tb_jw *j, const char *key, const bool *v, size_t n)
{
	tb_jw_arr_inline(j, key);
	for (size_t i = 0; i < n; i++)
		tb_jw_bool(j, NULL, v[i]);
	tb_jw_arr_end(j);
}

/* The first proposal best at figure `figure`, by label; null when none is
 * (fewer than two known, or every one the same). */
static void S_best(tb_jw *j, const tb_compare *c, const char *key, const char *figure)
{
	const tb_compare_figure *f = tb_compare_figure_find(c, figure);
	for (size_t i = 0; f && i < c->n; i++)
		if (f->best[i]) {
			tb_jw_str(j, key, c->p[i].label);
			return;
		}
	tb_jw_null(j, key);
}

char *tb_render_json_compare(const tb_compare *c)
{
	static const char *const better[] = { "none", "lower", "higher" };
	tb_buf out;
	tb_buf_init(&out);
	tb_jw j;
	memset(&j, 0, sizeof j);
	j.out = &out;
	tb_jw_obj(&j, NULL);
	tb_jw_str(&j, "version", TB_VERSION);
	tb_jw_obj(&j, "comparison");
	tb_jw_num(&j, "count", (double)c->n);
	tb_jw_str(&j, "sha256", c->sha256);
	tb_jw_str(&j, "currency", c->currency);
	tb_jw_arr_inline(&j, "proposals");
	for (size_t i = 0; i < c->n; i++)
		tb_jw_str(&j, NULL, c->p[i].label);
	tb_jw_arr_end(&j);
	tb_jw_arr(&j, "inputs");
	for (size_t k = 0; k < c->ninputs; k++) {
		tb_jw_obj(&j, NULL);
		tb_jw_str(&j, "key", c->inputs[k].key);
		tb_jw_str(&j, "label", c->inputs[k].label);
		tb_jw_arr_inline(&j, "values");
		for (size_t i = 0; i < c->n; i++)
			tb_jw_str(&j, NULL, c->inputs[k].values[i]);
		tb_jw_arr_end(&j);
		tb_jw_obj_end(&j);
	}
	tb_jw_arr_end(&j);
	tb_jw_arr(&j, "figures");
	for (size_t k = 0; k < c->nfigures; k++) {
		const tb_compare_figure *f = &c->figures[k];
		tb_jw_obj(&j, NULL);
		tb_jw_str(&j, "key", f->key);
		tb_jw_str(&j, "label", f->label);
		tb_jw_str(&j, "better", better[f->better]);
		tb_jw_arr_inline(&j, "values");
		for (size_t i = 0; i < c->n; i++)
			tb_jw_numk(&j, NULL, f->v[i], f->known[i]);
		tb_jw_arr_end(&j);
		S_bools(&j, "best", f->best, c->n);
		tb_jw_arr_inline(&j, "delta");
		for (size_t i = 0; i < c->n; i++)
			tb_jw_numk(&j, NULL, f->delta[i], f->delta_known[i]);
		tb_jw_arr_end(&j);
		tb_jw_obj_end(&j);
	}
	tb_jw_arr_end(&j);
	tb_jw_obj_end(&j);
	/* the one answer of each proposal, and which is fastest and cheapest
	 * (a proposal that cannot run has no time or cost: never these) */
	tb_jw_obj(&j, "compare");
	S_best(&j, c, "fastest", "seconds");
	S_best(&j, c, "cheapest", "cost");
	tb_jw_arr(&j, "proposals");
	for (size_t i = 0; i < c->n; i++) {
		tb_jw_obj(&j, NULL);
		tb_jw_str(&j, "label", c->p[i].label);
		tb_render_json_answer(&j, c->p[i].sc, c->p[i].b);
		tb_jw_obj_end(&j);
	}
	tb_jw_arr_end(&j);
	tb_jw_obj_end(&j);
	tb_jw_arr(&j, "proposals");
	for (size_t i = 0; i < c->n; i++) {
		tb_jw_obj(&j, NULL);
		tb_jw_str(&j, "label", c->p[i].label);
		/* as published: never where the user's files live */
		tb_jw_str(&j, "path", c->p[i].sc->signoff.nfiles ? c->p[i].sc->signoff.files[0].path
		                                                   : NULL);
		tb_render_json_members(&j, c->p[i].sc, c->p[i].b);
		if (c->p[i].sweep)
			S_sweep(&j, c->p[i].sweep);
		tb_jw_obj_end(&j);
	}
	tb_jw_arr_end(&j);
	tb_jw_obj_end(&j);
	tb_buf_putc(&out, '\n');
	return tb_buf_detach(&out, NULL);
}
