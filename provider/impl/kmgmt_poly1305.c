/* SPDX-License-Identifier: Apache-2.0 */
/*
 * "POLY1305" key manager: the raw private key behind an EVP_PKEY, so that
 * EVP_PKEY_new_raw_private_key(EVP_PKEY_POLY1305, ...) and
 * `openssl dgst -mac poly1305 -macopt hexkey:...` (a keygen that only copies
 * the key given) work on this provider, with the parameters of OpenSSL's
 * default provider: "priv" (octet string) for import, export, get, set and
 * keygen; "properties" (utf8) accepted on import. The key length is checked
 * where the key is used, by the MAC (32 bytes), as OpenSSL does.
 */
#include <string.h>
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/params.h>
#include <openssl/proverr.h>
#include "prov_ctx.h"
#include "kmgmt_poly1305.h"

typedef chacha_poly1305_key POLY1305_KEY;

/* What keygen copies into the key it makes. */
typedef struct {
    int selection;
    unsigned char *priv;
    size_t priv_len;
} POLY1305_GEN;

static OSSL_FUNC_keymgmt_new_fn key_new;
static OSSL_FUNC_keymgmt_free_fn key_free;
static OSSL_FUNC_keymgmt_has_fn key_has;
static OSSL_FUNC_keymgmt_match_fn key_match;
static OSSL_FUNC_keymgmt_import_fn key_import;
static OSSL_FUNC_keymgmt_import_types_fn key_types;
static OSSL_FUNC_keymgmt_export_fn key_export;
static OSSL_FUNC_keymgmt_get_params_fn key_get_params;
static OSSL_FUNC_keymgmt_gettable_params_fn key_gettable_params;
static OSSL_FUNC_keymgmt_set_params_fn key_set_params;
static OSSL_FUNC_keymgmt_settable_params_fn key_settable_params;
static OSSL_FUNC_keymgmt_gen_init_fn gen_init;
static OSSL_FUNC_keymgmt_gen_set_params_fn gen_set_params;
static OSSL_FUNC_keymgmt_gen_settable_params_fn gen_settable_params;
static OSSL_FUNC_keymgmt_gen_fn gen;
static OSSL_FUNC_keymgmt_gen_cleanup_fn gen_cleanup;

/* Replace *buf with a copy of p's octets (a zero-length key is still a key). */
static int take_priv(const OSSL_PARAM *p, unsigned char **buf, size_t *len)
{
    unsigned char *copy;

    if (p->data_type != OSSL_PARAM_OCTET_STRING
        || (p->data == NULL && p->data_size != 0)) {
        ERR_raise(ERR_LIB_PROV, ERR_R_PASSED_INVALID_ARGUMENT);
        return 0;
    }
    copy = OPENSSL_secure_malloc(p->data_size > 0 ? p->data_size : 1);
    if (copy == NULL) {
        ERR_raise(ERR_LIB_PROV, ERR_R_MALLOC_FAILURE);
        return 0;
    }
    if (p->data_size > 0)
        memcpy(copy, p->data, p->data_size);
    OPENSSL_secure_clear_free(*buf, *len);
    *buf = copy;
    *len = p->data_size;
    return 1;
}

static void *key_new(void *provctx)
{
    if (!chacha_prov_running(provctx))
        return NULL;
    return chacha_ctx_zalloc(sizeof(POLY1305_KEY));
}

static void key_free(void *vkey)
{
    POLY1305_KEY *key = vkey;

    if (key == NULL)
        return;
    OPENSSL_secure_clear_free(key->priv, key->priv_len);
    OPENSSL_free(key);
}

/* A MAC key has no domain parameters and no public half: only the private key can be missing. */
static int key_has(const void *vkey, int selection)
{
    const POLY1305_KEY *key = vkey;

    if (key == NULL)
        return 0;
    if ((selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0)
        return key->priv != NULL;
    return 1;
}

static int key_match(const void *vkey1, const void *vkey2, int selection)
{
    const POLY1305_KEY *a = vkey1, *b = vkey2;

    if ((selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) == 0)
        return 1;
    if ((a->priv == NULL) != (b->priv == NULL) || a->priv_len != b->priv_len)
        return 0;
    return a->priv == NULL || CRYPTO_memcmp(a->priv, b->priv, a->priv_len) == 0;
}

/* "priv" and "properties" from params; the key must have a private key after. */
static int key_fromdata(POLY1305_KEY *key, const OSSL_PARAM params[])
{
    const OSSL_PARAM *p;

    p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_PRIV_KEY);
    if (p != NULL && !take_priv(p, &key->priv, &key->priv_len))
        return 0;
    /* properties for fetching the MAC: ours is the MAC, nothing to keep */
    p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_PROPERTIES);
    if (p != NULL && p->data_type != OSSL_PARAM_UTF8_STRING) {
        ERR_raise(ERR_LIB_PROV, ERR_R_PASSED_INVALID_ARGUMENT);
        return 0;
    }
    return key->priv != NULL;
}

static int key_import(void *vkey, int selection, const OSSL_PARAM params[])
{
    if (vkey == NULL || (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) == 0)
        return 0;
    return key_fromdata(vkey, params);
}

static const OSSL_PARAM key_types_list[] = {
    OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_PRIV_KEY, NULL, 0),
    OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_PROPERTIES, NULL, 0),
    OSSL_PARAM_END
};

