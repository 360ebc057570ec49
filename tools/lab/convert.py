"""convert.py - trace text -> Perfetto JSON, SVG and HTML, validated.

Shared by lab.py (make lab) and kestrel/judge.py (the live check in
`make test`); it imports neither, so either may import it.
"""

from . import htmltimeline, ktrace, perfetto, svgtimeline, validate

HTML_NAME = "timeline.html"


def convert_all(text, title, allow_truncated=False, meta=None,
                scenario_tasks=None, which=None):
    """Trace text (docs/trace.md) -> (Trace, {file name: text} for
    trace.json, timeline.svg and timeline.html, the validator's problems:
    [] if all are valid for the trace's CPUs).  @scenario_tasks: the
    script's task names (tasks not among them are drawn as not the
    scenario's), or None; @which: the dump to read (1-based: a console
    log with several), else the last complete one.  Raises
    ktrace.TraceError if the text holds no usable trace."""
    tr = ktrace.parse_trace(text, allow_truncated, which)
    if not tr.events:
        raise ktrace.TraceError("the trace holds no events")
    model = ktrace.build_model(tr, scenario_tasks)
    files = {"trace.json": perfetto.to_json(model, meta),
             "timeline.svg": svgtimeline.to_svg(model, title),
             HTML_NAME: htmltimeline.to_html(model, title)}
    probs = validate.validate_json(files["trace.json"], tr.cpus)
    probs += validate.check_svg(files["timeline.svg"], tr.cpus)
    probs += validate.check_html(files[HTML_NAME], tr.cpus)
    return tr, files, probs


def convert_text(text, title, allow_truncated=False, meta=None,
                 scenario_tasks=None):
    """convert_all() as (Trace, JSON text, SVG text, problems)."""
    tr, files, probs = convert_all(text, title, allow_truncated, meta,
                                   scenario_tasks)
    return tr, files["trace.json"], files["timeline.svg"], probs
