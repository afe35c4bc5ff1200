/* report_time.c: time and cost: the MFU range, the GPU-count scan (table
 * and chart), the levers that change them, and a measured run set against
 * the estimate. */
#include "report_build.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void S_table_mfu(tb_report *r, tb_table *t)
{
	const tb_time *tm = &r->b->time;
	tb_rtab tb;
	tb_rtab_init(&tb, t, r, NULL, "rrrrr", "MFU", "Wall clock", "GPU-hours", "Cost",
	             "Energy (kWh)", NULL);
	static const char *const which[] = { " (low)", " (most likely)", " (high)" };
	for (int i = 0; i < 3; i++)
		tb.money_ref = fmax(tb.money_ref, tm->cost[i]);
	for (int i = 0; i < 3; i++) {
		char *p = tb_rfmts(TB_RF_PCT, tm->mfu[i], NULL);
		tb_rtab_fmt(&tb, "%s%s", p, which[i]);
		free(p);
		tb_rtab_num(&tb, TB_RF_DAYS, tm->seconds[i]);
		tb_rtab_num(&tb, TB_RF_GROUPED, tm->gpu_hours[i]);
		tb_rtab_num(&tb, TB_RF_MONEY, tm->cost[i]);
		tb_rtab_num(&tb, TB_RF_GROUPED, tm->energy_kwh[i]);
	}
}

static void S_table_gpu_scan(tb_report *r, tb_table *t)
{
	const tb_time *tm = &r->b->time;
	tb_rtab tb;
	tb_rtab_init(&tb, t, r, NULL, "rrrrr", "GPUs", "Days at low MFU", "Days at most likely MFU",
	             "Days at high MFU", "Cost (most likely MFU)", NULL);
	int n = tm->n_gpu_scan < TB_GPU_SCAN_MAX ? tm->n_gpu_scan : TB_GPU_SCAN_MAX;
	for (int i = 0; i < n; i++)
		tb.money_ref = fmax(tb.money_ref, tm->gpu_scan[i].cost[1]);
	for (int i = 0; i < n; i++) {
		tb_rtab_num(&tb, TB_RF_GROUPED, (double)tm->gpu_scan[i].gpus);
		for (int j = 0; j < 3; j++)
			tb_rtab_num(&tb, TB_RF_DAYS, tm->gpu_scan[i].seconds[j]);
		tb_rtab_num(&tb, TB_RF_MONEY, tm->gpu_scan[i].cost[1]);
	}
}

static void S_table_levers(tb_report *r, tb_table *t)
{
	const tb_budget *b = r->b;
	tb_rtab tb;
	tb_rtab_init(&tb, t, r, "At the most likely MFU", "lrrrr", "Lever", "Wall clock", "Change",
	             "Cost", "Change", NULL);
	int n = b->n_levers < TB_LEVERS_MAX ? b->n_levers : TB_LEVERS_MAX;
	for (int i = 0; i < n; i++)
		tb.money_ref = fmax(tb.money_ref, b->levers[i].cost);
	for (int i = 0; i < n; i++) {
		const tb_lever *l = &b->levers[i];
		tb_rtab_str(&tb, l->label ? l->label : "");
		tb_rtab_num(&tb, TB_RF_DAYS, l->seconds);
		tb_rtab_delta(&tb, l->delta_seconds_frac);
		tb_rtab_num(&tb, TB_RF_MONEY, l->cost);
		tb_rtab_delta(&tb, l->delta_cost_frac);
	}
}

