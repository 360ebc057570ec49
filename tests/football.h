/*
 * football.h - what the football suite's game (tests/football.c) and its
 * reports (tests/football_report.c) share: the players, the game and the
 * per-case figures.  The game itself is described in football.c.
 */
#ifndef TESTS_FOOTBALL_H
#define TESTS_FOOTBALL_H
#include "proxy_helpers.h"
#include "cpu.h"
#include "mutex.h"
#include "sched_verify.h"

#define FB_ROUNDS 5
#define FB_GAME_NS (100 * MS)		/* one game, guest time */
#define FB_FOUL_LEN 512

struct variant {
	const char *name;
	bool pinned;		/* chain i on the i-th CPU (offence free) */
	bool fair_holder;	/* L_i fair, not FIFO 10 */
	bool deadline_high;	/* H_i SCHED_DEADLINE, not FIFO 70 */
	bool woken_mid;		/* M_i woken once, without its lock, just
				   before H_i blocks (football.c) */
};

struct game;

struct chain {
	struct game *g;
	struct mutex a, b;
	char a_name[12], b_name[12];
	struct task *l, *m, *h;
	/* Round numbers, each written by its task only. */
	volatile int l_held, m_held;	/* took A_i / B_i this round */
	volatile int l_done, m_done, h_done;
	volatile int served;		/* L_i ran with H_i's context in this
					   round's game */
	int parked[3];			/* L_i, M_i, H_i on the bench (bench_lock) */
	int served_games;
	int m_got, h_got;		/* acquisitions of A_i by M_i, B_i by H_i */
	int exited;			/* atomic: players of the chain gone */
	uint64_t h_throttled0;		/* H_i's nr_throttled at its spawn, */
	uint64_t game_throttled0;	/*   at the kick-off */
	bool kickoff_throttled;		/* H_i throttled at the kick-off */
};

struct offence {
	struct game *g;
	struct task *p;
	int parked;			/* on the bench (bench_lock) */
	volatile int benched;		/* round it left the pitch after */
	volatile int exited;
	uint64_t ball;
};

struct game {
	const struct variant *v;
	enum locking_mode mode;
	int n;				/* chains == offence tasks == CPUs */
	int cpu_ids[NR_CPUS];		/* the online CPUs */
	int chain_of_cpu[NR_CPUS];	/* pinned: whose CPU it is, or -1 */
	struct task *referee;
	spinlock_t bench_lock;		/* the parked flags vs call_up() */
	/* What the referee says, in round numbers. */
	volatile int go_l, go_m, go_h, kickoff;
	volatile int game_on;		/* the round being played, or 0 */
	volatile int release;		/* holders unlock up to this round */
	volatile int quit;
	uint64_t kickoff_ns;
	struct chain ch[NR_CPUS];
	struct offence off[NR_CPUS];
	int foul_taken;			/* atomic: the first foul is written */
	uint64_t foul_ns;		/*   when */
	char foul[FB_FOUL_LEN];
	/* The case's figures, for its verdict and report. */
	int rounds, unsettled;		/* played; kicked off unset */
	uint64_t ball, throttled;	/* the offence's; the high tasks' */
	uint64_t game_misses, game_windows;	/* the checker's, in games */
	struct sched_verify_stats st0, st1;	/* the checker's, before/after */
};

/* football_report.c: does chain @ch wait, and could it run (a foul if
 * an offence task runs meanwhile)?  Racy looks, any task. */
bool fb_chain_waits(struct game *g, struct chain *ch);
/* football_report.c: is it a foul that the caller, an offence task,
 * runs now? */
bool fb_foul(struct game *g);
/* football_report.c: an offence task (@o) saw the case's first foul in
 * round @r: note what every CPU runs. */
void fb_note_foul(struct game *g, struct offence *o, int r);
/* football_report.c: print the case's figures and its first foul. */
void fb_report(struct game *g);
/* football_report.c: the case's verdict (@joined: every player exited;
 * @blocked0: mutex_nr_blocked before it; @own_checker: the case started
 * sched_verify). */
void fb_judge(struct ktest *t, struct game *g, bool joined, int blocked0,
	      bool own_checker);
#endif
