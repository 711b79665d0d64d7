/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The AVX2 instantiation of the x86 ChaCha20 template, shared by the AVX2
 * kernel (chacha20_avx2.c) and the fused AVX2 ChaCha20-Poly1305 kernel
 * (chacha20_poly1305_avx2.c): 128- and 256-bit round code, the VEX forms of
 * the round assembly, the 8-block setup and output. Included by files built
 * with -mavx2.
 */
#ifndef CHACHA_ASM_CHACHA20_AVX2_H
#define CHACHA_ASM_CHACHA20_AVX2_H

#include <immintrin.h>
#include "kernel.h"
#include "util.h"

/* 128-bit instantiation (VEX encoded here): the one-block path */
#include "chacha20_x86_x128.h"

static const __m256i rot_masks[2] = {
    { CT_ROT16_LO, CT_ROT16_HI, CT_ROT16_LO, CT_ROT16_HI },
    { CT_ROT8_LO, CT_ROT8_HI, CT_ROT8_LO, CT_ROT8_HI }
};

/* the 20 rounds of the 8-block kernel, plus a scalar ninth block if scalar */
#define CTA_FN y256_rounds_asm
#define CTA_WIDTH CHACHA_BLOCKS(4)
#include "chacha20_x86_rounds.h"
/*
 * The same rounds with the output written from the registers and the key
 * rows broadcast from the key (the 8-block kernel's full passes)
 */
#define CTA_FN y256_rounds_emit
#define CTA_WIDTH CHACHA_BLOCKS(4)
#define CTA_EMIT8 1
#define CTA_KEY_ROWS 1
#include "chacha20_x86_rounds.h"
#define CTA_FN y256_rounds_asm_ninth
#define CTA_WIDTH CHACHA_BLOCKS(4)
#define CTA_NINTH_BLOCK 1
#include "chacha20_x86_rounds.h"
#define CT_VROUNDS(st, scalar) \
    do { \
        if (scalar) \
            y256_rounds_asm_ninth(st); \
        else \
            y256_rounds_asm(st); \
    } while (0)

/* 256-bit instantiation */
#define CT_PFX y256
#define CT_V __m256i
#define CT_LANES 8
#define CT_ADD(a, b) _mm256_add_epi32(a, b)
#define CT_XOR(a, b) _mm256_xor_si256(a, b)
#define CT_ROT16(x) _mm256_shuffle_epi8(x, _mm256_set_epi64x(CT_ROT16_HI, \
    CT_ROT16_LO, CT_ROT16_HI, CT_ROT16_LO))
#define CT_ROT8(x) _mm256_shuffle_epi8(x, _mm256_set_epi64x(CT_ROT8_HI, \
    CT_ROT8_LO, CT_ROT8_HI, CT_ROT8_LO))
#define CT_ROTL(x, n) \
    _mm256_or_si256(_mm256_slli_epi32(x, n), _mm256_srli_epi32(x, 32 - (n)))
#define CT_SHUF(x, imm) _mm256_shuffle_epi32(x, imm)
#define CT_UNPACKLO32(a, b) _mm256_unpacklo_epi32(a, b)
#define CT_UNPACKHI32(a, b) _mm256_unpackhi_epi32(a, b)
#define CT_UNPACKLO64(a, b) _mm256_unpacklo_epi64(a, b)
#define CT_UNPACKHI64(a, b) _mm256_unpackhi_epi64(a, b)

#include "chacha20_x86_template.h"

/*
 * The horizontal rounds of three ymm sets (six blocks) in inline assembly:
 * y256_hrounds() from intrinsics needs the 12 rows, two masks and a rotate
 * temporary, and gcc 12 spilled rows inside the loop, putting stores and
 * reloads on the chains (Zen 3: 5 blocks 406 TSC ticks against 328 for 4).
 * Here the rows stay in registers, the masks are memory operands. A
 * step is H3_AD (a += b; d ^= a; d = rotl(d, 16 or 8)) or H3_CB (c += d;
 * b ^= c; b = rotl(b, 12 or 7)) on the three sets in turn.
 */
