/* test_thread.c: a worker started off its creator's CPU (thread.c) runs
 * its function with its argument and holds the process's whole CPU set
 * once running (it was created with the others only).  Where it first
 * runs is the scheduler's, measured by make bench, not pinned here. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <sched.h>
#include <time.h>

#include "thread.h"
#include "trainbudget/plan.h"

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

typedef struct {
	int value, done;
	unsigned sleep_ms;
} S_late;

static void *S_finish(void *p)
{
	S_late *s = p;
	if (s->sleep_ms) {
		struct timespec t = { 0, (long)s->sleep_ms * 1000000L };
		nanosleep(&t, NULL);
	}
	s->value = 42;
	tb_thread_done(&s->done);
	return NULL;
}

/* tb_thread_join_later: what the worker wrote before its last act is
 * there after it, whether the worker ends at once or after the watch
 * (50 ms, past 65,536 pauses), and more workers than the list of those
 * left to join at exit holds (40 of 32) are joined on the way. */
Test(thread, joined_soon_or_late)
{
	for (int late = 0; late < 2; late++)
		for (int i = 0; i < 40; i++) {
			S_late s = { 0, 0, late ? 50u : 0u };
			pthread_t th;
			cr_assert(tb_thread_start(&th, S_finish, &s));
			tb_thread_join_later(th, &s.done);
			cr_expect_eq(s.value, 42, "late %d", late);
			cr_expect_eq(s.done, 1);
			if (late)
				break;
		}
}

/* The cores a search takes are the process's to use, not the machine's:
 * pinned to one CPU (as taskset or a cpuset would), one.  The first read
 * is kept, so the pinning comes first (each test is a process of its own). */
Test(thread, cores_are_the_affinitys)
{
	cpu_set_t one;
	CPU_ZERO(&one);
	int here = sched_getcpu();
	cr_assert(here >= 0);
	CPU_SET(here, &one);
	cr_assert(sched_setaffinity(0, sizeof one, &one) == 0);
	cr_expect_eq(tb_thread_cores(), 1);
	tb_plan_set_jobs(0);
	cr_expect_eq(tb_plan_jobs(), 1);
}
