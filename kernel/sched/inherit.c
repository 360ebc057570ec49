/*
 * inherit.c - classic priority inheritance, the locking mode "inherit"
 * (what Linux's rt_mutex does with rt_mutex_setprio()).
 *
 * A task that waits for a mutex sleeps.  kernel/locking/mutex_pi.c works out
 * the best waiter over every mutex an owner holds and calls
 * sched_set_pi_donor(owner, waiter); the owner then runs in the waiter's
 * class with its RT priority or its absolute deadline, until
 * sched_set_pi_donor(owner, NULL) gives it back its own.  Transitive
 * chains are walked by mutex_pi.c; here ->pi_donor links are followed to
 * the task whose parameters are really used (pi_context).
 *
 * Only RT and deadline parameters are lent, as in Linux: a fair waiter
 * ranks nowhere above a fair owner.  A fair or RT owner boosted by a
 * deadline waiter runs as a deadline task with the waiter's deadline and
 * runtime, and is never throttled: when that runtime is spent its
 * deadline moves a period later (dl_boosted, deadline.c).  Compare proxy
 * mode, where the waiter's own budget is consumed (proxy.c).
 */
#include "internal.h"

#define PI_MAX_DEPTH 64		/* a pi_donor chain longer is a bug */

struct task *pi_context(struct task *p)
{
	for (int i = 0; i < PI_MAX_DEPTH; i++) {
		struct task *d = READ_ONCE(p->pi_donor);

		if (!d)
			return p;
		p = d;
	}
	panic("inherit: pi_donor chain from %s longer than %d", p->name,
	      PI_MAX_DEPTH);
}

/*
 * Put @p's effective parameters in place: @ctx's (a donor's) or, with
 * ctx == p, its own.  p is out of its class (dequeued/put), locks held.
 */
static void pi_set_params(struct task *p, struct task *ctx)
{
	struct sched_dl_entity *dl = &p->dl;

	if (dl->dl_boosted && (ctx == p || ctx->policy != SCHED_DEADLINE)) {
		/* Leaving a deadline boost: a deadline task gets its own
		 * deadline and budget back. */
		dl->dl_boosted = false;
		dl->deadline = dl->pi_saved_deadline;
		dl->runtime = dl->pi_saved_runtime;
	}
	/* Own or lent, prio and class follow ctx's policy (a lender is RT or
	 * deadline: sched_own_before() never lends a fair context). */
	p->prio = normal_prio(ctx);
	p->sched_class = policy_class(ctx->policy);
	if (ctx != p && ctx->policy == SCHED_DEADLINE) {
		if (!dl->dl_boosted) {
			dl->pi_saved_deadline = dl->deadline;
			dl->pi_saved_runtime = dl->runtime;
		}
		dl->dl_boosted = true;
		dl->dl_throttled = false;	/* a stale dl_timer finds nothing */
		dl->deadline = ctx->dl.deadline;
		dl->runtime = ctx->dl.runtime > 0 ? ctx->dl.runtime : (int64_t)ctx->dl.dl_runtime;
		if (p->policy != SCHED_DEADLINE) {
			/* Only for moving the deadline on (deadline.c). */
			dl->dl_runtime = ctx->dl.dl_runtime;
			dl->dl_deadline = ctx->dl.dl_deadline;
			dl->dl_period = ctx->dl.dl_period;
		}
	}
}

/* sched_set_pi_donor's change: p is out of its class (sched_change). */
static void pi_change(struct task *p, const void *arg)
{
	WRITE_ONCE(p->pi_donor, (struct task *)arg);
	pi_set_params(p, pi_context(p));
}

void sched_set_pi_donor(struct task *p, struct task *donor)
{
	if (donor == p || (donor && !sched_own_before(pi_context(donor), p)))
		donor = NULL;
	if (!donor && !READ_ONCE(p->pi_donor))
		return;		/* nothing lent, nothing to give back */
	sched_change(p, pi_change, donor);
}

void sched_pi_reapply(struct task *p)
{
	struct task *d = p->pi_donor;

	if (!d)
		return;
	if (!sched_own_before(pi_context(d), p)) {
		WRITE_ONCE(p->pi_donor, NULL);	/* its own now rank first */
		return;
	}
	pi_set_params(p, pi_context(d));
}
