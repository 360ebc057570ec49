/*
 * mutex.c - sleeping mutexes (the shape of Linux's kernel/locking/mutex.c).
 *
 * The owner word, its flags and the lock order are described once, in
 * kernel/include/mutex.h; the blocked_on helpers and the wake queue are
 * in blocked_on.c; the priority inheritance walks of the inherit mode in
 * mutex_pi.c.  This file has, in order:
 *
 *   - the fast paths: one compare-and-swap each way;
 *   - optimistic spinning while the owner runs;
 *   - the slow path: a FIFO waiter under wait_lock, sleeping, timeouts,
 *     handoff to the first waiter when spinners keep stealing (it spins
 *     for the handoff while the owner runs);
 *   - unlock's slow path: choose the waiter (per locking mode), release
 *     or hand off, then wake;
 *   - misuse reports and the exit check (the locking mode: mode.c).
 *
 * Sleeping follows core.c's protocol: the waiter sets TASK_SLEEPING
 * (under wait_lock) before its last look at the lock, and every waker
 * changes the lock (under wait_lock) before wake_up(), so a wakeup
 * cannot fall between the look and schedule():
 *
 *   waiter (cpu0)                         unlocker (cpu1)
 *   lock wait_lock
 *   state = SLEEPING; mb
 *   trylock fails (owner cpu1)
 *   unlock wait_lock                      lock wait_lock
 *                                         owner = WAITERS (released)
 *                                         waiter.blocked_on = PROXY_WAKING
 *                                         unlock wait_lock
 *   schedule()                            wake_up(waiter): state is
 *     either still queued (kept),           SLEEPING -> RUNNING
 *     or dequeued and woken back
 *   lock wait_lock; blocked_on = m again
 *   trylock succeeds
 *
 * Had the unlocker run first, the waiter's trylock would have seen the
 * lock free.  A wakeup that finds the waiter RUNNING does nothing, which
 * is safe because the waiter looks at the lock again before it sleeps.
 */
#include "blocked_on.h"
#include "mutex.h"
#include "mutex_pi.h"
#include "ww_mutex.h"
#include "cpu.h"
#include "sched.h"
#include "timer.h"
#include "trace.h"

int mutex_nr_blocked;

/* Optimistic spinning gives up after this many looks at the owner: under
 * qemu a spinning vCPU can hold up the one the owner needs. */
#define MUTEX_SPIN_MAX 2000

void mutex_init(struct mutex *m, const char *name)
{
	m->owner = 0;
	spin_init(&m->wait_lock, "mutex wait_lock");
	list_init(&m->wait_list);
	list_init(&m->held_node);
	m->name = name;
	m->trace_name = trace_keep_name(name);
}

static inline struct task *owner_task(unsigned long owner)
{
	return (struct task *)(owner & ~MUTEX_FLAGS);
}

/* For reports only: the owner may be gone by the time we print. */
static const char *owner_name(const struct mutex *m)
{
	struct task *o = mutex_owner(m);

	return o ? o->name : "none";
}

static void __noreturn mutex_misuse(const struct mutex *m, struct task *curr,
				    const char *what)
{
	panic("mutex '%s': %s (task %s, owner %s)", m->name, what,
	      curr ? curr->name : "?", owner_name(m));
}

