/*
 * trap.c - the IDT, interrupt dispatch, exception reports and backtraces.
 *
 * Every vector enters through entry.S and arrives in x86_trap() with
 * interrupts disabled (all gates are interrupt gates).  Device interrupts
 * go to the generic layer (irq_enter / handler / EOI / irq_exit).  Every
 * exception is fatal in this kernel: we print what the CPU told us and
 * panic.  NMI, #DF and #PF run on per-CPU IST stacks, so a kernel stack
 * that overflows into its guard page still gets a readable report.
 */
#include "x86.h"
#include "cpu.h"
#include "sched.h"
#include "mm.h"
#include "trace.h"
#include "i8042.h"
#include "uart16550.h"

struct idt_entry {
	uint16_t offset_lo;
	uint16_t selector;
	uint8_t ist;
	uint8_t type_attr;
	uint16_t offset_mid;
	uint32_t offset_hi;
	uint32_t zero;
} __packed;

#define IDT_INTERRUPT_GATE 0x8e		/* present, DPL 0, 64-bit intr gate */

static struct idt_entry idt[256] __aligned(16);

static const char *const exception_names[32] = {
	"#DE divide error", "#DB debug", "NMI", "#BP breakpoint",
	"#OF overflow", "#BR bound range exceeded", "#UD invalid opcode",
	"#NM device not available", "#DF double fault",
	"coprocessor segment overrun", "#TS invalid TSS",
	"#NP segment not present", "#SS stack-segment fault",
	"#GP general protection", "#PF page fault", "reserved 15",
	"#MF x87 floating point", "#AC alignment check", "#MC machine check",
	"#XM SIMD floating point", "#VE virtualization",
	"#CP control protection", "reserved 22", "reserved 23", "reserved 24",
	"reserved 25", "reserved 26", "reserved 27", "#HV hypervisor injection",
	"#VC VMM communication", "#SX security", "reserved 31",
};

void x86_idt_init(void)
{
	for (int v = 0; v < 256; v++) {
		uint64_t h = (uint64_t)(x86_trap_stubs + 16 * v);
		struct idt_entry *e = &idt[v];

		e->offset_lo = h & 0xffff;
		e->selector = KERNEL_CS;
		e->ist = 0;
		e->type_attr = IDT_INTERRUPT_GATE;
		e->offset_mid = (h >> 16) & 0xffff;
		e->offset_hi = h >> 32;
		e->zero = 0;
	}
	idt[2].ist = IST_NMI;
	idt[8].ist = IST_DF;
	idt[14].ist = IST_PF;
}

void x86_idt_load(void)
{
	struct {
		uint16_t limit;
		uint64_t base;
	} __packed idtr = { sizeof(idt) - 1, (uint64_t)idt };

	__asm__ __volatile__("lidt %0" : : "m"(idtr));
}

/* A frame pointer we may dereference: 8-aligned and mapped (RAM, a
 * mapped stack page).  Page-table walk, so it is safe in a fault path. */
static bool frame_readable(uintptr_t fp)
{
	return fp && !(fp & 7) && arch_virt_to_phys(fp) &&
	       arch_virt_to_phys(fp + 8);
}

void arch_backtrace(uintptr_t fp)
{
	for (int depth = 0; depth < 32 && frame_readable(fp); depth++) {
		const uint64_t *frame = (const uint64_t *)fp;

		if (!frame[1])
			break;
		printk("  [<%p>]\n", (void *)frame[1]);
		fp = frame[0];
	}
}

/*
 * The PC @f interrupted, then its callers' return addresses.  The walk
 * stays inside the running task's stack (no page-table walk: this runs
 * in an NMI, every few microseconds); a task without one of its own (an
 * idle task on its boot stack) gives its PC only.
 */
int x86_callchain(const struct trap_frame *f, uintptr_t *pc, int max)
{
	const struct task *cur = current_task();
	uintptr_t fp, lo = cur ? cur->stack_base : 0;
	uintptr_t hi = lo + TASK_STACK_PAGES * PAGE_SIZE;
	int n = 0;

	if (!f || max < 1)
		return 0;
	pc[n++] = f->rip;
	for (fp = f->rbp; lo && n < max && fp >= lo && fp + 16 <= hi &&
	     !(fp & 7);) {
		const uint64_t *frame = (const uint64_t *)fp;

		if (!frame[1])
			break;
		pc[n++] = frame[1];
		if (frame[0] <= fp)	/* callers' frames are higher up */
			break;
		fp = frame[0];
	}
	return n;
}

