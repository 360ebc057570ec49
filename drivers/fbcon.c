/*
 * fbcon.c - a text console on the screen the loader set up: a linear
 * RGB framebuffer (32, 24, 16 or 15 bits a pixel, any field layout),
 * or the VGA text buffer (GRUB's EGA text mode).
 *
 * The text lives in f->cells; a pixel is only ever written, never read:
 * reads from a framebuffer are uncached bus reads, very slow on real
 * hardware.  So a scroll does not move pixels: it moves the cells up
 * and redraws only the cells whose character changed, which
 * for a log (lines sharing their "[cpuN] " prefix, blank tails) is a
 * part of the screen.  Even so a scroll redraws thousands of cells, all
 * under the console lock with interrupts off, and a ktest=all boot
 * prints some 2000 lines: so a scroll moves the text up a quarter of
 * the screen at once, like a terminal's jump scroll, and the cost comes
 * a twelfth as often on a 48-line screen.  A character is 16 rows of 8
 * pixels, at 32 bpp four 64-bit stores a row from a table (f->expand).
 * Measured under QEMU (TCG, 1024x768x32, `test sched_core trace
 * scenario_parse` in the shell: 245 lines, 16 scrolls): a scroll took
 * 0.9 ms on average, 2.9 ms at worst.
 *
 * putc is called under printk's console lock (or by the panicking CPU
 * alone), so nothing here takes a lock or sleeps.
 */
#include "kernel.h"
#include "errno.h"
#include "fbcon.h"
#include "font.h"
#include "string.h"

#define TAB 8
/* Light grey on black, as a PC console.  VGA attribute 0x07 likewise. */
#define FG_RGB 0xaaaaaa
#define BG_RGB 0x000000
#define TEXT_ATTR 0x07
/* The cursor: an underline in the cell's last two pixel rows (the font
 * leaves the last row blank, so it does not hide an underscore). */
#define CURSOR_ROWS 2

/* A colour (0xrrggbb) as a pixel of this framebuffer's layout. */
static uint32_t pixel(const struct boot_fb *fb, uint32_t rgb)
{
	uint32_t r = (rgb >> 16) & 0xff, g = (rgb >> 8) & 0xff, b = rgb & 0xff;

	return (r >> (8 - fb->red_size)) << fb->red_pos |
	       (g >> (8 - fb->green_size)) << fb->green_pos |
	       (b >> (8 - fb->blue_size)) << fb->blue_pos;
}

static inline void put_pixel(struct fbcon *f, uint8_t *p, uint32_t v)
{
	switch (f->bytes_pp) {
	case 4:
		*(volatile uint32_t *)p = v;
		break;
	case 3:
		((volatile uint8_t *)p)[0] = v;
		((volatile uint8_t *)p)[1] = v >> 8;
		((volatile uint8_t *)p)[2] = v >> 16;
		break;
	default:
		*(volatile uint16_t *)p = v;
	}
}

/* Draw cell (@col, @row) showing @ch, with the cursor if @cursor. */
static void draw(struct fbcon *f, int col, int row, uint8_t ch, bool cursor)
{
	const uint8_t *g;
	uint8_t *line;

	if (!f->online)
		return;
	if (f->text) {
		volatile uint16_t *cell = (volatile uint16_t *)f->base +
					  row * (f->pitch / 2) + col;

		/* The hardware cursor is the BIOS's; show ours as
		 * inverse video instead of programming the CRTC. */
		*cell = ch | (cursor ? 0x70 : TEXT_ATTR) << 8;
		return;
	}
	g = font_cell(ch);
	line = f->base + (uintptr_t)row * FONT_H * f->pitch +
	       (uintptr_t)col * FONT_W * f->bytes_pp;
	for (int y = 0; y < FONT_H; y++, line += f->pitch) {
		uint8_t bits = g[y];
		uint8_t *p = line;

		if (cursor && y >= FONT_H - CURSOR_ROWS)
			bits = 0xff;
		if (f->wide) {
			volatile uint64_t *q = (volatile uint64_t *)line;
			const uint64_t *e = f->expand[bits];

			for (int i = 0; i < FBCON_EXPAND_WORDS; i++)
				q[i] = e[i];
		} else {
			for (int x = 0; x < FONT_W; x++, p += f->bytes_pp)
				put_pixel(f, p, bits & (0x80 >> x) ? f->fg
								   : f->bg);
		}
	}
}

static void set_cell(struct fbcon *f, int col, int row, uint8_t ch)
{
	f->cells[row][col] = ch;
	draw(f, col, row, ch, false);
}

/* Move every line up f->jump lines and blank those at the bottom; only
 * cells whose character changes are drawn. */
static void scroll(struct fbcon *f)
{
	int n = f->jump;

	for (int r = 0; r < f->rows; r++) {
		for (int c = 0; c < f->cols; c++) {
			uint8_t ch = r + n < f->rows ? f->cells[r + n][c] : ' ';

			if (f->cells[r][c] != ch)
				set_cell(f, c, r, ch);
		}
	}
}

static void newline(struct fbcon *f)
{
	f->cx = 0;
	if (f->cy + 1 < f->rows) {
		f->cy++;
	} else {
		scroll(f);
		f->cy = f->rows - f->jump;
	}
}

