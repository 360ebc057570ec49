/*
 * proxy_helpers.h - helpers of the cross-CPU proxy-execution suites
 * (tests/proxy_helpers.c).
 */
#ifndef TESTS_PROXY_HELPERS_H
#define TESTS_PROXY_HELPERS_H
#include "helpers.h"
#include "sched.h"
#include "mutex.h"

#define MS NSEC_PER_MSEC

/* Burn @ns of the caller's own CPU time. */
void px_spin_exec(uint64_t ns);
/* Spawn @fn pinned to @cpu: SCHED_FIFO @rt_prio, or fair if 0.  A failure
 * is reported on @t (NULL returned). */
struct task *px_spawn_on(struct ktest *t, const char *name, int cpu,
			 void (*fn)(void *), void *arg, int rt_prio);
/* Proxy mode, the caller FIFO 99 pinned to @cpu.  False: failed
 * (reported).  px_end() undoes it, the boot's locking mode back. */
bool px_begin(struct ktest *t, int cpu);
/* The same in locking mode @mode (refused while tasks wait on mutexes). */
bool px_begin_mode(struct ktest *t, int cpu, enum locking_mode mode);
/* Returns locking_set_mode's result (-EBUSY: a task still waits). */
int px_end(void);
/* Wait (sleeping, so lower priorities run) until *flag is set. */
void px_wait_flag(volatile int *flag);
/* Is @p blocked on @m (NULL: on any mutex) and off every CPU?  One racy
 * look. */
bool px_blocked_on(struct task *p, struct mutex *m);
/* Wait until px_blocked_on(@p, NULL), and still so, not switched in,
 * after one more nap: asleep in the slow path (not preempted on its way
 * there). */
bool px_wait_blocked(struct task *p);
/* thread_join(@p) unless NULL. */
void px_join(struct task *p);
#endif
