/*
 * proxy_smp.c - tests of proxy execution across CPUs (kernel/sched/proxy.c
 * proxy_migrate, kernel/sched/core.c try_to_wake_up): a donor whose
 * chain ends at an owner on another CPU moves there and the owner runs
 * with its scheduling context (donor-chain migration); the wakeup that
 * hands the donor its lock moves it back inside its affinity before it
 * runs (return migration).
 *
 * Each task is pinned to one CPU, the case thread (SCHED_FIFO 99 while it
 * sets up) to the waiter's CPU, so the order of events is decided by
 * priorities, not by timing.  Verdicts use who ran (CPU time, rq->donor
 * seen from inside the owners, smp_processor_id() inside the waiter),
 * never wall-clock bounds.  Where a spare CPU exists, a sampler spins on
 * it and checks that the waiter is never on a CPU outside its affinity
 * (the kernel also panics if a lent task is ever picked: __schedule).
 *
 * Then random nesting with pinned tasks on every CPU.  Chains at scale
 * (defending chains, owners leaving while a chain moves) are in
 * proxy_chains.c; shared helpers in proxy_helpers.c.
 */
#include "proxy_helpers.h"
#include "cpu.h"
#include "sched.h"
#include "mutex.h"
#include "timer.h"
#include "arch.h"
#include "string.h"
#include "errno.h"
#include <random.h>
#include "../kernel/sched/testing.h"

#define CS (10 * MS)		/* an owner's critical section, CPU time */
#define HOG (200 * MS)		/* a medium RT hog, CPU time */

/* ---- Helpers --------------------------------------------------------- */









/* A medium RT hog: burns HOG of CPU time. */
static void hog_fn(void *arg)
{
	volatile int *started = arg;
	*started = 1;
	px_spin_exec(HOG);
}

/*
 * What an owner saw while it ran its critical section for @donor: it
 * waits (burning CPU) until it runs with donor's context, then burns CS
 * of CPU time and records where it ran, whether any of it was without
 * the donor's context, and how much CPU time @hog had at both ends.
 */
struct owner_view {
	struct task *donor, *hog;	/* in */
	volatile int stop;		/* in: stop waiting for the donor */
	int cpu;			/* out: where it ran for donor */
	bool lost_donor;		/* ran part of CS with another context */
	uint64_t hog_first, hog_last;	/* hog's CPU time at CS start/end */
};

static void owner_cs(struct owner_view *v)
{
	struct task *self = current();
	uint64_t end;

	while (current_donor() != v->donor) {
		if (READ_ONCE(v->stop))
			return;
		arch_cpu_relax();
	}
	v->cpu = smp_processor_id();
	v->hog_first = task_exec_ns(v->hog);
	end = task_exec_ns(self) + CS;
	while (task_exec_ns(self) < end) {
		if (current_donor() != v->donor)
			v->lost_donor = true;
		arch_cpu_relax();
	}
	v->hog_last = task_exec_ns(v->hog);
}

/* Spins on a spare CPU until *done: is @p ever running outside @cpu? */
struct sampler {
	struct task *p;
	int cpu;
	volatile int done;
	unsigned long samples, outside;
};

static void sampler_fn(void *arg)
{
	struct sampler *s = arg;

	while (!READ_ONCE(s->done)) {
		struct task *p = READ_ONCE(s->p);

		int c1, c2, on;

		if (!p)
			continue;
		/* CPU, on_cpu, CPU again: a task seen running between two
		 * equal looks at its CPU ran there (it may switch out and
		 * move between single looks). */
		c1 = __atomic_load_n(&p->cpu, __ATOMIC_ACQUIRE);
		on = __atomic_load_n(&p->on_cpu, __ATOMIC_ACQUIRE);
		c2 = __atomic_load_n(&p->cpu, __ATOMIC_ACQUIRE);
		if (on && c1 == c2) {
			s->samples++;
			if (c1 != s->cpu)
				s->outside++;
		}
		arch_cpu_relax();
	}
}


