/*
 * football.c - the football suite (the idea of Linux's ksched_football and
 * LTP's sched_football): on N CPUs, N defence chains that outrank N
 * offence tasks, so the offence must never run while a chain waits.
 *
 *   chain i (i < N):  L_i  holder  FIFO 10 (fair: fair_holder)  takes A_i, spins
 *                     M_i  mid     FIFO 30   takes B_i, blocks on A_i
 *                     H_i  high    FIFO 70 (SCHED_DEADLINE: deadline_high)
 *                                            blocks on B_i
 *   offence j < N:    O_j          FIFO 50, any CPU, between mid and high
 *   referee:          the case thread, FIFO 99 (deadline, 2 ms, with
 *                     deadline high tasks) on the last CPU, asleep
 *                     during the game
 *
 * Why a ball proves an inversion.  Once every H_i waits, the N most
 * important scheduling contexts are the N chains (each H_i's, lent down
 * to L_i): proxy execution runs L_i with H_i's context, inheritance
 * boosts L_i to H_i's priority or deadline.  N chains on N CPUs leave no
 * CPU for an offence task: if one runs while the chains wait, some chain
 * that outranks it does not run (pigeonhole), which is the priority
 * inversion the locking mode exists to prevent.  The offence counts such
 * moments (the ball); with locking `none` L_i runs at its own FIFO 10,
 * below the offence, and the offence scores: the last case shows that
 * the referee does see an inversion.
 *
 * The invariant checker (sched_verify.h) judges the same thing from the
 * scheduler's side, at every moment of the case (chains forming, the
 * game, unlock and handoff, wakeups), not only while the offence runs.
 * If it was not on from boot (smp1, the shell's `test football`), each
 * case starts it and stops it after; its misses fail the case either way.
 * The ball is the stricter judge: the checker forgives a window shorter
 * than its bound and a donor waiting where its chain's next member is
 * outranked (docs/scheduler.md, "What runs"), the ball forgives nothing.
 * That is fair: during a game nothing happens but the referee going to
 * sleep (its CPU's pick must take a waiting chain, not an offence task)
 * and, for a deadline chain, a throttle (then its chain does not count
 * for the rest of the game, fb_chain_waits; the checker judges the
 * replenishment), so a correct scheduler never runs the offence.
 *
 * A round (several per case, so that the lock, block, unlock, handoff
 * and wakeup paths run each time, not only one static picture):
 *
 *   referee              chains                          offence
 *   go_l, wake L_i       L_i takes A_i, spins
 *   wait: L_i holds
 *   go_m, wake M_i       M_i takes B_i, blocks on A_i
 *   wait: M_i blocked
 *   go_h, wake H_i       H_i blocks on B_i: H_i -> M_i -> L_i
 *   wait: H_i blocked, the defence set
 *   game on, kick-off -----------------------------------> woken; queued
 *   sleep FB_GAME_NS     L_i runs for H_i                (never runs)
 *   game off
 *   release -----------> L_i unlocks A_i, M_i gets it
 *                        and unlocks A_i, B_i, H_i gets B_i
 *   wait: chains done,                                   runs, sees the game
 *     offence benched                                      over: benched
 *
 * The offence sleeps between rounds: a spinning FIFO 50 offence would
 * keep a FIFO 10 holder from ever taking A_i.  Every wait is for a state
 * (never a fixed sleep a host stall could break) and is bounded: a broken
 * scheduler fails the case instead of hanging the boot.
 *
 * The structures are in football.h; the rules (fb_chain_waits, fb_foul)
 * and what the referee prints per case (figures, the first foul, the
 * trace before it) and its verdict in football_report.c.
 */
#include "football.h"
#include "sched.h"
#include "mm.h"
#include "timer.h"
#include "arch.h"
#include "string.h"
#include <printf.h>
#include "../kernel/sched/testing.h"

#define FB_WAIT_NS (5000 * MS)		/* any wait for a state, at most */
#define FB_SETTLE_NS (200 * MS)		/* for the defence to be set, at most */
#define FB_NAP_NS (10 * MS)		/* a player's sleep between its wakeups */
#define FB_DONE INT32_MAX		/* release/quit: everything ends */

#define PRIO_LOW 10
#define PRIO_MID 30
#define PRIO_OFFENCE 50
#define PRIO_HIGH 70

