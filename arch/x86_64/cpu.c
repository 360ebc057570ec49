/*
 * cpu.c - per-CPU descriptor tables (GDT with a TSS for the IST stacks),
 * this_cpu() binding, new-task contexts, idle, halt and power off.
 */
#include "x86.h"
#include "cpu.h"

/* 64-bit code and flat data descriptors (same as the boot GDT). */
#define GDT_CODE64 0x00af9a000000ffffULL
#define GDT_DATA 0x00cf92000000ffffULL
#define TSS_TYPE_AVAILABLE 0x9ULL

/* Build and load @cpu's GDT and TSS, then load the shared IDT.  The IST
 * block at @ist_base holds (low to high) the NMI, #DF and #PF stacks. */
void x86_cpu_tables_init(struct cpu *cpu, uintptr_t ist_base)
{
	struct arch_cpu *a = &cpu->arch;
	uint64_t tss = (uint64_t)&a->tss;
	uint64_t limit = sizeof(a->tss) - 1;
	struct {
		uint16_t limit;
		uint64_t base;
	} __packed gdtr = { sizeof(a->gdt) - 1, (uint64_t)a->gdt };

	a->ist_base = ist_base;
	a->tss.ist[IST_NMI - 1] = ist_base + PAGE_SIZE;
	a->tss.ist[IST_DF - 1] = ist_base + 2 * PAGE_SIZE;
	a->tss.ist[IST_PF - 1] = ist_base + IST_BLOCK_SIZE;
	a->tss.iomap_base = sizeof(a->tss);	/* no I/O bitmap */

	a->gdt[0] = 0;
	a->gdt[KERNEL_CS / 8] = GDT_CODE64;
	a->gdt[KERNEL_DS / 8] = GDT_DATA;
	a->gdt[KERNEL_TSS / 8] = (limit & 0xffff) | ((tss & 0xffffff) << 16) |
		(TSS_TYPE_AVAILABLE << 40) | (1ULL << 47) |
		((limit >> 16 & 0xf) << 48) | ((tss >> 24 & 0xff) << 56);
	a->gdt[KERNEL_TSS / 8 + 1] = tss >> 32;

	/* Reload cs with a far return and ds/es/ss; fs/gs are left alone so
	 * the GS base (this_cpu) survives. */
	__asm__ __volatile__(
		"lgdt %0\n\t"
		"pushq %1\n\t"
		"leaq 1f(%%rip), %%rax\n\t"
		"pushq %%rax\n\t"
		"lretq\n"
		"1:\n\t"
		"movl %2, %%eax\n\t"
		"movl %%eax, %%ds\n\t"
		"movl %%eax, %%es\n\t"
		"movl %%eax, %%ss\n\t"
		"ltr %w3"
		: : "m"(gdtr), "i"(KERNEL_CS), "i"(KERNEL_DS), "r"(KERNEL_TSS)
		: "rax", "memory");
	x86_idt_load();
}

void arch_set_this_cpu(struct cpu *cpu)
{
	cpu->self = cpu;
	wrmsr(MSR_GS_BASE, (uint64_t)cpu);
}

extern char x86_thread_start[];		/* switch.S */

/* The first switch to this task jumps to x86_thread_start (switch.S)
 * with rsp pointing at entry and arg; it pops them and calls entry(arg)
 * with rsp == stack_top, 16-byte aligned as the ABI wants before a
 * call. */
void arch_context_init(struct arch_context *ctx, void *stack_top,
		       void (*entry)(void *arg), void *arg)
{
	uint64_t *sp = (uint64_t *)((uintptr_t)stack_top & ~15UL);

	*--sp = (uint64_t)arg;
	*--sp = (uint64_t)entry;
	ctx->rsp = (uint64_t)sp;
	ctx->rip = (uint64_t)x86_thread_start;
}

/* sti takes effect after the next instruction, so no interrupt can slip
 * in between sti and hlt and be missed: the pair is atomic. */
void arch_idle(void)
{
	__asm__ __volatile__("sti; hlt; cli" : : : "memory");
}

void arch_halt(void)
{
	for (;;)
		__asm__ __volatile__("cli; hlt");
}

/*
 * QEMU's isa-debug-exit (port 0xf4) exits with status (code << 1) | 1.
 * Anywhere else, return and let poweroff() halt with its line: a real
 * PC needs ACPI (the DSDT's \_S5 values, read by an AML interpreter) to
 * power off, and writing guessed PM1a ports (QEMU's 0x604, Bochs' 0xb004)
 * could do anything on a real chipset.
 */
void arch_poweroff(int code)
{
	arch_irq_disable();
	outl(0xf4, (uint32_t)code);
	x86_delay_us(100000);	/* QEMU acts asynchronously: don't claim a halt */
}
