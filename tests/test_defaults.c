/* Defaults never make a scenario invalid (issue 9): a key the user did not
 * write follows the rest of the scenario instead of failing it, and says
 * so; a key the user did write that cannot work is an error naming a value
 * that would.  Expected values are documented defaults, published model
 * facts (GPT-2's 1,024 positions, Llama 3's 2,048-sequence batch) and the
 * GPU table's supported formats, never figures the loader computed. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/answer.h"
#include "trainbudget/budget.h"
#include "trainbudget/buf.h"
#include "trainbudget/gpus.h"
#include "trainbudget/presets.h"
#include "trainbudget/scenario.h"

static tb_scenario *S_load(const char *text, tb_diags *d)
{
	tb_diags_init(d);
	return tb_scenario_load("d.yaml", text, strlen(text), NULL, 0, d);
}

static char *S_first(const tb_diags *d)
{
	char *all = tb_diags_format(d);
	char *nl = strchr(all, '\n');
	if (nl)
		*nl = '\0';
	return all;
}

/* The first case: Llama 3.1 405B on 15T tokens with 16,384 GPUs and
 * nothing else said.  The layout is the answer's to choose (answer.h), so
 * the documented default global batch of 1,024 sequences is kept, not bent
 * to 16,384 (one per replica of an all data-parallel default: 134M tokens
 * a step, eight times Llama 3's); the answer finds a layout it splits over
 * (issue 19).  Only when every key that splits the batch is written does
 * the default follow them. */
Test(defaults, global_batch_follows_the_layout)
{
	tb_diags d;
	tb_scenario *sc = S_load("title: t\nmodel: {preset: llama-3.1-405b}\n"
	                         "training: {tokens: 15T}\nhardware: {count: 16384}\n", &d);
	char *msg = tb_diags_format(&d);
	cr_assert_not_null(sc, "%s", msg);
	free(msg);
	cr_expect_eq(sc->inputs.training.global_batch, 1024);
	cr_expect_eq(sc->nadapted, 0);
	tb_answer a;
	tb_inputs priced;
	tb_answer_decide(&sc->inputs, &a, &priced);
	cr_assert(a.runs, "%s", a.why_not);
	int64_t replicas = a.layout.data * a.layout.micro_batch;
	cr_expect_eq(1024 % replicas, 0, "1,024 splits over %lld x %lld", (long long)a.layout.data,
	             (long long)a.layout.micro_batch);
	cr_expect_eq(a.layout.tensor * a.layout.pipeline * a.layout.context * a.layout.data, 16384);
	tb_scenario_free(sc);
	tb_diags_release(&d);

	/* every key that splits the batch written: the default follows them */
	sc = S_load("title: t\nmodel: {preset: llama-3.1-405b}\ntraining: {tokens: 15T, micro_batch: 1}\n"
	            "hardware: {count: 16384}\nparallelism: {tensor: 1, pipeline: 1, context: 1}\n", &d);
	msg = tb_diags_format(&d);
	cr_assert_not_null(sc, "%s", msg);
	free(msg);
	cr_expect_eq(sc->inputs.parallelism.data, 16384);
	cr_expect_eq(sc->inputs.training.global_batch, 16384);
	cr_assert_eq(sc->nadapted, 1);
	cr_expect_str_eq(sc->adapted[0].key, "training.global_batch");
	cr_expect_str_eq(sc->adapted[0].value, "16384");
	cr_expect_str_eq(sc->adapted[0].deflt, "1024");
	cr_expect_not_null(strstr(sc->adapted[0].why, "16384 x 1"));
	cr_expect_not_null(tb_scenario_adapted_find(sc, "training.global_batch"));
	cr_expect_null(tb_scenario_adapted_find(sc, "training.precision"));
	tb_scenario_free(sc);
	tb_diags_release(&d);

	/* Meta's layout (TP 8, PP 16, 128 replicas): 1,024 is whole, kept */
	sc = S_load("title: t\nmodel: {preset: llama-3.1-405b}\ntraining: {tokens: 15T, micro_batch: 1}\n"
	            "hardware: {count: 16384}\nparallelism: {tensor: 8, pipeline: 16, context: 1}\n", &d);
	cr_assert_not_null(sc);
	cr_expect_eq(sc->inputs.training.global_batch, 1024);
	cr_expect_eq(sc->nadapted, 0);
	tb_scenario_free(sc);
	tb_diags_release(&d);

	/* interleaved: the micro-batches per step must be a multiple of the 16
	 * stages too, so the unit is 128 x 1 x 16 = 2,048 sequences */
	sc = S_load("title: t\nmodel: {preset: llama-3.1-405b}\ntraining: {tokens: 15T, micro_batch: 1}\n"
	            "hardware: {count: 16384}\n"
	            "parallelism: {tensor: 8, pipeline: 16, context: 1, virtual_pipeline: 2}\n", &d);
	msg = tb_diags_format(&d);
	cr_assert_not_null(sc, "%s", msg);
	free(msg);
	cr_expect_eq(sc->inputs.training.global_batch, 2048);
	cr_expect_not_null(strstr(sc->adapted[0].why, "pipeline"));
	tb_scenario_free(sc);
	tb_diags_release(&d);

	/* 48 replicas: the multiple nearest 1,024 is 21 x 48 = 1,008 */
	sc = S_load("title: t\nmodel: {preset: llama-2-7b}\ntraining: {tokens: 1T, micro_batch: 1}\n"
	            "hardware: {count: 48}\nparallelism: {tensor: 1, pipeline: 1, context: 1}\n", &d);
	cr_assert_not_null(sc);
	cr_expect_eq(sc->inputs.training.global_batch, 1008);
	tb_scenario_free(sc);
	tb_diags_release(&d);
}

