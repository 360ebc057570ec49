/*
 * mutex_pi.h - the priority-inheritance part of the mutex code
 * (kernel/locking/mutex_pi.c), used by mutex.c only: the list of waiters
 * that lend their priority, the walks that pass it on, and which waiter
 * an unlock gives the lock to, in the locking mode "inherit".  Lock
 * order: kernel/include/mutex.h.
 */
#ifndef KERNEL_LOCKING_MUTEX_PI_H
#define KERNEL_LOCKING_MUTEX_PI_H
#include "mutex.h"
#include "sched.h"

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

/* The waiter an unlock of @m gives the lock to in inherit mode: the
 * most important one (mutex_pi.c).  *@ranked: whether any waiter runs
 * as RT or deadline (then the lock is handed over).  m->wait_lock and
 * pi_walk_lock held, wait_list not empty. */
struct mutex_waiter *pi_top_waiter(struct mutex *m, bool *ranked);

/* True if @p's context (its own or inherited) is RT or deadline, the
 * contexts inherit mode orders waiters by.  Racy; any context. */
static inline bool pi_task_ranked(struct task *p)
{
	return READ_ONCE(p->prio) < MAX_RT_PRIO;
}

/* Put @w on the list of waiters that lend their priority (it counts
 * once w->pi_active is set, under wait_lock). */
void pi_register(struct mutex_waiter *w);

/* Take @w off that list; after taking the lock (@acquired), also walk
 * for w's task, which may now own waiters that lend to it. */
void pi_unregister(struct mutex_waiter *w, bool acquired);
#endif
