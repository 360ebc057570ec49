/*
 * verify.c - the real-time invariant checker (sched_verify.h says what
 * it checks and how a window is judged; docs/scheduler.md, "What runs",
 * states the invariant and its bound).
 *
 * A sample, from a timer interrupt on the CPU that started the checker:
 *
 *   lock every online runqueue, in CPU-id order (trylock, bounded: a
 *     vCPU preempted by its host while holding one must not drag the
 *     others into a convoy; such a sample is counted as busy)
 *   rank every CPU's donor (its scheduling context)
 *   for each queued deadline/RT context W that is not a donor: where may
 *     it run (its chain's end, under proxy execution), and does a CPU
 *     there run a context it outranks?  Then W is in violation: open a
 *     window for it, or keep its window open
 *   windows not seen any more end; windows past the bound are misses
 *     (the first few get a report, written while the locks still hold
 *     the picture)
 *   unlock
 *
 * Window edges are refined with two stamps the scheduler keeps for us:
 * p->ready_ns (when a wakeup queued p) and rq->pick_ns (when the CPU's
 * donor last changed).  A window starts at the later of the two,
 * but not before the previous sample (the stamp may be from an older
 * event); it ends when its task got a CPU or its target changed donor,
 * or, failing those, at the sample that no longer sees it.  So under
 * -icount a wakeup's window is measured to the nanosecond, and any other
 * to within one sample period.
 *
 * A sample holds every runqueue lock, so a task queued on one, or
 * running, cannot exit and be freed meanwhile; a window keeps its task's
 * pointer and tid, which tell it from a new task in the same memory.
 * The reports of misses are written by verify_report.c.
 */
#include "verify.h"
#include "timer.h"
#include "bitops.h"
#include "trace.h"
#include "string.h"
#include <printf.h>

struct sv_state sv = { .lock = SPINLOCK_INIT("sched_verify") };

/* ---- Ranks ------------------------------------------------------------ */

static bool dl_runnable(const struct task *p)
{
	return !RB_EMPTY_NODE(&p->dl.rb_node);
}

/* @p's context as the invariant ranks it (its effective class). */
struct rank task_rank(const struct task *p)
{
	if (p->sched_class == &stop_sched_class)
		return (struct rank){ RANK_STOP, 0 };
	if (p->sched_class == &dl_sched_class)
		return dl_runnable(p) ? (struct rank){ RANK_DL, p->dl.deadline }
				      : (struct rank){ RANK_LOW, 0 };
	if (p->sched_class == &rt_sched_class)
		return (struct rank){ RANK_RT, (uint64_t)p->prio };
	return (struct rank){ RANK_LOW, 0 };
}

/* Does @a run strictly before @b?  Ties (and fair vs fair) do not. */
bool rank_above(struct rank a, struct rank b)
{
	if (a.cls != b.cls)
		return a.cls > b.cls;
	return (a.cls == RANK_RT || a.cls == RANK_DL) && a.key < b.key;
}

const char *rank_name(struct rank r)
{
	static const char *const names[] = { "low", "rt", "deadline", "stop" };

	return names[r.cls];
}

/* ---- The snapshot ------------------------------------------------------ */

/*
 * Where can @w's context run?  Not blocked (or not in proxy mode): its
 * own affinity.  Blocked: follow blocked_on -> owner, as the pick does,
 * across CPUs, to the chain's end:
 *   - a task that is not blocked: where it may run, or only its CPU if
 *     it is running there (the chain runs: W is judged against what
 *     runs it);
 *   - a released mutex, or one handed to the chain's task but not yet
 *     marked waking: that task's CPU (the pick lets it take the lock),
 *     unless it was lent there (then it waits to be woken);
 *   - a sleeping owner, or round a cycle: nowhere (not runnable).
 * A chain that is not running and reaches an owner on another CPU than
 * W's may run only on the first such CPU: the context is lent there,
 * one CPU at a time, by the pick or a push.  (The walk once stopped
 * there, and judged a chain whose end was not runnable, or ran
 * elsewhere at a higher priority, as waiting for that CPU: mutex_stress
 * at 8 CPUs.)  All rq locks held: the tasks on the chain cannot be
 * freed meanwhile.  *@end: the task the walk ended on (for a report).
 */
