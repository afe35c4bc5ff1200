/* scaling.c: Chinchilla compute-optimal allocation, predicted loss and the
 * plans table.
 *
 * Pure: reads the inputs and what params/flops/timecost left in the budget,
 * writes b->chinchilla.  Runs after timecost: plan rows borrow its seconds
 * per FLOP so that they carry the scenario's attention overhead (model
 * FLOPs / 6ND) and MFU.  No I/O, no allocation, no snprintf. */
#include "calc.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Approach-3 constants.  Hoffmann's are the unrounded ones from the paper's
 * TeX source (exp(6.0073404) = 406.401, ...): the rounded alpha/beta move
 * the Gopher-budget optimum from 40B to 32B, which the paper does not say.
 * Hoffmann et al. 2022, arXiv:2203.15556, App. D.2 Eq. (10);
 * Besiroglu et al. 2024, arXiv:2404.10102 (Epoch AI replication). */
const tb_fit tb_fit_hoffmann = {
	"Hoffmann et al. 2022", 1.69337, 406.401, 410.723, 0.33917084, 0.2849083
};
const tb_fit tb_fit_epoch = {
	"Epoch AI 2024", 1.8172, 482.01, 2085.43, 0.3478, 0.3658
};

static bool S_fit_ok(const tb_fit *f)
{
	return tb_calc_pos(f->A) && tb_calc_pos(f->B) && tb_calc_pos(f->alpha) && tb_calc_pos(f->beta);
}

void tb_scaling_exponents(const tb_fit *f, double *a, double *b)
{
	double s = f->alpha + f->beta;
	*a = tb_calc_div(f->beta, s);
	*b = tb_calc_div(f->alpha, s);
}

void tb_scaling_optimum(const tb_fit *f, double compute_flops,
                        double *params, double *tokens)
{
	*params = 0;
	*tokens = 0;
	if (!tb_calc_pos(compute_flops) || !S_fit_ok(f))
		return;
	double a, b;
	tb_scaling_exponents(f, &a, &b);
	double g = pow(f->alpha * f->A / (f->beta * f->B), 1.0 / (f->alpha + f->beta));
	double c6 = compute_flops / 6;
	double n = g * pow(c6, a);
	double d = pow(c6, b) / g;
	if (isfinite(n) && isfinite(d)) {
		*params = n;
		*tokens = d;
	}
}

double tb_scaling_loss(const tb_fit *f, double params, double tokens)
{
	if (!tb_calc_pos(params) || !tb_calc_pos(tokens) || !S_fit_ok(f))
		return 0;
	double l = f->E + f->A / pow(params, f->alpha) + f->B / pow(tokens, f->beta);
	return isfinite(l) ? l : 0;
}

/* A fit's closed-form constants, worked out once per budget: pow() is
 * most of this step's time. */
typedef struct S_fc {
	const tb_fit *f;
	bool ok;
	double g, ln_g, a;      /* G, ln G and a of Eq. 4 */
} S_fc;

static S_fc S_fc_make(const tb_fit *f)
{
	S_fc fc = { f, S_fit_ok(f), 0, 0, 0 };
	if (fc.ok) {
		double b;
		tb_scaling_exponents(f, &fc.a, &b);
		fc.ln_g = log(f->alpha * f->A / (f->beta * f->B)) / (f->alpha + f->beta);
		fc.g = exp(fc.ln_g);
		fc.ok = isfinite(fc.g) && fc.g > 0;
	}
	return fc;
}

/* N_opt = G (C/6)^a and D_opt = (C/6)/N_opt, the same as G^-1 (C/6)^b
 * because a + b = 1. */
static void S_fc_optimum(const S_fc *fc, double c, double ln_c6, double *n, double *d)
{
	*n = *d = 0;
	if (!fc->ok || !tb_calc_pos(c))
		return;
	double nn = fc->g * exp(fc->a * ln_c6);
	double dd = tb_calc_div(c / 6, nn);
	if (tb_calc_pos(nn) && tb_calc_pos(dd)) {
		*n = nn;
		*d = dd;
	}
}

