/* SPDX-License-Identifier: Apache-2.0 */
/* Deterministic test randomness (splitmix64) for the white-box core tests. */
#ifndef CHACHA_TESTRNG_H
#define CHACHA_TESTRNG_H

#include <stddef.h>
#include <stdint.h>

/* each test seeds it from its own environment variable when set */
static uint64_t rng_state = 0x243f6a8885a308d3u;

static inline uint64_t rng(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static inline void rng_bytes(uint8_t *p, size_t n)
{
    while (n--)
        *p++ = (uint8_t)rng();
}

#endif
