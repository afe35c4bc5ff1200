/* stages.c: a run in stages (stages.h).  docs/formulas.md, "Stages", has
 * the rules. */
#include "trainbudget/stages.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/xalloc.h"

/* A stage alone: what the whole run decides (the bill, the deadline, the
 * budget) is left out. */
static void S_alone(const tb_inputs *in, tb_inputs *out)
{
	*out = *in;
	out->hardware.reservation_s = 0;
	out->plan.ablations = 0;
	out->plan.has_storage = false;
	out->plan.has_deadline = false;
	out->plan.has_budget = false;
}

static void S_row(const tb_stage_def *d, const tb_inputs *priced, const tb_budget *sb,
                  tb_stage_row *r)
{
	memset(r, 0, sizeof *r);
	memcpy(r->name, d->name, sizeof r->name);
	r->name[sizeof r->name - 1] = '\0';
	r->tokens = priced->training.tokens;
	r->seq_len = priced->training.seq_len;
	r->global_batch = priced->training.global_batch;
	r->method = priced->training.method;
	r->precision = priced->training.precision;
	r->runs = !sb->answer.decided || sb->answer.runs;
	r->layout = sb->answer.layout;
	r->step_s = sb->answer.step_s;
	r->mfu = sb->time.mfu[1];
	tb_expected x = tb_budget_expected(sb);
	r->known = x.known && r->runs;
	if (r->known) {
		r->days = x.seconds / 86400;
		r->gpu_hours = x.gpu_hours;
		r->cost = x.cost;
		r->energy_kwh = x.energy_kwh;
	}
	if (r->known) {
		r->compute_s = sb->time.seconds[1];
		r->compute_cost = sb->time.cost[1];
	}
	r->memory_per_gpu_bytes = sb->memory.per_gpu.total;
	r->capacity_bytes = sb->memory.capacity_bytes;
	r->fits = sb->memory.fits;
	r->fits_known = sb->memory.fits_known;
}

void tb_budget_compute_stages(const tb_inputs *in, const tb_stage_def *defs, int n,
                              tb_budget *b)
{
	if (n <= 0)
		return;
	if (n > TB_STAGES_MAX)
		n = TB_STAGES_MAX;
	tb_budget *sb = tb_xcalloc(1, sizeof *sb);
	tb_inputs *alone = tb_xcalloc(1, sizeof *alone);
	tb_inputs *priced = tb_xcalloc(1, sizeof *priced);
	tb_risk_in parts[TB_STAGES_MAX];
	memset(parts, 0, sizeof parts);
	b->n_stages = n;
	b->stage_memory_max = 0;
	b->stages_all_run = true;
	bool known = true;
	double seconds = 0, gpu_hours = 0, cost = 0, energy = 0;
	for (int i = 0; i < n; i++) {
		S_alone(&defs[i].inputs, alone);
		memset(sb, 0, sizeof *sb);
		tb_budget_compute_answer(alone, priced, sb);
		tb_stage_row *r = &b->stages[i];
		S_row(&defs[i], priced, sb, r);
		tb_budget_risk_in(priced, sb, &parts[i]);
		b->stages_all_run = b->stages_all_run && r->runs;
		known = known && r->known;
		if (r->memory_per_gpu_bytes > b->stages[b->stage_memory_max].memory_per_gpu_bytes)
			b->stage_memory_max = i;
		seconds += r->days * 86400;
		gpu_hours += r->gpu_hours;
		cost += r->cost;
		energy += r->energy_kwh;
	}
	free(priced);
	free(alone);
	free(sb);

	/* the whole run's draws: the deadline, the budget and the bill are
	 * its own */
	tb_risk_in whole;
	tb_budget_risk_in(in, b, &whole);
	parts[0].has_deadline = whole.has_deadline;
	parts[0].deadline_s = whole.deadline_s;
	parts[0].has_budget = whole.has_budget;
	parts[0].budget = whole.budget;
	parts[0].bill = b->bill_in;
	memset(&b->risk, 0, sizeof b->risk);
	if (known)
		tb_risk_compute_parts(parts, n, &b->risk);

	tb_expected *t = &b->staged_total;
	memset(t, 0, sizeof *t);
	t->known = known && isfinite(seconds) && isfinite(cost);
	if (t->known) {
		/* the simulated runs' mean where drawn, as for one run */
		double k = b->risk.known && seconds > 0 ? b->risk.days_mean * 86400 / seconds : 1;
		t->seconds = seconds * k;
		t->gpu_hours = gpu_hours * k;
		t->energy_kwh = energy * k;
		t->cost = cost * k;
		if (tb_bill_any(&b->bill_in))
			t->cost = tb_bill_compute(&b->bill_in, b->bill_in.price_per_gpu_hour, t->cost,
			                          t->seconds, NULL);
	}
	tb_time *tm = &b->time;
	if (tm->has_deadline)
		tm->meets_deadline = t->known && t->seconds <= tm->deadline_s;
	if (tm->has_budget)
		tm->within_budget = t->known && t->cost <= tm->budget;
}

bool tb_budget_compute_alone(const tb_budget *b, double *seconds, double *cost)
{
	*seconds = *cost = 0;
	if (b->n_stages <= 0) {
		*seconds = b->time.seconds[1];
		*cost = b->time.cost[1];
		return b->time.known;
	}
	for (int i = 0; i < b->n_stages; i++) {
		if (!b->stages[i].known)
			return false;
		*seconds += b->stages[i].compute_s;
		*cost += b->stages[i].compute_cost;
	}
	return true;
}

double tb_budget_memory_per_gpu(const tb_budget *b)
{
	return b->n_stages > 0 ? b->stages[b->stage_memory_max].memory_per_gpu_bytes
	                       : b->memory.per_gpu.total;
}
