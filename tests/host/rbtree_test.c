/*
 * rbtree_test.c - host-side unit test of lib/rbtree.c (built with the host
 * gcc, see tests/host/Makefile; `make -C tests/host test`).
 *
 * Random inserts and erases into three trees at once -- plain, cached
 * leftmost, and augmented (ordered by key, augmented with the minimum of
 * another value over each subtree, the shape EEVDF uses: ordered by
 * deadline, augmented with min vruntime) -- checking after every step:
 * binary-search order, parent pointers, a black root, no red node with a
 * red child, one black height, the node count, rb_first/rb_last/rb_next/
 * rb_prev against an in-order walk, the cached leftmost, and every
 * augmented value recomputed from scratch.  Exits non-zero on the first
 * violation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include "rbtree.h"

#define POOL 3000
#define STEPS 40000

struct item {
	struct rb_node plain, cached, aug;
	uint64_t key;		/* tree order (ties: by address) */
	uint64_t val;		/* augmented: min over the subtree */
	uint64_t min_val;
	int in;
};

static struct item pool[POOL];
static struct rb_root plain_root = RB_ROOT;
static struct rb_root_cached cached_root = RB_ROOT_CACHED;
static struct rb_root_cached aug_root = RB_ROOT_CACHED;
static unsigned long checks;

#define FAIL(...) do { fprintf(stderr, "rbtree_test: FAIL: " __VA_ARGS__); \
		       fprintf(stderr, "\n"); exit(1); } while (0)

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dULL;
}

static int before(const struct item *a, const struct item *b)
{
	return a->key < b->key || (a->key == b->key && a < b);
}

/* ---- augmented callbacks (as fair.c's min_vruntime ones) ---- */
#define AUG(n) rb_entry(n, struct item, aug)
static int aug_compute(struct item *it, int exit_if_same)
{
	uint64_t old = it->min_val, m = it->val;

	if (it->aug.rb_left && AUG(it->aug.rb_left)->min_val < m)
		m = AUG(it->aug.rb_left)->min_val;
	if (it->aug.rb_right && AUG(it->aug.rb_right)->min_val < m)
		m = AUG(it->aug.rb_right)->min_val;
	it->min_val = m;
	return exit_if_same && m == old;
}
static void aug_propagate(struct rb_node *n, struct rb_node *stop)
{
	while (n != stop) {
		if (aug_compute(AUG(n), 1))
			break;
		n = rb_parent(n);
	}
}
static void aug_copy(struct rb_node *old, struct rb_node *new)
{
	AUG(new)->min_val = AUG(old)->min_val;
}
static void aug_rotate(struct rb_node *old, struct rb_node *new)
{
	AUG(new)->min_val = AUG(old)->min_val;
	aug_compute(AUG(old), 0);
}
static const struct rb_augment_callbacks aug_cb = {
	aug_propagate, aug_copy, aug_rotate
};

/* ---- inserts ---- */
#define INSERT(rootp, field, it, leftmost_out)                                \
	do {                                                                  \
		struct rb_node **link = &(rootp)->rb_node, *parent = NULL;    \
		int lm_ = 1;                                                  \
		while (*link) {                                               \
			parent = *link;                                       \
			if (before(it, rb_entry(parent, struct item, field))) \
				link = &parent->rb_left;                      \
			else {                                                \
				link = &parent->rb_right;                     \
				lm_ = 0;                                      \
			}                                                     \
		}                                                             \
		rb_link_node(&(it)->field, parent, link);                     \
		leftmost_out = lm_;                                           \
	} while (0)

static void insert(struct item *it)
{
	int lm;

	INSERT(&plain_root, plain, it, lm);
	rb_insert_color(&it->plain, &plain_root);
	INSERT(&cached_root.rb_root, cached, it, lm);
	rb_insert_color_cached(&it->cached, &cached_root, lm);
	INSERT(&aug_root.rb_root, aug, it, lm);
	it->min_val = it->val;
	if (rb_parent(&it->aug))
		aug_propagate(rb_parent(&it->aug), NULL);
	rb_insert_augmented_cached(&it->aug, &aug_root, lm, &aug_cb);
	it->in = 1;
}

static void erase(struct item *it)
{
	rb_erase(&it->plain, &plain_root);
	RB_CLEAR_NODE(&it->plain);
	rb_erase_cached(&it->cached, &cached_root);
	RB_CLEAR_NODE(&it->cached);
	rb_erase_augmented_cached(&it->aug, &aug_root, &aug_cb);
	RB_CLEAR_NODE(&it->aug);
	it->in = 0;
}

/* ---- checks ---- */
static size_t off_plain = offsetof(struct item, plain);
static size_t off_cached = offsetof(struct item, cached);
static size_t off_aug = offsetof(struct item, aug);
#define ITEM(n, off) ((struct item *)((char *)(n) - (off)))
#define IS_RED(n) (((n)->__parent_color & 1) == 0)

