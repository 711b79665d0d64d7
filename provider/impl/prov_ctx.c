/* SPDX-License-Identifier: Apache-2.0 */
/* Error raising and tracing shared by the algorithm dispatch files. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include "prov_ctx.h"
#include "shortpath.h"

const OSSL_ITEM chacha_reason_strings[] = {
    { CHACHA_R_NONCE_EXHAUSTED, "too much data for one nonce" },
    { CHACHA_R_ALREADY_FINALISED, "operation already finalised, set a new iv" },
    { CHACHA_R_BAD_TLS_RECORD, "bad tls record length" },
    { CHACHA_R_IV_NOT_SET, "iv not set" },
    { CHACHA_R_SELF_TEST_FAILED, "provider in error state: self-test failed" },
    { CHACHA_R_IV_HOLDS_KEY, "iv holds key bytes" },
    { 0, NULL }
};

void chacha_raise_at(const CHACHA_PROV_CTX *pctx, const char *file, int line,
                     const char *func, int reason, const char *fmt, ...)
{
    va_list ap;

    if (pctx == NULL || pctx->core_new_error == NULL || pctx->core_vset_error == NULL)
        return;
    pctx->core_new_error(pctx->handle);
    if (pctx->core_set_error_debug != NULL)
        pctx->core_set_error_debug(pctx->handle, file, line, func);
    va_start(ap, fmt);
    pctx->core_vset_error(pctx->handle, (uint32_t)reason, fmt, ap);
    va_end(ap);
}

const char *chacha_aead_kernel_name(const CHACHA_PROV_CTX *pctx)
{
    return pctx->fused != NULL ? pctx->fused->name : "two-step";
}

void chacha_trace_newctx(const CHACHA_PROV_CTX *pctx, const char *alg)
{
    if (pctx->debug)
        fprintf(stderr, "chacha-provider: new %s context (chacha20=%s, poly1305=%s,"
                " aead=%s, scalar-blocks=%u, hybrid=%s)\n", alg, pctx->chacha->name,
                pctx->poly->name, chacha_aead_kernel_name(pctx), pctx->scalar_blocks,
                chacha_hybrid_name(pctx->hybrid));
}

/* The error state's answer (see chacha_prov_running): the reason, and 0. */
int chacha_prov_failed(const CHACHA_PROV_CTX *pctx)
{
    CHACHA_RAISE(pctx, CHACHA_R_SELF_TEST_FAILED, "%s", pctx->selftest_error);
    return 0;
}

void *chacha_ctx_zalloc(size_t n)
{
    void *p = OPENSSL_zalloc(n);

    if (p == NULL)
        ERR_raise(ERR_LIB_PROV, ERR_R_MALLOC_FAILURE);
    return p;
}

void *chacha_ctx_memdup(const void *src, size_t n)
{
    void *p = OPENSSL_malloc(n);

    if (p == NULL)
        ERR_raise(ERR_LIB_PROV, ERR_R_MALLOC_FAILURE);
    else
        memcpy(p, src, n);
    return p;
}
