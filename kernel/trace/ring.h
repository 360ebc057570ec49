/*
 * ring.h - the trace's ring buffers and task-name table, shared by
 * the recording side (trace.c) and the reading side (read.c) only.
 *
 * A record is 32 bytes: a header and 16 bytes of payload, enough for
 * the common events (a switch is three tids, a mutex event two tids
 * and a pointer to the mutex's name).  An event that needs more (a
 * mutex name outside the kernel image, a proxy chain, a long mark)
 * continues in TRACE_CONT records right after it, written in the same
 * interrupts-off section; the head's ncont says how many.
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
#include "trace.h"
#include "cpu.h"
#include "sched.h"

#define TRACE_RING_MASK (TRACE_RING - 1)
#define TRACE_MUTEX_NAME 16			/* bytes of a mutex name kept */
#define TRACE_CHAIN_HOPS 8			/* proxy hops kept per pick */
#define TRACE_MARK_HEAD 12			/* mark bytes in the head */

/* One task's name, keyed by tid (slot tid % TRACE_NAMES). */
struct trace_tname {
	uint32_t seq;		/* 0: never written; odd: being written */
	int32_t tid;
	char name[TASK_NAME_LEN];	/* NUL-terminated */
};
extern struct trace_tname trace_names[TRACE_NAMES];

/* What a TRACE_CONT record holds (its arg) besides text of a mark. */
enum { TRACE_EL_TASK, TRACE_EL_MPTR, TRACE_EL_MNAME, TRACE_EL_U64 };

/* A task is its tid, or TRACE_NO_TID (none). */
#define TRACE_NO_TID (-1)

struct trace_rec {
	uint64_t ts;		/* arch_clock_raw() of the event */
	uint32_t unused;	/* keeps the payload 8-byte aligned */
	union {
		struct {
			uint8_t type;	/* enum trace_type */
			uint8_t ncont;	/* TRACE_CONT records that follow */
			uint8_t arg;	/* switch state, TRACE_EL_*, ... */
			uint8_t arg2;	/* proxy: chain cut short */
		};
		uint32_t hdr;	/* the four at once (trace_hdr()) */
	};
	union {
		int32_t tid[4];			/* switch: prev, next, donor */
		struct {			/* block, acquire, release... */
			int32_t tid[2];		/* the task, the other one */
			const char *mname;	/* in .rodata; NULL: next */
		} tm;
		struct {			/* one task and numbers */
			int32_t tid;
			uint32_t v32;
			uint64_t v64;
		} tv;
		struct {			/* mark: task and text */
			int32_t tid;
			char text[TRACE_MARK_HEAD];
		} mk;
		/* TRACE_CONT: a mark's text, a copied mutex name, or one
		 * element (TRACE_EL_* in arg) of a proxy chain. */
		char text[16];
		const char *mptr;
		uint64_t u64;
	};
};
_Static_assert(sizeof(struct trace_rec) == 32, "one record, half a line");

/* The header word: one store, and no byte stores that the compiler
 * must assume alias everything (it would reload the ring's state). */
static inline uint32_t trace_hdr(unsigned type, unsigned ncont, unsigned arg)
{
	return type | ncont << 8 | arg << 16;		/* arg2 0 */
}

/* switch state= */
enum { TRACE_STATE_RUN, TRACE_STATE_SLEEP, TRACE_STATE_BLOCKED,
       TRACE_STATE_DEAD };

/* An element of a proxy chain kept between the walk and the switch. */
struct trace_elem {
	uint8_t kind;			/* TRACE_EL_TASK, _MPTR, _MNAME */
	union {
		int32_t tid;
		const char *mptr;
		char m[TRACE_MUTEX_NAME];
	};
};

/* One CPU's ring and what its recording side keeps.  Written only by
 * that CPU with interrupts off; read by anyone (read.c). */
struct trace_cpu {
	/* head first: riscv64's release store (amoswap) takes no offset */
	uint64_t head;			/* next position (release-stored) */
	struct trace_rec *ring;		/* TRACE_RING records, or NULL */
	uint64_t reserve;		/* positions before it may be written */
	uint64_t conts;			/* TRACE_CONT records written */
	/* Written by trace_reset() only, under trace_reset_lock: */
	uint64_t start;			/* first position since the reset */
	uint64_t start_conts;		/* conts at the reset */
	struct task *last_donor;	/* of the last recorded switch */
	/* The proxy walk of the pick in progress (trace_proxy_hop). */
	struct task *chain_donor;
	unsigned chain_hops;		/* hops seen; more than kept: cut */
	struct trace_elem chain[2 * TRACE_CHAIN_HOPS];	/* task, mutex... */
} __aligned(64);

extern struct trace_cpu trace_cpus[NR_CPUS];

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
