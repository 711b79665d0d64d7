/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Poly1305 for AArch64 with NEON.
 *
 * The accumulator is kept between calls in radix 2^64 (poly1305_r64, whose
 * scalar loop takes short input and the tails). Runs of POLY1305_NEON_MIN
 * bytes or more switch to two 26-bit-limb lanes, 32 bits each, products in
 * 64-bit lanes (umull/umlal): lane 0 takes the even blocks, lane 1 the odd
 * ones. A pending sum X (lanes with their last blocks added, not yet
 * multiplied) absorbs four blocks a step as X r^4 + P r^2 + Q, P and Q the
 * next two pairs; P r^2 does not wait for X, so it overlaps the previous
 * carry chain. The last step multiplies the lanes by (r^2, r) and sums
 * them, which equals the serial Horner evaluation. The powers are computed
 * on first vector use.
 * Constant time: no branch or index depends on key or data.
 */
#include <arm_neon.h>
#include <stddef.h>
#include <string.h>
#include "kernel.h"
#include "util.h"
#include "poly1305_r64.h"
#include "chacha20_poly1305_neon.h"     /* stitched_mac */

#if !defined(__aarch64__) || defined(__ARM_BIG_ENDIAN)
# error "poly1305_neon.c is for little-endian AArch64"
#endif

/*
 * Shortest blocks() run that takes the vector path: more than 1 KiB. Per
 * block it executes as many instructions as the scalar loop (1.84 vs 1.88
 * a byte) in fewer cycles (llvm-mca: Cortex-A57 model 0.91 vs 1.25 a byte,
 * A53 2.56 vs 2.81), but its setup (the powers of r, per key) would add
 * some 6% of instructions to a 1 KiB message, and the A53 model only gains
 * from about that length on.
 */
#ifndef POLY1305_NEON_MIN
# define POLY1305_NEON_MIN 1025
#endif

#define M26 0x3ffffffu

/*
 * neon_split: scalar blocks a vector step of eight (SPLIT_K), and the
 * powers r^(2^j) kept, so at most 2^SPLIT_POWERS - 1 scalar blocks a run
 */
#define SPLIT_K 3
#define SPLIT_POWERS 12
/*
 * Runs from 4 KiB: below, the powers of r a run needs (squarings from r^8,
 * and a product for each bit of the side's block count, ~100 instructions
 * each, on a fresh key every AEAD message) cost what the side blocks save.
 * Composed from N1's model: 2 KiB ~1,850 cycles against neon's ~1,750,
 * 4 KiB ~3,450 against ~3,490, 16 KiB ~13,200 against ~13,950.
 */
#define SPLIT_MIN_LEN 4096

typedef struct {
    poly1305_r64 sc;        /* first: the scalar state (poly1305_r64_of) */
    uint64_t have_powers;
    /*
     * Elements 0-4: limbs of the power, 5-8: 5 times limbs 1-4 (2^130 = 5
     * mod p), for by-element multiplies: r^2, r^4, r^6, r^8, and (fin) the final
     * per-lane powers (r^2, r) as pairs.
     */
    uint32_t r4[12], r2[12], r6[12], r8[12];
    uint32_t fin[9][2];
    /*
     * neon_split's register image of the four tables (split_vector_blocks):
     * elements 0-7 of r^2, r^4, r^6, r^8 in turn, then element 8 of each
     */
    uint32_t split_tab[36];
    /*
     * neon_split: r^(2^j) as table elements (0-4 limbs, 5-8 five times
     * limbs 1-4), j < n_rpow, computed as a run needs them
     */
    uint32_t n_rpow;
    uint32_t rpow[SPLIT_POWERS][9];
} poly1305_neon_st;

_Static_assert(sizeof(poly1305_neon_st) <= POLY1305_STATE_SIZE,
               "NEON Poly1305 state does not fit");
_Static_assert(offsetof(poly1305_neon_st, sc) == 0, "sc must come first");

/* The nine table elements of a power a (radix 2^64, a2 small). */
static void power_table(uint32_t e[9], uint64_t a0, uint64_t a1, uint64_t a2)
{
    poly1305_r64 t;
    int i;

    t.h[0] = a0;
    t.h[1] = a1;
    t.h[2] = a2;
    poly1305_r64_to_26(&t, e);
    for (i = 1; i < 5; i++)
        e[4 + i] = e[i] * 5;
    chacha_wipe(&t, sizeof(t));
}

static void compute_powers(poly1305_neon_st *p)
{
    uint64_t h[3] = { p->sc.r[0], p->sc.r[1], 0 };
    uint32_t e1[9], e2[9];
    int i;

    power_table(e1, h[0], h[1], h[2]);
    poly1305_r64_mul(h, p->sc.r[0], p->sc.r[1]);            /* r^2 */
    power_table(e2, h[0], h[1], h[2]);
    memcpy(p->r2, e2, sizeof(e2));
    poly1305_r64_mul(h, p->sc.r[0], p->sc.r[1]);            /* r^3 */
    poly1305_r64_mul(h, p->sc.r[0], p->sc.r[1]);            /* r^4 */
    power_table(p->r4, h[0], h[1], h[2]);
    poly1305_r64_mul(h, p->sc.r[0], p->sc.r[1]);            /* r^5 */
    poly1305_r64_mul(h, p->sc.r[0], p->sc.r[1]);            /* r^6 */
    power_table(p->r6, h[0], h[1], h[2]);
    poly1305_r64_mul(h, p->sc.r[0], p->sc.r[1]);            /* r^7 */
    poly1305_r64_mul(h, p->sc.r[0], p->sc.r[1]);            /* r^8 */
    power_table(p->r8, h[0], h[1], h[2]);
    p->r2[9] = p->r2[10] = p->r2[11] = 0;
    p->r4[9] = p->r4[10] = p->r4[11] = 0;
    p->r6[9] = p->r6[10] = p->r6[11] = 0;
    p->r8[9] = p->r8[10] = p->r8[11] = 0;
    for (i = 0; i < 9; i++) {
        p->fin[i][0] = e2[i];
        p->fin[i][1] = e1[i];
    }
    memcpy(p->split_tab, p->r2, 32);
    memcpy(p->split_tab + 8, p->r4, 32);
    memcpy(p->split_tab + 16, p->r6, 32);
    memcpy(p->split_tab + 24, p->r8, 32);
    p->split_tab[32] = p->r2[8];
    p->split_tab[33] = p->r4[8];
    p->split_tab[34] = p->r6[8];
    p->split_tab[35] = p->r8[8];
    chacha_wipe(h, sizeof(h));
    chacha_wipe(e1, sizeof(e1));
    chacha_wipe(e2, sizeof(e2));
    p->have_powers = 1;
}

