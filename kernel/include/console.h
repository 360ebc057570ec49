/*
 * console.h - the boot consoles: a serial port, the SBI console, a screen.
 * The arch's early init registers them; printk and the shell write to
 * every one and read from whichever has a byte.
 */
#ifndef CONSOLE_H
#define CONSOLE_H

struct console {
	const char *name;			/* "ns16550a@10000000", "sbi" */
	void (*putc)(struct console *c, char ch);	/* busy-waits, any context */
	int (*getc)(struct console *c);		/* -1 if no byte is waiting */
	void *priv;
};

#define CONSOLES_MAX 4

/* Add @c to the consoles (output goes to all of them, in the order they
 * were registered).  Early boot, one CPU; a console past CONSOLES_MAX is
 * refused with a message on the others. */
void console_register(struct console *c);
/* Non-blocking read of one byte from any console, -1 if none. */
int console_getc(void);
/* Emergency output for panic: bypasses the console lock. */
void console_putc_raw(char ch);
#endif
