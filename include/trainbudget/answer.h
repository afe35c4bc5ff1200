/* answer.h: the one answer a document signs.
 *
 * A scenario fixes the layout keys it writes and leaves the others to the
 * tool: tb_answer_decide chooses them with the layout search (plan.h),
 * within the written ones, and says which were chosen and why.  When what
 * was written cannot run (memory, or a rule no framework runs), the answer
 * is the best layout that runs with the fewest written keys changed:
 * first the memory savers (ZeRO stage, checkpointing, micro-batch) are
 * freed, then every key; the written layout is kept beside it, with why it
 * does not run.  When nothing runs on these GPUs, the answer says so and
 * nothing is priced.
 *
 * Every document reads this one decision: estimate, report and plan price
 * the inputs it returns, so a figure cannot differ between two places that
 * name it.  Pure: no I/O, no allocation. */
#ifndef TB_ANSWER_H
#define TB_ANSWER_H

#include <stdbool.h>
#include "trainbudget/inputs.h"
#include "trainbudget/plan.h"

typedef enum {
	TB_LAYOUT_WRITTEN,      /* every key written, and it runs */
	TB_LAYOUT_COMPLETED,    /* some keys written, the rest chosen */
	TB_LAYOUT_CHOSEN,       /* no key written: all chosen */
	TB_LAYOUT_REPLACED      /* what was written cannot run: replaced */
} tb_layout_source;

typedef struct tb_answer {
	bool decided;           /* false: the inputs are priced as written (no search) */
	tb_layout_source source;
	unsigned chosen;        /* TB_LAYOUT_* bits the search set (expert
	                         * only for a mixture: a dense model has no
	                         * choice there) */
	bool wrote;             /* the scenario wrote some layout key */
	bool runs;              /* the priced layout fits and can be timed */
	char why_not[240];      /* !runs: why nothing runs, and what would */
	tb_plan_layout layout;  /* the layout priced (its figures the search's) */
	/* The layout as written (with the loader's defaults for the keys left
	 * out), whether it runs and why not. */
	tb_plan_layout written;
	bool written_runs;
	char written_why_not[240];
	/* When what was written cannot run: the cheapest single changes that
	 * make it run, each with what it costs in step time ("ZeRO-2 fits, the
	 * same step; full recomputation fits, +33% step"); "" otherwise. */
	char hints[240];
	/* parallelism.pipeline_layout as written, which every layout the
	 * search offers keeps; "" for the even split. */
	char pipeline_layout[TB_PIPE_TEXT_MAX];
	/* Seconds per optimizer step the priced time implies (the time over
	 * the run's steps); 0 when nothing is priced.  Set by the budget step
	 * (tb_budget_price_answer), which prices the answer. */
	double step_s;
} tb_answer;

/* Decides the layout for checked inputs (a scenario's): *priced gets in
 * with the layout the answer prices (every other field unchanged).  A
 * model with only a parameter count cannot be searched: the inputs are
 * priced as written (decided false). */
void tb_answer_decide(const tb_inputs *in, tb_answer *a, tb_inputs *priced);

/* "written", "completed", "chosen", "replaced": JSON's answer.layout_source. */
const char *tb_layout_source_name(tb_layout_source s);

/* The JSON name of layout key bit (TB_LAYOUT_TENSOR: "tensor", ...,
 * TB_LAYOUT_MICRO_BATCH: "micro_batch"); NULL for anything else. */
const char *tb_layout_key_name(unsigned bit);

/* The keys the search set, in the scenario's names and order, into dst
 * (at most cap bytes, always terminated): "virtual_pipeline, expert".
 * Returns the length. */
size_t tb_answer_chosen_keys(const tb_answer *a, char *dst, size_t cap);

/* The line a reviewer reads before the figures, into dst (at most cap
 * bytes, always terminated): "Layout chosen by the search (nothing
 * written): TP 1, DP 64, ZeRO-2, micro-batch 2, no recomputation", or
 * "Cannot run as written: 141 GB of 85.5 GB per GPU; priced instead on
 * ...".  Returns the length. */
size_t tb_answer_text(const tb_answer *a, char *dst, size_t cap);

#endif
