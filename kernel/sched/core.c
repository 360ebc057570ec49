/*
 * core.c - the scheduler mechanism: runqueues, __schedule, migration,
 * preemption and the tick.  Wakeups and sleeping are in wakeup.c.
 * Policy lives in the class files: stop_task.c, deadline.c, rt.c,
 * fair.c, idle.c; setting a task's policy and affinity is in setattr.c.
 *
 * Execution vs scheduling context: rq->curr is the task whose code runs,
 * rq->donor the task whose class and parameters drive decisions.  They
 * differ when proxy execution (proxy.c, docs/proxy.md) runs a mutex owner
 * on behalf of a blocked task; every use below says which one it means:
 * execution time goes to curr, class decisions (tick, preemption,
 * scheduling-context time) read donor.
 */
#include "internal.h"
#include "trace_record.h"
#include "bitops.h"
#include "timer.h"
#include "mm.h"
#include "string.h"
#include "printf.h"

/* The classes, highest first: the one place their order is written. */
struct rq runqueues[NR_CPUS] __aligned(64);

const struct sched_class *const sched_classes[] = {
	&stop_sched_class,
	&dl_sched_class,
	&rt_sched_class,
	&fair_sched_class,
	&idle_sched_class,
	NULL
};

/* Empty class ops (internal.h). */
void sched_nop_rq(struct rq *rq)
{
	(void)rq;
}

void sched_nop_rq_task(struct rq *rq, struct task *p)
{
	(void)rq;
	(void)p;
}

const char *task_class_name(const struct task *p)
{
	return READ_ONCE(p->sched_class)->name;
}

const char *sched_policy_class_name(int policy)
{
	const struct sched_class *c = policy_class(policy);

	return c ? c->name : NULL;
}

void sched_cpu_view(int cpu, struct sched_cpu_view *v)
{
	struct rq *rq = cpu_rq(cpu);

	v->curr = READ_ONCE(rq->curr);
	v->donor = READ_ONCE(rq->donor);
	v->nr_running = READ_ONCE(rq->nr_running);
}

void sched_current_context(struct sched_context *ctx)
{
	struct task *self = current();
	unsigned long flags;
	struct rq *rq;

	preempt_disable();		/* stay on this CPU */
	rq = this_rq();
	flags = spin_lock(&rq->lock);
	ctx->donor = rq->curr == self ? rq->donor : self;
	ctx->class_name = ctx->donor->sched_class->name;
	ctx->prio = ctx->donor->prio;
	spin_unlock(&rq->lock, flags);
	preempt_enable();
}

/* The same for any task @p, under @p's runqueue lock: the donor of its
 * CPU if @p runs there now, else @p itself (a task that is not running
 * has only its own context, boosted or not). */
void sched_task_context(struct task *p, struct sched_context *ctx)
{
	unsigned long flags = arch_irq_save();
	struct rq *rq = task_rq_lock(p);

	ctx->donor = rq->curr == p ? rq->donor : p;
	ctx->class_name = ctx->donor->sched_class->name;
	ctx->prio = ctx->donor->prio;
	spin_unlock_raw(&rq->lock);
	arch_irq_restore(flags);
}

/* ---- The order of scheduling contexts ---------------------------------- */

