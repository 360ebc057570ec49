/*
 * ww_mutex.c - tests of kernel/locking/ww_mutex.c: -EALREADY, trylock,
 * ABBA between two tasks, cycles of 2..N tasks over N locks, random lock
 * sets on every CPU; each with a wait-die and a wound-wait class.
 *
 * Every acquisition is counted: per lock, under the lock, and per task;
 * the two totals must agree and every task must finish (a deadlock that
 * wound/die failed to break hangs the case until its timeout).
 */
#include "ktest.h"
#include "helpers.h"
#include "cpu.h"
#include "mm.h"
#include "sched.h"
#include "timer.h"
#include "ww_mutex.h"
#include <random.h>

static DEFINE_WD_CLASS(wd_class);
static DEFINE_WW_CLASS(ww_class);

#define MAX_LOCKS 16

/*
 * Take locks[0..n-1] in the given order in @ctx, backing off on -EDEADLK
 * (release all, ww_mutex_lock_slow the contended one, start over).
 * Returns the number of back-offs; KASSERTs on anything unexpected.
 * @pause_ns: sleep after the first lock, so that the other tasks take
 * theirs and the orders really collide.  @barrier (may be NULL): after
 * the first lock of the first try, count in and wait (up to 1 s) until
 * @parties tasks have theirs: then the collision is certain.
 */
static int ww_lock_all(struct ktest *t, struct ww_mutex **locks, int n,
		       struct ww_acquire_ctx *ctx, uint64_t pause_ns,
		       int *barrier, int parties)
{
	int contended = -1, backoffs = 0;

retry:
	for (int i = 0; i < n; i++) {
		int err;

		if (i == contended)
			continue;
		err = ww_mutex_lock(locks[i], ctx);
		if (err == -EDEADLK) {
			for (int j = 0; j < i; j++)
				if (j != contended)
					ww_mutex_unlock(locks[j]);
			if (contended >= 0)	/* held since the last back-off */
				ww_mutex_unlock(locks[contended]);
			KASSERT_EQ(t, ctx->acquired, 0);
			backoffs++;
			contended = i;
			ww_mutex_lock_slow(locks[i], ctx);
			goto retry;
		}
		KASSERT_EQ(t, err, 0);
		if (i == 0 && barrier && !backoffs) {
			uint64_t end = clock_ns() + NSEC_PER_SEC;

			__atomic_add_fetch(barrier, 1, __ATOMIC_SEQ_CST);
			while (__atomic_load_n(barrier, __ATOMIC_SEQ_CST) < parties &&
			       clock_ns() < end)
				sleep_ns(100 * NSEC_PER_USEC);
		} else if (i == 0 && pause_ns) {
			sleep_ns(pause_ns);
		}
	}
	KASSERT_EQ(t, ctx->acquired, (unsigned)n);
	return backoffs;
}

static void ww_unlock_all(struct ww_mutex **locks, int n)
{
	for (int i = n - 1; i >= 0; i--)
		ww_mutex_unlock(locks[i]);
}

/* ---- AA -------------------------------------------------------------- */

static void aa_class(struct ktest *t, struct ww_class *c)
{
	struct ww_mutex m;
	struct ww_acquire_ctx ctx;

	ww_mutex_init(&m, c, "ww-aa");
	ww_acquire_init(&ctx, c);
	KEXPECT_EQ(t, ww_mutex_lock(&m, &ctx), 0);
	KEXPECT_EQ(t, ww_mutex_lock(&m, &ctx), -EALREADY);
	KEXPECT_EQ(t, ctx.acquired, 1);
	KEXPECT(t, m.ctx == &ctx);
	ww_mutex_unlock(&m);
	KEXPECT(t, m.ctx == NULL);
	KEXPECT_EQ(t, ctx.acquired, 0);
	KEXPECT(t, !ww_mutex_is_locked(&m));
	ww_acquire_done(&ctx);
	ww_acquire_fini(&ctx);
}

/* Locking a ww_mutex the context already holds is -EALREADY, not a
 * deadlock or a second acquisition. */
static void aa_returns_ealready(struct ktest *t)
{
	aa_class(t, &wd_class);
	aa_class(t, &ww_class);
}

/* ---- Trylock ------------------------------------------------------- */

static struct {
	struct ww_mutex *m;
	volatile int holds, release;
} tl;

static void trylock_holder(void *arg)
{
	(void)arg;
	ww_mutex_lock(tl.m, NULL);
	tl.holds = 1;
	while (!READ_ONCE(tl.release))
		sleep_ns(100 * NSEC_PER_USEC);
	ww_mutex_unlock(tl.m);
}

