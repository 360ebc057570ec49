/*
 * mutex_order.c - which waiter gets a contended mutex, per locking mode
 * (kernel/locking/mutex.c, mutex_pi.c; docs/locking.md, Waiter order).
 *
 * inherit (classic priority inheritance, after Linux's rt_mutex): the
 * unlock gives the lock to the most important waiter, by effective
 * scheduling context: earliest deadline, then highest RT priority, then
 * arrival (fair waiters are equal among themselves).  When that waiter
 * is RT or deadline the lock is handed to it and nobody arriving after
 * the unlock, spinner or more important task, takes it first; fair
 * waiters only get what none gives.  ww_mutex waiters with a context
 * keep their stamp order, and the waiter the lock goes to inherits at
 * once from those left behind.  none: arrival order, and a released lock
 * goes to whoever takes it first (spinners included).  Each case runs in
 * the mode it names, switched like tests/proxy.c does and restored
 * afterwards.
 *
 * The tasks of a case are pinned; the case thread is FIFO 99 while it
 * sets up and sleeps while it waits, so lower priorities run.  Every
 * step waits for an observable state (a waiter blocked on the mutex and
 * off its CPU, the unlock returned), never for a fixed time; verdicts are
 * the order of acquisitions and whether a hog had finished its work
 * (counted so that a host stall adds none, see hog_work), which a
 * stalled host cannot change.
 */
#include "proxy_helpers.h"
#include "cpu.h"
#include "sched.h"
#include "mutex.h"
#include "ww_mutex.h"
#include "timer.h"
#include "arch.h"
#include "string.h"

#define ORD_MAX 4		/* waiters in a case */

static const struct sched_attr fair0 = { .policy = SCHED_NORMAL };

static int test_cpu(void)
{
	return ncpus - 1;
}

static struct task *spawn_on(struct ktest *t, const char *name, int cpu,
			     void (*fn)(void *), void *arg,
			     const struct sched_attr *a)
{
	struct thread_opts o = { .attr = a, .affinity = 1ULL << cpu };
	struct task *p = NULL;
	int err = thread_spawn(&p, name, fn, arg, &o);

	if (err)
		ktest_fail(t, __FILE__, __LINE__, "thread_spawn %s: %d", name, err);
	return p;
}

/* ---- Busy CPUs ------------------------------------------------------- */

/* FIFO 20 hogs on every online CPU outside @used, until busy_stop(). */
static struct busy {
	struct task *hog[64];
	volatile int stop;
} busy;

static void busy_hog(void *arg)
{
	(void)arg;
	while (!READ_ONCE(busy.stop))
		arch_cpu_relax();
}

static void busy_start(struct ktest *t, uint64_t used)
{
	struct sched_attr a = { .policy = SCHED_FIFO, .rt_priority = 20 };

	busy.stop = 0;
	for (int c = 0; c < ncpus && c < 64; c++) {
		busy.hog[c] = NULL;
		if (cpu_by_id(c)->online && !((used >> c) & 1))
			busy.hog[c] = spawn_on(t, "ord-busy", c, busy_hog, NULL, &a);
	}
}

static void busy_end(void)
{
	busy.stop = 1;
	for (int c = 0; c < ncpus && c < 64; c++)
		px_join(busy.hog[c]);
}

/* ---- Waiters arriving one by one ------------------------------------- */

struct waiter_spec {
	const char *name;
	struct sched_attr attr;
};

static struct order {
	struct mutex m;
	volatile int owner_holds, release;
	struct task *owner_donor_after;	/* pi_donor after its unlock */
	struct task *w[ORD_MAX];
	int got[ORD_MAX];		/* waiter indexes, in acquisition order */
	int ngot;
} od;

/* Fair: holds m until told, sleeping (a boost makes no difference to
 * when it lets go), then unlocks. */
