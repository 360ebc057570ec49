#!/usr/bin/env python3
"""test_gdb.py - gdb on the DEBUG=1 kernel: variables and backtraces.

Boots build/debug/<arch>/ under QEMU halted with its gdb stub (the
machine of `make debug`, booted through -kernel), runs `gdb-multiarch
-batch` with breakpoints in
  - shell_printf(), reached from the shell task (a task's stack),
  - timer_interrupt(), reached from the timer interrupt,
  - kmain(), reached from the boot entry,
and checks that a local variable's value is printed (not <optimized
out>) and that each backtrace ends at its entry frame (x86_thread_start
/ rv_task_start, the boot or AP entry; the interrupt's goes through
"<signal handler called>" into the interrupted code) with no
"Backtrace stopped" and no "??" frame.  KESTREL_TEST_ARCHES (make test
sets it to the arches it builds) chooses the arches, default both.
Skips, saying why, when gdb-multiarch, QEMU or an image is missing.

    python3 tests/tools/test_gdb.py          # make test runs it
"""

import os
import re
import shutil
import socket
import subprocess
import sys
import unittest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(
    __file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from kestrel import qemu  # noqa: E402

GDB = "gdb-multiarch"
DEBUG_ROOT = "build/debug"
# Where a stack starts: the outermost frame of every backtrace.
ENTRIES = {
    "x86_64": ("x86_thread_start", "long_mode", "x86_ap_entry64"),
    "riscv64": ("rv_task_start", "rv_boot_entry", "rv_secondary_entry"),
}
GDB_ARCH = {"x86_64": "i386:x86-64", "riscv64": "riscv:rv64"}
IMAGE = {"x86_64": "kernel.mb1", "riscv64": "Image"}
QEMU = {"x86_64": "qemu-system-x86_64", "riscv64": "qemu-system-riscv64"}
TIMEOUT = 60


def source_line(path, text):
    """The number of the first line of @path (from the root) holding
    @text: breakpoints by line follow the source."""
    with open(os.path.join(ROOT, path)) as f:
        for n, line in enumerate(f, 1):
            if text in line:
                return n
    raise AssertionError("%s: no line with %r" % (path, text))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def frames(out, start):
    """The backtrace printed after the marker @start: its '#N' lines
    (inlined frames included) and any 'Backtrace stopped' line."""
    lines = out.split(start, 1)[1].splitlines()
    bt = []
    for line in lines[1:]:
        if line.startswith("#") or line.startswith("Backtrace stopped"):
            bt.append(line)
        elif bt:
            break
    return bt


def frame_function(line):
    """'#3  0x... in name (args) at f.c:1' or '#3  name (...)' -> name."""
    m = re.match(r"#\d+\s+(?:0x[0-9a-f]+ in )?(\S+)", line)
    return m.group(1) if m else None


def run_gdb(arch):
    """Boot @arch's DEBUG=1 kernel halted, run the gdb script, return
    gdb's output."""
    port = free_port()
    if arch == "x86_64":
        argv = qemu.x86_kernel(2, "", DEBUG_ROOT)
    else:
        argv = qemu.riscv_kernel(2, "", DEBUG_ROOT)
    argv += qemu.gdb_stub(port)
    shell_line = source_line("kernel/shell.c",
                             "if (n > (int)sizeof(buf) - 1)")
    irq_line = source_line("kernel/timer.c", "c->nr_timer_irqs++;")
    script = [
        "set pagination off", "set confirm off", "set width 0",
        "set architecture " + GDB_ARCH[arch],
        "file %s/%s/kernel.elf" % (DEBUG_ROOT, arch),
        "target remote 127.0.0.1:%d" % port,
        "hbreak kmain", "continue",
        "echo @@boot\\n", "bt", "delete",
        "break kernel/shell.c:%d" % shell_line, "continue",
        "echo @@task\\n", "bt", "echo @@locals\\n", "info locals",
        "echo @@print\\n", "print n", "delete",
        "break kernel/timer.c:%d" % irq_line, "continue",
        "echo @@irq\\n", "bt", "echo @@irqprint\\n", "print c->id",
        "echo @@end\\n", "kill",
    ]
    qemu_proc = subprocess.Popen(argv, cwd=ROOT, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL,
                                 start_new_session=True)
    try:
        cmd = [GDB, "-batch", "-nx"]
        for s in script:
            cmd += ["-ex", s]
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                              timeout=TIMEOUT)
        return proc.stdout + proc.stderr
    finally:
        qemu_proc.kill()
        qemu_proc.wait()


