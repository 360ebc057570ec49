/*
 * rt.c - the RT class: SCHED_FIFO and SCHED_RR with 100 priority levels,
 * as in Linux's kernel/sched/rt.c (one root domain, no group scheduling).
 *
 * Queue: one list per level (task->prio 0..99, lower = more important)
 * and a bitmap of the non-empty levels; the pick is "first set bit, head
 * of that list", O(1) in the number of tasks.  The running task stays in
 * its list (as in Linux).  FIFO tasks never rotate: equal priority keeps
 * arrival order.  RR tasks rotate to the tail of their level when their
 * slice (rt_rr_slice_ns) is used up, checked at the tick; the slice is
 * charged to the DONOR (scheduling context) in update_curr_rt
 * (rt_bandwidth.c).
 *
 * SMP: the N most important runnable RT tasks should run on the N CPUs.
 * cpupri.c maps each CPU to the level it runs at (a CPU with a runnable
 * deadline task is above every RT level); the rto ("RT overloaded") mask
 * names CPUs where an RT task waits (behind another RT task or a
 * deadline task) that could run elsewhere.  Tasks move by:
 *   - placement on wakeup (select_task_rq_rt): stay on the previous CPU
 *     if nothing RT or above is there, else go to the lowest-level
 *     allowed CPU;
 *   - push: an overloaded CPU hands its most important waiting task to the
 *     lowest-level CPU that task may use (on wakeup without preemption,
 *     after a switch, at every tick: rt_queue_push);
 *   - pull: a CPU about to pick takes the most important waiting RT task
 *     elsewhere that beats what it would run (balance_rt).
 * Push and pull move proxy chains, never half of one: a task blocked on
 * a mutex moves with the tasks up to the one that would run for it.
 * Whether a task may move is decided in one place, rt_chain_movable().
 *
 * Throttling (what keeps fair tasks alive): per CPU, RT tasks may use at
 * most rt_runtime_ns in each rt_period_ns (950 ms / 1 s, Linux's
 * defaults).  Past that, if a lower-class task is runnable on the CPU, the
 * RT class stops picking there until the period ends (period_timer).  It
 * is work conserving: with nothing else runnable RT keeps the CPU.  The
 * accounting and the budget are in rt_bandwidth.c.  See docs/sched-rt.md.
 */
#include "internal.h"
#include "cpupri.h"
#include "bitops.h"

/* RR slice; Linux's RR_TIMESLICE (100 ms).  sched_rr_set_slice(). */
static uint64_t rt_rr_slice_ns = 100 * NSEC_PER_MSEC;

/* CPUs whose rt_rq->overloaded is set (atomic bit ops, lockless reads;
 * internal.h: rt_pull_due() reads it). */
uint64_t rt_rto_mask;

static inline bool rt_task(const struct task *p)
{
	return p->sched_class == &rt_sched_class;
}

/* @p's class is RT or ranks above it (deadline, stop). */
static inline bool rt_or_above(const struct task *p)
{
	return rt_task(p) || sched_class_above(p->sched_class, &rt_sched_class);
}

/* cpupri level of a queue level: rt_priority, or NORMAL for "none". */
static inline int rt_cpupri_level(int prio)
{
	return prio < RT_NR_LEVELS ? MAX_RT_PRIO - 1 - prio : CPUPRI_NORMAL;
}

/* First non-empty level at or after @from, RT_NR_LEVELS when none.
 * O(1): two words of the bitmap (rt_level_add/del keep it). */
static int rt_next_level(const struct rt_rq *rt, int from)
{
	/* LAB 6 BEGIN: the first set bit of rt->bitmap at or after @from */
	for (int word = from / 64; word < 2; word++) {
		uint64_t w = rt->bitmap[word];

		if (word == from / 64)
			w &= ~0ULL << (from % 64);
		if (w)
			return word * 64 + ctz64(w);
	}
	return RT_NR_LEVELS;
	/* LAB 6 STUB
	for (int lvl = RT_NR_LEVELS - 1; lvl >= from; lvl--)
		if (!list_empty(&rt->queue[lvl]))
			return lvl;
	return RT_NR_LEVELS;
	LAB 6 END */
}

