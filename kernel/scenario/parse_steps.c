/*
 * parse_steps.c - the steps of a task (docs/scenarios.md, "Steps" and
 * "Assertions") parsed into struct scn_step, each with the checks that
 * need only its own line and what the task holds there (p->held): the
 * parse functions of the table of steps (steps.c), but for the
 * wound/wait ones (ww_parse.c).
 */
#include "parse.h"
#include "steps.h"
#include <printf.h>
#include <string.h>

int mutex_index(struct parser *p, int i)
{
	const char *m = word(p, i);
	int idx;

	if (!m) {
		fail_at(p, col_of(p, i), "'%s' needs a mutex name", word(p, 0));
		return -1;
	}
	idx = find_name(p->s->mutexes, p->s->nmutexes, m);
	if (idx < 0)
		fail_at(p, col_of(p, i), "unknown mutex '%s'", m);
	return idx;
}

/* An event named by word @i: found or added (marked later, maybe). */
static int event_index(struct parser *p, int i)
{
	struct scenario *s = p->s;
	const char *e = word(p, i);
	int idx;

	if (!e) {
		fail_at(p, col_of(p, i), "'%s' needs an event name",
			word(p, 0));
		return -1;
	}
	if (!name_ok(p, e, col_of(p, i)))
		return -1;
	idx = find_name(s->events, s->nevents, e);
	if (idx >= 0)
		return idx;
	if (s->nevents == SCN_MAX_EVENTS) {
		fail_at(p, col_of(p, i), "too many events (at most %d)",
			SCN_MAX_EVENTS);
		return -1;
	}
	idx = s->nevents++;
	strlcpy(s->events[idx], e, SCN_NAME_MAX);
	p->ev_line[idx] = p->line;
	p->ev_col[idx] = col_of(p, i);
	return idx;
}

int add_text(struct parser *p, const char *t)
{
	struct scenario *s = p->s;
	int off = s->text_len;
	size_t n = strlen(t) + 1;

	/* Cannot overflow: the texts are parts of a script this big. */
	memcpy(s->text + off, t, n);
	s->text_len += n;
	return off;
}

struct scn_step *new_step(struct parser *p, int op)
{
	struct scn_task *t = p->task;
	struct scn_step *st;

	if (t->nsteps == SCN_MAX_STEPS) {
		fail_at(p, col_of(p, 0),
			"too many steps in task '%s' (at most %d)",
			t->name, SCN_MAX_STEPS);
		return NULL;
	}
	st = &t->steps[t->nsteps++];
	memset(st, 0, sizeof(*st));
	st->op = op;
	st->line = p->line;
	st->looped = p->in_repeat;
	st->who = -1;
	return st;
}

/* lock M, unlock M, trylock M ok|busy */
bool scn_parse_lock(struct parser *p, int op)
{
	const char *name;
	struct scn_step *st;
	int m = mutex_index(p, 1);
	bool want_ok = true;

	if (m < 0)
		return false;
	name = p->s->mutexes[m];
	if (p->s->ww & 1ULL << m)
		return fail_at(p, col_of(p, 1), "'%s' is a wwmutex (use wwlock "
			       "and wwunlock)", name);
	if (op == SCN_TRYLOCK) {
		const char *r = word(p, 2);

		if (!r || (strcmp(r, "ok") && strcmp(r, "busy")))
			return fail_at(p, col_of(p, 2), "trylock needs 'ok' or "
				       "'busy' after the mutex");
		want_ok = strcmp(r, "ok") == 0;
	}
	if (!no_more(p, op == SCN_TRYLOCK ? 3 : 2))
		return false;
	if (op == SCN_UNLOCK && !(p->held & 1ULL << m))
		return fail_at(p, col_of(p, 1), "unlock of '%s', not held by "
			       "'%s' here", name, p->task->name);
	if (op != SCN_UNLOCK && p->held & 1ULL << m)
		return fail_at(p, col_of(p, 1), "'%s' is already held by '%s' "
			       "here", name, p->task->name);
	st = new_step(p, op);
	if (!st)
		return false;
	st->arg = op == SCN_TRYLOCK ? m | want_ok << 8 : m;
	if (op == SCN_UNLOCK)
		p->held &= ~(1ULL << m);
	else if (want_ok)
		p->held |= 1ULL << m;
	if (op == SCN_TRYLOCK)
		st->num = ++p->s->nasserts;
	return true;
}