/* A global batch the user wrote is theirs: with the layout written too, an
 * error that names values that would work (the multiples of 16,384 around
 * 1,024: only 16,384); with the layout left to the answer, the answer's
 * (issue 19: `plan` refused Llama 3.1 405B's 2,048 on 16,384 GPUs). */
Test(defaults, written_global_batch_is_an_error_naming_a_value)
{
	tb_diags d;
	tb_scenario *sc = S_load("title: t\nmodel: {preset: llama-3.1-405b}\n"
	                         "training: {tokens: 15T, global_batch: 1024, micro_batch: 1}\n"
	                         "hardware: {count: 16384}\nparallelism: {tensor: 1, pipeline: 1, context: 1}\n", &d);
	cr_assert_null(sc);
	char *got = S_first(&d);
	cr_expect_str_eq(got, "d.yaml:3:39: error: training.global_batch (1024) is not a multiple of "
	                 "data-parallel size x micro_batch (16384 x 1 = 16384); expected whole "
	                 "micro-batches on every replica: global_batch 16384 would work");
	free(got);
	tb_diags_release(&d);

	sc = S_load("title: t\nmodel: {preset: llama-3.1-405b}\n"
	            "training: {tokens: 15T, global_batch: 2048}\nhardware: {count: 16384}\n", &d);
	char *msg = tb_diags_format(&d);
	cr_assert_not_null(sc, "%s", msg);
	free(msg);
	tb_answer a;
	tb_inputs priced;
	tb_answer_decide(&sc->inputs, &a, &priced);
	cr_expect(a.runs, "%s", a.why_not);
	cr_expect(!a.written_runs, "2,048 does not split over 16,384 replicas");
	cr_expect_eq(2048 % (a.layout.data * a.layout.micro_batch), 0);
	tb_scenario_free(sc);
	tb_diags_release(&d);
}

/* The second case: a V100 has no bf16 units (NVIDIA V100
 * datasheet: FP16 tensor cores, no BF16), so the default bf16-mixed falls
 * back to fp16-mixed; written, bf16-mixed is an error listing what the
 * card supports. */
