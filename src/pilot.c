/* pilot.c: a pilot run's training log, read (pilot.h).
 *
 * One pass over the lines.  Each timed line's value goes into a ring of
 * the last TB_PILOT_SAMPLES_MAX; the statistics are taken once at the end,
 * over the ones past the warm-up. */
#include "trainbudget/pilot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/xalloc.h"

const char *tb_pilot_kind_name(tb_pilot_kind k)
{
	switch (k) {
	case TB_PILOT_MEGATRON_LOG: return "megatron_log";
	case TB_PILOT_TORCHTITAN_LOG: return "torchtitan_log";
	case TB_PILOT_STEP_TIME: return "step_time";
	case TB_PILOT_NONE: default: return "";
	}
}

/* What no log of a training run prints: a step of four months, a
 * petabyte a GPU, ten billion tokens a second per GPU, an exaFLOP/s. */
#define S_MOST_STEP_S 1e7
#define S_MOST_BYTES 1e15
#define S_MOST_TPS 1e10
#define S_MOST_TFLOPS 1e6

/* The last TB_PILOT_SAMPLES_MAX values of one series, with how many came
 * before them. */
typedef struct S_ring {
	double *v;
	int64_t n;          /* values seen */
} S_ring;

static void S_push(S_ring *r, double x)
{
	if (!r->v)
		r->v = tb_xmalloc(TB_PILOT_SAMPLES_MAX * sizeof *r->v);
	r->v[r->n % TB_PILOT_SAMPLES_MAX] = x;
	r->n++;
}

static int S_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double S_pct(const double *v, int64_t n, double q)
{
	double x = q * (double)(n - 1);
	int64_t i = (int64_t)x;
	if (i >= n - 1)
		return v[n - 1];
	return v[i] + (x - (double)i) * (v[i + 1] - v[i]);
}

/* The values past the warm-up (the first tenth of all seen, at least
 * one), sorted, into *out (owned); their count, or 0 when none is left. */
static int64_t S_steady(const S_ring *r, double **out)
{
	*out = NULL;
	int64_t warm = r->n / 10 > 1 ? r->n / 10 : 1;
	int64_t first = r->n > TB_PILOT_SAMPLES_MAX ? r->n - TB_PILOT_SAMPLES_MAX : 0;
	if (first < warm)
		first = warm;
	if (first >= r->n)
		return 0;
	int64_t k = r->n - first;
	double *v = tb_xmalloc((size_t)k * sizeof *v);
	for (int64_t i = 0; i < k; i++)
		v[i] = r->v[(first + i) % TB_PILOT_SAMPLES_MAX];
	qsort(v, (size_t)k, sizeof *v, S_cmp);
	*out = v;
	return k;
}

static double S_median(const S_ring *r)
{
	double *v;
	int64_t k = S_steady(r, &v);
	double m = k ? S_pct(v, k, 0.5) : 0;
	free(v);
	return m;
}

/* A number at s (digits, thousands commas, a point, an exponent); its
 * end in *end.  False when s holds none. */
static bool S_number(const char *s, const char *lim, double *out, const char **end)
{
	char buf[64];
	size_t n = 0;
	const char *p = s;
	while (p < lim && (*p == ' ' || *p == '\t'))
		p++;
	const char *start = p;
	while (p < lim && n + 1 < sizeof buf &&
	       ((*p >= '0' && *p <= '9') || *p == '.' || *p == ',' || *p == 'e' || *p == 'E' ||
	        ((*p == '+' || *p == '-') && (p == start || p[-1] == 'e' || p[-1] == 'E')))) {
		if (*p != ',')
			buf[n++] = *p;
		p++;
	}
	buf[n] = 0;
	if (n == 0 || !(buf[0] == '.' || (buf[0] >= '0' && buf[0] <= '9') || buf[0] == '+' || buf[0] == '-'))
		return false;
	char *e;
	double v = strtod(buf, &e);
	if (*e || !isfinite(v) || v < 0)
		return false;
	*out = v;
	*end = p;
	return true;
}

/* The line's text after `key`, or NULL. */
static const char *S_after(const char *line, const char *lim, const char *key)
{
	size_t k = strlen(key);
	for (const char *p = line; p + k <= lim; p++)
		if (memcmp(p, key, k) == 0)
			return p + k;
	return NULL;
}

typedef struct S_parse {
	const char *path, *text;
	size_t len;
	tb_diags *d;
	bool failed;
	S_ring mega, titan_tps, titan_tflops, titan_mfu, plain, mega_tflops;
	double max_alloc, max_reserved;
	int64_t first_other_line;   /* a line that is none of the kinds, for the plain file's error */
	size_t first_other_col;
} S_parse;

