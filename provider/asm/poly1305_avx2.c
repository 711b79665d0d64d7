/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Poly1305 for x86-64 with AVX2 (build this file with -mavx2).
 *
 * The accumulator is kept between calls in radix 2^64 (h0, h1, and a few bits
 * in h2), and short inputs are absorbed by a scalar 2^64 multiply. Runs of at
 * least POLY1305_AVX2_MIN bytes switch to four 26-bit-limb lanes: each lane
 * takes every fourth block and is multiplied by r^4 per step; the last step
 * multiplies the lanes by the powers r^4..r^1 matching their last blocks and
 * sums them, which equals the serial Horner evaluation. Long runs keep two
 * such four-lane sets (blocks 0-3 and 4-7 of every eight) stepped by r^8, so
 * that one set's multiplies overlap the other's carry chain; they merge as
 * A r^4 + B at the end. The powers are computed on first vector use, so short
 * messages never pay for them.
 * Constant time throughout: no branch or index depends on key or data.
 */
#include <immintrin.h>
#include <string.h>
#include <stddef.h>
#include "kernel.h"
#include "util.h"
#include "poly1305_r64.h"

#if !defined(__AVX2__) || !defined(__SIZEOF_INT128__)
# error "poly1305_avx2.c needs -mavx2 on x86-64"
#endif

/*
 * Shortest blocks() run that takes the vector path (powers of r computed on
 * the way included). The scalar side is poly1305_r64_blocks(), a fixed cost
 * a block on the integer pipes (~14 cycles since its x86-64 assembly); the
 * vector side is the powers plus four-lane steps whose chains cost the
 * vector latency L. Whole MACs, ours in MB/s, best of 3 x 7 samples, Zen 4
 * with L = 2 (bench --openssl-avx2 --only poly1305): 256 bytes scalar
 * 2546-2628 vs vector 2205, 384 bytes 2818-2833 vs 2708, 512 bytes 2966 vs
 * 2987-3273, 768 bytes 3158 vs 3708-3812. Where L = 1 the vector side only
 * gets cheaper, so from 512 bytes on it wins on both profiles. Once a run
 * has computed the powers (a live context: bulk AEAD updates), the vector
 * side costs only its steps and wins from 256 bytes (bulk seal 256 bytes:
 * vector 1056-1077 MB/s, scalar 1008-1046). So a run of 256 bytes or more
 * takes the vector path where the powers exist or where, with it, the MAC
 * has absorbed POLY1305_AVX2_MIN bytes: a stream of 256-byte updates pays
 * for them once. The choice depends on lengths only.
 */
#ifndef POLY1305_AVX2_MIN
# define POLY1305_AVX2_MIN 512
#endif
#ifndef POLY1305_AVX2_MIN_WARM
# define POLY1305_AVX2_MIN_WARM 256
#endif

/*
 * Fewest four-block groups, after the first, that use the two-set loop: its
 * setup (r^8, the sets' memory round trip, the merge) costs about what it
 * saves up to some 2 KiB on Zen 3 (1536 bytes: 729-747 ticks single-set vs
 * 765 two-set; 2048 bytes: 888-906 two-set vs 900-925).
 */
#ifndef POLY1305_AVX2_PAIR_MIN
# define POLY1305_AVX2_PAIR_MIN 31
#endif

#define M26 0x3ffffffu

/* the two-set path needs at least one pair step after A and B */
_Static_assert(POLY1305_AVX2_PAIR_MIN >= 3, "POLY1305_AVX2_PAIR_MIN < 3");

typedef struct {
    poly1305_r64 sc;    /* r, s and the accumulator h, radix 2^64 (first:
                           a short message's wipe covers only this) */
    uint64_t have_powers;
    /*
     * Rows 0-4: limb i of (r^4, r^2, r^3, r^1), one per 64-bit lane; rows
     * 5-8: 5 times limbs 1-4 (the layout the kernels below read). Plain
     * arrays read with unaligned loads: the state lives in heap contexts
     * that malloc aligns to 16 bytes only.
     */
    uint64_t pw[9][4];
    uint64_t seen;      /* bytes this MAC has absorbed (public) */
} poly1305_avx2_st;

#define WIPE_ALL ((sizeof(poly1305_avx2_st) + 31) & ~(size_t)31)
#define WIPE_SC ((sizeof(poly1305_r64) + 31) & ~(size_t)31)

