"""svgtimeline.py - timeline model -> SVG picture (one lane per CPU).

Layout, top to bottom: title; a strip of mark labels (staggered so they
do not overlap, each with a leader line to its CPU lane); one lane per
CPU (`<g class="lane" data-cpu="N">`, the checker counts these); the
time axis; one row per task that waited for a mutex; the legend.

Drawing (docs/lab-tools.md has the legend with pictures):
  slice        filled with the running task's colour (stable: tasks
               sorted by name get the palette in order, so one scenario
               gets the same colours in every locking mode); idle grey;
               a task that is not the scenario's (its runner) pale
               grey-beige; no red or pink (red is a deadline miss)
  proxy        hatched, and the lower band in the donor's colour
  inferred     dashed outline, only when events were lost: began before
               the CPU's first surviving event (the ring lost the switch)
  throttle     dark brown triangle down on the lane's bottom edge
  replenish    green triangle up there
  wait         thin bar in the waiter's colour on its row, block..acquire;
               dashed and crossed at its end when given up (giveup)
  handoff      black arrow from the releaser's CPU to the pickup
  chain        dashed purple arrow: a proxy chain migration
  dl_miss      red triangle and line on the CPU that noticed it
  mark         diamond on the lane, label above the lanes
Every shape has a <title>, so a browser shows details on hover.

Python 3 standard library only.
"""

from xml.sax.saxutils import escape, quoteattr

from . import ktrace

WIDTH = 1280
LEFT = 110              # lane labels
RIGHT = 24
TOP = 48
LANE_H = 36
LANE_GAP = 8
MARK_ROW = 14
WAIT_ROW = 16
CHAR_W = 6.2            # average glyph width at font-size 11
IDLE = "#e4e4e4"
# No red or pink among the tasks' colours: red is a deadline miss.
PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#76b7b2", "#edc948",
           "#b07aa1", "#9c755f", "#bcbd22", "#1f77b4", "#8c564b",
           "#6b6ecf", "#17becf", "#aec7e8", "#ffbb78", "#98df8a",
           "#c5b0d5", "#7f7f7f", "#2ca02c", "#9467bd", "#dbdb8d"]
OTHER = "#d0d0c0"       # a task that is not the scenario's (runner, shell)
CHAIN = "#7b1fa2"
MISS = "#d00000"
THROTTLE = "#6a3d00"    # budget gone: dark brown, down triangle
REPLENISH = "#1b7f3b"   # budget back: green, up triangle

DEFS = """<defs>
<pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse"
 patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="6"
 stroke="#000" stroke-width="1.6" stroke-opacity="0.45"/></pattern>
<marker id="arrow" markerWidth="8" markerHeight="8" refX="7" refY="4"
 orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#000"/></marker>
<marker id="arrow-chain" markerWidth="8" markerHeight="8" refX="7"
 refY="4" orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="%s"/></marker>
</defs>""" % CHAIN


def busy_tasks(model):
    """Non-idle tasks of the scenario sorted by name, then tid: the
    palette order."""
    def key(t):
        name, _, tid = t.rpartition("#")
        return (name or t, int(tid) if tid.isdigit() else 0)
    return sorted((t for t in model.tasks if not ktrace.is_idle(t)
                   and t not in model.others), key=key)


def task_colours(model):
    """task -> colour: idle tasks grey, tasks not the scenario's (the
    runner's) pale grey-beige, the others by sorted name."""
    col = {}
    for i, t in enumerate(busy_tasks(model)):
        col[t] = PALETTE[i % len(PALETTE)]
    for t in model.tasks:
        col.setdefault(t, OTHER if t in model.others else IDLE)
    return col


