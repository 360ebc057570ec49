/*
 * entry.S - interrupt/exception entry stubs and the common trap path.
 *
 * One 16-byte stub per vector (so the IDT entry of vector v is
 * x86_trap_stubs + 16 * v) pushes a zero error code when the CPU pushes
 * none, then the vector, and jumps to trap_common, which saves every
 * general register as a struct trap_frame (x86.h) and calls x86_trap().
 *
 * Interrupts run on the interrupted task's stack (no privilege change, no
 * IST except NMI, #DF and #PF), so when irq_exit() switches to another
 * task this frame simply waits on the old task's stack until that task
 * is switched back in and returns here to iretq.
 */
#define HAS_ERROR_CODE(v) ((v) == 8 || ((v) >= 10 && (v) <= 14) || \
			   (v) == 17 || (v) == 21 || (v) == 29 || (v) == 30)

	.text
	.balign 16
	.globl x86_trap_stubs
x86_trap_stubs:
	vector = 0
	.rept 256
	.balign 16
	.if !HAS_ERROR_CODE(vector)
	pushq	$0
	.endif
	pushq	$vector
	jmp	trap_common
	vector = vector + 1
	.endr

trap_common:
	push	%rax
	push	%rbx
	push	%rcx
	push	%rdx
	push	%rsi
	push	%rdi
	push	%rbp
	push	%r8
	push	%r9
	push	%r10
	push	%r11
	push	%r12
	push	%r13
	push	%r14
	push	%r15
	/*
	 * A fake call frame {interrupted rbp, interrupted rip} so that a
	 * backtrace taken inside the handler shows where the trap hit and then
	 * continues down the interrupted code's own frame chain.
	 */
	pushq	17*8(%rsp)		/* frame->rip */
	push	%rbp
	mov	%rsp, %rbp
	lea	16(%rsp), %rdi		/* struct trap_frame * */
	cld
	call	x86_trap
	add	$16, %rsp
	pop	%r15
	pop	%r14
	pop	%r13
	pop	%r12
	pop	%r11
	pop	%r10
	pop	%r9
	pop	%r8
	pop	%rbp
	pop	%rdi
	pop	%rsi
	pop	%rdx
	pop	%rcx
	pop	%rbx
	pop	%rax
	add	$16, %rsp		/* vector, error code */
	iretq

	.section .note.GNU-stack, "", @progbits
