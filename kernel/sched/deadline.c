/*
 * deadline.c - the deadline class, SCHED_DEADLINE (Linux's
 * kernel/sched/deadline.c, simplified; docs/sched-deadline.md).
 *
 * EDF: runnable, unthrottled deadline tasks sit in rq->dl.root ordered by
 * absolute deadline (the running one too); the pick is the cached
 * leftmost.  Each task is a Constant Bandwidth Server: its budget
 * (dl.runtime) is charged in update_curr_dl; at zero it is throttled (out
 * of the tree) until dl_timer fires at the start of its next period and
 * replenishes it (runtime += dl_runtime, deadline += dl_period).  A
 * waking task keeps (runtime, deadline) only if that does not let it use
 * more than its bandwidth before the deadline; otherwise a new period
 * starts.  Admission control keeps the sum of runtime/period of all
 * deadline tasks under dl_bw_percent of all online CPUs.
 *
 * Global EDF: cpudeadline.c tracks each CPU's earliest deadline; a task
 * goes where it would run at once (select_task_rq), an overloaded rq
 * (more than one deadline task) pushes its earliest waiting task to a CPU
 * running a later deadline, and a CPU about to pick pulls the earliest
 * waiting task of an overloaded rq if it would run it first.
 *
 * Locks: every op runs with rq->lock held, irqs off (see struct
 * sched_class).  dl_timer's callback takes p->pi_lock then p's rq->lock,
 * like a wakeup; dl_bw_lock is taken alone (dl_admit, dl_task_dead).
 */
#include "internal.h"
#include "cpudeadline.h"
#include "bitops.h"

#define BW_SHIFT 20			/* bandwidths: 1.0 == 1 << 20 */
#define DL_SCALE 10			/* as Linux: drop 10 bits before
					   multiplying two times in ns */

static inline struct task *dl_task_of(struct sched_dl_entity *dl)
{
	return container_of(dl, struct task, dl);
}

static inline bool on_dl_rq(struct sched_dl_entity *dl)
{
	return !RB_EMPTY_NODE(&dl->rb_node);
}

/* CPUs whose rq has more than one deadline task: something to push
 * (internal.h: dl_pull_due() reads it). */
uint64_t dlo_mask;

/* ---- The EDF tree ---------------------------------------------------- */

/* Leftmost (earliest) task of @rq, or NULL.  rq->lock held. */
static struct task *dl_first(struct rq *rq)
{
	struct rb_node *n = rb_first_cached(&rq->dl.root);

	return n ? dl_task_of(rb_entry(n, struct sched_dl_entity, rb_node)) : NULL;
}

/* Tell cpudl, dlo_mask and the RT class what @rq looks like now (after
 * dl_nr_running or the earliest deadline changed).  rq->lock held.
 * cpudl and dlo_mask only once another CPU may read them (sched_smp). */
void dl_rq_changed(struct rq *rq)
{
	int cpu = cpu_of(rq);
	struct task *first = dl_first(rq);

	if (!sched_smp)
		goto rt;
	if (first)
		cpudl_set(cpu, first->dl.deadline);
	else
		cpudl_clear(cpu);
	if (rq->dl.dl_nr_running > 1)
		__atomic_fetch_or(&dlo_mask, 1ULL << cpu, __ATOMIC_RELAXED);
	else
		__atomic_fetch_and(&dlo_mask, ~(1ULL << cpu), __ATOMIC_RELAXED);
rt:
	rt_dl_changed(rq);
}

static void __enqueue_dl(struct rq *rq, struct task *p)
{
	struct rb_node **link = &rq->dl.root.rb_root.rb_node, *parent = NULL;
	bool leftmost = true;

	BUG_ON(on_dl_rq(&p->dl) || p->dl.dl_throttled);
	while (*link) {
		struct sched_dl_entity *e;

		parent = *link;
		e = rb_entry(parent, struct sched_dl_entity, rb_node);
		/* Equal deadlines: FIFO, the newcomer goes right. */
		if (p->dl.deadline < e->deadline) {
			link = &parent->rb_left;
		} else {
			link = &parent->rb_right;
			leftmost = false;
		}
	}
	rb_link_node(&p->dl.rb_node, parent, link);
	rb_insert_color_cached(&p->dl.rb_node, &rq->dl.root, leftmost);
	rq->dl.dl_nr_running++;
	add_nr_running(rq, 1);
	dl_rq_changed(rq);
}

