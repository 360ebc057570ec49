"""lab - the lab tools (docs/lab-tools.md): a scenario's scheduler trace
turned into Perfetto JSON and an SVG timeline, and checked.

    lab.py          the driver: `make lab`, --check, --convert
                    (python3 tools/runner.py lab ...)
    ktrace.py       trace text (docs/trace.md) -> timeline model
    perfetto.py     model -> Chrome trace-event JSON (ui.perfetto.dev)
    svgtimeline.py  model -> SVG, one lane per CPU
    validate.py     checks both outputs; also a script of its own
                    (python3 tools/lab/validate.py)
    convert.py      text -> JSON + SVG, validated: what lab.py and the
                    runner's live check (kestrel/judge.py) share

ktrace, perfetto, svgtimeline, validate and convert import nothing of
the kestrel package, so the runner may import them.
"""
