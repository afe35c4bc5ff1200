/* render_json_calib.c: the builder test as JSON (`calibration`,
 * docs/json.md), in the budget's own document (render_json.c). */
#include <string.h>

#include "json_write.h"
#include "trainbudget/calibrate.h"
#include "trainbudget/perf.h"

/* --calibrate: the pilots, the constants they set, the step line by line,
 * and the full run before and after (docs/json.md); null without one. */
void tb_render_json_calibration(tb_jw *j, const tb_inputs *in, const tb_budget *b)
{
	const tb_calib *c = in ? &in->calib : NULL;
	if (!c || !c->known) {
		tb_jw_null(j, "calibration");
		return;
	}
	tb_jw_obj(j, "calibration");
	tb_jw_str(j, "card", c->card);
	tb_jw_arr(j, "pilots");
	for (int i = 0; i < c->npilots; i++) {
		const tb_calib_pilot *p = &c->pilots[i];
		tb_jw_obj(j, NULL);
		tb_jw_str(j, "path", p->path);
		tb_jw_str(j, "sha256", p->sha256);
		tb_jw_str(j, "log", p->log_path[0] ? p->log_path : NULL);
		tb_jw_str(j, "log_sha256", p->log_sha256[0] ? p->log_sha256 : NULL);
		tb_jw_str(j, "kind", tb_pilot_kind_name(p->kind));
		tb_jw_num(j, "gpus", (double)p->gpus);
		tb_jw_num(j, "step_s", p->step_s);
		tb_jw_arr_inline(j, "step_s_spread");
		tb_jw_num(j, NULL, p->step_s_p10);
		tb_jw_num(j, NULL, p->step_s_p90);
		tb_jw_arr_end(j);
		tb_jw_numk(j, "peak_memory_bytes", p->peak_memory_bytes, p->peak_memory_bytes > 0);
		tb_jw_bool(j, "peak_is_reserved", p->peak_is_reserved);
		tb_jw_numk(j, "memory_estimate_bytes", p->memory_bytes[6], p->memory_known);
		if (p->has_trace) {
			tb_jw_obj(j, "terms_s");
			for (int t = 0; t < TB_TRACE_TERMS; t++)
				tb_jw_num(j, tb_trace_term_name(t), p->trace.terms_s[t]);
			tb_jw_obj_end(j);
		} else {
			tb_jw_null(j, "terms_s");
		}
		tb_jw_str(j, "trace", p->has_trace ? p->trace_path : NULL);
		tb_jw_str(j, "trace_sha256", p->has_trace ? p->trace_sha256 : NULL);
		tb_jw_num(j, "predicted_s", p->predicted_s);
		tb_jw_num(j, "calibrated_s", p->calibrated_s);
		tb_jw_str(j, "term", tb_calib_term_name(p->term));
		tb_jw_num(j, "factor", p->factors[p->term]);
		tb_jw_bool(j, "at_bound", p->clamped);
		tb_jw_obj_end(j);
	}
	tb_jw_arr_end(j);
	/* the compute factor scales the attention and HBM fractions alike */
	static const char *const names[TB_CALIB_TERMS] = {
		"matmul_ceiling", "nvlink_fraction", "network_fraction",
	};
	tb_jw_obj(j, "constants");
	for (int t = 0; t < TB_CALIB_TERMS; t++) {
		tb_jw_obj(j, names[t]);
		tb_jw_num(j, "before", c->before[t]);
		tb_jw_num(j, "after", c->before[t] * c->factor[t]);
		tb_jw_num(j, "factor", c->factor[t]);
		tb_jw_obj_end(j);
	}
	tb_jw_obj_end(j);
	tb_jw_arr(j, "terms");
	for (int i = 0; i < c->npilots; i++) {
		const tb_calib_pilot *p = &c->pilots[i];
		tb_calib_row rows[4];
		int n = tb_calib_rows(p, rows);
		for (int k = 0; k < n; k++) {
			tb_jw_obj(j, NULL);
			tb_jw_num(j, "pilot", i);
			tb_jw_str(j, "term", rows[k].term);
			tb_jw_num(j, "predicted_s", rows[k].predicted_s);
			tb_jw_num(j, "measured_s", rows[k].measured_s);
			tb_jw_numk(j, "error", (rows[k].predicted_s - rows[k].measured_s) / rows[k].measured_s,
			       rows[k].measured_s > 0);
			tb_jw_obj_end(j);
		}
	}
	tb_jw_arr_end(j);
	const tb_perf_budget *pb = &b->perf;
	bool k = pb->known && pb->calibrated;
	tb_jw_obj(j, "full_run");
	tb_jw_numk(j, "step_s_before", pb->step_uncalibrated_s, k && pb->step_uncalibrated_s > 0);
	tb_jw_numk(j, "step_s_after", pb->r.step_s, k);
	/* as step times: the MFU bands turned around */
	tb_jw_arr_inline(j, "band_before");
	tb_jw_numk(j, NULL, pb->step_band_uncalibrated[0], k && pb->step_uncalibrated_s > 0);
	tb_jw_numk(j, NULL, pb->step_band_uncalibrated[1], k && pb->step_uncalibrated_s > 0);
	tb_jw_arr_end(j);
	tb_jw_arr_inline(j, "band_after");
	tb_jw_numk(j, NULL, pb->step_band[0], k);
	tb_jw_numk(j, NULL, pb->step_band[1], k);
	tb_jw_arr_end(j);
	tb_jw_obj_end(j);
	tb_jw_obj_end(j);
}