static uint64_t chain_may_run(struct task *w, struct task **end)
{
	struct task *p = w;
	int away = -1;			/* the first owner's CPU not W's */
	uint64_t may;

	*end = w;
	for (int hop = 0;; hop++) {
		struct mutex *m = READ_ONCE(p->blocked_on);
		struct task *owner;

		if (locking_mode != LOCKING_PROXY || !m || m == PROXY_WAKING)
			break;
		if (hop == SV_MAX_HOPS)
			return 0;		/* a cycle: reported by proxy.c */
		owner = mutex_owner(m);
		/* Released, or handed to p by an unlock that has not yet
		 * marked it waking (mutex.c stores the new owner, then marks
		 * the waiter, both under wait_lock, which we do not hold):
		 * its CPU's pick lets it take the lock, and nothing moves it
		 * before the mark (proxy_chain_of), as for a released one. */
		if (!owner || owner == p) {
			if (p->wake_cpu >= 0)
				return 0;
			may = 1ULL << p->cpu;
			goto out;
		}
		*end = owner;
		if (!READ_ONCE(owner->on_rq))
			return 0;
		if (away < 0 && owner->cpu != w->cpu)
			away = owner->cpu;
		p = owner;
	}
	if (cpu_rq(p->cpu)->curr == p)
		return 1ULL << p->cpu;
	may = task_cpus_online(p);
out:
	return away >= 0 ? 1ULL << away : may;
}

uint64_t where_may_run(struct task *w)
{
	struct task *end;

	return chain_may_run(w, &end);
}

/*
 * The CPU in @mask whose context ranks lowest, below @r; -1 if none.
 * @src's own CPU is judged by its donor (the pick there must choose W);
 * another CPU by @committed: a CPU told to reschedule counts with what
 * it is about to pick (W could not run there anyway).  RT contexts skip
 * CPUs whose RT class steps aside.
 */
static int lowest_below(uint64_t mask, struct rank r, int src,
			const struct rank *donor, const struct rank *committed)
{
	int best = -1;
	struct rank best_rank = { RANK_STOP, 0 };

	for (; mask; mask &= mask - 1) {
		int c = ctz64(mask);
		struct rank k = c == src ? donor[c] : committed[c];

		if (!rank_above(r, k))
			continue;
		if (r.cls == RANK_RT && rt_stepping_aside(cpu_rq(c)))
			continue;
		if (best < 0 || rank_above(best_rank, k)) {
			best = c;
			best_rank = k;
		}
	}
	return best;
}

static void unlock_all(uint64_t online);

static bool lock_all(uint64_t online)
{
	uint64_t taken = 0;

	for (uint64_t m = online; m; m &= m - 1) {
		int c = ctz64(m);
		unsigned long flags;
		int spins = 0;

		while (!spin_trylock(&cpu_rq(c)->lock, &flags)) {
			if (++spins == SV_LOCK_SPINS) {
				unlock_all(taken);
				return false;
			}
			arch_cpu_relax();
		}
		taken |= 1ULL << c;
	}
	return true;
}

static void unlock_all(uint64_t online)
{
	for (; online; online &= online - 1)
		spin_unlock_raw(&cpu_rq(ctz64(online))->lock);
}

/* ---- Windows ------------------------------------------------------------ */

static void close_window(struct window *win, uint64_t end);

/* Is @p the task @win follows (not one reusing its memory)? */
static bool window_of(const struct window *win, const struct task *p)
{
	return win->w == p && win->tid == p->tid;
}

static struct window *find_window(struct task *w)
{
	for (int i = 0; i < sv.nopen; i++)
		if (window_of(&sv.open[i], w))
			return &sv.open[i];
	return NULL;
}

/* A violation of @w (queued on @src, outranking @target's donor) is seen
 * at @now.  All rq locks held. */
