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
		snprintf(b, len, "backoffs_%s_%d", scn_cmp_names[st->ns],
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
			  tr->st->name, scn_op_names[st->op], why);
	ktap_result(&r->sub, ok, st->num, name, KTAP_NONE, NULL);
	spin_unlock(&r->out_lock, flags);
}

/* ---- Assertions ------------------------------------------------------- */

void check_assertion(struct scn_trun *tr, const struct scn_step *st)
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

