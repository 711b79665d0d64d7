/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Every bad input gets a clear error on the OpenSSL error queue. Where
 * OpenSSL's default provider also rejects the input, ours must fail the same
 * way with the same library and reason; where the default accepts something
 * unsafe (docs/compat.md), ours must fail closed with an error of its own.
 * Each case prints the message text a user would see.
 */
#define _DEFAULT_SOURCE 1   /* setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include "testutil.h"

static const unsigned char key[32] = { 1, 2, 3 };
static const unsigned char iv16[16] = { 0 };
static const unsigned char iv12[12] = { 9 };
static unsigned char buf[256], out[256];

/* A case drives one cipher context to a failing call; returns that call's result. */
typedef int case_fn(EVP_CIPHER_CTX *ctx, const EVP_CIPHER *c);

static int c20_keylen(EVP_CIPHER_CTX *x, const EVP_CIPHER *c)
{
    EVP_EncryptInit_ex(x, c, NULL, NULL, NULL);
    return EVP_CIPHER_CTX_set_key_length(x, 16);
}

static int c20_ivlen(EVP_CIPHER_CTX *x, const EVP_CIPHER *c)
{
    size_t v = 12;
    OSSL_PARAM p[2] = { OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_IVLEN, &v),
                        OSSL_PARAM_END };

    EVP_EncryptInit_ex(x, c, NULL, NULL, NULL);
    return EVP_CIPHER_CTX_set_params(x, p);
}

static int c20_nokey(EVP_CIPHER_CTX *x, const EVP_CIPHER *c)
{
    int outl;

    EVP_EncryptInit_ex(x, c, NULL, NULL, iv16);
    return EVP_EncryptUpdate(x, out, &outl, buf, 10);
}

static int c20_keylen_type(EVP_CIPHER_CTX *x, const EVP_CIPHER *c)
{
    OSSL_PARAM p[2] = { OSSL_PARAM_construct_utf8_string(OSSL_CIPHER_PARAM_KEYLEN,
                                                         "32", 0),
                        OSSL_PARAM_END };

    EVP_EncryptInit_ex(x, c, NULL, NULL, NULL);
    return EVP_CIPHER_CTX_set_params(x, p);
}

static int aead_keylen(EVP_CIPHER_CTX *x, const EVP_CIPHER *c)
{
    EVP_EncryptInit_ex(x, c, NULL, NULL, NULL);
    return EVP_CIPHER_CTX_set_key_length(x, 16);
}

static int aead_ivlen(EVP_CIPHER_CTX *x, const EVP_CIPHER *c, int len)
{
    EVP_EncryptInit_ex(x, c, NULL, NULL, NULL);
    return EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_SET_IVLEN, len, NULL);
}

static int aead_ivlen_0(EVP_CIPHER_CTX *x, const EVP_CIPHER *c) { return aead_ivlen(x, c, 0); }
static int aead_ivlen_8(EVP_CIPHER_CTX *x, const EVP_CIPHER *c) { return aead_ivlen(x, c, 8); }
static int aead_ivlen_11(EVP_CIPHER_CTX *x, const EVP_CIPHER *c) { return aead_ivlen(x, c, 11); }
static int aead_ivlen_13(EVP_CIPHER_CTX *x, const EVP_CIPHER *c) { return aead_ivlen(x, c, 13); }
static int aead_ivlen_16(EVP_CIPHER_CTX *x, const EVP_CIPHER *c) { return aead_ivlen(x, c, 16); }
static int aead_ivlen_24(EVP_CIPHER_CTX *x, const EVP_CIPHER *c) { return aead_ivlen(x, c, 24); }

static int aead_taglen(EVP_CIPHER_CTX *x, const EVP_CIPHER *c, int len)
{
    EVP_DecryptInit_ex(x, c, NULL, key, iv12);
    return EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_SET_TAG, len, buf);
}

static int aead_taglen_0(EVP_CIPHER_CTX *x, const EVP_CIPHER *c) { return aead_taglen(x, c, 0); }
static int aead_taglen_17(EVP_CIPHER_CTX *x, const EVP_CIPHER *c) { return aead_taglen(x, c, 17); }

static int aead_tag_on_encrypt(EVP_CIPHER_CTX *x, const EVP_CIPHER *c)
{
    EVP_EncryptInit_ex(x, c, NULL, key, iv12);
    return EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_SET_TAG, 16, buf);
}

