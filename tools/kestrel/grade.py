"""grade.py - the grader of the programming labs (`make grade LAB=n`).

    runner.py grade N [--arch A] [--no-build] [--jobs J] [--timeout S]
    runner.py grade --check-all [--arch A] [--jobs J]

A lab (LABS below; its page is docs/labs/labN_*.md) is graded by boots
of this tree on both arches: test suites (ktest=...), at the CPU counts
(and under -icount) as the lab needs, and built-in scenarios
(scenario=NAME, under -icount).  Each graded test names the KTAP
cases it covers (fnmatch patterns over "suite.case") and is worth some
points; it is ok only if, on each arch, one of them passed and none
failed (a SKIP, a timing case on a busy host, counts neither way).  The
output is xv6's:

    == Test RT pick: a woken RT task runs before less important ones == ok (40 pts)
    == Test RT push/pull: the most important RT tasks run, one per CPU == FAIL (0/40 pts)
        x86_64/grade-smp2 sched_rt.smp_top_n_run: FAIL
    Score: 60/100

and the exit status is 0 only with full marks (1 otherwise, 2 for bad
usage).  A boot that went wrong as a whole (a panic, a hang) fails
every test it was to show, and says why.

--check-all is CI's check of the labs themselves (`make test`): this
tree must grade 100% on every lab, and each lab's handout
(handout.py: its solution regions replaced by their stubs), built on
both arches, must boot and grade below 100%: the stubs compile and run
and fail the tests that matter.

Python 3 standard library only.
"""

import argparse
import fnmatch
import os
import subprocess

from . import ROOT, boot, ktap, matrix, qemu
from .handout import HandoutError, handout_lab, scan, write_handout


class Test:
    """A graded test: @points if every case matching @cases passed."""

    def __init__(self, name, points, cases):
        self.name = name
        self.points = points
        self.cases = cases          # fnmatch patterns over suite.case


class Run:
    """The boots a lab needs on each arch: ktest=@suites at @cpus CPUs,
    in locking mode @locking (None: the default, proxy)."""

    def __init__(self, suites, cpus, locking=None, icount=False):
        self.suites = suites
        self.cpus = cpus
        self.locking = locking
        self.icount = icount

    def boot(self, arch, tag):
        cmd = "ktest=%s expect_cpus=%d" % (",".join(self.suites), self.cpus)
        if self.locking:
            cmd += " locking=%s" % self.locking
        if self.icount:
            cmd += " icount=1"
        name = "%s/grade%s-smp%d%s%s" % (
            arch, tag, self.cpus, "-" + self.locking if self.locking else "",
            "-icount" if self.icount else "")
        b = boot.Boot(arch, self.cpus, "kernel", cmd, name, "test")
        if self.icount:
            b.extra = qemu.ICOUNT[arch]
        return b


class ScenarioRun:
    """A built-in scenario (docs/scenarios.md) booted at @cpus CPUs under
    -icount, as make test boots them: its assertions are KTAP cases
    "NAME.L<line>_...", and "NAME.finished"."""

    def __init__(self, name, cpus=2):
        self.name = name
        self.cpus = cpus

    def boot(self, arch, tag):
        b = boot.Boot(arch, self.cpus, "kernel",
                      "scenario=%s expect_cpus=%d icount=1"
                      % (self.name, self.cpus),
                      "%s/grade%s-smp%d-%s" % (arch, tag, self.cpus,
                                               self.name), "test")
        b.extra = qemu.ICOUNT[arch]
        return b


class Lab:
    def __init__(self, n, name, what, runs, tests):
        self.n = n
        self.name = name            # docs/labs/<name>.md
        self.what = what
        self.runs = runs
        self.tests = tests


