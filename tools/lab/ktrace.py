"""ktrace.py - read Kestrel's scheduler trace text into a timeline model.

The text format is docs/trace.md (`trace begin ...` / events / `trace
end`).  parse_trace() finds the trace in a console log or a bare trace
file and returns its events; build_model() turns them into what the JSON
and SVG writers draw: per-CPU running slices, per-task mutex waits,
handoff and chain-migration arrows, and point events.

What is skipped rather than fatal (each reported in Trace.warnings, the
first few with their line numbers):
  - lines between begin and end that are not `<ts> <cpu> <event> k=v...`
    (console noise from another CPU interleaved with the dump);
  - events this tool does not know (the format may grow);
  - known events lacking a key the format promises, or naming a CPU
    outside `cpus=`;
  - unknown keys (ignored silently, as the format asks).
Fatal (TraceError, with a message that says what is missing): no `trace
begin` line, a malformed begin line, no `trace end` (a truncated dump;
allow_truncated=True converts what is there, with a warning).

Python 3 standard library only.
"""

import re

ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
PREFIX_RE = re.compile(r"^\[cpu\d+\] ")     # printk's prefix (trace format)
BEGIN_RE = re.compile(r"^trace begin\b(.*)$")
EVENT_RE = re.compile(r"^(\d+) (\d+) ([a-z_]+)((?: .*)?)$")
IDLE_RE = re.compile(r"^idle(/?\d+)?$")
MAX_WARNINGS = 8        # line-numbered warnings kept per kind

# Keys every event of a kind carries (docs/trace.md).
EVENT_KEYS = {
    "switch": ("prev", "next", "donor", "state"),
    "wakeup": ("task", "cpu"),
    "migrate": ("task", "from", "to", "why"),
    "block": ("task", "mutex", "owner"),
    "acquire": ("task", "mutex", "how"),
    "release": ("task", "mutex", "wake"),
    "handoff": ("from", "to", "mutex"),
    "proxy": ("donor", "curr", "chain"),
    "throttle": ("task",),
    "replenish": ("task", "deadline"),
    "dl_miss": ("task", "deadline", "late"),
    "mark": ("task", "text"),
    "giveup": ("task", "mutex", "why"),
    "attr": ("task", "class", "prio", "was", "why"),
}
# Keys whose value must be a decimal number.
NUMERIC_KEYS = {"cpu", "from", "to", "deadline", "late"}
NUMERIC_IN = {"wakeup": ("cpu",), "migrate": ("from", "to"),
              "replenish": ("deadline",), "dl_miss": ("deadline", "late")}


class TraceError(Exception):
    """The input holds no usable trace; the message says why."""


class Event:
    __slots__ = ("ts", "cpu", "kind", "args", "line")

    def __init__(self, ts, cpu, kind, args, line):
        self.ts = ts            # ns
        self.cpu = cpu
        self.kind = kind
        self.args = args        # {key: str}
        self.line = line        # 1-based line number in the input

    def __repr__(self):
        return "Event(%d, cpu%d, %s, %r)" % (self.ts, self.cpu, self.kind,
                                             self.args)


class Trace:
    def __init__(self):
        self.cpus = 0
        self.declared_events = None     # events= of the begin line
        self.lost = 0
        self.events = []                # in timestamp order
        self.warnings = []
        self.truncated = False
        self.begin_line = 0


def clean_line(raw):
    line = ANSI_RE.sub("", raw.rstrip("\r\n").replace("\r", ""))
    return PREFIX_RE.sub("", line, count=1)


def parse_args(kind, rest):
    """' k=v k=v' -> dict.  A mark's text= runs to the end of the line."""
    args = {}
    rest = rest.strip()
    while rest:
        if kind == "mark" and rest.startswith("text="):
            args["text"] = rest[5:]
            break
        tok, _, rest = rest.partition(" ")
        rest = rest.lstrip(" ")
        key, eq, val = tok.partition("=")
        if not eq or not key:
            return None, "'%s' is not key=value" % tok
        args[key] = val
    return args, None


