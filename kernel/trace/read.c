/*
 * read.c - reading the scheduler trace: copy every CPU's ring
 * while they keep recording, merge the copies by timestamp, format each
 * event as a line of docs/trace.md, and the dump (`trace` in the shell).
 *
 * The copy takes no lock and stops nobody: a record is kept only if no
 * rewrite of it had been announced when it was copied (trace/ring.h),
 * and an event only if its head and every continuation were kept.
 * Printing thousands of lines then happens from the copy, with every
 * CPU running (and recording) as usual.
 *
 * Records hold tids: a name comes from trace_names[] (the entry of that
 * tid), else from the live tasks seen when the copy was taken (a task
 * whose entry a later task took), else it prints as "?".
 */
#include "ring.h"
#include "console.h"
#include "mm.h"
#include "mutex.h"
#include <printf.h>
#include <string.h>

#define COPY_ORDER 7			/* one ring's worth of pages */
#define ALIVE_MAX 256			/* live tasks named past the table */

/* A live task whose trace_names[] entry another task has taken. */
struct snap_name {
	int32_t tid;
	char name[TASK_NAME_LEN];
};

struct trace_snapshot {
	int ncpus;
	unsigned nalive;
	struct snap_name *alive;	/* ALIVE_MAX, or NULL */
	struct snap_cpu {
		struct trace_rec *rec;	/* records in position order */
		unsigned n;		/* how many */
		unsigned cur;		/* the merge's cursor */
		uint64_t events;	/* whole events among them */
		uint64_t lost;
	} cpu[NR_CPUS];
};

/* Keep whole events only: a head whose continuations all survived.
 * Continuations whose head was overwritten are skipped silently (that
 * event is one of the lost). */
static void validate_cpu(struct snap_cpu *sc)
{
	sc->events = 0;
	for (unsigned i = 0; i < sc->n; i++) {
		struct trace_rec *r = &sc->rec[i];
		bool whole = r->type != TRACE_NONE && r->type != TRACE_CONT &&
			     r->type < TRACE_NR_TYPES &&
			     i + r->ncont < sc->n;

		for (unsigned k = 1; whole && k <= r->ncont; k++)
			whole = sc->rec[i + k].type == TRACE_CONT;
		if (whole) {
			sc->events++;
			i += r->ncont;
		} else if (r->type != TRACE_CONT) {
			r->type = TRACE_NONE;
		}
	}
}

/* Copy @tc's records since its last reset into @sc, dropping those that were
 * being rewritten (trace/ring.h); keep whole events only and count the
 * others lost. */
static void copy_cpu(struct trace_cpu *tc, struct snap_cpu *sc)
{
	uint64_t head, start, first, oldest, recorded;

	sc->n = 0;
	sc->events = sc->lost = 0;
	recorded = trace_cpu_count(tc, &head, &start);
	first = head - start > TRACE_RING ? head - TRACE_RING : start;
	for (uint64_t pos = first; pos != head; pos++)
		memcpy(&sc->rec[sc->n++], &tc->ring[pos & TRACE_RING_MASK],
		       sizeof(struct trace_rec));
	__atomic_thread_fence(__ATOMIC_ACQUIRE);	/* smp_rmb */
	oldest = READ_ONCE(tc->reserve) - TRACE_RING;
	for (uint64_t pos = first; pos != head && (int64_t)(pos - oldest) < 0;
	     pos++)
		sc->rec[pos - first].type = TRACE_NONE;
	validate_cpu(sc);
	sc->lost = recorded > sc->events ? recorded - sc->events : 0;
}

void trace_snapshot_free(struct trace_snapshot *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->ncpus; i++)
		if (s->cpu[i].rec)
			page_free((uintptr_t)s->cpu[i].rec, COPY_ORDER);
	kfree(s->alive);
	kfree(s);
}

/* for_each_task() callback (tasks_lock held): keep the name of a live
 * task that the name table no longer has. */
