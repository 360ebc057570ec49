/*
 * boot.h - what the arch's early code discovered, handed to kmain().
 * Filled from the multiboot2 tags + ACPI MADT (x86_64) or the device tree
 * (riscv64).  All addresses are physical (== virtual, see arch.h).
 */
#ifndef BOOT_H
#define BOOT_H
#include <stddef.h>
#include <stdint.h>

#define BOOT_MAX_REGIONS 32
#define BOOT_MAX_CPUS 64
/* The command line kept, NUL included: room for a long ktest= list plus
 * the runner's options; a longer one is cut and kmain says so. */
#define BOOT_CMDLINE_MAX 2048

struct mem_region {
	uint64_t base, size;
};

/*
 * A screen the loader set up for us (x86_64: GRUB's multiboot2
 * framebuffer tag), drawn on by drivers/fbcon.c.  BOOT_FB_RGB: a linear
 * framebuffer, @bpp bits a pixel, each colour a field of @*_size bits at
 * bit @*_pos of the pixel; BOOT_FB_EGA_TEXT: the VGA text buffer, 16
 * bits a cell (character, attribute), @width x @height cells;
 * BOOT_FB_INDEXED: a palette mode, reported and left alone.
 */
enum boot_fb_type {
	BOOT_FB_NONE = 0,
	BOOT_FB_RGB,
	BOOT_FB_EGA_TEXT,
	BOOT_FB_INDEXED,
};

struct boot_fb {
	enum boot_fb_type type;
	uint64_t addr;			/* physical */
	uint32_t pitch;			/* bytes per line */
	uint32_t width, height;		/* pixels (text: cells) */
	uint8_t bpp;
	uint8_t red_pos, red_size, green_pos, green_size, blue_pos, blue_size;
};

struct boot_info {
	/* Usable RAM, as the firmware reported it (not yet minus reserved). */
	struct mem_region mem[BOOT_MAX_REGIONS];
	int nmem;
	/* Ranges inside RAM that must never be allocated: the kernel image,
	 * firmware (OpenSBI reserved-memory), the DTB, multiboot info, boot
	 * modules/initrd, AP trampoline, page 0. */
	struct mem_region reserved[BOOT_MAX_REGIONS];
	int nreserved;
	/* Device register ranges that arch_mmu_init must map MAP_DEVICE
	 * (UART, local APIC, IOAPIC, ...). */
	struct mem_region devices[BOOT_MAX_REGIONS];
	int ndevices;

	/* CPUs: arch ids (APIC ids / hart ids) of every usable CPU; index 0
	 * is the boot CPU.  Disabled harts are already left out. */
	uint64_t cpu_arch_id[BOOT_MAX_CPUS];
	int ncpus;

	/* Kernel command line, NUL terminated ("" if none); cmdline_len is
	 * the length the loader gave (more than BOOT_CMDLINE_MAX - 1: the
	 * line was cut). */
	char cmdline[BOOT_CMDLINE_MAX];
	size_t cmdline_len;

	/* First boot module / initrd, or size 0. */
	uint64_t module_base, module_size;

	/* The loader's screen, or type BOOT_FB_NONE. */
	struct boot_fb fb;

	/* Where the loader put us and with what, for the boot banner. */
	const char *loader;		/* "GRUB 2.06", "multiboot1", "OpenSBI" ... */
	uint64_t kernel_base, kernel_end; /* physical range of the image */
};

/* Arch-private fills; generic code reads it through kmain's argument and,
 * later, through this pointer. */
extern struct boot_info *boot_info;
#endif
