"""htmltimeline.py - timeline model -> one self-contained HTML page with
a timeline you can zoom, pan and click.

The page holds the model as JSON (<script type="application/json"
id="trace-data">) and the viewer, a small script written for it (no
library, nothing fetched: it opens from a file without a network).
One lane per CPU as in the SVG (same colours, hatching for proxy
execution, mutex waits below, marks with their text, throttle and
replenish, deadline misses in red, a short legend), drawn by the script
into an <svg> for the current view:

  wheel / + - buttons / + - keys     zoom (around the pointer)
  drag / arrow keys                  pan
  0 / "whole trace"                  back to the whole trace
  click a slice                      its task, donor, class, priority,
                                     the proxy chain, times (the panel)

Opened as timeline.html#selftest the page tests itself after loading:
it clicks a slice (a proxied one if any, or slice N of the data with
#selftest=N), zooms and pans with synthetic
events, checks the panel and the view, and writes "selftest: PASS ..."
or "selftest: FAIL ..." into <pre id="selftest">, which a headless
browser's --dump-dom shows (tests/tools/test_lab.py).

Python 3 standard library only.
"""

import json
from xml.sax.saxutils import escape

from . import ktrace, svgtimeline

# The JSON rows (short keys keep a big trace's page small).
#   tasks:  [name, label, colour, kind] kind: "task", "idle", "other"
#   slices: [cpu, start, end, task, donor (-1: unknown), class, prio,
#            chain, flags] flags: 1 inferred, 2 lost-events, 4 open end
#   waits:  [task, mutex, owner, start, end, how]
#   points: [kind, cpu, ts, text]


def _ns(model, ts):
    return ts - model.start


def model_data(model):
    """The model as the page's JSON object."""
    col = svgtimeline.task_colours(model)
    index = {}
    tasks = []
    for t in model.tasks:
        index[t] = len(tasks)
        kind = "idle" if ktrace.is_idle(t) else \
            "other" if t in model.others else "task"
        tasks.append([t, ktrace.label(model, t), col.get(t, svgtimeline.IDLE),
                      kind])

    def ti(t):
        if t is None:
            return -1
        if t not in index:
            index[t] = len(tasks)
            tasks.append([t, t, svgtimeline.IDLE, "task"])
        return index[t]

    slices = []
    for cpu_slices in model.slices:
        for s in cpu_slices:
            flags = (1 if s.inferred else 0) | \
                (2 if s.inferred and model.lost else 0) | \
                (4 if s.open_end else 0)
            slices.append([s.cpu, _ns(model, s.start), _ns(model, s.end),
                           ti(s.task), ti(s.donor), s.cls, s.prio, s.chain,
                           flags, s.end_state])
    waits = []
    for w in model.waits:
        how = w.how or ("gave up (%s)" % w.gaveup if w.gaveup else None)
        waits.append([ti(w.task), w.mutex, ti(w.owner) if w.owner != "none"
                      else -1, _ns(model, w.start), _ns(model, w.end), how])
    points = []
    for ev in model.points:
        a = ev.args
        lb = lambda t: ktrace.label(model, t)   # noqa: E731
        if ev.kind == "mark":
            text = a["text"]
        elif ev.kind == "dl_miss":
            text = "deadline miss: %s, %s late" % (
                lb(a["task"]), svgtimeline.fmt_ns(int(a["late"])))
        elif ev.kind in ("throttle", "replenish"):
            text = "%s %s" % (ev.kind, lb(a["task"]))
        else:
            continue
        points.append([ev.kind, ev.cpu, _ns(model, ev.ts), text])
    arrows = [[a.kind, a.cpu0, _ns(model, a.ts0), a.cpu1,
               _ns(model, a.ts1), a.label] for a in model.arrows]
    return {"cpus": model.cpus, "span": max(model.end - model.start, 1),
            "lost": model.lost, "events": len(model.trace.events),
            "tasks": tasks, "slices": slices, "waits": waits,
            "points": points, "arrows": arrows}


