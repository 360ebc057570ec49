/*
 * timer.c - per-CPU one-shot timers and the scheduler tick.
 *
 * Each CPU has a queue of armed timers sorted by deadline, under its own
 * lock, and keeps the arch one-shot timer programmed for the head.  A
 * callback runs in interrupt context with the queue unlocked (it may arm
 * timers, wake tasks); queue->running names it meanwhile, and the timer's
 * ran_on the CPUs it was armed on (so may have run on), so that
 * timer_cancel() on another CPU can wait for it to finish.
 *
 * The tick is not in the queue: its time is q->tick_ns, which the
 * interrupt looks at first and moves TICK_NS on, and the hardware is
 * programmed for the earlier of it and the queue's head.  As a queued
 * timer it re-armed itself from its callback, an insertion into the
 * sorted list under the queue's lock on every tick: about 80 of its 511
 * instructions on x86_64 (docs/performance.md).
 *
 * One interrupt runs a bounded amount of work, so that no timer - and no
 * parameter of whoever arms them - can keep interrupts off for good: only
 * timers that were due when it came or came due while its callbacks ran,
 * at most TIMER_MAX_PER_IRQ callbacks, each timer (and the tick) at most
 * once.  A callback
 * that re-arms its own timer at or before "now" (a deadline task with a
 * budget too small to outlast the interrupt did that, issue 12) waits for
 * the next interrupt.  What is still due then is deferred: the hardware is
 * programmed for a little later (timer_defer_ns()), interrupts open, the
 * interrupted task runs, and the rest fires right after.
 */
#include "kernel.h"
#include "timer.h"
#include "cpu.h"
#include "sched.h"
#include "bitops.h"

/* tick_ns of a CPU whose tick has not started. */
#define TICK_NONE (~0ULL)

struct timer_queue {
	spinlock_t lock;
	struct list_head timers;	/* sorted by deadline, then arming order */
	struct timer *running;		/* callback in progress, or NULL */
	/* A timer armed by the callback in progress became the head: the
	 * hardware, programmed before it ran (run_alone()), is not
	 * programmed for it.  Only its CPU reads or writes it. */
	bool rearm;
	/* The next tick, TICK_NONE before timer_init_cpu().  Only its CPU
	 * reads or writes it, with interrupts off. */
	uint64_t tick_ns;
	uint64_t tick_irq;		/* irq_stamp() of its last run */
	/* The latest the tick may be put off to (for a switch, or a timer
	 * right behind it): TICK_LATE_MAX_NS after it came due. */
	uint64_t tick_limit;
	struct timer tick;		/* never armed: q->running while the
					   tick runs */
};

static struct timer_queue queues[NR_CPUS] = {
	[0 ... NR_CPUS - 1] = { .tick_ns = TICK_NONE, .tick_limit = TICK_NONE },
};

/*
 * Callbacks one interrupt may run.  A tick, a sleep or two, a deadline
 * budget and replenishment and a push make the usual interrupt's few;
 * 16 leaves room for bursts (many sleepers due at once) while keeping
 * one interrupt to a few tens of microseconds under QEMU.
 */
#define TIMER_MAX_PER_IRQ 16
/* A deferral waits as long as the interrupt ran (Linux's hrtimer hang
 * protection: the interrupted task gets at least half the CPU), within
 * these bounds: the clock may not move between two reads on RISC-V
 * (100 ns resolution), and a host stall inside the interrupt must not
 * delay the next one for a whole tick. */
#define TIMER_DEFER_MIN_NS (1 * NSEC_PER_USEC)
#define TIMER_DEFER_MAX_NS (500 * NSEC_PER_USEC)
/*
 * A timer due this soon after an interrupt's callbacks, with no switch
 * pending, is waited for in the interrupt: leaving and coming back (an
 * exit and an entry) costs about as much, and a task it wakes would
 * otherwise wait for whatever runs in between.  At most once per
 * interrupt.
 */
#define TIMER_SPIN_NS (1 * NSEC_PER_USEC)
/* How long a tick due with a switch pending waits: until after the
 * switch (run_due()). */
