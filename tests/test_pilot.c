/* test_pilot.c: a pilot run's training log (pilot.c).
 *
 * The fixtures in tests/fixtures/pilot are lines in each framework's own
 * format (Megatron-LM's training_log and report_memory, torchtitan's
 * metrics line with the colour codes a terminal capture keeps) with values
 * written for the test; the medians and percentiles below are worked by
 * hand from them. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/fileio.h"
#include "trainbudget/pilot.h"

static double rel(double got, double want)
{
	return fabs(got - want) / fabs(want);
}

static int S_parse_file(const char *name, tb_pilot_log *out, tb_diags *d)
{
	char path[256];
	snprintf(path, sizeof path, "tests/fixtures/pilot/%s", name);
	size_t len = 0;
	char *text = tb_fileio_slurp(path, 1 << 20, &len);
	cr_assert_not_null(text, "%s", path);
	int rc = tb_pilot_parse(path, text, len, out, d);
	free(text);
	return rc;
}

static int S_parse(const char *text, tb_pilot_log *out, tb_diags *d)
{
	return tb_pilot_parse("log", text, strlen(text), out, d);
}

/* Ten iteration lines: the first (5,210.4 ms, compilation) is the warm-up;
 * of the other nine the median is 1,901.3 ms, the 10th percentile
 * 1,897.6 + 0.8 x 1.2 = 1,898.56 and the 90th 1,904.2 + 0.2 x 0.9 =
 * 1,904.38.  Two ranks report memory: the larger max allocated, 62,001.75
 * MB (Megatron's MB are MiB), is the peak. */
Test(pilot, megatron_log)
{
	tb_pilot_log lg;
	tb_diags d;
	tb_diags_init(&d);
	cr_assert_eq(S_parse_file("megatron.log", &lg, &d), 0);
	cr_expect_eq(lg.kind, TB_PILOT_MEGATRON_LOG);
	cr_expect_str_eq(tb_pilot_kind_name(lg.kind), "megatron_log");
	cr_expect_eq(lg.lines, 10);
	cr_expect_eq(lg.samples, 9);
	cr_expect(rel(lg.step_s, 1.9013) < 1e-12, "%.6f", lg.step_s);
	cr_expect(rel(lg.step_s_p10, 1.89856) < 1e-12, "%.6f", lg.step_s_p10);
	cr_expect(rel(lg.step_s_p90, 1.90438) < 1e-12, "%.6f", lg.step_s_p90);
	cr_expect(rel(lg.tflops_per_gpu, 379.7) < 1e-12, "%.3f", lg.tflops_per_gpu);
	cr_expect(rel(lg.peak_memory_bytes, 62001.75 * 1048576.0) < 1e-12);
	cr_expect(!lg.peak_is_reserved);
	cr_expect_eq(lg.tokens_per_s_per_gpu, 0);
	tb_diags_release(&d);
}

/* Twelve step lines, the first (1,650 tokens/s) the warm-up; the median of
 * the other eleven is 10,936; the peak is torchtitan's max reserved,
 * 88.62 GiB. */
Test(pilot, torchtitan_log_with_colours)
{
	tb_pilot_log lg;
	tb_diags d;
	tb_diags_init(&d);
	cr_assert_eq(S_parse_file("torchtitan.log", &lg, &d), 0);
	cr_expect_eq(lg.kind, TB_PILOT_TORCHTITAN_LOG);
	cr_expect_eq(lg.samples, 11);
	cr_expect_eq(lg.tokens_per_s_per_gpu, 10936);
	cr_expect_eq(lg.step_s, 0);
	cr_expect(lg.tps_p10 < 10936 && lg.tps_p90 > 10936);
	cr_expect(rel(lg.peak_memory_bytes, 88.62 * 1073741824.0) < 1e-12);
	cr_expect(lg.peak_is_reserved);
	cr_expect(lg.mfu > 0.57 && lg.mfu < 0.59, "%g", lg.mfu);
	tb_diags_release(&d);
}

/* 1,840 ms (the warm-up), then 1.52 s, 1.50, 1.51s, 1.49 and 1.505: the
 * median of the five is 1.505. */
Test(pilot, plain_step_times)
{
	tb_pilot_log lg;
	tb_diags d;
	tb_diags_init(&d);
	cr_assert_eq(S_parse_file("steps.txt", &lg, &d), 0);
	cr_expect_eq(lg.kind, TB_PILOT_STEP_TIME);
	cr_expect_eq(lg.lines, 6);
	cr_expect_eq(lg.samples, 5);
	cr_expect(rel(lg.step_s, 1.505) < 1e-12, "%g", lg.step_s);
	cr_expect_eq(lg.peak_memory_bytes, 0);
	tb_diags_release(&d);
}