static bool rt_policy(int policy)
{
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

bool sched_own_before(const struct task *a, const struct task *b)
{
	if (a->policy == SCHED_DEADLINE)
		return b->policy != SCHED_DEADLINE ||
		       (int64_t)(a->dl.deadline - b->dl.deadline) < 0;
	if (b->policy == SCHED_DEADLINE)
		return false;
	if (rt_policy(a->policy))
		return !rt_policy(b->policy) || a->rt_priority > b->rt_priority;
	return false;
}

/* Proxy's and inherit's order of contexts (sched.h): the parameters a
 * task runs with, its own or, in inherit mode, a lender's. */
bool sched_prio_before(struct task *a, struct task *b)
{
	return sched_own_before(pi_context(a), pi_context(b));
}


/* task_rq_lock() when @p moved from @rq before its lock was ours. */
static __attribute__((noinline)) struct rq *task_rq_lock_again(struct task *p,
							    struct rq *rq)
{
	for (;;) {
		spin_unlock_raw(&rq->lock);
		rq = cpu_rq(READ_ONCE(p->cpu));
		spin_lock_raw(&rq->lock);
		if (rq == cpu_rq(READ_ONCE(p->cpu)))
			return rq;
	}
}

struct rq *task_rq_lock(struct task *p)
{
	struct rq *rq = cpu_rq(READ_ONCE(p->cpu));

	spin_lock_raw(&rq->lock);
	if (__builtin_expect(rq == cpu_rq(READ_ONCE(p->cpu)), 1))
		return rq;
	return task_rq_lock_again(p, rq);
}

void double_rq_lock(struct rq *a, struct rq *b)
{
	if (a == b) {
		spin_lock_raw(&a->lock);
	} else if (cpu_of(a) < cpu_of(b)) {
		spin_lock_raw(&a->lock);
		spin_lock_raw(&b->lock);
	} else {
		spin_lock_raw(&b->lock);
		spin_lock_raw(&a->lock);
	}
}

bool double_lock_balance(struct rq *this_rq, struct rq *busiest)
{
	unsigned long flags;

	BUG_ON(this_rq == busiest);
	this_rq->clock_stale = true;	/* see __schedule */
	if (spin_trylock(&busiest->lock, &flags)) {
		/* Irqs are already off: the saved state says so too. */
		return false;
	}
	if (cpu_of(busiest) > cpu_of(this_rq)) {
		spin_lock_raw(&busiest->lock);
		return false;
	}
	this_rq->lock_dropped = true;
	spin_unlock_raw(&this_rq->lock);
	double_rq_lock(this_rq, busiest);
	this_rq->lock_dropped = false;
	return true;
}

void double_unlock_balance(struct rq *this_rq, struct rq *busiest)
{
	(void)this_rq;
	spin_unlock_raw(&busiest->lock);
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

/* __schedule()'s second, rare, clock update: out of line, so that the
 * common one does not keep the clock's addresses in registers for it. */
static __attribute__((noinline, cold)) void update_rq_clock_again(struct rq *rq)
{
	update_rq_clock(rq);
}

/*
 * The one accounting path for every class.  Execution time since the
 * last update goes to rq->curr, the task that ran; the same delta of
 * scheduling-context time (virtual runtime, deadline budget, RR slice)
 * goes to rq->donor through its class.  With proxy execution those are
 * different tasks, which is why the two charges are separate by name.
 */
static uint64_t update_curr_common(struct rq *rq)
{
	struct task *curr = rq->curr;
	int64_t delta = (int64_t)(rq->clock_ns - curr->exec_start_ns);

	if (delta <= 0)
		return 0;
	curr->exec_start_ns = rq->clock_ns;
	curr->sum_exec_ns += delta;
	return delta;
}

/*
 * Under p's rq->lock: another CPU may charge p (update_curr on p's rq:
 * a priority change, a deadline budget timer armed there), and a read of
 * sum_exec_ns and exec_start_ns torn by that could count a stretch twice,
 * or see exec_start after the clock (an enormous unsigned difference: a
 * px_spin_exec() loop once ended 150 ms early).
 */
uint64_t task_exec_ns(struct task *p)
{
	unsigned long flags = arch_irq_save();
	struct rq *rq = task_rq_lock(p);
	uint64_t ns = p->sum_exec_ns, now = clock_ns();

	if (task_on_cpu(rq, p) && now > p->exec_start_ns)
		ns += now - p->exec_start_ns;
	spin_unlock_raw(&rq->lock);
	arch_irq_restore(flags);
	return ns;
}

/* Inlined into __schedule(); the classes call update_curr(). */
static inline __attribute__((always_inline)) void __update_curr(struct rq *rq)
{
	uint64_t delta = update_curr_common(rq);
	struct task *donor = rq->donor;

	if (delta && donor->sched_class->update_curr)
		donor->sched_class->update_curr(rq, donor, delta);
}

void update_curr(struct rq *rq)
{
	__update_curr(rq);
}

void deactivate_task(struct rq *rq, struct task *p, int flags)
{
	p->sched_class->dequeue_task(rq, p, flags);
	list_del_init(&p->rq_node);
	/* Last, with release: a wake_up() that reads on_rq == 0 without
	 * rq->lock (try_to_wake_up) goes on to queue p elsewhere at once,
	 * so the class must be done with p by then. */
	smp_store_release(&p->on_rq, 0);
}

/*
 * The class moves p between the two runqueues; p->on_rq stays set all
 * along (Linux marks it TASK_ON_RQ_MIGRATING): a wake_up() that reads it
 * locklessly must never take a queued task for a dequeued one and queue
 * it a second time.  task_rq_lock() follows p->cpu, which changes under
 * both locks, so a waker finds p on one runqueue or the other.
 */
static void move_task(struct rq *src, struct rq *dst, struct task *p)
{
	p->sched_class->dequeue_task(src, p, DEQUEUE_MIGRATE);
	list_del_init(&p->rq_node);
	WRITE_ONCE(p->cpu, cpu_of(dst));
	p->nr_migrations++;
	p->sched_class->enqueue_task(dst, p, ENQUEUE_MIGRATED);
	list_add_tail(&p->rq_node, &dst->tasks);
}

void move_queued_task(struct rq *src, struct rq *dst, struct task *p)
{
	BUG_ON(!p->on_rq || task_on_cpu(src, p) || src->donor == p);
	if (!((p->cpus_allowed >> cpu_of(dst)) & 1))
		panic("move_queued_task: %s may not run on cpu%d (affinity %#llx)",
		      p->name, cpu_of(dst), (unsigned long long)p->cpus_allowed);
	move_task(src, dst, p);
}

void move_blocked_task(struct rq *src, struct rq *dst, struct task *p,
		       bool lend)
{
	BUG_ON(!p->on_rq || p->on_cpu || task_on_cpu(src, p) || src->donor == p ||
	       p->cpu != cpu_of(src));
	if (p->wake_cpu < 0 && (lend || !((p->cpus_allowed >> cpu_of(dst)) & 1)))
		p->wake_cpu = cpu_of(src);
	move_task(src, dst, p);
}

/*
 * Pick what runs next.  First every class with a ->balance op may pull
 * work from other CPUs (which can drop rq->lock, so it happens before
 * prev is put back): each decides whether this CPU is lowering its
 * priority below work waiting elsewhere (RT and deadline pull, fair's
 * newly idle balance).  Every class, not only those at or above prev's:
 * a CPU whose deadline task blocks lowers its priority for RT too.  None
 * while a stopper is queued here: it runs first.
 *
 * Fast path (Linux's): prev is fair and every queued task is fair, so
 * the stop, deadline and RT picks would find nothing and fair's balance
 * would not pull (rq is not idle).  Their balance ops pull only for a
 * CPU that lowers its class; a fair task still running does not, unless
 * it was just moved into the fair class, which fair_pick_next() reports.
 * Work waiting elsewhere for a CPU that runs fair is the business of the
 * CPU it waits on (its push, at wakeup, after a switch, at each tick).
 *
 * RT fast path: an RT task is queued here, no stop or deadline task is,
 * and no deadline pull is due; prev is an RT task that stays queued (the
 * CPU does not lower its priority: no RT pull) or no other CPU is RT
 * overloaded (an RT pull would find nothing).  A lone CPU pulls from
 * nowhere (internal.h, sched_smp).  Then every balance op
 * would do nothing (fair's only when nothing is queued) and the higher
 * classes' picks would find nothing, so prev is put and the RT class
 * picks at once (rt_pick_next(): the same pick and set_next), unless
 * it steps aside (throttled).  A timer
 * interrupt that wakes an RT task over a fair one takes it.
 */
static inline __attribute__((always_inline)) struct task *pick_next_task(struct rq *rq, struct task *prev)
{
	const struct sched_class *c;

	if (prev->sched_class == &fair_sched_class && rq->cfs.nr_running &&
	    rq->nr_running == rq->cfs.nr_running) {
		struct task *p = fair_pick_next(rq, prev);

		if (p)
			return p;
	}
	if (rq->rt.rt_nr_running && rq_only_rt_fair(rq) &&
	    (!sched_smp || (!dl_pull_due(rq) &&
			    ((prev->sched_class == &rt_sched_class && prev->on_rq) ||
			     !rt_pull_due(rq))))) {
		if (!rt_stepping_aside(rq)) {
			/* put_prev_task_rt() does nothing */
			if (prev->sched_class != &rt_sched_class)
				prev->sched_class->put_prev_task(rq, prev);
			return rt_pick_next(rq);
		}
	}
	/* A stopper queued here runs first: nothing this CPU pulls could
	 * run before it, and a pull may wait for another runqueue's lock
	 * (a sched_verify report on a starved 8-vCPU host showed
	 * stop_machine()'s stopper waiting while its CPU's pick sat in a
	 * deadline pull with its lock dropped).  The pick after it
	 * balances, as Linux's balance loop stops at the first class with
	 * something runnable. */
	if (!(rq->stop && rq->stop->on_rq))
		for_each_class(c)
			if (c->balance)
				c->balance(rq, prev);
	/* A balance op may have dropped rq->lock, and a wakeup meanwhile
	 * may have given the donor's context to idle (return migration of
	 * a lent donor, try_to_wake_up): put back what is the donor now. */
	prev = rq->donor;
	prev->sched_class->put_prev_task(rq, prev);
	for_each_class(c) {
		struct task *p = c->pick_next_task(rq);

		if (p) {
			c->set_next_task(rq, p);
			return p;
		}
	}
	panic("pick_next_task: no task, not even idle, on cpu%d", cpu_of(rq));
}

/* ---- Deferred pushes (Linux's balance callbacks) --------------------- */

static unsigned class_bit(const struct sched_class *c)
{
	unsigned i = 0;

	while (sched_classes[i] != c)
		i++;
	return 1u << i;
}

void rq_queue_push(struct rq *rq, const struct sched_class *c)
{
	unsigned bit = class_bit(c);

	if ((rq->push_pending & bit) || !sched_smp)	/* lone CPU: nowhere */
		return;
	rq->push_pending |= bit;
	/* Another CPU's rq: its __schedule runs the push.  (No CPU's tick
	 * may wait for it: each CPU's own tick asks again, queue_push.) */
	if (rq != this_rq())
		resched_curr(rq);
}

/*
 * Run the pushes rq_queue_push() asked for on this CPU's @rq.  Each may
 * drop rq->lock; a push asked for meanwhile runs in the same loop.
 * rq->lock held, prev switched out (its on_cpu is 0: it may move).
 */
static void run_pending_pushes(struct rq *rq)
{
	while (rq->push_pending) {
		unsigned i = ctz64(rq->push_pending);

		rq->push_pending &= ~(1u << i);
		sched_classes[i]->push_tasks(rq);
	}
}

/* __finish_task_switch() for a @prev that exited. */
static __attribute__((noinline)) void finish_dead_task(struct rq *rq,
						       struct task *prev)
{
	/* Decide before on_cpu drops: after that a joiner may free prev. */
	bool reap = prev->detached;

	smp_store_release(&prev->on_cpu, 0);
	if (rq->push_pending)
		run_pending_pushes(rq);
	spin_unlock_raw(&rq->lock);
	if (reap)
		task_free(prev);
}

/* Inlined into __schedule(); a new thread's first run calls it through
 * finish_task_switch(). */
static inline __attribute__((always_inline)) void __finish_task_switch(void)
{
	struct rq *rq = this_rq();
	struct task *prev = rq->prev;

	rq->prev = NULL;
	if (__builtin_expect(prev->state == TASK_DEAD, 0)) {
		finish_dead_task(rq, prev);
		return;
	}
	/* prev's registers are saved: from here another CPU may run it. */
	smp_store_release(&prev->on_cpu, 0);
	if (__builtin_expect(rq->push_pending != 0, 0))
		run_pending_pushes(rq);
	spin_unlock_raw(&rq->lock);
}

void finish_task_switch(void)
{
	__finish_task_switch();
}

/*
 * __schedule's pick chose a blocked @donor: the task that runs for it
 * (find_proxy_task), picking again while the walk says to (the donor
 * left the runqueue, moved, or its chain changed).  Out of line: the
 * loop would otherwise keep registers busy on every switch.  rq->lock
 * held, may be dropped.
 */
static __attribute__((noinline)) struct task *pick_proxy(struct rq *rq,
							  struct task *donor)
{
	for (;;) {
		struct task *next = find_proxy_task(rq, donor);

		if (next)
			return next;
		donor = pick_next_task(rq, rq->donor);
		rq->donor = donor;
		if (!proxy_blocked(donor))
			return donor;
	}
}

/* How __schedule was entered. */
#define SM_NONE 0		/* schedule(): prev may be going to sleep */
#define SM_PREEMPT 1		/* preemption: prev stays queued */
#define SM_YIELD 2		/* yield(): prev gives up the CPU first */

/*
 * __schedule_mode - pick the next task and switch to it (__schedule(),
 * yield()).
 * @mode: SM_PREEMPT when called for preemption (interrupt exit,
 * preempt_enable); then a task that set TASK_SLEEPING but has not yet
 * called schedule() stays queued.  SM_YIELD: the donor's class gives up
 * its turn (->yield_task) under the same lock and clock update as the
 * pick.  Interrupts disabled, preempt count 0.
 *
 * Proxy execution: a task blocked on a mutex stays queued.  The pick
 * chooses a scheduling context (rq->donor); if that task is blocked,
 * find_proxy_task() (proxy.c) says which task runs for it (rq->curr).
 * The class that picked works with the donor: put_prev_task and
 * set_next_task are always about rq->donor, never about rq->curr.
 *
 * find_proxy_task() may drop rq->lock to move a donor's chain to its
 * owner's CPU (then it returns NULL and we pick again).  Meanwhile prev
 * is still rq->curr, so nothing else moves it; a wake_up() of prev finds
 * it queued (state changed under rq->lock, seen by the next pick) or
 * dequeued (it waits for prev->on_cpu to drop after the switch).
 * need_resched is cleared before the pick, so a request made while the
 * lock was dropped is not lost; find_proxy_task sets it when it lets
 * idle run only until prev is off the CPU.
 */
static inline __attribute__((always_inline)) void __schedule_mode(int mode)
{
	struct cpu *c = this_cpu();
	struct rq *rq = c->rq;
	struct task *prev = rq->curr, *prev_donor, *donor, *next;
	bool proxied;

	spin_lock_raw(&rq->lock);
	update_rq_clock(rq);
	prev_donor = rq->donor;
	if (mode == SM_YIELD && prev->state == TASK_RUNNING &&
	    prev_donor->sched_class->yield_pick) {
		/* The class charges the donor's time itself (its
		 * ->update_curr's work, inline there): one call, not two. */
		donor = prev_donor->sched_class->yield_pick(rq, prev_donor,
							    update_curr_common(rq));
		if (donor) {
			WRITE_ONCE(c->need_resched, false);
			rq->nr_picks++;
			goto picked;
		}
	} else {
		__update_curr(rq);
	}
	if (mode == SM_YIELD)
		rq->donor->sched_class->yield_task(rq);
	if (mode != SM_PREEMPT && prev->state != TASK_RUNNING) {
		if (!proxy_blocked(prev) || proxy_prev_sleeps(rq, prev))
			deactivate_task(rq, prev, DEQUEUE_SLEEP);
		else if (prev->sched_class->task_blocked)
			prev->sched_class->task_blocked(rq, prev);
	}
	WRITE_ONCE(c->need_resched, false);
	rq->nr_picks++;
	donor = pick_next_task(rq, rq->donor);
picked:
	rq->donor = donor;
	next = donor;
	if (__builtin_expect(proxy_blocked(donor), 0))
		next = pick_proxy(rq, donor);
	/* A pick that took another runqueue's lock (a proxy chain move, a
	 * pull) may have waited long for it (a vCPU preempted by its host
	 * while holding it: 38 ms seen): next starts now, not when this
	 * pass began, or its first charge, and its donor's budget, would
	 * include the wait (a deadline donor throttled at once). */
	if (__builtin_expect(rq->clock_stale, 0))
		update_rq_clock_again(rq);
	donor = rq->donor;
	if (donor != prev_donor)
		rq_donor_changed(rq);
	proxied = next != donor;	/* a proxy (not idle with idle) */
	if (proxied)
		proxy_check_pick(rq, donor, next);
	/* Always on: a task lent to this CPU never runs here. */
	if (__builtin_expect(next->wake_cpu >= 0, 0))
		panic("sched: %s runs on cpu%d where it was only lent (from cpu%d)",
		      next->name, cpu_of(rq), next->wake_cpu);
	if (next == prev) {
		if (donor != prev_donor)	/* the same task, for another */
			trace_switch(prev, next, donor);
		if (__builtin_expect(rq->push_pending != 0, 0))
			run_pending_pushes(rq);
		spin_unlock_raw(&rq->lock);
		return;
	}
	trace_switch_to(prev, next, donor, proxied, mode != SM_YIELD);
	rq->curr = c->curr = next;
	next->on_cpu = 1;
	next->exec_start_ns = rq->clock_ns;
	next->nr_switches++;
	rq->nr_switches++;
	rq->prev = prev;
	arch_context_switch(&prev->ctx, &next->ctx);
	/* Back in prev, possibly much later: finish the switch *to* us. */
	__finish_task_switch();
}

/* __schedule_mode() for schedule(). */
static __attribute__((noinline)) void __schedule(int mode)
{
	__schedule_mode(mode);
}

static void __attribute__((noinline, cold, noreturn)) schedule_atomic(struct cpu *c)
{
	panic("schedule() while atomic (preempt_count %#x) in task %s",
	      c->preempt_count, c->curr->name);
}

/*
 * schedule() and yield(): task context, never while atomic.  yield()
 * has its own copy of __schedule_mode(SM_YIELD): a yield is the switch
 * RTOS code makes most often, and the copy saves a call, a second frame
 * and the tests of the mode.
 */
static inline __attribute__((always_inline)) void schedule_task(int mode)
{
	unsigned long flags = arch_irq_save();
	struct cpu *c = this_cpu();

	if (c->preempt_count != 0)
		schedule_atomic(c);
	if (mode == SM_YIELD)
		__schedule_mode(SM_YIELD);
	else
		__schedule(mode);
	arch_irq_restore(flags);
}

void schedule(void)
{
	schedule_task(SM_NONE);
}

void yield(void)
{
	schedule_task(SM_YIELD);
}

/* ---- Preemption and interrupts -------------------------------------- */

/* irq_exit()'s switch (cpu.h), and preempt_check_resched()'s.  With
 * its own copy of __schedule_mode(SM_PREEMPT), as yield(): an
 * interrupt's wakeup of a more important task comes through here. */
void preempt_schedule_irq(void)
{
	do {
		__schedule_mode(SM_PREEMPT);
	} while (READ_ONCE(this_cpu()->need_resched));
}

void preempt_disable(void)
{
	unsigned long flags = arch_irq_save();

	this_cpu()->preempt_count++;
	arch_irq_restore(flags);
}

/* No interrupt masking: while the count is above 0 the task cannot
 * move to another CPU, and an interrupt between the load and the store
 * of the decrement gives back what it took (preempt_disable() masks:
 * from a count of 0 the task might move between the two). */
void preempt_enable(void)
{
	struct cpu *c = this_cpu();

	BUG_ON((c->preempt_count & PREEMPT_MASK) == 0);
	barrier();
	c->preempt_count--;
	if (READ_ONCE(c->need_resched))
		preempt_check_resched();
}

void preempt_check_resched(void)
{
	unsigned long flags;
	struct cpu *c;

	if (!arch_irqs_enabled())
		return;
	flags = arch_irq_save();
	c = this_cpu();
	if (c->preempt_count == 0 && c->need_resched)
		preempt_schedule_irq();
	arch_irq_restore(flags);
}

void scheduler_tick(void)
{
	struct rq *rq = this_rq();
	const struct sched_class *c;

	spin_lock_raw(&rq->lock);
	update_rq_clock(rq);
	update_curr(rq);
	/* A tick that interrupted preemptible code: the CPU reschedules on
	 * this interrupt's way out if it was asked to (sched_verify's
	 * ticks rule counts these: the CPU had its chance). */
	if (rq->cpu->preempt_count == HARDIRQ_OFFSET + 1)	/* + rq->lock */
		rq->nr_preempt_ticks++;
	rq->donor->sched_class->task_tick(rq, rq->donor);
	/* Every class looks for work to push at every tick, whatever runs
	 * here: a push is never left to one trigger that may be missed.
	 * (A lone CPU has nowhere to push to: internal.h, sched_smp.) */
	if (sched_smp) {
		for_each_class(c)
			if (c->queue_push)
				c->queue_push(rq);
		run_pending_pushes(rq);
	}
	/* Idle with RT or deadline work queued: pick again, so that the
	 * pick moves on what cannot run here and pulls what waits
	 * elsewhere (balance_rt() pulls only when no deadline task is
	 * queued, and only what beats the best queued RT task).  A blocked
	 * deadline donor whose chain ran on another CPU was once left
	 * queued on an idle CPU with no pick pending, and RT tasks waited
	 * elsewhere for 440 ms (football, riscv64, 8 CPUs); the path that
	 * left it is not known.  At most one pick a tick, only then. */
	if (rq->donor == rq->idle &&
	    (rq->dl.dl_nr_running || rq->rt.rt_nr_running))
		resched_curr(rq);
	spin_unlock_raw(&rq->lock);
	fair_trigger_load_balance(rq);
}

/* ---- Setup ----------------------------------------------------------- */

void sched_init_cpu(struct cpu *c)
{
	struct rq *rq = cpu_rq(c->id);
	char name[TASK_NAME_LEN];
	struct task *idle;

	spin_init(&rq->lock, "rq");
	list_init(&rq->tasks);
	rq->cpu = c;
	c->rq = rq;
	if (c->id == 0 && c->curr) {
		idle = c->curr;			/* the boot context, see sched_init */
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
	c->idle = c->curr = rq->idle = rq->curr = rq->donor = idle;
	{
		const struct sched_class *cl;

		for_each_class(cl)
			if (cl->init_rq)
				cl->init_rq(rq);
	}
}

bool sched_smp;

/*
 * Before the boot CPU starts another one: what a lone CPU did not
 * publish (internal.h, sched_smp) is published now, under the lock the
 * writers hold, so from here the other CPUs' readers see it current.
 * Only the boot CPU is online, but its interrupts may wake tasks: the
 * lock orders those updates before or after this.
 */
void sched_smp_begin(void)
{
	struct rq *rq = this_rq();
	unsigned long flags = arch_irq_save();

	spin_lock_raw(&rq->lock);
	sched_smp = true;
	dl_rq_changed(rq);	/* cpudl, dlo_mask, then RT's cpupri and overload */
	spin_unlock_raw(&rq->lock);
	arch_irq_restore(flags);
}

/* After the other CPUs are up: their stoppers.  Boot CPU. */
void sched_init_smp(void)
{
	for (int i = 0; i < ncpus; i++)
		if (cpus[i].online)
			stop_init_cpu(&cpus[i]);
}

void sched_init(void)
{
	static struct task boot_task;	/* becomes cpu0's idle task */
	struct cpu *c = this_cpu();

	/* sched_class_above() compares ranks: they must follow the order
	 * written in sched_classes[]. */
	for (int i = 1; sched_classes[i]; i++)
		if (sched_classes[i]->rank >= sched_classes[i - 1]->rank)
			panic("sched: class %s ranks %d, not below %s's %d",
			      sched_classes[i]->name, sched_classes[i]->rank,
			      sched_classes[i - 1]->name,
			      sched_classes[i - 1]->rank);
	task_init_common(&boot_task, "idle/0");
	boot_task.stack_slot = -1;		/* the arch's boot stack */
	c->curr = &boot_task;
	sched_init_cpu(c);
	trace_init();
}
