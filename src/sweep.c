/* sweep.c: a scenario priced over the values of one setting or a grid of
 * two (sweep.h).  Each point goes through tb_scenario_load_source (the file
 * parsed and hashed once) with the point's KEY=VALUE after the user's --set
 * overrides, then tb_budget_compute as written (whether it runs so) and
 * tb_budget_compute_answer: the layout estimate would price, and its
 * simulated runs, so that a point's "expected" is estimate's mean (4,096
 * draws, about 0.3 ms a point: 77 ms for the largest grid, 256 points).
 *
 * Errors a point's value causes are moved from "<--set>" to the --sweep
 * argument it came from, at the column of the value, and said once each. */
#include "trainbudget/sweep.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/budget.h"
#include "trainbudget/scenario.h"
#include "trainbudget/signoff.h"
#include "trainbudget/units.h"
#include "trainbudget/xalloc.h"

#include "pool.h"

#define S_SRC "<--sweep>"

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static char *S_strf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tb_buf b;
	tb_buf_init(&b);
	tb_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	return tb_buf_detach(&b, NULL);
}

static void S_err(tb_diags *d, const char *arg, size_t col, const char *msg)
{
	tb_diags_add(d, TB_DIAG_ERROR, S_SRC, arg, strlen(arg), 1, col, "%s", msg);
}

/* ---- parsing an argument ----------------------------------------------- */

static void S_push(tb_sweep_axis *a, const char *v, size_t len, size_t col, size_t *cap)
{
	if (a->n == *cap) {
		*cap = *cap ? *cap * 2 : 8;
		a->values = tb_xrealloc(a->values, *cap * sizeof *a->values);
		a->cols = tb_xrealloc(a->cols, *cap * sizeof *a->cols);
	}
	a->values[a->n] = tb_xstrndup(v, len);
	a->cols[a->n++] = col;
}

/* A suffix a range keeps on every value it makes: 1T..4T:x2 gives 1T, 2T,
 * 4T, which the scenario reads as it reads the ends. */
typedef struct S_suffix {
	const char *text;
	double scale;
} S_suffix;

static const S_suffix S_suffixes[] = {
	{ "k", 1e3 }, { "K", 1e3 }, { "M", 1e6 }, { "B", 1e9 }, { "T", 1e12 }, { "%", 1e-2 },
};

/* Reads a range end or step: a number with at most one suffix above.
 * Returns false when it is not one. */
static bool S_number(const char *s, size_t len, double *v, const S_suffix **suf)
{
	char buf[64];
	if (len == 0 || len >= sizeof buf)
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	*suf = NULL;
	for (size_t k = 0; k < sizeof S_suffixes / sizeof *S_suffixes; k++) {
		size_t sl = strlen(S_suffixes[k].text);
		if (len > sl && strcmp(buf + len - sl, S_suffixes[k].text) == 0) {
			*suf = &S_suffixes[k];
			buf[len - sl] = '\0';
			break;
		}
	}
	char *end;
	double x = strtod(buf, &end);
	if (end == buf || *end || !isfinite(x) || !(buf[0] == '.' || (buf[0] >= '0' && buf[0] <= '9')))
		return false;
	*v = *suf ? x * (*suf)->scale : x;
	return isfinite(*v);
}

/* The shortest decimal that reads back as v / scale, with the suffix. */
static void S_format(char *out, size_t cap, double v, const S_suffix *suf)
{
	double x = suf ? v / suf->scale : v;
	char s[40];
	if (x == floor(x) && fabs(x) < 1e15) {
		/* a whole number as digits: 100000, not 1e+05 */
		snprintf(out, cap, "%.0f%s", x, suf ? suf->text : "");
		return;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(s, sizeof s, "%.*g", prec, x);
		if (fabs(strtod(s, NULL) - x) <= fabs(x) * 1e-12)
			break;
	}
	snprintf(out, cap, "%s%s", s, suf ? suf->text : "");
}

