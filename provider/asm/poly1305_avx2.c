/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Poly1305 for x86-64 with AVX2 (build this file with -mavx2).
 *
 * The accumulator is kept between calls in radix 2^64 (h0, h1, and a few bits
 * in h2), and short inputs are absorbed by a scalar 2^64 multiply. Runs of at
 * least POLY1305_AVX2_MIN bytes switch to four 26-bit-limb lanes: each lane
 * takes every fourth block and is multiplied by r^4 per step; the last step
 * multiplies the lanes by the powers r^4..r^1 matching their last blocks and
 * sums them, which equals the serial Horner evaluation. The powers are
 * computed on first vector use, so short messages never pay for them.
 * Constant time throughout: no branch or index depends on key or data.
 */
#include <immintrin.h>
#include <openssl/crypto.h>
#include "wipe.h"
#include "backend.h"
#include "poly1305_r64.h"

#if !defined(__AVX2__) || !defined(__SIZEOF_INT128__)
# error "poly1305_avx2.c needs -mavx2 on x86-64"
#endif

typedef poly1305_u128 u128;

/*
 * Shortest blocks() run that takes the vector path (powers of r computed on
 * the way included). Zen 3, whole MACs, vector vs scalar cycles/byte: clang
 * 1.62 vs 1.71 at 192 bytes, 1.33 vs 1.48 at 256; GCC 12 1.80 vs 1.65 at
 * 256, tie at 320, 1.38 vs 1.48 at 384. 256 is the compromise.
 */
#ifndef POLY1305_AVX2_MIN
# define POLY1305_AVX2_MIN 256
#endif

#define M26 0x3ffffffu

typedef struct {
    poly1305_r64 sc;    /* r, s and the accumulator h, radix 2^64 (first:
                           a short message's wipe covers only this) */
    uint64_t have_powers;
    /*
     * Limb i of (r^4, r^2, r^3, r^1), one per 64-bit lane, and 5 times that
     * (sv[0] unused). Plain arrays read with unaligned loads: the state lives
     * in heap contexts that malloc aligns to 16 bytes only.
     */
    uint64_t rv[5][4];
    uint64_t sv[5][4];
} poly1305_avx2_st;

_Static_assert(sizeof(poly1305_avx2_st) <= POLY1305_STATE_SIZE,
               "AVX2 Poly1305 state does not fit");

/* Split a radix 2^64 value (top word < 2^3) into five 26-bit limbs. */
static void to_26(uint32_t l[5], const uint64_t h[3])
{
    l[0] = (uint32_t)h[0] & M26;
    l[1] = (uint32_t)(h[0] >> 26) & M26;
    l[2] = (uint32_t)((h[0] >> 52) | (h[1] << 12)) & M26;
    l[3] = (uint32_t)(h[1] >> 14) & M26;
    l[4] = (uint32_t)((h[1] >> 40) | (h[2] << 24));
}

/* r^1..r^4 as 26-bit limbs in lanes (r^4, r^2, r^3, r^1), see LOAD_4BLOCKS. */
static void compute_powers(poly1305_avx2_st *p)
{
    uint64_t pw[4][3];
    uint32_t l[4][5];
    int k, i;

    pw[0][0] = p->sc.r[0];
    pw[0][1] = p->sc.r[1];
    pw[0][2] = 0;
    for (k = 1; k < 4; k++) {
        pw[k][0] = pw[k - 1][0];
        pw[k][1] = pw[k - 1][1];
        pw[k][2] = pw[k - 1][2];
        poly1305_r64_mul(pw[k], p->sc.r[0], p->sc.r[1]);
    }
    for (k = 0; k < 4; k++)
        to_26(l[k], pw[k]);
    for (i = 0; i < 5; i++) {
        __m256i v = _mm256_setr_epi64x(l[3][i], l[1][i], l[2][i], l[0][i]);

        _mm256_storeu_si256((__m256i *)p->rv[i], v);
        _mm256_storeu_si256((__m256i *)p->sv[i],
                            _mm256_add_epi64(v, _mm256_slli_epi64(v, 2)));
    }
    p->have_powers = 1;
}

/*
 * The lane kernel works on five named __m256i limbs (x##0 .. x##4), not
 * arrays, so that the compiler keeps them in registers.
 */

/*
 * m = four blocks as 26-bit limbs plus the 2^128 bit. Unpacking within the
 * 128-bit halves is cheapest and puts blocks 0, 2, 1, 3 in lanes 0, 1, 2, 3;
 * the final powers of r follow the same order.
 */
#define LOAD_4BLOCKS(m, in, hibit)                                          \
    do {                                                                    \
        __m256i a_ = _mm256_loadu_si256((const __m256i *)(in));             \
        __m256i b_ = _mm256_loadu_si256((const __m256i *)((in) + 32));      \
        __m256i lo_ = _mm256_unpacklo_epi64(a_, b_);  /* low 8 bytes */     \
        __m256i hi_ = _mm256_unpackhi_epi64(a_, b_);  /* high 8 bytes */    \
        m##0 = _mm256_and_si256(lo_, mask26);                               \
        m##1 = _mm256_and_si256(_mm256_srli_epi64(lo_, 26), mask26);        \
        m##2 = _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi64(lo_, 52), \
                                   _mm256_slli_epi64(hi_, 12)), mask26);    \
        m##3 = _mm256_and_si256(_mm256_srli_epi64(hi_, 14), mask26);        \
        m##4 = _mm256_or_si256(_mm256_srli_epi64(hi_, 40), (hibit));        \
    } while (0)

