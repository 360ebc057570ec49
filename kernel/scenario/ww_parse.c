/*
 * ww_parse.c - wound/wait mutexes in scenarios (docs/scenarios.md): the
 * statements and steps, parsed (ww_run.c runs them).
 *
 *   wwclass wound-wait|wait-die   the class of every wwmutex (header)
 *   wwmutex NAME...               declared like `mutex`, one namespace
 *   wwlock M...                   take them, in that order, in the task's
 *                                 acquire context (opened by the first
 *                                 wwlock, so its age is that moment)
 *   wwunlock                      release all of it, end the context
 *   assert backoffs OP N          how often the task was told -EDEADLK
 *
 * A task's wwlock steps add to one acquire context, so `wwlock a`,
 * `mark`, `wait`, `wwlock b` makes a task hold one lock while it asks for
 * the next, as real code does.
 */
#include "parse.h"
#include "steps.h"
#include <printf.h>
#include <string.h>

/* wwclass wound-wait|wait-die: a header statement (parse.c) */
bool stmt_wwclass(struct parser *p)
{
	const char *c;

	if (!header_once(p, &p->seen_wwclass))
		return false;
	c = word(p, 1);
	if (strcmp(c, "wound-wait") && strcmp(c, "wait-die"))
		return fail_at(p, col_of(p, 1), "unknown wwclass '%s' "
			       "(wound-wait, wait-die)", c);
	p->s->wait_die = strcmp(c, "wait-die") == 0;
	return true;
}

/* The mutexes join the context: the parser tracks them in p->held like
 * plain ones, so `task ends holding` covers a missing wwunlock. */
bool scn_parse_wwlock(struct parser *p, int op)
{
	struct scenario *s = p->s;
	struct scn_step *st;
	char list[MAX_WORDS];

	if (p->nw < 2)
		return fail_at(p, col_of(p, 1), "wwlock needs a wwmutex name");
	if (!(st = new_step(p, op)))
		return false;
	for (int i = 1; i < p->nw; i++) {
		int m = mutex_index(p, i);

		if (m < 0)
			return false;
		if (!(s->ww & 1ULL << m))
			return fail_at(p, col_of(p, i), "'%s' is not a wwmutex "
				       "(declare it with 'wwmutex')",
				       s->mutexes[m]);
		if (p->held & 1ULL << m)
			return fail_at(p, col_of(p, i), "'%s' is already held "
				       "by '%s' here", s->mutexes[m],
				       p->task->name);
		p->held |= 1ULL << m;
		list[st->arg++] = m + 1;	/* distinct, never NUL */
	}
	list[st->arg] = '\0';
	st->text = add_text(p, list);
	return true;
}

bool scn_parse_wwunlock(struct parser *p, int op)
{
	if (!no_more(p, 1))
		return false;
	if (!(p->held & p->s->ww))
		return fail_at(p, col_of(p, 0), "wwunlock, but '%s' holds no "
			       "wwmutex here", p->task->name);
	p->held &= ~p->s->ww;
	return new_step(p, op) != NULL;
}

/* assert backoffs =|<|>|<=|>= N */
bool scn_parse_a_backoffs(struct parser *p, int op)
{
	struct scn_step *st = new_assert(p, op);
	const char *v = st ? assert_value(p, op, 2) : NULL;
	long long n;
	int c;

	if (!v)
		return false;
	for (c = 0; c < SCN_NR_CMPS && strcmp(v, scn_cmp_ops[c]); c++)
		;
	if (c == SCN_NR_CMPS)
		return fail_at(p, col_of(p, 2), "expected '=', '<', '>', '<=' "
			       "or '>=' after 'assert backoffs'");
	st->ns = c;
	if (!word(p, 3))
		return fail_at(p, col_of(p, 3), "assert backoffs needs a "
			       "number");
	if (!number(p, word(p, 3), col_of(p, 3), false, 0, 10000, "backoffs",
		    &n))
		return false;
	st->arg = n;
	return no_more(p, 4);
}
