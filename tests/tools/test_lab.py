#!/usr/bin/env python3
"""test_lab.py - host tests of the lab tools (no QEMU, a few seconds).

    python3 tests/tools/test_lab.py

The fixtures in tests/tools/fixtures/ are hand-written traces in the format
of docs/trace.md: smp4-proxy.log is a whole console log (KTAP, then the
trace) of 4 CPUs with proxy switches whose donor differs from next (one
a donor-only switch, prev == next), a chain that migrates from cpu1 to
cpu2, handoffs on one CPU and across CPUs, a deadline miss, marks, and
lost=7 with cpu3's first event a wakeup; inversion-smp1.trace is one CPU
with printk "[cpu0] " prefixes and a mark text holding '=', '#' and '<'.
"""

import contextlib
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
# The code under test: tools/ is the import root of the host tools.
TOOLS = os.path.join(HERE, "..", "..", "tools")
sys.path.insert(0, TOOLS)
from lab import ktrace, lab, perfetto, svgtimeline, validate  # noqa: E402


def fixture(name):
    with open(os.path.join(HERE, "fixtures", name)) as f:
        return f.read()


SMP4 = fixture("smp4-proxy.log")
SMP1 = fixture("inversion-smp1.trace")


def model_of(text):
    return ktrace.build_model(ktrace.parse_trace(text))


def slices(model, cpu):
    return [(ktrace.slice_name(model, s), s.start - model.start,
             s.end - model.start) for s in model.slices[cpu]]


class ParseFixtures(unittest.TestCase):
    def test_smp4_header_and_events(self):
        tr = ktrace.parse_trace(SMP4)
        self.assertEqual((tr.cpus, tr.lost, len(tr.events)), (4, 7, 59))
        self.assertEqual(tr.warnings, [])
        self.assertEqual(tr.events[0].kind, "switch")
        # Unknown keys are kept, not fatal (vruntime= on one switch).
        sw = [e for e in tr.events if "vruntime" in e.args]
        self.assertEqual(len(sw), 1)

    def test_prefixes_stripped_and_mark_text_whole(self):
        tr = ktrace.parse_trace(SMP1)
        self.assertEqual((tr.cpus, len(tr.events)), (1, 16))
        marks = [e for e in tr.events if e.kind == "mark"]
        self.assertEqual(marks[0].args["text"], "got m: prio=50 #1 <ok>")
        self.assertEqual(marks[0].args["task"], "high#6")

    def test_trace_text_extracts_only_the_trace(self):
        text = ktrace.trace_text(SMP4).split("\n")
        self.assertTrue(text[0].startswith("trace begin cpus=4"))
        self.assertEqual(text[-2], "trace end")
        self.assertEqual(len(text), 59 + 3)

    def test_last_complete_dump_wins(self):
        first = SMP1.replace("cpus=1 events=16", "cpus=1 events=2")
        tr = ktrace.parse_trace(first + "\n(shell) trace\n" + SMP4)
        self.assertEqual(tr.cpus, 4)
        # A later truncated dump does not hide the earlier complete one.
        tr = ktrace.parse_trace(SMP4 + "\ntrace begin cpus=2 lost=0\n1 0 "
                                "wakeup task=a#1 cpu=0\n")
        self.assertEqual(tr.cpus, 4)


