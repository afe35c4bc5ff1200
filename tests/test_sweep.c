/* test_sweep.c: sweeps (sweep.c, sweep_text.c).  What is pinned is known
 * apart from the sweep code: the values a range spells out, the columns of
 * an argument, and the memory model's and the budget's own answers for
 * each value, which a sweep must repeat rather than re-derive (the cliff
 * "does not fit from micro_batch 6" is where tb_budget_compute of that
 * scenario says it stops fitting, and 6 = its memory.max_micro_batch + 1). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/budget.h"
#include "trainbudget/fileio.h"
#include "trainbudget/plan.h"
#include "trainbudget/scenario.h"
#include "trainbudget/sweep.h"

/* ---- parsing ------------------------------------------------------------- */

static void S_values_are(const tb_sweep_axis *a, const char *const *want, size_t n)
{
	cr_assert_eq(a->n, n, "%zu values, expected %zu", a->n, n);
	for (size_t i = 0; i < n; i++)
		cr_expect_str_eq(a->values[i], want[i]);
}

Test(sweep, a_list_keeps_its_values_and_their_columns)
{
	tb_diags d;
	tb_diags_init(&d);
	tb_sweep_axis a;
	cr_assert_eq(tb_sweep_parse("hardware.gpu=h100-sxm,a100-80gb,b200", 128, &a, &d), 0);
	cr_expect_str_eq(a.key, "hardware.gpu");
	static const char *const want[] = { "h100-sxm", "a100-80gb", "b200" };
	S_values_are(&a, want, 3);
	/* "hardware.gpu=" is 13 characters: the first value is at column 14 */
	cr_expect_eq(a.cols[0], 14);
	cr_expect_eq(a.cols[1], 23);
	cr_expect_eq(a.cols[2], 33);
	tb_sweep_axis_release(&a);
	/* commas inside brackets belong to the value */
	cr_assert_eq(tb_sweep_parse("hardware.mfu=[0.3,0.4],[0.4,0.5]", 128, &a, &d), 0);
	static const char *const mfu[] = { "[0.3,0.4]", "[0.4,0.5]" };
	S_values_are(&a, mfu, 2);
	tb_sweep_axis_release(&a);
	cr_expect_eq(d.errors, 0);
	tb_diags_release(&d);
}

Test(sweep, ranges_step_double_and_keep_their_unit)
{
	tb_diags d;
	tb_diags_init(&d);
	tb_sweep_axis a;
	cr_assert_eq(tb_sweep_parse("training.micro_batch=1..8", 128, &a, &d), 0);
	static const char *const one[] = { "1", "2", "3", "4", "5", "6", "7", "8" };
	S_values_are(&a, one, 8);
	tb_sweep_axis_release(&a);
	cr_assert_eq(tb_sweep_parse("hardware.count=64..4096:x2", 128, &a, &d), 0);
	static const char *const dbl[] = { "64", "128", "256", "512", "1024", "2048", "4096" };
	S_values_are(&a, dbl, 7);
	tb_sweep_axis_release(&a);
	cr_assert_eq(tb_sweep_parse("training.seq_len=1024..4096:1024", 128, &a, &d), 0);
	static const char *const step[] = { "1024", "2048", "3072", "4096" };
	S_values_are(&a, step, 4);
	tb_sweep_axis_release(&a);
	cr_assert_eq(tb_sweep_parse("training.tokens=1T..4T:x2", 128, &a, &d), 0);
	static const char *const tok[] = { "1T", "2T", "4T" };
	S_values_are(&a, tok, 3);
	tb_sweep_axis_release(&a);
	/* a step that does not land on TO stops below it; tenths add exactly */
	cr_assert_eq(tb_sweep_parse("hardware.pue=1.1..1.5:0.1", 128, &a, &d), 0);
	static const char *const pue[] = { "1.1", "1.2", "1.3", "1.4", "1.5" };
	S_values_are(&a, pue, 5);
	tb_sweep_axis_release(&a);
	cr_assert_eq(tb_sweep_parse("hardware.count=8..100:x2", 128, &a, &d), 0);
	static const char *const cut[] = { "8", "16", "32", "64" };
	S_values_are(&a, cut, 4);
	tb_sweep_axis_release(&a);
	cr_expect_eq(d.errors, 0);
	tb_diags_release(&d);
}

