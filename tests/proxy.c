/*
 * proxy.c - tests of proxy execution and the three locking modes
 * (kernel/sched/proxy.c, kernel/sched/inherit.c, kernel/locking/mutex.c):
 * priority inversion in proxy / inherit / none, transitive donation
 * through a chain of 7 mutexes, several donors, cross-class donation
 * (deadline, short-slice fair, RT lending to fair owners), an owner that
 * sleeps holding the lock, unlock handing the lock to the donor, and
 * blocked_on cycles reported as deadlocks.
 *
 * Every scenario runs on one CPU (the last online one) with the case
 * thread itself SCHED_FIFO 99 while it sets up, so the order of events
 * is decided by priorities, not by timing.  Verdicts use who ran (CPU
 * time, rq->donor seen from inside the owner), not wall-clock bounds,
 * so a stalled host cannot fail them; wall-clock waits are printed.
 */
#include "proxy_helpers.h"
#include "cpu.h"
#include "sched.h"
#include "mutex.h"
#include "timer.h"
#include "arch.h"
#include "string.h"
#include "../kernel/sched/testing.h"

/* ---- Helpers --------------------------------------------------------- */

static int test_cpu(void)
{
	return ncpus - 1;
}

static struct task *spawn_attr(struct ktest *t, const char *name,
			       void (*fn)(void *), void *arg,
			       const struct sched_attr *a)
{
	struct thread_opts o = { .attr = a, .affinity = 1ULL << test_cpu() };
	struct task *p = NULL;
	int err = thread_spawn(&p, name, fn, arg, &o);

	if (err)
		ktest_fail(t, __FILE__, __LINE__, "thread_spawn %s: %d", name, err);
	return p;
}

static struct task *spawn_rt(struct ktest *t, const char *name,
			     void (*fn)(void *), void *arg, int prio)
{
	struct sched_attr a = { .policy = SCHED_FIFO, .rt_priority = prio };

	return spawn_attr(t, name, fn, arg, &a);
}

static struct task *spawn_fair(struct ktest *t, const char *name,
			       void (*fn)(void *), void *arg, int nice)
{
	struct sched_attr a = { .policy = SCHED_NORMAL, .nice = nice };

	return spawn_attr(t, name, fn, arg, &a);
}

/* Busy until @p waits for @m (or 2 s passed: then the verdicts fail).
 * Not a timed guess: a host stall can swallow any fixed time. */
static void spin_until_blocked(struct task *volatile *p, struct mutex *m)
{
	uint64_t end = clock_ns() + 2 * NSEC_PER_SEC;

	while ((!READ_ONCE(*p) || READ_ONCE((*p)->blocked_on) != m) &&
	       clock_ns() < end)
		arch_cpu_relax();
}


/* ---- Priority inversion, in each mode ------------------------------- */

#define INV_CS (20 * MS)	/* low task's critical section, CPU time */
#define INV_HOG (60 * MS)	/* medium hog, CPU time */

static struct inversion {
	struct mutex m;
	volatile int low_holds;
	struct task *hog;
	uint64_t hog_exec_at_acquire;	/* hog's CPU time when high got m */
	uint64_t wait_ns;		/* high's wall-clock wait */
	struct task *volatile high;
	bool low_ran_for_high;		/* rq->donor seen inside the low task */
	char low_donor[TASK_NAME_LEN];	/*   and its name */
} inv;

static void inv_low(void *arg)
{
	(void)arg;
	mutex_lock(&inv.m);
	inv.low_holds = 1;
	spin_until_blocked(&inv.high, &inv.m);	/* high was just spawned */
	px_spin_exec(INV_CS);
	inv.low_ran_for_high = current_donor() == inv.high;
	strlcpy(inv.low_donor, current_donor()->name, sizeof(inv.low_donor));
	mutex_unlock(&inv.m);
}

static void inv_hog(void *arg)
{
	(void)arg;
	px_spin_exec(INV_HOG);
}

