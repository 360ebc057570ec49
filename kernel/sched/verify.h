/*
 * verify.h - what the real-time invariant checker's two files share:
 * verify.c (sampling, windows, the API) and verify_report.c (the report
 * of a miss, and printing it with the trace around it).  Nothing else
 * includes it.
 */
#ifndef SCHED_VERIFY_INTERNAL_H
#define SCHED_VERIFY_INTERNAL_H
#include "internal.h"
#include "sched_verify.h"

#define SV_MAX_OPEN 64		/* windows followed at once */
#define SV_REPORTS 4		/* miss reports kept */
#define SV_REPORT_LEN 6144	/* 8 CPUs with their queues */
#define SV_LOCK_SPINS 2000	/* looks at a busy runqueue lock */
#define SV_MAX_HOPS 16		/* a longer blocked_on chain: a cycle */

/* A scheduling context's rank for the invariant.  Fair and idle are
 * all equal, at the bottom: the invariant is about RT and deadline. */
enum { RANK_LOW, RANK_RT, RANK_DL, RANK_STOP };
struct rank {
	int cls;
	uint64_t key;		/* RT: prio; deadline: absolute deadline */
};

/* One window being followed: W waits while a CPU runs lower. */
struct window {
	struct task *w;			/* compared by pointer once gone */
	int tid;			/* w's: a freed task's memory comes
					   back as a new task (thread.c's
					   cache) while a window is open */
	uint64_t start_ns;
	/* Where start_ns came from: the sample that first saw it, and at
	 * that moment W's ready_ns, the target's pick_ns and the previous
	 * sample (start is the later stamp, not before that sample). */
	uint64_t open_ns, open_ready_ns, open_pick_ns, open_prev_ns;
	/* What that sample saw: the target and its donor, and where W's
	 * chain led (the task it ended on, where W may run). */
	int open_target, open_tdonor_tid, open_end_tid, open_end_cpu;
	struct rank open_tdonor;
	uint64_t open_may;
	uint64_t last_seen_ns;
	int src;			/* where it is queued */
	int target;			/* lowest-ranked CPU it may run on */
	uint64_t target_switches;	/* its nr_switches when it became it */
	unsigned moves;			/* times it changed runqueue meanwhile */
	uint64_t switches;		/* w->nr_switches when last seen */
	uint64_t migrations;		/* w->nr_migrations when last seen */
	int end_tid;			/* the task W's chain ended on when
					   last seen: another end (a handoff,
					   a block) is a new event, whose
					   window starts afresh */
	unsigned nseen;			/* samples that saw it */
	uint64_t busy0, samples0;	/* sv.st counters when it began */
	int report;			/* its report slot, -1: none */
	bool seen, missed;
	uint32_t ticks0[NR_CPUS];	/* rq->nr_preempt_ticks when it began */
	uint32_t picks0[NR_CPUS];	/* rq->nr_picks when it began */
	uint32_t src_ticks0;		/* src's, when it arrived there */
	uint32_t target_ticks0;		/* the target's, when it became the
					   target (see(): past_bound) */
};

struct report {
	uint64_t seq;			/* the miss's number, 1-based */
	bool open;
	uint64_t len_ns;		/* how long the window lasted */
	uint64_t start_ns, miss_ns;	/* the window, up to the miss */
	uint64_t cpus;			/* the CPUs it involved */
	char tag[16];			/* "#tid": the task in trace lines */
	char text[SV_REPORT_LEN];
};

/* The checker (verify.c defines it); sv.lock is outside every rq->lock. */
struct sv_state {
	spinlock_t lock;		/* outside every rq->lock */
	bool on;
	uint64_t period_ns, bound_ns;
	uint64_t prev_sample_ns;	/* the last sample taken, or the start */
	struct timer timer;
	struct sched_verify_stats st;
	struct window open[SV_MAX_OPEN];
	int nopen;
	struct report reports[SV_REPORTS];
	uint64_t consumed;		/* misses up to this one were printed
					   or passed over: their slots are free */
	bool trace_frozen;		/* we stopped the trace at a miss */
};
extern struct sv_state sv;

/* verify.c: @p's context as the invariant ranks it; does @a run
 * strictly before @b; a rank's name; where @w's context may run (its
 * chain's end, under proxy execution).  All rq locks held for the last. */
struct rank task_rank(const struct task *p);
bool rank_above(struct rank a, struct rank b);
const char *rank_name(struct rank r);
uint64_t where_may_run(struct task *w);

/* verify_report.c: write the picture of a miss of @win into @r, from the
 * sample's @donor ranks.  All rq locks held. */
void write_report(struct report *r, struct window *win, uint64_t now,
		  const struct rank *donor);
#endif
