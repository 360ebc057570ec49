"""qemu.py - every QEMU command line Kestrel boots with, and what QEMU's
exit status means.

The test, bench and profile boots (one function per boot method: -kernel,
GRUB ISO under BIOS or UEFI (OVMF), U-Boot, the sifive_u and spike
boards; ICOUNT for the -icount boots) and the interactive machine of
`make run` / `make debug` (interactive()) are all spelled here:
arch/*/build.mk and the Makefile spell none.

QEMU exit status (see docs/testing.md): on x86_64 the isa-debug-exit device
makes QEMU exit with (code << 1) | 1, so kernel code 0 is status 1; status 0
means QEMU stopped without the kernel asking (reset/triple fault with
-no-reboot).  On riscv64 the status is the kernel's code (SBI SRST / the
sifive test device): 0 is success.  Where the machine cannot power off
(sifive_u, spike) the kernel prints its code and a halt line instead, and
the runner stops QEMU there (boot.py exit_code()).
"""

import os
import shutil
import signal
import subprocess
import sys

from . import ROOT

QEMU_COMMON = ["-m", "512M", "-nographic", "-no-reboot"]
X86_EXIT_DEVICE = ["-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]


def append(cmdline):
    """-append @cmdline, or nothing for an empty one (the shell)."""
    return ["-append", cmdline] if cmdline else []


def x86_kernel(cpus, cmdline, root, exit_device=True):
    """x86_64 through QEMU's multiboot1 loader (-kernel: ELF32 image)
    from @root/x86_64/.  Without @exit_device the machine is a PC that
    cannot power off: the kernel ends with its halt line."""
    return (["qemu-system-x86_64", "-machine", "q35", "-smp", str(cpus)]
            + QEMU_COMMON + (X86_EXIT_DEVICE if exit_device else [])
            + ["-kernel", root + "/x86_64/kernel.mb1"] + append(cmdline))


def x86_grub(cpus, iso):
    """x86_64 through GRUB (multiboot2) from an ISO made by mkiso.sh."""
    return (["qemu-system-x86_64", "-machine", "q35", "-smp", str(cpus)]
            + QEMU_COMMON + X86_EXIT_DEVICE + ["-cdrom", iso])


# UEFI firmware for QEMU (Debian package ovmf): the code is read-only and
# shared; the variable store is written by the firmware (boot entries),
# so every boot gets a copy of its own.
OVMF_CODE = "/usr/share/OVMF/OVMF_CODE_4M.fd"
OVMF_VARS = "/usr/share/OVMF/OVMF_VARS_4M.fd"


def ovmf_missing():
    """Why no boot through OVMF can run here, or None."""
    for f in (OVMF_CODE, OVMF_VARS):
        if not os.path.exists(f):
            return "%s not found (Debian package ovmf; make deps)" % f
    return None


def ovmf_firmware(vars_copy):
    """-drive options for OVMF, its variables in @vars_copy (made by
    copy_ovmf_vars())."""
    return ["-drive", "if=pflash,format=raw,readonly=on,file=" + OVMF_CODE,
            "-drive", "if=pflash,format=raw,file=" + vars_copy]


def copy_ovmf_vars(path):
    """A fresh copy of OVMF's variable store at @path."""
    shutil.copyfile(OVMF_VARS, path)
    return path


def x86_ovmf(cpus, iso, vars_copy):
    """x86_64 through UEFI (OVMF) -> GRUB's EFI image on the same ISO
    (multiboot2).  The firmware takes about 5 s before GRUB."""
    return x86_grub(cpus, iso) + ovmf_firmware(vars_copy)


def riscv_kernel(cpus, cmdline, root):
    """riscv64 through OpenSBI (QEMU's -bios default, fw_dynamic) loading
    the Image from @root/riscv64/: it goes to RAM base + 2 MiB
    (0x80200000), entered with a0 = hart id, a1 = DTB."""
    return (["qemu-system-riscv64", "-machine", "virt", "-smp", str(cpus)]
            + QEMU_COMMON
            + ["-bios", "default", "-kernel", root + "/riscv64/Image"]
            + append(cmdline))


# Boards QEMU models besides virt (docs/boards.md), by boot method:
# (machine, harts QEMU must get for @cpus harts the kernel can use).
# sifive_u (HiFive Unleashed): hart 0 is an E51 monitor core without an
# MMU, which the kernel leaves out (dt.c: mmu-type), so one hart more.
# spike: the ISA simulator's machine, HTIF console through SBI.
RISCV_BOARDS = {
    "sifive_u": ("sifive_u", lambda cpus: cpus + 1),
    "spike": ("spike", lambda cpus: cpus),
}


def riscv_board(method, cpus, cmdline, root):
    """riscv64 on a board QEMU models (RISCV_BOARDS[@method]) through
    OpenSBI, like riscv_kernel(); @cpus is what the kernel can use."""
    machine, harts = RISCV_BOARDS[method]
    return (["qemu-system-riscv64", "-machine", machine,
             "-smp", str(harts(cpus))]
            + QEMU_COMMON
            + ["-bios", "default", "-kernel", root + "/riscv64/Image"]
            + append(cmdline))


UBOOT_ELF = "/usr/lib/u-boot/qemu-riscv64_smode/uboot.elf"


def riscv_uboot(cpus, outdir):
    """riscv64 through OpenSBI -> U-Boot -> booti: U-Boot's distro boot
    finds boot.scr + Image that arch/riscv64/mkuboot.sh put in @outdir,
    which QEMU presents as a FAT disk (vvfat); no key press needed."""
    return (["qemu-system-riscv64", "-machine", "virt", "-smp", str(cpus)]
            + QEMU_COMMON
            + ["-bios", "default", "-kernel", UBOOT_ELF,
               "-drive", "file=fat:%s,format=raw,if=virtio,readonly=on"
               % outdir])


def uboot_available():
    return (os.path.exists(os.path.join(ROOT, "arch/riscv64/mkuboot.sh"))
            and os.path.exists(UBOOT_ELF))


# Deterministic time: the guest's clock advances with the instructions
# it runs (bench, profile, the scenario=all and -icount test boots).
ICOUNT = {
    "x86_64": ["-icount", "shift=0,sleep=off", "-rtc", "clock=vm"],
    "riscv64": ["-icount", "shift=0,sleep=off"],
}


def kernel_exit_code(arch, status):
    """Map QEMU's exit status to the code the kernel passed to
    arch_poweroff(), or None if the kernel did not power off."""
    if status is None:
        return None
    if arch == "x86_64":
        if status & 1:
            return status >> 1
        return None     # QEMU exited by itself (reset, -no-reboot)
    return status

# ---- make run / make debug ------------------------------------------------

GDB_PORT = 1234


def gdb_stub(port=GDB_PORT):
    """Start halted at the first instruction, gdb stub on @port."""
    return ["-S", "-gdb", "tcp::%d" % port]


def with_screen(argv):
    """@argv with QEMU's window showing the screen (the PC's VGA: the
    kernel's fbcon) instead of -nographic; the serial console and
    QEMU's monitor (Ctrl-A c) stay on the terminal."""
    return [a for a in argv if a != "-nographic"] + ["-serial", "mon:stdio"]


def interactive(arch, cpus, root, gdb=False, screen=False, uefi=False):
    """The machine of `make run`: x86_64 through GRUB from the ISO that
    `make images` built (the path a PC boots; -boot d goes to the CD
    without first failing to read a hard disk), riscv64 through OpenSBI
    with -kernel; no command line, so the kernel starts its shell.  @gdb
    (`make debug`): halted at the first instruction, gdb stub on
    GDB_PORT.  @screen (`make run SCREEN=1`): QEMU's window shows the
    screen console and takes the keyboard.  @uefi (`make run UEFI=1`,
    x86_64): through OVMF, its variables in a copy next to the ISO."""
    if arch == "x86_64":
        iso = root + "/x86_64/kestrel.iso"
        if uefi:
            argv = x86_ovmf(cpus, iso, copy_ovmf_vars(
                root + "/x86_64/ovmf-vars.fd"))
        else:
            argv = x86_grub(cpus, iso)
        argv += ["-boot", "d"]
    else:
        argv = riscv_kernel(cpus, "", root)
    if screen:
        argv = with_screen(argv)
    if gdb:
        argv += gdb_stub()
    return argv


def interactive_status(arch, status):
    """`make run`'s exit status for QEMU's @status: 0 when QEMU ended with
    0 (Ctrl-A x; on x86_64 also a reset, -no-reboot) or the kernel
    powered off cleanly (status 1 on x86_64: isa-debug-exit), else
    QEMU's status (1 if a signal ended it)."""
    if status == 0 or kernel_exit_code(arch, status) == 0:
        return 0
    return status if status > 0 else 1


def run_interactive(arch, cpus, root, gdb=False, screen=False, uefi=False):
    """Run the interactive machine on this terminal (the serial console
    is stdin/stdout; Ctrl-A x quits) until it ends; the exit status for
    make (interactive_status())."""
    if uefi and arch == "x86_64" and ovmf_missing():
        print("cannot boot through UEFI: %s" % ovmf_missing(),
              file=sys.stderr)
        return 1
    argv = interactive(arch, cpus, root, gdb, screen, uefi)
    print(" ".join(argv), flush=True)
    if gdb:
        print("QEMU is halted with a gdb stub on localhost:%d; see README.md "
              "(Debugging with gdb)." % GDB_PORT, flush=True)
    try:
        proc = subprocess.Popen(argv)
    except OSError as e:
        print("cannot run %s: %s" % (argv[0], e), file=sys.stderr)
        return 127
    # The terminal's keys are the guest's: a SIGINT that reaches us
    # anyway (the terminal not in QEMU's raw mode) is left to QEMU.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    return interactive_status(arch, proc.wait())
