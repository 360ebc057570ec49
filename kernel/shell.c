/*
 * shell.c - the serial console shell (runs as the "shell" thread).
 *
 * Reads the console with console_getc(); when no byte is waiting it
 * sleeps in console_wait() until the UART's interrupt brings one (or a
 * job ends, or the next poll of a console without an interrupt, every
 * 10 ms), so an idle shell leaves its CPU idle (under qemu -icount a
 * spinning CPU stalls every other one) and a paste is read as fast as it
 * comes.  Line editing: printable characters are echoed, backspace/DEL
 * erases, Ctrl-U drops the line, CR or LF runs it; a line longer than
 * SHELL_LINE_MAX - 1 characters is refused with an error, never run cut
 * short.
 *
 * Command output goes through shell_printf() -> console_write(), without
 * printk's "[cpuN] " prefix; test and bench output is printk's own.
 *
 * `run`, `test` and `scenario` run as jobs (shell_job.c): without `&`
 * the shell waits for one, with `&` the prompt comes back at once;
 * Ctrl-C stops it.
 */
#include "kernel.h"
#include "power.h"
#include "bench.h"
#include "profile.h"
#include "console.h"
#include "cpu.h"
#include "ktest.h"
#include "mm.h"
#include "blocked_on.h"
#include "mutex.h"
#include "sched.h"
#include "scenario.h"
#include "shell.h"
#include "shell_job.h"
#include "timer.h"
#include "trace.h"
#include <printf.h>
#include <string.h>


/* The shell checks names before it calls ktest_run()/bench_run() so that
 * a typo gives one "error:" line. */
extern const struct ktest_suite __start_ktest_suites[];
extern const struct ktest_suite __stop_ktest_suites[];
extern const struct bench __start_benches[];
extern const struct bench __stop_benches[];

void shell_printf(const char *fmt, ...)
{
	char buf[160];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 1)
		n = sizeof(buf) - 1;
	if (n > 0)
		console_write(buf, n);
}

/* ---- Commands -------------------------------------------------------- */

static bool shell_bg;		/* the command line ended in '&' */

struct command {
	const char *name;
	const char *args;
	const char *help;
	int (*run)(int argc, char **argv);	/* 0, or -1 after "error:" */
};

static const struct command commands[];

static int cmd_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	for (const struct command *c = commands; c->name; c++)
		shell_printf("  %-8s %-16s %s\n", c->name, c->args, c->help);
	return 0;
}

static int cmd_cpus(int argc, char **argv)
{
	struct console_rx_stats rx;

	(void)argv;
	if (argc > 1) {
		shell_printf("error: cpus takes no arguments\n");
		return -1;
	}
	shell_printf("%d CPUs, %d online, %zu of %zu pages free\n", ncpus,
		     cpus_online(), page_free_count(), page_total_count());
	shell_printf("  cpu  arch-id  online  timer-irqs  deferred        ipis  tasks\n");
	for (int i = 0; i < ncpus; i++) {
		struct cpu *c = cpu_by_id(i);
		struct sched_cpu_view v;

		/* Statistics read without locks: a snapshot, may be stale.
		 * deferred: interrupts that left due timers for the next
		 * one (the bound in kernel/timer.c). */
		sched_cpu_view(i, &v);
		shell_printf("  %3d  %7llu  %-6s  %10llu  %8llu  %10llu  %5u\n",
			     c->id, (unsigned long long)c->arch_id,
			     READ_ONCE(c->online) ? "yes" : "no",
			     (unsigned long long)READ_ONCE(c->nr_timer_irqs),
			     (unsigned long long)READ_ONCE(c->nr_timer_defers),
			     (unsigned long long)READ_ONCE(c->nr_ipis),
			     v.nr_running);
	}
	console_rx_stats(&rx);
	shell_printf("console input: %lu bytes by interrupt, held back %lu "
		     "times (ring of %d nearly full), %lu lost (ring full), "
		     "%lu overrun\n", rx.pushed, rx.stops, rx.ring_size,
		     rx.full, rx.overrun);
	return 0;
}