class Model(unittest.TestCase):
    def setUp(self):
        self.m = model_of(SMP4)

    def test_proxy_slices_named_with_donor(self):
        names = [n for n, _, _ in slices(self.m, 0)]
        self.assertEqual(names, ["low", "high", "low [for high]", "high",
                                 "med", "low", "scenario"])
        # A donor-only switch (prev == next) starts a new slice.
        self.assertEqual([n for n, _, _ in slices(self.m, 2)],
                         ["b", "b [for w]", "a [for w]", "b", "idle/2"])
        s = self.m.slices[0][2]
        self.assertEqual((s.task, s.donor, s.end_state),
                         ("low#21", "high#22", "run"))
        self.assertEqual(self.m.slices[0][1].end_state, "blocked")

    def test_cpu_whose_first_switch_was_lost(self):
        first = self.m.slices[3][0]
        self.assertTrue(first.inferred)
        self.assertEqual((first.task, first.donor), ("hog3#41", None))
        self.assertEqual(first.start - self.m.start, 400000)   # its wakeup
        self.assertFalse(any(s.inferred for s in self.m.slices[0]))

    def test_slices_tile_each_cpu(self):
        for cpu in range(4):
            sl = self.m.slices[cpu]
            for a, b in zip(sl, sl[1:]):
                self.assertEqual(a.end, b.start)
            self.assertEqual(sl[-1].end, self.m.end)
            self.assertTrue(sl[-1].open_end)

    def test_waits_handoffs_chain(self):
        waits = sorted((w.task, w.mutex, w.how, w.end - w.start)
                       for w in self.m.waits)
        self.assertEqual(waits, [("a#30", "m2", "handoff", 4400000),
                                 ("high#22", "m", "handoff", 9000000),
                                 ("w#32", "m1", "handoff", 5000000)])
        arrows = sorted((a.kind, a.cpu0, a.cpu1) for a in self.m.arrows)
        self.assertEqual(arrows, [("chain", 1, 2), ("chain", 1, 2),
                                  ("handoff", 0, 0), ("handoff", 2, 1),
                                  ("handoff", 2, 2)])
        labels = [a.label for a in self.m.arrows if a.cpu0 == 2
                  and a.cpu1 == 1]
        self.assertEqual(labels, ["handoff m1: a -> w"])

    def test_names_shared_by_two_tasks_keep_their_tid(self):
        text = SMP1.replace("next=medium#7", "next=low#7").replace(
            "prev=medium#7", "prev=low#7").replace("task=medium#7",
                                                   "task=low#7")
        m = model_of(text)
        self.assertEqual(m.labels["low#5"], "low#5")
        self.assertEqual(m.labels["low#7"], "low#7")
        self.assertEqual(m.labels["high#6"], "high")


