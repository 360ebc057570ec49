/*
 * bench_proxy.c - benchmarks of proxy execution and the locking modes.
 *
 *   proxy_hop        cost of one hop of the chain walk in the pick path
 *                    (find_proxy_task): walks of 1 and 65 hops over fake
 *                    blocked tasks on a private runqueue, (w65 - w1) / 64.
 *   inversion_bound  worst-case wait of a high-priority task for a mutex a
 *                    low-priority task holds (100 us critical section)
 *                    while a medium hog wants the CPU, over ROUNDS_INV
 *                    rounds, in each locking mode: proxy / inherit / none.
 *
 *   inversion_xcpu   the same with the high task on one CPU and the low
 *                    owner and the hog on another, all three modes.
 *   proxy_xcpu_latency  proxy: from a waiter's mutex_lock() on CPU A to
 *                    its owner, queued on CPU B, first running with the
 *                    waiter's context (current_donor()).
 *
 * Figures in arch_cycles() units (instructions under qemu -icount
 * shift=0) for proxy_hop; nanoseconds of (virtual) time for the waits.
 */
#include "bench.h"
#include "cpu.h"
#include "mm.h"
#include "mutex.h"
#include "sched.h"
#include "timer.h"
#include "arch.h"
#include "string.h"
#include <printf.h>
#include <stddef.h>
#include "../kernel/sched/testing.h"

/* ---- proxy_hop ------------------------------------------------------- */

#define HOPS_LONG 65
#define HOP_ROUNDS 7
#define HOP_REPS 200

/*
 * Fake tasks t[0..n-1] on a private rq: t[i] waits for m[i], owned by
 * t[i+1]; t[n-1] runs.  Only the fields the walk reads are set.
 */
struct fake_chain {
	struct rq rq;
	struct task t[HOPS_LONG + 1];
	struct mutex m[HOPS_LONG];
};

static void build_chain(struct fake_chain *fc, int n)
{
	memset(fc, 0, sizeof(*fc));
	fc->rq.cpu = this_cpu();
	fc->rq.nr_running = n + 1;
	for (int i = 0; i <= n; i++) {
		struct task *p = &fc->t[i];

		strlcpy(p->name, "hop", sizeof(p->name));
		spin_init(&p->blocked_lock, "blocked_lock");
		list_init(&p->blocked_head);
		list_init(&p->blocked_node);
		p->on_rq = 1;
		p->cpu = this_cpu()->id;
		p->state = i < n ? TASK_SLEEPING : TASK_RUNNING;
	}
	for (int i = 0; i < n; i++) {
		mutex_init(&fc->m[i], "hop-m");
		fc->m[i].owner = (unsigned long)&fc->t[i + 1];
		fc->t[i].blocked_on = &fc->m[i];
	}
}

/* Cycles for one walk of @n hops (median). */
static uint64_t walk_cost(struct fake_chain *fc, int n)
{
	uint64_t v[HOP_ROUNDS];

	build_chain(fc, n);
	for (int r = 0; r < HOP_ROUNDS; r++) {
		unsigned long flags = arch_irq_save();
		uint64_t t0 = arch_cycles();

		for (int k = 0; k < HOP_REPS; k++)
			if (find_proxy_task(&fc->rq, &fc->t[0]) != &fc->t[n])
				panic("bench proxy_hop: walk of %d hops went wrong", n);
		v[r] = (arch_cycles() - t0) / HOP_REPS;
		arch_irq_restore(flags);
	}
	return bench_median(v, HOP_ROUNDS);
}

static void bench_proxy_hop(void)
{
	struct fake_chain *fc = kmalloc(sizeof(*fc));
	enum locking_mode saved = locking_mode;
	uint64_t w1, wn;
	char detail[96];

	if (!fc) {
		printk("# bench proxy_hop: SKIP out of memory\n");
		return;
	}
	locking_mode = LOCKING_PROXY;	/* no task blocks here: safe */
	w1 = walk_cost(fc, 1);
	wn = walk_cost(fc, HOPS_LONG);
	locking_mode = saved;
	snprintf(detail, sizeof(detail), "walk of 1 hop %llu, of %d hops %llu",
		 (unsigned long long)w1, HOPS_LONG, (unsigned long long)wn);
	bench_report("proxy_hop", (wn - w1) / (HOPS_LONG - 1), NULL, detail);
	kfree(fc);
}
BENCH(proxy_hop, "cost of one hop of the proxy chain walk", bench_proxy_hop);