/* ps copies what it shows inside stop_machine() (every other CPU parked
 * in its stopper, so the picture is consistent: no task is seen running
 * on two CPUs or on none), then prints with everything running again. */
struct ps_row {
	int tid, state, cpu, prio;
	bool on_cpu;
	const char *class;
	uint64_t runtime_ns;
	char name[TASK_NAME_LEN];
	char note[64];		/* "waits for m", "runs for t" (proxy) */
	struct task *task;	/* valid inside the snapshot only */
	struct task *owner;	/* of the mutex it waits for */
	const char *mutex;	/* its name */
};

struct ps_snapshot {
	struct ps_row *rows;
	int n, max, missed;
};

static void ps_collect(struct task *t, void *arg)
{
	struct ps_snapshot *s = arg;
	struct sched_cpu_view v;
	struct ps_row *r;

	if (s->n == s->max) {
		s->missed++;
		return;
	}
	r = &s->rows[s->n++];
	r->tid = t->tid;
	r->state = t->state;
	r->cpu = t->cpu;
	r->prio = t->prio;
	r->class = task_class_name(t);
	sched_cpu_view(t->cpu, &v);
	r->on_cpu = v.curr == t;
	r->runtime_ns = t->sum_exec_ns;
	memcpy(r->name, t->name, TASK_NAME_LEN);
	r->name[TASK_NAME_LEN - 1] = '\0';
	/* Every CPU is parked in stop_machine: the links hold still. */
	r->note[0] = '\0';
	r->task = t;
	r->owner = NULL;
	if (t->blocked_on && t->blocked_on != PROXY_WAKING) {
		r->owner = mutex_owner(t->blocked_on);
		r->mutex = t->blocked_on->name;
	}
	if (t->blocked_on == PROXY_WAKING)
		snprintf(r->note, sizeof(r->note), "waking");
	else if (t->blocked_on && t->wake_cpu >= 0)
		snprintf(r->note, sizeof(r->note), "waits for %s (lent from cpu%d)",
			 t->blocked_on->name, t->wake_cpu);
	else if (t->blocked_on)
		snprintf(r->note, sizeof(r->note), "waits for %s%s",
			 t->blocked_on->name, t->parked_on ? " (parked)" : "");
	else if (r->on_cpu && v.donor != t)
		snprintf(r->note, sizeof(r->note), "runs for %s",
			 v.donor->name);
}

/* Then "holds M" on the owner of each mutex a task waits for (the task
 * that runs with the waiters' context under proxy execution: the other
 * CPUs sit in their stoppers now, so none is seen "runs for" here). */
static int ps_snapshot_all(void *arg)
{
	struct ps_snapshot *s = arg;

	for_each_task(ps_collect, arg);
	for (int i = 0; i < s->n; i++) {
		for (int j = 0; s->rows[i].owner && j < s->n; j++) {
			struct ps_row *o = &s->rows[j];

			if (o->task == s->rows[i].owner && !o->note[0])
				snprintf(o->note, sizeof(o->note), "holds %s",
					 s->rows[i].mutex);
		}
	}
	return 0;
}

static const char *state_name(int state)
{
	switch (state) {
	case TASK_RUNNING:
		return "running";
	case TASK_SLEEPING:
		return "sleeping";
	case TASK_DEAD:
		return "dead";
	}
	return "?";
}

#define PS_MAX_ROWS 256

