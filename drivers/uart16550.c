/*
 * uart16550.c - polled driver for the 16550 UART (COM1 on PCs, the
 * "ns16550a" of the device tree on RISC-V boards and QEMU virt).
 *
 * Registers are (1 << reg_shift) bytes apart and reg_width bytes wide;
 * the VisionFive 2 for instance needs shift 2 and 32-bit accesses, QEMU
 * virt shift 0 and 8-bit accesses, a PC port I/O.
 */
#include "uart16550.h"

enum {
	RBR = 0, THR = 0, DLL = 0,	/* DLAB = 0 / 0 / 1 */
	IER = 1, DLM = 1,
	FCR = 2,
	LCR = 3,
	MCR = 4,
	LSR = 5,
};
#define LCR_DLAB 0x80
#define LCR_8N1 0x03
#define LSR_DR 0x01		/* data ready */
#define LSR_THRE 0x20		/* transmit holding register empty */

static uint8_t rd(struct uart16550 *u, int reg)
{
	uintptr_t a = u->base + ((uintptr_t)reg << u->reg_shift);

	if (u->pio)
		return u->pio_read(a);
	if (u->reg_width == 4)
		return (uint8_t)*(volatile uint32_t *)a;
	return *(volatile uint8_t *)a;
}

static void wr(struct uart16550 *u, int reg, uint8_t v)
{
	uintptr_t a = u->base + ((uintptr_t)reg << u->reg_shift);

	if (u->pio)
		u->pio_write(a, v);
	else if (u->reg_width == 4)
		*(volatile uint32_t *)a = v;
	else
		*(volatile uint8_t *)a = v;
}

static void uart_putc(struct console *c, char ch)
{
	struct uart16550 *u = c->priv;

	while (!(rd(u, LSR) & LSR_THRE))
		;
	wr(u, THR, (uint8_t)ch);
}

static int uart_getc(struct console *c)
{
	struct uart16550 *u = c->priv;

	if (!(rd(u, LSR) & LSR_DR))
		return -1;
	return rd(u, RBR);
}

void uart16550_init(struct uart16550 *u, const char *name)
{
	if (u->reg_width == 0)
		u->reg_width = 1;
	wr(u, IER, 0);			/* polled: no interrupts */
	if (u->clock_hz && u->baud) {
		unsigned div = u->clock_hz / (16 * u->baud);

		wr(u, LCR, LCR_DLAB);
		wr(u, DLL, div & 0xff);
		wr(u, DLM, (div >> 8) & 0xff);
	}
	wr(u, LCR, LCR_8N1);
	wr(u, FCR, 0x07);		/* enable and clear FIFOs */
	wr(u, MCR, 0x03);		/* DTR, RTS */
	u->con.name = name;
	u->con.putc = uart_putc;
	u->con.getc = uart_getc;
	u->con.priv = u;
}
