/*
 * plic.c - the RISC-V Platform-Level Interrupt Controller, for the
 * console UART's interrupt only: its source goes to the boot hart's
 * S-mode context (dt.c found both), SIE.SEIE is set on the boot hart,
 * and the trap handler claims, runs the UART's handler and completes.
 *
 * Register layout (the PLIC spec; QEMU virt and SiFive boards): a
 * priority word per source, an enable bit array per context, and per
 * context a threshold and the claim/complete register.  A source is
 * delivered to a context when it is enabled there and its priority is
 * above the context's threshold.
 */
#include "cpu.h"
#include "rv.h"

#define PLIC_PRIORITY(src) (4 * (src))
#define PLIC_ENABLE(ctx, src) (0x2000 + 0x80 * (ctx) + 4 * ((src) / 32))
#define PLIC_THRESHOLD(ctx) (0x200000 + 0x1000 * (ctx))
#define PLIC_CLAIM(ctx) (0x200004 + 0x1000 * (ctx))

static inline volatile uint32_t *plic_reg(uintptr_t off)
{
	return (volatile uint32_t *)(rv_plat.plic_base + off);
}

void arch_console_irq_init(void)
{
	uint32_t src = rv_plat.uart_irq, ctx = rv_plat.plic_ctx;

	if (!src) {
		printk("riscv: console input polled: %s\n",
		       rv_plat.plic_why ? rv_plat.plic_why :
		       "no UART interrupt");
		return;
	}
	/* Interrupts are still off here: the UART may ask first. */
	if (!rv_console_irq_on()) {
		printk("riscv: console input polled (the SBI console)\n");
		return;
	}
	*plic_reg(PLIC_PRIORITY(src)) = 1;
	*plic_reg(PLIC_ENABLE(ctx, src)) |= 1u << (src % 32);
	*plic_reg(PLIC_THRESHOLD(ctx)) = 0;
	csr_set(sie, SIE_SEIE);
	printk("riscv: console input by interrupt: PLIC source %u, context "
	       "%u (hart %lu)\n", src, ctx,
	       (unsigned long)this_cpu()->arch.hartid);
}

/* Interrupts off, on the boot hart (the only one with SEIE). */
void rv_plic_irq(void)
{
	uint32_t ctx = rv_plat.plic_ctx, src;

	while ((src = *plic_reg(PLIC_CLAIM(ctx))) != 0) {
		if (src == rv_plat.uart_irq)
			rv_console_irq();
		else
			printk("riscv: PLIC source %u was not enabled\n", src);
		*plic_reg(PLIC_CLAIM(ctx)) = src;	/* complete */
	}
}
