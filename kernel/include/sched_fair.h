/*
 * sched_fair.h - per-task and per-runqueue state of the fair class
 * (kernel/sched/fair.c, EEVDF as in Linux >= 6.6).  Included by sched.h.
 *
 * Virtual time: an entity's vruntime advances by delta * 1024 / weight.
 * V, the weighted average vruntime of the queue, is kept as
 *   avg_vruntime = sum (v_i - min_vruntime) * w_i,  avg_load = sum w_i
 * over the entities in the tree (curr is added when V is read).  An
 * entity is eligible when v_i <= V; its virtual deadline is
 * vruntime + slice * 1024 / weight.  Every field: the rq lock.
 */
#ifndef SCHED_FAIR_H
#define SCHED_FAIR_H
#include "rbtree.h"
#include "timer.h"

struct rq;
struct cfs_rq;

struct sched_entity {
	struct rb_node run_node;	/* cfs_rq->tasks_timeline, by deadline */
	unsigned long weight;		/* sched_prio_to_weight[nice + 20] */
	uint64_t slice;			/* request size, ns of real time */
	bool custom_slice;		/* slice from sched_attr.slice_ns */
	bool on_rq;			/* counted in its cfs_rq (curr too) */
	bool rel_deadline;		/* deadline is relative to vruntime
					   (out for a move / a change) */
	bool protect;			/* run to parity: keep the CPU until
					   this request is used up */
	uint64_t vruntime;		/* virtual runtime */
	uint64_t deadline;		/* virtual deadline */
	uint64_t min_vruntime;		/* augmented: min over the subtree */
	int64_t vlag;			/* V - vruntime when it left the queue */
	struct cfs_rq *lag_cfs_rq;	/* which queue vlag was taken on */
};

#endif
