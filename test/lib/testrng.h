/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Deterministic test randomness: splitmix64 with explicit state, so that
 * each thread or stream keeps its own (rng_next, rng_fill); rng() and
 * rng_bytes() draw from one shared state, rng_state, for single-threaded
 * tests (each seeds it from its own environment variable when set).
 */
#ifndef CHACHA_TESTRNG_H
#define CHACHA_TESTRNG_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static inline void rng_fill(uint64_t *s, unsigned char *p, size_t n)
{
    while (n--)
        *p++ = (unsigned char)rng_next(s);
}

static uint64_t rng_state = 0x243f6a8885a308d3u;

static inline uint64_t rng(void)
{
    return rng_next(&rng_state);
}

static inline void rng_bytes(uint8_t *p, size_t n)
{
    rng_fill(&rng_state, p, n);
}

#endif