def parse_header(text, lineno):
    """'cpus=4 events=12 lost=0' -> (cpus, events, lost)."""
    fields = {}
    for tok in text.split():
        key, eq, val = tok.partition("=")
        if eq:
            fields[key] = val
    for key in ("cpus", "lost"):
        if key not in fields or not fields[key].isdigit():
            raise TraceError("line %d: 'trace begin' lacks %s=N: %r"
                             % (lineno, key, "trace begin" + text))
    cpus = int(fields["cpus"])
    if not 1 <= cpus <= 256:
        raise TraceError("line %d: 'trace begin' has cpus=%d (want 1..256)"
                         % (lineno, cpus))
    events = fields.get("events")
    return cpus, int(events) if events and events.isdigit() else None, \
        int(fields["lost"])


class _Warner:
    """Collects warnings: the first MAX_WARNINGS of a kind with line
    numbers, then a count of the rest."""

    def __init__(self):
        self.kinds = {}
        self.order = []

    def add(self, kind, msg):
        if kind not in self.kinds:
            self.kinds[kind] = []
            self.order.append(kind)
        self.kinds[kind].append(msg)

    def result(self):
        out = []
        for kind in self.order:
            msgs = self.kinds[kind]
            out += msgs[:MAX_WARNINGS]
            if len(msgs) > MAX_WARNINGS:
                out.append("... and %d more: %s" % (len(msgs) - MAX_WARNINGS,
                                                     kind))
        return out


def check_event(ev, cpus):
    """Reason a parsed event cannot be used, or None."""
    if ev.cpu >= cpus:
        return "cpu %d outside cpus=%d" % (ev.cpu, cpus)
    missing = [k for k in EVENT_KEYS[ev.kind] if k not in ev.args]
    if missing:
        return "%s lacks %s" % (ev.kind, ", ".join(missing))
    for key in NUMERIC_IN.get(ev.kind, ()):
        if not ev.args[key].isdigit():
            return "%s: %s=%r is not a number" % (ev.kind, key, ev.args[key])
    if ev.kind == "wakeup" and int(ev.args["cpu"]) >= cpus:
        return "wakeup: cpu=%s outside cpus=%d" % (ev.args["cpu"], cpus)
    if ev.kind == "migrate" and max(int(ev.args["from"]),
                                    int(ev.args["to"])) >= cpus:
        return "migrate: CPU outside cpus=%d" % cpus
    return None


def find_trace(lines, which=None):
    """Index of the `trace begin` line of the trace to read and of its
    `trace end` (None if truncated).  The last complete dump wins if
    the log holds several (a shell session that dumped twice, or saved
    several with `trace save`); @which (1-based) picks one."""
    begins = [i for i, raw in enumerate(lines)
              if BEGIN_RE.match(clean_line(raw))]
    if not begins:
        raise TraceError("no 'trace begin' line: the input holds no trace "
                         "(was the kernel booted with trace=dump?)")
    if which is not None:
        if not 1 <= which <= len(begins):
            raise TraceError("no dump %d: the input holds %d ('trace "
                             "begin' lines)" % (which, len(begins)))
        b = begins[which - 1]
        stop = begins[which] if which < len(begins) else len(lines)
        for i in range(b + 1, stop):
            if clean_line(lines[i]) == "trace end":
                return b, i
        return b, None
    for n, b in reversed(list(enumerate(begins))):
        stop = begins[n + 1] if n + 1 < len(begins) else len(lines)
        for i in range(b + 1, stop):
            if clean_line(lines[i]) == "trace end":
                return b, i
    return begins[-1], None


def trace_text(text):
    """The lines of the trace in @text (console log), cleaned of
    prefixes, from `trace begin` to `trace end` (or the input's end)."""
    lines = text.split("\n")
    start, end = find_trace(lines)
    stop = len(lines) if end is None else end + 1
    return "\n".join(clean_line(l) for l in lines[start:stop]) + "\n"


def count_dumps(text):
    """How many `trace begin` lines @text holds."""
    return sum(1 for raw in text.split("\n")
               if BEGIN_RE.match(clean_line(raw)))


