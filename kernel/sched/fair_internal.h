/*
 * fair_internal.h - what the fair class's files share: fair.c (EEVDF:
 * the pick, lag and placement, the class table), fair_tree.c (the
 * queue: V's sums and the tree by deadline), fair_balance.c (SMP: CPU
 * selection at wakeup and load balancing between CPUs), fair_params.c
 * (weight and slice) and fair_verify.c (the invariant checker the tests
 * use).  Nothing else
 * includes it; what core.c needs from the class is in internal.h.
 */
#ifndef SCHED_FAIR_INTERNAL_H
#define SCHED_FAIR_INTERNAL_H
#include "internal.h"

/* Weight of a nice-0 task; also the unit of virtual time. */
#define NICE_0_LOAD 1024UL
/* A request's length unless the task asks for its own (sched_attr). */
#define SCHED_BASE_SLICE_NS (3 * NSEC_PER_MSEC)

static inline struct task *task_of(struct sched_entity *se)
{
	return container_of(se, struct task, se);
}

#define __node_2_se(node) rb_entry((node), struct sched_entity, run_node)

/* Virtual times wrap: compare them by signed difference. */
static inline uint64_t min_vruntime(uint64_t a, uint64_t b)
{
	return (int64_t)(b - a) < 0 ? b : a;
}

/* Earlier virtual deadline first: the tree's order. */
static inline bool entity_before(const struct sched_entity *a,
				 const struct sched_entity *b)
{
	return (int64_t)(a->deadline - b->deadline) < 0;
}

/* @se's vruntime relative to the queue's base (the V sums use it). */
static inline int64_t entity_key(const struct cfs_rq *cfs, const struct sched_entity *se)
{
	return (int64_t)(se->vruntime - cfs->min_vruntime);
}

/* a * b / c without overflowing the product (|a| * b may exceed 2^63):
 * a = q*c + r, so a*b/c = q*b + r*b/c with |r| < c. */
static inline int64_t mul_div_s64(int64_t a, uint64_t b, uint64_t c)
{
	int64_t q = a / (int64_t)c, r = a % (int64_t)c;

	return q * (int64_t)b + r * (int64_t)b / (int64_t)c;
}

/* fair_tree.c: V, the queue's weighted average vruntime; is @vruntime
 * eligible (not ahead of V)?  The key base moved on to the least
 * vruntime queued.  Into and out of the tree (and V's sums); @new takes
 * @old's place when the order allows (false, nothing done, otherwise).
 * rq->lock held. */
uint64_t avg_vruntime(const struct cfs_rq *cfs);
bool vruntime_eligible(const struct cfs_rq *cfs, uint64_t vruntime);
void update_min_vruntime(struct cfs_rq *cfs);
void __enqueue_entity(struct cfs_rq *cfs, struct sched_entity *se);
void __dequeue_entity(struct cfs_rq *cfs, struct sched_entity *se);
bool __replace_entity(struct cfs_rq *cfs, struct sched_entity *old,
		      struct sched_entity *new);

/* V's sums, the running entity (not in the tree) included; inline for
 * the pick (fair.c) and the placement. */
static inline void avg_sums(const struct cfs_rq *cfs, int64_t *avg, int64_t *load)
{
	const struct sched_entity *curr = cfs->curr;

	*avg = cfs->avg_vruntime;
	*load = (int64_t)cfs->avg_load;
	if (curr && curr->on_rq) {
		*avg += entity_key(cfs, curr) * (int64_t)curr->weight;
		*load += (int64_t)curr->weight;
	}
}

/*
 * v <= V  <=>  (v - min_v) * W <= sum (v_i - min_v) * w_i: no division,
 * so no rounding.  Products stay far from 2^63 while keys are within
 * seconds of each other and the queue's weight below ~10^8.
 */
static inline bool __vruntime_eligible(const struct cfs_rq *cfs, int64_t avg,
				       int64_t load, uint64_t vruntime)
{
	return avg >= (int64_t)(vruntime - cfs->min_vruntime) * load;
}

/*
 * __replace_entity() when @old is the tree's only node (two runnable
 * tasks: the commonest switch): any order is right, no neighbour to look
 * at, no subtree to update, and V's sums are @new's alone.  Inline for
 * the two-task yield (fair.c).
 */
static inline __attribute__((always_inline)) void
__replace_only(struct cfs_rq *cfs, struct sched_entity *old,
	       struct sched_entity *new)
{
	struct rb_root_cached *tree = &cfs->tasks_timeline;

	DEBUG_ASSERT(tree->rb_root.rb_node == &old->run_node &&
		     cfs->avg_load == old->weight);
	new->run_node = old->run_node;	/* no parent, black, no children */
	tree->rb_root.rb_node = &new->run_node;
	tree->rb_leftmost = &new->run_node;
	RB_CLEAR_NODE(&old->run_node);
	cfs->avg_vruntime = entity_key(cfs, new) * (int64_t)new->weight;
	cfs->avg_load = new->weight;
	new->min_vruntime = new->vruntime;
}

/* fair.c: the eligible entity with the earliest virtual deadline
 * (@protect: let curr finish its request first).  rq->lock held. */
struct sched_entity *pick_eevdf(struct cfs_rq *cfs, bool protect);

/* fair.c: a parked curr (put_prev_task_fair) goes into the tree and
 * stops being curr, for whoever walks the tree for queued tasks (load
 * balancing).  rq->lock held. */
void fair_unpark(struct rq *rq);

/* fair_balance.c, for fair.c's class table and init_rq_fair(). */
/* ->select_task_rq: where @p runs next.  p->pi_lock held, no rq lock. */
int select_task_rq_fair(struct task *p, int prev_cpu, int flags);
/* ->balance: newly idle, pull before picking idle.  rq->lock, dropped. */
void balance_fair(struct rq *rq, struct task *prev);
/* Stagger @rq's periodic balance against the other CPUs'.  Boot. */
void init_balance_fair(struct rq *rq);
#endif
