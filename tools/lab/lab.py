"""lab.py - run a scenario under QEMU and draw what the scheduler did.

    runner.py lab SCENARIO [--arch A] [--cpus N] [--locking MODE]
                  [--timeout S] [--out DIR] [--no-build]
    runner.py lab --check SCENARIO [--arch A] ...   boot, convert, validate
    runner.py lab --convert FILE [--out DIR] [--allow-truncated]

(python3 tools/runner.py lab ...: this module is part of the lab package,
tools/lab/, and imports the kestrel package beside it.)

The first form is `make lab SCENARIO=file`: build the kernel (make
images), boot it with `scenario=module trace=dump [locking=MODE]` and
the scenario file as the boot module (x86_64: a GRUB ISO with the file
as a multiboot2 module; riscv64: OpenSBI, `-kernel Image -initrd FILE`),
collect the serial output, and write into build/lab/NAME-ARCH-LOCKING/:

    console.log     everything the machine printed (first line: the QEMU
                    command)
    trace.txt       the scheduler trace (docs/trace.md)
    trace.json      Chrome trace-event JSON: open it in ui.perfetto.dev
    timeline.svg    one lane per CPU (docs/lab-tools.md has the legend)

then print a summary: assertions passed/failed, trace events and lost
events, the file paths.  Exit status 0 if the scenario passed, 1 if it
failed (an assertion, a kernel error, no trace), 2 for bad usage.

CPUs default to the scenario's `cpus N` line (else 4); NAME is the
file's name without its extension.  --check also validates the JSON and
the SVG against the CPU count (tools/lab/validate.py) and prints one
PASS/FAIL line: it is the live check `make test` can call.  --convert
turns a saved console log or trace (e.g. the shell's `trace` output)
into trace.json and timeline.svg without QEMU.

Python 3 standard library only; the QEMU command lines and the boot
runner are the kestrel package's (tools/kestrel/qemu.py, boot.py).
"""

import argparse
import os
import re
import subprocess
import sys

from kestrel import ROOT, boot, ktap, matrix, qemu

from . import ktrace
from .convert import convert_text

LOCKING_MODES = ("proxy", "inherit", "none")
DEFAULT_LOCKING = "proxy"       # the kernel's mode without locking=
# `4:10: message` as the kernel reports a malformed script, possibly
# after a "# " (KTAP diagnostic) and one word ("scenario:", "module:").
PARSE_ERROR_RE = re.compile(r"^(?:#\s*)?(?:[\w.-]+:\s*)?(\d+):(\d+): (.+)$")
DURATION_RE = re.compile(r"^\s*timeout\s+(\d+)(ns|us|ms|s)\b", re.M)
SHELL_PROMPT = "kestrel>"
UNIT_S = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


class LabError(Exception):
    """Something the user must fix; the message says what.  status: the
    exit status (2: bad usage, 1: the run failed)."""

    def __init__(self, msg, status=1):
        super().__init__(msg)
        self.status = status


class Scenario:
    """What lab.py reads from a scenario file itself: only the header
    lines that choose how to boot.  The kernel parses the whole file."""

    def __init__(self, path):
        if not os.path.exists(path):
            raise LabError("scenario file %s does not exist" % path, 2)
        if not os.path.isfile(path):
            raise LabError("scenario %s is not a regular file" % path, 2)
        with open(path, "rb") as f:
            data = f.read()
        if not data.strip():
            raise LabError("scenario file %s is empty" % path, 2)
        self.path = os.path.abspath(path)
        self.text = data.decode("utf-8", errors="replace")
        self.lines = self.text.split("\n")
        stem = os.path.splitext(os.path.basename(path))[0]
        self.name = re.sub(r"[^A-Za-z0-9_.-]", "_", stem) or "scenario"
        self.cpus = self._int(r"^\s*cpus\s+(\d+)\s*(#.*)?$")
        m = re.search(r"^\s*locking\s+(\w+)", self.text, re.M)
        self.locking = m.group(1) if m else None
        m = DURATION_RE.search(self.text)
        self.timeout_s = (int(m.group(1)) * UNIT_S[m.group(2)]) if m else 5.0

    def _int(self, rx):
        m = re.search(rx, self.text, re.M)
        return int(m.group(1)) if m else None

    def show(self, line, col):
        """The source line and a caret under @col (1-based)."""
        if not 1 <= line <= len(self.lines):
            return []
        src = self.lines[line - 1].replace("\t", " ")
        return ["    " + src, "    " + " " * max(col - 1, 0) + "^"]


