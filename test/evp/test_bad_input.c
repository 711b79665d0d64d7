/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The bad-input matrix (docs/bad-input.md), table-driven: every row is one
 * misuse of the EVP API on ChaCha20, ChaCha20-Poly1305, XChaCha20 or
 * XChaCha20-Poly1305. Each row runs on our provider (checked: return code,
 * error text, nothing released) and on OpenSSL's default provider (shown,
 * for the matrix; it has no XChaCha). Rows that might crash
 * a provider (NULL buffers, lengths near INT_MAX) run in a forked child, so
 * a crash is reported instead of killing the test; under ASan (configure
 * --enable-sanitizers) leaks and overflows fail the run.
 *
 * The 2^38 - 64 byte AEAD limit cannot be reached through EVP in a test
 * (256 GiB of text); the last rows drive the provider's own dispatch
 * functions white-box (this file includes cipher_chacha20_poly1305.c) with
 * the text counter moved next to the limit.
 *
 * Links: libtestutil + libchachacore + libcrypto; needs OPENSSL_MODULES.
 */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "testutil.h"

/* ---- the white-box part: the AEAD dispatch code itself ------------------ */
#define chacha_chacha20_poly1305_functions wb_chacha20_poly1305_functions
#include "cipher_chacha20_poly1305.c"
#include "registry.h"
#include "cpu.h"
#undef chacha_chacha20_poly1305_functions

/* No core here: the provider context's error upcalls record our reasons. */
static int wb_last_reason;
static void wb_new_error(const OSSL_CORE_HANDLE *handle)
{
    (void)handle;
}

static void wb_vset_error(const OSSL_CORE_HANDLE *handle, uint32_t reason,
                          const char *fmt, va_list args)
{
    (void)handle;
    (void)fmt;
    (void)args;
    wb_last_reason = (int)reason;
}

/* ------------------------------------------------------------------------ */

#define TAGLEN 16
static const unsigned char KEY[32] = {
    0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x8b,
    0x8c, 0x8d, 0x8e, 0x8f, 0x90, 0x91, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97,
    0x98, 0x99, 0x9a, 0x9b, 0x9c, 0x9d, 0x9e, 0x9f
};
/* 32 bytes: XChaCha20's IV; the other ciphers read the first 24, 16 or 12 */
static const unsigned char IV[32] = {
    0x07, 0, 0, 0, 0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 1, 2, 3, 4,
    5, 6, 7, 8, 9, 10, 11, 12, 0x30, 0, 0, 0, 0, 0, 0, 0
};
static unsigned char PT[1024];

/* What one run of a row did. */
typedef struct {
    int rc;                    /* return of the decisive call */
    char err[200];             /* the last queued error's text, "" if none */
    int released;              /* 1 if plaintext/keystream came out */
    int crashed;               /* signal number when run forked, else 0 */
    char note[120];            /* extra detail for the matrix */
} outcome;

typedef void row_fn(const EVP_CIPHER *c, outcome *o, int arg);

typedef struct {
    const char *id;
    const char *input;         /* the matrix's "input" column */
    int aead;                  /* the cipher: enum alg */
    row_fn *fn;
    int arg;
    int forked;                /* may crash a provider: run in a child */
    int want_rc;               /* ours */
    const char *want_err;      /* substring of ours' error, NULL: none queued */
} row;

enum alg { C20, AEAD, XC20, XAEAD, NALG };
static const char *const alg_name[NALG] = {
    "ChaCha20", "ChaCha20-Poly1305", "XChaCha20", "XChaCha20-Poly1305"
};
static EVP_CIPHER *ciphers[2][NALG];   /* [0 ours, 1 default][alg]; no default XChaCha */

static void take_error(outcome *o)
{
    unsigned long e = ERR_peek_last_error();
    const char *data = NULL;
    int flags = 0;

    o->err[0] = '\0';
    if (e != 0) {
        ERR_peek_last_error_all(NULL, NULL, NULL, &data, &flags);
        ERR_error_string_n(e, o->err, sizeof(o->err));
        if ((flags & ERR_TXT_STRING) && data != NULL && *data != '\0') {
            size_t n = strlen(o->err);

            snprintf(o->err + n, sizeof(o->err) - n, " (%s)", data);
        }
    }
    ERR_clear_error();
}

