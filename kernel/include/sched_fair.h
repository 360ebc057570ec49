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

struct cfs_rq {
	unsigned nr_running;		/* fair tasks queued, curr included */
	unsigned long load;		/* sum of their weights */
	uint64_t min_vruntime;		/* monotonic base of the keys */
	int64_t avg_vruntime;		/* sum (v_i - min_vruntime) * w_i */
	unsigned long avg_load;		/* sum w_i, tree entities only */
	struct rb_root_cached tasks_timeline;
	struct sched_entity *curr;	/* the running fair entity, or NULL;
					   not in the tree while it runs */
	bool curr_parked;		/* curr is not running: a higher
					   class's task took the CPU from it
					   (put_prev_task_fair).  It stays out
					   of the tree, and competes as curr,
					   until a fair pick takes it back or
					   something needs it in the tree */
	struct timer hrtick;		/* ends the running request on time
					   (armed on this rq's CPU only) */
	unsigned balance_ticks;		/* ticks to the next periodic balance
					   (touched by this CPU's tick only) */
	bool full_pick;			/* curr just entered the class: the
					   next pick lets the classes above
					   pull (fair_pick_next) */
};

/* For tests and benches (fair.c).  rq->lock held. */
/* V, the queue's weighted average vruntime (curr included). */
uint64_t fair_avg_vruntime(struct rq *rq);
/* Walk the whole queue and check every invariant of the tree, the sums
 * and the counts: NULL if all hold, else what is wrong.  O(n). */
const char *fair_rq_verify(struct rq *rq);
/* Is @se eligible (v <= V)?  Without a division, as Linux. */
bool fair_entity_eligible(struct rq *rq, const struct sched_entity *se);
#endif
