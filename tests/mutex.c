/*
 * mutex.c - tests of kernel/locking/mutex.c: the owner word and its
 * flags, trylock, timeouts, FIFO waiters, handoff against a stealing
 * spinner, mutual exclusion with no lost wakeup from every CPU, the
 * held list and blocked count, locking_set_mode's errors.
 *
 * Every case runs in whatever locking mode the kernel booted with
 * (locking=proxy|inherit|none): none of them depends on a mode.  Misuse
 * (unlock by a non-owner, recursion, exit holding, from an interrupt)
 * must panic: tests/crash.c.
 */
#include "ktest.h"
#include "helpers.h"
#include "cpu.h"
#include "blocked_on.h"
#include "mutex.h"
#include "sched.h"
#include "timer.h"

/* Wait (sleeping) until @t is blocked on @m, or give up after ~5 s. */
static bool wait_blocked_on(struct task *t, struct mutex *m)
{
	for (int i = 0; i < 5000; i++) {
		if (get_task_blocked_on(t) == m)
			return true;
		sleep_ns(NSEC_PER_MSEC);
	}
	return false;
}

static int wait_list_len(struct mutex *m)
{
	unsigned long flags = spin_lock(&m->wait_lock);
	struct list_head *pos;
	int n = 0;

	list_for_each(pos, &m->wait_list)
		n++;
	spin_unlock(&m->wait_lock, flags);
	return n;
}

static bool on_held_list(struct task *t, struct mutex *m)
{
	struct list_head *pos;

	list_for_each(pos, &t->held_mutexes)
		if (pos == &m->held_node)
			return true;
	return false;
}

/*
 * FIFO and handoff are about the wait list, not about the proxy donor
 * (in proxy mode unlock prefers the donor that ran the owner): drop any
 * donor right before unlocking, with preemption off so none is set in
 * between.
 */
static void unlock_without_donor(struct mutex *m)
{
	struct task *self = current();
	unsigned long flags;

	preempt_disable();
	flags = spin_lock(&self->blocked_lock);
	self->blocked_donor = NULL;
	spin_unlock(&self->blocked_lock, flags);
	mutex_unlock(m);
	preempt_enable();
}

/* ---- basics ---------------------------------------------------------- */

struct blocker {
	struct mutex *m;
	volatile int got;
	int ret;
	uint64_t timeout_ns;
};

static void blocker_thread(void *arg)
{
	struct blocker *b = arg;

	b->ret = mutex_lock_timeout(b->m, b->timeout_ns);
	if (b->ret == 0) {
		b->got = 1;
		mutex_unlock(b->m);
	}
}

/* The owner word is the task, then task | WAITERS while a task waits;
 * the mutex is on the owner's held list exactly while held. */
static void owner_word_and_flags(struct ktest *t)
{
	static DEFINE_MUTEX(m);
	struct task *self = current(), *w;
	struct blocker b = { .m = &m };

	KEXPECT_EQ(t, m.owner, 0);
	mutex_lock(&m);
	KEXPECT(t, m.owner == (unsigned long)self);
	KEXPECT(t, mutex_owner(&m) == self);
	KEXPECT(t, on_held_list(self, &m));
	w = thread_create("mutex-waiter", blocker_thread, &b, -1);
	KASSERT(t, w != NULL);
	KEXPECT(t, wait_blocked_on(w, &m));
	KEXPECT_EQ(t, m.owner & MUTEX_FLAGS, MUTEX_FLAG_WAITERS);
	KEXPECT(t, mutex_owner(&m) == self);
	KEXPECT_EQ(t, b.got, 0);
	mutex_unlock(&m);
	KEXPECT(t, !on_held_list(self, &m));
	KEXPECT_EQ(t, thread_join(w), 0);
	KEXPECT_EQ(t, b.ret, 0);
	KEXPECT_EQ(t, b.got, 1);
	KEXPECT_EQ(t, m.owner, 0);
	KEXPECT(t, list_empty(&m.wait_list));
	KEXPECT(t, list_empty(&m.held_node));
}

struct try_arg {
	struct mutex *m;
	int result;
};

static void try_thread(void *arg)
{
	struct try_arg *a = arg;

	a->result = mutex_trylock(a->m);
	if (a->result)
		mutex_unlock(a->m);
}

static int trylock_from_thread(struct ktest *t, struct mutex *m, int cpu)
{
	struct try_arg a = { .m = m, .result = -1 };
	struct task *th = thread_create("mutex-try", try_thread, &a, cpu);

	KASSERT(t, th != NULL);
	KEXPECT_EQ(t, thread_join(th), 0);
	return a.result;
}

