/*
 * semaphore.c - counting semaphores and condition variables
 * (kernel/locking/semaphore.c, condvar.c): counts, timeouts, and which
 * waiter a sema_up() or cond_signal() serves: the highest effective
 * priority first, the oldest among equals, the rank read at the up (a
 * waiter boosted by `locking inherit` while it waits is served as
 * boosted: Pintos' priority-sema, priority-donate-sema and
 * priority-condvar).
 *
 * Every waiter is pinned to the case's CPU below the case thread (FIFO
 * 99), so none runs until the case sleeps.  Waiters arrive one at a
 * time (the case waits until each is queued); then the case gives one
 * unit (or signal) at a time and waits until a waiter has recorded it,
 * so the order recorded is the order of the grants, not of the
 * scheduler's picks.
 */
#include "proxy_helpers.h"
#include "cpu.h"
#include "sched.h"
#include "mutex.h"
#include "semaphore.h"
#include "condvar.h"
#include "timer.h"
#include <string.h>

#define NW 3				/* waiters in a case */
#define WAIT_LIMIT (2 * NSEC_PER_SEC)	/* for a waiter to get somewhere */

static struct sem_case {
	struct semaphore s;
	struct condvar cv;
	struct mutex m, donate;		/* cv's mutex; the one L holds */
	struct task *w[NW];
	volatile int got[NW], ngot;	/* waiter indexes, in grant order */
	volatile int queued;		/* waiters that asked (cond) */
} sc;

static int test_cpu(void)
{
	return online_cpus() - 1;
}

static void record(long i)
{
	sc.got[__atomic_fetch_add(&sc.ngot, 1, __ATOMIC_SEQ_CST)] = (int)i;
}

/* Waiters queued on list @l under @lock: one racy look is enough for a
 * case that only adds waiters. */
static int queued_on(spinlock_t *lock, struct list_head *l)
{
	unsigned long flags = spin_lock(lock);
	int n = 0;

	for (struct list_head *p = l->next; p != l; p = p->next)
		n++;
	spin_unlock(lock, flags);
	return n;
}

/* Sleep until @cond holds or WAIT_LIMIT passes; false on the limit. */
#define WAIT_UNTIL(cond) ({						\
	uint64_t __end = clock_ns() + WAIT_LIMIT;			\
	while (!(cond) && clock_ns() < __end)				\
		sleep_ns(NSEC_PER_MSEC / 2);				\
	(cond);								\
})

static void sema_waiter(void *arg)
{
	sema_down(&sc.s);
	record((long)arg);
}

/* L of priority-donate-sema: holds `donate`, then downs the semaphore. */
static void sema_waiter_holding(void *arg)
{
	mutex_lock(&sc.donate);
	sema_down(&sc.s);
	record((long)arg);
	mutex_unlock(&sc.donate);
}

static void donate_locker(void *arg)
{
	(void)arg;
	mutex_lock(&sc.donate);
	mutex_unlock(&sc.donate);
}

static void cond_waiter(void *arg)
{
	mutex_lock(&sc.m);
	__atomic_add_fetch(&sc.queued, 1, __ATOMIC_SEQ_CST);
	cond_wait(&sc.cv, &sc.m);
	record((long)arg);
	mutex_unlock(&sc.m);
}

static void reset(void)
{
	memset(&sc, 0, sizeof(sc));
	sema_init(&sc.s, 0, "sc.s");
	cond_init(&sc.cv, "sc.cv");
	mutex_init(&sc.m, "sc.m");
	mutex_init(&sc.donate, "sc.donate");
}

/* Start waiter i (RT @prio, fair if 0) running @fn; wait until @nq(i+1). */
static bool arrive(struct ktest *t, int i, int prio, void (*fn)(void *),
		   bool cond)
{
	sc.w[i] = px_spawn_on(t, "sem-waiter", test_cpu(), fn, (void *)(long)i,
			      prio);
	if (!sc.w[i])
		return false;
	if (cond)
		return WAIT_UNTIL(queued_on(&sc.cv.lock, &sc.cv.waiters) ==
				  i + 1);
	return WAIT_UNTIL(queued_on(&sc.s.lock, &sc.s.waiters) == i + 1);
}

