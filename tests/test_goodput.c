/* test_goodput.c: failures, checkpoints and the goodput fraction, pinned to
 * published figures (Dubey et al. 2024 for Llama 3, Kokolis et al. 2024 for
 * Meta's research clusters, Daly 2006 for the optimum interval) and to
 * arithmetic worked out in the comments. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "trainbudget/goodput.h"

static double rel(double got, double want)
{
	return fabs(got - want) / fabs(want);
}

static void expect_finite(const tb_goodput *g)
{
	const double v[] = {
		g->nodes, g->failure_rate_per_s, g->mtbf_s, g->checkpoint_bytes,
		g->write_bytes_per_s, g->checkpoint_save_s, g->checkpoint_interval_s,
		g->restart_s, g->segment_s, g->lost_per_failure_s, g->checkpoint_overhead,
		g->failure_overhead, g->fraction, g->compute_s, g->checkpoint_s, g->lost_s,
		g->wall_s, g->expected_failures,
	};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		cr_expect(isfinite(v[i]), "field %zu is %g", i, v[i]);
		cr_expect(v[i] >= 0, "field %zu is %g", i, v[i]);
	}
	cr_expect(g->fraction <= 1);
}

/* Young's interval, worked by hand: a 60 s save and a 6-hour MTBF give
 * sqrt(2 x 60 x 21,600) = sqrt(2,592,000) = 1,609.97 s (26.8 minutes). */
Test(goodput, young_interval_by_hand)
{
	cr_expect(fabs(tb_goodput_young_interval_s(60, 21600) - 1609.968944) < 1e-5);
	cr_expect_eq(tb_goodput_young_interval_s(0, 21600), 0);
	cr_expect_eq(tb_goodput_young_interval_s(60, 0), 0);
	cr_expect_eq(tb_goodput_young_interval_s(NAN, 1), 0);
	cr_expect_eq(tb_goodput_young_interval_s(1e300, 1e300), 0);
}

/* Daly 2006 (FGCS 22(3), Figs. 3 and 4) simulated the optimum for a 5-minute
 * dump and a 10-minute restart: 117 minutes at M = 24 h, 57 minutes at
 * M = 6 h.  Young's first-order sqrt(2 delta M) gives 120 and 60 minutes:
 * within 6% while the save is well under the MTBF.  (At M = 15 minutes,
 * Daly's Fig. 5, Young's 12.2 minutes is a third longer than Daly's 9.1:
 * the first order is not meant for saves that long.) */
Test(goodput, young_close_to_daly_optimum)
{
	double tau24 = tb_goodput_young_interval_s(5 * 60, 24 * 3600) / 60;
	double tau6 = tb_goodput_young_interval_s(5 * 60, 6 * 3600) / 60;
	cr_expect(fabs(tau24 - 120) < 1e-9);
	cr_expect(fabs(tau6 - 60) < 1e-9);
	cr_expect(rel(tau24, 117) < 0.03, "Young %g min against Daly's 117", tau24);
	cr_expect(rel(tau6, 57) < 0.06, "Young %g min against Daly's 57", tau6);
}

/* The default rate is Llama 3's: 419 unexpected interruptions in 54 days on
 * 16,384 GPUs.  At that size the job's MTBF is 54 x 24 / 419 = 3.093 h, and
 * 54 days of wall clock expect exactly the 419. */
Test(goodput, llama3_failure_rate)
{
	tb_goodput_in in = {
		.gpus = 16384, .failures_per_node_day = TB_GOODPUT_FAILURES_PER_NODE_DAY,
	};
	tb_goodput g;
	tb_goodput_compute(&in, &g);
	cr_expect_eq(g.nodes, 2048);
	cr_expect(rel(g.mtbf_s / 3600, 54.0 * 24 / 419) < 1e-12, "MTBF %g h", g.mtbf_s / 3600);
	cr_expect(rel(g.failure_rate_per_s * 54 * 86400, 419) < 1e-12);
}

