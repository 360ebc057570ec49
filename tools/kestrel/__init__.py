"""kestrel - the host side of Kestrel's tests: boot the kernel under QEMU,
judge what it prints.  tools/runner.py is its command line.

    qemu.py      every QEMU command line (test boots, GRUB ISO, U-Boot,
                 -icount, `make run` / `make debug`) and QEMU's exit status
    boot.py      run boots unattended: logs, timeouts, hang dumps
    matrix.py    which boots make up `make test`
    ktap.py      KTAP parsing
    judge.py     verdicts on test, crash and lab boots; the tally
    selftest.py  the framework's self-test, check by check
    bench.py     `make bench` and `make profile`
    cli.py       runner.py's subcommands and options

Python 3 standard library only.  tools/ is the import root: runner.py
lives there, so `kestrel`, `lab` (tools/lab/) and `profile_report` import
as top-level modules without touching sys.path.
"""

import os

# The repository: QEMU and the image scripts run here.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
