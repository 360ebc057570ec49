"""judge.py - the verdicts on a test, crash or lab boot: one line per
result ("PASS x86_64/smp4 spinlock.trylock_same_cpu"), counted in a
Tally.  A boot that went wrong as a whole (a timeout, a PANIC, missing
results, an exit status that does not match them) is a failure of its
own ("FAIL x86_64/smp8 boot (...)").  The self-test's boots: selftest.py.
"""

import re

from lab import convert, ktrace

from . import boot as bootmod, ktap
from .matrix import EXPLICIT_SUITES


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


def no_exit_code(res):
    """Why boot @res has no exit code (boot.exit_code() is None)."""
    if res.halted:
        return "halted without a 'no power-off (exit code N)' line"
    return ("QEMU exited with status %s without the kernel powering off"
            % res.status)


def judge_test(res, tally):
    boot = res.boot
    where = boot.name
    if res.skipped:
        tally.report("SKIP", "%s boot" % where, res.skipped)
        return
    problem = boot_problem(res)
    cases, problems = ktap.parse_ktap(res.log) if not res.error else ([], [])
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
    panic = ktap.find_panic(res.log)
    if panic:
        problems.append(panic)
    if problem:
        problems.append(problem)
    else:
        code = bootmod.exit_code(res)
        failed = any(c.status == "FAIL" for c in cases)
        if code is None:
            problems.append(no_exit_code(res))
        elif (code == 0) == (failed or bool(problems)):
            problems.append("exit code %d does not match the results" % code)
    if problems:
        tally.report("FAIL", "%s boot" % where, "; ".join(problems),
                     ["log: %s" % boot.log_path()])


def judge_lab(res, tally):
    """A lab boot: its KTAP like a test boot, then its trace through the
    host tools and their validator."""
    judge_test(res, tally)
    if res.error or res.skipped:
        return
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
    panic = ktap.find_panic(res.log) if not res.error else None
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
        code = bootmod.exit_code(res)
        if code == 0:
            reasons.append("exit code 0 (QEMU status %s) says success"
                           % res.status)
    if reasons:
        tally.report("FAIL", what, "; ".join(reasons),
                     ["log: %s" % boot.log_path()])
    else:
        tally.report("PASS", what)