#define H3_AD1(a, b, d, m) \
    "vpaddd %[" b "], %[" a "], %[" a "]\n\t" \
    "vpxor %[" a "], %[" d "], %[" d "]\n\t" \
    "vpshufb %[" m "], %[" d "], %[" d "]\n\t"
#define H3_CB1(b, c, d, t, n) \
    "vpaddd %[" d "], %[" c "], %[" c "]\n\t" \
    "vpxor %[" c "], %[" b "], %[" b "]\n\t" \
    "vpslld $" #n ", %[" b "], %[" t "]\n\t" \
    "vpsrld $32-" #n ", %[" b "], %[" b "]\n\t" \
    "vpor %[" t "], %[" b "], %[" b "]\n\t"
#define H3_AD(m) H3_AD1("a0", "b0", "d0", m) H3_AD1("a1", "b1", "d1", m) \
    H3_AD1("a2", "b2", "d2", m)
#define H3_CB(n) H3_CB1("b0", "c0", "d0", "t0", n) \
    H3_CB1("b1", "c1", "d1", "t1", n) H3_CB1("b2", "c2", "d2", "t0", n)
#define H3_SHUF1(r, imm) "vpshufd $" #imm ", %[" r "], %[" r "]\n\t"
#define H3_SHUF(ia, ic, id) \
    H3_SHUF1("a0", ia) H3_SHUF1("c0", ic) H3_SHUF1("d0", id) \
    H3_SHUF1("a1", ia) H3_SHUF1("c1", ic) H3_SHUF1("d1", id) \
    H3_SHUF1("a2", ia) H3_SHUF1("c2", ic) H3_SHUF1("d2", id)
#define H3_QR H3_AD("m16") H3_CB(12) H3_AD("m8") H3_CB(7)

/* y256_hrounds(v, 3): the 20 rounds and the feed-forward */
CHACHA_INLINE void y256_hrounds3(__m256i v[12])
{
    __m256i a0 = v[0], b0 = v[1], c0 = v[2], d0 = v[3];
    __m256i a1 = v[4], b1 = v[5], c1 = v[6], d1 = v[7];
    __m256i a2 = v[8], b2 = v[9], c2 = v[10], d2 = v[11];
    __m256i t0, t1;
    unsigned int n;

    __asm__("movl $10, %[n]\n\t"
            ".p2align 4\n"
            "1:\n\t"
            /* columns; diagonals by rotating a, c, d (b finishes last) */
            H3_QR H3_SHUF(0x93, 0x39, 0x4e)
            H3_QR H3_SHUF(0x39, 0x93, 0x4e)
            "decl %[n]\n\t"
            "jnz 1b"
            : [a0] "+x"(a0), [b0] "+x"(b0), [c0] "+x"(c0), [d0] "+x"(d0),
              [a1] "+x"(a1), [b1] "+x"(b1), [c1] "+x"(c1), [d1] "+x"(d1),
              [a2] "+x"(a2), [b2] "+x"(b2), [c2] "+x"(c2), [d2] "+x"(d2),
              [t0] "=&x"(t0), [t1] "=&x"(t1), [n] "=&r"(n)
            : [m16] "m"(rot_masks[0]), [m8] "m"(rot_masks[1])
            : "cc");
    v[0] = _mm256_add_epi32(a0, v[0]); v[1] = _mm256_add_epi32(b0, v[1]);
    v[2] = _mm256_add_epi32(c0, v[2]); v[3] = _mm256_add_epi32(d0, v[3]);
    v[4] = _mm256_add_epi32(a1, v[4]); v[5] = _mm256_add_epi32(b1, v[5]);
    v[6] = _mm256_add_epi32(c1, v[6]); v[7] = _mm256_add_epi32(d1, v[7]);
    v[8] = _mm256_add_epi32(a2, v[8]); v[9] = _mm256_add_epi32(b2, v[9]);
    v[10] = _mm256_add_epi32(c2, v[10]); v[11] = _mm256_add_epi32(d2, v[11]);
}

#define LOADU256(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define STOREU256(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), v)
#define LOADU128(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define STOREU128(p, v) _mm_storeu_si128((__m128i *)(void *)(p), v)

