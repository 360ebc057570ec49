/*
 * entry.S - trap entry/exit, context switch, and the callee-saved check.
 *
 * All traps come from S-mode (there is no user mode), so tp always holds
 * this CPU's struct cpu and is neither saved to nor restored from a frame
 * that may be resumed on another CPU.  The entry's two scratch words and
 * this CPU's copy of rv_stack_map_gen (see "stale TLB" below) are in
 * struct arch_cpu, at tp + RV_CPU_* (arch_impl.h).  sscratch permanently
 * holds this CPU's emergency stack top.
 *
 * Stack overflow: a task that runs off the bottom of its stack faults on
 * the guard page; pushing a trap frame there would fault again, forever.
 * So before touching the stack the entry checks whether sp minus a frame
 * still lies in the mapped part of a stack slot (stack_layout.h):
 *   offset in slot = (sp - FRAME) & (STACK_SLOT_SIZE - 1)
 *   fine iff STACK_GUARD_SIZE <= offset < STACK_TOP_OFFSET
 * The mapped part is 16 KiB above the guard, so that is one bit: bit 14
 * of (sp - FRAME - GUARD) is clear (bits 15 and up are the slot's number,
 * below 14 the place in the 16 KiB).  A set bit is an overflow only in
 * the thread stack area (the boot and emergency stacks are elsewhere);
 * then the frame goes on the emergency stack instead.
 */
#include "rv.h"
#include "arch_impl.h"
#include "stack_layout.h"

#if STACK_SLOT_SIZE != (1 << 15) || STACK_TOP_OFFSET - STACK_GUARD_SIZE != (1 << 14)
#error "entry.S hard-codes the stack slot layout: update the bit test below"
#endif
#if STACK_GUARD_SIZE + TRAP_FRAME_SIZE - 4096 > 2048 || \
    STACK_GUARD_SIZE + TRAP_FRAME_SIZE < 4096
#error "entry.S subtracts GUARD + FRAME in three addi: update them"
#endif

/* Trap-frame slot of register xN. */
#define X(n) ((n) - 1) * 8

/*
 * CFI for gdb (in .debug_frame like the C code's: the linker script
 * drops .eh_frame).  At the call of rv_trap() the entry is a signal
 * frame whose return column is 64 (the psABI's alternate frame return
 * column), read from the frame's sepc: gdb shows "<signal handler
 * called>" and goes on down the interrupted code's stack with its ra,
 * sp and s0 from the frame.  rv_task_start ends the unwind (ra
 * undefined), as the boot and secondary entries in head.S do.
 */
	.cfi_sections .debug_frame
#define RV_CFA_SLOT(off) ((off) - TRAP_FRAME_SIZE)

	.text
	.globl rv_trap_entry
	.balign 4
rv_trap_entry:
	.cfi_startproc simple
	.cfi_signal_frame
	.cfi_return_column 64
	.cfi_def_cfa sp, 0
	.cfi_undefined 64		/* until the frame is written */
	sd	t0, RV_CPU_ENTRY_T0(tp)
	sd	t1, RV_CPU_ENTRY_T1(tp)
	/*
	 * Stale TLB: without Svvptc a hart may keep using an invalid
	 * translation for a stack page another CPU has since mapped
	 * (arch_map_page), and the next access faults.  arch_map_page bumps
	 * rv_stack_map_gen instead of interrupting every hart: if it moved
	 * since this hart last looked, fence and retry the trapping
	 * instruction (an interrupt simply traps again).  A real fault
	 * comes back with the generation unchanged.  Checked before the
	 * frame is pushed, so the push itself cannot hit a stale entry:
	 * a stack page mapped after our last fence has a newer generation.
	 */
	ld	t0, rv_stack_map_gen	/* gp-relative once relaxed */
	ld	t1, RV_CPU_MAP_GEN(tp)
	bne	t0, t1, .Lstale_tlb
	addi	t0, sp, -2048
	addi	t0, t0, -2048
	addi	t0, t0, -(STACK_GUARD_SIZE + TRAP_FRAME_SIZE - 4096)
	slli	t0, t0, 63 - 14
	bltz	t0, .Lcheck_area	/* outside [GUARD, TOP) of a slot */
.Lgood_stack:
	addi	sp, sp, -TRAP_FRAME_SIZE
	ld	t1, RV_CPU_ENTRY_T1(tp)
	ld	t0, RV_CPU_ENTRY_T0(tp)
	sd	t0, X(5)(sp)
	addi	t0, sp, TRAP_FRAME_SIZE
	sd	t0, X(2)(sp)
