/*
 * crash.c - deliberate failures for `crash=NAME` on the command line.
 *
 * Each scenario must end in a PANIC line (and QEMU exiting with a
 * failure status); the runner (CRASH_EXPECT in tools/kestrel/matrix.py)
 * checks that the line says the right thing:
 *
 *   stack_overflow  thread "overflow-test" recurses into its guard page;
 *                   the fault handler must name the thread
 *   null_deref      load from address 0: register dump, backtrace
 *   spin_recursion  spin_lock twice on "crash-recursion-lock"
 *   spin_wrong_cpu  CPU 1 unlocks "crash-wrong-cpu-lock" held by CPU 0
 *   panic           a plain panic("crash test: deliberate panic")
 *   mutex_unlock_nonowner   "crash-mutex-b" unlocks "crash-mutex" held
 *                   by "crash-mutex-a"
 *   mutex_unlock_unlocked   "crash-mutex-a" unlocks a free "crash-mutex"
 *   mutex_recursive "crash-mutex-a" locks "crash-mutex" twice
 *   mutex_exit_held "crash-mutex-a" returns holding "crash-mutex"
 *   mutex_in_irq    a timer callback (interrupt context) locks
 *                   "crash-mutex" while "crash-mutex-a" holds it
 *
 * Each mutex PANIC line names the mutex, the task and the owner.
 *
 * If a scenario returns instead of panicking, crash_run() says so and
 * powers off with failure, so the runner sees a missing PANIC.
 */
#include "kernel.h"
#include "power.h"
#include "cpu.h"
#include "mutex.h"
#include "sched.h"
#include "crash.h"
#include "spinlock.h"
#include "timer.h"
#include <string.h>

/* ---- stack_overflow ------------------------------------------------- */

static volatile unsigned long overflow_depth;
/* Never reached (the stack is 16 KiB); being volatile, it also tells
 * gcc the recursion is not provably infinite. */
static volatile unsigned long overflow_limit = 1UL << 30;

/* Each level takes ~1 KiB of stack; the volatile buffer and the use of
 * it after the call keep the compiler from flattening the recursion. */
static __attribute__((noinline)) unsigned long recurse(unsigned long n)
{
	volatile char frame[1024];

	frame[0] = (char)n;
	frame[sizeof(frame) - 1] = (char)n;
	overflow_depth = n;
	if (n >= overflow_limit)
		return n;
	return recurse(n + 1) + frame[0] + frame[sizeof(frame) - 1];
}

static void overflow_thread(void *arg)
{
	(void)arg;
	printk("crash: recursing until the guard page\n");
	recurse(0);
}

static void overflow_warmup(void *arg)
{
	(void)arg;
}

static void crash_stack_overflow(void)
{
	struct task *t = thread_create("overflow-warmup", overflow_warmup,
				       NULL, -1);

	/* Joined, the warm-up task goes to the task cache with its stack
	 * (thread.c): overflow-test then runs on a recycled task and stack,
	 * whose guard page must still fault and be reported under the new
	 * name. */
	if (t)
		thread_join(t);
	t = thread_create("overflow-test", overflow_thread, NULL, -1);

	if (t)
		thread_join(t);
	printk("crash: overflow-test came back (depth %lu)\n", overflow_depth);
}

/* ---- null_deref ----------------------------------------------------- */

static void crash_null_deref(void)
{
	uintptr_t addr = 0;

	/* Hide the constant from gcc, which would otherwise turn a known
	 * NULL dereference into a trap instruction. */
	__asm__("" : "+r"(addr));
	printk("crash: reading address 0\n");
	printk("crash: read %d\n", *(volatile int *)addr);
}

/* ---- spin_recursion -------------------------------------------------- */

static spinlock_t recursion_lock = SPINLOCK_INIT("crash-recursion-lock");

static void crash_spin_recursion(void)
{
	unsigned long f1, f2;

	printk("crash: taking crash-recursion-lock twice\n");
	f1 = spin_lock(&recursion_lock);
	f2 = spin_lock(&recursion_lock);
	spin_unlock(&recursion_lock, f2);
	spin_unlock(&recursion_lock, f1);
}

/* ---- spin_wrong_cpu -------------------------------------------------- */

static spinlock_t wrong_cpu_lock = SPINLOCK_INIT("crash-wrong-cpu-lock");
static volatile int wrong_cpu_held;

/* CPU 0: take the lock and keep it.  Interrupts go back on while it is
 * held so this CPU still answers the panic's IPI_STOP. */
static void holder_thread(void *arg)
{
	(void)arg;
	spin_lock(&wrong_cpu_lock);
	arch_irq_enable();
	smp_store_release(&wrong_cpu_held, 1);
	for (;;)
		arch_cpu_relax();
}

/* CPU 1: release a lock CPU 0 holds. */
static void unlocker_thread(void *arg)
{
	(void)arg;
	while (!smp_load_acquire(&wrong_cpu_held))
		sleep_ns(NSEC_PER_MSEC);
	printk("crash: cpu%d unlocking crash-wrong-cpu-lock held by cpu0\n",
	       smp_processor_id());
	spin_unlock(&wrong_cpu_lock, 0);
}

