/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ChaCha20 with AVX-512 (F, VL, BW): the round template instantiated for
 * zmm, ymm and xmm with vprold rotates, and the 16-block pass, shared by
 * chacha20_avx512.c and the fused AEAD kernel.
 */
#ifndef CHACHA20_AVX512_H
#define CHACHA20_AVX512_H

#include <stdint.h>
#include <stddef.h>
#include "avx512_isa.h"
#include "kernel.h"
#include "util.h"


/* 512-bit: 16 blocks per pass vertically, 4 per row set horizontally */
#define CT_PFX z512
#define CT_V __m512i
#define CT_LANES 16
#define CT_ADD(a, b) _mm512_add_epi32(a, b)
#define CT_XOR(a, b) _mm512_xor_si512(a, b)
#define CT_ROT16(x) _mm512_rol_epi32(x, 16)
#define CT_ROT8(x) _mm512_rol_epi32(x, 8)
#define CT_ROTL(x, n) _mm512_rol_epi32(x, n)
#define CT_SHUF(x, imm) _mm512_shuffle_epi32(x, (_MM_PERM_ENUM)(imm))
#define CT_UNPACKLO32(a, b) _mm512_unpacklo_epi32(a, b)
#define CT_UNPACKHI32(a, b) _mm512_unpackhi_epi32(a, b)
#define CT_UNPACKLO64(a, b) _mm512_unpacklo_epi64(a, b)
#define CT_UNPACKHI64(a, b) _mm512_unpackhi_epi64(a, b)
#define CT_VUNROLL 1
#include "chacha20_x86_template.h"

/*
 * The short paths (1 to 4 blocks in xmm and ymm rows) are bound by the
 * latency of the quarter-round chain, add-xor-rotate, 4 cycles a step on
 * Zen 4 (vprold takes 2). rotl(d ^ a, n) = rotl(d, n) ^ (a << n) ^
 * (a >> (32 - n)): rotl(d, n) is ready early, so from a it takes a shift
 * and a vpternlogd, 3 cycles a step for two more operations. zmm shifts
 * issue at half the ymm rate, which makes it a loss there.
 */
#define C5_HXROT(W, d, a, n) \
    W##_ternarylogic_epi32(W##_rol_epi32(d, n), W##_slli_epi32(a, n), \
                           W##_srli_epi32(a, 32 - (n)), 0x96)

/*
 * 256-bit (VL): 2 blocks per row set; 128-bit (VL): one block. Each twice:
 * y256 / x128 with C5_HXROT, y256p / x128p with plain vprold. Which is
 * faster depends on the CPU, not on its CPUID: on the Zen 4 VM whose vector
 * steps all cost 2 cycles the plain form takes a one-block call from 291
 * to 221 TSC ticks (the shifts only add operations there). The kernel's
 * second entry uses the plain form; the provider times both entries at
 * load (hybrid_race in kernel.h).
 */
#define CT_PFX y256
#define CT_V __m256i
#define CT_LANES 8
#define CT_ADD(a, b) _mm256_add_epi32(a, b)
#define CT_XOR(a, b) _mm256_xor_si256(a, b)
#define CT_ROT16(x) _mm256_rol_epi32(x, 16)
#define CT_ROT8(x) _mm256_rol_epi32(x, 8)
#define CT_ROTL(x, n) _mm256_rol_epi32(x, n)
#define CT_SHUF(x, imm) _mm256_shuffle_epi32(x, imm)
#define CT_UNPACKLO32(a, b) _mm256_unpacklo_epi32(a, b)
#define CT_UNPACKHI32(a, b) _mm256_unpackhi_epi32(a, b)
#define CT_UNPACKLO64(a, b) _mm256_unpacklo_epi64(a, b)
#define CT_UNPACKHI64(a, b) _mm256_unpackhi_epi64(a, b)
#define CT_HXROT(d, a, n) C5_HXROT(_mm256, d, a, n)
#define CT_KEEP_OPS 1
#include "chacha20_x86_template.h"
#define CT_PFX y256p
#include "chacha20_x86_template.h"
#define CT_PFX x128
#define CT_V __m128i
#define CT_LANES 4
#define CT_ADD(a, b) _mm_add_epi32(a, b)
#define CT_XOR(a, b) _mm_xor_si128(a, b)
#define CT_ROT16(x) _mm_rol_epi32(x, 16)
#define CT_ROT8(x) _mm_rol_epi32(x, 8)
#define CT_ROTL(x, n) _mm_rol_epi32(x, n)
#define CT_SHUF(x, imm) _mm_shuffle_epi32(x, imm)
#define CT_UNPACKLO32(a, b) _mm_unpacklo_epi32(a, b)
#define CT_UNPACKHI32(a, b) _mm_unpackhi_epi32(a, b)
#define CT_UNPACKLO64(a, b) _mm_unpacklo_epi64(a, b)
#define CT_UNPACKHI64(a, b) _mm_unpackhi_epi64(a, b)
#define CT_HXROT(d, a, n) C5_HXROT(_mm, d, a, n)
#define CT_KEEP_OPS 1
#include "chacha20_x86_template.h"
#define CT_PFX x128p
#include "chacha20_x86_template.h"

