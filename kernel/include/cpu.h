/*
 * cpu.h - per-CPU data.  One struct cpu per logical CPU, reached with
 * this_cpu() in one instruction (gs on x86_64, tp on RISC-V).
 */
#ifndef CPU_H
#define CPU_H
#include "kernel.h"
#include "arch.h"
#include "spinlock.h"

struct task;
struct rq;
struct timer_queue;
struct trace_cpu;

#define NR_CPUS 64

/* Reasons for an IPI, OR-ed into cpu->ipi_pending before arch_send_ipi. */
enum {
	IPI_RESCHED = 1 << 0,	/* need_resched was set remotely */
	IPI_CALL = 1 << 1,	/* run cpu->call_fn(call_arg) */
	IPI_STOP = 1 << 2,	/* panic / poweroff: halt now */
	IPI_WAKE = 1 << 3,	/* nothing to do: just end a halt (smp_call) */
};

struct cpu {
	struct cpu *self;		/* first: x86 reads it with gs:0 */
	int id;				/* logical id 0..ncpus-1 */
	uint64_t arch_id;		/* APIC id / hart id */
	bool online;
	int preempt_count;		/* preempt/irq nesting, below */
	bool need_resched;
	struct task *curr;		/* the running task (its rq's curr):
					   current_task() in one load */
	struct rq *rq;			/* this CPU's runqueue, private to
					   kernel/sched/ */
	struct task *idle;		/* idle task, always runnable */
	uint32_t ipi_pending;		/* atomic: IPI_* bits */
	void (*call_fn)(void *);	/* IPI_CALL request, see smp_call() */
	void *call_arg;
	volatile int call_done;
	int call_busy;			/* atomic: a smp_call() owns call_* */
	int call_from;			/* CPU to wake when call_fn is done */
	uint64_t nr_timer_irqs;		/* statistics for tests and `cpus` */
	uint64_t nr_timer_defers;	/* interrupts that left due timers
					   for later (timer.c: the bound) */
	uint64_t nr_ticks;		/* scheduler ticks run */
	uint64_t nr_ipis;
	struct timer_queue *timers;	/* this CPU's one-shot timers */
	struct trace_cpu *trace;	/* this CPU's trace ring and state */
	struct arch_cpu arch;		/* arch-private, see arch_impl.h */
	uint64_t mask;			/* 1 << id, from cpu_set_online():
					   this_cpu_mask() in one load */
} __aligned(64);

extern struct cpu cpus[NR_CPUS];
extern int ncpus;			/* CPUs present (from boot_info) */

static inline struct cpu *cpu_by_id(int id) { return &cpus[id]; }

/*
 * Preemption (kernel/sched/core.c): cpu->preempt_count counts
 * preempt_disable() nesting in its low bits and hardirq nesting in the
 * high bits; the task may be switched out only at 0.
 */
#define PREEMPT_MASK 0x0000ffff
#define HARDIRQ_OFFSET 0x00010000
void preempt_disable(void);
void preempt_enable(void);
/* A wakeup asked this CPU to reschedule while preemption or interrupts
 * were off (say, under a spinlock): if both are back on, do it now
 * rather than at the next interrupt.  spin_unlock() calls it. */
void preempt_check_resched(void);

/*
 * The running task (rq->curr) and this CPU's preempt count, each read in
 * one instruction without masking interrupts: a task that migrates
 * between two of its instructions is still itself, and a task whose
 * count is non-zero cannot migrate.  current() in sched.h is this.
 */
static inline struct task *current_task(void)
{
	return (struct task *)arch_this_cpu_read_ulong(offsetof(struct cpu, curr));
}

static inline long this_cpu_preempt_count(void)
{
	return arch_this_cpu_read_int(offsetof(struct cpu, preempt_count));
}

/* In an interrupt handler?  One load: in task context every CPU the
 * task may be on has no hardirq count. */
static inline bool in_interrupt(void)
{
	return this_cpu_preempt_count() >= HARDIRQ_OFFSET;
}

/*
 * Interrupt entry and exit, around the handler (the arch's trap entry
 * calls them, interrupts disabled: arch.h).  irq_exit() is the
 * preemption point for everything that runs; preempt_schedule_irq()
 * (core.c) switches.  Inline: every interrupt pays them.
 */
