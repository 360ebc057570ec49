/*
 * trampoline.S - first code of an application processor (AP).
 *
 * arch_cpu_start() copies [x86_trampoline_start, x86_trampoline_end) to
 * AP_TRAMPOLINE_PA (a reserved page below 1 MiB), fills the parameter
 * block at its end and sends INIT-SIPI-SIPI with vector
 * AP_TRAMPOLINE_PA >> 12.  The AP starts here in real mode with
 * CS = AP_TRAMPOLINE_PA >> 4, IP = 0, and goes 16 -> 32 -> 64 bit on the
 * boot page tables (early_pml4: they map this page executable, while the
 * kernel tables map it NX), then jumps into kernel text, where
 * x86_ap_entry64 switches to the kernel page tables and calls
 * x86_ap_main(cpu) on the stack it was given.
 *
 * The code is position dependent on AP_TRAMPOLINE_PA: every address is
 * written as AP_TRAMPOLINE_PA + (label - x86_trampoline_start).  It is
 * only ever copied, never run in place, hence .rodata.
 */
#define AP_TRAMPOLINE_PA 0x8000
#define TR(label) (AP_TRAMPOLINE_PA + ((label) - x86_trampoline_start))

	.section .rodata
	.balign 16
	.globl x86_trampoline_start
x86_trampoline_start:
	.code16
	cli
	cld
	mov	%cs, %ax
	mov	%ax, %ds
	lgdtl	%ds:(tr_gdt_ptr - x86_trampoline_start)
	mov	%cr0, %eax
	and	$0x9fffffff, %eax	/* INIT left CD|NW set: caches on */
	or	$1, %eax		/* PE */
	mov	%eax, %cr0
	ljmpl	$0x08, $TR(tr32)

	.code32
tr32:
	mov	$0x10, %ax
	mov	%ax, %ds
	mov	%ax, %es
	mov	%ax, %ss
	mov	%cr4, %eax
	or	$(1 << 5), %eax		/* PAE */
	mov	%eax, %cr4
	mov	TR(tr_boot_cr3), %eax
	mov	%eax, %cr3
	mov	$0xc0000080, %ecx	/* EFER |= LME (+ NXE) */
	rdmsr
	or	TR(tr_efer), %eax
	wrmsr
	mov	%cr0, %eax
	or	$0x80010000, %eax	/* PG | WP */
	mov	%eax, %cr0
	ljmp	$0x18, $TR(tr64)

	.code64
tr64:
	mov	$0x10, %ax
	mov	%ax, %ds
	mov	%ax, %es
	mov	%ax, %ss
	mov	TR(tr_stack_top), %rsp
	mov	TR(tr_cpu), %rdi
	mov	TR(tr_kernel_cr3), %rsi
	mov	TR(tr_entry), %rax
	jmp	*%rax

	.balign 8
tr_gdt:
	.quad 0
	.quad 0x00cf9a000000ffff	/* 0x08: 32-bit code */
	.quad 0x00cf92000000ffff	/* 0x10: data */
	.quad 0x00af9a000000ffff	/* 0x18: 64-bit code */
tr_gdt_ptr:
	.word tr_gdt_ptr - tr_gdt - 1
	.long TR(tr_gdt)

/* Parameter block: struct x86_trampoline_params in smp.c. */
	.balign 8
	.globl x86_trampoline_params
x86_trampoline_params:
tr_boot_cr3:	.long 0
tr_efer:	.long 0
tr_entry:	.quad x86_ap_entry64
tr_stack_top:	.quad 0
tr_cpu:		.quad 0
tr_kernel_cr3:	.quad 0
	.globl x86_trampoline_end
x86_trampoline_end:

/*
 * Kernel-text half: rsp = stack top, rdi = cpu, rsi = kernel CR3 (0
 * before arch_mmu_init).  The stack may be in the stack area, which only
 * the kernel tables map, so switch CR3 before the first push.
 */
	.cfi_sections .debug_frame
	.text
	.globl x86_ap_entry64
x86_ap_entry64:
	.cfi_startproc simple		/* the AP's stack starts here (gdb) */
	.cfi_def_cfa rsp, 0
	.cfi_undefined rip
	test	%rsi, %rsi
	jz	1f
	mov	%rsi, %cr3
1:	xor	%ebp, %ebp
	call	x86_ap_main
	ud2
	.cfi_endproc

	.section .note.GNU-stack, "", @progbits
