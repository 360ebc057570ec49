"""boot.py - run QEMU boots unattended: each one's serial log, its
timeout, and what a hung one leaves behind (every CPU's registers from
QEMU's monitor, the scheduler's state read by gdb and
tools/kestrel-gdb.py from a memory dump).

A Boot is one machine to start (its QEMU command line from qemu.py) and
how to judge it (judge.py); run_all() runs a list of them, a few at once.
"""

import concurrent.futures
import os
import re
import signal
import socket
import subprocess
import threading
import time

from . import ROOT, qemu

# Set by runner.py's --build-root and --log-dir.
BUILD_ROOT = "build"        # --build-root: images in BUILD_ROOT/<arch>/
LOG_DIR = os.path.join("build", "test-logs")
# Seconds a boot may stay silent before it is killed and judged a hang
# (run_boot; one that keeps printing may run HARD_TIMEOUT_FACTOR times
# as long): a base, plus a share per further CPU (TCG runs every vCPU on
# the host's few cores, so an 8-CPU boot takes a minute on a quiet 2-core
# host and twice that when the host is busy).  --timeout S gives every
# boot S instead.
DEFAULT_TIMEOUT = 120
TIMEOUT_PER_CPU = 30
HARD_TIMEOUT_FACTOR = 3     # a boot still printing stops at 3x its timeout

# The last line of a boot whose machine cannot power off (sifive_u,
# spike: kernel/power.c; HALT_LINE in kernel/include/power.h, change the
# two together).  Every CPU has stopped when it appears, so run_boot()
# stops QEMU there, and the exit code comes from the line before it
# (HALT_CODE) instead of QEMU's status (exit_code()).
HALT_LINE = "kestrel: halted: it is safe to switch off"
HALT_CODE = re.compile(r"kestrel: no power-off \(exit code (\d+)\)")


class Boot:
    """One QEMU boot: what to run, how to judge it."""

    def __init__(self, arch, cpus, method, cmdline, name, kind,
                 expect=None):
        self.arch = arch
        self.cpus = cpus
        self.method = method        # "kernel", "grub", "ovmf", "uboot",
                                    # "noexit" (x86_64), a
                                    # qemu.RISCV_BOARDS board
        self.cmdline = cmdline
        self.name = name            # "x86_64/smp4-grub"
        self.kind = kind            # "test", "crash", "selftest", "bench"
        self.expect = expect        # crash: regex the PANIC must match
        self.extra = []             # extra QEMU options (icount)
        self.also = []              # crash: regexes the whole log must match
        self.want_suites = []       # subtests that must have run (module)
        self.module = None          # grub/uboot: boot module / initrd file
        self.build_root = None      # images from here, not BUILD_ROOT
        self.on_start = None        # called with the QEMU Popen once started
        self.skip = None            # why it cannot run here: a SKIP

    def file_base(self):
        """build/test-logs/x86_64-smp4-grub: stem of this boot's files."""
        return os.path.join(LOG_DIR, self.name.replace("/", "-"))

    def log_path(self):
        return self.file_base() + ".log"

    def prepare(self):
        """Build what the boot needs (ISO, U-Boot dir); returns argv."""
        root = self.build_root or BUILD_ROOT
        if self.method == "kernel":
            if self.arch == "x86_64":
                argv = qemu.x86_kernel(self.cpus, self.cmdline, root)
            else:
                argv = qemu.riscv_kernel(self.cpus, self.cmdline, root)
        elif self.method in ("grub", "ovmf"):
            iso = self.file_base() + ".iso"
            run_tool(["sh", "arch/x86_64/mkiso.sh",
                      root + "/x86_64/kernel.elf", iso, self.cmdline]
                     + ([self.module] if self.module else []))
            if self.method == "grub":
                argv = qemu.x86_grub(self.cpus, iso)
            else:
                argv = qemu.x86_ovmf(self.cpus, iso, qemu.copy_ovmf_vars(
                    os.path.join(ROOT, self.file_base() + ".vars.fd")))
        elif self.method == "noexit":
            argv = qemu.x86_kernel(self.cpus, self.cmdline, root,
                                   exit_device=False)
        elif self.method in qemu.RISCV_BOARDS:
            argv = qemu.riscv_board(self.method, self.cpus, self.cmdline,
                                    root)
        elif self.method == "uboot":
            outdir = self.file_base() + ".uboot"
            run_tool(["sh", "arch/riscv64/mkuboot.sh",
                      root + "/riscv64/Image", outdir, self.cmdline]
                     + ([self.module] if self.module else []))
            argv = qemu.riscv_uboot(self.cpus, outdir)
        else:
            raise ValueError(self.method)
        return argv + self.extra


