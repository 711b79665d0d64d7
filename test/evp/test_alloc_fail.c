/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Allocation failures: every OPENSSL_malloc/OPENSSL_realloc of a whole
 * session -- library context, provider load, fetch, init, update, final,
 * dup, get/set params, free -- fails in turn, one per forked child
 * (CRYPTO_set_mem_functions(), honoured by Debian's non-debug libcrypto).
 * N = 0 counts the allocations and records the reference output; then
 * N = 1, 2, ... up to that count. Per algorithm: ChaCha20, ChaCha20-Poly1305
 * (with a TLS 1.2 record), XChaCha20, XChaCha20-Poly1305, POLY1305 as a MAC
 * and as a PKEY (EVP_DigestSign).
 *
 * A child must exit normally (no crash; under ASan/LSan, as CI runs it, no
 * leak and no memory error), and a session that reports success must have
 * produced exactly the reference bytes. The Nth allocation is attributed to
 * ours when the module (chacha.so) is on the call stack at that moment; a
 * crash or leak report that names the module is ours. Failures that only
 * libcrypto's own code meets (its init, the provider loader, EVP wrappers)
 * are counted apart and compared with the same session on OpenSSL's default
 * provider, which meets them too; only ours count as failures. When ours
 * fails, an error must be on the queue.
 *
 * libcrypto's start (init, error strings, the library context) is not
 * counted. Of the provider load and the first fetch (about 2200
 * allocations, nearly all libcrypto's method store and name map) every
 * ALLOC_FAIL_STRIDE-th fails (default 16; 1 = every one) and every one
 * with the module on its stack; from the fetch on, every one.
 * ALLOC_FAIL_DEFAULT=1 also sweeps the default's session (done anyway when
 * ours met libcrypto-only failures); ALLOC_TRACE=1 prints a stack every 50
 * allocations of the reference run after the fetch. The children of a
 * sweep run ALLOC_FAIL_JOBS at a time (default: the online CPUs, at most
 * MAX_JOBS), each checked as it exits.
 *
 *   test/evp/test_alloc_fail [ALGORITHM...]   (OPENSSL_MODULES: the module's dir)
 * Ends with "test_alloc_fail: N passed, N failed".
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include "tu_check.h"

#define MODULE_NAME "chacha.so"

/* ---- the failing allocator ------------------------------------------------ */

static unsigned long n_alloc, fail_at;
static int hit_ours;           /* the failed allocation had the module on its stack */
/* the reference run (fail_at 0): which allocations had the module on their
   stack, and from which one on the session's operations (after the fetch) ran */
#define MAX_POINTS 20000
static unsigned char ours_at[MAX_POINTS + 1];
static unsigned long ops_from;

static int module_on_stack(void)
{
    void *frames[64];
    int n = backtrace(frames, 64), i;
    Dl_info info;

    for (i = 0; i < n; i++)
        if (dladdr(frames[i], &info) && info.dli_fname != NULL
            && strstr(info.dli_fname, MODULE_NAME) != NULL)
            return 1;
    return 0;
}

static int armed;               /* counting (after the library context exists) */

static int inject(void)
{
    if (!armed)
        return 0;
    if (fail_at == 0 && ++n_alloc <= MAX_POINTS) {
        ours_at[n_alloc] = (unsigned char)module_on_stack();
        if (getenv("ALLOC_TRACE") && ops_from && n_alloc % 50 == 0) {
            void *fr[12];
            fprintf(stderr, "--- %lu\n", n_alloc);
            backtrace_symbols_fd(fr, backtrace(fr, 12), 2);
        }
        return 0;
    }
    if (fail_at == 0 || ++n_alloc != fail_at)
        return 0;
    hit_ours = module_on_stack();
    return 1;
}

static void *fail_malloc(size_t n, const char *file, int line)
{
    (void)file, (void)line;
    return inject() ? NULL : malloc(n);
}

static void *fail_realloc(void *p, size_t n, const char *file, int line)
{
    (void)file, (void)line;
    return inject() ? NULL : realloc(p, n);
}

static void plain_free(void *p, const char *file, int line)
{
    (void)file, (void)line;
    free(p);
}

/* ---- sessions: each appends its outputs to out[] ------------------------- */

typedef struct {
    OSSL_LIB_CTX *lib;
    const char *propq;
    unsigned char out[4096];
    size_t outlen;
} session;

static const unsigned char key[32] = {
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
    17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32
};
static const unsigned char iv[32] = { 7, 6, 5, 4, 3, 2, 1, 0, 9, 8, 7, 6, 5, 4, 3, 2, 1 };
static unsigned char msg[300];

/* the fetch is done: what follows are the operations */
static int fetched(int ok)
{
    if (ops_from == 0)
        ops_from = n_alloc;
    return ok;
}

static int keep(session *s, const unsigned char *p, size_t n)
{
    if (s->outlen + n > sizeof(s->out))
        return 0;
    memcpy(s->out + s->outlen, p, n);
    s->outlen += n;
    return 1;
}

/* get and set the ctx params every cipher has, as an application would */
static int cipher_params(EVP_CIPHER_CTX *c)
{
    size_t ivlen = 0, keylen = 0;
    unsigned char uiv[32];
    OSSL_PARAM g[4], st[2];

    g[0] = OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_IVLEN, &ivlen);
    g[1] = OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_KEYLEN, &keylen);
    g[2] = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, uiv, sizeof(uiv));
    g[3] = OSSL_PARAM_construct_end();
    st[0] = OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_KEYLEN, &keylen);
    st[1] = OSSL_PARAM_construct_end();
    return EVP_CIPHER_CTX_get_params(c, g) == 1 && keylen == 32
           && EVP_CIPHER_CTX_set_params(c, st) == 1;
}

