/* test_timecost.c: wall clock, money, energy, deadline, budget, levers and
 * the measured run, pinned to published figures (Narayanan et al. 2021,
 * Chowdhery et al. 2022) or to arithmetic worked out in the comments. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "calc.h"
#include "trainbudget/perf.h"
#include "trainbudget/scenario.h"

static double rel(double got, double want)
{
	return fabs(got - want) / fabs(want);
}

/* 7B on 100B tokens (6ND = 4.2e21 FLOPs) on 64 H100 SXM (989.4 TFLOP/s
 * dense bf16, 700 W) at MFU 0.25/0.35/0.45, $2 per GPU-hour, PUE 1.2. */
static void setup(tb_inputs *in, tb_budget *b)
{
	memset(in, 0, sizeof *in);
	memset(b, 0, sizeof *b);
	strcpy(in->hardware.gpu.name, "h100-sxm");
	in->hardware.gpu.peak_flops[TB_DTYPE_TF32] = 494.7e12;
	in->hardware.gpu.peak_flops[TB_DTYPE_BF16] = 989.4e12;
	in->hardware.gpu.peak_flops[TB_DTYPE_FP16] = 989.4e12;
	in->hardware.gpu.peak_flops[TB_DTYPE_FP8] = 1978.9e12;
	in->hardware.gpu.tdp_w = 700;
	in->hardware.count = 64;
	in->hardware.mfu[0] = 0.25;
	in->hardware.mfu[1] = 0.35;
	in->hardware.mfu[2] = 0.45;
	in->hardware.price_per_gpu_hour = 2;
	strcpy(in->hardware.currency, "USD");
	in->hardware.pue = 1.2;
	in->training.tokens = 100e9;
	in->training.precision = TB_PREC_BF16_MIXED;
	in->training.seq_len = 4096;
	in->training.global_batch = 256;
	in->parallelism.tensor = 1;
	in->parallelism.pipeline = 1;
	b->params.total = b->params.active = 7e9;
	b->flops.per_token_6n = b->flops.per_token_model = 42e9;
	b->flops.per_token_hardware = 56e9;
	b->flops.total_6nd = b->flops.total_model = 4.2e21;
	b->flops.total_hardware = 5.6e21;
	b->flops.model_over_6n = 1;
}

static bool has_warning(const tb_budget *b, const char *needle)
{
	for (int i = 0; i < b->n_warnings; i++)
		if (strstr(b->warnings[i], needle))
			return true;
	return false;
}

Test(timecost, seven_b_on_64_h100)
{
	tb_inputs in;
	tb_budget b;
	setup(&in, &b);
	tb_timecost_compute(&in, &b);
	const tb_time *t = &b.time;
	cr_assert(t->known);
	cr_expect_eq(t->dtype, TB_DTYPE_BF16);
	/* 4.2e21 / (64 x 989.4e12 x 0.35) = 189,508.8 s = 2.19 days. */
	cr_expect(rel(t->seconds[1], 189508.8) < 1e-6, "got %g s", t->seconds[1]);
	/* x 64 / 3600 = 3,369.0 GPU-h; x $2 = $6,738.1. */
	cr_expect(rel(t->gpu_hours[1], 3369.045) < 1e-6);
	cr_expect(rel(t->cost[1], 6738.09) < 1e-5);
	/* 700 W x 3,369.0 h x 1.2 / 1000 = 2,830.0 kWh. */
	cr_expect(rel(t->energy_kwh[1], 2829.998) < 1e-5);
	/* Low MFU is the longest run. */
	cr_expect(t->seconds[0] > t->seconds[1] && t->seconds[1] > t->seconds[2]);
	cr_expect(rel(t->seconds[0] / t->seconds[2], 0.45 / 0.25) < 1e-12);
	cr_expect_str_eq(t->currency, "USD");
	cr_expect(tb_budget_deriv(&b, "time.seconds") != NULL);
	cr_expect(tb_budget_deriv(&b, "time.energy") != NULL);
}

Test(timecost, wall_clock_halves_when_gpus_double)
{
	tb_inputs in;
	tb_budget b1, b2;
	setup(&in, &b1);
	b2 = b1;
	tb_timecost_compute(&in, &b1);
	in.hardware.count = 128;
	tb_timecost_compute(&in, &b2);
	for (int i = 0; i < 3; i++) {
		cr_expect(rel(b2.time.seconds[i], b1.time.seconds[i] / 2) < 1e-12);
		cr_expect(rel(b2.time.cost[i], b1.time.cost[i]) < 1e-12, "same GPU-hours");
	}
}

