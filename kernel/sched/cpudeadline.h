/*
 * cpudeadline.h - where a deadline task can run soonest (Linux's
 * kernel/sched/cpudeadline.h): a max-heap of CPUs keyed by the earliest
 * deadline queued on each, plus a mask of CPUs with no deadline task.
 * Used by deadline.c only, for select_task_rq and push.
 *
 * One global lock, innermost: rq->lock -> cpudl lock.  Callers of
 * cpudl_set/cpudl_clear hold the rq lock of @cpu, so the value for a CPU
 * changes in the same order as its runqueue.  cpudl_find takes the lock
 * itself and may be called holding only p->pi_lock.
 */
#ifndef SCHED_CPUDEADLINE_H
#define SCHED_CPUDEADLINE_H
#include "kernel.h"

/* @cpu's runqueue comes up empty of deadline tasks.  Boot, per CPU. */
void cpudl_init_cpu(int cpu);
/* The earliest deadline queued on @cpu is now @dl. */
void cpudl_set(int cpu, uint64_t dl);
/* @cpu has no deadline task left: it is free. */
void cpudl_clear(int cpu);
/*
 * A CPU in @allowed where a task with absolute deadline @dl would run
 * at once: a free one if any (@prefer first), else the CPU whose earliest
 * deadline is the latest, if that is later than @dl.  -1 if none.
 */
int cpudl_find(uint64_t allowed, uint64_t dl, int prefer);
#endif