static void inv_high(void *arg)
{
	uint64_t t0 = clock_ns();

	(void)arg;
	mutex_lock(&inv.m);
	inv.wait_ns = clock_ns() - t0;
	inv.hog_exec_at_acquire = task_exec_ns(inv.hog);
	mutex_unlock(&inv.m);
}

/*
 * low (FIFO 10) holds m; medium hog (FIFO 50) and high (FIFO 90) become
 * runnable; high blocks on m.  With proxy or inherit the low task runs
 * its critical section for high and the hog gets nothing until high has
 * the lock; with none the hog runs to completion first.
 */
static void run_inversion(struct ktest *t, enum locking_mode mode)
{
	struct task *low, *high;

	if (!px_begin_mode(t, test_cpu(), mode))
		return;
	memset(&inv, 0, sizeof(inv));
	mutex_init(&inv.m, "inv-m");
	low = spawn_rt(t, "inv-low", inv_low, NULL, 10);
	px_wait_flag(&inv.low_holds);
	inv.hog = spawn_rt(t, "inv-hog", inv_hog, NULL, 50);
	high = inv.high = spawn_rt(t, "inv-high", inv_high, NULL, 90);
	px_join(high);
	px_join(inv.hog);
	px_join(low);
	px_end();
	printk("# %s: high waited %llu us; the medium hog had run %llu us "
	       "by then; low ran with %s's context\n", locking_mode_name(mode),
	       (unsigned long long)(inv.wait_ns / 1000),
	       (unsigned long long)(inv.hog_exec_at_acquire / 1000),
	       inv.low_donor);
	if (mode == LOCKING_NONE) {
		KEXPECT(t, inv.hog_exec_at_acquire >= INV_HOG);
	} else {
		KEXPECT_EQ(t, inv.hog_exec_at_acquire, 0);
		/* proxy: low runs as high's proxy; inherit: boosted itself */
		KEXPECT(t, inv.low_ran_for_high == (mode == LOCKING_PROXY));
	}
}

static void inversion_proxy(struct ktest *t) { run_inversion(t, LOCKING_PROXY); }
static void inversion_inherit(struct ktest *t) { run_inversion(t, LOCKING_INHERIT); }
static void inversion_none(struct ktest *t) { run_inversion(t, LOCKING_NONE); }

/* ---- Transitive donation through a chain of 7 mutexes --------------- */

#define CHAIN 7

static struct chain {
	struct mutex m[CHAIN];
	volatile int holds[CHAIN];	/* holder i has m[i] */
	volatile int go;
	struct task *top, *hog;
	struct task *donor_in[CHAIN];	/* donor seen holding m[i] + m[i-1] */
	struct task *donor_after[CHAIN];	/* donor seen after releasing */
	uint64_t hog_exec_at_top;
	int order[CHAIN + 1], norder;
} ch;

/*
 * Holder i: takes m[i], then (i > 0) waits for m[i-1] held by holder
 * i-1, so the chain is top -> m[6] -> h6 -> m[5] -> ... -> m[0] -> h0.
 * Holder 0 busy-waits for `go`, so once the top task blocks it runs as
 * the top task's proxy (owner_sleeps tests sleeping owners).
 * donor_in[i - 1] is what holder i saw holding m[i - 1]; donor_in[6] is
 * holder 0's view.
 */
static void chain_holder(void *arg)
{
	int i = (int)(long)arg;

	mutex_lock(&ch.m[i]);
	ch.holds[i] = 1;
	if (i == 0) {
		while (!READ_ONCE(ch.go))
			arch_cpu_relax();
	} else {
		mutex_lock(&ch.m[i - 1]);
		ch.donor_in[i - 1] = current_donor();
		mutex_unlock(&ch.m[i - 1]);
	}
	px_spin_exec(MS);
	if (i == 0)
		ch.donor_in[CHAIN - 1] = current_donor();	/* h0's view */
	ch.order[__atomic_fetch_add(&ch.norder, 1, __ATOMIC_SEQ_CST)] = i;
	mutex_unlock(&ch.m[i]);
	ch.donor_after[i] = current_donor();
}

