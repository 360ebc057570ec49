/*
 * scenario_parse.c - the scenario language (kernel/scenario/): a table
 * of broken scripts, each refused with exactly the expected
 * "line:column: message" and each followed by a valid script that must
 * still parse (the parser keeps no state from a failure); then small
 * scenarios run through scenario_run(): a pass, a failed assertion, a
 * deadlock and an overrun each stopped and reported, and a scenario that
 * runs normally afterwards, with the locking mode restored.
 */
#include "ktest.h"
#include "scenario.h"
#include "cpu.h"
#include "mm.h"
#include "blocked_on.h"
#include "mutex.h"
#include "../kernel/scenario/steps.h"
#include <printf.h>
#include <string.h>

#define HEAD "scenario t\nmutex m\n"
#define TASK "task a fair cpu=0\n"
#define END "end\nend scenario\n"
#define WW "scenario t\nwwmutex a b\n"

static const char valid[] =
	"# a comment\n"
	"scenario ok\n"
	"cpus 1\n"
	"locking proxy\n"
	"timeout 2s\n"
	"mutex m n\n"
	"task a fair nice=-5 cpu=0 start=1ms\n"
	"    lock m\n"
	"    trylock n ok\n"
	"    compute 1ms\n"
	"    unlock n\n"
	"    set rt rr prio=10\n"
	"    assert class rt\n"
	"    mark done\n"
	"    unlock m\n"
	"end\n"
	"task b deadline runtime=1ms deadline=10ms cpus=all\n"
	"    wait done\n"
	"    print hello, world\n"
	"    assert donor self\n"
	"    assert not happened other\n"
	"    assert elapsed < 10s\n"
	"end\n"
	"task c rt prio=1\n"
	"    mark other\n"
	"end\n"
	"end scenario\n";

struct bad_input {
	const char *what;
	const char *src;
	const char *err;
};

