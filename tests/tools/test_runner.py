#!/usr/bin/env python3
"""test_runner.py - unit tests of the runner (tools/runner.py, the kestrel
package in tools/kestrel/): its KTAP parsing, judging, boot matrix and
QEMU command lines, and of tools/profile_report.py.

    python3 tests/tools/test_runner.py
"""

import contextlib
import io
import os
import re
import sys
import unittest

# The code under test: tools/ is the import root of the host tools.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tools"))
import profile_report  # noqa: E402
from kestrel import (bench, boot, judge, ktap, matrix, qemu,  # noqa: E402
                     selftest)

GOOD = """\
OpenSBI v1.1
[cpu0] kestrel 0.1 booting
[cpu0] KTAP version 1
[cpu0] 1..2
[cpu0]     KTAP version 1
[cpu0]     # Subtest: spinlock
[cpu0]     1..3
[cpu2] some unrelated line from another CPU
[cpu0]     # counter_exact_all_cpus took 120.001 ms
[cpu0]     ok 1 counter_exact_all_cpus
[cpu1]     ok 2 trylock_same_cpu
[cpu0]     ok 3 trylock_other_cpu # SKIP needs >= 2 CPUs
[cpu0] ok 1 spinlock
[cpu0]     KTAP version 1
[cpu0]     # Subtest: mm
[cpu0]     1..1
[cpu0]     ok 1 heap_random_stress
[cpu0] ok 2 mm
[cpu0] # Totals: pass:3 fail:0 skip:1 total:4
"""

FAILING = """\
[cpu0] KTAP version 1
[cpu0] 1..1
[cpu0]     KTAP version 1
[cpu0]     # Subtest: timer
[cpu0]     1..2
[cpu3]     # tests/timer.c:80: cpu3: firing #2 was timer 5, want 2
[cpu0]     # oneshot_fire_in_deadline_order took 70.000 ms
[cpu0]     not ok 1 oneshot_fire_in_deadline_order
[cpu0]     # sleep_never_returns_early: no result after 30000 ms
[cpu0]     # sleep_never_returns_early: its tasks ended within 3000 ms of the timeout
[cpu0]     not ok 2 sleep_never_returns_early # TIMEOUT
[cpu0] not ok 1 timer
"""

# A case timed out leaving its thread running: the next one failed
# while it ran, so it is a SKIP "tainted", not a second failure.
TAINTED = """\
[cpu0] KTAP version 1
[cpu0] 1..1
[cpu0]     KTAP version 1
[cpu0]     # Subtest: mm
[cpu0]     1..2
[cpu0]     # heap_exhaustion_returns_null: no result after 10000 ms
[cpu0]     # heap_exhaustion_returns_null: still running 3000 ms after the \
timeout: heap_exhaustion_returns_null; cases are tainted until they end
[cpu0]     not ok 1 heap_exhaustion_returns_null # TIMEOUT
[cpu1]     # tests/mm.c:40: expected p != NULL
[cpu0]     # heap_random_stress took 3.000 ms
[cpu0]     ok 2 heap_random_stress # SKIP tainted: heap_exhaustion_returns_null \
left heap_exhaustion_returns_null running
[cpu0] not ok 1 mm
[cpu0] # Totals: pass:0 fail:1 skip:1 total:2
"""

CRASHED = """\
[cpu0] KTAP version 1\r
[cpu0] 1..2\r
[cpu0]     KTAP version 1\r
[cpu0]     # Subtest: thread\r
[cpu0]     1..3\r
[cpu0]     ok 1 runs_on_requested_cpu\r
[cpu1] PANIC at kernel/sched/core.c:120 on cpu1 (task thread-many): BUG_ON(x)\r
[cpu1]   [<ffffffff80001234>]\r
"""

NOISY = (
    "\x1b[0m\x1b[2J[cpu0] KTAP version 1\n"
    "[cpu0] 1..1\n"
    "garbage without newline[cpu0]     KTAP version 1\n"
    "[cpu0]     # Subtest: smp\n"
    "[cpu0]     1..1\n"
    "[cpu0]     ok 1 cpu_count_matches_qemu\n"
    "[cpu0] ok 1 smp\n")

NO_INDENT = """\
KTAP version 1
1..1
KTAP version 1
# Subtest: context
1..2
ok 1 callee_saved_across_yield
not ok 2 callee_saved_across_sleep
not ok 1 context
"""


