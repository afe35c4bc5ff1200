/* compare.h: proposals side by side (`trainbudget compare A.yaml B.yaml`).
 *
 * A comparison is 2 to TB_COMPARE_MAX scenarios, each loaded with the same
 * --set overrides (and, with --sweep, swept over the same values) and
 * priced in full, confidence figures included.  On top of the budgets it
 * holds what a side-by-side page needs and a budget does not: which
 * inputs differ between the proposals (the only ones a reader is shown),
 * and for each headline figure the best proposal and every proposal's
 * difference in percent against the first.
 *
 * Proposals that cannot be compared are refused: figures in different
 * currencies (no exchange rate is known, so neither the costs nor the
 * budget lines share an axis), and the same scenario twice (nothing to
 * compare).  Everything else compares, a figure one proposal lacks (no
 * time for a GPU without the precision's peak) showing as n/a there. */
#ifndef TB_COMPARE_H
#define TB_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include "trainbudget/budget.h"
#include "trainbudget/diag.h"
#include "trainbudget/scenario.h"
#include "trainbudget/sweep.h"

#define TB_COMPARE_MAX 8

/* One scenario file's text, read by the caller. */
typedef struct tb_compare_input {
	const char *path;       /* as given; "-" for standard input */
	const char *text;
	size_t len;
} tb_compare_input;

typedef struct tb_compare_proposal {
	tb_scenario *sc;        /* owned */
	tb_budget *b;           /* owned, with the confidence figures */
	tb_sweep *sweep;        /* owned; NULL without --sweep */
	char label[48];         /* its column: the file's stem, made unique */
} tb_compare_proposal;

/* An input, shown when its value differs between the proposals. */
typedef struct tb_compare_input_row {
	const char *key;        /* the scenario key: "hardware.count" */
	const char *label;      /* "GPUs" */
	char *values[TB_COMPARE_MAX];   /* as the report shows them, owned */
} tb_compare_input_row;

typedef enum { TB_BETTER_NONE, TB_BETTER_LOWER, TB_BETTER_HIGHER } tb_better;

/* How a figure is shown; the report maps these to its filters. */
typedef enum {
	TB_CFMT_COUNT, TB_CFMT_SCI, TB_CFMT_BYTES, TB_CFMT_PCT, TB_CFMT_DAYS,
	TB_CFMT_GROUPED, TB_CFMT_MONEY, TB_CFMT_PROB
} tb_compare_fmt;

/* A headline figure across the proposals. */
typedef struct tb_compare_figure {
	const char *key;        /* JSON and template name: "days", "cost" */
	const char *label;      /* "Wall clock with failures and checkpoints" */
	tb_compare_fmt fmt;
	tb_better better;
	double v[TB_COMPARE_MAX];
	bool known[TB_COMPARE_MAX];
	/* The best value (every proposal that has it, ties included); none
	 * when the figure has no better side or fewer than two are known. */
	bool best[TB_COMPARE_MAX];
	/* (v[k] - v[0]) / v[0]; known when both are and v[0] is not 0. */
	double delta[TB_COMPARE_MAX];
	bool delta_known[TB_COMPARE_MAX];
} tb_compare_figure;

#define TB_COMPARE_FIGURES 16
#define TB_COMPARE_INPUTS 64

typedef struct tb_compare {
	size_t n;
	tb_compare_proposal p[TB_COMPARE_MAX];
	char currency[8];
	/* SHA-256 of the proposals' inputs SHA-256s (each over its file,
	 * its config.json, the overrides and the version: signoff.h), the
	 * overrides and a user template, in order: one name for the set of
	 * inputs the document was made from. */
	char sha256[65];
	char template_sha256[65];   /* "" without a user template */
	size_t nfigures;
	tb_compare_figure figures[TB_COMPARE_FIGURES];
	size_t ninputs;         /* only the inputs that differ */
	tb_compare_input_row inputs[TB_COMPARE_INPUTS];
} tb_compare;

/* Loads every file (all errors of all files, each at FILE:LINE:COL),
 * checks that the proposals can be compared, prices each (and sweeps it
 * over `sweeps`, when given).  Returns the comparison (tb_compare_free) or
 * NULL with errors in d.  n must be 2 to TB_COMPARE_MAX (the command line
 * says so before). */
tb_compare *tb_compare_new(const tb_compare_input *in, size_t n, const char *const *sets,
                           size_t nsets, const char *const *sweeps, size_t nsweeps,
                           tb_diags *d);
void tb_compare_free(tb_compare *c);

/* A user template joins the inputs the hash covers: `len` bytes of the
 * very text the report expands. */
void tb_compare_add_template(tb_compare *c, const char *text, size_t len);

/* The figure named key ("days"); NULL when there is none. */
const tb_compare_figure *tb_compare_figure_find(const tb_compare *c, const char *key);

#endif
