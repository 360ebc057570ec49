# build.mk - x86_64 settings for the top-level Makefile.
#
# Images: kernel.elf (ELF64, boots through GRUB's multiboot2),
# kernel.mb1 (the same image relabelled ELF32 for `qemu -kernel`, which
# loads only 32-bit multiboot1 ELFs) and kestrel.iso (GRUB rescue ISO,
# BIOS, hybrid so it also boots from a USB stick).

CROSS_COMPILE :=

# Identity mapped at 2 MiB, so the small code model (symbols below 2 GiB)
# fits.  No SSE/x87 state is ever saved: keep the compiler off it.
ARCH_CFLAGS := -m64 -march=x86-64 -mno-red-zone -mgeneral-regs-only \
	-mno-sse -mno-mmx -mno-80387 -mcmodel=small -fno-pic -fno-pie \
	-fno-asynchronous-unwind-tables -fno-unwind-tables
ARCH_LDFLAGS := -m elf_x86_64

ARCH_SRCS := arch/x86_64/boot.S arch/x86_64/trampoline.S \
	arch/x86_64/entry.S arch/x86_64/switch.S \
	arch/x86_64/early.c arch/x86_64/boot_info.c arch/x86_64/acpi.c \
	arch/x86_64/cpu.c arch/x86_64/trap.c arch/x86_64/apic.c arch/x86_64/ioapic.c \
	arch/x86_64/smp.c arch/x86_64/mmu.c arch/x86_64/profile_nmi.c \
	arch/x86_64/trace_rec.c

LINKER_SCRIPT := linker/x86_64.ld

ARCH_IMAGES := $(BUILD)/kernel.mb1 $(BUILD)/kestrel.iso

$(BUILD)/kernel.mb1: $(BUILD)/kernel.elf
	$(OBJCOPY) -O elf32-i386 $< $@

$(BUILD)/kestrel.iso: $(BUILD)/kernel.elf arch/x86_64/mkiso.sh
	sh arch/x86_64/mkiso.sh $< $@ ""
