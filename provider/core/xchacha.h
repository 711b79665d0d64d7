/* SPDX-License-Identifier: Apache-2.0 */
/*
 * XChaCha20 (draft-irtf-cfrg-xchacha-03): a 24-byte nonce on the ChaCha20
 * kernels. HChaCha20 of the key and nonce bytes 0-15 gives a subkey; the
 * subkey runs ChaCha20 with the nonce 0^4 || nonce bytes 16-23. No OpenSSL
 * types: the dispatch files (XChaCha20, XChaCha20-Poly1305) drive it.
 */
#ifndef CHACHA_CORE_XCHACHA_H
#define CHACHA_CORE_XCHACHA_H

#include <stdint.h>
#include "kernel.h"
#include "chacha20_stream.h"
#include "aead.h"

#define CHACHA_XNONCE_LEN 24

/*
 * subkey = HChaCha20(key, nonce16) on the kernel's HChaCha20 (the portable
 * one when the kernel has none). subkey may be the destination context's
 * key words: nothing else is written.
 */
void chacha_hchacha20(const chacha20_kernel *k, uint32_t subkey[8],
                      const uint32_t key[8], const uint8_t nonce16[16]);

/*
 * XChaCha20-Poly1305: key the AEAD core with the subkey of (key, nonce) and
 * set its RFC 8439 nonce; the caller then resets the message. The previous
 * subkey is overwritten in place.
 */
void chacha_xaead_set_key_nonce(chacha_aead *a, const uint32_t key[8],
                                const uint8_t nonce[CHACHA_XNONCE_LEN]);

/*
 * XChaCha20 stream: start at block `counter` (64 bits: the block counter
 * carries into the word after it, as libsodium's
 * crypto_stream_xchacha20_xor_ic, which below 2^32 blocks is the draft's
 * 32-bit counter with 4 zero bytes).
 */
void chacha_xchacha20_start(chacha20_stream *cs, const uint32_t key[8],
                            const uint8_t nonce[CHACHA_XNONCE_LEN],
                            uint64_t counter);

/* A new key at the current position of the stream (same nonce). */
void chacha_xchacha20_rekey(chacha20_stream *cs, const uint32_t key[8],
                            const uint8_t nonce[CHACHA_XNONCE_LEN]);

#endif
