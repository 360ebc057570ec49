/*
 * fbcon.c - the screen console (drivers/fbcon.c) drawing into a buffer
 * of the test's own: the pixels of a character are its glyph's, in the
 * framebuffer's pixel layout (32, 24 and 16 bits); newline, carriage
 * return, backspace, tab, line wrap and scrolling put the text where a
 * terminal would, a scroll moving a quarter of the screen; a character
 * outside the font is a box; GRUB's EGA text buffer gets characters
 * and attributes; and a screen
 * fbcon cannot draw on is refused with its reason, never drawn on.
 * Runs on both arches (the driver is generic; x86_64 also boots it on
 * GRUB's framebuffer, which tests/tools/test_screen.py reads back).
 */
#include "ktest.h"
#include "errno.h"
#include "fbcon.h"
#include "font.h"
#include "mm.h"
#include "string.h"

#define COLS 12
#define ROWS 3

/* One console at a time: it is larger than a test stack. */
static struct fbcon con;

/* A COLS x ROWS character framebuffer of @bpp bits in RAM, each line
 * @pad bytes longer than its pixels, RGB fields as GRUB gives them for
 * @bpp (16: 5-6-5). */
static uint8_t *screen_pad(struct ktest *t, struct boot_fb *fb, int bpp,
			   int pad, int rows)
{
	uint8_t *buf;

	memset(fb, 0, sizeof(*fb));
	fb->type = BOOT_FB_RGB;
	fb->bpp = bpp;
	fb->width = COLS * FONT_W;
	fb->height = rows * FONT_H;
	fb->pitch = fb->width * ((bpp + 7) / 8) + pad;
	if (bpp == 16) {
		fb->red_pos = 11, fb->red_size = 5;
		fb->green_pos = 5, fb->green_size = 6;
		fb->blue_pos = 0, fb->blue_size = 5;
	} else {
		fb->red_pos = 16, fb->red_size = 8;
		fb->green_pos = 8, fb->green_size = 8;
		fb->blue_pos = 0, fb->blue_size = 8;
	}
	buf = kmalloc(fb->pitch * fb->height);
	KASSERT(t, buf != NULL);
	fb->addr = (uintptr_t)buf;
	KASSERT_EQ(t, fbcon_setup(&con, fb), 0);
	fbcon_online(&con);
	return buf;
}

static uint8_t *screen(struct ktest *t, struct boot_fb *fb, int bpp)
{
	return screen_pad(t, fb, bpp, 4, ROWS);
}

static void type(const char *s)
{
	while (*s)
		con.con.putc(&con.con, *s++);
}

static uint32_t pixel_at(const struct boot_fb *fb, int x, int y)
{
	const uint8_t *p = (const uint8_t *)(uintptr_t)fb->addr +
			   y * fb->pitch + x * ((fb->bpp + 7) / 8);

	switch (fb->bpp) {
	case 32:
		return *(const uint32_t *)p;
	case 24:
		return p[0] | p[1] << 8 | p[2] << 16;
	default:
		return *(const uint16_t *)p;
	}
}

/* Does cell (@col, @row) show @ch's glyph in @fg on @bg (the cursor's
 * underline aside)?  Reports the first pixel that differs. */
static bool shows(struct ktest *t, const struct boot_fb *fb, int col,
		  int row, unsigned char ch, uint32_t fg, uint32_t bg)
{
	const uint8_t *g = font_cell(ch);

	for (int y = 0; y < FONT_H - 2; y++) {
		for (int x = 0; x < FONT_W; x++) {
			uint32_t want = g[y] & (0x80 >> x) ? fg : bg;
			uint32_t got = pixel_at(fb, col * FONT_W + x,
						row * FONT_H + y);

			if (got != want) {
				ktest_fail(t, __FILE__, __LINE__, "cell %d,%d "
					   "('%c'): pixel %d,%d is 0x%x, not 0x%x",
					   col, row, ch, x, y, got, want);
				return false;
			}
		}
	}
	return true;
}

/* The text of row @row, as fbcon keeps it, without trailing blanks. */
static const char *row_text(int row)
{
	static char s[COLS + 1];
	int n = COLS;

	memcpy(s, con.cells[row], COLS);
	while (n > 0 && s[n - 1] == ' ')
		n--;
	s[n] = '\0';
	return s;
}

