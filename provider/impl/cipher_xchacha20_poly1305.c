/* SPDX-License-Identifier: Apache-2.0 */
/*
 * "XChaCha20-Poly1305" cipher dispatch (draft-irtf-cfrg-xchacha-03): the
 * ChaCha20-Poly1305 of RFC 8439 under the HChaCha20 subkey of the key and
 * the first 16 nonce bytes, with nonce 0^4 || the last 8. A 24-byte nonce
 * (only), random per message; otherwise the parameters, phases, errors and
 * fail-closed rules of our ChaCha20-Poly1305 (cipher_aead_common.c). No TLS
 * record mode: "tlsaad" and "tlsivfixed" are refused.
 */
#include <string.h>
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/proverr.h>
#include "cipher_aead_common.h"
#include "util.h"
#include "xchacha.h"

#define XAEAD_IV_LEN CHACHA_XNONCE_LEN

typedef struct {
    chacha_evp_aead e;         /* phases, tag; its core keyed with the subkey */
    uint32_t key[8];           /* the key, for the subkey of the next nonce */
    uint8_t nonce[XAEAD_IV_LEN];
} XAEAD_CTX;

static OSSL_FUNC_cipher_newctx_fn xaead_newctx;
static OSSL_FUNC_cipher_update_fn xaead_update;
static OSSL_FUNC_cipher_final_fn xaead_final;
static OSSL_FUNC_cipher_cipher_fn xaead_cipher;
static OSSL_FUNC_cipher_get_ctx_params_fn xaead_get_ctx_params;
static OSSL_FUNC_cipher_set_ctx_params_fn xaead_set_ctx_params;

static void *xaead_newctx(void *provctx)
{
    CHACHA_PROV_CTX *pctx = provctx;
    XAEAD_CTX *ctx = chacha_ctx_zalloc(sizeof(*ctx));

    if (ctx == NULL)
        return NULL;
    chacha_evp_aead_setup(&ctx->e, pctx);
    chacha_trace_newctx(pctx, "XChaCha20-Poly1305");
    return ctx;
}

static int xaead_init(XAEAD_CTX *ctx, const unsigned char *key, size_t keylen,
                      const unsigned char *iv, size_t ivlen,
                      const OSSL_PARAM params[], int enc)
{
    int i;

    ctx->e.enc = enc;
    /* both lengths first: a refused init changes nothing */
    if (iv != NULL && ivlen != XAEAD_IV_LEN) {
        ERR_raise(ERR_LIB_PROV, PROV_R_INVALID_IV_LENGTH);
        return 0;
    }
    if (key != NULL && keylen != CHACHA_KEY_LEN) {
        ERR_raise(ERR_LIB_PROV, PROV_R_INVALID_KEY_LENGTH);
        return 0;
    }
    if (!chacha_check_iv_tail(ctx->e.pctx, key, iv, XAEAD_IV_LEN))
        return 0;
    if (iv != NULL) {
        memcpy(ctx->nonce, iv, XAEAD_IV_LEN);
        ctx->e.iv_set = 1;
    }
    if (key != NULL) {
        for (i = 0; i < 8; i++)
            ctx->key[i] = chacha_load_le32(key + 4 * i);
        ctx->e.key_set = 1;
    }
    if (key != NULL || iv != NULL) {
        /* one HChaCha20 per message, over the old subkey */
        if (ctx->e.key_set && ctx->e.iv_set)
            chacha_xaead_set_key_nonce(&ctx->e.aead, ctx->key, ctx->nonce);
        chacha_aead_reset(&ctx->e.aead);
    }
    /* the tag (or its length) survives re-inits, as for ChaCha20-Poly1305 */
    return xaead_set_ctx_params(ctx, params);
}

static int xaead_update(void *vctx, unsigned char *out, size_t *outl,
                        size_t outsize, const unsigned char *in, size_t inl)
{
    XAEAD_CTX *ctx = vctx;

    if (inl == 0) {
        *outl = 0;
        return 1;
    }
    return chacha_evp_aead_check(&ctx->e, out, outsize, inl)
           && chacha_evp_aead_data(&ctx->e, out, outl, in, inl);
}

static int xaead_final(void *vctx, unsigned char *out, size_t *outl,
                       size_t outsize)
{
    XAEAD_CTX *ctx = vctx;

    (void)out;
    (void)outsize;
    *outl = 0;
    return chacha_evp_aead_final(&ctx->e);
}

/* EVP_Cipher(): a NULL input finalises (checking the tag), as ChaCha20-Poly1305. */
static int xaead_cipher(void *vctx, unsigned char *out, size_t *outl,
                        size_t outsize, const unsigned char *in, size_t inl)
{
    if (in == NULL)
        return xaead_final(vctx, out, outl, outsize);
    if (inl == 0)
        return chacha_evp_aead_empty_cipher(&((XAEAD_CTX *)vctx)->e, out, outl, in);
    return xaead_update(vctx, out, outl, outsize, in, inl);
}

static int xaead_get_ctx_params(void *vctx, OSSL_PARAM params[])
{
    XAEAD_CTX *ctx = vctx;
    OSSL_PARAM *p;
    int r, ok = 1;

    for (p = PARAM_FIRST(params); ok && p != NULL; p = PARAM_NEXT(params, p))
        if ((r = chacha_evp_aead_get_param(&ctx->e, p, XAEAD_IV_LEN, ctx->nonce)) >= 0)
            ok = r;
    return ok;
}

static int xaead_set_ctx_params(void *vctx, const OSSL_PARAM params[])
{
    XAEAD_CTX *ctx = vctx;
    const OSSL_PARAM *p;
    int r, ok = 1;

    /* unknown keys are ignored, as ChaCha20-Poly1305; TLS is not unknown */
    for (p = PARAM_FIRST(params); ok && p != NULL; p = PARAM_NEXT(params, p)) {
        if ((r = chacha_evp_aead_set_param(&ctx->e, p, XAEAD_IV_LEN)) >= 0) {
            ok = r;
        } else if (KEY_IS(p, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD)
                   || KEY_IS(p, OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED)) {
            ERR_raise_data(ERR_LIB_PROV, PROV_R_NOT_SUPPORTED,
                           "XChaCha20-Poly1305 has no TLS record mode (%s)", p->key);
            ok = 0;
        }
    }
    return ok;
}

static const OSSL_PARAM xaead_known_gettable_ctx_params[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TAGLEN, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, NULL, 0),
    OSSL_PARAM_END
};

static const OSSL_PARAM xaead_known_settable_ctx_params[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, 0),
    OSSL_PARAM_END
};

_Static_assert(offsetof(XAEAD_CTX, e.pctx) == 0, "CHACHA_CTX_PCTX");
CHACHA_CIPHER_DISPATCH(xaead, chacha_xchacha20_poly1305_functions, XAEAD_CTX,
                       XAEAD_IV_LEN, 1);
