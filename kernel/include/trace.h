/*
 * trace.h - the scheduler trace: per-CPU lock-free rings of events
 * (switch, wakeup, migrate, mutex block/acquire/release/handoff, proxy
 * pick, deadline throttle/replenish/miss, scenario marks), dumped over
 * the console in the text format of docs/trace.md; class and priority
 * changes (set, inheritance's boost and unboost).
 *
 * Recording (kernel/trace/trace.c): each CPU writes only its own ring, with
 * interrupts off around one event (or, for the mutex fast paths, in a
 * record that an interrupt restarts: trace_irq_entry()), so the path
 * takes no lock.  A record keeps task ids (names are kept once per task,
 * trace_task_named()) and a mutex's name (a pointer when it is a string
 * in the kernel image, a copy otherwise): a task or mutex freed before
 * the dump is never read again.  When a ring is full the oldest events
 * are overwritten and counted as lost.  Readers copy the rings and drop
 * the records that may have been rewritten while they copied
 * (trace/ring.h), so a record is never printed torn.
 *
 * The hooks below are what the scheduler and the mutex code call: one
 * predictable branch while tracing is off, the record while it is on
 * (the default).
 */
#ifndef TRACE_H
#define TRACE_H
#include "kernel.h"

struct task;
struct mutex;

/* Records per CPU ring: as many events of one record each (a proxy
 * chain, a mark longer than 12 bytes or a mutex name outside the kernel
 * image takes more). */
#define TRACE_RING_SHIFT 14
#define TRACE_RING (1u << TRACE_RING_SHIFT)

/* ---- Control (any task context unless noted) ----------------------- */

/* Boot CPU, once, from sched_init(): allocate a ring per CPU and start
 * recording.  Without memory the trace stays off (and says so). */
void trace_init(void);

/* Tasks whose names the dump keeps: a task's slot is its tid modulo
 * this; a later task in the slot replaces it (docs/trace.md). */
#define TRACE_NAMES (1u << 12)

/* Task @t has its tid and name (task_init_common(), any context that
 * may take a spinlock): keep the name for the dump, which prints events
 * by tid.  Recorded whether or not tracing is on. */
void trace_task_named(const struct task *t);

/* Forget every recorded event (a scenario starts with an empty trace).
 * Task context (takes a spinlock; never waits for a recording CPU
 * longer than one event).  The writers are not touched: each CPU's
 * trace now starts at its current head (an event being written counts
 * as after the reset). */
void trace_reset(void);

/* A scenario's mark or print step: @text (copied, cut at TRACE_MARK_MAX
 * bytes) appears as a "mark" event of the calling task. */
#define TRACE_MARK_MAX 128
void trace_mark(const char *text);

/* Start/stop recording on every CPU (`trace on|off`).  Enabling before
 * trace_init() or without rings is refused: -ENOMEM.  Returns 0.  Off
 * waits for the events in progress on other CPUs (task context): after
 * it nothing is recorded. */
int trace_set_enabled(bool on);

/* Stop recording from any context (the invariant checker's first miss);
 * an event already in progress on another CPU may still land. */
void trace_freeze(void);

/* Print the whole trace in the text format of docs/trace.md, through
 * console_write().  Task context (it may sleep; one dump at a time).
 * Returns 0, or -ENOMEM (after printing an error line) when the copy
 * the dump prints from cannot be allocated. */
int trace_dump(void);

/* `trace save`: trace_dump(), then trace_reset() if the dump was
 * printed, so that each save holds what came after the one before (the
 * host reads a saved dump back from a console log: docs/trace.md,
 * "Saving the trace").  Task context; 0 or trace_dump()'s error. */
int trace_save(void);

/*
 * sleep_ns(@ns) without a trace of it: the calling task's wakeup and its
 * switches in and out are not recorded while it sleeps here (a polling
 * loop, the shell's: 3 events every 10 ms filled the ring with nothing).
 * Task context.  A switch out of it to another task than the one the
 * trace last showed running on that CPU is recorded (prev= names it), so
 * the picture stays right; its own time on the CPU around the sleep is
 * drawn as whatever ran before it.  Switches made by yield() are
 * recorded as usual (the yield path does not look: it is the switch the
 * benchmarks time).
 */
void sleep_ns_untraced(uint64_t ns);

/* ---- Events ------------------------------------------------------------ */

enum trace_type {
	TRACE_NONE,		/* an empty or invalid slot */
	TRACE_SWITCH,
	TRACE_WAKEUP,
	TRACE_MIGRATE,
	TRACE_BLOCK,
	TRACE_ACQUIRE,
	TRACE_RELEASE,
	TRACE_HANDOFF,
	TRACE_PROXY,
	TRACE_THROTTLE,
	TRACE_REPLENISH,
	TRACE_DL_MISS,
	TRACE_MARK,
	TRACE_GIVEUP,		/* a waiter left without the mutex */
	TRACE_ATTR,		/* class or priority set, boosted, unboosted */
	TRACE_CONT,		/* more payload of the record before it */
	TRACE_NR_TYPES
};

