/*
 * proxy_push.c - RT push/pull move proxy chains whole (kernel/sched/rt.c
 * rt_chain_movable, kernel/sched/proxy.c proxy_chain_of/proxy_chain_move).
 *
 * CPUs A (the case's) and B.  A chain is D (FIFO 80, blocked on m) ->
 * O (fair, holds m), both queued on A.  Every task starts pinned, so the
 * order of events is decided by priorities; affinities are widened once
 * a task is where the case wants it.  Verdicts: where and with whose
 * context the owner ran its section (it looks from inside), the chain-
 * move and donor-migration counters, and the hogs' CPU time.
 *
 *   whole_chain_pushed      an RT hog takes A: push moves D and O
 *                           together to B (O's affinity allows it), O
 *                           runs there for D ahead of B's lower hog; no
 *                           donor ever had to follow its owner (the
 *                           chain was never split)
 *   pinned_owner_chain_stays  the same with O pinned to A: the chain may
 *                           not go where O cannot run, so nothing moves
 *                           and O runs for D on A after the hog
 *   deadline_chain_pushed   a deadline waiter's chain, lent to its
 *                           owner's CPU where an earlier deadline runs,
 *                           is pushed whole to a free CPU (3 CPUs)
 *   deadline_chain_pulled   a deadline waiter's chain waiting behind an
 *                           earlier deadline is pulled whole by the CPU
 *                           whose earlier task leaves (3 CPUs)
 *   current_chain_stays     O runs for D on A while a queued RT task
 *                           below D is pulled away by B again and again:
 *                           the current chain never moves
 *   only_head_moves_chain   H -> M -> L queued on A: only H may move the
 *                           chain; M, waited on by the more important H,
 *                           may not (push/pull once moved M -> L and left
 *                           H behind); with H less important than M, M
 *                           may; L, waited on, never
 */
#include "proxy_helpers.h"
#include "cpu.h"
#include "sched.h"
#include "mutex.h"
#include "timer.h"
#include "arch.h"
#include "string.h"
#include "trace.h"
#include <printf.h>
#include "../kernel/sched/testing.h"

#define CS (10 * MS)		/* the owner's section, CPU time */

static struct pp {
	struct mutex m;
	int a, b;			/* the two CPUs */
	bool owner_must_be_on_b;	/* O waits for D's context on B */
	struct task *d, *hog_a, *hog_b;
	volatile int owner_holds, hog_a_started, hog_b_started, stop, go;
	volatile int d_done, cs_done, hog_a_done, y_started, y_leave;
	/* what O saw in its section */
	int o_cpu;
	bool lost_donor, moved_in_cs;
	char lost_to[TASK_NAME_LEN];	/* the first other donor seen */
	unsigned long d_thr0, d_thr1;	/* D's budget exhaustions */
	int64_t d_runtime0;		/* D's budget left, section start */
	uint64_t t0, lost_after, o_exec0, lost_exec, d_exec0;
	uint64_t h_start, h_end, d_ask;	/* clock_ns() */
	uint64_t cs_ns;			/* O's section if not CS */
	uint64_t hog_b0, hog_b1;
	bool hog_a_was_done;		/* when O's section began */
	unsigned long d_migr0, d_migr1, o_migr0, o_migr1;
} pp;

/* Fresh state, CPUs A and B chosen, and the case thread FIFO 99 on A in
 * proxy mode (px_begin; undone by px_end). */
static bool begin(struct ktest *t)
{
	if (ncpus < 2) {
		KSKIP(t, "needs >= 2 CPUs");
		return false;
	}
	memset(&pp, 0, sizeof(pp));
	pp.a = ncpus - 1;
	pp.b = ncpus - 2;
	mutex_init(&pp.m, "push-m");
	return px_begin(t, pp.a);
}

/* Burns CPU time until pp.stop, or @arg ns of it if nonzero. */
static void hog_fn(void *arg)
{
	struct task *self = current();
	uint64_t end = task_exec_ns(self) + (uint64_t)(uintptr_t)arg;

	WRITE_ONCE(*(self == pp.hog_a ? &pp.hog_a_started : &pp.hog_b_started), 1);
	while (!READ_ONCE(pp.stop) && (!(uintptr_t)arg || task_exec_ns(self) < end))
		arch_cpu_relax();
	if (self == pp.hog_a)
		pp.hog_a_done = 1;
}

