/*
 * power.h - how a boot ends: power off, or, where the firmware cannot,
 * stop every CPU and say that the machine may be switched off.
 */
#ifndef POWER_H
#define POWER_H

/* The last line of a boot whose machine could not power itself off
 * (sifive_u, spike, a PC without QEMU's exit device).  The test runner
 * stops QEMU when it sees it (tools/kestrel/boot.py HALT_LINE: change
 * the two together). */
#define HALT_LINE "kestrel: halted: it is safe to switch off"

/*
 * End the boot with exit code @code (0 success, else failure): power off
 * through the arch (QEMU exits with a status that says @code).  Where
 * that returns (or with poweroff=halt), print "kestrel: no power-off (exit code N)" and
 * HALT_LINE on every console, stop the other CPUs (IPI_STOP) and halt
 * this one with interrupts off.  Any context; never returns.
 */
void poweroff(int code) __attribute__((noreturn));

/* poweroff=off|halt on @cmdline: halt: never ask the firmware, go
 * straight to the halt (for firmware whose power-off hangs).  A bad value
 * is reported and off kept.  Boot CPU, kmain. */
void power_init(const char *cmdline);

/* Send IPI_STOP to every other online CPU and wait up to 100 ms for them
 * to go offline (one spinning with interrupts off cannot).  For panic
 * and poweroff, with interrupts off. */
void stop_other_cpus(void);
#endif
