/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Portable Poly1305 kernel. With a 128-bit integer type the accumulator is
 * in radix 2^64 (poly1305_r64.h; 4 wide multiplies per block, ~13% faster
 * than 44-bit limbs on Zen 3); otherwise, or when built with
 * -DPOLY1305_FORCE_32BIT, five 26-bit limbs with 64-bit products.
 * Everything is constant time: no branch or index depends on key or data, and
 * the final reduction mod 2^130-5 selects with masks.
 */
#include <stddef.h>
#include "kernel.h"
#include "util.h"

#if defined(__SIZEOF_INT128__) && !defined(POLY1305_FORCE_32BIT)

#include "poly1305_r64.h"

/* the whole state is a poly1305_r64 (see poly1305_r64_of) */
_Static_assert(sizeof(poly1305_r64) <= POLY1305_STATE_SIZE,
               "portable Poly1305 state does not fit");

static void portable_init(poly1305_state *st, const uint8_t key[32])
{
    poly1305_r64_init(poly1305_r64_of(st), key);
}

static void portable_blocks(poly1305_state *st, const uint8_t *in, size_t len,
                            uint32_t padbit)
{
    poly1305_r64_blocks(poly1305_r64_of(st), in, len / 16, padbit);
}

static void portable_emit(poly1305_state *st, uint8_t mac[16])
{
    poly1305_r64_emit(poly1305_r64_of(st), mac);
    chacha_wipe(st->opaque, sizeof(poly1305_r64));
}

#else /* 32-bit limbs */

#define M26 0x3ffffffu

typedef struct {
    uint32_t r[5];
    uint32_t s[4];
    uint32_t h[5];
} poly1305_p26;

_Static_assert(sizeof(poly1305_p26) <= POLY1305_STATE_SIZE,
               "portable Poly1305 state does not fit");

static void portable_init(poly1305_state *st, const uint8_t key[32])
{
    poly1305_p26 *p = (poly1305_p26 *)st->opaque;
    int i;

    /* clamp r while splitting it into five 26-bit limbs */
    p->r[0] = chacha_load_le32(key) & 0x3ffffff;
    p->r[1] = (chacha_load_le32(key + 3) >> 2) & 0x3ffff03;
    p->r[2] = (chacha_load_le32(key + 6) >> 4) & 0x3ffc0ff;
    p->r[3] = (chacha_load_le32(key + 9) >> 6) & 0x3f03fff;
    p->r[4] = (chacha_load_le32(key + 12) >> 8) & 0x00fffff;
    for (i = 0; i < 4; i++)
        p->s[i] = chacha_load_le32(key + 16 + 4 * i);
    for (i = 0; i < 5; i++)
        p->h[i] = 0;
}

static void portable_blocks(poly1305_state *st, const uint8_t *in, size_t len,
                            uint32_t padbit)
{
    poly1305_p26 *p = (poly1305_p26 *)st->opaque;
    const uint32_t hibit = padbit << 24;           /* 2^128 in limb 4 */
    const uint32_t r0 = p->r[0], r1 = p->r[1], r2 = p->r[2], r3 = p->r[3],
                   r4 = p->r[4];
    /* limb products at 2^130 and above fold back times 5 */
    const uint32_t s1 = r1 * 5, s2 = r2 * 5, s3 = r3 * 5, s4 = r4 * 5;
    uint32_t h0 = p->h[0], h1 = p->h[1], h2 = p->h[2], h3 = p->h[3],
             h4 = p->h[4], c;
    uint64_t d0, d1, d2, d3, d4;

    while (len >= 16) {
        /* h += m */
        h0 += chacha_load_le32(in) & M26;
        h1 += (chacha_load_le32(in + 3) >> 2) & M26;
        h2 += (chacha_load_le32(in + 6) >> 4) & M26;
        h3 += (chacha_load_le32(in + 9) >> 6) & M26;
        h4 += (chacha_load_le32(in + 12) >> 8) | hibit;

        /* h *= r */
        d0 = (uint64_t)h0 * r0 + (uint64_t)h1 * s4 + (uint64_t)h2 * s3 +
             (uint64_t)h3 * s2 + (uint64_t)h4 * s1;
        d1 = (uint64_t)h0 * r1 + (uint64_t)h1 * r0 + (uint64_t)h2 * s4 +
             (uint64_t)h3 * s3 + (uint64_t)h4 * s2;
        d2 = (uint64_t)h0 * r2 + (uint64_t)h1 * r1 + (uint64_t)h2 * r0 +
             (uint64_t)h3 * s4 + (uint64_t)h4 * s3;
        d3 = (uint64_t)h0 * r3 + (uint64_t)h1 * r2 + (uint64_t)h2 * r1 +
             (uint64_t)h3 * r0 + (uint64_t)h4 * s4;
        d4 = (uint64_t)h0 * r4 + (uint64_t)h1 * r3 + (uint64_t)h2 * r2 +
             (uint64_t)h3 * r1 + (uint64_t)h4 * r0;

        /* partial reduction */
        c = (uint32_t)(d0 >> 26); h0 = (uint32_t)d0 & M26;
        d1 += c; c = (uint32_t)(d1 >> 26); h1 = (uint32_t)d1 & M26;
        d2 += c; c = (uint32_t)(d2 >> 26); h2 = (uint32_t)d2 & M26;
        d3 += c; c = (uint32_t)(d3 >> 26); h3 = (uint32_t)d3 & M26;
        d4 += c; c = (uint32_t)(d4 >> 26); h4 = (uint32_t)d4 & M26;
        h0 += c * 5; c = h0 >> 26; h0 &= M26;
        h1 += c;

        in += 16;
        len -= 16;
    }
    p->h[0] = h0;
    p->h[1] = h1;
    p->h[2] = h2;
    p->h[3] = h3;
    p->h[4] = h4;
}