static void __dequeue_dl(struct rq *rq, struct task *p)
{
	BUG_ON(!on_dl_rq(&p->dl) || rq->dl.dl_nr_running == 0);
	rb_erase_cached(&p->dl.rb_node, &rq->dl.root);
	RB_CLEAR_NODE(&p->dl.rb_node);
	rq->dl.dl_nr_running--;
	sub_nr_running(rq, 1);
	dl_rq_changed(rq);
}

/* ---- The Constant Bandwidth Server ---------------------------------- */

static void count_miss(struct sched_dl_entity *dl)
{
	if (dl->missed_deadline != dl->deadline) {
		dl->missed_deadline = dl->deadline;
		dl->nr_misses++;
		trace_dl_miss(dl_task_of(dl), dl->deadline);
	}
}

static void new_period(struct sched_dl_entity *dl, uint64_t now)
{
	dl->deadline = now + dl->dl_deadline;
	dl->runtime = dl->dl_runtime;
	trace_dl_replenish(dl_task_of(dl), dl->deadline);
}

/*
 * Would keeping (runtime, deadline) let the task run faster than its
 * bandwidth until the deadline?  runtime / (deadline - now) >
 * dl_runtime / dl_period, cross-multiplied, with DL_SCALE bits dropped
 * so that two 4 s figures multiply in 64 bits.  deadline > now.
 */
static bool dl_overflow(struct sched_dl_entity *dl, uint64_t now)
{
	uint64_t left = (dl->dl_period >> DL_SCALE) * ((uint64_t)dl->runtime >> DL_SCALE);
	uint64_t right = ((dl->deadline - now) >> DL_SCALE) * (dl->dl_runtime >> DL_SCALE);

	return right < left;
}

/* Wakeup rule against bandwidth theft (Linux's update_dl_entity). */
static void cbs_wakeup(struct sched_dl_entity *dl, uint64_t now)
{
	if (dl->deadline <= now || dl->runtime <= 0 || dl_overflow(dl, now))
		new_period(dl, now);
}

/*
 * Refill a budget spent down to runtime <= 0: one period per dl_runtime
 * owed.  Owing more than one period, or ending with a deadline already
 * past (the replenishment came too late), is a missed deadline; the
 * latter also restarts from now, as Linux does.
 */
static void replenish(struct sched_dl_entity *dl, uint64_t now)
{
	int periods = 0;

	while (dl->runtime <= 0) {
		dl->deadline += dl->dl_period;
		dl->runtime += dl->dl_runtime;
		periods++;
	}
	if (periods > 1)
		count_miss(dl);
	if (dl->deadline <= now) {
		count_miss(dl);
		new_period(dl, now);	/* traces the replenishment */
	} else {
		trace_dl_replenish(dl_task_of(dl), dl->deadline);
	}
	dl->nr_replenished++;
}

/* The start of @dl's next period: when its throttling ends. */
static uint64_t next_period(struct sched_dl_entity *dl)
{
	return dl->deadline - dl->dl_deadline + dl->dl_period;
}

static void push_dl_tasks(struct rq *rq);

/*
 * @p's budget is spent: out of the tree until its next period.  If that
 * has already begun, replenish at once instead.  rq->lock held; arms
 * dl_timer on this CPU (its callback finds p's rq itself).
 */
static void dl_throttle(struct rq *rq, struct task *p)
{
	struct sched_dl_entity *dl = &p->dl;
	uint64_t next = next_period(dl);

	if (on_dl_rq(dl))
		__dequeue_dl(rq, p);
	dl->nr_throttled++;
	trace_dl_throttle(p);
	if (next > rq->clock_ns) {
		dl->dl_throttled = true;
		timer_arm(&dl->dl_timer, next);
	} else {
		replenish(dl, rq->clock_ns);
		if (p->on_rq)
			__enqueue_dl(rq, p);
	}
	/* Throttled or given a later deadline, the running donor ranks
	 * lower from here: a waiter it outranked until now is owed a pick
	 * from now on, not since the donor began (sched_verify counted the
	 * ticks a deadline task took before its throttle against the CPU:
	 * a miss of mutex_stress.random_nesting_with_affinity_changes at 4
	 * CPUs on riscv64, judged 285 us after the throttle). */
	if (rq->donor == p) {
		rq_donor_changed(rq);
		resched_curr(rq);
	}
}

