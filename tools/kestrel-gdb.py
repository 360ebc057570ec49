# kestrel-gdb.py - gdb commands that print Kestrel's scheduler state from
# a live kernel (make debug) or a memory dump of a hung one (the test
# runner writes one when a boot times out; README.md, "Debugging").
#
#   gdb-multiarch build/riscv64/kernel.elf CORE -x tools/kestrel-gdb.py \
#       -ex kestrel-state
#
# kestrel-state prints, per online CPU: its preempt count, pending
# reschedule and timer interrupts; its runqueue (curr, donor, the queued
# tasks); its timer queue (what is armed, due when, and which callback
# runs); then every task that is not queued (sleeping, blocked on a
# mutex) with its mutex's owner.  Times are relative to the latest
# runqueue clock: a timer due "-5000 ms" ago has not fired for 5 s.
#
# It reads memory only (no function calls), so it works on a core file;
# on a live kernel stop it first.  The structures are read through the
# kernel's own debug information: a field renamed in C is renamed here.

import gdb

TASK_STATES = {0: "running", 1: "sleeping", 2: "dead"}
# Timer callbacks whose data is the task they wake.
TASK_TIMERS = ("sleep_timer_fn", "timeout_fn", "dl_task_timer", "nudge")


def val(expr):
    return gdb.parse_and_eval(expr)


def cstr(v):
    try:
        return v.string()
    except gdb.error:
        return "?"


def read_u64(pa):
    return int.from_bytes(gdb.selected_inferior().read_memory(pa, 8), "little")


def phys(va):
    """@va's address in the dump.  The kernel's image and heap are mapped
    at their physical addresses; thread stacks (and timers on them) are
    not, and a memory dump holds physical memory: walk the page table
    (x86_64: 4 levels from x86_kernel_cr3; riscv64: Sv39 from rv_satp)."""
    arch = gdb.selected_frame().architecture().name()
    if "riscv" in arch:
        if va < 0x3f00000000:
            return va
        table = (int(val("rv_satp")) & ((1 << 44) - 1)) << 12
        for level in (2, 1, 0):
            pte = read_u64(table + ((va >> (12 + 9 * level)) & 511) * 8)
            if not pte & 1:
                raise gdb.MemoryError("%#x not mapped" % va)
            base = (pte >> 10) << 12
            if pte & 0xe:           # R, W or X: a leaf
                return base + (va & ((1 << (12 + 9 * level)) - 1))
            table = base
        raise gdb.MemoryError("%#x: no leaf" % va)
    if va < 0x400000000000:
        return va
    table = int(val("x86_kernel_cr3")) & 0x000ffffffffff000
    for level in (3, 2, 1, 0):
        pte = read_u64(table + ((va >> (12 + 9 * level)) & 511) * 8)
        if not pte & 1:
            raise gdb.MemoryError("%#x not mapped" % va)
        base = pte & 0x000ffffffffff000
        if level == 0 or (level < 3 and pte & 0x80):    # PS: a large page
            return base + (va & ((1 << (12 + 9 * level)) - 1))
        table = base
    raise gdb.MemoryError("%#x: no leaf" % va)


def at(addr, typename):
    """The struct @typename at virtual address @addr, readable in a dump."""
    return gdb.Value(phys(int(addr))).cast(
        gdb.lookup_type(typename).pointer())


def container(ptr, typename, field):
    """The struct @typename holding list node @ptr in @field."""
    t = gdb.lookup_type(typename)
    off = None
    for f in t.fields():
        if f.name == field:
            off = f.bitpos // 8
    return at(int(ptr) - off, typename)


def list_entries(head, typename, field, limit=4096):
    """The entries of the list_head at address @head (a gdb.Value)."""
    node = int(head["next"])
    n = 0
    while node != int(head.address) and n < limit:
        yield container(node, typename, field)
        node = int(at(node, "struct list_head")["next"])
        n += 1