/* ---- Bookkeeping: highest level, cpupri, overload (rq->lock held) ---- */

/*
 * The CPU's cpupri level: above every RT level while a deadline task is
 * runnable here (it runs first: an RT task placed here would wait), else
 * its most important queued RT task's.  (Linux's cpupri leaves deadline
 * tasks out, and relies on a later push or pull to fix a placement
 * behind one; here nothing would.)
 */
static void rt_update_cpupri(struct rq *rq)
{
	if (rq->rt.cpu >= 0 && sched_smp)
		cpupri_set(rq->rt.cpu, rq->dl.dl_nr_running ? CPUPRI_HIGHER :
			   rt_cpupri_level(rq->rt.highest_prio));
}

/* The most important queued level is @h now. */
static void rt_set_highest(struct rq *rq, int h)
{
	struct rt_rq *rt = &rq->rt;

	if (h == rt->highest_prio)
		return;
	WRITE_ONCE(rt->highest_prio, h);
	rt_update_cpupri(rq);
}

static void rt_update_highest(struct rq *rq)
{
	rt_set_highest(rq, rt_next_level(&rq->rt, 0));
}

/*
 * Overloaded: an RT task waits here, behind another RT task or behind a
 * runnable deadline task, and one of the queued RT tasks may run
 * elsewhere (Linux's rt_nr_migratory test), or is a blocked donor whose
 * chain may (task_blocked_rt).  Pullers scan this mask; pushers look.
 */
static void __rt_update_overload(struct rq *rq)
{
	struct rt_rq *rt = &rq->rt;
	bool over;

	over = rt->rt_nr_running && rt->rt_nr_migratory > 0 &&
	       rt->rt_nr_running + rq->dl.dl_nr_running > 1;
	if (over == rt->overloaded)
		return;
	rt->overloaded = over;
	if (over)
		__atomic_fetch_or(&rt_rto_mask, 1ULL << rt->cpu, __ATOMIC_SEQ_CST);
	else
		__atomic_fetch_and(&rt_rto_mask, ~(1ULL << rt->cpu), __ATOMIC_SEQ_CST);
}

/* Lone CPU: no puller to tell (internal.h, sched_smp); the flag and the
 * mask bit stay as they were, both, until then.  The test inline: it is
 * every RT enqueue's and dequeue's. */
static inline void rt_update_overload(struct rq *rq)
{
	if (sched_smp && rq->rt.cpu >= 0)
		__rt_update_overload(rq);
}

/*
 * May @p (queued on @rq), with its proxy chain, be moved to another CPU
 * right now, and (dst >= 0) to CPU @dst?  The one place that decides it.
 * A blocked task moves only with the rest of its chain, up to the task
 * that would run for it, and only to where that task may run; nothing of
 * a CPU's current chain moves (proxy_chain_of).  Fills @c.  rq->lock
 * held.
 */
static __lab_helper bool rt_chain_movable(struct rq *rq, struct task *p,
					  int dst, struct proxy_chain *c)
{
	if (!proxy_chain_of(rq, p, c))
		return false;
	c->cpus &= ~(1ULL << cpu_of(rq));
	return dst >= 0 ? (c->cpus >> dst) & 1 : c->cpus != 0;
}

/*
 * The most important queued task of @rq that may move with its chain
 * (@c), and (dst >= 0) to CPU @dst.  O(queued RT tasks) at worst;
 * push/pull only.
 */
static struct task *rt_pick_pushable(struct rq *rq, int dst,
				     struct proxy_chain *c)
{
	/* LAB 6 BEGIN: the most important queued task whose chain may move */
	struct rt_rq *rt = &rq->rt;

	for (int lvl = rt_next_level(rt, 0); lvl < RT_NR_LEVELS;
	     lvl = rt_next_level(rt, lvl + 1)) {
		struct list_head *pos;

		list_for_each(pos, &rt->queue[lvl]) {
			struct task *p = list_entry(pos, struct task, rt.run_list);

			if (rt_chain_movable(rq, p, dst, c))
				return p;
		}
	}
	return NULL;
	/* LAB 6 STUB
	(void)rq;
	(void)dst;
	(void)c;
	return NULL;
	LAB 6 END */
}

