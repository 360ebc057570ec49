/*
 * trace_read.c - reading the scheduler trace: copy every CPU's ring
 * while they keep recording, merge the copies by timestamp, format each
 * event as a line of docs/trace.md, and the dump (`trace` in the shell).
 *
 * The copy takes no lock and stops nobody: a record is kept only if its
 * sequence number says it was whole before and after it was copied
 * (trace_ring.h), and an event only if its head and every continuation
 * were kept.  Printing thousands of lines then happens from the copy,
 * with every CPU running (and recording) as usual.
 */
#include "trace_ring.h"
#include "console.h"
#include "mm.h"
#include "mutex.h"
#include <printf.h>
#include <string.h>

#define COPY_ORDER 7			/* one ring's worth of pages */

struct trace_snapshot {
	int ncpus;
	struct snap_cpu {
		struct trace_rec *rec;	/* records in position order */
		unsigned n;		/* how many */
		unsigned cur;		/* the merge's cursor */
		uint64_t events;	/* whole events among them */
		uint64_t lost;
	} cpu[NR_CPUS];
};

/* Copy @tc's records of this epoch into @sc; drop torn ones. */
static void copy_cpu(struct trace_cpu *tc, struct snap_cpu *sc)
{
	uint64_t head, start, first;

	sc->n = 0;
	if (smp_load_acquire(&tc->epoch) != READ_ONCE(trace_epoch))
		return;			/* nothing recorded since the reset */
	start = READ_ONCE(tc->start);
	head = smp_load_acquire(&tc->head);
	first = head - start > TRACE_RING ? head - TRACE_RING : start;
	for (uint64_t pos = first; pos != head; pos++) {
		struct trace_rec *r = &tc->ring[pos & TRACE_RING_MASK];
		struct trace_rec *d = &sc->rec[sc->n++];
		uint32_t s1 = __atomic_load_n(&r->seq, __ATOMIC_ACQUIRE);

		memcpy(d, r, sizeof(*d));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (s1 != trace_seq(pos) || READ_ONCE(r->seq) != s1)
			d->type = TRACE_NONE;
	}
	/* Overwrites during the copy were counted by the writer. */
	sc->lost = READ_ONCE(tc->lost);
}

/* Keep whole events only: a head whose continuations all survived.
 * Continuations whose head was overwritten are skipped silently (the
 * writer counted that event lost). */
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

void trace_snapshot_free(struct trace_snapshot *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->ncpus; i++)
		if (s->cpu[i].rec)
			page_free((uintptr_t)s->cpu[i].rec, COPY_ORDER);
	kfree(s);
}

struct trace_snapshot *trace_snapshot(void)
{
	struct trace_snapshot *s = kmalloc(sizeof(*s));