class ParseTests(unittest.TestCase):
    def test_good_log(self):
        cases, problems = ktap.parse_ktap(GOOD)
        self.assertEqual(problems, [])
        self.assertEqual([(c.full_name(), c.status) for c in cases], [
            ("spinlock.counter_exact_all_cpus", "PASS"),
            ("spinlock.trylock_same_cpu", "PASS"),
            ("spinlock.trylock_other_cpu", "SKIP"),
            ("mm.heap_random_stress", "PASS")])
        self.assertEqual(cases[2].reason, "needs >= 2 CPUs")

    def test_failures_keep_diagnostics_and_timeout(self):
        cases, problems = ktap.parse_ktap(FAILING)
        self.assertEqual(problems, [])
        self.assertEqual([c.status for c in cases], ["FAIL", "FAIL"])
        self.assertIn("tests/timer.c:80: cpu3: firing #2 was timer 5, want 2",
                      cases[0].diags)
        # The elapsed-time diagnostic is not a failure reason.
        self.assertFalse(any("took" in d for d in cases[0].diags))
        self.assertEqual(cases[1].reason, "timeout")

    def test_tainted_case_is_a_skip(self):
        cases, problems = ktap.parse_ktap(TAINTED)
        self.assertEqual(problems, [])
        self.assertEqual([(c.name, c.status) for c in cases], [
            ("heap_exhaustion_returns_null", "FAIL"),
            ("heap_random_stress", "SKIP")])
        self.assertEqual(cases[1].reason, "tainted: heap_exhaustion_returns_"
                         "null left heap_exhaustion_returns_null running")
        self.assertEqual(cases[1].diags, ["tests/mm.c:40: expected p != NULL"])

    def test_crash_gives_missing_results(self):
        cases, problems = ktap.parse_ktap(CRASHED)
        self.assertEqual([(c.num, c.status) for c in cases],
                         [(1, "PASS"), (2, "FAIL"), (3, "FAIL")])
        self.assertIn("no result", cases[1].reason)
        self.assertTrue(any("suites finished" in p for p in problems))
        self.assertIn("thread-many", ktap.find_panic(CRASHED))

    def test_noise_and_escapes(self):
        cases, problems = ktap.parse_ktap(NOISY)
        self.assertEqual(problems, [])
        self.assertEqual([(c.full_name(), c.status) for c in cases],
                         [("smp.cpu_count_matches_qemu", "PASS")])

    def test_without_indentation(self):
        cases, problems = ktap.parse_ktap(NO_INDENT)
        self.assertEqual(problems, [])
        self.assertEqual([(c.full_name(), c.status) for c in cases], [
            ("context.callee_saved_across_yield", "PASS"),
            ("context.callee_saved_across_sleep", "FAIL")])

    def test_no_output(self):
        cases, problems = ktap.parse_ktap("OpenSBI v1.1\nhang\n")
        self.assertEqual(cases, [])
        self.assertEqual(problems, ["no KTAP output"])

    def test_unknown_suite(self):
        log = "[cpu0] KTAP version 1\n[cpu0] 1..0\n[cpu0] # unknown suite 'foo'\n"
        cases, problems = ktap.parse_ktap(log)
        self.assertEqual(problems, ["unknown suite 'foo'"])

    def test_truncated_plan(self):
        log = GOOD.split("[cpu0] ok 2 mm")[0]
        cases, problems = ktap.parse_ktap(log)
        self.assertTrue(any("1 of 2 suites" in p for p in problems))


class ExitStatusTests(unittest.TestCase):
    def test_x86_mapping(self):
        self.assertEqual(qemu.kernel_exit_code("x86_64", 1), 0)
        self.assertEqual(qemu.kernel_exit_code("x86_64", 3), 1)
        self.assertIsNone(qemu.kernel_exit_code("x86_64", 0))
        self.assertIsNone(qemu.kernel_exit_code("x86_64", None))

    def test_riscv_mapping(self):
        self.assertEqual(qemu.kernel_exit_code("riscv64", 0), 0)
        self.assertEqual(qemu.kernel_exit_code("riscv64", 1), 1)


def fake_result(arch, kind, log, status, cmdline="ktest=all", expect=None):
    b = boot.Boot(arch, 2, "kernel", cmdline, "%s/smp2" % arch, kind,
                  expect)
    res = boot.BootResult(b)
    res.log = log
    res.status = status
    return res


def judged(fn, res):
    tally = judge.Tally()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        fn(res, tally)
    return tally, out.getvalue()


