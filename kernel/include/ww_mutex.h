/*
 * ww_mutex.h - wound/wait mutexes (kernel/locking/ww_mutex.c), Linux's
 * API simplified.
 *
 * A task that must take several locks of one class in no fixed order
 * (ABBA is possible) does so inside an acquire context.  Each context
 * gets a stamp from its class when it starts: a lower stamp is older.
 * When two contexts contend, the older one always makes progress and the
 * younger one backs off:
 *
 *   wait-die    (DEFINE_WD_CLASS) a younger context that would wait for
 *               an older one dies: ww_mutex_lock() returns -EDEADLK.  An
 *               older context waits.
 *   wound-wait  (DEFINE_WW_CLASS) an older context that would wait for a
 *               younger owner wounds it (and wakes it if it is blocked),
 *               then waits.  A wounded context gets -EDEADLK at its next
 *               ww_mutex_lock() (or while it waits there).
 *
 * A context that holds no ww_mutex never backs off (it cannot be part of
 * a deadlock).  On -EDEADLK the caller releases every lock of the
 * context and takes the contended one with ww_mutex_lock_slow(), which
 * waits as long as needed, then takes the others again:
 *
 *	ww_acquire_init(&ctx, &my_class);
 *   retry:
 *	for each lock l:
 *		err = ww_mutex_lock(l, &ctx);
 *		if (err == -EDEADLK) {
 *			unlock every lock taken so far;
 *			ww_mutex_lock_slow(l, &ctx);	(now holds l)
 *			goto retry (skipping l, or -EALREADY on it);
 *		}
 *	ww_acquire_done(&ctx);
 *	... use ...
 *	unlock all; ww_acquire_fini(&ctx);
 *
 * Waiters with a context wait in stamp order (oldest first); waiters
 * without one after them, FIFO.  Wakeups of dying and wounded tasks
 * happen after wait_lock is dropped, and the task being woken has its
 * blocked_on set to PROXY_WAKING (set_task_blocked_on_waking), so no
 * blocked-on cycle can form through wound/die (docs/locking.md).
 */
#ifndef WW_MUTEX_H
#define WW_MUTEX_H
#include "mutex.h"

struct ww_class {
	unsigned long stamp;		/* atomic: the next context's stamp */
	bool is_wait_die;
	const char *name;
};

#define DEFINE_WD_CLASS(c) struct ww_class c = { .stamp = 0, \
	.is_wait_die = true, .name = #c }
#define DEFINE_WW_CLASS(c) struct ww_class c = { .stamp = 0, \
	.is_wait_die = false, .name = #c }

struct ww_acquire_ctx {
	struct task *task;		/* the task using it (only that task) */
	unsigned long stamp;		/* lower: older, wins */
	unsigned acquired;		/* ww_mutexes held through it */
	bool wounded;			/* wound-wait: back off at next lock */
	bool done;			/* ww_acquire_done() was called */
	struct ww_class *ww_class;
	int wakers;			/* atomic: tasks about to wake ours
					   (see ww_acquire_fini) */
};

struct ww_mutex {
	struct mutex base;
	struct ww_acquire_ctx *ctx;	/* owner's context (wait_lock) */
	struct ww_class *ww_class;
};

#define WW_MUTEX_INIT(m, c, n) {					\
	.base = MUTEX_INIT((m).base, n),					\
	.ctx = NULL,							\
	.ww_class = (c),						\
}

void ww_mutex_init(struct ww_mutex *m, struct ww_class *c, const char *name);

/* Start an acquire context of class @c for the calling task.  Task
 * context. */
void ww_acquire_init(struct ww_acquire_ctx *ctx, struct ww_class *c);
/* No more locks will be taken in @ctx (a marker; further locking
 * panics). */
void ww_acquire_done(struct ww_acquire_ctx *ctx);
/* End @ctx; panics if it still holds a lock.  Must be called before the
 * context's memory goes away (it waits for wakers still using it). */
void ww_acquire_fini(struct ww_acquire_ctx *ctx);

/*
 * Take @m in context @ctx (NULL: like mutex_lock, never backs off).
 * Returns 0 (held), -EALREADY (@ctx already holds @m: not taken again),
 * or -EDEADLK (back off: release every lock of @ctx, then
 * ww_mutex_lock_slow()).  Task context; misuse panics like mutex_lock.
 */
int ww_mutex_lock(struct ww_mutex *m, struct ww_acquire_ctx *ctx);
/* After backing off (ctx holds nothing): take @m, waiting as long as it
 * takes.  Panics if @ctx still holds a lock. */
void ww_mutex_lock_slow(struct ww_mutex *m, struct ww_acquire_ctx *ctx);
/* Take @m if free; never sleeps, never backs off. */
bool ww_mutex_trylock(struct ww_mutex *m, struct ww_acquire_ctx *ctx);
void ww_mutex_unlock(struct ww_mutex *m);

static inline bool ww_mutex_is_locked(struct ww_mutex *m)
{
	return mutex_is_locked(&m->base);
}

/* ---- Hooks for the mutex slow path (kernel/locking/mutex.c) ---------- */

struct wake_q;
/* Queue @w on m->wait_list in stamp order.  wait_lock held. */
void __ww_mutex_add_waiter(struct mutex *m, struct mutex_waiter *w);
/* -EDEADLK if @w (with a context) must back off now, else 0.  wait_lock
 * held. */
int __ww_mutex_check_kill(struct mutex *m, struct mutex_waiter *w);
/* @m changed owner or got a new waiter: mark the waiters that must die
 * and wound a younger owner; the tasks to wake go on @q.  Returns false
 * if @q is full (wake it, then call again: marked tasks are skipped).
 * wait_lock held. */
bool __ww_mutex_check_waiters(struct mutex *m, struct wake_q *q);
/* The current task just took @m (a ww_mutex) with context @ctx.
 * wait_lock held. */
void __ww_mutex_acquired(struct mutex *m, struct ww_acquire_ctx *ctx);
#endif
