/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Parity with OpenSSL's default provider. "ChaCha20" and "ChaCha20-Poly1305"
 * are fetched from "chacha" and from "default" in one OSSL_LIB_CTX; every case
 * runs the same EVP call sequence once per provider while recording each
 * return code, outl, output byte and error (library + reason) into a trace,
 * and the two traces must be equal step by step. Where the default provider
 * fails open and we deliberately fail closed, the "fail-closed" cases check
 * our exact behaviour instead (and print what the default does).
 *
 * Sections: metadata, ctx params, init splits, ChaCha20 streams, AEAD
 * messages, TLS 1.2 records, fail-closed, random differential.
 * Environment: CHACHA_TEST_ITERATIONS (random iterations),
 *              CHACHA_TEST_SEED (random seed, printed on every run).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/proverr.h>

#include "testutil.h"

#if defined(__GNUC__)
#define PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF(f, a)
#endif

#define MAXLEN 70000
#define MAXCH 96
#define TAGLEN 16

/* ------------------------------------------------------------------------ */
/* Traces                                                                    */

enum { K_INT, K_BYTES, K_ERR };

typedef struct {
    char label[80];
    int kind;
    long long v;               /* K_INT */
    unsigned char *data;       /* K_BYTES */
    size_t len;
    unsigned long err;         /* K_ERR: ERR_peek_last_error(), 0 if none */
    int lenient;               /* K_ERR: compared only if both raised */
} rec;

typedef struct {
    const char *who;
    rec *r;
    size_t n, cap;
} trace;

enum { OURS = 0, DFLT = 1 };

static trace tr[2] = { { "ours", NULL, 0, 0 }, { "default", NULL, 0, 0 } };
static trace *T;               /* the trace being recorded */
static const char *cur_case = "";
static EVP_CIPHER *c20[2], *cp[2];
static unsigned long notes;

static int is_ours(void)
{
    return T == &tr[OURS];
}

static rec *rec_vnew(int kind, const char *fmt, va_list ap) PRINTF(2, 0);
static rec *rec_vnew(int kind, const char *fmt, va_list ap)
{
    rec *r;

    if (T->n == T->cap) {
        size_t cap = T->cap ? 2 * T->cap : 64;
        rec *nr = realloc(T->r, cap * sizeof(*nr));

        if (nr == NULL) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
        T->r = nr;
        T->cap = cap;
    }
    r = &T->r[T->n++];
    memset(r, 0, sizeof(*r));
    r->kind = kind;
    vsnprintf(r->label, sizeof(r->label), fmt, ap);
    return r;
}

static void trace_reset(trace *t)
{
    size_t i;

    for (i = 0; i < t->n; i++)
        free(t->r[i].data);
    t->n = 0;
}

static void r_int(long long v, const char *fmt, ...) PRINTF(2, 3);
static void r_int(long long v, const char *fmt, ...)
{
    va_list ap;
    rec *r;

    va_start(ap, fmt);
    r = rec_vnew(K_INT, fmt, ap);
    va_end(ap);
    r->v = v;
}

static void r_bytes(const void *p, size_t len, const char *fmt, ...)
    PRINTF(3, 4);
static void r_bytes(const void *p, size_t len, const char *fmt, ...)
{
    va_list ap;
    rec *r;

    va_start(ap, fmt);
    r = rec_vnew(K_BYTES, fmt, ap);
    va_end(ap);
    r->data = malloc(len ? len : 1);
    if (r->data == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    if (len)
        memcpy(r->data, p, len);
    r->len = len;
}

/* Records rc and the error queue's last entry, then clears the queue. */
static int r_rc_v(int lenient, long long rc, const char *fmt, va_list ap)
    PRINTF(3, 0);
static int r_rc_v(int lenient, long long rc, const char *fmt, va_list ap)
{
    char label[72];
    rec *r;

    vsnprintf(label, sizeof(label), fmt, ap);
    r_int(rc, "%s", label);
    T->n--;                     /* re-add below with the error */
    r = &T->r[T->n++];
    r = rec_vnew_label_err:
    ;
    (void)r;
    return (int)rc;
}
