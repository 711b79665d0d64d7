/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Poly1305 with AVX-512 IFMA (vpmadd52luq/huq), radix 2^44: the state layout
 * and the vector steps, shared by poly1305_ifma.c and the fused AEAD kernel.
 *
 * A value is three limbs of 44, 44 and 42 bits (h = l0 + 2^44 l1 + 2^88 l2),
 * one message block per 64-bit lane, eight lanes per zmm. A product of two
 * values is nine 52x52-bit multiplies, each giving its low and high 52 bits
 * (madd52lo/hi), folded with 2^130 = 5 mod p: the limb products of weight
 * 2^132 and 2^176 use 20 y1 and 20 y2 (2^132 = 4 * 2^130 = 20). Lanes hold
 * the blocks of 8-block groups (two accumulators A, B for the blocks 0-7 and
 * 8-15 of 16-block groups on long runs) and step by r^8 (r^16); at the end
 * lane p is multiplied by the power of r that its last block needs, and the
 * lanes are summed: the serial Horner evaluation, reordered. A run whose
 * length is not a multiple of the group takes its first group short, front
 * padded with zero lanes (a zero block with no pad bit adds nothing to a
 * fresh accumulator), so every lane count runs on the same loop.
 * Constant time: no branch or index depends on key or data.
 */
#ifndef POLY1305_IFMA_H
#define POLY1305_IFMA_H

#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include "avx512_isa.h"
#include "kernel.h"
#include "util.h"
#include "poly1305_r64.h"

#define P5_M44 ((uint64_t)0xfffffffffff)
#define P5_M42 ((uint64_t)0x3ffffffffff)

/*
 * Lane order of an 8-block group: unpacking the two 64-byte halves within
 * 128-bit lanes (cheaper than a full permute) puts block P5_LANE_BLOCK(p)
 * in lane p: 0 4 1 5 2 6 3 7.
 */
#define P5_LANE_BLOCK(p) (((p) & 1) * 4 + ((p) >> 1))

/*
 * The state: the accumulator between calls in radix 2^64 (sc, first, so
 * that the tests and short messages see a poly1305_r64), and, once a long
 * run took the vector path, the powers of r in radix 2^44 by lane:
 * pw[k][p] is limb k (k = 3, 4: 20 times limbs 1, 2) of r^(16 - b) for
 * p < 8, of r^(8 - b) for p >= 8, where b = P5_LANE_BLOCK(p & 7). So
 * pw[k][0..7] are accumulator A's final powers, pw[k][8..15] B's (and a
 * single accumulator's), pw[k][0] is r^16 and pw[k][8] r^8.
 */
typedef struct {
    poly1305_r64 sc;
    uint64_t have_powers;
    uint64_t pw[5][16];
    uint64_t seen;      /* blocks this MAC has absorbed (public) */
} poly1305_ifma_st;

_Static_assert(sizeof(poly1305_ifma_st) <= POLY1305_STATE_SIZE,
               "IFMA Poly1305 state does not fit");
_Static_assert(offsetof(poly1305_ifma_st, sc) == 0, "sc must come first");

/* A value per lane (three limbs) and a power of r per lane (five rows). */
typedef struct { __m512i l0, l1, l2; } p5_v;
typedef struct { __m512i r0, r1, r2, s1, s2; } p5_pow;

#define P5_LOADU(p) _mm512_loadu_si512((const void *)(p))

/* The powers in lanes p = off..off + 7 of the table, or one broadcast. */
CHACHA_INLINE p5_pow p5_pow_lanes(const poly1305_ifma_st *st, int off)
{
    p5_pow y;

    y.r0 = P5_LOADU(&st->pw[0][off]);
    y.r1 = P5_LOADU(&st->pw[1][off]);
    y.r2 = P5_LOADU(&st->pw[2][off]);
    y.s1 = P5_LOADU(&st->pw[3][off]);
    y.s2 = P5_LOADU(&st->pw[4][off]);
    return y;
}

CHACHA_INLINE p5_pow p5_pow_bcast(const poly1305_ifma_st *st, int off)
{
    p5_pow y;

    y.r0 = _mm512_set1_epi64((long long)st->pw[0][off]);
    y.r1 = _mm512_set1_epi64((long long)st->pw[1][off]);
    y.r2 = _mm512_set1_epi64((long long)st->pw[2][off]);
    y.s1 = _mm512_set1_epi64((long long)st->pw[3][off]);
    y.s2 = _mm512_set1_epi64((long long)st->pw[4][off]);
    return y;
}