/*
 * d_k = sum of x_i E(k - i), E(j) the table element of limb j (j >= 0) or
 * 5 times limb j + 5 (j < 0, element j + 9). MUL starts d_k, MAC adds to it.
 */
#define EIDX(j) ((j) >= 0 ? (j) : (j) + 9)
#define PRODUCTS(MUL, MAC, d, x, T) \
    do { \
        d##0 = MUL(d##0, x##0, T, 0); d##1 = MUL(d##1, x##0, T, 1); \
        d##2 = MUL(d##2, x##0, T, 2); d##3 = MUL(d##3, x##0, T, 3); \
        d##4 = MUL(d##4, x##0, T, 4); \
        PRODUCTS_ROW(MAC, d, x##1, T, 1); PRODUCTS_ROW(MAC, d, x##2, T, 2); \
        PRODUCTS_ROW(MAC, d, x##3, T, 3); PRODUCTS_ROW(MAC, d, x##4, T, 4); \
    } while (0)
#define PRODUCTS_ROW(MAC, d, xi, T, i) \
    d##0 = MAC(d##0, xi, T, EIDX(0 - (i))); d##1 = MAC(d##1, xi, T, EIDX(1 - (i))); \
    d##2 = MAC(d##2, xi, T, EIDX(2 - (i))); d##3 = MAC(d##3, xi, T, EIDX(3 - (i))); \
    d##4 = MAC(d##4, xi, T, EIDX(4 - (i)))

/* lane by lane, from a table of pairs in memory */
#define PAIR_MUL(d, x, T, e) vmull_u32(x, vld1_u32(T[e]))
#define PAIR_MAC(d, x, T, e) vmlal_u32(d, x, vld1_u32(T[e]))

/*
 * neon: x = a pair of blocks at in as limbs, lanes (block 0, block 1), plus
 * the 2^128 bit hib. ld2 splits the blocks' low and high halves.
 */
#define LOAD_PAIR_V(x, in) \
    do { \
        const uint64x2x2_t w_ = vld2q_u64((const uint64_t *)(const void *)(in)); \
        x##0 = vand_u32(vmovn_u64(w_.val[0]), mask); \
        x##1 = vand_u32(vshrn_n_u64(w_.val[0], 26), mask); \
        x##2 = vand_u32(vmovn_u64(vsriq_n_u64(vshlq_n_u64(w_.val[1], 12), \
                                              w_.val[0], 52)), mask); \
        x##3 = vand_u32(vshrn_n_u64(w_.val[1], 14), mask); \
        x##4 = vorr_u32(vmovn_u64(vshrq_n_u64(w_.val[1], 40)), hib); \
    } while (0)

/*
 * x = d carried (0 -> 1, 3 -> 4), (1 -> 2, 4 -> 0 times 5), (2 -> 3,
 * 0 -> 1), 3 -> 4 and narrowed: from d_k < 2^62, every limb ends below
 * 2^26 + 2^14.
 */
