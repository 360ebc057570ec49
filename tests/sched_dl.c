/*
 * sched_dl.c - tests of the deadline class (kernel/sched/deadline.c):
 * EDF + CBS keep a feasible set on time, an overrunning task is throttled
 * to its bandwidth without hurting the others, admission control, class
 * precedence over RT, and global EDF across CPUs (sched_dl_smp.c).
 *
 * Times are guest time (clock_ns()); a task's own CPU time is read with
 * task_exec_ns() so that a preempted task does not count others' time as
 * its work.
 */
#include "helpers.h"
#include "cpu.h"
#include "sched.h"
#include "timer.h"
#include "errno.h"
#include "../kernel/sched/testing.h"
#include "sched_dl.h"

/*
 * Host noise.  Without -icount the guest clock is the host's: while the
 * host does not run a vCPU, the task on it seems to run all along (its
 * budget goes) and timers fire late.  No scheduler meets a 2 ms deadline
 * across a 20 ms host stall, so the periodic cases log stalls and excuse
 * only a failed job whose window overlaps one.  A stall is seen by a
 * running task as its own CPU time jumping by more than STALL_NS between
 * two reads in its busy loop, or as a wakeup from sleep_until() coming
 * late.  A scheduler bug still fails: it misses deadlines without
 * stalls.  Under -icount there are none.
 */
#define STALL_NS (150 * US)
#define MAX_STALLS 2048

static struct { uint64_t start, end; } stalls[MAX_STALLS];
static int nr_stalls;

static void log_stall(uint64_t start, uint64_t end)
{
	int i = __atomic_fetch_add(&nr_stalls, 1, __ATOMIC_RELAXED);

	if (i < MAX_STALLS) {
		stalls[i].start = start;
		stalls[i].end = end;
	}
}

/* The stall log in one line: a deadline task charged for a stall of
 * seconds owes periods for several times as long (CBS throttles it until
 * the debt is paid), so the longest says whether a late job, or a case
 * past its timeout, was the host's doing. */
static void print_stalls(void)
{
	uint64_t longest = 0, at = 0;
	int n = MIN(nr_stalls, MAX_STALLS);

	for (int i = 0; i < n; i++)
		if (stalls[i].end - stalls[i].start > longest) {
			longest = stalls[i].end - stalls[i].start;
			at = stalls[i].start;
		}
	printk("# %d host stalls logged, the longest %llu us (at %llu ms)\n",
	       nr_stalls, (unsigned long long)(longest / US),
	       (unsigned long long)(at / MS));
}

/* Did a stall overlap [from, to]?  All logged stalls, after the run. */
static bool stalled_during(uint64_t from, uint64_t to)
{
	if (nr_stalls > MAX_STALLS)
		return true;		/* log overflowed: can't tell */
	for (int i = 0; i < nr_stalls; i++)
		if (stalls[i].end >= from && stalls[i].start <= to)
			return true;
	return false;
}

/* Burn @ns of the caller's own CPU time, logging stalls. */
static void burn_exec_ns(uint64_t ns)
{
	struct task *self = current();
	uint64_t start = task_exec_ns(self), prev = start, now;

	while ((now = task_exec_ns(self)) - start < ns) {
		if (now - prev > STALL_NS) {
			uint64_t c = clock_ns();

			log_stall(c - (now - prev), c);
		}
		prev = now;
	}
}

/* sleep_until(), and a wakeup later than STALL_NS logged as a host
 * stall (the deadline task runs as soon as its timer fires). */
static void sleep_until_logged(uint64_t t)
{
	uint64_t now;

	sleep_until(t);
	now = clock_ns();
	if (now - t > STALL_NS)
		log_stall(t, now);
}

int dl_test_spawn(struct task **t, const char *name, void (*fn)(void *),
		  void *arg, const struct sched_attr *attr, uint64_t affinity)
{
	struct thread_opts o = { .attr = attr, .affinity = affinity };

	return thread_spawn(t, name, fn, arg, &o);
}

