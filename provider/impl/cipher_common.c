/* SPDX-License-Identifier: Apache-2.0 */
/* Parameter handling shared by the ChaCha20 and ChaCha20-Poly1305 dispatchers. */
#include <stdint.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/proverr.h>
#include "cipher_common.h"

int chacha_cipher_get_params(OSSL_PARAM params[], size_t ivlen, int aead)
{
    OSSL_PARAM *p;

    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_MODE)) != NULL
        && !OSSL_PARAM_set_uint(p, 0))                  /* stream cipher */
        goto err;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_AEAD)) != NULL
        && !OSSL_PARAM_set_int(p, aead))
        goto err;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_CUSTOM_IV)) != NULL
        && !OSSL_PARAM_set_int(p, 1))
        goto err;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_CTS)) != NULL
        && !OSSL_PARAM_set_int(p, 0))
        goto err;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK)) != NULL
        && !OSSL_PARAM_set_int(p, 0))
        goto err;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_HAS_RAND_KEY)) != NULL
        && !OSSL_PARAM_set_int(p, 0))
        goto err;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_KEYLEN)) != NULL
        && !OSSL_PARAM_set_size_t(p, CHACHA_KEY_LEN))
        goto err;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_BLOCK_SIZE)) != NULL
        && !OSSL_PARAM_set_size_t(p, 1))                /* EVP needs >= 1 */
        goto err;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IVLEN)) != NULL
        && !OSSL_PARAM_set_size_t(p, ivlen))
        goto err;
    return 1;
 err:
    ERR_raise(ERR_LIB_PROV, PROV_R_FAILED_TO_SET_PARAMETER);
    return 0;
}

static const OSSL_PARAM cipher_known_gettable_params[] = {
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_MODE, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_BLOCK_SIZE, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_AEAD, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_CUSTOM_IV, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_CTS, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_HAS_RAND_KEY, NULL),
    OSSL_PARAM_END
};

const OSSL_PARAM *chacha_cipher_gettable_params(void *provctx)
{
    (void)provctx;
    return cipher_known_gettable_params;
}

const OSSL_PARAM *chacha_param_first_of(const OSSL_PARAM *params, const OSSL_PARAM *p)
{
    const OSSL_PARAM *q;

    if (params == NULL)
        return NULL;
    for (; p->key != NULL; p++) {
        /* an earlier entry with the same key? (first bytes, then strcmp) */
        for (q = params; q != p; q++)
            if (q->key == p->key
                || (q->key[0] == p->key[0] && strcmp(q->key, p->key) == 0))
                break;
        if (q == p)
            return p;
    }
    return NULL;
}

int chacha_check_fixed_length(const OSSL_PARAM *p, size_t ivlen)
{
    size_t want, len;
    int reason;

    if (KEY_IS(p, OSSL_CIPHER_PARAM_KEYLEN)) {
        want = CHACHA_KEY_LEN;
        reason = PROV_R_INVALID_KEY_LENGTH;
    } else if (KEY_IS(p, OSSL_CIPHER_PARAM_IVLEN)) {
        want = ivlen;
        reason = PROV_R_INVALID_IV_LENGTH;
    } else {
        return -1;
    }
    if (!OSSL_PARAM_get_size_t(p, &len)) {
        ERR_raise(ERR_LIB_PROV, PROV_R_FAILED_TO_GET_PARAMETER);
        return 0;
    }
    if (len != want) {
        ERR_raise(ERR_LIB_PROV, reason);
        return 0;
    }
    return 1;
}

int chacha_get_fixed_length(OSSL_PARAM *p, size_t ivlen)
{
    size_t value;

    if (KEY_IS(p, OSSL_CIPHER_PARAM_IVLEN))
        value = ivlen;
    else if (KEY_IS(p, OSSL_CIPHER_PARAM_KEYLEN))
        value = CHACHA_KEY_LEN;
    else
        return -1;
    /* OSSL_PARAM_set_size_t()'s own case inline: EVP asks for "ivlen" at every init */
    if (p->data_type == OSSL_PARAM_UNSIGNED_INTEGER && p->data != NULL
        && p->data_size == sizeof(size_t)) {
        memcpy(p->data, &value, sizeof(value));
        p->return_size = sizeof(value);
        return 1;
    }
    if (!OSSL_PARAM_set_size_t(p, value)) {
        ERR_raise(ERR_LIB_PROV, PROV_R_FAILED_TO_SET_PARAMETER);
        return 0;
    }
    return 1;
}

int chacha_check_input_length(size_t inl)
{
    if (inl <= (size_t)PTRDIFF_MAX)
        return 1;
    ERR_raise(ERR_LIB_PROV, PROV_R_INVALID_INPUT_LENGTH);
    return 0;
}

int chacha_set_octets(OSSL_PARAM *p, const void *data, size_t len)
{
    if (p->data_type == OSSL_PARAM_OCTET_PTR) {
        if (OSSL_PARAM_set_octet_ptr(p, data, len))
            return 1;
    } else if (OSSL_PARAM_set_octet_string(p, data, len)) {
        return 1;
    }
    ERR_raise(ERR_LIB_PROV, PROV_R_FAILED_TO_SET_PARAMETER);
    return 0;
}

int chacha_check_iv_tail(const CHACHA_PROV_CTX *pctx, const unsigned char *key,
                         const unsigned char *iv, size_t ivlen)
{
    size_t n = ivlen - 16;

    if (key == NULL || iv == NULL || ivlen <= 16 || n > 32
        || CRYPTO_memcmp(iv + 16, key, n) != 0)
        return 1;
    CHACHA_RAISE(pctx, CHACHA_R_IV_HOLDS_KEY, "IV bytes 16-%zu equal key bytes 0-%zu:"
                 " the caller's IV buffer is EVP_MAX_IV_LENGTH (16) bytes and ran into"
                 " its key (openssl enc cannot use this cipher)", ivlen - 1, n - 1);
    return 0;
}
