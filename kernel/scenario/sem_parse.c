/*
 * sem_parse.c - semaphores and condition variables in scenarios
 * (docs/scenarios.md): the declarations and steps, parsed (sem_run.c
 * runs them on kernel/include/semaphore.h and condvar.h).
 *
 *   semaphore NAME[=N]...   counting semaphores with N units (default 0)
 *   condvar NAME...         condition variables
 *   down S, up S            sema_down() (with the run's time limit),
 *                           sema_up()
 *   cwait C M               cond_wait() on C with mutex M, which the
 *                           task must hold there (and holds after)
 *   signal C, broadcast C   cond_signal(), cond_broadcast()
 *
 * Mutexes, semaphores and condvars share one namespace, so that a name
 * says what it is.
 */
#include "parse.h"
#include "steps.h"
#include <printf.h>
#include <string.h>

/* semaphore NAME[=N]... */
bool stmt_semaphore(struct parser *p)
{
	struct scenario *s = p->s;

	if (p->nw < 2)
		return fail_at(p, col_of(p, 1), "semaphore needs a name");
	for (int i = 1; i < p->nw; i++) {
		char *w = p->w[i].s, *eq = strchr(w, '=');
		long long n = 0;

		if (eq)
			*eq = '\0';
		if (!name_ok(p, w, col_of(p, i)) ||
		    name_taken(p, w, col_of(p, i), "semaphore"))
			return false;
		if (s->nsems == SCN_MAX_SEMS)
			return fail_at(p, col_of(p, i), "too many semaphores "
				       "(at most %d)", SCN_MAX_SEMS);
		if (eq && !number(p, eq + 1, col_of(p, i) + (eq - w) + 1,
				  false, 0, SCN_MAX_SEM_COUNT,
				  "semaphore count", &n))
			return false;
		s->sem_count[s->nsems] = n;
		strlcpy(s->sems[s->nsems++], w, SCN_NAME_MAX);
	}
	return true;
}

/* condvar NAME... */
bool stmt_condvar(struct parser *p)
{
	struct scenario *s = p->s;

	if (p->nw < 2)
		return fail_at(p, col_of(p, 1), "condvar needs a name");
	for (int i = 1; i < p->nw; i++) {
		if (!name_ok(p, word(p, i), col_of(p, i)) ||
		    name_taken(p, word(p, i), col_of(p, i), "condvar"))
			return false;
		if (s->nconds == SCN_MAX_CONDS)
			return fail_at(p, col_of(p, i), "too many condvars (at "
				       "most %d)", SCN_MAX_CONDS);
		strlcpy(s->conds[s->nconds++], word(p, i), SCN_NAME_MAX);
	}
	return true;
}

/* Index of the semaphore (@cond: condvar) named by word @i, or -1 with
 * the error set. */
static int sync_index(struct parser *p, int i, bool cond)
{
	const char *n = word(p, i), *kind = cond ? "condvar" : "semaphore";
	int idx;

	if (!n) {
		fail_at(p, col_of(p, i), "'%s' needs a %s name", word(p, 0),
			kind);
		return -1;
	}
	idx = cond ? find_name(p->s->conds, p->s->nconds, n) :
		     find_name(p->s->sems, p->s->nsems, n);
	if (idx < 0)
		fail_at(p, col_of(p, i), "unknown %s '%s'", kind, n);
	return idx;
}

/* down S, up S */
bool scn_parse_sema(struct parser *p, int op)
{
	struct scn_step *st;
	int sem = sync_index(p, 1, false);

	if (sem < 0 || !no_more(p, 2) || !(st = new_step(p, op)))
		return false;
	st->arg = sem;
	return true;
}

/* signal C, broadcast C */
bool scn_parse_signal(struct parser *p, int op)
{
	struct scn_step *st;
	int c = sync_index(p, 1, true);

	if (c < 0 || !no_more(p, 2) || !(st = new_step(p, op)))
		return false;
	st->arg = c;
	return true;
}

/* cwait C M: M (a plain mutex) held here; held again after. */
bool scn_parse_cwait(struct parser *p, int op)
{
	struct scn_step *st;
	int c = sync_index(p, 1, true), m;

	if (c < 0)
		return false;
	if (!word(p, 2))
		return fail_at(p, col_of(p, 2), "cwait needs the mutex after "
			       "the condvar");
	m = mutex_index(p, 2);
	if (m < 0 || !no_more(p, 3))
		return false;
	if (p->s->ww & 1ULL << m)
		return fail_at(p, col_of(p, 2), "'%s' is a wwmutex (cwait "
			       "needs a plain mutex)", p->s->mutexes[m]);
	if (!(p->held & 1ULL << m))
		return fail_at(p, col_of(p, 2), "cwait on '%s' needs '%s' "
			       "held by '%s' here", p->s->conds[c],
			       p->s->mutexes[m], p->task->name);
	st = new_step(p, op);
	if (!st)
		return false;
	st->arg = c;
	st->arg2 = m;
	return true;
}
