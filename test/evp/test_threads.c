/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Threads: 8 worker threads encrypt and decrypt with their own contexts
 * (the four ciphers, random lengths and chunking) and compute POLY1305 MACs
 * (EVP_MAC and EVP_PKEY), checking every ciphertext and tag against
 * OpenSSL's default provider (XChaCha under the HChaCha20 subkey of
 * draft-irtf-cfrg-xchacha-03 2.2.1: its key and first 16 nonce bytes, the
 * rest random), on ciphers and MACs fetched once and shared; meanwhile 2
 * churn threads
 * repeatedly create an OSSL_LIB_CTX, load the chacha provider into it
 * (through a config file naming a kernel, a different one each time, when
 * CHACHA_PROVIDER_IMPL is not set), check the kernel it reports, fetch and
 * use ChaCha20-Poly1305 and POLY1305, and free everything.
 * Kernel choice is per provider load, so each load must report what its
 * config asked for while the workers keep theirs.
 *
 * Meant to run under ThreadSanitizer (test/integration/sanitize.sh builds it with
 * clang -fsanitize=thread, the module included). CHACHA_TEST_SECONDS
 * (default 4) bounds the run. Links libtestutil + libcrypto + pthread.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
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
#include <openssl/provider.h>

#include "testutil.h"
#include "testrng.h"

#define WORKERS 8
#define CHURNERS 2
#define MAXLEN 4096

static EVP_CIPHER *ours[2], *dflt[2];   /* [aead] */
static EVP_CIPHER *xours[2];            /* XChaCha20, XChaCha20-Poly1305 */
/* draft-irtf-cfrg-xchacha-03 2.2.1: HChaCha20(XKEY, XN16) = XSUB */
static const unsigned char XKEY[32] = {
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e,
    0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d,
    0x1e, 0x1f
};
static const unsigned char XN16[16] = { 0, 0, 0, 9, 0, 0, 0, 0x4a, 0, 0, 0, 0,
                                        0x31, 0x41, 0x59, 0x27 };
static const unsigned char XSUB[32] = {
    0x82, 0x41, 0x3b, 0x42, 0x27, 0xb2, 0x7b, 0xfe, 0xd3, 0x0e, 0x42, 0x50, 0x8a, 0x87, 0x7d,
    0x73, 0xa0, 0xf9, 0xe4, 0xd5, 0x8a, 0x74, 0xa8, 0x53, 0xc1, 0x2e, 0xc4, 0x13, 0x26, 0xd3,
    0xec, 0xdc
};
static EVP_MAC *mac_ours, *mac_dflt;
static volatile int stop;               /* written once by main */
static pthread_mutex_t stop_lock = PTHREAD_MUTEX_INITIALIZER;
static double seconds = 4;
static const char *kernels[8];
static int n_kernels;
static char cnf_dir[256];
static const char *forced;              /* CHACHA_PROVIDER_IMPL */

typedef struct {
    int id;
    unsigned long ops, fails;
    char msg[256];
} job;

static int should_stop(void)
{
    int s;

    pthread_mutex_lock(&stop_lock);
    s = stop;
    pthread_mutex_unlock(&stop_lock);
    return s;
}

static void failf(job *j, const char *what)
{
    if (j->fails++ == 0)
        snprintf(j->msg, sizeof(j->msg), "%s", what);
}

/* Encrypt len bytes in random pieces; returns 1 and the tag (AEAD) */
static int seal(const EVP_CIPHER *c, int aead, const unsigned char *key,
                const unsigned char *iv, const unsigned char *aad, size_t alen,
                const unsigned char *in, size_t len, unsigned char *out,
                unsigned char tag[16], uint64_t *rs, int enc)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    size_t done = 0;
    int outl, ok;

    ok = ctx != NULL && EVP_CipherInit_ex2(ctx, c, key, iv, enc, NULL);
    if (ok && aead && !enc)
        ok = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag) > 0;
    if (ok && aead && alen)
        ok = EVP_CipherUpdate(ctx, NULL, &outl, aad, (int)alen);
    while (ok && done < len) {
        size_t n = 1 + rng_next(rs) % (len - done);

        ok = EVP_CipherUpdate(ctx, out + done, &outl, in + done, (int)n)
             && (size_t)outl == n;
        done += n;
    }
    if (ok)
        ok = EVP_CipherFinal_ex(ctx, out + len, &outl);
    if (ok && aead && enc)
        ok = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag) > 0;
    EVP_CIPHER_CTX_free(ctx);
    return ok;
}