Test(defaults, precision_follows_the_gpu)
{
	tb_diags d;
	tb_scenario *sc = S_load("title: t\nmodel: {preset: llama-2-7b}\ntraining: {tokens: 1T}\n"
	                         "hardware: {gpu: v100-sxm2, count: 1024}\n", &d);
	char *msg = tb_diags_format(&d);
	cr_assert_not_null(sc, "%s", msg);
	free(msg);
	cr_expect_eq(sc->inputs.training.precision, TB_PREC_FP16_MIXED);
	const tb_scenario_adapted *a = tb_scenario_adapted_find(sc, "training.precision");
	cr_assert_not_null(a);
	cr_expect_str_eq(a->value, "fp16-mixed");
	cr_expect_str_eq(a->deflt, "bf16-mixed");
	cr_expect_not_null(strstr(a->why, "no bf16 peak"));
	tb_scenario_free(sc);
	tb_diags_release(&d);

	sc = S_load("title: t\nmodel: {preset: llama-2-7b}\n"
	            "training: {tokens: 1T, precision: bf16-mixed}\n"
	            "hardware: {gpu: v100-sxm2, count: 1024}\n", &d);
	cr_assert_null(sc);
	char *got = S_first(&d);
	cr_expect_str_eq(got, "d.yaml:3:35: error: GPU 'v100-sxm2' has no bf16 peak for training.precision "
	                 "bf16-mixed; expected a precision the GPU supports: fp16-mixed, fp32");
	free(got);
	tb_diags_release(&d);

	/* TPU v4: bf16 only (Google Cloud TPU v4 documentation), kept */
	sc = S_load("title: t\nmodel: {preset: llama-2-7b}\ntraining: {tokens: 1T}\n"
	            "hardware: {gpu: tpu-v4, count: 64}\n", &d);
	cr_assert_not_null(sc);
	cr_expect_eq(sc->inputs.training.precision, TB_PREC_BF16_MIXED);
	cr_expect_eq(sc->nadapted, 0);
	tb_scenario_free(sc);
	tb_diags_release(&d);
}

/* Gradients the user wrote steer the default precision too: fp16 gradients
 * go only with fp16-mixed (scenario.md, training.grad_dtype), so on an
 * H100 the default follows them; bf16 gradients on a V100 go with nothing
 * the card runs, an error at the key the user wrote. */
Test(defaults, precision_follows_written_gradients)
{
	tb_diags d;
	tb_scenario *sc = S_load("title: t\nmodel: {preset: llama-2-7b}\n"
	                         "training: {tokens: 1T, grad_dtype: fp16}\n"
	                         "hardware: {gpu: h100-sxm, count: 64}\n", &d);
	char *msg = tb_diags_format(&d);
	cr_assert_not_null(sc, "%s", msg);
	free(msg);
	cr_expect_eq(sc->inputs.training.precision, TB_PREC_FP16_MIXED);
	const tb_scenario_adapted *a = tb_scenario_adapted_find(sc, "training.precision");
	cr_assert_not_null(a);
	cr_expect_not_null(strstr(a->why, "grad_dtype fp16"));
	tb_scenario_free(sc);
	tb_diags_release(&d);

	sc = S_load("title: t\nmodel: {preset: llama-2-7b}\ntraining: {tokens: 1T, grad_dtype: fp32}\n"
	            "hardware: {gpu: v100-sxm2, count: 64}\n", &d);
	cr_assert_not_null(sc);
	cr_expect_eq(sc->inputs.training.precision, TB_PREC_FP16_MIXED);
	tb_scenario_free(sc);
	tb_diags_release(&d);

	sc = S_load("title: t\nmodel: {preset: llama-2-7b}\ntraining: {tokens: 1T, grad_dtype: bf16}\n"
	            "hardware: {gpu: v100-sxm2, count: 64}\n", &d);
	cr_assert_null(sc);
	char *got = S_first(&d);
	cr_expect_str_eq(got, "d.yaml:3:36: error: training.grad_dtype 'bf16' goes with no precision GPU "
	                 "'v100-sxm2' has a peak for (fp16-mixed, fp32); expected a gradient dtype that "
	                 "does: fp32 would work");
	free(got);
	tb_diags_release(&d);
}

