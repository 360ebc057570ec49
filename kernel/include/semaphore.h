/*
 * semaphore.h - counting semaphores (kernel/locking/semaphore.c).
 *
 * A semaphore holds a count of units.  sema_down() takes one, sleeping
 * while there is none; sema_up() gives one back.  Unlike a mutex it has
 * no owner: any task may up a semaphore another downed, so nothing is
 * lent to anyone while a task waits (no inheritance, no proxy
 * execution).
 *
 * Waiter order: sema_up() hands its unit straight to the waiter whose
 * effective scheduling context ranks first (sched_prio_before(): an
 * earlier deadline, then a higher RT priority, its own or, under
 * `locking inherit`, one it inherited through a mutex), and among equals
 * to the one that has waited longest.  The rank is read at the up, not
 * at the down, so a waiter boosted while it waits is served as boosted
 * (Pintos' priority-sema and priority-donate-sema).  A handed unit cannot
 * be taken by a task that downs in between.
 *
 * Lock order: semaphore lock -> rq->lock (sema_up wakes under its lock,
 * so that the waiter, which looks at its grant under the same lock, is
 * never gone while it is being woken).  Nothing takes a semaphore's lock
 * under a runqueue lock.
 */
#ifndef SEMAPHORE_H
#define SEMAPHORE_H
#include "kernel.h"
#include "list.h"
#include "spinlock.h"

struct semaphore {
	spinlock_t lock;		/* count and waiters; irq-safe */
	int count;			/* units free; 0 while anyone waits */
	struct list_head waiters;	/* struct sema_waiter, arrival order */
	const char *name;
};

/* Set up @s with @count units (>= 0). */
void sema_init(struct semaphore *s, int count, const char *name);

/* Take a unit, sleeping until one is given.  Task context, preemption
 * enabled. */
void sema_down(struct semaphore *s);

/* Take a unit, sleeping at most @timeout_ns (0: no limit).  Returns 0,
 * or -ETIMEDOUT without a unit.  A wakeup for any other reason is not
 * an end of the wait.  Task context, preemption enabled. */
int sema_down_timeout(struct semaphore *s, uint64_t timeout_ns);

/* Take a unit if one is free, never sleeping.  Any context. */
bool sema_trydown(struct semaphore *s);

/* Give a unit back: to the first waiter (above), woken, or to the
 * count.  Any context. */
void sema_up(struct semaphore *s);

/* Units free now (a snapshot, for reports). */
static inline int sema_count(const struct semaphore *s)
{
	return READ_ONCE(s->count);
}
#endif
