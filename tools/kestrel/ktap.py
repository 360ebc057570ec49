"""ktap.py - read the KTAP a Kestrel boot prints (docs/testing.md, "KTAP
output").

Tolerant of a serial console: printk's "[cpuN] " prefixes (also after
console noise on the same line), carriage returns, ANSI escapes, lines
of other CPUs interleaved with the stream and lost indentation.  Missing
results are a crash, not a pass.
"""

import re

ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
PREFIX_RE = re.compile(r"\[cpu\d+\] ?")
RESULT_RE = re.compile(r"^(\s*)(ok|not ok)\s+(\d+)\s*(.*?)\s*$")
PLAN_RE = re.compile(r"^(\s*)1\.\.(\d+)\s*$")
SUBTEST_RE = re.compile(r"^\s*#\s*Subtest:\s*(\S+)")
PANIC_RE = re.compile(r"PANIC\b.*")


def clean_lines(log):
    """Console text -> list of KTAP-relevant text lines.

    Drops carriage returns and ANSI escapes; strips printk's "[cpuN] "
    prefix, also when console noise precedes it on the same line (the
    text after the last prefix is the kernel's line)."""
    out = []
    for raw in log.replace("\r", "").split("\n"):
        line = ANSI_RE.sub("", raw)
        m = None
        for m in PREFIX_RE.finditer(line):
            pass
        if m:
            line = line[m.end():]
        out.append(line.rstrip())
    return out


class Case:
    def __init__(self, suite, num, name, status, reason="", diags=None,
                 line=""):
        self.suite = suite
        self.num = num
        self.name = name
        self.status = status        # "PASS", "FAIL", "SKIP"
        self.reason = reason
        self.diags = diags or []
        self.line = line            # the result line, "" if none

    def full_name(self):
        return "%s.%s" % (self.suite, self.name)


def split_directive(text):
    """'name # SKIP reason' -> ('name', 'SKIP', 'reason')."""
    if "#" in text:
        name, _, directive = text.partition("#")
        directive = directive.strip()
        word, _, rest = directive.partition(" ")
        return name.strip(), word.upper(), rest.strip()
    return text.strip(), "", ""


def parse_ktap(log):
    """Parse the KTAP output of `ktest=...`.

    Returns (cases, problems): per-case results, and boot-level problems
    (missing plan, missing results, unknown suites) each as a string."""
    cases, problems = [], []
    top_plan = None
    suites_done = []
    suite = None            # name of the suite being read
    suite_plan = None
    suite_cases = []
    diags = []
    seen_header = False

    def close_suite(reason):
        nonlocal suite, suite_plan, suite_cases
        if suite is None:
            return
        if suite_plan is None:
            problems.append("%s: no plan line" % suite)
        else:
            got = {c.num for c in suite_cases}
            for n in range(1, suite_plan + 1):
                if n not in got:
                    cases.append(Case(suite, n, "#%d" % n, "FAIL",
                                      "no result (%s)" % reason))
        suite, suite_plan, suite_cases = None, None, []

    for line in clean_lines(log):
        stripped = line.strip()
        if stripped == "KTAP version 1" and not line.startswith(" "):
            seen_header = True
            continue
        if not seen_header:
            continue
        m = SUBTEST_RE.match(line)
        if m:
            close_suite("suite ended early")
            suite, suite_plan, suite_cases, diags = m.group(1), None, [], []
            continue
        m = PLAN_RE.match(line)
        if m:
            # The first plan inside a suite is the suite's (also when a
            # console lost the indentation); the one before is the top.
            if suite is not None and suite_plan is None:
                suite_plan = int(m.group(2))
            elif suite is None and top_plan is None:
                top_plan = int(m.group(2))
            continue
        m = RESULT_RE.match(line)
        if m:
            indent, ok, num, rest = m.groups()
            name, directive, why = split_directive(rest)
            num = int(num)
            nested = bool(indent) or (suite is not None and name != suite)
            if nested and suite is None:
                problems.append("result outside a suite: %s" % stripped)
            elif nested:
                if directive == "SKIP":
                    st = "SKIP"
                elif ok == "ok" and directive not in ("TIMEOUT", "ERROR"):
                    st = "PASS"
                else:
                    st = "FAIL"
                if st == "SKIP":
                    reason = why
                elif directive in ("TIMEOUT", "ERROR"):
                    reason = directive.lower()
                else:
                    reason = ""
                c = Case(suite, num, name, st, reason, diags, stripped)
                suite_cases.append(c)
                cases.append(c)
                diags = []
            else:
                close_suite("missing")
                suites_done.append(name)
                diags = []
            continue
        if stripped.startswith("#"):
            if stripped.startswith("# unknown suite"):
                problems.append(stripped[2:])
            elif not stripped.startswith("# Totals") and suite is not None:
                d = stripped[1:].strip()
                if not re.match(r"^\S+ took [0-9.]+ ms$", d):
                    diags.append(d)
    if not seen_header:
        problems.append("no KTAP output")
        return cases, problems
    close_suite("crashed or hung inside the suite")
    if top_plan is None:
        problems.append("no top-level plan line")
    elif len(suites_done) < top_plan:
        problems.append("only %d of %d suites finished"
                        % (len(suites_done), top_plan))
    return cases, problems


def find_panic(log):
    for line in clean_lines(log):
        m = PANIC_RE.search(line)
        if m:
            return m.group(0)
    return None
