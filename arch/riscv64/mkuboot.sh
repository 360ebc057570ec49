#!/bin/sh
# mkuboot.sh IMAGE OUTDIR "CMDLINE" [INITRD] - prepare a directory that
# U-Boot's distro boot finds on a virtio disk and boots with `booti`, no
# key press.
#
# OUTDIR gets the Image and a boot.scr (mkimage, u-boot-tools) that sets
# bootargs to CMDLINE, loads the Image from the partition distro boot is
# scanning, and boots it with the device tree U-Boot itself runs on
# (${fdtcontroladdr}: QEMU's DT as OpenSBI passed it on).  booti checks the
# Image header and copies the kernel to RAM base + text_offset.  With
# INITRD (e.g. a scenario script for `scenario=module`), boot.scr also
# loads it at ${ramdisk_addr_r} and hands it to booti, which records it
# in the device tree's /chosen (linux,initrd-start/-end) for the kernel.
#
# Boot it (QEMU presents OUTDIR as a FAT disk through vvfat):
#
#   qemu-system-riscv64 -machine virt -m 512M -smp 4 -nographic -no-reboot \
#     -bios default -kernel /usr/lib/u-boot/qemu-riscv64_smode/uboot.elf \
#     -drive file=fat:OUTDIR,format=raw,if=virtio,readonly=on
#
# (Debian's u-boot-qemu; autoboot runs distro boot after its bootdelay.)
set -eu

if [ $# -ne 3 ] && [ $# -ne 4 ]; then
	echo "usage: $0 IMAGE OUTDIR \"CMDLINE\" [INITRD]" >&2
	exit 2
fi
image=$1 out=$2 cmdline=$3 initrd=${4:-}
if [ -n "$initrd" ] && [ ! -f "$initrd" ]; then
	echo "$0: initrd $initrd is not a file" >&2
	exit 2
fi

case $cmdline in
*\"*) echo "$0: CMDLINE must not contain double quotes" >&2; exit 2 ;;
esac

mkdir -p "$out"
cp "$image" "$out/Image"
rm -f "$out/initrd"
rd=-
load_rd=
if [ -n "$initrd" ]; then
	cp "$initrd" "$out/initrd"
	# ${filesize}: what the last load read, the initrd.
	load_rd="load \${devtype} \${devnum}:\${distro_bootpart} \${ramdisk_addr_r} initrd"
	rd='${ramdisk_addr_r}:${filesize}'
fi
cat > "$out/boot.cmd" <<EOF
# Kestrel boot script, made by arch/riscv64/mkuboot.sh.
echo "kestrel: booting Image from \${devtype} \${devnum}:\${distro_bootpart}"
setenv bootargs "$cmdline"
load \${devtype} \${devnum}:\${distro_bootpart} \${kernel_addr_r} Image
$load_rd
booti \${kernel_addr_r} $rd \${fdtcontroladdr}
EOF
mkimage -A riscv -O linux -T script -C none -n "kestrel boot" \
	-d "$out/boot.cmd" "$out/boot.scr" >/dev/null
echo "$out: Image + boot.scr ready"
