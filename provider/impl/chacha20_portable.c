/* SPDX-License-Identifier: Apache-2.0 */
/* Portable C ChaCha20 core (RFC 8439 section 2.3), one block at a time. */
#include <string.h>
#include "backend.h"
#include "wipe.h"

#define ROTL32(v, n) (((v) << (n)) | ((v) >> (32 - (n))))

#define QUARTERROUND(a, b, c, d) \
    do { \
        a += b; d ^= a; d = ROTL32(d, 16); \
        c += d; b ^= c; b = ROTL32(b, 12); \
        a += b; d ^= a; d = ROTL32(d, 8); \
        c += d; b ^= c; b = ROTL32(b, 7); \
    } while (0)

static const uint32_t sigma[4] = {
    0x61707865, 0x3320646e, 0x79622d32, 0x6b206574    /* "expand 32-byte k" */
};

static void store_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* One 64-byte keystream block for (key, counter words). */
static void chacha20_block(uint8_t out[64], const uint32_t key[8],
                           const uint32_t counter[4])
{
    uint32_t x[16], in[16];
    int i;

    memcpy(in, sigma, sizeof(sigma));
    memcpy(in + 4, key, 8 * sizeof(uint32_t));
    memcpy(in + 12, counter, 4 * sizeof(uint32_t));
    memcpy(x, in, sizeof(x));
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
    for (i = 0; i < 16; i++)
        store_le32(out + 4 * i, x[i] + in[i]);
}

static void chacha20_xor_portable(uint8_t *out, const uint8_t *in, size_t len,
                                  const uint32_t key[8],
                                  const uint32_t counter[4])
{
    uint32_t ctr[4] = { counter[0], counter[1], counter[2], counter[3] };
    uint8_t ks[64];
    size_t i, n;

    while (len > 0) {
        chacha20_block(ks, key, ctr);
        n = len < 64 ? len : 64;
        for (i = 0; i < n; i++)
            out[i] = in[i] ^ ks[i];
        out += n;
        in += n;
        len -= n;
        ctr[0]++;
    }
    chacha_wipe(ks, sizeof(ks));
}

const chacha20_impl chacha20_portable_impl = {
    "portable", 0, chacha20_xor_portable
};
