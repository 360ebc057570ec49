/*
 * bench_trace.c - what the scheduler trace costs (kernel/trace/).
 *
 *   trace_event  one recorded event: direct calls of the switch record
 *                (three tasks) and of the mutex fast paths' acquire
 *                record (a task and a mutex, restartable); then the hooks with recording off (one
 *                branch), and what tracing adds to a voluntary context
 *                switch (yield ping-pong, one switch event each) and to
 *                an uncontended mutex_lock + mutex_unlock (an acquire and
 *                a release); also the loop with an empty call (the
 *                overhead the direct figures include) and what reading
 *                the clock costs: clock_ns() against the raw counter a
 *                record keeps (arch_clock_raw(), converted at the dump)
 *
 * Median of ROUNDS rounds, in arch_cycles() units: instructions under
 * qemu -icount shift=0, where a virtual ns is one instruction.  Loop
 * overhead included.  The trace is reset afterwards (the direct calls
 * fill this CPU's ring with made-up switches).
 */
#include "bench.h"
#include "cpu.h"
#include "mutex.h"
#include "sched.h"
#include "timer.h"
#include "trace.h"
#include "arch.h"
#include <printf.h>

#define ROUNDS 7
#define ITERS 10000

/* Median cost of one call of @fn(a, b), ITERS per round. */
static uint64_t per_call(void (*fn)(struct task *a, struct task *b),
			 struct task *a, struct task *b)
{
	uint64_t v[ROUNDS];

	for (int r = 0; r < ROUNDS; r++) {
		uint64_t t0 = arch_cycles();

		for (int i = 0; i < ITERS; i++)
			fn(a, b);
		v[r] = (arch_cycles() - t0) / ITERS;
	}
	return bench_median(v, ROUNDS);
}

/* As from __schedule: interrupts are off around the record (the
 * caller of per_call() masks them for the whole loop). */
static void call_switch_record(struct task *a, struct task *b)
{
	__trace_switch(a, b, b);
}

static void call_switch_hook(struct task *a, struct task *b)
{
	trace_switch(a, b, b);
}

static void call_nothing(struct task *a, struct task *b)
{
	(void)a;
	(void)b;
	barrier();
}

static volatile uint64_t bench_sink;

static void call_clock_ns(struct task *a, struct task *b)
{
	(void)a;
	(void)b;
	bench_sink = clock_ns();
}

static void call_clock_raw(struct task *a, struct task *b)
{
	(void)a;
	(void)b;
	bench_sink = arch_clock_raw();
}

static DEFINE_MUTEX(bench_trace_m);

static void call_acquire_record(struct task *a, struct task *b)
{
	(void)b;
	arch_trace_mutex_acquire(a, &bench_trace_m);	/* the fast path's */
}

static void call_mutex_pair(struct task *a, struct task *b)
{
	(void)a;
	(void)b;
	mutex_lock(&bench_trace_m);
	mutex_unlock(&bench_trace_m);
}

/* The pair's cost, on and off from the same code: with a copy of the
 * loop per call site the compiler once inlined mutex_lock() into one
 * and not the other. */
static __attribute__((noinline, noclone)) uint64_t mutex_pair_cost(struct task *a)
{
	return per_call(call_mutex_pair, a, NULL);
}

/* ---- Yield ping-pong, as ctx_switch (benches.c) ---------------------- */

static void bench_trace_event(void)
{
	struct task *self = current();
	struct task *idle = this_cpu()->idle;
	uint64_t sw, acq, hook_off, sw_on, sw_off, mp_on, mp_off;
	uint64_t loop, clk, raw;
	char detail[200];
	bool was_on = READ_ONCE(trace_enabled);

	unsigned long flags;

	if (trace_set_enabled(true) < 0) {
		bench_report("trace_event", 0, NULL, "no trace rings");
		return;
	}
	flags = arch_irq_save();	/* __trace_switch()'s precondition */
	sw = per_call(call_switch_record, self, idle);
	arch_irq_restore(flags);
	acq = per_call(call_acquire_record, self, idle);
	sw_on = bench_switch_cost(NULL);
	mp_on = mutex_pair_cost(self);
	trace_set_enabled(false);
	hook_off = per_call(call_switch_hook, self, idle);
	sw_off = bench_switch_cost(NULL);
	mp_off = mutex_pair_cost(self);
	trace_set_enabled(was_on);	/* bench boots run with trace=off */
	trace_reset();
	loop = per_call(call_nothing, self, idle);
	clk = per_call(call_clock_ns, self, idle);
	raw = per_call(call_clock_raw, self, idle);

	snprintf(detail, sizeof(detail), "one switch record (3 tasks), "
		 "direct call; mutex acquire record %llu; hook with trace off "
		 "%llu; empty call %llu; clock_ns %llu, raw counter %llu; "
		 "median of %d x %d", (unsigned long long)acq,
		 (unsigned long long)hook_off, (unsigned long long)loop,
		 (unsigned long long)clk, (unsigned long long)raw,
		 ROUNDS, ITERS);
	bench_report("trace_event", sw, NULL, detail);
	snprintf(detail, sizeof(detail), "yield ping-pong, per switch: trace "
		 "on %llu, off %llu", (unsigned long long)sw_on,
		 (unsigned long long)sw_off);
	bench_report("trace_ctx_switch", sw_on > sw_off ? sw_on - sw_off : 0,
		     NULL, detail);
	snprintf(detail, sizeof(detail), "uncontended lock+unlock (2 events): "
		 "trace on %llu, off %llu", (unsigned long long)mp_on,
		 (unsigned long long)mp_off);
	bench_report("trace_mutex_pair", mp_on > mp_off ? mp_on - mp_off : 0,
		     NULL, detail);
}
BENCH(trace_event, "what one trace event costs: direct, per switch, per "
      "mutex pair", bench_trace_event);
