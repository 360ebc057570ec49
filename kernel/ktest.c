/*
 * ktest.c - the in-kernel test framework (KUnit style), reporting KTAP v1.
 *
 * Suites are registered with KTEST_SUITE() in the "ktest_suites" linker
 * section; the linker provides __start_/__stop_ symbols around it.  Output
 * for `ktest=all` looks like this (printk adds "[cpuN] " to every line,
 * the host runner strips it):
 *
 *   KTAP version 1
 *   1..2
 *       KTAP version 1
 *       # Subtest: spinlock
 *       1..2
 *       # counter_exact took 12.345 ms
 *       ok 1 counter_exact
 *       # tests/spinlock.c:40: expected held (0 vs 1)
 *       # trylock took 0.101 ms
 *       not ok 2 trylock
 *   not ok 1 spinlock
 *   ...
 *
 * Each case runs in a kernel thread of its own, so that KASSERT/KSKIP can
 * end it with thread_exit() and so that a case that hangs cannot hang the
 * run.  The runner sleeps until the case thread wakes it (ktest_end) or
 * its timeout timer does: no polling, one timer per case.
 *
 * A case that times out cannot be killed (its threads may hold locks),
 * and what it leaves running can make the next cases fail.  So every
 * task created while a case runs carries the case's id (task->ktest_id,
 * inherited from its creator), and after a timeout the runner waits a
 * grace period for all of them to end.  If some are still alive, the
 * cases that follow run "tainted" until they are gone: a tainted case
 * that fails is reported "ok N name # SKIP tainted: <case> left <tasks>
 * running", not as a second failure (the timed-out case is one, so the
 * run still fails); one that passes is a pass.
 *
 * Suites registered with KTEST_SUITE_EXPLICIT() are left out of "all".
 */
#include "cpu.h"
#include "ktap.h"
#include "ktest.h"
#include "blocked_on.h"
#include "mutex.h"
#include "mm.h"
#include "sched.h"
#include "sched_verify.h"
#include "timer.h"
#include <printf.h>
#include <string.h>

extern const struct ktest_suite __start_ktest_suites[];
extern const struct ktest_suite __stop_ktest_suites[];

#define KTEST_DEFAULT_TIMEOUT_MS 10000
/* After a timeout, how long the case's tasks get to end: a few seconds,
 * but no longer than the case's own timeout (a case that promises to be
 * quick has quick leftovers, and the self-test stays fast). */
#define KTEST_GRACE_MS 3000
#define KTEST_GRACE_LOOK_NS (10 * NSEC_PER_MSEC)
#define KTEST_TAINT_LEN 160	/* "<case> left <tasks> running; ..." */

/* KTAP: the suites' results and totals; a suite's own lines. */
static const struct ktap top = { .depth = 0 };
static const struct ktap suite = { .depth = 1 };

/*
 * One running case.  It lives on the heap, not on the runner's stack: a
 * case that times out may still run and write to it, so after a timeout
 * it is freed only once every task of the case has ended (taint_check),
 * or never.
 */
struct ktest_run {
	struct ktest t;
	struct task *task;	/* the case thread, set by itself */
	int done;		/* set with a release store as its last act */
	spinlock_t lock;	/* done + wake vs. abandoning on timeout */
	struct task *runner;	/* to wake when done; NULL once abandoned */
	unsigned id;		/* task->ktest_id of the case's tasks */
	struct task *thread;	/* the case thread, as created */
	struct list_head taint_node;	/* on tainting: timed out, tasks left */
};

/* Runner only (one ktest_run at a time). */
static unsigned next_case_id = 1;
/* ktest_stop(): a run is under way; a stop was asked for (atomics). */
static int running, stop_req;
static LIST_HEAD(tainting);	/* timed-out runs with tasks still alive */

static struct ktest_run *run_of(struct ktest *t)
{
	return container_of(t, struct ktest_run, t);
}

/*
 * End the calling thread.  In the case thread this completes the case;
 * a helper thread the case created (which may use KASSERT too) only ends
 * itself, with exit code 1 for its joiner to see.
 */
static __noreturn void ktest_end(struct ktest *t)
{
	struct ktest_run *r = run_of(t);
	unsigned long flags;

	if (current() != r->task)
		thread_exit(1);
	/*
	 * Under r->lock so that a runner that gives up on us at the same
	 * moment either sees done or has cleared r->runner: we never wake a
	 * runner that has moved on (and may have exited).  The release store
	 * pairs with the runner's acquire load; wake_up()'s full barrier
	 * pairs with the one after the runner's TASK_SLEEPING store, so
	 * either the runner sees done or we see it sleeping (wait_case()).
	 */
	flags = spin_lock(&r->lock);
	smp_store_release(&r->done, 1);
	if (r->runner)
		wake_up(r->runner);
	spin_unlock(&r->lock, flags);
	thread_exit(0);
}