static void chain_top(void *arg)
{
	(void)arg;
	mutex_lock(&ch.m[CHAIN - 1]);
	ch.hog_exec_at_top = task_exec_ns(ch.hog);
	ch.order[__atomic_fetch_add(&ch.norder, 1, __ATOMIC_SEQ_CST)] = CHAIN;
	mutex_unlock(&ch.m[CHAIN - 1]);
}

static void chain_hog(void *arg)
{
	(void)arg;
	px_spin_exec(40 * MS);
}

static void chain_of_seven(struct ktest *t)
{
	struct task *h[CHAIN];
	static const char *names[CHAIN] = { "chain-m0", "chain-m1", "chain-m2",
		"chain-m3", "chain-m4", "chain-m5", "chain-m6" };

	if (!px_begin_mode(t, test_cpu(), LOCKING_PROXY))
		return;
	memset(&ch, 0, sizeof(ch));
	for (int i = 0; i < CHAIN; i++)
		mutex_init(&ch.m[i], names[i]);
	for (int i = 0; i < CHAIN; i++) {
		h[i] = spawn_fair(t, "chain-holder", chain_holder, (void *)(long)i, 0);
		px_wait_flag(&ch.holds[i]);
	}
	sleep_ns(2 * MS);		/* holder i now waits for m[i-1] */
	ch.hog = spawn_rt(t, "chain-hog", chain_hog, NULL, 50);
	ch.top = spawn_rt(t, "chain-top", chain_top, NULL, 90);
	sleep_ns(MS);			/* top blocks on m[6]: h0 runs for it */
	ch.go = 1;
	px_join(ch.top);
	px_join(ch.hog);
	for (int i = 0; i < CHAIN; i++)
		px_join(h[i]);
	px_end();
	/* Releases in chain order, then the top task, before the hog ran. */
	KASSERT_EQ(t, ch.norder, CHAIN + 1);
	for (int i = 0; i <= CHAIN; i++)
		KEXPECT_EQ(t, ch.order[i], i);
	KEXPECT_EQ(t, ch.hog_exec_at_top, 0);
	for (int i = 0; i < CHAIN; i++) {
		/* Holding its lock, each ran with the top task's context... */
		KEXPECT(t, ch.donor_in[i] == ch.top);
		/* ...and with its own once it had released it. */
		KEXPECT(t, ch.donor_after[i] == h[i]);
	}
}

/* ---- Several donors on several mutexes of one owner ------------------ */

static struct multi {
	struct mutex m1, m2;
	volatile int holds;
	struct task *volatile a, *volatile b;
	struct task *donor_before, *donor_between;
} mu;

static void multi_owner(void *arg)
{
	(void)arg;
	mutex_lock(&mu.m1);
	mutex_lock(&mu.m2);
	mu.holds = 1;
	spin_until_blocked(&mu.b, &mu.m2);	/* a, then b block */
	px_spin_exec(2 * MS);
	mu.donor_before = current_donor();
	mutex_unlock(&mu.m2);		/* b takes m2, runs, leaves */
	px_spin_exec(2 * MS);
	mu.donor_between = current_donor();
	mutex_unlock(&mu.m1);
}

static void multi_waiter(void *arg)
{
	struct mutex *m = arg;

	mutex_lock(m);
	mutex_unlock(m);
}

static void multi_hog(void *arg)
{
	(void)arg;
	px_spin_exec(30 * MS);
}

/*
 * owner (fair) holds m1 and m2; a (FIFO 30) waits for m1, b (FIFO 60)
 * for m2, a hog (FIFO 20) competes.  The owner first runs for b; after
 * giving m2 to b it runs for a, the best remaining donor.
 */