/*
 * dl_timer: @p's next period has come.  Interrupt context, irqs off, on
 * the CPU that throttled it; p may have moved since (task_rq_lock).
 *
 * A stale callback (p re-armed meanwhile, left the class, or was
 * unthrottled by a parameter change) finds nothing to do.
 */
static void dl_task_timer(struct timer *t)
{
	struct task *p = t->data;
	struct rq *rq;

	spin_lock_raw(&p->pi_lock);
	rq = task_rq_lock(p);
	update_rq_clock(rq);
	if (p->sched_class != &dl_sched_class || !p->dl.dl_throttled ||
	    rq->clock_ns < t->deadline_ns)
		goto out;
	p->dl.dl_throttled = false;
	replenish(&p->dl, rq->clock_ns);
	if (p->on_rq) {
		__enqueue_dl(rq, p);
		wakeup_preempt_rq(rq, p);
		push_dl_tasks(rq);
	}
out:
	spin_unlock_raw(&rq->lock);
	spin_unlock_raw(&p->pi_lock);
}

/*
 * budget_timer: the running deadline task's budget ends now, between two
 * ticks.  Charge it (update_curr throttles it); a stale timer finds
 * another task running and does nothing.
 */
static void dl_budget_timer(struct timer *t)
{
	struct rq *rq = t->data;
	struct task *donor;

	spin_lock_raw(&rq->lock);
	update_rq_clock(rq);
	donor = rq->donor;
	if (donor->sched_class == &dl_sched_class) {
		update_curr(rq);
		if (rq->dl.running == donor && !donor->dl.dl_throttled &&
		    donor->dl.runtime > 0)
			timer_arm(t, rq->clock_ns + donor->dl.runtime);
	}
	spin_unlock_raw(&rq->lock);
}

/* ---- Push and pull (global EDF) ------------------------------------ */

/*
 * May @p, queued on @src, move with its proxy chain (@c) to @dst_cpu (-1:
 * to some other CPU)?  Not if any of the chain runs there or is being
 * switched to (rq->curr, rq->donor, dl.running), and only where the
 * chain's last task, the one that would run for it, may run
 * (proxy_chain_of).  The one migration check of this class.
 */
static bool can_migrate_dl(struct rq *src, struct task *p, int dst_cpu,
			   struct proxy_chain *c)
{
	if (!on_dl_rq(&p->dl) || p == src->dl.running || !proxy_chain_of(src, p, c))
		return false;
	c->cpus &= ~(1ULL << cpu_of(src));
	return dst_cpu >= 0 ? (c->cpus >> dst_cpu) & 1 : c->cpus != 0;
}

/* Earliest task waiting on @src (not the running one).  src->lock held. */
static struct task *dl_first_waiting(struct rq *src)
{
	for (struct rb_node *n = rb_first_cached(&src->dl.root); n; n = rb_next(n)) {
		struct task *p = dl_task_of(rb_entry(n, struct sched_dl_entity, rb_node));

		if (p != src->curr && p != src->donor && p != src->dl.running)
			return p;
	}
	return NULL;
}

/* The earliest waiting task on @src if it can move, with its chain @c,
 * to @dst_cpu (-1: anywhere but src).  src->lock held. */
static struct task *pick_pushable(struct rq *src, int dst_cpu,
				  struct proxy_chain *c)
{
	struct task *p = dl_first_waiting(src);

	return p && can_migrate_dl(src, p, dst_cpu, c) ? p : NULL;
}

/* Does @p, with deadline @dl, run first on @rq?  rq->lock held. */
static bool dl_runs_first_on(struct rq *rq, uint64_t dl)
{
	struct task *first = dl_first(rq);

	return !first || dl < first->dl.deadline;
}

/*
 * Push the earliest waiting task of @rq to a CPU where it runs at once.
 * double_lock_balance() may drop rq->lock: callers are wakeups and
 * timers, never the pick (see queue_push).  Returns true if a task
 * moved.  rq->lock held.
 */