#define C5_LOADU512(p) _mm512_loadu_si512((const void *)(p))
#define C5_STOREU512(p, v) _mm512_storeu_si512((void *)(p), v)

/*
 * 4x4 transpose of 128-bit lanes: r0..r3 hold one row (16 bytes) of four
 * blocks, lane L of each belonging to block L; o[L] = block L's 64 bytes.
 */
CHACHA_INLINE void c5_transpose128(__m512i o[4], __m512i r0, __m512i r1,
                                   __m512i r2, __m512i r3)
{
    __m512i a = _mm512_shuffle_i32x4(r0, r1, 0x44);    /* r0.0 r0.1 r1.0 r1.1 */
    __m512i b = _mm512_shuffle_i32x4(r0, r1, 0xee);    /* r0.2 r0.3 r1.2 r1.3 */
    __m512i c = _mm512_shuffle_i32x4(r2, r3, 0x44);
    __m512i d = _mm512_shuffle_i32x4(r2, r3, 0xee);

    o[0] = _mm512_shuffle_i32x4(a, c, 0x88);
    o[1] = _mm512_shuffle_i32x4(a, c, 0xdd);
    o[2] = _mm512_shuffle_i32x4(b, d, 0x88);
    o[3] = _mm512_shuffle_i32x4(b, d, 0xdd);
}

/*
 * The hot path indexes its vector arrays with constants only (no loops):
 * gcc 12 keeps an array in memory if any access to it has a variable index.
 */
#define C5_EACH16(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9) \
    M(10) M(11) M(12) M(13) M(14) M(15)

/*
 * A run of 16-block passes: the input words and the state after the part
 * of the first round that is the same for every block (z512_vround_pre),
 * as scalars, which the passes broadcast from memory (EVEX {1to16}
 * operands), so that only these 128 bytes need wiping; ctr is word 12 of
 * the next pass, lane i = counter + i.
 */
typedef struct {
    uint32_t in[16], pre[16];
    __m512i ctr;
} c5_run;

/* The input words and the first pass's counters of run (no pre). */
CHACHA_INLINE void c5_run_words(c5_run *run, const uint32_t key[8],
                                const uint32_t counter[4])
{
    int i;

    run->in[0] = CHACHA_SIGMA0;
    run->in[1] = CHACHA_SIGMA1;
    run->in[2] = CHACHA_SIGMA2;
    run->in[3] = CHACHA_SIGMA3;
    for (i = 0; i < 8; i++)
        run->in[4 + i] = key[i];
    run->in[12] = counter[0];
    run->in[13] = counter[1];
    run->in[14] = counter[2];
    run->in[15] = counter[3];
    run->ctr = _mm512_add_epi32(_mm512_set1_epi32((int)counter[0]),
                                _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8,
                                                  9, 10, 11, 12, 13, 14, 15));
}

/* x = the input words of run, broadcast, after z512_vround_pre. */
CHACHA_INLINE void c5_run_pre_x(__m512i x[16], const c5_run *run)
{
#define C5_LOAD_IN(i) x[i] = _mm512_set1_epi32((int)run->in[i]);
    C5_EACH16(C5_LOAD_IN)
#undef C5_LOAD_IN
    z512_vround_pre(x);
}

/* The pre-round words of x (after c5_run_pre_x) kept in run for its passes. */
CHACHA_INLINE void c5_run_keep_pre(c5_run *run, const __m512i x[16])
{
#define C5_STORE_PRE(i) \
    run->pre[i] = (uint32_t)_mm_cvtsi128_si32(_mm512_castsi512_si128(x[i]));
    C5_EACH16(C5_STORE_PRE)
#undef C5_STORE_PRE
}

CHACHA_INLINE void c5_run_setup(c5_run *run, const uint32_t key[8],
                                const uint32_t counter[4])
{
    __m512i x[16];

    c5_run_words(run, key, counter);
    c5_run_pre_x(x, run);
    c5_run_keep_pre(run, x);
}

