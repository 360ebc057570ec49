/*
 * run.c - running a parsed scenario: one kernel thread per task, KTAP
 * results, and stopping a scenario that deadlocks or overruns.
 *
 * The caller (the controller: shell, boot thread or test case) creates
 * every task with its class, parameters and affinity; they wait at a gate
 * until all are there, then the controller gives each deadline task a
 * fresh budget (start_budgets()), sets the common start t0 and opens the
 * gate, and each task sleeps until t0 + start=.  The controller runs as
 * FIFO 99 meanwhile, so that a scenario's hogs cannot keep it from
 * stopping them, and sleeps until the last task ends or the time limit.
 *
 * Stopping: at the limit the controller first takes its picture (who
 * waits for which mutex held by whom: a cycle there is the deadlock),
 * then sets r->abort and wakes every task.  compute, sleep and wait
 * check it; a task blocked on a mutex waits with mutex_lock_timeout()
 * up to the limit plus SCN_GRACE_NS, and if that runs out first (the
 * controller late on a busy host) it stays as it was, still waiting for
 * the mutex in the picture and holding its own, until told to stop: the
 * picture cannot miss it.  A deadline task that has spent its budget
 * cannot run, so cannot see r->abort, until its next period (up to 4 s
 * away): the controller moves every deadline task left to SCHED_NORMAL
 * (stop_deadline_tasks()), which makes a throttled one runnable at once.
 * Every task releases what it holds, newest first, and ends; the
 * controller joins them all, restores the locking mode and its own
 * attributes, and the next scenario can run.
 *
 * Each assertion prints its own result line as it is reached; one that
 * is never reached (the scenario was stopped first) is reported as a
 * SKIP at the end, and the final case says whether the scenario ended
 * the way its `expect` said.
 */
#include "run.h"
#include "blocked_on.h"
#include "cpu.h"
#include "mm.h"
#include "timer.h"
#include "trace.h"
#include <printf.h>
#include <string.h>

#define SCN_STOP_NS (2 * NSEC_PER_SEC)	/* to end once told to stop */
#define SCN_STOP_LOOK_NS (10 * NSEC_PER_MSEC)	/* stop_deadline_tasks again */
#define SCN_GATE_NS (100 * NSEC_PER_MSEC)	/* for every task to reach the gate */

static int scn_busy;			/* atomic: a scenario runs */

static const char *const op_names[] = {
	[SCN_LOCK] = "lock", [SCN_UNLOCK] = "unlock",
	[SCN_TRYLOCK] = "trylock", [SCN_COMPUTE] = "compute",
	[SCN_SLEEP] = "sleep", [SCN_YIELD] = "yield", [SCN_SET] = "set",
	[SCN_PRINT] = "print", [SCN_MARK] = "mark", [SCN_WAIT] = "wait",
	[SCN_WWLOCK] = "wwlock", [SCN_WWUNLOCK] = "wwunlock",
	[SCN_A_CLASS] = "assert class", [SCN_A_PRIO] = "assert prio",
	[SCN_A_DONOR] = "assert donor", [SCN_A_CPU] = "assert cpu",
	[SCN_A_HAPPENED] = "assert happened",
	[SCN_A_NOT_HAPPENED] = "assert not happened",
	[SCN_A_ELAPSED_LT] = "assert elapsed <",
	[SCN_A_ELAPSED_GT] = "assert elapsed >",
	[SCN_A_BACKOFFS] = "assert backoffs",
};

/*
 * `compute D`: burn D of the caller's own execution time.  It counts at
 * most COMPUTE_LOOK_NS between two looks at the clock: a host that
 * stops the vCPU for milliseconds (a busy machine) would otherwise count
 * as computing, and a section meant to outlast a budget or a tick could
 * end inside one stall, before the kernel had a chance to act.
 */
#define COMPUTE_LOOK_NS (100 * NSEC_PER_USEC)

static void compute(struct scn_run *r, struct task *self, uint64_t ns)
{
	uint64_t done = 0, last = task_exec_ns(self);

	while (done < ns && !READ_ONCE(r->abort)) {
		uint64_t now = task_exec_ns(self);

		done += MIN(now - last, COMPUTE_LOOK_NS);
		last = now;
		arch_cpu_relax();
	}
}

static uint64_t since_t0(struct scn_run *r)
{
	return clock_ns() - READ_ONCE(r->t0);
}

