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
#include "../kernel/sched/internal.h"

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
 * then hog and high, and high blocks on m.  Each worker sleeps between
 * rounds (wait_round) and reports done[] when its part is over.  All
 * waiting is sleep + wake_up, never a timed poll: under -icount an idle
 * CPU waiting for a timer costs host time out of proportion.
 */
static struct {
	struct mutex m;
	volatile int round;		/* released round, all workers */
	volatile int low_holds;		/* round in which low holds m */
	volatile int go;		/* round in which hog and high start */
	volatile int done[3];		/* last round each worker finished */
	struct task *main;		/* the bench thread: woken on progress */
	uint64_t wait;
} ib;

/* Busy until @end, with plain instructions: under TCG a pause
 * (arch_cpu_relax) or a clock read leaves the translated code, and a
 * loop of them made this bench cost minutes of host time. */
static void spin_until(uint64_t end)
{
	while (clock_ns() < end)
		for (volatile int i = 0; i < 200; i++)
			;
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

static void ib_low(void *arg)
{
	(void)arg;
	for (int r = 1; r <= ROUNDS_INV; r++) {
		wait_round(&ib.round, r);
		mutex_lock(&ib.m);
		ib.low_holds = r;
		wake_up(ib.main);
		spin_until(clock_ns() + INV_CS);
		mutex_unlock(&ib.m);
		ib.done[0] = r;
		wake_up(ib.main);
	}
}

static void ib_hog(void *arg)
{
	(void)arg;
	for (int r = 1; r <= ROUNDS_INV; r++) {
		wait_round(&ib.go, r);
		spin_until(clock_ns() + INV_HOG);
		ib.done[1] = r;
		wake_up(ib.main);
	}
}

static void ib_high(void *arg)
{
	(void)arg;
	for (int r = 1; r <= ROUNDS_INV; r++) {
		uint64_t t0;

		wait_round(&ib.go, r);
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


/* Worst and average wait of the high task over ROUNDS_INV rounds. */
static bool inversion_rounds(uint64_t *worst, uint64_t *avg)
{
	int cpu = smp_processor_id();
	struct task *w[3];
	uint64_t sum = 0;

	memset((void *)&ib.round, 0, sizeof(ib) - offsetof(typeof(ib), round));
	ib.main = current();
	w[0] = ib_spawn("ib-low", ib_low, 10, cpu);
	w[1] = ib_spawn("ib-hog", ib_hog, 50, cpu);
	w[2] = ib_spawn("ib-high", ib_high, 90, cpu);
	if (!w[0] || !w[1] || !w[2])
		return false;	/* (a spawned one waits forever: bench only) */
	*worst = 0;
	for (int r = 1; r <= ROUNDS_INV; r++) {
		ib.round = r;
		wake_up(w[0]);
		wait_round(&ib.low_holds, r);
		ib.go = r;
		wake_up(w[1]);
		wake_up(w[2]);
		for (int i = 0; i < 3; i++)
			wait_round(&ib.done[i], r);
		sum += ib.wait;
		if (ib.wait > *worst)
			*worst = ib.wait;
	}
	for (int i = 0; i < 3; i++)
		thread_join(w[i]);
	*avg = sum / ROUNDS_INV;
	return true;
}

static void bench_inversion_bound(void)
{
	static const enum locking_mode modes[] = { LOCKING_PROXY, LOCKING_INHERIT,
						   LOCKING_NONE };
	struct sched_attr me = { .policy = SCHED_FIFO, .rt_priority = 99 };
	struct sched_attr normal = { .policy = SCHED_NORMAL };
	enum locking_mode saved = locking_mode;
	uint64_t worst[3] = { 0 }, avg[3] = { 0 };
	char detail[160];

	mutex_init(&ib.m, "inversion-m");
	if (sched_setattr(current(), &me) != 0) {
		printk("# bench inversion_bound: SKIP cannot become FIFO 99\n");
		return;
	}
	sched_setaffinity(current(), 1ULL << smp_processor_id());
	for (int i = 0; i < 3; i++) {
		if (locking_set_mode(locking_mode_name(modes[i])) != 0 ||
		    !inversion_rounds(&worst[i], &avg[i])) {
			printk("# bench inversion_bound: SKIP mode %s failed\n",
			       locking_mode_name(modes[i]));
			break;
		}
	}
	locking_set_mode(locking_mode_name(saved));
	sched_setattr(current(), &normal);
	sched_setaffinity(current(), ~0ULL);
	for (int i = 0; i < 3; i++) {
		char name[40];

		snprintf(name, sizeof(name), "inversion_wait_%s",
			 locking_mode_name(modes[i]));
		snprintf(detail, sizeof(detail),
			 "worst of %d rounds; avg %llu ns; 100 us section, 500 us hog",
			 ROUNDS_INV, (unsigned long long)avg[i]);
		bench_report(name, worst[i], "ns", detail);
	}
}
BENCH(inversion_bound, "worst-case priority inversion per locking mode",
      bench_inversion_bound);