static const OSSL_PARAM *key_types(int selection)
{
    return (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0 ? key_types_list : NULL;
}

static int key_export(void *vkey, int selection, OSSL_CALLBACK *cb, void *cbarg)
{
    POLY1305_KEY *key = vkey;
    OSSL_PARAM params[2] = { OSSL_PARAM_END, OSSL_PARAM_END };

    if (key == NULL || (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) == 0)
        return 0;
    if (key->priv != NULL)
        params[0] = OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PRIV_KEY,
                                                      key->priv, key->priv_len);
    return cb(params, cbarg);
}

/* "priv"; anything else asked (bits, max-size ...) is left unanswered. */
static int key_get_params(void *vkey, OSSL_PARAM params[])
{
    POLY1305_KEY *key = vkey;
    OSSL_PARAM *p;

    if (key == NULL)
        return 0;
    p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_PRIV_KEY);
    if (p != NULL && key->priv != NULL
        && !OSSL_PARAM_set_octet_string(p, key->priv, key->priv_len))
        return 0;
    return 1;
}

static const OSSL_PARAM priv_only[] = {
    OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_PRIV_KEY, NULL, 0),
    OSSL_PARAM_END
};

static const OSSL_PARAM *key_gettable_params(void *provctx)
{
    (void)provctx;
    return priv_only;
}

static int key_set_params(void *vkey, const OSSL_PARAM params[])
{
    if (vkey == NULL)
        return 0;
    if (OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_PRIV_KEY) == NULL)
        return 1;
    return key_fromdata(vkey, params);
}

static const OSSL_PARAM *key_settable_params(void *provctx)
{
    (void)provctx;
    return priv_only;
}

static void *gen_init(void *provctx, int selection, const OSSL_PARAM params[])
{
    POLY1305_GEN *g;

    if (!chacha_prov_running(provctx))
        return NULL;
    g = chacha_ctx_zalloc(sizeof(*g));
    if (g == NULL)
        return NULL;
    g->selection = selection;
    if (!gen_set_params(g, params)) {
        gen_cleanup(g);
        return NULL;
    }
    return g;
}

static int gen_set_params(void *vgen, const OSSL_PARAM params[])
{
    POLY1305_GEN *g = vgen;
    const OSSL_PARAM *p;

    if (g == NULL)
        return 0;
    p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_PRIV_KEY);
    return p == NULL || take_priv(p, &g->priv, &g->priv_len);
}

static const OSSL_PARAM *gen_settable_params(void *vgen, void *provctx)
{
    (void)vgen;
    (void)provctx;
    return priv_only;
}

/*
 * No key is generated: the key set with "priv" (e.g. -macopt hexkey:) moves
 * into the new key, as OpenSSL does. Without one it is an error, except for
 * a parameters-only request, which gets an empty key.
 */
static void *gen(void *vgen, OSSL_CALLBACK *cb, void *cbarg)
{
    POLY1305_GEN *g = vgen;
    POLY1305_KEY *key;

    (void)cb;
    (void)cbarg;
    if (g == NULL)
        return NULL;
    if ((g->selection & OSSL_KEYMGMT_SELECT_KEYPAIR) != 0 && g->priv == NULL) {
        ERR_raise(ERR_LIB_PROV, PROV_R_INVALID_KEY);
        return NULL;
    }
    if ((key = chacha_ctx_zalloc(sizeof(*key))) == NULL)
        return NULL;
    if ((g->selection & OSSL_KEYMGMT_SELECT_KEYPAIR) != 0) {
        key->priv = g->priv;
        key->priv_len = g->priv_len;
        g->priv = NULL;
        g->priv_len = 0;
    }
    return key;
}

static void gen_cleanup(void *vgen)
{
    POLY1305_GEN *g = vgen;

    if (g == NULL)
        return;
    OPENSSL_secure_clear_free(g->priv, g->priv_len);
    OPENSSL_free(g);
}

const OSSL_DISPATCH chacha_poly1305_keymgmt_functions[] = {
    { OSSL_FUNC_KEYMGMT_NEW, (void (*)(void))key_new },
    { OSSL_FUNC_KEYMGMT_FREE, (void (*)(void))key_free },
    { OSSL_FUNC_KEYMGMT_GET_PARAMS, (void (*)(void))key_get_params },
    { OSSL_FUNC_KEYMGMT_GETTABLE_PARAMS, (void (*)(void))key_gettable_params },
    { OSSL_FUNC_KEYMGMT_SET_PARAMS, (void (*)(void))key_set_params },
    { OSSL_FUNC_KEYMGMT_SETTABLE_PARAMS, (void (*)(void))key_settable_params },
    { OSSL_FUNC_KEYMGMT_HAS, (void (*)(void))key_has },
    { OSSL_FUNC_KEYMGMT_MATCH, (void (*)(void))key_match },
    { OSSL_FUNC_KEYMGMT_IMPORT, (void (*)(void))key_import },
    { OSSL_FUNC_KEYMGMT_IMPORT_TYPES, (void (*)(void))key_types },
    { OSSL_FUNC_KEYMGMT_EXPORT, (void (*)(void))key_export },
    { OSSL_FUNC_KEYMGMT_EXPORT_TYPES, (void (*)(void))key_types },
    { OSSL_FUNC_KEYMGMT_GEN_INIT, (void (*)(void))gen_init },
    { OSSL_FUNC_KEYMGMT_GEN_SET_PARAMS, (void (*)(void))gen_set_params },
    { OSSL_FUNC_KEYMGMT_GEN_SETTABLE_PARAMS, (void (*)(void))gen_settable_params },
    { OSSL_FUNC_KEYMGMT_GEN, (void (*)(void))gen },
    { OSSL_FUNC_KEYMGMT_GEN_CLEANUP, (void (*)(void))gen_cleanup },
    { 0, NULL }
};
