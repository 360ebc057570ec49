/*
 * mmu.c - Sv39 page tables: the identity map and the stack area.
 *
 * Sv39 has three levels of 512-entry tables; a leaf at level 2 maps 1 GiB,
 * at level 1 2 MiB, at level 0 4 KiB.  RAM and devices are identity
 * mapped with the largest pages their alignment allows, except the kernel
 * image, mapped in 4 KiB pages so that each section gets its own
 * permissions (text RX, rodata R, data/bss RW), and firmware regions the
 * DT marks no-map, left out.  Every leaf is global (G) and pre-marked
 * accessed/dirty, as cores without hardware A/D updates fault otherwise.
 *
 * The stack area's level-1 and level-0 tables are allocated here, once,
 * so arch_map_page() only ever fills a leaf PTE and never allocates.
 */
#include "boot.h"
#include "mm.h"
#include "rv.h"
#include "stack_layout.h"

#define PTE_V (1UL << 0)
#define PTE_R (1UL << 1)
#define PTE_W (1UL << 2)
#define PTE_X (1UL << 3)
#define PTE_G (1UL << 5)
#define PTE_A (1UL << 6)
#define PTE_D (1UL << 7)
#define PTE_LEAF (PTE_R | PTE_W | PTE_X)
#define SATP_SV39 (8UL << 60)
#define VA_BITS 39

#define LEVEL_SHIFT(l) (PAGE_SHIFT + 9 * (l))
#define LEVEL_SIZE(l) (1UL << LEVEL_SHIFT(l))
#define PTE_INDEX(va, l) (((va) >> LEVEL_SHIFT(l)) & 511)

static uint64_t *root;
uint64_t rv_satp;
uint64_t rv_stack_map_gen;	/* bumped by every arch_map_page, entry.S */

extern char __text_start[], __text_end[], __rodata_start[], __rodata_end[];
extern char __data_start[], __kernel_start[], __kernel_end[];

static uint64_t *pte_table(uint64_t pte)
{
	return (uint64_t *)((pte >> 10) << PAGE_SHIFT);
}

static uint64_t make_pte(uintptr_t pa, uint64_t perm)
{
	return (pa >> PAGE_SHIFT) << 10 | perm | PTE_V | PTE_G | PTE_A |
	       ((perm & PTE_W) ? PTE_D : 0);
}

static uint64_t *alloc_table(void)
{
	uintptr_t p = page_alloc(0);	/* zeroed: all entries invalid */

	if (!p)
		panic("mmu: out of memory for page tables");
	return (uint64_t *)p;
}

/* The table under entry @idx of @t, created if missing. */
static uint64_t *descend(uint64_t *t, int idx, uintptr_t va)
{
	if (!(t[idx] & PTE_V))
		t[idx] = ((uintptr_t)alloc_table() >> PAGE_SHIFT) << 10 | PTE_V;
	else if (t[idx] & PTE_LEAF)
		panic("mmu: %lx is already inside a large page", (unsigned long)va);
	return pte_table(t[idx]);
}

/* Map [va, va+size) to pa with @perm, using 1 GiB/2 MiB leaves where
 * alignment and size allow and the slot is free. */
static void map_range(uintptr_t va, uintptr_t pa, uint64_t size, uint64_t perm)
{
	while (size) {
		uint64_t *t = root;
		int level = 2;

		for (;; level--) {
			int idx = PTE_INDEX(va, level);
			uint64_t sz = LEVEL_SIZE(level);

			if (level == 0 || (!(t[idx] & PTE_V) && size >= sz &&
					   !((va | pa) & (sz - 1)))) {
				if ((t[idx] & PTE_V) && t[idx] != make_pte(pa, perm))
					panic("mmu: %lx mapped twice", (unsigned long)va);
				t[idx] = make_pte(pa, perm);
				va += sz;
				pa += sz;
				size -= sz;
				break;
			}
			t = descend(t, idx, va);
		}
	}
}

/* Identity-map RAM [base, end) read-write, minus the kernel image and
 * the no-map firmware regions (cut out recursively). */
static void map_ram(uint64_t base, uint64_t end)
{
	base = ALIGN_UP(MAX(base, PAGE_SIZE), PAGE_SIZE);	/* never page 0 */
	end = ALIGN_DOWN(end, PAGE_SIZE);
	if (base >= end)
		return;
	uint64_t hb = (uintptr_t)__kernel_start, he = (uintptr_t)__kernel_end;

	for (int i = -1; i < rv_plat.nnomap; i++) {
		if (i >= 0) {
			hb = ALIGN_DOWN(rv_plat.nomap[i].base, PAGE_SIZE);
			he = ALIGN_UP(rv_plat.nomap[i].base + rv_plat.nomap[i].size,
				      PAGE_SIZE);
		}
		if (hb < end && he > base) {
			map_ram(base, hb);
			map_ram(he, end);
			return;
		}
	}
	map_range(base, base, end - base, PTE_R | PTE_W);
}