def slice_tip(model, s):
    """The details of slice @s (SVG <title>, HTML panel)."""
    name = ktrace.slice_name(model, s)
    tip = "%s on cpu%d, %s .. %s (%s)" % (
        name, s.cpu, fmt_ns(s.start - model.start),
        fmt_ns(s.end - model.start), fmt_ns(s.end - s.start))
    if s.cls is not None:
        tip += "; %s %s prio %s" % (
            "context" if s.proxied() else "class", s.cls, s.prio)
    if s.chain:
        tip += "; chain %s" % s.chain
    if s.task in model.others:
        tip += "; not a task of the scenario"
    if s.inferred:
        tip += ("; began before this CPU's first surviving event "
                "(lost events)" if model.lost else
                "; running when the trace began")
    return tip


def nice_step(span_ns, want=10):
    """Tick step (ns) of 1, 2 or 5 x 10^k giving about @want ticks."""
    raw = max(span_ns / float(want), 1.0)
    mag = 1
    while mag * 10 <= raw:
        mag *= 10
    for m in (1, 2, 5, 10):
        if m * mag >= raw:
            return m * mag
    return 10 * mag


def unit_for(step):
    for div, unit in ((10**9, "s"), (10**6, "ms"), (10**3, "us")):
        if step >= div:
            return div, unit
    return 1, "ns"


def fmt_ns(ns):
    div, unit = unit_for(max(abs(ns), 1))
    return "%.6g %s" % (ns / float(div), unit)


class Svg:
    def __init__(self, model):
        self.m = model
        self.span = max(model.end - model.start, 1)
        self.out = []
        self.colour = task_colours(model)

    def x(self, ns):
        return LEFT + (ns - self.m.start) * (WIDTH - LEFT - RIGHT) \
            / float(self.span)

    def add(self, s):
        self.out.append(s)

    def text(self, x, y, s, size=11, anchor="start", extra=""):
        self.add('<text x="%.1f" y="%.1f" font-size="%d" '
                 'text-anchor="%s"%s>%s</text>'
                 % (x, y, size, anchor, extra, escape(s)))

    def lbl(self, task):
        return ktrace.label(self.m, task)


def _mark_rows(svg, marks):
    """Greedy rows for mark labels: [(ev, row)], rows used."""
    ends = []
    placed = []
    for ev in marks:
        w = len(ev.args["text"]) * CHAR_W + 10
        x = svg.x(ev.ts)
        if x + w > WIDTH:           # label to the left of its mark
            x -= w
        for r, end in enumerate(ends):
            if x >= end:
                ends[r] = x + w
                break
        else:
            if len(ends) >= 6:          # crowded: reuse the last row
                r = len(ends) - 1
            else:
                ends.append(x + w)
                r = len(ends) - 1
        placed.append((ev, r))
    return placed, len(ends)


def lane_y(lanes_top, cpu):
    return lanes_top + cpu * (LANE_H + LANE_GAP)


def _draw_slice(svg, s, y):
    x0, x1 = svg.x(s.start), svg.x(s.end)
    w = max(x1 - x0, 0.4)
    name = ktrace.slice_name(svg.m, s)
    tip = slice_tip(svg.m, s)
    # Dashed only where events were lost: a slice running when the trace
    # began (a reset) with nothing lost is drawn as any other.
    lost = s.inferred and svg.m.lost
    dash = ' stroke="#000" stroke-dasharray="3,2"' if lost else ""
    svg.add('<g class="slice" data-task=%s><title>%s</title>'
            % (quoteattr(s.task), escape(tip)))
    svg.add('<rect x="%.2f" y="%.1f" width="%.2f" height="%d" fill="%s"%s/>'
            % (x0, y, w, LANE_H, svg.colour.get(s.task, IDLE), dash))
    if s.proxied():
        band = LANE_H // 3
        svg.add('<rect x="%.2f" y="%.1f" width="%.2f" height="%d" '
                'fill="%s"/>' % (x0, y + LANE_H - band, w, band,
                                 svg.colour.get(s.donor, IDLE)))
        svg.add('<rect class="donor" x="%.2f" y="%.1f" width="%.2f" '
                'height="%d" fill="url(#hatch)"/>' % (x0, y, w, LANE_H))
    if not ktrace.is_idle(s.task) and w > len(name) * CHAR_W + 6:
        svg.text(x0 + 3, y + 14, name)
    svg.add("</g>")


