/* test_calibrate.c: a pilot's measured step fixes an efficiency
 * (calibrate.c).
 *
 * The published check: torchtitan's Llama 3.1 8B on H200 (pytorch/
 * torchtitan benchmarks/llama3-8b_h200_202506_trainy-whitefiber.md, FSDP
 * with float8, local batch 2 of 8,192 tokens) ran at 10,938 tokens/s per
 * GPU on 32 GPUs and 10,753 on 64.  Calibrated on the 32, the model must
 * give the 64 within 5%; uncalibrated it is 20% fast (docs/validation.md). */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "trainbudget/calibrate.h"
#include "trainbudget/fileio.h"
#include "trainbudget/gpus.h"
#include "trainbudget/inputs.h"
#include "trainbudget/perf.h"
#include "trainbudget/presets.h"

static double rel(double got, double want)
{
	return fabs(got - want) / fabs(want);
}

static void S_trainy(tb_inputs *x, int64_t gpus)
{
	memset(x, 0, sizeof *x);
	x->model = tb_presets_find("llama-3.1-8b")->model;
	x->training.seq_len = 8192;
	x->training.micro_batch = 2;
	x->training.global_batch = 2 * gpus;
	x->training.precision = TB_PREC_FP8_MIXED;
	x->training.optimizer = TB_OPT_ADAMW;
	x->training.checkpointing = TB_CKPT_SELECTIVE;
	x->training.flash_attention = true;
	x->training.attention_flops = TB_ATTN_FLOPS_CAUSAL;
	x->parallelism.tensor = x->parallelism.pipeline = 1;
	x->parallelism.data = gpus;
	x->parallelism.zero = 3;
	x->parallelism.framework = TB_FW_FSDP;
	x->hardware.gpu = *tb_gpus_find("h200");
	x->hardware.count = gpus;
}

static double S_step(const tb_inputs *x)
{
	tb_perf_input in;
	tb_perf_input_from(x, &in);
	tb_perf_result r;
	tb_perf_predict(&in, NULL, &r);
	cr_assert(r.ok, "%s", r.why);
	return r.step_s;
}

Test(calibrate, torchtitan_h200_32_predicts_64)
{
	tb_inputs pilot, full;
	S_trainy(&pilot, 32);
	pilot.measured.has_step_time = true;
	pilot.measured.step_time_s = 64.0 * 8192 / (10938.0 * 32);
	S_trainy(&full, 64);
	double published = 128.0 * 8192 / (10753.0 * 64);
	double before = S_step(&full);
	cr_expect(rel(before, published) > 0.15, "uncalibrated %.3f s vs %.3f", before, published);

	const char *why;
	cr_assert(tb_calib_add(&full.calib, &pilot, "pilot.yaml", "", &why), "%s", why);
	const tb_calib_pilot *p = &full.calib.pilots[0];
	cr_expect_eq(p->term, TB_CALIB_COMPUTE);
	cr_expect(p->factors[p->term] > 0.5 && p->factors[p->term] < 1, "%g", p->factors[p->term]);
	cr_expect(rel(p->calibrated_s, pilot.measured.step_time_s) < 1e-9);
	cr_expect_str_eq(full.calib.card, "h200");
	double after = S_step(&full);
	cr_expect(rel(after, published) < 0.05, "calibrated %.3f s vs published %.3f", after, published);
}

/* A pilot the model already gets right changes nothing; one 25% slower
 * lowers the compute efficiencies until the model gives its step. */
Test(calibrate, factor_reproduces_the_pilot)
{
	tb_inputs pilot;
	S_trainy(&pilot, 32);
	double model = S_step(&pilot);
	pilot.measured.has_step_time = true;
	pilot.measured.step_time_s = model;
	tb_calib c;
	memset(&c, 0, sizeof c);
	const char *why;
	cr_assert(tb_calib_add(&c, &pilot, "p", "", &why), "%s", why);
	cr_expect(fabs(c.factor[TB_CALIB_COMPUTE] - 1) < 1e-9, "%.12f", c.factor[TB_CALIB_COMPUTE]);
	cr_expect_eq(c.factor[TB_CALIB_NETWORK], 1);

	/* a second pilot of the same card, 25% slow: the two agree by their
	 * geometric mean */
	tb_inputs slow = pilot;
	slow.measured.step_time_s = 1.25 * model;
	cr_assert(tb_calib_add(&c, &slow, "q", "", &why), "%s", why);
	cr_expect_eq(c.npilots, 2);
	double f2 = c.pilots[1].factors[TB_CALIB_COMPUTE];
	cr_expect(f2 < 0.85 && f2 > 0.7, "%g", f2);
	cr_expect(rel(c.factor[TB_CALIB_COMPUTE], sqrt(f2 * c.pilots[0].factors[TB_CALIB_COMPUTE])) < 1e-12);
	cr_expect(rel(c.pilots[1].calibrated_s, 1.25 * model) < 1e-9);
}

