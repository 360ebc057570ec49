/*
 * fair.c - TEMPORARY round robin adapted to the issue-3 ops; EEVDF next.
 */
#include "internal.h"

#define FAIR_SLICE_NS (3 * NSEC_PER_MSEC)

static void init_rq_fair(struct rq *rq)
{
	list_init(&rq->cfs.queue);
	rq->cfs.nr_running = 0;
}

static void enqueue_task_fair(struct rq *rq, struct task *p, int flags)
{
	(void)flags;
	if (rq->curr != p)
		list_add_tail(&p->se.rr_node, &rq->cfs.queue);
	rq->cfs.nr_running++;
	add_nr_running(rq, 1);
}

static void dequeue_task_fair(struct rq *rq, struct task *p, int flags)
{
	(void)flags;
	list_del_init(&p->se.rr_node);
	rq->cfs.nr_running--;
	sub_nr_running(rq, 1);
}

static void yield_task_fair(struct rq *rq)
{
	rq->donor->se.slice_end_ns = 0;
}

static void wakeup_preempt_fair(struct rq *rq, struct task *p)
{
	(void)rq;
	(void)p;
}

static struct task *pick_next_task_fair(struct rq *rq)
{
	if (list_empty(&rq->cfs.queue))
		return NULL;
	return list_first_entry(&rq->cfs.queue, struct task, se.rr_node);
}

static void put_prev_task_fair(struct rq *rq, struct task *p)
{
	if (p->on_rq)
		list_add_tail(&p->se.rr_node, &rq->cfs.queue);
}

static void set_next_task_fair(struct rq *rq, struct task *p)
{
	list_del_init(&p->se.rr_node);
	p->se.slice_end_ns = rq->clock_ns + FAIR_SLICE_NS;
}

static void task_tick_fair(struct rq *rq, struct task *p)
{
	if (rq->clock_ns >= p->se.slice_end_ns && !list_empty(&rq->cfs.queue))
		resched_curr(rq);
}

static void update_curr_fair(struct rq *rq, struct task *donor, uint64_t delta)
{
	(void)rq;
	(void)donor;
	(void)delta;
}

static int select_task_rq_fair(struct task *p, int prev_cpu, int flags)
{
	uint64_t allowed = task_cpus_online(p);
	int best = -1;
	unsigned best_load = ~0U;

	(void)flags;
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

void fair_set_params(struct task *p, const struct sched_attr *attr)
{
	p->se.slice = attr->slice_ns;
}

void fair_trigger_load_balance(struct rq *rq)
{
	(void)rq;
}

const struct sched_class fair_sched_class = {
	.name = "fair",
	.init_rq = init_rq_fair,
	.enqueue_task = enqueue_task_fair,
	.dequeue_task = dequeue_task_fair,
	.yield_task = yield_task_fair,
	.wakeup_preempt = wakeup_preempt_fair,
	.pick_next_task = pick_next_task_fair,
	.put_prev_task = put_prev_task_fair,
	.set_next_task = set_next_task_fair,
	.task_tick = task_tick_fair,
	.update_curr = update_curr_fair,
	.select_task_rq = select_task_rq_fair,
};
