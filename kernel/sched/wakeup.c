/*
 * wakeup.c - waking tasks (try_to_wake_up: the one place a woken task,
 * and a migrated proxy donor, changes CPU) and sleeping.
 *
 * Sleeping, as in Linux:
 *
 *   sleeper (cpu0)                      waker (cpu1)
 *   current->state = TASK_SLEEPING
 *   smp_mb()                            cond = true
 *   if (!cond) schedule()               wake_up(sleeper)
 *     lock rq; state != RUNNING           lock pi_lock; state == SLEEPING?
 *     -> dequeue (on_rq = 0)              on_rq? lock rq, recheck: still
 *     switch; on_cpu = 0 (release)          queued -> state = RUNNING, done
 *                                         else wait on_cpu == 0 (acquire),
 *                                           pick cpu, enqueue, RUNNING
 *
 * A wakeup between the state store and schedule() finds the task still
 * queued and just marks it running, so schedule() keeps it: no wakeup is
 * lost.  Preemption (__schedule(true)) never dequeues a sleeping task.
 */
#include "internal.h"
#include "bitops.h"
#include "timer.h"

/* ---- Wakeups ------------------------------------------------------- */

/*
 * @p becomes TASK_RUNNING.  If it waits for a mutex (lock handed over,
 * timeout, wound) it stops being a donor that others follow and runs to
 * look at its lock: mark it PROXY_WAKING in the same blocked_lock section
 * as the state change.  A queued waiter may be running its mutex loop
 * right now (mutex_prepare_sleep puts blocked_on back and sets SLEEPING
 * under blocked_lock):
 *
 *   waker                              waiter, queued and picked
 *   mark PROXY_WAKING
 *                                      blocked_on = m, state = SLEEPING
 *   state = RUNNING          -> RUNNING yet blocked on m: wrong
 *
 * Together, the waiter sees either both or neither.  Also take it off a
 * sleeping owner it is parked on, and if this CPU runs a proxy, pick
 * again: the chain it ran for may have just changed (the lock it waited
 * for was released).  p->pi_lock held (and p's rq lock if queued).
 */
static void ttwu_set_running(struct task *p)
{
	struct rq *me = this_rq();
	bool waiter;

	spin_lock_raw(&p->blocked_lock);
	waiter = p->blocked_on != NULL;
	if (waiter && p->blocked_on != PROXY_WAKING)
		WRITE_ONCE(p->blocked_on, PROXY_WAKING);
	WRITE_ONCE(p->state, TASK_RUNNING);
	spin_unlock_raw(&p->blocked_lock);
	trace_wakeup(p, p->cpu);
	if (!waiter)
		return;
	proxy_unpark(p);
	if (READ_ONCE(me->curr) != READ_ONCE(me->donor))
		WRITE_ONCE(me->cpu->need_resched, true);
}

/* Enqueue @p on @rq and decide preemption.  @keep_blocked: a returning
 * donor stays TASK_SLEEPING with its chain: if its context is outranked
 * here, the chain (the donor and the owner it came back to) is pushed
 * on as soon as rq->lock is free (queue_push: the caller holds locks),
 * so a woken owner's chain runs where it can now, not only where the
 * owner was placed by its own context.  rq->lock held. */
static __attribute__((always_inline)) inline void
ttwu_activate(struct rq *rq, struct task *p, int flags,
			  bool keep_blocked)
{
	update_rq_clock(rq);
	activate_task(rq, p, flags);
	/*
	 * p was off every runqueue and CPU until activate_task() put it
	 * on rq, whose lock we hold: it is not running, so not in its
	 * mutex loop, the only place that sets blocked_on to a mutex (the
	 * task itself, mutex.c).  A NULL read here stays NULL (others
	 * only move a mutex to PROXY_WAKING or NULL), and blocked_lock,
	 * which orders the state store against that loop, has nothing to
	 * order: a plain sleeper's wakeup skips it.
	 */
	if (!keep_blocked && !READ_ONCE(p->blocked_on)) {
		WRITE_ONCE(p->state, TASK_RUNNING);
		trace_wakeup(p, p->cpu);
	} else if (!keep_blocked) {
		ttwu_set_running(p);
	}
	wakeup_preempt_rq(rq, p);
	if (READ_ONCE(rq->cpu->need_resched))
		return;
	if (!keep_blocked && p->sched_class->task_woken)
		p->sched_class->task_woken(rq, p);
	else if (keep_blocked && p->sched_class->queue_push)
		p->sched_class->queue_push(rq);
}

