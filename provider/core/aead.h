/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ChaCha20-Poly1305 construction of RFC 8439 2.8 over the kernels: the
 * one-time key from block 0, AAD and text MACed with their padding, the
 * lengths block, the per-nonce text limit, and the fused kernel for bulk
 * text. No OpenSSL types: the dispatch layers (ChaCha20-Poly1305, later
 * XChaCha20-Poly1305) drive it and turn its statuses into errors.
 */
#ifndef CHACHA_CORE_AEAD_H
#define CHACHA_CORE_AEAD_H

#include <stddef.h>
#include <stdint.h>
#include "kernel.h"
#include "chacha20_stream.h"
#include "poly1305_stream.h"

#define CHACHA_AEAD_TAG_LEN 16
#define CHACHA_AEAD_AAD_BUF 64
/* the 32-bit block counter starts at 1: at most 2^32 - 1 blocks of text */
#define CHACHA_AEAD_MAX_TEXT ((((uint64_t)1 << 32) - 1) * 64)

enum chacha_aead_phase {
    CHACHA_AEAD_FRESH,  /* nonce set, one-time key not derived yet (short
                           AAD waits in aad_buf) */
    CHACHA_AEAD_AAD,    /* MAC running, AAD accepted */
    CHACHA_AEAD_TEXT,   /* AAD closed, text flowing */
    CHACHA_AEAD_DONE    /* tag computed or message abandoned: a new nonce
                           (reset) is needed */
};

enum chacha_aead_status {
    CHACHA_AEAD_OK,
    CHACHA_AEAD_AAD_AFTER_TEXT,
    CHACHA_AEAD_TOO_LONG       /* more than CHACHA_AEAD_MAX_TEXT per nonce */
};

typedef struct {
    chacha20_stream cs;        /* key, and counter || nonce during a message */
    poly1305_ctx mac;
    const poly1305_kernel *poly;
    const chacha20_poly1305_kernel *fused;   /* NULL: always two steps */
    uint32_t nonce[3];
    uint64_t aad_len, text_len;
    uint8_t aad_buf[CHACHA_AEAD_AAD_BUF];
    size_t aad_buf_len;
    enum chacha_aead_phase phase;
} chacha_aead;

/* Bind the kernels (the context is zeroed memory or a previous use). */
void chacha_aead_setup(chacha_aead *a, const chacha20_kernel *chacha,
                       const poly1305_kernel *poly,
                       const chacha20_poly1305_kernel *fused);
/* The short-path rule for its ChaCha20 calls (chacha20_stream_set_kernel). */
void chacha_aead_set_short_rule(chacha_aead *a, unsigned int scalar_blocks,
                                int hybrid);
void chacha_aead_set_key(chacha_aead *a, const uint8_t key[32]);
/*
 * Nonce words (little-endian loads of the 12 nonce bytes); starts a new
 * message (chacha_aead_reset).
 */
void chacha_aead_set_nonce(chacha_aead *a, const uint32_t nonce[3]);
/* Forget the message in progress (wiping a running MAC): FRESH again. */
void chacha_aead_reset(chacha_aead *a);
/* Abandon the message: as reset, but DONE until the next reset. */
void chacha_aead_abort(chacha_aead *a);

enum chacha_aead_status chacha_aead_aad(chacha_aead *a, const uint8_t *in,
                                        size_t len);
/*
 * Encrypt (enc = 1) or decrypt len bytes, MACing the ciphertext (in place
 * allowed). Nothing is written when it fails.
 */
enum chacha_aead_status chacha_aead_text(chacha_aead *a, uint8_t *out,
                                         const uint8_t *in, size_t len,
                                         int enc);
/* Close the message: pad, lengths, tag. The phase becomes DONE. */
void chacha_aead_tag(chacha_aead *a, uint8_t tag[CHACHA_AEAD_TAG_LEN]);

#endif
