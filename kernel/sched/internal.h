/*
 * internal.h - what the scheduler's files share and nothing else sees
 * (Linux's kernel/sched/sched.h).
 *
 * Lock order, outermost first (the mutex part is written once, in
 * mutex.h): task->pi_lock -> rq->lock (two runqueues: lower CPU id
 * first, see double_rq_lock) -> mutex wait_lock -> task blocked_lock;
 * rq->lock -> timer queue locks
 * Class ops run with rq->lock held and interrupts disabled.
 */
#ifndef SCHED_INTERNAL_H
#define SCHED_INTERNAL_H
#include "sched.h"
#include "cpu.h"
#include "trace.h"
#include "list.h"
#include "rbtree.h"
#include "timer.h"

/* enqueue/dequeue flags */
#define ENQUEUE_WAKEUP 0x01	/* the task is waking up */
#define ENQUEUE_NEW 0x02	/* first enqueue of a new task */
#define ENQUEUE_RESTORE 0x04	/* back after a parameter change */
#define ENQUEUE_MIGRATED 0x08	/* arrives from another CPU */
#define DEQUEUE_SLEEP 0x01	/* the task is going to sleep */
#define DEQUEUE_SAVE 0x04	/* out for a parameter change, comes back */
#define DEQUEUE_MIGRATE 0x08	/* leaves for another CPU */

/* ---- Runqueues ---------------------------------------------------------- */

/* The fair class's queue (fair.c; the entity is in sched_fair.h). */
struct cfs_rq {
	unsigned nr_running;		/* fair tasks queued, curr included */
	unsigned long load;		/* sum of their weights */
	uint64_t min_vruntime;		/* monotonic base of the keys */
	int64_t avg_vruntime;		/* sum (v_i - min_vruntime) * w_i */
	unsigned long avg_load;		/* sum w_i, tree entities only */
	struct rb_root_cached tasks_timeline;
	struct sched_entity *curr;	/* the running fair entity, or NULL;
					   not in the tree while it runs */
	bool curr_parked;		/* curr is not running: a higher
					   class's task took the CPU from it
					   (put_prev_task_fair).  It stays out
					   of the tree, and competes as curr,
					   until a fair pick takes it back or
					   something needs it in the tree */
	struct timer hrtick;		/* ends the running request on time
					   (armed on this rq's CPU only) */
	unsigned balance_ticks;		/* ticks to the next periodic balance
					   (touched by this CPU's tick only) */
	bool full_pick;			/* curr just entered the class: the
					   next pick lets the classes above
					   pull (fair_pick_next) */
};

/* For tests and benches (fair.c).  rq->lock held. */
/* V, the queue's weighted average vruntime (curr included). */
uint64_t fair_avg_vruntime(struct rq *rq);
/* Walk the whole queue and check every invariant of the tree, the sums
 * and the counts: NULL if all hold, else what is wrong.  O(n). */
const char *fair_rq_verify(struct rq *rq);
/* Is @se eligible (v <= V)?  Without a division, as Linux. */
bool fair_entity_eligible(struct rq *rq, const struct sched_entity *se);

/* The RT class's queue (rt.c). */
struct rt_rq {
	uint64_t bitmap[2];		/* bit p set: queue[p] not empty */
	unsigned rt_nr_running;		/* queued RT tasks, running one too */
	unsigned rt_nr_migratory;	/* ... of which may use > 1 CPU */
	/* Most important queued level (lowest index), RT_NR_LEVELS when
	 * none.  Read locklessly by other CPUs' push/select (a hint, they
	 * recheck under the lock). */
	int highest_prio;
	bool overloaded;		/* in rt_rto_mask (see rt.c) */
	int cpu;			/* cpu_of(rq), -1: a private rq (bench)
					   that stays out of cpupri/rto */

	/* Throttling (rt_bandwidth.c): RT time used in the current period. */
	uint64_t rt_time_ns;
	uint64_t period_end_ns;		/* 0: no period open */
	/* rt_time_ns past this throttles: the budget, or never (~0) when
	 * it is the whole period.  Set when a period opens. */
	uint64_t throttle_at_ns;
	bool throttled;
	struct timer period_timer;	/* unthrottles at period_end_ns */
	/* Last: 1.6 KB of list heads, reached by index; the fields above
	 * (and struct rq's, where this is last too) stay within the 12-bit
	 * offset of a riscv64 load. */
	struct list_head queue[RT_NR_LEVELS];	/* indexed by task->prio */
};