/* O: holds m; runs its section once it has D's context (on B if asked)
 * and the case says go. */
static void owner_fn(void *arg)
{
	struct task *self = current();
	uint64_t end;

	(void)arg;
	mutex_lock(&pp.m);
	pp.owner_holds = 1;
	while (current_donor() != READ_ONCE(pp.d) || !READ_ONCE(pp.go) ||
	       (pp.owner_must_be_on_b && smp_processor_id() != pp.b)) {
		if (READ_ONCE(pp.stop))
			goto out;
		arch_cpu_relax();
	}
	pp.o_cpu = smp_processor_id();
	pp.hog_b0 = pp.hog_b ? task_exec_ns(pp.hog_b) : 0;
	pp.hog_a_was_done = READ_ONCE(pp.hog_a_done);
	pp.d_migr0 = READ_ONCE(pp.d->nr_migrations);
	pp.o_migr0 = READ_ONCE(self->nr_migrations);
	pp.d_thr0 = READ_ONCE(pp.d->dl.nr_throttled);
	pp.d_runtime0 = READ_ONCE(pp.d->dl.runtime);
	pp.d_exec0 = task_exec_ns(pp.d);
	pp.t0 = clock_ns();
	pp.o_exec0 = task_exec_ns(self);
	end = task_exec_ns(self) + (pp.cs_ns ? pp.cs_ns : CS);
	while (task_exec_ns(self) < end) {
		struct task *donor = current_donor();

		if (donor != pp.d && !pp.lost_donor) {
			pp.lost_donor = true;
			strlcpy(pp.lost_to, donor->name, sizeof(pp.lost_to));
			pp.d_thr1 = READ_ONCE(pp.d->dl.nr_throttled);
			pp.lost_after = clock_ns() - pp.t0;
			pp.lost_exec = task_exec_ns(self) - pp.o_exec0;
		}
		if (smp_processor_id() != pp.o_cpu)
			pp.moved_in_cs = true;
		arch_cpu_relax();
	}
	pp.d_migr1 = READ_ONCE(pp.d->nr_migrations);
	pp.o_migr1 = READ_ONCE(self->nr_migrations);
	pp.hog_b1 = pp.hog_b ? task_exec_ns(pp.hog_b) : 0;
	pp.cs_done = 1;
out:
	mutex_unlock(&pp.m);
}

static void waiter_fn(void *arg)
{
	(void)arg;
	pp.d_ask = clock_ns();
	mutex_lock(&pp.m);
	mutex_unlock(&pp.m);
	pp.d_done = 1;
}

/*
 * Set up hog_b (FIFO 50 on B), O (fair, A; affinity then @owner_cpus)
 * holding m, D (FIFO 80, A; affinity then A|B) blocked on m.
 */
static struct task *setup_chain(struct ktest *t, uint64_t owner_cpus,
				struct task **d)
{
	struct task *o;

	pp.hog_b = px_spawn_on(t, "push-hog-b", pp.b, hog_fn, NULL, 50);
	px_wait_flag(&pp.hog_b_started);
	o = px_spawn_on(t, "push-owner", pp.a, owner_fn, NULL, 0);
	px_wait_flag(&pp.owner_holds);
	sched_setaffinity(o, owner_cpus);
	*d = px_spawn_on(t, "push-waiter", pp.a, waiter_fn, NULL, 80);
	pp.d = *d;
	px_wait_blocked(*d);
	return o;
}

