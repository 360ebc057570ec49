/*
 * parse.c - scenario scripts: text -> struct scenario, with every check
 * that can be made before anything runs (docs/scenarios.md).
 *
 * The script is read line by line; a line is split into words at spaces
 * and tabs after its comment ('#' to the end) is cut off.  The first
 * problem ends the parse with one "line:column: message" (columns count
 * bytes from 1, a tab is one column), so a student is told exactly one
 * thing to fix.  Steps are straight-line code, so the set of mutexes a
 * task holds at each step is known here: unlocking one not held, locking
 * one held, or ending while holding one are caught before the run.
 *
 * Names used before they are declared (a `wait` for an event a later task
 * marks, an `assert donor` naming a later task) are resolved at
 * `end scenario`, and reported at their first use if still unknown.
 */
#include "parse.h"
#include "steps.h"
#include "mm.h"
#include "mutex.h"
#include "cpu.h"
#include <printf.h>
#include <string.h>

static int find_task(struct scenario *s, const char *name)
{
	for (int i = 0; i < s->ntasks; i++)
		if (strcmp(s->tasks[i].name, name) == 0)
			return i;
	return -1;
}

/* ---- Top-level statements ---------------------------------------------- */

bool header_once(struct parser *p, bool *seen)
{
	if (p->s->ntasks)
		return fail_at(p, col_of(p, 0),
			       "'%s' must come before the first task",
			       word(p, 0));
	if (*seen)
		return fail_at(p, col_of(p, 0), "'%s' given twice", word(p, 0));
	*seen = true;
	if (p->nw < 2)
		return fail_at(p, col_of(p, 1), "'%s' needs a value",
			       word(p, 0));
	return no_more(p, 2);
}

static bool stmt_cpus(struct parser *p)
{
	long long n;

	if (!header_once(p, &p->seen_cpus) ||
	    !number(p, word(p, 1), col_of(p, 1), false, 1, NR_CPUS, "cpus",
		    &n))
		return false;
	p->s->cpus = n;
	if (n > p->online) {
		p->need_line = p->line;		/* reported if all else is ok */
		p->need_col = col_of(p, 1);
	}
	return true;
}

static bool stmt_locking(struct parser *p)
{
	static const char *const modes[] = {
		[LOCKING_PROXY] = "proxy", [LOCKING_INHERIT] = "inherit",
		[LOCKING_NONE] = "none",
	};

	if (!header_once(p, &p->seen_locking))
		return false;
	for (size_t m = 0; m < ARRAY_SIZE(modes); m++) {
		if (strcmp(word(p, 1), modes[m]) == 0) {
			p->s->locking = m;
			return true;
		}
	}
	return fail_at(p, col_of(p, 1), "unknown locking mode '%s' (proxy, "
		       "inherit, none)", word(p, 1));
}

static bool stmt_timeout(struct parser *p)
{
	if (!header_once(p, &p->seen_timeout) ||
	    !duration(p, word(p, 1), col_of(p, 1), &p->s->timeout_ns))
		return false;
	if (p->s->timeout_ns < NSEC_PER_MSEC)
		return fail_at(p, col_of(p, 1), "timeout below 1ms");
	return true;
}

static bool stmt_expect(struct parser *p)
{
	static const char *const what[] = {
		[SCN_EXPECT_PASS] = "pass", [SCN_EXPECT_DEADLOCK] = "deadlock",
		[SCN_EXPECT_TIMEOUT] = "timeout",
	};

	if (!header_once(p, &p->seen_expect))
		return false;
	for (size_t e = 0; e < ARRAY_SIZE(what); e++) {
		if (strcmp(word(p, 1), what[e]) == 0) {
			p->s->expect = e;
			return true;
		}
	}
	return fail_at(p, col_of(p, 1), "unknown expectation '%s' (pass, "
		       "deadlock, timeout)", word(p, 1));
}

bool name_taken(struct parser *p, const char *name, int col,
		const char *kind)
{
	struct scenario *s = p->s;
	const char *was = NULL;

	if (find_name(s->mutexes, s->nmutexes, name) >= 0)
		was = "mutex";
	else if (find_name(s->sems, s->nsems, name) >= 0)
		was = "semaphore";
	else if (find_name(s->conds, s->nconds, name) >= 0)
		was = "condvar";
	if (!was)
		return false;
	if (strcmp(was, kind) == 0)
		fail_at(p, col, "duplicate %s '%s'", kind, name);
	else
		fail_at(p, col, "'%s' is already a %s", name, was);
	return true;
}

static bool stmt_mutex(struct parser *p)
{
	struct scenario *s = p->s;

	if (p->nw < 2)
		return fail_at(p, col_of(p, 1), "%s needs a name", word(p, 0));
	for (int i = 1; i < p->nw; i++) {
		if (!name_ok(p, word(p, i), col_of(p, i)))
			return false;
		if (name_taken(p, word(p, i), col_of(p, i), "mutex"))
			return false;
		if (s->nmutexes == SCN_MAX_MUTEXES)
			return fail_at(p, col_of(p, i), "too many mutexes (at "
				       "most %d)", SCN_MAX_MUTEXES);
		if (word(p, 0)[0] == 'w')	/* wwmutex (ww_parse.c) */
			s->ww |= 1ULL << s->nmutexes;
		strlcpy(s->mutexes[s->nmutexes++], word(p, i), SCN_NAME_MAX);
	}
	return true;
}

