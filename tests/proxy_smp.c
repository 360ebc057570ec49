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
 * Then the same machinery at scale: N chains defending against a hog on
 * every CPU, judged under the rq locks from a spare CPU; owners that
 * exit, sleep or move while a chain is on its way to them, for hundreds
 * of random rounds; and random nesting with pinned tasks on every CPU.
 */
#include "helpers.h"
#include "cpu.h"
#include "sched.h"
#include "mutex.h"
#include "timer.h"
#include "arch.h"
#include "string.h"
#include "errno.h"
#include <random.h>
#include "../kernel/sched/internal.h"

#define MS NSEC_PER_MSEC
#define CS (10 * MS)		/* an owner's critical section, CPU time */
#define HOG (200 * MS)		/* a medium RT hog, CPU time */

/* ---- Helpers --------------------------------------------------------- */

/* CPU time @p has had (including the current stretch if it runs here). */
static uint64_t exec_ns(struct task *p)
{
	unsigned long flags = arch_irq_save();
	uint64_t ns = READ_ONCE(p->sum_exec_ns);

	if (p == this_cpu()->rq.curr)
		ns += clock_ns() - p->exec_start_ns;
	arch_irq_restore(flags);
	return ns;
}

/* Burn @ns of the caller's own CPU time. */
static void spin_exec(uint64_t ns)
{
	struct task *self = current();
	uint64_t end = exec_ns(self) + ns;

	while (exec_ns(self) < end)
		arch_cpu_relax();
}