static EVP_CIPHER_CTX *new_ctx(const EVP_CIPHER *c, const unsigned char *key,
                               const unsigned char *iv, int enc)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();

    if (ctx == NULL || !EVP_CipherInit_ex2(ctx, c, key, iv, enc, NULL)) {
        EVP_CIPHER_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

static int set_size_param(EVP_CIPHER_CTX *ctx, const char *key, size_t v)
{
    OSSL_PARAM p[2];

    p[0] = OSSL_PARAM_construct_size_t(key, &v);
    p[1] = OSSL_PARAM_construct_end();
    return EVP_CIPHER_CTX_set_params(ctx, p);
}

/* ---- rows ------------------------------------------------------------- */

/* keylen param (arg = length) */
static void r_keylen(const EVP_CIPHER *c, outcome *o, int arg)
{
    EVP_CIPHER_CTX *ctx = new_ctx(c, NULL, NULL, 1);

    ERR_clear_error();
    o->rc = set_size_param(ctx, OSSL_CIPHER_PARAM_KEYLEN, (size_t)arg);
    take_error(o);
    /* also the legacy call, which maps to the same parameter */
    snprintf(o->note, sizeof(o->note), "EVP_CIPHER_CTX_set_key_length: %d",
             EVP_CIPHER_CTX_set_key_length(ctx, arg));
    ERR_clear_error();
    EVP_CIPHER_CTX_free(ctx);
}

/* ivlen param (arg = length) on a keyed context, then does it still work? */
static void r_ivlen(const EVP_CIPHER *c, outcome *o, int arg)
{
    EVP_CIPHER_CTX *ctx = new_ctx(c, KEY, IV, 1);
    unsigned char out[64];
    int outl;

    ERR_clear_error();
    o->rc = set_size_param(ctx, OSSL_CIPHER_PARAM_IVLEN, (size_t)arg);
    take_error(o);
    snprintf(o->note, sizeof(o->note), "ivlen stays %d; update after: %d",
             EVP_CIPHER_CTX_get_iv_length(ctx),
             EVP_EncryptUpdate(ctx, out, &outl, PT, 64));
    ERR_clear_error();
    EVP_CIPHER_CTX_free(ctx);
}

/* init with an ivlen param (arg): EVP_CipherInit_ex2(key, iv, {ivlen}) */
static void r_init_ivlen(const EVP_CIPHER *c, outcome *o, int arg)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    OSSL_PARAM p[2];
    size_t v = (size_t)arg;

    p[0] = OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_IVLEN, &v);
    p[1] = OSSL_PARAM_construct_end();
    ERR_clear_error();
    o->rc = EVP_CipherInit_ex2(ctx, c, KEY, IV, 1, p);
    take_error(o);
    EVP_CIPHER_CTX_free(ctx);
}

/* arg = [1000: GET_TAG, else SET_TAG] + [100: on decrypt] + length */
static void r_tag(const EVP_CIPHER *c, outcome *o, int arg)
{
    int get = arg >= 1000, dec = (arg % 1000) >= 100, len = arg % 100;
    EVP_CIPHER_CTX *ctx = new_ctx(c, KEY, IV, !dec);
    unsigned char tag[32];

    memset(tag, 0x5a, sizeof(tag));
    ERR_clear_error();
    o->rc = EVP_CIPHER_CTX_ctrl(ctx, get ? EVP_CTRL_AEAD_GET_TAG
                                         : EVP_CTRL_AEAD_SET_TAG, len, tag);
    take_error(o);
    EVP_CIPHER_CTX_free(ctx);
}

/* decrypt and Final without ever setting a tag (arg 1: via EVP_Cipher) */
static void r_no_tag(const EVP_CIPHER *c, outcome *o, int arg)
{
    EVP_CIPHER_CTX *ctx = new_ctx(c, KEY, IV, 0);
    unsigned char out[100];
    int outl;

    EVP_DecryptUpdate(ctx, out, &outl, PT, 100);
    ERR_clear_error();
    if (arg)
        o->rc = EVP_Cipher(ctx, NULL, NULL, 0);
    else
        o->rc = EVP_DecryptFinal_ex(ctx, out, &outl);
    take_error(o);
    EVP_CIPHER_CTX_free(ctx);
}

static void r_aad_after_data(const EVP_CIPHER *c, outcome *o, int arg)
{
    EVP_CIPHER_CTX *ctx = new_ctx(c, KEY, IV, 1);
    unsigned char out[100];
    int outl;

    (void)arg;
    EVP_EncryptUpdate(ctx, NULL, &outl, PT, 10);
    EVP_EncryptUpdate(ctx, out, &outl, PT, 50);
    ERR_clear_error();
    o->rc = EVP_EncryptUpdate(ctx, NULL, &outl, PT, 10);
    take_error(o);
    EVP_CIPHER_CTX_free(ctx);
}

/* update (arg 0) or final (arg 1) after a final: keystream reuse? */
static void r_after_final(const EVP_CIPHER *c, outcome *o, int arg)
{
    EVP_CIPHER_CTX *ctx = new_ctx(c, KEY, IV, 1);
    unsigned char first[64], again[64];
    int outl;

    EVP_EncryptUpdate(ctx, first, &outl, PT, 64);
    EVP_EncryptFinal_ex(ctx, first, &outl);
    memset(again, 0, sizeof(again));
    ERR_clear_error();
    if (arg)
        o->rc = EVP_EncryptFinal_ex(ctx, again, &outl);
    else
        o->rc = EVP_EncryptUpdate(ctx, again, &outl, PT, 64);
    take_error(o);
    if (!arg) {
        EVP_CIPHER_CTX *ref = new_ctx(c, KEY, IV, 1);

        EVP_EncryptUpdate(ref, first, &outl, PT, 64);
        o->released = memcmp(first, again, 64) == 0;
        snprintf(o->note, sizeof(o->note), "%s",
                 o->released ? "same keystream as the first message (reuse)"
                             : "no output");
        EVP_CIPHER_CTX_free(ref);
    }
    EVP_CIPHER_CTX_free(ctx);
}

