/* validate_record.c: the step-time model's held-out record per card and
 * matmul format (the older set's held-out rows and the modern ones), and
 * the check that src/record.c holds it.  A source
 * (a runs.yaml group) counts on a card and format where it has held-out
 * runs on them; its median signed error is over those runs alone, so a
 * source that ran two formats counts once in each. */
#include "validate_perf.h"
#include "validate_runs.h"

#include "trainbudget/ceiling.h"
#include "trainbudget/record.h"

#include <math.h>
#include <string.h>

#define S_MAX 64

typedef struct S_card {
	char card[32];
	tb_dtype dtype;
	int sources, runs, within;
	double med[S_MAX];
} S_card;

static tb_dtype S_dtype(const tb_vruns_case *c)
{
	return c->in.matmul_bytes == 1 ? TB_DTYPE_FP8 : c->in.matmul_bytes < 1 ? TB_DTYPE_FP4 : TB_DTYPE_BF16;
}

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

int tb_vperf_write_record(FILE *f, const tb_vruns_case *const *rows, const double *err, int nrows)
{
	static S_card cs[S_MAX];
	int n = S_cards(rows, err, nrows, cs), rc = 0;
	fprintf(f, "\n## The model's record per card (`src/record.c`)\n\n"
	           "Written by `make validate` (tests/validate_record.c): every held-out run above, the older "
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
