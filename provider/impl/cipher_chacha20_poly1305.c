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
#include "cipher_common.h"
#include "util.h"
#include "aead.h"

#define AEAD_IV_LEN 12
#define AEAD_TAG_LEN CHACHA_AEAD_TAG_LEN
#define TLS_AAD_LEN EVP_AEAD_TLS1_AAD_LEN
#define NO_TLS_PAYLOAD ((size_t)-1)

typedef struct {
    CHACHA_PROV_CTX *pctx;
    chacha_aead aead;          /* the RFC 8439 construction (core/aead.h) */
    uint8_t iv[AEAD_IV_LEN];   /* as set by the IV or tlsivfixed */
    uint8_t tag[AEAD_TAG_LEN]; /* computed (encrypt) or expected (decrypt) */
    size_t tag_len;            /* 0 until a tag or tag length was set */
    int enc, key_set, iv_set;
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
    AEAD_CTX *ctx = OPENSSL_zalloc(sizeof(*ctx));

    if (ctx == NULL)
        return NULL;
    ctx->pctx = pctx;
    chacha_aead_setup(&ctx->aead, pctx->chacha, pctx->poly, pctx->fused);
    ctx->tls_payload = NO_TLS_PAYLOAD;
    chacha_trace_newctx(pctx, "ChaCha20-Poly1305");
    return ctx;
}

/* Forget the message in progress: any new key or nonce starts afresh. */
static void aead_reset_message(AEAD_CTX *ctx)
{
    chacha_aead_reset(&ctx->aead);
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
    chacha_aead_set_nonce(&ctx->aead, n);
}

/* A new iv (the caller resets the message). */
static void aead_set_iv(AEAD_CTX *ctx, const uint8_t iv[AEAD_IV_LEN])
{
    memcpy(ctx->iv, iv, AEAD_IV_LEN);
    aead_load_nonce(ctx, NULL);
    ctx->iv_set = 1;
}

static int aead_init(AEAD_CTX *ctx, const unsigned char *key, size_t keylen,
                     const unsigned char *iv, size_t ivlen,
                     const OSSL_PARAM params[], int enc)
{
    ctx->enc = enc;
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
        chacha_aead_set_key(&ctx->aead, key);
        ctx->key_set = 1;
    }
    if (key != NULL || iv != NULL)
        aead_reset_message(ctx);
    /* the tag (or its length) survives re-inits, as evp_test relies on */
    return aead_set_ctx_params(ctx, params);
}

/* Refuse to run without a key and nonce, or on a finished message. */
static int aead_ready(AEAD_CTX *ctx)
{
    if (!ctx->key_set) {
        ERR_raise(ERR_LIB_PROV, PROV_R_NO_KEY_SET);
        return 0;
    }
    if (!ctx->iv_set) {
        chacha_raise(ctx->pctx, CHACHA_R_IV_NOT_SET, NULL);
        return 0;
    }
    if (ctx->aead.phase == CHACHA_AEAD_DONE) {
        chacha_raise(ctx->pctx, CHACHA_R_ALREADY_FINALISED, NULL);
        return 0;
    }
    return 1;
}

/* Encrypt or decrypt text, MACing the ciphertext. */
static int aead_text(AEAD_CTX *ctx, unsigned char *out, const unsigned char *in,
                     size_t len)
{
    if (chacha_aead_text(&ctx->aead, out, in, len, ctx->enc) != CHACHA_AEAD_OK) {
        chacha_raise(ctx->pctx, CHACHA_R_NONCE_EXHAUSTED, NULL);
        return 0;
    }
    return 1;
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
        chacha_aead_abort(&ctx->aead);
        chacha_raise(ctx->pctx, CHACHA_R_BAD_TLS_RECORD,
                     "expected %zu bytes, got %zu", plen + AEAD_TAG_LEN, len);
        return 0;
    }
    chacha_aead_aad(&ctx->aead, ctx->tls_aad, TLS_AAD_LEN);   /* FRESH: ok */
    if (!aead_text(ctx, out, in, plen))
        return 0;
    chacha_aead_tag(&ctx->aead, tag);
    ctx->tls_done = 1;
    if (ctx->enc) {
        memcpy(out + plen, tag, AEAD_TAG_LEN);
        memcpy(ctx->tag, tag, AEAD_TAG_LEN);   /* GET_TAG reads it, as OpenSSL */
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
    uint8_t tag[AEAD_TAG_LEN];
    int ok = 1;

    if (ctx->tls_done && ctx->key_set)
        return 1;
    if (!aead_ready(ctx))
        return 0;
    if (ctx->tls_payload != NO_TLS_PAYLOAD) {
        ctx->tls_payload = NO_TLS_PAYLOAD;
        chacha_aead_abort(&ctx->aead);
        chacha_raise(ctx->pctx, CHACHA_R_BAD_TLS_RECORD, "final in tls record mode");
        return 0;
    }
    if (!ctx->enc && ctx->tag_len == 0) {
        /* the default provider accepts this and authenticates nothing */
        chacha_aead_abort(&ctx->aead);
        ERR_raise(ERR_LIB_PROV, PROV_R_TAG_NOT_SET);
        return 0;
    }
    chacha_aead_tag(&ctx->aead, tag);
    if (ctx->enc)
        memcpy(ctx->tag, tag, AEAD_TAG_LEN);
    else
        ok = CRYPTO_memcmp(tag, ctx->tag, ctx->tag_len) == 0;
    chacha_wipe(tag, sizeof(tag));
    return ok;                 /* a mismatch raises nothing, as OpenSSL */
}

