/*
 * trap.c - RISC-V trap dispatch (called from entry.S with interrupts off),
 * fault reports, and the frame-pointer backtrace.
 */
#include "cpu.h"
#include "errno.h"
#include "printf.h"
#include "mm.h"
#include "rv.h"
#include "sched.h"
#include "trace.h"

void rv_trap_init_hart(uintptr_t emergency_stack_top)
{
	csr_write(sscratch, emergency_stack_top);
	csr_write(stvec, (uintptr_t)rv_trap_entry);	/* direct mode */
}

static const char *const exc_names[] = {
	[0] = "instruction address misaligned",
	[1] = "instruction access fault",
	[2] = "illegal instruction",
	[3] = "breakpoint",
	[4] = "load address misaligned",
	[5] = "load access fault",
	[6] = "store address misaligned",
	[7] = "store access fault",
	[8] = "ecall from U-mode",
	[9] = "ecall from S-mode",
	[12] = "instruction page fault",
	[13] = "load page fault",
	[15] = "store page fault",
};

static const char *const reg_names[31] = {
	"ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1",
	"a2", "a3", "a4", "a5", "a6", "a7", "s2", "s3", "s4", "s5", "s6",
	"s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
};

static const char *cause_name(uint64_t cause)
{
	if (cause < ARRAY_SIZE(exc_names) && exc_names[cause])
		return exc_names[cause];
	return "unknown exception";
}

/* Register dump and backtrace of the trapped context. */
static void dump_trap(struct trap_frame *tf)
{
	printk("trap: %s (scause %lx) sepc %lx stval %lx sstatus %lx\n",
	       cause_name(tf->scause), (unsigned long)tf->scause,
	       (unsigned long)tf->sepc, (unsigned long)tf->stval,
	       (unsigned long)tf->sstatus);
	for (int i = 0; i < 31; i += 4) {
		char line[128];
		int n = 0;

		for (int j = i; j < i + 4 && j < 31; j++)
			n += snprintf(line + n, sizeof(line) - n, " %3s %016lx",
				      reg_names[j], (unsigned long)tf->x[j]);
		printk("%s\n", line);
	}
	printk("trapped code's backtrace:\n");
	printk("  [<%p>]\n", (void *)tf->sepc);
	arch_backtrace(tf->x[7]);		/* s0 */
}

static bool is_page_fault(uint64_t cause)
{
	return cause == 12 || cause == 13 || cause == 15;
}

/* Out of line and cold: inlined, its register dump made rv_trap() save
 * every callee-saved register on every interrupt. */
static __attribute__((noinline, cold)) void handle_exception(struct trap_frame *tf)
{
	uintptr_t sp = tf->x[1];
	int slot = stack_guard_slot(sp);

	if (slot < 0 && is_page_fault(tf->scause))
		slot = stack_guard_slot(tf->stval);
	dump_trap(tf);
	if (slot >= 0)
		panic("stack overflow in task '%s' (sp %lx, fault at %lx)",
		      stack_owner_name(slot), (unsigned long)sp,
		      (unsigned long)tf->stval);
	panic("unhandled %s at %lx (stval %lx)", cause_name(tf->scause),
	      (unsigned long)tf->sepc, (unsigned long)tf->stval);
}

void rv_trap(struct trap_frame *tf)
{
	uint64_t cause = tf->scause;

	if (!(cause & SCAUSE_INTR)) {
		handle_exception(tf);
		return;
	}
	cause &= ~SCAUSE_INTR;
	trace_irq_entry(&tf->sepc);
	irq_enter();
	if (cause == IRQ_S_TIMER) {
		rv_timer_irq_ack();
		/* For arch_irq_callchain(): valid while in_interrupt()
		 * (interrupts do not nest here); an IPI clears it. */
		this_cpu()->arch.irq_frame = tf;
		timer_interrupt();
	} else if (cause == IRQ_S_SOFT) {
		this_cpu()->arch.irq_frame = NULL;
		/* Clear before handling: an IPI sent while we handle this
		 * one sets SSIP again and is not lost. */
		csr_clear(sip, SIE_SSIE);
		ipi_interrupt();
	} else if (cause == IRQ_S_EXT) {
		this_cpu()->arch.irq_frame = NULL;
		rv_plic_irq();
	} else {
		panic("unexpected interrupt %lu", (unsigned long)cause);
	}
	irq_exit();
}

/* May the backtrace read the 16 bytes below @fp? */
static bool frame_readable(uintptr_t fp)
{
	if (fp < 16 || (fp & 7))
		return false;
	if (rv_satp)	/* paging on: ask the page table */
		return arch_virt_to_phys(fp - 16) && arch_virt_to_phys(fp - 8);
	return rv_addr_is_ram(fp - 16);
}

/*
 * gcc's RISC-V frame with -fno-omit-frame-pointer: s0 (fp) is the stack
 * pointer at function entry, the return address is at fp - 8 and the
 * caller's fp at fp - 16.  Callers' frames are higher up the stack.
 */
void arch_backtrace(uintptr_t fp)
{
	for (int depth = 0; depth < 32 && frame_readable(fp); depth++) {
		uintptr_t ra = ((uintptr_t *)fp)[-1];
		uintptr_t next = ((uintptr_t *)fp)[-2];

		if (ra == 0)
			break;
		printk("  [<%p>]\n", (void *)ra);
		if (next <= fp)
			break;
		fp = next;
	}
}

static bool is_text(uintptr_t pc)
{
	extern char __text_start[], __text_end[];

	return pc >= (uintptr_t)__text_start && pc < (uintptr_t)__text_end;
}

/*
 * As arch_backtrace, but inside the running task's stack only (no
 * page-table walk; an idle task on its boot stack gives its PC only),
 * and a leaf function (one that calls nothing) saves no ra: its frame
 * holds only the caller's s0, at fp - 8.  Interrupted there, fp - 8 is
 * not code but a frame pointer above fp; then the caller's return
 * address is still in the ra register (Linux's RISC-V unwinder does the
 * same).
 */
int arch_irq_callchain(uintptr_t *pc, int max)
{
	const struct trap_frame *tf = this_cpu()->arch.irq_frame;
	const struct task *cur = current_task();
	uintptr_t lo = cur ? cur->stack_base : 0;
	uintptr_t hi = lo + TASK_STACK_PAGES * PAGE_SIZE;
	uintptr_t fp;
	int n = 0;

#define IN_STACK(a) (lo && (a) >= lo + 16 && (a) <= hi && !((a) & 7))
	if (!tf || !in_interrupt() || max < 1)
		return 0;
	pc[n++] = tf->sepc;
	fp = tf->x[7];					/* s0 */
	if (n < max && IN_STACK(fp)) {
		uintptr_t saved = ((uintptr_t *)fp)[-1];

		if (!is_text(saved) && saved > fp && IN_STACK(saved)) {
			pc[n++] = tf->x[0];		/* ra */
			fp = saved;
		}
	}
	while (n < max && IN_STACK(fp)) {
		uintptr_t ra = ((uintptr_t *)fp)[-1];
		uintptr_t next = ((uintptr_t *)fp)[-2];

		if (!is_text(ra))
			break;
		pc[n++] = ra;
		if (next <= fp)
			break;
		fp = next;
	}
#undef IN_STACK
	return n;
}

/* S-mode has no NMI: the profiler samples from timer interrupts. */
int arch_profile_nmi_start(uint64_t period_ns)
{
	(void)period_ns;
	return -ENODEV;
}

void arch_profile_nmi_stop(void)
{
}
