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
 */
#ifndef CHACHA_ASM_CHACHA20_A64_SCALAR_H
#define CHACHA_ASM_CHACHA20_A64_SCALAR_H

#if !defined(__aarch64__)
# error "chacha20_a64_scalar.h is AArch64 code"
#endif

#include <stdint.h>

#define SROTL(x, n) (((x) << (n)) | ((x) >> (32 - (n))))
#define SSTEP(a, b, d, n) do { a += b; d ^= a; d = SROTL(d, n); } while (0)
#define SSTEP_PREROT(a, b, d, n) \
    do { \
        uint32_t rd_ = SROTL(d, n); \
        a += b; \
        __asm__("eor %w0, %w1, %w2, ror #%3" \
                : "=r"(d) : "r"(rd_), "r"(a), "i"(32 - (n))); \
    } while (0)

#endif