	if (!s)
		return NULL;
	s->ncpus = ncpus;
	for (int i = 0; i < s->ncpus; i++) {
		struct snap_cpu *sc = &s->cpu[i];

		sc->rec = (struct trace_rec *)page_alloc(COPY_ORDER);
		if (!sc->rec) {
			trace_snapshot_free(s);
			return NULL;
		}
		sc->n = sc->cur = 0;
		sc->events = sc->lost = 0;
		if (trace_cpus[i].ring) {
			copy_cpu(&trace_cpus[i], sc);
			validate_cpu(sc);
		}
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

static void put_task(struct line *l, const char *key,
		     const struct trace_name *n)
{
	put_s(l, key);
	if (n->t.tid < 0) {
		put_s(l, "none");
		return;
	}
	put_name(l, n->t.name, TRACE_TASK_NAME);
	put_f(l, "#%d", n->t.tid);
}

static void put_mutex(struct line *l, const char *key,
		      const struct trace_name *n)
{
	put_s(l, key);
	put_name(l, n->m, TRACE_MUTEX_NAME);
}

static const char *const type_names[TRACE_NR_TYPES] = {
	[TRACE_SWITCH] = "switch", [TRACE_WAKEUP] = "wakeup",
	[TRACE_MIGRATE] = "migrate", [TRACE_BLOCK] = "block",
	[TRACE_ACQUIRE] = "acquire", [TRACE_RELEASE] = "release",
	[TRACE_HANDOFF] = "handoff", [TRACE_PROXY] = "proxy",
	[TRACE_THROTTLE] = "throttle", [TRACE_REPLENISH] = "replenish",
	[TRACE_DL_MISS] = "dl_miss", [TRACE_MARK] = "mark",
	[TRACE_GIVEUP] = "giveup",
};

static const char *pick(const char *const *names, unsigned n, unsigned i)
{
	return i < n && names[i] ? names[i] : "?";
}

static const char *const state_names[] = { "run", "sleep", "blocked", "dead" };
static const char *const why_names[] = {
	"wake", "balance", "push", "pull", "chain", "affinity" };
static const char *const how_names[] = { "fast", "spin", "wait", "handoff" };

static void format_proxy(struct line *l, const struct trace_rec *r)
{
	unsigned nelem = r->arg;
	const struct trace_name *last = &r[(nelem - 1) / 3].n[(nelem - 1) % 3];

	put_task(l, " donor=", &r->n[0]);
	put_task(l, " curr=", last);
	put_s(l, " chain=");
	for (unsigned i = 0; i < nelem; i++) {
		const struct trace_name *n = &r[i / 3].n[i % 3];

		if (i + 1 == nelem && r->arg2)
			put_s(l, ">...");
		if (i)
			put_c(l, '>');
		if (i % 2)
			put_mutex(l, "", n);
		else
			put_task(l, "", n);
	}
}

static void format_mark(struct line *l, const struct trace_rec *r)
{
	char text[TRACE_MARK_MAX];
	size_t len = sizeof(r->mk.text);

	memcpy(text, r->mk.text, sizeof(r->mk.text));
	for (unsigned k = 1; k <= r->ncont; k++) {
		memcpy(text + len, r[k].text, sizeof(r->text));
		len += sizeof(r->text);
	}
	put_task(l, " task=", &r->mk.task);
	put_s(l, " text=");
	/* To the end of the line: spaces stay, control bytes do not. */
	for (size_t i = 0; i < len && text[i]; i++)
		put_c(l, text[i] < ' ' || text[i] > '~' ? '_' : text[i]);
}

/* Event @r (its continuations follow it) as "<event> key=value...". */
static void format_event(struct line *l, const struct trace_rec *r)
{
	put_s(l, pick(type_names, TRACE_NR_TYPES, r->type));
	switch (r->type) {
	case TRACE_SWITCH:
		put_task(l, " prev=", &r->n[0]);
		put_task(l, " next=", &r->n[1]);
		put_task(l, " donor=", &r->n[2]);
		put_f(l, " state=%s", pick(state_names, 4, r->arg));
		break;
	case TRACE_WAKEUP:
		put_task(l, " task=", &r->tv.task);
		put_f(l, " cpu=%llu", (unsigned long long)r->tv.v[0]);
		break;
	case TRACE_MIGRATE:
		put_task(l, " task=", &r->tv.task);
		put_f(l, " from=%llu to=%llu why=%s",
		      (unsigned long long)r->tv.v[0],
		      (unsigned long long)r->tv.v[1],
		      pick(why_names, ARRAY_SIZE(why_names), r->arg));
		break;
	case TRACE_BLOCK:
		put_task(l, " task=", &r->n[0]);
		put_mutex(l, " mutex=", &r->n[1]);
		put_task(l, " owner=", &r->n[2]);
		break;
	case TRACE_ACQUIRE:
		put_task(l, " task=", &r->n[0]);
		put_mutex(l, " mutex=", &r->n[1]);
		put_f(l, " how=%s", pick(how_names, ARRAY_SIZE(how_names),
					 r->arg));
		break;
	case TRACE_RELEASE:
		put_task(l, " task=", &r->n[0]);
		put_mutex(l, " mutex=", &r->n[1]);
		put_task(l, " wake=", &r->n[2]);
		break;
	case TRACE_HANDOFF:
		put_task(l, " from=", &r->n[0]);
		put_task(l, " to=", &r->n[2]);
		put_mutex(l, " mutex=", &r->n[1]);
		break;
	case TRACE_PROXY:
		format_proxy(l, r);
		break;
	case TRACE_THROTTLE:
		put_task(l, " task=", &r->tv.task);
		break;
	case TRACE_REPLENISH:
		put_task(l, " task=", &r->tv.task);
		put_f(l, " deadline=%llu", (unsigned long long)r->tv.v[0]);
		break;
	case TRACE_DL_MISS:
		put_task(l, " task=", &r->tv.task);
		put_f(l, " deadline=%llu late=%llu",
		      (unsigned long long)r->tv.v[0],
		      (unsigned long long)r->tv.v[1]);
		break;
	case TRACE_MARK:
		format_mark(l, r);
		break;
	case TRACE_GIVEUP:
		put_task(l, " task=", &r->n[0]);
		put_mutex(l, " mutex=", &r->n[1]);
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
	ev->ts = best->ts;
	ev->cpu = best_cpu;
	ev->type = best->type;
	ev->line[0] = '\0';
	format_event(&l, best);
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