static void several_donors(struct ktest *t)
{
	struct task *o, *hog;

	if (!px_begin_mode(t, test_cpu(), LOCKING_PROXY))
		return;
	memset(&mu, 0, sizeof(mu));
	mutex_init(&mu.m1, "multi-m1");
	mutex_init(&mu.m2, "multi-m2");
	o = spawn_fair(t, "multi-owner", multi_owner, NULL, 0);
	px_wait_flag(&mu.holds);
	hog = spawn_rt(t, "multi-hog", multi_hog, NULL, 20);
	mu.a = spawn_rt(t, "multi-a", multi_waiter, &mu.m1, 30);
	while (mu.a && !READ_ONCE(mu.a->blocked_on))
		sleep_ns(MS / 2);
	mu.b = spawn_rt(t, "multi-b", multi_waiter, &mu.m2, 60);
	px_join(mu.b);
	px_join(mu.a);
	px_join(hog);
	px_join(o);
	px_end();
	KEXPECT(t, mu.donor_before == mu.b);
	KEXPECT(t, mu.donor_between == mu.a);
}

/* ---- Cross-class donation ------------------------------------------- */

static struct cross {
	struct mutex m;
	volatile int holds;
	struct task *waiter;
	struct task *owner_donor;	/* donor seen inside the owner */
	uint64_t owner_vr0, owner_vr1;	/* owner's vruntime around the CS */
	uint64_t waiter_vr0, waiter_vr1;
	int64_t budget0, budget1;	/* deadline waiter's runtime */
	uint64_t waiter_exec0, waiter_exec1;
	uint64_t owner_exec0, owner_exec1;
	uint64_t cs;
} cx;

/* @w's deadline budget as update_curr would leave it now: the stretch
 * since the last charge goes to the donor (we run as its proxy). */
static int64_t budget_now(struct task *w)
{
	unsigned long flags = arch_irq_save();
	int64_t b = READ_ONCE(w->dl.runtime);

	if (this_rq()->donor == w)
		b -= (int64_t)(clock_ns() - current()->exec_start_ns);
	arch_irq_restore(flags);
	return b;
}

/* @w's vruntime as update_curr would leave it now: the stretch since
 * the last charge goes to the donor, weighted (1024 / weight). */
static uint64_t vruntime_now(struct task *w)
{
	unsigned long flags = arch_irq_save();
	uint64_t v = READ_ONCE(w->se.vruntime);

	if (this_rq()->donor == w)
		v += (clock_ns() - current()->exec_start_ns) * 1024 / w->se.weight;
	arch_irq_restore(flags);
	return v;
}

static void cross_owner(void *arg)
{
	(void)arg;
	mutex_lock(&cx.m);
	cx.holds = 1;
	/* Wait until the waiter blocks: it is runnable as soon as it is
	 * spawned and outranks us, so we run again only as its proxy. */
	while (!READ_ONCE(cx.waiter) || !READ_ONCE(cx.waiter->blocked_on))
		sleep_ns(MS / 2);
	/* A fair owner may also be picked for itself (EEVDF), and a host
	 * stalling the vCPU then would charge the whole section to it:
	 * begin as the waiter's proxy, which must come within 2 s. */
	for (uint64_t end = clock_ns() + 2000 * MS;
	     current_donor() != cx.waiter && clock_ns() < end;)
		arch_cpu_relax();
	cx.owner_donor = current_donor();
	cx.owner_vr0 = vruntime_now(current());
	cx.waiter_vr0 = vruntime_now(cx.waiter);
	cx.budget0 = budget_now(cx.waiter);
	cx.waiter_exec0 = task_exec_ns(cx.waiter);
	cx.owner_exec0 = task_exec_ns(current());
	px_spin_exec(cx.cs);
	cx.owner_exec1 = task_exec_ns(current());
	cx.waiter_exec1 = task_exec_ns(cx.waiter);
	cx.budget1 = budget_now(cx.waiter);
	cx.waiter_vr1 = vruntime_now(cx.waiter);
	cx.owner_vr1 = vruntime_now(current());
	mutex_unlock(&cx.m);
}