static const struct bad_input bad[] = {
	{ "unknown keyword", HEAD "frobnicate 3\n",
	  "3:1: unknown keyword 'frobnicate'" },
	{ "unknown step", HEAD TASK "    jump m\n" END,
	  "4:5: unknown keyword 'jump'" },
	{ "bad number", "scenario t\ncpus x1\n", "2:6: bad number 'x1'" },
	{ "bad duration", HEAD TASK "    compute 10\n" END,
	  "4:13: bad duration '10' (a number and ns, us, ms or s)" },
	{ "unknown mutex", HEAD TASK "    lock mx\n" END,
	  "4:10: unknown mutex 'mx'" },
	{ "unlock not held", HEAD TASK "    unlock m\n" END,
	  "4:12: unlock of 'm', not held by 'a' here" },
	{ "unlock after unlock", HEAD TASK "    lock m\n    unlock m\n"
	  "    unlock m\n" END, "6:12: unlock of 'm', not held by 'a' here" },
	{ "lock held", HEAD TASK "    lock m\n    lock m\n" END,
	  "5:10: 'm' is already held by 'a' here" },
	{ "ends holding", HEAD TASK "    lock m\n" END,
	  "5:1: task 'a' ends holding 'm'" },
	{ "too many CPUs", "scenario t\ncpus 65\n",
	  "2:6: cpus 65 out of range (1..64)" },
	{ "cpu= outside", "scenario t\ncpus 2\ntask a fair cpu=3\n" END,
	  "3:17: cpu 3 outside the scenario's cpus 0..1 (declare 'cpus 4')" },
	{ "missing end marker", HEAD TASK "end\n",
	  "5:1: missing 'end scenario'" },
	{ "missing task end", HEAD TASK "    yield\n",
	  "5:1: missing 'end' of task 'a'" },
	{ "end scenario in a task", HEAD TASK "end scenario\n",
	  "4:1: missing 'end' of task 'a'" },
	{ "huge duration", HEAD TASK "    sleep 99999999999999999999999s\n" END,
	  "4:11: duration '99999999999999999999999s' out of range "
	  "(at most 60s)" },
	{ "duration over 60s", HEAD TASK "    compute 61s\n" END,
	  "4:13: duration '61s' out of range (at most 60s)" },
	{ "huge number", "scenario t\ncpus 99999999999999999999\n",
	  "2:6: number '99999999999999999999' too large" },
	{ "prio 0", HEAD "task a rt prio=0\n" END,
	  "3:16: prio 0 out of range (1..99)" },
	{ "prio 100", HEAD "task a rt prio=100\n" END,
	  "3:16: prio 100 out of range (1..99)" },
	{ "nice 20", HEAD "task a fair nice=20\n" END,
	  "3:18: nice 20 out of range (-20..19)" },
	{ "rt without prio", HEAD "task a rt fifo\n" END,
	  "3:8: rt needs prio=1..99" },
	{ "unknown class", HEAD "task a idle\n" END,
	  "3:8: unknown class 'idle' (fair, rt, deadline)" },
	{ "parameter of another class", HEAD "task a fair prio=3\n" END,
	  "3:13: 'prio=3' is not a parameter of class fair" },
	{ "deadline shorter than runtime",
	  HEAD "task a deadline runtime=2ms deadline=1ms\n" END,
	  "3:38: deadline 1ms is shorter than runtime 2ms" },
	{ "deadline runtime 1us",
	  HEAD "task a deadline runtime=1us deadline=1us\n" END,
	  "3:25: runtime 1us is below the minimum 10us" },
	{ "deadline runtime 1024ns",
	  HEAD "task a deadline runtime=1024ns deadline=1024ns\n" END,
	  "3:25: runtime 1024ns is below the minimum 10us" },
	{ "deadline runtime just below the minimum",
	  HEAD "task a deadline runtime=9999ns deadline=1ms\n" END,
	  "3:25: runtime 9999ns is below the minimum 10us" },
	{ "deadline as period below the minimum",
	  HEAD "task a deadline runtime=10us deadline=99us\n" END,
	  "3:39: deadline 99us is below the minimum period 100us (no "
	  "period=: the deadline is the period)" },
	{ "deadline period just below the minimum",
	  HEAD "task a deadline runtime=10us deadline=10us period=99999ns\n"
	  END, "3:51: period 99999ns is below the minimum period 100us" },
	{ "deadline period shorter than deadline",
	  HEAD "task a deadline runtime=1ms deadline=2ms period=1ms\n" END,
	  "3:49: period 1ms is shorter than deadline 2ms" },
	{ "deadline period over the maximum",
	  HEAD "task a deadline runtime=1ms deadline=1ms period=5s\n" END,
	  "3:49: period 5s is above the maximum period 4s" },
	{ "deadline runtime 1us in set",
	  HEAD TASK "    set deadline runtime=1us deadline=1ms\n" END,
	  "4:26: runtime 1us is below the minimum 10us" },
	{ "duplicate mutex", "scenario t\nmutex m n m\n",
	  "2:11: duplicate mutex 'm'" },
	{ "duplicate task", HEAD TASK "end\n" TASK END,
	  "5:6: duplicate task 'a'" },
	{ "unknown event", HEAD TASK "    wait go\n" END,
	  "4:10: unknown event 'go' (no task marks it)" },
	{ "unknown task", HEAD TASK "    assert donor b\n" END,
	  "4:18: unknown task 'b'" },
	{ "unknown assertion", HEAD TASK "    assert mood happy\n" END,
	  "4:12: unknown assertion 'mood' (class, prio, donor, cpu, "
	  "happened, not happened, elapsed, backoffs, order)" },
	{ "assert cpu outside", HEAD TASK "    assert cpu 1\n" END,
	  "4:16: cpu 1 out of range (0..0)" },
	{ "assert alone", HEAD TASK "    assert\n" END,
	  "4:11: assert needs what to check (class, prio, donor, cpu, "
	  "happened, not happened, elapsed, backoffs, order)" },
	{ "unknown assertion without value", HEAD TASK "    assert mood\n" END,
	  "4:16: assert mood needs a value" },
	{ "assert class without value", HEAD TASK "    assert class\n" END,
	  "4:17: assert class needs a value" },
	{ "assert not without happened", HEAD TASK "    assert not done\n"
	  END, "4:16: expected 'happened' after 'assert not'" },
	{ "assert not happened without value", HEAD TASK
	  "    assert not happened\n" END,
	  "4:24: assert not happened needs a value" },
	{ "assert elapsed without bound", HEAD TASK "    assert elapsed\n"
	  END, "4:19: assert elapsed needs a value" },
	{ "assert elapsed bad comparison", HEAD TASK
	  "    assert elapsed = 1ms\n" END,
	  "4:20: expected '<' or '>' after 'assert elapsed'" },
	{ "assert elapsed without duration", HEAD TASK
	  "    assert elapsed <\n" END,
	  "4:21: assert elapsed needs a duration" },
	{ "assert elapsed extra word", HEAD TASK
	  "    assert elapsed > 1ms 2ms\n" END, "4:26: unexpected '2ms'" },
	{ "assert prio out of range", HEAD TASK "    assert prio 100\n" END,
	  "4:17: prio 100 out of range (1..99)" },
	{ "assert donor bad name", HEAD TASK "    assert donor 9x\n" END,
	  "4:18: bad name '9x' (letters, digits, '_' and '-', not "
	  "starting with a digit)" },
	{ "lock without a mutex", HEAD TASK "    lock\n" END,
	  "4:9: 'lock' needs a mutex name" },
	{ "mark without an event", HEAD TASK "    mark\n" END,
	  "4:9: 'mark' needs an event name" },
	{ "sleep without a duration", HEAD TASK "    sleep\n" END,
	  "4:10: 'sleep' needs a duration" },
	{ "header statement in a task", HEAD TASK "    mutex n\n" END,
	  "4:5: 'mutex' inside task 'a' (missing 'end'?)" },
	{ "wwclass in a task", HEAD TASK "    wwclass wait-die\n" END,
	  "4:5: 'wwclass' inside task 'a' (missing 'end'?)" },
	{ "end outside a task", HEAD "end\n",
	  "3:1: 'end' outside a task (the end marker is 'end scenario')" },
	{ "scenario twice", "scenario t\nscenario u\n",
	  "2:1: 'scenario' given twice" },
	{ "header given twice", "scenario t\nexpect pass\nexpect pass\n",
	  "3:1: 'expect' given twice" },
	{ "header without value", "scenario t\ntimeout\n",
	  "2:8: 'timeout' needs a value" },
	{ "unknown expectation", "scenario t\nexpect win\n",
	  "2:8: unknown expectation 'win' (pass, deadlock, timeout)" },
	{ "task alone", HEAD "task\n",
	  "3:5: task needs a name and a class" },
	{ "trylock without outcome", HEAD TASK "    trylock m\n" END,
	  "4:14: trylock needs 'ok' or 'busy' after the mutex" },
	{ "unknown locking mode", "scenario t\nlocking magic\n",
	  "2:9: unknown locking mode 'magic' (proxy, inherit, none)" },
	{ "header after a task", HEAD TASK "end\ncpus 1\n",
	  "5:1: 'cpus' must come before the first task" },
	{ "not scenario first", "mutex m\n",
	  "1:1: expected 'scenario NAME' first" },
	{ "empty", "# nothing\n\n",
	  "3:1: empty script (expected 'scenario NAME')" },
	{ "no task", "scenario t\nend scenario\n",
	  "3:1: scenario 't' has no task" },
	{ "text after end", HEAD TASK END "mutex late\n",
	  "6:1: text after 'end scenario'" },
	{ "extra word", HEAD TASK "    yield now\n" END,
	  "4:11: unexpected 'now'" },
	{ "bad name", "scenario 9lives\n",
	  "1:10: bad name '9lives' (letters, digits, '_' and '-', not "
	  "starting with a digit)" },
	{ "binary garbage", "scenario t\n\x01\x02\x7f\n",
	  "2:1: bad byte 0x01 (not printable text)" },
	{ "high byte", "scenario t\nmutex m\xff\n",
	  "2:8: bad byte 0xff (not printable text)" },
	{ "NUL byte", "scenario t\0\n", "1:11: bad byte 0x00 (not printable "
	  "text)" },
	{ "timeout too short", "scenario t\ntimeout 10us\n",
	  "2:9: timeout below 1ms" },
	/* wound/wait steps (kernel/scenario/ww_parse.c) */
	{ "unknown wwclass", "scenario t\nwwclass wound-die\n",
	  "2:9: unknown wwclass 'wound-die' (wound-wait, wait-die)" },
	{ "wwclass after a task", WW TASK "end\nwwclass wait-die\n",
	  "5:1: 'wwclass' must come before the first task" },
	{ "wwmutex without a name", "scenario t\nwwmutex\n",
	  "2:8: wwmutex needs a name" },
	{ "mutex and wwmutex share names", WW "mutex a\n",
	  "3:7: duplicate mutex 'a'" },
	{ "lock of a wwmutex", WW TASK "    lock a\n" END,
	  "4:10: 'a' is a wwmutex (use wwlock and wwunlock)" },
	{ "trylock of a wwmutex", WW TASK "    trylock a ok\n" END,
	  "4:13: 'a' is a wwmutex (use wwlock and wwunlock)" },
	{ "wwlock of a plain mutex", HEAD TASK "    wwlock m\n" END,
	  "4:12: 'm' is not a wwmutex (declare it with 'wwmutex')" },
	{ "wwlock without a name", WW TASK "    wwlock\n" END,
	  "4:11: wwlock needs a wwmutex name" },
	{ "wwlock unknown", WW TASK "    wwlock a c\n" END,
	  "4:14: unknown mutex 'c'" },
	{ "wwlock twice in one step", WW TASK "    wwlock a b a\n"
	  "    wwunlock\n" END, "4:16: 'a' is already held by 'a' here" },
	{ "wwlock of one held", WW TASK "    wwlock a\n    wwlock a\n" END,
	  "5:12: 'a' is already held by 'a' here" },
	{ "wwunlock without wwlock", WW TASK "    wwunlock\n" END,
	  "4:5: wwunlock, but 'a' holds no wwmutex here" },
	{ "wwunlock with a name", WW TASK "    wwlock a\n    wwunlock a\n" END,
	  "5:14: unexpected 'a'" },
	{ "ends in a ww context", WW TASK "    wwlock b\n" END,
	  "5:1: task 'a' ends holding 'b'" },
	{ "backoffs without comparison", WW TASK "    assert backoffs 1\n"
	  END, "4:21: expected '=', '<', '>', '<=' or '>=' after 'assert "
	  "backoffs'" },
	{ "backoffs without number", WW TASK "    assert backoffs >=\n" END,
	  "4:23: assert backoffs needs a number" },
	{ "backoffs bad number", WW TASK "    assert backoffs = -1\n" END,
	  "4:23: bad number '-1'" },
	{ "backoffs out of range", WW TASK "    assert backoffs < 10001\n"
	  END, "4:23: backoffs 10001 out of range (0..10000)" },
};