/* trylock takes a free mutex, fails on a held one (from this CPU and
 * another), succeeds again after the unlock; it never sleeps. */
static void trylock_free_held_released(struct ktest *t)
{
	static DEFINE_MUTEX(m);
	int other = online_cpus() > 1 ? 1 : 0;

	KEXPECT(t, mutex_trylock(&m));
	KEXPECT(t, mutex_owner(&m) == current());
	KEXPECT_EQ(t, trylock_from_thread(t, &m, 0), 0);
	KEXPECT_EQ(t, trylock_from_thread(t, &m, other), 0);
	mutex_unlock(&m);
	KEXPECT_EQ(t, trylock_from_thread(t, &m, other), 1);
	KEXPECT_EQ(t, m.owner, 0);
}

/* A waiter whose timeout passes gets -ETIMEDOUT, not before the time,
 * and leaves nothing behind: wait list empty, no WAITERS flag, not
 * blocked; a waiter given enough time gets the lock. */
static void timeout_leaves_cleanly(struct ktest *t)
{
	static DEFINE_MUTEX(m);
	struct blocker b = { .m = &m, .timeout_ns = 20 * NSEC_PER_MSEC };
	int blocked0 = __atomic_load_n(&mutex_nr_blocked, __ATOMIC_SEQ_CST);
	struct task *w;
	uint64_t t0;

	mutex_lock(&m);
	t0 = clock_ns();
	w = thread_create("mutex-timeout", blocker_thread, &b, -1);
	KASSERT(t, w != NULL);
	KEXPECT_EQ(t, thread_join(w), 0);
	KEXPECT_EQ(t, b.ret, -ETIMEDOUT);
	KEXPECT(t, clock_ns() - t0 >= b.timeout_ns);
	KEXPECT_EQ(t, b.got, 0);
	KEXPECT(t, mutex_owner(&m) == current());
	KEXPECT_EQ(t, m.owner & MUTEX_FLAGS, 0);
	KEXPECT_EQ(t, wait_list_len(&m), 0);
	KEXPECT_EQ(t, __atomic_load_n(&mutex_nr_blocked, __ATOMIC_SEQ_CST),
		   blocked0);
	/* The timer must not fire later into a waiter that is gone: a
	 * second waiter with a long timeout gets the lock when we drop it. */
	b.timeout_ns = 10 * NSEC_PER_SEC;
	w = thread_create("mutex-timeout2", blocker_thread, &b, -1);
	KASSERT(t, w != NULL);
	KEXPECT(t, wait_blocked_on(w, &m));
	mutex_unlock(&m);
	KEXPECT_EQ(t, thread_join(w), 0);
	KEXPECT_EQ(t, b.ret, 0);
	KEXPECT_EQ(t, b.got, 1);
	KEXPECT_EQ(t, m.owner, 0);
	/* A timeout on a free mutex is just a lock. */
	KEXPECT_EQ(t, mutex_lock_timeout(&m, NSEC_PER_MSEC), 0);
	mutex_unlock(&m);
}

/* ---- FIFO ------------------------------------------------------------ */

#define FIFO_WAITERS 6

struct fifo_test {
	struct mutex m;
	int order[FIFO_WAITERS];
	int next;
};

struct fifo_arg {
	struct fifo_test *ft;
	int index;
};

static void fifo_waiter(void *arg)
{
	struct fifo_arg *a = arg;

	mutex_lock(&a->ft->m);
	a->ft->order[a->ft->next++] = a->index;
	unlock_without_donor(&a->ft->m);
}

/*
 * Waiters queued one after the other get the lock in that order.
 *
 * FIFO is the order of the wait list.  Under proxy execution a waiter
 * that the scheduler picks while the lock is free runs and may take it
 * before the woken first waiter (kernel/sched/proxy.c, by design), so
 * the case runs with the mode set to none and restores the boot mode.
 */