static void map_kernel_section(char *start, char *end, uint64_t perm)
{
	map_range((uintptr_t)start, (uintptr_t)start, end - start, perm);
}

void arch_mmu_init(struct boot_info *bi)
{
	root = alloc_table();
	for (int i = 0; i < bi->nmem; i++) {
		if (bi->mem[i].base + bi->mem[i].size > ARCH_STACK_AREA_BASE)
			panic("mmu: RAM at %lx reaches the stack area",
			      (unsigned long)bi->mem[i].base);
		map_ram(bi->mem[i].base, bi->mem[i].base + bi->mem[i].size);
	}
	map_kernel_section(__text_start, __text_end, PTE_R | PTE_X);
	map_kernel_section(__rodata_start, __rodata_end, PTE_R);
	map_kernel_section(__data_start, __kernel_end, PTE_R | PTE_W);
	for (int i = 0; i < bi->ndevices; i++) {
		uint64_t b = ALIGN_DOWN(bi->devices[i].base, PAGE_SIZE);
		uint64_t e = ALIGN_UP(bi->devices[i].base + bi->devices[i].size,
				      PAGE_SIZE);

		if (b == 0)
			b = PAGE_SIZE;
		if (e > b)
			map_range(b, b, e - b, PTE_R | PTE_W);
	}
	/* Stack area: build its tables down to level 0 now. */
	for (uintptr_t va = ARCH_STACK_AREA_BASE;
	     va < ARCH_STACK_AREA_BASE + ARCH_STACK_AREA_SIZE; va += LEVEL_SIZE(1))
		descend(descend(root, PTE_INDEX(va, 2), va), PTE_INDEX(va, 1), va);

	rv_satp = SATP_SV39 | (uintptr_t)root >> PAGE_SHIFT;
	__asm__ __volatile__("sfence.vma" ::: "memory");
	csr_write(satp, rv_satp);
	__asm__ __volatile__("sfence.vma" ::: "memory");
}

/* Leaf PTE for @va, or NULL; *level gets its level. */
static uint64_t *walk(uintptr_t va, int *level)
{
	uint64_t *t = root;

	if (!root || va >> (VA_BITS - 1))
		return NULL;
	for (int l = 2; l >= 0; l--) {
		uint64_t *pte = &t[PTE_INDEX(va, l)];

		if (!(*pte & PTE_V))
			return NULL;
		if (*pte & PTE_LEAF) {
			*level = l;
			return pte;
		}
		t = pte_table(*pte);
	}
	return NULL;
}

int arch_map_page(uintptr_t va, uintptr_t pa, unsigned flags)
{
	uint64_t perm = PTE_R;

	if (va < ARCH_STACK_AREA_BASE || va >= ARCH_STACK_AREA_BASE +
	    ARCH_STACK_AREA_SIZE || ((va | pa) & (PAGE_SIZE - 1)))
		return -EINVAL;
	if (flags & MAP_WRITE)
		perm |= PTE_W;
	if (flags & MAP_EXEC)
		perm |= PTE_X;
	uint64_t *l1 = pte_table(root[PTE_INDEX(va, 2)]);
	uint64_t *l0 = pte_table(l1[PTE_INDEX(va, 1)]);

	WRITE_ONCE(l0[PTE_INDEX(va, 0)], make_pte(pa, perm));
	/*
	 * Other harts may still hold an invalid translation for @va (the
	 * spec allows it without Svvptc).  Rather than an SBI remote fence,
	 * which interrupts every hart and makes the caller wait for them
	 * all, a hart that faults on it fences and retries by itself: the
	 * trap entry compares rv_stack_map_gen with the value it last saw
	 * (entry.S).  The release orders the PTE store before the bump; the
	 * faulting hart saw the bump because it got the new stack through a
	 * lock taken after this returned.
	 */
	__asm__ __volatile__("sfence.vma %0" :: "r"(va) : "memory");
	__atomic_fetch_add(&rv_stack_map_gen, 1, __ATOMIC_RELEASE);
	return 0;
}

uintptr_t arch_virt_to_phys(uintptr_t va)
{
	int level;
	uint64_t *pte = walk(va, &level);

	if (!pte)
		return 0;
	return ((*pte >> 10) << PAGE_SHIFT) + (va & (LEVEL_SIZE(level) - 1));
}

bool rv_addr_is_ram(uintptr_t a)
{
	if (!boot_info)
		return a >= (uintptr_t)__kernel_start && a < (uintptr_t)__kernel_end;
	for (int i = 0; i < boot_info->nmem; i++)
		if (a >= boot_info->mem[i].base &&
		    a - boot_info->mem[i].base < boot_info->mem[i].size)
			return true;
	return false;
}