_Static_assert(WIPE_ALL <= POLY1305_STATE_SIZE,
               "AVX2 Poly1305 state does not fit");
/* the fused AVX2 kernel advances sc in place, through poly1305_r64_of() */
_Static_assert(offsetof(poly1305_avx2_st, sc) == 0, "sc must come first");

/* Split a radix 2^64 value (top word < 2^3) into five 26-bit limbs. */
static inline void to_26(uint64_t l[5], uint64_t h0, uint64_t h1, uint64_t h2)
{
    l[0] = h0 & M26;
    l[1] = (h0 >> 26) & M26;
    l[2] = ((h0 >> 52) | (h1 << 12)) & M26;
    l[3] = (h1 >> 14) & M26;
    l[4] = (h1 >> 40) | (h2 << 24);
}

/* a = a * r (the clamped key) in radix 2^64, see poly1305_r64_mul() */
#define MUL_R(a0, a1, a2)                                                   \
    do {                                                                    \
        uint64_t h_[3] = { a0, a1, a2 };                                    \
                                                                            \
        poly1305_r64_mul(h_, r0, r1);                                       \
        a0 = h_[0]; a1 = h_[1]; a2 = h_[2];                                 \
    } while (0)

/*
 * r^1..r^4 as 26-bit limbs in lanes (r^4, r^2, r^3, r^1), see LOAD_4BLOCKS.
 * Scalars only, so that nothing but the stored powers reaches memory.
 */
static void compute_powers(poly1305_avx2_st *p)
{
    const uint64_t r0 = p->sc.r[0], r1 = p->sc.r[1];
    uint64_t a0 = r0, a1 = r1, a2 = 0, b0, b1, b2, c0, c1, c2;
    __m256i v[5];
    int i;

    MUL_R(a0, a1, a2);                                  /* r^2 */
    b0 = a0; b1 = a1; b2 = a2;
    MUL_R(b0, b1, b2);                                  /* r^3 */
    c0 = b0; c1 = b1; c2 = b2;
    MUL_R(c0, c1, c2);                                  /* r^4 */
#define LANES(f)                                                            \
    _mm256_setr_epi64x((long long)(f(c0, c1, c2)), (long long)(f(a0, a1, a2)), \
                       (long long)(f(b0, b1, b2)), (long long)(f(r0, r1, 0)))
#define L0(x0, x1, x2) ((x0) & M26)
#define L1(x0, x1, x2) (((x0) >> 26) & M26)
#define L2(x0, x1, x2) ((((x0) >> 52) | ((x1) << 12)) & M26)
#define L3(x0, x1, x2) (((x1) >> 14) & M26)
#define L4(x0, x1, x2) (((x1) >> 40) | ((x2) << 24))
    v[0] = LANES(L0);
    v[1] = LANES(L1);
    v[2] = LANES(L2);
    v[3] = LANES(L3);
    v[4] = LANES(L4);
#undef LANES
#undef L0
#undef L1
#undef L2
#undef L3
#undef L4
    for (i = 0; i < 5; i++) {
        _mm256_storeu_si256((__m256i *)p->pw[i], v[i]);
        if (i > 0)
            _mm256_storeu_si256((__m256i *)p->pw[4 + i],
                                _mm256_add_epi64(v[i], _mm256_slli_epi64(v[i], 2)));
    }
    p->have_powers = 1;
}

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

/*
 * The kernels, in inline assembly so that the register allocation and the
 * memory operands are ours and not the compiler's (GCC spills limbs here).
 * A four-lane set x0..x4 (26-bit limbs, each < 2^27) is multiplied by a power
 * r whose table (32-byte rows) holds r limbs 0-4 in rows 0-4 and 5 r limbs
 * 1-4 in rows 5-8: d_k = sum of x_i r_j over i + j = k, plus 5 x_i r_j over
 * i + j = k + 5 (2^130 = 5 mod p). Each d_k < 2^58. Products go to
 * ymm10-14; ymm15 is scratch.
 */
#define K_ROW_R(t, i) #i "*32(" t ")"
#define K_ROW_S(t, i) "(4+" #i ")*32(" t ")"

#define K_MUL(c, x, d)  "vpmuludq " c "," x "," d "\n\t"
#define K_MAC(c, x, d)  K_MUL(c, x, "%%ymm15") "vpaddq %%ymm15," d "," d "\n\t"