static void wake_fn(struct timer *tm)
{
	wake_up(tm->data);
}

/*
 * Sleep until @until (clock_ns; 0: no limit) has passed, @done(r, arg)
 * holds, or the run is stopped.  The usual sleep/wake order (see
 * wait_case() in kernel/ktest.c): state, full barrier, check; the waker
 * sets what we check, then calls wake_up(), so no wakeup is lost.
 */
static void scn_sleep(struct scn_run *r, uint64_t until,
		      bool (*done)(struct scn_run *r, int arg), int arg,
		      bool stoppable)
{
	struct task *self = current();
	struct timer tm;

	timer_init(&tm, wake_fn, self);
	for (;;) {
		WRITE_ONCE(self->state, TASK_SLEEPING);
		smp_mb();
		if ((stoppable && READ_ONCE(r->abort)) ||
		    (done && done(r, arg)) || (until && clock_ns() >= until))
			break;
		if (until)
			timer_arm(&tm, until);
		schedule();
	}
	WRITE_ONCE(self->state, TASK_RUNNING);
	timer_cancel(&tm);
}

static bool gate_open(struct scn_run *r, int arg)
{
	(void)arg;
	return smp_load_acquire(&r->go);
}

static bool event_happened(struct scn_run *r, int e)
{
	return __atomic_load_n(&r->events, __ATOMIC_ACQUIRE) & 1u << e;
}

static bool all_at_gate(struct scn_run *r, int arg)
{
	(void)arg;
	return __atomic_load_n(&r->at_gate, __ATOMIC_ACQUIRE) == r->ntasks;
}

static bool all_ended(struct scn_run *r, int arg)
{
	(void)arg;
	return __atomic_load_n(&r->nleft, __ATOMIC_ACQUIRE) == 0;
}

/* ---- Results ---------------------------------------------------------- */

static void case_name(const struct scn_trun *tr, const struct scn_step *st,
		      char *buf, size_t len)
{
	const struct scenario *s = tr->run->s;
	int n = snprintf(buf, len, "L%d_%s_", st->line, tr->st->name);
	char *b = buf + n;

	len -= n;
	switch (st->op) {
	case SCN_TRYLOCK:
		snprintf(b, len, "trylock_%s_%s", s->mutexes[st->arg & 0xff],
			 st->arg >> 8 ? "ok" : "busy");
		break;
	case SCN_A_CLASS:
		snprintf(b, len, "class_%s", st->arg == SCHED_NORMAL ? "fair" :
			 st->arg == SCHED_FIFO ? "rt" : "deadline");
		break;
	case SCN_A_PRIO:
		snprintf(b, len, "prio_%d", st->arg);
		break;
	case SCN_A_DONOR:
		snprintf(b, len, "donor_%s", s->text + st->text);
		break;
	case SCN_A_CPU:
		snprintf(b, len, "cpu_%d", st->arg);
		break;
	case SCN_A_HAPPENED:
	case SCN_A_NOT_HAPPENED:
		snprintf(b, len, "%shappened_%s",
			 st->op == SCN_A_HAPPENED ? "" : "not_",
			 s->events[st->arg]);
		break;
	case SCN_A_BACKOFFS:
		snprintf(b, len, "backoffs_%s_%d", ww_cmp_names[st->ns],
			 st->arg);
		break;
	default:
		snprintf(b, len, "elapsed_%s",
			 st->op == SCN_A_ELAPSED_LT ? "lt" : "gt");
	}
}

/* One assertion's KTAP line, its diagnostic (if it failed) just above. */
void report(struct scn_trun *tr, const struct scn_step *st, bool ok,
	    const char *why)
{
	struct scn_run *r = tr->run;
	unsigned long flags;
	char name[64];

	case_name(tr, st, name, sizeof(name));
	__atomic_fetch_or(&r->reported[st->num / 64], 1ULL << st->num % 64,
			  __ATOMIC_RELAXED);
	if (!ok)
		__atomic_fetch_add(&r->failed, 1, __ATOMIC_RELAXED);
	flags = spin_lock(&r->out_lock);
	if (!ok)
		ktap_diag(&r->sub, "line %d: %s: %s failed: %s", st->line,
			  tr->st->name, op_names[st->op], why);
	ktap_result(&r->sub, ok, st->num, name, KTAP_NONE, NULL);
	spin_unlock(&r->out_lock, flags);
}