/* The deadline class's queue (deadline.c). */
struct dl_rq {
	struct rb_root_cached root;	/* runnable, unthrottled deadline tasks
					   by deadline, the running one too */
	unsigned dl_nr_running;		/* tasks in root */
	struct task *running;		/* set_next_task..put_prev_task */
	struct timer budget_timer;	/* ends the running task's budget
					   between ticks (Linux's hrtick) */
};

/*
 * struct rq - one CPU's runqueue.  Every field is protected by rq->lock.
 * Two runqueues are locked in CPU-id order (double_rq_lock()).
 */
struct rq {
	spinlock_t lock;
	struct cpu *cpu;
	struct task *curr;		/* execution context: code running */
	struct task *donor;		/* scheduling context (== curr until
					   proxy execution) */
	struct task *idle;
	struct task *stop;		/* this CPU's stopper (stop class) */
	unsigned nr_running;		/* queued tasks of every class, idle
					   excluded; classes keep it with
					   add_nr_running/sub_nr_running */
	struct cfs_rq cfs;
	struct dl_rq dl;
	struct list_head tasks;		/* every queued task (rq_node), any
					   class: what push/pull scans for
					   proxy chains (proxy_chain_of) */
	unsigned push_pending;		/* classes whose push waits for
					   rq->lock to be free (bit: index in
					   sched_classes[]; rq_queue_push) */
	uint64_t clock_ns;		/* updated by update_rq_clock() */
	bool clock_stale;		/* lock waited for since (core.c) */
	bool lock_dropped;		/* double_lock_balance() let go of
					   this lock to retake it in CPU-id
					   order: whoever takes it meanwhile
					   sees curr and the queues in the
					   middle of a pull, push or chain
					   move (a pick may be deciding) */
	uint64_t nr_switches;
	uint64_t nr_picks;		/* __schedule() passes, switching or
					   not (sched_verify's report) */
	uint64_t nr_preempt_ticks;	/* scheduler ticks that interrupted
					   preemptible code (sched_verify) */
	uint64_t pick_ns;		/* when rq->donor, or its rank, last
					   changed (rq_donor_changed) */
	uint64_t pick_ticks;		/* nr_preempt_ticks then */
	struct task *prev;		/* set across a switch, see core.c */
	struct rt_rq rt;		/* last: its queue array is large */
};

/*
 * struct sched_class - one scheduling policy.  Classes are ordered stop >
 * deadline > RT > fair > idle (sched_classes[] in core.c); the pick walks
 * them in order and idle always returns a task.  Unless noted, every op is
 * called with rq->lock held and interrupts disabled.
 *
 * Contexts: rq->curr is the task whose code runs, rq->donor the task whose
 * scheduling parameters are in force.  Class decisions (tick, preemption,
 * slices, budgets, push/pull) use the donor; execution facts (affinity,
 * "is it on a CPU") use curr.
 */