/*
 * Column by column, the limbs that the carry chain finishes last (x0, then
 * x1) are multiplied last, so that a single set's next step starts on x2-x4
 * while the previous carry is still running. f is K_MUL, or K_MAC when the
 * columns already hold the message.
 */
#define K_PRODUCTS_F(f, t, x0, x1, x2, x3, x4)                              \
    f(K_ROW_S(t, 3), x2, "%%ymm10") K_MAC(K_ROW_S(t, 2), x3, "%%ymm10")     \
    K_MAC(K_ROW_S(t, 1), x4, "%%ymm10")                                     \
    f(K_ROW_S(t, 4), x2, "%%ymm11") K_MAC(K_ROW_S(t, 3), x3, "%%ymm11")     \
    K_MAC(K_ROW_S(t, 2), x4, "%%ymm11")                                     \
    f(K_ROW_R(t, 0), x2, "%%ymm12") K_MAC(K_ROW_S(t, 4), x3, "%%ymm12")     \
    K_MAC(K_ROW_S(t, 3), x4, "%%ymm12")                                     \
    f(K_ROW_R(t, 1), x2, "%%ymm13") K_MAC(K_ROW_R(t, 0), x3, "%%ymm13")     \
    K_MAC(K_ROW_S(t, 4), x4, "%%ymm13")                                     \
    f(K_ROW_R(t, 2), x2, "%%ymm14") K_MAC(K_ROW_R(t, 1), x3, "%%ymm14")     \
    K_MAC(K_ROW_R(t, 0), x4, "%%ymm14")                                     \
    K_MAC(K_ROW_R(t, 0), x0, "%%ymm10") K_MAC(K_ROW_S(t, 4), x1, "%%ymm10") \
    K_MAC(K_ROW_R(t, 1), x0, "%%ymm11") K_MAC(K_ROW_R(t, 0), x1, "%%ymm11") \
    K_MAC(K_ROW_R(t, 2), x0, "%%ymm12") K_MAC(K_ROW_R(t, 1), x1, "%%ymm12") \
    K_MAC(K_ROW_R(t, 3), x0, "%%ymm13") K_MAC(K_ROW_R(t, 2), x1, "%%ymm13") \
    K_MAC(K_ROW_R(t, 4), x0, "%%ymm14") K_MAC(K_ROW_R(t, 3), x1, "%%ymm14")
#define K_PRODUCTS(t, x0, x1, x2, x3, x4)                                   \
    K_PRODUCTS_F(K_MUL, t, x0, x1, x2, x3, x4)
#define K_PRODUCTS_ADD(t, x0, x1, x2, x3, x4)                               \
    K_PRODUCTS_F(K_MAC, t, x0, x1, x2, x3, x4)

/* %[k]: row 0 the 26-bit mask, row 1 the 2^128 bit (in limb 4) */
#define K_MASK  "0(%[k])"
#define K_HIBIT "32(%[k])"

/*
 * d += the next four blocks (lanes 0, 2, 1, 3 as in LOAD_4BLOCKS), with
 * fewer operations than splitting them into clean limbs: bits 0-25 go to
 * d0, bits 26-63 (unmasked) to d1, 64-77 to d2, 78-127 (unmasked) to d3,
 * the pad bit to d4; the carry below spreads the excess. Uses x0-x3.
 */
#define K_MESSAGE(x0, x1, x2, x3, off_lo, off_hi)                           \
    "vmovdqu " off_lo "(%[in])," x0 "\n\t"                                  \
    "vpunpcklqdq " off_hi "(%[in])," x0 "," x1 "\n\t"                       \
    "vpunpckhqdq " off_hi "(%[in])," x0 "," x2 "\n\t"                       \
    "vpand " K_MASK "," x1 "," x3 "\n\t"                                    \
    "vpaddq " x3 ",%%ymm10,%%ymm10\n\t"                                     \
    "vpsrlq $26," x1 "," x1 "\n\t"                                          \
    "vpaddq " x1 ",%%ymm11,%%ymm11\n\t"                                     \
    "vpsllq $12," x2 "," x3 "\n\t"                                          \
    "vpand " K_MASK "," x3 "," x3 "\n\t"                                    \
    "vpaddq " x3 ",%%ymm12,%%ymm12\n\t"                                     \
    "vpsrlq $14," x2 "," x2 "\n\t"                                          \
    "vpaddq " x2 ",%%ymm13,%%ymm13\n\t"                                     \
    "vpaddq " K_HIBIT ",%%ymm14,%%ymm14\n\t"

