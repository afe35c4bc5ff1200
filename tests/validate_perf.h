/* validate_perf.h: what validate_perf.c shares with the sections written
 * apart (validate_plan.c, validate_misses.c, validate_tried.c, validate_eval.c,
 * validate_memory.c, validate_cards.c). */
#ifndef TB_VALIDATE_PERF_H
#define TB_VALIDATE_PERF_H

#include <stdio.h>

/* The median of v[0..n), NAN when n is 0; sorts v in place. */
double tb_vperf_median(double *v, int n);

/* Writes the modern runs' misses, mechanism by mechanism (validate_misses.c). */
void tb_vperf_write_misses(FILE *f);

/* Writes the groups outside issue 20's bar (median > 10%), each with its
 * account (validate_open.c): group[i], its held-out median |error| and
 * median signed error, for the n groups with held-out rows. */
void tb_vperf_write_open(FILE *f, const char *const *group, const double *median,
                         const double *signed_median, int n);

/* Writes the MLPerf rows' misses and what their logs and the vendors'
 * benchmarks showed about the cards, as bullets of the misses
 * (validate_mlperf.c). */
void tb_vperf_write_mlperf(FILE *f);

/* Writes the mechanisms measured and not entered, and the cards' figures
 * entered since, as bullets of the misses (validate_tried.c). */
void tb_vperf_write_tried(FILE *f);

/* Writes the forward pass against the sources' forward-only steps
 * (validate_eval.c); the dump prints it row by row. */
void tb_vperf_write_eval(FILE *f);
void tb_vperf_dump_eval(void);

/* The error of case c's prediction under constants k (NULL: the fitted
 * ones), (predicted - published) / published, its result in *res; NAN
 * where the model refuses the layout or nothing was published. */
typedef struct tb_vruns_case tb_vruns_case;
typedef struct tb_perf_consts tb_perf_consts;
typedef struct tb_perf_result tb_perf_result;
double tb_vperf_err(const tb_vruns_case *c, const tb_perf_consts *k, tb_perf_result *res);

/* Writes the tables kept per card and format, the best published MFU and
 * the model's held-out record, and returns 1 where src/ceiling.c or
 * src/record.c no longer holds them (validate_cards.c). */
int tb_vperf_write_cards(FILE *f);

/* Writes the memory model against the peak memory the sources print
 * (validate_memory.c). */
void tb_vperf_write_memory(FILE *f);

#endif
