/*
 * arch.h - the whole contract between generic code and an architecture.
 *
 * Generic code (kernel/, lib/, drivers/, tests/) includes only this header
 * for anything architecture specific.  Each architecture implements it in
 * arch/<arch>/ and provides the small inline helpers in its own
 * arch/<arch>/include/arch_impl.h, which only this file includes.
 *
 * Naming tiers: public kernel API has plain names (printk, thread_create);
 * this contract is arch_*; helpers private to one arch are static or carry
 * the arch's prefix (x86_*, rv_*).
 *
 * Unless a function says otherwise it may be called with interrupts enabled
 * or disabled, from task or interrupt context, on any CPU.
 */
#ifndef ARCH_H
#define ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cpu;
struct boot_info;

/*
 * arch_impl.h must define:
 *   struct arch_cpu        per-CPU arch state, embedded in struct cpu
 *   struct arch_context    callee-saved registers + stack pointer of a
 *                          switched-out task, embedded in struct task
 *   ARCH_NAME              "x86_64" / "riscv64"
 *   static inline struct cpu *this_cpu(void)     one instruction (gs / tp),
 *                          volatile asm: never cached across a switch
 *   arch_this_cpu_read_ulong(off), arch_this_cpu_read_int(off)
 *                          the field at constant offset @off of this
 *                          CPU's struct cpu, read in ONE instruction, so
 *                          no migration can split "which CPU" from "read"
 *                          (cpu.h's current_task() needs no irq masking)
 *   arch_this_cpu_read_u8(off)  the same for a byte (a bool)
 *   arch_this_cpu_add_int(off, v), arch_this_cpu_add_int_is_zero(off, v)
 *                          add @v to the int at @off of this CPU's struct
 *                          cpu (the second: and say whether it is 0 now),
 *                          without first copying the CPU's pointer to a
 *                          register (the preempt count: spin_lock_raw(),
 *                          irq_enter(), irq_exit()); maybe a load, an add
 *                          and a store (riscv64), so only for a field an
 *                          interrupt leaves as it found it, with no
 *                          migration possible in between (interrupts off,
 *                          or the count already above 0)
 *   static inline unsigned long arch_irq_save(void)
 *   static inline void arch_irq_restore(unsigned long flags)
 *   static inline bool arch_irqs_enabled_flags(unsigned long flags)
 *                          were interrupts on when arch_irq_save()
 *                          returned @flags?
 *   static inline void arch_irq_enable(void)
 *   static inline void arch_irq_disable(void)
 *   static inline bool arch_irqs_enabled(void)
 *   static inline void arch_cpu_relax(void)      pause hint in spin loops
 *                                                (under qemu -icount it must
 *                                                end the vCPU's turn)
 *   static inline uint64_t arch_cycles(void)     raw cycle/time counter
 *                                                (rdtsc / rdcycle) for benches
 *   static inline uint64_t arch_clock_raw(void)  the counter arch_clock_ns()
 *                                                scales (rdtsc / rdtime),
 *                                                for cheap timestamps
 *   static inline void arch_clock_raw_store(uint64_t *dst)
 *                                                *dst = arch_clock_raw(), in
 *                                                the fewest instructions (x86:
 *                                                rdtsc's two halves stored as
 *                                                they come; the trace record)
 *   static inline uint64_t arch_clock_raw_ns(uint64_t raw)
 *                                                (see "Time" below)
 *   static inline uintptr_t arch_frame_address(void)  __builtin_frame_address(0)
 *   static inline void arch_spin_acquire(struct spinlock *l)
 *                          spin_lock_raw()'s compare-and-swap (cpu.h): l->locked
 *                          (offset 0, a machine word) from 0 to this_cpu()
 *                          with acquire ordering; if it was held, wait in
 *                          __spin_lock_contended(l, this_cpu()) through an
 *                          asm thunk
 *                          that keeps every register the caller may use,
 *                          so that the compiler sees no call (a function
 *                          whose only call was that wait saves no
 *                          registers)
 */
