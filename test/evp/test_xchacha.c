/* SPDX-License-Identifier: Apache-2.0 */
/*
 * XChaCha20 and XChaCha20-Poly1305 through EVP on the "chacha" provider:
 *  - the vectors of draft-irtf-cfrg-xchacha-03 (test/vectors/
 *    xchacha_vectors.json): the AEAD (A.1) and the stream (A.2.1, A.2.2:
 *    keystream and ciphertext), one shot, chunked, in place, EVP_Cipher;
 *  - HChaCha20 (2.2.1) seen through EVP: with the vector's key and first 16
 *    nonce bytes, our XChaCha20 and XChaCha20-Poly1305 must equal OpenSSL's
 *    default ChaCha20 / ChaCha20-Poly1305 keyed with the vector's subkey
 *    (nonce 0^4 || last 8 bytes), for random last 8 bytes, counters (the
 *    stream's 64-bit counter across 2^32 and 2^64), AAD and lengths;
 *  - the EVP contract: names, flags, lengths (ivlen 24 / 32 only, keylen
 *    32), no TLS record mode ("tlsaad", "tlsivfixed" refused), dupctx
 *    mid-message, key and IV in separate inits, fail-closed rules (no key,
 *    no IV, no tag, reuse after Final), updated-iv, re-key mid-stream.
 * Runs once per kernel (test/lib/run-kernels). The independent differential
 * with random keys is test_sodium (libsodium).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "testutil.h"
#include "testrng.h"

static EVP_CIPHER *xaead, *xc20, *ref_aead, *ref_c20;

/* draft 2.2.1: HChaCha20(key 00..1f, nonce16) = subkey */
static const unsigned char KEY221[32] = {
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b,
    0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
    0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f
};
static unsigned char nonce221[16], subkey221[32];

#define MAXLEN 2048
static unsigned char pt[MAXLEN], ct[MAXLEN + 16], buf[MAXLEN + 16], aadbuf[300];

/* ---- helpers ------------------------------------------------------------ */

/* Seal (enc) or open in one shot; open checks tag. Returns 1 on success. */
static int aead_oneshot(const EVP_CIPHER *c, int enc, const unsigned char *key,
                        const unsigned char *iv, const unsigned char *aad,
                        size_t alen, const unsigned char *in, size_t len,
                        unsigned char *out, unsigned char tag[16])
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int outl = 0, fl = 0, ok;

    ok = ctx != NULL && EVP_CipherInit_ex2(ctx, c, key, iv, enc, NULL)
         && (enc || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag) > 0)
         && (alen == 0 || EVP_CipherUpdate(ctx, NULL, &outl, aad, (int)alen))
         && (len == 0 || (EVP_CipherUpdate(ctx, out, &outl, in, (int)len)
                          && (size_t)outl == len))
         && EVP_CipherFinal_ex(ctx, out + len, &fl) && fl == 0
         && (!enc || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag) > 0);
    EVP_CIPHER_CTX_free(ctx);
    return ok;
}

/* Stream cipher, in random chunks, in place when inplace. */
static int stream_chunked(const EVP_CIPHER *c, const unsigned char *key,
                          const unsigned char *iv, const unsigned char *in,
                          size_t len, unsigned char *out, int inplace)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    size_t done = 0;
    int ok, outl;

    if (inplace && len > 0)
        memmove(out, in, len);
    ok = ctx != NULL && EVP_EncryptInit_ex2(ctx, c, key, iv, NULL);
    while (ok && done < len) {
        size_t n = 1 + (size_t)(rng() % (rng() & 1 ? 7 : 200));

        if (n > len - done)
            n = len - done;
        ok = EVP_EncryptUpdate(ctx, out + done, &outl, inplace ? out + done : in + done,
                               (int)n) && (size_t)outl == n;
        done += n;
    }
    ok = ok && EVP_EncryptFinal_ex(ctx, out + len, &outl) && outl == 0;
    EVP_CIPHER_CTX_free(ctx);
    return ok;
}

static unsigned char *hexf(const tj_value *v, const char *k, size_t *len)
{
    const char *s = tj_str(v, k);
    unsigned char *b = s != NULL ? tu_hex_decode(s, len) : NULL;

    TU_CHECK(b != NULL, "%s: field %s", tj_str(v, "id") ? tj_str(v, "id") : "?", k);
    return b;
}