static void order_owner(void *arg)
{
	(void)arg;
	mutex_lock(&od.m);
	od.owner_holds = 1;
	px_wait_flag(&od.release);
	mutex_unlock(&od.m);
	od.owner_donor_after = READ_ONCE(current()->pi_donor);
}

static void order_waiter(void *arg)
{
	mutex_lock(&od.m);
	od.got[__atomic_fetch_add(&od.ngot, 1, __ATOMIC_SEQ_CST)] = (int)(long)arg;
	mutex_unlock(&od.m);
}

#define ORD_BUSY	0x1	/* FIFO 20 hogs on the CPUs the case leaves free */
#define ORD_SPREAD	0x2	/* waiter i on CPU test-1-i, not the test CPU */
#define ORD_BY_DL	0x4	/* want: by absolute deadline, read at unlock */

/* @want for deadline waiters: by the absolute deadlines they wait with
 * (they do not change while the waiters sleep), ties in arrival order. */
static void want_by_deadline(int n, int *want)
{
	for (int i = 0; i < n; i++)
		want[i] = i;
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0; j--) {
			int a = want[j - 1], b = want[j];

			if ((int64_t)(od.w[b]->dl.deadline -
				      od.w[a]->dl.deadline) >= 0)
				break;
			want[j - 1] = b;
			want[j] = a;
		}
}

/*
 * A fair owner on the test CPU holds m; the waiters of @ws arrive in
 * their order, each blocked on m (and off its CPU) before the next is
 * spawned; then the owner unlocks.  The waiters must get m in the order
 * @want (indexes into @ws).
 */
static void run_order(struct ktest *t, enum locking_mode mode,
		      const struct waiter_spec *ws, int n, const int *want,
		      int flags)
{
	uint64_t used = 1ULL << test_cpu();
	int by_dl[ORD_MAX];
	struct task *o;

	if ((flags & ORD_SPREAD) && online_cpus() < n + 1)
		KSKIP(t, "needs a CPU per waiter and one for the owner");
	if ((flags & ORD_BUSY) && online_cpus() < 2)
		KSKIP(t, "needs >= 2 CPUs");
	if (!px_begin_mode(t, test_cpu(), mode))
		return;
	memset(&od, 0, sizeof(od));
	mutex_init(&od.m, "order-m");
	for (int i = 0; (flags & ORD_SPREAD) && i < n; i++)
		used |= 1ULL << (test_cpu() - 1 - i);
	if (flags & ORD_BUSY)
		busy_start(t, used);
	o = spawn_on(t, "ord-owner", test_cpu(), order_owner, NULL, &fair0);
	px_wait_flag(&od.owner_holds);
	for (int i = 0; i < n; i++) {
		int cpu = flags & ORD_SPREAD ? test_cpu() - 1 - i : test_cpu();

		od.w[i] = spawn_on(t, ws[i].name, cpu, order_waiter,
				   (void *)(long)i, &ws[i].attr);
		if (od.w[i])
			px_wait_blocked(od.w[i]);
	}
	if (flags & ORD_BY_DL) {
		want_by_deadline(n, by_dl);
		if (by_dl[0] == 0)
			printk("# the host stalled between the arrivals: the "
			       "first waiter has the earlier deadline\n");
		want = by_dl;
	}
	od.release = 1;
	for (int i = 0; i < n; i++)
		px_join(od.w[i]);
	px_join(o);
	if (flags & ORD_BUSY)
		busy_end();
	px_end();

	printk("# %s: got the lock:", locking_mode_name(mode));
	for (int i = 0; i < od.ngot; i++)
		printk(" %s", ws[od.got[i]].name);
	printk("\n");
	KASSERT_EQ(t, od.ngot, n);
	for (int i = 0; i < n; i++)
		KEXPECT_EQ(t, od.got[i], want[i]);
	/* The old owner kept nothing it had inherited. */
	KEXPECT(t, od.owner_donor_after == NULL);
}

/* ---- A more important waiter arriving second ------------------------ */

