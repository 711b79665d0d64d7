/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ChaCha20 for AVX-512 F/VL/BW (built with -mavx512f -mavx512vl -mavx512bw
 * only): 16 blocks per pass in zmm lanes; below that 4, 8 or 12 blocks in
 * horizontal zmm rows, 2 in ymm, 1 in xmm, all with vprold; a partial final
 * block through byte-masked loads and stores.
 */
#include "chacha20_avx512.h"
#if !CHACHA_AVX512_EMULATED
# include "chacha20_x86_probe.h"
/* the row step: vprold (add and xor cost the same on the CPUs measured) */
CHACHA_X86_STEP_PROBE(step_probe_avx512, "vprold $7, %%zmm0, %%zmm0")
/* the pipes' width: vpaddd (vprold runs on fewer: Zen 5 2.1 a cycle, vpaddd 4) */
CHACHA_X86_WIDTH_PROBE(width_probe_avx512, "vpaddd", "zmm")
#endif

/*
 * The most bytes that go in horizontal rows (three 4-block zmm sets) rather
 * than a 16-block pass.
 */
#ifndef CHACHA_AVX512_ROWS_MAX
# define CHACHA_AVX512_ROWS_MAX 768
#endif

/* One block's keystream ks to the first n (1..64) bytes of dst, xored with src. */
CHACHA_INLINE void c5_emit_block(uint8_t *dst, const uint8_t *src, __m512i ks,
                                 size_t n)
{
    if (n >= CHACHA_BLOCK_LEN)
        C5_STOREU512(dst, _mm512_xor_si512(ks, C5_LOADU512(src)));
    else
        c5_emit_partial(dst, src, ks, n);
}

/*
 * 16 blocks per pass while 1024 bytes remain, then one partial pass. The
 * first pass takes its state straight from the broadcast words; the others
 * from the pre-round words kept in run (a 1 KiB call: 3% faster than when
 * the first went through memory too).
 *
 * With pair (xor_stream_pairs), the passes go two at a time while more than
 * 1 KiB remains (the second of the last pair may be partial), their double
 * rounds alternating: eight independent quarter-round chains instead of
 * four. A 16-block pass's rounds are four chains of 20 x 12 dependent steps
 * of L cycles (480 at L = 2) and 20 x 48 zmm operations over W a cycle (240
 * at W = 4): bound by latency when 12 L > 48 / W, i.e. L W > 4. Zen 5
 * (L = 2, four 512-bit pipes: W = 4) gains 16 KiB 0.301 -> 0.203 TSC ticks
 * a byte, kernel alone; Zen 4 at L = 2 (its 512-bit operations take two
 * 256-bit pipes: W = 2) is balanced, and at L = 1 bound by the pipes, where
 * pairing gains nothing (the rule: core/shortpath.c, CHACHA_PAIRS_MIN_LW in
 * shortpath.h, and a race at load). The pair's state goes through the
 * frame (c5_pair_rounds; from C, GCC spilled it), which the caller burns
 * (xor_16x_pairs).
 */

#if !CHACHA_AVX512_EMULATED
/*
 * A pair's rounds in assembly: the first pass's rows in zmm0-15, the
 * second's in zmm16-31 and nothing else live, so nothing spills. From C,
 * GCC 12 spilled 113 of the pair loop's ~400 operations to the stack (clang
 * 78): a 2 KiB call took 488 TSC ticks on Zen 5, 449 with this (16 KiB:
 * 3,643 -> 3,328). Each step (a += b; d ^= a; d <<<= r) runs for x's four
 * quarter-rounds, then y's, one chain's three operations in a row; an
 * operation-major order, x and y alternating by chain, or the rotates by 16
 * and 8 as vpshufb measured the same (+-1%). The single pass stays in C:
 * its 16 rows as register operands are 32 (the limit is 30), and through
 * memory a 1 KiB call took 6% longer. The emulated build (SIMDe, for the
 * tests on any CPU) runs the pair's rounds in C (below).
 */
