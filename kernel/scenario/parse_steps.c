/*
 * parse_steps.c - the steps of a task (docs/scenarios.md, "Steps" and
 * "Assertions") parsed into struct scn_step, each with the checks that
 * need only its own line and what the task holds there (p->held).
 */
#include "parse.h"
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

static int add_text(struct parser *p, const char *t)
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
	return st;
}

bool step_lock(struct parser *p, int op)
{
	const char *name;
	struct scn_step *st;
	int m = mutex_index(p, 1);
	bool want_ok = true;

	if (m < 0)
		return false;
	name = p->s->mutexes[m];
	if (p->s->ww & 1u << m)
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
	if (op == SCN_UNLOCK && !(p->held & 1u << m))
		return fail_at(p, col_of(p, 1), "unlock of '%s', not held by "
			       "'%s' here", name, p->task->name);
	if (op != SCN_UNLOCK && p->held & 1u << m)
		return fail_at(p, col_of(p, 1), "'%s' is already held by '%s' "
			       "here", name, p->task->name);
	st = new_step(p, op);
	if (!st)
		return false;
	st->arg = op == SCN_TRYLOCK ? m | want_ok << 8 : m;
	if (op == SCN_UNLOCK)
		p->held &= ~(1u << m);
	else if (want_ok)
		p->held |= 1u << m;
	if (op == SCN_TRYLOCK)
		st->num = ++p->s->nasserts;
	return true;
}

bool step_duration(struct parser *p, int op)
{
	struct scn_step *st;

	if (!word(p, 1))
		return fail_at(p, col_of(p, 1), "'%s' needs a duration",
			       word(p, 0));
	st = new_step(p, op);
	return st && duration(p, word(p, 1), col_of(p, 1), &st->ns) &&
	       no_more(p, 2);
}

bool step_event(struct parser *p, int op)
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

bool step_print(struct parser *p)
{
	struct scn_step *st = new_step(p, SCN_PRINT);
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

bool step_set(struct parser *p)
{
	struct scn_step *st = new_step(p, SCN_SET);

	return st && class_header(p, 1, &st->set, NULL);
}

bool step_assert(struct parser *p)
{
	static const char *const kinds = "class, prio, donor, cpu, happened, "
					 "not happened, elapsed, backoffs";
	const char *k = word(p, 1), *v;
	struct scn_step *st;
	long long n;
	int i = 2;

	if (!k)
		return fail_at(p, col_of(p, 1), "assert needs what to check "
			       "(%s)", kinds);
	if (!(st = new_step(p, SCN_A_CLASS)))
		return false;
	st->num = ++p->s->nasserts;
	if (strcmp(k, "not") == 0) {
		if (!word(p, 2) || strcmp(word(p, 2), "happened"))
			return fail_at(p, col_of(p, 2), "expected 'happened' "
				       "after 'assert not'");
		k = "not happened";
		i = 3;
	}
	v = word(p, i);
	if (!v)
		return fail_at(p, col_of(p, i), "assert %s needs a value", k);
	if (strcmp(k, "class") == 0) {
		st->arg = class_policy(v);
		if (st->arg < 0)
			return fail_at(p, col_of(p, i), "unknown class '%s' "
				       "(fair, rt, deadline)", v);
	} else if (strcmp(k, "prio") == 0) {
		st->op = SCN_A_PRIO;
		if (!number(p, v, col_of(p, i), false, RT_PRIO_MIN,
			    RT_PRIO_MAX, "prio", &n))
			return false;
		st->arg = n;
	} else if (strcmp(k, "cpu") == 0) {
		st->op = SCN_A_CPU;
		if (!number(p, v, col_of(p, i), false, 0, p->s->cpus - 1, "cpu",
			    &n))
			return false;
		st->arg = n;
	} else if (strcmp(k, "donor") == 0) {
		st->op = SCN_A_DONOR;
		if (!name_ok(p, v, col_of(p, i)))
			return false;
		st->arg = strcmp(v, "self") == 0 ? -1 : UNRESOLVED;
		st->text = add_text(p, v);	/* resolved at the end */
		st->ns = col_of(p, i);
	} else if (strcmp(k, "happened") == 0 ||
		   strcmp(k, "not happened") == 0) {
		st->op = k[0] == 'n' ? SCN_A_NOT_HAPPENED : SCN_A_HAPPENED;
		st->arg = event_index(p, i);
		if (st->arg < 0)
			return false;
	} else if (strcmp(k, "backoffs") == 0) {
		return ww_assert_backoffs(p, st, i);
	} else if (strcmp(k, "elapsed") == 0) {
		if (strcmp(v, "<") && strcmp(v, ">"))
			return fail_at(p, col_of(p, i), "expected '<' or '>' "
				       "after 'assert elapsed'");
		st->op = v[0] == '<' ? SCN_A_ELAPSED_LT : SCN_A_ELAPSED_GT;
		if (!word(p, ++i))
			return fail_at(p, col_of(p, i), "assert elapsed needs "
				       "a duration");
		if (!duration(p, word(p, i), col_of(p, i), &st->ns))
			return false;
	} else {
		return fail_at(p, col_of(p, 1), "unknown assertion '%s' (%s)",
			       k, kinds);
	}
	return no_more(p, i + 1);
}

