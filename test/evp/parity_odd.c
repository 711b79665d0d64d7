/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_parity: odd but legal sequences, and the fail-closed deviations.
 */
#include "parity.h"

/* ------------------------------------------------------------------------ */
/* Fail-closed deviations: ours checked exactly, the default only shown      */

static void seq_fc_no_key(const EVP_CIPHER *c, const void *arg)
{
    EVP_CIPHER_CTX *ctx = s_new();
    int enc = *(const int *)arg;
    unsigned char out[64] = { 0 };

    s_init(ctx, c, NULL, N12, enc, "iv only, no key");
    if (!enc)
        s_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, TAGLEN, STD_TAG, "SET_TAG");
    s_upd(ctx, NULL, AAD, 16, 0, "aad without key");
    want_ours_rc(0, PROV_R_NO_KEY_SET);
    s_upd(ctx, out, PT, 64, 0, "text without key");
    want_ours_rc(0, PROV_R_NO_KEY_SET);
    s_final(ctx, "without key");
    want_ours_rc(0, PROV_R_NO_KEY_SET);
    s_cipher(ctx, NULL, NULL, 0, "EVP_Cipher finalise without key");
    want_ours_rc(-1, PROV_R_NO_KEY_SET);
    EVP_CIPHER_CTX_free(ctx);
    /* a fresh ctx with nothing at all */
    ctx = s_new();
    s_init(ctx, c, NULL, NULL, enc, "nothing");
    s_final(ctx, "nothing set");
    want_ours_rc(0, PROV_R_NO_KEY_SET);
    EVP_CIPHER_CTX_free(ctx);
}

static void seq_fc_no_iv(const EVP_CIPHER *c, const void *arg)
{
    EVP_CIPHER_CTX *ctx = s_new();
    int enc = *(const int *)arg;
    unsigned char out[64] = { 0 };

    s_init(ctx, c, KEY1, NULL, enc, "key only, no iv");
    if (!enc)
        s_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, TAGLEN, STD_TAG, "SET_TAG");
    s_upd(ctx, NULL, AAD, 16, 0, "aad without iv");
    want_ours_rc(0, -1);
    want_ours_err_text("iv not set");
    s_upd(ctx, out, PT, 64, 0, "text without iv");
    want_ours_rc(0, -1);
    want_ours_err_text("iv not set");
    s_final(ctx, "without iv");
    want_ours_rc(0, -1);
    want_ours_err_text("iv not set");
    /* setting the IV then makes it work */
    s_init(ctx, NULL, NULL, N12, -1, "iv");
    s_upd(ctx, NULL, AAD, STD_AAD, 0, "aad after iv");
    want_ours_rc(1, 0);
    s_upd(ctx, out, enc ? PT : STD_CT, 64, 0, "text after iv");
    want_ours_rc(1, 0);
    EVP_CIPHER_CTX_free(ctx);
}

static void seq_fc_no_tag(const EVP_CIPHER *c, const void *arg)
{
    EVP_CIPHER_CTX *ctx = s_new();
    unsigned char out[STD_LEN] = { 0 };
    int api = *(const int *)arg;

    s_init(ctx, c, KEY1, N12, 0, "decrypt, no tag ever set");
    s_upd(ctx, NULL, AAD, 3, 0, "wrong aad");
    s_upd(ctx, out, STD_CT, STD_LEN, 0, "ciphertext");
    if (api) {
        s_cipher(ctx, NULL, NULL, 0, "finalise without tag");
        want_ours_rc(-1, PROV_R_TAG_NOT_SET);
    } else {
        s_final(ctx, "without tag");
        want_ours_rc(0, PROV_R_TAG_NOT_SET);
    }
    /* empty message, no tag */
    s_init(ctx, NULL, NULL, N12, -1, "new iv");
    s_final(ctx, "empty message without tag");
    want_ours_rc(0, PROV_R_TAG_NOT_SET);
    EVP_CIPHER_CTX_free(ctx);
}

