/*
 * trace.c - tests of the scheduler trace (kernel/trace/: trace.c, read.c,
 * docs/trace.md): a known sequence of two threads and a mutex gives the
 * expected events, in order, with the right fields, in proxy mode (the
 * owner runs with the waiter as donor, the lock is handed off) and in
 * inherit mode; names are kept (a freed task and mutex still print,
 * cleaned of the format's separators; a task whose name-table slot a
 * later tid took prints as "?" once freed, by its name while alive); a
 * full ring overwrites its
 * oldest events and counts them lost; copies taken while every CPU
 * records show only whole events with per-CPU non-decreasing times;
 * the mutex fast paths' records restart where an interrupt lands before
 * they publish, and stay whole and in order under interrupts that
 * record; a mutex name outside the image is copied;
 * on, off and reset: trace_onoff.c.
 *
 * Events are read through trace_snapshot(), whose lines are the ones
 * the dump prints (after "<ts> <cpu> "), so the format is tested too.
 */
#include "trace_test.h"
#include "helpers.h"
#include "cpu.h"
#include "mm.h"
#include "mutex.h"
#include "sched.h"
#include "timer.h"
#include "trace.h"
#include "trace_record.h"
#include <printf.h>
#include <string.h>

/* ---- Helpers --------------------------------------------------------- */

int trace_test_cpu(void)
{
	return ncpus - 1;
}

struct task *trace_spawn_on(struct ktest *t, const char *name,
			    void (*fn)(void *), void *arg, int cpu,
			    const struct sched_attr *a)
{
	struct thread_opts o = { .attr = a, .affinity = 1ULL << cpu };
	struct task *p = NULL;
	int err = thread_spawn(&p, name, fn, arg, &o);

	if (err)
		ktest_fail(t, __FILE__, __LINE__, "thread_spawn %s: %d", name,
			   err);
	return p;
}

/*
 * Look for @want (NULL-terminated lines, "%T" nowhere: callers format
 * them with the tids) as a subsequence of the events, in order.  Reports
 * the first line not found, and the events seen that involve @tag.
 */
static void expect_sequence(struct ktest *t, const char *const *want,
			    const char *tag)
{
	static struct trace_event ev;	/* one case at a time */
	struct trace_snapshot *s = trace_snapshot();
	unsigned i = 0;

	KASSERT(t, s != NULL);
	while (want[i] && trace_snapshot_next(s, &ev))
		if (strcmp(ev.line, want[i]) == 0)
			i++;
	if (want[i]) {
		ktest_fail(t, __FILE__, __LINE__, "no event '%s' (in order)",
			   want[i]);
		trace_snapshot_free(s);
		s = trace_snapshot();
		KASSERT(t, s != NULL);
		while (trace_snapshot_next(s, &ev))
			if (strstr(ev.line, tag))
				printk("# seen: %d %s\n", ev.cpu, ev.line);
	}
	trace_snapshot_free(s);
}

unsigned trace_count_events(const char *needle, int cpu)
{
	static struct trace_event ev;
	struct trace_snapshot *s = trace_snapshot();
	unsigned n = 0;

	if (!s)
		return 0;
	while (trace_snapshot_next(s, &ev))
		if ((cpu < 0 || ev.cpu == cpu) && strstr(ev.line, needle))
			n++;
	trace_snapshot_free(s);
	return n;
}

/* ---- A known sequence: two threads, one mutex ------------------------ */

struct seq {
	struct mutex m;
	volatile int lo_locked;
};

/* Fair, takes the mutex, waits (running, so as the proxy of hi in proxy
 * mode) until hi waits for it, then releases it. */
static void seq_lo(void *arg)
{
	struct seq *q = arg;
	uint64_t give_up = clock_ns() + 5 * NSEC_PER_SEC;

	mutex_lock(&q->m);
	trace_mark("lo locked");
	WRITE_ONCE(q->lo_locked, 1);
	while (!(READ_ONCE(q->m.owner) & MUTEX_FLAG_WAITERS) &&
	       clock_ns() < give_up)
		arch_cpu_relax();
	mutex_unlock(&q->m);
}