/* The NUL-byte input is one byte longer than strlen() says. */
static size_t bad_len(const struct bad_input *b)
{
	size_t n = strlen(b->src);

	return strcmp(b->what, "NUL byte") == 0 ? n + 2 : n;
}

static void expect_error(struct ktest *t, const char *what, const char *src,
			 size_t len, const char *want)
{
	char err[SCN_ERR_LEN];
	struct scenario *s;
	int need;

	s = scenario_parse(src, len, cpus_online(), err, &need);
	if (s) {
		ktest_fail(t, __FILE__, __LINE__, "%s: parsed, want '%s'",
			   what, want);
		scenario_free(s);
	} else if (strcmp(err, want) != 0) {
		ktest_fail(t, __FILE__, __LINE__, "%s: got '%s', want '%s'",
			   what, err, want);
	}
	/* And the parser goes on working. */
	s = scenario_parse(valid, sizeof(valid) - 1, cpus_online(), err,
			   &need);
	if (!s)
		ktest_fail(t, __FILE__, __LINE__, "after %s: valid script "
			   "refused: %s", what, err);
	scenario_free(s);
}

static void broken_inputs_give_their_error(struct ktest *t)
{
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		expect_error(t, bad[i].what, bad[i].src, bad_len(&bad[i]),
			     bad[i].err);
}

