/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What every x86-64 ChaCha20 kernel shares, whichever template or
 * generator it uses: the byte-shuffle masks that rotate 32-bit lanes, and
 * the xor of a final partial stretch.
 */
#ifndef CHACHA20_X86_COMMON_H
#define CHACHA20_X86_COMMON_H

#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <emmintrin.h>
#include "util.h"

/* pshufb masks rotating each 32-bit lane left by 16 and by 8 (64-bit halves) */
#define CT_ROT16_LO 0x0504070601000302
#define CT_ROT16_HI 0x0d0c0f0e09080b0a
#define CT_ROT8_LO 0x0605040702010003
#define CT_ROT8_HI 0x0e0d0c0f0a09080b

/* dst[0..w) = src[0..w) ^ ks[0..w) for w = 4 or 8, as one word */
CHACHA_INLINE void ct_xor_word(uint8_t *dst, const uint8_t *src,
                               const uint8_t *ks, size_t w)
{
    uint64_t a = 0, b = 0;

    memcpy(&a, src, w);
    memcpy(&b, ks, w);
    a ^= b;
    memcpy(dst, &a, w);
}

/*
 * dst[0..n) = src[0..n) ^ ks[0..n) for a final partial stretch, n < 512;
 * touches no byte of src or dst at or past n.
 */
CHACHA_INLINE void ct_xor_tail(uint8_t *dst, const uint8_t *src,
                               const uint8_t *ks, size_t n)
{
    while (n >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)src);

        v = _mm_xor_si128(v, _mm_loadu_si128((const __m128i *)ks));
        _mm_storeu_si128((__m128i *)dst, v);
        dst += 16;
        src += 16;
        ks += 16;
        n -= 16;
    }
    if (n & 8) {
        ct_xor_word(dst, src, ks, 8);
        dst += 8;
        src += 8;
        ks += 8;
    }
    if (n & 4) {
        ct_xor_word(dst, src, ks, 4);
        dst += 4;
        src += 4;
        ks += 4;
    }
    n &= 3;
    while (n--)
        *dst++ = *src++ ^ *ks++;
}

/*
 * The end of every kernel whose last pass is partial: that pass's keystream
 * was written to ks (kslen bytes); xor its first n bytes in, then wipe it.
 */
CHACHA_INLINE void ct_xor_tail_wipe(uint8_t *dst, const uint8_t *src, uint8_t *ks,
                                    size_t kslen, size_t n)
{
    ct_xor_tail(dst, src, ks, n);
    chacha_wipe(ks, kslen);
}

#endif