static void run_push(struct ktest *t, bool owner_may_move)
{
	unsigned long moves0, migr0;
	struct task *o, *d;

	if (!begin(t))
		return;
	pp.owner_must_be_on_b = owner_may_move;
	moves0 = proxy_nr_chain_moves;
	migr0 = proxy_nr_migrations;
	o = setup_chain(t, owner_may_move ? (1ULL << pp.a) | (1ULL << pp.b)
					  : 1ULL << pp.a, &d);
	/* A is overloaded whenever we run (D waits): the push may move D's
	 * chain then (a blocked donor lends its context wherever its owner
	 * may run), or when A's hog below takes A. */
	sched_setaffinity(d, (1ULL << pp.a) | (1ULL << pp.b));
	pp.go = 1;
	pp.hog_a = px_spawn_on(t, "push-hog-a", pp.a, hog_fn,
			    (void *)(uintptr_t)(50 * MS), 90);
	px_join(pp.hog_a);		/* we run again when it is done */
	while (!READ_ONCE(pp.d_done) && !READ_ONCE(pp.cs_done))
		sleep_ns(MS);
	px_join(d);
	pp.stop = 1;
	px_join(o);
	px_join(pp.hog_b);
	px_end();

	printk("# owner ran for the waiter on cpu%d (A=%d B=%d)%s; chain moves "
	       "+%lu, donor migrations +%lu; B's hog +%llu us meanwhile\n",
	       pp.o_cpu, pp.a, pp.b, pp.hog_a_was_done ? ", after A's hog" : "",
	       proxy_nr_chain_moves - moves0, proxy_nr_migrations - migr0,
	       (unsigned long long)((pp.hog_b1 - pp.hog_b0) / 1000));
	KEXPECT(t, pp.cs_done);
	KEXPECT(t, pp.d_done);
	KEXPECT(t, !pp.lost_donor);
	KEXPECT(t, !pp.moved_in_cs);
	/* The chain never split: no donor had to follow its owner. */
	KEXPECT_EQ(t, proxy_nr_migrations - migr0, 0);
	if (owner_may_move) {
		/* Pushed whole to B, where D's context beats B's hog. */
		KEXPECT_EQ(t, pp.o_cpu, pp.b);
		KEXPECT(t, proxy_nr_chain_moves > moves0);
		KEXPECT_EQ(t, pp.hog_b1, pp.hog_b0);
	} else {
		/* O may not run on B: nothing moved; O ran for D on A, once
		 * A's hog (50 ms) was done. */
		KEXPECT_EQ(t, pp.o_cpu, pp.a);
		KEXPECT_EQ(t, proxy_nr_chain_moves - moves0, 0);
		KEXPECT(t, pp.hog_a_was_done);
	}
}

static void whole_chain_pushed(struct ktest *t) { run_push(t, true); }
static void pinned_owner_chain_stays(struct ktest *t) { run_push(t, false); }

/* ---- Deadline push moves chains too ----------------------------------- */

/*
 * A's deadline hog: runs until O's section is done (or the case gives
 * up), so that D blocks while it runs however late a host lets D start;
 * over budget, it is throttled and comes back with the chain pushable.
 */
static void dl_hog_fn(void *arg)
{
	(void)arg;
	pp.h_start = clock_ns();
	while (!READ_ONCE(pp.cs_done) && !READ_ONCE(pp.stop))
		arch_cpu_relax();
	pp.h_end = clock_ns();
}

/*
 * The case thread on a third CPU C (deadline tasks would starve it on A
 * or B).  O (fair, A|B) holds m on A, where a deadline hog H runs.  D
 * (deadline, pinned to B, later deadline than H) blocks on m: its chain
 * moves to O on A (lent), where H runs first, so A is deadline-overloaded
 * and pushes D and O together to B, where O runs for D before H is
 * done.  Without chain-aware deadline push O would run for D only on A,
 * while H is throttled, and never on B (the case fails on cs_done and
 * o_cpu).
 */
