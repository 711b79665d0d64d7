/* SPDX-License-Identifier: Apache-2.0 */
/* RFC 8439 ChaCha20-Poly1305 over the kernels (see aead.h). */
#include <string.h>
#include "util.h"
#include "aead.h"

/*
 * The one-time key comes with the text: AAD is buffered until the first text
 * arrives, then one kernel call makes block 0 (the one-time key) and the
 * keystream of up to HEAD_MAX bytes of text together, so the SIMD kernels run
 * them side by side (block 0 + 7 blocks = one 8-block AVX2 pass); the rest of
 * the text follows on the bulk path. A kernel may ask for another split
 * (pass_len, head_max in kernel.h), of at most HEAD_LIMIT bytes.
 */
#define HEAD_MAX CHACHA_BLOCKS(7)
#define HEAD_LIMIT CHACHA_BLOCKS(15)

/* How many of len bytes of text ride with block 0 (see chacha20_kernel). */
static size_t head_len(const chacha20_kernel *k, size_t len)
{
    size_t max = k->head_max < HEAD_LIMIT ? k->head_max : HEAD_LIMIT, h;

    if (k->pass_len == 0)
        return len < HEAD_MAX ? len : HEAD_MAX;
    if (len <= max)
        return len;
    h = (len % k->pass_len) & ~(size_t)63;
    /*
     * Nothing whole left over: a kernel that takes a whole pass along
     * (head_max >= pass_len: the AVX2 one runs block 0 as a ninth block
     * beside it) takes one, rather than make block 0 alone.
     */
    if (h == 0 && max >= k->pass_len)
        h = k->pass_len;
    return h <= max ? h : 0;
}

void chacha_aead_setup(chacha_aead *a, const chacha20_kernel *chacha,
                       const poly1305_kernel *poly,
                       const chacha20_poly1305_kernel *fused)
{
    chacha20_stream_set_kernel(&a->cs, chacha, 0, 0);
    a->poly = poly;
    a->fused = fused;
}

void chacha_aead_set_short_rule(chacha_aead *a, unsigned int scalar_blocks,
                                int hybrid)
{
    chacha20_stream_set_kernel(&a->cs, a->cs.kernel, scalar_blocks, hybrid);
}

void chacha_aead_set_key(chacha_aead *a, const uint8_t key[32])
{
    chacha20_stream_set_key(&a->cs, key);
}

void chacha_aead_set_nonce(chacha_aead *a, const uint32_t nonce[3])
{
    memcpy(a->nonce, nonce, sizeof(a->nonce));
    chacha_aead_reset(a);
}

void chacha_aead_reset(chacha_aead *a)
{
    uint8_t unused[CHACHA_AEAD_TAG_LEN];

    /* a MAC still running holds the one-time key: finish it into the void */
    if (a->phase == CHACHA_AEAD_AAD || a->phase == CHACHA_AEAD_TEXT) {
        poly1305_final(&a->mac, unused);
        chacha_wipe(unused, sizeof(unused));
    }
    if (a->aad_buf_len != 0)
        chacha_wipe(a->aad_buf, a->aad_buf_len);
    a->aad_buf_len = 0;
    a->aad_len = a->text_len = 0;
    chacha20_stream_drop_keystream(&a->cs);
    a->phase = CHACHA_AEAD_FRESH;
}

void chacha_aead_abort(chacha_aead *a)
{
    chacha_aead_reset(a);
    a->phase = CHACHA_AEAD_DONE;
}

/* Load counter = (block, nonce) into the keystream state. */
static void set_counter(chacha_aead *a, uint32_t block)
{
    a->cs.counter[0] = block;
    a->cs.counter[1] = a->nonce[0];
    a->cs.counter[2] = a->nonce[1];
    a->cs.counter[3] = a->nonce[2];
    a->cs.partial = 0;
    chacha20_stream_drop_keystream(&a->cs);
}

/* Key the MAC with the one-time key and absorb the AAD buffered so far. */
static void mac_begin(chacha_aead *a, const uint8_t otk[32])
{
    poly1305_init(&a->mac, a->poly, otk);
    poly1305_update(&a->mac, a->aad_buf, a->aad_buf_len);
    chacha_wipe(a->aad_buf, a->aad_buf_len);
    a->aad_buf_len = 0;
    a->phase = CHACHA_AEAD_AAD;
}

/* Derive the one-time Poly1305 key from block 0; text starts at block 1. */
static void start(chacha_aead *a)
{
    uint8_t otk[CHACHA_BLOCK_LEN] = { 0 };

    set_counter(a, 0);
    chacha20_stream_kernel_xor(&a->cs, otk, otk, CHACHA_BLOCK_LEN, a->cs.counter);
    a->cs.counter[0] = 1;
    mac_begin(a, otk);
    chacha_wipe(otk, sizeof(otk));
}

/*
 * Block 0 and the first bytes of text in one kernel call; returns how many
 * bytes of text it took (all of len, or whole blocks: bulk path aligned).
 * With mac_head 0 the caller MACs those bytes of ciphertext itself.
 */
