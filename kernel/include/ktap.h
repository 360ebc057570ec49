/*
 * ktap.h - the one writer of KTAP version 1 lines
 * (https://docs.kernel.org/dev-tools/ktap.html), used by the test
 * framework (kernel/ktest.c) and the scenario engine (kernel/scenario/).
 * The host runner (tools/runner.py, parse_ktap) reads what it writes;
 * docs/testing.md, "KTAP output", shows a whole run:
 *
 *   KTAP version 1                      ktap_header(&top, NULL, 2)
 *   1..2
 *       KTAP version 1                  ktap_header(&sub, "spinlock", 2)
 *       # Subtest: spinlock
 *       1..2
 *       # tests/spinlock.c:40: ...      ktap_diag(&sub, "%s:%d: ...", ...)
 *       not ok 1 counter_exact          ktap_result(&sub, false, 1, ...)
 *       ok 2 trylock # SKIP needs 2     ktap_skip(&sub, 2, "trylock", ...)
 *   not ok 1 spinlock                   ktap_result(&top, false, 1, ...)
 *   ...
 *   # Totals: pass:1 fail:1 skip:1 total:3     ktap_totals(&top, ...)
 *
 * A writer is a depth (a subtest's lines are indented four spaces more
 * than its parent's, and its own result line is its parent's) and, for
 * KTAP that runs inside a test case (a scenario run by a ktest case),
 * a quote: every line then goes out unindented after that prefix, as a
 * diagnostic of the enclosing case ("    # scenario: ok 1 finished"),
 * so that the runner does not take it for the suite's own KTAP.
 *
 * Every line is one printk(): lines from other CPUs never split it.  A
 * line is at most KTAP_LINE_MAX - 1 characters, printk's own limit.
 * Any context in which printk may be called.
 */
#ifndef KTAP_H
#define KTAP_H
#include "kernel.h"

#define KTAP_LINE_MAX 256

struct ktap {
	int depth;		/* 0: the top level; 4 spaces a level */
	const char *quote;	/* NULL, or the prefix of every line */
};

/* The writer of a subtest's lines, one level below @k. */
static inline struct ktap ktap_nested(const struct ktap *k)
{
	return (struct ktap){ .depth = k->depth + 1, .quote = k->quote };
}

/* "KTAP version 1", then "# Subtest: NAME" unless @name is NULL (the
 * top level), then the plan "1..N". */
void ktap_header(const struct ktap *k, const char *name, int plan);

/* How a result line ends: " # SKIP reason" (neither pass nor fail),
 * " # TODO reason" (a known failure), or " # TIMEOUT" (Kestrel's: a case
 * that did not finish; the runner reads it as a failure). */
enum ktap_directive { KTAP_NONE, KTAP_SKIP, KTAP_TODO, KTAP_TIMEOUT };

/*
 * "ok N NAME" or "not ok N NAME", with directive @d and its @reason
 * (NULL: none; KTAP_NONE takes none).
 */
void ktap_result(const struct ktap *k, bool ok, int n, const char *name,
		 enum ktap_directive d, const char *reason);
/* "ok N NAME # SKIP <reason, formatted>". */
void ktap_skip(const struct ktap *k, int n, const char *name,
	       const char *fmt, ...) __printf(4, 5);
/* A diagnostic line, "# <text>".  It explains the result after it. */
void ktap_diag(const struct ktap *k, const char *fmt, ...) __printf(2, 3);
/* "# Totals: pass:P fail:F skip:S total:T", after the last result. */
void ktap_totals(const struct ktap *k, int pass, int fail, int skip);
/*
 * The start of a diagnostic line of @k, followed by @what, into @buf:
 * for code that prints diagnostic lines of its own, given a prefix
 * (sched_verify_print_miss()).  Returns @buf.
 */
char *ktap_diag_prefix(const struct ktap *k, const char *what, char *buf,
		       size_t len);
#endif