/*
 * The deadline high task: 800 ms every second (80%).  N of them are
 * admitted (95% of N CPUs).  A chain runs for one game and the settling
 * before it, well under 800 ms, and a high task's sleep between rounds
 * gives it a new period at its next wakeup (CBS), so a game does not
 * use up its budget; a host that stops a vCPU for long could still
 * throttle one: see fb_chain_waits().
 */
#define DL_RUNTIME (800 * MS)
#define DL_PERIOD (1000 * MS)

/*
 * With deadline high tasks the referee must outrank them, or it could
 * not end the game: a FIFO 99 referee would wait for a chain to be
 * throttled (proxy) and, under inherit, for ever (a holder boosted by a
 * deadline waiter is never throttled, inherit.c), with every CPU taken.
 * It is a deadline task with a short deadline then (EDF: it runs first
 * when it wakes), 1 ms every 10 ms: with the chains' 80%, 90% of one CPU
 * at N = 1, within the 95% admission limit.
 */
#define REF_DL_RUNTIME (1 * MS)
#define REF_DL_DEADLINE (2 * MS)
#define REF_DL_PERIOD (10 * MS)

/* ---- Players ---------------------------------------------------------- */

static void nudge(struct timer *tm)
{
	wake_up(tm->data);
}

/*
 * Sleep on the bench until *@v >= @want (the referee sets it and calls
 * us up) or the game is abandoned: false then.  A timer looks again
 * every FB_NAP_NS in case a wakeup was lost (the verdict then shows a
 * slow round, not a hang).  The sleep is wait_case()'s in
 * kernel/ktest.c.  *@parked says we are here, under bench_lock: the
 * referee wakes only a player on the bench (call_up).
 */
static bool await(struct game *g, int *parked, volatile int *v, int want)
{
	struct task *self = current();
	unsigned long flags;
	struct timer tm;
	bool quit;

	flags = spin_lock(&g->bench_lock);
	*parked = 1;
	spin_unlock(&g->bench_lock, flags);
	timer_init(&tm, nudge, self);
	for (;;) {
		WRITE_ONCE(self->state, TASK_SLEEPING);
		smp_mb();
		quit = READ_ONCE(g->quit);
		if (quit || READ_ONCE(*v) >= want)
			break;
		timer_arm(&tm, clock_ns() + FB_NAP_NS);
		schedule();
	}
	WRITE_ONCE(self->state, TASK_RUNNING);
	timer_cancel(&tm);
	flags = spin_lock(&g->bench_lock);
	*parked = 0;
	spin_unlock(&g->bench_lock, flags);
	return !quit;
}

/*
 * Wake @p if it is on its bench (*@parked), never once it has left: by
 * then it may wait for a mutex, and a wakeup there is spurious (the
 * waiter is marked PROXY_WAKING and made runnable until it looks at the
 * lock again).  Early versions of this suite woke players blindly, and
 * such wakeups are legal, but they changed the game: a woken H_i is no
 * longer a blocked donor, and under inherit a walk stops at a woken
 * M_i (see the report of issue 12).
 */
static void call_up(struct game *g, struct task *p, int *parked)
{
	unsigned long flags = spin_lock(&g->bench_lock);

	if (p && *parked)
		wake_up(p);
	spin_unlock(&g->bench_lock, flags);
}

/* Does L_i (the caller) run with H_i's context right now? */
static bool holder_served(struct game *g, struct chain *ch)
{
	if (g->mode == LOCKING_PROXY)
		return current_donor() == ch->h;
	if (g->mode == LOCKING_INHERIT)
		return READ_ONCE(current()->prio) == READ_ONCE(ch->h->prio);
	return false;
}

/* L_i: takes A_i and spins (it never sleeps holding it) until the
 * referee releases the round; notes whether it ran for H_i in the game. */
static void holder(void *arg)
{
	struct chain *ch = arg;
	struct game *g = ch->g;

	for (int r = 1; await(g, &ch->parked[0], &g->go_l, r); r++) {
		mutex_lock(&ch->a);
		WRITE_ONCE(ch->l_held, r);
		while (READ_ONCE(g->release) < r) {
			if (READ_ONCE(g->game_on) == r && ch->served != r &&
			    holder_served(g, ch)) {
				ch->served = r;
				ch->served_games++;
			}
			arch_cpu_relax();
		}
		mutex_unlock(&ch->a);
		WRITE_ONCE(ch->l_done, r);
	}
	__atomic_fetch_add(&ch->exited, 1, __ATOMIC_RELEASE);
}

