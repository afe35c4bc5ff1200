/* report_perf.c: the step-time model's section: the predicted step and the
 * MFU that follows (table), where the step's time goes (table and stacked
 * bars, for this layout and the layouts the levers change), and the
 * layouts themselves.  Selects and formats the budget's figures only. */
#include "report_build.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

const char *const tb_rperf_term_label[TB_PERF_TERMS] = {
	"Compute (forward + backward)", "Recomputation",
	"Tensor-parallel communication (exposed)", "Context-parallel communication (exposed)",
	"Expert all-to-all", "Pipeline sends", "Pipeline bubble",
	"Data-parallel communication (exposed)", "Optimizer step", "Fixed overheads",
};

static const char *const S_term_what[TB_PERF_TERMS] = {
	"every GEMM, attention and memory-bound kernel of the busiest stage",
	"forward work redone under checkpointing",
	"all-reduces (or reduce-scatter + all-gather) per layer, not overlapped",
	"key/value ring beyond what the attention core hides",
	"dispatch and combine of routed tokens",
	"activations and gradients between stages",
	"fill and drain of the 1F1B schedule: (p-1)/(v m)",
	"gradient reduction and ZeRO gathers beyond what compute hides",
	"reads and writes every updated parameter's state",
	"per layer and micro-batch (kernel launches)",
};

static void S_table_perf(tb_report *r, tb_table *t)
{
	const tb_perf_budget *pb = &r->b->perf;
	const tb_perf_result *pr = &pb->r;
	tb_rtab tb;
	tb_rtab_init(&tb, t, r, NULL, "lr", "Figure", "Predicted", NULL);
	if (!pb->known)
		return;
	tb_buf *o;
	tb_rtab_str(&tb, "Step time");
	o = tb_rtab_begin(&tb);
	tb_rfmt(o, TB_RF_PLAIN, pr->step_s, NULL);
	tb_buf_puts(o, " s");
	tb_rtab_end(&tb);
	tb_rtab_str(&tb, "Tokens per second per GPU");
	tb_rtab_num(&tb, TB_RF_GROUPED, pr->tokens_per_s_per_gpu);
	tb_rtab_str(&tb, "MFU (measured error band)");
	o = tb_rtab_begin(&tb);
	tb_rfmt(o, TB_RF_PCT, pr->mfu, NULL);
	tb_buf_puts(o, " (");
	tb_rfmt(o, TB_RF_PCT, pb->mfu_band[0], NULL);
	tb_buf_puts(o, " to ");
	tb_rfmt(o, TB_RF_PCT, pb->mfu_band[1], NULL);
	tb_buf_putc(o, ')');
	tb_rtab_end(&tb);
	tb_rtab_str(&tb, "HFU (recomputation counted)");
	tb_rtab_num(&tb, TB_RF_PCT, pr->hfu);
	tb_rtab_str(&tb, "TFLOP/s per GPU (hardware FLOPs)");
	tb_rtab_num(&tb, TB_RF_PLAIN, pr->tflops_per_gpu);
	tb_rtab_str(&tb, "MFU the time uses");
	if (pb->source_predicted) {
		tb_rtab_str(&tb, "predicted");
	} else {
		o = tb_rtab_begin(&tb);
		tb_buf_puts(o, "assumed (hardware.mfu, ");
		tb_rfmt(o, TB_RF_PCT, r->b->time.mfu[1], NULL);
		tb_buf_puts(o, pb->assumption_above ? "), above the prediction" : ")");
		tb_rtab_end(&tb);
	}
	tb_rtab_str(&tb, "Micro-batches per step; bubble");
	o = tb_rtab_begin(&tb);
	tb_rfmt(o, TB_RF_GROUPED, (double)pr->microbatches, NULL);
	tb_buf_puts(o, "; ");
	tb_rfmt(o, TB_RF_PCT, pr->bubble_fraction, NULL);
	tb_buf_puts(o, " of the ideal step");
	tb_rtab_end(&tb);
	const tb_perf_input *pi = &pb->in;
	if (pi->pipeline > 1) {
		tb_rtab_str(&tb, "Layers per stage (first / middle / last)");
		static const char *const which[3] = { "first", "middle", "last" };
		tb_rtab_own(&tb, tb_rstrf("%lld / %lld / %lld over %lld stages; the %s is busiest",
		                          (long long)pr->stage_layers[0],
		                          (long long)pr->stage_layers[1],
		                          (long long)pr->stage_layers[2], (long long)pi->pipeline,
		                          which[pr->busiest_stage >= 0 && pr->busiest_stage < 3
		                                ? pr->busiest_stage : 0]));
	}
	tb_rtab_str(&tb, "Node");
	o = tb_rtab_begin(&tb);
	tb_buf_printf(o, "%lld GPUs; NVLink ", (long long)pi->hw.gpus_per_node);
	tb_rfmt(o, TB_RF_BYTES, pi->hw.nvlink_bytes_per_s, NULL);
	tb_buf_puts(o, "/s, network ");
	tb_rfmt(o, TB_RF_BYTES, pi->hw.network_bytes_per_s, NULL);
	tb_buf_puts(o, "/s per GPU");
	tb_rtab_end(&tb);
}