/* FIFO 50 on the same CPU: preempts lo and blocks on the mutex. */
static void seq_hi(void *arg)
{
	struct seq *q = arg;

	mutex_lock(&q->m);
	trace_mark("hi locked");
	mutex_unlock(&q->m);
}

static void run_sequence(struct ktest *t, enum locking_mode mode)
{
	static struct seq q;
	struct sched_attr fifo = { .policy = SCHED_FIFO, .rt_priority = 50 };
	enum locking_mode saved = locking_mode;
	char lines[13][160], hi[32], lo[32];
	const char *want[14];
	struct task *l, *h;
	int cpu = trace_test_cpu(), n = 0, hid, lid;

	if (locking_set_mode(locking_mode_name(mode)) != 0)
		KSKIP(t, "cannot change the locking mode (tasks wait on "
		      "mutexes)");
	mutex_init(&q.m, "trace-m");
	q.lo_locked = 0;
	trace_reset();
	l = trace_spawn_on(t, "trace-lo", seq_lo, &q, cpu, NULL);
	KASSERT(t, l != NULL);
	while (!READ_ONCE(q.lo_locked))
		sleep_ns(NSEC_PER_MSEC);
	h = trace_spawn_on(t, "trace-hi", seq_hi, &q, cpu, &fifo);
	KASSERT(t, h != NULL);
	/* Tids before the join frees the tasks: the trace kept copies. */
	hid = h->tid;
	lid = l->tid;
	thread_join(h);
	thread_join(l);
	locking_set_mode(locking_mode_name(saved));

	snprintf(hi, sizeof(hi), "trace-hi#%d", hid);
	snprintf(lo, sizeof(lo), "trace-lo#%d", lid);
#define LINE(...) snprintf(lines[n], sizeof(lines[n]), __VA_ARGS__), \
	want[n] = lines[n], n++
	LINE("mark task=%s text=lo locked", lo);
	LINE("block task=%s mutex=trace-m owner=%s", hi, lo);
	if (mode == LOCKING_PROXY) {
		/* lo runs with hi's context; the lock goes to the donor. */
		LINE("proxy donor=%s curr=%s chain=%s>trace-m>%s", hi, lo, hi,
		     lo);
		LINE("switch prev=%s next=%s donor=%s state=blocked", hi, lo,
		     hi);
		LINE("release task=%s mutex=trace-m wake=%s", lo, hi);
		LINE("handoff from=%s to=%s mutex=trace-m", lo, hi);
		LINE("wakeup task=%s cpu=%d", hi, cpu);
		LINE("switch prev=%s next=%s donor=%s state=run", lo, hi, hi);
		LINE("acquire task=%s mutex=trace-m how=handoff", hi);
	} else {
		/* hi sleeps; lo runs with its own (inherited) context; the
		 * lock is handed to hi, the most important (RT) waiter. */
		LINE("attr task=%s class=rt prio=%d was=fair/0 why=boost", lo,
		     fifo.rt_priority);
		LINE("switch prev=%s next=%s donor=%s state=blocked", hi, lo,
		     lo);
		LINE("release task=%s mutex=trace-m wake=%s", lo, hi);
		LINE("handoff from=%s to=%s mutex=trace-m", lo, hi);
		LINE("wakeup task=%s cpu=%d", hi, cpu);
		LINE("attr task=%s class=fair prio=0 was=rt/%d why=unboost",
		     lo, fifo.rt_priority);
		LINE("switch prev=%s next=%s donor=%s state=run", lo, hi, hi);
		LINE("acquire task=%s mutex=trace-m how=handoff", hi);
	}
	LINE("mark task=%s text=hi locked", hi);
	LINE("release task=%s mutex=trace-m wake=none", hi);
#undef LINE
	want[n] = NULL;
	expect_sequence(t, want, "trace-");
}

static void sequence_proxy(struct ktest *t)
{
	run_sequence(t, LOCKING_PROXY);
}

static void sequence_inherit(struct ktest *t)
{
	run_sequence(t, LOCKING_INHERIT);
}