/* FROM..TO, FROM..TO:STEP or FROM..TO:xF at `vcol` of arg. */
static int S_range(tb_sweep_axis *a, const char *v, size_t vcol, size_t max, size_t *cap,
                   tb_diags *d)
{
	const char *dots = strstr(v, "..");
	const char *colon = strchr(dots + 2, ':');
	size_t tolen = colon ? (size_t)(colon - dots - 2) : strlen(dots + 2);
	double from, to, step = 1, factor = 0;
	const S_suffix *sf, *st, *ss = NULL;
	if (!S_number(v, (size_t)(dots - v), &from, &sf)) {
		S_err(d, a->arg, vcol, "the range's start is not a number; expected FROM..TO such as "
		      "1..8, 64..4096:x2 or 1T..4T:1T");
		return -1;
	}
	size_t tocol = vcol + (size_t)(dots - v) + 2;
	if (!S_number(dots + 2, tolen, &to, &st)) {
		S_err(d, a->arg, tocol, "the range's end is not a number; expected FROM..TO such as "
		      "1..8, 64..4096:x2 or 1T..4T:1T");
		return -1;
	}
	if (colon) {
		size_t scol = tocol + tolen + 1;
		const char *sp = colon + 1;
		if (*sp == 'x') {
			const S_suffix *none;
			if (!S_number(sp + 1, strlen(sp + 1), &factor, &none) || none || !(factor > 1)) {
				S_err(d, a->arg, scol, "the range's factor is not a number above 1; "
				      "expected :xF such as :x2 (each value twice the one before)");
				return -1;
			}
		} else if (!S_number(sp, strlen(sp), &step, &ss) || !(step > 0)) {
			S_err(d, a->arg, scol, "the range's step is not a number above 0; expected :STEP "
			      "such as :2, or :xF such as :x2");
			return -1;
		}
	}
	if (!(to > from)) {
		S_err(d, a->arg, vcol, "the range is empty or reversed; expected FROM..TO with FROM "
		      "below TO");
		return -1;
	}
	if (factor > 0 && !(from > 0)) {
		S_err(d, a->arg, vcol, "a range of doublings starts at 0; expected FROM above 0");
		return -1;
	}
	/* The printed form keeps the ends' unit: FROM's, else TO's, else the
	 * step's. */
	const S_suffix *suf = sf ? sf : st ? st : ss;
	double x = from;
	for (size_t i = 0; x <= to * (1 + 1e-12) + 1e-300; i++) {
		if (a->n >= max) {
			char msg[160];
			snprintf(msg, sizeof msg, "the range makes more than %zu values; expected at most "
			         "%zu (a larger step, or :x2)", max, max);
			S_err(d, a->arg, vcol, msg);
			return -1;
		}
		char buf[64];
		S_format(buf, sizeof buf, x, suf);
		S_push(a, buf, strlen(buf), vcol, cap);
		x = factor > 0 ? x * factor : from + (double)(i + 1) * step;
		if (!isfinite(x))
			break;
	}
	return 0;
}