/* AEAD without key (arg 0) or without IV (arg 1): does it encrypt? */
static void r_missing(const EVP_CIPHER *c, outcome *o, int arg)
{
    EVP_CIPHER_CTX *ctx = new_ctx(c, arg ? KEY : NULL, arg ? NULL : IV, 1);
    unsigned char out[64];
    int outl = -1;

    memset(out, 0, sizeof(out));
    ERR_clear_error();
    o->rc = EVP_EncryptUpdate(ctx, out, &outl, PT, 64);
    take_error(o);
    o->released = memcmp(out, PT, 64) != 0 && o->rc == 1;
    snprintf(o->note, sizeof(o->note), "outl %d", outl);
    EVP_CIPHER_CTX_free(ctx);
}

/* NULL buffers: arg 0 = NULL out, real in; arg 1 = real out, NULL in */
static void r_null_buf(const EVP_CIPHER *c, outcome *o, int arg)
{
    EVP_CIPHER_CTX *ctx = new_ctx(c, KEY, IV, 1);
    unsigned char out[64];
    int outl = -1;

    ERR_clear_error();
    if (arg == 0)
        o->rc = EVP_EncryptUpdate(ctx, NULL, &outl, PT, 64);
    else
        o->rc = EVP_EncryptUpdate(ctx, out, &outl, NULL, 64);
    take_error(o);
    snprintf(o->note, sizeof(o->note), "outl %d", outl);
    EVP_CIPHER_CTX_free(ctx);
}

/*
 * Lengths EVP cannot represent: arg 0 = inl -1 (EVP_EncryptUpdate takes an
 * int; EVP rejects it). arg 1 = inl INT_MAX and arg 2 = EVP_Cipher with
 * UINT_MAX, both with 64-byte buffers: EVP passes them through as the
 * output size too, so no provider can tell the buffer is short -- both the
 * default and ours read/write out of bounds (checked once, forked, see
 * docs/bad-input.md); these two are not in the table.
 */
static void r_huge(const EVP_CIPHER *c, outcome *o, int arg)
{
    EVP_CIPHER_CTX *ctx = new_ctx(c, KEY, IV, 1);
    unsigned char out[64], in[64] = { 0 };
    int outl = -1;

    ERR_clear_error();
    switch (arg) {
    case 0:
        o->rc = EVP_EncryptUpdate(ctx, out, &outl, in, -1);
        break;
    case 1:
        o->rc = EVP_EncryptUpdate(ctx, out, &outl, in, INT_MAX);
        break;
    default:
        o->rc = EVP_Cipher(ctx, out, in, UINT_MAX);
        break;
    }
    take_error(o);
    snprintf(o->note, sizeof(o->note), "outl %d", outl);
    EVP_CIPHER_CTX_free(ctx);
}

/* TLS 1.2 record: arg 0 = tampered tag, 1 = tampered ciphertext,
 * 2 = wrong length (record one byte short) */
static void r_tls(const EVP_CIPHER *c, outcome *o, int arg)
{
    EVP_CIPHER_CTX *e = new_ctx(c, KEY, IV, 1), *d = new_ctx(c, KEY, IV, 0);
    unsigned char aad[13] = { 0, 0, 0, 0, 0, 0, 0, 5, 23, 3, 3, 0, 0 };
    unsigned char rec[200 + TAGLEN];
    size_t plen = 200, i;
    int outl = -1;

    memcpy(rec, PT, plen);
    aad[11] = (unsigned char)(plen >> 8);
    aad[12] = (unsigned char)plen;
    EVP_CIPHER_CTX_ctrl(e, EVP_CTRL_AEAD_TLS1_AAD, 13, aad);
    EVP_EncryptUpdate(e, rec, &outl, rec, (int)(plen + TAGLEN));
    aad[12] = (unsigned char)(plen + TAGLEN);
    aad[11] = (unsigned char)((plen + TAGLEN) >> 8);
    EVP_CIPHER_CTX_ctrl(d, EVP_CTRL_AEAD_TLS1_AAD, 13, aad);
    if (arg == 0)
        rec[plen + 3] ^= 1;
    else if (arg == 1)
        rec[7] ^= 1;
    ERR_clear_error();
    o->rc = EVP_DecryptUpdate(d, rec, &outl, rec,
                              (int)(plen + TAGLEN - (arg == 2)));
    take_error(o);
    /* released: any plaintext byte in the output */
    for (i = 0; i < plen; i++)
        if (rec[i] == PT[i] && PT[i] != 0)
            o->released = 1;
    if (arg != 2) {
        int zeros = 1;

        for (i = 0; i < plen; i++)
            zeros &= rec[i] == 0;
        snprintf(o->note, sizeof(o->note), "payload %s, outl %d",
                 zeros ? "all zeros" : "NOT zeroed", outl);
        if (!zeros)
            o->released = 1;
    } else {
        snprintf(o->note, sizeof(o->note), "outl %d", outl);
    }
    EVP_CIPHER_CTX_free(e);
    EVP_CIPHER_CTX_free(d);
}

