/*
 * stop_task.c - the stop class and its per-CPU stopper threads.
 *
 * Each CPU has one stopper task, "stop/N", in a class above every other:
 * when it has work it runs at once and nothing preempts it.  That makes it
 * the tool for "nothing else may run on that CPU for a moment":
 *
 *   stop_one_cpu()  run a function on a CPU with its current task pushed
 *                   off the CPU (used to migrate a running task whose
 *                   affinity no longer allows its CPU);
 *   stop_machine()  run a function while every other CPU sits in its
 *                   stopper with interrupts off (a consistent snapshot,
 *                   e.g. for the shell's `ps`).
 *
 * panic() does not use it: a panic may come from interrupt context or
 * with locks held, so it stops the other CPUs with IPI_STOP instead.
 */
#include "internal.h"
#include "string.h"
#include "printf.h"

struct stop_work {
	struct list_head node;
	int (*fn)(void *);
	void *arg;
	int ret;
	int done;			/* release-stored: WORK_* below */
	struct task *waiter;
};

struct stopper {
	spinlock_t lock;
	struct list_head works;		/* FIFO of struct stop_work */
	struct task *thread;
};

static struct stopper stoppers[NR_CPUS];

/*
 * stop_work.done.  The stopper sets WORK_RAN (ret is valid) before it
 * wakes the waiter, so that a waiter looking just then does not sleep
 * for good; then WORK_DONE once the wakeup is over.  The waiter returns
 * only on WORK_DONE: seeing WORK_RAN while it was still running, it
 * could otherwise return, exit and be freed before the stopper's
 * wake_up() took its pi_lock (a write after free, seen by
 * proxy_chains.owner_leaves_while_chain_moves, whose owner moves itself
 * and exits).
 */
#define WORK_RAN	1
#define WORK_DONE	2

/* ---- The class: one task per CPU, rq->stop, queued or not ---------- */

/* rq->lock held for every op below. */

static void enqueue_task_stop(struct rq *rq, struct task *p, int flags)
{
	(void)flags;
	BUG_ON(p != rq->stop);
	add_nr_running(rq, 1);
}

static void dequeue_task_stop(struct rq *rq, struct task *p, int flags)
{
	(void)flags;
	BUG_ON(p != rq->stop);
	sub_nr_running(rq, 1);
}

static struct task *pick_next_task_stop(struct rq *rq)
{
	struct task *stop = rq->stop;

	return stop && stop->on_rq ? stop : NULL;
}

static int select_task_rq_stop(struct task *p, int prev_cpu, int flags)
{
	(void)flags;
	(void)prev_cpu;
	return p->cpu;		/* pinned: a stopper never moves */
}

const struct sched_class stop_sched_class = {
	.name = "stop",
	.rank = 4,
	.enqueue_task = enqueue_task_stop,
	.dequeue_task = dequeue_task_stop,
	.yield_task = sched_nop_rq,
	.wakeup_preempt = sched_nop_rq_task,
	.pick_next_task = pick_next_task_stop,
	.put_prev_task = sched_nop_rq_task,
	.set_next_task = sched_nop_rq_task,
	.task_tick = sched_nop_rq_task,
	.select_task_rq = select_task_rq_stop,
};

/* ---- Stopper threads --------------------------------------------- */

static void stopper_thread(void *arg)
{
	struct stopper *s = arg;

	for (;;) {
		struct stop_work *w = NULL;
		unsigned long flags;

		WRITE_ONCE(current()->state, TASK_SLEEPING);
		smp_mb();
		flags = spin_lock(&s->lock);
		if (!list_empty(&s->works)) {
			w = list_first_entry(&s->works, struct stop_work, node);
			list_del_init(&w->node);
		}
		spin_unlock(&s->lock, flags);
		if (!w) {
			schedule();
			continue;
		}
		WRITE_ONCE(current()->state, TASK_RUNNING);
		w->ret = w->fn(w->arg);
		smp_store_release(&w->done, WORK_RAN);
		wake_up(w->waiter);
		/* From here w (on the waiter's stack) and the waiter may go. */
		smp_store_release(&w->done, WORK_DONE);
	}
}

