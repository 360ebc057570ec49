/*
 * proxy.c - proxy execution: run a mutex owner on behalf of the task that
 * waits for it (Linux's proxy-execution series, find_proxy_task()).
 *
 * In locking mode "proxy" a task that blocks on a mutex stays on its
 * runqueue with ->blocked_on set.  The pick may choose it like any other
 * task; it then becomes the scheduling context (rq->donor: class,
 * priority, deadline, budget, vruntime), and find_proxy_task() follows
 *
 *     donor -blocked_on-> mutex -owner-> task -blocked_on-> ... -> owner
 *
 * to the task at the end of the chain, which runs as the execution
 * context (rq->curr).  update_curr() charges execution time to curr and
 * scheduling-context time (vruntime, DL budget, RR slice) to the donor.
 * Each owner on the way records in ->blocked_donor the task that was
 * blocked on it, so mutex_unlock() hands the lock to that task.
 *
 * What the walk does at each hop, with rq->lock held, the hop's mutex
 * wait_lock held and re-checked:
 *
 *   blocked_on == PROXY_WAKING   the task was chosen to take a lock and
 *                                is being woken: run it.
 *   mutex has no owner           released, waiters not yet woken: mark
 *                                the task waking and run it; it retakes
 *                                the lock in mutex_lock's loop.
 *   owner queued on this rq      continue from the owner.
 *   owner sleeping (not queued)  the donor leaves the runqueue and parks
 *                                on the owner's blocked_head; when the
 *                                owner is woken, proxy_wake_donors()
 *                                brings it back on the owner's CPU.
 *   owner on another CPU         the donor, with every blocked task of
 *                                its chain queued here, moves to the
 *                                owner's CPU and the pick runs again
 *                                (proxy_migrate).  There they are lent
 *                                tasks (proxy_lent): they never run
 *                                there; the wakeup that hands one its
 *                                lock moves it back (try_to_wake_up).
 *                                Unless lending cannot help (the owner
 *                                runs there, above the donor's context:
 *                                proxy_worth_moving): then the donor
 *                                sleeps as a plain waiter.
 *   a lent task must run         (handed its lock, timed out...) it
 *                                leaves the runqueue; the wakeup on
 *                                its way places it (proxy_leave).
 *   more hops than tasks queued  a blocked_on cycle: a deadlock.  It is
 *                                reported (every task and mutex named),
 *                                and the donor sleeps like a plain
 *                                waiter instead of being picked again.
 *                                (A cycle through other CPUs or sleeping
 *                                owners is found, without locks, where
 *                                the walk stops: see proxy_cycle_lockless.)
 *
 * Locks: rq->lock -> mutex wait_lock -> task blocked_lock (mutex.h).
 * Within one walk only one wait_lock is held at a time; everything the
 * walk concludes is re-checked under the next hop's lock or is safe to
 * get wrong briefly (the pick simply runs again).  Moving a chain takes
 * the owner's rq->lock too and may drop this one (double_lock_balance):
 * the move checks every task again under both.
 */
#include "internal.h"
#include "string.h"
#include <printf.h>

unsigned long proxy_nr_deadlocks;
unsigned long proxy_nr_migrations;
unsigned long proxy_nr_chain_moves;
char proxy_deadlock_report[PROXY_REPORT_LEN];

/* Give the CPU's scheduling context to idle, so @donor can leave (or be
 * deactivated) without being rq->donor.  rq->lock held.  (proxy.h) */
void proxy_donor_to_idle(struct rq *rq, struct task *donor)
{
	donor->sched_class->put_prev_task(rq, donor);
	rq->idle->sched_class->set_next_task(rq, rq->idle);
	rq->donor = rq->idle;
	rq_donor_changed(rq);
}

/*
 * The picked @donor cannot be helped on this CPU: take it off the
 * runqueue like a plain sleeping waiter.  Its state is stable here: a
 * wake_up() of a queued task changes it only under rq->lock.  Returns
 * false if it was woken meanwhile (TASK_RUNNING): then it simply runs.
 */
