/* validate_cards.c: the tables make validate keeps per card and matmul
 * format, each with the check that a table in src/ still holds it: the
 * best published MFU (ceiling.c) and the step-time model's held-out record
 * (record.c: the older set's held-out rows and the modern ones).  For the
 * record a source (a runs.yaml group) counts on a card and format where it
 * has held-out runs on them; its median signed error is over those runs
 * alone, so a source that ran two formats counts once in each. */
#include "validate_perf.h"
#include "validate_runs.h"

#include "trainbudget/ceiling.h"
#include "trainbudget/perf.h"
#include "trainbudget/record.h"

#include <math.h>
#include <string.h>

/* The format a row's matmuls ran in, as ceiling.h and record.h key it. */
static tb_dtype S_dtype(const tb_vruns_case *c)
{
	return c->in.matmul_bytes == 1 ? TB_DTYPE_FP8 : c->in.matmul_bytes < 1 ? TB_DTYPE_FP4 : TB_DTYPE_BF16;
}

/* The best published MFU per card and precision, on the model's own FLOP
 * count over the precision's dense peak, from every scored row: what
 * ceiling.c must hold. */
typedef struct S_best {
	char card[32];
	tb_dtype dtype;     /* as ceiling.h */
	double mfu;
	const tb_vruns_case *c;
} S_best;

static int S_bests(S_best *out, int cap)
{
	int n = 0;
	for (int set = 0; set < 2; set++) {
		const tb_vruns_case *all = set ? tb_vruns_modern : tb_vruns_cases;
		int count = set ? tb_vruns_nmodern : tb_vruns_ncases;
		for (int i = 0; i < count; i++) {
			const tb_vruns_case *c = &all[i];
			tb_perf_result r;
			if (c->set == TB_VRUNS_NOT_SCORED || isnan(tb_vperf_err(c, NULL, &r)))
				continue;
			double gpus = (double)r.gpus, peak = c->in.hw.peak_flops;
			double mfu = r.model_flops_per_step / (c->published_s * gpus * peak) *
			             tb_perf_causal_mfu_scale(&c->in);
			const char *card = c->inputs.hardware.gpu.name;
			tb_dtype dt = S_dtype(c);
			int j = 0;
			while (j < n && !(strcmp(out[j].card, card) == 0 && out[j].dtype == dt))
				j++;
			if (j == n) {
				if (n == cap)
					continue;
				memset(&out[n], 0, sizeof out[n]);
				snprintf(out[n].card, sizeof out[n].card, "%s", card);
				out[n].dtype = dt;
				n++;
			}
			if (mfu > out[j].mfu) {
				out[j].mfu = mfu;
				out[j].c = c;
			}
		}
	}
	return n;
}

/* The held-out rows the model scores, older and modern, with their
 * errors; returns their count. */
static int S_held(const tb_vruns_case **rows, double *err)
{
	int n = 0;
	for (int set = 0; set < 2; set++) {
		const tb_vruns_case *all = set ? tb_vruns_modern : tb_vruns_cases;
		int count = set ? tb_vruns_nmodern : tb_vruns_ncases;
		for (int i = 0; i < count; i++) {
			tb_perf_result r;
			double e = all[i].set == TB_VRUNS_HELD ? tb_vperf_err(&all[i], NULL, &r) : NAN;
			if (!isnan(e)) {
				rows[n] = &all[i];
				err[n++] = e;
			}
		}
	}
	return n;
}

/* Writes the table and returns 1 where ceiling.c disagrees with the rows
 * (more than 0.05 points either way), or names a run the rows lack. */
static int S_write_ceilings(FILE *f)
{
	S_best b[32];
	int n = S_bests(b, 32), rc = 0;
	fprintf(f, "\n## Best published MFU per card (`src/ceiling.c`)\n\n"
	           "Written by `make validate` (tests/validate_cards.c): of every scored row, the highest MFU "
	           "per card and precision, on the model's own FLOP count with causal attention over the "
	           "precision's dense peak. "
	           "A prediction above it carries a warning naming the run (estimate, report, plan). "
	           "`make validate` fails when `src/ceiling.c` no longer holds these figures.\n\n"
	           "| Card | Precision | Best MFU | Run | ceiling.c |\n|---|---|---:|---|---|\n");
	for (int i = 0; i < n; i++) {
		const tb_ceiling *t = tb_ceiling_find(b[i].card, b[i].dtype);
		tb_ceiling shown = { b[i].card, b[i].dtype, 0, NULL, NULL };
		const char *fmt = tb_ceiling_format(&shown);
		bool same = t && fabs(t->mfu - b[i].mfu) < 0.0005 && strcmp(t->run, b[i].c->id) == 0;
		if (!same) {
			rc = 1;
			fprintf(stderr, "validate_perf: ceiling.c should hold { \"%s\", %s, %.4f, \"%s\" }\n",
			        b[i].card, b[i].dtype == TB_DTYPE_FP8 ? "TB_DTYPE_FP8" : b[i].dtype == TB_DTYPE_FP4
			        ? "TB_DTYPE_FP4" : "TB_DTYPE_BF16", b[i].mfu, b[i].c->id);
		}
		fprintf(f, "| %s | %s | %.1f%% | %s (%s) | %s |\n", b[i].card, fmt,
		        100 * b[i].mfu, b[i].c->id, b[i].c->group[0] ? b[i].c->group : "original set",
		        same ? "holds it" : "**differs**");
	}
	for (size_t i = 0; i < tb_ceiling_count(); i++) {
		const tb_ceiling *t = tb_ceiling_at(i);
		int j = 0;
		while (j < n && !(strcmp(b[j].card, t->card) == 0 && b[j].dtype == t->dtype))
			j++;
		if (j == n) {
			rc = 1;
			fprintf(stderr, "validate_perf: ceiling.c names %s (%s), which no scored row supports\n",
			        t->card, t->run);
		}
	}
	return rc;
}

