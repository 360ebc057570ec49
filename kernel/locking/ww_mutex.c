/*
 * ww_mutex.c - wound/wait mutexes on top of the mutex slow path.
 *
 * The API and the two classes are described in kernel/include/ww_mutex.h.
 * A ww_mutex is a struct mutex plus the owner's acquire context (ctx,
 * changed under wait_lock).  Locking with a context always takes the
 * slow path (kernel/locking/mutex.c), which calls the hooks below under
 * wait_lock:
 *
 *   __ww_mutex_add_waiter    queue in stamp order
 *   __ww_mutex_check_kill    must this waiter back off now?
 *   __ww_mutex_check_waiters after a new waiter or a new owner: mark the
 *                            waiters that must die and wound a younger
 *                            owner; their wakeups go on a wake queue
 *   __ww_mutex_acquired      record the new owner's context
 *
 * Wakeups happen after wait_lock is dropped (wake_q_unlock), and the task
 * to wake is marked PROXY_WAKING first, never simply unblocked: a wounded
 * owner blocked on another mutex keeps "I am on my way back" in its
 * blocked_on, so the proxy scheduler runs it instead of following it to
 * that mutex's owner, and no blocked-on cycle forms.  The race this
 * closes (docs/locking.md has the timeline): without the mark, a wounded
 * task whose blocked_on still names its mutex looks blocked to a chain
 * walk that runs before it is back, while the task that wounded it waits
 * on a lock it holds.
 */
#include "cpu.h"
#include "blocked_on.h"
#include "ww_mutex.h"
#include "sched.h"

static inline struct ww_mutex *to_ww(struct mutex *m)
{
	return container_of(m, struct ww_mutex, base);
}

/* True if @a started before @b (a lower stamp; wrap-safe). */
static inline bool ctx_older(const struct ww_acquire_ctx *a,
			     const struct ww_acquire_ctx *b)
{
	return (long)(a->stamp - b->stamp) < 0;
}

void ww_mutex_init(struct ww_mutex *m, struct ww_class *c, const char *name)
{
	mutex_init(&m->base, name);
	m->ctx = NULL;
	m->ww_class = c;
}

void ww_acquire_init(struct ww_acquire_ctx *ctx, struct ww_class *c)
{
	ctx->task = current();
	ctx->stamp = __atomic_add_fetch(&c->stamp, 1, __ATOMIC_SEQ_CST);
	ctx->acquired = 0;
	ctx->wounded = false;
	ctx->done = false;
	ctx->ww_class = c;
	ctx->wakers = 0;
}

void ww_acquire_done(struct ww_acquire_ctx *ctx)
{
	ctx->done = true;
}