static int aead_tag_read_on_decrypt(EVP_CIPHER_CTX *x, const EVP_CIPHER *c)
{
    EVP_DecryptInit_ex(x, c, NULL, key, iv12);
    return EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_GET_TAG, 16, out);
}

static int aead_get_tag_17(EVP_CIPHER_CTX *x, const EVP_CIPHER *c)
{
    int outl;

    EVP_EncryptInit_ex(x, c, NULL, key, iv12);
    EVP_EncryptFinal_ex(x, out, &outl);
    return EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_GET_TAG, 17, out);
}

static int aead_tlsaad_short(EVP_CIPHER_CTX *x, const EVP_CIPHER *c)
{
    EVP_EncryptInit_ex(x, c, NULL, key, iv12);
    return EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_TLS1_AAD, 12, buf) > 0;
}

static int aead_tlsaad_dec_len(EVP_CIPHER_CTX *x, const EVP_CIPHER *c)
{
    unsigned char aad[13] = { 0 };

    aad[12] = 15;       /* a received record shorter than its tag */
    EVP_DecryptInit_ex(x, c, NULL, key, iv12);
    return EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_TLS1_AAD, 13, aad) > 0;
}

static int aead_ivfixed_11(EVP_CIPHER_CTX *x, const EVP_CIPHER *c)
{
    EVP_EncryptInit_ex(x, c, NULL, key, NULL);
    return EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_SET_IV_FIXED, 11, buf);
}

/* ---- the default provider accepts these; we fail closed ---- */
static int aead_nokey(EVP_CIPHER_CTX *x, const EVP_CIPHER *c)
{
    int outl;

    EVP_EncryptInit_ex(x, c, NULL, NULL, iv12);
    return EVP_EncryptUpdate(x, out, &outl, buf, 10);
}

static int aead_noiv(EVP_CIPHER_CTX *x, const EVP_CIPHER *c)
{
    int outl;

    EVP_EncryptInit_ex(x, c, NULL, key, NULL);
    return EVP_EncryptUpdate(x, out, &outl, buf, 10);
}

static int aead_final_no_tag(EVP_CIPHER_CTX *x, const EVP_CIPHER *c)
{
    int outl;

    EVP_DecryptInit_ex(x, c, NULL, key, iv12);
    EVP_DecryptUpdate(x, out, &outl, buf, 10);
    return EVP_DecryptFinal_ex(x, out, &outl);
}

static int aead_aad_after_data(EVP_CIPHER_CTX *x, const EVP_CIPHER *c)
{
    int outl;

    EVP_EncryptInit_ex(x, c, NULL, key, iv12);
    EVP_EncryptUpdate(x, out, &outl, buf, 10);
    return EVP_EncryptUpdate(x, NULL, &outl, buf, 10);
}

static int aead_update_after_final(EVP_CIPHER_CTX *x, const EVP_CIPHER *c)
{
    int outl;

    EVP_EncryptInit_ex(x, c, NULL, key, iv12);
    EVP_EncryptUpdate(x, out, &outl, buf, 10);
    EVP_EncryptFinal_ex(x, out, &outl);
    return EVP_EncryptUpdate(x, out, &outl, buf, 10);
}

static int aead_tls_bad_length(EVP_CIPHER_CTX *x, const EVP_CIPHER *c)
{
    unsigned char aad[13] = { 0 };
    int outl;

    aad[12] = 20;
    EVP_EncryptInit_ex(x, c, NULL, key, iv12);
    EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_TLS1_AAD, 13, aad);
    return EVP_EncryptUpdate(x, out, &outl, buf, 20);  /* needs 20 + 16 */
}

typedef struct {
    const char *name;
    const char *cipher;
    case_fn *fn;
    int same_as_default;        /* 0: default accepts it, we fail closed */
    const char *reason_text;    /* expected in our message */
} err_case;