/* The first diagnostic line, for a parse that must fail. */
static void S_parse_fails(const char *arg, size_t max, const char *first)
{
	tb_diags d;
	tb_diags_init(&d);
	tb_sweep_axis a;
	cr_expect_eq(tb_sweep_parse(arg, max, &a, &d), -1, "%s parsed", arg);
	tb_sweep_axis_release(&a);
	char *msg = tb_diags_format(&d);
	char *nl = strchr(msg, '\n');
	if (nl)
		*nl = '\0';
	cr_expect_str_eq(msg, first);
	free(msg);
	tb_diags_release(&d);
}

Test(sweep, bad_arguments_are_located_in_the_argument)
{
	S_parse_fails("training.micro_batch", 128, "<--sweep>:1:1: error: --sweep has no KEY=VALUES; "
	              "expected e.g. --sweep hardware.count=64..1024:x2 or --sweep training.micro_batch=1,2,4,8");
	S_parse_fails("training.micro_batch=8..1", 128, "<--sweep>:1:22: error: the range is empty or "
	              "reversed; expected FROM..TO with FROM below TO");
	S_parse_fails("training.micro_batch=1..x", 128, "<--sweep>:1:25: error: the range's end is not a "
	              "number; expected FROM..TO such as 1..8, 64..4096:x2 or 1T..4T:1T");
	S_parse_fails("hardware.count=1..9:x1", 128, "<--sweep>:1:21: error: the range's factor is not a "
	              "number above 1; expected :xF such as :x2 (each value twice the one before)");
	S_parse_fails("hardware.count=0..9:x2", 128, "<--sweep>:1:16: error: a range of doublings "
	              "starts at 0; expected FROM above 0");
	S_parse_fails("training.micro_batch=1,,2", 128, "<--sweep>:1:24: error: an empty value in "
	              "--sweep; expected values separated by single commas");
	S_parse_fails("training.micro_batch=4", 128, "<--sweep>:1:22: error: --sweep has one value; "
	              "expected two or more to compare");
	S_parse_fails("training.micro_batch=1,2,1", 128, "<--sweep>:1:26: error: --sweep lists '1' twice; "
	              "expected each value once");
	S_parse_fails("training.micro_batch=1..200", 128, "<--sweep>:1:22: error: the range makes more "
	              "than 128 values; expected at most 128 (a larger step, or :x2)");
	S_parse_fails("training.micro_batch=1..17", 16, "<--sweep>:1:22: error: the range makes more "
	              "than 16 values; expected at most 16 (a larger step, or :x2)");
}

/* ---- running -------------------------------------------------------------- */

typedef struct S_file {
	char *text;
	size_t len;
} S_file;

static S_file S_read(const char *path)
{
	S_file f = { NULL, 0 };
	tb_diags d;
	tb_diags_init(&d);
	cr_assert_eq(tb_fileio_read(path, 1 << 20, &f.text, &f.len, &d), 0, "cannot read %s", path);
	tb_diags_release(&d);
	return f;
}

/* The budget tb_budget_compute makes of `path` with `set` applied: the
 * memory model's own answer a sweep point must repeat. */
static void S_budget(const char *path, const char *set, tb_budget *b)
{
	tb_diags d;
	tb_diags_init(&d);
	const char *sets[1] = { set };
	tb_scenario *sc = tb_scenario_load_file(path, sets, set ? 1 : 0, &d);
	cr_assert_not_null(sc, "cannot load %s with %s", path, set ? set : "nothing");
	tb_budget_compute(&sc->inputs, b);
	tb_scenario_free(sc);
	tb_diags_release(&d);
}

/* The budget estimate gives: on the answer's layout (answer.h). */
static void S_answer_budget(const char *path, const char *set, tb_budget *b)
{
	tb_diags d;
	tb_diags_init(&d);
	const char *sets[1] = { set };
	tb_scenario *sc = tb_scenario_load_file(path, sets, set ? 1 : 0, &d);
	cr_assert_not_null(sc, "cannot load %s with %s", path, set ? set : "nothing");
	tb_inputs priced;
	tb_budget_compute_answer(&sc->inputs, &priced, b);
	tb_scenario_free(sc);
	tb_diags_release(&d);
}

