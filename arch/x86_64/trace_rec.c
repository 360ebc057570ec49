/*
 * trace_rec.c - the mutex fast paths' trace records, restartable
 * (arch.h, "Restartable trace records"; the ring protocol is
 * kernel/trace/ring.h's: reserve, write, publish).
 *
 * A record here does not mask interrupts.  Instead, from its first
 * instruction up to and including the store that publishes it, it
 * writes no register the caller passed (p in %rdi, m in %rsi) and no
 * memory but this CPU's ring slot and reserve.  An interrupt that lands
 * there finds the PC in trace_rseq_table and moves it back to the first
 * instruction (trace_irq_entry(), before it records or switches): the
 * record runs again, whole, on whatever CPU the task is then on, in the
 * slot after the interrupt's own records.  What the first try wrote is
 * either overwritten or past the head, where no reader looks.
 *
 * Naked functions with "i" operands only: the offsets come from the C
 * structures (and the compiler adds no code of its own).
 */
#include "trace_record.h"
#include "mutex.h"

/*
 * Nothing while trace_enabled is false; else one record {ts, hdr,
 * tid[0] = p's tid, tid[1] = none, mname = m->trace_name}.  rdtsc writes %eax/%edx, so neither holds an argument.
 * A name that is not in the image goes to @slow (C, masks interrupts)
 * with @how in %edx and no second task in %rcx.
 */
#define MUTEX_REC(fn, hdrval, slow)					\
__attribute__((naked, noinline, noclone, used,				\
	       section(".text.trace_rseq")))				\
void fn(struct task *p __unused, struct mutex *m __unused)	\
{									\
	__asm__ __volatile__(						\
	"1:	cmpb	$0, trace_enabled(%%rip)\n"			\
	"	je	2f\n"						\
	"	mov	%c[tname](%%rsi), %%r8\n"			\
	"	test	%%r8, %%r8\n"					\
	"	jz	3f\n"						\
	"	mov	%%gs:%c[trace], %%r9\n"				\
	"	mov	%c[head](%%r9), %%r10\n"			\
	"	lea	1(%%r10), %%r11\n"				\
	"	mov	%%r11, %c[reserve](%%r9)\n"			\
	"	and	$%c[mask], %%r10d\n"				\
	"	shl	$5, %%r10\n"					\
	"	add	%c[ring](%%r9), %%r10\n"			\
	"	rdtsc\n"						\
	"	mov	%%eax, (%%r10)\n"				\
	"	mov	%%edx, 4(%%r10)\n"				\
	"	movl	$%c[hdr], %c[rhdr](%%r10)\n"			\
	"	mov	%c[tid](%%rdi), %%eax\n"			\
	"	mov	%%eax, %c[rtid](%%r10)\n"			\
	"	movl	$-1, %c[rtid]+4(%%r10)\n"			\
	"	mov	%%r8, %c[rname](%%r10)\n"			\
	"	mov	%%r11, %c[head](%%r9)\n"	/* publish */	\
	"2:	ret\n"							\
	"3:	xor	%%edx, %%edx\n"					\
	"	xor	%%ecx, %%ecx\n"					\
	"	jmp	" #slow "\n"					\
	TRACE_RSEQ_ENTRY						\
	: : TRACE_REC_ASM_OPERANDS(hdrval));				\
}

TRACE_MUTEX_RECS(MUTEX_REC)
