/*
 * setattr.c - changing a task's policy, parameters and affinity at run
 * time (Linux's kernel/sched/syscalls.c): sched_setattr, sched_getattr,
 * sched_setaffinity.
 *
 * A parameter change follows Linux's "dequeue, change, enqueue" pattern:
 * with p->pi_lock and its rq->lock held, the task is taken out of its
 * class (DEQUEUE_SAVE, and put_prev_task if it is running), its fields
 * change, it goes back (ENQUEUE_RESTORE / set_next_task), and the CPU
 * reschedules so the pick sees the new order.
 */
#include "internal.h"


#define SLICE_MIN_NS (100 * NSEC_PER_USEC)
#define SLICE_MAX_NS (100 * NSEC_PER_MSEC)

/* Every rule an attribute must satisfy; never clamps. */
static int attr_valid(const struct sched_attr *a)
{
	bool no_dl = !a->dl_runtime && !a->dl_deadline && !a->dl_period;

	switch (a->policy) {
	case SCHED_NORMAL:
		if (a->nice < NICE_MIN || a->nice > NICE_MAX || a->rt_priority || !no_dl)
			return -EINVAL;
		if (a->slice_ns && (a->slice_ns < SLICE_MIN_NS || a->slice_ns > SLICE_MAX_NS))
			return -EINVAL;
		return 0;
	case SCHED_FIFO:
	case SCHED_RR:
		if (a->rt_priority < RT_PRIO_MIN || a->rt_priority > RT_PRIO_MAX ||
		    a->nice || a->slice_ns || !no_dl)
			return -EINVAL;
		return 0;
	case SCHED_DEADLINE: {
		uint64_t period = a->dl_period ? a->dl_period : a->dl_deadline;

		if (a->nice || a->rt_priority || a->slice_ns)
			return -EINVAL;
		/* The limits and why: sched.h, DL_RUNTIME_MIN_NS. */
		if (a->dl_runtime < DL_RUNTIME_MIN_NS || a->dl_deadline < a->dl_runtime ||
		    period < a->dl_deadline || period < DL_PERIOD_MIN_NS ||
		    period > DL_PERIOD_MAX_NS)
			return -EINVAL;
		return 0;
	}
	}
	return -EINVAL;
}

/* Write @attr into @p's generic fields and its class's parameters.
 * p is out of its class (dequeued / put), locks held. */
static void set_params(struct task *p, const struct sched_attr *attr)
{
	p->policy = attr->policy;
	p->rt_priority = attr->rt_priority;
	if (attr->policy == SCHED_NORMAL)
		p->static_prio = NICE_TO_PRIO(attr->nice);
	if (attr->policy == SCHED_DEADLINE)
		dl_set_params(p, attr);
	else if (attr->policy == SCHED_NORMAL)
		fair_set_params(p, attr);
	p->prio = normal_prio(p);
	p->sched_class = policy_class(attr->policy);
}

static void setattr_change(struct task *p, const void *arg);