/* ---- A periodic task: one job of @work per period ------------------ */

#define MAX_FAILED 128

struct periodic {
	uint64_t runtime, period, work;	/* ns */
	int jobs;
	uint64_t start;			/* first release */
	/* results */
	int failed;			/* jobs late or counted as misses */
	uint64_t failed_release[MAX_FAILED];
	uint64_t worst_response;	/* longest release -> end of job */
	uint64_t nr_misses;		/* the kernel's count, p->dl.nr_misses */
	uint64_t nr_throttled;
	int done;			/* jobs run (all of them, or up to stop) */
	volatile bool stop;		/* join_periodic() gave up waiting */
};

/*
 * One job per period: sleep to the release, burn @work of own CPU time.
 * A job fails if it ends after release + period (its absolute deadline)
 * or if the kernel counted a miss for this task meanwhile.
 */
static void periodic_fn(void *arg)
{
	struct periodic *pd = arg;
	struct task *self = current();
	uint64_t release = pd->start;

	for (int k = 0; k < pd->jobs && !pd->stop; k++, release += pd->period) {
		uint64_t misses = READ_ONCE(self->dl.nr_misses), end;

		sleep_until_logged(release);
		burn_exec_ns(pd->work);
		end = clock_ns();
		if (end > release + pd->period || READ_ONCE(self->dl.nr_misses) != misses) {
			if (pd->failed < MAX_FAILED)
				pd->failed_release[pd->failed] = release;
			pd->failed++;
		}
		if (end - release > pd->worst_response)
			pd->worst_response = end - release;
		pd->done = k + 1;
	}
	pd->nr_misses = self->dl.nr_misses;
	pd->nr_throttled = self->dl.nr_throttled;
}

/*
 * Judge @pd's run: every failed job must overlap a host stall (window
 * from STALL_SHADOW periods before its release - a stall's overrun and
 * late timers take a few periods to work off - to its deadline).
 * Returns the failures no stall explains.
 */
#define STALL_SHADOW 8
static int unexcused_failures(struct periodic *pd)
{
	int bad = 0;

	if (pd->failed > MAX_FAILED)
		return pd->failed;
	for (int i = 0; i < pd->failed; i++) {
		uint64_t r = pd->failed_release[i];

		if (!stalled_during(r - STALL_SHADOW * pd->period, r + pd->period))
			bad++;
	}
	return bad;
}

static int spawn_periodic(struct ktest *t, struct task **task, struct periodic *pd,
			  int cpu)
{
	struct sched_attr a = dl_attr(pd->runtime, pd->period, pd->period);
	int err = dl_test_spawn(task, "dl-periodic", periodic_fn, pd, &a, 1ULL << cpu);

	KEXPECT_EQ(t, err, 0);
	return err;
}

/*
 * Join @task, running @pd, giving it @slack beyond its last period.  A
 * deadline task charged for a host stall owes periods for several times
 * as long (the CBS throttles it until the debt is paid: a periodic task
 * once answered its job 9 s late and took its case past the timeout), so
 * one still running then is told to stop after its job and taken out of
 * the deadline class, which ends a throttle; report_periodic() judges
 * the jobs it ran.
 */
static void join_periodic(struct task *task, struct periodic *pd, uint64_t slack)
{
	static const struct sched_attr normal = { .policy = SCHED_NORMAL };
	uint64_t limit = pd->start + pd->jobs * pd->period + slack;

	while (READ_ONCE(task->state) != TASK_DEAD && clock_ns() < limit)
		sleep_ns(10 * MS);
	if (READ_ONCE(task->state) != TASK_DEAD) {
		uint64_t now = clock_ns();
		int64_t dl_in = (int64_t)(READ_ONCE(task->dl.deadline) - now);

		printk("# periodic task still running %llu ms after its last "
		       "period, %d of %d jobs done: %sthrottled, runtime %lld us, "
		       "deadline in %lld ms; stopping it\n",
		       (unsigned long long)(slack / MS), pd->done, pd->jobs,
		       READ_ONCE(task->dl.dl_throttled) ? "" : "not ",
		       (long long)READ_ONCE(task->dl.runtime) / (long long)US,
		       (long long)dl_in / (long long)MS);
		pd->stop = true;
		sched_setattr(task, &normal);
	}
	thread_join(task);
}