/* ---- inversion_bound -------------------------------------------------- */

#define ROUNDS_INV 1000
#define INV_CS (100 * NSEC_PER_USEC)
#define INV_HOG (500 * NSEC_PER_USEC)

/*
 * Three workers pinned to this CPU live for all rounds of one mode (a
 * thread per round would cost more than the round): low (FIFO 10), hog
 * (FIFO 50) and high (FIFO 90).  Round r: we release low, which takes m;
 * then hog and high (across CPUs, high once the hog runs), and high
 * blocks on m.  Each worker sleeps between
 * rounds (wait_round) and reports done[] when its part is over.  All
 * waiting is sleep + wake_up, never a timed poll: under -icount an idle
 * CPU waiting for a timer costs host time out of proportion.
 */
static struct {
	struct mutex m;
	volatile int round;		/* released round, all workers */
	volatile int low_holds;		/* round in which low holds m */
	volatile int go;		/* round in which the hog starts */
	volatile int hog_on;		/* round in which the hog runs (xcpu) */
	volatile int high_go;		/* round in which high starts */
	volatile int done[3];		/* last round each worker finished */
	struct task *main;		/* the bench thread: woken on progress */
	bool xcpu;			/* high on another CPU: hog halts */
	uint64_t wait;
	int rounds;
} ib;

/* Busy until @end, with plain instructions: under TCG a pause
 * (arch_cpu_relax) or a clock read leaves the translated code, and a
 * loop of them made this bench cost minutes of host time.  So the clock
 * is read every 200 turns of the loop (about 1 us), and near the end
 * every 1/8 of the time left: with 200 turns to the end the section
 * overran by about 950 ns, which the figures then counted as kernel
 * path.  (A turn is at least 4 instructions, 1 ns each under -icount.) */
static void spin_until(uint64_t end)
{
	uint64_t now;

	while ((now = clock_ns()) < end) {
		uint64_t turns = (end - now) / 8;

		if (turns > 200)
			turns = 200;
		for (volatile uint64_t i = 0; i <= turns; i++)
			;
	}
}

/*
 * Across CPUs the workers wait halted, not spinning.  Under -icount the
 * vCPUs take turns on one host thread, and QEMU switches turns only when
 * the running vCPU halts, executes x86 `pause`, or reaches its share of
 * the time to the next timer deadline (up to about half a 4 ms tick).  An
 * IPI only marks its target, which reacts when its turn comes.  A worker
 * that executes instructions while it waits (the hog, or the owner
 * waiting for the round to start) holds the host thread while its CPU
 * should react to the other one (the moved chain, the boost, the
 * wakeup), and when the other CPU's turn ends in the middle of the
 * kernel's path (a deadline), the spinner gets a whole turn: the figures
 * were that turn (about a tick, or the hog's 500 us), not the kernel.
 *
 * halt_until() keeps its task running, so that to the scheduler it is
 * exactly the busy task it stands for (it never yields, sleeps or
 * blocks, and is preempted only by irq_exit()), but its vCPU halts: any
 * interrupt (an IPI, the tick, the timer armed for @end) ends the halt,
 * and meanwhile the other vCPU has the host thread whenever it has work.
 * Virtual time still passes (the other vCPU's instructions, or QEMU's
 * jump to the next deadline when both are halted).
 */
static void halt_timer_fn(struct timer *t)
{
	(void)t;	/* its interrupt ends the halt */
}

/* Run until @end (0: no limit) or until @done() (may be NULL), halted
 * (see above).  @done is called with interrupts off, so what it waits
 * for cannot slip in between the look and the halt.  The caller is
 * pinned to this CPU, so the timer stays on it. */
