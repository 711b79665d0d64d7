/* SPDX-License-Identifier: Apache-2.0 */
/*
 * "POLY1305" signature: our POLY1305 MAC behind EVP_DigestSign*, for keys of
 * the POLY1305 key manager (kmgmt_poly1305.c) -- the 1.1.1 way of computing
 * a MAC, as OpenSSL's default provider offers it. The MAC runs through its
 * own dispatch functions (mac_poly1305.c), so its checks and errors apply:
 * a 32-byte key, "key" settable. The digest name is ignored, as Poly1305
 * has none. Each init keys the MAC again: a one-time key is the caller's to
 * keep one-time, as with the default provider.
 */
#include <string.h>
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/proverr.h>
#include "prov_ctx.h"
#include "kmgmt_poly1305.h"

#define POLY1305_KEY_LEN 32
#define POLY1305_TAG_LEN 16

typedef struct {
    void *provctx;
    void *mac;                 /* a context of chacha_poly1305_mac_functions */
    unsigned char key[POLY1305_KEY_LEN];  /* for a re-init without a key */
    int have_key;
} SIG_CTX;

static OSSL_FUNC_signature_newctx_fn sig_newctx;
static OSSL_FUNC_signature_freectx_fn sig_freectx;
static OSSL_FUNC_signature_dupctx_fn sig_dupctx;
static OSSL_FUNC_signature_digest_sign_init_fn sig_init;
static OSSL_FUNC_signature_digest_sign_update_fn sig_update;
static OSSL_FUNC_signature_digest_sign_final_fn sig_final;
static OSSL_FUNC_signature_set_ctx_params_fn sig_set_ctx_params;
static OSSL_FUNC_signature_settable_ctx_params_fn sig_settable_ctx_params;

/* One function of the MAC's dispatch table (all of them are there). */
static void (*mac_fn(int id))(void)
{
    const OSSL_DISPATCH *d;

    for (d = chacha_poly1305_mac_functions; d->function_id != 0; d++)
        if (d->function_id == id)
            return d->function;
    return NULL;
}

static void *sig_newctx(void *provctx, const char *propq)
{
    SIG_CTX *ctx;

    (void)propq;               /* the MAC is ours, whatever the query */
    if (!chacha_prov_running(provctx))
        return NULL;
    ctx = chacha_ctx_zalloc(sizeof(*ctx));
    if (ctx == NULL)
        return NULL;
    ctx->provctx = provctx;
    chacha_trace_newctx(provctx, "POLY1305 signature");
    ctx->mac = ((OSSL_FUNC_mac_newctx_fn *)mac_fn(OSSL_FUNC_MAC_NEWCTX))(provctx);
    if (ctx->mac == NULL) {
        OPENSSL_free(ctx);
        return NULL;
    }
    return ctx;
}

static void sig_freectx(void *vctx)
{
    SIG_CTX *ctx = vctx;

    if (ctx == NULL)
        return;
    ((OSSL_FUNC_mac_freectx_fn *)mac_fn(OSSL_FUNC_MAC_FREECTX))(ctx->mac);
    OPENSSL_clear_free(ctx, sizeof(*ctx));
}

static void *sig_dupctx(void *vctx)
{
    SIG_CTX *src = vctx, *dst;

    if (!chacha_prov_running(src->provctx))
        return NULL;
    dst = chacha_ctx_memdup(src, sizeof(*dst));
    if (dst == NULL)
        return NULL;
    dst->mac = ((OSSL_FUNC_mac_dupctx_fn *)mac_fn(OSSL_FUNC_MAC_DUPCTX))(src->mac);
    if (dst->mac == NULL) {
        OPENSSL_clear_free(dst, sizeof(*dst));
        return NULL;
    }
    return dst;
}

static int sig_init(void *vctx, const char *mdname, void *vkey,
                    const OSSL_PARAM params[])
{
    SIG_CTX *ctx = vctx;
    const chacha_poly1305_key *key = vkey;
    const unsigned char *priv = ctx->key;
    size_t len = POLY1305_KEY_LEN;

    (void)mdname;
    if (!chacha_prov_running(ctx->provctx))
        return 0;
    if (key == NULL && !ctx->have_key) {
        ERR_raise(ERR_LIB_PROV, PROV_R_NO_KEY_SET);
        return 0;
    }
    if (key != NULL) {
        priv = key->priv;
        len = key->priv_len;
    }
    /* the MAC checks the key (32 bytes, else "invalid key length") */
    if (!((OSSL_FUNC_mac_init_fn *)mac_fn(OSSL_FUNC_MAC_INIT))(ctx->mac, priv, len,
                                                               params))
        return 0;
    if (priv != ctx->key) {
        memcpy(ctx->key, priv, POLY1305_KEY_LEN);
        ctx->have_key = 1;
    }
    return 1;
}

static int sig_update(void *vctx, const unsigned char *data, size_t len)
{
    SIG_CTX *ctx = vctx;

    return ((OSSL_FUNC_mac_update_fn *)mac_fn(OSSL_FUNC_MAC_UPDATE))(ctx->mac, data,
                                                                     len);
}

/* sig == NULL asks for the length, as EVP_DigestSignFinal does first. */
static int sig_final(void *vctx, unsigned char *sig, size_t *siglen,
                     size_t sigsize)
{
    SIG_CTX *ctx = vctx;

    if (sig == NULL) {
        *siglen = POLY1305_TAG_LEN;
        return 1;
    }
    return ((OSSL_FUNC_mac_final_fn *)mac_fn(OSSL_FUNC_MAC_FINAL))(ctx->mac, sig,
                                                                   siglen, sigsize);
}

static int sig_set_ctx_params(void *vctx, const OSSL_PARAM params[])
{
    SIG_CTX *ctx = vctx;

    return ((OSSL_FUNC_mac_set_ctx_params_fn *)mac_fn(OSSL_FUNC_MAC_SET_CTX_PARAMS))(
        ctx->mac, params);
}

static const OSSL_PARAM *sig_settable_ctx_params(void *vctx, void *provctx)
{
    (void)vctx;
    return ((OSSL_FUNC_mac_settable_ctx_params_fn *)
            mac_fn(OSSL_FUNC_MAC_SETTABLE_CTX_PARAMS))(NULL, provctx);
}

const OSSL_DISPATCH chacha_poly1305_signature_functions[] = {
    { OSSL_FUNC_SIGNATURE_NEWCTX, (void (*)(void))sig_newctx },
    { OSSL_FUNC_SIGNATURE_FREECTX, (void (*)(void))sig_freectx },
    { OSSL_FUNC_SIGNATURE_DUPCTX, (void (*)(void))sig_dupctx },
    { OSSL_FUNC_SIGNATURE_DIGEST_SIGN_INIT, (void (*)(void))sig_init },
    { OSSL_FUNC_SIGNATURE_DIGEST_SIGN_UPDATE, (void (*)(void))sig_update },
    { OSSL_FUNC_SIGNATURE_DIGEST_SIGN_FINAL, (void (*)(void))sig_final },
    { OSSL_FUNC_SIGNATURE_SET_CTX_PARAMS, (void (*)(void))sig_set_ctx_params },
    { OSSL_FUNC_SIGNATURE_SETTABLE_CTX_PARAMS, (void (*)(void))sig_settable_ctx_params },
    { 0, NULL }
};
