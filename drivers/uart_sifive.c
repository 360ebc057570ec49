/*
 * uart_sifive.c - driver for the SiFive UART (FU540-C000 and FU740-C000
 * manuals, "UART"; QEMU's sifive_u models the same).  Output is polled;
 * input is polled until the arch routes the receive interrupt, then
 * uart_sifive_irq() drains the receive FIFO into the console ring
 * (kernel/console.c).
 *
 * Every register is 32 bits wide.  The data registers carry their status
 * in bit 31 of the same word, so a byte and the flag that says whether it
 * is valid come from one load: reading rxdata pops the FIFO, and a second
 * read to fetch the byte would lose it.
 */
#include "kernel.h"
#include "uart_sifive.h"

enum {
	TXDATA = 0x00,		/* write: byte to send; read: bit 31 full */
	RXDATA = 0x04,		/* read: byte, bit 31 empty (pops the FIFO) */
	TXCTRL = 0x08,		/* bit 0 txen, bit 1 nstop (0: one stop bit) */
	RXCTRL = 0x0c,		/* bit 0 rxen */
	IE = 0x10,		/* bit 0 txwm, bit 1 rxwm */
	IP = 0x14,
	DIV = 0x18,		/* baud = clock / (div + 1) */
};
#define TXDATA_FULL (1U << 31)
#define RXDATA_EMPTY (1U << 31)
#define TXCTRL_TXEN 1U
#define RXCTRL_RXEN 1U		/* rxcnt (bits 18:16) 0: rxwm while any byte waits */
#define IE_RXWM (1U << 1)

static uint32_t rd(struct uart_sifive *u, int reg)
{
	return *(volatile uint32_t *)(u->base + reg);
}

static void wr(struct uart_sifive *u, int reg, uint32_t v)
{
	*(volatile uint32_t *)(u->base + reg) = v;
}

static void sifive_putc(struct console *c, char ch)
{
	struct uart_sifive *u = c->priv;

	while (rd(u, TXDATA) & TXDATA_FULL)
		;
	wr(u, TXDATA, (uint8_t)ch);
}

static int sifive_getc(struct console *c)
{
	uint32_t v = rd(c->priv, RXDATA);

	return v & RXDATA_EMPTY ? -1 : (int)(v & 0xff);
}

void uart_sifive_init(struct uart_sifive *u, const char *name)
{
	wr(u, IE, 0);			/* polled: no interrupts */
	/* The firmware set the divisor for its own console; without the
	 * input clock (the DT names a clock controller, not a frequency)
	 * we could only guess, so leave it. */
	if (u->clock_hz && u->baud)
		wr(u, DIV, (u->clock_hz + u->baud / 2) / u->baud - 1);
	/* Watermarks (bits 18:16) only matter for interrupts: zero. */
	wr(u, TXCTRL, TXCTRL_TXEN);
	wr(u, RXCTRL, RXCTRL_RXEN);
	u->con.name = name;
	u->con.putc = sifive_putc;
	u->con.getc = sifive_getc;
	u->con.priv = u;
}

/* The ring is nearly full: no more receive interrupts.  The UART has no
 * RTS; its 8-byte FIFO fills and QEMU keeps the rest of its input (a
 * real line loses what comes after).  console.c, under its lock. */
static void sifive_rx_stop(struct console *c)
{
	wr(c->priv, IE, 0);
}

static void sifive_rx_start(struct console *c)
{
	wr(c->priv, IE, IE_RXWM);	/* bytes waiting: the interrupt comes now */
}

void uart_sifive_irq_on(struct uart_sifive *u)
{
	u->con.rx_stop = sifive_rx_stop;
	u->con.rx_start = sifive_rx_start;
	console_rx_irq_on(&u->con);
	sifive_rx_start(&u->con);
}

/* Drain the receive FIFO (rxwm is a level: it stays up while a byte
 * waits), unless the ring asks us to stop; stopped, the bytes stay in
 * the FIFO (reading rxdata is what lets QEMU hand over the next one). */
void uart_sifive_irq(struct uart_sifive *u)
{
	uint32_t v;
	int n = 0;

	if (READ_ONCE(u->con.rx_stopped))
		return;
	while (!((v = rd(u, RXDATA)) & RXDATA_EMPTY)) {
		n++;
		if (!console_rx_push(&u->con, (char)(v & 0xff)))
			break;
	}
	if (n)
		console_rx_wake();
}
