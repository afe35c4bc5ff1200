/* test_trace.c: a PyTorch profiler trace summed by category (trace.c).
 *
 * cpu-train.json is a real trace: three steps of a two-block decoder on
 * the CPU, made with Debian's python3-torch 1.13 by
 * tests/fixtures/trace/make_cpu_trace.py.  Its sums below were taken from
 * the file with Python's json module: ProfilerStep#1-3 last 786,378,
 * 845,292 and 853,601 us; the leaf GEMMs (aten::mm 1,275,146 us, addmm
 * 961,984, bmm 176,421) 2,413,551 us; Optimizer.step#AdamW.step 14,956 us.
 * h200-fsdp.json has a GPU trace's structure with durations written for
 * the test (make_gpu_trace.py says which). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/fileio.h"
#include "trainbudget/trace.h"

static double rel(double got, double want)
{
	return fabs(got - want) / fabs(want);
}

static int S_file(const char *name, tb_trace *out, tb_diags *d)
{
	char path[256];
	snprintf(path, sizeof path, "tests/fixtures/trace/%s", name);
	size_t len = 0;
	char *text = tb_fileio_slurp(path, 16 << 20, &len);
	cr_assert_not_null(text, "%s", path);
	int rc = tb_trace_parse(path, text, len, out, d);
	free(text);
	return rc;
}

Test(trace, cpu_trace_from_python3_torch)
{
	tb_trace tr;
	tb_diags d;
	tb_diags_init(&d);
	cr_assert_eq(S_file("cpu-train.json", &tr, &d), 0);
	cr_expect(!tr.gpu);
	cr_expect_eq(tr.steps, 3);
	cr_expect_eq(tr.ranks, 1);
	cr_expect_eq(tr.events, 8233);
	cr_expect(rel(tr.step_s, (786378.0 + 845292 + 853601) / 3 * 1e-6) < 1e-12, "%.9f", tr.step_s);
	cr_expect(rel(tr.terms_s[TB_TRACE_GEMM], 2413551.0 / 3 * 1e-6) < 1e-12);
	cr_expect(rel(tr.terms_s[TB_TRACE_OPTIMIZER], 14956.0 / 3 * 1e-6) < 1e-12);
	/* the rest of the step is the CPU's elementwise work */
	double named = tr.terms_s[TB_TRACE_GEMM] + tr.terms_s[TB_TRACE_OPTIMIZER];
	cr_expect(rel(tr.terms_s[TB_TRACE_ELEMENTWISE], tr.step_s - named) < 1e-12);
	cr_expect_eq(tr.comm_s, 0);
	cr_expect_str_eq(tb_trace_term_name(TB_TRACE_REDUCE_SCATTER), "reduce_scatter");
	tb_diags_release(&d);
}

Test(trace, gpu_kernels_by_category)
{
	tb_trace tr;
	tb_diags d;
	tb_diags_init(&d);
	cr_assert_eq(S_file("h200-fsdp.json", &tr, &d), 0);
	cr_expect(tr.gpu);
	cr_expect_eq(tr.steps, 3);
	cr_expect(rel(tr.step_s, 1.5) < 1e-12);
	cr_expect(rel(tr.terms_s[TB_TRACE_GEMM], 0.95) < 1e-12);
	cr_expect(rel(tr.terms_s[TB_TRACE_ATTENTION], 0.20) < 1e-12);
	cr_expect(rel(tr.terms_s[TB_TRACE_ELEMENTWISE], 0.10) < 1e-12);
	cr_expect(rel(tr.terms_s[TB_TRACE_OPTIMIZER], 0.01) < 1e-12);
	cr_expect(rel(tr.terms_s[TB_TRACE_REDUCE_SCATTER], 0.15) < 1e-12);
	cr_expect(rel(tr.terms_s[TB_TRACE_ALL_GATHER], 0.12) < 1e-12);
	cr_expect(rel(tr.compute_s, 1.25) < 1e-12);
	cr_expect(rel(tr.comm_s, 0.27) < 1e-12);
	/* two streams overlap: nothing left idle */
	cr_expect_eq(tr.terms_s[TB_TRACE_IDLE], 0);
	tb_diags_release(&d);
}

Test(trace, refusals_located)
{
	tb_trace tr;
	tb_diags d;
	tb_diags_init(&d);
	const char *bad = "[{\"ph\": \"X\", \"name\": \"aten::mm\", \"dur\": 5},\n {\"name\": \"a\"]";
	cr_expect_eq(tb_trace_parse("t.json", bad, strlen(bad), &tr, &d), -1);
	cr_assert_eq(d.errors, 1);
	cr_expect_eq(d.items[0].line, 2);
	cr_expect(strstr(d.items[0].msg, "invalid JSON"));
	cr_expect_eq(tr.steps, 0);
	tb_diags_release(&d);

	tb_diags_init(&d);
	const char *none = "{\"traceEvents\": [{\"ph\": \"i\", \"name\": \"x\"}]}";
	cr_expect_eq(tb_trace_parse("t.json", none, strlen(none), &tr, &d), -1);
	cr_expect(d.errors == 1 && strstr(d.items[0].msg, "no complete event"));
	tb_diags_release(&d);

	tb_diags_init(&d);
	const char *nostep = "[{\"ph\": \"X\", \"name\": \"aten::mm\", \"dur\": 5, \"pid\": 1}]";
	cr_expect_eq(tb_trace_parse("t.json", nostep, strlen(nostep), &tr, &d), -1);
	cr_expect(d.errors == 1 && strstr(d.items[0].msg, "no ProfilerStep#N"));
	tb_diags_release(&d);

	/* a duration no profiler writes, or none at all: located */
	tb_diags_init(&d);
	const char *huge = "[{\"ph\": \"X\", \"name\": \"ProfilerStep#1\", \"dur\": 5, \"pid\": 1},\n"
	                   " {\"ph\": \"X\", \"name\": \"k\", \"dur\": 1e300, \"pid\": 1}]";
	cr_expect_eq(tb_trace_parse("t.json", huge, strlen(huge), &tr, &d), -1);
	cr_assert_eq(d.errors, 1);
	cr_expect(d.items[0].line == 2 && d.items[0].col == 34, "%zu:%zu", d.items[0].line, d.items[0].col);
	cr_expect(strstr(d.items[0].msg, "not a duration"));
	tb_diags_release(&d);
	tb_diags_init(&d);
	const char *word = "[{\"ph\": \"X\", \"name\": \"ProfilerStep#1\", \"dur\": \"long\"}]";
	cr_expect_eq(tb_trace_parse("t.json", word, strlen(word), &tr, &d), -1);
	cr_expect_eq(d.errors, 1);
	tb_diags_release(&d);

	/* nesting past the bound: refused, not followed */
	char deep[300];
	memset(deep, '[', 200);
	deep[200] = 0;
	tb_diags_init(&d);
	cr_expect_eq(tb_trace_parse("t.json", deep, strlen(deep), &tr, &d), -1);
	cr_expect(d.errors >= 1);
	tb_diags_release(&d);
}
