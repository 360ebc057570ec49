/*
 * sched_dl.h - per-task and per-runqueue state of the deadline class
 * (kernel/sched/deadline.c).  Included by sched.h only.
 */
#ifndef SCHED_DL_H
#define SCHED_DL_H
#include "rbtree.h"
#include "timer.h"

struct sched_dl_entity {
	struct rb_node rb_node;		/* dl_rq->root, by deadline (rq lock) */
	uint64_t dl_runtime, dl_deadline, dl_period;	/* parameters */
	uint64_t dl_bw;			/* runtime/period, fixed point */
	int64_t runtime;		/* budget left in this period */
	uint64_t deadline;		/* absolute deadline */
	bool dl_throttled;		/* budget spent, waiting for dl_timer */
	struct timer dl_timer;		/* replenishment */
};

struct dl_rq {
	struct rb_root_cached root;	/* runnable deadline tasks by deadline */
	unsigned dl_nr_running;
};
#endif
