/*
 * switch.S - kernel thread context switch and its test hook.
 *
 * struct arch_context holds only rsp; the callee-saved registers live on
 * the task's stack (layout in arch_impl.h).  The whole voluntary switch is
 * 16 instructions.  No fence here: the generic finish_task_switch()
 * publishes prev->on_cpu = 0 with a release store after we return in
 * next, and every store of prev's registers precedes it in program order
 * (x86 is TSO anyway).
 */
	.text

/* void arch_context_switch(struct arch_context *prev (rdi),
 *                          struct arch_context *next (rsi)) */
	.globl arch_context_switch
arch_context_switch:
	push	%rbp
	push	%rbx
	push	%r12
	push	%r13
	push	%r14
	push	%r15
	mov	%rsp, (%rdi)
	mov	(%rsi), %rsp
	pop	%r15
	pop	%r14
	pop	%r13
	pop	%r12
	pop	%rbx
	pop	%rbp
	ret

/* First "return" of a new task (arch_context_init put entry in r12 and
 * arg in r13, rbp = 0 ends backtraces, rsp = stack_top is 16-aligned). */
	.globl x86_thread_start
x86_thread_start:
	mov	%r13, %rdi
	call	*%r12
	ud2				/* entry must not return */

/*
 * int arch_check_callee_saved(void (*fn)(void *) (rdi), void *arg (rsi))
 * Fill rbx rbp r12-r15 with patterns, call fn(arg), return the 1-based
 * index of the first register that changed (order rbx rbp r12 r13 r14 r15)
 * or 0.  rbp holds a pattern during the call, so our own registers are
 * restored through rsp.  The rbp pattern is odd so a backtrace taken
 * inside fn stops there.
 */
#define PAT_RBX 0x1111deadbeef0001
#define PAT_RBP 0x2222deadbeef0003
#define PAT_R12 0x3333deadbeef0005
#define PAT_R13 0x4444deadbeef0007
#define PAT_R14 0x5555deadbeef0009
#define PAT_R15 0x6666deadbeef000b

	.globl arch_check_callee_saved
arch_check_callee_saved:
	push	%rbp
	push	%rbx
	push	%r12
	push	%r13
	push	%r14
	push	%r15
	sub	$8, %rsp		/* keep rsp 16-aligned at the call */
	mov	%rdi, %rax
	mov	%rsi, %rdi
	movabs	$PAT_RBX, %rbx
	movabs	$PAT_RBP, %rbp
	movabs	$PAT_R12, %r12
	movabs	$PAT_R13, %r13
	movabs	$PAT_R14, %r14
	movabs	$PAT_R15, %r15
	call	*%rax
	mov	$1, %eax
	movabs	$PAT_RBX, %rcx
	cmp	%rcx, %rbx
	jne	1f
	inc	%eax
	movabs	$PAT_RBP, %rcx
	cmp	%rcx, %rbp
	jne	1f
	inc	%eax
	movabs	$PAT_R12, %rcx
	cmp	%rcx, %r12
	jne	1f
	inc	%eax
	movabs	$PAT_R13, %rcx
	cmp	%rcx, %r13
	jne	1f
	inc	%eax
	movabs	$PAT_R14, %rcx
	cmp	%rcx, %r14
	jne	1f
	inc	%eax
	movabs	$PAT_R15, %rcx
	cmp	%rcx, %r15
	jne	1f
	xor	%eax, %eax
1:	add	$8, %rsp
	pop	%r15
	pop	%r14
	pop	%r13
	pop	%r12
	pop	%rbx
	pop	%rbp
	ret

	.section .note.GNU-stack, "", @progbits
