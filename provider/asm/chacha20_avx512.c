/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ChaCha20 for AVX-512 F/VL/BW (built with -mavx512f -mavx512vl -mavx512bw
 * only): 16 blocks per pass in zmm lanes; below that 4, 8 or 12 blocks in
 * horizontal zmm rows, 2 in ymm, 1 in xmm, all with vprold; a partial final
 * block through byte-masked loads and stores.
 */
#include "chacha20_avx512.h"

/*
 * The most bytes that go in horizontal rows (three 4-block zmm sets) rather
 * than a 16-block pass.
 */
#ifndef CHACHA_AVX512_ROWS_MAX
# define CHACHA_AVX512_ROWS_MAX 768
#endif

/* One block's keystream ks to the first n (1..64) bytes of dst, xored with src. */
C5_INLINE void c5_emit_block(uint8_t *dst, const uint8_t *src, __m512i ks,
                             size_t n)
{
    if (n >= 64)
        C5_STOREU512(dst, _mm512_xor_si512(ks, C5_LOADU512(src)));
    else
        c5_emit_partial(dst, src, ks, n);
}

/* 16 blocks per pass while 1024 bytes remain, then one partial pass. */
static void xor_16x(uint8_t *out, const uint8_t *in, size_t len,
                    const uint32_t key[8], const uint32_t counter[4])
{
    c5_run run;
    __m512i x[16];

    c5_run_setup(&run, key, counter);
    for (; len >= 1024; len -= 1024, in += 1024, out += 1024) {
        c5_rounds16(x, &run);
        c5_emit16(out, in, x, &run, 1024);
    }
    if (len > 0) {
        c5_rounds16(x, &run);
        c5_emit16(out, in, x, &run, len);
    }
    chacha_wipe(&run, sizeof(run));
}

/*
 * nsets (1..3) sets of four blocks in horizontal zmm rows (row r of block
 * 4k + L in 128-bit lane L of v[4k + r]), 256 (nsets - 1) < len <= 256 nsets.
 */
C5_INLINE void xor_rows512(uint8_t *out, const uint8_t *in, size_t len,
                           const uint32_t key[8], const uint32_t counter[4],
                           int nsets)
{
    __m512i v[12], o[4];
    __m512i a = _mm512_broadcast_i32x4(_mm_setr_epi32(
        (int)CHACHA_SIGMA0, (int)CHACHA_SIGMA1, (int)CHACHA_SIGMA2,
        (int)CHACHA_SIGMA3));
    __m512i b = _mm512_broadcast_i32x4(_mm_loadu_si128((const void *)key));
    __m512i c = _mm512_broadcast_i32x4(_mm_loadu_si128((const void *)(key + 4)));
    __m512i d = _mm512_add_epi32(
        _mm512_broadcast_i32x4(_mm_loadu_si128((const void *)counter)),
        _mm512_setr_epi32(0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0));
    int k, l;

    z512_hsets(v, a, b, c, d, _mm512_setr_epi32(4, 0, 0, 0, 4, 0, 0, 0,
                                                4, 0, 0, 0, 4, 0, 0, 0));
    z512_hrounds(v, nsets);
    for (k = 0; k < nsets; k++) {
        c5_transpose128(o, v[4 * k], v[4 * k + 1], v[4 * k + 2], v[4 * k + 3]);
        for (l = 0; l < 4; l++) {
            size_t off = 64 * (size_t)(4 * k + l);

            if (off < len)
                c5_emit_block(out + off, in + off, o[l], len - off);
        }
    }
}

/* Block hi (0, 1) of a ymm row set r: lane hi of its four rows. */
C5_INLINE __m512i c5_yblock(const __m256i r[4], int hi)
{
    __m256i lo = hi ? _mm256_permute2x128_si256(r[0], r[1], 0x31)
                    : _mm256_permute2x128_si256(r[0], r[1], 0x20);
    __m256i up = hi ? _mm256_permute2x128_si256(r[2], r[3], 0x31)
                    : _mm256_permute2x128_si256(r[2], r[3], 0x20);

    return _mm512_inserti64x4(_mm512_castsi256_si512(lo), up, 1);
}

/*
 * Two blocks (64 < len <= 128) in horizontal ymm rows (row r of block L in
 * 128-bit lane L of v[r]). Four blocks go faster as one zmm set than as two
 * ymm sets (Zen 4: 368 against 379 cycles for the rounds).
 */
