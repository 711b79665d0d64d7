/* SPDX-License-Identifier: Apache-2.0 */
/*
 * "ChaCha20-Poly1305" cipher dispatch (RFC 8439 AEAD) with OpenSSL's default
 * provider semantics: 12-byte nonce only, AAD through updates with a NULL
 * output, the tag through params, and libssl's TLS 1.2 one-shot record mode.
 * Where the default provider is unsafe we fail closed (see docs/compat.md):
 * no key/IV, a missing tag on decrypt, AAD after data, reuse after final.
 */
#include <string.h>
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/proverr.h>
#include "cipher_aead_common.h"
#include "util.h"

#define AEAD_IV_LEN 12
#define AEAD_TAG_LEN CHACHA_EVP_TAG_LEN
#define TLS_AAD_LEN EVP_AEAD_TLS1_AAD_LEN
#define NO_TLS_PAYLOAD ((size_t)-1)

typedef struct {
    chacha_evp_aead e;         /* phases, tag, the AEAD core */
    uint8_t iv[AEAD_IV_LEN];   /* as set by the IV or tlsivfixed */
    int tls_done;              /* a TLS record finished: a Final is a harmless
                                  no-op (evp_test calls one) */
    size_t tls_payload;        /* NO_TLS_PAYLOAD outside TLS 1.2 record mode */
    size_t tls_aad_pad;
    uint8_t tls_aad[TLS_AAD_LEN];
} AEAD_CTX;

static OSSL_FUNC_cipher_newctx_fn aead_newctx;
static OSSL_FUNC_cipher_update_fn aead_update;
static OSSL_FUNC_cipher_final_fn aead_final;
static OSSL_FUNC_cipher_cipher_fn aead_cipher;
static OSSL_FUNC_cipher_get_ctx_params_fn aead_get_ctx_params;
static OSSL_FUNC_cipher_set_ctx_params_fn aead_set_ctx_params;

static void *aead_newctx(void *provctx)
{
    CHACHA_PROV_CTX *pctx = provctx;
    AEAD_CTX *ctx = chacha_ctx_zalloc(sizeof(*ctx));

    if (ctx == NULL)
        return NULL;
    chacha_evp_aead_setup(&ctx->e, pctx);
    ctx->tls_payload = NO_TLS_PAYLOAD;
    chacha_trace_newctx(pctx, "ChaCha20-Poly1305");
    return ctx;
}

/* Forget the message in progress: any new key or nonce starts afresh. */
static void aead_reset_message(AEAD_CTX *ctx)
{
    chacha_aead_reset(&ctx->e.aead);
    ctx->tls_done = 0;
    ctx->tls_payload = NO_TLS_PAYLOAD;
}

/*
 * The nonce of the next message: iv, with a TLS record's sequence number
 * xored in (RFC 7905), or none.
 */
static void aead_load_nonce(AEAD_CTX *ctx, const uint8_t *seq)
{
    uint32_t n[3];

    n[0] = chacha_load_le32(ctx->iv);
    n[1] = chacha_load_le32(ctx->iv + 4) ^ (seq ? chacha_load_le32(seq) : 0);
    n[2] = chacha_load_le32(ctx->iv + 8) ^ (seq ? chacha_load_le32(seq + 4) : 0);
    chacha_aead_set_nonce(&ctx->e.aead, n);
}

/* A new iv: a new message. */
static void aead_set_iv(AEAD_CTX *ctx, const uint8_t iv[AEAD_IV_LEN])
{
    memcpy(ctx->iv, iv, AEAD_IV_LEN);
    aead_load_nonce(ctx, NULL);
    ctx->e.iv_set = 1;
}

static int aead_init(AEAD_CTX *ctx, const unsigned char *key, size_t keylen,
                     const unsigned char *iv, size_t ivlen,
                     const OSSL_PARAM params[], int enc)
{
    ctx->e.enc = enc;
    if (iv != NULL) {
        if (ivlen != AEAD_IV_LEN) {
            ERR_raise(ERR_LIB_PROV, PROV_R_INVALID_IV_LENGTH);
            return 0;
        }
        aead_set_iv(ctx, iv);
    }
    if (key != NULL) {
        if (keylen != CHACHA_KEY_LEN) {
            ERR_raise(ERR_LIB_PROV, PROV_R_INVALID_KEY_LENGTH);
            return 0;
        }
        chacha_aead_set_key(&ctx->e.aead, key);
        ctx->e.key_set = 1;
    }
    if (key != NULL || iv != NULL)
        aead_reset_message(ctx);
    /* the tag (or its length) survives re-inits, as evp_test relies on */
    return aead_set_ctx_params(ctx, params);
}

