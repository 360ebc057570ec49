/*
 * verify_report.c - the real-time invariant checker's reports (verify.c
 * finds the misses): what each CPU ran and had queued when a window
 * outlived its bound, written while the sample still holds every
 * runqueue lock, and printed later with the trace of the window.
 */
#include "verify.h"
#include "trace.h"
#include "string.h"
#include <printf.h>

/* ---- Reports ------------------------------------------------------------ */

#define OUT(...) (len += len < SV_REPORT_LEN ? \
	snprintf(r->text + len, SV_REPORT_LEN - len, __VA_ARGS__) : 0)

/*
 * The RT class's count against the RT tasks on the runqueue's list: they
 * must agree (a CPU whose count is short is left out of the overload
 * mask, and no pull sees its waiting task).  Said only when they do not.
 */
static size_t describe_rt_count(struct report *r, size_t len, struct rq *rq)
{
	unsigned n = 0;
	struct list_head *pos;

	list_for_each(pos, &rq->tasks)
		n += list_entry(pos, struct task, rq_node)->sched_class ==
		     &rt_sched_class;
	if (n != rq->rt.rt_nr_running)
		OUT(" RT COUNT %u BUT %u RT TASKS QUEUED", rq->rt.rt_nr_running,
		    n);
	return len;
}

static size_t describe_task(struct report *r, size_t len, struct task *p)
{
	struct rank k = task_rank(p);

	OUT("%s (%s", p->name, rank_name(k));
	if (k.cls == RANK_RT)
		OUT(" prio %d", p->prio);
	else if (k.cls == RANK_DL)
		OUT(" deadline %llu", (unsigned long long)k.key);
	else if (p->sched_class == &dl_sched_class)
		OUT(p->dl.dl_throttled ? ", throttled deadline" :
		    ", deadline, not queued in its class");
	else
		OUT(" %s", p->sched_class->name);
	return OUT(")");
}

/* Before another item of a list: its heading on a new line, or a
 * separator, or a new line (indented) once the line is long: printk
 * cuts lines at LINE_MAX.  @line0: where the current line began. */
static size_t wrap(struct report *r, size_t len, size_t *line0,
		   const char *heading)
{
	if (len == *line0) {
		OUT("%s ", heading);
	} else if (len - *line0 > 150) {
		OUT("\n    ");
		*line0 = len - 4;
	} else {
		OUT(", ");
	}
	return len;
}

/* CPU @c's queued RT and deadline contexts (not its donor or curr), as
 * push, pull and the pick see them: each with its chain's next hop and
 * where the checker lets it run. */
static size_t describe_queued(struct report *r, size_t len, int c)
{
	struct rq *rq = cpu_rq(c);
	struct list_head *pos;
	size_t line0 = len;

	list_for_each(pos, &rq->tasks) {
		struct task *w = list_entry(pos, struct task, rq_node);
		struct mutex *m = READ_ONCE(w->blocked_on);
		struct task *o;

		if (w == rq->donor || w == rq->curr ||
		    (w->sched_class != &rt_sched_class &&
		     w->sched_class != &dl_sched_class))
			continue;
		len = wrap(r, len, &line0, "  queued:");
		len = describe_task(r, len, w);
		if (m == PROXY_WAKING)
			OUT(" waking");
		else if (m)
			OUT(" on %s of %s", m->name,
			    (o = mutex_owner(m)) ? o->name : "nobody");
		if (w->wake_cpu >= 0)
			OUT(" lent from cpu%d", w->wake_cpu);
		OUT(" may run %#llx", (unsigned long long)where_may_run(w));
	}
	if (len != line0)
		OUT("\n");
	return len;
}

/* Write the picture for a miss of @win (queued on @src).  Every line
 * ends in '\n'; sched_verify_print_miss adds the prefixes.  All rq
 * locks held. */
