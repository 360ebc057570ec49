"""perfetto.py - timeline model -> Chrome trace-event JSON (Perfetto).

Opens in ui.perfetto.dev (Open trace file) and chrome://tracing.  The
mapping (docs/lab-tools.md has the table):

  process 1 "CPUs", one thread track per CPU named "cpu0", "cpu1"...:
    X slices, one per running interval, named by the running task, or
    "task [for donor]" under proxy execution; args: task, donor, end
    state, the context's class and prio (where the trace's attr events
    give them), the proxy chain; instants (ph "i") for wakeup, migrate,
    block, acquire, release, handoff, giveup, proxy, throttle,
    replenish, dl_miss, attr, mark.
  process 2 "mutex waits", one thread track per task that ever waited:
    X slices "wait MUTEX" from block to acquire (or giveup).
  flow events (ph "s" -> "f", bound to the enclosing slices) for each
    handoff (releaser's CPU -> the CPU where the waiter picked it up)
    and each chain migration (from CPU -> to CPU).

Timestamps are microseconds (float, ns precision) from the trace's
first event.  Every track's events are written in timestamp order.

Python 3 standard library only.
"""

import json

from . import ktrace

PID_CPUS = 1
PID_WAITS = 2
TID_WAITS = 1000        # + task index: tids are unique across processes


def us(model, ns):
    return round((ns - model.start) / 1000.0, 3)


def _dur(model, start, end):
    return round(us(model, end) - us(model, start), 3)


def _meta(pid, tid, what, name, sort=None):
    evs = [{"ph": "M", "pid": pid, "tid": tid, "name": what,
            "args": {"name": name}}]
    if sort is not None:
        key = "thread_sort_index" if what == "thread_name" else \
            "process_sort_index"
        evs.append({"ph": "M", "pid": pid, "tid": tid, "name": key,
                    "args": {"sort_index": sort}})
    return evs


def _slice_event(model, s):
    args = {"task": s.task, "donor": s.donor or "unknown (switch lost)"}
    if s.end_state:
        args["then"] = s.end_state
    if s.cls is not None:
        args["class"] = s.cls
        args["prio"] = s.prio
    if s.chain:
        args["chain"] = s.chain
    if s.inferred:
        args["inferred"] = ("started before the trace's first event "
                            "on this CPU (lost events)" if model.lost else
                            "running when the trace began")
    if s.task in model.others:
        args["scenario"] = "not one of the scenario's tasks"
    if s.open_end:
        args["open"] = "still running when the trace ends"
    return {"ph": "X", "pid": PID_CPUS, "tid": s.cpu + 1,
            "name": ktrace.slice_name(model, s),
            "cat": "proxy" if s.proxied() else
                   ("idle" if ktrace.is_idle(s.task) else "run"),
            "ts": us(model, s.start), "dur": _dur(model, s.start, s.end),
            "args": args}


def _point_name(model, ev):
    a = ev.args
    lb = lambda t: ktrace.label(model, t)   # noqa: E731
    if ev.kind == "mark":
        return "mark: %s" % a["text"]
    if ev.kind == "dl_miss":
        return "DEADLINE MISS %s" % lb(a["task"])
    if ev.kind == "handoff":
        return "handoff %s %s -> %s" % (a["mutex"], lb(a["from"]),
                                        lb(a["to"]))
    if ev.kind == "migrate":
        return "migrate %s %s->%s (%s)" % (lb(a["task"]), a["from"], a["to"],
                                           a["why"])
    if ev.kind in ("block", "acquire", "release"):
        return "%s %s %s" % (ev.kind, a["mutex"], lb(a["task"]))
    if ev.kind == "proxy":
        return "proxy %s" % a["chain"]
    if ev.kind == "giveup":
        return "giveup %s %s (%s)" % (a["mutex"], lb(a["task"]), a["why"])
    if ev.kind == "attr":
        return "%s %s: %s -> %s/%s" % (a["why"], lb(a["task"]), a["was"],
                                       a["class"], a["prio"])
    return "%s %s" % (ev.kind, lb(a.get("task", "")))


def _wait_tracks(model):
    tids = {}
    for w in model.waits:
        if w.task not in tids:
            tids[w.task] = TID_WAITS + len(tids)
    return tids


def to_events(model):
    """Model -> list of trace-event dicts (metadata first, then by ts)."""
    meta = _meta(PID_CPUS, 0, "process_name", "CPUs", 0)
    for cpu in range(model.cpus):
        meta += _meta(PID_CPUS, cpu + 1, "thread_name", "cpu%d" % cpu, cpu)
    wait_tids = _wait_tracks(model)
    if wait_tids:
        meta += _meta(PID_WAITS, 0, "process_name", "mutex waits", 1)
        for i, (task, tid) in enumerate(wait_tids.items()):
            meta += _meta(PID_WAITS, tid, "thread_name",
                          "%s waits" % ktrace.label(model, task), i)
    timed = []      # (ts, order, event): order keeps slices before instants
    for slices in model.slices:
        for s in slices:
            timed.append((s.start, 0, _slice_event(model, s)))
    for w in model.waits:
        timed.append((w.start, 0, {
            "ph": "X", "pid": PID_WAITS, "tid": wait_tids[w.task],
            "name": "wait %s" % w.mutex, "cat": "wait",
            "ts": us(model, w.start),
            "dur": _dur(model, w.start, w.end),
            "args": {"task": w.task, "mutex": w.mutex, "owner": w.owner,
                     "how": w.how or ("gave up (%s)" % w.gaveup
                                      if w.gaveup else
                                      "not acquired before the trace "
                                      "ends")}}))
    for ev in model.points:
        args = dict(ev.args)
        args["line"] = ev.line
        timed.append((ev.ts, 1, {
            "ph": "i", "s": "t", "pid": PID_CPUS, "tid": ev.cpu + 1,
            "name": _point_name(model, ev), "cat": ev.kind,
            "ts": us(model, ev.ts), "args": args}))
    for i, ar in enumerate(model.arrows):
        common = {"cat": ar.kind, "name": ar.label, "id": i + 1,
                  "pid": PID_CPUS}
        start = dict(common, ph="s", tid=ar.cpu0 + 1, ts=us(model, ar.ts0))
        end = dict(common, ph="f", bp="e", tid=ar.cpu1 + 1,
                   ts=us(model, ar.ts1))
        timed.append((ar.ts0, 2, start))
        timed.append((ar.ts1, 3, end))
    timed.sort(key=lambda t: (t[0], t[1]))
    return meta + [t[2] for t in timed]


def to_json(model, extra_meta=None):
    """Model -> JSON text (object form, so metadata can ride along)."""
    other = {"source": "Kestrel scheduler trace", "cpus": model.cpus,
             "lost_events": model.trace.lost,
             "events": len(model.trace.events)}
    if extra_meta:
        other.update(extra_meta)
    doc = {"traceEvents": to_events(model), "displayTimeUnit": "ns",
           "otherData": other}
    return json.dumps(doc, indent=None, separators=(",", ":")) + "\n"
