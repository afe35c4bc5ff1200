/* risk.c: Monte Carlo over the MFU band, the price band and the failures,
 * and the budget's confidence figures built on it (at the end).
 *
 * The model is in risk.h and docs/formulas.md.  Everything here is written
 * out rather than taken from a library so that the figures are the same on
 * every machine: the generator (xoshiro256**), the Poisson sampler (PTRS),
 * the inverse normal CDF (Acklam) and the sort. */
#include "trainbudget/risk.h"
#include "risk_int.h"

#include "trainbudget/budget.h"
#include "trainbudget/buf.h"
#include "trainbudget/fmt.h"
#include "trainbudget/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define S_SECONDS_PER_DAY 86400.0
#define S_SECONDS_PER_HOUR 3600.0
#define S_SQRT2 1.41421356237309504880
#define S_SQRT2PI 2.50662827463100050242
#define S_LN_SQRT2PI 0.91893853320467274178

/* ---- the generator ------------------------------------------------------- */

static uint64_t S_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static uint64_t S_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void tb_rng_seed(tb_rng *r, uint64_t seed)
{
	uint64_t x = seed;
	for (int i = 0; i < 4; i++)
		r->s[i] = S_splitmix64(&x);
}

/* The generator and its uniforms inline: the draws take some 4 numbers
 * each, and a call apiece was a twentieth of the risk's time. */
static inline uint64_t S_next(tb_rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = S_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = S_rotl(s[3], 45);
	return out;
}

uint64_t tb_rng_next(tb_rng *r)
{
	return S_next(r);
}

static inline double S_uniform(tb_rng *r)
{
	/* The top 53 bits, centred in their slot: (k + 0.5) / 2^53 is never
	 * 0 or 1, so log() and the inverse CDFs need no guard. */
	return ((double)(S_next(r) >> 11) + 0.5) * 0x1.0p-53;
}

double tb_rng_uniform(tb_rng *r)
{
	return S_uniform(r);
}

/* log(k!) : exact sums below 16, Stirling's series above (error < 1e-12). */
static double S_log_factorial(double k)
{
	if (k < 16) {
		double s = 0;
		for (int i = 2; i <= (int)k; i++)
			s += log((double)i);
		return s;
	}
	double n = k + 1, n2 = n * n;
	return (n - 0.5) * log(n) - n + S_LN_SQRT2PI +
	       (1.0 / 12 - (1.0 / 360 - 1.0 / (1260 * n2)) / n2) / n;
}

/* log(k!) for the k below S_LF_MAX a run's draws meet, each made once:
 * PTRS's slow test asks it for the draws' counts, which gather around the
 * mean (the values are the function's own).  0 where not yet made (log k!
 * is 0 only at k 0 and 1, made again at no cost). */
enum { S_LF_MAX = 512 };
typedef struct S_lf {
	double v[S_LF_MAX];
} S_lf;

static double S_log_factorial_of(S_lf *m, double k)
{
	if (!m || !(k >= 0 && k < S_LF_MAX))
		return S_log_factorial(k);
	int i = (int)k;
	if (m->v[i] == 0)
		m->v[i] = S_log_factorial(k);
	return m->v[i];
}

static inline double S_poisson(tb_rng *r, double mean, S_lf *lf)
{
	if (!(mean > 0) || !isfinite(mean))
		return 0;
	if (mean < 40) {
		/* Inversion: walk the CDF from 0.  Below 40 this costs less than
		 * PTRS's logs; exp(-40) is far from underflow, and the walk stops
		 * where the tail is below a double's resolution. */
		double u = S_uniform(r);
		double p = exp(-mean), cdf = p;
		double k = 0;
		while (u > cdf && k < 400) {
			k += 1;
			p *= mean / k;
			cdf += p;
		}
		return k;
	}
	/* Hoermann 1993, "The transformed rejection method for generating
	 * Poisson random variables", Insurance: Mathematics and Economics
	 * 12(1): the PTRS algorithm, exact for mean >= 10 (used from 40). */
	double slam = sqrt(mean), loglam = 0;
	bool have_loglam = false;
	double b = 0.931 + 2.53 * slam;
	double a = -0.059 + 0.02483 * b;
	double inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
	double vr = 0.9277 - 3.6224 / (b - 2);
	for (;;) {
		double u = S_uniform(r) - 0.5;
		double v = S_uniform(r);
		double us = 0.5 - fabs(u);
		double k = floor((2 * a / us + b) * u + mean + 0.43);
		if (us >= 0.07 && v <= vr)
			return k;
		if (k < 0 || (us < 0.013 && v > us))
			continue;
		/* The slow test: one log for the hat, one for the mass. */
		if (!have_loglam) {
			loglam = log(mean);
			have_loglam = true;
		}
		if (log(v * inv_alpha / (a / (us * us) + b)) <= -mean + k * loglam - S_log_factorial_of(lf, k))
			return k;
	}
}