static int cmd_ps(int argc, char **argv)
{
	struct ps_snapshot s = { .max = PS_MAX_ROWS };

	(void)argv;
	if (argc > 1) {
		shell_printf("error: ps takes no arguments\n");
		return -1;
	}
	s.rows = kmalloc(PS_MAX_ROWS * sizeof(*s.rows));
	if (!s.rows) {
		shell_printf("error: out of memory\n");
		return -1;
	}
	stop_machine(ps_snapshot_all, &s);
	shell_job_ps();
	shell_printf("  tid  name                     state     cpu  class    prio  runtime(ms)  mutex/proxy\n");
	for (int i = 0; i < s.n; i++) {
		struct ps_row *r = &s.rows[i];

		shell_printf("  %3d  %-24s %-8s  %3d%c %-8s %4d  %7llu.%03llu  %s\n",
			     r->tid, r->name,
			     r->on_cpu ? "on-cpu" : state_name(r->state),
			     r->cpu, r->on_cpu ? '*' : ' ', r->class, r->prio,
			     (unsigned long long)(r->runtime_ns / NSEC_PER_MSEC),
			     (unsigned long long)(r->runtime_ns % NSEC_PER_MSEC /
						  NSEC_PER_USEC), r->note);
	}
	if (s.missed)
		shell_printf("  (%d more not shown)\n", s.missed);
	kfree(s.rows);
	return 0;
}

static bool suite_exists(const char *name)
{
	for (const struct ktest_suite *s = __start_ktest_suites;
	     s < __stop_ktest_suites; s++)
		if (strcmp(s->name, name) == 0)
			return true;
	return false;
}

static bool bench_exists(const char *name)
{
	for (const struct bench *b = __start_benches; b < __stop_benches; b++)
		if (strcmp(b->name, name) == 0)
			return true;
	return false;
}

static int cmd_test(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "?") == 0) {
		ktest_list();
		return 0;
	}
	for (int i = 1; i < argc; i++) {
		if (!suite_exists(argv[i]) && strcmp(argv[i], "all") != 0) {
			shell_printf("error: no test suite '%s' (try: test ?)\n",
				     argv[i]);
			return -1;
		}
	}
	if (shell_job_busy())
		return -1;
	return shell_job_start(JOB_TEST, argc, argv, NULL, 0, shell_bg);
}

static int cmd_bench(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "?") == 0) {
		bench_list();
		return 0;
	}
	if (shell_job_busy())
		return -1;
	for (int i = 1; i < argc; i++) {
		if (!bench_exists(argv[i]) && strcmp(argv[i], "all") != 0) {
			shell_printf("error: no benchmark '%s' (try: bench ?)\n",
				     argv[i]);
			return -1;
		}
	}
	bench_run((const char *const *)argv + 1, argc - 1);
	return 0;
}

/* `profile NAME [period_us]`: benchmark NAME under the profiler; the
 * chains are raw addresses (tools/profile_report.py names them). */
static int cmd_profile(int argc, char **argv)
{
	unsigned long long us = 20;
	int err;

	if (argc < 2 || argc > 3) {
		shell_printf("error: usage: profile BENCH [period_us]\n");
		return -1;
	}
	if (shell_job_busy())
		return -1;
	if (!bench_exists(argv[1])) {
		shell_printf("error: no benchmark '%s' (try: bench ?)\n", argv[1]);
		return -1;
	}
	if (argc == 3 && parse_u64(argv[2], &us) != 0) {
		shell_printf("error: '%s' is not a period in us\n", argv[2]);
		return -1;
	}
	err = bench_profile(argv[1], us * NSEC_PER_USEC);
	if (err == -EINVAL) {
		shell_printf("error: period %llu us out of range (%llu..%llu)\n",
			     us, (unsigned long long)(PROFILE_PERIOD_MIN / NSEC_PER_USEC),
			     (unsigned long long)(PROFILE_PERIOD_MAX / NSEC_PER_USEC));
		return -1;
	}
	if (err) {
		shell_printf("error: the profiler did not start (%d)\n", err);
		return -1;
	}
	return 0;
}

/* `locking` prints the mutex locking mode, `locking MODE` sets it
 * (refused while tasks wait on mutexes: their wait began in the old
 * mode). */
