/* SPDX-License-Identifier: Apache-2.0 */
/*
 * "POLY1305" EVP_MAC with the parameters of OpenSSL's default provider
 * ("key", 32 bytes; "size", 16), on this provider's Poly1305 kernel. A key
 * is one-time: after data was absorbed, a new init must bring a new key.
 */
#include <string.h>
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/params.h>
#include <openssl/proverr.h>
#include "prov_ctx.h"
#include "poly1305_stream.h"

#define POLY1305_KEY_LEN 32
#define POLY1305_TAG_LEN 16

typedef struct {
    CHACHA_PROV_CTX *pctx;
    poly1305_ctx mac;
    int key_set;
    int updated;               /* data absorbed (or finalised) since the key */
} MAC_CTX;

static OSSL_FUNC_mac_newctx_fn mac_newctx;
static OSSL_FUNC_mac_dupctx_fn mac_dupctx;
static OSSL_FUNC_mac_freectx_fn mac_freectx;
static OSSL_FUNC_mac_init_fn mac_init;
static OSSL_FUNC_mac_update_fn mac_update;
static OSSL_FUNC_mac_final_fn mac_final;
static OSSL_FUNC_mac_gettable_params_fn mac_gettable_params;
static OSSL_FUNC_mac_get_params_fn mac_get_params;
static OSSL_FUNC_mac_gettable_ctx_params_fn mac_gettable_ctx_params;
static OSSL_FUNC_mac_get_ctx_params_fn mac_get_ctx_params;
static OSSL_FUNC_mac_settable_ctx_params_fn mac_settable_ctx_params;
static OSSL_FUNC_mac_set_ctx_params_fn mac_set_ctx_params;

static void *mac_newctx(void *provctx)
{
    MAC_CTX *ctx;

    if (!chacha_prov_running(provctx))
        return NULL;
    ctx = chacha_ctx_zalloc(sizeof(*ctx));
    if (ctx != NULL)
        ctx->pctx = provctx;
    return ctx;
}

static void *mac_dupctx(void *vctx)
{
    if (!chacha_prov_running(((MAC_CTX *)vctx)->pctx))
        return NULL;
    return chacha_ctx_memdup(vctx, sizeof(MAC_CTX));
}

static void mac_freectx(void *vctx)
{
    OPENSSL_clear_free(vctx, sizeof(MAC_CTX));
}

static int mac_setkey(MAC_CTX *ctx, const unsigned char *key, size_t keylen)
{
    if (keylen != POLY1305_KEY_LEN || key == NULL) {
        ERR_raise(ERR_LIB_PROV, PROV_R_INVALID_KEY_LENGTH);
        return 0;
    }
    poly1305_init(&ctx->mac, ctx->pctx->poly, key);
    ctx->key_set = 1;
    ctx->updated = 0;
    return 1;
}

static int mac_init(void *vctx, const unsigned char *key, size_t keylen,
                    const OSSL_PARAM params[])
{
    MAC_CTX *ctx = vctx;

    if (!chacha_prov_running(ctx->pctx) || !mac_set_ctx_params(ctx, params))
        return 0;
    if (key != NULL)
        return mac_setkey(ctx, key, keylen);
    /* reusing a one-time key for a second message is refused, as OpenSSL */
    if (!ctx->key_set || ctx->updated) {
        ERR_raise(ERR_LIB_PROV, PROV_R_NO_KEY_SET);
        return 0;
    }
    return 1;
}

/* Running and keyed, as update and final need; else the reason, and 0. */
static int mac_keyed(const MAC_CTX *ctx)
{
    if (!chacha_prov_running(ctx->pctx))
        return 0;
    if (!ctx->key_set) {
        ERR_raise(ERR_LIB_PROV, PROV_R_NO_KEY_SET);
        return 0;
    }
    return 1;
}

static int mac_update(void *vctx, const unsigned char *data, size_t len)
{
    MAC_CTX *ctx = vctx;

    if (!mac_keyed(ctx))
        return 0;
    ctx->updated = 1;
    if (len != 0)
        poly1305_update(&ctx->mac, data, len);
    return 1;
}

