/*
 * entry.S - interrupt/exception entry stubs and the common trap path.
 *
 * One 16-byte stub per vector (so the IDT entry of vector v is
 * x86_trap_stubs + 16 * v) pushes a zero error code when the CPU pushes
 * none, then the vector, and jumps to trap_common (exceptions, 0-31),
 * which saves every general register as a struct trap_frame (x86.h),
 * or to irq_common (interrupts), which saves only those a C call may
 * clobber, and rbp (the profiler's and the backtrace's frame), in the
 * same frame, as riscv64's entry does: x86_trap() and what it calls
 * keep rbx and r12-r15, also across irq_exit()'s switch (__schedule()
 * saves them in its own frame).  Both call x86_trap().
 *
 * Interrupts run on the interrupted task's stack (no privilege change, no
 * IST except NMI, #DF and #PF), so when irq_exit() switches to another
 * task this frame simply waits on the old task's stack until that task
 * is switched back in and returns here to iretq.
 *
 * CFI (gdb's unwinder; in .debug_frame like the C code's, the linker
 * script drops .eh_frame): trap_common and irq_common describe the frame
 * the CPU pushed as a signal frame, with the interrupted rip, rsp and
 * rbp where this code saved them, so that a backtrace inside a handler
 * shows "<signal handler called>" and goes on down the interrupted
 * task's stack to its own start (x86_thread_start, or the boot entry).
 * At their entry rsp points at the vector, then the error code, then
 * the CPU's rip, cs, rflags, rsp, ss: the CFA (the slot above ss) is
 * rsp + 56 there.
 */
	.cfi_sections .debug_frame

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
	.if vector < 32
	jmp	trap_common
	.else
	jmp	irq_common
	.endif
	vector = vector + 1
	.endr

/*
 * x86_trap(the frame at rsp), under a fake call frame {interrupted rbp,
 * interrupted rip} so that a backtrace taken inside the handler shows
 * where the trap hit and then continues down the interrupted code's own
 * frame chain.
 */
.macro CALL_X86_TRAP
	pushq	17*8(%rsp)		/* frame->rip */
	.cfi_adjust_cfa_offset 8
	push	%rbp
	.cfi_adjust_cfa_offset 8
	mov	%rsp, %rbp
	lea	16(%rsp), %rdi		/* struct trap_frame * */
	cld
	call	x86_trap
	add	$16, %rsp
	.cfi_adjust_cfa_offset -16
.endm

/* The CPU's frame, as CFI: see the top of the file. */
.macro TRAP_CFI_START
	.cfi_startproc simple
	.cfi_signal_frame
	.cfi_def_cfa rsp, 56
	.cfi_offset rip, -40
	.cfi_offset rsp, -16
.endm

.macro PUSH_CFI reg
	push	\reg
	.cfi_adjust_cfa_offset 8
.endm

.macro POP_CFI reg
	pop	\reg
	.cfi_adjust_cfa_offset -8
.endm

trap_common:
	TRAP_CFI_START
	PUSH_CFI	%rax
	PUSH_CFI	%rbx
	PUSH_CFI	%rcx
	PUSH_CFI	%rdx
	PUSH_CFI	%rsi
	PUSH_CFI	%rdi
	PUSH_CFI	%rbp
	.cfi_rel_offset rbp, 0
	PUSH_CFI	%r8
	PUSH_CFI	%r9
	PUSH_CFI	%r10
	PUSH_CFI	%r11
	PUSH_CFI	%r12
	PUSH_CFI	%r13
	PUSH_CFI	%r14
	PUSH_CFI	%r15
	CALL_X86_TRAP
	POP_CFI	%r15
	POP_CFI	%r14
	POP_CFI	%r13
	POP_CFI	%r12
	POP_CFI	%r11
	POP_CFI	%r10
	POP_CFI	%r9
	POP_CFI	%r8
	POP_CFI	%rbp
	.cfi_same_value rbp
	POP_CFI	%rdi
	POP_CFI	%rsi
	POP_CFI	%rdx
	POP_CFI	%rcx
	POP_CFI	%rbx
	POP_CFI	%rax
	add	$16, %rsp		/* vector, error code */
	.cfi_adjust_cfa_offset -16
	iretq
	.cfi_endproc

/* struct trap_frame's slot of each register (x86.h), from the frame's
 * start; then vector, error code, and the CPU's rip at 17 * 8. */
#define TF_R11 (4 * 8)
#define TF_R10 (5 * 8)
#define TF_R9 (6 * 8)
#define TF_R8 (7 * 8)
#define TF_RBP (8 * 8)
#define TF_RDI (9 * 8)
#define TF_RSI (10 * 8)
#define TF_RDX (11 * 8)
#define TF_RCX (12 * 8)
#define TF_RAX (14 * 8)
#define TF_REGS (15 * 8)

irq_common:
	TRAP_CFI_START
	sub	$TF_REGS, %rsp		/* rbx, r12-r15: not written */
	.cfi_adjust_cfa_offset TF_REGS
	mov	%rax, TF_RAX(%rsp)
	mov	%rcx, TF_RCX(%rsp)
	mov	%rdx, TF_RDX(%rsp)
	mov	%rsi, TF_RSI(%rsp)
	mov	%rdi, TF_RDI(%rsp)
	mov	%rbp, TF_RBP(%rsp)
	.cfi_rel_offset rbp, TF_RBP
	mov	%r8, TF_R8(%rsp)
	mov	%r9, TF_R9(%rsp)
	mov	%r10, TF_R10(%rsp)
	mov	%r11, TF_R11(%rsp)
	CALL_X86_TRAP
	mov	TF_R11(%rsp), %r11
	mov	TF_R10(%rsp), %r10
	mov	TF_R9(%rsp), %r9
	mov	TF_R8(%rsp), %r8
	mov	TF_RBP(%rsp), %rbp
	.cfi_same_value rbp
	mov	TF_RDI(%rsp), %rdi
	mov	TF_RSI(%rsp), %rsi
	mov	TF_RDX(%rsp), %rdx
	mov	TF_RCX(%rsp), %rcx
	mov	TF_RAX(%rsp), %rax
	add	$TF_REGS + 16, %rsp	/* the frame, vector, error code */
	.cfi_adjust_cfa_offset -(TF_REGS + 16)
	iretq
	.cfi_endproc

	.section .note.GNU-stack, "", @progbits