Test(timecost, megatron_gpt3_34_days)
{
	/* Narayanan et al. 2021 Sec. 5.1, Eq. (4): time = 8TP/(nX); GPT-3
	 * (P = 175e9) on T = 300e9 tokens, n = 1024 A100 at X = 140 TFLOP/s
	 * each: "about 34 days".  8TP counts full recomputation (4 passes). */
	tb_inputs in;
	tb_budget b;
	setup(&in, &b);
	memset(in.hardware.gpu.peak_flops, 0, sizeof in.hardware.gpu.peak_flops);
	in.hardware.gpu.peak_flops[TB_DTYPE_BF16] = 312e12;
	in.hardware.count = 1024;
	for (int i = 0; i < 3; i++)
		in.hardware.mfu[i] = 140e12 / 312e12;
	b.flops.total_model = 8 * 300e9 * 175e9;
	tb_timecost_compute(&in, &b);
	cr_expect(fabs(b.time.seconds[1] / 86400 - 34) < 0.5, "got %g days",
	          b.time.seconds[1] / 86400);
}

Test(timecost, v100_falls_back_to_fp16_peak)
{
	tb_inputs in;
	tb_budget b;
	setup(&in, &b);
	memset(in.hardware.gpu.peak_flops, 0, sizeof in.hardware.gpu.peak_flops);
	strcpy(in.hardware.gpu.name, "v100-sxm2");
	in.hardware.gpu.peak_flops[TB_DTYPE_FP32] = 15.7e12;
	in.hardware.gpu.peak_flops[TB_DTYPE_FP16] = 125e12;
	tb_timecost_compute(&in, &b);
	cr_assert(b.time.known);
	cr_expect_eq(b.time.dtype, TB_DTYPE_FP16);
	cr_expect_eq(b.time.peak_flops_per_gpu, 125e12);
	cr_expect(has_warning(&b, "v100-sxm2"), "the fallback is explained");
	/* No fp8 peak: no fp8 lever. */
	for (int i = 0; i < b.n_levers; i++)
		cr_expect(strstr(b.levers[i].label, "fp8") == NULL);
}

Test(timecost, no_peak_is_unknown_not_nan)
{
	tb_inputs in;
	tb_budget b;
	setup(&in, &b);
	memset(in.hardware.gpu.peak_flops, 0, sizeof in.hardware.gpu.peak_flops);
	in.hardware.gpu.peak_flops[TB_DTYPE_FP32] = 15e12;
	tb_timecost_compute(&in, &b);
	cr_expect(!b.time.known);
	cr_expect(b.n_warnings >= 1);
	for (int i = 0; i < 3; i++)
		cr_expect(isfinite(b.time.seconds[i]) && isfinite(b.time.cost[i]));
}

Test(timecost, deadline_gpus_round_up_to_replicas)
{
	tb_inputs in;
	tb_budget b;
	setup(&in, &b);
	/* 5e19 FLOPs at 1e15 x 0.5 FLOP/s per GPU in 1000 s needs exactly 100
	 * GPUs; replicas of tensor 4 x pipeline 2 = 8 make that 104. */
	memset(in.hardware.gpu.peak_flops, 0, sizeof in.hardware.gpu.peak_flops);
	in.hardware.gpu.peak_flops[TB_DTYPE_BF16] = 1e15;
	in.hardware.mfu[1] = 0.5;
	in.hardware.count = 64;
	in.parallelism.tensor = 4;
	in.parallelism.pipeline = 2;
	in.plan.has_deadline = true;
	in.plan.deadline_s = 1000;
	b.flops.total_model = 5e19;
	b.flops.per_token_model = 1e9;
	tb_timecost_compute(&in, &b);
	cr_expect(!b.time.meets_deadline, "64 GPUs take 1562.5 s");
	/* 13 replicas, but a data-parallel size must divide the 256
	 * micro-batches of a global batch: 16 replicas, 128 GPUs. */
	cr_expect_eq(b.time.gpus_for_deadline, 128);
	in.training.global_batch = 208;         /* 13 x 16: 13 replicas run */
	tb_timecost_compute(&in, &b);
	cr_expect_eq(b.time.gpus_for_deadline, 104);
	in.training.global_batch = 256;
	tb_timecost_compute(&in, &b);
	/* 64 x 5e14 FLOP/s x 1000 s / 1e9 FLOP per token = 3.2e10 tokens. */
	cr_expect(rel(b.time.tokens_in_deadline, 3.2e10) < 1e-12);
	in.plan.deadline_s = 2000;
	tb_timecost_compute(&in, &b);
	cr_expect(b.time.meets_deadline);
	cr_expect_eq(b.time.gpus_for_deadline, 64, "50 GPUs: 7 replicas of 8, then 8 to divide 256");
}