/* The same split, into ymm10-14 before the products; uses ymm5-7. */
#define K_MESSAGE_FIRST(off_lo, off_hi)                                     \
    "vmovdqu " off_lo "(%[in]),%%ymm5\n\t"                                 \
    "vpunpcklqdq " off_hi "(%[in]),%%ymm5,%%ymm6\n\t"                      \
    "vpunpckhqdq " off_hi "(%[in]),%%ymm5,%%ymm7\n\t"                      \
    "vpand " K_MASK ",%%ymm6,%%ymm10\n\t"                                  \
    "vpsrlq $26,%%ymm6,%%ymm11\n\t"                                        \
    "vpsllq $12,%%ymm7,%%ymm12\n\t"                                        \
    "vpand " K_MASK ",%%ymm12,%%ymm12\n\t"                                 \
    "vpsrlq $14,%%ymm7,%%ymm13\n\t"                                        \
    "vmovdqu " K_HIBIT ",%%ymm14\n\t"

/*
 * x = d carried 0 -> 1 -> 2 -> 3 -> 4 -> 0 (times 5) -> 1: every limb ends
 * below 2^26, except x1 below 2^26 + 2^9.
 */
#define K_CARRY(x0, x1, x2, x3, x4)                                         \
    "vpsrlq $26,%%ymm10,%%ymm15\n\t"                                        \
    "vpand " K_MASK ",%%ymm10," x0 "\n\t"                                   \
    "vpaddq %%ymm15,%%ymm11,%%ymm11\n\t"                                    \
    "vpsrlq $26,%%ymm11,%%ymm15\n\t"                                        \
    "vpand " K_MASK ",%%ymm11," x1 "\n\t"                                   \
    "vpaddq %%ymm15,%%ymm12,%%ymm12\n\t"                                    \
    "vpsrlq $26,%%ymm12,%%ymm15\n\t"                                        \
    "vpand " K_MASK ",%%ymm12," x2 "\n\t"                                   \
    "vpaddq %%ymm15,%%ymm13,%%ymm13\n\t"                                    \
    "vpsrlq $26,%%ymm13,%%ymm15\n\t"                                        \
    "vpand " K_MASK ",%%ymm13," x3 "\n\t"                                   \
    "vpaddq %%ymm15,%%ymm14,%%ymm14\n\t"                                    \
    "vpsrlq $26,%%ymm14,%%ymm15\n\t"                                        \
    "vpand " K_MASK ",%%ymm14," x4 "\n\t"                                   \
    "vpsllq $2,%%ymm15,%%ymm10\n\t"                                         \
    "vpaddq %%ymm15,%%ymm10,%%ymm10\n\t"                                    \
    "vpaddq %%ymm10," x0 "," x0 "\n\t"                                      \
    "vpsrlq $26," x0 ",%%ymm15\n\t"                                         \
    "vpand " K_MASK "," x0 "," x0 "\n\t"                                    \
    "vpaddq %%ymm15," x1 "," x1 "\n\t"

/* expand the register lists before the kernel macros see them */
#define K_X(m, ...) m(__VA_ARGS__)
#define K_SET_A "%%ymm0", "%%ymm1", "%%ymm2", "%%ymm3", "%%ymm4"
#define K_SET_B "%%ymm5", "%%ymm6", "%%ymm7", "%%ymm8", "%%ymm9"
#define K_LOAD_A(s)                                                         \
    "vmovdqu 0*32(" s "),%%ymm0\n\t" "vmovdqu 1*32(" s "),%%ymm1\n\t"       \
    "vmovdqu 2*32(" s "),%%ymm2\n\t" "vmovdqu 3*32(" s "),%%ymm3\n\t"       \
    "vmovdqu 4*32(" s "),%%ymm4\n\t"
#define K_STORE_A(s)                                                        \
    "vmovdqu %%ymm0,0*32(" s ")\n\t" "vmovdqu %%ymm1,1*32(" s ")\n\t"       \
    "vmovdqu %%ymm2,2*32(" s ")\n\t" "vmovdqu %%ymm3,3*32(" s ")\n\t"       \
    "vmovdqu %%ymm4,4*32(" s ")\n\t"
#define K_LOAD_B(s)                                                         \
    "vmovdqu 5*32(" s "),%%ymm5\n\t" "vmovdqu 6*32(" s "),%%ymm6\n\t"       \
    "vmovdqu 7*32(" s "),%%ymm7\n\t" "vmovdqu 8*32(" s "),%%ymm8\n\t"       \
    "vmovdqu 9*32(" s "),%%ymm9\n\t"