static tb_sweep *S_run(const char *path, const char *const *args, size_t n, tb_diags *d)
{
	S_file f = S_read(path);
	tb_sweep *s = tb_sweep_run(args, n, path, f.text, f.len, NULL, 0, d);
	free(f.text);
	return s;
}

#define S_MB "docs/examples/sweep/70b-128-h100.yaml"
#define S_GPUS "docs/examples/sweep/70b-2t-h100.yaml"

Test(sweep, the_micro_batch_cliff_is_the_memory_models_own)
{
	tb_diags d;
	tb_diags_init(&d);
	const char *args[1] = { "training.micro_batch=1..8" };
	tb_sweep *s = S_run(S_MB, args, 1, &d);
	cr_assert_not_null(s);
	tb_budget *b = malloc(sizeof *b);
	S_budget(S_MB, NULL, b);
	int64_t max = b->memory.max_micro_batch;
	cr_assert(max >= 1 && max < 8, "the example must stop fitting inside 1..8 (max %lld)",
	          (long long)max);
	/* one cliff, at the first micro-batch the memory model says is too many */
	cr_assert_eq(s->ncliffs, 1);
	cr_expect_eq(s->cliffs[0].kind, TB_CLIFF_STOPS_FITTING);
	cr_expect_eq(s->axis[0].x[s->cliffs[0].at], (double)(max + 1));
	/* and every point says what estimate says of it, figure for figure:
	 * whether it runs as written and its memory so, and the time and cost
	 * of the layout the answer prices (issue 19: one answer) */
	for (size_t i = 0; i < s->npoints; i++) {
		char set[64];
		snprintf(set, sizeof set, "training.micro_batch=%s", s->axis[0].values[i]);
		S_budget(S_MB, set, b);
		double written_bytes = b->memory.per_gpu.total;
		S_answer_budget(S_MB, set, b);
		const tb_sweep_figures *f = &s->points[i].f;
		cr_expect(s->points[i].valid);
		cr_expect(b->answer.decided && b->answer.runs, "%s", set);
		/* every layout key that sizes the layout is written: a point
		 * that does not fit as written is replaced, and keeps its own
		 * fit and memory; one that fits is priced as it is written */
		bool replaced = b->answer.source == TB_LAYOUT_REPLACED;
		cr_expect_eq(replaced, !b->answer.written_runs, "%s", set);
		cr_expect_eq(f->fits, b->answer.written_runs, "%s", set);
		if (replaced)
			cr_expect_eq(f->memory_per_gpu_bytes, written_bytes, "%s", set);
		else
			cr_expect_eq(f->memory_per_gpu_bytes, b->memory.per_gpu.total, "%s", set);
		/* "expected" as estimate says it: the simulated runs' mean */
		tb_expected x = tb_budget_expected(b);
		cr_expect(b->risk.known && x.known, "%s", set);
		cr_expect_eq(f->seconds, x.seconds, "%s", set);
		cr_expect_eq(f->seconds, b->risk.days_mean * 86400, "%s", set);
		cr_expect_eq(f->cost, b->risk.cost_mean, "%s", set);
		cr_expect_eq(f->mfu_predicted, b->perf.r.mfu, "%s", set);
		cr_expect_eq(f->fits, s->axis[0].x[i] <= (double)max, "%s", set);
	}
	tb_buf t;
	tb_buf_init(&t);
	tb_sweep_cliff_words(s, &s->cliffs[0], &t);
	char want[64];
	snprintf(want, sizeof want, "does not fit from micro_batch %lld", (long long)(max + 1));
	cr_expect_str_eq(t.ptr, want);
	tb_buf_release(&t);
	free(b);
	tb_sweep_free(s);
	cr_expect_eq(d.errors, 0);
	tb_diags_release(&d);
}