/* Both answers when the global batch does not divide: 1.184e21 FLOP at
 * 1e15 x 0.5 FLOP/s per GPU in 1000 s is 2,368 GPUs by compute, 296
 * replicas of tensor 8.  296 does not divide the 2,048 micro-batches of a
 * global batch of 2,048; the smallest divisor above it is 512 replicas,
 * 4,096 GPUs.  The global batch that runs on 2,368: a multiple of 296
 * nearest 2,048, 7 x 296 = 2,072. */
Test(timecost, deadline_by_compute_and_with_the_global_batch)
{
	tb_inputs in;
	tb_budget b;
	setup(&in, &b);
	memset(in.hardware.gpu.peak_flops, 0, sizeof in.hardware.gpu.peak_flops);
	in.hardware.gpu.peak_flops[TB_DTYPE_BF16] = 1e15;
	in.hardware.mfu[1] = 0.5;
	in.hardware.count = 1024;
	in.parallelism.tensor = 8;
	in.training.global_batch = 2048;
	in.training.micro_batch = 1;
	in.plan.has_deadline = true;
	in.plan.deadline_s = 1000;
	b.flops.total_model = 2368 * 5e14 * 1000;
	b.flops.per_token_model = 1e9;
	tb_timecost_compute(&in, &b);
	cr_expect(!b.time.meets_deadline);
	cr_expect_eq(b.time.gpus_for_deadline_compute, 2368);
	cr_expect_eq(b.time.gpus_for_deadline, 4096);
	cr_expect_eq(b.time.global_batch_for_compute, 2072);
	cr_expect(tb_budget_deriv(&b, "time.gpus_for_deadline_compute") != NULL);
	/* a global batch the compute count divides: one answer */
	in.training.global_batch = 2072;
	tb_timecost_compute(&in, &b);
	cr_expect_eq(b.time.gpus_for_deadline_compute, 2368);
	cr_expect_eq(b.time.gpus_for_deadline, 2368);
	cr_expect_eq(b.time.global_batch_for_compute, 0);
}

Test(timecost, budget_tokens)
{
	tb_inputs in;
	tb_budget b;
	setup(&in, &b);
	in.plan.has_budget = true;
	in.plan.budget = 5000;
	tb_timecost_compute(&in, &b);
	cr_expect(!b.time.within_budget, "$6,738 > $5,000");
	/* $5,000 / $2 = 2,500 GPU-h = 9e6 GPU-s x 989.4e12 x 0.35 / 42e9. */
	cr_expect(rel(b.time.tokens_in_budget, 9e6 * 989.4e12 * 0.35 / 42e9) < 1e-12);
	in.plan.budget = 7000;
	tb_timecost_compute(&in, &b);
	cr_expect(b.time.within_budget);
}

Test(timecost, gpu_scan_powers_of_two_in_replicas)
{
	tb_inputs in;
	tb_budget b;
	setup(&in, &b);
	in.parallelism.tensor = 8;
	tb_timecost_compute(&in, &b);
	static const int64_t want[] = { 8, 16, 32, 64, 128, 256, 512 };
	cr_assert_eq(b.time.n_gpu_scan, 7);
	for (int i = 0; i < 7; i++) {
		cr_expect_eq(b.time.gpu_scan[i].gpus, want[i]);
		cr_expect(rel(b.time.gpu_scan[i].seconds[1] * (double)want[i],
		              b.time.seconds[1] * 64) < 1e-12);
	}
}