/* TLS record mode where there is none: arg 0 = tlsaad, 1 = tlsivfixed */
static void r_tls_refused(const EVP_CIPHER *c, outcome *o, int arg)
{
    EVP_CIPHER_CTX *ctx = new_ctx(c, KEY, IV, 1);
    unsigned char aad[13] = { 0, 0, 0, 0, 0, 0, 0, 5, 23, 3, 3, 0, 64 }, out[80];
    int outl = -1, rc;

    ERR_clear_error();
    o->rc = EVP_CIPHER_CTX_ctrl(ctx, arg ? EVP_CTRL_AEAD_SET_IV_FIXED : EVP_CTRL_AEAD_TLS1_AAD,
                                arg ? 12 : 13, aad);
    take_error(o);
    /* no record armed: the next update is plain text, not a record */
    memset(out, 0, sizeof(out));
    rc = EVP_EncryptUpdate(ctx, out, &outl, PT, 64);
    snprintf(o->note, sizeof(o->note), "update after: %d, outl %d", rc, outl);
    ERR_clear_error();
    EVP_CIPHER_CTX_free(ctx);
}

/* ChaCha20 counter words (arg 0: ffffffff,ffffffff; 1: fffffffe,ffffffff;
 * 2: ffffffff,00000000): 4 blocks; rc = bytes equal to the other provider */
static unsigned char wrap_out[2][256];
static void r_wrap(const EVP_CIPHER *c, outcome *o, int arg)
{
    unsigned char iv[16];
    EVP_CIPHER_CTX *ctx;
    int outl, which = c == ciphers[0][0] ? 0 : 1, i;
    static const uint32_t w[3][2] = {
        { 0xffffffff, 0xffffffff }, { 0xfffffffe, 0xffffffff }, { 0xffffffff, 0 }
    };

    memcpy(iv, IV, 16);
    for (i = 0; i < 4; i++) {
        iv[i] = (unsigned char)(w[arg][0] >> (8 * i));
        iv[4 + i] = (unsigned char)(w[arg][1] >> (8 * i));
    }
    ctx = new_ctx(c, KEY, iv, 1);
    ERR_clear_error();
    /* in two pieces: 100 bytes, then 156 (crosses the wrap mid-call) */
    o->rc = EVP_EncryptUpdate(ctx, wrap_out[which], &outl, PT, 100)
            && EVP_EncryptUpdate(ctx, wrap_out[which] + 100, &outl, PT + 100, 156);
    take_error(o);
    {
        unsigned char upd[16];

        if (EVP_CIPHER_CTX_get_updated_iv(ctx, upd, 16))
            snprintf(o->note, sizeof(o->note),
                     "counter after 4 blocks: %02x%02x%02x%02x %02x%02x%02x%02x",
                     upd[3], upd[2], upd[1], upd[0], upd[7], upd[6], upd[5], upd[4]);
    }
    EVP_CIPHER_CTX_free(ctx);
}

/* ---- white-box: a length no buffer can have, whatever libcrypto passes -- */

/*
 * libcrypto 3.0.19 hands EVP_EncryptUpdate(..., -1) down as inl = SIZE_MAX
 * (later 3.0.x and 3.5 reject it in EVP), so the EVP row above proves
 * nothing on those: call both ciphers' update and EVP_Cipher entries
 * directly with SIZE_MAX (as outsize too, as EVP does) and expect a refusal
 * with INVALID_INPUT_LENGTH, nothing written.
 */
static const OSSL_DISPATCH *dispatch_entry(const OSSL_DISPATCH *d, int id)
{
    for (; d->function_id != 0; d++)
        if (d->function_id == id)
            return d;
    return d;       /* the end marker: the accessors below then give NULL */
}

static void wb_huge(int *pass)
{
    const OSSL_DISPATCH *tables[NALG] = { chacha_chacha20_functions,
                                          wb_chacha20_poly1305_functions,
                                          chacha_xchacha20_functions,
                                          chacha_xchacha20_poly1305_functions };
    static const size_t ivlens[NALG] = { 16, 12, 32, 24 };
    static const int ids[2] = { OSSL_FUNC_CIPHER_UPDATE, OSSL_FUNC_CIPHER_CIPHER };
    enum chacha_select_status why;
    CHACHA_PROV_CTX pctx;
    unsigned char out[64], orig[64], in[64] = { 0 };
    int t, k;

    *pass = 1;
    memset(&pctx, 0, sizeof(pctx));
    pctx.core_new_error = wb_new_error;
    pctx.core_vset_error = wb_vset_error;
    pctx.chacha = chacha_select_chacha20(NULL, &why);
    pctx.poly = chacha_select_poly1305(NULL, &why);
    for (t = 0; t < NALG; t++) {
        OSSL_FUNC_cipher_newctx_fn *nw =
            OSSL_FUNC_cipher_newctx(dispatch_entry(tables[t], OSSL_FUNC_CIPHER_NEWCTX));
        OSSL_FUNC_cipher_encrypt_init_fn *ei = OSSL_FUNC_cipher_encrypt_init(
            dispatch_entry(tables[t], OSSL_FUNC_CIPHER_ENCRYPT_INIT));
        OSSL_FUNC_cipher_freectx_fn *fr =
            OSSL_FUNC_cipher_freectx(dispatch_entry(tables[t], OSSL_FUNC_CIPHER_FREECTX));

        for (k = 0; k < 2; k++) {
            const OSSL_DISPATCH *d = dispatch_entry(tables[t], ids[k]);
            OSSL_FUNC_cipher_update_fn *up = k ? OSSL_FUNC_cipher_cipher(d)
                                               : OSSL_FUNC_cipher_update(d);
            void *ctx = nw(&pctx);
            size_t outl = 7;
            unsigned long e;
            int rc;

            if (!TU_CHECK(ctx != NULL && ei(ctx, KEY, 32, IV, ivlens[t], NULL),
                          "white-box init for the SIZE_MAX check")) {
                *pass = 0;
                fr(ctx);
                continue;
            }
            memset(out, 0xa5, sizeof(out));
            memcpy(orig, out, sizeof(out));
            ERR_clear_error();
            rc = up(ctx, out, &outl, SIZE_MAX, in, SIZE_MAX);
            e = ERR_peek_last_error();
            if (!TU_CHECK(rc == 0 && ERR_GET_REASON(e) == PROV_R_INVALID_INPUT_LENGTH
                          && memcmp(out, orig, sizeof(out)) == 0,
                          "[%s %s] inl = SIZE_MAX: rc %d, reason %d (want 0, "
                          "INVALID_INPUT_LENGTH, nothing written)",
                          alg_name[t], k ? "cipher" : "update", rc, ERR_GET_REASON(e)))
                *pass = 0;
            ERR_clear_error();
            fr(ctx);
        }
    }
}

