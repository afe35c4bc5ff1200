/* timecost.c: wall clock, GPU-hours, money and energy; the deadline and
 * budget questions; the GPU-count scan; levers; the measured run.
 *
 * Pure: reads the inputs and b->params/flops/memory, writes b->time and
 * b->levers.  No I/O, no allocation, no snprintf (labels are fixed strings)
 * so that a whole budget stays far under a microsecond.  Every division is
 * guarded: a figure that cannot be computed is flagged, never NaN or inf. */
#include "calc.h"
#include "trainbudget/gpus.h"

#include <math.h>
#include <string.h>

#define S_SECONDS_PER_HOUR 3600.0

/* ceil(x) that forgives the last bits of rounding error: 64.0000000001
 * GPUs is 64 GPUs, not 65. */
static double S_ceil(double x)
{
	double r = nearbyint(x);
	if (fabs(x - r) <= 1e-9 * fmax(1.0, fabs(x)))
		return r;
	return ceil(x);
}

int64_t tb_calc_replica_gpus(const tb_inputs *in)
{
	int64_t t = in->parallelism.tensor > 0 ? in->parallelism.tensor : 1;
	int64_t p = in->parallelism.pipeline > 0 ? in->parallelism.pipeline : 1;
	int64_t c = in->parallelism.context > 0 ? in->parallelism.context : 1;
	return t * p * c;
}

int64_t tb_calc_microbatches(const tb_inputs *in)
{
	int64_t mb = in->training.micro_batch > 0 ? in->training.micro_batch : 1;
	int64_t n = in->training.global_batch / mb;
	return n > 0 ? n : 1;
}

bool tb_calc_count_ok(const tb_inputs *in, int64_t gpus)
{
	int64_t g = tb_calc_replica_gpus(in);
	return gpus >= g && gpus % g == 0 && tb_calc_microbatches(in) % (gpus / g) == 0;
}

static double S_seconds(double flops, double gpus, double peak, double mfu)
{
	return tb_calc_div(flops, gpus * peak * mfu);
}

/* A lever scales the expected run's wall clock by rs and its cost by rc:
 * time is F / (n P u) and cost is time x n x price, so every lever below
 * is a ratio of the scenario's own figures (closed form, no re-derivation). */
static void S_lever(tb_budget *b, const char *label, double rs, double rc)
{
	if (b->n_levers >= TB_LEVERS_MAX)
		return;
	tb_lever *l = &b->levers[b->n_levers++];
	l->label = label;
	l->seconds = b->time.seconds[1] * rs;
	l->cost = b->time.cost[1] * rc;
	l->delta_seconds_frac = b->time.seconds[1] > 0 ? rs - 1 : 0;
	/* A free cluster (price 0) has no cost to change. */
	l->delta_cost_frac = b->time.cost[1] > 0 ? rc - 1 : 0;
}

static const char *S_gpu_name(const tb_inputs *in)
{
	return in->hardware.gpu.name[0] ? in->hardware.gpu.name : "the GPU";
}

/* Published end-to-end speed-ups of fp8 over bf16 training on the same
 * cards, 1.1x to 1.5x (docs/formulas.md, "fp8": torchao float8 on 8 to 512
 * H100s, PyTorch's FSDP2 float8 all-gather on Llama3-70B, torchao on 2K
 * H200s), never the 2x of the peaks; 1.3 is the middle of that range. */
#define S_FP8_GAIN_LOW 1.1
#define S_FP8_GAIN_HIGH 1.5
#define S_FP8_GAIN_MID 1.3

/* An MFU the scenario gives for an fp8 run is taken on the fp8 peak, which
 * is twice the 16-bit one: the same MFU as a bf16 run would halve the time,
 * which no published run does.  Say so, with what such an MFU is worth. */
static void S_fp8_caution(const tb_inputs *in, tb_budget *b)
{
	const tb_time *t = &b->time;
	double p16 = in->hardware.gpu.peak_flops[TB_DTYPE_BF16] > 0
	             ? in->hardware.gpu.peak_flops[TB_DTYPE_BF16]
	             : in->hardware.gpu.peak_flops[TB_DTYPE_FP16];
	if (t->dtype != TB_DTYPE_FP8 || !tb_calc_pos(p16) || !(t->peak_flops_per_gpu > p16))
		return;
	if (in->hardware.mfu_predicted && b->perf.known)
		return;     /* the model's fp8 matmul ceiling already prices it */
	double r = p16 / t->peak_flops_per_gpu, u = t->mfu[1];
	tb_budget_warn(b, "fp8: MFU %.0f%% is taken on the fp8 peak, %.1fx the 16-bit one; published fp8 "
	               "runs gain %.1f-%.1fx over bf16, so %.0f%% in bf16 is %.0f-%.0f%% here",
	               100 * u, 1 / r, S_FP8_GAIN_LOW, S_FP8_GAIN_HIGH, 100 * u,
	               100 * u * r * S_FP8_GAIN_LOW, 100 * u * r * S_FP8_GAIN_HIGH);
}

