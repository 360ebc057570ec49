/*
 * proxy_helpers.c - what the cross-CPU proxy-execution suites share
 * (proxy_smp.c, proxy_chains.c, proxy_push.c): CPU-time clocks, pinned
 * spawning, the proxy-mode FIFO 99 case thread, and waits that sleep so
 * lower priorities run.  Declared in proxy_helpers.h.
 */
#include "proxy_helpers.h"
#include "cpu.h"
#include "sched.h"
#include "blocked_on.h"
#include "mutex.h"
#include "timer.h"
#include "arch.h"

static enum locking_mode px_saved_mode;

/* Burn @ns of the caller's own CPU time. */
void px_spin_exec(uint64_t ns)
{
	struct task *self = current();
	uint64_t end = task_exec_ns(self) + ns;

	while (task_exec_ns(self) < end)
		arch_cpu_relax();
}

struct task *px_spawn_on(struct ktest *t, const char *name, int cpu,
			     void (*fn)(void *), void *arg, int rt_prio)
{
	struct sched_attr a = { .policy = rt_prio ? SCHED_FIFO : SCHED_NORMAL,
				.rt_priority = rt_prio };
	struct thread_opts o = { .attr = &a, .affinity = 1ULL << cpu };
	struct task *p = NULL;
	int err = thread_spawn(&p, name, fn, arg, &o);

	if (err)
		ktest_fail(t, __FILE__, __LINE__, "thread_spawn %s: %d", name, err);
	return p;
}

/* Proxy mode, the caller FIFO 99 on @cpu.  False: failed (reported). */
bool px_begin(struct ktest *t, int cpu)
{
	return px_begin_mode(t, cpu, LOCKING_PROXY);
}

bool px_begin_mode(struct ktest *t, int cpu, enum locking_mode mode)
{
	struct sched_attr a = { .policy = SCHED_FIFO, .rt_priority = 99 };
	int err;

	px_saved_mode = locking_mode;
	err = locking_set_mode(locking_mode_name(mode));
	if (err) {
		ktest_fail(t, __FILE__, __LINE__, "locking_set_mode(%s): %d "
			   "(%d tasks wait on mutexes)", locking_mode_name(mode),
			   err, __atomic_load_n(&mutex_nr_blocked, __ATOMIC_SEQ_CST));
		return false;
	}
	if (sched_setaffinity(current(), 1ULL << cpu) != 0 ||
	    sched_setattr(current(), &a) != 0) {
		ktest_fail(t, __FILE__, __LINE__, "cannot set up on cpu%d", cpu);
		return false;
	}
	return true;
}

int px_end(void)
{
	struct sched_attr a = { .policy = SCHED_NORMAL };

	sched_setattr(current(), &a);
	sched_setaffinity(current(), ~0ULL);
	return locking_set_mode(locking_mode_name(px_saved_mode));
}

/* Wait (sleeping, so lower priorities run) until *flag is set. */
void px_wait_flag(volatile int *flag)
{
	while (!READ_ONCE(*flag))
		sleep_ns(MS / 2);
}

/* Is @p blocked on @m (NULL: any mutex) and off every CPU?  One look. */
bool px_blocked_on(struct task *p, struct mutex *m)
{
	struct mutex *on = READ_ONCE(p->blocked_on);

	return (m ? on == m : on != NULL) && !READ_ONCE(p->on_cpu);
}

/*
 * Wait until @p is blocked on a mutex, off every CPU, and stays so over
 * one more nap without being switched in: asleep in the lock's slow
 * path, its arrival's work done.  One look is not enough: a waiter
 * preempted between setting blocked_on and its first schedule() (inside
 * its priority-inheritance walk) looks the same for a moment, and a
 * case that read the owner's boost then saw none (mutex_order, 8 CPUs,
 * a loaded host).  False if @p exited first (a waiter with a timeout
 * that expired while this vCPU did not run: that wait never ended, and
 * sched_invariant.woken_waiter_moves timed out).
 */
bool px_wait_blocked(struct task *p)
{
	for (;;) {
		uint64_t sw;

		while (!px_blocked_on(p, NULL)) {
			if (smp_load_acquire(&p->state) == TASK_DEAD)
				return false;
			sleep_ns(MS / 2);
		}
		sw = READ_ONCE(p->nr_switches);
		sleep_ns(MS / 2);
		if (px_blocked_on(p, NULL) && READ_ONCE(p->nr_switches) == sw)
			return true;
	}
}

void px_join(struct task *p)
{
	if (p)
		thread_join(p);
}

/* The first CPU not in @used, or -1. */