/* The two terms of L, A/N^alpha and B/D^beta, from logarithms: exp() is
 * cheaper than pow(), and the plans share most of their logarithms. */
static double S_fc_nterm(const S_fc *fc, double ln_n)
{
	return fc->ok ? fc->f->A * exp(-fc->f->alpha * ln_n) : 0;
}

static double S_fc_loss(const S_fc *fc, double nterm, double ln_d)
{
	if (!fc->ok)
		return 0;
	double l = fc->f->E + nterm + fc->f->B * exp(-fc->f->beta * ln_d);
	return isfinite(l) ? l : 0;
}

typedef struct S_fits {
	S_fc hoffmann, epoch;
} S_fits;

/* Both fits are constants, so their closed-form constants are worked out
 * once per thread rather than once per budget (two log() and two exp()). */
static const S_fits *S_fits_get(void)
{
	static _Thread_local S_fits fits;
	static _Thread_local bool ready;
	if (!ready) {
		fits.hoffmann = S_fc_make(&tb_fit_hoffmann);
		fits.epoch = S_fc_make(&tb_fit_epoch);
		ready = true;
	}
	return &fits;
}

/* Both rules for compute C: D = 20N (so C = 6 N 20N = 120 N^2) and the two
 * Approach-3 fits. */
static void S_optimum_ln(const S_fits *fits, double c, double ln_c6, tb_optimum *o)
{
	memset(o, 0, sizeof *o);
	if (!tb_calc_pos(c))
		return;
	o->compute_flops = c;
	o->params = sqrt(c / 120);
	o->tokens = 20 * o->params;
	S_fc_optimum(&fits->hoffmann, c, ln_c6, &o->params_fit, &o->tokens_fit);
	S_fc_optimum(&fits->epoch, c, ln_c6, &o->params_epoch, &o->tokens_epoch);
}

static void S_optimum(const S_fits *fits, double c, tb_optimum *o)
{
	S_optimum_ln(fits, c, tb_calc_pos(c) ? log(c / 6) : 0, o);
}

typedef struct S_ctx {
	const tb_inputs *in;
	const S_fits *fits;
	double s_per_flop;      /* seconds per 6ND FLOP at the most likely MFU */
	double cost_per_s;      /* the whole cluster's price per second */
	double n0;              /* the scenario's N: most rows share it, */
	double nterm0[2];       /* and its A/N^alpha for both fits */
} S_ctx;

/* One plan; ln_n and ln_d are the caller's, who can mostly derive them
 * without calling log(). */
static void S_row(tb_budget *b, const S_ctx *x, tb_plan_kind kind,
                  double multiple, double n, double d, double ln_n, double ln_d)
{
	tb_chinchilla *c = &b->chinchilla;
	if (c->n_plans >= TB_PLANS_MAX)
		return;
	tb_plan_row *r = &c->plans[c->n_plans++];
	r->kind = kind;
	r->multiple = multiple;
	r->loss = r->loss_epoch = 0;
	r->params = n;
	r->tokens = d;
	r->flops = 6 * n * d;
	r->seconds = r->flops * x->s_per_flop;
	r->cost = r->seconds * x->cost_per_s;
	if (tb_calc_pos(n) && tb_calc_pos(d)) {
		bool same = n == x->n0;
		double th = same ? x->nterm0[0] : S_fc_nterm(&x->fits->hoffmann, ln_n);
		double te = same ? x->nterm0[1] : S_fc_nterm(&x->fits->epoch, ln_n);
		r->loss = S_fc_loss(&x->fits->hoffmann, th, ln_d);
		r->loss_epoch = S_fc_loss(&x->fits->epoch, te, ln_d);
	}
	r->lifetime_flops = r->flops;
	if (x->in->plan.has_inference && tb_calc_pos(x->in->plan.inference_tokens))
		r->lifetime_flops += 2 * n * x->in->plan.inference_tokens;
}

