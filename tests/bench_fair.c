/*
 * bench_fair.c - benchmark of the fair class (kernel/sched/fair.c).
 *
 *   fair_pick_N   one scheduling cycle of the fair class with N = 10, 100,
 *                 1000, 10000 runnable tasks: pick_next_task (pick_eevdf),
 *                 set_next_task (the last task back into the tree, this
 *                 one out of it), update_curr (the task ran a 3 ms
 *                 request, so its deadline moves) and put_prev_task (it
 *                 stays curr, parked, until the next set_next_task: see
 *                 fair.c).  On a private
 *                 struct rq with fake tasks (kmalloc'ed, only the
 *                 scheduling fields set; no stacks, no threads).  The tree
 *                 work is O(log n): the figure must grow at most
 *                 logarithmically with N.
 *
 * Figures: median of ROUNDS rounds of CYCLES cycles, per cycle, in
 * arch_cycles() units (instructions under qemu -icount shift=0).
 */
#include "bench.h"
#include "cpu.h"
#include "mm.h"
#include "sched.h"
#include "arch.h"
#include <printf.h>
#include "../kernel/sched/testing.h"

#define ROUNDS 7
#define CYCLES 500

static void bench_one(int n)
{
	const struct sched_class *fc = &fair_sched_class;
	struct rq *rq = kmalloc(sizeof(*rq));
	struct task **tasks = kmalloc(n * sizeof(*tasks));
	uint64_t samples[ROUNDS];
	char name[32], detail[112];
	unsigned long flags;
	int made = 0;

	if (!rq || !tasks)
		goto out;
	/* resched_curr() from update_curr lands on this CPU: harmless.
	 * Not this CPU's rq, so no HRTICK is armed. */
	rq->cpu = this_cpu();
	fc->init_rq(rq);
	for (; made < n; made++) {
		/* Mixed nice levels and slices: a realistic tree shape. */
		struct sched_attr a = { .policy = SCHED_NORMAL, .nice = made % 11 - 5,
					.slice_ns = made % 3 ? 0 : 2 * NSEC_PER_MSEC };
		struct task *p = kmalloc(sizeof(*p));

		if (!p)
			break;
		p->sched_class = &fair_sched_class;
		p->policy = SCHED_NORMAL;
		p->static_prio = p->prio = NICE_TO_PRIO(a.nice);
		p->cpus_allowed = 1;
		fair_set_params(p, &a);
		tasks[made] = p;
	}
	if (made < n) {
		printk("# bench fair_pick_%d: SKIP out of memory after %d tasks\n", n, made);
		goto out;
	}
	flags = arch_irq_save();
	for (int i = 0; i < n; i++) {
		fc->enqueue_task(rq, tasks[i], ENQUEUE_NEW);
		tasks[i]->on_rq = 1;
	}
	rq->curr = rq->donor = tasks[0];	/* no clock: never charged */
	for (int r = -1; r < ROUNDS; r++) {	/* round -1: warm-up */
		uint64_t t0 = arch_cycles();

		for (int i = 0; i < CYCLES; i++) {
			struct task *p = fc->pick_next_task(rq);

			fc->set_next_task(rq, p);
			rq->curr = rq->donor = p;
			fc->update_curr(rq, p, 3 * NSEC_PER_MSEC);
			fc->put_prev_task(rq, p);
		}
		if (r >= 0)
			samples[r] = (arch_cycles() - t0) / CYCLES;
	}
	{
		const char *err = fair_rq_verify(rq);

		if (err)
			printk("# bench fair_pick_%d: queue invariant broken: %s\n", n, err);
	}
	for (int i = 0; i < n; i++)
		fc->dequeue_task(rq, tasks[i], DEQUEUE_SLEEP);
	arch_irq_restore(flags);
	snprintf(name, sizeof(name), "fair_pick_%d", n);
	snprintf(detail, sizeof(detail),
		 "fair pick+set_next+update_curr+put_prev, %d runnable, median of %d x %d",
		 n, ROUNDS, CYCLES);
	bench_report(name, bench_median(samples, ROUNDS), NULL, detail);
out:
	for (int i = 0; i < made; i++)
		kfree(tasks[i]);
	kfree(tasks);
	kfree(rq);
}

static void bench_fair_pick(void)
{
	static const int sizes[] = { 10, 100, 1000, 10000 };

	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++)
		bench_one(sizes[i]);
}
BENCH(fair_pick, "fair class scheduling cycle with 10..10000 runnable tasks",
      bench_fair_pick);