#define K_STORE_B(s)                                                        \
    "vmovdqu %%ymm5,5*32(" s ")\n\t" "vmovdqu %%ymm6,6*32(" s ")\n\t"       \
    "vmovdqu %%ymm7,7*32(" s ")\n\t" "vmovdqu %%ymm8,8*32(" s ")\n\t"       \
    "vmovdqu %%ymm9,9*32(" s ")\n\t"

#define K_CLOBBERS                                                          \
    "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", \
    "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15",          \
    "memory", "cc"

/*
 * np >= 1 times: A = carry(A r^8 + next four blocks), then the same for B.
 * st: A limbs in rows 0-4, B in rows 5-9. First builds the r^8 table t8 as
 * r^4 * r^4 from the r^4 table t4 (each limb of r^8 < 2^26 + 2^7).
 */
static void kernel_pairs(uint64_t st[10][4], const uint64_t t4[9][4],
                         uint64_t t8[9][4], const uint64_t k[2][4],
                         const uint8_t *in, size_t np)
{
    __asm__ volatile(
        K_LOAD_A("%[t]")
        K_X(K_PRODUCTS, "%[t]", K_SET_A)
        K_X(K_CARRY, K_SET_A)
        K_STORE_A("%[e]")
        "vpsllq $2,%%ymm1,%%ymm11\n\t"
        "vpsllq $2,%%ymm2,%%ymm12\n\t"
        "vpsllq $2,%%ymm3,%%ymm13\n\t"
        "vpsllq $2,%%ymm4,%%ymm14\n\t"
        "vpaddq %%ymm1,%%ymm11,%%ymm11\n\t"
        "vpaddq %%ymm2,%%ymm12,%%ymm12\n\t"
        "vpaddq %%ymm3,%%ymm13,%%ymm13\n\t"
        "vpaddq %%ymm4,%%ymm14,%%ymm14\n\t"
        "vmovdqu %%ymm11,5*32(%[e])\n\t"
        "vmovdqu %%ymm12,6*32(%[e])\n\t"
        "vmovdqu %%ymm13,7*32(%[e])\n\t"
        "vmovdqu %%ymm14,8*32(%[e])\n\t"
        K_LOAD_A("%[s]") K_LOAD_B("%[s]")
        ".p2align 4\n"
        "1:\n\t"
        K_X(K_PRODUCTS, "%[e]", K_SET_A)
        K_MESSAGE("%%ymm0", "%%ymm1", "%%ymm2", "%%ymm3", "0", "32")
        K_X(K_CARRY, K_SET_A)
        K_X(K_PRODUCTS, "%[e]", K_SET_B)
        K_MESSAGE("%%ymm5", "%%ymm6", "%%ymm7", "%%ymm8", "64", "96")
        K_X(K_CARRY, K_SET_B)
        "add $128,%[in]\n\t"
        "dec %[n]\n\t"
        "jnz 1b\n\t"
        K_STORE_A("%[s]") K_STORE_B("%[s]")
        : [in] "+r"(in), [n] "+r"(np)
        : [s] "r"(st), [t] "r"(t4), [e] "r"(t8), [k] "r"(k)
        : K_CLOBBERS);
}

/* A = carry(A r^4 + B): two sets become one pending four-lane sum. */
static void kernel_merge(uint64_t st[10][4], const uint64_t t4[9][4],
                         const uint64_t k[2][4])
{
    __asm__ volatile(
        K_LOAD_A("%[s]")
        K_X(K_PRODUCTS, "%[t]", K_SET_A)
        "vpaddq 5*32(%[s]),%%ymm10,%%ymm10\n\t"
        "vpaddq 6*32(%[s]),%%ymm11,%%ymm11\n\t"
        "vpaddq 7*32(%[s]),%%ymm12,%%ymm12\n\t"
        "vpaddq 8*32(%[s]),%%ymm13,%%ymm13\n\t"
        "vpaddq 9*32(%[s]),%%ymm14,%%ymm14\n\t"
        K_X(K_CARRY, K_SET_A)
        K_STORE_A("%[s]")
        :
        : [s] "r"(st), [t] "r"(t4), [k] "r"(k)
        : K_CLOBBERS);
}