/* The waiter's side of a pin: wait until no waker still holds it. */
static void wait_for_unpin(int *pin)
{
	while (__atomic_load_n(pin, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
}

/* ---- Fast paths ------------------------------------------------------ */

static inline bool owner_cmpxchg(struct mutex *m, unsigned long *old,
				 unsigned long new)
{
	return __atomic_compare_exchange_n(&m->owner, old, new, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

/* The fast paths' compare-and-swap from a known value, with just the
 * ordering each needs: acquire to take the lock (the critical section
 * stays after it), release to drop it (and before it).  A bare
 * `lock cmpxchg` on x86, an lr.aq/sc or lr/sc.rl loop on RISC-V. */
static inline bool owner_cas_acquire(struct mutex *m, unsigned long old,
				     unsigned long new)
{
	return __atomic_compare_exchange_n(&m->owner, &old, new, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static inline bool owner_cas_release(struct mutex *m, unsigned long old,
				     unsigned long new)
{
	return __atomic_compare_exchange_n(&m->owner, &old, new, false,
					   __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

/* Out of line, so the fast paths stay small: mutex_lock cannot fail. */
static void __attribute__((noinline)) mutex_lock_slow(struct mutex *m)
{
	if (__mutex_lock_slowpath(m, 0, NULL) != 0)
		panic("mutex '%s': mutex_lock failed", m->name);
}

/*
 * Take @m for @curr if it is free, or if it was handed to @curr (PICKUP).
 * Keeps WAITERS; drops HANDOFF and PICKUP (a handoff is done once the
 * chosen task picks it up; the first waiter asks again if it must).
 * @how: TRACE_ACQ_* for the trace, unless it is a handoff picked up.
 */
static bool __mutex_trylock(struct mutex *m, struct task *curr, int how)
{
	unsigned long owner = READ_ONCE(m->owner);

	for (;;) {
		struct task *t = owner_task(owner);

		if (t && !(t == curr && (owner & MUTEX_FLAG_PICKUP)))
			return false;
		if (owner_cmpxchg(m, &owner, (unsigned long)curr |
				  (owner & MUTEX_FLAG_WAITERS))) {
			trace_mutex_acquire(curr, m,
					    t ? TRACE_ACQ_HANDOFF : how);
			return true;
		}
	}
}

/*
 * The fast paths read the running task and this CPU's preempt count in
 * one instruction each (cpu.h: no interrupt masking needed; one check of
 * the count covers both "from an interrupt" and "preemption disabled").
 * held_mutexes is private to its task: a preemption in the middle of the
 * list update changes nothing about it.  Anything unusual goes to the
 * slow path, which reports misuse.
 */
void mutex_lock(struct mutex *m)
{
	struct task *curr = current_task();

	if (this_cpu_preempt_count() == 0 && owner_cas_acquire(m, 0, (unsigned long)curr)) {
		list_add(&m->held_node, &curr->held_mutexes);
		trace_mutex_acquire_fast(curr, m);
		return;
	}
	mutex_lock_slow(m);
}

int mutex_lock_timeout(struct mutex *m, uint64_t timeout_ns)
{
	struct task *curr = current_task();

	if (this_cpu_preempt_count() == 0 && owner_cas_acquire(m, 0, (unsigned long)curr)) {
		list_add(&m->held_node, &curr->held_mutexes);
		trace_mutex_acquire_fast(curr, m);
		return 0;
	}
	return __mutex_lock_slowpath(m, timeout_ns, NULL);
}

bool mutex_trylock(struct mutex *m)
{
	unsigned long flags = arch_irq_save();
	struct cpu *c = this_cpu();
	struct task *curr = current_task();
	bool taken;

	if (c->preempt_count >= HARDIRQ_OFFSET)
		mutex_misuse(m, curr, "trylock from interrupt context");
	if (mutex_owner(m) == curr)
		mutex_misuse(m, curr, "recursive trylock");
	taken = __mutex_trylock(m, curr, TRACE_ACQ_FAST);
	if (taken)
		list_add(&m->held_node, &curr->held_mutexes);
	arch_irq_restore(flags);
	return taken;
}

static void __attribute__((noinline))
__mutex_unlock_slowpath(struct mutex *m, struct task *curr);

void mutex_unlock(struct mutex *m)
{
	struct task *curr = current_task();

	/* Off the held list before the release: once the word is 0 another
	 * task may take m and put held_node on its own list. */
	if (READ_ONCE(m->owner) == (unsigned long)curr) {
		list_del_init(&m->held_node);
		if (owner_cas_release(m, (unsigned long)curr, 0)) {
			trace_mutex_release_fast(curr, m);
			return;
		}
	}
	__mutex_unlock_slowpath(m, curr);
}

/* ---- Optimistic spinning -------------------------------------------- */

/*
 * While the owner is running on another CPU it will probably release
 * soon: retry the trylock instead of paying for a sleep and a wakeup
 * (and, in proxy mode, instead of moving our context to the owner's CPU:
 * Linux's first proxy-execution versions blocked at once and lost up to
 * 10x on messaging benchmarks).  Stop when the owner is not on a CPU or
 * is itself waiting for a mutex (its chain is blocked: it will not
 * release soon), when this CPU should reschedule, or after
 * MUTEX_SPIN_MAX looks.  Two kinds of spinner:
 *
 *   - a task arriving at the lock (@first false) stops when a handoff
 *     is asked for or done: the lock is then reserved for a waiter.
 *     With @rank (inherit mode, an RT or deadline task) it also stops as
 *     soon as anyone waits (WAITERS): the unlock hands the lock to the
 *     most important waiter, and a spinner is not a waiter yet, so it
 *     must queue to be ranked (rt_mutex, too, spins only once queued);
 *   - the first waiter, woken but beaten to the lock by a spinner
 *     (@first true), has just asked for a handoff (HANDOFF): it spins
 *     until the owner hands the lock over (PICKUP with itself as owner)
 *     rather than sleep and wait for another wakeup meanwhile, as
 *     Linux's first waiter does.  It stops if the lock is handed to
 *     someone else (a proxy donor, or in inherit mode an RT or deadline
 *     waiter).
 *
 * The caller is preemptible (checked), so a spinner never holds up its
 * own CPU.  The owner's task may exit while we look at it: tasks come
 * from kmalloc, whose memory stays mapped, so the worst a stale look can
 * do is stop the spin early.
 */
static bool mutex_optimistic_spin(struct mutex *m, struct task *curr,
				  bool first, bool rank)
{
	unsigned long reserved = first ? MUTEX_FLAG_PICKUP :
				 MUTEX_FLAG_HANDOFF | MUTEX_FLAG_PICKUP |
				 (rank ? MUTEX_FLAG_WAITERS : 0);
	int how = first ? TRACE_ACQ_WAIT : TRACE_ACQ_SPIN;

	for (int i = 0; i < MUTEX_SPIN_MAX; i++) {
		unsigned long owner = READ_ONCE(m->owner);
		struct task *t = owner_task(owner);

		if (!t || (t == curr && first)) {
			if (__mutex_trylock(m, curr, how))
				return true;
			continue;
		}
		if (owner & reserved)
			return false;
		if (!READ_ONCE(t->on_cpu) || READ_ONCE(t->blocked_on) ||
		    READ_ONCE(this_cpu()->need_resched))
			return false;
		arch_cpu_relax();
	}
	return false;
}

/* Would mutex_optimistic_spin(.first = false) go past its first turn:
 * the lock free (it tries it), or its owner running? */
static inline bool mutex_spin_worth(struct mutex *m)
{
	struct task *t = owner_task(READ_ONCE(m->owner));

	return !t || READ_ONCE(t->on_cpu);
}

/* ---- Slow path ------------------------------------------------------- */

static void mutex_check_lock_context(struct mutex *m, struct task *curr)
{
	long pc = this_cpu_preempt_count();	/* one load: cpu.h */

	if (pc >= HARDIRQ_OFFSET)
		mutex_misuse(m, curr, "lock from interrupt context");
	if (pc != 0)
		mutex_misuse(m, curr, "lock with preemption disabled");
	if (mutex_owner(m) == curr)
		mutex_misuse(m, curr, "recursive lock");
}

struct mutex_timeout {
	struct timer timer;
	struct mutex_waiter *w;
};

/* Interrupt context: the waiter's deadline passed.  Mark it waking (so
 * the proxy scheduler runs it rather than its lock's owner) and wake it;
 * it sees the time and leaves.  The waiter cancels this timer before it
 * returns, so w is valid here. */
static void mutex_timeout_fn(struct timer *t)
{
	struct mutex_waiter *w = ((struct mutex_timeout *)t->data)->w;
	unsigned long flags = spin_lock(&w->lock->wait_lock);

	set_task_blocked_on_waking(w->task, w->lock);
	spin_unlock(&w->lock->wait_lock, flags);
	wake_up(w->task);
}

/* wait_lock held: @w stops waiting (with or without the lock). */
static void mutex_remove_waiter(struct mutex *m, struct mutex_waiter *w)
{
	list_del_init(&w->list);
	WRITE_ONCE(w->pi_active, false);
	if (list_empty(&m->wait_list))
		__atomic_and_fetch(&m->owner,
				   ~(MUTEX_FLAG_WAITERS | MUTEX_FLAG_HANDOFF),
				   __ATOMIC_RELAXED);
	clear_task_blocked_on(w->task, m);
}

/* wait_lock held (taken with *@flags): let the ww waiters of @m die or
 * wound as they must.  When @q fills up, wake what it holds (dropping and
 * retaking wait_lock) and look again: the waiters already marked are
 * skipped, so this ends. */
static void ww_check_waiters(struct mutex *m, struct wake_q *q,
			     unsigned long *flags)
{
	while (!__ww_mutex_check_waiters(m, q)) {
		wake_q_unlock(q, &m->wait_lock, *flags);
		*flags = spin_lock(&m->wait_lock);
	}
}

/* wait_lock held: the current task took @m in context @ctx (ww). */
static void mutex_acquired_ww(struct mutex *m, struct ww_acquire_ctx *ctx,
			      struct wake_q *q, unsigned long *flags)
{
	__ww_mutex_acquired(m, ctx);
	ww_check_waiters(m, q, flags);
}

/*
 * wait_lock held: about to look at the lock a last time before sleeping.
 * Wait on @m again if a waker had marked us PROXY_WAKING, and set
 * TASK_SLEEPING, both under blocked_lock: a waker marks and sets
 * TASK_RUNNING under the same lock (ttwu), so a task is never left
 * RUNNING with a real blocked_on (which the proxy scheduler could not
 * dequeue), nor SLEEPING after a wakeup it has not looked at.  Returns
 * true if we had been marked.
 */
static bool mutex_prepare_sleep(struct task *curr, struct mutex *m)
{
	bool marked;

	spin_lock_raw(&curr->blocked_lock);
	marked = curr->blocked_on == PROXY_WAKING;
	if (marked)
		WRITE_ONCE(curr->blocked_on, m);
	WRITE_ONCE(curr->state, TASK_SLEEPING);
	spin_unlock_raw(&curr->blocked_lock);
	smp_mb();	/* state before the looks; pairs with wake_up */
	return marked;
}

/* wait_lock held: the first waiter is about to spin for its handoff:
 * it runs again, as a woken waiter (PROXY_WAKING); the next
 * mutex_prepare_sleep() makes it a sleeping one again. */
static void mutex_prepare_spin(struct task *curr, struct mutex *m)
{
	spin_lock_raw(&curr->blocked_lock);
	if (curr->blocked_on == m)
		WRITE_ONCE(curr->blocked_on, PROXY_WAKING);
	WRITE_ONCE(curr->state, TASK_RUNNING);
	spin_unlock_raw(&curr->blocked_lock);
}

/* @curr now owns @m: note it on curr's held list. */
static void mutex_add_held(struct mutex *m, struct task *curr)
{
	unsigned long flags = arch_irq_save();

	list_add(&m->held_node, &curr->held_mutexes);
	arch_irq_restore(flags);
}

/*
 * The three steps of a wait (below), for waiter @w of w->lock by
 * w->task, its wake queue @q and wait_lock's saved interrupt state
 * *@flags; @inherit: the locking mode at arrival; @deadline: 0 for none.
 * Each is called once, so inlined: the slow path's locals stay in
 * registers.
 *
 * lock_wait_enqueue: wait_lock held, the lock taken by someone else:
 * queue as a waiter (in stamp order for ww), tell unlock there are
 * waiters, become blocked on the lock (the proxy scheduler may now run
 * the owner for us).
 */
static void lock_wait_enqueue(struct mutex_waiter *w, struct wake_q *q,
			      unsigned long *flags, bool inherit)
{
	struct mutex *m = w->lock;

	if (w->ww_ctx)
		__ww_mutex_add_waiter(m, w);
	else
		list_add_tail(&w->list, &m->wait_list);
	/* An atomic OR: a fast-path unlock racing with us fails its
	 * compare-and-swap and takes the slow path, which wakes us. */
	__atomic_or_fetch(&m->owner, MUTEX_FLAG_WAITERS, __ATOMIC_SEQ_CST);
	/* Before blocked_on is set: ww_check_waiters may drop wait_lock
	 * (and be preempted), and a running task must never look blocked
	 * to the proxy scheduler.  A handoff meanwhile is picked up by the
	 * wait loop's first look. */
	if (w->ww_ctx)
		ww_check_waiters(m, q, flags);
	set_task_blocked_on(w->task, m);
	trace_mutex_block(w->task, m, mutex_owner(m));
	WRITE_ONCE(w->pi_active, inherit);
}

/*
 * lock_wait_loop: queued, look at the lock, sleep (or spin for a
 * handoff), look again, until we own it (0), must back off (ww:
 * -EDEADLK) or time out (-ETIMEDOUT).  Called and returns with
 * wait_lock held.
 */
static int lock_wait_loop(struct mutex_waiter *w, struct wake_q *q,
			  unsigned long *flags, bool inherit,
			  uint64_t deadline)
{
	struct mutex *m = w->lock;
	struct task *curr = w->task;
	bool woken = false, walked = false, spun = false;
	int ret = 0;

	for (;;) {
		bool first, spin, marked;

		marked = mutex_prepare_sleep(curr, m);
		woken |= marked;
		if (__mutex_trylock(m, curr, TRACE_ACQ_WAIT))
			break;
		if (w->ww_ctx && (ret = __ww_mutex_check_kill(m, w)))
			break;
		if (deadline && clock_ns() >= deadline) {
			ret = -ETIMEDOUT;
			break;
		}
		/* Woken as the first waiter but a spinner got there first:
		 * ask for the next unlock to hand the lock to us ... */
		first = woken && m->wait_list.next == &w->list;
		if (first)
			__atomic_or_fetch(&m->owner, MUTEX_FLAG_HANDOFF,
					  __ATOMIC_SEQ_CST);
		/* ... and wait for it spinning while the owner runs, once per
		 * wakeup.  Meanwhile we are a woken waiter again (running,
		 * PROXY_WAKING), so no chain can take us for a blocked task
		 * (the pick would lend us elsewhere).  Only holding no mutex:
		 * then no chain runs through us, and no inherit walk stops at
		 * us. */
		spin = first && !spun && !w->ww_ctx &&
		       list_empty(&curr->held_mutexes);
		if (spin)
			mutex_prepare_spin(curr, m);
		wake_q_unlock(q, &m->wait_lock, *flags);
		/* The owner inherits from us: walk once on arrival, and again
		 * after each wakeup that found no lock, because a walk that
		 * reached us while we were a woken waiter (PROXY_WAKING) had
		 * to stop here, so a boost we received meanwhile has not gone
		 * on to the owner (football.inherit_woken_mid). */
		if (inherit && (!walked || marked)) {
			pi_walk_from(m);
			walked = true;
		}
		if (spin) {
			spun = true;
			spin = mutex_optimistic_spin(m, curr, true, false);
			*flags = spin_lock(&m->wait_lock);
			if (spin)
				break;
			continue;	/* look again, then sleep */
		}
		schedule();
		spun = false;
		*flags = spin_lock(&m->wait_lock);
		/* Woken to a lock handed over or released: take it before
		 * setting up to sleep again (mutex_prepare_sleep's lock
		 * round trip and barrier).  blocked_on is m or PROXY_WAKING
		 * either way, which mutex_remove_waiter() clears; the
		 * trylock is the one the loop would make next. */
		if (__mutex_trylock(m, curr, TRACE_ACQ_WAIT))
			break;
	}
	WRITE_ONCE(curr->state, TASK_RUNNING);
	return ret;
}

/*
 * lock_wait_dequeue: leave the queue, with the lock (@ret 0) or without
 * (-EDEADLK, -ETIMEDOUT: then a lock handed to us meanwhile is taken
 * after all, and 0 returned).  Called with wait_lock held; returns with
 * it dropped and every waker done with @w (the caller cancels the
 * timeout first).
 */
static int lock_wait_dequeue(struct mutex_waiter *w, struct wake_q *q,
			     unsigned long *flags, bool inherit, int ret)
{
	struct mutex *m = w->lock;

	if (ret && inherit) {
		/*
		 * Leaving without the lock: first take our priority back
		 * from the owner, while still queued (so it cannot release
		 * and exit meanwhile, see mutex_pi.c).  If the lock was
		 * handed to us during the walk, we take it after all.
		 */
		WRITE_ONCE(w->pi_active, false);
		wake_q_unlock(q, &m->wait_lock, *flags);
		pi_walk_from(m);
		*flags = spin_lock(&m->wait_lock);
	}
	/* A handoff to us (PICKUP) must never be left behind. */
	if (ret && __mutex_trylock(m, w->task, TRACE_ACQ_WAIT))
		ret = 0;
	mutex_remove_waiter(m, w);
	if (!ret && w->ww_ctx)
		mutex_acquired_ww(m, w->ww_ctx, q, flags);
	wake_q_unlock(q, &m->wait_lock, *flags);
	return ret;
}

/*
 * The lock slow path, top to bottom: spin while the owner runs (plain
 * mutexes), else take wait_lock and try once more, else queue, wait and
 * leave the queue (the three steps above), with a timer for the
 * timeout.  In inherit mode the waiter is registered for the priority
 * walks (mutex_pi.c) for the whole wait.
 */
int __mutex_lock_slowpath(struct mutex *m, uint64_t timeout_ns,
			  struct ww_acquire_ctx *ww_ctx)
{
	struct task *curr = current();
	bool inherit = READ_ONCE(locking_mode) == LOCKING_INHERIT;
	struct mutex_waiter w = { .task = curr, .lock = m, .ww_ctx = ww_ctx };
	struct mutex_timeout to = { .w = &w };
	struct wake_q q;
	uint64_t deadline = timeout_ns ? clock_ns() + timeout_ns : 0;
	unsigned long flags;
	int ret = 0;

	wake_q_init(&q);
	mutex_check_lock_context(m, curr);
	/* The spin's first turn, inline: an owner that does not run (the
	 * common case on one CPU: it was preempted, or sleeps) is not
	 * waited for. */
	if (!ww_ctx && mutex_spin_worth(m) &&
	    mutex_optimistic_spin(m, curr, false,
				  inherit && pi_task_ranked(curr))) {
		mutex_add_held(m, curr);
		if (inherit) {		/* we may have stolen it from waiters */
			flags = pi_walk_begin();
			pi_walk_locked(curr);
			pi_walk_end(flags);
		}
		return 0;
	}
	list_init(&w.list);
	list_init(&w.pi_node);
	if (inherit)
		pi_register(&w);

	flags = spin_lock(&m->wait_lock);
	if (__mutex_trylock(m, curr, TRACE_ACQ_SPIN)) {
		if (ww_ctx)
			mutex_acquired_ww(m, ww_ctx, &q, &flags);
		wake_q_unlock(&q, &m->wait_lock, flags);
	} else {
		lock_wait_enqueue(&w, &q, &flags, inherit);
		if (timeout_ns) {
			timer_init(&to.timer, mutex_timeout_fn, &to);
			timer_arm(&to.timer, deadline);
		}
		ret = lock_wait_loop(&w, &q, &flags, inherit, deadline);
		ret = lock_wait_dequeue(&w, &q, &flags, inherit, ret);
		if (timeout_ns)
			timer_cancel(&to.timer);
		wait_for_unpin(&w.wakers);
	}
	if (ret) {
		trace_mutex_giveup(curr, m, ret);
		if (inherit)
			pi_unregister(&w, false);
		return ret;
	}
	mutex_add_held(m, curr);
	if (inherit)
		pi_unregister(&w, true);
	return 0;
}

/* ---- Unlock slow path ------------------------------------------------- */

/* Proxy mode: the donor we run for right now (our CPU's donor, recorded
 * by the walk), if it waits on @m and its context ranks before ours
 * (sched_prio_before: it boosted us): the lock goes straight to it, so no
 * task its context outranks can take it first.  Otherwise no
 * reservation (the lock is released and the first waiter woken, as
 * without proxy execution): reserving the lock for a task that is not
 * running, or that only lent us a fair share, stops every spinner and
 * builds a convoy (bench mutex_contended).  Looked up in the wait list
 * rather than through the donor (which may have stopped waiting and be
 * gone). */
static struct mutex_waiter *take_donor_waiter(struct mutex *m,
					      struct task *curr)
{
	struct task *donor;
	struct list_head *pos;

	spin_lock_raw(&curr->blocked_lock);
	donor = curr->blocked_donor;
	curr->blocked_donor = NULL;
	spin_unlock_raw(&curr->blocked_lock);
	if (!donor || donor != current_donor() || !sched_prio_before(donor, curr))
		return NULL;
	list_for_each(pos, &m->wait_list) {
		struct mutex_waiter *w = list_entry(pos, struct mutex_waiter,
						    list);
		if (w->task == donor)
			return w;
	}
	return NULL;
}

/*
 * Who gets @m, and whether it is handed over (PICKUP: nobody else may
 * take it) or released (anyone may; the chosen waiter is woken to try,
 * and asks for a handoff if it is beaten, HANDOFF):
 *
 *   proxy    the donor we run for, if it waits on m: handed to it;
 *            otherwise the first waiter, handed to it only if it asked;
 *   inherit  the most important waiter (pi_top_waiter): handed to it if
 *            any waiter is RT or deadline, rt_mutex's "top waiter" rule;
 *            with only fair waiters, as none;
 *   none     the first waiter, handed to it only if it asked.
 *
 * The steal rule of inherit mode.  Linux's rt_mutex releases the lock
 * and lets a task that ranks before the top waiter take it first (a
 * steal; an equal one too in its PREEMPT_RT spinlocks, but never from
 * an RT top waiter).  Here nobody takes it from an RT or deadline waiter:
 * it is handed over, so no lower waiter and no spinner gets it first.
 * A more important task arriving after the unlock queues and lends the
 * chosen waiter its priority, so it waits at most for that waiter's
 * critical section, the bound inheritance gives for any owner; a steal
 * would need a reservation that can be withdrawn from a task that may
 * already be picking it up.  Fair waiters have no order to keep beyond
 * not starving (they are equal; nothing is lent for them), so with only
 * fair waiters the lock is released as in none and anyone may take it,
 * the woken waiter protected by HANDOFF: handing it to a fair waiter
 * that must first get its CPU back made every arrival wait for that
 * (mutex.counter_exact_all_cpus ran 4 to 35 times slower).
 */
static struct mutex_waiter *unlock_choose(struct mutex *m, struct task *curr,
					  enum locking_mode mode,
					  unsigned long owner, bool *handoff)
{
	struct mutex_waiter *donor = NULL, *next;
	bool ranked = false;

	if (mode == LOCKING_PROXY)
		donor = take_donor_waiter(m, curr);
	if (donor || list_empty(&m->wait_list)) {
		next = donor;
	} else if (mode == LOCKING_INHERIT) {
		next = pi_top_waiter(m, &ranked);
	} else {
		next = list_first_entry(&m->wait_list, struct mutex_waiter,
					list);
	}
	*handoff = donor || ranked || (owner & MUTEX_FLAG_HANDOFF);
	return next;
}

static void __mutex_unlock_slowpath(struct mutex *m, struct task *curr)
{
	enum locking_mode mode = READ_ONCE(locking_mode);
	bool pi = mode == LOCKING_INHERIT || READ_ONCE(curr->pi_donor);
	struct mutex_waiter *next;
	struct task *heir = NULL;
	struct wake_q q;
	unsigned long flags, pi_flags = 0, owner, new;
	bool handoff;

	wake_q_init(&q);
	if (in_interrupt())
		mutex_misuse(m, curr, "unlock from interrupt context");
	/* Inherit: pi_walk_lock around the release and our re-walk, so no
	 * waiter that lent us its priority returns (and exits) before we
	 * stopped using it. */
	if (pi)
		pi_flags = pi_walk_begin();
	flags = spin_lock(&m->wait_lock);
	owner = READ_ONCE(m->owner);
	if (owner_task(owner) != curr) {
		spin_unlock(&m->wait_lock, flags);
		mutex_misuse(m, curr, owner_task(owner) ?
			     "unlock of a mutex it does not own" :
			     "unlock of an unlocked mutex");
	}
	if (owner & MUTEX_FLAG_PICKUP)
		mutex_misuse(m, curr, "unlock before picking up a handoff");
	list_del_init(&m->held_node);

	next = unlock_choose(m, curr, mode, owner, &handoff);
	if (next && handoff) {
		new = (unsigned long)next->task | MUTEX_FLAG_PICKUP |
		      MUTEX_FLAG_WAITERS;
		/* A waiter in inherit mode cannot leave before we drop
		 * pi_walk_lock (it unregisters under it): walk for it below. */
		if (pi && !list_empty(&next->pi_node))
			heir = next->task;
	} else {
		new = owner & MUTEX_FLAG_WAITERS;	/* released */
	}
	/* Nobody else changes the word while we own it and hold wait_lock
	 * (flags are set under wait_lock, stealing needs owner 0). */
	trace_mutex_release(curr, m, next ? next->task : NULL,
			    new & MUTEX_FLAG_PICKUP);
	__atomic_store_n(&m->owner, new, __ATOMIC_RELEASE);
	if (next) {
		set_task_blocked_on_waking(next->task, m);
		wake_q_add(&q, next->task, &next->wakers);
	}
	wake_q_unlock(&q, &m->wait_lock, flags);
	if (pi) {
		pi_walk_locked(curr);		/* drop what m's waiters lent */
		/* The new owner inherits from the waiters left now, not when
		 * it picks the lock up: it may need that to run at all (ww:
		 * the stamp order can choose a waiter less important than
		 * ones behind it). */
		if (heir)
			pi_walk_locked(heir);
		pi_walk_end(pi_flags);
	}
}

/* ---- Exit check ------------------------------------------------------ */

void mutex_check_exit(struct task *p)
{
	if (!list_empty(&p->held_mutexes)) {
		struct mutex *m = list_first_entry(&p->held_mutexes,
						   struct mutex, held_node);

		mutex_misuse(m, p, "task exits while holding it");
	}
	if (READ_ONCE(p->blocked_on))
		panic("task %s exits while blocked on a mutex", p->name);
}
