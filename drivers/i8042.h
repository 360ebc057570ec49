/*
 * i8042.h - the PC keyboard controller (ports 0x60/0x64) as a console
 * input: what is typed on a PS/2 keyboard (or on a USB one the firmware
 * presents as PS/2) reaches the shell through console_getc(), polled
 * until the arch routes IRQ 1, then through the console's ring.
 */
#ifndef I8042_H
#define I8042_H
#include <stdbool.h>
#include <stdint.h>
#include "console.h"

struct i8042 {
	/* Port I/O, given by the arch (x86: inb/outb). */
	uint8_t (*pio_read)(uintptr_t port);
	void (*pio_write)(uintptr_t port, uint8_t v);
	/* Keyboard state: touched by one at a time, the task polling the
	 * console (the shell) until i8042_irq_on(), IRQ 1's handler on
	 * one CPU after. */
	bool shift_l, shift_r, ctrl, caps;
	bool e0;			/* the last byte was the 0xe0 prefix */
	int skip;			/* bytes of a Pause sequence still due */
	struct console con;
};

/*
 * Find the controller and register @k as a console whose getc reads
 * the keyboard (its putc does nothing).  Prints one line: the keyboard
 * found, or why there is none ("no i8042 ... (status port reads 0xff)").
 * Returns 0, or -ENODEV with nothing registered.  Early boot, one CPU.
 */
int i8042_init(struct i8042 *k);
/* The arch has routed IRQ 1 to a CPU: the controller raises it from now
 * on, and input goes through i8042_irq() into the console's ring
 * (console_rx_irq_on()).  Returns 0, or -EIO if the controller did not
 * answer (input stays polled).  Boot CPU, interrupts off. */
int i8042_irq_on(struct i8042 *k);
/* IRQ 1's handler: what was typed into the console's ring. */
void i8042_irq(struct i8042 *k);
#endif