/* Returns the black height; checks structure, order and augmentation. */
static int check_sub(struct rb_node *n, struct rb_node *parent, size_t off,
		     int is_aug, int *count)
{
	int lh, rh;
	struct item *it;

	if (!n)
		return 1;
	it = ITEM(n, off);
	if (rb_parent(n) != parent)
		FAIL("bad parent pointer at key %llu", (unsigned long long)it->key);
	if (IS_RED(n) && ((n->rb_left && IS_RED(n->rb_left)) ||
			  (n->rb_right && IS_RED(n->rb_right))))
		FAIL("red node with a red child (key %llu)", (unsigned long long)it->key);
	if (n->rb_left && !before(ITEM(n->rb_left, off), it))
		FAIL("order violated on the left");
	if (n->rb_right && before(ITEM(n->rb_right, off), it))
		FAIL("order violated on the right");
	lh = check_sub(n->rb_left, n, off, is_aug, count);
	rh = check_sub(n->rb_right, n, off, is_aug, count);
	if (lh != rh)
		FAIL("black heights differ (%d vs %d)", lh, rh);
	if (is_aug) {
		uint64_t m = it->val;
		if (n->rb_left && AUG(n->rb_left)->min_val < m)
			m = AUG(n->rb_left)->min_val;
		if (n->rb_right && AUG(n->rb_right)->min_val < m)
			m = AUG(n->rb_right)->min_val;
		if (m != it->min_val)
			FAIL("augmented value %llu, expected %llu",
			     (unsigned long long)it->min_val, (unsigned long long)m);
	}
	(*count)++;
	return lh + !IS_RED(n);
}

static void check_tree(struct rb_root *root, size_t off, int is_aug, int expect)
{
	int count = 0, walked = 0;
	struct rb_node *n, *prev = NULL;

	if (root->rb_node && IS_RED(root->rb_node))
		FAIL("red root");
	check_sub(root->rb_node, NULL, off, is_aug, &count);
	if (count != expect)
		FAIL("%d nodes in the tree, expected %d", count, expect);
	for (n = rb_first(root); n; prev = n, n = rb_next(n)) {
		if (prev && before(ITEM(n, off), ITEM(prev, off)))
			FAIL("rb_next out of order");
		if (prev && rb_prev(n) != prev)
			FAIL("rb_prev is not the inverse of rb_next");
		walked++;
	}
	if (walked != expect)
		FAIL("rb_next walked %d nodes, expected %d", walked, expect);
	if (rb_last(root) != prev)
		FAIL("rb_last is not the end of the walk");
}

static void check_all(int expect)
{
	check_tree(&plain_root, off_plain, 0, expect);
	check_tree(&cached_root.rb_root, off_cached, 0, expect);
	check_tree(&aug_root.rb_root, off_aug, 1, expect);
	if (rb_first_cached(&cached_root) != rb_first(&cached_root.rb_root))
		FAIL("cached leftmost is stale");
	if (rb_first_cached(&aug_root) != rb_first(&aug_root.rb_root))
		FAIL("augmented cached leftmost is stale");
	if (expect) {
		uint64_t m = UINT64_MAX;
		for (int i = 0; i < POOL; i++)
			if (pool[i].in && pool[i].val < m)
				m = pool[i].val;
		if (AUG(aug_root.rb_root.rb_node)->min_val != m)
			FAIL("root's augmented minimum is not the global minimum");
	}
	checks++;
}

int main(void)
{
	int n = 0, max_n = 0;

	for (int i = 0; i < POOL; i++) {
		RB_CLEAR_NODE(&pool[i].plain);
		RB_CLEAR_NODE(&pool[i].cached);
		RB_CLEAR_NODE(&pool[i].aug);
	}
	for (int step = 0; step < STEPS; step++) {
		struct item *it = &pool[rnd() % POOL];
		/* Phases: grow, churn, shrink -- so both rebalance paths run
		 * at every size. */
		int grow = (step / 5000) % 2 == 0;

		if (!it->in && (grow || rnd() % 3 == 0)) {
			/* Small key range: many duplicate keys. */
			it->key = rnd() % 1000;
			it->val = rnd() % 100000;
			insert(it);
			n++;
		} else if (it->in) {
			erase(it);
			n--;
		}
		if (n > max_n)
			max_n = n;
		/* Full check every step while small, then every 7th. */
		if (n < 200 || step % 7 == 0)
			check_all(n);
	}
	/* Drain completely. */
	for (int i = 0; i < POOL; i++)
		if (pool[i].in) {
			erase(&pool[i]);
			n--;
			if (i % 13 == 0)
				check_all(n);
		}
	check_all(0);
	if (plain_root.rb_node || cached_root.rb_root.rb_node || aug_root.rb_root.rb_node ||
	    cached_root.rb_leftmost || aug_root.rb_leftmost)
		FAIL("trees not empty after draining");
	printf("rbtree_test: ok (%d steps, up to %d nodes, %lu full checks)\n",
	       STEPS, max_n, checks);
	return 0;
}