static void S_table_breakdown(tb_report *r, tb_table *t)
{
	const tb_perf_budget *pb = &r->b->perf;
	tb_rtab tb;
	tb_rtab_init(&tb, t, r, NULL, "lrrl", "Term", "Seconds per step", "Share", "What it is",
	             NULL);
	if (!pb->known)
		return;
	for (int i = 0; i < TB_PERF_TERMS; i++) {
		tb_rtab_str(&tb, tb_rperf_term_label[i]);
		tb_rtab_num(&tb, TB_RF_PLAIN, pb->r.breakdown_s[i]);
		tb_rtab_share(&tb, pb->r.breakdown_s[i], pb->r.step_s);
		tb_rtab_str(&tb, S_term_what[i]);
	}
	tb_rtab_str(&tb, "Step");
	tb_rtab_num(&tb, TB_RF_PLAIN, pb->r.step_s);
	tb_rtab_str(&tb, "100%");
	tb_rtab_str(&tb, "");
}

static void S_table_variants(tb_report *r, tb_table *t)
{
	const tb_perf_budget *pb = &r->b->perf;
	tb_rtab tb;
	tb_rtab_init(&tb, t, r, NULL, "lrrrr", "Layout", "GPUs", "Step time (s)", "MFU",
	             "Tokens/s on the cluster", NULL);
	double tokens = (double)r->sc->inputs.training.global_batch *
	                (double)r->sc->inputs.training.seq_len;
	for (int i = 0; pb->known && i < pb->n_variants && i < TB_PERF_VARIANTS; i++) {
		const tb_perf_variant *v = &pb->variants[i];
		tb_rtab_str(&tb, v->label ? v->label : "");
		tb_rtab_num(&tb, TB_RF_GROUPED, (double)v->gpus);
		tb_rtab_num(&tb, TB_RF_PLAIN, v->step_s);
		tb_rtab_num(&tb, TB_RF_PCT, v->mfu);
		tb_rtab_num(&tb, TB_RF_GROUPED, v->step_s > 0 ? tokens / v->step_s : 0);
	}
}

void tb_rchart_step_series(tb_chart_spec *s)
{
	static const char *const groups[6] = {
		"compute", "recompute", "tensor/context/expert comm", "pipeline bubble + sends",
		"data-parallel comm", "optimizer + other",
	};
	for (int g = 0; g < 6; g++)
		tb_rchart_series(s, groups[g]);
}

