/*
 * bench.h - benchmarks that print figures (never pass/fail on time).
 * Registered like test suites, in the "benches" section.  Each prints one
 * or more rows "bench <name>: <value> <unit> (<detail>)".  Figures are
 * repeatable under qemu -icount shift=0.
 */
#ifndef BENCH_H
#define BENCH_H
#include "kernel.h"

struct bench {
	const char *name;
	const char *what;	/* one-line description */
	void (*run)(void);
};

#define BENCH(bname, bwhat, bfn)                                           \
	static const struct bench __bench_##bname                           \
		__attribute__((used, section("benches"), aligned(8))) =     \
		{ .name = #bname, .what = bwhat, .run = bfn }

/* Print one result row in the documented format.  @unit NULL means "the
 * unit of arch_cycles()": printed as "instructions" when the command line
 * has icount=1 (qemu -icount shift=0), else "cycles". */
void bench_report(const char *name, uint64_t value, const char *unit,
		  const char *detail);
/* Median of @n samples (sorts @v in place). */
uint64_t bench_median(uint64_t *v, int n);
/* Median cycles of one voluntary switch between two threads on this CPU
 * (tests/benches.c); 0 on failure. */
uint64_t bench_switch_cost(bool *all_switched);
struct sched_attr;
uint64_t bench_switch_cost_attr(const struct sched_attr *attr,
				bool *all_switched);
/* Run the named benchmarks (none: all); returns -ENOENT for an unknown
 * name (after printing which). */
int bench_run(const char *const *names, int n);
/* Run benchmark @name (must exist) under the profiler (profile.h),
 * sampling every @period_ns, and print the profile tagged with its name.
 * bench_run() does this for every benchmark when the command line has
 * profile=<us>.  Returns profile_start()'s error, else 0. */
int bench_profile(const char *name, uint64_t period_ns);
void bench_list(void);
#endif
