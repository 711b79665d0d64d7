/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_parity: metadata, ctx and init parameters, init splits.
 */
#include "parity.h"

/* ------------------------------------------------------------------------ */
/* Metadata and parameters                                                   */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void record_names(const OSSL_PARAM *p, const char *what)
{
    const char *names[64];
    char buf[1024] = "";
    size_t n = 0, i;

    for (; p != NULL && p->key != NULL && n < 64; p++)
        names[n++] = p->key;
    qsort(names, n, sizeof(names[0]), cmp_str);
    for (i = 0; i < n; i++) {
        strncat(buf, names[i], sizeof(buf) - strlen(buf) - 2);
        strcat(buf, " ");
    }
    r_bytes(buf, strlen(buf), "%s", what);
}

static void seq_meta(const EVP_CIPHER *c, const void *arg)
{
    static const char *const ikeys[] = {
        OSSL_CIPHER_PARAM_AEAD, OSSL_CIPHER_PARAM_CUSTOM_IV,
        OSSL_CIPHER_PARAM_CTS, OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK,
        OSSL_CIPHER_PARAM_HAS_RAND_KEY
    };
    static const char *const skeys[] = {
        OSSL_CIPHER_PARAM_KEYLEN, OSSL_CIPHER_PARAM_IVLEN,
        OSSL_CIPHER_PARAM_BLOCK_SIZE
    };
    unsigned int mode = 99;
    size_t i;

    (void)arg;
    r_int((long long)EVP_CIPHER_get_flags(c), "EVP_CIPHER_get_flags");
    r_int(EVP_CIPHER_get_key_length(c), "EVP_CIPHER_get_key_length");
    r_int(EVP_CIPHER_get_iv_length(c), "EVP_CIPHER_get_iv_length");
    r_int(EVP_CIPHER_get_block_size(c), "EVP_CIPHER_get_block_size");
    r_int(EVP_CIPHER_get_mode(c), "EVP_CIPHER_get_mode");
    r_int(EVP_CIPHER_get_nid(c), "EVP_CIPHER_get_nid");
    r_int(EVP_CIPHER_get_type(c), "EVP_CIPHER_get_type");
    r_bytes(EVP_CIPHER_get0_name(c), strlen(EVP_CIPHER_get0_name(c)),
            "EVP_CIPHER_get0_name");
    for (i = 0; i < sizeof(ikeys) / sizeof(ikeys[0]); i++) {
        int v = 77;
        OSSL_PARAM p[2] = { OSSL_PARAM_int(ikeys[i], &v), OSSL_PARAM_END };

        r_rc(EVP_CIPHER_get_params((EVP_CIPHER *)c, p), "get_params %s",
             ikeys[i]);
        r_int(v, "%s", ikeys[i]);
    }
    for (i = 0; i < sizeof(skeys) / sizeof(skeys[0]); i++) {
        size_t v = 77;
        OSSL_PARAM p[2] = { OSSL_PARAM_size_t(skeys[i], &v), OSSL_PARAM_END };

        r_rc(EVP_CIPHER_get_params((EVP_CIPHER *)c, p), "get_params %s",
             skeys[i]);
        r_int((long long)v, "%s", skeys[i]);
    }
    {
        OSSL_PARAM p[2] = { OSSL_PARAM_uint(OSSL_CIPHER_PARAM_MODE, &mode),
                            OSSL_PARAM_END };

        r_rc(EVP_CIPHER_get_params((EVP_CIPHER *)c, p), "get_params mode");
        r_int(mode, "mode");
    }
    record_names(EVP_CIPHER_gettable_params(c), "gettable_params");
    record_names(EVP_CIPHER_settable_ctx_params(c), "settable_ctx_params");
}

/* Our gettable ctx params may add iv/updated-iv; the default's must be there. */
static void check_gettable_superset(int aead)
{
    EVP_CIPHER **c = aead ? cp : c20;
    const OSSL_PARAM *d = EVP_CIPHER_gettable_ctx_params(c[DFLT]);
    const OSSL_PARAM *o = EVP_CIPHER_gettable_ctx_params(c[OURS]);

    for (; d != NULL && d->key != NULL; d++)
        TU_CHECK(OSSL_PARAM_locate_const(o, d->key) != NULL,
                 "[meta %s] gettable_ctx_params lacks \"%s\"",
                 aead ? "ChaCha20-Poly1305" : "ChaCha20", d->key);
    for (; o != NULL && o->key != NULL; o++)
        if (OSSL_PARAM_locate_const(EVP_CIPHER_gettable_ctx_params(c[DFLT]),
                                    o->key) == NULL)
            printf("# note [meta %s]: gettable_ctx_params adds \"%s\"\n",
                   aead ? "ChaCha20-Poly1305" : "ChaCha20", o->key);
}

