/*
 * sched_rt.h - per-task and per-runqueue state of the RT class
 * (kernel/sched/rt.c).  Included by sched.h only.  Every field is
 * protected by the runqueue lock of the rq the task is queued on, except
 * where a comment says a field is also read locklessly.
 */
#ifndef SCHED_RT_H
#define SCHED_RT_H
#include "list.h"
#include "timer.h"

#define RT_NR_LEVELS 100		/* task->prio 0..99, MAX_RT_PRIO */

struct sched_rt_entity {
	struct list_head run_list;	/* rt_rq->queue[p->prio] */
	uint64_t time_slice_ns;		/* SCHED_RR: what is left */
	int level;			/* queue it is on, -1: none */
	bool migratory;			/* counted in rt_nr_migratory (decided
					   at enqueue, undone at dequeue) */
};

#endif