class BrokenInput(unittest.TestCase):
    def assertTraceError(self, text, needle, **kw):
        with self.assertRaises(ktrace.TraceError) as cm:
            ktrace.parse_trace(text, **kw)
        self.assertIn(needle, str(cm.exception))

    def test_no_trace_begin(self):
        self.assertTraceError(SMP4.replace("trace begin", "trace bgin"),
                              "no 'trace begin' line")
        self.assertTraceError("", "no 'trace begin' line")

    def test_truncated(self):
        cut = SMP4[:SMP4.index("1510000000 2 switch")]
        self.assertTraceError(cut, "truncated trace: no 'trace end'")
        tr = ktrace.parse_trace(cut, allow_truncated=True)
        self.assertTrue(tr.truncated)
        self.assertEqual(len(tr.events), 37)
        self.assertTrue(any("truncated" in w for w in tr.warnings))
        m = ktrace.build_model(tr)
        self.assertEqual(validate.validate_json(perfetto.to_json(m), 4), [])

    def test_bad_header(self):
        self.assertTraceError(SMP1.replace("cpus=1 ", ""), "lacks cpus=N")
        self.assertTraceError(SMP1.replace("cpus=1 ", "cpus=0 "),
                              "cpus=0 (want 1..256)")
        self.assertTraceError(SMP1.replace("lost=0", "lost=x"),
                              "lacks lost=N")

    def test_garbage_lines_skipped_with_line_numbers(self):
        lines = SMP4.split("\n")
        at = lines.index("trace end") - 5
        lines[at:at] = ["[cpu2] ok 3 garbage from another CPU",
                        "\x00\xff binary", "12 x switch prev=a"]
        tr = ktrace.parse_trace("\n".join(lines))
        self.assertEqual(len(tr.events), 59)
        self.assertIn("line %d: not an event line" % (at + 1),
                      tr.warnings[0])
        self.assertEqual(len([w for w in tr.warnings if "not an event"
                              in w]), 3)

    def test_unknown_events_skipped_and_counted(self):
        text = SMP1.replace("trace end", "2045000001 0 sched_foo a=1\n"
                            "2045000002 0 sched_foo\ntrace end").replace(
                                "events=16", "events=18")
        tr = ktrace.parse_trace(text)
        self.assertEqual(len(tr.events), 16)
        self.assertEqual(tr.warnings,
                         ["unknown event 'sched_foo' skipped (2 lines)"])

    def test_events_missing_keys_or_bad_cpus_skipped(self):
        text = SMP1.replace("trace end", "2045000001 0 switch prev=a#1\n"
                            "2045000002 3 wakeup task=a#1 cpu=0\n"
                            "2045000003 0 wakeup task=a#1 cpu=7\n"
                            "2045000004 0 dl_miss task=a#1 deadline=x "
                            "late=1\n2045000005 0 mark task=a#1 garbage\n"
                            "trace end")
        tr = ktrace.parse_trace(text)
        self.assertEqual(len(tr.events), 16)
        w = "\n".join(tr.warnings)
        for needle in ("switch lacks next, donor, state", "cpu 3 outside",
                       "cpu=7 outside", "deadline='x' is not a number",
                       "'garbage' is not key=value"):
            self.assertIn(needle, w)

    def test_event_count_checked(self):
        tr = ktrace.parse_trace(SMP1.replace("events=16", "events=17"))
        self.assertEqual(tr.warnings, ["'trace begin' says events=17, the "
                                       "dump has 16 event lines (console "
                                       "output lost or mangled?)"])

    def test_many_warnings_are_summarised(self):
        text = SMP1.replace("trace end", "junk\n" * 50 + "trace end")
        tr = ktrace.parse_trace(text)
        self.assertEqual(len(tr.warnings), ktrace.MAX_WARNINGS + 1)
        self.assertIn("and 42 more", tr.warnings[-1])

    def test_out_of_order_is_sorted_and_reported(self):
        lines = SMP1.split("\n")
        lines[3], lines[4] = lines[4], lines[3]
        tr = ktrace.parse_trace("\n".join(lines))
        self.assertTrue(any("not in timestamp order" in w
                            for w in tr.warnings))
        ts = [e.ts for e in tr.events]
        self.assertEqual(ts, sorted(ts))

    def test_empty_trace_has_nothing_to_draw(self):
        d = tempfile.mkdtemp()
        try:
            with self.assertRaises(ktrace.TraceError) as cm:
                lab.convert("trace begin cpus=2 events=0 lost=0\ntrace end",
                            d, "t")
            self.assertIn("no events", str(cm.exception))
        finally:
            shutil.rmtree(d)

    def test_acquire_lost_closes_wait_at_next_block(self):
        text = SMP1.replace(
            "[cpu0] 2020000400 0 acquire task=high#6 mutex=m how=handoff\n",
            "[cpu0] 2020000500 0 block task=high#6 mutex=n owner=low#5\n")
        m = model_of(text)
        self.assertEqual([(w.mutex, w.how) for w in m.waits],
                         [("m", None), ("n", None)])
        self.assertEqual(m.waits[0].end, m.waits[1].start)
        self.assertEqual(validate.validate_json(perfetto.to_json(m), 1), [])


class Json(unittest.TestCase):
    def setUp(self):
        self.m = model_of(SMP4)
        self.text = perfetto.to_json(self.m)
        self.events = json.loads(self.text)["traceEvents"]

    def test_valid(self):
        self.assertEqual(validate.validate_json(self.text, cpus=4), [])
        self.assertEqual(validate.validate_json(perfetto.to_json(
            model_of(SMP1)), cpus=1), [])

    def test_cpu_tracks_and_slices(self):
        names = {e["tid"]: e["args"]["name"] for e in self.events
                 if e["ph"] == "M" and e["name"] == "thread_name"
                 and e["pid"] == perfetto.PID_CPUS}
        self.assertEqual(names, {1: "cpu0", 2: "cpu1", 3: "cpu2", 4: "cpu3"})
        x = [e for e in self.events if e["ph"] == "X"
             and e["name"] == "low [for high]"]
        self.assertEqual(len(x), 1)
        self.assertEqual((x[0]["ts"], x[0]["dur"]), (3500.0, 8700.0))
        self.assertEqual(x[0]["args"]["donor"], "high#22")
        self.assertEqual(x[0]["args"]["task"], "low#21")
        inferred = [e for e in self.events if e["ph"] == "X"
                    and "inferred" in e["args"]]
        self.assertEqual([(e["name"], e["tid"]) for e in inferred],
                         [("hog3", 4)])

    def test_instants_flows_and_waits(self):
        kinds = {}
        for e in self.events:
            if e["ph"] == "i":
                kinds[e["cat"]] = kinds.get(e["cat"], 0) + 1
        self.assertEqual(kinds["dl_miss"], 1)
        self.assertEqual(kinds["mark"], 5)
        self.assertEqual(kinds["handoff"], 3)
        self.assertEqual(kinds["migrate"], 4)
        self.assertEqual(kinds["wakeup"], 4)
        flows = [e for e in self.events if e["ph"] in ("s", "f")]
        self.assertEqual(len(flows), 2 * 5)
        hand = [e for e in flows if e["cat"] == "handoff" and e["ph"] == "f"
                and e["tid"] == 2]
        self.assertEqual(len(hand), 1)      # picked up on cpu1
        waits = [e for e in self.events if e.get("cat") == "wait"]
        self.assertEqual(sorted(e["name"] for e in waits),
                         ["wait m", "wait m1", "wait m2"])
        self.assertTrue(all(e["pid"] == perfetto.PID_WAITS for e in waits))
        self.assertEqual(len({e["tid"] for e in waits}), 3)