/* ---- the draft's vectors ----------------------------------------------- */

static void draft_aead(const tj_value *v)
{
    size_t klen, nlen, alen, plen, clen, tlen;
    unsigned char *key = hexf(v, "key", &klen), *nonce = hexf(v, "nonce", &nlen);
    unsigned char *aad = hexf(v, "aad", &alen), *p = hexf(v, "plaintext", &plen);
    unsigned char *c = hexf(v, "ciphertext", &clen), *tag = hexf(v, "tag", &tlen);
    const char *id = tj_str(v, "id");
    unsigned char t[16];
    EVP_CIPHER_CTX *ctx;
    int outl, r;

    if (key == NULL || nonce == NULL || aad == NULL || p == NULL || c == NULL || tag == NULL
        || !TU_CHECK(klen == 32 && nlen == 24 && tlen == 16 && plen == clen
                     && plen <= MAXLEN, "%s: sizes", id))
        goto end;
    TU_CHECK(aead_oneshot(xaead, 1, key, nonce, aad, alen, p, plen, buf, t), "%s: seal", id);
    TU_MEM_EQ(buf, plen, c, clen, "draft A.1 ciphertext");
    TU_MEM_EQ(t, 16, tag, 16, "draft A.1 tag");
    memcpy(t, tag, 16);
    memcpy(buf, c, clen);      /* open in place */
    TU_CHECK(aead_oneshot(xaead, 0, key, nonce, aad, alen, buf, clen, buf, t)
             && memcmp(buf, p, plen) == 0, "%s: open in place", id);
    t[15] ^= 0x80;
    TU_CHECK(!aead_oneshot(xaead, 0, key, nonce, aad, alen, c, clen, buf, t),
             "%s: a tampered tag opens", id);
    ERR_clear_error();
    /* EVP_Cipher: AAD, text, then NULL finalises and checks the tag */
    ctx = EVP_CIPHER_CTX_new();
    r = ctx != NULL && EVP_DecryptInit_ex2(ctx, xaead, key, nonce, NULL)
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag) > 0
        && EVP_Cipher(ctx, NULL, aad, (unsigned int)alen) == (int)alen
        && EVP_Cipher(ctx, buf, c, (unsigned int)clen) == (int)clen
        && EVP_Cipher(ctx, NULL, NULL, 0) == 0 && memcmp(buf, p, plen) == 0;
    TU_CHECK(r, "%s: EVP_Cipher open", id);
    EVP_CIPHER_CTX_free(ctx);
    /* AAD and text in pieces */
    ctx = EVP_CIPHER_CTX_new();
    r = ctx != NULL && EVP_EncryptInit_ex2(ctx, xaead, key, nonce, NULL)
        && EVP_EncryptUpdate(ctx, NULL, &outl, aad, 5)
        && EVP_EncryptUpdate(ctx, NULL, &outl, aad + 5, (int)alen - 5)
        && EVP_EncryptUpdate(ctx, buf, &outl, p, 33)
        && EVP_EncryptUpdate(ctx, buf + 33, &outl, p + 33, (int)plen - 33)
        && EVP_EncryptFinal_ex(ctx, buf + plen, &outl)
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, t) > 0
        && memcmp(buf, c, clen) == 0 && memcmp(t, tag, 16) == 0;
    TU_CHECK(r, "%s: seal in pieces", id);
    EVP_CIPHER_CTX_free(ctx);
 end:
    free(key);
    free(nonce);
    free(aad);
    free(p);
    free(c);
    free(tag);
}