static tb_dtype S_wanted(const tb_inputs *in)
{
	tb_dtype want = tb_precision_compute_dtype(in->training.precision);
	return (unsigned)want < TB_DTYPE_COUNT ? want : TB_DTYPE_BF16;
}

double tb_time_peak_flops(const tb_inputs *in, tb_dtype *used)
{
	return tb_gpu_peak_flops(&in->hardware.gpu, S_wanted(in), used);
}

/* Chooses the peak for the precision; false when the card lists none. */
static bool S_peak(const tb_inputs *in, tb_budget *b)
{
	tb_dtype want = S_wanted(in);
	b->time.peak_flops_per_gpu = tb_time_peak_flops(in, &b->time.dtype);
	if (b->time.peak_flops_per_gpu > 0) {
		if (b->time.dtype != want)
			tb_budget_warn(b, "%s lists no dense %s peak; time uses its %s peak instead",
			               S_gpu_name(in), tb_dtype_name(want), tb_dtype_name(b->time.dtype));
		return true;
	}
	tb_budget_warn(b, "%s lists no dense %s peak; time, cost and energy are unknown",
	               S_gpu_name(in), tb_dtype_name(want));
	return false;
}

/* Watts a GPU draws: its share of the node's draw at the wall when the
 * scenario gives one (a DGX H100's 10.2 kW over 8 GPUs is 1,275 W, about
 * 1.8 times the 700 W TDP), else its power limit, else its TDP. */
static double S_watts(const tb_inputs *in)
{
	const tb_hardware *hw = &in->hardware;
	if (hw->node_power_w > 0) {
		int64_t g = hw->node.gpus > 0 ? hw->node.gpus : tb_gpus_node(hw->gpu.name)->gpus;
		return hw->node_power_w / (double)(g > 0 ? g : 1);
	}
	return tb_hardware_gpu_watts(hw);
}

static void S_derivs(const tb_inputs *in, tb_budget *b)
{
	const tb_time *t = &b->time;
	const tb_hardware *hw = &in->hardware;
	double n = (double)hw->count;
	tb_deriv *d;

	d = tb_budget_add_deriv(b, "time.seconds", "Wall clock at the most likely MFU",
	                        "t", "F / (n * P * u)",
	                        "definition of MFU: Chowdhery et al. 2022 (PaLM), Sec. 4.1 and App. B",
	                        t->seconds[1], "s");
	if (d) {
		tb_deriv_add_var(d, "F", "model FLOPs for the run", b->flops.total_model, "FLOP");
		tb_deriv_add_var(d, "n", "GPUs", n, "");
		tb_deriv_add_var(d, "P", "dense peak per GPU", t->peak_flops_per_gpu, "FLOP/s");
		tb_deriv_add_var(d, "u", "most likely MFU", t->mfu[1], "");
	}
	d = tb_budget_add_deriv(b, "time.gpu_hours", "GPU-hours at the most likely MFU",
	                        "H", "t * n / 3600", "definition", t->gpu_hours[1], "GPU-h");
	if (d) {
		tb_deriv_add_var(d, "t", "wall clock", t->seconds[1], "s");
		tb_deriv_add_var(d, "n", "GPUs", n, "");
	}
	d = tb_budget_add_deriv(b, "time.cost", "Cost at the most likely MFU", "K",
	                        "H * p", "definition: GPU-hours times the hourly price",
	                        t->cost[1], "currency");
	if (d) {
		tb_deriv_add_var(d, "H", "GPU-hours", t->gpu_hours[1], "GPU-h");
		tb_deriv_add_var(d, "p", "price per GPU-hour", hw->price_per_gpu_hour, "currency");
	}
	if (t->energy_known && hw->node_power_w > 0) {
		d = tb_budget_add_deriv(b, "time.energy", "Energy at the most likely MFU", "W",
		                        "P_node / g * H * PUE / 1000",
		                        "the node's draw at the wall (hardware.node_power; NVIDIA's DGX H100 "
		                        "datasheet: 10.2 kW for 8 GPUs) shared by its GPUs for the whole run, "
		                        "facility overhead by PUE",
		                        t->energy_kwh[1], "kWh");
		if (d) {
			tb_deriv_add_var(d, "P_node", "a node's draw", hw->node_power_w, "W");
			tb_deriv_add_var(d, "g", "GPUs per node", hw->node_power_w / S_watts(in), "");
			tb_deriv_add_var(d, "H", "GPU-hours", t->gpu_hours[1], "GPU-h");
			tb_deriv_add_var(d, "PUE", "power usage effectiveness",
			                 hw->pue >= 1 ? hw->pue : 1, "");
		}
	} else if (t->energy_known) {
		bool cap = tb_hardware_gpu_watts(hw) < hw->gpu.tdp_w;
		d = tb_budget_add_deriv(b, "time.energy", "Energy at the most likely MFU", "W",
		                        "T * H * PUE / 1000",
		                        cap ? "upper bound: every GPU at its power limit (hardware.power_limit) for "
		                              "the whole run, facility overhead by PUE"
		                            : "upper bound: every GPU at its TDP for the whole run, facility overhead by PUE",
		                        t->energy_kwh[1], "kWh");
		if (d) {
			tb_deriv_add_var(d, "T", cap ? "power limit per GPU" : "TDP per GPU", S_watts(in), "W");
			tb_deriv_add_var(d, "H", "GPU-hours", t->gpu_hours[1], "GPU-h");
			tb_deriv_add_var(d, "PUE", "power usage effectiveness",
			                 hw->pue >= 1 ? hw->pue : 1, "");
		}
	}
}