static void trylock_class(struct ktest *t, struct ww_class *c)
{
	struct ww_mutex m;
	struct ww_acquire_ctx ctx;
	struct task *holder;
	bool got;

	ww_mutex_init(&m, c, "ww-try");
	ww_acquire_init(&ctx, c);
	/* Free: taken, and counted in the context like ww_mutex_lock. */
	KEXPECT(t, ww_mutex_trylock(&m, &ctx));
	KEXPECT_EQ(t, ctx.acquired, 1);
	KEXPECT(t, m.ctx == &ctx);
	ww_mutex_unlock(&m);
	KEXPECT_EQ(t, ctx.acquired, 0);
	KEXPECT(t, m.ctx == NULL);
	/* Without a context: a plain trylock. */
	KEXPECT(t, ww_mutex_trylock(&m, NULL));
	KEXPECT(t, m.ctx == NULL);
	ww_mutex_unlock(&m);
	/* Held by another task: false at once, nothing counted. */
	tl.m = &m;
	tl.holds = tl.release = 0;
	KASSERT_EQ(t, thread_spawn(&holder, "ww-try-holder", trylock_holder,
				   NULL, NULL), 0);
	while (!READ_ONCE(tl.holds))
		sleep_ns(100 * NSEC_PER_USEC);
	preempt_disable();	/* sleeping would panic: it must not */
	got = ww_mutex_trylock(&m, &ctx);
	preempt_enable();
	KEXPECT(t, !got);
	KEXPECT_EQ(t, ctx.acquired, 0);
	if (got)
		ww_mutex_unlock(&m);
	tl.release = 1;
	thread_join(holder);
	KEXPECT(t, !ww_mutex_is_locked(&m));
	ww_acquire_done(&ctx);
	ww_acquire_fini(&ctx);
}

/* ww_mutex_trylock takes a free lock into the context (or none), and
 * fails at once on a held one. */
static void trylock_takes_free_only(struct ktest *t)
{
	trylock_class(t, &wd_class);
	trylock_class(t, &ww_class);
}

/* ---- ABBA and cycles ------------------------------------------------- */

struct cycle_test {
	struct ktest *t;
	struct ww_class *c;
	struct ww_mutex locks[MAX_LOCKS];
	int n;				/* tasks = locks in the cycle */
	int iters;
	unsigned long per_lock[MAX_LOCKS];	/* under the lock */
	unsigned long done;		/* atomic: task acquisitions */
	int backoffs;			/* atomic */
	int barrier;			/* atomic: first round, see ww_lock_all */
};

struct cycle_arg {
	struct cycle_test *ct;
	int index;
};

/* Task i takes lock i then lock i+1 (mod n): every pair of neighbours
 * wants the same lock in opposite roles, a cycle of n. */
static void cycle_worker(void *arg)
{
	struct cycle_arg *a = arg;
	struct cycle_test *ct = a->ct;
	struct ww_mutex *order[2] = {
		&ct->locks[a->index], &ct->locks[(a->index + 1) % ct->n],
	};

	for (int it = 0; it < ct->iters; it++) {
		struct ww_acquire_ctx ctx;
		int b;

		ww_acquire_init(&ctx, ct->c);
		/* Pause on some rounds only: the collisions happen, and
		 * the case stays short. */
		/* The first round collides for sure (every task holds its
		 * first lock before any takes its second); later ones pause
		 * on some rounds only: collisions happen, the case stays
		 * short. */
		b = ww_lock_all(ct->t, order, 2, &ctx,
				it % 8 == 0 ? 50 * NSEC_PER_USEC : 0,
				it == 0 ? &ct->barrier : NULL, ct->n);
		__atomic_add_fetch(&ct->backoffs, b, __ATOMIC_SEQ_CST);
		ct->per_lock[a->index]++;
		ct->per_lock[(a->index + 1) % ct->n]++;
		ww_acquire_done(&ctx);
		ww_unlock_all(order, 2);
		ww_acquire_fini(&ctx);
		__atomic_add_fetch(&ct->done, 1, __ATOMIC_SEQ_CST);
	}
}

/* Run a cycle of @n tasks, spread over the CPUs. */
static int run_cycle(struct ktest *t, struct ww_class *c, int n, int iters)
{
	static struct cycle_test ct;
	struct cycle_arg args[MAX_LOCKS];
	struct task *tasks[MAX_LOCKS];

	ct.t = t;
	ct.c = c;
	ct.n = n;
	ct.iters = iters;
	ct.done = 0;
	ct.backoffs = 0;
	ct.barrier = 0;
	for (int i = 0; i < n; i++) {
		ww_mutex_init(&ct.locks[i], c, "ww-cycle");
		ct.per_lock[i] = 0;
	}
	for (int i = 0; i < n; i++) {
		args[i] = (struct cycle_arg){ &ct, i };
		tasks[i] = thread_create("ww-cycle", cycle_worker, &args[i],
					 i % online_cpus());
		KASSERT(t, tasks[i] != NULL);
	}
	for (int i = 0; i < n; i++)
		KEXPECT_EQ(t, thread_join(tasks[i]), 0);
	KEXPECT_EQ(t, ct.done, (unsigned long)n * iters);
	for (int i = 0; i < n; i++) {
		KEXPECT_EQ(t, ct.per_lock[i], 2UL * iters);
		KEXPECT(t, !ww_mutex_is_locked(&ct.locks[i]));
	}
	printk("# %s, %d tasks: %d back-offs\n", c->name, n, ct.backoffs);
	return ct.backoffs;
}