struct sched_class {
	const char *name;
	/* Its place in the order, higher first: sched_classes[] in core.c
	 * is the order, and sched_init() checks that the ranks agree. */
	int rank;
	/* Optional.  Initialise this class's part of @rq (rq->cfs / rt /
	 * dl), once per CPU at boot, before any task is queued.  No lock. */
	void (*init_rq)(struct rq *rq);
	/* Make @p runnable on @rq / take it off (ENQUEUE_*, DEQUEUE_*). */
	void (*enqueue_task)(struct rq *rq, struct task *p, int flags);
	void (*dequeue_task)(struct rq *rq, struct task *p, int flags);
	/* rq->donor gives up the CPU voluntarily (yield()). */
	void (*yield_task)(struct rq *rq);
	/* Optional.  rq->curr yields and @prev, rq->donor (rq->curr, or
	 * the blocked task it runs for), is of this class.  First charge
	 * @delta (0: nothing) as ->update_curr would: __schedule() does not.
	 * Then, if this class alone decides what runs next (nothing of a
	 * higher class is queued or would be pulled here), queue prev
	 * behind its equals and return the task the pick would choose, put
	 * and set as the pick does them.  NULL otherwise, with only the
	 * charge done: yield_task() and the pick run.  yield() as one
	 * step, without the pick's class tests or a second call. */
	struct task *(*yield_pick)(struct rq *rq, struct task *prev,
				   uint64_t delta);
	/* @p of this class was just queued on @rq; preempt rq->donor
	 * (resched_curr) if it should.  Only called when p and the donor are
	 * of the same class; a higher class always preempts. */
	void (*wakeup_preempt)(struct rq *rq, struct task *p);
	/* Return the task to run next, or NULL; does not dequeue it. */
	struct task *(*pick_next_task)(struct rq *rq);
	/* @p stops being the running task (it may stay queued). */
	void (*put_prev_task)(struct rq *rq, struct task *p);
	/* @p becomes the running task (it was just picked, or changed). */
	void (*set_next_task)(struct rq *rq, struct task *p);
	/* Timer tick while @p (rq->donor) runs. */
	void (*task_tick)(struct rq *rq, struct task *p);
	/* Charge @delta ns of scheduling-context time to @donor: virtual
	 * runtime, deadline budget, RR slice.  Called by update_curr() right
	 * after update_curr_common() charged execution time to rq->curr. */
	void (*update_curr)(struct rq *rq, struct task *donor, uint64_t delta);
	/* Choose a CPU for a waking/new task.  Caller holds p->pi_lock only
	 * (no rq lock); lockless peeks at other runqueues are fine.
	 * @flags: ENQUEUE_WAKEUP or ENQUEUE_NEW. */
	int (*select_task_rq)(struct task *p, int prev_cpu, int flags);
	/* Optional.  Before the pick, with prev still rq->curr: pull work
	 * from other CPUs (RT/DL pull, fair newidle balance).  May drop and
	 * retake rq->lock. */
	void (*balance)(struct rq *rq, struct task *prev);
	/* Optional.  @p was woken onto @rq and did not preempt: push tasks
	 * elsewhere if rq is overloaded (RT/DL push). */
	void (*task_woken)(struct rq *rq, struct task *p);
	/* Optional.  sched_setattr() moved @p into / out of this class, or
	 * changed its parameters within it; @p is queued again (if it was)
	 * with its new parameters.  Decide preemption, push/pull. */
	void (*switched_to)(struct rq *rq, struct task *p);
	void (*switched_from)(struct rq *rq, struct task *p);
	void (*prio_changed)(struct rq *rq, struct task *p);
	/* Optional.  sched_change() changed queued @p's priority and left
	 * it in this class: move it in the queue without a dequeue and an
	 * enqueue (the counts do not change).  A class that has it keeps
	 * its own record of where p is queued (RT: p->rt.level), so that
	 * its dequeue_task and put_prev_task still work after a change
	 * that left the class. */
	void (*requeue_prio)(struct rq *rq, struct task *p);
	/* Optional.  @p's affinity changed to @mask (p->cpus_allowed is
	 * already set; p->pi_lock and the lock of p's rq held; p may be
	 * queued there, and is moved off afterwards if @mask excludes it). */
	void (*set_cpus_allowed)(struct task *p, uint64_t mask);
	/* Optional.  @p (rq->curr) blocked on a mutex and stays queued as
	 * a donor (proxy execution): it may now move with its chain to
	 * where its owner runs, whatever its own affinity. */
	void (*task_blocked)(struct rq *rq, struct task *p);
	/* Optional, with push_tasks.  @rq may have work for another CPU
	 * (its class is overloaded there): if so, ask for push_tasks once
	 * rq->lock is free (rq_queue_push).  Called after a proxy chain
	 * moved onto @rq, at every tick, and by the class itself. */
	void (*queue_push)(struct rq *rq);
	/* Optional.  The push rq_queue_push() asked for: move waiting
	 * tasks (whole proxy chains) to CPUs where they run at once.  Runs
	 * on rq's CPU after a switch, after a pick that kept prev, and at
	 * the tick; rq->lock held, may be dropped and retaken. */
	void (*push_tasks)(struct rq *rq);
};

extern const struct sched_class stop_sched_class;
extern const struct sched_class dl_sched_class;
extern const struct sched_class rt_sched_class;
extern const struct sched_class fair_sched_class;

/* The class of a policy (SCHED_*), NULL for none.  Inline, as
 * normal_prio(): inherit's boost and deboost ask each twice. */
static inline const struct sched_class *policy_class(int policy)
{
	switch (policy) {
	case SCHED_DEADLINE:
		return &dl_sched_class;
	case SCHED_FIFO:
	case SCHED_RR:
		return &rt_sched_class;
	case SCHED_NORMAL:
		return &fair_sched_class;
	}
	return NULL;
}

/* @p's prio from its own policy and parameters (Linux scale: DL_PRIO,
 * 0..98 for RT, static_prio for fair), whatever it inherits. */
