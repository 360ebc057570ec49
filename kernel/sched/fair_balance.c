/*
 * fair_balance.c - the fair class across CPUs: where a waking task runs
 * (select_task_rq_fair) and the load balancer that spreads fair tasks by
 * weight, newly idle (balance_fair) and periodically from the tick
 * (fair_trigger_load_balance).  The queue, the pick and the class table
 * are in fair.c.
 *
 * Load is the sum of the queued fair weights (no PELT), less the tasks
 * blocked on a mutex when the balancer moves tasks (runnable_load); a CPU
 * pulls from the busiest one while that narrows the gap.  Whether a task
 * may move is decided in one place, can_migrate_task().
 */
#include "fair_internal.h"

/* Periodic balance: every tick while idle, else every 8 ticks (32 ms). */
#define BALANCE_TICKS_BUSY 8
/* Per balance, at most this many tasks move / are looked at (bounded
 * irq-off time whatever the queue length). */
#define BALANCE_MAX_MOVE 32
#define BALANCE_MAX_SCAN 64

/* Weighted load of a CPU for placement: fair weights, plus a nice-0 weight
 * for every task of another class.  Lockless: a heuristic. */
static unsigned long cpu_load(int cpu)
{
	struct rq *rq = cpu_rq(cpu);
	unsigned nr = READ_ONCE(rq->nr_running), nr_fair = READ_ONCE(rq->cfs.nr_running);

	return READ_ONCE(rq->cfs.load) + (nr > nr_fair ? nr - nr_fair : 0) * NICE_0_LOAD;
}

static bool cpu_idle(int cpu)
{
	struct rq *rq = cpu_rq(cpu);

	return READ_ONCE(rq->curr) == rq->idle && READ_ONCE(rq->nr_running) == 0;
}

/*
 * Where @p runs next: its previous CPU if idle (warm cache), else an idle
 * allowed CPU (scanning from prev_cpu + 1 so wakeups spread), else the
 * allowed CPU with the least weighted load, prev_cpu on a tie.  p->pi_lock
 * held, no rq lock.
 */
int select_task_rq_fair(struct task *p, int prev_cpu, int flags)
{
	uint64_t allowed = task_cpus_online(p);
	unsigned long best_load = ~0UL;
	int best = -1;

	(void)flags;
	BUG_ON(!allowed);
	if (prev_cpu >= 0 && prev_cpu < ncpus && ((allowed >> prev_cpu) & 1) &&
	    cpu_idle(prev_cpu))
		return prev_cpu;
	for (int k = 1; k <= ncpus; k++) {
		int cpu = (prev_cpu + k) % ncpus;

		if ((allowed >> cpu) & 1 && cpu_idle(cpu))
			return cpu;
	}
	for (int cpu = 0; cpu < ncpus; cpu++) {
		unsigned long load;

		if (!((allowed >> cpu) & 1))
			continue;
		load = cpu_load(cpu);
		if (load < best_load || (load == best_load && cpu == prev_cpu)) {
			best = cpu;
			best_load = load;
		}
	}
	return best;
}

/*
 * The one place that decides whether the balancer may move @p from @src
 * to @dst_cpu.  Never the running task nor the donor, never outside its
 * affinity, and only a lone task: not one blocked on a mutex (a blocked
 * donor stays with its chain; RT and deadline push/pull move whole
 * chains, the fair balancer does not) nor the would-be proxy of a chain
 * queued on @src (proxy_chain_of).  src->lock held.
 */
static bool can_migrate_task(struct rq *src, struct task *p, int dst_cpu)
{
	struct proxy_chain c;

	if (!p->on_rq || p->sched_class != &fair_sched_class)
		return false;
	if (!proxy_chain_of(src, p, &c) || c.n != 1 || c.lend)
		return false;
	return (c.cpus >> dst_cpu) & 1;
}

/*
 * The fair load of @rq that can run: its queued weight less the weight of
 * tasks blocked on a mutex (proxy execution keeps them queued, but what
 * runs for one is its owner, whose weight is counted already: a chain is
 * counted once).  rq->lock held.
 */