Test(sweep, the_scaling_cliff_follows_the_budgets_own_times)
{
	tb_diags d;
	tb_diags_init(&d);
	const char *args[1] = { "hardware.count=64..65536:x2" };
	tb_sweep *s = S_run(S_GPUS, args, 1, &d);
	cr_assert_not_null(s);
	size_t at = s->npoints;
	for (size_t c = 0; c < s->ncliffs; c++)
		if (s->cliffs[c].kind == TB_CLIFF_SCALING)
			at = s->cliffs[c].at;
	cr_assert(at < s->npoints, "a GPU sweep to 65,536 names where scaling stops paying");
	/* from the budgets themselves: time with losses at n and 2n */
	tb_budget *b = malloc(sizeof *b);
	double prev = 0;
	for (size_t i = 0; i < s->npoints; i++) {
		char set[64];
		snprintf(set, sizeof set, "hardware.count=%s", s->axis[0].values[i]);
		S_answer_budget(S_GPUS, set, b);     /* each point's answer, as estimate's */
		double t = b->losses.seconds[1];
		if (i > 0) {
			double gain = prev / t - 1;     /* each step is one doubling */
			if (i > at)
				cr_expect_lt(gain, TB_SWEEP_DOUBLING_GAIN, "%s buys %g", set, gain);
			if (i == at)
				cr_expect_geq(gain, TB_SWEEP_DOUBLING_GAIN, "%s buys %g", set, gain);
		}
		prev = t;
	}
	free(b);
	tb_sweep_free(s);
	tb_diags_release(&d);
}

Test(sweep, refused_combinations_are_points_bad_values_are_errors)
{
	tb_diags d;
	tb_diags_init(&d);
	/* 1,680 sequences do not split over 32 replicas: a point, not an error
	 * (with every key that splits the batch written: otherwise the answer
	 * finds a layout it splits over) */
	const char *args[1] = { "hardware.count=512..4096:x2" };
	S_file f0 = S_read(S_MB);
	static const char *const ctx[] = { "parallelism.context=1" };
	tb_sweep *s = tb_sweep_run(args, 1, S_MB, f0.text, f0.len, ctx, 1, &d);
	free(f0.text);
	cr_assert_not_null(s);
	cr_expect_eq(d.errors, 0);
	cr_expect(s->points[0].valid);          /* 512: 8 replicas */
	cr_expect(!s->points[2].valid);         /* 2,048: 32 replicas */
	cr_expect(strstr(s->points[2].why, "not a multiple") != NULL, "%s", s->points[2].why);
	bool named = false;
	for (size_t c = 0; c < s->ncliffs; c++)
		named |= s->cliffs[c].kind == TB_CLIFF_NOT_VALID && s->cliffs[c].at == 2;
	cr_expect(named, "the value from which the plan cannot be laid out is named");
	tb_sweep_free(s);

	/* a value that is not one: an error at its column in the argument */
	args[0] = "training.micro_batch=1,x,3";
	s = S_run(S_MB, args, 1, &d);
	cr_expect_null(s);
	char *msg = tb_diags_format(&d);
	cr_expect(strncmp(msg, "<--sweep>:1:24: error: training.micro_batch 'x' is not a number", 63) == 0,
	          "%s", msg);
	free(msg);
	tb_diags_release(&d);
}

Test(sweep, a_grid_holds_every_pair_axis_zero_outer)
{
	tb_diags d;
	tb_diags_init(&d);
	const char *args[2] = { "training.micro_batch=1,2,4", "training.seq_len=2048,4096" };
	tb_sweep *s = S_run(S_MB, args, 2, &d);
	cr_assert_not_null(s);
	cr_expect_eq(s->naxes, 2);
	cr_expect_eq(s->npoints, 6);
	const tb_sweep_point *p = tb_sweep_at(s, 2, 1);
	cr_assert_not_null(p);
	cr_expect_eq(p->i, 2);
	cr_expect_eq(p->j, 1);
	tb_budget *b = malloc(sizeof *b);
	tb_diags d2;
	tb_diags_init(&d2);
	const char *sets[2] = { "training.micro_batch=4", "training.seq_len=4096" };
	tb_scenario *sc = tb_scenario_load_file(S_MB, sets, 2, &d2);
	cr_assert_not_null(sc);
	tb_budget_compute(&sc->inputs, b);
	cr_expect_eq(p->f.memory_per_gpu_bytes, b->memory.per_gpu.total);
	tb_scenario_free(sc);
	tb_diags_release(&d2);
	free(b);
	cr_expect_null(tb_sweep_at(s, 3, 0));
	tb_sweep_free(s);
	/* the same key twice is not a grid */
	const char *same[2] = { "training.micro_batch=1,2", "training.micro_batch=3,4" };
	cr_expect_null(S_run(S_MB, same, 2, &d));
	/* a grid keeps each setting to TB_SWEEP_MAX_GRID values */
	const char *big[2] = { "training.micro_batch=1..20", "training.seq_len=2048,4096" };
	cr_expect_null(S_run(S_MB, big, 2, &d));
	cr_expect_eq(d.errors, 2);
	tb_diags_release(&d);
}

