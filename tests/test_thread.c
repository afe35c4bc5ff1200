/* test_thread.c: a worker started off its creator's CPU (thread.c) runs
 * its function with its argument and holds the process's whole CPU set
 * once running (it was created with the others only).  Where it first
 * runs is the scheduler's, measured by make bench, not pinned here. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <sched.h>

#include "thread.h"

typedef struct {
	int arg, cpu;
	cpu_set_t set;
	bool got;
} S_seen;

static void *S_look(void *p)
{
	S_seen *s = p;
	s->arg *= 2;
	s->cpu = sched_getcpu();
	s->got = pthread_getaffinity_np(pthread_self(), sizeof s->set, &s->set) == 0;
	return s;
}

Test(thread, starts_elsewhere_then_holds_every_cpu)
{
	cpu_set_t all;
	cr_assert(sched_getaffinity(0, sizeof all, &all) == 0);
	for (int i = 0; i < 20; i++) {
		S_seen s = { .arg = 21, .cpu = -1 };
		pthread_t th;
		cr_assert(tb_thread_start(&th, S_look, &s));
		void *ret = NULL;
		cr_assert(pthread_join(th, &ret) == 0);
		cr_expect(ret == &s && s.arg == 42);
		cr_expect(s.got && CPU_EQUAL(&s.set, &all), "the worker's CPUs are not the process's");
		cr_expect(s.cpu >= 0);
	}
}