def B(name, ts, tid=1):
    return {"ph": "B", "name": name, "ts": ts, "pid": 1, "tid": tid}


def E(ts, tid=1):
    return {"ph": "E", "ts": ts, "pid": 1, "tid": tid}


def X(name, ts, dur, tid=1):
    return {"ph": "X", "name": name, "ts": ts, "dur": dur, "pid": 1,
            "tid": tid}


class Validator(unittest.TestCase):
    def check(self, events, needle, cpus=None):
        probs = validate.validate_events(events, cpus)
        self.assertTrue(any(needle in p for p in probs),
                        "%r not in %r" % (needle, probs))

    def test_accepts_nested_begin_end(self):
        evs = [B("a", 0), B("b", 1), E(2), E(3), X("c", 5, 2), X("d", 5, 1),
               X("e", 6, 1), {"ph": "i", "s": "t", "name": "i", "ts": 7,
                              "pid": 1, "tid": 1}]
        self.assertEqual(validate.validate_events(evs), [])

    def test_rejects_unmatched_begin(self):
        self.check([B("a", 0), B("b", 1), E(2)], "B 'a' (event 0) has no E")

    def test_rejects_end_without_begin(self):
        self.check([B("a", 0, tid=2), E(1)], "E without a B")

    def test_rejects_crossed_begin_end(self):
        evs = [B("a", 0), B("b", 1), dict(E(2), name="a"), E(3)]
        self.check(evs, "not properly nested")

    def test_rejects_out_of_order_timestamps(self):
        self.check([X("a", 5, 1), X("b", 3, 1)], "before the previous one")
        # Other tracks may interleave freely.
        self.assertEqual(validate.validate_events(
            [X("a", 5, 1), X("b", 3, 1, tid=2)]), [])

    def test_rejects_bad_x(self):
        self.check([X("a", 0, -1)], "negative dur")
        self.check([X("a", 0, 3), X("b", 2, 3)], "overlaps")
        self.check([{"ph": "X", "name": "a", "ts": 0, "pid": 1,
                     "tid": 1}], "dur None is not a number")

    def test_rejects_missing_fields(self):
        self.check([{"ph": "B", "name": "a", "pid": 1, "tid": 1}], "lacks ts")
        self.check([{"name": "a"}], "has no ph")
        self.check([{"ph": "i", "ts": 1, "pid": 1, "tid": 1}], "lacks name")
        self.check([{"ph": "i", "name": "a", "ts": float("nan"), "pid": 1,
                     "tid": 1}], "not a finite number")

    def test_rejects_flow_without_finish(self):
        s = {"ph": "s", "name": "h", "cat": "handoff", "id": 1, "ts": 1,
             "pid": 1, "tid": 1}
        self.check([s], "1 start(s), 0 finish(es)")
        f = dict(s, ph="f", ts=0, tid=2)
        self.check([s, f], "finishes before it starts")

    def test_cpu_tracks_counted(self):
        text = perfetto.to_json(model_of(SMP4))
        self.assertTrue(any("thread tracks named cpu4" in p for p in
                            validate.validate_json(text, cpus=5)))
        self.assertTrue(any("beyond cpus=3" in p for p in
                            validate.validate_json(text, cpus=3)))

    def test_rejects_non_json(self):
        self.assertIn("not JSON", validate.validate_json("{")[0])
        self.assertIn("no events", validate.validate_json("[]")[0])
        self.assertIn("without a traceEvents",
                      validate.validate_json('{"a": 1}')[0])

    def test_cli(self):
        d = tempfile.mkdtemp()
        try:
            good = os.path.join(d, "good.json")
            bad = os.path.join(d, "bad.json")
            with open(good, "w") as f:
                f.write(perfetto.to_json(model_of(SMP1)))
            with open(bad, "w") as f:
                json.dump([B("a", 0)], f)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                self.assertEqual(validate.main([good, "--cpus", "1"]), 0)
                self.assertEqual(validate.main([good, bad]), 1)
            self.assertIn("has no E", out.getvalue())
        finally:
            shutil.rmtree(d)


