"""cli.py - the command line of tools/runner.py: its subcommands and
options (runner.py's docstring says what each does)."""

import argparse
import os
import sys

from . import ROOT, boot, judge, matrix, qemu, selftest
from .bench import PROFILE_PERIOD_US, bench_main, profile_main

MODES = ("test", "bench", "profile", "run")
RUN_ARCH, RUN_CPUS = "x86_64", 4        # the Makefile's ARCH and CPUS


def test_main(args):
    boots = matrix.test_boots(args.arch, args.cpus, args.suites,
                              args.no_crash, args.no_selftest,
                              args.debug_root)
    results = boot.run_all(boots, args.timeout, args.jobs)
    tally = judge.Tally()
    judges = {"test": judge.judge_test, "crash": judge.judge_crash,
              "selftest": selftest.judge_selftest, "lab": judge.judge_lab}
    for res in results:
        judges[res.boot.kind](res, tally)
    line = "%d passed, %d failed" % (tally.passed, tally.failed)
    if tally.skipped:
        line += ", %d skipped" % tally.skipped
    print(line)
    return 1 if tally.failed else 0


def lab_main(argv):
    """`runner.py lab ...`: the lab tool (tools/lab/lab.py), its own
    options."""
    from lab import lab
    return lab.main(argv, prog="runner.py lab")


def handout_cli(argv):
    """`runner.py handout N [--out DIR]` (make handout LAB=n)."""
    from .handout import handout_main
    ap = argparse.ArgumentParser(
        prog="runner.py handout",
        description="Write the student tree of programming lab N: its "
        "solution regions replaced by stubs (docs/labs/README.md).")
    ap.add_argument("lab", type=int)
    ap.add_argument("--out", help="where (default build/handout/labN)")
    args = ap.parse_args(argv)
    return handout_main(args.lab, args.out)


def grade_cli(argv):
    """`runner.py grade N [...]` (make grade LAB=n)."""
    from .grade import grade_main
    return grade_main(argv)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["lab"]:
        return lab_main(argv[1:])
    if argv[:1] == ["handout"]:
        return handout_cli(argv[1:])
    if argv[:1] == ["grade"]:
        return grade_cli(argv[1:])
    ap = argparse.ArgumentParser(
        prog="runner.py",
        description="Boot Kestrel under QEMU and judge what it prints.",
        epilog="runner.py lab ...: the lab tool (make lab); runner.py lab "
        "-h lists its options.")
    ap.add_argument("mode", choices=MODES)
    ap.add_argument("--arch", choices=matrix.ARCHES)
    ap.add_argument("--cpus", type=int)
    ap.add_argument("--suites", help="comma-separated suites (default all; "
                    "'scenarios', 'boards' and 'ktest_selftest' ask for those "
                    "boots only)")
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
                        boot.DEFAULT_TIMEOUT, boot.TIMEOUT_PER_CPU,
                        boot.HARD_TIMEOUT_FACTOR))
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
    ap.add_argument("--gdb", action="store_true",
                    help="run: start halted, gdb stub on :%d (make debug)"
                    % qemu.GDB_PORT)
    ap.add_argument("--screen", action="store_true",
                    help="run: QEMU's window shows the screen console "
                    "(make run SCREEN=1)")
    ap.add_argument("--uefi", action="store_true",
                    help="run, x86_64: boot the ISO through UEFI (OVMF; "
                    "make run UEFI=1)")
    ap.add_argument("--log-dir", default=boot.LOG_DIR,
                    help="serial logs, ISOs, U-Boot dirs (default %s)"
                    % boot.LOG_DIR)
    args = ap.parse_args(argv)
    boot.BUILD_ROOT = args.build_root
    boot.LOG_DIR = args.log_dir
    if args.cpus is not None and not 1 <= args.cpus <= 64:
        ap.error("--cpus must be 1..64")
    os.chdir(ROOT)
    if args.mode == "test":
        return test_main(args)
    if args.mode == "profile":
        return profile_main(args)
    if args.mode == "run":
        return qemu.run_interactive(args.arch or RUN_ARCH,
                                    args.cpus or RUN_CPUS, args.build_root,
                                    args.gdb, args.screen, args.uefi)
    return bench_main(args)