static void S_basic(const tb_inputs *in, tb_budget *b)
{
	tb_time *t = &b->time;
	const tb_hardware *hw = &in->hardware;
	double n = (double)hw->count;
	double pue = hw->pue >= 1 ? hw->pue : 1;
	double watts = S_watts(in);

	t->energy_known = tb_calc_pos(watts);
	for (int i = 0; i < 3; i++) {
		t->seconds[i] = S_seconds(b->flops.total_model, n, t->peak_flops_per_gpu, t->mfu[i]);
		t->gpu_hours[i] = t->seconds[i] * n / S_SECONDS_PER_HOUR;
		t->cost[i] = t->gpu_hours[i] * hw->price_per_gpu_hour;
		/* W x h = Wh; /1000 = kWh. */
		t->energy_kwh[i] = t->energy_known ? watts * t->gpu_hours[i] * pue / 1000 : 0;
	}
	if (!t->energy_known)
		tb_budget_warn(b, "%s has no TDP; energy is unknown (hardware.node_power gives it)",
		               S_gpu_name(in));
	S_derivs(in, b);
}

/* The expected wall clock on `gpus` (a count the scenario can run on):
 * through the step-time model where it predicts, as the GPU scan prices
 * counts (time scales as the predicted step), else perfect scaling. */
static double S_seconds_on(const tb_inputs *in, const tb_budget *b, int64_t gpus)
{
	const tb_time *t = &b->time;
	double scale = (double)in->hardware.count / (double)gpus;
	if (b->perf.known && tb_calc_pos(b->perf.r.step_s)) {
		double step = gpus == in->hardware.count ? b->perf.r.step_s : 0;
		tb_perf_result pr;
		if (!(step > 0) && tb_perf_budget_at(in, b, gpus, &pr))
			step = pr.step_s;
		if (step > 0)
			scale = step / b->perf.r.step_s;
	}
	return t->seconds[1] * scale;
}

#define S_DIVISORS_MAX 2048   /* numbers below 2^31 have at most 1,600 */

/* The divisors of n in increasing order; their count (0 when n < 1). */
static int S_divisors(int64_t n, int64_t *out)
{
	int64_t hi[S_DIVISORS_MAX / 2];
	int nlo = 0, nhi = 0;
	for (int64_t i = 1; n >= 1 && i <= n / i; i++) {
		if (n % i)
			continue;
		if (nlo < S_DIVISORS_MAX / 2)
			out[nlo++] = i;
		if (n / i != i && nhi < S_DIVISORS_MAX / 2)
			hi[nhi++] = n / i;
	}
	for (int k = nhi - 1; k >= 0; k--)
		out[nlo++] = hi[k];
	return nlo;
}

/* Whether the wall clock, GPU-hours, cost and energy of every MFU are
 * finite positive numbers.  tb_calc_div turns an overflow into 0, which
 * would read as "0 s" and a met deadline: an overflowed figure is unknown,
 * never a verdict. */