static const struct waiter_spec rt_low_high[] = {
	{ "ord-low", { .policy = SCHED_FIFO, .rt_priority = 10 } },
	{ "ord-high", { .policy = SCHED_FIFO, .rt_priority = 50 } },
};

/* An RT waiter first, then a deadline one (deadline ranks before RT). */
static const struct waiter_spec rt_then_dl[] = {
	{ "ord-rt", { .policy = SCHED_FIFO, .rt_priority = 50 } },
	{ "ord-dl", { .policy = SCHED_DEADLINE, .dl_runtime = 5 * MS,
		      .dl_deadline = 50 * MS, .dl_period = 50 * MS } },
};

static const int second_first[] = { 1, 0 };
static const int arrival2[] = { 0, 1 };

/* One CPU: the owner, the low waiter, then the high one, all pinned to
 * the test CPU; the other CPUs are idle. */
static void inherit_rt_high_second_first_one_cpu(struct ktest *t)
{
	run_order(t, LOCKING_INHERIT, rt_low_high, 2, second_first, 0);
}

static void none_rt_arrival_order_one_cpu(struct ktest *t)
{
	run_order(t, LOCKING_NONE, rt_low_high, 2, arrival2, 0);
}

static void inherit_dl_second_before_rt_one_cpu(struct ktest *t)
{
	run_order(t, LOCKING_INHERIT, rt_then_dl, 2, second_first, 0);
}

static void none_dl_second_after_rt_one_cpu(struct ktest *t)
{
	run_order(t, LOCKING_NONE, rt_then_dl, 2, arrival2, 0);
}

/* The same, pinned to one CPU while every other CPU runs an RT hog. */
static void inherit_rt_high_second_first_pinned_busy(struct ktest *t)
{
	run_order(t, LOCKING_INHERIT, rt_low_high, 2, second_first, ORD_BUSY);
}

static void none_rt_arrival_order_pinned_busy(struct ktest *t)
{
	run_order(t, LOCKING_NONE, rt_low_high, 2, arrival2, ORD_BUSY);
}

static void inherit_dl_second_before_rt_pinned_busy(struct ktest *t)
{
	run_order(t, LOCKING_INHERIT, rt_then_dl, 2, second_first, ORD_BUSY);
}

/* Owner and waiters each on a CPU of their own, the rest busy. */
static void inherit_rt_high_second_first_cross_cpu(struct ktest *t)
{
	run_order(t, LOCKING_INHERIT, rt_low_high, 2, second_first,
		  ORD_SPREAD | ORD_BUSY);
}

static void none_rt_arrival_order_cross_cpu(struct ktest *t)
{
	run_order(t, LOCKING_NONE, rt_low_high, 2, arrival2,
		  ORD_SPREAD | ORD_BUSY);
}

/*
 * Two deadline waiters: a relative deadline of 1 s arrives first, one of
 * 20 ms second.  The earlier absolute deadline goes first: the second
 * waiter's, unless the host stalled the case for most of a second
 * between the two arrivals (then the order asked for is the arrival
 * order, and the case is printed as such).
 */
static const struct waiter_spec dl_late_early[] = {
	{ "ord-dl-late", { .policy = SCHED_DEADLINE, .dl_runtime = 5 * MS,
			   .dl_deadline = 1000 * MS, .dl_period = 1000 * MS } },
	{ "ord-dl-early", { .policy = SCHED_DEADLINE, .dl_runtime = 5 * MS,
			    .dl_deadline = 20 * MS, .dl_period = 20 * MS } },
};

static void inherit_dl_earlier_deadline_first(struct ktest *t)
{
	run_order(t, LOCKING_INHERIT, dl_late_early, 2, NULL, ORD_BY_DL);
}

/* ---- Equal waiters keep their arrival order -------------------------- */