static void xor_rows256(uint8_t *out, const uint8_t *in, size_t len,
                        const uint32_t key[8], const uint32_t counter[4])
{
    __m256i v[12];

    y256_hsets(v, _mm256_broadcastsi128_si256(_mm_setr_epi32(
                   (int)CHACHA_SIGMA0, (int)CHACHA_SIGMA1,
                   (int)CHACHA_SIGMA2, (int)CHACHA_SIGMA3)),
               _mm256_broadcastsi128_si256(_mm_loadu_si128((const void *)key)),
               _mm256_broadcastsi128_si256(
                   _mm_loadu_si128((const void *)(key + 4))),
               _mm256_add_epi32(_mm256_broadcastsi128_si256(
                                    _mm_loadu_si128((const void *)counter)),
                                _mm256_setr_epi32(0, 0, 0, 0, 1, 0, 0, 0)),
               _mm256_setr_epi32(2, 0, 0, 0, 2, 0, 0, 0));
    y256_hrounds(v, 1);
    c5_emit_block(out, in, c5_yblock(v, 0), 64);
    c5_emit_block(out + 64, in + 64, c5_yblock(v, 1), len - 64);
}

/* One block (0 < len <= 64) in xmm rows. */
static void xor_rows128(uint8_t *out, const uint8_t *in, size_t len,
                        const uint32_t key[8], const uint32_t counter[4])
{
    __m128i v[12];
    __m512i blk;

    v[0] = _mm_setr_epi32((int)CHACHA_SIGMA0, (int)CHACHA_SIGMA1,
                          (int)CHACHA_SIGMA2, (int)CHACHA_SIGMA3);
    v[1] = _mm_loadu_si128((const void *)key);
    v[2] = _mm_loadu_si128((const void *)(key + 4));
    v[3] = _mm_loadu_si128((const void *)counter);
    x128_hrounds(v, 1);
    blk = _mm512_inserti32x4(_mm512_castsi128_si512(v[0]), v[1], 1);
    blk = _mm512_inserti32x4(blk, v[2], 2);
    blk = _mm512_inserti32x4(blk, v[3], 3);
    c5_emit_block(out, in, blk, len);
}

/* 0 < len <= CHACHA_AVX512_ROWS_MAX, in horizontal rows */
static void xor_rows(uint8_t *out, const uint8_t *in, size_t len,
                     const uint32_t key[8], const uint32_t counter[4])
{
    if (len > 512)
        xor_rows512(out, in, len, key, counter, 3);
    else if (len > 256)
        xor_rows512(out, in, len, key, counter, 2);
    else if (len > 128)
        xor_rows512(out, in, len, key, counter, 1);
    else if (len > 64)
        xor_rows256(out, in, len, key, counter);
    else
        xor_rows128(out, in, len, key, counter);
}

static void chacha20_xor_avx512(uint8_t *out, const uint8_t *in, size_t len,
                                const uint32_t key[8],
                                const uint32_t counter[4])
{
    size_t full = len & ~(size_t)1023, rest = len - full;
    uint32_t ctr[4];

    if (len <= CHACHA_AVX512_ROWS_MAX) {
        if (len > 0)
            xor_rows(out, in, len, key, counter);
        return;
    }
    /* a remainder that fits in rows is cheaper there than in a pass */
    if (rest > CHACHA_AVX512_ROWS_MAX) {
        full = len;
        rest = 0;
    }
    xor_16x(out, in, full, key, counter);
    if (rest > 0) {
        memcpy(ctr, counter, sizeof(ctr));
        ctr[0] += (uint32_t)(full / 64);
        xor_rows(out + full, in + full, rest, key, ctr);
    }
}

const chacha20_kernel CHACHA_AVX512_SYM(chacha20_avx512_kernel) = {
    .name = "avx512",
    .caps = CHACHA_AVX512_EMULATED ? 0
            : CHACHA_CAP_AVX512F | CHACHA_CAP_AVX512VL | CHACHA_CAP_AVX512BW,
    .xor_stream = chacha20_xor_avx512,
    /*
     * AEAD: block 0 takes the text up to 11 blocks (12 in rows), or what of
     * a longer text does not fill 1 KiB passes, when that many; else it runs
     * alone. Zen 4, 1 KiB records ours/default: 0.85 seal, 0.91 open with
     * the default 448; 1.08, 1.09 with this.
     */
    .pass_len = 1024,
    .head_max = CHACHA_AVX512_ROWS_MAX - 64,
};
