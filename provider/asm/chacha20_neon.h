/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CHACHA_ASM_CHACHA20_NEON_H
#define CHACHA_ASM_CHACHA20_NEON_H

/*
 * ChaCha20 with Advanced SIMD (NEON) intrinsics, one source for AArch64 and for
 * 32-bit ARMv7 (built with -mfpu=neon; chosen only when the CPU reports NEON).
 *
 * Two layouts, both built from one quarter-round step (STEP below):
 *  - vertical (AArch64): one vector per state word, one 32-bit lane per
 *    block, four blocks per 256-byte pass, no lane shuffles in the rounds;
 *  - rows (tails everywhere, ARMv7 bulk): one vector per state row, one to
 *    three blocks side by side, diagonals lined up with lane rotations (ext).
 * AArch64 bulk input runs both at once: a hybrid pass of four vertical and two
 * row blocks (384 bytes), the two layouts' steps interleaved. ARMv7 has no
 * hybrid: three rows plus a scalar block (tried, the round template on
 * 32-bit words) cost 9-25% fewer cycles a block on the only ARMv7 models
 * LLVM 14 has (Cortex-A9/A15, Swift, A57 in AArch32), but executed 11.1
 * instructions a byte against 6.3, with spills, and the in-order cores most
 * ARMv7 code runs on (A7, A53 in AArch32) have no model; on AArch64 the A53
 * model makes scalar blocks beside NEON ones half again slower.
 * Choices measured as executed instructions under qemu (bench/arm-icount.sh)
 * and with llvm-mca's models of real cores (bench/arm-mca.sh): AArch64
 * vertical 5.2 instr/byte vs 6.1 for 3 rows; ARMv7, whose 16 q registers
 * cannot hold a vertical state, 6.3 for 3 rows vs 6.9 vertical (spills). A
 * 1..3 block tail in rows costs about 370 instructions a block, less than a
 * whole vertical pass (about 1330).
 */
#include <arm_neon.h>
#include <string.h>
#include "kernel.h"
#include "util.h"
#if defined(__aarch64__)
# include "chacha20_poly1305_neon.h"
#endif

#if !defined(__ARM_NEON) && !defined(__ARM_NEON__)
# error "chacha20_neon.h needs NEON: build it with -mfpu=neon on 32-bit ARM"
#endif
#if defined(__ARM_BIG_ENDIAN)
# error "chacha20_neon.h assumes little-endian lanes"
#endif

static const uint32_t sigma[4] = {
    0x61707865, 0x3320646e, 0x79622d32, 0x6b206574    /* "expand 32-byte k" */
};

/*
 * Lane rotations. 16 swaps the halfwords; 12 and 7 are a shift left plus a
 * shift-right-and-insert. On AArch64, 8 is one byte table lookup (tbl); ARMv7's
 * vtbl works on 64-bit halves only (two instructions), so there 8 is a shift
 * pair too.
 */
CHACHA_INLINE uint32x4_t rotl16(uint32x4_t x)
{
    return vreinterpretq_u32_u16(vrev32q_u16(vreinterpretq_u16_u32(x)));
}

#define ROTL_SHIFTS(x, n) vsriq_n_u32(vshlq_n_u32(x, n), x, 32 - (n))

#if defined(__aarch64__)
# include "chacha20_a64_scalar.h"
static const uint8_t rot8_index[16] = {
    3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14
};
/* the table load is loop-invariant: the compiler keeps it in a register */
# define ROTL8(x) \
    vreinterpretq_u32_u8(vqtbl1q_u8(vreinterpretq_u8_u32(x), \
                                    vld1q_u8(rot8_index)))
# define NEON_VERTICAL_4BLOCKS 1
#else
# define ROTL8(x) ROTL_SHIFTS(x, 8)
# define NEON_VERTICAL_4BLOCKS 0
#endif

/* a += b; d ^= a; d <<<= n, the one step every quarter-round repeats */
#define STEP(a, b, d, ROT) \
    do { a = vaddq_u32(a, b); d = veorq_u32(d, a); d = ROT(d); } while (0)
#define ROTL12(x) ROTL_SHIFTS(x, 12)
#define ROTL7(x) ROTL_SHIFTS(x, 7)

/* step k (16, 12, 8, 7) of the quarter-round on (a, b, c, d) */
#define QSTEP16(a, b, c, d) STEP(a, b, d, rotl16)
#define QSTEP12(a, b, c, d) STEP(c, d, b, ROTL12)
#define QSTEP8(a, b, c, d) STEP(a, b, d, ROTL8)
#define QSTEP7(a, b, c, d) STEP(c, d, b, ROTL7)

/*
 * A round of four quarter-rounds (16 words a0, b0, c0, d0, a1, ...): the four
 * steps in turn, PHASE(k, ...) issuing step k of all four.
 */