static void waiters_served_fifo(struct ktest *t)
{
	static struct fifo_test ft;
	struct fifo_arg args[FIFO_WAITERS];
	struct task *w[FIFO_WAITERS];
	const char *boot = locking_mode_name(locking_mode);

	if (locking_set_mode("none") != 0)
		KSKIP(t, "tasks are blocked on mutexes: cannot set mode none");
	mutex_init(&ft.m, "fifo-test");
	ft.next = 0;
	mutex_lock(&ft.m);
	for (int i = 0; i < FIFO_WAITERS; i++) {
		args[i] = (struct fifo_arg){ &ft, i };
		w[i] = thread_create("mutex-fifo", fifo_waiter, &args[i],
				     i % online_cpus());
		KASSERT(t, w[i] != NULL);
		KASSERT(t, wait_blocked_on(w[i], &ft.m));
		KEXPECT_EQ(t, wait_list_len(&ft.m), i + 1);
	}
	unlock_without_donor(&ft.m);
	for (int i = 0; i < FIFO_WAITERS; i++)
		KEXPECT_EQ(t, thread_join(w[i]), 0);
	KEXPECT_EQ(t, locking_set_mode(boot), 0);
	KASSERT_EQ(t, ft.next, FIFO_WAITERS);
	for (int i = 0; i < FIFO_WAITERS; i++)
		KEXPECT_EQ(t, ft.order[i], i);
	KEXPECT_EQ(t, ft.m.owner, 0);
}

/* ---- Handoff --------------------------------------------------------- */

struct handoff_test {
	struct mutex m;
	volatile int hog_running, hog_stop;
	volatile int release_s1;	/* tells the first spinner to unlock */
	volatile int s1_has;
	int seq;			/* acquisition order */
	volatile int w_pos, s2_pos;	/* 0: not yet */
};

/* A "spinner": polls mutex_trylock, which takes a released lock within
 * a few instructions, long before a woken waiter gets to run. */
static void trylock_spin(struct mutex *m)
{
	while (!mutex_trylock(m))
		arch_cpu_relax();
}

/* First spinner: steal the lock, hold it until told. */
static void handoff_s1(void *arg)
{
	struct handoff_test *h = arg;

	trylock_spin(&h->m);
	h->s1_has = 1;
	while (!h->release_s1)
		arch_cpu_relax();
	unlock_without_donor(&h->m);
}

/* Second spinner: tries to steal again when the first one unlocks. */
static void handoff_s2(void *arg)
{
	struct handoff_test *h = arg;

	trylock_spin(&h->m);
	h->s2_pos = __atomic_add_fetch(&h->seq, 1, __ATOMIC_SEQ_CST);
	unlock_without_donor(&h->m);
}

static void handoff_waiter(void *arg)
{
	struct handoff_test *h = arg;

	mutex_lock(&h->m);
	h->w_pos = __atomic_add_fetch(&h->seq, 1, __ATOMIC_SEQ_CST);
	unlock_without_donor(&h->m);
}

/* RT hog on the waiter's CPU: keeps the woken waiter off its CPU until
 * the spinner has stolen the lock, so the steal does not depend on
 * timing. */
static void handoff_hog(void *arg)
{
	struct handoff_test *h = arg;

	h->hog_running = 1;
	while (!h->hog_stop)
		arch_cpu_relax();
}

static bool wait_flag(struct mutex *m, unsigned long flag)
{
	for (int i = 0; i < 5000 && !(READ_ONCE(m->owner) & flag); i++)
		sleep_ns(NSEC_PER_MSEC);
	return READ_ONCE(m->owner) & flag;
}

/*
 * The waiter W is woken by our unlock, but spinner S1 (another CPU)
 * takes the lock first (an RT hog keeps W from running meanwhile).  W,
 * woken and beaten, must set HANDOFF; then when S1 unlocks the lock goes
 * to W, although spinner S2 is polling for it at that moment.
 */
