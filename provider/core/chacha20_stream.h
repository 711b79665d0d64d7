/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ChaCha20 keystream state with OpenSSL's counter semantics: the 16-byte IV is
 * four little-endian words, counter[0] is the block counter and a 32-bit wrap
 * carries into counter[1] (a 64-bit counter, as OpenSSL's default provider).
 */
#ifndef CHACHA_CORE_CHACHA20_STREAM_H
#define CHACHA_CORE_CHACHA20_STREAM_H

#include "kernel.h"
#include "util.h"

typedef struct {
    uint32_t key[8];
    uint32_t counter[4];       /* next block to generate, then the nonce */
    /*
     * Bytes already used of the last block generated (block counter - 1);
     * 0 when the stream sits on a block boundary. Its keystream is made again
     * only if the stream continues (then ks_valid), so a one-shot message costs
     * one kernel call.
     */
    unsigned int partial;
    unsigned int ks_valid;
    /*
     * The last call ended exactly at the end of a block it had started
     * inside. OpenSSL has not stepped its counter past such a block yet, so
     * a key-only re-init restarts it: see chacha20_stream_set_key().
     */
    unsigned int block_just_done;
    unsigned int ahead;
    uint32_t ahead_ctr[4];
    /*
     * An Update ran since the key or IV was set: the caller goes on in
     * pieces, and a one-block piece makes the next block too if make_ahead
     * (the kernel's two-block rows cost about what one block does, and the
     * rule gives one-block calls to that kernel). A message that is one
     * call after its IV never pays for a block it does not use.
     */
    unsigned int continued;
    unsigned int make_ahead;
    const chacha20_kernel *kernel;
    /*
     * Calls of at most this many bytes run the portable kernel (the
     * short-path rule, core/shortpath.h); 0: the kernel runs all.
     */
    size_t scalar_max;
    chacha20_xor_fn *vector_xor;   /* the kernel's entry for the others
                                      (set with the kernel, below) */
    /*
     * Keystream kept between calls: ks[0..63] the partial block (block
     * counter - 1) when ks_valid; ks[64..127] block `counter` itself, not
     * yet used, when ahead (made ahead for ahead_ctr, the counter and
     * nonce words it belongs to: used only while counter[] still equals
     * it; every move of the key, IV or counter drops it anyway).
     */
    uint8_t ks[2 * CHACHA_BLOCK_LEN];
} chacha20_stream;

/*
 * Use kernel k, with calls of at most scalar_blocks blocks on the scalar one,
 * and the others on k's hybrid entry if hybrid is 1, its paired passes if 2
 * (what k has of them).
 */
void chacha20_stream_set_kernel(chacha20_stream *cs, const chacha20_kernel *k,
                                unsigned int scalar_blocks, int hybrid);
/* The keystream for (cs->key, counter) xored into len bytes, on the path the rule picks. */
void chacha20_stream_kernel_xor(const chacha20_stream *cs, uint8_t *out,
                                const uint8_t *in, size_t len,
                                const uint32_t counter[4]);
/* The kernel that runs HChaCha20 for this stream (the scalar one by the rule). */
const chacha20_kernel *chacha20_stream_hchacha_kernel(const chacha20_stream *cs);

void chacha20_stream_set_key(chacha20_stream *cs, const uint8_t key[32]);
/* Load the 16-byte counter||nonce block (OpenSSL's ChaCha20 IV layout). */
void chacha20_stream_set_iv(chacha20_stream *cs, const uint8_t iv[16]);
void chacha20_stream_get_iv(const chacha20_stream *cs, uint8_t iv[16]);
/*
 * The caller wrote new key words into cs->key: the stream goes on from where
 * it is with them (a partial block's rest is made again with the new key).
 */
void chacha20_stream_key_changed(chacha20_stream *cs);
/*
 * Wipe and forget all kept keystream (the partial block's and the block
 * made ahead): for callers that move the counter themselves. Inline: the
 * AEAD calls it twice a record (a call cost AEAD records ~1%, Zen 3).
 */
static inline void chacha20_stream_drop_keystream(chacha20_stream *cs)
{
    if (cs->ks_valid || cs->ahead)
        chacha_wipe(cs->ks, sizeof(cs->ks));
    cs->ks_valid = 0;
    cs->ahead = 0;
    cs->continued = 0;
}
/*
 * Advance the 64-bit block counter by n (n <= 2^32 - counter[0] keeps it
 * exact): OpenSSL's carry of the 32-bit block counter into word 1.
 */
static inline void chacha20_counter_add(uint32_t counter[4], uint64_t n)
{
    uint64_t c = (uint64_t)counter[0] + n;

    counter[0] = (uint32_t)c;
    counter[1] += (uint32_t)(c >> 32);
}

/* Any length from anywhere in the stream (below: the inline common case first). */
void chacha20_stream_xor_general(chacha20_stream *cs, uint8_t *out,
                                 const uint8_t *in, size_t len);

/*
 * The common case inline: whole blocks from a block boundary with nothing
 * kept (no partial block, no block made ahead, none to make: a one-block
 * call of a stream that goes on may make one, so it takes the general
 * path, which decides), for the vector kernel, no
 * 32-bit counter wrap inside. One kernel call, without the general path's
 * calls and state tests, which cost a 512-byte Update ~5% (1 KiB ~4%,
 * Zen 3, bench/ab). Returns 0 having done nothing otherwise.
 */
static inline int chacha20_stream_xor_whole(chacha20_stream *cs, uint8_t *out,
                                            const uint8_t *in, size_t len)
{
    uint64_t blocks = len / CHACHA_BLOCK_LEN;

    /* first what a stream in small pieces fails on (the AEAD's 16, 64 B) */
    if ((len & 63) != 0 || (len == CHACHA_BLOCK_LEN && cs->continued)
        || len == 0 || cs->partial != 0 || cs->ahead
        || len <= cs->scalar_max
        || blocks > ((uint64_t)1 << 32) - cs->counter[0])
        return 0;
    cs->vector_xor(out, in, len, cs->key, cs->counter);
    chacha20_counter_add(cs->counter, blocks);
    cs->continued = 1;
    cs->block_just_done = 0;
    cs->ks_valid = 0;
    return 1;
}

/* out = in ^ the next len bytes of keystream */
static inline void chacha20_stream_xor(chacha20_stream *cs, uint8_t *out,
                                       const uint8_t *in, size_t len)
{
    if (!chacha20_stream_xor_whole(cs, out, in, len))
        chacha20_stream_xor_general(cs, out, in, len);
}

#endif
