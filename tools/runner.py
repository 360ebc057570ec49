#!/usr/bin/env python3
"""runner.py - boot Kestrel under QEMU and judge what it prints.

    runner.py test  [--arch A] [--cpus N] [--suites a,b] [--timeout S]
                    [--jobs J] [--no-crash] [--no-selftest]
                    [--build-root D] [--debug-root D] [--log-dir D]
    runner.py bench [--arch A] [--cpus N] [--benches x,y] [--timeout S]
    runner.py profile --benches x,y [--arch A] [--cpus N] [--period US]
                    [--top K]
    runner.py run   [--arch A] [--cpus N] [--gdb] [--build-root D]
    runner.py lab SCENARIO | --check SCENARIO | --convert FILE  [...]

`test` boots every configuration of the matrix (x86_64 and riscv64 at 1, 2,
4 and 8 CPUs; one x86_64 configuration through the GRUB ISO, one riscv64
configuration through U-Boot, the others through QEMU's -kernel) with
`ktest=... expect_cpus=N` (plus the mutex suites once per arch in the
locking modes inherit and none, and sched_dl and sched_fair once under
-icount), parses the KTAP output, then boots the crash scenarios
(crash=NAME) and checks that each ends in the expected PANIC, and boots the framework's self-test (ktest=ktest_selftest, which fails on
purpose) and checks every one of its results against SELFTEST_CHECKS.
It prints one line per result ("PASS x86_64/smp4 spinlock.trylock_same_cpu")
and a last line "N passed, N failed, N skipped"; exit status 1 on any
failure.  Every boot's serial log is kept in build/test-logs/.

`bench` prints the benchmarks' figures under `qemu -icount`, `profile`
a benchmark's hottest functions (tools/kestrel/bench.py says how).

`run` is `make run`: the machine on this terminal, the serial console
its stdin and stdout (Ctrl-A x quits QEMU), the kernel's shell; with
--gdb (`make debug`) halted at the first instruction with a gdb stub on
localhost:1234.  Exit status 0 when the kernel powered off cleanly or
QEMU was quit, also where QEMU reports a clean poweroff as status 1
(x86_64).  Its QEMU command line is printed first and comes from the
same module as every test boot's (tools/kestrel/qemu.py).

`lab` is `make lab`: a scenario booted, its trace drawn (tools/lab/lab.py,
docs/lab-tools.md).

The code is the kestrel package beside this file (tools/kestrel/: one
module per concern, listed in its __init__.py) and tools/lab/.  Python 3
standard library only.
"""

import sys

from kestrel import cli

if __name__ == "__main__":
    sys.exit(cli.main())