static void seq_fc_aad_after_text(const EVP_CIPHER *c, const void *arg)
{
    EVP_CIPHER_CTX *ctx = s_new();
    unsigned char out[64] = { 0 };
    int api = *(const int *)arg;

    s_init(ctx, c, KEY1, N12, 1, "encrypt");
    s_upd(ctx, NULL, AAD, 10, 0, "aad");
    s_upd(ctx, out, PT, 20, 0, "text");
    if (api) {
        s_cipher(ctx, NULL, AAD, 10, "EVP_Cipher aad after text");
        want_ours_rc(-1, PROV_R_INVALID_AAD);
    } else {
        s_upd(ctx, NULL, AAD, 10, 0, "aad after text");
        want_ours_rc(0, PROV_R_INVALID_AAD);
    }
    EVP_CIPHER_CTX_free(ctx);
}

/* AAD updates while a TLS 1.2 record is pending are refused. */
static void seq_fc_tls_extra_aad(const EVP_CIPHER *c, const void *arg)
{
    EVP_CIPHER_CTX *ctx = s_new();
    unsigned char aad[TLS_AAD_LEN];

    (void)arg;
    s_init(ctx, c, KEY2, N12B, 1, "encrypt");
    tls_aad(aad, 7, 100);
    s_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, TLS_AAD_LEN, aad, "tlsaad len 100");
    s_upd(ctx, NULL, AAD, 5, 0, "extra aad");
    want_ours_rc(0, PROV_R_INVALID_AAD);
    EVP_CIPHER_CTX_free(ctx);
}

static void seq_fc_after_final(const EVP_CIPHER *c, const void *arg)
{
    EVP_CIPHER_CTX *ctx = s_new();
    unsigned char out[STD_LEN] = { 0 }, aad[TLS_AAD_LEN];
    int enc = *(const int *)arg;

    s_init(ctx, c, KEY1, N12, enc, "key+iv");
    if (!enc)
        s_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, TAGLEN, STD_TAG, "SET_TAG");
    s_upd(ctx, NULL, AAD, STD_AAD, 0, "aad");
    s_upd(ctx, out, enc ? PT : STD_CT, 64, 0, "text");
    s_init(ctx, NULL, NULL, N12, -1, "restart (same iv)");
    s_upd(ctx, NULL, AAD, STD_AAD, 0, "aad");
    s_upd(ctx, out, enc ? PT : STD_CT, STD_LEN, 0, "text");
    s_final(ctx, "first");
    want_ours_rc(1, 0);
    s_upd(ctx, NULL, AAD, 4, 0, "aad after final");
    want_ours_rc(0, -1);
    want_ours_err_text("already finalised");
    s_upd(ctx, out, PT, 8, 0, "text after final");
    want_ours_rc(0, -1);
    want_ours_err_text("already finalised");
    s_final(ctx, "second final");
    want_ours_rc(0, -1);
    want_ours_err_text("already finalised");
    s_cipher(ctx, NULL, NULL, 0, "EVP_Cipher finalise after final");
    want_ours_rc(-1, -1);
    want_ours_err_text("already finalised");
    /* a key-only re-init, a new IV or tlsaad each start a new message */
    s_init(ctx, NULL, KEY2, NULL, -1, "key only");
    s_upd(ctx, out, PT, 8, 0, "text after key-only re-init");
    want_ours_rc(1, 0);
    s_final(ctx, "after key-only re-init");
    s_init(ctx, NULL, NULL, N12B, -1, "new iv");
    s_upd(ctx, out, PT, 8, 0, "text after new iv");
    want_ours_rc(1, 0);
    s_final(ctx, "after new iv");
    if (enc) {
        tls_aad(aad, 9, 8);
        s_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, TLS_AAD_LEN, aad, "tlsaad");
        want_ours_rc(16, 0);
        memcpy(out, PT, 24);
        s_upd(ctx, out, out, 24, 0, "tls record after final");
        want_ours_rc(1, 0);
    }
    EVP_CIPHER_CTX_free(ctx);
}

