/*
 * arch_impl.h - x86_64 inline half of the arch contract (see arch/arch.h).
 * Only arch.h includes this file; arch-private helpers are in x86.h.
 */
#ifndef ARCH_IMPL_H
#define ARCH_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#define ARCH_NAME "x86_64"

/*
 * Thread stacks live in a canonical lower-half range far above any RAM we
 * identity map (64 TiB), so a stack address is never mistaken for RAM.
 * Size: STACK_SLOTS * STACK_SLOT_SIZE (stack_layout.h) = 32 MiB; the page
 * tables covering it are allocated once by arch_mmu_init.
 */
#define ARCH_STACK_AREA_BASE 0x0000400000000000UL
#define ARCH_STACK_AREA_SIZE 0x0000000002000000UL

/* 64-bit Task State Segment: only the IST pointers are used (no rings). */
struct x86_tss {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
} __attribute__((packed));

/* Per-CPU arch state, embedded in struct cpu (cpu.h). */
struct arch_cpu {
	uint64_t gdt[8];		/* null, code64, data, TSS (2 slots) */
	struct x86_tss tss;
	uintptr_t ist_base;		/* IST stacks: NMI, #DF, #PF (x86.h) */
	volatile int alive;		/* set by the AP, read by arch_cpu_start */
	const void *irq_frame;		/* the timer interrupt's trap frame */
};

/*
 * Switched-out task: its stack pointer and where it resumes.  The switch
 * (arch_context_switch below) pushes only rbp; rbx and r12-r15 are
 * declared clobbered, so the function that switches (__schedule) saves
 * in its own frame just the ones it uses, once, instead of a second
 * copy in a switch routine.  A new task resumes at x86_thread_start
 * with entry and arg on its stack (arch_context_init).
 */
struct arch_context {
	uint64_t rsp;
	uint64_t rip;
};

/*
 * Save the running task's rsp and resume point in @prev, load @next's
 * and jump there.  Interrupts off.  Every register but rsp and rbp is
 * clobbered as far as the compiler knows: the code after the label runs
 * in whatever task switches back to us, much later.  No fence: the
 * generic finish_task_switch() publishes prev->on_cpu = 0 with a
 * release store after we are back in next (x86 is TSO anyway).
 */
static inline __attribute__((always_inline)) void
arch_context_switch(struct arch_context *prev, struct arch_context *next)
{
	__asm__ __volatile__(
		"push	%%rbp\n\t"
		"lea	1f(%%rip), %%rax\n\t"
		"mov	%%rsp, 0(%%rdi)\n\t"
		"mov	%%rax, 8(%%rdi)\n\t"
		"mov	0(%%rsi), %%rsp\n\t"
		"jmp	*8(%%rsi)\n"
		"1:\n\t"
		"pop	%%rbp"
		: "+D"(prev), "+S"(next)
		:
		: "rax", "rbx", "rcx", "rdx", "r8", "r9", "r10", "r11", "r12",
		  "r13", "r14", "r15", "memory", "cc");
}

struct cpu;

/* struct cpu starts with a self pointer and GS base points at it. */
static inline struct cpu *this_cpu(void)
{
	struct cpu *c;
	__asm__ __volatile__("movq %%gs:0, %0" : "=r"(c));
	return c;
}

/* One field of this CPU's struct cpu, in one instruction (see arch.h). */
#define arch_this_cpu_read_ulong(off) ({				\
	unsigned long __v;						\
	__asm__ __volatile__("movq %%gs:%c1, %0" : "=r"(__v) : "i"(off)); \
	__v; })
#define arch_this_cpu_read_int(off) ({					\
	int __v;							\
	__asm__ __volatile__("movl %%gs:%c1, %0" : "=r"(__v) : "i"(off)); \
	__v; })
#define arch_this_cpu_read_u8(off) ({					\
	uint8_t __v;							\
	__asm__ __volatile__("movb %%gs:%c1, %0" : "=q"(__v) : "i"(off)); \
	__v; })