void ktest_fail(struct ktest *t, const char *file, int line,
		const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* Helper threads on several CPUs may fail at the same time. */
	__atomic_fetch_add(&t->failures, 1, __ATOMIC_RELAXED);
	ktap_diag(&suite, "%s:%d: %s", file, line, msg);
}

void ktest_abort(struct ktest *t)
{
	ktest_end(t);
}

void ktest_skip(struct ktest *t, const char *reason)
{
	strlcpy(t->skip_reason, reason, sizeof(t->skip_reason));
	t->skipped = true;
	ktest_end(t);
}

static void ktest_case_thread(void *arg)
{
	struct ktest_run *r = arg;

	/* Set here, not by the creator, so it is valid before run() starts
	 * however early this thread gets to run on another CPU. */
	r->task = current();
	r->t.tcase->run(&r->t);
	ktest_end(&r->t);
}

enum case_result { CASE_PASS, CASE_FAIL, CASE_SKIP };

static void timeout_fn(struct timer *tm)
{
	wake_up(tm->data);
}

/*
 * Sleep until the case of @r is done or @deadline (clock_ns) has passed;
 * returns true if it is done.  On false the case is abandoned: it will
 * not wake us any more.  Called by the runner (r->runner == current()).
 *
 *   runner                              case thread (ktest_end)
 *   state = TASK_SLEEPING
 *   smp_mb()                            lock r->lock; done = 1 (release)
 *   done? -> return                     runner? wake_up(runner)
 *   schedule()                            (smp_mb, sees TASK_SLEEPING)
 *
 * A wakeup that comes before schedule() leaves us queued (see the race
 * note in kernel/sched/core.c), so none is lost.  A late case abandoned
 * earlier never wakes us (r->runner is NULL for it), but the loop
 * tolerates spurious wakeups anyway.
 */
static bool wait_case(struct ktest_run *r, uint64_t deadline)
{
	struct task *self = current();
	unsigned long flags;
	struct timer tm;
	bool done;

	timer_init(&tm, timeout_fn, self);
	for (;;) {
		WRITE_ONCE(self->state, TASK_SLEEPING);
		smp_mb();
		if (smp_load_acquire(&r->done) || clock_ns() >= deadline)
			break;
		/* Re-armed each time round: a wakeup on another CPU may
		 * come a little before this CPU's clock reaches deadline. */
		timer_arm(&tm, deadline);
		schedule();
	}
	WRITE_ONCE(self->state, TASK_RUNNING);
	timer_cancel(&tm);

	flags = spin_lock(&r->lock);
	done = smp_load_acquire(&r->done);	/* may have just finished */
	if (!done)
		r->runner = NULL;
	spin_unlock(&r->lock, flags);
	return done;
}

/* ---- Timed-out cases and taint ---------------------------------------- */

struct left_scan {
	unsigned id;
	int n;
	char *buf;
	size_t len, used;
};

/* for_each_task callback (tasks_lock held, must not sleep). */
static void left_fn(struct task *p, void *arg)
{
	struct left_scan *ls = arg;
	int w;

	if (p->ktest_id != ls->id || READ_ONCE(p->state) == TASK_DEAD)
		return;
	if (ls->used + 1 < ls->len) {
		w = snprintf(ls->buf + ls->used, ls->len - ls->used, "%s%s",
			     ls->n ? ", " : "", p->name);
		ls->used = MIN(ls->used + (size_t)w, ls->len - 1);
	}
	ls->n++;
}

/* for_each_task callback: one line on each live task of case @arg, to
 * tell a hang (who waits for whom) from a slow case. */
