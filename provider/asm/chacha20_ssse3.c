/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ChaCha20 for SSSE3 (built with -mssse3 only): 4 blocks per pass in xmm
 * lanes, and 1..3 blocks in horizontal xmm rows for tails and short inputs.
 */
#include <tmmintrin.h>
#include "kernel.h"
#include "chacha20_x86_common.h"

static const __m128i rot_masks[2] = {
    { CT_ROT16_LO, CT_ROT16_HI }, { CT_ROT8_LO, CT_ROT8_HI }
};

/* the 20 rounds of the 4-block kernel in assembly (no ninth block here) */
#define CTA_FN x128_rounds_asm
#define CTA_WIDTH CHACHA_BLOCKS(2)
#include "chacha20_x86_rounds.h"
#define CT_VROUNDS(st, scalar) do { (void)(scalar); x128_rounds_asm(st); } while (0)

#include "chacha20_x86_x128.h"
#include "chacha20_x86_probe.h"

CHACHA_X86_STEP_PROBE(step_probe_ssse3, "paddd %%xmm1, %%xmm0")

#define LOADU128(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define STOREU128(p, v) _mm_storeu_si128((__m128i *)(void *)(p), v)

/* Write one block held as rows r0..r3 (xored with src, or keystream if NULL). */
CHACHA_INLINE
void emit_block(uint8_t *dst, const uint8_t *src,
                __m128i r0, __m128i r1, __m128i r2, __m128i r3)
{
    if (src != NULL) {
        r0 = _mm_xor_si128(r0, LOADU128(src));
        r1 = _mm_xor_si128(r1, LOADU128(src + 16));
        r2 = _mm_xor_si128(r2, LOADU128(src + 32));
        r3 = _mm_xor_si128(r3, LOADU128(src + 48));
    }
    STOREU128(dst, r0);
    STOREU128(dst + 16, r1);
    STOREU128(dst + 32, r2);
    STOREU128(dst + 48, r3);
}

/*
 * The four vertical blocks of st (after x128_vrounds) to dst, as emit_block,
 * through the caller's r (transposed rows: GCC keeps them in memory, so the
 * caller wipes r when it is done).
 */
CHACHA_INLINE
void emit4(uint8_t *dst, const uint8_t *src, const x128_state *st,
           __m128i r[4][4])
{
    int g, j;

    for (g = 0; g < 4; g++)
        x128_vgroup(r[g], st, g);
    for (j = 0; j < 4; j++)
        emit_block(dst + CHACHA_BLOCK_LEN * j, src != NULL ? src + CHACHA_BLOCK_LEN * j : NULL,
                   r[0][j], r[1][j], r[2][j], r[3][j]);
}

/* 4 blocks per pass while at least 256 bytes remain, then one final pass. */
static __attribute__((noinline))
void xor_4x(uint8_t *out, const uint8_t *in, size_t len,
            const uint32_t key[8], const uint32_t counter[4])
{
    _Alignas(16) x128_state st;
    _Alignas(16) uint8_t ks[CHACHA_BLOCKS(4)];
    __m128i r[4][4];
    x128_state *p = &st;
    int i;

    st.in[0] = _mm_set1_epi32((int)CHACHA_SIGMA0);
    st.in[1] = _mm_set1_epi32((int)CHACHA_SIGMA1);
    st.in[2] = _mm_set1_epi32((int)CHACHA_SIGMA2);
    st.in[3] = _mm_set1_epi32((int)CHACHA_SIGMA3);
    for (i = 0; i < 8; i++)
        st.in[4 + i] = _mm_set1_epi32((int)key[i]);
    st.in[12] = _mm_add_epi32(_mm_set1_epi32((int)counter[0]),
                              _mm_setr_epi32(0, 1, 2, 3));
    st.in[13] = _mm_set1_epi32((int)counter[1]);
    st.in[14] = _mm_set1_epi32((int)counter[2]);
    st.in[15] = _mm_set1_epi32((int)counter[3]);
    st.m[0] = rot_masks[0];
    st.m[1] = rot_masks[1];

    for (; len >= CHACHA_BLOCKS(4); len -= CHACHA_BLOCKS(4), in += CHACHA_BLOCKS(4), out += CHACHA_BLOCKS(4)) {
        x128_vrounds(p, 0);
        emit4(out, in, p, r);
        st.in[12] = _mm_add_epi32(st.in[12], _mm_set1_epi32(4));
    }
    if (len > 0) {
        x128_vrounds(p, 0);
        emit4(ks, NULL, p, r);
        ct_xor_tail_wipe(out, in, ks, sizeof(ks), len);
    }
    chacha_wipe(&st, sizeof(st));
    chacha_wipe(r, sizeof(r));
}

