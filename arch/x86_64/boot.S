/*
 * boot.S - multiboot headers and the 32-bit entry of the boot CPU.
 *
 * GRUB (multiboot2) and QEMU -kernel (multiboot1) both jump to _start in
 * 32-bit protected mode, paging off, with the magic in eax and the info
 * pointer in ebx.  We check the magic, clear .bss, identity map the first
 * 4 GiB with 2 MiB pages (enough for the kernel, the multiboot info, ACPI
 * tables and the local APIC), enable PAE + long mode + NX + paging, load a
 * 64-bit GDT and call x86_early_main(magic, info) on the boot stack.
 * arch_mmu_init later replaces these tables with exact ones; the APs use
 * them for the instant between their trampoline and the kernel tables.
 */
	.cfi_sections .debug_frame	/* as the C code's (gdb) */

#define MB1_MAGIC 0x1badb002
#define MB1_FLAGS 0x00000003		/* page-align modules, memory info */
#define MB1_BOOT_MAGIC 0x2badb002
#define MB2_MAGIC 0xe85250d6
#define MB2_BOOT_MAGIC 0x36d76289

#define COM1 0x3f8
#define BOOT_STACK_SIZE 16384

	.section .multiboot, "a"
	.balign 4
mb1_header:
	.long MB1_MAGIC
	.long MB1_FLAGS
	.long -(MB1_MAGIC + MB1_FLAGS)

	.balign 8
mb2_header:
	.long MB2_MAGIC
	.long 0				/* architecture: i386 protected mode */
	.long mb2_header_end - mb2_header
	.long -(MB2_MAGIC + (mb2_header_end - mb2_header))
	/* module alignment tag: page-align modules */
	.word 6, 0
	.long 8
	/* framebuffer tag, optional (flag 1): ask GRUB for a linear
	 * framebuffer, 1024x768x32 if it can, so that a PC without a COM
	 * port shows the console (drivers/fbcon.c).  Optional: without
	 * video (QEMU -nographic still has one; a headless board may not)
	 * GRUB boots us anyway and gives no framebuffer tag.  Under UEFI
	 * this is the only way to a screen: there is no VGA text mode. */
	.word 5, 1
	.long 20
	.long 1024, 768, 32
	.long 0				/* pad the 20-byte tag to 8 */
	/* end tag */
	.word 0, 0
	.long 8
mb2_header_end:

	.section .text.boot, "ax"
	.code32
	.globl _start
_start:
	cli
	cld
	mov	%eax, %edi		/* magic: first argument later */
	mov	%ebx, %esi		/* info: second argument */
	cmp	$MB2_BOOT_MAGIC, %eax
	je	1f
	cmp	$MB1_BOOT_MAGIC, %eax
	je	1f
	mov	$msg_magic, %ebx
	jmp	boot_fail32
1:
	/* Long mode present?  (cpuid 0x80000001 edx bit 29) */
	mov	$0x80000000, %eax
	cpuid
	cmp	$0x80000001, %eax
	jb	no_lm
	mov	$0x80000001, %eax
	cpuid
	test	$(1 << 29), %edx
	jz	no_lm
	mov	%edx, %ebp		/* bit 20: NX */

	/* Clear .bss; the loaders zero it too, but do not rely on it.  No
	 * stack yet (multiboot leaves esp undefined): keep magic in ebx. */
	mov	%edi, %ebx
	mov	$__bss_start, %edi
	mov	$__bss_end, %ecx
	sub	%edi, %ecx
	shr	$2, %ecx
	xor	%eax, %eax
	rep stosl
	mov	%ebx, %edi

	/* PML4[0] -> PDPT, PDPT[0..3] -> four page directories of 2 MiB
	 * pages covering 0..4 GiB, all present + writable. */
	movl	$(early_pdpt + 0x3), early_pml4
	mov	$early_pd, %eax
	or	$0x3, %eax
	xor	%ecx, %ecx
2:	mov	%eax, early_pdpt(, %ecx, 8)
	add	$0x1000, %eax
	inc	%ecx
	cmp	$4, %ecx
	jb	2b
	xor	%ecx, %ecx		/* entry index 0..2047 */
3:	mov	%ecx, %eax
	shl	$21, %eax
	or	$0x83, %eax		/* present, writable, 2 MiB page */
	mov	%eax, early_pd(, %ecx, 8)	/* high half stays 0 */
	inc	%ecx
	cmp	$2048, %ecx
	jb	3b

	mov	%cr4, %eax
	or	$(1 << 5), %eax		/* PAE */
	mov	%eax, %cr4
	mov	$early_pml4, %eax
	mov	%eax, %cr3
	mov	$0xc0000080, %ecx	/* EFER */
	rdmsr
	or	$(1 << 8), %eax		/* LME */
	test	$(1 << 20), %ebp
	jz	4f
	or	$(1 << 11), %eax	/* NXE, if the CPU has NX */
4:	wrmsr
	mov	%cr0, %eax
	or	$0x80010001, %eax	/* PG | WP | PE */
	mov	%eax, %cr0

	lgdt	boot_gdt_ptr
	ljmp	$0x08, $long_mode

no_lm:
	mov	$msg_lm, %ebx
	/* fall through */

/* Print the NUL-terminated string at ebx on COM1 and stop.  No console
 * exists yet; QEMU's UART needs no setup, a real one might print junk. */
boot_fail32:
	mov	$COM1, %dx
1:	movb	(%ebx), %al
	test	%al, %al
	jz	2f
	outb	%al, %dx
	inc	%ebx
	jmp	1b
2:	cli
	hlt
	jmp	2b

	.code64
/* The boot CPU's first 64-bit code: rip undefined in its CFI tells gdb
 * that the boot stack starts here (rbp = 0 tells the kernel's own
 * backtrace). */
long_mode:
	.cfi_startproc simple
	.cfi_def_cfa rsp, 0
	.cfi_undefined rip
	mov	$0x10, %ax
	mov	%ax, %ds
	mov	%ax, %es
	mov	%ax, %ss
	xor	%eax, %eax
	mov	%ax, %fs
	mov	%ax, %gs
	mov	$boot_stack_top, %rsp
	xor	%ebp, %ebp		/* end of the frame-pointer chain */
	mov	%edi, %edi		/* zero-extend magic and info */
	mov	%esi, %esi
	call	x86_early_main
1:	cli
	hlt
	jmp	1b
	.cfi_endproc

	.section .rodata
msg_magic:
	.asciz "kestrel: not loaded by a multiboot loader\r\n"
msg_lm:
	.asciz "kestrel: this CPU has no 64-bit long mode\r\n"

/* Boot GDT: null, 64-bit code (0x08), data (0x10).  Used by the boot CPU
 * until gdt.c loads its per-CPU GDT, and by the AP trampoline. */
	.balign 16
	.globl boot_gdt
boot_gdt:
	.quad 0
	.quad 0x00af9a000000ffff
	.quad 0x00cf92000000ffff
boot_gdt_end:
	.globl boot_gdt_ptr
boot_gdt_ptr:
	.word boot_gdt_end - boot_gdt - 1
	.quad boot_gdt

	.section .bss
	.balign 4096
	.globl early_pml4
early_pml4:
	.skip 4096
early_pdpt:
	.skip 4096
early_pd:
	.skip 4 * 4096
	.globl boot_stack_top
boot_stack:
	.skip BOOT_STACK_SIZE
boot_stack_top:

	.section .note.GNU-stack, "", @progbits