/* compute D, sleep D */
bool scn_parse_duration(struct parser *p, int op)
{
	struct scn_step *st;

	if (!word(p, 1))
		return fail_at(p, col_of(p, 1), "'%s' needs a duration",
			       word(p, 0));
	st = new_step(p, op);
	return st && duration(p, word(p, 1), col_of(p, 1), &st->ns) &&
	       no_more(p, 2);
}

/* mark E, wait E */
bool scn_parse_event(struct parser *p, int op)
{
	struct scn_step *st;
	int e = event_index(p, 1);

	if (e < 0 || !no_more(p, 2) || !(st = new_step(p, op)))
		return false;
	st->arg = e;
	if (op == SCN_MARK)
		p->ev_marked[e] = true;
	return true;
}

bool scn_parse_yield(struct parser *p, int op)
{
	return no_more(p, 1) && new_step(p, op);
}

/* print TEXT...: the rest of the line as written, but its comment and
 * the blanks at its end. */
bool scn_parse_print(struct parser *p, int op)
{
	struct scn_step *st = new_step(p, op);
	const char *t = "";

	if (!st)
		return false;
	if (p->nw > 1) {
		char *end;

		t = p->raw + p->w[1].col - 1;
		end = (char *)t + strlen(t);
		while (end > t && (end[-1] == ' ' || end[-1] == '\t'))
			*--end = '\0';
	}
	st->text = add_text(p, t);
	return true;
}

/* set [CLASS params] [cpu=N | cpus=LIST] */
bool scn_parse_set(struct parser *p, int op)
{
	struct scn_step *st = new_step(p, op);

	if (!st)
		return false;
	if (p->s->nsets == SCN_MAX_SETS)
		return fail_at(p, col_of(p, 0), "too many set steps (at most "
			       "%d)", SCN_MAX_SETS);
	st->arg = p->s->nsets++;
	return class_header(p, 1, &p->s->sets[st->arg], NULL);
}

/* ---- Assertions -------------------------------------------------------- */

/* What `assert` can check, as its errors list it: the assertions of
 * steps.c, in its order. */
#define ASSERT_KINDS "class, prio, donor, cpu, happened, not happened, " \
		     "elapsed, backoffs, order"

struct scn_step *new_assert(struct parser *p, int op)
{
	struct scn_step *st = new_step(p, op);

	if (st)
		st->num = ++p->s->nasserts;
	return st;
}

const char *assert_value(struct parser *p, int op, int i)
{
	const char *v = word(p, i);

	if (!v)
		fail_at(p, col_of(p, i), "%s needs a value",
			scn_steps[op].name);
	return v;
}

/*
 * `of TASK` from word @i, or nothing: the assertion is about TASK's
 * context instead of mine.  TASK may be declared later (resolve(),
 * parse.c); `of self` is the same as nothing.
 */
static bool assert_who(struct parser *p, struct scn_step *st, int i)
{
	const char *w = word(p, i);

	if (!w || strcmp(w, "of"))
		return no_more(p, i);
	w = word(p, i + 1);
	if (!w)
		return fail_at(p, col_of(p, i + 1), "'of' needs a task name");
	if (!name_ok(p, w, col_of(p, i + 1)))
		return false;
	if (strcmp(w, "self")) {
		st->who = UNRESOLVED;
		st->who_text = add_text(p, w);
		st->who_col = col_of(p, i + 1);
	}
	return no_more(p, i + 2);
}

/* assert class fair|rt|deadline */
bool scn_parse_a_class(struct parser *p, int op)
{
	struct scn_step *st = new_assert(p, op);
	const char *v = st ? assert_value(p, op, 2) : NULL;

	if (!v)
		return false;
	st->arg = class_policy(v);
	if (st->arg < 0)
		return fail_at(p, col_of(p, 2), "unknown class '%s' (fair, rt, "
			       "deadline)", v);
	return assert_who(p, st, 3);
}

