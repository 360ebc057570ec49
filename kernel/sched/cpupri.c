/*
 * cpupri.c - the per-level CPU map (see cpupri.h), Linux's
 * kernel/sched/cpupri.c with one root domain and 64-bit CPU masks.
 *
 * Each level has a mask of the CPUs at that level and a count of them.
 * A reader scans levels from the bottom, skipping levels whose count is
 * zero without touching their mask, and stops at the first level that has
 * a CPU the task may use: O(levels), independent of the number of tasks.
 *
 * Ordering of a move from level A to level B (writer, rq lock held):
 *
 *   writer                              reader (cpupri_find)
 *   set bit in B.mask                   c = B.count
 *   smp_mb()                            smp_mb()
 *   B.count++                           m = B.mask
 *   A.count--
 *   smp_mb()
 *   clear bit in A.mask
 *
 * A reader that sees B.count != 0 sees the bit; a CPU is briefly in both
 * levels (never in none), so a reader can only answer "too high", which
 * the caller's recheck under the target lock catches.
 */
#include "cpupri.h"
#include "cpu.h"

struct cpupri_vec {
	int count;		/* CPUs at this level (atomic) */
	uint64_t mask;		/* which ones (atomic bit ops) */
};

static struct cpupri_vec pri_to_cpu[CPUPRI_NR_LEVELS];
static int cpu_to_pri[NR_CPUS] = { [0 ... NR_CPUS - 1] = CPUPRI_INVALID };

void cpupri_set(int cpu, int level)
{
	int old = cpu_to_pri[cpu];
	uint64_t bit = 1ULL << cpu;

	BUG_ON(level < 0 || level >= CPUPRI_NR_LEVELS);
	if (old == level)
		return;
	__atomic_fetch_or(&pri_to_cpu[level].mask, bit, __ATOMIC_SEQ_CST);
	smp_mb();
	__atomic_fetch_add(&pri_to_cpu[level].count, 1, __ATOMIC_SEQ_CST);
	if (old != CPUPRI_INVALID) {
		__atomic_fetch_sub(&pri_to_cpu[old].count, 1, __ATOMIC_SEQ_CST);
		smp_mb();
		__atomic_fetch_and(&pri_to_cpu[old].mask, ~bit, __ATOMIC_SEQ_CST);
	}
	WRITE_ONCE(cpu_to_pri[cpu], level);
}

int cpupri_get(int cpu)
{
	return READ_ONCE(cpu_to_pri[cpu]);
}

bool cpupri_find(int level, uint64_t allowed, uint64_t *lowest)
{
	for (int idx = 0; idx < level && idx < CPUPRI_NR_LEVELS; idx++) {
		uint64_t m;

		if (!__atomic_load_n(&pri_to_cpu[idx].count, __ATOMIC_ACQUIRE))
			continue;
		smp_mb();
		m = __atomic_load_n(&pri_to_cpu[idx].mask, __ATOMIC_RELAXED) & allowed;
		if (m) {
			*lowest = m;
			return true;
		}
	}
	return false;
}
