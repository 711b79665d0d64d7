/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The intrinsics template of the x86-64 ChaCha20 kernels, included once per
 * vector width. The including file defines the parameters below, includes this
 * header, and gets two kernels named after CT_PFX:
 *
 *   CT_PFX_vrounds, CT_PFX_vgroup: "vertical" layout, one state word per
 *       vector and one block per 32-bit lane (CT_LANES blocks at once) in a
 *       CT_PFX_state block, rounds and then rows transposed back to block
 *       order, a group of four words at a time;
 *   CT_PFX_hrounds: "horizontal" layout, one state row per 128-bit lane, for
 *       1..3 independent block sets at once (short inputs and tails);
 *   CT_PFX_hchacha20 (128-bit vectors only): HChaCha20 in rows.
 *
 * Included without CT_PFX, it provides only the shared macros and helpers.
 * Parameters (all undefined again at the end of this file):
 *   CT_PFX                     name prefix
 *   CT_V                       vector type
 *   CT_LANES                   32-bit lanes per vector
 *   CT_ADD(a, b), CT_XOR(a, b) lane-wise 32-bit add and xor
 *   CT_ROT16(x), CT_ROT8(x)    rotate each lane left by 16 / 8 (byte shuffles)
 *   CT_ROTL(x, n)              rotate each lane left by n (shift pair)
 *   CT_SHUF(x, imm)            32-bit lane shuffle inside each 128-bit lane
 *   CT_UNPACK{LO,HI}{32,64}    interleaves inside each 128-bit lane
 *   CT_VROUNDS(st, scalar)     optional: the vertical rounds of st (and of
 *                              a ninth block if scalar) in assembly,
 *                              made by chacha20_x86_rounds.h, instead of
 *                              intrinsics
 *   CT_VUNROLL                 optional: unroll the intrinsics' round loop
 *   CT_HXROT(d, a, n)          optional: rotl(d ^ a, n) in the horizontal
 *                              rounds, written as the includer wants
 *   CT_KEEP_OPS                optional: leave the width's operations
 *                              (CT_V .. CT_UNPACK*) defined after the
 *                              include, for a second instance of the same
 *                              width under another CT_PFX
 */

#ifndef CHACHA20_X86_TEMPLATE_COMMON
#define CHACHA20_X86_TEMPLATE_COMMON

#include "chacha20_x86_common.h"

#define CT_CAT2(a, b) a##_##b
#define CT_CAT(a, b) CT_CAT2(a, b)
#define CT_FN(name) CT_CAT(CT_PFX, name)

/*
 * Four quarter-rounds on independent words, one step at a time across all
 * four so that each step offers four independent operations.
 */
#define CT_QR_STEP(a, b, d, ROT) \
    a = CT_ADD(a, b); d = CT_XOR(d, a); d = ROT(d)
#define CT_QR_STEP12(a, b, d) \
    a = CT_ADD(a, b); d = CT_XOR(d, a); d = CT_ROTL(d, 12)
#define CT_QR_STEP7(a, b, d) \
    a = CT_ADD(a, b); d = CT_XOR(d, a); d = CT_ROTL(d, 7)

#define CT_QR4(a0, b0, c0, d0, a1, b1, c1, d1, a2, b2, c2, d2, \
               a3, b3, c3, d3) \
    do { \
        CT_QR_STEP(a0, b0, d0, CT_ROT16); CT_QR_STEP(a1, b1, d1, CT_ROT16); \
        CT_QR_STEP(a2, b2, d2, CT_ROT16); CT_QR_STEP(a3, b3, d3, CT_ROT16); \
        CT_QR_STEP12(c0, d0, b0); CT_QR_STEP12(c1, d1, b1); \
        CT_QR_STEP12(c2, d2, b2); CT_QR_STEP12(c3, d3, b3); \
        CT_QR_STEP(a0, b0, d0, CT_ROT8); CT_QR_STEP(a1, b1, d1, CT_ROT8); \
        CT_QR_STEP(a2, b2, d2, CT_ROT8); CT_QR_STEP(a3, b3, d3, CT_ROT8); \
        CT_QR_STEP7(c0, d0, b0); CT_QR_STEP7(c1, d1, b1); \
        CT_QR_STEP7(c2, d2, b2); CT_QR_STEP7(c3, d3, b3); \
    } while (0)

/*
 * One quarter-round on four rows (horizontal layout). Each step is
 * a += b; d = rotl(d ^ a, n) through CT_HXROT(d, a, n), which an includer
 * may define to shorten the latency (see CT_HXROT in the parameters);
 * by default the xor and then CT_ROT16, CT_ROT8 or CT_ROTL.
 */