static bool proxy_deactivate(struct rq *rq, struct task *donor)
{
	if (READ_ONCE(donor->state) == TASK_RUNNING)
		return false;
	proxy_donor_to_idle(rq, donor);
	deactivate_task(rq, donor, DEQUEUE_SLEEP);
	return true;
}

/*
 * @owner sleeps: park @donor on it.  Pairs with proxy_wake_donors():
 * either that sees donor on blocked_head, or we see owner->on_rq set
 * (it is set before the waker takes blocked_lock) and pick again.
 * Caller holds rq->lock and the wait_lock of the mutex @owner holds.
 */
static bool proxy_park(struct task *donor, struct task *owner)
{
	bool parked = false;

	spin_lock_raw(&owner->blocked_lock);
	if (!READ_ONCE(owner->on_rq)) {
		list_add_tail(&donor->blocked_node, &owner->blocked_head);
		donor->parked_on = owner;
		parked = true;
	}
	spin_unlock_raw(&owner->blocked_lock);
	return parked;
}

/*
 * p->pi_lock held (the wakeup path is the only caller).  The owner read
 * here stays alive while we lock it: if a drain takes p off its list
 * first, that drain then waits for p->pi_lock (wake_up_donor) with the
 * owner pinned.
 */
void proxy_unpark(struct task *p)
{
	struct task *owner = READ_ONCE(p->parked_on);

	if (!owner)
		return;
	spin_lock_raw(&owner->blocked_lock);
	if (p->parked_on == owner) {
		list_del_init(&p->blocked_node);
		p->parked_on = NULL;
	}
	spin_unlock_raw(&owner->blocked_lock);
}

/*
 * @owner has just been made runnable: bring back the donors parked on
 * it, onto owner's CPU, and theirs in turn (a parked donor can itself
 * own a mutex others wait for).  Any context, no locks held; the caller
 * pins owner (proxy_pins), and each donor is pinned here from the moment
 * it leaves the list until its wakeup is done: either may otherwise run,
 * exit and be freed under us.
 */
void proxy_wake_donors(struct task *owner)
{
	for (;;) {
		unsigned long flags;
		struct task *d = NULL;

		if (list_empty(&owner->blocked_head))	/* see proxy_park */
			return;
		flags = arch_irq_save();
		spin_lock_raw(&owner->blocked_lock);
		if (!list_empty(&owner->blocked_head)) {
			d = list_first_entry(&owner->blocked_head,
					     struct task, blocked_node);
			list_del_init(&d->blocked_node);
			d->parked_on = NULL;
			__atomic_add_fetch(&d->proxy_pins, 1, __ATOMIC_ACQUIRE);
		}
		spin_unlock_raw(&owner->blocked_lock);
		arch_irq_restore(flags);
		/* One at a time, without blocked_lock: waking takes d's
		 * pi_lock and a rq lock, which come before it. */
		if (d) {
			wake_up_donor(d, READ_ONCE(owner->cpu));
			__atomic_sub_fetch(&d->proxy_pins, 1, __ATOMIC_RELEASE);
		}
	}
}

/* ---- Deadlock report ------------------------------------------------- */

/*
 * A blocked_on cycle through @donor: print it once, every task and
 * mutex named, e.g.
 *   DEADLOCK: A waits for m1 held by B, B waits for m2 held by A
 * The walk is lockless (racy reads); the cycle it reports was seen under
 * the locks by find_proxy_task, or twice by proxy_cycle_lockless, and a
 * true deadlock does not move.
 */
