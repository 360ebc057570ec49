/*
 * font.h - the screen console's built-in font (font5x7.c): 8x16 cells
 * for printable ASCII, a box for anything else.
 */
#ifndef KESTREL_FONT_H
#define KESTREL_FONT_H
#include <stdint.h>

#define FONT_W 8
#define FONT_H 16
#define FONT_FIRST 0x20
#define FONT_LAST 0x7e

/* Build the cells, before the first font_cell(); again is a no-op.
 * Early boot (fbcon_init()). */
void font_init(void);
/* The FONT_H rows of @ch's cell, bit 7 the leftmost pixel; the box for
 * a character outside FONT_FIRST..FONT_LAST.  Any context. */
const uint8_t *font_cell(unsigned char ch);
#endif
