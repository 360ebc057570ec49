#!/usr/bin/env python3
"""validate.py - check a trace-event JSON file and a timeline SVG.

    validate.py [--cpus N] FILE.json|FILE.svg|FILE.html ...

JSON (Chrome trace-event format, what ui.perfetto.dev reads):
  - parses; is a list of events or an object with a "traceEvents" list;
  - every event has the fields its phase needs (ph, name, ts, pid, tid;
    dur >= 0 for X; args.name for M; id for flows), numbers are finite;
  - per track (pid, tid), timestamps never go backwards in file order;
  - every B has its E on the same track, properly nested (an E closes
    the innermost open B, with the same name if it names one), and no
    B is left open;
  - X slices on one track nest properly (no partial overlap);
  - every flow id has one start ("s") and one finish ("f"), not earlier;
  - with --cpus N: thread tracks named cpu0..cpu(N-1), each exactly once.
SVG: parses as XML, root <svg>, and exactly one lane per CPU: one
<g class="lane" data-cpu="K"> for each K in 0..N-1 (N from --cpus, or
from the root's data-cpus), each with a "cpuK" label.
HTML (the zoomable page): nothing loaded from elsewhere (no src or href
but #fragments, no <link>), a viewer script, and trace data that parses
as JSON with N CPUs and well-formed slices.

Prints each problem and exits 1 if there is any; 0 and "ok" otherwise.
Python 3 standard library only.
"""

import argparse
import json
import math
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

SVG_NS = "{http://www.w3.org/2000/svg}"
TIMED = ("B", "E", "X", "i", "I", "s", "t", "f", "C", "n", "b", "e")


def _num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) \
        and math.isfinite(v)


def _field_problems(i, ev):
    """Missing or bad fields of event #@i."""
    if not isinstance(ev, dict):
        return ["event %d is not an object" % i]
    ph = ev.get("ph")
    if not isinstance(ph, str) or not ph:
        return ["event %d has no ph" % i]
    probs = []
    need = ["pid", "tid"]
    if ph != "E":
        need.append("name")
    if ph in TIMED:
        need.append("ts")
    if ph in ("s", "t", "f"):
        need.append("id")
    for key in need:
        if key not in ev:
            probs.append("event %d (ph %s) lacks %s" % (i, ph, key))
    if "ts" in ev and not _num(ev["ts"]):
        probs.append("event %d: ts %r is not a finite number" % (i, ev["ts"]))
    if ph == "X":
        dur = ev.get("dur")
        if not _num(dur):
            probs.append("event %d (X %r): dur %r is not a number"
                         % (i, ev.get("name"), dur))
        elif dur < 0:
            probs.append("event %d (X %r): negative dur %r"
                         % (i, ev.get("name"), dur))
    if ph == "M" and not (isinstance(ev.get("args"), dict)
                          and ("name" in ev["args"]
                               or "sort_index" in ev["args"])):
        probs.append("event %d: metadata %r without args.name"
                     % (i, ev.get("name")))
    return probs


def _nesting_problems(track, xs):
    """X slices of one track [(ts, end, name)] must nest properly."""
    probs = []
    stack = []
    eps = 1e-6
    for ts, end, name in sorted(xs, key=lambda s: (s[0], -s[1])):
        while stack and stack[-1][1] <= ts + eps:
            stack.pop()
        if stack and end > stack[-1][1] + eps:
            probs.append("track %s: slice %r [%g, %g] overlaps %r [%g, %g] "
                         "without nesting" % (track, name, ts, end,
                                              stack[-1][2], stack[-1][0],
                                              stack[-1][1]))
        stack.append((ts, end, name))
    return probs


def validate_events(events, cpus=None):
    """List of trace-event dicts -> list of problems (empty: valid)."""
    probs = []
    last_ts = {}
    open_b = {}
    xs = {}
    flows = {}
    names = {}
    for i, ev in enumerate(events):
        p = _field_problems(i, ev)
        probs += p
        if p:
            continue
        ph = ev["ph"]
        track = (ev["pid"], ev["tid"])
        if ph == "M":
            if ev["name"] == "thread_name":
                names.setdefault(ev["args"].get("name"), []).append(track)
            continue
        if ph not in TIMED:
            continue
        ts = ev["ts"]
        if ts < last_ts.get(track, -math.inf):
            probs.append("track %s: event %d (%s %r) at ts %g is before the "
                         "previous one at %g" % (track, i, ph, ev.get("name"),
                                                 ts, last_ts[track]))
        last_ts[track] = max(ts, last_ts.get(track, -math.inf))
        if ph == "B":
            open_b.setdefault(track, []).append((i, ev["name"]))
        elif ph == "E":
            stack = open_b.get(track)
            if not stack:
                probs.append("track %s: event %d: E without a B" % (track, i))
            else:
                j, name = stack.pop()
                if ev.get("name") not in (None, name):
                    probs.append("track %s: event %d: E %r closes B %r "
                                 "(event %d): not properly nested"
                                 % (track, i, ev["name"], name, j))
        elif ph == "X":
            xs.setdefault(track, []).append((ts, ts + ev["dur"], ev["name"]))
        elif ph in ("s", "f"):
            key = (ev.get("cat"), ev["id"])
            flows.setdefault(key, {}).setdefault(ph, []).append(ts)
    for track, stack in sorted(open_b.items()):
        for j, name in stack:
            probs.append("track %s: B %r (event %d) has no E"
                         % (track, name, j))
    for track, slices in sorted(xs.items()):
        probs += _nesting_problems(track, slices)
    for key, ends in sorted(flows.items(), key=lambda kv: str(kv[0])):
        if len(ends.get("s", [])) != 1 or len(ends.get("f", [])) != 1:
            probs.append("flow %s: %d start(s), %d finish(es); want one each"
                         % (key[1], len(ends.get("s", [])),
                            len(ends.get("f", []))))
        elif ends["f"][0] < ends["s"][0]:
            probs.append("flow %s finishes before it starts" % key[1])
    if cpus is not None:
        for cpu in range(cpus):
            n = len(names.get("cpu%d" % cpu, []))
            if n != 1:
                probs.append("%d thread tracks named cpu%d, want 1"
                             % (n, cpu))
        extra = [n for n in names if isinstance(n, str)
                 and n.startswith("cpu") and n[3:].isdigit()
                 and int(n[3:]) >= cpus]
        for n in sorted(extra):
            probs.append("track %s beyond cpus=%d" % (n, cpus))
    return probs


