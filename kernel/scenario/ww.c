/*
 * ww.c - wound/wait mutexes in scenarios (docs/scenarios.md): the
 * statements and steps, parsed, and run.
 *
 *   wwclass wound-wait|wait-die   the class of every wwmutex (header)
 *   wwmutex NAME...               declared like `mutex`, one namespace
 *   wwlock M...                   take them, in that order, in the task's
 *                                 acquire context (opened by the first
 *                                 wwlock, so its age is that moment)
 *   wwunlock                      release all of it, end the context
 *   assert backoffs OP N          how often the task was told -EDEADLK
 *
 * A wwlock runs the standard backoff loop (kernel/include/ww_mutex.h)
 * over everything the context has asked for so far, earlier wwlock steps
 * included: on -EDEADLK it releases every wwmutex of the context, waits
 * for the contended one with ww_mutex_lock_slow(), then takes the others
 * again in order.  So `wwlock a`, `mark`, `wait`, `wwlock b` makes a
 * task hold one lock while it asks for the next, as real code does.
 *
 * ww_mutex has no timed lock: a wwlock waits without a limit.  It comes
 * back at a stop all the same: wound/wait leaves no cycle among wwmutexes,
 * and every other step that holds a lock ends at the stop and releases.
 */
#include "internal.h"
#include "run.h"
#include "trace.h"
#include <printf.h>
#include <string.h>

const char *const ww_cmp_names[] = {
	[SCN_CMP_EQ] = "eq", [SCN_CMP_LT] = "lt", [SCN_CMP_GT] = "gt",
	[SCN_CMP_LE] = "le", [SCN_CMP_GE] = "ge",
};
static const char *const cmp_ops[] = {
	[SCN_CMP_EQ] = "=", [SCN_CMP_LT] = "<", [SCN_CMP_GT] = ">",
	[SCN_CMP_LE] = "<=", [SCN_CMP_GE] = ">=",
};

/* ---- Parsing ----------------------------------------------------------- */

bool ww_stmt_class(struct parser *p)
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
bool ww_step_lock(struct parser *p, int op)
{
	struct scenario *s = p->s;
	struct scn_step *st;

	if (p->nw < 2)
		return fail_at(p, col_of(p, 1), "wwlock needs a wwmutex name");
	if (!(st = new_step(p, op)))
		return false;
	for (int i = 1; i < p->nw; i++) {
		int m = mutex_index(p, i);

		if (m < 0)
			return false;
		if (!(s->ww & 1u << m))
			return fail_at(p, col_of(p, i), "'%s' is not a wwmutex "
				       "(declare it with 'wwmutex')",
				       s->mutexes[m]);
		if (p->held & 1u << m)
			return fail_at(p, col_of(p, i), "'%s' is already held "
				       "by '%s' here", s->mutexes[m],
				       p->task->name);
		p->held |= 1u << m;
		st->mx[st->arg++] = m;	/* distinct: at most 16 */
	}
	return true;
}

bool ww_step_unlock(struct parser *p, int op)
{
	if (!no_more(p, 1))
		return false;
	if (!(p->held & p->s->ww))
		return fail_at(p, col_of(p, 0), "wwunlock, but '%s' holds no "
			       "wwmutex here", p->task->name);
	p->held &= ~p->s->ww;
	return new_step(p, op) != NULL;
}

bool ww_assert_backoffs(struct parser *p, struct scn_step *st, int i)
{
	const char *v = word(p, i);
	long long n;
	size_t c;

	for (c = 0; c < ARRAY_SIZE(cmp_ops) && strcmp(v, cmp_ops[c]); c++)
		;
	if (c == ARRAY_SIZE(cmp_ops))
		return fail_at(p, col_of(p, i), "expected '=', '<', '>', '<=' "
			       "or '>=' after 'assert backoffs'");
	st->op = SCN_A_BACKOFFS;
	st->ns = c;
	if (!word(p, i + 1))
		return fail_at(p, col_of(p, i + 1), "assert backoffs needs a "
			       "number");
	if (!number(p, word(p, i + 1), col_of(p, i + 1), false, 0, 10000,
		    "backoffs", &n))
		return false;
	st->arg = n;
	return no_more(p, i + 2);
}

/* ---- Running ----------------------------------------------------------- */

static bool holds(struct scn_trun *tr, int m)
{
	for (int i = 0; i < tr->nheld; i++)
		if (tr->held[i] == m)
			return true;
	return false;
}

/* Release every wwmutex the task holds, newest first. */
static void drop_all(struct scn_trun *tr)
{
	struct scn_run *r = tr->run;

	for (int i = tr->nheld - 1; i >= 0; i--) {
		int m = tr->held[i];

		if (!(r->s->ww & 1u << m))
			continue;
		held_drop(tr, m);
		ww_mutex_unlock(&r->ww[m]);
	}
}

/*
 * -EDEADLK on @m: back off.  Say so (console and trace, so that the
 * picture shows it), release everything, then wait for @m alone: the
 * older context holding it finishes, and we cannot be told to back off
 * while we hold nothing.  False if the run is being stopped instead.
 */
static bool back_off(struct scn_trun *tr, int m)
{
	struct scn_run *r = tr->run;
	char text[SCN_NAME_MAX + 16];

	tr->backoffs++;
	snprintf(text, sizeof(text), "backoff %s", r->s->mutexes[m]);
	say(tr, "", text);
	trace_mark(text);
	drop_all(tr);
	if (READ_ONCE(r->abort))
		return false;
	WRITE_ONCE(tr->waiting, m);
	ww_mutex_lock_slow(&r->ww[m], &tr->ctx);
	WRITE_ONCE(tr->waiting, -1);
	held_push(tr, m);
	return true;
}

bool ww_run_lock(struct scn_trun *tr, const struct scn_step *st)
{
	struct scn_run *r = tr->run;
	int i, m, err;

	if (!tr->nww)
		ww_acquire_init(&tr->ctx, &r->wwclass);
	for (i = 0; i < st->arg; i++)
		tr->wwset[tr->nww++] = st->mx[i];
retry:
	for (i = 0; i < tr->nww; i++) {
		m = tr->wwset[i];
		if (holds(tr, m))	/* earlier, or the one taken slowly */
			continue;
		WRITE_ONCE(tr->waiting, m);
		err = ww_mutex_lock(&r->ww[m], &tr->ctx);
		WRITE_ONCE(tr->waiting, -1);
		if (err == -EDEADLK) {
			if (!back_off(tr, m))
				return false;
			goto retry;
		}
		held_push(tr, m);	/* 0; -EALREADY cannot be: holds() */
	}
	return true;
}

void ww_run_unlock(struct scn_trun *tr)
{
	drop_all(tr);
	ww_acquire_fini(&tr->ctx);
	tr->nww = 0;
}

void ww_check_backoffs(struct scn_trun *tr, const struct scn_step *st)
{
	int n = tr->backoffs, want = st->arg;
	bool ok = false;
	char why[64];

	switch (st->ns) {
	case SCN_CMP_EQ:
		ok = n == want;
		break;
	case SCN_CMP_LT:
		ok = n < want;
		break;
	case SCN_CMP_GT:
		ok = n > want;
		break;
	case SCN_CMP_LE:
		ok = n <= want;
		break;
	case SCN_CMP_GE:
		ok = n >= want;
		break;
	}
	snprintf(why, sizeof(why), "%d backoffs, expected %s %d", n,
		 cmp_ops[st->ns], want);
	report(tr, st, ok, why);
}
