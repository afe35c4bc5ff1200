/* test_risk.c: the Monte Carlo against closed forms (a normal MFU, a
 * triangular MFU, Poisson failures), within their sampling error; the
 * distributions and the generator against published constants; and the
 * extremes, which must stay finite. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "trainbudget/budget.h"
#include "trainbudget/goodput.h"
#include "trainbudget/risk.h"
#include "trainbudget/scenario.h"
#include "risk_int.h"

static double rel(double got, double want)
{
	return fabs(got - want) / fabs(want);
}

/* Four standard errors of a share p estimated from n samples. */
static double tol(double p, int n)
{
	return 4 * sqrt(p * (1 - p) / n);
}

static void expect_finite(const tb_risk *r)
{
	const double v[] = {
		r->days_p10, r->days_p50, r->days_p90, r->days_mean,
		r->cost_p10, r->cost_p50, r->cost_p90, r->cost_mean, r->failures_mean,
		r->p_meets_deadline, r->p_within_budget, r->budget_p90,
		r->days_hist_lo, r->days_hist_hi, r->cost_hist_lo, r->cost_hist_hi,
	};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		cr_expect(isfinite(v[i]) && v[i] >= 0, "field %zu is %g", i, v[i]);
	}
	for (int i = 0; i < TB_RISK_CDF_POINTS; i++)
		cr_expect(isfinite(r->days_cdf[i]) && isfinite(r->cost_cdf[i]));
	cr_expect(r->p_meets_deadline <= 1 && r->p_within_budget <= 1);
}

/* ---- the normal law --------------------------------------------------- */

/* Standard table values of the normal quantile (to 16 digits). */
Test(risk, normal_quantile_against_tables)
{
	cr_expect(fabs(tb_risk_normal_quantile(0.975) - 1.959963984540054) < 1e-14);
	cr_expect(fabs(tb_risk_normal_quantile(0.9) - 1.2815515655446004) < 1e-14);
	cr_expect(fabs(tb_risk_normal_quantile(0.1) + 1.2815515655446004) < 1e-14);
	cr_expect(fabs(tb_risk_normal_quantile(0.999) - 3.090232306167813) < 1e-13);
	cr_expect(fabs(tb_risk_normal_quantile(1e-10) + 6.361340902404056) < 1e-11);
	cr_expect(fabs(tb_risk_normal_quantile(0.5)) < 1e-15);
	cr_expect(fabs(tb_risk_normal_cdf(1.959963984540054) - 0.975) < 1e-15);
	/* Round trip across the range, both tails. */
	for (double p = 1e-12; p < 1; p = p < 0.5 ? p * 3 : 1 - (1 - p) / 3) {
		double back = tb_risk_normal_cdf(tb_risk_normal_quantile(p));
		cr_expect(fabs(back - p) <= 1e-13 * fmin(p, 1 - p) + 1e-16, "p %g back %g", p, back);
		if (1 - p < 1e-12)
			break;
	}
	cr_expect(isinf(tb_risk_normal_quantile(0)) && tb_risk_normal_quantile(0) < 0);
	cr_expect(isinf(tb_risk_normal_quantile(1)) && tb_risk_normal_quantile(1) > 0);
}

/* ---- distributions ---------------------------------------------------- */

/* A triangle on [0, 2] peaking at 1: the median is 1, and the 10% point
 * solves x^2/2 = 0.1, x = sqrt(0.2). */
