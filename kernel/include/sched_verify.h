/*
 * sched_verify.h - the real-time invariant checker (kernel/sched/verify.c).
 *
 * The invariant (docs/scheduler.md, "What runs"): on N CPUs, apart from a
 * bounded window after each event, the scheduling contexts that run are
 * the N most important runnable ones that their affinities allow.  A
 * *violation* is a runnable deadline or RT context W (a task blocked on a
 * mutex under proxy execution counts as its chain: it runs where the
 * owner at the chain's end may run) that waits while a CPU W could run on
 * runs a less important context: a later deadline, a lower RT priority, a
 * fair task or idle.  Equal ranks never preempt each other, so a tie is
 * not a violation.
 *
 * The checker samples every CPU's runqueue at once, with all runqueue
 * locks held (a consistent snapshot, taken from a timer interrupt on the
 * CPU that started it), and follows each violation from the sample that
 * first sees it to the one that no longer does.  A violation is a *miss*
 * once it has outlived the bound:
 *   - bound_ns > 0: it lasted longer than bound_ns (for -icount runs,
 *     where guest time is deterministic: make bench);
 *   - bound_ns == 0 (the "ticks rule", for runs on a busy host): the CPU
 *     the waiting context is queued on and the CPU it should run on have
 *     each taken SCHED_VERIFY_TICKS scheduler ticks that interrupted
 *     preemptible code since it began, or since the second became the
 *     target (verify.c, past_bound).  A CPU
 *     that took a tick had executed past any IPI sent to it before, so
 *     the scheduler had its chance there: a host that stops a vCPU for
 *     30 ms does not turn into a miss, a scheduler that never acts does.
 *
 * Exceptions, by design (docs/scheduler.md): RT tasks on a CPU whose RT
 * class is throttled and stepping aside (sched_rt_set_bandwidth) wait
 * there, and such a CPU is no target for RT; a throttled deadline task is
 * not runnable; a blocked task whose chain ends at a sleeping owner, or
 * in a blocked_on cycle, is not runnable; the stop class is above all.
 */
#ifndef SCHED_VERIFY_H
#define SCHED_VERIFY_H
#include "kernel.h"

#define SCHED_VERIFY_TICKS 2		/* the ticks rule, see above */
#define SCHED_VERIFY_PERIOD_MIN (10 * NSEC_PER_USEC)
#define SCHED_VERIFY_PERIOD_MAX NSEC_PER_SEC
#define SCHED_VERIFY_DEFAULT_PERIOD NSEC_PER_MSEC

/* Counters since sched_verify_start(), all monotonic. */
struct sched_verify_stats {
	uint64_t samples;	/* snapshots taken */
	uint64_t busy;		/* samples given up: a runqueue lock stayed busy */
	uint64_t windows;	/* violations that began (each is one window) */
	uint64_t closed;	/* ... and ended */
	uint64_t misses;	/* windows that outlived the bound */
	uint64_t worst_ns;	/* longest closed window */
	uint64_t total_ns;	/* sum of closed windows */
	/* Closed windows by length: < 10 us, < 100 us, < 1 ms, < 1 tick,
	 * the rest. */
	uint64_t hist[5];
	/* Closed windows by how many context switches the CPU they waited
	 * for made before they closed: 0 (another CPU resolved it, or the
	 * waiting task left), 1 (its first pick after the event: one
	 * wakeup, one IPI, one pick), 2, more. */
	uint64_t picks[4];
};
#define SCHED_VERIFY_HIST_LIMITS { 10 * NSEC_PER_USEC, 100 * NSEC_PER_USEC, \
				   NSEC_PER_MSEC, TICK_NS }

/*
 * Start sampling every @period_ns (SCHED_VERIFY_PERIOD_MIN..MAX), judging
 * windows by @bound_ns (0: the ticks rule).  The counters start from 0.
 * Returns 0, -EINVAL for a period out of range, -EBUSY if it already
 * runs.  Task context.
 */
int sched_verify_start(uint64_t period_ns, uint64_t bound_ns);
/* Stop sampling; open windows are closed at this moment.  The counters
 * and reports stay readable.  Task context. */
void sched_verify_stop(void);
/* Take one sample now, besides the periodic ones (a test samples at the
 * moment it has set up).  False if the checker is off or every runqueue
 * lock it tried stayed busy (100 tries).  Task context. */
bool sched_verify_sample(void);
/* True while sampling.  Any context. */
bool sched_verify_running(void);
/* A snapshot of the counters.  Any context. */
void sched_verify_read(struct sched_verify_stats *st);
/*
 * printk the report of the first miss after the @after-th (misses counted
 * by sched_verify_read: pass the count seen earlier, 0 for the first):
 * the waiting context, how long its window lasted (or that it is still
 * open), and for every CPU its curr, donor, class and priority and the
 * waiting contexts that outrank its donor and may run there.  Each line
 * starts with @prefix.  The checker keeps the first few reports after
 * the previous call; returns false if there is none.  Task context.
 */
bool sched_verify_print_miss(uint64_t after, const char *prefix);
#endif