static const tb_lever *lever(const tb_budget *b, const char *label)
{
	for (int i = 0; i < b->n_levers; i++)
		if (strcmp(b->levers[i].label, label) == 0)
			return &b->levers[i];
	return NULL;
}

Test(timecost, levers)
{
	tb_inputs in;
	tb_budget b;
	setup(&in, &b);
	tb_timecost_compute(&in, &b);
	const tb_lever *l = lever(&b, "tokens -25%");
	cr_assert(l);
	cr_expect(fabs(l->delta_seconds_frac + 0.25) < 1e-12);
	cr_expect(fabs(l->delta_cost_frac + 0.25) < 1e-12);
	cr_assert((l = lever(&b, "GPUs x2")));
	cr_expect(fabs(l->delta_seconds_frac + 0.5) < 1e-12);
	cr_expect(fabs(l->delta_cost_frac) < 1e-12);
	cr_assert((l = lever(&b, "GPUs /2")));
	cr_expect(fabs(l->delta_seconds_frac - 1) < 1e-12);
	cr_assert((l = lever(&b, "MFU +0.10")));
	cr_expect(fabs(l->delta_seconds_frac - (0.35 / 0.45 - 1)) < 1e-12);
	/* Without the step-time model, not the peaks' 2x: the middle of the
	 * published end-to-end fp8 speed-ups over bf16, 1.1-1.5x (torchao
	 * float8, PyTorch FSDP2 float8 all-gather; docs/formulas.md), 1.3x. */
	cr_assert((l = lever(&b, "precision fp8")));
	cr_expect(rel(l->seconds, b.time.seconds[1] / 1.3) < 1e-12);
	cr_expect(l->delta_seconds_frac > -0.25 && l->delta_seconds_frac < -0.2, "%g",
	          l->delta_seconds_frac);
	/* MFU already at 1: no lever past it. */
	in.hardware.mfu[1] = in.hardware.mfu[2] = 1;
	tb_timecost_compute(&in, &b);
	cr_expect(lever(&b, "MFU +0.10") == NULL);
}

/* An fp8 run given an MFU: the time uses it on the fp8 peak (1978.9 of
 * 989.4 TFLOP/s, 2.0x), and a warning says what that assumes.  Published
 * fp8 runs are 1.1-1.5x faster than bf16 on the same cards, so 35% of the
 * bf16 peak is 35 x 1.1 / 2 = 19% to 35 x 1.5 / 2 = 26% of the fp8 one. */
Test(timecost, fp8_mfu_on_the_fp8_peak_is_flagged)
{
	tb_inputs in;
	tb_budget b;
	setup(&in, &b);
	in.training.precision = TB_PREC_FP8_MIXED;
	tb_timecost_compute(&in, &b);
	cr_expect_eq(b.time.dtype, TB_DTYPE_FP8);
	cr_expect(has_warning(&b, "fp8: MFU 35% is taken on the fp8 peak, 2.0x the 16-bit one; "
	                          "published fp8 runs gain 1.1-1.5x over bf16, so 35% in bf16 is 19-26% here"),
	          "%s", b.n_warnings ? b.warnings[0] : "");
	/* bf16: no such warning */
	setup(&in, &b);
	tb_timecost_compute(&in, &b);
	cr_expect(!has_warning(&b, "fp8:"));
}

Test(timecost, measured_palm_540b_mfu)
{
	/* PaLM 540B (Chowdhery et al. 2022, Sec. 4.1, App. B): 238.3K tokens/s
	 * on 6144 TPU v4 (275 TFLOP/s bf16) is 46.2% MFU, with model FLOPs
	 * per token 6N + 12LHQT, N = 540.35e9, L = 118, H = 48, Q = 256,
	 * T = 2048.  A batch of 2048 sequences is 4,194,304 tokens a step. */
	tb_inputs in;
	tb_budget b;
	setup(&in, &b);
	memset(in.hardware.gpu.peak_flops, 0, sizeof in.hardware.gpu.peak_flops);
	in.hardware.gpu.peak_flops[TB_DTYPE_BF16] = 275e12;
	in.hardware.count = 6144;
	in.training.seq_len = 2048;
	in.training.global_batch = 2048;
	in.training.tokens = 780e9;
	b.flops.per_token_model = 6 * 540.35e9 + 12.0 * 118 * 48 * 256 * 2048;
	b.flops.per_token_hardware = b.flops.per_token_model;
	b.flops.total_model = b.flops.per_token_model * in.training.tokens;
	in.measured.has_step_time = true;
	in.measured.step_time_s = 2048.0 * 2048 / 238.3e3;
	tb_timecost_compute(&in, &b);
	cr_assert(b.time.has_measured_step);
	cr_expect(fabs(b.time.achieved_mfu - 0.462) < 0.0005, "got %g", b.time.achieved_mfu);
	/* 780e9 tokens at 238.3K tokens/s = 3.27e6 s (to a whole step). */
	cr_expect(rel(b.time.measured_seconds, 780e9 / 238.3e3) < 1e-5);
}