# The labs.  Each test's cases were chosen so that the lab's stub fails
# them (the others show that the rest still works); `--check-all`
# proves both directions.  Timing cases that SKIP on a busy host run
# under -icount where they can.
LABS = {
    6: Lab(6, "lab6_rt_pick", "the RT class's O(1) pick and its push "
           "decision",
           [Run(("sched_rt",), 1), Run(("sched_rt",), 2)],
           [Test("RT pick: a woken RT task runs before less important "
                 "ones", 40, ["sched_rt.woken_rt_displaces_lowest"]),
            Test("RT push/pull: the most important RT tasks run, one per "
                 "CPU", 40, ["sched_rt.smp_top_n_run"]),
            Test("RT class: FIFO order, RR slices, RT before fair", 20,
                 ["sched_rt.fifo_equal_prio_keeps_order",
                  "sched_rt.rr_rotates_at_slice",
                  "sched_rt.rt_runs_before_fair"])]),
    7: Lab(7, "lab7_eevdf", "EEVDF's pick: eligibility and the earliest "
           "virtual deadline",
           [Run(("sched_fair",), 1, icount=True)],
           [Test("EEVDF pick: the eligible entity with the earliest "
                 "deadline, step by step", 60,
                 ["sched_fair.private_rq_invariants"]),
            Test("Fair shares and short-slice wakeups", 40,
                 ["sched_fair.nice_shares_follow_weights",
                  "sched_fair.short_slice_*"])]),
    8: Lab(8, "lab8_inherit", "priority inheritance: the PI walk and the "
           "most important waiter first",
           [Run(("mutex", "mutex_order", "proxy", "football"), 2),
            ScenarioRun("inherit"), ScenarioRun("inherit_order")],
           [Test("PI walk: the owner runs with its top waiter's context",
                 40, ["proxy.inversion_inherit", "football.inherit_*",
                      "inherit.*", "inherit_order.*"]),
            Test("Handoff: the most important waiter gets the lock", 40,
                 ["mutex_order.inherit_*"]),
            Test("Mutexes still work", 20, ["mutex.*"])]),
    9: Lab(9, "lab9_proxy", "proxy execution: the chain walk of the pick",
           [Run(("proxy", "proxy_chains", "football"), 2),
            ScenarioRun("lab3_chain"), ScenarioRun("chain3")],
           [Test("Proxy: the owner runs with the donor's context", 40,
                 ["proxy.inversion_proxy", "proxy.cross_*",
                  "proxy.chain_of_seven", "proxy.several_donors",
                  "proxy.owner_sleeps", "proxy.unlock_hands_to_donor"]),
            Test("Proxy: a blocked_on cycle is reported, not walked "
                 "forever", 20, ["proxy.deadlock_cycle_*"]),
            Test("Proxy: chains across CPUs and football; lab 3's chain",
                 40, ["proxy_chains.*", "football.proxy_*", "lab3_chain.*",
                      "chain3.*"])]),
}


def lab_boots(lab, arches, tag=""):
    return [r.boot(a, tag) for a in arches for r in lab.runs]


def collect(results):
    """{arch: {case: (status, boot name)}} and [(arch, boot name,
    problem)] from the grading boots."""
    cases, problems = {}, []
    for res in results:
        b = res.boot
        got, probs = ktap.parse_ktap(res.log) if not res.error else ([], [])
        why = list(probs)
        why += [x for x in (res.error, res.timed_out and
                            "timed out: %s" % res.timed_out,
                            ktap.find_panic(res.log)) if x]
        for p in why:
            problems.append((b.arch, b.name, p))
        for c in got:
            key = c.full_name()
            # Several boots may run a case: it must pass in each.
            prev = cases.setdefault(b.arch, {}).get(key)
            if prev is None or prev[0] != "FAIL":
                if prev is None or c.status != "SKIP":
                    cases[b.arch][key] = (c.status, b.name)
    return cases, problems


def judge_test(t, cases, arches):
    """(ok, lines of why not).  Ok: on each arch, a case matching the
    test passed, and none failed.  A SKIP (a timing case on a busy host,
    a case that needs more CPUs) counts neither way."""
    why = []
    for arch in arches:
        seen = {k: v for k, v in cases.get(arch, {}).items()
                if any(fnmatch.fnmatchcase(k, p) for p in t.cases)}
        failed = ["%s %s: %s" % (where, k, status)
                  for k, (status, where) in sorted(seen.items())
                  if status not in ("PASS", "SKIP")]
        why += failed
        if not failed and not any(st == "PASS" for st, _ in seen.values()):
            why.append("%s: no passing result of %s" % (arch,
                                                         " ".join(t.cases)))
    return not why, why


def grade(lab, arches, jobs, timeout, tag=""):
    """Run lab @lab's boots on @arches, print the xv6-style report;
    returns (score, total)."""
    results = boot.run_all(lab_boots(lab, arches, tag), timeout, jobs)
    cases, problems = collect(results)
    score = total = 0
    print("Lab %d (%s): %s" % (lab.n, lab.name, lab.what))
    for arch, name, p in problems:
        print("  boot %s: %s" % (name, p))
    for t in lab.tests:
        ok, why = judge_test(t, cases, arches)
        total += t.points
        score += t.points if ok else 0
        report(t.name, ok, t.points, why)
    print("Score: %d/%d" % (score, total))
    return score, total