#define CT_ROTN_16(x) CT_ROT16(x)
#define CT_ROTN_12(x) CT_ROTL(x, 12)
#define CT_ROTN_8(x) CT_ROT8(x)
#define CT_ROTN_7(x) CT_ROTL(x, 7)
#define CT_HSTEP(a, b, d, n) a = CT_ADD(a, b); d = CT_HXROT(d, a, n)
#define CT_QR_ROWS(a, b, c, d) \
    do { \
        CT_HSTEP(a, b, d, 16); CT_HSTEP(c, d, b, 12); \
        CT_HSTEP(a, b, d, 8); CT_HSTEP(c, d, b, 7); \
    } while (0)

/*
 * Column round, then diagonal round, on rows a..d. Row b finishes last in
 * each round, so the diagonals are formed by rotating a, c and d instead of
 * b: those shuffles run while b is still being computed and stay off the
 * critical path.
 */
#define CT_DROUND_ROWS(a, b, c, d) \
    do { \
        CT_QR_ROWS(a, b, c, d); \
        a = CT_SHUF(a, 0x93); c = CT_SHUF(c, 0x39); d = CT_SHUF(d, 0x4e); \
        CT_QR_ROWS(a, b, c, d); \
        a = CT_SHUF(a, 0x39); c = CT_SHUF(c, 0x93); d = CT_SHUF(d, 0x4e); \
    } while (0)

/* the words of a vertical state array x in locals x0..x15, and back */
#define CT_X_LOAD(x) \
    CT_V x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3]; \
    CT_V x4 = x[4], x5 = x[5], x6 = x[6], x7 = x[7]; \
    CT_V x8 = x[8], x9 = x[9], x10 = x[10], x11 = x[11]; \
    CT_V x12 = x[12], x13 = x[13], x14 = x[14], x15 = x[15]
#define CT_X_STORE(x) \
    do { \
        x[0] = x0; x[1] = x1; x[2] = x2; x[3] = x3; \
        x[4] = x4; x[5] = x5; x[6] = x6; x[7] = x7; \
        x[8] = x8; x[9] = x9; x[10] = x10; x[11] = x11; \
        x[12] = x12; x[13] = x13; x[14] = x14; x[15] = x15; \
    } while (0)

#endif /* CHACHA20_X86_TEMPLATE_COMMON */

#ifdef CT_PFX   /* without it, only the common part above */

#ifndef CT_HXROT
# define CT_HXROT(d, a, n) CT_CAT(CT_ROTN, n)(CT_XOR(d, a))
#endif

/*
 * State block of the vertical kernel (layout fixed by chacha20_x86_rounds.h): in[]
 * holds the 16 input words broadcast to every lane, with lane i of in[12] =
 * counter + i; m[] the rotate masks; sin[] the words of the scalar block, if
 * any (its counter follows the last lane's).
 */
typedef struct {
    CT_V in[16], out[16], m[2];
    union {
        uint32_t sin[16];
        uint64_t aux[8];    /* or what another hooked stream keeps there */
    };
    uint32_t sx[16];
    uint32_t n, pad[15];
} CT_FN(state);

_Static_assert(offsetof(CT_FN(state), out) == 16 * sizeof(CT_V), "layout");
_Static_assert(offsetof(CT_FN(state), sin) == 34 * sizeof(CT_V), "layout");
_Static_assert(offsetof(CT_FN(state), sx) == 34 * sizeof(CT_V) + 64, "layout");
_Static_assert(offsetof(CT_FN(state), n) == 34 * sizeof(CT_V) + 128, "layout");

#ifndef CT_VROUNDS
/*
 * Register-resident forms of the vertical kernel (intrinsics only), for
 * kernels that keep the working state out of memory:
 *   CT_FN(vround_pre)(x): the part of the first column round that does not
 *       depend on the block counter (word 12): quarter-rounds 1-3 and the
 *       first addition of quarter-round 0. A run of passes does it once.
 *   CT_FN(vrounds_x)(x, pre): the 20 rounds on x in place; with pre (a
 *       constant), x is the state after CT_FN(vround_pre) with word 12 set.
 *       Also as single double rounds (CT_FN(vdround), CT_FN(vdround_pre)),
 *       for kernels that put other work between them.
 */
