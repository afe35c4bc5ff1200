/* pool.h: independent pieces of work on the cores (pool.c). */
#ifndef TB_POOL_H
#define TB_POOL_H

#include <stddef.h>

/* Runs fn(ctx, k) once for every k in [0, n), on as many threads as a
 * layout search may use (tb_plan_jobs: --jobs, else the CPUs the process may use), at
 * most n, drawing the k from a shared counter; returns when all are done.
 * fn must write only what belongs to its k: the caller merges in k's
 * order afterwards, so the result does not depend on the threads.  With
 * more than one thread each one's own searches run on it alone
 * (tb_plan_set_jobs_here): the pieces are what the cores share. */
void tb_pool_for(size_t n, void (*fn)(void *ctx, size_t k), void *ctx);

#endif