def parse_trace(text, allow_truncated=False, which=None):
    """Console log or bare trace text -> Trace (see the module doc);
    @which: the dump to read (1-based), else the last complete one."""
    lines = text.split("\n")
    start, _ = find_trace(lines, which)
    tr = Trace()
    tr.begin_line = start + 1
    m = BEGIN_RE.match(clean_line(lines[start]))
    tr.cpus, tr.declared_events, tr.lost = parse_header(m.group(1),
                                                        start + 1)
    warn = _Warner()
    unknown = {}
    event_lines = 0             # lines shaped like events, usable or not
    seen_end = False
    for i in range(start + 1, len(lines)):
        line = clean_line(lines[i])
        if line == "trace end":
            seen_end = True
            break
        if not line.strip():
            continue
        m = EVENT_RE.match(line)
        if not m:
            warn.add("not an event line",
                     "line %d: not an event line, skipped: %r"
                     % (i + 1, line[:80]))
            continue
        event_lines += 1
        kind = m.group(3)
        if kind not in EVENT_KEYS:
            unknown[kind] = unknown.get(kind, 0) + 1
            continue
        args, err = parse_args(kind, m.group(4))
        if err:
            warn.add("bad key=value", "line %d: %s, skipped" % (i + 1, err))
            continue
        ev = Event(int(m.group(1)), int(m.group(2)), kind, args, i + 1)
        err = check_event(ev, tr.cpus)
        if err:
            warn.add("bad event", "line %d: %s, skipped" % (i + 1, err))
            continue
        tr.events.append(ev)
    if not seen_end:
        msg = ("truncated trace: no 'trace end' after 'trace begin' on line "
               "%d (%d events read; did the kernel stop mid-dump?)"
               % (start + 1, len(tr.events)))
        if not allow_truncated:
            raise TraceError(msg)
        tr.truncated = True
        warn.add("truncated", msg)
    for kind, n in sorted(unknown.items()):
        warn.add("unknown event", "unknown event '%s' skipped (%d line%s)"
                 % (kind, n, "" if n == 1 else "s"))
    if any(b.ts < a.ts for a, b in zip(tr.events, tr.events[1:])):
        warn.add("order", "events are not in timestamp order: sorted "
                 "(stable, so each CPU keeps its recorded order)")
        tr.events.sort(key=lambda e: e.ts)
    # events= counts the lines the kernel printed: fewer arrived if the
    # console dropped or mangled some.
    if (tr.declared_events is not None and not tr.truncated
            and tr.declared_events != event_lines):
        warn.add("count", "'trace begin' says events=%d, the dump has %d "
                 "event lines (console output lost or mangled?)"
                 % (tr.declared_events, event_lines))
    tr.warnings = warn.result()
    return tr

# ---- The timeline model ---------------------------------------------------


def task_name(task):
    """'high#12' -> 'high' ('name#tid'; a value without '#' is kept)."""
    return task.rpartition("#")[0] if "#" in task else task


def is_idle(task):
    return bool(IDLE_RE.match(task_name(task)))


def class_prio(value):
    """'rt/50' -> ('rt', '50') (attr's was=); a value without '/' is a
    class alone."""
    cls, _, prio = value.partition("/")
    return cls, prio or None


class Slice:
    """@task ran on @cpu from @start to @end (ns) with @donor's context.
    inferred: the switch that started it was lost (ring overwritten),
    so it starts at the CPU's first surviving event and its donor is
    unknown (None).  open_end: still running when the trace ends."""

    def __init__(self, cpu, start, task, donor, inferred=False):
        self.cpu = cpu
        self.start = start
        self.end = start
        self.task = task
        self.donor = donor
        self.inferred = inferred
        self.open_end = False
        self.end_state = None       # prev's state at the closing switch
        # The scheduling context's class and priority when the slice
        # began (the donor's; `attr` events), None where the trace never
        # said (a task whose attributes were set before the trace).
        self.cls = None
        self.prio = None
        self.chain = None           # the proxy event's chain=, if any

    def proxied(self):
        return self.donor is not None and self.donor != self.task