/* Kokolis et al. 2024 project the MTTF of a job from a rate per node-day:
 * at RSC-1's 6.50 failures per 1,000 node-days, 1.8 hours at 16,384 GPUs
 * and 0.23 hours at 131,072. */
Test(goodput, kokolis_mttf_projection)
{
	tb_goodput g;
	tb_goodput_in in = { .gpus = 16384, .failures_per_node_day = 6.50e-3 };
	tb_goodput_compute(&in, &g);
	cr_expect(fabs(g.mtbf_s / 3600 - 1.8) < 0.05, "%g h", g.mtbf_s / 3600);
	in.gpus = 131072;
	tb_goodput_compute(&in, &g);
	cr_expect(fabs(g.mtbf_s / 3600 - 0.23) < 0.005, "%g h", g.mtbf_s / 3600);
	/* MTBF falls as the job grows, exactly as 1 / nodes. */
	in.gpus = 1024;
	tb_goodput g2;
	tb_goodput_compute(&in, &g2);
	cr_expect(rel(g2.mtbf_s / g.mtbf_s, 131072.0 / 1024) < 1e-12);
}

/* Llama 3 405B on 16,384 H100 kept "more than 90%" effective training time
 * (Dubey et al. 2024, Sec. 3.3.4).  With the defaults (Meta's failure rate,
 * Tectonic's 2 TB/s sustained, a 10-minute restart) and the checkpoint the
 * memory model counts for bf16-mixed AdamW (2 + 4 + 8 = 14 bytes per
 * parameter, gradients not saved), Young's interval loses under 10%, and
 * more than nothing: the 419 interruptions cost hours of restarts. */
Test(goodput, llama3_405b_keeps_over_90_percent)
{
	double bytes = tb_goodput_checkpoint_bytes(405e9, 2, 4, 8);
	cr_expect(rel(bytes, 5.67e12) < 1e-12);
	/* Llama 3 saved 1 MB to 4 GB per GPU: 5.67 TB over 16,384 is 346 MB. */
	cr_expect(bytes / 16384 > 1e6 && bytes / 16384 < 4e9);
	tb_goodput_in in = {
		.gpus = 16384,
		.failures_per_node_day = TB_GOODPUT_FAILURES_PER_NODE_DAY,
		.checkpoint_bytes = bytes,
		.write_bytes_per_s_per_node = TB_GOODPUT_WRITE_BYTES_PER_S_PER_NODE,
		.restart_s = TB_GOODPUT_RESTART_S,
		.compute_s = 50 * 86400.0,
	};
	tb_goodput g;
	tb_goodput_compute(&in, &g);
	expect_finite(&g);
	cr_assert(g.progress);
	/* 5.67 TB at 2 TB/s: a 2.8 s save. */
	cr_expect(rel(g.checkpoint_save_s, 2.835) < 1e-9, "save %g s", g.checkpoint_save_s);
	cr_expect(!g.interval_from_user);
	cr_expect(rel(g.checkpoint_interval_s, sqrt(2 * g.checkpoint_save_s * g.mtbf_s)) < 1e-12);
	cr_expect(g.fraction > 0.90, "goodput %g", g.fraction);
	cr_expect(g.fraction < 0.99, "goodput %g", g.fraction);
	/* The parts add up to the wall clock, and the wall clock is W / f. */
	cr_expect(rel(g.compute_s + g.checkpoint_s + g.lost_s, g.wall_s) < 1e-12);
	cr_expect(rel(g.wall_s * g.fraction, g.compute_s) < 1e-12);
	cr_expect(rel(g.expected_failures, g.wall_s / g.mtbf_s) < 1e-12);
	cr_expect(rel(g.lost_s, g.expected_failures * g.lost_per_failure_s) < 1e-9);
	/* Lost per failure: half an interval and its save, and the restart. */
	cr_expect(rel(g.lost_per_failure_s,
	              (g.checkpoint_interval_s + g.checkpoint_save_s) / 2 + 600) < 1e-12);
}

