/*
 * power.c - the end of a boot.
 *
 * arch_poweroff() asks the firmware or QEMU's exit device to switch the
 * machine off and returns where nothing did: OpenSBI on sifive_u has no
 * shutdown device (SRST says "not supported"), a real PC has no
 * isa-debug-exit.
 * Spinning there would look like a hang, so every CPU halts (wfi / hlt
 * with interrupts off: no busy loop, which under -icount would stall the
 * others) and the last line says it is over.  The exit code is printed
 * too, because QEMU's status cannot carry it: the runner reads it from
 * the log (docs/testing.md, "QEMU exit status").
 *
 * `poweroff=halt` on the command line skips the firmware: QEMU 7.2's
 * spike with OpenSBI 1.1 has an HTIF "shutdown device" whose SRST call
 * never comes back (the hart stays in M-mode, QEMU keeps running), so
 * there nothing at all could be said after trying.
 */
#include "kernel.h"
#include "cmdline.h"
#include "cpu.h"
#include "power.h"
#include "string.h"

static bool halt_only;

void power_init(const char *cmdline)
{
	char val[8];

	if (!cmdline_get(cmdline, "poweroff", val, sizeof(val)) ||
	    strcmp(val, "off") == 0)
		return;
	if (strcmp(val, "halt") == 0)
		halt_only = true;
	else
		printk("poweroff: unknown value '%s' (valid: off, halt); "
		       "keeping off\n", val);
}

void stop_other_cpus(void)
{
	int self = this_cpu()->id;
	uint64_t until = arch_clock_ns() + 100 * NSEC_PER_MSEC;

	for (int i = 0; i < ncpus; i++)
		if (i != self && cpus[i].online)
			smp_send(i, IPI_STOP);
	/* Give them a moment to stop; one spinning with interrupts off
	 * cannot, and the halt or power-off ends it anyway. */
	for (int i = 0; i < ncpus; i++)
		while (i != self && READ_ONCE(cpus[i].online) &&
		       arch_clock_ns() < until)
			arch_cpu_relax();
}

void poweroff(int code)
{
	arch_irq_disable();
	if (!READ_ONCE(halt_only))
		arch_poweroff(code);
	/* Still running: nothing could switch the machine off.  Stop the
	 * others first, so that the line below is true when it appears. */
	stop_other_cpus();
	printk("kestrel: no power-off (exit code %d)\n", code);
	printk(HALT_LINE "\n");
	arch_halt();
}