static long runnable_load(struct rq *rq)
{
	unsigned long load = rq->cfs.load;
	struct list_head *pos;

	if (locking_mode != LOCKING_PROXY)
		return load;
	list_for_each(pos, &rq->tasks) {
		struct task *p = list_entry(pos, struct task, rq_node);

		if (p->sched_class == &fair_sched_class && proxy_blocked(p) &&
		    READ_ONCE(p->blocked_on) != PROXY_WAKING)
			load -= p->se.weight;
	}
	return load;
}

/*
 * Pull fair tasks from @src to @dst while that narrows the gap between
 * their loads: a task of weight w moves if load(src) - load(dst) >= 2w.
 * Least urgent first (latest deadline).  Both locks held.
 */
static int move_tasks(struct rq *dst, struct rq *src)
{
	long imbalance = runnable_load(src) - runnable_load(dst);
	struct rb_node *node, *prev;
	int moved = 0, scanned = 0;

	/* A task a higher class preempted is as movable as any queued one. */
	fair_unpark(src);
	node = rb_last(&src->cfs.tasks_timeline.rb_root);

	for (; node && moved < BALANCE_MAX_MOVE && scanned++ < BALANCE_MAX_SCAN;
	     node = prev) {
		struct sched_entity *se = __node_2_se(node);
		struct task *p = task_of(se);

		prev = rb_prev(node);
		if ((long)(2 * se->weight) > imbalance)
			continue;
		if (!can_migrate_task(src, p, cpu_of(dst)))
			continue;
		move_queued_task(src, dst, p);
		trace_migrate(p, cpu_of(src), cpu_of(dst), TRACE_MIG_BALANCE);
		wakeup_preempt_rq(dst, p);
		imbalance -= 2 * se->weight;
		moved++;
	}
	return moved;
}

/* The CPU with the largest fair load that has a queued task to spare. */
static struct rq *find_busiest(struct rq *this_rq)
{
	unsigned long max = READ_ONCE(this_rq->cfs.load);
	uint64_t online = cpus_online_mask();
	struct rq *busiest = NULL;

	for (int cpu = 0; cpu < ncpus; cpu++) {
		struct rq *rq = cpu_rq(cpu);
		unsigned long load = READ_ONCE(rq->cfs.load);

		if (rq == this_rq || !((online >> cpu) & 1))
			continue;
		if (READ_ONCE(rq->cfs.nr_running) >= 2 && load > max) {
			max = load;
			busiest = rq;
		}
	}
	return busiest;
}

/* this_rq->lock held; may drop and retake it.  Returns tasks moved. */
static int load_balance(struct rq *this_rq)
{
	struct rq *busiest = find_busiest(this_rq);
	int moved;

	if (!busiest)
		return 0;
	double_lock_balance(this_rq, busiest);
	/* Whatever we saw was lockless; move_tasks rechecks under both. */
	update_rq_clock(this_rq);
	update_rq_clock(busiest);
	moved = move_tasks(this_rq, busiest);
	double_unlock_balance(this_rq, busiest);
	return moved;
}

/*
 * Newly idle: this CPU has nothing queued at all (prev is going to
 * sleep), so pull before picking the idle task.  rq->lock held; may be
 * dropped.
 */
void balance_fair(struct rq *rq, struct task *prev)
{
	(void)prev;
	if (rq->nr_running || !(cpus_online_mask() & ~(1ULL << cpu_of(rq))))
		return;
	load_balance(rq);
}

/* From every CPU's tick, IRQ context, no lock held. */
void fair_trigger_load_balance(struct rq *rq)
{
	bool idle;

	if (!sched_smp)		/* a lone CPU: nothing to balance with */
		return;
	idle = READ_ONCE(rq->nr_running) == 0;
	if (--rq->cfs.balance_ticks && !idle)
		return;
	rq->cfs.balance_ticks = BALANCE_TICKS_BUSY;
	if (!(cpus_online_mask() & ~(1ULL << cpu_of(rq))))
		return;
	spin_lock_raw(&rq->lock);
	load_balance(rq);
	spin_unlock_raw(&rq->lock);
}

/* Boot, no lock: stagger the CPUs' periodic balance. */
void init_balance_fair(struct rq *rq)
{
	rq->cfs.balance_ticks = 1 + (rq->cpu ? rq->cpu->id % BALANCE_TICKS_BUSY : 0);
}
