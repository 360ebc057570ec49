/*
 * uart16550.h - 16550 UART driver (output polled, input polled or by
 * interrupt).  Registers are @reg_shift
 * apart and accessed @reg_width bytes wide (1 or 4), by MMIO at @base or,
 * when @pio is set (x86 COM1), through the port accessors the arch gives.
 */
#ifndef UART16550_H
#define UART16550_H
#include <stdbool.h>
#include <stdint.h>
#include "console.h"

struct uart16550 {
	uintptr_t base;		/* MMIO address or I/O port */
	unsigned reg_shift;	/* DT "reg-shift", 0 if absent */
	unsigned reg_width;	/* DT "reg-io-width", 1 if absent */
	uint32_t clock_hz;	/* input clock, 0: leave the divisor alone */
	uint32_t baud;		/* 115200 */
	bool pio;
	bool dw;		/* a DesignWare APB UART ("snps,dw-apb-uart") */
	uint8_t (*pio_read)(uintptr_t port);
	void (*pio_write)(uintptr_t port, uint8_t v);
	struct console con;
};

/* Initialise the UART (8N1, FIFOs on, interrupts off) and fill u->con so
 * the caller can console_register(&u->con). */
void uart16550_init(struct uart16550 *u, const char *name);
/* The arch has routed the UART's interrupt to a CPU: turn the receive
 * interrupt on; from now on input goes through uart16550_irq() into the
 * console's ring (console_rx_irq_on()).  Boot CPU, interrupts off. */
void uart16550_irq_on(struct uart16550 *u);
/* The UART's interrupt handler: every received byte into the console
 * input ring, then console_rx_wake().  Interrupt context. */
void uart16550_irq(struct uart16550 *u);
#endif