/* ChaCha20 "updated-iv": ours = the advanced counter || nonce */
static void seq_fc_c20_updated_iv(const EVP_CIPHER *c, const void *arg)
{
    const uint32_t *w = arg;   /* starting counter words 0 and 1 */
    static const size_t steps[] = { 0, 1, 63, 1, 64, 100, 7, 1000 };
    EVP_CIPHER_CTX *ctx = s_new();
    unsigned char iv[16], got[16], want[16], out[1000];
    uint64_t total = 0;
    size_t i;

    memcpy(iv, IV16, 16);
    store_le32(iv, w[0]);
    store_le32(iv + 4, w[1]);
    s_init(ctx, c, KEY1, iv, 1, "key+iv");
    for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        uint64_t blocks, ctr;

        s_upd(ctx, out, PT, steps[i], 0, "step");
        total += steps[i];
        blocks = (total + 63) / 64;
        ctr = (uint64_t)w[0] + blocks;
        memcpy(want, iv, 16);
        store_le32(want, (uint32_t)ctr);
        store_le32(want + 4, w[1] + (uint32_t)(ctr >> 32));
        memset(got, 0xcc, sizeof(got));
        r_rc(EVP_CIPHER_CTX_get_updated_iv(ctx, got, sizeof(got)),
             "get_updated_iv after %" PRIu64 " bytes", total);
        want_ours_rc(1, 0);
        r_int(memcmp(got, want, 16) == 0, "updated-iv == counter+%" PRIu64
              "||nonce", blocks);
        want_ours_int(1);
        memset(got, 0xcc, sizeof(got));
        r_rc(EVP_CIPHER_CTX_get_original_iv(ctx, got, sizeof(got)),
             "get_original_iv");
        r_int(memcmp(got, iv, 16) == 0, "original iv");
        want_ours_int(1);
    }
    EVP_CIPHER_CTX_free(ctx);
}

/*
 * "iv" (both ciphers) and "updated-iv" (AEAD): ours answers with the IV as
 * set; the 3.0 default answers 1 and leaves the buffer untouched.
 */
static void seq_iv_gets(const EVP_CIPHER *c, const void *arg)
{
    int aead = *(const int *)arg;
    size_t ivlen = aead ? 12 : 16;
    const unsigned char *iv = aead ? N12 : IV16;
    EVP_CIPHER_CTX *ctx = s_new();
    unsigned char got[16], out[64] = { 0 };

    s_init(ctx, c, KEY1, iv, 1, "key+iv");
    s_upd(ctx, out, PT, 64, 0, "text");
    memset(got, 0xcc, sizeof(got));
    r_rc(EVP_CIPHER_CTX_get_original_iv(ctx, got, ivlen), "get_original_iv");
    want_ours_rc(1, 0);
    r_int(memcmp(got, iv, ivlen) == 0, "original iv == iv");
    want_ours_int(1);
    if (aead) {
        memset(got, 0xcc, sizeof(got));
        r_rc(EVP_CIPHER_CTX_get_updated_iv(ctx, got, ivlen), "get_updated_iv");
        want_ours_rc(1, 0);
        r_int(memcmp(got, iv, ivlen) == 0, "updated iv == iv");
        want_ours_int(1);
    }
    EVP_CIPHER_CTX_free(ctx);
}

/* ------------------------------------------------------------------------ */
/* Odd but legal sequences                                                   */

/* ChaCha20 without a key or without an IV */
static void seq_c20_missing(const EVP_CIPHER *c, const void *arg)
{
    EVP_CIPHER_CTX *ctx = s_new();
    unsigned char out[100] = { 0 };

    (void)arg;
    s_init(ctx, c, NULL, IV16, 1, "iv only");
    s_upd(ctx, out, PT, 100, 0, "no key");
    s_final(ctx, "no key");
    s_cipher(ctx, out, PT, 100, "EVP_Cipher no key");
    EVP_CIPHER_CTX_free(ctx);
    ctx = s_new();
    s_init(ctx, c, KEY1, NULL, 1, "key only (no iv ever)");
    s_upd(ctx, out, PT, 100, 0, "no iv");
    s_final(ctx, "no iv");
    EVP_CIPHER_CTX_free(ctx);
}

