/* SPDX-License-Identifier: Apache-2.0 */
/* Parameter handling shared by the ChaCha20 and ChaCha20-Poly1305 dispatchers. */
#ifndef CHACHA_PROV_CIPHER_COMMON_H
#define CHACHA_PROV_CIPHER_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <openssl/core.h>
#include <openssl/core_dispatch.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/params.h>
#include <openssl/proverr.h>
#include "prov_ctx.h"
#include "chacha20_stream.h"

#define CHACHA_KEY_LEN 32

/* Algorithm parameters, as OpenSSL's default provider reports them. */
int chacha_cipher_get_params(OSSL_PARAM params[], size_t ivlen, int aead);
const OSSL_PARAM *chacha_cipher_gettable_params(void *provctx);

/*
 * Context parameters are handled in one pass over the request (libssl and
 * EVP ask for one key at a time, per record). KEY_IS compares inline, a
 * byte at a time up to the first difference (the names are a few bytes; a
 * strcmp() call through the PLT was ~2% of a 16-byte Init+Update, Zen 3).
 */
static inline int chacha_key_is(const char *key, const char *name)
{
    while (*name != '\0' && *key == *name) {
        key++;
        name++;
    }
    return *key == *name;
}
#define KEY_IS(p, name) chacha_key_is((p)->key, (name))

/*
 * The walk over a request: each key once, at its first occurrence, as
 * OpenSSL's OSSL_PARAM_locate() finds it (a repeated key is ignored, also
 * when its type or size is wrong). NULL at the end. Works for OSSL_PARAM *
 * and const OSSL_PARAM * alike.
 */
const OSSL_PARAM *chacha_param_first_of(const OSSL_PARAM *params, const OSSL_PARAM *p);
/*
 * Inline where no earlier key can repeat: the request's first entry, and
 * its end (EVP's own requests hold one key: a call per key cost Init+Update
 * of 16 bytes ~3%, Zen 3).
 */
static inline const OSSL_PARAM *chacha_param_walk(const OSSL_PARAM *params,
                                                  const OSSL_PARAM *p)
{
    if (params == NULL || p->key == NULL)
        return NULL;
    return p == params ? p : chacha_param_first_of(params, p);
}
#define PARAM_FIRST(params) ((void *)chacha_param_walk((params), (params)))
#define PARAM_NEXT(params, p) ((void *)chacha_param_walk((params), (p) + 1))

/*
 * p is a "keylen" or "ivlen" set request: the sizes are fixed, so anything
 * else is INVALID_KEY_LENGTH / INVALID_IV_LENGTH, a non-integer
 * FAILED_TO_GET_PARAMETER. Returns 1 (accepted), 0 (error raised) or -1 (p
 * is some other key).
 */
int chacha_check_fixed_length(const OSSL_PARAM *p, size_t ivlen);

/* Answers a "keylen" or "ivlen" get request; same returns. */
int chacha_get_fixed_length(OSSL_PARAM *p, size_t ivlen);

/*
 * Some libcrypto 3.0.x releases hand a negative int length from
 * EVP_EncryptUpdate() down as a huge size_t: no buffer can be larger than
 * PTRDIFF_MAX, so such a length raises INVALID_INPUT_LENGTH (returns 0).
 */
int chacha_check_input_length(size_t inl);

/*
 * The body of a stream cipher's update once its key (and IV) are known: a
 * length a buffer can have, room in out, real buffers, then the keystream.
 * Inline: with the stream's inline whole-block case, a 512-byte Update
 * reaches the kernel from the dispatch function in one call.
 */
static inline int chacha_stream_update(chacha20_stream *cs, unsigned char *out,
                                       size_t *outl, size_t outsize,
                                       const unsigned char *in, size_t inl)
{
    if (inl > (size_t)PTRDIFF_MAX && !chacha_check_input_length(inl))
        return 0;
    if (inl == 0) {
        *outl = 0;
        return 1;
    }
    if (outsize < inl) {
        ERR_raise(ERR_LIB_PROV, PROV_R_OUTPUT_BUFFER_TOO_SMALL);
        return 0;
    }
    if (out == NULL || in == NULL) {
        ERR_raise(ERR_LIB_PROV, PROV_R_CIPHER_OPERATION_FAILED);
        return 0;
    }
    chacha20_stream_xor(cs, out, in, inl);
    *outl = inl;
    return 1;
}