int tb_sweep_parse(const char *arg, size_t max, tb_sweep_axis *out, tb_diags *d)
{
	memset(out, 0, sizeof *out);
	out->arg = tb_xstrdup(arg ? arg : "");
	const char *s = out->arg;
	const char *eq = strchr(s, '=');
	if (!eq || eq == s) {
		S_err(d, s, 1, "--sweep has no KEY=VALUES; expected e.g. --sweep hardware.count=64..1024:x2 "
		      "or --sweep training.micro_batch=1,2,4,8");
		return -1;
	}
	out->key = tb_xstrndup(s, (size_t)(eq - s));
	const char *v = eq + 1;
	size_t vcol = (size_t)(v - s) + 1;
	if (!*v) {
		S_err(d, s, vcol, "--sweep has no values; expected KEY=V1,V2,... or KEY=FROM..TO");
		return -1;
	}
	size_t cap = 0;
	if (strstr(v, "..") && !strpbrk(v, ",[]{}\"'")) {
		if (S_range(out, v, vcol, max, &cap, d) != 0)
			return -1;
	} else {
		/* V1,V2,...: commas inside [ ], { } or quotes belong to a value
		 * ("hardware.mfu=[0.3,0.4],[0.4,0.5]"). */
		int depth = 0;
		char quote = 0;
		const char *start = v;
		for (const char *p = v;; p++) {
			if (quote) {
				if (*p == quote)
					quote = 0;
				else if (!*p)
					break;
				continue;
			}
			if (*p == '"' || *p == '\'')
				quote = *p;
			else if (*p == '[' || *p == '{')
				depth++;
			else if ((*p == ']' || *p == '}') && depth > 0)
				depth--;
			if ((*p == ',' && depth == 0) || !*p) {
				size_t col = (size_t)(start - s) + 1;
				if (p == start) {
					S_err(d, s, col, "an empty value in --sweep; expected values separated "
					      "by single commas");
					return -1;
				}
				if (out->n >= max) {
					char msg[160];
					snprintf(msg, sizeof msg, "--sweep lists more than %zu values; expected "
					         "at most %zu", max, max);
					S_err(d, s, col, msg);
					return -1;
				}
				S_push(out, start, (size_t)(p - start), col, &cap);
				if (!*p)
					break;
				start = p + 1;
			}
		}
		if (quote) {
			S_err(d, s, vcol, "an unterminated quote in --sweep; expected a closing quote");
			return -1;
		}
	}
	if (out->n < 2) {
		S_err(d, s, vcol, "--sweep has one value; expected two or more to compare");
		return -1;
	}
	for (size_t i = 0; i < out->n; i++)
		for (size_t k = 0; k < i; k++)
			if (strcmp(out->values[i], out->values[k]) == 0) {
				char msg[200];
				snprintf(msg, sizeof msg, "--sweep lists '%.60s' twice; expected each value once",
				         out->values[i]);
				S_err(d, s, out->cols[i], msg);
				return -1;
			}
	out->x = tb_xcalloc(out->n, sizeof *out->x);
	out->shown = tb_xcalloc(out->n, sizeof *out->shown);
	bool paths = strcmp(out->key, "model.hf_config") == 0;
	for (size_t i = 0; i < out->n; i++)
		out->x[i] = NAN;
	/* a report never publishes where the author's files sit, yet two
	 * configs of one name are two points: tb_signoff_paths tells them apart */
	if (paths)
		tb_signoff_paths(out->shown, (const char *const *)out->values, out->n);
	else
		for (size_t i = 0; i < out->n; i++)
			out->shown[i] = tb_xstrdup(out->values[i]);
	return 0;
}

void tb_sweep_axis_release(tb_sweep_axis *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->n; i++) {
		free(a->values[i]);
		if (a->shown)
			free(a->shown[i]);
	}
	free(a->values);
	free(a->shown);
	free(a->cols);
	free(a->x);
	free(a->arg);
	free(a->key);
	memset(a, 0, sizeof *a);
}

/* ---- the value as a number -------------------------------------------- */

/* What the loaded scenario holds for the keys a sweep is usually over, so
 * the axis shows the value priced (a deadline in days). */
static bool S_known_x(const char *key, const tb_inputs *in, double *x)
{
	static const struct { const char *key; int which; } keys[] = {
		{ "hardware.count", 0 }, { "training.micro_batch", 1 }, { "training.seq_len", 2 },
		{ "training.global_batch", 3 }, { "training.tokens", 4 }, { "parallelism.tensor", 5 },
		{ "parallelism.pipeline", 6 }, { "parallelism.context", 7 }, { "parallelism.expert", 8 },
		{ "parallelism.virtual_pipeline", 9 }, { "parallelism.zero", 10 }, { "hardware.mfu", 11 },
		{ "hardware.price_per_gpu_hour", 12 }, { "plan.deadline", 13 }, { "plan.budget", 14 },
	};
	for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
		if (strcmp(keys[k].key, key) != 0)
			continue;
		switch (keys[k].which) {
		case 0: *x = (double)in->hardware.count; return true;
		case 1: *x = (double)in->training.micro_batch; return true;
		case 2: *x = (double)in->training.seq_len; return true;
		case 3: *x = (double)in->training.global_batch; return true;
		case 4: *x = in->training.tokens; return true;
		case 5: *x = (double)in->parallelism.tensor; return true;
		case 6: *x = (double)in->parallelism.pipeline; return true;
		case 7: *x = (double)(in->parallelism.context ? in->parallelism.context : 1); return true;
		case 8: *x = (double)in->parallelism.expert; return true;
		case 9: *x = (double)(in->parallelism.virtual_pipeline ? in->parallelism.virtual_pipeline : 1);
			return true;
		case 10: *x = in->parallelism.zero; return true;
		case 11: *x = in->hardware.mfu[1]; return true;
		case 12: *x = in->hardware.price_per_gpu_hour; return true;
		case 13: *x = in->plan.deadline_s / 86400; return true;
		case 14: *x = in->plan.budget; return true;
		}
	}
	return false;
}

