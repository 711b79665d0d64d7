/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ChaCha20 for AVX2 (built with -mavx2 only): 8 blocks per pass in ymm lanes,
 * and for tails and short inputs 2, 4 or 6 blocks in horizontal ymm rows or
 * one block in an xmm row set.
 */
#include <immintrin.h>
#include "kernel.h"

/* 128-bit instantiation (VEX encoded here): the one-block path */
#define CT_PFX x128
#define CT_V __m128i
#define CT_LANES 4
#define CT_ADD(a, b) _mm_add_epi32(a, b)
#define CT_XOR(a, b) _mm_xor_si128(a, b)
#define CT_ROT16(x) _mm_shuffle_epi8(x, _mm256_castsi256_si128(ROT16_MASK))
#define CT_ROT8(x) _mm_shuffle_epi8(x, _mm256_castsi256_si128(ROT8_MASK))
#define CT_ROTL(x, n) _mm_or_si128(_mm_slli_epi32(x, n), _mm_srli_epi32(x, 32 - (n)))
#define CT_SHUF(x, imm) _mm_shuffle_epi32(x, imm)
#define CT_UNPACKLO32(a, b) _mm_unpacklo_epi32(a, b)
#define CT_UNPACKHI32(a, b) _mm_unpackhi_epi32(a, b)
#define CT_UNPACKLO64(a, b) _mm_unpacklo_epi64(a, b)
#define CT_UNPACKHI64(a, b) _mm_unpackhi_epi64(a, b)

/* byte shuffles rotating each 32-bit lane left by 16 and by 8 */
#define ROT16_MASK _mm256_setr_epi8( \
    2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, \
    2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13)
#define ROT8_MASK _mm256_setr_epi8( \
    3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14, \
    3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14)

#include "chacha20_x86_template.h"

/* primitives for the vertical-round assembly in the template (VEX forms) */
#define CT_AREG(i) "%%ymm" #i
#define CT_ASZ "32"
#define CT_AMOV "vmovdqa "
#define VADD(d, s) "vpaddd " s ", " d ", " d "\n\t"
#define VXOR(d, s) "vpxor " s ", " d ", " d "\n\t"
#define VSHUFB(d, m) "vpshufb " m ", " d ", " d "\n\t"
#define VROTL(d, t, n) \
    "vpslld $" #n ", " d ", " t "\n\t" \
    "vpsrld $32-" #n ", " d ", " d "\n\t" \
    "vpor " t ", " d ", " d "\n\t"
#define CADD_SLOT(c, d, i) "vpaddd " CT_SLOT(i) ", " d ", " c "\n\t"

static const __m256i rot_masks[2] = {
    { 0x0504070601000302, 0x0d0c0f0e09080b0a,
      0x0504070601000302, 0x0d0c0f0e09080b0a },    /* rotate 16 */
    { 0x0605040702010003, 0x0e0d0c0f0a09080b,
      0x0605040702010003, 0x0e0d0c0f0a09080b }     /* rotate 8 */
};

/* the 20 rounds of the 8-block kernel, plus a scalar ninth block if scalar */
#define CT_VROUNDS(st, scalar) \
    do { \
        if (scalar) \
            CT_ASM_RUN(st, CT_S_); \
        else \
            CT_ASM_RUN(st, CT_N_); \
    } while (0)

/* 256-bit instantiation */
#define CT_PFX y256
#define CT_V __m256i
#define CT_LANES 8
#define CT_ADD(a, b) _mm256_add_epi32(a, b)
#define CT_XOR(a, b) _mm256_xor_si256(a, b)
#define CT_ROT16(x) _mm256_shuffle_epi8(x, ROT16_MASK)
#define CT_ROT8(x) _mm256_shuffle_epi8(x, ROT8_MASK)
#define CT_ROTL(x, n) \
    _mm256_or_si256(_mm256_slli_epi32(x, n), _mm256_srli_epi32(x, 32 - (n)))
