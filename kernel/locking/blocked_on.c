/*
 * blocked_on.c - a task's blocked_on link and the wake queue, shared by
 * the mutex slow paths (mutex.c), wound/wait (ww_mutex.c) and the proxy
 * scheduler (kernel/sched/proxy.c).  What the link means, its values and
 * its lock: kernel/include/blocked_on.h.
 */
#include "cpu.h"
#include "blocked_on.h"
#include "sched.h"

/* ---- blocked_on ------------------------------------------------------ */

void set_task_blocked_on(struct task *p, struct mutex *m)
{
	struct mutex *old;

	spin_lock_raw(&p->blocked_lock);
	old = p->blocked_on;
	if (old && old != PROXY_WAKING && old != m)
		panic("task %s: blocks on mutex '%s' while blocked on '%s'",
		      p->name, m->name, old->name);
	if (!old)
		__atomic_add_fetch(&mutex_nr_blocked, 1, __ATOMIC_SEQ_CST);
	WRITE_ONCE(p->blocked_on, m);
	spin_unlock_raw(&p->blocked_lock);
}

void clear_task_blocked_on(struct task *p, struct mutex *m)
{
	struct mutex *old;

	spin_lock_raw(&p->blocked_lock);
	old = p->blocked_on;
	if (old && old != PROXY_WAKING && old != m)
		panic("task %s: stops waiting for mutex '%s' but waits on '%s'",
		      p->name, m ? m->name : "?", old->name);
	if (old)
		__atomic_sub_fetch(&mutex_nr_blocked, 1, __ATOMIC_SEQ_CST);
	WRITE_ONCE(p->blocked_on, NULL);
	spin_unlock_raw(&p->blocked_lock);
}

bool set_task_blocked_on_waking(struct task *p, struct mutex *m)
{
	struct mutex *old;
	bool marked = false;

	spin_lock_raw(&p->blocked_lock);
	old = p->blocked_on;
	if (old && old != PROXY_WAKING && (!m || old == m)) {
		WRITE_ONCE(p->blocked_on, PROXY_WAKING);
		marked = true;
	}
	spin_unlock_raw(&p->blocked_lock);
	return marked;
}

/* ---- Wake queue ------------------------------------------------------ */

bool wake_q_add(struct wake_q *q, struct task *p, int *pin)
{
	for (int i = 0; i < q->n; i++)
		if (q->e[i].task == p)
			return true;		/* one wakeup is enough */
	if (q->n == WAKE_Q_MAX)
		return false;
	__atomic_add_fetch(pin, 1, __ATOMIC_SEQ_CST);
	q->e[q->n].task = p;
	q->e[q->n].pin = pin;
	q->n++;
	return true;
}

void wake_q_unlock(struct wake_q *q, spinlock_t *l, unsigned long flags)
{
	if (!q->n) {
		spin_unlock(l, flags);
		return;
	}
	/* Not preempted between dropping @l and the last unpin: the woken
	 * tasks wait for their pins (see struct wake_q).  preempt_disable()
	 * without its interrupt masking: they are off while @l is held. */
	this_cpu()->preempt_count++;
	spin_unlock(l, flags);
	for (int i = 0; i < q->n; i++) {
		wake_up(q->e[i].task);
		__atomic_sub_fetch(q->e[i].pin, 1, __ATOMIC_RELEASE);
	}
	q->n = 0;
	preempt_enable();
}