static void halt_until(uint64_t end, bool (*done)(void))
{
	struct timer t;

	timer_init(&t, halt_timer_fn, NULL);
	if (end)
		timer_arm(&t, end);
	for (;;) {
		preempt_check_resched();	/* a local wakeup's request */
		arch_irq_disable();
		if ((end && clock_ns() >= end) || (done && done())) {
			arch_irq_enable();
			break;
		}
		arch_idle();		/* enables irqs with the halt */
		arch_irq_enable();
	}
	timer_cancel(&t);
}

/* Sleep until *flag >= r (the waker sets it, then wake_up()s us). */
static void wait_round(volatile int *flag, int r)
{
	struct task *self = current();

	for (;;) {
		WRITE_ONCE(self->state, TASK_SLEEPING);
		smp_mb();
		if (READ_ONCE(*flag) >= r)
			break;
		schedule();
	}
	WRITE_ONCE(self->state, TASK_RUNNING);
}

/* The hog and high are released for this round. */
static bool ib_go(void)
{
	return READ_ONCE(ib.go) >= READ_ONCE(ib.round);
}

static void ib_low(void *arg)
{
	(void)arg;
	for (int r = 1; r <= ib.rounds; r++) {
		wait_round(&ib.round, r);
		mutex_lock(&ib.m);
		ib.low_holds = r;
		wake_up(ib.main);
		/* Across CPUs the bench thread may not run before our section
		 * is over (-icount runs the vCPUs in turn): hold m until hog
		 * and high are released (the hog's wakeup IPI ends the halt).
		 * On one CPU they already are. */
		if (ib.xcpu)
			halt_until(0, ib_go);
		spin_until(clock_ns() + INV_CS);
		mutex_unlock(&ib.m);
		ib.done[0] = r;
		wake_up(ib.main);
	}
}

static void ib_hog(void *arg)
{
	(void)arg;
	for (int r = 1; r <= ib.rounds; r++) {
		wait_round(&ib.go, r);
		if (ib.xcpu) {
			uint64_t end = clock_ns() + INV_HOG;

			ib.hog_on = r;		/* low is off its CPU now */
			wake_up(ib.main);
			halt_until(end, NULL);	/* see there */
		} else {
			spin_until(clock_ns() + INV_HOG);
		}
		ib.done[1] = r;
		wake_up(ib.main);
	}
}

static void ib_high(void *arg)
{
	(void)arg;
	for (int r = 1; r <= ib.rounds; r++) {
		uint64_t t0;

		wait_round(&ib.high_go, r);
		t0 = clock_ns();
		mutex_lock(&ib.m);
		ib.wait = clock_ns() - t0;
		mutex_unlock(&ib.m);
		ib.done[2] = r;
		wake_up(ib.main);
	}
}

static struct task *ib_spawn(const char *name, void (*fn)(void *), int prio,
			     int cpu)
{
	struct sched_attr a = { .policy = SCHED_FIFO, .rt_priority = prio };
	struct thread_opts o = { .attr = &a, .affinity = 1ULL << cpu };
	struct task *p = NULL;

	if (thread_spawn(&p, name, fn, NULL, &o))
		return NULL;
	return p;
}


/* Worst and average wait of the high task over @rounds rounds; high on
 * @hcpu, low and the hog on @lcpu. */
