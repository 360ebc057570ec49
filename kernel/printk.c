/*
 * printk.c - console output with a CPU prefix, whole lines at a time.
 *
 * Each CPU assembles its current line in its own buffer; a line is sent to
 * the console under console_lock only when it is complete, so lines from
 * different CPUs never interleave.  An interrupt that prints on a CPU in
 * the middle of a line simply appends to that line (better than losing
 * it).  During panic the panicking CPU bypasses the lock: another CPU may
 * have died holding it.  The list of consoles and console input are
 * console.c's.
 */
#include "kernel.h"
#include "console.h"
#include "cpu.h"
#include "spinlock.h"
#include "printf.h"
#include "string.h"

#define LINE_MAX 256

static spinlock_t console_lock = SPINLOCK_INIT("console");
static struct {
	char buf[LINE_MAX];
	size_t len;
} lines[NR_CPUS];

/* Set by panic(): the CPU that owns the console from now on. */
int panic_cpu = -1;

static void emit(const char *s, size_t n)
{
	while (n--)
		console_putc_raw(*s++);
}

/* Take the console, unless this CPU is panicking (then it owns it). */
static bool console_lock_take(unsigned long *flags)
{
	if (READ_ONCE(panic_cpu) == this_cpu()->id) {
		*flags = arch_irq_save();
		return false;
	}
	*flags = spin_lock(&console_lock);
	return true;
}

static void console_lock_drop(bool locked, unsigned long flags)
{
	if (locked)
		spin_unlock(&console_lock, flags);
	else
		arch_irq_restore(flags);
}

static void flush_line(int cpu)
{
	char prefix[12];
	int n = snprintf(prefix, sizeof(prefix), "[cpu%d] ", cpu);

	emit(prefix, n);
	emit(lines[cpu].buf, lines[cpu].len);
	lines[cpu].len = 0;
}

int vprintk(const char *fmt, va_list ap)
{
	char tmp[LINE_MAX];
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	size_t len = MIN((size_t)n, sizeof(tmp) - 1);
	unsigned long flags;
	bool locked = console_lock_take(&flags);
	int cpu = this_cpu()->id;

	for (size_t i = 0; i < len; i++) {
		lines[cpu].buf[lines[cpu].len++] = tmp[i];
		if (tmp[i] == '\n' || lines[cpu].len == LINE_MAX - 1) {
			if (tmp[i] != '\n')
				lines[cpu].buf[lines[cpu].len++] = '\n';
			flush_line(cpu);
		}
	}
	console_lock_drop(locked, flags);
	return n;
}

int printk(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintk(fmt, ap);
	va_end(ap);
	return n;
}

void console_write(const char *s, size_t len)
{
	unsigned long flags;
	bool locked = console_lock_take(&flags);

	emit(s, len);
	console_lock_drop(locked, flags);
}
