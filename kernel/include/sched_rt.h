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

struct rt_rq {
	uint64_t bitmap[2];		/* bit p set: queue[p] not empty */
	struct list_head queue[RT_NR_LEVELS];	/* indexed by task->prio */
	unsigned rt_nr_running;		/* queued RT tasks, running one too */
	unsigned rt_nr_migratory;	/* ... of which may use > 1 CPU */
	/* Most important queued level (lowest index), RT_NR_LEVELS when
	 * none.  Read locklessly by other CPUs' push/select (a hint, they
	 * recheck under the lock). */
	int highest_prio;
	bool overloaded;		/* in rt_rto_mask (see rt.c) */
	int cpu;			/* cpu_of(rq), -1: a private rq (bench)
					   that stays out of cpupri/rto */

	/* Throttling (rt.c): RT time used in the current period. */
	uint64_t rt_time_ns;
	uint64_t period_end_ns;		/* 0: no period open */
	bool throttled;
	struct timer period_timer;	/* unthrottles at period_end_ns */
};
#endif