class LabBoot(boot.Boot):
    """A kestrel Boot whose files live in the lab's output directory and
    whose machine gets the scenario as its boot module."""

    def __init__(self, arch, cpus, cmdline, module, outdir):
        method = "grub" if arch == "x86_64" else "kernel"
        super().__init__(arch, cpus, method, cmdline,
                         "%s/lab" % arch, "lab")
        self.module = module
        self.outdir = outdir

    def log_path(self):
        return os.path.join(self.outdir, "console.log")

    def prepare(self):
        if self.arch == "x86_64":
            iso = os.path.join(self.outdir, "kestrel.iso")
            boot.run_tool(["sh", "arch/x86_64/mkiso.sh",
                           boot.BUILD_ROOT + "/x86_64/kernel.elf", iso,
                           self.cmdline, self.module])
            argv = qemu.x86_grub(self.cpus, iso)
        else:
            argv = qemu.riscv_kernel(self.cpus, self.cmdline,
                                     boot.BUILD_ROOT)
            argv += ["-initrd", self.module]
        return argv + self.extra


def build_images(arch):
    proc = subprocess.run(["make", "--no-print-directory", "-s",
                           "ARCH=" + arch, "images"], cwd=ROOT)
    if proc.returncode != 0:
        raise LabError("building the %s kernel failed (make ARCH=%s images)"
                       % (arch, arch))


def check_image(arch):
    image = os.path.join(ROOT, "build", arch,
                         "kernel.elf" if arch == "x86_64" else "Image")
    if not os.path.exists(image):
        raise LabError("%s is missing: build it with make ARCH=%s"
                       % (rel(image), arch))


def find_parse_error(log):
    for line in ktap.clean_lines(log):
        m = PARSE_ERROR_RE.match(line.strip())
        if m:
            return int(m.group(1)), int(m.group(2)), m.group(3)
    return None


def no_trace_reason(log):
    why = "the kernel printed no trace (no 'trace begin' line)"
    lines = [l.strip() for l in ktap.clean_lines(log)]
    if any(l.startswith(SHELL_PROMPT) for l in lines):
        why += ("; it started its shell instead: does this kernel know "
                "scenario=module and trace=dump?")
    return why


def tail(log, n=12):
    lines = [l for l in ktap.clean_lines(log) if l.strip()]
    return ["    | " + l for l in lines[-n:]]


def convert(text, outdir, title, allow_truncated=False, meta=None):
    """Trace text -> outdir/trace.json + timeline.svg; returns (Trace,
    json path, svg path, validation problems)."""
    tr, jtext, stext, probs = convert_text(text, title, allow_truncated,
                                           meta)
    os.makedirs(outdir, exist_ok=True)
    jpath = os.path.join(outdir, "trace.json")
    spath = os.path.join(outdir, "timeline.svg")
    with open(jpath, "w") as f:
        f.write(jtext)
    with open(spath, "w") as f:
        f.write(stext)
    return tr, jpath, spath, probs


def rel(path):
    r = os.path.relpath(path)
    return path if r.startswith("..") else r


class Outcome:
    def __init__(self):
        self.problems = []      # why the lab failed
        self.cases = []
        self.trace = None
        self.files = []


