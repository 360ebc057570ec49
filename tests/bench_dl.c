/*
 * bench_dl.c - cost of the deadline class's pick with 10..10000 runnable
 * tasks, on a private struct rq filled with fake tasks (kmalloc'ed, only
 * the scheduling fields set; no threads, nothing ever runs).
 *
 *   dl_pick     pick_next_task: the cached leftmost of the EDF tree, O(1)
 *   dl_requeue  dequeue the earliest + enqueue it with a later deadline
 *               (what each job end / replenishment costs), O(log n)
 *
 * The private rq claims CPU id NR_CPUS-1, which is never online, so its
 * cpudl entry can never be chosen (cpudl_find masks with online CPUs).
 * Figures: median of ROUNDS, arch_cycles() units per operation.
 */
#include "bench.h"
#include "cpu.h"
#include "mm.h"
#include "random.h"
#include "../kernel/sched/testing.h"
#include <printf.h>

#define ROUNDS 7
#define OPS 1000

static void bench_dl_one(int n)
{
	static struct cpu fake_cpu;	/* only ->id is used */
	struct rq *rq = kmalloc(sizeof(*rq));
	struct task **tasks = kmalloc(n * sizeof(*tasks));
	uint64_t pick[ROUNDS], requeue[ROUNDS], seed = 42;
	unsigned long flags;
	char name[32], detail[96];
	int made = 0;

	if (!rq || !tasks)
		goto out;
	fake_cpu.id = NR_CPUS - 1;
	spin_init(&rq->lock, "bench-rq");
	rq->cpu = &fake_cpu;
	dl_sched_class.init_rq(rq);
	for (; made < n; made++) {
		struct task *p = kmalloc(sizeof(*p));
		struct sched_attr a = { .policy = SCHED_DEADLINE, .dl_runtime = 1000000,
					.dl_deadline = 1000000 + rand_next(&seed) % 100000000 };

		if (!p)
			goto out;
		a.dl_period = a.dl_deadline;
		p->sched_class = &dl_sched_class;
		p->policy = SCHED_DEADLINE;
		dl_set_params(p, &a);
		tasks[made] = p;
	}
	flags = spin_lock(&rq->lock);
	rq->clock_ns = clock_ns();
	for (int i = 0; i < n; i++)
		dl_sched_class.enqueue_task(rq, tasks[i], ENQUEUE_NEW);
	for (int r = 0; r < ROUNDS; r++) {
		uint64_t t0 = arch_cycles();
		struct task *p = NULL;

		for (int i = 0; i < OPS; i++) {
			p = dl_sched_class.pick_next_task(rq);
			barrier();
		}
		pick[r] = (arch_cycles() - t0) / OPS;
		BUG_ON(!p);
		t0 = arch_cycles();
		for (int i = 0; i < OPS; i++) {
			p = dl_sched_class.pick_next_task(rq);
			dl_sched_class.dequeue_task(rq, p, 0);
			p->dl.deadline += p->dl.dl_period;
			dl_sched_class.enqueue_task(rq, p, 0);
		}
		requeue[r] = (arch_cycles() - t0) / OPS;
	}
	for (int i = 0; i < n; i++)
		dl_sched_class.dequeue_task(rq, tasks[i], 0);
	spin_unlock(&rq->lock, flags);

	snprintf(detail, sizeof(detail), "%d runnable, median of %d x %d", n, ROUNDS, OPS);
	snprintf(name, sizeof(name), "dl_pick_%d", n);
	bench_report(name, bench_median(pick, ROUNDS), NULL, detail);
	snprintf(name, sizeof(name), "dl_requeue_%d", n);
	bench_report(name, bench_median(requeue, ROUNDS), NULL, detail);
out:
	for (int i = 0; i < made; i++)
		kfree(tasks[i]);
	kfree(tasks);
	kfree(rq);
}

static void bench_dl_pick(void)
{
	static const int sizes[] = { 10, 100, 1000, 10000 };

	for (int i = 0; i < (int)ARRAY_SIZE(sizes); i++)
		bench_dl_one(sizes[i]);
}
BENCH(dl_pick, "deadline class: pick and requeue with 10..10000 runnable tasks",
      bench_dl_pick);