static void note_alive(struct task *t, void *arg)
{
	struct trace_snapshot *s = arg;
	const struct trace_tname *e = &trace_names[t->tid & (TRACE_NAMES - 1)];
	struct snap_name *n;

	if (READ_ONCE(e->tid) == t->tid || s->nalive == ALIVE_MAX)
		return;
	n = &s->alive[s->nalive++];
	n->tid = t->tid;
	memcpy(n->name, t->name, TASK_NAME_LEN);
	n->name[TASK_NAME_LEN - 1] = '\0';
}

struct trace_snapshot *trace_snapshot(void)
{
	struct trace_snapshot *s = kmalloc(sizeof(*s));

	if (!s)
		return NULL;
	s->ncpus = ncpus;
	s->nalive = 0;
	s->alive = kmalloc(ALIVE_MAX * sizeof(*s->alive));
	for (int i = 0; i < s->ncpus; i++)
		s->cpu[i].rec = NULL;
	if (!s->alive) {
		trace_snapshot_free(s);
		return NULL;
	}
	for_each_task(note_alive, s);
	for (int i = 0; i < s->ncpus; i++) {
		struct snap_cpu *sc = &s->cpu[i];

		sc->rec = (struct trace_rec *)page_alloc(COPY_ORDER);
		if (!sc->rec) {
			trace_snapshot_free(s);
			return NULL;
		}
		sc->n = sc->cur = 0;
		sc->events = sc->lost = 0;
		if (trace_cpus[i].ring)
			copy_cpu(&trace_cpus[i], sc);
	}
	return s;
}

uint64_t trace_snapshot_events(const struct trace_snapshot *s, int cpu)
{
	uint64_t n = 0;

	for (int i = 0; i < s->ncpus; i++)
		if (cpu < 0 || cpu == i)
			n += s->cpu[i].events;
	return n;
}

uint64_t trace_snapshot_lost(const struct trace_snapshot *s, int cpu)
{
	uint64_t n = 0;

	for (int i = 0; i < s->ncpus; i++)
		if (cpu < 0 || cpu == i)
			n += s->cpu[i].lost;
	return n;
}

/* ---- Formatting -------------------------------------------------------- */

/* A line being built; overflow is cut, never written past the end. */
struct line {
	char *buf;
	size_t len, cap;
};

static void put_c(struct line *l, char c)
{
	if (l->len + 1 < l->cap)
		l->buf[l->len++] = c;
	l->buf[l->len] = '\0';
}

static void put_s(struct line *l, const char *s)
{
	while (*s)
		put_c(l, *s++);
}

static __printf(2, 3) void put_f(struct line *l, const char *fmt, ...)
{
	char tmp[48];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	put_s(l, tmp);
}

/* A name as docs/trace.md wants it: space, '=', '#', '>' (the chain's
 * separator) and anything unprintable become '_'. */
static void put_name(struct line *l, const char *s, size_t max)
{
	for (size_t i = 0; i < max && s[i]; i++) {
		char c = s[i];

		put_c(l, c <= ' ' || c > '~' || c == '=' || c == '#' ||
			 c == '>' ? '_' : c);
	}
}

/*
 * The name of task @tid into @buf (TASK_NAME_LEN): its name-table
 * entry, read like a record (the same even seq before and after the
 * copy); else a live task's, noted with the copy; else "?".
 */
static void task_name(const struct trace_snapshot *s, int32_t tid,
		      char *buf)
{
	const struct trace_tname *e = &trace_names[tid & (TRACE_NAMES - 1)];

	for (int tries = 0; tries < 8; tries++) {
		uint32_t s1 = smp_load_acquire(&e->seq);

		if (s1 == 0)
			break;			/* never written */
		if (s1 & 1)
			continue;		/* being written */
		memcpy(buf, e->name, TASK_NAME_LEN);
		if (READ_ONCE(e->tid) != tid)
			break;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (READ_ONCE(e->seq) == s1) {
			buf[TASK_NAME_LEN - 1] = '\0';
			return;
		}
	}
	for (unsigned i = 0; i < s->nalive; i++)
		if (s->alive[i].tid == tid) {
			memcpy(buf, s->alive[i].name, TASK_NAME_LEN);
			return;
		}
	strlcpy(buf, "?", TASK_NAME_LEN);
}