static void fbcon_putc(struct console *con, char c)
{
	struct fbcon *f = con->priv;
	uint8_t ch = (uint8_t)c;

	/* Take the cursor off its cell; put back below. */
	draw(f, f->cx, f->cy, f->cells[f->cy][f->cx], false);
	switch (ch) {
	case '\r':
		f->cx = 0;
		break;
	case '\n':			/* the console sends "\r\n"; a lone
					 * "\n" starts a line too */
		newline(f);
		break;
	case '\b':
		if (f->cx > 0)
			f->cx--;
		break;
	case '\t':
		f->cx = (f->cx + TAB) & ~(TAB - 1);
		if (f->cx >= f->cols)
			newline(f);
		break;
	default:
		if (ch < ' ')		/* other controls: nothing to show */
			break;
		set_cell(f, f->cx, f->cy, ch);	/* > 0x7e: the box */
		if (++f->cx == f->cols)
			newline(f);
	}
	draw(f, f->cx, f->cy, f->cells[f->cy][f->cx], true);
}

/* A screen with nothing to read: the console's input is elsewhere. */
static int fbcon_getc(struct console *con)
{
	(void)con;
	return -1;
}

/* Paint the whole framebuffer the background colour (GRUB's text is
 * still there), then every cell. */
static void redraw(struct fbcon *f)
{
	if (!f->text) {
		for (uint32_t y = 0; y < f->height; y++) {
			uint8_t *p = f->base + (uintptr_t)y * f->pitch;

			for (uint32_t x = 0; x < f->width; x++, p += f->bytes_pp)
				put_pixel(f, p, f->bg);
		}
	}
	for (int r = 0; r < f->rows; r++)
		for (int c = 0; c < f->cols; c++)
			draw(f, c, r, f->cells[r][c], false);
	draw(f, f->cx, f->cy, f->cells[f->cy][f->cx], true);
}

void fbcon_online(struct fbcon *f)
{
	f->online = true;
	redraw(f);
}

const char *fbcon_unsupported(const struct boot_fb *fb)
{
	switch (fb->type) {
	case BOOT_FB_RGB:
		if (fb->bpp != 32 && fb->bpp != 24 && fb->bpp != 16 &&
		    fb->bpp != 15)
			return "bits per pixel not 15, 16, 24 or 32";
		if (fb->red_size > 8 || fb->green_size > 8 ||
		    fb->blue_size > 8 || fb->red_pos >= 32 ||
		    fb->green_pos >= 32 || fb->blue_pos >= 32)
			return "a colour field over 8 bits or outside the pixel";
		if (fb->pitch < fb->width * ((fb->bpp + 7) / 8))
			return "pitch shorter than a line";
		if (fb->width < FONT_W || fb->height < FONT_H)
			return "smaller than one character";
		return NULL;
	case BOOT_FB_EGA_TEXT:
		if (fb->pitch < fb->width * 2 || !fb->width || !fb->height)
			return "text buffer pitch shorter than a line";
		return NULL;
	case BOOT_FB_INDEXED:
		return "indexed colour (palette) modes are not supported";
	default:
		return "no framebuffer";
	}
}

int fbcon_setup(struct fbcon *f, const struct boot_fb *fb)
{
	if (fbcon_unsupported(fb))
		return -EINVAL;
	font_init();
	f->base = (uint8_t *)(uintptr_t)fb->addr;
	f->pitch = fb->pitch;
	f->width = fb->width;
	f->height = fb->height;
	f->text = fb->type == BOOT_FB_EGA_TEXT;
	if (f->text) {
		f->bytes_pp = 2;
		f->cols = MIN(fb->width, FBCON_MAX_COLS);
		f->rows = MIN(fb->height, FBCON_MAX_ROWS);
	} else {
		f->bytes_pp = (fb->bpp + 7) / 8;
		f->fg = pixel(fb, FG_RGB);
		f->bg = pixel(fb, BG_RGB);
		f->cols = MIN(fb->width / FONT_W, FBCON_MAX_COLS);
		f->rows = MIN(fb->height / FONT_H, FBCON_MAX_ROWS);
		/* Pixel x of a row byte is bit 7 - x; the framebuffer is
		 * little-endian, the left pixel of a pair the low half. */
		for (int b = 0; b < 256; b++) {
			for (int i = 0; i < FBCON_EXPAND_WORDS; i++) {
				uint64_t l = b & (0x80 >> 2 * i) ? f->fg : f->bg;
				uint64_t r = b & (0x40 >> 2 * i) ? f->fg : f->bg;

				f->expand[b][i] = l | r << 32;
			}
		}
	}
	/* 64-bit stores only where they are aligned (RISC-V traps on a
	 * misaligned one). */
	f->wide = f->bytes_pp == 4 && !(fb->addr % 8) && !(fb->pitch % 8);
	f->jump = MAX(1, f->rows / 4);
	memset(f->cells, ' ', sizeof(f->cells));
	f->cx = f->cy = 0;
	f->con.name = "fbcon";
	f->con.putc = fbcon_putc;
	f->con.getc = fbcon_getc;
	f->con.priv = f;
	f->online = false;
	return 0;
}

int fbcon_init(struct fbcon *f, const struct boot_fb *fb, bool online)
{
	const char *why = fbcon_unsupported(fb);

	if (why) {
		printk("console: framebuffer %ux%ux%u type %d at 0x%llx: %s; "
		       "no screen console\n", fb->width, fb->height, fb->bpp,
		       fb->type, (unsigned long long)fb->addr, why);
		return -EINVAL;
	}
	fbcon_setup(f, fb);
	if (online)
		fbcon_online(f);
	console_register(&f->con);
	if (f->text)
		printk("console: EGA text %ux%u at 0x%llx (fbcon)\n", fb->width,
		       fb->height, (unsigned long long)fb->addr);
	else
		printk("console: framebuffer %ux%ux%u at 0x%llx, %d x %d "
		       "characters (fbcon)\n", fb->width, fb->height, fb->bpp,
		       (unsigned long long)fb->addr, f->cols, f->rows);
	return 0;
}
