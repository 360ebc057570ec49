/*
 * sched_core.c - tests of the class-independent scheduler API:
 * sched_setattr validation, affinity (also for running tasks) and the
 * stop class (stop_one_cpu, stop_machine).
 */
#include "helpers.h"
#include "cpu.h"
#include "sched.h"
#include "timer.h"
#include "random.h"
#include "../kernel/sched/testing.h"

static volatile bool stop_flag;

static void hog(void *arg)
{
	(void)arg;
	while (!READ_ONCE(stop_flag))
		;
}

/* ---- sched_setattr ---------------------------------------------- */

static void setattr_rejects_invalid(struct ktest *t)
{
	static const struct sched_attr bad[] = {
		{ .policy = SCHED_NORMAL, .nice = -21 },
		{ .policy = SCHED_NORMAL, .nice = 20 },
		{ .policy = SCHED_NORMAL, .rt_priority = 5 },
		{ .policy = SCHED_NORMAL, .slice_ns = 1000 },	/* < 100 us */
		{ .policy = SCHED_NORMAL, .dl_runtime = 1000000 },
		{ .policy = SCHED_FIFO, .rt_priority = 0 },
		{ .policy = SCHED_FIFO, .rt_priority = 100 },
		{ .policy = SCHED_RR, .rt_priority = 10, .nice = 1 },
		{ .policy = SCHED_DEADLINE, .dl_runtime = 0, .dl_deadline = 1000000 },
		{ .policy = SCHED_DEADLINE, .dl_runtime = 2000000, .dl_deadline = 1000000 },
		{ .policy = SCHED_DEADLINE, .dl_runtime = 1000000, .dl_deadline = 3000000,
		  .dl_period = 2000000 },
		{ .policy = SCHED_DEADLINE, .dl_runtime = 1000000, .dl_deadline = 1000000,
		  .dl_period = 5000000000ULL },
		{ .policy = SCHED_DEADLINE, .rt_priority = 1, .dl_runtime = 1000000,
		  .dl_deadline = 2000000 },
		/* Just outside the deadline limits (sched.h); the first one
		 * was accepted once and wedged its CPU. */
		{ .policy = SCHED_DEADLINE, .dl_runtime = 1024, .dl_deadline = 1024 },
		{ .policy = SCHED_DEADLINE, .dl_runtime = DL_RUNTIME_MIN_NS - 1,
		  .dl_deadline = DL_PERIOD_MIN_NS },
		{ .policy = SCHED_DEADLINE, .dl_runtime = DL_RUNTIME_MIN_NS,
		  .dl_deadline = DL_PERIOD_MIN_NS - 1 },
		{ .policy = SCHED_DEADLINE, .dl_runtime = DL_RUNTIME_MIN_NS,
		  .dl_deadline = DL_RUNTIME_MIN_NS, .dl_period = DL_PERIOD_MIN_NS - 1 },
		{ .policy = SCHED_DEADLINE, .dl_runtime = DL_RUNTIME_MIN_NS,
		  .dl_deadline = DL_PERIOD_MIN_NS, .dl_period = DL_PERIOD_MAX_NS + 1 },
		{ .policy = 3 },
		{ .policy = -1 },
	};
	struct task *self = current();
	struct sched_attr before, after;

	sched_getattr(self, &before);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		int err = sched_setattr(self, &bad[i]);

		if (err != -EINVAL)
			ktest_fail(t, __FILE__, __LINE__,
				   "bad attribute #%zu: expected -EINVAL, got %d", i, err);
	}
	sched_getattr(self, &after);
	KEXPECT_EQ(t, after.policy, before.policy);
	KEXPECT_EQ(t, after.nice, before.nice);
	KEXPECT_EQ(t, self->prio, NICE_TO_PRIO(before.nice));
}

static void setattr_nice_roundtrip(struct ktest *t)
{
	struct sched_attr a = { .policy = SCHED_NORMAL, .nice = 7 }, got;
	struct task *self = current();

	KASSERT_EQ(t, sched_setattr(self, &a), 0);
	sched_getattr(self, &got);
	KEXPECT_EQ(t, got.policy, SCHED_NORMAL);
	KEXPECT_EQ(t, got.nice, 7);
	KEXPECT_EQ(t, self->prio, NICE_TO_PRIO(7));
	a.nice = 0;
	KEXPECT_EQ(t, sched_setattr(self, &a), 0);
	KEXPECT_EQ(t, self->prio, NICE_TO_PRIO(0));
}