def run_lab(args, scen):
    """Boot, collect, convert: an Outcome (problems empty: success)."""
    out = Outcome()
    arch = args.arch
    # The scenario's own `locking` line is what its tasks run under.
    locking = scen.locking or args.locking or DEFAULT_LOCKING
    cpus = args.cpus or scen.cpus or 4
    outdir = os.path.abspath(args.out or os.path.join(
        ROOT, "build", "lab", "%s-%s-%s" % (scen.name, arch, locking)))
    os.makedirs(outdir, exist_ok=True)
    if args.locking and scen.locking and scen.locking != args.locking:
        print("note: the scenario sets 'locking %s' itself; locking=%s "
              "applies outside it" % (scen.locking, args.locking))
    cmdline = "scenario=module trace=dump"
    if args.locking:
        cmdline += " locking=" + args.locking
    if not args.no_build:
        build_images(arch)
    check_image(arch)
    timeout = args.timeout or 90 + 3 * scen.timeout_s
    lb = LabBoot(arch, cpus, cmdline, scen.path, outdir)
    print("lab: %s on %s, %d CPU%s, locking %s (%s)" % (
        rel(scen.path), arch, cpus, "" if cpus == 1 else "s", locking,
        cmdline))
    res = boot.run_boot(lb, timeout)
    out.files.append(("console log", lb.log_path()))
    if res.error:
        raise LabError("cannot boot: %s" % res.error)
    log = res.log
    perr = find_parse_error(log)
    if perr:
        line, col, msg = perr
        out.problems.append("the kernel rejected the scenario: %s:%d:%d: %s"
                            % (rel(scen.path), line, col, msg))
        out.problems += scen.show(line, col)
        return out
    out.cases, ktap_problems = ktap.parse_ktap(log)
    panic = ktap.find_panic(log)
    if panic:
        out.problems.append(panic)
    if res.timed_out:
        out.problems.append("QEMU timed out after %.0f s" % timeout)
    else:
        code = qemu.kernel_exit_code(arch, res.status)
        if code is None:
            out.problems.append("QEMU exited with status %s without the "
                                "kernel powering off" % res.status)
        elif code != 0:
            out.problems.append("the kernel reported failure (exit code %d)"
                                % code)
    try:
        text = ktrace.trace_text(log)
    except ktrace.TraceError:
        out.problems.append(no_trace_reason(log))
        out.problems += ["last lines of the console:"] + tail(log)
        return out
    out.problems += ["KTAP: " + p for p in ktap_problems]
    tpath = os.path.join(outdir, "trace.txt")
    with open(tpath, "w") as f:
        f.write(text)
    out.files.append(("trace text", tpath))
    title = "%s - %s, %d CPU%s, locking %s" % (
        scen.name, arch, cpus, "" if cpus == 1 else "s", locking)
    try:
        tr, jpath, spath, probs = convert(
            text, outdir, title, meta={"scenario": scen.name, "arch": arch,
                                       "locking": locking})
    except ktrace.TraceError as e:
        out.problems.append("trace: %s" % e)
        return out
    out.trace = tr
    out.files += [("Perfetto JSON", jpath), ("SVG timeline", spath)]
    if tr.cpus != cpus:
        probs.append("the trace shows %d CPUs, QEMU had %d" % (tr.cpus, cpus))
    out.problems += ["invalid output: " + p for p in probs]
    return out


def print_summary(out):
    cases = out.cases
    n = {s: sum(1 for c in cases if c.status == s)
         for s in ("PASS", "FAIL", "SKIP")}
    if cases:
        print("assertions: %d passed, %d failed, %d skipped"
              % (n["PASS"], n["FAIL"], n["SKIP"]))
    for c in cases:
        if c.status == "FAIL":
            print("  FAIL %s" % c.full_name())
            for d in c.diags:
                print("      # " + d)
    if out.trace:
        tr = out.trace
        print("trace: %d events on %d CPUs, %d lost%s" % (
            len(tr.events), tr.cpus, tr.lost,
            " (the oldest events were overwritten)" if tr.lost else ""))
        for w in tr.warnings:
            print("  warning: " + w)
    for what, path in out.files:
        print("%-14s %s" % (what + ":", rel(path)))
    if out.trace:
        print("open trace.json in https://ui.perfetto.dev (Open trace file)")
    for p in out.problems:
        print("error: " + p if not p.startswith(" ") else p)