/* ---- white-box: the 2^38 - 64 byte limit of one AEAD nonce ------------- */

static void wb_limit(int *pass)
{
    const chacha20_kernel *const *ci;
    enum chacha_select_status why;
    CHACHA_PROV_CTX pctx;
    AEAD_CTX *ctx;
    unsigned char buf[200], orig[200];
    size_t outl = 0;
    int i;

    *pass = 1;
    for (ci = chacha20_kernels; *ci != NULL; ci++) {
        if (!chacha_caps_ok((*ci)->caps))
            continue;
        memset(&pctx, 0, sizeof(pctx));
        pctx.core_new_error = wb_new_error;
        pctx.core_vset_error = wb_vset_error;
        pctx.chacha = *ci;
        pctx.poly = chacha_select_poly1305(NULL, &why);
        ctx = aead_newctx(&pctx);
        if (!TU_CHECK(ctx != NULL && aead_einit(ctx, KEY, 32, IV, 12, NULL),
                      "white-box init (%s)", (*ci)->name)) {
            aead_freectx(ctx);
            *pass = 0;
            continue;
        }
        /* start a message, then move it to 64 bytes before the limit, with
         * the block counter where it would be: 0xffffffff, the last block */
        TU_CHECK(aead_update(ctx, buf, &outl, sizeof(buf), PT, 64) == 1,
                 "first 64 bytes");
        ctx->e.aead.text_len = CHACHA_AEAD_MAX_TEXT - 64;
        ctx->e.aead.cs.counter[0] = 0xffffffff;
        ctx->e.aead.cs.partial = 0;
        chacha20_stream_drop_keystream(&ctx->e.aead.cs);

        /* 65 bytes: one too many, refused whole, nothing written */
        memset(buf, 0xa5, sizeof(buf));
        memcpy(orig, buf, sizeof(buf));
        wb_last_reason = 0;
        i = aead_update(ctx, buf, &outl, sizeof(buf), PT, 65);
        if (!TU_CHECK(i == 0 && wb_last_reason == CHACHA_R_NONCE_EXHAUSTED
                      && memcmp(buf, orig, sizeof(buf)) == 0,
                      "[%s] 65 bytes at 2^38-128: rc %d reason %d (want 0, %d, "
                      "nothing written)", (*ci)->name, i, wb_last_reason,
                      CHACHA_R_NONCE_EXHAUSTED))
            *pass = 0;
        /* exactly up to the limit: allowed, uses block 0xffffffff */
        i = aead_update(ctx, buf, &outl, sizeof(buf), PT, 64);
        if (!TU_CHECK(i == 1 && outl == 64 && ctx->e.aead.text_len == CHACHA_AEAD_MAX_TEXT
                      && ctx->e.aead.cs.counter[0] == 0,
                      "[%s] the last 64 bytes: rc %d outl %zu counter %08x",
                      (*ci)->name, i, outl, ctx->e.aead.cs.counter[0]))
            *pass = 0;
        /* ... and they used block 0xffffffff of this nonce (default's ChaCha20) */
        {
            unsigned char iv16[16], ks[64];
            EVP_CIPHER_CTX *ref;
            int n, k, same = 1;

            memset(iv16, 0xff, 4);
            memcpy(iv16 + 4, IV, 12);
            ref = new_ctx(ciphers[1][0], KEY, iv16, 1);
            memset(ks, 0, sizeof(ks));
            EVP_EncryptUpdate(ref, ks, &n, ks, 64);
            EVP_CIPHER_CTX_free(ref);
            for (k = 0; k < 64; k++)
                same &= (buf[k] ^ PT[k]) == ks[k];
            if (!TU_CHECK(same, "[%s] the last block is not keystream block "
                          "0xffffffff of the nonce", (*ci)->name))
                *pass = 0;
        }
        /* one byte more: refused, nothing written */
        memset(buf, 0xa5, sizeof(buf));
        wb_last_reason = 0;
        i = aead_update(ctx, buf, &outl, sizeof(buf), PT, 1);
        if (!TU_CHECK(i == 0 && wb_last_reason == CHACHA_R_NONCE_EXHAUSTED
                      && buf[0] == 0xa5,
                      "[%s] 1 byte past 2^38-64: rc %d reason %d", (*ci)->name,
                      i, wb_last_reason))
            *pass = 0;
        /* the message can still be finished (tag over what was accepted) */
        TU_CHECK(aead_final(ctx, buf, &outl, 0) == 1, "[%s] final at the limit",
                 (*ci)->name);
        aead_freectx(ctx);
        printf("#   white-box [%s]: 65 bytes at 2^38-128 refused, the last 64"
               " accepted, 1 more refused: \"too much data for one nonce\"\n",
               (*ci)->name);
    }
}