static void deadline_chain_pushed(struct ktest *t)
{
	/* D's budget pays for O's 4 ms section on B (it is not charged
	 * while the chain waits on A): the rest is room for a host that
	 * stalls the vCPU meanwhile, as a 2-core CI host running an 8-CPU
	 * guest does for 30-40 ms at times (D throttled, O would run
	 * without D's context). */
	const struct sched_attr hog = {
		.policy = SCHED_DEADLINE, .dl_runtime = 100 * MS,
		.dl_deadline = 120 * MS, .dl_period = 200 * MS };
	const struct sched_attr dl = {
		.policy = SCHED_DEADLINE, .dl_runtime = 150 * MS,
		.dl_deadline = 200 * MS, .dl_period = 200 * MS };
	unsigned long moves0;
	struct task *o, *d, *h;
	int c = ncpus - 3;

	if (ncpus < 3)
		KSKIP(t, "needs >= 3 CPUs");
	if (!begin(t))
		return;
	if (sched_setaffinity(current(), 1ULL << c) != 0) {
		ktest_fail(t, __FILE__, __LINE__, "cannot move to cpu%d", c);
		px_end();
		return;
	}
	pp.owner_must_be_on_b = true;
	pp.cs_ns = 4 * MS;
	pp.go = 1;
	o = px_spawn_on(t, "push-owner", pp.a, owner_fn, NULL, 0);
	px_wait_flag(&pp.owner_holds);
	sched_setaffinity(o, (1ULL << pp.a) | (1ULL << pp.b));
	moves0 = proxy_nr_chain_moves;
	h = NULL;
	{
		struct thread_opts ho = { .attr = &hog, .affinity = 1ULL << pp.a };
		struct thread_opts dopt = { .attr = &dl, .affinity = 1ULL << pp.b };

		if (thread_spawn(&h, "push-dl-hog", dl_hog_fn, NULL, &ho) ||
		    thread_spawn(&d, "push-dl-waiter", waiter_fn, NULL, &dopt)) {
			ktest_fail(t, __FILE__, __LINE__, "cannot spawn deadline tasks");
			pp.stop = 1;
			px_join(h);
			px_join(o);
			px_end();
			return;
		}
	}
	pp.d = d;
	for (int i = 0; i < 4000 && !READ_ONCE(pp.d_done); i++)
		sleep_ns(MS / 2);
	pp.stop = 1;
	px_join(d);
	px_join(o);
	px_join(h);
	px_end();

	printk("# owner ran for the deadline waiter on cpu%d (A=%d B=%d); "
	       "chain moves +%lu\n", pp.o_cpu, pp.a, pp.b,
	       proxy_nr_chain_moves - moves0);
	if (!pp.cs_done)
		printk("# A's hog ran from +0 to +%llu us, D asked for m at "
		       "+%lld us\n", (unsigned long long)(pp.h_end - pp.h_start) / 1000,
		       ((long long)pp.d_ask - (long long)pp.h_start) / 1000);
	if (pp.lost_donor)
		printk("# in its section the owner ran for %s; the waiter's "
		       "budget ran out %lu times by then; %lld us of it left "
		       "at the start (D ran %llu us), lost after %llu us "
		       "(owner ran %llu us)\n", pp.lost_to,
		       pp.d_thr1 - pp.d_thr0, (long long)pp.d_runtime0 / 1000,
		       (unsigned long long)pp.d_exec0 / 1000,
		       (unsigned long long)pp.lost_after / 1000,
		       (unsigned long long)pp.lost_exec / 1000);
	KEXPECT(t, pp.cs_done);
	KEXPECT(t, pp.d_done);
	KEXPECT_EQ(t, pp.o_cpu, pp.b);
	KEXPECT(t, !pp.lost_donor);
	KEXPECT(t, proxy_nr_chain_moves > moves0);
}

/* ---- Deadline pull moves chains too ----------------------------------- */

/* Y: B's deadline task, runs until told to leave, then exits. */
static void dl_leaver_fn(void *arg)
{
	(void)arg;
	pp.y_started = 1;
	while (!READ_ONCE(pp.y_leave) && !READ_ONCE(pp.stop))
		arch_cpu_relax();
}

/*
 * Why did @p last move from CPU @from to @to, by the trace's "migrate
 * task=@p from=@from to=@to why=W" records?  Copies W to @why ("" if
 * there is none).
 */
static void traced_migrate(struct task *p, int from, int to, char *why,
			   size_t len)
{
	static struct trace_event ev;	/* one case at a time */
	struct trace_snapshot *s = trace_snapshot();
	char want[96];
	size_t n;

	why[0] = 0;
	if (!s)
		return;
	n = snprintf(want, sizeof(want), "migrate task=%s#%d from=%d to=%d why=",
		     p->name, p->tid, from, to);
	while (trace_snapshot_next(s, &ev))
		if (strncmp(ev.line, want, n) == 0)
			strlcpy(why, ev.line + n, len);
	trace_snapshot_free(s);
}

/*
 * The pull side of deadline_chain_pushed, case thread on C again.  O
 * (fair, A|B) holds m on A; D (deadline, A) blocks on m there and O runs
 * for it; Y (deadline, B) runs on B; then H (deadline, A), earlier than
 * D, takes A.  A is deadline-overloaded, but Y is earlier than D on B:
 * nothing can be pushed.  Then Y exits, and B, about to pick, pulls D
 * and O together from A: O runs for D on B, and the trace says both
 * moved A -> B by pull.  (A's tick retries its push too, but it needs
 * B's lock, which B holds from Y's exit to its pull.)
 */
