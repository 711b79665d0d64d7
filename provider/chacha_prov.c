/* SPDX-License-Identifier: Apache-2.0 */
/* chacha provider entry point: parameters, algorithm table, backend choice. */
#ifdef HAVE_CONFIG_H
# include "config.h"
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/proverr.h>
#include <openssl/params.h>
#include "prov_ctx.h"
#include "cpu.h"
#include "registry.h"

#ifndef PACKAGE_VERSION
# define PACKAGE_VERSION "0.0"
#endif

#define PROV_PARAM_CHACHA20_IMPL "chacha20-impl"
#define PROV_PARAM_POLY1305_IMPL "poly1305-impl"
#define PROV_PARAM_AEAD_IMPL "chacha20-poly1305-impl"

static const OSSL_ALGORITHM chacha_ciphers[] = {
    { "ChaCha20", "provider=chacha", chacha_chacha20_functions,
      "ChaCha20 stream cipher (OpenSSL 16-byte IV layout)" },
    { "ChaCha20-Poly1305", "provider=chacha", chacha_chacha20_poly1305_functions,
      "ChaCha20-Poly1305 AEAD (RFC 8439)" },
    { "XChaCha20", "provider=chacha", chacha_xchacha20_functions,
      "XChaCha20 stream cipher (24-byte nonce, 64-bit counter)" },
    { "XChaCha20-Poly1305", "provider=chacha", chacha_xchacha20_poly1305_functions,
      "XChaCha20-Poly1305 AEAD (draft-irtf-cfrg-xchacha-03, 24-byte nonce)" },
    { NULL, NULL, NULL, NULL }
};

static const OSSL_ALGORITHM chacha_macs[] = {
    { "POLY1305", "provider=chacha", chacha_poly1305_mac_functions,
      "Poly1305 one-time authenticator (RFC 8439)" },
    { NULL, NULL, NULL, NULL }
};

/* POLY1305 as an EVP_PKEY (the 1.1.1 API), as OpenSSL's default provider */
static const OSSL_ALGORITHM chacha_keymgmt[] = {
    { "POLY1305", "provider=chacha", chacha_poly1305_keymgmt_functions,
      "POLY1305 MAC keys for EVP_PKEY (EVP_PKEY_new_raw_private_key)" },
    { NULL, NULL, NULL, NULL }
};

static const OSSL_ALGORITHM chacha_signatures[] = {
    { "POLY1305", "provider=chacha", chacha_poly1305_signature_functions,
      "POLY1305 MAC through EVP_DigestSign" },
    { NULL, NULL, NULL, NULL }
};

static const OSSL_PARAM chacha_gettable_params_list[] = {
    OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_NAME, NULL, 0),
    OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_VERSION, NULL, 0),
    OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_BUILDINFO, NULL, 0),
    OSSL_PARAM_int(OSSL_PROV_PARAM_STATUS, NULL),
    OSSL_PARAM_utf8_ptr(PROV_PARAM_CHACHA20_IMPL, NULL, 0),
    OSSL_PARAM_utf8_ptr(PROV_PARAM_POLY1305_IMPL, NULL, 0),
    OSSL_PARAM_utf8_ptr(PROV_PARAM_AEAD_IMPL, NULL, 0),
    OSSL_PARAM_END
};

static const OSSL_PARAM *chacha_gettable_params(void *provctx)
{
    (void)provctx;
    return chacha_gettable_params_list;
}

