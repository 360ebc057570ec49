/*
 * console.h - the boot consoles: a serial port, the SBI console, a screen.
 * The arch's early init registers them; printk and the shell write to
 * every one.  Input comes from an interrupt-driven console through a ring
 * (kernel/console.c), or from a polled one through its getc.
 */
#ifndef CONSOLE_H
#define CONSOLE_H
#include <stdbool.h>
#include <stdint.h>

struct console {
	const char *name;			/* "ns16550a@10000000", "sbi" */
	void (*putc)(struct console *c, char ch);	/* busy-waits, any context */
	int (*getc)(struct console *c);		/* -1 if no byte is waiting */
	/* Optional, for an interrupt-driven console: hold the sender off
	 * (mask the receive interrupt, drop RTS) while the input ring is
	 * nearly full, and let it go on.  Called under the ring's lock,
	 * interrupts off, from the push (stop) or the reader (start). */
	void (*rx_stop)(struct console *c);
	void (*rx_start)(struct console *c);
	bool rx_irq;		/* input arrives by console_rx_push() */
	bool rx_stopped;	/* rx_stop called, rx_start not yet */
	void *priv;
};

#define CONSOLES_MAX 4
/* How often console_wait() looks at consoles that have no interrupt. */
#define CONSOLE_POLL_NS (10 * 1000 * 1000ULL)

/* Add @c to the consoles (output goes to all of them, in the order they
 * were registered).  Early boot, one CPU; a console past CONSOLES_MAX is
 * refused with a message on the others. */
void console_register(struct console *c);
/* From now on @c's input comes through console_rx_push() from its
 * interrupt handler; console_getc() stops polling its getc.  The driver
 * calls it once the interrupt is routed.  Boot CPU, interrupts off. */
void console_rx_irq_on(struct console *c);

/* Interrupt handler of console @c: one received byte into the input
 * ring.  Returns false when the driver must stop reading its device for
 * now (@c was stopped with ->rx_stop, or the ring is full and @c can be
 * stopped); a byte that does not fit is counted as lost.  Call
 * console_rx_wake() once after the bytes of one interrupt.  Any context,
 * never sleeps. */
bool console_rx_push(struct console *c, char ch);
/* @n bytes that the device of @c lost (a FIFO overrun): counted, and
 * reported by console_rx_report().  Any context. */
void console_rx_lost(struct console *c, unsigned n);
/* Wake the task in console_wait(), if any; else its next wait returns at
 * once.  Any context, never sleeps (a shell job calls it when it ends). */
void console_rx_wake(void);

/* Non-blocking read of one byte: the input ring first, then the polled
 * consoles; -1 if none.  Task context, one reader at a time (the shell). */
int console_getc(void);
/* If byte @ch is in the input ring, drop every byte up to and including
 * it and return true (Ctrl-C while typeahead waits).  Same caller as
 * console_getc(). */
bool console_rx_flush_to(char ch);
/* Sleep until console_rx_wake(), at most @timeout_ns (0: no limit), and
 * at most CONSOLE_POLL_NS while a console is polled.  Returns early for
 * no reason now and then: the caller loops on console_getc().  Task
 * context, preemption on. */
void console_wait(uint64_t timeout_ns);
/* Print one line if input bytes were lost since the last call.  Task
 * context. */
void console_rx_report(void);

/* Counts since boot, for the shell's `cpus`.  Any context. */
struct console_rx_stats {
	int ring_size;
	unsigned long pushed;	/* bytes that went through the ring */
	unsigned long stops;	/* times a console was held back (->rx_stop) */
	unsigned long full;	/* bytes lost: the ring was full */
	unsigned long overrun;	/* bytes lost in the device (FIFO overrun) */
};
void console_rx_stats(struct console_rx_stats *st);

/* Emergency output for panic: bypasses the console lock. */
void console_putc_raw(char ch);
#endif