static void cross_waiter(void *arg)
{
	(void)arg;
	mutex_lock(&cx.m);
	mutex_unlock(&cx.m);
}

static void cross_hog(void *arg)
{
	px_spin_exec((uint64_t)(long)arg);
}

/* Common shape: owner (fair, @owner_nice) holds m; a hog of @hog_attr
 * keeps it off the CPU on its own; the waiter of @waiter_attr blocks. */
static void run_cross(struct ktest *t, int owner_nice,
		      const struct sched_attr *hog_attr,
		      const struct sched_attr *waiter_attr, uint64_t cs)
{
	struct task *o, *hog = NULL;
	struct task *w;

	if (!px_begin_mode(t, test_cpu(), LOCKING_PROXY))
		return;
	memset(&cx, 0, sizeof(cx));
	cx.cs = cs;
	mutex_init(&cx.m, "cross-m");
	o = spawn_fair(t, "cross-owner", cross_owner, NULL, owner_nice);
	px_wait_flag(&cx.holds);
	if (hog_attr)
		hog = spawn_attr(t, "cross-hog", cross_hog, (void *)(long)(30 * MS),
				 hog_attr);
	w = spawn_attr(t, "cross-waiter", cross_waiter, NULL, waiter_attr);
	cx.waiter = w;
	px_join(w);
	px_join(hog);
	px_join(o);
	px_end();
	KEXPECT(t, cx.owner_donor == w);
	/* Execution time to the owner, none to the blocked waiter. */
	KEXPECT(t, cx.owner_exec1 - cx.owner_exec0 >= cs);
	KEXPECT(t, cx.waiter_exec1 - cx.waiter_exec0 < cs / 4);
}

/* A deadline waiter lends its deadline and budget to a fair owner; the
 * budget consumed is the waiter's. */
static void cross_deadline_to_fair(struct ktest *t)
{
	struct sched_attr hog = { .policy = SCHED_FIFO, .rt_priority = 50 };
	struct sched_attr dl = { .policy = SCHED_DEADLINE, .dl_runtime = 20 * MS,
				 .dl_deadline = 100 * MS, .dl_period = 100 * MS };

	run_cross(t, 0, &hog, &dl, 5 * MS);
	printk("# deadline waiter's budget %lld us -> %lld us over the owner's "
	       "5 ms section\n", (long long)(cx.budget0 / 1000),
	       (long long)(cx.budget1 / 1000));
	/* The same period (100 ms) unless a host stall crossed it. */
	if (cx.budget1 < cx.budget0)
		KEXPECT(t, cx.budget0 - cx.budget1 >= (int64_t)(4 * MS));
}

/*
 * A short-slice fair waiter lends to a nice-19 owner: while the owner
 * runs as its proxy, virtual time is charged to the waiter (weight 1024),
 * not to the owner (weight 15).  The owner may also be picked for itself
 * now and then (EEVDF decides), so the check is the accounting: every ns
 * the owner ran went to exactly one of them at its weight, and the
 * waiter got some.
 */
#define NICE19_WEIGHT 15		/* Linux's weight table */

static void cross_fair_to_nice19(struct ktest *t)
{
	struct sched_attr hog = { .policy = SCHED_NORMAL };
	struct sched_attr w = { .policy = SCHED_NORMAL, .slice_ns = MS / 2 };

	run_cross(t, 19, &hog, &w, 4 * MS);
	printk("# owner vruntime +%llu us, waiter vruntime +%llu us\n",
	       (unsigned long long)((cx.owner_vr1 - cx.owner_vr0) / 1000),
	       (unsigned long long)((cx.waiter_vr1 - cx.waiter_vr0) / 1000));
	{
		uint64_t ran = cx.owner_exec1 - cx.owner_exec0;
		/* The waiter's vruntime also grows while it runs itself (a
		 * wakeup that finds the lock still held): weight 1024, 1:1. */
		uint64_t own = cx.waiter_exec1 - cx.waiter_exec0;
		uint64_t as_waiter = cx.waiter_vr1 - cx.waiter_vr0 - own;
		uint64_t as_owner = (cx.owner_vr1 - cx.owner_vr0) *
				    NICE19_WEIGHT / 1024;
		uint64_t sum = as_waiter + as_owner;

		printk("# the owner ran %llu us: %llu us as the waiter's proxy, "
		       "%llu us as itself (the waiter ran %llu us itself)\n",
		       (unsigned long long)(ran / 1000),
		       (unsigned long long)(as_waiter / 1000),
		       (unsigned long long)(as_owner / 1000),
		       (unsigned long long)(own / 1000));
		KEXPECT(t, as_waiter > 0);
		KEXPECT(t, sum + ran / 10 >= ran && sum <= ran + ran / 10);
	}
}

