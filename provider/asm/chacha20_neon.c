/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The NEON ChaCha20 kernel (AArch64 and ARMv7): hybrid passes from
 * HYBRID_MIN_LEN bytes on AArch64, the short paths below and for the tail
 * (chacha20_neon.h has them and the layouts).
 */
#include "chacha20_neon.h"

#if NEON_VERTICAL_4BLOCKS
/* n passes of pass_bytes each by passes (which burns), then the rest */
CHACHA_INLINE void passes_then_rest(uint8_t *out, const uint8_t *in, size_t len,
                                    const uint32_t key[8],
                                    const uint32_t counter[4],
                                    size_t pass_bytes, passes_fn *passes)
{
    size_t n = len / pass_bytes;
    const uint32_t ctr[4] = { counter[0] + (uint32_t)(n * (pass_bytes / 64)),
                              counter[1], counter[2], counter[3] };

    passes(out, in, n, key, counter);
    xor_rest(out + n * pass_bytes, in + n * pass_bytes, len - n * pass_bytes,
             key, ctr);
}

/* Hybrid passes, then the rest (not inlined: the short path stays a leaf). */
static __attribute__((noinline)) void
xor_long(uint8_t *out, const uint8_t *in, size_t len, const uint32_t key[8],
         const uint32_t counter[4])
{
    passes_then_rest(out, in, len, key, counter, HYBRID_BYTES,
                     chacha20_neon_hybrid);
}

/*
 * Wide pass (the neon_wide kernel, for wide out-of-order cores: see
 * CHACHA_CAP_ARM_WIDE), 512 bytes: the hybrid's four vertical and two row
 * blocks, their rotations by 8 one tbl each, and two scalar blocks on the
 * integer pipes, which the NEON rounds leave idle. The two scalar blocks
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

#define SROTL(x, n) (((x) << (n)) | ((x) >> (32 - (n))))
#define SSTEP(a, b, d, n) do { a += b; d ^= a; d = SROTL(d, n); } while (0)
#define SQSTEP16(a, b, c, d) SSTEP(a, b, d, 16)
#define SQSTEP12(a, b, c, d) SSTEP(c, d, b, 12)
#define SQSTEP8(a, b, c, d) SSTEP(a, b, d, 8)
#define SQSTEP7(a, b, c, d) SSTEP(c, d, b, 7)
#define SPHASE_(k, a0, b0, c0, d0, a1, b1, c1, d1, a2, b2, c2, d2, a3, b3, c3, d3) \
    SQSTEP##k(a0, b0, c0, d0); SQSTEP##k(a1, b1, c1, d1); \
    SQSTEP##k(a2, b2, c2, d2); SQSTEP##k(a3, b3, c3, d3)
#define SPHASE(k, ...) SPHASE_(k, __VA_ARGS__)
#define SCALAR_COLUMNS \
    s0, s4, s8, s12, s1, s5, s9, s13, s2, s6, s10, s14, s3, s7, s11, s15
#define SCALAR_DIAGONALS \
    s0, s5, s10, s15, s1, s6, s11, s12, s2, s7, s8, s13, s3, s4, s9, s14

/* the scalar half of a scalar double round beside NEON step k */
#define WSCALAR16 SPHASE(16, SCALAR_COLUMNS); SPHASE(12, SCALAR_COLUMNS)
#define WSCALAR12 SPHASE(8, SCALAR_COLUMNS); SPHASE(7, SCALAR_COLUMNS)
#define WSCALAR8 SPHASE(16, SCALAR_DIAGONALS); SPHASE(12, SCALAR_DIAGONALS)
#define WSCALAR7 SPHASE(8, SCALAR_DIAGONALS); SPHASE(7, SCALAR_DIAGONALS)

/* step k of the vertical columns and of the rows (tbl for 8), then scalar */
#define WROW(k, j) QSTEP##k(a##j, b##j, c##j, d##j);
#define WPHASE(k, a0, b0, c0, d0, a1, b1, c1, d1, a2, b2, c2, d2, a3, b3, c3, d3) \
    QSTEP##k(a0, b0, c0, d0); WROW(k, 0) \
    QSTEP##k(a1, b1, c1, d1); WROW(k, 1) \
    QSTEP##k(a2, b2, c2, d2); QSTEP##k(a3, b3, c3, d3); \
    WSCALAR##k

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

#define WIDE_DOUBLEROUND \
    do { \
        ROUND4(WPHASE, VERTICAL_COLUMNS); \
        FOR_ROWS_2(WROW_DIAG) \
        ROUND4(WPHASE, VERTICAL_DIAGONALS); \
        FOR_ROWS_2(WROW_UNDIAG) \
    } while (0)

#define S16_PARAMS(T, s) \
    T s##0, T s##1, T s##2, T s##3, T s##4, T s##5, T s##6, T s##7, T s##8, \
    T s##9, T s##10, T s##11, T s##12, T s##13, T s##14, T s##15
#define S16 s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, s12, s13, s14, s15

/*
 * out = in ^ the scalar block after its rounds (64 bytes), the feed-forward
 * from sigma, key, block counter ctr and counter[1..3]; words in pairs.
 */
