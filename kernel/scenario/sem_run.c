/*
 * sem_run.c - semaphore and condvar steps of a running scenario
 * (sem_parse.c has the language), on kernel/include/semaphore.h and
 * condvar.h.
 *
 * down and cwait wait at most until the time limit plus SCN_GRACE_NS,
 * like lock (run_steps.c): past it the task stays as it is until the
 * controller has taken its picture and says stop, then ends.  A cwait
 * that gave up still takes its mutex again (cond_wait_timeout()), so the
 * task ends holding what the parser says it holds, and releases it.
 */
#include "run.h"
#include "steps.h"

bool scn_run_down(struct scn_trun *tr, const struct scn_step *st)
{
	struct scn_run *r = tr->run;

	if (sema_down_timeout(&r->sem[st->arg], wait_left(r))) {
		scn_sleep(r, 0, NULL, 0, true);
		return false;
	}
	return true;
}

bool scn_run_up(struct scn_trun *tr, const struct scn_step *st)
{
	sema_up(&tr->run->sem[st->arg]);
	return true;
}

bool scn_run_cwait(struct scn_trun *tr, const struct scn_step *st)
{
	struct scn_run *r = tr->run;

	if (cond_wait_timeout(&r->cv[st->arg], &r->mx[st->arg2],
			      wait_left(r))) {
		scn_sleep(r, 0, NULL, 0, true);
		return false;
	}
	return true;
}

bool scn_run_signal(struct scn_trun *tr, const struct scn_step *st)
{
	cond_signal(&tr->run->cv[st->arg]);
	return true;
}

bool scn_run_broadcast(struct scn_trun *tr, const struct scn_step *st)
{
	cond_broadcast(&tr->run->cv[st->arg]);
	return true;
}