/* Limits that need generated inputs: long lines, big scripts, many
 * tasks and steps, more CPUs than online. */
static void limits_are_errors(struct ktest *t)
{
	size_t size = SCN_MAX_BYTES + 64, n;
	char *buf = kmalloc(size), want[SCN_ERR_LEN];

	KASSERT(t, buf != NULL);
	n = snprintf(buf, size, "scenario t\nmutex ");
	memset(buf + n, 'x', 200);
	buf[n + 200] = '\n';
	expect_error(t, "line too long", buf, n + 201,
		     "2:161: line too long (at most 160 characters)");

	memset(buf, '\n', SCN_MAX_BYTES + 1);
	snprintf(want, sizeof(want), "1:1: script too long (%d bytes, at "
		 "most %d)", SCN_MAX_BYTES + 1, SCN_MAX_BYTES);
	expect_error(t, "script too long", buf, SCN_MAX_BYTES + 1, want);

	n = snprintf(buf, size, "scenario t\n");
	for (int i = 0; i <= SCN_MAX_TASKS; i++)
		n += snprintf(buf + n, size - n, "task t%d fair\nend\n", i);
	n += snprintf(buf + n, size - n, "end scenario\n");
	snprintf(want, sizeof(want), "%d:1: too many tasks (at most %d)",
		 2 + 2 * SCN_MAX_TASKS, SCN_MAX_TASKS);
	expect_error(t, "too many tasks", buf, n, want);

	/* one mutex a line: the 65th is on line 2 + SCN_MAX_MUTEXES */
	n = snprintf(buf, size, "scenario t\n");
	for (int i = 0; i <= SCN_MAX_MUTEXES; i++)
		n += snprintf(buf + n, size - n, "mutex m%d\n", i);
	snprintf(want, sizeof(want), "%d:7: too many mutexes (at most %d)",
		 2 + SCN_MAX_MUTEXES, SCN_MAX_MUTEXES);
	expect_error(t, "too many mutexes", buf, n, want);

	n = snprintf(buf, size, "scenario t\ntask a fair\n");
	for (int i = 0; i <= SCN_MAX_STEPS; i++)
		n += snprintf(buf + n, size - n, "    yield\n");
	n += snprintf(buf + n, size - n, "end\nend scenario\n");
	snprintf(want, sizeof(want), "%d:5: too many steps in task 'a' (at "
		 "most %d)", 3 + SCN_MAX_STEPS, SCN_MAX_STEPS);
	expect_error(t, "too many steps", buf, n, want);

	if (cpus_online() < NR_CPUS) {
		n = snprintf(buf, size, "scenario t\ncpus %d\ntask a fair\n"
			     "end\nend scenario\n", cpus_online() + 1);
		snprintf(want, sizeof(want), "2:6: needs %d CPUs, %d online",
			 cpus_online() + 1, cpus_online());
		expect_error(t, "more CPUs than online", buf, n, want);
	}
	kfree(buf);
}