/*
 * A host that stalled the guest more than once per 100 periods of the
 * case is too noisy for a timing verdict: a stall while a task runs is
 * charged to it as CPU time, and timers there come tens of ms late.
 */
static bool host_noisy(int periods)
{
	return nr_stalls * 100 > periods;
}
#define HOST_NOISY_REASON "host too noisy: vCPU stalls in over 1% of periods"

/*
 * Print and judge periodic runs (see unexcused_failures).  A host that
 * stalled the guest more than once per 100 jobs is too noisy for a
 * verdict on deadlines (timers there come tens of ms late): failures
 * then skip the case instead of failing it.  So is one that throttled
 * the periodic tasks in over 1% of their periods: each uses 30% of its
 * budget, so a throttle means its vCPU ran for less than a third of the
 * time charged to it (a host sharing its cores finely, in gaps under
 * STALL_NS that the stall log cannot see; seen with four 8-CPU guests
 * on two cores: every job late, 35 stalls logged, 350 throttles per
 * task).  Under -icount, or on a quiet host, the tasks are never
 * throttled and any failure no stall explains fails the case.
 */
static void report_periodic(struct ktest *t, struct periodic *pd, int n)
{
	int failed = 0, unexcused = 0, jobs = 0;
	uint64_t throttled = 0;

	print_stalls();
	for (int i = 0; i < n; i++) {
		/* Jobs a stop left unrun failed, and no stall excuses them:
		 * only a noisy host's skip below does. */
		int unrun = pd[i].jobs - pd[i].done;
		int bad = unexcused_failures(&pd[i]) + unrun;

		printk("# task %d (%llu/%llu us): %d jobs, worst response %llu us, "
		       "%d failed (%d not during a host stall, %d never run), "
		       "kernel counted %llu misses, throttled %llu times\n",
		       i, (unsigned long long)(pd[i].runtime / US),
		       (unsigned long long)(pd[i].period / US), pd[i].jobs,
		       (unsigned long long)(pd[i].worst_response / US),
		       pd[i].failed + unrun, bad, unrun,
		       (unsigned long long)pd[i].nr_misses,
		       (unsigned long long)pd[i].nr_throttled);
		failed += pd[i].failed + unrun;
		unexcused += bad;
		jobs += pd[i].jobs;
		throttled += pd[i].nr_throttled;
	}
	if (failed && host_noisy(jobs) && !t->failures)
		KSKIP(t, HOST_NOISY_REASON);
	if (failed && throttled * 100 > (uint64_t)jobs && !t->failures)
		KSKIP(t, "host too slow: tasks using 30% of their budget were "
		      "throttled in over 1% of periods");
	KEXPECT_EQ(t, unexcused, 0);
}

/* The CPU the single-CPU cases use: the last online one. */
static int test_cpu(void)
{
	int cpu = ncpus - 1;

	while (!cpus[cpu].online)
		cpu--;
	return cpu;
}

/*
 * Three tasks on one CPU reserving 30% each (90% in all), each doing 30%
 * of its budget per period (the rest covers kernel overhead, which under
 * TCG is large and is charged to the budget), for 1000 periods of the
 * slowest: no deadline missed, by the kernel's count and by each job's
 * own clock.
 */
