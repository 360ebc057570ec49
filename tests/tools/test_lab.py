#!/usr/bin/env python3
"""test_lab.py - tests of the lab tools.

    python3 tests/tools/test_lab.py

Host tests (no QEMU, a few seconds), and two that need more: Browser
opens the HTML timeline in headless chromium (skipped, with a line on
stderr, when none is installed), LiveRepeat boots lab1 and lab3 twice
each under -icount on each arch with a kernel image in build/ (skipped
without one) and checks that both traces are the same.  `make test` runs this file after
it has built the images.

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
from lab import htmltimeline, textpic  # noqa: E402

ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))


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


# A trace with what the fixtures lack: class/priority changes (attr),
# a deadline task throttled and replenished, a ww waiter that gives up,
# the scenario runner's own task, and a CPU whose first event is not a
# switch although nothing was lost (a reset while it ran).
EXTRA = """trace begin cpus=2 events=17 lost=0
1000 1 wakeup task=young#5 cpu=1
2000 0 switch prev=scenario#3 next=low#4 donor=low#4 state=sleep
3000 0 attr task=low#4 class=fair prio=0 was=fair/0 why=setattr
4000 1 switch prev=idle/1#2 next=young#5 donor=young#5 state=run
5000 1 block task=young#5 mutex=a owner=low#4
6000 0 attr task=low#4 class=rt prio=50 was=fair/0 why=boost
7000 1 switch prev=young#5 next=dl#6 donor=dl#6 state=blocked
8000 1 giveup task=young#5 mutex=a why=backoff
9000 1 throttle task=dl#6
10000 1 switch prev=dl#6 next=idle/1#2 donor=idle/1#2 state=run
11000 0 attr task=low#4 class=fair prio=0 was=rt/50 why=unboost
12000 1 replenish task=dl#6 deadline=40000
13000 1 switch prev=idle/1#2 next=dl#6 donor=dl#6 state=run
14000 1 dl_miss task=dl#6 deadline=13500 late=500
15000 0 switch prev=low#4 next=scenario#3 donor=scenario#3 state=dead
16000 1 mark task=dl#6 text=done
17000 0 switch prev=scenario#3 next=idle/0#1 donor=idle/0#1 state=sleep
trace end
"""


class Complete(unittest.TestCase):
    """Class and priority, throttle/replenish, giveup, the runner's
    task, inferred slices without lost events."""

    def setUp(self):
        self.m = ktrace.build_model(ktrace.parse_trace(EXTRA),
                                    {"low", "young", "dl"})

    def test_parsed_without_warnings(self):
        self.assertEqual(ktrace.parse_trace(EXTRA).warnings, [])

    def test_slices_carry_class_and_prio_split_at_changes(self):
        low = [(s.start, s.end, s.cls, s.prio) for s in self.m.slices[0]
               if s.task == "low#4"]
        self.assertEqual(low, [(2000, 3000, None, None),
                               (3000, 6000, "fair", "0"),
                               (6000, 11000, "rt", "50"),
                               (11000, 15000, "fair", "0")])

    def test_json_args_have_class_prio(self):
        evs = json.loads(perfetto.to_json(self.m))["traceEvents"]
        boosted = [e for e in evs if e["ph"] == "X" and e["ts"] == 5.0
                   and e["tid"] == 1]
        self.assertEqual((boosted[0]["args"]["class"],
                          boosted[0]["args"]["prio"]), ("rt", "50"))
        names = [e["name"] for e in evs if e.get("cat") == "attr"]
        self.assertIn("boost low: fair/0 -> rt/50", names)
        self.assertIn("giveup a young (backoff)",
                      [e["name"] for e in evs if e.get("cat") == "giveup"])

    def test_giveup_ends_the_wait(self):
        (w,) = self.m.waits
        self.assertEqual((w.start, w.end, w.how, w.gaveup),
                         (5000, 8000, None, "backoff"))
        evs = json.loads(perfetto.to_json(self.m))["traceEvents"]
        wait = [e for e in evs if e.get("cat") == "wait"][0]
        self.assertEqual(wait["args"]["how"], "gave up (backoff)")

    def test_svg_marks_budget_giveup_and_tooltips(self):
        svg = svgtimeline.to_svg(self.m)
        root = ET.fromstring(svg)
        g = [x.get("class") for x in
             root.iter("{http://www.w3.org/2000/svg}g")]
        self.assertEqual((g.count("throttle"), g.count("replenish"),
                          g.count("dl_miss")), (1, 1, 1))
        self.assertEqual(len([p for p in root.iter(
            "{http://www.w3.org/2000/svg}path")
            if p.get("class") == "giveup"]), 1)
        titles = ["".join(t.itertext()) for t in
                  root.iter("{http://www.w3.org/2000/svg}title")]
        self.assertTrue(any("class rt prio 50" in t for t in titles), titles)
        legend = " ".join(titles + ["".join(t.itertext()) for t in
                                    root.iter("{http://www.w3.org/2000/svg}"
                                              "text")])
        self.assertIn("throttled (budget used up)", legend)
        self.assertIn("wait given up", legend)

    def test_red_only_for_deadline_misses(self):
        def reddish(c):
            r, g, b = (int(c[i:i + 2], 16) for i in (1, 3, 5))
            return r > 180 and g < 130 and b < 130 or \
                r > 220 and g < 170 and b > 140    # red, pink
        self.assertEqual([c for c in svgtimeline.PALETTE if reddish(c)], [])
        svg = svgtimeline.to_svg(self.m)
        self.assertEqual(svg.count(svgtimeline.MISS), 3)  # miss + legend

    def test_runner_task_is_not_a_scenario_task(self):
        self.assertEqual(self.m.others, {"scenario#3"})
        col = svgtimeline.task_colours(self.m)
        self.assertEqual(col["scenario#3"], svgtimeline.OTHER)
        self.assertNotIn("scenario#3", svgtimeline.busy_tasks(self.m))
        # Without the script's names every task is drawn as a task.
        m = model_of(EXTRA)
        self.assertEqual(m.others, set())

    def test_no_lost_outline_when_nothing_was_lost(self):
        first = self.m.slices[1][0]
        self.assertTrue(first.inferred)         # young ran since before
        svg = svgtimeline.to_svg(self.m)
        self.assertNotIn("stroke-dasharray=\"3,2\"", svg)
        self.assertNotIn("lost events", svg)
        self.assertIn("running when the trace began", svg)
        # With events lost the outline and its legend are there.
        lost = svgtimeline.to_svg(model_of(SMP4))
        self.assertIn("stroke-dasharray=\"3,2\"", lost)
        self.assertIn("began before the trace (lost events)", lost)


class Html(unittest.TestCase):
    def test_valid_self_contained(self):
        for text, cpus in ((SMP4, 4), (SMP1, 1), (EXTRA, 2)):
            page = htmltimeline.to_html(model_of(text), "t </script> &")
            self.assertEqual(validate.check_html(page, cpus), [])
            self.assertNotIn("http://", page.replace(
                "http://www.w3.org/2000/svg", ""))
            self.assertNotIn("https://", page)

    def test_checker_rejects(self):
        page = htmltimeline.to_html(model_of(SMP4))
        c = validate.check_html
        self.assertIn("outside the file", c(page.replace(
            "<script>", '<script src="https://x/y.js"></script><script>'),
            4)[0])
        self.assertIn("shows 4 CPUs, want 2", c(page, 2)[0])
        self.assertIn("no <script id", c(page.replace("trace-data", "x"))[0])
        self.assertIn("not JSON", c(page.replace('"cpus":4', '"cpus":4,,'),
                                    4)[0])
        bad = page.replace('"slices":[[0,', '"slices":[[9,')
        self.assertIn("malformed", c(bad, 4)[0])

    def test_detail_data(self):
        d = htmltimeline.model_data(ktrace.build_model(
            ktrace.parse_trace(EXTRA), {"low", "young", "dl"}))
        names = [t[0] for t in d["tasks"]]
        boosted = [s for s in d["slices"] if s[1] == 5000 and s[0] == 0][0]
        self.assertEqual((names[boosted[3]], boosted[5], boosted[6]),
                         ("low#4", "rt", "50"))
        kinds = {t[0]: t[3] for t in d["tasks"]}
        self.assertEqual(kinds["scenario#3"], "other")
        self.assertEqual(kinds["idle/1#2"], "idle")


class TextPicture(unittest.TestCase):
    def test_one_cpu_with_donor_row(self):
        m = model_of(SMP1)      # 45 ms: low 2, low for high 18, medium 25
        rows = textpic.picture(m, 5000000)
        self.assertEqual(rows, ["cpu0 |LLLLMMMMM|",
                                "     |HHHH     | donor"])
        self.assertEqual(textpic.legend(m), "H high, L low, M medium")

    def test_shared_letters_and_the_runner(self):
        m = ktrace.build_model(ktrace.parse_trace(EXTRA),
                               {"low", "young", "dl"})
        let = textpic.letters(m)
        self.assertEqual((let["dl#6"], let["low#4"], let["young#5"],
                          let["scenario#3"], let["idle/0#1"]),
                         ("D", "L", "Y", ".", "."))
        m.tasks.append("dx#9")
        self.assertEqual(textpic.letters(m)["dx#9"], "X")

    def test_step_parsing(self):
        self.assertEqual(textpic.parse_step("0.5ms"), 500000)
        self.assertEqual(textpic.parse_step("250us"), 250000)
        for bad in ("", "5", "1 parsec", "0ms"):
            with self.assertRaises(ValueError):
                textpic.parse_step(bad)
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            with self.assertRaises(SystemExit):
                lab.main(["--convert", "x.log", "--picture", "fast"])
        self.assertIn("not a time step", err.getvalue())


def find_browser():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser(unittest.TestCase):
    """The HTML timeline in a real headless browser: the page's own
    #selftest clicks a slice, zooms and pans with synthetic events and
    writes its verdict and the detail panel into the DOM."""

    def dump(self, page_text, fragment="#selftest"):
        browser = find_browser()
        if not browser:
            print("\nSKIP Browser: no chromium installed (make deps "
                  "installs it)", file=sys.stderr)
            self.skipTest("no chromium")
        d = tempfile.mkdtemp()
        try:
            path = os.path.join(d, "timeline.html")
            with open(path, "w") as f:
                f.write(page_text)
            proc = subprocess.run(
                [browser, "--headless", "--no-sandbox", "--disable-gpu",
                 "--user-data-dir=" + os.path.join(d, "profile"),
                 "--window-size=1400,900", "--dump-dom",
                 "file://" + path + fragment],
                capture_output=True, text=True, timeout=120)
            self.assertEqual(proc.returncode, 0, proc.stderr[-2000:])
            return proc.stdout
        finally:
            shutil.rmtree(d)

    def selftest_text(self, dom):
        start = dom.find('<pre id="selftest">')
        self.assertGreaterEqual(start, 0, dom[:500])
        end = dom.find("</pre>", start)
        return dom[start + len('<pre id="selftest">'):end] \
            .replace("&gt;", ">").replace("&lt;", "<").replace("&amp;", "&")

    def test_click_zoom_pan_proxied_slice(self):
        text = self.selftest_text(self.dump(htmltimeline.to_html(
            model_of(SMP4))))
        self.assertTrue(text.startswith("selftest: PASS"), text)
        # The first proxied slice: low running for high.
        self.assertIn("task: low#21\ndonor: high#22 (runs with its "
                      "scheduling context)", text)

    def test_class_priority_and_chain_in_the_panel(self):
        m = ktrace.build_model(ktrace.parse_trace(EXTRA),
                               {"low", "young", "dl"})
        d = htmltimeline.model_data(m)
        boosted = [i for i, s in enumerate(d["slices"]) if s[5] == "rt"][0]
        text = self.selftest_text(self.dump(htmltimeline.to_html(m),
                                            "#selftest=%d" % boosted))
        self.assertTrue(text.startswith("selftest: PASS"), text)
        self.assertIn("task: low#4\ndonor: low#4 (its own context)\n"
                      "class: rt\npriority: 50\nproxy chain: none", text)
        # A proxied slice shows the chain the pick walked.
        text = self.selftest_text(self.dump(htmltimeline.to_html(
            model_of(SMP4))))
        self.assertIn("proxy chain: high#22>m>low#21", text)

    def test_a_broken_page_fails_its_selftest(self):
        # The self-test can fail: a panel that never names the donor.
        page = htmltimeline.to_html(model_of(SMP4)).replace(
            '"donor: " + d[0] + " (runs', '"helper: " + d[0] + " (runs')
        text = self.selftest_text(self.dump(page))
        self.assertIn("selftest: FAIL", text)
        self.assertIn("panel names the donor", text)


def built_arches():
    """The arches whose kernel image `make images` has built, of those
    KESTREL_TEST_ARCHES names (make test sets it; default both)."""
    wanted = os.environ.get("KESTREL_TEST_ARCHES", "x86_64 riscv64").split()
    return [a for a in wanted
            if os.path.exists(os.path.join(ROOT, "build", a, "kernel.elf"))]


class LiveRepeat(unittest.TestCase):
    """A lab booted twice under -icount gives the same trace.txt, byte
    for byte (make lab's default; `make test` builds the images first),
    on each built arch: lab1 (one CPU, a long `compute` while two tasks
    wait: the case whose riscv64 timestamps once moved from run to run,
    docs/lab-tools.md) and lab3 (a chain across two CPUs)."""

    def repeat(self, arch, name):
        d = tempfile.mkdtemp()
        try:
            proc = subprocess.run(
                [sys.executable, os.path.join(TOOLS, "runner.py"), "lab",
                 "--no-build", "--arch", arch, "--repeat", "2", "--out", d,
                 os.path.join(ROOT, "docs", "labs", name + ".scn")],
                capture_output=True, text=True, timeout=600)
            self.assertEqual(proc.returncode, 0,
                             arch + ": " + proc.stdout + proc.stderr)
            self.assertIn("repeat: run 2 gave the same trace", proc.stdout)
            with open(os.path.join(d, "trace.txt")) as f:
                return f.read()
        finally:
            shutil.rmtree(d)

    def test_labs_twice_same_trace(self):
        arches = built_arches()
        if not arches:
            print("\nSKIP LiveRepeat: no kernel image in build/ "
                  "(make images)", file=sys.stderr)
            self.skipTest("no kernel image")
        for arch in arches:
            with self.subTest(arch=arch):
                self.assertIn("text=low_unlocks",
                              self.repeat(arch, "lab1_inversion"))
                self.assertIn("chain=d#", self.repeat(arch, "lab3_chain"))


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

    def test_convert_picks_a_saved_dump(self):
        d = tempfile.mkdtemp()
        try:
            log = os.path.join(d, "session.log")
            with open(log, "w") as f:    # two `trace save`s in a session
                f.write("kestrel> trace save\n" + SMP1 +
                        "kestrel> run lab3\n...\nkestrel> trace save\n" +
                        SMP4)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                self.assertEqual(lab.main(["--convert", log]), 0)
                self.assertEqual(lab.main(["--convert", log, "--dump",
                                           "1"]), 0)
            self.assertIn("holds 2 dumps; drew the last complete one",
                          out.getvalue())
            self.assertIn("59 events on 4 CPUs", out.getvalue())
            self.assertIn("16 events on 1 CPUs", out.getvalue())
            err = io.StringIO()
            with contextlib.redirect_stdout(out), \
                    contextlib.redirect_stderr(err):
                self.assertEqual(lab.main(["--convert", log, "--dump",
                                           "3"]), 1)
            self.assertIn("no dump 3: the input holds 2", err.getvalue())
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
                                     "icount=1 locking=inherit"])
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
        self.assertIn("locking none, -icount (scenario=module trace=dump "
                      "icount=1 locking=inherit)", out)

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

    def test_repeat_finds_a_different_trace(self):
        logs = [SMP4, SMP4.replace("hog3#41", "hog3#42")]
        self.saved_logs = list(logs)

        def fake(boot, timeout):
            res = lab.boot.BootResult(boot)
            res.log, res.status = logs.pop(0), 0
            return res
        lab.boot.run_boot = fake
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = lab.main([self.scn, "--arch", "riscv64", "--no-build",
                           "--out", self.dir, "--repeat", "2"])
        self.assertEqual(rc, 1)
        self.assertIn("run 2's trace differs from run 1's", out.getvalue())
        self.assertIn("hog3#42", out.getvalue())
        self.assertNotIn("timestamps up to", out.getvalue())
        # Only a timestamp moved (riscv64 under -icount: docs).
        logs[:] = [SMP4, SMP4.replace("1510000000 2 switch",
                                      "1510000300 2 switch")]
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = lab.main([self.scn, "--arch", "riscv64", "--no-build",
                           "--out", self.dir, "--repeat", "2"])
        self.assertEqual(rc, 1)
        self.assertIn("the same events in the same order, timestamps up "
                      "to 300 ns apart", out.getvalue())
        logs[:] = [SMP4, SMP4]
        with contextlib.redirect_stdout(out):
            rc = lab.main([self.scn, "--arch", "riscv64", "--no-build",
                           "--out", self.dir, "--repeat", "2"])
        self.assertEqual(rc, 0)

    def test_realtime_warns_about_host_stalls(self):
        w = lab.StallWatch()
        w.available = True
        w.worst, w.first, w.delay = 0, {"1": 0}, {"1": 500000}
        self.assertIsNone(w.warning())
        w.worst, w.delay = 3000000, {"1": 7000000}
        self.assertIn("host stalled QEMU", w.warning())
        self.assertIn("7.0 ms", w.warning())
        # A real process: this one's threads, sampled.
        w = lab.StallWatch()
        if w.available:
            w.pid = os.getpid()
            self.assertTrue(w.sample())
            self.assertTrue(w.delay)
        rc, out = self.run_lab(SMP4, 0, "--realtime")
        self.assertEqual(self.argv[-1], "scenario=module trace=dump")
        self.assertIn("real time", out)

    def test_no_trace_or_hang(self):
        rc, out = self.run_lab("[cpu0] PANIC at x.c:3: oops\n", 1)
        self.assertEqual(rc, 1)
        self.assertIn("printed no trace", out)
        self.assertIn("PANIC at x.c:3", out)
        rc, out = self.run_lab(SMP4.replace("trace end", ""), None)
        self.assertIn("truncated trace", out)


if __name__ == "__main__":
    unittest.main(verbosity=1)
