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

/*
 * The 20 rounds of the block (key, counter words) into x (without the
 * feed-forward). The state lives in 16 local words, not in x: GCC keeps
 * them in registers (a few spills), where the array version made it load
 * and store words around every quarter round -- 292 against 248 core
 * cycles a block on Zen 5, whose bound is 240 (20 rounds of 12 dependent
 * one-cycle operations). Spills are key-derived: the callers burn them.
 */
static void chacha20_rounds(uint32_t x[16], const uint32_t key[8],
                            const uint32_t counter[4])
{
    uint32_t x0 = CHACHA_SIGMA0, x1 = CHACHA_SIGMA1, x2 = CHACHA_SIGMA2,
             x3 = CHACHA_SIGMA3;
    uint32_t x4 = key[0], x5 = key[1], x6 = key[2], x7 = key[3];
    uint32_t x8 = key[4], x9 = key[5], x10 = key[6], x11 = key[7];
    uint32_t x12 = counter[0], x13 = counter[1], x14 = counter[2],
             x15 = counter[3];
    int i;

    for (i = 0; i < 10; i++) {
        QUARTERROUND(x0, x4, x8, x12);     /* columns */
        QUARTERROUND(x1, x5, x9, x13);
        QUARTERROUND(x2, x6, x10, x14);
        QUARTERROUND(x3, x7, x11, x15);
        QUARTERROUND(x0, x5, x10, x15);    /* diagonals */
        QUARTERROUND(x1, x6, x11, x12);
        QUARTERROUND(x2, x7, x8, x13);
        QUARTERROUND(x3, x4, x9, x14);
    }
    x[0] = x0; x[1] = x1; x[2] = x2; x[3] = x3;
    x[4] = x4; x[5] = x5; x[6] = x6; x[7] = x7;
    x[8] = x8; x[9] = x9; x[10] = x10; x[11] = x11;
    x[12] = x12; x[13] = x13; x[14] = x14; x[15] = x15;
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
 *
 * The work runs one call below the kernel's entry points (noinline), which
 * then burn the stack it used: x[], j[], ks[] and whatever round words the
 * compiler spilled (it does, with or without the array: GCC 12 keeps three
 * of the 16 words on the stack). PORTABLE_FRAME covers these frames with
 * room to spare (test_stack_residue searches for every word of the rounds).
 */
#define PORTABLE_FRAME 640

static __attribute__((noinline)) void
xor_blocks(uint8_t *out, const uint8_t *in, size_t len, const uint32_t key[8],
           const uint32_t counter[4])
{
    uint32_t x[16], j[16];
    uint8_t ks[CHACHA_BLOCK_LEN];
    size_t i;

    chacha20_input(j, key, counter);
    for (; len >= CHACHA_BLOCK_LEN; len -= CHACHA_BLOCK_LEN, in += CHACHA_BLOCK_LEN, out += CHACHA_BLOCK_LEN) {
        chacha20_rounds(x, key, j + 12);
        for (i = 0; i < 16; i++)
            chacha_store_le32(out + 4 * i,
                              chacha_load_le32(in + 4 * i) ^ (x[i] + j[i]));
        j[12]++;
    }
    if (len > 0) {
        chacha20_rounds(x, key, j + 12);
        for (i = 0; i < 16; i++)
            chacha_store_le32(ks + 4 * i, x[i] + j[i]);
        for (i = 0; i < len; i++)
            out[i] = in[i] ^ ks[i];
    }
}

static void chacha20_xor_portable(uint8_t *out, const uint8_t *in, size_t len,
                                  const uint32_t key[8],
                                  const uint32_t counter[4])
{
    xor_blocks(out, in, len, key, counter);
    chacha_burn_stack(PORTABLE_FRAME);
}

static __attribute__((noinline)) void
hchacha_rounds(uint32_t out[8], const uint32_t key[8], const uint32_t in[4])
{
    uint32_t x[16];

    chacha20_rounds(x, key, in);
    memcpy(out, x, 4 * sizeof(uint32_t));
    memcpy(out + 4, x + 12, 4 * sizeof(uint32_t));
}

static void hchacha20_portable(uint32_t out[8], const uint32_t key[8],
                               const uint32_t in[4])
{
    hchacha_rounds(out, key, in);
    chacha_burn_stack(PORTABLE_FRAME);
}

const chacha20_kernel chacha20_portable_kernel = {
    .name = "portable",
    .caps = 0,
    .xor_stream = chacha20_xor_portable,
    .hchacha20 = hchacha20_portable,
};
