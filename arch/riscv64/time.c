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
 * time and their figures measure the spin, not the lock.  With `icount=1`
 * on the command line (the runner's benchmark, lab and scenario boots),
 * each arch_cpu_relax() gives up the turn instead: rv_relax_yield().
 */
#include "cpu.h"
#include "cmdline.h"
#include "rv.h"

bool rv_relax_yields;

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

	rv_relax_yields = cmdline_get(cmdline, "icount", val, sizeof(val)) &&
		val[0] == '1' && val[1] == '\0';
}

/*
 * Give up this hart's -icount turn without halting and without virtual
 * time passing: QEMU 7.2 ends a vCPU's turn at `wfi` (EXCP_HLT) even when
 * an interrupt is pending, and a hart with a pending, enabled interrupt
 * is not idle, so the next hart runs and this one resumes at the next
 * round.  The pending interrupt is a software interrupt this hart raises
 * itself with interrupts off, so it is never taken; it is cleared after.
 *
 * Why not a short timed halt (wfi with stimecmp moved 1 us ahead, as
 * before): the new timer wakes QEMU's main loop, and when every hart is
 * halted that loop jumps virtual time to the next timer from a clock
 * that may not yet count the instructions the halting hart just ran (it
 * reads it while the vCPU thread is still accounting them).  Whether it
 * does is a host race: a lab's timestamps then moved by 100 to 1900 ns
 * from run to run after a long `compute`.  The yield arms no timer, so it
 * gives that loop nothing to race with.
 *
 * An IPI that arrived meanwhile (its sender sets ipi_pending before it
 * makes SSIP pending) must survive the clear: it is raised again.  Only
 * under QEMU -icount, where the vCPUs run one at a time, so the CSR
 * clear and the ipi_pending load need no fence between them.
 */
void rv_relax_yield(void)
{
	unsigned long flags = arch_irq_save();

	if (csr_read(sip) & SIE_SSIE) {
		/* An IPI is already pending: wfi yields; it is taken later. */
		__asm__ __volatile__("wfi" ::: "memory");
	} else {
		csr_set(sip, SIE_SSIE);
		__asm__ __volatile__("wfi" ::: "memory");
		csr_clear(sip, SIE_SSIE);
		if (READ_ONCE(this_cpu()->ipi_pending))
			csr_set(sip, SIE_SSIE);
	}
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
