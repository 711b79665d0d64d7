/* SPDX-License-Identifier: Apache-2.0 */
/*
 * "XChaCha20" cipher dispatch (draft-irtf-cfrg-xchacha-03 2.3): a 32-byte
 * IV = the 24-byte nonce || the initial block counter, 64-bit little-endian.
 * The keystream is libsodium's crypto_stream_xchacha20_xor_ic(nonce, counter)
 * (the draft's XChaCha20 below 2^32 blocks; past them the counter carries
 * into the next word, as OpenSSL's ChaCha20 does). Stream semantics with any
 * chunking; key and IV may come in separate inits, but nothing runs without
 * both (no all-zero IV default).
 */
#include <string.h>
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/proverr.h>
#include "cipher_common.h"
#include "util.h"
#include "xchacha.h"

#define XCHACHA20_IV_LEN (CHACHA_XNONCE_LEN + 8)

typedef struct {
    CHACHA_PROV_CTX *pctx;
    chacha20_stream cs;        /* keyed with the subkey */
    uint32_t key[8];
    uint8_t iv[XCHACHA20_IV_LEN];         /* as given, for "iv" */
    uint8_t updated_iv[XCHACHA20_IV_LEN]; /* buffer behind an octet_ptr get */
    int enc, key_set, iv_set;
    int started;               /* cs runs on (key, iv): a key alone re-keys it */
} XCHACHA20_CTX;

static OSSL_FUNC_cipher_newctx_fn xchacha20_newctx;
static OSSL_FUNC_cipher_update_fn xchacha20_update;
static OSSL_FUNC_cipher_final_fn xchacha20_final;
static OSSL_FUNC_cipher_cipher_fn xchacha20_cipher;
static OSSL_FUNC_cipher_get_ctx_params_fn xchacha20_get_ctx_params;
static OSSL_FUNC_cipher_set_ctx_params_fn xchacha20_set_ctx_params;

static void *xchacha20_newctx(void *provctx)
{
    CHACHA_PROV_CTX *pctx = provctx;
    XCHACHA20_CTX *ctx = chacha_ctx_zalloc(sizeof(*ctx));

    if (ctx == NULL)
        return NULL;
    ctx->pctx = pctx;
    chacha20_stream_set_kernel(&ctx->cs, pctx->chacha, pctx->scalar_blocks,
                               pctx->hybrid);
    chacha_trace_newctx(pctx, "XChaCha20");
    return ctx;
}

/*
 * A new IV restarts the keystream at its counter; a new key alone goes on
 * from the current position with the new subkey (no keystream is repeated),
 * or starts the stream if the IV came first.
 */
static int xchacha20_init(XCHACHA20_CTX *ctx, const unsigned char *key,
                          size_t keylen, const unsigned char *iv, size_t ivlen,
                          const OSSL_PARAM params[], int enc)
{
    int i;

    ctx->enc = enc;
    if (iv != NULL && ivlen != XCHACHA20_IV_LEN) {
        ERR_raise(ERR_LIB_PROV, PROV_R_INVALID_IV_LENGTH);
        return 0;
    }
    if (key != NULL && keylen != CHACHA_KEY_LEN) {
        ERR_raise(ERR_LIB_PROV, PROV_R_INVALID_KEY_LENGTH);
        return 0;
    }
    if (!chacha_check_iv_tail(ctx->pctx, key, iv, XCHACHA20_IV_LEN))
        return 0;
    if (key != NULL) {
        for (i = 0; i < 8; i++)
            ctx->key[i] = chacha_load_le32(key + 4 * i);
        ctx->key_set = 1;
    }
    if (iv != NULL) {
        memcpy(ctx->iv, iv, XCHACHA20_IV_LEN);
        ctx->iv_set = 1;
    }
    if (ctx->key_set && ctx->iv_set) {
        if (iv != NULL || !ctx->started)
            chacha_xchacha20_start(&ctx->cs, ctx->key, ctx->iv,
                                   chacha_load_le64(ctx->iv + CHACHA_XNONCE_LEN));
        else if (key != NULL)
            chacha_xchacha20_rekey(&ctx->cs, ctx->key, ctx->iv);
        ctx->started = 1;
    }
    return xchacha20_set_ctx_params(ctx, params);
}