/* ---- Names are kept ---------------------------------------------------- */

struct gone {
	struct mutex *m;
};

static void gone_fn(void *arg)
{
	struct gone *g = arg;

	mutex_lock(g->m);
	mutex_unlock(g->m);
	trace_mark("bye\tnow");
}

/* A task and a mutex (name and all) freed before the trace is read
 * still print, from the name table and the copy; space, '=', '#' and
 * control bytes become '_'. */
static void names_survive_free(struct ktest *t)
{
	struct gone g;
	char *mname = kmalloc(16);
	char want[3][96];
	const char *seq[4];
	struct task *p;
	int tid;

	KASSERT(t, mname != NULL);
	g.m = kmalloc(sizeof(*g.m));
	KASSERT(t, g.m != NULL);
	strlcpy(mname, "tm gone=x", 16);
	mutex_init(g.m, mname);
	trace_reset();
	p = thread_create("tg a=b#c", gone_fn, &g, -1);
	KASSERT(t, p != NULL);
	tid = p->tid;
	thread_join(p);			/* frees the task */
	kfree(g.m);			/* poisons mutex and name */
	kfree(mname);
	snprintf(want[0], sizeof(want[0]),
		 "acquire task=tg_a_b_c#%d mutex=tm_gone_x how=fast", tid);
	snprintf(want[1], sizeof(want[1]),
		 "release task=tg_a_b_c#%d mutex=tm_gone_x wake=none", tid);
	snprintf(want[2], sizeof(want[2]), "mark task=tg_a_b_c#%d text=bye_now",
		 tid);
	for (int i = 0; i < 3; i++)
		seq[i] = want[i];
	seq[3] = NULL;
	expect_sequence(t, seq, "tg_a");
}

/* Marks its arg, then waits until told to go. */
static volatile int slot_go;

static void slot_fn(void *arg)
{
	trace_mark(arg);
	while (!READ_ONCE(slot_go))
		sleep_ns(1000000);
}

/* Name-table slots taken by a later tid (a fake task, named as a new
 * one would be): the freed task prints as "?", the live one still by
 * its name (the dump's fallback to the live tasks). */
static void names_slot_taken(struct ktest *t)
{
	static struct task taker;	/* only tid and name are read */
	char want[2][96];
	const char *seq[3] = { want[0], want[1], NULL };
	struct task *dead, *live;
	int dead_tid, live_tid;

	slot_go = 0;
	trace_reset();
	dead = thread_create("tn-dead", slot_fn, "slot dead", -1);
	KASSERT(t, dead != NULL);
	dead_tid = dead->tid;
	slot_go = 1;
	thread_join(dead);
	slot_go = 0;
	live = thread_create("tn-live", slot_fn, "slot live", -1);
	KASSERT(t, live != NULL);
	live_tid = live->tid;
	while (trace_count_events("text=slot live", -1) == 0)
		sleep_ns(1000000);
	strlcpy(taker.name, "tn-taker", sizeof(taker.name));
	taker.tid = dead_tid + TRACE_NAMES;
	trace_task_named(&taker);
	taker.tid = live_tid + TRACE_NAMES;
	trace_task_named(&taker);
	snprintf(want[0], sizeof(want[0]), "mark task=?#%d text=slot dead",
		 dead_tid);
	snprintf(want[1], sizeof(want[1]),
		 "mark task=tn-live#%d text=slot live", live_tid);
	expect_sequence(t, seq, "slot");
	slot_go = 1;
	thread_join(live);
}

/* ---- Ring overwrite ---------------------------------------------------- */

#define OVERWRITE_EXTRA 1000

static volatile unsigned overwrite_n;

static void overwrite_fn(void *arg)
{
	char text[24];

	(void)arg;
	for (unsigned i = 0; i < overwrite_n; i++) {
		snprintf(text, sizeof(text), "ow %u", i);
		trace_mark(text);
	}
}

/*
 * TRACE_RING + 1000 one-record marks on one CPU: the ring keeps the
 * newest, the oldest are overwritten and counted: kept + lost ==
 * recorded on that CPU, at least 1000 lost, and the marks kept are the
 * last ones, consecutive.  Recording is off while the ring is read, so
 * the counts hold still.
 */