/* ---- An owner queued on another CPU behind an RT hog ----------------- */

static struct remote {
	struct mutex m;
	volatile int owner_holds, hog_started;
	struct task *waiter;
	struct owner_view ov;
	int waiter_cpu_after;		/* smp_processor_id() after the lock */
	int waiter_wake_cpu;		/* its wake_cpu then (-1: not lent) */
	uint64_t migrations;		/* its nr_migrations then */
	int ret;
	volatile int waiter_returned, waiter_done;
} rm;

/* @arg: the waiter's timeout; then hold m until the waiter gave up, so
 * that its timeout, not the host's speed, decides what it returns. */
static void remote_owner(void *arg)
{
	mutex_lock(&rm.m);
	rm.owner_holds = 1;
	owner_cs(&rm.ov);
	while (arg && !READ_ONCE(rm.waiter_returned))
		arch_cpu_relax();
	mutex_unlock(&rm.m);
}

static void remote_waiter(void *arg)
{
	uint64_t timeout = (uint64_t)(uintptr_t)arg;

	if (timeout)
		rm.ret = mutex_lock_timeout(&rm.m, timeout);
	else
		mutex_lock(&rm.m);
	rm.waiter_returned = 1;
	rm.waiter_cpu_after = smp_processor_id();
	rm.waiter_wake_cpu = current()->wake_cpu;
	rm.migrations = current()->nr_migrations;
	if (rm.ret == 0)
		mutex_unlock(&rm.m);
	px_spin_exec(MS);		/* something for the sampler to see */
	rm.waiter_done = 1;
}

/*
 * Waiter W (FIFO 90) on cpu A; owner O (fair) holds m on cpu B, queued
 * behind a medium hog H (FIFO 50) that runs there.  W blocks on m: its
 * chain moves to B, where W's context outranks H, so O runs its critical
 * section as W's proxy on B and H gets nothing meanwhile; the unlock
 * hands m to W, whose wakeup moves it back to A, where it runs.
 */
static void run_remote(struct ktest *t, uint64_t timeout)
{
	int a = ncpus - 1, b = ncpus - 2;
	int s_cpu = spare_online_cpu((1ULL << a) | (1ULL << b));
	struct sampler smp = { .cpu = a };
	unsigned long moves0 = proxy_nr_migrations;
	struct task *owner, *hog, *sampler = NULL;

	if (ncpus < 2)
		KSKIP(t, "needs >= 2 CPUs");
	if (!px_begin(t, a))
		return;
	memset(&rm, 0, sizeof(rm));
	mutex_init(&rm.m, "remote-m");
	owner = px_spawn_on(t, "remote-owner", b, remote_owner,
			 (void *)(uintptr_t)timeout, 0);
	px_wait_flag(&rm.owner_holds);
	hog = rm.ov.hog = px_spawn_on(t, "remote-hog", b, hog_fn,
				   (void *)&rm.hog_started, 50);
	px_wait_flag(&rm.hog_started);
	if (s_cpu >= 0)
		sampler = px_spawn_on(t, "remote-sampler", s_cpu, sampler_fn, &smp, 0);
	rm.waiter = rm.ov.donor = px_spawn_on(t, "remote-waiter", a, remote_waiter,
					   (void *)(uintptr_t)timeout, 90);
	smp.p = rm.waiter;
	/* The sampler stops before the waiter is joined (and freed). */
	px_wait_flag(&rm.waiter_done);
	smp.done = 1;
	px_join(sampler);
	px_join(rm.waiter);
	rm.ov.stop = 1;
	px_join(owner);
	px_join(hog);
	px_end();

	printk("# waiter returned %d on cpu%d after %llu migrations, %lu chain "
	       "moves; sampler: %lu of %lu samples outside cpu%d\n", rm.ret,
	       rm.waiter_cpu_after, (unsigned long long)rm.migrations,
	       proxy_nr_migrations - moves0, smp.outside, smp.samples, a);
	if (!timeout)
		printk("# owner ran for it on cpu%d; the hog ran %llu us meanwhile\n",
		       rm.ov.cpu, (unsigned long long)
		       ((rm.ov.hog_last - rm.ov.hog_first) / 1000));
	/* Back inside its affinity, not lent any more, never seen outside. */
	KEXPECT_EQ(t, rm.waiter_cpu_after, a);
	KEXPECT_EQ(t, rm.waiter_wake_cpu, -1);
	KEXPECT_EQ(t, smp.outside, 0);
	if (timeout) {
		KEXPECT_EQ(t, rm.ret, -ETIMEDOUT);
		return;
	}
	/* The owner ran its whole section on B with W's context, and the
	 * hog got nothing meanwhile; W went to B and back. */
	KEXPECT_EQ(t, rm.ret, 0);
	KEXPECT_EQ(t, rm.ov.cpu, b);
	KEXPECT(t, !rm.ov.lost_donor);
	KEXPECT_EQ(t, rm.ov.hog_last, rm.ov.hog_first);
	KEXPECT(t, rm.migrations >= 2);
	KEXPECT(t, proxy_nr_migrations > moves0);
}