CHACHA_INLINE void scalar_emit(uint8_t *out, const uint8_t *in,
                               const uint32_t key[8], const uint32_t counter[4],
                               uint32_t ctr, S16_PARAMS(uint32_t, s))
{
#define SPAIR(i, lo, hi) \
    do { \
        uint64_t v_; \
        memcpy(&v_, in + 8 * (i), 8); \
        v_ ^= (uint64_t)(lo) | (uint64_t)(hi) << 32; \
        memcpy(out + 8 * (i), &v_, 8); \
    } while (0)
    SPAIR(0, s0 + sigma[0], s1 + sigma[1]);
    SPAIR(1, s2 + sigma[2], s3 + sigma[3]);
    SPAIR(2, s4 + key[0], s5 + key[1]);
    SPAIR(3, s6 + key[2], s7 + key[3]);
    SPAIR(4, s8 + key[4], s9 + key[5]);
    SPAIR(5, s10 + key[6], s11 + key[7]);
    SPAIR(6, s12 + ctr, s13 + counter[1]);
    SPAIR(7, s14 + counter[2], s15 + counter[3]);
#undef SPAIR
}

/*
 * Scalar block 6 + h of the pass, its 20 rounds beside five NEON double
 * rounds, written as soon as they are done. A statement of wide_passes,
 * written out twice there (a loop of two would be the pass loop that
 * bench/arm_mca.py looks for).
 */
#define WIDE_HALF(h) \
    do { \
        const uint32_t c = sctr + (h); \
        uint32_t s0 = sigma[0], s1 = sigma[1], s2 = sigma[2], s3 = sigma[3]; \
        uint32_t s4 = key[0], s5 = key[1], s6 = key[2], s7 = key[3]; \
        uint32_t s8 = key[4], s9 = key[5], s10 = key[6], s11 = key[7]; \
        uint32_t s12 = c, s13 = counter[1], s14 = counter[2]; \
        uint32_t s15 = counter[3]; \
        \
        for (i = 0; i < 5; i++) \
            WIDE_DOUBLEROUND; \
        scalar_emit(out + 384 + 64 * (h), in + 384 + 64 * (h), key, counter, \
                    c, S16); \
    } while (0)

/*
 * n wide passes of 512 bytes from block counter[0]: four vertical blocks,
 * two row blocks, then the scalar two (written as they finish).
 */
static __attribute__((noinline)) void
wide_passes(uint8_t *out, const uint8_t *in, size_t n, const uint32_t key[8],
            const uint32_t counter[4])
{
    uint32x4_t ctr = vaddq_u32(vdupq_n_u32(counter[0]), vld1q_u32(lane_index));
    uint32_t sctr = counter[0] + 6;

    for (; n > 0; n--) {
        HYBRID_PASS_INIT(key, counter, ctr, FOR_ROWS_2);
        int i;

        WIDE_HALF(0);
        WIDE_HALF(1);
        HYBRID_PASS_EMIT(FOR_ROWS_2);
        ctr = vaddq_u32(ctr, vdupq_n_u32(8));
        sctr += 8;
        out += WIDE_BYTES;
        in += WIDE_BYTES;
    }
}

static __attribute__((noinline)) void
chacha20_neon_wide(uint8_t *out, const uint8_t *in, size_t n,
                   const uint32_t key[8], const uint32_t counter[4])
{
    wide_passes(out, in, n, key, counter);
    chacha_burn_stack(BURN_PASSES);
}

/* Wide passes, then the rest (as xor_long) */
static __attribute__((noinline)) void
xor_wide(uint8_t *out, const uint8_t *in, size_t len, const uint32_t key[8],
         const uint32_t counter[4])
{
    passes_then_rest(out, in, len, key, counter, WIDE_BYTES, chacha20_neon_wide);
}

static void chacha20_xor_neon_wide(uint8_t *out, const uint8_t *in, size_t len,
                                   const uint32_t key[8],
                                   const uint32_t counter[4])
{
    if (len >= WIDE_BYTES) {
        xor_wide(out, in, len, key, counter);
        return;
    }
    xor_rest(out, in, len, key, counter);
}

extern const chacha20_kernel chacha20_neon_kernel;

const chacha20_kernel chacha20_neon_wide_kernel = {
    .name = "neon_wide",
    .caps = CHACHA_CAP_NEON,
    .prefer = CHACHA_CAP_ARM_WIDE,
    .fuses_as = &chacha20_neon_kernel,     /* the AEAD keeps neon-fused */
    .xor_stream = chacha20_xor_neon_wide,
};
#endif

static void chacha20_xor_neon(uint8_t *out, const uint8_t *in, size_t len,
                              const uint32_t key[8], const uint32_t counter[4])
{
#if NEON_VERTICAL_4BLOCKS
    if (len >= HYBRID_MIN_LEN) {
        xor_long(out, in, len, key, counter);
        return;
    }
#endif
    xor_rest(out, in, len, key, counter);
}

const chacha20_kernel chacha20_neon_kernel = {
    .name = "neon",
    .caps = CHACHA_CAP_NEON,
    .xor_stream = chacha20_xor_neon,
};