Test(risk, triangular_by_hand)
{
	tb_dist d = tb_dist_triangular(0, 1, 2);
	cr_expect(fabs(tb_dist_quantile(&d, 0.5) - 1) < 1e-15);
	cr_expect(fabs(tb_dist_quantile(&d, 0.1) - sqrt(0.2)) < 1e-15);
	cr_expect(fabs(tb_dist_quantile(&d, 0.9) - (2 - sqrt(0.2))) < 1e-15);
	cr_expect_eq(tb_dist_cdf(&d, -1), 0);
	cr_expect_eq(tb_dist_cdf(&d, 3), 1);
	for (double p = 0.01; p < 1; p += 0.07)
		cr_expect(fabs(tb_dist_cdf(&d, tb_dist_quantile(&d, p)) - p) < 1e-14);
	/* Lopsided: the user's MFU [0.25, 0.30, 0.45]. */
	d = tb_dist_triangular(0.25, 0.30, 0.45);
	cr_expect(fabs(tb_dist_cdf(&d, 0.30) - 0.25) < 1e-14);
	/* Degenerate: one MFU. */
	d = tb_dist_triangular(0.4, 0.4, 0.4);
	cr_expect_eq(tb_dist_quantile(&d, 0.01), 0.4);
	cr_expect_eq(tb_dist_quantile(&d, 0.99), 0.4);
}

Test(risk, truncated_normal_and_lognormal)
{
	/* Cut at the mean: the median of what is left is at z = Phi^-1(0.75). */
	tb_dist d = tb_dist_normal(0.35, 0.05, 0.35, 1);
	cr_expect(fabs(tb_dist_quantile(&d, 0.5) - (0.35 + 0.05 * 0.6744897501960817)) < 1e-12);
	for (double p = 0.001; p < 1; p += 0.0371) {
		double x = tb_dist_quantile(&d, p);
		cr_expect(x >= 0.35 && x <= 1);
		cr_expect(fabs(tb_dist_cdf(&d, x) - p) < 1e-12, "p %g", p);
	}
	/* Both ends far in the upper tail still invert. */
	d = tb_dist_normal(0, 1, 8, 9);
	double x = tb_dist_quantile(&d, 0.5);
	cr_expect(x > 8 && x < 8.2, "x %g", x);
	cr_expect(fabs(tb_dist_cdf(&d, x) - 0.5) < 1e-9);
	/* Lognormal: the median is the median; sigma 0.1 puts the 90% point
	 * at exp(0.1 x 1.28155). */
	d = tb_dist_lognormal(0.4, 0.1, 0, 1);
	cr_expect(fabs(tb_dist_quantile(&d, 0.5) - 0.4) < 1e-12);
	cr_expect(rel(tb_dist_quantile(&d, 0.9), 0.4 * exp(0.1 * 1.2815515655446004)) < 1e-9);
	/* No spread: the value itself. */
	d = tb_dist_normal(0.3, 0, 0, 1);
	cr_expect_eq(tb_dist_quantile(&d, 0.9), 0.3);
	d = tb_dist_fixed(2.5);
	cr_expect_eq(tb_dist_quantile(&d, 0.123), 2.5);
}

/* ---- the generator ---------------------------------------------------- */

/* splitmix64 from state 0 first gives 0xe220a8397b1dcdaf (Vigna's reference
 * implementation, splitmix64.c): the seeding matches it. */
Test(risk, seeding_is_splitmix64)
{
	tb_rng r;
	tb_rng_seed(&r, 0);
	cr_expect_eq(r.s[0], UINT64_C(0xe220a8397b1dcdaf));
	tb_rng r2;
	tb_rng_seed(&r2, 0);
	for (int i = 0; i < 100; i++)
		cr_expect_eq(tb_rng_next(&r), tb_rng_next(&r2));
	for (int i = 0; i < 100000; i++) {
		double u = tb_rng_uniform(&r);
		cr_assert(u > 0 && u < 1);
	}
}

/* Poisson draws: the mean and the variance both equal the parameter, on
 * either side of the switch from inversion to PTRS at 40; P(0) = e^-mean. */
