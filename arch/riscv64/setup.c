/*
 * setup.c - RISC-V boot and per-hart bring-up, console, idle, power off.
 *
 *   head.S _start -> rv_boot_main(hartid, dtb)    boot hart (OpenSBI's pick)
 *       SBI probe, device tree -> boot_info, console, traps -> kmain()
 *   arch_cpu_start() -> SBI HSM hart_start -> head.S rv_secondary_entry
 *       -> rv_secondary_main(cpu) -> secondary_main()
 */
#include "boot.h"
#include "cmdline.h"
#include "console.h"
#include "cores.h"
#include "cpu.h"
#include "mm.h"
#include "power.h"
#include "printf.h"
#include "rv.h"
#include "string.h"
#include "uart16550.h"
#include "uart_sifive.h"

#define EMERGENCY_STACK_SIZE 8192	/* page_alloc(1) for secondaries */
_Static_assert(EMERGENCY_STACK_SIZE == PAGE_SIZE << 1, "emergency stack order");
_Static_assert(offsetof(struct cpu, arch.entry_t0) == RV_CPU_ENTRY_T0 &&
	       offsetof(struct cpu, arch.entry_t1) == RV_CPU_ENTRY_T1 &&
	       offsetof(struct cpu, arch.map_gen) == RV_CPU_MAP_GEN,
	       "struct cpu moved: update RV_CPU_* in arch_impl.h (entry.S)");

static struct boot_info rv_boot_info;
static uint8_t boot_emergency_stack[EMERGENCY_STACK_SIZE] __aligned(16);
static struct rv_hart_start hart_start_args[NR_CPUS];

/* ---- Console ----------------------------------------------------- */

static void sbi_con_putc(struct console *c, char ch)
{
	(void)c;
	sbi_putc(ch);
}

static int sbi_con_getc(struct console *c)
{
	(void)c;
	return sbi_getc();
}

static struct console sbi_console = {
	.name = "sbi", .putc = sbi_con_putc, .getc = sbi_con_getc,
};
static struct uart16550 uart;
static struct uart_sifive uart_sifive;
static enum { CON_SBI, CON_16550, CON_SIFIVE } con_kind;

/* plic.c: the console UART's input by interrupt from now on; false for
 * the SBI console, which stays polled. */
bool rv_console_irq_on(void)
{
	if (con_kind == CON_16550)
		uart16550_irq_on(&uart);
	else if (con_kind == CON_SIFIVE)
		uart_sifive_irq_on(&uart_sifive);
	return con_kind != CON_SBI;
}

/* plic.c: the console UART's interrupt. */
void rv_console_irq(void)
{
	if (con_kind == CON_16550)
		uart16550_irq(&uart);
	else if (con_kind == CON_SIFIVE)
		uart_sifive_irq(&uart_sifive);
}

/* The DT's UART if we drive it, else (or with "console=sbi" on the
 * command line) the firmware's console through SBI calls. */
static const char *console_init(const char *cmdline)
{
	static char name[48];
	char val[8];

	if (!rv_plat.have_uart || (cmdline_get(cmdline, "console", val, sizeof(val)) &&
				   strcmp(val, "sbi") == 0)) {
		console_register(&sbi_console);
		return sbi_console.name;
	}
	snprintf(name, sizeof(name), "%s@%lx", rv_plat.uart_compat,
		 (unsigned long)rv_plat.uart_base);
	if (strncmp(rv_plat.uart_compat, "sifive,", 7) == 0) {	/* dt.c */
		uart_sifive.base = rv_plat.uart_base;
		uart_sifive.clock_hz = rv_plat.uart_clock;
		uart_sifive.baud = 115200;
		uart_sifive_init(&uart_sifive, name);
		console_register(&uart_sifive.con);
		con_kind = CON_SIFIVE;
		return name;
	}
	uart.base = rv_plat.uart_base;
	uart.reg_shift = rv_plat.uart_shift;
	uart.reg_width = rv_plat.uart_width;
	/* A DesignWare UART may hang on divisor writes while busy; the
	 * firmware already set its baud rate, so leave that one alone. */
	uart.dw = strcmp(rv_plat.uart_compat, "snps,dw-apb-uart") == 0;
	uart.clock_hz = uart.dw ? 0 : rv_plat.uart_clock;
	uart.baud = 115200;
	uart16550_init(&uart, name);
	console_register(&uart.con);
	con_kind = CON_16550;
	return name;
}

/* A core whose page tables need what mmu.c does not write (cores.c):
 * say which and why, then stop, instead of failing later and far away. */
static void refuse_unsupported_core(void)
{
	const char *why = rv_core_refusal(sbi.mvendorid, sbi.marchid,
					  rv_plat.cpu_compat,
					  rv_plat.cpu_compat_len);

	if (!why)
		return;
	printk("kestrel: fatal: %s\n", why);
	poweroff(1);
}

/* ---- Boot hart ----------------------------------------------------- */

void arch_set_this_cpu(struct cpu *cpu)
{
	cpu->self = cpu;
	__asm__ __volatile__("mv tp, %0" :: "r"(cpu) : "memory");
}

