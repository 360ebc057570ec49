/*
 * trace_onoff.c - suite trace (its table: trace.c), on, off and reset:
 * `trace off` records nothing, also while every CPU is in the middle of
 * events (trace_set_enabled(false) waits for them); reset forgets; a
 * task sleeping with sleep_ns_untraced() (the shell's console wait)
 * leaves no events.
 */
#include "trace_test.h"
#include "helpers.h"
#include "cpu.h"
#include "mm.h"
#include "mutex.h"
#include "sched.h"
#include "timer.h"
#include "trace.h"
#include <printf.h>
#include <string.h>

static void off_fn(void *arg)
{
	struct mutex *m = arg;

	mutex_lock(m);
	yield();
	mutex_unlock(m);
	trace_mark("off mark");
	sleep_ns(NSEC_PER_MSEC);
}

/* With recording off, a thread's whole life (wakeups, switches, a mutex,
 * a mark, a sleep) leaves no event on any CPU; on again, it does. */
void off_records_nothing(struct ktest *t)
{
	static DEFINE_MUTEX(off_m);
	struct task *p;
	uint64_t n;

	KASSERT_EQ(t, trace_set_enabled(false), 0);
	trace_reset();
	p = thread_create("trace-off", off_fn, &off_m, -1);
	if (p)
		thread_join(p);
	trace_mark("off direct");
	n = 0;
	for (int i = 0; i < ncpus; i++)
		n += trace_cpu_recorded(i);
	KEXPECT_EQ(t, trace_count_events("", -1), 0);
	KEXPECT_EQ(t, n, 0);
	KASSERT_EQ(t, trace_set_enabled(true), 0);
	KASSERT(t, p != NULL);
	p = thread_create("trace-on", off_fn, &off_m, -1);
	KASSERT(t, p != NULL);
	thread_join(p);
	KEXPECT_EQ(t, trace_count_events("text=off mark", -1), 1);
	KEXPECT(t, trace_count_events("acquire task=trace-on#", -1) == 1);
}

/* Workers that record all the time: fast mutex records (restartable),
 * marks (C, looked at with interrupts on), switches (yield). */
struct busy {
	struct mutex m;
	volatile bool stop;
};

static void busy_fn(void *arg)
{
	struct busy *b = arg;

	for (unsigned i = 0; !READ_ONCE(b->stop); i++) {
		mutex_lock(&b->m);
		mutex_unlock(&b->m);
		trace_mark("busy");
		if (i % 8 == 0)
			yield();
	}
}

static void spin_us(unsigned us)
{
	uint64_t end = clock_ns() + us * NSEC_PER_USEC;

	while (clock_ns() < end)
		arch_cpu_relax();
}

/*
 * Off waits for the events other CPUs (and tasks preempted here) are
 * in the middle of: after trace_set_enabled(false) and a reset, nothing
 * lands, round after round, while every CPU records all the time.
 * Without the wait about one round in ten recorded an event at 2 and 4
 * CPUs.  Each off is an interrupt round trip to every other CPU; with 8
 * virtual CPUs on a 2-core host that is milliseconds, so the rounds stop
 * after 3 s (and say how many ran).
 */
void off_waits_for_events_in_progress(struct ktest *t)
{
	enum { ROUNDS = 300 };
	struct busy *b = kmalloc(NR_CPUS * sizeof(*b));
	struct task *w[NR_CPUS] = { 0 };
	uint64_t worst = 0, until = clock_ns() + 3 * NSEC_PER_SEC;
	unsigned late = 0;
	int r;

	KASSERT(t, b != NULL);
	for (int c = 0; c < ncpus; c++) {
		mutex_init(&b[c].m, "trace-busy");
		b[c].stop = false;
		w[c] = trace_spawn_on(t, "trace-busy", busy_fn, &b[c], c, NULL);
	}
	for (r = 0; r < ROUNDS && clock_ns() < until; r++) {
		uint64_t n = 0;

		KASSERT_EQ(t, trace_set_enabled(false), 0);
		trace_reset();
		spin_us(20);
		for (int c = 0; c < ncpus; c++)
			n += trace_cpu_recorded(c);
		if (n) {
			late++;
			worst = MAX(worst, n);
		}
		KASSERT_EQ(t, trace_set_enabled(true), 0);
		spin_us(20);
	}
	for (int c = 0; c < ncpus; c++)
		b[c].stop = true;
	for (int c = 0; c < ncpus; c++)
		if (w[c])
			thread_join(w[c]);
	kfree(b);
	printk("# %u of %d rounds recorded after off (up to %llu events)\n",
	       late, r, (unsigned long long)worst);
	KEXPECT_EQ(t, late, 0);
	trace_reset();
}

/* trace_reset() forgets what came before, on every CPU. */
void reset_forgets(struct ktest *t)
{
	trace_mark("before reset");
	KEXPECT_EQ(t, trace_count_events("text=before reset", -1), 1);
	trace_reset();
	trace_mark("after reset");
	KEXPECT_EQ(t, trace_count_events("text=before reset", -1), 0);
	KEXPECT_EQ(t, trace_count_events("text=after reset", -1), 1);
}

/* A task sleeping with sleep_ns_untraced() (the shell's console poll)
 * leaves no wakeup and no switch into it; the same task sleeping with
 * sleep_ns() leaves both. */
static void poll_untraced(void *arg)
{
	(void)arg;
	for (int i = 0; i < 20; i++)
		sleep_ns_untraced(200 * NSEC_PER_USEC);
	trace_mark("polled");
	for (int i = 0; i < 3; i++)
		sleep_ns(200 * NSEC_PER_USEC);
}

void untraced_sleeps_leave_no_events(struct ktest *t)
{
	char wake[48], into[48];
	struct task *p;
	int tid;

	trace_reset();
	p = trace_spawn_on(t, "trace-poll", poll_untraced, NULL, trace_test_cpu(), NULL);
	KASSERT(t, p != NULL);
	tid = p->tid;
	thread_join(p);
	snprintf(wake, sizeof(wake), "wakeup task=trace-poll#%d ", tid);
	snprintf(into, sizeof(into), " next=trace-poll#%d ", tid);
	KEXPECT_EQ(t, trace_count_events("text=polled", -1), 1);
	/* The first (its creation) and the three traced sleeps. */
	KEXPECT_EQ(t, trace_count_events(wake, -1), 4);
	KEXPECT(t, trace_count_events(into, -1) <= 5);
	/* Into it: its start, and after each traced sleep, but a sleep
	 * whose timer fires before the task has switched out (a vCPU the
	 * host stopped for 200 us between timer_arm() and schedule(): seen
	 * at 8 CPUs on riscv64) is woken where it runs and never switches:
	 * its wakeup is recorded, no switch.  So at least the start. */
	KEXPECT(t, trace_count_events(into, -1) >= 1);
}
