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
#ifndef PAIR_MIN
# define PAIR_MIN 3
#endif

/*
 * Zero n bytes (a multiple of 32) with vector stores. chacha_wipe()'s memset
 * becomes "rep stos" here, whose start-up alone costs more than a short MAC;
 * the barrier in the loop keeps GCC from turning it back into a memset.
 */
static inline void wipe_ymm(void *p, size_t n)
{
    size_t i;

    for (i = 0; i < n; i += 32) {
        _mm256_storeu_si256((__m256i *)((unsigned char *)p + i),
                            _mm256_setzero_si256());
        __asm__ __volatile__("" : : "r"(p) : "memory");
    }
}

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
    /* r^8 limbs 0-4, then 5 times limbs 1-4 (bit 1 of have_powers) */
    uint64_t r8[9];
} poly1305_avx2_st;

_Static_assert(((sizeof(poly1305_avx2_st) + 31) & ~(size_t)31)
               <= POLY1305_STATE_SIZE, "AVX2 Poly1305 state does not fit");

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
    p->have_powers |= 1;
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

/* r^8 = (r^4)^2 as 26-bit limbs (not fully reduced, each < 2^26 + 2^9). */
static void compute_r8(poly1305_avx2_st *p)
{
    const __m256i mask26 = _mm256_set1_epi64x(M26);
    __m256i a0, a1, a2, a3, a4, r0, r1, r2, r3, r4, s1, s2, s3, s4;
    __m256i d0, d1, d2, d3, d4;
    int i;

    a0 = LOADV(p->rv[0]); a1 = LOADV(p->rv[1]); a2 = LOADV(p->rv[2]);
    a3 = LOADV(p->rv[3]); a4 = LOADV(p->rv[4]);
    r0 = _mm256_set1_epi64x((long long)p->rv[0][0]);
    r1 = _mm256_set1_epi64x((long long)p->rv[1][0]);
    r2 = _mm256_set1_epi64x((long long)p->rv[2][0]);
    r3 = _mm256_set1_epi64x((long long)p->rv[3][0]);
    r4 = _mm256_set1_epi64x((long long)p->rv[4][0]);
    s1 = ADD(r1, _mm256_slli_epi64(r1, 2)); s2 = ADD(r2, _mm256_slli_epi64(r2, 2));
    s3 = ADD(r3, _mm256_slli_epi64(r3, 2)); s4 = ADD(r4, _mm256_slli_epi64(r4, 2));
    MUL_LANES(d, a, r, s);
    CARRY_LANES(a, d);
    /* lane 0 is r^4 * r^4 */
    p->r8[0] = (uint64_t)_mm256_extract_epi64(a0, 0);
    p->r8[1] = (uint64_t)_mm256_extract_epi64(a1, 0);
    p->r8[2] = (uint64_t)_mm256_extract_epi64(a2, 0);
    p->r8[3] = (uint64_t)_mm256_extract_epi64(a3, 0);
    p->r8[4] = (uint64_t)_mm256_extract_epi64(a4, 0);
    for (i = 1; i < 5; i++)
        p->r8[4 + i] = 5 * p->r8[i];
    p->have_powers |= 2;
}

/*
 * The two-set kernel: sets A (ymm0-4) and B (ymm5-9) each hold four lanes of
 * pending sums (26-bit limbs); per iteration each is multiplied by r^8 and
 * the next four blocks are added before the carry. The sets are independent,
 * so one set's multiplies overlap the other's carry chain.
 * Table t (32-byte rows): r^8 limbs 0-4 (rows 0-4), 5 r^8 limbs 1-4 (rows
 * 5-8), the 26-bit mask (row 9), the 2^128 bit in limb 4 (row 10).
 * Products go to ymm10-14, ymm15 is the scratch register.
 */
#define T_R(i)  #i "*32(%[t])"
#define T_S(i)  "(4+" #i ")*32(%[t])"
#define T_MASK  "9*32(%[t])"
#define T_HIBIT "10*32(%[t])"

#define K_MUL(c, x, d)  "vpmuludq " c "," x "," d "\n\t"
#define K_MAC(c, x, d)  K_MUL(c, x, "%%ymm15") "vpaddq %%ymm15," d "," d "\n\t"