class JudgeTests(unittest.TestCase):
    def test_pass_with_success_status(self):
        tally, out = judged(judge.judge_test,
                            fake_result("x86_64", "test", GOOD, 1))
        self.assertEqual((tally.passed, tally.failed, tally.skipped),
                         (3, 0, 1))
        self.assertIn("PASS x86_64/smp2 spinlock.trylock_same_cpu", out)
        self.assertIn("SKIP x86_64/smp2 spinlock.trylock_other_cpu "
                      "(needs >= 2 CPUs)", out)

    def test_tainted_skip_shows_its_failures(self):
        tally, out = judged(judge.judge_test,
                            fake_result("x86_64", "test", TAINTED, 3))
        self.assertEqual((tally.passed, tally.failed, tally.skipped),
                         (0, 1, 1))
        self.assertIn("SKIP x86_64/smp2 mm.heap_random_stress (tainted: "
                      "heap_exhaustion_returns_null left heap_exhaustion_"
                      "returns_null running)\n    tests/mm.c:40: expected "
                      "p != NULL\n", out)

    def test_pass_but_failure_status(self):
        tally, out = judged(judge.judge_test,
                            fake_result("riscv64", "test", GOOD, 1))
        self.assertEqual(tally.failed, 1)
        self.assertIn("does not match", out)

    def test_reset_without_poweroff(self):
        tally, out = judged(judge.judge_test,
                            fake_result("x86_64", "test", GOOD, 0))
        self.assertEqual(tally.failed, 1)
        self.assertIn("without the kernel powering off", out)

    def test_timeout(self):
        res = fake_result("x86_64", "test", CRASHED, None)
        res.timed_out = "no output for 120 s"
        tally, out = judged(judge.judge_test, res)
        self.assertIn("timed out: no output for 120 s", out)
        self.assertIn("PANIC at kernel/sched/core.c:120", out)

    def test_crash_expectations(self):
        log = ("[cpu0] crash: scenario spin_recursion\n"
               "[cpu0] PANIC at kernel/locking/spinlock.c:40 on cpu0 "
               "(task main): recursive lock crash-recursion-lock\n")
        ok = fake_result("riscv64", "crash", log, 1, "crash=spin_recursion",
                         "crash-recursion-lock")
        tally, out = judged(judge.judge_crash, ok)
        self.assertEqual((tally.passed, tally.failed), (1, 0))
        bad = fake_result("riscv64", "crash", log, 1, "crash=stack_overflow",
                          "overflow-test")
        tally, out = judged(judge.judge_crash, bad)
        self.assertEqual(tally.failed, 1)
        silent = fake_result("x86_64", "crash", "[cpu0] hello\n", 1,
                             "crash=panic", "deliberate")
        tally, out = judged(judge.judge_crash, silent)
        self.assertIn("no PANIC line", out)
        self.assertIn("says success", out)

    def test_bench_lines(self):
        log = ("[cpu0] bench ctx_switch: 412 instructions (per switch)\n"
               "[cpu0] # bench ipi_roundtrip: SKIP needs >= 2 CPUs\n")
        self.assertEqual(bench.parse_bench(log), [
            ("ctx_switch", "412", "instructions", "per switch"),
            ("ipi_roundtrip", "-", "", "SKIP needs >= 2 CPUs")])


SELFTEST_LOG = """\
[cpu0] KTAP version 1
[cpu0] 1..1
[cpu0]     KTAP version 1
[cpu0]     # Subtest: ktest_selftest
[cpu0]     1..8
[cpu1]     # tests/ktest_selftest.c:29: expected one == two
[cpu1]     # tests/ktest_selftest.c:30: expected one == two (1 vs 2)
[cpu1]     # selftest: reached the end with 2 failures
[cpu0]     # expect_failures_continue took 4.654 ms
[cpu0]     not ok 1 expect_failures_continue
[cpu1]     # tests/ktest_selftest.c:38: assertion one == two
[cpu0]     # assert_aborts took 0.591 ms
[cpu0]     not ok 2 assert_aborts
[cpu0]     # skip_with_reason took 0.177 ms
[cpu0]     ok 3 skip_with_reason # SKIP selftest skip reason
[cpu0]     # hang_times_out: no result after 300 ms
[cpu1]     # hang_times_out: still running 300 ms after the timeout: \
hang_times_out, selftest-linger; cases are tainted until they end
[cpu1]     not ok 4 hang_times_out # TIMEOUT
[cpu1]     # tests/ktest_selftest.c:81: expected one == two
[cpu1]     # tainted_failure_is_skipped took 0.082 ms
[cpu1]     ok 5 tainted_failure_is_skipped # SKIP tainted: hang_times_out \
left hang_times_out, selftest-linger running
[cpu1]     # selftest: hang_times_out's tasks have ended
[cpu0]     # tainted_pass_passes took 17.389 ms
[cpu0]     ok 6 tainted_pass_passes
[cpu0]     # hang_times_out: its tasks have ended; it taints no more cases
[cpu0]     # tests/ktest_selftest.c:104: assertion one == two (1 vs 2)
[cpu1]     # selftest: helper exited with code 1
[cpu0]     # helper_assert_fails_case took 7.057 ms
[cpu0]     not ok 7 helper_assert_fails_case
[cpu0]     # passes took 3.240 ms
[cpu0]     ok 8 passes
[cpu0] not ok 1 ktest_selftest
[cpu0] # Totals: pass:2 fail:4 skip:2 total:8
[cpu0] kestrel: tests done, 4 failed; powering off
"""

SELFTEST_CHECK_NAMES = [
    "expect_continues", "assert_aborts", "skip_reason", "timeout_reported",
    "taint_skips_failure", "taint_keeps_pass", "helper_assert", "passes",
    "no_code_after_abort", "ran_to_end", "exit_status_failure"]


def selftest_result(log, arch="x86_64", status=3):
    """A ktest_selftest boot; x86 status 3 = arch_poweroff(1)."""
    return fake_result(arch, "selftest", log, status,
                       "ktest=ktest_selftest expect_cpus=2")


def failed_checks(res):
    return {check: why for check, why in selftest.selftest_checks(res) if why}


