# arch/riscv64/build.mk - RISC-V 64 settings for the top-level Makefile.
#
# The kernel is linked at 0x80200000 and relocates itself at boot (head.S),
# so the same Image runs at any RAM base: QEMU virt, VisionFive 2, D1...
# C code is pc-relative (medany, not PIC); only stored pointers need
# fixing.  riscv64-unknown-elf-ld cannot link -pie, so the link keeps its
# relocations (--emit-relocs) and mkimage.py turns the R_RISCV_64 ones into
# the table head.S applies (and rejects any absolute code relocation).

CROSS_COMPILE ?= riscv64-unknown-elf-

ARCH_CFLAGS := -march=rv64imac_zicsr_zifencei -mabi=lp64 -mcmodel=medany -fno-pie
ARCH_LDFLAGS := --emit-relocs

ARCH_SRCS := arch/riscv64/head.S arch/riscv64/entry.S arch/riscv64/setup.c \
	arch/riscv64/dt.c arch/riscv64/sbi.c arch/riscv64/trap.c \
	arch/riscv64/time.c arch/riscv64/mmu.c arch/riscv64/trace_rec.c \
	arch/riscv64/plic.c arch/riscv64/cores.c
# lib/fdt.c is generic and already in GEN_SRCS through lib/*.c.

LINKER_SCRIPT := linker/riscv64.ld

# Flat Image with the 64-byte RISC-V header (for -kernel, U-Boot booti)
# and the pointer relocation table.
ARCH_IMAGES := $(BUILD)/Image

# (KERNEL is defined after this file is included: name it in full.)
$(BUILD)/Image: $(BUILD)/kernel.elf arch/riscv64/mkimage.py
	python3 arch/riscv64/mkimage.py $< $@