/* Inline cards with one format each: the default takes it. */
Test(defaults, precision_on_inline_gpus)
{
	static const struct { const char *peak; tb_precision want; } cases[] = {
		{ "fp16: 100T", TB_PREC_FP16_MIXED },
		{ "fp32: 20T", TB_PREC_FP32 },
		{ "tf32: 150T", TB_PREC_FP32 },
		{ "fp8: 500T", TB_PREC_FP8_MIXED },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char text[512];
		snprintf(text, sizeof text, "title: t\nmodel: {preset: llama-2-7b}\ntraining: {tokens: 1T}\n"
		         "hardware: {gpu: {name: x, memory: 80GB, %s}, count: 64}\n", cases[i].peak);
		tb_diags d;
		tb_scenario *sc = S_load(text, &d);
		char *msg = tb_diags_format(&d);
		cr_assert_not_null(sc, "%s: %s", cases[i].peak, msg);
		free(msg);
		cr_expect_eq(sc->inputs.training.precision, cases[i].want, "%s", cases[i].peak);
		tb_scenario_free(sc);
		tb_diags_release(&d);
	}
	/* no peak at all: the inline GPU itself is incomplete */
	tb_diags d;
	tb_scenario *sc = S_load("title: t\nmodel: {preset: llama-2-7b}\ntraining: {tokens: 1T}\n"
	                         "hardware: {gpu: {name: x, memory: 80GB}, count: 64}\n", &d);
	cr_assert_null(sc);
	char *got = S_first(&d);
	cr_expect_str_eq(got, "d.yaml:4:17: error: GPU 'x' has no peak FLOP/s for any precision; expected "
	                 "at least one of hardware.gpu.bf16, fp16, fp8, tf32 or fp32");
	free(got);
	tb_diags_release(&d);
}

/* GPT-2's position table holds 1,024 positions (openai-community/gpt2
 * config.json, n_positions): the default 4,096-token sequence follows it;
 * a longer sequence the user wrote is an error naming the limit. */
Test(defaults, sequence_follows_learned_positions)
{
	tb_diags d;
	tb_scenario *sc = S_load("title: t\nmodel: {preset: gpt2}\ntraining: {tokens: 10B}\n"
	                         "hardware: {count: 8}\n", &d);
	cr_assert_not_null(sc);
	cr_expect_eq(sc->inputs.training.seq_len, 1024);
	const tb_scenario_adapted *a = tb_scenario_adapted_find(sc, "training.seq_len");
	cr_assert_not_null(a);
	cr_expect_str_eq(a->value, "1024");
	cr_expect_str_eq(a->deflt, "4096");
	tb_scenario_free(sc);
	tb_diags_release(&d);

	sc = S_load("title: t\nmodel: {preset: gpt2}\ntraining: {tokens: 10B, seq_len: 2048}\n"
	            "hardware: {count: 8}\n", &d);
	cr_assert_null(sc);
	char *got = S_first(&d);
	cr_expect_str_eq(got, "d.yaml:3:34: error: training.seq_len (2048) is longer than the model's "
	                 "learned position table (model.max_positions 1024); expected at most 1024: seq_len 1024 would work");
	free(got);
	tb_diags_release(&d);

	/* the whole table is fine; so is a longer table written by the user */
	sc = S_load("title: t\nmodel: {preset: gpt2, max_positions: 4096}\ntraining: {tokens: 10B}\n"
	            "hardware: {count: 8}\n", &d);
	cr_assert_not_null(sc);
	cr_expect_eq(sc->inputs.training.seq_len, 4096);
	cr_expect_eq(sc->nadapted, 0);
	tb_scenario_free(sc);
	tb_diags_release(&d);

	/* rotary positions have no table: the documented 4,096 stays */
	sc = S_load("title: t\nmodel: {preset: llama-2-7b}\ntraining: {tokens: 10B}\n"
	            "hardware: {count: 8}\n", &d);
	cr_assert_not_null(sc);
	cr_expect_eq(sc->inputs.training.seq_len, 4096);
	tb_scenario_free(sc);
	tb_diags_release(&d);
}