/* A `print`, `mark` or run-time error line, stamped with time and task. */
void say(struct scn_trun *tr, const char *what, const char *text)
{
	uint64_t t = since_t0(tr->run);

	ktap_diag(&tr->run->sub, "%llu.%03llu ms %s: %s%s",
		  (unsigned long long)(t / NSEC_PER_MSEC),
		  (unsigned long long)(t % NSEC_PER_MSEC / NSEC_PER_USEC),
		  tr->st->name, what, text);
}

/* ---- Assertions ------------------------------------------------------- */

static void check(struct scn_trun *tr, const struct scn_step *st)
{
	struct scn_run *r = tr->run;
	const struct scenario *s = r->s;
	struct sched_context v;
	char why[96] = "";
	bool ok = false, rt;
	uint64_t t;
	int cpu;

	switch (st->op) {
	case SCN_A_CLASS:
		sched_current_context(&v);
		ok = strcmp(v.class_name, sched_policy_class_name(st->arg)) == 0;
		snprintf(why, sizeof(why), "class is %s (context of %s)",
			 v.class_name, v.donor->name);
		break;
	case SCN_A_PRIO:
		sched_current_context(&v);
		rt = strcmp(v.class_name, sched_policy_class_name(SCHED_FIFO)) == 0;
		ok = rt && MAX_RT_PRIO - 1 - v.prio == st->arg;
		if (rt)
			snprintf(why, sizeof(why), "prio is %d (context of %s)",
				 MAX_RT_PRIO - 1 - v.prio, v.donor->name);
		else
			snprintf(why, sizeof(why), "class is %s, not rt "
				 "(context of %s)", v.class_name,
				 v.donor->name);
		break;
	case SCN_A_DONOR:
		sched_current_context(&v);
		ok = v.donor == (st->arg < 0 ? current() : r->tr[st->arg].task);
		snprintf(why, sizeof(why), "donor is %s, expected %s",
			 v.donor->name, s->text + st->text);
		break;
	case SCN_A_CPU:
		preempt_disable();
		cpu = smp_processor_id();
		preempt_enable();
		ok = cpu == st->arg;
		snprintf(why, sizeof(why), "on cpu %d", cpu);
		break;
	case SCN_A_HAPPENED:
	case SCN_A_NOT_HAPPENED:
		ok = event_happened(r, st->arg);
		snprintf(why, sizeof(why), "'%s' %s", s->events[st->arg],
			 ok ? "happened" : "has not happened");
		ok = ok == (st->op == SCN_A_HAPPENED);
		break;
	case SCN_A_ELAPSED_LT:
	case SCN_A_ELAPSED_GT:
		t = since_t0(r);
		ok = st->op == SCN_A_ELAPSED_LT ? t < st->ns : t > st->ns;
		snprintf(why, sizeof(why), "%llu us elapsed, bound %llu us",
			 (unsigned long long)(t / NSEC_PER_USEC),
			 (unsigned long long)(st->ns / NSEC_PER_USEC));
		break;
	}
	report(tr, st, ok, why);
}

/* ---- Steps ------------------------------------------------------------ */

void held_push(struct scn_trun *tr, int m)
{
	tr->held[tr->nheld++] = m;
}

void held_drop(struct scn_trun *tr, int m)
{
	for (int i = 0; i < tr->nheld; i++) {
		if (tr->held[i] == m) {
			memmove(&tr->held[i], &tr->held[i + 1],
				(tr->nheld - i - 1) * sizeof(int));
			tr->nheld--;
			return;
		}
	}
}

static bool step_lock(struct scn_trun *tr, int m)
{
	struct scn_run *r = tr->run;
	int64_t left = (int64_t)(r->deadline + SCN_GRACE_NS - clock_ns());
	int err;

	WRITE_ONCE(tr->waiting, m);
	/* 0 would mean "forever": past the limit, wait a token 1 ns. */
	err = mutex_lock_timeout(&r->mx[m], left > 0 ? (uint64_t)left : 1);
	if (err) {
		/* Past the limit.  Until the controller has taken its picture
		 * and says stop, look as we did: waiting for m. */
		scn_sleep(r, 0, NULL, 0, true);
		WRITE_ONCE(tr->waiting, -1);
		return false;
	}
	WRITE_ONCE(tr->waiting, -1);
	held_push(tr, m);
	return true;
}