/* A run in stages: each as it prices alone, then the whole run. */
static void S_table_stages(tb_report *r, tb_table *t)
{
	const tb_budget *b = r->b;
	tb_rtab tb;
	tb_rtab_init(&tb, t, r, "Each stage priced as the scenario alone would be; expected, with failures and checkpoints",
	             "lrrlrrrr", "Stage", "Tokens", "Sequence", "Layout (TP, PP, CP, DP)",
	             "Memory per GPU", "Wall clock", "GPU-hours", "Cost", NULL);
	for (int i = 0; i < b->n_stages; i++) {
		const tb_stage_row *s = &b->stages[i];
		if (s->method != TB_METHOD_FULL)
			tb_rtab_fmt(&tb, "%s (%s)", s->name, tb_method_name(s->method));
		else
			tb_rtab_str(&tb, s->name);
		tb_rtab_num(&tb, TB_RF_COUNT, s->tokens);
		tb_rtab_num(&tb, TB_RF_GROUPED, (double)s->seq_len);
		if (s->runs && s->layout.tensor > 0)
			tb_rtab_fmt(&tb, "%lld, %lld, %lld, %lld", (long long)s->layout.tensor,
			            (long long)s->layout.pipeline, (long long)s->layout.context,
			            (long long)s->layout.data);
		else
			tb_rtab_str(&tb, "none fits");
		tb_rtab_num(&tb, TB_RF_BYTES, s->memory_per_gpu_bytes);
		if (!s->known) {
			for (int k = 0; k < 3; k++)
				tb_rtab_str(&tb, s->runs ? "unknown" : "cannot run");
			continue;
		}
		tb_rtab_num(&tb, TB_RF_DAYS, s->days * 86400);
		tb_rtab_num(&tb, TB_RF_GROUPED, s->gpu_hours);
		tb_rtab_num(&tb, TB_RF_MONEY, s->cost);
	}
	const tb_expected *x = &b->staged_total;
	tb_rtab_str(&tb, "Whole run");
	tb_rtab_num(&tb, TB_RF_COUNT, r->sc->inputs.training.tokens);
	tb_rtab_str(&tb, "");
	tb_rtab_str(&tb, "");
	tb_rtab_num(&tb, TB_RF_BYTES, b->stages[b->stage_memory_max].memory_per_gpu_bytes);
	if (x->known) {
		tb_rtab_num(&tb, TB_RF_DAYS, x->seconds);
		tb_rtab_num(&tb, TB_RF_GROUPED, x->gpu_hours);
		tb_rtab_num(&tb, TB_RF_MONEY, x->cost);
	} else {
		for (int k = 0; k < 3; k++)
			tb_rtab_str(&tb, "unknown");
	}
}

/* The expected run's bill (bill.h), part by part. */
static void S_table_bill(tb_report *r, tb_table *t)
{
	const tb_budget *b = r->b;
	tb_bill bl = tb_budget_bill(b);
	tb_rtab tb;
	tb_rtab_init(&tb, t, r, "The expected run, with failures and checkpoints", "lr", "Billed",
	             "Amount", NULL);
	tb_rtab_str(&tb, "Compute of the run");
	tb_rtab_num(&tb, TB_RF_MONEY, bl.compute - bl.ablations);
	if (bl.ablations > 0) {
		tb_rtab_fmt(&tb, "Ablations and evaluation (%.0f%% of the run's GPU time)",
		            r->sc->inputs.plan.ablations * 100);
		tb_rtab_num(&tb, TB_RF_MONEY, bl.ablations);
	}
	if (bl.reservation > 0) {
		tb_rtab_fmt(&tb, "Booked: %d x %.4g days (hardware.reservation)", bl.blocks,
		            r->sc->inputs.hardware.reservation_s / 86400);
		tb_rtab_num(&tb, TB_RF_MONEY, bl.reservation);
		tb_rtab_str(&tb, "of it idle (booked, not used)");
		tb_rtab_num(&tb, TB_RF_MONEY, bl.idle);
	}
	if (bl.storage > 0) {
		tb_rtab_str(&tb, "Checkpoint and data storage (plan.storage)");
		tb_rtab_num(&tb, TB_RF_MONEY, bl.storage);
	}
	tb_rtab_str(&tb, "Total billed");
	tb_rtab_num(&tb, TB_RF_MONEY, tb_budget_expected(b).cost);
}

