/*
 * parse.h - what the scenario parser's parts share: lex.c (lines,
 * words, numbers, durations, names; the error), class.c (class headers
 * of task lines and `set`), parse.c (statements, the task lines, the
 * checks that need the whole script), parse_steps.c (each step, repeat
 * blocks), ww_parse.c (the wound/wait statements and steps) and
 * sem_parse.c (semaphores and condvars).  The same files build on the
 * host (tests/host: the lint and the parser tests), so they use only
 * what tests/host/scn_host.c provides besides the headers.  Nothing here knows
 * how a scenario runs: the parser's product is a struct scenario.
 */
#ifndef SCENARIO_PARSE_H
#define SCENARIO_PARSE_H
#include "scenario.h"

#define MAX_WORDS 24
#define UNRESOLVED (-2)			/* donor NAME not yet known */

struct word {
	char *s;
	int col;
};

struct parser {
	const char *src;
	size_t len, pos;
	int line;
	char buf[SCN_LINE_MAX + 2];	/* the line, split into words */
	char raw[SCN_LINE_MAX + 2];	/* the line, comment cut off */
	struct word w[MAX_WORDS];
	int nw;
	struct scenario *s;
	int online;
	char *err;
	bool failed;
	struct scn_task *task;		/* inside `task ... end`, or NULL */
	uint64_t held;			/* mutexes the task holds (bits) */
	bool in_repeat;			/* inside `repeat N ... end` */
	int repeat_line, repeat_step;	/* its `repeat` line and step */
	uint64_t repeat_held;		/* p->held at its `repeat` */
	bool seen_cpus, seen_locking, seen_timeout, seen_expect, ended;
	bool seen_wwclass;
	int need_line, need_col;	/* `cpus N` above the online count */
	bool need_failed;		/* ... and that was the only problem */
	bool ev_marked[SCN_MAX_EVENTS];
	int ev_line[SCN_MAX_EVENTS], ev_col[SCN_MAX_EVENTS];
};

/* The first problem found: "line:col: message" into p->err, p->failed
 * set; later calls do nothing.  Returns false, for `return fail_at()`. */
bool fail_at(struct parser *p, int col, const char *fmt, ...)
	__printf(3, 4);
/* Word @i of the line, or NULL. */
const char *word(struct parser *p, int i);
/* Column of word @i, or just after the last word if there is none. */
int col_of(struct parser *p, int i);
/* Fails on word @i if there is one ("unexpected 'x'"). */
bool no_more(struct parser *p, int i);
/* Decimal digits (an optional '-' if @neg_ok), @min..@max ("nice 20 out
 * of range (-20..19)", with @what the name of the number). */
bool number(struct parser *p, const char *s, int col, bool neg_ok,
	    long long min, long long max, const char *what, long long *v);
/* "20ms" -> ns, at most SCN_MAX_NS. */
bool duration(struct parser *p, const char *s, int col, uint64_t *ns);
/* @ns as the script would write it, in the largest unit that divides it
 * ("10us", "1500ns", "4s"); returns @buf. */
char *duration_str(uint64_t ns, char *buf, size_t len);
/* Letters, digits, '_' and '-', not starting with a digit, short. */
bool name_ok(struct parser *p, const char *s, int col);
int find_name(char (*names)[SCN_NAME_MAX], int n, const char *s);
/* The next line into p->raw, p->buf and p->w; false at the end of the
 * script or on a bad line (too long, a byte that is not text). */
bool next_line(struct parser *p);

/* class.c: class headers */
/* "0,2,3" (or, unless @one, "all") -> *@mask of the scenario's CPUs. */
bool cpu_list(struct parser *p, const char *v, int col, bool one,
	      uint64_t *mask);
/* "fair", "rt", "deadline" -> SCHED_NORMAL, SCHED_FIFO, SCHED_DEADLINE;
 * -1 for anything else. */
int class_policy(const char *c);
/* Words from @i: [CLASS params] [cpu=N | cpus=LIST] [start=D] into @sc
 * (start only if @start: a task line; `set` passes NULL). */
bool class_header(struct parser *p, int i, struct scn_sched *sc,
		  uint64_t *start);

/* parse.c */
/* A header statement (cpus, ...): before any task, once, one value. */
bool header_once(struct parser *p, bool *seen);

/* The name is declared already, as a mutex, semaphore or condvar: the
 * error ("duplicate mutex 'm'", "'m' is already a mutex").  @kind:
 * the kind being declared. */
bool name_taken(struct parser *p, const char *name, int col,
		const char *kind);
/* Add @t (NUL included) to the scenario's texts; its offset. */
int add_text(struct parser *p, const char *t);

/* parse_steps.c; the steps' own parse functions are in steps.h */
/* Index of the mutex named by word @i, or -1 (error reported). */
int mutex_index(struct parser *p, int i);
/* A new step of the current task, or NULL ("too many steps"). */
struct scn_step *new_step(struct parser *p, int op);
/* A new assertion (new_step, numbered as a KTAP case), or NULL. */
struct scn_step *new_assert(struct parser *p, int op);
/* Word @i, the value of assertion @op, or NULL ("assert prio needs a
 * value"). */
const char *assert_value(struct parser *p, int op, int i);
/* An `assert` line that names no assertion: its error. */
bool assert_unknown(struct parser *p);

/* The `end` of a repeat block (parse_steps.c). */
bool repeat_end(struct parser *p);

/* ww_parse.c: `wwclass` */
bool stmt_wwclass(struct parser *p);

/* sem_parse.c: `semaphore NAME[=N]...`, `condvar NAME...` */
bool stmt_semaphore(struct parser *p);
bool stmt_condvar(struct parser *p);
#endif
