/*
 * fair.c - the placeholder time-sharing class: round robin.
 *
 * Runnable tasks wait in rq->fair_queue in FIFO order; the running task
 * is taken off the queue (set_next_task) and put back at the tail when it
 * stops running (put_prev_task), so every task gets FAIR_SLICE_NS in
 * turn.  No wakeup preemption among fair tasks.  The next issue replaces
 * this file with EEVDF; the ops and their locking stay as they are.
 */
#include "internal.h"

/* rq->lock held for every op below. */

static void enqueue_task_fair(struct rq *rq, struct task *p, int flags)
{
	(void)flags;
	list_add_tail(&p->run_node, &rq->fair_queue);
	rq->nr_running++;
}

static void dequeue_task_fair(struct rq *rq, struct task *p, int flags)
{
	(void)flags;
	list_del_init(&p->run_node);	/* no-op for the running task */
	rq->nr_running--;
}

static void yield_task_fair(struct rq *rq)
{
	rq->donor->slice_end_ns = 0;
}

static void wakeup_preempt_fair(struct rq *rq, struct task *p)
{
	(void)rq;
	(void)p;	/* round robin: the woken task waits for its turn */
}

static struct task *pick_next_task_fair(struct rq *rq)
{
	if (list_empty(&rq->fair_queue))
		return NULL;
	return list_first_entry(&rq->fair_queue, struct task, run_node);
}

static void put_prev_task_fair(struct rq *rq, struct task *p)
{
	if (p->on_rq)
		list_add_tail(&p->run_node, &rq->fair_queue);
}

static void set_next_task_fair(struct rq *rq, struct task *p)
{
	list_del_init(&p->run_node);
	p->slice_end_ns = rq->clock_ns + FAIR_SLICE_NS;
}

static void task_tick_fair(struct rq *rq, struct task *p)
{
	if (rq->clock_ns >= p->slice_end_ns && !list_empty(&rq->fair_queue))
		resched_curr(rq);
}

/*
 * Where should @p run?  Its previous CPU if that is idle, otherwise the
 * allowed CPU with the fewest runnable tasks.  Lockless reads of other
 * runqueues: a heuristic, not a promise.  p->pi_lock held.
 */
static int select_task_rq_fair(struct task *p, int prev_cpu)
{
	uint64_t allowed = task_cpus_online(p);
	int best = -1;
	unsigned best_load = ~0U;

	if (!allowed)
		panic("task %s has no online CPU in its affinity %#llx",
		      p->name, (unsigned long long)p->cpus_allowed);
	if ((allowed >> prev_cpu) & 1) {
		struct rq *rq = cpu_rq(prev_cpu);

		if (READ_ONCE(rq->curr) == rq->idle && READ_ONCE(rq->nr_running) == 0)
			return prev_cpu;
	}
	for (int i = 0; i < ncpus; i++) {
		unsigned load;

		if (!((allowed >> i) & 1))
			continue;
		load = READ_ONCE(cpu_rq(i)->nr_running);
		if (load < best_load || (load == best_load && i == prev_cpu)) {
			best = i;
			best_load = load;
		}
	}
	return best;
}

const struct sched_class fair_sched_class = {
	.name = "fair",
	.next = &idle_sched_class,
	.enqueue_task = enqueue_task_fair,
	.dequeue_task = dequeue_task_fair,
	.yield_task = yield_task_fair,
	.wakeup_preempt = wakeup_preempt_fair,
	.pick_next_task = pick_next_task_fair,
	.put_prev_task = put_prev_task_fair,
	.set_next_task = set_next_task_fair,
	.task_tick = task_tick_fair,
	.select_task_rq = select_task_rq_fair,
};