static struct task *spawn_on(struct ktest *t, const char *name, int cpu,
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

static enum locking_mode saved_mode;

/* Proxy mode, the caller FIFO 99 on @cpu.  False: failed (reported). */
static bool scenario_begin(struct ktest *t, int cpu)
{
	struct sched_attr a = { .policy = SCHED_FIFO, .rt_priority = 99 };

	saved_mode = locking_mode;
	if (locking_set_mode("proxy") != 0 ||
	    sched_setaffinity(current(), 1ULL << cpu) != 0 ||
	    sched_setattr(current(), &a) != 0) {
		ktest_fail(t, __FILE__, __LINE__, "cannot set up on cpu%d", cpu);
		return false;
	}
	return true;
}

static void scenario_end(void)
{
	struct sched_attr a = { .policy = SCHED_NORMAL };

	sched_setattr(current(), &a);
	sched_setaffinity(current(), ~0ULL);
	locking_set_mode(locking_mode_name(saved_mode));
}

/* Wait (sleeping, so lower priorities run) until *flag is set. */
static void wait_flag(volatile int *flag)
{
	while (!READ_ONCE(*flag))
		sleep_ns(MS / 2);
}

/* Wait until @p is blocked on a mutex and off every CPU. */
static void wait_blocked(struct task *p)
{
	while (!READ_ONCE(p->blocked_on) || READ_ONCE(p->on_cpu))
		sleep_ns(MS / 2);
}

static void join(struct task *p)
{
	if (p)
		thread_join(p);
}

/* A medium RT hog: burns HOG of CPU time. */
static void hog_fn(void *arg)
{
	volatile int *started = arg;
	*started = 1;
	spin_exec(HOG);
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
	v->hog_first = exec_ns(v->hog);
	end = exec_ns(self) + CS;
	while (exec_ns(self) < end) {
		if (current_donor() != v->donor)
			v->lost_donor = true;
		arch_cpu_relax();
	}
	v->hog_last = exec_ns(v->hog);
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

/* The first CPU not in @used, or -1. */
static int spare_cpu(uint64_t used)
{
	for (int c = 0; c < ncpus; c++)
		if (cpu_by_id(c)->online && !((used >> c) & 1))
			return c;
	return -1;
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
	spin_exec(MS);		/* something for the sampler to see */
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
	int s_cpu = spare_cpu((1ULL << a) | (1ULL << b));
	struct sampler smp = { .cpu = a };
	unsigned long moves0 = proxy_nr_migrations;
	struct task *owner, *hog, *sampler = NULL;

	if (ncpus < 2)
		KSKIP(t, "needs >= 2 CPUs");
	if (!scenario_begin(t, a))
		return;
	memset(&rm, 0, sizeof(rm));
	mutex_init(&rm.m, "remote-m");
	owner = spawn_on(t, "remote-owner", b, remote_owner,
			 (void *)(uintptr_t)timeout, 0);
	wait_flag(&rm.owner_holds);
	hog = rm.ov.hog = spawn_on(t, "remote-hog", b, hog_fn,
				   (void *)&rm.hog_started, 50);
	wait_flag(&rm.hog_started);
	if (s_cpu >= 0)
		sampler = spawn_on(t, "remote-sampler", s_cpu, sampler_fn, &smp, 0);
	rm.waiter = rm.ov.donor = spawn_on(t, "remote-waiter", a, remote_waiter,
					   (void *)(uintptr_t)timeout, 90);
	smp.p = rm.waiter;
	/* The sampler stops before the waiter is joined (and freed). */
	wait_flag(&rm.waiter_done);
	smp.done = 1;
	join(sampler);
	join(rm.waiter);
	rm.ov.stop = 1;
	join(owner);
	join(hog);
	scenario_end();

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
	spin_exec(MS);		/* something for the sampler to see */
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
	int s_cpu = spare_cpu((1ULL << a) | (1ULL << b) | (1ULL << c));
	struct sampler smp = { .cpu = a };
	struct task *low, *mid, *hog_b, *hog_c, *sampler = NULL;

	if (ncpus < 3)
		KSKIP(t, "needs >= 3 CPUs");
	if (!scenario_begin(t, a))
		return;
	memset(&sp, 0, sizeof(sp));
	mutex_init(&sp.m1, "span-m1");
	mutex_init(&sp.m2, "span-m2");
	low = spawn_on(t, "span-low", c, span_low, NULL, 0);
	wait_flag(&sp.low_holds);
	hog_c = sp.low_ov.hog = spawn_on(t, "span-hog-c", c, hog_fn,
					 (void *)&sp.hog_c_started, 50);
	wait_flag(&sp.hog_c_started);
	mid = sp.mid = spawn_on(t, "span-mid", b, span_mid, NULL, 0);
	wait_flag(&sp.mid_holds);
	wait_blocked(mid);
	hog_b = sp.mid_ov.hog = spawn_on(t, "span-hog-b", b, hog_fn,
					 (void *)&sp.hog_b_started, 50);
	wait_flag(&sp.hog_b_started);
	if (s_cpu >= 0)
		sampler = spawn_on(t, "span-sampler", s_cpu, sampler_fn, &smp, 0);
	sp.waiter = sp.low_ov.donor = sp.mid_ov.donor =
		spawn_on(t, "span-waiter", a, span_waiter, NULL, 90);
	smp.p = sp.waiter;
	wait_flag(&sp.waiter_done);	/* sample until then, see run_remote */
	smp.done = 1;
	join(sampler);
	join(sp.waiter);
	sp.low_ov.stop = sp.mid_ov.stop = 1;
	join(mid);
	join(low);
	join(hog_b);
	join(hog_c);
	scenario_end();

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

/* ---- N defending chains against an offence of RT hogs ---------------- */

/*
 * With C CPUs, N = C - 1 chains H_j (FIFO 90) -> m1_j held by M_j (fair,
 * blocked) -> m2_j held by L_j (fair), pinned so that every chain has to
 * move: H_j on cpu j, M_j on cpu j+1, L_j on cpu j+2 (mod N).  A medium
 * RT hog (FIFO 50) burns CPU on each of the N CPUs from before the H_j
 * block.  The last CPU is spare: the case thread and a judge sampling
 * the N others.
 */
#define DEF_MAX 7			/* chains at most (cpus 0..6, judge on 7) */
#define DEF_HOG (2000 * MS)		/* a hog's CPU time at most */

struct def_chain {
	struct mutex m1, m2;
	struct task *h, *m, *l;
	int h_cpu, m_cpu, l_cpu;
	volatile int l_holds, m_holds, h_started, h_got, h_done;
	int h_cpu_after;		/* smp_processor_id() with m1 */
	bool l_served, m_served;	/* ran some of its section for H */
	bool l_gave_up, m_gave_up;	/* its CPU's hog ended first */
};

static struct defend {
	struct def_chain ch[DEF_MAX];
	struct task *hog[DEF_MAX];	/* hog[c] runs on cpu c */
	volatile int hog_started[DEF_MAX], hog_done[DEF_MAX];
	int n;
	volatile int done, hogs_stop;
	unsigned long samples, judged, violations;
	int bad_cpu, bad_chain;		/* the first violation */
} df;

/*
 * An owner's section for H_j on @cpu: wait (burning CPU) until it runs
 * with H_j's context, or its CPU's hog is done (no proxy: it gets the
 * CPU only then), then burn CS of CPU time.  True if any of it ran for
 * H_j.  The owner may also get the CPU without H_j while the hog is RT-
 * throttled (earlier cases' hogs may have used this CPU's RT budget):
 * it keeps waiting then.
 */
static bool def_section(struct def_chain *ch, int cpu, bool *gave_up)
{
	struct task *self = current();
	uint64_t end;
	bool served = false;

	while (current_donor() != READ_ONCE(ch->h)) {
		if (READ_ONCE(df.hog_done[cpu])) {
			*gave_up = true;
			break;
		}
		arch_cpu_relax();
	}
	end = exec_ns(self) + CS;
	while (exec_ns(self) < end) {
		if (current_donor() == READ_ONCE(ch->h))
			served = true;
		arch_cpu_relax();
	}
	return served;
}

/* L_j: holds m2 from before the hogs start; its section (CPU time) starts
 * once H_j is on its way, and it only gets CPU then through H_j. */
static void def_low(void *arg)
{
	struct def_chain *ch = arg;

	mutex_lock(&ch->m2);
	ch->l_holds = 1;
	while (!READ_ONCE(ch->h_started))
		arch_cpu_relax();
	ch->l_served = def_section(ch, ch->l_cpu, &ch->l_gave_up);
	mutex_unlock(&ch->m2);
}

/* M_j: holds m1, blocks on m2; with it, one more section for H_j. */
static void def_mid(void *arg)
{
	struct def_chain *ch = arg;

	mutex_lock(&ch->m1);
	ch->m_holds = 1;
	mutex_lock(&ch->m2);
	ch->m_served = def_section(ch, ch->m_cpu, &ch->m_gave_up);
	mutex_unlock(&ch->m2);
	mutex_unlock(&ch->m1);
}

static void def_high(void *arg)
{
	struct def_chain *ch = arg;

	ch->h = current();	/* before L can look (the spawner sets it too) */
	ch->h_started = 1;
	mutex_lock(&ch->m1);
	ch->h_cpu_after = smp_processor_id();
	ch->h_got++;
	mutex_unlock(&ch->m1);
	ch->h_done = 1;
}

/* Until every H_j has its lock (the case says so), or at most DEF_HOG of
 * CPU time: long enough that only a chain never served (no proxy) sees
 * it end, also when the host stalls a vCPU while its hog is current. */
static void def_hog(void *arg)
{
	int c = (int)(uintptr_t)arg;
	struct task *self = current();
	uint64_t end = exec_ns(self) + DEF_HOG;

	df.hog_started[c] = 1;
	while (!READ_ONCE(df.hogs_stop) && exec_ns(self) < end)
		arch_cpu_relax();
	df.hog_done[c] = 1;
}

/*
 * Is chain @ch waiting for its lock with H off every CPU, and if so,
 * where could it be served?  Returns that CPU (the pinned CPU of the
 * task at the end of the chain), or -1 if it is not waiting or is between
 * two owners (a lock just changed hands: no owner to run yet).
 */
static int def_serve_cpu(struct def_chain *ch)
{
	struct task *h = READ_ONCE(ch->h);

	if (!h || READ_ONCE(h->blocked_on) != &ch->m1 || READ_ONCE(h->on_cpu) ||
	    mutex_owner(&ch->m1) != ch->m)
		return -1;
	if (READ_ONCE(ch->m->blocked_on) == &ch->m2)
		return mutex_owner(&ch->m2) == ch->l ? ch->l_cpu : -1;
	return READ_ONCE(ch->m->blocked_on) ? -1 : ch->m_cpu;
}

/*
 * One look at cpu @c under its rq lock.  What it is committed to run:
 * rq->curr, unless a reschedule is pending (need_resched: the IPI has not
 * been acted on yet; a vCPU can take ms of guest time for that under TCG),
 * then the RT pick, which takes a queued donor H_j ahead of the hog.  If
 * that is the hog while a chain that outranks it waits to be served
 * here, it is a violation: the chain's donor H_j is queued on c (moved
 * here, or not yet moved away: the pick here must take it), or H_j is
 * queued nowhere (asleep: nothing lent) and the chain ends at c.  A CPU
 * whose RT class is throttled is not judged (sched_rt's one exception:
 * neither the hog nor the chain's RT context may run there).
 */
static void def_judge_cpu(int c)
{
	struct rq *rq = cpu_rq(c);
	unsigned long flags = arch_irq_save();
	struct task *run;
	bool waiting = false;

	spin_lock_raw(&rq->lock);
	if (rq->rt.throttled) {
		spin_unlock_raw(&rq->lock);
		arch_irq_restore(flags);
		return;
	}
	run = rq->curr;
	if (READ_ONCE(cpus[c].need_resched)) {
		struct task *q = rt_sched_class.pick_next_task(rq);

		if (q)
			run = q;
	}
	for (int j = 0; j < df.n; j++) {
		struct def_chain *ch = &df.ch[j];
		int at = def_serve_cpu(ch);
		struct task *h = ch->h;
		bool here;

		if (at < 0)
			continue;
		here = h->on_rq ? h->cpu == c : at == c;
		if (!here)
			continue;
		waiting = true;
		if (run == df.hog[c] && df.violations++ == 0) {
			df.bad_cpu = c;
			df.bad_chain = j;
		}
	}
	spin_unlock_raw(&rq->lock);
	arch_irq_restore(flags);
	df.samples++;
	if (waiting)
		df.judged++;
}

static void def_judge(void *arg)
{
	(void)arg;
	while (!READ_ONCE(df.done))
		for (int c = 0; c < df.n; c++)
			def_judge_cpu(c);
}

/*
 * Every H_j must get its lock, through L_j and M_j running for it on
 * their CPUs ahead of the hogs; the judge on the spare CPU never sees a
 * hog committed to run while a chain that outranks it waits to be
 * served on its CPU.  With locking none the hogs run first (the chains'
 * donors sleep): that is what the judge is for.
 */
static void defending_chains_vs_hogs(struct ktest *t)
{
	int n = online_cpus() - 1, spare = n;
	int blocked0 = __atomic_load_n(&mutex_nr_blocked, __ATOMIC_SEQ_CST);
	unsigned long moves0 = proxy_nr_migrations;
	struct task *judge;

	if (online_cpus() < 3)
		KSKIP(t, "needs >= 3 CPUs");
	n = MIN(n, DEF_MAX);
	if (!scenario_begin(t, spare))
		return;
	memset(&df, 0, sizeof(df));
	df.n = n;
	df.bad_cpu = df.bad_chain = -1;
	for (int j = 0; j < n; j++) {
		struct def_chain *ch = &df.ch[j];

		mutex_init(&ch->m1, "defend-m1");
		mutex_init(&ch->m2, "defend-m2");
		ch->h_cpu = j;
		ch->m_cpu = (j + 1) % n;
		ch->l_cpu = (j + 2) % n;
		ch->l = spawn_on(t, "defend-low", ch->l_cpu, def_low, ch, 0);
		wait_flag(&ch->l_holds);
		ch->m = spawn_on(t, "defend-mid", ch->m_cpu, def_mid, ch, 0);
		wait_flag(&ch->m_holds);
		wait_blocked(ch->m);
	}
	for (int c = 0; c < n; c++) {
		df.hog[c] = spawn_on(t, "defend-hog", c, def_hog,
				     (void *)(uintptr_t)c, 50);
		wait_flag(&df.hog_started[c]);
	}
	judge = spawn_on(t, "defend-judge", spare, def_judge, NULL, 0);
	/* The H_j are known to the judge before they run (def_serve_cpu
	 * reads them); nothing looks at them until they block. */
	for (int j = 0; j < n; j++)
		df.ch[j].h = spawn_on(t, "defend-high", j, def_high, &df.ch[j], 90);
	for (int j = 0; j < n; j++)
		wait_flag(&df.ch[j].h_done);
	df.done = df.hogs_stop = 1;
	join(judge);
	for (int j = 0; j < n; j++) {
		join(df.ch[j].h);
		join(df.ch[j].m);
		join(df.ch[j].l);
	}
	for (int c = 0; c < n; c++)
		join(df.hog[c]);
	scenario_end();

	printk("# %d chains, %lu chain moves; judge: %lu of %lu samples with a "
	       "chain waiting, %lu violations (first: cpu%d ran its hog while "
	       "chain %d waited)\n", n, proxy_nr_migrations - moves0,
	       df.judged, df.samples, df.violations, df.bad_cpu, df.bad_chain);
	KEXPECT_EQ(t, df.violations, 0);
	KEXPECT(t, df.judged > 0);
	for (int j = 0; j < n; j++) {
		struct def_chain *ch = &df.ch[j];

		KEXPECT_EQ(t, ch->h_got, 1);
		KEXPECT_EQ(t, ch->h_cpu_after, ch->h_cpu);
		if (!ch->l_served || !ch->m_served)
			ktest_fail(t, __FILE__, __LINE__, "chain %d: low on cpu%d "
				   "%s for H%s, mid on cpu%d %s for H%s", j,
				   ch->l_cpu, ch->l_served ? "ran" : "never ran",
				   ch->l_gave_up ? " (its hog ended first)" : "",
				   ch->m_cpu, ch->m_served ? "ran" : "never ran",
				   ch->m_gave_up ? " (its hog ended first)" : "");
		KEXPECT_EQ(t, ch->m1.owner, 0);
		KEXPECT_EQ(t, ch->m2.owner, 0);
	}
	KEXPECT_EQ(t, __atomic_load_n(&mutex_nr_blocked, __ATOMIC_SEQ_CST),
		   blocked0);
}

/* ---- The owner exits, sleeps or moves while a chain comes to it ------- */

#define RACE_ROUNDS 300

enum race_kind { RACE_EXIT, RACE_SLEEP, RACE_MOVE, RACE_KINDS };

static struct race {
	struct mutex m;
	struct task *waiter;
	int kind, a, b, c;		/* waiter's CPU, owner's, owner's next */
	uint64_t delay;			/* owner's CPU time before it acts */
	volatile int owner_holds, waiter_started;
	int inside;			/* holders of m right now (atomic) */
	unsigned long got, twice, wrong_owner, wrong_cpu, owner_wrong_cpu;
	unsigned long moved_rounds;	/* rounds with a chain move */
} rc;

/* Spins on the spare CPU: is the current waiter ever on a CPU other
 * than its own?  The case stops it looking (rc_look.p = NULL, then two
 * more loops) before it frees the waiter. */
static struct {
	struct task *p;
	int cpu;
	volatile int done;
	volatile unsigned long loops;
	unsigned long samples, outside;
} rc_look;

static void race_look(void *arg)
{
	(void)arg;
	while (!READ_ONCE(rc_look.done)) {
		struct task *p = __atomic_load_n(&rc_look.p, __ATOMIC_ACQUIRE);

		if (p) {
			int c1 = __atomic_load_n(&p->cpu, __ATOMIC_ACQUIRE);
			int on = __atomic_load_n(&p->on_cpu, __ATOMIC_ACQUIRE);
			int c2 = __atomic_load_n(&p->cpu, __ATOMIC_ACQUIRE);

			if (on && c1 == c2) {
				rc_look.samples++;
				if (c1 != READ_ONCE(rc_look.cpu))
					rc_look.outside++;
			}
		}
		__atomic_store_n(&rc_look.loops, rc_look.loops + 1,
				 __ATOMIC_RELEASE);
		arch_cpu_relax();
	}
}

static void race_take(void)
{
	if (__atomic_add_fetch(&rc.inside, 1, __ATOMIC_SEQ_CST) != 1)
		rc.twice++;
	if (mutex_owner(&rc.m) != current())
		rc.wrong_owner++;
}

static void race_drop(void)
{
	__atomic_sub_fetch(&rc.inside, 1, __ATOMIC_SEQ_CST);
}

/* O: holds m; once the waiter is on its way, burns a random bit of CPU
 * time (the waiter blocks, its chain moves here, or is moving), then
 * exits right after the unlock, or sleeps holding m, or moves itself to
 * another CPU holding m. */
static void race_owner(void *arg)
{
	(void)arg;
	mutex_lock(&rc.m);
	race_take();
	rc.owner_holds = 1;
	while (!READ_ONCE(rc.waiter_started))
		arch_cpu_relax();
	spin_exec(rc.delay);
	switch (rc.kind) {
	case RACE_SLEEP:
		sleep_ns(rc.delay + 20 * NSEC_PER_USEC);
		break;
	case RACE_MOVE:
		sched_setaffinity(current(), 1ULL << rc.c);
		if (smp_processor_id() != rc.c)
			rc.owner_wrong_cpu++;
		break;
	}
	race_drop();
	mutex_unlock(&rc.m);
	/* RACE_EXIT: returns at once, with the waiter maybe still lent here */
}

static void race_waiter(void *arg)
{
	(void)arg;
	rc.waiter_started = 1;
	mutex_lock(&rc.m);
	race_take();
	rc.got++;
	if (smp_processor_id() != rc.a)
		rc.wrong_cpu++;
	if (current()->nr_migrations)
		rc.moved_rounds++;
	race_drop();
	mutex_unlock(&rc.m);
}

/* Random CPU of @mask's online CPUs other than @not (-1: none). */
static int race_cpu(uint64_t *seed, uint64_t mask, int not)
{
	for (;;) {
		int c = rand_next(seed) % ncpus;

		if (c != not && cpu_by_id(c)->online && ((mask >> c) & 1))
			return c;
	}
}

/*
 * RACE_ROUNDS rounds: a waiter W on cpu a (FIFO 90 or fair) blocks on m,
 * held by O (fair or FIFO 10) on cpu b, while O, after a random bit of
 * CPU time, unlocks and exits, or sleeps with m, or moves itself to cpu
 * c, then unlocks.  Each round W gets m exactly once and on its own CPU,
 * only one task ever holds m, nothing stays blocked, both tasks finish
 * (a lost wakeup is a TIMEOUT); a spare CPU's looker never sees W off
 * cpu a.
 */
static void owner_leaves_while_chain_moves(struct ktest *t)
{
	int n = online_cpus(), spare = n >= 3 ? n - 1 : -1;
	uint64_t use = (spare >= 0 ? ~(1ULL << spare) : ~0ULL), seed = 0x51ed;
	int blocked0 = __atomic_load_n(&mutex_nr_blocked, __ATOMIC_SEQ_CST);
	unsigned long moves0 = proxy_nr_migrations, left_blocked = 0;
	struct task *look = NULL;
	int kinds[RACE_KINDS] = { 0 };

	if (n < 2)
		KSKIP(t, "needs >= 2 CPUs");
	if (!scenario_begin(t, spare >= 0 ? spare : 0))
		return;
	memset(&rc, 0, sizeof(rc));
	memset(&rc_look, 0, sizeof(rc_look));
	mutex_init(&rc.m, "race-m");
	if (spare >= 0)
		look = spawn_on(t, "race-look", spare, race_look, NULL, 0);
	for (int r = 0; r < RACE_ROUNDS; r++) {
		struct task *owner, *waiter;
		unsigned long loops;

		rc.kind = rand_next(&seed) % RACE_KINDS;
		rc.a = race_cpu(&seed, use, -1);
		rc.b = race_cpu(&seed, use, rc.a);
		rc.c = race_cpu(&seed, ~0ULL, rc.b);
		rc.delay = rand_next(&seed) % (300 * NSEC_PER_USEC);
		rc.owner_holds = rc.waiter_started = 0;
		kinds[rc.kind]++;
		owner = spawn_on(t, "race-owner", rc.b, race_owner, NULL,
				 rand_next(&seed) % 2 ? 10 : 0);
		wait_flag(&rc.owner_holds);
		rc_look.cpu = rc.a;
		waiter = spawn_on(t, "race-waiter", rc.a, race_waiter, NULL,
				  rand_next(&seed) % 4 ? 90 : 0);
		__atomic_store_n(&rc_look.p, waiter, __ATOMIC_RELEASE);
		join(owner);
		/* Stop the looker using W before W is freed. */
		__atomic_store_n(&rc_look.p, NULL, __ATOMIC_SEQ_CST);
		loops = __atomic_load_n(&rc_look.loops, __ATOMIC_ACQUIRE);
		while (look && __atomic_load_n(&rc_look.loops, __ATOMIC_ACQUIRE)
		       < loops + 2)
			sleep_ns(20 * NSEC_PER_USEC);	/* it shares our CPU */
		join(waiter);
		if (__atomic_load_n(&mutex_nr_blocked, __ATOMIC_SEQ_CST) != blocked0)
			left_blocked++;
		if (!owner || !waiter)
			break;
	}
	rc_look.done = 1;
	join(look);
	scenario_end();

	printk("# %d rounds (exit %d, sleep %d, move %d), %lu with W moved, %lu "
	       "chain moves; looker: %lu of %lu samples off W's CPU\n",
	       RACE_ROUNDS, kinds[RACE_EXIT], kinds[RACE_SLEEP],
	       kinds[RACE_MOVE], rc.moved_rounds, proxy_nr_migrations - moves0,
	       rc_look.outside, rc_look.samples);
	KEXPECT_EQ(t, rc.got, RACE_ROUNDS);
	KEXPECT_EQ(t, rc.twice, 0);
	KEXPECT_EQ(t, rc.wrong_owner, 0);
	KEXPECT_EQ(t, rc.wrong_cpu, 0);
	KEXPECT_EQ(t, rc.owner_wrong_cpu, 0);
	KEXPECT_EQ(t, rc_look.outside, 0);
	KEXPECT_EQ(t, left_blocked, 0);
	KEXPECT_EQ(t, rc.m.owner, 0);
	KEXPECT(t, rc.moved_rounds > 0);
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
		spin_exec(20 * NSEC_PER_USEC);
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
	saved_mode = locking_mode;
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
	KTEST_CASE_TIMEOUT(defending_chains_vs_hogs, 30000),
	KTEST_CASE_TIMEOUT(owner_leaves_while_chain_moves, 60000),
	KTEST_CASE_TIMEOUT(pinned_random_nesting, 120000),
	{0}
};
KTEST_SUITE(proxy_smp, proxy_smp_cases);