static void deadline_chain_pulled(struct ktest *t)
{
	/* Relative deadlines make the order of absolute ones H < Y < D,
	 * spawned as D, Y, H.  Budgets outlast host stalls: H must outrank
	 * D on A until the pull; D pays for O spinning as its proxy on A
	 * until H starts, then for O's 4 ms section. */
	const struct sched_attr dl = {
		.policy = SCHED_DEADLINE, .dl_runtime = 150 * MS,
		.dl_deadline = 200 * MS, .dl_period = 200 * MS };
	const struct sched_attr early = {
		.policy = SCHED_DEADLINE, .dl_runtime = 100 * MS,
		.dl_deadline = 120 * MS, .dl_period = 200 * MS };
	const struct sched_attr hog = {
		.policy = SCHED_DEADLINE, .dl_runtime = 100 * MS,
		.dl_deadline = 100 * MS, .dl_period = 200 * MS };
	struct thread_opts dopt = { .attr = &dl }, yo = { .attr = &early };
	struct thread_opts ho = { .attr = &hog };
	struct task *o, *d = NULL, *h = NULL, *y = NULL;
	unsigned long moves0;
	char d_why[16], o_why[16];
	uint64_t d_thr0 = 0, d_throttled;
	int c = ncpus - 3;

	if (ncpus < 3)
		KSKIP(t, "needs >= 3 CPUs");
	if (!trace_on())
		KSKIP(t, "the verdict reads the trace, which is off");
	if (!begin(t))
		return;
	if (sched_setaffinity(current(), 1ULL << c) != 0) {
		ktest_fail(t, __FILE__, __LINE__, "cannot move to cpu%d", c);
		px_end();
		return;
	}
	dopt.affinity = 1ULL << pp.a;	/* begin() chose A and B */
	yo.affinity = 1ULL << pp.b;
	ho.affinity = 1ULL << pp.a;
	pp.owner_must_be_on_b = true;
	pp.cs_ns = 4 * MS;
	pp.go = 1;
	o = px_spawn_on(t, "pull-owner", pp.a, owner_fn, NULL, 0);
	px_wait_flag(&pp.owner_holds);
	sched_setaffinity(o, (1ULL << pp.a) | (1ULL << pp.b));
	if (thread_spawn(&d, "pull-dl-waiter", waiter_fn, NULL, &dopt) == 0) {
		pp.d = d;
		px_wait_blocked(d);
		d_thr0 = READ_ONCE(d->dl.nr_throttled);
		if (thread_spawn(&y, "pull-dl-early", dl_leaver_fn, NULL, &yo) == 0) {
			px_wait_flag(&pp.y_started);
			/* D may go to B now, but Y is earlier there.  (Widened
			 * before Y ran, B once pulled the chain at once, before
			 * the case counted chain moves: x86_64, 8 CPUs.) */
			sched_setaffinity(d, (1ULL << pp.a) | (1ULL << pp.b));
			if (thread_spawn(&h, "pull-dl-hog", dl_hog_fn, NULL, &ho) == 0)
				while (!READ_ONCE(pp.h_start))
					sleep_ns(MS / 10);
		}
	}
	if (!d || !y || !h) {
		ktest_fail(t, __FILE__, __LINE__, "cannot spawn deadline tasks");
		pp.stop = 1;
		px_join(d);
		px_join(y);
		px_join(h);
		px_join(o);
		px_end();
		return;
	}
	moves0 = proxy_nr_chain_moves;
	pp.y_leave = 1;
	for (int i = 0; i < 4000 && !READ_ONCE(pp.d_done); i++)
		sleep_ns(MS / 2);
	/* Joined tasks are freed: read the trace first. */
	d_throttled = READ_ONCE(d->dl.nr_throttled) - d_thr0;
	traced_migrate(d, pp.a, pp.b, d_why, sizeof(d_why));
	traced_migrate(o, pp.a, pp.b, o_why, sizeof(o_why));
	pp.stop = 1;
	px_join(y);
	px_join(d);
	px_join(o);
	px_join(h);
	px_end();

	printk("# owner ran for the deadline waiter on cpu%d (A=%d B=%d); "
	       "chain moves +%lu; A -> B: waiter by %s, owner by %s; waiter "
	       "throttled %llu times\n",
	       pp.o_cpu, pp.a, pp.b, proxy_nr_chain_moves - moves0,
	       d_why[0] ? d_why : "-", o_why[0] ? o_why : "-",
	       (unsigned long long)d_throttled);
	KEXPECT(t, pp.cs_done);
	KEXPECT(t, pp.d_done);
	KEXPECT_EQ(t, pp.o_cpu, pp.b);
	KEXPECT(t, !pp.lost_donor);
	/*
	 * Until H runs, O runs for D on A (waiting to be on B), which D
	 * pays for.  A busy host's stalls there can use up D's budget:
	 * throttled, D is off A's queue when Y leaves, nothing to pull, and
	 * the chain moves by another way (A's push when D is replenished,
	 * even before Y leaves).  It still moved whole and was served
	 * (checked above), but this run says nothing about pull.  With D never
	 * throttled the pull must be what moved it.
	 */
	if (!t->failures && d_throttled && strcmp(d_why, "pull") != 0)
		KSKIP(t, "host stalls used up the waiter's budget before the "
		      "pull could move it");
	KEXPECT(t, proxy_nr_chain_moves > moves0);
	KEXPECT(t, strcmp(d_why, "pull") == 0);
	KEXPECT(t, strcmp(o_why, "pull") == 0);
}

