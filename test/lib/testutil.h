/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Small helpers shared by the vector tests: a private OSSL_LIB_CTX with the
 * "chacha" and "default" providers, fetch helpers, hex, file and JSON
 * reading, and pass/fail counters.
 */
#ifndef CHACHA_TESTUTIL_H
#define CHACHA_TESTUTIL_H

#include <stddef.h>
#include <openssl/evp.h>

/* The provider under test; there is deliberately no fallback. */
#define TU_OURS "chacha"
#define TU_PROPQ_OURS "provider=" TU_OURS
#define TU_PROPQ_DEFAULT "provider=default"

extern OSSL_LIB_CTX *tu_libctx;
extern OSSL_PROVIDER *tu_prov_ours;

/*
 * Creates tu_libctx, loads "chacha" and "default" into it, prints
 * "# kernel: chacha20=<x> poly1305=<y>" and checks CHACHA_PROVIDER_IMPL (and
 * CHACHA_PROVIDER_POLY1305_IMPL) against the active kernels.
 * Returns 1 on success; on failure it prints the OpenSSL error queue and
 * returns 0 (the caller should then return tu_finish()).
 */
int tu_init(const char *testname);

/* Fetch from our provider (asserting it really is ours) or from default.
 * NULL (and a counted failure for tu_fetch_ours) if unavailable. */
EVP_CIPHER *tu_fetch_ours(const char *name);
EVP_CIPHER *tu_fetch_default(const char *name);

/* Counters. tu_check_ returns cond so callers can branch on it. */
int tu_check_(int cond, const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
#define TU_CHECK(cond, ...) tu_check_(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

/* Compares two buffers; on mismatch prints both in hex with the label. */
int tu_mem_eq_(const void *got, size_t got_len, const void *exp,
               size_t exp_len, const char *file, int line, const char *label);
#define TU_MEM_EQ(got, glen, exp, elen, label) \
    tu_mem_eq_((got), (glen), (exp), (elen), __FILE__, __LINE__, (label))

/* Prints "<test>: N passed, N failed" and returns the exit code 0/1. */
int tu_finish(void);
unsigned long tu_failed(void);

/* Prints and clears the OpenSSL error queue (prefixed by "# "). */
void tu_print_errors(void);

/* Hex: returns a malloc'd buffer (never NULL on success, even for ""),
 * NULL on bad input. */
unsigned char *tu_hex_decode(const char *hex, size_t *len);
void tu_hex_print(const char *label, const unsigned char *buf, size_t len);

/* malloc'd "<srcdir or .>/test/vectors/<file>". */
char *tu_vector_path(const char *file);
/* malloc'd, NUL-terminated file contents, or NULL (message printed). */
char *tu_read_file(const char *path, size_t *len);

/* --- minimal JSON (enough for the vector files) --- */
typedef enum { TJ_NULL, TJ_BOOL, TJ_NUM, TJ_STR, TJ_ARR, TJ_OBJ } tj_type;
typedef struct tj_value tj_value;
struct tj_value {
    tj_type type;
    char *str;          /* TJ_STR (unescaped), TJ_NUM (raw text) */
    int boolean;        /* TJ_BOOL */
    size_t n;           /* TJ_ARR / TJ_OBJ: number of items */
    char **keys;        /* TJ_OBJ */
    tj_value **items;   /* TJ_ARR / TJ_OBJ */
};
tj_value *tj_parse(const char *text);     /* NULL on syntax error */
void tj_free(tj_value *v);
const tj_value *tj_get(const tj_value *obj, const char *key); /* or NULL */
const char *tj_str(const tj_value *obj, const char *key);     /* or NULL */
long tj_num(const tj_value *obj, const char *key, long dflt);

#endif