static void ring_overwrite_counts_lost(struct ktest *t)
{
	static struct trace_event ev;
	struct trace_snapshot *s;
	int cpu = trace_test_cpu();
	unsigned first = ~0u, last = 0, kept = 0;
	uint64_t recorded, events, lost;
	bool gap = false;
	struct task *p;

	overwrite_n = TRACE_RING + OVERWRITE_EXTRA;
	trace_reset();
	p = trace_spawn_on(t, "trace-ow", overwrite_fn, NULL, cpu, NULL);
	KASSERT(t, p != NULL);
	thread_join(p);
	trace_set_enabled(false);
	recorded = trace_cpu_recorded(cpu);
	s = trace_snapshot();
	if (!s) {
		trace_set_enabled(true);
		KASSERT(t, s != NULL);
	}
	events = trace_snapshot_events(s, cpu);
	lost = trace_snapshot_lost(s, cpu);
	while (trace_snapshot_next(s, &ev)) {
		const char *m = strstr(ev.line, " text=ow ");
		unsigned long long i;

		if (!m || ev.cpu != cpu ||
		    parse_u64(m + strlen(" text=ow "), &i) != 0)
			continue;
		if (kept && i != last + 1)
			gap = true;
		if (!kept)
			first = i;
		last = i;
		kept++;
	}
	trace_snapshot_free(s);
	trace_set_enabled(true);
	printk("# cpu%d: recorded %llu, kept %llu, lost %llu; marks %u..%u\n",
	       cpu, (unsigned long long)recorded, (unsigned long long)events,
	       (unsigned long long)lost, first, last);
	KEXPECT(t, recorded >= overwrite_n);
	KEXPECT_EQ(t, events + lost, recorded);
	KEXPECT(t, lost >= OVERWRITE_EXTRA);
	KEXPECT(t, events <= TRACE_RING);
	KEXPECT_EQ(t, last, overwrite_n - 1);
	KEXPECT(t, !gap);
	/* Only the events of the thread's start and end share the ring. */
	KEXPECT(t, kept + 16 >= TRACE_RING);
	KEXPECT_EQ(t, first, overwrite_n - kept);
}

/* ---- Concurrent recording and reading ------------------------------- */

#define MARK_LEN 100			/* 7 records: head + 6 more */
#define SNAPSHOTS 6

struct conc {
	volatile int stop;
	volatile unsigned long marks;	/* written, all writers */
};

/* The text of writer @cpu's @seq-th mark: a header, then letters that
 * depend on both, so a mix of two marks does not read as either. */
static void conc_text(char *buf, int cpu, unsigned seq)
{
	int n = snprintf(buf, MARK_LEN + 1, "cw%d s%u ", cpu, seq);

	for (int i = n; i < MARK_LEN; i++)
		buf[i] = 'a' + (seq * 7 + cpu * 3 + i) % 26;
	buf[MARK_LEN] = '\0';
}

static void conc_writer(struct percpu_work *w)
{
	struct conc *c = w->data;
	char text[MARK_LEN + 1];

	for (unsigned seq = 0; !READ_ONCE(c->stop); seq++) {
		conc_text(text, w->cpu, seq);
		trace_mark(text);
		__atomic_add_fetch(&c->marks, 1, __ATOMIC_RELAXED);
		if (seq % 64 == 63)
			yield();
	}
}

struct conc_reader {
	struct ktest *t;
	struct conc *c;
	unsigned long seen, bad;
};

/* Check one copy: every writer mark whole and in order, each CPU's
 * times non-decreasing. */