static bool stmt_task(struct parser *p)
{
	struct scenario *s = p->s;
	struct scn_task *t;

	if (p->nw < 2)
		return fail_at(p, col_of(p, 1), "task needs a name and a "
			       "class");
	if (!name_ok(p, word(p, 1), col_of(p, 1)))
		return false;
	if (strcmp(word(p, 1), "self") == 0)
		return fail_at(p, col_of(p, 1), "'self' is not a task name");
	if (find_task(s, word(p, 1)) >= 0)
		return fail_at(p, col_of(p, 1), "duplicate task '%s'",
			       word(p, 1));
	if (s->ntasks == SCN_MAX_TASKS)
		return fail_at(p, col_of(p, 0), "too many tasks (at most %d)",
			       SCN_MAX_TASKS);
	t = &s->tasks[s->ntasks++];
	strlcpy(t->name, word(p, 1), SCN_NAME_MAX);
	t->line = p->line;
	if (!class_header(p, 2, &t->sched, &t->start_ns))
		return false;
	if (!t->sched.affinity)
		cpu_list(p, "all", 1, false, &t->sched.affinity);
	p->task = t;
	p->held = 0;
	return true;
}

/* scenario NAME: the first statement, and only the first */
static bool stmt_scenario(struct parser *p)
{
	if (p->s->name[0])
		return fail_at(p, col_of(p, 0), "'scenario' given twice");
	if (p->nw < 2)
		return fail_at(p, col_of(p, 1), "scenario needs a name");
	if (!name_ok(p, word(p, 1), col_of(p, 1)) || !no_more(p, 2))
		return false;
	strlcpy(p->s->name, word(p, 1), SCN_NAME_MAX);
	return true;
}

/* end scenario: the last (a task's `end` is step_end's) */
static bool stmt_end(struct parser *p)
{
	if (!word(p, 1) || strcmp(word(p, 1), "scenario"))
		return fail_at(p, col_of(p, 0), "'end' outside a task (the end "
			       "marker is 'end scenario')");
	p->ended = true;
	return no_more(p, 2);
}

/* The statements outside tasks; inside one, the steps of steps.c. */
static const struct {
	const char *kw;
	bool (*parse)(struct parser *p);
} statements[] = {
	{ "scenario", stmt_scenario },
	{ "cpus", stmt_cpus },
	{ "locking", stmt_locking },
	{ "timeout", stmt_timeout },
	{ "expect", stmt_expect },
	{ "mutex", stmt_mutex },
	{ "wwmutex", stmt_mutex },
	{ "wwclass", stmt_wwclass },		/* ww_parse.c */
	{ "semaphore", stmt_semaphore },	/* sem_parse.c */
	{ "condvar", stmt_condvar },		/* sem_parse.c */
	{ "task", stmt_task },
	{ "end", stmt_end },
};

static int find_statement(const char *kw)
{
	for (size_t i = 0; i < ARRAY_SIZE(statements); i++)
		if (strcmp(kw, statements[i].kw) == 0)
			return i;
	return -1;
}

static bool top_line(struct parser *p)
{
	const char *kw = word(p, 0);
	int i = find_statement(kw);

	if (p->ended)
		return fail_at(p, col_of(p, 0), "text after 'end scenario'");
	if (!p->s->name[0] && strcmp(kw, "scenario"))
		return fail_at(p, col_of(p, 0), "expected 'scenario NAME' "
			       "first");
	if (i < 0)
		return fail_at(p, col_of(p, 0), "unknown keyword '%s'", kw);
	return statements[i].parse(p);
}

/* ---- Task lines -------------------------------------------------------- */

/* The `end` of a repeat block, else of the task: it must hold nothing. */
static bool step_end(struct parser *p)
{
	if (word(p, 1) && strcmp(word(p, 1), "scenario") == 0)
		return p->in_repeat ?
		       fail_at(p, col_of(p, 0), "missing 'end' of the repeat "
			       "at line %d", p->repeat_line) :
		       fail_at(p, col_of(p, 0), "missing 'end' of task '%s'",
			       p->task->name);
	if (!no_more(p, 1))
		return false;
	if (p->in_repeat)
		return repeat_end(p);
	for (int m = 0; m < p->s->nmutexes; m++)
		if (p->held & 1ULL << m)
			return fail_at(p, col_of(p, 0),
				       "task '%s' ends holding '%s'",
				       p->task->name, p->s->mutexes[m]);
	p->task = NULL;
	return true;
}