static void first_waiter_gets_handoff(struct ktest *t)
{
	static struct handoff_test h;
	struct sched_attr fifo = { .policy = SCHED_FIFO, .rt_priority = 50 };
	struct thread_opts hog_opts = { .attr = &fifo, .affinity = 1 << 2 };
	struct task *s1, *s2, *w, *hog;

	if (online_cpus() < 3)
		KSKIP(t, "needs >= 3 CPUs");
	/* Our CPU stays out of the others' way (each case has its own
	 * thread, so the affinity goes away with it). */
	KASSERT_EQ(t, sched_setaffinity(current(), 1 << 0), 0);
	h = (struct handoff_test){ .seq = 0 };
	mutex_init(&h.m, "handoff-test");
	mutex_lock(&h.m);
	w = thread_create("mutex-handoff-w", handoff_waiter, &h, 2);
	KASSERT(t, w != NULL);
	KASSERT(t, wait_blocked_on(w, &h.m));
	KASSERT_EQ(t, thread_spawn(&hog, "mutex-handoff-hog", handoff_hog, &h,
				   &hog_opts), 0);
	while (!h.hog_running)
		sleep_ns(100 * NSEC_PER_USEC);
	s1 = thread_create("mutex-handoff-s1", handoff_s1, &h, 1);
	KASSERT(t, s1 != NULL);
	unlock_without_donor(&h.m);		/* wakes W, behind the hog */
	while (!h.s1_has)
		sleep_ns(100 * NSEC_PER_USEC);
	h.hog_stop = 1;
	KEXPECT_EQ(t, thread_join(hog), 0);
	KEXPECT(t, wait_flag(&h.m, MUTEX_FLAG_HANDOFF));
	s2 = thread_create("mutex-handoff-s2", handoff_s2, &h, 0);
	KASSERT(t, s2 != NULL);
	sleep_ns(2 * NSEC_PER_MSEC);		/* S2 is polling */
	h.release_s1 = 1;
	KEXPECT_EQ(t, thread_join(s1), 0);
	KEXPECT_EQ(t, thread_join(w), 0);
	KEXPECT_EQ(t, thread_join(s2), 0);
	KEXPECT_EQ(t, h.w_pos, 1);
	KEXPECT_EQ(t, h.s2_pos, 2);
	KEXPECT_EQ(t, h.m.owner, 0);
}

/* ---- Contention from every CPU --------------------------------------- */

#define COUNTER_THREADS_PER_CPU 3
#define COUNTER_ITERS 1500

struct counter_test {
	struct mutex m;
	volatile unsigned long counter;
	int ready, nthreads;
	volatile int inside;
	volatile int overlap;
	int timeouts;
};

/*
 * Lock, increment with a pause between load and store, unlock.  Every
 * 16th round sleeps inside the lock (so waiters really sleep and need a
 * wakeup), every 7th uses mutex_lock_timeout with a timeout long enough
 * never to expire.  A lost wakeup hangs a waiter: the case times out.
 */
static void counter_worker(struct percpu_work *w)
{
	struct counter_test *ct = w->data;

	__atomic_add_fetch(&ct->ready, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&ct->ready, __ATOMIC_SEQ_CST) < ct->nthreads)
		yield();
	for (int i = 0; i < COUNTER_ITERS; i++) {
		unsigned long v;

		if (i % 7 == 3) {
			if (mutex_lock_timeout(&ct->m, 30 * NSEC_PER_SEC)) {
				__atomic_add_fetch(&ct->timeouts, 1,
						   __ATOMIC_SEQ_CST);
				continue;
			}
		} else {
			mutex_lock(&ct->m);
		}
		if (++ct->inside != 1)
			ct->overlap++;
		v = ct->counter;
		if (i % 16 == w->index % 16)
			sleep_ns(20 * NSEC_PER_USEC);
		else
			arch_cpu_relax();
		ct->counter = v + 1;
		ct->inside--;
		mutex_unlock(&ct->m);
	}
}

/* N tasks on every CPU x COUNTER_ITERS lock/unlock on one counter: the
 * total is exact, nobody is ever inside with another, nothing is left
 * blocked, held or queued. */
static void counter_exact_all_cpus(struct ktest *t)
{
	static struct counter_test ct;
	int blocked0 = __atomic_load_n(&mutex_nr_blocked, __ATOMIC_SEQ_CST);
	int n;

	mutex_init(&ct.m, "counter-test");
	ct.counter = 0;
	ct.inside = 0;
	ct.overlap = 0;
	ct.ready = 0;
	ct.timeouts = 0;
	ct.nthreads = online_cpus() * COUNTER_THREADS_PER_CPU;
	n = run_on_each_cpu(t, "mutex-counter", COUNTER_THREADS_PER_CPU,
			    counter_worker, &ct);
	KEXPECT_EQ(t, n, ct.nthreads);
	KEXPECT_EQ(t, ct.counter, (unsigned long)n * COUNTER_ITERS);
	KEXPECT_EQ(t, ct.overlap, 0);
	KEXPECT_EQ(t, ct.timeouts, 0);
	KEXPECT_EQ(t, ct.m.owner, 0);
	KEXPECT_EQ(t, wait_list_len(&ct.m), 0);
	KEXPECT_EQ(t, __atomic_load_n(&mutex_nr_blocked, __ATOMIC_SEQ_CST),
		   blocked0);
}

/* ---- Held list, blocked count ---------------------------------------- */