/* nsets (1..3) blocks in horizontal rows, 64 * (nsets - 1) < len <= 64 * nsets. */
CHACHA_INLINE
void xor_h128(uint8_t *out, const uint8_t *in, size_t len,
              const uint32_t key[8], const uint32_t counter[4], int nsets)
{
    __m128i v[12];
    __m128i d = LOADU128(counter);
    const __m128i one = _mm_setr_epi32(1, 0, 0, 0);
    _Alignas(16) uint8_t ks[CHACHA_BLOCK_LEN];
    int k;

    _Pragma("GCC unroll 3")
    for (k = 0; k < nsets; k++) {
        v[4 * k] = _mm_setr_epi32((int)CHACHA_SIGMA0, (int)CHACHA_SIGMA1, (int)CHACHA_SIGMA2, (int)CHACHA_SIGMA3);
        v[4 * k + 1] = LOADU128(key);
        v[4 * k + 2] = LOADU128(key + 4);
        v[4 * k + 3] = d;
        d = _mm_add_epi32(d, one);
    }
    x128_hrounds(v, nsets);
    _Pragma("GCC unroll 3")
    for (k = 0; k < nsets; k++) {
        if (len >= CHACHA_BLOCK_LEN) {
            emit_block(out, in, v[4 * k], v[4 * k + 1], v[4 * k + 2],
                       v[4 * k + 3]);
            out += CHACHA_BLOCK_LEN;
            in += CHACHA_BLOCK_LEN;
            len -= CHACHA_BLOCK_LEN;
        } else {
            emit_block(ks, NULL, v[4 * k], v[4 * k + 1], v[4 * k + 2],
                       v[4 * k + 3]);
            ct_xor_tail_wipe(out, in, ks, sizeof(ks), len);
            break;
        }
    }
}

/* 1..192 bytes in rows */
static __attribute__((noinline))
void xor_rows(uint8_t *out, const uint8_t *in, size_t len,
              const uint32_t key[8], const uint32_t counter[4])
{
    if (len > CHACHA_BLOCKS(2))
        xor_h128(out, in, len, key, counter, 3);
    else if (len > CHACHA_BLOCK_LEN)
        xor_h128(out, in, len, key, counter, 2);
    else
        xor_h128(out, in, len, key, counter, 1);
}

/*
 * Stack the row paths may leave rows in, burnt after them: their frame
 * (-fstack-usage: xor_rows 152 bytes with gcc 12, 216 with clang 14), the
 * 128-byte red zone and 64 bytes for saved registers and alignment (with a
 * 384-byte burn, clang's build left half a key below it). They are kept
 * out of line so that their frame is below the burning caller's.
 */
#define BURN_ROWS 512

static void chacha20_xor_ssse3(uint8_t *out, const uint8_t *in, size_t len,
                               const uint32_t key[8],
                               const uint32_t counter[4])
{
    size_t full = len & ~(size_t)255, rest = len - full;
    uint32_t ctr[4] = { counter[0], counter[1], counter[2], counter[3] };

    if (len == 0)
        return;
    /* a remainder of 1..3 blocks is cheaper in rows than in a 4-block pass */
    if (len > CHACHA_BLOCKS(3) && (full == 0 || rest > CHACHA_BLOCKS(3) || rest == 0)) {
        xor_4x(out, in, len, key, counter);   /* wipes its own state */
        return;
    }
    if (full != 0) {
        xor_4x(out, in, full, key, counter);
        ctr[0] += (uint32_t)(full / CHACHA_BLOCK_LEN);
    }
    xor_rows(out + full, in + full, rest, key, ctr);
    chacha_burn_stack(BURN_ROWS);
}

static void hchacha20_ssse3(uint32_t out[8], const uint32_t key[8],
                            const uint32_t in[4])
{
    x128_hchacha20(out, key, in);   /* in registers: no stack to burn */
}

const chacha20_kernel chacha20_ssse3_kernel = {
    .name = "ssse3",
    .caps = CHACHA_CAP_SSSE3,
    .xor_stream = chacha20_xor_ssse3,
    .hchacha20 = hchacha20_ssse3,
    .row_steps = 15,           /* as avx2's rows */
    .two_block_rows = 1,
    .step_probe = step_probe_ssse3,
};