/* assert prio N, on the scale of prio= */
bool scn_parse_a_prio(struct parser *p, int op)
{
	struct scn_step *st = new_assert(p, op);
	const char *v = st ? assert_value(p, op, 2) : NULL;
	long long n;

	if (!v || !number(p, v, col_of(p, 2), false, RT_PRIO_MIN, RT_PRIO_MAX,
			  "prio", &n))
		return false;
	st->arg = n;
	return assert_who(p, st, 3);
}

/* assert donor NAME|self: a task declared later is resolved at the end
 * (resolve(), parse.c); until then its name is kept in the text. */
bool scn_parse_a_donor(struct parser *p, int op)
{
	struct scn_step *st = new_assert(p, op);
	const char *v = st ? assert_value(p, op, 2) : NULL;

	if (!v || !name_ok(p, v, col_of(p, 2)))
		return false;
	st->arg = strcmp(v, "self") == 0 ? -1 : UNRESOLVED;
	st->text = add_text(p, v);
	st->ns = col_of(p, 2);
	return assert_who(p, st, 3);
}

/* assert cpu N, one of the scenario's CPUs */
bool scn_parse_a_cpu(struct parser *p, int op)
{
	struct scn_step *st = new_assert(p, op);
	const char *v = st ? assert_value(p, op, 2) : NULL;
	long long n;

	if (!v || !number(p, v, col_of(p, 2), false, 0, p->s->cpus - 1, "cpu",
			  &n))
		return false;
	st->arg = n;
	return no_more(p, 3);
}

/* assert happened E, assert not happened E */
bool scn_parse_a_happened(struct parser *p, int op)
{
	int i = op == SCN_A_HAPPENED ? 2 : 3;
	struct scn_step *st = new_assert(p, op);

	if (!st || !assert_value(p, op, i))
		return false;
	st->arg = event_index(p, i);
	return st->arg >= 0 && no_more(p, i + 1);
}

/* assert elapsed < D, assert elapsed > D */
bool scn_parse_a_elapsed(struct parser *p, int op)
{
	struct scn_step *st = new_assert(p, op);

	if (!st)
		return false;
	if (!word(p, 3))
		return fail_at(p, col_of(p, 3), "assert elapsed needs a "
			       "duration");
	return duration(p, word(p, 3), col_of(p, 3), &st->ns) && no_more(p, 4);
}

/* assert order E1 E2 ...: 2..SCN_MAX_ORDER events, each once; the list
 * of their indexes goes to the texts, one byte each. */
bool scn_parse_a_order(struct parser *p, int op)
{
	struct scn_step *st = new_assert(p, op);
	char list[SCN_MAX_ORDER + 1];
	int n = p->nw - 2;

	if (!st)
		return false;
	if (n < 2)
		return fail_at(p, col_of(p, p->nw), "assert order needs at "
			       "least two events");
	if (n > SCN_MAX_ORDER)
		return fail_at(p, col_of(p, 2 + SCN_MAX_ORDER), "too many "
			       "events in assert order (at most %d)",
			       SCN_MAX_ORDER);
	for (int i = 0; i < n; i++) {
		int e = event_index(p, 2 + i);

		if (e < 0)
			return false;
		for (int j = 0; j < i; j++)
			if (list[j] == e + 1)
				return fail_at(p, col_of(p, 2 + i), "event '%s' "
					       "twice in assert order",
					       word(p, 2 + i));
		list[i] = e + 1;	/* never NUL */
	}
	list[n] = '\0';
	st->arg = n;
	st->text = add_text(p, list);
	return true;
}

/* ---- Flow: repeat and spin ---------------------------------------------- */

/*
 * repeat N: the steps up to the matching `end` run N times.  No nesting
 * (the parser then knows what is held at every step with one saved
 * set), and the body must give back what it takes: it holds at its
 * `end` exactly what it held at `repeat`.
 */
