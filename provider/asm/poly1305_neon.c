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

typedef struct {
    poly1305_r64 sc;        /* first: the scalar state (poly1305_r64_of) */
    uint64_t have_powers;
    /*
     * Elements 0-4: limbs of the power, 5-8: 5 times limbs 1-4 (2^130 = 5
     * mod p), for by-element multiplies: r^4, r^2, and (fin) the final
     * per-lane powers (r^2, r) as pairs.
     */
    uint32_t r4[12], r2[12];
    uint32_t fin[9][2];
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
    p->r4[9] = p->r4[10] = p->r4[11] = 0;
    p->r2[9] = p->r2[10] = p->r2[11] = 0;
    for (i = 0; i < 9; i++) {
        p->fin[i][0] = e2[i];
        p->fin[i][1] = e1[i];
    }
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

/* by element of a table held in three q registers T##0..T##2 */
#define EL_MUL(d, x, T, e) vmull_laneq_u32(x, T##_v[(e) / 4], (e) % 4)
#define EL_MAC(d, x, T, e) vmlal_laneq_u32(d, x, T##_v[(e) / 4], (e) % 4)
/* lane by lane, from a table of pairs in memory */
#define PAIR_MUL(d, x, T, e) vmull_u32(x, vld1_u32(T[e]))
#define PAIR_MAC(d, x, T, e) vmlal_u32(d, x, vld1_u32(T[e]))

/*
 * x = a pair of blocks at in as limbs, lanes (block 0, block 1), plus the
 * 2^128 bit hib. ld2 splits the blocks' low and high halves.
 */
#define LOAD_PAIR(x, in) \
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

#define ADD5(x, y) \
    do { \
        x##0 = vadd_u32(x##0, y##0); x##1 = vadd_u32(x##1, y##1); \
        x##2 = vadd_u32(x##2, y##2); x##3 = vadd_u32(x##3, y##3); \
        x##4 = vadd_u32(x##4, y##4); \
    } while (0)

/*
 * Absorb 2 + 4 * ng blocks. Limb bounds: X < 2^28, table elements < 2^29,
 * so each d_k (ten products) < 2^61.
 */
static void vector_blocks(poly1305_neon_st *p, const uint8_t *in, size_t ng,
                          uint32_t padbit)
{
    const uint32x2_t mask = vdup_n_u32(M26), hib = vdup_n_u32(padbit << 24);
    const uint64x2_t mask64 = vdupq_n_u64(M26);
    uint32x4_t R4_v[3], R2_v[3];
    uint32x2_t x0, x1, x2, x3, x4, q0, q1, q2, q3, q4;
    uint64x2_t d0, d1, d2, d3, d4;
    uint32_t l[5];
    uint64_t t[5];
    int i;

    if (!p->have_powers)
        compute_powers(p);
    for (i = 0; i < 3; i++) {
        R4_v[i] = vld1q_u32(p->r4 + 4 * i);
        R2_v[i] = vld1q_u32(p->r2 + 4 * i);
    }

    /* X = the first pair, the accumulator added to lane 0 */
    poly1305_r64_to_26(&p->sc, l);
    LOAD_PAIR(x, in);
    x0 = vadd_u32(x0, vset_lane_u32(l[0], vdup_n_u32(0), 0));
    x1 = vadd_u32(x1, vset_lane_u32(l[1], vdup_n_u32(0), 0));
    x2 = vadd_u32(x2, vset_lane_u32(l[2], vdup_n_u32(0), 0));
    x3 = vadd_u32(x3, vset_lane_u32(l[3], vdup_n_u32(0), 0));
    x4 = vadd_u32(x4, vset_lane_u32(l[4], vdup_n_u32(0), 0));
    in += 32;
    for (; ng > 0; ng--) {
        LOAD_PAIR(q, in);                       /* P */
        PRODUCTS(EL_MUL, EL_MAC, d, q, R2);     /* P r^2 */
        PRODUCTS(EL_MAC, EL_MAC, d, x, R4);     /* + X r^4 */
        LOAD_PAIR(q, in + 32);                  /* Q */
        CARRY(x, d);
        ADD5(x, q);
        in += 64;
    }
    /* h = lane 0 r^2 + lane 1 r */
    PRODUCTS(PAIR_MUL, PAIR_MAC, d, x, p->fin);
    t[0] = vaddvq_u64(d0);
    t[1] = vaddvq_u64(d1);
    t[2] = vaddvq_u64(d2);
    t[3] = vaddvq_u64(d3);
    t[4] = vaddvq_u64(d4);
    poly1305_r64_from_26(&p->sc, t);
    chacha_wipe(l, sizeof(l));
    chacha_wipe(t, sizeof(t));
}

static void neon_init(poly1305_state *st, const uint8_t key[32])
{
    poly1305_neon_st *p = (poly1305_neon_st *)st->opaque;

    poly1305_r64_init(&p->sc, key);
    p->have_powers = 0;
}

static void neon_blocks(poly1305_state *st, const uint8_t *in, size_t len,
                        uint32_t padbit)
{
    poly1305_neon_st *p = (poly1305_neon_st *)st->opaque;
    size_t nb = len / 16;

    /* the branch depends only on the public length */
    if (len >= POLY1305_NEON_MIN) {
        size_t ng = (nb - 2) / 4;

        vector_blocks(p, in, ng, padbit);
        in += 16 * (2 + 4 * ng);
        nb -= 2 + 4 * ng;
    }
    poly1305_r64_blocks(&p->sc, in, nb, padbit);
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
