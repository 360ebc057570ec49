/*
 * mm.h - physical page allocator, kernel heap and thread stacks.
 */
#ifndef MM_H
#define MM_H
#include "kernel.h"
#include "arch.h"

struct boot_info;

/* ---- Physical pages (kernel/mm/page_alloc.c) ----------------------- */

/* Take every boot_info RAM region minus the reserved ones.  Boot CPU. */
void page_alloc_init(struct boot_info *bi);
/*
 * Allocate 2^@order contiguous, naturally aligned 4 KiB pages, zeroed.
 * Returns the physical (== virtual) address, or 0 when memory is
 * exhausted (never panics by itself).  Any context.
 */
uintptr_t page_alloc(unsigned order);
/* Free pages from page_alloc.  Freeing a page that is not allocated, or
 * with the wrong order, panics naming the address. */
void page_free(uintptr_t pa, unsigned order);
/*
 * For tests that must run the allocator dry in a time that does not grow
 * with the RAM: take free blocks, largest first and without touching
 * them, off the free lists until what is left to page_alloc() is @keep
 * pages or a little more (less than @keep plus one more block; all of it
 * if there is no more).  Returns how many
 * pages are set aside now (calls add up); page_aside_return() gives them
 * all back.  Meanwhile every allocation in the kernel sees only what is
 * left.  Task context.
 */
size_t page_set_aside(size_t keep);
void page_aside_return(void);
/* Totals in pages, for `cpus`/tests. */
size_t page_free_count(void);
size_t page_total_count(void);

/* ---- Kernel heap (kernel/mm/heap.c) ------------------------------- */

/*
 * kmalloc: @size bytes, 16-byte aligned, zeroed.  NULL on exhaustion.
 * Any context.  kfree(NULL) is a no-op.  Each block carries a header
 * magic and a tail canary; kfree checks both and panics on a double free,
 * a bad pointer or an overrun, naming the block.  Freed memory is
 * poisoned (0x6b) and checked when reused.  Before it returns NULL it
 * empties the task cache (task_cache_drain) and tries again, so it must
 * not be called with tasks_lock held (in a for_each_task callback).
 */
void *kmalloc(size_t size);
void *kzalloc(size_t size);	/* same as kmalloc; kept for readability */
void kfree(void *p);
/* Walk the heap checking every header, canary and poisoned free block;
 * returns 0 or panics naming the damage.  For tests. */
int heap_check(void);

/* ---- Caches under memory pressure (kernel/sched/thread.c) ---------------- */

/*
 * Freed tasks are kept, with their stacks, for the next thread (a
 * bounded cache).  task_cache_drain() gives them all back to the heap and
 * the stack slots (kmalloc calls it before it returns NULL) and returns
 * how many it freed; task_cache_count() says how many are cached now.
 * Any context but with no heap, stack or tasks lock held.
 */
int task_cache_drain(void);
int task_cache_count(void);

/* ---- Thread stacks (kernel/mm/stack.c) ---------------------------- */

/* A stack of TASK_STACK_PAGES pages in the stack area with an unmapped
 * guard page below it.  Returns the lowest usable address (stack grows
 * down from base + size) and the slot number, or 0 when out of memory. */
uintptr_t stack_alloc(int *slot);
void stack_free(int slot);
/* Record whose stack @slot is, for stack_owner_name(). */
void stack_set_owner(int slot, const char *name);
/* If @addr lies in a guard page (or in the unmapped gap below it, for a
 * frame that jumped over the guard), return the slot whose stack
 * overflowed, else -1.  Used by the fault handlers to report
 * "stack overflow in task X". */
int stack_guard_slot(uintptr_t addr);
/* Name of the task owning stack slot @slot (for fault reports). */
const char *stack_owner_name(int slot);
#endif
