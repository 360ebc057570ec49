/*
 * sched_dl.h - what the two files of suite sched_dl share: sched_dl.c
 * (periodic tasks, overrun, the smallest parameters, admission control,
 * precedence; the suite's table) and sched_dl_smp.c (global EDF).
 */
#ifndef TESTS_SCHED_DL_H
#define TESTS_SCHED_DL_H
#include "ktest.h"
#include "sched.h"

#define MS NSEC_PER_MSEC
#define US NSEC_PER_USEC

static inline struct sched_attr dl_attr(uint64_t runtime, uint64_t deadline,
					uint64_t period)
{
	return (struct sched_attr){ .policy = SCHED_DEADLINE, .dl_runtime = runtime,
				    .dl_deadline = deadline, .dl_period = period };
}

/* thread_spawn() with @attr on the CPUs of @affinity (0: any). */
int dl_test_spawn(struct task **t, const char *name, void (*fn)(void *),
		  void *arg, const struct sched_attr *attr, uint64_t affinity);

/* A deadline hog: runs until hog_stop, logging host stalls. */
extern volatile bool hog_stop;
void dl_hog(void *arg);

/* sched_dl_smp.c */
void dl_global_edf_smp(struct ktest *t);
#endif
