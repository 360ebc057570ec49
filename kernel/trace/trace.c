/*
 * trace.c - recording the scheduler trace (kernel/include/trace.h): the
 * per-CPU rings and the hooks the scheduler and mutexes call.  Reading,
 * merging and printing are in read.c; the record layout and how
 * readers avoid torn records in trace/ring.h; the text format in
 * docs/trace.md.
 *
 * Why lock-free: events come from __schedule and wakeups with rq locks
 * held, from the mutex fast paths and from interrupts (timers wake
 * tasks, dl_timer replenishes).  Each CPU writes only its own ring, with
 * interrupts off for one event (masked here, or already off: the switch
 * under rq->lock), so nothing can interleave with a record on its CPU
 * and no other CPU ever writes it: no lock, no atomic read-modify-write.
 * Readers on other CPUs cope through the reserve/head protocol
 * (trace/ring.h).
 *
 * trace_reset() does not touch what the writers write (their CPUs may
 * be writing): it notes each CPU's head as the start of its trace
 * (trace/ring.h, Reset), so a record never checks for a reset.
 *
 * Why so few instructions (docs/trace.md, Cost): an uncontended mutex
 * pair records two events, so a record is most of its cost.  A record
 * keeps tids, not task names (the name table below has them), a
 * pointer to a mutex name that is a string literal, and the raw clock
 * counter (converted when the dump prints it).
 */
#include "ring.h"
#include "mm.h"
#include "blocked_on.h"
#include "mutex.h"
#include "sched.h"
#include "spinlock.h"
#include "timer.h"
#include <string.h>

struct trace_cpu trace_cpus[NR_CPUS];
struct trace_tname trace_names[TRACE_NAMES];
/* Orders trace_reset()s and readers of start/start_conts. */
static spinlock_t trace_reset_lock = SPINLOCK_INIT("trace_reset");
bool trace_enabled;
static bool trace_ready;		/* every present CPU has a ring */

/* The recording path is inlined whole into each event's function: a
 * record costs a few dozen instructions, not calls (bench trace_event). */
#define __always_inline inline __attribute__((always_inline))

/* The hottest events are leaves (or tail calls): without the frame
 * pointer's setup they save four or five instructions (kernel.h). */
#define __trace_leaf __no_frame

#define RING_ORDER 7			/* 2^7 pages = TRACE_RING records */
_Static_assert((PAGE_SIZE << RING_ORDER) ==
	       TRACE_RING * sizeof(struct trace_rec), "ring size");

void trace_init(void)
{
	for (int i = 0; i < ncpus; i++) {
		uintptr_t pa = page_alloc(RING_ORDER);

		if (!pa) {
			printk("trace: no memory for cpu%d's ring: tracing "
			       "off\n", i);
			return;
		}
		trace_cpus[i].ring = (struct trace_rec *)pa;
		cpus[i].trace = &trace_cpus[i];
	}
	trace_ready = true;
	WRITE_ONCE(trace_enabled, true);
}

static void trace_quiesce_fn(void *arg)
{
	(void)arg;
}

/*
 * Off means off: once this returns no CPU records an event, so a reset
 * after it leaves an empty trace (test trace.off_records_nothing).  Every
 * event checks trace_enabled where nothing can stop it before it is
 * published: under a lock or with interrupts masked (the scheduler's
 * hooks, record_ttm(), trace_mark()), or inside its restartable region
 * (the arch's fast mutex records, which an interrupt sends back to the
 * check).  So an event that saw "on" ends before its CPU takes an
 * interrupt again, and a no-op call on every other CPU waits for that.
 * (On this CPU smp_call() just calls it: task context, interrupts on.)
 * Task context only; the invariant checker stops with trace_freeze().
 */
int trace_set_enabled(bool on)
{
	if (on && !trace_ready)
		return -ENOMEM;
	WRITE_ONCE(trace_enabled, on);
	if (on)
		return 0;
	smp_mb();	/* off before any CPU's interrupt below */
	for (int i = 0; i < ncpus; i++)
		smp_call(i, trace_quiesce_fn, NULL);	/* offline: -EINVAL */
	return 0;
}

void trace_freeze(void)
{
	WRITE_ONCE(trace_enabled, false);
}

/*
 * The entry's seqcount is also its writers' lock: a writer moves it from
 * even to odd with a compare-and-swap (two tasks whose ids share the slot
 * take turns), writes, and makes it even again; readers (read.c)
 * keep a copy that saw the same even value before and after.  Interrupts
 * stay off while it is odd, so the writer is never preempted there.  (A
 * global spinlock here cost about 100 instructions of every thread
 * creation.)  Boot tasks are named before trace_init(): the table is
 * static.
 */
