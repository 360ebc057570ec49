"""handout.py - the student tree of a programming lab (`make handout LAB=n`).

A lab's solution lives in the kernel's own source, between markers (one
style, docs/labs/README.md, "Writing a programming lab"):

        /* LAB 6 BEGIN: what to write here */
        ...the solution...
        /* LAB 6 STUB
        ...code that compiles, runs, and is wrong...
        LAB 6 END */

In the full tree the stub sits inside a comment and the solution
compiles.  The handout of lab n is a copy of the tree (the files git
knows, or every file when there is no git) with each region of lab n
replaced by a TODO comment and its stub, uncommented; the regions of the
other labs keep their solutions (their markers stay, harmless comments).

    runner.py handout N [--out DIR]

writes DIR (default build/handout/labN).  A malformed region (BEGIN
without STUB and END, markers of one lab nested in another's, text after
a marker on its line where none may be) is an error that names the file
and line.  Python 3 standard library only.
"""

import os
import re
import shutil
import subprocess

from . import ROOT

BEGIN_RE = re.compile(r"^(\s*)/\* LAB (\d+) BEGIN(?::\s*(.*?))?\s*\*/\s*$")
STUB_RE = re.compile(r"^\s*/\* LAB (\d+) STUB\s*$")
END_RE = re.compile(r"^\s*LAB (\d+) END \*/\s*$")
ANY_RE = re.compile(r"\bLAB (\d+) (BEGIN|STUB|END)\b")
# A handout's root says which lab it is (grade --check-all skips there).
HANDOUT_FILE = ".lab-handout"
# Where solution regions may be: the kernel's C sources.
SOURCE_DIRS = ("kernel", "arch", "lib", "drivers")


class HandoutError(Exception):
    """A malformed marker or a bad lab number: the message names it."""


def tree_files(root=ROOT):
    """The files of the tree, relative to @root: git's list (tracked, and
    untracked ones git does not ignore) when it is a git checkout, else
    every file but build/ and .git/."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached",
                              "--others", "--exclude-standard"],
                             capture_output=True, check=True).stdout
        files = [f for f in out.decode().split("\0") if f]
        if files:
            return [f for f in files if os.path.isfile(os.path.join(root, f))]
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for d, dirs, names in os.walk(root):
        rel = os.path.relpath(d, root)
        dirs[:] = [x for x in dirs if not (rel == "." and x in ("build", ".git"))]
        files += [os.path.normpath(os.path.join(rel, n)) for n in names]
    return files


def regions(path, text):
    """The lab regions of one file: a list of (lab, begin, stub, end,
    title), line indexes (0-based) of the three marker lines."""
    found = []
    open_ = None                      # (lab, begin, stub, title)
    for i, line in enumerate(text.split("\n")):
        where = "%s:%d" % (path, i + 1)
        b, s, e = BEGIN_RE.match(line), STUB_RE.match(line), END_RE.match(line)
        if b:
            if open_:
                raise HandoutError("%s: LAB %s BEGIN inside LAB %d's region "
                                   "(begun at line %d)" % (where, b.group(2),
                                                           open_[0],
                                                           open_[1] + 1))
            open_ = [int(b.group(2)), i, None, b.group(3) or ""]
        elif s:
            if not open_ or open_[2] is not None or int(s.group(1)) != open_[0]:
                raise HandoutError("%s: LAB %s STUB without its LAB %s BEGIN"
                                   % (where, s.group(1), s.group(1)))
            open_[2] = i
        elif e:
            if not open_ or open_[2] is None or int(e.group(1)) != open_[0]:
                raise HandoutError("%s: LAB %s END without its BEGIN and STUB"
                                   % (where, e.group(1)))
            found.append((open_[0], open_[1], open_[2], i, open_[3]))
            open_ = None
        elif ANY_RE.search(line):
            m = ANY_RE.search(line)
            raise HandoutError("%s: malformed LAB %s %s marker (a marker is "
                               "a line of its own: '/* LAB n BEGIN: what', "
                               "'/* LAB n STUB', 'LAB n END */')"
                               % (where, m.group(1), m.group(2)))
    if open_:
        raise HandoutError("%s:%d: LAB %d BEGIN has no %s" % (
            path, open_[1] + 1, open_[0],
            "END" if open_[2] is not None else "STUB and END"))
    return found


def lab_page(lab, root=ROOT):
    """The lab's page, docs/labs/labN_*.md (docs/labs/README.md if none)."""
    d = os.path.join(root, "docs", "labs")
    pages = sorted(f for f in os.listdir(d)
                   if re.match(r"lab%d_.*\.md$" % lab, f)) \
        if os.path.isdir(d) else []
    return "docs/labs/" + (pages[0] if pages else "README.md")


