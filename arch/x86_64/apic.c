/*
 * apic.c - local APIC (xAPIC, MMIO), the 8259 PICs (masked), time and
 * IPIs.
 *
 * Time: arch_clock_ns() scales the TSC, calibrated once against the PIT
 * (channel 2, polled through its gate), minus the TSC at calibration.
 * QEMU keeps the TSCs of all vCPUs in step, so one offset serves every CPU.
 * The per-CPU one-shot timer is the LAPIC timer, undivided, calibrated
 * against the TSC in the same PIT window; a deadline becomes a count from
 * "now".
 */
#include "x86.h"
#include "cpu.h"

#define LAPIC_TPR 0x080
#define LAPIC_EOI 0x0b0
#define LAPIC_SVR 0x0f0
#define LAPIC_ESR 0x280
#define LAPIC_ICR_LO 0x300
#define LAPIC_ICR_HI 0x310
#define LAPIC_LVT_TIMER 0x320
#define LAPIC_LVT_LINT0 0x350
#define LAPIC_LVT_LINT1 0x360
#define LAPIC_LVT_ERROR 0x370
#define LAPIC_TIMER_INIT 0x380
#define LAPIC_TIMER_CUR 0x390
#define LAPIC_TIMER_DIV 0x3e0

#define APIC_BASE_EXTD (1u << 10)	/* x2APIC mode */
#define APIC_BASE_EN (1u << 11)
#define LVT_MASKED (1u << 16)
#define LVT_NMI (4u << 8)
#define SVR_ENABLE (1u << 8)
#define ICR_BUSY (1u << 12)
#define ICR_ASSERT (1u << 14)
#define ICR_LEVEL (1u << 15)
#define ICR_INIT (5u << 8)
#define ICR_STARTUP (6u << 8)
#define ICR_NMI (4u << 8)
#define ICR_OTHERS (3u << 18)		/* shorthand: all excluding self */
#define TIMER_DIV_1 0xb

#define PIT_HZ 1193182ULL
#define CALIBRATE_MS 10

uintptr_t x86_lapic_pa = 0xfee00000;	/* MADT may override (acpi.c) */
uintptr_t x86_ioapic_pa;		/* acpi.c */
/* acpi.c: each ISA IRQ's GSI and MPS INTI flags; without an override
 * the IRQ's own number, as the ISA bus (active high, edge). */
#define ISA(n) { .gsi = (n), .flags = 0, .overridden = false }
struct x86_isa_irq x86_isa_irqs[X86_ISA_IRQS] = {
	ISA(0), ISA(1), ISA(2), ISA(3), ISA(4), ISA(5), ISA(6), ISA(7),
	ISA(8), ISA(9), ISA(10), ISA(11), ISA(12), ISA(13), ISA(14), ISA(15),
};
#undef ISA

static uint64_t tsc_hz, lapic_hz;	/* LAPIC timer ticks/s, undivided */
uint64_t x86_tsc_boot;			/* arch_impl.h: arch_clock_ns() */
uint64_t x86_ns_per_tsc;
/* arch_timer_arm(): LAPIC ticks per TSC cycle in 32.32 fixed point,
 * rounded up and padded by the calibration's uncertainty; the largest
 * TSC interval whose count fits the 32-bit register. */
static uint64_t lapic_per_tsc, lapic_max_tsc;

static inline uint32_t lapic_read(unsigned reg)
{
	return *(volatile uint32_t *)(x86_lapic_pa + reg);
}

static inline void lapic_write(unsigned reg, uint32_t v)
{
	*(volatile uint32_t *)(x86_lapic_pa + reg) = v;
}

void x86_lapic_eoi(void)
{
	lapic_write(LAPIC_EOI, 0);
}

/* Remap the 8259s away from the exception vectors, then mask them all:
 * every interrupt we use comes through the local APIC. */
void x86_pic_disable(void)
{
	outb(0x20, 0x11);			/* ICW1: init, ICW4 follows */
	outb(0xa0, 0x11);
	outb(0x21, PIC_VECTOR_BASE);		/* ICW2: vector base */
	outb(0xa1, PIC_VECTOR_BASE + 8);
	outb(0x21, 4);				/* ICW3: slave on IRQ 2 */
	outb(0xa1, 2);
	outb(0x21, 1);				/* ICW4: 8086 mode */
	outb(0xa1, 1);
	outb(0x21, 0xff);			/* mask everything */
	outb(0xa1, 0xff);
}

/* Enable this CPU's local APIC: spurious vector, timer one-shot on
 * TIMER_VECTOR (stopped until armed), LINT0 masked (the 8259 is off),
 * LINT1 as NMI on the boot CPU only, errors masked. */
