/*
 * timer.c - per-CPU one-shot timers and the scheduler tick.
 *
 * Each CPU has a queue of armed timers sorted by deadline, under its own
 * lock, and keeps the arch one-shot timer programmed for the head.  A
 * callback runs in interrupt context with the queue unlocked (it may arm
 * timers, wake tasks); queue->running names it meanwhile so that
 * timer_cancel() on another CPU can wait for it to finish.  The tick is an
 * ordinary timer that re-arms itself every TICK_NS.
 */
#include "kernel.h"
#include "timer.h"
#include "cpu.h"
#include "sched.h"

struct timer_queue {
	spinlock_t lock;
	struct list_head timers;	/* sorted by deadline, then arming order */
	struct timer *running;		/* callback in progress, or NULL */
	struct timer tick;
};

static struct timer_queue queues[NR_CPUS];

void timer_init(struct timer *t, void (*fn)(struct timer *t), void *data)
{
	t->deadline_ns = 0;
	t->fn = fn;
	t->data = data;
	t->cpu = -1;
	list_init(&t->node);
}

/* Program the hardware for the earliest timer.  q->lock held. */
static void reprogram(struct timer_queue *q)
{
	if (!list_empty(&q->timers))
		arch_timer_arm(list_first_entry(&q->timers, struct timer, node)->deadline_ns);
}

/* Take @t off whatever queue it is on.  Returns true if it was queued. */
static bool dequeue(struct timer *t)
{
	for (;;) {
		int cpu = smp_load_acquire(&t->cpu);
		struct timer_queue *q;
		unsigned long flags;

		if (cpu < 0)
			return false;
		q = &queues[cpu];
		flags = spin_lock(&q->lock);
		if (t->cpu == cpu) {
			list_del_init(&t->node);
			t->cpu = -1;
			spin_unlock(&q->lock, flags);
			return true;
		}
		spin_unlock(&q->lock, flags);
	}
}

void timer_arm(struct timer *t, uint64_t deadline_ns)
{
	unsigned long flags;
	struct timer_queue *q;
	struct list_head *pos;

	dequeue(t);
	flags = arch_irq_save();
	q = &queues[this_cpu()->id];
	spin_lock_raw(&q->lock);
	t->deadline_ns = deadline_ns;
	list_for_each(pos, &q->timers)
		if (list_entry(pos, struct timer, node)->deadline_ns > deadline_ns)
			break;
	list_add_tail(&t->node, pos);	/* before the first later one */
	t->cpu = this_cpu()->id;
	if (q->timers.next == &t->node)
		reprogram(q);
	spin_unlock_raw(&q->lock);
	arch_irq_restore(flags);
}

bool timer_cancel(struct timer *t)
{
	bool was = dequeue(t);

	/* Wait out a callback running on any CPU. */
	for (int i = 0; i < ncpus; i++)
		while (READ_ONCE(queues[i].running) == t)
			arch_cpu_relax();
	return was;
}

/* The arch calls this from the timer interrupt, irqs off. */
void timer_interrupt(void)
{
	struct cpu *c = this_cpu();
	struct timer_queue *q = &queues[c->id];

	/* Only what was due when the interrupt came: a callback that takes
	 * long (a lock whose holder's vCPU the host preempted) must not let
	 * the tick, due again meanwhile, run twice in one interrupt and
	 * keep the CPU from ever reaching irq_exit's preemption point. */
	uint64_t now = arch_clock_ns();

	c->nr_timer_irqs++;
	spin_lock_raw(&q->lock);
	while (!list_empty(&q->timers)) {
		struct timer *t = list_first_entry(&q->timers, struct timer, node);

		if (t->deadline_ns > now)
			break;
		list_del_init(&t->node);
		WRITE_ONCE(q->running, t);
		/* Whoever sees cpu == -1 (acquire) also sees running == t,
		 * so timer_cancel() cannot miss a callback about to run. */
		smp_store_release(&t->cpu, -1);
		spin_unlock_raw(&q->lock);
		t->fn(t);
		spin_lock_raw(&q->lock);
		WRITE_ONCE(q->running, NULL);
	}
	reprogram(q);
	spin_unlock_raw(&q->lock);
}

static void tick_fn(struct timer *t)
{
	uint64_t now = arch_clock_ns();
	uint64_t next = t->deadline_ns + TICK_NS;

	if (next <= now)			/* missed ticks: don't replay them */
		next = now + TICK_NS;
	scheduler_tick();
	timer_arm(t, next);
}

void timer_init_cpu(void)
{
	struct cpu *c = this_cpu();
	struct timer_queue *q = &queues[c->id];

	spin_init(&q->lock, "timers");
	list_init(&q->timers);
	c->timers = q;
	timer_init(&q->tick, tick_fn, NULL);
	timer_arm(&q->tick, arch_clock_ns() + TICK_NS);
}