/*
 * TLS 1.2 record (after "tlsaad"): one call over payload || 16-byte tag space,
 * nonce = fixed IV xor sequence number. A record that fails to authenticate
 * leaves zeros in the output, never plaintext.
 */
static int aead_tls_record(AEAD_CTX *ctx, unsigned char *out, size_t *outl,
                           const unsigned char *in, size_t len)
{
    size_t plen = ctx->tls_payload;
    uint8_t tag[AEAD_TAG_LEN];

    ctx->tls_payload = NO_TLS_PAYLOAD;
    if (in == NULL || len != plen + AEAD_TAG_LEN) {
        chacha_aead_abort(&ctx->e.aead);
        CHACHA_RAISE(ctx->e.pctx, CHACHA_R_BAD_TLS_RECORD,
                     "expected %zu bytes, got %zu", plen + AEAD_TAG_LEN, len);
        return 0;
    }
    chacha_aead_aad(&ctx->e.aead, ctx->tls_aad, TLS_AAD_LEN);   /* FRESH: ok */
    if (!chacha_evp_aead_text(&ctx->e, out, in, plen))
        return 0;
    chacha_aead_tag(&ctx->e.aead, tag);
    ctx->tls_done = 1;
    if (ctx->e.enc) {
        memcpy(out + plen, tag, AEAD_TAG_LEN);
        memcpy(ctx->e.tag, tag, AEAD_TAG_LEN);   /* GET_TAG reads it, as OpenSSL */
        *outl = plen + AEAD_TAG_LEN;
    } else if (CRYPTO_memcmp(tag, in + plen, AEAD_TAG_LEN) != 0) {
        chacha_wipe(out, plen);
        chacha_wipe(tag, sizeof(tag));
        return 0;              /* as OpenSSL: 0, no error; libssl sends bad_record_mac */
    } else {
        *outl = plen;
    }
    chacha_wipe(tag, sizeof(tag));
    return 1;
}

static int aead_do_final(AEAD_CTX *ctx)
{
    if (ctx->tls_done && ctx->e.key_set)
        return 1;
    if (!chacha_evp_aead_ready(&ctx->e))
        return 0;
    if (ctx->tls_payload != NO_TLS_PAYLOAD) {
        ctx->tls_payload = NO_TLS_PAYLOAD;
        chacha_aead_abort(&ctx->e.aead);
        CHACHA_RAISE(ctx->e.pctx, CHACHA_R_BAD_TLS_RECORD, "final in tls record mode");
        return 0;
    }
    return chacha_evp_aead_final(&ctx->e);
}

static int aead_process(AEAD_CTX *ctx, unsigned char *out, size_t *outl,
                        size_t outsize, const unsigned char *in, size_t inl)
{
    if (!chacha_evp_aead_check(&ctx->e, out, outsize, inl))
        return 0;
    if (ctx->tls_payload != NO_TLS_PAYLOAD) {
        if (out != NULL)
            return aead_tls_record(ctx, out, outl, in, inl);
        if (inl != 0 && in != NULL) {
            /* the default would MAC it after the record header: refuse */
            ERR_raise_data(ERR_LIB_PROV, PROV_R_INVALID_AAD,
                           "no aad updates in tls record mode");
            return 0;
        }
    }
    return chacha_evp_aead_data(&ctx->e, out, outl, in, inl);
}

static int aead_update(void *vctx, unsigned char *out, size_t *outl,
                       size_t outsize, const unsigned char *in, size_t inl)
{
    /* a zero-length update is a no-op, even with a TLS record pending */
    if (inl == 0) {
        *outl = 0;
        return 1;
    }
    return aead_process(vctx, out, outl, outsize, in, inl);
}

static int aead_final(void *vctx, unsigned char *out, size_t *outl,
                      size_t outsize)
{
    (void)out;
    (void)outsize;
    *outl = 0;
    return aead_do_final(vctx);
}

/*
 * EVP_Cipher(): a NULL input finalises and always checks the tag
 * (CVE-2026-75803); a zero-length call with real pointers is a no-op that
 * leaves the AAD open (openssl#32752).
 */
static int aead_cipher(void *vctx, unsigned char *out, size_t *outl,
                       size_t outsize, const unsigned char *in, size_t inl)
{
    AEAD_CTX *ctx = vctx;

    if (in == NULL) {
        *outl = 0;
        return aead_do_final(ctx);
    }
    /*
     * A zero-length call is a no-op, except that OpenSSL runs a pending TLS
     * record on a zero-length output call (and fails it).
     */
    if (inl == 0 && (ctx->tls_payload == NO_TLS_PAYLOAD || out == NULL))
        return chacha_evp_aead_empty_cipher(&ctx->e, out, outl, in);
    return aead_process(ctx, out, outl, outsize, in, inl);
}

