/*
 * mm.c - tests of the page allocator and the kernel heap: randomized
 * alloc/free stress with per-allocation patterns (an overlap or a stray
 * write shows up as a bad pattern), exact free counts afterwards, and
 * exhaustion that must return NULL rather than corrupt anything, in a
 * time that does not grow with the RAM.
 */
#include "ktest.h"
#include "helpers.h"
#include "cpu.h"
#include "mm.h"
#include "sched.h"
#include "timer.h"
#include <random.h>
#include <string.h>

#define PAGE_SLOTS 48
#define PAGE_STEPS 1500
#define PAGE_MAX_ORDER 3

struct page_slot {
	uintptr_t pa;
	unsigned order;
};

/* Pattern word @i of the block at @pa: depends on the address, so a
 * block handed out twice (overlap) is caught by its first owner. */
static inline uint64_t pat(uintptr_t pa, size_t i)
{
	return (pa + i * 8) ^ 0x5a5aa5a5deadbeefULL;
}

static void fill_pattern(void *p, size_t bytes)
{
	uint64_t *w = p;

	for (size_t i = 0; i < bytes / 8; i++)
		w[i] = pat((uintptr_t)p, i);
}

/* Returns the index of the first bad word, or -1. */
static long check_pattern(const void *p, size_t bytes)
{
	const uint64_t *w = p;

	for (size_t i = 0; i < bytes / 8; i++)
		if (w[i] != pat((uintptr_t)p, i))
			return (long)i;
	return -1;
}

static bool is_zero(const void *p, size_t bytes)
{
	const uint64_t *w = p;

	for (size_t i = 0; i < bytes / 8; i++)
		if (w[i])
			return false;
	return true;
}

/* One randomized run over @slots (caller's array).  Frees everything
 * before returning. */
static void page_stress(struct ktest *t, struct page_slot *slots,
			uint64_t seed)
{
	for (int i = 0; i < PAGE_SLOTS; i++)
		slots[i].pa = 0;
	for (int step = 0; step < PAGE_STEPS; step++) {
		struct page_slot *s = &slots[rand_next(&seed) % PAGE_SLOTS];
		size_t bytes;

		if (s->pa) {
			bytes = PAGE_SIZE << s->order;
			if (check_pattern((void *)s->pa, bytes) >= 0)
				ktest_fail(t, __FILE__, __LINE__,
					   "block 0x%lx order %u overwritten",
					   (unsigned long)s->pa, s->order);
			page_free(s->pa, s->order);
			s->pa = 0;
			continue;
		}
		s->order = rand_next(&seed) % (PAGE_MAX_ORDER + 1);
		bytes = PAGE_SIZE << s->order;
		s->pa = page_alloc(s->order);
		if (!s->pa) {
			ktest_fail(t, __FILE__, __LINE__,
				   "page_alloc(%u) failed", s->order);
			break;
		}
		if (s->pa & (bytes - 1))
			ktest_fail(t, __FILE__, __LINE__,
				   "block 0x%lx not aligned to order %u",
				   (unsigned long)s->pa, s->order);
		if (!is_zero((void *)s->pa, bytes))
			ktest_fail(t, __FILE__, __LINE__,
				   "block 0x%lx not zeroed", (unsigned long)s->pa);
		fill_pattern((void *)s->pa, bytes);
	}
	for (int i = 0; i < PAGE_SLOTS; i++) {
		struct page_slot *s = &slots[i];

		if (!s->pa)
			continue;
		if (check_pattern((void *)s->pa, PAGE_SIZE << s->order) >= 0)
			ktest_fail(t, __FILE__, __LINE__,
				   "block 0x%lx order %u overwritten",
				   (unsigned long)s->pa, s->order);
		page_free(s->pa, s->order);
		s->pa = 0;
	}
}

static void page_alloc_random_stress(struct ktest *t)
{
	static struct page_slot slots[PAGE_SLOTS];
	size_t before = page_free_count();

	KEXPECT(t, before > 0 && before <= page_total_count());
	page_stress(t, slots, 0x1234567);
	KEXPECT_EQ(t, page_free_count(), before);
}

/* Every CPU at once: the threads exist (stacks allocated) before the
 * count is taken, and signal "done" before they exit. */
struct smp_pages {
	int ready, done, nthreads;
	volatile int go;
	struct page_slot slots[NR_CPUS][PAGE_SLOTS];	/* 1 thread per CPU */
};