static bool S_representable(const tb_inputs *in, const tb_budget *b)
{
	const tb_time *t = &b->time;
	double n = (double)in->hardware.count;
	double price = in->hardware.price_per_gpu_hour, tdp = S_watts(in);
	double pue = in->hardware.pue >= 1 ? in->hardware.pue : 1;
	for (int i = 0; i < 3; i++) {
		double s = b->flops.total_model / (n * t->peak_flops_per_gpu * t->mfu[i]);
		double h = s * n / S_SECONDS_PER_HOUR;
		if (!tb_calc_pos(s) || !tb_calc_pos(h) || !isfinite(h * price) ||
		    !isfinite(h * tdp * pue))
			return false;
	}
	return true;
}

static void S_deadline(const tb_inputs *in, tb_budget *b)
{
	tb_time *t = &b->time;
	double rate = t->peak_flops_per_gpu * t->mfu[1];   /* FLOP/s per GPU */
	double group = (double)tb_calc_replica_gpus(in);
	int64_t mb = in->training.micro_batch > 0 ? in->training.micro_batch : 1;

	t->has_deadline = true;
	t->deadline_s = in->plan.deadline_s;
	t->meets_deadline = t->seconds[1] <= t->deadline_s;
	/* By compute: the wall-clock formula solved for n at the expected
	 * MFU, in whole replicas. */
	double needed = tb_calc_div(b->flops.total_model, rate * t->deadline_s);
	double replicas = S_ceil(tb_calc_div(needed, group));
	if (replicas < 1)
		replicas = 1;
	t->gpus_for_deadline_compute = replicas * group;
	t->gpus_for_deadline = t->gpus_for_deadline_compute;
	t->global_batch_for_compute = 0;

	/* A count the scenario runs on: a data-parallel size that divides the
	 * global batch's micro-batches, at least the compute count's, raised
	 * further while the step-time model says it still misses. */
	int64_t nmb = tb_calc_microbatches(in);
	if (b->memory.fits_known && !b->memory.fits) {
		/* a layout that cannot run: no count of it meets anything (the
		 * answer says what would run) */
	} else if (replicas > (double)nmb) {
		tb_budget_warn(b, "Meeting the deadline needs %.0f data-parallel replicas, more than the "
		               "%lld micro-batches in a global batch; raise training.global_batch",
		               replicas, (long long)nmb);
	} else {
		int64_t div[S_DIVISORS_MAX];
		int nd = S_divisors(nmb, div), tried = 0;
		int64_t found = 0, last = 0;
		for (int k = 0; k < nd && !found; k++) {
			if ((double)div[k] < replicas)
				continue;
			/* the model's count: at most 64 predictions, under 50 us */
			if (b->perf.known && tried++ >= 64)
				break;
			last = div[k];
			if (!b->perf.known || S_seconds_on(in, b, div[k] * tb_calc_replica_gpus(in)) <= t->deadline_s)
				found = div[k];
		}
		if (!found && last) {
			found = last;
			tb_budget_warn(b, "The step-time model predicts that no count up to %.0f GPUs "
			               "that divides the global batch meets the deadline; raise "
			               "training.global_batch or the deadline", (double)last * group);
		}
		if (found)
			t->gpus_for_deadline = (double)found * group;
		if (t->gpus_for_deadline != t->gpus_for_deadline_compute) {
			/* the global batch that runs on the compute count: a multiple
			 * of its replicas x micro-batch, the nearest to the scenario's */
			double unit = replicas * (double)mb;
			double k = nearbyint((double)in->training.global_batch / unit);
			t->global_batch_for_compute = (k < 1 ? 1 : k) * unit;
		}
	}
	t->tokens_in_deadline = tb_calc_div((double)in->hardware.count * rate * t->deadline_s,
	                              b->flops.per_token_model);

	tb_deriv *d = tb_budget_add_deriv(b, "time.gpus_for_deadline_compute",
	                                  "GPUs that meet the deadline on compute", "n_c",
	                                  "ceil(F / (P * u * T_d * g)) * g",
	                                  "wall-clock formula solved for n at the most likely MFU, in whole "
	                                  "tensor x pipeline x context groups; no failures or checkpoints",
	                                  t->gpus_for_deadline_compute, "GPUs");
	if (d) {
		tb_deriv_add_var(d, "F", "model FLOPs for the run", b->flops.total_model, "FLOP");
		tb_deriv_add_var(d, "P", "dense peak per GPU", t->peak_flops_per_gpu, "FLOP/s");
		tb_deriv_add_var(d, "u", "most likely MFU", t->mfu[1], "");
		tb_deriv_add_var(d, "T_d", "deadline", t->deadline_s, "s");
		tb_deriv_add_var(d, "g", "GPUs per model replica (tensor x pipeline x context)", group, "");
	}
	d = tb_budget_add_deriv(b, "time.gpus_for_deadline",
	                        "GPUs that meet the deadline with the scenario's global batch", "n_d",
	                        "g * min{ d : d divides B / b, d * g >= n_c, t(d * g) <= T_d }",
	                        b->perf.known
	                        ? "the smallest data-parallel size that divides the global batch's "
	                          "micro-batches and, by the step-time model's predicted step, meets "
	                          "the deadline"
	                        : "the smallest data-parallel size that divides the global batch's "
	                          "micro-batches, at least n_c's (time as 1/GPUs)",
	                        t->gpus_for_deadline, "GPUs");
	if (d) {
		tb_deriv_add_var(d, "g", "GPUs per model replica", group, "");
		tb_deriv_add_var(d, "B", "global batch", (double)in->training.global_batch, "sequences");
		tb_deriv_add_var(d, "b", "micro-batch", (double)mb, "sequences");
		tb_deriv_add_var(d, "n_c", "GPUs by compute", t->gpus_for_deadline_compute, "GPUs");
		tb_deriv_add_var(d, "T_d", "deadline", t->deadline_s, "s");
	}
	d = tb_budget_add_deriv(b, "time.tokens_in_deadline",
	                        "Tokens trainable by the deadline", "D_d",
	                        "n * P * u * T_d / f",
	                        "wall-clock formula solved for D", t->tokens_in_deadline, "tokens");
	if (d) {
		tb_deriv_add_var(d, "n", "GPUs", (double)in->hardware.count, "");
		tb_deriv_add_var(d, "P", "dense peak per GPU", t->peak_flops_per_gpu, "FLOP/s");
		tb_deriv_add_var(d, "u", "most likely MFU", t->mfu[1], "");
		tb_deriv_add_var(d, "T_d", "deadline", t->deadline_s, "s");
		tb_deriv_add_var(d, "f", "model FLOPs per token", b->flops.per_token_model, "FLOP");
	}
}

