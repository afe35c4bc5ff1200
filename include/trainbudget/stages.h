/* stages.h: a run in stages (`stages:` in a scenario; scenario.h holds
 * their checked inputs).  Each stage is priced as the same scenario alone
 * would be: its own answer (layout), step time, memory and expected
 * figures.  The run is their sum: days, GPU-hours, energy and the compute
 * cost add up, the bill's rules (bill.h), the deadline and the budget are
 * the whole run's, and the confidence figures draw every stage with the
 * same MFU slice (the model's error is shared by the stages), so the
 * verdicts, "expected" and the percentiles all describe the whole run. */
#ifndef TB_STAGES_H
#define TB_STAGES_H

#include "trainbudget/budget.h"
#include "trainbudget/scenario.h"

/* Adds the stages of `defs` to b, a budget tb_budget_compute_answer made
 * from the whole run's inputs `in` (the scenario without its stages, on
 * their tokens together): b->stages, b->staged_total, and b->risk and the
 * verdicts' flags for the whole run.  n <= 0 does nothing. */
void tb_budget_compute_stages(const tb_inputs *in, const tb_stage_def *defs, int n,
                              tb_budget *b);

#endif