void sched_change(struct task *p, void (*change)(struct task *p, const void *arg),
		  const void *arg)
{
	const struct sched_class *prev_class;
	unsigned long flags;
	bool queued, running;
	int prev_prio;
	struct rq *rq;

	flags = spin_lock(&p->pi_lock);
	rq = task_rq_lock(p);
	update_rq_clock(rq);
	queued = p->on_rq;
	running = rq->donor == p;
	if (running)
		update_curr(rq);
	prev_class = p->sched_class;
	prev_prio = p->prio;
	if (queued && prev_class->requeue_prio) {
		/* In place (RT): most changes keep the class (inherit's boost
		 * and deboost), and a requeue costs a third of a dequeue and
		 * an enqueue.  If this one left the class, the class can
		 * still take p out (requeue_prio's contract). */
		change(p, arg);
		if (p->sched_class == prev_class) {
			prev_class->requeue_prio(rq, p);
		} else {
			prev_class->dequeue_task(rq, p, DEQUEUE_SAVE);
			if (running)
				prev_class->put_prev_task(rq, p);
			p->sched_class->enqueue_task(rq, p, ENQUEUE_RESTORE);
		}
	} else {
		if (queued)
			p->sched_class->dequeue_task(rq, p, DEQUEUE_SAVE);
		if (running)
			p->sched_class->put_prev_task(rq, p);
		change(p, arg);
		if (queued)
			p->sched_class->enqueue_task(rq, p, ENQUEUE_RESTORE);
	}
	if (running) {
		p->sched_class->set_next_task(rq, p);
		rq_donor_changed(rq);	/* its rank may have changed */
	}
	if (prev_class != p->sched_class) {
		if (prev_class->switched_from)
			prev_class->switched_from(rq, p);
		if (p->sched_class->switched_to)
			p->sched_class->switched_to(rq, p);
	} else if (p->sched_class->prio_changed) {
		p->sched_class->prio_changed(rq, p);
	}
	/* Let the next pick sort out who runs: cheap and always right.  But
	 * a queued RT task that does not run and stays RT needs no pass:
	 * prio_changed_rt() decides preemption itself, as in Linux (inherit's
	 * boost of a waiting owner cost its booster a pick that chose the
	 * booster again, on every block).  The deadline class's op leaves
	 * preemption to this resched: skipping it for a boosted deadline
	 * owner left that owner queued on an idle CPU (mutex_stress). */
	if (queued && !(!running && prev_class == &rt_sched_class &&
			p->sched_class == &rt_sched_class))
		resched_curr(rq);
	/* Only two callers: sched_setattr(), and inherit.c's, which lends
	 * (boost) or takes back (unboost) a context through p->pi_donor. */
	trace_sched_attr(p, change == setattr_change ? TRACE_ATTR_SET :
			 READ_ONCE(p->pi_donor) ? TRACE_ATTR_BOOST :
			 TRACE_ATTR_UNBOOST, prev_class->name, prev_prio);
	spin_unlock_raw(&rq->lock);
	spin_unlock(&p->pi_lock, flags);
}

/* sched_setattr's change.  A deadline lent in inherit mode no longer has
 * own values to give back (they are new); a lender that still ranks
 * first keeps lending (inherit.c). */
static void setattr_change(struct task *p, const void *arg)
{
	p->dl.dl_boosted = false;
	set_params(p, arg);
	sched_pi_reapply(p);
}

int sched_setattr(struct task *p, const struct sched_attr *attr)
{
	int err = attr_valid(attr);

	if (err)
		return err;
	if (!policy_class(attr->policy))
		return -EINVAL;		/* class not built in */
	if (p->sched_class == &idle_sched_class || p->sched_class == &stop_sched_class)
		return -EPERM;		/* per-CPU kernel tasks keep their class */
	if (attr->policy == SCHED_DEADLINE || p->policy == SCHED_DEADLINE) {
		err = dl_admit(p, attr);	/* -EBUSY: over the bandwidth limit */
		if (err)
			return err;
	}

	sched_change(p, setattr_change, attr);
	return 0;
}

void sched_getattr(struct task *p, struct sched_attr *attr)
{
	*attr = (struct sched_attr){ .policy = p->policy };
	switch (p->policy) {
	case SCHED_NORMAL:
		attr->nice = p->static_prio - NICE_TO_PRIO(0);
		attr->slice_ns = p->se.custom_slice ? p->se.slice : 0;
		break;
	case SCHED_FIFO:
	case SCHED_RR:
		attr->rt_priority = p->rt_priority;
		break;
	case SCHED_DEADLINE:
		attr->dl_runtime = p->dl.dl_runtime;
		attr->dl_deadline = p->dl.dl_deadline;
		attr->dl_period = p->dl.dl_period;
		break;
	}
}

/* ---- Affinity ---------------------------------------------------- */

