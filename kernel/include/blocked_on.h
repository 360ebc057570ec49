/*
 * blocked_on.h - which mutex a task waits for, as the mutex code and the
 * scheduler share it (kernel/locking/blocked_on.c): the blocked_on link,
 * its PROXY_WAKING mark, and the wake queue that wakes waiters once a
 * mutex's wait_lock is dropped.  The one locking header kernel/sched/
 * needs: proxy execution follows blocked_on -> mutex -> owner (the
 * mutex's owner word and wait_lock, from mutex.h) and marks a waiter it
 * hands a lock to.  The lock order is in mutex.h.
 */
#ifndef BLOCKED_ON_H
#define BLOCKED_ON_H
#include "mutex.h"
#include "sched.h"		/* struct task: get_task_blocked_on() */

/* Number of tasks now blocked on any mutex (blocked_on not NULL; for
 * locking_set_mode and the tests).  Atomic. */
extern int mutex_nr_blocked;

/*
 * blocked_on values other than a mutex: PROXY_WAKING marks a waiter that
 * has been chosen to take the lock (or wounded / told to die) and woken;
 * it is runnable and will retake wait_lock, look at the lock again and
 * either own it or block again.  It is not simply cleared so that no
 * blocked-on cycle can form while it is on its way (see docs/proxy.md).
 */
#define PROXY_WAKING ((struct mutex *)1UL)

/*
 * Set/clear/query @p's blocked_on under p->blocked_lock.  The mutex
 * code calls the setters with m->wait_lock held (interrupts off).
 *
 * set_task_blocked_on(p, m): p starts (or, after PROXY_WAKING, resumes)
 *   waiting on m; panics if p already waits on another mutex.  Counts p
 *   in mutex_nr_blocked when it was not blocked before.
 * clear_task_blocked_on(p, m): p stops waiting (it owns m, or gave up);
 *   panics if p waits on a mutex other than m.
 * set_task_blocked_on_waking(p, m): p, a waiter on m, was chosen (lock
 *   handed to it, timed out, wounded, told to die) and is about to be
 *   woken: blocked_on becomes PROXY_WAKING.  @m NULL: whatever mutex p
 *   waits on (a wound, whose waker holds another mutex's wait_lock).  No
 *   effect if p does not wait on @m (or on anything, for NULL) or is
 *   already marked.  Returns true if it marked p (the caller wakes it).
 * get_task_blocked_on(p): a snapshot; any context.
 */
void set_task_blocked_on(struct task *p, struct mutex *m);
void clear_task_blocked_on(struct task *p, struct mutex *m);
bool set_task_blocked_on_waking(struct task *p, struct mutex *m);
/* A snapshot: taking blocked_lock only to read one aligned word gives
 * nothing more (the value may change as soon as the lock is dropped)
 * and cost each proxy hop and PI walk step two lock round trips.
 * Acquire: what the caller reads through the mutex after this read is
 * not older than it (pairs with the lock release that published the
 * value). */
static inline struct mutex *get_task_blocked_on(struct task *p)
{
	return smp_load_acquire(&p->blocked_on);
}

/*
 * A small list of tasks to wake once wait_lock is dropped (wakeups under
 * wait_lock would take pi_lock and rq->lock inside it, against the lock
 * order).  Each entry pins the memory that keeps its task from leaving
 * the mutex code (a waiter's or an acquire context's `wakers`): the task
 * waits for its pin to drop to 0 before it returns, so a woken task
 * cannot exit and be freed under its waker's feet.  The waker wakes
 * with preemption disabled, so that wait is short.
 */
#define WAKE_Q_MAX 8
struct wake_q {
	int n;
	struct { struct task *task; int *pin; } e[WAKE_Q_MAX];
};

/* Empty @q.  Only the count: entries are written before they are read,
 * and an initializer would clear all of them on every slow path (a
 * memset of 136 bytes, 75 instructions on riscv64). */
static inline void wake_q_init(struct wake_q *q)
{
	q->n = 0;
}
/* Add @p, pinning *@pin.  False if @q is full.  wait_lock held. */
bool wake_q_add(struct wake_q *q, struct task *p, int *pin);
/* Drop @l (taken with spin_lock, @flags), then wake and unpin every task
 * of @q and empty it. */
void wake_q_unlock(struct wake_q *q, spinlock_t *l, unsigned long flags);
#endif