/* encrypt (AEAD: with AAD and a tag), a copy taking over half-way */
static int cipher_seal(session *s, const char *name, int aead)
{
    EVP_CIPHER *ci = EVP_CIPHER_fetch(s->lib, name, s->propq);
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new(), *d = EVP_CIPHER_CTX_new();
    unsigned char ct[sizeof(msg)], tag[16];
    int l1 = 0, l2 = 0, l3 = 0, ok;

    ok = fetched(ci != NULL && c != NULL && d != NULL)
         && EVP_CipherInit_ex2(c, ci, key, iv, 1, NULL) == 1
         && cipher_params(c)
         && (!aead || EVP_CipherUpdate(c, NULL, &l1, iv, 13) == 1)
         && EVP_CipherUpdate(c, ct, &l1, msg, 100) == 1
         && EVP_CIPHER_CTX_copy(d, c) == 1
         && EVP_CipherUpdate(d, ct + l1, &l2, msg + 100, sizeof(msg) - 100) == 1
         && EVP_CipherFinal_ex(d, ct + l1 + l2, &l3) == 1
         && (size_t)(l1 + l2 + l3) == sizeof(msg)
         && keep(s, ct, sizeof(ct))
         && (!aead || (EVP_CIPHER_CTX_ctrl(d, EVP_CTRL_AEAD_GET_TAG, 16, tag) == 1
                       && keep(s, tag, 16)));
    /* AEAD: open it again, the tag checked */
    if (ok && aead)
        ok = EVP_CipherInit_ex2(c, NULL, key, iv, 0, NULL) == 1
             && EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_TAG, 16, tag) == 1
             && EVP_CipherUpdate(c, NULL, &l1, iv, 13) == 1
             && EVP_CipherUpdate(c, ct, &l1, ct, sizeof(ct)) == 1
             && EVP_CipherFinal_ex(c, ct + l1, &l2) == 1
             && memcmp(ct, msg, sizeof(msg)) == 0;
    EVP_CIPHER_CTX_free(c);
    EVP_CIPHER_CTX_free(d);
    EVP_CIPHER_free(ci);
    return ok;
}

