/*
 * fair_internal.h - what the fair class's two files share: fair.c (EEVDF:
 * the queue, the pick, the class table) and fair_balance.c (SMP: CPU
 * selection at wakeup and load balancing between CPUs).  Nothing else
 * includes it; what core.c needs from the class is in internal.h.
 */
#ifndef SCHED_FAIR_INTERNAL_H
#define SCHED_FAIR_INTERNAL_H
#include "internal.h"

/* Weight of a nice-0 task; also the unit of virtual time. */
#define NICE_0_LOAD 1024UL

static inline struct task *task_of(struct sched_entity *se)
{
	return container_of(se, struct task, se);
}

#define __node_2_se(node) rb_entry((node), struct sched_entity, run_node)

/* fair_balance.c, for fair.c's class table and init_rq_fair(). */
/* ->select_task_rq: where @p runs next.  p->pi_lock held, no rq lock. */
int select_task_rq_fair(struct task *p, int prev_cpu, int flags);
/* ->balance: newly idle, pull before picking idle.  rq->lock, dropped. */
void balance_fair(struct rq *rq, struct task *prev);
/* Stagger @rq's periodic balance against the other CPUs'.  Boot. */
void init_balance_fair(struct rq *rq);
#endif
