/*
 * mutex.h - sleeping mutexes (kernel/locking/mutex.c).
 *
 * A mutex is owned by a task, not a CPU: the owner may sleep, be
 * preempted or migrate while holding it, and only the owner may unlock
 * it.  Waiters queue FIFO on wait_list.  What a waiter does while it
 * waits, and which waiter an unlock gives the lock to, depend on the
 * locking mode (locking_mode, below):
 *
 *   proxy    it stays on its runqueue, blocked_on set; the scheduler may
 *            pick it and run the owner in its place (kernel/sched/proxy.c);
 *            the lock is handed to the donor the owner runs for, else
 *            released and the first waiter woken (a spinner may take it
 *            first)
 *   inherit  it sleeps; the owner's priority is raised to the best
 *            waiter's, transitively (classic priority inheritance); the
 *            lock goes to the most important waiter (earliest deadline,
 *            highest RT priority, then arrival), as with Linux's
 *            rt_mutex: handed to it if it is RT or deadline, else as
 *            in none
 *   none     it sleeps; nothing is lent to the owner; the lock is
 *            released and the first waiter woken (a spinner may take it
 *            first)
 *
 * The owner word
 * --------------
 * owner holds the owning task's address (kmalloc aligns tasks to 16
 * bytes, so the three low bits are free) ORed with flags:
 *
 *   MUTEX_FLAG_WAITERS  wait_list is non-empty: unlock must take the slow
 *                       path and wake someone.
 *   MUTEX_FLAG_HANDOFF  the first waiter asked for the lock to be handed
 *                       to it (it was woken but a spinner stole the lock);
 *                       unlock then writes the chosen task into owner
 *                       instead of clearing it.  Unlock also hands over
 *                       unasked to a proxy donor that boosted it, and in
 *                       inherit mode to an RT or deadline waiter.
 *   MUTEX_FLAG_PICKUP   the lock has been handed to the task in owner,
 *                       which has not yet seen it; nobody else may take it.
 *
 * owner == 0 means unlocked.  The fast paths are one compare-and-swap:
 * lock 0 -> current, unlock current -> 0 (fails if any flag is set).
 *
 * Who may change the owner word: anyone with a compare-and-swap from 0
 * (the fast path, a spinner, a waiter under wait_lock); the owner with a
 * compare-and-swap to 0 when no flag is set; under wait_lock, the owner
 * in the unlock slow path (release or handoff) and a waiter setting
 * WAITERS / HANDOFF (an atomic OR, so a racing fast unlock fails and
 * takes the slow path) or picking up a handoff.
 *
 * Lock order (documented once, here):
 *
 *   pi_walk_lock -> task pi_lock -> rq->lock -> mutex wait_lock
 *                                                   -> task blocked_lock
 *
 * pi_walk_lock (kernel/locking/mutex_pi.c) is one global lock serialising
 * the inherit-mode priority walks; nothing takes it while holding any
 * other lock.  blocked_lock serialises a task's blocked_on and
 * blocked_donor; it is innermost.
 *
 * held_mutexes (struct task) is private to its task: only the task
 * itself adds to it (when it acquires, including a handoff it picks
 * up), removes from it (before it releases) and reads it (at exit), so
 * the fast paths keep it without a lock.  Nobody else may walk it.
 */
#ifndef MUTEX_H
#define MUTEX_H
#include "kernel.h"
#include "list.h"
#include "spinlock.h"

struct task;

#define MUTEX_FLAG_WAITERS	0x01UL
#define MUTEX_FLAG_HANDOFF	0x02UL
#define MUTEX_FLAG_PICKUP	0x04UL
#define MUTEX_FLAGS		0x07UL

struct mutex {
	unsigned long owner;		/* task | MUTEX_FLAG_*, see above */
	spinlock_t wait_lock;		/* protects wait_list, irq-safe */
	struct list_head wait_list;	/* struct mutex_waiter, arrival order */
	struct list_head held_node;	/* on the owner's held_mutexes */
	const char *name;		/* for reports: misuse, deadlock, ps */
	/* name if the trace may keep the pointer (a string in the kernel
	 * image, which never changes), else NULL: a record copies the name
	 * (trace_keep_name()).  Decided once here, not per record. */
	const char *trace_name;
};