/* A value used as multiplier: its limbs and 20 times limbs 1 and 2. */
CHACHA_INLINE p5_pow p5_pow_of(p5_v v)
{
    p5_pow y;

    y.r0 = v.l0;
    y.r1 = v.l1;
    y.r2 = v.l2;
    y.s1 = _mm512_add_epi64(_mm512_slli_epi64(v.l1, 4), _mm512_slli_epi64(v.l1, 2));
    y.s2 = _mm512_add_epi64(_mm512_slli_epi64(v.l2, 4), _mm512_slli_epi64(v.l2, 2));
    return y;
}

/*
 * Eight blocks as limbs, from their two 64-byte halves a and b, with the
 * 2^128 bit from hibit (padbit << 40 per lane): bits 0-43, 44-87, 88-127.
 */
CHACHA_INLINE p5_v p5_limbs(__m512i a, __m512i b, __m512i hibit)
{
    const __m512i m44 = _mm512_set1_epi64((long long)P5_M44);
    __m512i lo = _mm512_unpacklo_epi64(a, b), hi = _mm512_unpackhi_epi64(a, b);
    p5_v m;

    m.l0 = _mm512_and_si512(lo, m44);
    /* (lo >> 44 | hi << 20) & m44 */
    m.l1 = _mm512_ternarylogic_epi64(_mm512_srli_epi64(lo, 44),
                                     _mm512_slli_epi64(hi, 20), m44, 0xa8);
    m.l2 = _mm512_or_si512(_mm512_srli_epi64(hi, 24), hibit);
    return m;
}

/* The eight blocks (128 bytes) at in. */
CHACHA_INLINE p5_v p5_load8(const uint8_t *in, __m512i hibit)
{
    return p5_limbs(P5_LOADU(in), P5_LOADU(in + 64), hibit);
}

/*
 * The nine products of x and y into the low and high sums d[0..5] (low
 * and high half of limb 0, 1, 2; x limbs < 2^52, the sums < 2^55). The
 * terms of x2, which the carry finishes first, go first.
 */
CHACHA_INLINE void p5_products(__m512i d[6], p5_v x, p5_pow y)
{
    d[0] = _mm512_madd52lo_epu64(d[0], x.l2, y.s1);
    d[1] = _mm512_madd52hi_epu64(d[1], x.l2, y.s1);
    d[2] = _mm512_madd52lo_epu64(d[2], x.l2, y.s2);
    d[3] = _mm512_madd52hi_epu64(d[3], x.l2, y.s2);
    d[4] = _mm512_madd52lo_epu64(d[4], x.l2, y.r0);
    d[5] = _mm512_madd52hi_epu64(d[5], x.l2, y.r0);
    d[0] = _mm512_madd52lo_epu64(d[0], x.l0, y.r0);
    d[1] = _mm512_madd52hi_epu64(d[1], x.l0, y.r0);
    d[2] = _mm512_madd52lo_epu64(d[2], x.l0, y.r1);
    d[3] = _mm512_madd52hi_epu64(d[3], x.l0, y.r1);
    d[4] = _mm512_madd52lo_epu64(d[4], x.l0, y.r2);
    d[5] = _mm512_madd52hi_epu64(d[5], x.l0, y.r2);
    d[0] = _mm512_madd52lo_epu64(d[0], x.l1, y.s2);
    d[1] = _mm512_madd52hi_epu64(d[1], x.l1, y.s2);
    d[2] = _mm512_madd52lo_epu64(d[2], x.l1, y.r0);
    d[3] = _mm512_madd52hi_epu64(d[3], x.l1, y.r0);
    d[4] = _mm512_madd52lo_epu64(d[4], x.l1, y.r1);
    d[5] = _mm512_madd52hi_epu64(d[5], x.l1, y.r1);
}

/*
 * The sums back to limbs: a high half is worth 2^52 = 2^8 limbs up (2^10
 * past 2^130, folding times 5). Each limb ends below 2^44 (limb 1 below
 * 2^44 + 2^7, limb 2 below 2^42): the next products stay within 52 bits.
 */
