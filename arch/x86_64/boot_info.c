/*
 * boot_info.c - turn what the loader handed us into struct boot_info:
 * multiboot2 tags (GRUB) or the multiboot1 info block (QEMU -kernel),
 * then the ACPI MADT for CPUs and interrupt controllers (acpi.c).
 * Runs on the boot CPU under the boot page tables (0..4 GiB identity).
 * Everything kmain needs later is copied: only boot modules stay where
 * the loader put them, and they are reserved.
 */
#include "x86.h"
#include "boot.h"
#include "string.h"

#define MB2_BOOT_MAGIC 0x36d76289
#define MB1_BOOT_MAGIC 0x2badb002

enum {
	MB2_TAG_END = 0,
	MB2_TAG_CMDLINE = 1,
	MB2_TAG_LOADER = 2,
	MB2_TAG_MODULE = 3,
	MB2_TAG_MMAP = 6,
	MB2_TAG_FRAMEBUFFER = 8,
	MB2_TAG_ACPI_OLD = 14,
	MB2_TAG_ACPI_NEW = 15,
};

#define MB1_INFO_CMDLINE (1u << 2)
#define MB1_INFO_MODS (1u << 3)
#define MB1_INFO_MMAP (1u << 6)
#define MB1_INFO_LOADER (1u << 9)

#define MMAP_AVAILABLE 1

struct mb2_tag {
	uint32_t type, size;
};

struct mb2_mmap_entry {
	uint64_t base, len;
	uint32_t type, reserved;
};

/* Multiboot2 framebuffer tag (type 8) after its type and size; the RGB
 * field layout follows the common part when type is 1. */
struct mb2_fb {
	uint64_t addr;
	uint32_t pitch, width, height;
	uint8_t bpp, type;
	uint16_t reserved;
	uint8_t red_pos, red_size, green_pos, green_size, blue_pos, blue_size;
} __packed;

#define MB2_FB_INDEXED 0
#define MB2_FB_RGB 1
#define MB2_FB_EGA_TEXT 2

struct mb1_info {
	uint32_t flags, mem_lower, mem_upper, boot_device, cmdline;
	uint32_t mods_count, mods_addr;
	uint32_t syms[4];
	uint32_t mmap_length, mmap_addr;
	uint32_t drives_length, drives_addr, config_table, boot_loader_name;
};

struct mb1_mmap_entry {
	uint32_t size;			/* of the rest of the entry */
	uint64_t base, len;
	uint32_t type;
} __packed;

struct mb1_module {
	uint32_t start, end, string, reserved;
};

static char loader_name[64];

/* Append [base, base+size) to a region list; silently drops empty ranges
 * and, with a message, ranges beyond BOOT_MAX_REGIONS. */
void boot_add_region(struct mem_region *r, int *n, uint64_t base,
		     uint64_t size)
{
	if (!size)
		return;
	if (*n == BOOT_MAX_REGIONS) {
		printk("x86: boot_info: too many regions, dropping %lx+%lx\n",
		       base, size);
		return;
	}
	r[*n].base = base;
	r[*n].size = size;
	(*n)++;
}

/* Usable RAM, trimmed to whole pages (the firmware reports e.g. 0x9fc00). */
static void add_ram(struct boot_info *bi, uint64_t base, uint64_t len)
{
	uint64_t start = ALIGN_UP(base, PAGE_SIZE);
	uint64_t end = ALIGN_DOWN(base + len, PAGE_SIZE);

	if (end > start)
		boot_add_region(bi->mem, &bi->nmem, start, end - start);
}

static void reserve(struct boot_info *bi, uint64_t start, uint64_t end)
{
	start = ALIGN_DOWN(start, PAGE_SIZE);
	end = ALIGN_UP(end, PAGE_SIZE);
	boot_add_region(bi->reserved, &bi->nreserved, start, end - start);
}

