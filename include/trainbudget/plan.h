/* plan.h: the layout search behind `trainbudget plan`.
 *
 * For the scenario's model, batch and hardware (or a range of GPU counts,
 * cards and global batches), enumerates every parallel layout: tensor,
 * pipeline, virtual pipeline, context, expert and data sizes, ZeRO stage,
 * activation checkpointing, sequence parallelism and the micro-batch.  A
 * candidate that Megatron-LM, DeepSpeed or PyTorch FSDP could not run is
 * pruned by the rules of docs/plan.md, one that breaks the batch rule or
 * does not fit in memory (the memory model of memory.c: the busiest stage,
 * with the overhead) next, and the rest are timed by the step-time model
 * (perf.h) and ranked.
 *
 * Every figure of a layout is the one tb_budget_compute gives for the
 * scenario set to that layout (tested): the search calls the same
 * functions, with what depends only on the model hoisted out of the loop
 * and one layer's time computed once per shape.
 *
 * Pure: no I/O, no allocation, no global state.  Deterministic: the
 * ranking is a total order (below), so the result does not depend on the
 * order in which candidates are met. */
#ifndef TB_PLAN_H
#define TB_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "trainbudget/inputs.h"
#include "trainbudget/perf.h"

#define TB_PLAN_TOP_MAX 50      /* layouts a result keeps */
#define TB_PLAN_GPUS_MAX 8      /* cards one search compares */
#define TB_PLAN_COUNTS_MAX 24   /* GPU counts, and global batches, one search tries */
#define TB_PLAN_FRONT_MAX 32    /* points of the days-against-cost front */
#define TB_PLAN_JOBS_MAX 256    /* threads one search uses */
#define TB_PLAN_VIRTUAL_MAX 8   /* default bound on the virtual stages per rank */
/* The most candidates one search takes on: at the search's slowest measured
 * rate (about 0.5 billion a second on one core) some ten seconds.  A space
 * past it is refused before anything is enumerated, the bound named: 83,160
 * experts on 73.5M GPUs once spent 217 s inside an estimate. */
#define TB_PLAN_CANDIDATES_MAX 4e9

typedef enum { TB_PLAN_BY_TIME, TB_PLAN_BY_COST } tb_plan_objective;

/* One card the search may use, at its price per GPU-hour. */
typedef struct tb_plan_gpu {
	tb_gpu gpu;
	double price_per_gpu_hour;
	bool price_given;       /* false: the scenario's price was applied */
	/* a result's: the fp8 recipe this card was priced with (the
	 * scenario's, or the one the card runs: tb_gpus_fp8_recipe) */
	tb_fp8_recipe fp8_recipe;
} tb_plan_gpu;

/* What to search.  Zeroed fields mean "the scenario's". */
typedef struct tb_plan_space {
	int n_gpus;             /* 0: the scenario's card at its price */
	tb_plan_gpu gpus[TB_PLAN_GPUS_MAX];
	int n_counts;           /* 0: the scenario's GPU count */
	int64_t counts[TB_PLAN_COUNTS_MAX];
	int n_batches;          /* 0: the scenario's global batch */
	int64_t batches[TB_PLAN_COUNTS_MAX];
	tb_plan_objective objective;
	int top;                /* layouts to keep, 1..TB_PLAN_TOP_MAX; 0: 10 */
	bool tensor_across_nodes;   /* allow tensor parallelism beyond one node */
	int64_t max_virtual;    /* bound on the virtual stages; 0: TB_PLAN_VIRTUAL_MAX */
	/* What the framework offers, to narrow the space (the validation holds
	 * each published run to its framework's year).  Zero: everything. */
	unsigned zero_stages;   /* bit z set: ZeRO stage z offered */
	unsigned checkpointing_modes;   /* bit (1 << mode) set: that mode offered */
	bool no_sequence_parallel, no_context_parallel;
	int64_t max_tensor, max_pipeline;
	/* Keys held at a value (the answer's search within what a scenario
	 * wrote, answer.h): each TB_LAYOUT_* bit of `fix` holds its field
	 * below; a candidate with another value breaks a rule (and is counted
	 * so, so the counts still add up to the space). */
	unsigned fix;
	int64_t fix_tensor, fix_pipeline, fix_virtual, fix_context, fix_expert, fix_micro_batch;
	int fix_zero;
	bool fix_sequence_parallel;
	tb_checkpointing fix_checkpointing;
	/* For the validation harness only: every field of the perf input but
	 * the layout's is taken from here (a run's node, its framework's
	 * overlap behaviour) instead of from the scenario.  NULL normally. */
	const tb_perf_input *perf_base;
	/* Called now and then with the candidates counted so far and the
	 * space's size, for a progress line on a terminal; NULL: not called.
	 * What it does cannot change the result. */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
	/* Only the best layout and the scenario's own row are read (a text
	 * estimate prints nothing else): the list holds one, the scenario's
	 * rank is not counted (scenario_rank 0), and a layer shape the bound
	 * rules out is skipped rather than counted (counted false).  The best
	 * layout and the scenario's row are the same, bit for bit. */
	bool best_only;
	/* The caller's own work, run on the search's second thread before
	 * that thread takes its share of the candidates: the shares are
	 * taken as they come, so the search balances around it, and the
	 * cores run two threads rather than three.  Called at most once, and
	 * not by a search without a second thread (the caller's context says
	 * whether it ran).  It must touch nothing the search reads or
	 * writes.  NULL: none. */
	void (*beside)(void *ctx);
	void *beside_ctx;
} tb_plan_space;

