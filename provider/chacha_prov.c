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
#include "prov.h"

#ifndef PACKAGE_VERSION
# define PACKAGE_VERSION "0.0"
#endif

#define PROV_PARAM_CHACHA20_IMPL "chacha20-impl"
#define PROV_PARAM_POLY1305_IMPL "poly1305-impl"
#define PROV_PARAM_AEAD_IMPL "chacha20-poly1305-impl"

void chacha_raise(const CHACHA_PROV_CTX *pctx, int reason, const char *fmt, ...)
{
    va_list ap;

    if (pctx == NULL || pctx->core_new_error == NULL || pctx->core_vset_error == NULL)
        return;
    pctx->core_new_error(pctx->handle);
    if (pctx->core_set_error_debug != NULL)
        pctx->core_set_error_debug(pctx->handle, NULL, 0, NULL);
    va_start(ap, fmt);
    pctx->core_vset_error(pctx->handle, (uint32_t)reason, fmt, ap);
    va_end(ap);
}

/* "avx2-fused", or "two-step" when ChaCha20 and Poly1305 run one after the other */
static const char *aead_impl_name(const CHACHA_PROV_CTX *pctx)
{
    return pctx->fused != NULL ? "avx2-fused" : "two-step";
}

void chacha_trace_newctx(const CHACHA_PROV_CTX *pctx, const char *alg)
{
    if (pctx->debug)
        fprintf(stderr, "chacha-provider: new %s context (chacha20=%s, poly1305=%s,"
                " aead=%s)\n", alg, pctx->chacha->name, pctx->poly->name,
                aead_impl_name(pctx));
}

static const OSSL_ALGORITHM chacha_ciphers[] = {
    { "ChaCha20", "provider=chacha", chacha_chacha20_functions,
      "ChaCha20 stream cipher (OpenSSL 16-byte IV layout)" },
    { "ChaCha20-Poly1305", "provider=chacha", chacha_chacha20_poly1305_functions,
      "ChaCha20-Poly1305 AEAD (RFC 8439)" },
    { NULL, NULL, NULL, NULL }
};

static const OSSL_ALGORITHM chacha_macs[] = {
    { "POLY1305", "provider=chacha", chacha_poly1305_mac_functions,
      "Poly1305 one-time authenticator (RFC 8439)" },
    { NULL, NULL, NULL, NULL }
};

static const OSSL_ITEM chacha_reason_strings[] = {
    { CHACHA_R_NONCE_EXHAUSTED, "too much data for one nonce" },
    { CHACHA_R_ALREADY_FINALISED, "operation already finalised, set a new iv" },
    { CHACHA_R_BAD_TLS_RECORD, "bad tls record length" },
    { CHACHA_R_IV_NOT_SET, "iv not set" },
    { 0, NULL }
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
    if (p != NULL && !OSSL_PARAM_set_utf8_ptr(p, "chacha-provider: ChaCha20 and ChaCha20-Poly1305"))
        return 0;
    p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_VERSION);
    if (p != NULL && !OSSL_PARAM_set_utf8_ptr(p, PACKAGE_VERSION))
        return 0;
    p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_BUILDINFO);
    if (p != NULL && !OSSL_PARAM_set_utf8_ptr(p, "chacha-provider " PACKAGE_VERSION
                                              ", built with " OPENSSL_VERSION_TEXT))
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
    if (p != NULL && !OSSL_PARAM_set_utf8_ptr(p, aead_impl_name(pctx)))
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

/* "avx2 ssse3 portable": the names this CPU can run, for error messages. */
static void usable_names(char *buf, size_t len, int poly)
{
    size_t i, used = 0;

    buf[0] = '\0';
    for (i = 0; poly ? poly1305_impl_list[i] != NULL : chacha20_impl_list[i] != NULL; i++) {
        const char *name = poly ? poly1305_impl_list[i]->name : chacha20_impl_list[i]->name;
        unsigned int caps = poly ? poly1305_impl_list[i]->caps : chacha20_impl_list[i]->caps;
        int n;

        if (!chacha_caps_ok(caps))
            continue;
        n = snprintf(buf + used, len - used, "%s%s", used ? " " : "", name);
        if (n < 0 || (size_t)n >= len - used)
            break;
        used += (size_t)n;
    }
}

/*
 * The core registers our reason strings only after a successful init, so a
 * failed load reports through OpenSSL's own PROV library, with the detail
 * (and on stderr with CHACHA_PROVIDER_DEBUG: a failed load from a config
 * file is otherwise silent unless config_diagnostics is on).
 */
static void raise_impl_error(const CHACHA_PROV_CTX *pctx, const char *prim,
                             const char *name, const char *why,
                             const char *usable)
{
    char msg[256];

    snprintf(msg, sizeof(msg), "%s implementation \"%s\" %s (this CPU runs: %s)",
             prim, name, strcmp(why, "unknown") == 0 ? "is unknown"
                                                     : "is not supported by this CPU",
             usable);
    ERR_raise_data(ERR_LIB_PROV, PROV_R_INVALID_CONFIG_DATA, "%s", msg);
    if (pctx->debug)
        fprintf(stderr, "chacha-provider: load failed: %s\n", msg);
}

static int select_backends(CHACHA_PROV_CTX *pctx)
{
    char names[128];
    const char *cname = choice(pctx, "CHACHA_PROVIDER_IMPL", "impl");
    const char *pname = choice(pctx, "CHACHA_PROVIDER_POLY1305_IMPL",
                               "poly1305_impl");
    const char *why;

    pctx->chacha = chacha20_impl_select(cname, &why);
    if (pctx->chacha == NULL) {
        usable_names(names, sizeof(names), 0);
        raise_impl_error(pctx, "chacha20", cname, why, names);
        return 0;
    }
    pctx->poly = poly1305_impl_select(pname, &why);
    if (pctx->poly == NULL) {
        usable_names(names, sizeof(names), 1);
        raise_impl_error(pctx, "poly1305", pname, why, names);
        return 0;
    }
    pctx->fused = chacha20_poly1305_impl_for(pctx->chacha, pctx->poly);
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
    if (!select_backends(pctx)) {
        OPENSSL_free(pctx);
        return 0;
    }
    if (pctx->debug)
        fprintf(stderr, "chacha-provider: loaded %s, chacha20=%s poly1305=%s aead=%s\n",
                PACKAGE_VERSION, pctx->chacha->name, pctx->poly->name,
                aead_impl_name(pctx));
    *out = chacha_provider_functions;
    *provctx = pctx;
    return 1;
}
