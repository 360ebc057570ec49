#!/usr/bin/env python3
"""test_screen.py - the PC screen console (drivers/fbcon.c) and keyboard
(drivers/i8042.c), read back from QEMU's framebuffer.

The host half (no QEMU): the font in drivers/font5x7.c is whole (every
printable character, no two alike, so a screen can be read back), and
text drawn with it into a picture reads back the same.

The boot half: builds/x86_64/kestrel.iso (the shell, no command line)
boots through GRUB under BIOS and under UEFI (OVMF) at 2 CPUs with QEMU's
monitor on a socket, and the screen is read with `screendump` (a P6
PPM): every 8x16 cell is matched against the font's glyphs, drawn as
fbcon draws them, which gives the screen's text (printed when a check
fails).  Checked:
  - after boot, the screen shows the banner ("kestrel 0.1 (x86_64) on
    GRUB"), fbcon's own "console: framebuffer ..." line and the shell's
    greeting;
  - keys sent with the monitor's `sendkey` (the i8042 path, by IRQ 1)
    reach the shell: "help" runs (its list on the serial console and the screen),
    Ctrl-C abandons a line ("^C"), Shift and Caps Lock (and both: lower
    case again) choose the case;
  - after more output (`help` twice more: the screen scrolls),
    `test context` typed the same way runs, its KTAP summary ("# Totals:
    pass:...") is drawn, and the screen is the serial console's last
    lines, character for character.
The screendumps and the serial transcripts are kept in build/test-logs/
(screen-<firmware>-*.ppm, screen-<firmware>.log).  Skips, saying why,
when QEMU, the ISO or OVMF are missing, or x86_64 is not in
KESTREL_TEST_ARCHES (make test sets it).

    python3 tests/tools/test_screen.py        # make test runs it
"""

