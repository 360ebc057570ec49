/*
 * trace_test.h - what the two files of suite trace share: trace.c (the
 * events and their format, names, the ring, concurrent reading, the
 * fast paths' records; the suite's table) and trace_onoff.c (on, off,
 * reset, untraced sleeps).
 */
#ifndef TESTS_TRACE_TEST_H
#define TESTS_TRACE_TEST_H
#include "ktest.h"
#include "sched.h"

/* The CPU the cases run their threads on: the last one. */
int trace_test_cpu(void);
/* Spawn @fn on @cpu with @a (NULL: fair); a failure is reported on @t
 * (NULL returned). */
struct task *trace_spawn_on(struct ktest *t, const char *name,
			    void (*fn)(void *), void *arg, int cpu,
			    const struct sched_attr *a);
/* Events that @cpu (-1: any) recorded whose line contains @needle. */
unsigned trace_count_events(const char *needle, int cpu);

/* trace_onoff.c */
void off_records_nothing(struct ktest *t);
void off_waits_for_events_in_progress(struct ktest *t);
void reset_forgets(struct ktest *t);
void untraced_sleeps_leave_no_events(struct ktest *t);
#endif
