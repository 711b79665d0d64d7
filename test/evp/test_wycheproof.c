/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Wycheproof chacha20_poly1305_test.json (all 325 tests, ChaCha20-Poly1305)
 * and xchacha20_poly1305_test.json (all 315, XChaCha20-Poly1305) through EVP
 * and the "chacha" provider:
 *  - valid:   encrypt (one shot) gives ct || tag; decrypt gives msg back, both
 *             with Update/Final (chunked, in place) and with EVP_Cipher();
 *  - ModifiedTag: encrypt gives ct and a different tag; decrypt is rejected
 *             at Final (and by EVP_Cipher(NULL, NULL, 0));
 *  - InvalidNonceSize: the size is rejected by SET_IVLEN and by an
 *             EVP_CipherInit_ex2() carrying the "ivlen" param, for both
 *             directions, so no data is ever processed with it.
 * Usage: test_wycheproof [path/to/file.json]  (one file; the cipher is the
 * file's "algorithm"; without an argument both files, with their counts)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "testutil.h"

/* The sets, with the counts each file must have: a truncated file fails. */
static const struct set {
    const char *file, *algorithm, *cipher;
    size_t ivlen;
    long tests, bad_nonce;
} sets[] = {
    { "chacha20_poly1305_test.json", "CHACHA20-POLY1305", "ChaCha20-Poly1305", 12, 325, 9 },
    { "xchacha20_poly1305_test.json", "XCHACHA20-POLY1305", "XChaCha20-Poly1305", 24, 315, 9 },
};

typedef struct {
    long id;
    const char *comment;
    unsigned char *key, *iv, *aad, *msg, *ct, *tag;
    size_t key_len, iv_len, aad_len, msg_len, ct_len, tag_len;
    int valid;
} wtest;

static EVP_CIPHER *cipher;
static size_t cipher_ivlen;

/* Init for direction enc, with the IV length set as evp_test does. */
static EVP_CIPHER_CTX *start(const wtest *t, int enc, int tag_before_key)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();

    if (ctx == NULL
        || !EVP_CipherInit_ex(ctx, cipher, NULL, NULL, NULL, enc)
        || !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, (int)t->iv_len,
                                NULL)
        || (!enc && tag_before_key
            && !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG,
                                    (int)t->tag_len, t->tag))
        || !EVP_CipherInit_ex(ctx, NULL, NULL, t->key, t->iv, enc)
        || (!enc && !tag_before_key
            && !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG,
                                    (int)t->tag_len, t->tag))) {
        EVP_CIPHER_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

static void do_encrypt(const wtest *t)
{
    EVP_CIPHER_CTX *ctx = start(t, 1, 0);
    unsigned char *out = malloc(t->msg_len + 1), tag[16];
    int outl = 0, fl = 0, ok;

    ok = TU_CHECK(ctx != NULL, "tcId %ld: encrypt init", t->id)
         && TU_CHECK(EVP_EncryptUpdate(ctx, NULL, &outl, t->aad,
                                       (int)t->aad_len)
                     && outl == (int)t->aad_len,
                     "tcId %ld: encrypt AAD", t->id)
         && TU_CHECK(EVP_EncryptUpdate(ctx, out, &outl, t->msg,
                                       (int)t->msg_len)
                     && outl == (int)t->msg_len,
                     "tcId %ld: encrypt update", t->id)
         && TU_CHECK(EVP_EncryptFinal_ex(ctx, out + outl, &fl) && fl == 0,
                     "tcId %ld: encrypt final", t->id)
         && TU_CHECK(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG,
                                         (int)t->tag_len, tag),
                     "tcId %ld: GET_TAG", t->id);
    if (ok) {
        char label[64];

        snprintf(label, sizeof(label), "tcId %ld: ciphertext", t->id);
        TU_MEM_EQ(out, t->msg_len, t->ct, t->ct_len, label);
        if (t->valid) {
            snprintf(label, sizeof(label), "tcId %ld: tag", t->id);
            TU_MEM_EQ(tag, t->tag_len, t->tag, t->tag_len, label);
        } else {
            TU_CHECK(memcmp(tag, t->tag, t->tag_len) != 0,
                     "tcId %ld: modified tag equals the computed tag", t->id);
        }
    }
    ERR_clear_error();
    EVP_CIPHER_CTX_free(ctx);
    free(out);
}