static void page_stress_worker(struct percpu_work *w)
{
	struct smp_pages *sp = w->data;

	__atomic_add_fetch(&sp->ready, 1, __ATOMIC_SEQ_CST);
	while (!sp->go)
		yield();
	page_stress(w->t, sp->slots[w->index], 0xabcdef + w->index);
	__atomic_add_fetch(&sp->done, 1, __ATOMIC_SEQ_CST);
	while (sp->go)
		yield();	/* exit only after the count is taken */
}

struct smp_pages_ctl {
	struct smp_pages *sp;
	size_t before, after;
};

/* Controller thread: takes the counts while the workers are parked. */
static void page_stress_ctl(void *arg)
{
	struct smp_pages_ctl *c = arg;
	struct smp_pages *sp = c->sp;

	while (__atomic_load_n(&sp->ready, __ATOMIC_SEQ_CST) < sp->nthreads)
		sleep_ns(NSEC_PER_MSEC);
	c->before = page_free_count();
	sp->go = 1;
	while (__atomic_load_n(&sp->done, __ATOMIC_SEQ_CST) < sp->nthreads)
		sleep_ns(NSEC_PER_MSEC);
	c->after = page_free_count();
	sp->go = 0;
}

static void page_alloc_stress_all_cpus(struct ktest *t)
{
	struct smp_pages_ctl c = { 0 };
	struct task *ctl;

	c.sp = kmalloc(sizeof(*c.sp));
	KASSERT(t, c.sp != NULL);
	c.sp->ready = c.sp->done = 0;
	c.sp->go = 0;
	c.sp->nthreads = online_cpus();
	ctl = thread_create("mm-ctl", page_stress_ctl, &c, -1);
	KASSERT(t, ctl != NULL);
	run_on_each_cpu(t, "mm-pages", 1, page_stress_worker, c.sp);
	thread_join(ctl);
	KEXPECT_EQ(t, c.after, c.before);
	kfree(c.sp);
}

/* ---- heap ----------------------------------------------------------- */

#define HEAP_SLOTS 64
#define HEAP_STEPS 3000
#define HEAP_MAX_SIZE 8192

struct heap_slot {
	uint8_t *p;
	size_t size;
};

static void heap_fill(uint8_t *p, size_t size)
{
	for (size_t i = 0; i < size; i++)
		p[i] = (uint8_t)(((uintptr_t)p >> 4) + i * 7);
}

static bool heap_pattern_ok(const uint8_t *p, size_t size)
{
	for (size_t i = 0; i < size; i++)
		if (p[i] != (uint8_t)(((uintptr_t)p >> 4) + i * 7))
			return false;
	return true;
}

static void heap_random_stress(struct ktest *t)
{
	static struct heap_slot slots[HEAP_SLOTS];
	uint64_t seed = 0x9876;

	for (int step = 0; step < HEAP_STEPS; step++) {
		struct heap_slot *s = &slots[rand_next(&seed) % HEAP_SLOTS];

		if (s->p) {
			if (!heap_pattern_ok(s->p, s->size))
				ktest_fail(t, __FILE__, __LINE__,
					   "block %p size %zu overwritten",
					   s->p, s->size);
			kfree(s->p);
			s->p = NULL;
			continue;
		}
		s->size = 1 + rand_next(&seed) % HEAP_MAX_SIZE;
		s->p = kmalloc(s->size);
		if (!s->p) {
			ktest_fail(t, __FILE__, __LINE__, "kmalloc(%zu) failed",
				   s->size);
			break;
		}
		if ((uintptr_t)s->p & 15)
			ktest_fail(t, __FILE__, __LINE__,
				   "kmalloc(%zu) = %p not 16-byte aligned",
				   s->size, s->p);
		if (!is_zero(s->p, s->size & ~7UL))
			ktest_fail(t, __FILE__, __LINE__,
				   "kmalloc(%zu) = %p not zeroed", s->size, s->p);
		heap_fill(s->p, s->size);
		if (step % 500 == 0)
			KEXPECT_EQ(t, heap_check(), 0);
	}
	for (int i = 0; i < HEAP_SLOTS; i++) {
		if (!slots[i].p)
			continue;
		if (!heap_pattern_ok(slots[i].p, slots[i].size))
			ktest_fail(t, __FILE__, __LINE__,
				   "block %p size %zu overwritten", slots[i].p,
				   slots[i].size);
		kfree(slots[i].p);
		slots[i].p = NULL;
	}
	KEXPECT_EQ(t, heap_check(), 0);
}

