#!/usr/bin/env python3
"""test_grade.py - unit tests of the programming labs' tools
(tools/kestrel/handout.py, grade.py): the marker parser and its errors,
the handout's replacement, the grader's verdicts, and the labs as the
source has them.  The grading boots themselves run in `make test`
(runner.py grade --check-all).

    python3 tests/tools/test_grade.py
"""

import contextlib
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tools"))
from kestrel import grade, handout  # noqa: E402

SRC = """\
int f(int x)
{
\t/* LAB 3 BEGIN: double it */
\treturn 2 * x;
\t/* LAB 3 STUB
\t(void)x;
\treturn 0;
\tLAB 3 END */
}

int g(void)
{
\t/* LAB 4 BEGIN: something else */
\treturn 1;
\t/* LAB 4 STUB
\treturn 0;
\tLAB 4 END */
}
"""


class Markers(unittest.TestCase):
    def test_regions(self):
        regs = handout.regions("a.c", SRC)
        self.assertEqual([(r[0], r[1], r[2], r[3], r[4]) for r in regs],
                         [(3, 2, 4, 7, "double it"),
                          (4, 12, 14, 16, "something else")])

    def test_strip_replaces_only_its_lab(self):
        out = handout.strip_lab(SRC, 3, handout.regions("a.c", SRC),
                                "docs/labs/lab3_x.md")
        self.assertNotIn("return 2 * x;", out)
        self.assertIn("\t/* TODO(lab 3): double it.\n", out)
        self.assertIn("replace it (docs/labs/lab3_x.md). */\n"
                      "\t(void)x;\n\treturn 0;\n}", out)
        self.assertNotIn("LAB 3", out)
        # Lab 4 keeps its solution and its markers.
        self.assertIn("\t/* LAB 4 BEGIN: something else */\n\treturn 1;",
                      out)

    def bad(self, text, msg):
        with self.assertRaises(handout.HandoutError) as cm:
            handout.regions("k.c", text)
        self.assertIn(msg, str(cm.exception))

    def test_errors_name_file_and_line(self):
        self.bad("/* LAB 1 BEGIN: x */\nint a;\n", "k.c:1: LAB 1 BEGIN has "
                 "no STUB and END")
        self.bad("/* LAB 1 BEGIN: x */\n/* LAB 1 STUB\n", "k.c:1: LAB 1 "
                 "BEGIN has no END")
        self.bad("/* LAB 1 BEGIN: x */\n/* LAB 2 BEGIN: y */\n",
                 "k.c:2: LAB 2 BEGIN inside LAB 1's region (begun at line 1)")
        self.bad("/* LAB 1 STUB\n", "k.c:1: LAB 1 STUB without its LAB 1 "
                 "BEGIN")
        self.bad("/* LAB 1 BEGIN: x */\n/* LAB 2 STUB\n",
                 "k.c:2: LAB 2 STUB without its LAB 2 BEGIN")
        self.bad("LAB 1 END */\n", "k.c:1: LAB 1 END without its BEGIN")
        self.bad("x = 1; /* LAB 1 BEGIN: x */\n",
                 "k.c:1: malformed LAB 1 BEGIN marker")

    def test_handout_tree(self):
        with tempfile.TemporaryDirectory() as d:
            root, out = os.path.join(d, "tree"), os.path.join(d, "out")
            os.makedirs(os.path.join(root, "kernel"))
            os.makedirs(os.path.join(root, "docs", "labs"))
            with open(os.path.join(root, "kernel", "a.c"), "w") as f:
                f.write(SRC)
            with open(os.path.join(root, "docs", "labs", "lab4_g.md"),
                      "w") as f:
                f.write("# lab 4\n")
            changed = handout.write_handout(4, out, root)
            self.assertEqual(changed, ["kernel/a.c"])
            with open(os.path.join(out, "kernel", "a.c")) as f:
                text = f.read()
            self.assertIn("TODO(lab 4): something else.", text)
            self.assertIn("(docs/labs/lab4_g.md)", text)
            self.assertIn("return 2 * x;", text)        # lab 3 untouched
            self.assertEqual(handout.handout_lab(out), 4)
            self.assertIsNone(handout.handout_lab(root))
            with self.assertRaises(handout.HandoutError) as cm:
                handout.write_handout(5, out, root)
            self.assertIn("no lab 5 in the source (labs with regions: 3, 4)",
                          str(cm.exception))


class Verdicts(unittest.TestCase):
    T = grade.Test("t", 10, ["s.a*"])
    ARCHES = ["x86_64", "riscv64"]

    def cases(self, x86, rv):
        return {"x86_64": {k: (v, "x86_64/b") for k, v in x86.items()},
                "riscv64": {k: (v, "riscv64/b") for k, v in rv.items()}}

    def test_ok_needs_a_pass_on_each_arch(self):
        ok, _ = grade.judge_test(self.T, self.cases(
            {"s.a1": "PASS", "s.a2": "SKIP", "s.b": "FAIL"},
            {"s.a1": "PASS"}), self.ARCHES)
        self.assertTrue(ok)
        ok, why = grade.judge_test(self.T, self.cases(
            {"s.a1": "PASS"}, {"s.a1": "SKIP"}), self.ARCHES)
        self.assertFalse(ok)
        self.assertEqual(why, ["riscv64: no passing result of s.a*"])
        ok, why = grade.judge_test(self.T, self.cases(
            {"s.a1": "PASS"}, {}), self.ARCHES)
        self.assertEqual(why, ["riscv64: no passing result of s.a*"])

    def test_a_failure_fails(self):
        ok, why = grade.judge_test(self.T, self.cases(
            {"s.a1": "PASS", "s.a2": "FAIL"}, {"s.a1": "PASS"}), self.ARCHES)
        self.assertFalse(ok)
        self.assertEqual(why, ["x86_64/b s.a2: FAIL"])

    def test_report_lines(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            grade.report("pick order", True, 40, [])
            grade.report("push", False, 20, ["x86_64/b s.a2: FAIL"])
        self.assertEqual(out.getvalue(),
                         "== Test pick order == ok (40 pts)\n"
                         "== Test push == FAIL (0/20 pts)\n"
                         "    x86_64/b s.a2: FAIL\n")


class TheLabs(unittest.TestCase):
    def test_every_lab_in_the_source_is_graded_and_has_a_page(self):
        found = handout.scan()
        self.assertEqual(sorted(found), sorted(grade.LABS))
        for n, lab in grade.LABS.items():
            self.assertEqual(handout.lab_page(n),
                             "docs/labs/%s.md" % lab.name)
            self.assertEqual(sum(t.points for t in lab.tests), 100, lab.name)


if __name__ == "__main__":
    unittest.main()
