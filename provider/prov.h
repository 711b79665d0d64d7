/* SPDX-License-Identifier: Apache-2.0 */
/* Provider-wide context, error reporting and the algorithm tables. */
#ifndef CHACHA_PROV_PROV_H
#define CHACHA_PROV_PROV_H

#include <openssl/core.h>
#include <openssl/core_dispatch.h>
#include "impl/backend.h"

#define CHACHA_PROV_NAME "chacha"

/* One per loaded instance; the cipher contexts copy the backend pointers. */
typedef struct {
    const OSSL_CORE_HANDLE *handle;
    OSSL_FUNC_core_get_params_fn *core_get_params;
    OSSL_FUNC_core_new_error_fn *core_new_error;
    OSSL_FUNC_core_set_error_debug_fn *core_set_error_debug;
    OSSL_FUNC_core_vset_error_fn *core_vset_error;
    const chacha20_impl *chacha;
    const poly1305_impl *poly;
    const chacha20_poly1305_impl *fused;   /* NULL: AEAD in two steps */
    int debug;                 /* CHACHA_PROVIDER_DEBUG: trace to stderr */
} CHACHA_PROV_CTX;

/* Reason codes of errors that are ours rather than OpenSSL's PROV_R_* ones. */
#define CHACHA_R_NONCE_EXHAUSTED     1
#define CHACHA_R_ALREADY_FINALISED   2
#define CHACHA_R_BAD_TLS_RECORD      3
#define CHACHA_R_IV_NOT_SET          4

/* Raise one of the CHACHA_R_* errors under this provider's own library. */
void chacha_raise(const CHACHA_PROV_CTX *pctx, int reason, const char *fmt, ...);

void chacha_trace_newctx(const CHACHA_PROV_CTX *pctx, const char *alg);

extern const OSSL_DISPATCH chacha_chacha20_functions[];
extern const OSSL_DISPATCH chacha_chacha20_poly1305_functions[];
extern const OSSL_DISPATCH chacha_poly1305_mac_functions[];

#endif