static void put_task(struct line *l, const struct trace_snapshot *s,
		     const char *key, int32_t tid)
{
	char name[TASK_NAME_LEN];

	put_s(l, key);
	if (tid < 0) {
		put_s(l, "none");
		return;
	}
	task_name(s, tid, name);
	put_name(l, name, TASK_NAME_LEN);
	put_f(l, "#%d", tid);
}

extern const char __rodata_start[], __rodata_end[];

/* A mutex name: @p (a string in the image's rodata, checked again), or
 * when @p is NULL the copy in continuation @c. */
static void put_mutex(struct line *l, const char *key, const char *p,
		      const struct trace_rec *c)
{
	put_s(l, key);
	if (!p && c) {
		put_name(l, c->text, TRACE_MUTEX_NAME);
		return;
	}
	if (!p || p < __rodata_start || p >= __rodata_end)
		p = "?";
	put_name(l, p, __rodata_end - p);
}

/* Continuation @c as a proxy chain element. */
static void put_elem(struct line *l, const struct trace_snapshot *s,
		     const struct trace_rec *c)
{
	if (c->arg == TRACE_EL_TASK)
		put_task(l, s, "", c->tid[0]);
	else if (c->arg == TRACE_EL_MPTR)
		put_mutex(l, "", c->mptr, c);
	else
		put_mutex(l, "", NULL, c);
}

static const char *const type_names[TRACE_NR_TYPES] = {
	[TRACE_SWITCH] = "switch", [TRACE_WAKEUP] = "wakeup",
	[TRACE_MIGRATE] = "migrate", [TRACE_BLOCK] = "block",
	[TRACE_ACQUIRE] = "acquire", [TRACE_RELEASE] = "release",
	[TRACE_HANDOFF] = "handoff", [TRACE_PROXY] = "proxy",
	[TRACE_THROTTLE] = "throttle", [TRACE_REPLENISH] = "replenish",
	[TRACE_DL_MISS] = "dl_miss", [TRACE_MARK] = "mark",
	[TRACE_GIVEUP] = "giveup", [TRACE_ATTR] = "attr",
};

static const char *pick(const char *const *names, unsigned n, unsigned i)
{
	return i < n && names[i] ? names[i] : "?";
}

static const char *const state_names[] = { "run", "sleep", "blocked", "dead" };
static const char *const why_names[] = {
	"wake", "balance", "push", "pull", "chain", "affinity" };
static const char *const how_names[] = { "fast", "spin", "wait", "handoff" };
static const char *const attr_why_names[] = {
	"setattr", "boost", "unboost", "now" };

/* A class name kept as a pointer (checked to be in rodata again) and its
 * kernel priority as a user gives it: RT 1..99, fair the nice value,
 * deadline 0 (EDF has no priority); other classes as they are. */
static void put_class_prio(struct line *l, const char *cls, int32_t prio,
			   const char *sep)
{
	if (!cls || cls < __rodata_start || cls >= __rodata_end)
		cls = "?";
	put_name(l, cls, __rodata_end - cls);
	if (!strcmp(cls, "rt"))
		prio = MAX_RT_PRIO - 1 - prio;
	else if (!strcmp(cls, "fair"))
		prio -= NICE_TO_PRIO(0);
	else if (!strcmp(cls, "deadline"))
		prio = 0;
	put_f(l, "%s%d", sep, prio);
}