/* A layout and what it gives.  The first block names the layout (the JSON
 * keys of plan.layouts[]); the figures are the budget's for it. */
typedef struct tb_plan_layout {
	int64_t tensor, pipeline, virtual_pipeline, context, expert, data;
	int zero;
	tb_checkpointing checkpointing;
	/* under full checkpointing, the layers of each chunk recomputed (the
	 * scenario's training.recompute_layers); 0: every layer */
	int64_t recompute_layers;
	/* under selective checkpointing, what it recomputes (the scenario's
	 * training.selective_policy) */
	tb_selective selective_policy;
	bool sequence_parallel;
	int64_t micro_batch, global_batch;
	int gpu;                /* index into tb_plan_result.gpus */
	int64_t count;          /* GPUs */

	double step_s, mfu;
	double memory_per_gpu_bytes, capacity_bytes;
	double seconds, cost;   /* the run at this step time, as time.seconds[1] and time.cost[1] */
	int64_t microbatches;
	double bubble_fraction;
	double breakdown_s[TB_PERF_TERMS];
} tb_plan_layout;

typedef struct tb_plan_result {
	bool known;             /* false: why (static) says why nothing was searched */
	const char *why;
	tb_plan_objective objective;
	bool hardware_searched; /* more than one card or GPU count */

	/* Every candidate in the space (docs/plan.md), and where it stopped:
	 * searched = pruned_rules + pruned_batch + pruned_memory + feasible.
	 * Rules prune whole branches at once; each candidate of a branch is
	 * counted. */
	uint64_t searched, pruned_rules, pruned_batch, pruned_memory, feasible;
	/* false: the four counts above were not made (tb_plan_space.best_only
	 * skipped candidates); searched is the space all the same */
	bool counted;
	/* The verdict's basis (issue 19): the seconds and costs of every
	 * layout here are the model's relative step times anchored on the
	 * verdict's own time for the priced layout, i.e. multiplied by
	 * basis_scale = the verdict's seconds / (steps x the model's step for
	 * it); 1 when the verdict's MFU is the model's.  Set by
	 * tb_budget_compute_plan; the MFU of each row stays the model's. */
	double basis_scale;
	/* The space's size, counted before the search from the divisors alone
	 * (equal to searched once it ran); above TB_PLAN_CANDIDATES_MAX
	 * nothing is searched and why says so. */
	double space;

	int n_gpus;
	tb_plan_gpu gpus[TB_PLAN_GPUS_MAX];

	int n_layouts;          /* the best, in ranking order */
	tb_plan_layout layouts[TB_PLAN_TOP_MAX];

	/* The scenario's own layout, on its card and count: always evaluated
	 * (even when the rules would not generate it); ranked among the
	 * feasible candidates when it fits itself. */
	tb_plan_gpu scenario_gpu;   /* its card and price (layout.gpu is -1 when not searched) */
	bool scenario_known;    /* the step-time model timed it */
	const char *scenario_why; /* where it did not, the model's reason (static) */
	bool scenario_fits;
	tb_plan_layout scenario;
	uint64_t scenario_rank; /* 1 = the best; 0 = not ranked (it does not fit or was not timed) */
	/* The best layout on the scenario's own card, count and global batch
	 * (the first of layouts[] unless the hardware or the batch was
	 * searched): what the scenario's layout is explained against. */
	bool have_best_here;
	tb_plan_layout best_here;

	/* When hardware is searched: the fastest layout of each card and count
	 * that no other beats on both days and cost, by days ascending. */
	int n_front;
	tb_plan_layout front[TB_PLAN_FRONT_MAX];
} tb_plan_result;

/* The candidates a search of one card over counts[] and batches[] meets,
 * from the divisors alone: 24 x virtual stages x d(experts) x d(batch) x
 * the ordered ways to split the count into tensor x context x pipeline x
 * data.  Cheap (a factorisation per number); a double, so never wraps. */
double tb_plan_space_size(const tb_inputs *in, const tb_plan_space *sp);

/* Whether global batch B takes at most the run's tokens in one step, so
 * the run has at least one optimizer step (the batch rule, docs/plan.md). */
bool tb_plan_batch_ok(const tb_inputs *in, int64_t B);

/* Searches the space for checked inputs (a scenario's).  sp = NULL: the
 * scenario's card, count and batch, by time, the top 10.  Writes only *out. */
