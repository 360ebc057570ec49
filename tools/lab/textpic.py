"""textpic.py - the timeline as text, one character per interval: the
pictures of the lab pages (docs/labs/*.md), made from a trace.

    cpu0 |LLHHHLLLLLLLLLLMMMM|   who runs: a letter per task
         |     HHHHHHHHHH    |   donor, where it is another task

Each character is the task that ran longest in its interval: the
scenario's tasks by the upper-case first letter of their name (the
next letter of the name, then a digit, where two would share one);
'.' idle or a task that is not the scenario's (its runner).  The donor
row shows the donor's letter where a task ran for another.

Python 3 standard library only.
"""

import re

from . import ktrace

UNITS = {"ns": 1, "us": 1000, "ms": 1000000, "s": 1000000000}


def parse_step(text):
    """'1ms', '0.5ms', '250us' -> ns; ValueError naming the problem."""
    m = re.match(r"^\s*([0-9]*\.?[0-9]+)\s*(ns|us|ms|s)\s*$", text or "")
    if not m:
        raise ValueError("%r is not a time step like 1ms, 0.5ms or 250us"
                         % text)
    ns = int(round(float(m.group(1)) * UNITS[m.group(2)]))
    if ns <= 0:
        raise ValueError("the time step %r must be above 0" % text)
    return ns


def letters(model):
    """task -> its letter ('.' for idle and not-the-scenario's tasks)."""
    out, used = {}, set()
    for t in sorted(model.tasks, key=ktrace.task_name):
        if ktrace.is_idle(t) or t in model.others:
            out[t] = "."
            continue
        name = ktrace.task_name(t)
        for c in [ch.upper() for ch in name if ch.isalnum()] + \
                [str(d) for d in range(10)]:
            if c not in used:
                break
        used.add(c)
        out[t] = c
    return out


def picture(model, step, max_chars=200):
    """Lines of text: one per CPU, plus a donor line under each CPU that
    ran something for another task, then the scale."""
    span = model.end - model.start
    n = min(max(1, -(-span // step)), max_chars)
    let = letters(model)
    rows = []
    for cpu in range(model.cpus):
        run, don = [], []
        for k in range(n):
            a = model.start + k * step
            b = a + step
            best, best_d, most = None, None, 0
            for s in model.slices[cpu]:
                o = min(b, s.end) - max(a, s.start)
                if o > most:
                    best, best_d, most = s.task, s.donor, o
            run.append(let.get(best, ".") if best else " ")
            don.append(let.get(best_d, " ") if best_d and best_d != best
                       else " ")
        rows.append("cpu%d |%s|" % (cpu, "".join(run)))
        if "".join(don).strip():
            rows.append("     |%s| donor" % "".join(don))
    return rows


def legend(model):
    let = letters(model)
    return ", ".join("%s %s" % (c, ktrace.label(model, t))
                     for t, c in sorted(let.items(), key=lambda i: i[1])
                     if c != ".")


def fmt_step(ns):
    for unit in ("s", "ms", "us"):
        if ns >= UNITS[unit]:
            return "%g %s" % (ns / float(UNITS[unit]), unit)
    return "%d ns" % ns
