/* SPDX-License-Identifier: Apache-2.0 */
/* Portable C ChaCha20 core (RFC 8439 section 2.3), one block at a time. */
#include <string.h>
#include "kernel.h"
#include "util.h"

#define ROTL32(v, n) (((v) << (n)) | ((v) >> (32 - (n))))

#define QUARTERROUND(a, b, c, d) \
    do { \
        a += b; d ^= a; d = ROTL32(d, 16); \
        c += d; b ^= c; b = ROTL32(b, 12); \
        a += b; d ^= a; d = ROTL32(d, 8); \
        c += d; b ^= c; b = ROTL32(b, 7); \
    } while (0)

/* The 20 rounds on x, in place, without the feed-forward. */
static void chacha20_rounds(uint32_t x[16])
{
    int i;

    for (i = 0; i < 10; i++) {
        QUARTERROUND(x[0], x[4], x[8], x[12]);     /* columns */
        QUARTERROUND(x[1], x[5], x[9], x[13]);
        QUARTERROUND(x[2], x[6], x[10], x[14]);
        QUARTERROUND(x[3], x[7], x[11], x[15]);
        QUARTERROUND(x[0], x[5], x[10], x[15]);    /* diagonals */
        QUARTERROUND(x[1], x[6], x[11], x[12]);
        QUARTERROUND(x[2], x[7], x[8], x[13]);
        QUARTERROUND(x[3], x[4], x[9], x[14]);
    }
}

/* The 16 input words for (key, counter words). */
static void chacha20_input(uint32_t x[16], const uint32_t key[8],
                           const uint32_t counter[4])
{
    x[0] = CHACHA_SIGMA0;
    x[1] = CHACHA_SIGMA1;
    x[2] = CHACHA_SIGMA2;
    x[3] = CHACHA_SIGMA3;
    memcpy(x + 4, key, 8 * sizeof(uint32_t));
    memcpy(x + 12, counter, 4 * sizeof(uint32_t));
}

/*
 * Whole blocks go straight from the round words to the output, a word at a
 * time (no keystream buffer, no byte loop): this is also the scalar short
 * path of the SIMD kernels (core/shortpath.c), where a block's cost is
 * what the choice between them weighs. Only a partial last block is
 * staged in ks[].
 */
static void chacha20_xor_portable(uint8_t *out, const uint8_t *in, size_t len,
                                  const uint32_t key[8],
                                  const uint32_t counter[4])
{
    uint32_t x[16], j[16];
    uint8_t ks[CHACHA_BLOCK_LEN];
    size_t i;

    chacha20_input(j, key, counter);
    for (; len >= CHACHA_BLOCK_LEN; len -= CHACHA_BLOCK_LEN, in += CHACHA_BLOCK_LEN, out += CHACHA_BLOCK_LEN) {
        memcpy(x, j, sizeof(x));
        chacha20_rounds(x);
        for (i = 0; i < 16; i++)
            chacha_store_le32(out + 4 * i,
                              chacha_load_le32(in + 4 * i) ^ (x[i] + j[i]));
        j[12]++;
    }
    if (len > 0) {
        memcpy(x, j, sizeof(x));
        chacha20_rounds(x);
        for (i = 0; i < 16; i++)
            chacha_store_le32(ks + 4 * i, x[i] + j[i]);
        for (i = 0; i < len; i++)
            out[i] = in[i] ^ ks[i];
        chacha_wipe(ks, sizeof(ks));
    }
    chacha_wipe(x, sizeof(x));
    chacha_wipe(j, sizeof(j));
}

static void hchacha20_portable(uint32_t out[8], const uint32_t key[8],
                               const uint32_t in[4])
{
    uint32_t x[16];

    chacha20_input(x, key, in);
    chacha20_rounds(x);
    memcpy(out, x, 4 * sizeof(uint32_t));
    memcpy(out + 4, x + 12, 4 * sizeof(uint32_t));
    chacha_wipe(x, sizeof(x));
}

const chacha20_kernel chacha20_portable_kernel = {
    .name = "portable",
    .caps = 0,
    .xor_stream = chacha20_xor_portable,
    .hchacha20 = hchacha20_portable,
};
