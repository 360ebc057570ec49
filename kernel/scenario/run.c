/*
 * run.c - running a parsed scenario: the controller, which starts one
 * kernel thread per task (run_steps.c runs its steps, run_check.c its
 * assertions), writes the KTAP subtest's plan and final case, and stops
 * a scenario that deadlocks or overruns.
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
 * scenario_stop() (the shell's Ctrl-C) wakes the controller before the
 * limit: it stops the tasks the same way, its picture says "stopped on
 * request", and the final case fails.
 *
 * Each assertion prints its own result line as it is reached; one that
 * is never reached (the scenario was stopped first) is reported as a
 * SKIP at the end, and the final case says whether the scenario ended
 * the way its `expect` said.
 */
#include "run.h"
#include "steps.h"
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
/* scenario_stop(): the request, and the controller to wake (NULL when
 * no scenario runs), under scn_stop_lock so that the controller is never
 * woken after it has moved on. */
static spinlock_t scn_stop_lock = SPINLOCK_INIT("scenario-stop");
static struct task *scn_stop_controller;
static int scn_stop_req;

static bool stop_requested(void)
{
	return __atomic_load_n(&scn_stop_req, __ATOMIC_ACQUIRE);
}

int scenario_stop(void)
{
	unsigned long flags = spin_lock(&scn_stop_lock);
	int err = -ESRCH;

	if (scn_stop_controller) {
		__atomic_store_n(&scn_stop_req, 1, __ATOMIC_RELEASE);
		wake_up(scn_stop_controller);
		err = 0;
	}
	spin_unlock(&scn_stop_lock, flags);
	return err;
}

/* Publish (@t) or withdraw (NULL) the running controller. */
static void stop_target(struct task *t)
{
	unsigned long flags = spin_lock(&scn_stop_lock);

	scn_stop_controller = t;
	if (t)
		__atomic_store_n(&scn_stop_req, 0, __ATOMIC_RELAXED);
	spin_unlock(&scn_stop_lock, flags);
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

static bool ended_or_stopped(struct scn_run *r, int arg)
{
	return all_ended(r, arg) || stop_requested();
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
static bool report_stuck(struct scn_run *r, unsigned long proxy_before,
			 bool by_request)
{
	bool deadlock = false;

	if (by_request)
		ktap_diag(&r->sub, "stopped on request (Ctrl-C) after %llu ms",
			  (unsigned long long)(since_t0(r) / NSEC_PER_MSEC));
	else
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
		} else if (st->op < SCN_NR_OPS) {
			ktap_diag(&r->sub, "%s at line %d: %s", tr->st->name,
				  st->line, scn_steps[st->op].name);
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
		err = thread_spawn(&tr->task, tr->st->name, scn_task_main, tr, &o);
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
		if (s->ww & 1ULL << m)
			ww_mutex_init(&r->ww[m], &r->wwclass, s->mutexes[m]);
		else
			mutex_init(&r->mx[m], s->mutexes[m]);
	}
	for (int i = 0; i < s->nsems; i++)
		sema_init(&r->sem[i], s->sem_count[i], s->sems[i]);
	for (int i = 0; i < s->nconds; i++)
		cond_init(&r->cv[i], s->conds[i]);
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
	ok = ok && !res->stuck && !res->stopped;
	if (!ok)
		ktap_diag(&r->sub, "expected %s; %s",
			  s->expect == SCN_EXPECT_PASS ?
			  "every task to finish in time" :
			  s->expect == SCN_EXPECT_DEADLOCK ? "a deadlock" :
			  "to be stopped at the time limit",
			  res->stuck ? "tasks did not stop" :
			  res->stopped ? "it was stopped on request" :
			  res->deadlock ? "it deadlocked" :
			  res->timed_out ? "it ran past the time limit" :
			  r->errors ? "a step was refused" : "it finished");
	ktap_result(&r->sub, ok, s->nasserts + 1, final[s->expect], KTAP_NONE,
		    NULL);
	res->asserts_failed = r->failed;
	res->passed = ok && !r->failed;
	ktap_result(&r->top, res->passed, idx, s->name, KTAP_NONE, NULL);
}

/* Start the tasks, open the gate at t0, and sleep until every task has
 * ended or the time limit has come. */
static void run_until_limit(struct scn_run *r)
{
	if (!start_tasks(r)) {
		r->errors++;
		WRITE_ONCE(r->abort, 1);
	} else {
		start_budgets(r);
	}
	trace_reset();
	r->t0 = clock_ns();
	r->deadline = r->t0 + r->s->timeout_ns;
	smp_store_release(&r->go, 1);
	wake_all(r);

	scn_sleep(r, r->deadline, ended_or_stopped, 0, false);
}

/* The time limit, with tasks left: take the picture, then stop them all
 * and wait (SCN_STOP_NS at most) until they have ended. */
static void stop_at_limit(struct scn_run *r, struct scn_result *res,
			  unsigned long proxy_before)
{
	res->stopped = clock_ns() < r->deadline && stop_requested();
	res->timed_out = !res->stopped;
	res->deadlock = report_stuck(r, proxy_before, res->stopped);
	WRITE_ONCE(r->abort, 1);
	smp_mb();
	wake_all(r);
	/* From now, too: this thread may be late itself. */
	wait_stopped(r, MAX(r->deadline + SCN_GRACE_NS, clock_ns()) +
		     SCN_STOP_NS);
	res->stuck = !all_ended(r, 0);
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
	stop_target(r->controller);
	spin_init(&r->out_lock, "scenario-out");
	if (!setup(r, &saved, &mode)) {
		r->errors++;
		finish(r, idx, res);
		kfree(r);
		stop_target(NULL);
		__atomic_store_n(&scn_busy, 0, __ATOMIC_RELEASE);
		return 0;
	}
	run_until_limit(r);
	if (!all_ended(r, 0))
		stop_at_limit(r, res, proxy_before);
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
	stop_target(NULL);
	__atomic_store_n(&scn_busy, 0, __ATOMIC_RELEASE);
	return 0;
}