CHACHA_INLINE p5_v p5_carry(const __m512i d[6])
{
    const __m512i m44 = _mm512_set1_epi64((long long)P5_M44);
    const __m512i m42 = _mm512_set1_epi64((long long)P5_M42);
    __m512i t, c, d1 = _mm512_add_epi64(d[2], _mm512_slli_epi64(d[1], 8));
    __m512i d2 = _mm512_add_epi64(d[4], _mm512_slli_epi64(d[3], 8));
    p5_v x;

    x.l0 = _mm512_and_si512(d[0], m44);
    d1 = _mm512_add_epi64(d1, _mm512_srli_epi64(d[0], 44));
    x.l1 = _mm512_and_si512(d1, m44);
    d2 = _mm512_add_epi64(d2, _mm512_srli_epi64(d1, 44));
    x.l2 = _mm512_and_si512(d2, m42);
    c = _mm512_add_epi64(_mm512_srli_epi64(d2, 42), _mm512_slli_epi64(d[5], 10));
    x.l0 = _mm512_add_epi64(x.l0, _mm512_add_epi64(c, _mm512_slli_epi64(c, 2)));
    t = _mm512_srli_epi64(x.l0, 44);
    x.l0 = _mm512_and_si512(x.l0, m44);
    x.l1 = _mm512_add_epi64(x.l1, t);
    return x;
}

/* x * y + m, carried (m: message limbs, or zero) */
CHACHA_INLINE p5_v p5_mul_add(p5_v x, p5_pow y, p5_v m)
{
    __m512i d[6];

    d[0] = m.l0;
    d[2] = m.l1;
    d[4] = m.l2;
    d[1] = d[3] = d[5] = _mm512_setzero_si512();
    p5_products(d, x, y);
    return p5_carry(d);
}

/* radix 2^64 (h2 small) to 44-bit limbs */
CHACHA_INLINE void p5_to44(uint64_t l[3], uint64_t h0, uint64_t h1, uint64_t h2)
{
    l[0] = h0 & P5_M44;
    l[1] = ((h0 >> 44) | (h1 << 20)) & P5_M44;
    l[2] = (h1 >> 24) | (h2 << 40);
}

/* Lanes of a and b, as selected by k (b where set). */
CHACHA_INLINE p5_v p5_blend(__mmask8 k, p5_v a, p5_v b)
{
    a.l0 = _mm512_mask_blend_epi64(k, a.l0, b.l0);
    a.l1 = _mm512_mask_blend_epi64(k, a.l1, b.l1);
    a.l2 = _mm512_mask_blend_epi64(k, a.l2, b.l2);
    return a;
}

/* Lane 0 of v in every lane. */
CHACHA_INLINE p5_v p5_lane0(p5_v v)
{
    v.l0 = _mm512_broadcastq_epi64(_mm512_castsi512_si128(v.l0));
    v.l1 = _mm512_broadcastq_epi64(_mm512_castsi512_si128(v.l1));
    v.l2 = _mm512_broadcastq_epi64(_mm512_castsi512_si128(v.l2));
    return v;
}

CHACHA_INLINE void p5_store_pow(poly1305_ifma_st *p, int off, p5_v v)
{
    p5_pow y = p5_pow_of(v);

    _mm512_storeu_si512((void *)&p->pw[0][off], y.r0);
    _mm512_storeu_si512((void *)&p->pw[1][off], y.r1);
    _mm512_storeu_si512((void *)&p->pw[2][off], y.r2);
    _mm512_storeu_si512((void *)&p->pw[3][off], y.s1);
    _mm512_storeu_si512((void *)&p->pw[4][off], y.s2);
}

/*
 * The powers the lane table needs, as first used: want 8 (pw[*][8..15],
 * r^1..r^8, for one accumulator) or 16 (also pw[*][0..7]). r^2 as a scalar
 * (poly1305_r64_mul: 22 cycles on Zen 4, a vector product 25), then vector
 * products, lanes that keep their value multiplied by 1: r^3, r^4; r^5..r^8;
 * r^9..r^16. have_powers says how many are there.
 */