CHACHA_INLINE void CT_FN(vround_pre)(CT_V x[16])
{
    CT_QR_STEP(x[1], x[5], x[13], CT_ROT16);
    CT_QR_STEP(x[2], x[6], x[14], CT_ROT16);
    CT_QR_STEP(x[3], x[7], x[15], CT_ROT16);
    CT_QR_STEP12(x[9], x[13], x[5]);
    CT_QR_STEP12(x[10], x[14], x[6]);
    CT_QR_STEP12(x[11], x[15], x[7]);
    CT_QR_STEP(x[1], x[5], x[13], CT_ROT8);
    CT_QR_STEP(x[2], x[6], x[14], CT_ROT8);
    CT_QR_STEP(x[3], x[7], x[15], CT_ROT8);
    CT_QR_STEP7(x[9], x[13], x[5]);
    CT_QR_STEP7(x[10], x[14], x[6]);
    CT_QR_STEP7(x[11], x[15], x[7]);
    x[0] = CT_ADD(x[0], x[4]);
}

/* One double round on x in place. */
CHACHA_INLINE void CT_FN(vdround)(CT_V x[16])
{
    CT_X_LOAD(x);

    CT_QR4(x0, x4, x8, x12, x1, x5, x9, x13,
           x2, x6, x10, x14, x3, x7, x11, x15);
    CT_QR4(x0, x5, x10, x15, x1, x6, x11, x12,
           x2, x7, x8, x13, x3, x4, x9, x14);
    CT_X_STORE(x);
}

/* The first double round after CT_FN(vround_pre) (word 12 set). */
CHACHA_INLINE void CT_FN(vdround_pre)(CT_V x[16])
{
    CT_X_LOAD(x);

    /* the rest of the first column round: quarter-round 0 */
    x12 = CT_XOR(x12, x0);
    x12 = CT_ROT16(x12);
    CT_QR_STEP12(x8, x12, x4);
    CT_QR_STEP(x0, x4, x12, CT_ROT8);
    CT_QR_STEP7(x8, x12, x4);
    CT_QR4(x0, x5, x10, x15, x1, x6, x11, x12,
           x2, x7, x8, x13, x3, x4, x9, x14);
    CT_X_STORE(x);
}

CHACHA_INLINE void CT_FN(vrounds_x)(CT_V x[16], int pre)
{
    int i = 0;

    if (pre) {
        CT_FN(vdround_pre)(x);
        i = 1;
    }
#ifdef CT_VUNROLL
    _Pragma("GCC unroll 10")    /* gcc 12, zmm: 6% faster fully unrolled */
#endif
    for (; i < 10; i++)
        CT_FN(vdround)(x);
}

#endif /* !CT_VROUNDS */

/*
 * The 20 rounds of the vertical kernel, st->in to st->out, and if scalar
 * (a constant; CT_VROUNDS only) of the scalar block, st->sin to st->sx, both
 * without the feed-forward.
 */
CHACHA_INLINE void CT_FN(vrounds)(CT_FN(state) *st, int scalar)
{
#ifdef CT_VROUNDS
    CT_VROUNDS(st, scalar);
#else
    CT_V x[16];
    int i;

    (void)scalar;   /* only the assembly has a scalar block */
    for (i = 0; i < 16; i++)
        x[i] = st->in[i];
    CT_FN(vrounds_x)(x, 0);
    for (i = 0; i < 16; i++)
        st->out[i] = x[i];
#endif
}

/*
 * Feed-forward and 4x4 transpose of words 4g..4g+3 of the rounds' output x
 * and the input state in: w[j] = row g (bytes 16g..16g+15) of the block in
 * lane j of each 128-bit lane, j = 0..3 (for wider vectors, 128-bit lane L
 * holds block 4L + j).
 */
CHACHA_INLINE void CT_FN(vgroup_x)(CT_V w[4], const CT_V x[16],
                         const CT_V in[16], int g)
{
    CT_V w0 = CT_ADD(x[4 * g + 0], in[4 * g + 0]);
    CT_V w1 = CT_ADD(x[4 * g + 1], in[4 * g + 1]);
    CT_V w2 = CT_ADD(x[4 * g + 2], in[4 * g + 2]);
    CT_V w3 = CT_ADD(x[4 * g + 3], in[4 * g + 3]);
    CT_V t0 = CT_UNPACKLO32(w0, w1), t1 = CT_UNPACKHI32(w0, w1);
    CT_V t2 = CT_UNPACKLO32(w2, w3), t3 = CT_UNPACKHI32(w2, w3);

    w[0] = CT_UNPACKLO64(t0, t2);
    w[1] = CT_UNPACKHI64(t0, t2);
    w[2] = CT_UNPACKLO64(t1, t3);
    w[3] = CT_UNPACKHI64(t1, t3);
}

/* CT_FN(vgroup_x) after vrounds, from the state block */
CHACHA_INLINE void CT_FN(vgroup)(CT_V w[4], const CT_FN(state) *st, int g)
{
    CT_FN(vgroup_x)(w, st->out, st->in, g);
}