/* Update/Final, in place, AAD and data each in two chunks. */
static void do_decrypt(const wtest *t)
{
    EVP_CIPHER_CTX *ctx = start(t, 0, (t->id & 1) == 0);
    unsigned char *buf = malloc(t->ct_len + 1);
    size_t a1 = t->aad_len / 2, c1 = t->ct_len / 3;
    int l1 = 0, l2 = 0, fl = 0, ok, fin;

    if (t->ct_len > 0)
        memcpy(buf, t->ct, t->ct_len);
    ok = TU_CHECK(ctx != NULL, "tcId %ld: decrypt init", t->id)
         && TU_CHECK(EVP_DecryptUpdate(ctx, NULL, &l1, t->aad, (int)a1)
                     && EVP_DecryptUpdate(ctx, NULL, &l2, t->aad + a1,
                                          (int)(t->aad_len - a1)),
                     "tcId %ld: decrypt AAD", t->id)
         && TU_CHECK(EVP_DecryptUpdate(ctx, buf, &l1, buf, (int)c1)
                     && EVP_DecryptUpdate(ctx, buf + l1, &l2, buf + c1,
                                          (int)(t->ct_len - c1))
                     && (size_t)(l1 + l2) == t->ct_len,
                     "tcId %ld: decrypt update", t->id);
    if (ok) {
        fin = EVP_DecryptFinal_ex(ctx, buf + l1 + l2, &fl);
        if (t->valid) {
            char label[64];

            snprintf(label, sizeof(label), "tcId %ld: plaintext", t->id);
            if (TU_CHECK(fin == 1 && fl == 0, "tcId %ld: decrypt final %d",
                         t->id, fin))
                TU_MEM_EQ(buf, t->ct_len, t->msg, t->msg_len, label);
        } else {
            TU_CHECK(fin <= 0, "tcId %ld: modified tag accepted by Final",
                     t->id);
        }
    }
    ERR_clear_error();
    EVP_CIPHER_CTX_free(ctx);
    free(buf);
}

/* The one-shot EVP_Cipher() path (provider "cipher" function). */
static void do_decrypt_cipher(const wtest *t)
{
    EVP_CIPHER_CTX *ctx = start(t, 0, 1);
    unsigned char *out = malloc(t->ct_len + 1);
    int r1, r2, r3;

    if (!TU_CHECK(ctx != NULL, "tcId %ld: EVP_Cipher init", t->id))
        goto end;
    r1 = EVP_Cipher(ctx, NULL, t->aad, (unsigned int)t->aad_len);
    r2 = EVP_Cipher(ctx, out, t->ct, (unsigned int)t->ct_len);
    r3 = EVP_Cipher(ctx, NULL, NULL, 0);
    if (!TU_CHECK(r1 >= 0 && r2 == (int)t->ct_len,
                  "tcId %ld: EVP_Cipher aad/data returned %d/%d", t->id, r1,
                  r2))
        goto end;
    if (t->valid) {
        char label[64];

        snprintf(label, sizeof(label), "tcId %ld: EVP_Cipher plaintext",
                 t->id);
        if (TU_CHECK(r3 == 0, "tcId %ld: EVP_Cipher final returned %d", t->id,
                     r3))
            TU_MEM_EQ(out, t->ct_len, t->msg, t->msg_len, label);
    } else {
        TU_CHECK(r3 < 0, "tcId %ld: modified tag accepted by EVP_Cipher (%d)",
                 t->id, r3);
    }
 end:
    ERR_clear_error();
    EVP_CIPHER_CTX_free(ctx);
    free(out);
}