/*
 * The split of LOAD_4BLOCKS in assembly, added to x0-x4 (a clean pending
 * sum, each limb < 2^27 with the h it is added to); uses ymm5-7, ymm10-11.
 */
#define K_MESSAGE_CLEAN(off_lo, off_hi)                                     \
    "vmovdqu " off_lo "(%[in]),%%ymm5\n\t"                                  \
    "vpunpcklqdq " off_hi "(%[in]),%%ymm5,%%ymm6\n\t"                       \
    "vpunpckhqdq " off_hi "(%[in]),%%ymm5,%%ymm7\n\t"                       \
    "vpand " K_MASK ",%%ymm6,%%ymm10\n\t"                                   \
    "vpaddq %%ymm10,%%ymm0,%%ymm0\n\t"                                      \
    "vpsrlq $26,%%ymm6,%%ymm10\n\t"                                         \
    "vpand " K_MASK ",%%ymm10,%%ymm10\n\t"                                  \
    "vpaddq %%ymm10,%%ymm1,%%ymm1\n\t"                                      \
    "vpsrlq $52,%%ymm6,%%ymm10\n\t"                                         \
    "vpsllq $12,%%ymm7,%%ymm11\n\t"                                         \
    "vpor %%ymm11,%%ymm10,%%ymm10\n\t"                                      \
    "vpand " K_MASK ",%%ymm10,%%ymm10\n\t"                                  \
    "vpaddq %%ymm10,%%ymm2,%%ymm2\n\t"                                      \
    "vpsrlq $14,%%ymm7,%%ymm10\n\t"                                         \
    "vpand " K_MASK ",%%ymm10,%%ymm10\n\t"                                  \
    "vpaddq %%ymm10,%%ymm3,%%ymm3\n\t"                                      \
    "vpsrlq $40,%%ymm7,%%ymm10\n\t"                                         \
    "vpaddq " K_HIBIT ",%%ymm10,%%ymm10\n\t"                                \
    "vpaddq %%ymm10,%%ymm4,%%ymm4\n\t"

/*
 * From a pending set A in ymm0-4: n >= 0 times A = carry(A r^4 + next four
 * blocks); then A times the lane powers (r^4, r^2, r^3, r^1), summed over
 * the lanes into o0-o4 (each < 2^60).
 */
#define K_TAIL                                                              \
        "test %[n],%[n]\n\t"                                                \
        "jz 2f\n\t"                                                         \
        ".p2align 4\n"                                                      \
        "1:\n\t"                                                            \
        K_MESSAGE_FIRST("0", "32")                                          \
        K_X(K_PRODUCTS_ADD, "%[t]", K_SET_A)                                \
        K_X(K_CARRY, K_SET_A)                                               \
        "add $64,%[in]\n\t"                                                 \
        "dec %[n]\n\t"                                                      \
        "jnz 1b\n"                                                          \
        "2:\n\t"                                                            \
        K_X(K_PRODUCTS, "%[p]", K_SET_A)                                    \
        /* horizontal sums of ymm10-14 */                                   \
        "vextracti128 $1,%%ymm10,%%xmm0\n\t"                                \
        "vextracti128 $1,%%ymm11,%%xmm1\n\t"                                \
        "vextracti128 $1,%%ymm12,%%xmm2\n\t"                                \
        "vextracti128 $1,%%ymm13,%%xmm3\n\t"                                \
        "vextracti128 $1,%%ymm14,%%xmm4\n\t"                                \
        "vpaddq %%xmm0,%%xmm10,%%xmm10\n\t"                                 \
        "vpaddq %%xmm1,%%xmm11,%%xmm11\n\t"                                 \
        "vpaddq %%xmm2,%%xmm12,%%xmm12\n\t"                                 \
        "vpaddq %%xmm3,%%xmm13,%%xmm13\n\t"                                 \
        "vpaddq %%xmm4,%%xmm14,%%xmm14\n\t"                                 \
        "vpshufd $0x4e,%%xmm10,%%xmm0\n\t"                                  \
        "vpshufd $0x4e,%%xmm11,%%xmm1\n\t"                                  \
        "vpshufd $0x4e,%%xmm12,%%xmm2\n\t"                                  \
        "vpshufd $0x4e,%%xmm13,%%xmm3\n\t"                                  \
        "vpshufd $0x4e,%%xmm14,%%xmm4\n\t"                                  \
        "vpaddq %%xmm0,%%xmm10,%%xmm10\n\t"                                 \
        "vpaddq %%xmm1,%%xmm11,%%xmm11\n\t"                                 \
        "vpaddq %%xmm2,%%xmm12,%%xmm12\n\t"                                 \
        "vpaddq %%xmm3,%%xmm13,%%xmm13\n\t"                                 \
        "vpaddq %%xmm4,%%xmm14,%%xmm14\n\t"                                 \
        "vmovq %%xmm10,%[o0]\n\t"                                           \
        "vmovq %%xmm11,%[o1]\n\t"                                           \
        "vmovq %%xmm12,%[o2]\n\t"                                           \
        "vmovq %%xmm13,%[o3]\n\t"                                           \
        "vmovq %%xmm14,%[o4]\n\t"

