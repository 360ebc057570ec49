#!/bin/sh
# boot-at.sh IMAGE ADDR OUT.elf - wrap the flat Image in an ELF that loads
# it at physical ADDR, to prove the kernel relocates itself.
#
# QEMU always puts a raw -kernel Image at RAM base + 2 MiB (0x80200000, the
# link address), so that path never exercises head.S's relocation.  Given
# an ELF, QEMU loads it where its program header says and OpenSBI
# (fw_dynamic) enters it there with a0 = hart id, a1 = DTB, just as for
# the Image.  ADDR must be 4 KiB aligned, in RAM and above OpenSBI:
#
#   arch/riscv64/boot-at.sh build/riscv64/Image 0x90001000 /tmp/k.elf
#   qemu-system-riscv64 -machine virt -m 512M -smp 4 -nographic -no-reboot \
#     -bios default -kernel /tmp/k.elf -append "ktest=all expect_cpus=4"
#
# The boot banner then says "riscv: Image at 90001000 (linked at 80200000)".
set -eu

if [ $# -ne 3 ]; then
	echo "usage: $0 IMAGE ADDR OUT.elf" >&2
	exit 2
fi
image=$(realpath "$1") addr=$2 out=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '\t.section .text\n\t.globl _start\n_start:\n\t.incbin "%s"\n' \
	"$image" > "$tmp/wrap.S"
riscv64-unknown-elf-gcc -c "$tmp/wrap.S" -o "$tmp/wrap.o"
# -N: the segment starts at _start itself (QEMU enters at the lowest
# loaded address, not at e_entry).
riscv64-unknown-elf-ld -N --no-warn-rwx-segments -Ttext="$addr" -e _start \
	"$tmp/wrap.o" -o "$out"