/* An RT waiter lends to a fair owner. */
static void cross_rt_to_fair(struct ktest *t)
{
	struct sched_attr hog = { .policy = SCHED_FIFO, .rt_priority = 40 };
	struct sched_attr w = { .policy = SCHED_FIFO, .rt_priority = 80 };

	run_cross(t, 0, &hog, &w, 5 * MS);
}

/* ---- The owner sleeps holding the mutex ------------------------------ */

static struct sleeper {
	struct mutex m;
	volatile int holds;
	volatile int sleeping, release;
	struct task *donor;
	int donor_on_rq_while_asleep;
	struct task *parked_on;
	struct task *owner_donor;
	int donor_home, donor_cpu;
} sl;

/*
 * An RT donor that does not run where a fair task waits may be the RT
 * class stepping aside (throttled: sched_rt_set_bandwidth), which these
 * single-CPU cases do not expect: say so next to a failure.
 */
static void note_rt_throttling(void)
{
	for (int c = 0; c < ncpus; c++) {
		struct rq *rq = cpu_rq(c);

		if (READ_ONCE(cpus[c].online) && READ_ONCE(rq->rt.throttled))
			printk("    # cpu%d: RT throttled (%llu ms used in the "
			       "period)\n", c, (unsigned long long)
			       (READ_ONCE(rq->rt.rt_time_ns) / NSEC_PER_MSEC));
	}
}

static void sleepy_owner(void *arg)
{
	(void)arg;
	mutex_lock(&sl.m);
	sl.holds = 1;
	sl.sleeping = 1;
	/* Asleep until the case has looked at the parked donor (a fixed
	 * sleep could end first on a stalled host). */
	for (;;) {
		WRITE_ONCE(current()->state, TASK_SLEEPING);
		smp_mb();
		if (READ_ONCE(sl.release))
			break;
		schedule();
	}
	WRITE_ONCE(current()->state, TASK_RUNNING);
	sl.sleeping = 0;
	px_spin_exec(MS);
	sl.owner_donor = current_donor();
	if (sl.owner_donor != sl.donor)
		note_rt_throttling();
	mutex_unlock(&sl.m);
}

static void sleepy_waiter(void *arg)
{
	(void)arg;
	sl.donor_home = smp_processor_id();
	mutex_lock(&sl.m);
	sl.donor_cpu = smp_processor_id();
	mutex_unlock(&sl.m);
}

/*
 * While the owner sleeps its donor is off the runqueue, parked on the
 * owner; when the owner wakes the donor comes back (on the owner's
 * CPU), the owner runs for it, and the donor gets the lock.  The donor
 * may start on any CPU: it must come back on the owner's (the owner
 * ran with its context), and takes the lock there, or at home if it had
 * been lent to the owner's CPU before the owner slept (the handoff's
 * wakeup is where a lent donor goes home).
 */
