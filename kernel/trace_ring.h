/*
 * trace_ring.h - the trace's ring buffers, shared by the recording side
 * (trace.c) and the reading side (trace_read.c) only.
 *
 * A record is one 64-byte line: a header and 48 bytes of payload.  An
 * event that needs more (a long proxy chain, a long mark) continues in
 * TRACE_CONT records right after it, written in the same interrupts-off
 * section; the head's ncont says how many.
 *
 * Sequence numbers (a seqcount per record).  The owning CPU writes
 *
 *   seq = 0; release fence; payload...; seq = trace_seq(pos) (release);
 *   head = pos + 1 (release)
 *
 * and a reader keeps a record only if it read seq == trace_seq(pos)
 * (acquire) both before and after copying it (acquire fence between):
 * a record rewritten meanwhile shows 0 or another position's number.
 */
#ifndef KERNEL_TRACE_RING_H
#define KERNEL_TRACE_RING_H
#include "trace.h"
#include "cpu.h"

#define TRACE_RING_MASK (TRACE_RING - 1)
#define TRACE_TASK_NAME 12			/* bytes of a task name kept */
#define TRACE_MUTEX_NAME 16			/* bytes of a mutex name kept */
#define TRACE_CHAIN_HOPS 8			/* proxy hops kept per pick */

/* A task (tid >= 0, or -1: none) or a mutex, copied at record time.
 * Names are NUL-terminated unless they fill the array. */
struct trace_name {
	union {
		struct {
			int32_t tid;
			char name[TRACE_TASK_NAME];
		} t;
		char m[TRACE_MUTEX_NAME];
	};
};

struct trace_rec {
	uint64_t ts;		/* clock_ns() of the event */
	uint32_t seq;		/* trace_seq(position) when whole, else 0 */
	uint8_t type;		/* enum trace_type */
	uint8_t ncont;		/* TRACE_CONT records that follow */
	uint8_t arg;		/* switch state, migrate why, acquire how... */
	uint8_t arg2;		/* proxy: chain cut short */
	union {
		struct trace_name n[3];
		struct {			/* one task and numbers */
			struct trace_name task;
			uint64_t v[4];
		} tv;
		struct {			/* mark: task and text */
			struct trace_name task;
			char text[32];
		} mk;
		char text[48];			/* TRACE_CONT of a mark */
	};
};
_Static_assert(sizeof(struct trace_rec) == 64, "one record, one line");

/* Never 0 (odd), so a slot being written never matches a position. */
static inline uint32_t trace_seq(uint64_t pos)
{
	return (uint32_t)(pos << 1) | 1;
}

/* switch state= */
enum { TRACE_STATE_RUN, TRACE_STATE_SLEEP, TRACE_STATE_BLOCKED,
       TRACE_STATE_DEAD };

/* One CPU's ring and what its recording side keeps.  Written only by
 * that CPU with interrupts off; read by anyone (trace_read.c). */
struct trace_cpu {
	struct trace_rec *ring;		/* TRACE_RING records, or NULL */
	uint64_t head;			/* next position (release-stored) */
	uint64_t start;			/* first position since the reset */
	uint64_t lost;			/* events overwritten since then */
	uint64_t recorded;		/* events written since then */
	unsigned epoch;			/* trace_epoch it was reset for */
	struct task *last_donor;	/* of the last recorded switch */
	/* The proxy walk of the pick in progress (trace_proxy_hop). */
	struct task *chain_donor;
	unsigned chain_hops;		/* hops seen; more than kept: cut */
	struct trace_name chain[2 * TRACE_CHAIN_HOPS];	/* task, mutex... */
} __aligned(64);

extern struct trace_cpu trace_cpus[NR_CPUS];
extern unsigned trace_epoch;		/* bumped by trace_reset() */
#endif
