/* calibrate.c: a pilot's measured step fixes an efficiency
 * (calibrate.h). */
#include "trainbudget/calibrate.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "trainbudget/gpus.h"
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

void tb_calib_apply(const tb_calib *c, const char *card, tb_perf_hw *hw)
{
	if (!c || !c->known || !card || strcmp(card, c->card) != 0)
		return;
	hw->matmul_ceiling *= c->factor[TB_CALIB_COMPUTE];
	hw->attention_fraction *= c->factor[TB_CALIB_COMPUTE];
	hw->hbm_bytes_per_s *= c->factor[TB_CALIB_COMPUTE];
	hw->nvlink_fraction *= c->factor[TB_CALIB_NVLINK];
	hw->network_fraction *= c->factor[TB_CALIB_NETWORK];
}

static double S_step(const tb_perf_input *base, tb_calib_term t, double f)
{
	tb_perf_input in = *base;
	tb_calib one;
	memset(&one, 0, sizeof one);
	one.known = true;
	for (int i = 0; i < TB_CALIB_TERMS; i++)
		one.factor[i] = 1;
	one.factor[t] = f;
	snprintf(one.card, sizeof one.card, "x");
	tb_calib_apply(&one, "x", &in.hw);
	tb_perf_result r;
	tb_perf_predict(&in, NULL, &r);
	return r.ok ? r.step_s : 0;
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
	if (!tb_calib_add_perf(c, &in, pilot->hardware.gpu.name, me->step_time_s, why))
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
	p->peak_memory_bytes = me->has_peak_memory ? me->peak_memory_bytes : 0;
	return true;
}

bool tb_calib_add_perf(tb_calib *c, const tb_perf_input *pin, const char *card,
                       double step_s, const char **why)
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
	p->term = S_term(&r, r.gpus, in.hw.gpus_per_node);

	/* the terms earlier pilots fixed stand while this one is solved */
	if (c->known) {
		tb_calib other = *c;
		other.factor[p->term] = 1;
		tb_calib_apply(&other, card, &in.hw);
	}
	/* the step falls as the factor grows: bisect on its logarithm, from
	 * a twentieth of the tabled efficiency to the peak */
	double most;
	S_base(&in.hw, p->term, &most);
	double lo = 0.05, hi = most;
	double want = p->step_s;
	if (S_step(&in, p->term, hi) > want) {
		p->factor = hi;
		p->clamped = true;
	} else if (S_step(&in, p->term, lo) < want) {
		p->factor = lo;
		p->clamped = true;
	} else {
		for (int i = 0; i < 100; i++) {
			double mid = sqrt(lo * hi);
			if (S_step(&in, p->term, mid) > want)
				lo = mid;
			else
				hi = mid;
		}
		p->factor = sqrt(lo * hi);
	}
	p->calibrated_s = S_step(&in, p->term, p->factor);

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
			if ((int)c->pilots[i].term == t) {
				sum += log(c->pilots[i].factor);
				n++;
			}
		c->factor[t] = n ? exp(sum / n) : 1;
	}
	return true;
}
