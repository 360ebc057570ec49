/*
 * page_alloc.c - buddy allocator for physical pages.
 *
 * Blocks of 2^order pages (order 0..MAX_ORDER) are naturally aligned in
 * physical memory, so a block's buddy is found by flipping one bit of its
 * page frame number.  One byte of metadata per page, in an array carved
 * from RAM at boot, records whether the page heads a free block, an
 * allocated block (and its order), or neither; page_free() checks it, so a
 * double free or a wrong order is caught at once instead of corrupting
 * the free lists.  Free blocks are linked through their first bytes (RAM
 * is identity mapped).  One lock; allocations are not on a hot path yet.
 */
#include "kernel.h"
#include "mm.h"
#include "boot.h"
#include "list.h"
#include "spinlock.h"
#include "cpu.h"		/* spin_lock() */
#include "string.h"

#define MAX_ORDER 10			/* 4 MiB blocks */
#define META_FREE 0x80			/* heads a free block of order (low bits) */
#define META_ALLOC 0x40			/* heads an allocated block */
#define META_ORDER(m) ((m) & 0x3f)

static spinlock_t lock = SPINLOCK_INIT("page_alloc");
static struct list_head free_list[MAX_ORDER + 1];
/* Free blocks set aside (page_set_aside): off the free lists, with meta
 * 0 so that no buddy merges with them and page_free refuses them. */
static struct list_head aside[MAX_ORDER + 1];
static size_t nr_aside;
static uint8_t *meta;			/* one byte per page of [base_pfn, end_pfn) */
static uintptr_t base_pfn, end_pfn;
static size_t nr_free, nr_total;

static inline uint8_t *meta_of(uintptr_t pfn) { return &meta[pfn - base_pfn]; }
static inline struct list_head *node_of(uintptr_t pfn)
{
	return (struct list_head *)(pfn << PAGE_SHIFT);
}

static void free_block_insert(uintptr_t pfn, unsigned order)
{
	*meta_of(pfn) = META_FREE | order;
	list_add(node_of(pfn), &free_list[order]);
}

/* Give [pfn, pfn + 1<<order) back, merging with free buddies.  Lock held. */
static void __free(uintptr_t pfn, unsigned order)
{
	while (order < MAX_ORDER) {
		uintptr_t buddy = pfn ^ (1UL << order);

		if (buddy < base_pfn || buddy >= end_pfn ||
		    *meta_of(buddy) != (META_FREE | order))
			break;
		list_del_init(node_of(buddy));
		*meta_of(buddy) = 0;
		pfn &= ~(1UL << order);
		order++;
	}
	free_block_insert(pfn, order);
}

static bool overlaps_reserved(struct boot_info *bi, uint64_t a, uint64_t b)
{
	for (int i = 0; i < bi->nreserved; i++) {
		uint64_t rb = bi->reserved[i].base, re = rb + bi->reserved[i].size;

		if (a < re && rb < b)
			return true;
	}
	return false;
}

/* Find room for the metadata array: the first RAM stretch not reserved. */
static uintptr_t place_meta(struct boot_info *bi, size_t bytes)
{
	for (int i = 0; i < bi->nmem; i++) {
		uint64_t a = ALIGN_UP(bi->mem[i].base, PAGE_SIZE);
		uint64_t end = bi->mem[i].base + bi->mem[i].size;

		for (; a + bytes <= end; a += PAGE_SIZE)
			if (a && !overlaps_reserved(bi, a, a + bytes))
				return a;
	}
	panic("page_alloc: no room for %zu bytes of page metadata", bytes);
}

