/* SPDX-License-Identifier: Apache-2.0 */
/* Parameter handling shared by the ChaCha20 and ChaCha20-Poly1305 dispatchers. */
#ifndef CHACHA_PROV_CIPHER_COMMON_H
#define CHACHA_PROV_CIPHER_COMMON_H

#include <openssl/core.h>
#include <openssl/params.h>
#include "../prov.h"

#define CHACHA_KEY_LEN 32

/* Algorithm parameters, as OpenSSL's default provider reports them. */
int chacha_cipher_get_params(OSSL_PARAM params[], size_t ivlen, int aead);
const OSSL_PARAM *chacha_cipher_gettable_params(void *provctx);

/*
 * "keylen" and "ivlen" set requests: the sizes are fixed, so anything else is
 * INVALID_KEY_LENGTH / INVALID_IV_LENGTH, a non-integer FAILED_TO_GET_PARAMETER.
 */
int chacha_check_fixed_lengths(const OSSL_PARAM params[], size_t ivlen);

/* Write the key and IV lengths into a get request. */
int chacha_get_fixed_lengths(OSSL_PARAM params[], size_t ivlen);

/* Set an octet string or octet pointer parameter (both forms are asked for). */
int chacha_set_octets(OSSL_PARAM *p, const void *data, size_t len);

#endif
