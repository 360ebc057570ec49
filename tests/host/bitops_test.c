/*
 * bitops_test.c - host-side unit test of lib/include/bitops.h (built with
 * the host gcc, see tests/host/Makefile), twice: as the kernel uses it on
 * x86_64 (ctz64 is the bsf/tzcnt instruction) and with BITOPS_GENERIC
 * (its de Bruijn table, what riscv64 without Zbb runs).  ctz64,
 * fls64_index and popcount64 against bit-by-bit loops: every single bit,
 * every pair of bits, and random masks.  Exits non-zero on the first
 * difference.
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include "bitops.h"

#ifdef BITOPS_GENERIC
#define VARIANT "generic"
#else
#define VARIANT "builtin"
#endif

static int ref_ctz(uint64_t x)
{
	int n = 0;

	while (!(x & 1)) {
		x >>= 1;
		n++;
	}
	return n;
}

static int ref_fls(uint64_t x)
{
	int n = 63;

	while (!(x >> 63)) {
		x <<= 1;
		n--;
	}
	return n;
}

static int ref_popcount(uint64_t x)
{
	int n = 0;

	for (int i = 0; i < 64; i++)
		n += (x >> i) & 1;
	return n;
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int check(uint64_t x)
{
	if (ctz64(x) != ref_ctz(x) || fls64_index(x) != ref_fls(x) ||
	    popcount64(x) != ref_popcount(x)) {
		fprintf(stderr, "bitops (%s): %#llx: ctz64 %d (want %d), "
			"fls64_index %d (want %d), popcount64 %d (want %d)\n",
			VARIANT, (unsigned long long)x, ctz64(x), ref_ctz(x),
			fls64_index(x), ref_fls(x), popcount64(x),
			ref_popcount(x));
		return 1;
	}
	return 0;
}

int main(void)
{
	int checked = 0;

	for (int i = 0; i < 64; i++)
		for (int j = i; j < 64; j++, checked++)
			if (check((1ULL << i) | (1ULL << j)))
				return 1;
	for (int k = 0; k < 200000; k++, checked++) {
		uint64_t x = next_random() >> (k % 64);

		if (x && check(x))
			return 1;
	}
	printf("bitops_test (%s): ok, %d masks\n", VARIANT, checked);
	return 0;
}
