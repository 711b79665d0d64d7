/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The EVP half that ChaCha20-Poly1305 and XChaCha20-Poly1305 share, over the
 * AEAD core: message phases (key, IV, AAD before text, nothing after the
 * tag), the tag parameters, and the fail-closed rules of docs/compat.md.
 * Each cipher file keeps its own nonce handling (and ChaCha20-Poly1305 its
 * TLS 1.2 record mode) around it.
 */
#ifndef CHACHA_IMPL_CIPHER_AEAD_COMMON_H
#define CHACHA_IMPL_CIPHER_AEAD_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <openssl/core.h>
#include "cipher_common.h"
#include "aead.h"

#define CHACHA_EVP_TAG_LEN CHACHA_AEAD_TAG_LEN

typedef struct {
    CHACHA_PROV_CTX *pctx;
    chacha_aead aead;          /* the RFC 8439 construction (core/aead.h) */
    uint8_t tag[CHACHA_EVP_TAG_LEN]; /* computed (encrypt) or expected (decrypt) */
    size_t tag_len;            /* 0 until a tag or tag length was set */
    int enc, key_set, iv_set;
} chacha_evp_aead;

/* Bind a new (zeroed) context to the provider's kernels. */
void chacha_evp_aead_setup(chacha_evp_aead *e, CHACHA_PROV_CTX *pctx);

/* Key and nonce set, message not finished; else raises why (returns 0). */
int chacha_evp_aead_ready(chacha_evp_aead *e);

/*
 * The checks every update or EVP_Cipher call passes first: ready, a length
 * a buffer can have, room in out (when out is given).
 */
int chacha_evp_aead_check(chacha_evp_aead *e, const unsigned char *out,
                          size_t outsize, size_t inl);

/* After the check: AAD (out == NULL) or text; inl == 0 is a no-op. */
int chacha_evp_aead_data(chacha_evp_aead *e, unsigned char *out, size_t *outl,
                         const unsigned char *in, size_t inl);

/* Encrypt or decrypt text, MACing the ciphertext. */
int chacha_evp_aead_text(chacha_evp_aead *e, unsigned char *out,
                         const unsigned char *in, size_t len);

/*
 * EVP_Cipher(ctx, out, in, 0) with in != NULL: a no-op (openssl#32752),
 * except empty AAD (out NULL) after the text, refused as AAD after the text
 * is: the default provider pads the AAD a second time when it finishes, a
 * tag of neither message (fuzz campaign run 5, fuzz/regressions/campaign5-*).
 */
int chacha_evp_aead_empty_cipher(chacha_evp_aead *e, unsigned char *out,
                                 size_t *outl, const unsigned char *in);

/*
 * Close the message: keep the tag when sealing, compare it when opening (a
 * mismatch returns 0 with nothing queued, as OpenSSL; no tag set fails
 * closed).
 */
int chacha_evp_aead_final(chacha_evp_aead *e);

/*
 * One context parameter of the shared set: keylen, ivlen, tag, taglen, iv
 * and updated-iv (gets; iv is the nonce as given), keylen, ivlen and tag
 * (sets). 1 done, 0 error raised, -1 another key.
 */
int chacha_evp_aead_get_param(chacha_evp_aead *e, OSSL_PARAM *p, size_t ivlen,
                              const uint8_t *iv);
int chacha_evp_aead_set_param(chacha_evp_aead *e, const OSSL_PARAM *p,
                              size_t ivlen);

#endif