/* The goodput fraction worked by hand: lambda = 1 per 10,000 s, a 100 s
 * save every 900 s, a 500 s restart.  l = (900 + 100)/2 + 500 = 1,000 s;
 * lambda l = 0.1; delta/tau = 1/9; f = 0.9 / (10/9) = 0.81. */
Test(goodput, fraction_by_hand)
{
	tb_goodput_in in = {
		.gpus = 8, .failures_per_node_day = 8.64,       /* 1 node: 8.64/86400 = 1e-4/s */
		.checkpoint_bytes = 100e9, .write_bytes_per_s_per_node = 1e9,
		.restart_s = 500, .interval_s = 900, .compute_s = 81000,
	};
	tb_goodput g;
	tb_goodput_compute(&in, &g);
	cr_expect(g.interval_from_user);
	cr_expect(rel(g.mtbf_s, 1e4) < 1e-12);
	cr_expect(rel(g.lost_per_failure_s, 1000) < 1e-12);
	cr_expect(rel(g.failure_overhead, 0.1) < 1e-12);
	cr_expect(rel(g.fraction, 0.81) < 1e-12, "f %g", g.fraction);
	/* W = 81,000 s: saves 9,000 s, wall 100,000 s, 10 failures, 10,000 s lost. */
	cr_expect(rel(g.wall_s, 100000) < 1e-12);
	cr_expect(rel(g.checkpoint_s, 9000) < 1e-12);
	cr_expect(rel(g.expected_failures, 10) < 1e-12);
	cr_expect(rel(g.lost_s, 10000) < 1e-9);
}

/* A checkpoint can only be taken between optimizer steps. */
Test(goodput, interval_never_under_one_step)
{
	tb_goodput_in in = {
		.gpus = 1024, .failures_per_node_day = TB_GOODPUT_FAILURES_PER_NODE_DAY,
		.checkpoint_bytes = 1e6, .write_bytes_per_s_per_node = 1e9,
		.restart_s = 600, .step_s = 30, .compute_s = 1e6,
	};
	tb_goodput g;
	tb_goodput_compute(&in, &g);
	cr_expect(g.interval_is_step);
	cr_expect_eq(g.checkpoint_interval_s, 30);
}

/* No failures: nothing is lost, nothing needs saving, unless the user asks
 * for checkpoints, which then cost their saves. */
Test(goodput, no_failures)
{
	tb_goodput_in in = {
		.gpus = 64, .failures_per_node_day = 0,
		.checkpoint_bytes = 98e9, .write_bytes_per_s_per_node = 1e9,
		.restart_s = 600, .compute_s = 1e6,
	};
	tb_goodput g;
	tb_goodput_compute(&in, &g);
	expect_finite(&g);
	cr_expect(!g.failures && g.progress);
	cr_expect_eq(g.mtbf_s, 0);
	cr_expect_eq(g.checkpoint_interval_s, 0);
	cr_expect_eq(g.fraction, 1);
	cr_expect_eq(g.wall_s, 1e6);
	cr_expect_eq(g.expected_failures, 0);
	cr_expect_eq(g.lost_s, 0);
	/* 98 GB over 8 nodes at 1 GB/s: 12.25 s, every hour: 1/(1 + 12.25/3600). */
	in.interval_s = 3600;
	tb_goodput_compute(&in, &g);
	cr_expect(rel(g.fraction, 1 / (1 + 12.25 / 3600)) < 1e-12);
	cr_expect_eq(g.expected_failures, 0);
}

/* One GPU is one node: its MTBF is 1/r days (264 days at Meta's rate) and
 * a month-long run loses well under 1%. */
Test(goodput, one_gpu)
{
	tb_goodput_in in = {
		.gpus = 1, .failures_per_node_day = TB_GOODPUT_FAILURES_PER_NODE_DAY,
		.checkpoint_bytes = 16 * 1e9, .write_bytes_per_s_per_node = TB_GOODPUT_WRITE_BYTES_PER_S_PER_NODE,
		.restart_s = 600, .compute_s = 30 * 86400.0,
	};
	tb_goodput g;
	tb_goodput_compute(&in, &g);
	expect_finite(&g);
	cr_expect_eq(g.nodes, 1);
	cr_expect(rel(g.mtbf_s / 86400, 54.0 * 2048 / 419) < 1e-12);
	cr_expect(g.progress && g.fraction > 0.99 && g.fraction < 1, "f %g", g.fraction);
}