void tb_plan_search(const tb_inputs *in, const tb_plan_space *sp, tb_plan_result *out);

/* Threads a search uses (--jobs): n for every search; with n 0 (the
 * default) the CPUs the process may use (its affinity) for a search of
 * 200,000 candidates or more, one below.  The result is the same, bit for bit, whatever the number.
 * A sweep runs its points and a comparison its proposals on as many
 * (pool.c).  tb_plan_set_jobs_here sets this thread's own number, which
 * tb_plan_jobs then gives (0: none), and returns the one it had: a
 * sweep's points, already on the cores, search on one each. */
void tb_plan_set_jobs(int n);
int tb_plan_set_jobs_here(int n);
int tb_plan_jobs(void);

/* The ranking: negative when a comes first.  By the objective (seconds or
 * cost), then the other one, then memory per GPU (more headroom first),
 * then fewer GPUs, then the simpler layout (smaller tensor, pipeline,
 * virtual, context, expert sizes and ZeRO stage, less checkpointing,
 * sequence parallelism on), then the larger micro-batch, the smaller
 * global batch and the card's position in the list.  Two different
 * layouts never compare equal. */
int tb_plan_compare(const tb_plan_layout *a, const tb_plan_layout *b, tb_plan_objective obj);

/* How far the scenario's own layout is behind the best one, by the
 * objective: its seconds (or cost) over the best's, minus 1; *gain gets it
 * (0 when it cannot be said).  True when that is more than
 * TB_PLAN_WITHIN, or when the scenario's layout does not fit (or cannot be
 * timed) while some layout does: the report's "Better layouts" section
 * and estimate's line. */
#define TB_PLAN_WITHIN 0.05
bool tb_plan_better(const tb_plan_result *r, double *gain);

/* The layout the scenario's is best compared with, term by term: the best
 * on its own card, count and batch when there is one, else the best. */
const tb_plan_layout *tb_plan_rival(const tb_plan_result *r);

/* Whether two ranked layouts cost the same: the same card, count and
 * global batch, step and memory per GPU.  A table shows them as one row
 * that lists the variants (issue 19: CP 1 with DP 64 and micro-batch 2
 * beside CP 2 with DP 32 and micro-batch 4, twice). */
bool tb_plan_same_cost(const tb_plan_layout *a, const tb_plan_layout *b);

/* The end of the run of layouts[i..] that cost the same as layouts[i]
 * (at most n): one table row; its label ("1" or "1-2") into lab. */
int tb_plan_same_cost_run(const tb_plan_result *r, int i, int n, char *lab, size_t cap);

/* Whether layout l runs the scenario's parallelism (its card and count
 * aside). */
bool tb_plan_same_layout(const tb_plan_layout *a, const tb_plan_layout *b);

/* Why layout a (named a_name: "the best layout") beats b (b_name: "the
 * scenario's layout"), in sentences written into dst (at most cap bytes,
 * always terminated): each difference of layout with the step-time terms
 * it moves and their shares of the step before and after, the memory it
 * frees, then any other term that moved by two points or more.  Terms that
 * did not move are not named.  Returns the length written (plan_explain.c). */
size_t tb_plan_explain(const tb_plan_result *r, const tb_plan_layout *a, const char *a_name,
                       const tb_plan_layout *b, const char *b_name, char *dst, size_t cap);

/* The scenario's layout explained against tb_plan_rival ("The best
 * layout" or, when the hardware or the batch was searched, "The best
 * layout on the same GPUs"); 0 and "" when either was not timed or they
 * are the same layout. */
size_t tb_plan_explain_scenario(const tb_plan_result *r, char *dst, size_t cap);

/* The best layout explained against the runner-up; 0 and "" when there
 * is none. */
size_t tb_plan_explain_runner_up(const tb_plan_result *r, char *dst, size_t cap);

/* What every document of a search says when the best layout uses ZeRO-3
 * (how its collectives are charged, and how far the published ZeRO-3 runs
 * fell short); NULL otherwise.  Static. */
const char *tb_plan_caveat(const tb_plan_result *r);

/* A layout in words, into dst (at most cap bytes, always terminated):
 * "TP 8 with SP, PP 16 (2 virtual), CP 2, EP 4, DP 64, ZeRO-1,
 * micro-batch 2, full recomputation"; sizes of 1 are left out
 * (plan_explain.c). */
size_t tb_plan_layout_text(const tb_plan_layout *l, char *dst, size_t cap);

/* When tb_plan_better holds: "40% faster: TP 8, PP 16, ... (trainbudget
 * plan)" (or "cheaper"), or "that fits: ..." when the scenario's layout
 * does not, into dst (at most cap bytes); returns 0 and leaves ""
 * otherwise.  estimate prints it after "the search finds one". */
size_t tb_plan_better_text(const tb_plan_result *r, char *dst, size_t cap);

/* "full recomputation", "selective recomputation", "no recomputation". */
const char *tb_plan_checkpointing_words(tb_checkpointing c);

#endif