static __lab_helper void proxy_report_deadlock(struct task *donor)
{
	char *buf = proxy_deadlock_report;
	size_t len = 0;
	struct task *p = donor;

	len += snprintf(buf + len, PROXY_REPORT_LEN - len, "DEADLOCK:");
	for (int hop = 0; hop < PROXY_MAX_REPORT_HOPS; hop++) {
		struct mutex *m = READ_ONCE(p->blocked_on);
		struct task *o;

		if (!m || m == PROXY_WAKING || !(o = mutex_owner(m)))
			break;
		if (len < PROXY_REPORT_LEN)
			len += snprintf(buf + len, PROXY_REPORT_LEN - len,
					"%s %s waits for %s held by %s",
					hop ? "," : "", p->name, m->name, o->name);
		p = o;
		if (p == donor)
			break;
	}
	proxy_nr_deadlocks++;
	printk("%s\n", buf);
}

/*
 * The walk stops at an owner on another CPU, so a cycle through other
 * CPUs is not met there.  Follow the links from @donor without locks:
 * a deadlocked cycle does not move, so two looks that both come back to
 * the donor mean a cycle (the worst a stale look could do is print a
 * report; the donor sleeps as a plain waiter either way).
 */
static __lab_helper bool proxy_cycle_lockless(struct task *donor)
{
	struct task *p = donor;

	for (int hop = 0; hop < PROXY_MAX_REPORT_HOPS; hop++) {
		struct mutex *m = READ_ONCE(p->blocked_on);

		if (!m || m == PROXY_WAKING || !(p = mutex_owner(m)))
			return false;
		if (p == donor)
			return true;
	}
	return false;
}

/* ---- The walk ------------------------------------------------------- */

/*
 * @owner of @m is queued or running on CPU @cpu, not here.  Move the
 * chain there only where lending the donor's context can help: the owner
 * is waiting for that CPU (not just handed @m and woken) or is leaving
 * it, or the donor's context ranks before the one the owner runs with
 * there (sched_prio_before: deadline, RT priority; one fair context
 * never ranks before another).  A running owner that the donor could
 * not speed up will release soon; the donor waits as a plain waiter
 * meanwhile (the unlock wakes it): moving a chain per contended
 * acquisition cost up to 3x in throughput against plain mutexes (bench
 * mutex_contended).  If that owner is preempted later, it is by a
 * context that outranks the one it ran with, which the donor's did not.
 *
 * "Leaving" is an owner still on the CPU whose donor there is neither
 * the owner nor a blocked task (whose chain it would end): the pick
 * there chose something else and the switch is under way.  Asleep, the
 * donor's context would be lost to the owner, though a push could take
 * the two to a free CPU (proxy_push.deadline_chain_pushed).
 *
 * Only a donor that holds no mutex sleeps: nobody can block on it while
 * it sleeps.  Lockless peeks: a wrong guess costs one migration or one
 * sleep.
 */
static bool proxy_worth_moving(struct mutex *m, struct task *donor,
			       struct task *owner, int cpu)
{
	struct task *there;

	/* A donor that holds mutexes may be in others' chains: asleep, it
	 * would cut them (they could not reach its owner).  It is blocked
	 * and not running, so its held list holds still. */
	if (!list_empty(&donor->held_mutexes))
		return true;
	there = READ_ONCE(cpu_rq(cpu)->donor);
	if (READ_ONCE(owner->on_cpu)) {
		if (there != owner && !READ_ONCE(there->blocked_on))
			return true;		/* leaving */
	} else if (!(READ_ONCE(m->owner) & MUTEX_FLAG_PICKUP)) {
		return true;			/* waiting for the CPU */
	}
	/* Running, or handed the lock and woken (PICKUP: it runs as soon
	 * as it can, like a running owner). */
	return sched_prio_before(donor, there);
}

/*
 * __schedule: @prev just blocked on a mutex whose owner runs on another
 * CPU, where prev's context would change nothing (proxy_worth_moving).
 * The pick would walk to that owner and put prev to sleep anyway: true
 * if it should leave the runqueue now, as a plain waiter (the unlock
 * wakes it), saving a pick and a walk per such block.  One look under
 * the wait_lock, the one the walk would take.  rq->lock held.
 */
