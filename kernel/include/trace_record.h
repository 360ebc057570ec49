/*
 * trace_record.h - the layout of a trace record and of a CPU's ring
 * (kernel/trace/ring.h has the protocol and the readers' side), and the
 * one record written inline where it happens: the switch, in
 * __schedule().  Everything else calls into kernel/trace/trace.c.
 *
 * Why inline: a switch record is a few dozen instructions of stores;
 * the call around it, the tests it repeated (was it a switch? with the
 * donor's own context?) and finding this CPU's ring cost a third more
 * (docs/performance.md, "The trace").  __schedule() knows the answers
 * and has struct cpu in a register.
 */
#ifndef TRACE_RECORD_H
#define TRACE_RECORD_H
#include "trace.h"
#include "cpu.h"
#include "sched.h"
#include "blocked_on.h"

#define TRACE_RING_MASK (TRACE_RING - 1)

#define TRACE_MUTEX_NAME 16			/* bytes of a mutex name kept */
#define TRACE_CHAIN_HOPS 8			/* proxy hops kept per pick */
#define TRACE_MARK_HEAD 12			/* mark bytes in the head */


/* What a TRACE_CONT record holds (its arg) besides text of a mark. */
enum { TRACE_EL_TASK, TRACE_EL_MPTR, TRACE_EL_MNAME, TRACE_EL_U64,
       TRACE_EL_ATTR };	/* attr's old class name pointer and prio */

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
_Static_assert(sizeof(struct trace_rec) == 32, "one record, half a line "
	       "(trace_slot(), arch/*/trace_rec.c: << 5)");

/* Record @pos of @ring: pos modulo TRACE_RING by two shifts, not a mask.
 * The mask does not fit riscv64's 12-bit immediates: gcc loads it once
 * at the top of __schedule() and keeps it on the stack (3 instructions
 * on every switch, traced or not). */
static inline __attribute__((always_inline)) struct trace_rec *
trace_slot(struct trace_rec *ring, uint64_t pos)
{
	return (struct trace_rec *)((char *)ring +
		((pos << (64 - TRACE_RING_SHIFT)) >> (64 - TRACE_RING_SHIFT - 5)));
}

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
 * that CPU with interrupts off or in a restartable record (arch.h);
 * read by anyone (read.c). */
struct trace_cpu {
	/* head first: riscv64's release store (amoswap) takes no offset */
	uint64_t head;			/* next position (release-stored) */
	struct trace_rec *ring;		/* TRACE_RING records, or NULL */
	uint64_t reserve;		/* positions before it may be written */
	uint64_t conts;			/* TRACE_CONT records written */
	/* Written by trace_reset() only, under trace_reset_lock: */
	uint64_t start;			/* first position since the reset */
	uint64_t start_conts;		/* conts at the reset */
	/* Records an interrupt moved back to their start (arch.h). */
	uint64_t restarts;
	/* The proxy walk of the pick in progress (trace_proxy_hop). */
	struct task *chain_donor;
	unsigned chain_hops;		/* hops seen; more than kept: cut */
	struct trace_elem chain[2 * TRACE_CHAIN_HOPS];	/* task, mutex... */
} __aligned(64);

extern struct trace_cpu trace_cpus[NR_CPUS];

/* The state= of a switch's prev that is not running (docs/trace.md).
 * The state is read again: passing the first read along made gcc copy
 * it on the common path too. */
static inline __attribute__((always_inline)) int
trace_prev_state_other(const struct task *p)
{
	struct mutex *m;

	if (READ_ONCE(p->state) == TASK_DEAD)
		return TRACE_STATE_DEAD;
	m = READ_ONCE(p->blocked_on);
	if (m && m != PROXY_WAKING)
		return TRACE_STATE_BLOCKED;
	/* Preempted between setting TASK_SLEEPING and schedule(): it
	 * stays queued, it did not go to sleep. */
	return p->on_rq ? TRACE_STATE_RUN : TRACE_STATE_SLEEP;
}

/* The state= of a switch's prev (docs/trace.md): running, the common
 * case, is a test of the word as loaded. */
static inline __attribute__((always_inline)) int trace_prev_state(const struct task *p)
{
	if (__builtin_expect(READ_ONCE(p->state) == TASK_RUNNING, 1))
		return TRACE_STATE_RUN;
	return trace_prev_state_other(p);
}