static void S_plans(const tb_inputs *in, const S_fits *fits, tb_budget *b)
{
	tb_chinchilla *c = &b->chinchilla;
	double n = b->params.active, d = in->training.tokens;
	bool nd = tb_calc_pos(n) && tb_calc_pos(d);
	double ln_n = nd ? log(n) : 0, ln_d = nd ? log(d) : 0;
	double ln_c6 = ln_n + ln_d;             /* C/6 = N D */
	S_ctx x = { in, fits, 0, 0, n,
	            { S_fc_nterm(&fits->hoffmann, ln_n), S_fc_nterm(&fits->epoch, ln_n) } };
	/* Plans inherit the scenario's model-FLOPs-to-6ND ratio and MFU through
	 * its own seconds per 6ND FLOP. */
	if (b->time.known && tb_calc_pos(c->compute_flops)) {
		x.s_per_flop = tb_calc_div(b->time.seconds[1], c->compute_flops);
		x.cost_per_s = (double)in->hardware.count * in->hardware.price_per_gpu_hour / 3600;
	}

	/* ln N and ln D of each plan from the scenario's: C/6 = N D, the
	 * 20-token optimum has N^2 = (C/6)/20, the fit's N = G (C/6)^a. */
	const double ln_20 = 2.995732273553991;     /* log(20) */
	double ln_n20 = 0.5 * (ln_c6 - ln_20);
	double ln_nfit = fits->hoffmann.ln_g + fits->hoffmann.a * ln_c6;

	c->n_plans = 0;
	S_row(b, &x, TB_PLAN_AS_PLANNED, 0, n, d, ln_n, ln_d);
	S_row(b, &x, TB_PLAN_OPTIMAL_20, 1, c->optimal_params, c->optimal_tokens,
	      ln_n20, ln_c6 - ln_n20);
	S_row(b, &x, TB_PLAN_OPTIMAL_FIT, 0, c->run.params_fit, c->run.tokens_fit,
	      ln_nfit, ln_c6 - ln_nfit);

	static const double dflt[] = { 1, 2, 5 };
	const double *ks = in->plan.n_overtrain > 0 ? in->plan.overtrain : dflt;
	int nk = in->plan.n_overtrain > 0 ? in->plan.n_overtrain : 3;
	if (nk > TB_OVERTRAIN_MAX)
		nk = TB_OVERTRAIN_MAX;
	for (int i = 0; i < nk; i++) {
		double k = ks[i];
		if (!tb_calc_pos(k))
			continue;
		/* Fixed model size: k times the 20-tokens-per-parameter data. */
		double ln_k = log(k);
		if (tb_calc_pos(n))
			S_row(b, &x, TB_PLAN_N_FIXED, k, n, k * 20 * n, ln_n, ln_k + ln_20 + ln_n);
		/* Fixed compute: a smaller model on more data; k = 1 is the
		 * compute-optimal row already listed. */
		if (k != 1 && tb_calc_pos(c->optimal_params)) {
			double nk_params = c->optimal_params / sqrt(k);
			double dk = tb_calc_div(c->compute_flops, 6 * nk_params);
			double ln_nk = ln_n20 - 0.5 * ln_k;
			S_row(b, &x, TB_PLAN_C_FIXED, k, nk_params, dk, ln_nk, ln_c6 - ln_nk);
		}
	}
}