static double S_text_x(const char *v)
{
	double x;
	if (tb_units_parse_count(v, &x) == TB_UNITS_OK)
		return x;
	if (tb_units_parse_fraction(v, &x) == TB_UNITS_OK)
		return x;
	return NAN;
}

/* ---- pricing the points ------------------------------------------------ */

static void S_figures(const tb_inputs *in, const tb_budget *b, tb_sweep_figures *f)
{
	memset(f, 0, sizeof *f);
	f->gpus = in->hardware.count;
	f->params = b->params.total;
	f->tokens = in->training.tokens;
	f->flops = b->flops.total_model;
	f->memory_per_gpu_bytes = b->memory.per_gpu.total;
	f->capacity_bytes = b->memory.capacity_bytes;
	f->fits = b->memory.fits;
	f->fits_known = b->memory.fits_known;
	f->activations_known = b->memory.activations_known;
	f->max_micro_batch = b->memory.max_micro_batch;
	f->perf_known = b->perf.known;
	f->mfu_predicted = b->perf.known ? b->perf.r.mfu : 0;
	f->step_s = b->perf.known ? b->perf.r.step_s : 0;
	f->mfu = b->time.mfu[1];
	f->seconds_compute = b->time.known ? b->time.seconds[1] : 0;
	tb_expected x = tb_budget_expected(b);
	f->time_known = x.known;
	f->seconds = x.seconds;
	f->gpu_hours = x.gpu_hours;
	f->cost = x.cost;
	f->energy_kwh = x.energy_kwh;
	f->goodput = b->goodput.fraction;
	f->has_deadline = b->time.has_deadline;
	f->meets_deadline = f->time_known && b->time.has_deadline &&
	                    tb_budget_verdict(b, true) != TB_VERDICT_NO;
	f->deadline_s = b->time.deadline_s;
	f->has_budget = b->time.has_budget;
	f->within_budget = f->time_known && b->time.has_budget &&
	                    tb_budget_verdict(b, false) != TB_VERDICT_NO;
	f->budget = b->time.budget;
}

/* The point priced as estimate prices it (answer.h), its expected time
 * and cost the same mean of simulated runs: the fit and the memory are the
 * answer's too, except where the answer replaced written keys that do not
 * run, where they stay the point's as written (the memory line and the
 * cliffs say where a written value stops fitting); nothing is priced where
 * nothing runs. */
static void S_answer(const tb_inputs *in, tb_budget *b, tb_sweep_figures *f)
{
	tb_sweep_figures w = *f;        /* the point as written */
	tb_inputs priced;
	tb_budget_compute_answer(in, &priced, b);
	const tb_answer *a = &b->answer;
	S_figures(&priced, b, f);
	if (!a->decided)
		return;                 /* priced as written */
	f->answer_decided = true;
	f->answer_runs = a->runs;
	f->answer_source = a->source;
	f->answer_layout = a->runs ? a->layout : a->written;
	if (!a->runs || a->source == TB_LAYOUT_REPLACED) {
		f->memory_per_gpu_bytes = w.memory_per_gpu_bytes;
		f->max_micro_batch = w.max_micro_batch;
		f->fits = a->written_runs;
		f->fits_known = true;
	}
	if (!a->runs) {
		f->time_known = false;
		f->seconds = f->seconds_compute = f->gpu_hours = f->cost = f->energy_kwh = 0;
		f->meets_deadline = f->within_budget = false;
	}
}

/* The first error of a load, by arrival: the point's reason. */
static const tb_diag *S_first_error(const tb_diags *d)
{
	const tb_diag *best = NULL;
	for (size_t i = 0; i < d->n; i++)
		if (d->items[i].level == TB_DIAG_ERROR && (!best || d->items[i].seq < best->seq))
			best = &d->items[i];
	return best;
}

