/*
 * cpupri.h - which CPUs run at which priority (Linux's cpupri), so that
 * RT push and wakeup placement find "the CPU running the least important
 * thing that this task may use" without looking at every runqueue.
 *
 * A CPU's level is what it would run, as far as RT tasks care:
 * CPUPRI_HIGHER (100) while a deadline task is runnable there (it runs
 * before any RT task), else CPUPRI_NORMAL (0) when no RT task is queued
 * (it runs fair or idle), else the rt_priority (1..99) of its most
 * important queued RT task.  Higher level = more important.
 * Levels are written by rt.c under the CPU's rq->lock and read locklessly
 * by anyone: a reader's answer is a hint that it checks again under the
 * target's lock.
 */
#ifndef SCHED_CPUPRI_H
#define SCHED_CPUPRI_H
#include "kernel.h"

#define CPUPRI_NORMAL 0			/* fair / idle */
#define CPUPRI_HIGHER 100		/* a deadline task is runnable */
#define CPUPRI_NR_LEVELS 101		/* 0, rt_priority 1..99, HIGHER */
#define CPUPRI_INVALID (-1)		/* CPU not yet in the map */

/* Put @cpu at @level (0..100).  Caller holds cpu_rq(cpu)->lock. */
void cpupri_set(int cpu, int level);
/* The level @cpu was last set to (lockless). */
int cpupri_get(int cpu);
/*
 * Find the lowest level strictly below @level that has a CPU in
 * @allowed; store those CPUs in *@lowest and return true.  Lockless.
 */
bool cpupri_find(int level, uint64_t allowed, uint64_t *lowest);
#endif
