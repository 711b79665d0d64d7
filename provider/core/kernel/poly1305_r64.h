/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Scalar Poly1305 in radix 2^64 (two 64-bit words plus a few bits), with a
 * 128-bit multiply: the portable 64-bit backend, and the short-input path of
 * the SIMD backends. Constant time: no branch or index depends on key or
 * data; the final reduction mod 2^130-5 selects with masks.
 */
#ifndef CHACHA_KERNEL_POLY1305_R64_H
#define CHACHA_KERNEL_POLY1305_R64_H

#include <stdint.h>
#include <string.h>
#include "kernel.h"
#include "util.h"

typedef unsigned __int128 poly1305_u128;

/* h = h[0] + 2^64 h[1] + 2^128 h[2], where h[2] holds only a few bits */
typedef struct poly1305_r64 {
    uint64_t r[2];
    uint64_t s[2];
    uint64_t h[3];
} poly1305_r64;

/*
 * Kernels whose state begins with a poly1305_r64 (portable, avx2; each
 * asserts it) can be advanced in place by a scalar fused kernel: this is the
 * one way to reach it.
 */
static inline poly1305_r64 *poly1305_r64_of(poly1305_state *st)
{
    return (poly1305_r64 *)(void *)st->opaque;
}

static inline void poly1305_r64_init(poly1305_r64 *p, const uint8_t key[32])
{
    /* clamp r (RFC 8439 2.5) */
    p->r[0] = chacha_load_le64(key) & 0x0ffffffc0fffffff;
    p->r[1] = chacha_load_le64(key + 8) & 0x0ffffffc0ffffffc;
    p->s[0] = chacha_load_le64(key + 16);
    p->s[1] = chacha_load_le64(key + 24);
    p->h[0] = p->h[1] = p->h[2] = 0;
}

/*
 * h = h * r mod 2^130-5, partially reduced (h[2] <= 4; h[2] <= 6 on entry).
 * r = r0 + 2^64 r1 with r1 a multiple of 4, so 2^128 r1 = (5/4) r1 mod p
 * exactly. Word carries are written as (x += y; c = x < y): GCC 12 turns
 * u128 + u64 into stack traffic and runs twice as slow.
 */
static inline void poly1305_r64_mul(uint64_t h[3], uint64_t r0, uint64_t r1)
{
    const uint64_t s1 = r1 + (r1 >> 2);
    poly1305_u128 a = (poly1305_u128)h[0] * r0 + (poly1305_u128)h[1] * s1;
    poly1305_u128 b = (poly1305_u128)h[0] * r1 + (poly1305_u128)h[1] * r0;
    uint64_t a0 = (uint64_t)a, a1 = (uint64_t)(a >> 64);
    uint64_t b0 = (uint64_t)b, b1 = (uint64_t)(b >> 64), t, c;

    /* h * r = a + 2^64 b + 2^64 h2 s1 + 2^128 h2 r0 (h2 s1 < 2^64) */
    b0 += a1;
    b1 += b0 < a1;
    t = h[2] * s1;
    b0 += t;
    b1 += b0 < t;
    b1 += h[2] * r0;

    /* fold bits from 2^130 up: (b1 >> 2) * 2^130 = (b1 >> 2) * 5 */
    c = (b1 >> 2) + (b1 & ~(uint64_t)3);
    h[2] = b1 & 3;
    h[0] = a0 + c;
    c = h[0] < c;
    h[1] = b0 + c;
    c = h[1] < c;
    h[2] += c;
}

/* Absorb nb 16-byte blocks; padbit is the 2^128 bit of each block. */
static inline void poly1305_r64_blocks(poly1305_r64 *p, const uint8_t *in,
                                       size_t nb, uint64_t padbit)
{
    uint64_t h[3] = { p->h[0], p->h[1], p->h[2] };
    const uint64_t r0 = p->r[0], r1 = p->r[1];
    uint64_t t, c;

    /*
     * Keep the accumulator words apart: gcc would load h[0..1] as one
     * 16-byte vector, which the two 8-byte stores a vector kernel leaves
     * cannot forward to (Zen 4: ~50 cycles lost on a block after its run).
     */
    __asm__("" : "+r"(h[0]), "+r"(h[1]));

    while (nb--) {
        /* h += m (h2 <= 4 before, so at most 6 after) */
        t = chacha_load_le64(in);
        h[0] += t;
        c = h[0] < t;
        t = chacha_load_le64(in + 8);
        h[1] += c;
        c = h[1] < c;
        h[1] += t;
        c += h[1] < t;
        h[2] += c + padbit;
        poly1305_r64_mul(h, r0, r1);
        in += 16;
    }
    p->h[0] = h[0];
    p->h[1] = h[1];
    p->h[2] = h[2];
}

/* tag = ((h mod 2^130-5) + s) mod 2^128, as two 64-bit words */
static inline void poly1305_r64_tag(const poly1305_r64 *p, uint64_t tag[2])
{
    uint64_t h0 = p->h[0], h1 = p->h[1], h2 = p->h[2], g0, g1, g2, mask;
    poly1305_u128 t;

    /* fold the bits above 2^130 once more: now h < 2^130 + 5 */
    t = (poly1305_u128)h0 + ((h2 >> 2) + (h2 & ~(uint64_t)3));
    h2 &= 3;
    h0 = (uint64_t)t;
    t = (poly1305_u128)h1 + (uint64_t)(t >> 64);
    h1 = (uint64_t)t;
    h2 += (uint64_t)(t >> 64);

    /* g = h + 5; if g reaches 2^130 then h >= p and h - p = g - 2^130 */
    t = (poly1305_u128)h0 + 5;
    g0 = (uint64_t)t;
    t = (poly1305_u128)h1 + (uint64_t)(t >> 64);
    g1 = (uint64_t)t;
    g2 = h2 + (uint64_t)(t >> 64);
    mask = (uint64_t)0 - (g2 >> 2);  /* all ones if h >= p */
    h0 = (h0 & ~mask) | (g0 & mask);
    h1 = (h1 & ~mask) | (g1 & mask);

    t = (poly1305_u128)h0 + p->s[0];
    h0 = (uint64_t)t;
    h1 += p->s[1] + (uint64_t)(t >> 64);
    tag[0] = h0;
    tag[1] = h1;
}

static inline void poly1305_r64_emit(const poly1305_r64 *p, uint8_t mac[16])
{
    uint64_t tag[2];

    poly1305_r64_tag(p, tag);
    chacha_store_le64(mac, tag[0]);
    chacha_store_le64(mac + 8, tag[1]);
}

#endif