/* What cannot be calibrated is said, and another card is left alone. */
Test(calibrate, refusals_and_other_cards)
{
	tb_inputs pilot;
	S_trainy(&pilot, 32);
	tb_calib c;
	memset(&c, 0, sizeof c);
	const char *why;
	cr_expect(!tb_calib_add(&c, &pilot, "p", "", &why));
	cr_expect(strstr(why, "no measured step"));
	cr_expect(!c.known);

	pilot.measured.has_step_time = true;
	pilot.measured.step_time_s = 2 * S_step(&pilot);
	cr_assert(tb_calib_add(&c, &pilot, "p", "", &why));
	tb_inputs other = pilot;
	other.hardware.gpu = *tb_gpus_find("h100-sxm");
	cr_expect(!tb_calib_add(&c, &other, "q", "", &why));
	cr_expect(strstr(why, "different cards"));

	/* applied to an H100, the H200's factor changes nothing */
	tb_perf_input in;
	tb_perf_input_from(&other, &in);
	tb_perf_hw hw = in.hw;
	tb_calib_apply(&c, "h100-sxm", &hw);
	cr_expect_eq(hw.matmul_ceiling, in.hw.matmul_ceiling);
	tb_calib_apply(&c, "h200", &hw);
	cr_expect(hw.matmul_ceiling < in.hw.matmul_ceiling);

	/* a step faster than the card's peaks allow: the factor stops at its
	 * bound and says so */
	tb_calib fast;
	memset(&fast, 0, sizeof fast);
	tb_inputs quick = pilot;
	quick.measured.step_time_s = 1e-3;
	cr_assert(tb_calib_add(&fast, &quick, "f", "", &why));
	cr_expect(fast.pilots[0].clamped);
	cr_expect(fast.pilots[0].calibrated_s > 1e-3);
}

/* With a trace, each term is fixed on its own: the compute efficiency so
 * that the model's compute is the trace's compute kernels (1.25 s a step
 * in h200-fsdp.json), the network's so that its collectives are the
 * trace's (0.27 s; the 32 GPUs span 4 nodes). */
Test(calibrate, trace_fixes_each_term)
{
	tb_inputs pilot;
	S_trainy(&pilot, 32);
	size_t len = 0;
	char *text = tb_fileio_slurp("tests/fixtures/trace/h200-fsdp.json", 1 << 20, &len);
	cr_assert_not_null(text);
	tb_diags d;
	tb_diags_init(&d);
	cr_assert_eq(tb_trace_parse("t", text, len, &pilot.measured.trace, &d), 0);
	free(text);
	tb_diags_release(&d);
	pilot.measured.has_trace = true;
	pilot.measured.has_step_time = true;
	pilot.measured.step_time_s = pilot.measured.trace.step_s;
	tb_calib c;
	memset(&c, 0, sizeof c);
	const char *why;
	cr_assert(tb_calib_add(&c, &pilot, "p", "", &why), "%s", why);
	const tb_calib_pilot *p = &c.pilots[0];
	cr_expect(p->has_trace && p->fixed[TB_CALIB_COMPUTE] && p->fixed[TB_CALIB_NETWORK]);
	cr_expect(!p->fixed[TB_CALIB_NVLINK]);
	/* the model, calibrated, gives the trace's compute and collectives */
	tb_perf_input in;
	tb_perf_input_from(&pilot, &in);
	tb_calib_apply(&c, "h200", &in.hw);
	tb_perf_result r;
	tb_perf_predict(&in, NULL, &r);
	cr_assert(r.ok);
	double comp = r.breakdown_s[TB_PERF_COMPUTE] + r.breakdown_s[TB_PERF_RECOMPUTE];
	cr_expect(rel(comp, 1.25) < 1e-6, "%g", comp);
	double comm = r.breakdown_s[TB_PERF_TP_COMM] + r.breakdown_s[TB_PERF_CP_COMM] +
	              r.breakdown_s[TB_PERF_EP_COMM] + r.breakdown_s[TB_PERF_PP_COMM] + r.dp_total_s;
	cr_expect(rel(comm, 0.27) < 1e-3 || p->clamped, "%g", comm);
	cr_expect(rel(p->calibrated_s, r.step_s) < 1e-12);
}
