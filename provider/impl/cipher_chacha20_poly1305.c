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
#include "wipe.h"
#include "chacha20.h"
#include "poly1305.h"

#define AEAD_IV_LEN 12
#define AEAD_TAG_LEN 16
#define TLS_AAD_LEN EVP_AEAD_TLS1_AAD_LEN
#define NO_TLS_PAYLOAD ((size_t)-1)
/*
 * The one-time key comes with the text: AAD is buffered until the first text
 * arrives, then one kernel call makes block 0 (the one-time key) and the
 * keystream of up to AEAD_HEAD_MAX bytes of text together, so the SIMD
 * backends run them side by side (block 0 + 7 blocks = one 8-block AVX2
 * pass); the rest of the text follows on the bulk path.
 */
#define AEAD_HEAD_MAX 448
#define AEAD_AAD_BUF 64
/* the 32-bit block counter starts at 1: at most 2^32 - 1 blocks of data */
#define AEAD_MAX_TEXT ((((uint64_t)1 << 32) - 1) * 64)

enum aead_phase {
    PHASE_FRESH,               /* nonce set, one-time key not derived yet
                                  (short AAD waits in aad_buf) */
    PHASE_AAD,                 /* MAC running, AAD accepted */
    PHASE_DATA,                /* AAD closed, text flowing */
    PHASE_DONE,                /* tag computed: a new IV (or tlsaad) needed */
    PHASE_TLS_DONE             /* TLS record done: as DONE, but a Final is a
                                  harmless no-op (evp_test calls one) */
};

typedef struct {
    CHACHA_PROV_CTX *pctx;
    chacha20_stream cs;
    poly1305_ctx mac;
    uint32_t nonce[3];         /* as set by the IV or tlsivfixed */
    uint8_t iv[AEAD_IV_LEN];
    uint8_t tag[AEAD_TAG_LEN]; /* computed (encrypt) or expected (decrypt) */
    size_t tag_len;            /* 0 until a tag or tag length was set */
    uint64_t aad_len, text_len;
    uint8_t aad_buf[AEAD_AAD_BUF];
    size_t aad_buf_len;
    enum aead_phase phase;
    int enc, key_set, iv_set;
    size_t tls_payload;        /* NO_TLS_PAYLOAD outside TLS 1.2 record mode */
    size_t tls_aad_pad;
    uint8_t tls_aad[TLS_AAD_LEN];
} AEAD_CTX;

static OSSL_FUNC_cipher_newctx_fn aead_newctx;
static OSSL_FUNC_cipher_freectx_fn aead_freectx;
static OSSL_FUNC_cipher_dupctx_fn aead_dupctx;
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
    ctx->cs.impl = pctx->chacha;
    ctx->tls_payload = NO_TLS_PAYLOAD;
    chacha_trace_newctx(pctx, "ChaCha20-Poly1305");
    return ctx;
}

static void aead_freectx(void *vctx)
{
    OPENSSL_clear_free(vctx, sizeof(AEAD_CTX));
}

static void *aead_dupctx(void *vctx)
{
    AEAD_CTX *src = vctx, *dst = OPENSSL_malloc(sizeof(*dst));

    if (dst != NULL)
        memcpy(dst, src, sizeof(*dst));   /* every field is plain data */
    return dst;
}

/* Forget the message in progress: any new key or nonce starts afresh. */
static void aead_reset_message(AEAD_CTX *ctx)
{
    uint8_t unused[16];

    /* a MAC still running holds the one-time key: finish it into the void */
    if (ctx->phase == PHASE_AAD || ctx->phase == PHASE_DATA) {
        poly1305_final(&ctx->mac, unused);
        chacha_wipe(unused, sizeof(unused));
    }
    chacha_wipe(ctx->aad_buf, ctx->aad_buf_len);
    ctx->aad_buf_len = 0;
    ctx->aad_len = ctx->text_len = 0;
    ctx->phase = PHASE_FRESH;
    ctx->tls_payload = NO_TLS_PAYLOAD;
}