static bool push_dl_task(struct rq *rq)
{
	struct proxy_chain c;
	struct task *p = dl_first_waiting(rq);
	struct rq *later;
	int cpu;

	if (!p)
		return false;
	/* Earlier than what runs here: it preempts here instead. */
	if (rq->dl.running && p->dl.deadline < rq->dl.running->dl.deadline) {
		resched_curr(rq);
		return false;
	}
	if (!can_migrate_dl(rq, p, -1, &c))
		return false;
	cpu = cpudl_find(c.cpus, p->dl.deadline, -1);
	if (cpu < 0)
		return false;
	later = cpu_rq(cpu);
	/* The chain is looked at again under both locks (if rq was
	 * unlocked, p may be gone: only compare the pointer). */
	double_lock_balance(rq, later);
	if (pick_pushable(rq, -1, &c) != p) {
		double_unlock_balance(rq, later);
		return true;	/* changed: look again */
	}
	if (((c.cpus >> cpu) & 1) && dl_runs_first_on(later, p->dl.deadline)) {
		proxy_chain_move(rq, later, &c);
		trace_migrate_chain(c.task, c.n, cpu_of(rq), cpu,
				    TRACE_MIG_PUSH);
		wakeup_preempt_rq(later, p);
		double_unlock_balance(rq, later);
		return true;
	}
	double_unlock_balance(rq, later);
	return false;
}

/* Does a deadline task wait on @rq behind an earlier deadline?  (Not
 * behind a stopper: see rt.c's rt_queue_push.)  rq->lock held. */
static bool dl_waiting(struct rq *rq)
{
	return rq->dl.dl_nr_running > 1;
}

static void push_dl_tasks(struct rq *rq)
{
	/* Bounded: don't loop forever against racing CPUs. */
	for (int i = 0; i < 8 && dl_waiting(rq); i++)
		if (!push_dl_task(rq))
			break;
}

/*
 * Pull to @rq the earliest waiting deadline task of any overloaded CPU
 * that would run first here.  May drop rq->lock.
 */
static void pull_dl_task(struct rq *rq)
{
	int this_cpu = cpu_of(rq);
	uint64_t mask = __atomic_load_n(&dlo_mask, __ATOMIC_RELAXED) & ~(1ULL << this_cpu);

	while (mask) {
		int cpu = ctz64(mask);
		struct rq *src = cpu_rq(cpu);
		struct proxy_chain c;
		struct task *p;

		mask &= mask - 1;
		if (READ_ONCE(src->dl.dl_nr_running) < 2)
			continue;
		double_lock_balance(rq, src);
		p = src->dl.dl_nr_running > 1 ? pick_pushable(src, this_cpu, &c) : NULL;
		/* Taken even if it is about to preempt its own CPU (Linux
		 * skips those): that CPU's pick may be an IPI and a vCPU
		 * stall away, while ours is now, and the task it preempts
		 * would then have to come here anyway: a chain pushed away
		 * by a short deadline task comes back when that task
		 * sleeps (football.proxy_deadline_high). */
		if (p && dl_runs_first_on(rq, p->dl.deadline)) {
			proxy_chain_move(src, rq, &c);
			trace_migrate_chain(c.task, c.n, cpu, this_cpu,
					    TRACE_MIG_PULL);
			resched_curr(rq);
		}
		double_unlock_balance(rq, src);
	}
}

/*
 * Push from @rq once rq->lock is free (rq_queue_push: after the switch,
 * or at the tick).  Ops inside the pick, and those whose caller holds
 * state that must not change, cannot drop rq->lock.
 */
static void queue_push(struct rq *rq)
{
	if (dl_waiting(rq))
		rq_queue_push(rq, &dl_sched_class);
}

/* The push queue_push asked for.  rq->lock held, may be dropped. */
static void push_dl_tasks_deferred(struct rq *rq)
{
	update_rq_clock(rq);
	push_dl_tasks(rq);
}


/* ---- Class operations ---------------------------------------------- */

/* Boot, per CPU, no lock. */
static void init_rq_dl(struct rq *rq)
{
	rq->dl.root = RB_ROOT_CACHED;
	rq->dl.dl_nr_running = 0;
	rq->dl.running = NULL;
	timer_init(&rq->dl.budget_timer, dl_budget_timer, rq);
	cpudl_init_cpu(cpu_of(rq));
}

