/*
 * bitops.h - find-first-set and friends for 64-bit masks.
 *
 * The kernel does not link libgcc, and on RISC-V without the Zbb
 * extension gcc turns __builtin_ctzll into a libgcc call (__ctzdi2).
 * These are small, branch-light and the same on every arch (ctz64 uses
 * the instruction where there is one).
 */
#ifndef LIB_BITOPS_H
#define LIB_BITOPS_H
#include <stdint.h>

/* Index of the lowest set bit of @x (0..63); @x must not be 0.  One
 * instruction where the ISA has it (x86_64's bsf/tzcnt, RISC-V Zbb's
 * ctz), which gcc emits inline without libgcc (BITOPS_GENERIC: the
 * table everywhere, for tests/host/bitops_test.c). */
static inline int ctz64(uint64_t x)
{
#if (defined(__x86_64__) || defined(__riscv_zbb)) && !defined(BITOPS_GENERIC)
	return __builtin_ctzll(x);
#else
	static const uint8_t debruijn[64] = {
		0, 1, 2, 53, 3, 7, 54, 27, 4, 38, 41, 8, 34, 55, 48, 28,
		62, 5, 39, 46, 44, 42, 22, 9, 24, 35, 59, 56, 49, 18, 29, 11,
		63, 52, 6, 26, 37, 40, 33, 47, 61, 45, 43, 21, 23, 58, 17, 10,
		51, 25, 36, 32, 60, 20, 57, 16, 50, 31, 19, 15, 30, 14, 13, 12,
	};

	return debruijn[((x & -x) * 0x022fdd63cc95386dULL) >> 58];
#endif
}

/* Index of the highest set bit of @x (0..63); @x must not be 0. */
static inline int fls64_index(uint64_t x)
{
	int n = 0;

	if (x >> 32) { n += 32; x >>= 32; }
	if (x >> 16) { n += 16; x >>= 16; }
	if (x >> 8) { n += 8; x >>= 8; }
	if (x >> 4) { n += 4; x >>= 4; }
	if (x >> 2) { n += 2; x >>= 2; }
	if (x >> 1) { n += 1; }
	return n;
}

/* Number of set bits. */
static inline int popcount64(uint64_t x)
{
	int n = 0;

	for (; x; x &= x - 1)
		n++;
	return n;
}
#endif