#define S_MAX 64

typedef struct S_card {
	char card[32];
	tb_dtype dtype;
	int sources, runs, within;
	double med[S_MAX];
} S_card;

static bool S_same(const tb_vruns_case *a, const tb_vruns_case *b)
{
	return S_dtype(a) == S_dtype(b) && strcmp(a->group, b->group) == 0 &&
	       strcmp(a->inputs.hardware.gpu.name, b->inputs.hardware.gpu.name) == 0;
}

static const char *S_enum(tb_dtype d)
{
	return d == TB_DTYPE_FP8 ? "TB_DTYPE_FP8" : d == TB_DTYPE_FP4 ? "TB_DTYPE_FP4" : "TB_DTYPE_BF16";
}

/* The cards and formats in order of first appearance, each with the
 * median of every source's held-out runs on it. */
static int S_cards(const tb_vruns_case *const *rows, const double *err, int nrows, S_card *out)
{
	int n = 0;
	for (int i = 0; i < nrows; i++) {
		const tb_vruns_case *c = rows[i];
		bool first = true;
		for (int j = 0; first && j < i; j++)
			first = !S_same(rows[j], c);
		if (!first)
			continue;
		double e[2 * TB_VRUNS_ROWS_MAX];
		int m = 0;
		for (int j = i; j < nrows; j++)
			if (S_same(rows[j], c))
				e[m++] = err[j];
		double a[2 * TB_VRUNS_ROWS_MAX];
		for (int j = 0; j < m; j++)
			a[j] = fabs(e[j]);
		double med = tb_vperf_median(e, m), abs_med = tb_vperf_median(a, m);
		const char *card = c->inputs.hardware.gpu.name;
		int k = 0;
		while (k < n && !(strcmp(out[k].card, card) == 0 && out[k].dtype == S_dtype(c)))
			k++;
		if (k == n) {
			if (n == S_MAX)
				continue;
			memset(&out[n], 0, sizeof out[n]);
			snprintf(out[n].card, sizeof out[n].card, "%s", card);
			out[n].dtype = S_dtype(c);
			n++;
		}
		if (out[k].sources == S_MAX)
			continue;
		out[k].med[out[k].sources++] = med;
		out[k].runs += m;
		out[k].within += abs_med <= TB_RECORD_BAR + 5e-4;
	}
	return n;
}

static int S_write_record(FILE *f, const tb_vruns_case *const *rows, const double *err, int nrows)
{
	static S_card cs[S_MAX];
	int n = S_cards(rows, err, nrows, cs), rc = 0;
	fprintf(f, "\n## The model's record per card (`src/record.c`)\n\n"
	           "Written by `make validate` (tests/validate_cards.c): every held-out run above, the older "
	           "set's and the modern ones, by card and matmul format. A source is a group of those tables with held-out runs "
	           "on the card in that format; its error is the median of those runs' signed errors, "
	           "and the card's is the median over its sources. Where that is beyond %.0f%%, the bar "
	           "each source is held to, the estimate and the report say so beside the prediction "
	           "(nothing is corrected by it: these runs are the test, not the fit). `make validate` "
	           "fails when `src/record.c` no longer holds these figures.\n\n"
	           "| Card | Format | Sources | Held-out runs | Sources within %.0f%% | Median error | Said |\n"
	           "|---|---|---:|---:|---:|---:|---|\n", 100 * TB_RECORD_BAR, 100 * TB_RECORD_BAR);
	for (int i = 0; i < n; i++) {
		S_card *c = &cs[i];
		double med = tb_vperf_median(c->med, c->sources);
		const tb_record *t = tb_record_find(c->card, c->dtype);
		bool same = t && t->sources == c->sources && t->runs == c->runs &&
		            t->sources_within == c->within && fabs(t->median_err - med) < 5e-4;
		if (!same) {
			rc = 1;
			fprintf(stderr, "validate_perf: record.c should hold { \"%s\", %s, %d, %d, %d, %.3f }\n",
			        c->card, S_enum(c->dtype), c->sources, c->runs, c->within, med);
		}
		fprintf(f, "| %s | %s | %d | %d | %d | %+.1f%% | %s |\n", c->card, tb_ceiling_format_dtype(c->dtype),
		        c->sources, c->runs, c->within, 100 * med,
		        !same ? "**record.c differs**" : fabs(med) > TB_RECORD_BAR ? "a warning" : "—");
	}
	for (size_t i = 0; i < tb_record_count(); i++) {
		const tb_record *t = tb_record_at(i);
		int j = 0;
		while (j < n && !(strcmp(cs[j].card, t->card) == 0 && cs[j].dtype == t->dtype))
			j++;
		if (j == n) {
			rc = 1;
			fprintf(stderr, "validate_perf: record.c names %s in %s, which no held-out row covers\n",
			            t->card, tb_ceiling_format_dtype(t->dtype));
		}
	}
	return rc;
}

int tb_vperf_write_cards(FILE *f)
{
	static const tb_vruns_case *held[2 * TB_VRUNS_ROWS_MAX];
	static double err[2 * TB_VRUNS_ROWS_MAX];
	int rc = S_write_ceilings(f);
	if (S_write_record(f, held, err, S_held(held, err)))
		rc = 1;
	return rc;
}
