/*
 * sched_fair.h - per-task and per-runqueue state of the fair class
 * (kernel/sched/fair.c, EEVDF).  Included by sched.h only.
 */
#ifndef SCHED_FAIR_H
#define SCHED_FAIR_H
#include "list.h"
#include "rbtree.h"

struct sched_entity {
	struct rb_node run_node;	/* cfs_rq->tasks_timeline (rq lock) */
	struct list_head rr_node;	/* TEMPORARY round robin */
	uint64_t slice_end_ns;		/* TEMPORARY round robin */
	unsigned long weight;		/* from the nice level */
	uint64_t slice;			/* request size, ns of real time */
	bool custom_slice;		/* slice from sched_attr.slice_ns */
	bool on_rq;			/* accounted in the cfs_rq's load */
	uint64_t vruntime;		/* virtual runtime */
	uint64_t deadline;		/* virtual deadline */
	uint64_t min_vruntime;		/* augmented: min over the subtree */
	int64_t vlag;			/* V - vruntime, kept while asleep */
	uint64_t vprot;			/* run to parity: protected until */
};

struct cfs_rq {
	struct list_head queue;		/* TEMPORARY round robin */
	unsigned nr_running;		/* fair tasks queued, curr included */
	unsigned long load;		/* sum of their weights */
	uint64_t min_vruntime;		/* monotonic base of avg_vruntime */
	int64_t avg_vruntime;		/* sum (v_i - min_vruntime) * w_i */
	unsigned long avg_load;		/* sum w_i (of the tree's entities) */
	struct rb_root_cached tasks_timeline;
	struct sched_entity *curr;	/* the running fair entity, or NULL */
	unsigned balance_ticks;		/* ticks until the next balance */
};
#endif