/* A million GPUs at Meta's rate fail every 3 minutes, faster than a
 * 10-minute restart: a synchronous run never finishes.  Everything stays
 * finite; with a 1-minute restart it runs, at a loss. */
Test(goodput, a_million_gpus)
{
	tb_goodput_in in = {
		.gpus = 1e6, .failures_per_node_day = TB_GOODPUT_FAILURES_PER_NODE_DAY,
		.checkpoint_bytes = 1e12 * 14, .write_bytes_per_s_per_node = TB_GOODPUT_WRITE_BYTES_PER_S_PER_NODE,
		.restart_s = 600, .compute_s = 86400,
	};
	tb_goodput g;
	tb_goodput_compute(&in, &g);
	expect_finite(&g);
	cr_expect(rel(g.mtbf_s, 86400 / (125000 * TB_GOODPUT_FAILURES_PER_NODE_DAY)) < 1e-12);
	cr_expect(g.mtbf_s < 200, "MTBF %g s", g.mtbf_s);
	cr_expect(!g.progress);
	cr_expect_eq(g.fraction, 0);
	cr_expect_eq(g.wall_s, 0);
	in.restart_s = 60;
	tb_goodput_compute(&in, &g);
	expect_finite(&g);
	cr_expect(g.progress);
	cr_expect(g.fraction > 0.3 && g.fraction < 0.8, "f %g", g.fraction);
}

/* Garbage in: NaN, infinities, negatives and overflow give finite figures. */
Test(goodput, hostile_inputs)
{
	const double bad[] = { NAN, INFINITY, -INFINITY, -1, 0, 1e308, 5e-324 };
	size_t nb = sizeof bad / sizeof bad[0];
	for (size_t i = 0; i < nb; i++)
		for (size_t j = 0; j < nb; j++) {
			tb_goodput_in in = {
				.gpus = bad[i], .gpus_per_node = bad[j],
				.failures_per_node_day = bad[(i + j) % nb],
				.checkpoint_bytes = bad[j], .write_bytes_per_s_per_node = bad[i],
				.restart_s = bad[(i + 1) % nb], .interval_s = bad[(j + 2) % nb],
				.step_s = bad[(i + 3) % nb], .compute_s = bad[(i + j + 4) % nb],
			};
			tb_goodput g;
			tb_goodput_compute(&in, &g);
			expect_finite(&g);
		}
}

/* A slower disk never gives a better answer (issue 18): from 1 PB/s down to
 * the smallest double, the wall clock never shrinks, and once the run stops
 * finishing it never finishes again.  Before, a save that overflowed a
 * double was read as 0 s, and 1e-300 B/s beat every real disk. */
Test(goodput, slower_disk_never_better)
{
	double prev_wall = 0;
	bool finished = true;
	int steps = 0;
	for (double bw = 1e15; bw > 0; bw /= 10, steps++) {
		tb_goodput_in in = {
			.gpus = 64, .gpus_per_node = 8, .failures_per_node_day = 0.0038,
			.checkpoint_bytes = 94.3e9, .write_bytes_per_s_per_node = bw,
			.restart_s = 600, .step_s = 5, .compute_s = 2.4 * 86400,
		};
		tb_goodput g;
		tb_goodput_compute(&in, &g);
		expect_finite(&g);
		if (!finished) {
			cr_expect(!g.progress, "finishes again at %g B/s", bw);
			continue;
		}
		if (!g.progress) {
			finished = false;
			continue;
		}
		cr_expect(g.checkpoint_save_s > 0, "a free save at %g B/s", bw);
		cr_expect(g.wall_s >= prev_wall, "faster at %g B/s: %g < %g", bw, g.wall_s, prev_wall);
		prev_wall = g.wall_s;
	}
	cr_expect(!finished, "the slowest disks never finish");
	cr_expect(steps > 300);
}