static void aead_set_nonce(AEAD_CTX *ctx, const uint8_t iv[AEAD_IV_LEN])
{
    int i;

    memcpy(ctx->iv, iv, AEAD_IV_LEN);
    for (i = 0; i < 3; i++)
        ctx->nonce[i] = chacha_load_le32(iv + 4 * i);
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
        aead_set_nonce(ctx, iv);
    }
    if (key != NULL) {
        if (keylen != CHACHA_KEY_LEN) {
            ERR_raise(ERR_LIB_PROV, PROV_R_INVALID_KEY_LENGTH);
            return 0;
        }
        chacha20_stream_set_key(&ctx->cs, key);
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
    if (ctx->phase == PHASE_DONE || ctx->phase == PHASE_TLS_DONE) {
        chacha_raise(ctx->pctx, CHACHA_R_ALREADY_FINALISED, NULL);
        return 0;
    }
    return 1;
}

/* Load counter = (block, nonce) into the keystream state. */
static void aead_set_counter(AEAD_CTX *ctx, uint32_t block)
{
    ctx->cs.counter[0] = block;
    ctx->cs.counter[1] = ctx->nonce[0];
    ctx->cs.counter[2] = ctx->nonce[1];
    ctx->cs.counter[3] = ctx->nonce[2];
    ctx->cs.partial = 0;
    if (ctx->cs.ks_valid)
        chacha_wipe(ctx->cs.ks, sizeof(ctx->cs.ks));
    ctx->cs.ks_valid = 0;
}

/* Key the MAC with the one-time key and absorb the AAD buffered so far. */
static void aead_mac_begin(AEAD_CTX *ctx, const uint8_t otk[32])
{
    poly1305_init(&ctx->mac, ctx->pctx->poly, otk);
    poly1305_update(&ctx->mac, ctx->aad_buf, ctx->aad_buf_len);
    chacha_wipe(ctx->aad_buf, ctx->aad_buf_len);
    ctx->aad_buf_len = 0;
    ctx->phase = PHASE_AAD;
}

/* Derive the one-time Poly1305 key from block 0; data starts at block 1. */
static void aead_start(AEAD_CTX *ctx)
{
    uint8_t otk[64] = { 0 };

    aead_set_counter(ctx, 0);
    ctx->cs.impl->xor_stream(otk, otk, 64, ctx->cs.key, ctx->cs.counter);
    ctx->cs.counter[0] = 1;
    aead_mac_begin(ctx, otk);
    chacha_wipe(otk, sizeof(otk));
}

/*
 * Block 0 and the first bytes of text in one kernel call; returns how many
 * bytes of text it took (all of len, up to AEAD_HEAD_MAX).
 */
static size_t aead_start_with_text(AEAD_CTX *ctx, unsigned char *out,
                                   const unsigned char *in, size_t len)
{
    uint8_t buf[64 + AEAD_HEAD_MAX];

    if (len > AEAD_HEAD_MAX)
        len = AEAD_HEAD_MAX;            /* a multiple of 64: bulk path aligned */
    memset(buf, 0, 64);
    memcpy(buf + 64, in, len);
    aead_set_counter(ctx, 0);
    ctx->cs.impl->xor_stream(buf, buf, 64 + len, ctx->cs.key, ctx->cs.counter);
    ctx->cs.counter[0] = 1 + (uint32_t)((len + 63) / 64);
    ctx->cs.partial = (unsigned int)(len & 63);  /* remade if the text goes on */
    aead_mac_begin(ctx, buf);
    poly1305_pad16(&ctx->mac);
    ctx->phase = PHASE_DATA;
    /* the MAC reads the ciphertext: ours when sealing, the input when opening */
    poly1305_update(&ctx->mac, ctx->enc ? buf + 64 : in, len);
    memcpy(out, buf + 64, len);
    chacha_wipe(buf, 64 + len);
    return len;
}

