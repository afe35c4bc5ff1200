/* validate_perf.h: what validate_perf.c shares with the section written
 * apart (validate_plan.c). */
#ifndef TB_VALIDATE_PERF_H
#define TB_VALIDATE_PERF_H

/* The median of v[0..n), NAN when n is 0; sorts v in place. */
double tb_vperf_median(double *v, int n);

#endif
