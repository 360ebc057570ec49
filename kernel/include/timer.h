/*
 * timer.h - per-CPU one-shot timers and the scheduler tick.
 *
 * Each CPU keeps its pending timers sorted by deadline and programs the
 * arch one-shot timer for the earlier of it and the tick (TICK_NS, kept
 * beside the queue: timer.c).  Callbacks run in interrupt context on the
 * CPU the timer was armed on, in deadline order (equal deadlines: arming
 * order), never before the deadline unless the timer is ->early.
 *
 * A timer due within a microsecond after an interrupt's callbacks, with
 * no switch pending, is waited for in that interrupt (TIMER_SPIN_NS in
 * timer.c), and a timer marked ->early (the fair slice timer) may run up
 * to TIMER_EARLY_NS early with the others, and is dropped unrun when a
 * switch is already pending; a tick due with a switch pending waits
 * until after it (a few microseconds), and a tick due just before a
 * timer waits for that timer (TICK_WAIT_NS), never past 20 us after it
 * came due (TICK_LATE_MAX_NS).
 *
 * One interrupt runs only timers due when it came or while its callbacks
 * ran, at most 16 callbacks (TIMER_MAX_PER_IRQ in timer.c), each timer at
 * most once: a callback that re-arms its timer at or before now runs
 * again at the next interrupt, which comes after the interrupted task has
 * had about as long as the interrupt took (at least 1 us, at most
 * 500 us).  So no timer can keep a CPU's interrupts off for good.
 * cpu->nr_timer_defers counts the interrupts that left due timers behind.
 */
#ifndef TIMER_H
#define TIMER_H
#include "kernel.h"
#include "list.h"
#include "arch.h"
#include "cpu.h"

#define TICK_NS (4 * NSEC_PER_MSEC)	/* HZ = 250 */

struct timer {
	uint64_t deadline_ns;
	void (*fn)(struct timer *t);	/* interrupt context, irqs off */
	void *data;
	struct list_head node;
	int cpu;			/* -1 when not armed */
	uint64_t ran_on;		/* CPUs it was armed on, whose
					   interrupt may run (or have run)
					   fn: timer_cancel() waits there */
	uint64_t ran_irq;		/* the last interrupt that ran fn
					   (timer.c, irq_stamp()) */
	bool early;			/* a scheduler hint (the fair slice
					   timer), set after timer_init():
					   may run up to TIMER_EARLY_NS
					   before its deadline, in an
					   interrupt that runs timers anyway
					   (a soft expiry); with a switch
					   pending on its CPU, taken off the
					   queue unrun (the switch does what
					   it would) */
};

/* How early a timer with ->early may run. */
#define TIMER_EARLY_NS (2 * NSEC_PER_USEC)

void timer_init(struct timer *t, void (*fn)(struct timer *t), void *data);
/* Arm @t on this CPU for absolute time @deadline_ns (arch_clock_ns base).
 * Re-arming an armed timer moves it.  Any context. */
void timer_arm(struct timer *t, uint64_t deadline_ns);
/* The earliest deadline of this CPU's queue (not the tick), or ~0.
 * Irqs off. */
uint64_t timer_next_local(void);

/* timer_cancel() for a timer that is armed or ran on another CPU. */
bool __timer_cancel(struct timer *t);

/* Cancel @t; returns true if it was pending.  After return the callback
 * is not running and will not run (waits if it runs on another CPU);
 * from @t's own callback it does not wait for itself.  Inline, the
 * commonest cancel (a sleeper's, after its own timer woke it here: not
 * armed, never ran elsewhere) is two loads; why that is enough is
 * __timer_cancel()'s comment. */
static inline bool timer_cancel(struct timer *t)
{
	uint64_t self = this_cpu_mask();

	/* Not armed, and armed (so run) on no CPU but this one, whose
	 * interrupts are over: nothing to wait for. */
	if (__builtin_expect(smp_load_acquire(&t->cpu) < 0 &&
			     (READ_ONCE(t->ran_on) | self) == self, 1))
		return false;
	return __timer_cancel(t);
}

/* Boot CPU once, then each CPU (starts its tick). */
void timer_init_cpu(void);

/* Monotonic time since boot. */
static inline __attribute__((always_inline)) uint64_t clock_ns(void)
{
	return arch_clock_ns();
}
#endif
