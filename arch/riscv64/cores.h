/*
 * cores.h - RISC-V cores Kestrel refuses to run on (cores.c).  Private
 * to arch/riscv64; no other kernel header, so that tests/host can build
 * cores.c on the host.
 */
#ifndef RV_CORES_H
#define RV_CORES_H

#define THEAD_MVENDORID 0x5b7	/* JEDEC bank 12, T-Head */

/*
 * Why Kestrel cannot run on the boot hart, or NULL if it can.  @mvendorid
 * and @marchid are what SBI reports (0 if it cannot say), @compat and
 * @len the "compatible" string list of the hart's /cpus node (NULL if it
 * has none).  The answer names the core and the reason, one line, for
 * the boot to print before it stops.
 */
const char *rv_core_refusal(unsigned long mvendorid, unsigned long marchid,
			    const char *compat, int len);
#endif