/* select_cpu() but for its commonest case. */
static __attribute__((noinline)) int select_cpu_class(struct task *p,
						      int prev,
						      uint64_t where,
						      int flags)
{
	int cpu;

	/* One online CPU allowed (pinned, or a lone CPU): every class may
	 * only choose inside the affinity (checked below), so it would
	 * choose that one; skip its lookups (cpupri, the other CPUs'
	 * donors).  No online CPU allowed: the class's path, and its
	 * check fails. */
	if (where && !(where & (where - 1)))
		return ctz64(where);
	cpu = p->sched_class->select_task_rq(p, prev, flags);

	/* A class may only choose inside the affinity; a bug otherwise. */
	if (cpu < 0 || cpu >= ncpus || !((where >> cpu) & 1))
		panic("%s class chose cpu%d for %s (allowed %#llx)",
		      p->sched_class->name, cpu, p->name,
		      (unsigned long long)where);
	return cpu;
}

/* The CPU @p wakes on (or, ENQUEUE_NEW, starts on).  Inline, the
 * commonest case first: p may run only where it was (pinned there, or
 * a lone CPU). */
static inline int select_cpu(struct task *p, int flags)
{
	/* A donor lent to another CPU starts from the one it came from. */
	int prev = p->wake_cpu >= 0 ? p->wake_cpu : p->cpu;
	uint64_t where = task_cpus_online(p);

	if (where == 1ULL << prev)
		return prev;
	return select_cpu_class(p, prev, where, flags);
}

/*
 * @p was queued when try_to_wake_up() looked (Linux's ttwu_runnable):
 * if it still is, wake it where it is and return true.  A task lent to
 * its runqueue (proxy) is taken off it first, and like one that left
 * the queue meanwhile, gets false: the caller places it.  p->pi_lock
 * held.
 */
static __attribute__((noinline)) bool ttwu_runnable(struct task *p,
						    bool keep_blocked)
{
	struct rq *rq = task_rq_lock(p);

	if (p->on_rq && !keep_blocked && !p->on_cpu &&
	    proxy_lent(p, cpu_of(rq))) {
		/* Lent here: take it off, for the caller to place.  Lent
		 * tasks never run where they are lent (a running one
		 * outside a new affinity is its stopper's business,
		 * sched_setaffinity); it may be the donor an owner runs
		 * for. */
		update_rq_clock(rq);
		if (rq->donor == p) {
			update_curr(rq);
			proxy_donor_to_idle(rq, p);
			resched_curr(rq);
		}
		deactivate_task(rq, p, DEQUEUE_SLEEP);
	}
	if (p->on_rq) {
		/* Never left its runqueue: just keep it.  Under proxy
		 * execution the pick may be following a chain through p:
		 * let it look again.  Otherwise a waiter woken where it is
		 * outranked may now run elsewhere (its chain could not move
		 * without its owner): its class pushes, as for any wakeup
		 * that does not preempt (sched_invariant.woken_waiter_moves). */
		if (!keep_blocked)
			ttwu_set_running(p);
		if (rq->curr != rq->donor)
			resched_curr(rq);
		else if (!keep_blocked && p != rq->donor &&
			 !READ_ONCE(rq->cpu->need_resched) &&
			 p->sched_class->task_woken)
			p->sched_class->task_woken(rq, p);
		spin_unlock_raw(&rq->lock);
		return true;
	}
	spin_unlock_raw(&rq->lock);
	return false;
}

/*
 * Wake @p (state TASK_SLEEPING) onto a runqueue: the CPU its class picks,
 * or @cpu (>= 0) if its affinity allows.  @keep_blocked: a donor coming
 * back to a woken owner (proxy_wake_donors) stays TASK_SLEEPING and
 * blocked on its mutex, queued only so that the pick can follow its
 * chain.  p->pi_lock held; returns with it held.
 *
 * Return migration happens here and only here: a waiter woken to take
 * its lock (handoff, release, timeout, wound) that is queued where it
 * may not run (proxy_lent: lent there as a donor, or outside its
 * affinity) leaves that runqueue and is placed like any sleeper, by its
 * class, starting from the CPU it was lent from.  It never runs there.
 */