# define C5A_STEP(a, b, d, r) C5A_STEP_(a, b, d, r)
# define C5A_STEP_(a, b, d, r) \
    "vpaddd %%zmm" #b ", %%zmm" #a ", %%zmm" #a "\n\t" \
    "vpxord %%zmm" #a ", %%zmm" #d ", %%zmm" #d "\n\t" \
    "vprold $" #r ", %%zmm" #d ", %%zmm" #d "\n\t"
# define C5A_Q4(r, a0, b0, d0, a1, b1, d1, a2, b2, d2, a3, b3, d3) \
    C5A_STEP(a0, b0, d0, r) C5A_STEP(a1, b1, d1, r) \
    C5A_STEP(a2, b2, d2, r) C5A_STEP(a3, b3, d3, r)
/*
 * A round's two kinds of step, for the columns (C) and the diagonals (D):
 * a += b; d ^= a; d <<<= r (r = 16, 8) and c += d; b ^= c; b <<<= r (12, 7)
 */
# define C5A_CAD(r, o) C5A_Q4(r, o##0, o##4, o##12, o##1, o##5, o##13, \
                              o##2, o##6, o##14, o##3, o##7, o##15)
# define C5A_CCB(r, o) C5A_Q4(r, o##8, o##12, o##4, o##9, o##13, o##5, \
                              o##10, o##14, o##6, o##11, o##15, o##7)
# define C5A_DAD(r, o) C5A_Q4(r, o##0, o##5, o##15, o##1, o##6, o##12, \
                              o##2, o##7, o##13, o##3, o##4, o##14)
# define C5A_DCB(r, o) C5A_Q4(r, o##10, o##15, o##5, o##11, o##12, o##6, \
                              o##8, o##13, o##7, o##9, o##14, o##4)
/* register numbers: C5X##i is row i of the first pass, C5Y##i of the second */
# define C5X0 0
# define C5X1 1
# define C5X2 2
# define C5X3 3
# define C5X4 4
# define C5X5 5
# define C5X6 6
# define C5X7 7
# define C5X8 8
# define C5X9 9
# define C5X10 10
# define C5X11 11
# define C5X12 12
# define C5X13 13
# define C5X14 14
# define C5X15 15
# define C5Y0 16
# define C5Y1 17
# define C5Y2 18
# define C5Y3 19
# define C5Y4 20
# define C5Y5 21
# define C5Y6 22
# define C5Y7 23
# define C5Y8 24
# define C5Y9 25
# define C5Y10 26
# define C5Y11 27
# define C5Y12 28
# define C5Y13 29
# define C5Y14 30
# define C5Y15 31
/*
 * What z512_vround_pre left of the first column round (word 12 set):
 * quarter-round 0 from its xor on.
 */