/* attr: the new class and prio in the head, the old in @c. */
static void format_attr(struct line *l, const struct trace_snapshot *s,
			const struct trace_rec *r, const struct trace_rec *c)
{
	const char *old_cls;
	int32_t old_prio;

	__builtin_memcpy(&old_cls, c->text, sizeof(old_cls));
	__builtin_memcpy(&old_prio, c->text + 8, sizeof(old_prio));
	put_task(l, s, " task=", r->tv.tid);
	put_s(l, " class=");
	put_class_prio(l, (const char *)(uintptr_t)r->tv.v64,
		       (int32_t)r->tv.v32, " prio=");
	put_s(l, " was=");
	put_class_prio(l, old_cls, old_prio, "/");
	put_f(l, " why=%s", pick(attr_why_names, ARRAY_SIZE(attr_why_names),
				  r->arg));
}

/* Continuations: one element each, donor first, the task that runs
 * last; arg2: hops were cut before that one. */
static void format_proxy(struct line *l, const struct trace_snapshot *s,
			 const struct trace_rec *r)
{
	unsigned nelem = r->arg;

	put_task(l, s, " donor=", r[1].tid[0]);
	put_task(l, s, " curr=", r[nelem].tid[0]);
	put_s(l, " chain=");
	for (unsigned i = 0; i < nelem; i++) {
		if (i + 1 == nelem && r->arg2)
			put_s(l, ">...");
		if (i)
			put_c(l, '>');
		put_elem(l, s, &r[1 + i]);
	}
}

static void format_mark(struct line *l, const struct trace_snapshot *s,
			const struct trace_rec *r)
{
	char text[TRACE_MARK_MAX + 16];
	size_t len = sizeof(r->mk.text);

	memcpy(text, r->mk.text, sizeof(r->mk.text));
	for (unsigned k = 1; k <= r->ncont && len < TRACE_MARK_MAX; k++) {
		memcpy(text + len, r[k].text, sizeof(r->text));
		len += sizeof(r->text);
	}
	put_task(l, s, " task=", r->mk.tid);
	put_s(l, " text=");
	/* To the end of the line: spaces stay, control bytes do not. */
	for (size_t i = 0; i < len && text[i]; i++)
		put_c(l, text[i] < ' ' || text[i] > '~' ? '_' : text[i]);
}

/* Event @r (its continuations follow it) as "<event> key=value...". */
static void format_event(struct line *l, const struct trace_snapshot *s,
			 const struct trace_rec *r)
{
	const char *mname = r->tm.mname;	/* mutex events */
	const struct trace_rec *cont = r->ncont ? &r[1] : NULL;

	put_s(l, pick(type_names, TRACE_NR_TYPES, r->type));
	switch (r->type) {
	case TRACE_SWITCH:
		put_task(l, s, " prev=", r->tid[0]);
		put_task(l, s, " next=", r->tid[1]);
		put_task(l, s, " donor=", r->tid[2]);
		put_f(l, " state=%s", pick(state_names, 4, r->arg));
		break;
	case TRACE_WAKEUP:
		put_task(l, s, " task=", r->tv.tid);
		put_f(l, " cpu=%u", r->tv.v32);
		break;
	case TRACE_MIGRATE:
		put_task(l, s, " task=", r->tv.tid);
		put_f(l, " from=%u to=%llu why=%s", r->tv.v32,
		      (unsigned long long)r->tv.v64,
		      pick(why_names, ARRAY_SIZE(why_names), r->arg));
		break;
	case TRACE_BLOCK:
		put_task(l, s, " task=", r->tm.tid[0]);
		put_mutex(l, " mutex=", mname, cont);
		put_task(l, s, " owner=", r->tm.tid[1]);
		break;
	case TRACE_ACQUIRE:
		put_task(l, s, " task=", r->tm.tid[0]);
		put_mutex(l, " mutex=", mname, cont);
		put_f(l, " how=%s", pick(how_names, ARRAY_SIZE(how_names),
					 r->arg));
		break;
	case TRACE_RELEASE:
		put_task(l, s, " task=", r->tm.tid[0]);
		put_mutex(l, " mutex=", mname, cont);
		put_task(l, s, " wake=", r->tm.tid[1]);
		break;
	case TRACE_HANDOFF:
		put_task(l, s, " from=", r->tm.tid[0]);
		put_task(l, s, " to=", r->tm.tid[1]);
		put_mutex(l, " mutex=", mname, cont);
		break;
	case TRACE_PROXY:
		format_proxy(l, s, r);
		break;
	case TRACE_THROTTLE:
		put_task(l, s, " task=", r->tv.tid);
		break;
	case TRACE_REPLENISH:
		put_task(l, s, " task=", r->tv.tid);
		put_f(l, " deadline=%llu", (unsigned long long)r->tv.v64);
		break;
	case TRACE_DL_MISS:
		put_task(l, s, " task=", r->tv.tid);
		put_f(l, " deadline=%llu late=%llu",
		      (unsigned long long)r->tv.v64,
		      (unsigned long long)r[1].u64);
		break;
	case TRACE_MARK:
		format_mark(l, s, r);
		break;
	case TRACE_ATTR:
		format_attr(l, s, r, cont);
		break;
	case TRACE_GIVEUP:
		put_task(l, s, " task=", r->tm.tid[0]);
		put_mutex(l, " mutex=", mname, cont);
		put_s(l, r->arg == ETIMEDOUT ? " why=timeout" :
			 r->arg == EDEADLK ? " why=backoff" : " why=error");
		break;
	}
}