#define ROUND4(PHASE, ...) \
    do { \
        PHASE(16, __VA_ARGS__); PHASE(12, __VA_ARGS__); \
        PHASE(8, __VA_ARGS__); PHASE(7, __VA_ARGS__); \
    } while (0)
#define QPHASE4(k, a0, b0, c0, d0, a1, b1, c1, d1, a2, b2, c2, d2, a3, b3, c3, d3) \
    QSTEP##k(a0, b0, c0, d0); QSTEP##k(a1, b1, c1, d1); \
    QSTEP##k(a2, b2, c2, d2); QSTEP##k(a3, b3, c3, d3)

/* vertical layout: word i of four blocks in x<i>, one lane per block */
#define VERTICAL_COLUMNS \
    x0, x4, x8, x12, x1, x5, x9, x13, x2, x6, x10, x14, x3, x7, x11, x15
#define VERTICAL_DIAGONALS \
    x0, x5, x10, x15, x1, x6, x11, x12, x2, x7, x8, x13, x3, x4, x9, x14

/* out = in ^ ks for one block (len >= 64) or its first len bytes (len < 64) */
CHACHA_INLINE void xor_block(uint8_t *out, const uint8_t *in, size_t len,
                           uint32x4_t k0, uint32x4_t k1, uint32x4_t k2,
                           uint32x4_t k3)
{
    uint8_t ks[64];
    size_t i;

    if (len >= 64) {
        vst1q_u8(out, veorq_u8(vld1q_u8(in), vreinterpretq_u8_u32(k0)));
        vst1q_u8(out + 16,
                 veorq_u8(vld1q_u8(in + 16), vreinterpretq_u8_u32(k1)));
        vst1q_u8(out + 32,
                 veorq_u8(vld1q_u8(in + 32), vreinterpretq_u8_u32(k2)));
        vst1q_u8(out + 48,
                 veorq_u8(vld1q_u8(in + 48), vreinterpretq_u8_u32(k3)));
        return;
    }
    vst1q_u8(ks, vreinterpretq_u8_u32(k0));
    vst1q_u8(ks + 16, vreinterpretq_u8_u32(k1));
    vst1q_u8(ks + 32, vreinterpretq_u8_u32(k2));
    vst1q_u8(ks + 48, vreinterpretq_u8_u32(k3));
    for (i = 0; i + 16 <= len; i += 16)
        vst1q_u8(out + i, veorq_u8(vld1q_u8(in + i), vld1q_u8(ks + i)));
    for (; i < len; i++)
        out[i] = in[i] ^ ks[i];
    chacha_wipe(ks, sizeof(ks));
}

/*
 * The compiler spills round state and key rows to the frames of the passes
 * and, on ARMv7, of the short path (-fstack-usage, GCC 12: hybrid_plain 144
 * bytes, hybrid_mac 192, xor_short 264 on ARMv7): their callers burn that
 * much stack and more right after them (chacha_burn_stack; AAPCS has no red
 * zone), so that nothing derived from the key stays there. On aarch64
 * xor_short spills nothing (its 128-byte frame: the saved d8-d15 and the
 * partial-block buffer, wiped) and needs no burn (see xor_rest).
 */
#define BURN_PASSES 1024
#define BURN_SHORT 512

#if NEON_VERTICAL_4BLOCKS
/* 4x4 transpose of 32-bit lanes: row j of the result is lane j of w0..w3 */
CHACHA_INLINE void transpose4(uint32x4_t *w0, uint32x4_t *w1, uint32x4_t *w2,
                            uint32x4_t *w3)
{
    uint32x4_t t0 = vtrn1q_u32(*w0, *w1), t1 = vtrn2q_u32(*w0, *w1);
    uint32x4_t t2 = vtrn1q_u32(*w2, *w3), t3 = vtrn2q_u32(*w2, *w3);
    uint64x2_t u0 = vreinterpretq_u64_u32(t0), u1 = vreinterpretq_u64_u32(t1);
    uint64x2_t u2 = vreinterpretq_u64_u32(t2), u3 = vreinterpretq_u64_u32(t3);

    *w0 = vreinterpretq_u32_u64(vtrn1q_u64(u0, u2));
    *w1 = vreinterpretq_u32_u64(vtrn1q_u64(u1, u3));
    *w2 = vreinterpretq_u32_u64(vtrn2q_u64(u0, u2));
    *w3 = vreinterpretq_u32_u64(vtrn2q_u64(u1, u3));
}

/*
 * The vertical state of four blocks: x<i> holds word i of each, from the
 * state rows row[] (row[3] with its counter word 0) and counter lanes ctr.
 */
