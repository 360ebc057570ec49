/*
 * fair_tree.c - the fair class's queue (fair.c has the class): V, the
 * weighted average vruntime of the queued entities, kept as sums
 * relative to a base that only moves forward; and the tree of queued
 * entities by virtual deadline, augmented with each subtree's minimum
 * vruntime, which the pick (__pick_eevdf(), fair.c) walks.  fair.c's
 * header says why each is shaped so.  rq->lock held for all.
 */
#include "fair_internal.h"

/* ---- V: the weighted average vruntime -------------------------------- */

static void avg_vruntime_add(struct cfs_rq *cfs, const struct sched_entity *se)
{
	cfs->avg_vruntime += entity_key(cfs, se) * (int64_t)se->weight;
	cfs->avg_load += se->weight;
}

static void avg_vruntime_sub(struct cfs_rq *cfs, const struct sched_entity *se)
{
	cfs->avg_vruntime -= entity_key(cfs, se) * (int64_t)se->weight;
	cfs->avg_load -= se->weight;
}

/* min_vruntime moved forward by @delta: every key shrank by it. */
static void avg_vruntime_update(struct cfs_rq *cfs, int64_t delta)
{
	cfs->avg_vruntime -= (int64_t)cfs->avg_load * delta;
}

uint64_t avg_vruntime(const struct cfs_rq *cfs)
{
	int64_t avg, load;

	avg_sums(cfs, &avg, &load);
	if (load) {
		/* Round towards -inf: V must not run ahead of the sum. */
		if (avg < 0)
			avg -= load - 1;
		avg /= load;
	}
	return cfs->min_vruntime + avg;
}

bool vruntime_eligible(const struct cfs_rq *cfs, uint64_t vruntime)
{
	int64_t avg, load;

	avg_sums(cfs, &avg, &load);
	return __vruntime_eligible(cfs, avg, load, vruntime);
}

/* Advance the key base to the smallest vruntime in the queue, never back. */
void update_min_vruntime(struct cfs_rq *cfs)
{
	struct rb_node *root = cfs->tasks_timeline.rb_root.rb_node;
	struct sched_entity *curr = cfs->curr;
	uint64_t v = cfs->min_vruntime;
	int64_t delta;

	if (curr && !curr->on_rq)
		curr = NULL;
	if (curr)
		v = curr->vruntime;
	if (root)
		v = curr ? min_vruntime(v, __node_2_se(root)->min_vruntime)
			 : __node_2_se(root)->min_vruntime;
	delta = (int64_t)(v - cfs->min_vruntime);
	if (delta > 0) {
		avg_vruntime_update(cfs, delta);
		cfs->min_vruntime = v;
	}
}

/* ---- The tree: by deadline, augmented with min vruntime --------------- */

/* Recompute se->min_vruntime from its children; true if unchanged. */
static bool min_vruntime_update(struct sched_entity *se)
{
	uint64_t old = se->min_vruntime, m = se->vruntime;
	struct rb_node *l = se->run_node.rb_left, *r = se->run_node.rb_right;

	if (l)
		m = min_vruntime(m, __node_2_se(l)->min_vruntime);
	if (r)
		m = min_vruntime(m, __node_2_se(r)->min_vruntime);
	se->min_vruntime = m;
	return m == old;
}

static void min_vruntime_propagate(struct rb_node *node, struct rb_node *stop)
{
	while (node != stop) {
		if (min_vruntime_update(__node_2_se(node)))
			break;
		node = rb_parent(node);
	}
}

static void min_vruntime_copy(struct rb_node *old, struct rb_node *new)
{
	__node_2_se(new)->min_vruntime = __node_2_se(old)->min_vruntime;
}

static void min_vruntime_rotate(struct rb_node *old, struct rb_node *new)
{
	__node_2_se(new)->min_vruntime = __node_2_se(old)->min_vruntime;
	min_vruntime_update(__node_2_se(old));
}

static const struct rb_augment_callbacks min_vruntime_cb = {
	.propagate = min_vruntime_propagate,
	.copy = min_vruntime_copy,
	.rotate = min_vruntime_rotate,
};

/* Into the tree (and V's sums).  The entity's vruntime and deadline must
 * not change while it is in the tree. */
void __enqueue_entity(struct cfs_rq *cfs, struct sched_entity *se)
{
	struct rb_node **link = &cfs->tasks_timeline.rb_root.rb_node, *parent = NULL;
	bool leftmost = true;

	avg_vruntime_add(cfs, se);
	se->min_vruntime = se->vruntime;
	while (*link) {
		parent = *link;
		if (entity_before(se, __node_2_se(parent))) {
			link = &parent->rb_left;
		} else {
			link = &parent->rb_right;
			leftmost = false;
		}
	}
	rb_link_node(&se->run_node, parent, link);
	if (parent)
		min_vruntime_propagate(parent, NULL);
	rb_insert_augmented_cached(&se->run_node, &cfs->tasks_timeline, leftmost,
				   &min_vruntime_cb);
}

void __dequeue_entity(struct cfs_rq *cfs, struct sched_entity *se)
{
	rb_erase_augmented_cached(&se->run_node, &cfs->tasks_timeline, &min_vruntime_cb);
	RB_CLEAR_NODE(&se->run_node);
	avg_vruntime_sub(cfs, se);
}

/*
 * @new (not in the tree) takes @old's place if that is where
 * __enqueue_entity() would put it once @old is gone (after every entity
 * of deadline <= its own): the same order as dequeue + enqueue, without
 * their walks and rebalancing.  False, nothing done, otherwise.  Linux's
 * rb_replace_node() plus the cached leftmost; lib/rbtree.c has none.
 */
bool __replace_entity(struct cfs_rq *cfs, struct sched_entity *old,
			     struct sched_entity *new)
{
	struct rb_node *o = &old->run_node, *n = &new->run_node;
	struct rb_root_cached *tree = &cfs->tasks_timeline;
	struct rb_node *before, *after, *parent;

	if (tree->rb_root.rb_node == o && !o->rb_left && !o->rb_right) {
		__replace_only(cfs, old, new);
		return true;
	}
	/* @old is usually the leftmost: the pick's first candidate. */
	before = tree->rb_leftmost == o ? NULL : rb_prev(o);
	after = rb_next(o);
	parent = rb_parent(o);
	if ((before && entity_before(new, __node_2_se(before))) ||
	    (after && !entity_before(new, __node_2_se(after))))
		return false;
	*n = *o;			/* parent, colour, children */
	if (o->rb_left)
		o->rb_left->__parent_color = (o->rb_left->__parent_color & 3UL) | (uintptr_t)n;
	if (o->rb_right)
		o->rb_right->__parent_color = (o->rb_right->__parent_color & 3UL) | (uintptr_t)n;
	if (!parent)
		tree->rb_root.rb_node = n;
	else if (parent->rb_left == o)
		parent->rb_left = n;
	else
		parent->rb_right = n;
	if (tree->rb_leftmost == o)
		tree->rb_leftmost = n;
	RB_CLEAR_NODE(o);
	avg_vruntime_sub(cfs, old);
	avg_vruntime_add(cfs, new);
	new->min_vruntime = old->min_vruntime;	/* the subtree's, to update */
	min_vruntime_propagate(n, NULL);
	return true;
}
