/*
 * cpudeadline.c - a max-heap of CPUs by their earliest deadline and a
 * mask of CPUs without deadline tasks, for global EDF (Linux's
 * kernel/sched/cpudeadline.c, without the per-root-domain split: one
 * heap for the machine).
 *
 * heap[0] is the CPU whose earliest queued deadline is the LATEST: the
 * best victim for a task with an earlier deadline.  idx[cpu] is the
 * CPU's position in heap[], or -1 when it is free (no deadline task).
 * Every operation is O(log ncpus) under cpudl.lock.
 */
#include "cpudeadline.h"
#include "cpu.h"
#include "spinlock.h"
#include "bitops.h"

struct cpudl_item {
	uint64_t dl;
	int cpu;
};

static struct {
	spinlock_t lock;
	int size;
	struct cpudl_item heap[NR_CPUS];
	int idx[NR_CPUS];
	uint64_t free_cpus;
} cpudl = { .lock = SPINLOCK_INIT("cpudl") };

static void heap_swap(int a, int b)
{
	struct cpudl_item t = cpudl.heap[a];

	cpudl.heap[a] = cpudl.heap[b];
	cpudl.heap[b] = t;
	cpudl.idx[cpudl.heap[a].cpu] = a;
	cpudl.idx[cpudl.heap[b].cpu] = b;
}

static void heap_up(int i)
{
	while (i > 0) {
		int parent = (i - 1) / 2;

		if (cpudl.heap[parent].dl >= cpudl.heap[i].dl)
			break;
		heap_swap(i, parent);
		i = parent;
	}
}

static void heap_down(int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, big = i;

		if (l < cpudl.size && cpudl.heap[l].dl > cpudl.heap[big].dl)
			big = l;
		if (r < cpudl.size && cpudl.heap[r].dl > cpudl.heap[big].dl)
			big = r;
		if (big == i)
			return;
		heap_swap(i, big);
		i = big;
	}
}

/* Take @cpu out of the heap (it is in it).  Lock held. */
static void heap_remove(int cpu)
{
	int i = cpudl.idx[cpu], last = --cpudl.size, moved;

	cpudl.idx[cpu] = -1;
	if (i == last)
		return;
	cpudl.heap[i] = cpudl.heap[last];
	moved = cpudl.heap[i].cpu;
	cpudl.idx[moved] = i;
	heap_up(i);			/* it goes one way or the other */
	heap_down(cpudl.idx[moved]);
}

void cpudl_init_cpu(int cpu)
{
	unsigned long flags = spin_lock(&cpudl.lock);

	cpudl.idx[cpu] = -1;
	cpudl.free_cpus |= 1ULL << cpu;
	spin_unlock(&cpudl.lock, flags);
}

void cpudl_set(int cpu, uint64_t dl)
{
	unsigned long flags = spin_lock(&cpudl.lock);
	int i = cpudl.idx[cpu];

	if (i < 0) {
		i = cpudl.size++;
		cpudl.heap[i] = (struct cpudl_item){ .dl = dl, .cpu = cpu };
		cpudl.idx[cpu] = i;
		cpudl.free_cpus &= ~(1ULL << cpu);
		heap_up(i);
	} else {
		uint64_t old = cpudl.heap[i].dl;

		cpudl.heap[i].dl = dl;
		if (dl > old)
			heap_up(i);
		else
			heap_down(i);
	}
	spin_unlock(&cpudl.lock, flags);
}

void cpudl_clear(int cpu)
{
	unsigned long flags = spin_lock(&cpudl.lock);

	if (cpudl.idx[cpu] >= 0)
		heap_remove(cpu);
	cpudl.free_cpus |= 1ULL << cpu;
	spin_unlock(&cpudl.lock, flags);
}

int cpudl_find(uint64_t allowed, uint64_t dl, int prefer)
{
	unsigned long flags = spin_lock(&cpudl.lock);
	uint64_t free = cpudl.free_cpus & allowed;
	int cpu = -1;

	if (free) {
		cpu = (prefer >= 0 && ((free >> prefer) & 1)) ? prefer
							       : ctz64(free);
	} else if (cpudl.size > 0 && ((allowed >> cpudl.heap[0].cpu) & 1) &&
		   cpudl.heap[0].dl > dl) {
		cpu = cpudl.heap[0].cpu;
	}
	spin_unlock(&cpudl.lock, flags);
	return cpu;
}
