/*
 * ktest.h - in-kernel tests in the style of KUnit, reporting KTAP v1.
 *
 *   static void spin_counter_exact(struct ktest *t) {
 *           ...
 *           KEXPECT_EQ(t, counter, expected);
 *   }
 *   static struct ktest_case spinlock_cases[] = {
 *           KTEST_CASE(spin_counter_exact),
 *           {0}
 *   };
 *   KTEST_SUITE(spinlock, spinlock_cases);
 *
 * KEXPECT_* records a failure and continues; KASSERT_* records it and ends
 * the case at once; KSKIP(t, "needs >= 2 CPUs") ends the case as skipped.
 * Each case runs in its own thread with a timeout (default 10 s of
 * kernel time, or .timeout_ms); a case that does not finish is reported
 * "not ok ... # TIMEOUT" and the suite goes on.  Every task a case
 * creates (directly or not) belongs to it (task->ktest_id); if some
 * outlive a timeout by a grace period, the cases after it run "tainted"
 * until they end: a tainted case that fails is reported as
 * "ok ... # SKIP tainted: <case> left <tasks> running".
 *
 * Suites are placed in the "ktest_suites" linker section.
 *
 * KTEST_SUITE_EXPLICIT(name, cases) registers a suite that runs only when
 * it is named (`ktest=name`, shell `test name`), never as part of "all"
 * (`ktest=all`, shell `test` without arguments).  It is for suites that
 * fail on purpose: ktest_selftest checks the framework's own promises
 * (EXPECT continues, ASSERT aborts, SKIP reason, TIMEOUT) and the host
 * runner judges its output case by case.
 */
#ifndef KTEST_H
#define KTEST_H
#include "kernel.h"

struct ktest;

struct ktest_case {
	const char *name;
	void (*run)(struct ktest *t);
	unsigned timeout_ms;		/* 0: default */
};

struct ktest_suite {
	const char *name;
	struct ktest_case *cases;	/* terminated by {0} */
	bool explicit_only;		/* not in "all": run only when named */
};

/* State of the running case. */
struct ktest {
	const struct ktest_case *tcase;
	int failures;
	bool skipped;
	char skip_reason[96];
	void *priv;
};

#define KTEST_CASE(fn) { .name = #fn, .run = fn }
#define KTEST_CASE_TIMEOUT(fn, ms) { .name = #fn, .run = fn, .timeout_ms = (ms) }
#define __KTEST_SUITE(sname, scases, explicit)                              \
	static const struct ktest_suite __ktest_suite_##sname                \
		__attribute__((used, section("ktest_suites"), aligned(8))) = \
		{ .name = #sname, .cases = scases, .explicit_only = explicit }
#define KTEST_SUITE(sname, scases) __KTEST_SUITE(sname, scases, false)
#define KTEST_SUITE_EXPLICIT(sname, scases) __KTEST_SUITE(sname, scases, true)

void ktest_fail(struct ktest *t, const char *file, int line,
		const char *fmt, ...) __printf(4, 5);
void ktest_abort(struct ktest *t) __noreturn;
void ktest_skip(struct ktest *t, const char *reason) __noreturn;

#define KEXPECT(t, cond)                                                  \
	do {                                                              \
		if (!(cond))                                              \
			ktest_fail(t, __FILE__, __LINE__, "expected %s", #cond); \
	} while (0)
#define KEXPECT_EQ(t, a, b)                                               \
	do {                                                              \
		long long __a = (long long)(a), __b = (long long)(b);     \
		if (__a != __b)                                           \
			ktest_fail(t, __FILE__, __LINE__,                 \
				   "expected %s == %s (%lld vs %lld)", #a, #b, __a, __b); \
	} while (0)
#define KASSERT(t, cond)                                                  \
	do {                                                              \
		if (!(cond)) {                                            \
			ktest_fail(t, __FILE__, __LINE__, "assertion %s", #cond); \
			ktest_abort(t);                                   \
		}                                                         \
	} while (0)
#define KASSERT_EQ(t, a, b)                                               \
	do {                                                              \
		long long __a = (long long)(a), __b = (long long)(b);     \
		if (__a != __b) {                                         \
			ktest_fail(t, __FILE__, __LINE__,                 \
				   "assertion %s == %s (%lld vs %lld)", #a, #b, __a, __b); \
			ktest_abort(t);                                   \
		}                                                         \
	} while (0)
#define KSKIP(t, reason) ktest_skip(t, reason)

/*
 * Run the suites named in @names (NULL/empty or the one name "all": every
 * suite except the explicit-only ones), print KTAP v1, return the number
 * of failed cases (an unknown name counts as one).  Task context; the
 * caller sleeps while each case runs in a thread of its own.
 */
int ktest_run(const char *const *names, int nnames);
/*
 * Ask the running ktest_run() to stop (the shell's Ctrl-C): the case
 * that runs finishes (or times out) as usual, every case after it is
 * reported "# SKIP stopped on request" and ktest_run() returns.  A case
 * cannot be killed safely (its threads may hold locks), so this waits
 * for the case instead.  Any context.  Returns 0, or -ESRCH if no test
 * runs.
 */
int ktest_stop(void);
/* Print every suite with its case count, for `help`/`test ?`;
 * explicit-only suites are marked "(only when named)". */
void ktest_list(void);
#endif