def _draw_lanes(svg, top):
    m = svg.m
    for cpu in range(m.cpus):
        y = lane_y(top, cpu)
        svg.add('<g class="lane" data-cpu="%d">' % cpu)
        svg.text(LEFT - 10, y + LANE_H / 2 + 4, "cpu%d" % cpu, 13, "end",
                 ' font-weight="bold"')
        svg.add('<rect x="%d" y="%.1f" width="%d" height="%d" fill="#fafafa"'
                ' stroke="#bbb"/>' % (LEFT, y, WIDTH - LEFT - RIGHT, LANE_H))
        for s in m.slices[cpu]:
            _draw_slice(svg, s, y)
        svg.add("</g>")


def _draw_axis(svg, y, lanes_top):
    step = nice_step(svg.span)
    div, unit = unit_for(step)
    svg.add('<g class="axis">')
    svg.add('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#000"/>'
            % (LEFT, y, WIDTH - RIGHT, y))
    t = 0
    while t <= svg.span:
        x = svg.x(svg.m.start + t)
        svg.add('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#000"/>'
                % (x, y, x, y + 5))
        svg.add('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" '
                'stroke="#000" stroke-opacity="0.08"/>' % (x, lanes_top, x, y))
        svg.text(x, y + 17, "%g" % (t / float(div)), 10, "middle")
        t += step
    svg.text(WIDTH - RIGHT, y + 30, "time since the first event (%s)" % unit,
             11, "end")
    svg.add("</g>")


def _draw_marks(svg, placed, strip_top, lanes_top):
    svg.add('<g class="marks">')
    for ev, row in placed:
        x = svg.x(ev.ts)
        ty = strip_top + (row + 1) * MARK_ROW - 3
        ly = lane_y(lanes_top, ev.cpu)
        tip = "mark by %s on cpu%d at %s: %s" % (
            svg.lbl(ev.args["task"]), ev.cpu, fmt_ns(ev.ts - svg.m.start),
            ev.args["text"])
        svg.add("<g><title>%s</title>" % escape(tip))
        svg.add('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" '
                'stroke="#444" stroke-dasharray="1,2"/>' % (x, ty + 2, x, ly))
        svg.add('<path d="M%.1f,%.1f l4,4 l-4,4 l-4,-4 z" fill="#222"/>'
                % (x, ly - 4))
        if x + len(ev.args["text"]) * CHAR_W + 10 > WIDTH:
            svg.text(x - 3, ty, ev.args["text"], 10, "end")
        else:
            svg.text(x + 3, ty, ev.args["text"], 10)
        svg.add("</g>")
    svg.add("</g>")


def _draw_budget(svg, lanes_top):
    """Deadline throttles (budget gone) and replenishments (budget back)
    as small triangles on the bottom edge of their CPU lane."""
    svg.add('<g class="budget">')
    for ev in svg.m.points:
        if ev.kind not in ("throttle", "replenish"):
            continue
        x, y = svg.x(ev.ts), lane_y(lanes_top, ev.cpu) + LANE_H
        tip = "%s: %s on cpu%d at %s" % (
            ev.kind, svg.lbl(ev.args["task"]), ev.cpu,
            fmt_ns(ev.ts - svg.m.start))
        if ev.kind == "throttle":
            tip += " (budget used up: not runnable until its replenish)"
            shape = '<path d="M%.1f,%.1f l-5,-8 l10,0 z" fill="%s"/>' % (
                x, y, THROTTLE)
        else:
            tip += " (budget refilled, deadline %s)" % fmt_ns(
                int(ev.args["deadline"]) - svg.m.start)
            shape = '<path d="M%.1f,%.1f l-5,8 l10,0 z" fill="%s"/>' % (
                x, y - 8, REPLENISH)
        svg.add('<g class="%s"><title>%s</title>%s</g>'
                % (ev.kind, escape(tip), shape))
    svg.add("</g>")