static int cmd_locking(int argc, char **argv)
{
	int err;

	if (argc > 2) {
		shell_printf("error: locking takes at most one mode\n");
		return -1;
	}
	if (argc == 2) {
		if (shell_job_busy())		/* a scenario sets its own */
			return -1;
		err = locking_set_mode(argv[1]);
		if (err == -EINVAL) {
			shell_printf("error: no locking mode '%s' (proxy, "
				     "inherit, none)\n", argv[1]);
			return -1;
		}
		if (err == -EBUSY) {
			shell_printf("error: %d tasks wait on mutexes; try "
				     "again\n", READ_ONCE(mutex_nr_blocked));
			return -1;
		}
	}
	shell_printf("locking mode: %s\n", locking_mode_name(locking_mode));
	return 0;
}

/* `trace` dumps the scheduler trace (docs/trace.md); `trace clear`
 * forgets it, `trace off` / `trace on` stop and restart recording. */
static int cmd_trace(int argc, char **argv)
{
	if (argc > 2) {
		shell_printf("error: trace takes at most one of clear, on, "
			     "off\n");
		return -1;
	}
	if (argc == 1)
		return trace_dump() ? -1 : 0;
	if (strcmp(argv[1], "save") == 0)	/* trace.h: dump, then clear */
		return trace_save() ? -1 : 0;
	if (strcmp(argv[1], "clear") == 0) {
		trace_reset();
	} else if (strcmp(argv[1], "on") == 0 || strcmp(argv[1], "off") == 0) {
		if (trace_set_enabled(argv[1][1] == 'n') != 0) {
			shell_printf("error: no trace buffers (out of memory "
				     "at boot)\n");
			return -1;
		}
	} else {
		shell_printf("error: no trace command '%s' (clear, on, off)\n",
			     argv[1]);
		return -1;
	}
	shell_printf("trace: %s\n", argv[1]);
	return 0;
}

/* `run` lists the embedded scenarios, `run NAME` runs one. */
static int cmd_run(int argc, char **argv)
{
	if (argc == 1) {
		scenario_list();
		return 0;
	}
	if (argc > 2) {
		shell_printf("error: run takes one scenario name\n");
		return -1;
	}
	if (!scenario_builtin_find(argv[1])) {
		shell_printf("error: no scenario '%s' (try: run)\n", argv[1]);
		return -1;
	}
	if (shell_job_busy())
		return -1;
	return shell_job_start(JOB_RUN, argc, argv, NULL, 0, shell_bg);
}

static int read_line(char *buf, size_t size, const char *prompt);
static int split_words(char *line, char **argv, int max);

/* True if @line is the end marker "end scenario" (spaces, a comment). */
static bool is_end_marker(const char *line)
{
	char copy[SCN_LINE_MAX + 2], *argv[3], *hash;
	int argc;

	strlcpy(copy, line, sizeof(copy));
	hash = strchr(copy, '#');
	if (hash)
		*hash = '\0';
	argc = split_words(copy, argv, 3);
	return argc == 2 && !strcmp(argv[0], "end") &&
	       !strcmp(argv[1], "scenario");
}

/*
 * `scenario` reads a script until "end scenario", then parses and runs
 * it.  Ctrl-C abandons it.  A script over SCN_MAX_BYTES (or a line over
 * SCN_LINE_MAX) is read to its end marker and refused, so that its
 * remaining lines do not run as shell commands.
 */