static void S_budget(const tb_inputs *in, tb_budget *b)
{
	tb_time *t = &b->time;
	double price = in->hardware.price_per_gpu_hour;

	t->has_budget = true;
	t->budget = in->plan.budget;
	t->within_budget = t->cost[1] <= t->budget;
	if (!tb_calc_pos(price)) {
		tb_budget_warn(b, "The price per GPU-hour is zero; any number of tokens fits the budget");
		return;
	}
	/* Budget -> GPU-hours -> FLOPs -> tokens; the GPU count cancels. */
	double gpu_s = t->budget / price * S_SECONDS_PER_HOUR;
	t->tokens_in_budget = tb_calc_div(gpu_s * t->peak_flops_per_gpu * t->mfu[1],
	                            b->flops.per_token_model);
	tb_deriv *d = tb_budget_add_deriv(b, "time.tokens_in_budget",
	                                  "Tokens the budget buys", "D_b",
	                                  "M / p * 3600 * P * u / f",
	                                  "cost formula solved for D", t->tokens_in_budget, "tokens");
	if (d) {
		tb_deriv_add_var(d, "M", "budget", t->budget, "currency");
		tb_deriv_add_var(d, "p", "price per GPU-hour", price, "currency");
		tb_deriv_add_var(d, "P", "dense peak per GPU", t->peak_flops_per_gpu, "FLOP/s");
		tb_deriv_add_var(d, "u", "most likely MFU", t->mfu[1], "");
		tb_deriv_add_var(d, "f", "model FLOPs per token", b->flops.per_token_model, "FLOP");
	}
}

/* Powers of two from count/8 to count*8, each a count the scenario could
 * run on, for the days-against-GPUs chart. */