/* POLY1305 over len bytes in random pieces; returns 1 and the tag */
static int mac(EVP_MAC *m, const unsigned char key[32], const unsigned char *in,
               size_t len, unsigned char tag[16], uint64_t *rs)
{
    EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(m);
    size_t done = 0, outl = 0;
    int ok;

    ok = ctx != NULL && EVP_MAC_init(ctx, key, 32, NULL);
    while (ok && done < len) {
        size_t n = 1 + rng_next(rs) % (len - done);

        ok = EVP_MAC_update(ctx, in + done, n);
        done += n;
    }
    ok = ok && EVP_MAC_final(ctx, tag, &outl, 16) && outl == 16;
    EVP_MAC_CTX_free(ctx);
    return ok;
}

/* POLY1305 through EVP_PKEY + EVP_DigestSign on our key manager and signature */
static int pkey_mac(const unsigned char key[32], const unsigned char *in, size_t len,
                    unsigned char tag[16])
{
    EVP_PKEY *pk = EVP_PKEY_new_raw_private_key_ex(tu_libctx, "POLY1305",
                                                   "provider=chacha", key, 32);
    EVP_MD_CTX *m = EVP_MD_CTX_new();
    size_t tl = 16;
    int ok = pk != NULL && m != NULL
             && EVP_DigestSignInit_ex(m, NULL, NULL, tu_libctx, "provider=chacha", pk, NULL)
             && EVP_DigestSign(m, tag, &tl, in, len) && tl == 16;

    EVP_MD_CTX_free(m);
    EVP_PKEY_free(pk);
    return ok;
}

/*
 * XChaCha (x: 0 stream, 1 AEAD) on ours against the default's ChaCha20 /
 * ChaCha20-Poly1305 under XSUB: nonce XN16 || n8, the stream at counter ctr.
 */
static int xchacha_vs_default(int x, const unsigned char n8[8], uint64_t ctr,
                              const unsigned char *aad, size_t alen,
                              const unsigned char *pt, size_t len, unsigned char *ct0,
                              unsigned char *ct1, unsigned char tag[2][16], uint64_t *rs)
{
    unsigned char xiv[32], iv[16];
    int i;

    memcpy(xiv, XN16, 16);
    memcpy(xiv + 16, n8, 8);
    memset(iv, 0, sizeof(iv));
    if (x) {
        memcpy(iv + 4, n8, 8);           /* 0^4 || n8 */
    } else {
        for (i = 0; i < 8; i++)
            xiv[24 + i] = iv[i] = (unsigned char)(ctr >> (8 * i));
        memcpy(iv + 8, n8, 8);           /* LE64 counter || n8 */
    }
    return seal(xours[x], x, XKEY, xiv, aad, alen, pt, len, ct0, tag[0], rs, 1)
           && seal(dflt[x], x, XSUB, iv, aad, alen, pt, len, ct1, tag[1], rs, 1)
           && memcmp(ct0, ct1, len) == 0 && (!x || memcmp(tag[0], tag[1], 16) == 0);
}