static const struct waiter_spec rt_equal_and_high[] = {
	{ "ord-rt30-a", { .policy = SCHED_FIFO, .rt_priority = 30 } },
	{ "ord-rt30-b", { .policy = SCHED_FIFO, .rt_priority = 30 } },
	{ "ord-rt60", { .policy = SCHED_FIFO, .rt_priority = 60 } },
	{ "ord-rt30-c", { .policy = SCHED_FIFO, .rt_priority = 30 } },
};

/* Fair waiters are equal whatever their nice. */
static const struct waiter_spec fair_three[] = {
	{ "ord-nice0", { .policy = SCHED_NORMAL, .nice = 0 } },
	{ "ord-nice-10", { .policy = SCHED_NORMAL, .nice = -10 } },
	{ "ord-nice10", { .policy = SCHED_NORMAL, .nice = 10 } },
};

static const int high_then_fifo[] = { 2, 0, 1, 3 };
static const int arrival4[] = { 0, 1, 2, 3 };

static void inherit_equal_rt_waiters_fifo(struct ktest *t)
{
	run_order(t, LOCKING_INHERIT, rt_equal_and_high, 4, high_then_fifo, 0);
}

static void none_rt_waiters_arrival_order(struct ktest *t)
{
	run_order(t, LOCKING_NONE, rt_equal_and_high, 4, arrival4, 0);
}

static void inherit_fair_waiters_fifo(struct ktest *t)
{
	run_order(t, LOCKING_INHERIT, fair_three, 3, arrival4, 0);
}

static void inherit_equal_rt_waiters_fifo_cross_cpu(struct ktest *t)
{
	static const struct waiter_spec equal3[] = {
		{ "ord-rt30-a", { .policy = SCHED_FIFO, .rt_priority = 30 } },
		{ "ord-rt30-b", { .policy = SCHED_FIFO, .rt_priority = 30 } },
		{ "ord-rt30-c", { .policy = SCHED_FIFO, .rt_priority = 30 } },
	};

	run_order(t, LOCKING_INHERIT, equal3, 3, arrival4, ORD_SPREAD);
}

/* ---- A waiter boosted while it waits --------------------------------- */

static struct boosted {
	struct mutex m2;		/* held by the boosted waiter */
	volatile int holds_m2;
	int prio_waiting;		/* its task->prio before the unlock */
} bo;

/* FIFO 10: takes m2, then waits for m like order_waiter. */
static void boosted_waiter(void *arg)
{
	mutex_lock(&bo.m2);
	bo.holds_m2 = 1;
	order_waiter(arg);
	mutex_unlock(&bo.m2);
}

static void m2_waiter(void *arg)
{
	(void)arg;
	mutex_lock(&bo.m2);
	mutex_unlock(&bo.m2);
}

/*
 * One CPU.  B (FIFO 50) waits for m; A (FIFO 10, holding m2) waits for
 * m after it; then X (FIFO 80) waits for m2, so A, still waiting, now
 * runs with X's FIFO 80.  inherit: the unlock ranks A by that inherited
 * context, so A gets m before B (a list sorted when A arrived would have
 * put it behind B); none: B, which came first.
 */