Test(risk, poisson_moments)
{
	static const double means[] = { 0.3, 3, 9.99, 39.99, 40, 57.5, 1e4, 1e9 };
	tb_rng r;
	tb_rng_seed(&r, 42);
	for (size_t m = 0; m < sizeof means / sizeof means[0]; m++) {
		double mu = means[m];
		int n = 50000, zeros = 0;
		double s = 0, s2 = 0;
		for (int i = 0; i < n; i++) {
			double k = tb_rng_poisson(&r, mu);
			cr_assert(k >= 0 && k == floor(k));
			s += k;
			s2 += k * k;
			zeros += k == 0;
		}
		double mean = s / n, var = s2 / n - mean * mean;
		cr_expect(fabs(mean - mu) < 5 * sqrt(mu / n), "mean %g for %g", mean, mu);
		/* Var of the sample variance is about 2 mu^2 / n + mu / n. */
		cr_expect(fabs(var - mu) < 5 * sqrt((2 * mu * mu + mu) / n), "var %g for %g", var, mu);
		double p0 = exp(-mu);
		cr_expect(fabs((double)zeros / n - p0) < tol(p0, n) + 1e-12, "P(0) for %g", mu);
	}
	cr_expect_eq(tb_rng_poisson(&r, 0), 0);
	cr_expect_eq(tb_rng_poisson(&r, NAN), 0);
}

/* ---- the model against closed forms ----------------------------------- */

/* 4.2e21 FLOPs on 64 GPUs at 989.4 TFLOP/s: c = F / (n P) seconds at MFU 1. */
#define F_RUN 4.2e21
#define N_GPU 64.0
#define P_GPU 989.4e12

static tb_risk_in base_in(void)
{
	tb_risk_in in;
	memset(&in, 0, sizeof in);
	in.flops = F_RUN;
	in.gpus = N_GPU;
	in.peak_flops_per_gpu = P_GPU;
	in.mfu = tb_dist_triangular(0.25, 0.35, 0.45);
	in.price = tb_dist_fixed(2);
	return in;
}

/* A single normal input, no failures: days = c / u, so
 * P(days <= x) = P(u >= c/x) = 1 - Phi((c/x - mu)/sigma), and the
 * q-quantile of days is c / (mu + sigma Phi^-1(1 - q)).  Each estimate must
 * sit within four standard errors of its exact share. */
Test(risk, normal_mfu_against_closed_form)
{
	const double mu = 0.35, sigma = 0.03;
	const double c = F_RUN / (N_GPU * P_GPU) / 86400;           /* days at MFU 1 */
	tb_risk_in in = base_in();
	in.mfu = tb_dist_normal(mu, sigma, 0.01, 1);                /* cut 11 sigma out */
	in.has_deadline = true;
	in.deadline_s = c / 0.33 * 86400;
	in.has_budget = true;
	in.budget = c / 0.36 * 86400 * N_GPU * 2 / 3600;
	tb_risk r;
	tb_risk_compute(&in, &r);
	cr_assert(r.known && r.finishes);
	expect_finite(&r);
	int n = r.samples;
	cr_expect_eq(n, TB_RISK_SAMPLES);
	const double q[3] = { 0.1, 0.5, 0.9 };
	const double got[3] = { r.days_p10, r.days_p50, r.days_p90 };
	for (int i = 0; i < 3; i++) {
		double exact = c / (mu + sigma * tb_risk_normal_quantile(1 - q[i]));
		double share = 1 - tb_risk_normal_cdf((c / got[i] - mu) / sigma);
		cr_expect(fabs(share - q[i]) < tol(q[i], n), "P%g: %g days, exact %g", q[i] * 100, got[i], exact);
		cr_expect(rel(got[i], exact) < 0.01);
	}
	double p_meet = 1 - tb_risk_normal_cdf((0.33 - mu) / sigma);
	cr_expect(fabs(r.p_meets_deadline - p_meet) < tol(p_meet, n), "%g vs %g", r.p_meets_deadline, p_meet);
	double p_budget = 1 - tb_risk_normal_cdf((0.36 - mu) / sigma);
	cr_expect(fabs(r.p_within_budget - p_budget) < tol(p_budget, n), "%g vs %g", r.p_within_budget, p_budget);
	/* Cost is days x n x price x 24, sample by sample. */
	cr_expect(rel(r.cost_p90, r.days_p90 * 24 * N_GPU * 2) < 1e-12);
	cr_expect_eq(r.budget_p90, r.cost_p90);
	cr_expect_eq(r.failures_mean, 0);
}

