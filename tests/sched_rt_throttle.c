/*
 * sched_rt_throttle.c - the RT throttling cases of suite sched_rt
 * (kernel/sched/rt.c, sched_rt_set_bandwidth): fair tasks get what RT
 * leaves of each period, and time RT used past its budget is owed by
 * the next periods.  The suite's table is in sched_rt.c.
 */
#include "helpers.h"
#include "cpu.h"
#include "sched.h"
#include "timer.h"
#include "arch.h"
#include "errno.h"
#include "../kernel/sched/testing.h"
#include "sched_rt.h"

/* ---- Throttling -------------------------------------------------------- */

static volatile bool thr_stop;
/* Host stalls charged to each hog as its own run time (a jump of over
 * 1 ms in it between two reads): [0] the fair hog, [1] the RT hog. */
static volatile uint64_t thr_stalled[2];

static void thr_hog(void *arg)
{
	volatile uint64_t *stalled = arg;
	struct task *self = current();
	uint64_t prev = task_exec_ns(self), now;

	while (!thr_stop) {
		now = task_exec_ns(self);
		if (now - prev > MS)
			*stalled += now - prev;
		prev = now;
	}
}

/* With RT bandwidth 60 ms per 100 ms, a fair hog sharing a CPU with an RT
 * hog gets the rest (~40%); without throttling it would get nothing. */
void throttling_lets_fair_run(struct ktest *t)
{
	uint64_t rt0, per0, fair_ns, rt_ns, idle_ns, win, st0[2], st[2];
	struct task *idle;
	int x = other_online_cpu();
	struct task *hog, *rt;

	KEXPECT_EQ(t, sched_rt_set_bandwidth(0, 100 * MS), -EINVAL);
	KEXPECT_EQ(t, sched_rt_set_bandwidth(200 * MS, 100 * MS), -EINVAL);
	sched_rt_get_bandwidth(&rt0, &per0);
	KASSERT_EQ(t, sched_rt_set_bandwidth(60 * MS, 100 * MS), 0);
	thr_stop = false;
	thr_stalled[0] = thr_stalled[1] = 0;
	hog = rt_test_spawn(t, "fair-hog", thr_hog, (void *)&thr_stalled[0],
		    SCHED_NORMAL, 0, 1ULL << x);
	rt = rt_test_spawn(t, "rt-thr", thr_hog, (void *)&thr_stalled[1], SCHED_FIFO,
		   20, 1ULL << x);
	KASSERT(t, hog && rt);
	/* Both hogs have run on x before the window: a vCPU that the host
	 * stopped while x was idle, before it switched to them, charges
	 * the whole stop to idle at its next switch (seen: idle 104 ms of
	 * a 500 ms window, riscv64, 8 CPUs on a loaded host). */
	for (uint64_t t0 = clock_ns(); (!READ_ONCE(hog->nr_switches) ||
	     !READ_ONCE(rt->nr_switches)) && clock_ns() - t0 < NSEC_PER_SEC;)
		sleep_ns(MS);
	sleep_ns(20 * MS);
	/* The window is what the clock says: our own wakeup may be late. */
	idle = cpu_rq(x)->idle;
	win = clock_ns();
	fair_ns = hog->sum_exec_ns;
	rt_ns = rt->sum_exec_ns;
	idle_ns = idle->sum_exec_ns;
	st0[0] = thr_stalled[0];
	st0[1] = thr_stalled[1];
	sleep_ns(500 * MS);
	fair_ns = hog->sum_exec_ns - fair_ns;
	rt_ns = rt->sum_exec_ns - rt_ns;
	idle_ns = idle->sum_exec_ns - idle_ns;
	st[0] = MIN(thr_stalled[0] - st0[0], fair_ns);
	st[1] = MIN(thr_stalled[1] - st0[1], rt_ns);
	win = clock_ns() - win;
	thr_stop = true;
	thread_join(rt);
	thread_join(hog);
	sched_rt_set_bandwidth(rt0, per0);
	printk("# throttling_lets_fair_run: rt %llu ms, fair %llu ms, idle "
	       "%llu ms of %llu; host stalls in them: rt %llu ms, fair %llu ms "
	       "(rt %llu ms since it started)\n",
	       (unsigned long long)(rt_ns / MS),
	       (unsigned long long)(fair_ns / MS),
	       (unsigned long long)(idle_ns / MS), (unsigned long long)(win / MS),
	       (unsigned long long)(st[1] / MS), (unsigned long long)(st[0] / MS),
	       (unsigned long long)(thr_stalled[1] / MS));
	/* Shares of what the two got: 60/40 (observed 37..40% fair at 1-8
	 * CPUs), with wide margins: under TCG at 8 vCPUs a late period
	 * timer lets fair overrun (seen 40/60, and 73/27 on a 2-core host
	 * running four 8-CPU guests); late ticks let RT overrun (seen
	 * 80/20, and 91/9 before the overrun was kept as a debt; see
	 * throttling_debt_carries_over).  Without throttling fair gets nothing; with RT always
	 * stepping aside, RT gets nothing: 10% either way tells those
	 * apart from a noisy split.  The CPU is never idle:
	 * the fair hog always wants it.  (Not "the two got the window":
	 * another CPU's counters stand still while a host stalls its vCPU,
	 * seen 127 ms of 1503 on an overloaded host.) */
	KEXPECT(t, idle_ns < win / 10);
	/* Each share against what the other one ran: a stall charged to a
	 * hog is time it did not run (its vCPU did not), and would make the
	 * other's share look small. */
	KEXPECT(t, fair_ns * 100 >= (fair_ns + rt_ns - st[1]) * 10);
	/* RT starved by its own debt: stalls charged to it, since it
	 * started, of a whole window's budget (300 ms) are owed across the
	 * window, and its share says nothing then. */
	if (rt_ns * 100 < (rt_ns + fair_ns - st[0]) * 10 && !t->failures &&
	    thr_stalled[1] >= 300 * MS)
		KSKIP(t, "host stalls charged to the RT hog left it in debt");
	KEXPECT(t, rt_ns * 100 >= (rt_ns + fair_ns - st[0]) * 10);
}