static size_t start_with_text(chacha_aead *a, uint8_t *out, const uint8_t *in,
                              size_t len, int enc, int mac_head)
{
    uint8_t buf[CHACHA_BLOCK_LEN + HEAD_LIMIT];

    len = head_len(a->cs.kernel, len);
    memset(buf, 0, CHACHA_BLOCK_LEN);
    chacha_copy(buf + CHACHA_BLOCK_LEN, in, len);
    set_counter(a, 0);
    chacha20_stream_kernel_xor(&a->cs, buf, buf, CHACHA_BLOCK_LEN + len, a->cs.counter);
    a->cs.counter[0] = 1 + (uint32_t)((len + CHACHA_BLOCK_LEN - 1) / CHACHA_BLOCK_LEN);
    a->cs.partial = (unsigned int)(len & 63);  /* remade if the text goes on */
    mac_begin(a, buf);
    poly1305_pad16(&a->mac);
    a->phase = CHACHA_AEAD_TEXT;
    /* the MAC reads the ciphertext: ours when sealing, the input when opening */
    if (mac_head)
        poly1305_update(&a->mac, enc ? buf + CHACHA_BLOCK_LEN : in, len);
    chacha_copy(out, buf + CHACHA_BLOCK_LEN, len);
    chacha_wipe(buf, CHACHA_BLOCK_LEN + len);
    return len;
}

enum chacha_aead_status chacha_aead_aad(chacha_aead *a, const uint8_t *in,
                                        size_t len)
{
    if (a->phase == CHACHA_AEAD_TEXT)
        return CHACHA_AEAD_AAD_AFTER_TEXT;
    if (a->phase == CHACHA_AEAD_FRESH
        && len <= CHACHA_AEAD_AAD_BUF - a->aad_buf_len) {
        memcpy(a->aad_buf + a->aad_buf_len, in, len);
        a->aad_buf_len += len;
    } else {
        if (a->phase == CHACHA_AEAD_FRESH)
            start(a);
        poly1305_update(&a->mac, in, len);
    }
    a->aad_len += len;
    return CHACHA_AEAD_OK;
}

enum chacha_aead_status chacha_aead_text(chacha_aead *a, uint8_t *out,
                                         const uint8_t *in, size_t len,
                                         int enc)
{
    const chacha20_poly1305_kernel *fused = a->fused;
    /* public pointers: out and in do not overlap */
    const int apart = (uintptr_t)out >= (uintptr_t)in + len
                      || (uintptr_t)in >= (uintptr_t)out + len;
    size_t held = 0;    /* head bytes of ciphertext not yet MACed */

    if ((uint64_t)len > CHACHA_AEAD_MAX_TEXT - a->text_len)
        return CHACHA_AEAD_TOO_LONG;
    a->text_len += len;
    if (a->phase == CHACHA_AEAD_FRESH) {
        /*
         * The head's ciphertext is MACed with the rest of the text in one
         * update when it stays readable (sealing: ours; opening: an input
         * the output does not overwrite), so that the Poly1305 kernel sees
         * the whole length when it chooses its path (AVX2, 1 KiB record:
         * 448 + 576 bytes took the scalar path for the 448).
         */
        int hold = enc || apart;
        size_t n = start_with_text(a, out, in, len, enc, !hold);

        if (hold)
            held = n;
        out += n;
        in += n;
        len -= n;
    }
    if (a->phase == CHACHA_AEAD_AAD) {
        poly1305_pad16(&a->mac);
        a->phase = CHACHA_AEAD_TEXT;
    }
    /*
     * A head held for the MAC is MACed apart before a stitched pass, on its
     * own too short for the vector Poly1305: sealing then stitches only
     * from twice its usual length (AVX2, 2 KiB records: two steps 1458-1474
     * MB/s, stitched 1400-1405).
     */
    if (fused != NULL && len >= fused->min_len[enc != 0] * (enc && held ? 2 : 1)
        && a->mac.num == 0 && a->cs.partial == 0) {
        /* whole blocks in one stitched pass, after the head's MAC */
        size_t n = len & ~(size_t)63;

        poly1305_update(&a->mac, (enc ? out : in) - held, held);
        held = 0;

        fused->xor_mac(out, in, n, a->cs.key, a->cs.counter, &a->mac.st, enc);
        a->cs.counter[0] += (uint32_t)(n / CHACHA_BLOCK_LEN);   /* MAX_TEXT: no wrap */
        chacha20_stream_drop_keystream(&a->cs);     /* a block made ahead */
        out += n;
        in += n;
        len -= n;
    }
    if (enc) {
        chacha20_stream_xor(&a->cs, out, in, len);
        poly1305_update(&a->mac, out - held, held + len);
    } else if (apart) {
        /*
         * Apart (public pointers): the keystream first. Its chain is the
         * long one (one block: ~300 cycles of dependent vector steps), and
         * the MAC's instructions, issued behind it, run beside it; the
         * other order leaves the ChaCha20 chain to start after the MAC's
         * instructions (Zen 4, AVX2, 64-byte Update: 120 -> 117 ns).
         */
        chacha20_stream_xor(&a->cs, out, in, len);
        poly1305_update(&a->mac, in - held, held + len);
    } else {
        poly1305_update(&a->mac, in, len);
        chacha20_stream_xor(&a->cs, out, in, len);
    }
    return CHACHA_AEAD_OK;
}

void chacha_aead_tag(chacha_aead *a, uint8_t tag[CHACHA_AEAD_TAG_LEN])
{
    uint8_t lens[16];

    if (a->phase == CHACHA_AEAD_FRESH)
        start(a);
    poly1305_pad16(&a->mac);
    chacha_store_le64(lens, a->aad_len);
    chacha_store_le64(lens + 8, a->text_len);
    poly1305_update(&a->mac, lens, sizeof(lens));
    poly1305_final(&a->mac, tag);
    chacha20_stream_drop_keystream(&a->cs);   /* nothing kept past the tag */
    a->phase = CHACHA_AEAD_DONE;
}