/* rq->lock held. */
static void enqueue_task_dl(struct rq *rq, struct task *p, int flags)
{
	struct sched_dl_entity *dl = &p->dl;

	if (flags & ENQUEUE_NEW)
		new_period(dl, rq->clock_ns);
	else if ((flags & ENQUEUE_WAKEUP) && !dl->dl_throttled)
		cbs_wakeup(dl, rq->clock_ns);
	else if ((flags & ENQUEUE_RESTORE) && !dl->dl_throttled && dl->deadline <= rq->clock_ns)
		new_period(dl, rq->clock_ns);
	/* Throttled: dl_timer puts it in the tree at its next period. */
	if (!dl->dl_throttled)
		__enqueue_dl(rq, p);
}

/* rq->lock held. */
static void dequeue_task_dl(struct rq *rq, struct task *p, int flags)
{
	(void)flags;
	if (on_dl_rq(&p->dl))
		__dequeue_dl(rq, p);
}

/*
 * yield(): the job is done; give the rest of the budget up and sleep
 * (throttled) until the next period, as Linux's sched_yield() does for
 * deadline tasks.  rq->lock held.
 */
static void yield_task_dl(struct rq *rq)
{
	struct task *p = rq->donor;

	p->dl.runtime = 0;
	/* A borrowed deadline (inherit mode) is never throttled: its next
	 * update_curr moves it a period on instead. */
	if (!p->dl.dl_throttled && !p->dl.dl_boosted)
		dl_throttle(rq, p);
}

/* @p (deadline) was queued on @rq while a deadline task is the donor.
 * rq->lock held. */
static void wakeup_preempt_dl(struct rq *rq, struct task *p)
{
	if (on_dl_rq(&p->dl) && p->dl.deadline < rq->donor->dl.deadline)
		resched_curr(rq);
}

/* rq->lock held. */
static struct task *pick_next_task_dl(struct rq *rq)
{
	return dl_first(rq);
}

/* rq->lock held.  @p stays in the tree if it is still runnable. */
static void put_prev_task_dl(struct rq *rq, struct task *p)
{
	(void)p;
	rq->dl.running = NULL;
}

/*
 * @p runs next (rq->curr may still be the previous task).  Count a
 * deadline already missed, start the budget timer, and if other deadline
 * tasks wait here (prev among them, perhaps), have them pushed after the
 * switch: inside the pick rq->lock must stay held.  rq->lock held.
 */
static void set_next_task_dl(struct rq *rq, struct task *p)
{
	struct sched_dl_entity *dl = &p->dl;

	rq->dl.running = p;
	if (rq->clock_ns > dl->deadline && dl->runtime > 0)
		count_miss(dl);
	if (dl->runtime > 0)
		timer_arm(&rq->dl.budget_timer, rq->clock_ns + dl->runtime);
	queue_push(rq);
}

/*
 * Charge @delta ns to the donor's budget.  Out of budget: throttle.
 * Past its deadline with budget left: a miss.  rq->lock held.
 */
static void update_curr_dl(struct rq *rq, struct task *p, uint64_t delta)
{
	struct sched_dl_entity *dl = &p->dl;

	dl->runtime -= (int64_t)delta;
	if (dl->dl_boosted) {
		/* Inherit mode: a borrowed deadline is not throttled; spent,
		 * it moves a period on (Linux does the same for boosted). */
		if (dl->runtime <= 0) {
			bool queued = on_dl_rq(dl);

			if (queued)
				__dequeue_dl(rq, p);
			while (dl->runtime <= 0) {
				dl->deadline += dl->dl_period;
				dl->runtime += dl->dl_runtime;
			}
			if (queued)
				__enqueue_dl(rq, p);
			rq_donor_changed(rq);
			resched_curr(rq);
		}
		return;
	}
	if (rq->clock_ns > dl->deadline && dl->runtime > 0)
		count_miss(dl);
	/* An exiting task's budget no longer matters and must not arm a
	 * timer on a task about to be freed. */
	if (dl->runtime <= 0 && !dl->dl_throttled && !dl->dl_dead &&
	    p->state != TASK_DEAD)
		dl_throttle(rq, p);
}

/* Tick while deadline task @p is the donor.  rq->lock held. */
static void task_tick_dl(struct rq *rq, struct task *p)
{
	struct task *first = dl_first(rq);

	/* update_curr already charged the budget.  Catch a missed
	 * preemption (a push that found the other rq busy is retried by
	 * every tick: scheduler_tick asks each class's queue_push). */
	if (first && first != p && first->dl.deadline < p->dl.deadline)
		resched_curr(rq);
}