static int chacha_get_params(void *provctx, OSSL_PARAM params[])
{
    CHACHA_PROV_CTX *pctx = provctx;
    OSSL_PARAM *p;

    p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_NAME);
    if (p != NULL && !OSSL_PARAM_set_utf8_ptr(p, "chacha-provider: ChaCha20, "
                                              "ChaCha20-Poly1305, XChaCha20(-Poly1305), "
                                              "Poly1305"))
        return 0;
    p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_VERSION);
    if (p != NULL && !OSSL_PARAM_set_utf8_ptr(p, PACKAGE_VERSION))
        return 0;
    p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_BUILDINFO);
    if (p != NULL && !OSSL_PARAM_set_utf8_ptr(p, pctx->buildinfo))
        return 0;
    p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_STATUS);
    if (p != NULL && !OSSL_PARAM_set_int(p, 1))
        return 0;
    p = OSSL_PARAM_locate(params, PROV_PARAM_CHACHA20_IMPL);
    if (p != NULL && !OSSL_PARAM_set_utf8_ptr(p, pctx->chacha->name))
        return 0;
    p = OSSL_PARAM_locate(params, PROV_PARAM_POLY1305_IMPL);
    if (p != NULL && !OSSL_PARAM_set_utf8_ptr(p, pctx->poly->name))
        return 0;
    p = OSSL_PARAM_locate(params, PROV_PARAM_AEAD_IMPL);
    if (p != NULL && !OSSL_PARAM_set_utf8_ptr(p, chacha_aead_kernel_name(pctx)))
        return 0;
    return 1;
}

static const OSSL_ALGORITHM *chacha_query(void *provctx, int operation_id,
                                          int *no_cache)
{
    (void)provctx;
    *no_cache = 0;
    switch (operation_id) {
    case OSSL_OP_CIPHER:
        return chacha_ciphers;
    case OSSL_OP_MAC:
        return chacha_macs;
    case OSSL_OP_KEYMGMT:
        return chacha_keymgmt;
    case OSSL_OP_SIGNATURE:
        return chacha_signatures;
    default:
        return NULL;
    }
}

static const OSSL_ITEM *chacha_get_reason_strings(void *provctx)
{
    (void)provctx;
    return chacha_reason_strings;
}

static void chacha_teardown(void *provctx)
{
    CHACHA_PROV_CTX *pctx = provctx;

    if (pctx == NULL)
        return;
    OPENSSL_free(pctx);
}

static const OSSL_DISPATCH chacha_provider_functions[] = {
    { OSSL_FUNC_PROVIDER_TEARDOWN, (void (*)(void))chacha_teardown },
    { OSSL_FUNC_PROVIDER_GETTABLE_PARAMS, (void (*)(void))chacha_gettable_params },
    { OSSL_FUNC_PROVIDER_GET_PARAMS, (void (*)(void))chacha_get_params },
    { OSSL_FUNC_PROVIDER_QUERY_OPERATION, (void (*)(void))chacha_query },
    { OSSL_FUNC_PROVIDER_GET_REASON_STRINGS, (void (*)(void))chacha_get_reason_strings },
    { 0, NULL }
};

/*
 * The backend is chosen from, in order: the environment (CHACHA_PROVIDER_IMPL,
 * CHACHA_PROVIDER_POLY1305_IMPL), the provider's config section (impl =,
 * poly1305_impl =), else the widest the CPU runs. A name the CPU cannot run
 * fails the load: a forced path is never silently downgraded.
 */
static const char *config_value(const CHACHA_PROV_CTX *pctx, const char *key)
{
    const char *value = NULL;
    OSSL_PARAM params[2];

    if (pctx->core_get_params == NULL)
        return NULL;
    params[0] = OSSL_PARAM_construct_utf8_ptr(key, (char **)&value, 0);
    params[1] = OSSL_PARAM_construct_end();
    if (!pctx->core_get_params(pctx->handle, params))
        return NULL;
    return value;
}

static const char *choice(const CHACHA_PROV_CTX *pctx, const char *env,
                          const char *key)
{
    const char *v = getenv(env);

    if (v != NULL && *v != '\0')
        return v;
    return config_value(pctx, key);
}

/*
 * A failed load is never silent: the reason goes on the error queue (under
 * OpenSSL's PROV library: the core registers our reason strings only after a
 * successful init) and, since applications loading us from a config file
 * rarely print the queue, as one line on stderr.
 */