static void run_boosted(struct ktest *t, enum locking_mode mode)
{
	static const struct sched_attr f10 = { .policy = SCHED_FIFO,
					       .rt_priority = 10 };
	static const struct sched_attr f50 = { .policy = SCHED_FIFO,
					       .rt_priority = 50 };
	static const struct sched_attr f80 = { .policy = SCHED_FIFO,
					       .rt_priority = 80 };
	int cpu = test_cpu();
	struct task *o, *x;

	if (!px_begin_mode(t, test_cpu(), mode))
		return;
	memset(&od, 0, sizeof(od));
	memset(&bo, 0, sizeof(bo));
	mutex_init(&od.m, "order-m");
	mutex_init(&bo.m2, "order-m2");
	o = spawn_on(t, "ord-owner", cpu, order_owner, NULL, &fair0);
	px_wait_flag(&od.owner_holds);
	od.w[0] = spawn_on(t, "ord-b50", cpu, order_waiter, (void *)0L, &f50);
	if (od.w[0])
		px_wait_blocked(od.w[0]);
	od.w[1] = spawn_on(t, "ord-a10", cpu, boosted_waiter, (void *)1L, &f10);
	if (od.w[1])
		px_wait_blocked(od.w[1]);
	x = spawn_on(t, "ord-x80", cpu, m2_waiter, NULL, &f80);
	if (x)
		px_wait_blocked(x);
	bo.prio_waiting = od.w[1] ? READ_ONCE(od.w[1]->prio) : 0;
	od.release = 1;
	px_join(od.w[0]);
	px_join(od.w[1]);
	px_join(x);
	px_join(o);
	px_end();

	printk("# %s: A waited at prio %d; m went to %s first\n",
	       locking_mode_name(mode), bo.prio_waiting,
	       od.ngot && od.got[0] == 1 ? "A" : "B");
	KASSERT_EQ(t, od.ngot, 2);
	KEXPECT_EQ(t, bo.holds_m2, 1);
	if (mode == LOCKING_INHERIT) {
		KEXPECT_EQ(t, bo.prio_waiting, MAX_RT_PRIO - 1 - 80);
		KEXPECT_EQ(t, od.got[0], 1);
	} else {
		KEXPECT_EQ(t, od.got[0], 0);
	}
}

static void inherit_waiter_boosted_while_waiting_first(struct ktest *t)
{
	run_boosted(t, LOCKING_INHERIT);
}

static void none_waiter_boosted_while_waiting_in_turn(struct ktest *t)
{
	run_boosted(t, LOCKING_NONE);
}

/* ---- Nobody arriving after the unlock takes it from the chosen one --- */

#define STEAL_POLLS 20000	/* trylocks of the spinner */
#define HOG_WORK (2000 * MS)	/* a hog's work if nothing stops it */

static struct steal {
	struct mutex m;
	volatile int owner_holds, release, owner_unlocked;
	volatile int hog_running, hog_stop, hog_done;
	unsigned long word_after_unlock;
	volatile int polled, poller_got;
	struct task *waiter, *late;
	struct task *got[2];
	int ngot;
	int hog_done_at[2];		/* hog_done when each got the lock */
} st;

static void steal_owner(void *arg)
{
	(void)arg;
	mutex_lock(&st.m);
	st.owner_holds = 1;
	px_wait_flag(&st.release);
	preempt_disable();	/* the word as the unlock left it */
	mutex_unlock(&st.m);
	st.word_after_unlock = READ_ONCE(st.m.owner);
	preempt_enable();
	st.owner_unlocked = 1;
}

static void steal_waiter(void *arg)
{
	int i;

	(void)arg;
	mutex_lock(&st.m);
	i = __atomic_fetch_add(&st.ngot, 1, __ATOMIC_SEQ_CST);
	st.got[i] = current();
	st.hog_done_at[i] = st.hog_done;
	mutex_unlock(&st.m);
}

/*
 * Spin until *@stop is set or @ns of work is done.  Work counts only the
 * stretches shorter than 0.1 ms between two looks at the clock: a host
 * stalling the vCPU, or a preemption, is one long stretch and counts for
 * nothing, so a stall elsewhere cannot make the hog finish early.  But
 * at most HOG_WALL_FACTOR times @ns of guest time: on a host that stops
 * the vCPU every few looks, hardly any stretch counted, and a hog that
 * a FIFO 10 task waited behind to exit held its CPU until the boot's
 * timeout (x86_64, 4 CPUs, inherit_ww_stamp_order_heir_inherits).
 */
#define HOG_WALL_FACTOR 10

static void hog_work(uint64_t ns, volatile int *stop)
{
	uint64_t done = 0, last = clock_ns(), give_up = last + HOG_WALL_FACTOR * ns;

	while (done < ns && !(stop && READ_ONCE(*stop)) && last < give_up) {
		uint64_t now = clock_ns();

		if (now - last < 100 * NSEC_PER_USEC)
			done += now - last;
		last = now;
		arch_cpu_relax();
	}
}