/* ---- Queue ops ------------------------------------------------------- */

/* Put @p at the tail of level @prio (equal priorities keep arrival order:
 * FIFO) / take it off its level.  The lists and the bitmap only. */
static inline void rt_level_add(struct rt_rq *rt, struct task *p, int prio)
{
	unsigned lvl = (unsigned)prio;	/* 0..99: no signed division */

	list_add_tail(&p->rt.run_list, &rt->queue[lvl]);
	rt->bitmap[lvl / 64] |= 1ULL << (lvl % 64);
	p->rt.level = prio;
}

static void rt_level_del(struct rt_rq *rt, struct task *p)
{
	int lvl = p->rt.level;

	list_del_init(&p->rt.run_list);
	if (list_empty(&rt->queue[lvl]))
		rt->bitmap[lvl / 64] &= ~(1ULL << (lvl % 64));
	p->rt.level = -1;
}

/* enqueue_task_rt()'s part for other CPUs to see: the cpupri level
 * (@newhigh: a new highest level) and the overload mask.  Out of line:
 * a lone CPU has neither (sched_smp). */
static __attribute__((noinline)) void enqueue_rt_smp(struct rq *rq,
						     bool newhigh)
{
	if (newhigh)
		rt_update_cpupri(rq);
	__rt_update_overload(rq);
}

/* rq->lock held.  A leaf but for enqueue_rt_smp(), a tail call: no
 * frame (every RT wakeup passes here: rt_wakeup_lat). */
static __no_frame void enqueue_task_rt(struct rq *rq, struct task *p,
				       int flags)
{
	struct rt_rq *rt = &rq->rt;
	int prio = p->prio;
	uint64_t cpus = p->cpus_allowed;
	bool newhigh;

	(void)flags;
	/* Debug build only (every wakeup of an RT task passes here; the
	 * suites run the debug build too): an RT prio comes only from
	 * sched_setattr()'s checked rt_priority or a donor's, and tasks
	 * come zeroed (kmalloc) and leave with list_del_init. */
	DEBUG_ASSERT(prio >= 0 && prio < RT_NR_LEVELS);
	DEBUG_ASSERT(!p->rt.run_list.next ||
		     p->rt.run_list.next == &p->rt.run_list);
	rt_level_add(rt, p, prio);
	if (p->rt.time_slice_ns == 0 || p->rt.time_slice_ns > rt_rr_slice_ns)
		p->rt.time_slice_ns = READ_ONCE(rt_rr_slice_ns);
	/* Migratory: more than one online CPU allowed (a pinned task needs
	 * no look at which CPUs are online). */
	if (cpus & (cpus - 1))
		cpus &= cpus_online_mask();
	/* A blocked donor (moved here with its chain, or lent) may move on
	 * with its chain wherever its owner may run, whatever its own
	 * affinity (task_blocked_rt). */
	p->rt.migratory = (cpus & (cpus - 1)) != 0 || proxy_blocked(p);
	rt->rt_nr_migratory += p->rt.migratory;
	rt->rt_nr_running++;
	add_nr_running(rq, 1);
	/* rt_set_highest() and rt_update_overload(), inline. */
	newhigh = prio < rt->highest_prio;	/* no need to scan */
	if (newhigh)
		WRITE_ONCE(rt->highest_prio, prio);
	if (sched_smp && rt->cpu >= 0)
		enqueue_rt_smp(rq, newhigh);
}

/* rq->lock held. */
static void dequeue_task_rt(struct rq *rq, struct task *p, int flags)
{
	struct rt_rq *rt = &rq->rt;
	int lvl = p->rt.level;

	(void)flags;
	if (lvl < 0 || lvl >= RT_NR_LEVELS || rt->rt_nr_running == 0 ||
	    (rt->cpu >= 0 && p->cpu != rt->cpu))
		panic("rt: dequeue %s (level %d, cpu%d) from cpu%d with %u queued",
		      p->name, lvl, p->cpu, rt->cpu, rt->rt_nr_running);
	rt_level_del(rt, p);
	rt->rt_nr_migratory -= p->rt.migratory;
	rt->rt_nr_running--;
	sub_nr_running(rq, 1);
	if (lvl == rt->highest_prio)		/* else it stays */
		rt_update_highest(rq);
	rt_update_overload(rq);
}