CSS = """
body { font: 13px 'DejaVu Sans', Arial, sans-serif; margin: 12px; }
h1 { font-size: 16px; margin: 0 0 4px 0; }
#sub { color: #444; margin-bottom: 8px; }
#bar button { margin-right: 4px; }
#bar span { margin-left: 12px; color: #444; }
#view { border: 1px solid #bbb; cursor: grab; user-select: none;
        display: block; }
#view.drag { cursor: grabbing; }
#detail { white-space: pre-wrap; border: 1px solid #bbb; padding: 6px;
          margin-top: 8px; min-height: 4em; background: #fafafa; }
#selftest { color: #333; }
"""

# The viewer.  ES5, no library.
JS = r"""
(function () {
"use strict";
var D = JSON.parse(document.getElementById("trace-data").textContent);
var NS = "http://www.w3.org/2000/svg";
var W = 1280, LEFT = 110, RIGHT = 24, TOP = 30, LANE_H = 36, GAP = 8;
var WAIT_ROW = 16, MISS = "#d00000";
var svg = document.getElementById("view");
var detail = document.getElementById("detail");
var viewLabel = document.getElementById("range");
var view = { t0: 0, t1: D.span };
var waitTasks = [];
D.waits.forEach(function (w) {
  if (waitTasks.indexOf(w[0]) < 0) waitTasks.push(w[0]);
});
var lanesBottom = TOP + D.cpus * (LANE_H + GAP);
var legendTop = lanesBottom + 34 + (waitTasks.length ? 18 +
                                    waitTasks.length * WAIT_ROW : 0) + 8;
var H = legendTop + 24;
svg.setAttribute("width", W);
svg.setAttribute("height", H);
svg.setAttribute("viewBox", "0 0 " + W + " " + H);

function fmt(ns) {
  var a = Math.abs(ns);
  if (a >= 1e9) return (ns / 1e9).toPrecision(6) / 1 + " s";
  if (a >= 1e6) return (ns / 1e6).toPrecision(6) / 1 + " ms";
  if (a >= 1e3) return (ns / 1e3).toPrecision(6) / 1 + " us";
  return ns + " ns";
}
function px(t) {
  return LEFT + (t - view.t0) * (W - LEFT - RIGHT) / (view.t1 - view.t0);
}
function tAt(x) {
  return view.t0 + (x - LEFT) * (view.t1 - view.t0) / (W - LEFT - RIGHT);
}
function el(name, attrs, parent, text) {
  var e = document.createElementNS(NS, name);
  for (var k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}
function task(i) { return i < 0 ? null : D.tasks[i]; }
function laneY(cpu) { return TOP + cpu * (LANE_H + GAP); }

function sliceText(i) {
  var s = D.slices[i], t = task(s[3]), d = task(s[4]);
  var lines = ["task: " + t[0]];
  if (!d) lines.push("donor: unknown (its switch was not in the trace)");
  else if (s[4] === s[3]) lines.push("donor: " + d[0] + " (its own context)");
  else lines.push("donor: " + d[0] + " (runs with its scheduling context)");
  if (s[5] !== null)
    lines.push("class: " + s[5] + (s[4] !== s[3] ? " (the donor's)" : ""),
               "priority: " + s[6]);
  else
    lines.push("class: not in the trace (set before it began)",
               "priority: not in the trace");
  lines.push("proxy chain: " + (s[7] ? s[7] : "none"));
  lines.push("cpu" + s[0] + ", " + fmt(s[1]) + " .. " + fmt(s[2]) +
             " (" + fmt(s[2] - s[1]) + ")" +
             (s[9] ? ", then " + s[9] : (s[8] & 4 ? ", still running" : "")));
  if (t[3] === "other") lines.push("not one of the scenario's tasks");
  if (s[8] & 2) lines.push("began before this CPU's first surviving " +
                           "event (lost events)");
  else if (s[8] & 1) lines.push("running when the trace began");
  return lines.join("\n");
}

function select(i) {
  detail.textContent = sliceText(i);
  detail.setAttribute("data-slice", i);
}

function ticks(g) {
  var span = view.t1 - view.t0, raw = Math.max(span / 10, 1), mag = 1;
  while (mag * 10 <= raw) mag *= 10;
  var step = [1, 2, 5, 10].map(function (m) { return m * mag; })
    .filter(function (s) { return s >= raw; })[0];
  var y = lanesBottom - GAP + 6;
  el("line", { x1: LEFT, y1: y, x2: W - RIGHT, y2: y, stroke: "#000" }, g);
  for (var t = Math.ceil(view.t0 / step) * step; t <= view.t1; t += step) {
    var x = px(t);
    el("line", { x1: x, y1: y, x2: x, y2: y + 5, stroke: "#000" }, g);
    el("line", { x1: x, y1: TOP, x2: x, y2: y, stroke: "#000",
                 "stroke-opacity": 0.08 }, g);
    el("text", { x: x, y: y + 17, "font-size": 10, "text-anchor": "middle" },
       g, fmt(t));
  }
}

function render() {
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  var defs = el("defs", {}, svg);
  var pat = el("pattern", { id: "hatch", width: 6, height: 6,
                            patternUnits: "userSpaceOnUse",
                            patternTransform: "rotate(45)" }, defs);
  el("line", { x1: 0, y1: 0, x2: 0, y2: 6, stroke: "#000",
               "stroke-width": 1.6, "stroke-opacity": 0.45 }, pat);
  var clip = el("clipPath", { id: "plot" }, defs);
  el("rect", { x: LEFT, y: 0, width: W - LEFT - RIGHT, height: H }, clip);
  el("rect", { width: "100%", height: "100%", fill: "#fff" }, svg);
  var plot = el("g", { "clip-path": "url(#plot)" });
  for (var c = 0; c < D.cpus; c++) {
    el("text", { x: LEFT - 10, y: laneY(c) + LANE_H / 2 + 4,
                 "font-size": 13, "font-weight": "bold",
                 "text-anchor": "end" }, svg, "cpu" + c);
    el("rect", { x: LEFT, y: laneY(c), width: W - LEFT - RIGHT,
                 height: LANE_H, fill: "#fafafa", stroke: "#bbb" }, svg);
  }
  svg.appendChild(plot);
  D.slices.forEach(function (s, i) {
    if (s[2] < view.t0 || s[1] > view.t1) return;
    var x0 = Math.max(px(s[1]), LEFT - 2), x1 = Math.min(px(s[2]), W);
    var w = Math.max(x1 - x0, 0.4), y = laneY(s[0]);
    var t = task(s[3]), d = task(s[4]);
    var g = el("g", { "class": "slice", "data-i": i }, plot);
    el("title", {}, g, sliceText(i));
    var r = el("rect", { x: x0, y: y, width: w, height: LANE_H,
                         fill: t[2] }, g);
    if (s[8] & 2) {
      r.setAttribute("stroke", "#000");
      r.setAttribute("stroke-dasharray", "3,2");
    }
    if (d && s[4] !== s[3]) {
      el("rect", { x: x0, y: y + LANE_H - 12, width: w, height: 12,
                   fill: d[2] }, g);
      el("rect", { x: x0, y: y, width: w, height: LANE_H,
                   fill: "url(#hatch)", "class": "donor" }, g);
    }
    var name = t[1] + (d && s[4] !== s[3] ? " [for " + d[1] + "]" : "");
    if (t[3] !== "idle" && w > name.length * 6.2 + 6)
      el("text", { x: x0 + 3, y: y + 14, "font-size": 11 }, g, name);
    g.addEventListener("click", function (ev) {
      ev.stopPropagation();
      if (dragged) { dragged = false; return; }   // the end of a drag
      select(i);
    });
  });
  D.points.forEach(function (p) {
    if (p[2] < view.t0 || p[2] > view.t1) return;
    var x = px(p[2]), y = laneY(p[1]), g = el("g", { "class": p[0] }, plot);
    el("title", {}, g, p[3] + " (cpu" + p[1] + " at " + fmt(p[2]) + ")");
    if (p[0] === "mark") {
      el("path", { d: "M" + x + "," + (y - 4) + " l4,4 l-4,4 l-4,-4 z",
                   fill: "#222" }, g);
      el("text", { x: x + 5, y: y - 3, "font-size": 10 }, g, p[3]);
    } else if (p[0] === "dl_miss") {
      el("line", { x1: x, y1: y, x2: x, y2: y + LANE_H, stroke: MISS,
                   "stroke-width": 2 }, g);
    } else if (p[0] === "throttle") {
      el("path", { d: "M" + x + "," + (y + LANE_H) + " l-5,-8 l10,0 z",
                   fill: "#6a3d00" }, g);
    } else {
      el("path", { d: "M" + x + "," + (y + LANE_H - 8) + " l-5,8 l10,0 z",
                   fill: "#1b7f3b" }, g);
    }
  });
  D.arrows.forEach(function (a) {
    if (Math.max(a[2], a[4]) < view.t0 || Math.min(a[2], a[4]) > view.t1)
      return;
    var g = el("g", { "class": a[0] }, plot);
    el("title", {}, g, a[5]);
    var y0 = laneY(a[1]) + LANE_H / 2, y1 = laneY(a[3]) + LANE_H / 2;
    if (a[1] === a[3]) { y0 -= LANE_H / 2 - 4; y1 = y0; }
    el("path", { d: "M" + px(a[2]) + "," + y0 + " L" + px(a[4]) + "," + y1,
                 stroke: a[0] === "chain" ? "#7b1fa2" : "#000",
                 "stroke-width": 1.5, fill: "none",
                 "stroke-dasharray": a[0] === "chain" ? "5,3" : "none" }, g);
  });
  // The grid lines cross the lanes: clicks go through them.
  var axis = el("g", { "class": "axis", "pointer-events": "none" }, svg);
  ticks(axis);
  var top = lanesBottom + 40;
  if (waitTasks.length)
    el("text", { x: 8, y: top - 4, "font-size": 11, "font-style": "italic" },
       svg, "mutex waits (block .. acquire)");
  waitTasks.forEach(function (ti, k) {
    el("text", { x: LEFT - 10, y: top + k * WAIT_ROW + 10, "font-size": 10,
                 "text-anchor": "end" }, svg, task(ti)[1]);
  });
  D.waits.forEach(function (w) {
    if (w[4] < view.t0 || w[3] > view.t1) return;
    var y = top + waitTasks.indexOf(w[0]) * WAIT_ROW;
    var x0 = Math.max(px(w[3]), LEFT - 2), x1 = Math.min(px(w[4]), W);
    var g = el("g", { "class": "wait" }, plot);
    el("title", {}, g, task(w[0])[1] + " waits for " + w[1] + " (owner " +
       (w[2] >= 0 ? task(w[2])[1] : "none") + ") " + fmt(w[3]) + " .. " +
       fmt(w[4]) + ", " + (w[5] ? w[5] : "not acquired in the trace"));
    el("rect", { x: x0, y: y + 2, width: Math.max(x1 - x0, 1), height: 8,
                 fill: task(w[0])[2], "fill-opacity": 0.7, stroke: "#333",
                 "stroke-width": 0.5 }, g);
  });
  // Legend: the tasks' colours (the SVG file has the full legend).
  var lx = LEFT, lg = el("g", { "class": "legend" }, svg);
  D.tasks.forEach(function (t) {
    if (t[3] === "idle") return;
    el("rect", { x: lx, y: legendTop, width: 14, height: 12, fill: t[2],
                 stroke: "#888", "stroke-width": 0.5 }, lg);
    var label = t[1] + (t[3] === "other" ? " (not the scenario's)" : "");
    el("text", { x: lx + 18, y: legendTop + 10, "font-size": 11 }, lg,
       label);
    lx += 30 + label.length * 6.5;
  });
  el("text", { x: lx, y: legendTop + 10, "font-size": 11 }, lg,
     "hatched: runs for the donor (band); red: deadline miss; " +
     "brown/green triangles: throttle/replenish; diamonds: marks");
  viewLabel.textContent = "showing " + fmt(view.t0) + " .. " + fmt(view.t1) +
    " of " + fmt(D.span);
}

function setView(t0, t1) {
  var span = Math.max(t1 - t0, 100);           // 100 ns at most zoomed in
  if (span >= D.span) { t0 = 0; span = D.span; }
  t0 = Math.min(Math.max(t0, 0), D.span - span);
  view.t0 = t0;
  view.t1 = t0 + span;
  render();
}
function zoom(factor, at) {
  setView(at - (at - view.t0) * factor, at + (view.t1 - at) * factor);
}
function pan(dt) { setView(view.t0 + dt, view.t1 + dt); }
function svgX(ev) {
  var r = svg.getBoundingClientRect();
  return (ev.clientX - r.left) * W / r.width;
}

svg.addEventListener("wheel", function (ev) {
  ev.preventDefault();
  zoom(ev.deltaY < 0 ? 0.8 : 1.25, tAt(svgX(ev)));
});
var drag = null, dragged = false;
svg.addEventListener("mousedown", function (ev) {
  drag = { x: svgX(ev), t0: view.t0, t1: view.t1, moved: false };
  svg.classList.add("drag");
});
window.addEventListener("mousemove", function (ev) {
  if (!drag) return;
  var dx = svgX(ev) - drag.x;
  if (Math.abs(dx) > 2) drag.moved = true;
  var dt = -dx * (drag.t1 - drag.t0) / (W - LEFT - RIGHT);
  setView(drag.t0 + dt, drag.t1 + dt);
});
window.addEventListener("mouseup", function () {
  dragged = !!(drag && drag.moved);
  drag = null;
  svg.classList.remove("drag");
});
document.addEventListener("keydown", function (ev) {
  var mid = (view.t0 + view.t1) / 2, span = view.t1 - view.t0;
  if (ev.key === "+" || ev.key === "=") zoom(0.8, mid);
  else if (ev.key === "-") zoom(1.25, mid);
  else if (ev.key === "0") setView(0, D.span);
  else if (ev.key === "ArrowLeft") pan(-span / 10);
  else if (ev.key === "ArrowRight") pan(span / 10);
});
document.getElementById("zin").onclick = function () {
  zoom(0.5, (view.t0 + view.t1) / 2);
};
document.getElementById("zout").onclick = function () {
  zoom(2, (view.t0 + view.t1) / 2);
};
document.getElementById("zall").onclick = function () { setView(0, D.span); };
render();

/* #selftest: click, zoom and pan with synthetic events; the result goes
 * into <pre id="selftest"> for a headless browser's --dump-dom. */
function selftest(pick) {
  var out = [], fail = [];
  function check(ok, what) { (ok ? out : fail).push(what); }
  D.slices.forEach(function (s, i) {
    if (pick < 0 && s[4] >= 0 && s[4] !== s[3]) pick = i;
  });
  D.slices.forEach(function (s, i) {
    if (pick < 0 && task(s[3])[3] === "task") pick = i;
  });
  if (pick < 0) pick = 0;
  var s = D.slices[pick];
  // Zoom onto the slice so that it is wide enough to hit.
  setView(s[1] - (s[2] - s[1]), s[2] + (s[2] - s[1]));
  var g = svg.querySelector('g.slice[data-i="' + pick + '"]');
  check(g !== null, "slice " + pick + " drawn");
  if (g) {
    var r = g.querySelector("rect").getBoundingClientRect();
    var target = document.elementFromPoint(r.left + r.width / 2,
                                           r.top + r.height / 2);
    check(target !== null && g.contains(target),
          "the slice is what the pointer hits (" + (target ?
          target.tagName + " " + target.getAttribute("class") : "nothing") +
          " at " + Math.round(r.left + r.width / 2) + "," +
          Math.round(r.top + r.height / 2) + ")");
    (target && g.contains(target) ? target : g).dispatchEvent(
      new MouseEvent("click", { bubbles: true, clientX: r.left + 1,
                                clientY: r.top + 1 }));
  }
  var text = detail.textContent;
  check(text.indexOf("task: " + task(s[3])[0]) === 0, "panel names the task");
  check(text.indexOf("donor: " + (s[4] >= 0 ? task(s[4])[0] : "unknown")) > 0,
        "panel names the donor");
  check(text.indexOf("class: ") > 0 && text.indexOf("priority: ") > 0,
        "panel has class and priority");
  check(text.indexOf("proxy chain: " + (s[7] || "none")) > 0,
        "panel has the chain");
  setView(0, D.span);
  var before = view.t1 - view.t0;
  var box = svg.getBoundingClientRect();
  svg.dispatchEvent(new WheelEvent("wheel", { deltaY: -100, bubbles: true,
                                              cancelable: true,
                                              clientX: box.left + box.width / 2,
                                              clientY: box.top + 20 }));
  var after = view.t1 - view.t0;
  check(after < before && Math.abs(after - before * 0.8) < 1,
        "wheel zooms in by 0.8");
  var t0 = view.t0;
  svg.dispatchEvent(new MouseEvent("mousedown", { bubbles: true,
                                                  clientX: box.left + 600,
                                                  clientY: box.top + 20 }));
  window.dispatchEvent(new MouseEvent("mousemove", { clientX: box.left + 500,
                                                     clientY: box.top + 20 }));
  window.dispatchEvent(new MouseEvent("mouseup", {}));
  check(view.t0 > t0, "drag to the left pans later in time");
  document.getElementById("zall").click();
  check(view.t0 === 0 && view.t1 === D.span, "whole trace restores the view");
  select(pick);
  var res = document.getElementById("selftest");
  res.textContent = (fail.length ? "selftest: FAIL: " + fail.join("; ")
                     : "selftest: PASS " + out.length + " checks") +
    "\nselected slice " + pick + "\n" + detail.textContent;
}
var st = /^#selftest(?:=(\d+))?$/.exec(location.hash);
if (st) selftest(st[1] !== undefined && +st[1] < D.slices.length ? +st[1] : -1);
})();
"""


