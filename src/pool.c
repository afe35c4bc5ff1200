/* pool.c: independent pieces of work on the cores (pool.h): a sweep's
 * points, a comparison's proposals. */
#include "pool.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "trainbudget/plan.h"
#include "trainbudget/xalloc.h"
#include "thread.h"

typedef struct S_pool {
	size_t n, next, threads;
	void (*fn)(void *ctx, size_t k);
	void *ctx;
} S_pool;

static void *S_worker(void *arg)
{
	S_pool *p = arg;
	int was = p->threads > 1 ? tb_plan_set_jobs_here(1) : -1;
	for (size_t k = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED); k < p->n;
	     k = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED))
		p->fn(p->ctx, k);
	if (was >= 0)
		tb_plan_set_jobs_here(was);
	return NULL;
}

void tb_pool_for(size_t n, void (*fn)(void *ctx, size_t k), void *ctx)
{
	size_t t = (size_t)tb_plan_jobs();
	S_pool p = { n, 0, t < n ? t : n, fn, ctx };
	if (p.threads <= 1) {
		for (size_t k = 0; k < n; k++)
			fn(ctx, k);
		return;
	}
	pthread_t *th = tb_xcalloc(p.threads, sizeof *th);
	bool *started = tb_xcalloc(p.threads, sizeof *started);
	/* a thread that cannot start leaves its share to the others */
	for (size_t i = 1; i < p.threads; i++)
		started[i] = tb_thread_start(&th[i], S_worker, &p);
	S_worker(&p);
	for (size_t i = 1; i < p.threads; i++)
		if (started[i])
			pthread_join(th[i], NULL);
	free(started);
	free(th);
}
