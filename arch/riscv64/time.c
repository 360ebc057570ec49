/*
 * time.c - clock, per-hart one-shot timer, and IPIs.
 *
 * The time CSR counts at the DT "timebase-frequency" on every hart alike,
 * so it is the monotonic clock.  The one-shot timer is stimecmp when every
 * hart has Sstc (no trip to M-mode), else SBI set_timer.  A timer
 * interrupt is acknowledged by clearing sie.STIE (the pending bit stays
 * set until the compare value moves); arch_timer_arm sets it again.
 */
#include "cpu.h"
#include "rv.h"

static uint64_t boot_ticks;		/* time CSR at boot: clock 0 */
static uint64_t ns_per_tick;		/* when the timebase divides 1e9 */

static inline uint64_t rdtime(void)
{
	uint64_t t;

	__asm__ __volatile__("rdtime %0" : "=r"(t));
	return t;
}

bool rv_probe_stimecmp(void);		/* entry.S */

void rv_time_init(void)
{
	boot_ticks = rdtime();
	if (rv_plat.sstc && !rv_probe_stimecmp())
		rv_plat.sstc = false;
	if (NSEC_PER_SEC % rv_plat.timebase_hz == 0)
		ns_per_tick = NSEC_PER_SEC / rv_plat.timebase_hz;
	rv_timer_init_hart();
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

uint64_t arch_clock_ns(void)
{
	uint64_t t = rdtime() - boot_ticks, hz = rv_plat.timebase_hz;

	if (ns_per_tick)
		return t * ns_per_tick;
	return t / hz * NSEC_PER_SEC + t % hz * NSEC_PER_SEC / hz;
}

/* Round up, so the interrupt never comes before @deadline_ns. */
static uint64_t ns_to_ticks(uint64_t ns)
{
	uint64_t hz = rv_plat.timebase_hz;

	return ns / NSEC_PER_SEC * hz +
	       (ns % NSEC_PER_SEC * hz + NSEC_PER_SEC - 1) / NSEC_PER_SEC;
}

void arch_timer_arm(uint64_t deadline_ns)
{
	uint64_t when = boot_ticks + ns_to_ticks(deadline_ns);

	if (rv_plat.sstc)
		csr_write(stimecmp, when);
	else
		sbi_set_timer(when);
	csr_set(sie, SIE_STIE);
}

void rv_timer_irq_ack(void)
{
	csr_clear(sie, SIE_STIE);
}

void arch_send_ipi(struct cpu *cpu)
{
	sbi_send_ipi_hart(cpu->arch_id);
}
