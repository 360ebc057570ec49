/*
 * early.c - C entry of the boot CPU (from boot.S, in long mode on the
 * boot page tables and boot stack): per-CPU pointer, descriptor tables,
 * serial console, boot_info, the screen and keyboard consoles, interrupt
 * controllers and time, then kmain.
 */
#include "x86.h"
#include "boot.h"
#include "console.h"
#include "cpu.h"
#include "fbcon.h"
#include "i8042.h"
#include "uart16550.h"

#define COM1_PORT 0x3f8
#define COM1_CLOCK_HZ 1843200

static struct boot_info the_boot_info;	/* boot_info (main.c) points here */

/* The boot CPU's IST stacks; the APs get theirs from page_alloc. */
static uint8_t bsp_ist[IST_BLOCK_SIZE] __aligned(PAGE_SIZE);

static struct uart16550 com1;
static struct fbcon screen;
static bool screen_waits_for_mmu;
static struct i8042 keyboard;
static bool have_keyboard;

static uint8_t pio_read(uintptr_t port)
{
	return inb((uint16_t)port);
}

static void pio_write(uintptr_t port, uint8_t v)
{
	outb((uint16_t)port, v);
}

static void console_init(void)
{
	com1.base = COM1_PORT;
	com1.reg_shift = 0;
	com1.reg_width = 1;
	com1.clock_hz = COM1_CLOCK_HZ;
	com1.baud = 115200;
	com1.pio = true;
	com1.pio_read = pio_read;
	com1.pio_write = pio_write;
	uart16550_init(&com1, "com1");
	console_register(&com1.con);
}

struct uart16550 *x86_com1(void)
{
	return &com1;
}

/*
 * The screen GRUB set up, as a second console after COM1.  The boot
 * page tables map 0..4 GiB, so a framebuffer there is drawn on at once
 * and shows the boot from its first line; one above 4 GiB (OVMF may
 * put a 64-bit BAR there) keeps its text until arch_mmu_init() has
 * mapped it (x86_screen_mapped()).  arch_mmu_init() maps it
 * write-combining (x86_pat_init()): the console only ever writes it
 * (fbcon.c keeps the text in RAM, so no uncached read is ever made), and
 * WC merges its stores.  Until then the boot map's WB is made uncached
 * by the firmware's MTRRs, which cover the PCI hole on every PC.
 */
static void screen_init(struct boot_info *bi)
{
	struct boot_fb *fb = &bi->fb;
	uint64_t size = (uint64_t)fb->pitch * fb->height;
	bool mapped = fb->addr + size <= 4ULL << 30;

	if (fb->type == BOOT_FB_NONE) {
		printk("console: no framebuffer from the loader (%s)\n",
		       bi->loader);
		return;
	}
	if (fbcon_init(&screen, fb, mapped) < 0)
		return;
	x86_wc_region.base = fb->addr;
	x86_wc_region.size = size;
	screen_waits_for_mmu = !mapped;
}

/* The PS/2 keyboard as console input (a PC without a COM port types
 * here), whether or not there is a screen: polled until ioapic.c routes
 * its interrupt. */
static void keyboard_init(void)
{
	keyboard.pio_read = pio_read;
	keyboard.pio_write = pio_write;
	have_keyboard = i8042_init(&keyboard) == 0;
}

struct i8042 *x86_keyboard(void)
{
	return have_keyboard ? &keyboard : NULL;
}

void x86_screen_mapped(void)
{
	if (screen_waits_for_mmu) {
		screen_waits_for_mmu = false;
		fbcon_online(&screen);
	}
}

void x86_early_main(uint32_t magic, uintptr_t info) __noreturn;
void x86_early_main(uint32_t magic, uintptr_t info)
{
	struct cpu *bsp = &cpus[0];
	struct boot_info *bi = &the_boot_info;

	/* this_cpu() first: printk and panic use it. */
	arch_set_this_cpu(bsp);
	x86_idt_init();
	x86_cpu_tables_init(bsp, (uintptr_t)bsp_ist);
	x86_pat_init();
	console_init();

	boot_info = bi;
	x86_parse_boot_info(bi, magic, info);
	screen_init(bi);
	keyboard_init();
	x86_early_map_ram(bi);
	bsp->arch_id = bi->cpu_arch_id[0];

	x86_pic_disable();
	x86_lapic_init();
	x86_time_init();
	kmain(bi);
}