typedef struct S_run {
	tb_sweep *s;
	char *setv[2];          /* "KEY=VALUE" of the point, per axis */
	size_t vi[2];
	tb_diags *d;
	/* errors already said, as "AXIS:VALUE:COL:MSG", so a bad value in a
	 * grid is reported once, not once per row */
	char **said;
	size_t nsaid, said_cap;
} S_run;

static bool S_said(S_run *r, const char *what)
{
	for (size_t i = 0; i < r->nsaid; i++)
		if (strcmp(r->said[i], what) == 0)
			return true;
	if (r->nsaid == r->said_cap) {
		r->said_cap = r->said_cap ? r->said_cap * 2 : 16;
		r->said = tb_xrealloc(r->said, r->said_cap * sizeof *r->said);
	}
	r->said[r->nsaid++] = tb_xstrdup(what);
	return false;
}

/* Moves a point's errors into the run's diagnostics: those at "<--set>"
 * on one of the point's own KEY=VALUE strings go to the --sweep argument
 * (the key's column, or the value's); the rest stay where they were. */
static void S_relocate(S_run *r, const tb_diags *pd)
{
	/* in arrival order, as the loader found them */
	const tb_diag **v = tb_xcalloc(pd->n ? pd->n : 1, sizeof *v);
	for (size_t i = 0; i < pd->n; i++)
		v[i] = &pd->items[i];
	for (size_t i = 1; i < pd->n; i++)
		for (size_t k = i; k > 0 && v[k]->seq < v[k - 1]->seq; k--) {
			const tb_diag *t = v[k];
			v[k] = v[k - 1];
			v[k - 1] = t;
		}
	for (size_t i = 0; i < pd->n; i++) {
		const tb_diag *g = v[i];
		if (g->level != TB_DIAG_ERROR)
			continue;
		int axis = -1;
		if (g->file && strcmp(g->file, "<--set>") == 0 && g->source_line)
			for (int a = 0; a < (int)r->s->naxes; a++)
				if (strstr(g->source_line, r->setv[a]))
					axis = a;
		char *key;
		if (axis < 0) {
			key = S_strf("-:%s:%zu:%zu:%s", g->file ? g->file : "", g->line, g->col, g->msg);
			if (!S_said(r, key))
				tb_diags_add(r->d, TB_DIAG_ERROR, g->file ? g->file : S_SRC, NULL, 0, g->line,
				             g->col, "%s", g->msg);
			free(key);
			continue;
		}
		const tb_sweep_axis *ax = &r->s->axis[axis];
		size_t klen = strlen(ax->key) + 1;
		size_t col = g->col <= klen ? g->col : ax->cols[r->vi[axis]];
		/* a value written in the argument: the column inside it */
		if (g->col > klen) {
			const char *val = ax->values[r->vi[axis]];
			size_t at = ax->cols[r->vi[axis]] - 1;
			if (strncmp(ax->arg + at, val, strlen(val)) == 0 && g->col - klen - 1 < strlen(val))
				col = at + 1 + (g->col - klen - 1);
		}
		key = S_strf("%d:%zu:%s", axis, col, g->msg);
		if (!S_said(r, key))
			S_err(r->d, ax->arg, col, g->msg);
		free(key);
	}
	free(v);
}

/* What one point found that the sweep merges in order: its load's
 * diagnostics and status, the config.json files it read, where it puts
 * its values on the axes, its currency. */
typedef struct S_point_out {
	char *setv[2];          /* "KEY=VALUE" of the point, per axis */
	tb_diags pd;
	tb_scenario_status status;
	struct {
		tb_input_kind kind;
		char *read_as;
		char sha256[65];
	} hashes[TB_SIGNOFF_MAX_FILES];
	size_t nhashes;
	double x[2];
	bool has_x[2];
	char currency[8];
} S_point_out;

static void S_point_out_release(S_point_out *o, size_t naxes)
{
	for (size_t a = 0; a < naxes; a++)
		free(o->setv[a]);
	for (size_t h = 0; h < o->nhashes; h++)
		free(o->hashes[h].read_as);
	tb_diags_release(&o->pd);
}

