/*
 * helpers.h - small helpers shared by the in-kernel test suites.
 */
#ifndef TESTS_HELPERS_H
#define TESTS_HELPERS_H
#include "ktest.h"

/* What each per-CPU worker gets. */
struct percpu_work {
	struct ktest *t;
	int cpu;		/* the CPU it was pinned to */
	int index;		/* 0..nthreads-1 over all CPUs */
	void *data;		/* shared, from the caller */
};

/*
 * Start @per_cpu threads pinned on every online CPU, all running
 * fn(work), and join them.  Records a test failure for a thread that
 * cannot be created or that exits non-zero (a KASSERT in it).  Returns
 * the number of threads that ran.  @per_cpu * online CPUs must be
 * <= PERCPU_MAX_THREADS.
 */
#define PERCPU_MAX_THREADS 256
int run_on_each_cpu(struct ktest *t, const char *name, int per_cpu,
		    void (*fn)(struct percpu_work *w), void *data);

/* Online CPUs (== cpus_online(), as a loop bound over cpu ids use ncpus
 * and check cpu_by_id(i)->online). */
int online_cpus(void);
/* The first online CPU not in @used, or -1. */
int spare_online_cpu(uint64_t used);
/* The first online CPU other than the caller's, or the caller's if it
 * is the only one. */
int other_online_cpu(void);

/* Busy-wait (no sleep) for @ns nanoseconds of clock_ns(). */
void spin_delay_ns(uint64_t ns);

/*
 * For a failure report: the scheduler trace's events recorded by the
 * CPUs in @cpus (a mask) between @from and @to (clock_ns() times), at
 * most the last @max_lines of them, after a line naming @what.  Task
 * context (it copies every ring).
 */
void print_trace_window(uint64_t from, uint64_t to, uint64_t cpus,
			unsigned max_lines, const char *what);
#endif
