/* thread.c: a worker started off its creator's CPU (thread.h). */
#define _GNU_SOURCE     /* CPU sets, sched_getcpu, pthread affinity */
#include "thread.h"

#include <sched.h>
#include <stdlib.h>

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