static void S_bad(S_parse *ps, size_t line, const char *at, const char *line_start,
                  const char *what, const char *expected)
{
	if (ps->failed)
		return;
	tb_diags_add(ps->d, TB_DIAG_ERROR, ps->path, ps->text, ps->len, line,
	             (size_t)(at - line_start) + 1, "%s is not a number; expected %s", what, expected);
	ps->failed = true;
}

/* A value after `key` on the line: pushed to r (times scale); false and an
 * error when it does not parse. */
/* A value after `key` on the line, times scale (to SI), at most `most`:
 * pushed to r and/or returned in *got; false and an error when it does
 * not parse or is past what any run prints (a unit slip or a hostile
 * file, which would otherwise become a step of 1e300 s). */
static bool S_field(S_parse *ps, const char *line, const char *lim, size_t lineno,
                    const char *key, double scale, double most, S_ring *r, double *got)
{
	const char *v = S_after(line, lim, key);
	if (!v)
		return false;
	double x;
	const char *end;
	if (!S_number(v, lim, &x, &end)) {
		const char *at = v;
		while (at < lim && *at == ' ')
			at++;
		S_bad(ps, lineno, at, line, key, "a number");
		return false;
	}
	if (x * scale > most) {
		const char *at = v;
		while (at < lim && *at == ' ')
			at++;
		if (!ps->failed)
			tb_diags_add(ps->d, TB_DIAG_ERROR, ps->path, ps->text, ps->len, lineno,
			             (size_t)(at - line) + 1, "%s %g is past what a training run prints; "
			             "expected at most %g", key, x, most / scale);
		ps->failed = true;
		return false;
	}
	if (r)
		S_push(r, x * scale);
	if (got)
		*got = x * scale;
	return true;
}