#define CT_SHUF(x, imm) _mm256_shuffle_epi32(x, imm)
#define CT_UNPACKLO32(a, b) _mm256_unpacklo_epi32(a, b)
#define CT_UNPACKHI32(a, b) _mm256_unpackhi_epi32(a, b)
#define CT_UNPACKLO64(a, b) _mm256_unpacklo_epi64(a, b)
#define CT_UNPACKHI64(a, b) _mm256_unpackhi_epi64(a, b)

#include "chacha20_x86_template.h"

#define LOADU256(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define STOREU256(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), v)
#define LOADU128(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define STOREU128(p, v) _mm_storeu_si128((__m128i *)(void *)(p), v)

/*
 * Rows r0..r3 hold one block in the low 128-bit lanes and another in the high
 * lanes: write the first at dst, the second at dst + hi (xored with src, or
 * plain keystream if src is NULL).
 */
static inline __attribute__((always_inline))
void emit_pair(uint8_t *dst, const uint8_t *src, size_t hi,
               __m256i r0, __m256i r1, __m256i r2, __m256i r3)
{
    __m256i k0 = _mm256_permute2x128_si256(r0, r1, 0x20);
    __m256i k1 = _mm256_permute2x128_si256(r2, r3, 0x20);
    __m256i k2 = _mm256_permute2x128_si256(r0, r1, 0x31);
    __m256i k3 = _mm256_permute2x128_si256(r2, r3, 0x31);

    if (src != NULL) {
        k0 = _mm256_xor_si256(k0, LOADU256(src));
        k1 = _mm256_xor_si256(k1, LOADU256(src + 32));
        k2 = _mm256_xor_si256(k2, LOADU256(src + hi));
        k3 = _mm256_xor_si256(k3, LOADU256(src + hi + 32));
    }
    STOREU256(dst, k0);
    STOREU256(dst + 32, k1);
    STOREU256(dst + hi, k2);
    STOREU256(dst + hi + 32, k3);
}

/*
 * The eight vertical blocks of st (after y256_vrounds) to dst, xored with src
 * (or plain keystream if src is NULL): bytes 0..31 of each block from word
 * groups 0 and 1, then bytes 32..63 from groups 2 and 3. Unrolled by hand:
 * gcc -O2 keeps the loops and spills the transposed rows.
 */
#define EMIT_ROW(j, h) \
    do { \
        size_t lo_ = 64 * (j) + 32 * (h), hi_ = lo_ + 256; \
        __m256i k0_ = _mm256_permute2x128_si256(r[j], q[j], 0x20); \
        __m256i k1_ = _mm256_permute2x128_si256(r[j], q[j], 0x31); \
        if (src != NULL) { \
            k0_ = _mm256_xor_si256(k0_, LOADU256(src + lo_)); \
            k1_ = _mm256_xor_si256(k1_, LOADU256(src + hi_)); \
        } \
        STOREU256(dst + lo_, k0_); \
        STOREU256(dst + hi_, k1_); \
    } while (0)
#define EMIT_HALF(h) \
    do { \
        y256_vgroup(r, st, 2 * (h)); \
        y256_vgroup(q, st, 2 * (h) + 1); \
        EMIT_ROW(0, h); EMIT_ROW(1, h); EMIT_ROW(2, h); EMIT_ROW(3, h); \
    } while (0)

static inline __attribute__((always_inline))
void emit8(uint8_t *dst, const uint8_t *src, const y256_state *st)
{
    __m256i r[4], q[4];

    EMIT_HALF(0);
    EMIT_HALF(1);
}

/* keystream only, for a final partial pass (kept apart from the hot loop) */
static __attribute__((noinline))
void emit8_ks(uint8_t ks[512], const y256_state *st)
{
    emit8(ks, NULL, st);
}

/*
 * The scalar block of st (after y256_vrounds(st, 1)) to dst, xored with src.
 * Word by word: sx[] was just written by 32-bit stores, which wider loads
 * could not forward from.
 */
static inline __attribute__((always_inline))
void emit_scalar(uint8_t *dst, const uint8_t *src, const y256_state *st)
{
    uint32_t w;
    int i;

    for (i = 0; i < 16; i++) {
        memcpy(&w, src + 4 * i, 4);
        w ^= st->sx[i] + st->sin[i];
        memcpy(dst + 4 * i, &w, 4);
    }
}