/* Move @p to the tail of its level.  rq->lock held, p queued. */
static void requeue_task_rt(struct rq *rq, struct task *p)
{
	list_move_tail(&p->rt.run_list, &rq->rt.queue[p->rt.level]);
}

/*
 * sched_change() changed queued @p's priority and p stays RT (inherit's
 * boost and deboost between RT tasks, sched_setattr within RT): move it
 * from its level to the tail of its new one, as a dequeue and an
 * enqueue would, without them: the counts, the migratory flag and the
 * overload mask stay as they are, and cpupri hears of a new highest
 * level only.  rq->lock held.
 */
static void requeue_prio_rt(struct rq *rq, struct task *p)
{
	struct rt_rq *rt = &rq->rt;
	int lvl = p->rt.level, prio = p->prio;

	if (prio < 0 || prio >= RT_NR_LEVELS || lvl < 0 || lvl >= RT_NR_LEVELS)
		panic("rt: requeue %s from level %d to prio %d", p->name, lvl, prio);
	rt_level_del(rt, p);
	rt_level_add(rt, p, prio);
	if (prio <= rt->highest_prio)		/* p's level is the top now */
		rt_set_highest(rq, prio);
	else if (lvl == rt->highest_prio)	/* the top may have emptied */
		rt_update_highest(rq);
}

/* rq->lock held.  yield(): behind every task of the same level. */
static void yield_task_rt(struct rq *rq)
{
	requeue_task_rt(rq, rq->donor);
}

/* rq->lock held.  Only strictly more important tasks preempt. */
static void wakeup_preempt_rt(struct rq *rq, struct task *p)
{
	if (p->prio < rq->donor->prio)
		resched_curr(rq);
}

/* The most important queued task: O(1), the head of the highest level
 * (kept by enqueue and dequeue: no scan of the bitmap).  At least one
 * queued; rq->lock held.  The fast paths' (rt_pick_next(),
 * yield_pick_rt()). */
static inline struct task *rt_first(struct rt_rq *rt)
{
	int lvl = rt->highest_prio;

	DEBUG_ASSERT(lvl < RT_NR_LEVELS && lvl == rt_next_level(rt, 0));
	return list_first_entry(&rt->queue[lvl], struct task, rt.run_list);
}

/* rq->lock held.  rt_first(), with the level checked always. */
static struct task *pick_next_task_rt(struct rq *rq)
{
	struct rt_rq *rt = &rq->rt;
	int lvl;

	if (!rt->rt_nr_running || rt_stepping_aside(rq))
		return NULL;
	lvl = rt_next_level(rt, 0);
	BUG_ON(lvl >= RT_NR_LEVELS);
	return list_first_entry(&rt->queue[lvl], struct task, rt.run_list);
}

/* rq->lock held.  The task stays in its list: nothing to do. */
static void put_prev_task_rt(struct rq *rq, struct task *p)
{
	(void)rq;
	(void)p;
}

/* Would @p preempt what @rq runs now (rq->donor)?  Not where the RT
 * class steps aside; a throttled CPU where no lower class waits runs RT
 * on, and the more important RT task is the one to run there.
 * rq->lock held. */
static bool rt_preempts(struct rq *rq, struct task *p)
{
	struct task *donor = rq->donor;

	if (rt_stepping_aside(rq))
		return false;
	if (rt_task(donor))
		return p->prio < donor->prio;
	return !sched_class_above(donor->sched_class, &rt_sched_class);
}

/*
 * If an RT task waits on @rq that might run elsewhere (overloaded: behind
 * another RT task or a deadline task; not behind a stopper, the kernel's
 * own moment-long interruption), ask for a push once rq->lock is free.
 * We cannot push here: in __schedule the task just picked is not yet
 * rq->curr and the one switched out still has on_cpu set, and the lock
 * must not be dropped; the push runs right after the switch
 * (rq_queue_push).  rq->lock held.
 *
 * Not while no other CPU is online: a push looks only at tasks whose
 * chain may run on another online CPU (rt_pick_pushable, whose chain
 * cpus are online CPUs other than this one), so there it finds nothing
 * and does nothing, at a cost of a chain walk at each switch of a lone
 * CPU with a blocked RT donor queued (which counts as overloaded).  A
 * CPU that comes online later pulls at its first pick (balance_rt).
 */
