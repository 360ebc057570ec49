/*
 * condvar.c - condition variables (kernel/include/condvar.h), after
 * Pintos: each waiter queues a semaphore of its own, at 0, and sleeps on
 * it; a signal takes the waiter that ranks first off the queue and ups
 * its semaphore.
 *
 * The waiter queues itself before it releases the mutex, so a signaller
 * that holds the mutex after that release finds it queued: no signal
 * falls between the release and the sleep.
 *
 * A timed-out waiter leaves the queue under cv->lock.  If a signal took
 * it off first, that signal has upped (or is about to up, under the
 * same cv->lock, which it holds until sema_up returns) the waiter's
 * semaphore: the waiter takes the unit, so that nothing touches its
 * stack after it returns, and counts as signalled.
 */
#include "condvar.h"
#include "mutex.h"
#include "sched.h"
#include "semaphore.h"
#include "prio_waiter.h"

struct cond_waiter {
	struct prio_waiter pw;		/* on cv->waiters until signalled */
	struct semaphore sema;		/* upped by the signal */
};

void cond_init(struct condvar *cv, const char *name)
{
	spin_init(&cv->lock, "condvar lock");
	list_init(&cv->waiters);
	cv->name = name;
}

int cond_wait_timeout(struct condvar *cv, struct mutex *m,
		      uint64_t timeout_ns)
{
	struct cond_waiter w = { .pw.task = current() };
	unsigned long flags;
	int ret;

	if (mutex_owner(m) != current())
		panic("cond_wait(%s): mutex %s not held by %s", cv->name,
		      m->name, current()->name);
	sema_init(&w.sema, 0, cv->name);
	flags = spin_lock(&cv->lock);
	list_add_tail(&w.pw.list, &cv->waiters);
	spin_unlock(&cv->lock, flags);

	mutex_unlock(m);
	ret = sema_down_timeout(&w.sema, timeout_ns);
	if (ret) {
		flags = spin_lock(&cv->lock);
		if (list_empty(&w.pw.list)) {	/* signalled meanwhile */
			sema_trydown(&w.sema);
			ret = 0;
		} else {
			list_del_init(&w.pw.list);
		}
		spin_unlock(&cv->lock, flags);
	}
	mutex_lock(m);
	return ret;
}

void cond_wait(struct condvar *cv, struct mutex *m)
{
	cond_wait_timeout(cv, m, 0);
}

/* cv->lock held: wake the first waiter; false if there is none. */
static bool signal_one(struct condvar *cv)
{
	struct prio_waiter *pw = prio_waiter_first(&cv->waiters);

	if (!pw)
		return false;
	list_del_init(&pw->list);
	sema_up(&container_of(pw, struct cond_waiter, pw)->sema);
	return true;
}

bool cond_signal(struct condvar *cv)
{
	unsigned long flags = spin_lock(&cv->lock);
	bool woke = signal_one(cv);

	spin_unlock(&cv->lock, flags);
	return woke;
}

int cond_broadcast(struct condvar *cv)
{
	unsigned long flags = spin_lock(&cv->lock);
	int n = 0;

	while (signal_one(cv))
		n++;
	spin_unlock(&cv->lock, flags);
	return n;
}