#define K_STEP(x0, x1, x2, x3, x4, off_lo, off_hi)                          \
    /* products: d_k = sum of x_i * r_j (i + j = k) and 5 x_i r_j (i + j = k + 5) */ \
    K_MUL(T_R(0), x0, "%%ymm10") K_MAC(T_S(4), x1, "%%ymm10")               \
    K_MAC(T_S(3), x2, "%%ymm10") K_MAC(T_S(2), x3, "%%ymm10")               \
    K_MAC(T_S(1), x4, "%%ymm10")                                            \
    K_MUL(T_R(1), x0, "%%ymm11") K_MAC(T_R(0), x1, "%%ymm11")               \
    K_MAC(T_S(4), x2, "%%ymm11") K_MAC(T_S(3), x3, "%%ymm11")               \
    K_MAC(T_S(2), x4, "%%ymm11")                                            \
    K_MUL(T_R(2), x0, "%%ymm12") K_MAC(T_R(1), x1, "%%ymm12")               \
    K_MAC(T_R(0), x2, "%%ymm12") K_MAC(T_S(4), x3, "%%ymm12")               \
    K_MAC(T_S(3), x4, "%%ymm12")                                            \
    K_MUL(T_R(3), x0, "%%ymm13") K_MAC(T_R(2), x1, "%%ymm13")               \
    K_MAC(T_R(1), x2, "%%ymm13") K_MAC(T_R(0), x3, "%%ymm13")               \
    K_MAC(T_S(4), x4, "%%ymm13")                                            \
    K_MUL(T_R(4), x0, "%%ymm14") K_MAC(T_R(3), x1, "%%ymm14")               \
    K_MAC(T_R(2), x2, "%%ymm14") K_MAC(T_R(1), x3, "%%ymm14")               \
    K_MAC(T_R(0), x4, "%%ymm14")                                            \
    /* next four blocks: lo, hi = low and high 8 bytes (lanes 0, 2, 1, 3) */ \
    "vmovdqu " off_lo "(%[in])," x0 "\n\t"                                  \
    "vpunpcklqdq " off_hi "(%[in])," x0 "," x1 "\n\t"                       \
    "vpunpckhqdq " off_hi "(%[in])," x0 "," x2 "\n\t"                       \
    /* bits 0-25 to limb 0, 26-63 to limb 1, 64-77 to limb 2, 78-127 to 3 */ \
    "vpand " T_MASK "," x1 "," x3 "\n\t"                                    \
    "vpaddq " x3 ",%%ymm10,%%ymm10\n\t"                                     \
    "vpsrlq $26," x1 "," x1 "\n\t"                                          \
    "vpaddq " x1 ",%%ymm11,%%ymm11\n\t"                                     \
    "vpsllq $12," x2 "," x3 "\n\t"                                          \
    "vpand " T_MASK "," x3 "," x3 "\n\t"                                    \
    "vpaddq " x3 ",%%ymm12,%%ymm12\n\t"                                     \
    "vpsrlq $14," x2 "," x2 "\n\t"                                          \
    "vpaddq " x2 ",%%ymm13,%%ymm13\n\t"                                     \
    "vpaddq " T_HIBIT ",%%ymm14,%%ymm14\n\t"                                \
    /* carry 0 -> 1 -> 2 -> 3 -> 4 -> 0 (times 5) -> 1 */                   \
    "vpsrlq $26,%%ymm10,%%ymm15\n\t"                                        \
    "vpand " T_MASK ",%%ymm10," x0 "\n\t"                                   \
    "vpaddq %%ymm15,%%ymm11,%%ymm11\n\t"                                    \
    "vpsrlq $26,%%ymm11,%%ymm15\n\t"                                        \
    "vpand " T_MASK ",%%ymm11," x1 "\n\t"                                   \
    "vpaddq %%ymm15,%%ymm12,%%ymm12\n\t"                                    \
    "vpsrlq $26,%%ymm12,%%ymm15\n\t"                                        \
    "vpand " T_MASK ",%%ymm12," x2 "\n\t"                                   \
    "vpaddq %%ymm15,%%ymm13,%%ymm13\n\t"                                    \
    "vpsrlq $26,%%ymm13,%%ymm15\n\t"                                        \
    "vpand " T_MASK ",%%ymm13," x3 "\n\t"                                   \
    "vpaddq %%ymm15,%%ymm14,%%ymm14\n\t"                                    \
    "vpsrlq $26,%%ymm14,%%ymm15\n\t"                                        \
    "vpand " T_MASK ",%%ymm14," x4 "\n\t"                                   \
    "vpsllq $2,%%ymm15,%%ymm10\n\t"                                         \
    "vpaddq %%ymm15,%%ymm10,%%ymm10\n\t"                                    \
    "vpaddq %%ymm10," x0 "," x0 "\n\t"                                      \
    "vpsrlq $26," x0 ",%%ymm15\n\t"                                         \
    "vpand " T_MASK "," x0 "," x0 "\n\t"                                    \
    "vpaddq %%ymm15," x1 "," x1 "\n\t"