def task_line(p):
    cls = str(p["sched_class"]).split("<")[-1].rstrip(">")
    cls = cls.replace("_sched_class", "")
    state = int(p["state"])
    s = "%-16s tid %-4d %-8s %-5s prio %-3d on_rq %d on_cpu %d cpu %d" % (
        cstr(p["name"]), int(p["tid"]), TASK_STATES.get(state, str(state)),
        cls, int(p["prio"]), int(p["on_rq"]), int(p["on_cpu"]),
        int(p["cpu"]))
    if int(p["wake_cpu"]) >= 0:
        s += " lent from cpu%d" % int(p["wake_cpu"])
    m = int(p["blocked_on"])
    if m == 1:
        s += " waking (PROXY_WAKING)"
    elif m:
        mx = at(m, "struct mutex")
        owner = int(mx["owner"]) & ~7
        oname = "none"
        if owner:
            oname = cstr(at(owner, "struct task")["name"])
        s += " blocked on %s (owner %s)" % (cstr(mx["name"]), oname)
    if cls == "deadline":
        s += " dl runtime %d deadline %d%s" % (
            int(p["dl"]["runtime"]), int(p["dl"]["deadline"]),
            " THROTTLED" if int(p["dl"]["dl_throttled"]) else "")
    return s


class KestrelState(gdb.Command):
    """Print every CPU's runqueue and timers, and the tasks not queued."""

    def __init__(self):
        super().__init__("kestrel-state", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        ncpus = int(val("ncpus"))
        now = 0
        for c in range(ncpus):
            now = max(now, int(val("cpus[%d].rq->clock_ns" % c)))
        print("latest runqueue clock: %d ns" % now)
        queued = set()
        for c in range(ncpus):
            cpu = val("cpus[%d]" % c)
            rq = cpu["rq"].dereference()
            if not int(cpu["online"]):
                print("cpu%d: offline" % c)
                continue
            print("cpu%d: preempt_count %#x%s, timer irqs %d, ticks %d, "
                  "nr_running %d, clock %+d ms" % (
                      c, int(cpu["preempt_count"]),
                      ", RESCHED pending" if int(cpu["need_resched"]) else "",
                      int(cpu["nr_timer_irqs"]), int(cpu["nr_ticks"]),
                      int(rq["nr_running"]),
                      (int(rq["clock_ns"]) - now) // 1000000))
            print("  curr  %s" % task_line(rq["curr"]))
            if int(rq["donor"]) != int(rq["curr"]):
                print("  donor %s" % task_line(rq["donor"]))
            for p in list_entries(rq["tasks"], "struct task", "rq_node"):
                queued.add(int(p))
                if int(p) != int(rq["curr"]):
                    print("  queued %s" % task_line(p))
            q = cpu["timers"]
            if int(q) == 0:
                continue
            running = int(q["running"])
            if running:
                print("  timer callback running: %s" % q["running"]["fn"])
            last = 0
            for t in list_entries(q["timers"], "struct timer", "node", 64):
                fn = str(t["fn"]).split("<")[-1].rstrip(">")
                owner = ""
                if fn in TASK_TIMERS and int(t["data"]):
                    owner = " for " + cstr(at(t["data"], "struct task")["name"])
                # A queue's timers are sorted and say they are on it:
                # anything else is a corrupt queue (armed twice, or
                # re-initialised while queued).
                bad = ""
                if int(t["cpu"]) != c:
                    bad += " CORRUPT: timer says cpu %d" % int(t["cpu"])
                if int(t["deadline_ns"]) < last:
                    bad += " CORRUPT: out of order"
                last = int(t["deadline_ns"])
                print("  timer %-20s due %+d ms%s%s" % (
                    fn, (int(t["deadline_ns"]) - now) // 1000000, owner, bad))
        print("tasks not queued:")
        for p in list_entries(val("all_tasks"), "struct task", "all_node"):
            if int(p) in queued or int(p["on_rq"]):
                continue
            print("  %s" % task_line(p))


KestrelState()
