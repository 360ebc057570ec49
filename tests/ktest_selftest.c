/*
 * ktest_selftest.c - the test framework's own promises, one case per
 * outcome.  Most cases fail on purpose, so the suite is explicit-only: it
 * runs for `ktest=ktest_selftest` (shell: `test ktest_selftest`), never
 * in "all".  tests/runner.py boots it and checks every result exactly
 * (SELFTEST_EXPECT there): a change here needs the same change there.
 *
 * The "# selftest: ..." diagnostic lines are the evidence the runner
 * looks for: a line that proves a case went on (after KEXPECT failures,
 * after a helper's KASSERT) and a MARKER line that must never appear
 * (code after KASSERT/KSKIP ran).
 */
#include "ktest.h"
#include "sched.h"
#include "timer.h"
#include <printf.h>

/* Not constants, so the compiler cannot see that the checks fail. */
static volatile int one = 1, two = 2;

static void marker(const char *where)
{
	printk("    # selftest: MARKER %s ran on\n", where);
}

/* Two KEXPECT failures are recorded and the case runs to its end. */
static void expect_failures_continue(struct ktest *t)
{
	KEXPECT(t, one == two);
	KEXPECT_EQ(t, one, two);
	printk("    # selftest: reached the end with %d failures\n",
	       t->failures);
}

/* KASSERT records the failure and ends the case at once. */
static void assert_aborts(struct ktest *t)
{
	KASSERT(t, one == two);
	marker("assert_aborts after KASSERT");
}

/* KSKIP ends the case as skipped, with its reason on the result line. */
static void skip_with_reason(struct ktest *t)
{
	KSKIP(t, "selftest skip reason");
	marker("skip_with_reason after KSKIP");
}

/* Never finishes: the runner must give up after .timeout_ms, report
 * TIMEOUT and go on.  The thread is abandoned, sleeping (not spinning,
 * so it costs the rest of the run nothing). */
static void hang_times_out(struct ktest *t)
{
	(void)t;
	for (;;)
		sleep_ns(100 * NSEC_PER_MSEC);
}

static void asserting_helper(void *arg)
{
	struct ktest *t = arg;

	KASSERT_EQ(t, one, two);
	marker("asserting_helper after KASSERT");
}

/* A KASSERT in a helper thread fails the case but ends only the helper,
 * with exit code 1 for its joiner; the case itself goes on. */
static void helper_assert_fails_case(struct ktest *t)
{
	struct task *th = thread_create("selftest-helper", asserting_helper,
					t, -1);
	int code;

	KASSERT(t, th != NULL);
	code = thread_join(th);
	printk("    # selftest: helper exited with code %d\n", code);
}

/* Nothing fails: ok.  Last, so it also proves the suite went on after
 * the timeout. */
static void passes(struct ktest *t)
{
	KEXPECT(t, one != two);
	KASSERT(t, one == 1);
}

static struct ktest_case selftest_cases[] = {
	KTEST_CASE(expect_failures_continue),
	KTEST_CASE(assert_aborts),
	KTEST_CASE(skip_with_reason),
	KTEST_CASE_TIMEOUT(hang_times_out, 300),
	KTEST_CASE(helper_assert_fails_case),
	KTEST_CASE(passes),
	{ 0 },
};
KTEST_SUITE_EXPLICIT(ktest_selftest, selftest_cases);
