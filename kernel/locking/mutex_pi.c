/*
 * mutex_pi.c - priority inheritance walks for the locking mode "inherit"
 * (what Linux's rt_mutex does in rt_mutex_adjust_prio_chain()).
 *
 * A walk for owner O ranks, with sched_prio_before(), the waiters whose
 * mutex O owns, lends the best one's context to O (sched_set_pi_donor,
 * kernel/sched/inherit.c), then follows O->blocked_on to that mutex's
 * owner, and so on.  mutex.c calls the walks from its slow paths, and
 * asks pi_top_waiter() which waiter an unlock hands the lock to; the
 * interface is mutex_pi.h.
 *
 * Every waiter that lends its priority is on pi_waiters, and every walk
 * runs under pi_walk_lock.  One global lock, because it is simple and
 * this is a teaching kernel: walks are rare (contended slow paths in
 * inherit mode only) and short.  The global list, rather than the
 * owner's held_mutexes, is what a walk scans: held_mutexes is kept by
 * the fast paths without a lock, so only its own task may read it.  A
 * walk for owner O ranks the active waiters whose mutex O owns.
 *
 * Why the tasks a walk touches are alive: the walk starts from a mutex
 * that has a queued waiter (the caller, still on wait_list) or from the
 * caller itself, and follows blocked_on links of queued waiters.  Such a
 * mutex has WAITERS set, so its owner can only release it through the
 * unlock slow path, which in inherit mode holds pi_walk_lock around the
 * release and its own re-walk; a queued waiter leaves (with or without
 * the lock) only after a walk or an unregister under pi_walk_lock.  So
 * while a walk holds pi_walk_lock, none of the tasks it reaches can get
 * past the mutex code, let alone exit.
 */
#include "cpu.h"
#include "blocked_on.h"
#include "mutex_pi.h"
#include "sched.h"

static spinlock_t pi_walk_lock = SPINLOCK_INIT("mutex pi_walk_lock");
static LIST_HEAD(pi_waiters);		/* struct mutex_waiter.pi_node */
#define PI_MAX_DEPTH 16			/* chain hops; a cycle stops here */

unsigned long pi_walk_begin(void)
{
	return spin_lock(&pi_walk_lock);
}

void pi_walk_end(unsigned long flags)
{
	spin_unlock(&pi_walk_lock, flags);
}

void pi_walk_locked(struct task *p)
{
	/* LAB 8 BEGIN: lend the top waiter's context along the chain */
	for (int depth = 0; p && depth < PI_MAX_DEPTH; depth++) {
		struct task *top = NULL;
		struct list_head *pos;
		struct mutex *next;

		list_for_each(pos, &pi_waiters) {
			struct mutex_waiter *w = list_entry(pos,
					struct mutex_waiter, pi_node);

			if (!READ_ONCE(w->pi_active) || w->task == p ||
			    mutex_owner(w->lock) != p)
				continue;
			if (!top || sched_prio_before(w->task, top))
				top = w->task;
		}
		sched_set_pi_donor(p, top);
		next = get_task_blocked_on(p);
		if (!next || next == PROXY_WAKING)
			break;
		p = mutex_owner(next);
	}
	/* LAB 8 STUB
	(void)p;
	LAB 8 END */
}

void pi_walk_from(struct mutex *m)
{
	unsigned long flags = spin_lock(&pi_walk_lock);

	pi_walk_locked(mutex_owner(m));
	spin_unlock(&pi_walk_lock, flags);
}

void pi_register(struct mutex_waiter *w)
{
	unsigned long flags = spin_lock(&pi_walk_lock);

	list_add_tail(&w->pi_node, &pi_waiters);
	spin_unlock(&pi_walk_lock, flags);
}

void pi_unregister(struct mutex_waiter *w, bool acquired)
{
	unsigned long flags = spin_lock(&pi_walk_lock);

	list_del_init(&w->pi_node);
	if (acquired)
		pi_walk_locked(w->task);
	spin_unlock(&pi_walk_lock, flags);
}

/*
 * The waiter an unlock gives @m to in inherit mode, rt_mutex's top
 * waiter: the one whose effective scheduling context (its own or what it
 * inherits, the context sched_prio_before ranks) runs first: the earliest
 * deadline, then the highest RT priority; among equals the first to
 * arrive (wait_list is in arrival order and only a strictly better
 * waiter replaces the one found so far; fair waiters are all equal).
 * Waiters with a wound/wait context come first in stamp order, which
 * wait-die and wound-wait rely on: the first of them gets the lock
 * (and, handed it, inherits at once from the more important ones behind
 * it: mutex.c walks for it).
 *
 * Chosen by a scan at unlock rather than kept in a sorted list: a
 * waiter's effective context changes while it waits (a boost through a
 * mutex it holds, sched_setattr) without the mutex code being told, and
 * a sorted list would need a requeue in each of those places (Linux's
 * rt_mutex_adjust_prio_chain).  The scan sees the context of now; the
 * unlock holds pi_walk_lock, so no walk changes a waiter's inherited
 * context meanwhile.  It costs one look per waiter on contended unlocks
 * in inherit mode, as the walks do.
 */
struct mutex_waiter *pi_top_waiter(struct mutex *m, bool *ranked)
{
	struct mutex_waiter *first = list_first_entry(&m->wait_list,
						      struct mutex_waiter, list);
	/* LAB 8 BEGIN: the waiter whose effective context runs first */
	struct mutex_waiter *top = first;
	struct list_head *pos;

	for (pos = first->list.next; pos != &m->wait_list; pos = pos->next) {
		struct mutex_waiter *w = list_entry(pos, struct mutex_waiter,
						    list);

		/* A fair context ranks before nothing: one read skips it. */
		if (pi_task_ranked(w->task) &&
		    sched_prio_before(w->task, top->task))
			top = w;
	}
	*ranked = pi_task_ranked(top->task);
	return first->ww_ctx ? first : top;
	/* LAB 8 STUB
	*ranked = pi_task_ranked(first->task);
	return first;
	LAB 8 END */
}
