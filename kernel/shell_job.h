/*
 * shell_job.h - what kernel/shell.c and kernel/shell_job.c (the shell's
 * jobs) share.  Shell thread only, all of it.
 */
#ifndef SHELL_JOB_H
#define SHELL_JOB_H
#include "kernel.h"

#define SHELL_PROMPT "kestrel> "
#define SHELL_LINE_MAX 128
#define SHELL_MAX_ARGS 16
#define SHELL_POLL_NS (10 * NSEC_PER_MSEC)	/* job_wait: a stop, repeated */

/* Command output, without printk's "[cpuN] " prefix. */
__printf(1, 2) void shell_printf(const char *fmt, ...);

enum job_kind { JOB_RUN, JOB_TEST, JOB_SCRIPT };

/*
 * Start @kind (JOB_RUN: argv[1] is the scenario; JOB_TEST: argv[1..] the
 * suites; JOB_SCRIPT: @script, @len bytes, kmalloc'ed, handed over) as
 * the job, the words of @argv naming it in messages.  Without @bg wait
 * for it (Ctrl-C stops it) and print its result.  Returns 0, or -1 after
 * an "error:" line.
 */
int shell_job_start(enum job_kind kind, int argc, char **argv,
		    char *script, size_t len, bool bg);
/* True, after an "error: ... is running" line, if a job runs. */
bool shell_job_busy(void);
/* A background job that has ended: reap it, print its result on a line
 * of its own and return true (the caller shows its prompt again). */
bool shell_job_reap_ended(void);
/* Ctrl-C at the prompt: stop the job, if one runs, and wait for it. */
void shell_job_interrupt(void);
/* ps: the job's line, if one runs. */
void shell_job_ps(void);
/* A key typed while a foreground job ran, or -1. */
int shell_job_typeahead(void);
#endif