/* migrate why= */
enum { TRACE_MIG_WAKE, TRACE_MIG_BALANCE, TRACE_MIG_PUSH, TRACE_MIG_PULL,
       TRACE_MIG_CHAIN, TRACE_MIG_AFFINITY };
/* acquire how= */
enum { TRACE_ACQ_FAST, TRACE_ACQ_SPIN, TRACE_ACQ_WAIT, TRACE_ACQ_HANDOFF };
/* attr why=: sched_setattr(), inherit mode's boost and its end, and the
 * state of every task when the trace was reset (trace_reset()). */
enum { TRACE_ATTR_SET, TRACE_ATTR_BOOST, TRACE_ATTR_UNBOOST, TRACE_ATTR_NOW };

/* Recording is on: the hooks' one branch. */
extern bool trace_enabled;
#define trace_on() __builtin_expect(READ_ONCE(trace_enabled), 1)

void __trace_switch(struct task *prev, struct task *next, struct task *donor);
void __trace_switch_untraced(struct task *prev, struct task *next,
			     struct task *donor);
void __trace_wakeup(struct task *p, int cpu);
void __trace_migrate(struct task *p, int from, int to, int why);
void __trace_migrate_chain(struct task *const *t, unsigned n, int from,
			   int to, int why);
void __trace_proxy_hop(struct task *donor, struct task *p, struct mutex *m);
void __trace_mutex_block(struct task *p, struct mutex *m, struct task *owner);
void __trace_mutex_acquire(struct task *p, struct mutex *m, int how);
void __trace_mutex_release(struct task *p, struct mutex *m,
			   struct task *wake, bool handoff);
void __trace_mutex_giveup(struct task *p, struct mutex *m, int err);
void __trace_dl_throttle(struct task *p);
void __trace_dl_replenish(struct task *p, uint64_t deadline);
void __trace_dl_miss(struct task *p, uint64_t deadline);
void __trace_sched_attr(struct task *p, int why, const char *old_class,
			int old_prio);

/*
 * __schedule, rq->lock held (interrupts off: the record relies on it and
 * does not mask them again), after the pick: this CPU runs @next with
 * @donor's scheduling context, and next differs from prev or the donor
 * changed (the caller knows which; trace_record.h has the common
 * case inline).  Records a switch, preceded by a proxy event (the chain
 * that trace_proxy_hop() saw) when donor != next.
 */
static inline void trace_switch(struct task *prev, struct task *next,
				struct task *donor)
{
	if (trace_on())
		__trace_switch(prev, next, donor);
}

/* @p becomes TASK_RUNNING, queued on @cpu (p's rq lock held). */
static inline void trace_wakeup(struct task *p, int cpu)
{
	if (trace_on())
		__trace_wakeup(p, cpu);
}

/* @p moved from CPU @from to @to, for TRACE_MIG_* @why (rq locks held). */
static inline void trace_migrate(struct task *p, int from, int to, int why)
{
	if (trace_on())
		__trace_migrate(p, from, to, why);
}

/* The @n tasks of a proxy chain @t moved together (push/pull). */
static inline void trace_migrate_chain(struct task *const *t, unsigned n,
				       int from, int to, int why)
{
	if (trace_on())
		__trace_migrate_chain(t, n, from, to, why);
}

/* The proxy walk for @donor went from @p over mutex @m to m's owner
 * (proxy.c, under rq->lock and m's wait_lock).  Kept per CPU until the
 * switch; a walk starts again at p == donor. */
static inline void trace_proxy_hop(struct task *donor, struct task *p,
				   struct mutex *m)
{
	if (trace_on())
		__trace_proxy_hop(donor, p, m);
}

/* @p starts waiting for @m held by @owner (NULL: just released). */
static inline void trace_mutex_block(struct task *p, struct mutex *m,
				     struct task *owner)
{
	if (trace_on())
		__trace_mutex_block(p, m, owner);
}

/* @p took @m; @how is TRACE_ACQ_*. */
static inline void trace_mutex_acquire(struct task *p, struct mutex *m,
				       int how)
{
	if (trace_on())
		__trace_mutex_acquire(p, m, how);
}

/* @p released @m, waking @wake (or NULL); @handoff: m was reserved for
 * wake (also records a handoff event). */
static inline void trace_mutex_release(struct task *p, struct mutex *m,
				       struct task *wake, bool handoff)
{
	if (trace_on())
		__trace_mutex_release(p, m, wake, handoff);
}