CHACHA_INLINE void p5_powers(poly1305_ifma_st *p, uint64_t want)
{
    const uint64_t r0 = p->sc.r[0], r1 = p->sc.r[1];
    /* registers only (constant indices, no wipe: that would force memory) */
    uint64_t w2[3], l1[3], l2[3];
    p5_v x, one, zero, v;

    zero.l0 = zero.l1 = zero.l2 = _mm512_setzero_si512();
    if (p->have_powers < 8) {
        w2[0] = r0;
        w2[1] = r1;
        w2[2] = 0;
        poly1305_r64_mul(w2, r0, r1);                       /* r^2 */
        p5_to44(l1, r0, r1, 0);
        p5_to44(l2, w2[0], w2[1], w2[2]);
        one = zero;
        one.l0 = _mm512_set1_epi64(1);
        /* (r^2 r^2 r r r^2 r^2 r r) times (r^2 r^2 r^2 r^2 1 1 1 1) */
#define P5_LIMB_LANES(j) \
        _mm512_setr_epi64((long long)l2[j], (long long)l2[j], \
                          (long long)l1[j], (long long)l1[j], \
                          (long long)l2[j], (long long)l2[j], \
                          (long long)l1[j], (long long)l1[j])
        x.l0 = P5_LIMB_LANES(0);
        x.l1 = P5_LIMB_LANES(1);
        x.l2 = P5_LIMB_LANES(2);
#undef P5_LIMB_LANES
        v.l0 = _mm512_set1_epi64((long long)l2[0]);
        v.l1 = _mm512_set1_epi64((long long)l2[1]);
        v.l2 = _mm512_set1_epi64((long long)l2[2]);
        x = p5_mul_add(x, p5_pow_of(p5_blend(0xf0, v, one)), zero);
        /* (r^4 r^4 r^3 r^3 r^2 r^2 r r) times (r^4 1 r^4 1 r^4 1 r^4 1) */
        v = p5_mul_add(x, p5_pow_of(p5_blend(0xaa, p5_lane0(x), one)), zero);
        /* r^(8 - P5_LANE_BLOCK(p)): r^8 r^4 r^7 r^3 r^6 r^2 r^5 r */
        p5_store_pow(p, 8, v);
        p->have_powers = 8;
    }
    if (want > 8 && p->have_powers < 16) {
        v.l0 = P5_LOADU(&p->pw[0][8]);
        v.l1 = P5_LOADU(&p->pw[1][8]);
        v.l2 = P5_LOADU(&p->pw[2][8]);
        v = p5_mul_add(v, p5_pow_of(p5_lane0(v)), zero);
        p5_store_pow(p, 0, v);                               /* r^(16 - b) */
        p->have_powers = 16;
    }
}

/* the sum of the eight lanes */
CHACHA_INLINE uint64_t p5_hsum(__m512i v)
{
    __m256i a = _mm256_add_epi64(_mm512_castsi512_si256(v),
                                 _mm512_extracti64x4_epi64(v, 1));
    __m128i b = _mm_add_epi64(_mm256_castsi256_si128(a),
                              _mm256_extracti128_si256(a, 1));

    return (uint64_t)_mm_cvtsi128_si64(_mm_add_epi64(b,
                                       _mm_unpackhi_epi64(b, b)));
}

/*
 * Sum the lanes of the final products d[0..5] (see p5_products) into the
 * radix 2^64 accumulator, h < 2^130 + 2^100 (so h2 <= 4).
 */
CHACHA_INLINE void p5_finish(poly1305_r64 *sc, const __m512i d[6])
{
    uint64_t l0 = p5_hsum(d[0]), h0 = p5_hsum(d[1]), l1 = p5_hsum(d[2]);
    uint64_t h1 = p5_hsum(d[3]), l2 = p5_hsum(d[4]), h2 = p5_hsum(d[5]), c;

    l1 += (h0 << 8) + (l0 >> 44);
    l0 &= P5_M44;
    l2 += (h1 << 8) + (l1 >> 44);
    l1 &= P5_M44;
    c = (l2 >> 42) + (h2 << 10);
    l2 &= P5_M42;
    l0 += c * 5;
    l1 += l0 >> 44;
    l0 &= P5_M44;
    l2 += l1 >> 44;
    l1 &= P5_M44;
    sc->h[0] = l0 | (l1 << 44);
    sc->h[1] = (l1 >> 20) | (l2 << 24);
    sc->h[2] = l2 >> 40;
}

/*
 * Lane p of group g (blocks 8g..8g+7 of the first, front-padded group of
 * a run) is in use when its block is not padding: pad blocks come first.
 */
CHACHA_INLINE __mmask8 p5_lanes_used(size_t pad, int g)
{
    const __m512i blk = _mm512_setr_epi64(0 + 8 * g, 4 + 8 * g, 1 + 8 * g,
                                          5 + 8 * g, 2 + 8 * g, 6 + 8 * g,
                                          3 + 8 * g, 7 + 8 * g);

    return _mm512_cmpge_epu64_mask(blk, _mm512_set1_epi64((long long)pad));
}