static const err_case cases[] = {
    { "ChaCha20 key length 16", "ChaCha20", c20_keylen, 1, "invalid key length" },
    { "ChaCha20 iv length 12", "ChaCha20", c20_ivlen, 1, "invalid iv length" },
    { "ChaCha20 update without key", "ChaCha20", c20_nokey, 1, "no key set" },
    { "ChaCha20 keylen of wrong type", "ChaCha20", c20_keylen_type, 1, "failed to get parameter" },
    { "AEAD key length 16", "ChaCha20-Poly1305", aead_keylen, 1, "invalid key length" },
    { "AEAD iv length 0", "ChaCha20-Poly1305", aead_ivlen_0, 1, "invalid iv length" },
    { "AEAD iv length 8", "ChaCha20-Poly1305", aead_ivlen_8, 1, "invalid iv length" },
    { "AEAD iv length 11", "ChaCha20-Poly1305", aead_ivlen_11, 1, "invalid iv length" },
    { "AEAD iv length 13", "ChaCha20-Poly1305", aead_ivlen_13, 1, "invalid iv length" },
    { "AEAD iv length 16", "ChaCha20-Poly1305", aead_ivlen_16, 1, "invalid iv length" },
    { "AEAD iv length 24", "ChaCha20-Poly1305", aead_ivlen_24, 1, "invalid iv length" },
    { "AEAD tag length 0", "ChaCha20-Poly1305", aead_taglen_0, 1, "invalid tag length" },
    { "AEAD tag length 17", "ChaCha20-Poly1305", aead_taglen_17, 1, "invalid tag length" },
    { "AEAD tag set on encrypt", "ChaCha20-Poly1305", aead_tag_on_encrypt, 1, "tag not needed" },
    { "AEAD tag read on decrypt", "ChaCha20-Poly1305", aead_tag_read_on_decrypt, 1, "tag not set" },
    { "AEAD tag read of 17 bytes", "ChaCha20-Poly1305", aead_get_tag_17, 1, "invalid tag length" },
    { "AEAD tlsaad of 12 bytes", "ChaCha20-Poly1305", aead_tlsaad_short, 1, "invalid data" },
    { "AEAD tlsaad record shorter than tag", "ChaCha20-Poly1305", aead_tlsaad_dec_len, 1, "invalid data" },
    { "AEAD tlsivfixed of 11 bytes", "ChaCha20-Poly1305", aead_ivfixed_11, 1, "invalid iv length" },
    { "AEAD update without key", "ChaCha20-Poly1305", aead_nokey, 0, "no key set" },
    { "AEAD update without iv", "ChaCha20-Poly1305", aead_noiv, 0, "iv not set" },
    { "AEAD decrypt final with no tag", "ChaCha20-Poly1305", aead_final_no_tag, 0, "tag not set" },
    { "AEAD aad after data", "ChaCha20-Poly1305", aead_aad_after_data, 0, "invalid aad" },
    { "AEAD update after final", "ChaCha20-Poly1305", aead_update_after_final, 0,
      "operation already finalised" },
    { "AEAD tls record of wrong length", "ChaCha20-Poly1305", aead_tls_bad_length, 1,
      "bad tls record length" },
};

/* Run a case; returns its result, the last error code and its text. */
static int run_case(const err_case *tc, const EVP_CIPHER *c, unsigned long *err,
                    char *text, size_t textlen)
{
    EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
    int r;

    ERR_clear_error();
    r = tc->fn(x, c);
    *err = ERR_peek_last_error();
    text[0] = '\0';
    if (*err != 0)
        ERR_error_string_n(*err, text, textlen);
    ERR_clear_error();
    EVP_CIPHER_CTX_free(x);
    return r;
}

/* The POLY1305 MAC: the same rules, on an EVP_MAC_CTX. */
typedef int mac_case_fn(EVP_MAC_CTX *ctx);

static int mac_keylen_16(EVP_MAC_CTX *x) { return EVP_MAC_init(x, key, 16, NULL); }
static int mac_keylen_33(EVP_MAC_CTX *x)
{
    static const unsigned char k33[33] = { 1 };

    return EVP_MAC_init(x, k33, sizeof(k33), NULL);
}

static int mac_update_nokey(EVP_MAC_CTX *x) { return EVP_MAC_update(x, buf, 10); }

static int mac_final_nokey(EVP_MAC_CTX *x)
{
    size_t outl;

    return EVP_MAC_final(x, out, &outl, sizeof(out));
}

static int mac_final_short(EVP_MAC_CTX *x)
{
    size_t outl;

    EVP_MAC_init(x, key, sizeof(key), NULL);
    EVP_MAC_update(x, buf, 10);
    return EVP_MAC_final(x, out, &outl, 15);
}

/* a one-time key may not authenticate a second message */
static int mac_reinit_same_key(EVP_MAC_CTX *x)
{
    EVP_MAC_init(x, key, sizeof(key), NULL);
    EVP_MAC_update(x, buf, 10);
    return EVP_MAC_init(x, NULL, 0, NULL);
}

static int mac_key_param_16(EVP_MAC_CTX *x)
{
    OSSL_PARAM p[2] = { OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_KEY,
                                                          (void *)key, 16),
                        OSSL_PARAM_END };

    return EVP_MAC_CTX_set_params(x, p);
}

