/* budget.c: the orchestrator.  Runs the calculator steps of calc.h in
 * order on a zeroed budget.  The derivation and warning lists the steps
 * fill live in deriv.c, so a calculator never needs this file.
 *
 * Everything here must stay allocation-free and cheap: a planner may call
 * tb_budget_compute a million times in a sweep. */
#include "calc.h"

#include <stddef.h>
#include <string.h>

void tb_budget_clear(tb_budget *out)
{
	/* The derivation and warning arrays are most of the struct (about
	 * 27 KB) and are only read up to their counts, so zeroing them would
	 * cost more than the calculators themselves.  The steps from perf
	 * on clear their own parts (tb_time, the fixed part of tb_chinchilla)
	 * and write every plan and lever row whole, so only params, flops and
	 * memory are cleared here. */
	memset(out, 0, offsetof(tb_budget, perf));
	out->n_derivs = 0;
	out->n_warnings = 0;
	/* the search is tb_budget_compute_plan's; clearing its 25 KB here
	 * would cost more than the calculators */
	out->plan.known = false;
	out->plan.why = "";
	out->plan.n_layouts = 0;
	out->plan.n_front = 0;
	out->plan_from_answer = false;
	out->answer.decided = false;
	/* the stages are tb_budget_compute_stages' (stages.h) */
	out->n_stages = 0;
}

void tb_budget_compute(const tb_inputs *in, tb_budget *out)
{
	tb_budget_clear(out);
	tb_params_compute(in, out);
	tb_flops_compute(in, out);
	tb_memory_compute(in, out);
	tb_perf_budget_compute(in, out);
	tb_timecost_compute(in, out);
	tb_goodput_step(in, out);
	tb_scaling_compute(in, out);
}
