/* calibrate.c: a pilot's measured step fixes an efficiency
 * (calibrate.h). */
#include "trainbudget/calibrate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/budget.h"
#include "trainbudget/gpus.h"
#include "trainbudget/xalloc.h"
#include "trainbudget/inputs.h"
#include "trainbudget/perf.h"

_Static_assert(TB_PERF_TERMS == 10, "tb_calib_pilot.breakdown_s holds the perf.h terms");

const char *tb_calib_term_name(tb_calib_term t)
{
	switch (t) {
	case TB_CALIB_NVLINK: return "nvlink";
	case TB_CALIB_NETWORK: return "network";
	case TB_CALIB_COMPUTE: default: return "compute";
	}
}

/* The card's figure a term's factor multiplies, and the most the factor
 * can be before that figure passes 1 (the peak, or the link). */
static double S_base(const tb_perf_hw *hw, tb_calib_term t, double *most)
{
	double v;
	switch (t) {
	case TB_CALIB_NVLINK: v = hw->nvlink_fraction; break;
	case TB_CALIB_NETWORK: v = hw->network_fraction; break;
	case TB_CALIB_COMPUTE: default:
		v = hw->matmul_ceiling > hw->attention_fraction ? hw->matmul_ceiling
		                                                 : hw->attention_fraction;
		break;
	}
	*most = v > 0 ? 1 / v : 1;
	return t == TB_CALIB_COMPUTE ? hw->matmul_ceiling : v;
}

void tb_calib_factors_text(const tb_calib_pilot *p, char *buf, size_t cap)
{
	size_t at = 0;
	buf[0] = 0;
	for (int t = 0; t < TB_CALIB_TERMS && at < cap; t++)
		if (p->fixed[t])
			at += (size_t)snprintf(buf + at, cap - at, "%s%s efficiency x%.2f", at ? ", " : "",
			                       tb_calib_term_name((tb_calib_term)t), p->factors[t]);
	if (p->clamped && at < cap)
		snprintf(buf + at, cap - at, " (at its bound)");
}

int tb_calib_rows(const tb_calib_pilot *p, tb_calib_row rows[4])
{
	const double *br = p->breakdown_s;
	int n = 0;
	if (p->has_trace) {
		const tb_trace *tr = &p->trace;
		rows[n++] = (tb_calib_row){ "compute", p->predicted_compute_s, tr->compute_s };
		rows[n++] = (tb_calib_row){ "communication", p->predicted_comm_s, tr->comm_s };
		rows[n++] = (tb_calib_row){ "optimizer", br[TB_PERF_OPTIMIZER],
		                            tr->terms_s[TB_TRACE_OPTIMIZER] };
	}
	rows[n++] = (tb_calib_row){ "step", p->predicted_s, p->step_s };
	return n;
}

/* Scales hw's efficiencies by the factor of each term (1: as tabled). */
static void S_scale(tb_perf_hw *hw, const double f[TB_CALIB_TERMS])
{
	hw->matmul_ceiling *= f[TB_CALIB_COMPUTE];
	hw->head_matmul_ceiling *= f[TB_CALIB_COMPUTE];
	hw->attention_fraction *= f[TB_CALIB_COMPUTE];
	hw->hbm_bytes_per_s *= f[TB_CALIB_COMPUTE];
	hw->nvlink_fraction *= f[TB_CALIB_NVLINK];
	hw->a2a_fraction *= f[TB_CALIB_NVLINK];
	hw->network_fraction *= f[TB_CALIB_NETWORK];
}

void tb_calib_apply(const tb_calib *c, const char *card, tb_perf_hw *hw)
{
	if (c && c->known && card && strcmp(card, c->card) == 0)
		S_scale(hw, c->factor);
}

/* What a factor is solved against: the step, or (from a trace) the
 * compute time or the collectives' time alone. */
typedef enum { S_WHOLE_STEP, S_COMPUTE_TIME, S_COMM_TIME } S_target;

static double S_measure(const tb_perf_result *r, S_target what)
{
	switch (what) {
	case S_COMPUTE_TIME:
		return r->breakdown_s[TB_PERF_COMPUTE] + r->breakdown_s[TB_PERF_RECOMPUTE];
	case S_COMM_TIME:
		/* the collectives' kernels whether hidden or not */
		return r->breakdown_s[TB_PERF_TP_COMM] + r->breakdown_s[TB_PERF_CP_COMM] +
		       r->breakdown_s[TB_PERF_EP_COMM] + r->breakdown_s[TB_PERF_PP_COMM] + r->dp_total_s;
	case S_WHOLE_STEP: default:
		return r->step_s;
	}
}