static void load_failed(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

static void load_failed(const char *fmt, ...)
{
    char msg[320];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    ERR_raise_data(ERR_LIB_PROV, PROV_R_INVALID_CONFIG_DATA, "%s", msg);
    fprintf(stderr, "chacha-provider: not loaded: %s\n", msg);
}

static void raise_select_error(enum chacha_primitive prim, const char *name,
                               enum chacha_select_status status)
{
    static const char *const why[] = {
        [CHACHA_SELECT_UNKNOWN] = "is unknown",
        [CHACHA_SELECT_UNSUPPORTED] = "is not supported by this CPU",
        [CHACHA_SELECT_NOT_BUILT] = "is not built into this module",
    };
    char usable[128];

    chacha_usable_names(prim, usable, sizeof(usable));
    load_failed("%s implementation \"%s\" %s (this CPU runs: %s)",
                prim == CHACHA_PRIM_CHACHA20 ? "chacha20" : "poly1305",
                name, why[status], usable);
}

static int select_kernels(CHACHA_PROV_CTX *pctx)
{
    const char *cname = choice(pctx, "CHACHA_PROVIDER_IMPL", "impl");
    const char *pname = choice(pctx, "CHACHA_PROVIDER_POLY1305_IMPL",
                               "poly1305_impl");
    const char *bad = chacha_cpu_disable_error();
    enum chacha_select_status status;

    if (bad != NULL) {
        load_failed("CHACHA_PROVIDER_DISABLE names an unknown feature \"%s\""
                    " (known: ssse3 avx2 avx512f avx512vl avx512bw avx512ifma"
                    " bmi2 adx neon zmm all)", bad);
        return 0;
    }
    pctx->chacha = chacha_select_chacha20(cname, &status);
    if (pctx->chacha == NULL) {
        raise_select_error(CHACHA_PRIM_CHACHA20, cname, status);
        return 0;
    }
    pctx->poly = chacha_select_poly1305(pname, &status);
    if (pctx->poly == NULL) {
        raise_select_error(CHACHA_PRIM_POLY1305, pname, status);
        return 0;
    }
    pctx->fused = chacha_select_fused(pctx->chacha, pctx->poly);
    snprintf(pctx->buildinfo, sizeof(pctx->buildinfo),
             "chacha-provider %s (chacha20=%s poly1305=%s aead=%s), built with %s",
             PACKAGE_VERSION, pctx->chacha->name, pctx->poly->name,
             chacha_aead_kernel_name(pctx), OPENSSL_VERSION_TEXT);
    return 1;
}

OPENSSL_EXPORT int OSSL_provider_init(const OSSL_CORE_HANDLE *handle,
                                      const OSSL_DISPATCH *in,
                                      const OSSL_DISPATCH **out, void **provctx);

int OSSL_provider_init(const OSSL_CORE_HANDLE *handle, const OSSL_DISPATCH *in,
                       const OSSL_DISPATCH **out, void **provctx)
{
    CHACHA_PROV_CTX *pctx = OPENSSL_zalloc(sizeof(*pctx));
    const char *dbg;

    if (pctx == NULL)
        return 0;
    /* the upcalls live in the instance: loads in other threads never race */
    for (; in->function_id != 0; in++) {
        switch (in->function_id) {
        case OSSL_FUNC_CORE_GET_PARAMS:
            pctx->core_get_params = OSSL_FUNC_core_get_params(in);
            break;
        case OSSL_FUNC_CORE_NEW_ERROR:
            pctx->core_new_error = OSSL_FUNC_core_new_error(in);
            break;
        case OSSL_FUNC_CORE_SET_ERROR_DEBUG:
            pctx->core_set_error_debug = OSSL_FUNC_core_set_error_debug(in);
            break;
        case OSSL_FUNC_CORE_VSET_ERROR:
            pctx->core_vset_error = OSSL_FUNC_core_vset_error(in);
            break;
        default:
            break;
        }
    }
    pctx->handle = handle;
    dbg = getenv("CHACHA_PROVIDER_DEBUG");
    pctx->debug = dbg != NULL && *dbg != '\0' && strcmp(dbg, "0") != 0;
    if (!select_kernels(pctx)) {
        OPENSSL_free(pctx);
        return 0;
    }
    if (pctx->debug)
        fprintf(stderr, "chacha-provider: loaded %s, chacha20=%s poly1305=%s aead=%s\n",
                PACKAGE_VERSION, pctx->chacha->name, pctx->poly->name,
                chacha_aead_kernel_name(pctx));
    *out = chacha_provider_functions;
    *provctx = pctx;
    return 1;
}