Test(sweep, words_for_values_and_cliffs)
{
	tb_diags d;
	tb_diags_init(&d);
	const char *args[1] = { "hardware.count=1024,2048" };
	tb_sweep *s = S_run(S_GPUS, args, 1, &d);
	cr_assert_not_null(s);
	tb_buf t;
	tb_buf_init(&t);
	tb_sweep_value_words(s, 0, 1, &t);
	cr_expect_str_eq(t.ptr, "2,048 GPUs");
	tb_sweep_cliff s1 = { TB_CLIFF_SCALING, 0, 0, 0.123 };
	tb_buf_truncate(&t, 0);
	tb_sweep_cliff_words(s, &s1, &t);
	cr_expect_str_eq(t.ptr, "past 1,024 GPUs each doubling buys less than 30% (12% at best)");
	tb_buf_release(&t);
	tb_sweep_free(s);
	tb_diags_release(&d);
}

/* Issue 19: a GPU count sweep with the batch written and the layout partly
 * left to the answer: every point runs (the answer finds a layout the
 * 1,680 sequences split over), and each is priced as estimate prices it. */
/* 70B with its global batch of 1,680 written and no layout: past 2,048
 * GPUs no data-parallel size of every GPU divides the batch, and the
 * answer lays each count out so that it does (issue 19). */
static const char S_OPEN[] =
	"title: 70B, the layout left open\nmodel:\n  preset: llama-2-70b\n"
	"training:\n  tokens: 300B\n  seq_len: 4096\n  global_batch: 1680\n"
	"hardware:\n  gpu: h100-sxm\n  count: 128\n";

Test(sweep, with_the_layout_left_open_every_point_runs)
{
	tb_diags d;
	tb_diags_init(&d);
	const char *args[1] = { "hardware.count=128..4096:x2" };
	tb_sweep *s = tb_sweep_run(args, 1, "open.yaml", S_OPEN, sizeof S_OPEN - 1, NULL, 0, &d);
	cr_assert_not_null(s);
	tb_budget *b = malloc(sizeof *b);
	for (size_t i = 0; i < s->npoints; i++) {
		char set[64];
		snprintf(set, sizeof set, "hardware.count=%s", s->axis[0].values[i]);
		cr_expect(s->points[i].valid, "%s: %s", set, s->points[i].why ? s->points[i].why : "");
		cr_expect(s->points[i].f.time_known, "%s", set);
		cr_expect(s->points[i].f.fits, "%s", set);
		tb_diags d2;
		tb_diags_init(&d2);
		const char *sets[1] = { set };
		tb_scenario *sc = tb_scenario_load("open.yaml", S_OPEN, sizeof S_OPEN - 1, sets, 1, &d2);
		cr_assert_not_null(sc, "%s", set);
		tb_inputs priced;
		tb_budget_compute_answer(&sc->inputs, &priced, b);
		cr_expect(b->answer.runs, "%s", set);
		cr_expect_eq(s->points[i].f.seconds, tb_budget_expected(b).seconds, "%s", set);
		cr_expect_eq(s->points[i].f.memory_per_gpu_bytes, b->memory.per_gpu.total, "%s", set);
		tb_scenario_free(sc);
		tb_diags_release(&d2);
	}
	free(b);
	tb_sweep_free(s);
	tb_diags_release(&d);
}

/* The points run on the cores (sweep.c, S_points) and what they found is
 * merged in their order: one thread and four give the same sweep, a
 * grid with a refused combination and the layouts the answers chose
 * included, and the same located error for a bad value. */
