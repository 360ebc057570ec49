/*
 * main.c - kmain, the first generic code on the boot CPU.
 *
 * Order matters: pages before page tables (the tables are made of pages),
 * page tables before stacks (stacks are mapped), the scheduler before
 * timers (the tick calls it), and all of it before other CPUs start.
 * Then the boot CPU picks what to run from the command line and becomes
 * its own idle task.
 */
#include "kernel.h"
#include "power.h"
#include "boot.h"
#include "cmdline.h"
#include "cpu.h"
#include "ktest.h"
#include "bench.h"
#include "mm.h"
#include "mutex.h"
#include "scenario.h"
#include "sched_verify.h"
#include "crash.h"
#include "shell.h"
#include "trace.h"
#include "timer.h"
#include "string.h"

struct boot_info *boot_info;
void smp_boot(struct boot_info *bi);

#define MAX_NAMES 32

/* Split "a,b,c" (in place) into names; "all" or "" means none = all. */
static int split_names(char *s, const char **names)
{
	int n = 0;

	if (!*s || strcmp(s, "all") == 0)
		return 0;
	while (*s && n < MAX_NAMES) {
		names[n++] = s;
		while (*s && *s != ',')
			s++;
		if (*s)
			*s++ = '\0';
	}
	return n;
}

static char mode_arg[BOOT_CMDLINE_MAX];

static void ktest_thread(void *arg)
{
	const char *names[MAX_NAMES];
	int n = split_names(mode_arg, names);
	int failed = ktest_run(names, n);

	(void)arg;
	printk("kestrel: tests done, %d failed; powering off\n", failed);
	poweroff(failed ? 1 : 0);
}

static void bench_thread(void *arg)
{
	const char *names[MAX_NAMES];
	int n = split_names(mode_arg, names);
	int err = bench_run(names, n);

	(void)arg;
	printk("kestrel: benchmarks done; powering off\n");
	poweroff(err ? 1 : 0);
}

static void crash_thread(void *arg)
{
	(void)arg;
	crash_run(mode_arg);
	printk("kestrel: crash scenario '%s' returned; powering off\n", mode_arg);
	poweroff(1);
}

/* scenario=NAME|all|module [trace=dump]: run, then power off with
 * failure if any scenario failed (like ktest=). */
static void scenario_thread(void *arg)
{
	char trace[8];
	bool dump = cmdline_get(boot_info->cmdline, "trace", trace,
				sizeof(trace)) && strcmp(trace, "dump") == 0;
	int failed = scenario_boot(mode_arg, dump);

	(void)arg;
	printk("kestrel: scenarios done, %d failed; powering off\n", failed);
	poweroff(failed ? 1 : 0);
}

/* locking=proxy|inherit|none: the mutex locking mode (mutex.h).  A bad
 * value is reported and the default kept. */
static void set_locking_mode(const char *cmdline)
{
	char mode[16];

	if (!cmdline_get(cmdline, "locking", mode, sizeof(mode)))
		return;
	if (locking_set_mode(mode) != 0)
		printk("locking: unknown mode '%s' (valid: proxy, inherit, "
		       "none); keeping %s\n", mode,
		       locking_mode_name(locking_mode));
	else
		printk("locking: mode %s\n", locking_mode_name(locking_mode));
}

/* trace=on|off: record the scheduler trace from boot (the default) or
 * not; trace=dump (scenario boots) also leaves it on.  Benchmark boots
 * say off: their figures are the kernel's own paths, and bench
 * trace_event measures what the trace adds. */
static void set_trace_mode(const char *cmdline)
{
	char val[8];

	if (!cmdline_get(cmdline, "trace", val, sizeof(val)) ||
	    !strcmp(val, "on") || !strcmp(val, "dump"))
		return;
	if (!strcmp(val, "off"))
		trace_set_enabled(false);
	else
		printk("trace: unknown value '%s' (valid: on, off, dump); "
		       "keeping it on\n", val);
}

/* sched_verify=on|N: run the real-time invariant checker from boot
 * (sched_verify.h), sampling every millisecond or every N us, judging
 * windows by the ticks rule; ktest fails a case during which it saw a
 * miss.  A bad value is reported and the checker left off. */
static void set_verify_mode(const char *cmdline)
{
	char val[16];
	uint64_t period = SCHED_VERIFY_DEFAULT_PERIOD;
	int err;

	if (!cmdline_get(cmdline, "sched_verify", val, sizeof(val)) ||
	    !strcmp(val, "off"))
		return;
	if (strcmp(val, "on") != 0) {
		unsigned long long us;

		period = parse_u64(val, &us) == 0 ? us * NSEC_PER_USEC : 0;
	}
	err = sched_verify_start(period, 0);
	if (err)
		printk("sched_verify: bad value '%s' (valid: on, off, or a period "
		       "in us, %llu..%llu); left off\n", val,
		       (unsigned long long)(SCHED_VERIFY_PERIOD_MIN / NSEC_PER_USEC),
		       (unsigned long long)(SCHED_VERIFY_PERIOD_MAX / NSEC_PER_USEC));
	else
		printk("sched_verify: on, a sample every %llu us\n",
		       (unsigned long long)(period / NSEC_PER_USEC));
}

static void start_main_thread(const char *cmdline)
{
	void (*fn)(void *) = shell_main;
	const char *name = "shell";

	if (cmdline_get(cmdline, "ktest", mode_arg, sizeof(mode_arg))) {
		fn = ktest_thread;
		name = "ktest";
	} else if (cmdline_get(cmdline, "bench", mode_arg, sizeof(mode_arg))) {
		fn = bench_thread;
		name = "bench";
	} else if (cmdline_get(cmdline, "crash", mode_arg, sizeof(mode_arg))) {
		fn = crash_thread;
		name = "crash";
	} else if (cmdline_get(cmdline, "scenario", mode_arg,
			       sizeof(mode_arg))) {
		fn = scenario_thread;
		name = "scenario";
	}
	if (!thread_create_detached(name, fn, NULL, -1))
		panic("cannot create the %s thread", name);
}

void kmain(struct boot_info *bi)
{
	boot_info = bi;
	printk("%s %s (%s) on %s, cpu0 is arch id %llu, %d CPUs reported\n",
	       KERNEL_NAME, KERNEL_VERSION, ARCH_NAME,
	       bi->loader ? bi->loader : "?",
	       (unsigned long long)bi->cpu_arch_id[0], bi->ncpus);
	printk("cmdline: '%s'\n", bi->cmdline);
	if (bi->cmdline_len > BOOT_CMDLINE_MAX - 1)
		printk("cmdline: %zu bytes, only the first %d kept: words at "
		       "its end (a ktest=..., scenario=...) are lost\n",
		       bi->cmdline_len, BOOT_CMDLINE_MAX - 1);

	ncpus = bi->ncpus < 1 ? 1 : MIN(bi->ncpus, NR_CPUS);
	cpus[0].arch_id = bi->cpu_arch_id[0];
	page_alloc_init(bi);
	arch_mmu_init(bi);
	sched_init();
	timer_init_cpu();
	arch_console_irq_init();
	cpu_set_online(&cpus[0], true);
	arch_irq_enable();
	smp_boot(bi);
	sched_init_smp();
	set_locking_mode(bi->cmdline);
	set_trace_mode(bi->cmdline);
	set_verify_mode(bi->cmdline);
	power_init(bi->cmdline);
	start_main_thread(bi->cmdline);
	cpu_idle_loop();
}