static void see(struct task *w, int src, int target, uint64_t now,
		int end_tid)
{
	struct window *win = find_window(w);
	uint64_t start, lower;

	if (win && w->nr_switches != win->switches) {
		/* It ran between two samples: that window ended, when it
		 * first got the CPU (no later than its last switch-in). */
		close_window(win, w->exec_start_ns > win->last_seen_ns &&
			     w->exec_start_ns < now ? w->exec_start_ns : now);
		*win = sv.open[--sv.nopen];
		win = NULL;
	} else if (win && win->end_tid != end_tid) {
		/* Its chain ends elsewhere now: the lock moved on (a
		 * handoff) or a task in it blocked.  The bound is per event:
		 * one window that ran through several handoffs, each soon
		 * acted on, was a miss (mutex_stress, riscv64, 8 CPUs). */
		close_window(win, now);
		*win = sv.open[--sv.nopen];
		win = NULL;
	}
	if (!win) {
		if (sv.nopen == SV_MAX_OPEN)
			return;		/* not followed: 64 at once is rare */
		win = &sv.open[sv.nopen++];
		memset(win, 0, sizeof(*win));
		win->w = w;
		win->tid = w->tid;
		win->report = -1;
		/* The later of the two stamps, but not before the previous
		 * sample (an older stamp is from another event) or, for the
		 * first one, the checker's start.  Not "one period ago": a
		 * first sample late by 2 ms (a host stall, given-up samples)
		 * once cut 2 ms off a window (checker_measures_a_window). */
		start = w->ready_ns > cpu_rq(target)->pick_ns ?
			w->ready_ns : cpu_rq(target)->pick_ns;
		lower = sv.prev_sample_ns;
		win->start_ns = start < lower ? lower : start > now ? now : start;
		win->open_ns = now;
		win->open_ready_ns = w->ready_ns;
		win->open_pick_ns = cpu_rq(target)->pick_ns;
		win->open_prev_ns = lower;
		win->open_target = target;
		win->open_tdonor_tid = cpu_rq(target)->donor->tid;
		win->open_tdonor = task_rank(cpu_rq(target)->donor);
		{
			struct task *end;

			win->open_may = chain_may_run(w, &end);
			win->open_end_tid = end->tid;
			win->open_end_cpu = end->cpu;
		}
		for (int c = 0; c < ncpus; c++) {
			win->ticks0[c] = (uint32_t)cpu_rq(c)->nr_preempt_ticks;
			win->picks0[c] = (uint32_t)cpu_rq(c)->nr_picks;
		}
		win->src = src;
		win->src_ticks0 = win->ticks0[src];
		win->busy0 = sv.st.busy;
		win->samples0 = sv.st.samples;
		sv.st.windows++;
	} else if (win->src != src || w->nr_migrations != win->migrations) {
		/* Moved (pushed, pulled), maybe more than once, without
		 * running: the window goes on, and its new CPU gets its own
		 * chance. */
		win->src = src;
		win->src_ticks0 = (uint32_t)cpu_rq(src)->nr_preempt_ticks;
		win->moves++;
	}
	if (!win->nseen || win->target != target) {
		struct rq *dst = cpu_rq(target);
		uint32_t ticks = (uint32_t)dst->nr_preempt_ticks;

		win->target_switches = dst->nr_switches;
		/* The target's ticks count from the window's start, or, for
		 * a CPU that becomes the target later, from when it began to
		 * run what it runs now if that is later: before, it ran a
		 * context that outranked W, or another CPU was lower still
		 * (the target then), and its ticks were not W's chances.
		 * (A CPU that ran a deadline task
		 * through a host stall, two ticks in 370 ms, went idle and
		 * was judged at once, before it could take one tick: a miss
		 * of football.proxy_deadline_high, riscv64, 8 CPUs.) */
		win->target_ticks0 = win->ticks0[target];
		if (win->nseen && ticks - (uint32_t)dst->pick_ticks <
				  ticks - win->ticks0[target])
			win->target_ticks0 = (uint32_t)dst->pick_ticks;
	}
	win->seen = true;
	win->last_seen_ns = now;
	win->target = target;
	win->switches = w->nr_switches;
	win->migrations = w->nr_migrations;
	win->end_tid = end_tid;
	win->nseen++;
}

/* When did @win end, seen gone at @now?  When its task got a CPU (the
 * pick there), or its target picked another donor; else now. */
static uint64_t window_end(struct window *win, uint64_t now)
{
	uint64_t end = now;

	for (int c = 0; c < ncpus; c++) {
		struct rq *rq = cpu_rq(c);

		if ((window_of(win, rq->donor) || window_of(win, rq->curr)) &&
		    rq->pick_ns > win->last_seen_ns && rq->pick_ns < end)
			end = rq->pick_ns;
	}
	if (end == now && cpu_rq(win->target)->pick_ns > win->last_seen_ns &&
	    cpu_rq(win->target)->pick_ns < now)
		end = cpu_rq(win->target)->pick_ns;
	return end;
}

static void close_window(struct window *win, uint64_t end)
{
	uint64_t len = end > win->start_ns ? end - win->start_ns : 0;

	static const uint64_t limits[] = SCHED_VERIFY_HIST_LIMITS;
	uint64_t picks;
	unsigned b = 0;

	while (b < ARRAY_SIZE(limits) && len >= limits[b])
		b++;
	sv.st.hist[b]++;
	picks = cpu_rq(win->target)->nr_switches - win->target_switches;
	sv.st.picks[picks < 3 ? picks : 3]++;
	sv.st.closed++;
	sv.st.total_ns += len;
	if (len > sv.st.worst_ns)
		sv.st.worst_ns = len;
	if (win->report >= 0 && sv.reports[win->report].open) {
		sv.reports[win->report].open = false;
		sv.reports[win->report].len_ns = len;
	}
}

