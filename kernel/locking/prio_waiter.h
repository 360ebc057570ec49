/*
 * prio_waiter.h - a queue of sleeping tasks served by rank: the first to
 * be served is the one whose effective scheduling context ranks first
 * (sched_prio_before(): a boost counts), the oldest among equals.  The
 * semaphore's waiters (semaphore.c) and the condition variable's
 * (condvar.c) embed one; the queue is in arrival order, the rank is
 * read when a waiter is taken (a waiter boosted while it sleeps is
 * served as boosted).
 */
#ifndef KERNEL_LOCKING_PRIO_WAITER_H
#define KERNEL_LOCKING_PRIO_WAITER_H
#include "list.h"
#include "sched.h"

struct prio_waiter {
	struct list_head list;		/* on the queue, arrival order */
	struct task *task;
};

/* The waiter of @queue to serve first, NULL if none.  The queue's lock
 * held. */
static inline struct prio_waiter *prio_waiter_first(struct list_head *queue)
{
	struct prio_waiter *best = NULL;
	struct list_head *pos;

	list_for_each(pos, queue) {
		struct prio_waiter *w = list_entry(pos, struct prio_waiter,
						   list);

		/* Only a strictly better one replaces: arrival order. */
		if (!best || sched_prio_before(w->task, best->task))
			best = w;
	}
	return best;
}
#endif