/* copies of fresh, keyed and finalised contexts; NULL/0 updates */
static void seq_copies(const EVP_CIPHER *c, const void *arg)
{
    int aead = *(const int *)arg;
    EVP_CIPHER_CTX *ctx = s_new(), *d1 = s_new(), *d2 = s_new(), *d3 = s_new();
    const unsigned char *iv = aead ? N12 : IV16;
    unsigned char out[200] = { 0 };
    int outl = -1;

    s_init(ctx, c, NULL, NULL, 1, "cipher only");
    r_rc(EVP_CIPHER_CTX_copy(d1, ctx), "copy of an unkeyed ctx");
    s_init(d1, NULL, KEY1, iv, -1, "copy: key+iv");
    s_upd(d1, out, PT, 150, 0, "copy");
    s_init(ctx, NULL, KEY1, iv, -1, "key+iv");
    r_rc(EVP_CIPHER_CTX_copy(d2, ctx), "copy of a keyed ctx");
    s_upd(d2, out, PT, 150, 0, "copy 2");
    s_final(d2, "copy 2");
    if (aead)
        s_get_tag(d2, TAGLEN, "copy 2");
    r_rc(EVP_CIPHER_CTX_copy(d3, d2), "copy of a finalised ctx");
    s_init(d3, NULL, NULL, aead ? N12B : IV16B, -1, "copy 3: new iv");
    s_upd(d3, out, PT, 150, 0, "copy 3");
    s_final(d3, "copy 3");
    if (aead)
        s_get_tag(d3, TAGLEN, "copy 3");
    r_rc(EVP_CipherUpdate(ctx, NULL, &outl, NULL, 0), "update(NULL, NULL, 0)");
    r_int(outl, "outl");
    r_rc(EVP_CipherUpdate(ctx, out, &outl, NULL, 0), "update(out, NULL, 0)");
    r_int(outl, "outl");
    s_upd(ctx, out, PT, 150, 0, "orig");
    s_final(ctx, "orig");
    if (aead)
        s_get_tag(ctx, TAGLEN, "orig");
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_CTX_free(d1);
    EVP_CIPHER_CTX_free(d2);
    EVP_CIPHER_CTX_free(d3);
}

/* GET_TAG before any final, and of the previous message mid-message */
static void seq_aead_early_get_tag(const EVP_CIPHER *c, const void *arg)
{
    EVP_CIPHER_CTX *ctx = s_new();
    unsigned char out[200] = { 0 };

    (void)arg;
    s_init(ctx, c, KEY1, N12, 1, "key+iv");
    s_get_tag(ctx, TAGLEN, "before anything");
    s_upd(ctx, out, PT, 100, 0, "text");
    s_final(ctx, "first");
    s_get_tag(ctx, TAGLEN, "first");
    s_init(ctx, NULL, NULL, N12B, -1, "new iv");
    s_upd(ctx, out, PT, 50, 0, "text 2");
    s_get_tag(ctx, TAGLEN, "mid second message");
    s_final(ctx, "second");
    s_get_tag(ctx, TAGLEN, "second");
    EVP_CIPHER_CTX_free(ctx);
}