#define MUTEX_INIT(m, n) {						\
	.owner = 0,							\
	.wait_lock = SPINLOCK_INIT("mutex wait_lock"),			\
	.wait_list = LIST_HEAD_INIT((m).wait_list),			\
	.held_node = LIST_HEAD_INIT((m).held_node),			\
	.name = n,							\
	.trace_name = "" n,	/* a string literal (in the image) */	\
}
#define DEFINE_MUTEX(m) struct mutex m = MUTEX_INIT(m, #m)

void mutex_init(struct mutex *m, const char *name);

/*
 * A task waiting for a mutex: on the waiter's stack, on m->wait_list
 * (under m->wait_lock) from when it queues until it leaves with or
 * without the lock.  In arrival order for plain waiters; ww waiters with
 * an acquire context come first, ordered by stamp (ww_mutex.h).  The
 * list is never reordered: inherit mode picks the most important waiter
 * from it at unlock (kernel/locking/mutex_pi.c, pi_top_waiter).
 */
struct ww_acquire_ctx;
struct mutex_waiter {
	struct list_head list;		/* on m->wait_list */
	struct task *task;
	struct mutex *lock;
	struct ww_acquire_ctx *ww_ctx;	/* NULL for a plain waiter */
	/* inherit mode: on the global list of waiters that lend their
	 * priority (pi_node), and whether this one counts (pi_active,
	 * written under wait_lock, read under pi_walk_lock). */
	struct list_head pi_node;
	bool pi_active;
	int wakers;			/* atomic: wakers holding a pointer to
					   task (it may not return before 0) */
};

/*
 * Take @m, sleeping (or donating, in proxy mode) while another task
 * holds it.  Task context only: from an interrupt, or when the caller
 * already holds @m, or with preemption disabled, it panics naming the
 * mutex, the task and the owner.
 */
void mutex_lock(struct mutex *m);

/*
 * Like mutex_lock(), but give up after @timeout_ns nanoseconds of waiting
 * (0: wait forever).  Returns 0 with the lock held, -ETIMEDOUT without.
 * A timed-out waiter leaves the wait list cleanly (and stops donating).
 */
int mutex_lock_timeout(struct mutex *m, uint64_t timeout_ns);

/* Take @m if it is free; never sleeps.  Returns true if taken.  Task
 * context (an interrupt may not own a mutex). */
bool mutex_trylock(struct mutex *m);

/*
 * Release @m.  Panics naming the mutex, the caller and the real owner if
 * the caller does not own it (including an unlocked mutex).  With
 * waiters, hands the lock to one of them: in proxy mode to the donor
 * that was running the caller (current->blocked_donor) if it waits on
 * @m; in inherit mode to the most important waiter if it is RT or
 * deadline (nobody else can take it first); otherwise the first (in
 * inherit mode: most important) waiter is woken to take it.
 */
void mutex_unlock(struct mutex *m);

/* The owning task, or NULL (racy unless under wait_lock: for reports,
 * checks and the scheduler's chain walk, which re-checks). */
static inline struct task *mutex_owner(const struct mutex *m)
{
	return (struct task *)(READ_ONCE(m->owner) & ~MUTEX_FLAGS);
}

static inline bool mutex_is_locked(const struct mutex *m)
{
	return mutex_owner(m) != NULL;
}

/* ---- Locking mode ---------------------------------------------------- */

enum locking_mode {
	LOCKING_PROXY,			/* default */
	LOCKING_INHERIT,
	LOCKING_NONE,
};

/* Current mode; read at each block/unlock.  Set from the command line
 * (locking=proxy|inherit|none) and the shell (`locking MODE`). */
extern enum locking_mode locking_mode;

/* "proxy" / "inherit" / "none" -> mode; -EINVAL for anything else.
 * Changing the mode while tasks wait on mutexes is refused with -EBUSY
 * (their waiting state was set up by the old mode). */
int locking_set_mode(const char *name);
const char *locking_mode_name(enum locking_mode mode);

/*
 * The slow path shared with ww_mutex.c: wait for @m (timeout_ns 0:
 * forever) as a waiter with acquire context @ww_ctx (NULL: plain).
 * Returns 0 (owned, on held_mutexes), -ETIMEDOUT, or -EDEADLK (ww: back
 * off).  Task context, preemption enabled.
 */
int __mutex_lock_slowpath(struct mutex *m, uint64_t timeout_ns,
			  struct ww_acquire_ctx *ww_ctx);

/* Called by thread_exit(): panic if the exiting task still holds a
 * mutex, naming it (and the task, its owner). */
void mutex_check_exit(struct task *p);

#endif