/*
 * Has @win outlived the bound?  By the ticks rule: if W waits on its own
 * target (its CPU's pick must choose it), that CPU took two preemptible
 * ticks since W came there and since its donor last changed (a CPU that
 * just changed donor, e.g. to idle with a reschedule pending, is in the
 * middle of acting); otherwise W's CPU took two since W came there (each
 * tick asks its classes to push) and the target two since it became the
 * target (see(): the window's start, or a later target's last donor
 * change; a target that keeps switching between less important tasks
 * does not restart its count).  All rq locks held.
 */
static bool past_bound(struct window *win, uint64_t now)
{
	struct rq *src = cpu_rq(win->src), *dst = cpu_rq(win->target);
	uint64_t base = win->src_ticks0;

	if (sv.bound_ns)
		return now - win->start_ns > sv.bound_ns;
	if (src == dst && src->pick_ticks > base)
		base = src->pick_ticks;
	return src->nr_preempt_ticks - base >= SCHED_VERIFY_TICKS &&
	       (uint32_t)(dst->nr_preempt_ticks - win->target_ticks0) >=
	       SCHED_VERIFY_TICKS;
}

/*
 * A new miss: count it and describe it in a free slot.  The reports kept
 * are the first ones since the last sched_verify_print_miss(): the first
 * miss of a run says most, later ones are often its consequences.
 */
static void miss(struct window *win, uint64_t now, const struct rank *donor)
{
	int slot = -1;

	win->missed = true;
	sv.st.misses++;
	for (int i = 0; i < SV_REPORTS && slot < 0; i++)
		if (sv.reports[i].seq <= sv.consumed)
			slot = i;
	if (slot < 0)
		return;
	for (int i = 0; i < sv.nopen; i++)	/* an old link to the slot */
		if (sv.open[i].report == slot)
			sv.open[i].report = -1;
	sv.reports[slot].seq = sv.st.misses;
	sv.reports[slot].open = true;
	sv.reports[slot].len_ns = 0;
	sv.reports[slot].start_ns = win->start_ns;
	sv.reports[slot].miss_ns = now;
	sv.reports[slot].cpus = (1ULL << win->src) | (1ULL << win->target);
	snprintf(sv.reports[slot].tag, sizeof(sv.reports[slot].tag), "#%d",
		 win->w->tid);
	write_report(&sv.reports[slot], win, now, donor);
	win->report = slot;
	/* Keep what led here: the first miss stops the scheduler trace
	 * until its report is printed (sched_verify_print_miss). */
	if (READ_ONCE(trace_enabled) && !sv.trace_frozen) {
		trace_freeze();
		sv.trace_frozen = true;
	}
}

/* ---- The sampler --------------------------------------------------------- */

/* Is @w a context the invariant looks at, waiting on @rq?  Not behind a
 * stopper: the stop class is the kernel's own short interruption of a
 * CPU (an affinity move, stop_machine), whose length is its work's. */
static bool waiting_context(struct rq *rq, struct task *w, struct rank *r)
{
	if (w == rq->donor || w == rq->curr ||
	    rq->donor->sched_class == &stop_sched_class)
		return false;
	*r = task_rank(w);
	if (r->cls == RANK_LOW)
		return false;
	return r->cls != RANK_RT || !rt_stepping_aside(rq);
}

/* One sample; false if it was given up (a runqueue lock stayed busy).
 * sv.lock held, interrupts off. */