/* ChaCha20-Poly1305 in TLS 1.2 record mode: tlsivfixed, tlsaad, one record */
static int cipher_tls(session *s)
{
    EVP_CIPHER *ci = EVP_CIPHER_fetch(s->lib, "ChaCha20-Poly1305", s->propq);
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    unsigned char aad[13] = { 0, 0, 0, 0, 0, 0, 0, 1, 23, 3, 3, 0, 64 }, rec[64 + 16];
    int ok;

    memcpy(rec, msg, 64);
    ok = fetched(ci != NULL && c != NULL)
         && EVP_CipherInit_ex2(c, ci, key, NULL, 1, NULL) == 1
         && EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_IV_FIXED, 12, (void *)iv) == 1
         && EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_TLS1_AAD, 13, aad) == 16
         && EVP_Cipher(c, rec, rec, sizeof(rec)) == (int)sizeof(rec)
         && keep(s, rec, sizeof(rec));
    EVP_CIPHER_CTX_free(c);
    EVP_CIPHER_free(ci);
    return ok;
}

static int mac_poly1305(session *s)
{
    EVP_MAC *m = EVP_MAC_fetch(s->lib, "POLY1305", s->propq);
    EVP_MAC_CTX *c = m != NULL ? EVP_MAC_CTX_new(m) : NULL, *d = NULL;
    unsigned char tag[16];
    size_t tl = 0, size = 0;
    OSSL_PARAM g[2] = { OSSL_PARAM_size_t(OSSL_MAC_PARAM_SIZE, &size), OSSL_PARAM_END };
    int ok;

    ok = fetched(c != NULL) && EVP_MAC_init(c, key, 32, NULL) == 1
         && EVP_MAC_update(c, msg, 100) == 1
         && (d = EVP_MAC_CTX_dup(c)) != NULL
         && EVP_MAC_update(d, msg + 100, sizeof(msg) - 100) == 1
         && EVP_MAC_CTX_get_params(d, g) == 1
         /*
          * ours answers the context's size; the default's POLY1305 (3.0.19)
          * has no context "size": its get succeeds and writes nothing, and
          * EVP_MAC_CTX_get_mac_size asks the algorithm's instead
          */
         && (size == 16 || (strcmp(s->propq, "provider=default") == 0 && size == 0
                            && EVP_MAC_CTX_get_mac_size(d) == 16))
         && EVP_MAC_final(d, tag, &tl, sizeof(tag)) == 1 && tl == 16
         && keep(s, tag, 16);
    EVP_MAC_CTX_free(c);
    EVP_MAC_CTX_free(d);
    EVP_MAC_free(m);
    return ok;
}

static int pkey_poly1305(session *s)
{
    EVP_PKEY *pk = EVP_PKEY_new_raw_private_key_ex(s->lib, "POLY1305", s->propq, key, 32);
    EVP_MD_CTX *c = EVP_MD_CTX_new(), *d = EVP_MD_CTX_new();
    unsigned char tag[16];
    size_t tl = sizeof(tag);
    int ok;

    ok = fetched(pk != NULL && c != NULL && d != NULL)
         && EVP_DigestSignInit_ex(c, NULL, NULL, s->lib, s->propq, pk, NULL) == 1
         && EVP_DigestSignUpdate(c, msg, 100) == 1
         && EVP_MD_CTX_copy_ex(d, c) == 1
         && EVP_DigestSignUpdate(d, msg + 100, sizeof(msg) - 100) == 1
         && EVP_DigestSignFinal(d, tag, &tl) == 1 && tl == 16
         && keep(s, tag, 16);
    EVP_MD_CTX_free(c);
    EVP_MD_CTX_free(d);
    EVP_PKEY_free(pk);
    return ok;
}

typedef struct {
    const char *name;
    int (*run)(session *s, const char *alg);
    const char *dflt;          /* the same session on the default provider, or
                                  the nearest one it has (XChaCha: none) */
} algorithm;

static int run_c20(session *s, const char *a) { return cipher_seal(s, a, 0); }
static int run_aead(session *s, const char *a) { return cipher_seal(s, a, 1) && cipher_tls(s); }
static int run_xaead(session *s, const char *a) { return cipher_seal(s, a, 1); }
static int run_mac(session *s, const char *a) { (void)a; return mac_poly1305(s); }
static int run_pkey(session *s, const char *a) { (void)a; return pkey_poly1305(s); }

