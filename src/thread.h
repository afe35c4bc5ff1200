/* thread.h: starting a worker thread on another core at once.
 *
 * Linux places a new thread on its creator's CPU and moves it to an idle
 * one at the next balancing tick (4 ms at 250 Hz), so a worker made for a
 * few milliseconds of work often starts when its share should have ended:
 * measured on this project's 2-core machine, 0.2-5 ms (mean about 2 ms)
 * from pthread_create to the worker's first instruction while the creator
 * computes, 0.05-0.3 ms when the worker is started off the creator's CPU
 * (docs/performance.md). */
#ifndef TB_THREAD_H
#define TB_THREAD_H

#include <pthread.h>
#include <stdbool.h>

/* The CPUs this process may run on: its affinity (taskset, a container's
 * cpuset), else, where that cannot be read, the CPUs online.  Read once:
 * sysconf's count of the CPUs online reads a file of /sys, 30-40 us on
 * its first call on the development machine against 1-5 us for the
 * affinity, and counts CPUs the process may not use. */
int tb_thread_cores(void);

/* pthread_create(th, NULL, fn, arg), the thread first allowed only the
 * CPUs other than the caller's (where there are others) and given back
 * the process's own set as soon as it runs.  False where no thread was
 * made; where the placement cannot be asked for, a plain thread. */
bool tb_thread_start(pthread_t *th, void *(*fn)(void *), void *arg);

/* For a worker whose last act is tb_thread_done(done) and which is
 * expected to end within some tens of microseconds: returns once that act
 * is seen, what the worker wrote before it then visible.  The caller
 * stays awake, watching the flag, for a bounded while (65,536 pauses,
 * one to a few milliseconds), then sleeps in pthread_join (woken some
 * 50 us after the worker has gone: the wake-up crosses CPUs).  The
 * worker's exit, 30 us more on the development machine, is not waited
 * for: the thread is joined at exit (atexit), or at a later call when 32
 * wait. */
void tb_thread_done(int *done);
void tb_thread_join_later(pthread_t th, int *done);

#endif