class GdbTests(unittest.TestCase):
    def check_arch(self, arch):
        asked = os.environ.get("KESTREL_TEST_ARCHES", "x86_64 riscv64")
        if arch not in asked.split():
            self.skipTest("not asked for (KESTREL_TEST_ARCHES=%s)" % asked)
        for tool in (GDB, QEMU[arch]):
            if not shutil.which(tool):
                self.skipTest("%s is not installed (make deps)" % tool)
        for f in ("kernel.elf", IMAGE[arch]):
            if not os.path.exists(os.path.join(ROOT, DEBUG_ROOT, arch, f)):
                self.skipTest("no %s/%s/%s: make ARCH=%s DEBUG=1 images"
                              % (DEBUG_ROOT, arch, f, arch))
        out = run_gdb(arch)
        self.assertIn("@@end", out, "gdb did not get through:\n" + out)
        for part, first in (("@@boot", "kmain"),
                            ("@@task", "shell_printf"),
                            ("@@irq", "timer_interrupt")):
            bt = frames(out, part)
            what = "%s backtrace:\n%s\n\n(all of gdb's output:\n%s)" % (
                part, "\n".join(bt), out)
            self.assertTrue(bt, what)
            self.assertEqual(frame_function(bt[0]), first, what)
            for line in bt:
                self.assertNotIn("Backtrace stopped", line, what)
                self.assertNotIn("??", line, what)
            self.assertIn(frame_function(bt[-1]), ENTRIES[arch], what)
        irq = frames(out, "@@irq")
        # The entry is a signal frame: the interrupted code follows.
        self.assertTrue(any("<signal handler called>" in l for l in irq),
                        "\n".join(irq))
        locals_ = out.split("@@locals", 1)[1].split("@@print", 1)[0]
        self.assertRegex(locals_, r"\nn = \d+", out)
        self.assertNotIn("<optimized out>", re.findall(r"\nn = .*", locals_)[0])
        self.assertRegex(out.split("@@print", 1)[1],
                         r"^\s*\$\d+ = \d+", out)
        self.assertRegex(out.split("@@irqprint", 1)[1],
                         r"^\s*\$\d+ = \d+", out)

    def test_x86_64(self):
        self.check_arch("x86_64")

    def test_riscv64(self):
        self.check_arch("riscv64")


class ParseTests(unittest.TestCase):
    """The backtrace reading itself, on gdb's output."""

    OUT = """@@task
#0  shell_printf (fmt=0x1) at kernel/shell.c:51
#1  0x000000000020427f in shell_main (arg=<optimized out>) at kernel/shell.c:598
#2  0x0000000000246748 in x86_thread_start () at arch/x86_64/switch.S:22
Backtrace stopped: previous frame inner to this frame (corrupt stack?)
@@locals
"""

    def test_frames_keep_the_stop_line(self):
        bt = frames(self.OUT, "@@task")
        self.assertEqual(len(bt), 4)
        self.assertEqual(frame_function(bt[0]), "shell_printf")
        self.assertEqual(frame_function(bt[2]), "x86_thread_start")
        self.assertTrue(bt[3].startswith("Backtrace stopped"))


if __name__ == "__main__":
    unittest.main(verbosity=2)   # prints why a test skips