static void S_scan(const tb_inputs *in, tb_budget *b)
{
	tb_time *t = &b->time;
	int64_t group = tb_calc_replica_gpus(in);
	int64_t last = 0;
	static const double mult[] = { 0.125, 0.25, 0.5, 1, 2, 4, 8 };

	t->n_gpu_scan = 0;
	for (size_t i = 0; i < sizeof mult / sizeof mult[0]; i++) {
		double want = (double)in->hardware.count * mult[i];
		int64_t g = (int64_t)nearbyint(want / (double)group) * group;
		if (g < group)
			g = group;
		if (g <= last || t->n_gpu_scan >= TB_GPU_SCAN_MAX || !tb_calc_count_ok(in, g))
			continue;
		last = g;
		tb_gpu_scan_row *r = &t->gpu_scan[t->n_gpu_scan++];
		r->gpus = g;
		/* Through the step-time model: time scales as its step time, and
		 * the cost as GPUs x time.  Without a prediction, perfect scaling:
		 * time as 1/GPUs, GPU-hours and cost unchanged. */
		double scale = (double)in->hardware.count / (double)g;
		if (b->perf.known) {
			/* the scenario's own count and the levers' layouts are
			 * already predicted: predict only the others */
			double step = g == in->hardware.count ? b->perf.r.step_s : 0;
			for (int v = 1; !(step > 0) && v < b->perf.n_variants; v++)
				if (b->perf.variants[v].gpus == g &&
				    strncmp(b->perf.variants[v].label, "precision ", 10) != 0)
					step = b->perf.variants[v].step_s;
			tb_perf_result pr;
			if (!(step > 0) && tb_perf_budget_at(in, b, g, &pr))
				step = pr.step_s;
			if (step > 0)
				scale = step / b->perf.r.step_s;
		}
		double cscale = scale * (double)g / (double)in->hardware.count;
		for (int k = 0; k < 3; k++) {
			r->seconds[k] = t->seconds[k] * scale;
			r->cost[k] = t->cost[k] * cscale;
		}
	}
}

/* The step time of the variant `label` over the scenario's; 0 when the
 * model has no such variant. */
static double S_variant_ratio(const tb_budget *b, const char *label)
{
	const tb_perf_budget *pb = &b->perf;
	if (!pb->known || !tb_calc_pos(pb->r.step_s))
		return 0;
	for (int i = 0; i < pb->n_variants; i++)
		if (strcmp(pb->variants[i].label, label) == 0)
			return tb_calc_div(pb->variants[i].step_s, pb->r.step_s);
	return 0;
}

static void S_levers(const tb_inputs *in, tb_budget *b)
{
	const tb_time *t = &b->time;
	double peak = t->peak_flops_per_gpu;
	double u = t->mfu[1];

	b->n_levers = 0;
	/* Fewer tokens: FLOPs, hence time and cost, scale exactly with D. */
	S_lever(b, "tokens -25%", 0.75, 0.75);
	S_lever(b, "tokens -50%", 0.5, 0.5);
	/* A smaller model: first order, FLOPs per token scale with N (the
	 * attention term does not, so this slightly flatters the lever). */
	if (b->params.active > 0) {
		S_lever(b, "params -25% (first order)", 0.75, 0.75);
		S_lever(b, "params -50% (first order)", 0.5, 0.5);
	}
	/* Through the step-time model where it predicts: the time scales as
	 * the step time of the changed layout (b->perf's variants), the cost
	 * as GPUs x time.  Without it, perfect scaling: the same MFU on twice
	 * the cards halves the time and leaves the cost unchanged. */
	double x2 = S_variant_ratio(b, "GPUs x2"), h2 = S_variant_ratio(b, "GPUs /2");
	if (tb_calc_count_ok(in, 2 * in->hardware.count))
		S_lever(b, "GPUs x2", x2 > 0 ? x2 : 0.5, x2 > 0 ? 2 * x2 : 1);
	if (in->hardware.count % 2 == 0 && tb_calc_count_ok(in, in->hardware.count / 2))
		S_lever(b, "GPUs /2", h2 > 0 ? h2 : 2, h2 > 0 ? h2 / 2 : 1);
	if (u < 1) {
		double r = u / fmin(1.0, u + 0.10);
		S_lever(b, "MFU +0.10", r, r);
	}
	double fp8 = in->hardware.gpu.peak_flops[TB_DTYPE_FP8];
	if (t->dtype != TB_DTYPE_FP8 && tb_calc_pos(fp8) && fp8 > peak) {
		/* Through the model: fp8 operands at the card's fp8 matmul
		 * ceiling, attention still in 16-bit.  Without it, the middle of
		 * the published end-to-end speed-ups, never the peaks' 2x. */
		double r = S_variant_ratio(b, "precision fp8");
		if (!(r > 0))
			r = fmax(peak / fp8, 1 / S_FP8_GAIN_MID);
		S_lever(b, "precision fp8", r, r);
	}
	/* fp4 on a card that has it: through the model alone (one published
	 * pair, MLPerf's 8B at 1.21x, is no speed-up to fall back on) */
	double f4 = S_variant_ratio(b, "precision fp4");
	if (f4 > 0)
		S_lever(b, "precision fp4", f4, f4);
	/* full recomputation of only the layers the card needs: through the
	 * model alone (without it there is no step to scale) */
	double fr = S_variant_ratio(b, TB_LEVER_FEWEST_RECOMPUTED);
	if (b->memory.fewest_recompute_layers > 0 && fr > 0)
		S_lever(b, TB_LEVER_FEWEST_RECOMPUTED, fr, fr);
	/* the pipeline layout the budget names (perf.balanced_layout) */
	double bs = S_variant_ratio(b, TB_LEVER_BALANCED_SPLIT);
	if (bs > 0)
		S_lever(b, TB_LEVER_BALANCED_SPLIT, bs, bs);
}