static void *worker(void *arg)
{
    job *j = arg;
    uint64_t rs = 0x1234 + (uint64_t)j->id * 0x9e37;
    static __thread unsigned char key[32], iv[16], aad[64], pt[MAXLEN],
        ct[2][MAXLEN + 16], back[MAXLEN + 16], tag[2][16];

    while (!should_stop()) {
        int kind = (int)(rng_next(&rs) % 6), aead = kind == 1;
        size_t len = rng_next(&rs) % MAXLEN, alen = rng_next(&rs) % 40;

        rng_fill(&rs, key, 32);
        rng_fill(&rs, iv, 16);
        rng_fill(&rs, aad, alen);
        rng_fill(&rs, pt, len);
        if (kind == 3 || kind == 4) {
            if (!xchacha_vs_default(kind == 3, iv, rng_next(&rs), aad, alen, pt, len, ct[0],
                                    ct[1], tag, &rs))
                failf(j, kind == 3 ? "XChaCha20-Poly1305 failed or differs"
                                   : "XChaCha20 failed or differs");
            j->ops++;
            continue;
        }
        if (kind == 5) {
            if (!pkey_mac(key, pt, len, tag[0]) || !mac(mac_dflt, key, pt, len, tag[1], &rs))
                failf(j, "POLY1305 through EVP_PKEY failed");
            else if (memcmp(tag[0], tag[1], 16) != 0)
                failf(j, "POLY1305 through EVP_PKEY differs from the default's MAC");
            j->ops++;
            continue;
        }
        if (kind == 2) {
            if (!mac(mac_ours, key, pt, len, tag[0], &rs)
                || !mac(mac_dflt, key, pt, len, tag[1], &rs))
                failf(j, "POLY1305 failed");
            else if (memcmp(tag[0], tag[1], 16) != 0)
                failf(j, "POLY1305 differs from the default provider");
            j->ops++;
            continue;
        }
        if (!seal(ours[aead], aead, key, iv, aad, alen, pt, len, ct[0], tag[0], &rs, 1)
            || !seal(dflt[aead], aead, key, iv, aad, alen, pt, len, ct[1], tag[1], &rs, 1)) {
            failf(j, "seal failed");
            continue;
        }
        if (memcmp(ct[0], ct[1], len) != 0 || (aead && memcmp(tag[0], tag[1], 16) != 0))
            failf(j, aead ? "ChaCha20-Poly1305 differs from the default provider"
                          : "ChaCha20 differs from the default provider");
        if (!seal(ours[aead], aead, key, iv, aad, alen, ct[0], len, back, tag[0], &rs, 0)
            || memcmp(back, pt, len) != 0)
            failf(j, "round trip failed");
        j->ops++;
    }
    return NULL;
}

/* Writes <dir>/impl-<name>.cnf loading chacha (impl = name) and default. */
static int write_cnf(const char *name)
{
    char path[400];
    FILE *f;

    snprintf(path, sizeof(path), "%s/impl-%s.cnf", cnf_dir, name);
    f = fopen(path, "w");
    if (f == NULL)
        return 0;
    fprintf(f, "openssl_conf = openssl_init\n[openssl_init]\nproviders = provs\n"
            "[provs]\nchacha = chacha_sect\ndefault = default_sect\n"
            "[chacha_sect]\nactivate = 1\nimpl = %s\n"
            "[default_sect]\nactivate = 1\n", name);
    return fclose(f) == 0;
}

