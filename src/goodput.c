/* goodput.c: failures, checkpoints and the share of wall clock that trains.
 *
 * The model and its sources are in goodput.h and docs/formulas.md; the
 * budget step at the end feeds it from the inputs and the memory model,
 * and turns tb_time's figures into ones with losses, which the verdicts
 * use.  Pure: no I/O, no allocation; every input is checked for sign and
 * finiteness here, since the model is also called with hand-made inputs. */
#include "trainbudget/goodput.h"

#include "calc.h"
#include "trainbudget/gpus.h"

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
	g->gpus_per_node = per_node;
	g->nodes = ceil(S_nonneg(in->gpus) / per_node);
	g->restart_s = S_nonneg(in->restart_s);
	g->compute_s = S_nonneg(in->compute_s);

	g->failure_rate_per_s = S_nonneg(S_nonneg(in->failures_per_node_day) * g->nodes /
	                                 S_SECONDS_PER_DAY);
	g->mtbf_s = S_div(1, g->failure_rate_per_s);
	if (g->mtbf_s == 0)        /* a rate so small its MTBF overflows: none */
		g->failure_rate_per_s = 0;
	g->failures = g->failure_rate_per_s > 0;

	g->checkpoint_bytes = S_nonneg(in->checkpoint_bytes);
	g->write_bytes_per_s = S_nonneg(g->nodes * S_nonneg(in->write_bytes_per_s_per_node));
	g->checkpoint_save_s = S_div(g->checkpoint_bytes, g->write_bytes_per_s);
	/* A save that takes longer than a double holds is not free: read as 0
	 * it made the slowest disk the best one.  Where saves are taken at all,
	 * the run never finishes, as it does when the save outlasts the MTBF. */
	bool save_unbounded = g->checkpoint_bytes > 0 && g->write_bytes_per_s > 0 &&
	                      g->checkpoint_save_s == 0;

	S_interval(in, g);
	double tau = g->checkpoint_interval_s;
	if (save_unbounded && (tau > 0 || g->failures)) {
		g->failure_overhead = DBL_MAX;
		g->progress = false;
		return;
	}
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

/* ---- the budget step ------------------------------------------------------ */

static const char S_src_rate[] =
	"Dubey et al. 2024 (Llama 3), arXiv:2407.21783, Sec. 3.3.4: 419 unexpected interruptions "
	"in 54 days on 2,048 nodes; any node stops a synchronous job";
/* The weights a checkpoint saves beside the fp32 master copy: none where
 * FSDP keeps only that copy (tb_fsdp_one_copy) */
static double S_ckpt_weight_bytes(const tb_inputs *in, const tb_bytes_per_param *bp)
{
	return tb_fsdp_one_copy(in) ? 0 : bp->weights;
}

static const char S_src_ckpt[] =
	"the memory model's bytes per parameter (weights, fp32 master weights, optimizer state); "
	"gradients are not saved";
static const char S_src_young[] =
	"Young 1974, CACM 17(9); never under one optimizer step";
static const char S_src_first_order[] =
	"first order in the failure rate: Young 1974; Daly 2006, FGCS 22(3)";

