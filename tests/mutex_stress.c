/*
 * mutex_stress.c - a randomised stress of the mutexes with tasks of every
 * scheduling class at once.
 *
 * Fair tasks with various nice values, RT FIFO and RR tasks, and two
 * deadline tasks with a small bandwidth take random nested sets of
 * mutexes, always in ascending index order (so there is no deadlock to
 * break), on every CPU, for thousands of acquisitions in all.  Some
 * critical sections sleep, some use mutex_lock_timeout or trylock.  At
 * the end every task has finished, each mutex's counter (bumped under
 * the mutex with a gap between load and store) equals the number of
 * acquisitions the tasks counted, nothing is held, queued or blocked.
 * Runs in whatever locking mode the kernel booted with.
 */
#include "ktest.h"
#include "helpers.h"
#include "cpu.h"
#include "mutex.h"
#include "sched.h"
#include "timer.h"
#include <random.h>

#define NR_MUTEXES 8
#define ITERS 250
#define MAX_TASKS 24

struct stress {
	struct mutex m[NR_MUTEXES];
	unsigned long count[NR_MUTEXES];	/* under m[i] */
	unsigned long expected[NR_MUTEXES];	/* atomic, by the tasks */
	int finished;				/* atomic */
	volatile int start;
};

struct stress_task {
	struct stress *s;
	uint64_t seed;
	bool is_rt_or_dl;
};

/* One round: a random subset of the mutexes, taken in ascending order,
 * counters bumped, released in reverse (or any) order. */
static void stress_round(struct stress_task *st, int round)
{
	struct stress *s = st->s;
	int held[NR_MUTEXES], n = 0;
	unsigned mask = rand_next(&st->seed) % (1u << NR_MUTEXES);

	if (!mask)
		mask = 1u << (round % NR_MUTEXES);
	for (int i = 0; i < NR_MUTEXES; i++) {
		if (!(mask & (1u << i)))
			continue;
		switch (rand_next(&st->seed) % 8) {
		case 0:
			if (!mutex_trylock(&s->m[i]))
				continue;	/* skip this one */
			break;
		case 1:
			/* Long enough never to expire. */
			if (mutex_lock_timeout(&s->m[i], 30 * NSEC_PER_SEC))
				continue;
			break;
		default:
			mutex_lock(&s->m[i]);
		}
		held[n++] = i;
	}
	for (int k = 0; k < n; k++) {
		int i = held[k];
		unsigned long v = s->count[i];

		arch_cpu_relax();
		s->count[i] = v + 1;
		__atomic_add_fetch(&s->expected[i], 1, __ATOMIC_RELAXED);
	}
	if (round % 32 == 0)
		sleep_ns(20 * NSEC_PER_USEC);	/* sleep holding them */
	if (round & 1) {
		for (int k = n - 1; k >= 0; k--)
			mutex_unlock(&s->m[held[k]]);
	} else {
		for (int k = 0; k < n; k++)
			mutex_unlock(&s->m[held[k]]);
	}
}

static void stress_fn(void *arg)
{
	struct stress_task *st = arg;

	while (!st->s->start)
		sleep_ns(100 * NSEC_PER_USEC);
	for (int r = 0; r < ITERS; r++) {
		stress_round(st, r);
		/* RT and deadline tasks would otherwise keep their CPU from
		 * the fair ones between rounds. */
		if (st->is_rt_or_dl)
			sleep_ns(50 * NSEC_PER_USEC);
	}
	__atomic_add_fetch(&st->s->finished, 1, __ATOMIC_SEQ_CST);
}

/* What task k runs as: fair with nice -5..10, FIFO/RR priority 1..20,
 * and two deadline tasks (1 ms every 20 ms: 5% each). */
static struct sched_attr stress_attr(int k, int ntasks)
{
	if (k == 0 || k == ntasks / 2)
		return (struct sched_attr){ .policy = SCHED_DEADLINE,
			.dl_runtime = NSEC_PER_MSEC,
			.dl_deadline = 20 * NSEC_PER_MSEC,
			.dl_period = 20 * NSEC_PER_MSEC };
	switch (k % 4) {
	case 1:
		return (struct sched_attr){ .policy = SCHED_FIFO,
			.rt_priority = 1 + k % 20 };
	case 2:
		return (struct sched_attr){ .policy = SCHED_RR,
			.rt_priority = 1 + (k * 7) % 20 };
	default:
		return (struct sched_attr){ .policy = SCHED_NORMAL,
			.nice = -5 + (k * 3) % 16 };
	}
}

/* Every class, random nested mutexes in a global order, all CPUs: each
 * acquisition lands in its mutex's counter and every task finishes. */
static void all_classes_random_nesting(struct ktest *t)
{
	static struct stress s;
	static struct stress_task st[MAX_TASKS];
	struct task *tasks[MAX_TASKS];
	int ntasks = MIN(MAX_TASKS, 4 + 3 * online_cpus());
	int blocked0 = __atomic_load_n(&mutex_nr_blocked, __ATOMIC_SEQ_CST);
	unsigned long total = 0;

	s.start = 0;
	s.finished = 0;
	for (int i = 0; i < NR_MUTEXES; i++) {
		mutex_init(&s.m[i], "stress-mutex");
		s.count[i] = s.expected[i] = 0;
	}
	for (int k = 0; k < ntasks; k++) {
		struct sched_attr attr = stress_attr(k, ntasks);
		struct thread_opts o = { .attr = &attr };
		int err;

		st[k] = (struct stress_task){ &s, 0x9e37ULL * (k + 1),
					      attr.policy != SCHED_NORMAL };
		err = thread_spawn(&tasks[k], "mutex-stress", stress_fn, &st[k],
				   &o);
		KASSERT_EQ(t, err, 0);
	}
	s.start = 1;
	for (int k = 0; k < ntasks; k++)
		KEXPECT_EQ(t, thread_join(tasks[k]), 0);
	KEXPECT_EQ(t, s.finished, ntasks);
	for (int i = 0; i < NR_MUTEXES; i++) {
		KEXPECT_EQ(t, s.count[i], s.expected[i]);
		KEXPECT_EQ(t, s.m[i].owner, 0);
		KEXPECT(t, list_empty(&s.m[i].wait_list));
		total += s.count[i];
	}
	KEXPECT_EQ(t, __atomic_load_n(&mutex_nr_blocked, __ATOMIC_SEQ_CST),
		   blocked0);
	KEXPECT(t, total >= (unsigned long)ntasks * ITERS / 2);
	printk("# %d tasks, %lu acquisitions, mode %s\n", ntasks, total,
	       locking_mode_name(locking_mode));
}

static struct ktest_case mutex_stress_cases[] = {
	KTEST_CASE_TIMEOUT(all_classes_random_nesting, 120000),
	{ 0 },
};
KTEST_SUITE(mutex_stress, mutex_stress_cases);
