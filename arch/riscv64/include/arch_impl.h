/*
 * arch_impl.h - RISC-V 64 inline half of the arch contract (see arch.h).
 * Only arch/arch.h includes this file.
 *
 * Per-CPU pointer: tp holds this CPU's struct cpu for the whole life of
 * the kernel (there is no user mode to save it from), so this_cpu() is a
 * single `mv`.  sscratch holds the top of this CPU's emergency stack, used
 * by the trap entry when a kernel stack has overflowed (entry.S).
 */
#ifndef ARCH_IMPL_H
#define ARCH_IMPL_H

#define ARCH_NAME "riscv64"

/*
 * Thread stacks live in their own 32 MiB area (STACK_SLOTS *
 * STACK_SLOT_SIZE, stack_layout.h) near the top of the Sv39 lower half,
 * far above any RAM we identity-map (RAM must end below this address).
 * The size is a power of two so entry.S can range-check sp with a shift.
 */
#define ARCH_STACK_AREA_BASE 0x3f00000000UL
#define ARCH_STACK_AREA_SHIFT 25
#define ARCH_STACK_AREA_SIZE (1UL << ARCH_STACK_AREA_SHIFT)

/*
 * The trap entry's words in this CPU's struct cpu, at tp + these
 * offsets (entry.S; setup.c asserts them against struct cpu): two
 * scratch registers before the stack is known to be good, and the
 * rv_stack_map_gen this hart last fenced for.
 */
#define RV_CPU_ENTRY_T0 176
#define RV_CPU_ENTRY_T1 184
#define RV_CPU_MAP_GEN 192

#ifndef __ASSEMBLY__
#include <stdbool.h>
#include <stdint.h>

struct cpu;

struct arch_cpu {
	uint64_t hartid;
	uintptr_t emergency_stack_top;	/* also kept in sscratch */
	const void *irq_frame;		/* the timer interrupt's trap frame */
	uint64_t entry_t0, entry_t1;	/* entry.S: RV_CPU_ENTRY_T0/T1 */
	uint64_t map_gen;		/* entry.S: RV_CPU_MAP_GEN */
};

/*
 * Switched-out task: where it resumes, its stack pointer and its frame
 * pointer.  The switch (arch_context_switch below) declares s1-s11
 * clobbered, so the function that switches (__schedule) saves in its
 * own frame just the ones it uses, once, instead of a second copy of
 * all twelve in a switch routine.  A new task resumes at rv_task_start
 * with entry and arg on its stack (arch_context_init).
 */
struct arch_context {
	uint64_t pc;
	uint64_t sp;
	uint64_t s0;
};

/*
 * Store the running task's resume point, sp and s0 in @prev, load
 * @next's and jump there.  Interrupts off.  Every register but sp, s0,
 * gp and tp (the CPU's, not the task's) is clobbered as far as the
 * compiler knows: the code after the label runs in whatever task
 * switches back to us, much later.  No fence: the generic
 * finish_task_switch() publishes prev->on_cpu = 0 with a release store
 * (fence rw,w) after we are back in next, ordering these stores.
 */
static inline __attribute__((always_inline)) void
arch_context_switch(struct arch_context *prev, struct arch_context *next)
{
	register struct arch_context *a0 __asm__("a0") = prev;
	register struct arch_context *a1 __asm__("a1") = next;

	__asm__ __volatile__(
		"lla	t0, 1f\n\t"
		"sd	t0, 0(a0)\n\t"
		"sd	sp, 8(a0)\n\t"
		"sd	s0, 16(a0)\n\t"
		"ld	t0, 0(a1)\n\t"
		"ld	sp, 8(a1)\n\t"
		"ld	s0, 16(a1)\n\t"
		"jr	t0\n"
		"1:"
		: "+r"(a0), "+r"(a1)
		:
		: "ra", "t0", "t1", "t2", "t3", "t4", "t5", "t6",
		  "a2", "a3", "a4", "a5", "a6", "a7",
		  "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10",
		  "s11", "memory");
}

#define SSTATUS_SIE (1UL << 1)

/*
 * volatile: the result depends on which CPU runs the task, and a task can
 * move to another CPU whenever it switches out.  A plain asm with no
 * inputs is a constant to gcc, which may then reuse one read across a
 * call to schedule(), e.g. in preempt_schedule_irq()'s need_resched
 * loop: the task comes back on another CPU and polls the old CPU's flag
 * with interrupts off, forever.
 */
static inline struct cpu *this_cpu(void)
{
	struct cpu *c;

	__asm__ __volatile__("mv %0, tp" : "=r"(c));
	return c;
}

/* One field of this CPU's struct cpu, in one instruction (see arch.h);
 * @off < 2048. */
#define arch_this_cpu_read_ulong(off) ({				\
	unsigned long __v;						\
	__asm__ __volatile__("ld %0, %1(tp)" : "=r"(__v) : "i"(off));	\
	__v; })
#define arch_this_cpu_read_int(off) ({					\
	long __v;	/* lw sign-extends: no sext.w needed after it */	\
	__asm__ __volatile__("lw %0, %1(tp)" : "=r"(__v) : "i"(off));	\
	__v; })