static void dl_feasible_set_meets_deadlines(struct ktest *t)
{
	struct periodic pd[3] = {
		{ .runtime = 600 * US, .period = 2 * MS, .jobs = 2000 },
		{ .runtime = 900 * US, .period = 3 * MS, .jobs = 1333 },
		{ .runtime = 1200 * US, .period = 4 * MS, .jobs = 1000 },
	};
	struct task *tasks[3];
	uint64_t start = clock_ns() + 10 * MS;

	nr_stalls = 0;
	int cpu = test_cpu(), n = 0;

	for (int i = 0; i < 3; i++) {
		pd[i].work = pd[i].runtime * 3 / 10;
		pd[i].start = start;
		if (spawn_periodic(t, &tasks[i], &pd[i], cpu))
			break;
		n++;
	}
	for (int i = 0; i < n; i++)
		join_periodic(tasks[i], &pd[i], 5 * NSEC_PER_SEC);
	KASSERT_EQ(t, n, 3);
	report_periodic(t, pd, 3);
}

/* ---- Overrun ----------------------------------------------------------- */

volatile bool hog_stop;

/* Runs until hog_stop, logging stalls like burn_exec_ns(). */
void dl_hog(void *arg)
{
	struct task *self = current();
	uint64_t prev = task_exec_ns(self), now;

	(void)arg;
	while (!READ_ONCE(hog_stop)) {
		now = task_exec_ns(self);
		if (now - prev > STALL_NS) {
			uint64_t c = clock_ns();

			log_stall(c - (now - prev), c);
		}
		prev = now;
	}
}

/*
 * A deadline task that never stops (1 ms every 5 ms) shares a CPU with a
 * periodic one (0.6 ms every 2 ms, using 0.18): the hog is throttled to
 * ~20% of the CPU and the periodic task misses nothing.
 */
static void dl_overrun_is_throttled(struct ktest *t)
{
	struct sched_attr ha = dl_attr(1 * MS, 5 * MS, 5 * MS);
	struct periodic pd = { .runtime = 600 * US, .period = 2 * MS, .jobs = 750,
			       .work = 180 * US };
	int cpu = test_cpu();
	struct task *hog, *per;
	uint64_t t0, e0, t1, e1, thr0, share, throttled;

	hog_stop = false;
	nr_stalls = 0;
	KASSERT_EQ(t, dl_test_spawn(&hog, "dl-hog", dl_hog, NULL, &ha, 1ULL << cpu), 0);
	pd.start = clock_ns() + 10 * MS;
	if (spawn_periodic(t, &per, &pd, cpu)) {
		hog_stop = true;
		thread_join(hog);
		return;
	}
	sleep_until_logged(pd.start + 100 * MS);
	t0 = clock_ns();
	e0 = READ_ONCE(hog->sum_exec_ns);
	thr0 = READ_ONCE(hog->dl.nr_throttled);
	sleep_ns(1000 * MS);
	t1 = clock_ns();
	e1 = READ_ONCE(hog->sum_exec_ns);
	/* Per mille of the CPU the hog got. */
	share = (e1 - e0) * 1000 / (t1 - t0);
	throttled = READ_ONCE(hog->dl.nr_throttled) - thr0;
	printk("# hog share %llu/1000 (reserved 200), throttled %llu times\n",
	       (unsigned long long)share, (unsigned long long)throttled);
	join_periodic(per, &pd, 2 * NSEC_PER_SEC);
	hog_stop = true;
	thread_join(hog);
	/* 200 hog periods in the window: throttled again and again (a late
	 * budget timer on a busy host lets it overrun into later periods,
	 * so fewer throttles; the share is what counts).  Host stalls the
	 * hog sits through count as its CPU time: on a noisy host (stalls
	 * in over 1% of the periodic task's 500 periods in the window) a
	 * share out of range says nothing about the scheduler. */
	if (!(share >= 150 && share <= 260 && throttled >= 10) && host_noisy(500)) {
		print_stalls();
		KSKIP(t, HOST_NOISY_REASON);
	}
	KEXPECT(t, share >= 150 && share <= 260);
	KEXPECT(t, throttled >= 10);
	report_periodic(t, &pd, 1);
}

/* ---- The smallest parameters ------------------------------------------ */

static volatile bool min_stop;

static void min_fair_spin(void *arg)
{
	(void)arg;
	while (!READ_ONCE(min_stop))
		;
}

