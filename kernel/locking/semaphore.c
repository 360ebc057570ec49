/*
 * semaphore.c - counting semaphores (kernel/include/semaphore.h).
 *
 * A waiter queues a struct sema_waiter on its stack and sleeps; sema_up
 * picks the waiter that ranks first (semaphore.h, "Waiter order"), takes
 * it off the queue, sets its grant and wakes it, all under s->lock.  The
 * waiter looks at its grant under s->lock too, so it sees the grant or
 * sleeps with TASK_SLEEPING set before the up can wake it:
 *
 *   waiter (cpu0)                         upper (cpu1)
 *   lock; count 0: queue w
 *   state = SLEEPING; granted? no
 *   unlock                                lock
 *                                         w off the queue, granted = 1
 *                                         wake_up(w.task): RUNNING
 *                                         unlock
 *   schedule(): RUNNING, returns
 *   lock; granted? yes: done
 *
 * Had the up come before the waiter's look, the waiter would have seen
 * the grant.  Because the upper wakes before it unlocks, the waiter
 * (which must take the lock to return) cannot have returned, and its
 * stack and task are still there, while it is being woken.
 */
#include "semaphore.h"
#include "prio_waiter.h"
#include "cpu.h"
#include "sched.h"
#include "timer.h"

struct sema_waiter {
	struct prio_waiter pw;		/* on s->waiters until granted */
	bool granted;			/* s->lock: the unit is ours */
};

void sema_init(struct semaphore *s, int count, const char *name)
{
	if (count < 0)
		panic("sema_init(%s): count %d below 0", name, count);
	spin_init(&s->lock, "semaphore lock");
	s->count = count;
	list_init(&s->waiters);
	s->name = name;
}

static void sema_timeout_fn(struct timer *t)
{
	wake_up(t->data);
}

bool sema_trydown(struct semaphore *s)
{
	unsigned long flags = spin_lock(&s->lock);
	bool got = s->count > 0;

	if (got)
		s->count--;
	spin_unlock(&s->lock, flags);
	return got;
}

int sema_down_timeout(struct semaphore *s, uint64_t timeout_ns)
{
	struct task *self = current();
	struct sema_waiter w = { .pw.task = self };
	uint64_t deadline = timeout_ns ? clock_ns() + timeout_ns : 0;
	struct timer tm;
	unsigned long flags;

	if (this_cpu_preempt_count())
		panic("sema_down(%s) with preemption disabled", s->name);
	flags = spin_lock(&s->lock);
	if (s->count > 0) {
		s->count--;
		spin_unlock(&s->lock, flags);
		return 0;
	}
	list_add_tail(&w.pw.list, &s->waiters);
	if (deadline) {
		timer_init(&tm, sema_timeout_fn, self);
		timer_arm(&tm, deadline);
	}
	for (;;) {
		WRITE_ONCE(self->state, TASK_SLEEPING);
		if (w.granted || (deadline && clock_ns() >= deadline))
			break;
		spin_unlock(&s->lock, flags);
		schedule();
		flags = spin_lock(&s->lock);
	}
	WRITE_ONCE(self->state, TASK_RUNNING);
	if (!w.granted)
		list_del_init(&w.pw.list);
	spin_unlock(&s->lock, flags);
	if (deadline)
		timer_cancel(&tm);
	return w.granted ? 0 : -ETIMEDOUT;
}

void sema_down(struct semaphore *s)
{
	sema_down_timeout(s, 0);
}

void sema_up(struct semaphore *s)
{
	unsigned long flags = spin_lock(&s->lock);
	struct prio_waiter *pw = prio_waiter_first(&s->waiters);

	if (pw) {
		struct sema_waiter *w = container_of(pw, struct sema_waiter,
						     pw);

		list_del_init(&pw->list);
		w->granted = true;
		wake_up(pw->task);
	} else {
		s->count++;
	}
	spin_unlock(&s->lock, flags);
}