static void conc_check(struct conc_reader *r, struct trace_snapshot *s)
{
	static struct trace_event ev;
	static uint64_t last_ts[NR_CPUS];
	static long last_seq[NR_CPUS];
	char want[MARK_LEN + 1];

	for (int i = 0; i < NR_CPUS; i++) {
		last_ts[i] = 0;
		last_seq[i] = -1;
	}
	while (trace_snapshot_next(s, &ev)) {
		const char *m = strstr(ev.line, " text=cw");
		const char *sp;
		unsigned seq = 0;

		if (ev.ts < last_ts[ev.cpu]) {
			if (!r->bad)
				ktest_fail(r->t, __FILE__, __LINE__,
					   "cpu%d: ts %llu after %llu", ev.cpu,
					   (unsigned long long)ev.ts,
					   (unsigned long long)last_ts[ev.cpu]);
			r->bad++;
		}
		last_ts[ev.cpu] = ev.ts;
		if (ev.type != TRACE_MARK || !m)
			continue;
		m += strlen(" text=");
		sp = strchr(m, ' ');
		if (!sp || sp[1] != 's' || sp[2] < '0' || sp[2] > '9') {
			r->bad++;
			continue;
		}
		for (sp += 2; *sp >= '0' && *sp <= '9'; sp++)
			seq = seq * 10 + (*sp - '0');
		conc_text(want, ev.cpu, seq);
		if (strcmp(m, want) != 0 || (long)seq <= last_seq[ev.cpu]) {
			if (!r->bad)
				ktest_fail(r->t, __FILE__, __LINE__,
					   "cpu%d: bad mark '%s'", ev.cpu, m);
			r->bad++;
		}
		last_seq[ev.cpu] = seq;
		r->seen++;
	}
}

static void conc_reader_thread(void *arg)
{
	struct conc_reader *r = arg;

	for (int i = 0; i < SNAPSHOTS; i++) {
		struct trace_snapshot *s;

		sleep_ns(5 * NSEC_PER_MSEC);
		s = trace_snapshot();
		if (!s) {
			ktest_fail(r->t, __FILE__, __LINE__, "no memory");
			break;
		}
		conc_check(r, s);
		trace_snapshot_free(s);
	}
	WRITE_ONCE(r->c->stop, 1);
}

/*
 * A writer on every CPU records seven-record marks as fast as it can
 * while a reader on CPU 0 copies the rings SNAPSHOTS times: every mark
 * it finds is exactly one that was written (never two mixed, never cut),
 * a CPU's marks come in order and its times never go back.
 */
static void concurrent_copies_are_whole(struct ktest *t)
{
	static struct conc c;
	static struct conc_reader r;
	struct sched_attr fifo = { .policy = SCHED_FIFO, .rt_priority = 10 };
	struct task *rt;

	c.stop = 0;
	c.marks = 0;
	r = (struct conc_reader){ .t = t, .c = &c };
	trace_reset();
	/* The reader outranks the writers, so it reads while they write. */
	rt = trace_spawn_on(t, "trace-reader", conc_reader_thread, &r, 0, &fifo);
	KASSERT(t, rt != NULL);
	run_on_each_cpu(t, "trace-writer", 1, conc_writer, &c);
	thread_join(rt);
	printk("# %lu marks written, %lu checked in %d copies, %lu bad\n",
	       c.marks, r.seen, SNAPSHOTS, r.bad);
	KEXPECT(t, r.seen > 0);
	KEXPECT_EQ(t, r.bad, 0);
}

/* ---- The mutex fast paths' records: restartable --------------------- */

/*
 * The arch's restartable records (arch.h) are in the table, and the
 * restart moves exactly the PCs before a record's publishing store back
 * to its start: every PC of the record up to its end, none after, none
 * outside.  Each restart is counted on this CPU.
 */
