/*
 * acpi.c - just enough ACPI to find the CPUs: RSDP -> RSDT/XSDT -> MADT.
 * From the MADT we take every enabled local APIC (processor) id, the
 * local APIC address, each IOAPIC address, and where ISA IRQs 0 (PIT) and
 * 4 (COM1) arrive.  Without ACPI we run on the
 * boot CPU alone.  Boot CPU, boot page tables (tables below 4 GiB).
 */
#include "x86.h"
#include "boot.h"
#include "string.h"

struct rsdp {
	char signature[8];		/* "RSD PTR " */
	uint8_t checksum;
	char oem[6];
	uint8_t revision;		/* 0: ACPI 1.0, 2+: has XSDT */
	uint32_t rsdt;
	uint32_t length;
	uint64_t xsdt;
	uint8_t ext_checksum;
	uint8_t reserved[3];
} __packed;

struct sdt_header {
	char signature[4];
	uint32_t length;
	uint8_t revision, checksum;
	char oem[6], oem_table[8];
	uint32_t oem_revision, creator, creator_revision;
} __packed;

struct madt {
	struct sdt_header h;
	uint32_t lapic_addr;
	uint32_t flags;
	uint8_t entries[];
} __packed;

enum {
	MADT_LAPIC = 0,
	MADT_IOAPIC = 1,
	MADT_SOURCE_OVERRIDE = 2,
	MADT_LAPIC_OVERRIDE = 5,
	MADT_X2APIC = 9,
};

#define MADT_ENABLED 1u
#define FOUR_GIB 0x100000000ULL

static bool checksum_ok(const void *p, size_t len)
{
	uint8_t sum = 0;

	for (size_t i = 0; i < len; i++)
		sum += ((const uint8_t *)p)[i];
	return sum == 0;
}

static bool rsdp_valid(const struct rsdp *r)
{
	if (memcmp(r->signature, "RSD PTR ", 8) || !checksum_ok(r, 20))
		return false;
	return r->revision < 2 || checksum_ok(r, r->length);
}

/* ACPI spec 5.2.5.1: first KiB of the EBDA, then 0xe0000-0xfffff, on
 * 16-byte boundaries.  Needed with multiboot1, which passes no RSDP. */
uintptr_t x86_acpi_find_rsdp_bios(void)
{
	uintptr_t bda_ebda = 0x40e;	/* BIOS data area: EBDA segment */

	/* hide the constant address from gcc's array-bounds check */
	__asm__("" : "+r"(bda_ebda));
	uintptr_t ebda = (uintptr_t)*(volatile uint16_t *)bda_ebda << 4;
	uintptr_t ranges[2][2] = { { ebda, ebda + 1024 }, { 0xe0000, 0x100000 } };

	for (int i = 0; i < 2; i++) {
		if (!ranges[i][0])
			continue;
		for (uintptr_t p = ranges[i][0]; p < ranges[i][1]; p += 16)
			if (rsdp_valid((const struct rsdp *)p))
				return p;
	}
	return 0;
}

static const struct sdt_header *find_table(const struct rsdp *r,
					   const char *sig)
{
	bool x = r->revision >= 2 && r->xsdt && r->xsdt < FOUR_GIB;
	const struct sdt_header *root =
		(const void *)(uintptr_t)(x ? r->xsdt : r->rsdt);
	size_t width = x ? 8 : 4;
	size_t n = (root->length - sizeof(*root)) / width;
	const uint8_t *ent = (const uint8_t *)(root + 1);

	for (size_t i = 0; i < n; i++) {
		uint64_t pa = 0;

		memcpy(&pa, ent + i * width, width);	/* unaligned in XSDT */
		if (!pa || pa >= FOUR_GIB)
			continue;
		const struct sdt_header *t = (const void *)(uintptr_t)pa;
		if (!memcmp(t->signature, sig, 4) && checksum_ok(t, t->length))
			return t;
	}
	return NULL;
}

static void add_cpu(struct boot_info *bi, uint32_t apic_id, uint32_t bsp)
{
	if (apic_id == bsp)
		return;			/* already cpu_arch_id[0] */
	if (apic_id >= 0xff) {
		printk("x86: APIC id %u needs x2APIC, CPU ignored\n", apic_id);
		return;
	}
	if (bi->ncpus == BOOT_MAX_CPUS) {
		printk("x86: more than %d CPUs, APIC id %u ignored\n",
		       BOOT_MAX_CPUS, apic_id);
		return;
	}
	bi->cpu_arch_id[bi->ncpus++] = apic_id;
}

static void parse_madt(struct boot_info *bi, const struct madt *m,
		       uint32_t bsp)
{
	const uint8_t *p = m->entries, *end = (const uint8_t *)m + m->h.length;

	x86_lapic_pa = m->lapic_addr;
	for (; p + 2 <= end && p[1] >= 2; p += p[1]) {
		uint32_t flags, id, pa32;
		uint64_t addr;

		switch (p[0]) {
		case MADT_LAPIC:		/* acpi uid, apic id, flags */
			memcpy(&flags, p + 4, 4);
			if (flags & MADT_ENABLED)
				add_cpu(bi, p[3], bsp);
			break;
		case MADT_X2APIC:		/* rsvd, x2apic id, flags, uid */
			memcpy(&id, p + 4, 4);
			memcpy(&flags, p + 8, 4);
			if (flags & MADT_ENABLED)
				add_cpu(bi, id, bsp);
			break;
		case MADT_IOAPIC:		/* id, rsvd, address, gsi base */
			memcpy(&pa32, p + 4, 4);
			memcpy(&id, p + 8, 4);
			boot_add_region(bi->devices, &bi->ndevices, pa32,
					PAGE_SIZE);
			if (id == 0)		/* the one with the ISA IRQs */
				x86_ioapic_pa = pa32;
			break;
		case MADT_SOURCE_OVERRIDE:	/* bus, irq, gsi, flags */
			memcpy(&id, p + 4, 4);
			if (p[2] == 0 && p[3] < X86_ISA_IRQS) {	/* bus 0: ISA */
				struct x86_isa_irq *irq = &x86_isa_irqs[p[3]];

				irq->gsi = id;
				memcpy(&irq->flags, p + 8, 2);
				irq->overridden = true;
			}
			break;
		case MADT_LAPIC_OVERRIDE:	/* rsvd, 64-bit address */
			memcpy(&addr, p + 4, 8);
			x86_lapic_pa = addr;
			break;
		}
	}
}

void x86_acpi_init(struct boot_info *bi, uintptr_t rsdp_pa)
{
	const struct rsdp *rsdp = (const void *)rsdp_pa;
	const struct sdt_header *madt = NULL;
	uint32_t a, b, c, d;

	/* The boot CPU's initial APIC id; it goes first. */
	cpuid(1, &a, &b, &c, &d);
	bi->cpu_arch_id[0] = b >> 24;
	bi->ncpus = 1;
	x86_lapic_pa = rdmsr(MSR_APIC_BASE) & ~0xfffULL;

	if (rsdp && rsdp_valid(rsdp))
		madt = find_table(rsdp, "APIC");
	if (madt)
		parse_madt(bi, (const struct madt *)madt, b >> 24);
	else
		printk("x86: no ACPI MADT, running on the boot CPU only\n");
	boot_add_region(bi->devices, &bi->ndevices, x86_lapic_pa, PAGE_SIZE);
}