/*
 * Move @p off a CPU its affinity no longer allows, if it is queued there
 * and not running.  p->pi_lock and rq->lock held; returns with rq->lock
 * (only) still held by the caller's view: it may be dropped and retaken.
 *
 * @p may be rq->donor: a blocked task whose chain's owner runs here
 * (it stays: it is lent, and the wakeup that hands it its lock places
 * it), or one already woken (TASK_RUNNING, PROXY_WAKING) whose CPU has
 * not picked again yet.  That one must not stay: nobody wakes it again,
 * and the pick would find it outside its affinity (proxy_lent) and take
 * it off as if it slept (proxy_leave panics).  So, as try_to_wake_up
 * does, idle takes the scheduling context first and the CPU picks
 * again.  double_lock_balance may drop rq->lock, and p may become the
 * donor meanwhile: look again then (move_queued_task BUG_ONs on it).
 */
static void move_off_disallowed(struct rq *rq, struct task *p)
{
	struct rq *dst;
	int cpu;

again:
	if (!p->on_rq || task_on_cpu(rq, p) ||
	    ((p->cpus_allowed >> cpu_of(rq)) & 1))
		return;
	if (rq->donor == p && READ_ONCE(p->state) != TASK_RUNNING)
		return;		/* blocked: lent here, its wakeup places it */
	if (rq->donor == p) {
		update_curr(rq);
		proxy_donor_to_idle(rq, p);
		resched_curr(rq);
	}
	cpu = p->sched_class->select_task_rq(p, p->cpu, ENQUEUE_WAKEUP);
	dst = cpu_rq(cpu);
	if (double_lock_balance(rq, dst) &&
	    (!p->on_rq || task_on_cpu(rq, p) || rq->donor == p ||
	     p->cpu != cpu_of(rq))) {
		double_unlock_balance(rq, dst);
		if (p->on_rq && p->cpu == cpu_of(rq) && !task_on_cpu(rq, p))
			goto again;	/* picked as donor meanwhile */
		return;		/* it moved or ran meanwhile; its CPU decides */
	}
	move_queued_task(rq, dst, p);
	trace_migrate(p, cpu_of(rq), cpu, TRACE_MIG_AFFINITY);
	wakeup_preempt_rq(dst, p);
	double_unlock_balance(rq, dst);
}

/* Runs in @p's old CPU's stopper: p is not running there any more. */
static int migration_cpu_stop(void *arg)
{
	struct task *p = arg;
	unsigned long flags = spin_lock(&p->pi_lock);
	struct rq *rq = this_rq();

	spin_lock_raw(&rq->lock);
	if (p->cpu == cpu_of(rq)) {
		update_rq_clock(rq);
		move_off_disallowed(rq, p);
	}
	spin_unlock_raw(&rq->lock);
	spin_unlock(&p->pi_lock, flags);
	return 0;
}

int sched_setaffinity(struct task *p, uint64_t mask)
{
	uint64_t online = cpus_online_mask();
	unsigned long flags;
	struct rq *rq;
	bool running;
	int cpu;

	if (!(mask & online))
		return -EINVAL;
	if (p->sched_class == &idle_sched_class || p->sched_class == &stop_sched_class)
		return -EPERM;
	flags = spin_lock(&p->pi_lock);
	rq = task_rq_lock(p);
	p->cpus_allowed = mask;
	if (p->sched_class->set_cpus_allowed)
		p->sched_class->set_cpus_allowed(p, mask);
	update_rq_clock(rq);
	move_off_disallowed(rq, p);
	cpu = p->cpu;
	running = p->on_rq && cpu == cpu_of(rq) && task_on_cpu(rq, p) &&
		  !((mask >> cpu) & 1);
	spin_unlock_raw(&rq->lock);
	spin_unlock(&p->pi_lock, flags);
	/* A sleeping task is placed by its next wakeup, inside the mask.
	 * A running one is pushed off its CPU by that CPU's stopper. */
	if (running)
		stop_one_cpu(cpu, migration_cpu_stop, p);
	return 0;
}