/*
 * Where should @p run?  Its CPU if no deadline task is there (or it
 * would run first there), else the CPU cpudl says runs the latest
 * deadline.  Holds p->pi_lock only; rq fields are lockless peeks.
 */
static int select_task_rq_dl(struct task *p, int prev_cpu, int flags)
{
	uint64_t allowed = task_cpus_online(p);
	uint64_t now = clock_ns(), dl = p->dl.deadline;
	int cpu;

	(void)flags;
	if (dl <= now)			/* it will start a new period */
		dl = now + p->dl.dl_deadline;
	if (!((allowed >> prev_cpu) & 1))
		prev_cpu = -1;
	cpu = cpudl_find(allowed, dl, prev_cpu);
	if (cpu >= 0)
		return cpu;
	return prev_cpu >= 0 ? prev_cpu : ctz64(allowed);
}

/* Before the pick on @rq: pull an earlier task from an overloaded CPU.
 * rq->lock held, may be dropped. */
static void balance_dl(struct rq *rq, struct task *prev)
{
	(void)prev;
	if (dl_pull_due(rq))
		pull_dl_task(rq);
}

/* @p was woken on @rq and did not preempt: push it (or another) to a
 * CPU running a later deadline.  rq->lock held, may be dropped. */
static void task_woken_dl(struct rq *rq, struct task *p)
{
	(void)p;
	push_dl_tasks(rq);
}

/* sched_setattr moved @p out of the class.  Its pending replenishment
 * is now stale (dl_task_timer checks).  rq->lock, p->pi_lock held. */
static void switched_from_dl(struct rq *rq, struct task *p)
{
	(void)rq;
	p->dl.dl_throttled = false;
}

/* Into the class, or new parameters: preemption is left to the caller's
 * resched; try to spread.  rq->lock, p->pi_lock held. */
static void switched_to_dl(struct rq *rq, struct task *p)
{
	(void)p;
	queue_push(rq);
}

/* ---- Parameters and admission control -------------------------------- */

static spinlock_t dl_bw_lock = SPINLOCK_INIT("dl_bw");
static uint64_t dl_total_bw;		/* sum of admitted dl_bw */
static unsigned dl_bw_percent = 95;	/* of every online CPU together */

static uint64_t to_ratio(uint64_t period, uint64_t runtime)
{
	return (runtime << BW_SHIFT) / period;
}

/* The admission limit, for the CPUs online now.  dl_bw_lock held. */
static uint64_t dl_bw_cap(unsigned percent)
{
	uint64_t n = popcount64(cpus_online_mask());

	return n * ((uint64_t)percent << BW_SHIFT) / 100;
}

int dl_admit(struct task *p, const struct sched_attr *attr)
{
	uint64_t new_bw = 0, old_bw;
	unsigned long flags;
	int err = 0;

	if (attr->policy == SCHED_DEADLINE)
		new_bw = to_ratio(attr->dl_period ? attr->dl_period : attr->dl_deadline,
				  attr->dl_runtime);
	flags = spin_lock(&dl_bw_lock);
	old_bw = p->dl.dl_bw;
	/* An exiting task gave its bandwidth back (dl_task_dead, under this
	 * lock) and never will again: what it were admitted now would stay
	 * counted for good. */
	if (READ_ONCE(p->dl.dl_dead)) {
		err = -ESRCH;
	} else if (new_bw > old_bw &&
		   dl_total_bw - old_bw + new_bw > dl_bw_cap(dl_bw_percent)) {
		/* Growing past the limit is refused; shrinking always works. */
		err = -EBUSY;
	} else {
		dl_total_bw = dl_total_bw - old_bw + new_bw;
		WRITE_ONCE(p->dl.dl_bw, new_bw);
		/* Pairs with dl_task_dead()'s barrier: an exit that saw no
		 * bandwidth (before this store) and skipped the lock is
		 * seen here, and what was just admitted goes back. */
		smp_mb();
		if (READ_ONCE(p->dl.dl_dead)) {
			dl_total_bw -= new_bw;
			WRITE_ONCE(p->dl.dl_bw, 0);
			err = -ESRCH;
		}
	}
	spin_unlock(&dl_bw_lock, flags);
	return err;
}

