/* SPDX-License-Identifier: Apache-2.0 */
/* chacha provider entry point: parameters, algorithm table, kernel choice. */
/* clock_gettime (CLOCK_MONOTONIC) under -std=c11 */
#define _POSIX_C_SOURCE 200809L
#ifdef HAVE_CONFIG_H
# include "config.h"
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/proverr.h>
#include <openssl/params.h>
#include <openssl/self_test.h>
#include "prov_ctx.h"
#include "cpu.h"
#include "registry.h"
#include "selftest.h"
#include "shortpath.h"

#ifndef PACKAGE_VERSION
# define PACKAGE_VERSION "0.0"
#endif

#define PROV_PARAM_CHACHA20_IMPL "chacha20-impl"
#define PROV_PARAM_POLY1305_IMPL "poly1305-impl"
#define PROV_PARAM_AEAD_IMPL "chacha20-poly1305-impl"
#define PROV_PARAM_PATH_RULE "chacha20-path-rule"

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
    OSSL_PARAM_utf8_ptr(PROV_PARAM_PATH_RULE, NULL, 0),
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
    if (p != NULL && !OSSL_PARAM_set_int(p, atomic_load(&pctx->failed) ? 0 : 1))
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
    p = OSSL_PARAM_locate(params, PROV_PARAM_PATH_RULE);
    if (p != NULL && !OSSL_PARAM_set_utf8_ptr(p, pctx->short_rule))
        return 0;
    return 1;
}

