#!/usr/bin/env python3
"""runner.py - boot Kestrel under QEMU and judge what it prints.

    runner.py test  [--arch A] [--cpus N] [--suites a,b] [--timeout S]
                    [--jobs J] [--no-crash] [--no-selftest]
                    [--build-root D] [--debug-root D] [--log-dir D]
    runner.py bench [--arch A] [--cpus N] [--benches x,y] [--timeout S]
    runner.py profile --benches x,y [--arch A] [--cpus N] [--period US]
                    [--top K]

`test` boots every configuration of the matrix (x86_64 and riscv64 at 1, 2,
4 and 8 CPUs; one x86_64 configuration through the GRUB ISO, one riscv64
configuration through U-Boot, the others through QEMU's -kernel) with
`ktest=... expect_cpus=N` (plus the mutex suites once per arch in the
locking modes inherit and none, and sched_dl and sched_fair once under
-icount), parses
the KTAP output, then boots the crash
scenarios (crash=NAME) and checks that each ends in the expected PANIC,
and boots the framework's self-test (ktest=ktest_selftest, which fails on
purpose) and checks every one of its results against SELFTEST_CHECKS.
It prints one line per result ("PASS x86_64/smp4 spinlock.trylock_same_cpu")
and a last line "N passed, N failed, N skipped"; exit status 1 on any
failure.  Every boot's serial log is kept in build/test-logs/.

`bench` boots with `qemu -icount shift=0,sleep=off` and `bench=all icount=1`
at 1 and 2 CPUs, then the benches of BENCH_MORE_CPUS again at their extra
CPU counts, and prints the figures as a table.

`profile` boots the same way (1 CPU unless --cpus) with `profile=<us>`:
the kernel samples every CPU's interrupted PC and call chain while each
benchmark runs (kernel/profile.c); the flat profile of each (functions by
share of samples, named with the kernel's symbols by profile_report.py) is
printed, and its folded stacks written to build/profile/<arch>-smp<N>/.

QEMU exit status (see docs/testing.md): on x86_64 the isa-debug-exit device
makes QEMU exit with (code << 1) | 1, so kernel code 0 is status 1; status 0
means QEMU stopped without the kernel asking (reset/triple fault with
-no-reboot).  On riscv64 the status is the kernel's code (SBI SRST / the
sifive test device): 0 is success.

Python 3 standard library only.
"""

import argparse
import concurrent.futures
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD_ROOT = "build"        # --build-root: images in BUILD_ROOT/<arch>/
LOG_DIR = os.path.join("build", "test-logs")
ARCHES = ("x86_64", "riscv64")
CPU_COUNTS = (1, 2, 4, 8)
# Seconds a boot may stay silent before it is killed and judged a hang
# (run_boot; one that keeps printing may run HARD_TIMEOUT_FACTOR times
# as long): a base, plus a share per further CPU (TCG runs every vCPU on
# the host's few cores, so an 8-CPU boot takes a minute on a quiet 2-core
# host and twice that when the host is busy).  --timeout S gives every
# boot S instead.
DEFAULT_TIMEOUT = 120
TIMEOUT_PER_CPU = 30
HARD_TIMEOUT_FACTOR = 3     # a boot still printing stops at 3x its timeout
BENCH_TIMEOUT = 400         # at least, for a bench boot

# ---- QEMU command lines: one function per boot method -----------------