static void chacha20_xor_short(uint8_t *out, const uint8_t *in, size_t len,
                               const uint32_t key[8],
                               const uint32_t counter[4]);

/*
 * Passes of 9 blocks (8 vector + 1 scalar on the GPRs) are off by default:
 * on a quiet Zen 3 core they ran ~6% faster per block than passes of 8, but
 * on the shared benchmark machine they were often ~20% slower (the integer
 * pipes are not reliably idle). Build with -DCHACHA_AVX2_NINTH_BLOCK=1 to
 * measure them.
 */
#ifndef CHACHA_AVX2_NINTH_BLOCK
#define CHACHA_AVX2_NINTH_BLOCK 0
#endif

/*
 * len > 384. With CHACHA_AVX2_NINTH_BLOCK, passes of 9 whole blocks while at
 * least 9 remain, except that 961..1024 bytes go as two passes of 8; then
 * passes of 8 (the last possibly partial) while more than 384 bytes remain,
 * and the rest in rows (chacha20_xor_short).
 */
static void xor_8x(uint8_t *out, const uint8_t *in, size_t len,
                   const uint32_t key[8], const uint32_t counter[4])
{
    _Alignas(32) y256_state st;
    _Alignas(32) uint8_t ks[512];
    y256_state *p = &st;
    uint32_t ctr = counter[0];
    int i;

    st.in[0] = _mm256_set1_epi32((int)CHACHA_SIGMA0);
    st.in[1] = _mm256_set1_epi32((int)CHACHA_SIGMA1);
    st.in[2] = _mm256_set1_epi32((int)CHACHA_SIGMA2);
    st.in[3] = _mm256_set1_epi32((int)CHACHA_SIGMA3);
    for (i = 0; i < 8; i++)
        st.in[4 + i] = _mm256_set1_epi32((int)key[i]);
    st.in[13] = _mm256_set1_epi32((int)counter[1]);
    st.in[14] = _mm256_set1_epi32((int)counter[2]);
    st.in[15] = _mm256_set1_epi32((int)counter[3]);
    st.m[0] = rot_masks[0];
    st.m[1] = rot_masks[1];
    st.sin[0] = (int)CHACHA_SIGMA0;
    st.sin[1] = (int)CHACHA_SIGMA1;
    st.sin[2] = (int)CHACHA_SIGMA2;
    st.sin[3] = (int)CHACHA_SIGMA3;
    for (i = 0; i < 8; i++)
        st.sin[4 + i] = key[i];
    st.sin[13] = counter[1];
    st.sin[14] = counter[2];
    st.sin[15] = counter[3];

    while (CHACHA_AVX2_NINTH_BLOCK && len >= 576
           && (len <= 960 || len > 1024)) {
        st.in[12] = _mm256_add_epi32(_mm256_set1_epi32((int)ctr),
                                     _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        st.sin[12] = ctr + 8;
        y256_vrounds(p, 1);
        emit8(out, in, p);
        emit_scalar(out + 512, in + 512, p);
        ctr += 9;
        len -= 576;
        in += 576;
        out += 576;
    }
    while (len > 384) {
        st.in[12] = _mm256_add_epi32(_mm256_set1_epi32((int)ctr),
                                     _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        y256_vrounds(p, 0);
        if (len >= 512) {
            emit8(out, in, p);
        } else {
            emit8_ks(ks, p);
            ct_xor_tail_wipe(out, in, ks, sizeof(ks), len);
        }
        ctr += 8;
        len -= len >= 512 ? 512 : len;
        in += 512;
        out += 512;
    }
    /* the key words and the round outputs: nothing key-derived stays behind */
    chacha_wipe(&st, sizeof(st));
    if (len > 0) {
        uint32_t c[4] = { ctr, counter[1], counter[2], counter[3] };

        chacha20_xor_short(out, in, len, key, c);
    }
}

/*
 * 1..6 blocks (len <= 384) in horizontal rows: nsets ymm sets of two blocks
 * each, len > 128 * (nsets - 1).
 */
static inline __attribute__((always_inline))
void xor_h256(uint8_t *out, const uint8_t *in, size_t len,
              const uint32_t key[8], const uint32_t counter[4], int nsets)
{
    __m256i v[12];
    __m256i a = _mm256_setr_epi32((int)CHACHA_SIGMA0, (int)CHACHA_SIGMA1, (int)CHACHA_SIGMA2, (int)CHACHA_SIGMA3,
                                  (int)CHACHA_SIGMA0, (int)CHACHA_SIGMA1, (int)CHACHA_SIGMA2, (int)CHACHA_SIGMA3);
    __m256i b = _mm256_broadcastsi128_si256(LOADU128(key));
    __m256i c = _mm256_broadcastsi128_si256(LOADU128(key + 4));
    __m256i d = _mm256_add_epi32(_mm256_broadcastsi128_si256(LOADU128(counter)),
                                 _mm256_setr_epi32(0, 0, 0, 0, 1, 0, 0, 0));
    const __m256i two = _mm256_setr_epi32(2, 0, 0, 0, 2, 0, 0, 0);
    _Alignas(32) uint8_t ks[128];
    int k;

    for (k = 0; k < 3; k++) {
        v[4 * k] = a;
        v[4 * k + 1] = b;
        v[4 * k + 2] = c;
        v[4 * k + 3] = d;
        d = _mm256_add_epi32(d, two);
    }
    y256_hrounds(v, nsets);
    for (k = 0; k < nsets; k++) {
        if (len >= 128) {
            emit_pair(out, in, 64, v[4 * k], v[4 * k + 1], v[4 * k + 2],
                      v[4 * k + 3]);
            out += 128;
            in += 128;
            len -= 128;
        } else {
            emit_pair(ks, NULL, 64, v[4 * k], v[4 * k + 1], v[4 * k + 2],
                      v[4 * k + 3]);
            ct_xor_tail_wipe(out, in, ks, sizeof(ks), len);
            break;
        }
    }
}

/* One block (len <= 64) in xmm rows. */
static void xor_1(uint8_t *out, const uint8_t *in, size_t len,
                  const uint32_t key[8], const uint32_t counter[4])
{
    __m128i v[12];
    _Alignas(16) uint8_t ks[64];
    int g;

    v[0] = _mm_setr_epi32((int)CHACHA_SIGMA0, (int)CHACHA_SIGMA1, (int)CHACHA_SIGMA2, (int)CHACHA_SIGMA3);
    v[1] = LOADU128(key);
    v[2] = LOADU128(key + 4);
    v[3] = LOADU128(counter);
    x128_hrounds(v, 1);
    if (len == 64) {
        for (g = 0; g < 4; g++)
            STOREU128(out + 16 * g,
                      _mm_xor_si128(v[g], LOADU128(in + 16 * g)));
        return;
    }
    for (g = 0; g < 4; g++)
        STOREU128(ks + 16 * g, v[g]);
    ct_xor_tail_wipe(out, in, ks, sizeof(ks), len);
}

/* 1..384 bytes */
static void chacha20_xor_short(uint8_t *out, const uint8_t *in, size_t len,
                               const uint32_t key[8],
                               const uint32_t counter[4])
{
    if (len <= 64)
        xor_1(out, in, len, key, counter);
    else if (len <= 128)
        xor_h256(out, in, len, key, counter, 1);
    else if (len <= 256)
        xor_h256(out, in, len, key, counter, 2);
    else
        xor_h256(out, in, len, key, counter, 3);
}

static void chacha20_xor_avx2(uint8_t *out, const uint8_t *in, size_t len,
                              const uint32_t key[8], const uint32_t counter[4])
{
    if (len > 384)
        xor_8x(out, in, len, key, counter);
    else if (len > 0)
        chacha20_xor_short(out, in, len, key, counter);
}

const chacha20_kernel chacha20_avx2_kernel = {
    .name = "avx2",
    .caps = CHACHA_CAP_AVX2,
    .xor_stream = chacha20_xor_avx2,
};
