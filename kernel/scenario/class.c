/*
 * class.c - class headers of scenario scripts: the words after
 * `task NAME` and after `set` that give a task its class, the class's
 * parameters, its CPUs and its start time (docs/scenarios.md), checked
 * against the same limits as sched_setattr() (sched.h) so that a script
 * the kernel would refuse is refused before it runs, at the value that
 * is wrong.
 */
#include "parse.h"
#include "cpu.h"
#include <printf.h>
#include <string.h>

/* "0,2,3" or "all" -> mask of the scenario's CPUs. */
bool cpu_list(struct parser *p, const char *v, int col, bool one,
	      uint64_t *mask)
{
	char item[24];
	long long cpu;

	*mask = 0;
	if (!one && strcmp(v, "all") == 0) {
		*mask = (p->s->cpus >= 64) ? ~0ULL : (1ULL << p->s->cpus) - 1;
		return true;
	}
	while (*v) {
		size_t n = 0;

		while (v[n] && v[n] != ',' && n < sizeof(item) - 1) {
			item[n] = v[n];
			n++;
		}
		item[n] = '\0';
		if (!number(p, item, col, false, 0, NR_CPUS - 1, "cpu", &cpu))
			return false;
		if (cpu >= p->s->cpus)
			return fail_at(p, col, "cpu %lld outside the "
				       "scenario's cpus 0..%d (declare 'cpus "
				       "%lld')", cpu, p->s->cpus - 1, cpu + 1);
		*mask |= 1ULL << cpu;
		v += n;
		if (*v == ',' && *++v == '\0')
			return fail_at(p, col, "bad cpu list (ends with ',')");
	}
	if (!*mask)
		return fail_at(p, col, "empty cpu list");
	return true;
}

/* Class parameters first (before K_CPU), then the ones of every task. */
enum { K_NICE, K_PRIO, K_RUNTIME, K_DEADLINE, K_PERIOD, K_FIFO, K_RR,
       K_CPU, K_CPUS, K_START, NKEYS };
static const char *const keys[NKEYS] = {
	"nice", "prio", "runtime", "deadline", "period", "fifo", "rr",
	"cpu", "cpus", "start",
};

/* Which keys each class takes (besides cpu, cpus, start). */
static const uint32_t class_keys[] = {
	[SCHED_NORMAL] = 1 << K_NICE,
	[SCHED_FIFO] = 1 << K_PRIO | 1 << K_FIFO | 1 << K_RR,
	[SCHED_DEADLINE] = 1 << K_RUNTIME | 1 << K_DEADLINE | 1 << K_PERIOD,
};

int class_policy(const char *c)
{
	if (strcmp(c, "fair") == 0)
		return SCHED_NORMAL;
	if (strcmp(c, "rt") == 0)
		return SCHED_FIFO;
	if (strcmp(c, "deadline") == 0)
		return SCHED_DEADLINE;
	return -1;
}

/* "FIELD V is REL LIMIT NOTE", the values as durations. */
static bool dl_refuse(struct parser *p, int col, const char *field,
		      uint64_t v, const char *rel, uint64_t limit,
		      const char *note)
{
	char vs[24], ls[24];

	return fail_at(p, col, "%s %s is %s %s%s", field,
		       duration_str(v, vs, sizeof(vs)), rel,
		       duration_str(limit, ls, sizeof(ls)), note);
}

/*
 * The deadline limits of sched.h (DL_RUNTIME_MIN_NS ...), checked here so
 * that a script is refused before it runs, at the value that is wrong
 * (@vcol: each key's value column), naming the field and the limit.
 */
static bool dl_check(struct parser *p, struct sched_attr *a, uint32_t seen,
		     const int *vcol, int col)
{
	const char *pname = "period", *note = "";
	int pcol = vcol[K_PERIOD];

	if (!(seen & 1 << K_RUNTIME) || !(seen & 1 << K_DEADLINE))
		return fail_at(p, col, "deadline needs runtime= and deadline=");
	if (!a->dl_period) {
		a->dl_period = a->dl_deadline;
		pname = "deadline";
		note = " (no period=: the deadline is the period)";
		pcol = vcol[K_DEADLINE];
	}
	if (a->dl_runtime < DL_RUNTIME_MIN_NS)
		return dl_refuse(p, vcol[K_RUNTIME], "runtime", a->dl_runtime,
				 "below the minimum", DL_RUNTIME_MIN_NS, "");
	if (a->dl_deadline < a->dl_runtime)
		return dl_refuse(p, vcol[K_DEADLINE], "deadline", a->dl_deadline,
				 "shorter than runtime", a->dl_runtime, "");
	if (a->dl_period < a->dl_deadline)
		return dl_refuse(p, pcol, "period", a->dl_period,
				 "shorter than deadline", a->dl_deadline, "");
	if (a->dl_period < DL_PERIOD_MIN_NS)
		return dl_refuse(p, pcol, pname, a->dl_period,
				 "below the minimum period", DL_PERIOD_MIN_NS,
				 note);
	if (a->dl_period > DL_PERIOD_MAX_NS)
		return dl_refuse(p, pcol, pname, a->dl_period,
				 "above the maximum period", DL_PERIOD_MAX_NS,
				 note);
	return true;
}

