/*
 * switch.S - a new task's first instructions, and the test hook for the
 * context switch.  The switch itself is inline asm in arch_impl.h.
 *
 * CFI (for gdb, in .debug_frame like the C code's: the linker script
 * drops .eh_frame): x86_thread_start marks rip undefined, which tells
 * gdb's unwinder that a task's stack starts there.
 */
	.cfi_sections .debug_frame
	.text

/* First code of a new task (arch_context_init: rsp points at entry and
 * arg, 16 bytes below the 16-aligned stack top).  rbp = 0 ends the
 * kernel's own backtraces, the undefined rip gdb's. */
	.globl x86_thread_start
x86_thread_start:
	.cfi_startproc
	.cfi_undefined rip
	pop	%rax
	pop	%rdi
	xor	%ebp, %ebp
	call	*%rax
	ud2				/* entry must not return */
	.cfi_endproc

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
	.cfi_startproc
	push	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset rbp, 0
	push	%rbx
	push	%r12
	push	%r13
	push	%r14
	push	%r15
	sub	$8, %rsp		/* keep rsp 16-aligned at the call */
	.cfi_adjust_cfa_offset 48
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
	.cfi_adjust_cfa_offset -56
	.cfi_restore rbp
	ret
	.cfi_endproc

/*
 * x86_spin_contended: spin_lock_raw()'s wait for a held lock (arch_impl.h,
 * arch_spin_acquire), called with rdi = the lock, rsi = this CPU, as
 * __spin_lock_contended() takes them.  It returns with the lock taken;
 * every register is kept (the flags are declared clobbered), so that the
 * inline swap looks like no call to the compiler.  The stack is aligned
 * here: the asm's call site knows nothing of the ABI's alignment.
 */
	.globl	x86_spin_contended
x86_spin_contended:
	.cfi_startproc
	push	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset rbp, 0
	mov	%rsp, %rbp
	.cfi_def_cfa_register rbp
	push	%rax
	push	%rcx
	push	%rdx
	push	%rsi
	push	%rdi
	push	%r8
	push	%r9
	push	%r10
	push	%r11
	and	$-16, %rsp
	call	__spin_lock_contended
	lea	-72(%rbp), %rsp
	pop	%r11
	pop	%r10
	pop	%r9
	pop	%r8
	pop	%rdi
	pop	%rsi
	pop	%rdx
	pop	%rcx
	pop	%rax
	pop	%rbp
	.cfi_def_cfa rsp, 8
	.cfi_restore rbp
	ret
	.cfi_endproc

	.section .note.GNU-stack, "", @progbits
