/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The NEON ChaCha20 kernel (AArch64 and ARMv7): hybrid passes from
 * HYBRID_MIN_LEN bytes on AArch64, the short paths below and for the tail
 * (chacha20_neon.h has them and the layouts).
 */
#include "chacha20_neon.h"

#if NEON_VERTICAL_4BLOCKS
/* Hybrid passes, then the rest (not inlined: the short path stays a leaf). */
static __attribute__((noinline)) void
xor_long(uint8_t *out, const uint8_t *in, size_t len, const uint32_t key[8],
         const uint32_t counter[4])
{
    size_t n = len / HYBRID_BYTES;
    const uint32_t ctr[4] = { counter[0] + (uint32_t)(6 * n), counter[1],
                              counter[2], counter[3] };

    chacha20_neon_hybrid(out, in, n, key, counter);
    xor_rest(out + n * HYBRID_BYTES, in + n * HYBRID_BYTES,
             len - n * HYBRID_BYTES, key, ctr);
}
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