#define TICK_PUT_OFF_NS (5 * NSEC_PER_USEC)
/*
 * A tick due this soon before a queued timer waits for it and runs
 * after its callbacks (timer_interrupt()).  The tick alone costs about
 * 500 instructions, more when it ends a fair slice and the hogs switch:
 * a sleeper due inside that waited for both, the worst case of
 * rt_wakeup_lat (docs/performance.md, "Round 8").
 */
#define TICK_WAIT_NS (2 * NSEC_PER_USEC)
/*
 * Both may happen more than once, up to this long after the tick came
 * due: a tick that waited for the slice timer and was put off for the
 * switch it made then ran in the interrupt of a sleeper due a few
 * microseconds later, before its switch (x86_64's worst rt_wakeup_lat,
 * 898 ns).  A bound, not a count: the tick is never late by more.
 */
#define TICK_LATE_MAX_NS (20 * NSEC_PER_USEC)

void timer_init(struct timer *t, void (*fn)(struct timer *t), void *data)
{
	t->deadline_ns = 0;
	t->fn = fn;
	t->data = data;
	t->cpu = -1;
	t->ran_on = 0;
	t->ran_irq = 0;
	t->early = false;
	list_init(&t->node);
}

/* Program the hardware for the earliest timer or the tick.  q->lock
 * held, on q's CPU. */
static void reprogram(struct timer_queue *q)
{
	uint64_t when = q->tick_ns;

	if (!list_empty(&q->timers))
		when = MIN(when, list_first_entry(&q->timers, struct timer,
						  node)->deadline_ns);
	if (when != TICK_NONE)
		arch_timer_arm(when);
}

/* dequeue()'s loop, for a timer that was seen armed. */
static __attribute__((noinline)) bool dequeue_armed(struct timer *t)
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

/* Take @t off whatever queue it is on.  Returns true if it was queued.
 * Most callers find it unarmed (a sleeper's cancel after its timer
 * fired, the tick re-arming itself from its callback): one load then,
 * no call. */
static inline bool dequeue(struct timer *t)
{
	return smp_load_acquire(&t->cpu) >= 0 && dequeue_armed(t);
}

/*
 * Hints (->early: the fair slice timer) are not due just before another
 * timer: one due up to TIMER_EARLY_NS before a timer runs right after
 * it instead, in its interrupt.  A task that timer wakes then finds the
 * hint dropped (run_due(): the switch to it makes the hint moot) rather
 * than waiting for its callback, or for the switch between fair tasks
 * the hint would have made first (rt_wakeup_lat's worst case,
 * docs/performance.md, "Round 8").  q->lock held.
 *
 * hint_deadline(): the deadline for a hint armed for @deadline: that of
 * the last other timer due within TIMER_EARLY_NS after it, if any.
 */
static uint64_t hint_deadline(struct timer_queue *q, uint64_t deadline)
{
	struct list_head *pos;
	uint64_t d = deadline;

	list_for_each(pos, &q->timers) {
		struct timer *u = list_entry(pos, struct timer, node);

		if (u->deadline_ns > deadline + TIMER_EARLY_NS)
			break;
		if (u->deadline_ns >= deadline && !u->early)
			d = u->deadline_ns;
	}
	return d;
}

/* @t (not a hint) was just queued: a hint due up to TIMER_EARLY_NS
 * before it moves to right after it. */
static void hint_after(struct timer_queue *q, struct timer *t)
{
	struct list_head *pos = t->node.prev;

	while (pos != &q->timers) {
		struct timer *u = list_entry(pos, struct timer, node);

		if (u->deadline_ns + TIMER_EARLY_NS < t->deadline_ns)
			return;
		pos = pos->prev;
		if (u->early) {
			list_del_init(&u->node);
			u->deadline_ns = t->deadline_ns;
			list_add(&u->node, &t->node);	/* right after t */
			return;
		}
	}
}