#define VERTICAL_INIT(row, ctr) \
    uint32x4_t x0 = vdupq_laneq_u32(row[0], 0), x1 = vdupq_laneq_u32(row[0], 1); \
    uint32x4_t x2 = vdupq_laneq_u32(row[0], 2), x3 = vdupq_laneq_u32(row[0], 3); \
    uint32x4_t x4 = vdupq_laneq_u32(row[1], 0), x5 = vdupq_laneq_u32(row[1], 1); \
    uint32x4_t x6 = vdupq_laneq_u32(row[1], 2), x7 = vdupq_laneq_u32(row[1], 3); \
    uint32x4_t x8 = vdupq_laneq_u32(row[2], 0), x9 = vdupq_laneq_u32(row[2], 1); \
    uint32x4_t x10 = vdupq_laneq_u32(row[2], 2), x11 = vdupq_laneq_u32(row[2], 3); \
    uint32x4_t x12 = ctr, x13 = vdupq_laneq_u32(row[3], 1); \
    uint32x4_t x14 = vdupq_laneq_u32(row[3], 2), x15 = vdupq_laneq_u32(row[3], 3)

#define X16 x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14, x15
#define X16_PARAMS(T, x) \
    T x##0, T x##1, T x##2, T x##3, T x##4, T x##5, T x##6, T x##7, T x##8, \
    T x##9, T x##10, T x##11, T x##12, T x##13, T x##14, T x##15

/*
 * out = in ^ keystream for min(len, 256) bytes of four blocks after their
 * rounds. The feed-forward adds row[] after the transpose, where it is the
 * same for all four blocks, so only the per-lane counters are added before.
 */
CHACHA_INLINE void vertical_emit(uint8_t *out, const uint8_t *in, size_t len,
                               const uint32x4_t row[4], uint32x4_t ctr,
                               X16_PARAMS(uint32x4_t, x))
{
    x12 = vaddq_u32(x12, ctr);
    transpose4(&x0, &x1, &x2, &x3);
    transpose4(&x4, &x5, &x6, &x7);
    transpose4(&x8, &x9, &x10, &x11);
    transpose4(&x12, &x13, &x14, &x15);

#define EMIT(j, a, b, c, d) \
    xor_block(out + 64 * (j), in + 64 * (j), len - 64 * (j), \
              vaddq_u32(a, row[0]), vaddq_u32(b, row[1]), \
              vaddq_u32(c, row[2]), vaddq_u32(d, row[3]))
    EMIT(0, x0, x4, x8, x12);
    if (len <= 64)
        return;
    EMIT(1, x1, x5, x9, x13);
    if (len <= 128)
        return;
    EMIT(2, x2, x6, x10, x14);
    if (len <= 192)
        return;
    EMIT(3, x3, x7, x11, x15);
#undef EMIT
}

/* Four blocks from counter lanes ctr: out = in ^ keystream, min(len, 256) bytes. */
CHACHA_INLINE void chacha20_neon_4blocks(uint8_t *out, const uint8_t *in,
                                       size_t len, const uint32x4_t row[4],
                                       uint32x4_t ctr)
{
    VERTICAL_INIT(row, ctr);
    int i;

    for (i = 0; i < 10; i++) {
        ROUND4(QPHASE4, VERTICAL_COLUMNS);
        ROUND4(QPHASE4, VERTICAL_DIAGONALS);
    }
    vertical_emit(out, in, len, row, ctr, X16);
}

#endif /* NEON_VERTICAL_4BLOCKS */

/*
 * Row layout, for 1..3 blocks side by side: block j has rows aj, bj, cj, dj.
 * FOR_ROWS_n(M) expands M(j) for j = 0..n-1, so each kernel below is written
 * once and instantiated per width with all its state in named registers.
 */
#define FOR_ROWS_1(M) M(0)
#define FOR_ROWS_2(M) M(0) M(1)
#define FOR_ROWS_3(M) M(0) M(1) M(2)

#define ROW_INIT(j) \
    const uint32x4_t d_in##j = vaddq_u32(row[3], \
                                         vsetq_lane_u32(j, vdupq_n_u32(0), 0)); \
    uint32x4_t a##j = row[0], b##j = row[1], c##j = row[2], d##j = d_in##j;
#define ROW_STEP16(j) QSTEP16(a##j, b##j, c##j, d##j);
#define ROW_STEP12(j) QSTEP12(a##j, b##j, c##j, d##j);
#define ROW_STEP8(j) QSTEP8(a##j, b##j, c##j, d##j);
#define ROW_STEP7(j) QSTEP7(a##j, b##j, c##j, d##j);
/* diagonals into columns: rows b, c, d rotated left by 1, 2, 3 lanes */
#define ROW_DIAG(j) \
    b##j = vextq_u32(b##j, b##j, 1); c##j = vextq_u32(c##j, c##j, 2); \
    d##j = vextq_u32(d##j, d##j, 3);
#define ROW_UNDIAG(j) \
    b##j = vextq_u32(b##j, b##j, 3); c##j = vextq_u32(c##j, c##j, 2); \
    d##j = vextq_u32(d##j, d##j, 1);