/*
 * Quarter j (64 bytes, qwords 8j..8j+7) of a 256-byte group whose first
 * pad blocks are zero and whose real blocks start at in.
 */
CHACHA_INLINE __m512i p5_expand(const uint8_t *in, size_t pad, int j)
{
    size_t skip = 2 * pad;      /* zero qwords before in */
    size_t lo = 8 * (size_t)j;
    unsigned int z = skip <= lo ? 0 : skip - lo >= 8 ? 8 : (unsigned int)(skip - lo);

    return _mm512_maskz_expandloadu_epi64((__mmask8)(0xff << z),
                                          in + (lo >= skip ? 8 * (lo - skip) : 0));
}

/* x plus the value h (44-bit limbs) in the lanes of k */
CHACHA_INLINE p5_v p5_add_lane(p5_v x, __mmask8 k, const uint64_t h[3])
{
    x.l0 = _mm512_mask_add_epi64(x.l0, k, x.l0, _mm512_set1_epi64((long long)h[0]));
    x.l1 = _mm512_mask_add_epi64(x.l1, k, x.l1, _mm512_set1_epi64((long long)h[1]));
    x.l2 = _mm512_mask_add_epi64(x.l2, k, x.l2, _mm512_set1_epi64((long long)h[2]));
    return x;
}

/*
 * A vector run over nb blocks in groups of 8 (one accumulator, a) or 16
 * (two = 1: a and b), the first group front padded with pad zero blocks:
 * p5_start takes that group and joins h to its first real block;
 * P5_STEP_A and _B take each further group; p5_end multiplies by the
 * final powers, sums the lanes and leaves h in p->sc.
 */
typedef struct {
    p5_v a, b;
    p5_pow y;           /* the step: r^16 (two accumulators) or r^8 */
    __m512i hibit;
} p5_run;

CHACHA_INLINE size_t p5_pad(size_t nb, int two)
{
    size_t group = two ? 16 : 8;

    return (group - nb % group) % group;
}

CHACHA_INLINE void p5_start(p5_run *run, poly1305_ifma_st *p, const uint8_t *in,
                            size_t pad, int two, uint64_t padbit)
{
    __mmask8 at = (__mmask8)(1u << ((pad & 3) * 2 + ((pad >> 2) & 1))), ha, hb;
    uint64_t h[3];

    p5_powers(p, two ? 16 : 8);
    run->y = p5_pow_bcast(p, two ? 0 : 8);
    run->hibit = _mm512_set1_epi64((long long)(padbit << 40));
    /*
     * Expanding loads read only the blocks that are there: masked loads
     * reaching before in would fault-suppress, slowly, at a page start.
     */
    run->a = p5_limbs(p5_expand(in, pad, 0), p5_expand(in, pad, 1),
                      _mm512_maskz_mov_epi64(p5_lanes_used(pad, 0),
                                             run->hibit));
    if (two)
        run->b = p5_limbs(p5_expand(in, pad, 2), p5_expand(in, pad, 3),
                          _mm512_maskz_mov_epi64(p5_lanes_used(pad, 1),
                                                 run->hibit));
    /* h joins the lane of the first real block, in a or in b */
    p5_to44(h, p->sc.h[0], p->sc.h[1], p->sc.h[2]);
    ha = pad < 8 ? at : 0;
    hb = pad < 8 ? 0 : at;
    run->a = p5_add_lane(run->a, ha, h);
    if (two)
        run->b = p5_add_lane(run->b, hb, h);
}

/* accumulator a or b times r^16 (one: r^8), plus the 8 blocks at in */
#define P5_STEP_A(run, in) \
    ((run)->a = p5_mul_add((run)->a, (run)->y, p5_load8(in, (run)->hibit)))
#define P5_STEP_B(run, in) \
    ((run)->b = p5_mul_add((run)->b, (run)->y, p5_load8(in, (run)->hibit)))

CHACHA_INLINE void p5_end(p5_run *run, poly1305_ifma_st *p, int two)
{
    __m512i d[6];

    d[0] = d[1] = d[2] = d[3] = d[4] = d[5] = _mm512_setzero_si512();
    if (two) {
        p5_products(d, run->a, p5_pow_lanes(p, 0));
        p5_products(d, run->b, p5_pow_lanes(p, 8));
    } else {
        p5_products(d, run->a, p5_pow_lanes(p, 8));
    }
    p5_finish(&p->sc, d);
}

#endif