void timer_arm(struct timer *t, uint64_t deadline_ns)
{
	struct list_head *pos, *head;
	struct timer_queue *q;
	unsigned long flags;

	dequeue(t);
	flags = arch_irq_save();
	q = &queues[this_cpu()->id];
	spin_lock_raw(&q->lock);
	head = q->timers.next;
	if (__builtin_expect(t->early, 0))
		deadline_ns = hint_deadline(q, deadline_ns);
	t->deadline_ns = deadline_ns;
	list_for_each(pos, &q->timers)
		if (list_entry(pos, struct timer, node)->deadline_ns > deadline_ns)
			break;
	list_add_tail(&t->node, pos);	/* before the first later one */
	/* The CPUs it runs on, for timer_cancel(): this one, from now, so
	 * that the interrupt that runs it need not (its callback may be a
	 * woken task's path, rt_wakeup_lat). */
	if (!(READ_ONCE(t->ran_on) & this_cpu_mask()))
		__atomic_fetch_or(&t->ran_on, this_cpu_mask(),
				  __ATOMIC_RELAXED);
	t->cpu = this_cpu()->id;
	if (!t->early && t->node.prev != &q->timers)
		hint_after(q, t);
	/* Inside one of this CPU's callbacks (q->running is only ever set
	 * there), timer_interrupt() programs the hardware once it is done
	 * (told so by q->rearm).  Arming it here for a time already past
	 * would, on x86, leave an interrupt pending that no later arming
	 * takes back, and the deferral would be lost. */
	if (q->timers.next != head &&
	    list_first_entry(&q->timers, struct timer, node)->deadline_ns <
	    q->tick_ns) {
		if (!q->running)
			reprogram(q);
		else
			q->rearm = true;
	}
	spin_unlock_raw(&q->lock);
	arch_irq_restore(flags);
}

/* The earliest deadline queued on this CPU, or ~0.  Irqs off. */
uint64_t timer_next_local(void)
{
	struct timer_queue *q = this_cpu()->timers;
	uint64_t when = ~0ULL;

	spin_lock_raw(&q->lock);
	if (!list_empty(&q->timers))
		when = list_first_entry(&q->timers, struct timer, node)->deadline_ns;
	spin_unlock_raw(&q->lock);
	return when;
}

/* timer_cancel()'s wait for callbacks on the other CPUs @m: out of
 * line, so that the common cancel (t ran here, or nowhere) saves no
 * registers. */
static __attribute__((noinline)) void cancel_wait(struct timer *t, uint64_t m)
{
	for (; m; m &= m - 1)
		while (READ_ONCE(queues[ctz64(m)].running) == t)
			arch_cpu_relax();
}

/*
 * Wait out a callback running on a CPU that ever ran this timer: O(those
 * CPUs), mostly one, not O(CPUs) on every sleeper's cancel.  The bit is
 * set when the timer is armed there (timer_arm), so before the callback
 * runs, never after it: a callback may free its own timer.  dequeue()'s
 * acquire of t->cpu (set to -1 with release as the callback starts), or
 * its lock of the queue, orders the bit before this read.
 *
 * Not this CPU: when the id is read, this CPU runs this code, not a
 * callback (callbacks run with interrupts off, so no callback is half
 * done under us), and none can start later, t being off every queue
 * once dequeue() returns.  A sleeper woken by its own timer, the
 * commonest cancel, so looks at no queue at all, and a callback may
 * cancel its own timer.
 */
bool __timer_cancel(struct timer *t)
{
	bool was = dequeue(t);
	uint64_t m = READ_ONCE(t->ran_on) & ~(1ULL << smp_processor_id());

	if (__builtin_expect(m != 0, 0))
		cancel_wait(t, m);
	return was;
}

/*
 * This interrupt's stamp, unique over every CPU's interrupts: a timer
 * that ran in it has it in t->ran_irq.  (NR_CPUS is at most 64.)
 */
static inline uint64_t irq_stamp(const struct cpu *c)
{
	return c->nr_timer_irqs << 6 | (unsigned)c->id;
}

/*
 * The first timer of @q that was due at @entry (when the interrupt
 * came, or when its callbacks were done) and has not run in this
 * interrupt (@stamp), or NULL.  q->lock held.
 *
 * Never one that ran already: a callback that takes long (a lock whose
 * holder's vCPU the host preempted) must not let a timer it re-armed,
 * due again meanwhile, run twice in one interrupt and keep the CPU from
 * ever reaching irq_exit's preemption point.  That fires at the next
 * interrupt, right after.
 */
