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
 *   owner on another CPU         (issue 5 migrates the chain there) for
 *                                now the donor sleeps like a plain mutex
 *                                waiter; mutex_unlock wakes it.
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
 * get wrong briefly (the pick simply runs again).
 */
#include "internal.h"
#include "string.h"
#include <printf.h>

unsigned long proxy_nr_deadlocks;
char proxy_deadlock_report[PROXY_REPORT_LEN];

/* Give the CPU's scheduling context to idle, so @donor can leave (or be
 * deactivated) without being rq->donor.  rq->lock held. */
static void proxy_donor_to_idle(struct rq *rq, struct task *donor)
{
	donor->sched_class->put_prev_task(rq, donor);
	rq->idle->sched_class->set_next_task(rq, rq->idle);
	rq->donor = rq->idle;
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
static void proxy_report_deadlock(struct task *donor)
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
static bool proxy_cycle_lockless(struct task *donor)
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

/* One hop's verdict. */
enum hop {
	HOP_NEXT,	/* continue from *ownerp */
	HOP_RUN,	/* run *ownerp (p, or the donor itself) */
	HOP_REPICK,	/* something changed: pick again */
	HOP_SLEEP,	/* donor must leave the runqueue (plain waiter) */
	HOP_PARKED,	/* donor parked on a sleeping owner */
};

static enum hop proxy_hop(struct rq *rq, struct task *donor, struct task *p,
			  struct task **ownerp)
{
	struct mutex *m = READ_ONCE(p->blocked_on);
	struct task *owner;
	enum hop verdict;

	if (!m)
		return HOP_REPICK;	/* got its lock meanwhile */
	if (m == PROXY_WAKING) {
		*ownerp = p;
		return HOP_RUN;
	}
	spin_lock_raw(&m->wait_lock);
	if (get_task_blocked_on(p) != m) {
		verdict = HOP_REPICK;
		goto out;
	}
	owner = mutex_owner(m);
	if (!owner) {
		/* Released, its waiters not woken yet: p runs and retakes it. */
		set_task_blocked_on_waking(p, m);
		*ownerp = p;
		verdict = HOP_RUN;
	} else if (owner == p) {
		/* Handed to p, which has not seen it yet: let it run. */
		*ownerp = p;
		verdict = HOP_RUN;
	} else if (!READ_ONCE(owner->on_rq)) {
		/* The donor's state is stable under rq->lock (it is queued):
		 * woken meanwhile, it runs rather than parks. */
		if (READ_ONCE(donor->state) == TASK_RUNNING) {
			*ownerp = donor;
			verdict = HOP_RUN;
		} else {
			verdict = proxy_park(donor, owner) ? HOP_PARKED : HOP_REPICK;
		}
	} else if (READ_ONCE(owner->cpu) != cpu_of(rq)) {
		verdict = HOP_SLEEP;
	} else {
		/* Queued here: rq->lock keeps it here and alive. */
		spin_lock_raw(&owner->blocked_lock);
		owner->blocked_donor = p;
		spin_unlock_raw(&owner->blocked_lock);
		*ownerp = owner;
		verdict = HOP_NEXT;
	}
out:
	spin_unlock_raw(&m->wait_lock);
	return verdict;
}

/*
 * @donor was picked and is blocked on a mutex (proxy_blocked()).  Find
 * the task to run with its scheduling context: the owner at the end of
 * the chain, or the donor itself when it is on its way to the lock.
 * Returns NULL when the pick must run again (the donor left the
 * runqueue, or the chain changed under us).  rq->lock held; rq->donor
 * == donor, set_next_task done for it.
 */
struct task *find_proxy_task(struct rq *rq, struct task *donor)
{
	struct task *p = donor, *owner = NULL;
	unsigned hops = 0;

	while (proxy_blocked(p)) {
		if (++hops > rq->nr_running + 1) {
			proxy_report_deadlock(donor);
			goto sleep;
		}
		switch (proxy_hop(rq, donor, p, &owner)) {
		case HOP_NEXT:
			p = owner;
			continue;
		case HOP_RUN:
			return owner;
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
		case HOP_SLEEP:
			if (proxy_cycle_lockless(donor) &&
			    proxy_cycle_lockless(donor))
				proxy_report_deadlock(donor);
			goto sleep;
		}
	}
	return p;
sleep:
	if (proxy_deactivate(rq, donor))
		return NULL;
	return donor;
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
	struct task *t = this_cpu()->rq.donor;

	arch_irq_restore(flags);
	return t;
}
