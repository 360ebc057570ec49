/*
 * steps.h - the table of steps, which the two halves of the scenario
 * engine share besides struct scenario (scenario.h).  For each kind of
 * step (enum scn_op): its words in a script, the function that parses
 * it, the function that runs it, and a line that says what it does.
 *
 * The parse functions live in the parse half (parse_steps.c,
 * ww_parse.c), which sees inside struct parser (parse.h); the run
 * functions in the run half (run_steps.c, run_check.c, ww_run.c), which
 * sees inside struct scn_trun (run.h).  Here both are opaque, and no
 * file includes both parse.h and run.h.
 *
 * A new step: a value in enum scn_op (scenario.h), its row in steps.c,
 * its parse function next to its kind's, its run function likewise, and
 * its line in docs/scenarios.md (an assertion: also its kind in
 * ASSERT_KINDS, parse_steps.c).  docs/scenarios.md, "The engine".
 */
#ifndef SCENARIO_STEPS_H
#define SCENARIO_STEPS_H
#include "scenario.h"

struct parser;
struct scn_trun;

struct scn_step_kind {
	/*
	 * Its words at the start of a line, "lock", "assert class",
	 * "assert not happened", "assert elapsed <": a line that starts
	 * with them is this step.  Also its name in reports ("line 9: a:
	 * assert donor failed", "a at line 9: compute").
	 */
	const char *name;
	/*
	 * Parse the line (its words after @name) into a new step of
	 * p->task (new_step(p, op)), with every check that needs only the
	 * line and what the task holds there.  False with the error set
	 * (fail_at(), parse.h).  Called with the op of its row.
	 */
	bool (*parse)(struct parser *p, int op);
	/*
	 * Run step @st in its task's thread (task context, the task's own
	 * class and CPUs); an assertion reports its case (report(), run.h).
	 * False ends the task: it was stopped, or the step failed so that
	 * the steps after it would make no sense.
	 */
	bool (*run)(struct scn_trun *tr, const struct scn_step *st);
	const char *doc;		/* "lock M: mutex_lock(), ..." */
};

/* Indexed by enum scn_op; every row complete (scenario_parse() checks). */
extern const struct scn_step_kind scn_steps[SCN_NR_OPS];

/* enum scn_cmp -> "=", "<", ... (scripts) and "eq", "lt", ... (case
 * names). */
extern const char *const scn_cmp_ops[SCN_NR_CMPS];
extern const char *const scn_cmp_names[SCN_NR_CMPS];

/* parse_steps.c, ww_parse.c, sem_parse.c */
bool scn_parse_lock(struct parser *p, int op);	/* lock, unlock, trylock */
bool scn_parse_duration(struct parser *p, int op);	/* compute, sleep */
bool scn_parse_yield(struct parser *p, int op);
bool scn_parse_set(struct parser *p, int op);
bool scn_parse_print(struct parser *p, int op);
bool scn_parse_event(struct parser *p, int op);	/* mark, wait */
bool scn_parse_wwlock(struct parser *p, int op);
bool scn_parse_wwunlock(struct parser *p, int op);
bool scn_parse_a_class(struct parser *p, int op);
bool scn_parse_a_prio(struct parser *p, int op);
bool scn_parse_a_donor(struct parser *p, int op);
bool scn_parse_a_cpu(struct parser *p, int op);
bool scn_parse_a_happened(struct parser *p, int op);	/* and not */
bool scn_parse_a_elapsed(struct parser *p, int op);	/* < and > */
bool scn_parse_a_backoffs(struct parser *p, int op);
bool scn_parse_a_order(struct parser *p, int op);
bool scn_parse_repeat(struct parser *p, int op);
bool scn_parse_end_repeat(struct parser *p, int op);
bool scn_parse_spin(struct parser *p, int op);
/* sem_parse.c */
bool scn_parse_sema(struct parser *p, int op);		/* down, up */
bool scn_parse_cwait(struct parser *p, int op);
bool scn_parse_signal(struct parser *p, int op);	/* and broadcast */

/* run_steps.c, run_check.c, ww_run.c, sem_run.c */
bool scn_run_lock(struct scn_trun *tr, const struct scn_step *st);
bool scn_run_unlock(struct scn_trun *tr, const struct scn_step *st);
bool scn_run_trylock(struct scn_trun *tr, const struct scn_step *st);
bool scn_run_compute(struct scn_trun *tr, const struct scn_step *st);
bool scn_run_sleep(struct scn_trun *tr, const struct scn_step *st);
bool scn_run_yield(struct scn_trun *tr, const struct scn_step *st);
bool scn_run_set(struct scn_trun *tr, const struct scn_step *st);
bool scn_run_print(struct scn_trun *tr, const struct scn_step *st);
bool scn_run_mark(struct scn_trun *tr, const struct scn_step *st);
bool scn_run_wait(struct scn_trun *tr, const struct scn_step *st);
bool scn_run_wwlock(struct scn_trun *tr, const struct scn_step *st);
bool scn_run_wwunlock(struct scn_trun *tr, const struct scn_step *st);
bool scn_check_class(struct scn_trun *tr, const struct scn_step *st);
bool scn_check_prio(struct scn_trun *tr, const struct scn_step *st);
bool scn_check_donor(struct scn_trun *tr, const struct scn_step *st);
bool scn_check_cpu(struct scn_trun *tr, const struct scn_step *st);
bool scn_check_happened(struct scn_trun *tr, const struct scn_step *st);
bool scn_check_elapsed(struct scn_trun *tr, const struct scn_step *st);
bool scn_check_backoffs(struct scn_trun *tr, const struct scn_step *st);
bool scn_check_order(struct scn_trun *tr, const struct scn_step *st);
bool scn_run_repeat(struct scn_trun *tr, const struct scn_step *st);
bool scn_run_end_repeat(struct scn_trun *tr, const struct scn_step *st);
bool scn_run_spin(struct scn_trun *tr, const struct scn_step *st);
bool scn_run_down(struct scn_trun *tr, const struct scn_step *st);
bool scn_run_up(struct scn_trun *tr, const struct scn_step *st);
bool scn_run_cwait(struct scn_trun *tr, const struct scn_step *st);
bool scn_run_signal(struct scn_trun *tr, const struct scn_step *st);
bool scn_run_broadcast(struct scn_trun *tr, const struct scn_step *st);
#endif
