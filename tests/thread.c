/*
 * thread.c - tests of kernel threads: placement on the requested CPU,
 * exit codes through thread_join, many threads at once, join waiting
 * for a thread that is still running, and join's error cases.
 */
#include "ktest.h"
#include "helpers.h"
#include "cpu.h"
#include "sched.h"
#include "timer.h"

struct placed {
	int want_cpu;
	volatile int ran_on;
	volatile int stayed;	/* still there after a few yields */
};

static void placed_thread(void *arg)
{
	struct placed *p = arg;

	p->ran_on = smp_processor_id();
	p->stayed = 1;
	for (int i = 0; i < 5; i++) {
		yield();
		if (smp_processor_id() != p->want_cpu)
			p->stayed = 0;
	}
	thread_exit(100 + p->want_cpu);
}

/* A thread created for CPU c runs on c (and, pinned, stays there), and
 * its exit code comes back through thread_join. */
static void runs_on_requested_cpu(struct ktest *t)
{
	static struct placed p[NR_CPUS];
	static struct task *th[NR_CPUS];

	for (int c = 0; c < ncpus; c++) {
		th[c] = NULL;
		if (!cpu_by_id(c)->online)
			continue;
		p[c].want_cpu = c;
		p[c].ran_on = -1;
		p[c].stayed = 0;
		th[c] = thread_create("thread-placed", placed_thread, &p[c], c);
		KEXPECT(t, th[c] != NULL);
	}
	for (int c = 0; c < ncpus; c++) {
		if (!th[c])
			continue;
		KEXPECT_EQ(t, thread_join(th[c]), 100 + c);
		KEXPECT_EQ(t, p[c].ran_on, c);
		KEXPECT_EQ(t, p[c].stayed, 1);
	}
}

/* 64 threads alive at once (scheduler's choice of CPU), each exits with
 * its own code; every one runs exactly once and is joined. */
#define MANY 64

static int many_ran[MANY];

static void many_thread(void *arg)
{
	int i = (int)(uintptr_t)arg;

	__atomic_add_fetch(&many_ran[i], 1, __ATOMIC_RELAXED);
	yield();
	thread_exit(i * 3 + 1);
}

static void many_threads_create_join(struct ktest *t)
{
	static struct task *th[MANY];

	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < MANY; i++) {
			many_ran[i] = 0;
			th[i] = thread_create("thread-many", many_thread,
					      (void *)(uintptr_t)i, -1);
			KASSERT(t, th[i] != NULL);
		}
		/* Join in reverse order: join must work whether or not the
		 * thread has exited yet. */
		for (int i = MANY - 1; i >= 0; i--)
			KEXPECT_EQ(t, thread_join(th[i]), i * 3 + 1);
		for (int i = 0; i < MANY; i++)
			KEXPECT_EQ(t, many_ran[i], 1);
	}
}

static void returning_thread(void *arg)
{
	*(volatile int *)arg = 1;
	/* returns: same as thread_exit(0) */
}

static void return_from_fn_is_exit_zero(struct ktest *t)
{
	volatile int ran = 0;

	for (int c = 0; c < ncpus; c++) {
		struct task *th;

		if (!cpu_by_id(c)->online)
			continue;
		ran = 0;
		th = thread_create("thread-return", returning_thread,
				   (void *)&ran, c);
		KASSERT(t, th != NULL);
		KEXPECT_EQ(t, thread_join(th), 0);
		KEXPECT_EQ(t, ran, 1);
	}
}

/* The joiner must sleep until the thread really exits, also when the
 * thread is on another CPU and exits much later. */
struct slow {
	volatile int finished;
};

static void slow_thread(void *arg)
{
	struct slow *s = arg;

	sleep_ns(20 * NSEC_PER_MSEC);
	s->finished = 1;
	thread_exit(7);
}

static void join_waits_for_exit(struct ktest *t)
{
	for (int c = 0; c < ncpus; c++) {
		struct slow s = { 0 };
		struct task *th;

		if (!cpu_by_id(c)->online)
			continue;
		th = thread_create("thread-slow", slow_thread, &s, c);
		KASSERT(t, th != NULL);
		KEXPECT_EQ(t, thread_join(th), 7);
		KEXPECT_EQ(t, s.finished, 1);
	}
}

/* thread_join(current()) must refuse instead of sleeping forever. */
static void join_self_is_einval(struct ktest *t)
{
	KEXPECT_EQ(t, thread_join(current()), -EINVAL);
}

/* current() names the running task; tids are distinct. */
static void tid_thread(void *arg)
{
	*(volatile int *)arg = current()->tid;
}

static void current_and_tids(struct ktest *t)
{
	volatile int tid_a = -1, tid_b = -1;
	struct task *a, *b;
	int ta, tb;

	a = thread_create("thread-tid-a", tid_thread, (void *)&tid_a, -1);
	b = thread_create("thread-tid-b", tid_thread, (void *)&tid_b, -1);
	KASSERT(t, a && b);
	ta = a->tid;
	tb = b->tid;
	thread_join(a);
	thread_join(b);
	KEXPECT_EQ(t, tid_a, ta);
	KEXPECT_EQ(t, tid_b, tb);
	KEXPECT(t, ta != tb);
	KEXPECT(t, ta != current()->tid && tb != current()->tid);
}

static struct ktest_case thread_cases[] = {
	KTEST_CASE(runs_on_requested_cpu),
	KTEST_CASE_TIMEOUT(many_threads_create_join, 30000),
	KTEST_CASE(return_from_fn_is_exit_zero),
	KTEST_CASE(join_waits_for_exit),
	KTEST_CASE(join_self_is_einval),
	KTEST_CASE(current_and_tids),
	{ 0 },
};
KTEST_SUITE(thread, thread_cases);