/* Two tasks take A,B and B,A: -EDEADLK backoff resolves every
 * collision, and the collisions do happen. */
static void abba_two_tasks(struct ktest *t)
{
	KEXPECT(t, run_cycle(t, &wd_class, 2, 200) > 0);
	KEXPECT(t, run_cycle(t, &ww_class, 2, 200) > 0);
}

/* Cycles of 3..8 tasks over as many locks, both classes. */
static void cycles_of_n_tasks(struct ktest *t)
{
	for (int n = 3; n <= 8; n++) {
		run_cycle(t, &wd_class, n, 60);
		run_cycle(t, &ww_class, n, 60);
	}
}

/* ---- Random lock sets on every CPU ------------------------------------ */

#define STRESS_LOCKS 8
#define STRESS_PER_CPU 2
#define STRESS_ITERS 300

struct stress_test {
	struct ww_class *c;
	struct ww_mutex locks[STRESS_LOCKS];
	unsigned long per_lock[STRESS_LOCKS];	/* under the lock */
	unsigned long expected[STRESS_LOCKS];	/* atomic, by the tasks */
};

/* Each round: 2..4 distinct locks in a random order, all held at once,
 * every lock's counter bumped with a gap between load and store. */
static void stress_worker(struct percpu_work *w)
{
	struct stress_test *st = w->data;
	uint64_t seed = 0x1234567ULL * (w->index + 1);

	for (int it = 0; it < STRESS_ITERS; it++) {
		struct ww_mutex *set[4];
		struct ww_acquire_ctx ctx;
		int n = 2 + rand_next(&seed) % 3, k = 0;
		unsigned used = 0;

		while (k < n) {
			int i = rand_next(&seed) % STRESS_LOCKS;

			if (used & (1u << i))
				continue;
			used |= 1u << i;
			set[k++] = &st->locks[i];
		}
		ww_acquire_init(&ctx, st->c);
		ww_lock_all(w->t, set, n, &ctx, 0, NULL, 0);
		for (int j = 0; j < n; j++) {
			int i = set[j] - st->locks;
			unsigned long v = st->per_lock[i];

			arch_cpu_relax();
			st->per_lock[i] = v + 1;
			__atomic_add_fetch(&st->expected[i], 1,
					   __ATOMIC_SEQ_CST);
		}
		if (it % 16 == 0)
			yield();
		ww_unlock_all(set, n);
		ww_acquire_fini(&ctx);
	}
}

static void stress_class(struct ktest *t, struct ww_class *c)
{
	static struct stress_test st;
	unsigned long total = 0;
	int n;

	st.c = c;
	for (int i = 0; i < STRESS_LOCKS; i++) {
		ww_mutex_init(&st.locks[i], c, "ww-stress");
		st.per_lock[i] = st.expected[i] = 0;
	}
	n = run_on_each_cpu(t, "ww-stress", STRESS_PER_CPU, stress_worker, &st);
	KEXPECT_EQ(t, n, online_cpus() * STRESS_PER_CPU);
	for (int i = 0; i < STRESS_LOCKS; i++) {
		KEXPECT_EQ(t, st.per_lock[i], st.expected[i]);
		KEXPECT(t, !ww_mutex_is_locked(&st.locks[i]));
		total += st.per_lock[i];
	}
	/* 2..4 locks per round: the total is within those bounds. */
	KEXPECT(t, total >= 2UL * n * STRESS_ITERS);
	KEXPECT(t, total <= 4UL * n * STRESS_ITERS);
	printk("# %s: %lu acquisitions by %d tasks\n", c->name, total, n);
}

/* Tasks on every CPU take random sets of locks in random orders: every
 * task finishes and every acquisition is counted, both classes. */
static void random_sets_all_cpus(struct ktest *t)
{
	stress_class(t, &wd_class);
	stress_class(t, &ww_class);
}

static struct ktest_case ww_mutex_cases[] = {
	KTEST_CASE(aa_returns_ealready),
	KTEST_CASE(trylock_takes_free_only),
	KTEST_CASE_TIMEOUT(abba_two_tasks, 30000),
	KTEST_CASE_TIMEOUT(cycles_of_n_tasks, 60000),
	KTEST_CASE_TIMEOUT(random_sets_all_cpus, 60000),
	{ 0 },
};
KTEST_SUITE(ww_mutex, ww_mutex_cases);