void write_report(struct report *r, struct window *win, uint64_t now,
			 const struct rank *donor)
{
	int src = win->src;
	size_t len = 0;

	OUT("MISS #%llu: ", (unsigned long long)r->seq);
	len = describe_task(r, len, win->w);
	OUT(" %s", r->tag);
	OUT(" affinity %#llx state %d on_cpu %d wake_cpu %d level %d blocked_on %s",
	    (unsigned long long)win->w->cpus_allowed, win->w->state,
	    win->w->on_cpu, win->w->wake_cpu, win->w->rt.level,
	    !win->w->blocked_on ? "-" : win->w->blocked_on == PROXY_WAKING ?
	    "waking" : win->w->blocked_on->name);
	OUT(" queued on cpu%d waits while cpu%d runs lower;\nat %llu window open "
	    "%llu us (moved %u times), %llu ticks on cpu%d since it came, "
	    "%llu on cpu%d since it became the target\n", src, win->target,
	    (unsigned long long)now,
	    (unsigned long long)((now - win->start_ns) / NSEC_PER_USEC),
	    win->moves,
	    (unsigned long long)(cpu_rq(src)->nr_preempt_ticks - win->src_ticks0), src,
	    (unsigned long long)(cpu_rq(win->target)->nr_preempt_ticks -
				 win->target_ticks0), win->target);
	OUT("seen in %u of %llu samples since it opened (%llu more given up); "
	    "first seen %lld us after its start (woken %lld, its target's "
	    "pick %lld, the sample before %lld us before that)\n",
	    win->nseen, (unsigned long long)(sv.st.samples - win->samples0 + 1),
	    (unsigned long long)(sv.st.busy - win->busy0),
	    (long long)(win->open_ns - win->start_ns) / 1000,
	    (long long)(win->open_ns - win->open_ready_ns) / 1000,
	    (long long)(win->open_ns - win->open_pick_ns) / 1000,
	    (long long)(win->open_ns - win->open_prev_ns) / 1000);
	OUT("when it opened: target cpu%d (donor #%d, %s %llu), chain ended at "
	    "#%d on cpu%d, may run %#llx\n", win->open_target,
	    win->open_tdonor_tid, rank_name(win->open_tdonor),
	    (unsigned long long)win->open_tdonor.key,
	    win->open_end_tid, win->open_end_cpu,
	    (unsigned long long)win->open_may);
	/* Its chain, as the pick would walk it, and how it ends. */
	for (struct task *p = win->w; p; ) {
		struct mutex *m = READ_ONCE(p->blocked_on);
		struct task *o;

		if (!m || m == PROXY_WAKING || !(o = mutex_owner(m)) || o == p) {
			if (p != win->w)
				OUT("  %s %s\n", p->name, !m ? "is not blocked" :
				    m == PROXY_WAKING ? "is waking" :
				    !mutex_owner(m) ? "waits for a released mutex" :
				    "was handed its mutex, not yet woken");
			break;
		}
		OUT("  %s waits for %s held by %s: cpu%d on_rq %d on_cpu %d "
		    "state %d%s%s\n", p->name, m->name, o->name, o->cpu, o->on_rq,
		    o->on_cpu, o->state, cpu_rq(o->cpu)->curr == o ? " running" : "",
		    o->wake_cpu >= 0 ? " lent" : "");
		if (o == win->w)
			break;
		p = o;
	}
	for (int c = 0; c < ncpus; c++) {
		struct rq *rq = cpu_rq(c);
		size_t line0;

		if (!READ_ONCE(cpus[c].online))
			continue;
		OUT("cpu%d: %llu ticks, %llu switches, %u picks in the window, "
		    "preempt %#x: curr %s donor ",
		    c, (unsigned long long)rq->nr_preempt_ticks,
		    (unsigned long long)rq->nr_switches,
		    (uint32_t)rq->nr_picks - win->picks0[c],
		    READ_ONCE(cpus[c].preempt_count), rq->curr->name);
		len = describe_task(r, len, rq->donor);
		if (rq->rt.rt_nr_running)
			OUT(" rt %u queued, %u may move", rq->rt.rt_nr_running,
			    rq->rt.rt_nr_migratory);
		len = describe_rt_count(r, len, rq);
		/* Seen in a pick that dropped rq->lock (a pull) after prev
		 * left the queue: for that moment the CPU looks less busy
		 * than it is (not RT-overloaded, say). */
		if (!rq->curr->on_rq && rq->curr != rq->idle)
			OUT(" curr-not-queued");
		OUT("%s%s%s%s%s\n", READ_ONCE(rq->cpu->need_resched) ? " resched" : "",
		    rq->lock_dropped ? " lock-dropped" : "",
		    rq->rt.overloaded ? " rt-overloaded" : "",
		    rq->rt.throttled ? " rt-throttled" : "",
		    rq->dl.dl_nr_running > 1 ? " dl-overloaded" : "");
		len = describe_queued(r, len, c);
		/* The waiting contexts that outrank this donor and may run
		 * here, wherever they are queued. */
		line0 = len;
		for (int s = 0; s < ncpus; s++) {
			struct list_head *pos;

			if (!READ_ONCE(cpus[s].online))
				continue;
			list_for_each(pos, &cpu_rq(s)->tasks) {
				struct task *w = list_entry(pos, struct task, rq_node);

				if (w == cpu_rq(s)->donor || w == cpu_rq(s)->curr ||
				    !rank_above(task_rank(w), donor[c]) ||
				    !((where_may_run(w) >> c) & 1))
					continue;
				len = wrap(r, len, &line0, "  outranked by:");
				len = describe_task(r, len, w);
				OUT(" on cpu%d", s);
			}
		}
		if (len != line0)
			OUT("\n");
	}
}