QEMU_COMMON = ["-m", "512M", "-nographic", "-no-reboot"]
X86_EXIT_DEVICE = ["-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]


def qemu_x86_kernel(cpus, cmdline, root=None):
    """x86_64 through QEMU's multiboot1 loader (-kernel: ELF32 image)
    from @root/x86_64/ (default BUILD_ROOT)."""
    root = root or BUILD_ROOT
    return (["qemu-system-x86_64", "-machine", "q35", "-smp", str(cpus)]
            + QEMU_COMMON + X86_EXIT_DEVICE
            + ["-kernel", root + "/x86_64/kernel.mb1",
               "-append", cmdline])


def qemu_x86_grub(cpus, iso):
    """x86_64 through GRUB (multiboot2) from an ISO made by mkiso.sh."""
    return (["qemu-system-x86_64", "-machine", "q35", "-smp", str(cpus)]
            + QEMU_COMMON + X86_EXIT_DEVICE + ["-cdrom", iso])


def qemu_riscv_kernel(cpus, cmdline, root=None):
    """riscv64 through OpenSBI (fw_dynamic) loading the Image directly
    from @root/riscv64/ (default BUILD_ROOT)."""
    root = root or BUILD_ROOT
    return (["qemu-system-riscv64", "-machine", "virt", "-smp", str(cpus)]
            + QEMU_COMMON
            + ["-bios", "default", "-kernel", root + "/riscv64/Image",
               "-append", cmdline])


UBOOT_ELF = "/usr/lib/u-boot/qemu-riscv64_smode/uboot.elf"


def qemu_riscv_uboot(cpus, outdir):
    """riscv64 through OpenSBI -> U-Boot -> booti: U-Boot's distro boot
    finds boot.scr + Image that arch/riscv64/mkuboot.sh put in @outdir,
    which QEMU presents as a FAT disk (vvfat); no key press needed."""
    return (["qemu-system-riscv64", "-machine", "virt", "-smp", str(cpus)]
            + QEMU_COMMON
            + ["-bios", "default", "-kernel", UBOOT_ELF,
               "-drive", "file=fat:%s,format=raw,if=virtio,readonly=on"
               % outdir])


ICOUNT = {
    "x86_64": ["-icount", "shift=0,sleep=off", "-rtc", "clock=vm"],
    "riscv64": ["-icount", "shift=0,sleep=off"],
}

# ---- Boot configurations ------------------------------------------------


class Boot:
    """One QEMU boot: what to run, how to judge it."""

    def __init__(self, arch, cpus, method, cmdline, name, kind,
                 expect=None):
        self.arch = arch
        self.cpus = cpus
        self.method = method        # "kernel", "grub", "uboot"
        self.cmdline = cmdline
        self.name = name            # "x86_64/smp4-grub"
        self.kind = kind            # "test", "crash", "selftest", "bench"
        self.expect = expect        # crash: regex the PANIC must match
        self.extra = []             # extra QEMU options (icount)
        self.also = []              # crash: regexes the whole log must match
        self.want_suites = []       # subtests that must have run (module)
        self.module = None          # grub/uboot: boot module / initrd file
        self.build_root = None      # images from here, not BUILD_ROOT

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
                argv = qemu_x86_kernel(self.cpus, self.cmdline, root)
            else:
                argv = qemu_riscv_kernel(self.cpus, self.cmdline, root)
        elif self.method == "grub":
            iso = self.file_base() + ".iso"
            run_tool(["sh", "arch/x86_64/mkiso.sh",
                      root + "/x86_64/kernel.elf", iso, self.cmdline]
                     + ([self.module] if self.module else []))
            argv = qemu_x86_grub(self.cpus, iso)
        elif self.method == "uboot":
            outdir = self.file_base() + ".uboot"
            run_tool(["sh", "arch/riscv64/mkuboot.sh",
                      root + "/riscv64/Image", outdir, self.cmdline]
                     + ([self.module] if self.module else []))
            argv = qemu_riscv_uboot(self.cpus, outdir)
        else:
            raise ValueError(self.method)
        return argv + self.extra


def run_tool(argv):
    proc = subprocess.run(argv, cwd=ROOT, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    if proc.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (
            " ".join(argv), proc.returncode, proc.stdout.strip()[-500:]))


# Per crash scenario: what its PANIC line must match, the fewest CPUs it
# needs, and what else the log must show (register dump, backtrace).
BACKTRACE = r"\[<(0x)?[0-9a-f]+>\]"
REGDUMP = r"\b(RIP|sepc) [0-9a-f]+"
CRASH_EXPECT = {
    "stack_overflow": (r"stack overflow.*overflow-test", 1, [BACKTRACE]),
    "null_deref": (r"fault", 1, [REGDUMP, BACKTRACE]),
    "spin_recursion": (r"crash-recursion-lock.*recursi", 1, [BACKTRACE]),
    "spin_wrong_cpu": (r"crash-wrong-cpu-lock.*held by", 2, [BACKTRACE]),
    "panic": (r"crash test: deliberate panic", 1, [BACKTRACE]),
    # Mutex misuse: the PANIC names the mutex, the task and the owner.
    "mutex_unlock_nonowner": (r"mutex 'crash-mutex': unlock of a mutex it "
                              r"does not own \(task crash-mutex-b, owner "
                              r"crash-mutex-a\)", 1, [BACKTRACE]),
    "mutex_unlock_unlocked": (r"mutex 'crash-mutex': unlock of an unlocked "
                              r"mutex \(task crash-mutex-a, owner none\)",
                              1, [BACKTRACE]),
    "mutex_recursive": (r"mutex 'crash-mutex': recursive lock \(task "
                        r"crash-mutex-a, owner crash-mutex-a\)", 1,
                        [BACKTRACE]),
    "mutex_exit_held": (r"mutex 'crash-mutex': task exits while holding it "
                        r"\(task crash-mutex-a, owner crash-mutex-a\)", 1,
                        [BACKTRACE]),
    "mutex_in_irq": (r"mutex 'crash-mutex': lock from interrupt context "
                     r"\(task \S+, owner crash-mutex-a\)", 1, [BACKTRACE]),
}
CRASH_CPUS = 2      # one CPU count per arch for the crash scenarios


def uboot_available():
    return (os.path.exists(os.path.join(ROOT, "arch/riscv64/mkuboot.sh"))
            and os.path.exists(UBOOT_ELF))


def test_matrix(arches, cpu_counts, suites):
    """The boots of `runner.py test`."""
    names = ",".join(suites) if suites else "all"
    boots = []
    for arch in arches:
        for n in cpu_counts:
            method = "kernel"
            # The real boot paths, once each: GRUB at 4 CPUs (or the only
            # count asked for), U-Boot likewise.
            special = 4 if 4 in cpu_counts else cpu_counts[-1]
            if n == special and arch == "x86_64":
                method = "grub"
            if n == special and arch == "riscv64" and uboot_available():
                method = "uboot"
            name = "%s/smp%d%s" % (arch, n,
                                   "" if method == "kernel" else "-" + method)
            boots.append(Boot(arch, n, method,
                              "ktest=%s expect_cpus=%d%s"
                              % (names, n, verify_arg(n)), name, "test"))
    return boots


# Every SMP test boot runs the real-time invariant checker
# (kernel/include/sched_verify.h): a case during which a violation of
# "the N most important contexts run" outlives its bound fails.
def verify_arg(cpus):
    return " sched_verify=on" if cpus > 1 else ""


# Suites whose timing checks only give a strict verdict where guest time
# is not at the mercy of the host: they also boot once under -icount
# (deterministic, instruction-driven time) at one CPU per arch.  On a
# busy host their timing cases SKIP in the ordinary boots.
ICOUNT_SUITES = ("sched_dl", "sched_fair")


# The mutex suites run in whatever locking mode the kernel booted with
# (proxy by default; tests/proxy.c switches modes itself).  They also boot
# once per arch in each other mode, at 4 CPUs (or the only count asked).
LOCKING_SUITES = ("mutex", "ww_mutex", "mutex_stress")
LOCKING_MODES = ("inherit", "none")


def locking_matrix(arches, cpu_counts, suites):
    wanted = [s for s in LOCKING_SUITES if not suites or s in suites]
    n = 4 if 4 in cpu_counts else cpu_counts[-1]
    boots = []
    for arch in arches:
        for mode in LOCKING_MODES if wanted else ():
            boots.append(Boot(arch, n, "kernel",
                              "ktest=%s expect_cpus=%d locking=%s%s"
                              % (",".join(wanted), n, mode, verify_arg(n)),
                              "%s/smp%d-%s" % (arch, n, mode), "test"))
    return boots


# Scenario scripts (docs/scenarios.md): every embedded one
# (tests/scenarios/*.scn, docs/labs/*.scn) with `scenario=all` at 2 and 4
# CPUs (a scenario needing more CPUs than online is a SKIP), and one boot
# per arch reading a script that is not built in from the boot module
# (qemu -initrd: a multiboot module on x86_64, the initrd on riscv64).
# Their KTAP is ktest's shape: one subtest per scenario, one case per
# assertion plus a final one.  `--suites scenarios` asks for only these.
# The scenario=all boots run under -icount: a script's timing (a budget
# that runs out during a compute, a hog that runs meanwhile) is then what
# it says.  In real time a host that stops a vCPU is charged to whoever
# ran (a deadline budget gone in one stall) while compute counts at most
# 100 us of it, and lab2_dl_fair failed so 2 times in 70 loaded boots.
# The module and lab-tool boots stay in real time.
SCENARIO_SUITE = "scenarios"
SCENARIO_CPUS = (2, 4)
SCENARIO_MODULE = "tests/scenarios/module/from_module.scn"
SCENARIO_MODULE_NAME = "from_module"


def scenario_matrix(arches, cpu_counts):
    counts = [n for n in SCENARIO_CPUS if n in cpu_counts] or [cpu_counts[-1]]
    boots = []
    for arch in arches:
        for n in counts:
            b = Boot(arch, n, "kernel",
                     "scenario=all expect_cpus=%d icount=1" % n,
                     "%s/smp%d-scenarios" % (arch, n), "test")
            b.extra = ICOUNT[arch]
            boots.append(b)
        b = Boot(arch, counts[0], "kernel",
                 "scenario=module expect_cpus=%d" % counts[0],
                 "%s/smp%d-scenario-module" % (arch, counts[0]), "test")
        b.extra = ["-initrd", SCENARIO_MODULE]
        b.want_suites = [SCENARIO_MODULE_NAME]
        boots.append(b)
    return boots


# The live check of the lab tools (tools/lab/, docs/lab-tools.md): a
# scenario booted from a boot module with trace=dump, x86_64 through GRUB
# (the script as a multiboot2 module, as `make lab` boots it), riscv64
# through U-Boot (booti with the script as the initrd, as on a board; or
# with QEMU's -initrd, as `make lab` does, where U-Boot is missing).
# Its KTAP is judged like a test boot's; then its trace must convert to
# Perfetto JSON and an SVG timeline that tools/lab/validate.py accepts
# (every begin has its end, timestamps ordered per CPU, one lane per
# CPU).  They are kept next to the log (.json, .svg).
LAB_SCENARIO = "tests/scenarios/xcpu_chain.scn"
LAB_SCENARIO_NAME = "xcpu_chain"
LAB_CPUS = 2


def lab_matrix(arches):
    boots = []
    for arch in arches:
        cmdline = "scenario=module trace=dump expect_cpus=%d" % LAB_CPUS
        if arch == "x86_64":
            b = Boot(arch, LAB_CPUS, "grub", cmdline,
                     "%s/smp%d-lab" % (arch, LAB_CPUS), "lab")
            b.module = LAB_SCENARIO
        elif uboot_available():
            b = Boot(arch, LAB_CPUS, "uboot", cmdline,
                     "%s/smp%d-lab-uboot" % (arch, LAB_CPUS), "lab")
            b.module = LAB_SCENARIO
        else:
            b = Boot(arch, LAB_CPUS, "kernel", cmdline,
                     "%s/smp%d-lab" % (arch, LAB_CPUS), "lab")
            b.extra = ["-initrd", LAB_SCENARIO]
        b.want_suites = [LAB_SCENARIO_NAME]
        boots.append(b)
    return boots


# The DEBUG=1 build (-Og, KESTREL_DEBUG: the checks hot paths keep only
# in debug builds) boots once per arch with the suites of those paths,
# when `--debug-root` says where its images are (`make test` builds them).
DEBUG_SUITES = ("sched_core", "sched_fair", "sched_rt", "sched_dl",
                "sched_invariant", "mutex", "proxy", "proxy_chains",
                "thread", "context", "trace", "mm")
DEBUG_CPUS = 2


def debug_matrix(arches, cpu_counts, suites, root):
    wanted = [s for s in DEBUG_SUITES if not suites or s in suites]
    n = DEBUG_CPUS if DEBUG_CPUS in cpu_counts else cpu_counts[-1]
    boots = []
    for arch in arches if wanted else ():
        b = Boot(arch, n, "kernel", "ktest=%s expect_cpus=%d%s"
                 % (",".join(wanted), n, verify_arg(n)),
                 "%s/smp%d-debug" % (arch, n), "test")
        b.build_root = root
        boots.append(b)
    return boots


def icount_matrix(arches, suites):
    wanted = [s for s in ICOUNT_SUITES if not suites or s in suites]
    boots = []
    for arch in arches:
        if not wanted:
            break
        b = Boot(arch, 1, "kernel", "ktest=%s expect_cpus=1" % ",".join(wanted),
                 "%s/smp1-icount" % arch, "test")
        b.extra = ICOUNT[arch]
        boots.append(b)
    return boots


def crash_matrix(arches, cpu_counts):
    boots = []
    for arch in arches:
        n = CRASH_CPUS if CRASH_CPUS in cpu_counts else max(cpu_counts)
        for scen, (expect, min_cpus, also) in CRASH_EXPECT.items():
            if n < min_cpus:
                continue
            b = Boot(arch, n, "kernel", "crash=%s" % scen,
                     "%s/smp%d-crash-%s" % (arch, n, scen), "crash", expect)
            b.also = also
            boots.append(b)
    return boots


# ---- Running QEMU -------------------------------------------------------


class BootResult:
    def __init__(self, boot):
        self.boot = boot
        self.log = ""
        self.status = None          # QEMU exit status, None on timeout
        self.timed_out = None       # why it was stopped, if it was
        self.error = None           # could not even start
        self.seconds = 0.0


def run_boot(boot, timeout):
    """Run one boot to completion or timeout; keep its log.

    The serial output is read through a pipe, kept in memory for judging
    and copied to the log file as it arrives (so a hung boot's log can be
    watched with tail -f)."""
    res = BootResult(boot)
    start = time.monotonic()
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

        last_output = [time.monotonic()]

        def copy_output():
            for chunk in iter(lambda: proc.stdout.read1(4096), b""):
                chunks.append(chunk)
                last_output[0] = time.monotonic()
                logf.write(chunk)
                logf.flush()

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

# ---- KTAP parsing -----------------------------------------------------

ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
PREFIX_RE = re.compile(r"\[cpu\d+\] ?")
RESULT_RE = re.compile(r"^(\s*)(ok|not ok)\s+(\d+)\s*(.*?)\s*$")
PLAN_RE = re.compile(r"^(\s*)1\.\.(\d+)\s*$")
SUBTEST_RE = re.compile(r"^\s*#\s*Subtest:\s*(\S+)")
PANIC_RE = re.compile(r"PANIC\b.*")


def clean_lines(log):
    """Console text -> list of KTAP-relevant text lines.

    Drops carriage returns and ANSI escapes; strips printk's "[cpuN] "
    prefix, also when console noise precedes it on the same line (the
    text after the last prefix is the kernel's line)."""
    out = []
    for raw in log.replace("\r", "").split("\n"):
        line = ANSI_RE.sub("", raw)
        m = None
        for m in PREFIX_RE.finditer(line):
            pass
        if m:
            line = line[m.end():]
        out.append(line.rstrip())
    return out


class Case:
    def __init__(self, suite, num, name, status, reason="", diags=None,
                 line=""):
        self.suite = suite
        self.num = num
        self.name = name
        self.status = status        # "PASS", "FAIL", "SKIP"
        self.reason = reason
        self.diags = diags or []
        self.line = line            # the result line, "" if none

    def full_name(self):
        return "%s.%s" % (self.suite, self.name)


def split_directive(text):
    """'name # SKIP reason' -> ('name', 'SKIP', 'reason')."""
    if "#" in text:
        name, _, directive = text.partition("#")
        directive = directive.strip()
        word, _, rest = directive.partition(" ")
        return name.strip(), word.upper(), rest.strip()
    return text.strip(), "", ""


def parse_ktap(log):
    """Parse the KTAP output of `ktest=...`.

    Returns (cases, problems): per-case results, and boot-level problems
    (missing plan, missing results, unknown suites) each as a string."""
    cases, problems = [], []
    top_plan = None
    suites_done = []
    suite = None            # name of the suite being read
    suite_plan = None
    suite_cases = []
    diags = []
    seen_header = False

    def close_suite(reason):
        nonlocal suite, suite_plan, suite_cases
        if suite is None:
            return
        if suite_plan is None:
            problems.append("%s: no plan line" % suite)
        else:
            got = {c.num for c in suite_cases}
            for n in range(1, suite_plan + 1):
                if n not in got:
                    cases.append(Case(suite, n, "#%d" % n, "FAIL",
                                      "no result (%s)" % reason))
        suite, suite_plan, suite_cases = None, None, []

    for line in clean_lines(log):
        stripped = line.strip()
        if stripped == "KTAP version 1" and not line.startswith(" "):
            seen_header = True
            continue
        if not seen_header:
            continue
        m = SUBTEST_RE.match(line)
        if m:
            close_suite("suite ended early")
            suite, suite_plan, suite_cases, diags = m.group(1), None, [], []
            continue
        m = PLAN_RE.match(line)
        if m:
            # The first plan inside a suite is the suite's (also when a
            # console lost the indentation); the one before is the top.
            if suite is not None and suite_plan is None:
                suite_plan = int(m.group(2))
            elif suite is None and top_plan is None:
                top_plan = int(m.group(2))
            continue
        m = RESULT_RE.match(line)
        if m:
            indent, ok, num, rest = m.groups()
            name, directive, why = split_directive(rest)
            num = int(num)
            nested = bool(indent) or (suite is not None and name != suite)
            if nested and suite is None:
                problems.append("result outside a suite: %s" % stripped)
            elif nested:
                if directive == "SKIP":
                    st = "SKIP"
                elif ok == "ok" and directive not in ("TIMEOUT", "ERROR"):
                    st = "PASS"
                else:
                    st = "FAIL"
                if st == "SKIP":
                    reason = why
                elif directive in ("TIMEOUT", "ERROR"):
                    reason = directive.lower()
                else:
                    reason = ""
                c = Case(suite, num, name, st, reason, diags, stripped)
                suite_cases.append(c)
                cases.append(c)
                diags = []
            else:
                close_suite("missing")
                suites_done.append(name)
                diags = []
            continue
        if stripped.startswith("#"):
            if stripped.startswith("# unknown suite"):
                problems.append(stripped[2:])
            elif not stripped.startswith("# Totals") and suite is not None:
                d = stripped[1:].strip()
                if not re.match(r"^\S+ took [0-9.]+ ms$", d):
                    diags.append(d)
    if not seen_header:
        problems.append("no KTAP output")
        return cases, problems
    close_suite("crashed or hung inside the suite")
    if top_plan is None:
        problems.append("no top-level plan line")
    elif len(suites_done) < top_plan:
        problems.append("only %d of %d suites finished"
                        % (len(suites_done), top_plan))
    return cases, problems


def find_panic(log):
    for line in clean_lines(log):
        m = PANIC_RE.search(line)
        if m:
            return m.group(0)
    return None

# ---- Judging boots --------------------------------------------------------


class Tally:
    def __init__(self):
        self.passed = self.failed = self.skipped = 0

    def report(self, status, what, reason="", details=()):
        if status == "PASS":
            self.passed += 1
        elif status == "SKIP":
            self.skipped += 1
        else:
            self.failed += 1
        print("%s %s%s" % (status, what, " (%s)" % reason if reason else ""))
        for d in details:
            print("    " + d)


def boot_problem(res):
    """Reason the boot itself went wrong, or None."""
    if res.error:
        return res.error
    if res.timed_out:
        return "timed out: %s" % res.timed_out
    return None


def judge_test(res, tally):
    boot = res.boot
    where = boot.name
    problem = boot_problem(res)
    cases, problems = parse_ktap(res.log) if not res.error else ([], [])
    for c in cases:
        # A tainted case's failures are shown: they were not counted.
        show = c.status == "FAIL" or c.reason.startswith("tainted:")
        tally.report(c.status, "%s %s" % (where, c.full_name()), c.reason,
                     c.diags if show else ())
    if "ktest=all" in boot.cmdline.split():
        ran = sorted({c.suite for c in cases if c.suite in EXPLICIT_SUITES})
        if ran:
            problems.append("explicit-only suite ran in ktest=all: %s"
                            % ", ".join(ran))
    ran = {c.suite for c in cases}
    problems += ["no results of %s" % w for w in boot.want_suites
                 if w not in ran]
    panic = find_panic(res.log)
    if panic:
        problems.append(panic)
    if problem:
        problems.append(problem)
    else:
        code = kernel_exit_code(boot.arch, res.status)
        failed = any(c.status == "FAIL" for c in cases)
        if code is None:
            problems.append("QEMU exited with status %s without the kernel "
                            "powering off" % res.status)
        elif (code == 0) == (failed or bool(problems)):
            problems.append("exit code %d does not match the results" % code)
    if problems:
        tally.report("FAIL", "%s boot" % where, "; ".join(problems),
                     ["log: %s" % boot.log_path()])


def judge_lab(res, tally):
    """A lab boot: its KTAP like a test boot, then its trace through the
    host tools and their validator."""
    judge_test(res, tally)
    if res.error:
        return
    sys.path.insert(0, os.path.join(ROOT, "tools", "lab"))
    import convert
    import ktrace
    what = "%s trace_to_json_and_svg" % res.boot.name
    try:
        tr, jtext, stext, probs = convert.convert_text(
            ktrace.trace_text(res.log), res.boot.name)
    except ktrace.TraceError as e:
        tally.report("FAIL", what, "no usable trace: %s" % e)
        return
    base = res.boot.file_base()
    for ext, text in ((".json", jtext), (".svg", stext)):
        with open(base + ext, "w") as f:
            f.write(text)
    if tr.cpus != res.boot.cpus:
        probs.append("the trace has %d CPUs, the machine %d"
                     % (tr.cpus, res.boot.cpus))
    if probs:
        tally.report("FAIL", what, "%d problems" % len(probs), probs[:10])
    else:
        tally.report("PASS", what, "", ())


def judge_crash(res, tally):
    boot = res.boot
    what = "%s crash.%s" % (boot.name.split("/")[0] + "/smp%d" % boot.cpus,
                            boot.cmdline.split("=", 1)[1])
    problem = boot_problem(res)
    panic = find_panic(res.log) if not res.error else None
    reasons = []
    if problem:
        reasons.append(problem)
    if not panic:
        reasons.append("no PANIC line")
    elif boot.expect and not re.search(boot.expect, panic):
        reasons.append("PANIC line lacks '%s': %s" % (boot.expect, panic))
    for pattern in boot.also:
        if not re.search(pattern, res.log):
            reasons.append("log lacks '%s'" % pattern)
    if not problem:
        code = kernel_exit_code(boot.arch, res.status)
        if code == 0:
            reasons.append("QEMU exit status %d says success" % res.status)
    if reasons:
        tally.report("FAIL", what, "; ".join(reasons),
                     ["log: %s" % boot.log_path()])
    else:
        tally.report("PASS", what)

# ---- The framework's self-test -----------------------------------------------
#
# `ktest=ktest_selftest` runs tests/ktest_selftest.c, whose cases fail,
# skip and hang on purpose.  Each promise of the framework is one check,
# reported as "PASS x86_64/smp2 ktest_selftest.timeout_reported".  The
# table mirrors tests/ktest_selftest.c: change both together.

SELFTEST_SUITE = "ktest_selftest"
SELFTEST_CPUS = 2           # one CPU count per arch, like the crash boots
EXPLICIT_SUITES = (SELFTEST_SUITE,)     # must never run in ktest=all
SELFTEST_AT = r"^tests/ktest_selftest\.c:\d+: "   # failures name file:line

# (check, case, its exact result line, regexes for its diagnostics: each
# must match one, and the file:line ones are all the failures it has).
SELFTEST_CHECKS = [
    ("expect_continues", "expect_failures_continue",
     "not ok 1 expect_failures_continue",
     [SELFTEST_AT + r"expected one == two$",
      SELFTEST_AT + r"expected one == two \(1 vs 2\)$",
      r"^selftest: reached the end with 2 failures$"]),
    ("assert_aborts", "assert_aborts", "not ok 2 assert_aborts",
     [SELFTEST_AT + r"assertion one == two$"]),
    ("skip_reason", "skip_with_reason",
     "ok 3 skip_with_reason # SKIP selftest skip reason", []),
    ("timeout_reported", "hang_times_out",
     "not ok 4 hang_times_out # TIMEOUT",
     [r"^hang_times_out: no result after 300 ms$",
      r"^hang_times_out: still running 300 ms after the timeout: "
      r"hang_times_out, selftest-linger; cases are tainted until they end$"]),
    ("taint_skips_failure", "tainted_failure_is_skipped",
     "ok 5 tainted_failure_is_skipped # SKIP tainted: hang_times_out left "
     "hang_times_out, selftest-linger running",
     [SELFTEST_AT + r"expected one == two$"]),
    ("taint_keeps_pass", "tainted_pass_passes", "ok 6 tainted_pass_passes",
     [r"^selftest: hang_times_out's tasks have ended$"]),
    # The first case after the taint ended: its failure counts again.
    ("helper_assert", "helper_assert_fails_case",
     "not ok 7 helper_assert_fails_case",
     [r"^hang_times_out: its tasks have ended; it taints no more cases$",
      SELFTEST_AT + r"assertion one == two \(1 vs 2\)$",
      r"^selftest: helper exited with code 1$"]),
    ("passes", "passes", "ok 8 passes", []),
]
SELFTEST_END = ["not ok 1 ktest_selftest",
                "# Totals: pass:2 fail:4 skip:2 total:8"]
SELFTEST_MARKER = "selftest: MARKER"    # printed only by code that must not run


def selftest_matrix(arches, cpu_counts):
    """One ktest_selftest boot per arch, at SELFTEST_CPUS if asked for."""
    n = SELFTEST_CPUS if SELFTEST_CPUS in cpu_counts else max(cpu_counts)
    return [Boot(arch, n, "kernel",
                 "ktest=%s expect_cpus=%d" % (SELFTEST_SUITE, n),
                 "%s/smp%d-selftest" % (arch, n), "selftest")
            for arch in arches]


def selftest_case_problem(case, line, diag_res):
    """What is wrong with one self-test case's result, or None."""
    if case is None:
        return "no result line"
    probs = []
    if case.line != line:
        probs.append("result '%s', want '%s'" % (case.line, line))
    for rx in diag_res:
        if not any(re.search(rx, d) for d in case.diags):
            probs.append("no diagnostic matching '%s'" % rx)
    want = sum(1 for rx in diag_res if rx.startswith(SELFTEST_AT))
    got = sum(1 for d in case.diags if re.match(SELFTEST_AT, d))
    if got != want:
        probs.append("%d file:line diagnostics, want %d" % (got, want))
    return "; ".join(probs) or None


def selftest_checks(res):
    """Judge a ktest_selftest boot: [(check, problem or None)]."""
    cases, problems = parse_ktap(res.log) if not res.error else ([], [])
    by_name = {c.name: c for c in cases if c.suite == SELFTEST_SUITE}
    out = [(check, selftest_case_problem(by_name.get(name), line, diags))
           for check, name, line, diags in SELFTEST_CHECKS]

    lines = [l.strip() for l in clean_lines(res.log)]
    ran_on = [l for l in lines if SELFTEST_MARKER in l]
    out.append(("no_code_after_abort",
                "code after KASSERT/KSKIP ran: %s" % ran_on[0]
                if ran_on else None))

    end = list(problems)
    end += ["no '%s' line" % want for want in SELFTEST_END
            if want not in lines]
    panic = find_panic(res.log)
    if panic:
        end.append(panic)
    out.append(("ran_to_end", "; ".join(end) or None))

    code = kernel_exit_code(res.boot.arch, res.status)
    status = boot_problem(res)
    if not status and code is None:
        status = ("QEMU exited with status %s without the kernel powering "
                  "off" % res.status)
    elif not status and code == 0:
        status = "exit code 0 (success) although cases failed"
    out.append(("exit_status_failure", status))
    return out


def judge_selftest(res, tally):
    boot = res.boot
    prefix = "%s/smp%d %s." % (boot.arch, boot.cpus, SELFTEST_SUITE)
    for check, problem in selftest_checks(res):
        if problem:
            tally.report("FAIL", prefix + check, problem,
                         ["log: %s" % boot.log_path()])
        else:
            tally.report("PASS", prefix + check)

# ---- Benchmarks -------------------------------------------------------------

BENCH_RE = re.compile(r"^bench (\S+): (\d+) (\S+) \((.*)\)\s*$")
BENCH_NOTE_RE = re.compile(r"^# bench (\S+): (SKIP.*)$")


def parse_bench(log):
    rows = []
    for line in clean_lines(log):
        m = BENCH_RE.match(line.strip())
        if m:
            rows.append((m.group(1), m.group(2), m.group(3), m.group(4)))
            continue
        m = BENCH_NOTE_RE.match(line.strip())
        if m:
            rows.append((m.group(1), "-", "", m.group(2)))
    return rows


# The bench boots: every bench at BENCH_CPUS; a bench that needs more CPUs
# to show what it measures asks here for extra counts, at which only it
# (and the others asking for that count) runs.
BENCH_CPUS = (1, 2)
BENCH_MORE_CPUS = {"mutex_contended": (4, 8), "invariant_window": (4, 8)}


# Issue 13's targets, judged at 1 CPU: the bound on each row's value (its
# own unit), per arch.  `bench` prints each next to its figure and marks
# the ones missed; they are goals, so a miss does not fail the run.
BENCH_TARGETS = {
    "ctx_switch": {"x86_64": 250, "riscv64": 250},
    "rt_yield": {"x86_64": 200, "riscv64": 200},
    "mutex_pair": {"x86_64": 50, "riscv64": 60},
    "thread_spawn": {"x86_64": 4000, "riscv64": 4000},
    "rt_wakeup_lat_avg": {"x86_64": 600, "riscv64": 600},
    "rt_wakeup_lat_max": {"x86_64": 900, "riscv64": 900},
    "inversion_wait_proxy": {"x86_64": 103000, "riscv64": 103000},
    "inversion_wait_inherit": {"x86_64": 103000, "riscv64": 103000},
    "trace_event": {"x86_64": 25, "riscv64": 25},
}


def bench_target(arch, cpus, name, value):
    """'<= N' or '<= N MISSED' for a row with a target, else ''."""
    bound = BENCH_TARGETS.get(name, {}).get(arch)
    if bound is None or cpus != 1 or not value.isdigit():
        return ""
    return "<= %d%s" % (bound, "" if int(value) <= bound else " MISSED")


def bench_boots(arches, cpus, benches):
    """[(arch, cpus, "bench=..." names)] for `runner.py bench`."""
    asked = [b for b in (benches or "").split(",") if b]
    plan = []
    if cpus:
        plan.append((cpus, ",".join(asked) or "all"))
    else:
        for n in BENCH_CPUS:
            plan.append((n, ",".join(asked) or "all"))
        extra = sorted({n for c in BENCH_MORE_CPUS.values() for n in c})
        for n in extra:
            names = [b for b, c in sorted(BENCH_MORE_CPUS.items())
                     if n in c and (not asked or b in asked)]
            if names:
                plan.append((n, ",".join(names)))
    return [(arch, n, names) for arch in arches for n, names in plan]


def bench_boot_problem(res, found, missing):
    """What went wrong with bench/profile boot @res, or None: a hang, a
    panic, an exit status other than success, or nothing @found (then
    @missing says what was expected)."""
    problem = boot_problem(res) or find_panic(res.log)
    if not problem and kernel_exit_code(res.boot.arch, res.status) != 0:
        problem = "exit status %s" % res.status
    if not found and not problem:
        problem = missing
    return problem


def bench_main(args):
    arches = [args.arch] if args.arch else list(ARCHES)
    boots = []
    for arch, n, names in bench_boots(arches, args.cpus, args.benches):
        b = Boot(arch, n, "kernel", "bench=%s icount=1 trace=off" % names,
                 "%s/smp%d-bench" % (arch, n), "bench")
        b.extra = ICOUNT[arch]
        boots.append(b)
    # Under -icount one host thread runs every vCPU: the riscv64 8-CPU
    # mutex_contended boot takes about 50 s alone, minutes on a busy host.
    timeout = max(args.timeout or 0, BENCH_TIMEOUT)
    results = run_all(boots, timeout, args.jobs)
    failed = 0
    targets = missed = 0
    print("%-8s %4s  %-14s %12s  %-12s %-16s %s" % (
        "arch", "cpus", "bench", "value", "unit", "target", "detail"))
    for res in results:
        b = res.boot
        rows = parse_bench(res.log)
        problem = bench_boot_problem(res, rows, "no bench lines")
        for r in rows:
            target = bench_target(b.arch, b.cpus, r[0], r[1])
            targets += target != ""
            missed += target.endswith("MISSED")
            print("%-8s %4d  %-14s %12s  %-12s %-16s %s" % (
                b.arch, b.cpus, r[0], r[1], r[2], target, r[3]))
        if problem:
            failed += 1
            print("FAIL %s: %s (log: %s)" % (b.name, problem, b.log_path()))
    if targets:
        print("targets (issue 13, 1 CPU): %d of %d met, %d MISSED"
              % (targets - missed, targets, missed))
    return 1 if failed else 0

# ---- Profiles ---------------------------------------------------------------

# The toolchain's nm for each arch (arch/*/build.mk CROSS_COMPILE).
NM = {"x86_64": "nm", "riscv64": "riscv64-unknown-elf-nm"}
PROFILE_PERIOD_US = 20          # kernel/profile.h: 5 us .. 100 ms


def profile_main(args):
    """Run --benches under the kernel's profiler (profile=<us>, -icount) and
    print each one's flat profile; folded stacks go to build/profile/."""
    import profile_report
    if not args.benches:
        print("runner.py profile: name the benchmarks (--benches a,b)",
              file=sys.stderr)
        return 2
    arches = [args.arch] if args.arch else list(ARCHES)
    n = args.cpus or 1
    boots = []
    for arch in arches:
        b = Boot(arch, n, "kernel", "bench=%s icount=1 trace=off profile=%d"
                 % (args.benches, args.period), "%s/smp%d-profile" % (arch, n),
                 "bench")
        b.extra = ICOUNT[arch]
        boots.append(b)
    results = run_all(boots, max(args.timeout or 0, BENCH_TIMEOUT), args.jobs)
    failed = 0
    for res in results:
        b = res.boot
        profiles = profile_report.parse(res.log)
        problem = bench_boot_problem(res, profiles, "no profile lines")
        if profiles:
            syms = profile_report.Symbols(
                os.path.join(BUILD_ROOT, b.arch, "kernel.elf"), NM[b.arch])
            outdir = os.path.join(BUILD_ROOT, "profile",
                                  "%s-smp%d" % (b.arch, b.cpus))
            os.makedirs(outdir, exist_ok=True)
            for r in parse_bench(res.log):
                print("bench %s: %s %s (%s; profiled: the sampling adds its "
                      "own cost)" % r)
            for prof in profiles:
                chains = profile_report.report(
                    prof, syms, args.top,
                    title="%s %s" % (b.name.rsplit("-", 1)[0], prof.bench))
                path = os.path.join(outdir, prof.bench + ".folded")
                with open(path, "w") as f:
                    f.write("\n".join(profile_report.folded(
                        chains, prof.bench)) + "\n")
                print("  folded stacks: %s\n" % path)
        if problem:
            failed += 1
            print("FAIL %s: %s (log: %s)" % (b.name, problem, b.log_path()))
    return 1 if failed else 0

# ---- Main -------------------------------------------------------------------


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
                " TIMEOUT" if res.timed_out else ""), flush=True)
            results.append(res)
    return results


