/*
 * shell_job.c - the shell's jobs: `run`, `test` and `scenario` run in a
 * thread of their own (the job), one at a time, so that the shell stays
 * at its console while they run.
 *
 * Without `&` the shell waits for the job, still reading the console:
 * Ctrl-C stops it, other keys are kept for the next line.  With `&` the
 * prompt comes back at once (`ps` shows the job's tasks live), the
 * result is printed when it ends ("[job] ..."), and Ctrl-C at the prompt
 * stops it and waits until it has stopped.  Stopping a scenario is
 * scenario_stop() (its tasks told to stop, release what they hold and
 * are joined), a test ktest_stop() (the running case ends, the rest are
 * skipped): both bounded, so the prompt always comes back.
 *
 * Everything here runs in the shell thread but job_main(), which shares
 * only struct job with it: the shell writes it before the job starts
 * and reads failed after done (release/acquire).
 */
#include "kernel.h"
#include "console.h"
#include "ktest.h"
#include "mm.h"
#include "sched.h"
#include "scenario.h"
#include "shell_job.h"
#include "timer.h"
#include "trace.h"
#include <printf.h>
#include <string.h>

struct job {
	enum job_kind kind;
	char what[SHELL_LINE_MAX];	/* the command, for messages */
	char args[SHELL_LINE_MAX];	/* argv's words */
	char *argv[SHELL_MAX_ARGS];
	int argc;
	char *script;			/* JOB_SCRIPT: kmalloc'ed text */
	size_t script_len;
	struct task *task;
	uint64_t start_ns;
	int stop;			/* Ctrl-C seen (shell thread) */
	int done;			/* release: failed is set */
	int failed;			/* scenarios or cases that failed */
};

static struct job *job;		/* the running job (shell thread only) */
static bool job_bg;		/* started with '&': "[job] " results */

static void job_main(void *arg)
{
	struct job *j = arg;

	if (!READ_ONCE(j->stop)) {
		if (j->kind == JOB_RUN)
			j->failed = scenario_boot(j->argv[1], false);
		else if (j->kind == JOB_TEST)
			j->failed = ktest_run((const char *const *)j->argv + 1,
					      j->argc - 1);
		else
			j->failed = scenario_run_text(j->script,
						      j->script_len);
	}
	smp_store_release(&j->done, 1);
	console_rx_wake();	/* the shell may sleep in console_wait() */
}

bool shell_job_busy(void)
{
	if (!job)
		return false;
	shell_printf("error: '%s' is running (Ctrl-C stops it)\n", job->what);
	return true;
}

/* Ask the job to stop; again each time round a wait, since a request
 * that comes before its scenario or test has begun is not seen. */
static void job_stop(void)
{
	if (!READ_ONCE(job->stop))
		shell_printf("stopping '%s'%s\n", job->what,
			     job->kind == JOB_TEST ? " (after the case that "
			     "runs)" : "");
	WRITE_ONCE(job->stop, 1);
	if (job->kind == JOB_TEST)
		ktest_stop();
	else
		scenario_stop();
}

/* The job has ended: join it, say how it went, forget it. */
static void job_reap(void)
{
	struct job *j = job;
	uint64_t ms = (clock_ns() - j->start_ns) / NSEC_PER_MSEC;

	thread_join(j->task);
	job = NULL;
	if (j->kind == JOB_TEST)
		shell_printf("%s%s: %d failed%s (%llu ms)\n",
			     job_bg ? "[job] " : "", j->what, j->failed,
			     j->stop ? ", stopped by Ctrl-C" : "",
			     (unsigned long long)ms);
	else
		shell_printf("%s%s: %s (%llu ms)\n", job_bg ? "[job] " : "",
			     j->what, j->stop ? "stopped by Ctrl-C" :
			     j->failed ? "failed" : "passed",
			     (unsigned long long)ms);
	kfree(j->script);
	kfree(j);
}

#define TYPEAHEAD 64
static char typeahead[TYPEAHEAD];	/* keys typed while a job ran */
static unsigned ta_head, ta_tail;

int shell_job_typeahead(void)
{
	return ta_head != ta_tail ? typeahead[ta_head++ % TYPEAHEAD] : -1;
}

/*
 * Wait for the job to end, reading the console meanwhile: Ctrl-C stops
 * it, other keys are kept for the next line.  Past TYPEAHEAD keys the
 * rest stay in the console's input ring (a paste that follows the
 * command: the ring holds the UART back when it fills, nothing is
 * lost), and a Ctrl-C among them is looked for there: it stops the job
 * and, as a terminal's interrupt does, throws away what was typed
 * before it.
 */
static void job_wait(void)
{
	while (!smp_load_acquire(&job->done)) {
		bool room = ta_tail - ta_head < TYPEAHEAD;
		int ch = room ? console_getc() : -1;

		if (ch == 0x03 || (!room && console_rx_flush_to(0x03))) {
			console_write("^C\n", 3);
			ta_head = ta_tail = 0;
			job_stop();
		} else if (ch >= 0) {
			typeahead[ta_tail++ % TYPEAHEAD] = (char)ch;
		}
		if (READ_ONCE(job->stop))
			job_stop();
		/* Until a key or the job's end (out of the trace: the
		 * job's events, not the shell's, are what it is for); a
		 * request to stop is repeated every SHELL_POLL_NS, since
		 * one sent before the job's scenario or test began is not
		 * seen. */
		if (ch < 0)
			console_wait(READ_ONCE(job->stop) ? SHELL_POLL_NS : 0);
	}
	job_reap();
}

int shell_job_start(enum job_kind kind, int argc, char **argv,
		    char *script, size_t len, bool bg)
{
	struct job *j = kzalloc(sizeof(*j));
	size_t used = 0;

	if (!j) {
		kfree(script);
		shell_printf("error: out of memory\n");
		return -1;
	}
	j->kind = kind;
	j->script = script;
	j->script_len = len;
	for (int i = 0; i < argc; i++) {
		size_t n = strlen(argv[i]) + 1;

		j->argv[j->argc++] = j->args + used;
		memcpy(j->args + used, argv[i], n);	/* fits: one line */
		used += n;
		snprintf(j->what + strlen(j->what),
			 sizeof(j->what) - strlen(j->what), "%s%s",
			 i ? " " : "", argv[i]);
	}
	j->start_ns = clock_ns();
	j->task = thread_create("shell-job", job_main, j, -1);
	if (!j->task) {
		kfree(script);
		kfree(j);
		shell_printf("error: cannot start the job (out of memory)\n");
		return -1;
	}
	job = j;
	job_bg = bg;
	if (bg)
		shell_printf("[job] %s: started; 'ps' shows its tasks, Ctrl-C "
			     "stops it\n", j->what);
	else
		job_wait();
	return 0;
}

bool shell_job_reap_ended(void)
{
	if (!job || !smp_load_acquire(&job->done))
		return false;
	console_write("\n", 1);
	job_bg = true;
	job_reap();
	return true;
}

void shell_job_interrupt(void)
{
	if (!job)
		return;
	job_bg = true;
	if (!smp_load_acquire(&job->done))
		job_stop();
	job_wait();
}

void shell_job_ps(void)
{
	if (job)
		shell_printf("job: %s, %s for %llu ms\n", job->what,
			     smp_load_acquire(&job->done) ? "ended" : "running",
			     (unsigned long long)((clock_ns() - job->start_ns) /
						  NSEC_PER_MSEC));
}
