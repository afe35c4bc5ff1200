/* test_stages.c: a run in stages (stages.h).  The proof: the
 * whole run is the sum of its stages, each stage is the same scenario run
 * alone, the verdicts are the whole run's, and the stage split of
 * DeepSeek-V3's Table 1 at the MFU its pre-training implies (also a row
 * of docs/validation.md). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "trainbudget/scenario.h"
#include "trainbudget/stages.h"

static const char S_base[] =
	"title: staged\n"
	"model: {preset: llama-2-7b}\n"
	"training: {seq_len: 4096, global_batch: 1024}\n"
	"hardware: {gpu: h100-sxm, count: 256, price_per_gpu_hour: 2.5}\n";

static const char S_stages[] =
	"stages:\n"
	"  - name: pre-training\n"
	"    training: {tokens: 1.8T}\n"
	"  - name: long context\n"
	"    training: {tokens: 200B, seq_len: 32k, global_batch: 128}\n"
	"    parallelism: {context: 4}\n"
	"  - name: sft\n"
	"    training: {tokens: 1B, method: lora, lora: {rank: 16, targets: all-linear}}\n";

static tb_scenario *S_load(const char *text, const char *const *sets, size_t n)
{
	tb_diags d;
	tb_diags_init(&d);
	tb_scenario *sc = tb_scenario_load("t.yaml", text, strlen(text), sets, n, &d);
	cr_assert(sc, "%s", tb_diags_format(&d));
	tb_diags_release(&d);
	return sc;
}

static tb_budget *S_price(tb_scenario *sc)
{
	static tb_budget b;
	memset(&b, 0, sizeof b);
	tb_budget_compute_answer(&sc->inputs, &sc->inputs, &b);
	tb_budget_compute_stages(&sc->inputs, sc->stages, sc->nstages, &b);
	return &b;
}

Test(stages, total_is_the_sum_and_each_stage_runs_alone)
{
	char text[2048];
	snprintf(text, sizeof text, "%s%s", S_base, S_stages);
	tb_scenario *sc = S_load(text, NULL, 0);
	cr_assert_eq(sc->nstages, 3);
	cr_expect(sc->inputs.training.tokens == 1.8e12 + 200e9 + 1e9);
	tb_budget *b = S_price(sc);
	cr_assert_eq(b->n_stages, 3);
	double days = 0, hours = 0, cost = 0;
	for (int i = 0; i < 3; i++) {
		cr_assert(b->stages[i].known, "%d", i);
		days += b->stages[i].days;
		hours += b->stages[i].gpu_hours;
		cost += b->stages[i].cost;
	}
	tb_expected x = tb_budget_expected(b);
	cr_expect(fabs(x.seconds / 86400 - days) <= 1e-9 * days, "%.12g %.12g", x.seconds / 86400, days);
	cr_expect(fabs(x.gpu_hours - hours) <= 1e-9 * hours);
	cr_expect(fabs(x.cost - cost) <= 1e-9 * cost);
	cr_expect(b->stages[1].layout.context == 4 && b->stages[1].seq_len == 32768);
	cr_expect(b->stages[2].method == TB_METHOD_LORA);

	/* stage 2 written alone prices the same, to the bit */
	static const char alone[] =
		"title: staged\n"
		"model: {preset: llama-2-7b}\n"
		"training: {tokens: 200B, seq_len: 32k, global_batch: 128}\n"
		"hardware: {gpu: h100-sxm, count: 256, price_per_gpu_hour: 2.5}\n"
		"parallelism: {context: 4}\n";
	tb_scenario *s2 = S_load(alone, NULL, 0);
	static tb_budget b2;
	tb_budget_compute_answer(&s2->inputs, &s2->inputs, &b2);
	tb_expected y = tb_budget_expected(&b2);
	cr_expect(y.seconds / 86400 == b->stages[1].days, "%.17g %.17g", y.seconds / 86400,
	          b->stages[1].days);
	cr_expect(y.cost == b->stages[1].cost);
	cr_expect(b2.memory.per_gpu.total == b->stages[1].memory_per_gpu_bytes);
	tb_scenario_free(s2);
	tb_scenario_free(sc);
}