/*
 * The common switch record: to @next, another task than @prev, which
 * runs with its own context (no proxy).  @tc is this CPU's (struct
 * cpu's trace); interrupts off (rq->lock held), recording on.  One
 * record, written as kernel/trace/ring.h says: reserve, write, publish.
 */
static inline __attribute__((always_inline)) void
trace_record_switch(struct trace_cpu *tc, struct task *prev, struct task *next)
{
	struct trace_rec *r;
	uint64_t pos = tc->head;

	/* tc->chain is left as it is: only a proxied switch shows it, and
	 * its pick walked the chain from the donor, which starts it again
	 * (trace_proxy_hop() with p == donor: proxy.c's walk starts there). */
	WRITE_ONCE(tc->reserve, pos + 1);
	__atomic_thread_fence(__ATOMIC_RELEASE);	/* smp_wmb */
	r = trace_slot(tc->ring, pos);
	arch_clock_raw_store(&r->ts);
	r->hdr = trace_hdr(TRACE_SWITCH, 0, trace_prev_state(prev));
	r->tid[0] = prev->tid;
	r->tid[1] = r->tid[2] = next->tid;	/* next is the donor */
	smp_store_release(&tc->head, pos + 1);
}

/*
 * The mutex fast paths' restartable records (arch.h), which each arch
 * writes in assembly (arch/<arch>/trace_rec.c): REC(name, header word,
 * the C record for a name to copy) for each, and the asm operands they
 * take their offsets and constants from (include mutex.h to use them).
 */
#define TRACE_MUTEX_RECS(REC)						\
	REC(arch_trace_mutex_acquire,					\
	    TRACE_ACQUIRE | TRACE_ACQ_FAST << 16, __trace_mutex_acquire)	\
	REC(arch_trace_mutex_release, TRACE_RELEASE, __trace_mutex_release)
/* Each record's entry in trace_rseq_table: labels 1 (its first
 * instruction) and 2 (the one after its publishing store). */
#define TRACE_RSEQ_ENTRY						\
	"	.pushsection trace_rseq_table, \"a\"\n"			\
	"	.balign 8\n"						\
	"	.quad	1b, 2b\n"					\
	"	.popsection\n"
/* The way out for a name to copy passes how = 0 (TRACE_ACQ_FAST). */
_Static_assert(TRACE_ACQ_FAST == 0, "the records' C way out");
#define TRACE_REC_ASM_OPERANDS(hdrval)					\
	[tname] "i"(offsetof(struct mutex, trace_name)),		\
	[trace] "i"(offsetof(struct cpu, trace)),			\
	[head] "i"(offsetof(struct trace_cpu, head)),			\
	[reserve] "i"(offsetof(struct trace_cpu, reserve)),		\
	[ring] "i"(offsetof(struct trace_cpu, ring)),			\
	[mask] "i"(TRACE_RING_MASK),					\
	[shift] "i"(TRACE_RING_SHIFT),					\
	[hdr] "i"(hdrval),						\
	[rhdr] "i"(offsetof(struct trace_rec, hdr)),			\
	[tid] "i"(offsetof(struct task, tid)),				\
	[rtid] "i"(offsetof(struct trace_rec, tm.tid)),			\
	[rname] "i"(offsetof(struct trace_rec, tm.mname))

/* This CPU's trace state, in one %gs/tp-relative load; interrupts off. */
static inline __attribute__((always_inline)) struct trace_cpu *trace_this_cpu(void)
{
	return (struct trace_cpu *)arch_this_cpu_read_ulong(
		offsetof(struct cpu, trace));
}

/*
 * __schedule(), rq->lock held, after the pick, on a switch to @next
 * (not @prev) with @donor's context, @proxied when donor != next: the
 * record of trace_switch() (trace.h), inline for the common case.
 * @untraced_check (a constant: false in yield()'s copy of __schedule,
 * whose switch the benchmarks time) looks for a task that sleeps
 * untraced (sleep_ns_untraced()) at either end.
 */
static inline __attribute__((always_inline)) void
trace_switch_to(struct task *prev, struct task *next, struct task *donor,
		bool proxied, bool untraced_check)
{
	if (!trace_on())
		return;
	if (untraced_check &&
	    __builtin_expect(prev->untraced | next->untraced, 0))
		__trace_switch_untraced(prev, next, donor);
	else if (__builtin_expect(proxied, 0))
		__trace_switch(prev, next, donor);	/* a proxy's chain first */
	else
		trace_record_switch(trace_this_cpu(), prev, next);
}
#endif