/* ---- Merging ----------------------------------------------------------- */

/* Move @sc's cursor to its next whole event, if any. */
static struct trace_rec *cursor(struct snap_cpu *sc)
{
	while (sc->cur < sc->n) {
		struct trace_rec *r = &sc->rec[sc->cur];

		if (r->type != TRACE_NONE && r->type != TRACE_CONT)
			return r;
		sc->cur++;
	}
	return NULL;
}

bool trace_snapshot_next(struct trace_snapshot *s, struct trace_event *ev)
{
	struct trace_rec *best = NULL;
	int best_cpu = -1;
	struct line l = { ev->line, 0, sizeof(ev->line) };

	/* The earliest head; on a tie the lower CPU (each CPU's own order
	 * is kept by its cursor). */
	for (int i = 0; i < s->ncpus; i++) {
		struct trace_rec *r = cursor(&s->cpu[i]);

		if (r && (!best || r->ts < best->ts)) {
			best = r;
			best_cpu = i;
		}
	}
	if (!best)
		return false;
	s->cpu[best_cpu].cur += 1 + best->ncont;
	ev->ts = arch_clock_raw_ns(best->ts);
	ev->cpu = best_cpu;
	ev->type = best->type;
	ev->line[0] = '\0';
	format_event(&l, s, best);
	return true;
}

/* ---- The dump ---------------------------------------------------------- */

static void write_line(const char *fmt, ...) __printf(1, 2);
static void write_line(const char *fmt, ...)
{
	char buf[TRACE_LINE_MAX + 48];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	console_write(buf, n);
}

int trace_dump(void)
{
	static DEFINE_MUTEX(trace_dump_lock);	/* one dump at a time */
	static struct trace_event ev;		/* under trace_dump_lock */
	struct trace_snapshot *s;

	mutex_lock(&trace_dump_lock);
	s = trace_snapshot();
	if (!s) {
		mutex_unlock(&trace_dump_lock);
		write_line("trace: error: no memory to copy the trace for "
			   "the dump");
		return -ENOMEM;
	}
	write_line("trace begin cpus=%d events=%llu lost=%llu", s->ncpus,
		   (unsigned long long)trace_snapshot_events(s, -1),
		   (unsigned long long)trace_snapshot_lost(s, -1));
	while (trace_snapshot_next(s, &ev))
		write_line("%llu %d %s", (unsigned long long)ev.ts, ev.cpu,
			   ev.line);
	write_line("trace end");
	trace_snapshot_free(s);
	mutex_unlock(&trace_dump_lock);
	return 0;
}

int trace_save(void)
{
	int err = trace_dump();

	if (!err)
		trace_reset();
	return err;
}