static void describe_left_fn(struct task *p, void *arg)
{
	unsigned id = *(unsigned *)arg;
	struct mutex *m = READ_ONCE(p->blocked_on);
	char wait[96] = "";
	struct task *o;

	if (p->ktest_id != id || READ_ONCE(p->state) == TASK_DEAD)
		return;
	if (m == PROXY_WAKING) {
		snprintf(wait, sizeof(wait), ", a woken waiter");
	} else if (m) {
		/* (Task memory stays mapped, also once freed.) */
		o = mutex_owner(m);
		snprintf(wait, sizeof(wait), ", waits for %s held by %s#%d",
			 m->name, o ? o->name : "nobody", o ? o->tid : 0);
	}
	ktap_diag(&suite, "  %s#%d: state %d on cpu%d (on_rq %d, on_cpu %d), "
		  "%s prio %d%s%s%s", p->name, p->tid, p->state, p->cpu,
		  p->on_rq, p->on_cpu, task_class_name(p), p->prio,
		  p->dl.dl_throttled ? (p->dl.dl_timer.cpu >= 0 ? ", throttled"
					: ", throttled, no timer") : "",
		  p->dl.dl_boosted ? ", boosted" : "", wait);
}

/* How many tasks of case @id are alive; their names into @buf. */
static int tasks_left(unsigned id, char *buf, size_t len)
{
	struct left_scan ls = { .id = id, .buf = buf, .len = len };

	buf[0] = '\0';
	for_each_task(left_fn, &ls);
	return ls.n;
}

/* The case thread and @r, once no task of the case is alive.  The case
 * thread is one of them, so it is dead and the join does not wait; if
 * it is not, the tags are broken, and joining would hang the run. */
static void reap(struct ktest_run *r)
{
	if (READ_ONCE(r->thread->state) != TASK_DEAD)
		panic("ktest: case %s: its thread runs, but no task carries "
		      "its tag %u", r->t.tcase->name, r->id);
	thread_join(r->thread);
	kfree(r);
}

/*
 * @r timed out.  Give its tasks a grace period to end, polling (there
 * is nobody to wake us: they may end in any way), and say how it went.
 * All gone: reap it.  Else it taints the cases that follow.
 */
static void timed_out(struct ktest_run *r, uint64_t timeout_ms)
{
	uint64_t grace_ms = MIN(timeout_ms, KTEST_GRACE_MS);
	uint64_t end = clock_ns() + grace_ms * NSEC_PER_MSEC;
	const char *name = r->t.tcase->name;
	char names[96];

	while (tasks_left(r->id, names, sizeof(names)) && clock_ns() < end)
		sleep_ns(KTEST_GRACE_LOOK_NS);
	if (!tasks_left(r->id, names, sizeof(names))) {
		ktap_diag(&suite, "%s: its tasks ended within %llu ms of the "
			  "timeout", name, (unsigned long long)grace_ms);
		reap(r);
		return;
	}
	ktap_diag(&suite, "%s: still running %llu ms after the timeout: %s; "
		  "cases are tainted until they end", name,
		  (unsigned long long)grace_ms, names);
	for_each_task(describe_left_fn, &r->id);
	list_add_tail(&r->taint_node, &tainting);
}

/*
 * Before a case: forget the timed-out cases whose tasks have all ended
 * (reaping them), and describe the others into @why.  Returns true if
 * the case runs tainted.
 */
static bool taint_check(char *why, size_t len)
{
	struct list_head *pos, *n;
	size_t used = 0;

	why[0] = '\0';
	list_for_each_safe(pos, n, &tainting) {
		struct ktest_run *r = list_entry(pos, struct ktest_run, taint_node);
		char names[96];
		int w;

		if (!tasks_left(r->id, names, sizeof(names))) {
			ktap_diag(&suite, "%s: its tasks have ended; it taints "
				  "no more cases", r->t.tcase->name);
			list_del_init(pos);
			reap(r);
			continue;
		}
		if (used + 1 < len) {
			w = snprintf(why + used, len - used, "%s%s left %s running",
				     used ? "; " : "", r->t.tcase->name, names);
			used = MIN(used + (size_t)w, len - 1);
		}
	}
	return used > 0;
}

static void print_elapsed(const char *name, uint64_t ns)
{
	ktap_diag(&suite, "%s took %llu.%03llu ms", name,
		  (unsigned long long)(ns / NSEC_PER_MSEC),
		  (unsigned long long)(ns % NSEC_PER_MSEC / NSEC_PER_USEC));
}

/* Misses of the invariant checker so far (0 when it is off). */
static uint64_t verify_misses(void)
{
	struct sched_verify_stats st;

	if (!sched_verify_running())
		return 0;
	sched_verify_read(&st);
	return st.misses;
}

/*
 * With the invariant checker on (sched_verify=on), a case during which a
 * violation outlived its bound fails, with the checker's picture.
 */
