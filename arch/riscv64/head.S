/*
 * head.S - RISC-V kernel entry: the Image header, self-relocation, and the
 * boot and secondary hart entry points.
 *
 * The SBI firmware (OpenSBI, or U-Boot's booti on top of it) enters
 * _start in S-mode with the MMU off, a0 = this hart's id, a1 = the DTB.
 * It may have put us anywhere in RAM (RAM base differs between boards),
 * so before any C runs we fix up the absolute pointers stored in the
 * image (table made by mkimage.py).  C code itself is pc-relative
 * (-mcmodel=medany); only stored pointers need this.
 */
#include "rv.h"

	.cfi_sections .debug_frame	/* as the C code's (gdb) */
	.section .head.text, "ax"
	.option push
	.option norvc			/* header fields are fixed-size */
	.globl _start
_start:
	/* The RISC-V Image header (Linux Documentation/riscv/boot-image-header) */
	j	rv_boot_entry		/* code0 */
	.word	0			/* code1 */
	.dword	0x200000		/* text_offset from RAM base */
	.dword	__kernel_end - _start	/* image_size, including .bss */
	.dword	0			/* flags: little endian */
	.word	2			/* version 0.2 */
	.word	0			/* res1 */
	.dword	0			/* res2 */
	.ascii	"RISCV\0\0\0"		/* magic (deprecated) */
	.ascii	"RSC\x05"		/* magic2 */
	.word	0			/* res3 (PE header offset) */
	.option pop

	.text
rv_boot_entry:
	csrw	sie, zero
	csrci	sstatus, 2		/* SIE off until the kernel is ready */
	/*
	 * gp: the linker turns an access to a global within 2 KiB of
	 * __global_pointer$ (the small data, riscv64.ld) into one gp-relative
	 * instruction instead of two.  Set pc-relatively, so right wherever
	 * the image runs; never changed after (no user mode), on every hart.
	 * norelax: this lla must not itself become "mv gp, gp".
	 */
	.option	push
	.option	norelax
	lla	gp, __global_pointer$
	.option	pop
	/*
	 * Only the first hart to get here boots.  OpenSBI 1.1's hart_start
	 * marks the hart START_PENDING before it stores that hart's start
	 * address, so a hart already polling its state can run off to the
	 * address the boot hart was given: here.  Such a hart must not
	 * relocate or clear .bss again; it waits for the arguments
	 * arch_cpu_start() published for it (setup.c) and takes the
	 * secondary path.
	 */
	lla	t0, rv_boot_claimed
	li	t1, 1
	amoswap.w.aqrl t1, t1, (t0)
	bnez	t1, rv_late_hart
	mv	s0, a0			/* hart id */
	mv	s1, a1			/* DTB */

	/*
	 * Relocate: mkimage.py left a table of the image's absolute pointers
	 * at __bss_start: "KRLC", count, then 32-bit offsets from _start.
	 * Add delta = run address - link address to each.  (Loaded from the
	 * ELF at its link address there is no table and nothing to do.)
	 */
	lla	t0, _start
	li	t1, KERNEL_LINK_BASE
	sub	t2, t0, t1
	lla	t3, __bss_start
	lwu	t4, 0(t3)
	li	t5, 0x434c524b		/* "KRLC" */
	bne	t4, t5, 3f
	lwu	t4, 4(t3)		/* count */
	addi	t3, t3, 8
1:	beqz	t4, 2f
	lwu	t5, 0(t3)
	add	t5, t5, t0		/* where the pointer is now */
	ld	t6, 0(t5)
	add	t6, t6, t2
	sd	t6, 0(t5)
	addi	t3, t3, 4
	addi	t4, t4, -1
	j	1b
2:	fence.i
3:
	/* Clear .bss (it also holds the boot stack: nothing is on it yet). */
	lla	t0, __bss_start
	lla	t1, __bss_end
4:	bgeu	t0, t1, 5f
	sd	zero, 0(t0)
	addi	t0, t0, 8
	j	4b
5:
	/* The boot stack starts here: ra undefined ends gdb's unwind. */
	.cfi_startproc simple
	.cfi_def_cfa sp, 0
	.cfi_undefined ra
	lla	sp, rv_boot_stack_top
	mv	a0, s0
	mv	a1, s1
	li	fp, 0			/* end of the backtrace chain */
	call	rv_boot_main		/* setup.c, never returns */
6:	wfi
	j	6b
	.cfi_endproc

/*
 * Secondary harts start here from SBI HSM hart_start, MMU off,
 * a0 = hart id, a1 = &struct rv_hart_start (rv.h): load the kernel page
 * table, this CPU's pointer into tp and the idle stack, then C.
 */
	.globl rv_secondary_entry
	.balign 4
rv_late_hart:				/* see rv_boot_entry; a0 = hart id */
	lla	t0, rv_hart_start_pending
1:	fence	rw, rw
	ld	t1, 0(t0)		/* hart id being started */
	bne	t1, a0, 1b
	fence	rw, rw
	ld	a1, 8(t0)		/* its struct rv_hart_start */
rv_secondary_entry:
	csrw	sie, zero
	csrci	sstatus, 2
	.option	push
	.option	norelax
	lla	gp, __global_pointer$	/* as rv_boot_entry */
	.option	pop
	ld	t0, 0(a1)		/* satp */
	sfence.vma
	csrw	satp, t0
	sfence.vma			/* identity map: the next fetch is fine */
	ld	tp, 8(a1)		/* struct cpu * */
	ld	sp, 16(a1)		/* idle stack top */
	.cfi_startproc simple		/* its stack starts here (gdb) */
	.cfi_def_cfa sp, 0
	.cfi_undefined ra
	li	fp, 0
	mv	a0, tp
	call	rv_secondary_main	/* setup.c, never returns */
7:	wfi
	j	7b
	.cfi_endproc

	.data
	.balign 8
rv_boot_claimed:			/* in .data: .bss is cleared after */
	.word	0

	.bss
	.balign 16
rv_boot_stack:
	.space	16384
	.globl rv_boot_stack_top
rv_boot_stack_top:
