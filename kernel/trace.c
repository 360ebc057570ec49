/*
 * trace.c - recording the scheduler trace (kernel/include/trace.h): the
 * per-CPU rings and the hooks the scheduler and mutexes call.  Reading,
 * merging and printing are in trace_read.c; the record layout and its
 * sequence numbers in trace_ring.h; the text format in docs/trace.md.
 *
 * Why lock-free: events come from __schedule and wakeups with rq locks
 * held, from the mutex fast paths and from interrupts (timers wake
 * tasks, dl_timer replenishes).  Each CPU writes only its own ring, with
 * interrupts off for one event, so nothing can interleave with a record
 * on its CPU and no other CPU ever writes it: no lock, no atomic
 * read-modify-write.  Readers on other CPUs cope through the records'
 * sequence numbers.
 *
 * trace_reset() does not touch the rings (their CPUs may be writing):
 * it bumps trace_epoch, and each CPU starts afresh at its next record
 * (readers treat a CPU still at an old epoch as empty).
 */
#include "trace_ring.h"
#include "mm.h"
#include "mutex.h"
#include "sched.h"
#include "timer.h"
#include <string.h>

struct trace_cpu trace_cpus[NR_CPUS];
unsigned trace_epoch;
bool trace_enabled;
static bool trace_ready;		/* every present CPU has a ring */

/* The recording path is inlined whole into each event's function: a
 * record costs a few dozen instructions, not calls (bench trace_event). */
#define __always_inline inline __attribute__((always_inline))

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
	}
	trace_ready = true;
	WRITE_ONCE(trace_enabled, true);
}

int trace_set_enabled(bool on)
{
	if (on && !trace_ready)
		return -ENOMEM;
	WRITE_ONCE(trace_enabled, on);
	return 0;
}

void trace_reset(void)
{
	__atomic_add_fetch(&trace_epoch, 1, __ATOMIC_RELEASE);
}

uint64_t trace_cpu_recorded(int cpu)
{
	struct trace_cpu *tc = &trace_cpus[cpu];

	if (cpu < 0 || cpu >= ncpus ||
	    smp_load_acquire(&tc->epoch) != READ_ONCE(trace_epoch))
		return 0;
	return READ_ONCE(tc->recorded);
}

/* ---- Writing one event --------------------------------------------- */

/* An event being written: its CPU, first position and record count. */
struct trace_w {
	struct trace_cpu *tc;
	uint64_t pos;
	unsigned n;
	unsigned long flags;
};

/* Claim slot @pos for writing: invalidate it for readers, and count the
 * event it held as lost if it was one of this epoch's. */
static __always_inline void slot_open(struct trace_cpu *tc, uint64_t pos)
{
	struct trace_rec *r = &tc->ring[pos & TRACE_RING_MASK];

	if (pos - tc->start >= TRACE_RING && r->type != TRACE_CONT)
		tc->lost++;
	WRITE_ONCE(r->seq, 0);
}

/*
 * Start an event of @type in @nrec records (1 + continuations) on this
 * CPU's ring; interrupts stay off until trace_end().  Returns the head
 * record, its header filled and payload to fill, or NULL (no ring).
 */
static __always_inline struct trace_rec *trace_begin(struct trace_w *w,
						     int type, unsigned nrec)
{
	struct trace_cpu *tc;
	struct trace_rec *r;
	unsigned epoch;
	uint64_t ts;

	w->flags = arch_irq_save();
	tc = &trace_cpus[this_cpu()->id];
	if (__builtin_expect(!tc->ring, 0)) {
		arch_irq_restore(w->flags);
		return NULL;
	}
	epoch = READ_ONCE(trace_epoch);
	if (__builtin_expect(tc->epoch != epoch, 0)) {
		tc->start = tc->head;
		tc->lost = 0;
		tc->recorded = 0;
		smp_store_release(&tc->epoch, epoch);
	}
	w->tc = tc;
	w->pos = tc->head;
	w->n = nrec;
	ts = clock_ns();
	for (unsigned i = 0; i < nrec; i++)
		slot_open(tc, w->pos + i);
	/* The seq = 0 stores before any payload store (trace_ring.h). */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	for (unsigned i = 1; i < nrec; i++) {
		r = &tc->ring[(w->pos + i) & TRACE_RING_MASK];
		r->ts = ts;
		r->type = TRACE_CONT;
		r->ncont = 0;
	}
	r = &tc->ring[w->pos & TRACE_RING_MASK];
	r->ts = ts;
	r->type = type;
	r->ncont = nrec - 1;
	r->arg = 0;
	r->arg2 = 0;
	return r;
}

