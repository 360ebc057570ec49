/*
 * trace.h - the scheduler trace: per-CPU lock-free rings of events
 * (switch, wakeup, migrate, mutex block/acquire/release/handoff, proxy
 * pick, deadline throttle/replenish/miss, scenario marks), dumped over
 * the console in the text format of docs/trace.md.
 */
#ifndef TRACE_H
#define TRACE_H
#include "kernel.h"

/* Forget every recorded event (a scenario starts with an empty trace). */
void trace_reset(void);

/* A scenario's mark or print step: @text (copied, may be truncated)
 * appears as a "mark" event of the calling task. */
void trace_mark(const char *text);

/* Print the whole trace in the text format of docs/trace.md. */
void trace_dump(void);
#endif
