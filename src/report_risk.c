/* report_risk.c: failures, checkpoints and confidence: the goodput model's
 * figures, time and cost with losses at each MFU, the spread of days and
 * cost, and the two distribution charts (days against the deadline, cost
 * against the budget). */
#include "report_build.h"

#include <math.h>

#include <stdio.h>
#include <stdlib.h>

#define S_DAY 86400.0

static const tb_rgb S_red = { 0xd6, 0x27, 0x28 };

static void S_table_goodput(tb_report *r, tb_table *t)
{
	const tb_inputs *in = &r->sc->inputs;
	const tb_goodput *g = &r->b->goodput;
	bool w = r->b->time.known && g->progress;
	tb_rtab tb;
	tb_rtab_init(&tb, t, r, NULL, "lr", "Figure", "Value", NULL);
	tb_rtab_str(&tb, "Failures per node per day");
	tb_rtab_num(&tb, TB_RF_PLAIN, in->hardware.failures_per_node_day);
	tb_rtab_fmt(&tb, "Nodes (%.0f GPUs each)", g->gpus_per_node);
	tb_rtab_num(&tb, TB_RF_GROUPED, g->nodes);
	tb_rtab_str(&tb, "Mean time between failures of the job");
	if (g->failures)
		tb_rtab_num(&tb, TB_RF_DAYS, g->mtbf_s);
	else
		tb_rtab_str(&tb, "no failures assumed");
	tb_rtab_str(&tb, "Checkpoint (weights, master weights, optimizer state)");
	tb_rtab_num(&tb, TB_RF_BYTES, g->checkpoint_bytes);
	tb_rtab_str(&tb, "Write bandwidth, all nodes");
	tb_buf *o = tb_rtab_begin(&tb);
	tb_rfmt(o, TB_RF_BYTES, g->write_bytes_per_s, NULL);
	tb_buf_puts(o, "/s");
	tb_rtab_end(&tb);
	tb_rtab_str(&tb, "Time to save a checkpoint");
	tb_rtab_num(&tb, TB_RF_DAYS, g->checkpoint_save_s);
	tb_rtab_str(&tb, g->interval_from_user ? "Checkpoint interval (the scenario's)"
	                 : g->interval_is_step ? "Checkpoint interval (one step, the shortest)"
	                 : "Checkpoint interval (Young's optimum)");
	if (g->checkpoint_interval_s > 0)
		tb_rtab_num(&tb, TB_RF_DAYS, g->checkpoint_interval_s);
	else
		tb_rtab_str(&tb, "none needed");
	tb_rtab_str(&tb, "Restart after a failure");
	tb_rtab_num(&tb, TB_RF_DAYS, g->restart_s);
	if (g->failures) {
		tb_rtab_str(&tb, "Lost per failure (half an interval redone, and the restart)");
		tb_rtab_num(&tb, TB_RF_DAYS, g->lost_per_failure_s);
	}
	tb_rtab_str(&tb, "Expected failures (most likely MFU)");
	if (w)
		tb_rtab_fmt(&tb, "%.3g", g->expected_failures);
	else
		tb_rtab_str(&tb, NULL);
	tb_rtab_str(&tb, "Time lost to failures");
	if (w)
		tb_rtab_num(&tb, TB_RF_DAYS, g->lost_s);
	else
		tb_rtab_str(&tb, NULL);
	tb_rtab_str(&tb, "Time spent saving checkpoints");
	if (w)
		tb_rtab_num(&tb, TB_RF_DAYS, g->checkpoint_s);
	else
		tb_rtab_str(&tb, NULL);
	tb_rtab_str(&tb, "Goodput (share of wall clock that trains)");
	if (g->progress)
		tb_rtab_fmt(&tb, "%.3g%%", 100 * g->fraction);
	else
		tb_rtab_str(&tb, "0: never finishes");
}

/* time.mfu again, with losses. */
static void S_table_losses(tb_report *r, tb_table *t)
{
	const tb_time *tm = &r->b->time;
	const tb_losses *l = &r->b->losses;
	tb_rtab tb;
	tb_rtab_init(&tb, t, r, "With failures and checkpoints", "rrrrr", "MFU", "Wall clock",
	             "GPU-hours", "Cost", "Energy (kWh)", NULL);
	if (!l->known)
		return;
	static const char *const which[] = { " (low)", " (most likely)", " (high)" };
	for (int i = 0; i < 3; i++)
		tb.money_ref = fmax(tb.money_ref, l->cost[i]);
	for (int i = 0; i < 3; i++) {
		char *p = tb_rfmts(TB_RF_PCT, tm->mfu[i], NULL);
		tb_rtab_fmt(&tb, "%s%s", p, which[i]);
		free(p);
		tb_rtab_num(&tb, TB_RF_DAYS, l->seconds[i]);
		tb_rtab_num(&tb, TB_RF_GROUPED, l->gpu_hours[i]);
		tb_rtab_num(&tb, TB_RF_MONEY, l->cost[i]);
		if (tm->energy_known)
			tb_rtab_num(&tb, TB_RF_GROUPED, l->energy_kwh[i]);
		else
			tb_rtab_str(&tb, NULL);
	}
}

