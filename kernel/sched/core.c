/*
 * core.c - the scheduler mechanism: runqueues, __schedule, wakeups,
 * preemption and the tick.  Policy lives in the class files (fair.c,
 * idle.c; the stop, deadline and RT classes come next).
 *
 * Execution vs scheduling context: rq->curr is the task whose code runs,
 * rq->donor the task whose class and parameters drive decisions.  Until
 * proxy execution lands they are the same task, but every use below
 * already says which one it means: accounting of execution time goes to
 * curr, class decisions (tick, preemption) read donor.
 *
 * Sleeping, as in Linux:
 *
 *   sleeper (cpu0)                      waker (cpu1)
 *   current->state = TASK_SLEEPING
 *   smp_mb()                            cond = true
 *   if (!cond) schedule()               wake_up(sleeper)
 *     lock rq; state != RUNNING           lock pi_lock; state == SLEEPING?
 *     -> dequeue (on_rq = 0)              on_rq? lock rq, recheck: still
 *     switch; on_cpu = 0 (release)          queued -> state = RUNNING, done
 *                                         else wait on_cpu == 0 (acquire),
 *                                           pick cpu, enqueue, RUNNING
 *
 * A wakeup between the state store and schedule() finds the task still
 * queued and just marks it running, so schedule() keeps it: no wakeup is
 * lost.  Preemption (__schedule(true)) never dequeues a sleeping task.
 */
#include "internal.h"
#include "timer.h"
#include "mm.h"
#include "string.h"
#include "printf.h"

struct task *current(void)
{
	unsigned long flags = arch_irq_save();	/* no migration mid-read */
	struct task *t = this_cpu()->rq.curr;

	arch_irq_restore(flags);
	return t;
}

bool sched_class_above(const struct sched_class *a, const struct sched_class *b)
{
	for (const struct sched_class *c = sched_class_highest; c; c = c->next) {
		if (c == b)
			return false;
		if (c == a)
			return true;
	}
	return false;
}

uint64_t task_cpus_online(struct task *p)
{
	uint64_t online = 0;

	for (int i = 0; i < ncpus; i++)
		if (READ_ONCE(cpus[i].online))
			online |= 1ULL << i;
	return p->cpus_allowed & online;
}

struct rq *task_rq_lock(struct task *p)
{
	for (;;) {
		struct rq *rq = cpu_rq(READ_ONCE(p->cpu));

		spin_lock_raw(&rq->lock);
		if (rq == cpu_rq(READ_ONCE(p->cpu)))
			return rq;
		spin_unlock_raw(&rq->lock);
	}
}

void resched_curr(struct rq *rq)
{
	struct cpu *c = rq->cpu;

	if (READ_ONCE(c->need_resched))
		return;
	WRITE_ONCE(c->need_resched, true);
	if (c != this_cpu())
		smp_send(c->id, IPI_RESCHED);
}

static void update_rq_clock(struct rq *rq)
{
	rq->clock_ns = clock_ns();
}

/*
 * The one accounting path for every class: charge the execution time
 * since the last update to rq->curr (the task that ran).  Classes charge
 * scheduling-context time (slices, budgets, virtual time) to rq->donor in
 * their own hooks; with proxy execution those are different tasks.
 */
static void update_curr_common(struct rq *rq)
{
	struct task *curr = rq->curr;
	int64_t delta = (int64_t)(rq->clock_ns - curr->exec_start_ns);

	if (delta <= 0)
		return;
	curr->exec_start_ns = rq->clock_ns;
	curr->sum_exec_ns += delta;
}

static void activate_task(struct rq *rq, struct task *p, int flags)
{
	p->sched_class->enqueue_task(rq, p, flags);
	p->on_rq = 1;
}

static void deactivate_task(struct rq *rq, struct task *p, int flags)
{
	p->on_rq = 0;
	p->sched_class->dequeue_task(rq, p, flags);
}

/* Should @p, just queued on @rq, preempt what rq runs?  rq->lock held. */
static void wakeup_preempt(struct rq *rq, struct task *p)
{
	struct task *donor = rq->donor;

	if (sched_class_above(p->sched_class, donor->sched_class))
		resched_curr(rq);
	else if (p->sched_class == donor->sched_class)
		p->sched_class->wakeup_preempt(rq, p);
}

