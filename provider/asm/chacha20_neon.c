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
                     hybrid_burnt);
}


/* Wide passes, then the rest (as xor_long) */
static __attribute__((noinline)) void
xor_wide(uint8_t *out, const uint8_t *in, size_t len, const uint32_t key[8],
         const uint32_t counter[4])
{
    passes_then_rest(out, in, len, key, counter, WIDE_BYTES, wide_burnt);
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

void chacha20_neon_wide_xor(uint8_t *out, const uint8_t *in, size_t len,
                            const uint32_t key[8], const uint32_t counter[4])
    __attribute__((alias("chacha20_xor_neon_wide")));

const chacha20_kernel chacha20_neon_wide_kernel = {
    .name = "neon_wide",
    .caps = CHACHA_CAP_NEON,
    .prefer = CHACHA_CAP_ARM_WIDE,
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

#if defined(__aarch64__)
void chacha20_neon_xor(uint8_t *out, const uint8_t *in, size_t len,
                       const uint32_t key[8], const uint32_t counter[4])
    __attribute__((alias("chacha20_xor_neon")));
#endif

const chacha20_kernel chacha20_neon_kernel = {
    .name = "neon",
    .caps = CHACHA_CAP_NEON,
    .xor_stream = chacha20_xor_neon,
};