void x86_lapic_init(void)
{
	uint64_t base = rdmsr(MSR_APIC_BASE);

	/* Firmware may hand over in x2APIC mode, which has no MMIO window;
	 * the only way back to xAPIC is through "disabled". */
	if (base & APIC_BASE_EXTD)
		wrmsr(MSR_APIC_BASE, base & ~(uint64_t)(APIC_BASE_EXTD | APIC_BASE_EN));
	wrmsr(MSR_APIC_BASE, (base & ~(uint64_t)APIC_BASE_EXTD) | APIC_BASE_EN);
	lapic_write(LAPIC_SVR, SVR_ENABLE | SPURIOUS_VECTOR);
	lapic_write(LAPIC_TPR, 0);
	lapic_write(LAPIC_LVT_LINT0, LVT_MASKED);
	lapic_write(LAPIC_LVT_LINT1, this_cpu()->id == 0 ? LVT_NMI : LVT_MASKED);
	lapic_write(LAPIC_LVT_ERROR, LVT_MASKED);
	lapic_write(LAPIC_ESR, 0);
	lapic_write(LAPIC_ESR, 0);
	lapic_write(LAPIC_TIMER_DIV, TIMER_DIV_1);
	lapic_write(LAPIC_TIMER_INIT, 0);
	lapic_write(LAPIC_LVT_TIMER, TIMER_VECTOR);
	x86_lapic_eoi();
}

/* The TSC and the LAPIC timer's count read back to back: *tsc is the
 * middle of the two TSC reads around the count, and the return value
 * the time the pair took, in TSC cycles (the stamp's uncertainty). */
static uint64_t tsc_and_lapic(uint64_t *tsc, uint32_t *count)
{
	uint64_t a = arch_cycles(), b;

	*count = lapic_read(LAPIC_TIMER_CUR);
	b = arch_cycles();
	*tsc = a + (b - a) / 2;
	return b - a;
}

/*
 * Count TSC cycles and LAPIC timer ticks over latch / PIT_HZ seconds of
 * PIT channel 2 (mode 0: OUT2, readable as port 0x61 bit 5, rises when
 * the count reaches zero).  Boot CPU, interrupts off, LAPIC enabled.
 *
 * The LAPIC/TSC ratio is taken from two back-to-back readings of both
 * counters, one at each end, so that the time of a read cancels; what
 * is left is how long a pair of reads took.  arch_timer_arm() pads every
 * count by twice that uncertainty (a power of two above it), so the
 * interrupt does not come early (which costs a second one: the generic
 * code finds nothing due and re-arms) and, where the counters tick in
 * step (QEMU), it is not padded by more than a nanosecond or so either.
 */
void x86_time_init(void)
{
	uint16_t latch = PIT_HZ * CALIBRATE_MS / 1000;
	uint64_t t0, t1, e0, e1, spins = 0, window;
	unsigned pad_shift;
	uint32_t c0, c1;

	outb(0x61, (inb(0x61) & ~0x02) | 0x01);	/* gate on, speaker off */
	outb(0x43, 0xb0);			/* ch 2, lo/hi byte, mode 0 */
	lapic_write(LAPIC_LVT_TIMER, LVT_MASKED);
	lapic_write(LAPIC_TIMER_INIT, 0xffffffff);
	outb(0x42, latch & 0xff);
	outb(0x42, latch >> 8);			/* counting starts */
	e0 = tsc_and_lapic(&t0, &c0);
	/* Each inb takes ~1 us on real hardware: 10^8 is far beyond 10 ms
	 * and stops a machine without a working PIT from hanging silently. */
	while (!(inb(0x61) & 0x20))
		if (++spins == 100000000)
			panic("PIT channel 2 never counted down: cannot calibrate the TSC");
	e1 = tsc_and_lapic(&t1, &c1);
	lapic_write(LAPIC_TIMER_INIT, 0);
	lapic_write(LAPIC_LVT_TIMER, TIMER_VECTOR);

	/* The PIT window is latch / PIT_HZ s (9.9993 ms, not 10). */
	window = t1 - t0;
	tsc_hz = window * PIT_HZ / latch;
	lapic_hz = (uint64_t)(c0 - c1) * PIT_HZ / latch;
	if (!tsc_hz || !lapic_hz || c1 >= c0)
		panic("TSC/LAPIC calibration failed (tsc %lu Hz, lapic %lu Hz)",
		      tsc_hz, lapic_hz);
	x86_ns_per_tsc = (NSEC_PER_SEC << 32) / tsc_hz;
	/* Relative uncertainty (e0 + e1) / window, doubled: pad by the
	 * next power of two above it, at least 2^-30, at most 2^-10. */
	pad_shift = 30;
	while (pad_shift > 10 && (window >> pad_shift) < 2 * (e0 + e1) + 1)
		pad_shift--;
	/* Both rates come from the one window, so the PIT's own error
	 * cancels in their ratio. */
	lapic_per_tsc = ((lapic_hz << 32) + tsc_hz - 1) / tsc_hz;
	lapic_per_tsc += (lapic_per_tsc >> pad_shift) + 1;
	lapic_max_tsc = (0xfffffffeULL << 32) / lapic_per_tsc;
	x86_tsc_boot = t1;
	printk("x86: TSC %lu kHz, LAPIC timer %lu kHz, timer padded by 2^-%u\n",
	       tsc_hz / 1000, lapic_hz / 1000, pad_shift);
}

