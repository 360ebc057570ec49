#!/bin/sh
# mkiso.sh KERNEL_ELF OUT_ISO "CMDLINE" [MODULE]
#
# Build a GRUB rescue ISO that boots KERNEL_ELF through multiboot2 with
# CMDLINE (e.g. "ktest=all expect_cpus=4"; words only, no quotes or GRUB
# special characters).  MODULE, if given, is loaded as the first
# multiboot2 module (`module2` in grub.cfg): the scenario file that
# `scenario=module` runs (make lab).  grub-mkrescue makes a hybrid
# image: it boots as a CD in QEMU (-cdrom) and from a USB stick (dd it
# to the stick) on BIOS PCs, and on UEFI PCs too when grub-efi-amd64-bin
# is installed.  GRUB talks on the serial port and the screen, with no
# menu delay.  all_video: GRUB's video drivers (VBE under BIOS, GOP
# under UEFI), without which it cannot set up the framebuffer that the
# kernel's multiboot2 header asks for ("no suitable video mode").
set -eu

for tool in grub-mkrescue xorriso mformat; do
	if ! command -v "$tool" > /dev/null 2>&1; then
		echo "$0: $tool not found; install grub-pc-bin grub-common xorriso mtools (make deps)" >&2
		exit 1
	fi
done

if [ $# -ne 3 ] && [ $# -ne 4 ]; then
	echo "usage: $0 KERNEL_ELF OUT_ISO \"CMDLINE\" [MODULE]" >&2
	exit 2
fi
kernel=$1
out=$2
cmdline=$3
module=${4:-}
if [ -n "$module" ] && [ ! -f "$module" ]; then
	echo "$0: module $module is not a file" >&2
	exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

mkdir -p "$tmp/iso/boot/grub"
cp "$kernel" "$tmp/iso/boot/kernel.elf"
# GRUB reads the module by its path on the ISO: a fixed name, so the
# user's file name needs no quoting in grub.cfg.
load_module=
if [ -n "$module" ]; then
	cp "$module" "$tmp/iso/boot/module"
	load_module="module2 /boot/module scenario"
fi
cat > "$tmp/iso/boot/grub/grub.cfg" <<CFG
set timeout=0
set default=0
insmod all_video
serial --unit=0 --speed=115200
terminal_input serial console
terminal_output serial console
menuentry "Kestrel" {
	multiboot2 /boot/kernel.elf $cmdline
	$load_module
	boot
}
CFG

mkdir -p "$(dirname "$out")"
# One retry: xorriso (run by grub-mkrescue) once died of SIGSEGV while
# shutting down, after it had written the image ("xorriso : ABORT",
# a .ci/run on 2026-12-06, one ISO of some hundred that run made).  A
# failure that repeats is reported with the tool's own output.
for attempt in 1 2; do
	if grub-mkrescue -o "$out" "$tmp/iso" > "$tmp/log" 2>&1; then
		exit 0
	fi
	if [ "$attempt" = 1 ]; then
		echo "$0: grub-mkrescue failed, once more; its last lines:" >&2
		tail -n 4 "$tmp/log" >&2
	fi
done
cat "$tmp/log" >&2
exit 1