#include <arch_impl.h>

/* ---- Boot -------------------------------------------------------------
 *
 * Boot order on the boot CPU:
 *   arch entry -> arch early init (console, traps, boot_info, this_cpu for
 *   CPU 0) -> kmain(&boot_info)                          [kernel/main.c]
 * kmain initialises the page allocator, then calls arch_mmu_init(), then
 * the heap, scheduler, timers, and finally starts the other CPUs with
 * arch_cpu_start().  Each secondary CPU runs its arch init and then calls
 * secondary_main(cpu)                                     [kernel/cpu.c]
 * with interrupts disabled, its stack set to the idle stack it was given
 * and this_cpu() == cpu.
 *
 * Logical CPU ids are 0..ncpus-1; CPU 0 is the CPU that booted (on RISC-V
 * whatever hart OpenSBI chose).  struct cpu.arch_id holds the APIC id or
 * hart id.
 */
void kmain(struct boot_info *bi) __attribute__((noreturn));
void secondary_main(struct cpu *cpu) __attribute__((noreturn));

/*
 * Start logical CPU @cpu (cpu->arch_id is already set from boot_info).
 * It begins on @stack_top (top of the idle task's stack, 16-byte aligned)
 * and calls secondary_main(cpu).  Returns 0 once the CPU has been told to
 * start, or a negative error if the hardware/firmware refused (the caller
 * then marks the CPU absent).  Task context, boot CPU only.
 */
int arch_cpu_start(struct cpu *cpu, void *stack_top);

/* Bind @cpu to the running CPU so that this_cpu() returns it, and set
 * cpu->self = cpu.  Called once per CPU, first thing, before printk or
 * anything else uses this_cpu().  Trap entry/exit must never reload the
 * per-CPU register (tp) from a saved frame: a preempted task may resume on
 * another CPU. */
void arch_set_this_cpu(struct cpu *cpu);

/* ---- Memory -----------------------------------------------------------
 *
 * Memory model (both arches): all RAM and device registers are identity
 * mapped (virtual == physical), with page 0 unmapped.  Kernel text is
 * read-only+executable, rodata read-only, data/bss/RAM read-write and
 * never executable.  The only non-identity mappings are made through
 * arch_map_page(), used for thread stacks with guard pages in the region
 * [ARCH_STACK_AREA_BASE, ARCH_STACK_AREA_BASE + ARCH_STACK_AREA_SIZE).
 */
#define PAGE_SIZE 4096UL
#define PAGE_SHIFT 12

enum {
	MAP_READ = 1 << 0,
	MAP_WRITE = 1 << 1,
	MAP_EXEC = 1 << 2,
	MAP_DEVICE = 1 << 3,	/* uncached device memory */
};

/*
 * Build the kernel page tables (identity map of every boot_info memory
 * region and device region, kernel sections with the permissions above)
 * and switch this CPU to them.  Page-table pages come from page_alloc().
 * Boot CPU, once, after page_alloc_init().  Secondary CPUs switch to the
 * same tables in their own arch init.
 */
void arch_mmu_init(struct boot_info *bi);

/*
 * Map one 4 KiB page at @va (inside the stack area) to physical @pa with
 * MAP_* @flags.  Usable from every CPU when it returns (an arch whose
 * TLBs may cache invalid entries repairs a stale miss in its fault path,
 * as RISC-V does, instead of a remote fence on every map).  Returns 0 or
 * -ENOMEM.  Task context.  Mappings in the stack area are never removed
 * (stack slots are recycled with their pages), so no shootdown is needed.
 */
int arch_map_page(uintptr_t va, uintptr_t pa, unsigned flags);

/* Physical address behind @va, or 0 if unmapped.  For tests and dumps. */
uintptr_t arch_virt_to_phys(uintptr_t va);