static void mid(void *arg)
{
	struct chain *ch = arg;
	struct game *g = ch->g;

	for (int r = 1; await(g, &ch->parked[1], &g->go_m, r); r++) {
		mutex_lock(&ch->b);
		WRITE_ONCE(ch->m_held, r);
		mutex_lock(&ch->a);
		ch->m_got++;
		mutex_unlock(&ch->a);
		mutex_unlock(&ch->b);
		WRITE_ONCE(ch->m_done, r);
	}
	__atomic_fetch_add(&ch->exited, 1, __ATOMIC_RELEASE);
}

static void high(void *arg)
{
	struct chain *ch = arg;
	struct game *g = ch->g;

	for (int r = 1; await(g, &ch->parked[2], &g->go_h, r); r++) {
		mutex_lock(&ch->b);
		ch->h_got++;
		mutex_unlock(&ch->b);
		WRITE_ONCE(ch->h_done, r);
	}
	__atomic_fetch_add(&ch->exited, 1, __ATOMIC_RELEASE);
}

/* O_j: on the bench between games; during one, counts a ball for every
 * look that finds it running on a foul. */
static void offence(void *arg)
{
	struct offence *o = arg;
	struct game *g = o->g;

	for (int r = 1; await(g, &o->parked, &g->kickoff, r); r++) {
		while (READ_ONCE(g->game_on) == r) {
			bool f = fb_foul(g);

			/* Still on after the look (the referee turns the game
			 * off before anyone unlocks): a look that began before
			 * a preemption and ends after the game is no foul.
			 * The fence keeps the look's reads before the re-read. */
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			if (f && READ_ONCE(g->game_on) == r && o->ball++ == 0)
				fb_note_foul(g, o, r);
			arch_cpu_relax();
		}
		WRITE_ONCE(o->benched, r);
	}
	WRITE_ONCE(o->exited, 1);
}

/* ---- The referee ------------------------------------------------------ */

typedef bool (*ready_fn)(struct game *g, int i, int r);

/* Look every half millisecond until ready(g, i, r) holds for every
 * i < n, at most FB_WAIT_NS.  Returns -1, or the first i not ready. */
static int wait_all(struct game *g, ready_fn ready, int r, uint64_t bound)
{
	uint64_t end = clock_ns() + bound;

	for (;;) {
		int i = 0;

		while (i < g->n && ready(g, i, r))
			i++;
		if (i == g->n)
			return -1;
		if (clock_ns() >= end)
			return i;
		sleep_ns(MS / 2);
	}
}

static bool l_holds(struct game *g, int i, int r)
{
	return READ_ONCE(g->ch[i].l_held) == r;
}

static bool m_blocked(struct game *g, int i, int r)
{
	return READ_ONCE(g->ch[i].m_held) == r &&
	       px_blocked_on(g->ch[i].m, &g->ch[i].a);
}

static bool h_blocked(struct game *g, int i, int r)
{
	(void)r;
	return px_blocked_on(g->ch[i].h, &g->ch[i].b);
}

static bool round_done(struct game *g, int i, int r)
{
	struct chain *ch = &g->ch[i];

	return READ_ONCE(ch->h_done) == r && READ_ONCE(ch->m_done) == r &&
	       READ_ONCE(ch->l_done) == r && READ_ONCE(g->off[i].benched) == r;
}

static bool players_gone(struct game *g, int i, int r)
{
	(void)r;
	return __atomic_load_n(&g->ch[i].exited, __ATOMIC_ACQUIRE) == 3 &&
	       READ_ONCE(g->off[i].exited);
}

/*
 * Is the defence set: every holder on a CPU, running with its high
 * task's context (proxy: its CPU's donor is H_i; inherit: L_i has H_i's
 * priority; none: just running)?  One chain may wait on the referee's
 * own CPU, whole (proxy: H_i queued there too), as the referee preempted
 * it to look.  A chain whose deadline high task is throttled has no
 * context to be served with until its replenishment, and is not judged
 * in the game (fb_chain_waits): it counts as set.
 */