/*
 * The fast paths' records (mutex_lock(), mutex_unlock() without
 * waiters: acquire how=fast, release waking none).  Written by the arch
 * (arch.h, "Restartable trace records") without masking interrupts: an
 * interrupt that lands in one moves it back to its start before it
 * records anything itself (trace_irq_entry()), so the record is written
 * again, whole, after it.  A mutex whose name is not in the image
 * (trace_name NULL) takes __trace_mutex_acquire/release().
 */
void arch_trace_mutex_acquire(struct task *p, struct mutex *m);
void arch_trace_mutex_release(struct task *p, struct mutex *m);

/* No trace_on() here: the records look at trace_enabled themselves,
 * inside their restartable region (trace_set_enabled()).  With recording
 * off that costs a call and a return. */
static inline void trace_mutex_acquire_fast(struct task *p, struct mutex *m)
{
	arch_trace_mutex_acquire(p, m);
}

static inline void trace_mutex_release_fast(struct task *p, struct mutex *m)
{
	arch_trace_mutex_release(p, m);
}

/* @name if a record may keep the pointer (a string in the kernel
 * image's .rodata: never changed, never freed), else NULL (a record
 * copies it).  mutex_init() keeps the answer in m->trace_name. */
const char *trace_keep_name(const char *name);

/*
 * The arch's interrupt entry, before anything that may record or switch
 * (arch.h): if the interrupted @pc is inside a restartable record that
 * has not published yet, move it back to the record's start.  One
 * compare per interrupt: the linker scripts put the records first in
 * .text, after only the image header and the boot code, which no
 * interrupt interrupts (and which the table search would reject).
 */
struct trace_rseq {
	uintptr_t start;	/* the record's first instruction */
	uintptr_t end;		/* the one after its publishing store */
};
extern const char __trace_rseq_text[], __trace_rseq_text_end[];
void __trace_rseq_restart(uintptr_t *pc);

static inline void trace_irq_entry(uintptr_t *pc)
{
	if (__builtin_expect(*pc < (uintptr_t)__trace_rseq_text_end, 0))
		__trace_rseq_restart(pc);
}

/* Waiter @p left @m without it: @err is -ETIMEDOUT, -EDEADLK, ... */
static inline void trace_mutex_giveup(struct task *p, struct mutex *m,
				      int err)
{
	if (trace_on())
		__trace_mutex_giveup(p, m, err);
}

static inline void trace_dl_throttle(struct task *p)
{
	if (trace_on())
		__trace_dl_throttle(p);
}

/* @p's budget was refilled; @deadline is its new absolute deadline. */
static inline void trace_dl_replenish(struct task *p, uint64_t deadline)
{
	if (trace_on())
		__trace_dl_replenish(p, deadline);
}

/* @p still had budget (work) when @deadline passed; seen now. */
static inline void trace_dl_miss(struct task *p, uint64_t deadline)
{
	if (trace_on())
		__trace_dl_miss(p, deadline);
}

/*
 * @p's class or effective priority was just changed (sched_change(): rq
 * and pi locks held) from @old_class (its sched_class's name, a string
 * literal) and kernel @old_prio (task->prio's scale) to what p has now;
 * @why is TRACE_ATTR_*.  Printed with the priority a user gives (RT
 * 1..99, fair nice, deadline 0): docs/trace.md, `attr`.
 */
static inline void trace_sched_attr(struct task *p, int why,
				    const char *old_class, int old_prio)
{
	if (trace_on())
		__trace_sched_attr(p, why, old_class, old_prio);
}

/* ---- Reading (the dump and the tests) --------------------------------- */

/*
 * A copy of every CPU's ring, taken without stopping anyone; events come
 * out merged in timestamp order (a CPU's own in recorded order).
 * trace_snapshot() returns NULL without memory.  Task context.
 */
struct trace_snapshot;
struct trace_snapshot *trace_snapshot(void);
void trace_snapshot_free(struct trace_snapshot *s);

#define TRACE_LINE_MAX 512
struct trace_event {
	uint64_t ts;
	int cpu;
	int type;			/* enum trace_type */
	char line[TRACE_LINE_MAX];	/* "<event> key=value ...", no ts/cpu */
};
/* The next event, in time order; false after the last. */
bool trace_snapshot_next(struct trace_snapshot *s, struct trace_event *ev);
/* Totals of the copy: events in it, and events lost before it (ring
 * overwrites, records rewritten while copied); per CPU for @cpu >= 0. */
uint64_t trace_snapshot_events(const struct trace_snapshot *s, int cpu);
uint64_t trace_snapshot_lost(const struct trace_snapshot *s, int cpu);
/* Events @cpu recorded since the last reset (kept or lost). */
uint64_t trace_cpu_recorded(int cpu);
#endif