static void rseq_restart_moves_only_unpublished(struct ktest *t)
{
	extern const struct trace_rseq __trace_rseq_table[],
		__trace_rseq_table_end[];
	const uintptr_t fns[] = { (uintptr_t)arch_trace_mutex_acquire,
				  (uintptr_t)arch_trace_mutex_release };
	unsigned long flags = arch_irq_save();	/* as from an interrupt */
	struct trace_cpu *tc = this_cpu()->trace;
	uint64_t before = tc->restarts, moved = 0;

	KEXPECT_EQ(t, (long)(__trace_rseq_table_end - __trace_rseq_table),
		   (long)ARRAY_SIZE(fns));
	for (unsigned i = 0; i < ARRAY_SIZE(fns); i++) {
		const struct trace_rseq *e = NULL;

		for (const struct trace_rseq *x = __trace_rseq_table;
		     x < __trace_rseq_table_end; x++)
			if (x->start == fns[i])
				e = x;
		if (!e) {
			ktest_fail(t, __FILE__, __LINE__, "record %u (%p) is "
				   "not in the table", i, (void *)fns[i]);
			continue;
		}
		KEXPECT(t, e->end > e->start);
		KEXPECT(t, e->start >= (uintptr_t)__trace_rseq_text &&
			   e->end < (uintptr_t)__trace_rseq_text_end);
		for (uintptr_t pc = e->start; pc <= e->end; pc++) {
			uintptr_t p = pc;

			trace_irq_entry(&p);
			if (pc < e->end) {
				KEXPECT_EQ(t, p, e->start);
				moved++;
			} else {
				KEXPECT_EQ(t, p, pc);	/* published */
			}
		}
	}
	for (uintptr_t pc = (uintptr_t)__trace_rseq_text - 1;
	     pc <= (uintptr_t)__trace_rseq_text_end;
	     pc += (uintptr_t)__trace_rseq_text_end -
		   (uintptr_t)__trace_rseq_text + 1) {
		uintptr_t p = pc;

		trace_irq_entry(&p);
		KEXPECT_EQ(t, p, pc);		/* just outside */
	}
	KEXPECT_EQ(t, tc->restarts - before, moved);
	arch_irq_restore(flags);
}

#define RS_PAIRS_MAX 6000		/* 12000 records: most of a ring */
#define RS_MARKS 200			/* enough interrupts: stop */
#define RS_PERIOD_NS 3000

struct rs {
	struct timer tm;
	struct mutex m;
	volatile int stop;
	volatile unsigned marks;	/* marks the timer recorded */
	unsigned pairs;			/* lock+unlock done */
};

/* Every RS_PERIOD_NS, in interrupt context: a mark of its own. */
static void rs_tick(struct timer *tm)
{
	struct rs *r = tm->data;

	if (READ_ONCE(r->stop))
		return;
	trace_mark("rs irq");
	r->marks++;
	timer_arm(tm, clock_ns() + RS_PERIOD_NS);
}

static void rs_fn(void *arg)
{
	struct rs *r = arg;

	timer_arm(&r->tm, clock_ns() + RS_PERIOD_NS);
	/* A pair per microsecond at most: the host's timers are coarse,
	 * and a fast vCPU would be done before the first few fired. */
	while (r->pairs < RS_PAIRS_MAX && READ_ONCE(r->marks) < RS_MARKS) {
		uint64_t next = clock_ns() + 1000;

		mutex_lock(&r->m);
		mutex_unlock(&r->m);
		r->pairs++;
		while (clock_ns() < next)
			;
	}
	WRITE_ONCE(r->stop, 1);
	timer_cancel(&r->tm);
}

/*
 * Uncontended lock+unlock (the restartable records) while a timer on
 * the same CPU records a mark every 3 us, until it has recorded
 * RS_MARKS or RS_PAIRS_MAX pairs are done: every record is
 * there once, whole and in order (acquire, release, acquire...), every
 * mark too.  QEMU delivers interrupts between its translation blocks,
 * so the interrupts land at the records' starts and at the block
 * boundaries inside them (after the name's branch; after the clock
 * read under -icount); rseq_restart_moves_only_unpublished covers
 * every other PC.
 */