/* ---- The current chain stays while others move ------------------------ */

static volatile int r_pulled;

/* R: FIFO 70, queued on A below the chain; counts if it ran elsewhere. */
static void r_fn(void *arg)
{
	(void)arg;
	if (smp_processor_id() != pp.a)
		__atomic_add_fetch(&r_pulled, 1, __ATOMIC_RELAXED);
}

/*
 * O runs for D on A: the current chain.  From B, RT tasks below D are
 * queued on A (each pinned there until it is queued, then free), so A is
 * overloaded and B, whenever it picks again, pulls: what it may pull is
 * R, never D or O.  The case thread runs on B so that nothing preempts
 * the chain on A (a preempted chain is not current and may move whole).
 */
static void current_chain_stays(struct ktest *t)
{
	struct task *o, *d;
	int rounds = 0;

	if (!begin(t))
		return;
	r_pulled = 0;
	if (sched_setaffinity(current(), 1ULL << pp.b) != 0) {
		ktest_fail(t, __FILE__, __LINE__, "cannot move to cpu%d", pp.b);
		px_end();
		return;
	}
	o = px_spawn_on(t, "push-owner", pp.a, owner_fn, NULL, 0);
	px_wait_flag(&pp.owner_holds);
	sched_setaffinity(o, ~0ULL);
	d = px_spawn_on(t, "push-waiter", pp.a, waiter_fn, NULL, 80);
	pp.d = d;
	px_wait_blocked(d);
	sched_setaffinity(d, ~0ULL);
	pp.go = 1;
	while (!READ_ONCE(pp.cs_done) && rounds < 200) {
		struct task *r = px_spawn_on(t, "push-r", pp.a, r_fn, NULL, 70);

		sched_setaffinity(r, ~0ULL);
		px_join(r);
		rounds++;
	}
	while (!READ_ONCE(pp.d_done))
		sleep_ns(MS);
	px_join(d);
	px_join(o);
	px_end();

	printk("# owner ran for the waiter on cpu%d; %d RT tasks queued beside "
	       "the chain, %d of them pulled away\n", pp.o_cpu, rounds, r_pulled);
	KEXPECT(t, pp.cs_done);
	KEXPECT_EQ(t, pp.o_cpu, pp.a);
	KEXPECT(t, !pp.lost_donor);
	KEXPECT(t, !pp.moved_in_cs);
	KEXPECT_EQ(t, pp.d_migr1, pp.d_migr0);
	KEXPECT_EQ(t, pp.o_migr1, pp.o_migr0);
	KEXPECT(t, rounds > 0);
	KEXPECT(t, r_pulled > 0);
}

/* ---- Only a chain's head moves it ------------------------------------ */

static struct mutex head_m1, head_m2;
static volatile int head_l_holds, head_stop;

/* L: fair, holds m2 until told, napping (so that a waiter less
 * important than M's chain still gets A to block). */
static void head_l_fn(void *arg)
{
	(void)arg;
	mutex_lock(&head_m2);
	head_l_holds = 1;
	while (!READ_ONCE(head_stop))
		sleep_ns(MS / 4);
	mutex_unlock(&head_m2);
}