/* The MFU a measured step shows, or 0 when there is none to take. */
static double S_measured_mfu(const tb_inputs *in, const tb_budget *b)
{
	const tb_measured *m = &in->measured;
	double tokens_per_step = (double)in->training.global_batch * (double)in->training.seq_len;
	double denom = m->step_time_s * (double)in->hardware.count * b->time.peak_flops_per_gpu;
	if (!m->has_step_time || !tb_calc_pos(tokens_per_step) || !tb_calc_pos(denom))
		return 0;
	return tb_calc_div(b->flops.per_token_model * tokens_per_step, denom);
}

static void S_measured(const tb_inputs *in, tb_budget *b)
{
	tb_time *t = &b->time;
	const tb_measured *m = &in->measured;

	if (m->has_step_time) {
		double tokens_per_step = (double)in->training.global_batch *
		                         (double)in->training.seq_len;
		double denom = m->step_time_s * (double)in->hardware.count * t->peak_flops_per_gpu;
		if (!tb_calc_pos(tokens_per_step) || !tb_calc_pos(denom)) {
			tb_budget_warn(b, "The key measured.step_time needs a global batch, a sequence length and a GPU peak; achieved MFU is unknown");
		} else {
			t->has_measured_step = true;
			double model_step = b->flops.per_token_model * tokens_per_step;
			double hw_step = b->flops.per_token_hardware * tokens_per_step;
			t->achieved_mfu = tb_calc_div(model_step, denom);
			t->achieved_hfu = tb_calc_div(hw_step, denom);
			double steps = S_ceil(tb_calc_div(in->training.tokens, tokens_per_step));
			t->measured_seconds = steps * m->step_time_s;
			if (t->achieved_mfu > 1)
				tb_budget_warn(b, "Measured step time implies MFU above 1; check measured.step_time, the batch and the GPU peak");
			tb_deriv *d = tb_budget_add_deriv(b, "time.achieved_mfu",
			                                  "Achieved MFU from the measured step time", "MFU",
			                                  "f * B * s / (t_step * n * P)",
			                                  "Chowdhery et al. 2022 (PaLM), App. B",
			                                  t->achieved_mfu, "");
			if (d) {
				tb_deriv_add_var(d, "f", "model FLOPs per token", b->flops.per_token_model, "FLOP");
				tb_deriv_add_var(d, "B", "global batch", (double)in->training.global_batch, "sequences");
				tb_deriv_add_var(d, "s", "sequence length", (double)in->training.seq_len, "tokens");
				tb_deriv_add_var(d, "t_step", "measured step time", m->step_time_s, "s");
				tb_deriv_add_var(d, "n", "GPUs", (double)in->hardware.count, "");
				tb_deriv_add_var(d, "P", "dense peak per GPU", t->peak_flops_per_gpu, "FLOP/s");
			}
			d = tb_budget_add_deriv(b, "time.achieved_hfu",
			                        "Achieved HFU (recomputation counted)", "HFU",
			                        "f_hw * B * s / (t_step * n * P)",
			                        "Chowdhery et al. 2022 (PaLM), App. B", t->achieved_hfu, "");
			if (d) {
				tb_deriv_add_var(d, "f_hw", "hardware FLOPs per token", b->flops.per_token_hardware, "FLOP");
				tb_deriv_add_var(d, "B", "global batch", (double)in->training.global_batch, "sequences");
				tb_deriv_add_var(d, "s", "sequence length", (double)in->training.seq_len, "tokens");
				tb_deriv_add_var(d, "t_step", "measured step time", m->step_time_s, "s");
				tb_deriv_add_var(d, "n", "GPUs", (double)in->hardware.count, "");
				tb_deriv_add_var(d, "P", "dense peak per GPU", t->peak_flops_per_gpu, "FLOP/s");
			}
		}
	}
}