static bool defence_set(struct game *g, int *bad)
{
	int here = smp_processor_id(), preempted = 0;

	for (int i = 0; i < g->n; i++) {
		struct chain *ch = &g->ch[i];
		int c = READ_ONCE(ch->l->cpu);
		struct rq *rq = cpu_rq(c);
		bool boosted = true, set;

		if (g->v->deadline_high && READ_ONCE(ch->h->dl.dl_throttled))
			continue;

		if (g->mode == LOCKING_PROXY)
			boosted = READ_ONCE(ch->h->cpu) == c;
		else if (g->mode == LOCKING_INHERIT)
			boosted = READ_ONCE(ch->l->prio) == READ_ONCE(ch->h->prio);
		set = READ_ONCE(rq->curr) == ch->l && boosted &&
		      (g->mode != LOCKING_PROXY || READ_ONCE(rq->donor) == ch->h);
		if (set || (c == here && boosted && !preempted++))
			continue;
		*bad = i;
		return false;
	}
	return true;
}

/* Wait (bounded) for the defence to be set before the kick-off, so that
 * the offence is not woken into a chain still on its way (a move, a push
 * within the invariant's window).  A defence that is never set is the
 * scheduler's failure, for the checker to report (a chain queued behind
 * another while a CPU runs lower outlives its bound long before this
 * gives up) and for the offence to score against.  False: not set. */
static bool settle(struct game *g, int *bad)
{
	uint64_t end = clock_ns() + FB_SETTLE_NS;

	while (!defence_set(g, bad)) {
		if (clock_ns() >= end)
			return false;
		sleep_ns(MS / 2);
	}
	return true;
}

/* Call up every player of role @k: 0..2 L, M, H; 3 the offence. */
static void call_up_all(struct game *g, int k)
{
	for (int i = 0; i < g->n; i++) {
		struct chain *ch = &g->ch[i];
		struct task *p = k == 0 ? ch->l : k == 1 ? ch->m :
				 k == 2 ? ch->h : g->off[i].p;

		call_up(g, p, k < 3 ? &ch->parked[k] : &g->off[i].parked);
	}
}

static struct task *spawn(struct ktest *t, const char *fmt, int i,
			  void (*fn)(void *), void *arg,
			  const struct sched_attr *a, uint64_t affinity)
{
	struct thread_opts o = { .attr = a, .affinity = affinity };
	struct task *p = NULL;
	char name[TASK_NAME_LEN];
	int err;

	snprintf(name, sizeof(name), fmt, i);
	err = thread_spawn(&p, name, fn, arg, &o);
	if (err) {
		ktest_fail(t, __FILE__, __LINE__, "thread_spawn %s: %d", name, err);
		return NULL;
	}
	return p;
}

/* Every player of the game on its bench, waiting for round 1.  False:
 * one could not be made (reported; the ones made are told to quit). */
static bool spawn_players(struct ktest *t, struct game *g)
{
	const struct sched_attr low_rt = { .policy = SCHED_FIFO,
					   .rt_priority = PRIO_LOW };
	const struct sched_attr low_fair = { .policy = SCHED_NORMAL };
	const struct sched_attr mid_rt = { .policy = SCHED_FIFO,
					   .rt_priority = PRIO_MID };
	const struct sched_attr high_rt = { .policy = SCHED_FIFO,
					    .rt_priority = PRIO_HIGH };
	const struct sched_attr high_dl = { .policy = SCHED_DEADLINE,
		.dl_runtime = DL_RUNTIME, .dl_deadline = DL_PERIOD,
		.dl_period = DL_PERIOD };
	const struct sched_attr off_rt = { .policy = SCHED_FIFO,
					   .rt_priority = PRIO_OFFENCE };
	const struct variant *v = g->v;

	for (int i = 0; i < g->n; i++) {
		struct chain *ch = &g->ch[i];
		uint64_t aff = v->pinned ? 1ULL << g->cpu_ids[i] : 0;

		ch->l = spawn(t, "fb-L%d", i, holder, ch,
			      v->fair_holder ? &low_fair : &low_rt, aff);
		ch->m = spawn(t, "fb-M%d", i, mid, ch, &mid_rt, aff);
		ch->h = spawn(t, "fb-H%d", i, high, ch,
			      v->deadline_high ? &high_dl : &high_rt, aff);
		g->off[i].p = spawn(t, "fb-O%d", i, offence, &g->off[i],
				    &off_rt, 0);
		/* A player that was never made counts as gone. */
		__atomic_fetch_add(&ch->exited, !ch->l + !ch->m + !ch->h,
				   __ATOMIC_RELEASE);
		g->off[i].exited = !g->off[i].p;
		if (!ch->l || !ch->m || !ch->h || !g->off[i].p) {
			for (int j = i + 1; j < g->n; j++) {
				g->ch[j].exited = 3;
				g->off[j].exited = 1;
			}
			return false;
		}
		ch->h_throttled0 = READ_ONCE(ch->h->dl.nr_throttled);
	}
	return true;
}

