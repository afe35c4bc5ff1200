/* validate_plan.h: the layout search's section of validation.md
 * (validate_plan.c), for validate_perf.c's main. */
#ifndef TB_VALIDATE_PLAN_H
#define TB_VALIDATE_PLAN_H

#include <stdio.h>

/* Appends the section to f, over the cases of validate_runs.h once
 * built. */
void tb_vplan_write(FILE *f);

#endif