/* Above the waiter on its CPU: keeps it from running once woken, until
 * told to stop or its work is done. */
static void steal_hog(void *arg)
{
	(void)arg;
	st.hog_running = 1;
	hog_work(HOG_WORK, &st.hog_stop);
	st.hog_done = 1;
}

/* A task arriving after the unlock that polls mutex_trylock, the most
 * eager spinner there is. */
static void steal_poller(void *arg)
{
	(void)arg;
	for (int i = 0; i < STEAL_POLLS; i++, st.polled++) {
		if (mutex_trylock(&st.m)) {
			st.poller_got = 1;
			mutex_unlock(&st.m);
			break;
		}
		arch_cpu_relax();
	}
}

/* By pointer only: the tasks have exited. */
static const char *steal_name(struct task *p)
{
	return p == st.waiter ? "steal-w" : p == st.late ? "steal-late" : "?";
}

/*
 * The owner (fair, test CPU) holds m; W (FIFO 50, or fair with @w_fair)
 * waits on another CPU, where a FIFO 60 hog then keeps it from running.
 * The owner unlocks, then a spinner polls trylock from a third CPU, then
 * L (FIFO 70, more important than W) arrives there and locks.
 *
 * inherit, W RT: the unlock hands m to W (W | PICKUP); the spinner never
 * gets it; L does not steal it either (no steal rule, kernel/locking/
 * mutex.c unlock_choose) but lends W its priority, so W runs past the
 * hog, and L gets m after W, with the hog still running.  none, and
 * inherit with only a fair waiter: the unlock releases m, the spinner
 * takes it at once, L takes it free, and W gets it when the hog is done.
 */
static void run_steal(struct ktest *t, enum locking_mode mode, bool w_fair)
{
	struct sched_attr w50 = { .policy = SCHED_FIFO, .rt_priority = 50 };
	struct sched_attr h60 = { .policy = SCHED_FIFO, .rt_priority = 60 };
	struct sched_attr p40 = { .policy = SCHED_FIFO, .rt_priority = 40 };
	struct sched_attr l70 = { .policy = SCHED_FIFO, .rt_priority = 70 };
	int wcpu = test_cpu() - 1, scpu = test_cpu() - 2;
	struct task *o, *hog, *poller;
	bool handed = mode == LOCKING_INHERIT && !w_fair;

	if (online_cpus() < 3)
		KSKIP(t, "needs >= 3 CPUs");
	if (!px_begin_mode(t, test_cpu(), mode))
		return;
	memset(&st, 0, sizeof(st));
	mutex_init(&st.m, "steal-m");
	o = spawn_on(t, "steal-owner", test_cpu(), steal_owner, NULL, &fair0);
	px_wait_flag(&st.owner_holds);
	st.waiter = spawn_on(t, "steal-w", wcpu, steal_waiter, NULL,
			     w_fair ? &fair0 : &w50);
	if (st.waiter)
		px_wait_blocked(st.waiter);
	hog = spawn_on(t, "steal-hog", wcpu, steal_hog, NULL, &h60);
	px_wait_flag(&st.hog_running);
	st.release = 1;
	px_wait_flag(&st.owner_unlocked);
	poller = spawn_on(t, "steal-spin", scpu, steal_poller, NULL, &p40);
	px_join(poller);
	st.late = spawn_on(t, "steal-late", scpu, steal_waiter, NULL, &l70);
	px_join(st.late);
	st.hog_stop = 1;
	px_join(hog);
	px_join(st.waiter);
	px_join(o);
	px_end();

	printk("# %s: word after the unlock %s%s; the spinner %s in %d "
	       "polls; then %s, %s\n", locking_mode_name(mode),
	       (st.word_after_unlock & ~MUTEX_FLAGS) ==
	       (unsigned long)st.waiter ? "steal-w" : "no owner",
	       st.word_after_unlock & MUTEX_FLAG_PICKUP ? " | PICKUP" : "",
	       st.poller_got ? "took it" : "never took it", st.polled,
	       steal_name(st.got[0]), steal_name(st.got[1]));
	KASSERT_EQ(t, st.ngot, 2);
	if (handed) {
		KEXPECT_EQ(t, st.word_after_unlock, (unsigned long)st.waiter |
			   MUTEX_FLAG_PICKUP | MUTEX_FLAG_WAITERS);
		KEXPECT_EQ(t, st.poller_got, 0);
		KEXPECT_EQ(t, st.polled, STEAL_POLLS);
		KEXPECT(t, st.got[0] == st.waiter && st.got[1] == st.late);
		KEXPECT_EQ(t, st.hog_done_at[1], 0);	/* W ran boosted */
	} else {
		KEXPECT_EQ(t, st.word_after_unlock & ~MUTEX_FLAGS, 0);
		KEXPECT_EQ(t, st.poller_got, 1);
		KEXPECT(t, st.got[0] == st.late && st.got[1] == st.waiter);
	}
}