static void draft_stream(const tj_value *v)
{
    size_t klen, nlen, plen, slen, clen, i;
    unsigned char *key = hexf(v, "key", &klen), *nonce = hexf(v, "nonce", &nlen);
    unsigned char *p = hexf(v, "plaintext", &plen), *ks = hexf(v, "keystream", &slen);
    unsigned char *c = hexf(v, "ciphertext", &clen);
    const char *id = tj_str(v, "id");
    long ctr = tj_num(v, "counter", -1);
    unsigned char iv[32], zero[MAXLEN];
    int inplace;

    if (key == NULL || nonce == NULL || p == NULL || ks == NULL || c == NULL
        || !TU_CHECK(klen == 32 && nlen == 24 && plen == clen && slen >= plen
                     && plen <= MAXLEN && ctr >= 0, "%s: sizes", id))
        goto end;
    memcpy(iv, nonce, 24);
    for (i = 0; i < 8; i++)
        iv[24 + i] = (unsigned char)((unsigned long)ctr >> (8 * i));
    for (inplace = 0; inplace <= 1; inplace++) {
        TU_CHECK(stream_chunked(xc20, key, iv, p, plen, buf, inplace), "%s: encrypt", id);
        TU_MEM_EQ(buf, plen, c, clen, inplace ? "draft A.2 ciphertext (in place)"
                                             : "draft A.2 ciphertext");
    }
    memset(zero, 0, sizeof(zero));
    TU_CHECK(stream_chunked(xc20, key, iv, zero, slen, buf, 0), "%s: keystream", id);
    TU_MEM_EQ(buf, slen, ks, slen, "draft A.2 keystream");
 end:
    free(key);
    free(nonce);
    free(p);
    free(ks);
    free(c);
}

static void draft_vectors(void)
{
    char *path = tu_vector_path("xchacha_vectors.json");
    char *text = tu_read_file(path, NULL);
    tj_value *root = text != NULL ? tj_parse(text) : NULL;
    const tj_value *h, *a, *s;
    size_t i, n;
    unsigned char *b;

    if (!TU_CHECK(root != NULL, "read/parse %s", path))
        goto end;
    h = tj_get(root, "hchacha20");
    a = tj_get(root, "aead_xchacha20_poly1305");
    s = tj_get(root, "xchacha20");
    if (!TU_CHECK(h != NULL && h->n == 1 && a != NULL && a->n == 1 && s != NULL && s->n == 2,
                  "vector file: 1 HChaCha20, 1 AEAD and 2 stream vectors"))
        goto end;
    /* the HChaCha20 vector: the subkey the equivalence tests below use */
    b = hexf(h->items[0], "key", &n);
    TU_CHECK(b != NULL && n == 32 && memcmp(b, KEY221, 32) == 0, "HChaCha20 vector key");
    free(b);
    b = hexf(h->items[0], "nonce", &n);
    if (TU_CHECK(b != NULL && n == 16, "HChaCha20 vector nonce"))
        memcpy(nonce221, b, 16);
    free(b);
    b = hexf(h->items[0], "subkey", &n);
    if (TU_CHECK(b != NULL && n == 32, "HChaCha20 vector subkey"))
        memcpy(subkey221, b, 32);
    free(b);
    draft_aead(a->items[0]);
    for (i = 0; i < s->n; i++)
        draft_stream(s->items[i]);
    printf("# draft-irtf-cfrg-xchacha-03: 1 HChaCha20 (through the equivalences below),"
           " 1 AEAD, %zu stream vectors\n", s->n);
 end:
    tj_free(root);
    free(text);
    free(path);
}

/* ---- HChaCha20 through EVP: equal to the default provider under the subkey */

