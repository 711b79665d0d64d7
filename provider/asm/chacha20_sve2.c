/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ChaCha20 with SVE2 intrinsics (AArch64), vector-length agnostic: built
 * with -march=armv8-a+sve2 (libasm_sve2.la) and chosen only when the kernel
 * reports SVE and SVE2 (HWCAP_SVE, HWCAP2_SVE2; core/cpu.c). The same file
 * built with -march=armv8-a+sve (libasm_sve.la, no __ARM_FEATURE_SVE2) is
 * the sve_wide kernel, for cores with SVE but not SVE2 (HWCAP_SVE):
 * rotations without XAR (below), two scalar blocks a pass.
 *
 * Vertical layout, as the NEON kernel's 4-block passes: z<i> holds word i
 * of VL/32 blocks, one 32-bit lane per block, so a pass is 16 vectors (16 *
 * VL/8 bytes: 256 at 128-bit vectors, 512 at 256, 1024 at 512; with the
 * scalar block 320, 576, 1088) and the rounds need no lane shuffles. Every
 * rotation is one XAR (exclusive-or and rotate right), so a quarter round
 * is 8 instructions, where NEON needs 14 (eor + rev32 / shl + sri / tbl);
 * SVE without SVE2 takes 14 (eor, then revh for 16, tbl for 8, lsr + mad
 * for 12 and 7).
 *
 * After the rounds the 16 word vectors become 16 vectors of keystream in
 * memory order by a perfect-shuffle network of ZIP1/ZIP2, which works for
 * every vector length because ZIP takes whole vector halves: one level on
 * 32-bit lanes pairs words (2m, 2m+1) of each block (the low halves: the
 * first VL/64 blocks, the high halves: the rest), then three levels on
 * 64-bit lanes interleave the eight pairs of each block in order (pairs m
 * and m + 4, then the results two apart, then one apart). 64 permutes a
 * pass, against 640 round instructions. At 128-bit vectors a 4x4 transpose
 * of each four word vectors does it in 32 (emit_group128).
 *
 * One scalar block per pass rides along on the integer pipes, its steps
 * with the rotation off the chain (SSTEP_PREROT). Input below
 * SVE2_MIN_LEN bytes (512; sve_wide 1025), and what is left after the
 * whole passes, goes to the NEON kernel (neon; sve_wide's to neon_wide).
 */
#include <arm_sve.h>
#include "kernel.h"
#include "util.h"
#include "chacha20_poly1305_neon.h"
#include "chacha20_a64_scalar.h"

#if !defined(__ARM_FEATURE_SVE)
# error "chacha20_sve2.c needs SVE: build it with -march=armv8-a+sve2 or +sve"
#endif
/*
 * Which build: CHACHA_SVE_ONLY (libasm_sve.la's CPPFLAGS) makes the
 * sve_wide kernel only, whatever -march the user's CFLAGS add after ours
 * (SVE2 code there would define the SVE2 kernels twice).
 */
#if defined(CHACHA_SVE_ONLY)
# define SVE2_BUILD 0
#elif defined(__ARM_FEATURE_SVE2)
# define SVE2_BUILD 1
#else
# error "chacha20_sve2.c without CHACHA_SVE_ONLY needs SVE2: -march=armv8-a+sve2"
#endif
#if defined(__ARM_BIG_ENDIAN)
# error "chacha20_sve2.c assumes little-endian lanes"
#endif

#define SVE_INLINE static inline __attribute__((always_inline))

#if SVE2_BUILD
/* a += b; d = (d ^ a) <<< n, the rotation as XAR's right rotation by 32 - n */
#define QSTEP(a, b, d, n) \
    do { \
        a = svadd_u32_x(pg, a, b); \
        d = svxar_n_u32(d, a, 32 - (n)); \
    } while (0)
#else
/*
 * Without SVE2: 16 swaps the halfwords (revh), 8 is a byte table lookup
 * (tbl, its index r8 made once per call), 12 and 7 are a shift right and a
 * multiply-add, x * 2^n + (x >> (32 - n)) (mad, the multiplier m12 or m7
 * made once per call; no shift-and-insert in SVE): 14 instructions a
 * quarter round. On LLVM 19's Neoverse V1 model the shifts and revh run
 * on one vector pipe (V1), mad on the other (V0), add, eor and tbl on
 * either: a double round of VL/32 = 8 blocks takes 64.0 cycles, bound by
 * its dependency chain, where lsl + lsr + orr (16 instructions) take 66.5,
 * bound by the two pipes (bench/sve1-dr.c), and the 16 KiB pass 1.10
 * cycles a byte against 1.13 (GCC 12 makes the mad of the shift form
 * itself once m12 and m7 are in registers). neon_wide's 6 NEON blocks take
 * 60 cycles a double round, bound by their chain.
 */
#define SROT_16(x) svrevh_u32_x(pg, x)
#define SROT_8(x) svreinterpret_u32_u8(svtbl_u8(svreinterpret_u8_u32(x), r8))
#define SROT_12(x) svmad_u32_x(pg, x, m12, svlsr_n_u32_x(pg, x, 20))
#define SROT_7(x) svmad_u32_x(pg, x, m7, svlsr_n_u32_x(pg, x, 25))
#define QSTEP(a, b, d, n) \
    do { \
        a = svadd_u32_x(pg, a, b); \
        d = sveor_u32_x(pg, d, a); \
        d = SROT_##n(d); \
    } while (0)
#endif

/*
 * Four quarter rounds side by side, step by step (each step of one quarter
 * round depends on the step before; the four are independent).
 */
#define QROUND4(a0, b0, c0, d0, a1, b1, c1, d1, a2, b2, c2, d2, a3, b3, c3, d3) \
    do { \
        QSTEP(a0, b0, d0, 16); QSTEP(a1, b1, d1, 16); \
        QSTEP(a2, b2, d2, 16); QSTEP(a3, b3, d3, 16); \
        QSTEP(c0, d0, b0, 12); QSTEP(c1, d1, b1, 12); \
        QSTEP(c2, d2, b2, 12); QSTEP(c3, d3, b3, 12); \
        QSTEP(a0, b0, d0, 8); QSTEP(a1, b1, d1, 8); \
        QSTEP(a2, b2, d2, 8); QSTEP(a3, b3, d3, 8); \
        QSTEP(c0, d0, b0, 7); QSTEP(c1, d1, b1, 7); \
        QSTEP(c2, d2, b2, 7); QSTEP(c3, d3, b3, 7); \
    } while (0)

#define U64(x) svreinterpret_u64_u32(x)

/*
 * Keystream of eight pair vectors (p[m]: words 2m, 2m+1 of VL/64 blocks) in
 * memory order, xored with in[] into out[]: eight vectors, VL/64 blocks.
 */
SVE_INLINE void emit_half(uint8_t *out, const uint8_t *in, svbool_t pb,
                          svuint64_t p0, svuint64_t p1, svuint64_t p2,
                          svuint64_t p3, svuint64_t p4, svuint64_t p5,
                          svuint64_t p6, svuint64_t p7)
{
    /* level 1: pairs m and m + 4 */
    svuint64_t e0 = svzip1_u64(p0, p4), e1 = svzip2_u64(p0, p4);
    svuint64_t f0 = svzip1_u64(p1, p5), f1 = svzip2_u64(p1, p5);
    svuint64_t g0 = svzip1_u64(p2, p6), g1 = svzip2_u64(p2, p6);
    svuint64_t h0 = svzip1_u64(p3, p7), h1 = svzip2_u64(p3, p7);
    /* level 2: pairs 0, 2, 4, 6 and 1, 3, 5, 7 of each block */
    svuint64_t ev00 = svzip1_u64(e0, g0), ev01 = svzip2_u64(e0, g0);
    svuint64_t ev10 = svzip1_u64(e1, g1), ev11 = svzip2_u64(e1, g1);
    svuint64_t od00 = svzip1_u64(f0, h0), od01 = svzip2_u64(f0, h0);
    svuint64_t od10 = svzip1_u64(f1, h1), od11 = svzip2_u64(f1, h1);

    /* level 3: pairs 0..7 of each block in order, out in memory order
       (vector k at k vector lengths: the vnum forms, no pointer arithmetic,
       which GCC 12's UBSan instrumentation crashed on) */
#define EMIT(k, v) \
    svst1_vnum_u8(pb, out, k, \
                  sveor_u8_x(pb, svld1_vnum_u8(pb, in, k), svreinterpret_u8_u64(v)))
    EMIT(0, svzip1_u64(ev00, od00));
    EMIT(1, svzip2_u64(ev00, od00));
    EMIT(2, svzip1_u64(ev01, od01));
    EMIT(3, svzip2_u64(ev01, od01));
    EMIT(4, svzip1_u64(ev10, od10));
    EMIT(5, svzip2_u64(ev10, od10));
    EMIT(6, svzip1_u64(ev11, od11));
    EMIT(7, svzip2_u64(ev11, od11));
#undef EMIT
}

/*
 * At 128-bit vectors (every SVE2 core so far) a pass is four blocks, and a
 * 4x4 transpose of each group of four word vectors (words 4g..4g+3) gives
 * block b's bytes 16g..16g+15 in one vector: 32 permutes a pass where the
 * network above takes 64 (on Neoverse N2's model both vector pipes are
 * full, so each one counts). Vector k of keystream goes k * 16 bytes out.
 */
SVE_INLINE void emit_group128(uint8_t *out, const uint8_t *in, svbool_t pb,
                              int64_t g, svuint32_t a, svuint32_t b,
                              svuint32_t c, svuint32_t d)
{
    svuint64_t t0 = U64(svzip1_u32(a, b)), t1 = U64(svzip2_u32(a, b));
    svuint64_t t2 = U64(svzip1_u32(c, d)), t3 = U64(svzip2_u32(c, d));

#define EMIT(k, v) \
    svst1_vnum_u8(pb, out, k, \
                  sveor_u8_x(pb, svld1_vnum_u8(pb, in, k), svreinterpret_u8_u64(v)))
    EMIT(g, svzip1_u64(t0, t2));
    EMIT(4 + g, svzip2_u64(t0, t2));
    EMIT(8 + g, svzip1_u64(t1, t3));
    EMIT(12 + g, svzip2_u64(t1, t3));
#undef EMIT
}

/*
 * S scalar blocks per pass (1, or 2 in sve2_wide's) beside the vector ones,
 * on the integer pipes the vector rounds leave idle; their steps are
 * interleaved with the vector ones in the source (the compiler keeps the
 * order roughly, out-of-order cores do the rest). Two run one after the
 * other, two scalar double rounds a vector one: the 32 words of two at once
 * do not fit in the general registers beside the pointers.
 */
#define SCALAR_COLUMNS_ROUND SROUND(SSTEP_PREROT, SCALAR_COLUMNS)
#define SCALAR_DIAGONALS_ROUND SROUND(SSTEP_PREROT, SCALAR_DIAGONALS)

/*
 * The pass's input words as vectors, W(i) below: 0..3 sigma, 4..11 the
 * key, 13..15 the nonce words; the block counters are ctr.
 */
#define SET_INIT(x) \
    svuint32_t x##0 = W(0), x##1 = W(1), x##2 = W(2), x##3 = W(3), \
               x##4 = W(4), x##5 = W(5), x##6 = W(6), x##7 = W(7), \
               x##8 = W(8), x##9 = W(9), x##10 = W(10), x##11 = W(11), \
               x##12 = ctr, x##13 = W(13), x##14 = W(14), x##15 = W(15)

#define FF(x, v) x = svadd_u32_x(pg, x, v)

/*
 * The input words' vectors, W(i) for word i (but 12, the counters), each
 * broadcast from its source INW_i. SVE2: all held (HOLD_W), broadcast once
 * per call from words read before any store (out is a byte pointer: read
 * after one, key[] would be read again and broadcast from a general
 * register each pass, on Neoverse N2 a 3-cycle M0 uop each): 15 vectors
 * beside the 16 working ones, the 32 registers. SVE: there the rotations'
 * temporaries and the tbl index need the registers the key and nonce words
 * would take (GCC spilled them), so W(i) broadcasts where it is used,
 * before the rounds and at the feed-forward; key[] and counter[] are read
 * again each time (the scalar block's stores in between make the compiler
 * do so): nothing key-derived is held, or spilled, across the rounds. The
 * sigma constants GCC keeps in registers (the same code as when they were
 * declared held).
 */
/* where input word i comes from */
#define INW_0 CHACHA_SIGMA0
#define INW_1 CHACHA_SIGMA1
#define INW_2 CHACHA_SIGMA2
#define INW_3 CHACHA_SIGMA3
#define INW_4 key[0]
#define INW_5 key[1]
#define INW_6 key[2]
#define INW_7 key[3]
#define INW_8 key[4]
#define INW_9 key[5]
#define INW_10 key[6]
#define INW_11 key[7]
#define INW_13 counter[1]
#define INW_14 counter[2]
#define INW_15 counter[3]
#define DUP_W(i) svdup_n_u32(INW_##i)
#define HOLD_W(i) v##i = DUP_W(i)
#if SVE2_BUILD
# define W(i) v##i
# define IN_DECL \
    const svuint32_t HOLD_W(0), HOLD_W(1), HOLD_W(2), HOLD_W(3), HOLD_W(4), \
                     HOLD_W(5), HOLD_W(6), HOLD_W(7), HOLD_W(8), HOLD_W(9), \
                     HOLD_W(10), HOLD_W(11), HOLD_W(13), HOLD_W(14), HOLD_W(15)
#else
/* the sigma constants too: GCC keeps those four in registers */
# define W(i) DUP_W(i)
# define IN_DECL \
    const svuint8_t r8 = svreinterpret_u8_u32(svindex_u32(0x02010003u, 0x04040404u)); \
    const svuint32_t m12 = svdup_n_u32(1u << 12), m7 = svdup_n_u32(1u << 7)
#endif

/* a pass with S scalar blocks: bytes and blocks */
#define PASS_BYTES(S) (16 * svcntb() + 64 * (S))
#define PASS_BLOCKS(S) (svcntw() + (S))

/*
 * n whole passes of 16 * VL/8 + 64 S bytes from block counter[0]: the
 * vector blocks, then the S scalar ones. The state words' vectors are
 * W(i) above; the scalar blocks read their
 * words from key[] and counter[] each pass (general registers are short:
 * 16 words, the pointers and the rotation temporaries).
 * With mac (the sve2-fused AEAD kernel; S 1 only), the pass's
 * PASS_BYTES(1) / 16 Poly1305 blocks are MACed beside the rounds, on the
 * integer pipes, half of a double round's after each round (VL 128: 20
 * blocks, one a round; on N2's model 1.85 cycles a byte against 1.91 with
 * all after the columns round); the pass writes its output after its
 * rounds, so in place works. With S 2 the first scalar block is written
 * after five double rounds.
 */
SVE_INLINE void sve2_pass_loop(uint8_t *out, const uint8_t *in, size_t n,
                               const uint32_t key[8], const uint32_t counter[4],
                               stitched_mac *mac, const unsigned int S)
{
    const svbool_t pg = svptrue_b32(), pb = svptrue_b8();
    const size_t half = 8 * svcntb(), vbytes = 16 * svcntb();
    const uint32_t step = (uint32_t)PASS_BLOCKS(S);
    const size_t mac_q = PASS_BYTES(S) / 16 / 10, mac_r = PASS_BYTES(S) / 16 % 10;
    IN_DECL;
    svuint32_t ctr = svindex_u32(counter[0], 1);
    uint32_t sctr = counter[0] + (uint32_t)svcntw();

    for (; n > 0; n--) {
        SET_INIT(x);
        S16_DECL;
        unsigned int h;
        int i;

        /*
         * S 1: the scalar block's rounds beside the vector ones. S 2: block
         * h beside vector double rounds 5 h .. 5 h + 4, two scalar double
         * rounds a vector one; block 0 written after them. (One loop for
         * both moved GCC's schedule of S 1: N2's model 1.23 -> 1.25-1.28
         * cycles a byte.)
         */
        if (S == 1) {
            SCALAR_SET(sctr);
            for (i = 0; i < 10; i++) {
                size_t j;

                QROUND4(x0, x4, x8, x12, x1, x5, x9, x13,
                        x2, x6, x10, x14, x3, x7, x11, x15);
                SCALAR_COLUMNS_ROUND;
                if (mac != NULL)
                    for (j = 0; j < (mac_q + ((size_t)i < mac_r) + 1) / 2; j++)
                        MAC_BLOCK(mac);
                QROUND4(x0, x5, x10, x15, x1, x6, x11, x12,
                        x2, x7, x8, x13, x3, x4, x9, x14);
                SCALAR_DIAGONALS_ROUND;
                if (mac != NULL)
                    for (j = 0; j < (mac_q + ((size_t)i < mac_r)) / 2; j++)
                        MAC_BLOCK(mac);
            }
        } else {
#pragma GCC unroll 2
            for (h = 0; h < 2; h++) {
                SCALAR_SET(sctr + h);
                for (i = 0; i < 5; i++) {
                    QROUND4(x0, x4, x8, x12, x1, x5, x9, x13,
                            x2, x6, x10, x14, x3, x7, x11, x15);
                    SCALAR_COLUMNS_ROUND;
                    SCALAR_DIAGONALS_ROUND;
                    QROUND4(x0, x5, x10, x15, x1, x6, x11, x12,
                            x2, x7, x8, x13, x3, x4, x9, x14);
                    SCALAR_COLUMNS_ROUND;
                    SCALAR_DIAGONALS_ROUND;
                }
                if (h == 0)
                    scalar_emit(out + vbytes, in + vbytes, key, counter, sctr, S16);
            }
        }
        /* feed-forward, then the keystream out */
        FF(x0, W(0)); FF(x1, W(1)); FF(x2, W(2)); FF(x3, W(3));
        FF(x4, W(4)); FF(x5, W(5)); FF(x6, W(6)); FF(x7, W(7));
        FF(x8, W(8)); FF(x9, W(9)); FF(x10, W(10)); FF(x11, W(11));
        FF(x12, ctr); FF(x13, W(13)); FF(x14, W(14)); FF(x15, W(15));
        if (svcntb() == 16) {
            emit_group128(out, in, pb, 0, x0, x1, x2, x3);
            emit_group128(out, in, pb, 1, x4, x5, x6, x7);
            emit_group128(out, in, pb, 2, x8, x9, x10, x11);
            emit_group128(out, in, pb, 3, x12, x13, x14, x15);
        } else {
            /* level 0 of the network: words 2m, 2m+1 */
            emit_half(out, in, pb,
                      U64(svzip1_u32(x0, x1)), U64(svzip1_u32(x2, x3)),
                      U64(svzip1_u32(x4, x5)), U64(svzip1_u32(x6, x7)),
                      U64(svzip1_u32(x8, x9)), U64(svzip1_u32(x10, x11)),
                      U64(svzip1_u32(x12, x13)), U64(svzip1_u32(x14, x15)));
            emit_half(out + half, in + half, pb,
                      U64(svzip2_u32(x0, x1)), U64(svzip2_u32(x2, x3)),
                      U64(svzip2_u32(x4, x5)), U64(svzip2_u32(x6, x7)),
                      U64(svzip2_u32(x8, x9)), U64(svzip2_u32(x10, x11)),
                      U64(svzip2_u32(x12, x13)), U64(svzip2_u32(x14, x15)));
        }
        scalar_emit(out + vbytes + 64 * (S - 1), in + vbytes + 64 * (S - 1), key,
                    counter, sctr + S - 1, S16);
        sctr += step;
        ctr = svadd_n_u32_x(pg, ctr, step);
        out += PASS_BYTES(S);
        in += PASS_BYTES(S);
    }
}
#undef FF

#if SVE2_BUILD
/* the passes of sve2 (and the AEAD's: plain, sealing's first, with the MAC) */
SVE_INLINE void sve2_pass1(uint8_t *out, const uint8_t *in, size_t n,
                           const uint32_t key[8], const uint32_t counter[4],
                           stitched_mac *mac)
{
    sve2_pass_loop(out, in, n, key, counter, mac, 1);
}

DEFINE_PASSES_PLAIN(sve2, sve2_pass1, 1024)

DEFINE_PASSES_MAC(sve2, sve2_pass1, 1024)

/* input too short for a pass, and the rest after them */
# define SHORT_XOR chacha20_neon_xor
#else
/*
 * sve_wide's: neon_wide, the kernel auto took on Neoverse V1 before (its
 * 512-byte passes from 512 bytes, neon's paths below): up to 1 KiB the
 * same code and instruction counts as there.
 */
extern const chacha20_kernel chacha20_neon_wide_kernel;
# define SHORT_XOR chacha20_neon_wide_xor
#endif

/* the passes of sve2_wide and sve_wide: two scalar blocks */
SVE_INLINE void sve2_pass2(uint8_t *out, const uint8_t *in, size_t n,
                           const uint32_t key[8], const uint32_t counter[4],
                           stitched_mac *mac)
{
    sve2_pass_loop(out, in, n, key, counter, mac, 2);
}

DEFINE_PASSES_PLAIN(sve2_wide, sve2_pass2, 1024)

/*
 * Where the passes start. SVE2 (sve2, sve2_wide): from 512 bytes, as
 * neon_wide's. At 128-bit vectors (N2, V2) a pass is 320 or 384 bytes;
 * LLVM 19's models put it at 1.22 (N2) and 0.89 (V2) cycles a byte against
 * 2.73 and 2.05 for the NEON 4-block loop shorter input used to take up to
 * 1 KiB (OpenSSL: 2.15 and 1.34), for 5.9 instructions a byte against 5.2.
 * Below 512 bytes the NEON kernel's short paths, as before. At 512-bit
 * vectors and above a pass is longer than 1 KiB: shorter input is all rest.
 * sve_wide (V1, 256-bit vectors, 640-byte passes): from 1025 bytes; below,
 * neon_wide's 512-byte passes (1.25 c/B) are the better split (one
 * sve_wide pass would leave up to 384 bytes to the 4-block loop, 2.19).
 * The fused AEAD (sve2-fused): from 1025 bytes, as the other fused kernels.
 */
#if SVE2_BUILD
# define SVE2_MIN_LEN 512
#else
# define SVE2_MIN_LEN 1025
#endif
#define SVE2_FUSED_MIN_LEN 1025

/*
 * Whole passes of pass bytes (pass_blocks blocks) by burnt (the passes,
 * then the stack burnt: GCC spills some of the scalar blocks' words,
 * test_stack_residue checks), then the rest (out of line: the short path
 * stays a leaf). From SVE2_MIN_LEN bytes, which at 512-bit vectors and
 * above may be less than a pass: then it is all rest.
 */
static __attribute__((noinline)) void
xor_long(uint8_t *out, const uint8_t *in, size_t len, const uint32_t key[8],
         const uint32_t counter[4], size_t pass, size_t pass_blocks,
         passes_fn *burnt)
{
    const size_t n = len / pass;
    const uint32_t ctr[4] = {
        counter[0] + (uint32_t)(n * pass_blocks), counter[1], counter[2],
        counter[3]
    };

    if (n > 0)
        burnt(out, in, n, key, counter);
    if (len > n * pass)
        SHORT_XOR(out + n * pass, in + n * pass, len - n * pass, key, ctr);
}

static void chacha20_xor_sve2_wide(uint8_t *out, const uint8_t *in, size_t len,
                                   const uint32_t key[8],
                                   const uint32_t counter[4])
{
    /* one length test: the short path is 3 instructions (cmp, b.hi, b) */
    if (len < SVE2_MIN_LEN)
        SHORT_XOR(out, in, len, key, counter);
    else
        xor_long(out, in, len, key, counter, PASS_BYTES(2), PASS_BLOCKS(2),
                 sve2_wide_burnt);
}

#if SVE2_BUILD
static void chacha20_xor_sve2(uint8_t *out, const uint8_t *in, size_t len,
                              const uint32_t key[8], const uint32_t counter[4])
{
    /* one length test: the short path is 3 instructions (cmp, b.hi, b) */
    if (len < SVE2_MIN_LEN)
        chacha20_neon_xor(out, in, len, key, counter);
    else
        xor_long(out, in, len, key, counter, PASS_BYTES(1), PASS_BLOCKS(1),
                 sve2_burnt);
}

const chacha20_kernel chacha20_sve2_kernel = {
    .name = "sve2",
    .caps = CHACHA_CAP_NEON | CHACHA_CAP_SVE | CHACHA_CAP_SVE2,
    .xor_stream = chacha20_xor_sve2,
};

/*
 * sve2_wide: the sve2 passes with two scalar blocks (384 bytes at 128-bit
 * vectors). llvm-mca 19, 16 KiB, cycles a byte: Neoverse V2 0.89 against
 * sve2's 1.06 (its xar on one vector pipe of four is the bound there, and
 * its six integer pipes take the second block), N2 2.00 against 1.22 (four
 * integer pipes, full with one block): auto takes it on V2 and V3 only
 * (ARM_SVE2_WIDE, by MIDR_EL1). The AEAD pairs it as sve2 (sve2-fused).
 */
const chacha20_kernel chacha20_sve2_wide_kernel = {
    .name = "sve2_wide",
    .caps = CHACHA_CAP_NEON | CHACHA_CAP_SVE | CHACHA_CAP_SVE2,
    .prefer = CHACHA_CAP_ARM_SVE2_WIDE,
    .xor_stream = chacha20_xor_sve2_wide,
    .pairs_as = &chacha20_sve2_kernel,
};

/*
 * sve2-fused: the sve2 passes with the MAC stitched in (the NEON Poly1305
 * kernel's state, its scalar step), from 1025 bytes; shorter input and the
 * tail as the two steps. llvm-mca 19, 16 KiB, VL 128, cycles a byte: V2
 * 1.08, N2 1.76 (1.09 / 1.85 before the off-chain scalar rotation), against
 * 1.69 / 2.58 for sve2 and the NEON Poly1305 in two steps (as first
 * measured), 1.22 / 2.27 for neon_wide-fused, and OpenSSL 3.5's best 1.52 /
 * 2.36 (bench/arm-mca.sh): auto takes it wherever it takes sve2 or
 * sve2_wide (which pairs as sve2).
 */
extern const poly1305_kernel poly1305_neon_kernel;

DEFINE_XOR_MAC(xor_mac_sve2, PASS_BYTES(1), PASS_BYTES(1), sve2, sve2)

const chacha20_poly1305_kernel chacha20_poly1305_sve2_kernel = {
    .name = "sve2-fused",
    .caps = CHACHA_CAP_NEON | CHACHA_CAP_SVE | CHACHA_CAP_SVE2,
    .chacha = &chacha20_sve2_kernel,
    .poly = &poly1305_neon_kernel,
    .xor_mac = xor_mac_sve2,
    .min_len = { SVE2_FUSED_MIN_LEN, SVE2_FUSED_MIN_LEN },
};
#else
/*
 * sve_wide (SVE without SVE2: Neoverse V1, 256-bit vectors): the sve2_wide
 * passes with SVE's rotations, 8 vector + 2 scalar blocks, 640 bytes a pass
 * at V1's vector length; shorter input and the rest after the passes as
 * neon_wide. LLVM 19's V1 model: see README, "ARM servers". auto takes it
 * with ARM_SVE_WIDE only (Neoverse V1, by MIDR_EL1). Its AEAD pairs it as
 * neon_wide: neon_wide1-fused on V1, as before.
 */
const chacha20_kernel chacha20_sve_wide_kernel = {
    .name = "sve_wide",
    .caps = CHACHA_CAP_NEON | CHACHA_CAP_SVE,
    .prefer = CHACHA_CAP_ARM_SVE_WIDE,
    .xor_stream = chacha20_xor_sve2_wide,
    .pairs_as = &chacha20_neon_wide_kernel,
};
#endif