static void spawn_rejects_bad_options(struct ktest *t)
{
	struct sched_attr bad = { .policy = SCHED_FIFO, .rt_priority = 0 };
	struct thread_opts o = { .attr = &bad };
	struct task *th = NULL;

	KEXPECT_EQ(t, thread_spawn(&th, "bad-attr", hog, NULL, &o), -EINVAL);
	KEXPECT(t, th == NULL);
	o = (struct thread_opts){ .affinity = 1ULL << 63 };	/* no such CPU */
	if (ncpus < 64)
		KEXPECT_EQ(t, thread_spawn(&th, "bad-mask", hog, NULL, &o), -EINVAL);
	KEXPECT_EQ(t, sched_setaffinity(current(), 0), -EINVAL);
}

static void sleep_until_stop(void *arg)
{
	(void)arg;
	while (!READ_ONCE(stop_flag))
		sleep_ns(NSEC_PER_MSEC);
}

/*
 * The deadline limits at their edges: the values right at them are
 * accepted by sched_setattr and thread_spawn (the ones just outside are
 * in setattr_rejects_invalid's table), and thread_spawn refuses what
 * sched_setattr refuses: runtime == deadline == 1024 ns (accepted once,
 * it wedged its CPU) is -EINVAL and creates no task.
 */
static void setattr_deadline_limits_inclusive(struct ktest *t)
{
	static const struct sched_attr edge[] = {
		{ .policy = SCHED_DEADLINE, .dl_runtime = DL_RUNTIME_MIN_NS,
		  .dl_deadline = DL_PERIOD_MIN_NS },
		{ .policy = SCHED_DEADLINE, .dl_runtime = DL_RUNTIME_MIN_NS,
		  .dl_deadline = DL_RUNTIME_MIN_NS, .dl_period = DL_PERIOD_MIN_NS },
		{ .policy = SCHED_DEADLINE, .dl_runtime = DL_RUNTIME_MIN_NS,
		  .dl_deadline = DL_PERIOD_MIN_NS, .dl_period = DL_PERIOD_MAX_NS },
	};
	struct sched_attr wedge = { .policy = SCHED_DEADLINE, .dl_runtime = 1024,
				    .dl_deadline = 1024 };
	struct sched_attr normal = { .policy = SCHED_NORMAL }, got;
	struct thread_opts o = { .attr = &wedge };
	struct task *th = NULL;

	WRITE_ONCE(stop_flag, true);	/* created by mistake: it ends at once */
	KEXPECT_EQ(t, thread_spawn(&th, "dl-wedge", sleep_until_stop, NULL, &o),
		   -EINVAL);
	KEXPECT(t, th == NULL);
	if (th)
		thread_join(th);
	th = NULL;
	WRITE_ONCE(stop_flag, false);
	o.attr = &edge[0];
	KASSERT_EQ(t, thread_spawn(&th, "dl-edge", sleep_until_stop, NULL, &o), 0);
	for (size_t i = 0; i < ARRAY_SIZE(edge); i++) {
		int err = sched_setattr(th, &edge[i]);

		if (err)
			ktest_fail(t, __FILE__, __LINE__,
				   "edge attribute #%zu: expected 0, got %d", i, err);
		sched_getattr(th, &got);
		KEXPECT_EQ(t, got.dl_runtime, edge[i].dl_runtime);
		KEXPECT_EQ(t, got.dl_period, edge[i].dl_period ? edge[i].dl_period
							      : edge[i].dl_deadline);
	}
	KEXPECT_EQ(t, sched_setattr(th, &normal), 0);
	WRITE_ONCE(stop_flag, true);
	thread_join(th);
}

/* ---- Affinity ----------------------------------------------------- */

/* True if @p is what CPU @cpu is running right now (racy peek). */
static bool running_on(struct task *p, int cpu)
{
	return READ_ONCE(cpu_rq(cpu)->curr) == p;
}

static void setaffinity_moves_running_task(struct ktest *t)
{
	struct thread_opts o = { .affinity = 1ULL << 0 };
	struct task *h;
	uint64_t start, until, exec, mine = current()->cpus_allowed;
	bool seen_on_1 = false;

	if (online_cpus() < 2)
		KSKIP(t, "needs >= 2 CPUs");
	WRITE_ONCE(stop_flag, false);
	KASSERT_EQ(t, thread_spawn(&h, "aff-hog", hog, NULL, &o), 0);
	/* Wait until it really runs on CPU 0. */
	until = clock_ns() + 500 * NSEC_PER_MSEC;
	while (!running_on(h, 0) && clock_ns() < until)
		sleep_ns(NSEC_PER_MSEC);
	KEXPECT(t, running_on(h, 0));

	/* The sampler stays off CPU 1: on a busy host its wake-ups there
	 * (each costs more guest time when the vCPU crawls) took most of
	 * CPU 1 from the hog. */
	KEXPECT_EQ(t, sched_setaffinity(current(), 1ULL << 0), 0);
	KEXPECT_EQ(t, sched_setaffinity(h, 1ULL << 1), 0);
	/* From here on it must never be seen on CPU 0 again, and it must
	 * make progress on CPU 1: watched for 200 ms, and on until it ran
	 * 50 ms there (2 s at most: a loaded host, 8 vCPUs on 2 cores,
	 * once left CPU 1's vCPU less than 50 ms of the first 200). */
	exec = READ_ONCE(h->sum_exec_ns);
	start = clock_ns();
	until = start + 2 * NSEC_PER_SEC;
	while (clock_ns() < until &&
	       (clock_ns() < start + 200 * NSEC_PER_MSEC ||
		READ_ONCE(h->sum_exec_ns) <= exec + 50 * NSEC_PER_MSEC)) {
		if (running_on(h, 0))
			ktest_fail(t, __FILE__, __LINE__, "hog still runs on cpu0");
		seen_on_1 |= READ_ONCE(h->cpu) == 1;
		sleep_ns(200 * NSEC_PER_USEC);
	}
	KEXPECT(t, seen_on_1);
	KEXPECT_EQ(t, READ_ONCE(h->cpu), 1);
	KEXPECT(t, READ_ONCE(h->sum_exec_ns) > exec + 50 * NSEC_PER_MSEC);
	WRITE_ONCE(stop_flag, true);
	thread_join(h);
	sched_setaffinity(current(), mine);
}