/* The summary reads order statistics put in place by a partial sort
 * (risk.c, S_select), not a sorted copy: at every size, from one run
 * (insertion sort alone) past the first partition (17) to the largest,
 * with the bill from the days (one price) and from its own draws (a price
 * band), the ends are the histogram's, the points do not fall, P10, P50
 * and P90 are the CDF's own points, and the bins hold every run. */
Test(risk, summary_reads_the_order_statistics)
{
	const int sizes[] = { 1, 2, 3, 16, 17, 18, 33, 1000, TB_RISK_SAMPLES, TB_RISK_SAMPLES_MAX };
	for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
		for (int band = 0; band < 2; band++) {
			tb_risk_in in = base_in();
			in.samples = sizes[si];
			in.failure_rate_per_s = 1e-6;
			in.restart_s = 600;
			if (band)
				in.price = tb_dist_triangular(1.5, 2, 3);
			tb_risk r;
			tb_risk_compute(&in, &r);
			cr_assert(r.known, "n %d", sizes[si]);
			cr_expect_eq(r.samples, sizes[si]);
			const double *cdf[2] = { r.days_cdf, r.cost_cdf };
			const double lo[2] = { r.days_hist_lo, r.cost_hist_lo };
			const double hi[2] = { r.days_hist_hi, r.cost_hist_hi };
			const double *hist[2] = { r.days_hist, r.cost_hist };
			const double p[2][3] = { { r.days_p10, r.days_p50, r.days_p90 },
			                         { r.cost_p10, r.cost_p50, r.cost_p90 } };
			for (int k = 0; k < 2; k++) {
				cr_expect_eq(cdf[k][0], lo[k], "n %d %d", sizes[si], k);
				cr_expect_eq(cdf[k][TB_RISK_CDF_POINTS - 1], hi[k], "n %d %d", sizes[si], k);
				for (int i = 1; i < TB_RISK_CDF_POINTS; i++)
					cr_expect(cdf[k][i] >= cdf[k][i - 1], "n %d %d point %d", sizes[si], k, i);
				cr_expect_eq(p[k][0], cdf[k][2], "n %d %d P10", sizes[si], k);
				cr_expect_eq(p[k][1], cdf[k][10], "n %d %d P50", sizes[si], k);
				cr_expect_eq(p[k][2], cdf[k][18], "n %d %d P90", sizes[si], k);
				double sum = 0;
				for (int i = 0; i < TB_RISK_BINS; i++)
					sum += hist[k][i];
				cr_expect(fabs(sum - 1) < 1e-9, "n %d %d: bins hold %.17g", sizes[si], k, sum);
			}
		}
}

/* The user's range as a triangle: the same check through its own CDF. */
Test(risk, triangular_mfu_against_closed_form)
{
	const double c = F_RUN / (N_GPU * P_GPU) / 86400;
	tb_risk_in in = base_in();
	tb_risk r;
	tb_risk_compute(&in, &r);
	cr_assert(r.known);
	const double q[3] = { 0.1, 0.5, 0.9 };
	const double got[3] = { r.days_p10, r.days_p50, r.days_p90 };
	for (int i = 0; i < 3; i++) {
		double share = 1 - tb_dist_cdf(&in.mfu, c / got[i]);
		cr_expect(fabs(share - q[i]) < tol(q[i], r.samples), "P%g", q[i] * 100);
	}
	/* Every sample lies between the low-MFU and the high-MFU days. */
	cr_expect(r.days_hist_lo >= c / 0.45 && r.days_hist_hi <= c / 0.25);
	double sum = 0;
	for (int i = 0; i < TB_RISK_BINS; i++)
		sum += r.days_hist[i];
	cr_expect(fabs(sum - 1) < 1e-9);
	cr_expect_eq(r.days_cdf[0], r.days_hist_lo);
	cr_expect_eq(r.days_cdf[TB_RISK_CDF_POINTS - 1], r.days_hist_hi);
	for (int i = 1; i < TB_RISK_CDF_POINTS; i++)
		cr_expect(r.days_cdf[i] >= r.days_cdf[i - 1]);
}