/* Three horizontal sets from rows a..d, d advanced by step from set to set. */
CHACHA_INLINE void CT_FN(hsets)(CT_V v[12], CT_V a, CT_V b, CT_V c, CT_V d,
                         CT_V step)
{
    int k;

    for (k = 0; k < 3; k++) {
        v[4 * k] = a;
        v[4 * k + 1] = b;
        v[4 * k + 2] = c;
        v[4 * k + 3] = d;
        d = CT_ADD(d, step);
    }
}

/*
 * One double round of the horizontal layout (see CT_FN(hrounds)) on nsets
 * sets in place, no feed-forward: for kernels that run sets of different
 * widths side by side.
 */
CHACHA_INLINE void CT_FN(hdround)(CT_V v[12], int nsets)
{
    CT_DROUND_ROWS(v[0], v[1], v[2], v[3]);
    if (nsets > 1)
        CT_DROUND_ROWS(v[4], v[5], v[6], v[7]);
    if (nsets > 2)
        CT_DROUND_ROWS(v[8], v[9], v[10], v[11]);
}

/*
 * Horizontal kernel: v[4 * k .. 4 * k + 3] are rows a..d of set k, for
 * nsets (1..3, a compile-time constant after inlining) independent sets.
 * Runs the 20 rounds and adds the input rows back.
 */
CHACHA_INLINE void CT_FN(hrounds)(CT_V v[12], int nsets)
{
    CT_V a0 = v[0], b0 = v[1], c0 = v[2], d0 = v[3];
    CT_V a1 = v[4], b1 = v[5], c1 = v[6], d1 = v[7];
    CT_V a2 = v[8], b2 = v[9], c2 = v[10], d2 = v[11];
    int i;

    for (i = 0; i < 10; i++) {
        CT_DROUND_ROWS(a0, b0, c0, d0);
        if (nsets > 1)
            CT_DROUND_ROWS(a1, b1, c1, d1);
        if (nsets > 2)
            CT_DROUND_ROWS(a2, b2, c2, d2);
    }
    v[0] = CT_ADD(a0, v[0]); v[1] = CT_ADD(b0, v[1]);
    v[2] = CT_ADD(c0, v[2]); v[3] = CT_ADD(d0, v[3]);
    if (nsets > 1) {
        v[4] = CT_ADD(a1, v[4]); v[5] = CT_ADD(b1, v[5]);
        v[6] = CT_ADD(c1, v[6]); v[7] = CT_ADD(d1, v[7]);
    }
    if (nsets > 2) {
        v[8] = CT_ADD(a2, v[8]); v[9] = CT_ADD(b2, v[9]);
        v[10] = CT_ADD(c2, v[10]); v[11] = CT_ADD(d2, v[11]);
    }
}

#if CT_LANES == 4
/*
 * HChaCha20 (draft-irtf-cfrg-xchacha-03 2.2): one block in rows, the 20
 * rounds without the feed-forward; out = row a || row d. About 15% faster
 * than the portable scalar rounds on Zen 4 (both are latency-bound on one
 * block), which is the HChaCha20 share of a short XChaCha20-Poly1305 record.
 */
CHACHA_INLINE void CT_FN(hchacha20)(uint32_t out[8], const uint32_t key[8],
                         const uint32_t in[4])
{
    CT_V a = _mm_setr_epi32((int)CHACHA_SIGMA0, (int)CHACHA_SIGMA1,
                            (int)CHACHA_SIGMA2, (int)CHACHA_SIGMA3);
    CT_V b = _mm_loadu_si128((const CT_V *)(const void *)key);
    CT_V c = _mm_loadu_si128((const CT_V *)(const void *)(key + 4));
    CT_V d = _mm_loadu_si128((const CT_V *)(const void *)in);
    int i;

    for (i = 0; i < 10; i++)
        CT_DROUND_ROWS(a, b, c, d);
    _mm_storeu_si128((CT_V *)(void *)out, a);
    _mm_storeu_si128((CT_V *)(void *)(out + 4), d);
}
#endif

#undef CT_PFX
#undef CT_VROUNDS
#undef CT_VUNROLL
#undef CT_HXROT
#ifdef CT_KEEP_OPS
#undef CT_KEEP_OPS
#else
#undef CT_V
#undef CT_LANES
#undef CT_ADD
#undef CT_XOR
#undef CT_ROT16
#undef CT_ROT8
#undef CT_ROTL
#undef CT_SHUF
#undef CT_UNPACKLO32
#undef CT_UNPACKHI32
#undef CT_UNPACKLO64
#undef CT_UNPACKHI64
#endif

#endif /* CT_PFX */
