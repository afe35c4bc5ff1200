/* plan_int.h: what the layout search's two files share (plan.c: the
 * rules, the ranking, the jobs and the entry points; plan_walk.c: the
 * loops over one card and batch).  Not installed; no API. */
#ifndef TB_PLAN_INT_H
#define TB_PLAN_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "trainbudget/plan.h"
#include "trainbudget/perf.h"

#include "calc.h"

#define TB_PLAN_DIVS_MAX 1024   /* divisors of a number below 2^31: at most 1,600 for 1e9; 768 below 1e8 */
#define TB_PLAN_ACT_MEMO 64
#define TB_PLAN_PM_SLOTS 64
#define TB_PLAN_ACT_V 65        /* virtual splits whose activations are kept */

/* One layer's activations at micro-batch 1 for a (tensor, sequence
 * parallelism), under the three checkpointing modes: memory.c's inventory. */
typedef struct tb_plan_act {
	int64_t t;
	bool sp;
	double b1[3];
} tb_plan_act;

typedef struct tb_plan_card {
	const tb_plan_gpu *g;
	int index;
	tb_inputs in;           /* the scenario on this card */
	tb_perf_input base;     /* its perf input; the layout fields are set per candidate */
	double peak_flops, total_model_flops;
	bool time_known;
	int64_t gpn;            /* GPUs per node, for the tensor rule */
	/* the memory model on this card: Transformer Engine's fp8 weight
	 * copies depend on it (memory.c) */
	tb_mem_model mm;
} tb_plan_card;

/* What the jobs of a search for the best alone have found so far, each
 * bar the objective (or, per card and count, the seconds) of a layout one
 * of them holds, as the bits of a non-negative double (which order as the
 * numbers do); +inf until one is found.  A candidate past a bar cannot be
 * the best the merge keeps, whichever job holds the layout (plan_jobs.c). */
typedef struct tb_plan_bars {
	uint64_t top, here;
	uint64_t best[TB_PLAN_GPUS_MAX][TB_PLAN_COUNTS_MAX];
} tb_plan_bars;

typedef struct tb_plan_state {
	const tb_inputs *in;
	const tb_plan_space *sp;
	tb_plan_result *out;
	int top;
	int64_t vmax;
	tb_arch arch;
	int n_act;
	tb_plan_act act[TB_PLAN_ACT_MEMO];
	/* the scenario's layout, to count what beats it */
	int own_card;
	bool rank_it;
	tb_plan_layout scenario;
	uint64_t ahead;
	/* the fastest layout of each card and count, for the front */
	bool have_best[TB_PLAN_GPUS_MAX][TB_PLAN_COUNTS_MAX];
	tb_plan_layout best[TB_PLAN_GPUS_MAX][TB_PLAN_COUNTS_MAX];
	/* the bars every job of a threaded search for the best alone shares;
	 * NULL otherwise (a job then prunes against its own lists) */
	tb_plan_bars *shared;
} tb_plan_state;

/* memory.c's per-GPU total for a layout, term for term, in three parts:
 * what a pipeline fixes, what the ZeRO stage adds, what the virtual
 * stages and the micro-batch add (a search varies them innermost). */
typedef struct tb_plan_mem {
	tb_mem_fit c;
	tb_mem_share share[3];  /* the first, a middle and the last stage's parameters */
	double dd, de;          /* replicas the dense and the expert states are sharded over */
} tb_plan_mem;

/* What a (context, expert, pipeline, data) under one tensor size fixes of
 * the memory, whatever the sequence parallelism and checkpointing the
 * loops around it vary: the stages' parameter shares and their states
 * under each ZeRO stage.  A search meets each such tuple 6 times, 3 of
 * them in a row (the checkpointing modes of one context and expert), so a
 * small table emptied when full keeps what is asked again (64 tuples:
 * a larger one saved no time, its pages faulted in for each job). */
typedef struct tb_plan_pm {
	unsigned gen;           /* the table's fill it was made in; else empty */
	int64_t c, e, p, d;
	bool have_share;
	unsigned have_zero;     /* bit z: states[z] holds ZeRO stage z's */
	tb_mem_share share[3];
	int64_t split[3];
	double mtp[3];
	double states[4][3];
} tb_plan_pm;

