/*
 * mmu.c - the kernel page tables (4-level, 4 KiB / 2 MiB pages).
 *
 * Identity map of every boot_info RAM and device region, with 2 MiB pages
 * wherever a whole aligned 2 MiB fits and does not touch the kernel image;
 * the image itself gets 4 KiB pages so .text is RX, .rodata R+NX and
 * .data/.bss RW+NX.  Page 0 is never mapped (NULL dereferences fault).
 * The stack area's page-table pages are allocated here once, so
 * arch_map_page() only writes a PTE: no allocation, no lock.
 * Page-table pages come from page_alloc(0) (zeroed) and are reached
 * through the identity map.
 */
#include "x86.h"
#include "boot.h"
#include "mm.h"

#define PTE_P (1ULL << 0)
#define PTE_W (1ULL << 1)
#define PTE_PWT (1ULL << 3)
#define PTE_PCD (1ULL << 4)
#define PTE_PS (1ULL << 7)
#define PTE_NX (1ULL << 63)
#define PTE_ADDR 0x000ffffffffff000ULL

#define MSR_PAT 0x277
/* The PAT as the CPU resets it (0 WB, 1 WT, 2 UC-, 3 UC, 4-7 again),
 * but entry 1 (a PTE with PWT set and PCD clear) write-combining: no
 * mapping uses that entry before (MAP_DEVICE is PCD | PWT, entry 3), so
 * nothing changes meaning. */
#define PAT_ENTRY1_WC 0x0007040600070106ULL
#define CPUID1_EDX_PAT (1u << 16)

#define SIZE_2M (2UL << 20)
#define SIZE_1G (1UL << 30)

uint64_t x86_kernel_cr3;
bool x86_nx;
static bool pat_wc;			/* PAT entry 1 is write-combining */
struct mem_region x86_wc_region;
static uint64_t *kernel_pml4;

static inline unsigned idx(uintptr_t va, int level)	/* level 3..0 */
{
	return (va >> (12 + 9 * level)) & 511;
}

static uint64_t pte_flags(unsigned flags)
{
	uint64_t f = PTE_P;

	if (flags & MAP_WRITE)
		f |= PTE_W;
	if (!(flags & MAP_EXEC) && x86_nx)
		f |= PTE_NX;
	if (flags & MAP_DEVICE)
		f |= PTE_PCD | PTE_PWT;
	return f;
}

/* The table that entry @i of @table points to, allocated if absent.
 * Intermediate entries are RW and executable: the leaf decides. */
static uint64_t *next_table(uint64_t *table, unsigned i)
{
	if (!(table[i] & PTE_P)) {
		uintptr_t pa = page_alloc(0);

		if (!pa)
			panic("x86 mmu: out of memory for page tables");
		table[i] = pa | PTE_P | PTE_W;
	}
	if (table[i] & PTE_PS)
		panic("x86 mmu: large page in the way at entry %u", i);
	return (uint64_t *)(table[i] & PTE_ADDR);
}

/* Page directory covering @va. */
static uint64_t *pd_of(uintptr_t va)
{
	uint64_t *pdpt = next_table(kernel_pml4, idx(va, 3));

	return next_table(pdpt, idx(va, 2));
}

static void map_4k(uintptr_t va, uintptr_t pa, uint64_t f)
{
	uint64_t *pt = next_table(pd_of(va), idx(va, 1));

	pt[idx(va, 0)] = pa | f;
}

static bool in_kernel(uintptr_t start, uintptr_t end)
{
	return start < (uintptr_t)__kernel_end && end > (uintptr_t)__kernel_start;
}

/* Identity map [start, end) (page aligned inwards), skipping page 0 and
 * the kernel image (mapped per section by map_kernel). */
static void map_identity(uint64_t start, uint64_t end, uint64_t f)
{
	uintptr_t a = ALIGN_UP(start, PAGE_SIZE);

	end = ALIGN_DOWN(end, PAGE_SIZE);
	while (a < end) {
		uint64_t *pd = pd_of(a);
		uint64_t *pde = &pd[idx(a, 1)];

		if (a && !(a & (SIZE_2M - 1)) && a + SIZE_2M <= end &&
		    !in_kernel(a, a + SIZE_2M) && !(*pde & PTE_P)) {
			*pde = a | f | PTE_PS;
			a += SIZE_2M;
			continue;
		}
		if (a && !in_kernel(a, a + PAGE_SIZE))
			map_4k(a, a, f);
		a += PAGE_SIZE;
	}
}

