/*
 * ioapic.c - the IOAPIC that has the ISA IRQs (GSI base 0, acpi.c), and
 * the consoles' interrupts: COM1 (ISA IRQ 4) and the PS/2 keyboard (ISA
 * IRQ 1), each at the GSI the MADT's interrupt source override gives it,
 * to the boot CPU.
 *
 * A redirection entry is two 32-bit registers reached through an index
 * register; the low half (vector, delivery mode, polarity, trigger,
 * mask) is written last, so the pin is unmasked only once the
 * destination is right.
 */
#include "x86.h"
#include "cpu.h"
#include "i8042.h"
#include "uart16550.h"

#define IOREGSEL 0x00
#define IOWIN 0x10

/* Redirection entry, low half: the MPS INTI flags of the override
 * (polarity bits 0-1, trigger bits 2-3; 0 means "as the bus": ISA is
 * active high, edge) become bits 13 and 15. */
#define REDIR_ACTIVE_LOW (1u << 13)
#define REDIR_LEVEL (1u << 15)
#define INTI_POLARITY_LOW 3u
#define INTI_TRIGGER_LEVEL (3u << 2)

uint32_t x86_ioapic_read(unsigned reg)
{
	*(volatile uint32_t *)(x86_ioapic_pa + IOREGSEL) = reg;
	return *(volatile uint32_t *)(x86_ioapic_pa + IOWIN);
}

void x86_ioapic_write(unsigned reg, uint32_t v)
{
	*(volatile uint32_t *)(x86_ioapic_pa + IOREGSEL) = reg;
	*(volatile uint32_t *)(x86_ioapic_pa + IOWIN) = v;
}

/* Pins of the IOAPIC (its highest redirection entry + 1), 0 if none. */
int x86_ioapic_pins(void)
{
	if (!x86_ioapic_pa)
		return 0;
	return ((x86_ioapic_read(IOAPIC_VER) >> 16) & 0xff) + 1;
}

/* Deliver @gsi (MPS INTI @flags) as @vector to the CPU with APIC id
 * @apic_id, fixed delivery, physical destination. */
static void ioapic_route(uint32_t gsi, uint32_t flags, uint8_t vector,
			 uint32_t apic_id)
{
	uint32_t lo = vector;

	if ((flags & 3) == INTI_POLARITY_LOW)
		lo |= REDIR_ACTIVE_LOW;
	if ((flags & (3u << 2)) == INTI_TRIGGER_LEVEL)
		lo |= REDIR_LEVEL;
	x86_ioapic_write(REDIR_LO(gsi), REDIR_MASKED);
	x86_ioapic_write(REDIR_HI(gsi), apic_id << 24);
	x86_ioapic_write(REDIR_LO(gsi), lo);
}

/* Route ISA IRQ @isa (after the MADT's override) as @vector to cpu0;
 * false, with a line saying why, if the IOAPIC has no such pin. */
static bool route_isa(int isa, uint8_t vector, const char *what)
{
	const struct x86_isa_irq *irq = &x86_isa_irqs[isa];
	int pins = x86_ioapic_pins();

	if (irq->gsi >= (uint32_t)pins) {
		printk("x86: %s's GSI %u is past the IOAPIC's %d pins: input "
		       "stays polled\n", what, irq->gsi, pins);
		return false;
	}
	ioapic_route(irq->gsi, irq->flags, vector, (uint32_t)cpus[0].arch_id);
	printk("x86: %s input by interrupt: ISA IRQ %d = GSI %u%s, vector "
	       "0x%x, to cpu0\n", what, isa, irq->gsi,
	       irq->overridden ? " (MADT override)" : "", vector);
	return true;
}

void arch_console_irq_init(void)
{
	struct i8042 *k = x86_keyboard();

	if (!x86_ioapic_pins()) {
		printk("x86: no IOAPIC in the MADT: com1 and keyboard input "
		       "stay polled (every %llu ms)\n",
		       (unsigned long long)(CONSOLE_POLL_NS / 1000000));
		return;
	}
	if (route_isa(ISA_IRQ_COM1, COM1_VECTOR, "com1"))
		uart16550_irq_on(x86_com1());
	/* The keyboard's line is routed before the controller raises it:
	 * i8042_irq_on() then takes what already waits, or its edge,
	 * gone before the pin was unmasked, would never come again. */
	if (k && route_isa(ISA_IRQ_KEYBOARD, KEYBOARD_VECTOR, "keyboard") &&
	    i8042_irq_on(k) < 0)
		printk("x86: i8042 did not take its new configuration: "
		       "keyboard input stays polled\n");
}