static struct task *pick_next_task(struct rq *rq, struct task *prev)
{
	prev->sched_class->put_prev_task(rq, prev);
	for (const struct sched_class *c = sched_class_highest; c; c = c->next) {
		struct task *p = c->pick_next_task(rq);

		if (p) {
			c->set_next_task(rq, p);
			return p;
		}
	}
	panic("pick_next_task: no task, not even idle, on cpu%d", rq->cpu->id);
}

void finish_task_switch(void)
{
	struct rq *rq = this_rq();
	struct task *prev = rq->prev;
	/* Decide before on_cpu drops: after that a joiner may free prev. */
	bool reap = prev->state == TASK_DEAD && prev->detached;

	rq->prev = NULL;
	/* prev's registers are saved: from here another CPU may run it. */
	smp_store_release(&prev->on_cpu, 0);
	spin_unlock_raw(&rq->lock);
	if (reap)
		task_free(prev);
}

/*
 * __schedule - pick the next task and switch to it.
 * @preempt: true when called for preemption (interrupt exit,
 * preempt_enable); then a task that set TASK_SLEEPING but has not yet
 * called schedule() stays queued.  Interrupts disabled, preempt count 0.
 */
static void __schedule(bool preempt)
{
	struct cpu *c = this_cpu();
	struct rq *rq = &c->rq;
	struct task *prev = rq->curr, *next;

	spin_lock_raw(&rq->lock);
	update_rq_clock(rq);
	update_curr_common(rq);
	if (!preempt && prev->state != TASK_RUNNING)
		deactivate_task(rq, prev, DEQUEUE_SLEEP);
	next = pick_next_task(rq, prev);
	WRITE_ONCE(c->need_resched, false);
	if (next == prev) {
		spin_unlock_raw(&rq->lock);
		return;
	}
	rq->curr = rq->donor = next;
	next->on_cpu = 1;
	next->exec_start_ns = rq->clock_ns;
	next->nr_switches++;
	rq->nr_switches++;
	rq->prev = prev;
	arch_context_switch(&prev->ctx, &next->ctx);
	/* Back in prev, possibly much later: finish the switch *to* us. */
	finish_task_switch();
}

void schedule(void)
{
	unsigned long flags = arch_irq_save();
	struct cpu *c = this_cpu();

	if (c->preempt_count != 0)
		panic("schedule() while atomic (preempt_count %#x) in task %s",
		      c->preempt_count, c->rq.curr->name);
	__schedule(false);
	arch_irq_restore(flags);
}

void yield(void)
{
	unsigned long flags = arch_irq_save();
	struct rq *rq = this_rq();

	spin_lock_raw(&rq->lock);
	rq->donor->sched_class->yield_task(rq);
	spin_unlock_raw(&rq->lock);
	arch_irq_restore(flags);
	schedule();
}

/* ---- Wakeups ------------------------------------------------------- */

bool wake_up(struct task *p)
{
	unsigned long flags = spin_lock(&p->pi_lock);
	struct rq *rq;
	int cpu;

	smp_mb();	/* pairs with the sleeper's state store + mb */
	if (READ_ONCE(p->state) != TASK_SLEEPING) {
		spin_unlock(&p->pi_lock, flags);
		return false;
	}
	if (READ_ONCE(p->on_rq)) {
		rq = task_rq_lock(p);
		if (p->on_rq) {
			/* Never left its runqueue: just keep it. */
			WRITE_ONCE(p->state, TASK_RUNNING);
			spin_unlock_raw(&rq->lock);
			spin_unlock(&p->pi_lock, flags);
			return true;
		}
		spin_unlock_raw(&rq->lock);
	}
	/* Dequeued; it may still be switching out on its old CPU.  Only
	 * after on_cpu drops are its registers saved and may it move. */
	while (smp_load_acquire(&p->on_cpu))
		arch_cpu_relax();
	cpu = p->sched_class->select_task_rq(p, p->cpu);
	rq = cpu_rq(cpu);
	spin_lock_raw(&rq->lock);
	WRITE_ONCE(p->cpu, cpu);
	update_rq_clock(rq);
	activate_task(rq, p, ENQUEUE_WAKEUP);
	WRITE_ONCE(p->state, TASK_RUNNING);
	wakeup_preempt(rq, p);
	spin_unlock_raw(&rq->lock);
	spin_unlock(&p->pi_lock, flags);
	return true;
}