def halted(log, code):
    """@log as a boot on a machine without power-off ends it (kernel/
    power.c): the exit code line, the halt line; QEMU stopped by us."""
    return (log + "[cpu0] kestrel: tests done, 0 failed; powering off\n"
            "[cpu0] kestrel: no power-off (exit code %d)\n"
            "[cpu0] %s\n" % (code, boot.HALT_LINE))


class HaltTests(unittest.TestCase):
    """Boots that end with the halt line (sifive_u, spike): judged by the
    log, since QEMU's status only says that we stopped it."""

    def halted_result(self, log, kind="test", cmdline="ktest=all"):
        res = fake_result("riscv64", kind, log, -15, cmdline)
        res.halted = True
        return res

    def test_halted_pass_is_a_pass(self):
        tally, out = judged(judge.judge_test,
                            self.halted_result(halted(GOOD, 0)))
        self.assertEqual((tally.passed, tally.failed), (3, 0), out)

    def test_halted_failure_code_with_passing_cases_fails(self):
        tally, out = judged(judge.judge_test,
                            self.halted_result(halted(GOOD, 1)))
        self.assertEqual(tally.failed, 1)
        self.assertIn("exit code 1 does not match", out)

    def test_halted_failing_cases_need_a_failure_code(self):
        tally, out = judged(judge.judge_test,
                            self.halted_result(halted(FAILING, 0)))
        self.assertIn("exit code 0 does not match", out)
        tally, out = judged(judge.judge_test,
                            self.halted_result(halted(FAILING, 1)))
        self.assertNotIn("boot (", out)

    def test_halt_without_code_line_fails(self):
        log = GOOD + "[cpu0] %s\n" % boot.HALT_LINE
        tally, out = judged(judge.judge_test, self.halted_result(log))
        self.assertIn("halted without a 'no power-off (exit code N)' line",
                      out)

    def test_halted_crash_is_judged_by_its_panic(self):
        log = halted("[cpu0] PANIC at tests/crash.c:1 on cpu0 (task x): "
                     "crash test: deliberate panic\n", 1)
        tally, out = judged(judge.judge_crash, self.halted_result(
            log, "crash", "crash=panic"))
        self.assertEqual((tally.passed, tally.failed), (1, 0), out)

    def test_halt_line_matches_the_kernel(self):
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            "..", "..")
        with open(os.path.join(root, "kernel/include/power.h")) as f:
            self.assertIn('#define HALT_LINE "%s"' % boot.HALT_LINE,
                          f.read())
        with open(os.path.join(root, "kernel/power.c")) as f:
            self.assertTrue(boot.HALT_CODE.search(
                re.search(r'"(kestrel: no power-off[^"]*)\\n"',
                          f.read()).group(1).replace("%d", "7")))

    def test_run_boot_stops_at_the_halt_line(self):
        # A stand-in for QEMU that prints the end of a halted boot, then
        # would sit there for a minute (as QEMU does with every hart in
        # wfi); run_boot must stop it at the line.
        class ShBoot(boot.Boot):
            def prepare(self):
                return ["sh", "-c", "printf '%s'; sleep 60" % halted(
                    GOOD, 0).replace("%", "%%")]
        b = ShBoot("riscv64", 2, "kernel", "ktest=all", "riscv64/halt-test",
                   "test")
        old = boot.LOG_DIR
        boot.LOG_DIR = os.path.join("build", "test-logs", "unit")
        try:
            res = boot.run_boot(b, 30)
        finally:
            boot.LOG_DIR = old
        self.assertTrue(res.halted)
        self.assertIsNone(res.timed_out)
        self.assertLess(res.seconds, 20)
        self.assertEqual(boot.exit_code(res), 0)
        self.assertIn(boot.HALT_LINE, res.log)