static inline int normal_prio(const struct task *p)
{
	switch (p->policy) {
	case SCHED_DEADLINE:
		return DL_PRIO;
	case SCHED_FIFO:
	case SCHED_RR:
		return MAX_RT_PRIO - 1 - p->rt_priority;
	}
	return p->static_prio;
}
extern const struct sched_class idle_sched_class;

/* Every CPU's runqueue (core.c); struct cpu points at its own. */
extern struct rq runqueues[NR_CPUS];

static inline struct rq *cpu_rq(int cpu) { return &runqueues[cpu]; }
static inline struct rq *this_rq(void) { return this_cpu()->rq; }
static inline int cpu_of(struct rq *rq) { return rq->cpu->id; }
static inline bool task_on_cpu(struct rq *rq, struct task *p) { return rq->curr == p; }

/* Classes in order, highest first; NULL terminated.  for_each_class. */
extern const struct sched_class *const sched_classes[];
/* Empty ops, for classes that have nothing to do there (stop, idle). */
void sched_nop_rq(struct rq *rq);
void sched_nop_rq_task(struct rq *rq, struct task *p);
#define for_each_class(c) \
	for (const struct sched_class *const *__c = sched_classes; (c = *__c); __c++)
/* True if class @a ranks above class @b (sched_classes[]'s order). */
static inline bool sched_class_above(const struct sched_class *a,
				     const struct sched_class *b)
{
	return a->rank > b->rank;
}
/* The class a policy belongs to. */

/* Ask rq's CPU to reschedule (IPI if remote).  rq->lock held. */
void resched_curr(struct rq *rq);
/* rq->clock_ns = now.  Inline: a wakeup and a priority change each
 * read the clock once, and the call cost as much as the read. */
static inline __attribute__((always_inline)) void update_rq_clock(struct rq *rq)
{
	rq->clock_ns = clock_ns();
	rq->clock_stale = false;
}
/* Charge time since the last update: execution time to rq->curr
 * (update_curr_common), scheduling-context time to rq->donor (the
 * donor's class ->update_curr).  rq->lock held. */
void update_curr(struct rq *rq);

static inline void add_nr_running(struct rq *rq, unsigned n) { rq->nr_running += n; }
static inline void sub_nr_running(struct rq *rq, unsigned n) { rq->nr_running -= n; }

/*
 * setattr.c: change @p's scheduling parameters in place, Linux's
 * "dequeue, change, enqueue": with p->pi_lock and its rq->lock held, p
 * leaves its class (DEQUEUE_SAVE, put_prev_task if it is the donor),
 * @change(p, arg) writes the new fields, p goes back (ENQUEUE_RESTORE,
 * set_next_task), the classes hear of it (switched_from/to or
 * prio_changed) and the CPU picks again.  Task or irq context.
 */
void sched_change(struct task *p, void (*change)(struct task *p, const void *arg),
		  const void *arg);
/* Does @a's own context (never an inherited one) run before @b's?
 * Deadline by deadline, then RT by priority; fair never (core.c). */
bool sched_own_before(const struct task *a, const struct task *b);
/* inherit.c: the task whose parameters @p runs with (@p, or along
 * ->pi_donor the lender's). */
struct task *pi_context(struct task *p);
/* inherit.c: after sched_setattr changed @p's own parameters, keep the
 * priority inherited from a lender that still ranks first.  In a
 * sched_change. */
void sched_pi_reapply(struct task *p);

/* Put @p on @rq (ENQUEUE_*; on_rq = 1, its ready stamp) / take it off
 * (DEQUEUE_*; on_rq = 0).  rq->lock held. */
static inline void activate_task(struct rq *rq, struct task *p, int flags)
{
	p->sched_class->enqueue_task(rq, p, flags);
	list_add_tail(&p->rq_node, &rq->tasks);
	p->on_rq = 1;
	p->ready_ns = rq->clock_ns;
}
void deactivate_task(struct rq *rq, struct task *p, int flags);

/* Lock the runqueue @p is on, coping with @p moving meanwhile.  Irqs
 * must be disabled. */
struct rq *task_rq_lock(struct task *p);

/* Lock two runqueues in CPU-id order (a == b allowed).  Irqs disabled. */
void double_rq_lock(struct rq *a, struct rq *b);
/*
 * With this_rq locked, also lock @busiest.  If that needs this_rq's lock
 * dropped (to keep the CPU-id order), it is dropped and retaken: returns
 * true, and the caller must recheck what it saw under the lock.
 */
bool double_lock_balance(struct rq *this_rq, struct rq *busiest);
void double_unlock_balance(struct rq *this_rq, struct rq *busiest);