/*
 * @p exits: its bandwidth goes back, and dl_admit() admits it no more.
 * Most tasks never had any: they skip dl_bw_lock (about 100 instructions
 * of every exit).  Store dl_dead, full barrier, load dl_bw, against
 * dl_admit()'s store dl_bw, barrier, load dl_dead: one of the two sees
 * the other's store, so a concurrent admission is either seen here (and
 * given back under the lock) or undone there.
 */
void dl_task_dead(struct task *p)
{
	unsigned long flags;

	WRITE_ONCE(p->dl.dl_dead, true);
	smp_mb();
	if (READ_ONCE(p->dl.dl_bw)) {
		flags = spin_lock(&dl_bw_lock);
		dl_total_bw -= p->dl.dl_bw;
		WRITE_ONCE(p->dl.dl_bw, 0);
		spin_unlock(&dl_bw_lock, flags);
	}
	/* A replenishment left over from a throttle (also one from before
	 * a change to another class) must not fire on a freed task. */
	if (p->dl.dl_timer.fn)
		timer_cancel(&p->dl.dl_timer);
}

int dl_bw_limit_set(unsigned percent)
{
	unsigned long flags;
	int err = 0;

	if (percent < 1 || percent > 100)
		return -EINVAL;
	flags = spin_lock(&dl_bw_lock);
	if (dl_total_bw > dl_bw_cap(percent))
		err = -EBUSY;
	else
		dl_bw_percent = percent;
	spin_unlock(&dl_bw_lock, flags);
	return err;
}

unsigned dl_bw_limit_get(void)
{
	return READ_ONCE(dl_bw_percent);
}

uint64_t dl_bw_total(void)
{
	return READ_ONCE(dl_total_bw);
}

/*
 * Copy @attr into p->dl.  p is out of its class (dequeued, put), with
 * p->pi_lock and its rq->lock held.  The next enqueue starts a fresh
 * period; a pending replenishment becomes stale.
 */
void dl_init_task(struct task *p)
{
	timer_init(&p->dl.dl_timer, dl_task_timer, p);
	RB_CLEAR_NODE(&p->dl.rb_node);
}

void dl_set_params(struct task *p, const struct sched_attr *attr)
{
	struct sched_dl_entity *dl = &p->dl;

	BUG_ON(dl->dl_timer.fn && on_dl_rq(dl));
	dl->dl_runtime = attr->dl_runtime;
	dl->dl_deadline = attr->dl_deadline;
	dl->dl_period = attr->dl_period ? attr->dl_period : attr->dl_deadline;
	if (!dl->dl_timer.fn)
		timer_init(&dl->dl_timer, dl_task_timer, p);
	RB_CLEAR_NODE(&dl->rb_node);
	dl->dl_throttled = false;
	dl->deadline = 0;
	dl->runtime = 0;
}

const struct sched_class dl_sched_class = {
	.name = "deadline",
	.rank = 3,
	.init_rq = init_rq_dl,				/* boot, no lock */
	.enqueue_task = enqueue_task_dl,		/* rq->lock */
	.dequeue_task = dequeue_task_dl,		/* rq->lock */
	.yield_task = yield_task_dl,			/* rq->lock */
	.wakeup_preempt = wakeup_preempt_dl,		/* rq->lock */
	.pick_next_task = pick_next_task_dl,		/* rq->lock */
	.put_prev_task = put_prev_task_dl,		/* rq->lock */
	.set_next_task = set_next_task_dl,		/* rq->lock */
	.task_tick = task_tick_dl,			/* rq->lock */
	.update_curr = update_curr_dl,			/* rq->lock */
	.select_task_rq = select_task_rq_dl,		/* p->pi_lock */
	.balance = balance_dl,				/* rq->lock, dropped */
	.task_woken = task_woken_dl,			/* rq->lock, dropped */
	.queue_push = queue_push,			/* rq->lock */
	.push_tasks = push_dl_tasks_deferred,		/* rq->lock, dropped */
	.switched_from = switched_from_dl,		/* rq->lock + pi_lock */
	.switched_to = switched_to_dl,			/* rq->lock + pi_lock */
	.prio_changed = switched_to_dl,			/* rq->lock + pi_lock */
};
