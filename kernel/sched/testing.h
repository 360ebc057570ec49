/*
 * testing.h - the scheduler's insides, for the white-box tests in tests/
 * only: runqueues and classes (internal.h), proxy execution's chain walk
 * and counters (proxy.h), the RT priority map (cpupri.h).  Kernel code
 * outside kernel/sched/ uses sched.h: nothing else includes this.
 */
#ifndef SCHED_TESTING_H
#define SCHED_TESTING_H
#include "internal.h"
#include "cpupri.h"
#endif