class Wait:
    """@task waited for @mutex (held by @owner) from block to acquire.
    how: the acquire's how=, or None if the trace ended first (or the
    task blocked again: a lost acquire)."""

    def __init__(self, task, mutex, owner, start, cpu):
        self.task = task
        self.mutex = mutex
        self.owner = owner
        self.start = start
        self.end = start
        self.cpu = cpu
        self.end_cpu = cpu
        self.how = None
        self.gaveup = None          # giveup why= (timeout, backoff, error)


class Arrow:
    """Something passed from CPU @cpu0 at @ts0 to CPU @cpu1 at @ts1:
    kind "handoff" (mutex reserved by the releaser, picked up by the
    waiter) or "chain" (a proxy chain migration)."""

    def __init__(self, kind, cpu0, ts0, cpu1, ts1, args):
        self.kind = kind
        self.label = ""             # set once task labels are known
        self.cpu0, self.ts0 = cpu0, ts0
        self.cpu1, self.ts1 = cpu1, ts1
        self.args = args


class Model:
    def __init__(self, trace):
        self.trace = trace
        self.cpus = trace.cpus
        self.start = trace.events[0].ts if trace.events else 0
        self.end = trace.events[-1].ts if trace.events else 0
        self.slices = [[] for _ in range(trace.cpus)]
        self.waits = []
        self.arrows = []
        self.points = []            # Events drawn as instants
        self.tasks = []             # every task seen, first-seen order
        self.labels = {}            # task -> short display name
        self.lost = trace.lost
        # Tasks that are not the scenario's (the runner's own task, the
        # shell): drawn apart.  Empty unless the script's names are known.
        self.others = set()
        self.attrs = {}             # task -> [(ts, class, prio, why)]


def _note_task(model, seen, task):
    if task and task not in seen:
        seen.add(task)
        model.tasks.append(task)


def _label_tasks(model):
    """Display names: the bare name where it is unique in the trace,
    name#tid where two tasks share a name."""
    count = {}
    for t in model.tasks:
        count[task_name(t)] = count.get(task_name(t), 0) + 1
    for t in model.tasks:
        n = task_name(t)
        model.labels[t] = n if count[n] == 1 else t


TASK_KEYS = ("prev", "next", "donor", "task", "owner", "curr", "wake")


def _attr_at(model, task, ts):
    """(class, prio) of @task at @ts from its attr events, else
    (None, None)."""
    best = (None, None)
    for t, cls, prio, _ in model.attrs.get(task, ()):
        if t > ts:
            break
        best = (cls, prio)
    return best


