/* sweep.h: one scenario priced over the values of one setting, or over a
 * grid of two (`--sweep KEY=V1,V2,...`, `--sweep KEY=FROM..TO[:STEP|:xF]`).
 *
 * Every point is the scenario loaded again with KEY=VALUE applied after
 * the file and the --set overrides (the --set machinery, so a point is
 * exactly what `estimate --set KEY=VALUE` would price), then its budget.
 * A value the scenario refuses on its own (not a number, an unknown key)
 * is an error at <--sweep>:1:COL; a value whose combination with the rest
 * the scenario's checks refuse (a batch that no longer splits over the
 * GPU count) is a point marked not valid, with the reason, because where
 * a plan stops being possible is what a sweep is for.
 *
 * The figures kept per point are the budget's headline ones; the cliffs
 * (where the run stops fitting, where more GPUs stop paying) are found
 * from the memory model's own fit answers and the budget's own times. */
#ifndef TB_SWEEP_H
#define TB_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "trainbudget/answer.h"
#include "trainbudget/buf.h"
#include "trainbudget/diag.h"
#include "trainbudget/signoff.h"

struct tb_scenario;

/* At most this many values for one setting (a line chart's points) and
 * for each setting of a grid (a heat map's rows and columns). */
#define TB_SWEEP_MAX_VALUES 128
#define TB_SWEEP_MAX_GRID 16
/* Each doubling of the GPU count should cut the time in half (a 100%
 * speed-up); past the point where every further doubling buys less than
 * this, scaling has stopped paying. */
#define TB_SWEEP_DOUBLING_GAIN 0.30
#define TB_SWEEP_CLIFFS_MAX 16

typedef struct tb_sweep_axis {
	char *arg;              /* the --sweep argument as given, owned */
	char *key;              /* "training.micro_batch", owned */
	size_t n;
	char **values;          /* as --set receives each: "6", "2T", owned */
	char **shown;           /* as a report shows each: an absolute config
	                         * path by its file name (tb_signoff_path) */
	size_t *cols;           /* 1-based column in arg each value comes from */
	/* Every value is a number (x): a line chart over x; else the values
	 * are categories (GPU names).  x is what the loaded scenario holds
	 * for the keys sweep.c knows (hardware.count, training.tokens, ...),
	 * else the value read as a plain number. */
	bool numeric;
	double *x;
} tb_sweep_axis;

/* Parses one --sweep argument into *out (release with
 * tb_sweep_axis_release, also after a failure).  Returns 0, or -1 with an
 * error at <--sweep>:1:COL in d.  max is the most values allowed. */
int tb_sweep_parse(const char *arg, size_t max, tb_sweep_axis *out, tb_diags *d);
void tb_sweep_axis_release(tb_sweep_axis *a);

/* The headline figures of one point's budget.  Times and money are
 * estimate's "expected": the mean of the simulated runs, failures and
 * checkpoints included, and the verdicts are tb_budget_verdict's (not
 * NO); a run that never finishes has time_known false. */
typedef struct tb_sweep_figures {
	int64_t gpus;
	double params, tokens, flops;       /* parameters, training tokens, model FLOPs */
	double memory_per_gpu_bytes;        /* total at the scenario's ZeRO stage */
	double capacity_bytes;
	bool fits, fits_known, activations_known;
	int64_t max_micro_batch;            /* the memory model's own answer */
	bool perf_known;
	double mfu_predicted;               /* the step-time model's MFU */
	double mfu;                         /* the MFU the time uses (most likely) */
	double step_s;
	bool time_known;
	double seconds, seconds_compute;    /* expected (mean); pure compute */
	double gpu_hours, cost, energy_kwh;
	double goodput;
	bool has_deadline, meets_deadline, has_budget, within_budget;
	double deadline_s, budget;
	/* The point's answer (answer.h): what the time and cost above price.
	 * answer_decided false: priced as written (a count-only model). */
	bool answer_decided, answer_runs;
	tb_layout_source answer_source;
	tb_plan_layout answer_layout;
} tb_sweep_figures;

typedef struct tb_sweep_point {
	size_t i, j;            /* the value's index on axis 0 and axis 1 */
	bool valid;             /* false: the scenario refused the combination */
	char *why;              /* then its first error message, owned */
	tb_sweep_figures f;
} tb_sweep_point;