/* Continuation record @i (1..n-1) of the event being written. */
static struct trace_rec *trace_cont(struct trace_w *w, unsigned i)
{
	return &w->tc->ring[(w->pos + i) & TRACE_RING_MASK];
}

/* Publish the event: each record's seq, then head; interrupts back. */
static __always_inline void trace_end(struct trace_w *w)
{
	struct trace_cpu *tc = w->tc;

	for (unsigned i = 0; i < w->n; i++)
		__atomic_store_n(&tc->ring[(w->pos + i) & TRACE_RING_MASK].seq,
				 trace_seq(w->pos + i), __ATOMIC_RELEASE);
	tc->recorded++;
	smp_store_release(&tc->head, w->pos + w->n);
	arch_irq_restore(w->flags);
}

/* Copy what the dump prints of @t (NULL: none).  t->name is a
 * TASK_NAME_LEN array: copying its first bytes never reads past it. */
static __always_inline void put_task(struct trace_name *n,
				     const struct task *t)
{
	_Static_assert(TRACE_TASK_NAME <= TASK_NAME_LEN, "name copy");
	if (!t) {
		n->t.tid = -1;
		return;
	}
	n->t.tid = t->tid;
	__builtin_memcpy(n->t.name, t->name, TRACE_TASK_NAME);	/* inlined */
}

/*
 * A mutex name is a pointer to a string of any length: copy up to the
 * NUL or TRACE_MUTEX_NAME bytes.  A word at a time once the source is
 * aligned: an aligned 8-byte load never crosses into another page, so
 * reading past the NUL within its word is safe.  Bytes after the NUL
 * may be copied too; the reader stops at the NUL.
 */
static __always_inline void put_mutex(struct trace_name *n,
				      const struct mutex *m)
{
	const char *s = m->name ? m->name : "?";
	unsigned i = 0;

	for (; ((uintptr_t)s & 7) && i < TRACE_MUTEX_NAME; i++, s++) {
		n->m[i] = *s;
		if (!*s)
			return;
	}
	for (; i + 8 <= TRACE_MUTEX_NAME; i += 8, s += 8) {
		uint64_t v = *(const uint64_t *)s;

		__builtin_memcpy(&n->m[i], &v, 8);
		if ((v - 0x0101010101010101ULL) & ~v & 0x8080808080808080ULL)
			return;		/* a zero byte in this word */
	}
	for (; i < TRACE_MUTEX_NAME; i++, s++) {
		n->m[i] = *s;
		if (!*s)
			return;
	}
}

/* ---- The events ------------------------------------------------------ */

static int prev_state(const struct task *p)
{
	struct mutex *m = READ_ONCE(p->blocked_on);
	int state = READ_ONCE(p->state);

	if (state == TASK_DEAD)
		return TRACE_STATE_DEAD;
	if (state == TASK_RUNNING)
		return TRACE_STATE_RUN;
	if (m && m != PROXY_WAKING)
		return TRACE_STATE_BLOCKED;
	/* Preempted between setting TASK_SLEEPING and schedule(): it
	 * stays queued, it did not go to sleep. */
	return p->on_rq ? TRACE_STATE_RUN : TRACE_STATE_SLEEP;
}

/* The chain the pick walked for @donor to @next, as one event: donor,
 * mutex, owner, ..., next.  Hops beyond TRACE_CHAIN_HOPS are cut (arg2;
 * printed as "..."). */
static void record_proxy(struct trace_cpu *tc, struct task *next)
{
	unsigned hops = MIN(tc->chain_hops, TRACE_CHAIN_HOPS);
	unsigned nelem = 2 * hops + 1;
	struct trace_rec *r;
	struct trace_w w;

	r = trace_begin(&w, TRACE_PROXY, (nelem + 2) / 3);
	if (!r)
		return;
	r->arg = nelem;
	r->arg2 = tc->chain_hops > TRACE_CHAIN_HOPS;
	for (unsigned i = 0; i < nelem; i++) {
		struct trace_rec *d = i < 3 ? r : trace_cont(&w, i / 3);

		if (i + 1 == nelem)
			put_task(&d->n[i % 3], next);
		else
			d->n[i % 3] = tc->chain[i];
	}
	trace_end(&w);
}

void __trace_switch(struct task *prev, struct task *next, struct task *donor)
{
	struct trace_cpu *tc = &trace_cpus[this_cpu()->id];
	struct trace_rec *r;
	struct trace_w w;

	if (prev == next && donor == tc->last_donor)
		return;
	if (donor != next && tc->chain_donor == donor && tc->chain_hops)
		record_proxy(tc, next);
	tc->chain_donor = NULL;
	tc->last_donor = donor;
	r = trace_begin(&w, TRACE_SWITCH, 1);
	if (!r)
		return;
	r->arg = prev_state(prev);
	put_task(&r->n[0], prev);
	put_task(&r->n[1], next);
	put_task(&r->n[2], donor);
	trace_end(&w);
}