bool scn_parse_repeat(struct parser *p, int op)
{
	struct scn_step *st;
	long long n;

	if (p->in_repeat)
		return fail_at(p, col_of(p, 0), "'repeat' inside the repeat at "
			       "line %d (repeats do not nest)", p->repeat_line);
	if (!word(p, 1))
		return fail_at(p, col_of(p, 1), "repeat needs a count");
	if (!number(p, word(p, 1), col_of(p, 1), false, 1, SCN_MAX_REPEAT,
		    "repeat count", &n) || !no_more(p, 2))
		return false;
	st = new_step(p, op);
	if (!st)
		return false;
	st->arg = n;
	p->in_repeat = true;
	p->repeat_line = p->line;
	p->repeat_step = p->task->nsteps - 1;
	p->repeat_held = p->held;
	return true;
}

/* The `end` of a repeat block (step_end, parse.c): the body must hold
 * what it held at its start. */
bool repeat_end(struct parser *p)
{
	uint64_t more = p->held & ~p->repeat_held;
	uint64_t less = p->repeat_held & ~p->held;
	struct scn_step *st;

	if (p->task->nsteps - 1 == p->repeat_step)
		return fail_at(p, col_of(p, 0), "empty repeat (line %d)",
			       p->repeat_line);
	for (int m = 0; m < p->s->nmutexes; m++) {
		if (more & 1ULL << m)
			return fail_at(p, col_of(p, 0), "the repeat at line %d "
				       "ends holding '%s' (each time round "
				       "must release what it takes)",
				       p->repeat_line, p->s->mutexes[m]);
		if (less & 1ULL << m)
			return fail_at(p, col_of(p, 0), "the repeat at line %d "
				       "releases '%s', which it did not take",
				       p->repeat_line, p->s->mutexes[m]);
	}
	st = new_step(p, SCN_END_REPEAT);
	if (!st)
		return false;
	st->looped = true;
	st->arg = p->repeat_step;
	p->in_repeat = false;
	return true;
}

/* `end` is read by step_end (parse.c), never through the table. */
bool scn_parse_end_repeat(struct parser *p, int op)
{
	(void)op;
	return fail_at(p, col_of(p, 0), "'end' of a repeat outside one");
}

/* spin until E [within D]: run (never sleeping) until event E has
 * happened; with a bound, a run error after D. */
bool scn_parse_spin(struct parser *p, int op)
{
	struct scn_step *st = new_step(p, op);

	if (!st)
		return false;
	if (!word(p, 1) || strcmp(word(p, 1), "until"))
		return fail_at(p, col_of(p, 1), "expected 'until' after "
			       "'spin'");
	st->arg = event_index(p, 2);
	if (st->arg < 0)
		return false;
	if (!word(p, 3))
		return true;
	if (strcmp(word(p, 3), "within"))
		return fail_at(p, col_of(p, 3), "expected 'within D' or "
			       "nothing after the event");
	if (!word(p, 4))
		return fail_at(p, col_of(p, 4), "'within' needs a duration");
	if (!duration(p, word(p, 4), col_of(p, 4), &st->ns) || !no_more(p, 5))
		return false;
	if (!st->ns)
		return fail_at(p, col_of(p, 4), "spin bound 0ns (at least "
			       "1ns)");
	return true;
}

/*
 * An `assert` line that no row of steps.c names: say what is wrong.  A
 * missing value is reported before an unknown kind, and a step before
 * either: "too many steps" comes first, as for every assertion.
 */
bool assert_unknown(struct parser *p)
{
	const char *k = word(p, 1);

	if (!k)
		return fail_at(p, col_of(p, 1), "assert needs what to check "
			       "(%s)", ASSERT_KINDS);
	if (!new_assert(p, SCN_A_CLASS))
		return false;
	if (strcmp(k, "not") == 0)	/* but not `not happened` */
		return fail_at(p, col_of(p, 2), "expected 'happened' after "
			       "'assert not'");
	if (!word(p, 2))
		return fail_at(p, col_of(p, 2), "assert %s needs a value", k);
	if (strcmp(k, "elapsed") == 0)	/* but neither `<` nor `>` */
		return fail_at(p, col_of(p, 2), "expected '<' or '>' after "
			       "'assert elapsed'");
	return fail_at(p, col_of(p, 1), "unknown assertion '%s' (%s)", k,
		       ASSERT_KINDS);
}