/* The parse of the valid script: what the runner will be given. */
static void valid_script_parses_whole(struct ktest *t)
{
	char err[SCN_ERR_LEN];
	struct scenario *s;
	int need;

	s = scenario_parse(valid, sizeof(valid) - 1, 1, err, &need);
	KASSERT(t, s != NULL);
	KEXPECT_EQ(t, s->ntasks, 3);
	KEXPECT_EQ(t, s->nmutexes, 2);
	KEXPECT_EQ(t, s->nasserts, 5);		/* trylock + 4 asserts */
	KEXPECT_EQ(t, s->timeout_ns, 2 * NSEC_PER_SEC);
	KEXPECT_EQ(t, s->tasks[0].start_ns, NSEC_PER_MSEC);
	KEXPECT_EQ(t, s->tasks[0].sched.attr.nice, -5);
	KEXPECT_EQ(t, s->sets[s->tasks[0].steps[4].arg].attr.policy, SCHED_RR);
	KEXPECT_EQ(t, s->tasks[1].sched.attr.dl_period, 10 * NSEC_PER_MSEC);
	KEXPECT(t, strcmp(s->text + s->tasks[1].steps[1].text,
			  "hello, world") == 0);
	scenario_free(s);
}

/* Deadline parameters right at the limits of sched.h parse, on task
 * lines and in `set` (one nanosecond outside is in the bad[] table). */
static void deadline_limits_inclusive(struct ktest *t)
{
	static const char src[] =
		"scenario d\n"
		"task a deadline runtime=10us deadline=100us\n"
		"    set deadline runtime=10us deadline=10us period=100us\n"
		"end\n"
		"task b deadline runtime=10us deadline=1ms period=4s\n"
		"end\nend scenario\n";
	char err[SCN_ERR_LEN];
	struct scenario *s;
	int need;

	s = scenario_parse(src, sizeof(src) - 1, 1, err, &need);
	if (!s)
		ktest_fail(t, __FILE__, __LINE__, "refused: %s", err);
	KASSERT(t, s != NULL);
	KEXPECT_EQ(t, s->tasks[0].sched.attr.dl_runtime, DL_RUNTIME_MIN_NS);
	KEXPECT_EQ(t, s->tasks[0].sched.attr.dl_period, DL_PERIOD_MIN_NS);
	KEXPECT_EQ(t, s->sets[s->tasks[0].steps[0].arg].attr.dl_period,
		   DL_PERIOD_MIN_NS);
	KEXPECT_EQ(t, s->tasks[1].sched.attr.dl_period, DL_PERIOD_MAX_NS);
	scenario_free(s);
}

/* A ww script: the class, which mutexes are ww, wwlock's order and the
 * comparison of `assert backoffs`. */