def convert_main(args):
    try:
        with open(args.convert, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError as e:
        raise LabError("cannot read %s: %s" % (args.convert, e))
    outdir = args.out or os.path.dirname(os.path.abspath(args.convert))
    name = os.path.splitext(os.path.basename(args.convert))[0]
    try:
        tr, jpath, spath, probs = convert(text, outdir, name,
                                          args.allow_truncated)
    except ktrace.TraceError as e:
        raise LabError("%s: %s" % (args.convert, e))
    print("trace: %d events on %d CPUs, %d lost" % (len(tr.events), tr.cpus,
                                                    tr.lost))
    for w in tr.warnings:
        print("  warning: " + w)
    print("Perfetto JSON: %s\nSVG timeline:  %s" % (rel(jpath), rel(spath)))
    for p in probs:
        print("error: invalid output: " + p)
    return 1 if probs else 0


def lint_main(args):
    """--lint: build the host lint (tests/host) and run it on the file;
    its output and status are the result (0 good, 1 an error, 2 no
    file)."""
    lint = os.path.join(ROOT, "build", "host", "scn_lint")
    r = subprocess.run(["make", "-s", "-C", os.path.join(ROOT, "tests", "host"),
                        "lint"], stdout=subprocess.DEVNULL)
    if r.returncode:
        print("lab: error: cannot build %s" % lint, file=sys.stderr)
        return 2
    cmd = [lint]
    if args.cpus is not None:
        cmd += ["--cpus", str(args.cpus)]
    return subprocess.run(cmd + [args.lint]).returncode


def main(argv=None, prog=None):
    ap = argparse.ArgumentParser(
        prog=prog,
        description=__doc__.split("\n")[0],
        epilog="make lab SCENARIO=file [ARCH=..] [CPUS=..] [LOCKING=..] "
        "runs the first form.")
    ap.add_argument("scenario", nargs="?", help="scenario file to run")
    ap.add_argument("--check", metavar="SCENARIO",
                    help="boot SCENARIO, convert and validate; PASS/FAIL")
    ap.add_argument("--lint", metavar="SCENARIO",
                    help="check SCENARIO on the host with the kernel's own "
                    "parser (tests/host/scn_lint.c), no boot; status 1 on "
                    "an error (make lab-check)")
    ap.add_argument("--convert", metavar="FILE",
                    help="console log or trace text -> JSON + SVG, no QEMU")
    ap.add_argument("--arch", default="x86_64", choices=matrix.ARCHES)
    ap.add_argument("--cpus", type=int,
                    help="CPUs (default: the scenario's 'cpus' line, else 4)")
    ap.add_argument("--locking", choices=LOCKING_MODES,
                    help="boot with locking=MODE (default: the kernel's)")
    ap.add_argument("--timeout", type=float,
                    help="seconds for the whole boot (default 90 + 3 x the "
                    "scenario's timeout)")
    ap.add_argument("--out", help="output directory (default "
                    "build/lab/NAME-ARCH-LOCKING; --convert: beside FILE)")
    ap.add_argument("--no-build", action="store_true",
                    help="do not run make; use the images in build/")
    ap.add_argument("--allow-truncated", action="store_true",
                    help="--convert: draw a trace that lacks 'trace end'")
    args = ap.parse_args(argv)
    modes = [m for m in (args.scenario, args.check, args.convert, args.lint)
             if m]
    if len(modes) != 1:
        ap.error("give one of: SCENARIO, --check SCENARIO, --convert FILE, "
                 "--lint SCENARIO")
    if args.cpus is not None and not 1 <= args.cpus <= 64:
        ap.error("--cpus must be 1..64 (got %d)" % args.cpus)
    if args.out:
        args.out = os.path.abspath(args.out)
    if args.lint:
        return lint_main(args)
    try:
        if args.convert:
            return convert_main(args)
        scen = Scenario(args.check or args.scenario)
        if scen.cpus and args.cpus and args.cpus < scen.cpus:
            print("note: the scenario needs %d CPUs; with --cpus %d the "
                  "kernel will refuse it" % (scen.cpus, args.cpus))
        os.chdir(ROOT)
        out = run_lab(args, scen)
    except LabError as e:
        print("lab: error: %s" % e, file=sys.stderr)
        return e.status
    print_summary(out)
    failed = out.problems or any(c.status == "FAIL" for c in out.cases)
    verdict = "FAIL" if failed else "PASS"
    if args.check:
        print("%s %s lab.%s" % (verdict, args.arch, scen.name))
    else:
        print("result: %s" % verdict)
    return 1 if failed else 0