/*
 * runtime == deadline == 1024 ns (accepted once: its timers came due
 * faster than the timer interrupt could return, and the CPU hung) is
 * -EINVAL.  A task at the smallest parameters allowed, 10 us every
 * 100 us, busy (dl_hog) beside a fair task pinned to the same CPU: over
 * 200 ms the fair task keeps about 90% of the CPU (at least half is
 * required), the deadline task runs and is throttled, and the boot goes
 * on.  A host stall while the deadline task runs is charged to it as
 * run time: one of tens of ms takes that much from the fair task's
 * window (CBS pays it back later, by throttling it as long).  dl_hog
 * logs such stalls; with one logged, a share under half is no verdict.
 */
static void dl_minimum_leaves_the_cpu_to_others(struct ktest *t)
{
	struct sched_attr wedge = dl_attr(1024, 1024, 0);
	struct sched_attr a = dl_attr(DL_RUNTIME_MIN_NS, DL_PERIOD_MIN_NS,
				      DL_PERIOD_MIN_NS);
	uint64_t t0, f0, d0, fair_pm, dl_pm, dl_ns, throttled;
	int cpu = test_cpu();
	struct task *fair, *dl;

	KEXPECT_EQ(t, sched_setattr(current(), &wedge), -EINVAL);
	min_stop = hog_stop = false;
	nr_stalls = 0;
	KASSERT_EQ(t, dl_test_spawn(&fair, "dl-min-fair", min_fair_spin, NULL, NULL,
			    1ULL << cpu), 0);
	if (dl_test_spawn(&dl, "dl-min", dl_hog, NULL, &a, 1ULL << cpu)) {
		min_stop = true;
		thread_join(fair);
		KASSERT(t, 0);
	}
	sleep_ns(20 * MS);			/* both running */
	t0 = clock_ns();
	f0 = task_exec_ns(fair);
	d0 = task_exec_ns(dl);
	sleep_ns(200 * MS);
	fair_pm = (task_exec_ns(fair) - f0) * 1000 / (clock_ns() - t0);
	dl_pm = (task_exec_ns(dl) - d0) * 1000 / (clock_ns() - t0);
	/* Over its whole life: a stall before the window may have left it
	 * throttled all through the window. */
	dl_ns = task_exec_ns(dl);
	throttled = READ_ONCE(dl->dl.nr_throttled);
	min_stop = hog_stop = true;
	thread_join(dl);
	thread_join(fair);
	printk("# cpu%d over 200 ms: fair task %llu/1000, deadline task "
	       "(10/100 us) %llu/1000; it was throttled %llu times in all; "
	       "%d host stalls logged\n", cpu, (unsigned long long)fair_pm,
	       (unsigned long long)dl_pm, (unsigned long long)throttled,
	       nr_stalls);
	KEXPECT(t, dl_ns > 0);
	KEXPECT(t, throttled >= 1);
	if (fair_pm < 500 && nr_stalls && !t->failures)
		KSKIP(t, "host stalled the deadline task: its overrun took the "
		      "fair task's share");
	KEXPECT(t, fair_pm >= 500);
}

/* ---- Admission control ------------------------------------------------ */

static volatile bool idle_stop, plain_stop;

/* A task that just sleeps until *arg: as a deadline task it holds its
 * bandwidth and uses none of it. */
static void dl_sleeper(void *arg)
{
	volatile bool *stop = arg;

	while (!*stop)
		sleep_ns(1 * MS);
}

/*
 * One task of 90% per CPU fits under the 95% limit; another 50% does not
 * (for up to 9 CPUs) and is refused with -EBUSY, by thread_spawn and by
 * sched_setattr, leaving the task unchanged.  When a task leaves (a
 * switch to SCHED_NORMAL, or exit), its bandwidth is free again.  Bad
 * parameters are -EINVAL; the limit is settable within 1..100%.
 */