class SelftestTests(unittest.TestCase):
    def test_expected_output_passes_every_check(self):
        for arch, status in (("x86_64", 3), ("riscv64", 1)):
            res = selftest_result(SELFTEST_LOG, arch, status)
            checks = selftest.selftest_checks(res)
            self.assertEqual([c for c, _ in checks], SELFTEST_CHECK_NAMES)
            self.assertEqual(failed_checks(res), {})
        tally, out = judged(selftest.judge_selftest,
                            selftest_result(SELFTEST_LOG))
        self.assertEqual((tally.passed, tally.failed), (11, 0))
        self.assertIn("PASS x86_64/smp2 ktest_selftest.timeout_reported",
                      out)

    def test_timeout_reported_as_ok(self):
        log = SELFTEST_LOG.replace("not ok 4 hang_times_out # TIMEOUT",
                                   "ok 4 hang_times_out")
        bad = failed_checks(selftest_result(log))
        self.assertEqual(list(bad), ["timeout_reported"])
        self.assertIn("want 'not ok 4 hang_times_out # TIMEOUT'",
                      bad["timeout_reported"])

    def test_taint_not_applied(self):
        # The failure after the timeout counted as a failure of its own.
        log = SELFTEST_LOG.replace(
            "ok 5 tainted_failure_is_skipped # SKIP tainted: hang_times_out "
            "left hang_times_out, selftest-linger running",
            "not ok 5 tainted_failure_is_skipped")
        self.assertNotEqual(log, SELFTEST_LOG)
        bad = failed_checks(selftest_result(log))
        self.assertEqual(list(bad), ["taint_skips_failure"])
        self.assertIn("want 'ok 5 tainted_failure_is_skipped # SKIP tainted",
                      bad["taint_skips_failure"])

    def test_taint_that_never_ends(self):
        # The leftovers were never seen to end: a later real failure
        # would be hidden as tainted.
        log = SELFTEST_LOG.replace(
            "[cpu0]     # hang_times_out: its tasks have ended; it taints no "
            "more cases\n", "").replace(
            "not ok 7 helper_assert_fails_case",
            "ok 7 helper_assert_fails_case # SKIP tainted: hang_times_out "
            "left hang_times_out running")
        bad = failed_checks(selftest_result(log))
        self.assertEqual(list(bad), ["helper_assert"])
        self.assertIn("taints no more cases", bad["helper_assert"])

    def test_no_grace_report(self):
        log = SELFTEST_LOG.replace(
            "[cpu1]     # hang_times_out: still running 300 ms after the "
            "timeout: hang_times_out, selftest-linger; cases are tainted "
            "until they end\n", "")
        self.assertNotEqual(log, SELFTEST_LOG)
        bad = failed_checks(selftest_result(log))
        self.assertEqual(list(bad), ["timeout_reported"])
        self.assertIn("still running", bad["timeout_reported"])

    def test_skip_reason_lost(self):
        log = SELFTEST_LOG.replace("# SKIP selftest skip reason", "# SKIP")
        self.assertEqual(list(failed_checks(selftest_result(log))),
                         ["skip_reason"])

    def test_expect_that_stops_the_case(self):
        log = SELFTEST_LOG.replace(
            "[cpu1]     # selftest: reached the end with 2 failures\n", "")
        bad = failed_checks(selftest_result(log))
        self.assertEqual(list(bad), ["expect_continues"])
        self.assertIn("reached the end", bad["expect_continues"])

    def test_extra_or_unlocated_failures(self):
        # A third failure, and one diagnostic without file:line.
        log = SELFTEST_LOG.replace(
            "[cpu1]     # tests/ktest_selftest.c:38: assertion one == two\n",
            "[cpu1]     # assertion one == two\n").replace(
            "[cpu1]     # selftest: helper exited with code 1\n",
            "[cpu1]     # tests/ktest_selftest.c:64: extra\n"
            "[cpu1]     # selftest: helper exited with code 1\n")
        bad = failed_checks(selftest_result(log))
        self.assertEqual(list(bad), ["assert_aborts", "helper_assert"])
        self.assertIn("0 file:line diagnostics, want 1", bad["assert_aborts"])
        self.assertIn("2 file:line diagnostics, want 1", bad["helper_assert"])

    def test_code_after_assert_ran(self):
        log = SELFTEST_LOG.replace(
            "[cpu0]     # assert_aborts took",
            "[cpu1]     # selftest: MARKER assert_aborts after KASSERT "
            "ran on\n[cpu0]     # assert_aborts took")
        bad = failed_checks(selftest_result(log))
        self.assertEqual(list(bad), ["no_code_after_abort"])

    def test_helper_assert_ended_the_case(self):
        log = SELFTEST_LOG.replace(
            "[cpu1]     # selftest: helper exited with code 1\n", "")
        self.assertEqual(list(failed_checks(selftest_result(log))),
                         ["helper_assert"])

    def test_hang_stops_the_run(self):
        # The runner never gave up on the hung case: QEMU timed out.
        log = SELFTEST_LOG.split("[cpu0]     # hang_times_out")[0]
        res = selftest_result(log, status=None)
        res.timed_out = "no output for 120 s"
        bad = failed_checks(res)
        self.assertEqual(list(bad), ["timeout_reported",
                                     "taint_skips_failure",
                                     "taint_keeps_pass", "helper_assert",
                                     "passes", "ran_to_end",
                                     "exit_status_failure"])
        self.assertIn("no result", bad["timeout_reported"])
        self.assertIn("Totals", bad["ran_to_end"])
        self.assertEqual(bad["exit_status_failure"],
                         "timed out: no output for 120 s")

    def test_success_status_despite_failures(self):
        bad = failed_checks(selftest_result(SELFTEST_LOG, "x86_64", 1))
        self.assertEqual(list(bad), ["exit_status_failure"])
        bad = failed_checks(selftest_result(SELFTEST_LOG, "riscv64", 0))
        self.assertIn("success", bad["exit_status_failure"])

    def test_explicit_suite_in_all_fails_the_boot(self):
        log = GOOD.replace("[cpu0] 1..2", "[cpu0] 1..3").replace(
            "[cpu0] # Totals",
            "\n".join(SELFTEST_LOG.splitlines()[2:-3]) + "\n"
            "[cpu0] not ok 3 ktest_selftest\n[cpu0] # Totals")
        tally, out = judged(judge.judge_test,
                            fake_result("x86_64", "test", log, 3))
        self.assertIn("explicit-only suite ran in ktest=all: ktest_selftest",
                      out)

    def test_one_boot_per_arch(self):
        boots = matrix.selftest_matrix(["x86_64", "riscv64"], [1, 2, 4])
        self.assertEqual([(b.name, b.cmdline, b.kind) for b in boots], [
            ("x86_64/smp2-selftest", "ktest=ktest_selftest expect_cpus=2",
             "selftest"),
            ("riscv64/smp2-selftest", "ktest=ktest_selftest expect_cpus=2",
             "selftest")])
        self.assertEqual(matrix.selftest_matrix(["x86_64"], [1])[0].cpus, 1)