/*
 * Rows r0..r3 hold one block in the low 128-bit lanes and another in the high
 * lanes: write the first at dst, the second at dst + hi (xored with src, or
 * plain keystream if src is NULL).
 */
CHACHA_INLINE
void emit_pair(uint8_t *dst, const uint8_t *src, size_t hi,
               __m256i r0, __m256i r1, __m256i r2, __m256i r3)
{
    __m256i k0 = _mm256_permute2x128_si256(r0, r1, 0x20);
    __m256i k1 = _mm256_permute2x128_si256(r2, r3, 0x20);
    __m256i k2 = _mm256_permute2x128_si256(r0, r1, 0x31);
    __m256i k3 = _mm256_permute2x128_si256(r2, r3, 0x31);

    if (src != NULL) {
        k0 = _mm256_xor_si256(k0, LOADU256(src));
        k1 = _mm256_xor_si256(k1, LOADU256(src + 32));
        k2 = _mm256_xor_si256(k2, LOADU256(src + hi));
        k3 = _mm256_xor_si256(k3, LOADU256(src + hi + 32));
    }
    STOREU256(dst, k0);
    STOREU256(dst + 32, k1);
    STOREU256(dst + hi, k2);
    STOREU256(dst + hi + 32, k3);
}

/*
 * The eight vertical blocks of st (after y256_vrounds) to dst, xored with src
 * (or plain keystream if src is NULL): bytes 0..31 of each block from word
 * groups 0 and 1, then bytes 32..63 from groups 2 and 3. Unrolled by hand:
 * gcc -O2 keeps the loops and spills the transposed rows.
 */
#define EMIT_ROW(j, h) \
    do { \
        size_t lo_ = CHACHA_BLOCK_LEN * (j) + 32 * (h), hi_ = lo_ + CHACHA_BLOCKS(4); \
        __m256i k0_ = _mm256_permute2x128_si256(r[j], q[j], 0x20); \
        __m256i k1_ = _mm256_permute2x128_si256(r[j], q[j], 0x31); \
        if (src != NULL) { \
            k0_ = _mm256_xor_si256(k0_, LOADU256(src + lo_)); \
            k1_ = _mm256_xor_si256(k1_, LOADU256(src + hi_)); \
        } \
        STOREU256(dst + lo_, k0_); \
        STOREU256(dst + hi_, k1_); \
    } while (0)
#define EMIT_HALF(h) \
    do { \
        y256_vgroup(r, st, 2 * (h)); \
        y256_vgroup(q, st, 2 * (h) + 1); \
        EMIT_ROW(0, h); EMIT_ROW(1, h); EMIT_ROW(2, h); EMIT_ROW(3, h); \
    } while (0)

CHACHA_INLINE
void emit8(uint8_t *dst, const uint8_t *src, const y256_state *st)
{
    __m256i r[4], q[4];

    EMIT_HALF(0);
    EMIT_HALF(1);
}

/*
 * The vertical input of eight blocks from block counter[0] on (lane i of
 * in[12] is counter[0] + i), and the rotate masks of the round assembly.
 */
CHACHA_INLINE
void y256_setup(y256_state *st, const uint32_t key[8], const uint32_t counter[4])
{
    int i;

    st->in[0] = _mm256_set1_epi32((int)CHACHA_SIGMA0);
    st->in[1] = _mm256_set1_epi32((int)CHACHA_SIGMA1);
    st->in[2] = _mm256_set1_epi32((int)CHACHA_SIGMA2);
    st->in[3] = _mm256_set1_epi32((int)CHACHA_SIGMA3);
    if (key != NULL)    /* NULL: rounds that broadcast the key rows themselves */
        for (i = 0; i < 8; i++)
            st->in[4 + i] = _mm256_set1_epi32((int)key[i]);
    st->in[12] = _mm256_add_epi32(_mm256_set1_epi32((int)counter[0]),
                                  _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    st->in[13] = _mm256_set1_epi32((int)counter[1]);
    st->in[14] = _mm256_set1_epi32((int)counter[2]);
    st->in[15] = _mm256_set1_epi32((int)counter[3]);
    st->m[0] = rot_masks[0];
    st->m[1] = rot_masks[1];
}

#endif