static void add_module(struct boot_info *bi, uint64_t start, uint64_t end)
{
	if (!bi->module_size) {
		bi->module_base = start;
		bi->module_size = end - start;
	}
	reserve(bi, start, end);
}

/* The framebuffer tag: what kind of screen GRUB set up.  The tag is
 * only copied here; drivers/fbcon.c says whether it can draw on it. */
static void parse_fb(struct boot_info *bi, struct mb2_tag *tag)
{
	struct mb2_fb *m = (struct mb2_fb *)(tag + 1);
	struct boot_fb *fb = &bi->fb;

	if (tag->size < sizeof(*tag) + offsetof(struct mb2_fb, red_pos)) {
		printk("x86: framebuffer tag of %u bytes is too short; ignored\n",
		       tag->size);
		return;
	}
	fb->addr = m->addr;
	fb->pitch = m->pitch;
	fb->width = m->width;
	fb->height = m->height;
	fb->bpp = m->bpp;
	switch (m->type) {
	case MB2_FB_RGB:
		if (tag->size < sizeof(*tag) + sizeof(*m)) {
			printk("x86: RGB framebuffer tag without its colour "
			       "fields; ignored\n");
			return;
		}
		fb->type = BOOT_FB_RGB;
		fb->red_pos = m->red_pos;
		fb->red_size = m->red_size;
		fb->green_pos = m->green_pos;
		fb->green_size = m->green_size;
		fb->blue_pos = m->blue_pos;
		fb->blue_size = m->blue_size;
		break;
	case MB2_FB_EGA_TEXT:
		fb->type = BOOT_FB_EGA_TEXT;
		break;
	case MB2_FB_INDEXED:
		fb->type = BOOT_FB_INDEXED;
		break;
	default:
		printk("x86: framebuffer of unknown type %u; ignored\n", m->type);
	}
}

/* Returns the RSDP the loader copied for us, or 0. */
static uintptr_t parse_mb2(struct boot_info *bi, uintptr_t info)
{
	uint32_t total = *(uint32_t *)info;
	uintptr_t rsdp_old = 0, rsdp_new = 0;

	strlcpy(loader_name, "multiboot2", sizeof(loader_name));
	reserve(bi, info, info + total);
	for (uintptr_t p = info + 8; p < info + total;
	     p += ALIGN_UP(((struct mb2_tag *)p)->size, 8)) {
		struct mb2_tag *tag = (struct mb2_tag *)p;
		uint32_t *w = (uint32_t *)(tag + 1);

		if (tag->size < sizeof(*tag))
			break;			/* malformed: stop, keep what we have */
		switch (tag->type) {
		case MB2_TAG_END:
			return rsdp_new ? rsdp_new : rsdp_old;
		case MB2_TAG_CMDLINE:
			bi->cmdline_len = strlcpy(bi->cmdline, (char *)w,
						  sizeof(bi->cmdline));
			break;
		case MB2_TAG_LOADER:
			strlcpy(loader_name, (char *)w, sizeof(loader_name));
			break;
		case MB2_TAG_MODULE:
			add_module(bi, w[0], w[1]);
			break;
		case MB2_TAG_MMAP:
			if (w[0] < sizeof(struct mb2_mmap_entry))
				break;
			for (uintptr_t e = (uintptr_t)(w + 2); e < p + tag->size;
			     e += w[0]) {
				struct mb2_mmap_entry *m = (void *)e;

				if (m->type == MMAP_AVAILABLE)
					add_ram(bi, m->base, m->len);
			}
			break;
		case MB2_TAG_FRAMEBUFFER:
			parse_fb(bi, tag);
			break;
		case MB2_TAG_ACPI_OLD:
			rsdp_old = (uintptr_t)w;
			break;
		case MB2_TAG_ACPI_NEW:
			rsdp_new = (uintptr_t)w;
			break;
		}
	}
	return rsdp_new ? rsdp_new : rsdp_old;
}