static void seq_ctx_params(const EVP_CIPHER *c, const void *arg)
{
    int aead = *(const int *)arg;
    size_t ivlen = aead ? 12 : 16;
    EVP_CIPHER_CTX *ctx = s_new();
    int tls_version = 0x0303;
    unsigned int pad = 0;
    size_t macsize = 0;
    size_t bad_ivs[] = { 8, 13, 16, 12, 0, 32 };
    size_t i;

    s_init(ctx, c, KEY1, aead ? N12 : IV16, 1, "key+iv");
    r_int(EVP_CIPHER_CTX_get_iv_length(ctx), "ctx_get_iv_length");
    r_int(EVP_CIPHER_CTX_get_key_length(ctx), "ctx_get_key_length");
    r_int(EVP_CIPHER_CTX_get_block_size(ctx), "ctx_get_block_size");
    r_int(EVP_CIPHER_CTX_get_tag_length(ctx), "ctx_get_tag_length");
    want_int(0);
    r_int(EVP_CIPHER_CTX_get_mode(ctx), "ctx_get_mode");
    r_int(EVP_CIPHER_CTX_get_num(ctx), "ctx_get_num");
    r_int((long long)EVP_CIPHER_get_flags(EVP_CIPHER_CTX_get0_cipher(ctx)),
          "ctx cipher flags");
    s_get_size(ctx, OSSL_CIPHER_PARAM_KEYLEN);
    s_get_size(ctx, OSSL_CIPHER_PARAM_IVLEN);
    s_get_size(ctx, "no-such-param");

    r_rc(EVP_CIPHER_CTX_set_key_length(ctx, 32), "set_key_length(32)");
    want_rc(1, 0);
    r_rc(EVP_CIPHER_CTX_set_key_length(ctx, 16), "set_key_length(16)");
    want_rc(0, PROV_R_INVALID_KEY_LENGTH);
    r_rc(EVP_CIPHER_CTX_set_key_length(ctx, 64), "set_key_length(64)");
    want_rc(0, PROV_R_INVALID_KEY_LENGTH);
    r_int(EVP_CIPHER_CTX_get_key_length(ctx), "key_length after");
    want_int(32);

    s_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, (int)ivlen, NULL, "SET_IVLEN(own)");
    want_rc(1, 0);
    for (i = 0; i < sizeof(bad_ivs) / sizeof(bad_ivs[0]); i++) {
        char lbl[32];

        if (bad_ivs[i] == ivlen)
            continue;
        snprintf(lbl, sizeof(lbl), "SET_IVLEN(%zu)", bad_ivs[i]);
        s_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, (int)bad_ivs[i], NULL, lbl);
        want_rc(0, PROV_R_INVALID_IV_LENGTH);
        r_int(EVP_CIPHER_CTX_get_iv_length(ctx), "iv_length after %s", lbl);
        want_int((long long)ivlen);
    }

    /* what libssl sends on every TLS <= 1.2 cipher ctx, and other unknowns */
    {
        OSSL_PARAM p[3] = {
            OSSL_PARAM_int(OSSL_CIPHER_PARAM_TLS_VERSION, &tls_version),
            OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_TLS_MAC_SIZE, &macsize),
            OSSL_PARAM_END
        };

        s_set_params(ctx, p, "tls-version(int)+tls-mac-size");
        want_rc(1, 0);
    }
    {
        OSSL_PARAM p[2] = { OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, &pad),
                            OSSL_PARAM_END };

        s_set_params(ctx, p, "padding(0)");
        want_rc(1, 0);
    }
    {
        OSSL_PARAM p[2] = {
            OSSL_PARAM_utf8_string("no-such-param", (char *)"x", 1),
            OSSL_PARAM_END
        };

        s_set_params(ctx, p, "unknown key");
        want_rc(1, 0);
    }
    {
        OSSL_PARAM p[1] = { OSSL_PARAM_END };

        s_set_params(ctx, p, "empty");
        want_rc(1, 0);
    }
    {
        /* sizes in other integer types, and wrong types */
        int k32 = 32;
        unsigned int iv_u = (unsigned int)ivlen;
        OSSL_PARAM p[3] = { OSSL_PARAM_int(OSSL_CIPHER_PARAM_KEYLEN, &k32),
                            OSSL_PARAM_uint(OSSL_CIPHER_PARAM_IVLEN, &iv_u),
                            OSSL_PARAM_END };
        OSSL_PARAM q[2] = {
            OSSL_PARAM_utf8_string(OSSL_CIPHER_PARAM_KEYLEN, (char *)"32", 2),
            OSSL_PARAM_END
        };
        OSSL_PARAM r[2] = {
            OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IVLEN, (char *)"12", 2),
            OSSL_PARAM_END
        };

        s_set_params(ctx, p, "keylen(int) ivlen(uint)");
        s_set_params(ctx, q, "keylen(utf8)");
        want_rc(0, PROV_R_FAILED_TO_GET_PARAMETER);
        s_set_params(ctx, r, "ivlen(octets)");
        want_rc(0, PROV_R_FAILED_TO_GET_PARAMETER);
    }
    r_rc(EVP_CIPHER_CTX_set_padding(ctx, 0), "set_padding(0)");
    want_rc(1, 0);
    /* EVP now re-sends padding=0 on every init */
    s_init(ctx, NULL, NULL, aead ? N12B : IV16B, -1, "iv after set_padding(0)");
    want_rc(1, 0);
    s_init(ctx, NULL, KEY2, NULL, -1, "key after set_padding(0)");
    want_rc(1, 0);
    {
        unsigned char out[80] = { 0 };

        s_upd(ctx, out, PT, sizeof(out), 0, "after set_padding(0)");
        want_rc(1, 0);
    }

    if (!aead) {
        /* AEAD-only ctrls on ChaCha20 */
        s_get_tag(ctx, TAGLEN, "GET_TAG on ChaCha20");
        s_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, TAGLEN, NULL, "SET_TAG on ChaCha20");
        EVP_CIPHER_CTX_free(ctx);
        return;
    }

    /* tag parameters */
    EVP_CIPHER_CTX_free(ctx);
    ctx = s_new();
    s_init(ctx, c, KEY1, N12, 1, "fresh encrypt");
    r_int(EVP_CIPHER_CTX_get_tag_length(ctx), "taglen before");
    want_int(0);
    s_get_size(ctx, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD);
    s_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, TAGLEN, NULL, "SET_TAG(16,NULL)");
    want_rc(1, 0);
    r_int(EVP_CIPHER_CTX_get_tag_length(ctx), "taglen after SET_TAG(16)");
    want_int(16);
    s_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, TAGLEN, STD_TAG,
           "SET_TAG(16,data) encrypting");
    want_rc(0, PROV_R_TAG_NOT_NEEDED);
    s_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 0, NULL, "SET_TAG(0,NULL)");
    want_rc(0, PROV_R_INVALID_TAG_LENGTH);
    s_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 17, NULL, "SET_TAG(17,NULL)");
    want_rc(0, PROV_R_INVALID_TAG_LENGTH);
    s_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 8, NULL, "SET_TAG(8,NULL)");
    want_rc(1, 0);
    r_int(EVP_CIPHER_CTX_get_tag_length(ctx), "taglen after SET_TAG(8)");
    want_int(8);
    s_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, TAGLEN, NULL, "SET_TAG(16,NULL) again");
    {
        unsigned char out[STD_LEN] = { 0 };

        s_upd(ctx, NULL, AAD, STD_AAD, 0, "aad");
        s_upd(ctx, out, PT, STD_LEN, 0, "text");
    }
    s_final(ctx, "encrypt");
    want_rc(1, 0);
    s_get_tag(ctx, TAGLEN, "GET_TAG(16)");
    want_rc(1, 0);
    s_get_tag(ctx, 4, "GET_TAG(4)");
    want_rc(1, 0);
    s_get_tag(ctx, 0, "GET_TAG(0)");
    want_rc(0, PROV_R_INVALID_TAG_LENGTH);
    s_get_tag(ctx, 17, "GET_TAG(17)");
    want_rc(0, PROV_R_INVALID_TAG_LENGTH);
    r_int(EVP_CIPHER_CTX_get_tag_length(ctx), "taglen after encrypt");
    {
        size_t v = 0;
        OSSL_PARAM p[2] = { OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TAG, &v),
                            OSSL_PARAM_END };

        r_rc(EVP_CIPHER_CTX_get_params(ctx, p), "get tag as size_t");
        want_rc(0, -1);
        s_set_params(ctx, p, "set tag as size_t");
        want_rc(0, PROV_R_FAILED_TO_GET_PARAMETER);
    }

    /* decrypting */
    EVP_CIPHER_CTX_free(ctx);
    ctx = s_new();
    s_init(ctx, c, KEY1, N12, 0, "fresh decrypt");
    s_get_tag(ctx, TAGLEN, "GET_TAG decrypting");
    want_rc(0, PROV_R_TAG_NOT_SET);
    s_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 17, STD_TAG, "SET_TAG(17,data)");
    want_rc(0, PROV_R_INVALID_TAG_LENGTH);
    s_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, TAGLEN, STD_TAG, "SET_TAG(16,data)");
    want_rc(1, 0);
    r_int(EVP_CIPHER_CTX_get_tag_length(ctx), "taglen after SET_TAG");
    want_int(16);
    EVP_CIPHER_CTX_free(ctx);
}