static inline __attribute__((always_inline)) struct timer *next_due(struct timer_queue *q, uint64_t entry,
			      uint64_t stamp)
{
	struct list_head *pos;

	list_for_each(pos, &q->timers) {
		struct timer *t = list_entry(pos, struct timer, node);

		if (t->deadline_ns > entry) {
			/* Not due; one that may run early, soon due, runs
			 * with these rather than in an interrupt of its
			 * own (which would come right after). */
			if (t->deadline_ns > entry + TIMER_EARLY_NS)
				return NULL;
			if (t->early && t->ran_irq != stamp)
				return t;
			continue;
		}
		if (t->ran_irq != stamp)
			return t;
	}
	return NULL;
}

/* How long a deferral waits, for an interrupt that started at @entry. */
static uint64_t timer_defer_ns(uint64_t entry, uint64_t now)
{
	return MIN(MAX(now - entry, TIMER_DEFER_MIN_NS), TIMER_DEFER_MAX_NS);
}

/* Wait, interrupts off, until @deadline (TIMER_SPIN_NS at most away);
 * returns the time then.  Not arch_cpu_relax(): on riscv64 it may halt
 * the hart for a microsecond (a benchmark boot under -icount). */
static __attribute__((noinline)) uint64_t timer_spin_until(uint64_t deadline)
{
	uint64_t now;

	while ((now = arch_clock_ns()) < deadline)
		;
	return now;
}

/* @q's first timer, or NULL.  q->lock held. */
static inline struct timer *queue_head(struct timer_queue *q)
{
	return list_empty(&q->timers) ? NULL
				      : list_first_entry(&q->timers, struct timer, node);
}

/*
 * The tick, due at or before @due: the next one TICK_NS after this one's
 * time (missed ticks are not replayed).  q unlocked, interrupts off.
 */
static void tick(struct cpu *c, struct timer_queue *q, uint64_t due)
{
	uint64_t next = q->tick_ns + TICK_NS;

	q->tick_ns = next > due ? next : due + TICK_NS;
	q->tick_limit = q->tick_ns + TICK_LATE_MAX_NS;
	q->tick_irq = irq_stamp(c);
	WRITE_ONCE(q->running, &q->tick);	/* timers armed: see timer_arm */
	c->nr_ticks++;
	scheduler_tick();
	WRITE_ONCE(q->running, NULL);
}

/* Take @t (due) off @q: its callback is about to run, in this interrupt
 * (@stamp: irq_stamp()).  q->lock held. */
static inline __attribute__((always_inline)) void
start_callback(struct cpu *c, struct timer_queue *q, struct timer *t,
	       uint64_t stamp)
{
	(void)c;
	t->ran_irq = stamp;
	list_del_init(&t->node);
	WRITE_ONCE(q->running, t);
	/* Whoever sees cpu == -1 (acquire) also sees running == t, so
	 * timer_cancel() cannot miss a callback about to run. */
	smp_store_release(&t->cpu, -1);
}

/* Take @t (due) off @q and run its callback, q->lock dropped around it.
 * q->lock held. */
static inline __attribute__((always_inline)) void
run_one(struct cpu *c, struct timer_queue *q, struct timer *t, uint64_t stamp)
{
	start_callback(c, q, t, stamp);
	spin_unlock_raw(&q->lock);
	t->fn(t);
	spin_lock_raw(&q->lock);
	WRITE_ONCE(q->running, NULL);
}

/*
 * The queue's timers due at @entry, when the interrupt came, and those
 * that come due while they run (or, TIMER_SPIN_NS, right after), then
 * the tick if due; then the hardware for the next.  @n: callbacks this
 * interrupt ran already (timer_interrupt()'s one).  q->lock held
 * (dropped around each callback).  Out of line: the interrupt that only
 * ticks (most of them) needs none of this bookkeeping and none of the
 * registers it keeps.
 *
 * The tick too runs at most once per interrupt: due again because the
 * callbacks took long (a host stall), it waits for the next interrupt,
 * after irq_exit() had its chance to switch.  sched_verify counts each
 * tick of preemptible code as such a chance; two ticks inside one long
 * interrupt once made it report a task that had none (football,
 * riscv64, 8 CPUs).
 */