static const algorithm algs[] = {
    { "ChaCha20", run_c20, "ChaCha20" },
    { "ChaCha20-Poly1305", run_aead, "ChaCha20-Poly1305" },
    { "XChaCha20", run_c20, "ChaCha20" },
    { "XChaCha20-Poly1305", run_xaead, "ChaCha20-Poly1305" },
    { "POLY1305-MAC", run_mac, "POLY1305-MAC" },
    { "POLY1305-PKEY", run_pkey, "POLY1305-PKEY" },
};

static const algorithm *find_alg(const char *name)
{
    size_t i;

    for (i = 0; i < sizeof(algs) / sizeof(algs[0]); i++)
        if (strcmp(algs[i].name, name) == 0)
            return &algs[i];
    return NULL;
}

/*
 * The child: one whole session with allocation fail_at failing, from the
 * library context to the last free. Prints "alloc N hit H ok K OUTHEX".
 */
static void child(const algorithm *a, const char *prov)
{
    session s = { NULL, NULL, { 0 }, 0 };
    OSSL_PROVIDER *p = NULL;
    int ok, err;
    size_t i;

    s.propq = strcmp(prov, "default") == 0 ? "provider=default" : "provider=chacha";
    /*
     * libcrypto's own start (its init, its error strings, a library context)
     * is not counted:
     * thousands of allocations of its name maps and method stores that no
     * provider is part of. From the provider load on, every one is.
     */
    if (!OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG | OPENSSL_INIT_LOAD_CRYPTO_STRINGS, NULL)
        || (s.lib = OSSL_LIB_CTX_new()) == NULL) {
        printf("libcrypto init failed\n");
        exit(3);
    }
    armed = 1;
    ok = (p = OSSL_PROVIDER_load(s.lib, prov)) != NULL && a->run(&s, a->name);
    err = ERR_peek_error() != 0;
    if (!ok && fail_at == 0)
        ERR_print_errors_fp(stdout);
    OSSL_PROVIDER_unload(p);
    OSSL_LIB_CTX_free(s.lib);
    armed = 0;
    printf("alloc %lu hit %d ok %d err %d ", n_alloc, hit_ours, ok, err);
    for (i = 0; ok && i < s.outlen; i++)
        printf("%02x", s.out[i]);
    printf("\n");
    if (fail_at == 0) {
        printf("ops-from %lu\nours-at", ops_from);
        for (i = 1; i <= n_alloc && i <= MAX_POINTS; i++)
            if (ours_at[i])
                printf(" %zu", i);
        printf("\n");
    }
    fflush(stdout);
    ERR_clear_error();
    OPENSSL_cleanup();
    exit(0);                   /* LSan checks for leaks here */
}

/* ---- the parent ----------------------------------------------------------- */

typedef struct {
    int exited_ok;             /* exit 0 and a result line */
    int names_module;          /* a crash/leak report with the module in it */
    unsigned long allocs;
    int hit, ok, err;
    char *out;                 /* hex, malloc'd */
    char *log;                 /* the child's whole output, malloc'd */
} result;

/* children at once (ALLOC_FAIL_JOBS) */
#define MAX_JOBS 4
static int jobs = 1;

/* a child in flight: its pid, the file its output goes to, its N */
typedef struct {
    pid_t pid;
    int fd;
    unsigned long n;
} child_slot;

static void start_child(const algorithm *a, const char *prov, unsigned long n,
                        child_slot *c)
{
    char path[] = "/tmp/alloc-fail-XXXXXX";

    c->fd = mkstemp(path);
    c->n = n;
    if (c->fd < 0) {
        perror("mkstemp");
        exit(99);
    }
    unlink(path);
    fflush(stdout);
    c->pid = fork();
    if (c->pid < 0) {
        perror("fork");
        exit(99);
    }
    if (c->pid == 0) {
        dup2(c->fd, 1);
        dup2(c->fd, 2);
        fail_at = n;
        child(a, prov);
    }
}

