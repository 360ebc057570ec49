/*
 * smp.c - starting the application processors (APs).
 *
 * The boot CPU copies the real-mode trampoline (trampoline.S) to
 * AP_TRAMPOLINE_PA, fills its parameter block and sends INIT, SIPI, SIPI
 * (Intel SDM "MP initialization", with the usual 10 ms / 200 us waits).
 * The AP reaches x86_ap_main() in 64-bit mode on the kernel page tables
 * and its idle stack, loads its own GDT/TSS/IDT, enables its local APIC,
 * says it is alive and enters secondary_main().  CPUs are started one at
 * a time, so one parameter block is enough: the boot CPU does not touch
 * it again until the AP has said it is alive (after reading it).
 */
#include "x86.h"
#include "cpu.h"
#include "mm.h"
#include "string.h"

/* Must match the parameter block at the end of trampoline.S. */
struct x86_trampoline_params {
	uint32_t boot_cr3;		/* early_pml4: maps the trampoline */
	uint32_t efer;			/* EFER bits to set: LME (+ NXE) */
	uint64_t entry;			/* x86_ap_entry64 */
	uint64_t stack_top;
	uint64_t cpu;
	uint64_t kernel_cr3;		/* 0: stay on the boot tables */
};

extern char x86_trampoline_start[], x86_trampoline_end[];
extern char x86_trampoline_params[];
extern uint64_t early_pml4[];

#define EFER_LME (1u << 8)
#define AP_ALIVE_TIMEOUT_US 2000000	/* generous: TCG on a busy host */

/*
 * alive: 0 starting, 1 the AP claimed it, -1 the boot CPU gave up on it.
 * Whoever moves it away from 0 first wins, so an AP that shows up after
 * the timeout halts instead of running as a CPU the kernel thinks absent.
 */
static bool claim(struct cpu *cpu, int to)
{
	int expected = 0;

	return __atomic_compare_exchange_n(&cpu->arch.alive, &expected, to,
					   false, __ATOMIC_ACQ_REL,
					   __ATOMIC_ACQUIRE);
}

static bool wait_alive(struct cpu *cpu, uint64_t us)
{
	uint64_t end = arch_clock_ns() + us * NSEC_PER_USEC;

	while (arch_clock_ns() < end) {
		if (__atomic_load_n(&cpu->arch.alive, __ATOMIC_ACQUIRE) == 1)
			return true;
		arch_cpu_relax();
	}
	return false;
}

/*
 * The SDM's 10 ms between INIT and STARTUP is for the 486/Pentium-era
 * external APIC; Intel family 6 and AMD family >= 0xf need none (as in
 * Linux's smp_quirk_init_udelay).  It matters under qemu -icount, where
 * a 10 ms busy-wait costs seconds of host time per CPU.
 */
static uint64_t init_delay_us(void)
{
	uint32_t max, vendor, ecx, edx, sig, ebx;
	unsigned family;

	cpuid(0, &max, &vendor, &ecx, &edx);	/* vendor: "Genu"/"Auth" */
	cpuid(1, &sig, &ebx, &ecx, &edx);
	family = (sig >> 8) & 0xf;
	if (family == 0xf)
		family += (sig >> 20) & 0xff;
	if ((vendor == 0x756e6547 && family == 6) ||	/* GenuineIntel */
	    (vendor == 0x68747541 && family >= 0xf))	/* AuthenticAMD */
		return 0;
	return 10000;
}

int arch_cpu_start(struct cpu *cpu, void *stack_top)
{
	uintptr_t base = AP_TRAMPOLINE_PA;
	struct x86_trampoline_params *p = (void *)(base +
		(x86_trampoline_params - x86_trampoline_start));
	uint32_t apic_id = (uint32_t)cpu->arch_id;
	uintptr_t ist = page_alloc(IST_BLOCK_ORDER);

	if (x86_trampoline_end - x86_trampoline_params != sizeof(*p))
		panic("trampoline.S and struct x86_trampoline_params disagree");
	if (!ist)
		return -ENOMEM;
	cpu->arch.ist_base = ist;
	cpu->arch.alive = 0;

	memcpy((void *)base, x86_trampoline_start,
	       x86_trampoline_end - x86_trampoline_start);
	p->boot_cr3 = (uint32_t)(uintptr_t)early_pml4;
	p->efer = EFER_LME | (x86_nx ? EFER_NXE : 0);
	p->stack_top = (uint64_t)stack_top;
	p->cpu = (uint64_t)cpu;
	p->kernel_cr3 = x86_kernel_cr3;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);

	x86_lapic_send_init(apic_id);
	x86_delay_us(init_delay_us());
	for (int i = 0; i < 2; i++) {
		x86_lapic_send_sipi(apic_id, base >> 12);
		if (wait_alive(cpu, i == 0 ? 200 : AP_ALIVE_TIMEOUT_US))
			return 0;
	}
	if (!claim(cpu, -1))
		return 0;		/* it made it just now */
	/* Park it in wait-for-SIPI so it cannot run the next CPU's block. */
	x86_lapic_send_init(apic_id);
	page_free(ist, IST_BLOCK_ORDER);
	printk("x86: CPU %d (APIC id %u) did not start\n", cpu->id, apic_id);
	return -ETIMEDOUT;
}

void x86_ap_main(struct cpu *cpu)
{
	arch_set_this_cpu(cpu);
	x86_cpu_tables_init(cpu, cpu->arch.ist_base);
	x86_pat_init();
	x86_lapic_init();
	if (!claim(cpu, 1))
		arch_halt();		/* the boot CPU gave up on us */
	secondary_main(cpu);
}