static void owner_sleeps(struct ktest *t)
{
	struct sched_attr a = { .policy = SCHED_FIFO, .rt_priority = 80 };
	struct thread_opts o = { .attr = &a };
	struct task *own, *w = NULL;

	if (!px_begin_mode(t, test_cpu(), LOCKING_PROXY))
		return;
	memset(&sl, 0, sizeof(sl));
	mutex_init(&sl.m, "sleepy-m");
	own = spawn_fair(t, "sleepy-owner", sleepy_owner, NULL, 0);
	px_wait_flag(&sl.holds);
	KASSERT_EQ(t, thread_spawn(&w, "sleepy-donor", sleepy_waiter, NULL, &o), 0);
	sl.donor = w;
	/* The owner sleeps until told: wait (2 s at most) for the donor to
	 * block and park, then look. */
	for (int i = 0; i < 4000 && !(READ_ONCE(w->parked_on) &&
				      !READ_ONCE(w->on_rq)); i++)
		sleep_ns(MS / 2);
	sl.donor_on_rq_while_asleep = READ_ONCE(w->on_rq);
	sl.parked_on = READ_ONCE(w->parked_on);
	sl.release = 1;
	wake_up(own);
	px_join(w);
	px_join(own);
	px_end();
	KEXPECT_EQ(t, sl.donor_on_rq_while_asleep, 0);
	KEXPECT(t, sl.parked_on == own);
	KEXPECT(t, sl.owner_donor == w);
	if (sl.donor_cpu != test_cpu())
		KEXPECT_EQ(t, sl.donor_cpu, sl.donor_home);
}

/* ---- Unlock hands the mutex to the donor ----------------------------- */

static struct handoff {
	struct mutex m;
	volatile int holds;
	struct task *first, *donor;
	struct task *got[2];
	int ngot;
	struct task *owner_after_unlock;
} ho;

static void handoff_owner(void *arg)
{
	(void)arg;
	mutex_lock(&ho.m);
	ho.holds = 1;
	while (!READ_ONCE(ho.donor) || !READ_ONCE(ho.donor->blocked_on))
		sleep_ns(MS / 2);
	px_spin_exec(2 * MS);
	/* Look at the word before anyone runs: a handoff writes the chosen
	 * task into it; a plain release would leave it free for whoever
	 * runs first (here the donor too, being the most important). */
	preempt_disable();
	mutex_unlock(&ho.m);
	ho.owner_after_unlock = mutex_owner(&ho.m);
	preempt_enable();
	if (ho.owner_after_unlock != ho.donor)
		note_rt_throttling();
}

static void handoff_waiter(void *arg)
{
	(void)arg;
	mutex_lock(&ho.m);
	ho.got[__atomic_fetch_add(&ho.ngot, 1, __ATOMIC_SEQ_CST)] = current();
	mutex_unlock(&ho.m);
}

/*
 * The first waiter in FIFO order is a fair task, the second an RT task
 * that boosts the owner: unlock gives the lock to the RT donor, not to
 * the first waiter.
 */
static void unlock_hands_to_donor(struct ktest *t)
{
	struct task *o;

	if (!px_begin_mode(t, test_cpu(), LOCKING_PROXY))
		return;
	memset(&ho, 0, sizeof(ho));
	mutex_init(&ho.m, "handoff-m");
	o = spawn_fair(t, "handoff-owner", handoff_owner, NULL, 0);
	px_wait_flag(&ho.holds);
	ho.first = spawn_fair(t, "handoff-first", handoff_waiter, NULL, 0);
	while (!READ_ONCE(ho.first->blocked_on))
		sleep_ns(MS / 2);
	ho.donor = spawn_rt(t, "handoff-donor", handoff_waiter, NULL, 70);
	px_join(ho.donor);
	px_join(ho.first);
	px_join(o);
	px_end();
	KASSERT_EQ(t, ho.ngot, 2);
	KEXPECT(t, ho.owner_after_unlock == ho.donor);
	KEXPECT(t, ho.got[0] == ho.donor);
	KEXPECT(t, ho.got[1] == ho.first);
}

/* ---- Deadlock cycles are reported ------------------------------------ */

#define CYCLE_MAX 3

static struct cycle {
	struct mutex m[CYCLE_MAX];
	volatile int holds[CYCLE_MAX];
	int n;
	int result[CYCLE_MAX];
} cy;