static void portable_emit(poly1305_state *st, uint8_t mac[16])
{
    poly1305_p26 *p = (poly1305_p26 *)st->opaque;
    uint32_t h0 = p->h[0], h1 = p->h[1], h2 = p->h[2], h3 = p->h[3],
             h4 = p->h[4];
    uint32_t g0, g1, g2, g3, g4, c, mask;
    uint64_t f;

    /* full carry */
    c = h1 >> 26; h1 &= M26; h2 += c;
    c = h2 >> 26; h2 &= M26; h3 += c;
    c = h3 >> 26; h3 &= M26; h4 += c;
    c = h4 >> 26; h4 &= M26; h0 += c * 5;
    c = h0 >> 26; h0 &= M26; h1 += c;
    c = h1 >> 26; h1 &= M26; h2 += c;

    /* g = h + 5 - 2^130; keep g when it did not borrow, i.e. h >= p */
    g0 = h0 + 5; c = g0 >> 26; g0 &= M26;
    g1 = h1 + c; c = g1 >> 26; g1 &= M26;
    g2 = h2 + c; c = g2 >> 26; g2 &= M26;
    g3 = h3 + c; c = g3 >> 26; g3 &= M26;
    g4 = h4 + c - (1u << 26);
    mask = (g4 >> 31) - 1;           /* all ones if no borrow */
    h0 = (h0 & ~mask) | (g0 & mask);
    h1 = (h1 & ~mask) | (g1 & mask);
    h2 = (h2 & ~mask) | (g2 & mask);
    h3 = (h3 & ~mask) | (g3 & mask);
    h4 = (h4 & ~mask) | (g4 & mask);

    /* repack to 4 x 32 bits and add s mod 2^128 */
    h0 = h0 | (h1 << 26);
    h1 = (h1 >> 6) | (h2 << 20);
    h2 = (h2 >> 12) | (h3 << 14);
    h3 = (h3 >> 18) | (h4 << 8);
    f = (uint64_t)h0 + p->s[0];             chacha_store_le32(mac, (uint32_t)f);
    f = (uint64_t)h1 + p->s[1] + (f >> 32); chacha_store_le32(mac + 4, (uint32_t)f);
    f = (uint64_t)h2 + p->s[2] + (f >> 32); chacha_store_le32(mac + 8, (uint32_t)f);
    f = (uint64_t)h3 + p->s[3] + (f >> 32); chacha_store_le32(mac + 12, (uint32_t)f);
    chacha_wipe(p, sizeof(*p));
}

#endif

const poly1305_kernel poly1305_portable_kernel = {
    .name = "portable",
    .caps = 0,
    .init = portable_init,
    .blocks = portable_blocks,
    .emit = portable_emit,
};