def report(name, ok, points, why):
    if ok:
        print("== Test %s == ok (%d pts)" % (name, points))
    else:
        print("== Test %s == FAIL (0/%d pts)" % (name, points))
        for w in why[:8]:
            print("    " + w)
        if len(why) > 8:
            print("    ... and %d more" % (len(why) - 8))


def build(tree, arches):
    for a in arches:
        r = subprocess.run(["make", "--no-print-directory", "-C", tree,
                            "-j%d" % (os.cpu_count() or 1), "ARCH=" + a,
                            "images"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if r.returncode:
            out = r.stdout.decode(errors="replace").splitlines()
            errs = [l for l in out if "error" in l.lower()][:10] or out[-10:]
            raise RuntimeError("make ARCH=%s images failed in %s:\n  %s"
                               % (a, tree, "\n  ".join(errs)))


def check_all(arches, jobs, timeout):
    """CI: every lab grades 100% here, and below 100% in its handout."""
    lab = handout_lab()
    if lab is not None:
        print("grade-check: skipped: this is the handout of lab %d (its "
              "grade: make grade LAB=%d)" % (lab, lab))
        return 0
    bad = []
    found = scan()
    for n in sorted(LABS):
        if n not in found:
            bad.append("lab %d: no solution regions in the source" % n)
    for n in sorted(found):
        if n not in LABS:
            bad.append("lab %d: regions in the source but no grading in "
                       "tools/kestrel/grade.py" % n)
    for n, lab in sorted(LABS.items()):
        score, total = grade(lab, arches, jobs, timeout)
        if score != total:
            bad.append("lab %d: the full tree grades %d/%d" % (n, score, total))
        out = os.path.join(ROOT, "build", "handout", "lab%d" % n)
        try:
            write_handout(n, out)
            build(out, arches)
        except (HandoutError, RuntimeError) as e:
            bad.append("lab %d handout: %s" % (n, e))
            continue
        saved = boot.BUILD_ROOT
        boot.BUILD_ROOT = os.path.join(out, "build")
        try:
            hscore, htotal = grade(lab, arches, jobs, timeout, "-handout")
        finally:
            boot.BUILD_ROOT = saved
        if hscore >= htotal:
            bad.append("lab %d: its handout grades %d/%d: the stubs must "
                       "fail" % (n, hscore, htotal))
    for b in bad:
        print("FAIL grade-check %s" % b)
    print("grade-check: %d labs, %s" % (len(LABS), "ok" if not bad else
                                        "%d problems" % len(bad)))
    return 1 if bad else 0


def grade_main(argv):
    ap = argparse.ArgumentParser(
        prog="runner.py grade",
        description="Grade programming lab N on this tree (docs/labs/).")
    ap.add_argument("lab", nargs="?", type=int)
    ap.add_argument("--arch", choices=matrix.ARCHES,
                    help="one arch only (the grade counts both)")
    ap.add_argument("--no-build", action="store_true",
                    help="use the images in build/ as they are")
    ap.add_argument("--check-all", action="store_true",
                    help="CI: every lab 100%% here, below in its handout")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float)
    args = ap.parse_args(argv)
    os.chdir(ROOT)
    arches = [args.arch] if args.arch else list(matrix.ARCHES)
    if args.check_all:
        return check_all(arches, args.jobs, args.timeout)
    if args.lab is None:
        ap.error("give the lab's number (%s)" % ", ".join(
            "%d: %s" % (n, l.name) for n, l in sorted(LABS.items())))
    lab = LABS.get(args.lab)
    if not lab:
        print("grade: no programming lab %d (there are: %s)" % (
            args.lab, ", ".join("%d %s" % (n, l.name)
                                for n, l in sorted(LABS.items()))))
        return 2
    if not args.no_build:
        try:
            build(ROOT, arches)
        except RuntimeError as e:
            print("grade: %s" % e)
            print("Score: 0/%d" % sum(t.points for t in lab.tests))
            return 1
    score, total = grade(lab, arches, args.jobs, args.timeout)
    return 0 if score == total else 1