def test_main(args):
    arches = [args.arch] if args.arch else list(ARCHES)
    counts = [args.cpus] if args.cpus else list(CPU_COUNTS)
    asked = [s for s in (args.suites or "").split(",") if s]
    # The self-test is judged by its own table, not as a suite that must
    # pass: --suites ktest_selftest means its selftest boots.
    suites = [s for s in asked if s not in (SELFTEST_SUITE, SCENARIO_SUITE)]
    boots = []
    if suites or not asked:
        boots += test_matrix(arches, counts, suites)
        if not args.cpus or args.cpus == 1:
            boots += icount_matrix(arches, suites)
        boots += locking_matrix(arches, counts, suites)
        if args.debug_root:
            boots += debug_matrix(arches, counts, suites, args.debug_root)
    if not asked or SCENARIO_SUITE in asked:
        boots += scenario_matrix(arches, counts)
        if not args.cpus or args.cpus == LAB_CPUS:
            boots += lab_matrix(arches)
    if not asked and not args.no_crash:
        boots += crash_matrix(arches, counts)
    if (not asked or SELFTEST_SUITE in asked) and not args.no_selftest:
        boots += selftest_matrix(arches, counts)
    results = run_all(boots, args.timeout, args.jobs)
    tally = Tally()
    judges = {"test": judge_test, "crash": judge_crash,
              "selftest": judge_selftest, "lab": judge_lab}
    for res in results:
        judges[res.boot.kind](res, tally)
    line = "%d passed, %d failed" % (tally.passed, tally.failed)
    if tally.skipped:
        line += ", %d skipped" % tally.skipped
    print(line)
    return 1 if tally.failed else 0