static bool step_trylock(struct scn_trun *tr, const struct scn_step *st)
{
	int m = st->arg & 0xff;
	bool want = st->arg >> 8, got = mutex_trylock(&tr->run->mx[m]);

	report(tr, st, got == want, got ? "took it" : "found it busy");
	if (got && want)
		held_push(tr, m);
	else if (got)
		mutex_unlock(&tr->run->mx[m]);
	/* Later steps count on holding it: a task that failed to stops. */
	return got || !want;
}

static bool step_set(struct scn_trun *tr, const struct scn_step *st)
{
	int err = 0;

	if (st->set.has_attr)
		err = sched_setattr(current(), &st->set.attr);
	if (!err && st->set.affinity)
		err = sched_setaffinity(current(), st->set.affinity);
	if (err) {
		__atomic_fetch_add(&tr->run->errors, 1, __ATOMIC_RELAXED);
		say(tr, "error: set refused: ", err == -EBUSY ?
		    "deadline admission control (-EBUSY)" : "-EINVAL");
	}
	return !err;
}

static void step_mark(struct scn_trun *tr, int e)
{
	struct scn_run *r = tr->run;

	say(tr, "mark ", r->s->events[e]);
	trace_mark(r->s->events[e]);
	__atomic_fetch_or(&r->events, 1u << e, __ATOMIC_SEQ_CST);
	/* Wake every waiter before the first of them can preempt us. */
	preempt_disable();
	for (int i = 0; i < r->ntasks; i++)
		if (READ_ONCE(r->tr[i].wait_event) == e)
			wake_up(r->tr[i].task);
	preempt_enable();
}

/* Run one step; false ends the task (stopped, or the step failed so
 * that the following ones would not make sense). */
static bool do_step(struct scn_trun *tr, const struct scn_step *st)
{
	struct scn_run *r = tr->run;
	struct task *self = current();

	switch (st->op) {
	case SCN_LOCK:
		return step_lock(tr, st->arg);
	case SCN_UNLOCK:
		held_drop(tr, st->arg);
		mutex_unlock(&r->mx[st->arg]);
		return true;
	case SCN_TRYLOCK:
		return step_trylock(tr, st);
	case SCN_COMPUTE:
		compute(r, self, st->ns);
		return true;
	case SCN_SLEEP:
		scn_sleep(r, clock_ns() + st->ns, NULL, 0, true);
		return true;
	case SCN_YIELD:
		yield();
		return true;
	case SCN_SET:
		return step_set(tr, st);
	case SCN_PRINT:
		say(tr, "", r->s->text + st->text);
		trace_mark(r->s->text + st->text);
		return true;
	case SCN_MARK:
		step_mark(tr, st->arg);
		return true;
	case SCN_WAIT:
		WRITE_ONCE(tr->wait_event, st->arg);
		scn_sleep(r, 0, event_happened, st->arg, true);
		WRITE_ONCE(tr->wait_event, -1);
		return true;
	case SCN_WWLOCK:
		return ww_run_lock(tr, st);
	case SCN_WWUNLOCK:
		ww_run_unlock(tr);
		return true;
	case SCN_A_BACKOFFS:
		ww_check_backoffs(tr, st);
		return true;
	default:
		check(tr, st);
		return true;
	}
}

static void task_main(void *arg)
{
	struct scn_trun *tr = arg;
	struct scn_run *r = tr->run;
	const struct scn_task *t = tr->st;
	int i;

	__atomic_add_fetch(&r->at_gate, 1, __ATOMIC_RELEASE);
	wake_up(r->controller);
	scn_sleep(r, 0, gate_open, 0, true);
	if (!READ_ONCE(r->abort))
		scn_sleep(r, r->t0 + t->start_ns, NULL, 0, true);
	WRITE_ONCE(tr->started, true);
	for (i = 0; i < t->nsteps && !READ_ONCE(r->abort); i++) {
		WRITE_ONCE(tr->step, i);
		if (!do_step(tr, &t->steps[i]))
			break;
	}
	tr->finished = i == t->nsteps;
	if (tr->nww)			/* stopped inside a ww context */
		ww_run_unlock(tr);
	while (tr->nheld)		/* stopped early: newest first */
		mutex_unlock(&r->mx[tr->held[--tr->nheld]]);
	WRITE_ONCE(tr->ended, true);
	if (__atomic_sub_fetch(&r->nleft, 1, __ATOMIC_ACQ_REL) == 0)
		wake_up(r->controller);
}