/* throttling_debt_carries_over's RT bandwidth and debt_rt's overrun. */
#define DEBT_BUDGET_NS (10 * MS)
#define DEBT_PERIOD_NS (100 * MS)
#define DEBT_OVERRUN_NS (35 * MS)

/* What debt_rt saw: how long it waited after its overrun, the run time
 * charged to it for the overrun (the spin, and a host stall before the
 * tick that charged it), and the host stalls of its CPU meanwhile (as
 * the fair hog saw them: time charged to it that it did not run). */
static volatile uint64_t debt_gap_ns, debt_charged_ns, debt_stalls_ns;

static void debt_rt(void *arg)
{
	struct task *self = current();
	uint64_t t0, last, now, exec0, st0;
	unsigned long flags;

	(void)arg;
	/* Overrun: 35 ms with the tick held off, 3.5 budgets at once,
	 * as a host that stops the vCPU for that long would make it. */
	flags = arch_irq_save();
	exec0 = task_exec_ns(self);
	t0 = clock_ns();
	while (clock_ns() - t0 < DEBT_OVERRUN_NS)
		;
	st0 = thr_stalled[0];
	last = clock_ns();	/* the wait starts now, when the tick comes */
	arch_irq_restore(flags);
	/* Nothing else preempts a FIFO 20 task pinned here for 50 ms: the
	 * first such gap is the throttle's. */
	while (!thr_stop) {
		now = clock_ns();
		if (now - last > 50 * MS) {
			debt_charged_ns = task_exec_ns(self) - exec0;
			debt_stalls_ns = thr_stalled[0] - st0;
			debt_gap_ns = now - last;
			break;
		}
		last = now;
	}
}

/*
 * At 10 ms / 100 ms, an RT task that used 35 ms at once pays the debt
 * back: the period that saw the overrun and the next two give it
 * nothing, so it waits the rest of its period and two more, 200 to 300
 * ms (the periods keep their grid: rt_bandwidth.c).  A kernel that
 * forgets the debt at the period
 * end lets it run again within 100 ms (and a loaded host, whose late
 * ticks are such overruns, gives RT far more than its share).
 */
void throttling_debt_carries_over(struct ktest *t)
{
	int x = other_online_cpu();
	struct task *hog, *rt;
	uint64_t rt0, per0, t0, due;

	sched_rt_get_bandwidth(&rt0, &per0);
	KASSERT_EQ(t, sched_rt_set_bandwidth(DEBT_BUDGET_NS, DEBT_PERIOD_NS), 0);
	thr_stop = false;
	thr_stalled[0] = 0;
	debt_gap_ns = debt_charged_ns = debt_stalls_ns = 0;
	hog = rt_test_spawn(t, "fair-hog", thr_hog, (void *)&thr_stalled[0],
		    SCHED_NORMAL, 0, 1ULL << x);
	KASSERT(t, hog);
	sleep_ns(5 * MS);		/* the hog is what RT steps aside for */
	rt = rt_test_spawn(t, "rt-debt", debt_rt, NULL, SCHED_FIFO, 20, 1ULL << x);
	/* The hog wants the CPU until we stop it: RT that runs again
	 * before then was let run by its class, not by an idle CPU. */
	t0 = clock_ns();
	while (rt && !debt_gap_ns && clock_ns() - t0 < 5 * NSEC_PER_SEC)
		sleep_ns(10 * MS);
	thr_stop = true;
	if (rt)
		thread_join(rt);
	thread_join(hog);
	sched_rt_set_bandwidth(rt0, per0);
	/*
	 * When it may run again: its CPU's RT time was what it had used in
	 * its period (under one budget) plus the charge, and each period
	 * end takes one budget off; it runs once at most one budget is
	 * left, so after at most charge/budget period ends (rounded up),
	 * the first within a period.  The wait began before the charging
	 * tick: a host stall there (charge - 35 ms) is in both.  A host
	 * that stops its vCPU during the wait delays the period timer and
	 * the RT task's resumption by as much (the hog's stalls); 50 ms
	 * more for timers and wakeups a few ticks late.  Seen: 3004 ms
	 * waited under a 2-core host running three 8-CPU guests, where a
	 * fixed bound of 2 s could not tell a stall from a lost period.
	 */
	due = (debt_charged_ns > DEBT_OVERRUN_NS ?
	       debt_charged_ns - DEBT_OVERRUN_NS : 0) +
	      (debt_charged_ns + DEBT_BUDGET_NS - 1) / DEBT_BUDGET_NS *
	      DEBT_PERIOD_NS + debt_stalls_ns + 50 * MS;
	printk("# throttling_debt_carries_over: waited %llu ms, charged %llu ms "
	       "for the overrun, host stalls %llu ms while waiting, due within "
	       "%llu ms\n", (unsigned long long)(debt_gap_ns / MS),
	       (unsigned long long)(debt_charged_ns / MS),
	       (unsigned long long)(debt_stalls_ns / MS),
	       (unsigned long long)(due / MS));
	KASSERT(t, rt);
	KEXPECT(t, debt_gap_ns != 0);	/* it ran again while the hog ran */
	/* 180 tells a paid debt from the 100 of a forgotten one. */
	KEXPECT(t, debt_gap_ns > 180 * MS);
	KEXPECT(t, debt_gap_ns <= due);
}