class DebugMatrixTests(unittest.TestCase):
    def test_debug_boots_use_their_own_images(self):
        boots = matrix.debug_matrix(["x86_64", "riscv64"], [1, 2, 4],
                                    ["mutex", "spinlock"], "build/debug")
        self.assertEqual([(b.name, b.cmdline) for b in boots], [
            ("x86_64/smp2-debug",
             "ktest=mutex expect_cpus=2 sched_verify=on"),
            ("riscv64/smp2-debug",
             "ktest=mutex expect_cpus=2 sched_verify=on")])
        argv = boots[1].prepare()
        self.assertIn("build/debug/riscv64/Image", argv)
        self.assertEqual(matrix.debug_matrix(["x86_64"], [1, 2], ["spinlock"],
                                             "build/debug"), [])
        self.assertEqual(matrix.debug_matrix(["x86_64"], [8], [],
                                             "d")[0].cpus, 8)

class ScenarioMatrixTests(unittest.TestCase):
    def test_scenario_all_boots_run_under_icount(self):
        boots = matrix.scenario_matrix(["x86_64", "riscv64"], [1, 2, 4, 8])
        timed = [b for b in boots if "scenario=all" in b.cmdline]
        self.assertEqual([b.name for b in timed], [
            "x86_64/smp2-scenarios", "x86_64/smp4-scenarios",
            "riscv64/smp2-scenarios", "riscv64/smp4-scenarios"])
        for b in timed:
            self.assertIn("icount=1", b.cmdline.split())
            self.assertEqual(b.extra, qemu.ICOUNT[b.arch])
        module = [b for b in boots if "scenario=module" in b.cmdline]
        self.assertEqual(len(module), 2)
        for b in module:
            self.assertNotIn("-icount", b.extra)


class TestBootsTests(unittest.TestCase):
    """matrix.test_boots(): the options of `runner.py test`."""

    def test_whole_matrix(self):
        boots = matrix.test_boots(debug_root="build/debug")
        names = [b.name for b in boots]
        self.assertEqual(len(names), len(set(names)))
        self.assertIn("x86_64/smp4-grub", names)
        self.assertIn("x86_64/smp2-debug", names)
        kinds = [b.kind for b in boots]
        self.assertEqual(kinds.count("crash"), 2 * len(matrix.CRASH_EXPECT))
        self.assertEqual(kinds.count("selftest"), 2)
        self.assertEqual(kinds.count("lab"), 2)
        for b in boots:
            if b.kind == "test" and "ktest=all" in b.cmdline:
                self.assertIn("expect_cpus=%d" % b.cpus, b.cmdline)

    def test_scenarios_only(self):
        boots = matrix.test_boots("x86_64", 2, "scenarios")
        self.assertEqual([b.name for b in boots], [
            "x86_64/smp2-scenarios", "x86_64/smp2-scenario-module",
            "x86_64/smp2-lab"])

    def test_one_suite_leaves_out_crash_and_selftest(self):
        boots = matrix.test_boots("x86_64", 2, "mutex")
        self.assertEqual([(b.name, b.cmdline) for b in boots], [
            ("x86_64/smp2-grub", "ktest=mutex expect_cpus=2 sched_verify=on"),
            ("x86_64/smp2-ovmf", "ktest=mutex expect_cpus=2 sched_verify=on"),
            ("x86_64/smp2-inherit",
             "ktest=mutex expect_cpus=2 locking=inherit sched_verify=on"),
            ("x86_64/smp2-none",
             "ktest=mutex expect_cpus=2 locking=none sched_verify=on")])
        self.assertEqual(matrix.test_boots("x86_64", 1, "spinlock",
                                           no_crash=True,
                                           no_selftest=True)[0].name,
                         "x86_64/smp1-grub")