static void inherit_spinner_cannot_take_from_head(struct ktest *t)
{
	run_steal(t, LOCKING_INHERIT, false);
}

/* Fair waiters are equal and lend nothing: inherit releases the lock
 * for them, as none does (a lateral steal, see unlock_choose). */
static void inherit_spinner_takes_from_fair_head(struct ktest *t)
{
	run_steal(t, LOCKING_INHERIT, true);
}

static void none_spinner_takes_released_lock(struct ktest *t)
{
	run_steal(t, LOCKING_NONE, false);
}

/* ---- ww_mutex waiters keep their stamp order ------------------------- */

static DEFINE_WW_CLASS(order_ww_class);

static struct wwo {
	struct ww_mutex m;
	volatile int owner_holds, release;
	volatile int old_ready, old_go, hog_running, hog_done;
	struct task *old, *young;
	struct task *got[2];
	int ngot;
	struct task *old_donor;		/* old's pi_donor once it has m */
	int hog_done_at_young;
} wo;

static void wwo_owner(void *arg)
{
	(void)arg;
	ww_mutex_lock(&wo.m, NULL);
	wo.owner_holds = 1;
	px_wait_flag(&wo.release);
	ww_mutex_unlock(&wo.m);
}

static void wwo_got(void)
{
	wo.got[__atomic_fetch_add(&wo.ngot, 1, __ATOMIC_SEQ_CST)] = current();
}

/* FIFO 10: opens its context first (the older stamp), locks when told. */
static void wwo_old(void *arg)
{
	struct ww_acquire_ctx ctx;

	(void)arg;
	ww_acquire_init(&ctx, &order_ww_class);
	wo.old_ready = 1;
	px_wait_flag(&wo.old_go);
	if (ww_mutex_lock(&wo.m, &ctx) == 0) {
		wo.old_donor = READ_ONCE(current()->pi_donor);
		wwo_got();
		ww_mutex_unlock(&wo.m);
	}
	ww_acquire_fini(&ctx);
}

/* FIFO 90, the younger context. */
static void wwo_young(void *arg)
{
	struct ww_acquire_ctx ctx;

	(void)arg;
	ww_acquire_init(&ctx, &order_ww_class);
	if (ww_mutex_lock(&wo.m, &ctx) == 0) {
		wo.hog_done_at_young = wo.hog_done;
		wwo_got();
		ww_mutex_unlock(&wo.m);
	}
	ww_acquire_fini(&ctx);
}

static void wwo_hog(void *arg)
{
	(void)arg;
	wo.hog_running = 1;
	hog_work(HOG_WORK, NULL);
	wo.hog_done = 1;
}

