/* SPDX-License-Identifier: Apache-2.0 */
/* Parameter handling shared by the ChaCha20 and ChaCha20-Poly1305 dispatchers. */
#ifndef CHACHA_PROV_CIPHER_COMMON_H
#define CHACHA_PROV_CIPHER_COMMON_H

#include <string.h>
#include <openssl/core.h>
#include <openssl/params.h>
#include "../prov.h"

#define CHACHA_KEY_LEN 32

/* Algorithm parameters, as OpenSSL's default provider reports them. */
int chacha_cipher_get_params(OSSL_PARAM params[], size_t ivlen, int aead);
const OSSL_PARAM *chacha_cipher_gettable_params(void *provctx);

/*
 * Context parameters are handled in one pass over the request (libssl and
 * EVP ask for one key at a time, per record). KEY_IS compares the first
 * character before calling strcmp.
 */
#define KEY_IS(p, name) ((p)->key[0] == (name)[0] && strcmp((p)->key, (name)) == 0)

/*
 * p is a "keylen" or "ivlen" set request: the sizes are fixed, so anything
 * else is INVALID_KEY_LENGTH / INVALID_IV_LENGTH, a non-integer
 * FAILED_TO_GET_PARAMETER. Returns 1 (accepted), 0 (error raised) or -1 (p
 * is some other key).
 */
int chacha_check_fixed_length(const OSSL_PARAM *p, size_t ivlen);

/* Answers a "keylen" or "ivlen" get request; same returns. */
int chacha_get_fixed_length(OSSL_PARAM *p, size_t ivlen);

/* Set an octet string or octet pointer parameter (both forms are asked for). */
int chacha_set_octets(OSSL_PARAM *p, const void *data, size_t len);

#endif