/* Encrypt or decrypt text, MACing the ciphertext (before it is overwritten). */
static int aead_text(AEAD_CTX *ctx, unsigned char *out, const unsigned char *in,
                     size_t len)
{
    const chacha20_poly1305_impl *fused;

    if ((uint64_t)len > AEAD_MAX_TEXT - ctx->text_len) {
        chacha_raise(ctx->pctx, CHACHA_R_NONCE_EXHAUSTED, NULL);
        return 0;
    }
    ctx->text_len += len;
    if (ctx->phase == PHASE_FRESH) {
        size_t n = aead_start_with_text(ctx, out, in, len);

        out += n;
        in += n;
        len -= n;
    }
    if (ctx->phase == PHASE_AAD) {
        poly1305_pad16(&ctx->mac);
        ctx->phase = PHASE_DATA;
    }
    fused = ctx->pctx->fused;
    if (fused != NULL && len >= fused->min_len[ctx->enc] && ctx->mac.num == 0
        && ctx->cs.partial == 0) {
        /* whole blocks in one stitched pass; the MAC state is radix 2^64 */
        size_t n = len & ~(size_t)63;

        fused->xor_mac(out, in, n, ctx->cs.key, ctx->cs.counter,
                       (struct poly1305_r64 *)ctx->mac.st.opaque, ctx->enc);
        ctx->cs.counter[0] += (uint32_t)(n / 64);  /* AEAD_MAX_TEXT: no wrap */
        out += n;
        in += n;
        len -= n;
    }
    if (ctx->enc) {
        chacha20_stream_xor(&ctx->cs, out, in, len);
        poly1305_update(&ctx->mac, out, len);
    } else {
        poly1305_update(&ctx->mac, in, len);
        chacha20_stream_xor(&ctx->cs, out, in, len);
    }
    return 1;
}

/* Close the MAC: pad, lengths, tag into tag (16 bytes). */
static void aead_finish_tag(AEAD_CTX *ctx, uint8_t tag[AEAD_TAG_LEN])
{
    uint8_t lens[16];
    int i;

    poly1305_pad16(&ctx->mac);
    for (i = 0; i < 8; i++) {
        lens[i] = (uint8_t)(ctx->aad_len >> (8 * i));
        lens[8 + i] = (uint8_t)(ctx->text_len >> (8 * i));
    }
    poly1305_update(&ctx->mac, lens, sizeof(lens));
    poly1305_final(&ctx->mac, tag);
    ctx->phase = PHASE_DONE;
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
        ctx->phase = PHASE_DONE;
        chacha_raise(ctx->pctx, CHACHA_R_BAD_TLS_RECORD,
                     "expected %zu bytes, got %zu", plen + AEAD_TAG_LEN, len);
        return 0;
    }
    memcpy(ctx->aad_buf, ctx->tls_aad, TLS_AAD_LEN);
    ctx->aad_buf_len = ctx->aad_len = TLS_AAD_LEN;
    if (!aead_text(ctx, out, in, plen))
        return 0;
    aead_finish_tag(ctx, tag);
    ctx->phase = PHASE_TLS_DONE;
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

    if (ctx->phase == PHASE_TLS_DONE && ctx->key_set)
        return 1;
    if (!aead_ready(ctx))
        return 0;
    if (ctx->tls_payload != NO_TLS_PAYLOAD) {
        ctx->tls_payload = NO_TLS_PAYLOAD;
        ctx->phase = PHASE_DONE;
        chacha_raise(ctx->pctx, CHACHA_R_BAD_TLS_RECORD, "final in tls record mode");
        return 0;
    }
    if (!ctx->enc && ctx->tag_len == 0) {
        /* the default provider accepts this and authenticates nothing */
        ctx->phase = PHASE_DONE;
        ERR_raise(ERR_LIB_PROV, PROV_R_TAG_NOT_SET);
        return 0;
    }
    if (ctx->phase == PHASE_FRESH)
        aead_start(ctx);
    aead_finish_tag(ctx, tag);
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
    if (!aead_ready(ctx))
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
        if (ctx->phase == PHASE_DATA) {
            ERR_raise_data(ERR_LIB_PROV, PROV_R_INVALID_AAD,
                           "aad must come before the text");
            return 0;
        }
        if (ctx->phase == PHASE_FRESH && inl <= AEAD_AAD_BUF - ctx->aad_buf_len) {
            memcpy(ctx->aad_buf + ctx->aad_buf_len, in, inl);
            ctx->aad_buf_len += inl;
        } else {
            if (ctx->phase == PHASE_FRESH)
                aead_start(ctx);
            poly1305_update(&ctx->mac, in, inl);
        }
        ctx->aad_len += inl;
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
    aead_reset_message(ctx);
    ctx->tls_payload = len;
    ctx->nonce[0] = chacha_load_le32(ctx->iv);
    ctx->nonce[1] = chacha_load_le32(ctx->iv + 4) ^ chacha_load_le32(aad);
    ctx->nonce[2] = chacha_load_le32(ctx->iv + 8) ^ chacha_load_le32(aad + 4);
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
    aead_set_nonce(ctx, p->data);
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

CHACHA_CIPHER_DISPATCH(aead, chacha_chacha20_poly1305_functions, AEAD_IV_LEN, 1);
