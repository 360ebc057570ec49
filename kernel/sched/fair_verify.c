/*
 * fair_verify.c - the fair class's invariant checker, for the tests and
 * benches (tests/sched_fair.c checks it after every step of its random
 * walk): the tree is ordered by virtual deadline, the augmented
 * min_vruntime is fresh, the cached leftmost and the V sums match the
 * tree, nr_running and load match the queue, and someone is eligible;
 * and V and eligibility as the tests read them.
 */
#include "fair_internal.h"

/* Check @node's subtree; accumulate counts and sums. */
static const char *verify_subtree(struct cfs_rq *cfs, struct rb_node *node,
				  unsigned *n, unsigned long *w, int64_t *sum)
{
	struct sched_entity *se;
	uint64_t m;
	const char *err;

	if (!node)
		return NULL;
	se = __node_2_se(node);
	if (node->rb_left && entity_before(se, __node_2_se(node->rb_left)))
		return "tree not ordered by deadline (left)";
	if (node->rb_right && entity_before(__node_2_se(node->rb_right), se))
		return "tree not ordered by deadline (right)";
	if ((err = verify_subtree(cfs, node->rb_left, n, w, sum)) ||
	    (err = verify_subtree(cfs, node->rb_right, n, w, sum)))
		return err;
	m = se->vruntime;
	if (node->rb_left)
		m = min_vruntime(m, __node_2_se(node->rb_left)->min_vruntime);
	if (node->rb_right)
		m = min_vruntime(m, __node_2_se(node->rb_right)->min_vruntime);
	if (m != se->min_vruntime)
		return "augmented min_vruntime is stale";
	if (!se->on_rq || se == cfs->curr)
		return "entity in the tree is not queued, or is curr";
	(*n)++;
	*w += se->weight;
	*sum += entity_key(cfs, se) * (int64_t)se->weight;
	return NULL;
}

const char *fair_rq_verify(struct rq *rq)
{
	struct cfs_rq *cfs = &rq->cfs;
	struct rb_node *first = rb_first(&cfs->tasks_timeline.rb_root);
	unsigned n = 0;
	unsigned long w = 0;
	int64_t sum = 0;
	const char *err = verify_subtree(cfs, cfs->tasks_timeline.rb_root.rb_node,
					 &n, &w, &sum);

	if (err)
		return err;
	if (rb_first_cached(&cfs->tasks_timeline) != first)
		return "cached leftmost is stale";
	if (w != cfs->avg_load || sum != cfs->avg_vruntime)
		return "avg_load / avg_vruntime do not match the tree";
	if (cfs->curr_parked && (!cfs->curr || !cfs->curr->on_rq ||
				 cfs->curr->protect))
		return "parked curr is not a queued, unprotected entity";
	if (cfs->curr && cfs->curr->on_rq) {
		n++;
		w += cfs->curr->weight;
	}
	if (n != cfs->nr_running || w != cfs->load)
		return "nr_running / load do not match the queue";
	if (n && !pick_eevdf(cfs, true))
		return "no eligible entity";
	return NULL;
}

/* ---- For tests and benches ---------------------------------------------- */

uint64_t fair_avg_vruntime(struct rq *rq)
{
	return avg_vruntime(&rq->cfs);
}

bool fair_entity_eligible(struct rq *rq, const struct sched_entity *se)
{
	return vruntime_eligible(&rq->cfs, se->vruntime);
}