void rv_boot_main(uint64_t hartid, const void *dtb) __noreturn;
void rv_boot_main(uint64_t hartid, const void *dtb)
{
	struct boot_info *bi = &rv_boot_info;
	struct cpu *c = &cpus[0];

	c->id = 0;
	c->arch_id = hartid;
	c->arch.hartid = hartid;
	c->arch.emergency_stack_top =
		(uintptr_t)boot_emergency_stack + EMERGENCY_STACK_SIZE;
	arch_set_this_cpu(c);
	rv_trap_init_hart(c->arch.emergency_stack_top);
	sbi_init();
	rv_dt_parse(bi, dtb, hartid);
	const char *con = console_init(bi->cmdline);

	rv_time_init();
	refuse_unsupported_core();	/* needs the console and the clock */
	rv_relax_init(bi->cmdline);
	printk("riscv: Image at %lx (linked at %lx), boot hart %lu, SBI %lu.%lu\n",
	       (unsigned long)bi->kernel_base, (unsigned long)KERNEL_LINK_BASE,
	       (unsigned long)hartid, sbi.spec_version >> 24 & 0x7f,
	       sbi.spec_version & 0xffffff);
	printk("riscv: console %s, timebase %lu Hz, timer %s\n", con,
	       (unsigned long)rv_plat.timebase_hz, rv_plat.sstc ? "sstc" : "sbi");
	if (rv_plat.uart_unsupported)
		printk("riscv: no driver for the console device \"%s\" "
		       "(/chosen stdout-path): using the SBI console\n",
		       rv_plat.uart_unsupported);
	if (bi->module_size)
		printk("riscv: initrd at %lx, %lu bytes\n",
		       (unsigned long)bi->module_base, (unsigned long)bi->module_size);
	kmain(bi);
}

/* ---- Secondary harts ---------------------------------------------- */

/*
 * The hart being started and its arguments, for a hart that OpenSBI lets
 * run into _start instead of rv_secondary_entry (head.S rv_late_hart).
 * In .data (initialised), because a late hart reads it while .bss may
 * have just been cleared; hart id -1: nobody.
 */
struct {
	volatile uint64_t hartid;
	struct rv_hart_start *volatile args;
} rv_hart_start_pending = { .hartid = -1UL };

int arch_cpu_start(struct cpu *cpu, void *stack_top)
{
	struct rv_hart_start *a = &hart_start_args[cpu->id];
	uintptr_t estack = page_alloc(1);	/* EMERGENCY_STACK_SIZE */

	if (!estack)
		return -ENOMEM;
	cpu->arch.hartid = cpu->arch_id;
	cpu->arch.emergency_stack_top = estack + EMERGENCY_STACK_SIZE;
	a->satp = rv_satp;
	a->cpu = cpu;
	a->stack_top = (uintptr_t)stack_top;
	rv_hart_start_pending.args = a;
	smp_mb();
	rv_hart_start_pending.hartid = cpu->arch_id;
	/* The hart reads *a with its MMU off; HSM's ecall orders our stores
	 * before its start, but be explicit. */
	smp_mb();
	int err = sbi_hart_start(cpu->arch_id, (uintptr_t)rv_secondary_entry,
				 (uintptr_t)a);

	if (err)
		page_free(estack, 1);
	return err;
}

void rv_secondary_main(struct cpu *cpu) __noreturn;
void rv_secondary_main(struct cpu *cpu)
{
	arch_set_this_cpu(cpu);
	rv_trap_init_hart(cpu->arch.emergency_stack_top);
	rv_timer_init_hart();
	secondary_main(cpu);
}

/* ---- Tasks, idle, halt, power -------------------------------------- */

void rv_task_start(void);			/* entry.S */

/* The first switch to this task jumps to rv_task_start (entry.S) with
 * sp pointing at entry and arg, 16 bytes below the 16-aligned top. */
void arch_context_init(struct arch_context *ctx, void *stack_top,
		       void (*entry)(void *arg), void *arg)
{
	uint64_t *sp = (uint64_t *)((uintptr_t)stack_top & ~15UL);

	*--sp = (uintptr_t)arg;
	*--sp = (uintptr_t)entry;
	ctx->pc = (uintptr_t)rv_task_start;
	ctx->sp = (uintptr_t)sp;
	ctx->s0 = 0;
}

/*
 * wfi wakes when an interrupt is pending in sie & sip even with
 * sstatus.SIE clear, so sleeping with SIE off cannot miss a wakeup that
 * arrives between the caller's check and the wfi.  Then SIE is opened for
 * a moment to take the interrupt.
 */
void arch_idle(void)
{
	__asm__ __volatile__("wfi\n\t"
			     "csrsi sstatus, 2\n\t"
			     "csrci sstatus, 2" ::: "memory");
}

void arch_halt(void)
{
	arch_irq_disable();
	csr_write(sie, 0);
	for (;;)
		__asm__ __volatile__("wfi");
}

/*
 * 0: SBI SRST shutdown.  Failure: the SiFive test device if the DT has
 * one (QEMU exits with @code), else SRST shutdown "system failure".
 * Returns if neither worked (poweroff() then halts every hart).
 */
void arch_poweroff(int code)
{
	arch_irq_disable();
	if (code != 0 && rv_plat.test_dev) {
		*(volatile uint32_t *)rv_plat.test_dev =
			0x3333 | ((uint32_t)code & 0xffff) << 16;
	}
	sbi_shutdown(code != 0);
}