# define C5A_PRE_COLUMN(o) \
    "vpxord %%zmm" C5A_S(o##0) ", %%zmm" C5A_S(o##12) ", %%zmm" C5A_S(o##12) "\n\t" \
    "vprold $16, %%zmm" C5A_S(o##12) ", %%zmm" C5A_S(o##12) "\n\t" \
    C5A_STEP(o##8, o##12, o##4, 12) C5A_STEP(o##0, o##4, o##12, 8) \
    C5A_STEP(o##8, o##12, o##4, 7)
# define C5A_S(n) C5A_S_(n)
# define C5A_S_(n) #n
/* the diagonal round of both passes, then a double round of both */
# define C5A_DIAGONALS2 \
    C5A_DAD(16, C5X) C5A_DAD(16, C5Y) C5A_DCB(12, C5X) C5A_DCB(12, C5Y) \
    C5A_DAD(8, C5X) C5A_DAD(8, C5Y) C5A_DCB(7, C5X) C5A_DCB(7, C5Y)
# define C5A_DROUND2 \
    C5A_CAD(16, C5X) C5A_CAD(16, C5Y) C5A_CCB(12, C5X) C5A_CCB(12, C5Y) \
    C5A_CAD(8, C5X) C5A_CAD(8, C5Y) C5A_CCB(7, C5X) C5A_CCB(7, C5Y) \
    C5A_DIAGONALS2
# define C5A_LOAD(p, i, r) "vmovdqa64 " #i "*64(%[" #p "]), %%zmm" C5A_S(r) "\n\t"
# define C5A_STORE(p, i, r) "vmovdqa64 %%zmm" C5A_S(r) ", " #i "*64(%[" #p "])\n\t"
# define C5A_EACH(M, p, o) \
    M(p, 0, o##0) M(p, 1, o##1) M(p, 2, o##2) M(p, 3, o##3) \
    M(p, 4, o##4) M(p, 5, o##5) M(p, 6, o##6) M(p, 7, o##7) \
    M(p, 8, o##8) M(p, 9, o##9) M(p, 10, o##10) M(p, 11, o##11) \
    M(p, 12, o##12) M(p, 13, o##13) M(p, 14, o##14) M(p, 15, o##15)
# define C5A_CLOBBER_ZMM \
    "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", \
    "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15"
# define C5A_CLOBBER_ZMM_HI \
    "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", \
    "xmm24", "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31"

/* The 20 rounds of x and y, each after z512_vround_pre with word 12 set. */
static inline void c5_pair_rounds(__m512i x[16], __m512i y[16])
{
    int n;

    __asm__(
        C5A_EACH(C5A_LOAD, x, C5X) C5A_EACH(C5A_LOAD, y, C5Y)
        C5A_PRE_COLUMN(C5X) C5A_PRE_COLUMN(C5Y)
        C5A_DIAGONALS2
        "mov $9, %k[n]\n\t"
        "1:\n\t"
        C5A_DROUND2
        "dec %k[n]\n\t"
        "jnz 1b\n\t"
        C5A_EACH(C5A_STORE, x, C5X) C5A_EACH(C5A_STORE, y, C5Y)
        : [n] "=&r"(n), "+m"(*(__m512i (*)[16])x), "+m"(*(__m512i (*)[16])y)
        : [x] "r"(x), [y] "r"(y)
        : "cc", C5A_CLOBBER_ZMM, C5A_CLOBBER_ZMM_HI);
}

#else
static inline void c5_pair_rounds(__m512i x[16], __m512i y[16])
{
    int i;

    z512_vdround_pre(x);
    z512_vdround_pre(y);
    for (i = 1; i < 10; i++) {
        z512_vdround(x);
        z512_vdround(y);
    }
}
#endif

CHACHA_INLINE int
xor_16x_body(uint8_t *out, const uint8_t *in, size_t len,
             const uint32_t key[8], const uint32_t counter[4], int pair)
{
    c5_run run;
    __m512i x[16];
    int paired = 0, first = 1;

    c5_run_words(&run, key, counter);
    c5_run_pre_x(x, &run);
    if (len > CHACHA_BLOCKS(pair ? 32 : 16))
        c5_run_keep_pre(&run, x);
    for (; pair && len > CHACHA_BLOCKS(16); first = 0) {
        size_t n = len < CHACHA_BLOCKS(32) ? len : CHACHA_BLOCKS(32);
        __m512i w[2][16];   /* the pair's state (c5_pair_rounds: memory) */

        if (first) {
#define C5_COPY_X(i) w[0][i] = x[i]; w[1][i] = x[i];
            C5_EACH16(C5_COPY_X)
#undef C5_COPY_X
            w[0][12] = run.ctr;
        } else {
            c5_pass_start(w[0], &run);
            c5_pass_start(w[1], &run);
        }
        w[1][12] = _mm512_add_epi32(run.ctr, _mm512_set1_epi32(16));
        c5_pair_rounds(w[0], w[1]);
        c5_emit16(out, in, w[0], &run, CHACHA_BLOCKS(16));
        /* a constant 1 KiB for a whole second pass: no length tests */
        if (n == CHACHA_BLOCKS(32))
            c5_emit16(out + CHACHA_BLOCKS(16), in + CHACHA_BLOCKS(16), w[1],
                      &run, CHACHA_BLOCKS(16));
        else
            c5_emit16(out + CHACHA_BLOCKS(16), in + CHACHA_BLOCKS(16), w[1],
                      &run, n - CHACHA_BLOCKS(16));
        paired = 1;
        len -= n;
        in += n;
        out += n;
    }
    if (first && len > 0) {
        x[12] = run.ctr;
        z512_vrounds_x(x, 1);
        c5_emit16(out, in, x, &run, len < CHACHA_BLOCKS(16) ? len : CHACHA_BLOCKS(16));
        if (len <= CHACHA_BLOCKS(16))
            len = 0;
        else {
            len -= CHACHA_BLOCKS(16);
            in += CHACHA_BLOCKS(16);
            out += CHACHA_BLOCKS(16);
        }
    }
    for (; len >= CHACHA_BLOCKS(16); len -= CHACHA_BLOCKS(16), in += CHACHA_BLOCKS(16), out += CHACHA_BLOCKS(16)) {
        c5_rounds16(x, &run);
        c5_emit16(out, in, x, &run, CHACHA_BLOCKS(16));
    }
    if (len > 0) {
        c5_rounds16(x, &run);
        c5_emit16(out, in, x, &run, len);
    }
    chacha_wipe(&run, sizeof(run));
    return paired;
}

static __attribute__((noinline)) void
xor_16x(uint8_t *out, const uint8_t *in, size_t len, const uint32_t key[8],
        const uint32_t counter[4])
{
    (void)xor_16x_body(out, in, len, key, counter, 0);
}

/*
 * How much stack to burn after xor_16x_pairs, from its caller's stack
 * pointer top down: this frame (where it is inlined: xor_16x_pairs) and
 * C5_BURN_MARGIN for the return addresses, what it calls and the burn's
 * own frame; C5_PAIR_FRAME_MAX where that cannot be read. The frame holds
 * the pair's state, which the rounds can be run back from to the key, and
 * what the compiler spilled: 2.5 KiB with GCC 12 -O2, 3.7 with clang 14,
 * 4.3 with GCC -Os, so measured rather than assumed.
 */
#define C5_BURN_MARGIN 512
#define C5_PAIR_FRAME_MAX 8192

/* the stack pointer where this is inlined (0 where it cannot be read) */
CHACHA_INLINE uintptr_t c5_stack_top(void)
{
#if defined(__x86_64__)
    uintptr_t sp;

    __asm__ volatile("mov %%rsp, %0" : "=r"(sp));
    return sp;
#else
    return 0;
#endif
}

CHACHA_INLINE size_t c5_frame_depth(uintptr_t top)
{
    uintptr_t sp = c5_stack_top();

    if (sp != 0 && sp < top && top - sp <= C5_PAIR_FRAME_MAX - C5_BURN_MARGIN)
        return top - sp + C5_BURN_MARGIN;
    return C5_PAIR_FRAME_MAX;
}

/* The same with pairs: 0, or the stack to burn when pairs ran */
static __attribute__((noinline)) size_t
xor_16x_pairs(uint8_t *out, const uint8_t *in, size_t len,
              const uint32_t key[8], const uint32_t counter[4], uintptr_t top)
{
    return xor_16x_body(out, in, len, key, counter, 1) ? c5_frame_depth(top) : 0;
}

/* Block hi (0, 1) of a ymm row set r: lane hi of its four rows. */
CHACHA_INLINE __m512i c5_yblock(const __m256i r[4], int hi)
{
    __m256i lo = hi ? _mm256_permute2x128_si256(r[0], r[1], 0x31)
                    : _mm256_permute2x128_si256(r[0], r[1], 0x20);
    __m256i up = hi ? _mm256_permute2x128_si256(r[2], r[3], 0x31)
                    : _mm256_permute2x128_si256(r[2], r[3], 0x20);

    return _mm512_inserti64x4(_mm512_castsi256_si512(lo), up, 1);
}

/* The four rows of an xmm set as one block. */
CHACHA_INLINE __m512i c5_xblock(const __m128i r[4])
{
    __m512i blk = _mm512_inserti32x4(_mm512_castsi128_si512(r[0]), r[1], 1);

    blk = _mm512_inserti32x4(blk, r[2], 2);
    return _mm512_inserti32x4(blk, r[3], 3);
}

/* the d row (counter, nonce) d0 for 128-bit lane 0, counter + k in lane k */
CHACHA_INLINE __m512i c5_drow512(__m128i d0)
{
    return _mm512_add_epi32(_mm512_broadcast_i32x4(d0),
                            _mm512_setr_epi32(0, 0, 0, 0, 1, 0, 0, 0,
                                              2, 0, 0, 0, 3, 0, 0, 0));
}

CHACHA_INLINE __m256i c5_drow256(__m128i d0)
{
    return _mm256_add_epi32(_mm256_broadcastsi128_si256(d0),
                            _mm256_setr_epi32(0, 0, 0, 0, 1, 0, 0, 0));
}

/*
 * Short inputs in horizontal rows, side by side: nz (0..3) sets of four
 * blocks in zmm (row r of block 4k + L in 128-bit lane L of vz[4k + r]),
 * then tail = 0, 1 (an xmm set) or 2 blocks (a ymm set); nz and tail are
 * constants, 64 (4 nz + tail - 1) < len <= 64 (4 nz + tail). One zmm set
 * and a smaller one run in the time of 1.2 zmm sets (Zen 4: 440 cycles for
 * the rounds of 5 blocks, 486 as two zmm sets).
 */
CHACHA_INLINE void xor_rows_sets(uint8_t *out, const uint8_t *in, size_t len,
                                 const uint32_t key[8], const uint32_t counter[4],
                                 int nz, int tail, int plain)
{
    const __m128i a = _mm_setr_epi32((int)CHACHA_SIGMA0, (int)CHACHA_SIGMA1,
                                     (int)CHACHA_SIGMA2, (int)CHACHA_SIGMA3);
    const __m128i b = _mm_loadu_si128((const void *)key);
    const __m128i c = _mm_loadu_si128((const void *)(key + 4));
    const __m128i d = _mm_loadu_si128((const void *)counter);
    /* the tail's counter follows the zmm sets' blocks */
    const __m128i dt = _mm_add_epi32(d, _mm_setr_epi32(4 * nz, 0, 0, 0));
    const __m512i za = _mm512_broadcast_i32x4(a), zb = _mm512_broadcast_i32x4(b);
    const __m512i zc = _mm512_broadcast_i32x4(c);
    const __m512i four = _mm512_setr_epi32(4, 0, 0, 0, 4, 0, 0, 0,
                                           4, 0, 0, 0, 4, 0, 0, 0);
    __m512i zd = c5_drow512(d), vz[12], o[4];
    __m256i vy[12];
    __m128i vx[12];
    int i;

    if (nz > 0)
        z512_hsets(vz, za, zb, zc, zd, four);
    if (tail == 2)
        y256_hsets(vy, _mm256_broadcastsi128_si256(a),
                   _mm256_broadcastsi128_si256(b),
                   _mm256_broadcastsi128_si256(c),
                   c5_drow256(dt),
                   _mm256_setzero_si256());
    if (tail == 1)
        x128_hsets(vx, a, b, c, dt, _mm_setzero_si128());
    for (i = 0; i < 10; i++) {
        if (nz > 0)
            z512_hdround(vz, nz);
        if (tail == 2 && plain)
            y256p_hdround(vy, 1);
        if (tail == 2 && !plain)
            y256_hdround(vy, 1);
        if (tail == 1 && plain)
            x128p_hdround(vx, 1);
        if (tail == 1 && !plain)
            x128_hdround(vx, 1);
    }
    /* feed-forward, 4x4 lane transpose and out, set by set (constant
       indices only: o[] must stay in registers, it is keystream) */
#define C5_ROW_BLOCK(j, v) \
    do { \
        if (CHACHA_BLOCK_LEN * (size_t)(j) < len) \
            c5_emit_block(out + CHACHA_BLOCK_LEN * (j), in + CHACHA_BLOCK_LEN * (j), v, len - CHACHA_BLOCK_LEN * (j)); \
    } while (0)
#define C5_ZSET_EMIT(k) \
    do { \
        c5_transpose128(o, _mm512_add_epi32(vz[4 * (k)], za), \
                        _mm512_add_epi32(vz[4 * (k) + 1], zb), \
                        _mm512_add_epi32(vz[4 * (k) + 2], zc), \
                        _mm512_add_epi32(vz[4 * (k) + 3], zd)); \
        C5_ROW_BLOCK(4 * (k), o[0]); \
        C5_ROW_BLOCK(4 * (k) + 1, o[1]); \
        C5_ROW_BLOCK(4 * (k) + 2, o[2]); \
        C5_ROW_BLOCK(4 * (k) + 3, o[3]); \
        zd = _mm512_add_epi32(zd, four); \
    } while (0)
    if (nz > 0)
        C5_ZSET_EMIT(0);
    if (nz > 1)
        C5_ZSET_EMIT(1);
    if (nz > 2)
        C5_ZSET_EMIT(2);
#undef C5_ZSET_EMIT
#undef C5_ROW_BLOCK
    out += CHACHA_BLOCKS(4) * (size_t)nz;
    in += CHACHA_BLOCKS(4) * (size_t)nz;
    len -= CHACHA_BLOCKS(4) * (size_t)nz;
    if (tail == 2) {
        vy[0] = _mm256_add_epi32(vy[0], _mm256_broadcastsi128_si256(a));
        vy[1] = _mm256_add_epi32(vy[1], _mm256_broadcastsi128_si256(b));
        vy[2] = _mm256_add_epi32(vy[2], _mm256_broadcastsi128_si256(c));
        vy[3] = _mm256_add_epi32(vy[3],
                                 c5_drow256(dt));
        c5_emit_block(out, in, c5_yblock(vy, 0), len < CHACHA_BLOCK_LEN ? len : CHACHA_BLOCK_LEN);
        if (len > CHACHA_BLOCK_LEN)
            c5_emit_block(out + CHACHA_BLOCK_LEN, in + CHACHA_BLOCK_LEN, c5_yblock(vy, 1), len - CHACHA_BLOCK_LEN);
    }
    if (tail == 1) {
        vx[0] = _mm_add_epi32(vx[0], a);
        vx[1] = _mm_add_epi32(vx[1], b);
        vx[2] = _mm_add_epi32(vx[2], c);
        vx[3] = _mm_add_epi32(vx[3], dt);
        c5_emit_block(out, in, c5_xblock(vx), len);
    }
}

/*
 * 0 < len <= CHACHA_AVX512_ROWS_MAX, in horizontal rows: 4 nz + tail blocks,
 * the tail sets with C5_HXROT (xor_rows) or plain vprold (xor_rows_plain).
 */
#define C5_ROWS_FN(fn, plain) \
    static void fn(uint8_t *out, const uint8_t *in, size_t len, \
                   const uint32_t key[8], const uint32_t counter[4]) \
    { \
        switch ((len + CHACHA_BLOCK_LEN - 1) / CHACHA_BLOCK_LEN) { \
        case 1: xor_rows_sets(out, in, len, key, counter, 0, 1, plain); break; \
        case 2: xor_rows_sets(out, in, len, key, counter, 0, 2, plain); break; \
        case 3: \
        case 4: xor_rows_sets(out, in, len, key, counter, 1, 0, plain); break; \
        case 5: xor_rows_sets(out, in, len, key, counter, 1, 1, plain); break; \
        case 6: xor_rows_sets(out, in, len, key, counter, 1, 2, plain); break; \
        case 7: \
        case 8: xor_rows_sets(out, in, len, key, counter, 2, 0, plain); break; \
        case 9: xor_rows_sets(out, in, len, key, counter, 2, 1, plain); break; \
        case 10: xor_rows_sets(out, in, len, key, counter, 2, 2, plain); break; \
        default: xor_rows_sets(out, in, len, key, counter, 3, 0, plain); break; \
        } \
    }
C5_ROWS_FN(xor_rows, 0)
C5_ROWS_FN(xor_rows_plain, 1)
#undef C5_ROWS_FN

typedef void c5_rows_fn(uint8_t *out, const uint8_t *in, size_t len,
                        const uint32_t key[8], const uint32_t counter[4]);

CHACHA_INLINE void xor_any(uint8_t *out, const uint8_t *in, size_t len,
                           const uint32_t key[8], const uint32_t counter[4],
                           c5_rows_fn *rows, int pair)
{
    size_t full = len & ~(size_t)1023, rest = len - full;
    uint32_t ctr[4];

    if (len <= CHACHA_AVX512_ROWS_MAX) {
        if (len > 0)
            rows(out, in, len, key, counter);
        return;
    }
    if (pair && len > CHACHA_BLOCKS(16)) {
        /* pairs of passes while more than 1 KiB remains, the last maybe
           partial: what is left is the remainder */
        size_t pairs = (len - CHACHA_BLOCKS(16) + CHACHA_BLOCKS(32) - 1) / CHACHA_BLOCKS(32);

        full = pairs * CHACHA_BLOCKS(32) < len ? pairs * CHACHA_BLOCKS(32) : len;
        rest = len - full;
    }
    /* a remainder that fits in rows is cheaper there than in a pass */
    if (rest > CHACHA_AVX512_ROWS_MAX) {
        full = len;
        rest = 0;
    }
    if (!pair) {
        xor_16x(out, in, full, key, counter);
    } else {
        size_t burn = xor_16x_pairs(out, in, full, key, counter, c5_stack_top());

        if (burn != 0)
            chacha_burn_stack(burn);
    }
    if (rest > 0) {
        memcpy(ctr, counter, sizeof(ctr));
        ctr[0] += (uint32_t)(full / CHACHA_BLOCK_LEN);
        rows(out + full, in + full, rest, key, ctr);
    }
}

static void chacha20_xor_avx512(uint8_t *out, const uint8_t *in, size_t len,
                                const uint32_t key[8],
                                const uint32_t counter[4])
{
    xor_any(out, in, len, key, counter, xor_rows, 0);
}

static void chacha20_xor_avx512_plain(uint8_t *out, const uint8_t *in,
                                      size_t len, const uint32_t key[8],
                                      const uint32_t counter[4])
{
    xor_any(out, in, len, key, counter, xor_rows_plain, 0);
}

static void chacha20_xor_avx512_pairs(uint8_t *out, const uint8_t *in,
                                      size_t len, const uint32_t key[8],
                                      const uint32_t counter[4])
{
    xor_any(out, in, len, key, counter, xor_rows_plain, 1);
}

const chacha20_kernel CHACHA_AVX512_SYM(chacha20_avx512_kernel) = {
    .name = "avx512",
    .caps = CHACHA_AVX512_EMULATED ? 0
            : CHACHA_CAP_AVX512F | CHACHA_CAP_AVX512VL | CHACHA_CAP_AVX512BW,
    .prefer = CHACHA_CAP_ZMM_FAST,    /* else auto takes avx2 */
    .xor_stream = chacha20_xor_avx512,
    /* the tail row sets with plain vprold; timed against xor_stream at load */
    .xor_stream_hybrid = chacha20_xor_avx512_plain,
    .hybrid_race = CHACHA_BLOCK_LEN,
    /* the same and, above 1 KiB, the 16-block passes in pairs (xor_16x) */
    .xor_stream_pairs = chacha20_xor_avx512_pairs,
    /*
     * AEAD: block 0 takes the text up to 11 blocks (12 in rows), or what of
     * a longer text does not fill 1 KiB passes, when that many; else it runs
     * alone. Zen 4, 1 KiB records ours/default: 0.85 seal, 0.91 open with
     * the default 448; 1.08, 1.09 with this.
     */
    .pass_len = CHACHA_BLOCKS(16),
    .head_max = CHACHA_AVX512_ROWS_MAX - CHACHA_BLOCK_LEN,
    /* 4 adds, 4 xors, 4 vprold and a vpshufd per round */
    .row_steps = 13,
    .two_block_rows = 1,
#if !CHACHA_AVX512_EMULATED
    .step_probe = step_probe_avx512,
    .width_probe = width_probe_avx512,
#endif
};