/* the outputs of K_TAIL, and their copy to out[] */
#define K_TAIL_OUTPUTS \
    [in] "+r"(in), [n] "+r"(n), [o0] "=r"(o0), [o1] "=r"(o1), \
    [o2] "=r"(o2), [o3] "=r"(o3), [o4] "=r"(o4)
#define K_TAIL_OUT(out) \
    do { \
        out[0] = o0; out[1] = o1; out[2] = o2; out[3] = o3; out[4] = o4; \
    } while (0)

/* kernel_tail() from the pending set A in st rows 0-4 */
static void kernel_tail(const uint64_t st[10][4], const uint64_t t4[9][4],
                        const uint64_t pw[9][4], const uint64_t k[2][4],
                        const uint8_t *in, size_t n, uint64_t out[5])
{
    uint64_t o0, o1, o2, o3, o4;

    __asm__ volatile(
        K_LOAD_A("%[s]")
        K_TAIL
        : K_TAIL_OUTPUTS
        : [s] "r"(st), [t] "r"(t4), [p] "r"(pw), [k] "r"(k)
        : K_CLOBBERS);
    K_TAIL_OUT(out);
}

/*
 * The same from h (26-bit limbs hl, entering lane 0) and n >= 1 groups:
 * A = h + the first four blocks, then as kernel_tail() for the other n - 1.
 */
static void kernel_single(const uint64_t hl[5], const uint64_t t4[9][4],
                          const uint64_t pw[9][4], const uint64_t k[2][4],
                          const uint8_t *in, size_t n, uint64_t out[5])
{
    uint64_t o0, o1, o2, o3, o4;

    n--;
    __asm__ volatile(
        "vmovq 0*8(%[h]),%%xmm0\n\t"
        "vmovq 1*8(%[h]),%%xmm1\n\t"
        "vmovq 2*8(%[h]),%%xmm2\n\t"
        "vmovq 3*8(%[h]),%%xmm3\n\t"
        "vmovq 4*8(%[h]),%%xmm4\n\t"
        K_MESSAGE_CLEAN("0", "32")
        "add $64,%[in]\n\t"
        K_TAIL
        : K_TAIL_OUTPUTS
        : [h] "r"(hl), [t] "r"(t4), [p] "r"(pw), [k] "r"(k)
        : K_CLOBBERS);
    K_TAIL_OUT(out);
}