/*
 * One round; false if it could not be played (reported).  The game's
 * checker figures are added to the case's.
 */
static bool play_round(struct ktest *t, struct game *g, int r)
{
	struct sched_verify_stats s0, s1;
	int bad = -1;

	WRITE_ONCE(g->go_l, r);
	call_up_all(g, 0);
	if ((bad = wait_all(g, l_holds, r, FB_WAIT_NS)) >= 0) {
		ktest_fail(t, __FILE__, __LINE__, "round %d: fb-L%d never took "
			   "its lock", r, bad);
		return false;
	}
	WRITE_ONCE(g->go_m, r);
	call_up_all(g, 1);
	if ((bad = wait_all(g, m_blocked, r, FB_WAIT_NS)) >= 0) {
		ktest_fail(t, __FILE__, __LINE__, "round %d: fb-M%d never "
			   "blocked on A", r, bad);
		return false;
	}
	if (g->v->woken_mid)
		for (int i = 0; i < g->n; i++)
			wake_up(g->ch[i].m);	/* spurious: see woken_mid */
	WRITE_ONCE(g->go_h, r);
	call_up_all(g, 2);
	if ((bad = wait_all(g, h_blocked, r, FB_WAIT_NS)) >= 0) {
		ktest_fail(t, __FILE__, __LINE__, "round %d: fb-H%d never "
			   "blocked on B", r, bad);
		return false;
	}
	if (!settle(g, &bad)) {
		struct chain *ch = &g->ch[bad];
		int c = READ_ONCE(ch->l->cpu);

		printk("# round %d: defence not set after %llu ms: chain %d "
		       "(holder on cpu%d, %s, prio %d; mid on cpu%d; high on "
		       "cpu%d, prio %d); kick-off anyway\n", r,
		       (unsigned long long)(FB_SETTLE_NS / MS), bad, c,
		       cpu_rq(c)->curr == ch->l ? "running" : "not running",
		       READ_ONCE(ch->l->prio), READ_ONCE(ch->m->cpu),
		       READ_ONCE(ch->h->cpu), READ_ONCE(ch->h->prio));
		g->unsettled++;
	}

	sched_verify_read(&s0);
	for (int i = 0; i < g->n; i++) {
		g->ch[i].game_throttled0 = READ_ONCE(g->ch[i].h->dl.nr_throttled);
		g->ch[i].kickoff_throttled = READ_ONCE(g->ch[i].h->dl.dl_throttled);
	}
	g->kickoff_ns = clock_ns();
	WRITE_ONCE(g->game_on, r);
	smp_mb();		/* an offence that sees the kick-off sees the game on */
	WRITE_ONCE(g->kickoff, r);
	call_up_all(g, 3);
	sleep_ns(FB_GAME_NS);
	WRITE_ONCE(g->game_on, 0);
	smp_mb();		/* off before anything is released */
	sched_verify_read(&s1);
	g->game_misses += s1.misses - s0.misses;
	g->game_windows += s1.windows - s0.windows;

	WRITE_ONCE(g->release, r);
	if ((bad = wait_all(g, round_done, r, FB_WAIT_NS)) >= 0) {
		struct chain *ch = &g->ch[bad];

		ktest_fail(t, __FILE__, __LINE__, "round %d: chain %d not over "
			   "(high %s, mid %s, holder %s, fb-O%d %s)", r, bad,
			   ch->h_done == r ? "done" : "not done",
			   ch->m_done == r ? "done" : "not done",
			   ch->l_done == r ? "done" : "not done", bad,
			   g->off[bad].benched == r ? "benched" : "not benched");
		return false;
	}
	return true;
}