static __attribute__((always_inline)) inline bool
try_to_wake_up(struct task *p, int cpu, bool keep_blocked)
{
	struct rq *rq;

	smp_mb();	/* pairs with the sleeper's state store + mb */
	if (READ_ONCE(p->state) != TASK_SLEEPING)
		return false;
	if (keep_blocked) {
		struct mutex *m = READ_ONCE(p->blocked_on);

		if (!m || m == PROXY_WAKING)
			return false;	/* woken otherwise meanwhile */
	}
	/* The load of on_rq pairs with deactivate_task(). */
	if (smp_load_acquire(&p->on_rq) && ttwu_runnable(p, keep_blocked))
		return true;
	/* A donor parked on another owner meanwhile (this wakeup is a stale
	 * one from a drain): that owner's wakeup brings it back. */
	if (keep_blocked && READ_ONCE(p->parked_on))
		return false;
	/* Dequeued; it may still be switching out on its old CPU.  Only
	 * after on_cpu drops are its registers saved and may it move.  This
	 * is the one place a woken task changes CPU. */
	while (smp_load_acquire(&p->on_cpu)) {
		/* Woken meanwhile by ttwu_local() and running again: its
		 * wakeup is done (waiting for it to sleep again could take
		 * as long as it runs). */
		if (READ_ONCE(p->on_rq))
			return false;
		arch_cpu_relax();
	}
	if (keep_blocked && cpu >= 0 && READ_ONCE(cpus[cpu].online)) {
		/* A donor goes to its owner's CPU even outside its affinity:
		 * it is lent there (and the pick would move it there). */
		if (!((p->cpus_allowed >> cpu) & 1) && p->wake_cpu < 0)
			p->wake_cpu = p->cpu;
	} else if (cpu < 0 || !((task_cpus_online(p) >> cpu) & 1)) {
		cpu = select_cpu(p, ENQUEUE_WAKEUP);
	}
	if (!keep_blocked)
		p->wake_cpu = -1;	/* back where it may run */
	rq = cpu_rq(cpu);
	OPTIMIZER_HIDE_VAR(rq);		/* not cpu_rq(cpu) three times */
	spin_lock_raw(&rq->lock);
	if (__builtin_expect(p->on_rq, 0)) {
		/* ttwu_local() woke it meanwhile, here (the one CPU it may
		 * run on): done. */
		spin_unlock_raw(&rq->lock);
		return false;
	}
	if (p->cpu != cpu) {
		p->nr_migrations++;
		trace_migrate(p, p->cpu, cpu, keep_blocked ? TRACE_MIG_CHAIN :
			      TRACE_MIG_WAKE);
	}
	WRITE_ONCE(p->cpu, cpu);
	ttwu_activate(rq, p, ENQUEUE_WAKEUP, keep_blocked);
	spin_unlock_raw(&rq->lock);
	return true;
}

/*
 * try_to_wake_up() under p->pi_lock, then bring back the donors parked
 * on p while it slept.  Nobody parks on p once it is queued, so the list
 * is complete by then.  p may run, release its locks and exit before the
 * donors are back: it is pinned (task_free waits) under p->pi_lock,
 * which thread_exit needs too.
 */
static __attribute__((always_inline)) inline bool
ttwu(struct task *p, int cpu, bool keep_blocked)
{
	unsigned long flags = spin_lock(&p->pi_lock);
	bool woke = try_to_wake_up(p, cpu, keep_blocked);
	bool donors = woke && !list_empty(&p->blocked_head);

	if (donors)
		__atomic_add_fetch(&p->proxy_pins, 1, __ATOMIC_ACQUIRE);
	spin_unlock(&p->pi_lock, flags);
	if (donors) {
		proxy_wake_donors(p);
		__atomic_sub_fetch(&p->proxy_pins, 1, __ATOMIC_RELEASE);
	}
	return woke;
}