/* Absorb 4 * ng blocks (ng >= 1). */
static __attribute__((noinline))
void vector_blocks(poly1305_avx2_st *p, const uint8_t *in, size_t ng,
                   uint64_t padbit)
{
    const __m256i mask26 = _mm256_set1_epi64x(M26);
    const __m256i hibit = _mm256_set1_epi64x((long long)(padbit << 24));
    _Alignas(32) uint64_t t4[9][4];      /* r^4 in every lane */
    _Alignas(32) uint64_t k[2][4];
    __m256i m0, m1, m2, m3, m4;
    uint64_t l[5], t[5];
    int i;

    if (!p->have_powers)
        compute_powers(p);
    _mm256_store_si256((__m256i *)k[0], mask26);
    _mm256_store_si256((__m256i *)k[1], hibit);
    for (i = 0; i < 9; i++)
        _mm256_store_si256((__m256i *)t4[i],
                           _mm256_set1_epi64x((long long)p->pw[i][0]));

    to_26(l, p->sc.h[0], p->sc.h[1], p->sc.h[2]);
    if (ng - 1 < POLY1305_AVX2_PAIR_MIN) {
        kernel_single(l, (const uint64_t (*)[4])t4,
                      (const uint64_t (*)[4])p->pw, (const uint64_t (*)[4])k,
                      in, ng, t);
    } else {
        _Alignas(32) uint64_t t8[9][4];      /* r^8 in every lane */
        _Alignas(32) uint64_t st[10][4];     /* sets A and B */
        size_t np;

        /* A = h (in lane 0) + the first four blocks: a pending sum */
        LOAD_4BLOCKS(m, in, hibit);
        _mm256_store_si256((__m256i *)st[0], _mm256_add_epi64(m0,
                           _mm256_setr_epi64x((long long)l[0], 0, 0, 0)));
        _mm256_store_si256((__m256i *)st[1], _mm256_add_epi64(m1,
                           _mm256_setr_epi64x((long long)l[1], 0, 0, 0)));
        _mm256_store_si256((__m256i *)st[2], _mm256_add_epi64(m2,
                           _mm256_setr_epi64x((long long)l[2], 0, 0, 0)));
        _mm256_store_si256((__m256i *)st[3], _mm256_add_epi64(m3,
                           _mm256_setr_epi64x((long long)l[3], 0, 0, 0)));
        _mm256_store_si256((__m256i *)st[4], _mm256_add_epi64(m4,
                           _mm256_setr_epi64x((long long)l[4], 0, 0, 0)));
        /* B = the next four blocks */
        LOAD_4BLOCKS(m, in + 64, hibit);
        _mm256_store_si256((__m256i *)st[5], m0);
        _mm256_store_si256((__m256i *)st[6], m1);
        _mm256_store_si256((__m256i *)st[7], m2);
        _mm256_store_si256((__m256i *)st[8], m3);
        _mm256_store_si256((__m256i *)st[9], m4);
        in += 128;
        ng -= 2;
        np = ng / 2;
        kernel_pairs(st, (const uint64_t (*)[4])t4, t8,
                     (const uint64_t (*)[4])k, in, np);
        in += 128 * np;
        ng -= 2 * np;
        kernel_merge(st, (const uint64_t (*)[4])t4, (const uint64_t (*)[4])k);
        kernel_tail((const uint64_t (*)[4])st, (const uint64_t (*)[4])t4,
                    (const uint64_t (*)[4])p->pw, (const uint64_t (*)[4])k,
                    in, ng, t);
        /* no key powers or accumulator left on the stack */
        chacha_wipe(t8, sizeof(t8));
        chacha_wipe(st, sizeof(st));
    }
    chacha_wipe(t4, sizeof(t4));
    chacha_wipe(l, sizeof(l));

    /* carry to 26-bit limbs (each sum < 2^61), then repack to 2^64 */
    poly1305_r64_from_26(&p->sc, t);
}

static void avx2_init(poly1305_state *st, const uint8_t key[32])
{
    poly1305_avx2_st *p = (poly1305_avx2_st *)st->opaque;

    poly1305_r64_init(&p->sc, key);
    p->have_powers = 0;
    p->seen = 0;
}

/*
 * The vector path runs out of line (inlined, clang 14 spilled r in the
 * scalar path beside it). Built with clang 14 it leaves a word of r in its
 * frame (test_stack_residue found it), which its caller
 * burns: frame 1112 bytes (-fstack-usage) + red zone + 64. GCC 12 leaves
 * nothing there, and its builds skip the burn.
 */
#ifdef __clang__
# define BURN_VECTOR (1112 + 128 + 64)
#else
# define BURN_VECTOR 0
#endif

static void avx2_blocks(poly1305_state *st, const uint8_t *in, size_t len,
                        uint32_t padbit)
{
    poly1305_avx2_st *p = (poly1305_avx2_st *)st->opaque;
    size_t nb = len / 16;

    /* the branch depends only on the public length */
    p->seen += len;
    if (len >= POLY1305_AVX2_MIN_WARM
        && (p->have_powers || p->seen >= POLY1305_AVX2_MIN)) {
        size_t ng = nb / 4;

        vector_blocks(p, in, ng, padbit);
        if (BURN_VECTOR > 0)
            chacha_burn_stack(BURN_VECTOR);
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
        chacha_wipe(st->opaque, WIPE_ALL);
    else
        chacha_wipe(st->opaque, WIPE_SC);
}

const poly1305_kernel poly1305_avx2_kernel = {
    .name = "avx2",
    .caps = CHACHA_CAP_AVX2,
    .init = avx2_init,
    .blocks = avx2_blocks,
    .emit = avx2_emit,
};
