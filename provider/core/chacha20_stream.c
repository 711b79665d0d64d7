/* SPDX-License-Identifier: Apache-2.0 */
/* ChaCha20 streaming over a kernel: partial blocks and counter carry. */
#include <string.h>
#include "util.h"
#include "chacha20_stream.h"
#ifdef CHACHA_TEST_BROKEN_KERNEL
# include "selftest.h"
#endif

static const uint8_t zero_block[CHACHA_BLOCK_LEN];

void chacha20_stream_set_kernel(chacha20_stream *cs, const chacha20_kernel *k,
                                unsigned int scalar_blocks, int hybrid)
{
    cs->kernel = k;
    cs->scalar_max = (size_t)scalar_blocks * CHACHA_BLOCK_LEN;
    cs->vector_xor = hybrid && k->xor_stream_hybrid != NULL
                     ? k->xor_stream_hybrid : k->xor_stream;
}

void chacha20_stream_kernel_xor(const chacha20_stream *cs, uint8_t *out,
                                const uint8_t *in, size_t len,
                                const uint32_t counter[4])
{
    chacha20_xor_fn *f = len <= cs->scalar_max
                         ? chacha20_portable_kernel.xor_stream : cs->vector_xor;

    f(out, in, len, cs->key, counter);
}

const chacha20_kernel *chacha20_stream_hchacha_kernel(const chacha20_stream *cs)
{
    return cs->scalar_max >= CHACHA_BLOCK_LEN ? &chacha20_portable_kernel : cs->kernel;
}

/* Make ks hold the keystream of block counter - 1 (the partial block). */
static void load_partial_block(chacha20_stream *cs)
{
    uint32_t prev[4] = { cs->counter[0] - 1, cs->counter[1],
                         cs->counter[2], cs->counter[3] };

    if (cs->counter[0] == 0)
        prev[1]--;                      /* borrow, undoing OpenSSL's carry */
    chacha20_stream_kernel_xor(cs, cs->ks, zero_block, CHACHA_BLOCK_LEN, prev);
    cs->ks_valid = 1;
}

void chacha20_stream_set_key(chacha20_stream *cs, const uint8_t key[32])
{
    int i;

    /*
     * As OpenSSL: a key-only re-init in the middle of a block drops the rest
     * of that block and restarts it, at its first byte, with the new key.
     */
    if (cs->partial != 0 || cs->block_just_done) {
        if (cs->counter[0] == 0)
            cs->counter[1]--;           /* undo the carry into word 1 */
        cs->counter[0]--;
        cs->partial = 0;
        cs->block_just_done = 0;
        if (cs->ks_valid)
            chacha_wipe(cs->ks, sizeof(cs->ks));
        cs->ks_valid = 0;
    }
    for (i = 0; i < 8; i++)
        cs->key[i] = chacha_load_le32(key + 4 * i);
#ifdef CHACHA_TEST_BROKEN_KERNEL
    /* TEST ONLY (--enable-test-broken-kernel): harness and self-test negative control */
    cs->key[0] ^= chacha_test_broken_bit();
#endif
}

void chacha20_stream_set_iv(chacha20_stream *cs, const uint8_t iv[16])
{
    int i;

    for (i = 0; i < 4; i++)
        cs->counter[i] = chacha_load_le32(iv + 4 * i);
    cs->partial = 0;
    cs->block_just_done = 0;
    if (cs->ks_valid)
        chacha_wipe(cs->ks, sizeof(cs->ks));
    cs->ks_valid = 0;
}

void chacha20_stream_key_changed(chacha20_stream *cs)
{
    if (cs->ks_valid)
        chacha_wipe(cs->ks, sizeof(cs->ks));
    cs->ks_valid = 0;
    cs->block_just_done = 0;
}

void chacha20_stream_get_iv(const chacha20_stream *cs, uint8_t iv[16])
{
    int i;

    for (i = 0; i < 4; i++)
        chacha_store_le32(iv + 4 * i, cs->counter[i]);
}

/* Advance the 64-bit block counter by n (n <= 2^32 - counter[0] keeps it exact). */
static void counter_add(uint32_t counter[4], uint64_t n)
{
    uint64_t c = (uint64_t)counter[0] + n;

    counter[0] = (uint32_t)c;
    counter[1] += (uint32_t)(c >> 32);
}

/* Run the kernel over len bytes, splitting where the 32-bit counter wraps. */
static void xor_blocks(chacha20_stream *cs, uint8_t *out, const uint8_t *in,
                       size_t len)
{
    while (len > 0) {
        uint64_t room = ((uint64_t)1 << 32) - cs->counter[0];   /* blocks */
        uint64_t blocks = ((uint64_t)len + 63) / CHACHA_BLOCK_LEN;
        size_t n = len;

        if (blocks > room) {
            blocks = room;
            n = (size_t)(room * CHACHA_BLOCK_LEN);
        }
        chacha20_stream_kernel_xor(cs, out, in, n, cs->counter);
        counter_add(cs->counter, blocks);
        out += n;
        in += n;
        len -= n;
    }
}

void chacha20_stream_xor(chacha20_stream *cs, uint8_t *out, const uint8_t *in,
                         size_t len)
{
    size_t i, n, tail;
    int streaming = 0;

    if (len == 0)
        return;
    cs->block_just_done = 0;
    if (cs->partial != 0) {
        if (!cs->ks_valid)
            load_partial_block(cs);
        n = CHACHA_BLOCK_LEN - cs->partial;
        if (n > len)
            n = len;
        for (i = 0; i < n; i++)
            out[i] = in[i] ^ cs->ks[cs->partial + i];
        cs->partial = (cs->partial + (unsigned int)n) & 63;
        if (cs->partial == 0) {
            chacha_wipe(cs->ks, sizeof(cs->ks));
            cs->ks_valid = 0;
        }
        out += n;
        in += n;
        len -= n;
        streaming = 1;
        if (len == 0) {
            cs->block_just_done = cs->partial == 0;
            return;
        }
    }
    tail = len & 63;
    if (len < CHACHA_BLOCK_LEN) {
        /*
         * Less than a block from a block boundary: keep the block's keystream,
         * so a caller streaming small pieces (`openssl speed`, 16-byte
         * updates) makes each block once. It costs one block either way.
         */
        chacha20_stream_kernel_xor(cs, cs->ks, zero_block, CHACHA_BLOCK_LEN, cs->counter);
        counter_add(cs->counter, 1);
        for (i = 0; i < len; i++)
            out[i] = in[i] ^ cs->ks[i];
        cs->partial = (unsigned int)len;
        cs->ks_valid = 1;
        return;
    }
    if (!streaming || tail == 0) {
        /* one kernel call; a partial last block is made again if needed */
        xor_blocks(cs, out, in, len);
        cs->partial = (unsigned int)tail;
        cs->ks_valid = 0;
        return;
    }
    /*
     * The caller streams in pieces that do not fall on block boundaries
     * (e.g. `openssl speed` with 16-byte updates): keep the last block's
     * keystream so the next calls use it instead of making it again.
     */
    xor_blocks(cs, out, in, len - tail);
    chacha20_stream_kernel_xor(cs, cs->ks, zero_block, CHACHA_BLOCK_LEN, cs->counter);
    counter_add(cs->counter, 1);
    out += len - tail;
    in += len - tail;
    for (i = 0; i < tail; i++)
        out[i] = in[i] ^ cs->ks[i];
    cs->partial = (unsigned int)tail;
    cs->ks_valid = 1;
}