/* Busy-wait @us microseconds on the TSC (boot and AP start only). */
void x86_delay_us(uint64_t us)
{
	uint64_t end = arch_cycles() + tsc_hz * us / 1000000;

	while ((int64_t)(arch_cycles() - end) < 0)
		arch_cpu_relax();
}

/*
 * One-shot.  The count runs from when it is written, and is computed
 * from a TSC read: whatever runs between the two makes the interrupt
 * that much late.  So @deadline_ns becomes a TSC value first (the
 * exact inverse of arch_clock_ns(): the first cycle at which the clock
 * reads @deadline_ns), and after the read only the difference is
 * scaled, rounded up and padded (lapic_per_tsc): the interrupt does not
 * come early, nor more than a tick or so late.  (The count computed
 * from a nanosecond "now", as before, made every x86_64 timer 26
 * instructions late under -icount: most of rt_wakeup_lat's 30 ns above
 * the instructions of its path, docs/performance.md.)  A deadline more
 * than 2^32 LAPIC ticks away (seconds) is clamped and fires early; the
 * generic code re-arms.
 */
void arch_timer_arm(uint64_t deadline_ns)
{
	uint64_t count = 0xffffffffu;

	/* (deadline << 32) / ns_per_tsc fits 64 bits: about 2^60 ns. */
	if ((deadline_ns >> 32) < x86_ns_per_tsc) {
		uint64_t q, r, dl;
		int64_t delta;

		__asm__("divq %4" : "=a"(q), "=d"(r)
			: "a"(deadline_ns << 32), "d"(deadline_ns >> 32),
			  "rm"(x86_ns_per_tsc));
		dl = x86_tsc_boot + q + (r != 0);
		/* All of it before the read (gcc would move the add). */
		__asm__ __volatile__("" : "+r"(dl));
		delta = (int64_t)(dl - arch_cycles());
		if (delta <= 0)
			count = 1;
		else if ((uint64_t)delta < lapic_max_tsc)
			count = (((unsigned __int128)delta * lapic_per_tsc) >> 32) + 1;
	}
	lapic_write(LAPIC_TIMER_INIT, (uint32_t)count);
}

/* Write ICR (high half first: the low write sends).  Interrupts off so an
 * interrupt handler on this CPU cannot send between the two writes. */
static void lapic_send(uint32_t apic_id, uint32_t icr_lo)
{
	unsigned long flags = arch_irq_save();

	while (lapic_read(LAPIC_ICR_LO) & ICR_BUSY)
		arch_cpu_relax();
	lapic_write(LAPIC_ICR_HI, apic_id << 24);
	lapic_write(LAPIC_ICR_LO, icr_lo);
	arch_irq_restore(flags);
}

/* Only the low half: the "all excluding self" shorthand needs no
 * destination, so an NMI landing between another sender's two writes
 * leaves its destination alone.  No busy wait: QEMU's ICR never stays
 * busy, and an NMI must not spin. */
void x86_lapic_nmi_others(void)
{
	lapic_write(LAPIC_ICR_LO, ICR_OTHERS | ICR_NMI | ICR_ASSERT);
}

void arch_send_ipi(struct cpu *cpu)
{
	lapic_send((uint32_t)cpu->arch_id, ICR_ASSERT | IPI_VECTOR);
}

/* INIT, asserted then deasserted (the level-triggered dance old CPUs
 * want; newer ones ignore the deassert). */
void x86_lapic_send_init(uint32_t apic_id)
{
	lapic_send(apic_id, ICR_INIT | ICR_LEVEL | ICR_ASSERT);
	lapic_send(apic_id, ICR_INIT | ICR_LEVEL);
}

/* STARTUP IPI: the AP starts in real mode at @page << 12. */
void x86_lapic_send_sipi(uint32_t apic_id, uint8_t page)
{
	lapic_send(apic_id, ICR_STARTUP | page);
}