/* Failures with a fixed MFU.  The run is W = 1e6 s; a failure costs a
 * 600 s restart plus uniform rework over an 800 s segment (l = 1,000 s);
 * lambda is set so that 2 failures are expected over the expected wall
 * clock.  Then P(no failure) = e^-2 = 0.1353, exactly the share of runs
 * done by W; the mean wall clock is W / (1 - lambda l) (goodput.h); and
 * the spread is that of a compound Poisson sum, var = 2 E[L^2]. */
static void failures_case(double expected, int samples)
{
	const double w = 1e6, l = 1000, restart = 600, segment = 800;
	/* lambda W / (1 - lambda l) = expected */
	double lambda = expected / (w + expected * l);
	tb_risk_in in = base_in();
	in.flops = w * N_GPU * P_GPU * 0.4;
	in.mfu = tb_dist_fixed(0.4);
	in.failure_rate_per_s = lambda;
	in.failure_overhead = lambda * l;
	in.restart_s = restart;
	in.segment_s = segment;
	in.has_deadline = true;
	in.deadline_s = w * (1 + 1e-12);
	in.samples = samples;
	tb_risk r;
	tb_risk_compute(&in, &r);
	cr_assert(r.known);
	expect_finite(&r);
	int n = r.samples;
	double p0 = exp(-expected);
	cr_expect(fabs(r.p_meets_deadline - p0) < tol(p0, n) + 1e-12,
	          "P(no failure) %g vs %g at %g expected", r.p_meets_deadline, p0, expected);
	double mean_t = w / (1 - lambda * l);
	double el2 = restart * restart + restart * segment + segment * segment / 3;
	double sd_t = sqrt(expected * el2);
	cr_expect(fabs(r.days_mean * 86400 - mean_t) < 4 * sd_t / sqrt(n),
	          "mean %g s vs %g", r.days_mean * 86400, mean_t);
	cr_expect(fabs(r.failures_mean - expected) < 4 * sqrt(expected / n));
	/* The spread: P90 - P10 of a near-normal sum is 2.563 sd. */
	if (expected > 100) {
		double spread = (r.days_p90 - r.days_p10) * 86400;
		cr_expect(rel(spread, 2.5631 * sd_t) < 0.1, "spread %g vs %g", spread, 2.5631 * sd_t);
	}
}

Test(risk, failures_few) { failures_case(2, TB_RISK_SAMPLES_MAX); }
Test(risk, failures_many) { failures_case(400, TB_RISK_SAMPLES_MAX); }

/* The goodput model and the Monte Carlo agree on the mean wall clock for
 * the Llama 3 405B case (16,384 GPUs, about 420 failures). */
Test(risk, agrees_with_goodput)
{
	tb_goodput_in gi = {
		.gpus = 16384, .failures_per_node_day = TB_GOODPUT_FAILURES_PER_NODE_DAY,
		.checkpoint_bytes = 405e9 * 14,
		.write_bytes_per_s_per_node = TB_GOODPUT_WRITE_BYTES_PER_S_PER_NODE,
		.restart_s = TB_GOODPUT_RESTART_S, .compute_s = 50 * 86400.0,
	};
	tb_goodput g;
	tb_goodput_compute(&gi, &g);
	tb_risk_in in = base_in();
	in.gpus = 16384;
	in.mfu = tb_dist_fixed(0.4);
	in.flops = gi.compute_s * 16384 * P_GPU * 0.4;
	in.checkpoint_overhead = g.checkpoint_overhead;
	in.failure_rate_per_s = g.failure_rate_per_s;
	in.failure_overhead = g.failure_overhead;
	in.restart_s = g.restart_s;
	in.segment_s = g.segment_s;
	tb_risk r;
	tb_risk_compute(&in, &r);
	cr_assert(r.known);
	cr_expect(rel(r.days_mean * 86400, g.wall_s) < 1e-3, "%g vs %g days", r.days_mean, g.wall_s / 86400);
	cr_expect(rel(r.failures_mean, g.expected_failures) < 0.01);
	cr_expect(r.days_p10 < r.days_p50 && r.days_p50 < r.days_p90);
}