/* Parameters passed at init (EVP_CipherInit_ex2), applied by the provider. */
static void seq_init_params(const EVP_CIPHER *c, const void *arg)
{
    int aead = *(const int *)arg;
    size_t k16 = 16, iv8 = 8, k32 = 32;
    EVP_CIPHER_CTX *ctx = s_new();
    OSSL_PARAM pk[2] = { OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, &k16),
                         OSSL_PARAM_END };
    OSSL_PARAM pi[2] = { OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, &iv8),
                         OSSL_PARAM_END };
    OSSL_PARAM ok[2] = { OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, &k32),
                         OSSL_PARAM_END };
    const unsigned char *iv = aead ? N12 : IV16;
    unsigned char out[STD_LEN] = { 0 };

    /* EVP itself refuses these before the provider sees them */
    r_rc(EVP_CipherInit_ex2(ctx, c, KEY1, iv, 1, pk), "init_ex2 keylen=16");
    want_rc(0, -1);
    r_rc(EVP_CipherInit_ex2(ctx, c, KEY1, iv, 1, pi), "init_ex2 ivlen=8");
    want_rc(0, -1);
    r_rc(EVP_CipherInit_ex2(ctx, c, KEY1, iv, 1, ok), "init_ex2 keylen=32");
    want_rc(1, 0);
    s_upd(ctx, out, PT, sizeof(out), 0, "after init_ex2");
    if (aead) {
        OSSL_PARAM pt[2] = {
            OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, 16),
            OSSL_PARAM_END
        };
        OSSL_PARAM pd[2] = {
            OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG,
                                    (void *)STD_TAG, 16),
            OSSL_PARAM_END
        };

        r_rc(EVP_CipherInit_ex2(ctx, NULL, NULL, N12B, 1, pt),
             "init_ex2 iv + tag(16,NULL)");
        want_rc(1, 0);
        r_int(EVP_CIPHER_CTX_get_tag_length(ctx), "taglen");
        want_int(16);
        r_rc(EVP_CipherInit_ex2(ctx, NULL, NULL, N12, 1, pd),
             "init_ex2 encrypt + tag(16,data)");
        want_rc(0, PROV_R_TAG_NOT_NEEDED);
        r_rc(EVP_CipherInit_ex2(ctx, NULL, NULL, N12, 0, pd),
             "init_ex2 decrypt + tag(16,data)");
        want_rc(1, 0);
        s_upd(ctx, NULL, AAD, STD_AAD, 0, "aad");
        s_upd(ctx, out, STD_CT, 100, 0, "text 100");
        s_upd(ctx, out, STD_CT + 100, STD_LEN - 100, 0, "text rest");
        s_final(ctx, "tag from init_ex2");
        want_rc(1, 0);
    }
    EVP_CIPHER_CTX_free(ctx);
}


