/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Scalar Poly1305 in radix 2^64 (two 64-bit words plus a few bits), with a
 * 128-bit multiply: the portable 64-bit kernel, and the short-input path of
 * the SIMD kernels. Constant time: no branch or index depends on key or
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
#if defined(__aarch64__) && defined(__GNUC__) && !defined(__ARM_BIG_ENDIAN)
/*
 * AArch64: the same step in assembly, its carries on the flags (adds, adcs,
 * adc): GCC 12 builds those of the C below with cset and cinc, 35
 * instructions a block against 30 here (llvm-mca, bench/arm-mca.sh:
 * Cortex-A57 model 1.25 vs 1.56 cycles/byte, A53 model 2.25 vs 2.81). Same
 * products and partial reduction, so the accumulator is bit-identical to
 * the C step after every block. One block, h = (h + m) r at [in] (which
 * advances by 16), for asm statements with the operands of
 * POLY1305_R64_A64_OUT / _IN, extra (an instruction or "") in its one free
 * issue slot; it also serves the NEON fused AEAD kernel.
 * The order is for in-order cores (searched with llvm-mca's Cortex-A53
 * model): each product issues as soon as its operands exist.
 */
#define POLY1305_R64_A64_STEP(extra) \
    "ldp    %[m0], %[m1], [%[in]], #16\n\t" \
    /* h += m + 2^128 padbit (h2 <= 4 before, so at most 6 after) */ \
    "adds   %[h0], %[h0], %[m0]\n\t" \
    "mul    %[t0], %[h0], %[r0]\n\t" \
    "adcs   %[h1], %[h1], %[m1]\n\t" \
    "umulh  %[t3], %[h0], %[r1]\n\t" \
    "umulh  %[t1], %[h0], %[r0]\n\t" \
    "mul    %[t2], %[h1], %[s1]\n\t" \
    "umulh  %[m1], %[h1], %[s1]\n\t" \
    "adc    %[h2], %[h2], %[pad]\n\t" \
    /* t0 + 2^64 t1 = h0 r0 + h1 s1 */ \
    "adds   %[t0], %[t0], %[t2]\n\t" \
    "mul    %[t2], %[h0], %[r1]\n\t" \
    "adc    %[t1], %[t1], %[m1]\n\t" \
    /* t1 + 2^64 t3 += h0 r1 + h1 r0 + h2 s1 + 2^64 h2 r0 */ \
    "adds   %[t1], %[t1], %[t2]\n\t" \
    "mul    %[t2], %[h1], %[r0]\n\t" \
    extra \
    "umulh  %[m1], %[h1], %[r0]\n\t" \
    "adc    %[t3], %[t3], xzr\n\t" \
    "adds   %[t1], %[t1], %[t2]\n\t" \
    "mul    %[t2], %[h2], %[s1]\n\t" \
    "adc    %[t3], %[t3], %[m1]\n\t" \
    "adds   %[t1], %[t1], %[t2]\n\t" \
    "mul    %[m1], %[h2], %[r0]\n\t" \
    "adc    %[t3], %[t3], %[m1]\n\t" \
    /* fold the bits from 2^130 up: (t3 >> 2) * 2^130 = (t3 >> 2) * 5 */ \
    "and    %[t2], %[t3], #-4\n\t" \
    "and    %[h2], %[t3], #3\n\t" \
    "add    %[t2], %[t2], %[t3], lsr #2\n\t" \
    "adds   %[h0], %[t0], %[t2]\n\t" \
    "adcs   %[h1], %[t1], xzr\n\t" \
    "adc    %[h2], %[h2], xzr\n\t"
#define POLY1305_R64_A64_OUT(H0, H1, H2, IN, M0, M1, T0, T1, T2, T3) \
    [h0] "+&r"(H0), [h1] "+&r"(H1), [h2] "+&r"(H2), [in] "+&r"(IN), \
    [m0] "=&r"(M0), [m1] "=&r"(M1), [t0] "=&r"(T0), [t1] "=&r"(T1), \
    [t2] "=&r"(T2), [t3] "=&r"(T3)