typedef enum {
	TB_CLIFF_STOPS_FITTING,     /* fits at the value before `at`, not at `at` */
	TB_CLIFF_STARTS_FITTING,    /* does not fit before `at`, fits at `at` */
	TB_CLIFF_NEVER_FITS,        /* at no value */
	TB_CLIFF_SCALING,           /* hardware.count: every doubling past `at` buys < 30% */
	TB_CLIFF_NOT_VALID          /* valid before `at`, refused from `at` on */
} tb_cliff_kind;

typedef struct tb_sweep_cliff {
	tb_cliff_kind kind;
	size_t at;              /* index on axis 0 */
	size_t row;             /* a grid: the index on axis 1 it holds for */
	double gain;            /* scaling: the best speed-up per doubling past it */
} tb_sweep_cliff;

typedef struct tb_sweep {
	size_t naxes;           /* 1, or 2 for a grid */
	tb_sweep_axis axis[2];  /* owned */
	size_t npoints;         /* axis[0].n x axis[1].n, axis 0 outer */
	tb_sweep_point *points;
	size_t nvalid;
	size_t ncliffs;
	tb_sweep_cliff cliffs[TB_SWEEP_CLIFFS_MAX];
	char currency[8];
	/* The config.json files the points read (model.hf_config), each
	 * hashed from the bytes that point parsed: inputs the report's hash
	 * must cover too (a sweep over model.hf_config reads several).
	 * inputs_changed: one path read with other bytes by another point
	 * (the file changed during the run), or too many files to list. */
	tb_signoff inputs;
	bool inputs_changed;
} tb_sweep;

/* Parses the --sweep arguments (one, or two for a grid) and prices every
 * point of scenario `text` (named `path`, as tb_scenario_load takes it)
 * with `sets` applied first.  Returns the sweep (tb_sweep_free), or NULL
 * with errors in d: a bad argument, a value the scenario refuses, more
 * than two sweeps, the same key twice, a grid over the limits, no valid
 * point at all. */
tb_sweep *tb_sweep_run(const char *const *args, size_t nargs, const char *path,
                       const char *text, size_t len, const char *const *sets,
                       size_t nsets, tb_diags *d);
/* The same with every point calibrated by pilots (--calibrate); calib
 * NULL: none. */
tb_sweep *tb_sweep_run_calibrated(const char *const *args, size_t nargs, const char *path,
                                  const char *text, size_t len, const char *const *sets,
                                  size_t nsets, const tb_calib *calib, tb_diags *d);
void tb_sweep_free(tb_sweep *s);

/* The point at (i, j); NULL outside the grid.  Borrowed. */
const tb_sweep_point *tb_sweep_at(const tb_sweep *s, size_t i, size_t j);

/* ---- words (sweep_text.c) ------------------------------------------- */

/* A value as a table shows it: a plain count grouped, else as published
 * (axis.shown). */
void tb_sweep_value_text(const tb_sweep *s, size_t a, size_t i, tb_buf *out);
/* "micro_batch 6", "2,048 GPUs", "seq_len 8,192": a value of axis a as a
 * sentence names it. */
void tb_sweep_value_words(const tb_sweep *s, size_t a, size_t i, tb_buf *out);
/* One cliff as a sentence without its full stop: "does not fit from
 * micro_batch 6"; "past 2,048 GPUs each doubling buys less than 30%
 * (at most 12%)"; a grid's cliff starts "at seq_len 4,096, ...". */
void tb_sweep_cliff_words(const tb_sweep *s, const tb_sweep_cliff *c, tb_buf *out);

/* Whether point p does not run as written and is priced on the layout
 * that replaces it (answer.h): its fit and memory are the value's as
 * written, its MFU, time and cost the replacement's, and every table says
 * so with TB_SWEEP_REPLACED_NOTE. */
bool tb_sweep_point_replaced(const tb_sweep_point *p);
#define TB_SWEEP_REPLACED_NOTE \
	"as written it does not fit, in the memory shown; its MFU, wall clock and cost are those of the layout " \
	"that runs instead, as estimate prices that value"

/* The sweep's specifications and every config its points read join sc's
 * inputs, so the printed hash covers what was priced; false, with an error
 * at `where`, when a config changed during the run or there are more than
 * the list holds. */
bool tb_sweep_add_inputs(const tb_sweep *sw, struct tb_scenario *sc, const char *const *sweeps,
                         size_t nsweeps, const char *where, tb_diags *d);

#endif
