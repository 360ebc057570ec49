#!/usr/bin/env python3
"""profile_report.py - name the addresses of Kestrel's profiler output.

The kernel's profiler (kernel/profile.c) prints, per benchmark,

    profile <bench>: <samples> samples every <ns> ns, <chains> chains,
        <dropped> dropped, text at <addr>
    profile <bench>: <count> <pc> <caller> <caller's caller> ...

(hex addresses, the interrupted PC first; "by nmi" or "by timer", the
sampling source: kernel/profile.c).  This maps them to functions
with the kernel's symbol table (binutils nm, from the toolchain that built
it), and prints a flat profile: for each function the share of samples
taken in it (self) and with it anywhere on the call chain (total).  It can
also write the chains folded, one "outer;...;inner count" line each, the
input of flame-graph tools.

    profile_report.py LOG ELF [--nm NM] [--top N] [--folded DIR]

reads a serial log (of `make profile`, or of the shell's `profile` command
on a board) and the kernel.elf it ran.  Python 3 standard library only.
"""
import argparse
import bisect
import os
import re
import subprocess
import sys

PREFIX_RE = re.compile(r"^.*\[cpu\d+\] ")
HEAD_RE = re.compile(r"^profile (\S+): (\d+) samples every (\d+) ns, "
                     r"(\d+) chains, (\d+) dropped, text at (?:0x)?([0-9a-f]+)"
                     r"(?:, by (\w+))?")
CHAIN_RE = re.compile(r"^profile (\S+): (\d+)((?: [0-9a-f]+)+)\s*$")


class Symbols:
    """Function symbols of an ELF, from `nm -n`."""

    def __init__(self, elf, nm="nm"):
        out = subprocess.run([nm, "-n", "--defined-only", elf], check=True,
                             capture_output=True, text=True).stdout
        self.addrs, self.names = [], []
        self.text_start = self.text_end = None
        for line in out.splitlines():
            parts = line.split()
            if len(parts) != 3:
                continue
            addr, kind, name = int(parts[0], 16), parts[1], parts[2]
            if name == "__text_start":
                self.text_start = addr
            elif name == "__text_end":
                self.text_end = addr
            if kind in "tTwW":
                self.addrs.append(addr)
                self.names.append(name)
        if self.text_start is None or self.text_end is None:
            raise ValueError("%s has no __text_start/__text_end" % elf)

    def name(self, addr):
        """The function holding @addr (a link-time address), or '??'."""
        if not self.text_start <= addr < self.text_end:
            return "??"
        i = bisect.bisect_right(self.addrs, addr) - 1
        return self.names[i] if i >= 0 else "??"


class Profile:
    """One benchmark's samples: its header and its chains."""

    def __init__(self, bench, samples, period, dropped, text_at, source):
        self.bench, self.samples, self.period = bench, samples, period
        self.dropped, self.text_at = dropped, text_at
        self.source = source or "timer"
        self.chains = []                # [(count, [pc, caller, ...])]


def parse(log_text):
    """Serial log text -> [Profile], in the order printed."""
    profiles, cur = [], None
    for raw in log_text.replace("\r", "").split("\n"):
        line = PREFIX_RE.sub("", raw).strip()
        m = HEAD_RE.match(line)
        if m:
            cur = Profile(m.group(1), int(m.group(2)), int(m.group(3)),
                          int(m.group(5)), int(m.group(6), 16), m.group(7))
            profiles.append(cur)
            continue
        m = CHAIN_RE.match(line)
        if m and cur and m.group(1) == cur.bench:
            cur.chains.append((int(m.group(2)),
                               [int(a, 16) for a in m.group(3).split()]))
    return profiles


def named_chains(prof, syms):
    """[(count, [function, caller, ...])]: a caller's return address
    minus one (the call, not what follows it), relocation undone."""
    off = prof.text_at - syms.text_start
    out = []
    for count, pcs in prof.chains:
        names = [syms.name(pc - off - (1 if i else 0))
                 for i, pc in enumerate(pcs)]
        out.append((count, names))
    return out


def flat(chains):
    """{function: (self, total)} sample counts."""
    table = {}
    for count, names in chains:
        s, t = table.get(names[0], (0, 0))
        table[names[0]] = (s + count, t)
        for fn in set(names):
            s, t = table.get(fn, (0, 0))
            table[fn] = (s, t + count)
    return table


def report(prof, syms, top=25, out=sys.stdout, title=None):
    """Print @prof's flat profile, @top functions by self samples."""
    chains = named_chains(prof, syms)
    total = sum(c for c, _ in chains) or 1
    print("profile %s: %d samples every %d ns by %s%s" % (
        title or prof.bench, prof.samples, prof.period, prof.source,
        ", %d dropped (table full)" % prof.dropped if prof.dropped else ""),
        file=out)
    if prof.source != "nmi":
        print("  (timer samples: time with interrupts off is charged to "
              "where they come back on)", file=out)
    print("  %6s %6s  %s" % ("self%", "total%", "function"), file=out)
    rows = sorted(flat(chains).items(), key=lambda kv: (-kv[1][0], -kv[1][1],
                                                        kv[0]))
    for fn, (s, t) in rows[:top]:
        if not s:
            break
        print("  %6.1f %6.1f  %s" % (100.0 * s / total, 100.0 * t / total, fn),
              file=out)
    return chains


def folded(chains, root):
    """Folded stacks, outermost first: 'root;outer;...;inner count'."""
    merged = {}
    for count, names in chains:
        key = ";".join([root] + list(reversed(names)))
        merged[key] = merged.get(key, 0) + count
    return ["%s %d" % (k, v) for k, v in sorted(merged.items())]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("log", help="serial log with 'profile' lines")
    ap.add_argument("elf", help="the kernel.elf that printed them")
    ap.add_argument("--nm", default="nm", help="nm of the kernel's toolchain")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--folded", help="write <bench>.folded files here")
    args = ap.parse_args(argv)
    with open(args.log, errors="replace") as f:
        profiles = parse(f.read())
    if not profiles:
        print("%s: no profile lines" % args.log, file=sys.stderr)
        return 1
    syms = Symbols(args.elf, args.nm)
    for prof in profiles:
        chains = report(prof, syms, args.top)
        if args.folded:
            os.makedirs(args.folded, exist_ok=True)
            path = os.path.join(args.folded, prof.bench + ".folded")
            with open(path, "w") as f:
                f.write("\n".join(folded(chains, prof.bench)) + "\n")
            print("  folded stacks: %s" % path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