static void *churn(void *arg)
{
    job *j = arg;
    static const unsigned char key[32] = { 1, 2, 3 }, iv[12] = { 4, 5, 6 };
    unsigned char pt[300] = { 7 }, ct[316], tag[16], ref[316], reftag[16], refmac[16];
    unsigned char xnonce[24], xiv12[12] = { 0 }, xref[316], xreftag[16];
    uint64_t rs = 99 + (uint64_t)j->id;
    int i = j->id;

    memcpy(xnonce, XN16, 16);
    memcpy(xnonce + 16, iv, 8);
    memcpy(xiv12 + 4, iv, 8);
    /* the references, from the default provider in the shared libctx */
    if (!seal(dflt[1], 1, key, iv, NULL, 0, pt, sizeof(pt), ref, reftag, &rs, 1)
        || !seal(dflt[1], 1, XSUB, xiv12, NULL, 0, pt, sizeof(pt), xref, xreftag, &rs, 1)
        || !mac(mac_dflt, key, pt, sizeof(pt), refmac, &rs)) {
        failf(j, "reference seal failed");
        return NULL;
    }
    while (!should_stop()) {
        OSSL_LIB_CTX *lib = OSSL_LIB_CTX_new();
        OSSL_PROVIDER *p = NULL;
        EVP_CIPHER *c = NULL;
        EVP_MAC *m = NULL;
        const char *want = forced, *got = NULL;
        char path[400];
        OSSL_PARAM params[2];

        if (lib == NULL) {
            failf(j, "OSSL_LIB_CTX_new");
            break;
        }
        if (forced == NULL) {
            want = kernels[i++ % n_kernels];
            snprintf(path, sizeof(path), "%s/impl-%s.cnf", cnf_dir, want);
            if (!OSSL_LIB_CTX_load_config(lib, path))
                failf(j, "OSSL_LIB_CTX_load_config");
            p = OSSL_PROVIDER_load(lib, "chacha");      /* a reference */
        } else {
            p = OSSL_PROVIDER_load(lib, "chacha");
        }
        if (p == NULL) {
            failf(j, "loading chacha in a new libctx failed");
        } else {
            params[0] = OSSL_PARAM_construct_utf8_ptr("chacha20-impl", (char **)&got, 0);
            params[1] = OSSL_PARAM_construct_end();
            if (!OSSL_PROVIDER_get_params(p, params) || got == NULL
                || (want != NULL && strcmp(want, "auto") != 0 && strcmp(got, want) != 0))
                failf(j, "the new load reports another kernel than asked");
            c = EVP_CIPHER_fetch(lib, "ChaCha20-Poly1305", "provider=chacha");
            if (c == NULL
                || !seal(c, 1, key, iv, NULL, 0, pt, sizeof(pt), ct, tag, &rs, 1)
                || memcmp(ct, ref, sizeof(pt)) != 0 || memcmp(tag, reftag, 16) != 0)
                failf(j, "sealing in the churned libctx failed or differs");
            EVP_CIPHER_free(c);
            /* XChaCha20-Poly1305 too: its tag under XSUB is the default's */
            c = EVP_CIPHER_fetch(lib, "XChaCha20-Poly1305", "provider=chacha");
            if (c == NULL || !seal(c, 1, XKEY, xnonce, NULL, 0, pt, sizeof(pt), ct, tag, &rs, 1)
                || memcmp(ct, xref, sizeof(pt)) != 0 || memcmp(tag, xreftag, 16) != 0)
                failf(j, "XChaCha20-Poly1305 in the churned libctx failed or differs");
            m = EVP_MAC_fetch(lib, "POLY1305", "provider=chacha");
            if (m == NULL || !mac(m, key, pt, sizeof(pt), tag, &rs)
                || memcmp(tag, refmac, 16) != 0)
                failf(j, "POLY1305 in the churned libctx failed or differs");
            EVP_MAC_free(m);
            EVP_CIPHER_free(c);
            OSSL_PROVIDER_unload(p);
        }
        OSSL_LIB_CTX_free(lib);
        ERR_clear_error();
        j->ops++;
    }
    return NULL;
}