#define arch_this_cpu_read_u8(off) ({					\
	unsigned long __v;	/* lbu zero-extends */			\
	__asm__ __volatile__("lbu %0, %1(tp)" : "=r"(__v) : "i"(off));	\
	__v; })
/* Add @v to the int at @off; the second says whether it became 0
 * (arch.h). */
#define __rv_this_cpu_add_int(off, v) ({				\
	long __v;							\
	__asm__ __volatile__("lw %0, %1(tp)\n\taddw %0, %0, %2\n\t"	\
			     "sw %0, %1(tp)"				\
			     : "=&r"(__v) : "i"(off), "rI"((int)(v))	\
			     : "memory");				\
	__v; })
#define arch_this_cpu_add_int(off, v) ((void)__rv_this_cpu_add_int(off, v))
#define arch_this_cpu_add_int_is_zero(off, v) (__rv_this_cpu_add_int(off, v) == 0)

static inline unsigned long arch_irq_save(void)
{
	unsigned long flags;

	__asm__ __volatile__("csrrci %0, sstatus, %1"
			     : "=r"(flags) : "i"(SSTATUS_SIE) : "memory");
	return flags & SSTATUS_SIE;
}

static inline void arch_irq_restore(unsigned long flags)
{
	__asm__ __volatile__("csrs sstatus, %0" :: "r"(flags & SSTATUS_SIE)
			     : "memory");
}

/* Were interrupts on when arch_irq_save() returned @flags? */
static inline bool arch_irqs_enabled_flags(unsigned long flags)
{
	return flags & SSTATUS_SIE;
}

static inline void arch_irq_enable(void)
{
	__asm__ __volatile__("csrsi sstatus, %0" :: "i"(SSTATUS_SIE) : "memory");
}

static inline void arch_irq_disable(void)
{
	__asm__ __volatile__("csrci sstatus, %0" :: "i"(SSTATUS_SIE) : "memory");
}

static inline bool arch_irqs_enabled(void)
{
	unsigned long s;

	__asm__ __volatile__("csrr %0, sstatus" : "=r"(s));
	return s & SSTATUS_SIE;
}

/* Zihintpause's "pause" is an encoding of fence; older cores treat it as
 * a harmless fence, so emit it by value for assemblers without the ext.
 * Under qemu -icount (benchmarks) a spinning hart must give up its turn
 * instead: rv_relax_yield(), time.c. */
extern bool rv_relax_yields;
void rv_relax_yield(void);

struct spinlock;
struct cpu;

/* arch.h.  The thunk, rv_spin_contended (entry.S), is entered with
 * jal t0 and keeps every register but t0.  A compare-and-swap (lr/sc),
 * not amoswap: the word is its holder (spinlock.h), which a swap by a
 * waiter would overwrite. */
static inline __attribute__((always_inline)) void
arch_spin_acquire(struct spinlock *l)
{
	register struct spinlock *a0 __asm__("a0") = l;
	unsigned long v;

	__asm__ __volatile__(
		"1:	lr.d.aq	%0, (%1)\n"
		"	bnez	%0, 2f\n"
		"	sc.d	%0, tp, (%1)\n"
		"	beqz	%0, 3f\n"
		"	j	1b\n"
		"2:	jal	t0, rv_spin_contended\n"
		"3:\n"
		: "=&r"(v)
		: "r"(a0)
		: "t0", "memory");
}

static inline void arch_cpu_relax(void)
{
	if (__builtin_expect(rv_relax_yields, 0))
		rv_relax_yield();
	else
		__asm__ __volatile__(".4byte 0x0100000f" ::: "memory");
}

/* The cycle CSR (OpenSBI opens it to S-mode via mcounteren).  Under
 * qemu -icount it advances with virtual time, so figures repeat. */
static inline uint64_t arch_cycles(void)
{
	uint64_t c;

	__asm__ __volatile__("rdcycle %0" : "=r"(c));
	return c;
}

/* arch_clock_ns() scales the time CSR (the DT timebase). */
static inline uint64_t arch_clock_raw(void)
{
	uint64_t t;

	__asm__ __volatile__("rdtime %0" : "=r"(t));
	return t;
}

static inline void arch_clock_raw_store(uint64_t *dst)
{
	*dst = arch_clock_raw();
}

/* The time CSR at boot (time 0), and nanoseconds per tick when the
 * timebase divides 10^9 (0 otherwise: rv_clock_slow_ns divides).
 * time.c sets them once, before any other hart starts. */
extern uint64_t rv_boot_ticks, rv_ns_per_tick;
uint64_t rv_clock_slow_ns(uint64_t t);

/* Inline: the scheduler reads the clock at every switch and wakeup. */
static inline __attribute__((always_inline)) uint64_t
arch_clock_raw_ns(uint64_t raw)
{
	uint64_t t = raw - rv_boot_ticks;

	if (__builtin_expect(rv_ns_per_tick != 0, 1))
		return t * rv_ns_per_tick;
	return rv_clock_slow_ns(t);
}

static inline uintptr_t arch_frame_address(void)
{
	return (uintptr_t)__builtin_frame_address(0);
}
#endif /* !__ASSEMBLY__ */
#endif
