/*
 * heap.c - kmalloc/kfree: power-of-two size classes carved from pages,
 * and whole page blocks for large requests.
 *
 * Every block starts with a 16-byte header and ends its requested bytes
 * with an 8-byte canary:
 *
 *   | magic | size | next/order | payload ... | canary | slack |
 *
 * magic tells allocated from free; kfree checks magic and canary, so a
 * double free, a foreign pointer or an overrun panics naming the block.
 * Free small blocks are filled with POISON and checked when handed out
 * again, which catches writes after free.  Slab pages are never given
 * back (simple, and the set of sizes a kernel uses is small); large
 * blocks go back to the page allocator.
 */
#include "kernel.h"
#include "mm.h"
#include "list.h"
#include "spinlock.h"
#include "cpu.h"		/* spin_lock() */
#include "string.h"

#define MAGIC_ALLOC 0xa110c8edU
#define MAGIC_FREE 0xf4eeb10cU
#define MAGIC_LARGE 0x1a46eb10U
#define CANARY 0xc0ffee15deadbeefULL
#define POISON 0x6b
#define MIN_SHIFT 5			/* 32-byte blocks */
#define MAX_SHIFT 11			/* 2 KiB blocks; larger use pages */
#define NCLASSES (MAX_SHIFT - MIN_SHIFT + 1)
#define HDR 16

struct block {
	uint32_t magic;
	uint32_t size;			/* bytes the caller asked for */
	union {
		struct block *next;	/* free small block: free list */
		uint64_t order;		/* large block: page order */
	};
};

/* Header of each slab page, before its blocks. */
struct slab {
	struct list_head node;		/* class's slab list */
	unsigned cls;
};
#define SLAB_HDR ALIGN_UP(sizeof(struct slab), 16)

static spinlock_t lock = SPINLOCK_INIT("heap");
static struct block *free_head[NCLASSES];
static struct list_head slabs[NCLASSES] = {
#define S(i) LIST_HEAD_INIT(slabs[i])
	S(0), S(1), S(2), S(3), S(4), S(5), S(6),
#undef S
};
static LIST_HEAD(large_blocks);	/* large: list node lives after header */

static inline size_t class_size(unsigned cls) { return 1UL << (cls + MIN_SHIFT); }

static void put_canary(struct block *b)
{
	uint64_t c = CANARY;

	memcpy((char *)b + HDR + b->size, &c, sizeof(c));
}

static bool canary_ok(struct block *b)
{
	uint64_t c;

	memcpy(&c, (char *)b + HDR + b->size, sizeof(c));
	return c == CANARY;
}

/* The offset (from the caller's pointer) of the first byte written after
 * free, or -1: a report names the field that was written. */
static long poison_bad(const struct block *b, size_t len)
{
	const uint8_t *p = (const uint8_t *)b + HDR;

	for (size_t i = 0; i < len; i++)
		if (p[i] != POISON)
			return (long)i;
	return -1;
}

/* Carve a new page into free blocks of class @cls.  Lock held. */
static bool slab_grow(unsigned cls)
{
	uintptr_t pg = page_alloc(0);
	size_t sz = class_size(cls);
	struct slab *s = (struct slab *)pg;

	if (!pg)
		return false;
	s->cls = cls;
	list_add(&s->node, &slabs[cls]);
	for (uintptr_t a = pg + SLAB_HDR; a + sz <= pg + PAGE_SIZE; a += sz) {
		struct block *b = (struct block *)a;

		memset((char *)b + HDR, POISON, sz - HDR);
		b->magic = MAGIC_FREE;
		b->size = 0;
		b->next = free_head[cls];
		free_head[cls] = b;
	}
	return true;
}

static void *large_alloc(size_t size)
{
	size_t need = HDR + sizeof(struct list_head) + size + sizeof(uint64_t);
	unsigned order = 0;
	struct block *b;
	unsigned long flags;

	while ((PAGE_SIZE << order) < need)
		if (++order > 10)
			return NULL;
	b = (struct block *)page_alloc(order);
	if (!b)
		return NULL;
	b->magic = MAGIC_LARGE;
	b->size = size;
	b->order = order;
	/* Payload after the list node; the canary follows the payload. */
	{
		uint64_t c = CANARY;

		memcpy((char *)(b + 1) + sizeof(struct list_head) + size, &c, 8);
	}
	flags = spin_lock(&lock);
	list_add((struct list_head *)(b + 1), &large_blocks);
	spin_unlock(&lock, flags);
	return (char *)(b + 1) + sizeof(struct list_head);
}

