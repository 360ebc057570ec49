/*
 * scn_host.c - what the scenario parser (kernel/scenario/lex.c, class.c,
 * parse.c, parse_steps.c, ww_parse.c, sem_parse.c, steps.c) needs from
 * the kernel, on the host: the heap, panic, strlcpy, and the run half's
 * step functions, which the table of steps (steps.c) names but a parse
 * never calls.  The parser itself is compiled unchanged from the kernel
 * sources; this file is all the host adds.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"
#include "../../kernel/scenario/steps.h"

void *kzalloc(size_t size)
{
	return calloc(1, size);
}

void kfree(void *p)
{
	free(p);
}

void __panic(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "panic at %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

size_t strlcpy(char *dst, const char *src, size_t size)
{
	size_t n = strlen(src);

	if (size) {
		size_t c = n < size - 1 ? n : size - 1;

		memcpy(dst, src, c);
		dst[c] = '\0';
	}
	return n;
}

/* The run half: never called by a parse. */
#define NOT_ON_HOST(fn)							\
	bool fn(struct scn_trun *tr, const struct scn_step *st)		\
	{								\
		(void)tr;						\
		(void)st;						\
		__panic(__FILE__, __LINE__, #fn " run on the host");	\
		return false;						\
	}
NOT_ON_HOST(scn_run_lock)
NOT_ON_HOST(scn_run_unlock)
NOT_ON_HOST(scn_run_trylock)
NOT_ON_HOST(scn_run_compute)
NOT_ON_HOST(scn_run_sleep)
NOT_ON_HOST(scn_run_yield)
NOT_ON_HOST(scn_run_set)
NOT_ON_HOST(scn_run_print)
NOT_ON_HOST(scn_run_mark)
NOT_ON_HOST(scn_run_wait)
NOT_ON_HOST(scn_run_wwlock)
NOT_ON_HOST(scn_run_wwunlock)
NOT_ON_HOST(scn_run_down)
NOT_ON_HOST(scn_run_up)
NOT_ON_HOST(scn_run_cwait)
NOT_ON_HOST(scn_run_signal)
NOT_ON_HOST(scn_run_broadcast)
NOT_ON_HOST(scn_run_repeat)
NOT_ON_HOST(scn_run_end_repeat)
NOT_ON_HOST(scn_run_spin)
NOT_ON_HOST(scn_check_class)
NOT_ON_HOST(scn_check_prio)
NOT_ON_HOST(scn_check_donor)
NOT_ON_HOST(scn_check_cpu)
NOT_ON_HOST(scn_check_happened)
NOT_ON_HOST(scn_check_elapsed)
NOT_ON_HOST(scn_check_backoffs)
NOT_ON_HOST(scn_check_order)