bool proxy_prev_sleeps(struct rq *rq, struct task *prev)
{
	struct mutex *m = READ_ONCE(prev->blocked_on);
	struct task *owner;
	bool sleep = false;

	if (!m || m == PROXY_WAKING)
		return false;
	/* An owner seen on this CPU is the pick's (it runs here for prev),
	 * whatever the look under the wait_lock would add: that look reads
	 * owner->cpu locklessly too.  (Heap memory stays mapped: a peek at
	 * an owner that just exited reads a stale cpu, and a wrong guess
	 * costs one walk, as above.) */
	owner = mutex_owner(m);
	if (owner && READ_ONCE(owner->cpu) == cpu_of(rq))
		return false;
	spin_lock_raw(&m->wait_lock);
	owner = get_task_blocked_on(prev) == m ? mutex_owner(m) : NULL;
	if (owner && owner != prev && READ_ONCE(owner->on_rq)) {
		int cpu = READ_ONCE(owner->cpu);

		sleep = cpu != cpu_of(rq) &&
			!proxy_worth_moving(m, prev, owner, cpu);
	}
	spin_unlock_raw(&m->wait_lock);
	return sleep;
}

/* One hop's verdict. */
enum hop {
	HOP_NEXT,	/* continue from *ownerp */
	HOP_RUN,	/* run *ownerp (p, or the donor itself) */
	HOP_REPICK,	/* something changed: pick again */
	HOP_PARKED,	/* donor parked on a sleeping owner */
	HOP_MIGRATE,	/* owner on CPU *cpup: move the chain there */
	HOP_SLEEP,	/* owner runs there anyway: wait as a plain waiter */
	HOP_LENT,	/* p must run but may not run here (proxy_lent) */
};

/* One hop from @p (queued here, blocked).  rq->lock held. */
static __lab_helper enum hop proxy_hop(struct rq *rq, struct task *donor,
				       struct task *p, struct task **ownerp,
				       int *cpup)
{
	struct mutex *m = READ_ONCE(p->blocked_on);
	/* Woken and never lent, only outside an affinity that is being
	 * changed (sched_setaffinity may drop rq->lock before it moves p):
	 * p runs like any runnable task would; its mover moves it. */
	bool lent = proxy_lent(p, cpu_of(rq)) &&
		    !(p->wake_cpu < 0 && READ_ONCE(p->state) == TASK_RUNNING);
	struct task *owner;
	enum hop verdict;

	if (!m)
		return HOP_REPICK;	/* got its lock meanwhile */
	if (m == PROXY_WAKING) {
		*ownerp = p;
		return lent ? HOP_LENT : HOP_RUN;
	}
	spin_lock_raw(&m->wait_lock);
	if (get_task_blocked_on(p) != m) {
		verdict = HOP_REPICK;
		goto out;
	}
	owner = mutex_owner(m);
	if (!owner && lent) {
		/* Released, waiters not woken yet, but p may not run here
		 * to retake it: it waits like a plain waiter (not marked:
		 * nobody would wake it), the unlocker wakes one. */
		verdict = HOP_LENT;
	} else if (!owner) {
		/* Released, its waiters not woken yet: p runs and retakes it. */
		set_task_blocked_on_waking(p, m);
		*ownerp = p;
		verdict = HOP_RUN;
	} else if (owner == p) {
		/* Handed to p, which has not seen it yet: let it run (its
		 * waker moves it first if it was lent here). */
		*ownerp = p;
		verdict = lent ? HOP_LENT : HOP_RUN;
	} else if (!READ_ONCE(owner->on_rq)) {
		/* The donor's state is stable under rq->lock (it is queued):
		 * woken meanwhile, it runs rather than parks. */
		if (READ_ONCE(donor->state) == TASK_RUNNING) {
			*ownerp = donor;
			verdict = HOP_RUN;
		} else {
			verdict = proxy_park(donor, owner) ? HOP_PARKED : HOP_REPICK;
		}
	} else if ((*cpup = READ_ONCE(owner->cpu)) != cpu_of(rq)) {
		/* Queued or running there (read once: it may be moving).
		 * If it moves on meanwhile, the walk there follows it. */
		verdict = proxy_worth_moving(m, donor, owner, *cpup) ?
			  HOP_MIGRATE : HOP_SLEEP;
	} else {
		/* Queued here: rq->lock keeps it here and alive. */
		spin_lock_raw(&owner->blocked_lock);
		owner->blocked_donor = p;
		spin_unlock_raw(&owner->blocked_lock);
		trace_proxy_hop(donor, p, m);
		*ownerp = owner;
		verdict = HOP_NEXT;
	}
out:
	spin_unlock_raw(&m->wait_lock);
	return verdict;
}