static int mac_final(void *vctx, unsigned char *out, size_t *outl,
                     size_t outsize)
{
    MAC_CTX *ctx = vctx;

    if (!mac_keyed(ctx))
        return 0;
    if (outsize < POLY1305_TAG_LEN) {
        ERR_raise(ERR_LIB_PROV, PROV_R_OUTPUT_BUFFER_TOO_SMALL);
        return 0;
    }
    poly1305_final(&ctx->mac, out);      /* also wipes the state and key */
    ctx->key_set = 0;
    ctx->updated = 1;
    *outl = POLY1305_TAG_LEN;
    return 1;
}

static const OSSL_PARAM mac_known_gettable_params[] = {
    OSSL_PARAM_size_t(OSSL_MAC_PARAM_SIZE, NULL),
    OSSL_PARAM_END
};

static const OSSL_PARAM *mac_gettable_params(void *provctx)
{
    (void)provctx;
    return mac_known_gettable_params;
}

static int mac_get_params(OSSL_PARAM params[])
{
    OSSL_PARAM *p = OSSL_PARAM_locate(params, OSSL_MAC_PARAM_SIZE);

    return p == NULL || OSSL_PARAM_set_size_t(p, POLY1305_TAG_LEN);
}

static const OSSL_PARAM *mac_gettable_ctx_params(void *vctx, void *provctx)
{
    (void)vctx;
    (void)provctx;
    return mac_known_gettable_params;
}

static int mac_get_ctx_params(void *vctx, OSSL_PARAM params[])
{
    (void)vctx;
    return mac_get_params(params);
}

static const OSSL_PARAM mac_known_settable_ctx_params[] = {
    OSSL_PARAM_octet_string(OSSL_MAC_PARAM_KEY, NULL, 0),
    OSSL_PARAM_END
};

static const OSSL_PARAM *mac_settable_ctx_params(void *vctx, void *provctx)
{
    (void)vctx;
    (void)provctx;
    return mac_known_settable_ctx_params;
}

static int mac_set_ctx_params(void *vctx, const OSSL_PARAM params[])
{
    const OSSL_PARAM *p;

    if (params == NULL)
        return 1;
    p = OSSL_PARAM_locate_const(params, OSSL_MAC_PARAM_KEY);
    if (p == NULL)
        return 1;
    if (p->data_type != OSSL_PARAM_OCTET_STRING) {
        ERR_raise(ERR_LIB_PROV, PROV_R_FAILED_TO_GET_PARAMETER);
        return 0;
    }
    return mac_setkey(vctx, p->data, p->data_size);
}

const OSSL_DISPATCH chacha_poly1305_mac_functions[] = {
    { OSSL_FUNC_MAC_NEWCTX, (void (*)(void))mac_newctx },
    { OSSL_FUNC_MAC_DUPCTX, (void (*)(void))mac_dupctx },
    { OSSL_FUNC_MAC_FREECTX, (void (*)(void))mac_freectx },
    { OSSL_FUNC_MAC_INIT, (void (*)(void))mac_init },
    { OSSL_FUNC_MAC_UPDATE, (void (*)(void))mac_update },
    { OSSL_FUNC_MAC_FINAL, (void (*)(void))mac_final },
    { OSSL_FUNC_MAC_GETTABLE_PARAMS, (void (*)(void))mac_gettable_params },
    { OSSL_FUNC_MAC_GET_PARAMS, (void (*)(void))mac_get_params },
    { OSSL_FUNC_MAC_GETTABLE_CTX_PARAMS, (void (*)(void))mac_gettable_ctx_params },
    { OSSL_FUNC_MAC_GET_CTX_PARAMS, (void (*)(void))mac_get_ctx_params },
    { OSSL_FUNC_MAC_SETTABLE_CTX_PARAMS, (void (*)(void))mac_settable_ctx_params },
    { OSSL_FUNC_MAC_SET_CTX_PARAMS, (void (*)(void))mac_set_ctx_params },
    { 0, NULL }
};
