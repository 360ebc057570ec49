/*
 * idle.c - the idle class: a sentinel that always has a task, so the
 * pick loop in core.c needs no special case; and the idle loop itself.
 */
#include "internal.h"

/* rq->lock held for every op below. */

static void enqueue_task_idle(struct rq *rq, struct task *p, int flags)
{
	(void)rq;
	(void)flags;
	panic("idle task %s enqueued", p->name);
}

static void dequeue_task_idle(struct rq *rq, struct task *p, int flags)
{
	(void)rq;
	(void)flags;
	panic("idle task %s dequeued", p->name);
}

static struct task *pick_next_task_idle(struct rq *rq)
{
	return rq->idle;
}

static int select_task_rq_idle(struct task *p, int prev_cpu, int flags)
{
	(void)p;
	(void)flags;
	return prev_cpu;
}

const struct sched_class idle_sched_class = {
	.name = "idle",
	.rank = 0,
	.enqueue_task = enqueue_task_idle,
	.dequeue_task = dequeue_task_idle,
	.yield_task = sched_nop_rq,
	.wakeup_preempt = sched_nop_rq_task,
	.pick_next_task = pick_next_task_idle,
	.put_prev_task = sched_nop_rq_task,
	.set_next_task = sched_nop_rq_task,
	.task_tick = sched_nop_rq_task,
	.select_task_rq = select_task_rq_idle,
};

/*
 * The idle loop.  need_resched is checked with interrupts off and
 * arch_idle() enables them atomically with the halt, so a wakeup IPI
 * that arrives after the check still ends the halt.  The interrupt's
 * exit usually switches away already; schedule() covers the rest.
 */
void cpu_idle_loop(void)
{
	for (;;) {
		arch_irq_disable();
		if (!READ_ONCE(this_cpu()->need_resched))
			arch_idle();
		arch_irq_enable();
		if (READ_ONCE(this_cpu()->need_resched))
			schedule();
	}
}
