/*
 * rbtree.h - red-black trees with Linux's interface (lib/rbtree.c).
 *
 * Intrusive: embed a struct rb_node in your object, find the insertion
 * point yourself (rb_link_node), then rebalance (rb_insert_color).  The
 * cached variants keep the leftmost node for O(1) "smallest".  The
 * augmented variants keep a per-node value computed from the node and its
 * children (e.g. the minimum vruntime of a subtree, for EEVDF) up to date
 * through the callbacks, as Linux's rbtree_augmented.h does.
 */
#ifndef LIB_RBTREE_H
#define LIB_RBTREE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rb_node {
	uintptr_t __parent_color;	/* parent pointer | colour bit */
	struct rb_node *rb_right;
	struct rb_node *rb_left;
} __attribute__((aligned(sizeof(long))));

struct rb_root {
	struct rb_node *rb_node;
};

struct rb_root_cached {
	struct rb_root rb_root;
	struct rb_node *rb_leftmost;
};

#define RB_ROOT ((struct rb_root){ NULL })
#define RB_ROOT_CACHED ((struct rb_root_cached){ { NULL }, NULL })
#define rb_entry(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#define rb_parent(r) ((struct rb_node *)((r)->__parent_color & ~3UL))
#define RB_EMPTY_ROOT(root) ((root)->rb_node == NULL)
/* A node not in any tree points to itself (see RB_CLEAR_NODE). */
#define RB_EMPTY_NODE(node) ((node)->__parent_color == (uintptr_t)(node))
#define RB_CLEAR_NODE(node) ((node)->__parent_color = (uintptr_t)(node))

static inline void rb_link_node(struct rb_node *node, struct rb_node *parent,
				struct rb_node **link)
{
	node->__parent_color = (uintptr_t)parent;	/* red */
	node->rb_left = node->rb_right = NULL;
	*link = node;
}

void rb_insert_color(struct rb_node *node, struct rb_root *root);
void rb_erase(struct rb_node *node, struct rb_root *root);
struct rb_node *rb_first(const struct rb_root *root);
struct rb_node *rb_last(const struct rb_root *root);
struct rb_node *rb_next(const struct rb_node *node);
struct rb_node *rb_prev(const struct rb_node *node);

static inline struct rb_node *rb_first_cached(const struct rb_root_cached *root)
{
	return root->rb_leftmost;
}
/* @leftmost: the caller went only left while finding the link. */
void rb_insert_color_cached(struct rb_node *node, struct rb_root_cached *root,
			    bool leftmost);
void rb_erase_cached(struct rb_node *node, struct rb_root_cached *root);

/* Augmented trees. */
struct rb_augment_callbacks {
	/* Recompute the augmented value from @node up to (not incl.) @stop. */
	void (*propagate)(struct rb_node *node, struct rb_node *stop);
	/* @new takes @old's place: copy the augmented value. */
	void (*copy)(struct rb_node *old, struct rb_node *new);
	/* After a rotation: @new is the new parent of @old; recompute both. */
	void (*rotate)(struct rb_node *old, struct rb_node *new);
};

/*
 * Link with rb_link_node(), set the new node's own augmented value, call
 * augment->propagate(parent, NULL) with the new node's PARENT (as Linux's
 * rb_add_augmented_cached() does: a propagate that stops early when a
 * value is unchanged would stop at once at the new node), then this.
 * Propagate callbacks may stop early when a node's value did not change.
 */
void rb_insert_augmented_cached(struct rb_node *node, struct rb_root_cached *root,
				bool leftmost, const struct rb_augment_callbacks *augment);
void rb_erase_augmented_cached(struct rb_node *node, struct rb_root_cached *root,
			       const struct rb_augment_callbacks *augment);
#endif
