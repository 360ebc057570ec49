/*
 * bench_mutex.c - the mutex fast paths (kernel/locking/mutex.c).
 *
 *   mutex_pair  uncontended mutex_lock() + mutex_unlock(): one
 *               compare-and-swap each way plus the held-list update;
 *               target under 50 instructions (issue 4)
 *
 * Median of ROUNDS rounds of MUTEX_ITERS pairs, in arch_cycles() units
 * (instructions under qemu -icount shift=0); loop overhead included.
 */
#include "bench.h"
#include "mutex.h"
#include "arch.h"
#include <printf.h>

#define ROUNDS 7
#define MUTEX_ITERS 10000

static void bench_mutex_pair(void)
{
	static DEFINE_MUTEX(bench_mutex);
	uint64_t per_pair[ROUNDS];
	char detail[64];

	for (int r = 0; r < ROUNDS; r++) {
		uint64_t t0 = arch_cycles();

		for (int i = 0; i < MUTEX_ITERS; i++) {
			mutex_lock(&bench_mutex);
			mutex_unlock(&bench_mutex);
		}
		per_pair[r] = (arch_cycles() - t0) / MUTEX_ITERS;
	}
	snprintf(detail, sizeof(detail),
		 "lock+unlock, uncontended, median of %d x %d", ROUNDS,
		 MUTEX_ITERS);
	bench_report("mutex_pair", bench_median(per_pair, ROUNDS), NULL, detail);
}
BENCH(mutex_pair, "uncontended mutex_lock + mutex_unlock pair",
      bench_mutex_pair);