class Svg(unittest.TestCase):
    def setUp(self):
        self.m = model_of(SMP4)
        self.text = svgtimeline.to_svg(self.m, "smp4 <test> & co")
        self.root = ET.fromstring(self.text)

    def groups(self, cls):
        return [g for g in self.root.iter("{http://www.w3.org/2000/svg}g")
                if cls in (g.get("class") or "").split()]

    def test_well_formed_one_lane_per_cpu(self):
        self.assertEqual(validate.check_svg(self.text), [])
        self.assertEqual(validate.check_svg(self.text, 4), [])
        self.assertEqual([g.get("data-cpu") for g in self.groups("lane")],
                         ["0", "1", "2", "3"])
        one = svgtimeline.to_svg(model_of(SMP1))
        self.assertEqual(validate.check_svg(one, 1), [])

    def test_drawn_items(self):
        donors = [r for r in self.root.iter("{http://www.w3.org/2000/svg}rect")
                  if r.get("class") == "donor"]
        self.assertEqual(len(donors), 3)        # low, b, a ran for others
        self.assertEqual(len(self.groups("handoff")), 3)
        self.assertEqual(len(self.groups("chain")), 2)
        self.assertEqual(len(self.groups("dl_miss")), 1)
        self.assertEqual(len(self.groups("wait")), 3)
        self.assertEqual(len(self.groups("legend")), 1)
        texts = ["".join(t.itertext()) for t in
                 self.root.iter("{http://www.w3.org/2000/svg}text")]
        self.assertIn("a has m2, runs for w", texts)
        self.assertIn("smp4 <test> & co", texts)
        legend = ["".join(t.itertext()) for t in self.groups("legend")[0]
                  .iter("{http://www.w3.org/2000/svg}text")]
        for item in ("high", "low", "w", "idle", "mutex handoff",
                     "deadline miss", "mutex wait", "chain migration"):
            self.assertIn(item, legend)

    def test_colours_stable_per_task(self):
        col = svgtimeline.task_colours(self.m)
        self.assertEqual(col["idle/1#2"], svgtimeline.IDLE)
        busy = [c for t, c in col.items() if not ktrace.is_idle(t)]
        self.assertEqual(len(busy), len(set(busy)))
        # Same names, other tids (another run): same colours.
        again = model_of(SMP4.replace("idle/1#2", "idle/1#92").replace(
            "idle/2#3", "idle/2#93"))
        col2 = svgtimeline.task_colours(again)
        self.assertEqual(col2["low#21"], col["low#21"])

    def test_axis_ticks(self):
        self.assertEqual(svgtimeline.nice_step(20000000), 2000000)
        self.assertEqual(svgtimeline.nice_step(1000000000), 100000000)
        self.assertEqual(svgtimeline.unit_for(2000000), (10**6, "ms"))
        axis = self.groups("axis")[0]
        ticks = ["".join(t.itertext()) for t in
                 axis.iter("{http://www.w3.org/2000/svg}text")]
        self.assertEqual(ticks[:3], ["0", "2", "4"])
        self.assertIn("(ms)", ticks[-1])

    def test_checker_rejects(self):
        c = validate.check_svg
        self.assertIn("not well-formed", c("<svg><g></svg>", 1)[0])
        self.assertIn("not <svg>", c("<html/>", 1)[0])
        two = self.text.replace('data-cpu="3"', 'data-cpu="1"')
        self.assertIn("2 lanes for cpu1", c(two, 4)[0])
        self.assertIn("0 lanes for cpu4", c(self.text, 5)[0])
        self.assertIn("beyond cpus=3", c(self.text, 3)[-1])
        nolabel = self.text.replace(">cpu2<", ">cpuX<")
        self.assertIn("no 'cpu2' label", c(nolabel, 4)[0])