void preempt_schedule_irq(void);

static inline void irq_enter(void)
{
	arch_this_cpu_add_int(offsetof(struct cpu, preempt_count),
			      HARDIRQ_OFFSET);
}

static inline void irq_exit(void)
{
	if (arch_this_cpu_add_int_is_zero(offsetof(struct cpu, preempt_count),
					  -HARDIRQ_OFFSET) &&
	    arch_this_cpu_read_u8(offsetof(struct cpu, need_resched))) {
		preempt_schedule_irq();
		/* Not a tail call: the handler's frame is taken down after
		 * the switch back, not before the switch (the woken task
		 * would wait for its registers to be restored only to be
		 * saved again: 10 to 20 instructions). */
		barrier();
	}
}
static inline int smp_processor_id(void) { return this_cpu()->id; }

/* 1 << smp_processor_id(), in one load (an online CPU's). */
static inline uint64_t this_cpu_mask(void)
{
	return arch_this_cpu_read_ulong(offsetof(struct cpu, mask));
}

/*
 * Spinlocks (spinlock.h), inline: an uncontended pair is a few
 * instructions on every path that takes one (rq->lock in __schedule,
 * p->pi_lock in a wakeup, a mutex's wait_lock).  The checks and the
 * contended wait are out of line (spinlock.c).
 *
 * spin_lock_raw(): interrupts are already off (the caller masked them or
 * holds another spinlock).
 */
static inline void spin_lock_raw(spinlock_t *l)
{
	arch_this_cpu_add_int(offsetof(struct cpu, preempt_count), 1);
	/* The compare-and-swap of this CPU into the lock word, and
	 * __spin_lock_contended() if the lock was held, with no call the
	 * compiler sees (arch.h). */
	arch_spin_acquire(l);
}
_Static_assert(offsetof(spinlock_t, locked) == 0 &&
	       sizeof(((spinlock_t *)0)->locked) == sizeof(long),
	       "arch_spin_acquire() sets the first word of a spinlock");

static inline void spin_unlock_raw(spinlock_t *l)
{
	struct cpu *c = this_cpu();

	if (__builtin_expect(l->locked != (unsigned long)c, 0))
		__spin_unlock_bad(l, c);
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
	c->preempt_count--;
}

/* Masks interrupts first; returns their state for spin_unlock(). */
static inline unsigned long spin_lock(spinlock_t *l)
{
	unsigned long flags = arch_irq_save();

	spin_lock_raw(l);
	return flags;
}

static inline void spin_unlock(spinlock_t *l, unsigned long flags)
{
	spin_unlock_raw(l);
	arch_irq_restore(flags);
	/* Linux's preempt_enable(): a wake_up() under the lock may have
	 * made someone more important runnable here.  Only with interrupts
	 * on again can it switch now; a caller that keeps them off (an
	 * interrupt handler: its exit switches) is not asked. */
	if (arch_irqs_enabled_flags(flags) &&
	    READ_ONCE(this_cpu()->need_resched))
		preempt_check_resched();
}

/* Number of CPUs that have come online. */
int cpus_online(void);

/* Bit i set: cpus[i] is online.  cpu_set_online() keeps it with
 * cpus[i].online; one load instead of a walk of cpus[] (the wakeup and
 * enqueue paths read it). */
extern uint64_t cpus_online_bits;

static inline uint64_t cpus_online_mask(void)
{
	return __atomic_load_n(&cpus_online_bits, __ATOMIC_ACQUIRE);
}

/* Mark this CPU online or offline (boot, a secondary's start, halt). */
void cpu_set_online(struct cpu *c, bool online);

/*
 * Run fn(arg) on CPU @cpu in interrupt context and wait until it has
 * run.  The caller halts while it waits (the target IPIs it back), so it
 * never spins: under qemu -icount a spinning CPU stalls the others.
 * Task context, interrupts enabled.  Returns 0, or -EINVAL for an
 * offline CPU.  On the calling CPU it just calls fn with irqs disabled.
 */
int smp_call(int cpu, void (*fn)(void *), void *arg);

/* Send IPI reason @why (IPI_*) to @cpu. */
void smp_send(int cpu, uint32_t why);
#endif
