/* thread.c: a worker started off its creator's CPU (thread.h). */
#define _GNU_SOURCE     /* CPU sets, sched_getcpu, pthread affinity */
#include "thread.h"

#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

/* helgrind sees no order in a flag, nor in pthread_tryjoin_np: told, where
 * its header is installed, that the worker's last act comes before what
 * its joiner reads.  Elsewhere nothing (the requests are a few no-op
 * instructions outside valgrind in any case). */
#if defined(__has_include)
#if __has_include(<valgrind/helgrind.h>)
#include <valgrind/helgrind.h>
#define S_BEFORE(p) ANNOTATE_HAPPENS_BEFORE(p)
#define S_AFTER(p) ANNOTATE_HAPPENS_AFTER(p)
#endif
#endif
#ifndef S_BEFORE
#define S_BEFORE(p) ((void)(p))
#define S_AFTER(p) ((void)(p))
#endif

int tb_thread_cores(void)
{
	static int cores;       /* 0 until read; any thread may read it first */
	int n = __atomic_load_n(&cores, __ATOMIC_RELAXED);
	if (n > 0)
		return n;
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0)
		n = CPU_COUNT(&set);
	if (n <= 0) {           /* more CPUs than a cpu_set_t holds */
		long c = sysconf(_SC_NPROCESSORS_ONLN);
		n = c > 0 ? (c < 1 << 20 ? (int)c : 1 << 20) : 1;
	}
	__atomic_store_n(&cores, n, __ATOMIC_RELAXED);
	return n;
}

typedef struct S_start {
	void *(*fn)(void *);
	void *arg;
	cpu_set_t all;          /* the process's CPUs, given back at once */
} S_start;

static void *S_trampoline(void *p)
{
	S_start s = *(S_start *)p;
	free(p);
	/* placed; from here the scheduler may move it anywhere again */
	(void)pthread_setaffinity_np(pthread_self(), sizeof s.all, &s.all);
	return s.fn(s.arg);
}

bool tb_thread_start(pthread_t *th, void *(*fn)(void *), void *arg)
{
	S_start *s = malloc(sizeof *s);
	int here = sched_getcpu();
	pthread_attr_t at;
	if (!s || here < 0 || sched_getaffinity(0, sizeof s->all, &s->all) != 0 ||
	    pthread_attr_init(&at) != 0) {
		free(s);
		return pthread_create(th, NULL, fn, arg) == 0;
	}
	s->fn = fn;
	s->arg = arg;
	cpu_set_t other = s->all;
	CPU_CLR(here, &other);
	bool placed = CPU_COUNT(&other) > 0 &&
	              pthread_attr_setaffinity_np(&at, sizeof other, &other) == 0;
	bool ok = pthread_create(th, placed ? &at : NULL, S_trampoline, s) == 0;
	/* a set the system refuses (a CPU gone offline since) */
	if (!ok && placed)
		ok = pthread_create(th, NULL, S_trampoline, s) == 0;
	pthread_attr_destroy(&at);
	if (!ok)
		free(s);
	return ok;
}

/* A short wait that leaves the core to its other hyperthread, often the
 * thread waited for. */
static void S_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

void tb_thread_done(int *done)
{
	S_BEFORE(done);
	/* read-modify-writes at both ends: what helgrind takes as atomic */
	__atomic_fetch_or(done, 1, __ATOMIC_RELEASE);
}

/* Workers seen done and not yet joined: joined at exit, or here when the
 * list is full. */
static pthread_mutex_t S_later_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t S_later[32];
static int S_nlater;
static bool S_at_exit;

static void S_join_all(void)
{
	for (int i = 0; i < S_nlater; i++)
		pthread_join(S_later[i], NULL);
	S_nlater = 0;
}

static void S_join_at_exit(void)
{
	pthread_mutex_lock(&S_later_lock);
	S_join_all();
	pthread_mutex_unlock(&S_later_lock);
}

void tb_thread_join_later(pthread_t th, int *done)
{
	int i = 0;
	while (i < 1 << 16 && !__atomic_fetch_or(done, 0, __ATOMIC_ACQUIRE)) {
		S_pause();
		i++;
	}
	if (i == 1 << 16) {
		pthread_join(th, NULL);
		return;
	}
	S_AFTER(done);
	pthread_mutex_lock(&S_later_lock);
	if (!S_at_exit)
		S_at_exit = atexit(S_join_at_exit) == 0;
	if (!S_at_exit) {
		pthread_mutex_unlock(&S_later_lock);
		pthread_join(th, NULL);
		return;
	}
	if (S_nlater == (int)(sizeof S_later / sizeof *S_later))
		S_join_all();
	S_later[S_nlater++] = th;
	pthread_mutex_unlock(&S_later_lock);
}