def synth_trace(seed, cpus=4, tasks=10, ns=1000000000, drop=0):
    """A random but well-formed trace: @tasks tasks sharing 3 mutexes on
    @cpus CPUs for @ns; @drop of cpu0's oldest events lost."""
    rnd = random.Random(seed)
    names = ["t%d#%d" % (i, 10 + i) for i in range(tasks)]
    cur = ["idle/%d#%d" % (c, c + 1) for c in range(cpus)]
    held = {}
    lines = []
    t = 1000000
    while t < ns:
        cpu = rnd.randrange(cpus)
        nxt = rnd.choice(names + ["idle/%d#%d" % (cpu, cpu + 1)])
        donor = rnd.choice([nxt, nxt, rnd.choice(names)])
        lines.append((t, cpu, "switch prev=%s next=%s donor=%s state=run"
                      % (cur[cpu], nxt, donor)))
        cur[cpu] = nxt
        if not ktrace.is_idle(nxt) and rnd.random() < 0.3:
            m = "m%d" % rnd.randrange(3)
            t += 1000
            if m in held:
                lines.append((t, cpu, "block task=%s mutex=%s owner=%s"
                              % (nxt, m, held[m])))
            else:
                held[m] = nxt
                lines.append((t, cpu, "acquire task=%s mutex=%s how=fast"
                              % (nxt, m)))
        if rnd.random() < 0.05:
            lines.append((t + 500, cpu, "mark task=%s text=step %d"
                          % (nxt, t)))
        if rnd.random() < 0.05:
            lines.append((t + 600, cpu, "migrate task=%s from=%d to=%d "
                          "why=chain" % (nxt, cpu, (cpu + 1) % cpus)))
        t += rnd.randrange(100000, 3000000)
    if drop:
        # The ring kept cpu0's newest events only, and the first of those
        # is not a switch.
        cpu0 = [i for i, l in enumerate(lines) if l[1] == 0]
        lines = [l for i, l in enumerate(lines) if i not in cpu0[:drop]]
        first = [i for i, l in enumerate(lines) if l[1] == 0][0]
        lines.insert(first, (lines[first][0] - 1, 0,
                             "wakeup task=t0#10 cpu=0"))
    body = ["%d %d %s" % l for l in lines]
    return "trace begin cpus=%d events=%d lost=%d\n%s\ntrace end\n" % (
        cpus, len(body), drop, "\n".join(body))


class Synthetic(unittest.TestCase):
    def test_random_traces_convert_and_validate(self):
        for seed in range(5):
            for drop in (0, 3):
                text = synth_trace(seed, drop=drop)
                m = model_of(text)
                self.assertEqual(validate.validate_json(
                    perfetto.to_json(m), 4), [], "seed %d" % seed)
                self.assertEqual(validate.check_svg(
                    svgtimeline.to_svg(m), 4), [])
                if drop:
                    self.assertTrue(m.slices[0][0].inferred)

    def test_readable_size_for_ten_tasks_one_second(self):
        m = model_of(synth_trace(7))
        svg = svgtimeline.to_svg(m)
        self.assertLess(len(svg), 2000000)
        root = ET.fromstring(svg)
        self.assertLessEqual(int(root.get("height")), 1000)


