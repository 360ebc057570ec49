/*
 * football_report.c - the football suite's rules (when a chain waits,
 * what is a foul) and what its referee reports (football.c plays the
 * game): per case the rounds, the ball, the checker's samples, windows
 * and misses, and the first foul as the offence saw it, with the
 * scheduler trace that led to it; and the case's verdict.
 */
#include "football.h"
#include "sched.h"
#include "trace.h"
#include "string.h"
#include <printf.h>
#include "../kernel/sched/testing.h"

#define FB_TRACE_BEFORE (3 * MS)	/* the trace printed before a foul */
#define FB_TRACE_AFTER (MS / 2)		/*   and after it */
#define FB_TRACE_LINES 100		/*   at most, the last ones */

/* Our task @p's name ("fb-L3", "referee", "idle" or "other").  Only
 * pointers are compared: a task not ours may be gone already. */
static const char *who(struct game *g, struct task *p, int cpu)
{
	if (p == g->referee)
		return "referee";
	if (p == cpu_rq(cpu)->idle)
		return "idle";
	for (int i = 0; i < g->n; i++) {
		struct chain *ch = &g->ch[i];

		if (p == ch->l)
			return ch->l->name;
		if (p == ch->m)
			return ch->m->name;
		if (p == ch->h)
			return ch->h->name;
		if (p == g->off[i].p)
			return g->off[i].p->name;
	}
	return "other";
}

/* ---- The rules ------------------------------------------------------- */

/*
 * Does chain @ch wait, and could it run?  Its high task waits for B_i
 * (blocked on it, or woken and about to look at it again: either way
 * its context wants a CPU; the chain's end, L_i, spins and is always
 * runnable).  A deadline high task that is throttled has spent its
 * budget: its chain is left with M_i's FIFO 30 context, below the
 * offence, which may run then; that is no foul, so it is not counted
 * (the checker does the same).  Nor for the rest of the game: its
 * replenishment is an event like a wakeup, after which the chain gets
 * a CPU back within the bound the checker judges (a look in between
 * saw a foul nobody committed).  The same for one throttled at the
 * kick-off (its holder spun on H_i's budget before the game: a foul
 * was counted 50 us after such a replenishment, x86_64, 8 CPUs).
 */
bool fb_chain_waits(struct game *g, struct chain *ch)
{
	struct task *h = ch->h;

	if (!READ_ONCE(h->blocked_on))
		return false;
	return !(g->v->deadline_high &&
		 (ch->kickoff_throttled || READ_ONCE(h->dl.dl_throttled) ||
		  READ_ONCE(h->dl.nr_throttled) != ch->game_throttled0));
}

/* How many times the high tasks were throttled so far. */
static uint64_t throttles(struct game *g)
{
	uint64_t n = 0;

	for (int i = 0; i < g->n; i++)
		n += READ_ONCE(g->ch[i].h->dl.nr_throttled);
	return n;
}

/*
 * Is a CPU of the game told to pick again, and not done yet?  Or in the
 * middle of a pull or push that let go of its rq->lock (lock_dropped)?
 * Or in the middle of a pick that moves a chain to its owner's CPU: its context
 * was given to idle (proxy_donor_to_idle) while the task that was
 * running is still its curr, and its rq->lock may be dropped for the
 * move.  (Seen in a foul on a loaded host: "cpu4 fb-M7 for idle", with
 * two CPUs idle a moment later.)
 */
static bool picking(struct game *g)
{
	for (int k = 0; k < g->n; k++) {
		int c = g->cpu_ids[k];
		struct rq *rq = cpu_rq(c);

		if (READ_ONCE(cpus[c].need_resched) ||
		    READ_ONCE(rq->lock_dropped) ||
		    (READ_ONCE(rq->donor) == rq->idle &&
		     READ_ONCE(rq->curr) != rq->idle))
			return true;
	}
	return false;
}

/*
 * Is it a foul that the caller, an offence task, runs now?  Pinned
 * chains: only chain c can be served on CPU c, so the foul is chain c
 * waiting.  Free chains: any chain could run on this CPU, so it is a
 * foul when more contexts want a CPU than there are CPUs: the waiting
 * chains plus the offence tasks on a CPU (this one included) exceed N.
 * Then some chain that outranks an offence task does not run.
 *
 * A look is many reads, and a host may stop our vCPU in the middle: a
 * high task read as waiting, then throttled, and the offence task that
 * its CPU then ran read as running, would be a foul nobody committed.
 * A look during which a high task was throttled does not count.  Nor
 * one while a CPU is told to pick again or is moving a chain in its
 * pick (picking()): the scheduler is acting (a chain pushed to a CPU
 * that must now preempt, seen with a host that stopped that vCPU for
 * 1.3 ms), and how long it may take is the checker's to judge, by its
 * ticks rule.
 */
bool fb_foul(struct game *g)
{
	uint64_t t0 = throttles(g);
	int want = 0;

	if (picking(g))
		return false;

	if (g->v->pinned) {
		int i = g->chain_of_cpu[smp_processor_id()];

		want = i >= 0 && fb_chain_waits(g, &g->ch[i]) ? g->n + 1 : 0;
	} else {
		for (int i = 0; i < g->n; i++)
			want += fb_chain_waits(g, &g->ch[i]) +
				(READ_ONCE(g->off[i].p->on_cpu) != 0);
	}
	/* The look's reads before the second reads. */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return want > g->n && throttles(g) == t0 && !picking(g);
}

/* ---- The report -------------------------------------------------------- */

/* The first foul of a case, as the offence task saw it: what every CPU
 * ran (racy reads: a picture, the checker's report is the exact one). */