static void equivalence(void)
{
    static const unsigned long long ctrs[] = {
        0, 1, 0xfffffffeull, 0xffffffffull, 0x1ffffffffull, 0xfffffffffffffffeull,
        0xffffffffffffffffull
    };
    unsigned char n24[24], iv32[32], iv16[16], iv12[12], t1[16], t2[16];
    size_t len, alen, i, k;
    int ok_s = 1, ok_a = 1, cases = 0;

    for (k = 0; k < 200; k++) {
        unsigned long long ctr = k < 7 ? ctrs[k] : rng();

        memcpy(n24, nonce221, 16);
        rng_bytes(n24 + 16, 8);
        len = k < 7 ? 300 : (size_t)(rng() % MAXLEN);
        rng_bytes(pt, len);
        /* stream: XChaCha20(key, n24, ctr) = ChaCha20(subkey, LE64 ctr || n24[16..23]) */
        memcpy(iv32, n24, 24);
        for (i = 0; i < 8; i++)
            iv16[i] = iv32[24 + i] = (unsigned char)(ctr >> (8 * i));
        memcpy(iv16 + 8, n24 + 16, 8);
        ok_s &= stream_chunked(xc20, KEY221, iv32, pt, len, ct, k & 1)
                && stream_chunked(ref_c20, subkey221, iv16, pt, len, buf, 0)
                && memcmp(ct, buf, len) == 0;
        /* AEAD: XChaCha20-Poly1305(key, n24) = ChaCha20-Poly1305(subkey, 0^4 || n24[16..23]) */
        alen = (size_t)(rng() % sizeof(aadbuf));
        rng_bytes(aadbuf, alen);
        memset(iv12, 0, 4);
        memcpy(iv12 + 4, n24 + 16, 8);
        ok_a &= aead_oneshot(xaead, 1, KEY221, n24, aadbuf, alen, pt, len, ct, t1)
                && aead_oneshot(ref_aead, 1, subkey221, iv12, aadbuf, alen, pt, len, buf, t2)
                && memcmp(ct, buf, len) == 0 && memcmp(t1, t2, 16) == 0
                && aead_oneshot(xaead, 0, KEY221, n24, aadbuf, alen, ct, len, buf, t2)
                && memcmp(buf, pt, len) == 0;
        cases++;
    }
    TU_CHECK(ok_s, "XChaCha20 differs from default ChaCha20 under the draft's subkey");
    TU_CHECK(ok_a, "XChaCha20-Poly1305 differs from default ChaCha20-Poly1305 under the"
             " draft's subkey");
    printf("# HChaCha20 through EVP: %d stream and %d AEAD cases equal to OpenSSL's default"
           " under the draft's subkey (counters across 2^32 and 2^64)\n", cases, cases);
}

/* ---- the EVP contract ------------------------------------------------- */

static const char *last_error(void)
{
    static char msg[256];
    unsigned long e = ERR_peek_last_error();
    const char *data = NULL;
    int flags = 0;

    msg[0] = '\0';
    if (e != 0) {
        ERR_peek_last_error_all(NULL, NULL, NULL, &data, &flags);
        ERR_error_string_n(e, msg, sizeof(msg));
        if ((flags & ERR_TXT_STRING) && data != NULL && *data != '\0') {
            strncat(msg, " (", sizeof(msg) - strlen(msg) - 1);
            strncat(msg, data, sizeof(msg) - strlen(msg) - 1);
            strncat(msg, ")", sizeof(msg) - strlen(msg) - 1);
        }
    }
    ERR_clear_error();
    return msg;
}

/* rc must be want and the queued error must contain err ("" = none queued) */
static void expect(int rc, int want, const char *err, const char *what)
{
    const char *got = last_error();

    if (TU_CHECK(rc == want, "%s: returned %d, want %d (%s)", what, rc, want, got))
        TU_CHECK(err[0] == '\0' ? got[0] == '\0' : strstr(got, err) != NULL,
                 "%s: error \"%s\", want \"%s\"", what, got, err[0] ? err : "none");
    printf("#   %-55s -> %d %s\n", what, rc, got[0] ? got : "(no error)");
}

static int set_size(EVP_CIPHER_CTX *ctx, const char *k, size_t v)
{
    OSSL_PARAM p[2] = { OSSL_PARAM_construct_size_t(k, &v), OSSL_PARAM_END };

    return EVP_CIPHER_CTX_set_params(ctx, p);
}