/*
 * wake_up() without p->pi_lock, for a plain sleeper that can run on
 * this CPU only (its affinity, or a lone CPU), woken here: a sleeper's
 * own timer, rt_wakeup_lat's path (pi_lock's round trip and the
 * placement are 20 to 30 instructions of it).
 *
 * Under this CPU's rq->lock, with interrupts off, nothing else runs or
 * moves p, and its CPU, affinity and class change only under this lock
 * (and pi_lock: sched_setaffinity, sched_change).  Another wake_up(),
 * holding pi_lock, places p on this CPU too, the only one it may, and
 * so meets this one at this rq->lock: try_to_wake_up() finds p queued
 * there (or while it waits for on_cpu) and leaves it.  A mutex waiter or
 * donor is not for this path: its blocked_on is never NULL while it
 * sleeps (only the task itself clears it, mutex_remove_waiter()), so
 * the keep_blocked wakeups, placed on other CPUs, never race with it.
 * Neither is a deadline task (its wakeup may meet its replenishment
 * timer, which holds pi_lock), nor one still queued (its sleep not done
 * yet).  Returns 1 if it woke p, 0 if p was not sleeping, -1 for the
 * full path.
 */
static __attribute__((always_inline)) inline int ttwu_local(struct task *p)
{
	unsigned long flags = arch_irq_save();
	struct cpu *c = this_cpu();
	struct rq *rq = c->rq;
	uint64_t mine = 1ULL << c->id;
	int woke = -1;

	if (READ_ONCE(p->cpu) != c->id || READ_ONCE(p->blocked_on) ||
	    (p->cpus_allowed != mine && ncpus > 1))
		goto out;
	smp_mb();	/* pairs with the sleeper's state store + mb */
	spin_lock_raw(&rq->lock);
	if (p->cpu == c->id && !p->on_rq && !p->on_cpu && p->wake_cpu < 0 &&
	    !READ_ONCE(p->blocked_on) && p->sched_class != &dl_sched_class &&
	    (p->cpus_allowed == mine || ncpus == 1)) {
		woke = READ_ONCE(p->state) == TASK_SLEEPING;
		if (woke)
			ttwu_activate(rq, p, ENQUEUE_WAKEUP, false);
	}
	spin_unlock_raw(&rq->lock);
	/* As ttwu(), but p needs no pin: it cannot run before interrupts
	 * are back on here. */
	if (woke > 0 && !list_empty(&p->blocked_head))
		proxy_wake_donors(p);
out:
	arch_irq_restore(flags);
	/* As spin_unlock(): a task-context waker is preempted now by a
	 * more important task it woke (an interrupt's exit switches). */
	if (arch_irqs_enabled_flags(flags) &&
	    READ_ONCE(this_cpu()->need_resched))
		preempt_check_resched();
	return woke;
}

/* Each with its own copy of ttwu(): a sleeper's wakeup (wake_up(), the
 * commonest, an interrupt's) tests none of a donor's cases. */
static __attribute__((noinline)) bool wake_up_placed(struct task *p)
{
	return ttwu(p, -1, false);
}

bool wake_up(struct task *p)
{
	int woke = ttwu_local(p);

	if (woke >= 0)
		return woke;
	return wake_up_placed(p);	/* a tail call */
}

void wake_up_donor(struct task *p, int cpu)
{
	ttwu(p, cpu, true);
}

void wake_up_new_task(struct task *p)
{
	unsigned long flags = spin_lock(&p->pi_lock);
	int cpu = select_cpu(p, ENQUEUE_NEW);
	struct rq *rq = cpu_rq(cpu);

	spin_lock_raw(&rq->lock);
	p->cpu = cpu;
	ttwu_activate(rq, p, ENQUEUE_NEW, false);
	spin_unlock_raw(&rq->lock);
	spin_unlock(&p->pi_lock, flags);
}

/* ---- Sleeping ------------------------------------------------------ */

/* A tail call of ttwu(): no frame (kernel.h). */
static __no_frame void sleep_timer_fn(struct timer *t)
{
	wake_up(t->data);
}

void sleep_ns(uint64_t ns)
{
	sleep_until(clock_ns() + ns);
}

void sleep_until(uint64_t deadline)
{
	struct task *self = current();
	struct timer t;

	timer_init(&t, sleep_timer_fn, self);
	for (;;) {
		WRITE_ONCE(self->state, TASK_SLEEPING);
		smp_mb();
		if (clock_ns() >= deadline)
			break;
		timer_arm(&t, deadline);
		schedule();
		/* Off its queue: only its interrupt takes it off (nobody
		 * else cancels it), and only once the deadline has passed
		 * (it is not ->early).  Done, without another look at the
		 * clock. */
		if (smp_load_acquire(&t.cpu) < 0)
			break;
	}
	WRITE_ONCE(self->state, TASK_RUNNING);
	timer_cancel(&t);
}