/* ---- reproducibility and common random numbers ------------------------ */

Test(risk, same_inputs_same_bytes)
{
	tb_risk_in in = base_in();
	in.failure_rate_per_s = 1e-5;
	in.failure_overhead = 1e-5 * 1000;
	in.restart_s = 600;
	in.segment_s = 800;
	in.price = tb_dist_triangular(1.5, 2, 3);
	tb_risk a, b;
	memset(&a, 0xA5, sizeof a);
	memset(&b, 0x5A, sizeof b);
	tb_risk_compute(&in, &a);
	tb_risk_compute(&in, &b);
	cr_expect(memcmp(&a, &b, sizeof a) == 0);
	in.seed = 7;
	tb_risk_compute(&in, &b);
	cr_expect(a.days_p50 != b.days_p50);
}

/* Twice the GPUs, no failures: every sample takes exactly half the days,
 * so the percentiles halve exactly (the MFU draws are shared). */
Test(risk, what_if_moves_by_its_effect)
{
	tb_risk_in in = base_in();
	tb_risk a, b;
	tb_risk_compute(&in, &a);
	in.gpus *= 2;
	tb_risk_compute(&in, &b);
	cr_expect(rel(b.days_p10, a.days_p10 / 2) < 1e-12);
	cr_expect(rel(b.days_p90, a.days_p90 / 2) < 1e-12);
	cr_expect(rel(b.cost_p50, a.cost_p50) < 1e-12);
}

/* ---- extremes ----------------------------------------------------------- */

static tb_risk_in with_goodput(double gpus, double fail_per_node_day, double restart_s)
{
	tb_goodput_in gi = {
		.gpus = gpus, .failures_per_node_day = fail_per_node_day,
		.checkpoint_bytes = 7e9 * 14, .write_bytes_per_s_per_node = 1e9,
		.restart_s = restart_s, .compute_s = F_RUN / (gpus * P_GPU * 0.35),
	};
	tb_goodput g;
	tb_goodput_compute(&gi, &g);
	tb_risk_in in = base_in();
	in.gpus = gpus;
	in.checkpoint_overhead = g.checkpoint_overhead;
	in.failure_rate_per_s = g.failure_rate_per_s;
	in.failure_overhead = g.failure_overhead;
	in.restart_s = g.restart_s;
	in.segment_s = g.segment_s;
	in.has_deadline = true;
	in.deadline_s = 30 * 86400;
	in.has_budget = true;
	in.budget = 1e5;
	return in;
}

Test(risk, one_gpu)
{
	tb_risk_in in = with_goodput(1, TB_GOODPUT_FAILURES_PER_NODE_DAY, 600);
	tb_risk r;
	tb_risk_compute(&in, &r);
	cr_assert(r.known);
	expect_finite(&r);
	/* 4.2e21 / 989.4e12 at MFU 0.25..0.45: 109 to 197 days. */
	cr_expect(r.days_p10 > 100 && r.days_p90 < 220, "%g..%g", r.days_p10, r.days_p90);
	cr_expect_eq(r.p_meets_deadline, 0);
}

