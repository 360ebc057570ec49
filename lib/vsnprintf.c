/*
 * vsnprintf.c - the one formatter behind printk and snprintf.
 * Supports %d %i %u %x %X %p %s %c %% with flags '-' '0' '#' (0x before
 * a non-zero %x), a width, a precision (for %s), and the length
 * modifiers l, ll, z.
 */
#include <stdbool.h>
#include <stdint.h>
#include "printf.h"
#include "string.h"

struct out {
	char *buf;
	size_t size, len;	/* len counts every byte, even those cut */
};

static void put(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void put_padded(struct out *o, const char *s, size_t n, int width,
		       bool left, char pad)
{
	int fill = width > (int)n ? width - (int)n : 0;

	if (!left)
		while (fill-- > 0)
			put(o, pad);
	while (n--)
		put(o, *s++);
	if (left)
		while (fill-- > 0)
			put(o, ' ');
}

/* @prefix: "-", "0x", "0X" or "": before the zeros of a '0' pad, after
 * the spaces of another. */
static void put_num(struct out *o, unsigned long long v, unsigned base,
		    const char *prefix, bool upper, int width, bool left,
		    char pad)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	int plen = (int)strlen(prefix);
	char tmp[26];
	int i = sizeof(tmp);

	do {
		tmp[--i] = digits[v % base];
		v /= base;
	} while (v);
	if (pad == '0') {
		while (*prefix)
			put(o, *prefix++);
		width -= plen;
	} else {
		while (plen > 0)
			tmp[--i] = prefix[--plen];
	}
	put_padded(o, tmp + i, sizeof(tmp) - i, width, left, pad);
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = { buf, size, 0 };

	for (; *fmt; fmt++) {
		bool left = false, alt = false;
		char pad = ' ';
		int width = 0, prec = -1, lng = 0;

		if (*fmt != '%') {
			put(&o, *fmt);
			continue;
		}
		fmt++;
		for (;; fmt++) {
			if (*fmt == '-')
				left = true;
			else if (*fmt == '#')
				alt = true;
			else if (*fmt == '0')
				pad = '0';
			else
				break;
		}
		if (*fmt == '*') {
			width = va_arg(ap, int);
			fmt++;
		}
		while (*fmt >= '0' && *fmt <= '9')
			width = width * 10 + (*fmt++ - '0');
		if (*fmt == '.') {
			prec = 0;
			fmt++;
			while (*fmt >= '0' && *fmt <= '9')
				prec = prec * 10 + (*fmt++ - '0');
		}
		while (*fmt == 'l' || *fmt == 'z') {
			lng++;
			fmt++;
		}
		if (left)
			pad = ' ';

		switch (*fmt) {
		case 'd':
		case 'i': {
			long long v = lng ? va_arg(ap, long long) : va_arg(ap, int);
			bool neg = v < 0;

			put_num(&o, neg ? -(unsigned long long)v : (unsigned long long)v,
				10, neg ? "-" : "", false, width, left, pad);
			break;
		}
		case 'u':
		case 'x':
		case 'X': {
			unsigned long long v = lng ? va_arg(ap, unsigned long long)
						   : va_arg(ap, unsigned int);

			const char *prefix = !alt || !v || *fmt == 'u' ? "" :
					     *fmt == 'x' ? "0x" : "0X";

			put_num(&o, v, *fmt == 'u' ? 10 : 16, prefix, *fmt == 'X',
				width, left, pad);
			break;
		}
		case 'p':
			put(&o, '0');
			put(&o, 'x');
			put_num(&o, (uintptr_t)va_arg(ap, void *), 16, "", false,
				width ? width : 16, left, '0');
			break;
		case 's': {
			const char *s = va_arg(ap, const char *);

			if (!s)
				s = "(null)";
			put_padded(&o, s, prec >= 0 ? strnlen(s, prec) : strlen(s),
				   width, left, ' ');
			break;
		}
		case 'c': {
			char c = (char)va_arg(ap, int);

			put_padded(&o, &c, 1, width, left, ' ');
			break;
		}
		case '%':
			put(&o, '%');
			break;
		case '\0':
			fmt--;	/* lone '%' at the end */
			break;
		default:	/* unknown: print it as is, so the bug shows */
			put(&o, '%');
			put(&o, *fmt);
			break;
		}
	}
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return (int)o.len;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
