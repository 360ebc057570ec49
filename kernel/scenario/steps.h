/*
 * steps.h - what the two halves of the scenario engine share besides
 * struct scenario (scenario.h): the names of the steps and of the
 * comparisons, as a script writes them.  The parse half (lex.c,
 * class.c, parse.c, parse_steps.c, ww_parse.c: parse.h) and the run
 * half (run.c, run_steps.c, run_check.c, ww_run.c: run.h) include this,
 * never each other's header.
 */
#ifndef SCENARIO_STEPS_H
#define SCENARIO_STEPS_H
#include "scenario.h"

/* enum scn_op -> "lock", ..., "assert elapsed <": for reports. */
extern const char *const scn_op_names[SCN_NR_OPS];
/* enum scn_cmp -> "=", "<", ... (scripts) and "eq", "lt", ... (case
 * names). */
extern const char *const scn_cmp_ops[SCN_NR_CMPS];
extern const char *const scn_cmp_names[SCN_NR_CMPS];
#endif