def to_html(model, title="Kestrel scheduler trace"):
    """Model -> the HTML page (text)."""
    data = json.dumps(model_data(model), separators=(",", ":"))
    # Inside <script>, "</" could end the element early.
    data = data.replace("</", "<\\/")
    tr = model.trace
    sub = "%d CPU%s, %d events, %d lost, %s" % (
        model.cpus, "" if model.cpus == 1 else "s", len(tr.events), tr.lost,
        svgtimeline.fmt_ns(model.end - model.start))
    return """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>%(title)s</title>
<style>%(css)s</style>
</head>
<body>
<h1>%(title)s</h1>
<div id="sub">%(sub)s. Wheel or +/- to zoom, drag or arrow keys to pan,
0 for the whole trace; click a slice for its details.</div>
<div id="bar"><button id="zin">zoom in</button><button id="zout">zoom
out</button><button id="zall">whole trace</button><span id="range"></span>
</div>
<svg id="view" xmlns="http://www.w3.org/2000/svg" data-cpus="%(cpus)d"></svg>
<div id="detail">Click a slice.</div>
<pre id="selftest"></pre>
<script type="application/json" id="trace-data">%(data)s</script>
<script>%(js)s</script>
</body>
</html>
""" % {"title": escape(title), "css": CSS, "sub": escape(sub),
       "cpus": model.cpus, "data": data, "js": JS}