Test(timecost, measured_hfu_and_memory)
{
	tb_inputs in;
	tb_budget b;
	setup(&in, &b);
	in.measured.has_step_time = true;
	/* 256 x 4096 tokens x 42e9 FLOPs / (64 x 989.4e12) at 40% = 1.7386 s. */
	in.measured.step_time_s = 256.0 * 4096 * 42e9 / (64 * 989.4e12 * 0.40);
	in.measured.has_peak_memory = true;
	in.measured.peak_memory_bytes = 50e9;
	b.memory.per_gpu.total = 60e9;
	b.memory.activations_known = true;
	tb_timecost_compute(&in, &b);
	cr_expect(rel(b.time.achieved_mfu, 0.40) < 1e-12);
	cr_expect(rel(b.time.achieved_hfu, 0.40 * 56 / 42) < 1e-12);
	cr_expect(rel(b.time.memory_estimate_error, 0.2) < 1e-12, "estimate 20% high");
}

Test(timecost, no_tdp_energy_unknown)
{
	tb_inputs in;
	tb_budget b;
	setup(&in, &b);
	in.hardware.gpu.tdp_w = 0;
	tb_timecost_compute(&in, &b);
	cr_expect(b.time.known, "time and cost do not need a TDP");
	cr_expect(!b.time.energy_known);
	cr_expect(has_warning(&b, "energy is unknown"));
	cr_expect(tb_budget_deriv(&b, "time.energy") == NULL);
}

Test(timecost, pue_scales_energy_only)
{
	tb_inputs in;
	tb_budget b1, b2;
	setup(&in, &b1);
	b2 = b1;
	tb_timecost_compute(&in, &b1);
	in.hardware.pue = 1.5;
	tb_timecost_compute(&in, &b2);
	cr_expect(rel(b2.time.energy_kwh[1], b1.time.energy_kwh[1] * 1.5 / 1.2) < 1e-12);
	cr_expect_eq(b2.time.cost[1], b1.time.cost[1]);
}

/* Through the step-time model: the count the deadline needs is timed as
 * the GPU scan times it (the predicted step at that count), not by perfect
 * scaling.  70B on 15T tokens, 1,024 H100 (docs/examples): at a 55-day
 * deadline perfect scaling asks for 3,840 GPUs and 4,096 keep the global
 * batch whole, but the model's step at 4,096 makes the run longer than 55
 * days, so the answer is the next count that divides the batch, 8,192. */
static tb_budget S_big;

Test(timecost, deadline_count_timed_by_the_step_time_model)
{
	static const char *const sets[] = { "plan.deadline=55d" };
	tb_diags d;
	tb_diags_init(&d);
	tb_scenario *sc = tb_scenario_load_file("docs/examples/70b-15t-1024-h100.yaml", sets, 1, &d);
	tb_diags_release(&d);
	cr_assert_not_null(sc);
	tb_budget_compute(&sc->inputs, &S_big);
	const tb_time *t = &S_big.time;
	cr_assert(S_big.perf.known);
	cr_expect_eq(t->gpus_for_deadline_compute, 3840);
	tb_perf_result pr;
	cr_assert(tb_perf_budget_at(&sc->inputs, &S_big, 4096, &pr));
	double at4096 = t->seconds[1] * pr.step_s / S_big.perf.r.step_s;
	cr_expect(at4096 > t->deadline_s, "%g days", at4096 / 86400);
	cr_expect_eq(t->gpus_for_deadline, 8192);
	cr_assert(tb_perf_budget_at(&sc->inputs, &S_big, 8192, &pr));
	cr_expect(t->seconds[1] * pr.step_s / S_big.perf.r.step_s <= t->deadline_s);
	tb_scenario_free(sc);
}

