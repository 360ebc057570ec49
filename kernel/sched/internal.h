/*
 * internal.h - what the scheduler's files share and nothing else sees
 * (Linux's kernel/sched/sched.h).
 *
 * Lock order, outermost first: task->pi_lock -> rq->lock (one at a time;
 * two runqueues are locked in CPU-id order) -> timer queue locks.
 */
#ifndef SCHED_INTERNAL_H
#define SCHED_INTERNAL_H
#include "sched.h"
#include "cpu.h"

/* enqueue/dequeue flags */
#define ENQUEUE_WAKEUP 0x1	/* the task is waking up */
#define ENQUEUE_NEW 0x2		/* first enqueue of a new task */
#define DEQUEUE_SLEEP 0x1	/* the task is going to sleep */

#define FAIR_SLICE_NS (8 * NSEC_PER_MSEC)

static inline struct rq *cpu_rq(int cpu) { return &cpus[cpu].rq; }
static inline struct rq *this_rq(void) { return &this_cpu()->rq; }

/* True if class @a ranks above class @b. */
bool sched_class_above(const struct sched_class *a, const struct sched_class *b);

/* Ask rq's CPU to reschedule (IPI if remote).  rq->lock held. */
void resched_curr(struct rq *rq);

/* Lock the runqueue @p is on, coping with @p moving meanwhile.  Irqs
 * must be disabled. */
struct rq *task_rq_lock(struct task *p);

/* CPUs @p may run on that are online. */
uint64_t task_cpus_online(struct task *p);

/* thread.c */
void task_init_common(struct task *t, const char *name);	/* + all_tasks */
struct task *task_alloc(const char *name, void (*fn)(void *), void *arg);
void task_free(struct task *t);
void task_trampoline(void *unused) __noreturn;

/* core.c: called by the new task first thing / by each switch's winner. */
void finish_task_switch(void);
/* core.c: make a freshly created task runnable. */
void wake_up_new_task(struct task *p);
#endif