static void owner_queued_on_other_cpu(struct ktest *t) { run_remote(t, 0); }

/* The same, but W's wait times out while it is lent to B (or on its way
 * there): the timeout's wakeup brings it back to A. */
static void lent_waiter_times_out(struct ktest *t) { run_remote(t, 5 * MS); }

/* ---- A chain spanning three CPUs ------------------------------------ */

static struct span {
	struct mutex m1, m2;
	volatile int low_holds, mid_holds, hog_b_started, hog_c_started;
	volatile int waiter_done;
	struct task *waiter, *mid;
	struct owner_view low_ov, mid_ov;
	int waiter_cpu_after, waiter_wake_cpu;
} sp;

/* L, fair on C: holds m2. */
static void span_low(void *arg)
{
	(void)arg;
	mutex_lock(&sp.m2);
	sp.low_holds = 1;
	owner_cs(&sp.low_ov);
	mutex_unlock(&sp.m2);
}

/* M, fair on B: holds m1, waits for m2. */
static void span_mid(void *arg)
{
	(void)arg;
	mutex_lock(&sp.m1);
	sp.mid_holds = 1;
	mutex_lock(&sp.m2);
	owner_cs(&sp.mid_ov);
	mutex_unlock(&sp.m2);
	mutex_unlock(&sp.m1);
}

/* W, FIFO 90 on A: waits for m1. */
static void span_waiter(void *arg)
{
	(void)arg;
	mutex_lock(&sp.m1);
	sp.waiter_cpu_after = smp_processor_id();
	sp.waiter_wake_cpu = current()->wake_cpu;
	mutex_unlock(&sp.m1);
	px_spin_exec(MS);		/* something for the sampler to see */
	sp.waiter_done = 1;
}

/*
 * W (FIFO 90, cpu A) -> m1 -> M (fair, cpu B) -> m2 -> L (fair, cpu C),
 * with a medium hog (FIFO 50) running on B and on C.  L runs on C for W
 * ahead of C's hog; when it unlocks, M (woken, back on B) runs for W
 * ahead of B's hog; then W has m1 and runs on A.
 */