static void S_same_points(const tb_sweep *a, const tb_sweep *b)
{
	cr_assert_eq(a->npoints, b->npoints);
	cr_expect_eq(a->nvalid, b->nvalid);
	cr_expect_eq(a->ncliffs, b->ncliffs);
	cr_expect_str_eq(a->currency, b->currency);
	for (size_t k = 0; k < a->ncliffs; k++)
		cr_expect(a->cliffs[k].kind == b->cliffs[k].kind && a->cliffs[k].at == b->cliffs[k].at &&
		          a->cliffs[k].row == b->cliffs[k].row && a->cliffs[k].gain == b->cliffs[k].gain);
	for (size_t k = 0; k < a->npoints; k++) {
		const tb_sweep_point *p = &a->points[k], *q = &b->points[k];
		cr_expect(p->i == q->i && p->j == q->j && p->valid == q->valid, "point %zu", k);
		cr_expect_str_eq(p->why ? p->why : "", q->why ? q->why : "", "point %zu", k);
		const tb_sweep_figures *f = &p->f, *g = &q->f;
		cr_expect(f->seconds == g->seconds && f->cost == g->cost && f->mfu == g->mfu &&
		          f->step_s == g->step_s && f->memory_per_gpu_bytes == g->memory_per_gpu_bytes &&
		          f->fits == g->fits && f->max_micro_batch == g->max_micro_batch &&
		          f->goodput == g->goodput && f->answer_runs == g->answer_runs, "point %zu", k);
		cr_expect(tb_plan_same_layout(&f->answer_layout, &g->answer_layout), "point %zu", k);
	}
	for (size_t ax = 0; ax < a->naxes; ax++)
		for (size_t i = 0; i < a->axis[ax].n; i++)
			cr_expect(a->axis[ax].x[i] == b->axis[ax].x[i] ||
			          (isnan(a->axis[ax].x[i]) && isnan(b->axis[ax].x[i])));
}

/* tb_sweep_run on `jobs` threads; *msg (when not NULL): what it said. */
static tb_sweep *S_run_on(int jobs, const char **args, size_t n, const char *path,
                          const char *text, size_t len, const char *const *sets, size_t nsets,
                          char **msg)
{
	tb_plan_set_jobs(jobs);
	tb_diags d;
	tb_diags_init(&d);
	tb_sweep *s = tb_sweep_run(args, n, path, text, len, sets, nsets, &d);
	if (msg)
		*msg = tb_diags_format(&d);
	tb_diags_release(&d);
	tb_plan_set_jobs(0);
	return s;
}

Test(sweep, the_same_whatever_the_threads)
{
	const char *args[2] = { "hardware.count=128..2048:x2", "training.micro_batch=1,2,4" };
	tb_sweep *s[2];
	for (int t = 0; t < 2; t++) {
		s[t] = S_run_on(t ? 4 : 1, args, 2, "open.yaml", S_OPEN, sizeof S_OPEN - 1, NULL, 0, NULL);
		cr_assert_not_null(s[t]);
	}
	cr_expect_eq(s[0]->npoints, 15);
	S_same_points(s[0], s[1]);
	tb_sweep_free(s[0]);
	tb_sweep_free(s[1]);

	/* refused combinations (S_MB's batch over 32 replicas) */
	const char *counts[1] = { "hardware.count=512..4096:x2" };
	static const char *const ctx[] = { "parallelism.context=1" };
	S_file f0 = S_read(S_MB);
	for (int t = 0; t < 2; t++) {
		s[t] = S_run_on(t ? 3 : 1, counts, 1, S_MB, f0.text, f0.len, ctx, 1, NULL);
		cr_assert_not_null(s[t]);
	}
	cr_expect(!s[0]->points[2].valid);
	S_same_points(s[0], s[1]);
	tb_sweep_free(s[0]);
	tb_sweep_free(s[1]);

	/* a value the scenario refuses in a grid (every point of its row
	 * loads with the error): said once, at its column in the argument,
	 * whatever the threads */
	const char *bad[2] = { "training.micro_batch=1,2,4", "hardware.gpu=h100-sxm,nope" };
	char *msg[2];
	for (int t = 0; t < 2; t++)
		cr_expect_null(S_run_on(t ? 4 : 1, bad, 2, S_MB, f0.text, f0.len, NULL, 0, &msg[t]));
	cr_expect_str_eq(msg[0], msg[1]);
	cr_expect(strncmp(msg[0], "<--sweep>:1:23: error: unknown GPU 'nope'", 41) == 0, "%s", msg[0]);
	cr_expect(strstr(msg[0], "1 error") != NULL, "%s", msg[0]);
	free(msg[0]);
	free(msg[1]);
	free(f0.text);
}