static int aead_get_ctx_params(void *vctx, OSSL_PARAM params[])
{
    AEAD_CTX *ctx = vctx;
    OSSL_PARAM *p;
    int r, ok = 1;

    for (p = PARAM_FIRST(params); ok && p != NULL; p = PARAM_NEXT(params, p)) {
        if ((r = chacha_evp_aead_get_param(&ctx->e, p, AEAD_IV_LEN, ctx->iv)) >= 0) {
            ok = r;
        } else if (KEY_IS(p, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD)) {
            ok = OSSL_PARAM_set_size_t(p, ctx->tls_aad_pad);
            if (!ok)
                ERR_raise(ERR_LIB_PROV, PROV_R_FAILED_TO_SET_PARAMETER);
        }
    }
    return ok;
}

/* "tlsaad": arm TLS 1.2 record mode for the next update; returns the pad. */
static int aead_set_tls_aad(AEAD_CTX *ctx, const OSSL_PARAM *p)
{
    const uint8_t *aad = p->data;
    size_t len;

    if (p->data_type != OSSL_PARAM_OCTET_STRING) {
        ERR_raise(ERR_LIB_PROV, PROV_R_FAILED_TO_GET_PARAMETER);
        return 0;
    }
    if (p->data_size != TLS_AAD_LEN || aad == NULL) {
        ERR_raise(ERR_LIB_PROV, PROV_R_INVALID_DATA);
        return 0;
    }
    memcpy(ctx->tls_aad, aad, TLS_AAD_LEN);
    len = (size_t)aad[TLS_AAD_LEN - 2] << 8 | aad[TLS_AAD_LEN - 1];
    if (!ctx->e.enc) {
        /* a received record's length includes the tag */
        if (len < AEAD_TAG_LEN) {
            ERR_raise(ERR_LIB_PROV, PROV_R_INVALID_DATA);
            return 0;
        }
        len -= AEAD_TAG_LEN;
        ctx->tls_aad[TLS_AAD_LEN - 2] = (uint8_t)(len >> 8);
        ctx->tls_aad[TLS_AAD_LEN - 1] = (uint8_t)len;
    }
    /* RFC 7905: nonce = fixed IV xor (0^4 || 64-bit sequence number) */
    aead_load_nonce(ctx, aad);
    aead_reset_message(ctx);
    ctx->tls_payload = len;
    ctx->tls_aad_pad = AEAD_TAG_LEN;
    return 1;
}

static int aead_set_iv_fixed(AEAD_CTX *ctx, const OSSL_PARAM *p)
{
    if (p->data_type != OSSL_PARAM_OCTET_STRING) {
        ERR_raise(ERR_LIB_PROV, PROV_R_FAILED_TO_GET_PARAMETER);
        return 0;
    }
    if (p->data_size != AEAD_IV_LEN || p->data == NULL) {
        ERR_raise(ERR_LIB_PROV, PROV_R_INVALID_IV_LENGTH);
        return 0;
    }
    aead_set_iv(ctx, p->data);
    aead_reset_message(ctx);
    return 1;
}

static int aead_set_ctx_params(void *vctx, const OSSL_PARAM params[])
{
    AEAD_CTX *ctx = vctx;
    const OSSL_PARAM *p;
    int r, ok = 1;

    /* anything unknown (tls-version, tls-mac-size, padding ...) is ignored */
    for (p = PARAM_FIRST(params); ok && p != NULL; p = PARAM_NEXT(params, p)) {
        if ((r = chacha_evp_aead_set_param(&ctx->e, p, AEAD_IV_LEN)) >= 0)
            ok = r;
        else if (KEY_IS(p, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD))
            ok = aead_set_tls_aad(ctx, p);
        else if (KEY_IS(p, OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED))
            ok = aead_set_iv_fixed(ctx, p);
    }
    return ok;
}

static const OSSL_PARAM aead_known_gettable_ctx_params[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TAGLEN, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, 0),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, NULL, 0),
    OSSL_PARAM_END
};

static const OSSL_PARAM aead_known_settable_ctx_params[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, NULL, 0),
    OSSL_PARAM_END
};

_Static_assert(offsetof(AEAD_CTX, e.pctx) == 0, "CHACHA_CTX_PCTX");
CHACHA_CIPHER_DISPATCH(aead, chacha_chacha20_poly1305_functions, AEAD_CTX, AEAD_IV_LEN, 1);
