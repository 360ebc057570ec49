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
 * acquisitions the tasks counted, no two tasks are ever inside one
 * mutex together, nothing is held, queued or blocked.
 *
 * The second case adds migrations: the tasks change their own affinity
 * between rounds (random non-empty masks of online CPUs) and a shuffler
 * changes theirs at random moments, so owners move while chains come to
 * them and lent waiters are woken into new masks.  Besides the checks
 * above, a task never finds itself running outside its affinity (when no
 * change of it is under way), also right after mutex_lock returns.
 * Runs in whatever locking mode the kernel booted with.
 */
#include "ktest.h"
#include "helpers.h"
#include "cpu.h"
#include "blocked_on.h"
#include "mutex.h"
#include "sched.h"
#include "timer.h"
#include "string.h"
#include <random.h>

#define NR_MUTEXES 8
#define ITERS 250
#define MAX_TASKS 24

struct stress {
	struct mutex m[NR_MUTEXES];
	unsigned long count[NR_MUTEXES];	/* under m[i] */
	unsigned long expected[NR_MUTEXES];	/* atomic, by the tasks */
	int inside[NR_MUTEXES];			/* atomic: holders now */
	unsigned long twice;			/* atomic: found inside > 1 */
	unsigned long outside;			/* atomic: ran off affinity */
	unsigned long aff_changes;		/* atomic */
	unsigned long aff_failed;		/* atomic: setaffinity != 0 */
	int finished;				/* atomic */
	volatile int start;
	bool affine;				/* change affinities */
};

struct stress_task {
	struct stress *s;
	struct task *task;
	uint64_t seed;
	bool is_rt_or_dl;
	/* Affinity changes of this task: under way (atomic), done. */
	int aff_busy;
	unsigned long aff_gen;
	volatile int done;
};

/* sched_setaffinity(@st's task, @mask), announced to inside_affinity(). */
static void change_affinity(struct stress_task *st, uint64_t mask)
{
	__atomic_add_fetch(&st->aff_busy, 1, __ATOMIC_SEQ_CST);
	if (sched_setaffinity(st->task, mask))
		__atomic_add_fetch(&st->s->aff_failed, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&st->aff_gen, 1, __ATOMIC_SEQ_CST);
	__atomic_sub_fetch(&st->aff_busy, 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&st->s->aff_changes, 1, __ATOMIC_RELAXED);
}

/* A random non-empty mask of online CPUs: one CPU a third of the time. */
static uint64_t random_mask(uint64_t *seed)
{
	uint64_t online = cpus_online_mask(), m;

	do {
		if (rand_next(seed) % 3 == 0)
			m = 1ULL << (rand_next(seed) % ncpus);
		else
			m = rand_next(seed);
	} while (!(m & online));
	return m;
}

/* The caller runs on a CPU its affinity allows, unless a change of it was
 * under way meanwhile (sched_setaffinity moves a task before it returns;
 * until then the task may still run where it was).  Counts the breaches. */
static void check_inside_affinity(struct stress_task *st)
{
	unsigned long gen = __atomic_load_n(&st->aff_gen, __ATOMIC_SEQ_CST);
	int busy = __atomic_load_n(&st->aff_busy, __ATOMIC_SEQ_CST);
	unsigned long flags = arch_irq_save();
	uint64_t mask = READ_ONCE(current()->cpus_allowed);
	int cpu = smp_processor_id();

	arch_irq_restore(flags);
	if (busy || __atomic_load_n(&st->aff_busy, __ATOMIC_SEQ_CST) ||
	    __atomic_load_n(&st->aff_gen, __ATOMIC_SEQ_CST) != gen)
		return;
	if (!((mask >> cpu) & 1))
		__atomic_add_fetch(&st->s->outside, 1, __ATOMIC_RELAXED);
}

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
		if (s->affine)
			check_inside_affinity(st);
		if (__atomic_add_fetch(&s->inside[i], 1, __ATOMIC_SEQ_CST) != 1)
			__atomic_add_fetch(&s->twice, 1, __ATOMIC_RELAXED);
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
		for (int k = n - 1; k >= 0; k--) {
			__atomic_sub_fetch(&s->inside[held[k]], 1, __ATOMIC_SEQ_CST);
			mutex_unlock(&s->m[held[k]]);
		}
	} else {
		for (int k = 0; k < n; k++) {
			__atomic_sub_fetch(&s->inside[held[k]], 1, __ATOMIC_SEQ_CST);
			mutex_unlock(&s->m[held[k]]);
		}
	}
}

static void stress_fn(void *arg)
{
	struct stress_task *st = arg;

	while (!st->s->start)
		sleep_ns(100 * NSEC_PER_USEC);
	for (int r = 0; r < ITERS; r++) {
		stress_round(st, r);
		if (st->s->affine && rand_next(&st->seed) % 4 == 0) {
			change_affinity(st, random_mask(&st->seed));
			check_inside_affinity(st);
		}
		/* RT and deadline tasks would otherwise keep their CPU from
		 * the fair ones between rounds. */
		if (st->is_rt_or_dl)
			sleep_ns(50 * NSEC_PER_USEC);
	}
	st->done = 1;
	__atomic_add_fetch(&st->s->finished, 1, __ATOMIC_SEQ_CST);
}