#define POLY1305_R64_A64_IN(R0, R1, S1, PAD) \
    [r0] "r"(R0), [r1] "r"(R1), [s1] "r"(S1), [pad] "r"(PAD)

static inline void poly1305_r64_blocks(poly1305_r64 *p, const uint8_t *in,
                                       size_t nb, uint64_t padbit)
{
    uint64_t h0 = p->h[0], h1 = p->h[1], h2 = p->h[2];
    const uint64_t r0 = p->r[0], r1 = p->r[1], s1 = r1 + (r1 >> 2);
    uint64_t m0, m1, t0, t1, t2, t3;

    if (nb == 0)
        return;
    __asm__("1:\n\t"
            POLY1305_R64_A64_STEP("sub    %[nb], %[nb], #1\n\t")
            "cbnz   %[nb], 1b"
            : POLY1305_R64_A64_OUT(h0, h1, h2, in, m0, m1, t0, t1, t2, t3),
              [nb] "+&r"(nb)
            : POLY1305_R64_A64_IN(r0, r1, s1, padbit)
            : "cc", "memory");
    p->h[0] = h0;
    p->h[1] = h1;
    p->h[2] = h2;
}
#elif defined(__x86_64__) && defined(__GNUC__)
/*
 * x86-64: the same step in assembly, with mulq (any x86-64, no BMI2) and the
 * carries on the flags. GCC 12 builds the C below with setb/movzbl carries
 * and parks a product word on the stack inside the loop (a store and reload
 * on the accumulator's chain): 22 cycles a block on Zen 4. Here the chain is
 * the message add, four multiplies through one multiplier, the two column
 * sums and the fold. Same products and partial reduction as
 * poly1305_r64_mul(), so the accumulator is bit-identical to the C step
 * after every block. r0, r1, s1 and padbit may sit in memory: they are read
 * off the chain.
 */