class OvmfTests(unittest.TestCase):
    """The x86_64 boot through UEFI (OVMF): in the matrix once, its own
    copy of the firmware's variables, a SKIP where OVMF is missing."""

    def test_one_ovmf_boot_with_every_suite(self):
        boots = [b for b in matrix.test_boots("x86_64")
                 if b.method == "ovmf"]
        self.assertEqual([(b.name, b.cmdline) for b in boots], [
            ("x86_64/smp2-ovmf", "ktest=all expect_cpus=2 sched_verify=on")])
        self.assertEqual([b for b in matrix.test_boots("riscv64")
                          if b.method == "ovmf"], [])

    def test_firmware_code_readonly_vars_the_copy(self):
        argv = qemu.x86_ovmf(2, "k.iso", "/tmp/v.fd")
        self.assertEqual(argv[:len(qemu.x86_grub(2, "k.iso"))],
                         qemu.x86_grub(2, "k.iso"))
        self.assertIn("if=pflash,format=raw,readonly=on,file="
                      + qemu.OVMF_CODE, argv)
        self.assertIn("if=pflash,format=raw,file=/tmp/v.fd", argv)

    def test_missing_ovmf_is_a_skip_with_its_reason(self):
        saved = qemu.OVMF_CODE
        qemu.OVMF_CODE = "/nonexistent/OVMF_CODE_4M.fd"
        try:
            b = [b for b in matrix.test_boots("x86_64", 2, "spinlock")
                 if b.method == "ovmf"][0]
        finally:
            qemu.OVMF_CODE = saved
        self.assertIn("/nonexistent/OVMF_CODE_4M.fd not found", b.skip)
        res = boot.run_boot(b, 10)
        tally, out = judged(judge.judge_test, res)
        self.assertEqual((tally.passed, tally.failed, tally.skipped),
                         (0, 0, 1))
        self.assertIn("SKIP x86_64/smp2-ovmf boot (/nonexistent/", out)


class BoardMatrixTests(unittest.TestCase):
    """The sifive_u and spike boots (matrix.board_matrix())."""

    def test_in_the_full_matrix_only(self):
        names = [b.name for b in matrix.test_boots()]
        self.assertIn("riscv64/sifive_u", names)
        self.assertIn("riscv64/spike", names)
        self.assertIn("x86_64/smp2-noexit", names)
        for args in (("riscv64", 2, None), ("riscv64", None, "spinlock"),
                     ("x86_64", None, None)):
            names = [b.name for b in matrix.test_boots(*args)]
            self.assertNotIn("riscv64/sifive_u", names, args)

    def test_pc_without_exit_device(self):
        boots = matrix.test_boots("x86_64", None, "boards")
        self.assertEqual([b.name for b in boots], ["x86_64/smp2-noexit"])
        argv = boots[0].prepare()
        self.assertEqual(argv[0], "qemu-system-x86_64")
        self.assertNotIn("isa-debug-exit,iobase=0xf4,iosize=0x04", argv)
        self.assertIn("-kernel", argv)

    def test_boards_suite_asks_for_them(self):
        boots = matrix.test_boots("riscv64", 2, "boards")
        self.assertEqual([(b.name, b.cpus) for b in boots],
                         [("riscv64/sifive_u", 4), ("riscv64/spike", 2)])
        for b in boots:
            self.assertIn("ktest=%s " % ",".join(matrix.BOARD_SUITES),
                          b.cmdline)
            self.assertIn("expect_cpus=%d" % b.cpus, b.cmdline)

    def test_sifive_u_gets_a_hart_for_its_monitor_core(self):
        b = matrix.test_boots("riscv64", None, "boards")[0]
        b.build_root = "build"
        argv = b.prepare()
        self.assertEqual(argv[argv.index("-machine") + 1], "sifive_u")
        self.assertEqual(argv[argv.index("-smp") + 1], "5")
        self.assertIn("build/riscv64/Image", argv)

    def test_spike_halts_without_asking_the_firmware(self):
        b = matrix.test_boots("riscv64", None, "boards")[1]
        self.assertIn("poweroff=halt", b.cmdline.split())
        self.assertEqual(b.prepare()[:6], ["qemu-system-riscv64", "-machine",
                                            "spike", "-smp", "2", "-m"])