static void kmalloc_impossible_sizes(struct ktest *t)
{
	/* Sizes whose rounding or header arithmetic would overflow. */
	KEXPECT(t, kmalloc(SIZE_MAX) == NULL);
	KEXPECT(t, kmalloc(SIZE_MAX - 15) == NULL);
	KEXPECT(t, kmalloc(SIZE_MAX / 2 + 1) == NULL);
	KEXPECT(t, kmalloc((size_t)1 << 40) == NULL);
	KEXPECT_EQ(t, heap_check(), 0);
	kfree(NULL);
}

/*
 * Exhaust the heap with a chain of blocks linked through their first
 * word, then free it all: kmalloc must say NULL, and the heap must be
 * intact.  Its run time must not grow with the RAM (at -m 8G filling it
 * all took longer than the case's timeout): all but EXHAUST_KEEP pages
 * are first set aside from the page allocator in whole blocks, untouched
 * (page_set_aside), so what is exhausted is the real allocator with a
 * little memory left, and everything is given back at the end.
 */
/* Pages left to exhaust: 16 MiB, and not a multiple of a big block's
 * 32 pages, so that small blocks grow slabs until page_alloc() fails. */
#define EXHAUST_KEEP 4099
#define EXHAUST_BIG (64 * 1024)
#define EXHAUST_SMALL 1024

struct chain {
	struct chain *next;
	size_t size;
	uint64_t magic;
};

/* Allocate until kmalloc says NULL, big blocks first, then small ones to
 * fill the gaps; at most @limit bytes (more means kmalloc handed out
 * memory that was not there).  Returns the chain; *@hit_null, *@total,
 * *@nblocks say how it ended. */
static struct chain *exhaust(uint64_t limit, bool *hit_null, uint64_t *total,
			     size_t *nblocks)
{
	struct chain *head = NULL;
	size_t size = EXHAUST_BIG;

	*hit_null = false;
	while (*total < limit) {
		struct chain *c = kmalloc(size);

		if (!c) {
			if (size == EXHAUST_SMALL) {
				*hit_null = true;
				break;
			}
			size = EXHAUST_SMALL;	/* fill the gaps too */
			continue;
		}
		c->next = head;
		c->size = size;
		c->magic = (uintptr_t)c ^ 0xfeedface;
		head = c;
		*total += size;
		(*nblocks)++;
	}
	return head;
}

static void heap_exhaustion_returns_null(struct ktest *t)
{
	size_t nblocks = 0, pages_before = page_free_count(), aside;
	uint64_t total = 0, start = clock_ns(), took;
	struct chain *head;
	bool hit_null;

	aside = page_set_aside(EXHAUST_KEEP);
	/* Left: EXHAUST_KEEP pages, or less than one more block. */
	KEXPECT(t, pages_before - aside >= MIN(pages_before, EXHAUST_KEEP));
	KEXPECT(t, pages_before - aside < EXHAUST_KEEP + 1024);
	head = exhaust((uint64_t)(pages_before - aside) * 2 * PAGE_SIZE,
		       &hit_null, &total, &nblocks);
	KEXPECT(t, hit_null);
	KEXPECT(t, kmalloc(EXHAUST_SMALL) == NULL);
	while (head) {
		struct chain *next = head->next;

		if (head->magic != ((uintptr_t)head ^ 0xfeedface))
			ktest_fail(t, __FILE__, __LINE__,
				   "block %p damaged while exhausted", head);
		kfree(head);
		head = next;
	}
	page_aside_return();
	took = clock_ns() - start;
	KEXPECT_EQ(t, heap_check(), 0);
	/* All back, but for the slab pages the small blocks grew (the heap
	 * keeps those). */
	KEXPECT(t, page_free_count() + EXHAUST_KEEP >= pages_before);
	printk("    # exhausted after %zu blocks, %llu KiB, with %zu of %zu free "
	       "pages set aside; %zu pages free after; %llu ms\n", nblocks,
	       (unsigned long long)(total / 1024), aside, pages_before,
	       page_free_count(), (unsigned long long)(took / NSEC_PER_MSEC));
	head = kmalloc(EXHAUST_BIG);
	KEXPECT(t, head != NULL);
	kfree(head);
}

static struct ktest_case mm_cases[] = {
	KTEST_CASE_TIMEOUT(page_alloc_random_stress, 30000),
	KTEST_CASE_TIMEOUT(page_alloc_stress_all_cpus, 60000),
	KTEST_CASE_TIMEOUT(heap_random_stress, 30000),
	KTEST_CASE(kmalloc_impossible_sizes),
	KTEST_CASE(heap_exhaustion_returns_null),
	{ 0 },
};
KTEST_SUITE(mm, mm_cases);