static bool inversion_rounds(uint64_t *worst, uint64_t *avg, int rounds,
			     int hcpu, int lcpu)
{
	struct task *w[3];
	uint64_t sum = 0;

	memset((void *)&ib.round, 0, sizeof(ib) - offsetof(typeof(ib), round));
	ib.main = current();
	ib.rounds = rounds;
	ib.xcpu = hcpu != lcpu;
	w[0] = ib_spawn("ib-low", ib_low, 10, lcpu);
	w[1] = ib_spawn("ib-hog", ib_hog, 50, lcpu);
	w[2] = ib_spawn("ib-high", ib_high, 90, hcpu);
	if (!w[0] || !w[1] || !w[2])
		return false;	/* (a spawned one waits forever: bench only) */
	*worst = 0;
	for (int r = 1; r <= rounds; r++) {
		ib.round = r;
		wake_up(w[0]);
		wait_round(&ib.low_holds, r);
		ib.go = r;
		wake_up(w[1]);
		if (ib.xcpu)	/* the owner preempted first (inversion_xcpu) */
			wait_round(&ib.hog_on, r);
		ib.high_go = r;
		wake_up(w[2]);
		for (int i = 0; i < 3; i++)
			wait_round(&ib.done[i], r);
		sum += ib.wait;
		if (ib.wait > *worst)
			*worst = ib.wait;
	}
	for (int i = 0; i < 3; i++)
		thread_join(w[i]);
	*avg = sum / rounds;
	return true;
}

/*
 * Run inversion_rounds() in each locking mode, the high task on @hcpu,
 * owner and hog on @lcpu, and report @prefix_proxy/inherit/none (@where
 * goes into the detail).  The caller is FIFO 99 pinned to @hcpu for it.
 */
static void inversion_modes(const char *bench, const char *prefix, int rounds,
			    int hcpu, int lcpu, const char *where)
{
	static const enum locking_mode modes[] = { LOCKING_PROXY, LOCKING_INHERIT,
						   LOCKING_NONE };
	struct sched_attr me = { .policy = SCHED_FIFO, .rt_priority = 99 };
	struct sched_attr normal = { .policy = SCHED_NORMAL };
	enum locking_mode saved = locking_mode;
	uint64_t worst[3] = { 0 }, avg[3] = { 0 };
	char detail[160];

	if (sched_setattr(current(), &me) != 0) {
		printk("# bench %s: SKIP cannot become FIFO 99\n", bench);
		return;
	}
	sched_setaffinity(current(), 1ULL << hcpu);
	for (int i = 0; i < 3; i++) {
		if (locking_set_mode(locking_mode_name(modes[i])) != 0 ||
		    !inversion_rounds(&worst[i], &avg[i], rounds, hcpu, lcpu)) {
			printk("# bench %s: SKIP mode %s failed\n", bench,
			       locking_mode_name(modes[i]));
			break;
		}
	}
	locking_set_mode(locking_mode_name(saved));
	sched_setattr(current(), &normal);
	sched_setaffinity(current(), ~0ULL);
	for (int i = 0; i < 3; i++) {
		char name[40];

		snprintf(name, sizeof(name), "%s_%s", prefix,
			 locking_mode_name(modes[i]));
		snprintf(detail, sizeof(detail),
			 "worst of %d rounds; avg %llu ns; %s100 us section, "
			 "500 us hog", rounds, (unsigned long long)avg[i], where);
		bench_report(name, worst[i], "ns", detail);
	}
}

static void bench_inversion_bound(void)
{
	int cpu = smp_processor_id();

	mutex_init(&ib.m, "inversion-m");
	inversion_modes("inversion_bound", "inversion_wait", ROUNDS_INV, cpu,
			cpu, "");
}
BENCH(inversion_bound, "worst-case priority inversion per locking mode",
      bench_inversion_bound);

/* ---- Across CPUs -------------------------------------------------------- */

/*
 * These run on riscv64 under -icount too, where QEMU's `pause` does not
 * hand the host thread over (see bench_mutex.c): nothing here spins on a
 * CPU another CPU must get to.  The workers that wait do it halted
 * (halt_until()), and the owner is preempted before a waiter arrives, so
 * the waiter blocks at once (mutex_optimistic_spin() stops when the owner
 * is off its CPU).
 */

/* The next online CPU after this one, or -1. */
static int other_cpu(int cpu)
{
	for (int i = 1; i < ncpus; i++) {
		int c = (cpu + i) % ncpus;

		if (cpu_by_id(c)->online)
			return c;
	}
	return -1;
}

/* ---- inversion_xcpu --------------------------------------------------- */

#define ROUNDS_XCPU 200