static void rt_queue_push(struct rq *rq)
{
	if (rq->rt.overloaded &&
	    (cpus_online_mask() & ~(1ULL << cpu_of(rq))))
		rq_queue_push(rq, &rt_sched_class);
}

/* rq->lock held.  @p is about to run (or keeps running). */
static void set_next_task_rt(struct rq *rq, struct task *p)
{
	(void)p;
	rt_queue_push(rq);
}

static __attribute__((noinline)) struct task *rt_pick_next_push(struct rq *rq,
								 struct task *p)
{
	rt_queue_push(rq);
	return p;
}

/*
 * core.c's fast path (pick_next_task() says when, checks that the RT
 * class does not step aside and puts @prev): pick and set the next RT
 * task.  A leaf but for the push's tail call: no frame.  rq->lock held.
 */
__no_frame struct task *rt_pick_next(struct rq *rq)
{
	struct task *p;

	DEBUG_ASSERT(rq->rt.rt_nr_running && !rq->dl.dl_nr_running &&
		     !rt_stepping_aside(rq));
	p = rt_first(&rq->rt);
	if (rq->rt.overloaded)		/* rt_queue_push(), a tail call */
		return rt_pick_next_push(rq, p);
	return p;
}

/* Does the RT class alone decide what runs after a yield here: nothing
 * of a higher class queued or to be pulled, and RT not stepping aside?
 * (prev stays queued at its level: the CPU does not lower its priority,
 * so no RT pull.)  rq->lock held. */
static inline bool rt_yield_alone(struct rq *rq)
{
	return rq_only_rt_fair(rq) && !rt_stepping_aside(rq) &&
	       !(sched_smp && dl_pull_due(rq));
}

/* yield_pick_rt() when the charge ends a period or the budget, or an
 * RT task waits that another CPU might take (a push to ask for). */
static __attribute__((noinline)) struct task *
yield_pick_rt_slow(struct rq *rq, struct task *prev, uint64_t delta)
{
	if (delta)
		update_curr_rt(rq, prev, delta);
	if (!rt_yield_alone(rq))
		return NULL;
	requeue_task_rt(rq, prev);
	rt_queue_push(rq);		/* set_next_task_rt() */
	return rt_first(&rq->rt);
}

/*
 * yield() of @prev, the running RT donor, as one step (the class op's
 * conditions, internal.h): the charge of @delta, then the pick's RT fast
 * path, with prev queued behind its equals first.  NULL, only the charge
 * done, unless rt_yield_alone().  The common case calls nothing, so that
 * it needs no saved registers; the rest is yield_pick_rt_slow()'s.
 * rq->lock held.
 */
static struct task *yield_pick_rt(struct rq *rq, struct task *prev,
				  uint64_t delta)
{
	struct rt_rq *rt = &rq->rt;

	if (__builtin_expect(!rt_charge_quick(rq, delta) || rt->overloaded, 0))
		return yield_pick_rt_slow(rq, prev, delta);
	rt_charge_slice(prev, delta);	/* update_curr_rt(), quick case */
	rt->rt_time_ns += delta;
	if (!rt_yield_alone(rq))
		return NULL;
	requeue_task_rt(rq, prev);
	return rt_first(rt);		/* not overloaded: no push */
}

/* ---- RR -------------------------------------------------------------- */

/*
 * Tick while @p (rq->donor) runs; update_curr already charged the slice.
 * rq->lock held.
 */
static void task_tick_rt(struct rq *rq, struct task *p)
{
	if (rt_stepping_aside(rq)) {
		resched_curr(rq);		/* a waiting fair task gets in */
		return;
	}
	if (p->policy != SCHED_RR || p->rt.time_slice_ns > 0)
		return;
	p->rt.time_slice_ns = READ_ONCE(rt_rr_slice_ns);
	/* Alone at its level: keep running with a fresh slice. */
	if (p->rt.run_list.prev != p->rt.run_list.next) {
		requeue_task_rt(rq, p);
		resched_curr(rq);
	}
}

