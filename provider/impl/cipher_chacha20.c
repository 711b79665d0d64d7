/* SPDX-License-Identifier: Apache-2.0 */
/*
 * "ChaCha20" cipher dispatch: OpenSSL's 16-byte IV (LE32 block counter, then
 * the 12-byte nonce; a 32-bit counter wrap carries into IV bytes 4-7), stream
 * semantics with any update chunking, key and IV settable in separate inits.
 */
#include <string.h>
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/proverr.h>
#include "cipher_common.h"

#define CHACHA20_IV_LEN 16

typedef struct {
    CHACHA_PROV_CTX *pctx;
    chacha20_stream cs;
    uint8_t oiv[CHACHA20_IV_LEN];      /* IV as given, for "iv" */
    uint8_t updated_iv[CHACHA20_IV_LEN]; /* buffer behind an octet_ptr get */
    int enc;
    int key_set;
} CHACHA20_CTX;

static OSSL_FUNC_cipher_newctx_fn chacha20_newctx;
static OSSL_FUNC_cipher_update_fn chacha20_update;
static OSSL_FUNC_cipher_final_fn chacha20_final;
static OSSL_FUNC_cipher_cipher_fn chacha20_cipher;
static OSSL_FUNC_cipher_get_ctx_params_fn chacha20_get_ctx_params;
static OSSL_FUNC_cipher_set_ctx_params_fn chacha20_set_ctx_params;

static void *chacha20_newctx(void *provctx)
{
    CHACHA_PROV_CTX *pctx = provctx;
    CHACHA20_CTX *ctx = chacha_ctx_zalloc(sizeof(*ctx));

    if (ctx == NULL)
        return NULL;
    ctx->pctx = pctx;
    chacha20_stream_set_kernel(&ctx->cs, pctx->chacha, pctx->scalar_blocks,
                               pctx->hybrid);
    chacha_trace_newctx(pctx, "ChaCha20");
    return ctx;
}

static int chacha20_init(CHACHA20_CTX *ctx, const unsigned char *key,
                         size_t keylen, const unsigned char *iv, size_t ivlen,
                         const OSSL_PARAM params[], int enc)
{
    ctx->enc = enc;
    /* OpenSSL order: the IV is checked and loaded before the key */
    if (iv != NULL) {
        if (ivlen != CHACHA20_IV_LEN) {
            ERR_raise(ERR_LIB_PROV, PROV_R_INVALID_IV_LENGTH);
            return 0;
        }
        memcpy(ctx->oiv, iv, CHACHA20_IV_LEN);
    }
    if (key != NULL) {
        if (keylen != CHACHA_KEY_LEN) {
            ERR_raise(ERR_LIB_PROV, PROV_R_INVALID_KEY_LENGTH);
            return 0;
        }
        chacha20_stream_set_key(&ctx->cs, key);
        ctx->key_set = 1;
    }
    if (iv != NULL)
        chacha20_stream_set_iv(&ctx->cs, iv);
    return chacha20_set_ctx_params(ctx, params);
}

static int chacha20_update(void *vctx, unsigned char *out, size_t *outl,
                           size_t outsize, const unsigned char *in, size_t inl)
{
    CHACHA20_CTX *ctx = vctx;

    if (!ctx->key_set) {
        ERR_raise(ERR_LIB_PROV, PROV_R_NO_KEY_SET);
        return 0;
    }
    return chacha_stream_update(&ctx->cs, out, outl, outsize, in, inl);
}

static int chacha20_final(void *vctx, unsigned char *out, size_t *outl,
                          size_t outsize)
{
    CHACHA20_CTX *ctx = vctx;

    (void)out;
    (void)outsize;
    if (!ctx->key_set) {
        ERR_raise(ERR_LIB_PROV, PROV_R_NO_KEY_SET);
        return 0;
    }
    *outl = 0;
    return 1;
}

/* EVP_Cipher(): a NULL input is the (empty) finalisation of a stream cipher. */
static int chacha20_cipher(void *vctx, unsigned char *out, size_t *outl,
                           size_t outsize, const unsigned char *in, size_t inl)
{
    if (in == NULL)
        return chacha20_final(vctx, out, outl, outsize);
    return chacha20_update(vctx, out, outl, outsize, in, inl);
}

static int chacha20_get_ctx_params(void *vctx, OSSL_PARAM params[])
{
    CHACHA20_CTX *ctx = vctx;
    OSSL_PARAM *p;
    int r;

    for (p = PARAM_FIRST(params); p != NULL; p = PARAM_NEXT(params, p)) {
        if ((r = chacha_get_fixed_length(p, CHACHA20_IV_LEN)) >= 0) {
            if (r == 0)
                return 0;
        } else if (KEY_IS(p, OSSL_CIPHER_PARAM_IV)) {
            if (!chacha_set_octets(p, ctx->oiv, CHACHA20_IV_LEN))
                return 0;
        } else if (KEY_IS(p, OSSL_CIPHER_PARAM_UPDATED_IV)) {
            /* the live counter state, advanced by ceil(bytes / 64) blocks */
            chacha20_stream_get_iv(&ctx->cs, ctx->updated_iv);
            if (!chacha_set_octets(p, ctx->updated_iv, CHACHA20_IV_LEN))
                return 0;
        }
    }
    return 1;
}

static int chacha20_set_ctx_params(void *vctx, const OSSL_PARAM params[])
{
    const OSSL_PARAM *p;

    (void)vctx;
    /* unknown keys (tls-version, padding, ...) are accepted, as OpenSSL does */
    for (p = PARAM_FIRST(params); p != NULL; p = PARAM_NEXT(params, p))
        if (chacha_check_fixed_length(p, CHACHA20_IV_LEN) == 0)
            return 0;
    return 1;
}

static const OSSL_PARAM chacha20_known_gettable_ctx_params[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, NULL, 0),
    OSSL_PARAM_END
};

static const OSSL_PARAM chacha20_known_settable_ctx_params[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_END
};

_Static_assert(offsetof(CHACHA20_CTX, pctx) == 0, "CHACHA_CTX_PCTX");
CHACHA_CIPHER_DISPATCH(chacha20, chacha_chacha20_functions, CHACHA20_CTX, CHACHA20_IV_LEN, 0);
