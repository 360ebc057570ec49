/*
 * steps.c - the table of steps (steps.h): every statement a task's
 * script may hold, with its parse function, its run function and what
 * it does.  docs/scenarios.md, "Steps" and "Assertions", is the long
 * form of the doc column.
 */
#include "steps.h"

const struct scn_step_kind scn_steps[SCN_NR_OPS] = {
	[SCN_LOCK] = { "lock", scn_parse_lock, scn_run_lock,
		"lock M: mutex_lock(), waiting at most until the time limit" },
	[SCN_UNLOCK] = { "unlock", scn_parse_lock, scn_run_unlock,
		"unlock M: mutex_unlock()" },
	[SCN_TRYLOCK] = { "trylock", scn_parse_lock, scn_run_trylock,
		"trylock M ok|busy: mutex_trylock(); a case: the result must "
		"be the one written" },
	[SCN_COMPUTE] = { "compute", scn_parse_duration, scn_run_compute,
		"compute D: burn D of the task's own execution time" },
	[SCN_SLEEP] = { "sleep", scn_parse_duration, scn_run_sleep,
		"sleep D: sleep D" },
	[SCN_YIELD] = { "yield", scn_parse_yield, scn_run_yield,
		"yield: yield()" },
	[SCN_SET] = { "set", scn_parse_set, scn_run_set,
		"set CLASS params | cpu=N | cpus=...: change its own class "
		"(sched_setattr) or CPUs (sched_setaffinity)" },
	[SCN_PRINT] = { "print", scn_parse_print, scn_run_print,
		"print TEXT: a diagnostic line and a trace mark" },
	[SCN_MARK] = { "mark", scn_parse_event, scn_run_mark,
		"mark E: event E happened (printed, traced, waiters woken)" },
	[SCN_WAIT] = { "wait", scn_parse_event, scn_run_wait,
		"wait E: sleep until event E has happened" },
	[SCN_WWLOCK] = { "wwlock", scn_parse_wwlock, scn_run_wwlock,
		"wwlock M...: take wwmutexes in the task's acquire context, "
		"backing off on -EDEADLK" },
	[SCN_WWUNLOCK] = { "wwunlock", scn_parse_wwunlock, scn_run_wwunlock,
		"wwunlock: release the context's wwmutexes and end it" },
	[SCN_DOWN] = { "down", scn_parse_sema, scn_run_down,
		"down S: sema_down(), waiting at most until the time limit" },
	[SCN_UP] = { "up", scn_parse_sema, scn_run_up,
		"up S: sema_up(), the unit to the first waiter by priority" },
	[SCN_CWAIT] = { "cwait", scn_parse_cwait, scn_run_cwait,
		"cwait C M: cond_wait() on C, releasing M (held) meanwhile" },
	[SCN_SIGNAL] = { "signal", scn_parse_signal, scn_run_signal,
		"signal C: cond_signal(), the first waiter by priority" },
	[SCN_BROADCAST] = { "broadcast", scn_parse_signal, scn_run_broadcast,
		"broadcast C: cond_broadcast(), every waiter" },
	[SCN_REPEAT] = { "repeat", scn_parse_repeat, scn_run_repeat,
		"repeat N: the steps up to its end, N times" },
	[SCN_END_REPEAT] = { "end", scn_parse_end_repeat, scn_run_end_repeat,
		"end (of a repeat): back to its first step, or on" },
	[SCN_SPIN] = { "spin", scn_parse_spin, scn_run_spin,
		"spin until E [within D]: run, never sleeping, until event E "
		"has happened" },

	/* Assertions: one KTAP case each, about the task's context (the
	 * scheduling context it runs with: rq->donor of its CPU), or with
	 * `of TASK` about TASK's. */
	[SCN_A_CLASS] = { "assert class", scn_parse_a_class, scn_check_class,
		"assert class fair|rt|deadline [of T]: my (T's) context's "
		"class" },
	[SCN_A_PRIO] = { "assert prio", scn_parse_a_prio, scn_check_prio,
		"assert prio N [of T]: my (T's) context is RT with priority N" },
	[SCN_A_DONOR] = { "assert donor", scn_parse_a_donor, scn_check_donor,
		"assert donor NAME|self [of T]: my (T's) context is task "
		"NAME's / my (T's) own" },
	[SCN_A_CPU] = { "assert cpu", scn_parse_a_cpu, scn_check_cpu,
		"assert cpu N: I run on CPU N" },
	[SCN_A_HAPPENED] = { "assert happened", scn_parse_a_happened,
		scn_check_happened, "assert happened E: event E has happened" },
	[SCN_A_NOT_HAPPENED] = { "assert not happened", scn_parse_a_happened,
		scn_check_happened,
		"assert not happened E: event E has not happened yet" },
	[SCN_A_ELAPSED_LT] = { "assert elapsed <", scn_parse_a_elapsed,
		scn_check_elapsed,
		"assert elapsed < D: less than D since the scenario started" },
	[SCN_A_ELAPSED_GT] = { "assert elapsed >", scn_parse_a_elapsed,
		scn_check_elapsed,
		"assert elapsed > D: more than D since the scenario started" },
	[SCN_A_BACKOFFS] = { "assert backoffs", scn_parse_a_backoffs,
		scn_check_backoffs,
		"assert backoffs =|<|>|<=|>= N: how often my wwlock steps were "
		"told -EDEADLK" },
	[SCN_A_ORDER] = { "assert order", scn_parse_a_order, scn_check_order,
		"assert order E1 E2...: those events happened, first marked "
		"in that order" },
};

const char *const scn_cmp_ops[SCN_NR_CMPS] = {
	[SCN_CMP_EQ] = "=", [SCN_CMP_LT] = "<", [SCN_CMP_GT] = ">",
	[SCN_CMP_LE] = "<=", [SCN_CMP_GE] = ">=",
};
const char *const scn_cmp_names[SCN_NR_CMPS] = {
	[SCN_CMP_EQ] = "eq", [SCN_CMP_LT] = "lt", [SCN_CMP_GT] = "gt",
	[SCN_CMP_LE] = "le", [SCN_CMP_GE] = "ge",
};