void trace_task_named(const struct task *t)
{
	struct trace_tname *e = &trace_names[t->tid & (TRACE_NAMES - 1)];
	unsigned long flags = arch_irq_save();
	uint32_t seq;

	for (;;) {
		seq = READ_ONCE(e->seq);
		if (!(seq & 1) &&
		    __atomic_compare_exchange_n(&e->seq, &seq, seq + 1, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			break;
		arch_cpu_relax();
	}
	__atomic_thread_fence(__ATOMIC_RELEASE);	/* odd before the text */
	e->tid = t->tid;
	__builtin_memcpy(e->name, t->name, TASK_NAME_LEN);
	e->name[TASK_NAME_LEN - 1] = '\0';
	smp_store_release(&e->seq, seq + 2);
	arch_irq_restore(flags);
}

static void note_attr_now(struct task *t, void *arg);

/* Task context.  Each CPU's trace starts at its head now: an event in
 * progress there is after the reset (trace/ring.h, Reset). */
void trace_reset(void)
{
	unsigned long flags = spin_lock(&trace_reset_lock);

	for (int i = 0; i < ncpus; i++) {
		struct trace_cpu *tc = &trace_cpus[i];
		uint64_t conts, head = trace_cpu_head(tc, &conts);

		WRITE_ONCE(tc->start, head);
		WRITE_ONCE(tc->start_conts, conts);
	}
	spin_unlock(&trace_reset_lock, flags);
	/* A trace that starts now says each task's class and priority
	 * (attr why=now): the tasks of a scenario got theirs before. */
	if (trace_on())
		for_each_task(note_attr_now, NULL);
}

void trace_cpu_start(struct trace_cpu *tc, uint64_t *start,
		     uint64_t *start_conts)
{
	unsigned long flags = spin_lock(&trace_reset_lock);

	*start = tc->start;
	*start_conts = tc->start_conts;
	spin_unlock(&trace_reset_lock, flags);
}

uint64_t trace_cpu_recorded(int cpu)
{
	uint64_t head, start;

	if (cpu < 0 || cpu >= ncpus)
		return 0;
	return trace_cpu_count(&trace_cpus[cpu], &head, &start);
}

/* ---- Writing one event --------------------------------------------- */

/*
 * Writing an event:
 *
 *	trace_start(&w);		interrupts off, this CPU's ring
 *	r = rec_open(&w, type, nrec, arg);
 *	fill r (and rec_cont(&w, i)); rec_publish(&w);
 *	trace_stop(&w);			interrupts back
 *
 * Several events may be written between one start and stop (a proxy
 * event before its switch).
 */
struct trace_w {
	struct trace_cpu *tc;
	struct trace_rec *ring;		/* tc->ring */
	uint64_t pos;			/* first position of the event */
	unsigned n;			/* its records */
	unsigned long flags;
};

static __always_inline void trace_start(struct trace_w *w)
{
	w->flags = arch_irq_save();
	/* Interrupts off: this CPU stays this CPU until trace_stop(). */
	w->tc = trace_this_cpu();
}

static __always_inline void trace_stop(struct trace_w *w)
{
	arch_irq_restore(w->flags);
}

/* trace_start() for an event whose hook looked at trace_enabled with
 * interrupts on (a task may be preempted between the look and the
 * record): look again with them masked (trace_set_enabled()).  False:
 * recording went off, nothing to write (interrupts are back). */
static __always_inline bool trace_start_on(struct trace_w *w)
{
	trace_start(w);
	if (__builtin_expect(READ_ONCE(trace_enabled), 1))
		return true;
	trace_stop(w);
	return false;
}

/*
 * Open an event of @type in @nrec records (1 + continuations) at the
 * head of this CPU's ring.  Returns the head record, its header filled
 * (with @arg) and payload to fill.  Continuations get their header
 * (arg 0), not their payload.  With a constant @nrec of 1 (the common
 * events) the loop disappears.  Interrupts off (trace_start(), or the
 * caller's: __trace_switch()).
 *
 * What a record does not do, and why it need not:
 *  - check for a ring: recording is on only once every CPU has one;
 *  - check for a reset: trace_reset() moves the readers' start
 *    (trace/ring.h, Reset);
 *  - take a lock or an atomic: only this CPU writes its ring, and
 *    interrupts are off for the whole event.
 */
static __always_inline struct trace_rec *rec_open(struct trace_w *w,
						  int type, unsigned nrec,
						  unsigned arg)
{
	struct trace_cpu *tc = w->tc;
	struct trace_rec *ring = tc->ring, *r;
	uint64_t pos;

	/* Recording is on only once every CPU has a ring (trace_init(),
	 * trace_set_enabled()), and the hooks call here only then. */
	DEBUG_ASSERT(ring);
	w->ring = ring;
	w->pos = pos = tc->head;
	w->n = nrec;
	/* Announce the rewrite before any store of it (trace/ring.h). */
	WRITE_ONCE(tc->reserve, pos + nrec);
	__atomic_thread_fence(__ATOMIC_RELEASE);	/* smp_wmb */
	r = &ring[pos & TRACE_RING_MASK];
	arch_clock_raw_store(&r->ts);
	for (unsigned i = 1; i < nrec; i++) {
		struct trace_rec *c = &ring[(pos + i) & TRACE_RING_MASK];

		c->ts = r->ts;
		c->hdr = trace_hdr(TRACE_CONT, 0, 0);
	}
	if (nrec > 1)
		tc->conts += nrec - 1;
	r->hdr = trace_hdr(type, nrec - 1, arg);
	return r;
}

/* Continuation record @i (1..n-1) of the event being written. */
static __always_inline struct trace_rec *rec_cont(struct trace_w *w,
						  unsigned i)
{
	return &w->ring[(w->pos + i) & TRACE_RING_MASK];
}

/* Publish the event: readers may copy it once they see head. */
static __always_inline void rec_publish(struct trace_w *w)
{
	smp_store_release(&w->tc->head, w->pos + w->n);
}

static __always_inline int32_t tid_of(const struct task *t)
{
	return t ? t->tid : TRACE_NO_TID;
}

/* ---- Mutex names ----------------------------------------------------- */

extern const char __rodata_start[], __rodata_end[];

/* @s is in the kernel image's read-only data: a string literal, which
 * never changes and is never freed, so a record may keep the pointer.
 * The image's rodata ends with the NUL of its last string. */
static __always_inline bool in_rodata(const char *s)
{
	/* Two compares with the symbols as immediates: the one-compare
	 * form (s - start < end - start) computes end - start at run
	 * time, since the compiler cannot fold two symbols. */
	return s >= __rodata_start && s < __rodata_end;
}

/*
 * Copy mutex name @s (not in rodata) into @d: up to the NUL or
 * TRACE_MUTEX_NAME bytes.  A word at a time once the source is aligned:
 * an aligned 8-byte load never crosses into another page, so reading
 * past the NUL within its word is safe.  Bytes after the NUL may be
 * copied too; the reader stops at the NUL.
 */
static void copy_mutex_name(char *d, const char *s)
{
	unsigned i = 0;

	for (; ((uintptr_t)s & 7) && i < TRACE_MUTEX_NAME; i++, s++) {
		d[i] = *s;
		if (!*s)
			return;
	}
	for (; i + 8 <= TRACE_MUTEX_NAME; i += 8, s += 8) {
		uint64_t v = *(const uint64_t *)s;

		__builtin_memcpy(&d[i], &v, 8);
		if ((v - 0x0101010101010101ULL) & ~v & 0x8080808080808080ULL)
			return;		/* a zero byte in this word */
	}
	for (; i < TRACE_MUTEX_NAME; i++, s++) {
		d[i] = *s;
		if (!*s)
			return;
	}
}

const char *trace_keep_name(const char *name)
{
	return name && in_rodata(name) ? name : NULL;
}

/* ---- Restartable records (arch.h) ------------------------------------ */

/* Every arch's restartable records, from its trace_rseq_table section. */
extern const struct trace_rseq __trace_rseq_table[], __trace_rseq_table_end[];

/* trace_irq_entry() found @pc among the restartable records' code: if
 * it is before a record's publishing store, the interrupted record
 * starts again (its arguments are still in their registers: the records
 * never write them).  Interrupts off. */
void __trace_rseq_restart(uintptr_t *pc)
{
	for (const struct trace_rseq *e = __trace_rseq_table;
	     e < __trace_rseq_table_end; e++) {
		if (*pc >= e->start && *pc < e->end) {
			*pc = e->start;
			this_cpu()->trace->restarts++;
			return;
		}
	}
}

/* Set element @e to mutex name @s: the pointer, or a copy. */
static void put_mutex_elem(struct trace_elem *e, const char *s)
{
	if (in_rodata(s)) {
		e->kind = TRACE_EL_MPTR;
		e->mptr = s;
	} else {
		e->kind = TRACE_EL_MNAME;
		copy_mutex_name(e->m, s);
	}
}

/* ---- The events ------------------------------------------------------ */

/* The chain the pick walked for @donor to @next, as one event: one
 * continuation per element (donor, mutex, owner, ..., next).  Hops
 * beyond TRACE_CHAIN_HOPS are cut (arg2; printed as "...").  Within
 * trace_switch_slow()'s start/stop. */
static __attribute__((noinline)) void record_proxy(struct trace_cpu *tc,
						   struct task *next)
{
	unsigned hops = MIN(tc->chain_hops, TRACE_CHAIN_HOPS);
	unsigned nelem = 2 * hops + 1;
	struct trace_w w = { .tc = tc };	/* interrupts already off */
	struct trace_rec *r;

	r = rec_open(&w, TRACE_PROXY, 1 + nelem, nelem);
	r->arg2 = tc->chain_hops > TRACE_CHAIN_HOPS;
	for (unsigned i = 0; i < nelem; i++) {
		struct trace_rec *d = rec_cont(&w, 1 + i);
		const struct trace_elem *e = &tc->chain[i];

		if (i + 1 == nelem) {
			d->hdr = trace_hdr(TRACE_CONT, 0, TRACE_EL_TASK);
			d->tid[0] = tid_of(next);
			continue;
		}
		d->hdr = trace_hdr(TRACE_CONT, 0, e->kind);
		if (e->kind == TRACE_EL_TASK)
			d->tid[0] = e->tid;
		else if (e->kind == TRACE_EL_MPTR)
			d->mptr = e->mptr;
		else
			__builtin_memcpy(d->text, e->m, TRACE_MUTEX_NAME);
	}
	rec_publish(&w);
}

/* The rare switches: a donor change (prev == next: __schedule() calls
 * only when the donor changed), or a proxy pick whose chain comes
 * first. */
static __attribute__((noinline)) void trace_switch_slow(struct task *prev,
							struct task *next,
							struct task *donor)
{
	int state = trace_prev_state(prev);
	struct trace_cpu *tc;
	struct trace_rec *r;
	struct trace_w w;

	trace_start(&w);
	tc = w.tc;
	if (donor != next && tc->chain_donor == donor && tc->chain_hops)
		record_proxy(tc, next);
	tc->chain_donor = NULL;
	r = rec_open(&w, TRACE_SWITCH, 1, state);
	r->tid[0] = prev->tid;
	r->tid[1] = next->tid;
	r->tid[2] = donor->tid;
	rec_publish(&w);
	trace_stop(&w);
}

/*
 * Called with interrupts off (rq->lock held; the bench masks them
 * around its direct calls as __schedule does), so, unlike the other
 * events, it does not mask them itself.  __schedule() writes the common
 * switch itself (trace_switch_to(), trace_record.h) and calls here for
 * the rest; the bench calls here for every case.
 */
__trace_leaf
void __trace_switch(struct task *prev, struct task *next, struct task *donor)
{
	if (__builtin_expect(prev == next || donor != next, 0)) {
		trace_switch_slow(prev, next, donor);
		return;
	}
	DEBUG_ASSERT(!arch_irqs_enabled());
	trace_record_switch(trace_this_cpu(), prev, next);
}

/* The next of this CPU's last switch record since the reset, within the
 * last 64 records, or TRACE_NO_TID.  Interrupts off: the ring is ours. */
static int32_t last_switch_next(struct trace_cpu *tc)
{
	uint64_t start = READ_ONCE(tc->start);

	for (uint64_t pos = tc->head, n = 0; pos != start && n < 64; n++) {
		const struct trace_rec *r = &tc->ring[--pos & TRACE_RING_MASK];

		if (r->type == TRACE_SWITCH)
			return r->tid[1];
	}
	return TRACE_NO_TID;
}

/*
 * __schedule (rq->lock held, interrupts off), a switch with a task that
 * sleeps untraced at one end (sleep_ns_untraced()).  Into it: nothing
 * (unless it runs for another task).  Out of it: nothing if @next is the
 * task this CPU's trace last showed running (the picture continues it),
 * else the switch as usual.
 */
void __trace_switch_untraced(struct task *prev, struct task *next,
			     struct task *donor)
{
	if (next->untraced && donor == next)
		return;
	if (!next->untraced && prev->untraced && donor == next &&
	    last_switch_next(trace_this_cpu()) == next->tid)
		return;
	__trace_switch(prev, next, donor);
}

void sleep_ns_untraced(uint64_t ns)
{
	struct task *self = current();

	WRITE_ONCE(self->untraced, true);
	sleep_ns(ns);
	WRITE_ONCE(self->untraced, false);
}

void __trace_proxy_hop(struct task *donor, struct task *p, struct mutex *m)
{
	unsigned long flags = arch_irq_save();
	struct trace_cpu *tc = trace_this_cpu();
	unsigned i;

	if (p == donor || tc->chain_donor != donor) {
		tc->chain_donor = donor;
		tc->chain_hops = 0;
	}
	i = tc->chain_hops++;
	if (i < TRACE_CHAIN_HOPS) {
		tc->chain[2 * i].kind = TRACE_EL_TASK;
		tc->chain[2 * i].tid = tid_of(p);
		put_mutex_elem(&tc->chain[2 * i + 1], m->name ? m->name : "?");
	}
	arch_irq_restore(flags);
}

/* One task, a small number and a big one. */
static __always_inline void record_tv(int type, int arg, struct task *p,
				      uint32_t v32, uint64_t v64)
{
	struct trace_rec *r;
	struct trace_w w;

	trace_start(&w);
	r = rec_open(&w, type, 1, arg);
	r->tv.tid = tid_of(p);
	r->tv.v32 = v32;
	r->tv.v64 = v64;
	rec_publish(&w);
	trace_stop(&w);
}

void __trace_wakeup(struct task *p, int cpu)
{
	if (__builtin_expect(READ_ONCE(p->untraced), 0))
		return;		/* sleep_ns_untraced() */
	record_tv(TRACE_WAKEUP, 0, p, cpu, 0);
}

void __trace_migrate(struct task *p, int from, int to, int why)
{
	record_tv(TRACE_MIGRATE, why, p, from, to);
}

void __trace_migrate_chain(struct task *const *t, unsigned n, int from,
			   int to, int why)
{
	for (unsigned i = 0; i < n; i++)
		record_tv(TRACE_MIGRATE, why, t[i], from, to);
}

void __trace_dl_throttle(struct task *p)
{
	record_tv(TRACE_THROTTLE, 0, p, 0, 0);
}

void __trace_dl_replenish(struct task *p, uint64_t deadline)
{
	record_tv(TRACE_REPLENISH, 0, p, 0, deadline);
}

/* The deadline in the head, how late in a continuation (TRACE_EL_U64). */
void __trace_dl_miss(struct task *p, uint64_t deadline)
{
	uint64_t now = clock_ns();
	struct trace_rec *r;
	struct trace_w w;

	trace_start(&w);
	r = rec_open(&w, TRACE_DL_MISS, 2, 0);
	r->tv.tid = tid_of(p);
	r->tv.v32 = 0;
	r->tv.v64 = deadline;
	r = rec_cont(&w, 1);
	r->hdr = trace_hdr(TRACE_CONT, 0, TRACE_EL_U64);
	r->u64 = now > deadline ? now - deadline : 0;
	rec_publish(&w);
	trace_stop(&w);
}

/* The class name and kernel priority of both ends in two records: the
 * head has the new ones, a continuation the old (TRACE_EL_ATTR). */
void __trace_sched_attr(struct task *p, int why, const char *old_class,
			int old_prio)
{
	struct trace_rec *r;
	struct trace_w w;
	int32_t prio = old_prio;

	trace_start(&w);
	r = rec_open(&w, TRACE_ATTR, 2, why);
	r->tv.tid = tid_of(p);
	r->tv.v32 = (uint32_t)p->prio;
	r->tv.v64 = (uintptr_t)task_class_name(p);
	r = rec_cont(&w, 1);
	r->hdr = trace_hdr(TRACE_CONT, 0, TRACE_EL_ATTR);
	__builtin_memcpy(r->text, &old_class, sizeof(old_class));
	__builtin_memcpy(r->text + 8, &prio, sizeof(prio));
	rec_publish(&w);
	trace_stop(&w);
}

/* for_each_task() callback of trace_reset(): where every task stands as
 * the trace starts (the per-CPU idle and stopper tasks say nothing). */
static void note_attr_now(struct task *t, void *arg)
{
	const char *cls = task_class_name(t);

	(void)arg;
	if (t->state == TASK_DEAD || !strcmp(cls, "idle") ||
	    !strcmp(cls, "stop"))
		return;
	__trace_sched_attr(t, TRACE_ATTR_NOW, cls, READ_ONCE(t->prio));
}

/* record_ttm() for a name outside rodata (or none, "?"): NULL in the
 * head, a copy of the name in a continuation. */
static __attribute__((noinline)) void record_ttm_copy(int type, int arg,
						      struct task *a,
						      struct task *b,
						      const char *name)
{
	struct trace_rec *r;
	struct trace_w w;

	if (!trace_start_on(&w))
		return;
	r = rec_open(&w, type, 2, arg);
	r->tm.tid[0] = tid_of(a);
	r->tm.tid[1] = tid_of(b);
	r->tm.mname = NULL;
	r = rec_cont(&w, 1);
	r->hdr = trace_hdr(TRACE_CONT, 0, TRACE_EL_MNAME);
	copy_mutex_name(r->text, name ? name : "?");
	rec_publish(&w);
	trace_stop(&w);
}

/* Two tasks (@a is one, @b may be NULL: "none") and a mutex: one record
 * with the pointer to its name when that is a string literal. */
static __always_inline void record_ttm(int type, int arg, struct task *a,
				       struct task *b, struct mutex *m)
{
	const char *name = m->trace_name;
	struct trace_rec *r;
	struct trace_w w;

	if (__builtin_expect(!name, 0)) {
		record_ttm_copy(type, arg, a, b, m->name);
		return;
	}
	if (!trace_start_on(&w))
		return;
	r = rec_open(&w, type, 1, arg);
	r->tm.tid[0] = a->tid;
	r->tm.tid[1] = tid_of(b);
	r->tm.mname = name;
	rec_publish(&w);
	trace_stop(&w);
}

__trace_leaf
void __trace_mutex_block(struct task *p, struct mutex *m, struct task *owner)
{
	record_ttm(TRACE_BLOCK, 0, p, owner, m);
}

/* Also the arch's fast records' way out (a name to copy): by name. */
__trace_leaf __attribute__((externally_visible))
void __trace_mutex_acquire(struct task *p, struct mutex *m, int how)
{
	record_ttm(TRACE_ACQUIRE, how, p, NULL, m);
}

/* Out of line: two records would make every release save registers. */
static __attribute__((noinline)) void record_handoff(struct task *p,
						     struct mutex *m,
						     struct task *wake)
{
	record_ttm(TRACE_RELEASE, 0, p, wake, m);
	record_ttm(TRACE_HANDOFF, 0, p, wake, m);
}

/* Also the arch's fast records' way out (a name to copy): by name. */
__trace_leaf __attribute__((externally_visible))
void __trace_mutex_release(struct task *p, struct mutex *m,
			   struct task *wake, bool handoff)
{
	if (__builtin_expect(handoff && wake, 0))
		record_handoff(p, m, wake);
	else
		record_ttm(TRACE_RELEASE, 0, p, wake, m);
}

__trace_leaf
void __trace_mutex_giveup(struct task *p, struct mutex *m, int err)
{
	record_ttm(TRACE_GIVEUP, -err, p, NULL, m);
}

/* TRACE_MARK_HEAD bytes in the head, 16 in each continuation; the text
 * is NUL-terminated unless it fills the event to its end. */
void trace_mark(const char *text)
{
	size_t len = strnlen(text, TRACE_MARK_MAX);
	char buf[TRACE_MARK_MAX + 16] = { 0 };
	struct trace_rec *r;
	unsigned nrec = 1;
	struct trace_w w;

	if (!trace_on())
		return;
	if (len > TRACE_MARK_HEAD)
		nrec += (len - TRACE_MARK_HEAD + sizeof(r->text) - 1) /
			sizeof(r->text);
	memcpy(buf, text, len);
	if (!trace_start_on(&w))
		return;
	r = rec_open(&w, TRACE_MARK, nrec, 0);
	r->mk.tid = tid_of(current());
	memcpy(r->mk.text, buf, TRACE_MARK_HEAD);
	for (unsigned i = 1; i < nrec; i++)
		memcpy(rec_cont(&w, i)->text, buf + TRACE_MARK_HEAD +
		       (i - 1) * sizeof(r->text), sizeof(r->text));
	rec_publish(&w);
	trace_stop(&w);
}