/* What every point reads. */
typedef struct S_pool {
	tb_sweep *s;
	const tb_scenario_source *src;
	const char *const *sets;
	size_t nsets;
	const tb_calib *calib;
	S_point_out *outs;
} S_pool;

/* Prices point k into its own slot: nothing shared is written
 * (tb_pool_for). */
static void S_point(void *ctx, size_t k)
{
	S_pool *pl = ctx;
	tb_sweep *s = pl->s;
	size_t nargs = s->naxes, n1 = nargs == 2 ? s->axis[1].n : 1;
	size_t i = k / n1, j = k % n1;
	tb_sweep_point *p = &s->points[k];
	S_point_out *o = &pl->outs[k];
	p->i = i;
	p->j = j;
	const char **all = tb_xcalloc(pl->nsets + 2, sizeof *all);
	for (size_t m = 0; m < pl->nsets; m++)
		all[m] = pl->sets[m];
	for (size_t a = 0; a < nargs; a++) {
		o->setv[a] = S_strf("%s=%s", s->axis[a].key, s->axis[a].values[a ? j : i]);
		all[pl->nsets + a] = o->setv[a];
	}
	tb_diags_init(&o->pd);
	tb_scenario *sc = tb_scenario_load_source(pl->src, all, pl->nsets + nargs, &o->pd,
	                                          &o->status);
	free(all);
	if (sc) {
		for (size_t f = 0; f < sc->signoff.nfiles; f++) {
			const tb_input_file *in = &sc->signoff.files[f];
			if (in->kind != TB_INPUT_HF_CONFIG)
				continue;
			o->hashes[o->nhashes].kind = in->kind;
			o->hashes[o->nhashes].read_as = tb_xstrdup(in->read_as);
			memcpy(o->hashes[o->nhashes].sha256, in->sha256, sizeof in->sha256);
			o->nhashes++;
		}
		if (pl->calib)
			sc->inputs.calib = *pl->calib;
		tb_budget *b = tb_xmalloc(sizeof *b);
		tb_budget_compute(&sc->inputs, b);
		S_figures(&sc->inputs, b, &p->f);
		S_answer(&sc->inputs, b, &p->f);
		p->valid = true;
		snprintf(o->currency, sizeof o->currency, "%s",
		         b->time.currency[0] ? b->time.currency : sc->inputs.hardware.currency);
		for (size_t a = 0; a < nargs; a++)
			o->has_x[a] = S_known_x(s->axis[a].key, &sc->inputs, &o->x[a]);
		free(b);
	}
	tb_scenario_free(sc);
}

static void S_cliffs(tb_sweep *s);

tb_sweep *tb_sweep_run(const char *const *args, size_t nargs, const char *path,
                       const char *text, size_t len, const char *const *sets,
                       size_t nsets, tb_diags *d)
{
	return tb_sweep_run_calibrated(args, nargs, path, text, len, sets, nsets, NULL, d);
}