/* Set an octet string or octet pointer parameter (both forms are asked for). */
int chacha_set_octets(OSSL_PARAM *p, const void *data, size_t len);

/*
 * The X ciphers' IVs (24, 32 bytes) are longer than EVP_MAX_IV_LENGTH (16).
 * A caller that keeps its IV in such a 16-byte buffer just before its key
 * (OpenSSL 3.0 and 3.5's `openssl enc`) writes the IV's tail over the key
 * and hands us the key's first bytes as the IV's tail: the IV, which is
 * public, would carry key bytes, and the bytes are not the ones asked for.
 * 0 (with CHACHA_R_IV_HOLDS_KEY) when IV bytes 16.. equal the key's first.
 */
int chacha_check_iv_tail(const CHACHA_PROV_CTX *pctx, const unsigned char *key,
                         const unsigned char *iv, size_t ivlen);

/*
 * The boilerplate half of a cipher's dispatch table. A cipher file defines
 * its context type ctx_type (plain data: freed with a wipe, duplicated by
 * copy), PREFIX_newctx, _init (the shared body of encrypt and decrypt init,
 * with an enc flag), _update, _final, _cipher, _get_ctx_params,
 * _set_ctx_params and the arrays PREFIX_known_gettable_ctx_params and
 * PREFIX_known_settable_ctx_params; this macro adds the rest and the table.
 * The context starts with its CHACHA_PROV_CTX pointer (CHACHA_CTX_PCTX): in
 * the provider's error state, new contexts, inits and data calls are refused.
 */