static void do_bad_nonce(const wtest *t)
{
    int enc;

    for (enc = 0; enc <= 1; enc++) {
        EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
        unsigned char ivbuf[64] = { 0 };
        size_t n = t->iv_len;
        OSSL_PARAM params[2];

        TU_CHECK(ctx != NULL
                 && EVP_CipherInit_ex(ctx, cipher, NULL, NULL, NULL, enc),
                 "tcId %ld: init", t->id);
        TU_CHECK(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, (int)n,
                                     NULL) <= 0,
                 "tcId %ld: SET_IVLEN(%zu) accepted (%s)", t->id, n,
                 enc ? "encrypt" : "decrypt");
        TU_CHECK(EVP_CIPHER_CTX_get_iv_length(ctx) == (int)cipher_ivlen,
                 "tcId %ld: IV length %d after rejected SET_IVLEN(%zu)", t->id,
                 EVP_CIPHER_CTX_get_iv_length(ctx), n);
        ERR_clear_error();
        EVP_CIPHER_CTX_free(ctx);

        /* The same size through the init params (ivbuf is big enough for
         * any length the provider might read). */
        ctx = EVP_CIPHER_CTX_new();
        if (n > 0)
            memcpy(ivbuf, t->iv, n);
        params[0] = OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_IVLEN, &n);
        params[1] = OSSL_PARAM_construct_end();
        TU_CHECK(ctx != NULL
                 && !EVP_CipherInit_ex2(ctx, cipher, t->key, ivbuf, enc,
                                        params),
                 "tcId %ld: EVP_CipherInit_ex2 with ivlen=%zu accepted (%s)",
                 t->id, n, enc ? "encrypt" : "decrypt");
        ERR_clear_error();
        EVP_CIPHER_CTX_free(ctx);
    }
}

#define NFLAGS 16
static struct {
    const char *name;
    unsigned long total, valid, invalid, failed;
} flagstat[NFLAGS];

static void count_flag(const char *name, int valid, int failed)
{
    int i;

    for (i = 0; i < NFLAGS && flagstat[i].name != NULL; i++)
        if (strcmp(flagstat[i].name, name) == 0)
            break;
    if (i == NFLAGS)
        return;
    flagstat[i].name = name;
    flagstat[i].total++;
    if (valid)
        flagstat[i].valid++;
    else
        flagstat[i].invalid++;
    if (failed)
        flagstat[i].failed++;
}

static unsigned char *hexfield(const tj_value *t, const char *key, size_t *len)
{
    const char *s = tj_str(t, key);
    unsigned char *b = s != NULL ? tu_hex_decode(s, len) : NULL;

    TU_CHECK(b != NULL, "tcId %ld: bad or missing \"%s\"",
             tj_num(t, "tcId", -1), key);
    return b;
}