/* Give NW units (or signals) one at a time; the grant order into got[]. */
static void serve_one_by_one(struct ktest *t, bool cond)
{
	for (int n = 1; n <= NW; n++) {
		if (cond)
			KEXPECT(t, cond_signal(&sc.cv));
		else
			sema_up(&sc.s);
		KEXPECT(t, WAIT_UNTIL(sc.ngot == n));
	}
}

static void join_all(void)
{
	for (int i = 0; i < NW; i++)
		px_join(sc.w[i]);
}

/* Run NW waiters of RT priorities @prio (0: fair) through @fn, served
 * one at a time; expect the grant order @want. */
static void order_case(struct ktest *t, const int *prio, const int *want,
		       bool cond)
{
	reset();
	if (!px_begin(t, test_cpu()))
		return;
	for (int i = 0; i < NW; i++)
		if (!arrive(t, i, prio[i], cond ? cond_waiter : sema_waiter,
			    cond))
			ktest_fail(t, __FILE__, __LINE__, "waiter %d not queued",
				   i);
	serve_one_by_one(t, cond);
	join_all();
	px_end();
	KASSERT_EQ(t, sc.ngot, NW);
	for (int i = 0; i < NW; i++)
		KEXPECT_EQ(t, sc.got[i], want[i]);
}

/* ---- Cases -------------------------------------------------------------- */

static void sema_counts_units(struct ktest *t)
{
	reset();
	sema_init(&sc.s, 2, "two");
	KEXPECT(t, sema_trydown(&sc.s));
	KEXPECT(t, sema_trydown(&sc.s));
	KEXPECT(t, !sema_trydown(&sc.s));
	sema_up(&sc.s);
	KEXPECT_EQ(t, sema_count(&sc.s), 1);
	KEXPECT_EQ(t, sema_down_timeout(&sc.s, NSEC_PER_MSEC), 0);
	KEXPECT_EQ(t, sema_count(&sc.s), 0);
}

static void sema_down_timeout_gives_up(struct ktest *t)
{
	uint64_t t0;
	int err;

	reset();
	t0 = clock_ns();
	err = sema_down_timeout(&sc.s, 5 * NSEC_PER_MSEC);
	KEXPECT_EQ(t, err, -ETIMEDOUT);
	KEXPECT(t, clock_ns() - t0 >= 5 * NSEC_PER_MSEC);
	KEXPECT(t, list_empty(&sc.s.waiters));
	sema_up(&sc.s);			/* nobody waits: the count has it */
	KEXPECT_EQ(t, sema_count(&sc.s), 1);
}

static void sema_up_serves_highest_rt_first(struct ktest *t)
{
	static const int prio[NW] = { 10, 30, 20 }, want[NW] = { 1, 2, 0 };

	order_case(t, prio, want, false);
}

static void sema_up_serves_equal_rt_fifo(struct ktest *t)
{
	static const int prio[NW] = { 20, 20, 20 }, want[NW] = { 0, 1, 2 };

	order_case(t, prio, want, false);
}

static void sema_up_serves_fair_fifo_after_rt(struct ktest *t)
{
	static const int prio[NW] = { 0, 0, 5 }, want[NW] = { 2, 0, 1 };

	order_case(t, prio, want, false);
}

/*
 * priority-donate-sema: M (rt 20) downs the semaphore first; L (rt 10)
 * holds `donate` and downs it second; H (rt 30) blocks on `donate`, so
 * under `locking inherit` L is boosted to 30 while it waits.  The up
 * serves L (as boosted) before M, though M came first and ranks above
 * L's own priority.
 */