void ww_acquire_fini(struct ww_acquire_ctx *ctx)
{
	if (ctx->acquired)
		panic("ww_acquire_fini: task %s still holds %u ww_mutexes of "
		      "class %s", ctx->task->name, ctx->acquired,
		      ctx->ww_class->name);
	/* A waker that wounded us may still be about to wake us. */
	while (__atomic_load_n(&ctx->wakers, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
}

static void ww_check_ctx(struct ww_mutex *m, struct ww_acquire_ctx *ctx)
{
	struct task *curr = current();

	if (ctx->task != curr)
		panic("ww_mutex '%s': context of task %s used by task %s",
		      m->base.name, ctx->task->name, curr->name);
	if (m->ww_class != ctx->ww_class)
		panic("ww_mutex '%s' (class %s) locked in a context of class %s",
		      m->base.name, m->ww_class->name, ctx->ww_class->name);
	if (ctx->done)
		panic("ww_mutex '%s': locked by task %s after ww_acquire_done",
		      m->base.name, curr->name);
}

int ww_mutex_lock(struct ww_mutex *m, struct ww_acquire_ctx *ctx)
{
	if (!ctx) {
		mutex_lock(&m->base);
		return 0;
	}
	ww_check_ctx(m, ctx);
	if (READ_ONCE(m->ctx) == ctx)
		return -EALREADY;
	if (ctx->acquired == 0)
		WRITE_ONCE(ctx->wounded, false);	/* nothing to give back */
	else if (READ_ONCE(ctx->wounded))
		return -EDEADLK;
	return __mutex_lock_slowpath(&m->base, 0, ctx);
}

void ww_mutex_lock_slow(struct ww_mutex *m, struct ww_acquire_ctx *ctx)
{
	if (ctx->acquired)
		panic("ww_mutex_lock_slow '%s': task %s still holds %u locks",
		      m->base.name, ctx->task->name, ctx->acquired);
	/* Holding nothing, the context never backs off. */
	if (ww_mutex_lock(m, ctx) != 0)
		panic("ww_mutex_lock_slow '%s': backed off holding nothing",
		      m->base.name);
}

bool ww_mutex_trylock(struct ww_mutex *m, struct ww_acquire_ctx *ctx)
{
	struct wake_q q;
	unsigned long flags;

	wake_q_init(&q);
	if (ctx)
		ww_check_ctx(m, ctx);
	if (!mutex_trylock(&m->base))
		return false;
	if (ctx) {
		flags = spin_lock(&m->base.wait_lock);
		__ww_mutex_acquired(&m->base, ctx);
		while (!__ww_mutex_check_waiters(&m->base, &q)) {
			wake_q_unlock(&q, &m->base.wait_lock, flags);
			flags = spin_lock(&m->base.wait_lock);
		}
		wake_q_unlock(&q, &m->base.wait_lock, flags);
	}
	return true;
}

void ww_mutex_unlock(struct ww_mutex *m)
{
	if (READ_ONCE(m->ctx)) {
		/* Under wait_lock: waiters read the owner's context there. */
		unsigned long flags = spin_lock(&m->base.wait_lock);
		struct ww_acquire_ctx *ctx = m->ctx;

		m->ctx = NULL;
		ctx->acquired--;
		spin_unlock(&m->base.wait_lock, flags);
	}
	mutex_unlock(&m->base);
}

/* ---- Slow-path hooks (wait_lock held) -------------------------------- */

void __ww_mutex_acquired(struct mutex *m, struct ww_acquire_ctx *ctx)
{
	to_ww(m)->ctx = ctx;
	ctx->acquired++;
}

void __ww_mutex_add_waiter(struct mutex *m, struct mutex_waiter *w)
{
	struct list_head *pos;

	list_for_each(pos, &m->wait_list) {
		struct mutex_waiter *o = list_entry(pos, struct mutex_waiter,
						    list);

		if (!o->ww_ctx || ctx_older(w->ww_ctx, o->ww_ctx))
			break;
	}
	list_add_tail(&w->list, pos);		/* before pos */
}

int __ww_mutex_check_kill(struct mutex *m, struct mutex_waiter *w)
{
	struct ww_acquire_ctx *ctx = w->ww_ctx, *hold = to_ww(m)->ctx;

	if (ctx->acquired == 0)
		return 0;			/* holds nothing: just wait */
	if (!ctx->ww_class->is_wait_die)
		return READ_ONCE(ctx->wounded) ? -EDEADLK : 0;
	/* Wait-die: younger than the owner, or behind an older waiter
	 * (the list is in stamp order: any context ahead is older). */
	if (hold && hold != ctx && ctx_older(hold, ctx))
		return -EDEADLK;
	for (struct list_head *pos = w->list.prev; pos != &m->wait_list;
	     pos = pos->prev)
		if (list_entry(pos, struct mutex_waiter, list)->ww_ctx)
			return -EDEADLK;
	return 0;
}

/* Wound-wait: the owner's context @hold is younger than waiting @ctx,
 * which holds locks: the owner must back off.  If it waits on another
 * mutex, wake it so it sees the wound there. */
static bool ww_wound(struct ww_acquire_ctx *hold, struct wake_q *q)
{
	if (READ_ONCE(hold->wounded))
		return true;
	if (hold->task == current()) {
		WRITE_ONCE(hold->wounded, true);
		return true;			/* sees it at its next lock */
	}
	if (q->n == WAKE_Q_MAX)
		return false;			/* wound after the wakeups */
	WRITE_ONCE(hold->wounded, true);
	/* Blocked elsewhere: wake it there.  Not blocked: it checks the
	 * flag before it ever sleeps on a mutex (ordered by its
	 * blocked_lock, which set_task_blocked_on takes). */
	if (set_task_blocked_on_waking(hold->task, NULL))
		wake_q_add(q, hold->task, &hold->wakers);
	return true;
}

bool __ww_mutex_check_waiters(struct mutex *m, struct wake_q *q)
{
	struct ww_acquire_ctx *hold = to_ww(m)->ctx;
	struct list_head *pos;
	bool first = true;

	list_for_each(pos, &m->wait_list) {
		struct mutex_waiter *w = list_entry(pos, struct mutex_waiter,
						    list);
		struct ww_acquire_ctx *ctx = w->ww_ctx;

		if (!ctx)
			break;			/* contexts come first */
		if (!ctx->ww_class->is_wait_die) {
			/* Any waiter that holds locks and is older than the
			 * owner wounds it (not only the first one: an older
			 * waiter holding nothing cannot be in a cycle). */
			if (hold && hold != ctx && ctx->acquired > 0 &&
			    ctx_older(ctx, hold))
				return ww_wound(hold, q);
			continue;
		}
		if (ctx->acquired > 0 && w->task != current() &&
		    (!first || (hold && hold != ctx && ctx_older(hold, ctx)))) {
			if (q->n == WAKE_Q_MAX)
				return false;
			/* Already marked: someone is waking it already. */
			if (set_task_blocked_on_waking(w->task, m))
				wake_q_add(q, w->task, &w->wakers);
		}
		first = false;
	}
	return true;
}
