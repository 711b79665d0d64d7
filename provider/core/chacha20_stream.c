/* SPDX-License-Identifier: Apache-2.0 */
/* ChaCha20 streaming over a kernel: partial blocks and counter carry. */
#include <string.h>
#include "util.h"
#include "chacha20_stream.h"
#ifdef CHACHA_TEST_BROKEN_KERNEL
# include "selftest.h"
#endif

static const uint8_t zero_block[2 * CHACHA_BLOCK_LEN];

void chacha20_stream_set_kernel(chacha20_stream *cs, const chacha20_kernel *k,
                                unsigned int scalar_blocks, int hybrid)
{
    cs->kernel = k;
    cs->scalar_max = (size_t)scalar_blocks * CHACHA_BLOCK_LEN;
    cs->vector_xor = chacha20_kernel_entry(k, hybrid);
    cs->make_ahead = scalar_blocks == 0 && k->two_block_rows;
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
    }
    chacha20_stream_drop_keystream(cs);
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
    chacha20_stream_drop_keystream(cs);
}

void chacha20_stream_key_changed(chacha20_stream *cs)
{
    chacha20_stream_drop_keystream(cs);
    cs->block_just_done = 0;
}

void chacha20_stream_get_iv(const chacha20_stream *cs, uint8_t iv[16])
{
    int i;

    for (i = 0; i < 4; i++)
        chacha_store_le32(iv + 4 * i, cs->counter[i]);
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
        chacha20_counter_add(cs->counter, blocks);
        out += n;
        in += n;
        len -= n;
    }
}

/* out = in ^ ks, n <= 64 bytes: word by word (the byte loop was ~1 cycle a byte) */
static void xor_ks(uint8_t *out, const uint8_t *in, const uint8_t *ks, size_t n)
{
    uint64_t a, b;
    size_t i = 0;

    for (; i + 8 <= n; i += 8) {
        memcpy(&a, in + i, 8);
        memcpy(&b, ks + i, 8);
        a ^= b;
        memcpy(out + i, &a, 8);
    }
    for (; i < n; i++)
        out[i] = in[i] ^ ks[i];
}

/*
 * Make the keystream of block counter into ks[0..63], and if ahead that of
 * block counter + 1 into ks[64..127] in the same kernel call; step the
 * counter past the first.
 */
static void make_block(chacha20_stream *cs, int ahead)
{
    chacha20_stream_kernel_xor(cs, cs->ks, zero_block,
                               ahead ? 2 * CHACHA_BLOCK_LEN : CHACHA_BLOCK_LEN,
                               cs->counter);
    chacha20_counter_add(cs->counter, 1);
    if (ahead) {
        cs->ahead = 1;
        memcpy(cs->ahead_ctr, cs->counter, sizeof(cs->ahead_ctr));
    }
}

void chacha20_stream_xor_general(chacha20_stream *cs, uint8_t *out,
                                 const uint8_t *in, size_t len)
{
    size_t n, tail;
    int streaming = 0, ahead, used_ahead = 0;
    const int continued = cs->continued;

    if (len == 0)
        return;
    cs->continued = 1;
    cs->block_just_done = 0;
    if (cs->partial != 0) {
        if (!cs->ks_valid)
            load_partial_block(cs);
        n = CHACHA_BLOCK_LEN - cs->partial;
        if (n > len)
            n = len;
        xor_ks(out, in, cs->ks + cs->partial, n);
        cs->partial = (cs->partial + (unsigned int)n) & 63;
        if (cs->partial == 0) {
            chacha_wipe(cs->ks, CHACHA_BLOCK_LEN);
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
    /* on a block boundary: the block made ahead, if it is this one */
    if (cs->ahead) {
        if (memcmp(cs->ahead_ctr, cs->counter, sizeof(cs->ahead_ctr)) == 0) {
            n = len < CHACHA_BLOCK_LEN ? len : CHACHA_BLOCK_LEN;
            xor_ks(out, in, cs->ks + CHACHA_BLOCK_LEN, n);
            chacha20_counter_add(cs->counter, 1);
            if (n < CHACHA_BLOCK_LEN) {
                /* it becomes the partial block */
                memcpy(cs->ks, cs->ks + CHACHA_BLOCK_LEN, CHACHA_BLOCK_LEN);
                cs->partial = (unsigned int)n;
                cs->ks_valid = 1;
            }
            out += n;
            in += n;
            len -= n;
            streaming = 1;
            used_ahead = 1;
        }
        chacha_wipe(cs->ks + CHACHA_BLOCK_LEN, CHACHA_BLOCK_LEN);
        cs->ahead = 0;
        if (len == 0)
            return;
    }
    /*
     * At most a block left, in a stream that goes on: make the next block
     * too, where that costs nothing (make_ahead), not in a call that used
     * one made ahead (a 128-byte call would then make two blocks in pieces
     * every time, where one kernel call does them), and not at the last
     * block before the 32-bit counter wraps (the kernel would not carry).
     */
    ahead = cs->make_ahead && continued && !used_ahead
            && len <= CHACHA_BLOCK_LEN && cs->counter[0] != 0xffffffff;
    tail = len & 63;
    if (len < CHACHA_BLOCK_LEN || ahead) {
        /*
         * Less than a block from a block boundary: keep the block's keystream,
         * so a caller streaming small pieces (`openssl speed`, 16-byte
         * updates) makes each block once. It costs one block either way.
         * Or exactly one block with the next made ahead: nothing of this
         * one is kept.
         */
        make_block(cs, ahead);
        xor_ks(out, in, cs->ks, len);
        cs->partial = (unsigned int)tail;
        cs->ks_valid = tail != 0;
        if (tail == 0)
            chacha_wipe(cs->ks, CHACHA_BLOCK_LEN);
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
    out += len - tail;
    in += len - tail;
    make_block(cs, 0);
    xor_ks(out, in, cs->ks, tail);
    cs->partial = (unsigned int)tail;
    cs->ks_valid = 1;
}