/* ---- The controller --------------------------------------------------- */

/* Who holds mutex @m, as a task index, or -1. */
static int holder(struct scn_run *r, int m)
{
	struct task *o = mutex_owner(scn_mutex(r, m));

	for (int i = 0; i < r->ntasks; i++)
		if (o && r->tr[i].task == o)
			return i;
	return -1;
}

/* Print a blocked_on cycle through task @i, if there is one. */
static bool report_cycle(struct scn_run *r, int i)
{
	char buf[256];
	int j = i, n = 0, len;

	for (int hop = 0; hop <= r->ntasks; hop++) {
		int m = READ_ONCE(r->tr[j].waiting);

		if (m < 0 || (j = holder(r, m)) < 0)
			return false;
		if (j == i)
			break;
	}
	if (j != i)
		return false;
	len = snprintf(buf, sizeof(buf), "deadlock:");
	do {
		int m = READ_ONCE(r->tr[j].waiting), o = holder(r, m);

		len += snprintf(buf + len, sizeof(buf) - len,
				"%s %s waits for %s held by %s", n++ ? "," : "",
				r->tr[j].st->name, r->s->mutexes[m],
				r->tr[o].st->name);
		j = o;
	} while (j != i && len < (int)sizeof(buf));
	ktap_diag(&r->sub, "%s", buf);
	return true;
}

/* The picture at the time limit: where each unfinished task is stuck.
 * Returns true if they are deadlocked. */
static bool report_stuck(struct scn_run *r, unsigned long proxy_before)
{
	bool deadlock = false;

	ktap_diag(&r->sub, "stopped at the time limit (%llu ms)",
		  (unsigned long long)(r->s->timeout_ns / NSEC_PER_MSEC));
	for (int i = 0; i < r->ntasks; i++) {
		struct scn_trun *tr = &r->tr[i];
		const struct scn_step *st = &tr->st->steps[READ_ONCE(tr->step)];
		int m = READ_ONCE(tr->waiting), o;

		if (READ_ONCE(tr->ended))
			continue;
		if (!READ_ONCE(tr->started)) {
			ktap_diag(&r->sub, "%s: not started yet", tr->st->name);
		} else if (m >= 0) {
			o = holder(r, m);
			ktap_diag(&r->sub, "%s at line %d: waits for %s held "
				  "by %s", tr->st->name, st->line,
				  r->s->mutexes[m],
				  o >= 0 ? r->tr[o].st->name : "nobody");
		} else if (st->op < ARRAY_SIZE(op_names)) {
			ktap_diag(&r->sub, "%s at line %d: %s", tr->st->name,
				  st->line, op_names[st->op]);
		}
	}
	for (int i = 0; i < r->ntasks && !deadlock; i++)
		deadlock = report_cycle(r, i);
	if (proxy_nr_deadlocks != proxy_before)
		ktap_diag(&r->sub, "proxy reported: %s", proxy_deadlock_report);
	return deadlock;
}

static bool start_tasks(struct scn_run *r)
{
	const struct scenario *s = r->s;

	for (int i = 0; i < s->ntasks; i++) {
		struct scn_trun *tr = &r->tr[i];
		struct thread_opts o = {
			.attr = &s->tasks[i].sched.attr,
			.affinity = s->tasks[i].sched.affinity,
		};
		int err;

		tr->run = r;
		tr->st = &s->tasks[i];
		tr->waiting = tr->wait_event = -1;
		__atomic_add_fetch(&r->nleft, 1, __ATOMIC_RELAXED);
		err = thread_spawn(&tr->task, tr->st->name, task_main, tr, &o);
		if (err) {
			__atomic_sub_fetch(&r->nleft, 1, __ATOMIC_RELAXED);
			ktap_diag(&r->sub, "task %s (line %d) cannot start: %s",
				  tr->st->name, tr->st->line, err == -EBUSY ?
				  "deadline admission control refused it" :
				  err == -ENOMEM ? "out of memory" :
				  "invalid attributes");
			return false;
		}
		r->ntasks++;
	}
	return true;
}

