/* SPDX-License-Identifier: Apache-2.0 */
/* The EVP phases and tag parameters of the RFC 8439 AEADs (see the header). */
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/params.h>
#include <openssl/proverr.h>
#include "util.h"
#include "cipher_aead_common.h"

void chacha_evp_aead_setup(chacha_evp_aead *e, CHACHA_PROV_CTX *pctx)
{
    e->pctx = pctx;
    chacha_aead_setup(&e->aead, pctx->chacha, pctx->poly, pctx->fused);
    chacha_aead_set_short_rule(&e->aead, pctx->scalar_blocks, pctx->hybrid);
}

int chacha_evp_aead_ready(chacha_evp_aead *e)
{
    if (!e->key_set) {
        ERR_raise(ERR_LIB_PROV, PROV_R_NO_KEY_SET);
        return 0;
    }
    if (!e->iv_set) {
        CHACHA_RAISE(e->pctx, CHACHA_R_IV_NOT_SET, NULL);
        return 0;
    }
    if (e->aead.phase == CHACHA_AEAD_DONE) {
        CHACHA_RAISE(e->pctx, CHACHA_R_ALREADY_FINALISED, NULL);
        return 0;
    }
    return 1;
}

int chacha_evp_aead_check(chacha_evp_aead *e, const unsigned char *out,
                          size_t outsize, size_t inl)
{
    if (!chacha_evp_aead_ready(e) || !chacha_check_input_length(inl))
        return 0;
    if (outsize < inl && out != NULL) {
        ERR_raise(ERR_LIB_PROV, PROV_R_OUTPUT_BUFFER_TOO_SMALL);
        return 0;
    }
    return 1;
}

int chacha_evp_aead_text(chacha_evp_aead *e, unsigned char *out,
                         const unsigned char *in, size_t len)
{
    if (chacha_aead_text(&e->aead, out, in, len, e->enc) != CHACHA_AEAD_OK) {
        CHACHA_RAISE(e->pctx, CHACHA_R_NONCE_EXHAUSTED, NULL);
        return 0;
    }
    return 1;
}

int chacha_evp_aead_data(chacha_evp_aead *e, unsigned char *out, size_t *outl,
                         const unsigned char *in, size_t inl)
{
    if (inl == 0) {
        *outl = 0;
        return 1;
    }
    if (in == NULL) {
        ERR_raise(ERR_LIB_PROV, PROV_R_CIPHER_OPERATION_FAILED);
        return 0;
    }
    if (out == NULL) {
        if (chacha_aead_aad(&e->aead, in, inl) != CHACHA_AEAD_OK) {
            ERR_raise_data(ERR_LIB_PROV, PROV_R_INVALID_AAD,
                           "aad must come before the text");
            return 0;
        }
    } else if (!chacha_evp_aead_text(e, out, in, inl)) {
        return 0;
    }
    *outl = inl;               /* AAD reports its length too, as OpenSSL */
    return 1;
}

int chacha_evp_aead_empty_cipher(chacha_evp_aead *e, unsigned char *out,
                                 size_t *outl, const unsigned char *in)
{
    *outl = 0;
    if (in != NULL && out == NULL && e->aead.phase == CHACHA_AEAD_TEXT) {
        ERR_raise_data(ERR_LIB_PROV, PROV_R_INVALID_AAD,
                       "aad must come before the text");
        return 0;
    }
    return 1;
}

int chacha_evp_aead_final(chacha_evp_aead *e)
{
    uint8_t tag[CHACHA_EVP_TAG_LEN];
    int ok = 1;

    if (!chacha_evp_aead_ready(e))
        return 0;
    if (!e->enc && e->tag_len == 0) {
        /* the default provider accepts this and authenticates nothing */
        chacha_aead_abort(&e->aead);
        ERR_raise(ERR_LIB_PROV, PROV_R_TAG_NOT_SET);
        return 0;
    }
    chacha_aead_tag(&e->aead, tag);
    if (e->enc)
        memcpy(e->tag, tag, CHACHA_EVP_TAG_LEN);
    else
        ok = CRYPTO_memcmp(tag, e->tag, e->tag_len) == 0;
    chacha_wipe(tag, sizeof(tag));
    return ok;                 /* a mismatch raises nothing, as OpenSSL */
}

static int get_tag(chacha_evp_aead *e, OSSL_PARAM *p)
{
    if (!e->enc) {
        ERR_raise(ERR_LIB_PROV, PROV_R_TAG_NOT_SET);
        return 0;
    }
    if (p->data_size == 0 || p->data_size > CHACHA_EVP_TAG_LEN) {
        ERR_raise(ERR_LIB_PROV, PROV_R_INVALID_TAG_LENGTH);
        return 0;
    }
    if (p->data_type != OSSL_PARAM_OCTET_STRING) {
        ERR_raise(ERR_LIB_PROV, PROV_R_FAILED_TO_SET_PARAMETER);
        return 0;
    }
    /* no buffer: a size query, as OSSL_PARAM_set_octet_string() answers one
       (the default provider's memcpy to NULL crashes there) */
    if (p->data != NULL)
        memcpy(p->data, e->tag, p->data_size);
    p->return_size = p->data_size;
    return 1;
}

static int set_tag(chacha_evp_aead *e, const OSSL_PARAM *p)
{
    if (p->data_type != OSSL_PARAM_OCTET_STRING) {
        ERR_raise(ERR_LIB_PROV, PROV_R_FAILED_TO_GET_PARAMETER);
        return 0;
    }
    if (p->data_size == 0 || p->data_size > CHACHA_EVP_TAG_LEN) {
        ERR_raise(ERR_LIB_PROV, PROV_R_INVALID_TAG_LENGTH);
        return 0;
    }
    if (p->data != NULL) {
        if (e->enc) {
            ERR_raise(ERR_LIB_PROV, PROV_R_TAG_NOT_NEEDED);
            return 0;
        }
        memcpy(e->tag, p->data, p->data_size);
    }
    e->tag_len = p->data_size;         /* SET_TAG(n, NULL) sets the length only */
    return 1;
}

int chacha_evp_aead_get_param(chacha_evp_aead *e, OSSL_PARAM *p, size_t ivlen,
                              const uint8_t *iv)
{
    int r;

    if ((r = chacha_get_fixed_length(p, ivlen)) >= 0)
        return r;
    if (KEY_IS(p, OSSL_CIPHER_PARAM_AEAD_TAG))
        return get_tag(e, p);
    if (KEY_IS(p, OSSL_CIPHER_PARAM_AEAD_TAGLEN)) {
        if (OSSL_PARAM_set_size_t(p, e->tag_len))
            return 1;
        ERR_raise(ERR_LIB_PROV, PROV_R_FAILED_TO_SET_PARAMETER);
        return 0;
    }
    if (KEY_IS(p, OSSL_CIPHER_PARAM_IV) || KEY_IS(p, OSSL_CIPHER_PARAM_UPDATED_IV))
        return chacha_set_octets(p, iv, ivlen);
    return -1;
}

int chacha_evp_aead_set_param(chacha_evp_aead *e, const OSSL_PARAM *p,
                              size_t ivlen)
{
    int r;

    if ((r = chacha_check_fixed_length(p, ivlen)) >= 0)
        return r;
    if (KEY_IS(p, OSSL_CIPHER_PARAM_AEAD_TAG))
        return set_tag(e, p);
    return -1;
}