/* Errors are located at the value, like a scenario's. */
Test(pilot, located_errors)
{
	tb_pilot_log lg;
	tb_diags d;
	tb_diags_init(&d);
	cr_expect_eq(S_parse(" iteration 10/ 100 | elapsed time per iteration (ms): 1900.0 |\n"
	                     " iteration 20/ 100 | elapsed time per iteration (ms): fast |\n", &lg, &d), -1);
	cr_assert_eq(d.errors, 1);
	cr_expect_eq(d.items[0].line, 2);
	cr_expect_eq(d.items[0].col, 55, "%zu", d.items[0].col);
	cr_expect(strstr(d.items[0].msg, "elapsed time per iteration (ms): is not a number"));
	cr_expect_eq(lg.kind, TB_PILOT_NONE);
	tb_diags_release(&d);

	tb_diags_init(&d);
	cr_expect_eq(S_parse("1.5\n1.6\nhello\n1.7\n", &lg, &d), -1);
	cr_assert_eq(d.errors, 1);
	cr_expect_eq(d.items[0].line, 3);
	cr_expect(strstr(d.items[0].msg, "not a step time"));
	tb_diags_release(&d);

	tb_diags_init(&d);
	cr_expect_eq(S_parse("nothing timed here\n", &lg, &d), -1);
	cr_expect(d.errors == 1 && strstr(d.items[0].msg, "no timed step found"));
	tb_diags_release(&d);

	/* three lines: one is the warm-up, two are too few for a spread */
	tb_diags_init(&d);
	cr_expect_eq(S_parse("1.5\n1.6\n1.7\n", &lg, &d), -1);
	cr_expect(d.errors == 1 && strstr(d.items[0].msg, "3 timed steps, 2 after the warm-up"),
	          "%s", d.errors ? d.items[0].msg : "");
	tb_diags_release(&d);

	/* negative, infinite and empty values are not steps */
	tb_diags_init(&d);
	cr_expect_eq(S_parse(" elapsed time per iteration (ms): -5 |\n", &lg, &d), -1);
	cr_expect_eq(d.errors, 1);
	tb_diags_release(&d);
	tb_diags_init(&d);
	cr_expect_eq(S_parse(" elapsed time per iteration (ms): 1e999 |\n", &lg, &d), -1);
	cr_expect_eq(d.errors, 1);
	tb_diags_release(&d);
}

/* Values no run prints are refused at their column, not priced: a step
 * of 1e12 ms (a unit slip or a hostile file), a memory line of exabytes,
 * a median of zero. */
Test(pilot, extreme_values_refused)
{
	tb_pilot_log lg;
	tb_diags d;
	tb_diags_init(&d);
	cr_expect_eq(S_parse(" elapsed time per iteration (ms): 1e12 |\n", &lg, &d), -1);
	cr_expect(d.errors == 1 && strstr(d.items[0].msg, "past what a training run prints"),
	          "%s", d.errors ? d.items[0].msg : "");
	cr_expect_eq(d.items[0].col, 35, "%zu", d.items[0].col);
	tb_diags_release(&d);

	tb_diags_init(&d);
	cr_expect_eq(S_parse("memory (MB) | max allocated: 1e20 |\n", &lg, &d), -1);
	cr_expect_eq(d.errors, 1);
	tb_diags_release(&d);

	tb_diags_init(&d);
	cr_expect_eq(S_parse("1.5\n9e9 s\n", &lg, &d), -1);
	cr_expect(d.errors == 1 && d.items[0].line == 2);
	tb_diags_release(&d);

	tb_diags_init(&d);
	cr_expect_eq(S_parse("0\n0\n0\n0\n0\n", &lg, &d), -1);
	cr_expect(d.errors == 1 && strstr(d.items[0].msg, "under a millisecond"));
	cr_expect_eq(lg.kind, TB_PILOT_NONE);
	tb_diags_release(&d);
}

/* A log longer than the ring keeps its last TB_PILOT_SAMPLES_MAX lines:
 * 70,000 steps, the first 7,000 the warm-up, 63,000 used. */
Test(pilot, bounded_whatever_the_length)
{
	size_t n = 70000;
	char *text = malloc(n * 8 + 1);
	cr_assert_not_null(text);
	size_t at = 0;
	for (size_t i = 0; i < n; i++)
		at += (size_t)sprintf(text + at, "%s\n", i < 100 ? "9.0" : i % 2 ? "1.50" : "1.60");
	tb_pilot_log lg;
	tb_diags d;
	tb_diags_init(&d);
	cr_assert_eq(tb_pilot_parse("big", text, at, &lg, &d), 0);
	cr_expect_eq(lg.lines, 70000);
	cr_expect_eq(lg.samples, 63000);
	cr_expect(lg.step_s >= 1.5 && lg.step_s <= 1.6);
	tb_diags_release(&d);
	free(text);
}