static void queue_work(int cpu, struct stop_work *w)
{
	struct stopper *s = &stoppers[cpu];
	unsigned long flags = spin_lock(&s->lock);

	list_add_tail(&w->node, &s->works);
	spin_unlock(&s->lock, flags);
	wake_up(s->thread);
}

static void wait_work(struct stop_work *w)
{
	struct task *self = current();

	for (;;) {
		WRITE_ONCE(self->state, TASK_SLEEPING);
		smp_mb();
		if (smp_load_acquire(&w->done))
			break;
		schedule();
	}
	WRITE_ONCE(self->state, TASK_RUNNING);
	/* The stopper is in our wakeup, or just past it: a few steps. */
	while (smp_load_acquire(&w->done) != WORK_DONE)
		arch_cpu_relax();
}

int stop_one_cpu(int cpu, int (*fn)(void *), void *arg)
{
	struct stop_work w = { .fn = fn, .arg = arg, .waiter = current() };

	if (cpu < 0 || cpu >= ncpus || !READ_ONCE(cpus[cpu].online) ||
	    !stoppers[cpu].thread)
		return -EINVAL;
	list_init(&w.node);
	queue_work(cpu, &w);
	wait_work(&w);
	return w.ret;
}

/* ---- stop_machine ------------------------------------------------ */

struct machine_stop {
	int (*fn)(void *);
	void *arg;
	int arrived;		/* atomic: stoppers spinning with irqs off */
	int released;		/* set when fn has run */
};

static int busy;		/* one stop_machine at a time */

static int machine_stop_spin(void *arg)
{
	struct machine_stop *ms = arg;
	unsigned long flags = arch_irq_save();

	__atomic_fetch_add(&ms->arrived, 1, __ATOMIC_ACQ_REL);
	while (!smp_load_acquire(&ms->released))
		arch_cpu_relax();
	arch_irq_restore(flags);
	return 0;
}

int stop_machine(int (*fn)(void *), void *arg)
{
	struct machine_stop ms = { .fn = fn, .arg = arg };
	struct stop_work works[NR_CPUS];
	int self, others = 0, ret;
	unsigned long flags;

	while (__atomic_exchange_n(&busy, 1, __ATOMIC_ACQUIRE))
		yield();
	preempt_disable();		/* stay on this CPU until the end */
	self = smp_processor_id();
	for (int i = 0; i < ncpus; i++) {
		if (i == self || !READ_ONCE(cpus[i].online) || !stoppers[i].thread)
			continue;
		works[i] = (struct stop_work){ .fn = machine_stop_spin, .arg = &ms,
					       .waiter = current() };
		list_init(&works[i].node);
		queue_work(i, &works[i]);
		others++;
	}
	while (smp_load_acquire(&ms.arrived) < others)
		arch_cpu_relax();
	flags = arch_irq_save();
	ret = fn(arg);
	arch_irq_restore(flags);
	smp_store_release(&ms.released, 1);
	preempt_enable();
	for (int i = 0; i < ncpus; i++)
		if (i != self && READ_ONCE(cpus[i].online) && stoppers[i].thread)
			wait_work(&works[i]);
	__atomic_store_n(&busy, 0, __ATOMIC_RELEASE);
	return ret;
}

/* Create @c's stopper.  Boot CPU, task context, after @c is online. */
void stop_init_cpu(struct cpu *c)
{
	struct stopper *s = &stoppers[c->id];
	char name[TASK_NAME_LEN];
	struct task *t;

	spin_init(&s->lock, "stopper");
	list_init(&s->works);
	snprintf(name, sizeof(name), "stop/%d", c->id);
	t = task_alloc(name, stopper_thread, s);
	if (!t)
		panic("sched: no memory for the stopper of cpu%d", c->id);
	t->sched_class = &stop_sched_class;
	t->cpus_allowed = 1ULL << c->id;
	t->cpu = c->id;
	t->prio = -2;			/* above deadline, for `ps` */
	c->rq->stop = t;
	s->thread = t;
	wake_up_new_task(t);
}
