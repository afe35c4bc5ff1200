/* plan_jobs.c: a layout search on the cores (plan_int.h).  Its pieces
 * are drawn from shared tickets; each job keeps lists of its own, merged
 * by the ranking's total order, so the result is the same whatever the
 * number of threads (docs/plan.md, Threads). */
#include "plan_int.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "thread.h"
#include "trainbudget/xalloc.h"

/* Threads a search uses: tb_plan_set_jobs's whatever the search's size,
 * else the process's cores for a search large enough to gain from them. */
static int S_jobs_wanted = 0;

void tb_plan_set_jobs(int n)
{
	__atomic_store_n(&S_jobs_wanted, n > 0 ? n : 0, __ATOMIC_RELAXED);
}

/* This thread's own limit (tb_plan_set_jobs_here): 0, none. */
static _Thread_local int S_jobs_here = 0;

int tb_plan_set_jobs_here(int n)
{
	int was = S_jobs_here;
	S_jobs_here = n > 0 ? n : 0;
	return was;
}

int tb_plan_jobs(void)
{
	if (S_jobs_here > 0)
		return S_jobs_here < TB_PLAN_JOBS_MAX ? S_jobs_here : TB_PLAN_JOBS_MAX;
	int n = __atomic_load_n(&S_jobs_wanted, __ATOMIC_RELAXED);
	if (n <= 0)
		n = tb_thread_cores();
	return n < TB_PLAN_JOBS_MAX ? n : TB_PLAN_JOBS_MAX;
}

/* One job: the tensor sizes it draws of every card, count and batch, into
 * a state of its own (its top list, bests and counts). */
typedef struct S_job {
	tb_plan_state st;
	tb_plan_result out;     /* the job's lists; the rest unused */
	tb_plan_counts k;
	int index;
	const tb_plan_card *cards;
	const int64_t *counts, *batches;
	int ncounts, nbatches;
	uint64_t *done;
	int *tickets;           /* one a card and batch, shared */
	double total;
	void (*beside)(void *ctx);  /* tb_plan_space.beside, first */
	void *beside_ctx;
	int finished;           /* tb_thread_done, the job's last act */
} S_job;

/* Every card and batch of the space into st and *k, as job `index` of
 * those sharing tickets[] and *done. */
static void S_walk_all(tb_plan_state *st, const tb_plan_card *cards, const int64_t *counts,
                       int ncounts, const int64_t *batches, int nbatches, tb_plan_counts *k,
                       double total, int index, int *tickets, uint64_t *done)
{
	int u = 0;
	for (int ci = 0; ci < st->out->n_gpus; ci++)
		for (int bi = 0; bi < nbatches; bi++, u++)
			tb_plan_search_batch(st, &cards[ci], counts, ncounts, batches[bi], k, total, index,
			                     &tickets[u], done);
}

static void *S_job_run(void *arg)
{
	S_job *j = arg;
	if (j->beside)
		j->beside(j->beside_ctx);
	S_walk_all(&j->st, j->cards, j->counts, j->ncounts, j->batches, j->nbatches, &j->k, j->total,
	           j->index, j->tickets, j->done);
	tb_thread_done(&j->finished);
	return NULL;
}

/* Below this many candidates a search is over before threads start. */
#define S_JOBS_MIN_SPACE 200000.0

/* The search over every card, count and batch, on the cores.  The jobs'
 * results merge into st and *k the same whatever their number: the top
 * list and the bests are taken by the ranking's total order, the counts
 * summed; a job prunes against its own lists, which only makes it time
 * more candidates, never keep others (docs/plan.md, Speed). */
