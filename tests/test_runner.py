#!/usr/bin/env python3
"""test_runner.py - unit tests of runner.py's KTAP parsing and judging.

    python3 tests/test_runner.py
"""

import contextlib
import io
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import runner  # noqa: E402

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
[cpu0]     # sleep_never_returns_early: no result after 30000 ms, thread abandoned
[cpu0]     not ok 2 sleep_never_returns_early # TIMEOUT
[cpu0] not ok 1 timer
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
        cases, problems = runner.parse_ktap(GOOD)
        self.assertEqual(problems, [])
        self.assertEqual([(c.full_name(), c.status) for c in cases], [
            ("spinlock.counter_exact_all_cpus", "PASS"),
            ("spinlock.trylock_same_cpu", "PASS"),
            ("spinlock.trylock_other_cpu", "SKIP"),
            ("mm.heap_random_stress", "PASS")])
        self.assertEqual(cases[2].reason, "needs >= 2 CPUs")

    def test_failures_keep_diagnostics_and_timeout(self):
        cases, problems = runner.parse_ktap(FAILING)
        self.assertEqual(problems, [])
        self.assertEqual([c.status for c in cases], ["FAIL", "FAIL"])
        self.assertIn("tests/timer.c:80: cpu3: firing #2 was timer 5, want 2",
                      cases[0].diags)
        # The elapsed-time diagnostic is not a failure reason.
        self.assertFalse(any("took" in d for d in cases[0].diags))
        self.assertEqual(cases[1].reason, "timeout")

    def test_crash_gives_missing_results(self):
        cases, problems = runner.parse_ktap(CRASHED)
        self.assertEqual([(c.num, c.status) for c in cases],
                         [(1, "PASS"), (2, "FAIL"), (3, "FAIL")])
        self.assertIn("no result", cases[1].reason)
        self.assertTrue(any("suites finished" in p for p in problems))
        self.assertIn("thread-many", runner.find_panic(CRASHED))

    def test_noise_and_escapes(self):
        cases, problems = runner.parse_ktap(NOISY)
        self.assertEqual(problems, [])
        self.assertEqual([(c.full_name(), c.status) for c in cases],
                         [("smp.cpu_count_matches_qemu", "PASS")])

    def test_without_indentation(self):
        cases, problems = runner.parse_ktap(NO_INDENT)
        self.assertEqual(problems, [])
        self.assertEqual([(c.full_name(), c.status) for c in cases], [
            ("context.callee_saved_across_yield", "PASS"),
            ("context.callee_saved_across_sleep", "FAIL")])

    def test_no_output(self):
        cases, problems = runner.parse_ktap("OpenSBI v1.1\nhang\n")
        self.assertEqual(cases, [])
        self.assertEqual(problems, ["no KTAP output"])

    def test_unknown_suite(self):
        log = "[cpu0] KTAP version 1\n[cpu0] 1..0\n[cpu0] # unknown suite 'foo'\n"
        cases, problems = runner.parse_ktap(log)
        self.assertEqual(problems, ["unknown suite 'foo'"])

    def test_truncated_plan(self):
        log = GOOD.split("[cpu0] ok 2 mm")[0]
        cases, problems = runner.parse_ktap(log)
        self.assertTrue(any("1 of 2 suites" in p for p in problems))


class ExitStatusTests(unittest.TestCase):
    def test_x86_mapping(self):
        self.assertEqual(runner.kernel_exit_code("x86_64", 1), 0)
        self.assertEqual(runner.kernel_exit_code("x86_64", 3), 1)
        self.assertIsNone(runner.kernel_exit_code("x86_64", 0))
        self.assertIsNone(runner.kernel_exit_code("x86_64", None))

    def test_riscv_mapping(self):
        self.assertEqual(runner.kernel_exit_code("riscv64", 0), 0)
        self.assertEqual(runner.kernel_exit_code("riscv64", 1), 1)


def fake_result(arch, kind, log, status, cmdline="ktest=all", expect=None):
    boot = runner.Boot(arch, 2, "kernel", cmdline, "%s/smp2" % arch, kind,
                       expect)
    res = runner.BootResult(boot)
    res.log = log
    res.status = status
    return res


def judged(fn, res):
    tally = runner.Tally()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        fn(res, tally)
    return tally, out.getvalue()


class JudgeTests(unittest.TestCase):
    def test_pass_with_success_status(self):
        tally, out = judged(runner.judge_test,
                            fake_result("x86_64", "test", GOOD, 1))
        self.assertEqual((tally.passed, tally.failed, tally.skipped),
                         (3, 0, 1))
        self.assertIn("PASS x86_64/smp2 spinlock.trylock_same_cpu", out)
        self.assertIn("SKIP x86_64/smp2 spinlock.trylock_other_cpu "
                      "(needs >= 2 CPUs)", out)

    def test_pass_but_failure_status(self):
        tally, out = judged(runner.judge_test,
                            fake_result("riscv64", "test", GOOD, 1))
        self.assertEqual(tally.failed, 1)
        self.assertIn("does not match", out)

    def test_reset_without_poweroff(self):
        tally, out = judged(runner.judge_test,
                            fake_result("x86_64", "test", GOOD, 0))
        self.assertEqual(tally.failed, 1)
        self.assertIn("without the kernel powering off", out)

    def test_timeout(self):
        res = fake_result("x86_64", "test", CRASHED, None)
        res.timed_out = True
        tally, out = judged(runner.judge_test, res)
        self.assertIn("timed out", out)
        self.assertIn("PANIC at kernel/sched/core.c:120", out)

    def test_crash_expectations(self):
        log = ("[cpu0] crash: scenario spin_recursion\n"
               "[cpu0] PANIC at kernel/locking/spinlock.c:40 on cpu0 "
               "(task main): recursive lock crash-recursion-lock\n")
        ok = fake_result("riscv64", "crash", log, 1, "crash=spin_recursion",
                         "crash-recursion-lock")
        tally, out = judged(runner.judge_crash, ok)
        self.assertEqual((tally.passed, tally.failed), (1, 0))
        bad = fake_result("riscv64", "crash", log, 1, "crash=stack_overflow",
                          "overflow-test")
        tally, out = judged(runner.judge_crash, bad)
        self.assertEqual(tally.failed, 1)
        silent = fake_result("x86_64", "crash", "[cpu0] hello\n", 1,
                             "crash=panic", "deliberate")
        tally, out = judged(runner.judge_crash, silent)
        self.assertIn("no PANIC line", out)
        self.assertIn("says success", out)

    def test_bench_lines(self):
        log = ("[cpu0] bench ctx_switch: 412 instructions (per switch)\n"
               "[cpu0] # bench ipi_roundtrip: SKIP needs >= 2 CPUs\n")
        self.assertEqual(runner.parse_bench(log), [
            ("ctx_switch", "412", "instructions", "per switch"),
            ("ipi_roundtrip", "-", "", "SKIP needs >= 2 CPUs")])


if __name__ == "__main__":
    unittest.main()
