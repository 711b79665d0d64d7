/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The scalar ChaCha20 steps of the AArch64 passes that run scalar blocks on
 * the integer pipes beside vector ones: a += b; d = (d ^ a) <<< n.
 *
 * SSTEP, the plain three instructions (add, eor, ror): neon_wide's passes
 * and its fused kernels'.
 *
 * SSTEP_PREROT, as d = (d <<< n) ^ (a <<< n): the rotation of the old d
 * waits only for d, so it runs off the step's chain, which is then the add
 * and one eor with a rotated operand: 2 cycles a step where add, eor, ror
 * take 3 (Neoverse N1, V1, V2) or 5 (N2, whose ror is 2 uops of 3 cycles)
 * in LLVM 19's models. The sve2 pass takes it (llvm-mca 19, 16 KiB, its
 * ChaCha20 cycles a byte on N2 1.65 -> 1.38, V2 unchanged); in neon_wide's
 * pass it cost N1 1.99 -> 2.18, V1 1.25 -> 1.26, N2 1.98 -> 2.18 (the NEON
 * rounds there are the chain; the temporaries press the registers), so
 * neon_wide keeps SSTEP. The eor is an asm statement so that the compiler
 * does not fold the two rotations back into one.
 *
 * And the rest of a scalar block, for every pass that runs one: its words
 * s0..s15 (S16_DECL, SCALAR_SET for a block counter), the word lists of its
 * column and diagonal quarter-rounds (SCALAR_COLUMNS, SCALAR_DIAGONALS, for
 * SROUND or a caller's own phases), and scalar_emit() for its keystream.
 */
#ifndef CHACHA_ASM_CHACHA20_A64_SCALAR_H
#define CHACHA_ASM_CHACHA20_A64_SCALAR_H

#if !defined(__aarch64__)
# error "chacha20_a64_scalar.h is AArch64 code"
#endif

#include <stdint.h>
#include <string.h>
#include "util.h"

#define SROTL(x, n) (((x) << (n)) | ((x) >> (32 - (n))))
#define SSTEP(a, b, d, n) do { a += b; d ^= a; d = SROTL(d, n); } while (0)
#define SSTEP_PREROT(a, b, d, n) \
    do { \
        uint32_t rd_ = SROTL(d, n); \
        a += b; \
        __asm__("eor %w0, %w1, %w2, ror #%3" \
                : "=r"(d) : "r"(rd_), "r"(a), "i"(32 - (n))); \
    } while (0)

/* a scalar block's sixteen words */
#define S16 s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, s12, s13, s14, s15
#define S16_PARAMS(T, s) \
    T s##0, T s##1, T s##2, T s##3, T s##4, T s##5, T s##6, T s##7, T s##8, \
    T s##9, T s##10, T s##11, T s##12, T s##13, T s##14, T s##15
#define S16_DECL uint32_t S16

/* its state for block counter c (key[] and counter[] in scope) */
#define SCALAR_SET(c) \
    do { \
        s0 = CHACHA_SIGMA0; s1 = CHACHA_SIGMA1; s2 = CHACHA_SIGMA2; s3 = CHACHA_SIGMA3; \
        s4 = key[0]; s5 = key[1]; s6 = key[2]; s7 = key[3]; \
        s8 = key[4]; s9 = key[5]; s10 = key[6]; s11 = key[7]; \
        s12 = (c); s13 = counter[1]; s14 = counter[2]; s15 = counter[3]; \
    } while (0)
#define SCALAR_INIT(c) S16_DECL; SCALAR_SET(c)

/* the (a, b, c, d) words of its four column and four diagonal quarter-rounds */
#define SCALAR_COLUMNS \
    s0, s4, s8, s12, s1, s5, s9, s13, s2, s6, s10, s14, s3, s7, s11, s15
#define SCALAR_DIAGONALS \
    s0, s5, s10, s15, s1, s6, s11, s12, s2, s7, s8, s13, s3, s4, s9, s14

/* one round of it, whole quarter-round after quarter-round, with STEP */
#define SQUARTER(STEP, a, b, c, d) \
    do { \
        STEP(a, b, d, 16); STEP(c, d, b, 12); STEP(a, b, d, 8); STEP(c, d, b, 7); \
    } while (0)
#define SROUND_(STEP, a0, b0, c0, d0, a1, b1, c1, d1, a2, b2, c2, d2, \
                a3, b3, c3, d3) \
    do { \
        SQUARTER(STEP, a0, b0, c0, d0); SQUARTER(STEP, a1, b1, c1, d1); \
        SQUARTER(STEP, a2, b2, c2, d2); SQUARTER(STEP, a3, b3, c3, d3); \
    } while (0)
#define SROUND(STEP, ...) SROUND_(STEP, __VA_ARGS__)

/*
 * out = in ^ the scalar block after its rounds (64 bytes), the feed-forward
 * from sigma, key, block counter ctr and counter[1..3]; words in pairs, in
 * general registers.
 */
static inline __attribute__((always_inline))
void scalar_emit(uint8_t *out, const uint8_t *in, const uint32_t key[8],
                 const uint32_t counter[4], uint32_t ctr, S16_PARAMS(uint32_t, s))
{
#define SPAIR(i, lo, hi) \
    do { \
        uint64_t v_; \
        memcpy(&v_, in + 8 * (i), 8); \
        v_ ^= (uint64_t)(lo) | (uint64_t)(hi) << 32; \
        memcpy(out + 8 * (i), &v_, 8); \
    } while (0)
    SPAIR(0, s0 + CHACHA_SIGMA0, s1 + CHACHA_SIGMA1);
    SPAIR(1, s2 + CHACHA_SIGMA2, s3 + CHACHA_SIGMA3);
    SPAIR(2, s4 + key[0], s5 + key[1]);
    SPAIR(3, s6 + key[2], s7 + key[3]);
    SPAIR(4, s8 + key[4], s9 + key[5]);
    SPAIR(5, s10 + key[6], s11 + key[7]);
    SPAIR(6, s12 + ctr, s13 + counter[1]);
    SPAIR(7, s14 + counter[2], s15 + counter[3]);
#undef SPAIR
}

#endif