/* hardware.node_power: the node's draw shared by its GPUs (NVIDIA's DGX
 * H100: 10.2 kW for 8 GPUs, 1,275 W each) instead of the 700 W TDP; and a
 * reservation billed as booked decides the budget's verdict. */
Test(timecost, node_power_and_reservation_bill)
{
	static const char y[] =
		"title: t\nmodel: {preset: llama-2-7b}\ntraining: {tokens: 100B}\n"
		"hardware: {gpu: h100-sxm, count: 64, price_per_gpu_hour: 2.5, node_power: 10.2kW}\n"
		"plan: {budget: 100k}\n";
	tb_diags d;
	tb_diags_init(&d);
	tb_scenario *sc = tb_scenario_load("t.yaml", y, strlen(y), NULL, 0, &d);
	cr_assert(sc);
	static tb_budget b, b2;
	tb_inputs priced;
	tb_budget_compute_answer(&sc->inputs, &priced, &b);
	double kwh = b.time.gpu_hours[1] * 1275 / 1000;
	cr_expect(fabs(b.time.energy_kwh[1] - kwh) < 1e-6 * kwh, "%g %g", b.time.energy_kwh[1], kwh);
	cr_expect(tb_budget_verdict(&b, false) == TB_VERDICT_YES);
	/* booked for 30 days: 64 x 720 h x 2.5 = 115,200, over the budget */
	const char *sets[] = { "hardware.reservation=30 days" };
	tb_scenario *s2 = tb_scenario_load("t.yaml", y, strlen(y), sets, 1, &d);
	cr_assert(s2);
	tb_budget_compute_answer(&s2->inputs, &priced, &b2);
	cr_expect(fabs(tb_budget_expected(&b2).cost - 115200) < 1e-6, "%.2f", tb_budget_expected(&b2).cost);
	cr_expect(tb_budget_verdict(&b2, false) == TB_VERDICT_NO);
	cr_expect(b2.risk.known && b2.risk.cost_p10 == 115200, "%.2f", b2.risk.cost_p10);
	tb_scenario_free(s2);
	tb_scenario_free(sc);
	tb_diags_release(&d);
}

/* hardware.power_limit bounds the energy at the limit, not the TDP: the same
 * 3,369.0 GPU-hours at 500 W x 1.2 are 2,021.4 kWh; the time here is the
 * assumed MFU's, which a limit does not change (the step-time model's is
 * test_perf's). */
Test(timecost, energy_at_the_power_limit)
{
	tb_inputs in;
	tb_budget b;
	setup(&in, &b);
	in.hardware.power_limit_w = 500;
	tb_timecost_compute(&in, &b);
	cr_expect(rel(b.time.gpu_hours[1], 3369.045) < 1e-6);
	cr_expect(rel(b.time.energy_kwh[1], 3369.045 * 500 * 1.2 / 1000) < 1e-6,
	          "%g kWh", b.time.energy_kwh[1]);
	const tb_deriv *d = tb_budget_deriv(&b, "time.energy");
	cr_assert(d != NULL);
	cr_expect(strstr(d->source, "power limit") != NULL, "%s", d->source);
}

/* A search prices the scenario's limit on other cards too: on one whose
 * TDP is below it (500 W on a 400 W A100) the card draws its TDP, and its
 * compute is not slowed. */
Test(timecost, power_limit_above_the_card_is_its_tdp)
{
	tb_inputs in;
	tb_budget b;
	setup(&in, &b);
	in.hardware.power_limit_w = 800;
	tb_timecost_compute(&in, &b);
	cr_expect(rel(b.time.energy_kwh[1], 3369.045 * 700 * 1.2 / 1000) < 1e-6, "%g kWh", b.time.energy_kwh[1]);
	cr_expect(tb_hardware_gpu_watts(&in.hardware) == 700);
	const tb_deriv *d = tb_budget_deriv(&b, "time.energy");
	cr_assert(d != NULL);
	cr_expect(strstr(d->source, "power limit") == NULL, "%s", d->source);
	tb_perf_input pi;
	tb_perf_input_from(&in, &pi);
	cr_expect(pi.hw.power_fraction == 1);
}
