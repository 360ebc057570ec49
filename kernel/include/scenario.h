/*
 * scenario.h - scenario scripts: a small text language that declares
 * mutexes and tasks (class, parameters, affinity, start time), each with
 * a straight-line script of steps (lock, compute, sleep, print, assert,
 * ...), parsed and checked whole before anything runs, then run with one
 * kernel thread per task.  The language is documented in
 * docs/scenarios.md; kernel/scenario/ implements it in two halves that
 * share only this header and steps.h (docs/scenarios.md, "The engine"):
 *
 *   lex.c, parse.c, parse_steps.c, class.c, ww_parse.c, sem_parse.c
 *   (parse.h)  text -> struct scenario, every static check (also built
 *              for the host: tests/host/scn_lint.c)
 *   run.c, run_steps.c, run_check.c, ww_run.c, sem_run.c (run.h)
 *              struct scenario -> threads, KTAP results, stopping
 *   steps.c    what both halves name: steps and comparisons
 *   builtin.c  the scenarios embedded in the kernel, the front ends
 *              (shell, boot command line, boot module)
 */
#ifndef SCENARIO_H
#define SCENARIO_H
#include "kernel.h"
#include "sched.h"

/* Limits; docs/scenarios.md lists them too. */
#define SCN_MAX_BYTES	32768		/* a whole script (a 20 KB paste fits) */
#define SCN_LINE_MAX	160		/* characters in one line */
#define SCN_NAME_MAX	16		/* names, NUL included */
#define SCN_MAX_TASKS	64
#define SCN_MAX_MUTEXES	64		/* mutexes and wwmutexes */
#define SCN_MAX_SEMS	64		/* semaphores */
#define SCN_MAX_CONDS	64		/* condition variables */
#define SCN_MAX_EVENTS	64		/* distinct mark names */
#define SCN_MAX_STEPS	64		/* per task */
#define SCN_MAX_REPEAT	10000		/* repeat N: N at most */
#define SCN_MAX_SEM_COUNT 1000		/* semaphore S=N: N at most */
#define SCN_MAX_ORDER	16		/* events in one assert order */
#define SCN_MAX_SETS	256		/* set steps in a script */
#define SCN_MAX_NS	(60 * NSEC_PER_SEC)	/* any duration */
#define SCN_DEFAULT_TIMEOUT (5 * NSEC_PER_SEC)
#define SCN_ERR_LEN	128

enum scn_op {
	SCN_LOCK, SCN_UNLOCK, SCN_TRYLOCK, SCN_COMPUTE, SCN_SLEEP, SCN_YIELD,
	SCN_SET, SCN_PRINT, SCN_MARK, SCN_WAIT, SCN_WWLOCK, SCN_WWUNLOCK,
	SCN_DOWN, SCN_UP, SCN_CWAIT, SCN_SIGNAL, SCN_BROADCAST,
	SCN_REPEAT, SCN_END_REPEAT, SCN_SPIN,
	/* assertions: one KTAP result each (trylock is one too) */
	SCN_A_CLASS, SCN_A_PRIO, SCN_A_DONOR, SCN_A_CPU, SCN_A_HAPPENED,
	SCN_A_NOT_HAPPENED, SCN_A_ELAPSED_LT, SCN_A_ELAPSED_GT,
	SCN_A_BACKOFFS, SCN_A_ORDER,
	SCN_NR_OPS
};

/* `assert backoffs OP N`: the comparison, in scn_step.ns. */
enum scn_cmp {
	SCN_CMP_EQ, SCN_CMP_LT, SCN_CMP_GT, SCN_CMP_LE, SCN_CMP_GE, SCN_NR_CMPS
};

enum scn_expect { SCN_EXPECT_PASS, SCN_EXPECT_DEADLOCK, SCN_EXPECT_TIMEOUT };

/* A class header (task line or set step); has_attr false: unchanged. */
struct scn_sched {
	bool has_attr;
	struct sched_attr attr;
	uint64_t affinity;		/* CPU mask; 0: unchanged */
};

struct scn_step {
	uint8_t op;			/* enum scn_op */
	uint16_t line;			/* in the script, for reports */
	bool looped;			/* inside a repeat block */
	int16_t arg;			/* mutex / event / task index (-1:
					   self), CPU, prio, class policy,
					   semaphore / condvar index;
					   trylock: mutex | (ok ? 1 : 0) << 8;
					   wwlock, assert order: how many in
					   the list at text; repeat: N;
					   end of repeat: its repeat step;
					   set: its index in sets[] */
	int16_t arg2;			/* cwait: the mutex */
	int16_t who;			/* class, prio, donor: the task asked
					   about (-1: me) */
	uint16_t text;			/* print: offset in scenario->text;
					   wwlock, assert order: a list of
					   mutex / event indexes, one byte
					   each */
	uint16_t who_text, who_col;	/* `of TASK`: its name, until known */
	uint64_t ns;			/* compute, sleep, elapsed bound,
					   spin bound (0: none);
					   assert backoffs: enum scn_cmp */
	int num;			/* assertions: KTAP number (1..) */
};