def validate_json(text, cpus=None):
    """Trace-event JSON text -> list of problems (empty: valid)."""
    try:
        doc = json.loads(text)
    except ValueError as e:
        return ["not JSON: %s" % e]
    if isinstance(doc, dict):
        events = doc.get("traceEvents")
        if not isinstance(events, list):
            return ["JSON object without a traceEvents list"]
    elif isinstance(doc, list):
        events = doc
    else:
        return ["JSON is neither a list of events nor an object"]
    if not events:
        return ["no events"]
    return validate_events(events, cpus)


def check_svg(text, cpus=None):
    """SVG text -> list of problems: well-formed, one lane per CPU."""
    try:
        root = ET.fromstring(text)
    except ET.ParseError as e:
        return ["SVG is not well-formed XML: %s" % e]
    if root.tag not in ("svg", SVG_NS + "svg"):
        return ["root element is <%s>, not <svg>" % root.tag]
    if cpus is None:
        dc = root.get("data-cpus", "")
        if not dc.isdigit():
            return ["no --cpus given and the root has no data-cpus"]
        cpus = int(dc)
    lanes = {}
    probs = []
    for g in root.iter():
        if g.tag not in ("g", SVG_NS + "g"):
            continue
        if "lane" not in (g.get("class") or "").split():
            continue
        cpu = g.get("data-cpu", "")
        if not cpu.isdigit():
            probs.append("lane without a numeric data-cpu: %r" % cpu)
            continue
        lanes.setdefault(int(cpu), []).append(g)
    for cpu in range(cpus):
        n = len(lanes.get(cpu, []))
        if n != 1:
            probs.append("%d lanes for cpu%d, want 1" % (n, cpu))
            continue
        texts = ["".join(t.itertext()) for t in lanes[cpu][0].iter()
                 if t.tag in ("text", SVG_NS + "text")]
        if "cpu%d" % cpu not in texts:
            probs.append("lane cpu%d has no 'cpu%d' label" % (cpu, cpu))
    for cpu in sorted(lanes):
        if cpu >= cpus:
            probs.append("lane for cpu%d beyond cpus=%d" % (cpu, cpus))
    return probs


class _HtmlScan(HTMLParser):
    """What check_html() looks at: external references and the data."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.external = []
        self.data = None
        self._in_data = False
        self.scripts = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("src", "href"):
            v = a.get(key)
            if v and not v.startswith("#") and not v.startswith("data:"):
                self.external.append("<%s %s=%r>" % (tag, key, v))
        if tag == "link":
            self.external.append("<link>")
        if tag == "script":
            self.scripts += 1
            self._in_data = a.get("id") == "trace-data"
            if self._in_data:
                self.data = ""

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_data = False

    def handle_data(self, data):
        if self._in_data:
            self.data += data


def check_html(text, cpus=None):
    """The zoomable HTML page -> list of problems: nothing loaded from
    elsewhere (no src/href but #fragments, no <link>), its trace data
    parses, with @cpus CPUs and slices on CPUs below that."""
    scan = _HtmlScan()
    try:
        scan.feed(text)
        scan.close()
    except Exception as e:      # HTMLParser raises little; be safe
        return ["HTML does not parse: %s" % e]
    probs = ["HTML refers to something outside the file: %s" % x
             for x in scan.external]
    if scan.data is None:
        return probs + ["HTML has no <script id=\"trace-data\">"]
    if scan.scripts < 2:
        probs.append("HTML has no viewer script")
    try:
        data = json.loads(scan.data)
    except ValueError as e:
        return probs + ["HTML trace data is not JSON: %s" % e]
    n = data.get("cpus") if isinstance(data, dict) else None
    if not isinstance(n, int):
        return probs + ["HTML trace data has no cpus"]
    if cpus is not None and n != cpus:
        probs.append("HTML shows %d CPUs, want %d" % (n, cpus))
    for key in ("tasks", "slices", "waits", "points", "arrows"):
        if not isinstance(data.get(key), list):
            probs.append("HTML trace data has no %s list" % key)
    for s in data.get("slices") or []:
        if not (isinstance(s, list) and len(s) >= 5 and 0 <= s[0] < n
                and s[1] <= s[2] and 0 <= s[3] < len(data["tasks"])):
            probs.append("HTML slice %r is malformed" % (s,))
            break
    return probs


def check_file(path, cpus=None):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        return ["cannot read %s: %s" % (path, e)]
    if path.endswith(".svg"):
        return check_svg(text, cpus)
    if path.endswith(".html"):
        return check_html(text, cpus)
    return validate_json(text, cpus)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+", help="*.json, *.svg or *.html")
    ap.add_argument("--cpus", type=int, help="CPUs the files must show")
    args = ap.parse_args(argv)
    bad = 0
    for path in args.files:
        probs = check_file(path, args.cpus)
        for p in probs:
            print("%s: %s" % (path, p))
        if probs:
            bad += 1
        else:
            print("%s: ok" % path)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