/* the result of child c, which exited with status */
static void finish_child(const child_slot *c, int status, result *r)
{
    FILE *f;
    long sz;
    char *line;

    memset(r, 0, sizeof(*r));
    f = fdopen(c->fd, "r");
    if (f == NULL) {
        perror("fdopen");
        exit(99);
    }
    fseek(f, 0, SEEK_END);
    sz = ftell(f);
    rewind(f);
    r->log = calloc(1, (size_t)sz + 1);
    if (r->log == NULL || fread(r->log, 1, (size_t)sz, f) != (size_t)sz) {
        perror("reading the child's log");
        exit(99);
    }
    fclose(f);
    if (c->n == 0 && getenv("ALLOC_TRACE"))
        fputs(r->log, stderr);
    r->names_module = strstr(r->log, MODULE_NAME) != NULL
                      || strstr(r->log, "provider/") != NULL;
    line = strstr(r->log, "alloc ");
    r->out = calloc(1, (size_t)sz + 1);
    if (r->out == NULL)
        exit(99);
    r->exited_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 && line != NULL
                   && sscanf(line, "alloc %lu hit %d ok %d err %d %s", &r->allocs,
                             &r->hit, &r->ok, &r->err, r->out) >= 4;
}

/* wait for one of the nrun children in run[]; its slot is moved to *done */
static int reap_child(child_slot *run, int *nrun, child_slot *done)
{
    int status = 0, i;
    pid_t pid = waitpid(-1, &status, 0);

    for (i = 0; i < *nrun; i++)
        if (run[i].pid == pid) {
            *done = run[i];
            run[i] = run[--*nrun];
            return status;
        }
    perror("waitpid");
    exit(99);
}

static void run_child(const algorithm *a, const char *prov, unsigned long n, result *r)
{
    child_slot c, done;
    int nrun = 1, status;

    start_child(a, prov, n, &c);
    status = reap_child(&c, &nrun, &done);
    finish_child(&done, status, r);
}

static void free_result(result *r)
{
    free(r->out);
    free(r->log);
}

typedef struct {
    unsigned long allocs, ops_from, points, ours, ours_failed_closed, lib_failures;
} tally;

static void check(int cond, const char *what, const char *alg, const char *prov,
                  unsigned long n, const result *r)
{
    if (!tu_count(cond))
        return;
    printf("FAIL - %s on %s, allocation %lu failing: %s (the session made %lu)", alg,
           prov, n, what, r->allocs);
    printf("\n--- child output ---\n%.3000s\n---\n", r->log);
}

/* every allocation of the session in turn; returns the reference length */
static void sweep(const algorithm *a, const char *prov, tally *t)
{
    result ref, r;
    unsigned long n, stride;
    char *mark;
    child_slot run[MAX_JOBS];
    int nrun = 0;

    memset(t, 0, sizeof(*t));
    run_child(a, prov, 0, &ref);
    check(ref.exited_ok && ref.ok && ref.out[0] != '\0',
          "the session without injection failed", a->name, prov, 0, &ref);
    if (!ref.exited_ok || !ref.ok) {
        free_result(&ref);
        return;
    }
    /*
     * Which allocations fail: every one with the module on its stack, every
     * one from the fetch on (the operations), and of libcrypto's own ones
     * during the load and fetch (thousands: its method store and name map)
     * every ALLOC_FAIL_STRIDE-th (default 16; 1 = all of them).
     */
    t->allocs = ref.allocs;
    mark = strstr(ref.log, "ops-from ");
    if (mark != NULL)
        t->ops_from = strtoul(mark + 9, NULL, 10);
    mark = strstr(ref.log, "ours-at");
    stride = strtoul(getenv("ALLOC_FAIL_STRIDE") ? getenv("ALLOC_FAIL_STRIDE") : "16", NULL, 10);
    if (stride == 0)
        stride = 1;
    memset(ours_at, 0, sizeof(ours_at));
    while (mark != NULL && (mark = strchr(mark, ' ')) != NULL && mark[1] >= '0' && mark[1] <= '9') {
        n = strtoul(mark + 1, &mark, 10);
        if (n <= MAX_POINTS)
            ours_at[n] = 1;
    }
    for (n = 1; n <= ref.allocs || nrun > 0;) {
        child_slot done;
        int status;

        if (n <= ref.allocs && nrun < jobs) {
            if (!(n <= t->ops_from && n % stride != 0 && (n > MAX_POINTS || !ours_at[n])))
                start_child(a, prov, n, &run[nrun++]);
            n++;
            continue;
        }
        status = reap_child(run, &nrun, &done);
        finish_child(&done, status, &r);
        t->points++;
        if (r.hit)
            t->ours++;
        if (!r.exited_ok && !r.names_module && !r.hit) {
            /* libcrypto's own failure path: counted, compared, not ours */
            t->lib_failures++;
        } else {
            check(r.exited_ok, "crash, leak or memory error",
                  a->name, prov, done.n, &r);
            check(!r.exited_ok || !r.ok || strcmp(r.out, ref.out) == 0,
                  "success with wrong bytes", a->name, prov, done.n, &r);
            if (r.exited_ok && r.hit && !r.ok)
                t->ours_failed_closed++;
            /* ours failed: with an error on the queue, as the default does */
            check(!(r.exited_ok && r.hit && !r.ok && !r.err),
                  "our allocation failed and nothing is on the error queue",
                  a->name, prov, done.n, &r);
        }
        free_result(&r);
    }
    free_result(&ref);
}