typedef struct {
    const char *name;
    mac_case_fn *fn;
    /* 1: default fails alike; 0: default accepts it, we fail closed;
     * -1: default crashes on it (OpenSSL 3.0 emits from a never-keyed
     * context through a NULL function pointer): not run there */
    int same_as_default;
    const char *reason_text;
} mac_err_case;

static const mac_err_case mac_cases[] = {
    { "POLY1305 key length 16", mac_keylen_16, 1, "invalid key length" },
    { "POLY1305 key length 33", mac_keylen_33, 1, "invalid key length" },
    { "POLY1305 key param of 16 bytes", mac_key_param_16, 1, "invalid key length" },
    { "POLY1305 final into 15 bytes", mac_final_short, 1, "buffer too small" },
    { "POLY1305 update without key", mac_update_nokey, 0, "no key set" },
    { "POLY1305 final without key", mac_final_nokey, -1, "no key set" },
    { "POLY1305 one-time key reused", mac_reinit_same_key, 1, "no key set" },
};

static int run_mac_case(const mac_err_case *tc, EVP_MAC *m, unsigned long *err,
                        char *text, size_t textlen)
{
    EVP_MAC_CTX *x = EVP_MAC_CTX_new(m);
    int r;

    ERR_clear_error();
    r = x != NULL ? tc->fn(x) : -1;
    *err = ERR_peek_last_error();
    text[0] = '\0';
    if (*err != 0)
        ERR_error_string_n(*err, text, textlen);
    ERR_clear_error();
    EVP_MAC_CTX_free(x);
    return r;
}

static void mac_errors(void)
{
    EVP_MAC *ours = EVP_MAC_fetch(tu_libctx, "POLY1305", TU_PROPQ_OURS);
    EVP_MAC *dflt = EVP_MAC_fetch(tu_libctx, "POLY1305", TU_PROPQ_DEFAULT);
    size_t i;

    if (!TU_CHECK(ours != NULL && dflt != NULL, "fetch POLY1305 (ours %p, default %p)",
                  (void *)ours, (void *)dflt))
        goto end;
    for (i = 0; i < sizeof(mac_cases) / sizeof(mac_cases[0]); i++) {
        const mac_err_case *tc = &mac_cases[i];
        char t_ours[256], t_dflt[256] = "";
        unsigned long e_ours, e_dflt = 0;
        int r_ours = run_mac_case(tc, ours, &e_ours, t_ours, sizeof(t_ours));
        int r_dflt = tc->same_as_default < 0 ? 1
                     : run_mac_case(tc, dflt, &e_dflt, t_dflt, sizeof(t_dflt));

        printf("# %-38s ours: %s\n", tc->name, t_ours);
        TU_CHECK(r_ours <= 0, "%s: must fail, returned %d", tc->name, r_ours);
        TU_CHECK(e_ours != 0 && strstr(t_ours, tc->reason_text) != NULL,
                 "%s: expected \"%s\" in \"%s\"", tc->name, tc->reason_text, t_ours);
        if (tc->same_as_default > 0) {
            TU_CHECK(r_dflt <= 0, "%s: default provider accepted it", tc->name);
            /* the default refuses a reused key without raising anything */
            if (e_dflt != 0)
                TU_CHECK(ERR_GET_LIB(e_ours) == ERR_GET_LIB(e_dflt)
                         && ERR_GET_REASON(e_ours) == ERR_GET_REASON(e_dflt),
                         "%s: ours \"%s\", default \"%s\"", tc->name, t_ours, t_dflt);
        } else if (tc->same_as_default == 0 && r_dflt <= 0) {
            printf("# note: %s: this OpenSSL's default provider rejects it too\n",
                   tc->name);
        }
    }
 end:
    EVP_MAC_free(ours);
    EVP_MAC_free(dflt);
}

/*
 * Loading with a kernel that does not exist fails loudly (one the CPU lacks
 * is checked by test/integration/cli.sh, which hides CPU features per process).
 */