class Driver(unittest.TestCase):
    def test_parse_error_found(self):
        log = ("[cpu0] tests/timer.c:80: cpu3: firing\n"
               "[cpu0]     # 8.500 ms a: 1:2: printed by a task\n"
               "[cpu0] scenario: 4:10: unknown mutex 'mx'\n")
        self.assertEqual(lab.find_parse_error(log),
                         (4, 10, "unknown mutex 'mx'"))
        self.assertIsNone(lab.find_parse_error(log.split("\n[cpu0] scen")[0]))
        self.assertEqual(lab.find_parse_error("# 3:1: missing 'end scenario'"),
                         (3, 1, "missing 'end scenario'"))

    def test_no_trace_reason(self):
        self.assertIn("started its shell", lab.no_trace_reason(
            "[cpu0] smp: 2 of 2 CPUs online\nkestrel> "))
        self.assertNotIn("shell", lab.no_trace_reason("PANIC at x.c:1"))

    def test_scenario_header(self):
        d = tempfile.mkdtemp()
        try:
            p = os.path.join(d, "my lab.scn")
            with open(p, "w") as f:
                f.write("scenario inv\ncpus 2   # two\nlocking inherit\n"
                        "timeout 2s\nmutex m\ntask a fair cpus=0,1\nend\n"
                        "end scenario\n")
            s = lab.Scenario(p)
            self.assertEqual((s.name, s.cpus, s.locking, s.timeout_s),
                             ("my_lab", 2, "inherit", 2.0))
            self.assertEqual(s.show(6, 13), ["    task a fair cpus=0,1",
                                             "                ^"])
            for bad, msg in ((os.path.join(d, "nope.scn"), "does not exist"),
                             (d, "not a regular file")):
                with self.assertRaises(lab.LabError) as cm:
                    lab.Scenario(bad)
                self.assertIn(msg, str(cm.exception))
                self.assertEqual(cm.exception.status, 2)
            empty = os.path.join(d, "e.scn")
            open(empty, "w").close()
            with self.assertRaises(lab.LabError):
                lab.Scenario(empty)
        finally:
            shutil.rmtree(d)

    def test_convert_cli(self):
        d = tempfile.mkdtemp()
        try:
            log = os.path.join(d, "smp4.log")
            shutil.copy(os.path.join(HERE, "fixtures", "smp4-proxy.log"), log)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                self.assertEqual(lab.main(["--convert", log]), 0)
            for f in ("trace.json", "timeline.svg"):
                self.assertTrue(os.path.exists(os.path.join(d, f)))
            self.assertIn("59 events on 4 CPUs, 7 lost", out.getvalue())
            with open(os.path.join(d, "trunc.log"), "w") as f:
                f.write(SMP1.replace("trace end", ""))
            err = io.StringIO()
            with contextlib.redirect_stdout(out), \
                    contextlib.redirect_stderr(err):
                self.assertEqual(lab.main(["--convert", os.path.join(
                    d, "trunc.log")]), 1)
                self.assertEqual(lab.main(["--convert", os.path.join(
                    d, "trunc.log"), "--allow-truncated"]), 0)
            self.assertIn("truncated trace", err.getvalue())
            # The same through the command line students type, which
            # must find the packages without help.
            os.unlink(os.path.join(d, "trace.json"))
            proc = subprocess.run(
                [sys.executable, os.path.join(TOOLS, "runner.py"), "lab",
                 "--convert", log], capture_output=True, text=True)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            self.assertIn("59 events on 4 CPUs", proc.stdout)
            self.assertTrue(os.path.exists(os.path.join(d, "trace.json")))
        finally:
            shutil.rmtree(d)

    def test_usage_errors(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            with self.assertRaises(SystemExit) as cm:
                lab.main([])
            self.assertEqual(cm.exception.code, 2)
            with self.assertRaises(SystemExit):
                lab.main(["x.scn", "--arch", "arm"])
            self.assertEqual(lab.main(["/nonexistent/x.scn"]), 2)
        self.assertIn("does not exist", err.getvalue())

    def test_lint_good_and_broken(self):
        """--lint runs the kernel's parser on the host: 0 and silent for
        a good script, 1 with file:line:col: message and a caret for a
        broken one (the lint itself: tests/host/scn_lint_test.sh)."""
        d = tempfile.mkdtemp()
        try:
            good = os.path.join(d, "good.scn")
            bad = os.path.join(d, "bad.scn")
            with open(good, "w") as f:
                f.write("scenario g\ntask a fair\n    repeat 2\n"
                        "        yield\n    end\nend\nend scenario\n")
            with open(bad, "w") as f:
                f.write("scenario b\ntask a fair\n    repeat 0\n")
            lint = lambda path: subprocess.run(
                [sys.executable, os.path.join(TOOLS, "runner.py"),
                 "lab", "--lint", path], stdout=subprocess.PIPE,
                universal_newlines=True)
            r = lint(good)
            self.assertEqual((r.returncode, r.stdout), (0, ""))
            r = lint(bad)
            self.assertEqual(r.returncode, 1)
            self.assertEqual(r.stdout.splitlines(), [
                bad + ":3:12: repeat count 0 out of range (1..10000)",
                "        repeat 0", "               ^"])
        finally:
            shutil.rmtree(d)


class FakeBoot(unittest.TestCase):
    """lab.py's judging of a boot, with boot.run_boot replaced by a
    canned console log (no QEMU)."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.scn = os.path.join(self.dir, "inv.scn")
        with open(self.scn, "w") as f:
            f.write("scenario inv\ncpus 4\nmutex m\ntask a fair\n"
                    "    lok m\nend\nend scenario\n")
        self.saved = (lab.boot.run_boot, lab.check_image)
        lab.check_image = lambda arch: None
        self.argv = []

    def tearDown(self):
        lab.boot.run_boot, lab.check_image = self.saved
        shutil.rmtree(self.dir)

    def run_lab(self, log, status, *extra, check=False):
        def fake(boot, timeout):
            self.argv.append(boot.cmdline)
            res = lab.boot.BootResult(boot)
            res.log, res.status = log, status
            return res
        lab.boot.run_boot = fake
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = lab.main(["--check"] * check + [
                self.scn, "--arch", "riscv64", "--no-build", "--out",
                self.dir] + list(extra))
        return rc, out.getvalue()

    def test_pass(self):
        rc, out = self.run_lab(SMP4, 0, "--locking", "inherit")
        self.assertEqual(rc, 0, out)
        self.assertEqual(self.argv, ["scenario=module trace=dump "
                                     "locking=inherit"])
        self.assertIn("assertions: 4 passed, 0 failed, 0 skipped", out)
        self.assertIn("trace: 59 events on 4 CPUs, 7 lost", out)
        for f in ("trace.txt", "trace.json", "timeline.svg"):
            self.assertTrue(os.path.exists(os.path.join(self.dir, f)))
        with open(os.path.join(self.dir, "trace.json")) as f:
            self.assertEqual(validate.validate_json(f.read(), 4), [])

    def test_scenario_locking_names_the_run(self):
        with open(self.scn, "a") as f:
            f.write("locking none\n")
        rc, out = self.run_lab(SMP4, 0, "--locking", "inherit")
        self.assertIn("the scenario sets 'locking none' itself", out)
        self.assertIn("locking none (scenario=module trace=dump "
                      "locking=inherit)", out)

    def test_check_pass_and_cpu_mismatch(self):
        rc, out = self.run_lab(SMP4, 0, check=True)
        self.assertEqual(rc, 0, out)
        self.assertIn("PASS riscv64 lab.inv", out)
        rc, out = self.run_lab(SMP4, 0, "--cpus", "2", check=True)
        self.assertIn("FAIL riscv64 lab.inv", out)
        rc, out = self.run_lab(SMP4, 0, "--cpus", "2")
        self.assertEqual(rc, 1)
        self.assertIn("the trace shows 4 CPUs, QEMU had 2", out)

    def test_assertion_failed(self):
        log = SMP4.replace("ok 2 high_assert_class_rt",
                           "not ok 2 high_assert_class_rt")
        rc, out = self.run_lab(log, 1)
        self.assertEqual(rc, 1)
        self.assertIn("FAIL lab_sample.high_assert_class_rt", out)
        self.assertIn("kernel reported failure (exit code 1)", out)
        self.assertIn("timeline.svg", out)      # still drawn

    def test_rejected_script_shows_the_line(self):
        log = "[cpu0] scenario: 5:5: unknown keyword 'lok'\n"
        rc, out = self.run_lab(log, 1)
        self.assertEqual(rc, 1)
        self.assertIn("inv.scn:5:5: unknown keyword 'lok'", out)
        self.assertIn("        lok m\n        ^", out)

    def test_no_trace_or_hang(self):
        rc, out = self.run_lab("[cpu0] PANIC at x.c:3: oops\n", 1)
        self.assertEqual(rc, 1)
        self.assertIn("printed no trace", out)
        self.assertIn("PANIC at x.c:3", out)
        rc, out = self.run_lab(SMP4.replace("trace end", ""), None)
        self.assertIn("truncated trace", out)


if __name__ == "__main__":
    unittest.main(verbosity=1)