def _draw_points(svg, lanes_top):
    """Deadline misses (flagged) on their CPU lane."""
    _draw_budget(svg, lanes_top)
    svg.add('<g class="misses">')
    for ev in svg.m.points:
        if ev.kind != "dl_miss":
            continue
        x, y = svg.x(ev.ts), lane_y(lanes_top, ev.cpu)
        tip = "deadline miss: %s, %s late (cpu%d at %s)" % (
            svg.lbl(ev.args["task"]), fmt_ns(int(ev.args["late"])), ev.cpu,
            fmt_ns(ev.ts - svg.m.start))
        svg.add('<g class="dl_miss"><title>%s</title>' % escape(tip))
        svg.add('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" '
                'stroke-width="2"/>' % (x, y, x, y + LANE_H, MISS))
        svg.add('<path d="M%.1f,%.1f l-6,-9 l12,0 z" fill="%s"/>'
                % (x, y, MISS))
        svg.add("</g>")
    svg.add("</g>")


def _draw_arrows(svg, lanes_top):
    svg.add('<g class="arrows">')
    for ar in svg.m.arrows:
        x0, x1 = svg.x(ar.ts0), svg.x(ar.ts1)
        y0 = lane_y(lanes_top, ar.cpu0) + 4
        y1 = lane_y(lanes_top, ar.cpu1) + 4
        lift = 18 + abs(ar.cpu1 - ar.cpu0) * 4
        if ar.kind == "chain":
            style = 'stroke="%s" stroke-dasharray="5,3" ' \
                    'marker-end="url(#arrow-chain)"' % CHAIN
        else:
            style = 'stroke="#000" marker-end="url(#arrow)"'
        if ar.cpu0 != ar.cpu1:      # straight across the lanes
            y0 = lane_y(lanes_top, ar.cpu0) + LANE_H / 2
            y1 = lane_y(lanes_top, ar.cpu1) + (
                4 if ar.cpu1 > ar.cpu0 else LANE_H - 4)
            d = "M%.1f,%.1f L%.1f,%.1f" % (x0, y0, x1, y1)
        else:                       # a hop over the lane's top edge
            d = "M%.1f,%.1f C%.1f,%.1f %.1f,%.1f %.1f,%.1f" % (
                x0, y0, x0, y0 - lift, x1, y1 - lift, x1, y1)
        svg.add('<g class="%s"><title>%s</title><path d="%s" fill="none" '
                'stroke-width="1.5" %s/></g>'
                % (ar.kind, escape(ar.label), d, style))
    svg.add("</g>")


