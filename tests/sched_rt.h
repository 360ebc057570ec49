/*
 * sched_rt.h - what the two files of suite sched_rt share: sched_rt.c
 * (order, precedence, SMP placement; the suite's table) and
 * sched_rt_throttle.c (RT throttling).
 */
#ifndef TESTS_SCHED_RT_H
#define TESTS_SCHED_RT_H
#include "ktest.h"
#include "sched.h"

#define MS NSEC_PER_MSEC

/* Spawn @fn with @policy / @rt_priority on the CPUs of @affinity (0:
 * any); a failure is reported on @t (NULL returned). */
struct task *rt_test_spawn(struct ktest *t, const char *name,
			   void (*fn)(void *), void *arg, int policy,
			   int rt_priority, uint64_t affinity);

/* sched_rt_throttle.c */
void throttling_lets_fair_run(struct ktest *t);
void throttling_debt_carries_over(struct ktest *t);
#endif