.Lsave:
	sd	x1, X(1)(sp)
	csrr	t0, scause
	sd	t0, TF_SCAUSE(sp)
	bltz	t0, 1f			/* the interrupt bit is the sign bit */
	/*
	 * An exception: the frame gets every register, and stval, for its
	 * register dump (trap.c).  An interrupt's gets only what a C call
	 * may clobber (ra, t0-t6, a0-a7), the CSRs, and s0 for the
	 * backtrace (arch_irq_callchain, the profiler); its other slots are
	 * not written.  rv_trap() and everything it calls are C, which
	 * keeps s0-s11 (and gp, tp) as the ABI says, also when irq_exit()
	 * switches to another task: __schedule() saves them in its own
	 * frame until this task runs again.  So the way out restores only
	 * the clobbered ones, for both.  (context suite,
	 * callee_saved_across_preemption, checks the s-registers survive.)
	 */
	.irp n, 3,4,9,18,19,20,21,22,23,24,25,26,27
	sd	x\n, X(\n)(sp)
	.endr
	csrr	t0, stval
	sd	t0, TF_STVAL(sp)
1:	.irp n, 6,7,8,10,11,12,13,14,15,16,17,28,29,30,31
	sd	x\n, X(\n)(sp)
	.endr
	csrr	t0, sepc
	sd	t0, TF_SEPC(sp)
	csrr	t0, sstatus
	sd	t0, TF_SSTATUS(sp)

	mv	a0, sp
	.cfi_def_cfa sp, TRAP_FRAME_SIZE
	.cfi_offset 64, RV_CFA_SLOT(TF_SEPC)
	.cfi_offset 1, RV_CFA_SLOT(X(1))
	.cfi_offset 2, RV_CFA_SLOT(X(2))
	.cfi_offset 8, RV_CFA_SLOT(X(8))
	call	rv_trap			/* may switch tasks via irq_exit() */

	/* Interrupts are off again here; resume the interrupted context.
	 * Not tp (x4): this task may resume on another CPU than it left. */
	ld	t0, TF_SEPC(sp)
	csrw	sepc, t0
	ld	t0, TF_SSTATUS(sp)
	csrw	sstatus, t0
	ld	x1, X(1)(sp)
	.irp n, 5,6,7,10,11,12,13,14,15,16,17,28,29,30,31
	ld	x\n, X(\n)(sp)
	.endr
	ld	sp, X(2)(sp)
	sret
	.cfi_endproc

.Lcheck_area:
	li	t0, ARCH_STACK_AREA_BASE
	sub	t0, sp, t0
	srli	t0, t0, ARCH_STACK_AREA_SHIFT
	bnez	t0, .Lgood_stack	/* not a thread stack (boot stack) */
	/* Overflow: the frame goes on the emergency stack. */
	csrrw	sp, sscratch, sp	/* sp = emergency top, sscratch = old sp */
	addi	sp, sp, -TRAP_FRAME_SIZE
	ld	t0, RV_CPU_ENTRY_T0(tp)
	sd	t0, X(5)(sp)
	csrr	t0, sscratch
	sd	t0, X(2)(sp)		/* the overflowed sp, for the report */
	addi	t0, sp, TRAP_FRAME_SIZE
	csrw	sscratch, t0
	ld	t1, RV_CPU_ENTRY_T1(tp)
	j	.Lsave

.Lstale_tlb:
	sd	t0, RV_CPU_MAP_GEN(tp)	/* seen this generation */
	fence	r, r			/* acquire: PTE stores before the bump */
	sfence.vma
	ld	t1, RV_CPU_ENTRY_T1(tp)
	ld	t0, RV_CPU_ENTRY_T0(tp)
	sret

/*
 * rv_spin_contended: spin_lock_raw()'s wait for a held lock (arch_impl.h,
 * arch_spin_acquire), entered with jal t0 and a0 = the lock.
 * __spin_lock_contended(a0, tp) returns with the lock taken; every
 * register a C call may clobber is kept, but t0, so that the inline swap
 * looks like no call to the compiler.  s0 is the caller's: a backtrace
 * from the wait (a recursive lock's panic) shows the locking function.
 */
	.globl rv_spin_contended
	.balign 4
