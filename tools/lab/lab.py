"""lab.py - run a scenario under QEMU and draw what the scheduler did.

    runner.py lab SCENARIO [--arch A] [--cpus N] [--locking MODE]
                  [--timeout S] [--out DIR] [--no-build]
    runner.py lab --check SCENARIO [--arch A] ...   boot, convert, validate
    runner.py lab --convert FILE [SCENARIO] [--dump N] [--out DIR]
                  [--allow-truncated]
    runner.py lab SCENARIO --repeat N     N runs, the same trace each time
    runner.py lab SCENARIO --realtime     without -icount (make lab ICOUNT=0)

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
    timeline.html   the same, to zoom, pan and click (one file, no
                    network)

The boot runs under `qemu -icount`, with icount=1 on the kernel's
command line, as `make bench`: the guest's clock counts its
instructions, so a run gives the same trace, times and picture on any
host.  --realtime boots without it and warns when the host stalled QEMU.

It then prints a summary: assertions passed/failed, trace events and lost
events, the file paths.  Exit status 0 if the scenario passed, 1 if it
failed (an assertion, a kernel error, no trace), 2 for bad usage.

CPUs default to the scenario's `cpus N` line (else 4); NAME is the
file's name without its extension.  --check also validates the JSON and
the SVG against the CPU count (tools/lab/validate.py) and prints one
PASS/FAIL line: it is the live check `make test` can call.  --convert
turns a saved console log or trace (e.g. the shell's `trace` or `trace
save` output) into trace.json, timeline.svg and timeline.html without
QEMU; with SCENARIO it knows the script's tasks.

Python 3 standard library only; the QEMU command lines and the boot
runner are the kestrel package's (tools/kestrel/qemu.py, boot.py).
"""

import argparse
import os
import re
import subprocess
import sys
import threading

from kestrel import ROOT, boot, ktap, matrix, qemu

from . import ktrace, textpic
from .convert import HTML_NAME, convert_all

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
        # The script's own tasks: the converter draws any other task (the
        # scenario runner's, the shell) as not the scenario's.
        self.tasks = set(re.findall(r"^\s*task\s+([^\s#]+)", self.text,
                                    re.M))

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


