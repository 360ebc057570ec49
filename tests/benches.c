/*
 * benches.c - the benchmarks `bench=all` runs (framework: kernel/bench.c).
 *
 *   ctx_switch     voluntary switch between two threads pinned to one CPU
 *   rt_yield       the same between two FIFO threads of one priority
 *   ipi_roundtrip  smp_call() from CPU 0 to CPU 1 and back
 *   spin_pair      uncontended spin_lock() + spin_unlock()
 *   thread_spawn   thread_create() + thread_join() of an empty thread
 *
 * Each figure is the median of ROUNDS rounds, in arch_cycles() units
 * (instructions under qemu -icount shift=0, see bench.c).  The loop
 * overhead is included and is a few instructions per iteration.
 */
#include "bench.h"
#include "cpu.h"
#include "sched.h"
#include "spinlock.h"
#include "arch.h"
#include <printf.h>

#define ROUNDS 7

/* ---- ctx_switch ------------------------------------------------------ */

#define PINGPONG_ITERS 1000

struct pingpong {
	volatile int stop;
	volatile unsigned long b_runs;	/* times B came back from yield */
	uint64_t cycles;		/* A's timed window */
	unsigned long round_trips;	/* B runs inside that window */
};

/* B: yield back to A until told to stop. */
static void pingpong_b(void *arg)
{
	struct pingpong *p = arg;

	while (!p->stop) {
		p->b_runs++;
		yield();
	}
}

/*
 * A: every yield() switches to B, whose yield() switches back: two
 * switches per round trip.  b_runs tells how many round trips really
 * happened, so one cut short is not counted: a preemption of B between
 * its count and its yield (the fair slice timer, HRTICK, armed earlier
 * and firing in the window: seen in an exact trace) gives A a turn
 * that B does not count.
 */
static void pingpong_a(void *arg)
{
	struct pingpong *p = arg;
	unsigned long b0;
	uint64_t t0;

	while (p->b_runs == 0)
		yield();
	b0 = p->b_runs;
	t0 = arch_cycles();
	for (int i = 0; i < PINGPONG_ITERS; i++)
		yield();
	p->cycles = arch_cycles() - t0;
	p->round_trips = p->b_runs - b0;
	p->stop = 1;
}

/*
 * Median cost of one voluntary switch on this CPU (ROUNDS rounds of
 * PINGPONG_ITERS round trips) between two threads of @attr (NULL: fair,
 * nice 0); 0 if the threads cannot be made.  *@all_switched: false if
 * some round trips were cut short (see pingpong_a).  bench_trace.c uses
 * it too, with the trace on and off.  For an RT @attr the caller must outrank it, or the first
 * thread would yield to nobody until the second exists.
 */
uint64_t bench_switch_cost_attr(const struct sched_attr *attr,
				bool *all_switched)
{
	int cpu = smp_processor_id();
	uint64_t per_switch[ROUNDS];
	unsigned long min_trips = PINGPONG_ITERS;
	struct thread_opts o = { .affinity = 1ULL << cpu, .attr = attr };

	for (int r = 0; r < ROUNDS; r++) {
		struct pingpong p = { 0 };
		struct task *a = NULL, *b = NULL;

		if (thread_spawn(&b, "bench-pong", pingpong_b, &p, &o))
			b = NULL;
		if (thread_spawn(&a, "bench-ping", pingpong_a, &p, &o))
			a = NULL;
		if (!a || !b) {
			p.stop = 1;
			if (a)
				thread_join(a);
			if (b)
				thread_join(b);
			return 0;
		}
		thread_join(a);
		thread_join(b);
		if (p.round_trips < min_trips)
			min_trips = p.round_trips;
		per_switch[r] = p.cycles / (2 * (p.round_trips ? p.round_trips : 1));
	}
	if (all_switched)
		*all_switched = min_trips == PINGPONG_ITERS;
	return bench_median(per_switch, ROUNDS);
}

uint64_t bench_switch_cost(bool *all_switched)
{
	return bench_switch_cost_attr(NULL, all_switched);
}

static void bench_ctx_switch(void)
{
	bool all;
	uint64_t cost = bench_switch_cost(&all);
	char detail[128];

	if (!cost) {
		printk("# bench ctx_switch: thread_create failed\n");
		return;
	}
	snprintf(detail, sizeof(detail),
		 "per switch, yield ping-pong on cpu%d, median of %d x %d "
		 "round trips%s", smp_processor_id(), ROUNDS, PINGPONG_ITERS,
		 all ? "" : ", a preemption cut some round trips");
	bench_report("ctx_switch", cost, NULL, detail);
}
BENCH(ctx_switch, "voluntary context switch between two threads on one CPU",
      bench_ctx_switch);

/*
 * rt_yield: the same ping-pong between two SCHED_FIFO threads of one
 * priority: sched_yield() in RT puts the caller behind its equal (the
 * RT class's requeue and O(1) pick instead of the fair tree).  The
 * bench's own thread runs above them meanwhile, so that both exist
 * before either runs.
 */
