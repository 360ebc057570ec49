/*
 * ktest_selftest.c - the test framework's own promises, one case per
 * outcome.  Most cases fail on purpose, so the suite is explicit-only: it
 * runs for `ktest=ktest_selftest` (shell: `test ktest_selftest`), never
 * in "all".  The runner boots it and checks every result exactly against
 * SELFTEST_CHECKS (tools/kestrel/selftest.py): change both together.
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

/*
 * The timeout and the taint.  hang_times_out does not finish in time:
 * the runner must give up after .timeout_ms, report TIMEOUT and go on.
 * It and a helper it created (so tagged as its too) keep running,
 * sleeping, until tainted_pass_passes releases them: past the grace
 * period, so the two cases between run tainted.  The one that fails is
 * reported as a SKIP naming the leftovers; the one that passes, as a
 * pass.  Once they have ended, a failure is a failure again
 * (helper_assert_fails_case).  Released by a case rather than after a
 * time, so a slow host cannot change the outcome.
 */
static volatile bool release;
static struct task *hang_task, *linger_task;

static void linger(void *arg)
{
	(void)arg;
	while (!READ_ONCE(release))
		sleep_ns(10 * NSEC_PER_MSEC);
}

static void hang_times_out(struct ktest *t)
{
	hang_task = current();
	linger_task = thread_create("selftest-linger", linger, NULL, -1);
	KASSERT(t, linger_task != NULL);
	linger(NULL);
}

/* Fails while hang_times_out's tasks run: a SKIP, "tainted: ...". */
static void tainted_failure_is_skipped(struct ktest *t)
{
	KEXPECT(t, one == two);
}

/* Passes while tainted: a pass.  Then ends the taint: releases the
 * tasks and waits until both have ended (the runner reaps the case
 * thread before the next case; the helper is ours to join). */
static void tainted_pass_passes(struct ktest *t)
{
	uint64_t until = clock_ns() + 5 * NSEC_PER_SEC;

	KASSERT(t, hang_task && linger_task);
	WRITE_ONCE(release, true);
	thread_join(linger_task);
	while (READ_ONCE(hang_task->state) != TASK_DEAD && clock_ns() < until)
		sleep_ns(NSEC_PER_MSEC);
	KASSERT(t, READ_ONCE(hang_task->state) == TASK_DEAD);
	printk("    # selftest: hang_times_out's tasks have ended\n");
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
	KTEST_CASE(tainted_failure_is_skipped),
	KTEST_CASE(tainted_pass_passes),
	KTEST_CASE(helper_assert_fails_case),
	KTEST_CASE(passes),
	{ 0 },
};
KTEST_SUITE_EXPLICIT(ktest_selftest, selftest_cases);