/*
 * Move @p, queued on @src and not running there, to @dst.  Both locks
 * held.  Checks that @dst is in p's affinity (panics otherwise: a caller
 * bug).  Does not decide preemption on @dst: call wakeup_preempt_rq().
 * p->on_rq stays set all along, so a concurrent wake_up() finds p queued
 * on one runqueue or the other (task_rq_lock follows p->cpu).
 */
void move_queued_task(struct rq *src, struct rq *dst, struct task *p);
/*
 * Proxy execution: move @p, a task blocked on a mutex queued on @src,
 * neither running there nor src->donor, to @dst, whatever its affinity.
 * @lend (donor-chain migration: it only lends its scheduling context to
 * an owner there), or @dst outside its affinity: record in p->wake_cpu
 * where it came from (the first move only); its wakeup takes it back.
 * Push/pull moving a whole chain inside p's affinity does not lend.
 * Both locks held.
 */
void move_blocked_task(struct rq *src, struct rq *dst, struct task *p,
		       bool lend);
/*
 * Ask @rq's CPU to run class @c's push_tasks once rq->lock is free: after
 * the switch in progress (finish_task_switch), or right away if the pick
 * keeps prev, or at the next tick.  Linux's balance callbacks: a push
 * needs to drop rq->lock, which the pick, and callers holding state that
 * must not change, may not.  For another CPU's rq that CPU is asked to
 * reschedule, so its own __schedule runs the push.  rq->lock held.
 */
void rq_queue_push(struct rq *rq, const struct sched_class *c);

/* @p was just queued on @rq: preempt rq->donor if p should run first.
 * Inline: every wakeup's. */
static inline void wakeup_preempt_rq(struct rq *rq, struct task *p)
{
	struct task *donor = rq->donor;

	if (sched_class_above(p->sched_class, donor->sched_class))
		resched_curr(rq);
	else if (p->sched_class == donor->sched_class)
		p->sched_class->wakeup_preempt(rq, p);
}

/* CPUs @p may run on that are online. */
static inline uint64_t task_cpus_online(const struct task *p)
{
	return p->cpus_allowed & cpus_online_mask();
}

/* ---- Exports of the class files to core.c ---------------------------- */

/* fair.c: set p->se's weight from p->static_prio and the requested
 * slice (attr->slice_ns already stored by the caller). */
void fair_set_params(struct task *p, const struct sched_attr *attr);
/* fair_balance.c: periodic load balancing, from the tick of every CPU. */
void fair_trigger_load_balance(struct rq *rq);
/* fair.c: __schedule's fast path when prev and every queued task are
 * fair: put prev, pick and set the next fair task, or NULL (nothing
 * done) when the full pick must run.  rq->lock held. */
struct task *fair_pick_next(struct rq *rq, struct task *prev);
/* rt.c: the same when an RT task is the pick, no balance op would act
 * and the RT class does not step aside (conditions in pick_next_task(),
 * which puts prev first): pick and set the next RT task. */
struct task *rt_pick_next(struct rq *rq);
/* rt.c: is another CPU RT-overloaded (would an RT pull look)?  Lockless.
 * rq->lock held.  Inline, as dl_pull_due(). */
extern uint64_t rt_rto_mask;
static inline bool rt_pull_due(struct rq *rq)
{
	return READ_ONCE(rt_rto_mask) & ~(1ULL << cpu_of(rq));
}
/* Is every task queued on @rq RT or fair: no stopper, no deadline task?
 * (nr_running counts every class but idle.)  The RT fast paths' test,
 * one compare.  rq->lock held. */
static inline bool rq_only_rt_fair(const struct rq *rq)
{
	return rq->nr_running == rq->rt.rt_nr_running + rq->cfs.nr_running;
}
/* deadline.c: would the deadline class's balance pull to @rq now?
 * Lockless look at the overloaded CPUs.  rq->lock held.  Inline: the
 * RT fast path asks at every pick. */
extern uint64_t dlo_mask;
static inline bool dl_pull_due(struct rq *rq)
{
	return __atomic_load_n(&dlo_mask, __ATOMIC_RELAXED) & ~(1ULL << cpu_of(rq));
}
/*
 * The CPU's scheduling context changed: a new donor, or the running
 * donor's rank (a deadline moved on at a replenishment, a deadline task
 * throttled, parameters or a boost changed).  Stamped for sched_verify, whose windows on this CPU
 * start again from here: what ran before was another decision.
 * rq->lock held.
 */