static void ww_script_parses_whole(struct ktest *t)
{
	static const char src[] =
		"scenario w\nwwclass wait-die\nmutex m\nwwmutex x y z\n"
		"task a fair\n    wwlock z x\n    lock m\n    wwlock y\n"
		"    unlock m\n    assert backoffs <= 2\n    wwunlock\n"
		"end\nend scenario\n";
	char err[SCN_ERR_LEN];
	struct scenario *s;
	int need;

	s = scenario_parse(src, sizeof(src) - 1, 1, err, &need);
	if (!s)
		ktest_fail(t, __FILE__, __LINE__, "refused: %s", err);
	KASSERT(t, s != NULL);
	KEXPECT(t, s->wait_die);
	KEXPECT_EQ(t, s->ww, 0xeu);		/* x y z, not m */
	KEXPECT_EQ(t, s->tasks[0].steps[0].op, SCN_WWLOCK);
	KEXPECT_EQ(t, s->tasks[0].steps[0].arg, 2);
	/* the list in the texts, index + 1 each: z first */
	KEXPECT_EQ(t, s->text[s->tasks[0].steps[0].text], 3 + 1);
	KEXPECT_EQ(t, s->text[s->tasks[0].steps[0].text + 1], 1 + 1);
	KEXPECT_EQ(t, s->tasks[0].steps[4].op, SCN_A_BACKOFFS);
	KEXPECT_EQ(t, s->tasks[0].steps[4].ns, SCN_CMP_LE);
	KEXPECT_EQ(t, s->tasks[0].steps[4].arg, 2);
	KEXPECT_EQ(t, s->tasks[0].steps[5].op, SCN_WWUNLOCK);
	KEXPECT_EQ(t, s->nasserts, 1);
	scenario_free(s);
}

/* Does @name start with the words of @head ("assert elapsed" of
 * "assert elapsed <")? */
static bool word_prefix(const char *head, const char *name)
{
	size_t n = strlen(head);

	return strncmp(name, head, n) == 0 && (!name[n] || name[n] == ' ');
}

/*
 * The table of steps (kernel/scenario/steps.c): every op has a whole
 * row; no row's words begin another's (the parser takes the first row
 * whose words begin the line, so the other could never be written); and
 * every assertion is among those the parser lists when it meets an
 * unknown one.
 */
static void step_table_rows_whole_and_distinct(struct ktest *t)
{
	static const char src[] = HEAD TASK "    assert zzz 1\n" END;
	char err[SCN_ERR_LEN], kind[SCN_NAME_MAX];
	int need;

	KASSERT(t, !scenario_parse(src, sizeof(src) - 1, cpus_online(), err,
				   &need));
	for (int op = 0; op < SCN_NR_OPS; op++) {
		const struct scn_step_kind *k = &scn_steps[op];

		KASSERT(t, k->name && k->parse && k->run && k->doc);
		KEXPECT(t, k->name[0] && k->doc[0]);
		for (int o = 0; o < SCN_NR_OPS; o++)
			if (o != op && word_prefix(k->name, scn_steps[o].name))
				ktest_fail(t, __FILE__, __LINE__, "step '%s' "
					   "hides step '%s'", k->name,
					   scn_steps[o].name);
		if (!word_prefix("assert", k->name))
			continue;
		/* "assert elapsed <" -> "elapsed": its words of letters */
		strlcpy(kind, k->name + strlen("assert "), sizeof(kind));
		for (char *c = kind; *c; c++)
			if (c[0] == ' ' && !(c[1] >= 'a' && c[1] <= 'z'))
				*c = '\0';
		if (!strstr(err, kind))
			ktest_fail(t, __FILE__, __LINE__, "assertion '%s' not "
				   "in '%s'", kind, err);
	}
}

/* Every embedded scenario parses (given enough CPUs), under its file
 * name: `run NAME` and the KTAP subtest name are the same word. */
static void builtins_parse_under_their_names(struct ktest *t)
{
	char err[SCN_ERR_LEN];
	int need;

	KEXPECT(t, scenario_nr_builtins > 0);
	for (uint64_t i = 0; i < scenario_nr_builtins; i++) {
		const struct scn_builtin *b = &scenario_builtins[i];
		struct scenario *s = scenario_parse(b->text, b->len, NR_CPUS,
						    err, &need);

		if (!s) {
			ktest_fail(t, __FILE__, __LINE__, "%s: %s", b->path,
				   err);
			continue;
		}
		if (strcmp(s->name, b->name) != 0)
			ktest_fail(t, __FILE__, __LINE__, "%s: scenario '%s' "
				   "in a file named '%s'", b->path, s->name,
				   b->name);
		scenario_free(s);
	}
}