def _draw_waits(svg, top):
    tasks = []
    for w in svg.m.waits:
        if w.task not in tasks:
            tasks.append(w.task)
    if not tasks:
        return top
    svg.text(8, top + 11, "mutex waits (block .. acquire)", 11, "start",
             ' font-style="italic"')
    top += 16
    svg.add('<g class="waits">')
    for i, task in enumerate(tasks):
        y = top + i * WAIT_ROW
        svg.text(LEFT - 10, y + 10, svg.lbl(task), 10, "end")
        svg.add('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>'
                % (LEFT, y + 6, WIDTH - RIGHT, y + 6))
    for w in svg.m.waits:
        y = top + tasks.index(w.task) * WAIT_ROW
        x0, x1 = svg.x(w.start), svg.x(w.end)
        tip = "%s waits for %s (owner %s) %s .. %s, %s" % (
            svg.lbl(w.task), w.mutex, svg.lbl(w.owner),
            fmt_ns(w.start - svg.m.start), fmt_ns(w.end - svg.m.start),
            "acquired (%s)" % w.how if w.how else
            "gave up (%s)" % w.gaveup if w.gaveup else
            "not acquired in the trace")
        dash = "" if w.how else ' stroke-dasharray="2,2"'
        if w.gaveup:        # left without it: a cross at the end
            svg.add('<path class="giveup" d="M%.1f,%.1f l6,6 m0,-6 l-6,6"'
                    ' stroke="#000" stroke-width="1.5"/>'
                    % (max(x1, x0 + 1.0) - 3, y + 3))
        svg.add('<g class="wait"><title>%s</title><rect x="%.2f" y="%.1f" '
                'width="%.2f" height="8" fill="%s" fill-opacity="0.7" '
                'stroke="#333" stroke-width="0.5"%s/>'
                % (escape(tip), x0, y + 2, max(x1 - x0, 1.0),
                   svg.colour.get(w.task, IDLE), dash))
        if x1 - x0 > len(w.mutex) * CHAR_W + 6:
            svg.text(x0 + 3, y + 9, w.mutex, 9)
        svg.add("</g>")
    svg.add("</g>")
    return top + len(tasks) * WAIT_ROW + 6


def _legend_items(svg):
    """[(kind, label, colour)] for the legend."""
    m = svg.m
    items = [("task", svg.lbl(t), svg.colour[t]) for t in busy_tasks(m)]
    items.append(("task", "idle", IDLE))
    if any(t in m.others for t in m.tasks):
        items.append(("task", "not the scenario's (%s)" % ", ".join(
            sorted(svg.lbl(t) for t in m.others)), OTHER))
    kinds = {ev.kind for ev in m.points}
    items += [("donor", "runs for another task (proxy): hatched, "
               "band = donor's colour", None),
              ("wait", "mutex wait", None)]
    if any(w.gaveup for w in m.waits):
        items.append(("giveup", "wait given up (timeout, backoff)", None))
    items += [("handoff", "mutex handoff", None),
              ("chain", "chain migration", None)]
    if "throttle" in kinds:
        items.append(("throttle", "throttled (budget used up)", None))
    if "replenish" in kinds:
        items.append(("replenish", "replenished", None))
    items += [("miss", "deadline miss", None),
              ("mark", "mark", None)]
    if m.lost and any(s.inferred for sl in m.slices for s in sl):
        items.append(("inferred", "began before the trace (lost events)",
                      None))
    return items


def _draw_legend_item(svg, kind, text, colour, x, y):
    if kind == "task":
        svg.add('<rect x="%.1f" y="%.1f" width="14" height="12" fill="%s" '
                'stroke="#888" stroke-width="0.5"/>' % (x, y, colour))
    elif kind == "donor":
        svg.add('<rect x="%.1f" y="%.1f" width="14" height="12" fill="%s"/>'
                '<rect x="%.1f" y="%.1f" width="14" height="4" fill="%s"/>'
                '<rect x="%.1f" y="%.1f" width="14" height="12" '
                'fill="url(#hatch)"/>' % (x, y, PALETTE[0], x, y + 8,
                                          PALETTE[1], x, y))
    elif kind == "wait":
        svg.add('<rect x="%.1f" y="%.1f" width="14" height="8" fill="#888" '
                'fill-opacity="0.7" stroke="#333" stroke-width="0.5"/>'
                % (x, y + 2))
    elif kind == "handoff":
        svg.add('<path d="M%.1f,%.1f L%.1f,%.1f" stroke="#000" '
                'stroke-width="1.5" marker-end="url(#arrow)"/>'
                % (x, y + 6, x + 14, y + 6))
    elif kind == "chain":
        svg.add('<path d="M%.1f,%.1f L%.1f,%.1f" stroke="%s" '
                'stroke-width="1.5" stroke-dasharray="5,3" '
                'marker-end="url(#arrow-chain)"/>'
                % (x, y + 6, x + 14, y + 6, CHAIN))
    elif kind == "miss":
        svg.add('<path d="M%.1f,%.1f l-6,-9 l12,0 z" fill="%s"/>'
                % (x + 7, y + 11, MISS))
    elif kind == "mark":
        svg.add('<path d="M%.1f,%.1f l4,4 l-4,4 l-4,-4 z" fill="#222"/>'
                % (x + 7, y + 2))
    elif kind == "giveup":
        svg.add('<rect x="%.1f" y="%.1f" width="10" height="8" fill="#888" '
                'fill-opacity="0.7" stroke="#333" stroke-width="0.5" '
                'stroke-dasharray="2,2"/><path d="M%.1f,%.1f l6,6 m0,-6 '
                'l-6,6" stroke="#000" stroke-width="1.5"/>'
                % (x, y + 2, x + 8, y + 3))
    elif kind == "throttle":
        svg.add('<path d="M%.1f,%.1f l-5,-8 l10,0 z" fill="%s"/>'
                % (x + 7, y + 10, THROTTLE))
    elif kind == "replenish":
        svg.add('<path d="M%.1f,%.1f l-5,8 l10,0 z" fill="%s"/>'
                % (x + 7, y + 2, REPLENISH))
    elif kind == "inferred":
        svg.add('<rect x="%.1f" y="%.1f" width="14" height="12" fill="%s" '
                'stroke="#000" stroke-dasharray="3,2"/>' % (x, y, PALETTE[2]))
    svg.text(x + 19, y + 10, text, 11)