def build_model(trace, scenario_tasks=None):
    """Trace -> Model (see the classes above).  @scenario_tasks: names of
    the script's tasks, or None (every task is drawn as a task)."""
    model = Model(trace)
    last_proxy = [None] * trace.cpus    # proxy event before its switch
    seen = set()
    running = [None] * trace.cpus       # open Slice per CPU
    first_ts = [None] * trace.cpus
    open_wait = {}                      # task -> Wait
    pending_handoff = {}                # (to task, mutex) -> handoff Event
    for ev in trace.events:
        a = ev.args
        for key in TASK_KEYS:
            if key in a and a[key] != "none":
                _note_task(model, seen, a[key])
        if ev.kind == "handoff":
            _note_task(model, seen, a["from"])
            _note_task(model, seen, a["to"])
        if first_ts[ev.cpu] is None:
            first_ts[ev.cpu] = ev.ts
        if ev.kind == "switch":
            cur = running[ev.cpu]
            if cur is None:
                # The switch that started prev was lost: prev ran at
                # least since this CPU's first surviving event.
                if first_ts[ev.cpu] < ev.ts:
                    cur = Slice(ev.cpu, first_ts[ev.cpu], a["prev"], None,
                                inferred=True)
                    model.slices[ev.cpu].append(cur)
            if cur is not None:
                cur.end = ev.ts
                cur.end_state = a["state"]
            nxt = Slice(ev.cpu, ev.ts, a["next"], a["donor"])
            px = last_proxy[ev.cpu]
            if px is not None and px.args["donor"] == a["donor"] and \
                    px.args["curr"] == a["next"]:
                nxt.chain = px.args["chain"]
            last_proxy[ev.cpu] = None
            model.slices[ev.cpu].append(nxt)
            running[ev.cpu] = nxt
        elif ev.kind == "proxy":
            last_proxy[ev.cpu] = ev
        elif ev.kind == "attr":
            model.attrs.setdefault(a["task"], []).append(
                (ev.ts, a["class"], a["prio"], a["why"]))
            # A running context whose class or priority changes (a boost
            # while it runs, the unboost at its unlock): a new slice, so
            # each slice has one class and priority.
            for c, cur in enumerate(running):
                if cur is not None and (cur.donor or cur.task) == \
                        a["task"] and cur.start < ev.ts:
                    cur.end, cur.end_state = ev.ts, "run"
                    nxt = Slice(c, ev.ts, cur.task, cur.donor,
                                cur.inferred)
                    nxt.chain = cur.chain
                    model.slices[c].append(nxt)
                    running[c] = nxt
        elif ev.kind == "giveup":
            w = open_wait.get(a["task"])
            if w is not None and w.mutex == a["mutex"]:
                del open_wait[a["task"]]
                w.end, w.end_cpu, w.gaveup = ev.ts, ev.cpu, a["why"]
        elif ev.kind == "block":
            old = open_wait.pop(a["task"], None)
            if old is not None:     # its acquire was lost
                old.end = ev.ts
            w = Wait(a["task"], a["mutex"], a["owner"], ev.ts, ev.cpu)
            open_wait[a["task"]] = w
            model.waits.append(w)
        elif ev.kind == "acquire":
            w = open_wait.get(a["task"])
            if w is not None and w.mutex == a["mutex"]:
                del open_wait[a["task"]]
                w.end, w.end_cpu, w.how = ev.ts, ev.cpu, a["how"]
            h = pending_handoff.pop((a["task"], a["mutex"]), None)
            if h is not None:
                model.arrows.append(Arrow("handoff", h.cpu, h.ts, ev.cpu,
                                          ev.ts, dict(h.args)))
        elif ev.kind == "handoff":
            pending_handoff[(a["to"], a["mutex"])] = ev
        elif ev.kind == "migrate" and a["why"] == "chain":
            model.arrows.append(Arrow("chain", int(a["from"]), ev.ts,
                                      int(a["to"]), ev.ts, dict(a)))
        if ev.kind != "switch":
            model.points.append(ev)
    for s in running:
        if s is not None:
            s.end = model.end
            s.open_end = True
    for w in open_wait.values():
        w.end = model.end
    # A handoff whose pickup was lost or not yet reached stays a point.
    _label_tasks(model)
    if scenario_tasks is not None:
        model.others = {t for t in model.tasks if not is_idle(t)
                        and task_name(t) not in scenario_tasks}
    # Class and priority of each slice's scheduling context, where the
    # trace has them (attr events: set, boost, unboost).
    for cpu_slices in model.slices:
        for s in cpu_slices:
            ctx = s.donor or s.task
            if ctx in model.attrs:
                s.cls, s.prio = _attr_at(model, ctx, s.start)
    for ar in model.arrows:
        a = ar.args
        if ar.kind == "handoff":
            ar.label = "handoff %s: %s -> %s" % (
                a["mutex"], label(model, a["from"]), label(model, a["to"]))
        else:
            ar.label = "chain migration: %s cpu%d -> cpu%d" % (
                label(model, a["task"]), ar.cpu0, ar.cpu1)
    return model


def label(model, task):
    return model.labels.get(task, task) if task else "?"


def slice_name(model, s):
    """'low [for high]' when the donor differs, else 'low'."""
    if s.proxied():
        return "%s [for %s]" % (label(model, s.task), label(model, s.donor))
    return label(model, s.task)