int arch_irq_callchain(uintptr_t *pc, int max)
{
	return x86_callchain(this_cpu()->arch.irq_frame, pc, max);
}

static void dump_frame(const struct trap_frame *f)
{
	printk("RIP %016lx CS %04lx RFLAGS %016lx\n", f->rip, f->cs, f->rflags);
	printk("RSP %016lx SS %04lx ERROR %016lx\n", f->rsp, f->ss, f->error);
	printk("RAX %016lx RBX %016lx RCX %016lx\n", f->rax, f->rbx, f->rcx);
	printk("RDX %016lx RSI %016lx RDI %016lx\n", f->rdx, f->rsi, f->rdi);
	printk("RBP %016lx R8  %016lx R9  %016lx\n", f->rbp, f->r8, f->r9);
	printk("R10 %016lx R11 %016lx R12 %016lx\n", f->r10, f->r11, f->r12);
	printk("R13 %016lx R14 %016lx R15 %016lx\n", f->r13, f->r14, f->r15);
	printk("CR0 %016lx CR3 %016lx CR4 %016lx\n", read_cr0(), read_cr3(),
	       read_cr4());
}

static __noreturn void exception(struct trap_frame *f)
{
	const char *name = exception_names[f->vector];
	uint64_t cr2 = read_cr2();

	printk("%s (vector %lu, error code 0x%lx) at RIP %p\n", name,
	       f->vector, f->error, (void *)f->rip);
	if (f->vector == 14)
		printk("CR2 %016lx (%s, %s, %s)\n", cr2,
		       f->error & 1 ? "protection violation" : "not present",
		       f->error & 2 ? "write" : "read",
		       f->error & 16 ? "instruction fetch" : "data");
	dump_frame(f);
	printk("Call trace:\n  [<%p>]\n", (void *)f->rip);
	arch_backtrace(f->rbp);

	if (f->vector == 14) {
		int slot = stack_guard_slot(cr2);

		if (slot >= 0)
			panic("stack overflow in task '%s' (guard page %p hit at RIP %p)",
			      stack_owner_name(slot), (void *)cr2,
			      (void *)f->rip);
		panic("%s at RIP %p accessing %p", name, (void *)f->rip,
		      (void *)cr2);
	}
	panic("%s at RIP %p", name, (void *)f->rip);
}

/* entry.S's irq_common writes the frame by these offsets. */
_Static_assert(offsetof(struct trap_frame, r11) == 4 * 8 &&
	       offsetof(struct trap_frame, rbp) == 8 * 8 &&
	       offsetof(struct trap_frame, rax) == 14 * 8 &&
	       offsetof(struct trap_frame, rip) == 17 * 8,
	       "struct trap_frame and entry.S disagree");

void x86_trap(struct trap_frame *f)
{
	/* The timer first: the one on every wakeup's path (a switch would
	 * test the other vectors before it). */
	if (__builtin_expect(f->vector == TIMER_VECTOR, 1)) {
		struct cpu *c = this_cpu();

		trace_irq_entry(&f->rip);
		irq_enter();
		c->arch.irq_frame = f;			/* arch_irq_callchain */
		timer_interrupt();
		c->arch.irq_frame = NULL;
		x86_lapic_eoi();
		irq_exit();
		return;
	}
	switch (f->vector) {
	case IPI_VECTOR:
		trace_irq_entry(&f->rip);
		irq_enter();
		ipi_interrupt();
		x86_lapic_eoi();
		irq_exit();
		return;
	case COM1_VECTOR:
		trace_irq_entry(&f->rip);
		irq_enter();
		uart16550_irq(x86_com1());
		x86_lapic_eoi();
		irq_exit();
		return;
	case KEYBOARD_VECTOR:
		trace_irq_entry(&f->rip);
		irq_enter();
		i8042_irq(x86_keyboard());
		x86_lapic_eoi();
		irq_exit();
		return;
	case SPURIOUS_VECTOR:
		return;			/* no EOI for the spurious vector */
	case 2:				/* NMI */
		if (x86_profile_nmi(f))
			return;
		break;
	}
	if (f->vector < 32)
		exception(f);
	if (f->vector < PIC_VECTOR_BASE + 16) {
		/* A masked 8259 can still raise a spurious IRQ 7 / 15; the
		 * slave's also needs an EOI to the master. */
		if (f->vector == PIC_VECTOR_BASE + 15)
			outb(0x20, 0x20);
		return;
	}
	printk("unexpected interrupt vector %lu\n", f->vector);
	x86_lapic_eoi();
}