/* Metadata and parameters, both ciphers */
void cases_params(void)
{
    int zero = 0, one = 1;

    parity("meta ChaCha20", 0, seq_meta, NULL, 1, NULL);
    parity("meta ChaCha20-Poly1305", 1, seq_meta, NULL, 1, NULL);
    check_gettable_superset(0);
    check_gettable_superset(1);
    parity("ctx params ChaCha20", 0, seq_ctx_params, &zero, 1, NULL);
    parity("ctx params ChaCha20-Poly1305", 1, seq_ctx_params, &one, 1, NULL);
    parity("init params ChaCha20", 0, seq_init_params, &zero, 1, NULL);
    parity("init params ChaCha20-Poly1305", 1, seq_init_params, &one, 1, NULL);
}

/* Init splits, both ciphers and directions */
void cases_init_splits(void)
{
    spec s;
    char name[96];
    int i, enc;

    for (i = 0; i <= 5; i++) {
        for (enc = 0; enc <= 1; enc++) {
            spec_c20(&s, enc, IV16, 500);
            chunks(s.ch, &s.n_ch, s.len, pat_a, 6);
            s.split = i;
            snprintf(name, sizeof(name), "init split %d ChaCha20 %s", i,
                     enc ? "enc" : "dec");
            parity(name, 0, run_msg, &s, 1, NULL);
            spec_std(&s, enc);
            chunks(s.aad_ch, &s.n_aad_ch, STD_AAD, pat_d, 3);
            chunks(s.ch, &s.n_ch, s.len, pat_a, 6);
            s.split = i;
            snprintf(name, sizeof(name), "init split %d ChaCha20-Poly1305 %s",
                     i, enc ? "enc" : "dec");
            parity(name, 1, run_msg, &s, 1, NULL);
        }
    }
}
