/*
 * time.c - clock, per-hart one-shot timer, and IPIs.
 *
 * The time CSR counts at the DT "timebase-frequency" on every hart alike,
 * so it is the monotonic clock.  The one-shot timer is stimecmp when every
 * hart has Sstc (no trip to M-mode), else SBI set_timer.  A timer
 * interrupt is acknowledged by clearing sie.STIE (the pending bit stays
 * set until the compare value moves); arch_timer_arm sets it again.
 *
 * Spinning under qemu -icount: QEMU runs the vCPUs in turn on one host
 * thread, and a turn ends at the next timer deadline or when the vCPU
 * halts.  x86's `pause` also ends it; RISC-V's (QEMU 7.2) does not, so a
 * hart spinning for a lock whose holder waits for its turn spins until
 * the next tick: benchmarks of contended locks then cost minutes of host
 * time and their figures measure the spin, not the lock.  With Sstc and
 * `icount=1` on the command line (the runner's benchmark boots), each
 * arch_cpu_relax() instead halts for RELAX_YIELD_NS of virtual time (wfi
 * with the compare value moved close), so the others run meanwhile.
 */
#include "cpu.h"
#include "cmdline.h"
#include "rv.h"

#define RELAX_YIELD_NS 1000

bool rv_relax_yields;
static uint64_t relax_ticks;

uint64_t rv_boot_ticks;			/* arch_impl.h: arch_clock_ns() */
uint64_t rv_ns_per_tick;

static inline uint64_t rdtime(void)
{
	uint64_t t;

	__asm__ __volatile__("rdtime %0" : "=r"(t));
	return t;
}

bool rv_probe_stimecmp(void);		/* entry.S */

void rv_time_init(void)
{
	rv_boot_ticks = rdtime();
	if (rv_plat.sstc && !rv_probe_stimecmp())
		rv_plat.sstc = false;
	if (NSEC_PER_SEC % rv_plat.timebase_hz == 0)
		rv_ns_per_tick = NSEC_PER_SEC / rv_plat.timebase_hz;
	rv_timer_init_hart();
}

void rv_relax_init(const char *cmdline)
{
	char val[4];

	relax_ticks = RELAX_YIELD_NS * rv_plat.timebase_hz / NSEC_PER_SEC + 1;
	rv_relax_yields = rv_plat.sstc &&
		cmdline_get(cmdline, "icount", val, sizeof(val)) &&
		val[0] == '1' && val[1] == '\0';
}

/* Interrupts off throughout, so no handler re-arms the timer between the
 * save and the restore; wfi still wakes on the pending timer (or an IPI),
 * which sie enables.  An interrupt already due makes wfi return at once
 * and is taken when interrupts are restored. */
void rv_relax_yield(void)
{
	unsigned long flags = arch_irq_save();
	uint64_t cmp = csr_read(stimecmp);
	unsigned long sie = csr_read(sie);

	csr_write(stimecmp, rdtime() + relax_ticks);
	csr_set(sie, SIE_STIE);
	__asm__ __volatile__("wfi" ::: "memory");
	csr_write(stimecmp, cmp);
	if (!(sie & SIE_STIE))
		csr_clear(sie, SIE_STIE);
	arch_irq_restore(flags);
}

/* Each hart: timer far away, timer and software interrupts enabled in sie
 * (still masked by sstatus.SIE until the generic code enables it). */
void rv_timer_init_hart(void)
{
	if (rv_plat.sstc)
		csr_write(stimecmp, -1UL);
	else
		sbi_set_timer(-1UL);
	csr_clear(sip, SIE_SSIE);
	csr_write(sie, SIE_STIE | SIE_SSIE);
}

/* arch_clock_raw_ns() for @t ticks since boot, when a tick is not a
 * whole number of nanoseconds. */
uint64_t rv_clock_slow_ns(uint64_t t)
{
	uint64_t hz = rv_plat.timebase_hz;

	return t / hz * NSEC_PER_SEC + t % hz * NSEC_PER_SEC / hz;
}

/* Round up, so the interrupt never comes before @deadline_ns.  One
 * division when a tick is a whole number of ns (arch_clock_ns()'s
 * common case too: 10 MHz, 100 ns); no overflow for ~0. */
static uint64_t ns_to_ticks(uint64_t ns)
{
	uint64_t hz = rv_plat.timebase_hz;

	if (__builtin_expect(rv_ns_per_tick != 0, 1))
		return ns / rv_ns_per_tick + (ns % rv_ns_per_tick != 0);
	return ns / NSEC_PER_SEC * hz +
	       (ns % NSEC_PER_SEC * hz + NSEC_PER_SEC - 1) / NSEC_PER_SEC;
}

void arch_timer_arm(uint64_t deadline_ns)
{
	uint64_t when = rv_boot_ticks + ns_to_ticks(deadline_ns);

	if (rv_plat.sstc)
		csr_write(stimecmp, when);
	else
		sbi_set_timer(when);
	csr_set(sie, SIE_STIE);
}

void arch_send_ipi(struct cpu *cpu)
{
	sbi_send_ipi_hart(cpu->arch_id);
}