/* ---- the table ---------------------------------------------------------- */

#define NOERR ""
static const row rows[] = {
    { "keylen-16", "keylen param 16", 0, r_keylen, 16, 0, 0, "invalid key length" },
    { "keylen-33", "keylen param 33", 1, r_keylen, 33, 0, 0, "invalid key length" },
    { "keylen-0", "keylen param 0", 1, r_keylen, 0, 0, 0, "invalid key length" },
    { "c20-ivlen-0", "ChaCha20 ivlen 0", 0, r_ivlen, 0, 0, 0, "invalid iv length" },
    { "c20-ivlen-8", "ChaCha20 ivlen 8", 0, r_ivlen, 8, 0, 0, "invalid iv length" },
    { "c20-ivlen-11", "ChaCha20 ivlen 11", 0, r_ivlen, 11, 0, 0, "invalid iv length" },
    { "c20-ivlen-12", "ChaCha20 ivlen 12", 0, r_ivlen, 12, 0, 0, "invalid iv length" },
    { "c20-ivlen-13", "ChaCha20 ivlen 13", 0, r_ivlen, 13, 0, 0, "invalid iv length" },
    { "c20-ivlen-24", "ChaCha20 ivlen 24", 0, r_ivlen, 24, 0, 0, "invalid iv length" },
    { "aead-ivlen-0", "AEAD ivlen 0", 1, r_ivlen, 0, 0, 0, "invalid iv length" },
    { "aead-ivlen-8", "AEAD ivlen 8", 1, r_ivlen, 8, 0, 0, "invalid iv length" },
    { "aead-ivlen-11", "AEAD ivlen 11", 1, r_ivlen, 11, 0, 0, "invalid iv length" },
    { "aead-ivlen-13", "AEAD ivlen 13", 1, r_ivlen, 13, 0, 0, "invalid iv length" },
    { "aead-ivlen-16", "AEAD ivlen 16", 1, r_ivlen, 16, 0, 0, "invalid iv length" },
    { "aead-ivlen-24", "AEAD ivlen 24", 1, r_ivlen, 24, 0, 0, "invalid iv length" },
    { "aead-init-ivlen-8", "AEAD init(key, iv, {ivlen 8})", 1, r_init_ivlen, 8, 0, 0, "invalid length" },
    { "set-tag-0", "SET_TAG length 0 (decrypt)", 1, r_tag, 100, 0, 0, "invalid tag length" },
    { "set-tag-17", "SET_TAG length 17 (decrypt)", 1, r_tag, 117, 0, 0, "invalid tag length" },
    { "get-tag-0", "GET_TAG length 0 (encrypt)", 1, r_tag, 1000, 0, 0, "invalid tag length" },
    { "get-tag-17", "GET_TAG length 17 (encrypt)", 1, r_tag, 1017, 0, 0, "invalid tag length" },
    { "set-tag-encrypt", "SET_TAG with a tag on encrypt", 1, r_tag, 16, 0, 0, "tag not needed" },
    { "get-tag-decrypt", "GET_TAG on decrypt", 1, r_tag, 1116, 0, 0, "tag not set" },
    { "final-no-tag", "decrypt Final, no tag ever set", 1, r_no_tag, 0, 0, 0, "tag not set" },
    { "cipher-no-tag", "decrypt EVP_Cipher(NULL,NULL,0), no tag", 1, r_no_tag, 1, 0, -1, "tag not set" },
    { "aad-after-data", "AAD update after text", 1, r_aad_after_data, 0, 0, 0, "invalid aad" },
    { "update-after-final", "text update after Final (same nonce)", 1, r_after_final, 0, 0, 0, "already finalised" },
    { "final-after-final", "second Final", 1, r_after_final, 1, 0, 0, "already finalised" },
    { "aead-no-key", "AEAD update, IV but no key", 1, r_missing, 0, 0, 0, "no key set" },
    { "aead-no-iv", "AEAD update, key but no IV", 1, r_missing, 1, 0, 0, "iv not set" },
    { "c20-null-out", "ChaCha20 update, NULL out, real in", 0, r_null_buf, 0, 1, 0, "cipher operation failed" },
    { "c20-null-in", "ChaCha20 update, real out, NULL in", 0, r_null_buf, 1, 1, 0, "cipher operation failed" },
    { "aead-null-in", "AEAD update, real out, NULL in", 1, r_null_buf, 1, 1, 0, "cipher operation failed" },
    { "c20-inl-neg", "ChaCha20 update inl = -1", 0, r_huge, 0, 1, 0, "" },
    { "aead-inl-neg", "AEAD update inl = -1", 1, r_huge, 0, 1, 0, "" },
    { "tls-bad-tag", "TLS 1.2 record, tag tampered", 1, r_tls, 0, 0, 0, NULL },
    { "tls-bad-ct", "TLS 1.2 record, ciphertext tampered", 1, r_tls, 1, 0, 0, NULL },
    { "tls-short", "TLS 1.2 record one byte short", 1, r_tls, 2, 0, 0, "bad tls record length" },
    { "c20-wrap-64", "ChaCha20 counter ffffffff:ffffffff, 4 blocks", 0, r_wrap, 0, 0, 1, NULL },
    { "c20-wrap-63", "ChaCha20 counter fffffffe:ffffffff, 4 blocks", 0, r_wrap, 1, 0, 1, NULL },
    { "c20-wrap-32", "ChaCha20 counter ffffffff:00000000, 4 blocks", 0, r_wrap, 2, 0, 1, NULL },
    /* XChaCha20-Poly1305: the AEAD rows again, a 24-byte nonce, no TLS mode */
    { "x-keylen-16", "keylen param 16", XAEAD, r_keylen, 16, 0, 0, "invalid key length" },
    { "x-ivlen-0", "XAEAD ivlen 0", XAEAD, r_ivlen, 0, 0, 0, "invalid iv length" },
    { "x-ivlen-12", "XAEAD ivlen 12", XAEAD, r_ivlen, 12, 0, 0, "invalid iv length" },
    { "x-ivlen-16", "XAEAD ivlen 16", XAEAD, r_ivlen, 16, 0, 0, "invalid iv length" },
    { "x-ivlen-23", "XAEAD ivlen 23", XAEAD, r_ivlen, 23, 0, 0, "invalid iv length" },
    { "x-ivlen-25", "XAEAD ivlen 25", XAEAD, r_ivlen, 25, 0, 0, "invalid iv length" },
    { "x-ivlen-32", "XAEAD ivlen 32", XAEAD, r_ivlen, 32, 0, 0, "invalid iv length" },
    { "x-init-ivlen-12", "XAEAD init(key, iv, {ivlen 12})", XAEAD, r_init_ivlen, 12, 0, 0, "invalid length" },
    { "x-set-tag-0", "SET_TAG length 0 (decrypt)", XAEAD, r_tag, 100, 0, 0, "invalid tag length" },
    { "x-set-tag-17", "SET_TAG length 17 (decrypt)", XAEAD, r_tag, 117, 0, 0, "invalid tag length" },
    { "x-get-tag-17", "GET_TAG length 17 (encrypt)", XAEAD, r_tag, 1017, 0, 0, "invalid tag length" },
    { "x-set-tag-encrypt", "SET_TAG with a tag on encrypt", XAEAD, r_tag, 16, 0, 0, "tag not needed" },
    { "x-get-tag-decrypt", "GET_TAG on decrypt", XAEAD, r_tag, 1116, 0, 0, "tag not set" },
    { "x-final-no-tag", "decrypt Final, no tag ever set", XAEAD, r_no_tag, 0, 0, 0, "tag not set" },
    { "x-cipher-no-tag", "decrypt EVP_Cipher(NULL,NULL,0), no tag", XAEAD, r_no_tag, 1, 0, -1, "tag not set" },
    { "x-aad-after-data", "AAD update after text", XAEAD, r_aad_after_data, 0, 0, 0, "invalid aad" },
    { "x-update-after-final", "text update after Final (same nonce)", XAEAD, r_after_final, 0, 0, 0, "already finalised" },
    { "x-final-after-final", "second Final", XAEAD, r_after_final, 1, 0, 0, "already finalised" },
    { "x-no-key", "XAEAD update, nonce but no key", XAEAD, r_missing, 0, 0, 0, "no key set" },
    { "x-no-iv", "XAEAD update, key but no nonce", XAEAD, r_missing, 1, 0, 0, "iv not set" },
    { "x-null-in", "XAEAD update, real out, NULL in", XAEAD, r_null_buf, 1, 1, 0, "cipher operation failed" },
    { "x-inl-neg", "XAEAD update inl = -1", XAEAD, r_huge, 0, 1, 0, "" },
    { "x-tlsaad", "TLS1_AAD ctrl (tlsaad)", XAEAD, r_tls_refused, 0, 0, 0, "no TLS record mode" },
    { "x-tlsivfixed", "SET_IV_FIXED ctrl (tlsivfixed)", XAEAD, r_tls_refused, 1, 0, 0, "no TLS record mode" },
    /* XChaCha20: a 32-byte IV (24-byte nonce || 64-bit counter), both needed */
    { "xc20-keylen-16", "keylen param 16", XC20, r_keylen, 16, 0, 0, "invalid key length" },
    { "xc20-ivlen-16", "XChaCha20 ivlen 16", XC20, r_ivlen, 16, 0, 0, "invalid iv length" },
    { "xc20-ivlen-24", "XChaCha20 ivlen 24", XC20, r_ivlen, 24, 0, 0, "invalid iv length" },
    { "xc20-ivlen-31", "XChaCha20 ivlen 31", XC20, r_ivlen, 31, 0, 0, "invalid iv length" },
    { "xc20-ivlen-33", "XChaCha20 ivlen 33", XC20, r_ivlen, 33, 0, 0, "invalid iv length" },
    { "xc20-no-key", "XChaCha20 update, IV but no key", XC20, r_missing, 0, 0, 0, "no key set" },
    { "xc20-no-iv", "XChaCha20 update, key but no IV", XC20, r_missing, 1, 0, 0, "iv not set" },
    { "xc20-null-out", "XChaCha20 update, NULL out, real in", XC20, r_null_buf, 0, 1, 0, "cipher operation failed" },
    { "xc20-null-in", "XChaCha20 update, real out, NULL in", XC20, r_null_buf, 1, 1, 0, "cipher operation failed" },
    { "xc20-inl-neg", "XChaCha20 update inl = -1", XC20, r_huge, 0, 1, 0, "" },
};

