/* test_render_text.c: the `estimate` summary: verdict first, under 40
 * lines whatever the warnings, figures as fmt.h writes them, never NaN. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "calc.h"
#include "trainbudget/render.h"

/* The same hand-made run as test_timecost: 4.2e21 model FLOPs on 64 H100
 * (989.4 TFLOP/s) at MFU 0.25/0.35/0.45, $2 per GPU-hour: 2.19 days and
 * $6,738.09 at 0.35; 80 GB cards holding 60 GB. */
static void fixture(tb_scenario *sc, tb_budget *b)
{
	memset(sc, 0, sizeof *sc);
	memset(b, 0, sizeof *b);
	tb_inputs *in = &sc->inputs;
	sc->title = (char *)"7B on 100B tokens";
	strcpy(in->hardware.gpu.name, "h100-sxm");
	in->hardware.gpu.peak_flops[TB_DTYPE_BF16] = 989.4e12;
	in->hardware.gpu.tdp_w = 700;
	in->hardware.count = 64;
	in->hardware.mfu[0] = 0.25;
	in->hardware.mfu[1] = 0.35;
	in->hardware.mfu[2] = 0.45;
	in->hardware.price_per_gpu_hour = 2;
	strcpy(in->hardware.currency, "USD");
	in->hardware.pue = 1;
	in->training.tokens = 100e9;
	in->training.precision = TB_PREC_BF16_MIXED;
	in->parallelism.tensor = in->parallelism.pipeline = 1;
	in->plan.has_deadline = true;
	in->plan.deadline_s = 30 * 86400.0;
	b->params.total = b->params.active = 7e9;
	b->flops.per_token_6n = b->flops.per_token_model = b->flops.per_token_hardware = 42e9;
	b->flops.total_6nd = b->flops.total_model = b->flops.total_hardware = 4.2e21;
	b->memory.activations_known = true;
	b->memory.capacity_bytes = 80e9;
	b->memory.per_gpu.weights = 14e9;
	b->memory.per_gpu.gradients = 14e9;
	b->memory.per_gpu.activations = 32e9;
	b->memory.per_gpu.total = 60e9;
	b->memory.headroom_bytes = 20e9;
	b->memory.fits = true;
	tb_timecost_compute(in, b);
	tb_goodput_step(in, b);
	tb_scaling_compute(in, b);
}

static int count_lines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

Test(render_text, verdict_first)
{
	tb_scenario sc;
	static tb_budget b;
	fixture(&sc, &b);
	char *s = tb_render_text(&sc, &b);
	const char *fits = strstr(s, "Fits in memory?  YES");
	const char *dl = strstr(s, "Meets deadline?  YES");
	const char *cost = strstr(s, "Cost:");
	const char *mem = strstr(s, "Memory per GPU");
	cr_assert(fits && dl && cost && mem, "%s", s);
	cr_expect(fits < dl && dl < cost && cost < mem, "the verdict comes before the budgets");
	cr_expect(strstr(s, "$6,738") != NULL, "expected cost at MFU 0.35:\n%s", s);
	cr_expect(strstr(s, "2.2 days") != NULL, "189,509 s is 2.2 days:\n%s", s);
	cr_expect(strstr(s, "60.0 GB") != NULL);
	cr_expect(count_lines(s) < 40);
	free(s);
}

Test(render_text, does_not_fit_and_misses_deadline)
{
	tb_scenario sc;
	static tb_budget b;
	fixture(&sc, &b);
	sc.inputs.plan.deadline_s = 86400;
	b.memory.fits = false;
	b.memory.per_gpu.total = 90e9;
	b.memory.headroom_bytes = -10e9;
	tb_timecost_compute(&sc.inputs, &b);
	tb_goodput_step(&sc.inputs, &b);
	char *s = tb_render_text(&sc, &b);
	cr_expect(strstr(s, "Fits in memory?  NO") != NULL, "%s", s);
	cr_expect(strstr(s, "Meets deadline?  NO") != NULL, "%s", s);
	/* 189,509 s of 64 GPUs in 86,400 s: 140.4, so 141 GPUs. */
	cr_expect(strstr(s, "; 141 GPUs would on compute") != NULL, "%s", s);
	cr_expect(strstr(s, "over by 10.0 GB") != NULL, "%s", s);
	free(s);
}

Test(render_text, under_40_lines_with_every_warning)
{
	tb_scenario sc;
	static tb_budget b;
	fixture(&sc, &b);
	sc.title = (char *)"line one\nline two\nline three";
	while (b.n_warnings < TB_WARNINGS_MAX)
		tb_budget_warn(&b, "warning number %d", b.n_warnings);
	char *s = tb_render_text(&sc, &b);
	cr_expect(count_lines(s) < 40, "%d lines:\n%s", count_lines(s), s);
	cr_expect(strncmp(s, "line one line two line three\n", 29) == 0, "title on one line");
	cr_expect(strstr(s, "more (see --format json)") != NULL);
	free(s);
}