static bool sample(void)
{
	uint64_t online = cpus_online_mask(), now;
	struct rank donor[NR_CPUS], committed[NR_CPUS];

	if (!lock_all(online)) {
		sv.st.busy++;
		return false;
	}
	/* The time of what the locks now show.  Read before them, it is
	 * stale by however long a host stopped the sampler's vCPU in
	 * between: a report once showed a deadline set 17 ms after its
	 * sample's time. */
	now = clock_ns();
	/* Each CPU's donor, and what it is committed to: a CPU with a
	 * pending reschedule is about to pick its best queued context, and
	 * so is one whose donor is idle while something runnable is queued
	 * there (its pick cleared need_resched and dropped its lock to pull,
	 * or a reschedule is on its way), and one whose pick let go of its
	 * lock to pull (rq->lock_dropped: its donor may be one it is
	 * switching away from, e.g. a deadline task just throttled; seen as
	 * a miss on a starved 8-vCPU host). */
	for (int c = 0; c < ncpus; c++) {
		struct rq *rq = cpu_rq(c);
		struct list_head *pos;

		if (!((online >> c) & 1)) {
			donor[c] = committed[c] = (struct rank){ RANK_STOP, 0 };
			continue;
		}
		donor[c] = committed[c] = task_rank(rq->donor);
		if (!READ_ONCE(rq->cpu->need_resched) && rq->donor != rq->idle &&
		    !rq->lock_dropped)
			continue;
		list_for_each(pos, &rq->tasks) {
			struct task *w = list_entry(pos, struct task, rq_node);
			struct rank r;

			if (waiting_context(rq, w, &r) && rank_above(r, committed[c]) &&
			    ((where_may_run(w) >> c) & 1))
				committed[c] = r;
		}
	}
	for (int i = 0; i < sv.nopen; i++)
		sv.open[i].seen = false;
	for (uint64_t m = online; m; m &= m - 1) {
		int s = ctz64(m);
		struct rq *rq = cpu_rq(s);
		struct list_head *pos;

		list_for_each(pos, &rq->tasks) {
			struct task *w = list_entry(pos, struct task, rq_node);
			struct rank r;
			struct task *end;
			uint64_t may;
			int target;

			if (!waiting_context(rq, w, &r))
				continue;
			may = chain_may_run(w, &end) & online;
			target = lowest_below(may, r, s, donor, committed);
			/* Its own CPU is about to pick it (committed to a
			 * context of its rank, above what runs there): W
			 * waits for that pick, judged by that CPU's ticks
			 * (past_bound), not against another CPU that a pull
			 * would have had to take it to (seen: a CPU idle
			 * while W's CPU, RT-throttled, was in a pick that had
			 * let go of its lock, 8 CPUs on a starved host). */
			if (target >= 0 && target != s && ((may >> s) & 1) &&
			    rank_above(committed[s], donor[s]) &&
			    !rank_above(committed[s], r))
				target = s;
			if (target >= 0)
				see(w, s, target, now, end->tid);
		}
	}
	for (int i = 0; i < sv.nopen; i++) {
		struct window *win = &sv.open[i];

		if (!win->seen) {
			close_window(win, window_end(win, now));
			sv.open[i--] = sv.open[--sv.nopen];
			continue;
		}
		if (!win->missed && past_bound(win, now))
			miss(win, now, donor);
	}
	unlock_all(online);
	sv.st.samples++;
	sv.prev_sample_ns = now;
	return true;
}

static void sv_timer_fn(struct timer *t)
{
	spin_lock_raw(&sv.lock);
	if (!sv.on) {
		spin_unlock_raw(&sv.lock);
		return;
	}
	sample();
	/* From now, not from the deadline: a late interrupt does not make
	 * the next samples crowd in. */
	timer_arm(t, clock_ns() + sv.period_ns);
	spin_unlock_raw(&sv.lock);
}

/* ---- API ---------------------------------------------------------------- */

int sched_verify_start(uint64_t period_ns, uint64_t bound_ns)
{
	unsigned long flags;

	if (period_ns < SCHED_VERIFY_PERIOD_MIN || period_ns > SCHED_VERIFY_PERIOD_MAX)
		return -EINVAL;
	flags = spin_lock(&sv.lock);
	if (sv.on) {
		spin_unlock(&sv.lock, flags);
		return -EBUSY;
	}
	memset(&sv.st, 0, sizeof(sv.st));
	memset(sv.reports, 0, sizeof(sv.reports));
	sv.nopen = 0;
	sv.consumed = 0;
	sv.period_ns = period_ns;
	sv.bound_ns = bound_ns;
	sv.prev_sample_ns = clock_ns();	/* nothing is known before it */
	sv.on = true;
	timer_init(&sv.timer, sv_timer_fn, NULL);
	timer_arm(&sv.timer, clock_ns() + period_ns);
	spin_unlock(&sv.lock, flags);
	return 0;
}

void sched_verify_stop(void)
{
	unsigned long flags = spin_lock(&sv.lock);
	uint64_t now = clock_ns();

	sv.on = false;
	for (int i = 0; i < sv.nopen; i++)
		close_window(&sv.open[i], now);
	sv.nopen = 0;
	spin_unlock(&sv.lock, flags);
	timer_cancel(&sv.timer);
}

bool sched_verify_sample(void)
{
	unsigned long flags = spin_lock(&sv.lock);
	bool taken = false;

	for (int tries = 0; sv.on && !taken && tries < 100; tries++)
		taken = sample();
	spin_unlock(&sv.lock, flags);
	return taken;
}

bool sched_verify_running(void)
{
	return READ_ONCE(sv.on);
}

void sched_verify_read(struct sched_verify_stats *st)
{
	unsigned long flags = spin_lock(&sv.lock);

	*st = sv.st;
	spin_unlock(&sv.lock, flags);
}