static void check_verify(struct ktest *t, uint64_t misses0)
{
	uint64_t misses = verify_misses();
	char prefix[32];

	if (misses <= misses0)
		return;
	ktap_diag(&suite, "sched_verify: %llu miss(es) of the real-time "
		  "invariant during %s", (unsigned long long)(misses - misses0),
		  t->tcase->name);
	sched_verify_print_miss(misses0, ktap_diag_prefix(&suite,
			"sched_verify: ", prefix, sizeof(prefix)));
	t->failures++;
}

/*
 * Print the result line of case @name, number @idx: @res, with
 * @directive (KTAP_TIMEOUT) if it failed that way.  A failure while
 * @tainted is reported as a SKIP naming the cause (@why).
 */
static enum case_result report(int idx, const char *name, enum case_result res,
			       enum ktap_directive directive,
			       const char *skip_reason, bool tainted,
			       const char *why)
{
	if (res == CASE_FAIL && tainted) {
		ktap_skip(&suite, idx, name, "tainted: %s", why);
		return CASE_SKIP;
	}
	if (res == CASE_SKIP)
		ktap_result(&suite, true, idx, name, KTAP_SKIP, skip_reason);
	else
		ktap_result(&suite, res == CASE_PASS, idx, name, directive,
			    NULL);
	return res;
}

/*
 * Every case starts with a whole RT budget on every CPU: setting the
 * bandwidth it has starts every CPU's period afresh (rt.c).  What the
 * cases before used, and a loaded host's stalls charged to them (owed
 * in later periods, as Linux owes an overrun), is not this case's to
 * pay: RT throttling stepping aside in the middle of a case that does
 * not test it made an RT donor lose to a fair task at 1 CPU.
 */
static void rt_budget_afresh(void)
{
	uint64_t runtime, period;

	sched_rt_get_bandwidth(&runtime, &period);
	sched_rt_set_bandwidth(runtime, period);
}

/* Start case @c's thread, tagged with r->id like every task it creates. */
static struct task *start_case(const struct ktest_case *c, struct ktest_run *r)
{
	struct task *self = current(), *th;
	unsigned mine = self->ktest_id;

	r->t.tcase = c;
	spin_init(&r->lock, "ktest-run");
	r->runner = self;
	rt_budget_afresh();
	r->id = next_case_id++;
	/* The case thread inherits the tag from us, so that it is tagged
	 * even if it never gets to run before its timeout. */
	self->ktest_id = r->id;
	th = thread_create(c->name, ktest_case_thread, r, -1);
	self->ktest_id = mine;
	r->thread = th;
	return th;
}

/* Run case @c, number @idx of its suite, and print its result line. */
static enum case_result run_case(const struct ktest_case *c, int idx)
{
	uint64_t timeout_ms = c->timeout_ms ? c->timeout_ms
					    : KTEST_DEFAULT_TIMEOUT_MS;
	char why[KTEST_TAINT_LEN];
	bool tainted = taint_check(why, sizeof(why));
	struct ktest_run *r;
	struct task *th;
	uint64_t start, misses0 = verify_misses();
	enum case_result res;

	r = kzalloc(sizeof(*r));
	th = r ? start_case(c, r) : NULL;
	if (!th) {
		kfree(r);
		ktap_diag(&suite, "%s: cannot create the case thread (out of "
			  "memory)", c->name);
		return report(idx, c->name, CASE_FAIL, KTAP_NONE, NULL, tainted,
			      why);
	}

	start = clock_ns();
	if (!wait_case(r, start + timeout_ms * NSEC_PER_MSEC)) {
		/*
		 * The case is hung (or far too slow).  There is no safe way
		 * to kill a thread that may hold locks: its tasks get a grace
		 * period, and if they outlive it, r stays allocated (they may
		 * still write to it) and taints the cases that follow.
		 */
		ktap_diag(&suite, "%s: no result after %llu ms", c->name,
			  (unsigned long long)timeout_ms);
		timed_out(r, timeout_ms);
		return report(idx, c->name, CASE_FAIL, KTAP_TIMEOUT, NULL,
			      tainted, why);
	}
	thread_join(th);
	print_elapsed(c->name, clock_ns() - start);
	check_verify(&r->t, misses0);

	if (r->t.failures)
		res = CASE_FAIL;
	else if (r->t.skipped)
		res = CASE_SKIP;
	else
		res = CASE_PASS;
	res = report(idx, c->name, res, KTAP_NONE, r->t.skip_reason, tainted,
		     why);
	kfree(r);
	return res;
}