Test(risk, a_million_gpus_never_finish)
{
	tb_risk_in in = with_goodput(1e6, TB_GOODPUT_FAILURES_PER_NODE_DAY, 600);
	tb_risk r;
	tb_risk_compute(&in, &r);
	cr_expect(!r.finishes && !r.known);
	expect_finite(&r);
	cr_expect_eq(r.p_meets_deadline, 0);
	cr_expect_eq(r.p_within_budget, 0);
	/* A one-minute restart lets it run, slowly but finitely. */
	in = with_goodput(1e6, TB_GOODPUT_FAILURES_PER_NODE_DAY, 60);
	in.flops *= 1000;                       /* 3.4 hours of compute */
	tb_risk_compute(&in, &r);
	cr_expect(r.finishes && r.known);
	expect_finite(&r);
	cr_expect(r.failures_mean > 10);
}

Test(risk, no_failures)
{
	tb_risk_in in = with_goodput(64, 0, 600);
	tb_risk r;
	tb_risk_compute(&in, &r);
	cr_assert(r.known);
	expect_finite(&r);
	cr_expect_eq(r.failures_mean, 0);
	cr_expect_eq(r.p_meets_deadline, 1);    /* 1.6 to 2.8 days against 30 */
}

Test(risk, hostile_inputs)
{
	const double bad[] = { NAN, INFINITY, -1, 0, 1e308, 5e-324, 1e40 };
	size_t nb = sizeof bad / sizeof bad[0];
	for (size_t i = 0; i < nb; i++) {
		tb_risk_in in = base_in();
		in.samples = 64;
		in.flops = bad[i];
		tb_risk r;
		tb_risk_compute(&in, &r);
		expect_finite(&r);
		in = base_in();
		in.samples = 64;
		in.gpus = bad[i];
		in.failure_rate_per_s = bad[(i + 1) % nb];
		in.failure_overhead = bad[(i + 2) % nb];
		in.segment_s = bad[(i + 3) % nb];
		in.restart_s = bad[(i + 4) % nb];
		in.checkpoint_overhead = bad[(i + 5) % nb];
		in.price = tb_dist_fixed(bad[(i + 6) % nb]);
		tb_risk_compute(&in, &r);
		expect_finite(&r);
		in.mfu = tb_dist_normal(bad[i], bad[(i + 1) % nb], bad[(i + 2) % nb], bad[(i + 3) % nb]);
		tb_risk_compute(&in, &r);
		expect_finite(&r);
	}
	tb_risk_in in = base_in();
	in.samples = 1 << 30;
	tb_risk r;
	tb_risk_compute(&in, &r);
	cr_expect_eq(r.samples, TB_RISK_SAMPLES_MAX);
}

/* One verdict rule for every document: met at the most likely MFU but below
 * a 90% chance is at risk; without the Monte Carlo, missed at the low MFU. */
Test(risk, verdict_rule)
{
	static tb_budget b;
	memset(&b, 0, sizeof b);
	b.time.meets_deadline = true;
	b.time.deadline_s = 30 * 86400.0;
	b.risk.known = true;
	b.risk.p_meets_deadline = 0.95;
	cr_expect_eq(tb_budget_verdict(&b, true), TB_VERDICT_YES);
	b.risk.p_meets_deadline = 0.85;
	cr_expect_eq(tb_budget_verdict(&b, true), TB_VERDICT_AT_RISK);
	b.risk.known = false;
	b.losses.seconds[0] = 31 * 86400.0;
	cr_expect_eq(tb_budget_verdict(&b, true), TB_VERDICT_AT_RISK, "missed at the low MFU");
	b.losses.seconds[0] = 29 * 86400.0;
	cr_expect_eq(tb_budget_verdict(&b, true), TB_VERDICT_YES);
	b.time.meets_deadline = false;
	cr_expect_eq(tb_budget_verdict(&b, true), TB_VERDICT_NO);
	b.time.within_budget = true;
	b.time.budget = 1e6;
	b.losses.cost[0] = 2e6;
	cr_expect_eq(tb_budget_verdict(&b, false), TB_VERDICT_AT_RISK);
}

/* The histogram's bins come from a product by the width's reciprocal,
 * with the quotient taken near a whole number (risk.c): the counts are
 * those of the quotient truncated, bin for bin, at the bins' edges (each
 * edge and the doubles either side of it), and over values spread
 * between, for widths that are not powers of two, and for subnormal ones,
 * whose reciprocal is infinite (converted to an int, undefined). */
