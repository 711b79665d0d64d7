/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ChaCha20 for AVX2 (built with -mavx2 only): 8 blocks per pass in ymm lanes,
 * and for tails and short inputs 2, 4 or 6 blocks in horizontal ymm rows or
 * one block in an xmm row set.
 */
#include <immintrin.h>
#include "backend.h"

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

/* the 20 rounds of the 8-block kernel (see CT_ASM_VROUNDS) */
static inline __attribute__((always_inline))
void y256_rounds_asm(__m256i out[16], const __m256i in[16])
{
    unsigned int n = 10;

    __asm__ volatile(CT_ASM_VROUNDS
        : [n] "+r"(n)
        : [in] "r"(in), [out] "r"(out), [m] "r"(rot_masks)
        : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
          "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",
          "xmm15", "cc", "memory");
}
#define CT_VROUNDS(out, in) y256_rounds_asm(out, in)

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

/* Eight vertical blocks from s[] to dst (see emit_pair for src). */
static inline __attribute__((always_inline))
void emit8(uint8_t *dst, const uint8_t *src, const __m256i r[16])
{
    int j;

    for (j = 0; j < 4; j++)
        emit_pair(dst + 64 * j, src != NULL ? src + 64 * j : NULL, 256,
                  r[4 * j], r[4 * j + 1], r[4 * j + 2], r[4 * j + 3]);
}

/* 8 blocks per pass while at least 512 bytes remain, then one final pass. */
static void xor_8x(uint8_t *out, const uint8_t *in, size_t len,
                   const uint32_t key[8], const uint32_t counter[4])
{
    __m256i s[16], r[16];
    _Alignas(32) uint8_t ks[512];
    int i;

    s[0] = _mm256_set1_epi32(CT_SIGMA0);
    s[1] = _mm256_set1_epi32(CT_SIGMA1);
    s[2] = _mm256_set1_epi32(CT_SIGMA2);
    s[3] = _mm256_set1_epi32(CT_SIGMA3);
    for (i = 0; i < 8; i++)
        s[4 + i] = _mm256_set1_epi32((int)key[i]);
    s[12] = _mm256_add_epi32(_mm256_set1_epi32((int)counter[0]),
                             _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    s[13] = _mm256_set1_epi32((int)counter[1]);
    s[14] = _mm256_set1_epi32((int)counter[2]);
    s[15] = _mm256_set1_epi32((int)counter[3]);

    for (; len >= 512; len -= 512, in += 512, out += 512) {
        y256_vblocks(r, s);
        emit8(out, in, r);
        s[12] = _mm256_add_epi32(s[12], _mm256_set1_epi32(8));
    }
    if (len > 0) {
        y256_vblocks(r, s);
        emit8(ks, NULL, r);
        ct_xor_tail(out, in, ks, len);
        memset(ks, 0, sizeof(ks));
        __asm__ volatile("" : : "r"(ks) : "memory");
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
    __m256i a = _mm256_setr_epi32(CT_SIGMA0, CT_SIGMA1, CT_SIGMA2, CT_SIGMA3,
                                  CT_SIGMA0, CT_SIGMA1, CT_SIGMA2, CT_SIGMA3);
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
            ct_xor_tail(out, in, ks, len);
            memset(ks, 0, sizeof(ks));
            __asm__ volatile("" : : "r"(ks) : "memory");
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

    v[0] = _mm_setr_epi32(CT_SIGMA0, CT_SIGMA1, CT_SIGMA2, CT_SIGMA3);
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
    ct_xor_tail(out, in, ks, len);
    memset(ks, 0, sizeof(ks));
    __asm__ volatile("" : : "r"(ks) : "memory");
}

static void chacha20_xor_avx2(uint8_t *out, const uint8_t *in, size_t len,
                              const uint32_t key[8], const uint32_t counter[4])
{
    if (len <= 64) {
        if (len > 0)
            xor_1(out, in, len, key, counter);
    } else if (len <= 128) {
        xor_h256(out, in, len, key, counter, 1);
    } else if (len <= 256) {
        xor_h256(out, in, len, key, counter, 2);
    } else if (len <= 384) {
        xor_h256(out, in, len, key, counter, 3);
    } else {
        size_t full = len & ~(size_t)511, rest = len - full;

        /* a short remainder is cheaper in rows than in a whole 8-block pass */
        if (full == 0 || rest > 384 || rest == 0) {
            xor_8x(out, in, len, key, counter);
            return;
        }
        xor_8x(out, in, full, key, counter);
        {
            uint32_t ctr[4] = { counter[0] + (uint32_t)(full / 64), counter[1],
                                counter[2], counter[3] };

            chacha20_xor_avx2(out + full, in + full, rest, key, ctr);
        }
    }
}

const chacha20_impl chacha20_avx2_impl = {
    "avx2", CHACHA_CAP_AVX2, chacha20_xor_avx2
};