static void bench_rt_yield(void)
{
	static const struct sched_attr fifo = { .policy = SCHED_FIFO,
						 .rt_priority = 50 };
	static const struct sched_attr above = { .policy = SCHED_FIFO,
						  .rt_priority = 60 };
	struct sched_attr old;
	char detail[128];
	uint64_t cost;
	bool all;
	int err;

	sched_getattr(current(), &old);
	if ((err = sched_setattr(current(), &above))) {
		printk("# bench rt_yield: SKIP cannot become FIFO (%d)\n", err);
		return;
	}
	cost = bench_switch_cost_attr(&fifo, &all);
	sched_setattr(current(), &old);
	if (!cost) {
		printk("# bench rt_yield: thread_spawn failed\n");
		return;
	}
	snprintf(detail, sizeof(detail),
		 "per switch, FIFO 50 yield ping-pong on cpu%d, median of %d x "
		 "%d round trips%s", smp_processor_id(), ROUNDS,
		 PINGPONG_ITERS, all ? "" : ", a preemption cut some round trips");
	bench_report("rt_yield", cost, NULL, detail);
}
BENCH(rt_yield, "voluntary switch between two FIFO threads of one priority",
      bench_rt_yield);

/* ---- ipi_roundtrip --------------------------------------------------- */

#define IPI_CALLS 64

static void ipi_nop(void *arg)
{
	(void)arg;
}

struct ipi_bench {
	uint64_t samples[IPI_CALLS];
	int errors;
};

/* Pinned on CPU 0: time each smp_call() to CPU 1. */
static void ipi_bench_thread(void *arg)
{
	struct ipi_bench *ib = arg;

	for (int i = 0; i < IPI_CALLS; i++) {
		uint64_t t0 = arch_cycles();

		if (smp_call(1, ipi_nop, NULL) != 0)
			ib->errors++;
		ib->samples[i] = arch_cycles() - t0;
	}
}

static void bench_ipi_roundtrip(void)
{
	static struct ipi_bench ib;	/* 512 bytes: keep off the stack */
	struct task *t;
	char detail[96];

	if (cpus_online() < 2) {
		printk("# bench ipi_roundtrip: SKIP needs >= 2 CPUs\n");
		return;
	}
	ib.errors = 0;
	t = thread_create("bench-ipi", ipi_bench_thread, &ib, 0);
	if (!t) {
		printk("# bench ipi_roundtrip: thread_create failed\n");
		return;
	}
	thread_join(t);
	snprintf(detail, sizeof(detail),
		 "smp_call cpu0 -> cpu1 -> done, median of %d%s", IPI_CALLS,
		 ib.errors ? ", SOME CALLS FAILED" : "");
	bench_report("ipi_roundtrip", bench_median(ib.samples, IPI_CALLS), NULL,
		     detail);
}
BENCH(ipi_roundtrip, "IPI round trip: smp_call() from CPU 0 to CPU 1",
      bench_ipi_roundtrip);

/* ---- spin_pair ------------------------------------------------------- */

#define SPIN_ITERS 10000

static void bench_spin_pair(void)
{
	static spinlock_t lock = SPINLOCK_INIT("bench-lock");
	uint64_t per_pair[ROUNDS];
	char detail[64];

	for (int r = 0; r < ROUNDS; r++) {
		uint64_t t0 = arch_cycles();

		for (int i = 0; i < SPIN_ITERS; i++) {
			unsigned long flags = spin_lock(&lock);

			spin_unlock(&lock, flags);
		}
		per_pair[r] = (arch_cycles() - t0) / SPIN_ITERS;
	}
	snprintf(detail, sizeof(detail),
		 "lock+unlock, uncontended, median of %d x %d", ROUNDS,
		 SPIN_ITERS);
	bench_report("spin_pair", bench_median(per_pair, ROUNDS), NULL, detail);
}
BENCH(spin_pair, "uncontended spin_lock + spin_unlock pair", bench_spin_pair);

/* ---- thread_spawn ---------------------------------------------------- */

#define SPAWN_ITERS 32

static void spawn_empty(void *arg)
{
	(void)arg;
}

static void bench_thread_spawn(void)
{
	int cpu = smp_processor_id();
	uint64_t samples[SPAWN_ITERS];
	char detail[80];

	for (int i = 0; i < SPAWN_ITERS; i++) {
		uint64_t t0 = arch_cycles();
		struct task *t = thread_create("bench-spawn", spawn_empty,
					       NULL, cpu);

		if (!t) {
			printk("# bench thread_spawn: thread_create failed\n");
			return;
		}
		thread_join(t);
		samples[i] = arch_cycles() - t0;
	}
	snprintf(detail, sizeof(detail),
		 "create + run + exit + join on cpu%d, median of %d", cpu,
		 SPAWN_ITERS);
	bench_report("thread_spawn", bench_median(samples, SPAWN_ITERS), NULL,
		     detail);
}
BENCH(thread_spawn, "thread_create + thread_join of an empty thread",
      bench_thread_spawn);