static void map_section(char *start, char *end, unsigned flags)
{
	for (uintptr_t a = (uintptr_t)start; a < (uintptr_t)end; a += PAGE_SIZE)
		map_4k(a, a, pte_flags(flags));
}

#define FOUR_GIB (4 * SIZE_1G)
#define BOOT_MAP_MAX (512 * SIZE_1G)	/* one boot PDPT */

/* Index of a reserved region overlapping [start, end), or -1. */
static int reserved_overlap(struct boot_info *bi, uint64_t start, uint64_t end)
{
	for (int i = 0; i < bi->nreserved; i++)
		if (start < bi->reserved[i].base + bi->reserved[i].size &&
		    end > bi->reserved[i].base)
			return i;
	return -1;
}

/* Take @size bytes of RAM below 4 GiB that nothing else uses, from the
 * top of a region down, and reserve them for good.  Before page_alloc. */
static uintptr_t early_carve(struct boot_info *bi, uint64_t size)
{
	for (int i = 0; i < bi->nmem; i++) {
		uint64_t lo = bi->mem[i].base;
		uint64_t at = MIN(lo + bi->mem[i].size, FOUR_GIB);

		while (at >= lo + size) {
			int r = reserved_overlap(bi, at - size, at);

			if (r < 0) {
				boot_add_region(bi->reserved, &bi->nreserved,
						at - size, size);
				return at - size;
			}
			at = ALIGN_DOWN(bi->reserved[r].base, PAGE_SIZE);
		}
	}
	return 0;
}

/*
 * boot.S maps only 0..4 GiB, but page_alloc_init() touches all RAM before
 * arch_mmu_init() builds the real tables.  Extend the boot map over the
 * RAM above 4 GiB: with 1 GiB pages if the CPU has them, else with 2 MiB
 * pages in page directories carved (and reserved) from low RAM.
 */
void x86_early_map_ram(struct boot_info *bi)
{
	extern uint64_t early_pml4[];
	uint64_t *pdpt = (uint64_t *)(early_pml4[0] & PTE_ADDR);
	uint64_t top = 0, ngib;
	uint32_t a, b, c, d;
	uint64_t *pd;

	for (int i = 0; i < bi->nmem; i++)
		top = MAX(top, bi->mem[i].base + bi->mem[i].size);
	if (top <= FOUR_GIB)
		return;
	if (top > BOOT_MAP_MAX) {
		printk("x86: RAM above 512 GiB is not used\n");
		top = BOOT_MAP_MAX;
	}
	ngib = ALIGN_UP(top, SIZE_1G) / SIZE_1G;

	cpuid(0x80000001, &a, &b, &c, &d);
	if (d & (1u << 26)) {			/* 1 GiB pages */
		for (uint64_t g = 4; g < ngib; g++)
			pdpt[g] = (g * SIZE_1G) | PTE_P | PTE_W | PTE_PS;
		return;
	}
	pd = (uint64_t *)early_carve(bi, (ngib - 4) * PAGE_SIZE);
	if (!pd)
		panic("x86: no low memory for the boot map above 4 GiB");
	for (uint64_t g = 4; g < ngib; g++, pd += 512) {
		for (uint64_t e = 0; e < 512; e++)
			pd[e] = (g * SIZE_1G + e * SIZE_2M) | PTE_P | PTE_W | PTE_PS;
		pdpt[g] = (uintptr_t)pd | PTE_P | PTE_W;
	}
}

/*
 * Make PAT entry 1 write-combining, on each CPU before it uses the
 * kernel page tables (the BSP in early.c, the others in x86_ap_main):
 * the PAT must be the same on every CPU.  WC lets the CPU merge the
 * screen console's pixel stores into bursts; uncached, each store is a
 * bus transaction of its own, which makes a scroll on real hardware an
 * order of magnitude slower (QEMU ignores memory types).
 */
void x86_pat_init(void)
{
	uint32_t a, b, c, d;

	cpuid(1, &a, &b, &c, &d);
	if (!(d & CPUID1_EDX_PAT))
		return;
	wrmsr(MSR_PAT, PAT_ENTRY1_WC);
	pat_wc = true;
}

/* x86_wc_region (the framebuffer): write-combining if the PAT has it,
 * else uncached like a device. */