def run_tool(argv):
    proc = subprocess.run(argv, cwd=ROOT, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    if proc.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (
            " ".join(argv), proc.returncode, proc.stdout.strip()[-500:]))


class BootResult:
    def __init__(self, boot):
        self.boot = boot
        self.log = ""
        self.status = None          # QEMU exit status, None on timeout
        self.timed_out = None       # why it was stopped, if it was
        self.halted = False         # the kernel printed HALT_LINE
        self.error = None           # could not even start
        self.skipped = None         # not run: why (boot.skip)
        self.seconds = 0.0


def run_boot(boot, timeout):
    """Run one boot to completion or timeout; keep its log.

    The serial output is read through a pipe, kept in memory for judging
    and copied to the log file as it arrives (so a hung boot's log can be
    watched with tail -f)."""
    res = BootResult(boot)
    start = time.monotonic()
    if boot.skip:
        res.skipped = boot.skip
        return res
    try:
        argv = boot.prepare()
    except (RuntimeError, OSError) as e:
        res.error = str(e)
        return res
    os.makedirs(os.path.join(ROOT, LOG_DIR), exist_ok=True)
    # A monitor socket, so that a boot that times out leaves every CPU's
    # registers at the end of its log (where each CPU was stuck).
    mon = boot.file_base() + ".mon"
    if os.path.exists(os.path.join(ROOT, mon)):
        os.unlink(os.path.join(ROOT, mon))
    argv = argv + ["-monitor", "unix:%s,server,nowait" % mon]
    chunks = []
    with open(os.path.join(ROOT, boot.log_path()), "wb") as logf:
        logf.write(("# %s\n" % " ".join(argv)).encode())
        try:
            # Own process group so a timeout kills QEMU and nothing else.
            proc = subprocess.Popen(argv, cwd=ROOT, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT,
                                    start_new_session=True)
        except OSError as e:
            res.error = "cannot run %s: %s" % (argv[0], e)
            return res
        if boot.on_start:
            boot.on_start(proc)

        last_output = [time.monotonic()]
        halt = HALT_LINE.encode()

        def copy_output():
            tail = b""
            for chunk in iter(lambda: proc.stdout.read1(4096), b""):
                chunks.append(chunk)
                last_output[0] = time.monotonic()
                logf.write(chunk)
                logf.flush()
                # The line may arrive split between reads.
                tail = (tail + chunk)[-2 * len(halt):]
                if not res.halted and halt in tail:
                    res.halted = True
                    try:
                        os.killpg(proc.pid, signal.SIGTERM)
                    except ProcessLookupError:
                        pass    # gone already

        reader = threading.Thread(target=copy_output, daemon=True)
        reader.start()
        # A boot times out when it has printed nothing for @timeout
        # seconds (hung: every test case prints within its own timeout,
        # at most a minute), or is still going after HARD_TIMEOUT_FACTOR
        # times that.  A fixed limit cut off boots that were only slow:
        # under three loops and a make test on the 2-core machine an
        # 8-CPU boot was still passing cases (its timers due, its case
        # sleeping) when it ran out of time.
        while res.status is None:
            try:
                res.status = proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                now = time.monotonic()
                if now - last_output[0] >= timeout:
                    res.timed_out = "no output for %d s" % (
                        now - last_output[0])
                elif now - start >= HARD_TIMEOUT_FACTOR * timeout:
                    res.timed_out = "still running after %d s" % (
                        now - start)
                else:
                    continue
                break
        if res.timed_out:
            monitor_command(os.path.join(ROOT, mon), "stop")
            regs = monitor_command(os.path.join(ROOT, mon),
                                   "info registers -a")
            state = hang_state(boot, os.path.join(ROOT, mon))
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        # QEMU is gone, so the pipe reaches EOF; on a loaded host the
        # reader may still be behind: wait for all of it, not a guess.
        reader.join(timeout=120)
        proc.stdout.close()
        if res.timed_out:
            logf.write(("\n# timed out (%s); every CPU's registers (QEMU "
                        "monitor):\n" % res.timed_out).encode() + regs)
            logf.write(b"\n# the scheduler's state (tools/kestrel-gdb.py on a "
                       b"memory dump):\n" + state)
    if os.path.exists(os.path.join(ROOT, mon)):
        os.unlink(os.path.join(ROOT, mon))
    res.log = b"".join(chunks).decode("utf-8", errors="replace")
    res.seconds = time.monotonic() - start
    return res