tb_sweep *tb_sweep_run_calibrated(const char *const *args, size_t nargs, const char *path,
                                  const char *text, size_t len, const char *const *sets,
                                  size_t nsets, const tb_calib *calib, tb_diags *d)
{
	size_t errors0 = d->errors;
	if (nargs == 0)
		return NULL;
	if (nargs > 2) {
		S_err(d, args[2], 1, "a third --sweep; expected one setting, or two for a grid");
		return NULL;
	}
	tb_sweep *s = tb_xcalloc(1, sizeof *s);
	s->naxes = nargs;
	size_t max = nargs == 1 ? TB_SWEEP_MAX_VALUES : TB_SWEEP_MAX_GRID;
	for (size_t a = 0; a < nargs; a++)
		if (tb_sweep_parse(args[a], max, &s->axis[a], d) != 0) {
			tb_sweep_free(s);
			return NULL;
		}
	if (nargs == 2 && strcmp(s->axis[0].key, s->axis[1].key) == 0) {
		S_err(d, s->axis[1].arg, 1, "the second --sweep varies the same key as the first; "
		      "expected two different settings for a grid");
		tb_sweep_free(s);
		return NULL;
	}
	size_t n0 = s->axis[0].n, n1 = nargs == 2 ? s->axis[1].n : 1;
	s->npoints = n0 * n1;
	s->points = tb_xcalloc(s->npoints, sizeof *s->points);

	S_run r;
	memset(&r, 0, sizeof r);
	r.s = s;
	r.d = d;
	bool numeric[2] = { true, true };
	/* parsed and hashed once: 128 points of a 4 MiB file once took as
	 * many parses and twice as many hashes */
	tb_scenario_source *src = tb_scenario_source_new(path, text, len);
	/* the points on the cores (tb_pool_for), then what they found merged
	 * in the points' order, so that the sweep is the same bytes whatever
	 * the number of threads */
	S_point_out *outs = tb_xcalloc(s->npoints, sizeof *outs);
	S_pool pool = { s, src, sets, nsets, calib, outs };
	tb_pool_for(s->npoints, S_point, &pool);
	for (size_t k = 0; k < s->npoints; k++) {
		tb_sweep_point *p = &s->points[k];
		S_point_out *o = &outs[k];
		r.vi[0] = p->i;
		r.vi[1] = p->j;
		for (size_t a = 0; a < nargs; a++)
			r.setv[a] = o->setv[a];
		if (p->valid) {
			for (size_t h = 0; h < o->nhashes; h++)
				if (!tb_signoff_add_hash(&s->inputs, o->hashes[h].kind, o->hashes[h].read_as,
				                         o->hashes[h].sha256))
					s->inputs_changed = true;
			s->nvalid++;
			if (!s->currency[0])
				snprintf(s->currency, sizeof s->currency, "%s", o->currency);
			for (size_t a = 0; a < nargs; a++)
				if (o->has_x[a])
					s->axis[a].x[a ? p->j : p->i] = o->x[a];
		} else if (o->status == TB_SCENARIO_INCONSISTENT) {
			const tb_diag *g = S_first_error(&o->pd);
			p->why = tb_xstrdup(g && g->msg ? g->msg : "the scenario refuses this value");
		} else {
			S_relocate(&r, &o->pd);
		}
		S_point_out_release(o, nargs);
	}
	free(outs);
	for (size_t a = 0; a < nargs; a++) {
		for (size_t i = 0; i < s->axis[a].n; i++) {
			if (!isfinite(s->axis[a].x[i]))
				s->axis[a].x[i] = S_text_x(s->axis[a].values[i]);
			if (!isfinite(s->axis[a].x[i]))
				numeric[a] = false;
		}
		s->axis[a].numeric = numeric[a];
	}
	tb_scenario_source_free(src);
	for (size_t k = 0; k < r.nsaid; k++)
		free(r.said[k]);
	free(r.said);
	if (d->errors == errors0 && s->nvalid == 0) {
		tb_buf m;
		tb_buf_init(&m);
		tb_buf_printf(&m, "no value of %s gives a scenario that can be priced (at %s: %s); "
		              "expected at least one the scenario accepts", s->axis[0].key,
		              s->axis[0].values[0], s->points[0].why ? s->points[0].why : "refused");
		S_err(d, s->axis[0].arg, strlen(s->axis[0].key) + 2, m.ptr);
		tb_buf_release(&m);
	}
	if (d->errors > errors0) {
		tb_sweep_free(s);
		return NULL;
	}
	S_cliffs(s);
	return s;
}

void tb_sweep_free(tb_sweep *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->npoints; i++)
		free(s->points[i].why);
	free(s->points);
	for (size_t a = 0; a < 2; a++)
		tb_sweep_axis_release(&s->axis[a]);
	tb_signoff_release(&s->inputs);
	free(s);
}

const tb_sweep_point *tb_sweep_at(const tb_sweep *s, size_t i, size_t j)
{
	if (!s)
		return NULL;
	size_t n1 = s->naxes == 2 ? s->axis[1].n : 1;
	if (i >= s->axis[0].n || j >= n1)
		return NULL;
	return &s->points[i * n1 + j];
}

/* ---- cliffs -------------------------------------------------------------- */

static void S_add_cliff(tb_sweep *s, tb_cliff_kind kind, size_t at, size_t row, double gain)
{
	if (s->ncliffs >= TB_SWEEP_CLIFFS_MAX)
		return;
	tb_sweep_cliff *c = &s->cliffs[s->ncliffs++];
	c->kind = kind;
	c->at = at;
	c->row = row;
	c->gain = gain;
}