/*
 * inversion_bound across CPUs: the high task (FIFO 90) on this CPU, the
 * low owner (FIFO 10) and the medium hog (FIFO 50) on the next one.  With
 * proxy the high task's chain moves to the owner's CPU and the owner runs
 * there at once with the high task's context, ahead of the hog; with
 * inherit the owner is boosted to 90 there; with none the hog delays it
 * by its whole 500 us.  Same rounds and workers as inversion_bound, but
 * the hog and the owner waiting for the round wait halted (halt_until()),
 * and high starts only once the hog runs: the owner is off its CPU when
 * high calls mutex_lock(), so high blocks at once, as it would on
 * hardware where the hog's wakeup IPI takes a microsecond.  (Under
 * -icount the hog's CPU sees that IPI only when its turn comes; high
 * would first spin on the owner, one turn per look on x86, and on
 * riscv64, whose `pause` keeps the turn, for all MUTEX_SPIN_MAX looks.)
 */
static void bench_inversion_xcpu(void)
{
	int hcpu = smp_processor_id(), lcpu = other_cpu(hcpu);
	char where[48];

	if (lcpu < 0) {
		printk("# bench inversion_xcpu: SKIP needs >= 2 CPUs\n");
		return;
	}
	mutex_init(&ib.m, "inversion-xcpu-m");
	snprintf(where, sizeof(where), "high on cpu%d, owner and hog on cpu%d; ",
		 hcpu, lcpu);
	inversion_modes("inversion_xcpu", "inversion_xcpu_wait", ROUNDS_XCPU,
			hcpu, lcpu, where);
}
BENCH(inversion_xcpu, "priority inversion across CPUs per locking mode",
      bench_inversion_xcpu);

/* ---- proxy_xcpu_latency ----------------------------------------------- */

#define XL_ROUNDS 9
#define XL_LIMIT (20 * NSEC_PER_MSEC)	/* no round waits longer */

/*
 * Proxy mode: guest time from just before a waiter on CPU A calls
 * mutex_lock() to the moment the owner, on CPU B, first sees
 * current_donor() == the waiter, i.e. runs with the waiter's context.
 * The waiter is FIFO 90; the owner, fair, is preempted on B by a FIFO 50
 * hog, so the waiter finds it off its CPU and blocks at once (no
 * spinning); its chain moves to B, whose pick prefers the waiter to the
 * hog and runs the owner.  The figure covers the slow path, the walk and
 * the move on A, the IPI, and B's pick, walk and switch.  (An owner
 * running on B is not measured: the waiter spins first, MUTEX_SPIN_MAX
 * looks, and under -icount each x86 `pause` hands the host thread to
 * the other vCPU for a whole turn, so the figure would be the spin.)
 * The owner and the hog wait halted (halt_until()): B reacts to the
 * IPI as soon as A goes idle, and the owner looks at current_donor()
 * right where it is switched in.
 * Median of XL_ROUNDS rounds, fresh threads each round; every wait is a
 * sleep + wake_up (see wait_round).
 */
static struct {
	struct mutex m;
	volatile int holds, hog_on, stop, seen;
	struct task *main;
	struct task *volatile waiter;
	uint64_t t0, t_seen;
} xl;

/* The waiter started more than XL_LIMIT ago (the way out for a round
 * in which the owner never runs for it). */
static bool xl_expired(void)
{
	uint64_t t0 = READ_ONCE(xl.t0);

	return t0 && clock_ns() > t0 + XL_LIMIT;
}

/* For the owner: running for the waiter now (or given up)?  Only a
 * context switch makes it so, and that takes an interrupt on this CPU,
 * which ends the owner's halt; so the figure ends where the owner is
 * switched in, plus this look. */
static bool xl_owner_done(void)
{
	struct task *w = READ_ONCE(xl.waiter);

	if (w && current_donor() == w) {
		xl.t_seen = clock_ns();
		xl.seen = 1;
		return true;
	}
	return xl_expired();
}

static bool xl_stopped(void)
{
	return READ_ONCE(xl.stop);
}