/*
 * inherit, one CPU: the owner (fair) holds a ww_mutex; the young context
 * (FIFO 90) waits first, then the old one (FIFO 10, older stamp) is
 * queued ahead of it, by stamp; a FIFO 50 hog is runnable.  The unlock
 * hands the lock to the old context (stamp order beats priority and
 * arrival), which at once inherits FIFO 90 from the young waiter: it
 * runs before the hog and the young task gets the lock while the hog
 * has not finished.  (The old one is RT so that RT throttling, which
 * would let a fair one past the hog after 950 ms, cannot hide a missing
 * boost.)
 */
static void inherit_ww_stamp_order_heir_inherits(struct ktest *t)
{
	struct sched_attr f10 = { .policy = SCHED_FIFO, .rt_priority = 10 };
	struct sched_attr f90 = { .policy = SCHED_FIFO, .rt_priority = 90 };
	struct sched_attr f50 = { .policy = SCHED_FIFO, .rt_priority = 50 };
	struct task *o, *hog;

	if (!px_begin_mode(t, test_cpu(), LOCKING_INHERIT))
		return;
	memset(&wo, 0, sizeof(wo));
	ww_mutex_init(&wo.m, &order_ww_class, "order-ww");
	o = spawn_on(t, "wwo-owner", test_cpu(), wwo_owner, NULL, &fair0);
	px_wait_flag(&wo.owner_holds);
	wo.old = spawn_on(t, "wwo-old", test_cpu(), wwo_old, NULL, &f10);
	px_wait_flag(&wo.old_ready);
	wo.young = spawn_on(t, "wwo-young", test_cpu(), wwo_young, NULL, &f90);
	if (wo.young)
		px_wait_blocked(wo.young);
	wo.old_go = 1;
	if (wo.old)
		px_wait_blocked(wo.old);
	hog = spawn_on(t, "wwo-hog", test_cpu(), wwo_hog, NULL, &f50);
	px_wait_flag(&wo.hog_running);
	wo.release = 1;
	px_join(wo.young);
	px_join(wo.old);
	px_join(hog);
	px_join(o);
	px_end();

	KASSERT_EQ(t, wo.ngot, 2);
	KEXPECT(t, wo.got[0] == wo.old && wo.got[1] == wo.young);
	KEXPECT(t, wo.old_donor == wo.young);
	KEXPECT_EQ(t, wo.hog_done_at_young, 0);
}

static struct ktest_case mutex_order_cases[] = {
	KTEST_CASE(inherit_rt_high_second_first_one_cpu),
	KTEST_CASE(none_rt_arrival_order_one_cpu),
	KTEST_CASE(inherit_dl_second_before_rt_one_cpu),
	KTEST_CASE(none_dl_second_after_rt_one_cpu),
	KTEST_CASE(inherit_dl_earlier_deadline_first),
	KTEST_CASE(inherit_rt_high_second_first_pinned_busy),
	KTEST_CASE(none_rt_arrival_order_pinned_busy),
	KTEST_CASE(inherit_dl_second_before_rt_pinned_busy),
	KTEST_CASE(inherit_rt_high_second_first_cross_cpu),
	KTEST_CASE(none_rt_arrival_order_cross_cpu),
	KTEST_CASE(inherit_equal_rt_waiters_fifo),
	KTEST_CASE(none_rt_waiters_arrival_order),
	KTEST_CASE(inherit_fair_waiters_fifo),
	KTEST_CASE(inherit_equal_rt_waiters_fifo_cross_cpu),
	KTEST_CASE(inherit_waiter_boosted_while_waiting_first),
	KTEST_CASE(none_waiter_boosted_while_waiting_in_turn),
	KTEST_CASE_TIMEOUT(inherit_spinner_cannot_take_from_head, 60000),
	KTEST_CASE_TIMEOUT(inherit_spinner_takes_from_fair_head, 60000),
	KTEST_CASE_TIMEOUT(none_spinner_takes_released_lock, 60000),
	KTEST_CASE_TIMEOUT(inherit_ww_stamp_order_heir_inherits, 60000),
	{ 0 },
};
KTEST_SUITE(mutex_order, mutex_order_cases);