static void map_wc_region(void)
{
	uint64_t f = pte_flags(MAP_READ | MAP_WRITE);

	if (!x86_wc_region.size)
		return;
	f |= pat_wc ? PTE_PWT : PTE_PCD | PTE_PWT;
	map_identity(ALIGN_DOWN(x86_wc_region.base, PAGE_SIZE),
		     ALIGN_UP(x86_wc_region.base + x86_wc_region.size,
			      PAGE_SIZE), f);
}

void arch_mmu_init(struct boot_info *bi)
{
	uint32_t a, b, c, d;

	cpuid(0x80000001, &a, &b, &c, &d);
	x86_nx = d & (1u << 20);		/* boot.S set EFER.NXE if so */

	kernel_pml4 = (uint64_t *)page_alloc(0);
	if (!kernel_pml4)
		panic("x86 mmu: no page for the PML4");

	for (int i = 0; i < bi->nmem; i++)
		map_identity(bi->mem[i].base, bi->mem[i].base + bi->mem[i].size,
			     pte_flags(MAP_READ | MAP_WRITE));
	for (int i = 0; i < bi->ndevices; i++)
		map_identity(ALIGN_DOWN(bi->devices[i].base, PAGE_SIZE),
			     ALIGN_UP(bi->devices[i].base + bi->devices[i].size,
				      PAGE_SIZE),
			     pte_flags(MAP_READ | MAP_WRITE | MAP_DEVICE));
	map_wc_region();
	map_section(__text_start, __text_end, MAP_READ | MAP_EXEC);
	map_section(__rodata_start, __rodata_end, MAP_READ);
	map_section(__data_start, __kernel_end, MAP_READ | MAP_WRITE);

	/* Page tables for the whole stack area, so arch_map_page never
	 * allocates. */
	for (uintptr_t va = ARCH_STACK_AREA_BASE;
	     va < ARCH_STACK_AREA_BASE + ARCH_STACK_AREA_SIZE; va += SIZE_2M)
		next_table(pd_of(va), idx(va, 1));

	x86_kernel_cr3 = (uintptr_t)kernel_pml4;
	write_cr0(read_cr0() | CR0_WP);
	write_cr3(x86_kernel_cr3);
	x86_screen_mapped();
}

/* Only the owner of a stack slot maps its pages, and a PTE goes from
 * absent to present (x86 caches no absent translations), so every CPU
 * sees the page without a shootdown.  If a recycled slot is remapped to
 * another page, only the local TLB is flushed: the contract says stack
 * mappings are never changed that way. */
int arch_map_page(uintptr_t va, uintptr_t pa, unsigned flags)
{
	if (va < ARCH_STACK_AREA_BASE ||
	    va >= ARCH_STACK_AREA_BASE + ARCH_STACK_AREA_SIZE ||
	    (va | pa) & (PAGE_SIZE - 1) || !kernel_pml4)
		return -EINVAL;
	uint64_t *pdpt = (uint64_t *)(kernel_pml4[idx(va, 3)] & PTE_ADDR);
	uint64_t *pd = (uint64_t *)(pdpt[idx(va, 2)] & PTE_ADDR);
	uint64_t *pt = (uint64_t *)(pd[idx(va, 1)] & PTE_ADDR);

	__atomic_store_n(&pt[idx(va, 0)], pa | pte_flags(flags),
			 __ATOMIC_RELEASE);
	__asm__ __volatile__("invlpg (%0)" : : "r"(va) : "memory");
	return 0;
}

/* Walk the live tables (CR3), so it also works on the boot tables and
 * inside fault handlers. */
uintptr_t arch_virt_to_phys(uintptr_t va)
{
	const uint64_t *t = (const uint64_t *)(read_cr3() & PTE_ADDR);

	/* non-canonical addresses are never mapped */
	if ((uint64_t)((int64_t)(va << 16) >> 16) != va)
		return 0;
	for (int level = 3; level >= 0; level--) {
		uint64_t e = t[idx(va, level)];

		if (!(e & PTE_P))
			return 0;
		if (level == 0 || (e & PTE_PS)) {
			uint64_t span = 1ULL << (12 + 9 * level);

			return (e & PTE_ADDR & ~(span - 1)) | (va & (span - 1));
		}
		t = (const uint64_t *)(e & PTE_ADDR);
	}
	return 0;
}