/* TLS record mode used unusually */
void seq_tls_odd(const EVP_CIPHER *c, const void *arg)
{
    EVP_CIPHER_CTX *e = s_new(), *d = NULL;
    unsigned char aad[TLS_AAD_LEN], buf[200] = { 0 }, buf2[200] = { 0 };
    int which = *(const int *)arg;

    s_init(e, c, KEY2, N12B, 1, "encrypt");
    tls_aad(aad, 7, 100);
    s_ctrl(e, EVP_CTRL_AEAD_TLS1_AAD, TLS_AAD_LEN, aad, "tlsaad len 100");
    memcpy(buf, PT, 116);
    switch (which) {
    case 0:                    /* dup between tlsaad and the record */
        d = s_new();
        r_rc(EVP_CIPHER_CTX_copy(d, e), "copy after tlsaad");
        memcpy(buf2, PT, 116);
        s_upd(e, buf, buf, 116, 0, "record");
        s_upd(d, buf2, buf2, 116, 0, "record in copy");
        r_int(memcmp(buf, buf2, 116) == 0, "copy's record equal");
        want_int(1);
        break;
    case 1:                    /* tlsaad then Final, no record */
        s_final(e, "after tlsaad");
        s_get_tag(e, TAGLEN, "after tlsaad");
        break;
    case 2:                    /* tlsaad, extra AAD: a deviation, see below */
        break;
    case 3:                    /* tlsaad, then a new iv, then a message */
        s_init(e, NULL, NULL, N12, -1, "new iv");
        s_upd(e, buf, PT, 116, 0, "message");
        s_final(e, "message");
        s_get_tag(e, TAGLEN, "message");
        break;
    default:                   /* two tlsaad in a row, one record */
        tls_aad(aad, 8, 100);
        s_ctrl(e, EVP_CTRL_AEAD_TLS1_AAD, TLS_AAD_LEN, aad, "tlsaad again");
        s_upd(e, buf, buf, 116, 0, "record");
        break;
    }
    EVP_CIPHER_CTX_free(e);
    EVP_CIPHER_CTX_free(d);
}


/* Odd but legal sequences */
void cases_odd(void)
{
    int zero = 0, one = 1;

    parity("ChaCha20 without key / iv", 0, seq_c20_missing, NULL, 1, NULL);
    parity("copies ChaCha20", 0, seq_copies, &zero, 1, NULL);
    parity("copies ChaCha20-Poly1305", 1, seq_copies, &one, 1, NULL);
    parity("AEAD GET_TAG early", 1, seq_aead_early_get_tag, NULL, 1, NULL);
}

/* Fail-closed deviations */
void cases_deviations(void)
{
    static const uint32_t uiv[][2] = {
        { 0, 0 }, { 1, 9 }, { 0xfffffffeu, 3 }, { 0xffffffffu, 0xffffffffu }
    };
    int zero = 0, one = 1, i;
    char name[96];

    deviation("no key: encrypt", 1, seq_fc_no_key, &one);
    deviation("no key: decrypt", 1, seq_fc_no_key, &zero);
    deviation("key, no iv: encrypt", 1, seq_fc_no_iv, &one);
    deviation("key, no iv: decrypt", 1, seq_fc_no_iv, &zero);
    deviation("decrypt, no tag: Final", 1, seq_fc_no_tag, &zero);
    deviation("decrypt, no tag: EVP_Cipher", 1, seq_fc_no_tag, &one);
    deviation("aad after text: Update", 1, seq_fc_aad_after_text, &zero);
    deviation("aad after text: EVP_Cipher", 1, seq_fc_aad_after_text, &one);
    deviation("tlsaad then extra aad", 1, seq_fc_tls_extra_aad, NULL);
    deviation("after final: encrypt", 1, seq_fc_after_final, &one);
    deviation("after final: decrypt", 1, seq_fc_after_final, &zero);
    for (i = 0; i < 4; i++) {
        snprintf(name, sizeof(name), "ChaCha20 updated-iv from %08x:%08x",
                 uiv[i][0], uiv[i][1]);
        deviation(name, 0, seq_fc_c20_updated_iv, uiv[i]);
    }
    deviation("ChaCha20 get_original_iv", 0, seq_iv_gets, &zero);
    deviation("AEAD get_original_iv / get_updated_iv", 1, seq_iv_gets, &one);
}