/*
 * @p must run to take its lock (handed over, released, timed out,
 * wounded) but may not run here: it was lent to this CPU (proxy_lent).
 * Whoever marked it PROXY_WAKING is about to wake it, and that wakeup
 * places it where it may run (for a released mutex not marked, the
 * unlocker wakes a waiter, as for plain waiters).  Until then it waits
 * off the runqueue like any sleeping waiter.  Its state is stable here:
 * a wakeup of a queued task changes it only under rq->lock, and moves a
 * lent task off this runqueue as it does.  Returns NULL: pick again.
 */
static __lab_helper struct task *proxy_leave(struct rq *rq,
					     struct task *donor,
					     struct task *p)
{
	if (READ_ONCE(p->state) != TASK_SLEEPING)
		panic("proxy: %s is woken but still queued on cpu%d, where it "
		      "may not run", p->name, cpu_of(rq));
	if (p == donor)
		proxy_donor_to_idle(rq, donor);
	deactivate_task(rq, p, DEQUEUE_SLEEP);
	return NULL;
}

/* ---- Moving a chain to its owner's CPU ------------------------------- */

/* @p, seen in a chain, can still be lent: queued here, not on a CPU, not
 * the donor, asleep and waiting for a mutex.  rq->lock held. */
static bool proxy_can_lend(struct rq *rq, struct task *p)
{
	struct mutex *m = READ_ONCE(p->blocked_on);

	return p->on_rq && p->cpu == cpu_of(rq) && !READ_ONCE(p->on_cpu) &&
	       p != rq->curr && p != rq->donor &&
	       READ_ONCE(p->state) == TASK_SLEEPING &&
	       m && m != PROXY_WAKING && locking_mode == LOCKING_PROXY;
}

/* The owner of the mutex @p waits for, if it is queued (or running)
 * somewhere; its CPU in *@cpu.  Under the mutex's wait_lock the owner
 * cannot release it (p waits, so unlock takes the slow path) and cannot
 * exit; once seen queued on @rq, rq->lock keeps it here and alive.
 * rq->lock held. */
static struct task *proxy_owner_queued(struct rq *rq, struct task *p, int *cpu)
{
	struct mutex *m = READ_ONCE(p->blocked_on);
	struct task *owner, *next = NULL;

	(void)rq;
	if (!m || m == PROXY_WAKING)
		return NULL;
	spin_lock_raw(&m->wait_lock);
	if (get_task_blocked_on(p) == m) {
		owner = mutex_owner(m);
		if (owner && owner != p && READ_ONCE(owner->on_rq)) {
			next = owner;
			*cpu = READ_ONCE(owner->cpu);
		}
	}
	spin_unlock_raw(&m->wait_lock);
	return next;
}

/* The owner of the mutex @p waits for, if it is queued on @rq. */
static struct task *proxy_owner_here(struct rq *rq, struct task *p)
{
	int cpu;
	struct task *owner = proxy_owner_queued(rq, p, &cpu);