static void S_table_measured(tb_report *r, tb_table *t)
{
	const tb_inputs *in = &r->sc->inputs;
	const tb_budget *b = r->b;
	tb_rtab tb;
	tb_rtab_init(&tb, t, r, NULL, "lrr", "Figure", "Estimate", "Measured", NULL);
	if (in->measured.has_step_time) {
		tb_rtab_str(&tb, "Wall clock for the run");
		tb_rtab_num(&tb, TB_RF_DAYS, b->time.seconds[1]);
		tb_rtab_num(&tb, TB_RF_DAYS, b->time.measured_seconds);
		tb_rtab_str(&tb, "MFU");
		tb_rtab_num(&tb, TB_RF_PCT, b->time.mfu[1]);
		tb_rtab_num(&tb, TB_RF_PCT, b->time.achieved_mfu);
		tb_rtab_str(&tb, "HFU (with recomputation)");
		tb_rtab_str(&tb, "");
		tb_rtab_num(&tb, TB_RF_PCT, b->time.achieved_hfu);
	}
	if (in->measured.has_peak_memory) {
		tb_rtab_str(&tb, "Peak memory per GPU");
		if (b->memory.activations_known)
			tb_rtab_num(&tb, TB_RF_BYTES, b->memory.per_gpu.total);
		else
			tb_rtab_str(&tb, "n/a");
		tb_rtab_num(&tb, TB_RF_BYTES, b->time.measured_peak_bytes);
		tb_rtab_str(&tb, "Estimate error ((estimate - measured) / measured)");
		if (b->memory.activations_known)
			tb_rtab_delta(&tb, b->time.memory_estimate_error);
		else
			tb_rtab_str(&tb, "n/a");
		tb_rtab_str(&tb, "");
	}
}

static void S_chart_gpu_scan(const tb_report *r, tb_chart_spec *s)
{
	const tb_time *tm = &r->b->time;
	tb_rchart_init(s, TB_CHART_LINES, "gpu-scan", "Days of training against GPU count",
	               "GPUs", "Wall clock", "days", 1);
	s->log_x = true;
	size_t n = tb_rchart_ncats(s, tm->n_gpu_scan, TB_GPU_SCAN_MAX);
	static const char *const names[] = { "low MFU", "most likely MFU", "high MFU" };
	for (int j = 0; j < 3; j++) {
		tb_buf o;
		tb_buf_init(&o);
		tb_buf_printf(&o, "%s (", names[j]);
		tb_rfmt(&o, TB_RF_PCT, tm->mfu[j], NULL);
		tb_buf_putc(&o, ')');
		tb_rchart_series(s, o.ptr);
		tb_buf_release(&o);
	}
	for (size_t i = 0; i < n; i++) {
		snprintf(s->cats[i], sizeof s->cats[i], "%lld", (long long)tm->gpu_scan[i].gpus);
		s->xs[i] = (double)tm->gpu_scan[i].gpus;
		for (int j = 0; j < 3; j++)
			s->series[j].values[i] = tm->gpu_scan[i].seconds[j] / 86400.0;
	}
	if (tm->has_deadline)
		tb_rchart_ref(s, tm->deadline_s / 86400.0, "deadline ", TB_RF_DAYS, tm->deadline_s,
		              (tb_rgb){ 0xd6, 0x27, 0x28 });
	long long count = (long long)r->sc->inputs.hardware.count;
	tb_chart_ref *ref = count > 0 ? tb_rchart_add_ref(s, (double)count, tb_rchart_ref_grey) : NULL;
	if (ref) {
		ref->vertical = true;
		snprintf(ref->label, sizeof ref->label, "this run: %lld GPUs", count);
	}
}

static const tb_rtable_def S_tables[] = {
	{ "time.mfu", S_table_mfu },
	{ "time.gpu_scan", S_table_gpu_scan },
	{ "levers", S_table_levers },
	{ "measured", S_table_measured },
	{ "cost.bill", S_table_bill },
	{ "stages", S_table_stages },
};

static const tb_rchart_def S_charts[] = {
	{ "gpu-scan", S_chart_gpu_scan },
};

const tb_rsection tb_rsection_time = {
	S_tables, sizeof S_tables / sizeof S_tables[0],
	S_charts, sizeof S_charts / sizeof S_charts[0],
};