def strip_lab(text, lab, regs, page="docs/labs/README.md"):
    """@text with lab @lab's regions replaced by their stubs."""
    lines = text.split("\n")
    out, i = [], 0
    for (n, begin, stub, end, title) in regs:
        if n != lab:
            continue
        out += lines[i:begin]
        indent = BEGIN_RE.match(lines[begin]).group(1)
        what = (": " + title.rstrip(".")) if title else ""
        out.append("%s/* TODO(lab %d)%s." % (indent, lab, what))
        out.append("%s * The code below is a stub that compiles and runs "
                   "but is wrong:" % indent)
        out.append("%s * replace it (%s). */" % (indent, page))
        out += lines[stub + 1:end]
        i = end + 1
    out += lines[i:]
    return "\n".join(out)


def scan(root=ROOT):
    """{lab: [(path, regions of that lab)]} over the tree's C sources."""
    labs = {}
    for f in tree_files(root):
        if not f.endswith((".c", ".h", ".S")) or \
           f.split(os.sep)[0] not in SOURCE_DIRS:
            continue
        with open(os.path.join(root, f)) as fh:
            regs = regions(f, fh.read())
        for r in regs:
            labs.setdefault(r[0], {}).setdefault(f, []).append(r)
    return labs


def write_handout(lab, out, root=ROOT):
    """Write the handout tree of lab @lab into @out (replaced if it
    exists).  Returns the files whose regions were replaced."""
    labs = scan(root)
    if lab not in labs:
        raise HandoutError("no lab %d in the source (labs with regions: %s)"
                           % (lab, ", ".join(str(n) for n in sorted(labs))
                              or "none"))
    out = os.path.abspath(out)
    if os.path.commonpath([out, os.path.abspath(root)]) == \
       os.path.abspath(root) and not out.startswith(
           os.path.join(os.path.abspath(root), "build") + os.sep):
        raise HandoutError("--out %s is inside the tree: give a directory "
                           "under build/ or outside it" % out)
    if os.path.exists(out):
        shutil.rmtree(out)
    changed = []
    for f in tree_files(root):
        src, dst = os.path.join(root, f), os.path.join(out, f)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if f in labs[lab]:
            with open(src) as fh:
                text = fh.read()
            with open(dst, "w") as fh:
                fh.write(strip_lab(text, lab, labs[lab][f],
                                   lab_page(lab, root)))
            shutil.copymode(src, dst)
            changed.append(f)
        else:
            shutil.copy2(src, dst)
    with open(os.path.join(out, HANDOUT_FILE), "w") as fh:
        fh.write("%d\n" % lab)
    return changed


def handout_lab(root=ROOT):
    """The lab whose handout @root is, or None for the full tree."""
    try:
        with open(os.path.join(root, HANDOUT_FILE)) as fh:
            return int(fh.read().strip())
    except (OSError, ValueError):
        return None


def handout_main(lab, out=None):
    out = out or os.path.join(ROOT, "build", "handout", "lab%d" % lab)
    try:
        changed = write_handout(lab, out)
    except HandoutError as e:
        print("handout: %s" % e)
        return 2
    print("handout: lab %d written to %s" % (lab, os.path.relpath(out, os.getcwd())
                                               if out.startswith(os.getcwd())
                                               else out))
    for f in changed:
        print("  stubbed: %s" % f)
    print("build and grade it there: make grade LAB=%d" % lab)
    return 0