static void cycle_task(void *arg)
{
	int i = (int)(long)arg;

	mutex_lock(&cy.m[i]);
	cy.holds[i] = 1;
	for (int j = 0; j < cy.n; j++)
		while (!READ_ONCE(cy.holds[j]))
			sleep_ns(MS / 2);
	/* Everyone holds its own: now take the next one's. */
	cy.result[i] = mutex_lock_timeout(&cy.m[(i + 1) % cy.n], 200 * MS);
	if (cy.result[i] == 0)
		mutex_unlock(&cy.m[(i + 1) % cy.n]);
	mutex_unlock(&cy.m[i]);
}

/* @spread: task i on CPU i % ncpus (the cycle crosses CPUs), else all on
 * the test CPU. */
static void run_cycle(struct ktest *t, int n, bool spread)
{
	static const char *names[CYCLE_MAX] = { "cycle-m0", "cycle-m1", "cycle-m2" };
	static const char *tnames[CYCLE_MAX] = { "cycle-t0", "cycle-t1", "cycle-t2" };
	struct task *p[CYCLE_MAX];
	unsigned long before = proxy_nr_deadlocks;
	int timeouts;

	if (!px_begin_mode(t, test_cpu(), LOCKING_PROXY))
		return;
	memset(&cy, 0, sizeof(cy));
	cy.n = n;
	for (int i = 0; i < n; i++)
		mutex_init(&cy.m[i], names[i]);
	for (int i = 0; i < n; i++) {
		struct sched_attr a = { .policy = SCHED_NORMAL };
		struct thread_opts o = {
			.attr = &a,
			.affinity = 1ULL << (spread ? i % ncpus : test_cpu()),
		};

		p[i] = NULL;
		if (thread_spawn(&p[i], tnames[i], cycle_task, (void *)(long)i, &o))
			ktest_fail(t, __FILE__, __LINE__, "thread_spawn %s", tnames[i]);
	}
	for (int i = 0; i < n; i++)
		px_join(p[i]);
	px_end();
	KEXPECT(t, proxy_nr_deadlocks > before);
	/* At least one timed out; once it let go of its own mutex the
	 * others may have had theirs. */
	timeouts = 0;
	for (int i = 0; i < n; i++) {
		KEXPECT(t, cy.result[i] == 0 || cy.result[i] == -ETIMEDOUT);
		timeouts += cy.result[i] == -ETIMEDOUT;
	}
	KEXPECT(t, timeouts >= 1);
	for (int i = 0; i < n; i++) {
		KEXPECT(t, strstr(proxy_deadlock_report, names[i]) != NULL);
		KEXPECT(t, strstr(proxy_deadlock_report, tnames[i]) != NULL);
	}
	printk("# %s\n", proxy_deadlock_report);
}

static void deadlock_cycle_2(struct ktest *t) { run_cycle(t, 2, false); }
static void deadlock_cycle_3(struct ktest *t) { run_cycle(t, 3, false); }

static void deadlock_cycle_across_cpus(struct ktest *t)
{
	if (ncpus < 2)
		KSKIP(t, "needs >= 2 CPUs");
	run_cycle(t, 3, true);
}

static struct ktest_case proxy_cases[] = {
	KTEST_CASE(inversion_proxy),
	KTEST_CASE(inversion_inherit),
	KTEST_CASE(inversion_none),
	KTEST_CASE(chain_of_seven),
	KTEST_CASE(several_donors),
	KTEST_CASE(cross_deadline_to_fair),
	KTEST_CASE(cross_fair_to_nice19),
	KTEST_CASE(cross_rt_to_fair),
	KTEST_CASE(owner_sleeps),
	KTEST_CASE(unlock_hands_to_donor),
	KTEST_CASE(deadlock_cycle_2),
	KTEST_CASE(deadlock_cycle_3),
	KTEST_CASE(deadlock_cycle_across_cpus),
	{0}
};
KTEST_SUITE(proxy, proxy_cases);