static void fast_records_whole_under_interrupts(struct ktest *t)
{
	static struct trace_event ev;
	static struct rs r;
	char acq[96], rel[96], who[32];
	unsigned nacq = 0, nrel = 0, nmark = 0, bad = 0;
	uint64_t restarts = 0;
	struct trace_snapshot *s;
	int cpu = trace_test_cpu(), tid;
	struct task *p;

	mutex_init(&r.m, "trace-rs");
	KEXPECT(t, r.m.trace_name != NULL);	/* a literal: kept */
	timer_init(&r.tm, rs_tick, &r);
	r.stop = 0;
	r.marks = 0;
	r.pairs = 0;
	for (int i = 0; i < ncpus; i++)
		restarts -= trace_cpus[i].restarts;
	trace_reset();
	p = trace_spawn_on(t, "trace-rs", rs_fn, &r, cpu, NULL);
	KASSERT(t, p != NULL);
	tid = p->tid;
	thread_join(p);
	for (int i = 0; i < ncpus; i++)
		restarts += trace_cpus[i].restarts;
	snprintf(who, sizeof(who), "trace-rs#%d", tid);
	snprintf(acq, sizeof(acq), "acquire task=%s mutex=trace-rs how=fast",
		 who);
	snprintf(rel, sizeof(rel), "release task=%s mutex=trace-rs wake=none",
		 who);
	s = trace_snapshot();
	KASSERT(t, s != NULL);
	KEXPECT_EQ(t, trace_snapshot_lost(s, cpu), 0);
	while (trace_snapshot_next(s, &ev)) {
		if (ev.cpu != cpu)
			continue;
		if (strstr(ev.line, "text=rs irq")) {
			nmark++;
		} else if (strcmp(ev.line, acq) == 0) {
			bad += nacq != nrel;	/* two acquires in a row */
			nacq++;
		} else if (strcmp(ev.line, rel) == 0) {
			bad += nrel + 1 != nacq;
			nrel++;
		} else if (strstr(ev.line, "trace-rs") &&
			   (strncmp(ev.line, "acquire", 7) == 0 ||
			    strncmp(ev.line, "release", 7) == 0)) {
			printk("# unexpected: %s\n", ev.line);
			bad++;
		}
	}
	trace_snapshot_free(s);
	printk("# %u of %u pairs, %u of %u marks; %llu restarts\n",
	       nacq, r.pairs, nmark, r.marks, (unsigned long long)restarts);
	KEXPECT_EQ(t, nacq, r.pairs);
	KEXPECT_EQ(t, nrel, r.pairs);
	KEXPECT_EQ(t, nmark, r.marks);
	KEXPECT(t, r.marks > 0);
	KEXPECT_EQ(t, bad, 0);
}

/* A mutex whose name is not in the image: the fast paths copy it (the
 * C record), and the name prints after its buffer is gone. */
static void fast_records_copy_other_names(struct ktest *t)
{
	static struct mutex m;
	char *name = kmalloc(16);
	struct task *self = current();
	char want[96];

	KASSERT(t, name != NULL);
	memcpy(name, "trace-heap", sizeof("trace-heap"));
	mutex_init(&m, name);
	KEXPECT(t, m.trace_name == NULL);
	trace_reset();
	mutex_lock(&m);
	mutex_unlock(&m);
	memset(name, 'x', 11);
	kfree(name);
	snprintf(want, sizeof(want), "acquire task=%s#%d mutex=trace-heap "
		 "how=fast", self->name, self->tid);
	KEXPECT_EQ(t, trace_count_events(want, -1), 1);
	snprintf(want, sizeof(want), "release task=%s#%d mutex=trace-heap "
		 "wake=none", self->name, self->tid);
	KEXPECT_EQ(t, trace_count_events(want, -1), 1);
}

static struct ktest_case trace_cases[] = {
	KTEST_CASE(sequence_proxy),
	KTEST_CASE(sequence_inherit),
	KTEST_CASE(names_survive_free),
	KTEST_CASE(names_slot_taken),
	KTEST_CASE(ring_overwrite_counts_lost),
	KTEST_CASE_TIMEOUT(concurrent_copies_are_whole, 60000),
	KTEST_CASE(rseq_restart_moves_only_unpublished),
	KTEST_CASE(fast_records_whole_under_interrupts),
	KTEST_CASE(fast_records_copy_other_names),
	KTEST_CASE(off_records_nothing),
	KTEST_CASE(off_waits_for_events_in_progress),
	KTEST_CASE(reset_forgets),
	KTEST_CASE(untraced_sleeps_leave_no_events),
	{ 0 },
};
KTEST_SUITE(trace, trace_cases);
