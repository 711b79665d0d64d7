/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_parity's shared machinery (parity.c): the traces of both providers,
 * the expectations on their last steps, the recorded EVP calls, the message
 * runner, the data; and the cases, one file per topic (parity_*.c).
 */
#ifndef CHACHA_TEST_PARITY_H
#define CHACHA_TEST_PARITY_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/proverr.h>

#include "testutil.h"
#include "testrng.h"

#if defined(__GNUC__)
#define PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF(f, a)
#endif
#define MAXLEN 70000
#define MAXCH 96
#define TAGLEN 16
#define TLS_AAD_LEN 13

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

#define want_rc(w, reason) want_rc_((w), (reason), 0)
#define want_ours_rc(w, reason) want_rc_((w), (reason), 1)
#define want_int(w) want_int_((w), 0)
#define want_ours_int(w) want_int_((w), 1)

typedef void (*seq_fn)(const EVP_CIPHER *c, const void *arg);

#define STD_AAD 40
#define STD_LEN 300

typedef struct {
    int enc;
    const unsigned char *key, *iv;
    const unsigned char *aad;
    size_t aad_len;
    size_t aad_ch[MAXCH];
    int n_aad_ch;
    const unsigned char *in;
    size_t len;
    size_t ch[MAXCH];
    int n_ch;
    int inplace;
    int api;                   /* 0 Update/Final, 1 EVP_Cipher */
    const unsigned char *tag;  /* decrypt: the tag to set */
    size_t tag_len;            /* decrypt: 0 = never set; encrypt: SET_TAG(n,NULL) */
    int split;                 /* init sequence, see do_init */
    int copy_after;            /* dup after this many text chunks (-1: never) */
    int zero_calls;            /* zero-length calls between chunks */
    int tag_late;              /* decrypt: SET_TAG just before the final */
    int auth_expect;           /* decrypt final: 1 ok, 0 fails, -1 no check */
} spec;

/* a run of TLS 1.2 records (parity_aead.c, parity_random.c) */
typedef struct {
    int n;
    size_t len[12];
    int tamper[12];            /* 0 none, 1 ciphertext byte, 2 tag byte */
    int api;                   /* 0 EVP_CipherUpdate, 1 EVP_Cipher */
    uint64_t seq0;
} tls_spec;

/* chunk patterns of the named cases */
extern const size_t pat_a[6], pat_b[1], pat_c[5], pat_d[3];

/* parity.c */
extern trace tr[2];
extern trace *T;
extern const char *cur_case;
extern EVP_CIPHER *c20[2], *cp[2];
extern unsigned long notes, n_parity, n_deviation;
extern int list_cases;
int is_ours(void);
void *xmalloc(size_t n);
void trace_reset(trace *t);
void r_int(long long v, const char *fmt, ...) PRINTF(2, 3);
void r_bytes(const void *p, size_t len, const char *fmt, ...)
             PRINTF(3, 4);
long long r_rc(long long rc, const char *fmt, ...) PRINTF(2, 3);
int want_rc_(long long want, int reason, int only_ours);
int want_int_(long long want, int only_ours);
int want_ours_err_text(const char *needle);
int compare_traces(int per_step, const char *detail);
void record(int which, const EVP_CIPHER *c, seq_fn fn, const void *arg);
int parity(const char *name, int aead, seq_fn fn, const void *arg,
           int per_step, const char *detail);
void deviation(const char *name, int aead, seq_fn fn, const void *arg);
extern unsigned char PT[MAXLEN + 64], AAD[2048 + 1];
extern unsigned char KEY1[32], KEY2[32], IV16[16], IV16B[16], N12[12], N12B[12];
extern unsigned char STD_CT[STD_LEN], STD_TAG[TAGLEN];
void store_le32(unsigned char *p, uint32_t v);
int ref_seal(const unsigned char *key, const unsigned char *iv,
             const unsigned char *aad, size_t alen,
             const unsigned char *pt, size_t len, unsigned char *ct,
             unsigned char tag[TAGLEN]);
EVP_CIPHER_CTX *s_new(void);
int s_init(EVP_CIPHER_CTX *ctx, const EVP_CIPHER *c,
           const unsigned char *key, const unsigned char *iv, int enc,
           const char *what);
int s_upd(EVP_CIPHER_CTX *ctx, unsigned char *out,
          const unsigned char *in, size_t len, int auth,
          const char *what);
int s_final(EVP_CIPHER_CTX *ctx, const char *what);
extern int dflt_cipher_final_unchecked;
int s_cipher(EVP_CIPHER_CTX *ctx, unsigned char *out,
             const unsigned char *in, size_t len, const char *what);
int s_ctrl(EVP_CIPHER_CTX *ctx, int type, int arg, void *ptr,
           const char *what);
int s_get_tag(EVP_CIPHER_CTX *ctx, int n, const char *what);
int s_set_params(EVP_CIPHER_CTX *ctx, const OSSL_PARAM *params,
                 const char *what);
void s_get_size(EVP_CIPHER_CTX *ctx, const char *key);
void chunks(size_t *ch, int *n, size_t len, const size_t *pat, int npat);
void finish(EVP_CIPHER_CTX *ctx, const spec *s, int aead,
            const char *who);
void run_msg(const EVP_CIPHER *c, const void *arg);
void spec_std(spec *s, int enc);
void spec_c20(spec *s, int enc, const unsigned char *iv, size_t len);
int default_cipher_final_unchecked(void);

/* parity_aead.c */
void tls_aad(unsigned char aad[TLS_AAD_LEN], uint64_t seq, size_t len);
void seq_tls(const EVP_CIPHER *c, const void *arg);

/* parity_odd.c */
void seq_tls_odd(const EVP_CIPHER *c, const void *arg);

/* parity_random.c */
extern EVP_MAC *mac[2];

/* the cases, by topic */
void cases_params(void);
void cases_init_splits(void);
void cases_chacha20(void);
void cases_aead(void);
void cases_tls(void);
void cases_odd(void);
void cases_deviations(void);
unsigned long cases_random(void);

#endif
