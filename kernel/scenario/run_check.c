/*
 * run_check.c - the assertions of a running scenario (docs/scenarios.md,
 * "Assertions"): what each one looks at, and its KTAP case, named
 * L<line>_<task>_<what>, with a diagnostic above it when it fails.
 */
#include "run.h"
#include "steps.h"
#include "cpu.h"
#include <printf.h>
#include <string.h>

/* ---- Results ---------------------------------------------------------- */

void case_name(const struct scn_trun *tr, const struct scn_step *st,
	       char *buf, size_t len)
{
	const struct scenario *s = tr->run->s;
	size_t total = len;
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
	case SCN_A_ELAPSED_LT:
	case SCN_A_ELAPSED_GT:
		snprintf(b, len, "elapsed_%s",
			 st->op == SCN_A_ELAPSED_LT ? "lt" : "gt");
		break;
	case SCN_A_BACKOFFS:
		snprintf(b, len, "backoffs_%s_%d", scn_cmp_names[st->ns],
			 st->arg);
		break;
	case SCN_A_ORDER:
		n = snprintf(b, len, "order");
		for (int i = 0; i < st->arg && n < (int)len; i++)
			n += snprintf(b + n, len - n, "_%s",
				      s->events[s->text[st->text + i] - 1]);
		break;
	default:			/* its name: "assert x y" -> "x_y" */
		strlcpy(b, scn_steps[st->op].name + strlen("assert "), len);
		for (; *b; b++)
			if (*b == ' ')
				*b = '_';
	}
	n = strlen(buf);
	if (st->who >= 0)
		snprintf(buf + n, total - n, "_of_%s", s->tasks[st->who].name);
}

/* One assertion's KTAP line, its diagnostic (if it failed) just above. */
bool report(struct scn_trun *tr, const struct scn_step *st, bool ok,
	    const char *why)
{
	struct scn_run *r = tr->run;
	unsigned long flags;
	char name[64];

	/* Inside a repeat: one result, at the first failure or else at the
	 * last run (loop_left counts this run too). */
	if (st->looped && (r->reported[st->num / 64] >> st->num % 64 & 1 ||
			   (ok && tr->loop_left > 1)))
		return true;
	case_name(tr, st, name, sizeof(name));
	__atomic_fetch_or(&r->reported[st->num / 64], 1ULL << st->num % 64,
			  __ATOMIC_RELAXED);
	if (!ok)
		__atomic_fetch_add(&r->failed, 1, __ATOMIC_RELAXED);
	flags = spin_lock(&r->out_lock);
	if (!ok)
		ktap_diag(&r->sub, "line %d: %s: %s failed: %s", st->line,
			  tr->st->name, scn_steps[st->op].name, why);
	ktap_result(&r->sub, ok, st->num, name, KTAP_NONE, NULL);
	spin_unlock(&r->out_lock, flags);
	return true;
}

/* ---- What each assertion checks: its result and why, then report() */

/* Is @class_name the class of tasks of @policy? */
static bool class_is(const char *class_name, int policy)
{
	return strcmp(class_name, sched_policy_class_name(policy)) == 0;
}

/* The context an assertion is about: mine, or with `of T` T's. */
static void context_of(struct scn_trun *tr, const struct scn_step *st,
		       struct sched_context *v)
{
	if (st->who < 0)
		sched_current_context(v);
	else
		sched_task_context(tr->run->tr[st->who].task, v);
}

bool scn_check_class(struct scn_trun *tr, const struct scn_step *st)
{
	struct sched_context v;
	char why[96];

	context_of(tr, st, &v);
	snprintf(why, sizeof(why), "class is %s (context of %s)",
		 v.class_name, v.donor->name);
	return report(tr, st, class_is(v.class_name, st->arg), why);
}

/* On the scale of prio= (1..99, higher wins), not the kernel's. */
bool scn_check_prio(struct scn_trun *tr, const struct scn_step *st)
{
	struct sched_context v;
	char why[96];
	int prio;

	context_of(tr, st, &v);
	if (!class_is(v.class_name, SCHED_FIFO)) {
		snprintf(why, sizeof(why), "class is %s, not rt (context of "
			 "%s)", v.class_name, v.donor->name);
		return report(tr, st, false, why);
	}
	prio = MAX_RT_PRIO - 1 - v.prio;
	snprintf(why, sizeof(why), "prio is %d (context of %s)", prio,
		 v.donor->name);
	return report(tr, st, prio == st->arg, why);
}

bool scn_check_donor(struct scn_trun *tr, const struct scn_step *st)
{
	struct scn_run *r = tr->run;
	struct task *self = st->who < 0 ? current() : r->tr[st->who].task;
	struct sched_context v;
	char why[96];

	context_of(tr, st, &v);
	snprintf(why, sizeof(why), "donor is %s, expected %s", v.donor->name,
		 r->s->text + st->text);
	return report(tr, st, v.donor == (st->arg < 0 ? self :
					  r->tr[st->arg].task), why);
}

bool scn_check_cpu(struct scn_trun *tr, const struct scn_step *st)
{
	char why[96];
	int cpu;

	preempt_disable();
	cpu = smp_processor_id();
	preempt_enable();
	snprintf(why, sizeof(why), "on cpu %d", cpu);
	return report(tr, st, cpu == st->arg, why);
}

/* assert happened E and assert not happened E */
bool scn_check_happened(struct scn_trun *tr, const struct scn_step *st)
{
	bool happened = event_happened(tr->run, st->arg);
	char why[96];

	snprintf(why, sizeof(why), "'%s' %s", tr->run->s->events[st->arg],
		 happened ? "happened" : "has not happened");
	return report(tr, st, happened == (st->op == SCN_A_HAPPENED), why);
}

/* assert elapsed < D and assert elapsed > D */
bool scn_check_elapsed(struct scn_trun *tr, const struct scn_step *st)
{
	uint64_t t = since_t0(tr->run);
	char why[96];

	snprintf(why, sizeof(why), "%llu us elapsed, bound %llu us",
		 (unsigned long long)(t / NSEC_PER_USEC),
		 (unsigned long long)(st->ns / NSEC_PER_USEC));
	return report(tr, st, st->op == SCN_A_ELAPSED_LT ? t < st->ns :
			      t > st->ns, why);
}

/* assert order E1 E2 ...: each has happened, and the first marks came in
 * that order. */
bool scn_check_order(struct scn_trun *tr, const struct scn_step *st)
{
	struct scn_run *r = tr->run;
	const char *list = r->s->text + st->text;
	uint32_t last = 0;
	char why[96];

	for (int i = 0; i < st->arg; i++) {
		int e = list[i] - 1;
		uint32_t seq;

		if (!event_happened(r, e)) {
			snprintf(why, sizeof(why), "'%s' has not happened",
				 r->s->events[e]);
			return report(tr, st, false, why);
		}
		seq = __atomic_load_n(&r->ev_seq[e], __ATOMIC_RELAXED);
		if (seq < last) {
			snprintf(why, sizeof(why), "'%s' happened before '%s'",
				 r->s->events[e], r->s->events[list[i - 1] - 1]);
			return report(tr, st, false, why);
		}
		last = seq;
	}
	return report(tr, st, true, "");
}