int main(int argc, char **argv)
{
    size_t i;
    int k;
    tally ours, dflt;

    if (!CRYPTO_set_mem_functions(fail_malloc, fail_realloc, plain_free)) {
        printf("CRYPTO_set_mem_functions refused (libcrypto allocated already)\n");
        printf("test_alloc_fail: 0 passed, 1 failed\n");
        return 1;
    }
    for (i = 0; i < sizeof(msg); i++)
        msg[i] = (unsigned char)(i * 7 + 1);
    (void)module_on_stack();   /* backtrace() loads its unwinder once, here */
    {
        const char *j = getenv("ALLOC_FAIL_JOBS");
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);

        jobs = j != NULL ? atoi(j) : cpus > 0 ? (int)cpus : 1;
        if (jobs < 1)
            jobs = 1;
        if (jobs > MAX_JOBS)
            jobs = MAX_JOBS;
    }
    for (k = 1; k < argc || (argc == 1 && k == 1); k++) {
        size_t first = 0, last = sizeof(algs) / sizeof(algs[0]);

        if (argc > 1) {
            const algorithm *a = find_alg(argv[k]);

            if (a == NULL) {
                printf("unknown algorithm %s\n", argv[k]);
                return 2;
            }
            first = (size_t)(a - algs);
            last = first + 1;
        }
        for (i = first; i < last; i++) {
            const algorithm *a = &algs[i], *d = find_alg(a->dflt);
            unsigned long before = n_fail;

            sweep(a, "chacha", &ours);
            /*
             * The default's session is swept when ours met failures only
             * libcrypto's code met (to show it meets them too), or when
             * asked (ALLOC_FAIL_DEFAULT=1): its provider load alone makes
             * well over a thousand allocations.
             */
            memset(&dflt, 0, sizeof(dflt));
            if (ours.lib_failures > 0 || getenv("ALLOC_FAIL_DEFAULT") != NULL)
                sweep(d, "default", &dflt);
            printf("# %-18s ours: %lu allocations (%lu before the operations), %lu failed "
                   "in turn, %lu of them with %s on the stack "
                   "(%lu failed closed), "
                   "%lu libcrypto-only failures | default (%s): %lu points swept, "
                   "%lu libcrypto-only failures\n",
                   a->name, ours.allocs, ours.ops_from, ours.points, ours.ours, MODULE_NAME,
                   ours.ours_failed_closed, ours.lib_failures, d->name,
                   dflt.points, dflt.lib_failures);
            /* a libcrypto-only failure the default session never meets is suspect */
            if (tu_count(!(ours.lib_failures > 0 && dflt.lib_failures == 0)))
                printf("FAIL - %s: libcrypto-only failures with ours, none with the default\n",
                       a->name);
            printf("%s - %s\n", n_fail == before ? "ok" : "FAIL", a->name);
        }
    }
    return tu_summary("test_alloc_fail");
}