/* `what` for `base` with its efficiencies scaled by f0, term t's by f. */
static double S_at(const tb_perf_input *base, const double f0[TB_CALIB_TERMS],
                   tb_calib_term t, double f, S_target what)
{
	double k[TB_CALIB_TERMS];
	memcpy(k, f0, sizeof k);
	k[t] = f;
	tb_perf_input in = *base;
	S_scale(&in.hw, k);
	tb_perf_result r;
	tb_perf_predict(&in, NULL, &r);
	return r.ok ? S_measure(&r, what) : 0;
}

/* The factor on term t, the others at f0, that makes `what` equal `want`
 * (it falls as the factor grows): bisection on its logarithm, from a
 * twentieth of the tabled efficiency to the peak.  *clamped when `want`
 * is outside. */
static double S_solve(const tb_perf_input *in, const double f0[TB_CALIB_TERMS],
                      tb_calib_term t, S_target what, double want, bool *clamped)
{
	double most;
	S_base(&in->hw, t, &most);
	double lo = 0.05, hi = most;
	if (S_at(in, f0, t, hi, what) > want) {
		*clamped = true;
		return hi;
	}
	if (S_at(in, f0, t, lo, what) < want) {
		*clamped = true;
		return lo;
	}
	for (int i = 0; i < 100; i++) {
		double mid = sqrt(lo * hi);
		if (S_at(in, f0, t, mid, what) > want)
			lo = mid;
		else
			hi = mid;
	}
	return sqrt(lo * hi);
}

/* The term a step total is laid on: compute when it is most of the
 * predicted step, else the links the largest communication crosses. */
static tb_calib_term S_term(const tb_perf_result *r, int64_t gpus, int64_t per_node)
{
	double comp = r->breakdown_s[TB_PERF_COMPUTE] + r->breakdown_s[TB_PERF_RECOMPUTE] +
	              r->breakdown_s[TB_PERF_OPTIMIZER] + r->breakdown_s[TB_PERF_OTHER];
	if (comp >= 0.5 * r->step_s)
		return TB_CALIB_COMPUTE;
	return gpus > per_node ? TB_CALIB_NETWORK : TB_CALIB_NVLINK;
}

bool tb_calib_add(tb_calib *c, const tb_inputs *pilot, const char *path, const char *sha256,
                  const char **why)
{
	*why = "";
	const tb_measured *me = &pilot->measured;
	if (!me->has_step_time) {
		*why = "the pilot has no measured step: expected measured.log or measured.step_time, "
		       "with the layout that ran written whole";
		return false;
	}
	tb_perf_input in;
	tb_perf_input_from(pilot, &in);
	if (!tb_calib_add_perf(c, &in, pilot->hardware.gpu.name, me->step_time_s,
	                       me->has_trace ? &me->trace : NULL, why))
		return false;
	tb_calib_pilot *p = &c->pilots[c->npilots - 1];
	snprintf(p->path, sizeof p->path, "%s", path ? path : "");
	snprintf(p->sha256, sizeof p->sha256, "%s", sha256 ? sha256 : "");
	if (me->has_log) {
		snprintf(p->log_path, sizeof p->log_path, "%s", me->log_path);
		snprintf(p->log_sha256, sizeof p->log_sha256, "%s", me->log_sha256);
		p->kind = me->log.kind;
		p->step_s_p10 = me->log.step_s_p10;
		p->step_s_p90 = me->log.step_s_p90;
		if (!(p->step_s_p10 > 0) && me->log.tps_p90 > 0 && me->log.tps_p10 > 0) {
			/* the spread in tokens per second, turned around */
			p->step_s_p10 = me->step_time_s * me->log.tokens_per_s_per_gpu / me->log.tps_p90;
			p->step_s_p90 = me->step_time_s * me->log.tokens_per_s_per_gpu / me->log.tps_p10;
		}
		p->peak_is_reserved = me->log.peak_is_reserved;
	} else {
		p->kind = TB_PILOT_STEP_TIME;
	}
	if (me->has_trace) {
		p->has_trace = true;
		p->trace = me->trace;
		snprintf(p->trace_path, sizeof p->trace_path, "%s", me->trace_path);
		snprintf(p->trace_sha256, sizeof p->trace_sha256, "%s", me->trace_sha256);
	}
	p->peak_memory_bytes = me->has_peak_memory ? me->peak_memory_bytes : 0;
	/* the memory estimate for the layout that ran, to set against its
	 * peak (the pilot's own budget, without its layout search) */
	tb_budget *b = tb_xcalloc(1, sizeof *b);
	tb_budget_compute(pilot, b);
	const tb_mem_items *m = &b->memory.per_gpu;
	p->memory_known = b->memory.activations_known;
	if (p->memory_known) {
		double v[7] = { m->weights, m->gradients, m->master_weights, m->optimizer,
		                m->activations, m->other, m->total };
		memcpy(p->memory_bytes, v, sizeof v);
		if (p->peak_memory_bytes > 0)
			p->memory_error = (m->total - p->peak_memory_bytes) / p->peak_memory_bytes;
	}
	free(b);
	return true;
}