void tb_plan_run_jobs(tb_plan_state *st, const tb_plan_card *cards, const int64_t *counts,
                      int ncounts, const int64_t *batches, int nbatches, double open,
                      tb_plan_counts *k)
{
	tb_plan_result *out = st->out;
	int n = __atomic_load_n(&S_jobs_wanted, __ATOMIC_RELAXED) > 0 || open >= S_JOBS_MIN_SPACE
	        ? tb_plan_jobs() : 1;
	uint64_t done = 0;
	int *tickets = tb_xcalloc((size_t)out->n_gpus * (size_t)nbatches, sizeof *tickets);
	/* the first job walks here, in this state and these lists, as a
	 * search of one job does; the others in states of their own (76 KB
	 * each, most of it never touched), merged into this one afterwards */
	int others = n - 1;
	/* a search for the best alone keeps no counts of what it prunes, so
	 * its jobs may prune against each other's finds: a job that starts
	 * late (after the caller's work) has bars at once */
	tb_plan_bars *shared = NULL;
	if (others > 0 && st->sp->best_only && st->top == 1) {
		shared = tb_xmalloc(sizeof *shared);
		tb_plan_bars_init(shared);
		st->shared = shared;
	}
	/* not zeroed: a job's bests and lists are read only where it has
	 * written them, and the pages of the 57 KB it never writes (the
	 * bests of the cards and counts not searched, the list past its
	 * first few) are then never touched */
	S_job *jobs = others > 0 ? tb_xmalloc((size_t)others * sizeof *jobs) : NULL;
	for (int j = 0; j < others; j++) {
		S_job *jb = &jobs[j];
		memcpy(&jb->st, st, offsetof(tb_plan_state, have_best));
		memset(jb->st.have_best, 0, sizeof jb->st.have_best);
		jb->st.shared = st->shared;
		jb->out.objective = out->objective;
		jb->out.n_gpus = out->n_gpus;
		jb->out.n_layouts = 0;
		jb->out.have_best_here = false;
		memset(&jb->k, 0, sizeof jb->k);
		jb->st.out = &jb->out;
		jb->st.ahead = 0;
		jb->beside = NULL;
		jb->beside_ctx = NULL;
		jb->finished = 0;
		jb->index = j + 1;
		jb->cards = cards;
		jb->counts = counts;
		jb->ncounts = ncounts;
		jb->batches = batches;
		jb->nbatches = nbatches;
		jb->done = &done;
		jb->tickets = tickets;
		jb->total = out->space;
	}
	if (others > 0) {
		jobs[0].beside = st->sp->beside;
		jobs[0].beside_ctx = st->sp->beside_ctx;
	}
	pthread_t *th = others > 0 ? tb_xcalloc((size_t)others, sizeof *th) : NULL;
	bool *started = others > 0 ? tb_xcalloc((size_t)others, sizeof *started) : NULL;
	for (int j = 0; j < others; j++)
		started[j] = tb_thread_start(&th[j], S_job_run, &jobs[j]);
	S_walk_all(st, cards, counts, ncounts, batches, nbatches, k, out->space, 0, tickets, &done);
	/* a job no thread could take is run here, after the first */
	for (int j = 0; j < others; j++) {
		if (started[j])
			tb_thread_join_later(th[j], &jobs[j].finished);
		else
			S_job_run(&jobs[j]);
	}
	st->shared = NULL;
	free(shared);
	for (int j = 0; j < others; j++) {
		const S_job *jb = &jobs[j];
		k->rules += jb->k.rules;
		k->batch += jb->k.batch;
		k->memory += jb->k.memory;
		k->feasible += jb->k.feasible;
		k->skipped += jb->k.skipped;
		st->ahead += jb->st.ahead;
		for (int i = 0; i < jb->out.n_layouts; i++)
			tb_plan_insert(st, &jb->out.layouts[i]);
		if (jb->out.have_best_here)
			tb_plan_note_here(st, &jb->out.best_here);
		for (int ci = 0; ci < TB_PLAN_GPUS_MAX; ci++)
			for (int ni = 0; ni < TB_PLAN_COUNTS_MAX; ni++)
				if (jb->st.have_best[ci][ni])
					tb_plan_note_best(st, ci, ni, &jb->st.best[ci][ni]);
	}
	free(started);
	free(th);
	free(jobs);
	free(tickets);
}
