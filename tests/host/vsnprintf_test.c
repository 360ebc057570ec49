/*
 * vsnprintf_test.c - host-side unit test of lib/vsnprintf.c, the kernel's
 * one formatter (printk, snprintf): every conversion and flag it supports
 * against the host C library's snprintf, plus truncation.  The kernel's
 * functions are built renamed (k_snprintf, see tests/host/Makefile), so
 * both live in one program.  Exits non-zero on the first mismatch.
 */
#include <stdio.h>
#include <string.h>

int k_snprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int failures;

static void same(const char *what, const char *got, const char *want)
{
	if (strcmp(got, want) != 0) {
		fprintf(stderr, "vsnprintf: %s: got '%s', want '%s'\n", what,
			got, want);
		failures++;
	}
}

#define CHECK(...) do {							\
		char g[128], w[128];					\
		k_snprintf(g, sizeof(g), __VA_ARGS__);			\
		snprintf(w, sizeof(w), __VA_ARGS__);			\
		same(#__VA_ARGS__, g, w);				\
	} while (0)

int main(void)
{
	char buf[8];
	int n;

	CHECK("%d %i %u", -42, 7, 4000000000u);
	CHECK("%ld %lld %lu %llu", -1L, -123456789012LL, 5UL, 18446744073709551615ULL);
	CHECK("%x %X %lx %llx", 0xbeefu, 0xbeefu, 0x1234abcdUL, 0xfedcba9876543210ULL);
	CHECK("%#x %#llx %#X %#x", 0x2au, 0xdeadULL, 0xabu, 0u);
	CHECK("[%5d] [%-5d] [%05d] [%05d]", 42, 42, 42, -42);
	CHECK("[%8x] [%08x] [%-8x] [%#10x]", 0x1fu, 0x1fu, 0x1fu, 0x1fu);
	CHECK("[%s] [%10s] [%-10s] [%.3s] [%*d]", "abc", "abc", "abc", "abcdef", 6, 9);
	CHECK("%c%c %% %zu", 'o', 'k', (size_t)99);
	/* Truncation: NUL-terminated, returns the full length. */
	n = k_snprintf(buf, sizeof(buf), "%s", "0123456789");
	same("truncated text", buf, "0123456");
	if (n != 10) {
		fprintf(stderr, "vsnprintf: truncated length %d, want 10\n", n);
		failures++;
	}
	if (failures)
		return 1;
	printf("vsnprintf_test: all formats match the host C library\n");
	return 0;
}