static int aead_process(AEAD_CTX *ctx, unsigned char *out, size_t *outl,
                        size_t outsize, const unsigned char *in, size_t inl)
{
    if (!aead_ready(ctx) || !chacha_check_input_length(inl))
        return 0;
    if (outsize < inl && out != NULL) {
        ERR_raise(ERR_LIB_PROV, PROV_R_OUTPUT_BUFFER_TOO_SMALL);
        return 0;
    }
    if (ctx->tls_payload != NO_TLS_PAYLOAD && out != NULL)
        return aead_tls_record(ctx, out, outl, in, inl);
    if (inl == 0) {
        *outl = 0;
        return 1;
    }
    if (in == NULL) {
        ERR_raise(ERR_LIB_PROV, PROV_R_CIPHER_OPERATION_FAILED);
        return 0;
    }
    if (out == NULL) {
        if (ctx->tls_payload != NO_TLS_PAYLOAD) {
            /* the default would MAC it after the record header: refuse */
            ERR_raise_data(ERR_LIB_PROV, PROV_R_INVALID_AAD,
                           "no aad updates in tls record mode");
            return 0;
        }
        if (chacha_aead_aad(&ctx->aead, in, inl) != CHACHA_AEAD_OK) {
            ERR_raise_data(ERR_LIB_PROV, PROV_R_INVALID_AAD,
                           "aad must come before the text");
            return 0;
        }
    } else if (!aead_text(ctx, out, in, inl)) {
        return 0;
    }
    *outl = inl;               /* AAD reports its length too, as OpenSSL */
    return 1;
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
    if (inl == 0 && (ctx->tls_payload == NO_TLS_PAYLOAD || out == NULL)) {
        *outl = 0;
        return 1;
    }
    return aead_process(ctx, out, outl, outsize, in, inl);
}

static int aead_get_tag(AEAD_CTX *ctx, OSSL_PARAM *p)
{
    if (!ctx->enc) {
        ERR_raise(ERR_LIB_PROV, PROV_R_TAG_NOT_SET);
        return 0;
    }
    if (p->data_size == 0 || p->data_size > AEAD_TAG_LEN) {
        ERR_raise(ERR_LIB_PROV, PROV_R_INVALID_TAG_LENGTH);
        return 0;
    }
    if (p->data_type != OSSL_PARAM_OCTET_STRING) {
        ERR_raise(ERR_LIB_PROV, PROV_R_FAILED_TO_SET_PARAMETER);
        return 0;
    }
    memcpy(p->data, ctx->tag, p->data_size);
    p->return_size = p->data_size;
    return 1;
}

static int set_size(OSSL_PARAM *p, size_t value)
{
    if (OSSL_PARAM_set_size_t(p, value))
        return 1;
    ERR_raise(ERR_LIB_PROV, PROV_R_FAILED_TO_SET_PARAMETER);
    return 0;
}

static int aead_get_ctx_params(void *vctx, OSSL_PARAM params[])
{
    AEAD_CTX *ctx = vctx;
    OSSL_PARAM *p;
    int r, ok = 1;

    for (p = params; ok && p != NULL && p->key != NULL; p++) {
        if ((r = chacha_get_fixed_length(p, AEAD_IV_LEN)) >= 0) {
            ok = r;
        } else if (KEY_IS(p, OSSL_CIPHER_PARAM_AEAD_TAG)) {
            ok = aead_get_tag(ctx, p);
        } else if (KEY_IS(p, OSSL_CIPHER_PARAM_AEAD_TAGLEN)) {
            ok = set_size(p, ctx->tag_len);
        } else if (KEY_IS(p, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD)) {
            ok = set_size(p, ctx->tls_aad_pad);
        } else if (KEY_IS(p, OSSL_CIPHER_PARAM_IV)
                   || KEY_IS(p, OSSL_CIPHER_PARAM_UPDATED_IV)) {
            ok = chacha_set_octets(p, ctx->iv, AEAD_IV_LEN);
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
    if (!ctx->enc) {
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

static int aead_set_tag(AEAD_CTX *ctx, const OSSL_PARAM *p)
{
    if (p->data_type != OSSL_PARAM_OCTET_STRING) {
        ERR_raise(ERR_LIB_PROV, PROV_R_FAILED_TO_GET_PARAMETER);
        return 0;
    }
    if (p->data_size == 0 || p->data_size > AEAD_TAG_LEN) {
        ERR_raise(ERR_LIB_PROV, PROV_R_INVALID_TAG_LENGTH);
        return 0;
    }
    if (p->data != NULL) {
        if (ctx->enc) {
            ERR_raise(ERR_LIB_PROV, PROV_R_TAG_NOT_NEEDED);
            return 0;
        }
        memcpy(ctx->tag, p->data, p->data_size);
    }
    ctx->tag_len = p->data_size;       /* SET_TAG(n, NULL) sets the length only */
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
    for (p = params; ok && p != NULL && p->key != NULL; p++) {
        if ((r = chacha_check_fixed_length(p, AEAD_IV_LEN)) >= 0)
            ok = r;
        else if (KEY_IS(p, OSSL_CIPHER_PARAM_AEAD_TAG))
            ok = aead_set_tag(ctx, p);
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

CHACHA_CIPHER_DISPATCH(aead, chacha_chacha20_poly1305_functions, AEAD_CTX, AEAD_IV_LEN, 1);