#define NHOGS 12

static void affinity_respected_under_churn(struct ktest *t)
{
	struct task *h[NHOGS];
	uint64_t seed = 12345, online = 0, until;
	int n = online_cpus(), violations = 0;

	if (n < 2)
		KSKIP(t, "needs >= 2 CPUs");
	for (int i = 0; i < ncpus; i++)
		if (cpus[i].online)
			online |= 1ULL << i;
	WRITE_ONCE(stop_flag, false);
	for (int i = 0; i < NHOGS; i++) {
		uint64_t mask;
		struct thread_opts o;

		do {
			mask = rand_next(&seed) & online;
		} while (!mask);
		o = (struct thread_opts){ .affinity = mask };
		KASSERT_EQ(t, thread_spawn(&h[i], "churn-hog", hog, NULL, &o), 0);
	}
	until = clock_ns() + 600 * NSEC_PER_MSEC;
	for (int round = 0; clock_ns() < until; round++) {
		/* Every 20 ms change some masks while they run. */
		if (round % 2000 == 0) {
			int i = rand_next(&seed) % NHOGS;
			uint64_t mask;

			do {
				mask = rand_next(&seed) & online;
			} while (!mask);
			KEXPECT_EQ(t, sched_setaffinity(h[i], mask), 0);
		}
		for (int c = 0; c < ncpus; c++) {
			struct task *cur = READ_ONCE(cpu_rq(c)->curr);

			for (int i = 0; i < NHOGS; i++)
				if (cur == h[i] && !((READ_ONCE(h[i]->cpus_allowed) >> c) & 1))
					violations++;
		}
	}
	WRITE_ONCE(stop_flag, true);
	for (int i = 0; i < NHOGS; i++)
		thread_join(h[i]);
	KEXPECT_EQ(t, violations, 0);
}

/* ---- Stop class ---------------------------------------------------- */

static int record_cpu(void *arg)
{
	int *where = arg;

	*where = smp_processor_id();
	return cpu_rq(*where)->curr == cpu_rq(*where)->stop ? 0 : -1;
}

static void stop_one_cpu_runs_there(struct ktest *t)
{
	for (int c = 0; c < ncpus; c++) {
		int where = -1;

		if (!cpus[c].online)
			continue;
		KEXPECT_EQ(t, stop_one_cpu(c, record_cpu, &where), 0);
		KEXPECT_EQ(t, where, c);
	}
	KEXPECT_EQ(t, stop_one_cpu(-1, record_cpu, NULL), -EINVAL);
}

static int check_all_stopped(void *arg)
{
	int self = smp_processor_id(), *bad = arg;

	for (int c = 0; c < ncpus; c++)
		if (c != self && cpus[c].online && cpu_rq(c)->curr != cpu_rq(c)->stop)
			(*bad)++;
	return 0;
}

static void stop_machine_holds_every_cpu(struct ktest *t)
{
	int bad = 0;

	WRITE_ONCE(stop_flag, false);
	/* Busy CPUs too: a hog on each must be pushed aside. */
	struct task *h[NR_CPUS] = { 0 };

	for (int c = 0; c < ncpus; c++)
		if (cpus[c].online)
			h[c] = thread_create("stopm-hog", hog, NULL, c);
	sleep_ns(20 * NSEC_PER_MSEC);
	for (int i = 0; i < 20; i++)
		KEXPECT_EQ(t, stop_machine(check_all_stopped, &bad), 0);
	WRITE_ONCE(stop_flag, true);
	for (int c = 0; c < ncpus; c++)
		if (h[c])
			thread_join(h[c]);
	KEXPECT_EQ(t, bad, 0);
}