void page_alloc_init(struct boot_info *bi)
{
	uint64_t lo = ~0ULL, hi = 0;
	uintptr_t meta_pa;
	size_t meta_bytes;

	for (int i = 0; i <= MAX_ORDER; i++) {
		list_init(&free_list[i]);
		list_init(&aside[i]);
	}
	for (int i = 0; i < bi->nmem; i++) {
		lo = MIN(lo, bi->mem[i].base);
		hi = MAX(hi, bi->mem[i].base + bi->mem[i].size);
	}
	if (bi->nmem == 0 || hi <= lo)
		panic("page_alloc: the boot loader reported no RAM");
	base_pfn = ALIGN_DOWN(lo >> PAGE_SHIFT, 1UL << MAX_ORDER);
	end_pfn = hi >> PAGE_SHIFT;
	meta_bytes = ALIGN_UP(end_pfn - base_pfn, PAGE_SIZE);
	meta_pa = place_meta(bi, meta_bytes);
	meta = (uint8_t *)meta_pa;
	memset(meta, 0, meta_bytes);

	/* Free every page that is RAM, not reserved, not the metadata. */
	for (int i = 0; i < bi->nmem; i++) {
		uint64_t a = ALIGN_UP(bi->mem[i].base, PAGE_SIZE);
		uint64_t end = ALIGN_DOWN(bi->mem[i].base + bi->mem[i].size, PAGE_SIZE);

		for (; a < end; a += PAGE_SIZE) {
			if (a == 0 || overlaps_reserved(bi, a, a + PAGE_SIZE) ||
			    (a >= meta_pa && a < meta_pa + meta_bytes))
				continue;
			__free(a >> PAGE_SHIFT, 0);
			nr_free++;
			nr_total++;
		}
	}
	printk("mm: %zu KiB free in %d regions, page metadata at %p\n",
	       nr_free * (PAGE_SIZE / 1024), bi->nmem, (void *)meta_pa);
}

uintptr_t page_alloc(unsigned order)
{
	unsigned long flags;
	unsigned o;
	uintptr_t pfn;

	if (order > MAX_ORDER)
		return 0;
	flags = spin_lock(&lock);
	for (o = order; o <= MAX_ORDER && list_empty(&free_list[o]); o++)
		;
	if (o > MAX_ORDER) {
		spin_unlock(&lock, flags);
		return 0;
	}
	pfn = (uintptr_t)free_list[o].next >> PAGE_SHIFT;
	list_del_init(node_of(pfn));
	*meta_of(pfn) = 0;
	while (o > order) {		/* split, freeing the upper halves */
		o--;
		free_block_insert(pfn + (1UL << o), o);
	}
	*meta_of(pfn) = META_ALLOC | order;
	nr_free -= 1UL << order;
	spin_unlock(&lock, flags);
	memset((void *)(pfn << PAGE_SHIFT), 0, PAGE_SIZE << order);
	return pfn << PAGE_SHIFT;
}

void page_free(uintptr_t pa, unsigned order)
{
	uintptr_t pfn = pa >> PAGE_SHIFT;
	unsigned long flags;

	if ((pa & (PAGE_SIZE - 1)) || pfn < base_pfn || pfn >= end_pfn)
		panic("page_free: %p is not a page of RAM", (void *)pa);
	flags = spin_lock(&lock);
	if (*meta_of(pfn) != (META_ALLOC | order)) {
		uint8_t m = *meta_of(pfn);

		spin_unlock(&lock, flags);
		if (m & META_ALLOC)
			panic("page_free: %p allocated with order %u, freed with order %u",
			      (void *)pa, META_ORDER(m), order);
		panic("page_free: %p is not allocated (double free?)", (void *)pa);
	}
	/* Poison so a use after free shows up as garbage, not old data. */
	memset((void *)pa, 0x6b, PAGE_SIZE << order);
	__free(pfn, order);
	nr_free += 1UL << order;
	spin_unlock(&lock, flags);
}

size_t page_set_aside(size_t keep)
{
	unsigned long flags = spin_lock(&lock);
	size_t n;

	/* Largest blocks first: few moves, whatever the RAM size.  The
	 * pages are not touched (not zeroed, not poisoned). */
	for (int o = MAX_ORDER; o >= 0; o--) {
		while (!list_empty(&free_list[o]) && nr_free >= keep + (1UL << o)) {
			uintptr_t pfn = (uintptr_t)free_list[o].next >> PAGE_SHIFT;

			list_del_init(node_of(pfn));
			*meta_of(pfn) = 0;
			list_add(node_of(pfn), &aside[o]);
			nr_free -= 1UL << o;
			nr_aside += 1UL << o;
		}
	}
	n = nr_aside;
	spin_unlock(&lock, flags);
	return n;
}

void page_aside_return(void)
{
	unsigned long flags = spin_lock(&lock);

	for (int o = 0; o <= MAX_ORDER; o++) {
		while (!list_empty(&aside[o])) {
			uintptr_t pfn = (uintptr_t)aside[o].next >> PAGE_SHIFT;

			list_del_init(node_of(pfn));
			__free(pfn, o);
			nr_free += 1UL << o;
		}
	}
	nr_aside = 0;
	spin_unlock(&lock, flags);
}

size_t page_free_count(void)
{
	return READ_ONCE(nr_free);
}

size_t page_total_count(void)
{
	return nr_total;
}