/* held_mutexes lists what the task holds, most recent first, whatever
 * the unlock order; mutex_nr_blocked counts a blocked waiter and drops
 * back when it is through. */
static void held_list_and_blocked_count(struct ktest *t)
{
	static DEFINE_MUTEX(a);
	static DEFINE_MUTEX(b);
	static DEFINE_MUTEX(c);
	struct task *self = current(), *w;
	struct blocker bl = { .m = &b };
	int blocked0 = __atomic_load_n(&mutex_nr_blocked, __ATOMIC_SEQ_CST);

	KASSERT(t, list_empty(&self->held_mutexes));
	mutex_lock(&a);
	mutex_lock(&b);
	KEXPECT(t, mutex_trylock(&c));
	KEXPECT(t, self->held_mutexes.next == &c.held_node);
	KEXPECT(t, c.held_node.next == &b.held_node);
	KEXPECT(t, b.held_node.next == &a.held_node);
	w = thread_create("mutex-blocked", blocker_thread, &bl, -1);
	KASSERT(t, w != NULL);
	KEXPECT(t, wait_blocked_on(w, &b));
	KEXPECT_EQ(t, __atomic_load_n(&mutex_nr_blocked, __ATOMIC_SEQ_CST),
		   blocked0 + 1);
	mutex_unlock(&b);		/* the middle one, slow path */
	KEXPECT(t, on_held_list(self, &a) && on_held_list(self, &c));
	KEXPECT(t, !on_held_list(self, &b));
	KEXPECT_EQ(t, thread_join(w), 0);
	KEXPECT_EQ(t, bl.got, 1);
	KEXPECT_EQ(t, __atomic_load_n(&mutex_nr_blocked, __ATOMIC_SEQ_CST),
		   blocked0);
	mutex_unlock(&a);
	mutex_unlock(&c);
	KEXPECT(t, list_empty(&self->held_mutexes));
}

/* ---- Locking modes --------------------------------------------------- */

/* locking_set_mode: unknown names are -EINVAL, a task blocked on a
 * mutex makes any change -EBUSY, and every mode can be set when idle.
 * The boot mode is restored. */
static void set_mode_errors(struct ktest *t)
{
	static DEFINE_MUTEX(m);
	enum locking_mode boot = locking_mode;
	const char *name = locking_mode_name(boot);
	struct blocker b = { .m = &m };
	struct task *w;

	KEXPECT_EQ(t, locking_set_mode("bogus"), -EINVAL);
	KEXPECT_EQ(t, locking_set_mode(""), -EINVAL);
	KEXPECT_EQ(t, locking_set_mode(NULL), -EINVAL);
	KEXPECT_EQ(t, locking_set_mode("Proxy"), -EINVAL);
	KEXPECT(t, locking_mode == boot);

	mutex_lock(&m);
	w = thread_create("mutex-mode", blocker_thread, &b, -1);
	KASSERT(t, w != NULL);
	KEXPECT(t, wait_blocked_on(w, &m));
	KEXPECT_EQ(t, locking_set_mode(boot == LOCKING_NONE ? "proxy" : "none"),
		   -EBUSY);
	KEXPECT_EQ(t, locking_set_mode(name), -EBUSY);
	KEXPECT(t, locking_mode == boot);
	mutex_unlock(&m);
	KEXPECT_EQ(t, thread_join(w), 0);

	KEXPECT_EQ(t, locking_set_mode("inherit"), 0);
	KEXPECT(t, locking_mode == LOCKING_INHERIT);
	KEXPECT_EQ(t, locking_set_mode("none"), 0);
	KEXPECT(t, locking_mode == LOCKING_NONE);
	KEXPECT_EQ(t, locking_set_mode("proxy"), 0);
	KEXPECT(t, locking_mode == LOCKING_PROXY);
	KEXPECT_EQ(t, locking_set_mode(name), 0);
	KEXPECT(t, locking_mode == boot);
}

static struct ktest_case mutex_cases[] = {
	KTEST_CASE(owner_word_and_flags),
	KTEST_CASE(trylock_free_held_released),
	KTEST_CASE(timeout_leaves_cleanly),
	KTEST_CASE(waiters_served_fifo),
	KTEST_CASE(first_waiter_gets_handoff),
	KTEST_CASE_TIMEOUT(counter_exact_all_cpus, 60000),
	KTEST_CASE(held_list_and_blocked_count),
	KTEST_CASE(set_mode_errors),
	{ 0 },
};
KTEST_SUITE(mutex, mutex_cases);
