/*
 * condvar.h - condition variables (kernel/locking/condvar.c), used with
 * a struct mutex.
 *
 * cond_wait() releases the mutex and sleeps, atomically with respect to
 * cond_signal() and cond_broadcast(): a signal sent after the waiter
 * released the mutex wakes it.  It takes the mutex again before it
 * returns.  Wakeups may be spurious only through the timeout: a waiter
 * returns 0 only when it was signalled.  As with any condition
 * variable, the caller re-checks its condition in a loop.
 *
 * Waiter order: cond_signal() wakes the waiter whose effective
 * scheduling context ranks first (sched_prio_before(), read at the
 * signal), the longest-waiting among equals (Pintos' priority-condvar);
 * cond_broadcast() wakes them all, in that order.  Each waiter is a
 * semaphore of its own (semaphore.h) that the signal ups.
 *
 * Lock order: condvar lock -> semaphore lock -> rq->lock.  The mutex is
 * never taken under the condvar lock.
 */
#ifndef CONDVAR_H
#define CONDVAR_H
#include "kernel.h"
#include "list.h"
#include "spinlock.h"

struct mutex;

struct condvar {
	spinlock_t lock;		/* waiters; irq-safe */
	struct list_head waiters;	/* struct cond_waiter, arrival order */
	const char *name;
};

void cond_init(struct condvar *cv, const char *name);

/* Release @m (held by the caller), sleep until signalled, take @m
 * again.  Task context, preemption enabled. */
void cond_wait(struct condvar *cv, struct mutex *m);

/* cond_wait(), but give up waiting for a signal after @timeout_ns (0: no
 * limit).  Returns 0 if signalled, -ETIMEDOUT if not; @m is held again
 * either way (taken with mutex_lock(), without a limit). */
int cond_wait_timeout(struct condvar *cv, struct mutex *m,
		      uint64_t timeout_ns);

/* Wake the first waiter (above), if any.  The caller need not hold the
 * mutex.  Task context.  Returns true if one was woken. */
bool cond_signal(struct condvar *cv);

/* Wake every waiter, first ones first.  Task context.  Returns how many
 * were woken. */
int cond_broadcast(struct condvar *cv);
#endif
