/* risk.h: how likely the plan is.
 *
 * The days and the cost of a run are uncertain for two reasons: the
 * throughput (the MFU the run will reach) is known only as a band, and
 * failures strike at random.  tb_risk_compute() draws both and reports the
 * spread as percentiles, the chance of meeting the deadline and of staying
 * within the budget, and the budget that holds with 90% probability.
 *
 * Each sample:
 *   u  ~ the MFU band (stratified: sample i draws from the i-th of n equal
 *        slices of probability, so the band's own percentiles come out
 *        nearly exact)
 *   W  = F / (n P u)                       pure compute
 *   Wc = W (1 + delta/tau)                 with the checkpoint saves
 *   N  ~ Poisson(lambda * Wc / (1 - lambda l))   failures over the expected wall clock
 *   T  = Wc + N R + (tau + delta) (U_1 + ... + U_N),  U_j ~ uniform(0, 1)
 *   cost = T n p / 3600,  p ~ the price band
 * so E[T | u] is exactly goodput.h's wall clock for that u.  Sums of more
 * than 4 uniforms are drawn from their normal limit (Irwin-Hall).
 *
 * Reproducible: a fixed seed and a generator written here (xoshiro256**,
 * seeded by splitmix64; Blackman and Vigna 2018); libm is used only for
 * exp, log, log1p, sqrt and erfc.  Two scenarios share their random
 * numbers (one stream each for the MFU, the price and the failures), so a
 * what-if (twice the GPUs) moves the figures by its effect, not by noise.
 *
 * Pure: no I/O; the samples live in one heap block for the call (thread-
 * local scratch of 256 KB was zeroed for every thread any command started). */
#ifndef TB_RISK_H
#define TB_RISK_H

#include <stdbool.h>
#include <stdint.h>

#include "trainbudget/bill.h"

/* ---- distributions ----------------------------------------------------- */

typedef enum {
	TB_DIST_FIXED,          /* a: the value */
	TB_DIST_TRIANGULAR,     /* a <= b <= c: low, most likely, high */
	TB_DIST_NORMAL,         /* a: mean, b: standard deviation; cut to [lo, hi] */
	TB_DIST_LOGNORMAL       /* a: median, b: sigma of the log; cut to [lo, hi] */
} tb_dist_kind;

/* A positive quantity known as a band.  The user's MFU range [low,
 * expected, high] is a triangle on it (a three-point estimate); a step-time
 * model's measured error is a lognormal around its prediction (a relative
 * error, symmetric in log).  Normal and lognormal are truncated to
 * [lo, hi] (exactly: the inverse CDF of the truncated law). */
typedef struct tb_dist {
	tb_dist_kind kind;
	double a, b, c;
	double lo, hi;
} tb_dist;

tb_dist tb_dist_fixed(double v);
tb_dist tb_dist_triangular(double low, double mode, double high);
tb_dist tb_dist_normal(double mean, double sd, double lo, double hi);
tb_dist tb_dist_lognormal(double median, double sigma, double lo, double hi);

/* The p-quantile, p in (0, 1) (clamped); the CDF at x.  A degenerate
 * band (zero width or spread) is its single value. */
double tb_dist_quantile(const tb_dist *d, double p);
double tb_dist_cdf(const tb_dist *d, double x);

/* The standard normal CDF and its inverse (Acklam's rational
 * approximation, refined by one Halley step to double precision). */
double tb_risk_normal_cdf(double x);
double tb_risk_normal_quantile(double p);

/* ---- the risk model ---------------------------------------------------- */

/* Chosen for speed and precision together: with stratified MFU draws the
 * band's percentiles are exact to a small fraction of a percent, and a
 * probability is known to +-0.8 points (one standard error at 50%) at
 * about 0.3 ms per report (docs/performance.md). */
#define TB_RISK_SAMPLES 4096
#define TB_RISK_SAMPLES_MAX 16384
#define TB_RISK_SEED UINT64_C(0x747261696e627564)  /* "trainbud" */

#define TB_RISK_BINS 24          /* histogram bins over [min, max] */
#define TB_RISK_CDF_POINTS 21    /* percentiles 0, 5, ..., 100 */

typedef struct tb_risk_in {
	double flops;                   /* F: model FLOPs for the run */
	double gpus;                    /* n */
	double peak_flops_per_gpu;      /* P, dense */
	tb_dist mfu;                    /* u */
	tb_dist price;                  /* per GPU-hour; fixed when certain */
	/* From the goodput model (goodput.h). */
	double checkpoint_overhead;     /* delta / tau */
	double failure_rate_per_s;      /* lambda */
	double failure_overhead;        /* lambda l; >= 1: the run never finishes */
	double restart_s;               /* R */
	double segment_s;               /* tau + delta */
	bool has_deadline;
	double deadline_s;
	bool has_budget;
	double budget;
	/* each run's cost is its bill (bill.h): what is booked, ablations,
	 * storage; all zero: the compute cost */
	tb_bill_in bill;
	int samples;                    /* 0: TB_RISK_SAMPLES; at most TB_RISK_SAMPLES_MAX */
	uint64_t seed;                  /* 0: TB_RISK_SEED */
} tb_risk_in;

typedef struct tb_risk {
	/* false when the inputs give no finite time (no FLOPs, no GPUs, no
	 * peak, no MFU) or the run never finishes (`finishes` false); then
	 * every figure below is 0 except the probabilities, which are 0. */
	bool known;
	bool finishes;                  /* failure_overhead < 1 */
	int samples;
	uint64_t seed;
	double days_p10, days_p50, days_p90, days_mean;
	double cost_p10, cost_p50, cost_p90, cost_mean;
	double failures_mean;           /* failures per run, averaged over samples */
	bool has_deadline, has_budget;
	double p_meets_deadline;        /* share of samples with T <= deadline */
	double p_within_budget;         /* share with cost <= budget */
	double budget_p90;              /* the budget that holds with 90% probability */
	/* For charts: the distribution at 0, 5, ..., 100% and as a histogram
	 * of TB_RISK_BINS equal bins over [lo, hi] (shares summing to 1). */
	double days_cdf[TB_RISK_CDF_POINTS];
	double cost_cdf[TB_RISK_CDF_POINTS];
	double days_hist_lo, days_hist_hi, days_hist[TB_RISK_BINS];
	double cost_hist_lo, cost_hist_hi, cost_hist[TB_RISK_BINS];
} tb_risk;

/* Draws in->samples runs and summarises them into *out.  Deterministic:
 * the same inputs give the same bytes.  Writes only *out (and its
 * thread-local scratch). */
void tb_risk_compute(const tb_risk_in *in, tb_risk *out);

/* A run of consecutive parts (stages): draw i of the run is the sum of
 * draw i of each part, every part drawn with the same seed so its MFU
 * slice is the same (the model's error is shared: comonotonic).  The
 * deadline, the budget, the price, the GPUs and the bill are the first
 * part's.  One part is tb_risk_compute, to the bit. */
#define TB_RISK_PARTS_MAX 16
void tb_risk_compute_parts(const tb_risk_in *parts, int nparts, tb_risk *out);

/* ---- the generator, exposed for tests ------------------------------------ */

typedef struct tb_rng {
	uint64_t s[4];
} tb_rng;

void tb_rng_seed(tb_rng *r, uint64_t seed);
uint64_t tb_rng_next(tb_rng *r);
double tb_rng_uniform(tb_rng *r);       /* in (0, 1), never 0 or 1 */
/* Poisson(mean): inversion below 40, Hoermann's PTRS above (1993). */
double tb_rng_poisson(tb_rng *r, double mean);

#endif