static void glyph_pixels_in_each_layout(struct ktest *t)
{
	/* Light grey 0xaaaaaa on black, packed per layout. */
	/* 32 bpp twice: aligned lines take fbcon's 64-bit stores. */
	static const struct { int bpp, pad; uint32_t fg; } layouts[] = {
		{ 32, 0, 0xaaaaaa }, { 32, 4, 0xaaaaaa }, { 24, 4, 0xaaaaaa },
		{ 16, 4, (0xaa >> 3) << 11 | (0xaa >> 2) << 5 | 0xaa >> 3 },
	};

	for (unsigned i = 0; i < ARRAY_SIZE(layouts); i++) {
		struct boot_fb fb;
		uint8_t *buf = screen_pad(t, &fb, layouts[i].bpp,
					  layouts[i].pad, ROWS);

		KEXPECT_EQ(t, con.wide, layouts[i].bpp == 32 && !layouts[i].pad);
		type("Ag~");
		KEXPECT(t, shows(t, &fb, 0, 0, 'A', layouts[i].fg, 0));
		KEXPECT(t, shows(t, &fb, 1, 0, 'g', layouts[i].fg, 0));
		KEXPECT(t, shows(t, &fb, 2, 0, '~', layouts[i].fg, 0));
		/* The cursor: an underline in the next cell's last row. */
		KEXPECT_EQ(t, pixel_at(&fb, 3 * FONT_W, FONT_H - 1),
			   layouts[i].fg);
		KEXPECT_EQ(t, pixel_at(&fb, 0, FONT_H - 1), 0);
		kfree(buf);
	}
}

static void controls_move_the_cursor(struct ktest *t)
{
	struct boot_fb fb;
	uint8_t *buf = screen(t, &fb, 32);

	type("abc\bd\r\n");		/* backspace overwrites c */
	type("\tx\r");			/* tab to column 8 */
	type("y\n");			/* CR then y at column 0 */
	KEXPECT(t, !strcmp(row_text(0), "abd"));
	KEXPECT(t, !strcmp(row_text(1), "y       x"));
	KEXPECT(t, shows(t, &fb, 8, 1, 'x', 0xaaaaaa, 0));
	KEXPECT_EQ(t, con.cx, 0);
	KEXPECT_EQ(t, con.cy, 2);
	type("\a\x1b");			/* other controls show nothing */
	KEXPECT(t, !strcmp(row_text(2), ""));
	kfree(buf);
}

static void scrolls_and_wraps(struct ktest *t)
{
	struct boot_fb fb;
	uint8_t *buf = screen(t, &fb, 32);

	type("one\ntwo\nthree\nfour");
	KEXPECT(t, !strcmp(row_text(0), "two"));
	KEXPECT(t, !strcmp(row_text(1), "three"));
	KEXPECT(t, !strcmp(row_text(2), "four"));
	/* The pixels moved with the text (only changed cells redrawn). */
	KEXPECT(t, shows(t, &fb, 0, 0, 't', 0xaaaaaa, 0));
	KEXPECT(t, shows(t, &fb, 2, 0, 'o', 0xaaaaaa, 0));
	KEXPECT(t, shows(t, &fb, 3, 1, 'e', 0xaaaaaa, 0));
	KEXPECT(t, shows(t, &fb, 4, 1, 'e', 0xaaaaaa, 0));
	KEXPECT(t, shows(t, &fb, 4, 2, ' ', 0xaaaaaa, 0));
	/* A line longer than the screen wraps onto the next (scrolling). */
	type("\n0123456789abcdef");
	KEXPECT(t, !strcmp(row_text(1), "0123456789ab"));
	KEXPECT(t, !strcmp(row_text(2), "cdef"));
	KEXPECT(t, shows(t, &fb, 11, 1, 'b', 0xaaaaaa, 0));
	kfree(buf);
}

/* A screen of 8 lines scrolls 2 at a time (a quarter: fbcon.c says
 * why), leaving the cursor on the first blank line. */
static void jump_scroll_by_a_quarter(struct ktest *t)
{
	struct boot_fb fb;
	uint8_t *buf = screen_pad(t, &fb, 32, 0, 8);

	KEXPECT_EQ(t, con.jump, 2);
	type("1\n2\n3\n4\n5\n6\n7\n8\n9");
	KEXPECT(t, !strcmp(row_text(0), "3"));
	KEXPECT(t, !strcmp(row_text(5), "8"));
	KEXPECT(t, !strcmp(row_text(6), "9"));
	KEXPECT(t, !strcmp(row_text(7), ""));
	KEXPECT_EQ(t, con.cy, 6);
	KEXPECT(t, shows(t, &fb, 0, 0, '3', 0xaaaaaa, 0));
	KEXPECT(t, shows(t, &fb, 0, 6, '9', 0xaaaaaa, 0));
	KEXPECT(t, shows(t, &fb, 0, 7, ' ', 0xaaaaaa, 0));
	kfree(buf);
}