	return owner && cpu == cpu_of(rq) ? owner : NULL;
}

/*
 * The chain of @donor, queued on @rq, ends at an owner queued or running
 * on @cpu: move the donor and every blocked task of its chain queued
 * here to @cpu, and pick again (Linux's proxy_migrate_task()).  The
 * owner does not move, so its affinity is respected; the donors' need
 * not be: they only lend their scheduling context there (proxy_lent),
 * and the wakeup that hands one its lock moves it back.
 *
 *   this CPU (pick)                      owner's CPU
 *   donor -> idle (rq->donor)
 *   double_lock_balance: both rq locks,
 *     this one maybe dropped and
 *     retaken (the chain may change:
 *     check each task again)
 *   for donor, then each owner in its
 *   chain that is queued here:
 *     move_blocked_task (on_rq stays 1)  enqueued, still TASK_SLEEPING
 *     wakeup_preempt_rq                  resched: its pick finds the
 *                                          donor and runs the owner
 *   not preempting there: queue_push     (or a push moves the chain on)
 *   unlock the owner's rq; return NULL
 *
 * A task that cannot move (woken meanwhile, marked waking, gone) ends
 * the move there: what moved is correct on its own, what stays is
 * picked and walked again here.
 *
 * prev, still on this CPU's stack, cannot move yet.  If it is in the
 * chain (a task that just blocked, or an owner that just blocked in
 * turn), run idle until it has switched out (Linux's
 * proxy_resched_idle): need_resched makes idle pick again at once, and
 * by then prev->on_cpu is 0.  rq->lock held, may be dropped.
 */
static __lab_helper struct task *proxy_migrate(struct rq *rq,
					       struct task *donor, int cpu,
					       bool prev_in_chain)
{
	struct rq *dst = cpu_rq(cpu);
	struct task *p = donor;

	proxy_donor_to_idle(rq, donor);
	if (prev_in_chain) {
		WRITE_ONCE(rq->cpu->need_resched, true);
		return rq->idle;
	}
	double_lock_balance(rq, dst);
	update_rq_clock(dst);
	while (p && proxy_can_lend(rq, p)) {
		struct task *next = proxy_owner_here(rq, p);

		move_blocked_task(rq, dst, p, true);
		trace_migrate(p, cpu_of(rq), cpu, TRACE_MIG_CHAIN);
		wakeup_preempt_rq(dst, p);
		p = next;
	}
	/* Outranked there?  Then its CPU may push the chain on to a CPU
	 * where it runs (push/pull move chains whole). */
	if (p != donor && !READ_ONCE(dst->cpu->need_resched) &&
	    donor->sched_class->queue_push)
		donor->sched_class->queue_push(dst);
	double_unlock_balance(rq, dst);
	proxy_nr_migrations++;
	return NULL;
}

/* ---- Whole chains, for push and pull ---------------------------------- */

/*
 * Is @p waited on here: is a task queued on @rq, with a context that may
 * run, blocked on a mutex that @p owns?  Then p is not the head of its
 * chain and may not move without the tasks that wait on it.  A runnable
 * p (the would-be proxy at a chain's end) is held back by any such
 * waiter; a blocked p (a link in a chain's middle), with @blocked, only
 * by a waiter whose context runs before p's (sched_prio_before): a less
 * important one lends nothing while p's chain runs with p's context,
 * and its own pick follows the chain wherever it went.  So is a
 * throttled deadline waiter, until its replenishment.
 *
 * Lockless look at the owners: p is queued and not running (the caller
 * checked, under rq->lock), so it can take or release no mutex
 * meanwhile; a handoff to it racing with us is followed by the walk
 * later (its donors move to it).  rq->lock held.
 */