/* An event of @r's CPUs, or one that names its task, in its window (from
 * 1 ms before it opened to the miss)? */
static bool in_report(const struct report *r, const struct trace_event *ev)
{
	const char *at;

	if (ev->ts + NSEC_PER_MSEC < r->start_ns || ev->ts > r->miss_ns)
		return false;
	if ((r->cpus >> ev->cpu) & 1)
		return true;
	for (at = strstr(ev->line, r->tag); at; at = strstr(at + 1, r->tag)) {
		char next = at[strlen(r->tag)];

		if (next < '0' || next > '9')
			return true;
	}
	return false;
}

/* The trace events in_report() keeps, at most SV_TRACE_LINES of them,
 * the last ones. */
#define SV_TRACE_LINES 120
static void print_trace(const struct report *r, const char *prefix)
{
	static struct trace_event ev;	/* under print_lock (one printer) */
	struct trace_snapshot *s = trace_snapshot();
	uint64_t n = 0, skip;

	if (!s) {
		printk("%sno memory to copy the trace\n", prefix);
		return;
	}
	while (trace_snapshot_next(s, &ev))
		n += in_report(r, &ev);
	trace_snapshot_free(s);
	if (!(s = trace_snapshot()))
		return;
	skip = n > SV_TRACE_LINES ? n - SV_TRACE_LINES : 0;
	printk("%strace of cpus %#llx and of %s in the window (%llu events%s):\n",
	       prefix, (unsigned long long)r->cpus, r->tag, (unsigned long long)n,
	       skip ? ", the last ones" : "");
	while (trace_snapshot_next(s, &ev)) {
		if (!in_report(r, &ev))
			continue;
		if (skip) {
			skip--;
			continue;
		}
		printk("%s  %llu %d %s\n", prefix, (unsigned long long)ev.ts,
		       ev.cpu, ev.line);
	}
	trace_snapshot_free(s);
}

bool sched_verify_print_miss(uint64_t after, const char *prefix)
{
	static struct report copy;	/* too big for a stack: print_lock */
	static DEFINE_MUTEX(print_lock);
	unsigned long flags;
	int best = -1;
	bool frozen;
	char *line;

	mutex_lock(&print_lock);
	flags = spin_lock(&sv.lock);
	for (int i = 0; i < SV_REPORTS; i++)
		if (sv.reports[i].seq > after &&
		    (best < 0 || sv.reports[i].seq < sv.reports[best].seq))
			best = i;
	if (best >= 0)
		copy = sv.reports[best];
	sv.consumed = sv.st.misses;	/* the caller has seen them all */
	spin_unlock(&sv.lock, flags);
	if (best < 0) {
		mutex_unlock(&print_lock);
		return false;
	}
	if (copy.seq != after + 1)
		printk("%s(misses #%llu..#%llu: no report kept)\n", prefix,
		       (unsigned long long)after + 1, (unsigned long long)copy.seq - 1);
	for (line = copy.text; *line; ) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		printk("%s%s\n", prefix, line);
		if (!nl)
			break;
		line = nl + 1;
	}
	if (copy.open)
		printk("%sthe window was still open at the last sample\n", prefix);
	else
		printk("%sthe window lasted %llu us\n", prefix,
		       (unsigned long long)(copy.len_ns / NSEC_PER_USEC));
	flags = spin_lock(&sv.lock);
	frozen = sv.trace_frozen;
	spin_unlock(&sv.lock, flags);
	if (frozen) {
		print_trace(&copy, prefix);
		flags = spin_lock(&sv.lock);
		sv.trace_frozen = false;
		trace_set_enabled(true);
		spin_unlock(&sv.lock, flags);
	}
	mutex_unlock(&print_lock);
	return true;
}