double tb_rng_poisson(tb_rng *r, double mean)
{
	return S_poisson(r, mean, NULL);
}

/* ---- the normal law ----------------------------------------------------- */

double tb_risk_normal_cdf(double x)
{
	return 0.5 * erfc(-x / S_SQRT2);
}

/* Acklam's algorithm: relative error under 1.15e-9 on (0, 1). */
static double S_acklam(double p)
{
	static const double a[6] = {
		-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
		1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00
	};
	static const double b[5] = {
		-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
		6.680131188771972e+01, -1.328068155288572e+01
	};
	static const double c[6] = {
		-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
		-2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00
	};
	static const double d[4] = {
		7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
		3.754408661907416e+00
	};
	const double plow = 0.02425;
	double x;
	if (p < plow) {
		double q = sqrt(-2 * log(p));
		x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	} else if (p <= 1 - plow) {
		double q = p - 0.5, t = q * q;
		x = (((((a[0] * t + a[1]) * t + a[2]) * t + a[3]) * t + a[4]) * t + a[5]) * q /
		    (((((b[0] * t + b[1]) * t + b[2]) * t + b[3]) * t + b[4]) * t + 1);
	} else {
		double q = sqrt(-2 * log1p(-p));
		x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	}
	return x;
}

/* Acklam's value refined by one Halley step on erfc, which brings it to
 * the precision of erfc itself. */
double tb_risk_normal_quantile(double p)
{
	if (!(p > 0))
		return -HUGE_VAL;
	if (!(p < 1))
		return HUGE_VAL;
	double x = S_acklam(p);
	/* Halley: the error of the CDF, in the tail that keeps its digits. */
	double e = x <= 0 ? 0.5 * erfc(-x / S_SQRT2) - p
	                  : (1 - p) - 0.5 * erfc(x / S_SQRT2);
	double u = e * S_SQRT2PI * exp(x * x / 2);
	return x - u / (1 + x * u / 2);
}

/* ---- distributions ------------------------------------------------------ */

tb_dist tb_dist_fixed(double v)
{
	tb_dist d = { TB_DIST_FIXED, v, v, v, v, v };
	return d;
}

tb_dist tb_dist_triangular(double low, double mode, double high)
{
	tb_dist d = { TB_DIST_TRIANGULAR, low, mode, high, low, high };
	return d;
}

tb_dist tb_dist_normal(double mean, double sd, double lo, double hi)
{
	tb_dist d = { TB_DIST_NORMAL, mean, sd, 0, lo, hi };
	return d;
}

tb_dist tb_dist_lognormal(double median, double sigma, double lo, double hi)
{
	tb_dist d = { TB_DIST_LOGNORMAL, median, sigma, 0, lo, hi };
	return d;
}

static double S_clamp(double x, double lo, double hi)
{
	return x < lo ? lo : x > hi ? hi : x;
}

/* The normal law in standard units z, cut to [za, zb]: the p-quantile
 * and the CDF, each through the tail that keeps its digits. */
static double S_trunc_quantile(double za, double zb, double p)
{
	if (za > 0) {
		/* Both ends in the upper tail: work with Q(z) = Phi(-z). */
		double qa = tb_risk_normal_cdf(-za), qb = tb_risk_normal_cdf(-zb);
		return -tb_risk_normal_quantile(qb + (1 - p) * (qa - qb));
	}
	double pa = tb_risk_normal_cdf(za), pb = tb_risk_normal_cdf(zb);
	return tb_risk_normal_quantile(pa + p * (pb - pa));
}

static double S_trunc_cdf(double za, double zb, double z)
{
	if (z <= za)
		return 0;
	if (z >= zb)
		return 1;
	if (za > 0) {
		double qa = tb_risk_normal_cdf(-za), qb = tb_risk_normal_cdf(-zb);
		return (qa - tb_risk_normal_cdf(-z)) / (qa - qb);
	}
	double pa = tb_risk_normal_cdf(za), pb = tb_risk_normal_cdf(zb);
	return (tb_risk_normal_cdf(z) - pa) / (pb - pa);
}