/* The state of the next 16 blocks of run in x, ready for z512_vdround_pre. */
CHACHA_INLINE void c5_pass_start(__m512i x[16], c5_run *run)
{
    /*
     * Make the words look changed to the compiler, so that every pass
     * broadcasts them from run again: hoisted out of the loop, gcc keeps
     * some in registers and spills the rest, 64 key bytes a word, to stack
     * slots no wipe reaches.
     */
    __asm__("" : "+m"(*run));
#define C5_LOAD_PRE(i) x[i] = _mm512_set1_epi32((int)run->pre[i]);
    C5_EACH16(C5_LOAD_PRE)
#undef C5_LOAD_PRE
    x[12] = run->ctr;
}

/* The 20 rounds of the next 16 blocks of run into x (no feed-forward). */
CHACHA_INLINE void c5_rounds16(__m512i x[16], c5_run *run)
{
    c5_pass_start(x, run);
    z512_vrounds_x(x, 1);
}

/* A 64-byte access at p stays inside one (4 KiB or larger) page. */
#define C5_IN_PAGE(p) (((uintptr_t)(p) & 4095) <= 4096 - CHACHA_BLOCK_LEN)

/*
 * dst[0..n) = src[0..n) ^ ks[0..n), 0 < n < 64, touching no byte past n.
 * Masked loads and stores suppress faults on the bytes they leave out, but
 * a masked access whose 64 bytes reach into the next page (mapped or not)
 * is slow on Zen 4: those go through a stack copy.
 */
CHACHA_INLINE void c5_emit_partial(uint8_t *dst, const uint8_t *src, __m512i ks,
                                   size_t n)
{
    if (C5_IN_PAGE(src) && C5_IN_PAGE(dst)) {
        __mmask64 m = ((__mmask64)1 << n) - 1;
        __m512i v = _mm512_maskz_loadu_epi8(m, src);

        _mm512_mask_storeu_epi8(dst, m, _mm512_xor_si512(v, ks));
    } else {
        _Alignas(64) uint8_t buf[CHACHA_BLOCK_LEN];

        C5_STOREU512(buf, ks);
        ct_xor_tail_wipe(dst, src, buf, sizeof(buf), n);
    }
}

/* Block b (0..15) of the pass, o, to dst (if within len), xored with src. */
#define C5_EMIT_BLOCK(b, o) \
    do { \
        size_t off_ = CHACHA_BLOCK_LEN * (size_t)(b); \
        if (len >= off_ + CHACHA_BLOCK_LEN) \
            C5_STOREU512(dst + off_, \
                         _mm512_xor_si512(o, C5_LOADU512(src + off_))); \
        else if (len > off_) \
            c5_emit_partial(dst + off_, src + off_, o, len - off_); \
    } while (0)

/* Blocks k, k + 4, k + 8, k + 12 from the groups w0..w3 (see c5_emit16). */
#define C5_EMIT_COLUMN(k, w0, w1, w2, w3) \
    do { \
        c5_transpose128(o, w0[k], w1[k], w2[k], w3[k]); \
        C5_EMIT_BLOCK(k, o[0]); \
        C5_EMIT_BLOCK(k + 4, o[1]); \
        C5_EMIT_BLOCK(k + 8, o[2]); \
        C5_EMIT_BLOCK(k + 12, o[3]); \
    } while (0)

/*
 * After c5_rounds16(x, run): dst = src ^ the 16 blocks, the first len bytes
 * of them (len = 1024, a constant, in the bulk loop), and the run moves on.
 * Groups of four words become rows of four blocks in each 128-bit lane
 * (vgroup_x; w_g[k], lane L: row g of block 4L + k), then a lane transpose
 * makes whole blocks.
 */
CHACHA_INLINE void c5_emit16(uint8_t *dst, const uint8_t *src, __m512i x[16],
                             c5_run *run, size_t len)
{
    __m512i in[16], w0[4], w1[4], w2[4], w3[4], o[4];

#define C5_LOAD_IN(i) in[i] = _mm512_set1_epi32((int)run->in[i]);
    C5_EACH16(C5_LOAD_IN)
#undef C5_LOAD_IN
    in[12] = run->ctr;
    z512_vgroup_x(w0, x, in, 0);
    z512_vgroup_x(w1, x, in, 1);
    z512_vgroup_x(w2, x, in, 2);
    z512_vgroup_x(w3, x, in, 3);
    C5_EMIT_COLUMN(0, w0, w1, w2, w3);
    C5_EMIT_COLUMN(1, w0, w1, w2, w3);
    C5_EMIT_COLUMN(2, w0, w1, w2, w3);
    C5_EMIT_COLUMN(3, w0, w1, w2, w3);
    run->ctr = _mm512_add_epi32(run->ctr, _mm512_set1_epi32(16));
}

#endif