static void check_forced_kernel(const char *name, const char *expect)
{
    OSSL_LIB_CTX *lc = OSSL_LIB_CTX_new();
    OSSL_PROVIDER *p;
    char text[512] = "";
    unsigned long e;
    const char *data = NULL;
    int flags = 0;

    setenv("CHACHA_PROVIDER_IMPL", name, 1);
    ERR_clear_error();
    p = OSSL_PROVIDER_load(lc, "chacha");
    unsetenv("CHACHA_PROVIDER_IMPL");
    TU_CHECK(p == NULL, "forced kernel \"%s\": load must fail", name);
    while ((e = ERR_get_error_all(NULL, NULL, NULL, &data, &flags)) != 0) {
        char one[256], full[512];

        ERR_error_string_n(e, one, sizeof(one));
        snprintf(full, sizeof(full), "%s:%s", one,
                 (flags & ERR_TXT_STRING) ? data : "");
        if (strstr(full, expect) != NULL)
            memcpy(text, full, sizeof(text));
    }
    printf("# forced kernel \"%s\": %s\n", name, text);
    TU_CHECK(text[0] != '\0', "forced kernel \"%s\": no \"%s\" error", name, expect);
    OSSL_PROVIDER_unload(p);
    OSSL_LIB_CTX_free(lc);
}

/*
 * Our own reasons (CHACHA_RAISE) carry the file, line and function that
 * raised them, as libcrypto's ERR_raise does.
 */
static void check_error_location(void)
{
    EVP_CIPHER *c = tu_fetch_ours("ChaCha20-Poly1305");
    EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
    const char *file = NULL, *func = NULL;
    unsigned long e;
    int line = 0;

    if (c == NULL || x == NULL) {
        TU_CHECK(0, "error location: no cipher or context");
    } else {
        ERR_clear_error();
        aead_noiv(x, c);
        e = ERR_peek_last_error_all(&file, &line, &func, NULL, NULL);
        printf("# error location: %s:%d %s\n", file ? file : "(none)", line,
               func ? func : "(none)");
        TU_CHECK(e != 0 && file != NULL && strstr(file, "provider/impl/") != NULL
                 && line > 0 && func != NULL && *func != '\0',
                 "our reason carries no file, line and function");
        ERR_clear_error();
    }
    EVP_CIPHER_CTX_free(x);
    EVP_CIPHER_free(c);
}

int main(void)
{
    size_t i;
    const char *saved;

    if (!tu_init("test_errors"))
        return tu_finish();
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const err_case *tc = &cases[i];
        EVP_CIPHER *ours = tu_fetch_ours(tc->cipher);
        EVP_CIPHER *dflt = tu_fetch_default(tc->cipher);
        char t_ours[256], t_dflt[256];
        unsigned long e_ours, e_dflt;
        int r_ours, r_dflt;

        if (ours == NULL || dflt == NULL)
            continue;
        r_ours = run_case(tc, ours, &e_ours, t_ours, sizeof(t_ours));
        r_dflt = run_case(tc, dflt, &e_dflt, t_dflt, sizeof(t_dflt));
        printf("# %-38s ours: %s\n", tc->name, t_ours);
        TU_CHECK(r_ours <= 0, "%s: must fail, returned %d", tc->name, r_ours);
        TU_CHECK(e_ours != 0 && strstr(t_ours, tc->reason_text) != NULL,
                 "%s: expected \"%s\" in \"%s\"", tc->name, tc->reason_text, t_ours);
        if (tc->same_as_default) {
            TU_CHECK(r_dflt <= 0, "%s: default provider accepted it", tc->name);
            /* the TLS record length check raises nothing in the default */
            if (e_dflt != 0)
                TU_CHECK(ERR_GET_LIB(e_ours) == ERR_GET_LIB(e_dflt)
                         && ERR_GET_REASON(e_ours) == ERR_GET_REASON(e_dflt),
                         "%s: ours \"%s\", default \"%s\"", tc->name, t_ours, t_dflt);
        } else if (r_dflt <= 0) {
            /* newer OpenSSL (3.5 for AAD after data) closed the gap too */
            printf("# note: %s: this OpenSSL's default provider rejects it too\n",
                   tc->name);
        }
        EVP_CIPHER_free(ours);
        EVP_CIPHER_free(dflt);
    }
    mac_errors();
    check_error_location();
    /* the forced-kernel checks must not inherit the run's own pin */
    saved = getenv("CHACHA_PROVIDER_IMPL");
    if (saved == NULL) {
        check_forced_kernel("no-such-kernel", "is unknown");
#if defined(__x86_64__)
        /* another architecture's kernel: the CPU cannot run it */
        check_forced_kernel("neon", "is not supported by this CPU");
#elif defined(__aarch64__) || defined(__arm__)
        check_forced_kernel("avx2", "is not supported by this CPU");
#endif
    }
    return tu_finish();
}