static int cmd_scenario(int argc, char **argv)
{
	static char line[SCN_LINE_MAX + 2];	/* one shell thread */
	size_t len = 0, n;
	int lineno = 0, too_long = 0, long_len = 0;
	char *buf;

	(void)argv;
	if (argc > 1) {
		shell_printf("error: scenario takes no arguments (it reads the "
			     "script; to run a built-in one: run NAME)\n");
		return -1;
	}
	if (shell_job_busy())
		return -1;
	buf = kmalloc(SCN_MAX_BYTES + 1);
	if (!buf) {
		shell_printf("error: out of memory\n");
		return -1;
	}
	shell_printf("type the script; 'end scenario' runs it, Ctrl-C "
		     "cancels\n");
	for (;;) {
		int r = read_line(line, sizeof(line), "");

		lineno++;
		if (r < 0) {
			shell_printf("error: cancelled\n");
			kfree(buf);
			return -1;
		}
		if (r > SCN_LINE_MAX && !too_long) {
			too_long = lineno;
			long_len = r;
		}
		n = strlen(line);
		if (len + n + 1 > SCN_MAX_BYTES && !too_long)
			too_long = -lineno;
		if (!too_long) {
			memcpy(buf + len, line, n);
			buf[len + n] = '\n';
			len += n + 1;
		}
		if (is_end_marker(line))
			break;
	}
	if (too_long > 0)
		shell_printf("error: %d:%d: line too long (%d characters, at "
			     "most %d); the script is not run\n", too_long,
			     SCN_LINE_MAX + 1, long_len, SCN_LINE_MAX);
	else if (too_long < 0)
		shell_printf("error: %d:1: script too long (at most %d "
			     "bytes)\n", -too_long, SCN_MAX_BYTES);
	if (too_long) {
		kfree(buf);
		return -1;
	}
	return shell_job_start(JOB_SCRIPT, argc, argv, buf, len, shell_bg);
}

static int cmd_poweroff(int argc, char **argv)
{
	(void)argv;
	if (argc > 1) {
		shell_printf("error: poweroff takes no arguments\n");
		return -1;
	}
	shell_printf("powering off\n");
	poweroff(0);
}

static const struct command commands[] = {
	{ "help", "", "this list", cmd_help },
	{ "cpus", "", "CPUs: ids, online, timer irqs, IPIs, queued tasks",
	  cmd_cpus },
	{ "ps", "", "tasks: state, cpu, class, prio, runtime, mutex/proxy", cmd_ps },
	{ "test", "[suite...|?] [&]", "run in-kernel tests (none: all)",
	  cmd_test },
	{ "bench", "[name...|?]", "run benchmarks (none: all)", cmd_bench },
	{ "profile", "bench [us]",
	  "run a benchmark under the sampling profiler (every 20 us)",
	  cmd_profile },
	{ "locking", "[mode]", "mutex locking mode: proxy, inherit or none",
	  cmd_locking },
	{ "trace", "[clear|on|off|save]",
	  "scheduler trace: dump, forget, stop, start", cmd_trace },
	{ "scenario", "[&]", "read a scenario script up to 'end scenario', run it",
	  cmd_scenario },
	{ "run", "[name] [&]", "run a built-in scenario (none: list them)",
	  cmd_run },
	{ "poweroff", "", "power the machine off", cmd_poweroff },
	{ NULL, NULL, NULL, NULL },
};

/* ---- Line input ------------------------------------------------------ */