static void chain_across_three_cpus(struct ktest *t)
{
	int a = ncpus - 1, b = ncpus - 2, c = ncpus - 3;
	int s_cpu = spare_online_cpu((1ULL << a) | (1ULL << b) | (1ULL << c));
	struct sampler smp = { .cpu = a };
	struct task *low, *mid, *hog_b, *hog_c, *sampler = NULL;

	if (ncpus < 3)
		KSKIP(t, "needs >= 3 CPUs");
	if (!px_begin(t, a))
		return;
	memset(&sp, 0, sizeof(sp));
	mutex_init(&sp.m1, "span-m1");
	mutex_init(&sp.m2, "span-m2");
	low = px_spawn_on(t, "span-low", c, span_low, NULL, 0);
	px_wait_flag(&sp.low_holds);
	hog_c = sp.low_ov.hog = px_spawn_on(t, "span-hog-c", c, hog_fn,
					 (void *)&sp.hog_c_started, 50);
	px_wait_flag(&sp.hog_c_started);
	mid = sp.mid = px_spawn_on(t, "span-mid", b, span_mid, NULL, 0);
	px_wait_flag(&sp.mid_holds);
	px_wait_blocked(mid);
	hog_b = sp.mid_ov.hog = px_spawn_on(t, "span-hog-b", b, hog_fn,
					 (void *)&sp.hog_b_started, 50);
	px_wait_flag(&sp.hog_b_started);
	if (s_cpu >= 0)
		sampler = px_spawn_on(t, "span-sampler", s_cpu, sampler_fn, &smp, 0);
	sp.waiter = sp.low_ov.donor = sp.mid_ov.donor =
		px_spawn_on(t, "span-waiter", a, span_waiter, NULL, 90);
	smp.p = sp.waiter;
	px_wait_flag(&sp.waiter_done);	/* sample until then, see run_remote */
	smp.done = 1;
	px_join(sampler);
	px_join(sp.waiter);
	sp.low_ov.stop = sp.mid_ov.stop = 1;
	px_join(mid);
	px_join(low);
	px_join(hog_b);
	px_join(hog_c);
	px_end();

	printk("# low ran for the waiter on cpu%d (hog there: +%llu us), mid on "
	       "cpu%d (hog there: +%llu us); waiter then on cpu%d; sampler: %lu "
	       "of %lu samples outside cpu%d\n", sp.low_ov.cpu,
	       (unsigned long long)((sp.low_ov.hog_last - sp.low_ov.hog_first) / 1000),
	       sp.mid_ov.cpu,
	       (unsigned long long)((sp.mid_ov.hog_last - sp.mid_ov.hog_first) / 1000),
	       sp.waiter_cpu_after, smp.outside, smp.samples, a);
	KEXPECT_EQ(t, sp.low_ov.cpu, c);
	KEXPECT(t, !sp.low_ov.lost_donor);
	KEXPECT_EQ(t, sp.low_ov.hog_last, sp.low_ov.hog_first);
	KEXPECT_EQ(t, sp.mid_ov.cpu, b);
	KEXPECT(t, !sp.mid_ov.lost_donor);
	KEXPECT_EQ(t, sp.mid_ov.hog_last, sp.mid_ov.hog_first);
	KEXPECT_EQ(t, sp.waiter_cpu_after, a);
	KEXPECT_EQ(t, sp.waiter_wake_cpu, -1);
	KEXPECT_EQ(t, smp.outside, 0);
}

/* ---- Pinned tasks, random nested mutexes, every CPU ------------------ */

#define PIN_MUTEXES 6
#define PIN_ROUNDS 200
#define PIN_MAX 24

static struct pinned {
	struct mutex m[PIN_MUTEXES];
	unsigned long count[PIN_MUTEXES];	/* under m[i] */
	unsigned long expected[PIN_MUTEXES];	/* atomic */
	unsigned long wrong_cpu;		/* atomic */
	volatile int start, finished;
} pin;

struct pinned_task {
	int cpu;
	uint64_t seed;
	bool rt;
};

/* Each task only ever runs on its own CPU (affinity of one), so after
 * every mutex_lock it must be there: had a wakeup let it run where it
 * was lent, it would still be there when mutex_lock returns. */