/* Add @v to the int at @off; the second says whether it became 0
 * (arch.h).  One instruction: the flags are its result. */
#define arch_this_cpu_add_int(off, v)					\
	__asm__ __volatile__("addl %1, %%gs:%c0"			\
			     : : "i"(off), "ri"((int)(v)) : "cc", "memory")
#define arch_this_cpu_add_int_is_zero(off, v) ({			\
	bool __z;							\
	__asm__ __volatile__("addl %2, %%gs:%c1"			\
			     : "=@ccz"(__z) : "i"(off), "ri"((int)(v))	\
			     : "memory");				\
	__z; })

#define X86_RFLAGS_IF (1UL << 9)

static inline unsigned long arch_irq_save(void)
{
	unsigned long flags;
	__asm__ __volatile__("pushfq; popq %0; cli" : "=r"(flags) : : "memory");
	return flags;
}

static inline void arch_irq_restore(unsigned long flags)
{
	if (flags & X86_RFLAGS_IF)
		__asm__ __volatile__("sti" : : : "memory");
}

/* Were interrupts on when arch_irq_save() returned @flags? */
static inline bool arch_irqs_enabled_flags(unsigned long flags)
{
	return flags & X86_RFLAGS_IF;
}

static inline void arch_irq_enable(void)
{
	__asm__ __volatile__("sti" : : : "memory");
}

static inline void arch_irq_disable(void)
{
	__asm__ __volatile__("cli" : : : "memory");
}

static inline bool arch_irqs_enabled(void)
{
	unsigned long flags;
	__asm__ __volatile__("pushfq; popq %0" : "=r"(flags));
	return flags & X86_RFLAGS_IF;
}

struct spinlock;
struct cpu;

/* arch.h.  The thunk, x86_spin_contended (switch.S), keeps every
 * register and takes its arguments where __spin_lock_contended() does
 * (rdi, rsi).  A compare-and-swap, not a swap: the word is its holder
 * (spinlock.h), which a swap by a waiter would overwrite. */
static inline __attribute__((always_inline)) void
arch_spin_acquire(struct spinlock *l)
{
	unsigned long v = 0;			/* expected: free */
	struct cpu *c = this_cpu();

	__asm__ __volatile__(
		"	lock cmpxchg %2, (%1)\n"
		"	jz	1f\n"
		"	call	x86_spin_contended\n"
		"1:\n"
		: "+a"(v)
		: "D"(l), "S"(c)
		: "cc", "memory");
}

static inline void arch_cpu_relax(void)
{
	/* Under QEMU TCG `pause` also hands the host thread to another vCPU,
	 * which keeps single-threaded (-icount) runs moving. */
	__asm__ __volatile__("pause" : : : "memory");
}

static inline uint64_t arch_cycles(void)
{
	uint32_t lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* arch_clock_ns() scales the TSC. */
static inline uint64_t arch_clock_raw(void)
{
	return arch_cycles();
}

/* The halves as rdtsc leaves them (little-endian): no shift and or. */
static inline void arch_clock_raw_store(uint64_t *dst)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	((uint32_t *)dst)[0] = lo;
	((uint32_t *)dst)[1] = hi;
}

/* The TSC at calibration (time 0) and nanoseconds per tick in 32.32
 * fixed point (apic.c sets both once, before any other CPU starts). */
extern uint64_t x86_tsc_boot, x86_ns_per_tsc;

/* Inline: the scheduler reads the clock at every switch and wakeup. */
static inline uint64_t arch_clock_raw_ns(uint64_t raw)
{
	return ((unsigned __int128)(raw - x86_tsc_boot) * x86_ns_per_tsc) >> 32;
}

static inline uintptr_t arch_frame_address(void)
{
	return (uintptr_t)__builtin_frame_address(0);
}

#endif /* ARCH_IMPL_H */