/* ---- Interrupts, traps ------------------------------------------------
 *
 * The arch owns the trap entry.  It calls, with interrupts disabled:
 *   irq_enter();  timer_interrupt();  irq_exit();   local timer fired
 *   irq_enter();  ipi_interrupt();    irq_exit();   an IPI arrived
 * irq_exit() may switch tasks (preemption at interrupt exit); the arch
 * must then resume the interrupted context when this task runs again.
 * A fault the kernel does not handle prints the trap frame (registers,
 * fault address) and a backtrace, then panic()s; a fault on a stack guard
 * page says "stack overflow in task '<name>'" (stack_guard_slot()).
 */
/* irq_enter() and irq_exit() are inline, in cpu.h.  Before irq_enter(),
 * the arch calls trace_irq_entry() (below, "Restartable trace records"). */
void timer_interrupt(void);
void ipi_interrupt(void);

/*
 * Route the console UART's interrupt to the boot CPU (IOAPIC / PLIC) and
 * turn on its receive interrupt, so that input goes through the ring of
 * kernel/console.c; where that cannot be done (no IOAPIC, no PLIC, a
 * UART without an interrupt), print one line saying why and leave the
 * console polled.  The handler runs irq_enter(); the driver's handler;
 * irq_exit(), like the timer's.  Boot CPU, once, after sched_init() and
 * arch_mmu_init() (the controller's registers are mapped), interrupts
 * off.
 */
void arch_console_irq_init(void);

/*
 * Restartable trace records.  The mutex fast paths' acquire and release
 * records (kernel/include/trace.h) are arch code, arch/<arch>/trace_rec.c:
 *   void arch_trace_mutex_acquire(struct task *p, struct mutex *m);
 *   void arch_trace_mutex_release(struct task *p, struct mutex *m);
 * They are called whether recording is on or not: each first looks at
 * trace_enabled (and returns if it is false), then writes one record as
 * kernel/trace/ring.h says, with interrupts on, in section
 * .text.trace_rseq, and lists {first instruction, the one after the
 * publishing store} in section trace_rseq_table.  The look is inside
 * that region, so an interrupt there makes the record look again
 * (trace_set_enabled() relies on it to wait for records).  Until that
 * store it writes no argument register and no memory but its slot and
 * the reservation.  The trap entry calls trace_irq_entry(&saved_pc) for
 * every interrupt before irq_enter(): a PC inside moves back to the
 * start, and the record is written again when the task resumes.  A
 * mutex whose m->trace_name is NULL goes to __trace_mutex_acquire/
 * release() (C, masked) with the remaining arguments 0.
 */

/* Print a backtrace (one "  [<pc>] " line per frame) starting at frame
 * pointer @fp; stops at a NULL/unaligned/unmapped frame or after 32
 * frames.  Used by panic() and by the arch's own trap dump, which prints
 * the register dump first.  Kernel is built with frame pointers. */
void arch_backtrace(uintptr_t fp);

/* For the profiler (kernel/profile.c), from a timer callback: the PC the
 * current timer interrupt interrupted, then the return addresses of its
 * callers (frame pointers), at most @max in all; returns how many.  The
 * arch keeps a pointer to the timer interrupt's trap frame for this (one
 * store per timer interrupt).  0 outside a timer interrupt. */
int arch_irq_callchain(uintptr_t *pc, int max);
/* The profiler's NMI source: every online CPU takes an NMI every
 * @period_ns and passes its call chain to profile_record().  -ENODEV
 * where the arch has none (RISC-V), -EINVAL for a period it cannot do:
 * then the profiler uses timers.  Task context. */
int arch_profile_nmi_start(uint64_t period_ns);
void arch_profile_nmi_stop(void);

/* Enable interrupts and halt until the next one, atomically (sti;hlt /
 * wfi with the timer armed).  Called by the idle task with interrupts
 * disabled; returns with interrupts disabled.  Never spins: under
 * qemu -icount a spinning CPU stalls every other CPU. */
void arch_idle(void);

/* Stop this CPU forever with interrupts off (used by panic and poweroff on
 * the CPUs that are not the one powering off). */