static int xchacha20_ready(XCHACHA20_CTX *ctx)
{
    if (!ctx->key_set) {
        ERR_raise(ERR_LIB_PROV, PROV_R_NO_KEY_SET);
        return 0;
    }
    if (!ctx->iv_set) {
        CHACHA_RAISE(ctx->pctx, CHACHA_R_IV_NOT_SET, NULL);
        return 0;
    }
    return 1;
}

static int xchacha20_update(void *vctx, unsigned char *out, size_t *outl,
                            size_t outsize, const unsigned char *in, size_t inl)
{
    XCHACHA20_CTX *ctx = vctx;

    return xchacha20_ready(ctx)
           && chacha_stream_update(&ctx->cs, out, outl, outsize, in, inl);
}

static int xchacha20_final(void *vctx, unsigned char *out, size_t *outl,
                           size_t outsize)
{
    (void)out;
    (void)outsize;
    if (!xchacha20_ready(vctx))
        return 0;
    *outl = 0;
    return 1;
}

/* EVP_Cipher(): a NULL input is the (empty) finalisation of a stream cipher. */
static int xchacha20_cipher(void *vctx, unsigned char *out, size_t *outl,
                            size_t outsize, const unsigned char *in, size_t inl)
{
    if (in == NULL)
        return xchacha20_final(vctx, out, outl, outsize);
    return xchacha20_update(vctx, out, outl, outsize, in, inl);
}

static int xchacha20_get_ctx_params(void *vctx, OSSL_PARAM params[])
{
    XCHACHA20_CTX *ctx = vctx;
    OSSL_PARAM *p;
    int r, ok = 1;

    for (p = PARAM_FIRST(params); ok && p != NULL; p = PARAM_NEXT(params, p)) {
        if ((r = chacha_get_fixed_length(p, XCHACHA20_IV_LEN)) >= 0) {
            ok = r;
        } else if (KEY_IS(p, OSSL_CIPHER_PARAM_IV)) {
            ok = chacha_set_octets(p, ctx->iv, XCHACHA20_IV_LEN);
        } else if (KEY_IS(p, OSSL_CIPHER_PARAM_UPDATED_IV)) {
            /* the nonce and the live 64-bit counter (ceil(bytes / 64) on) */
            uint8_t state[16];

            chacha20_stream_get_iv(&ctx->cs, state);
            memcpy(ctx->updated_iv, ctx->iv, CHACHA_XNONCE_LEN);
            memcpy(ctx->updated_iv + CHACHA_XNONCE_LEN, state, 8);
            ok = chacha_set_octets(p, ctx->updated_iv, XCHACHA20_IV_LEN);
        }
    }
    return ok;
}

static int xchacha20_set_ctx_params(void *vctx, const OSSL_PARAM params[])
{
    const OSSL_PARAM *p;

    (void)vctx;
    /* unknown keys (tls-version, padding, ...) are accepted, as for ChaCha20 */
    for (p = PARAM_FIRST(params); p != NULL; p = PARAM_NEXT(params, p))
        if (chacha_check_fixed_length(p, XCHACHA20_IV_LEN) == 0)
            return 0;
    return 1;
}

static const OSSL_PARAM xchacha20_known_gettable_ctx_params[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, NULL, 0),
    OSSL_PARAM_END
};

static const OSSL_PARAM xchacha20_known_settable_ctx_params[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_END
};

_Static_assert(offsetof(XCHACHA20_CTX, pctx) == 0, "CHACHA_CTX_PCTX");
CHACHA_CIPHER_DISPATCH(xchacha20, chacha_xchacha20_functions, XCHACHA20_CTX,
                       XCHACHA20_IV_LEN, 0);