struct scn_task {
	char name[SCN_NAME_MAX];
	uint16_t line;
	struct scn_sched sched;		/* attr always set; affinity != 0 */
	uint64_t start_ns;
	int nsteps;
	struct scn_step steps[SCN_MAX_STEPS];
};

struct scenario {
	char name[SCN_NAME_MAX];
	int cpus;			/* needed (default 1) */
	int locking;			/* enum locking_mode, or -1: as is */
	uint64_t timeout_ns;
	int expect;			/* enum scn_expect */
	int nmutexes, nevents, ntasks, nsems, nconds;
	uint64_t ww;			/* bit m: mutex m is a wwmutex */
	bool wait_die;			/* wwclass wait-die (else wound-wait) */
	int nasserts;			/* KTAP cases: nasserts + 1 */
	char mutexes[SCN_MAX_MUTEXES][SCN_NAME_MAX];
	char events[SCN_MAX_EVENTS][SCN_NAME_MAX];
	char sems[SCN_MAX_SEMS][SCN_NAME_MAX];
	int sem_count[SCN_MAX_SEMS];	/* initial units */
	char conds[SCN_MAX_CONDS][SCN_NAME_MAX];
	int nsets;
	struct scn_sched sets[SCN_MAX_SETS];	/* of the set steps (kept
					   apart: a step stays small) */
	struct scn_task tasks[SCN_MAX_TASKS];
	int text_len;
	char text[SCN_MAX_BYTES];	/* print texts, NUL separated */
};

/*
 * Parse and check the script @src of @len bytes (need not be NUL
 * terminated).  @online: CPUs online; a script that needs more (`cpus`,
 * `cpu=`) is refused.  Returns a kmalloc'ed scenario (scenario_free())
 * or NULL with one "line:column: message" in @err (SCN_ERR_LEN bytes);
 * *@need_cpus is set to the CPUs asked for when that was the only
 * problem (so that a caller can report a SKIP), else to 0.  Any task
 * context; keeps no state between calls.
 */
struct scenario *scenario_parse(const char *src, size_t len, int online,
				char *err, int *need_cpus);
void scenario_free(struct scenario *s);

/* What scenario_run() saw; passed is the scenario's KTAP verdict. */
struct scn_result {
	bool passed;
	int asserts_failed;
	bool deadlock, timed_out, stuck;	/* stuck: tasks did not stop */
	bool stopped;			/* by scenario_stop(), before the limit */
};

/*
 * Run @s as KTAP subtest number @idx (printing "    KTAP version 1",
 * "    # Subtest: NAME", its plan, one result per assertion, a final
 * case, then "ok|not ok IDX NAME").  Returns when every task has ended,
 * or has been stopped after the time limit (and its mutexes released);
 * sets the locking mode for the run and restores it.  @idx 0: inside a
 * ktest case, every line goes out as a "# scenario: " diagnostic.  Task
 * context.  Returns 0, -EBUSY if another scenario is running or -ENOMEM
 * (nothing ran).
 */
int scenario_run(const struct scenario *s, int idx, struct scn_result *res);

/*
 * Stop the running scenario now, as if its time limit had come (its
 * tasks are told to stop, release what they hold and are joined; the
 * picture of where each was is printed, "stopped on request", and the
 * scenario fails).
 * Any context but an interrupt's.  Returns 0, or -ESRCH if no scenario
 * is running.
 */
int scenario_stop(void);

/* ---- builtin.c: embedded scenarios and front ends ---------------------- */

struct scn_builtin {
	const char *name;		/* file name without .scn */
	const char *path;		/* tests/scenarios/x.scn */
	const char *text;
	uint64_t len;
};
extern const struct scn_builtin scenario_builtins[];
extern const uint64_t scenario_nr_builtins;

const struct scn_builtin *scenario_builtin_find(const char *name);
/* Print the embedded scenarios, for the shell's `run`. */
void scenario_list(void);
/*
 * Parse @len bytes of @src and run it as a one-subtest KTAP plan (or,
 * for `scenario=all`, see scenario_run_all).  A parse error prints
 * "error: line:col: message" and runs nothing.  Returns 0 if it ran and
 * passed, 1 otherwise.  Task context.
 */
int scenario_run_text(const char *src, size_t len);
/*
 * Run embedded scenario NAME, every one ("all": one that needs more CPUs
 * than are online is a SKIP) or the boot module ("module"), as KTAP;
 * with @dump, trace_dump() after each.  For `scenario=` on the command
 * line and the shell's `run`.  Returns the number of failed scenarios (a
 * bad NAME or a missing module counts as one).  Task context.
 */
int scenario_boot(const char *arg, bool dump);
#endif
