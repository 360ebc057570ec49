/*
 * profile_nmi.c - the profiler's NMI source on x86_64 (arch.h,
 * arch_profile_nmi_start).
 *
 * PIT channel 0 counts down once (mode 0) and is started again from
 * each NMI with the next gap (profile_next_gap: random, so that samples
 * do not beat with a loop); the IOAPIC pin of ISA IRQ 0 delivers the
 * edge at its end as an NMI to the boot CPU, which sends an NMI on to
 * every other CPU; each CPU records the call chain it was
 * interrupted in (kernel/profile.c).  NMIs are not held back by code
 * with interrupts off, which is where the scheduler's paths run.  Under
 * qemu -icount the PIT runs on virtual time, so the samples repeat.
 *
 * Once the profiler has used NMIs, an NMI that comes when it is off (one
 * sent on just before the stop) is counted and ignored instead of
 * panicking as an unexpected NMI does.
 */
#include "x86.h"
#include "cpu.h"
#include "profile.h"
#include "errno.h"

#define REDIR_NMI (4u << 8)		/* edge, active high, physical */
#define PIT_HZ 1193182ULL
#define PIT_CMD 0x43
#define PIT_CH0 0x40

static volatile bool nmi_on;		/* NMIs are the profiler's now */
static bool nmi_used;			/* ... and were once */
static unsigned long nmi_late;		/* came after a stop: ignored */

/* Start channel 0 counting down @ns (mode 0: OUT rises at zero, once). */
static void pit_one_shot(uint64_t ns)
{
	uint64_t count = ns * PIT_HZ / NSEC_PER_SEC;

	if (count < 2)
		count = 2;
	if (count > 0xffff)
		count = 0xffff;
	outb(PIT_CMD, 0x30);		/* channel 0, lo/hi byte, mode 0 */
	outb(PIT_CH0, count & 0xff);
	outb(PIT_CH0, count >> 8);
}

int arch_profile_nmi_start(uint64_t period_ns)
{
	uint32_t gsi = x86_isa_irqs[ISA_IRQ_PIT].gsi;

	if (gsi >= (uint32_t)x86_ioapic_pins())
		return -ENODEV;
	/* 1.5 periods must fit the PIT's 16 bits (55 ms). */
	if (period_ns * 3 / 2 * PIT_HZ / NSEC_PER_SEC > 0xffff)
		return -EINVAL;
	nmi_used = true;
	WRITE_ONCE(nmi_on, true);
	x86_ioapic_write(REDIR_HI(gsi), (uint32_t)cpus[0].arch_id << 24);
	x86_ioapic_write(REDIR_LO(gsi), REDIR_NMI);
	pit_one_shot(profile_next_gap());
	return 0;
}

void arch_profile_nmi_stop(void)
{
	WRITE_ONCE(nmi_on, false);	/* no NMI starts the PIT again */
	x86_ioapic_write(REDIR_LO(x86_isa_irqs[ISA_IRQ_PIT].gsi), REDIR_MASKED);
}

bool x86_profile_nmi(struct trap_frame *f)
{
	uintptr_t pc[PROFILE_DEPTH];

	if (!READ_ONCE(nmi_on)) {
		if (!nmi_used)
			return false;
		nmi_late++;
		return true;
	}
	if (this_cpu()->id == 0) {
		pit_one_shot(profile_next_gap());
		if (ncpus > 1)
			x86_lapic_nmi_others();
	}
	profile_record(pc, x86_callchain(f, pc, PROFILE_DEPTH));
	return true;
}