/*
 * wake_up() of a sleeper that may run only on the waking CPU takes no
 * pi_lock (ttwu_local, wakeup.c); another CPU's wake_up() of the same
 * task takes the full path.  Both at once must wake it once: a FIFO
 * sleeper pinned to cpu1 sleeps 20 us 2000 times (its own timer wakes it
 * there) while cpu0 calls wake_up() on it without pause.  Queued twice,
 * the RT class's check panics (a DEBUG_ASSERT in enqueue_task_rt(): the
 * DEBUG=1 boot of `make test` runs this suite); a lost wakeup hangs the
 * sleeper (the case's timeout).
 */
#define RACE_SLEEPS 2000

struct wake_race {
	struct task *p;
	int n;
	bool done;
};

static void race_sleeper(void *arg)
{
	struct wake_race *r = arg;

	for (r->n = 0; r->n < RACE_SLEEPS; r->n++)
		sleep_ns(20 * NSEC_PER_USEC);
	WRITE_ONCE(r->done, true);
}

static void local_wakeup_races_remote(struct ktest *t)
{
	static struct wake_race r;
	struct sched_attr fifo = { .policy = SCHED_FIFO, .rt_priority = 50 };
	struct thread_opts o = { .affinity = 1ULL << 1, .attr = &fifo };
	uint64_t mine = current()->cpus_allowed, woke = 0;

	if (online_cpus() < 2)
		KSKIP(t, "needs >= 2 CPUs");
	KEXPECT_EQ(t, sched_setaffinity(current(), 1ULL << 0), 0);
	r = (struct wake_race){ 0 };
	KASSERT_EQ(t, thread_spawn(&r.p, "wake-race", race_sleeper, &r, &o), 0);
	/* r.p stays allocated until the join: a wakeup after its exit
	 * finds it dead and does nothing. */
	while (!READ_ONCE(r.done))
		woke += wake_up(r.p);
	thread_join(r.p);
	KEXPECT_EQ(t, r.n, RACE_SLEEPS);
	KEXPECT(t, woke > 0);		/* the two paths did meet */
	sched_setaffinity(current(), mine);
}

/*
 * A task that wakes a more important task on its own CPU is preempted
 * inside wake_up(), not at the next interrupt: the woken FIFO task has
 * run when wake_up() returns.  (ttwu_local() once returned without the
 * preemption check spin_unlock() makes: inversion_wait's hog then ran
 * a tick late.)
 */
static volatile int preempt_flag, preempt_ran;

static void preempt_waiter(void *arg)
{
	struct task *self = current();

	(void)arg;
	for (;;) {
		WRITE_ONCE(self->state, TASK_SLEEPING);
		smp_mb();
		if (preempt_flag)
			break;
		schedule();
	}
	WRITE_ONCE(self->state, TASK_RUNNING);
	preempt_ran = 1;
}

static void wake_up_preempts_waker(struct ktest *t)
{
	struct sched_attr fifo = { .policy = SCHED_FIFO, .rt_priority = 90 };
	struct thread_opts o = { .affinity = 1ULL << 0, .attr = &fifo };
	uint64_t mine = current()->cpus_allowed;
	struct task *p;
	int ran;

	KEXPECT_EQ(t, sched_setaffinity(current(), 1ULL << 0), 0);
	preempt_flag = preempt_ran = 0;
	KASSERT_EQ(t, thread_spawn(&p, "preempt-wait", preempt_waiter, NULL,
				   &o), 0);
	while (READ_ONCE(p->state) != TASK_SLEEPING || READ_ONCE(p->on_rq))
		sleep_ns(100 * NSEC_PER_USEC);
	preempt_flag = 1;
	wake_up(p);
	ran = preempt_ran;
	KEXPECT_EQ(t, ran, 1);
	thread_join(p);
	sched_setaffinity(current(), mine);
}

static struct ktest_case sched_core_cases[] = {
	KTEST_CASE(setattr_rejects_invalid),
	KTEST_CASE(setattr_nice_roundtrip),
	KTEST_CASE(spawn_rejects_bad_options),
	KTEST_CASE(setattr_deadline_limits_inclusive),
	KTEST_CASE(setaffinity_moves_running_task),
	KTEST_CASE(affinity_respected_under_churn),
	KTEST_CASE(stop_one_cpu_runs_there),
	KTEST_CASE_TIMEOUT(local_wakeup_races_remote, 30000),
	KTEST_CASE(wake_up_preempts_waker),
	/* 20 rendezvous of every vCPU: about 3 s with four 8-CPU guests on
	 * two host cores, over 10 s at worst. */
	KTEST_CASE_TIMEOUT(stop_machine_holds_every_cpu, 30000),
	{0}
};
KTEST_SUITE(sched_core, sched_core_cases);