/* The deadline is the whole run's: one the first stage meets alone is
 * missed by the three together. */
Test(stages, verdict_on_the_whole_run)
{
	char text[2048];
	snprintf(text, sizeof text, "%s%s", S_base, S_stages);
	tb_scenario *sc = S_load(text, NULL, 0);
	tb_budget *b = S_price(sc);
	double first = b->stages[0].days, total = tb_budget_expected(b).seconds / 86400;
	cr_assert(total > first * 1.05);
	char set[64];
	snprintf(set, sizeof set, "plan.deadline=%.3f days", (first + total) / 2);
	const char *sets[] = { set };
	tb_scenario *s2 = S_load(text, sets, 1);
	tb_budget *b2 = S_price(s2);
	cr_expect(tb_budget_verdict(b2, true) == TB_VERDICT_NO);
	cr_expect(b2->risk.known && b2->risk.p_meets_deadline < 0.5, "%g", b2->risk.p_meets_deadline);
	tb_scenario_free(s2);
	tb_scenario_free(sc);
}

/* DeepSeek-V3 (arXiv:2412.19437): Table 1's 2,664K H800 GPU-hours of
 * pre-training and 119K of context extension, Sec. 4.3's two extension
 * phases of 1,000 steps (32K x 1,920, then 128K x 480).  At the MFU its
 * pre-training implies, the extension is within 10% of its figure. */
Test(stages, deepseek_v3_context_extension)
{
	static const char y[] =
		"title: DeepSeek-V3 stages\n"
		"model: {preset: deepseek-v3}\n"
		"training: {seq_len: 4096, global_batch: 15360, precision: fp8-mixed, checkpointing: full}\n"
		"hardware: {gpu: h800, count: 2048, mfu: 0.22}\n"
		"parallelism: {tensor: 1, pipeline: 16, context: 1, expert: 64, zero: 1, "
		"overlap_ep: true, dispatcher: deepep}\n"
		"stages:\n"
		"  - name: pre-training\n"
		"    training: {tokens: 14.8T}\n"
		"  - name: 32K\n"
		"    training: {tokens: 62914560000, seq_len: 32k, global_batch: 1920}\n"
		"  - name: 128K\n"
		"    training: {tokens: 62914560000, seq_len: 128k, global_batch: 480}\n";
	tb_scenario *sc = S_load(y, NULL, 0);
	tb_budget *b = S_price(sc);
	double pre = b->stages[0].gpu_hours;
	double ext = b->stages[1].gpu_hours + b->stages[2].gpu_hours;
	/* GPU-hours go as 1/MFU: the MFU that gives 2,664K for pre-training */
	double implied = ext * 2664e3 / pre;
	cr_expect(fabs(implied - 119e3) <= 0.10 * 119e3, "%.0f", implied);
	tb_scenario_free(sc);
}

/* A default a stage's load adapts is said, with the stage's name, among
 * the scenario's (the documents list them as assumptions). */
Test(stages, a_stage_adapted_default_is_said)
{
	static const char y[] =
		"title: adapted in a stage\n"
		"model: {preset: llama-2-7b}\n"
		"training: {seq_len: 4096}\n"
		"hardware: {gpu: h100-sxm, count: 1536}\n"
		"stages:\n"
		"  - {name: a, training: {tokens: 100B}}\n"
		"  - name: long\n"
		"    training: {tokens: 10B, seq_len: 32k, micro_batch: 1}\n"
		"    parallelism: {tensor: 8, pipeline: 1, context: 4}\n";
	tb_scenario *sc = S_load(y, NULL, 0);
	const tb_scenario_adapted *a = tb_scenario_adapted_find(sc, "training.global_batch");
	cr_assert(a);
	cr_expect(strstr(a->why, "in stage 'long'") != NULL, "%s", a->why);
	/* 1,536 GPUs over TP 8 x CP 4 leave 48 replicas: 1,008 = 21 x 48 */
	cr_expect(strcmp(a->value, "1008") == 0, "%s", a->value);
	cr_expect(sc->stages[1].inputs.training.global_batch == 1008);
	tb_scenario_free(sc);
}