static __attribute__((noinline)) void run_due(struct cpu *c,
					      struct timer_queue *q,
					      uint64_t entry, int n)
{
	uint64_t due = entry, now, stamp = irq_stamp(c);
	bool spun = false;
	struct timer *t;

	for (;;) {
		while (n < TIMER_MAX_PER_IRQ && (t = next_due(q, due, stamp))) {
			if (t->early && READ_ONCE(c->need_resched)) {
				/* A hint the pending switch makes moot:
				 * the woken task does not wait for it. */
				list_del_init(&t->node);
				smp_store_release(&t->cpu, -1);
				continue;
			}
			n++;
			run_one(c, q, t, stamp);
		}
		now = arch_clock_ns();
		/* Due right behind, and nothing to switch to yet: wait for
		 * it here (TIMER_SPIN_NS), and run it before the tick.  A
		 * sleeper due just after the fair slice timer (which then
		 * puts itself off: hrtick_fn) is woken in that interrupt. */
		t = queue_head(q);
		if (t && t->deadline_ns - now - 1 < TIMER_SPIN_NS &&	/* in (now, now + SPIN] */
		    !spun && n < TIMER_MAX_PER_IRQ && t->ran_irq != stamp &&
		    !READ_ONCE(c->need_resched)) {
			uint64_t d = t->deadline_ns;

			spun = true;
			spin_unlock_raw(&q->lock);	/* t may go: d only */
			now = timer_spin_until(d);
			spin_lock_raw(&q->lock);
			due = now;
			continue;
		}
		/* The tick after the timers.  With a switch pending (a task
		 * they woke outranks curr) it waits until after the switch,
		 * within its limit: the woken task does not wait for its
		 * accounting. */
		if (q->tick_ns <= now && q->tick_irq != stamp) {
			if (READ_ONCE(c->need_resched) &&
			    now + TICK_PUT_OFF_NS <= q->tick_limit) {
				q->tick_ns = now + TICK_PUT_OFF_NS;
			} else {
				spin_unlock_raw(&q->lock);
				tick(c, q, now);
				spin_lock_raw(&q->lock);
				now = arch_clock_ns();
			}
		}
		/* Came due while the callbacks (or the tick) ran: run it now
		 * rather than after irq_exit's switch and another interrupt
		 * entry.  Still each timer once and at most
		 * TIMER_MAX_PER_IRQ: every pass runs one more callback. */
		if (n == TIMER_MAX_PER_IRQ || due == now || !next_due(q, now, stamp))
			break;
		due = now;
	}
	t = queue_head(q);
	if ((t && t->deadline_ns <= now &&
	     (n == TIMER_MAX_PER_IRQ || t->ran_irq == stamp)) ||
	    (q->tick_ns <= now && q->tick_irq == stamp)) {
		/* Due, but over the bound or run once already: later.  (One
		 * that just came due is not held back: reprogram below.) */
		c->nr_timer_defers++;
		arch_timer_arm(now + timer_defer_ns(entry, now));
	} else {
		reprogram(q);
	}
}

/*
 * timer_interrupt()'s commonest case: @t, due, is the only timer to run
 * (nothing else due, or soon due, and no tick: @next, the time of the
 * next timer or the tick, is more than TIMER_EARLY_NS after the
 * interrupt came).
 * The hardware is programmed for @next before the callback, so the
 * queue's lock is not taken again after it: the woken task's path
 * (rt_wakeup_lat) does not wait for the lock, a clock read and the
 * re-arm.  Unless the callback armed a new head (q->rearm): then
 * run_due() finishes as for any interrupt.  q->lock held; returns with
 * it dropped.
 */
static inline __attribute__((always_inline)) void
run_alone(struct cpu *c, struct timer_queue *q, struct timer *t,
	  uint64_t next)
{
	start_callback(c, q, t, irq_stamp(c));
	if (next != TICK_NONE)
		arch_timer_arm(next);
	q->rearm = false;	/* what run_due() or the tick left set */
	spin_unlock_raw(&q->lock);
	t->fn(t);
	if (__builtin_expect(q->rearm, 0)) {
		/* From now rather than the interrupt's entry: nothing of
		 * the entry time lives across the callback (the woken
		 * task's path saves no register for it); run_due() then
		 * counts the time since the callback as the interrupt's
		 * (the length of a deferral). */
		spin_lock_raw(&q->lock);
		q->rearm = false;
		WRITE_ONCE(q->running, NULL);
		run_due(c, q, arch_clock_ns(), 1);
		spin_unlock_raw(&q->lock);
		return;
	}
	/* Done with t (timer_cancel() may free it once it sees this). */
	smp_store_release(&q->running, NULL);
}