/* One key=value (or fifo/rr) word @i into @sc. */
static bool class_param(struct parser *p, int i, int policy,
			struct scn_sched *sc, uint64_t *start,
			uint32_t *seen, int *vcols)
{
	char *w = p->w[i].s, *eq = strchr(w, '=');
	int col = p->w[i].col, vcol;
	struct sched_attr *a = &sc->attr;
	long long v;
	int k;

	if (eq)
		*eq = '\0';
	for (k = 0; k < NKEYS && strcmp(keys[k], w) != 0; k++)
		;
	if (eq)
		*eq = '=';
	if (k == NKEYS || (k == K_FIFO || k == K_RR) == !!eq)
		return fail_at(p, col, "unknown parameter '%s'", w);
	if (k == K_START && !start)
		return fail_at(p, col, "start= only on a task line");
	if (k < K_CPU && policy < 0)
		return fail_at(p, col, "'%s' needs a class before it", w);
	if (k < K_CPU && !(class_keys[policy] & 1 << k))
		return fail_at(p, col, "'%s' is not a parameter of class %s",
			       w, policy == SCHED_NORMAL ? "fair" :
			       policy == SCHED_FIFO ? "rt" : "deadline");
	if (*seen & 1 << k || (k == K_CPU && *seen & 1 << K_CPUS) ||
	    (k == K_CPUS && *seen & 1 << K_CPU) ||
	    (k == K_FIFO && *seen & 1 << K_RR) ||
	    (k == K_RR && *seen & 1 << K_FIFO))
		return fail_at(p, col, "'%s' given twice", w);
	*seen |= 1 << k;
	vcol = eq ? col + (int)(eq - w) + 1 : col;
	vcols[k] = vcol;
	eq = eq ? eq + 1 : NULL;
	switch (k) {
	case K_NICE:
		if (!number(p, eq, vcol, true, NICE_MIN, NICE_MAX, "nice", &v))
			return false;
		a->nice = v;
		return true;
	case K_PRIO:
		if (!number(p, eq, vcol, false, RT_PRIO_MIN, RT_PRIO_MAX,
			    "prio", &v))
			return false;
		a->rt_priority = v;
		return true;
	case K_FIFO:
	case K_RR:
		a->policy = k == K_RR ? SCHED_RR : SCHED_FIFO;
		return true;
	case K_RUNTIME:
		return duration(p, eq, vcol, &a->dl_runtime);
	case K_DEADLINE:
		return duration(p, eq, vcol, &a->dl_deadline);
	case K_PERIOD:
		return duration(p, eq, vcol, &a->dl_period);
	case K_CPU:
	case K_CPUS:
		return cpu_list(p, eq, vcol, k == K_CPU, &sc->affinity);
	case K_START:
		return duration(p, eq, vcol, start);
	}
	return false;
}

/*
 * Words from @i: [CLASS params] [cpu=N | cpus=LIST] [start=D] (start only
 * if @start).  A task line needs the class; `set` needs class or CPUs.
 */
bool class_header(struct parser *p, int i, struct scn_sched *sc,
		  uint64_t *start)
{
	int policy = -1, class_col = col_of(p, i), vcols[NKEYS] = { 0 };
	uint32_t seen = 0;

	memset(sc, 0, sizeof(*sc));
	if (word(p, i) && !strchr(word(p, i), '=')) {
		policy = class_policy(word(p, i));
		if (policy < 0)
			return fail_at(p, class_col, "unknown class '%s' "
				       "(fair, rt, deadline)", word(p, i));
		sc->has_attr = true;
		sc->attr.policy = policy;
		i++;
	} else if (start) {
		return fail_at(p, class_col, "task needs a class (fair, rt, "
			       "deadline)");
	}
	for (; i < p->nw; i++)
		if (!class_param(p, i, policy, sc, start, &seen, vcols))
			return false;
	if (policy == SCHED_FIFO && !(seen & 1 << K_PRIO))
		return fail_at(p, class_col, "rt needs prio=1..99");
	if (policy == SCHED_DEADLINE && !dl_check(p, &sc->attr, seen, vcols,
						  class_col))
		return false;
	if (!start && !sc->has_attr && !sc->affinity)
		return fail_at(p, class_col, "set needs a class or cpu=/cpus=");
	return true;
}