def main(argv=None):
    global BUILD_ROOT, LOG_DIR
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=("test", "bench", "profile"))
    ap.add_argument("--arch", choices=ARCHES)
    ap.add_argument("--cpus", type=int)
    ap.add_argument("--suites", help="comma-separated suites (default all)")
    ap.add_argument("--benches", help="comma-separated benchmarks")
    ap.add_argument("--period", type=int, default=PROFILE_PERIOD_US,
                    help="profile: sampling period, us (default %d)"
                    % PROFILE_PERIOD_US)
    ap.add_argument("--top", type=int, default=25,
                    help="profile: functions listed (default 25)")
    ap.add_argument("--timeout", type=float,
                    help="seconds a boot may print nothing (default %d, "
                    "plus %d per CPU after the first; one still printing "
                    "stops at %d times that)" % (
                        DEFAULT_TIMEOUT, TIMEOUT_PER_CPU, HARD_TIMEOUT_FACTOR))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help="QEMUs at once (default: host CPUs)")
    ap.add_argument("--no-crash", action="store_true",
                    help="skip the crash scenarios")
    ap.add_argument("--no-selftest", action="store_true",
                    help="skip the test framework's self-test boots")
    ap.add_argument("--build-root", default="build",
                    help="where the images are: DIR/<arch>/ (default build)")
    ap.add_argument("--debug-root",
                    help="test: also boot the DEBUG=1 images in DIR/<arch>/ "
                    "with DEBUG_SUITES")
    ap.add_argument("--log-dir", default=LOG_DIR,
                    help="serial logs, ISOs, U-Boot dirs (default %s)"
                    % LOG_DIR)
    args = ap.parse_args(argv)
    BUILD_ROOT = args.build_root
    LOG_DIR = args.log_dir
    if args.cpus is not None and not 1 <= args.cpus <= 64:
        ap.error("--cpus must be 1..64")
    os.chdir(ROOT)
    if args.mode == "test":
        return test_main(args)
    if args.mode == "profile":
        return profile_main(args)
    return bench_main(args)


if __name__ == "__main__":
    sys.exit(main())
