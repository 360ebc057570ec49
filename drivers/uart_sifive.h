/*
 * uart_sifive.h - the SiFive UART: HiFive Unleashed / Unmatched
 * (FU540, FU740) and QEMU's sifive_u, DT compatible "sifive,uart0".
 * Not a 16550: seven 32-bit registers, 8N1 fixed but for the stop bits.
 */
#ifndef UART_SIFIVE_H
#define UART_SIFIVE_H
#include <stdint.h>
#include "console.h"

struct uart_sifive {
	uintptr_t base;		/* MMIO address */
	uint32_t clock_hz;	/* input clock, 0: leave the divisor alone */
	uint32_t baud;		/* 115200 */
	struct console con;
};

/* Enable the transmitter and receiver (one stop bit, interrupts off),
 * set the divisor if clock_hz and baud say what it must be, and fill
 * u->con so the caller can console_register(&u->con).  Early boot. */
void uart_sifive_init(struct uart_sifive *u, const char *name);
/* Input by interrupt from now on (the arch has routed the UART's
 * receive interrupt): console_rx_irq_on() and the interrupt enabled. */
void uart_sifive_irq_on(struct uart_sifive *u);
/* The UART's interrupt: every waiting byte into the console ring. */
void uart_sifive_irq(struct uart_sifive *u);
#endif