typedef struct tb_plan_pmemo {
	tb_plan_pm slot[TB_PLAN_PM_SLOTS];
	int used;
	unsigned gen;           /* slots of another generation are empty */
} tb_plan_pmemo;

/* skipped: candidates neither counted nor timed (tb_plan_space.best_only) */
typedef struct tb_plan_counts {
	uint64_t rules, batch, memory, feasible, skipped;
} tb_plan_counts;

/* plan.c: divisors and splits */
int tb_plan_divisors(int64_t n, int64_t *out, int max);
int tb_plan_index_of(const int64_t *ds, int n, int64_t d);
int tb_plan_ndivisors(int64_t n);
double tb_plan_splits(int64_t n, int parts);
/* plan.c: a layout's memory in three parts (what a pipeline fixes, what
 * a ZeRO stage adds, what the virtual stages and micro-batch add) */
tb_plan_pm *tb_plan_pm_get(tb_plan_pmemo *m, int64_t c, int64_t e, int64_t p, int64_t d);
void tb_plan_mem_init(tb_plan_state *st, const tb_mem_model *mm, const tb_plan_layout *l,
                      tb_plan_mem *a, tb_plan_pm *pm);
void tb_plan_mem_zero(tb_plan_state *st, const tb_mem_model *mm, tb_plan_mem *a, int zero,
                      tb_plan_pm *pm);
double tb_plan_mem_total(tb_plan_mem *a, int64_t v, int64_t micro_batch);
/* plan.c: a layout's perf input and figures; the lists a result keeps */
void tb_plan_perf_in(const tb_plan_card *cd, const tb_plan_layout *l, tb_perf_input *pi);
/* The layout's fields of a perf input alone: a perf input made from the
 * card's base by tb_plan_perf_in, given another layout's fields, is that
 * layout's (a walk copies the 592-byte base once, not once a pipeline). */
void tb_plan_perf_fields(const tb_plan_layout *l, tb_perf_input *pi);
void tb_plan_figures(const tb_plan_card *cd, const tb_perf_result *r, tb_plan_layout *l);
void tb_plan_keep(tb_plan_state *st, const tb_plan_layout *l);
void tb_plan_note_best(tb_plan_state *st, int ci, int ni, const tb_plan_layout *l);
void tb_plan_note_here(tb_plan_state *st, const tb_plan_layout *l);
bool tb_plan_may_place(const tb_plan_state *st, int ci, int ni, bool here, double obj_floor,
                        double sec_floor);
bool tb_plan_may_list(const tb_plan_state *st, int ci, int ni, bool here, double obj_floor,
                      double sec_floor);
bool tb_plan_surely_ahead(const tb_plan_state *st, double obj_ceiling);
/* plan.c: the tensor and context rules */
bool tb_plan_tensor_ok(const tb_plan_state *st, const tb_plan_card *cd, int64_t t);
bool tb_plan_context_ok(const tb_plan_state *st, int64_t t, int64_t c);
/* plan_walk.c: one card and batch, every count; of its (tensor, sequence
 * parallelism, checkpointing) triples, those whose tickets this job draws
 * from *ticket; *done counts candidates for the progress line */
/* plan.c: l into the top list alone (tb_plan_keep also counts it against
 * the scenario's row) */
void tb_plan_insert(tb_plan_state *st, const tb_plan_layout *l);
void tb_plan_bars_init(tb_plan_bars *b);
/* plan_jobs.c: every card, count and batch of the search into st and *k,
 * on the cores where `open`, the candidates it times at most, is worth
 * them (or --jobs says); tb_plan_space.beside on the second thread */
void tb_plan_run_jobs(tb_plan_state *st, const tb_plan_card *cards, const int64_t *counts,
                      int ncounts, const int64_t *batches, int nbatches, double open,
                      tb_plan_counts *k);
void tb_plan_search_batch(tb_plan_state *st, const tb_plan_card *cd, const int64_t *counts, int ncounts,
                           int64_t B, tb_plan_counts *k, double total, int job, int *ticket,
                           uint64_t *done);

#endif