static void dl_admission_control(struct ktest *t)
{
	static const struct sched_attr bad[] = {
		{ .policy = SCHED_DEADLINE, .dl_runtime = 2 * MS, .dl_deadline = 1 * MS },
		{ .policy = SCHED_DEADLINE, .dl_runtime = 1 * MS, .dl_deadline = 3 * MS,
		  .dl_period = 2 * MS },
		{ .policy = SCHED_DEADLINE, .dl_runtime = 0, .dl_deadline = 1 * MS },
		{ .policy = SCHED_DEADLINE, .dl_runtime = 1 * MS, .dl_deadline = 1 * MS,
		  .dl_period = 5 * NSEC_PER_SEC },
	};
	struct sched_attr big = dl_attr(9 * MS, 10 * MS, 10 * MS);
	struct sched_attr half = dl_attr(5 * MS, 10 * MS, 10 * MS);
	struct sched_attr normal = { .policy = SCHED_NORMAL }, got;
	uint64_t base = dl_bw_total();
	int n = online_cpus(), nbig = 0;
	struct task *big_t[NR_CPUS], *extra = NULL, *plain;

	KEXPECT_EQ(t, dl_bw_limit_get(), 95);
	KEXPECT_EQ(t, dl_bw_limit_set(0), -EINVAL);
	KEXPECT_EQ(t, dl_bw_limit_set(101), -EINVAL);
	KASSERT(t, n <= 9);
	idle_stop = plain_stop = false;
	KASSERT_EQ(t, dl_test_spawn(&plain, "dl-plain", dl_sleeper, (void *)&plain_stop, NULL, 0), 0);
	for (int i = 0; i < (int)ARRAY_SIZE(bad); i++)
		KEXPECT_EQ(t, sched_setattr(plain, &bad[i]), -EINVAL);

	for (int i = 0; i < n; i++) {
		if (dl_test_spawn(&big_t[i], "dl-big", dl_sleeper, (void *)&idle_stop, &big, 0))
			break;
		nbig++;
	}
	KEXPECT_EQ(t, nbig, n);
	KEXPECT_EQ(t, dl_bw_total() - base, (uint64_t)nbig * ((9ULL << 20) / 10));
	KEXPECT_EQ(t, dl_test_spawn(&extra, "dl-extra", dl_sleeper, (void *)&idle_stop, &half, 0),
		   -EBUSY);
	KEXPECT_EQ(t, sched_setattr(plain, &half), -EBUSY);
	sched_getattr(plain, &got);
	KEXPECT_EQ(t, got.policy, SCHED_NORMAL);
	KEXPECT(t, plain->sched_class == &fair_sched_class);
	/* The limit cannot go below what is admitted. */
	KEXPECT_EQ(t, dl_bw_limit_set(50), -EBUSY);
	KEXPECT_EQ(t, dl_bw_limit_get(), 95);

	/* A 90% task leaves by switching to SCHED_NORMAL: room for 50%. */
	KEXPECT_EQ(t, sched_setattr(big_t[0], &normal), 0);
	KEXPECT_EQ(t, sched_setattr(plain, &half), 0);
	KEXPECT(t, plain->sched_class == &dl_sched_class);
	/* No room for 90% more until the 50% task exits. */
	KEXPECT_EQ(t, dl_test_spawn(&extra, "dl-extra", dl_sleeper, (void *)&idle_stop, &big, 0),
		   -EBUSY);
	plain_stop = true;
	thread_join(plain);
	KEXPECT_EQ(t, dl_test_spawn(&extra, "dl-extra", dl_sleeper, (void *)&idle_stop, &big, 0), 0);

	idle_stop = true;
	for (int i = 0; i < nbig; i++)
		thread_join(big_t[i]);
	if (extra)
		thread_join(extra);
	KEXPECT_EQ(t, dl_bw_total(), base);
}

static void dl_exits_at_once(void *arg)
{
	(void)arg;
}

/* A task that has exited (its bandwidth given back) is not admitted
 * again: that bandwidth would never be given back. */
