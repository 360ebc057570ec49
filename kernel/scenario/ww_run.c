/*
 * ww_run.c - wound/wait steps of a running scenario (ww_parse.c has the
 * language): a task's acquire context, opened by its first wwlock, and
 * the standard backoff loop (kernel/include/ww_mutex.h) over everything
 * the context has asked for so far, earlier wwlock steps included: on
 * -EDEADLK it releases every wwmutex of the context, waits for the
 * contended one with ww_mutex_lock_slow(), then takes the others again
 * in order.
 *
 * ww_mutex has no timed lock: a wwlock waits without a limit.  It comes
 * back at a stop all the same: wound/wait leaves no cycle among wwmutexes,
 * and every other step that holds a lock ends at the stop and releases.
 */
#include "run.h"
#include "steps.h"
#include "trace.h"
#include <printf.h>
#include <string.h>

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

		if (!(r->s->ww & 1ULL << m))
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

/* False if it was stopped (holding nothing of it). */
bool scn_run_wwlock(struct scn_trun *tr, const struct scn_step *st)
{
	struct scn_run *r = tr->run;
	int i, m, err;

	if (!tr->nww)
		ww_acquire_init(&tr->ctx, &r->wwclass);
	for (i = 0; i < st->arg; i++)
		tr->wwset[tr->nww++] = r->s->text[st->text + i] - 1;
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

void ww_release_all(struct scn_trun *tr)
{
	drop_all(tr);
	ww_acquire_fini(&tr->ctx);
	tr->nww = 0;
}

bool scn_run_wwunlock(struct scn_trun *tr, const struct scn_step *st)
{
	(void)st;
	ww_release_all(tr);
	return true;
}

bool scn_check_backoffs(struct scn_trun *tr, const struct scn_step *st)
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
		 scn_cmp_ops[st->ns], want);
	return report(tr, st, ok, why);
}
