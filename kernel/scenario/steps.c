/*
 * steps.c - the names of the steps and of the comparisons (steps.h).
 */
#include "steps.h"

const char *const scn_op_names[SCN_NR_OPS] = {
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

const char *const scn_cmp_names[SCN_NR_CMPS] = {
	[SCN_CMP_EQ] = "eq", [SCN_CMP_LT] = "lt", [SCN_CMP_GT] = "gt",
	[SCN_CMP_LE] = "le", [SCN_CMP_GE] = "ge",
};
const char *const scn_cmp_ops[SCN_NR_CMPS] = {
	[SCN_CMP_EQ] = "=", [SCN_CMP_LT] = "<", [SCN_CMP_GT] = ">",
	[SCN_CMP_LE] = "<=", [SCN_CMP_GE] = ">=",
};