Test(render_text, unknown_time_no_nan)
{
	tb_scenario sc;
	static tb_budget b;
	fixture(&sc, &b);
	memset(sc.inputs.hardware.gpu.peak_flops, 0, sizeof sc.inputs.hardware.gpu.peak_flops);
	b.n_warnings = 0;
	b.memory.activations_known = false;
	tb_timecost_compute(&sc.inputs, &b);
	tb_goodput_step(&sc.inputs, &b);
	tb_scaling_compute(&sc.inputs, &b);
	char *s = tb_render_text(&sc, &b);
	cr_expect(strstr(s, "Meets deadline?  UNKNOWN") != NULL, "%s", s);
	cr_expect(strstr(s, "activations        unknown") != NULL, "%s", s);
	cr_expect(strstr(s, "nan") == NULL && strstr(s, "NaN") == NULL);
	cr_expect(strstr(s, "lists no dense bf16 peak") != NULL, "the warning explains it");
	free(s);
}

/* The fixture's run: 2.19 days and $6,738 at 35% MFU, 3.07 days and $9,433
 * at 25%.  A deadline or budget met only at the most likely MFU is a risk. */
Test(render_text, deadline_and_budget_at_risk_at_low_mfu)
{
	tb_scenario sc;
	static tb_budget b;
	fixture(&sc, &b);
	sc.inputs.plan.deadline_s = 2.6 * 86400;
	sc.inputs.plan.has_budget = true;
	sc.inputs.plan.budget = 8000;
	tb_timecost_compute(&sc.inputs, &b);
	tb_goodput_step(&sc.inputs, &b);
	char *s = tb_render_text(&sc, &b);
	cr_expect(strstr(s, "Meets deadline?  AT RISK: 2.2 days expected at 35% MFU with losses against 2.6 days; "
	                    "3.1 days at 25% MFU\n") != NULL, "%s", s);
	cr_expect(strstr(s, "; AT RISK: within $8,000 only at the most likely MFU\n") != NULL, "%s", s);
	free(s);
}

Test(render_text, assumed_price_is_said)
{
	tb_scenario sc;
	static tb_budget b;
	fixture(&sc, &b);
	sc.price_assumed = true;
	char *s = tb_render_text(&sc, &b);
	cr_expect(strstr(s, "at an assumed $2.00 per GPU-hour (not in the scenario)\n") != NULL,
	          "%s", s);
	free(s);
}

/* Count-only: states and overhead (14 + 14 + 20 GB here) above the 40 GB
 * card are a definite NO, whatever the activations. */
Test(render_text, count_only_states_over_capacity_is_no)
{
	tb_scenario sc;
	static tb_budget b;
	fixture(&sc, &b);
	b.memory.activations_known = false;
	b.memory.per_gpu.activations = 0;
	b.memory.per_gpu.optimizer = 20e9;
	b.memory.capacity_bytes = 40e9;
	/* as memory.c leaves it: the total holds the known items, and a
	 * known part over capacity makes "fits" an answer */
	const tb_mem_items *g = &b.memory.per_gpu;
	b.memory.per_gpu.total = g->weights + g->gradients + g->master_weights + g->optimizer + g->other;
	b.memory.fits = false;
	b.memory.fits_known = true;
	char *s = tb_render_text(&sc, &b);
	cr_expect(strstr(s, "Fits in memory?  NO: 48.0 GB per GPU before activations") != NULL,
	          "%s", s);
	free(s);
}

/* A measured run gets its own lines; the figures are the budget's (set by
 * hand here), only their wording is the renderer's. */
Test(render_text, measured_run_is_summarised)
{
	tb_scenario sc;
	static tb_budget b;
	fixture(&sc, &b);
	b.time.has_measured_step = true;
	b.time.achieved_mfu = 0.46;
	b.time.achieved_hfu = 0.48;
	b.time.measured_seconds = 181 * 86400.0;
	b.time.has_measured_memory = true;
	b.time.measured_peak_bytes = 38 * 1073741824.0;
	b.time.memory_estimate_error = -0.14;
	char *s = tb_render_text(&sc, &b);
	cr_expect(strstr(s, "Measured    achieved MFU 46% (HFU 48%) against 35% assumed; "
	                    "the whole run 181 days\n") != NULL, "%s", s);
	cr_expect(strstr(s, "peak memory 38.0 GiB; the estimate is 14% under\n") != NULL, "%s", s);
	free(s);
}

/* One MFU value: one cost, not a range from a figure to itself. */
Test(render_text, single_mfu_prints_one_cost)
{
	tb_scenario sc;
	static tb_budget b;
	fixture(&sc, &b);
	b.time.cost[0] = b.time.cost[2] = b.time.cost[1];
	b.losses.cost[0] = b.losses.cost[2] = b.losses.cost[1];
	char *s = tb_render_text(&sc, &b);
	cr_expect(strstr(s, "over the MFU range") == NULL, "%s", s);
	free(s);
}

/* `trainbudget gpus` and `models`: the cards as they report themselves and
 * the presets with their official counts (H100 SXM: 81,559 MiB in
 * nvidia-smi, 989.4 dense bf16 TFLOP/s; Llama 2 7B: 6,738,415,616). */
Test(render_text, gpus_and_models_tables)
{
	char *g = tb_render_gpus_text();
	cr_assert(g);
	cr_expect(strstr(g, "h100-sxm") && strstr(g, "81,559 MiB") && strstr(g, "989"),
	          "the H100 row: %s", g);
	cr_expect(strncmp(g, "NAME", 4) == 0);
	free(g);
	char *m = tb_render_models_text();
	cr_assert(m);
	cr_expect(strstr(m, "llama-2-7b") && strstr(m, "6,738,415,616"), "%s", m);
	free(m);
}