/* ---- SMP: placement, push, pull -------------------------------------- */

/*
 * The CPU in @allowed running at the lowest cpupri level below @p's,
 * or -1.  Among equals prefer an idle CPU, then @prefer, then this CPU.
 * Lockless: a hint for the caller to recheck.
 */
static int find_lowest_rq(struct task *p, uint64_t allowed, int prefer)
{
	uint64_t lowest, idle = 0;
	int self = smp_processor_id();

	if (!cpupri_find(rt_cpupri_level(p->prio), allowed, &lowest))
		return -1;
	for (uint64_t m = lowest; m; m &= m - 1) {
		struct rq *rq = cpu_rq(ctz64(m));

		if (READ_ONCE(rq->curr) == rq->idle)
			idle |= m & -m;
	}
	if (idle)
		lowest = idle;
	if (prefer >= 0 && ((lowest >> prefer) & 1))
		return prefer;
	if ((lowest >> self) & 1)
		return self;
	return ctz64(lowest);
}

/*
 * Choose a CPU for waking/new @p.  p->pi_lock held, no rq lock.  Stay on
 * the previous CPU when p will run there at once: nothing RT or above is
 * queued or runs there.  Otherwise the lowest-level allowed CPU below
 * p's level (find_lowest_rq prefers an idle one, then prev): the CPU the
 * task can run on now, wherever it ran before.  None: prev, where a push
 * or pull moves it when a CPU frees up.
 */
static int select_task_rq_rt(struct task *p, int prev_cpu, int flags)
{
	uint64_t allowed = task_cpus_online(p);
	bool prev_ok = (allowed >> prev_cpu) & 1;
	int target;

	(void)flags;
	/* Lockless peeks at another CPU (its level, its donor's class: the
	 * donor may be switching out, even exiting; heap memory stays
	 * mapped after kfree).  A wrong guess only costs a push later. */
	if (prev_ok && cpupri_get(prev_cpu) == CPUPRI_NORMAL &&
	    !rt_or_above(READ_ONCE(cpu_rq(prev_cpu)->donor)))
		return prev_cpu;
	target = find_lowest_rq(p, allowed, prev_ok ? prev_cpu : -1);
	if (target >= 0)
		return target;
	return prev_ok ? prev_cpu : ctz64(allowed);
}

/*
 * Push @rq's most important waiting task to a CPU running something less
 * important.  Returns true if one moved (the caller may try again).
 * rq->lock held; may be dropped and retaken (double_lock_balance).
 */
static bool push_rt_task(struct rq *rq)
{
	struct proxy_chain c;
	struct task *p = rt_pick_pushable(rq, -1, &c);

	if (!p)
		return false;
	/* It beats what runs here: it should run here, not move. */
	if (rt_preempts(rq, p)) {
		resched_curr(rq);
		return false;
	}
	for (int tries = 0; tries < 3; tries++) {
		int cpu = find_lowest_rq(p, c.cpus, -1);
		struct rq *dst;
		bool moved = false;

		if (cpu < 0 || cpu == cpu_of(rq))
			return false;
		dst = cpu_rq(cpu);
		/* Whether rq was unlocked or not, the chain is looked at
		 * again under both locks (if it was, p may even be gone:
		 * only compare the pointer with what is queued now). */
		double_lock_balance(rq, dst);
		if (rt_pick_pushable(rq, -1, &c) != p) {
			double_unlock_balance(rq, dst);
			return true;	/* something changed: retry */
		}
		if (((c.cpus >> cpu) & 1) && p->prio < dst->rt.highest_prio &&
		    !dst->dl.dl_nr_running) {
			proxy_chain_move(rq, dst, &c);
			trace_migrate_chain(c.task, c.n, cpu_of(rq), cpu,
					    TRACE_MIG_PUSH);
			wakeup_preempt_rq(dst, p);
			moved = true;
		}
		double_unlock_balance(rq, dst);
		if (moved)
			return true;
	}
	return false;
}

