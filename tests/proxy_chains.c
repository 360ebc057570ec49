/*
 * proxy_chains.c - proxy execution across CPUs at scale (the machinery
 * of proxy_smp.c, many chains at once, and races):
 *
 *   defending_chains_vs_hogs      N chains, each of which must move to
 *                                 be served, against a medium RT hog on
 *                                 every CPU: judged under the rq locks
 *                                 from a spare CPU, no CPU ever runs its
 *                                 hog while a chain that outranks it
 *                                 waits there
 *   owner_leaves_while_chain_moves  hundreds of random rounds of an
 *                                 owner that unlocks and exits, sleeps,
 *                                 or moves itself while its waiter's
 *                                 chain is on its way: the lock is taken
 *                                 once, nothing stays blocked, no lost
 *                                 wakeup
 *
 * Verdicts by who ran and what the scheduler committed to, never by
 * wall-clock bounds.  Helpers: proxy_helpers.c.
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
#define DEF_SEEN_WAIT (500 * MS)	/* a section waits this long at most
					 * for the judge to have seen it */

struct def_chain {
	struct mutex m1, m2;
	struct task *h, *m, *l;
	int h_cpu, m_cpu, l_cpu;
	volatile int l_holds, m_holds, h_started, h_got, h_done;
	int h_cpu_after;		/* smp_processor_id() with m1 */
	bool l_served, m_served;	/* ran some of its section for H */
	bool l_gave_up, m_gave_up;	/* its CPU's hog ended first */
	volatile int seen;		/* the judge saw it waiting */
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
 * CPU only then), then burn CS of CPU time, and on until the judge has
 * seen the chain waiting (a busy host may not run the judge's vCPU for
 * tens of ms: without this the judge could miss every chain and judge
 * nothing).  True if any of it ran for H_j.  The owner may also get the
 * CPU without H_j while the hog is RT-throttled (earlier cases' hogs may
 * have used this CPU's RT budget): it keeps waiting then.
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
	end = task_exec_ns(self) + CS;
	for (;;) {
		uint64_t now = task_exec_ns(self);

		if (now >= end + DEF_SEEN_WAIT || (now >= end && READ_ONCE(ch->seen)))
			break;
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
	uint64_t end = task_exec_ns(self) + DEF_HOG;

	df.hog_started[c] = 1;
	while (!READ_ONCE(df.hogs_stop) && task_exec_ns(self) < end)
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
		ch->seen = 1;
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

static bool def_game(struct ktest *t, int n, int spare);

/*
 * Every H_j must get its lock, through L_j and M_j running for it on
 * their CPUs ahead of the hogs; the judge on the spare CPU never sees a
 * hog committed to run while a chain that outranks it waits to be
 * served on its CPU.  With locking none the hogs run first (the chains'
 * donors sleep): that is what the judge is for.  It must have seen a
 * chain waiting at least once: a game over before its judge looked (0 of
 * 7 samples, riscv64, 8 CPUs, a loaded host) tested nothing, and is
 * played again (3 games at most).
 */
static void defending_chains_vs_hogs(struct ktest *t)
{
	int n = online_cpus() - 1, spare = n;
	int blocked0 = __atomic_load_n(&mutex_nr_blocked, __ATOMIC_SEQ_CST);
	unsigned long moves0 = proxy_nr_migrations;

	if (online_cpus() < 3)
		KSKIP(t, "needs >= 3 CPUs");
	n = MIN(n, DEF_MAX);
	for (int game = 0; game < 3; game++) {
		if (!def_game(t, n, spare))
			return;
		if (df.judged || df.violations)
			break;
		printk("# game %d over before the judge saw a chain wait: "
		       "again\n", game + 1);
	}
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

/* One game: chains set up, hogs, the judge, the high tasks; all joined.
 * False if px_begin failed (reported). */
static bool def_game(struct ktest *t, int n, int spare)
{
	struct task *judge;

	if (!px_begin(t, spare))
		return false;
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
		ch->l = px_spawn_on(t, "defend-low", ch->l_cpu, def_low, ch, 0);
		px_wait_flag(&ch->l_holds);
		ch->m = px_spawn_on(t, "defend-mid", ch->m_cpu, def_mid, ch, 0);
		px_wait_flag(&ch->m_holds);
		px_wait_blocked(ch->m);
	}
	for (int c = 0; c < n; c++) {
		df.hog[c] = px_spawn_on(t, "defend-hog", c, def_hog,
				     (void *)(uintptr_t)c, 50);
		px_wait_flag(&df.hog_started[c]);
	}
	judge = px_spawn_on(t, "defend-judge", spare, def_judge, NULL, 0);
	/* The H_j are known to the judge before they run (def_serve_cpu
	 * reads them); nothing looks at them until they block. */
	for (int j = 0; j < n; j++)
		df.ch[j].h = px_spawn_on(t, "defend-high", j, def_high, &df.ch[j], 90);
	for (int j = 0; j < n; j++)
		px_wait_flag(&df.ch[j].h_done);
	df.done = df.hogs_stop = 1;
	px_join(judge);
	for (int j = 0; j < n; j++) {
		px_join(df.ch[j].h);
		px_join(df.ch[j].m);
		px_join(df.ch[j].l);
	}
	for (int c = 0; c < n; c++)
		px_join(df.hog[c]);
	px_end();
	return true;
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
	px_spin_exec(rc.delay);
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
	if (!px_begin(t, spare >= 0 ? spare : 0))
		return;
	memset(&rc, 0, sizeof(rc));
	memset(&rc_look, 0, sizeof(rc_look));
	mutex_init(&rc.m, "race-m");
	if (spare >= 0)
		look = px_spawn_on(t, "race-look", spare, race_look, NULL, 0);
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
		owner = px_spawn_on(t, "race-owner", rc.b, race_owner, NULL,
				 rand_next(&seed) % 2 ? 10 : 0);
		px_wait_flag(&rc.owner_holds);
		rc_look.cpu = rc.a;
		waiter = px_spawn_on(t, "race-waiter", rc.a, race_waiter, NULL,
				  rand_next(&seed) % 4 ? 90 : 0);
		__atomic_store_n(&rc_look.p, waiter, __ATOMIC_RELEASE);
		px_join(owner);
		/* Stop the looker using W before W is freed. */
		__atomic_store_n(&rc_look.p, NULL, __ATOMIC_SEQ_CST);
		loops = __atomic_load_n(&rc_look.loops, __ATOMIC_ACQUIRE);
		while (look && __atomic_load_n(&rc_look.loops, __ATOMIC_ACQUIRE)
		       < loops + 2)
			sleep_ns(20 * NSEC_PER_USEC);	/* it shares our CPU */
		px_join(waiter);
		if (__atomic_load_n(&mutex_nr_blocked, __ATOMIC_SEQ_CST) != blocked0)
			left_blocked++;
		if (!owner || !waiter)
			break;
	}
	rc_look.done = 1;
	px_join(look);
	px_end();

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

static struct ktest_case proxy_chains_cases[] = {
	KTEST_CASE_TIMEOUT(defending_chains_vs_hogs, 30000),
	KTEST_CASE_TIMEOUT(owner_leaves_while_chain_moves, 60000),
	{0}
};
KTEST_SUITE(proxy_chains, proxy_chains_cases);