/* np >= 1 iterations of 8 blocks; st: A limbs 0-4 then B limbs 0-4 */
static void pair_loop(uint64_t st[10][4], const uint64_t t[11][4],
                      const uint8_t *in, size_t np)
{
    __asm__ volatile(
        "vmovdqu 0*32(%[s]),%%ymm0\n\t"
        "vmovdqu 1*32(%[s]),%%ymm1\n\t"
        "vmovdqu 2*32(%[s]),%%ymm2\n\t"
        "vmovdqu 3*32(%[s]),%%ymm3\n\t"
        "vmovdqu 4*32(%[s]),%%ymm4\n\t"
        "vmovdqu 5*32(%[s]),%%ymm5\n\t"
        "vmovdqu 6*32(%[s]),%%ymm6\n\t"
        "vmovdqu 7*32(%[s]),%%ymm7\n\t"
        "vmovdqu 8*32(%[s]),%%ymm8\n\t"
        "vmovdqu 9*32(%[s]),%%ymm9\n\t"
        ".p2align 4\n"
        "1:\n\t"
        K_STEP("%%ymm0", "%%ymm1", "%%ymm2", "%%ymm3", "%%ymm4", "0", "32")
        K_STEP("%%ymm5", "%%ymm6", "%%ymm7", "%%ymm8", "%%ymm9", "64", "96")
        "add $128,%[in]\n\t"
        "dec %[n]\n\t"
        "jnz 1b\n\t"
        "vmovdqu %%ymm0,0*32(%[s])\n\t"
        "vmovdqu %%ymm1,1*32(%[s])\n\t"
        "vmovdqu %%ymm2,2*32(%[s])\n\t"
        "vmovdqu %%ymm3,3*32(%[s])\n\t"
        "vmovdqu %%ymm4,4*32(%[s])\n\t"
        "vmovdqu %%ymm5,5*32(%[s])\n\t"
        "vmovdqu %%ymm6,6*32(%[s])\n\t"
        "vmovdqu %%ymm7,7*32(%[s])\n\t"
        "vmovdqu %%ymm8,8*32(%[s])\n\t"
        "vmovdqu %%ymm9,9*32(%[s])\n\t"
        : [in] "+r"(in), [n] "+r"(np)
        : [s] "r"(st), [t] "r"(t)
        : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
          "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",
          "xmm15", "memory", "cc");
}

