/*
 * sched_dl.h - per-task and per-runqueue state of the deadline class
 * (kernel/sched/deadline.c, docs/sched-deadline.md).  Included by sched.h
 * only; core.c touches none of it except through the class ops.
 */
#ifndef SCHED_DL_H
#define SCHED_DL_H
#include "rbtree.h"
#include "timer.h"

/*
 * One deadline task: its parameters (set by dl_set_params), its Constant
 * Bandwidth Server state (runtime left, absolute deadline, throttled) and
 * statistics.  Everything is under the task's rq->lock, except dl_bw
 * (dl_bw_lock in deadline.c) and the counters, which tests read racily.
 */
struct sched_dl_entity {
	struct rb_node rb_node;		/* dl_rq->root, by deadline; empty
					   (RB_EMPTY_NODE) when not in it */
	uint64_t dl_runtime, dl_deadline, dl_period;	/* parameters, ns */
	uint64_t dl_bw;			/* admitted runtime/period, 20-bit
					   fixed point (dl_bw_lock) */
	int64_t runtime;		/* budget left in this period */
	uint64_t deadline;		/* absolute deadline */
	bool dl_throttled;		/* budget spent, waiting for dl_timer */
	bool dl_dead;			/* exiting: never throttle again */
	bool dl_boosted;		/* inherit mode: running with a deadline
					   waiter's deadline (inherit.c): never
					   throttled, the deadline moves on */
	uint64_t pi_saved_deadline;	/* own deadline and runtime, given back */
	int64_t pi_saved_runtime;	/*   when the boost ends */
	struct timer dl_timer;		/* replenishment, at the next period */
	uint64_t missed_deadline;	/* last deadline counted in nr_misses */
	/* Statistics (racy reads are fine: tests and `ps` only). */
	uint64_t nr_misses;		/* deadlines missed (see deadline.c) */
	uint64_t nr_throttled;		/* budget exhaustions */
	uint64_t nr_replenished;	/* replenishments */
};

#endif