/*
 * The arch calls this from the timer interrupt, irqs off.  The tick
 * alone (most interrupts) runs here, unless a timer is due within
 * TICK_WAIT_NS after it: then it waits for that timer (within
 * TICK_LATE_MAX_NS of its due time).  One due timer with nothing due
 * or soon due after it (a sleeper: the next commonest) runs here too
 * (run_alone()); otherwise, with a queued timer due or due within
 * TIMER_SPIN_NS, run_due() runs the timers, then the tick.  A timer (or
 * the next tick, after a host stall) that came due while the tick alone
 * ran is not looked for: the hardware, programmed for it, interrupts
 * again at once, after irq_exit().
 */
void timer_interrupt(void)
{
	struct cpu *c = this_cpu();
	struct timer_queue *q = c->timers;
	uint64_t entry = arch_clock_ns();
	struct timer *t;

	c->nr_timer_irqs++;
	spin_lock_raw(&q->lock);
	t = queue_head(q);
	if (!t || t->deadline_ns > entry + TIMER_SPIN_NS) {
		if (q->tick_ns <= entry && t &&
		    t->deadline_ns - entry <= TICK_WAIT_NS &&
		    t->deadline_ns <= q->tick_limit) {
			/* A timer right behind: the tick runs after it. */
			q->tick_ns = t->deadline_ns;
		} else if (q->tick_ns <= entry) {	/* the tick alone: most */
			spin_unlock_raw(&q->lock);
			tick(c, q, entry);
			spin_lock_raw(&q->lock);
			t = queue_head(q);
		}
		if (!t || t->deadline_ns > entry) {
			reprogram(q);
			spin_unlock_raw(&q->lock);
			return;
		}
	}
	/* The hardware came up to TIMER_SPIN_NS early (x86_64's count
	 * runs on another clock than the TSC: real-time QEMU, real
	 * hardware), or another interrupt found the head about due: wait
	 * for it here.  run_due() would run a hint due with it first (a
	 * hint may run early, a timer only when due), the order the hints
	 * exist to avoid (timer.hints_follow_timers saw it on x86_64 once
	 * the count was no longer late by the instructions after its TSC
	 * read). */
	if (t->deadline_ns > entry && !t->early) {
		uint64_t d = t->deadline_ns;

		spin_unlock_raw(&q->lock);
		entry = timer_spin_until(d);
		spin_lock_raw(&q->lock);
		t = queue_head(q);
		if (!t) {
			reprogram(q);
			spin_unlock_raw(&q->lock);
			return;
		}
	}
	/* The commonest: one timer due (a sleeper), and after it nothing
	 * due or soon due, no tick.  (A hint, ->early, may be dropped or
	 * run early: run_due().) */
	if (t->deadline_ns <= entry && !t->early) {
		uint64_t next = q->tick_ns;

		if (t->node.next != &q->timers)
			next = MIN(next, list_entry(t->node.next, struct timer,
						    node)->deadline_ns);
		if (next > entry + TIMER_EARLY_NS) {
			run_alone(c, q, t, next);
			return;
		}
	}
	run_due(c, q, entry, 0);
	spin_unlock_raw(&q->lock);
}

void timer_init_cpu(void)
{
	struct cpu *c = this_cpu();
	struct timer_queue *q = &queues[c->id];
	unsigned long flags;

	spin_init(&q->lock, "timers");
	list_init(&q->timers);
	c->timers = q;
	timer_init(&q->tick, NULL, NULL);
	flags = arch_irq_save();
	spin_lock_raw(&q->lock);
	q->tick_ns = arch_clock_ns() + TICK_NS;
	q->tick_limit = q->tick_ns + TICK_LATE_MAX_NS;
	reprogram(q);
	spin_unlock_raw(&q->lock);
	arch_irq_restore(flags);
}