static void S_line(S_parse *ps, const char *line, const char *lim, size_t lineno)
{
	/* Megatron-LM: the iteration line and the memory report */
	if (S_after(line, lim, "elapsed time per iteration (ms):")) {
		S_field(ps, line, lim, lineno, "elapsed time per iteration (ms):", 1e-3, S_MOST_STEP_S, &ps->mega, NULL);
		S_field(ps, line, lim, lineno, "throughput per GPU (TFLOP/s/GPU):", 1, S_MOST_TFLOPS, &ps->mega_tflops, NULL);
		return;
	}
	if (S_after(line, lim, "memory (MB)")) {
		double x;
		if (S_field(ps, line, lim, lineno, "max allocated:", 1048576.0, S_MOST_BYTES, NULL, &x) && x > ps->max_alloc)
			ps->max_alloc = x;
		if (S_field(ps, line, lim, lineno, "max reserved:", 1048576.0, S_MOST_BYTES, NULL, &x) && x > ps->max_reserved)
			ps->max_reserved = x;
		return;
	}
	/* torchtitan: step: N  loss: ...  memory: G GiB(p%)  tps: T  tflops: F  mfu: M% */
	if (S_after(line, lim, "step:") && S_after(line, lim, "tps:")) {
		S_field(ps, line, lim, lineno, "tps:", 1, S_MOST_TPS, &ps->titan_tps, NULL);
		S_field(ps, line, lim, lineno, "tflops:", 1, S_MOST_TFLOPS, &ps->titan_tflops, NULL);
		S_field(ps, line, lim, lineno, "mfu:", 0.01, 1, &ps->titan_mfu, NULL);
		double x;
		if (S_field(ps, line, lim, lineno, "memory:", 1073741824.0, S_MOST_BYTES, NULL, &x) &&
		    x > ps->max_reserved)
			ps->max_reserved = x;
		return;
	}
	/* a plain step time: a duration a line, "# ..." comments, blanks */
	const char *p = line;
	while (p < lim && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	if (p == lim || *p == '#')
		return;
	double x;
	const char *end;
	if (S_number(p, lim, &x, &end)) {
		while (end < lim && *end == ' ')
			end++;
		double scale = 1;
		size_t rest = (size_t)(lim - end);
		while (rest > 0 && (end[rest - 1] == ' ' || end[rest - 1] == '\r'))
			rest--;
		if (rest == 2 && memcmp(end, "ms", 2) == 0)
			scale = 1e-3;
		else if (!(rest == 0 || (rest == 1 && *end == 's')))
			goto other;
		if (x * scale > S_MOST_STEP_S) {
			if (!ps->failed)
				tb_diags_add(ps->d, TB_DIAG_ERROR, ps->path, ps->text, ps->len, lineno,
				             (size_t)(p - line) + 1, "a step of %g s is past what a training "
				             "run takes; expected at most %g s", x * scale, S_MOST_STEP_S);
			ps->failed = true;
			return;
		}
		S_push(&ps->plain, x * scale);
		return;
	}
other:
	if (ps->first_other_line == 0) {
		ps->first_other_line = (int64_t)lineno;
		ps->first_other_col = (size_t)(p - line) + 1;
	}
}

static void S_release(S_parse *ps)
{
	S_ring *rings[] = { &ps->mega, &ps->titan_tps, &ps->titan_tflops, &ps->titan_mfu,
	                    &ps->plain, &ps->mega_tflops };
	for (size_t i = 0; i < sizeof rings / sizeof rings[0]; i++)
		free(rings[i]->v);
}

/* Median and spread of the ring into the three outputs; false when the
 * warm-up leaves fewer than three values. */
static bool S_stats(const S_ring *r, double *med, double *p10, double *p90, int64_t *used)
{
	double *v;
	int64_t k = S_steady(r, &v);
	*used = k;
	if (k < 3) {
		free(v);
		return false;
	}
	*med = S_pct(v, k, 0.5);
	*p10 = S_pct(v, k, 0.1);
	*p90 = S_pct(v, k, 0.9);
	free(v);
	return true;
}

int tb_pilot_parse(const char *path, const char *text, size_t len, tb_pilot_log *out,
                   tb_diags *d)
{
	memset(out, 0, sizeof *out);
	S_parse ps;
	memset(&ps, 0, sizeof ps);
	ps.path = path ? path : "<log>";
	ps.text = text ? text : "";
	ps.len = text ? len : 0;
	ps.d = d;
	size_t lineno = 1;
	const char *p = ps.text, *lim = ps.text + ps.len;
	while (p < lim && !ps.failed) {
		const char *nl = memchr(p, '\n', (size_t)(lim - p));
		const char *eol = nl ? nl : lim;
		S_line(&ps, p, eol, lineno);
		p = nl ? nl + 1 : lim;
		lineno++;
	}
	int rc = -1;
	if (ps.failed)
		goto done;

	const S_ring *timed = ps.mega.n ? &ps.mega : ps.titan_tps.n ? &ps.titan_tps : &ps.plain;
	out->kind = ps.mega.n ? TB_PILOT_MEGATRON_LOG
	          : ps.titan_tps.n ? TB_PILOT_TORCHTITAN_LOG
	          : ps.plain.n ? TB_PILOT_STEP_TIME : TB_PILOT_NONE;
	if (out->kind == TB_PILOT_STEP_TIME && ps.first_other_line) {
		tb_diags_add(d, TB_DIAG_ERROR, ps.path, ps.text, ps.len, (size_t)ps.first_other_line,
		             ps.first_other_col, "not a step time; expected a duration a line "
		             "(1.84, 1.84 s or 1840 ms), or a Megatron-LM or torchtitan training log");
		goto done;
	}
	if (out->kind == TB_PILOT_NONE) {
		tb_diags_add(d, TB_DIAG_ERROR, ps.path, ps.text, ps.len, 1, 1,
		             "no timed step found; expected a Megatron-LM log ('elapsed time per "
		             "iteration (ms)'), a torchtitan log ('step: ... tps: ...') or a step "
		             "time a line");
		goto done;
	}
	out->lines = timed->n;
	bool ok;
	if (out->kind == TB_PILOT_TORCHTITAN_LOG) {
		ok = S_stats(timed, &out->tokens_per_s_per_gpu, &out->tps_p10, &out->tps_p90,
		             &out->samples);
		out->tflops_per_gpu = S_median(&ps.titan_tflops);
		out->mfu = S_median(&ps.titan_mfu);
	} else {
		ok = S_stats(timed, &out->step_s, &out->step_s_p10, &out->step_s_p90, &out->samples);
		out->tflops_per_gpu = S_median(&ps.mega_tflops);
	}
	if (!ok) {
		tb_diags_add(d, TB_DIAG_ERROR, ps.path, ps.text, ps.len, 1, 1,
		             "%lld timed step%s, %lld after the warm-up; expected at least 4, so "
		             "that the first tenth (at least one) can be left out and 3 remain",
		             (long long)timed->n, timed->n == 1 ? "" : "s", (long long)out->samples);
		goto done;
	}
	/* a median of nothing: zeros in the log would price the run at an
	 * MFU of infinity; a step must be at least a millisecond */
	if (out->kind == TB_PILOT_TORCHTITAN_LOG ? !(out->tokens_per_s_per_gpu > 0)
	                                         : !(out->step_s >= 1e-3)) {
		tb_diags_add(d, TB_DIAG_ERROR, ps.path, ps.text, ps.len, 1, 1,
		             "the median step is %s; expected a step of at least a millisecond",
		             out->kind == TB_PILOT_TORCHTITAN_LOG ? "0 tokens a second" : "under a millisecond");
		goto done;
	}
	if (ps.max_alloc > 0) {
		out->peak_memory_bytes = ps.max_alloc;
	} else if (ps.max_reserved > 0) {
		out->peak_memory_bytes = ps.max_reserved;
		out->peak_is_reserved = true;
	}
	rc = 0;
done:
	S_release(&ps);
	if (rc != 0)
		memset(out, 0, sizeof *out);
	return rc;
}