void fb_note_foul(struct game *g, struct offence *o, int r)
{
	size_t len;
	int waiting = 0;

	if (__atomic_exchange_n(&g->foul_taken, 1, __ATOMIC_ACQ_REL))
		return;
	g->foul_ns = clock_ns();
	for (int i = 0; i < g->n; i++)
		waiting += fb_chain_waits(g, &g->ch[i]);
	len = snprintf(g->foul, FB_FOUL_LEN, "round %d, %llu us into the game: "
		       "%s ran on cpu%d while %d chains waited;", r,
		       (unsigned long long)((clock_ns() - g->kickoff_ns) / 1000),
		       o->p->name, smp_processor_id(), waiting);
	for (int k = 0; k < g->n && len < FB_FOUL_LEN; k++) {
		int c = g->cpu_ids[k];
		struct task *curr = READ_ONCE(cpu_rq(c)->curr);
		struct task *donor = READ_ONCE(cpu_rq(c)->donor);

		len += snprintf(g->foul + len, FB_FOUL_LEN - len, " cpu%d %s", c,
				who(g, curr, c));
		if (donor != curr && len < FB_FOUL_LEN)
			len += snprintf(g->foul + len, FB_FOUL_LEN - len,
					" for %s", who(g, donor, c));
	}
}

/* The case's figures: rounds, ball, the checker's view of the case, and
 * the first foul with the trace before it. */
void fb_report(struct game *g)
{
	const struct sched_verify_stats *a = &g->st0, *b = &g->st1;
	uint64_t closed = b->closed - a->closed;
	int served = 0;
	char longest[48];

	for (int i = 0; i < g->n; i++)
		served += g->ch[i].served_games;
	/* The checker keeps one longest window since it started: if it grew
	 * during the case it is the case's, otherwise only a bound. */
	if (b->worst_ns > a->worst_ns)
		snprintf(longest, sizeof(longest), "%llu us",
			 (unsigned long long)(b->worst_ns / 1000));
	else if (closed)
		snprintf(longest, sizeof(longest), "<= %llu us",
			 (unsigned long long)(a->worst_ns / 1000));
	else
		strlcpy(longest, "none", sizeof(longest));
	printk("# %s/%s: %d chains, %d of %d rounds, ball %llu, holders served "
	       "in %d of %d games%s\n", locking_mode_name(g->mode), g->v->name,
	       g->n, g->rounds, FB_ROUNDS, (unsigned long long)g->ball, served,
	       g->n * g->rounds, g->unsettled ? ", some defence never set" : "");
	printk("# checker: %llu samples, %llu windows (%llu during games), "
	       "mean %llu us, longest %s, %llu misses (%llu during games)\n",
	       (unsigned long long)(b->samples - a->samples),
	       (unsigned long long)(b->windows - a->windows),
	       (unsigned long long)g->game_windows,
	       (unsigned long long)(closed ? (b->total_ns - a->total_ns) /
				    closed / 1000 : 0), longest,
	       (unsigned long long)(b->misses - a->misses),
	       (unsigned long long)g->game_misses);
	if (g->v->deadline_high)
		printk("# high tasks throttled %llu times (no foul counted "
		       "meanwhile)\n", (unsigned long long)g->throttled);
	if (g->foul_taken)
		printk("# first foul: %s\n", g->foul);
	/* none: the inversion is expected, its trace says nothing new. */
	if (g->foul_taken && g->mode != LOCKING_NONE)
		print_trace_window(g->foul_ns - FB_TRACE_BEFORE,
				   g->foul_ns + FB_TRACE_AFTER, ~0ULL,
				   FB_TRACE_LINES, "around the first foul");
}

/*
 * The verdict.  proxy and inherit: the offence never scored; none: it
 * did (the inversion the referee has to see).  Every mode: every round
 * played, every chain completed each round (its holder served its high
 * task at least once, but for none), no miss of the checker, nothing
 * left held or blocked.
 */
void fb_judge(struct ktest *t, struct game *g, bool joined, int blocked0,
	      bool own_checker)
{
	uint64_t misses = g->st1.misses - g->st0.misses;

	KEXPECT_EQ(t, g->rounds, FB_ROUNDS);
	if (g->mode == LOCKING_NONE)
		KEXPECT(t, g->ball > 0);
	else
		KEXPECT_EQ(t, g->ball, 0);
	if (misses) {
		ktest_fail(t, __FILE__, __LINE__, "the checker saw %llu misses",
			   (unsigned long long)misses);
		/* From boot, ktest prints the report (check_verify). */
		if (own_checker)
			sched_verify_print_miss(g->st0.misses, "    # football: ");
	}
	for (int i = 0; i < g->n; i++) {
		struct chain *ch = &g->ch[i];

		if (ch->h_got != g->rounds || ch->m_got != g->rounds)
			ktest_fail(t, __FILE__, __LINE__, "chain %d: high got B "
				   "%d times, mid got A %d times, in %d rounds",
				   i, ch->h_got, ch->m_got, g->rounds);
		if (g->mode != LOCKING_NONE && g->rounds && !ch->served_games)
			ktest_fail(t, __FILE__, __LINE__, "chain %d: the holder "
				   "never ran for its high task", i);
		if (joined) {
			KEXPECT_EQ(t, ch->a.owner, 0);
			KEXPECT_EQ(t, ch->b.owner, 0);
		}
	}
	KEXPECT_EQ(t, __atomic_load_n(&mutex_nr_blocked, __ATOMIC_SEQ_CST),
		   blocked0);
}