static void S_table_risk(tb_report *r, tb_table *t)
{
	const tb_risk *k = &r->b->risk;
	tb_rtab tb;
	tb_rtab_init(&tb, t, r, NULL, "lrr", "Percentile", "Wall clock", "Cost", NULL);
	if (!k->known)
		return;
	static const char *const rows[] = { "P10", "P50 (median)", "P90", "Mean" };
	const double d[] = { k->days_p10, k->days_p50, k->days_p90, k->days_mean };
	const double c[] = { k->cost_p10, k->cost_p50, k->cost_p90, k->cost_mean };
	for (int i = 0; i < 4; i++)
		tb.money_ref = fmax(tb.money_ref, c[i]);
	for (int i = 0; i < 4; i++) {
		tb_rtab_str(&tb, rows[i]);
		tb_rtab_num(&tb, TB_RF_DAYS, d[i] * S_DAY);
		tb_rtab_num(&tb, TB_RF_MONEY, c[i]);
	}
}

/* The 0, 5, 10, 20, ..., 90, 95, 100th percentiles: 13 points of the
 * risk's 21, within a chart's 16. */
static const int S_pts[] = { 0, 1, 2, 4, 6, 8, 10, 12, 14, 16, 18, 19, 20 };
#define S_NPTS (sizeof S_pts / sizeof S_pts[0])

/* The share of runs done within x, against x: read the chance of
 * meeting a limit where its line crosses the curve. */
static void S_cdf_chart(tb_chart_spec *s, const double *cdf, double scale)
{
	tb_rchart_series(s, "share of runs done within x");
	s->ncats = S_NPTS;
	for (size_t i = 0; i < S_NPTS; i++) {
		int k = S_pts[i];
		s->xs[i] = cdf[k] * scale;
		s->series[0].values[i] = 100.0 * k / (TB_RISK_CDF_POINTS - 1);
		snprintf(s->cats[i], sizeof s->cats[i], "P%d", 5 * k);
	}
}

/* The 90% line goes last, so its label steps round the limit's. */
static void S_ninety(tb_chart_spec *s)
{
	tb_chart_ref *ref = tb_rchart_add_ref(s, 90, tb_rchart_ref_grey);
	if (ref)
		snprintf(ref->label, sizeof ref->label, "90%% of runs");
}

static void S_chart_days(const tb_report *r, tb_chart_spec *s)
{
	const tb_risk *k = &r->b->risk;
	const tb_time *tm = &r->b->time;
	tb_rchart_init(s, TB_CHART_LINES, "risk-days",
	               "Chance of finishing within x days, with failures", "Wall clock (days)",
	               "Runs done", "%", 1);
	if (!k->known)
		return;
	S_cdf_chart(s, k->days_cdf, 1);
	if (tm->has_deadline) {
		tb_chart_ref *ref = tb_rchart_ref(s, tm->deadline_s / S_DAY, "deadline ", TB_RF_DAYS,
		                                  tm->deadline_s, S_red);
		if (ref)
			ref->vertical = true;
	}
	S_ninety(s);
}

static void S_chart_cost(const tb_report *r, tb_chart_spec *s)
{
	const tb_risk *k = &r->b->risk;
	const tb_time *tm = &r->b->time;
	char x[48];
	snprintf(x, sizeof x, "Cost (%s)", tb_rcurrency(r));
	tb_rchart_init(s, TB_CHART_LINES, "risk-cost",
	               "Chance of costing at most x, with failures", x, "Runs done", "%", 1);
	if (!k->known)
		return;
	S_cdf_chart(s, k->cost_cdf, 1);
	if (tm->has_budget) {
		tb_buf o;
		tb_buf_init(&o);
		tb_buf_puts(&o, "budget ");
		tb_rmoney(&o, r, tm->budget);
		tb_chart_ref *ref = tb_rchart_add_ref(s, tm->budget, S_red);
		if (ref) {
			ref->vertical = true;
			tb_rcopy(ref->label, sizeof ref->label, o.ptr);
		}
		tb_buf_release(&o);
	}
	S_ninety(s);
}

static const tb_rtable_def S_tables[] = {
	{ "goodput", S_table_goodput },
	{ "goodput.losses", S_table_losses },
	{ "risk", S_table_risk },
};

static const tb_rchart_def S_charts[] = {
	{ "risk-days", S_chart_days },
	{ "risk-cost", S_chart_cost },
};

const tb_rsection tb_rsection_risk = {
	S_tables, sizeof S_tables / sizeof S_tables[0],
	S_charts, sizeof S_charts / sizeof S_charts[0],
};
