/*
 * uart16550.c - driver for the 16550 UART (COM1 on PCs, the "ns16550a"
 * of the device tree on RISC-V boards and QEMU virt).  Output is polled;
 * input is polled until the arch has routed the UART's interrupt, then
 * interrupt driven: uart16550_irq() drains the receive FIFO into the
 * console's input ring (kernel/console.c).
 *
 * Registers are (1 << reg_shift) bytes apart and reg_width bytes wide;
 * the VisionFive 2 for instance needs shift 2 and 32-bit accesses, QEMU
 * virt shift 0 and 8-bit accesses, a PC port I/O.
 */
#include "kernel.h"
#include "uart16550.h"

enum {
	RBR = 0, THR = 0, DLL = 0,	/* DLAB = 0 / 0 / 1 */
	IER = 1, DLM = 1,
	FCR = 2, IIR = 2,		/* write / read */
	LCR = 3,
	MCR = 4,
	LSR = 5,
	DW_USR = 31,			/* DesignWare only: UART status */
};
#define IIR_ID_MASK 0x0f
#define IIR_DW_BUSY 0x07	/* DesignWare: LCR written while busy */
#define IER_RDI 0x01		/* receive data available and timeout */
#define FCR_ENABLE_CLEAR 0x07	/* FIFOs on, both cleared */
#define FCR_TRIGGER_8 0x80	/* receive interrupt at 8 bytes */
#define MCR_DTR 0x01
#define MCR_RTS 0x02
#define MCR_OUT2 0x08		/* PC: gates the IRQ line to the board */
#define LSR_OE 0x02		/* overrun: a byte was lost */
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
	/* Trigger at 8 of 16: 8 bytes (0.7 ms at 115200 baud) of slack
	 * for the interrupt to come; fewer bytes raise the receiver
	 * timeout interrupt after 4 character times. */
	wr(u, FCR, FCR_ENABLE_CLEAR | FCR_TRIGGER_8);
	wr(u, MCR, MCR_DTR | MCR_RTS);
	u->con.name = name;
	u->con.putc = uart_putc;
	u->con.getc = uart_getc;
	u->con.priv = u;
}

/* The ring is nearly full: no more receive interrupts, RTS off (a
 * sender with flow control pauses; QEMU keeps the rest of its input
 * until the FIFO has room).  console.c, under its lock. */
static void uart_rx_stop(struct console *c)
{
	struct uart16550 *u = c->priv;

	wr(u, IER, 0);
	wr(u, MCR, MCR_DTR | MCR_OUT2);
}

static void uart_rx_start(struct console *c)
{
	struct uart16550 *u = c->priv;

	wr(u, MCR, MCR_DTR | MCR_RTS | MCR_OUT2);
	wr(u, IER, IER_RDI);	/* bytes waiting: the interrupt comes now */
}

/* A DesignWare UART raises "busy detect" (IIR 0x7) when LCR is written
 * while it is busy, and holds it until USR is read: a level interrupt
 * that nothing clears would come back forever.  The firmware's own LCR
 * writes may have left one pending, so clear it before the receive
 * interrupt is on and whenever one is seen (Linux's 8250_dw does the
 * same). */
static void dw_clear_busy(struct uart16550 *u)
{
	if (u->dw && (rd(u, IIR) & IIR_ID_MASK) == IIR_DW_BUSY)
		(void)rd(u, DW_USR);
}

void uart16550_irq_on(struct uart16550 *u)
{
	dw_clear_busy(u);
	u->con.rx_stop = uart_rx_stop;
	u->con.rx_start = uart_rx_start;
	console_rx_irq_on(&u->con);
	uart_rx_start(&u->con);
}

/*
 * Drain the whole receive FIFO (the interrupt stays asserted until it is
 * below the trigger level, and on an edge-triggered line a byte left
 * behind would raise no new edge), unless the ring asks us to stop.
 * Stopped, the bytes stay in the FIFO even if an interrupt comes (one
 * latched before the stop): reading RBR is what makes QEMU hand over
 * the next byte.  Reading LSR clears its overrun bit: one overrun is at
 * least one byte.
 */
void uart16550_irq(struct uart16550 *u)
{
	uint8_t lsr;
	int n = 0;

	dw_clear_busy(u);
	if (READ_ONCE(u->con.rx_stopped))
		return;		/* racy: at worst one byte, into the reserve */
	while ((lsr = rd(u, LSR)) & LSR_DR) {
		if (lsr & LSR_OE)
			console_rx_lost(&u->con, 1);
		n++;
		if (!console_rx_push(&u->con, (char)rd(u, RBR)))
			break;
	}
	if (n)
		console_rx_wake();
}