class StallWatch:
    """Real-time runs (--realtime, ICOUNT=0): how long QEMU's threads
    were runnable but not running on the host (the host stalled the
    guest).  Linux's /proc/PID/task/TID/schedstat has each thread's
    run_delay (ns waiting on a run queue); sampled every PERIOD s, the
    worst growth in one sample and the total tell whether the guest's
    clock went on while its vCPUs could not run (a compute step then
    counts at most 100 us of a stall, a deadline budget all of it:
    what the scenario did is not what the script says)."""

    PERIOD = 0.05
    WARN_NS = 2000000       # a stall of 2 ms within one sample: warn

    def __init__(self):
        self.pid = None
        self.delay = {}             # tid -> last run_delay
        self.first = {}             # tid -> first run_delay
        self.worst = 0              # ns, largest growth in one sample
        self.stop = threading.Event()
        self.thread = None
        self.available = os.path.exists("/proc/self/schedstat")

    def start(self, proc):
        if not self.available:
            return
        self.pid = proc.pid
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def sample(self):
        base = "/proc/%d/task" % self.pid
        try:
            tids = os.listdir(base)
        except OSError:
            return False
        for tid in tids:
            try:
                with open("%s/%s/schedstat" % (base, tid)) as f:
                    d = int(f.read().split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if tid in self.delay:
                self.worst = max(self.worst, d - self.delay[tid])
            else:
                self.first[tid] = d
            self.delay[tid] = d
        return True

    def _run(self):
        while not self.stop.is_set() and self.sample():
            self.stop.wait(self.PERIOD)

    def finish(self):
        self.stop.set()
        if self.thread:
            self.thread.join(5)

    def total(self):
        return sum(self.delay[t] - self.first[t] for t in self.delay)

    def warning(self):
        """None, or what to tell the user."""
        if not self.available:
            return ("real time: cannot tell whether the host stalled the "
                    "guest (no /proc/PID/schedstat); times may differ "
                    "from the pages")
        if self.worst < self.WARN_NS:
            return None
        return ("the host stalled QEMU during this real-time run (its "
                "threads waited %.1f ms for a host CPU, up to %.1f ms "
                "within %d ms): times and budgets in the picture are "
                "disturbed; run under -icount (the default, ICOUNT=1)"
                % (self.total() / 1e6, self.worst / 1e6,
                   self.PERIOD * 1000))


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


def convert(text, outdir, title, allow_truncated=False, meta=None,
            scenario_tasks=None, which=None):
    """Trace text -> outdir/trace.json, timeline.svg and timeline.html;
    returns (Trace, json path, svg path, validation problems); the HTML
    page's path is outdir/timeline.html (HTML_NAME)."""
    tr, files, probs = convert_all(text, title, allow_truncated, meta,
                                   scenario_tasks, which)
    os.makedirs(outdir, exist_ok=True)
    paths = {}
    for name, content in files.items():
        paths[name] = os.path.join(outdir, name)
        with open(paths[name], "w") as f:
            f.write(content)
    return tr, paths["trace.json"], paths["timeline.svg"], probs


def rel(path):
    r = os.path.relpath(path)
    return path if r.startswith("..") else r


class Outcome:
    def __init__(self):
        self.problems = []      # why the lab failed
        self.cases = []
        self.trace = None
        self.files = []
        self.warnings = []      # the run may not be what the script says
        self.outdir = None
        self.model = None       # for --picture
        self.picture_ns = None


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
    if not args.realtime:
        cmdline += " icount=1"
    if args.locking:
        cmdline += " locking=" + args.locking
    if not args.no_build and not getattr(args, "built", False):
        build_images(arch)
        args.built = True
    check_image(arch)
    timeout = args.timeout or 90 + 3 * scen.timeout_s
    lb = LabBoot(arch, cpus, cmdline, scen.path, outdir)
    watch = None
    if args.realtime:
        watch = StallWatch()
        lb.on_start = watch.start
    else:
        # Deterministic time, as `make bench`: the guest's clock counts
        # its instructions, so every run gives the same trace.
        lb.extra = list(qemu.ICOUNT[arch])
    print("lab: %s on %s, %d CPU%s, locking %s, %s (%s)" % (
        rel(scen.path), arch, cpus, "" if cpus == 1 else "s", locking,
        "real time" if args.realtime else "-icount", cmdline))
    res = boot.run_boot(lb, timeout)
    if watch:
        watch.finish()
        w = watch.warning()
        if w:
            out.warnings.append(w)
    out.files.append(("console log", lb.log_path()))
    out.outdir = outdir
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
        code = boot.exit_code(res)
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
                                       "locking": locking,
                                       "icount": not args.realtime},
            scenario_tasks=scen.tasks)
    except ktrace.TraceError as e:
        out.problems.append("trace: %s" % e)
        return out
    out.trace = tr
    if getattr(args, "picture", None):
        out.model = ktrace.build_model(tr, scen.tasks)
        out.picture_ns = args.picture_ns
    out.files += [("Perfetto JSON", jpath), ("SVG timeline", spath),
                  ("HTML timeline", os.path.join(outdir, HTML_NAME))]
    if tr.cpus != cpus:
        probs.append("the trace shows %d CPUs, QEMU had %d" % (tr.cpus, cpus))
    out.problems += ["invalid output: " + p for p in probs]
    return out


