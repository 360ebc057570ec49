/*
 * ring.h - the trace's ring buffers and task-name table, shared by
 * the recording side (trace.c) and the reading side (read.c) only.
 *
 * A record is 32 bytes: a header and 16 bytes of payload, enough for
 * the common events (a switch is three tids, a mutex event two tids
 * and a pointer to the mutex's name).  An event that needs more (a
 * mutex name outside the kernel image, a proxy chain, a long mark)
 * continues in TRACE_CONT records right after it, written in the same
 * interrupts-off section; the head's ncont says how many.  The mutex
 * fast paths' one-record events are written by the arch without masking
 * interrupts but restartable (arch.h): an interrupt before the publishing
 * store sends the record back to its start, so to a reader and to the
 * interrupt's own records it is as if it had not begun, except that
 * its reservation stays one ahead of the head until that CPU records
 * again (the task may resume elsewhere): readers then keep one old
 * record fewer, as for an event in progress, and a count read then is
 * off by that one (trace_cpu_head()).
 *
 * Names are not copied into every record:
 *  - a task is its tid; its name is written once into trace_names[]
 *    when the task is created (trace_task_named()), in the slot of its
 *    tid modulo TRACE_NAMES, with the tid beside it, so a later task
 *    that takes the slot is noticed and the dump falls back (trace.md);
 *  - a mutex name in the kernel image's .rodata (a string literal:
 *    DEFINE_MUTEX, mutex_init(m, "name")) is immutable and never freed,
 *    so the record keeps the pointer; any other name is copied (its
 *    first TRACE_MUTEX_NAME bytes) into a continuation record.
 *
 * Whole records under concurrent reads.  The owning CPU announces the
 * positions it is about to write before it writes them:
 *
 *   reserve = pos + n; smp_wmb; records pos..pos+n-1; head = pos + n
 *   (release)
 *
 * A reader copies the records before head (acquire), then (smp_rmb)
 * reads reserve: a record at position p was (or is being) rewritten
 * only if position p + TRACE_RING was reserved, so it keeps the records
 * at p >= reserve - TRACE_RING and drops the older ones.  If its copy
 * saw any store of a rewrite, the fences make it see that rewrite's
 * reserve (message passing).  One store and one write fence per event,
 * whatever its length.
 *
 * Counting.  The writer counts only the continuation records it writes
 * (conts, in the multi-record events, never reset); the events recorded
 * since the reset are (head - start) - (conts - start_conts), head and
 * conts read consistently when reserve == head around the reads (no
 * event in progress), and lost ones are those recorded minus those a
 * copy kept.
 *
 * Reset.  trace_reset() does not touch what the writer writes: under
 * trace_reset_lock it reads each CPU's head and conts (consistently, as
 * above) into that CPU's start and start_conts, which only it writes.
 * An event in progress at the reset is at positions >= head, so it
 * counts as recorded after the reset.  Readers read the pair under the
 * same lock (trace_cpu_start()).  So the writer never checks for a
 * reset: no load, compare and branch per event for a rare operation.
 *
 * The name table's entries have a seqcount (odd while written, which is
 * also the writers' lock: trace_task_named(); a reader keeps a copy that
 * saw the same even value before and after).
 */
#ifndef KERNEL_TRACE_RING_H
#define KERNEL_TRACE_RING_H
#include "trace_record.h"

/* One task's name, keyed by tid (slot tid % TRACE_NAMES). */
struct trace_tname {
	uint32_t seq;		/* 0: never written; odd: being written */
	int32_t tid;
	char name[TASK_NAME_LEN];	/* NUL-terminated */
};
extern struct trace_tname trace_names[TRACE_NAMES];

/* @tc's head and conts, consistent: read again until no event was in
 * progress around the reads (bounded: then the last read, off by at
 * most the event in progress).  Returns the head, *conts the count. */
static inline uint64_t trace_cpu_head(struct trace_cpu *tc, uint64_t *conts)
{
	uint64_t h;

	for (int tries = 0; ; tries++) {
		h = smp_load_acquire(&tc->head);
		*conts = READ_ONCE(tc->conts);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);	/* smp_rmb */
		if (READ_ONCE(tc->reserve) == h || tries == 100)
			break;
		arch_cpu_relax();	/* -icount: let that CPU finish */
	}
	return h;
}

/* @tc's start and start_conts, as the last trace_reset() left them. */
void trace_cpu_start(struct trace_cpu *tc, uint64_t *start,
		     uint64_t *start_conts);

/* @tc's events recorded since the reset, up to its head: *head, and
 * the first position since the reset: *start. */
static inline uint64_t trace_cpu_count(struct trace_cpu *tc, uint64_t *head,
				       uint64_t *start)
{
	uint64_t s, sc, c, h;

	trace_cpu_start(tc, &s, &sc);
	h = trace_cpu_head(tc, &c);
	*head = h;
	*start = s;
	return (h - s) - (c - sc);
}
#endif