static inline void rq_donor_changed(struct rq *rq)
{
	rq->pick_ns = rq->clock_ns;
	rq->pick_ticks = rq->nr_preempt_ticks;
}

/*
 * rt.c: throttled, and something of a lower class is waiting for this
 * CPU: the RT class steps aside (its tasks wait by design; verify.c
 * exempts them).  Higher classes were asked before RT, so the other
 * queued tasks are below.  rq->lock held.
 */
static inline bool rt_stepping_aside(struct rq *rq)
{
	return rq->rt.throttled && rq->nr_running > rq->rt.rt_nr_running;
}
/* rt.c: p->prio/rt_priority are all the RT class needs (set by core). */
/* rt.c: deadline tasks came or went on @rq: the RT class's view of the
 * CPU (cpupri level, overload: an RT task may now wait behind one) is
 * brought up to date, and a push asked for if RT waits.  rq->lock held.
 * (deadline.c, whenever dl_nr_running changes.) */
void rt_dl_changed(struct rq *rq);
/* rt_bandwidth.c: the RT class's update_curr op (the RR slice and the
 * CPU's RT budget), and its per-CPU period timer's callback. */
void update_curr_rt(struct rq *rq, struct task *donor, uint64_t delta);
void rt_period_timer_fn(struct timer *t);

/*
 * update_curr_rt() in two pieces, inline for yield_pick_rt() (rt.c).
 * rt_charge_quick(): can @delta be charged to this CPU's RT budget
 * with an add, the period still open and the budget not used up by it,
 * or used up already (throttled: its timer is set)?  Else
 * rt_bandwidth.c rolls the period or throttles.  (The common case: an add and two compares.)
 * rt_charge_slice(): charge it to @donor's RR slice.  rq->lock held.
 */
static inline bool rt_charge_quick(const struct rq *rq, uint64_t delta)
{
	return rq->clock_ns < rq->rt.period_end_ns &&
	       (rq->rt.rt_time_ns + delta <= rq->rt.throttle_at_ns ||
		rq->rt.throttled);
}

static inline void rt_charge_slice(struct task *donor, uint64_t delta)
{
	if (donor->policy == SCHED_RR)
		donor->rt.time_slice_ns -= delta < donor->rt.time_slice_ns ?
					   delta : donor->rt.time_slice_ns;
}
/* deadline.c: check and account @attr's bandwidth for @p (0 or -EBUSY;
 * also releases p's old bandwidth when it leaves SCHED_DEADLINE), and copy
 * the parameters into p->dl. */
int dl_admit(struct task *p, const struct sched_attr *attr);
void dl_set_params(struct task *p, const struct sched_attr *attr);
/* deadline.c: every new task's deadline entity (any class: inherit mode
 * may lend a deadline to any task): off the tree, its timer set up. */
void dl_init_task(struct task *p);
/* deadline.c: a deadline task exits: give its bandwidth back. */
void dl_task_dead(struct task *p);

/*
 * Another CPU may be online (core.c, sched_smp_begin(): the boot CPU
 * sets it before it starts the first other CPU).  Until then no other
 * CPU reads what the classes publish for placement, push and pull:
 * cpupri levels, the RT and deadline overload masks, cpudl.  A lone CPU
 * (`-smp 1`, a single-hart board) leaves them as they were, which saves
 * every RT wakeup and sleep its atomic updates; sched_smp_begin() brings
 * them up to date, under rq->lock, before anyone can read them.  The
 * writers it guards read it under rq->lock; it goes from false to true
 * once, before a second CPU runs, so a lockless read (the tick's load
 * balance) is never stale where it matters.
 */
extern bool sched_smp;
/* deadline.c: publish @rq's deadline state (cpudl, overload, the RT
 * class's view), after a change or for sched_smp_begin().  rq->lock
 * held. */
void dl_rq_changed(struct rq *rq);

/* stop_task.c (stop_one_cpu and stop_machine are in sched.h) */
void stop_init_cpu(struct cpu *c);

/* thread.c */
void task_init_common(struct task *t, const char *name);	/* + all_tasks */
struct task *task_alloc(const char *name, void (*fn)(void *), void *arg);
void task_free(struct task *t);
void task_trampoline(void *unused) __noreturn;

/* core.c: called by the new task first thing / by each switch's winner. */
void finish_task_switch(void);
/* wakeup.c: make a freshly created task runnable. */
void wake_up_new_task(struct task *p);

#include "proxy.h"		/* proxy execution (proxy.c) */
#endif
