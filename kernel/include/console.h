/*
 * console.h - the single boot console (serial).  The arch's early init
 * registers it; printk and the shell use it.
 */
#ifndef CONSOLE_H
#define CONSOLE_H

struct console {
	const char *name;			/* "ns16550a@10000000", "sbi" */
	void (*putc)(struct console *c, char ch);	/* busy-waits, any context */
	int (*getc)(struct console *c);		/* -1 if no byte is waiting */
	void *priv;
};

/* Make @c the console.  Early boot, before printk is used. */
void console_register(struct console *c);
/* Non-blocking read of one byte from the console, -1 if none. */
int console_getc(void);
/* Emergency output for panic: bypasses the console lock. */
void console_putc_raw(char ch);
#endif
