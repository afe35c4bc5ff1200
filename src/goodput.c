/* goodput.c: failures, checkpoints and the share of wall clock that trains.
 *
 * The model and its sources are in goodput.h and docs/formulas.md.  Pure:
 * no I/O, no allocation; every input is checked for sign and finiteness
 * here, since the module is also called with hand-made inputs. */
#include "trainbudget/goodput.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define S_SECONDS_PER_DAY 86400.0

static bool S_pos(double v)
{
	return v > 0 && isfinite(v);
}

/* A non-negative finite input, or 0. */
static double S_nonneg(double v)
{
	return v > 0 && isfinite(v) ? v : 0;
}

/* a / b, or 0 when the quotient would not be a finite number. */
static double S_div(double a, double b)
{
	if (b == 0 || !isfinite(a) || !isfinite(b))
		return 0;
	double q = a / b;
	return isfinite(q) ? q : 0;
}

double tb_goodput_young_interval_s(double save_s, double mtbf_s)
{
	if (!S_pos(save_s) || !S_pos(mtbf_s))
		return 0;
	double t = sqrt(2 * save_s * mtbf_s);
	return isfinite(t) ? t : 0;
}

double tb_goodput_checkpoint_bytes(double params, double weight_bytes_per_param,
                                   double master_bytes_per_param,
                                   double optimizer_bytes_per_param)
{
	double bpp = S_nonneg(weight_bytes_per_param) + S_nonneg(master_bytes_per_param) +
	             S_nonneg(optimizer_bytes_per_param);
	double s = S_nonneg(params) * bpp;
	return isfinite(s) ? s : 0;
}

/* The interval: the user's, else Young's optimum, never under one step.
 * Without failures nothing needs saving, so only a user's interval costs. */
static void S_interval(const tb_goodput_in *in, tb_goodput *g)
{
	double step = S_nonneg(in->step_s);
	if (S_pos(in->interval_s)) {
		g->interval_from_user = true;
		g->checkpoint_interval_s = in->interval_s;
		return;
	}
	if (!g->failures)
		return;
	double tau = tb_goodput_young_interval_s(g->checkpoint_save_s, g->mtbf_s);
	if (step > 0 && tau < step) {
		tau = step;
		g->interval_is_step = true;
	}
	g->checkpoint_interval_s = tau;
}

void tb_goodput_compute(const tb_goodput_in *in, tb_goodput *g)
{
	memset(g, 0, sizeof *g);
	double per_node = in->gpus_per_node >= 1 && isfinite(in->gpus_per_node)
	                  ? in->gpus_per_node : TB_GOODPUT_GPUS_PER_NODE;
	/* Whole servers: one GPU of a node still rides on the node's
	 * power, host and network, and writes at the node's bandwidth. */
	g->nodes = ceil(S_nonneg(in->gpus) / per_node);
	g->restart_s = S_nonneg(in->restart_s);
	g->compute_s = S_nonneg(in->compute_s);

	g->failure_rate_per_s = S_nonneg(S_nonneg(in->failures_per_node_day) * g->nodes /
	                                 S_SECONDS_PER_DAY);
	g->failures = g->failure_rate_per_s > 0;
	g->mtbf_s = S_div(1, g->failure_rate_per_s);

	g->checkpoint_bytes = S_nonneg(in->checkpoint_bytes);
	g->write_bytes_per_s = S_nonneg(g->nodes * S_nonneg(in->write_bytes_per_s_per_node));
	g->checkpoint_save_s = S_div(g->checkpoint_bytes, g->write_bytes_per_s);

	S_interval(in, g);
	double tau = g->checkpoint_interval_s;
	double delta = tau > 0 ? g->checkpoint_save_s : 0;
	g->checkpoint_overhead = S_div(delta, tau);
	g->segment_s = tau + delta;
	g->lost_per_failure_s = g->segment_s / 2 + g->restart_s;
	g->failure_overhead = g->failure_rate_per_s * g->lost_per_failure_s;
	if (!isfinite(g->failure_overhead))
		g->failure_overhead = DBL_MAX;

	g->progress = g->failure_overhead < 1;
	if (!g->progress)
		return;
	/* wall = W (1 + delta/tau) / (1 - lambda l): the compute and its
	 * saves, plus the failures that strike over the whole wall clock. */
	double keep = 1 - g->failure_overhead;
	g->fraction = keep / (1 + g->checkpoint_overhead);
	g->checkpoint_s = g->compute_s * g->checkpoint_overhead;
	g->wall_s = S_div(g->compute_s + g->checkpoint_s, keep);
	g->expected_failures = g->failure_rate_per_s * g->wall_s;
	g->lost_s = g->wall_s - g->compute_s - g->checkpoint_s;
	if (g->lost_s < 0)          /* rounding, when nothing fails */
		g->lost_s = 0;
	if (!isfinite(g->expected_failures) || (g->compute_s > 0 && g->wall_s <= 0)) {
		/* Compute so long that the wall clock overflows a double. */
		g->progress = false;
		g->fraction = g->checkpoint_s = g->wall_s = 0;
		g->expected_failures = g->lost_s = 0;
	}
}
