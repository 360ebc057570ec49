"""matrix.py - which boots make up `runner.py test` (`make test`).

The test boots of every arch and CPU count (one through GRUB, one through
U-Boot), x86_64 through UEFI (OVMF) once, the sifive_u and spike boards
and a PC without an exit device, the mutex suites in the other locking
modes, the -icount boots of the timing suites, the DEBUG=1 build, the
scenario scripts, the lab tools' live check, the crash scenarios and the
framework's self-test;
test_boots() picks those that --suites, --cpus and the rest ask for.
How each boot is judged: judge.py and selftest.py.
"""

from . import qemu
from .boot import Boot

ARCHES = ("x86_64", "riscv64")
CPU_COUNTS = (1, 2, 4, 8)

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
            if n == special and arch == "riscv64" and qemu.uboot_available():
                method = "uboot"
            name = "%s/smp%d%s" % (arch, n,
                                   "" if method == "kernel" else "-" + method)
            boots.append(Boot(arch, n, method,
                              "ktest=%s expect_cpus=%d%s"
                              % (names, n, verify_arg(n)), name, "test"))
    return boots


# The PC's other firmware: the same GRUB ISO booted through UEFI (OVMF,
# GRUB's EFI image, a GOP framebuffer), with every suite asked for, at
# OVMF_CPUS (or the only count asked for).  A SKIP, saying why, where
# OVMF is not installed.  The firmware adds about 5 s to the boot.
OVMF_CPUS = 2


def ovmf_matrix(arches, cpu_counts, suites):
    if "x86_64" not in arches:
        return []
    n = OVMF_CPUS if OVMF_CPUS in cpu_counts else cpu_counts[-1]
    b = Boot("x86_64", n, "ovmf", "ktest=%s expect_cpus=%d%s"
             % (",".join(suites) if suites else "all", n, verify_arg(n)),
             "x86_64/smp%d-ovmf" % n, "test")
    b.skip = qemu.ovmf_missing()
    return [b]


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
            b.extra = qemu.ICOUNT[arch]
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
        elif qemu.uboot_available():
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
        b.extra = qemu.ICOUNT[arch]
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


# Boards other than virt that QEMU models (docs/boards.md): riscv64 on
# sifive_u (HiFive Unleashed: the SiFive UART, 1 MHz timebase, a monitor
# hart to leave out) and spike (HTIF console, 10 MHz), each with a few
# suites of the scheduler and locking that finish in seconds.  Neither
# firmware can power off: the kernel ends with the halt line, which the
# runner takes as the end (boot.py).  On spike, OpenSBI's SRST call never
# returns, so that boot says poweroff=halt (kernel/power.c).  They run in
# a full `runner.py test` (no --suites, no --cpus) or with `--suites
# boards`; at their own CPU counts.  With them, x86_64 as a PC without
# QEMU's exit device (x86_64/smp2-noexit, two quick suites): the same
# halt line, from the other arch's arch_poweroff().
BOARD_SUITE = "boards"
BOARD_SUITES = ("smp", "spinlock", "timer", "sched_core", "sched_rt", "mutex",
                "semaphore", "context")
BOARDS = (("sifive_u", 4, ""), ("spike", 2, " poweroff=halt"))
NOEXIT_SUITES = ("smp", "spinlock")
NOEXIT_CPUS = 2


def board_matrix(arches):
    boots = []
    for method, n, extra in BOARDS if "riscv64" in arches else ():
        boots.append(Boot("riscv64", n, method, "ktest=%s expect_cpus=%d%s%s"
                          % (",".join(BOARD_SUITES), n, verify_arg(n),
                             extra),
                          "riscv64/%s" % method, "test"))
    if "x86_64" in arches:
        n = NOEXIT_CPUS
        boots.append(Boot("x86_64", n, "noexit", "ktest=%s expect_cpus=%d%s"
                          % (",".join(NOEXIT_SUITES), n, verify_arg(n)),
                          "x86_64/smp%d-noexit" % n, "test"))
    return boots


# The framework's self-test (tests/ktest_selftest.c, explicit-only: it
# fails on purpose) boots once per arch; selftest.py judges it.
SELFTEST_SUITE = "ktest_selftest"
SELFTEST_CPUS = 2           # one CPU count per arch, like the crash boots
EXPLICIT_SUITES = (SELFTEST_SUITE,)     # must never run in ktest=all


def selftest_matrix(arches, cpu_counts):
    """One ktest_selftest boot per arch, at SELFTEST_CPUS if asked for."""
    n = SELFTEST_CPUS if SELFTEST_CPUS in cpu_counts else max(cpu_counts)
    return [Boot(arch, n, "kernel",
                 "ktest=%s expect_cpus=%d" % (SELFTEST_SUITE, n),
                 "%s/smp%d-selftest" % (arch, n), "selftest")
            for arch in arches]


def test_boots(arch=None, cpus=None, suites=None, no_crash=False,
               no_selftest=False, debug_root=None):
    """The boots of `runner.py test` with these options (None: every
    arch, every CPU count, every suite)."""
    arches = [arch] if arch else list(ARCHES)
    counts = [cpus] if cpus else list(CPU_COUNTS)
    asked = [s for s in (suites or "").split(",") if s]
    # The self-test is judged by its own table, not as a suite that must
    # pass: --suites ktest_selftest means its selftest boots.
    suites = [s for s in asked
              if s not in (SELFTEST_SUITE, SCENARIO_SUITE, BOARD_SUITE)]
    boots = []
    if suites or not asked:
        boots += test_matrix(arches, counts, suites)
        boots += ovmf_matrix(arches, counts, suites)
        if not cpus or cpus == 1:
            boots += icount_matrix(arches, suites)
        boots += locking_matrix(arches, counts, suites)
        if debug_root:
            boots += debug_matrix(arches, counts, suites, debug_root)
    if not asked or SCENARIO_SUITE in asked:
        boots += scenario_matrix(arches, counts)
        if not cpus or cpus == LAB_CPUS:
            boots += lab_matrix(arches)
    if (not asked and not cpus) or BOARD_SUITE in asked:
        boots += board_matrix(arches)
    if not asked and not no_crash:
        boots += crash_matrix(arches, counts)
    if (not asked or SELFTEST_SUITE in asked) and not no_selftest:
        boots += selftest_matrix(arches, counts)
    return boots