#define CARRY_STEP(d, i, j) \
    c_ = vshrq_n_u64(d##i, 26); d##i = vandq_u64(d##i, mask64); \
    d##j = vaddq_u64(d##j, c_)
#define CARRY(x, d) \
    do { \
        uint64x2_t c_, c5_; \
        CARRY_STEP(d, 0, 1); CARRY_STEP(d, 3, 4); \
        CARRY_STEP(d, 1, 2); \
        c5_ = vshrq_n_u64(d##4, 26); d##4 = vandq_u64(d##4, mask64); \
        d##0 = vaddq_u64(d##0, vaddq_u64(c5_, vshlq_n_u64(c5_, 2))); \
        CARRY_STEP(d, 2, 3); CARRY_STEP(d, 0, 1); CARRY_STEP(d, 3, 4); \
        x##0 = vmovn_u64(d##0); x##1 = vmovn_u64(d##1); x##2 = vmovn_u64(d##2); \
        x##3 = vmovn_u64(d##3); x##4 = vmovn_u64(d##4); \
    } while (0)

/*
 * neon_wide: x = a pair of blocks at in as limbs, lanes (block 0, block 1),
 * plus the 2^128 bit (hib2: in both lanes). The limbs are cut in general registers
 * (and, ubfx, extr) and moved over with one fmov each: the vector pipes,
 * which carry the products, only see five moves a pair.
 */
#define LIMB_PAIR(lo, hi) vcreate_u32((lo) | (hi) << 32)
#define LOAD_PAIR_G(x, in) \
    do { \
        const uint64_t a0_ = chacha_load_le64(in), a1_ = chacha_load_le64((in) + 8); \
        const uint64_t b0_ = chacha_load_le64((in) + 16); \
        const uint64_t b1_ = chacha_load_le64((in) + 24); \
        x##0 = LIMB_PAIR(a0_ & M26, b0_ & M26); \
        x##1 = LIMB_PAIR(a0_ >> 26 & M26, b0_ >> 26 & M26); \
        x##2 = LIMB_PAIR((a0_ >> 52 | a1_ << 12) & M26, (b0_ >> 52 | b1_ << 12) & M26); \
        x##3 = LIMB_PAIR(a1_ >> 14 & M26, b1_ >> 14 & M26); \
        x##4 = vcreate_u32(((a1_ >> 40) | (b1_ >> 40) << 32) + hib2); \
    } while (0)

/*
 * The products, in asm blocks: GCC 12 built them from intrinsics with up to
 * ten register-to-register moves a step, as it kept steering the sums into
 * the registers of the next X. A row takes one limb of a pair against the
 * five table elements E(k - i) of the sums d_0..d_4, so a sum's next
 * accumulate is five instructions on; X's rows come in the order its limbs
 * are ready (X_ROWS, chosen with llvm-mca 19 among the 120 orders).
 */
#define EL_0(T) "%[" #T "0].s[0]"
#define EL_1(T) "%[" #T "0].s[1]"
#define EL_2(T) "%[" #T "0].s[2]"
#define EL_3(T) "%[" #T "0].s[3]"
#define EL_4(T) "%[" #T "1].s[0]"
#define EL_5(T) "%[" #T "1].s[1]"
#define EL_6(T) "%[" #T "1].s[2]"
#define EL_7(T) "%[" #T "1].s[3]"
#define EL_8(T) "%[" #T "2].s[0]"
#define EL(T, e) EL_##e(T)
#define ROW_ASM(op, xi, T, e0, e1, e2, e3, e4) \
    op " %[d0].2d, %[" #xi "].2s, " EL(T, e0) "\n\t" \
    op " %[d1].2d, %[" #xi "].2s, " EL(T, e1) "\n\t" \
    op " %[d2].2d, %[" #xi "].2s, " EL(T, e2) "\n\t" \
    op " %[d3].2d, %[" #xi "].2s, " EL(T, e3) "\n\t" \
    op " %[d4].2d, %[" #xi "].2s, " EL(T, e4) "\n\t"
/* row i: limb i of x against E(0 - i) .. E(4 - i) (EIDX) of table T */
#define ROW0(op, x, T) ROW_ASM(op, x##0, T, 0, 1, 2, 3, 4)
#define ROW1(op, x, T) ROW_ASM(op, x##1, T, 8, 0, 1, 2, 3)
#define ROW2(op, x, T) ROW_ASM(op, x##2, T, 7, 8, 0, 1, 2)
#define ROW3(op, x, T) ROW_ASM(op, x##3, T, 6, 7, 8, 0, 1)
#define ROW4(op, x, T) ROW_ASM(op, x##4, T, 5, 6, 7, 8, 0)
/* a pair's five rows in limb order, the first op umull (new sums) or umlal */
#define ROWS(op0, x, T) \
    ROW0(op0, x, T) ROW1("umlal", x, T) ROW2("umlal", x, T) \
    ROW3("umlal", x, T) ROW4("umlal", x, T)
#define X_ROWS_V(T) \
    ROW2("umlal", x, T) ROW0("umlal", x, T) ROW1("umlal", x, T) \
    ROW3("umlal", x, T) ROW4("umlal", x, T)
#define X_ROWS_G(T) \
    ROW2("umlal", x, T) ROW3("umlal", x, T) ROW0("umlal", x, T) \
    ROW1("umlal", x, T) ROW4("umlal", x, T)
#define ASM_LIMBS(n) [n##0] "w"(n##0), [n##1] "w"(n##1), [n##2] "w"(n##2), \
    [n##3] "w"(n##3), [n##4] "w"(n##4)
#define ASM_TABLE(n, v) [n##0] "w"(v[0]), [n##1] "w"(v[1]), [n##2] "w"(v[2])
#define ASM_SUMS(c) [d0] c(d0), [d1] c(d1), [d2] c(d2), [d3] c(d3), [d4] c(d4)
#define OUT_NEW(v) "=&w"(v)
#define OUT_ADD(v) "+w"(v)
/* four blocks: d = P r^2 + X r^4 (P in q) */
#define STEP4(X_ROWS) \
    __asm__(ROWS("umull", q, s) X_ROWS(t) \
            : ASM_SUMS(OUT_NEW) \
            : ASM_LIMBS(q), ASM_LIMBS(x), ASM_TABLE(s, R2_v), ASM_TABLE(t, R4_v))
/*
 * Eight blocks: d = P r^6 + Q r^4 (P in q, Q in w), then d += R r^2 + X r^8
 * (R in q): as many products a block as the four-block step, one carry for
 * eight blocks instead of two, and the same chain from X to X.
 */
#define STEP8_PQ() \
    __asm__(ROWS("umull", q, u) ROWS("umlal", w, t) \
            : ASM_SUMS(OUT_NEW) \
            : ASM_LIMBS(q), ASM_LIMBS(w), ASM_TABLE(u, R6_v), ASM_TABLE(t, R4_v))
#define STEP8_RX(X_ROWS) \
    __asm__(ROWS("umlal", q, s) X_ROWS(v) \
            : ASM_SUMS(OUT_ADD) \
            : ASM_LIMBS(q), ASM_LIMBS(x), ASM_TABLE(s, R2_v), ASM_TABLE(v, R8_v))

#define ADD5(x, y) \
    do { \
        x##0 = vadd_u32(x##0, y##0); x##1 = vadd_u32(x##1, y##1); \
        x##2 = vadd_u32(x##2, y##2); x##3 = vadd_u32(x##3, y##3); \
        x##4 = vadd_u32(x##4, y##4); \
    } while (0)

/*
 * Absorb the nb = len / 16 blocks, len >= 64: 2 + 4 * ng in the lanes,
 * eight a step, then four if ng is odd; the last (nb - 2) % 4 in the
 * scalar loop. Limb
 * bounds: the tables' limbs below 2^26 (the top one below 5 * 2^24, as
 * h2 <= 4 in radix 2^64, so 5 times it below 2^28.7), X's carried limbs
 * below 2^26 + 2^14 plus a block's (the accumulator's at the start: below
 * 2^26, the top one 5 * 2^24), a block's below 2^26 (the top one 2^25):
 * each d_k (twenty products) stays below 2^58.7, and CARRY needs 2^62.
 * One body, two ways to cut a block pair into limbs (LOAD_PAIR: _V in
 * vector registers, _G in general ones) and their orders of X's rows. Out
 * of line, so that short input pays none of its frame (callee-saved d8-d15).
 */
#define DEFINE_VECTOR_BLOCKS(name, LOAD_PAIR, X_ROWS) \
static __attribute__((noinline)) void name(poly1305_neon_st *p, const uint8_t *in, \
                                           size_t len, uint32_t padbit) \
{ \
    const uint32x2_t mask = vdup_n_u32(M26), hib = vdup_n_u32(padbit << 24); \
    const uint64_t hib2 = (uint64_t)padbit << 24 | (uint64_t)padbit << 56; \
    const uint64x2_t mask64 = vdupq_n_u64(M26); \
    uint32x4_t R2_v[3], R4_v[3], R6_v[3], R8_v[3]; \
    uint32x2_t x0, x1, x2, x3, x4, q0, q1, q2, q3, q4, w0, w1, w2, w3, w4; \
    uint64x2_t d0, d1, d2, d3, d4; \
    uint32_t l[5]; \
    uint64_t t[5]; \
    size_t nb = len / 16, ng = (nb - 2) / 4; \
    int i; \
 \
    (void)mask; \
    (void)hib; \
    (void)hib2; \
    if (!p->have_powers) \
        compute_powers(p); \
    for (i = 0; i < 3; i++) { \
        R2_v[i] = vld1q_u32(p->r2 + 4 * i); \
        R4_v[i] = vld1q_u32(p->r4 + 4 * i); \
        R6_v[i] = vld1q_u32(p->r6 + 4 * i); \
        R8_v[i] = vld1q_u32(p->r8 + 4 * i); \
    } \
 \
    /* X = the first pair, the accumulator added to lane 0 */ \
    poly1305_r64_to_26(&p->sc, l); \
    LOAD_PAIR(x, in); \
    x0 = vadd_u32(x0, vset_lane_u32(l[0], vdup_n_u32(0), 0)); \
    x1 = vadd_u32(x1, vset_lane_u32(l[1], vdup_n_u32(0), 0)); \
    x2 = vadd_u32(x2, vset_lane_u32(l[2], vdup_n_u32(0), 0)); \
    x3 = vadd_u32(x3, vset_lane_u32(l[3], vdup_n_u32(0), 0)); \
    x4 = vadd_u32(x4, vset_lane_u32(l[4], vdup_n_u32(0), 0)); \
    in += 32; \
    for (; ng >= 2; ng -= 2) { \
        LOAD_PAIR(q, in);                       /* P */ \
        LOAD_PAIR(w, in + 32);                  /* Q */ \
        STEP8_PQ();                             /* P r^6 + Q r^4 */ \
        LOAD_PAIR(q, in + 64);                  /* R */ \
        STEP8_RX(X_ROWS);                       /* + R r^2 + X r^8 */ \
        LOAD_PAIR(q, in + 96);                  /* S */ \
        CARRY(x, d); \
        ADD5(x, q); \
        in += 128; \
    } \
    if (ng > 0) { \
        LOAD_PAIR(q, in);                       /* P */ \
        STEP4(X_ROWS);                          /* P r^2 + X r^4 */ \
        LOAD_PAIR(q, in + 32);                  /* Q */ \
        CARRY(x, d); \
        ADD5(x, q); \
        in += 64; \
    } \
    /* h = lane 0 r^2 + lane 1 r */ \
    PRODUCTS(PAIR_MUL, PAIR_MAC, d, x, p->fin); \
    t[0] = vaddvq_u64(d0); \
    t[1] = vaddvq_u64(d1); \
    t[2] = vaddvq_u64(d2); \
    t[3] = vaddvq_u64(d3); \
    t[4] = vaddvq_u64(d4); \
    poly1305_r64_from_26(&p->sc, t); \
    chacha_wipe(l, sizeof(l)); \
    chacha_wipe(t, sizeof(t)); \
    poly1305_r64_blocks(&p->sc, in, (nb - 2) % 4, padbit); \
}

/*
 * Cycles a byte of the two loops, llvm-mca 19 at 16 KiB (cortex-a57 /
 * -a53 / neoverse-n1 / -v1 / -v2 / -n2; OpenSSL 3.0's and 3.5's NEON loop,
 * four blocks a step: 0.97 / 3.41 / 0.95 / 0.55 / 0.45 / 0.88):
 *   neon       (limbs cut in vector registers)  0.84 / 1.98 / 0.85 / 0.51 / 0.43 / 0.81
 *   neon_wide  (in general registers)           0.98 / 2.34 / 0.92 / 0.53 / 0.40 / 0.82
 * Cutting the limbs in general registers (and, ubfx, extr, one fmov a limb
 * pair) moves some 20 vector operations a pair to the integer pipes; only
 * V2's model, whose multiply-accumulates forward their sum (one cycle an
 * accumulate, four on V1's, N1's and N2's), turns that into fewer cycles.
 */
DEFINE_VECTOR_BLOCKS(vector_blocks_v, LOAD_PAIR_V, X_ROWS_V)
DEFINE_VECTOR_BLOCKS(vector_blocks_g, LOAD_PAIR_G, X_ROWS_G)

/*
 * neon_split's vector steps, with SPLIT_K scalar blocks each: the whole loop
 * in one asm statement. Built by GCC 12 from the intrinsics above with the
 * MAC blocks as asm between them, the step spilled four of the twelve table
 * registers and moved the scalar state between registers; llvm-mca 19,
 * Neoverse N1: 136 cycles a step (0.77 a byte), its vector pipe V0 busy 131
 * of them, 100 with the multiplies that only V0 takes, the rest operations
 * either vector pipe could have run. Here the registers are fixed and the
 * limbs of two blocks share a register, low and high half (umlal takes
 * the low one, umlal2 the high one): one uzp1, shrn2 or bic cuts or masks
 * two limbs, 163 vector operations a step against 184; N1 111 cycles a
 * step (0.63 a byte), V0 busy 111. The rows, their order, the carries and
 * the limb bounds are those of DEFINE_VECTOR_BLOCKS (STEP8_PQ, STEP8_RX
 * with X_ROWS_V, CARRY, ADD5), the scalar block POLY1305_R64_A64_STEP.
 * Whole scalar blocks at three points of the step model as well as blocks
 * spread an instruction at a time (0.63 a byte on N1 either way).
 *
 * Registers: sums d0-d4 in v0-v4; blocks P, Q, R, S of a step cut from
 * ld2 pairs (v5, v6), (v7, v8), (v9, v10), (v5, v6) into limbs 0 and 2
 * (v5, v7, v9, v5), 1 and 3 (v11, v12, v13, v11) and 4 (P, Q in v14;
 * S, R in v15); v16, v17 scratch; the mask 2^26 - 1 of 64-bit lanes in
 * v22; the tables in v23-v31 (split_tab): elements 0-3 and 4-7 of r^2 in
 * v23, v24, r^4 in v25, v26, r^6 in v27, v28, r^8 in v29, v30, and
 * element 8 of each in v31.s[0..3]; X in the operands x02, x13, x4.
 */
#define SV_E0(lo, hi, k) lo ".s[0]"
#define SV_E1(lo, hi, k) lo ".s[1]"
#define SV_E2(lo, hi, k) lo ".s[2]"
#define SV_E3(lo, hi, k) lo ".s[3]"
#define SV_E4(lo, hi, k) hi ".s[0]"
#define SV_E5(lo, hi, k) hi ".s[1]"
#define SV_E6(lo, hi, k) hi ".s[2]"
#define SV_E7(lo, hi, k) hi ".s[3]"
#define SV_E8(lo, hi, k) "v31.s[" k "]"
#define SV_R2 "v23", "v24", "0"
#define SV_R4 "v25", "v26", "1"
#define SV_R6 "v27", "v28", "2"
#define SV_R8 "v29", "v30", "3"
#define SV_CALL(m, args) m args
#define SV_EL(T, e) SV_CALL(SV_E##e, (SV_##T))
/* d_k += limb i (src: a register's low .2s with umull/umlal, high .4s with umlal2) E(k - i) */
#define SV_ROW(op, src, T, e0, e1, e2, e3, e4) \
    op " v0.2d, " src ", " SV_EL(T, e0) "\n\t" \
    op " v1.2d, " src ", " SV_EL(T, e1) "\n\t" \
    op " v2.2d, " src ", " SV_EL(T, e2) "\n\t" \
    op " v3.2d, " src ", " SV_EL(T, e3) "\n\t" \
    op " v4.2d, " src ", " SV_EL(T, e4) "\n\t"
#define SV_ROW0(op, src, T) SV_ROW(op, src, T, 0, 1, 2, 3, 4)
#define SV_ROW1(op, src, T) SV_ROW(op, src, T, 8, 0, 1, 2, 3)
#define SV_ROW2(op, src, T) SV_ROW(op, src, T, 7, 8, 0, 1, 2)
#define SV_ROW3(op, src, T) SV_ROW(op, src, T, 6, 7, 8, 0, 1)
#define SV_ROW4(op, src, T) SV_ROW(op, src, T, 5, 6, 7, 8, 0)
/* a block pair's five rows, limbs 0, 2 in l02, 1, 3 in l13, 4 as op4 src4 */
#define SV_ROWS(op0, l02, l13, op4, src4, T) \
    SV_ROW0(op0, l02 ".2s", T) SV_ROW1("umlal", l13 ".2s", T) \
    SV_ROW2("umlal2", l02 ".4s", T) SV_ROW3("umlal2", l13 ".4s", T) \
    SV_ROW4(op4, src4, T)
/* X's rows in X_ROWS_V's order */
#define SV_X_ROWS(T) \
    SV_ROW2("umlal2", "%[x02].4s", T) SV_ROW0("umlal", "%[x02].2s", T) \
    SV_ROW1("umlal", "%[x13].2s", T) SV_ROW3("umlal2", "%[x13].4s", T) \
    SV_ROW4("umlal", "%[x4].2s", T)
/*
 * The next block pair at vin as limbs (LOAD_PAIR_V): a, b the ld2 pair
 * (low, high halves of the blocks), limbs 0 and 2 to a, 1 and 3 to l13,
 * limb 4 left in b's 64-bit lanes (unmasked: below 2^24) for SV_LIMB4
 */
#define SV_LOAD(a, b, l13, t) \
    "ld2 {" a ".2d, " b ".2d}, [%[vin]], #32\n\t" \
    "shl " t ".2d, " b ".2d, #12\n\t" \
    "sri " t ".2d, " a ".2d, #52\n\t" \
    "shrn " l13 ".2s, " a ".2d, #26\n\t" \
    "shrn2 " l13 ".4s, " b ".2d, #14\n\t" \
    "uzp1 " a ".4s, " a ".4s, " t ".4s\n\t" \
    "bic " a ".4s, #252, lsl #24\n\t" \
    "bic " l13 ".4s, #252, lsl #24\n\t" \
    "ushr " b ".2d, " b ".2d, #40\n\t"
/* limb 4 of two pairs (lo, hi: their b) in one register, plus 2^128 */
#define SV_LIMB4(d, lo, hi) \
    "uzp1 " d ".4s, " lo ".4s, " hi ".4s\n\t" \
    "orr " d ".4s, #1, lsl #24\n\t"
/* CARRY, into X's registers */
#define SV_CARRY_STEP(i, j) \
    "usra v" #j ".2d, v" #i ".2d, #26\n\t" \
    "and v" #i ".16b, v" #i ".16b, v22.16b\n\t"
#define SV_CARRY \
    SV_CARRY_STEP(0, 1) SV_CARRY_STEP(3, 4) SV_CARRY_STEP(1, 2) \
    "ushr v16.2d, v4.2d, #26\n\t" \
    "and v4.16b, v4.16b, v22.16b\n\t" \
    "add v0.2d, v0.2d, v16.2d\n\t" \
    "shl v16.2d, v16.2d, #2\n\t" \
    "add v0.2d, v0.2d, v16.2d\n\t" \
    SV_CARRY_STEP(2, 3) SV_CARRY_STEP(0, 1) SV_CARRY_STEP(3, 4) \
    "uzp1 %[x02].4s, v0.4s, v2.4s\n\t" \
    "uzp1 %[x13].4s, v1.4s, v3.4s\n\t" \
    "xtn %[x4].2s, v4.2d\n\t"
#define SV_MAC POLY1305_R64_A64_STEP("")

/*
 * The 2 + 8 s blocks at in in the lanes (the accumulator added to the
 * first), 3 s blocks at c->in into c's accumulator, as
 * vector_blocks_v(p, in, 16 (2 + 8 s), 1) and MAC_BLOCK 3 s times would.
 */
static __attribute__((noinline)) void split_vector_blocks(poly1305_neon_st *p,
                                                          const uint8_t *in,
                                                          size_t s, stitched_mac *c)
{
    const uint32x2_t mask = vdup_n_u32(M26), hib = vdup_n_u32(1u << 24);
    uint32x2_t x0, x1, x2, x3, x4;
    uint32x4_t x02, x13;
    uint64x2_t d0, d1, d2, d3, d4;
    uint64_t h0 = c->h0, h1 = c->h1, h2 = c->h2, m0, m1, t0, t1, t2, t3;
    const uint8_t *cin = c->in;
    uint32_t l[5];
    uint64_t t[5];

    if (!p->have_powers)
        compute_powers(p);
    /* X = the first pair, the accumulator added to lane 0 */
    poly1305_r64_to_26(&p->sc, l);
    LOAD_PAIR_V(x, in);
    x0 = vadd_u32(x0, vset_lane_u32(l[0], vdup_n_u32(0), 0));
    x1 = vadd_u32(x1, vset_lane_u32(l[1], vdup_n_u32(0), 0));
    x2 = vadd_u32(x2, vset_lane_u32(l[2], vdup_n_u32(0), 0));
    x3 = vadd_u32(x3, vset_lane_u32(l[3], vdup_n_u32(0), 0));
    x4 = vadd_u32(x4, vset_lane_u32(l[4], vdup_n_u32(0), 0));
    in += 32;
    x02 = vcombine_u32(x0, x2);
    x13 = vcombine_u32(x1, x3);
    __asm__("ldp q23, q24, [%[tab]]\n\t"
            "ldp q25, q26, [%[tab], #32]\n\t"
            "ldp q27, q28, [%[tab], #64]\n\t"
            "ldp q29, q30, [%[tab], #96]\n\t"
            "ldr q31, [%[tab], #128]\n\t"
            "mov %w[t0], #0x3ffffff\n\t"
            "dup v22.2d, %[t0]\n"
            "1:\n\t"
            SV_MAC
            SV_LOAD("v5", "v6", "v11", "v16")               /* P */
            SV_LOAD("v7", "v8", "v12", "v17")               /* Q */
            SV_LIMB4("v14", "v6", "v8")
            SV_ROWS("umull", "v5", "v11", "umlal", "v14.2s", R6)   /* P r^6 */
            SV_ROWS("umlal", "v7", "v12", "umlal2", "v14.4s", R4)  /* + Q r^4 */
            SV_MAC
            SV_LOAD("v9", "v10", "v13", "v16")              /* R */
            SV_LOAD("v5", "v6", "v11", "v17")               /* S */
            SV_LIMB4("v15", "v6", "v10")
            SV_ROWS("umlal", "v9", "v13", "umlal2", "v15.4s", R2)  /* + R r^2 */
            SV_MAC
            SV_X_ROWS(R8)                                /* + X r^8 */
            SV_CARRY
            "add %[x02].4s, %[x02].4s, v5.4s\n\t"           /* X += S */
            "add %[x13].4s, %[x13].4s, v11.4s\n\t"
            "add %[x4].2s, %[x4].2s, v15.2s\n\t"
            "subs %[n], %[n], #1\n\t"
            "b.ne 1b"
            : [x02] "+w"(x02), [x13] "+w"(x13), [x4] "+w"(x4), [vin] "+r"(in),
              [n] "+r"(s),
              POLY1305_R64_A64_OUT(h0, h1, h2, cin, m0, m1, t0, t1, t2, t3)
            : [tab] "r"(p->split_tab),
              POLY1305_R64_A64_IN(c->r0, c->r1, c->s1, (uint64_t)1)
            : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7",
              "v8", "v9", "v10", "v11", "v12", "v13", "v14", "v15", "v16",
              "v17", "v22", "v23", "v24", "v25", "v26", "v27", "v28", "v29",
              "v30", "v31");
    x0 = vget_low_u32(x02);
    x2 = vget_high_u32(x02);
    x1 = vget_low_u32(x13);
    x3 = vget_high_u32(x13);
    /* h = lane 0 r^2 + lane 1 r */
    PRODUCTS(PAIR_MUL, PAIR_MAC, d, x, p->fin);
    t[0] = vaddvq_u64(d0);
    t[1] = vaddvq_u64(d1);
    t[2] = vaddvq_u64(d2);
    t[3] = vaddvq_u64(d3);
    t[4] = vaddvq_u64(d4);
    poly1305_r64_from_26(&p->sc, t);
    c->h0 = h0;
    c->h1 = h1;
    c->h2 = h2;
    c->in = cin;
    chacha_wipe(l, sizeof(l));
    chacha_wipe(t, sizeof(t));
}

/* d = x e: limbs x (each below 2^27) by the table element e of a power */
#define SC_MUL(d, x, T, e) ((uint64_t)(x) * (T)[e])
#define SC_MAC(d, x, T, e) ((d) + (uint64_t)(x) * (T)[e])
static void mul_table(uint64_t d[5], const uint32_t x[5], const uint32_t e[9])
{
    const uint32_t x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3], x4 = x[4];
    uint64_t d0, d1, d2, d3, d4;

    PRODUCTS(SC_MUL, SC_MAC, d, x, e);
    d[0] = d0;
    d[1] = d1;
    d[2] = d2;
    d[3] = d3;
    d[4] = d4;
}

/* h = h r^(2^j), partially reduced (h2 <= 4) */
static void mul_rpow(poly1305_r64 *h, const uint32_t e[9])
{
    uint32_t x[5];
    uint64_t d[5];

    poly1305_r64_to_26(h, x);
    mul_table(d, x, e);
    poly1305_r64_from_26(h, d);
    chacha_wipe(x, sizeof(x));
    chacha_wipe(d, sizeof(d));
}

/* the tables of r^(2^j) for j < n (n <= SPLIT_POWERS) */
static void need_rpow(poly1305_neon_st *p, uint32_t n)
{
    poly1305_r64 t;
    uint64_t d[5];

    if (p->n_rpow == 0) {       /* r, and r^2, r^4, r^8 of the vector steps */
        power_table(p->rpow[0], p->sc.r[0], p->sc.r[1], 0);
        memcpy(p->rpow[1], p->r2, sizeof(p->rpow[1]));
        memcpy(p->rpow[2], p->r4, sizeof(p->rpow[2]));
        memcpy(p->rpow[3], p->r8, sizeof(p->rpow[3]));
        p->n_rpow = 4;
    }
    for (; p->n_rpow < n; p->n_rpow++) {
        const uint32_t *e = p->rpow[p->n_rpow - 1];

        mul_table(d, e, e);
        poly1305_r64_from_26(&t, d);
        power_table(p->rpow[p->n_rpow], t.h[0], t.h[1], t.h[2]);
    }
    chacha_wipe(&t, sizeof(t));
    chacha_wipe(d, sizeof(d));
}

/*
 * neon_split: a run of nb blocks as A, 2 + 8 s blocks in the vector lanes,
 * then S, SPLIT_K s blocks, on the integer pipes during the same steps
 * (MAC_BLOCK from a zero accumulator: h_S = the sum of m_i r^(ns - i + 1)),
 * joined as h = h_A r^ns + h_S, r^ns the product of the kept r^(2^j) of
 * ns's bits (ns public: the branches depend only on the length); the rest
 * (under 8 + SPLIT_K blocks) in the scalar loop. llvm-mca 19, 16 KiB, a
 * step of 8 + 3 blocks (split_vector_blocks) against neon's 8, cycles a
 * byte (cortex-a57 / -a53 / neoverse-n1 / -v1 / -v2 / -n2): 0.66 / 2.49 /
 * 0.63 / 0.38 / 0.29 / 0.58 against 0.84 / 1.98 / 0.85 / 0.51 / 0.43 /
 * 0.81; worse on the in-order A53, so auto takes it on the Neoverse cores
 * only (ARM_WIDE).
 */
static __attribute__((noinline)) void split_blocks(poly1305_neon_st *p,
                                                   const uint8_t *in, size_t len)
{
    size_t nb = len / 16;
    uint32_t j;

    while (nb >= 2 + 8 + SPLIT_K) {
        size_t s = (nb - 2) / (8 + SPLIT_K), ns, na;
        stitched_mac c;
        uint64_t c0;
        poly1305_u128 acc;

        if (s > ((1u << SPLIT_POWERS) - 1) / SPLIT_K)
            s = ((1u << SPLIT_POWERS) - 1) / SPLIT_K;
        ns = SPLIT_K * s;
        na = 2 + 8 * s;
        c = (stitched_mac){ 0, 0, 0, p->sc.r[0], p->sc.r[1],
                            p->sc.r[1] + (p->sc.r[1] >> 2), in + 16 * na };
        split_vector_blocks(p, in, s, &c);
        for (j = 0; (ns >> j) != 0; j++)
            if ((ns >> j) & 1) {
                need_rpow(p, j + 1);
                mul_rpow(&p->sc, p->rpow[j]);
            }
        /* h += h_S (h2 <= 4 each), then fold h2 back to <= 4 */
        acc = (poly1305_u128)p->sc.h[0] + c.h0;
        p->sc.h[0] = (uint64_t)acc;
        acc = (acc >> 64) + p->sc.h[1] + c.h1;
        p->sc.h[1] = (uint64_t)acc;
        p->sc.h[2] += c.h2 + (uint64_t)(acc >> 64);
        c0 = (p->sc.h[2] >> 2) * 5;
        p->sc.h[2] &= 3;
        acc = (poly1305_u128)p->sc.h[0] + c0;
        p->sc.h[0] = (uint64_t)acc;
        acc = (acc >> 64) + p->sc.h[1];
        p->sc.h[1] = (uint64_t)acc;
        p->sc.h[2] += (uint64_t)(acc >> 64);
        chacha_wipe(&c, sizeof(c));
        chacha_wipe(&acc, sizeof(acc));
        in += 16 * (na + ns);
        nb -= na + ns;
    }
    poly1305_r64_blocks(&p->sc, in, nb, 1);
}

static void neon_init(poly1305_state *st, const uint8_t key[32])
{
    poly1305_neon_st *p = (poly1305_neon_st *)st->opaque;

    poly1305_r64_init(&p->sc, key);
    p->have_powers = 0;
    p->n_rpow = 0;
}

static inline void blocks_with(poly1305_state *st, const uint8_t *in, size_t len,
                               uint32_t padbit,
                               void (*vector)(poly1305_neon_st *, const uint8_t *,
                                              size_t, uint32_t))
{
    poly1305_neon_st *p = (poly1305_neon_st *)st->opaque;

    /* the branch depends only on the public length; the long path is a
       tail call, so the short one makes no frame */
    if (len >= POLY1305_NEON_MIN)
        vector(p, in, len, padbit);
    else
        poly1305_r64_blocks(&p->sc, in, len / 16, padbit);
}

static void neon_blocks(poly1305_state *st, const uint8_t *in, size_t len,
                        uint32_t padbit)
{
    blocks_with(st, in, len, padbit, vector_blocks_v);
}

static void neon_wide_blocks(poly1305_state *st, const uint8_t *in, size_t len,
                             uint32_t padbit)
{
    blocks_with(st, in, len, padbit, vector_blocks_g);
}

/*
 * Runs from SPLIT_MIN_LEN of full blocks (padbit 1) split; the others (and a
 * last partial block) as neon's
 */
void poly1305_neon_split_blocks(poly1305_state *st, const uint8_t *in, size_t len,
                                uint32_t padbit)
{
    poly1305_neon_st *p = (poly1305_neon_st *)st->opaque;

    if (len >= SPLIT_MIN_LEN && padbit == 1)
        split_blocks(p, in, len);
    else
        blocks_with(st, in, len, padbit, vector_blocks_v);
}

static void neon_emit(poly1305_state *st, uint8_t mac[16])
{
    poly1305_neon_st *p = (poly1305_neon_st *)st->opaque;

    poly1305_r64_emit(&p->sc, mac);
    /* the powers of r exist only if a long run took the vector path (two
       constant sizes: each wipe a few straight stores) */
    if (p->have_powers)
        chacha_wipe(st->opaque, sizeof(*p));
    else
        chacha_wipe(st->opaque, sizeof(p->sc));
}

const poly1305_kernel poly1305_neon_kernel = {
    .name = "neon",
    .caps = CHACHA_CAP_NEON,
    .init = neon_init,
    .blocks = neon_blocks,
    .emit = neon_emit,
};

/*
 * The same state, init and emit: the fused AEAD kernels made for neon take
 * it too (.pairs_as). auto takes it on the cores of ARM_MAC_FWD (Neoverse
 * V2, V3).
 */
const poly1305_kernel poly1305_neon_wide_kernel = {
    .name = "neon_wide",
    .caps = CHACHA_CAP_NEON,
    .prefer = CHACHA_CAP_ARM_MAC_FWD,
    .pairs_as = &poly1305_neon_kernel,
    .init = neon_init,
    .blocks = neon_wide_blocks,
    .emit = neon_emit,
};

/*
 * neon's vector steps with SPLIT_K scalar blocks beside each (above): auto
 * takes it on the Neoverse cores (ARM_WIDE); the same state, init and emit
 * (.pairs_as: the fused AEAD kernels made for neon take it too).
 */
const poly1305_kernel poly1305_neon_split_kernel = {
    .name = "neon_split",
    .caps = CHACHA_CAP_NEON,
    .prefer = CHACHA_CAP_ARM_WIDE,
    .pairs_as = &poly1305_neon_kernel,
    .init = neon_init,
    .blocks = poly1305_neon_split_blocks,
    .emit = neon_emit,
};
