#!/usr/bin/env python3
"""test_shell.py - the shell's jobs, driven through the serial console.

Boots build/<arch>/ (x86_64 and riscv64, each a few seconds) at 2 CPUs
with no command line (the shell), types into its console and reads what it answers:
  - `scenario &` with a script whose RT waiter on CPU 0 blocks on a
    mutex held by a task computing on CPU 1: the prompt comes back,
    `ps` shows the job, "waits for m (lent from cpu0)" and "holds m";
  - a second `run` is refused while the job runs;
  - Ctrl-C (0x03) stops it: "stopping", the scenario's "stopped on
    request" picture, "stopped by Ctrl-C", the prompt, and `ps` no longer
    shows its tasks;
  - a foreground `test` stopped by Ctrl-C skips the cases after the one
    that ran, and the prompt comes back;
  - bad input (`ps &`, `run nosuch`) gives an "error:" line.
KESTREL_TEST_ARCHES (make test sets it to the arches it builds) chooses
the arches, default both.  Skips, saying why, when an image or QEMU is
missing.  The console transcript is kept in
build/test-logs/shell-<arch>.log.

    python3 tests/tools/test_shell.py        # make test runs it
"""

import os
import queue
import re
import shutil
import subprocess
import sys
import threading
import time
import unittest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(
    __file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from kestrel import qemu  # noqa: E402

PROMPT = "kestrel> "
IMAGE = {"x86_64": "kernel.mb1", "riscv64": "Image"}
QEMU = {"x86_64": "qemu-system-x86_64", "riscv64": "qemu-system-riscv64"}

# The owner computes (on CPU 1) far longer than the test needs: Ctrl-C
# ends it.  The waiter (RT, CPU 0) blocks on m and is lent to CPU 1.
SCRIPT = """\
scenario ps_xcpu
cpus 2
timeout 55s
mutex m
task owner fair cpu=1
    lock m
    mark held
    compute 50s
    unlock m
end
task waiter rt prio=50 cpu=0
    wait held
    lock m
    unlock m
end
end scenario
"""


class Console:
    """A booted kernel's serial console: type, and wait for text."""

    def __init__(self, argv):
        self.proc = subprocess.Popen(argv, cwd=ROOT, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT,
                                     start_new_session=True)
        self.out = ""           # everything so far
        self.pos = 0            # expect() looks from here
        self.chunks = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for chunk in iter(lambda: self.proc.stdout.read1(4096), b""):
            self.chunks.put(chunk.decode("utf-8", errors="replace"))

    def type(self, text):
        self.proc.stdin.write(text.encode())
        self.proc.stdin.flush()

    def expect(self, text, timeout=30):
        """Wait until @text appears after the last match; returns what
        came before it (from the last match on)."""
        end = time.monotonic() + timeout
        while True:
            i = self.out.find(text, self.pos)
            if i >= 0:
                before = self.out[self.pos:i]
                self.pos = i + len(text)
                return before
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError("no %r within %d s; console so far:\n%s"
                                     % (text, timeout, self.out[-4000:]))
            try:
                self.out += self.chunks.get(timeout=min(left, 0.5))
            except queue.Empty:
                pass

    def command(self, line, timeout=30):
        """Type @line; return its output up to the next prompt."""
        self.type(line + "\r")
        return self.expect(PROMPT, timeout)

    def close(self, log):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.proc.stdin.close()
        self.proc.stdout.close()
        while not self.chunks.empty():
            self.out += self.chunks.get()
        os.makedirs(os.path.dirname(log), exist_ok=True)
        with open(log, "w") as f:
            f.write(self.out)


def skip_unless_bootable(test, arch):
    """Skip @test, saying why, unless @arch is asked for
    (KESTREL_TEST_ARCHES), its QEMU is installed and its image built."""
    asked = os.environ.get("KESTREL_TEST_ARCHES", "x86_64 riscv64")
    if arch not in asked.split():
        test.skipTest("not asked for (KESTREL_TEST_ARCHES=%s)" % asked)
    if not shutil.which(QEMU[arch]):
        test.skipTest("%s is not installed (make deps)" % QEMU[arch])
    if not os.path.exists(os.path.join(ROOT, "build", arch, IMAGE[arch])):
        test.skipTest("no build/%s/%s: make ARCH=%s images"
                      % (arch, IMAGE[arch], arch))


class ShellJobTests(unittest.TestCase):
    def boot(self, arch):
        skip_unless_bootable(self, arch)
        if arch == "x86_64":
            argv = qemu.x86_kernel(2, "", "build")
        else:
            argv = qemu.riscv_kernel(2, "", "build")
        con = Console(argv)
        self.addCleanup(con.close, os.path.join(
            ROOT, "build", "test-logs", "shell-%s.log" % arch))
        con.expect("type 'help'", 60)
        con.expect(PROMPT)
        return con

    def check_arch(self, arch):
        con = self.boot(arch)
        self.assertIn("only run, test and scenario run in the background",
                      con.command("ps &"))
        self.assertIn("error: no scenario 'nosuch'", con.command("run nosuch"))

        # The background job and ps.
        con.type("scenario &\r")
        con.expect("'end scenario' runs it")
        for line in SCRIPT.splitlines():
            con.type(line + "\r")
        con.expect("[job] scenario: started")
        con.expect(PROMPT)
        con.expect("mark held")
        # The waiter spins a little, then blocks and moves to CPU 1
        # (a busy host may take a while): ask again until it shows.
        end = time.monotonic() + 20
        while True:
            ps = con.command("ps")
            if re.search(r"waiter .*waits for m \(lent from cpu0\)", ps) \
                    or time.monotonic() > end:
                break
            time.sleep(0.2)
        self.assertIn("job: scenario, running", ps)
        self.assertRegex(ps, r"waiter .*waits for m \(lent from cpu0\)", ps)
        self.assertRegex(ps, r"owner .*holds m", ps)

        # One job at a time.
        self.assertIn("error: 'scenario' is running (Ctrl-C stops it)",
                      con.command("run deadlock"))
        self.assertIn("error: 'scenario' is running",
                      con.command("test mutex"))

        # Ctrl-C stops it, its tasks are gone, the prompt is back.
        con.type("\x03")
        stop = con.expect(PROMPT, 30)
        self.assertIn("^C", stop)
        self.assertIn("stopping 'scenario'", stop)
        self.assertIn("stopped on request (Ctrl-C)", stop)
        self.assertIn("[job] scenario: stopped by Ctrl-C", stop)
        ps = con.command("ps")
        self.assertNotIn("job:", ps)
        self.assertNotIn("waiter", ps)
        self.assertNotIn("owner", ps)

        # A foreground test, stopped: the rest is skipped, prompt back.
        # (sched_dl takes seconds: the Ctrl-C comes while it runs.)
        con.type("test sched_dl thread\r")
        con.expect("# Subtest: sched_dl")
        con.type("\x03")
        out = con.expect(PROMPT, 120)
        self.assertIn("stopping 'test sched_dl thread' (after the case that "
                      "runs)", out)
        self.assertIn("# SKIP stopped on request", out)
        self.assertRegex(out, r"ok 2 thread # SKIP")
        self.assertRegex(out, r"test sched_dl thread: \d+ failed, stopped "
                         r"by Ctrl-C")

        # And the shell still runs jobs to their end.
        out = con.command("run deadlock", 60)
        self.assertIn("run deadlock: passed", out)
        con.type("poweroff\r")
        con.expect("powering off")

    def test_x86_64(self):
        self.check_arch("x86_64")

    def test_riscv64(self):
        self.check_arch("riscv64")


if __name__ == "__main__":
    unittest.main(verbosity=2)   # prints why a test skips