def read_text(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def first_difference(a, b):
    """'line N: ... / ...' for the first line where @a and @b differ."""
    la, lb = a.split("\n"), b.split("\n")
    for i in range(max(len(la), len(lb))):
        x = la[i] if i < len(la) else "(end)"
        y = lb[i] if i < len(lb) else "(end)"
        if x != y:
            return "line %d: %r, then %r" % (i + 1, x, y)
    return None


def timing_only(a, b):
    """If traces @a and @b hold the same events in the same order and
    differ only in their timestamps: the largest difference (ns), else
    None."""
    la, lb = a.split("\n"), b.split("\n")
    if len(la) != len(lb):
        return None
    worst = 0
    for x, y in zip(la, lb):
        if x == y:
            continue
        tx, _, rx = x.partition(" ")
        ty, _, ry = y.partition(" ")
        if rx != ry or not tx.isdigit() or not ty.isdigit():
            return None
        worst = max(worst, abs(int(tx) - int(ty)))
    return worst


def repeat_runs(args, scen, first):
    """Runs 2..N of --repeat, each into outdir/runK; every trace.txt must
    be the first run's, byte for byte.  Returns the problems."""
    want = read_text(os.path.join(first.outdir, "trace.txt"))
    if want is None:
        return ["--repeat: the first run wrote no trace.txt"]
    probs = []
    base = first.outdir
    for k in range(2, args.repeat + 1):
        sub = argparse.Namespace(**vars(args))
        sub.out = os.path.join(base, "run%d" % k)
        out = run_lab(sub, scen)
        if out.problems:
            return ["--repeat: run %d: %s" % (k, p) for p in out.problems]
        got = read_text(os.path.join(sub.out, "trace.txt"))
        diff = first_difference(want, got or "")
        if diff:
            dt = timing_only(want, got or "")
            how = ("the same events in the same order, timestamps up to "
                   "%d ns apart; first " % dt) if dt is not None else ""
            probs.append("--repeat: run %d's trace differs from run 1's "
                         "(%s vs %s): %s%s" % (k, rel(os.path.join(
                             sub.out, "trace.txt")), rel(os.path.join(
                                 base, "trace.txt")), how, diff))
        else:
            print("repeat: run %d gave the same trace (%d lines)"
                  % (k, want.count("\n")))
    return probs


def print_picture(model, step):
    print("picture, one character = %s (%s):" % (
        textpic.fmt_step(step), textpic.legend(model)))
    for row in textpic.picture(model, step):
        print("    " + row)


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
    if out.model is not None and out.picture_ns:
        print_picture(out.model, out.picture_ns)
    for w in out.warnings:
        print("warning: " + w)
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
    tasks = Scenario(args.scenario).tasks if args.scenario else None
    try:
        tr, jpath, spath, probs = convert(text, outdir, name,
                                          args.allow_truncated,
                                          scenario_tasks=tasks,
                                          which=args.dump)
    except ktrace.TraceError as e:
        raise LabError("%s: %s" % (args.convert, e))
    n = ktrace.count_dumps(text)
    if n > 1:
        print("%s holds %d dumps; drew %s (--dump N for another)"
              % (rel(args.convert), n, "number %d" % args.dump if args.dump
                 else "the last complete one"))
    print("trace: %d events on %d CPUs, %d lost" % (len(tr.events), tr.cpus,
                                                    tr.lost))
    for w in tr.warnings:
        print("  warning: " + w)
    if args.picture:
        print_picture(ktrace.build_model(tr, tasks), args.picture_ns)
    print("Perfetto JSON: %s\nSVG timeline:  %s\nHTML timeline: %s"
          % (rel(jpath), rel(spath), rel(os.path.join(outdir, HTML_NAME))))
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
    ap.add_argument("--dump", type=int, metavar="N",
                    help="--convert: draw the Nth dump of FILE (1-based; "
                    "default: the last complete one), e.g. one of several "
                    "`trace save`s in a console log")
    ap.add_argument("--picture", metavar="STEP",
                    help="also print the timeline as text, one character "
                    "per STEP (e.g. 1ms, 250us): the lab pages' pictures")
    ap.add_argument("--realtime", action="store_true",
                    help="boot without -icount (make lab ICOUNT=0): real "
                    "time, warns when the host stalled the guest")
    ap.add_argument("--repeat", type=int, default=1, metavar="N",
                    help="run N times and check that every run gave the "
                    "same trace.txt (under -icount)")
    args = ap.parse_args(argv)
    modes = [m for m in (args.check, args.convert, args.lint) if m]
    if args.scenario and not args.convert:
        modes.append(args.scenario)
    if len(modes) != 1:
        ap.error("give one of: SCENARIO, --check SCENARIO, --convert FILE "
                 "[SCENARIO], --lint SCENARIO")
    if args.cpus is not None and not 1 <= args.cpus <= 64:
        ap.error("--cpus must be 1..64 (got %d)" % args.cpus)
    if not 1 <= args.repeat <= 20:
        ap.error("--repeat must be 1..20 (got %d)" % args.repeat)
    if args.picture:
        try:
            args.picture_ns = textpic.parse_step(args.picture)
        except ValueError as e:
            ap.error("--picture: %s" % e)
    if args.dump is not None and not args.convert:
        ap.error("--dump goes with --convert")
    if args.repeat > 1 and (args.realtime or args.convert):
        ap.error("--repeat compares -icount runs: not with --realtime "
                 "or --convert")
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
        if args.repeat > 1 and not out.problems:
            out.problems += repeat_runs(args, scen, out)
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
