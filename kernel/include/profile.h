/*
 * profile.h - a sampling profiler (kernel/profile.c).
 *
 * While it runs, every online CPU is interrupted every period (by an
 * NMI where the arch has a source for one, else by a timer) and records
 * the PC it interrupted and the return addresses above it (frame
 * pointers), counted by distinct call chain.  Under `qemu -icount
 * shift=0` the samples fall on the same instructions in every run.  `make profile BENCHES=name` runs a
 * benchmark under it and names the functions on the host
 * (tools/profile_report.py); the shell's `profile` command does the same
 * on a board and prints the raw chains.
 */
#ifndef PROFILE_H
#define PROFILE_H
#include "kernel.h"

#define PROFILE_PERIOD_MIN (5 * NSEC_PER_USEC)
#define PROFILE_PERIOD_MAX (100 * NSEC_PER_MSEC)
#define PROFILE_DEPTH 8		/* the PC and up to 7 callers */

/* Start sampling every @period_ns (PROFILE_PERIOD_MIN..MAX); the counts
 * start from 0.  -EINVAL for a period out of range, -EBUSY if it runs.
 * Task context. */
int profile_start(uint64_t period_ns);
/* Stop; the counts stay until the next start.  Task context. */
void profile_stop(void);
/*
 * printk what was counted, tagged @tag:
 *   profile <tag>: <samples> samples every <ns> ns, <chains> chains,
 *       <dropped> dropped, text at <addr>, by nmi|timer
 *   profile <tag>: <count> <pc> <caller> <caller's caller> ...
 * (hex addresses; "text at" is where the kernel's text runs, so the
 * host can map addresses of a relocated image).  Task context.
 */
void profile_print(const char *tag);
/* A sample, from the arch's NMI or a timer callback on this CPU: the
 * interrupted PC and its callers (@n of them in all). */
void profile_record(const uintptr_t *pc, int n);
/* The arch's NMI source and the timers: the gap to this CPU's next
 * sample (the period, give or take half of it, at random). */
uint64_t profile_next_gap(void);
/* For tests: samples counted so far, and how many of them were taken
 * with @ret (a return address) on the call chain above the PC. */
uint64_t profile_samples(void);
uint64_t profile_samples_through(uintptr_t ret);
#endif