static void S_derivs(const tb_inputs *in, tb_budget *b, double step_s)
{
	const tb_goodput *g = &b->goodput;
	const tb_bytes_per_param *bp = &b->memory.bytes_per_param;
	tb_deriv *d;

	if (g->failures) {
		d = tb_budget_add_deriv(b, "goodput.mtbf", "Mean time between failures of the job",
		                        "M", "86400 / (r * k)", S_src_rate, g->mtbf_s, "s");
		tb_deriv_add_var(d, "r", "failures per node per day", in->hardware.failures_per_node_day, "");
		tb_deriv_add_var(d, "k", "nodes: GPUs over GPUs per node, rounded up", g->nodes, "");
	}
	d = tb_budget_add_deriv(b, "goodput.checkpoint_bytes", "Checkpoint size", "S",
	                        "N * (w + m + o)", S_src_ckpt, g->checkpoint_bytes, "B");
	tb_deriv_add_var(d, "N", "parameters", b->params.total, "");
	tb_deriv_add_var(d, "w", tb_fsdp_one_copy(in)
	                 ? "weight bytes per parameter beside the master copy (none: FSDP keeps one)"
	                 : "weight bytes per parameter", S_ckpt_weight_bytes(in, bp), "B");
	tb_deriv_add_var(d, "m", "fp32 master weight bytes per parameter", bp->master_weights, "B");
	tb_deriv_add_var(d, "o", "optimizer state bytes per parameter", bp->optimizer, "B");

	d = tb_budget_add_deriv(b, "goodput.checkpoint_save", "Time to save a checkpoint", "t_s",
	                        "S / (k * B)", "every node writes its shard at once",
	                        g->checkpoint_save_s, "s");
	tb_deriv_add_var(d, "S", "checkpoint size", g->checkpoint_bytes, "B");
	tb_deriv_add_var(d, "k", "nodes", g->nodes, "");
	tb_deriv_add_var(d, "B", "write bandwidth per node", in->hardware.checkpoint_bytes_per_s, "B/s");

	if (!g->failures)
		return;
	if (!g->interval_from_user) {
		d = tb_budget_add_deriv(b, "goodput.checkpoint_interval",
		                        "Checkpoint interval (Young's optimum)", "t_c",
		                        "max(sqrt(2 * t_s * M), t_step)", S_src_young,
		                        g->checkpoint_interval_s, "s");
		tb_deriv_add_var(d, "t_s", "time to save a checkpoint", g->checkpoint_save_s, "s");
		tb_deriv_add_var(d, "M", "mean time between failures", g->mtbf_s, "s");
		tb_deriv_add_var(d, "t_step", "one optimizer step at the most likely MFU", step_s, "s");
	}
	d = tb_budget_add_deriv(b, "goodput.lost_per_failure", "Time lost per failure", "l",
	                        "(t_c + t_s) / 2 + t_r",
	                        "half an interval and its save redone on average, then the restart",
	                        g->lost_per_failure_s, "s");
	tb_deriv_add_var(d, "t_c", "checkpoint interval", g->checkpoint_interval_s, "s");
	tb_deriv_add_var(d, "t_s", "time to save a checkpoint", g->checkpoint_save_s, "s");
	tb_deriv_add_var(d, "t_r", "restart time", g->restart_s, "s");
	if (!g->progress)
		return;
	d = tb_budget_add_deriv(b, "goodput.fraction", "Goodput: the share of wall clock that trains",
	                        "f", "(1 - l / M) / (1 + t_s / t_c)", S_src_first_order,
	                        g->fraction, "");
	tb_deriv_add_var(d, "l", "time lost per failure", g->lost_per_failure_s, "s");
	tb_deriv_add_var(d, "M", "mean time between failures", g->mtbf_s, "s");
	tb_deriv_add_var(d, "t_s", "time to save a checkpoint", g->checkpoint_save_s, "s");
	tb_deriv_add_var(d, "t_c", "checkpoint interval", g->checkpoint_interval_s, "s");
	if (b->losses.known) {
		d = tb_budget_add_deriv(b, "goodput.seconds",
		                        "Wall clock at the most likely MFU, with failures and checkpoints",
		                        "T", "t / f", "definition of the goodput fraction",
		                        b->losses.seconds[1], "s");
		tb_deriv_add_var(d, "t", "pure compute wall clock", b->time.seconds[1], "s");
		tb_deriv_add_var(d, "f", "goodput fraction", g->fraction, "");
	}
}

static void S_warnings(const tb_inputs *in, tb_budget *b, double step_s)
{
	const tb_goodput *g = &b->goodput;
	if (g->failures && !g->progress) {
		tb_budget_warn(b, "A failure every %.3g minutes (%.0f nodes) against %.3g minutes lost per "
		               "failure: a synchronous run never finishes; shorten hardware.restart_time "
		               "or use fewer GPUs",
		               g->mtbf_s / 60, g->nodes, g->lost_per_failure_s / 60);
	} else if (g->failure_overhead > 0.1) {
		tb_budget_warn(b, "Failures cost %.0f%% of the wall clock; the first-order failure model "
		               "overstates losses this large (docs/formulas.md)",
		               100 * g->failure_overhead);
	}
	if (g->interval_from_user && step_s > 0 && in->training.checkpoint_interval_s < step_s)
		tb_budget_warn(b, "training.checkpoint_interval (%.3g s) is shorter than one optimizer "
		               "step (%.3g s at the most likely MFU); a checkpoint can only be taken "
		               "between steps", in->training.checkpoint_interval_s, step_s);
}

/* The node the step-time model uses: the scenario's hardware.node.gpus,
 * else the GPU table's node for the card (perf.h, gpus.h). */
static int64_t S_gpus_per_node(const tb_inputs *in)
{
	if (in->hardware.node.gpus > 0)
		return in->hardware.node.gpus;
	int64_t g = tb_gpus_node(in->hardware.gpu.name)->gpus;
	return g > 0 ? g : TB_GOODPUT_GPUS_PER_NODE;
}