static const OSSL_ALGORITHM *chacha_query(void *provctx, int operation_id,
                                          int *no_cache)
{
    *no_cache = 0;
    /* the error state: nothing to fetch (the core flushed what it cached) */
    if (!chacha_prov_running(provctx))
        return NULL;
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

/*
 * The known-answer tests (core/selftest.c) on this instance's kernels,
 * reported to the application's OSSL_SELF_TEST callback when it set one
 * (OSSL_SELF_TEST_set_callback): start, pass or fail per vector, and the
 * "Corrupt" phase, in which the callback may have an output byte flipped --
 * OpenSSL's own way to test a provider's failure path (FIPS provider).
 */
typedef struct {
    OSSL_SELF_TEST *st;
    char desc[160];
} selftest_report;

static void report_begin(void *arg, const char *kernel, const char *vector)
{
    selftest_report *r = arg;

    snprintf(r->desc, sizeof(r->desc), "%s (%s)", vector, kernel);
    OSSL_SELF_TEST_onbegin(r->st, OSSL_SELF_TEST_TYPE_KAT_CIPHER, r->desc);
}

static void report_corrupt(void *arg, uint8_t *out)
{
    selftest_report *r = arg;

    OSSL_SELF_TEST_oncorrupt_byte(r->st, out);
}

static void report_end(void *arg, int ok)
{
    selftest_report *r = arg;

    OSSL_SELF_TEST_onend(r->st, ok);
}

/*
 * Run the tests; on failure write what failed to msg. The time taken goes to
 * the debug trace. when: "at load" or "on demand". At load without a
 * callback, a combination of kernels that passed earlier in this process
 * is not tested again (core/selftest.h: chacha_selftest_run_once).
 */
static int run_selftest(CHACHA_PROV_CTX *pctx, const char *when, char *msg,
                        size_t msglen)
{
    int at_load = strcmp(when, "at load") == 0, ran = 1;
    selftest_report rep = { NULL, "" };
    chacha_selftest_hooks hooks = { report_begin, report_corrupt, report_end, &rep };
    chacha_selftest_failure fail = { "", NULL };
    OSSL_CALLBACK *cb = NULL;
    void *cbarg = NULL;
    struct timespec t0, t1;
    /*
     * Debug only: the minor page faults the tests took (process-wide, so
     * another thread's count too), first use of code, data and stack pages,
     * which on some VMs cost 15-40 us each, several times the tests' own work
     */
    struct rusage ru0, ru1;
    int ok;

    if (pctx->self_test_cb != NULL && pctx->core_get_libctx != NULL)
        pctx->self_test_cb(pctx->core_get_libctx(pctx->handle), &cb, &cbarg);
    if (cb != NULL && (rep.st = OSSL_SELF_TEST_new(cb, cbarg)) == NULL) {
        /* a callback that asked to watch cannot: fail closed */
        snprintf(msg, msglen, "out of memory for the self-test callback");
        return 0;
    }
    if (pctx->debug)
        getrusage(RUSAGE_SELF, &ru0);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (at_load && rep.st == NULL)
        ok = chacha_selftest_run_once(pctx->chacha, pctx->poly, pctx->fused,
                                      pctx->scalar_blocks, pctx->hybrid, &fail, &ran);
    else
        ok = chacha_selftest_run(pctx->chacha, pctx->poly, pctx->fused,
                                 pctx->scalar_blocks, pctx->hybrid,
                                 rep.st != NULL ? &hooks : NULL, &fail);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (pctx->debug)
        getrusage(RUSAGE_SELF, &ru1);
    OSSL_SELF_TEST_free(rep.st);
    if (!ok)
        snprintf(msg, msglen, "kernel %s, vector \"%s\"", fail.kernel, fail.vector);
    if (pctx->debug)
        fprintf(stderr, "chacha-provider: self-test %s %s in %ld us, %ld page faults"
                " (chacha20=%s poly1305=%s aead=%s)\n", when,
                !ran ? "passed earlier in this process, not rerun," : ok ? "passed" : "FAILED",
                (long)((t1.tv_sec - t0.tv_sec) * 1000000L
                       + (t1.tv_nsec - t0.tv_nsec) / 1000),
                ru1.ru_minflt - ru0.ru_minflt, pctx->chacha->name, pctx->poly->name, chacha_aead_kernel_name(pctx));
    return ok;
}

/*
 * OSSL_PROVIDER_self_test(): a failure puts the instance into the error
 * state for good (as OpenSSL's FIPS provider): status 0, fetches and every
 * operation, also of contexts made before, fail with the reason.
 */
static int chacha_self_test(void *provctx)
{
    CHACHA_PROV_CTX *pctx = provctx;
    char msg[160];

    if (!chacha_prov_running(pctx))
        return 0;
    if (run_selftest(pctx, "on demand", msg, sizeof(msg)))
        return 1;
    snprintf(pctx->selftest_error, sizeof(pctx->selftest_error), "on demand: %s", msg);
    atomic_store(&pctx->failed, 1);
    CHACHA_RAISE(pctx, CHACHA_R_SELF_TEST_FAILED, "on demand: %s", msg);
    fprintf(stderr, "chacha-provider: error state: self-test on demand failed: %s\n", msg);
    return 0;
}

static const OSSL_DISPATCH chacha_provider_functions[] = {
    { OSSL_FUNC_PROVIDER_TEARDOWN, (void (*)(void))chacha_teardown },
    { OSSL_FUNC_PROVIDER_SELF_TEST, (void (*)(void))chacha_self_test },
    { OSSL_FUNC_PROVIDER_GETTABLE_PARAMS, (void (*)(void))chacha_gettable_params },
    { OSSL_FUNC_PROVIDER_GET_PARAMS, (void (*)(void))chacha_get_params },
    { OSSL_FUNC_PROVIDER_QUERY_OPERATION, (void (*)(void))chacha_query },
    { OSSL_FUNC_PROVIDER_GET_REASON_STRINGS, (void (*)(void))chacha_get_reason_strings },
    { 0, NULL }
};

/*
 * The kernel is chosen from, in order: the environment (CHACHA_PROVIDER_IMPL,
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
static void load_failed(int reason, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void load_failed(int reason, const char *fmt, ...)
{
    char msg[320];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    ERR_raise_data(ERR_LIB_PROV, reason, "%s", msg);
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
    load_failed(PROV_R_INVALID_CONFIG_DATA,
                "%s implementation \"%s\" %s (this CPU runs: %s)",
                prim == CHACHA_PRIM_CHACHA20 ? "chacha20" : "poly1305",
                name, why[status], usable);
}

static int select_kernels(CHACHA_PROV_CTX *pctx)
{
    const char *cname = choice(pctx, "CHACHA_PROVIDER_IMPL", "impl");
    const char *pname = choice(pctx, "CHACHA_PROVIDER_POLY1305_IMPL",
                               "poly1305_impl");
    const char *bad = chacha_cpu_disable_error();
    const char *sname, *hname;
    enum chacha_select_status status;
    chacha_short_rule rule;

    if (bad != NULL) {
        char words[160];

        chacha_cpu_disable_words(words, sizeof(words));
        load_failed(PROV_R_INVALID_CONFIG_DATA,
                    "CHACHA_PROVIDER_DISABLE names an unknown feature \"%s\""
                    " (known: %s)", bad, words);
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
    pctx->fused = chacha_select_fused(pctx->chacha, pctx->poly,
                                      chacha_select_is_auto(cname));
    sname = choice(pctx, "CHACHA_PROVIDER_SCALAR_BLOCKS", "scalar_blocks");
    hname = choice(pctx, "CHACHA_PROVIDER_HYBRID", "hybrid");
    if (!chacha_short_rule_choose(pctx->chacha, sname, hname, &rule)) {
        load_failed(PROV_R_INVALID_CONFIG_DATA,
                    "scalar_blocks \"%s\" (auto or 0..%d) or hybrid \"%s\""
                    " (auto, on, pairs or off) is not valid", sname ? sname : "auto",
                    CHACHA_SCALAR_BLOCKS_MAX, hname ? hname : "auto");
        return 0;
    }
    pctx->scalar_blocks = rule.scalar_blocks;
    pctx->hybrid = rule.hybrid;
    /*
     * The paired passes fill the vector pipes that a fused kernel's
     * stitched MAC fills in a single pass: with them, the AEAD runs the
     * paired ChaCha20 and then Poly1305 (Zen 5, avx512 + ifma, bulk seal
     * 8 KiB 0.347 -> 0.286 TSC ticks a byte, 16 KiB 0.337 -> 0.280)
     */
    if (pctx->hybrid == 2)
        pctx->fused = NULL;
    chacha_short_rule_describe(&rule, pctx->short_rule, sizeof(pctx->short_rule));
    snprintf(pctx->buildinfo, sizeof(pctx->buildinfo),
             "chacha-provider %s (chacha20=%s poly1305=%s aead=%s),"
             " %s, built with %s",
             PACKAGE_VERSION, pctx->chacha->name, pctx->poly->name,
             chacha_aead_kernel_name(pctx), pctx->short_rule, OPENSSL_VERSION_TEXT);
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
        case OSSL_FUNC_CORE_GET_LIBCTX:
            pctx->core_get_libctx = OSSL_FUNC_core_get_libctx(in);
            break;
        case OSSL_FUNC_SELF_TEST_CB:
            pctx->self_test_cb = OSSL_FUNC_self_test_cb(in);
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
    /* the known answers on the chosen kernels: a wrong kernel is never loaded */
    if (!run_selftest(pctx, "at load", pctx->selftest_error,
                      sizeof(pctx->selftest_error))) {
        /* OpenSSL's reason for a failed power-on self-test */
        load_failed(PROV_R_SELF_TEST_POST_FAILURE, "self-test at load failed: %s",
                    pctx->selftest_error);
        OPENSSL_free(pctx);
        return 0;
    }
#ifdef CHACHA_TEST_BROKEN_KERNEL
    chacha_test_broken_arm();
#endif
    if (pctx->debug)
        fprintf(stderr, "chacha-provider: loaded %s, chacha20=%s poly1305=%s aead=%s"
                " %s\n", PACKAGE_VERSION, pctx->chacha->name,
                pctx->poly->name, chacha_aead_kernel_name(pctx), pctx->short_rule);
    *out = chacha_provider_functions;
    *provctx = pctx;
    return 1;
}
