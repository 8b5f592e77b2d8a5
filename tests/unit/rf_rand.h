/* rf_rand.h — the kernel tests' reproducible data: an xorshift64 generator, one state per test
 * file, seeded by RF_RAND_SEED (defined before this is included). rnd() gives 32 bits, rndf() a
 * value in
 * [-1, 1). */
#ifndef RF_TEST_RAND_H
#define RF_TEST_RAND_H

#include <stdint.h>

static uint64_t rng = RF_RAND_SEED;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}
static float rndf(void)
{
    return (float)((double)(rnd() & 0xffffff) / 8388608.0 - 1.0);
}

#endif
