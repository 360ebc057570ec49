/*
 * bench.c - the benchmark framework of bench.h.
 *
 * Benchmarks are registered with BENCH() in the "benches" linker section
 * and print rows "bench <name>: <value> <unit> (<detail>)".  Values come
 * from arch_cycles().  Under `qemu -icount shift=0` that counter advances
 * by one per guest instruction, so the figures are instruction counts and
 * repeatable; the runner then passes icount=1 on the command line and the
 * unit is printed as "instructions".  Otherwise it is "cycles" of
 * whatever the counter counts (TSC ticks / rdcycle) and only roughly
 * comparable between runs.
 */
#include "bench.h"
#include "boot.h"
#include "cmdline.h"
#include "arch.h"
#include "errno.h"
#include "profile.h"
#include <printf.h>
#include <string.h>

extern const struct bench __start_benches[];
extern const struct bench __stop_benches[];

static bool icount_mode(void)
{
	char val[8];

	return boot_info &&
	       cmdline_get(boot_info->cmdline, "icount", val, sizeof(val)) &&
	       strcmp(val, "1") == 0;
}

/*
 * @unit NULL means "the unit of arch_cycles()", which is what every
 * counter-based figure should pass; other units ("ns", "bytes") are
 * printed as given.
 */
void bench_report(const char *name, uint64_t value, const char *unit,
		  const char *detail)
{
	if (!unit)
		unit = icount_mode() ? "instructions" : "cycles";
	printk("bench %s: %llu %s (%s)\n", name, (unsigned long long)value,
	       unit, detail ? detail : "");
}

static const struct bench *find_bench(const char *name)
{
	for (const struct bench *b = __start_benches; b < __stop_benches; b++)
		if (strcmp(b->name, name) == 0)
			return b;
	return NULL;
}

/* profile=<us> on the command line: the sampling period, else 0. */
static uint64_t profile_period(void)
{
	char val[16];
	unsigned long long us;

	if (!boot_info ||
	    !cmdline_get(boot_info->cmdline, "profile", val, sizeof(val)))
		return 0;
	if (parse_u64(val, &us) != 0 || us * NSEC_PER_USEC < PROFILE_PERIOD_MIN ||
	    us * NSEC_PER_USEC > PROFILE_PERIOD_MAX) {
		printk("# bench: profile=%s is not a period in us (%llu..%llu): "
		       "not profiling\n", val,
		       (unsigned long long)(PROFILE_PERIOD_MIN / NSEC_PER_USEC),
		       (unsigned long long)(PROFILE_PERIOD_MAX / NSEC_PER_USEC));
		return 0;
	}
	return us * NSEC_PER_USEC;
}

/* @b under the profiler every @ns, its profile printed; not run if the
 * profiler does not start (its error). */
static int run_profiled(const struct bench *b, uint64_t ns)
{
	int err = profile_start(ns);

	if (err)
		return err;
	printk("# bench %s: %s\n", b->name, b->what);
	b->run();
	profile_stop();
	profile_print(b->name);
	return 0;
}

static void run_one(const struct bench *b, uint64_t profile_ns)
{
	int err;

	if (profile_ns && (err = run_profiled(b, profile_ns)) == 0)
		return;
	if (profile_ns)
		printk("# bench %s: the profiler did not start (%d)\n",
		       b->name, err);
	printk("# bench %s: %s\n", b->name, b->what);
	b->run();
}

int bench_profile(const char *name, uint64_t period_ns)
{
	const struct bench *b = find_bench(name);

	return b ? run_profiled(b, period_ns) : -ENOENT;
}

int bench_run(const char *const *names, int n)
{
	bool all = !names || n == 0 || (n == 1 && strcmp(names[0], "all") == 0);
	uint64_t profile_ns = profile_period();
	int unknown = 0;

	/* Check every name first so that a typo runs nothing. */
	for (int i = 0; !all && i < n; i++) {
		if (!find_bench(names[i])) {
			printk("# unknown bench '%s'\n", names[i]);
			unknown++;
		}
	}
	if (unknown)
		return -ENOENT;

	if (icount_mode())
		printk("# bench: unit is instructions (arch_cycles() under "
		       "qemu -icount shift=0, icount=1)\n");
	else
		printk("# bench: unit is cycles (arch_cycles(); boot with "
		       "icount=1 under qemu -icount shift=0 for instruction "
		       "counts)\n");

	if (all) {
		for (const struct bench *b = __start_benches;
		     b < __stop_benches; b++)
			run_one(b, profile_ns);
	} else {
		for (int i = 0; i < n; i++)
			run_one(find_bench(names[i]), profile_ns);
	}
	printk("# bench: done\n");
	return 0;
}

void bench_list(void)
{
	for (const struct bench *b = __start_benches; b < __stop_benches; b++)
		printk("  %-16s %s\n", b->name, b->what);
}

uint64_t bench_median(uint64_t *v, int n)
{
	/* Insertion sort: n is tiny. */
	for (int i = 1; i < n; i++) {
		uint64_t x = v[i];
		int j = i - 1;

		while (j >= 0 && v[j] > x) {
			v[j + 1] = v[j];
			j--;
		}
		v[j + 1] = x;
	}
	return v[n / 2];
}