/* Everyone leaves; true if every player did (they can be joined). */
static bool end_game(struct ktest *t, struct game *g)
{
	int bad;

	for (int i = 0; i < g->n; i++)
		if (g->ch[i].h)
			g->throttled += READ_ONCE(g->ch[i].h->dl.nr_throttled) -
					g->ch[i].h_throttled0;
	WRITE_ONCE(g->game_on, 0);
	WRITE_ONCE(g->release, FB_DONE);
	WRITE_ONCE(g->quit, 1);
	smp_mb();
	for (int k = 0; k < 4; k++)
		call_up_all(g, k);
	if ((bad = wait_all(g, players_gone, 0, FB_WAIT_NS)) >= 0) {
		ktest_fail(t, __FILE__, __LINE__, "chain %d or fb-O%d never "
			   "finished: the game is abandoned", bad, bad);
		return false;
	}
	for (int i = 0; i < g->n; i++) {
		px_join(g->ch[i].l);
		px_join(g->ch[i].m);
		px_join(g->ch[i].h);
		px_join(g->off[i].p);
	}
	return true;
}

/*
 * A new game of variant @v in locking mode @mode, the caller its referee
 * (on the last CPU; a deadline task if the high tasks are).  NULL: it
 * could not be set up (reported).
 */
static struct game *new_game(struct ktest *t, const struct variant *v,
			     enum locking_mode mode)
{
	const struct sched_attr ref_dl = { .policy = SCHED_DEADLINE,
		.dl_runtime = REF_DL_RUNTIME, .dl_deadline = REF_DL_DEADLINE,
		.dl_period = REF_DL_PERIOD };
	struct game *g = kzalloc(sizeof(*g));
	int k = 0, err;

	if (!g) {
		ktest_fail(t, __FILE__, __LINE__, "out of memory");
		return NULL;
	}
	g->v = v;
	g->mode = mode;
	g->n = online_cpus();
	for (int c = 0; c < ncpus; c++) {
		g->chain_of_cpu[c] = -1;
		if (READ_ONCE(cpu_by_id(c)->online) && k < g->n) {
			g->chain_of_cpu[c] = v->pinned ? k : -1;
			g->cpu_ids[k++] = c;
		}
	}
	g->referee = current();
	spin_init(&g->bench_lock, "football-bench");
	for (int i = 0; i < g->n; i++) {
		struct chain *ch = &g->ch[i];

		ch->g = g;
		snprintf(ch->a_name, sizeof(ch->a_name), "fb-A%d", i);
		snprintf(ch->b_name, sizeof(ch->b_name), "fb-B%d", i);
		mutex_init(&ch->a, ch->a_name);
		mutex_init(&ch->b, ch->b_name);
		g->off[i].g = g;
	}
	if (!px_begin_mode(t, g->cpu_ids[g->n - 1], mode))
		goto fail;
	if (v->deadline_high && (err = sched_setattr(current(), &ref_dl))) {
		ktest_fail(t, __FILE__, __LINE__, "the referee cannot be a "
			   "deadline task: %d", err);
		goto fail;
	}
	return g;
fail:
	px_end();
	kfree(g);
	return NULL;
}

/* Play FB_ROUNDS rounds of variant @v in locking mode @mode, with the
 * checker on (started here if it is not on from boot), and judge. */
static void play(struct ktest *t, const struct variant *v, enum locking_mode mode)
{
	int blocked0 = __atomic_load_n(&mutex_nr_blocked, __ATOMIC_SEQ_CST);
	bool own_checker = false, joined;
	struct game *g = new_game(t, v, mode);

	if (!g)
		return;
	if (!sched_verify_running())	/* the ticks rule, as from boot */
		own_checker = sched_verify_start(SCHED_VERIFY_DEFAULT_PERIOD, 0) == 0;
	sched_verify_read(&g->st0);
	if (spawn_players(t, g))
		while (g->rounds < FB_ROUNDS && play_round(t, g, g->rounds + 1))
			g->rounds++;
	joined = end_game(t, g);
	sched_verify_read(&g->st1);
	if (own_checker)
		sched_verify_stop();
	for (int i = 0; i < g->n; i++)
		g->ball += g->off[i].ball;
	if (px_end() != 0)
		ktest_fail(t, __FILE__, __LINE__, "the boot's locking mode not "
			   "restored: tasks still wait on mutexes");
	fb_report(g);
	fb_judge(t, g, joined, blocked0, own_checker);
	/* An abandoned game's players may still run: leave them its memory. */
	if (joined)
		kfree(g);
}