/* Runs fn, in a child when forked (a crash becomes o->crashed). */
static void run_one(const row *r, int which, outcome *o)
{
    const EVP_CIPHER *c = ciphers[which][r->aead];
    int fds[2], status;
    pid_t pid;

    memset(o, 0, sizeof(*o));
    if (c == NULL) {           /* the default provider has no XChaCha */
        o->rc = -99;
        return;
    }
    if (!r->forked) {
        r->fn(c, o, r->arg);
        return;
    }
    fflush(stdout);
    if (pipe(fds) != 0) {
        o->crashed = -1;
        return;
    }
    pid = fork();
    if (pid == 0) {
        close(fds[0]);
        alarm(20);
        r->fn(c, o, r->arg);
        if (write(fds[1], o, sizeof(*o)) != (ssize_t)sizeof(*o))
            _exit(3);
        _exit(0);
    }
    close(fds[1]);
    if (pid < 0 || read(fds[0], o, sizeof(*o)) != (ssize_t)sizeof(*o))
        memset(o, 0, sizeof(*o));
    close(fds[0]);
    if (pid > 0 && waitpid(pid, &status, 0) == pid) {
        if (WIFSIGNALED(status))
            o->crashed = WTERMSIG(status);
        else if (WEXITSTATUS(status) != 0)
            o->crashed = 1000 + WEXITSTATUS(status);   /* e.g. ASan report */
    }
}