static void dl_exited_task_not_admitted(struct ktest *t)
{
	struct sched_attr half = dl_attr(5 * MS, 10 * MS, 10 * MS);
	uint64_t base = dl_bw_total();
	struct task *p;

	KASSERT_EQ(t, dl_test_spawn(&p, "dl-gone", dl_exits_at_once, NULL, NULL, 0), 0);
	while (READ_ONCE(p->state) != TASK_DEAD)
		sleep_ns(100 * NSEC_PER_USEC);
	KEXPECT_EQ(t, sched_setattr(p, &half), -ESRCH);
	KEXPECT_EQ(t, dl_bw_total(), base);
	thread_join(p);
	KEXPECT_EQ(t, dl_bw_total(), base);
}

/* ---- Class precedence ------------------------------------------------- */

struct prec {
	int cpu;
	volatile uint64_t rt_started;	/* clock when the RT task first ran */
	volatile uint64_t rt_count;	/* RT loop iterations */
	struct task *rt;
	int spawn_err;
	bool rt_ran_early;
	int rt_ran_during;		/* windows in which RT ran */
	uint64_t wake_latency, dl_throttled;
	/* Each wakeup: how late its timer fired, how long from there to the
	 * deadline task's first instruction and how far RT got meanwhile,
	 * RT iterations during the burn, the burn's length by the clock,
	 * switches of the deadline task meanwhile. */
	uint64_t late[3], to_run[3], rt_before_run[3];
	uint64_t rt_runs[3], burn_wall[3], switches[3];
	/* Set by the wakeup's timer callback. */
	struct task *dl;
	volatile uint64_t woken_ns, woken_rt_count;
};

static void prec_rt(void *arg)
{
	struct prec *pr = arg;
	uint64_t end;

	pr->rt_started = clock_ns();
	end = pr->rt_started + 60 * MS;
	while (clock_ns() < end)
		pr->rt_count++;
}

/* The deadline task's wakeup, on its CPU (the timer was armed there),
 * interrupting the RT task: note when and how far RT had got. */
static void prec_wake_fn(struct timer *tm)
{
	struct prec *pr = tm->data;

	pr->woken_rt_count = pr->rt_count;
	smp_store_release(&pr->woken_ns, clock_ns());
	wake_up(pr->dl);
}

/*
 * The deadline task makes an RT task runnable on its own CPU and keeps
 * running (RT must wait); then sleeps so that RT runs, and on each
 * wakeup takes the CPU back at once (RT must stop).  "At once" is
 * judged by what RT did between the wakeup (its timer's callback, on
 * this CPU) and the deadline task's first instruction: nothing, if the
 * wakeup preempted it; the time from the callback is judged too (best
 * of three), and when the timer itself fired only printed: on a loaded
 * host a vCPU may not run for hundreds of ms (all three wakeups 29 to
 * 391 ms late, x86_64 at 8 CPUs under three loops), which says nothing
 * about the scheduler.  So is "RT ran while the deadline task had the
 * CPU": seen once, on an x86_64 8-CPU boot whose vCPUs crawled, not in
 * 14 loaded boots since; an RT task that beats deadline in the pick
 * does it in every window.  Each window is printed, to tell which.
 */