static void sema_up_serves_inherited_priority(struct ktest *t)
{
	struct task *h;

	reset();
	if (!px_begin_mode(t, test_cpu(), LOCKING_INHERIT))
		return;
	if (!arrive(t, 0, 20, sema_waiter, false))
		ktest_fail(t, __FILE__, __LINE__, "M not queued");
	if (!arrive(t, 1, 10, sema_waiter_holding, false))
		ktest_fail(t, __FILE__, __LINE__, "L not queued");
	h = px_spawn_on(t, "sem-h", test_cpu(), donate_locker, NULL, 30);
	/* H queued, and its walk has boosted L (it may be preempted
	 * between the two) */
	KEXPECT(t, h && WAIT_UNTIL(sched_prio_before(sc.w[1], sc.w[0])));
	sema_up(&sc.s);
	KEXPECT(t, WAIT_UNTIL(sc.ngot == 1));
	sema_up(&sc.s);
	KEXPECT(t, WAIT_UNTIL(sc.ngot == 2));
	px_join(h);
	join_all();
	px_end();
	KEXPECT_EQ(t, sc.got[0], 1);
	KEXPECT_EQ(t, sc.got[1], 0);
}

static void cond_signal_wakes_highest_rt_first(struct ktest *t)
{
	static const int prio[NW] = { 10, 30, 20 }, want[NW] = { 1, 2, 0 };

	order_case(t, prio, want, true);
}

static void cond_signal_wakes_equal_rt_fifo(struct ktest *t)
{
	static const int prio[NW] = { 15, 15, 15 }, want[NW] = { 0, 1, 2 };

	order_case(t, prio, want, true);
}

/* All woken by one broadcast; on one CPU they run, and take the mutex,
 * highest first. */
static void cond_broadcast_wakes_all_highest_first(struct ktest *t)
{
	static const int prio[NW] = { 10, 30, 20 }, want[NW] = { 1, 2, 0 };

	reset();
	if (!px_begin_mode(t, test_cpu(), LOCKING_INHERIT))
		return;
	for (int i = 0; i < NW; i++)
		if (!arrive(t, i, prio[i], cond_waiter, true))
			ktest_fail(t, __FILE__, __LINE__, "waiter %d not queued",
				   i);
	KEXPECT_EQ(t, cond_broadcast(&sc.cv), NW);
	KEXPECT(t, WAIT_UNTIL(sc.ngot == NW));
	KEXPECT_EQ(t, cond_broadcast(&sc.cv), 0);
	join_all();
	px_end();
	for (int i = 0; i < NW; i++)
		KEXPECT_EQ(t, sc.got[i], want[i]);
}

static void cond_wait_timeout_relocks(struct ktest *t)
{
	int err;

	reset();
	KEXPECT(t, !cond_signal(&sc.cv));	/* nobody waits: lost */
	mutex_lock(&sc.m);
	err = cond_wait_timeout(&sc.cv, &sc.m, 3 * NSEC_PER_MSEC);
	KEXPECT_EQ(t, err, -ETIMEDOUT);
	KEXPECT(t, mutex_owner(&sc.m) == current());
	KEXPECT(t, list_empty(&sc.cv.waiters));
	mutex_unlock(&sc.m);
}

static struct ktest_case semaphore_cases[] = {
	KTEST_CASE(sema_counts_units),
	KTEST_CASE(sema_down_timeout_gives_up),
	KTEST_CASE(sema_up_serves_highest_rt_first),
	KTEST_CASE(sema_up_serves_equal_rt_fifo),
	KTEST_CASE(sema_up_serves_fair_fifo_after_rt),
	KTEST_CASE(sema_up_serves_inherited_priority),
	KTEST_CASE(cond_signal_wakes_highest_rt_first),
	KTEST_CASE(cond_signal_wakes_equal_rt_fifo),
	KTEST_CASE(cond_broadcast_wakes_all_highest_first),
	KTEST_CASE(cond_wait_timeout_relocks),
	{ 0 },
};
KTEST_SUITE(semaphore, semaphore_cases);