/* Push until nothing moves (bounded by the queue).  rq->lock held. */
static void push_rt_tasks(struct rq *rq)
{
	for (unsigned n = rq->rt.rt_nr_running; n && rq->rt.overloaded; n--)
		if (!push_rt_task(rq))
			break;
}

/*
 * Take from overloaded CPUs the most important waiting RT tasks that beat
 * what this CPU would run.  rq->lock held; dropped and retaken.
 */
static void pull_rt_task(struct rq *rq)
{
	int self = cpu_of(rq);
	uint64_t rto = READ_ONCE(rt_rto_mask) & ~(1ULL << self);

	for (; rto; rto &= rto - 1) {
		struct rq *src = cpu_rq(ctz64(rto));
		struct proxy_chain c;
		struct task *p;

		/* Lockless hint: nothing there beats what we have. */
		if (READ_ONCE(src->rt.highest_prio) >= rq->rt.highest_prio)
			continue;
		double_lock_balance(rq, src);
		/* A deadline task runnable here (it may have come while our
		 * lock was dropped) runs first: the task would wait here. */
		p = rq->dl.dl_nr_running ? NULL : rt_pick_pushable(src, self, &c);
		/* Taken even if it is about to preempt its own CPU (Linux
		 * skips those): that CPU's pick may be an IPI and a vCPU
		 * stall away, while ours is now, and its current task would
		 * then have to come here anyway (football.*deadline_high). */
		if (p && p->prio < rq->rt.highest_prio) {
			proxy_chain_move(src, rq, &c);
			trace_migrate_chain(c.task, c.n, cpu_of(src), self,
					    TRACE_MIG_PULL);
		}
		double_unlock_balance(rq, src);
	}
}

/*
 * Before the pick, with prev still rq->curr.  Pull when this CPU may be
 * lowering its priority below RT work waiting elsewhere: unless its RT
 * prev stays queued as the most important RT task here (it runs on), or
 * a deadline task runs here next.  That is an RT prev that left the
 * queue (blocked, changed class, lost its place), and every prev of
 * another class: a deadline task that blocked or was throttled, a fair
 * task, idle.  pull_rt_task only takes what beats this CPU's best.
 * rq->lock held.
 */
static void balance_rt(struct rq *rq, struct task *prev)
{
	bool lowering;

	if (rq->rt.cpu < 0 || rt_stepping_aside(rq) || rq->dl.dl_nr_running)
		return;
	if (rt_task(prev))
		lowering = !prev->on_rq || rq->rt.highest_prio > prev->prio;
	else
		lowering = true;
	if (lowering && (READ_ONCE(rt_rto_mask) & ~(1ULL << cpu_of(rq))))
		pull_rt_task(rq);
}

/* @p woke on @rq and did not preempt.  rq->lock held; may drop it. */
static void task_woken_rt(struct rq *rq, struct task *p)
{
	(void)p;
	push_rt_tasks(rq);
}

/* @p's affinity changed: a queued task may have become able to move (or
 * not): recount, and push if this CPU is overloaded now. */
static void set_cpus_allowed_rt(struct task *p, uint64_t mask)
{
	struct rq *rq = cpu_rq(p->cpu);
	uint64_t cpus = mask & cpus_online_mask();
	bool migratory = (cpus & (cpus - 1)) != 0 || proxy_blocked(p);

	if (!p->on_rq || migratory == p->rt.migratory)
		return;
	rq->rt.rt_nr_migratory += (int)migratory - (int)p->rt.migratory;
	p->rt.migratory = migratory;
	rt_update_overload(rq);
	rt_queue_push(rq);
}

/* @p blocked on a mutex and stays queued: whatever its affinity, its
 * chain may move to where its owner runs, so this CPU is overloaded if
 * anything else is queued (pushers look; the chain decides).  Until p
 * is next dequeued. */
static void task_blocked_rt(struct rq *rq, struct task *p)
{
	if (p->rt.migratory)
		return;
	p->rt.migratory = true;
	rq->rt.rt_nr_migratory++;
	rt_update_overload(rq);
}

/* rq->lock held.  sched_setattr() made @p an RT task. */
static void switched_to_rt(struct rq *rq, struct task *p)
{
	if (p->on_rq && rq->donor != p)
		wakeup_preempt_rq(rq, p);
	rt_queue_push(rq);
}

