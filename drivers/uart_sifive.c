/*
 * uart_sifive.c - polled driver for the SiFive UART (FU540-C000 and
 * FU740-C000 manuals, "UART"; QEMU's sifive_u models the same).
 *
 * Every register is 32 bits wide.  The data registers carry their status
 * in bit 31 of the same word, so a byte and the flag that says whether it
 * is valid come from one load: reading rxdata pops the FIFO, and a second
 * read to fetch the byte would lose it.
 */
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
#define RXCTRL_RXEN 1U

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
