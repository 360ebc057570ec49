/*
 * mutex_pi.h - the priority-inheritance part of the mutex code
 * (kernel/locking/mutex_pi.c), used by mutex.c only: the list of waiters
 * that lend their priority and the walks that pass it on, in the
 * locking mode "inherit".  Lock order: kernel/include/mutex.h.
 */
#ifndef KERNEL_LOCKING_MUTEX_PI_H
#define KERNEL_LOCKING_MUTEX_PI_H
#include "mutex.h"

/* Take / drop pi_walk_lock, the one lock every walk runs under.  Never
 * taken with another lock held. */
unsigned long pi_walk_begin(void);
void pi_walk_end(unsigned long flags);

/* Recompute @p's inherited priority, then its owner's along p's
 * blocked_on chain.  pi_walk_lock held. */
void pi_walk_locked(struct task *p);

/* Walk from @m's owner (takes pi_walk_lock); the caller is a waiter
 * still queued on @m, which keeps that owner from leaving. */
void pi_walk_from(struct mutex *m);

/* Put @w on the list of waiters that lend their priority (it counts
 * once w->pi_active is set, under wait_lock). */
void pi_register(struct mutex_waiter *w);

/* Take @w off that list; after taking the lock (@acquired), also walk
 * for w's task, which may now own waiters that lend to it. */
void pi_unregister(struct mutex_waiter *w, bool acquired);
#endif