void wake_up_new_task(struct task *p)
{
	unsigned long flags = spin_lock(&p->pi_lock);
	int cpu = p->sched_class->select_task_rq(p, p->cpu);
	struct rq *rq = cpu_rq(cpu);

	spin_lock_raw(&rq->lock);
	p->cpu = cpu;
	p->state = TASK_RUNNING;
	update_rq_clock(rq);
	activate_task(rq, p, ENQUEUE_NEW);
	wakeup_preempt(rq, p);
	spin_unlock_raw(&rq->lock);
	spin_unlock(&p->pi_lock, flags);
}

/* ---- Sleeping ------------------------------------------------------ */

static void sleep_timer_fn(struct timer *t)
{
	wake_up(t->data);
}

void sleep_ns(uint64_t ns)
{
	struct task *self = current();
	uint64_t deadline = clock_ns() + ns;
	struct timer t;

	timer_init(&t, sleep_timer_fn, self);
	for (;;) {
		WRITE_ONCE(self->state, TASK_SLEEPING);
		smp_mb();
		if (clock_ns() >= deadline)
			break;
		timer_arm(&t, deadline);
		schedule();
	}
	WRITE_ONCE(self->state, TASK_RUNNING);
	timer_cancel(&t);
}

/* ---- Preemption and interrupts -------------------------------------- */

static void preempt_schedule_irq(void)
{
	do {
		__schedule(true);
	} while (READ_ONCE(this_cpu()->need_resched));
}

void preempt_disable(void)
{
	unsigned long flags = arch_irq_save();

	this_cpu()->preempt_count++;
	arch_irq_restore(flags);
}

void preempt_enable(void)
{
	bool irqs_on = arch_irqs_enabled();
	unsigned long flags = arch_irq_save();
	struct cpu *c = this_cpu();

	BUG_ON((c->preempt_count & PREEMPT_MASK) == 0);
	c->preempt_count--;
	if (c->preempt_count == 0 && c->need_resched && irqs_on)
		preempt_schedule_irq();
	arch_irq_restore(flags);
}

bool in_interrupt(void)
{
	unsigned long flags = arch_irq_save();
	bool in = this_cpu()->preempt_count >= HARDIRQ_OFFSET;

	arch_irq_restore(flags);
	return in;
}

void irq_enter(void)
{
	this_cpu()->preempt_count += HARDIRQ_OFFSET;
}

/* Interrupt exit: the preemption point for everything that runs. */
void irq_exit(void)
{
	struct cpu *c = this_cpu();

	c->preempt_count -= HARDIRQ_OFFSET;
	if (c->preempt_count == 0 && READ_ONCE(c->need_resched))
		preempt_schedule_irq();
}

void scheduler_tick(void)
{
	struct rq *rq = this_rq();

	spin_lock_raw(&rq->lock);
	update_rq_clock(rq);
	update_curr_common(rq);
	rq->donor->sched_class->task_tick(rq, rq->donor);
	spin_unlock_raw(&rq->lock);
}

/* ---- Setup ----------------------------------------------------------- */

void sched_init_cpu(struct cpu *c)
{
	struct rq *rq = &c->rq;
	char name[TASK_NAME_LEN];
	struct task *idle;

	spin_init(&rq->lock, "rq");
	rq->cpu = c;
	list_init(&rq->fair_queue);
	if (c->id == 0 && rq->curr) {
		idle = rq->curr;		/* the boot context, see sched_init */
	} else {
		snprintf(name, sizeof(name), "idle/%d", c->id);
		idle = task_alloc(name, NULL, NULL);
		if (!idle)
			panic("sched: no memory for the idle task of cpu%d", c->id);
	}
	idle->sched_class = &idle_sched_class;
	idle->cpu = c->id;
	idle->cpus_allowed = 1ULL << c->id;
	idle->on_cpu = 1;
	idle->state = TASK_RUNNING;
	c->idle = rq->idle = rq->curr = rq->donor = idle;
}

void sched_init(void)
{
	static struct task boot_task;	/* becomes cpu0's idle task */
	struct cpu *c = this_cpu();

	task_init_common(&boot_task, "idle/0");
	boot_task.stack_slot = -1;		/* the arch's boot stack */
	c->rq.curr = &boot_task;
	sched_init_cpu(c);
}
