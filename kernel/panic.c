/*
 * panic.c - the one way the kernel dies.
 *
 * The first CPU to panic takes the console (printk bypasses its lock for
 * it), prints where and why, a backtrace, stops the other CPUs with
 * IPI_STOP and powers off with a failure status (power.c: or halts where
 * the machine cannot power off).  A CPU that panics while
 * another is already panicking just halts; a CPU that panics again inside
 * its own panic powers off at once.
 */
#include "kernel.h"
#include "cpu.h"
#include "console.h"
#include "power.h"
#include "sched.h"
#include "timer.h"

extern int panic_cpu;

static const char *task_name_or_boot(struct task *t)
{
	return t ? t->name : "boot";
}

void __panic(const char *file, int line, const char *fmt, ...)
{
	struct sched_cpu_view v;
	struct cpu *c;
	int expected = -1;
	va_list ap;

	arch_irq_disable();
	c = this_cpu();
	if (!__atomic_compare_exchange_n(&panic_cpu, &expected, c->id, false,
					 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		if (expected == c->id) {
			static const char msg[] = "\nPANIC: recursive panic\n";

			for (const char *p = msg; *p; p++)
				console_putc_raw(*p);
			arch_poweroff(1);
			arch_halt();	/* no power-off: the first panic's
					 * lines are the last word */
		}
		cpu_set_online(c, false);
		arch_halt();
	}
	printk("\n");
	sched_cpu_view(c->id, &v);
	printk("PANIC at %s:%d on cpu%d (task %s", file, line, c->id,
	       task_name_or_boot(v.curr));
	/* Under proxy execution the scheduling context may be another task. */
	if (v.donor && v.donor != v.curr)
		printk(", donor %s", v.donor->name);
	printk("): ");
	va_start(ap, fmt);
	vprintk(fmt, ap);
	va_end(ap);
	printk("\n");
	printk("backtrace:\n");
	arch_backtrace(arch_frame_address());
	stop_other_cpus();
	printk("kestrel: halted after panic\n");
	poweroff(1);
}