void __trace_proxy_hop(struct task *donor, struct task *p, struct mutex *m)
{
	unsigned long flags = arch_irq_save();
	struct trace_cpu *tc = &trace_cpus[this_cpu()->id];
	unsigned i;

	if (p == donor || tc->chain_donor != donor) {
		tc->chain_donor = donor;
		tc->chain_hops = 0;
	}
	i = tc->chain_hops++;
	if (i < TRACE_CHAIN_HOPS) {
		put_task(&tc->chain[2 * i], p);
		put_mutex(&tc->chain[2 * i + 1], m);
	}
	arch_irq_restore(flags);
}

/* One task and up to four numbers. */
static __always_inline void record_tv(int type, int arg, struct task *p,
				      uint64_t v0, uint64_t v1, uint64_t v2)
{
	struct trace_w w;
	struct trace_rec *r = trace_begin(&w, type, 1);

	if (!r)
		return;
	r->arg = arg;
	put_task(&r->tv.task, p);
	r->tv.v[0] = v0;
	r->tv.v[1] = v1;
	r->tv.v[2] = v2;
	trace_end(&w);
}

void __trace_wakeup(struct task *p, int cpu)
{
	record_tv(TRACE_WAKEUP, 0, p, cpu, 0, 0);
}

void __trace_migrate(struct task *p, int from, int to, int why)
{
	record_tv(TRACE_MIGRATE, why, p, from, to, 0);
}

void __trace_migrate_chain(struct task *const *t, unsigned n, int from,
			   int to, int why)
{
	for (unsigned i = 0; i < n; i++)
		record_tv(TRACE_MIGRATE, why, t[i], from, to, 0);
}

void __trace_dl_throttle(struct task *p)
{
	record_tv(TRACE_THROTTLE, 0, p, 0, 0, 0);
}

void __trace_dl_replenish(struct task *p, uint64_t deadline)
{
	record_tv(TRACE_REPLENISH, 0, p, deadline, 0, 0);
}

void __trace_dl_miss(struct task *p, uint64_t deadline)
{
	uint64_t now = clock_ns();

	record_tv(TRACE_DL_MISS, 0, p, deadline,
		  now > deadline ? now - deadline : 0, 0);
}

/* Two tasks (@b may be NULL: "none") and a mutex. */
static __always_inline void record_ttm(int type, int arg, struct task *a,
				       struct task *b, struct mutex *m)
{
	struct trace_w w;
	struct trace_rec *r = trace_begin(&w, type, 1);

	if (!r)
		return;
	r->arg = arg;
	put_task(&r->n[0], a);
	put_mutex(&r->n[1], m);
	put_task(&r->n[2], b);
	trace_end(&w);
}

void __trace_mutex_block(struct task *p, struct mutex *m, struct task *owner)
{
	record_ttm(TRACE_BLOCK, 0, p, owner, m);
}

void __trace_mutex_acquire(struct task *p, struct mutex *m, int how)
{
	record_ttm(TRACE_ACQUIRE, how, p, NULL, m);
}

void __trace_mutex_release(struct task *p, struct mutex *m,
			   struct task *wake, bool handoff)
{
	record_ttm(TRACE_RELEASE, 0, p, wake, m);
	if (handoff && wake)
		record_ttm(TRACE_HANDOFF, 0, p, wake, m);
}

void __trace_mutex_giveup(struct task *p, struct mutex *m, int err)
{
	record_ttm(TRACE_GIVEUP, -err, p, NULL, m);
}

void trace_mark(const char *text)
{
	size_t len = strnlen(text, TRACE_MARK_MAX);
	char buf[TRACE_MARK_MAX] = { 0 };
	struct trace_rec *r;
	unsigned nrec = 1;
	struct trace_w w;

	if (!trace_on())
		return;
	/* 32 bytes in the head, 48 in each continuation; the text is
	 * NUL-terminated unless it fills the event to its end. */
	if (len > sizeof(r->mk.text))
		nrec += (len - sizeof(r->mk.text) + sizeof(r->text) - 1) /
			sizeof(r->text);
	memcpy(buf, text, len);
	r = trace_begin(&w, TRACE_MARK, nrec);
	if (!r)
		return;
	put_task(&r->mk.task, current());
	memcpy(r->mk.text, buf, sizeof(r->mk.text));
	for (unsigned i = 1; i < nrec; i++)
		memcpy(trace_cont(&w, i)->text,
		       buf + sizeof(r->mk.text) + (i - 1) * sizeof(r->text),
		       sizeof(r->text));
	trace_end(&w);
}