/* ---- Through the runner -------------------------------------------------- */

static int run_text(struct ktest *t, const char *src, struct scn_result *res)
{
	char err[SCN_ERR_LEN];
	struct scenario *s;
	int need, err_run;

	s = scenario_parse(src, strlen(src), cpus_online(), err, &need);
	if (!s) {
		ktest_fail(t, __FILE__, __LINE__, "refused: %s", err);
		return -EINVAL;
	}
	err_run = scenario_run(s, 0, res);
	scenario_free(s);
	return err_run;
}

static const char pass_src[] =
	"scenario small\nlocking none\nmutex m\n"
	"task a fair\n    lock m\n    mark in\n    compute 1ms\n"
	"    unlock m\nend\n"
	"task b fair\n    wait in\n    lock m\n    assert happened in\n"
	"    unlock m\nend\nend scenario\n";

static void run_passes(struct ktest *t)
{
	enum locking_mode before = locking_mode;
	struct scn_result res;

	KASSERT_EQ(t, run_text(t, pass_src, &res), 0);
	KEXPECT(t, res.passed);
	KEXPECT_EQ(t, res.asserts_failed, 0);
	KEXPECT(t, !res.timed_out && !res.deadlock && !res.stuck);
	KEXPECT_EQ(t, locking_mode, before);	/* `locking none` undone */
}

static void run_failed_assertion_fails(struct ktest *t)
{
	struct scn_result res;

	KASSERT_EQ(t, run_text(t, "scenario f\ntask a fair\n    mark x\n"
			       "    assert not happened x\n    assert cpu 0\n"
			       "end\nend scenario\n", &res), 0);
	KEXPECT(t, !res.passed);
	KEXPECT_EQ(t, res.asserts_failed, 1);
	KEXPECT(t, !res.timed_out);
}

static const char deadlock_src[] =
	"scenario dl\ntimeout 100ms\nmutex m1 m2\n"
	"task a fair\n    lock m1\n    mark a1\n    wait b2\n    lock m2\n"
	"    unlock m2\n    unlock m1\nend\n"
	"task b fair\n    lock m2\n    mark b2\n    wait a1\n    lock m1\n"
	"    unlock m1\n    unlock m2\nend\nend scenario\n";

static void run_deadlock_is_stopped(struct ktest *t)
{
	int blocked = READ_ONCE(mutex_nr_blocked);
	struct scn_result res;

	KASSERT_EQ(t, run_text(t, deadlock_src, &res), 0);
	KEXPECT(t, res.timed_out && res.deadlock && !res.stuck);
	KEXPECT(t, !res.passed);	/* it did not `expect deadlock` */
	KEXPECT_EQ(t, READ_ONCE(mutex_nr_blocked), blocked);
}

static void run_overrun_is_stopped(struct ktest *t)
{
	struct scn_result res;

	KASSERT_EQ(t, run_text(t, "scenario long\ntimeout 50ms\n"
			       "expect timeout\nmutex m\n"
			       "task a fair\n    lock m\n    sleep 60s\n"
			       "    unlock m\nend\n"
			       "task b fair\n    compute 60s\nend\n"
			       "task c fair\n    lock m\n    unlock m\nend\n"
			       "end scenario\n", &res), 0);
	KEXPECT(t, res.timed_out && !res.deadlock && !res.stuck);
	KEXPECT(t, res.passed);			/* it did `expect timeout` */
}

/*
 * ABBA on two wwmutexes in each class: old takes a then b, young b then
 * a, each holding one when it asks for the other (the marks order it,
 * and make old's context the older).  The younger one backs off once,
 * the older never; a wrong count is a failed assertion.
 */
static const char ww_fmt[] =
	"scenario ww\ntimeout 2s\nwwclass %s\nwwmutex a b\n"
	"task old fair\n    wwlock a\n    mark oa\n    wait yb\n"
	"    wwlock b\n    assert backoffs = 0\n    wwunlock\nend\n"
	"task young fair\n    wait oa\n    wwlock b\n    mark yb\n"
	"    wwlock a\n    assert backoffs = %d\n    wwunlock\nend\n"
	"end scenario\n";