def _draw_legend(svg, top, draw=True):
    """Lay out (and draw) the legend from @top; returns its bottom."""
    x, y = LEFT, top + 18
    if draw:
        svg.text(8, top + 11, "legend", 11, "start", ' font-style="italic"')
        svg.add('<g class="legend">')
    for kind, text, colour in _legend_items(svg):
        w = 26 + len(text) * CHAR_W * 0.92 + 14
        if x + w > WIDTH - RIGHT and x > LEFT:
            x, y = LEFT, y + 18
        if draw:
            _draw_legend_item(svg, kind, text, colour, x, y)
        x += w
    if draw:
        svg.add("</g>")
    return y + 24


def to_svg(model, title="Kestrel scheduler trace"):
    """Model -> SVG text."""
    svg = Svg(model)
    marks = [ev for ev in model.points if ev.kind == "mark"]
    placed, rows = _mark_rows(svg, marks)
    strip_top = TOP
    lanes_top = strip_top + rows * MARK_ROW + (26 if rows else 10)
    axis_y = lane_y(lanes_top, model.cpus) - LANE_GAP + 6
    body = []
    svg.out = body
    _draw_lanes(svg, lanes_top)
    _draw_points(svg, lanes_top)
    _draw_arrows(svg, lanes_top)
    _draw_marks(svg, placed, strip_top, lanes_top)
    _draw_axis(svg, axis_y, lanes_top)
    waits_end = _draw_waits(svg, axis_y + 40)
    height = _draw_legend(svg, waits_end) + 4
    tr = model.trace
    sub = "%d CPU%s, %d events, %d lost, %s" % (
        model.cpus, "" if model.cpus == 1 else "s", len(tr.events), tr.lost,
        fmt_ns(model.end - model.start))
    if tr.lost:
        sub += " (lost events: a CPU's first slice may be inferred)"
    head = ['<?xml version="1.0" encoding="UTF-8"?>',
            '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
            'viewBox="0 0 %d %d" font-family="DejaVu Sans, Arial, sans-serif"'
            ' data-cpus="%d">' % (WIDTH, height, WIDTH, height, model.cpus),
            "<title>%s</title>" % escape(title), DEFS,
            '<rect width="100%" height="100%" fill="#fff"/>']
    svg.out = head
    svg.text(8, 20, title, 15, "start", ' font-weight="bold"')
    svg.text(8, 38, sub, 11)
    return "\n".join(head + body + ["</svg>", ""])