static void prec_dl(void *arg)
{
	struct prec *pr = arg;
	struct sched_attr fifo = { .policy = SCHED_FIFO, .rt_priority = 50 };
	struct timer tm;

	pr->dl = current();
	pr->spawn_err = dl_test_spawn(&pr->rt, "prec-rt", prec_rt, pr, &fifo, 1ULL << pr->cpu);
	if (pr->spawn_err)
		return;
	burn_exec_ns(2 * MS);
	pr->rt_ran_early = pr->rt_started != 0;
	pr->wake_latency = ~0ULL;
	timer_init(&tm, prec_wake_fn, pr);
	for (int i = 0; i < 3; i++) {
		uint64_t target = clock_ns() + 4 * MS, c0, w0, s0;

		pr->woken_ns = 0;
		timer_arm(&tm, target);
		for (;;) {
			WRITE_ONCE(pr->dl->state, TASK_SLEEPING);
			smp_mb();
			if (smp_load_acquire(&pr->woken_ns))
				break;
			schedule();
		}
		WRITE_ONCE(pr->dl->state, TASK_RUNNING);
		w0 = clock_ns();
		pr->rt_before_run[i] = pr->rt_count - pr->woken_rt_count;
		timer_cancel(&tm);
		pr->late[i] = pr->woken_ns - target;
		pr->to_run[i] = w0 - pr->woken_ns;
		pr->wake_latency = MIN(pr->wake_latency, pr->to_run[i]);
		c0 = pr->rt_count;
		s0 = current()->nr_switches;
		burn_exec_ns(2 * MS);
		pr->rt_runs[i] = pr->rt_count - c0;
		pr->burn_wall[i] = clock_ns() - w0;
		pr->switches[i] = current()->nr_switches - s0;
		if (pr->rt_count != c0 || !pr->rt_started)
			pr->rt_ran_during++;
	}
	pr->dl_throttled = current()->dl.nr_throttled;
}

static void dl_runs_before_rt(struct ktest *t)
{
	/* Budget far above the ~8 ms it burns, so that only a long host
	 * stall (charged as run time) can throttle it. */
	struct sched_attr a = dl_attr(80 * MS, 100 * MS, 100 * MS);
	struct prec pr = { .cpu = test_cpu() };
	struct task *dl;

	KASSERT_EQ(t, dl_test_spawn(&dl, "prec-dl", prec_dl, &pr, &a, 1ULL << pr.cpu), 0);
	thread_join(dl);
	KASSERT_EQ(t, pr.spawn_err, 0);
	thread_join(pr.rt);
	printk("# deadline wakeup over RT: ran %llu us after its wakeup (best "
	       "of 3), throttled %llu\n", (unsigned long long)(pr.wake_latency / US),
	       (unsigned long long)pr.dl_throttled);
	for (int i = 0; i < 3; i++)
		printk("# wakeup %d: timer %llu us late, ran %llu us after it (RT "
		       "%llu iterations meanwhile), then 2 ms of its own time took "
		       "%llu us with %llu switches; RT ran %llu iterations\n", i,
		       (unsigned long long)(pr.late[i] / US),
		       (unsigned long long)(pr.to_run[i] / US),
		       (unsigned long long)pr.rt_before_run[i],
		       (unsigned long long)(pr.burn_wall[i] / US),
		       (unsigned long long)pr.switches[i],
		       (unsigned long long)pr.rt_runs[i]);
	KEXPECT(t, !pr.rt_ran_early);
	/* A throttled deadline task rightly lets RT run: then these say
	 * nothing (the stall is printed above). */
	if (!pr.dl_throttled) {
		KEXPECT(t, pr.rt_ran_during < 3);
		for (int i = 0; i < 3; i++)
			if (pr.rt_before_run[i])
				ktest_fail(t, __FILE__, __LINE__, "wakeup %d: RT "
					   "ran %llu iterations between the deadline "
					   "task's wakeup and its first instruction",
					   i, (unsigned long long)pr.rt_before_run[i]);
	}
	/* Generous: a host may stop the vCPU between the callback and the
	 * switch too, though that is microseconds of exposure. */
	KEXPECT(t, pr.wake_latency < 20 * MS);
}

static struct ktest_case sched_dl_cases[] = {
	KTEST_CASE_TIMEOUT(dl_feasible_set_meets_deadlines, 20000),
	KTEST_CASE_TIMEOUT(dl_overrun_is_throttled, 10000),
	KTEST_CASE(dl_minimum_leaves_the_cpu_to_others),
	KTEST_CASE(dl_admission_control),
	KTEST_CASE(dl_exited_task_not_admitted),
	KTEST_CASE(dl_runs_before_rt),
	KTEST_CASE_TIMEOUT(dl_global_edf_smp, 20000),
	{0}
};
KTEST_SUITE(sched_dl, sched_dl_cases);
