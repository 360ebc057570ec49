/*
 * run_steps.c - one task of a running scenario: its thread (the gate,
 * its start time, its steps in order, what it holds released at the
 * end) and what each step does (docs/scenarios.md, "Steps"); sleeping
 * until a time, an event or the stop.  run.c starts and stops them.
 */
#include "run.h"
#include "steps.h"
#include "cpu.h"
#include "timer.h"
#include "trace.h"
#include <printf.h>
#include <string.h>

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
void scn_sleep(struct scn_run *r, uint64_t until,
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

/* A `print`, `mark` or run-time error line, stamped with time and task. */
void say(struct scn_trun *tr, const char *what, const char *text)
{
	uint64_t t = since_t0(tr->run);

	ktap_diag(&tr->run->sub, "%llu.%03llu ms %s: %s%s",
		  (unsigned long long)(t / NSEC_PER_MSEC),
		  (unsigned long long)(t % NSEC_PER_MSEC / NSEC_PER_USEC),
		  tr->st->name, what, text);
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

bool scn_run_lock(struct scn_trun *tr, const struct scn_step *st)
{
	struct scn_run *r = tr->run;
	int m = st->arg;
	int err;

	WRITE_ONCE(tr->waiting, m);
	err = mutex_lock_timeout(&r->mx[m], wait_left(r));
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

bool scn_run_unlock(struct scn_trun *tr, const struct scn_step *st)
{
	held_drop(tr, st->arg);
	mutex_unlock(&tr->run->mx[st->arg]);
	return true;
}

/* Also an assertion: the result must be the one written. */
bool scn_run_trylock(struct scn_trun *tr, const struct scn_step *st)
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

/*
 * `compute D`: burn D of the caller's own execution time.  It counts at
 * most COMPUTE_LOOK_NS between two looks at the clock: a host that
 * stops the vCPU for milliseconds (a busy machine) would otherwise count
 * as computing, and a section meant to outlast a budget or a tick could
 * end inside one stall, before the kernel had a chance to act.
 */
#define COMPUTE_LOOK_NS (100 * NSEC_PER_USEC)

bool scn_run_compute(struct scn_trun *tr, const struct scn_step *st)
{
	struct scn_run *r = tr->run;
	struct task *self = current();
	uint64_t done = 0, last = task_exec_ns(self);

	while (done < st->ns && !READ_ONCE(r->abort)) {
		uint64_t now = task_exec_ns(self);

		done += MIN(now - last, COMPUTE_LOOK_NS);
		last = now;
		arch_cpu_relax();
	}
	return true;
}

bool scn_run_sleep(struct scn_trun *tr, const struct scn_step *st)
{
	scn_sleep(tr->run, clock_ns() + st->ns, NULL, 0, true);
	return true;
}

bool scn_run_yield(struct scn_trun *tr, const struct scn_step *st)
{
	(void)tr;
	(void)st;
	yield();
	return true;
}

/* A refusal (admission control) is an error of the run: it stops the
 * task and fails a scenario that expected to pass. */
bool scn_run_set(struct scn_trun *tr, const struct scn_step *st)
{
	const struct scn_sched *set = &tr->run->s->sets[st->arg];
	int err = 0;

	if (set->has_attr)
		err = sched_setattr(current(), &set->attr);
	if (!err && set->affinity)
		err = sched_setaffinity(current(), set->affinity);
	if (err) {
		__atomic_fetch_add(&tr->run->errors, 1, __ATOMIC_RELAXED);
		say(tr, "error: set refused: ", err == -EBUSY ?
		    "deadline admission control (-EBUSY)" : "-EINVAL");
	}
	return !err;
}

bool scn_run_print(struct scn_trun *tr, const struct scn_step *st)
{
	const char *text = tr->run->s->text + st->text;

	say(tr, "", text);
	trace_mark(text);
	return true;
}

bool scn_run_mark(struct scn_trun *tr, const struct scn_step *st)
{
	struct scn_run *r = tr->run;
	int e = st->arg;

	uint32_t none = 0;

	say(tr, "mark ", r->s->events[e]);
	trace_mark(r->s->events[e]);
	/* Its place among first marks (assert order), before it shows as
	 * happened: whoever sees the bit sees the place. */
	if (!__atomic_load_n(&r->ev_seq[e], __ATOMIC_RELAXED))
		__atomic_compare_exchange_n(&r->ev_seq[e], &none,
			__atomic_add_fetch(&r->nseq, 1, __ATOMIC_SEQ_CST),
			false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
	__atomic_fetch_or(&r->events, 1ULL << e, __ATOMIC_SEQ_CST);
	/* Wake every waiter before the first of them can preempt us. */
	preempt_disable();
	for (int i = 0; i < r->ntasks; i++)
		if (READ_ONCE(r->tr[i].wait_event) == e)
			wake_up(r->tr[i].task);
	preempt_enable();
	return true;
}

/* wait_event is what scn_run_mark() looks at to wake us. */
bool scn_run_wait(struct scn_trun *tr, const struct scn_step *st)
{
	WRITE_ONCE(tr->wait_event, st->arg);
	scn_sleep(tr->run, 0, event_happened, st->arg, true);
	WRITE_ONCE(tr->wait_event, -1);
	return true;
}

/* ---- Flow ------------------------------------------------------------ */

/* repeat N: the body's runs start now (a repeat does not nest, so one
 * counter per task is enough). */
bool scn_run_repeat(struct scn_trun *tr, const struct scn_step *st)
{
	tr->loop_left = st->arg;
	return true;
}

/* The end of the body: back to its first step while runs are left. */
bool scn_run_end_repeat(struct scn_trun *tr, const struct scn_step *st)
{
	if (--tr->loop_left > 0)
		tr->jump = st->arg + 1;
	return true;
}

/*
 * spin until E [within D]: burn CPU, never sleeping (so the task stays
 * runnable and in its class's competition, unlike wait), until E has
 * happened, the stop, or D of wall time (then an error of the run).
 */
bool scn_run_spin(struct scn_trun *tr, const struct scn_step *st)
{
	struct scn_run *r = tr->run;
	uint64_t until = st->ns ? clock_ns() + st->ns : 0;
	char text[SCN_NAME_MAX + 64];

	while (!event_happened(r, st->arg)) {
		if (READ_ONCE(r->abort))
			return false;
		if (until && clock_ns() >= until) {
			__atomic_fetch_add(&r->errors, 1, __ATOMIC_RELAXED);
			snprintf(text, sizeof(text), "'%s' did not happen within "
				 "%llu us", r->s->events[st->arg],
				 (unsigned long long)(st->ns / NSEC_PER_USEC));
			say(tr, "error: spin until: ", text);
			return false;
		}
		arch_cpu_relax();
	}
	return true;
}

/* ---- The task ----------------------------------------------------------- */

void scn_task_main(void *arg)
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
		const struct scn_step *st = &t->steps[i];

		WRITE_ONCE(tr->step, i);
		tr->jump = -1;
		if (!scn_steps[st->op].run(tr, st))
			break;
		if (tr->jump >= 0)
			i = tr->jump - 1;
	}
	tr->finished = i == t->nsteps;
	if (tr->nww)			/* stopped inside a ww context */
		ww_release_all(tr);
	while (tr->nheld)		/* stopped early: newest first */
		mutex_unlock(&r->mx[tr->held[--tr->nheld]]);
	WRITE_ONCE(tr->ended, true);
	if (__atomic_sub_fetch(&r->nleft, 1, __ATOMIC_ACQ_REL) == 0)
		wake_up(r->controller);
}

