/* random.h - small deterministic PRNG (xorshift64*) for tests. */
#ifndef LIB_RANDOM_H
#define LIB_RANDOM_H
#include <stdint.h>
static inline uint64_t rand_next(uint64_t *state)
{
	uint64_t x = *state ? *state : 0x9e3779b97f4a7c15ULL;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dULL;
}
#endif
