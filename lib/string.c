/*
 * string.c - freestanding memory and string functions.
 * gcc may emit calls to memset/memcpy/memmove/memcmp by itself, so these
 * must exist and must not be written in terms of themselves.
 */
#include <stdint.h>
#include "string.h"
#include "errno.h"

/* Word stores once aligned: tasks, contexts and pages are cleared with
 * it.  The attribute keeps gcc from turning the loops into a call to
 * memset itself. */
__attribute__((optimize("no-tree-loop-distribute-patterns")))
void *memset(void *d, int c, size_t n)
{
	unsigned char *p = d;

	if (n >= 16) {
		uint64_t w = (unsigned char)c * 0x0101010101010101ULL;

		for (; (uintptr_t)p & 7; n--)
			*p++ = (unsigned char)c;
		for (; n >= 8; n -= 8, p += 8)
			*(uint64_t *)p = w;
	}
	while (n--)
		*p++ = (unsigned char)c;
	return d;
}

void *memcpy(void *d, const void *s, size_t n)
{
	unsigned char *dp = d;
	const unsigned char *sp = s;

	/* Word copies when both are aligned: stacks and pages are. */
	if ((((uintptr_t)dp | (uintptr_t)sp) & 7) == 0) {
		for (; n >= 8; n -= 8, dp += 8, sp += 8)
			*(uint64_t *)dp = *(const uint64_t *)sp;
	}
	while (n--)
		*dp++ = *sp++;
	return d;
}

void *memmove(void *d, const void *s, size_t n)
{
	unsigned char *dp = d;
	const unsigned char *sp = s;

	if (dp <= sp || dp >= sp + n)
		return memcpy(d, s, n);
	while (n--)
		dp[n] = sp[n];
	return d;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		if (!*a)
			return 0;
	}
	return 0;
}

char *strstr(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay; hay++)
		if (strncmp(hay, needle, n) == 0)
			return (char *)hay;
	return n ? NULL : (char *)hay;
}

char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}

size_t strlcpy(char *d, const char *s, size_t n)
{
	size_t len = strlen(s);

	if (n) {
		size_t k = len < n - 1 ? len : n - 1;

		memcpy(d, s, k);
		d[k] = '\0';
	}
	return len;
}

int parse_u64(const char *s, unsigned long long *out)
{
	unsigned long long v = 0;
	unsigned base = 10;

	if (!s || !*s)
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		if (!*s)
			return -EINVAL;
	}
	for (; *s; s++) {
		unsigned d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			return -EINVAL;
		if (v > (~0ULL - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	*out = v;
	return 0;
}
