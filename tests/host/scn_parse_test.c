/*
 * scn_parse_test.c - the scenario parser (kernel/scenario/, the kernel's
 * own sources, with scn_host.c) on the host: semaphores and condvars,
 * repeat blocks, spin until, assert order, assertions about another task
 * (`of TASK`) and the raised limits.  Each good script must parse into
 * the steps it says; each broken one must be refused with exactly its
 * "line:column: message".  The in-kernel suite scenario_parse covers
 * the rest of the language the same way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"

static int failures, checks;

#define CHECK(cond, ...) do {						\
	checks++;							\
	if (!(cond)) {							\
		failures++;						\
		printf("FAIL %s:%d: ", __FILE__, __LINE__);		\
		printf(__VA_ARGS__);					\
		printf("\n");						\
	}								\
} while (0)

static struct scenario *parse(const char *src, char *err)
{
	int need;

	return scenario_parse(src, strlen(src), 4, err, &need);
}

static void bad(const char *what, const char *src, const char *want)
{
	char err[SCN_ERR_LEN];
	struct scenario *s = parse(src, err);

	CHECK(!s, "%s: accepted, expected '%s'", what, want);
	CHECK(!s && strcmp(err, want) == 0, "%s: got '%s', expected '%s'",
	      what, err, want);
	scenario_free(s);
}

static struct scenario *good(const char *what, const char *src)
{
	char err[SCN_ERR_LEN];
	struct scenario *s = parse(src, err);

	CHECK(s, "%s: refused: %s", what, err);
	return s;
}

#define HEAD "scenario t\nmutex m\nsemaphore s s2=3\ncondvar c\n"
#define TASK "task a rt prio=10 cpu=0\n"
#define ENDT "end\n"
#define ENDS "end scenario\n"
#define END ENDT ENDS
#define OTHER "task b fair\n    mark e1\n    mark e2\nend\n"

static void semaphores_and_condvars(void)
{
	struct scenario *s = good("sem/cv", HEAD TASK
		"    down s\n    up s2\n    lock m\n    cwait c m\n"
		"    signal c\n    broadcast c\n    unlock m\n" END);

	if (s) {
		const struct scn_step *st = s->tasks[0].steps;

		CHECK(s->nsems == 2 && s->nconds == 1, "counts");
		CHECK(s->sem_count[0] == 0 && s->sem_count[1] == 3,
		      "initial units %d %d", s->sem_count[0], s->sem_count[1]);
		CHECK(st[0].op == SCN_DOWN && st[0].arg == 0, "down");
		CHECK(st[1].op == SCN_UP && st[1].arg == 1, "up");
		CHECK(st[3].op == SCN_CWAIT && st[3].arg == 0 &&
		      st[3].arg2 == 0, "cwait");
		CHECK(st[4].op == SCN_SIGNAL && st[5].op == SCN_BROADCAST,
		      "signal, broadcast");
	}
	scenario_free(s);
	bad("semaphore without name", "scenario t\nsemaphore\n",
	    "2:10: semaphore needs a name");
	bad("semaphore count", "scenario t\nsemaphore s=1001\n",
	    "2:13: semaphore count 1001 out of range (0..1000)");
	bad("semaphore bad count", "scenario t\nsemaphore s=x\n",
	    "2:13: bad number 'x'");
	bad("semaphore bad name", "scenario t\nsemaphore 9s\n",
	    "2:11: bad name '9s' (letters, digits, '_' and '-', not starting "
	    "with a digit)");
	bad("duplicate semaphore", "scenario t\nsemaphore s s\n",
	    "2:13: duplicate semaphore 's'");
	bad("semaphore named like a mutex", "scenario t\nmutex m\n"
	    "semaphore m\n", "3:11: 'm' is already a mutex");
	bad("mutex named like a condvar", "scenario t\ncondvar c\nmutex c\n",
	    "3:7: 'c' is already a condvar");
	bad("duplicate condvar", "scenario t\ncondvar c d c\n",
	    "2:13: duplicate condvar 'c'");
	bad("condvar without name", "scenario t\ncondvar\n",
	    "2:8: condvar needs a name");
	bad("down unknown", HEAD TASK "    down x\n" END,
	    "6:10: unknown semaphore 'x'");
	bad("down a condvar", HEAD TASK "    down c\n" END,
	    "6:10: unknown semaphore 'c'");
	bad("up without name", HEAD TASK "    up\n" END,
	    "6:7: 'up' needs a semaphore name");
	bad("down extra", HEAD TASK "    down s now\n" END,
	    "6:12: unexpected 'now'");
	bad("signal unknown", HEAD TASK "    signal s\n" END,
	    "6:12: unknown condvar 's'");
	bad("broadcast without name", HEAD TASK "    broadcast\n" END,
	    "6:14: 'broadcast' needs a condvar name");
	bad("cwait without mutex", HEAD TASK "    cwait c\n" END,
	    "6:12: cwait needs the mutex after the condvar");
	bad("cwait not held", HEAD TASK "    cwait c m\n" END,
	    "6:13: cwait on 'c' needs 'm' held by 'a' here");
	bad("cwait unknown mutex", HEAD TASK "    cwait c x\n" END,
	    "6:13: unknown mutex 'x'");
	bad("cwait wwmutex", "scenario t\nwwmutex w\ncondvar c\n" TASK
	    "    wwlock w\n    cwait c w\n    wwunlock\n" END,
	    "6:13: 'w' is a wwmutex (cwait needs a plain mutex)");
	bad("too many semaphores", "scenario t\n"
	    "semaphore a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 b0 b1 b2 b3 b4 b5 b6\n"
	    "semaphore c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 d0 d1 d2 d3 d4 d5 d6\n"
	    "semaphore e0 e1 e2 e3 e4 e5 e6 e7 e8 e9 f0 f1 f2 f3 f4 f5 f6\n"
	    "semaphore g0 g1 g2 g3 g4 g5 g6 g7 g8 g9 h0 h1 h2 h3 h4 h5 h6\n",
	    "5:50: too many semaphores (at most 64)");
}

static void repeat_blocks(void)
{
	struct scenario *s = good("repeat", HEAD TASK "    repeat 3\n"
		"        lock m\n        assert prio 10\n        unlock m\n"
		"    end\n    yield\n" END);

	if (s) {
		const struct scn_step *st = s->tasks[0].steps;

		CHECK(s->tasks[0].nsteps == 6, "steps %d", s->tasks[0].nsteps);
		CHECK(st[0].op == SCN_REPEAT && st[0].arg == 3 &&
		      !st[0].looped, "repeat");
		CHECK(st[2].looped && st[2].num == 1, "assert inside");
		CHECK(st[4].op == SCN_END_REPEAT && st[4].arg == 0, "end");
		CHECK(!st[5].looped, "after the repeat");
	}
	scenario_free(s);
	bad("repeat without count", HEAD TASK "    repeat\n" END,
	    "6:11: repeat needs a count");
	bad("repeat 0", HEAD TASK "    repeat 0\n    yield\n    end\n" END,
	    "6:12: repeat count 0 out of range (1..10000)");
	bad("repeat too many", HEAD TASK "    repeat 10001\n" END,
	    "6:12: repeat count 10001 out of range (1..10000)");
	bad("repeat extra", HEAD TASK "    repeat 2 times\n" END,
	    "6:14: unexpected 'times'");
	bad("repeat nested", HEAD TASK "    repeat 2\n    repeat 3\n" END,
	    "7:5: 'repeat' inside the repeat at line 6 (repeats do not "
	    "nest)");
	bad("repeat empty", HEAD TASK "    repeat 2\n    end\n" END,
	    "7:5: empty repeat (line 6)");
	bad("repeat keeps a lock", HEAD TASK "    repeat 2\n    lock m\n"
	    "    end\n    unlock m\n" END,
	    "8:5: the repeat at line 6 ends holding 'm' (each time round "
	    "must release what it takes)");
	bad("repeat releases a lock", HEAD TASK "    lock m\n    repeat 2\n"
	    "    unlock m\n    end\n" END,
	    "9:5: the repeat at line 7 releases 'm', which it did not take");
	bad("repeat open at end scenario", HEAD TASK "    repeat 2\n"
	    "    yield\nend scenario\n",
	    "8:1: missing 'end' of the repeat at line 6");
	bad("repeat open at the end", HEAD TASK "    repeat 2\n    yield\n",
	    "8:1: missing 'end' of the repeat at line 6");
	bad("repeat's end closes only the repeat", HEAD TASK "    repeat 2\n"
	    "    yield\nend\n", "9:1: missing 'end' of task 'a'");
}

static void spin_until(void)
{
	struct scenario *s = good("spin", HEAD TASK "    spin until e1\n"
		"    spin until e2 within 5ms\n" ENDT OTHER ENDS);

	if (s) {
		const struct scn_step *st = s->tasks[0].steps;

		CHECK(st[0].op == SCN_SPIN && st[0].ns == 0, "unbounded");
		CHECK(st[1].op == SCN_SPIN && st[1].ns == 5000000, "bounded");
		CHECK(st[0].arg != st[1].arg, "two events");
	}
	scenario_free(s);
	bad("spin alone", HEAD TASK "    spin\n" END,
	    "6:9: expected 'until' after 'spin'");
	bad("spin for", HEAD TASK "    spin for e1\n" ENDT OTHER ENDS,
	    "6:10: expected 'until' after 'spin'");
	bad("spin until nothing", HEAD TASK "    spin until\n" END,
	    "6:15: 'spin' needs an event name");
	bad("spin until unmarked", HEAD TASK "    spin until go\n" END,
	    "6:16: unknown event 'go' (no task marks it)");
	bad("spin bad bound word", HEAD TASK "    spin until e1 for 5ms\n"
	    ENDT OTHER ENDS, "6:19: expected 'within D' or nothing after the event");
	bad("spin within nothing", HEAD TASK "    spin until e1 within\n"
	    ENDT OTHER ENDS, "6:25: 'within' needs a duration");
	bad("spin within bad", HEAD TASK "    spin until e1 within 5\n"
	    ENDT OTHER ENDS, "6:26: bad duration '5' (a number and ns, us, ms or s)");
	bad("spin within 0", HEAD TASK "    spin until e1 within 0ms\n"
	    ENDT OTHER ENDS, "6:26: spin bound 0ns (at least 1ns)");
	bad("spin extra", HEAD TASK "    spin until e1 within 1ms now\n"
	    ENDT OTHER ENDS, "6:30: unexpected 'now'");
}

static void assert_order(void)
{
	struct scenario *s = good("order", HEAD TASK
		"    assert order e1 e2\n    mark e3\n"
		"    assert order e3 e1 e2\n" ENDT OTHER ENDS);

	if (s) {
		const struct scn_step *st = s->tasks[0].steps;

		CHECK(st[0].op == SCN_A_ORDER && st[0].arg == 2 &&
		      st[0].num == 1, "two");
		CHECK(st[2].arg == 3 && s->text[st[2].text] - 1 == 2 &&
		      s->text[st[2].text + 1] - 1 == 0, "three, in order");
	}
	scenario_free(s);
	bad("order alone", HEAD TASK "    assert order\n" END,
	    "6:17: assert order needs at least two events");
	bad("order of one", HEAD TASK "    assert order e1\n" ENDT OTHER ENDS,
	    "6:20: assert order needs at least two events");
	bad("order twice", HEAD TASK "    assert order e1 e2 e1\n" ENDT OTHER ENDS,
	    "6:24: event 'e1' twice in assert order");
	bad("order unmarked", HEAD TASK "    assert order e1 go\n" ENDT OTHER ENDS,
	    "6:21: unknown event 'go' (no task marks it)");
	bad("order bad name", HEAD TASK "    assert order e1 2x\n" ENDT OTHER ENDS,
	    "6:21: bad name '2x' (letters, digits, '_' and '-', not starting "
	    "with a digit)");
	bad("order too long", HEAD TASK "    assert order a b c d e f g h i j "
	    "k l m n o p q\n" ENDT OTHER ENDS,
	    "6:50: too many events in assert order (at most 16)");
}

static void assert_of_task(void)
{
	struct scenario *s = good("of", HEAD TASK
		"    assert class rt of b\n    assert prio 10 of self\n"
		"    assert donor a of b\n    assert donor self of b\n" ENDT
		OTHER ENDS);

	if (s) {
		const struct scn_step *st = s->tasks[0].steps;

		CHECK(st[0].op == SCN_A_CLASS && st[0].who == 1, "class of b");
		CHECK(st[1].op == SCN_A_PRIO && st[1].who == -1, "of self");
		CHECK(st[2].op == SCN_A_DONOR && st[2].who == 1 &&
		      st[2].arg == 0, "donor a of b");
		CHECK(st[3].arg == -1 && st[3].who == 1, "donor self of b");
	}
	scenario_free(s);
	s = good("plain assertions stay mine", HEAD TASK
		 "    assert class rt\n" END);
	CHECK(s && s->tasks[0].steps[0].who == -1, "no of: me");
	scenario_free(s);
	bad("of nothing", HEAD TASK "    assert class rt of\n" END,
	    "6:23: 'of' needs a task name");
	bad("of unknown", HEAD TASK "    assert prio 5 of zed\n" END,
	    "6:22: unknown task 'zed'");
	bad("of bad name", HEAD TASK "    assert class rt of 1b\n" END,
	    "6:24: bad name '1b' (letters, digits, '_' and '-', not starting "
	    "with a digit)");
	bad("of extra", HEAD TASK "    assert donor self of b now\n" ENDT
	    OTHER ENDS, "6:28: unexpected 'now'");
	bad("not of", HEAD TASK "    assert class rt for b\n" ENDT OTHER ENDS,
	    "6:21: unexpected 'for'");
	bad("unknown donor of", HEAD TASK "    assert donor zed of b\n" ENDT
	    OTHER ENDS, "6:18: unknown task 'zed'");
}

/* Limits: 64 tasks, mutexes, events; one more of each is refused. */
static void limits(void)
{
	size_t size = SCN_MAX_BYTES, n;
	char *buf = malloc(size), err[SCN_ERR_LEN], want[SCN_ERR_LEN];
	struct scenario *s;
	int need;

	n = snprintf(buf, size, "scenario t\n");
	for (int i = 0; i < 64; i++)
		n += snprintf(buf + n, size - n, "mutex m%d\n", i);
	for (int i = 0; i < 64; i++)
		n += snprintf(buf + n, size - n, "task t%d fair\n    lock m%d\n"
			      "    mark e%d\n    unlock m%d\nend\n", i, i, i, i);
	snprintf(buf + n, size - n, "end scenario\n");
	s = good("64 tasks, mutexes, events", buf);
	CHECK(s && s->ntasks == 64 && s->nmutexes == 64 && s->nevents == 64,
	      "64 of each");
	scenario_free(s);

	snprintf(buf + n, size - n, "mutex x\n");
	snprintf(want, sizeof(want), "%d:7: too many mutexes (at most 64)",
		 2 + 64 + 64 * 5);
	bad("mutex 65", buf, want);
	n = snprintf(buf, size, "scenario t\n");
	for (int i = 0; i < 65; i++)
		n += snprintf(buf + n, size - n, "task t%d fair\nend\n", i);
	snprintf(want, sizeof(want), "%d:1: too many tasks (at most 64)",
		 2 + 64 * 2);
	bad("task 65", buf, want);
	n = snprintf(buf, size, "scenario t\ntask a fair\n");
	for (int i = 0; i < 65; i++)
		n += snprintf(buf + n, size - n, "    mark e%d\n", i);
	snprintf(want, sizeof(want), "%d:10: too many events (at most 64)",
		 3 + 64);
	bad("event 65", buf, want);
	n = snprintf(buf, size, "scenario t\n");
	for (int i = 0; i < 5; i++) {
		n += snprintf(buf + n, size - n, "task t%d fair\n", i);
		for (int j = 0; j < 64; j++)
			n += snprintf(buf + n, size - n, "    set cpu=0\n");
		n += snprintf(buf + n, size - n, "end\n");
	}
	snprintf(buf + n, size - n, "end scenario\n");
	snprintf(want, sizeof(want), "%d:5: too many set steps (at most 256)",
		 1 + 4 * 66 + 2);
	bad("set 257", buf, want);
	free(buf);

	/* what a parse holds stays a reasonable kmalloc */
	CHECK(sizeof(struct scenario) < 256 * 1024, "struct scenario is %zu "
	      "bytes", sizeof(struct scenario));
	{
		static const char src[] = "scenario t\ncpus 8\ntask a fair\n"
					  "end\nend scenario\n";

		s = scenario_parse(src, sizeof(src) - 1, 4, err, &need);
	}
	CHECK(!s && need == 8 && strcmp(err, "2:6: needs 8 CPUs, 4 online") == 0,
	      "cpus above online: '%s' need %d", err, need);
}

int main(void)
{
	semaphores_and_condvars();
	repeat_blocks();
	spin_until();
	assert_order();
	assert_of_task();
	limits();
	printf("scn_parse_test: %d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}