/* Does the line start with the words of @name ("assert not happened")? */
static bool starts_with(struct parser *p, const char *name)
{
	int i = 0;

	for (const char *n = name; *n; i++) {
		const char *sp = strchr(n, ' '), *w = word(p, i);
		size_t len = sp ? (size_t)(sp - n) : strlen(n);

		if (!w || strlen(w) != len || strncmp(w, n, len))
			return false;
		n += sp ? len + 1 : len;
	}
	return true;
}

/* A line inside `task ... end`: a step of steps.c, or the end. */
static bool task_line(struct parser *p)
{
	const char *kw = word(p, 0);

	if (strcmp(kw, "end") == 0)
		return step_end(p);
	for (int op = 0; op < SCN_NR_OPS; op++)
		if (starts_with(p, scn_steps[op].name))
			return scn_steps[op].parse(p, op);
	if (strcmp(kw, "assert") == 0)
		return assert_unknown(p);
	if (find_statement(kw) >= 0)
		return fail_at(p, col_of(p, 0), "'%s' inside task '%s' "
			       "(missing 'end'?)", kw, p->task->name);
	return fail_at(p, col_of(p, 0), "unknown keyword '%s'", kw);
}

/* ---- The whole script -------------------------------------------------- */

/* Names that may be used before they are declared, now known or not. */
static bool resolve(struct parser *p)
{
	struct scenario *s = p->s;

	for (int e = 0; e < s->nevents; e++) {
		if (!p->ev_marked[e]) {
			p->line = p->ev_line[e];
			return fail_at(p, p->ev_col[e], "unknown event '%s' "
				       "(no task marks it)", s->events[e]);
		}
	}
	for (int i = 0; i < s->ntasks; i++) {
		for (int j = 0; j < s->tasks[i].nsteps; j++) {
			struct scn_step *st = &s->tasks[i].steps[j];
			const char *n = s->text + st->text;
			const char *w = s->text + st->who_text;

			p->line = st->line;
			if (st->op == SCN_A_DONOR && st->arg == UNRESOLVED &&
			    (st->arg = find_task(s, n)) < 0)
				return fail_at(p, st->ns, "unknown task '%s'",
					       n);
			if (st->who == UNRESOLVED &&
			    (st->who = find_task(s, w)) < 0)
				return fail_at(p, st->who_col,
					       "unknown task '%s'", w);
		}
	}
	return true;
}

static void parse_all(struct parser *p)
{
	struct scenario *s = p->s;

	if (p->len > SCN_MAX_BYTES) {
		p->line = 1;
		fail_at(p, 1, "script too long (%zu bytes, at most %d)", p->len,
			SCN_MAX_BYTES);
		return;
	}
	while (next_line(p)) {
		if (p->nw && !(p->task ? task_line(p) : top_line(p)))
			return;
	}
	if (p->failed)
		return;
	p->line++;
	if (p->in_repeat)
		fail_at(p, 1, "missing 'end' of the repeat at line %d",
			p->repeat_line);
	else if (p->task)
		fail_at(p, 1, "missing 'end' of task '%s'", p->task->name);
	else if (!s->name[0])
		fail_at(p, 1, "empty script (expected 'scenario NAME')");
	else if (!p->ended)
		fail_at(p, 1, "missing 'end scenario'");
	else if (!s->ntasks)
		fail_at(p, 1, "scenario '%s' has no task", s->name);
	else if (resolve(p) && p->need_line) {
		p->need_failed = true;
		p->line = p->need_line;
		fail_at(p, p->need_col, "needs %d CPUs, %d online", s->cpus,
			p->online);
	}
}

/* Every kind of step has its whole row in steps.c: a missing part would
 * otherwise be found only by a script that uses it, as a NULL call. */
static void check_steps(void)
{
	for (int op = 0; op < SCN_NR_OPS; op++) {
		const struct scn_step_kind *k = &scn_steps[op];

		if (!k->name || !k->parse || !k->run || !k->doc)
			panic("scenario: step %d (enum scn_op) has no whole "
			      "row in kernel/scenario/steps.c", op);
	}
}

struct scenario *scenario_parse(const char *src, size_t len, int online,
				char *err, int *need_cpus)
{
	struct parser *p = kzalloc(sizeof(*p));
	struct scenario *s = kzalloc(sizeof(*s));

	check_steps();
	*need_cpus = 0;
	if (!p || !s) {
		kfree(p);
		kfree(s);
		snprintf(err, SCN_ERR_LEN, "0:0: out of memory");
		return NULL;
	}
	memset(s, 0, sizeof(*s));
	s->cpus = 1;
	s->locking = -1;
	s->timeout_ns = SCN_DEFAULT_TIMEOUT;
	p->src = src;
	p->len = len;
	p->s = s;
	p->online = online;
	p->err = err;
	err[0] = '\0';
	parse_all(p);
	if (p->failed) {
		if (p->need_failed)
			*need_cpus = s->cpus;
		kfree(s);
		s = NULL;
	}
	kfree(p);
	return s;
}

void scenario_free(struct scenario *s)
{
	kfree(s);
}