static void S_measured_memory(const tb_inputs *in, tb_budget *b)
{
	tb_time *t = &b->time;
	const tb_measured *m = &in->measured;

	if (m->has_peak_memory && tb_calc_pos(m->peak_memory_bytes)) {
		t->has_measured_memory = true;
		t->measured_peak_bytes = m->peak_memory_bytes;
		t->memory_estimate_error = tb_calc_div(b->memory.per_gpu.total - m->peak_memory_bytes,
		                                 m->peak_memory_bytes);
		if (!b->memory.activations_known)
			tb_budget_warn(b, "The memory estimate compared with measured.peak_memory leaves out activations (unknown for this model)");
	}
}

void tb_timecost_compute(const tb_inputs *in, tb_budget *b)
{
	tb_time *t = &b->time;
	memset(t, 0, sizeof *t);
	b->n_levers = 0;
	memcpy(t->currency, in->hardware.currency, sizeof t->currency);
	t->currency[sizeof t->currency - 1] = '\0';
	/* The step-time model's MFU and measured band, unless the scenario
	 * gives its own (perf_budget.c warns when that is above it). */
	if (in->hardware.mfu_predicted && b->perf.known) {
		t->mfu[0] = b->perf.mfu_band[0];
		t->mfu[1] = b->perf.r.mfu;
		t->mfu[2] = b->perf.mfu_band[1];
	} else {
		for (int i = 0; i < 3; i++)
			t->mfu[i] = in->hardware.mfu[i];
	}

	double step_tokens = (double)in->training.seq_len * (double)in->training.global_batch;
	if (step_tokens > 0 && in->training.tokens < step_tokens)
		tb_budget_warn(b, "training.tokens (%.3g) is less than one optimizer step of "
		               "seq_len x global_batch = %.3g tokens", in->training.tokens, step_tokens);

	S_measured_memory(in, b);
	bool peak = S_peak(in, b);
	/* A measured step wins (issue 19): the verdict, the cost and the odds
	 * use the MFU it shows, one value (the measurement is the band), and
	 * the prediction stays beside it as the comparison. */
	double u = peak ? S_measured_mfu(in, b) : 0;
	if (u > 0 && u <= 1) {
		t->mfu[0] = t->mfu[1] = t->mfu[2] = u;
		t->mfu_measured = true;
	}
	if (!tb_calc_pos(b->flops.total_model))
		tb_budget_warn(b, "No model FLOP count; time, cost and energy are unknown");
	bool mfu_ok = tb_calc_pos(t->mfu[0]) && tb_calc_pos(t->mfu[1]) && tb_calc_pos(t->mfu[2]);
	t->known = peak && mfu_ok && in->hardware.count > 0 && tb_calc_pos(b->flops.total_model);
	if (t->known && !S_representable(in, b)) {
		t->known = false;
		tb_budget_warn(b, "Time and cost overflow: %.3g FLOP at %.3g of the peak on %lld GPUs "
		               "is past any number of seconds or dollars; they are unknown, not zero",
		               b->flops.total_model, t->mfu[0], (long long)in->hardware.count);
	}
	if (!t->known) {
		t->energy_known = false;
		return;
	}
	S_basic(in, b);
	S_fp8_caution(in, b);
	if (in->plan.has_deadline && tb_calc_pos(in->plan.deadline_s))
		S_deadline(in, b);
	if (in->plan.has_budget)
		S_budget(in, b);
	S_scan(in, b);
	S_levers(in, b);
	S_measured(in, b);
}

static double S_larger(double top, double v)
{
	return isfinite(v) && fabs(v) > top ? fabs(v) : top;
}

double tb_budget_money_ref(const tb_budget *b)
{
	double top = 0;
	for (int i = 0; i < 3; i++) {
		if (b->time.known)
			top = S_larger(top, b->time.cost[i]);
		if (b->losses.known)
			top = S_larger(top, b->losses.cost[i]);
	}
	if (b->risk.known) {
		top = S_larger(top, b->risk.cost_p10);
		top = S_larger(top, b->risk.cost_p50);
		top = S_larger(top, b->risk.cost_p90);
		top = S_larger(top, b->risk.cost_mean);
		top = S_larger(top, b->risk.budget_p90);
	}
	if (b->time.has_budget)
		top = S_larger(top, b->time.budget);
	return top;
}