void arch_halt(void) __attribute__((noreturn));

/* Power the machine off.  Under QEMU it exits with a status the host can
 * see: arch_poweroff(0) is success, anything else is failure (x86 maps
 * through isa-debug-exit: QEMU exit status (code<<1)|1; RISC-V uses SBI SRST
 * shutdown for 0 and SRST with a failure reason / sifive test device
 * otherwise).  The runner documents the mapping.  Returns, interrupts
 * off, where nothing could switch the machine off (no SRST shutdown on
 * the firmware, no exit device on a PC): generic code calls it through
 * poweroff() (power.h), which then halts every CPU and says so. */
void arch_poweroff(int code);

/* ---- IPIs -------------------------------------------------------------
 * Send the IPI interrupt to logical CPU @cpu.  The generic layer keeps the
 * reason in cpu->ipi_pending, so there is only one IPI kind per arch. */
void arch_send_ipi(struct cpu *cpu);

/* ---- Time ------------------------------------------------------------
 * arch_clock_ns(): monotonic nanoseconds since boot, consistent across
 * CPUs (TSC calibrated against the PIT / RISC-V time CSR at the DT
 * timebase-frequency).
 * arch_timer_arm(): program this CPU's one-shot timer to fire at absolute
 * time @deadline_ns (in the past: fire as soon as possible): not before
 * it, and as little after it as the hardware allows (timer.c treats an
 * early interrupt as a spurious one; a late one is latency).  Re-arming
 * replaces the previous deadline.  Interrupts disabled.
 * arch_clock_raw_ns(): what arch_clock_ns() returns when arch_clock_raw()
 * reads @raw (so arch_clock_ns() == arch_clock_raw_ns(arch_clock_raw())):
 * record the raw counter where every instruction counts, convert later. */
/* arch_clock_raw_ns() is static inline in arch_impl.h (a few instructions,
 * on every switch); so, from it, is arch_clock_ns(): */
static inline __attribute__((always_inline)) uint64_t arch_clock_ns(void)
{
	return arch_clock_raw_ns(arch_clock_raw());
}
void arch_timer_arm(uint64_t deadline_ns);

/* ---- Context switch -------------------------------------------------
 *
 * arch_context_init(): prepare @ctx so that the first switch to it runs
 * entry(arg) on the stack ending at @stack_top, with interrupts disabled.
 * entry must never return.
 *
 * arch_context_switch(prev, next), static inline in arch_impl.h: store the
 * running task's stack pointer and resume point (and its frame pointer)
 * in @prev, load @next's and continue in @next.  It is inline asm that
 * declares every other callee-saved register clobbered, so the calling
 * function saves in its own frame the ones it uses, once (a switch
 * routine that saved them all again cost riscv64 29 instructions).
 * Called with interrupts disabled and the runqueue lock held.  When it
 * continues in next, nothing of prev's state is used any more; all of
 * prev's registers were stored before the stack switch.  The generic code publishes that
 * prev may run elsewhere with a release store to prev->on_cpu = 0 in
 * finish_task_switch() (the switch itself has no fence), so another CPU
 * must observe on_cpu == 0 (acquire) before it switches to prev.
 */
void arch_context_init(struct arch_context *ctx, void *stack_top,
		       void (*entry)(void *arg), void *arg);
/* arch_context_switch(prev, next): static inline in arch_impl.h. */

/*
 * Test hook for the context-switch test: load a distinct pattern into
 * every callee-saved register (rbx rbp r12-r15 / s0-s11), call fn(arg)
 * (which switches to other tasks and back), and check each register
 * still holds its pattern.  Returns 0, or the 1-based index of the first
 * register that changed.  Task context.
 */
int arch_check_callee_saved(void (*fn)(void *), void *arg);

/* ---- Console -------------------------------------------------------
 * The arch's early init registers the boot console (see console.h);
 * nothing here. */

#endif /* ARCH_H */