static void *kmalloc_once(size_t size)
{
	unsigned cls = 0;
	struct block *b;
	unsigned long flags;
	long bad;

	if (size > (1UL << 30))
		return NULL;
	while (cls < NCLASSES && class_size(cls) < HDR + size + sizeof(uint64_t))
		cls++;
	if (cls == NCLASSES)
		return large_alloc(size);

	flags = spin_lock(&lock);
	if (!free_head[cls] && !slab_grow(cls)) {
		spin_unlock(&lock, flags);
		return NULL;
	}
	b = free_head[cls];
	bad = b->magic != MAGIC_FREE ? -2 : poison_bad(b, class_size(cls) - HDR);
	if (bad != -1) {
		const uint64_t *w = (const uint64_t *)((char *)b + HDR +
						       (bad < 0 ? 0 : bad / 8 * 8));

		spin_unlock(&lock, flags);
		panic("heap: free block %p (class %zu) was modified after free: "
		      "%s at offset %ld (word %#llx)", (void *)(b + 1),
		      class_size(cls), bad == -2 ? "header" : "data",
		      bad == -2 ? 0L : bad, (unsigned long long)*w);
	}
	free_head[cls] = b->next;
	/* Under the lock, so heap_check never sees a half-made block. */
	b->magic = MAGIC_ALLOC;
	b->size = (uint32_t)size;
	b->next = NULL;
	memset((char *)b + HDR, 0, size);
	put_canary(b);
	spin_unlock(&lock, flags);
	return (char *)b + HDR;
}

void *kmalloc(size_t size)
{
	void *p = kmalloc_once(size);

	/* Out of memory: give back what caches hold (freed tasks kept for
	 * reuse, thread.c) and try once more.  Not under the heap lock:
	 * draining kfree()s. */
	if (!p && task_cache_drain() > 0)
		p = kmalloc_once(size);
	return p;
}

void *kzalloc(size_t size)
{
	return kmalloc(size);
}

static void large_free(void *p, struct block *b)
{
	uint64_t c;
	unsigned long flags;

	memcpy(&c, (char *)p + b->size, 8);
	if (c != CANARY)
		panic("heap: overrun past the %u bytes of large block %p", b->size, p);
	flags = spin_lock(&lock);
	list_del_init((struct list_head *)(b + 1));
	spin_unlock(&lock, flags);
	b->magic = MAGIC_FREE;
	page_free((uintptr_t)b, b->order);
}

void kfree(void *p)
{
	struct block *b;
	unsigned long flags;
	size_t sz;

	if (!p)
		return;
	if ((uintptr_t)p & 15)
		panic("kfree: %p is not a pointer kmalloc returned", p);
	b = (struct block *)((char *)p - HDR);
	if (((uintptr_t)p & (PAGE_SIZE - 1)) == HDR + sizeof(struct list_head)) {
		struct block *lb = (struct block *)((uintptr_t)p & ~(PAGE_SIZE - 1));

		if (lb->magic == MAGIC_LARGE) {
			large_free(p, lb);
			return;
		}
	}
	if (b->magic == MAGIC_FREE)
		panic("kfree: double free of %p", p);
	if (b->magic != MAGIC_ALLOC)
		panic("kfree: %p is not a pointer kmalloc returned (magic %x)",
		      p, b->magic);
	if (!canary_ok(b))
		panic("kfree: overrun past the %u bytes of block %p", b->size, p);

	sz = ((struct slab *)((uintptr_t)b & ~(PAGE_SIZE - 1)))->cls;
	flags = spin_lock(&lock);
	memset(p, POISON, class_size(sz) - HDR);
	b->magic = MAGIC_FREE;
	b->size = 0;
	b->next = free_head[sz];
	free_head[sz] = b;
	spin_unlock(&lock, flags);
}

int heap_check(void)
{
	unsigned long flags = spin_lock(&lock);
	struct list_head *pos;

	for (unsigned cls = 0; cls < NCLASSES; cls++) {
		size_t sz = class_size(cls);

		list_for_each(pos, &slabs[cls]) {
			uintptr_t pg = (uintptr_t)pos;

			for (uintptr_t a = pg + SLAB_HDR; a + sz <= pg + PAGE_SIZE;
			     a += sz) {
				struct block *b = (struct block *)a;

				if (b->magic == MAGIC_FREE) {
					if (poison_bad(b, sz - HDR) >= 0)
						panic("heap_check: free block %p written after free",
						      (void *)b);
				} else if (b->magic != MAGIC_ALLOC) {
					panic("heap_check: block %p has a bad header", (void *)b);
				} else if (!canary_ok(b)) {
					panic("heap_check: block %p overran its %u bytes",
					      (void *)b, b->size);
				}
			}
		}
	}
	list_for_each(pos, &large_blocks) {
		struct block *b = (struct block *)pos - 1;
		uint64_t c;

		memcpy(&c, (char *)(pos + 1) + b->size, 8);
		if (b->magic != MAGIC_LARGE || c != CANARY)
			panic("heap_check: large block %p damaged", (void *)(pos + 1));
	}
	spin_unlock(&lock, flags);
	return 0;
}