static void describe(const char *who, const outcome *o)
{
    if (o->rc == -99 && !o->crashed)
        printf("#     %-8s (no such cipher)\n", who);
    else if (o->crashed)
        printf("#     %-8s CRASH (%s %d)\n", who,
               o->crashed >= 1000 ? "exit" : "signal",
               o->crashed >= 1000 ? o->crashed - 1000 : o->crashed);
    else
        printf("#     %-8s rc %d%s%s%s%s%s\n", who, o->rc,
               o->err[0] ? ", error: " : ", no error", o->err,
               o->note[0] ? "; " : "", o->note,
               o->released ? "; RELEASED DATA" : "");
}

int main(int argc, char **argv)
{
    size_t i;
    int wb;

    (void)argc;
    (void)argv;
    for (i = 0; i < sizeof(PT); i++)
        PT[i] = (unsigned char)(i * 31 + 7);
    if (!tu_init("test_bad_input"))
        return tu_finish();
    for (i = 0; i < NALG; i++)
        if ((ciphers[0][i] = tu_fetch_ours(alg_name[i])) == NULL)
            return tu_finish();
    ciphers[1][C20] = tu_fetch_default("ChaCha20");
    ciphers[1][AEAD] = tu_fetch_default("ChaCha20-Poly1305");
    if (ciphers[1][C20] == NULL || ciphers[1][AEAD] == NULL)
        return tu_finish();

    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        const row *r = &rows[i];
        outcome ours, dflt;
        int ok;

        run_one(r, 0, &ours);
        run_one(r, 1, &dflt);
        printf("# [%s] %s (%s)\n", r->id, r->input, alg_name[r->aead]);
        describe("default:", &dflt);
        describe("ours:", &ours);
        if (r->fn == r_wrap) {
            ok = TU_CHECK(ours.rc == 1 && dflt.rc == 1
                          && memcmp(wrap_out[0], wrap_out[1], 256) == 0,
                          "[%s] keystream across the counter wrap differs from "
                          "the default provider", r->id);
            continue;
        }
        ok = TU_CHECK(ours.crashed == 0, "[%s] ours crashed", r->id);
        ok = ok && TU_CHECK(ours.rc == r->want_rc, "[%s] ours rc %d, want %d",
                            r->id, ours.rc, r->want_rc);
        if (ok && r->want_err == NULL)
            TU_CHECK(ours.err[0] == '\0', "[%s] ours queued \"%s\", want none",
                     r->id, ours.err);
        else if (ok && r->want_err[0] != '\0')
            TU_CHECK(strstr(ours.err, r->want_err) != NULL,
                     "[%s] ours error \"%s\", want \"%s\"", r->id, ours.err,
                     r->want_err);
        else if (ok)
            TU_CHECK(ours.err[0] != '\0', "[%s] ours failed without an error",
                     r->id);
        TU_CHECK(!ours.released, "[%s] ours released data", r->id);
    }

    printf("# [nonce-limit] more than 2^38-64 bytes under one AEAD nonce "
           "(white-box: 256 GiB cannot go through EVP in a test)\n");
    wb_limit(&wb);
    TU_CHECK(wb, "nonce limit");
    wb_huge(&wb);
    TU_CHECK(wb, "SIZE_MAX lengths refused by both ciphers' update and cipher");
    return tu_finish();
}