/* The fit answer of a point: 1 yes, 0 no, -1 no answer (not valid, or a
 * count-only model whose activations are unknown). */
static int S_fit(const tb_sweep_point *p)
{
	if (!p || !p->valid || !p->f.fits_known)
		return -1;
	return p->f.fits ? 1 : 0;
}

/* Speed-up per doubling between two points of a GPU-count sweep: ideal
 * scaling (time halves when the count doubles) is 1.0, i.e. 100%. */
static bool S_gain(const tb_sweep_point *a, const tb_sweep_point *b, double *gain)
{
	if (!a->valid || !b->valid || !a->f.time_known || !b->f.time_known)
		return false;
	double na = (double)a->f.gpus, nb = (double)b->f.gpus;
	if (!(nb > na) || !(a->f.seconds > 0) || !(b->f.seconds > 0))
		return false;
	*gain = pow(a->f.seconds / b->f.seconds, 1 / log2(nb / na)) - 1;
	return isfinite(*gain);
}

/* Along axis 0, for each value of axis 1: where the fit answer changes,
 * and, over GPU counts, from where every doubling buys too little. */
static void S_cliffs(tb_sweep *s)
{
	size_t n0 = s->axis[0].n, n1 = s->naxes == 2 ? s->axis[1].n : 1;
	bool gpus = strcmp(s->axis[0].key, "hardware.count") == 0;
	for (size_t j = 0; j < n1; j++) {
		int prev = -1;
		bool any_fit = false, any_answer = false;
		for (size_t i = 0; i < n0; i++) {
			int f = S_fit(tb_sweep_at(s, i, j));
			if (f < 0)
				continue;
			any_answer = true;
			any_fit |= f == 1;
			if (prev >= 0 && f != prev)
				S_add_cliff(s, f ? TB_CLIFF_STARTS_FITTING : TB_CLIFF_STOPS_FITTING, i, j, 0);
			prev = f;
		}
		if (any_answer && !any_fit)
			S_add_cliff(s, TB_CLIFF_NEVER_FITS, 0, j, 0);
		/* valid up to a value and refused from it to the end: the plan
		 * cannot be laid out past there (a batch that no longer splits) */
		size_t last_valid = n0;
		for (size_t i = 0; i < n0; i++)
			if (tb_sweep_at(s, i, j)->valid)
				last_valid = i;
		if (last_valid + 1 < n0 && !tb_sweep_at(s, last_valid + 1, j)->valid)
			S_add_cliff(s, TB_CLIFF_NOT_VALID, last_valid + 1, j, 0);
		if (!gpus)
			continue;
		/* the first pair from which no pair gains TB_SWEEP_DOUBLING_GAIN */
		size_t from = n0;
		double best = 0;
		bool seen = false;
		for (size_t i = n0; i-- > 1;) {
			const tb_sweep_point *a = tb_sweep_at(s, i - 1, j), *b = tb_sweep_at(s, i, j);
			double g;
			if (!S_gain(a, b, &g))
				continue;
			if (g >= TB_SWEEP_DOUBLING_GAIN)
				break;
			from = i - 1;
			best = seen ? fmax(best, g) : g;
			seen = true;
		}
		if (seen)
			S_add_cliff(s, TB_CLIFF_SCALING, from, j, best);
	}
}

bool tb_sweep_add_inputs(const tb_sweep *sw, tb_scenario *sc, const char *const *sweeps,
                         size_t nsweeps, const char *where, tb_diags *d)
{
	tb_scenario_set_sweeps(sc, sweeps, nsweeps);
	bool ok = !sw->inputs_changed;
	for (size_t i = 0; ok && i < sw->inputs.nfiles; i++) {
		const tb_input_file *f = &sw->inputs.files[i];
		ok = tb_scenario_add_input_hash(sc, f->kind, f->read_as, f->sha256);
	}
	if (!ok)
		tb_diags_add(d, TB_DIAG_ERROR, where, NULL, 0, 0, 0,
		             "a config.json the sweep read changed while it ran (or the sweep read "
		             "more than %d of them); expected the same files throughout, so the "
		             "hash printed covers what was priced", TB_SIGNOFF_MAX_FILES - 2);
	return ok;
}