/* The law's location and spread in standard units, or false when it is
 * degenerate (its single value is then in *only). */
static bool S_standard(const tb_dist *d, double *za, double *zb, double *only)
{
	double lo = d->lo, hi = d->hi;
	if (!(lo <= hi))
		hi = lo;
	if (d->kind == TB_DIST_NORMAL) {
		*only = S_clamp(d->a, lo, hi);
		if (!(d->b > 0) || !isfinite(d->b) || lo == hi)
			return false;
		*za = (lo - d->a) / d->b;
		*zb = (hi - d->a) / d->b;
	} else {
		*only = S_clamp(d->a, lo, hi);
		if (!(d->a > 0) || !(d->b > 0) || !isfinite(d->b) || lo == hi)
			return false;
		*za = lo > 0 ? (log(lo) - log(d->a)) / d->b : -HUGE_VAL;
		*zb = (log(hi) - log(d->a)) / d->b;
	}
	/* A band cut away entirely (both ends on one side, far out) has no
	 * mass left: take the nearer end. */
	if (!(tb_risk_normal_cdf(*zb) - tb_risk_normal_cdf(*za) > 0) &&
	    !(tb_risk_normal_cdf(-*za) - tb_risk_normal_cdf(-*zb) > 0)) {
		*only = *zb <= 0 ? hi : lo;
		return false;
	}
	return true;
}

/* Inline where the draws ask it, once or twice a run each. */
static inline double S_dist_quantile(const tb_dist *d, double p)
{
	p = S_clamp(p, 0x1.0p-60, 1 - 0x1.0p-53);
	switch (d->kind) {
	case TB_DIST_TRIANGULAR: {
		double a = d->a, m = d->b, c = d->c;
		if (!(c > a))
			return a;
		double fm = (m - a) / (c - a);
		if (p < fm)
			return a + sqrt(p * (c - a) * (m - a));
		return c - sqrt((1 - p) * (c - a) * (c - m));
	}
	case TB_DIST_NORMAL:
	case TB_DIST_LOGNORMAL: {
		double za, zb, only;
		if (!S_standard(d, &za, &zb, &only))
			return only;
		double z = S_trunc_quantile(za, zb, p);
		double x = d->kind == TB_DIST_NORMAL ? d->a + d->b * z : d->a * exp(d->b * z);
		return S_clamp(x, d->lo, d->hi);
	}
	case TB_DIST_FIXED:
	default:
		return d->a;
	}
}

double tb_dist_quantile(const tb_dist *d, double p)
{
	return S_dist_quantile(d, p);
}

double tb_dist_cdf(const tb_dist *d, double x)
{
	switch (d->kind) {
	case TB_DIST_TRIANGULAR: {
		double a = d->a, m = d->b, c = d->c;
		if (!(c > a))
			return x < a ? 0 : 1;
		if (x <= a)
			return 0;
		if (x >= c)
			return 1;
		if (x <= m)
			return (x - a) * (x - a) / ((c - a) * (m - a));
		return 1 - (c - x) * (c - x) / ((c - a) * (c - m));
	}
	case TB_DIST_NORMAL:
	case TB_DIST_LOGNORMAL: {
		double za, zb, only;
		if (!S_standard(d, &za, &zb, &only))
			return x < only ? 0 : 1;
		double z;
		if (d->kind == TB_DIST_NORMAL)
			z = (x - d->a) / d->b;
		else
			z = x > 0 ? (log(x) - log(d->a)) / d->b : -HUGE_VAL;
		return S_trunc_cdf(za, zb, z);
	}
	case TB_DIST_FIXED:
	default:
		return x < d->a ? 0 : 1;
	}
}

/* ---- order statistics --------------------------------------------------- */

static void S_swap(double *x, double *y)
{
	double t = *x;
	*x = *y;
	*y = t;
}

/* Order statistics: afterwards v[k] is the k-th smallest of v[lo, hi) for
 * every k of ks (ascending, within [lo, hi)).  Quicksort's partitions
 * (median of three), descending only into the parts that hold a wanted
 * index, and insertion sort below 16: the quantiles and the histogram need
 * some 40 order statistics of 4,096 runs, not their order (a fourth of a
 * full sort's work).  Recursion only where both parts hold one, so its
 * depth stays under the number wanted. */