static void S_derivs(const tb_inputs *in, const S_fits *fits, tb_budget *b)
{
	const tb_chinchilla *c = &b->chinchilla;
	tb_deriv *d;

	d = tb_budget_add_deriv(b, "chinchilla.compute", "Training compute for the scaling laws",
	                        "C", "6 * N * D", "Kaplan et al. 2020, Sec. 2.1; Hoffmann et al. 2022",
	                        c->compute_flops, "FLOP");
	tb_deriv_add_var(d, "N", "active parameters", b->params.active, "");
	tb_deriv_add_var(d, "D", "training tokens", in->training.tokens, "tokens");

	d = tb_budget_add_deriv(b, "chinchilla.optimal_params",
	                        "Compute-optimal parameters, 20 tokens per parameter", "N_opt",
	                        "sqrt(C / 120)",
	                        "Hoffmann et al. 2022, Table 3 (D = 20N, C = 6ND)",
	                        c->optimal_params, "");
	tb_deriv_add_var(d, "C", "training compute", c->compute_flops, "FLOP");

	d = tb_budget_add_deriv(b, "chinchilla.params_fit",
	                        "Compute-optimal parameters, Approach-3 fit", "N_opt",
	                        "G * (C / 6)^a",
	                        "Hoffmann et al. 2022, Eq. (4) with App. D.2 constants (unrounded)",
	                        c->run.params_fit, "");
	tb_deriv_add_var(d, "G", "(alpha A / (beta B))^(1/(alpha+beta))", fits->hoffmann.g, "");
	tb_deriv_add_var(d, "C", "training compute", c->compute_flops, "FLOP");
	tb_deriv_add_var(d, "a", "beta / (alpha + beta)", fits->hoffmann.a, "");

	if (c->loss_known) {
		static const struct {
			const tb_fit *fit;
			const char *key, *title, *source;
		} losses[2] = {
			{ &tb_fit_hoffmann, "chinchilla.loss", "Predicted loss, Hoffmann fit",
			  "Hoffmann et al. 2022, Eq. (2), App. D.2 constants" },
			{ &tb_fit_epoch, "chinchilla.loss_epoch", "Predicted loss, Epoch AI fit",
			  "Besiroglu et al. 2024 (Epoch AI replication), arXiv:2404.10102" },
		};
		for (int k = 0; k < 2; k++) {
			const tb_fit *f = losses[k].fit;
			d = tb_budget_add_deriv(b, losses[k].key, losses[k].title, "L",
			                        "E + A / N^alpha + B / D^beta", losses[k].source,
			                        k ? c->loss_epoch : c->loss, "nats/token");
			tb_deriv_add_var(d, "E", "irreducible loss", f->E, "");
			tb_deriv_add_var(d, "A", "parameter term", f->A, "");
			tb_deriv_add_var(d, "alpha", "parameter exponent", f->alpha, "");
			tb_deriv_add_var(d, "B", "data term", f->B, "");
			tb_deriv_add_var(d, "beta", "data exponent", f->beta, "");
			tb_deriv_add_var(d, "N", "active parameters", b->params.active, "");
			tb_deriv_add_var(d, "D", "training tokens", in->training.tokens, "tokens");
		}
	}
}

/* 6ND-equivalent compute the cluster delivers in `seconds` of its time:
 * delivered model FLOPs divided by the scenario's model/6ND ratio, so that
 * the plan that comes out really trains in that time. */
static double S_ratio(const tb_budget *b)
{
	double ratio = tb_calc_div(b->flops.total_model, b->flops.total_6nd);
	return tb_calc_pos(ratio) ? ratio : 1;
}

static double S_delivered(const tb_budget *b, double gpu_seconds)
{
	double model = gpu_seconds * b->time.peak_flops_per_gpu * b->time.mfu[1];
	return tb_calc_div(model, S_ratio(b));
}

