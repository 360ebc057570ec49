/*
 * smp.c - tests that every CPU came up, takes timer interrupts and
 * exchanges IPIs with every other CPU.
 */
#include "ktest.h"
#include "helpers.h"
#include "boot.h"
#include "cmdline.h"
#include "cpu.h"
#include "sched.h"
#include "timer.h"
#include <string.h>

/* The runner passes expect_cpus=<qemu -smp>: every CPU QEMU made must
 * have been found (MADT / device tree) and brought online. */
static void cpu_count_matches_qemu(struct ktest *t)
{
	char val[16];
	unsigned long long want;

	if (!cmdline_get(boot_info->cmdline, "expect_cpus", val, sizeof(val)))
		KSKIP(t, "no expect_cpus= on the command line");
	KASSERT_EQ(t, parse_u64(val, &want), 0);
	KEXPECT_EQ(t, ncpus, want);
	KEXPECT_EQ(t, cpus_online(), ncpus);
	KEXPECT_EQ(t, online_cpus(), ncpus);
}

/* cpu->id must be the index and this_cpu() on a pinned thread must be
 * that CPU. */
static void check_this_cpu(struct percpu_work *w)
{
	struct cpu *c = this_cpu();

	KEXPECT(w->t, c == cpu_by_id(w->cpu));
	KEXPECT_EQ(w->t, c->id, w->cpu);
	KEXPECT(w->t, c->self == c);
}

static void this_cpu_is_consistent(struct ktest *t)
{
	run_on_each_cpu(t, "smp-self", 1, check_this_cpu, NULL);
}

/* Over ~50 ms every online CPU must take timer interrupts (the tick). */
static void timer_irqs_on_every_cpu(struct ktest *t)
{
	static uint64_t before[NR_CPUS];

	for (int i = 0; i < ncpus; i++)
		before[i] = READ_ONCE(cpu_by_id(i)->nr_timer_irqs);
	sleep_ns(50 * NSEC_PER_MSEC);
	for (int i = 0; i < ncpus; i++) {
		uint64_t after = READ_ONCE(cpu_by_id(i)->nr_timer_irqs);

		if (!cpu_by_id(i)->online)
			continue;
		if (after <= before[i])
			ktest_fail(t, __FILE__, __LINE__,
				   "cpu%d took no timer interrupt in 50 ms "
				   "(count %llu)", i, (unsigned long long)after);
	}
}

/*
 * IPI matrix: a thread pinned on each CPU i smp_call()s every other CPU
 * j; the callback, running on j in interrupt context, marks seen[i][j].
 * Every off-diagonal cell must be set exactly once.
 */
static volatile uint8_t ipi_seen[NR_CPUS][NR_CPUS];
static volatile int ipi_wrong_context;

struct ipi_req {
	int from, to;
};

static void ipi_record(void *arg)
{
	struct ipi_req *r = arg;

	if (smp_processor_id() != r->to || !in_interrupt())
		ipi_wrong_context = 1;
	ipi_seen[r->from][smp_processor_id()]++;
}

static void ipi_sender(struct percpu_work *w)
{
	for (int j = 0; j < ncpus; j++) {
		struct ipi_req req = { w->cpu, j };

		if (j == w->cpu || !cpu_by_id(j)->online)
			continue;
		KEXPECT_EQ(w->t, smp_call(j, ipi_record, &req), 0);
	}
}

static void ipi_between_every_pair(struct ktest *t)
{
	static uint64_t ipis_before[NR_CPUS];

	if (online_cpus() < 2)
		KSKIP(t, "needs >= 2 CPUs");
	memset((void *)ipi_seen, 0, sizeof(ipi_seen));
	ipi_wrong_context = 0;
	for (int i = 0; i < ncpus; i++)
		ipis_before[i] = READ_ONCE(cpu_by_id(i)->nr_ipis);

	run_on_each_cpu(t, "smp-ipi", 1, ipi_sender, NULL);

	KEXPECT_EQ(t, ipi_wrong_context, 0);
	for (int i = 0; i < ncpus; i++) {
		for (int j = 0; j < ncpus; j++) {
			int want = (i != j && cpu_by_id(i)->online &&
				    cpu_by_id(j)->online) ? 1 : 0;

			if (ipi_seen[i][j] != want)
				ktest_fail(t, __FILE__, __LINE__,
					   "cpu%d -> cpu%d: callback ran %d "
					   "times, want %d", i, j,
					   ipi_seen[i][j], want);
		}
		if (cpu_by_id(i)->online &&
		    READ_ONCE(cpu_by_id(i)->nr_ipis) <= ipis_before[i])
			ktest_fail(t, __FILE__, __LINE__,
				   "cpu%d nr_ipis did not grow", i);
	}
}

/* smp_call() to the calling CPU runs fn right there; to a CPU that does
 * not exist it fails with -EINVAL. */
static void record_cpu(void *arg)
{
	*(volatile int *)arg = smp_processor_id();
}

static void call_self(struct percpu_work *w)
{
	volatile int ran_on = -1;

	KEXPECT_EQ(w->t, smp_call(w->cpu, record_cpu, (void *)&ran_on), 0);
	KEXPECT_EQ(w->t, ran_on, w->cpu);
}

static void smp_call_self_and_invalid(struct ktest *t)
{
	int dummy;

	run_on_each_cpu(t, "smp-callself", 1, call_self, NULL);
	if (ncpus < NR_CPUS)
		KEXPECT_EQ(t, smp_call(ncpus, record_cpu, &dummy), -EINVAL);
}

static struct ktest_case smp_cases[] = {
	KTEST_CASE(cpu_count_matches_qemu),
	KTEST_CASE(this_cpu_is_consistent),
	KTEST_CASE(timer_irqs_on_every_cpu),
	KTEST_CASE_TIMEOUT(ipi_between_every_pair, 30000),
	KTEST_CASE(smp_call_self_and_invalid),
	{ 0 },
};
KTEST_SUITE(smp, smp_cases);