struct ktest_totals {
	int pass, fail, skip;
};

/* Run one suite as subtest number @idx; returns its failed case count. */
static int run_suite(const struct ktest_suite *s, int idx,
		     struct ktest_totals *tot)
{
	int ncases = 0, failed = 0, skipped = 0;

	while (s->cases[ncases].name)
		ncases++;
	ktap_header(&suite, s->name, ncases);
	for (int i = 0; i < ncases; i++) {
		if (__atomic_load_n(&stop_req, __ATOMIC_ACQUIRE)) {
			ktap_skip(&suite, i + 1, s->cases[i].name,
				  "stopped on request");
			tot->skip++;
			skipped++;
			continue;
		}
		switch (run_case(&s->cases[i], i + 1)) {
		case CASE_PASS:
			tot->pass++;
			break;
		case CASE_FAIL:
			tot->fail++;
			failed++;
			break;
		case CASE_SKIP:
			tot->skip++;
			skipped++;
			break;
		}
	}
	if (ncases && skipped == ncases)
		ktap_result(&top, true, idx, s->name, KTAP_SKIP,
			    "all cases skipped");
	else
		ktap_result(&top, !failed, idx, s->name, KTAP_NONE, NULL);
	return failed;
}

static const struct ktest_suite *find_suite(const char *name)
{
	for (const struct ktest_suite *s = __start_ktest_suites;
	     s < __stop_ktest_suites; s++)
		if (strcmp(s->name, name) == 0)
			return s;
	return NULL;
}

static bool run_all(const char *const *names, int nnames)
{
	return !names || nnames == 0 ||
	       (nnames == 1 && strcmp(names[0], "all") == 0);
}

int ktest_stop(void)
{
	if (!__atomic_load_n(&running, __ATOMIC_ACQUIRE))
		return -ESRCH;
	__atomic_store_n(&stop_req, 1, __ATOMIC_RELEASE);
	return 0;
}

int ktest_run(const char *const *names, int nnames)
{
	struct ktest_totals tot = { 0, 0, 0 };
	int nsuites = 0, unknown = 0, idx = 0;
	bool all = run_all(names, nnames);

	__atomic_store_n(&stop_req, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&running, 1, __ATOMIC_RELEASE);

	if (all) {
		for (const struct ktest_suite *s = __start_ktest_suites;
		     s < __stop_ktest_suites; s++)
			nsuites += !s->explicit_only;
	} else {
		for (int i = 0; i < nnames; i++) {
			if (find_suite(names[i]))
				nsuites++;
		}
	}

	ktap_header(&top, NULL, nsuites);
	if (all) {
		for (const struct ktest_suite *s = __start_ktest_suites;
		     s < __stop_ktest_suites; s++)
			if (!s->explicit_only)
				run_suite(s, ++idx, &tot);
	} else {
		for (int i = 0; i < nnames; i++) {
			const struct ktest_suite *s = find_suite(names[i]);

			if (!s) {
				ktap_diag(&top, "unknown suite '%s'", names[i]);
				unknown++;
				continue;
			}
			run_suite(s, ++idx, &tot);
		}
	}
	if (sched_verify_running()) {
		struct sched_verify_stats st;

		sched_verify_read(&st);
		ktap_diag(&top, "sched_verify: %llu samples (%llu given up: a "
			  "lock busy), %llu windows, worst %llu us, mean %llu "
			  "us, %llu misses",
			  (unsigned long long)st.samples,
			  (unsigned long long)st.busy,
			  (unsigned long long)st.windows,
			  (unsigned long long)(st.worst_ns / NSEC_PER_USEC),
			  (unsigned long long)(st.closed ? st.total_ns /
					       st.closed / NSEC_PER_USEC : 0),
			  (unsigned long long)st.misses);
	}
	if (__atomic_load_n(&stop_req, __ATOMIC_ACQUIRE))
		ktap_diag(&top, "stopped on request: the cases after the one "
			  "running then were skipped");
	ktap_totals(&top, tot.pass, tot.fail + unknown, tot.skip);
	__atomic_store_n(&running, 0, __ATOMIC_RELEASE);
	return tot.fail + unknown;
}

void ktest_list(void)
{
	for (const struct ktest_suite *s = __start_ktest_suites;
	     s < __stop_ktest_suites; s++) {
		int n = 0;

		while (s->cases[n].name)
			n++;
		printk("  %-15s %d cases%s\n", s->name, n,
		       s->explicit_only ? " (only when named)" : "");
	}
}