static void pinned_fn(void *arg)
{
	struct pinned_task *pt = arg;

	while (!READ_ONCE(pin.start))
		sleep_ns(100 * NSEC_PER_USEC);
	for (int r = 0; r < PIN_ROUNDS; r++) {
		unsigned mask = rand_next(&pt->seed) % (1u << PIN_MUTEXES);

		for (int i = 0; i < PIN_MUTEXES; i++) {
			if (!((mask >> i) & 1))
				continue;
			mutex_lock(&pin.m[i]);
			if (smp_processor_id() != pt->cpu)
				__atomic_add_fetch(&pin.wrong_cpu, 1, __ATOMIC_RELAXED);
			pin.count[i]++;
			__atomic_add_fetch(&pin.expected[i], 1, __ATOMIC_RELAXED);
		}
		px_spin_exec(20 * NSEC_PER_USEC);
		for (int i = PIN_MUTEXES - 1; i >= 0; i--)
			if ((mask >> i) & 1)
				mutex_unlock(&pin.m[i]);
		if (pt->rt)	/* let the fair tasks of this CPU run too */
			sleep_ns(50 * NSEC_PER_USEC);
	}
	__atomic_add_fetch(&pin.finished, 1, __ATOMIC_SEQ_CST);
}

/*
 * Three tasks per CPU (FIFO, RR, fair), each pinned to its CPU, take
 * random nested sets of shared mutexes: chains cross CPUs all the time,
 * so donors move to owners and back.  Every acquisition is counted, no
 * task ever finds itself off its CPU, nothing stays blocked.
 */
static void pinned_random_nesting(struct ktest *t)
{
	static struct pinned_task pt[PIN_MAX];
	struct task *tasks[PIN_MAX];
	int n = MIN(PIN_MAX, 3 * online_cpus());
	unsigned long moves0 = proxy_nr_migrations;
	int blocked0 = __atomic_load_n(&mutex_nr_blocked, __ATOMIC_SEQ_CST);

	if (ncpus < 2)
		KSKIP(t, "needs >= 2 CPUs");
	enum locking_mode saved_mode = locking_mode;
	KASSERT_EQ(t, locking_set_mode("proxy"), 0);
	memset(&pin, 0, sizeof(pin));
	for (int i = 0; i < PIN_MUTEXES; i++)
		mutex_init(&pin.m[i], "pinned-m");
	for (int k = 0; k < n; k++) {
		int kind = k / online_cpus();	/* 0 FIFO, 1 RR, 2 fair */
		struct sched_attr a = {
			.policy = kind == 0 ? SCHED_FIFO :
				  kind == 1 ? SCHED_RR : SCHED_NORMAL,
			.rt_priority = kind < 2 ? 1 + (k * 7) % 20 : 0,
		};
		struct thread_opts o = { .attr = &a };

		pt[k] = (struct pinned_task){ k % online_cpus(),
					      0x9e37ULL * (k + 1), kind < 2 };
		o.affinity = 1ULL << pt[k].cpu;
		KASSERT_EQ(t, thread_spawn(&tasks[k], "pinned", pinned_fn,
					   &pt[k], &o), 0);
	}
	pin.start = 1;
	for (int k = 0; k < n; k++)
		thread_join(tasks[k]);
	locking_set_mode(locking_mode_name(saved_mode));
	printk("# %d pinned tasks, %lu chain moves, %lu times off their CPU\n",
	       n, proxy_nr_migrations - moves0, pin.wrong_cpu);
	KEXPECT_EQ(t, pin.finished, n);
	KEXPECT_EQ(t, pin.wrong_cpu, 0);
	for (int i = 0; i < PIN_MUTEXES; i++) {
		KEXPECT_EQ(t, pin.count[i], pin.expected[i]);
		KEXPECT_EQ(t, pin.m[i].owner, 0);
	}
	KEXPECT_EQ(t, __atomic_load_n(&mutex_nr_blocked, __ATOMIC_SEQ_CST),
		   blocked0);
}

static struct ktest_case proxy_smp_cases[] = {
	KTEST_CASE(owner_queued_on_other_cpu),
	KTEST_CASE(lent_waiter_times_out),
	KTEST_CASE(chain_across_three_cpus),
	KTEST_CASE_TIMEOUT(pinned_random_nesting, 120000),
	{0}
};
KTEST_SUITE(proxy_smp, proxy_smp_cases);