static inline void poly1305_r64_blocks(poly1305_r64 *p, const uint8_t *in,
                                       size_t nb, uint64_t padbit)
{
    uint64_t h0 = p->h[0], h1 = p->h[1], h2 = p->h[2];
    /*
     * r0 and r1 are read from the state (wiped at emit), s1 from a named
     * local wiped below: given "rm", clang 14 put copies of r in stack
     * slots no wipe reached (test_stack_residue, clang build).
     */
    volatile uint64_t s1[1];
    uint64_t a0, a1, b0, b1;

    if (nb == 0)
        return;
    s1[0] = p->r[1] + (p->r[1] >> 2);
    __asm__("1:\n\t"
            /* h += m + 2^128 padbit (h2 <= 4 before, so at most 6 after) */
            "addq   (%[in]), %[h0]\n\t"
            "adcq   8(%[in]), %[h1]\n\t"
            "adcq   %[pad], %[h2]\n\t"
            /* a1:a0 = h0 r0 + h1 s1, b1:b0 = h0 r1 + h1 r0 (both < 2^126) */
            "movq   %[h0], %%rax\n\t"
            "mulq   %[r0]\n\t"
            "movq   %%rax, %[a0]\n\t"
            "movq   %%rdx, %[a1]\n\t"
            "movq   %[h0], %%rax\n\t"
            "mulq   %[r1]\n\t"
            "movq   %%rax, %[b0]\n\t"
            "movq   %%rdx, %[b1]\n\t"
            "movq   %[h1], %%rax\n\t"
            "mulq   %[s1]\n\t"
            "addq   %%rax, %[a0]\n\t"
            "adcq   %%rdx, %[a1]\n\t"
            "movq   %[h1], %%rax\n\t"
            "mulq   %[r0]\n\t"
            "addq   %%rax, %[b0]\n\t"
            "adcq   %%rdx, %[b1]\n\t"
            /* b += a1 + h2 s1 + 2^64 h2 r0 (h0, h1 are free now) */
            "movq   %[h2], %[h1]\n\t"
            "imulq  %[s1], %[h1]\n\t"
            "imulq  %[r0], %[h2]\n\t"
            "addq   %[a1], %[b0]\n\t"
            "adcq   %[h2], %[b1]\n\t"
            "addq   %[h1], %[b0]\n\t"
            "adcq   $0, %[b1]\n\t"
            /* fold the bits from 2^130 up: (b1 >> 2) * 2^130 = (b1 >> 2) * 5 */
            "movq   %[b1], %[h2]\n\t"
            "andq   $3, %[h2]\n\t"
            "movq   %[b1], %%rax\n\t"
            "andq   $-4, %%rax\n\t"
            "shrq   $2, %[b1]\n\t"
            "addq   %%rax, %[b1]\n\t"
            "movq   %[a0], %[h0]\n\t"
            "movq   %[b0], %[h1]\n\t"
            "addq   %[b1], %[h0]\n\t"
            "adcq   $0, %[h1]\n\t"
            "adcq   $0, %[h2]\n\t"
            "leaq   16(%[in]), %[in]\n\t"
            "decq   %[nb]\n\t"
            "jnz    1b"
            : [h0] "+&r"(h0), [h1] "+&r"(h1), [h2] "+&r"(h2), [in] "+&r"(in),
              [nb] "+&r"(nb), [a0] "=&r"(a0), [a1] "=&r"(a1),
              [b0] "=&r"(b0), [b1] "=&r"(b1)
            : [r0] "m"(p->r[0]), [r1] "m"(p->r[1]), [s1] "m"(s1[0]),
              [pad] "rm"(padbit)
            : "rax", "rdx", "cc", "memory");
    s1[0] = 0;
    p->h[0] = h0;
    p->h[1] = h1;
    p->h[2] = h2;
}
#else
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
#endif

/*
 * The accumulator as five 26-bit limbs, for the vector kernels (the top one
 * takes the few bits of h[2] too), and back: t[] any limbs whose sum of
 * t[i] 2^(26 i) is h, each below 2^61, carried and repacked to radix 2^64.
 */
static inline void poly1305_r64_to_26(const poly1305_r64 *p, uint32_t l[5])
{
    l[0] = (uint32_t)p->h[0] & 0x3ffffff;
    l[1] = (uint32_t)(p->h[0] >> 26) & 0x3ffffff;
    l[2] = (uint32_t)((p->h[0] >> 52) | (p->h[1] << 12)) & 0x3ffffff;
    l[3] = (uint32_t)(p->h[1] >> 14) & 0x3ffffff;
    l[4] = (uint32_t)((p->h[1] >> 40) | (p->h[2] << 24));
}

static inline void poly1305_r64_from_26(poly1305_r64 *p, uint64_t t[5])
{
    uint64_t c;
    poly1305_u128 acc;

    c = t[0] >> 26; t[0] &= 0x3ffffff; t[1] += c;
    c = t[1] >> 26; t[1] &= 0x3ffffff; t[2] += c;
    c = t[2] >> 26; t[2] &= 0x3ffffff; t[3] += c;
    c = t[3] >> 26; t[3] &= 0x3ffffff; t[4] += c;
    c = t[4] >> 26; t[4] &= 0x3ffffff; t[0] += c * 5;
    c = t[0] >> 26; t[0] &= 0x3ffffff; t[1] += c;
    acc = (poly1305_u128)t[0] + ((poly1305_u128)t[1] << 26)
          + ((poly1305_u128)t[2] << 52);
    p->h[0] = (uint64_t)acc;
    acc = (acc >> 64) + ((poly1305_u128)t[3] << 14) + ((poly1305_u128)t[4] << 40);
    p->h[1] = (uint64_t)acc;
    p->h[2] = (uint64_t)(acc >> 64);
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