static void crash_spin_wrong_cpu(void)
{
	struct task *h, *u;

	if (cpus_online() < 2) {
		printk("crash: spin_wrong_cpu needs >= 2 CPUs\n");
		return;
	}
	/* Unlocker first: once the holder runs, CPU 0 never schedules
	 * again (it spins with preemption disabled), and this thread may
	 * be on CPU 0. */
	u = thread_create("crash-unlocker", unlocker_thread, NULL, 1);
	h = thread_create_detached("crash-holder", holder_thread, NULL, 0);
	if (h && u)
		thread_join(u);
}

/* ---- mutex misuse ---------------------------------------------------- */

static struct mutex crash_mutex = MUTEX_INIT(crash_mutex, "crash-mutex");
static volatile int crash_mutex_held;

/* Run fn in a thread named @name and wait for it. */
static void crash_in_thread(const char *name, void (*fn)(void *))
{
	struct task *t = thread_create(name, fn, NULL, -1);

	if (t)
		thread_join(t);
}

/* "crash-mutex-a": take crash_mutex and keep it (sleeping). */
static void mutex_holder(void *arg)
{
	(void)arg;
	mutex_lock(&crash_mutex);
	smp_store_release(&crash_mutex_held, 1);
	for (;;)
		sleep_ns(NSEC_PER_SEC);
}

static void start_mutex_holder(void)
{
	if (!thread_create_detached("crash-mutex-a", mutex_holder, NULL, -1))
		return;
	while (!smp_load_acquire(&crash_mutex_held))
		sleep_ns(NSEC_PER_MSEC);
}

static void unlock_it(void *arg)
{
	(void)arg;
	printk("crash: %s unlocks crash-mutex (owner %s)\n", current()->name,
	       mutex_owner(&crash_mutex) ? mutex_owner(&crash_mutex)->name
					 : "none");
	mutex_unlock(&crash_mutex);
}

static void crash_mutex_unlock_nonowner(void)
{
	start_mutex_holder();
	crash_in_thread("crash-mutex-b", unlock_it);
}

static void crash_mutex_unlock_unlocked(void)
{
	crash_in_thread("crash-mutex-a", unlock_it);
}

static void lock_twice(void *arg)
{
	(void)arg;
	printk("crash: locking crash-mutex twice\n");
	mutex_lock(&crash_mutex);
	mutex_lock(&crash_mutex);
}

static void crash_mutex_recursive(void)
{
	crash_in_thread("crash-mutex-a", lock_twice);
}

static void lock_and_return(void *arg)
{
	(void)arg;
	printk("crash: returning with crash-mutex held\n");
	mutex_lock(&crash_mutex);
}

static void crash_mutex_exit_held(void)
{
	crash_in_thread("crash-mutex-a", lock_and_return);
}

static void lock_in_irq(struct timer *t)
{
	(void)t;
	mutex_lock(&crash_mutex);
}

/* The holder makes the lock contended, so even a fast path that
 * forgot the check would reach the slow path and its report. */
static void crash_mutex_in_irq(void)
{
	struct timer t;

	start_mutex_holder();
	printk("crash: a timer callback locks crash-mutex\n");
	timer_init(&t, lock_in_irq, NULL);
	timer_arm(&t, clock_ns() + NSEC_PER_MSEC);
	sleep_ns(100 * NSEC_PER_MSEC);
	timer_cancel(&t);
}

/* ---- panic ---------------------------------------------------------- */

static void crash_panic(void)
{
	panic("crash test: deliberate panic");
}

static const struct {
	const char *name;
	void (*run)(void);
} scenarios[] = {
	{ "stack_overflow", crash_stack_overflow },
	{ "null_deref", crash_null_deref },
	{ "spin_recursion", crash_spin_recursion },
	{ "spin_wrong_cpu", crash_spin_wrong_cpu },
	{ "panic", crash_panic },
	{ "mutex_unlock_nonowner", crash_mutex_unlock_nonowner },
	{ "mutex_unlock_unlocked", crash_mutex_unlock_unlocked },
	{ "mutex_recursive", crash_mutex_recursive },
	{ "mutex_exit_held", crash_mutex_exit_held },
	{ "mutex_in_irq", crash_mutex_in_irq },
};

void crash_run(const char *name)
{
	for (unsigned i = 0; i < ARRAY_SIZE(scenarios); i++) {
		if (strcmp(scenarios[i].name, name) != 0)
			continue;
		printk("crash: scenario %s\n", name);
		scenarios[i].run();
		printk("crash: scenario %s did not panic\n", name);
		poweroff(1);
	}
	printk("crash: unknown scenario '%s'; known:", name);
	for (unsigned i = 0; i < ARRAY_SIZE(scenarios); i++)
		printk(" %s", scenarios[i].name);
	printk("\n");
}