/* One file: every test, then the counts. */
static void run_set(const struct set *st, const char *path)
{
    char *text = NULL;
    tj_value *root = NULL;
    const tj_value *groups;
    const char *alg;
    size_t g, i;
    long ntests = 0, nvalid = 0, ninvalid = 0, nbadnonce = 0;
    long declared;

    memset(flagstat, 0, sizeof(flagstat));
    text = tu_read_file(path, NULL);
    if (!TU_CHECK(text != NULL, "read %s", path))
        goto end;
    root = tj_parse(text);
    if (!TU_CHECK(root != NULL, "JSON parse error in %s", path))
        goto end;
    alg = tj_str(root, "algorithm");
    if (st == NULL) {          /* a file given by path: its algorithm names the set */
        for (i = 0; i < sizeof(sets) / sizeof(sets[0]); i++)
            if (alg != NULL && strcmp(alg, sets[i].algorithm) == 0)
                st = &sets[i];
        if (!TU_CHECK(st != NULL, "%s: unknown algorithm %s", path, alg ? alg : "(none)"))
            goto end;
    }
    if (!TU_CHECK(alg != NULL && strcmp(alg, st->algorithm) == 0,
                  "%s: algorithm %s, want %s", path, alg ? alg : "(none)", st->algorithm))
        goto end;
    printf("# %s: %s on %s\n", path, st->algorithm, st->cipher);
    if ((cipher = tu_fetch_ours(st->cipher)) == NULL)
        goto end;
    cipher_ivlen = st->ivlen;
    declared = tj_num(root, "numberOfTests", -1);
    groups = tj_get(root, "testGroups");
    if (!TU_CHECK(groups != NULL && groups->type == TJ_ARR, "no testGroups"))
        goto end;
    for (g = 0; g < groups->n; g++) {
        const tj_value *grp = groups->items[g];
        const tj_value *tests = tj_get(grp, "tests");
        long ivbits = tj_num(grp, "ivSize", -1);

        if (!TU_CHECK(tests != NULL && tests->type == TJ_ARR,
                      "group %zu has no tests", g))
            continue;
        for (i = 0; i < tests->n; i++) {
            const tj_value *jt = tests->items[i], *flags = tj_get(jt, "flags");
            const char *result = tj_str(jt, "result");
            unsigned long fail_before = tu_failed();
            int bad_nonce = 0;
            size_t f;
            wtest t;

            memset(&t, 0, sizeof(t));
            ntests++;
            t.id = tj_num(jt, "tcId", -1);
            t.comment = tj_str(jt, "comment");
            t.key = hexfield(jt, "key", &t.key_len);
            t.iv = hexfield(jt, "iv", &t.iv_len);
            t.aad = hexfield(jt, "aad", &t.aad_len);
            t.msg = hexfield(jt, "msg", &t.msg_len);
            t.ct = hexfield(jt, "ct", &t.ct_len);
            t.tag = hexfield(jt, "tag", &t.tag_len);
            t.valid = result != NULL && strcmp(result, "valid") == 0;
            for (f = 0; flags != NULL && f < flags->n; f++)
                if (flags->items[f]->type == TJ_STR
                    && strcmp(flags->items[f]->str, "InvalidNonceSize") == 0)
                    bad_nonce = 1;
            if (t.key && t.iv && t.aad && t.msg && t.ct && t.tag
                && TU_CHECK(result != NULL && (t.valid
                                               || strcmp(result, "invalid") == 0),
                            "tcId %ld: result %s", t.id,
                            result ? result : "(none)")
                && TU_CHECK(ivbits < 0 || (size_t)ivbits == 8 * t.iv_len,
                            "tcId %ld: iv size", t.id)) {
                if (t.valid)
                    nvalid++;
                else
                    ninvalid++;
                if (bad_nonce) {
                    nbadnonce++;
                    TU_CHECK(!t.valid && t.iv_len != st->ivlen,
                             "tcId %ld: InvalidNonceSize test is valid or "
                             "has a %zu-byte nonce", t.id, st->ivlen);
                    do_bad_nonce(&t);
                } else if (TU_CHECK(t.iv_len == st->ivlen && t.tag_len == 16
                                    && t.msg_len == t.ct_len,
                                    "tcId %ld: unexpected sizes", t.id)) {
                    do_encrypt(&t);
                    do_decrypt(&t);
                    do_decrypt_cipher(&t);
                }
            }
            if (tu_failed() != fail_before)
                printf("# tcId %ld (%s) FAILED\n", t.id,
                       t.comment ? t.comment : "");
            for (f = 0; flags != NULL && f < flags->n; f++)
                if (flags->items[f]->type == TJ_STR)
                    count_flag(flags->items[f]->str, t.valid,
                               tu_failed() != fail_before);
            free(t.key);
            free(t.iv);
            free(t.aad);
            free(t.msg);
            free(t.ct);
            free(t.tag);
        }
    }
    for (i = 0; i < NFLAGS && flagstat[i].name != NULL; i++)
        printf("# flag %-20s %4lu tests (%lu valid, %lu invalid), %lu failed\n",
               flagstat[i].name, flagstat[i].total, flagstat[i].valid,
               flagstat[i].invalid, flagstat[i].failed);
    printf("# %s: %ld tests: %ld valid, %ld invalid (%ld InvalidNonceSize)\n",
           st->cipher, ntests, nvalid, ninvalid, nbadnonce);
    TU_CHECK(ntests == st->tests && declared == st->tests,
             "%ld tests (file says %ld), expected exactly %ld", ntests,
             declared, st->tests);
    TU_CHECK(nbadnonce == st->bad_nonce, "%ld InvalidNonceSize tests, expected %ld",
             nbadnonce, st->bad_nonce);
 end:
    tj_free(root);
    free(text);
    EVP_CIPHER_free(cipher);
    cipher = NULL;
}

int main(int argc, char **argv)
{
    size_t i;

    if (!tu_init("test_wycheproof"))
        return tu_finish();
    if (argc > 1) {
        run_set(NULL, argv[1]);
        return tu_finish();
    }
    for (i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
        char *path = tu_vector_path(sets[i].file);

        run_set(&sets[i], path);
        free(path);
    }
    return tu_finish();
}
