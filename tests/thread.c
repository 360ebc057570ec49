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
#include "mutex.h"
#include "mm.h"
#include "string.h"
#include "../kernel/sched/testing.h"

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

/*
 * Task cache (thread.c): a joined task is kept, with its stack, for the
 * next thread.  A recycled task must start exactly like a fresh one,
 * whatever its previous life left behind: class, priorities, affinity,
 * mutexes, proxy links, statistics.
 */
struct reuse_probe {
	struct mutex m;
	volatile int ok;		/* the checks of clean_thread passed */
	volatile int bad_line;		/* else the first that failed */
	int slot;
};

static void dirty_thread(void *arg)
{
	struct reuse_probe *p = arg;

	/* Leave traces in every field a thread can change. */
	mutex_lock(&p->m);
	yield();
	mutex_unlock(&p->m);
	sched_setattr(current(), &(struct sched_attr){ .policy = SCHED_NORMAL,
						       .nice = 7 });
	thread_exit(42);
}

#define CLEAN(cond) do { if (!(cond) && !p->bad_line) p->bad_line = __LINE__; } while (0)

static void clean_thread(void *arg)
{
	struct reuse_probe *p = arg;
	struct task *self = current();

	CLEAN(self->state == TASK_RUNNING);
	CLEAN(self->policy == SCHED_NORMAL);
	CLEAN(self->static_prio == NICE_TO_PRIO(0));
	CLEAN(self->prio == NICE_TO_PRIO(0));
	CLEAN(self->rt_priority == 0);
	CLEAN(self->sched_class == &fair_sched_class);
	CLEAN(self->cpus_allowed == ~0ULL);
	CLEAN(self->wake_cpu == -1);
	CLEAN(list_empty(&self->held_mutexes));
	CLEAN(list_empty(&self->blocked_head));
	CLEAN(list_empty(&self->blocked_node));
	CLEAN(self->blocked_on == NULL);
	CLEAN(self->blocked_donor == NULL);
	CLEAN(self->parked_on == NULL);
	CLEAN(self->pi_donor == NULL);
	CLEAN(self->proxy_pins == 0);
	CLEAN(self->exit_code == 0);
	CLEAN(!self->detached);
	CLEAN(self->nr_switches <= 1);	/* its first switch in, if counted */
	CLEAN(self->nr_migrations == 0);
	CLEAN(self->dl.dl_runtime == 0 && self->dl.dl_period == 0);
	CLEAN(!self->dl.dl_throttled && !self->dl.dl_dead && !self->dl.dl_boosted);
	CLEAN(self->stack_slot == p->slot);
	/* The guard page is still there, below the recycled stack. */
	CLEAN(stack_guard_slot(self->stack_base - 1) == self->stack_slot);
	CLEAN(!strcmp(stack_owner_name(self->stack_slot), "thread-clean"));
	p->ok = !p->bad_line;
}

static void recycled_task_starts_clean(struct ktest *t)
{
	static struct reuse_probe p;
	struct sched_attr rt = { .policy = SCHED_FIFO, .rt_priority = 30 };
	struct thread_opts o = { .attr = &rt, .affinity = 1 };
	struct task *a, *b;
	int tid_a;

	mutex_init(&p.m, "thread-reuse");
	p.ok = 0;
	p.bad_line = 0;
	KASSERT(t, thread_spawn(&a, "thread-dirty", dirty_thread, &p, &o) == 0);
	p.slot = a->stack_slot;
	tid_a = a->tid;
	KEXPECT_EQ(t, thread_join(a), 42);
	KEXPECT(t, task_cache_count() >= 1);
	/* Nothing else creates or frees tasks while a case runs, so the
	 * cache hands a's memory back (last in, first out). */
	b = thread_create("thread-clean", clean_thread, &p, -1);
	KASSERT(t, b != NULL);
	KEXPECT(t, b == a);
	KEXPECT(t, b->tid != tid_a);
	KEXPECT_EQ(t, thread_join(b), 0);
	KEXPECT_EQ(t, p.bad_line, 0);
	KEXPECT_EQ(t, p.ok, 1);
}

/* The cache is bounded, memory pressure empties it (kmalloc calls
 * task_cache_drain before failing), and an empty cache still works. */
static void task_cache_bounded_and_drains(struct ktest *t)
{
	static struct task *th[MANY];
	int n;

	for (int i = 0; i < MANY; i++) {
		th[i] = thread_create("thread-burst", returning_thread,
				      (void *)&many_ran[i], -1);
		KASSERT(t, th[i] != NULL);
	}
	for (int i = 0; i < MANY; i++)
		KEXPECT_EQ(t, thread_join(th[i]), 0);
	n = task_cache_count();
	KEXPECT(t, n >= 1 && n <= 8);
	KEXPECT_EQ(t, task_cache_drain(), n);
	KEXPECT_EQ(t, task_cache_count(), 0);
	KEXPECT_EQ(t, heap_check(), 0);
	th[0] = thread_create("thread-after-drain", returning_thread,
			      (void *)&many_ran[0], -1);
	KASSERT(t, th[0] != NULL);
	KEXPECT_EQ(t, thread_join(th[0]), 0);
	KEXPECT_EQ(t, task_cache_count(), 1);
}

static struct ktest_case thread_cases[] = {
	KTEST_CASE(runs_on_requested_cpu),
	KTEST_CASE_TIMEOUT(many_threads_create_join, 30000),
	KTEST_CASE(return_from_fn_is_exit_zero),
	KTEST_CASE(join_waits_for_exit),
	KTEST_CASE(join_self_is_einval),
	KTEST_CASE(current_and_tids),
	KTEST_CASE(recycled_task_starts_clean),
	KTEST_CASE(task_cache_bounded_and_drains),
	{ 0 },
};
KTEST_SUITE(thread, thread_cases);