void tb_rchart_step_column(tb_chart_spec *s, size_t i, const char *label,
                           const double *b)
{
	tb_rcopy(s->cats[i], sizeof s->cats[i], label ? label : "");
	s->series[0].values[i] = b[TB_PERF_COMPUTE];
	s->series[1].values[i] = b[TB_PERF_RECOMPUTE];
	s->series[2].values[i] = b[TB_PERF_TP_COMM] + b[TB_PERF_CP_COMM] + b[TB_PERF_EP_COMM];
	s->series[3].values[i] = b[TB_PERF_BUBBLE] + b[TB_PERF_PP_COMM];
	s->series[4].values[i] = b[TB_PERF_DP_COMM];
	s->series[5].values[i] = b[TB_PERF_OPTIMIZER] + b[TB_PERF_OTHER];
}

/* Six series at most: the ten terms in six groups. */
static void S_chart_step(const tb_report *r, tb_chart_spec *s)
{
	const tb_perf_budget *pb = &r->b->perf;
	tb_rchart_init(s, TB_CHART_STACKED_BARS, "step-time", "Where a step's time goes",
	               "Layout", "Time per step", "s", 1);
	tb_rchart_step_series(s);
	size_t n = pb->known ? tb_rchart_ncats(s, pb->n_variants, TB_PERF_VARIANTS) : 0;
	s->ncats = n;
	for (size_t i = 0; i < n; i++)
		tb_rchart_step_column(s, i, pb->variants[i].label, pb->variants[i].breakdown_s);
}

/* The builder test (calibrate.h): each pilot measured against the model
 * for its own layout, and what it fixed. */
static void S_table_calibration(tb_report *r, tb_table *t)
{
	const tb_calib *c = &r->sc->inputs.calib;
	tb_rtab tb;
	tb_rtab_init(&tb, t, r, NULL, "lrrrrlr", "Pilot", "GPUs", "Measured step (10th-90th)",
	             "Model, before", "Error before", "Term it fixes", "Model, after", NULL);
	for (int i = 0; c->known && r->b->perf.calibrated && i < c->npilots; i++) {
		const tb_calib_pilot *p = &c->pilots[i];
		tb_rtab_fmt(&tb, "%s (%s)", p->path, tb_pilot_kind_name(p->kind));
		tb_rtab_fmt(&tb, "%lld x %s", (long long)p->gpus, p->card);
		tb_rtab_fmt(&tb, "%.3g s (%.3g-%.3g)", p->step_s, p->step_s_p10, p->step_s_p90);
		tb_rtab_fmt(&tb, "%.3g s", p->predicted_s);
		tb_rtab_delta(&tb, (p->predicted_s - p->step_s) / p->step_s);
		char fx[160];
		tb_calib_factors_text(p, fx, sizeof fx);
		tb_rtab_str(&tb, fx);
		tb_rtab_fmt(&tb, "%.3g s", p->calibrated_s);
	}
}

/* Each pilot's step line by line (tb_calib_rows): by term with a trace. */
static void S_table_calibration_terms(tb_report *r, tb_table *t)
{
	const tb_calib *c = &r->sc->inputs.calib;
	tb_rtab tb;
	tb_rtab_init(&tb, t, r, NULL, "llrrr", "Pilot", "Term", "Model, before", "Measured",
	             "Error", NULL);
	for (int i = 0; c->known && r->b->perf.calibrated && i < c->npilots; i++) {
		tb_calib_row rows[4];
		int n = tb_calib_rows(&c->pilots[i], rows);
		for (int k = 0; k < n; k++) {
			tb_rtab_fmt(&tb, "%d", i + 1);
			tb_rtab_str(&tb, rows[k].term);
			tb_rtab_fmt(&tb, "%.3g s", rows[k].predicted_s);
			tb_rtab_fmt(&tb, "%.3g s", rows[k].measured_s);
			if (rows[k].measured_s > 0)
				tb_rtab_delta(&tb, (rows[k].predicted_s - rows[k].measured_s) / rows[k].measured_s);
			else
				tb_rtab_str(&tb, "n/a");
		}
	}
}

/* Each pilot's memory estimate line by line against the peak it
 * measured (a reserved peak holds the caching allocator's reserve). */
