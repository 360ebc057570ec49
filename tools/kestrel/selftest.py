"""selftest.py - judge the framework's self-test boots.

`ktest=ktest_selftest` runs tests/ktest_selftest.c, whose cases fail,
skip and hang on purpose.  Each promise of the framework is one check,
reported as "PASS x86_64/smp2 ktest_selftest.timeout_reported".  The
table mirrors tests/ktest_selftest.c: change both together.
"""

import re

from . import boot, ktap
from .judge import boot_problem, no_exit_code
from .matrix import SELFTEST_SUITE

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
    cases, problems = ktap.parse_ktap(res.log) if not res.error else ([], [])
    by_name = {c.name: c for c in cases if c.suite == SELFTEST_SUITE}
    out = [(check, selftest_case_problem(by_name.get(name), line, diags))
           for check, name, line, diags in SELFTEST_CHECKS]

    lines = [l.strip() for l in ktap.clean_lines(res.log)]
    ran_on = [l for l in lines if SELFTEST_MARKER in l]
    out.append(("no_code_after_abort",
                "code after KASSERT/KSKIP ran: %s" % ran_on[0]
                if ran_on else None))

    end = list(problems)
    end += ["no '%s' line" % want for want in SELFTEST_END
            if want not in lines]
    panic = ktap.find_panic(res.log)
    if panic:
        end.append(panic)
    out.append(("ran_to_end", "; ".join(end) or None))

    code = boot.exit_code(res)
    status = boot_problem(res)
    if not status and code is None:
        status = no_exit_code(res)
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