int main(void)
{
    pthread_t t[WORKERS + CHURNERS];
    job jobs[WORKERS + CHURNERS];
    const char *s = getenv("CHACHA_TEST_SECONDS");
    char *list = NULL;
    struct timespec ts;
    int i, a;

    if (s != NULL && atof(s) > 0)
        seconds = atof(s);
    forced = getenv("CHACHA_PROVIDER_IMPL");
    if (forced != NULL && *forced == '\0')
        forced = NULL;
    if (!tu_init("test_threads"))
        return tu_finish();
    for (a = 0; a < 2; a++) {
        ours[a] = tu_fetch_ours(a ? "ChaCha20-Poly1305" : "ChaCha20");
        dflt[a] = tu_fetch_default(a ? "ChaCha20-Poly1305" : "ChaCha20");
        if (ours[a] == NULL || dflt[a] == NULL)
            return tu_finish();
    }
    xours[0] = tu_fetch_ours("XChaCha20");
    xours[1] = tu_fetch_ours("XChaCha20-Poly1305");
    if (xours[0] == NULL || xours[1] == NULL)
        return tu_finish();
    mac_ours = EVP_MAC_fetch(tu_libctx, "POLY1305", "provider=chacha");
    mac_dflt = EVP_MAC_fetch(tu_libctx, "POLY1305", "provider=default");
    if (!TU_CHECK(mac_ours != NULL && mac_dflt != NULL, "fetch POLY1305 from both providers"))
        return tu_finish();
    /* per-load kernels for the churn threads: every name the CPU runs */
    if (forced == NULL) {
        FILE *f;
        char line[64];
        const char *lb = getenv("LIST_KERNELS");
        char cmd[600];

        snprintf(cnf_dir, sizeof(cnf_dir), "%s/chacha-threads.XXXXXX",
                 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        if (!TU_CHECK(mkdtemp(cnf_dir) != NULL, "mkdtemp"))
            return tu_finish();
        snprintf(cmd, sizeof(cmd), "%s chacha20", lb ? lb : "test/kernel/list_kernels");
        f = popen(cmd, "r");
        while (f != NULL && n_kernels < 7 && fgets(line, sizeof(line), f) != NULL) {
            line[strcspn(line, "\n")] = '\0';
            if (*line && write_cnf(line))
                kernels[n_kernels++] = strdup(line);
        }
        if (f != NULL)
            pclose(f);
        if (n_kernels == 0 && write_cnf("auto"))
            kernels[n_kernels++] = "auto";
        printf("# churn threads cycle the kernels by config:");
        for (i = 0; i < n_kernels; i++)
            printf(" %s", kernels[i]);
        printf("\n");
    } else {
        printf("# CHACHA_PROVIDER_IMPL=%s: every load uses it\n", forced);
    }
    (void)list;

    memset(jobs, 0, sizeof(jobs));
    for (i = 0; i < WORKERS + CHURNERS; i++) {
        jobs[i].id = i;
        if (!TU_CHECK(pthread_create(&t[i], NULL, i < WORKERS ? worker : churn,
                                     &jobs[i]) == 0, "pthread_create"))
            return tu_finish();
    }
    ts.tv_sec = (time_t)seconds;
    ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
    nanosleep(&ts, NULL);
    pthread_mutex_lock(&stop_lock);
    stop = 1;
    pthread_mutex_unlock(&stop_lock);
    for (i = 0; i < WORKERS + CHURNERS; i++) {
        pthread_join(t[i], NULL);
        printf("# %s %d: %lu operations%s%s\n", i < WORKERS ? "worker" : "churn",
               jobs[i].id, jobs[i].ops, jobs[i].fails ? ", first failure: " : "",
               jobs[i].msg);
        TU_CHECK(jobs[i].fails == 0, "thread %d: %lu failures (%s)", i,
                 jobs[i].fails, jobs[i].msg);
        TU_CHECK(jobs[i].ops > 0, "thread %d did nothing", i);
    }
    if (forced == NULL) {
        for (i = 0; i < n_kernels; i++) {
            char path[400];

            snprintf(path, sizeof(path), "%s/impl-%s.cnf", cnf_dir, kernels[i]);
            remove(path);
        }
        rmdir(cnf_dir);
    }
    for (a = 0; a < 2; a++) {
        EVP_CIPHER_free(ours[a]);
        EVP_CIPHER_free(dflt[a]);
        EVP_CIPHER_free(xours[a]);
    }
    EVP_MAC_free(mac_ours);
    EVP_MAC_free(mac_dflt);
    return tu_finish();
}