/* M: FIFO 50, holds m1 and waits for m2. */
static void head_m_fn(void *arg)
{
	(void)arg;
	mutex_lock(&head_m1);
	mutex_lock(&head_m2);
	mutex_unlock(&head_m2);
	mutex_unlock(&head_m1);
}

/* H: waits for m1. */
static void head_h_fn(void *arg)
{
	(void)arg;
	mutex_lock(&head_m1);
	mutex_unlock(&head_m1);
}

/*
 * The chain H (FIFO @h_prio) -> m1 -> M (FIFO 50) -> m2 -> L (fair), all
 * pinned to A and queued there while the case thread (FIFO 99) spins on
 * A (L's nap ends meanwhile); then, under A's rq lock, what
 * proxy_chain_of() lets push/pull take starting at each of them.
 */
static void head_case(struct ktest *t, int h_prio)
{
	struct proxy_chain ch, cm, cl;
	struct task *l, *m, *h;
	bool ok_h, ok_m, ok_l;
	unsigned long flags;
	struct rq *rq;

	if (!begin(t))
		return;
	mutex_init(&head_m1, "head-m1");
	mutex_init(&head_m2, "head-m2");
	head_l_holds = head_stop = 0;
	l = px_spawn_on(t, "head-l", pp.a, head_l_fn, NULL, 0);
	px_wait_flag(&head_l_holds);
	m = px_spawn_on(t, "head-m", pp.a, head_m_fn, NULL, 50);
	px_wait_blocked(m);
	h = px_spawn_on(t, "head-h", pp.a, head_h_fn, NULL, h_prio);
	px_wait_blocked(h);
	/* Spin on A until L's nap (250 us) is over: H, M and L all queued.
	 * A wait, not a measurement: up to 2 s, because under two whole
	 * make tests at once a starved vCPU once took over 100 ms. */
	for (uint64_t end = clock_ns() + 2000 * MS;
	     !(READ_ONCE(l->on_rq) && READ_ONCE(m->on_rq) && READ_ONCE(h->on_rq));)
		if (clock_ns() > end) {
			ktest_fail(t, __FILE__, __LINE__, "the chain never "
				   "came back to A's queue");
			break;
		}
	rq = cpu_rq(pp.a);
	flags = arch_irq_save();
	spin_lock_raw(&rq->lock);
	ok_h = proxy_chain_of(rq, h, &ch);
	ok_m = proxy_chain_of(rq, m, &cm);
	ok_l = proxy_chain_of(rq, l, &cl);
	spin_unlock_raw(&rq->lock);
	arch_irq_restore(flags);
	head_stop = 1;
	px_join(h);
	px_join(m);
	px_join(l);
	px_end();

	printk("# H (FIFO %d): from H %s (%u), from M %s (%u), from L %s\n",
	       h_prio, ok_h ? "moves" : "stays", ok_h ? ch.n : 0,
	       ok_m ? "moves" : "stays", ok_m ? cm.n : 0, ok_l ? "moves" : "stays");
	KEXPECT(t, ok_h);
	if (ok_h) {
		KEXPECT_EQ(t, ch.n, 3u);
		KEXPECT(t, ch.task[0] == h && ch.task[1] == m && ch.task[2] == l);
		KEXPECT(t, !ch.lend);
	}
	KEXPECT(t, !ok_l);
	if (h_prio > 50) {
		KEXPECT(t, !ok_m);
	} else {
		KEXPECT(t, ok_m);
		if (ok_m)
			KEXPECT(t, cm.n == 2 && cm.task[0] == m && cm.task[1] == l);
	}
}

static void only_head_moves_chain(struct ktest *t)
{
	head_case(t, 80);	/* H more important than M: M stays */
	head_case(t, 30);	/* H less important: M's own chain may move */
}

static struct ktest_case proxy_push_cases[] = {
	KTEST_CASE(whole_chain_pushed),
	KTEST_CASE(pinned_owner_chain_stays),
	KTEST_CASE(deadline_chain_pushed),
	KTEST_CASE(deadline_chain_pulled),
	KTEST_CASE(current_chain_stays),
	KTEST_CASE(only_head_moves_chain),
	{0}
};
KTEST_SUITE(proxy_push, proxy_push_cases);