#define ROW_EMIT(j) \
    xor_block(out + 64 * (j), in + 64 * (j), len - 64 * (j), \
              vaddq_u32(a##j, row[0]), vaddq_u32(b##j, row[1]), \
              vaddq_u32(c##j, row[2]), vaddq_u32(d##j, d_in##j)); \
    if (len <= 64 * ((j) + 1)) \
        return;

#define ROWS_QUARTERROUND(FOR) \
    FOR(ROW_STEP16) FOR(ROW_STEP12) FOR(ROW_STEP8) FOR(ROW_STEP7)

/*
 * chacha20_neon_<n>rows: n consecutive blocks from row[] (row[3] holds the
 * counter): out = in ^ keystream for min(len, 64 * n) bytes, len > 0.
 */
#define DEFINE_ROWS_KERNEL(n) \
CHACHA_INLINE void chacha20_neon_##n##rows(uint8_t *out, const uint8_t *in, \
                                         size_t len, const uint32x4_t row[4]) \
{ \
    FOR_ROWS_##n(ROW_INIT) \
    int i; \
    \
    for (i = 0; i < 10; i++) { \
        ROWS_QUARTERROUND(FOR_ROWS_##n); \
        FOR_ROWS_##n(ROW_DIAG) \
        ROWS_QUARTERROUND(FOR_ROWS_##n); \
        FOR_ROWS_##n(ROW_UNDIAG) \
    } \
    FOR_ROWS_##n(ROW_EMIT) \
}

DEFINE_ROWS_KERNEL(1)
DEFINE_ROWS_KERNEL(2)
DEFINE_ROWS_KERNEL(3)

#if NEON_VERTICAL_4BLOCKS
/*
 * Hybrid pass, six blocks: the round chains of the vertical four are
 * latency-bound and leave the NEON pipes half idle, so two more blocks in
 * the row layout run beside them, each of their steps issued between two of
 * the vertical ones (in-order cores need the interleave in program order).
 * llvm-mca (bench/arm-mca.sh), cycles per block per double round against the
 * four alone: Cortex-A57 model 17 vs 23, Cortex-A53 35 vs 43. Scalar blocks
 * on the integer pipes instead cost more instructions than the A57 model
 * can dispatch (4 + 2 scalar: 3.50 cycles/byte vs 3.80 for the four alone)
 * and run in series with the NEON ones on the A53 model (11.8 vs 7.9).
 */
#define HYBRID_BYTES 384
/*
 * From 1025 bytes: the hybrid executes more instructions per byte (5.6 vs
 * 5.2) though fewer cycles on both models, so shorter input, where the
 * instruction count is held to the 4-block path's, keeps that path.
 */
#define HYBRID_MIN_LEN 1025

/*
 * Its rotations by 8 are shift pairs (two uops on the A57's one shift pipe)
 * rather than tbl (three there): A57 model 2.73 vs 2.95 cycles/byte, A53
 * model 7.65 vs 7.48.
 */
#define ROTL8_SHIFTS(x) ROTL_SHIFTS(x, 8)
#define HSTEP16(a, b, c, d) QSTEP16(a, b, c, d)
#define HSTEP12(a, b, c, d) QSTEP12(a, b, c, d)
#define HSTEP8(a, b, c, d) STEP(a, b, d, ROTL8_SHIFTS)
#define HSTEP7(a, b, c, d) QSTEP7(a, b, c, d)
#define HROW(k, j) HSTEP##k(a##j, b##j, c##j, d##j);

/* step k of the vertical columns, with row block j's step k in between */
#define HPHASE(k, a0, b0, c0, d0, a1, b1, c1, d1, a2, b2, c2, d2, a3, b3, c3, d3) \
    HSTEP##k(a0, b0, c0, d0); HROW(k, 0) \
    HSTEP##k(a1, b1, c1, d1); HROW(k, 1) \
    HSTEP##k(a2, b2, c2, d2); HSTEP##k(a3, b3, c3, d3)

#define HYBRID_ROW_EMIT(j) \
    xor_block(out + 256 + 64 * (j), in + 256 + 64 * (j), 64, \
              vaddq_u32(a##j, row[0]), vaddq_u32(b##j, row[1]), \
              vaddq_u32(c##j, row[2]), vaddq_u32(d##j, d_in##j));

static const uint32_t lane_index[4] = { 0, 1, 2, 3 };

/* none, one and two of them: statements for a pass's double round (below) */
#define MAC_NONE(m) (void)(m)
#define MAC_ONE(m) MAC_ROUND(m)
#define MAC_TWO(m) MAC_ROUND(m); MAC_ROUND(m)

/*
 * A double round of a pass (hybrid or wide): the vertical blocks' steps with
 * the row blocks' (and the wide passes' scalar ones) by PHASE_C in the
 * columns round and PHASE_D in the diagonals round, the rows' diagonals
 * lined up by DIAG and back by UNDIAG; AFTER_COLUMNS(m) after its
 * first round, AFTER_DIAGONALS(m) after the second (MAC_ONE, MAC_TWO: the
 * MAC blocks of m, a stitched_mac * or NULL).
 */
#define PASS_DOUBLEROUND(PHASE_C, PHASE_D, DIAG, UNDIAG, AFTER_COLUMNS, \
                         AFTER_DIAGONALS, m) \
    do { \
        ROUND4(PHASE_C, VERTICAL_COLUMNS); \
        AFTER_COLUMNS(m); \
        FOR_ROWS_2(DIAG) \
        ROUND4(PHASE_D, VERTICAL_DIAGONALS); \
        AFTER_DIAGONALS(m); \
        FOR_ROWS_2(UNDIAG) \
    } while (0)
/* the hybrid's, AFTER(m) after each round; a trip is two */
#define HYBRID_TRIP(AFTER, m) \
    do { \
        PASS_DOUBLEROUND(HPHASE, HPHASE, ROW_DIAG, ROW_UNDIAG, AFTER, AFTER, m); \
        PASS_DOUBLEROUND(HPHASE, HPHASE, ROW_DIAG, ROW_UNDIAG, AFTER, AFTER, m); \
    } while (0)

/*
 * The state of a pass's four vertical blocks (counter lanes ctr) and two row
 * blocks after them: r4, row, x0..x15, a0..dn. The key is loaded again each
 * pass (the output stores may alias it): hoisted, its broadcast words were
 * spilled to the stack.
 */
#define HYBRID_PASS_INIT(key, counter, ctr, FOR_ROWS) \
    const uint32x4_t r4[4] = { \
        vld1q_u32(sigma), vld1q_u32(key), vld1q_u32(key + 4), \
        vsetq_lane_u32(0, vld1q_u32(counter), 0) \
    }; \
    const uint32x4_t row[4] = { \
        r4[0], r4[1], r4[2], \
        vsetq_lane_u32(vgetq_lane_u32(ctr, 0) + 4, r4[3], 0) \
    }; \
    VERTICAL_INIT(r4, ctr); \
    FOR_ROWS(ROW_INIT) \
    (void)0
/* ... and their output (FOR_ROWS: FOR_ROWS_n, n row blocks) */
#define HYBRID_PASS_EMIT(FOR_ROWS) \
    do { \
        vertical_emit(out, in, 256, r4, ctr, X16); \
        FOR_ROWS(HYBRID_ROW_EMIT) \
    } while (0)

/*
 * n hybrid passes of 384 bytes from block counter[0]: each, four vertical
 * blocks, then two row blocks; with mac, 384 bytes MACed beside each (read
 * before the pass writes its output, so in place works for both the
 * ciphertext read and written).
 */
CHACHA_INLINE void hybrid_passes(uint8_t *out, const uint8_t *in, size_t n,
                               const uint32_t key[8], const uint32_t counter[4],
                               stitched_mac *mac)
{
    uint32x4_t ctr = vaddq_u32(vdupq_n_u32(counter[0]), vld1q_u32(lane_index));

    for (; n > 0; n--) {
        HYBRID_PASS_INIT(key, counter, ctr, FOR_ROWS_2);
        int i;

        /*
         * Two double rounds a trip (fewer register moves at the back edge);
         * a MAC block after each round, two in the first trip: 24 in all.
         */
        HYBRID_TRIP(MAC_TWO, mac);
        for (i = 2; i < 10; i += 2)
            HYBRID_TRIP(MAC_ONE, mac);
        HYBRID_PASS_EMIT(FOR_ROWS_2);
        ctr = vaddq_u32(ctr, vdupq_n_u32(6));
        out += HYBRID_BYTES;
        in += HYBRID_BYTES;
    }
}


DEFINE_PASSES_PLAIN(hybrid, hybrid_passes, BURN_PASSES)

/*
 * Wide pass (the neon_wide kernel and neon_wide-fused, for wide out-of-order
 * cores: see CHACHA_CAP_ARM_WIDE), 512 bytes: two scalar blocks on the
 * integer pipes, which the NEON rounds leave idle, then the hybrid's four
 * vertical and two row blocks, their rotations by 8 one tbl each. The scalar
 * blocks come first in the pass so that, opening in place, the stitched MAC
 * (below) has read their ciphertext before they are written. The two scalar blocks
 * run one after the other (their 32 words do not fit in the general
 * registers beside the pointers): each NEON round carries one scalar double
 * round, so the first scalar block is done, and written, after five NEON
 * double rounds, the second after ten. Interleaved in program order (GCC 12
 * schedules it the same with the scalar steps first, in the middle or last
 * in each NEON step); the out-of-order cores take it from there.
 * llvm-mca (LLVM 19), cycles per inner-loop trip (a NEON double round) on
 * N1 / V1: 94 / 60, 0.19 / 0.12 cycles a byte, 1.99 / 1.25 a byte for the
 * whole pass (bench/arm-mca.sh; neon's hybrid: 2.82 / 1.72; OpenSSL's 6 + 2
 * pass 2.25 / 1.38). N1 is bound by its two NEON pipes (the shifts on one),
 * V1 by the latency of the vertical round chain (56 cycles a double round).
 * Tried: three row blocks (576 bytes): V1 64 cycles a trip for 9 blocks, N1
 * 118, with vector spills in the loop; rows diagonalised the hybrid's way
 * (b, c, d rotated): 96 / 62.
 */
#define WIDE_BYTES 512

#define SQSTEP16(a, b, c, d) SSTEP(a, b, d, 16)
#define SQSTEP12(a, b, c, d) SSTEP(c, d, b, 12)
#define SQSTEP8(a, b, c, d) SSTEP(a, b, d, 8)
#define SQSTEP7(a, b, c, d) SSTEP(c, d, b, 7)
#define SPHASE_(k, a0, b0, c0, d0, a1, b1, c1, d1, a2, b2, c2, d2, a3, b3, c3, d3) \
    SQSTEP##k(a0, b0, c0, d0); SQSTEP##k(a1, b1, c1, d1); \
    SQSTEP##k(a2, b2, c2, d2); SQSTEP##k(a3, b3, c3, d3)
#define SPHASE(k, ...) SPHASE_(k, __VA_ARGS__)
/* the scalar half of a scalar double round beside NEON step k */
#define WSCALAR16 SPHASE(16, SCALAR_COLUMNS); SPHASE(12, SCALAR_COLUMNS)
#define WSCALAR12 SPHASE(8, SCALAR_COLUMNS); SPHASE(7, SCALAR_COLUMNS)
#define WSCALAR8 SPHASE(16, SCALAR_DIAGONALS); SPHASE(12, SCALAR_DIAGONALS)
#define WSCALAR7 SPHASE(8, SCALAR_DIAGONALS); SPHASE(7, SCALAR_DIAGONALS)

/* step k of the vertical columns and of the rows (tbl for 8) */
#define WROW(k, j) QSTEP##k(a##j, b##j, c##j, d##j);
#define WSTEPS(k, a0, b0, c0, d0, a1, b1, c1, d1, a2, b2, c2, d2, a3, b3, c3, d3) \
    QSTEP##k(a0, b0, c0, d0); WROW(k, 0) \
    QSTEP##k(a1, b1, c1, d1); WROW(k, 1) \
    QSTEP##k(a2, b2, c2, d2); QSTEP##k(a3, b3, c3, d3);
/* ... then a scalar half round: a scalar double round a NEON round */
#define WPHASE(k, ...) WSTEPS(k, __VA_ARGS__) WSCALAR##k
/* ... or the scalar step k of the same round: a scalar round a NEON round */
#define W1PHASE_C(k, ...) WSTEPS(k, __VA_ARGS__) SPHASE(k, SCALAR_COLUMNS)
#define W1PHASE_D(k, ...) WSTEPS(k, __VA_ARGS__) SPHASE(k, SCALAR_DIAGONALS)

/*
 * The row blocks' diagonals with rows a, c, d rotated (by 3, 1, 2 lanes)
 * rather than b, c, d: b, the word a round writes last and the next reads
 * first, then has no lane rotation on its path.
 */
#define WROW_DIAG(j) \
    a##j = vextq_u32(a##j, a##j, 3); c##j = vextq_u32(c##j, c##j, 1); \
    d##j = vextq_u32(d##j, d##j, 2);
#define WROW_UNDIAG(j) \
    a##j = vextq_u32(a##j, a##j, 1); c##j = vextq_u32(c##j, c##j, 3); \
    d##j = vextq_u32(d##j, d##j, 2);

#define WIDE_DOUBLEROUND(AFTER_COLUMNS, AFTER_DIAGONALS, m) \
    PASS_DOUBLEROUND(WPHASE, WPHASE, WROW_DIAG, WROW_UNDIAG, AFTER_COLUMNS, \
                     AFTER_DIAGONALS, m)
#define WIDE1_DOUBLEROUND(AFTER_COLUMNS, AFTER_DIAGONALS, m) \
    PASS_DOUBLEROUND(W1PHASE_C, W1PHASE_D, WROW_DIAG, WROW_UNDIAG, AFTER_COLUMNS, \
                     AFTER_DIAGONALS, m)

/*
 * The loop of n wide passes with S scalar blocks (bytes 0..64 S of each,
 * block counters sctr, sctr + 1, ...) and the hybrid's six NEON blocks
 * after them: BODY runs the rounds and writes the scalar blocks, the loop
 * the NEON ones. In a function of dst, src, n, key, counter.
 */
#define WIDE_PASS_LOOP(S, BODY) \
    do { \
        uint32x4_t ctr = vaddq_u32(vdupq_n_u32(counter[0] + (S)), \
                                   vld1q_u32(lane_index)); \
        uint32_t sctr = counter[0]; \
        \
        for (; n > 0; n--) { \
            uint8_t *out = dst + 64 * (S); \
            const uint8_t *in = src + 64 * (S); \
            HYBRID_PASS_INIT(key, counter, ctr, FOR_ROWS_2); \
            int i; \
            \
            BODY; \
            HYBRID_PASS_EMIT(FOR_ROWS_2); \
            ctr = vaddq_u32(ctr, vdupq_n_u32(6 + (S))); \
            sctr += 6 + (S); \
            dst += 64 * (6 + (S)); \
            src += 64 * (6 + (S)); \
        } \
    } while (0)

/*
 * Scalar block h of the pass, its 20 rounds beside five NEON double rounds,
 * written as soon as they are done; with mac, Poly1305 blocks beside them:
 * BEFORE's, then AFTER_COLUMNS's and AFTER_DIAGONALS's each double round
 * (16 with MAC_ONE, MAC_TWO, MAC_ONE). A statement of wide_passes, written
 * out twice there (a loop of two would be the pass loop that
 * bench/arm_mca.py looks for).
 */
#define WIDE_HALF(h, mac, BEFORE, AFTER_COLUMNS, AFTER_DIAGONALS) \
    do { \
        const uint32_t c = sctr + (h); \
        SCALAR_INIT(c); \
        \
        BEFORE(mac); \
        for (i = 0; i < 5; i++) \
            WIDE_DOUBLEROUND(AFTER_COLUMNS, AFTER_DIAGONALS, mac); \
        scalar_emit(dst + 64 * (h), src + 64 * (h), key, counter, c, S16); \
    } while (0)

/*
 * n wide passes of 512 bytes from block counter[0]: the scalar two (written
 * as they finish), then four vertical blocks and two row blocks; with mac,
 * 512 bytes MACed beside each (as hybrid_passes).
 */
CHACHA_INLINE void wide_passes(uint8_t *dst, const uint8_t *src, size_t n,
                               const uint32_t key[8], const uint32_t counter[4],
                               stitched_mac *mac)
{
    WIDE_PASS_LOOP(2, WIDE_HALF(0, mac, MAC_ONE, MAC_TWO, MAC_ONE);
                      WIDE_HALF(1, mac, MAC_ONE, MAC_TWO, MAC_ONE));
}

/*
 * The same passes with a share of the MAC (neon_wide_split-fused, for
 * Neoverse N1): WIDE_SPLIT_MAC_BYTES a pass, one Poly1305 block after each
 * diagonals round; the NEON Poly1305 takes the rest of the message in its
 * own loop (chacha_a64_xor_mac_passes). llvm-mca 19 on N1, 16 KiB, the
 * pass's cycles a byte by the blocks it MACs (the AEAD's in brackets, with
 * the NEON loop's 0.85 a byte for the rest): none 1.99 (2.84), 2 (one
 * before each scalar block) 2.10, 10 (one a double round) 2.08 (2.68), 12
 * (and one before each scalar block) 2.17 (2.70), 12 and 14 (two in the
 * first one or two double rounds, a loop of each) 2.25, 2.33, 15 (two a
 * double round in one half) 2.38-2.43, 16 (three before each scalar
 * block) 2.44, 20 (two a double round) 2.72, 32 (neon_wide-fused) 3.57. N1's
 * three integer pipes already run the two scalar blocks (~700 cycles each
 * of a 1,019-cycle pass), and its one multi-cycle pipe takes each 64-bit
 * multiply three cycles (30 a block).
 */
#define WIDE_SPLIT_MAC_BYTES 160
CHACHA_INLINE void wide_split_passes(uint8_t *dst, const uint8_t *src, size_t n,
                                     const uint32_t key[8],
                                     const uint32_t counter[4], stitched_mac *mac)
{
    WIDE_PASS_LOOP(2, WIDE_HALF(0, mac, MAC_NONE, MAC_NONE, MAC_ONE);
                      WIDE_HALF(1, mac, MAC_NONE, MAC_NONE, MAC_ONE));
}

/*
 * The wide pass with one scalar block (448 bytes): its block first, then
 * the six NEON blocks; a scalar round beside each NEON round, so that the
 * scalar block is done with them. For the AEAD on a core whose integer
 * pipes two scalar blocks and the MAC overload (neon_wide1-fused, Neoverse
 * V1: ARM_WIDE_MAC1); with mac, 448 bytes (28 Poly1305 blocks) MACed beside
 * each: three a double round, then two.
 */
#define WIDE1_BYTES 448
#define WIDE1_BLOCK(mac) \
    do { \
        SCALAR_INIT(sctr); \
        \
        for (i = 0; i < 8; i++) \
            WIDE1_DOUBLEROUND(MAC_TWO, MAC_ONE, mac); \
        for (; i < 10; i++) \
            WIDE1_DOUBLEROUND(MAC_ONE, MAC_ONE, mac); \
        scalar_emit(dst, src, key, counter, sctr, S16); \
    } while (0)

CHACHA_INLINE void wide1_passes(uint8_t *dst, const uint8_t *src, size_t n,
                                const uint32_t key[8], const uint32_t counter[4],
                                stitched_mac *mac)
{
    WIDE_PASS_LOOP(1, WIDE1_BLOCK(mac));
}

DEFINE_PASSES_PLAIN(wide, wide_passes, BURN_PASSES)
#endif

/* The four state rows: constants, key, counter and nonce. */
CHACHA_INLINE void load_rows(uint32x4_t row[4], const uint32_t key[8],
                           const uint32_t counter[4])
{
    row[0] = vld1q_u32(sigma);
    row[1] = vld1q_u32(key);
    row[2] = vld1q_u32(key + 4);
    row[3] = vld1q_u32(counter);
}

/*
 * 0..192 bytes in 1..3 rows. On AArch64 few enough registers that nothing
 * spills (test_stack_residue asserts it): see xor_rest.
 */
CHACHA_INLINE void xor_rows(uint8_t *out, const uint8_t *in, size_t len,
                          const uint32x4_t row[4])
{
    if (len > 128)
        chacha20_neon_3rows(out, in, len, row);
    else if (len > 64)
        chacha20_neon_2rows(out, in, len, row);
    else if (len > 0)
        chacha20_neon_1rows(out, in, len, row);
}

/*
 * Input too short for hybrid passes: 4-block passes (ARMv7: 3-row passes),
 * then 1..3 rows. Out of line, so that its frame is below the burning
 * caller's.
 */
static __attribute__((noinline)) void
xor_short(uint8_t *out, const uint8_t *in, size_t len, const uint32_t key[8],
          const uint32_t counter[4])
{
    uint32x4_t row[4];

    load_rows(row, key, counter);

#if NEON_VERTICAL_4BLOCKS
    /* 129..192 bytes are left to 3 rows: cheaper than a 4-block pass */
    {
        uint32x4_t ctr = vaddq_u32(vdupq_laneq_u32(row[3], 0),
                                   vld1q_u32(lane_index));
        uint32x4_t r4[4] = {
            row[0], row[1], row[2], vsetq_lane_u32(0, row[3], 0)
        };

        /* whole passes (a constant length: no per-block tests), then one
           of 193..256 bytes */
        while (len > 256) {
            /*
             * The rows look changed to the compiler at every pass, so it
             * broadcasts their words in the pass: hoisted, they took 15
             * registers across the loop and gcc spilled key words to the
             * stack, which then needed a burn.
             */
            __asm__("" : "+w"(r4[0]), "+w"(r4[1]), "+w"(r4[2]), "+w"(r4[3]));
            chacha20_neon_4blocks(out, in, 256, r4, ctr);
            ctr = vaddq_u32(ctr, vdupq_n_u32(4));
            out += 256;
            in += 256;
            len -= 256;
        }
        if (len > 192) {
            chacha20_neon_4blocks(out, in, len, r4, ctr);
            return;
        }
        /* from r4, so that row[] is not live across the loop */
        row[0] = r4[0];
        row[1] = r4[1];
        row[2] = r4[2];
        row[3] = vsetq_lane_u32(vgetq_lane_u32(ctr, 0), r4[3], 0);
    }
#else
    /* ARMv7: 3-row passes (see the top of the file) */
    while (len > 192) {
        chacha20_neon_3rows(out, in, len, row);
        row[3] = vaddq_u32(row[3], vsetq_lane_u32(3, vdupq_n_u32(0), 0));
        out += 192;
        in += 192;
        len -= 192;
    }
#endif
    xor_rows(out, in, len, row);
}

/*
 * Input too short for hybrid passes, from any caller outside the passes.
 * AArch64 (32 vector registers) spills nothing on this path (asserted by
 * test_stack_residue), like the AVX-512 kernels: rows inline up to 192
 * bytes, xor_short beyond, no burn. ARMv7 (16) spills the key rows even in
 * the rows: xor_short, then its frame burnt.
 */
CHACHA_INLINE void xor_rest(uint8_t *out, const uint8_t *in, size_t len,
                          const uint32_t key[8], const uint32_t counter[4])
{
#if NEON_VERTICAL_4BLOCKS
    if (len > 192) {
        xor_short(out, in, len, key, counter);
    } else {
        uint32x4_t row[4];

        load_rows(row, key, counter);
        xor_rows(out, in, len, row);
    }
#else
    if (len > 0) {
        xor_short(out, in, len, key, counter);
        chacha_burn_stack(BURN_SHORT);
    }
#endif
}

#endif