/* A failure rate so small that its MTBF overflows is no failures, never an
 * MTBF of 0 s. */
Test(goodput, vanishing_failure_rate)
{
	tb_goodput_in in = {
		.gpus = 64, .gpus_per_node = 8, .failures_per_node_day = 5e-324,
		.checkpoint_bytes = 94.3e9, .write_bytes_per_s_per_node = 1e9,
		.restart_s = 600, .step_s = 5, .compute_s = 86400,
	};
	tb_goodput g;
	tb_goodput_compute(&in, &g);
	cr_expect(!g.failures);
	cr_expect(g.progress);
	cr_expect_eq(g.wall_s, 86400.0);
}

/* ---- the budget step ------------------------------------------------------ */

#include "calc.h"
#include "trainbudget/scenario.h"

static tb_budget S_b;   /* large: off the stack */

static tb_scenario *S_load(const char *const *sets, size_t nsets)
{
	tb_diags d;
	tb_diags_init(&d);
	tb_scenario *sc = tb_scenario_load_file("docs/examples/llama-3.1-405b.yaml", sets, nsets, &d);
	tb_diags_release(&d);
	cr_assert_not_null(sc);
	tb_budget_compute(&sc->inputs, &S_b);
	return sc;
}

static bool S_has_warning(const char *needle)
{
	for (int i = 0; i < S_b.n_warnings; i++)
		if (strstr(S_b.warnings[i], needle))
			return true;
	return false;
}

/* Llama 3.1 405B on 16,384 H100 with the defaults: the checkpoint is the
 * memory model's saved states, the run keeps more than 90% of its wall
 * clock (Dubey et al. 2024, Sec. 3.3.4), and every figure with losses is
 * the pure one over the goodput fraction. */
Test(goodput, budget_llama3_405b)
{
	tb_scenario *sc = S_load(NULL, 0);
	const tb_goodput *g = &S_b.goodput;
	const tb_bytes_per_param *bp = &S_b.memory.bytes_per_param;
	cr_expect(rel(g->checkpoint_bytes,
	              S_b.params.total * (bp->weights + bp->master_weights + bp->optimizer)) < 1e-12);
	cr_expect_eq(bp->weights + bp->master_weights + bp->optimizer, 14);
	cr_expect_eq(g->nodes, 2048);
	cr_expect(rel(g->mtbf_s / 3600, 54.0 * 24 / 419) < 1e-12);
	cr_expect(g->fraction > 0.90 && g->fraction < 0.99, "goodput %g", g->fraction);
	cr_assert(S_b.losses.known);
	for (int i = 0; i < 3; i++) {
		cr_expect(rel(S_b.losses.seconds[i] * g->fraction, S_b.time.seconds[i]) < 1e-12);
		cr_expect(rel(S_b.losses.cost[i] * g->fraction, S_b.time.cost[i]) < 1e-12);
		cr_expect(rel(S_b.losses.gpu_hours[i] * g->fraction, S_b.time.gpu_hours[i]) < 1e-12);
	}
	cr_expect(rel(g->compute_s, S_b.time.seconds[1]) < 1e-12);
	static const char *const keys[] = {
		"goodput.mtbf", "goodput.checkpoint_bytes", "goodput.checkpoint_save",
		"goodput.checkpoint_interval", "goodput.lost_per_failure", "goodput.fraction",
		"goodput.seconds",
	};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		cr_expect_not_null(tb_budget_deriv(&S_b, keys[i]), "%s", keys[i]);
	tb_scenario_free(sc);
}

/* Gradients are never saved: the checkpoint is the same whether they are
 * accumulated in fp32 (the default under bf16-mixed) or bf16, while the
 * memory per GPU follows the gradient dtype, sharded from ZeRO-2 on. */
