/*
 * profile.c - the sampling profiler (kernel/profile.c).
 *
 *   rejects_bad_periods     periods out of range: -EINVAL; a second start
 *                           while it runs: -EBUSY
 *   samples_land_in_caller  a CPU spinning (interrupts on) in a function
 *                           called from here is sampled there: the
 *                           samples' call chains hold the return address
 *                           into this case (frame-pointer unwinding)
 */
#include "ktest.h"
#include "helpers.h"
#include "profile.h"
#include "timer.h"
#include "arch.h"
#include "errno.h"
#include <printf.h>

#define WANT 50			/* our samples */

static volatile uintptr_t spin_ret;

/* Spin with interrupts on until @want samples came through our caller,
 * or @limit_ns; records the return address into the caller. */
static __attribute__((noinline)) void spin_sampled(uint64_t want,
						   uint64_t limit_ns)
{
	uint64_t end = clock_ns() + limit_ns;

	spin_ret = (uintptr_t)__builtin_return_address(0);
	while (clock_ns() < end && profile_samples_through(spin_ret) < want)
		arch_cpu_relax();
}

static void rejects_bad_periods(struct ktest *t)
{
	KEXPECT_EQ(t, profile_start(PROFILE_PERIOD_MIN - 1), -EINVAL);
	KEXPECT_EQ(t, profile_start(PROFILE_PERIOD_MAX + 1), -EINVAL);
	KASSERT_EQ(t, profile_start(PROFILE_PERIOD_MAX), 0);
	KEXPECT_EQ(t, profile_start(PROFILE_PERIOD_MAX), -EBUSY);
	profile_stop();
}

static void samples_land_in_caller(struct ktest *t)
{
	uint64_t ours, all;

	KASSERT_EQ(t, profile_start(100 * NSEC_PER_USEC), 0);
	spin_sampled(WANT, 2 * NSEC_PER_SEC);
	profile_stop();
	ours = profile_samples_through(spin_ret);
	all = profile_samples();
	printk("# %llu of %llu samples (every CPU) through the spinning "
	       "caller\n", (unsigned long long)ours, (unsigned long long)all);
	KEXPECT(t, ours >= WANT);
	KEXPECT(t, all >= ours);
}

static struct ktest_case profile_cases[] = {
	KTEST_CASE(rejects_bad_periods),
	KTEST_CASE(samples_land_in_caller),
	{ 0 },
};
KTEST_SUITE(profile, profile_cases);