rv_spin_contended:
	.cfi_startproc
	.cfi_return_column 5		/* entered with jal t0: */
	.cfi_register 5, 5		/* the return address is in t0 */
	addi	sp, sp, -128
	.cfi_def_cfa_offset 128
	sd	ra, 0(sp)
	.cfi_offset 1, -128
	sd	t0, 8(sp)
	.cfi_offset 5, -120
	sd	t1, 16(sp)
	sd	t2, 24(sp)
	sd	a0, 32(sp)
	sd	a1, 40(sp)
	sd	a2, 48(sp)
	sd	a3, 56(sp)
	sd	a4, 64(sp)
	sd	a5, 72(sp)
	sd	a6, 80(sp)
	sd	a7, 88(sp)
	sd	t3, 96(sp)
	sd	t4, 104(sp)
	sd	t5, 112(sp)
	sd	t6, 120(sp)
	mv	a1, tp			/* this CPU */
	call	__spin_lock_contended
	ld	ra, 0(sp)
	ld	t0, 8(sp)
	ld	t1, 16(sp)
	ld	t2, 24(sp)
	ld	a0, 32(sp)
	ld	a1, 40(sp)
	ld	a2, 48(sp)
	ld	a3, 56(sp)
	ld	a4, 64(sp)
	ld	a5, 72(sp)
	ld	a6, 80(sp)
	ld	a7, 88(sp)
	ld	t3, 96(sp)
	ld	t4, 104(sp)
	ld	t5, 112(sp)
	ld	t6, 120(sp)
	addi	sp, sp, 128
	.cfi_def_cfa_offset 0
	.cfi_restore 1
	.cfi_register 5, 5
	jr	t0
	.cfi_endproc

/* First code of a new task (arch_context_init: sp points at entry and
 * arg; the switch is inline asm in arch_impl.h).  s0 = 0 (loaded by the
 * switch) ends the kernel's own backtrace here, the undefined ra gdb's:
 * the entry's return address is the unimp below, in this CFI. */
	.globl rv_task_start
	.balign 4
rv_task_start:
	.cfi_startproc
	.cfi_undefined ra
	ld	t0, 0(sp)
	ld	a0, 8(sp)
	addi	sp, sp, 16
	jalr	t0
	unimp				/* entry must not return */
	.cfi_endproc

/*
 * int arch_check_callee_saved(void (*fn)(void *) (a0), void *arg (a1))
 * Load pattern n+1 into s<n>, call fn(arg), return the 1-based index of
 * the first s register that changed, or 0.
 */
#define PATTERN(n) (0xc0ffee5a00000000 + (n) + 1)
	.globl arch_check_callee_saved
	.balign 4
arch_check_callee_saved:
	.cfi_startproc
	addi	sp, sp, -112
	.cfi_def_cfa_offset 112
	sd	ra, 104(sp)
	.cfi_offset 1, -8
	.irp n, 0,1,2,3,4,5,6,7,8,9,10,11
	sd	s\n, (8 * \n)(sp)
	.endr
	.cfi_offset 8, -112		/* s0: the caller's frame */
	.irp n, 0,1,2,3,4,5,6,7,8,9,10,11
	li	s\n, PATTERN(\n)
	.endr
	mv	t0, a0
	mv	a0, a1
	jalr	t0
	.irp n, 0,1,2,3,4,5,6,7,8,9,10,11
	li	a0, \n + 1
	li	t0, PATTERN(\n)
	bne	s\n, t0, 1f
	.endr
	li	a0, 0
1:	.irp n, 0,1,2,3,4,5,6,7,8,9,10,11
	ld	s\n, (8 * \n)(sp)
	.endr
	ld	ra, 104(sp)
	addi	sp, sp, 112
	.cfi_def_cfa_offset 0
	.cfi_restore 1
	.cfi_restore 8
	ret
	.cfi_endproc

/*
 * bool rv_probe_stimecmp(void) - can S-mode use stimecmp?  The DT's ISA
 * string may list Sstc while firmware older than OpenSBI 1.1 never set
 * menvcfg.STCE, and then the access is an illegal instruction.  Read it
 * once with stvec pointing just past the read; no sret is needed as the
 * trap only changes sepc/scause/sstatus.SPP/SPIE.  Interrupts off.
 */
	.globl rv_probe_stimecmp
	.balign 4
rv_probe_stimecmp:
	csrr	t1, stvec
	lla	t0, 1f
	csrw	stvec, t0
	li	a0, 1
	csrr	t0, stimecmp
	j	2f
	.balign 4
1:	li	a0, 0
2:	csrw	stvec, t1
	ret