Test(goodput, checkpoint_leaves_out_gradients_of_either_dtype)
{
	static const char *const bf16[] = { "training.grad_dtype=bf16" };
	static const char *const fp32[] = { "training.grad_dtype=fp32" };
	static const char *const bf16z1[] = { "training.grad_dtype=bf16", "parallelism.zero=1" };
	static const char *const fp32z1[] = { "training.grad_dtype=fp32", "parallelism.zero=1" };
	tb_scenario *sc = S_load(bf16, 1);
	double ck16 = S_b.goodput.checkpoint_bytes, g16 = S_b.memory.per_gpu.gradients;
	cr_expect_eq(S_b.memory.bytes_per_param.gradients, 2);
	tb_scenario_free(sc);
	sc = S_load(fp32, 1);
	cr_expect_eq(S_b.memory.bytes_per_param.gradients, 4);
	cr_expect(S_b.goodput.checkpoint_bytes == ck16);
	/* ZeRO-2 in the example: the fp32 gradients are sharded, twice the bytes */
	cr_expect(rel(S_b.memory.per_gpu.gradients, 2 * g16) < 1e-12);
	tb_scenario_free(sc);
	sc = S_load(bf16z1, 2);
	double g16z1 = S_b.memory.per_gpu.gradients;
	tb_scenario_free(sc);
	sc = S_load(fp32z1, 2);
	/* ZeRO-1: not sharded, d = 128 times the ZeRO-2 figure */
	cr_expect(rel(S_b.memory.per_gpu.gradients, 2 * g16z1) < 1e-12);
	cr_expect(rel(S_b.memory.per_gpu.gradients, 128 * 2 * g16) < 1e-12);
	cr_expect(S_b.goodput.checkpoint_bytes == ck16);
	tb_scenario_free(sc);
}

/* The verdict counts the losses: a deadline between the pure wall clock
 * and the one with losses is missed. */
Test(goodput, verdict_counts_losses)
{
	tb_scenario *sc = S_load(NULL, 0);
	double mid = (S_b.time.seconds[1] + S_b.losses.seconds[1]) / 2;
	sc->inputs.plan.has_deadline = true;
	sc->inputs.plan.deadline_s = mid;
	sc->inputs.plan.has_budget = true;
	sc->inputs.plan.budget = (S_b.time.cost[1] + S_b.losses.cost[1]) / 2;
	tb_budget_compute(&sc->inputs, &S_b);
	cr_expect(S_b.time.seconds[1] < mid && S_b.losses.seconds[1] > mid);
	cr_expect(!S_b.time.meets_deadline);
	cr_expect(!S_b.time.within_budget);
	/* Without failures or saves the two agree and the deadline is met. */
	sc->inputs.hardware.failures_per_node_day = 0;
	tb_budget_compute(&sc->inputs, &S_b);
	cr_expect_eq(S_b.goodput.fraction, 1);
	cr_expect(S_b.time.meets_deadline && S_b.time.within_budget);
	tb_scenario_free(sc);
}

/* The scenario's interval is used as given, and a warning says when it is
 * shorter than a step; a run that never finishes says why. */
Test(goodput, budget_interval_and_never_finishing)
{
	static const char *const sets[] = { "training.checkpoint_interval=1s" };
	tb_scenario *sc = S_load(sets, 1);
	cr_expect(S_b.goodput.interval_from_user);
	cr_expect_eq(S_b.goodput.checkpoint_interval_s, 1);
	cr_expect(S_has_warning("is shorter than one optimizer step"));
	cr_expect(tb_budget_deriv(&S_b, "goodput.checkpoint_interval") == NULL);
	tb_scenario_free(sc);

	static const char *const sets2[] = { "hardware.failures_per_node_day=10" };
	sc = S_load(sets2, 1);
	cr_expect(!S_b.goodput.progress && !S_b.losses.known);
	cr_expect(S_has_warning("a synchronous run never finishes"));
	tb_budget_compute_risk(&sc->inputs, &S_b);
	cr_expect(!S_b.risk.known && !S_b.risk.finishes);
	tb_scenario_free(sc);
}