/* Until every stress task is done: change a random one's affinity every
 * 20-200 us.  Runs FIFO 5, so it interrupts fair owners too. */
static struct stress_task *shuffle_st;
static int shuffle_n;

static void shuffler_fn(void *arg)
{
	struct stress *s = arg;
	uint64_t seed = 0x5eed;

	while (__atomic_load_n(&s->finished, __ATOMIC_SEQ_CST) < shuffle_n) {
		struct stress_task *st = &shuffle_st[rand_next(&seed) % shuffle_n];

		if (!READ_ONCE(st->done) && s->start)
			change_affinity(st, random_mask(&seed));
		sleep_ns((20 + rand_next(&seed) % 180) * NSEC_PER_USEC);
	}
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
 * acquisition lands in its mutex's counter, never two holders at once,
 * every task finishes.  @affine: with affinity changes (see the top). */
static void run_stress(struct ktest *t, bool affine)
{
	static struct stress s;
	static struct stress_task st[MAX_TASKS];
	struct task *tasks[MAX_TASKS], *shuffler = NULL;
	int ntasks = MIN(MAX_TASKS, 4 + 3 * online_cpus());
	int blocked0 = __atomic_load_n(&mutex_nr_blocked, __ATOMIC_SEQ_CST);
	unsigned long total = 0;

	memset(&s, 0, sizeof(s));
	s.affine = affine;
	for (int i = 0; i < NR_MUTEXES; i++)
		mutex_init(&s.m[i], "stress-mutex");
	for (int k = 0; k < ntasks; k++) {
		struct sched_attr attr = stress_attr(k, ntasks);
		struct thread_opts o = { .attr = &attr };
		int err;

		st[k] = (struct stress_task){ .s = &s, .seed = 0x9e37ULL * (k + 1),
			.is_rt_or_dl = attr.policy != SCHED_NORMAL };
		err = thread_spawn(&tasks[k], "mutex-stress", stress_fn, &st[k],
				   &o);
		KASSERT_EQ(t, err, 0);
		st[k].task = tasks[k];
	}
	if (affine) {
		struct sched_attr attr = { .policy = SCHED_FIFO, .rt_priority = 5 };
		struct thread_opts o = { .attr = &attr };

		shuffle_st = st;
		shuffle_n = ntasks;
		KEXPECT_EQ(t, thread_spawn(&shuffler, "stress-shuffler",
					   shuffler_fn, &s, &o), 0);
	}
	s.start = 1;
	/* The shuffler uses the tasks until all are done: it is joined
	 * before they are (and freed). */
	if (shuffler)
		KEXPECT_EQ(t, thread_join(shuffler), 0);
	for (int k = 0; k < ntasks; k++)
		KEXPECT_EQ(t, thread_join(tasks[k]), 0);
	KEXPECT_EQ(t, s.finished, ntasks);
	for (int i = 0; i < NR_MUTEXES; i++) {
		KEXPECT_EQ(t, s.count[i], s.expected[i]);
		KEXPECT_EQ(t, s.m[i].owner, 0);
		KEXPECT(t, list_empty(&s.m[i].wait_list));
		KEXPECT_EQ(t, s.inside[i], 0);
		total += s.count[i];
	}
	KEXPECT_EQ(t, s.twice, 0);
	KEXPECT_EQ(t, __atomic_load_n(&mutex_nr_blocked, __ATOMIC_SEQ_CST),
		   blocked0);
	KEXPECT(t, total >= (unsigned long)ntasks * ITERS / 2);
	if (affine) {
		KEXPECT_EQ(t, s.outside, 0);
		KEXPECT_EQ(t, s.aff_failed, 0);
		KEXPECT(t, s.aff_changes > 0);
	}
	if (affine)
		printk("# %d tasks, %lu acquisitions, mode %s, %lu affinity "
		       "changes, %lu times off affinity\n", ntasks, total,
		       locking_mode_name(locking_mode), s.aff_changes, s.outside);
	else
		printk("# %d tasks, %lu acquisitions, mode %s\n", ntasks, total,
		       locking_mode_name(locking_mode));
}

static void all_classes_random_nesting(struct ktest *t)
{
	run_stress(t, false);
}

static void random_nesting_with_affinity_changes(struct ktest *t)
{
	run_stress(t, true);
}

static struct ktest_case mutex_stress_cases[] = {
	KTEST_CASE_TIMEOUT(all_classes_random_nesting, 120000),
	KTEST_CASE_TIMEOUT(random_nesting_with_affinity_changes, 120000),
	{ 0 },
};
KTEST_SUITE(mutex_stress, mutex_stress_cases);