def exit_code(res):
    """The code the kernel ended boot @res with (arch_poweroff()'s
    argument), or None if it did not end it: from QEMU's exit status
    (qemu.kernel_exit_code()), or, for a boot that halted because the
    machine cannot power off, from its "no power-off (exit code N)"
    line (QEMU was stopped by us: its status says nothing)."""
    if res.halted:
        m = HALT_CODE.search(res.log)
        return int(m.group(1)) if m else None
    return qemu.kernel_exit_code(res.boot.arch, res.status)


def hang_state(boot, mon):
    """What the scheduler of a hung boot was doing: dump its memory
    through the monitor, read it with gdb and tools/kestrel-gdb.py
    (every CPU's runqueue and timers, the tasks not queued).  The dump
    (as large as the guest's memory) is deleted unless KESTREL_KEEP_CORE
    is set; the log then says where it is."""
    lapic = b""
    if boot.arch == "x86_64":
        # Each CPU's timer (armed? how far?) and pending or in-service
        # interrupts: memory cannot say whether the hardware was armed.
        for c in range(boot.cpus):
            out = monitor_command(mon, "info lapic %d" % c)
            keep = [l for l in out.splitlines()
                    if l.startswith((b"LVTT\t", b"Timer", b"ISR", b"IRR"))]
            lapic += b"cpu%d lapic: " % c + b"; ".join(keep) + b"\n"
    core = os.path.join(ROOT, boot.file_base() + ".core")
    elf = os.path.join(ROOT, boot.build_root or BUILD_ROOT, boot.arch,
                       "kernel.elf")
    if os.path.exists(core):
        os.unlink(core)
    monitor_command(mon, "dump-guest-memory %s" % core, wait=120)
    if not os.path.exists(core):
        return lapic + b"(no memory dump: the monitor did not write one)\n"
    try:
        out = subprocess.run(
            ["gdb-multiarch", "-batch", "-nx",
             "-x", os.path.join(ROOT, "tools/kestrel-gdb.py"),
             "-ex", "kestrel-state", elf, core],
            capture_output=True, timeout=120).stdout
    except (OSError, subprocess.TimeoutExpired) as e:
        out = ("(gdb-multiarch: %s)\n" % e).encode()
    if os.environ.get("KESTREL_KEEP_CORE"):
        out += ("# memory dump kept: %s (gdb-multiarch %s %s -x "
                "tools/kestrel-gdb.py)\n" % (core, elf, core)).encode()
    else:
        os.unlink(core)
    return lapic + out


def monitor_command(path, command, wait=30):
    """Send @command to the QEMU monitor at unix socket @path; its
    answer, read until the monitor's prompt comes back after it (at most
    @wait seconds: on a loaded host `info registers -a` on 8 vCPUs once
    took longer than the 5 s this used to wait, and left nothing), or a
    line saying why there is none."""
    out = b""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(wait)
            s.connect(path)
            s.sendall(command.encode() + b"\n")
            end = time.monotonic() + wait
            # The banner's prompt, then the one after the answer.
            while out.count(b"(qemu)") < 2 and time.monotonic() < end:
                s.settimeout(max(0.1, end - time.monotonic()))
                try:
                    data = s.recv(65536)
                except socket.timeout:
                    break
                if not data:
                    break
                out += data
            if out.count(b"(qemu)") < 2:
                out += ("\n(the monitor did not finish answering in %d s)\n"
                        % wait).encode()
    except OSError as e:
        out += ("(no monitor: %s)\n" % e).encode()
    return out


def boot_timeout(boot, timeout):
    """@timeout if one was asked for, else the default for @boot's CPUs."""
    if timeout is not None:
        return timeout
    return DEFAULT_TIMEOUT + TIMEOUT_PER_CPU * (boot.cpus - 1)


def run_all(boots, timeout, jobs):
    """Run @boots in parallel (at most @jobs QEMUs); results in order.
    @timeout: seconds per boot, or None for boot_timeout()'s default."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futs = [pool.submit(run_boot, b, boot_timeout(b, timeout))
                for b in boots]
        results = []
        for f in futs:
            res = f.result()
            print("# %-32s %5.1f s%s" % (
                res.boot.name, res.seconds,
                " TIMEOUT" if res.timed_out else
                " skipped" if res.skipped else ""), flush=True)
            results.append(res)
    return results