/* The bill's rules from the scenario (bill.h); returns the bill of the run
 * at the most likely MFU with its losses (0 when it is not priced).  Storage holds `kept` checkpoints of
 * the trained states and the dataset while the run lasts, and the last
 * checkpoint for the retention after it. */
static double S_bill(const tb_inputs *in, tb_budget *b)
{
	const tb_plan *pl = &in->plan;
	tb_bill_in *bi = &b->bill_in;
	memset(bi, 0, sizeof *bi);
	bi->gpus = (double)in->hardware.count;
	bi->price_per_gpu_hour = in->hardware.price_per_gpu_hour;
	bi->reservation_s = in->hardware.reservation_s;
	bi->ablations = pl->ablations;
	if (pl->has_storage) {
		double ck = b->goodput.checkpoint_bytes;
		bi->storage_bytes = pl->storage_kept * ck + pl->storage_data_bytes;
		bi->retained_bytes = ck;
		bi->retention_s = pl->storage_retention_s;
		bi->storage_price_per_byte_s = pl->storage_price_per_tb_month / 1e12 / TB_BILL_MONTH_S;
	}
	tb_bill bill;
	memset(&bill, 0, sizeof bill);
	const tb_losses *l = &b->losses;
	if (l->known)
		tb_bill_compute(bi, in->hardware.price_per_gpu_hour, l->cost[1], l->seconds[1], &bill);
	if (bill.blocks > 1)
		tb_budget_warn(b, "The run takes %.1f days with its losses%s, past hardware.reservation's "
		                  "%.1f: billed as %d bookings back to back",
		               bill.used_s / 86400, pl->ablations > 0 ? " and ablations" : "",
		               in->hardware.reservation_s / 86400, bill.blocks);
	return bill.total;
}

void tb_goodput_step(const tb_inputs *in, tb_budget *b)
{
	tb_time *t = &b->time;
	tb_losses *l = &b->losses;
	memset(l, 0, sizeof *l);
	memset(&b->risk, 0, sizeof b->risk);
	b->risk_mfu = tb_dist_fixed(0);

	/* One optimizer step of compute at the most likely MFU: the shortest
	 * interval a checkpoint can be taken at. */
	double step_tokens = (double)in->training.global_batch * (double)in->training.seq_len;
	double steps = tb_calc_div(in->training.tokens, step_tokens);
	double step_s = t->known && steps >= 1 ? t->seconds[1] / steps : 0;

	const tb_bytes_per_param *bp = &b->memory.bytes_per_param;
	tb_goodput_in gi = {
		.gpus = (double)in->hardware.count,
		.gpus_per_node = (double)S_gpus_per_node(in),
		.failures_per_node_day = in->hardware.failures_per_node_day,
		/* what a restart needs: the trained weights and their states
		 * (LoRA saves its adapters; the frozen base is on storage) */
		.checkpoint_bytes = tb_goodput_checkpoint_bytes(b->params.trainable, S_ckpt_weight_bytes(in, bp),
		                                                bp->master_weights, bp->optimizer),
		.write_bytes_per_s_per_node = in->hardware.checkpoint_bytes_per_s,
		.restart_s = in->hardware.restart_s,
		.interval_s = in->training.checkpoint_interval_s,
		.step_s = step_s,
		.compute_s = t->known ? t->seconds[1] : 0,
	};
	tb_goodput_compute(&gi, &b->goodput);
	const tb_goodput *g = &b->goodput;

	l->known = t->known && g->progress && g->fraction > 0;
	if (l->known) {
		for (int i = 0; i < 3; i++) {
			l->seconds[i] = tb_calc_div(t->seconds[i], g->fraction);
			l->gpu_hours[i] = tb_calc_div(t->gpu_hours[i], g->fraction);
			l->cost[i] = tb_calc_div(t->cost[i], g->fraction);
			l->energy_kwh[i] = tb_calc_div(t->energy_kwh[i], g->fraction);
		}
	}
	double billed = S_bill(in, b);
	/* The verdicts count the losses and bill what is booked; a run that
	 * never finishes meets nothing. */
	if (t->has_deadline)
		t->meets_deadline = l->known && l->seconds[1] <= t->deadline_s;
	if (t->has_budget)
		t->within_budget = l->known && billed <= t->budget;
	S_derivs(in, b, step_s);
	S_warnings(in, b, step_s);
}
