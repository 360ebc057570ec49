/*
 * trace_rec.c - the mutex fast paths' trace records, restartable
 * (arch.h, "Restartable trace records"; the ring protocol is
 * kernel/trace/ring.h's: reserve, write, publish).
 *
 * A record here does not mask interrupts.  Instead, from its first
 * instruction up to and including the store that publishes it, it
 * writes no register the caller passed (p in a0, m in a1) and no memory
 * but this CPU's ring slot and reserve.  An interrupt that lands there
 * finds the PC in trace_rseq_table and moves it back to the first
 * instruction (trace_irq_entry(), before it records or switches): the
 * record runs again, whole, on whatever CPU the task is then on (tp is
 * read again), in the slot after the interrupt's own records.  What the
 * first try wrote is either overwritten or past the head, where no
 * reader looks.  The trap entry restores every register the record
 * uses (a2-a6 are caller-saved: the trap frame keeps them).
 *
 * Naked functions with "i" operands only: the offsets come from the C
 * structures (and the compiler adds no code of its own).
 */
#include "trace_record.h"
#include "mutex.h"

/*
 * Nothing while trace_enabled is false; else one record {ts, hdr,
 * tid[0] = p's tid, tid[1] = none, mname = m->trace_name}.  A name that is not in the image goes to @slow (C,
 * masks interrupts) with @how in a2 and no second task in a3.
 * The fences are kernel/trace/ring.h's: smp_wmb after the reserve, a
 * release store (fence rw,w; sd) for the head.
 */
#define MUTEX_REC(fn, hdrval, slow)					\
__attribute__((naked, noinline, noclone, used,				\
	       section(".text.trace_rseq")))				\
void fn(struct task *p __unused, struct mutex *m __unused)	\
{									\
	__asm__ __volatile__(						\
	"1:	auipc	a2, %%pcrel_hi(trace_enabled)\n"		\
	"	lbu	a2, %%pcrel_lo(1b)(a2)\n"			\
	"	beqz	a2, 2f\n"					\
	"	ld	a5, %[tname](a1)\n"				\
	"	beqz	a5, 3f\n"					\
	"	ld	a2, %[trace](tp)\n"				\
	"	ld	a3, %[head](a2)\n"				\
	"	ld	a4, %[ring](a2)\n"				\
	"	addi	a6, a3, 1\n"					\
	"	sd	a6, %[reserve](a2)\n"				\
	"	fence	w, w\n"						\
	"	slli	a3, a3, 64 - %[shift]\n"			\
	"	srli	a3, a3, 64 - %[shift] - 5\n"			\
	"	add	a4, a4, a3\n"					\
	"	rdtime	a3\n"						\
	"	sd	a3, 0(a4)\n"					\
	"	li	a3, %[hdr]\n"					\
	"	sw	a3, %[rhdr](a4)\n"				\
	"	lw	a3, %[tid](a0)\n"				\
	"	sw	a3, %[rtid](a4)\n"				\
	"	li	a3, -1\n"					\
	"	sw	a3, %[rtid]+4(a4)\n"				\
	"	sd	a5, %[rname](a4)\n"				\
	"	fence	rw, w\n"					\
	"	sd	a6, %[head](a2)\n"		/* publish */	\
	"2:	ret\n"							\
	"3:	li	a2, 0\n"					\
	"	li	a3, 0\n"					\
	"	tail	" #slow "\n"					\
	TRACE_RSEQ_ENTRY						\
	: : TRACE_REC_ASM_OPERANDS(hdrval));				\
}

TRACE_MUTEX_RECS(MUTEX_REC)