bool tb_calib_add_perf(tb_calib *c, const tb_perf_input *pin, const char *card,
                       double step_s, const tb_trace *trace, const char **why)
{
	*why = "";
	if (!c->known) {
		memset(c, 0, sizeof *c);
		for (int i = 0; i < TB_CALIB_TERMS; i++)
			c->factor[i] = 1;
	}
	if (c->npilots >= TB_CALIB_PILOTS_MAX) {
		*why = "more than 4 pilots";
		return false;
	}
	if (c->known && strcmp(c->card, card) != 0) {
		*why = "the pilots ran on different cards: each card's efficiencies are its own";
		return false;
	}
	if (!(step_s > 0)) {
		*why = "the pilot's measured step is not positive";
		return false;
	}
	tb_perf_input in = *pin;
	tb_perf_result r;
	tb_perf_predict(&in, NULL, &r);
	if (!r.ok) {
		*why = r.why;
		return false;
	}
	tb_calib_pilot *p = &c->pilots[c->npilots];
	memset(p, 0, sizeof *p);
	p->kind = TB_PILOT_STEP_TIME;
	snprintf(p->card, sizeof p->card, "%s", card);
	p->gpus = r.gpus;
	p->step_s = p->step_s_p10 = p->step_s_p90 = step_s;
	p->predicted_s = r.step_s;
	memcpy(p->breakdown_s, r.breakdown_s, sizeof p->breakdown_s);
	p->predicted_compute_s = S_measure(&r, S_COMPUTE_TIME);
	p->predicted_comm_s = S_measure(&r, S_COMM_TIME);
	p->term = S_term(&r, r.gpus, in.hw.gpus_per_node);

	/* the terms earlier pilots fixed stand while this one is solved */
	double f[TB_CALIB_TERMS];
	for (int t = 0; t < TB_CALIB_TERMS; t++)
		f[t] = p->factors[t] = c->known ? c->factor[t] : 1;
	if (trace && trace->compute_s > 0) {
		/* a trace times each term: the compute efficiency from the
		 * compute kernels, then the links from the collectives' */
		p->term = TB_CALIB_COMPUTE;
		f[TB_CALIB_COMPUTE] = S_solve(&in, f, TB_CALIB_COMPUTE, S_COMPUTE_TIME,
		                              trace->compute_s, &p->clamped);
		p->fixed[TB_CALIB_COMPUTE] = true;
		tb_calib_term link = r.gpus > in.hw.gpus_per_node ? TB_CALIB_NETWORK : TB_CALIB_NVLINK;
		if (trace->comm_s > 0 && S_at(&in, f, link, f[link], S_COMM_TIME) > 0) {
			bool at_bound = false;
			f[link] = S_solve(&in, f, link, S_COMM_TIME, trace->comm_s, &at_bound);
			p->fixed[link] = true;
		}
	} else {
		f[p->term] = S_solve(&in, f, p->term, S_WHOLE_STEP, p->step_s, &p->clamped);
		p->fixed[p->term] = true;
	}
	for (int t = 0; t < TB_CALIB_TERMS; t++)
		if (p->fixed[t])
			p->factors[t] = f[t];
	p->calibrated_s = S_at(&in, f, p->term, f[p->term], S_WHOLE_STEP);

	if (!c->known) {
		snprintf(c->card, sizeof c->card, "%s", card);
		for (int t = 0; t < TB_CALIB_TERMS; t++) {
			double m;
			c->before[t] = S_base(&in.hw, (tb_calib_term)t, &m);
		}
	}
	c->known = true;
	c->npilots++;
	/* pilots that fix the same term agree by their geometric mean */
	for (int t = 0; t < TB_CALIB_TERMS; t++) {
		double sum = 0;
		int n = 0;
		for (int i = 0; i < c->npilots; i++)
			if (c->pilots[i].fixed[t]) {
				sum += log(c->pilots[i].factors[t]);
				n++;
			}
		c->factor[t] = n ? exp(sum / n) : 1;
	}
	return true;
}