static bool proxy_waited_on_here(struct rq *rq, struct task *p, bool blocked)
{
	struct list_head *pos;

	if (locking_mode != LOCKING_PROXY)
		return false;
	list_for_each(pos, &rq->tasks) {
		struct task *b = list_entry(pos, struct task, rq_node);
		struct mutex *m;

		if (b == rq->curr)	/* running: in no chain as a waiter */
			continue;
		if (b->sched_class == &dl_sched_class && b->dl.dl_throttled)
			continue;
		m = READ_ONCE(b->blocked_on);
		if (m && m != PROXY_WAKING && mutex_owner(m) == p &&
		    (!blocked || sched_prio_before(b, p)))
			return true;
	}
	return false;
}

/* @p may move with its chain: queued here, not running or being
 * switched to or from, not this CPU's donor.  rq->lock held. */
static bool proxy_chain_member_ok(struct rq *rq, struct task *p)
{
	return p->on_rq && p->cpu == cpu_of(rq) && p != rq->curr &&
	       p != rq->donor && !READ_ONCE(p->on_cpu);
}

bool proxy_chain_of(struct rq *rq, struct task *p, struct proxy_chain *c)
{
	c->n = 0;
	c->lend = false;
	for (;;) {
		struct task *owner;
		int cpu;

		if (!proxy_chain_member_ok(rq, p) || c->n == PROXY_CHAIN_MAX)
			return false;
		/* Only a chain's head moves it: a task that a task queued
		 * here waits on (the owner at its end, or a blocked one in
		 * its middle) would leave that one behind.  RT push/pull
		 * once moved an RT middle (M -> L) and left its deadline
		 * head H queued on the old CPU (football). */
		if (c->n == 0 &&
		    proxy_waited_on_here(rq, p, proxy_blocked(p) &&
					 READ_ONCE(p->blocked_on) != PROXY_WAKING))
			return false;
		c->task[c->n++] = p;
		/* A woken waiter is as runnable as any task: it may move
		 * (on its own, or ending a chain); one still lent here
		 * may not (its wakeup moves it back, try_to_wake_up). */
		if (!proxy_blocked(p) ||
		    (READ_ONCE(p->blocked_on) == PROXY_WAKING &&
		     !proxy_lent(p, cpu_of(rq)))) {
			/* The end: what runs for the chain. */
			c->cpus = task_cpus_online(p);
			return true;
		}
		/* Blocked: asleep on a real mutex whose owner is queued
		 * (one about to run, or waiting for a sleeping owner, is the
		 * pick's business).  Seen queued here under the wait_lock,
		 * rq->lock keeps the owner here and alive; seen elsewhere,
		 * the chain goes on there. */
		if (READ_ONCE(p->state) != TASK_SLEEPING ||
		    !(owner = proxy_owner_queued(rq, p, &cpu)))
			return false;
		if (cpu != cpu_of(rq)) {
			c->lend = true;
			c->cpus = (1ULL << cpu) & cpus_online_mask();
			return true;
		}
		p = owner;
	}
}

void proxy_chain_move(struct rq *src, struct rq *dst,
		      const struct proxy_chain *c)
{
	for (unsigned i = 0; i < c->n; i++) {
		struct task *p = c->task[i];

		if (c->lend || i + 1 < c->n)
			move_blocked_task(src, dst, p, c->lend);
		else
			move_queued_task(src, dst, p);
	}
	if (c->n > 1)
		proxy_nr_chain_moves++;
}

/* ---- The walk, whole ------------------------------------------------- */

/*
 * @donor was picked and is blocked on a mutex (proxy_blocked()).  Find
 * the task to run with its scheduling context: the owner at the end of
 * the chain, or the donor itself when it is on its way to the lock.
 * Returns NULL when the pick must run again (the donor left the
 * runqueue or moved to another CPU, or the chain changed under us), or
 * rq->idle to let prev switch out first (proxy_migrate).  rq->lock
 * held, may be dropped; rq->donor == donor, set_next_task done for it.
 */