/* Absorb 4 * ng blocks (ng >= 1). */
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

    if (!(p->have_powers & 1))
        compute_powers(p);
    /* the running h enters lane 0; h holds pending sums (not yet times r) */
    to_26(l, p->sc.h);
    h0 = _mm256_setr_epi64x(l[0], 0, 0, 0);
    h1 = _mm256_setr_epi64x(l[1], 0, 0, 0);
    h2 = _mm256_setr_epi64x(l[2], 0, 0, 0);
    h3 = _mm256_setr_epi64x(l[3], 0, 0, 0);
    h4 = _mm256_setr_epi64x(l[4], 0, 0, 0);
    LOAD_4BLOCKS(m, in, hibit);
    ADD_LIMBS(h, m);
    in += 64;
    ng--;

    if (ng != 0) {
        /* lane 0 holds r^4: broadcast it */
        r0 = _mm256_set1_epi64x((long long)p->rv[0][0]);
        r1 = _mm256_set1_epi64x((long long)p->rv[1][0]);
        r2 = _mm256_set1_epi64x((long long)p->rv[2][0]);
        r3 = _mm256_set1_epi64x((long long)p->rv[3][0]);
        r4 = _mm256_set1_epi64x((long long)p->rv[4][0]);
        s1 = _mm256_set1_epi64x((long long)p->sv[1][0]);
        s2 = _mm256_set1_epi64x((long long)p->sv[2][0]);
        s3 = _mm256_set1_epi64x((long long)p->sv[3][0]);
        s4 = _mm256_set1_epi64x((long long)p->sv[4][0]);
        if (ng >= PAIR_MIN) {
            /* two sets: A = h (blocks 0-3 of each 8), B = blocks 4-7 */
            _Alignas(32) uint64_t tab[11][4];
            _Alignas(32) uint64_t st[10][4];
            size_t np, i;

            if (!(p->have_powers & 2))
                compute_r8(p);
            for (i = 0; i < 9; i++)
                _mm256_store_si256((__m256i *)tab[i],
                                   _mm256_set1_epi64x((long long)p->r8[i]));
            _mm256_store_si256((__m256i *)tab[9], mask26);
            _mm256_store_si256((__m256i *)tab[10], hibit);
            _mm256_store_si256((__m256i *)st[0], h0);
            _mm256_store_si256((__m256i *)st[1], h1);
            _mm256_store_si256((__m256i *)st[2], h2);
            _mm256_store_si256((__m256i *)st[3], h3);
            _mm256_store_si256((__m256i *)st[4], h4);
            LOAD_4BLOCKS(m, in, hibit);
            _mm256_store_si256((__m256i *)st[5], m0);
            _mm256_store_si256((__m256i *)st[6], m1);
            _mm256_store_si256((__m256i *)st[7], m2);
            _mm256_store_si256((__m256i *)st[8], m3);
            _mm256_store_si256((__m256i *)st[9], m4);
            in += 64;
            ng--;
            np = ng / 2;
            pair_loop(st, (const uint64_t (*)[4])tab, in, np);
            in += 128 * np;
            ng -= 2 * np;
            /* merge: A * r^4 + B is a pending four-lane sum again */
            h0 = _mm256_load_si256((const __m256i *)st[0]);
            h1 = _mm256_load_si256((const __m256i *)st[1]);
            h2 = _mm256_load_si256((const __m256i *)st[2]);
            h3 = _mm256_load_si256((const __m256i *)st[3]);
            h4 = _mm256_load_si256((const __m256i *)st[4]);
            MUL_LANES(d, h, r, s);
            d0 = ADD(d0, _mm256_load_si256((const __m256i *)st[5]));
            d1 = ADD(d1, _mm256_load_si256((const __m256i *)st[6]));
            d2 = ADD(d2, _mm256_load_si256((const __m256i *)st[7]));
            d3 = ADD(d3, _mm256_load_si256((const __m256i *)st[8]));
            d4 = ADD(d4, _mm256_load_si256((const __m256i *)st[9]));
            CARRY_LANES(h, d);
            /* no key powers or accumulator left on the stack */
            wipe_ymm(tab, sizeof(tab));
            wipe_ymm(st, sizeof(st));
        }
        for (; ng != 0; ng--, in += 64) {
            MUL_LANES(d, h, r, s);
            CARRY_LANES(h, d);
            LOAD_4BLOCKS(m, in, hibit);
            ADD_LIMBS(h, m);
        }
    }
    /* last group: lanes times r^4, r^2, r^3, r^1, then sum the lanes */
    r0 = LOADV(p->rv[0]); r1 = LOADV(p->rv[1]); r2 = LOADV(p->rv[2]);
    r3 = LOADV(p->rv[3]); r4 = LOADV(p->rv[4]);
    s1 = LOADV(p->sv[1]); s2 = LOADV(p->sv[2]); s3 = LOADV(p->sv[3]);
    s4 = LOADV(p->sv[4]);
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
    if (p->have_powers)
        wipe_ymm(st->opaque, (sizeof(*p) + 31) & ~(size_t)31);
    else
        wipe_ymm(st->opaque, (sizeof(p->sc) + 31) & ~(size_t)31);
}

const poly1305_impl poly1305_avx2_impl = {
    "avx2", CHACHA_CAP_AVX2, 1, avx2_init, avx2_blocks, avx2_emit
};
