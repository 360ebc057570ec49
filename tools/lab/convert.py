"""convert.py - trace text -> Perfetto JSON and SVG, validated.

Shared by lab.py (make lab) and kestrel/judge.py (the live check in
`make test`); it imports neither, so either may import it.
"""

from . import ktrace, perfetto, svgtimeline, validate


def convert_text(text, title, allow_truncated=False, meta=None):
    """Trace text (docs/trace.md) -> (Trace, JSON text, SVG text, the
    validator's problems: [] if both are valid for the trace's CPUs).
    Raises ktrace.TraceError if the text holds no usable trace."""
    tr = ktrace.parse_trace(text, allow_truncated)
    if not tr.events:
        raise ktrace.TraceError("the trace holds no events")
    model = ktrace.build_model(tr)
    jtext = perfetto.to_json(model, meta)
    stext = svgtimeline.to_svg(model, title)
    probs = validate.validate_json(jtext, tr.cpus)
    probs += validate.check_svg(stext, tr.cpus)
    return tr, jtext, stext, probs