/* Split @line in place at spaces/tabs; returns the word count. */
static int split_words(char *line, char **argv, int max)
{
	int argc = 0;
	char *p = line;

	while (*p) {
		while (*p == ' ' || *p == '\t')
			*p++ = '\0';
		if (!*p)
			break;
		if (argc == max)
			return -1;
		argv[argc++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
	}
	return argc;
}

static void run_line(char *line)
{
	char *argv[SHELL_MAX_ARGS];
	int argc = split_words(line, argv, SHELL_MAX_ARGS);

	if (argc < 0) {
		shell_printf("error: more than %d words\n", SHELL_MAX_ARGS);
		return;
	}
	if (argc == 0)
		return;
	shell_bg = argc > 1 && strcmp(argv[argc - 1], "&") == 0;
	if (shell_bg) {
		argc--;
		if (strcmp(argv[0], "run") && strcmp(argv[0], "test") &&
		    strcmp(argv[0], "scenario")) {
			shell_printf("error: only run, test and scenario run "
				     "in the background ('&')\n");
			return;
		}
		if (!strcmp(argv[0], "run") && argc == 1) {
			shell_printf("error: run &: give a scenario name "
				     "(run lists them)\n");
			return;
		}
	}
	for (const struct command *c = commands; c->name; c++) {
		if (strcmp(c->name, argv[0]) == 0) {
			c->run(argc, argv);
			return;
		}
	}
	shell_printf("error: unknown command '%s' (try: help)\n", argv[0]);
}

/* The next key: typeahead first.  A background job that ends meanwhile
 * is reaped and reported, then @prompt and the @len characters of the
 * line so far (@buf) are shown again. */
static int shell_getc(const char *prompt, const char *buf, size_t len)
{
	int ch;

	if ((ch = shell_job_typeahead()) >= 0)
		return ch;
	while ((ch = console_getc()) < 0) {
		if (shell_job_reap_ended()) {
			console_write(prompt, strlen(prompt));
			console_write(buf, len);
		}
		console_wait(0);	/* a job's end wakes it too */
	}
	return ch;
}

/*
 * Read one line with echo and editing into @buf (NUL terminated).
 * Returns how many characters the line had, counting those that did not
 * fit (more than @size - 1: then @buf holds only its start, and the
 * caller must not use it), or -1 on Ctrl-C (the line is abandoned).
 */
static int read_line(char *buf, size_t size, const char *prompt)
{
	static bool after_cr;	/* swallow the LF of a CR LF pair */
	size_t len = 0;
	int dropped = 0;		/* characters past @size - 1 */

	for (;;) {
		int ch = shell_getc(prompt, buf, len);

		if (ch == '\t')
			ch = ' ';	/* pasted scripts are indented */
		if (ch == '\n' && after_cr) {
			after_cr = false;
			continue;
		}
		after_cr = ch == '\r';
		if (ch == '\r' || ch == '\n') {
			console_write("\n", 1);
			buf[len] = '\0';
			return (int)len + dropped;
		}
		if (ch == 0x03) {			/* Ctrl-C */
			console_write("^C\n", 3);
			buf[0] = '\0';
			return -1;
		}
		if (ch == '\b' || ch == 0x7f) {		/* backspace / DEL */
			if (dropped > 0) {
				dropped--;		/* not shown: no echo */
			} else if (len > 0) {
				len--;
				console_write("\b \b", 3);
			}
		} else if (ch == 0x15) {		/* Ctrl-U */
			dropped = 0;
			while (len > 0) {
				len--;
				console_write("\b \b", 3);
			}
		} else if (ch >= ' ' && ch < 0x7f && len < size - 1) {
			char c = (char)ch;

			buf[len++] = c;
			console_write(&c, 1);
		} else if (ch >= ' ' && ch < 0x7f) {
			dropped++;
		}
		/* Anything else (escape sequences, overlong lines) is
		 * dropped; the bytes of an arrow key are harmless. */
	}
}

void shell_main(void *arg)
{
	static char line[SHELL_LINE_MAX];	/* one shell thread */

	(void)arg;
	shell_printf("\n%s %s shell on %d CPUs; type 'help'\n", KERNEL_NAME,
		     KERNEL_VERSION, cpus_online());
	for (;;) {
		int n;

		console_rx_report();
		console_write(SHELL_PROMPT, sizeof(SHELL_PROMPT) - 1);
		n = read_line(line, sizeof(line), SHELL_PROMPT);
		if (n < 0) {
			shell_job_interrupt();	/* Ctrl-C */
			continue;
		}
		if (n > (int)sizeof(line) - 1) {
			shell_printf("error: line too long (%d characters, at "
				     "most %d); not run\n", n,
				     (int)sizeof(line) - 1);
			continue;
		}
		run_line(line);
	}
}