static void S_table_calibration_memory(tb_report *r, tb_table *t)
{
	const tb_calib *c = &r->sc->inputs.calib;
	tb_rtab tb;
	tb_rtab_init(&tb, t, r, NULL, "llrr", "Pilot", "Per GPU", "Estimate", "Measured", NULL);
	static const char *const items[7] = {
		"weights", "gradients", "master weights", "optimizer state", "activations",
		"reserve (hardware.overhead)", "total",
	};
	for (int i = 0; c->known && r->b->perf.calibrated && i < c->npilots; i++) {
		const tb_calib_pilot *p = &c->pilots[i];
		if (!p->memory_known)
			continue;
		for (int k = 0; k < 7; k++) {
			tb_rtab_fmt(&tb, "%d", i + 1);
			tb_rtab_str(&tb, items[k]);
			tb_rtab_num(&tb, TB_RF_BYTES, p->memory_bytes[k]);
			if (k < 6 || !(p->peak_memory_bytes > 0)) {
				tb_rtab_str(&tb, "");
				continue;
			}
			tb_buf *o = tb_rtab_begin(&tb);
			tb_rfmt(o, TB_RF_BYTES, p->peak_memory_bytes, NULL);
			tb_buf_puts(o, p->peak_is_reserved ? " (reserved: the allocator's cache included), "
			                                   : " (allocated), ");
			tb_rfmt(o, TB_RF_PCT, fabs(p->memory_error), NULL);
			tb_buf_puts(o, p->memory_error >= 0 ? " under the estimate" : " over the estimate");
			tb_rtab_end(&tb);
		}
	}
}

/* This run before and after: the step, the MFU and its band. */
static void S_table_calibration_run(tb_report *r, tb_table *t)
{
	const tb_perf_budget *pb = &r->b->perf;
	tb_rtab tb;
	tb_rtab_init(&tb, t, r, NULL, "lrr", "This run", "Before calibration", "After", NULL);
	if (!pb->known || !pb->calibrated)
		return;
	tb_rtab_str(&tb, "Step time");
	tb_rtab_fmt(&tb, "%.3g s", pb->step_uncalibrated_s);
	tb_rtab_fmt(&tb, "%.3g s", pb->r.step_s);
	tb_rtab_str(&tb, "MFU");
	tb_rtab_num(&tb, TB_RF_PCT, pb->mfu_uncalibrated);
	tb_rtab_num(&tb, TB_RF_PCT, pb->r.mfu);
	tb_rtab_str(&tb, "MFU band (held-out error, docs/validation.md)");
	tb_buf *o = tb_rtab_begin(&tb);
	tb_rfmt(o, TB_RF_PCT, pb->mfu_band_uncalibrated[0], NULL);
	tb_buf_puts(o, " to ");
	tb_rfmt(o, TB_RF_PCT, pb->mfu_band_uncalibrated[1], NULL);
	tb_rtab_end(&tb);
	o = tb_rtab_begin(&tb);
	tb_rfmt(o, TB_RF_PCT, pb->mfu_band[0], NULL);
	tb_buf_puts(o, " to ");
	tb_rfmt(o, TB_RF_PCT, pb->mfu_band[1], NULL);
	tb_rtab_end(&tb);
}

static const tb_rtable_def S_tables[] = {
	{ "calibration", S_table_calibration },
	{ "calibration.run", S_table_calibration_run },
	{ "calibration.terms", S_table_calibration_terms },
	{ "calibration.memory", S_table_calibration_memory },
	{ "perf", S_table_perf },
	{ "perf.breakdown", S_table_breakdown },
	{ "perf.variants", S_table_variants },
};

static const tb_rchart_def S_charts[] = {
	{ "step-time", S_chart_step },
};

const tb_rsection tb_rsection_perf = {
	S_tables, sizeof S_tables / sizeof S_tables[0],
	S_charts, sizeof S_charts / sizeof S_charts[0],
};