/*
 * Every task is at the gate (or SCN_GATE_NS passed): give each deadline
 * task a fresh budget and period from now on.  Its CBS began when it was
 * created, and what it used on the way to the gate was charged there: a
 * host that stopped the vCPU meanwhile (a busy machine) could leave it
 * throttled, owing periods, at the start (lab2_dl_fair's dl then began
 * 10 ms late and its owner was seen in the fair class).  sched_setattr()
 * with the same parameters starts the server afresh.
 */
static void start_budgets(struct scn_run *r)
{
	scn_sleep(r, clock_ns() + SCN_GATE_NS, all_at_gate, 0, false);
	for (int i = 0; i < r->ntasks; i++)
		if (r->s->tasks[i].sched.attr.policy == SCHED_DEADLINE)
			sched_setattr(r->tr[i].task, &r->s->tasks[i].sched.attr);
}

/* Open the gate (or tell them all to stop) and wake every task. */
static void wake_all(struct scn_run *r)
{
	preempt_disable();
	for (int i = 0; i < r->ntasks; i++)
		wake_up(r->tr[i].task);
	preempt_enable();
}

/*
 * Move every task of the stopped run that is still in the deadline class
 * to SCHED_NORMAL, so that one throttled until its next period runs now
 * (switched_from_dl() ends the throttle) and ends.  r->abort is set.
 */
static void stop_deadline_tasks(struct scn_run *r)
{
	static const struct sched_attr fair = { .policy = SCHED_NORMAL };

	for (int i = 0; i < r->ntasks; i++) {
		struct task *p = r->tr[i].task;

		/* ended: it is past its last step, or gone (never joined
		 * before this returns, so p is still valid). */
		if (!READ_ONCE(r->tr[i].ended) &&
		    READ_ONCE(p->policy) == SCHED_DEADLINE)
			sched_setattr(p, &fair);
	}
}

/*
 * After the stop: wait until every task has ended or @until.  Deadline
 * tasks are moved out of their class now and every SCN_STOP_LOOK_NS
 * while waiting: a `set` step that was under way when r->abort was set
 * may have put one back there.
 */
static void wait_stopped(struct scn_run *r, uint64_t until)
{
	uint64_t now;

	while (!all_ended(r, 0) && (now = clock_ns()) < until) {
		stop_deadline_tasks(r);
		scn_sleep(r, MIN(until, now + SCN_STOP_LOOK_NS), all_ended, 0,
			  false);
	}
}

static bool setup(struct scn_run *r, struct sched_attr *saved, int *mode)
{
	static const struct sched_attr top = {
		.policy = SCHED_FIFO, .rt_priority = RT_PRIO_MAX,
	};
	const struct scenario *s = r->s;
	int err;

	*mode = locking_mode;
	if (s->locking >= 0 && s->locking != (int)locking_mode) {
		err = locking_set_mode(locking_mode_name(s->locking));
		if (err) {
			ktap_diag(&r->sub, "cannot set locking %s: %d tasks "
				  "wait on mutexes",
				  locking_mode_name(s->locking),
				  READ_ONCE(mutex_nr_blocked));
			return false;
		}
	}
	r->wwclass = (struct ww_class){ .is_wait_die = s->wait_die,
					.name = s->name };
	for (int m = 0; m < s->nmutexes; m++) {
		if (s->ww & 1u << m)
			ww_mutex_init(&r->ww[m], &r->wwclass, s->mutexes[m]);
		else
			mutex_init(&r->mx[m], s->mutexes[m]);
	}
	sched_getattr(current(), saved);
	sched_setattr(current(), &top);
	return true;
}