static void contract(void)
{
    unsigned char key[32], key2[32], n24[24], iv32[32], t1[16], t2[16], tls[13] = { 0 };
    EVP_CIPHER_CTX *a, *b;
    size_t bad[] = { 0, 8, 12, 16, 23, 25, 32 };
    size_t i;
    int outl;

    rng_bytes(key, 32);
    rng_bytes(key2, 32);
    rng_bytes(n24, 24);
    rng_bytes(iv32, 32);
    rng_bytes(pt, 700);
    TU_CHECK(EVP_CIPHER_get_flags(xaead) == 0x300010 && EVP_CIPHER_get_iv_length(xaead) == 24
             && EVP_CIPHER_get_key_length(xaead) == 32 && EVP_CIPHER_get_block_size(xaead) == 1
             && EVP_CIPHER_get_mode(xaead) == 0, "XChaCha20-Poly1305: flags %#lx ivlen %d",
             EVP_CIPHER_get_flags(xaead), EVP_CIPHER_get_iv_length(xaead));
    TU_CHECK(EVP_CIPHER_get_flags(xc20) == 0x100010 && EVP_CIPHER_get_iv_length(xc20) == 32
             && EVP_CIPHER_get_key_length(xc20) == 32 && EVP_CIPHER_get_block_size(xc20) == 1,
             "XChaCha20: flags %#lx ivlen %d", EVP_CIPHER_get_flags(xc20),
             EVP_CIPHER_get_iv_length(xc20));

    /* lengths: only 24 (AEAD) and 32 (stream) */
    a = EVP_CIPHER_CTX_new();
    EVP_EncryptInit_ex2(a, xaead, key, n24, NULL);
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char what[64];

        snprintf(what, sizeof(what), "XChaCha20-Poly1305 SET_IVLEN(%zu)", bad[i]);
        expect(EVP_CIPHER_CTX_ctrl(a, EVP_CTRL_AEAD_SET_IVLEN, (int)bad[i], NULL) > 0, 0,
               "invalid iv length", what);
        TU_CHECK(EVP_CIPHER_CTX_get_iv_length(a) == 24, "ivlen stays 24");
    }
    expect(EVP_CIPHER_CTX_ctrl(a, EVP_CTRL_AEAD_SET_IVLEN, 24, NULL) > 0, 1, "",
           "XChaCha20-Poly1305 SET_IVLEN(24)");
    expect(EVP_CIPHER_CTX_set_key_length(a, 16), 0, "invalid key length",
           "XChaCha20-Poly1305 set_key_length(16)");
    /* no TLS record mode */
    expect(EVP_CIPHER_CTX_ctrl(a, EVP_CTRL_AEAD_TLS1_AAD, 13, tls) > 0, 0,
           "no TLS record mode", "XChaCha20-Poly1305 TLS1_AAD (tlsaad)");
    expect(EVP_CIPHER_CTX_ctrl(a, EVP_CTRL_AEAD_SET_IV_FIXED, 12, tls) > 0, 0,
           "no TLS record mode", "XChaCha20-Poly1305 SET_IV_FIXED (tlsivfixed)");
    expect(set_size(a, "tls-version", 0x303), 1, "", "XChaCha20-Poly1305 unknown param");
    EVP_CIPHER_CTX_free(a);
    a = EVP_CIPHER_CTX_new();
    EVP_EncryptInit_ex2(a, xc20, key, iv32, NULL);
    expect(set_size(a, OSSL_CIPHER_PARAM_IVLEN, 24), 0, "invalid iv length",
           "XChaCha20 ivlen 24");
    expect(set_size(a, OSSL_CIPHER_PARAM_IVLEN, 32), 1, "", "XChaCha20 ivlen 32");
    EVP_CIPHER_CTX_free(a);
    a = EVP_CIPHER_CTX_new();
    expect(EVP_EncryptInit_ex(a, xaead, NULL, key, NULL) && EVP_CIPHER_CTX_ctrl(a,
           EVP_CTRL_AEAD_SET_IVLEN, 12, NULL) > 0, 0, "invalid iv length",
           "XChaCha20-Poly1305 12-byte nonce via SET_IVLEN");
    EVP_CIPHER_CTX_free(a);

    /* fail closed */
    a = EVP_CIPHER_CTX_new();
    EVP_EncryptInit_ex2(a, xaead, key, NULL, NULL);
    expect(EVP_EncryptUpdate(a, buf, &outl, pt, 64), 0, "iv not set",
           "XChaCha20-Poly1305 update, key but no nonce");
    EVP_EncryptInit_ex2(a, NULL, NULL, n24, NULL);
    expect(EVP_EncryptUpdate(a, buf, &outl, pt, 64), 1, "",
           "... then the nonce in a second init");
    expect(EVP_EncryptFinal_ex(a, buf, &outl), 1, "", "... Final");
    expect(EVP_EncryptUpdate(a, buf, &outl, pt, 64), 0, "already finalised",
           "XChaCha20-Poly1305 update after Final");
    expect(EVP_EncryptUpdate(a, NULL, &outl, pt, 64), 0, "already finalised",
           "XChaCha20-Poly1305 AAD after Final");
    EVP_CIPHER_CTX_free(a);
    a = EVP_CIPHER_CTX_new();
    EVP_EncryptInit_ex2(a, xaead, NULL, n24, NULL);
    expect(EVP_EncryptUpdate(a, buf, &outl, pt, 64), 0, "no key set",
           "XChaCha20-Poly1305 update, nonce but no key");
    EVP_CIPHER_CTX_free(a);
    a = EVP_CIPHER_CTX_new();
    EVP_DecryptInit_ex2(a, xaead, key, n24, NULL);
    EVP_DecryptUpdate(a, buf, &outl, pt, 64);
    expect(EVP_DecryptFinal_ex(a, buf, &outl), 0, "tag not set",
           "XChaCha20-Poly1305 decrypt Final, no tag set");
    EVP_CIPHER_CTX_free(a);
    a = EVP_CIPHER_CTX_new();
    EVP_EncryptInit_ex2(a, xaead, key, n24, NULL);
    EVP_EncryptUpdate(a, buf, &outl, pt, 10);
    expect(EVP_EncryptUpdate(a, NULL, &outl, pt, 10), 0, "invalid aad",
           "XChaCha20-Poly1305 AAD after text");
    EVP_CIPHER_CTX_free(a);
    a = EVP_CIPHER_CTX_new();
    EVP_EncryptInit_ex2(a, xc20, key, NULL, NULL);
    expect(EVP_EncryptUpdate(a, buf, &outl, pt, 64), 0, "iv not set",
           "XChaCha20 update, key but no IV");
    EVP_CIPHER_CTX_free(a);
    a = EVP_CIPHER_CTX_new();
    EVP_EncryptInit_ex2(a, xc20, NULL, iv32, NULL);
    expect(EVP_EncryptUpdate(a, buf, &outl, pt, 64), 0, "no key set",
           "XChaCha20 update, IV but no key");
    EVP_CIPHER_CTX_free(a);

    /* dupctx mid-message: both halves finish like the one-shot */
    TU_CHECK(aead_oneshot(xaead, 1, key, n24, pt, 40, pt, 700, ct, t1), "one-shot seal");
    a = EVP_CIPHER_CTX_new();
    b = EVP_CIPHER_CTX_new();
    TU_CHECK(EVP_EncryptInit_ex2(a, xaead, key, n24, NULL)
             && EVP_EncryptUpdate(a, NULL, &outl, pt, 40)
             && EVP_EncryptUpdate(a, buf, &outl, pt, 333)
             && EVP_CIPHER_CTX_copy(b, a)
             && EVP_EncryptUpdate(a, buf + 333, &outl, pt + 333, 367)
             && EVP_EncryptFinal_ex(a, buf + 700, &outl)
             && EVP_CIPHER_CTX_ctrl(a, EVP_CTRL_AEAD_GET_TAG, 16, t2) > 0
             && memcmp(buf, ct, 700) == 0 && memcmp(t1, t2, 16) == 0,
             "XChaCha20-Poly1305: the original after a copy");
    memset(buf + 333, 0, 367);
    TU_CHECK(EVP_EncryptUpdate(b, buf + 333, &outl, pt + 333, 367)
             && EVP_EncryptFinal_ex(b, buf + 700, &outl)
             && EVP_CIPHER_CTX_ctrl(b, EVP_CTRL_AEAD_GET_TAG, 16, t2) > 0
             && memcmp(buf, ct, 700) == 0 && memcmp(t1, t2, 16) == 0,
             "XChaCha20-Poly1305: the copy (dupctx) mid-message");
    /* a new nonce on the same context (key kept), and the key after the nonce */
    n24[3] ^= 1;
    TU_CHECK(aead_oneshot(xaead, 1, key, n24, pt, 40, pt, 700, ct, t1), "one-shot seal 2");
    TU_CHECK(EVP_EncryptInit_ex2(a, NULL, NULL, n24, NULL)
             && EVP_EncryptUpdate(a, NULL, &outl, pt, 40)
             && EVP_EncryptUpdate(a, buf, &outl, pt, 700) && EVP_EncryptFinal_ex(a, buf, &outl)
             && EVP_CIPHER_CTX_ctrl(a, EVP_CTRL_AEAD_GET_TAG, 16, t2) > 0
             && memcmp(t1, t2, 16) == 0, "XChaCha20-Poly1305: nonce-only re-init");
    TU_CHECK(EVP_EncryptInit_ex2(b, NULL, key2, NULL, NULL)
             && EVP_EncryptInit_ex2(b, NULL, NULL, n24, NULL)
             && EVP_EncryptInit_ex2(b, NULL, key, NULL, NULL)
             && EVP_EncryptUpdate(b, NULL, &outl, pt, 40)
             && EVP_EncryptUpdate(b, buf, &outl, pt, 700) && EVP_EncryptFinal_ex(b, buf, &outl)
             && EVP_CIPHER_CTX_ctrl(b, EVP_CTRL_AEAD_GET_TAG, 16, t2) > 0
             && memcmp(t1, t2, 16) == 0, "XChaCha20-Poly1305: key after the nonce");
    {
        unsigned char got[24];

        TU_CHECK(EVP_CIPHER_CTX_get_original_iv(b, got, 24) && memcmp(got, n24, 24) == 0,
                 "XChaCha20-Poly1305: \"iv\" is the nonce as set");
    }
    EVP_CIPHER_CTX_free(a);
    EVP_CIPHER_CTX_free(b);

    /* the stream: updated-iv, and a key change mid-stream keeps the position */
    {
        unsigned char upd[32], want[600];
        uint64_t c0 = 0xfffffff0u, c;

        memcpy(iv32, n24, 24);
        for (i = 0; i < 8; i++)
            iv32[24 + i] = (unsigned char)(c0 >> (8 * i));
        a = EVP_CIPHER_CTX_new();
        TU_CHECK(EVP_EncryptInit_ex2(a, xc20, key, iv32, NULL)
                 && EVP_EncryptUpdate(a, buf, &outl, pt, 100)
                 && EVP_CIPHER_CTX_get_updated_iv(a, upd, 32), "XChaCha20 updated-iv");
        for (c = 0, i = 0; i < 8; i++)
            c |= (uint64_t)upd[24 + i] << (8 * i);
        TU_CHECK(memcmp(upd, n24, 24) == 0 && c == c0 + 2,
                 "XChaCha20 updated-iv: nonce || counter + ceil(100/64)");
        /* 100 bytes with key, then key2 from byte 100 (mid-block) */
        TU_CHECK(EVP_EncryptInit_ex2(a, NULL, key2, NULL, NULL)
                 && EVP_EncryptUpdate(a, buf + 100, &outl, pt + 100, 500), "re-key");
        TU_CHECK(stream_chunked(xc20, key2, iv32, pt, 600, want, 0)
                 && memcmp(buf + 100, want + 100, 500) == 0,
                 "XChaCha20: after a key-only re-init the stream goes on with the new key"
                 " at the same position");
        EVP_CIPHER_CTX_free(a);
        /* the IV first, the key in a second init: the stream starts at the IV */
        a = EVP_CIPHER_CTX_new();
        TU_CHECK(EVP_EncryptInit_ex2(a, xc20, NULL, iv32, NULL)
                 && EVP_EncryptInit_ex2(a, NULL, key2, NULL, NULL)
                 && EVP_EncryptUpdate(a, buf, &outl, pt, 600) && memcmp(buf, want, 600) == 0,
                 "XChaCha20: IV first, key in a second init");
        EVP_CIPHER_CTX_free(a);
    }
}

int main(void)
{
    const char *seed = getenv("CHACHA_TEST_SEED");

    if (seed != NULL)
        rng_state = strtoull(seed, NULL, 10);
    if (!tu_init("test_xchacha"))
        return tu_finish();
    xaead = tu_fetch_ours("XChaCha20-Poly1305");
    xc20 = tu_fetch_ours("XChaCha20");
    ref_aead = tu_fetch_default("ChaCha20-Poly1305");
    ref_c20 = tu_fetch_default("ChaCha20");
    if (xaead == NULL || xc20 == NULL || !TU_CHECK(ref_aead && ref_c20, "default ciphers"))
        goto end;
    draft_vectors();
    equivalence();
    contract();
 end:
    EVP_CIPHER_free(xaead);
    EVP_CIPHER_free(xc20);
    EVP_CIPHER_free(ref_aead);
    EVP_CIPHER_free(ref_c20);
    return tu_finish();
}