#define LOADV(x) _mm256_loadu_si256((const __m256i *)(x))
#define MUL(a, b) _mm256_mul_epu32(a, b)
#define ADD(a, b) _mm256_add_epi64(a, b)

/* d = h * r per lane, unreduced (each limb < 2^59); s = 5 * r */
#define MUL_LANES(d, h, r, s)                                               \
    do {                                                                    \
        d##0 = ADD(ADD(ADD(MUL(h##0, r##0), MUL(h##1, s##4)),               \
                       ADD(MUL(h##2, s##3), MUL(h##3, s##2))),              \
                   MUL(h##4, s##1));                                        \
        d##1 = ADD(ADD(ADD(MUL(h##0, r##1), MUL(h##1, r##0)),               \
                       ADD(MUL(h##2, s##4), MUL(h##3, s##3))),              \
                   MUL(h##4, s##2));                                        \
        d##2 = ADD(ADD(ADD(MUL(h##0, r##2), MUL(h##1, r##1)),               \
                       ADD(MUL(h##2, r##0), MUL(h##3, s##4))),              \
                   MUL(h##4, s##3));                                        \
        d##3 = ADD(ADD(ADD(MUL(h##0, r##3), MUL(h##1, r##2)),               \
                       ADD(MUL(h##2, r##1), MUL(h##3, r##0))),              \
                   MUL(h##4, s##4));                                        \
        d##4 = ADD(ADD(ADD(MUL(h##0, r##4), MUL(h##1, r##3)),               \
                       ADD(MUL(h##2, r##2), MUL(h##3, r##1))),              \
                   MUL(h##4, r##0));                                        \
    } while (0)

/* one carry step: limb a keeps 26 bits, the rest moves into b */
#define CARRY(a, b)                                                         \
    do {                                                                    \
        __m256i k_ = _mm256_srli_epi64(a, 26);                              \
        a = _mm256_and_si256(a, mask26);                                    \
        b = ADD(b, k_);                                                     \
    } while (0)

/* h = d with limbs back to 26 bits plus a small excess */
#define CARRY_LANES(h, d)                                                   \
    do {                                                                    \
        __m256i c_;                                                         \
        /* two interleaved chains: 3->4->0->1 and 0->1->2->3->4 */          \
        CARRY(d##3, d##4);                                                  \
        CARRY(d##0, d##1);                                                  \
        c_ = _mm256_srli_epi64(d##4, 26);                                   \
        d##4 = _mm256_and_si256(d##4, mask26);                              \
        d##0 = ADD(d##0, ADD(c_, _mm256_slli_epi64(c_, 2)));  /* 2^130=5 */ \
        CARRY(d##1, d##2);                                                  \
        CARRY(d##0, d##1);                                                  \
        CARRY(d##2, d##3);                                                  \
        CARRY(d##3, d##4);                                                  \
        h##0 = d##0; h##1 = d##1; h##2 = d##2; h##3 = d##3; h##4 = d##4;    \
    } while (0)

#define ADD_LIMBS(h, m)                                                     \
    do {                                                                    \
        h##0 = ADD(h##0, m##0); h##1 = ADD(h##1, m##1);                     \
        h##2 = ADD(h##2, m##2); h##3 = ADD(h##3, m##3);                     \
        h##4 = ADD(h##4, m##4);                                             \
    } while (0)

static inline uint64_t hsum(__m256i v)
{
    __m128i x = _mm_add_epi64(_mm256_castsi256_si128(v),
                              _mm256_extracti128_si256(v, 1));

    x = _mm_add_epi64(x, _mm_unpackhi_epi64(x, x));
    return (uint64_t)_mm_cvtsi128_si64(x);
}

/* Absorb 4 * ng blocks (ng >= 1) with the four-lane kernel. */
static void vector_blocks(poly1305_avx2_st *p, const uint8_t *in, size_t ng,
                          uint64_t padbit)
{
    const __m256i mask26 = _mm256_set1_epi64x(M26);
    const __m256i hibit = _mm256_set1_epi64x((long long)(padbit << 24));
    __m256i r0, r1, r2, r3, r4, s1, s2, s3, s4;
    __m256i h0, h1, h2, h3, h4, m0, m1, m2, m3, m4, d0, d1, d2, d3, d4;
    uint32_t l[5];
    uint64_t t[5], c;
    u128 acc;

    if (!p->have_powers)
        compute_powers(p);
    /* the running h enters lane 0 */
    to_26(l, p->sc.h);
    h0 = _mm256_setr_epi64x(l[0], 0, 0, 0);
    h1 = _mm256_setr_epi64x(l[1], 0, 0, 0);
    h2 = _mm256_setr_epi64x(l[2], 0, 0, 0);
    h3 = _mm256_setr_epi64x(l[3], 0, 0, 0);
    h4 = _mm256_setr_epi64x(l[4], 0, 0, 0);

    if (ng > 1) {
        /* lane 0 holds r^4: broadcast it for the steady state */
        __m256i k[9];

        k[0] = _mm256_set1_epi64x((long long)p->rv[0][0]);
        k[1] = _mm256_set1_epi64x((long long)p->rv[1][0]);
        k[2] = _mm256_set1_epi64x((long long)p->rv[2][0]);
        k[3] = _mm256_set1_epi64x((long long)p->rv[3][0]);
        k[4] = _mm256_set1_epi64x((long long)p->rv[4][0]);
        k[5] = _mm256_set1_epi64x((long long)p->sv[1][0]);
        k[6] = _mm256_set1_epi64x((long long)p->sv[2][0]);
        k[7] = _mm256_set1_epi64x((long long)p->sv[3][0]);
        k[8] = _mm256_set1_epi64x((long long)p->sv[4][0]);
        for (; ng > 1; ng--, in += 64) {
            /*
             * Reload r^4 and 5 r^4 from memory every step: nine constants
             * plus the limbs do not fit in 16 registers, and without this
             * barrier both GCC and clang spill the limbs instead (0.5-0.8
             * cycles/byte instead of 0.45 on Zen 3).
             */
            __asm__ volatile("" : : "r"(k) : "memory");
            r0 = k[0]; r1 = k[1]; r2 = k[2]; r3 = k[3]; r4 = k[4];
            s1 = k[5]; s2 = k[6]; s3 = k[7]; s4 = k[8];
            LOAD_4BLOCKS(m, in, hibit);
            ADD_LIMBS(h, m);
            MUL_LANES(d, h, r, s);
            CARRY_LANES(h, d);
        }
        /* do not leave key powers on the stack; the barrier keeps the store */
        __builtin_memset(k, 0, sizeof(k));
        __asm__ volatile("" : : "r"(k) : "memory");
    }
    /* last group: blocks 0..3 times r^4..r^1, then sum the lanes */
    r0 = LOADV(p->rv[0]); r1 = LOADV(p->rv[1]); r2 = LOADV(p->rv[2]);
    r3 = LOADV(p->rv[3]); r4 = LOADV(p->rv[4]);
    s1 = LOADV(p->sv[1]); s2 = LOADV(p->sv[2]); s3 = LOADV(p->sv[3]);
    s4 = LOADV(p->sv[4]);
    LOAD_4BLOCKS(m, in, hibit);
    ADD_LIMBS(h, m);
    MUL_LANES(d, h, r, s);
    t[0] = hsum(d0);
    t[1] = hsum(d1);
    t[2] = hsum(d2);
    t[3] = hsum(d3);
    t[4] = hsum(d4);

    /* carry to 26-bit limbs (each sum < 2^61), then repack to 2^64 */
    c = t[0] >> 26; t[0] &= M26; t[1] += c;
    c = t[1] >> 26; t[1] &= M26; t[2] += c;
    c = t[2] >> 26; t[2] &= M26; t[3] += c;
    c = t[3] >> 26; t[3] &= M26; t[4] += c;
    c = t[4] >> 26; t[4] &= M26; t[0] += c * 5;
    c = t[0] >> 26; t[0] &= M26; t[1] += c;
    acc = (u128)t[0] + ((u128)t[1] << 26) + ((u128)t[2] << 52);
    p->sc.h[0] = (uint64_t)acc;
    acc = (acc >> 64) + ((u128)t[3] << 14) + ((u128)t[4] << 40);
    p->sc.h[1] = (uint64_t)acc;
    p->sc.h[2] = (uint64_t)(acc >> 64);
}

static void avx2_init(poly1305_state *st, const uint8_t key[32])
{
    poly1305_avx2_st *p = (poly1305_avx2_st *)st->opaque;

    poly1305_r64_init(&p->sc, key);
    p->have_powers = 0;
}

static void avx2_blocks(poly1305_state *st, const uint8_t *in, size_t len,
                        uint32_t padbit)
{
    poly1305_avx2_st *p = (poly1305_avx2_st *)st->opaque;
    size_t nb = len / 16;

    /* the branch depends only on the public length */
    if (len >= POLY1305_AVX2_MIN) {
        size_t ng = nb / 4;

        vector_blocks(p, in, ng, padbit);
        in += 64 * ng;
        nb -= 4 * ng;
    }
    poly1305_r64_blocks(&p->sc, in, nb, padbit);
}

static void avx2_emit(poly1305_state *st, uint8_t mac[16])
{
    poly1305_avx2_st *p = (poly1305_avx2_st *)st->opaque;

    poly1305_r64_emit(&p->sc, mac);
    /* the powers of r exist only if a long run took the vector path */
    chacha_wipe(p, p->have_powers ? sizeof(*p) : sizeof(p->sc));
}

const poly1305_impl poly1305_avx2_impl = {
    "avx2", CHACHA_CAP_AVX2, 1, avx2_init, avx2_blocks, avx2_emit
};
