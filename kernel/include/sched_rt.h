/*
 * sched_rt.h - per-task and per-runqueue state of the RT class
 * (kernel/sched/rt.c).  Included by sched.h only.
 */
#ifndef SCHED_RT_H
#define SCHED_RT_H
#include "list.h"

struct sched_rt_entity {
	struct list_head run_list;	/* rt_rq->queue[prio] (rq lock) */
	uint64_t time_slice_ns;		/* SCHED_RR: what is left */
};

struct rt_rq {
	uint64_t bitmap[2];		/* bit p set: queue[p] not empty */
	struct list_head queue[100];	/* indexed by task->prio 0..99 */
	unsigned rt_nr_running;
};
#endif
