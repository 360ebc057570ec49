/*
 * fbcon.h - a text console drawn on the screen the loader set up
 * (struct boot_fb: a linear RGB framebuffer of 15, 16, 24 or 32 bits a
 * pixel, or the VGA text buffer), with the built-in font (font.h).
 */
#ifndef FBCON_H
#define FBCON_H
#include <stdbool.h>
#include <stdint.h>
#include "boot.h"
#include "console.h"

/* The most cells kept: 2048x1536 pixels in 8x16 cells.  A larger
 * screen shows its top left corner. */
#define FBCON_MAX_COLS 256
#define FBCON_MAX_ROWS 96

#define FBCON_EXPAND_WORDS 4

struct fbcon {
	struct console con;
	uint8_t *base;			/* the framebuffer, mapped 1:1 */
	uint32_t pitch, width, height;	/* bytes a line; pixels */
	unsigned bytes_pp;		/* 2, 3 or 4 (text: 2 a cell) */
	bool text;			/* VGA text buffer, not pixels */
	bool wide;			/* 32 bpp, lines 8-byte aligned */
	bool online;			/* mapped: draw (else only remember) */
	uint32_t fg, bg;		/* pixel values */
	int cols, rows;			/* cells */
	int cx, cy;			/* the cursor */
	int jump;			/* lines a scroll moves the text */
	/* 32 bpp: the 8 pixels of each glyph row byte, as 4 stores of
	 * 2 pixels (the font's rows are drawn without a branch). */
	uint64_t expand[256][FBCON_EXPAND_WORDS];
	/* What each cell shows: the screen is redrawn from here, never
	 * read back (a framebuffer read is slow on real hardware). */
	uint8_t cells[FBCON_MAX_ROWS][FBCON_MAX_COLS];
};

/*
 * Set up @f for the screen @fb and register it as a console (after the
 * ones registered before: the serial port).  @online: the framebuffer
 * is mapped now (else the text is kept in f->cells until
 * fbcon_online()).  Prints one line saying what it found ("console:
 * framebuffer 1024x768x32 at 0x... (fbcon)"), on the screen too, or why
 * it cannot draw there; returns 0, or -EINVAL for a screen it does not
 * support (nothing registered).  Early boot, one CPU.
 */
int fbcon_init(struct fbcon *f, const struct boot_fb *fb, bool online);
/* Why fbcon cannot draw on @fb ("indexed colour ... not supported"),
 * or NULL if it can. */
const char *fbcon_unsupported(const struct boot_fb *fb);
/* fbcon_init() without registering or printing (tests/fbcon.c draws
 * into a buffer of its own): -EINVAL for an unsupported @fb; offline
 * until fbcon_online(). */
int fbcon_setup(struct fbcon *f, const struct boot_fb *fb);
/* The framebuffer is mapped from now on: draw what f->cells hold.
 * Early boot, one CPU, before other CPUs can print. */
void fbcon_online(struct fbcon *f);
#endif