struct task *find_proxy_task(struct rq *rq, struct task *donor)
{
	/* LAB 9 BEGIN: walk blocked_on -> mutex -> owner, act on each hop */
	struct task *p = donor, *owner = NULL;
	bool prev_in_chain = false;
	enum hop verdict;
	unsigned hops = 0;
	int cpu = -1;

	while (proxy_blocked(p)) {
		if (++hops > rq->nr_running + 1) {
			proxy_report_deadlock(donor);
			goto sleep;
		}
		prev_in_chain |= p == rq->curr;
		switch ((verdict = proxy_hop(rq, donor, p, &owner, &cpu))) {
		case HOP_NEXT:
			p = owner;
			continue;
		case HOP_RUN:
			return owner;
		case HOP_LENT:
			return proxy_leave(rq, donor, p);
		case HOP_REPICK:
			return proxy_blocked(donor) ? NULL : donor;
		case HOP_PARKED:
			/* An owner asleep for good, in a cycle: say so. */
			if (proxy_cycle_lockless(donor) &&
			    proxy_cycle_lockless(donor))
				proxy_report_deadlock(donor);
			/* Not TASK_RUNNING (proxy_hop checked, under
			 * rq->lock): it leaves the runqueue. */
			if (!proxy_deactivate(rq, donor))
				panic("proxy: parked %s is running", donor->name);
			return NULL;
		case HOP_MIGRATE:
		case HOP_SLEEP:
			/* A cycle through other CPUs: report it here rather
			 * than move it around (the walk there would find it
			 * too, once it is all on one CPU). */
			if (proxy_cycle_lockless(donor) &&
			    proxy_cycle_lockless(donor)) {
				proxy_report_deadlock(donor);
				goto sleep;
			}
			if (verdict == HOP_SLEEP)
				goto sleep;
			return proxy_migrate(rq, donor, cpu, prev_in_chain);
		}
	}
	return p;
sleep:
	if (proxy_deactivate(rq, donor))
		return NULL;
	return donor;
	/* LAB 9 STUB
	if (proxy_blocked(donor) && proxy_deactivate(rq, donor))
		return NULL;
	return donor;
	LAB 9 END */
}

/*
 * Invariants after a pick that runs @next for another task @donor (always
 * on: the walk just did the work): next is an ordinary task queued here,
 * is not itself waiting for a mutex, and is the end of donor's chain.
 * (The donor itself may run while still marked blocked, woken or
 * preempted before it slept: it is in mutex_lock's loop.)
 */
void proxy_check_pick(struct rq *rq, struct task *donor, struct task *next)
{
	struct mutex *m = READ_ONCE(next->blocked_on);
	struct task *p = donor;

	if (next == rq->idle || next == rq->stop)
		panic("proxy: %s picked to run for %s", next->name, donor->name);
	if (!next->on_rq || next->cpu != cpu_of(rq))
		panic("proxy: picked %s (donor %s) is not queued on cpu%d",
		      next->name, donor->name, cpu_of(rq));
	if (m && m != PROXY_WAKING)
		panic("proxy: %s runs for %s while waiting for %s",
		      next->name, donor->name, m->name);
	/* next is where donor's chain ends.  Lockless: a link a remote
	 * wakeup just changed (PROXY_WAKING, released) ends the check. */
	for (unsigned hops = 0; p != next; hops++) {
		struct mutex *bm = READ_ONCE(p->blocked_on);

		if (!bm || bm == PROXY_WAKING || !(p = mutex_owner(bm)))
			return;
		if (hops > rq->nr_running)
			panic("proxy: %s runs for %s but is not at the end of its "
			      "blocked_on chain", next->name, donor->name);
	}
}

struct task *current_donor(void)
{
	unsigned long flags = arch_irq_save();	/* no migration mid-read */
	struct task *t = this_rq()->donor;

	arch_irq_restore(flags);
	return t;
}