static void xl_owner(void *arg)
{
	(void)arg;
	mutex_lock(&xl.m);
	xl.holds = 1;
	wake_up(xl.main);
	halt_until(0, xl_owner_done);
	mutex_unlock(&xl.m);
}

static void xl_hog(void *arg)
{
	(void)arg;
	xl.hog_on = 1;
	wake_up(xl.main);
	halt_until(clock_ns() + XL_LIMIT, xl_stopped);	/* a hog, halted */
}

static void xl_waiter(void *arg)
{
	(void)arg;
	xl.waiter = current();
	smp_mb();
	xl.t0 = clock_ns();	/* before the owner can see the waiter */
	mutex_lock(&xl.m);
	mutex_unlock(&xl.m);
	xl.stop = 1;
}

/* One round; latency in ns, or 0 if the owner never saw the donor. */
static uint64_t xl_round(int acpu, int bcpu)
{
	struct sched_attr hi = { .policy = SCHED_FIFO, .rt_priority = 90 };
	struct sched_attr mid = { .policy = SCHED_FIFO, .rt_priority = 50 };
	struct thread_opts oo = { .affinity = 1ULL << bcpu };
	struct thread_opts ho = { .attr = &mid, .affinity = 1ULL << bcpu };
	struct thread_opts wo = { .attr = &hi, .affinity = 1ULL << acpu };
	struct task *o = NULL, *h = NULL, *w = NULL;

	memset((void *)&xl.holds, 0,
	       sizeof(xl) - offsetof(typeof(xl), holds));
	xl.main = current();
	if (thread_spawn(&o, "xl-owner", xl_owner, NULL, &oo))
		return 0;
	wait_round(&xl.holds, 1);
	if (thread_spawn(&h, "xl-hog", xl_hog, NULL, &ho) == 0)
		wait_round(&xl.hog_on, 1);
	if (thread_spawn(&w, "xl-waiter", xl_waiter, NULL, &wo) == 0)
		thread_join(w);
	xl.stop = 1;
	if (h)
		thread_join(h);
	thread_join(o);
	return xl.seen && w ? xl.t_seen - xl.t0 : 0;
}

static void bench_proxy_xcpu_latency(void)
{
	enum locking_mode saved = locking_mode;
	uint64_t v[XL_ROUNDS], lo = ~0ULL, hi = 0;
	int acpu, bcpu, missed = 0;
	char detail[160];

	sched_setaffinity(current(), 1ULL << smp_processor_id());
	acpu = smp_processor_id();
	bcpu = other_cpu(acpu);
	if (bcpu < 0) {
		printk("# bench proxy_xcpu_latency: SKIP needs >= 2 CPUs\n");
		sched_setaffinity(current(), ~0ULL);
		return;
	}
	mutex_init(&xl.m, "xcpu-latency-m");
	if (locking_set_mode("proxy") != 0) {
		printk("# bench proxy_xcpu_latency: SKIP cannot set mode proxy\n");
		return;
	}
	for (int r = 0; r < XL_ROUNDS; r++) {
		v[r] = xl_round(acpu, bcpu);
		missed += v[r] == 0;
		lo = v[r] < lo ? v[r] : lo;
		hi = v[r] > hi ? v[r] : hi;
	}
	locking_set_mode(locking_mode_name(saved));
	sched_setaffinity(current(), ~0ULL);
	snprintf(detail, sizeof(detail),
		 "waiter cpu%d -> owner queued behind a FIFO 50 hog on cpu%d; "
		 "median of %d, min %llu max %llu%s", acpu, bcpu, XL_ROUNDS,
		 (unsigned long long)lo, (unsigned long long)hi,
		 missed ? "; SOME ROUNDS NEVER SAW THE DONOR" : "");
	bench_report("proxy_xcpu_latency", bench_median(v, XL_ROUNDS), "ns",
		     detail);
}
BENCH(proxy_xcpu_latency, "proxy: block on CPU A to owner on B running for it",
      bench_proxy_xcpu_latency);
