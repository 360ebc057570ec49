/*
 * run.h - what a running scenario is, shared by the run half of the
 * scenario engine: run.c (the controller: starting, stopping, the
 * final case), run_steps.c (a task's thread and its steps), run_check.c
 * (assertions and their results), ww_run.c (the wound/wait steps) and
 * sem_run.c (semaphores and condvars).
 * Nothing here knows the parser: a run starts from a struct scenario.
 */
#ifndef SCENARIO_RUN_H
#define SCENARIO_RUN_H
#include "scenario.h"
#include "ktap.h"
#include "mutex.h"
#include "ww_mutex.h"
#include "semaphore.h"
#include "condvar.h"
#include "timer.h"

#define SCN_GRACE_NS (20 * NSEC_PER_MSEC)

struct scn_run;

/* One task of the running scenario. */
struct scn_trun {
	struct scn_run *run;
	const struct scn_task *st;
	struct task *task;		/* set by thread_spawn before it runs */
	int step;			/* the step it is at (for reports) */
	int jump;			/* set by a step: the next step, or -1 */
	int loop_left;			/* runs of its repeat body still to do,
					   this one included */
	int waiting;			/* mutex it blocks on, or -1 */
	int wait_event;			/* event it waits for, or -1 */
	int held[SCN_MAX_MUTEXES];	/* in locking order */
	int nheld;
	bool started;			/* past its start time */
	bool finished;			/* ran every step */
	bool ended;			/* its thread is about to exit */
	/* ww_run.c: the open acquire context (nww > 0) and what it covers */
	struct ww_acquire_ctx ctx;
	uint8_t wwset[SCN_MAX_MUTEXES];	/* in wwlock order */
	int nww;
	int backoffs;			/* -EDEADLK answers, all contexts */
};

struct scn_run {
	const struct scenario *s;
	uint64_t t0, deadline;
	int go;				/* t0 is set: tasks may start */
	int abort;			/* stop now: time is up or an error */
	uint64_t events;		/* atomic: bit e = event e happened */
	uint32_t ev_seq[SCN_MAX_EVENTS];	/* atomic: 1.. in the order of
					   first marks; 0: not yet */
	uint32_t nseq;			/* atomic: first marks so far */
	int nleft;			/* atomic: tasks not yet ended */
	int failed;			/* atomic: assertions that failed */
	int errors;			/* atomic: steps the kernel refused */
	uint64_t reported[(SCN_MAX_TASKS * SCN_MAX_STEPS + 63) / 64];
	spinlock_t out_lock;		/* a result and its diagnostic */
	struct task *controller;
	struct ktap top;		/* its result line, in the plan */
	struct ktap sub;		/* its own lines (a subtest) */
	int ntasks;			/* created */
	int at_gate;			/* atomic: tasks that reached the gate */
	struct ww_class wwclass;	/* of every wwmutex of the scenario */
	struct mutex mx[SCN_MAX_MUTEXES];	/* the plain ones */
	struct ww_mutex ww[SCN_MAX_MUTEXES];	/* bit m of s->ww set */
	struct semaphore sem[SCN_MAX_SEMS];
	struct condvar cv[SCN_MAX_CONDS];
	struct scn_trun tr[SCN_MAX_TASKS];
};

/* The struct mutex behind scenario mutex @m, whichever its kind. */
static inline struct mutex *scn_mutex(struct scn_run *r, int m)
{
	return r->s->ww & 1ULL << m ? &r->ww[m].base : &r->mx[m];
}

static inline uint64_t since_t0(struct scn_run *r)
{
	return clock_ns() - READ_ONCE(r->t0);
}

static inline bool event_happened(struct scn_run *r, int e)
{
	return __atomic_load_n(&r->events, __ATOMIC_ACQUIRE) & 1ULL << e;
}

/* The steps' own run functions are in steps.h. */

/* The time a blocking step may wait: until the limit plus the grace
 * (at least 1 ns: 0 would mean "forever"). */
static inline uint64_t wait_left(struct scn_run *r)
{
	int64_t left = (int64_t)(r->deadline + SCN_GRACE_NS - clock_ns());

	return left > 0 ? (uint64_t)left : 1;
}

/* run_steps.c */
/* The thread of task @arg (a struct scn_trun). */
void scn_task_main(void *arg);
/* Sleep until @until (clock_ns; 0: no limit), @done(r, arg) or, if
 * @stoppable, the stop. */
void scn_sleep(struct scn_run *r, uint64_t until,
	       bool (*done)(struct scn_run *r, int arg), int arg,
	       bool stoppable);
/* "# <ms> ms TASK: <what><text>" */
void say(struct scn_trun *tr, const char *what, const char *text);
void held_push(struct scn_trun *tr, int m);
void held_drop(struct scn_trun *tr, int m);

/* run_check.c */
/* One assertion's KTAP line, with the diagnostic "line N: TASK: assert
 * X failed: @why" above it if !@ok.  Returns true: an assertion never
 * ends its task (`return report(...)` in a step). */
bool report(struct scn_trun *tr, const struct scn_step *st, bool ok,
	    const char *why);
/* Its KTAP case name, "L<line>_<task>_<what>". */
void case_name(const struct scn_trun *tr, const struct scn_step *st,
	       char *buf, size_t len);

/* ww_run.c */
/* Release every wwmutex of the task's context and end the context. */
void ww_release_all(struct scn_trun *tr);
#endif