static void unknown_character_is_a_box(struct ktest *t)
{
	struct boot_fb fb;
	uint8_t *buf = screen(t, &fb, 32);

	type("\x80\xff");
	KEXPECT(t, font_cell(0x80) == font_cell(0xff));
	KEXPECT(t, memcmp(font_cell(0x80), font_cell('?'), FONT_H));
	KEXPECT(t, memcmp(font_cell(0x80), font_cell(' '), FONT_H));
	KEXPECT(t, shows(t, &fb, 0, 0, 0x80, 0xaaaaaa, 0));
	KEXPECT(t, shows(t, &fb, 1, 0, 0xff, 0xaaaaaa, 0));
	kfree(buf);
}

/* GRUB's EGA text mode: a character and attribute (grey on black) a
 * cell, the cursor shown as inverse video, scrolling a quarter. */
static void ega_text_cells(struct ktest *t)
{
	struct boot_fb fb = {
		.type = BOOT_FB_EGA_TEXT, .width = 80, .height = 25,
		.pitch = 160, .bpp = 16,
	};
	uint16_t *vga = kmalloc(160 * 25);

	KASSERT(t, vga != NULL);
	fb.addr = (uintptr_t)vga;
	KASSERT_EQ(t, fbcon_setup(&con, &fb), 0);
	fbcon_online(&con);
	KEXPECT_EQ(t, con.cols, 80);
	KEXPECT_EQ(t, con.rows, 25);
	KEXPECT_EQ(t, con.jump, 6);
	type("Hi");
	KEXPECT_EQ(t, vga[0], 'H' | 0x07 << 8);
	KEXPECT_EQ(t, vga[1], 'i' | 0x07 << 8);
	KEXPECT_EQ(t, vga[2], ' ' | 0x70 << 8);		/* the cursor */
	for (int i = 0; i < 25; i++)
		type("\n");
	KEXPECT_EQ(t, vga[0], ' ' | 0x07 << 8);
	KEXPECT_EQ(t, con.cy, 19);
	KEXPECT_EQ(t, vga[19 * 80], ' ' | 0x70 << 8);
	kfree(vga);
}

/* Every way a loader's screen can be unusable: refused, with a reason,
 * and nothing drawn. */
static void unsupported_screens_refused(struct ktest *t)
{
	struct boot_fb good = {
		.type = BOOT_FB_RGB, .addr = 0x1000, .pitch = 4096,
		.width = 1024, .height = 768, .bpp = 32,
		.red_pos = 16, .red_size = 8, .green_pos = 8, .green_size = 8,
		.blue_pos = 0, .blue_size = 8,
	};
	struct boot_fb bad[7];

	for (int i = 0; i < 7; i++)
		bad[i] = good;
	bad[0].type = BOOT_FB_INDEXED;
	bad[1].type = BOOT_FB_NONE;
	bad[2].bpp = 8;
	bad[3].pitch = 1024 * 4 - 1;
	bad[4].green_size = 10;
	bad[5].width = 7;
	bad[6].type = BOOT_FB_EGA_TEXT, bad[6].width = 80, bad[6].pitch = 80;
	KEXPECT(t, fbcon_unsupported(&good) == NULL);
	for (int i = 0; i < 7; i++) {
		const char *why = fbcon_unsupported(&bad[i]);

		KEXPECT(t, why != NULL && why[0]);
		/* .addr 0x1000 is never written: setup fails first. */
		KEXPECT_EQ(t, fbcon_setup(&con, &bad[i]), -EINVAL);
	}
}

static struct ktest_case fbcon_cases[] = {
	KTEST_CASE(glyph_pixels_in_each_layout),
	KTEST_CASE(controls_move_the_cursor),
	KTEST_CASE(scrolls_and_wraps),
	KTEST_CASE(jump_scroll_by_a_quarter),
	KTEST_CASE(unknown_character_is_a_box),
	KTEST_CASE(ega_text_cells),
	KTEST_CASE(unsupported_screens_refused),
	{ 0 },
};
KTEST_SUITE(fbcon, fbcon_cases);