static void finish(struct scn_run *r, int idx, struct scn_result *res)
{
	static const char *const final[] = {
		[SCN_EXPECT_PASS] = "finished",
		[SCN_EXPECT_DEADLOCK] = "deadlock_detected",
		[SCN_EXPECT_TIMEOUT] = "timed_out",
	};
	const struct scenario *s = r->s;
	bool ok;

	for (int i = 0; i < s->ntasks; i++) {
		for (int j = 0; j < s->tasks[i].nsteps; j++) {
			const struct scn_step *st = &s->tasks[i].steps[j];
			char name[64];

			if (!st->num || r->reported[st->num / 64] >>
					(st->num % 64) & 1)
				continue;
			case_name(&r->tr[i], st, name, sizeof(name));
			ktap_skip(&r->sub, st->num, name, "not reached");
		}
	}
	if (s->expect == SCN_EXPECT_PASS)
		ok = !res->timed_out && !r->errors;
	else if (s->expect == SCN_EXPECT_DEADLOCK)
		ok = res->deadlock;
	else
		ok = res->timed_out && !res->deadlock;
	ok = ok && !res->stuck;
	if (!ok)
		ktap_diag(&r->sub, "expected %s; %s",
			  s->expect == SCN_EXPECT_PASS ?
			  "every task to finish in time" :
			  s->expect == SCN_EXPECT_DEADLOCK ? "a deadlock" :
			  "to be stopped at the time limit",
			  res->stuck ? "tasks did not stop" :
			  res->deadlock ? "it deadlocked" :
			  res->timed_out ? "it ran past the time limit" :
			  r->errors ? "a step was refused" : "it finished");
	ktap_result(&r->sub, ok, s->nasserts + 1, final[s->expect], KTAP_NONE,
		    NULL);
	res->asserts_failed = r->failed;
	res->passed = ok && !r->failed;
	ktap_result(&r->top, res->passed, idx, s->name, KTAP_NONE, NULL);
}

int scenario_run(const struct scenario *s, int idx, struct scn_result *res)
{
	/* Inside a ktest case (idx 0) its KTAP goes out as diagnostics of
	 * the case, which do not disturb the suite's own KTAP. */
	struct ktap top = { .quote = idx ? NULL : "    # scenario: " };
	struct ktap sub = ktap_nested(&top);
	unsigned long proxy_before = proxy_nr_deadlocks;
	struct sched_attr saved;
	struct scn_run *r;
	int mode;

	memset(res, 0, sizeof(*res));
	if (__atomic_exchange_n(&scn_busy, 1, __ATOMIC_ACQUIRE))
		return -EBUSY;
	r = kzalloc(sizeof(*r));
	if (!r) {
		ktap_diag(&sub, "scenario %s: out of memory", s->name);
		__atomic_store_n(&scn_busy, 0, __ATOMIC_RELEASE);
		return -ENOMEM;
	}
	r->top = top;
	r->sub = sub;
	ktap_header(&r->sub, s->name, s->nasserts + 1);
	r->s = s;
	r->controller = current();
	spin_init(&r->out_lock, "scenario-out");
	if (!setup(r, &saved, &mode)) {
		r->errors++;
		finish(r, idx, res);
		kfree(r);
		__atomic_store_n(&scn_busy, 0, __ATOMIC_RELEASE);
		return 0;
	}
	if (!start_tasks(r)) {
		r->errors++;
		WRITE_ONCE(r->abort, 1);
	} else {
		start_budgets(r);
	}
	trace_reset();
	r->t0 = clock_ns();
	r->deadline = r->t0 + s->timeout_ns;
	smp_store_release(&r->go, 1);
	wake_all(r);

	scn_sleep(r, r->deadline, all_ended, 0, false);
	if (!all_ended(r, 0)) {
		res->timed_out = true;
		res->deadlock = report_stuck(r, proxy_before);
		WRITE_ONCE(r->abort, 1);
		smp_mb();
		wake_all(r);
		/* From now, too: this thread may be late itself. */
		wait_stopped(r, MAX(r->deadline + SCN_GRACE_NS, clock_ns()) +
			     SCN_STOP_NS);
		res->stuck = !all_ended(r, 0);
	}
	if (res->stuck) {
		/* Cannot happen unless a step blocks without a limit: the
		 * tasks are abandoned and r (their mutexes) leaked, like a
		 * ktest case that times out. */
		ktap_diag(&r->sub, "tasks did not stop; abandoned");
	} else {
		for (int i = 0; i < r->ntasks; i++)
			thread_join(r->tr[i].task);
	}
	sched_setattr(current(), &saved);
	if ((int)locking_mode != mode &&
	    locking_set_mode(locking_mode_name(mode)))
		ktap_diag(&r->sub, "cannot restore locking %s",
			  locking_mode_name(mode));
	finish(r, idx, res);
	if (!res->stuck)
		kfree(r);
	__atomic_store_n(&scn_busy, 0, __ATOMIC_RELEASE);
	return 0;
}