class InteractiveTests(unittest.TestCase):
    """`make run` / `make debug` (runner.py run): the machine and the
    exit status."""

    def test_x86_runs_the_grub_iso_like_the_grub_test_boot(self):
        argv = qemu.interactive("x86_64", 4, "build")
        test_boot = qemu.x86_grub(4, "build/x86_64/kestrel.iso")
        self.assertEqual(argv, test_boot + ["-boot", "d"])
        self.assertIn("isa-debug-exit,iobase=0xf4,iosize=0x04", argv)
        self.assertNotIn("-S", argv)

    def test_screen_opens_a_window_serial_stays_on_the_terminal(self):
        argv = qemu.interactive("x86_64", 4, "build", screen=True)
        self.assertNotIn("-nographic", argv)
        self.assertEqual(argv[-2:], ["-serial", "mon:stdio"])

    def test_riscv_runs_the_image_without_a_command_line(self):
        argv = qemu.interactive("riscv64", 2, "build/debug")
        self.assertEqual(argv[0], "qemu-system-riscv64")
        self.assertIn("build/debug/riscv64/Image", argv)
        self.assertNotIn("-append", argv)
        self.assertEqual(argv[argv.index("-smp") + 1], "2")

    def test_debug_starts_halted_with_a_gdb_stub(self):
        for arch in ("x86_64", "riscv64"):
            argv = qemu.interactive(arch, 1, "build", gdb=True)
            self.assertEqual(argv[-3:], ["-S", "-gdb", "tcp::1234"])

    def test_clean_poweroff_is_success(self):
        self.assertEqual(qemu.interactive_status("x86_64", 1), 0)
        self.assertEqual(qemu.interactive_status("x86_64", 0), 0)  # Ctrl-A x
        self.assertEqual(qemu.interactive_status("x86_64", 3), 3)
        self.assertEqual(qemu.interactive_status("riscv64", 0), 0)
        self.assertEqual(qemu.interactive_status("riscv64", 1), 1)
        self.assertEqual(qemu.interactive_status("riscv64", -15), 1)

    def test_one_source_of_qemu_command_lines(self):
        # Only tools/kestrel/qemu.py spells a QEMU command line; the
        # build files name the runner instead (the Makefile's package
        # list names qemu-system-x86, the Debian package).
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            "..", "..")
        for f in ("Makefile", "arch/x86_64/build.mk",
                  "arch/riscv64/build.mk"):
            with open(os.path.join(root, f)) as fh:
                m = re.search(r"qemu-system-(x86_64|riscv64)|QEMU_RUN",
                              fh.read())
            self.assertIsNone(m, "%s spells a QEMU command line" % f)


PROFILE_LOG = """\
[cpu0] # bench ctx_switch: yield ping-pong
[cpu0] profile ctx_switch: 5 samples every 20000 ns, 3 chains, 1 dropped, text at 80201000, by nmi
[cpu0] profile ctx_switch: 3 80201010 80202008 80203004
noise[cpu1] profile ctx_switch: 1 80202004 80203004
[cpu0] profile ctx_switch: 1 90000000
[cpu0] profile other: 7 80201010
"""


class FakeSymbols(profile_report.Symbols):
    """Link-time text at 0x200000: pick at +0, schedule at +0x1000,
    yield at +0x2000, text ends at +0x3000."""

    def __init__(self):
        self.addrs = [0x200000, 0x201000, 0x202000]
        self.names = ["pick", "schedule", "yield"]
        self.text_start, self.text_end = 0x200000, 0x203000


class BenchTargetTests(unittest.TestCase):
    def test_targets_at_one_cpu_only(self):
        self.assertEqual(bench.bench_target("x86_64", 1, "mutex_pair", "45"),
                         "<= 50")
        self.assertEqual(bench.bench_target("riscv64", 1, "mutex_pair",
                                             "61"), "<= 60 MISSED")
        self.assertEqual(bench.bench_target("x86_64", 2, "mutex_pair", "99"),
                         "")
        self.assertEqual(bench.bench_target("x86_64", 1, "spin_pair", "62"),
                         "")
        self.assertEqual(bench.bench_target("x86_64", 1, "ctx_switch", "-"),
                         "")


class ProfileReportTests(unittest.TestCase):
    def test_parse_groups_by_bench(self):
        profs = profile_report.parse(PROFILE_LOG)
        self.assertEqual([p.bench for p in profs], ["ctx_switch"])
        p = profs[0]
        self.assertEqual((p.samples, p.period, p.dropped, p.text_at,
                          p.source), (5, 20000, 1, 0x80201000, "nmi"))
        self.assertEqual(p.chains[0], (3, [0x80201010, 0x80202008,
                                           0x80203004]))
        self.assertEqual(len(p.chains), 3)

    def test_relocation_and_return_addresses(self):
        p = profile_report.parse(PROFILE_LOG)[0]
        chains = profile_report.named_chains(p, FakeSymbols())
        # Running 0x80001000 above the link address; a return address
        # names its call (one byte back): 0x80202008 - 1 is in schedule,
        # 0x80203004 - 1 in yield; outside the text: ??.
        self.assertEqual(chains[0], (3, ["pick", "schedule", "yield"]))
        self.assertEqual(chains[1], (1, ["schedule", "yield"]))
        self.assertEqual(chains[2], (1, ["??"]))

    def test_flat_and_folded(self):
        p = profile_report.parse(PROFILE_LOG)[0]
        chains = profile_report.named_chains(p, FakeSymbols())
        flat = profile_report.flat(chains)
        self.assertEqual(flat["pick"], (3, 3))
        self.assertEqual(flat["schedule"], (1, 4))
        self.assertEqual(flat["yield"], (0, 4))
        self.assertEqual(profile_report.folded(chains, "b"), [
            "b;?? 1", "b;yield;schedule 1", "b;yield;schedule;pick 3"])
        out = io.StringIO()
        profile_report.report(p, FakeSymbols(), out=out)
        self.assertIn("60.0   60.0  pick", out.getvalue())
        self.assertIn("1 dropped", out.getvalue())


if __name__ == "__main__":
    unittest.main()
