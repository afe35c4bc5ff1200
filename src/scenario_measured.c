/* scenario_measured.c: the measured section: what a real run of the
 * scenario achieved (step time, peak memory, or the training log it
 * wrote), set against the estimate, and what a pilot run teaches
 * (--calibrate, calibrate.h). */
#include "scenario_sections.h"

#include <errno.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>

#include "trainbudget/fileio.h"
#include "trainbudget/sha256.h"

/* A pilot's log for a day on a few nodes is a few MB; a bigger file is a
 * whole run's, which `tail` cuts to its steady end. */
#define S_MAX_LOG_BYTES (64u << 20)

/* A profiler trace of a few steps runs to hundreds of MB; it is read as
 * a stream, so the cap is on the bytes held, not on the parser. */
#define S_MAX_TRACE_BYTES (512u << 20)

static const char *const S_keys[] = { "step_time", "peak_memory", "log", "trace" };

/* measured.trace: read, summed by category, hashed into the inputs. */
static bool S_trace(tb_yaml_ctx *c, const tb_yaml_node *n, tb_scenario *sc)
{
	tb_measured *me = &sc->inputs.measured;
	const char *rel;
	char *path;
	size_t len = 0;
	char *text = tb_scenario_read_named(c, n, "measured.trace", "measured.trace",
	                                    "a path to a PyTorch profiler trace", "a Chrome trace JSON",
	                                    S_MAX_TRACE_BYTES, "larger than 512 MiB: profile fewer steps",
	                                    &rel, &path, &len);
	if (!text)
		return false;
	int rc = tb_trace_parse(path, text, len, &me->trace, c->d);
	if (rc == 0) {
		me->has_trace = true;
		snprintf(me->trace_path, sizeof me->trace_path, "%s", rel);
		tb_sha256_hex(text, len, me->trace_sha256);
		tb_signoff_add(&sc->signoff, TB_INPUT_MEASURED_TRACE, rel, text, len);
	}
	free(text);
	free(path);
	return rc == 0;
}

/* measured.log: read, parsed, hashed into the inputs the report covers. */
static bool S_log(tb_yaml_ctx *c, const tb_yaml_node *n, tb_scenario *sc)
{
	tb_measured *me = &sc->inputs.measured;
	const char *rel;
	char *path;
	size_t len = 0;
	char *text = tb_scenario_read_named(c, n, "measured.log", "measured.log",
	                                    "a path to a training log", "a training log",
	                                    S_MAX_LOG_BYTES,
	                                    "larger than 64 MiB: keep its steady end, as tail -n 100000 does",
	                                    &rel, &path, &len);
	if (!text)
		return false;
	int rc = tb_pilot_parse(path, text, len, &me->log, c->d);
	if (rc == 0) {
		me->has_log = true;
		snprintf(me->log_path, sizeof me->log_path, "%s", rel);
		tb_sha256_hex(text, len, me->log_sha256);
		tb_signoff_add(&sc->signoff, TB_INPUT_MEASURED_LOG, rel, text, len);
	}
	free(text);
	free(path);
	return rc == 0;
}

/* The log's step where measured.step_time is not written: torchtitan's
 * tokens per second per GPU become one with the batch and the GPU count. */
static void S_log_step(tb_measured *me, const tb_inputs *in)
{
	const tb_pilot_log *lg = &me->log;
	double step = lg->step_s;
	if (!(step > 0) && lg->tokens_per_s_per_gpu > 0 && in->hardware.count > 0)
		step = (double)in->training.global_batch * (double)in->training.seq_len /
		       (lg->tokens_per_s_per_gpu * (double)in->hardware.count);
	if (step >= 1e-3 && step < 1e7 && !me->has_step_time) {
		me->step_time_s = step;
		me->has_step_time = true;
	}
	if (lg->peak_memory_bytes >= 1048576.0 && !me->has_peak_memory) {
		me->peak_memory_bytes = lg->peak_memory_bytes;
		me->has_peak_memory = true;
	}
}

static bool S_load(tb_yaml_ctx *c, const tb_yaml_node *root, tb_scenario *sc)
{
	tb_inputs *in = &sc->inputs;
	const tb_yaml_node *n;
	bool ok = true;

	tb_measured *me = &in->measured;
	const tb_yaml_node *mn = tb_yaml_get_map(c, root, "measured");
	if (mn) {
		const tb_yaml_node *ln = tb_yaml_get(mn, "log");
		if (ln && tb_yaml_get(mn, "step_time")) {
			tb_yaml_err(c, ln, "measured.log and measured.step_time are both given; expected one: the log's median step is the step time");
			ok = false;
		} else if (ln && !S_log(c, ln, sc)) {
			ok = false;
		}
		const tb_yaml_node *tn = tb_yaml_get(mn, "trace");
		if (tn && !S_trace(c, tn, sc))
			ok = false;
		/* A measurement below these floors is a unit slip (ms for s, MB
		 * for GB), and would turn into an MFU or an error of 1e300. */
		if ((n = tb_yaml_get(mn, "step_time"))) {
			if (!tb_yaml_quant(c, n, "measured.step_time", TB_YAML_Q_DURATION, "a duration such as 1.8 s", DBL_MIN, 1e7, &me->step_time_s)) {
				ok = false;
			} else if (me->step_time_s < 1e-3) {
				tb_yaml_err(c, n, "measured.step_time is under a millisecond; expected a training step's time such as 1.8 s");
				ok = false;
			} else {
				me->has_step_time = true;
			}
		}
		if ((n = tb_yaml_get(mn, "peak_memory"))) {
			if (!tb_yaml_quant(c, n, "measured.peak_memory", TB_YAML_Q_BYTES, "a size such as 71 GiB", 1e6, 1e15, &me->peak_memory_bytes)) {
				ok = false;
			} else if (me->peak_memory_bytes < 1048576.0) {
				tb_yaml_err(c, n, "measured.peak_memory is under 1 MiB; expected a GPU's peak such as 71 GiB");
				ok = false;
			} else {
				me->has_peak_memory = true;
			}
		}
		if (me->has_log)
			S_log_step(me, in);
		/* a trace alone: its profiled steps are the step time */
		if (me->has_trace && !me->has_step_time && me->trace.step_s >= 1e-3) {
			me->step_time_s = me->trace.step_s;
			me->has_step_time = true;
		}
	}
	return ok;
}

const tb_scenario_section tb_scenario_section_measured = {
	"measured", S_keys, TB_N(S_keys), NULL, 0, S_load,
};