static void S_select(double *v, long lo, long hi, const long *ks, int nk)
{
	while (nk > 0 && hi - lo > 16) {
		double *w = v + lo;
		long n = hi - lo, mid = n / 2;
		if (w[mid] < w[0])
			S_swap(&w[mid], &w[0]);
		if (w[n - 1] < w[0])
			S_swap(&w[n - 1], &w[0]);
		if (w[n - 1] < w[mid])
			S_swap(&w[n - 1], &w[mid]);
		double pivot = w[mid];
		long i = 0, j = n - 1;
		for (;;) {
			while (w[i] < pivot)
				i++;
			while (pivot < w[j])
				j--;
			if (i >= j)
				break;
			S_swap(&w[i], &w[j]);
			i++;
			j--;
		}
		/* [lo, left) <= pivot <= [left, hi) */
		long left = lo + j + 1;
		int nl = 0;
		while (nl < nk && ks[nl] < left)
			nl++;
		if (nl > 0 && nl < nk)
			S_select(v, lo, left, ks, nl);
		if (nl == nk) {
			hi = left;
		} else {
			lo = left;
			ks += nl;
			nk -= nl;
		}
	}
	if (nk == 0)
		return;
	for (long i = lo + 1; i < hi; i++) {
		double x = v[i];
		long j = i;
		for (; j > lo && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* The order statistics S_quantile reads of n values at q. */
static int S_quantile_at(int n, double q, long at[2])
{
	int lo = (int)floor((n - 1) * q);
	if (lo >= n - 1) {
		at[0] = n - 1;
		return 1;
	}
	at[0] = lo;
	at[1] = lo + 1;
	return 2;
}

/* The q-quantile of v, linear between order statistics (Hyndman and Fan
 * 1996, type 7: what R and NumPy give by default), where v holds the ones
 * S_quantile_at names in place (S_select). */
static double S_quantile(const double *v, int n, double q)
{
	double h = (n - 1) * q;
	int lo = (int)floor(h);
	if (lo >= n - 1)
		return v[n - 1];
	return v[lo] + (h - lo) * (v[lo + 1] - v[lo]);
}

static int S_cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return (x > y) - (x < y);
}

/* Puts in place every order statistic of v's n values that the summary
 * and the 10th, 50th and 90th percentiles read: the ends (the histogram's
 * range) and both sides of each quantile. */
static void S_order(double *v, int n)
{
	static const double extra[3] = { 0.10, 0.50, 0.90 };
	long ks[2 * (TB_RISK_CDF_POINTS + 3) + 2];
	int nk = 0;
	ks[nk++] = 0;
	ks[nk++] = n - 1;
	for (int i = 0; i < TB_RISK_CDF_POINTS + 3; i++) {
		double q = i < TB_RISK_CDF_POINTS ? (double)i / (TB_RISK_CDF_POINTS - 1)
		                                  : extra[i - TB_RISK_CDF_POINTS];
		nk += S_quantile_at(n, q, &ks[nk]);
	}
	qsort(ks, (size_t)nk, sizeof *ks, S_cmp_long);
	int u = 0;
	for (int i = 0; i < nk; i++)
		if (u == 0 || ks[i] != ks[u - 1])
			ks[u++] = ks[i];
	S_select(v, 0, n, ks, u);
}

void tb_risk_bin_counts(const double *v, int n, double lo, double width,
                        int count[TB_RISK_BINS])
{
	for (int b = 0; b < TB_RISK_BINS; b++)
		count[b] = 0;
	if (!(width > 0)) {
		count[0] = n;
		return;
	}
	/* The product by the reciprocal is within 4 units in the last place
	 * of the quotient (below 24: within 2e-14), so it truncates the same
	 * except within that of a whole number, where the quotient itself is
	 * taken: the division's bins at a multiply's cost (the 8,192
	 * divisions were a tenth of the risk's time). */
	double inv = 1 / width;
	/* a subnormal width has no finite reciprocal: the quotient alone */
	bool near_all = !(inv < HUGE_VAL);
	for (int i = 0; i < n; i++) {
		double x = near_all ? 0 : (v[i] - lo) * inv;
		int k = (int)x;
		if (near_all || x - k < 1e-12 || x - k > 1 - 1e-12)
			k = (int)((v[i] - lo) / width);
		count[k < 0 ? 0 : k >= TB_RISK_BINS ? TB_RISK_BINS - 1 : k]++;
	}
}

static void S_summary(const double *v, int n, double cdf[TB_RISK_CDF_POINTS],
                      double *hist_lo, double *hist_hi, double hist[TB_RISK_BINS])
{
	for (int i = 0; i < TB_RISK_CDF_POINTS; i++)
		cdf[i] = S_quantile(v, n, (double)i / (TB_RISK_CDF_POINTS - 1));
	*hist_lo = v[0];
	*hist_hi = v[n - 1];
	double width = (*hist_hi - *hist_lo) / TB_RISK_BINS, lo = *hist_lo;
	int count[TB_RISK_BINS];
	tb_risk_bin_counts(v, n, lo, width, count);
	/* each bin's share, 1/n added once per value in it: from the counts,
	 * the same sums as adding each value's share in turn; with n a power
	 * of two every partial sum is exact, and the product is the sum */
	bool exact = (n & (n - 1)) == 0;
	for (int b = 0; b < TB_RISK_BINS; b++) {
		hist[b] = exact ? count[b] * (1.0 / n) : 0;
		for (int c = 0; !exact && c < count[b]; c++)
			hist[b] += 1.0 / n;
	}
}

/* ---- the model ---------------------------------------------------------- */

static bool S_pos(double v)
{
	return v > 0 && isfinite(v);
}

/* U_1 + ... + U_n for n uniforms on (0, 1): summed while few, else from
 * the normal limit mean n/2, variance n/12 (cut to [0, n]).  From 5 terms
 * on the limit's CDF is within 0.006 of the exact (Irwin-Hall) one, 0.002
 * from 12; the sum is a small part of a run's time in any case. */
static double S_uniform_sum_few(tb_rng *r, double n)
{
	double s = 0;
	for (int i = 0; i < (int)n; i++)
		s += S_uniform(r);
	return s;
}

/* The same above 4 terms, from the one uniform u it draws. */
static double S_uniform_sum_many(double n, double u)
{
	/* Acklam alone: 1e-9 is far below what the normal limit itself errs. */
	double z = S_acklam(u);
	return S_clamp(n / 2 + sqrt(n / 12) * z, 0, n);
}

/* One part of a run (a stage) as the draws see it: its rates and the
 * three streams, seeded alike in every part, so that draw i of each part
 * takes the same slice of its MFU band (the model's error shared by the
 * stages, whose sums are then comonotonic). */
typedef struct S_part {
	const tb_risk_in *in;
	double rate, lambda, ckpt, keep, restart, segment;
	tb_rng mfu, price, fail;
} S_part;

static bool S_part_init(S_part *p, const tb_risk_in *in, uint64_t seed)
{
	p->in = in;
	p->rate = in->gpus * in->peak_flops_per_gpu;   /* FLOP/s at MFU 1 */
	if (!S_pos(in->flops) || !S_pos(p->rate) || !(in->failure_overhead < 1))
		return false;
	p->lambda = S_pos(in->failure_rate_per_s) ? in->failure_rate_per_s : 0;
	p->ckpt = in->checkpoint_overhead > 0 ? in->checkpoint_overhead : 0;
	p->keep = 1 - (in->failure_overhead > 0 ? in->failure_overhead : 0);
	p->restart = in->restart_s > 0 ? in->restart_s : 0;
	p->segment = in->segment_s > 0 ? in->segment_s : 0;
	/* One stream per source of uncertainty, so that the MFU and price
	 * draws of sample i are the same in every scenario, however many
	 * numbers the failures of another scenario consumed. */
	tb_rng_seed(&p->mfu, seed);
	tb_rng_seed(&p->price, seed ^ UINT64_C(0x5052494345));      /* "PRICE" */
	tb_rng_seed(&p->fail, seed ^ UINT64_C(0x4641494c53));       /* "FAILS" */
	return true;
}

/* Draws are made in blocks of this many, each stream through a block in
 * its own loop: a draw's arithmetic is a chain of divisions, square roots
 * and logarithms too long for the processor to overlap with the next
 * draw's when the streams interleave, and the failure stream's numbers
 * depend on the counts it draws alone.  The numbers drawn, and their
 * order in each stream, are those of one draw at a time. */
enum { S_BLOCK = 64 };

/* Draws [i0, i0 + m) of a part (m at most S_BLOCK): each one's wall
 * clock added to t[] and its failures into f[]; false when an MFU drawn
 * is not positive.  lf: the run's log-factorials (S_lf). */
static bool S_part_draws(S_part *p, int i0, int m, int n, double *t, double *f, S_lf *lf)
{
	double wc[S_BLOCK], w[S_BLOCK];
	for (int j = 0; j < m; j++) {
		/* Stratified: slice i of the MFU band's probability. */
		double u = S_dist_quantile(&p->in->mfu, (i0 + j + S_uniform(&p->mfu)) / n);
		if (!S_pos(u))
			return false;
		wc[j] = p->in->flops / (p->rate * u) * (1 + p->ckpt);
	}
	if (!(p->lambda > 0)) {
		for (int j = 0; j < m; j++) {
			t[j] += wc[j];
			f[j] = 0;
		}
		return true;
	}
	/* the failure stream: each draw's count, then the numbers its
	 * restarts' spread takes (a sum of few uniforms, else one uniform
	 * for the normal limit, made below) */
	for (int j = 0; j < m; j++) {
		f[j] = S_poisson(&p->fail, p->lambda * wc[j] / p->keep, lf);
		w[j] = f[j] <= 4 ? S_uniform_sum_few(&p->fail, f[j]) : S_uniform(&p->fail);
	}
	for (int j = 0; j < m; j++) {
		double spread = f[j] <= 4 ? w[j] : S_uniform_sum_many(f[j], w[j]);
		t[j] += wc[j] + (f[j] * p->restart + p->segment * spread);
	}
	return true;
}

void tb_risk_compute(const tb_risk_in *in, tb_risk *out)
{
	tb_risk_compute_parts(in, 1, out);
}

/* The n draws of every part, into draw_days and draw_cost (n each), and the
 * figures of *out they give. */
static void S_samples(const tb_risk_in *parts, int nparts, S_part *part, int n, double *draw_days,
                      double *draw_cost, tb_risk *out)
{
	const tb_risk_in *in = &parts[0];
	/* the cluster, its price and the bill are the whole run's: the first
	 * part's */
	double gpu_h_per_s = in->gpus / S_SECONDS_PER_HOUR;
	/* A fixed price makes cost a fixed multiple of days: one sort. */
	double price_lo = tb_dist_quantile(&in->price, 0.001);
	bool price_fixed = price_lo == tb_dist_quantile(&in->price, 0.999);
	double cost_per_day = S_SECONDS_PER_DAY * gpu_h_per_s * (price_lo > 0 ? price_lo : 0);
	/* the bill is non-decreasing in the wall clock, so the days' order
	 * statistics give the bills' */
	bool billed = tb_bill_any(&in->bill);

	double sum_days = 0, sum_cost = 0, sum_failures = 0;
	int meets = 0, within = 0;
	double tb[S_BLOCK], fb[TB_RISK_PARTS_MAX][S_BLOCK];
	S_lf lfm, *lf = &lfm;       /* shared by the parts: the same function */
	memset(&lfm, 0, sizeof lfm);
	for (int i = 0; i < n; i++) {
		int j = i % S_BLOCK;
		if (j == 0) {
			int m = n - i < S_BLOCK ? n - i : S_BLOCK;
			for (int b = 0; b < m; b++)
				tb[b] = 0;
			for (int k = 0; k < nparts; k++)
				if (!S_part_draws(&part[k], i, m, n, tb, fb[k], lf)) {
					out->known = false;
					return;
				}
		}
		double t = tb[j];
		for (int k = 0; k < nparts; k++)
			sum_failures += fb[k][j];
		double days = t / S_SECONDS_PER_DAY, cost;
		if (price_fixed) {
			cost = billed ? tb_bill_compute(&in->bill, price_lo, days * cost_per_day, t, NULL)
			              : days * cost_per_day;
		} else {
			double price = S_dist_quantile(&in->price, S_uniform(&part[0].price));
			price = price > 0 ? price : 0;
			cost = t * gpu_h_per_s * price;
			if (billed)
				cost = tb_bill_compute(&in->bill, price, cost, t, NULL);
			draw_cost[i] = cost;
		}
		if (!isfinite(t) || !isfinite(cost))
			return;
		draw_days[i] = days;
		sum_days += days;
		sum_cost += cost;
		meets += in->has_deadline && t <= in->deadline_s;
		within += in->has_budget && cost <= in->budget;
	}
	out->known = isfinite(sum_days) && isfinite(sum_cost);
	if (!out->known)
		return;
	out->days_mean = sum_days / n;
	out->cost_mean = sum_cost / n;
	out->failures_mean = sum_failures / n;
	out->p_meets_deadline = in->has_deadline ? (double)meets / n : 0;
	out->p_within_budget = in->has_budget ? (double)within / n : 0;

	S_order(draw_days, n);
	if (price_fixed) {
		for (int i = 0; i < n; i++)
			draw_cost[i] = billed ? tb_bill_compute(&in->bill, price_lo, draw_days[i] * cost_per_day,
			                                     draw_days[i] * S_SECONDS_PER_DAY, NULL)
			                   : draw_days[i] * cost_per_day;
	} else {
		S_order(draw_cost, n);
	}
	out->days_p10 = S_quantile(draw_days, n, 0.10);
	out->days_p50 = S_quantile(draw_days, n, 0.50);
	out->days_p90 = S_quantile(draw_days, n, 0.90);
	out->cost_p10 = S_quantile(draw_cost, n, 0.10);
	out->cost_p50 = S_quantile(draw_cost, n, 0.50);
	out->cost_p90 = S_quantile(draw_cost, n, 0.90);
	out->budget_p90 = out->cost_p90;
	S_summary(draw_days, n, out->days_cdf, &out->days_hist_lo, &out->days_hist_hi, out->days_hist);
	S_summary(draw_cost, n, out->cost_cdf, &out->cost_hist_lo, &out->cost_hist_hi, out->cost_hist);
}


void tb_risk_compute_parts(const tb_risk_in *parts, int nparts, tb_risk *out)
{
	const tb_risk_in *in = &parts[0];
	memset(out, 0, sizeof *out);
	int n = in->samples > 0 ? in->samples : TB_RISK_SAMPLES;
	if (n > TB_RISK_SAMPLES_MAX)
		n = TB_RISK_SAMPLES_MAX;
	out->samples = n;
	out->seed = in->seed ? in->seed : TB_RISK_SEED;
	out->has_deadline = in->has_deadline;
	out->has_budget = in->has_budget;
	out->finishes = true;
	for (int k = 0; k < nparts; k++)
		out->finishes = out->finishes && parts[k].failure_overhead < 1;
	if (nparts < 1 || nparts > TB_RISK_PARTS_MAX)
		return;

	S_part part[TB_RISK_PARTS_MAX];
	for (int k = 0; k < nparts; k++)
		if (!S_part_init(&part[k], &parts[k], out->seed))
			return;
	/* on the heap, not in thread-local storage: 256 KB of it was zeroed
	 * for every thread any command started */
	double *days = tb_xmalloc((size_t)n * 2 * sizeof *days);     /* S_samples writes each */
	S_samples(parts, nparts, part, n, days, days + n, out);
	free(days);
}

/* ---- the budget's confidence figures ---------------------------------- */

/* The MFU band: the range the time figures use (b->time.mfu), a
 * three-point estimate, hence a triangle.  Hook for the step-time model
 * (perf.h): when its wiring makes the most likely MFU a prediction, time.mfu
 * follows and so does this band; its ends are then the 10th and 90th
 * percentiles of the model's measured error (TB_PERF_ERR_LOW/HIGH), not
 * bounds, and the distribution to draw from is the one with those
 * percentiles (a lognormal around the prediction when symmetric in log,
 * tb_dist_lognormal) rather than a triangle ending at them. */
static tb_dist S_mfu_band(const tb_budget *b)
{
	const double *u = b->time.mfu;
	return tb_dist_triangular(u[0], u[1], u[2]);
}

void tb_budget_compute_risk(const tb_inputs *in, tb_budget *b)
{
	b->risk_mfu = S_mfu_band(b);
	tb_risk_in ri;
	tb_budget_risk_in(in, b, &ri);
	tb_risk_compute(&ri, &b->risk);
}

void tb_budget_risk_in(const tb_inputs *in, const tb_budget *b, tb_risk_in *out)
{
	const tb_time *t = &b->time;
	const tb_goodput *g = &b->goodput;
	tb_risk_in ri;
	memset(&ri, 0, sizeof ri);
	ri.flops = t->known ? b->flops.total_model : 0;
	ri.gpus = (double)in->hardware.count;
	ri.peak_flops_per_gpu = t->peak_flops_per_gpu;
	ri.mfu = S_mfu_band(b);
	/* The price is one number in a scenario: fixed.  A price band would
	 * go here as a triangle, like the MFU. */
	ri.price = tb_dist_fixed(in->hardware.price_per_gpu_hour);
	ri.checkpoint_overhead = g->checkpoint_overhead;
	ri.failure_rate_per_s = g->failure_rate_per_s;
	ri.failure_overhead = g->failure_overhead;
	ri.restart_s = g->restart_s;
	ri.segment_s = g->segment_s;
	ri.has_deadline = t->has_deadline;
	ri.deadline_s = t->deadline_s;
	ri.has_budget = t->has_budget;
	ri.budget = t->budget;
	ri.bill = b->bill_in;
	*out = ri;
}

size_t tb_budget_expected_basis(const tb_budget *b, char *dst, size_t cap)
{
	if (!dst || cap == 0)
		return 0;
	const double *u = b->time.mfu;
	tb_buf o;
	tb_buf_init(&o);
	if (b->n_stages > 0) {
		tb_buf_printf(&o, "over %d stages", b->n_stages);
	} else if (tb_budget_expected(b).mean_of_runs && u[0] < u[2]) {
		tb_buf_puts(&o, "over MFU ");
		tb_fmt_pct(&o, u[0]);
		tb_buf_putc(&o, '-');
		tb_fmt_pct(&o, u[2]);
	} else {
		tb_buf_puts(&o, "at ");
		tb_fmt_pct(&o, u[1]);
		tb_buf_puts(&o, " MFU");
	}
	snprintf(dst, cap, "%s", o.ptr);
	tb_buf_release(&o);
	return strlen(dst);
}

tb_expected tb_budget_expected(const tb_budget *b)
{
	if (b->n_stages > 0)
		return b->staged_total;
	tb_expected e = { 0 };
	const tb_losses *l = &b->losses;
	if (!b->time.known || !l->known)
		return e;
	e.known = true;
	e.seconds = l->seconds[1];
	e.gpu_hours = l->gpu_hours[1];
	e.cost = l->cost[1];
	e.energy_kwh = b->time.energy_known ? l->energy_kwh[1] : 0;
	const tb_risk *rk = &b->risk;
	if (rk->known && e.seconds > 0) {
		/* GPU-hours and energy scale with the wall clock; the cost
		 * is the simulation's own (reservations bill differently) */
		double k = rk->days_mean * 86400 / e.seconds;
		e.mean_of_runs = true;
		e.seconds = rk->days_mean * 86400;
		e.gpu_hours *= k;
		e.energy_kwh *= k;
		e.cost = rk->cost_mean;
	}
	/* billed: the bill of the expected run, which the JSON's cost parts
	 * add up to (the mean of the simulated runs' bills differs where
	 * runs straddle a reservation block) */
	if (tb_bill_any(&b->bill_in))
		e.cost = tb_bill_compute(&b->bill_in, b->bill_in.price_per_gpu_hour,
		                         e.gpu_hours * b->bill_in.price_per_gpu_hour, e.seconds, NULL);
	return e;
}

tb_bill tb_budget_bill(const tb_budget *b)
{
	tb_bill bl;
	memset(&bl, 0, sizeof bl);
	tb_expected x = tb_budget_expected(b);
	if (x.known)
		tb_bill_compute(&b->bill_in, b->bill_in.price_per_gpu_hour,
		                x.gpu_hours * b->bill_in.price_per_gpu_hour, x.seconds, &bl);
	return bl;
}

tb_verdict tb_budget_verdict(const tb_budget *b, bool deadline)
{
	const tb_time *tm = &b->time;
	const tb_risk *rk = &b->risk;
	/* "expected" is the mean of the simulated runs, failures included,
	 * when they were drawn (issue 19); the most likely MFU's run otherwise */
	bool ok = deadline ? tm->meets_deadline : tm->within_budget;
	if (rk->known)
		ok = deadline ? rk->days_mean * 86400 <= tm->deadline_s
		              : tb_budget_expected(b).cost <= tm->budget;
	if (!ok)
		return TB_VERDICT_NO;
	bool risk = rk->known
	            ? (deadline ? rk->p_meets_deadline : rk->p_within_budget) < TB_VERDICT_CONFIDENCE
	            : deadline ? b->losses.seconds[0] > tm->deadline_s
	                       : b->losses.cost[0] > tm->budget;
	return risk ? TB_VERDICT_AT_RISK : TB_VERDICT_YES;
}