static const struct variant v_free = { .name = "free" };
static const struct variant v_pinned = { .name = "pinned", .pinned = true };
static const struct variant v_fair = { .name = "fair_holder",
				       .fair_holder = true };
static const struct variant v_deadline = { .name = "deadline_high",
					   .deadline_high = true };
static const struct variant v_woken_mid = { .name = "woken_mid",
					    .pinned = true, .woken_mid = true };

/* Chains and offence free to run anywhere. */
static void proxy_free_offence_never_scores(struct ktest *t)
{
	play(t, &v_free, LOCKING_PROXY);
}

/* Each chain pinned to its own CPU, the offence free. */
static void proxy_pinned_offence_never_scores(struct ktest *t)
{
	play(t, &v_pinned, LOCKING_PROXY);
}

/* A fair holder: the whole RT context is the high task's, lent. */
static void proxy_fair_holder_offence_never_scores(struct ktest *t)
{
	play(t, &v_fair, LOCKING_PROXY);
}

/* A deadline high task: the chains outrank the offence as a class. */
static void proxy_deadline_high_offence_never_scores(struct ktest *t)
{
	play(t, &v_deadline, LOCKING_PROXY);
}

static void inherit_free_offence_never_scores(struct ktest *t)
{
	play(t, &v_free, LOCKING_INHERIT);
}

static void inherit_pinned_offence_never_scores(struct ktest *t)
{
	play(t, &v_pinned, LOCKING_INHERIT);
}

static void inherit_fair_holder_offence_never_scores(struct ktest *t)
{
	play(t, &v_fair, LOCKING_INHERIT);
}

static void inherit_deadline_high_offence_never_scores(struct ktest *t)
{
	play(t, &v_deadline, LOCKING_INHERIT);
}

/*
 * Pinned chains, and just before H_i blocks the referee wakes M_i, which
 * waits for A_i (a wakeup without the lock: legal, as a spurious wakeup
 * or a first waiter beaten to the lock are; mutex_lock() looks at the
 * lock again and sleeps again).  Under inherit, M_i cannot run at once
 * (its CPU runs L_i, boosted to M_i's FIFO 30: a tie), so H_i blocks
 * while M_i is marked PROXY_WAKING: the boost must still reach L_i once
 * M_i sleeps again.  Under proxy, the pick runs M_i, then L_i, for H_i.
 */
static void proxy_woken_mid_offence_never_scores(struct ktest *t)
{
	play(t, &v_woken_mid, LOCKING_PROXY);
}

static void inherit_woken_mid_offence_never_scores(struct ktest *t)
{
	play(t, &v_woken_mid, LOCKING_INHERIT);
}

/* Nothing lent: the holders run at FIFO 10, the offence takes the CPUs.
 * The case passes when the offence scores: the referee sees inversion. */
static void none_expects_inversion_offence_scores(struct ktest *t)
{
	play(t, &v_free, LOCKING_NONE);
}

#define FB_CASE(fn) KTEST_CASE_TIMEOUT(fn, 60000)

static struct ktest_case football_cases[] = {
	FB_CASE(proxy_free_offence_never_scores),
	FB_CASE(proxy_pinned_offence_never_scores),
	FB_CASE(proxy_fair_holder_offence_never_scores),
	FB_CASE(proxy_deadline_high_offence_never_scores),
	FB_CASE(inherit_free_offence_never_scores),
	FB_CASE(inherit_pinned_offence_never_scores),
	FB_CASE(inherit_fair_holder_offence_never_scores),
	FB_CASE(inherit_deadline_high_offence_never_scores),
	FB_CASE(proxy_woken_mid_offence_never_scores),
	FB_CASE(inherit_woken_mid_offence_never_scores),
	FB_CASE(none_expects_inversion_offence_scores),
	{ 0 },
};
KTEST_SUITE(football, football_cases);