static void run_ww(struct ktest *t, const char *class, int want,
		   int failed)
{
	struct scn_result res;
	char src[sizeof(ww_fmt) + 32];

	snprintf(src, sizeof(src), ww_fmt, class, want);
	KASSERT_EQ(t, run_text(t, src, &res), 0);
	KEXPECT(t, !res.timed_out && !res.deadlock && !res.stuck);
	KEXPECT_EQ(t, res.asserts_failed, failed);
	KEXPECT_EQ(t, res.passed, failed == 0);
}

static void run_ww_younger_backs_off(struct ktest *t)
{
	run_ww(t, "wound-wait", 1, 0);
	run_ww(t, "wait-die", 1, 0);
	run_ww(t, "wound-wait", 0, 1);	/* the assertion can fail */
}

/* An assertion inside a repeat is one case: failing in all three
 * rounds counts once; passing in all, none. */
static void run_repeat_reports_once(struct ktest *t)
{
	struct scn_result res;

	KASSERT_EQ(t, run_text(t, "scenario rf\ntask a fair\n    repeat 3\n"
			       "        mark x\n        assert not happened x\n"
			       "        assert happened x\n    end\nend\n"
			       "end scenario\n", &res), 0);
	KEXPECT(t, !res.passed && !res.timed_out);
	KEXPECT_EQ(t, res.asserts_failed, 1);
}

/* assert order: the first marks, in order; the wrong order fails. */
static void run_order_checks_first_marks(struct ktest *t)
{
	struct scn_result res;

	KASSERT_EQ(t, run_text(t, "scenario o\ntask a fair\n    mark x\n"
			       "    mark y\n    mark x\n    assert order x y\n"
			       "    assert order y x\nend\nend scenario\n",
			       &res), 0);
	KEXPECT(t, !res.passed);
	KEXPECT_EQ(t, res.asserts_failed, 1);
}

/* spin until E within D: E not there in time is an error of the run
 * (not an assertion), and the task stops there. */
static void run_spin_bound_is_an_error(struct ktest *t)
{
	struct scn_result res;

	KASSERT_EQ(t, run_text(t, "scenario sp\ntask a fair\n"
			       "    spin until late within 2ms\n"
			       "    mark never\nend\n"
			       "task b fair start=50ms\n    mark late\n"
			       "    assert not happened never\nend\n"
			       "end scenario\n", &res), 0);
	KEXPECT(t, !res.passed && !res.timed_out && !res.stuck);
	KEXPECT_EQ(t, res.asserts_failed, 0);
}

/* A down and a cwait that are never answered end at the stop; the
 * mutex the cwait takes back is released. */
static void run_sema_and_cwait_stopped(struct ktest *t)
{
	int blocked = READ_ONCE(mutex_nr_blocked);
	struct scn_result res;

	KASSERT_EQ(t, run_text(t, "scenario st\ntimeout 50ms\n"
			       "expect timeout\nmutex m\nsemaphore s\n"
			       "condvar c\ntask a fair\n    down s\nend\n"
			       "task b fair\n    lock m\n    cwait c m\n"
			       "    unlock m\nend\nend scenario\n", &res), 0);
	KEXPECT(t, res.timed_out && !res.deadlock && !res.stuck);
	KEXPECT(t, res.passed);
	KEXPECT_EQ(t, READ_ONCE(mutex_nr_blocked), blocked);
}

static void next_scenario_runs_after_stops(struct ktest *t)
{
	struct scn_result res;

	KASSERT_EQ(t, run_text(t, pass_src, &res), 0);
	KEXPECT(t, res.passed);
}

static struct ktest_case scenario_parse_cases[] = {
	KTEST_CASE(broken_inputs_give_their_error),
	KTEST_CASE(limits_are_errors),
	KTEST_CASE(valid_script_parses_whole),
	KTEST_CASE(deadline_limits_inclusive),
	KTEST_CASE(ww_script_parses_whole),
	KTEST_CASE(builtins_parse_under_their_names),
	KTEST_CASE(step_table_rows_whole_and_distinct),
	KTEST_CASE(run_passes),
	KTEST_CASE(run_failed_assertion_fails),
	KTEST_CASE(run_deadlock_is_stopped),
	KTEST_CASE(run_overrun_is_stopped),
	KTEST_CASE(run_ww_younger_backs_off),
	KTEST_CASE(run_repeat_reports_once),
	KTEST_CASE(run_order_checks_first_marks),
	KTEST_CASE(run_spin_bound_is_an_error),
	KTEST_CASE(run_sema_and_cwait_stopped),
	KTEST_CASE(next_scenario_runs_after_stops),
	{ 0 },
};
KTEST_SUITE(scenario_parse, scenario_parse_cases);