import os
import re
import shutil
import sys
import time
import unittest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(
    __file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kestrel import boot, qemu  # noqa: E402
from test_shell import Console  # noqa: E402

FONT_SRC = os.path.join(ROOT, "drivers", "font5x7.c")
LOG_DIR = os.path.join(ROOT, "build", "test-logs")
ISO = os.path.join(ROOT, "build", "x86_64", "kestrel.iso")
CELL_W, CELL_H = 8, 16
FIRST, LAST = 0x20, 0x7e
CURSOR_ROWS = 2         # fbcon.c: the cursor underlines the last two rows
SUITE = "context"       # a short suite, typed on the keyboard


# ---- the font, as fbcon draws it ---------------------------------------

def load_font(path=FONT_SRC):
    """{cell: character} and {character: cell} for the glyphs of
    font5x7.c, each cell the 16 rows of 8 pixels (bit 7 the left) that
    font_init() builds: a blank column left, rows doubled, a blank row
    above and below."""
    with open(path) as f:
        src = f.read()
    rows = re.findall(r'"([.#]{5})"', src)
    glyphs = [rows[i:i + 7] for i in range(0, len(rows), 7)]
    if len(rows) % 7:
        raise ValueError("%s: %d rows of dots, not glyphs of 7"
                         % (path, len(rows)))
    chars = [chr(c) for c in range(FIRST, LAST + 1)]
    if len(glyphs) != len(chars) + 1:      # + the box
        raise ValueError("%s: %d glyphs, want %d and the box"
                         % (path, len(glyphs), len(chars)))
    by_char = {}
    for ch, g in zip(chars + ["\0box"], glyphs):
        cell = [0] * CELL_H
        for y, row in enumerate(g):
            bits = sum(0x80 >> (x + 1) for x, d in enumerate(row)
                       if d == "#")
            cell[1 + 2 * y] = cell[2 + 2 * y] = bits
        by_char[ch] = tuple(cell)
    return {cell: ch for ch, cell in by_char.items()}, by_char


# ---- reading a screendump ----------------------------------------------

def read_ppm(path):
    """(width, height, pixels): a binary PPM (P6, maxval 255, as QEMU's
    screendump writes it), pixels as bytes, 3 a pixel."""
    with open(path, "rb") as f:
        data = f.read()
    fields, pos = [], 0
    while len(fields) < 4:                  # magic, width, height, maxval
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":       # a comment to the line's end
            pos = data.index(b"\n", pos)
            continue
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    if fields[0] != b"P6" or fields[3] != b"255":
        raise ValueError("%s: not a P6 PPM with maxval 255" % path)
    w, h = int(fields[1]), int(fields[2])
    pixels = data[pos + 1:pos + 1 + 3 * w * h]
    if len(pixels) != 3 * w * h:
        raise ValueError("%s: %d bytes of pixels, want %d"
                         % (path, len(pixels), 3 * w * h))
    return w, h, pixels


def screen_text(w, h, pixels, by_cell):
    """The screen's lines of text: each 8x16 cell matched against the
    font (lit = not the background, the top left pixel's colour); the
    cursor is taken off first; '?' for a cell that is no glyph."""
    bg = pixels[0:3]
    lines = []
    for cy in range(h // CELL_H):
        line = []
        for cx in range(w // CELL_W):
            cell = []
            for y in range(CELL_H):
                at = 3 * ((cy * CELL_H + y) * w + cx * CELL_W)
                bits = 0
                for x in range(CELL_W):
                    if pixels[at + 3 * x:at + 3 * x + 3] != bg:
                        bits |= 0x80 >> x
                cell.append(bits)
            if cell[-CURSOR_ROWS:] == [0xff] * CURSOR_ROWS:
                cell[-CURSOR_ROWS:] = [0] * CURSOR_ROWS
            line.append(by_cell.get(tuple(cell), "?"))
        lines.append("".join(line).rstrip())
    while lines and not lines[-1]:
        lines.pop()
    return lines


class FontTests(unittest.TestCase):
    def test_every_printable_character_has_its_own_glyph(self):
        by_cell, by_char = load_font()
        self.assertEqual(len(by_char), LAST - FIRST + 2)
        # No two alike (else a screen cannot be read back), and the box
        # (unknown characters) is none of them.
        self.assertEqual(len(by_cell), len(by_char))
        self.assertEqual(by_cell[tuple([0] * CELL_H)], " ")

    def test_drawn_text_reads_back(self):
        by_cell, by_char = load_font()
        text = ["kestrel 0.1 (x86_64) on GRUB", "# Totals: pass:7 fail:0",
                "".join(chr(c) for c in range(FIRST, LAST + 1))]
        w, h = CELL_W * 100, CELL_H * 4
        px = bytearray(3 * w * h)
        for cy, line in enumerate(text):
            for cx, ch in enumerate(line):
                for y, bits in enumerate(by_char[ch]):
                    for x in range(CELL_W):
                        if bits & (0x80 >> x):
                            at = 3 * ((cy * CELL_H + y) * w + cx * CELL_W
                                      + x)
                            px[at:at + 3] = b"\xaa\xaa\xaa"
        self.assertEqual(screen_text(w, h, bytes(px), by_cell), text)


# ---- the boots -----------------------------------------------------------

class Machine:
    """The ISO booted at 2 CPUs: serial console, monitor, screen."""

    def __init__(self, firmware):
        self.firmware = firmware
        self.mon = os.path.join(LOG_DIR, "screen-%s.mon" % firmware)
        os.makedirs(LOG_DIR, exist_ok=True)
        if os.path.exists(self.mon):
            os.unlink(self.mon)
        if firmware == "ovmf":
            argv = qemu.x86_ovmf(2, ISO, qemu.copy_ovmf_vars(os.path.join(
                LOG_DIR, "screen-ovmf.vars.fd")))
        else:
            argv = qemu.x86_grub(2, ISO)
        argv += ["-monitor", "unix:%s,server,nowait" % self.mon]
        self.con = Console(argv)
        self.by_cell, _ = load_font()
        self.shots = 0

    def monitor(self, command):
        return boot.monitor_command(self.mon, command)

    def keys(self, *keys):
        """Press @keys (QEMU names: "h", "ret", "shift-h", "ctrl-c")."""
        for k in keys:
            self.monitor("sendkey " + k)

    def type(self, text):
        self.keys(*[{" ": "spc"}.get(c, c) for c in text] + ["ret"])

    def screen(self, what):
        """The screen's text now; the dump is kept as
        screen-<firmware>-<what>.ppm."""
        path = os.path.join(LOG_DIR, "screen-%s-%s.ppm"
                            % (self.firmware, what))
        if os.path.exists(path):
            os.unlink(path)
        self.monitor("screendump " + path)
        for _ in range(50):                 # written by QEMU's main loop
            if os.path.exists(path) and os.path.getsize(path) > 0:
                break
            time.sleep(0.1)
        return screen_text(*read_ppm(path), self.by_cell)

    def close(self):
        self.monitor("quit")
        self.con.close(os.path.join(LOG_DIR, "screen-%s.log"
                                    % self.firmware))


class ScreenTests(unittest.TestCase):
    def machine(self, firmware):
        asked = os.environ.get("KESTREL_TEST_ARCHES", "x86_64 riscv64")
        if "x86_64" not in asked.split():
            self.skipTest("not asked for (KESTREL_TEST_ARCHES=%s)" % asked)
        if not shutil.which("qemu-system-x86_64"):
            self.skipTest("qemu-system-x86_64 is not installed (make deps)")
        if not os.path.exists(ISO):
            self.skipTest("no build/x86_64/kestrel.iso: make ARCH=x86_64 "
                          "images (needs grub-mkrescue: make deps)")
        if firmware == "ovmf" and qemu.ovmf_missing():
            self.skipTest(qemu.ovmf_missing())
        m = Machine(firmware)
        self.addCleanup(m.close)
        m.con.expect("type 'help'", 90)
        m.con.expect("kestrel> ", 10)
        return m

    def assertOnScreen(self, m, pattern, lines, what):
        if not any(re.search(pattern, l) for l in lines):
            self.fail("%s: no line matching %r on the screen (%s); it "
                      "reads:\n%s" % (m.firmware, pattern, what,
                                      "\n".join(lines)))

    def check(self, firmware):
        m = self.machine(firmware)
        lines = m.screen("boot")
        self.assertOnScreen(m, r"^\[cpu0\] console: framebuffer \d+x\d+x"
                            r"(32|24) at 0x[0-9a-f]+.*\(fbcon\)$", lines,
                            "after boot")
        self.assertOnScreen(m, r"^\[cpu0\] kestrel \S+ \(x86_64\) on GRUB",
                            lines, "after boot")
        self.assertOnScreen(m, r"shell on 2 CPUs; type 'help'$", lines,
                            "after boot")

        # The keyboard, by its interrupt (IRQ 1 through the IOAPIC): a
        # command, Ctrl-C, Shift.
        self.assertIn("x86: keyboard input by interrupt: ISA IRQ 1",
                      m.con.out, "%s: the keyboard is polled" % firmware)
        m.type("help")
        m.con.expect("power the machine off", 30)
        m.con.expect("kestrel> ", 10)
        m.keys("x", "ctrl-c")
        m.con.expect("x^C", 30)
        m.keys("shift-k", "e", "y", "caps_lock", "o", "shift-k",
               "caps_lock", "x")
        m.con.expect("KeyOkx", 30)
        m.keys("ctrl-c")
        m.con.expect("kestrel> ", 10)
        lines = m.screen("help")
        self.assertOnScreen(m, r"^kestrel> help$", lines, "typed help")
        self.assertOnScreen(m, r"^  help +this list$", lines, "typed help")
        self.assertOnScreen(m, r"^kestrel> x\^C$", lines, "typed Ctrl-C")
        self.assertOnScreen(m, r"^kestrel> KeyOkx\^C$", lines,
                            "typed Shift, Caps Lock")

        # Enough output to scroll (the banner goes), then a test run
        # typed on the keyboard; its summary on the screen.
        for _ in range(2):
            m.type("help")
            m.con.expect("power the machine off", 30)
            m.con.expect("kestrel> ", 10)
        m.type("test " + SUITE)
        m.con.expect("# Totals: pass:", 120)
        m.con.expect("kestrel> ", 60)
        lines = m.screen("test")
        self.assertOnScreen(m, r"^\[cpu\d\] # Totals: pass:\d+ fail:0 "
                            r"skip:\d+ total:\d+$", lines, "test " + SUITE)
        self.assertOnScreen(m, r"^kestrel>$", lines, "test " + SUITE)
        # Scrolled, and drawn whole: the screen is the serial console's
        # last lines, character for character.
        self.assertFalse(any("kestrel 0.1 (x86_64) on GRUB" in l
                             for l in lines), "%s: the screen did not "
                         "scroll:\n%s" % (firmware, "\n".join(lines)))
        serial = [l.rstrip() for l in m.con.out.replace("\r", "")
                  .split("\n")]
        if serial[-len(lines):] != lines:
            self.fail("%s: the screen is not the serial console's last "
                      "%d lines; screen:\n%s\nserial:\n%s" % (
                          firmware, len(lines), "\n".join(lines),
                          "\n".join(serial[-len(lines):])))

    def test_bios_grub_screen_and_keyboard(self):
        self.check("bios")

    def test_uefi_ovmf_screen_and_keyboard(self):
        self.check("ovmf")


if __name__ == "__main__":
    unittest.main(verbosity=2)