void tb_scaling_compute(const tb_inputs *in, tb_budget *b)
{
	tb_chinchilla *c = &b->chinchilla;
	/* the plan rows are written whole by S_row */
	memset(c, 0, offsetof(tb_chinchilla, plans));
	const S_fits *fits = S_fits_get();

	double n = b->params.active, d = in->training.tokens;
	c->compute_flops = tb_calc_pos(n) && tb_calc_pos(d) ? 6 * n * d : 0;
	/* ln(C/6) = ln N + ln D: no log of the product needed */
	S_optimum_ln(fits, c->compute_flops,
	             c->compute_flops > 0 ? log(n) + log(d) : 0, &c->run);
	c->optimal_params = c->run.params;
	c->optimal_tokens = c->run.tokens;
	c->tokens_per_param = tb_calc_div(c->optimal_tokens, c->optimal_params);
	c->scenario_tokens_per_param = tb_calc_div(d, n);
	c->loss_known = tb_calc_pos(n) && tb_calc_pos(d) && S_fit_ok(&tb_fit_hoffmann);
	if (b->params.total > n * 1.000001 && tb_calc_pos(n))
		tb_budget_warn(b, "Scaling laws use the active parameters (%.1fB of %.1fB); the fits are for dense models",
		               n / 1e9, b->params.total / 1e9);

	if (b->time.known && in->plan.has_deadline && tb_calc_pos(in->plan.deadline_s)) {
		c->has_deadline = true;
		S_optimum(fits, S_delivered(b, (double)in->hardware.count * in->plan.deadline_s),
		          &c->deadline);
	}
	if (b->time.known && in->plan.has_budget && tb_calc_pos(in->hardware.price_per_gpu_hour)) {
		c->has_budget = true;
		S_optimum(fits, S_delivered(b, in->plan.budget / in->hardware.price_per_gpu_hour * 3600),
		          &c->budget);
	}
	S_plans(in, fits, b);
	/* The first plan is the scenario as given. */
	if (c->loss_known && c->n_plans > 0) {
		c->loss = c->plans[0].loss;
		c->loss_epoch = c->plans[0].loss_epoch;
	}
	S_derivs(in, fits, b);
	if (c->has_deadline) {
		tb_deriv *dv = tb_budget_add_deriv(b, "chinchilla.deadline_compute",
		                                   "Compute the cluster delivers by the deadline (6ND-equivalent)",
		                                   "C_d", "n * P * u * T_d / r",
		                                   "wall-clock formula; r converts model FLOPs to 6ND",
		                                   c->deadline.compute_flops, "FLOP");
		tb_deriv_add_var(dv, "n", "GPUs", (double)in->hardware.count, "");
		tb_deriv_add_var(dv, "P", "dense peak per GPU", b->time.peak_flops_per_gpu, "FLOP/s");
		tb_deriv_add_var(dv, "u", "most likely MFU", b->time.mfu[1], "");
		tb_deriv_add_var(dv, "T_d", "deadline", in->plan.deadline_s, "s");
		tb_deriv_add_var(dv, "r", "model FLOPs / 6ND", S_ratio(b), "");
	}
}

/* Names are made here, on demand, rather than in the calculators: a sweep
 * of a million budgets never reads them. */
void tb_plan_label(const tb_plan_row *r, bool brief, char *dst, size_t cap)
{
	if (!dst || cap == 0)
		return;
	double tpp = 20 * r->multiple;      /* tokens per parameter */
	switch (r->kind) {
	case TB_PLAN_AS_PLANNED:
		snprintf(dst, cap, "as planned");
		break;
	case TB_PLAN_OPTIMAL_20:
		snprintf(dst, cap, brief ? "optimal D/N=20" : "compute-optimal, 20 tokens/param");
		break;
	case TB_PLAN_OPTIMAL_FIT:
		snprintf(dst, cap, brief ? "optimal Hoffmann" : "compute-optimal, Hoffmann fit");
		break;
	case TB_PLAN_N_FIXED:
	case TB_PLAN_C_FIXED: {
		const char *fixed = r->kind == TB_PLAN_N_FIXED ? "N fixed" : "C fixed";
		if (brief)
			snprintf(dst, cap, "%s D/N=%.3g", fixed, tpp);
		else if (r->multiple == 1)
			snprintf(dst, cap, "%s, %.3g tokens/param (Chinchilla)", fixed, tpp);
		else
			snprintf(dst, cap, "%s, %.3g tokens/param (%.3gx Chinchilla)", fixed,
			         tpp, r->multiple);
		break;
	}
	default:
		snprintf(dst, cap, "plan");
		break;
	}
}