/* rq->lock held.  @p left the RT class: this CPU may pull at its next
 * schedule (balance_rt) if p was what ran. */
static void switched_from_rt(struct rq *rq, struct task *p)
{
	if (rq->donor == p)
		resched_curr(rq);
}

/* rq->lock held.  @p's rt_priority changed within the class. */
static void prio_changed_rt(struct rq *rq, struct task *p)
{
	if (!p->on_rq)
		return;
	if (rq->donor == p) {
		if (rq->rt.highest_prio < p->prio)
			resched_curr(rq);
	} else if (rt_task(rq->donor) ? p->prio < rq->donor->prio :
					  !sched_class_above(rq->donor->sched_class, &rt_sched_class)) {
		resched_curr(rq);
	}
	rt_queue_push(rq);
}

/* Once per CPU at boot (no lock), or for a private rq (rq->cpu NULL). */
static void init_rq_rt(struct rq *rq)
{
	struct rt_rq *rt = &rq->rt;

	rt->bitmap[0] = rt->bitmap[1] = 0;
	for (int i = 0; i < RT_NR_LEVELS; i++)
		list_init(&rt->queue[i]);
	rt->rt_nr_running = rt->rt_nr_migratory = 0;
	rt->highest_prio = RT_NR_LEVELS;
	rt->overloaded = false;
	rt->cpu = rq->cpu ? cpu_of(rq) : -1;
	rt->rt_time_ns = rt->period_end_ns = 0;
	rt->throttle_at_ns = ~0ULL;
	rt->throttled = false;
	timer_init(&rt->period_timer, rt_period_timer_fn, rq);
	if (rt->cpu >= 0)
		cpupri_set(rt->cpu, CPUPRI_NORMAL);
}

/* ---- Exports (internal.h) -------------------------------------------- */

void rt_dl_changed(struct rq *rq)
{
	rt_update_cpupri(rq);
	rt_update_overload(rq);
	rt_queue_push(rq);
}

int sched_rr_set_slice(uint64_t ns)
{
	/* Rotation is decided at the tick: a shorter slice would silently
	 * become one tick, so it is refused rather than clamped. */
	if (ns < TICK_NS || ns > 10 * NSEC_PER_SEC)
		return -EINVAL;
	WRITE_ONCE(rt_rr_slice_ns, ns);
	return 0;
}

uint64_t sched_rr_get_slice(void)
{
	return READ_ONCE(rt_rr_slice_ns);
}

const struct sched_class rt_sched_class = {
	.name = "rt",
	.rank = 2,
	.init_rq = init_rq_rt,			/* boot, no lock */
	.enqueue_task = enqueue_task_rt,	/* rq->lock */
	.dequeue_task = dequeue_task_rt,	/* rq->lock */
	.yield_task = yield_task_rt,		/* rq->lock */
	.yield_pick = yield_pick_rt,		/* rq->lock */
	.wakeup_preempt = wakeup_preempt_rt,	/* rq->lock */
	.pick_next_task = pick_next_task_rt,	/* rq->lock */
	.put_prev_task = put_prev_task_rt,	/* rq->lock */
	.set_next_task = set_next_task_rt,	/* rq->lock */
	.task_tick = task_tick_rt,		/* rq->lock, irq */
	.update_curr = update_curr_rt,		/* rq->lock */
	.select_task_rq = select_task_rq_rt,	/* p->pi_lock */
	.balance = balance_rt,			/* rq->lock, dropped */
	.task_woken = task_woken_rt,		/* rq->lock, dropped */
	.set_cpus_allowed = set_cpus_allowed_rt,	/* pi_lock, rq->lock */
	.task_blocked = task_blocked_rt,		/* rq->lock */
	.queue_push = rt_queue_push,			/* rq->lock */
	.push_tasks = push_rt_tasks,			/* rq->lock, dropped */
	.switched_to = switched_to_rt,		/* rq->lock */
	.switched_from = switched_from_rt,	/* rq->lock */
	.prio_changed = prio_changed_rt,	/* rq->lock */
	.requeue_prio = requeue_prio_rt,	/* rq->lock */
};