Test(risk, bins_are_the_quotients_truncated)
{
	/* the last two subnormal: 1e-310 has no finite reciprocal */
	const double widths[] = { 1.0 / 3, 0.1, 7.3, 1e-7, 12345.678, 0.37, 1e-310, 3e-320 };
	double v[3 * (TB_RISK_BINS + 1) + 4000];
	for (size_t w = 0; w < sizeof widths / sizeof *widths; w++) {
		double width = widths[w];
		double lo = width < 1e-300 ? 0 : 1.7;  /* else lo + k width would be lo */
		int n = 0;
		for (int k = 0; k <= TB_RISK_BINS; k++) {
			double edge = lo + k * width;
			v[n++] = edge;
			v[n++] = nextafter(edge, INFINITY);
			if (k > 0)
				v[n++] = nextafter(edge, -INFINITY);
		}
		uint64_t x = 88172645463325252u;
		for (int i = 0; i < 4000; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			v[n++] = lo + (double)(x >> 11) * 0x1.0p-53 * TB_RISK_BINS * width;
		}
		int want[TB_RISK_BINS] = { 0 }, got[TB_RISK_BINS];
		for (int i = 0; i < n; i++) {
			int k = (int)((v[i] - lo) / width);
			want[k < 0 ? 0 : k >= TB_RISK_BINS ? TB_RISK_BINS - 1 : k]++;
		}
		tb_risk_bin_counts(v, n, lo, width, got);
		for (int b = 0; b < TB_RISK_BINS; b++)
			cr_expect_eq(got[b], want[b], "width %g bin %d: %d, the quotient's %d", width, b,
			             got[b], want[b]);
	}
}

/* ---- what "expected" is taken over ------------------------------------ */

static tb_budget S_eb;   /* large: off the stack */

static void S_expected_of(const char *const *sets, size_t nsets)
{
	tb_diags d;
	tb_diags_init(&d);
	tb_scenario *sc = tb_scenario_load_file("docs/examples/deepseek-v3.yaml", sets, nsets, &d);
	cr_assert_not_null(sc);
	tb_diags_release(&d);
	tb_inputs priced;
	tb_budget_compute_answer(&sc->inputs, &priced, &S_eb);
	tb_budget_compute_risk(&priced, &S_eb);
	tb_scenario_free(sc);
}

/* DeepSeek-V3's MFU band [18%, 22%, 30%] leans high: the triangle's mean
 * is 23.3%, so the simulated runs' mean (the expected days) is shorter
 * than the run at 22% with its losses, and the words say the band, not
 * "at 22%"; one MFU value is the run at it. */
Test(risk, expected_basis_names_the_band)
{
	S_expected_of(NULL, 0);
	cr_assert(S_eb.risk.known && S_eb.losses.known);
	char basis[96];
	tb_budget_expected_basis(&S_eb, basis, sizeof basis);
	cr_expect_str_eq(basis, "over MFU 18%-30%");
	tb_expected e = tb_budget_expected(&S_eb);
	cr_expect(e.mean_of_runs);
	cr_expect(e.seconds < S_eb.losses.seconds[1] * 0.98, "%g against %g", e.seconds,
	          S_eb.losses.seconds[1]);

	static const char *const one[] = { "hardware.mfu=0.22" };
	S_expected_of(one, 1);
	tb_budget_expected_basis(&S_eb, basis, sizeof basis);
	cr_expect_str_eq(basis, "at 22% MFU");
	e = tb_budget_expected(&S_eb);
	cr_expect(rel(e.seconds, S_eb.losses.seconds[1]) < 0.01, "%g against %g", e.seconds,
	          S_eb.losses.seconds[1]);
	char small[4];
	cr_expect_eq(tb_budget_expected_basis(&S_eb, small, sizeof small), 3);
	cr_expect_str_eq(small, "at ");
}
