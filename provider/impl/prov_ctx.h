/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the algorithm dispatch files share: the provider context (upcalls and
 * the kernels chosen at load), this provider's error reasons and tracing, and
 * the dispatch tables the entry point lists.
 */
#ifndef CHACHA_IMPL_PROV_CTX_H
#define CHACHA_IMPL_PROV_CTX_H

#include <stdatomic.h>
#include <openssl/core.h>
#include <openssl/crypto.h>
#include <openssl/core_dispatch.h>
#include "kernel.h"

/* One per loaded instance; the algorithm contexts copy the kernel pointers. */
typedef struct {
    const OSSL_CORE_HANDLE *handle;
    OSSL_FUNC_core_get_params_fn *core_get_params;
    OSSL_FUNC_core_new_error_fn *core_new_error;
    OSSL_FUNC_core_set_error_debug_fn *core_set_error_debug;
    OSSL_FUNC_core_vset_error_fn *core_vset_error;
    const chacha20_kernel *chacha;
    const poly1305_kernel *poly;
    const chacha20_poly1305_kernel *fused;   /* NULL: AEAD in two steps */
    unsigned int scalar_blocks;  /* the short-path rule (core/shortpath.h) */
    int hybrid;                  /* and its choice of the kernel's hybrid entry */
    char short_rule[256];        /* how it was chosen, as read back */
    int debug;                 /* CHACHA_PROVIDER_DEBUG: trace to stderr */
    char buildinfo[512];       /* version, active kernels, OpenSSL built with */
    OSSL_FUNC_core_get_libctx_fn *core_get_libctx;
    OSSL_FUNC_self_test_cb_fn *self_test_cb;
    /*
     * 0 while the instance runs (zeroed memory runs); 1 once an on-demand
     * self-test failed: the error state (status 0, every fetch and operation
     * refused). Set after selftest_error, which says what failed.
     */
    atomic_int failed;
    char selftest_error[192];
} CHACHA_PROV_CTX;

/* Reason codes of errors that are ours rather than OpenSSL's PROV_R_* ones. */
#define CHACHA_R_NONCE_EXHAUSTED     1
#define CHACHA_R_ALREADY_FINALISED   2
#define CHACHA_R_BAD_TLS_RECORD      3
#define CHACHA_R_IV_NOT_SET          4
#define CHACHA_R_SELF_TEST_FAILED    5
#define CHACHA_R_IV_HOLDS_KEY        6

/* Their strings, for OSSL_FUNC_PROVIDER_GET_REASON_STRINGS. */
extern const OSSL_ITEM chacha_reason_strings[];

/*
 * Raise one of the CHACHA_R_* errors under this provider's own library, with
 * the file, line and function of the caller (as ERR_raise does for
 * libcrypto's reasons): CHACHA_RAISE(pctx, reason, fmt or NULL, args...).
 */
#define CHACHA_RAISE(pctx, reason, ...) \
    chacha_raise_at(pctx, OPENSSL_FILE, OPENSSL_LINE, OPENSSL_FUNC, reason, \
                    __VA_ARGS__)
void chacha_raise_at(const CHACHA_PROV_CTX *pctx, const char *file, int line,
                     const char *func, int reason, const char *fmt, ...);

/* The error state: raises CHACHA_R_SELF_TEST_FAILED with what failed; 0. */
int chacha_prov_failed(const CHACHA_PROV_CTX *pctx);

/*
 * 1 if the instance runs; 0 in the error state, after raising
 * CHACHA_R_SELF_TEST_FAILED with what failed. pctx NULL counts as running.
 * Inline: it guards every update and final, one load while running.
 */
static inline int chacha_prov_running(const CHACHA_PROV_CTX *pctx)
{
    return pctx == NULL || !atomic_load(&pctx->failed) || chacha_prov_failed(pctx);
}

/* "avx2-fused", or "two-step" when ChaCha20 and Poly1305 run one after the other */
const char *chacha_aead_kernel_name(const CHACHA_PROV_CTX *pctx);

/*
 * A zeroed context / a copy of one; when the allocation fails, NULL with
 * ERR_R_MALLOC_FAILURE queued, as the default provider's contexts do.
 */
void *chacha_ctx_zalloc(size_t n);
void *chacha_ctx_memdup(const void *src, size_t n);

/* With CHACHA_PROVIDER_DEBUG: one line per new algorithm context. */
void chacha_trace_newctx(const CHACHA_PROV_CTX *pctx, const char *alg);

extern const OSSL_DISPATCH chacha_chacha20_functions[];
extern const OSSL_DISPATCH chacha_chacha20_poly1305_functions[];
extern const OSSL_DISPATCH chacha_poly1305_mac_functions[];
extern const OSSL_DISPATCH chacha_xchacha20_functions[];
extern const OSSL_DISPATCH chacha_xchacha20_poly1305_functions[];
extern const OSSL_DISPATCH chacha_poly1305_keymgmt_functions[];
extern const OSSL_DISPATCH chacha_poly1305_signature_functions[];

#endif
