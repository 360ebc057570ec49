/*
 * bench_rt.c - benchmarks of the RT class (kernel/sched/rt.c).
 *
 *   rt_pick_N       pick_next_task of the RT class with N = 10, 100, 1000,
 *                   10000 queued tasks, on a private struct rq with fake
 *                   tasks (no threads): must not grow with N
 *   rt_wakeup_lat   cyclictest-like: a FIFO 90 task waking every 500 us
 *                   with sleep_until() on a CPU loaded with two fair hogs;
 *                   wakeup latency (time run - time due) min/avg/max
 *
 * Pick figures are the median of ROUNDS rounds of PICK_ITERS picks, in
 * arch_cycles() units (instructions under qemu -icount shift=0).
 */
#include "bench.h"
#include "cpu.h"
#include "mm.h"
#include "sched.h"
#include "timer.h"
#include "arch.h"
#include <printf.h>
#include "../kernel/sched/testing.h"

#define ROUNDS 7
#define PICK_ITERS 1000

static struct task *volatile pick_sink;

/*
 * @n fake RT tasks (only the scheduling fields set) queued on a private
 * runqueue that stays out of cpupri and the overload mask (rq->cpu NULL).
 * Priorities 64..98: the pick has to look past the first bitmap word.
 */
static void bench_pick(int n)
{
	struct rq *rq = kmalloc(sizeof(*rq));
	struct task **tasks = kmalloc(n * sizeof(*tasks));
	uint64_t samples[ROUNDS];
	char name[32], detail[96];
	unsigned long flags;
	int made = 0;

	if (!rq || !tasks)
		goto out;
	rq->cpu = NULL;
	rt_sched_class.init_rq(rq);
	for (; made < n; made++) {
		struct task *p = kmalloc(sizeof(*p));

		if (!p)
			break;
		p->sched_class = &rt_sched_class;
		p->policy = SCHED_FIFO;
		p->rt_priority = 35 - made % 35;
		p->prio = MAX_RT_PRIO - 1 - p->rt_priority;	/* 64..98 */
		p->cpus_allowed = 1;
		p->on_rq = 1;
		tasks[made] = p;
		rt_sched_class.enqueue_task(rq, p, ENQUEUE_NEW);
	}
	if (made < n) {
		printk("# bench rt_pick_%d: SKIP out of memory after %d tasks\n", n, made);
		goto out;
	}
	rq->curr = rq->donor = tasks[0];
	flags = arch_irq_save();
	for (int r = 0; r < ROUNDS; r++) {
		uint64_t t0 = arch_cycles();

		for (int i = 0; i < PICK_ITERS; i++)
			pick_sink = rt_sched_class.pick_next_task(rq);
		samples[r] = (arch_cycles() - t0) / PICK_ITERS;
	}
	arch_irq_restore(flags);
	snprintf(name, sizeof(name), "rt_pick_%d", n);
	snprintf(detail, sizeof(detail),
		 "RT pick_next_task, %d queued on 35 levels, median of %d x %d",
		 n, ROUNDS, PICK_ITERS);
	bench_report(name, bench_median(samples, ROUNDS), NULL, detail);
out:
	for (int i = 0; i < made; i++) {
		rt_sched_class.dequeue_task(rq, tasks[i], 0);
		kfree(tasks[i]);
	}
	kfree(tasks);
	kfree(rq);
}

static void bench_rt_pick(void)
{
	bench_pick(10);
	bench_pick(100);
	bench_pick(1000);
	bench_pick(10000);
}
BENCH(rt_pick, "RT pick_next_task with 10..10000 queued tasks", bench_rt_pick);

/* ---- cyclictest-like wakeup latency --------------------------------- */

#define LAT_WAKEUPS 10000
#define LAT_PERIOD (500 * NSEC_PER_USEC)

struct lat {
	volatile bool stop;
	uint64_t min, max, sum;
	int n;
};

static void lat_hog(void *arg)
{
	struct lat *l = arg;

	while (!l->stop)
		;
}

static void lat_rt(void *arg)
{
	struct lat *l = arg;
	uint64_t next = clock_ns() + LAT_PERIOD;

	l->min = ~0ULL;
	for (l->n = 0; l->n < LAT_WAKEUPS; l->n++) {
		uint64_t lat;

		/* An absolute deadline, as cyclictest's clock_nanosleep(
		 * TIMER_ABSTIME): a relative sleep would be due later than
		 * next by the time between two clock reads, and count it. */
		if (next > clock_ns())
			sleep_until(next);
		lat = clock_ns() - next;
		l->sum += lat;
		if (lat < l->min)
			l->min = lat;
		if (lat > l->max)
			l->max = lat;
		next += LAT_PERIOD;
		if (next < clock_ns())		/* overran: don't replay */
			next = clock_ns() + LAT_PERIOD;
	}
}

static void bench_rt_wakeup_lat(void)
{
	static struct lat l;
	struct sched_attr fifo = { .policy = SCHED_FIFO, .rt_priority = 90 };
	struct task *hog[2] = { NULL, NULL }, *rt = NULL;
	int cpu = ncpus - 1;
	char detail[128];
	struct thread_opts o;

	while (cpu > 0 && !cpus[cpu].online)
		cpu--;
	l = (struct lat){ 0 };
	o = (struct thread_opts){ .affinity = 1ULL << cpu };
	for (int i = 0; i < 2; i++)
		thread_spawn(&hog[i], "lat-hog", lat_hog, &l, &o);
	o.attr = &fifo;
	if (thread_spawn(&rt, "lat-rt", lat_rt, &l, &o))
		rt = NULL;
	if (rt)
		thread_join(rt);
	l.stop = true;
	for (int i = 0; i < 2; i++)
		if (hog[i])
			thread_join(hog[i]);
	if (!rt || !hog[0] || !hog[1] || l.n == 0) {
		printk("# bench rt_wakeup_lat: SKIP could not create threads\n");
		return;
	}
	snprintf(detail, sizeof(detail),
		 "FIFO 90 every %llu us vs 2 fair hogs on cpu%d, %d wakeups",
		 (unsigned long long)(LAT_PERIOD / 1000), cpu, l.n);
	bench_report("rt_wakeup_lat_min", l.min, "ns", detail);
	bench_report("rt_wakeup_lat_avg", l.sum / l.n, "ns", detail);
	bench_report("rt_wakeup_lat_max", l.max, "ns", detail);
}
BENCH(rt_wakeup_lat, "cyclictest-like RT wakeup latency under fair load",
      bench_rt_wakeup_lat);