static void parse_mb1(struct boot_info *bi, uintptr_t info)
{
	struct mb1_info *mb = (struct mb1_info *)info;

	strlcpy(loader_name, "multiboot1", sizeof(loader_name));
	reserve(bi, info, info + sizeof(*mb));
	if (mb->flags & MB1_INFO_LOADER)
		strlcpy(loader_name, (char *)(uintptr_t)mb->boot_loader_name,
			sizeof(loader_name));
	if (mb->flags & MB1_INFO_CMDLINE) {
		const char *s = (const char *)(uintptr_t)mb->cmdline;

		/* QEMU -kernel puts the kernel's file name first; GRUB's
		 * loaders pass only the arguments. */
		if (!strcmp(loader_name, "qemu")) {
			while (*s && *s != ' ')
				s++;
			while (*s == ' ')
				s++;
		}
		bi->cmdline_len = strlcpy(bi->cmdline, s, sizeof(bi->cmdline));
	}
	if (mb->flags & MB1_INFO_MODS) {
		struct mb1_module *mod = (void *)(uintptr_t)mb->mods_addr;

		for (uint32_t i = 0; i < mb->mods_count; i++)
			add_module(bi, mod[i].start, mod[i].end);
	}
	if (mb->flags & MB1_INFO_MMAP) {
		uintptr_t e = mb->mmap_addr, end = e + mb->mmap_length;

		for (; e < end; e += ((struct mb1_mmap_entry *)e)->size + 4) {
			struct mb1_mmap_entry *m = (void *)e;

			if (m->type == MMAP_AVAILABLE)
				add_ram(bi, m->base, m->len);
		}
	} else {
		/* Only the basic lower/upper sizes (KiB, upper from 1 MiB). */
		add_ram(bi, 0, (uint64_t)mb->mem_lower << 10);
		add_ram(bi, 1 << 20, (uint64_t)mb->mem_upper << 10);
	}
}

/*
 * The AP trampoline needs a fixed page below 1 MiB that is RAM and that
 * the loader left free.  That holds on every PC and VM we know; if not,
 * run on the boot CPU alone rather than overwrite something.
 */
static bool trampoline_page_free(struct boot_info *bi)
{
	uint64_t lo = AP_TRAMPOLINE_PA, hi = AP_TRAMPOLINE_PA + PAGE_SIZE;
	bool ram = false;

	for (int i = 0; i < bi->nmem; i++)
		ram |= bi->mem[i].base <= lo &&
		       hi <= bi->mem[i].base + bi->mem[i].size;
	for (int i = 0; i < bi->nreserved; i++)
		if (lo < bi->reserved[i].base + bi->reserved[i].size &&
		    hi > bi->reserved[i].base)
			return false;
	return ram;
}

void x86_parse_boot_info(struct boot_info *bi, uint32_t magic, uintptr_t info)
{
	uintptr_t rsdp = 0;

	if (magic == MB2_BOOT_MAGIC)
		rsdp = parse_mb2(bi, info);
	else
		parse_mb1(bi, info);
	bi->loader = loader_name;
	bi->kernel_base = (uintptr_t)__kernel_start;
	bi->kernel_end = (uintptr_t)__kernel_end;
	reserve(bi, 0, PAGE_SIZE);		/* page 0 stays unmapped */
	reserve(bi, bi->kernel_base, bi->kernel_end);
	if (!rsdp)
		rsdp = x86_acpi_find_rsdp_bios();
	x86_acpi_init(bi, rsdp);

	if (!trampoline_page_free(bi) && bi->ncpus > 1) {
		printk("x86: page 0x%x is not free RAM: not starting other CPUs\n",
		       AP_TRAMPOLINE_PA);
		bi->ncpus = 1;
	}
	reserve(bi, AP_TRAMPOLINE_PA, AP_TRAMPOLINE_PA + PAGE_SIZE);
}