#define CHACHA_CTX_PCTX(vctx) (*(CHACHA_PROV_CTX *const *)(vctx))
#define CHACHA_CIPHER_DISPATCH(prefix, table, ctx_type, ivlen, aead)          \
static OSSL_FUNC_cipher_freectx_fn prefix##_freectx;                         \
static OSSL_FUNC_cipher_dupctx_fn prefix##_dupctx;                           \
static OSSL_FUNC_cipher_encrypt_init_fn prefix##_einit;                      \
static OSSL_FUNC_cipher_decrypt_init_fn prefix##_dinit;                      \
static OSSL_FUNC_cipher_get_params_fn prefix##_get_params;                   \
static OSSL_FUNC_cipher_gettable_ctx_params_fn prefix##_gettable_ctx_params; \
static OSSL_FUNC_cipher_settable_ctx_params_fn prefix##_settable_ctx_params; \
static void prefix##_freectx(void *vctx)                                     \
{                                                                            \
    OPENSSL_clear_free(vctx, sizeof(ctx_type));                              \
}                                                                            \
static void *prefix##_dupctx(void *vctx)                                     \
{                                                                            \
    if (!chacha_prov_running(CHACHA_CTX_PCTX(vctx)))                         \
        return NULL;                                                         \
    return chacha_ctx_memdup(vctx, sizeof(ctx_type));                        \
}                                                                            \
static int prefix##_einit(void *vctx, const unsigned char *key, size_t keylen, \
                          const unsigned char *iv, size_t ivl,               \
                          const OSSL_PARAM params[])                         \
{                                                                            \
    return chacha_prov_running(CHACHA_CTX_PCTX(vctx))                        \
           && prefix##_init(vctx, key, keylen, iv, ivl, params, 1);          \
}                                                                            \
static int prefix##_dinit(void *vctx, const unsigned char *key, size_t keylen, \
                          const unsigned char *iv, size_t ivl,               \
                          const OSSL_PARAM params[])                         \
{                                                                            \
    return chacha_prov_running(CHACHA_CTX_PCTX(vctx))                        \
           && prefix##_init(vctx, key, keylen, iv, ivl, params, 0);          \
}                                                                            \
static void *prefix##_newctx_run(void *provctx)                             \
{                                                                            \
    return chacha_prov_running(provctx) ? prefix##_newctx(provctx) : NULL;   \
}                                                                            \
static int prefix##_update_run(void *vctx, unsigned char *out, size_t *outl, \
                               size_t outsize, const unsigned char *in,      \
                               size_t inl)                                   \
{                                                                            \
    return chacha_prov_running(CHACHA_CTX_PCTX(vctx))                        \
           && prefix##_update(vctx, out, outl, outsize, in, inl);            \
}                                                                            \
static int prefix##_final_run(void *vctx, unsigned char *out, size_t *outl,  \
                              size_t outsize)                                \
{                                                                            \
    return chacha_prov_running(CHACHA_CTX_PCTX(vctx))                        \
           && prefix##_final(vctx, out, outl, outsize);                      \
}                                                                            \
static int prefix##_cipher_run(void *vctx, unsigned char *out, size_t *outl, \
                               size_t outsize, const unsigned char *in,      \
                               size_t inl)                                   \
{                                                                            \
    return chacha_prov_running(CHACHA_CTX_PCTX(vctx))                        \
           && prefix##_cipher(vctx, out, outl, outsize, in, inl);            \
}                                                                            \
static int prefix##_get_params(OSSL_PARAM params[])                          \
{                                                                            \
    return chacha_cipher_get_params(params, (ivlen), (aead));                \
}                                                                            \
static const OSSL_PARAM *prefix##_gettable_ctx_params(void *vctx, void *pc)  \
{                                                                            \
    (void)vctx;                                                              \
    (void)pc;                                                                \
    return prefix##_known_gettable_ctx_params;                               \
}                                                                            \
static const OSSL_PARAM *prefix##_settable_ctx_params(void *vctx, void *pc)  \
{                                                                            \
    (void)vctx;                                                              \
    (void)pc;                                                                \
    return prefix##_known_settable_ctx_params;                               \
}                                                                            \
const OSSL_DISPATCH table[] = {                                              \
    { OSSL_FUNC_CIPHER_NEWCTX, (void (*)(void))prefix##_newctx_run },            \
    { OSSL_FUNC_CIPHER_FREECTX, (void (*)(void))prefix##_freectx },          \
    { OSSL_FUNC_CIPHER_DUPCTX, (void (*)(void))prefix##_dupctx },            \
    { OSSL_FUNC_CIPHER_ENCRYPT_INIT, (void (*)(void))prefix##_einit },       \
    { OSSL_FUNC_CIPHER_DECRYPT_INIT, (void (*)(void))prefix##_dinit },       \
    { OSSL_FUNC_CIPHER_UPDATE, (void (*)(void))prefix##_update_run },            \
    { OSSL_FUNC_CIPHER_FINAL, (void (*)(void))prefix##_final_run },              \
    { OSSL_FUNC_CIPHER_CIPHER, (void (*)(void))prefix##_cipher_run },            \
    { OSSL_FUNC_CIPHER_GET_PARAMS, (void (*)(void))prefix##_get_params },    \
    { OSSL_FUNC_CIPHER_GETTABLE_PARAMS,                                      \
      (void (*)(void))chacha_cipher_gettable_params },                       \
    { OSSL_FUNC_CIPHER_GET_CTX_PARAMS, (void (*)(void))prefix##_get_ctx_params }, \
    { OSSL_FUNC_CIPHER_GETTABLE_CTX_PARAMS,                                  \
      (void (*)(void))prefix##_gettable_ctx_params },                        \
    { OSSL_FUNC_CIPHER_SET_CTX_PARAMS, (void (*)(void))prefix##_set_ctx_params }, \
    { OSSL_FUNC_CIPHER_SETTABLE_CTX_PARAMS,                                  \
      (void (*)(void))prefix##_settable_ctx_params },                        \
    { 0, NULL }                                                              \
}

#endif