/* An inline card of 1 GB: the default 2 GiB reserve would fill it. */
Test(defaults, overhead_follows_a_small_gpu)
{
	tb_diags d;
	tb_scenario *sc = S_load("title: t\nmodel: {preset: gpt2}\ntraining: {tokens: 1B}\n"
	                         "hardware: {gpu: {name: tiny, memory: 1GB, bf16: 10T}, count: 8}\n", &d);
	char *msg = tb_diags_format(&d);
	cr_assert_not_null(sc, "%s", msg);
	free(msg);
	cr_expect_eq(sc->inputs.hardware.overhead_bytes, 0.25e9);
	cr_expect_not_null(tb_scenario_adapted_find(sc, "hardware.overhead"));
	tb_scenario_free(sc);
	tb_diags_release(&d);
}

/* The audit: for every preset on every GPU of the table, at GPU counts
 * from 1 to 100,000 (primes and powers of two among them), a scenario
 * with only the four required keys loads.  Then the same with the layout
 * keys a user adds most (tensor, pipeline, interleaving, context, ZeRO)
 * where they divide the count: the defaults left must still fit.  The
 * bare scenarios' budgets must be figures (finite, positive memory and
 * time). */
Test(defaults, no_default_makes_a_scenario_invalid)
{
	static const long long counts[] = { 1, 3, 7, 8, 48, 64, 1000, 1024, 16384, 100000 };
	static const char *const layouts[] = {
		"",
		"parallelism: {tensor: 8}\n",
		"parallelism: {tensor: 2, pipeline: 4, virtual_pipeline: 3}\n",
		"parallelism: {pipeline: 2, context: 2, zero: 3}\n",
	};
	static const long long layout_gpus[] = { 1, 8, 8, 4 };
	size_t loads = 0;
	for (size_t p = 0; p < tb_presets_count(); p++) {
		for (size_t g = 0; g < tb_gpus_count(); g++) {
			for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
				for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
					if (counts[k] % layout_gpus[l] != 0)
						continue;
					char text[512];
					snprintf(text, sizeof text, "title: t\nmodel: {preset: %s}\ntraining: {tokens: 1T}\n"
					         "hardware: {gpu: %s, count: %lld}\n%s", tb_presets_at(p)->name,
					         tb_gpus_at(g)->name, counts[k], layouts[l]);
					tb_diags d;
					tb_scenario *sc = S_load(text, &d);
					/* A layout the model cannot take (8-way tensor
					 * parallelism over GPT-2's 12 heads) is the user's
					 * error: it must be at the parallelism line, never
					 * at a key the user did not write. */
					for (size_t e = 0; e < d.n; e++) {
						if (l > 0 && d.items[e].line == 5)
							continue;
						char *got = S_first(&d);
						cr_assert_fail("defaults made this invalid:\n%s\n%s", text, got);
					}
					if (sc && l == 0) {
						/* and the budget the defaults lead to is a
						 * figure, never NaN or a negative memory */
						tb_budget *b = calloc(1, sizeof *b);
						cr_assert_not_null(b);
						tb_budget_compute(&sc->inputs, b);
						cr_expect(isfinite(b->memory.per_gpu.total) && b->memory.per_gpu.total > 0,
						          "%s", text);
						cr_expect(!b->time.known || (isfinite(b->time.seconds[1]) && b->time.seconds[1] > 0),
						          "%s", text);
						free(b);
					}
					loads += sc != NULL;
					tb_scenario_free(sc);
					tb_diags_release(&d);
				}
			}
		}
	}
	cr_expect_gt(loads, 1000);
}
