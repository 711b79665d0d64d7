/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The provider's self-test and error state (OSSL_FUNC_PROVIDER_SELF_TEST,
 * OSSL_PROV_PARAM_STATUS), after OpenSSL's test/provider_status_test.c:
 *  - at load the known answers run on the chosen kernels, each reported to
 *    the application's OSSL_SELF_TEST callback; status reads 1;
 *  - OSSL_PROVIDER_self_test passes; then, with a callback that corrupts
 *    the outputs (the "Corrupt" phase, as OpenSSL's FIPS tests do), it
 *    returns 0 and the instance is in the error state for good: status 0,
 *    fetches of every algorithm fail, contexts made before fail on init,
 *    update, final and dup, each with the reason on the error queue; the
 *    default provider in the same library context is not affected;
 *  - a corrupted answer at load refuses the load, naming kernel and vector;
 *  - the self-test's cost, at load (in the debug trace) and warm;
 *  - what a load costs in three fresh library contexts in a row, the first
 *    cold (--load-cost: only that; CHACHA_PROVIDER_DEBUG=1 adds the module's
 *    self-test time per load, "not rerun" once a combination has passed).
 * With --broken-after-load (the --enable-test-broken-kernel build, run with
 * CHACHA_TEST_BROKEN_KERNEL=after-load: test/integration/selftest-broken.sh) the kernel
 * itself goes wrong after a clean load and no callback is used.
 * CHACHA_SELFTEST_MODULES, if set, is the directory chacha.so is loaded from.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>
#include <openssl/self_test.h>
#include "testutil.h"

static const unsigned char key[32] = { 1, 2, 3 };
static const unsigned char iv16[16] = { 0, 0, 0, 0, 7 };
static const unsigned char iv12[12] = { 9 };
static const unsigned char iv32[32] = { 5 };
static unsigned char buf[128], out[160];

/* What the callback saw, and what it is told to do. */
typedef struct {
    int starts, passes, fails, corrupts;
    const char *corrupt_match;  /* corrupt vectors whose desc has this; NULL: none */
    char first_desc[160];
} cb_state;

static int self_test_cb(const OSSL_PARAM params[], void *arg)
{
    cb_state *s = arg;
    const OSSL_PARAM *p;
    const char *phase = NULL, *desc = "";

    if ((p = OSSL_PARAM_locate_const(params, OSSL_PROV_PARAM_SELF_TEST_PHASE)) != NULL)
        OSSL_PARAM_get_utf8_string_ptr(p, &phase);
    if ((p = OSSL_PARAM_locate_const(params, OSSL_PROV_PARAM_SELF_TEST_DESC)) != NULL)
        OSSL_PARAM_get_utf8_string_ptr(p, &desc);
    if (phase == NULL)
        return 1;
    if (strcmp(phase, OSSL_SELF_TEST_PHASE_START) == 0) {
        if (s->starts++ == 0)
            snprintf(s->first_desc, sizeof(s->first_desc), "%s", desc);
    } else if (strcmp(phase, OSSL_SELF_TEST_PHASE_PASS) == 0) {
        s->passes++;
    } else if (strcmp(phase, OSSL_SELF_TEST_PHASE_FAIL) == 0) {
        s->fails++;
    } else if (strcmp(phase, OSSL_SELF_TEST_PHASE_CORRUPT) == 0
               && s->corrupt_match != NULL && strstr(desc, s->corrupt_match) != NULL) {
        s->corrupts++;
        return 0;   /* "corrupt this output" */
    }
    return 1;
}

static OSSL_LIB_CTX *new_libctx(void)
{
    OSSL_LIB_CTX *l = OSSL_LIB_CTX_new();
    const char *dir = getenv("CHACHA_SELFTEST_MODULES");

    if (l != NULL && dir != NULL && *dir != '\0')
        OSSL_PROVIDER_set_default_search_path(l, dir);
    return l;
}

static int status_of(OSSL_PROVIDER *p)
{
    int status = -1;
    OSSL_PARAM params[2] = { OSSL_PARAM_int(OSSL_PROV_PARAM_STATUS, &status),
                             OSSL_PARAM_END };

    if (!OSSL_PROVIDER_get_params(p, params))
        return -2;
    return status;
}

/* Is there an error on the queue whose reason text or data has `what`? Clears it. */
static int queue_has(const char *what)
{
    unsigned long e;
    const char *data = NULL;
    int flags = 0, found = 0;
    char line[512];

    while ((e = ERR_get_error_all(NULL, NULL, NULL, &data, &flags)) != 0) {
        ERR_error_string_n(e, line, sizeof(line));
        if (strstr(line, what) != NULL
            || ((flags & ERR_TXT_STRING) && data != NULL && strstr(data, what) != NULL)) {
            if (!found)
                printf("# error: %s%s%s\n", line, (flags & ERR_TXT_STRING) ? ": " : "",
                       (flags & ERR_TXT_STRING) ? data : "");
            found = 1;
        }
    }
    return found;
}

/* Live contexts of every kind, made while the provider runs. */
typedef struct {
    EVP_CIPHER_CTX *c20, *aead, *xc20, *xaead;
    EVP_MAC_CTX *mac;
    EVP_MD_CTX *sig;
    EVP_PKEY *pkey;
} live_ctxs;

static EVP_CIPHER_CTX *live_cipher(OSSL_LIB_CTX *l, const char *name,
                                   const unsigned char *iv)
{
    EVP_CIPHER *c = EVP_CIPHER_fetch(l, name, TU_PROPQ_OURS);
    EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
    int outl;

    if (!TU_CHECK(c != NULL && x != NULL, "fetch %s before the failure", name)
        || !TU_CHECK(EVP_EncryptInit_ex(x, c, NULL, key, iv)
                     && EVP_EncryptUpdate(x, out, &outl, buf, 16),
                     "%s works before the failure", name))
        tu_print_errors();
    EVP_CIPHER_free(c);
    return x;
}

static void make_live(OSSL_LIB_CTX *l, live_ctxs *lc)
{
    EVP_MAC *m = EVP_MAC_fetch(l, "POLY1305", TU_PROPQ_OURS);
    size_t n = 0;

    lc->c20 = live_cipher(l, "ChaCha20", iv16);
    lc->aead = live_cipher(l, "ChaCha20-Poly1305", iv12);
    lc->xc20 = live_cipher(l, "XChaCha20", iv32);
    lc->xaead = live_cipher(l, "XChaCha20-Poly1305", iv32);
    lc->mac = m != NULL ? EVP_MAC_CTX_new(m) : NULL;
    TU_CHECK(lc->mac != NULL && EVP_MAC_init(lc->mac, key, sizeof(key), NULL)
             && EVP_MAC_update(lc->mac, buf, 16), "POLY1305 MAC works before the failure");
    EVP_MAC_free(m);
    lc->pkey = EVP_PKEY_new_raw_private_key_ex(l, "POLY1305", TU_PROPQ_OURS, key, sizeof(key));
    lc->sig = EVP_MD_CTX_new();
    TU_CHECK(lc->pkey != NULL && lc->sig != NULL
             && EVP_DigestSignInit_ex(lc->sig, NULL, NULL, l, TU_PROPQ_OURS, lc->pkey, NULL)
             && EVP_DigestSignUpdate(lc->sig, buf, 16),
             "POLY1305 EVP_PKEY signature works before the failure");
    (void)n;
    tu_print_errors();
}

static void free_live(live_ctxs *lc)
{
    EVP_CIPHER_CTX_free(lc->c20);
    EVP_CIPHER_CTX_free(lc->aead);
    EVP_CIPHER_CTX_free(lc->xc20);
    EVP_CIPHER_CTX_free(lc->xaead);
    EVP_MAC_CTX_free(lc->mac);
    EVP_MD_CTX_free(lc->sig);
    EVP_PKEY_free(lc->pkey);
}

#define REFUSED "error state"

/* Every fetch and every operation of the live contexts fails, with our reason. */
static void check_error_state(OSSL_LIB_CTX *l, OSSL_PROVIDER *prov, live_ctxs *lc)
{
    static const char *const ciphers[] = {
        "ChaCha20", "ChaCha20-Poly1305", "XChaCha20", "XChaCha20-Poly1305"
    };
    EVP_CIPHER_CTX *ctxs[] = { lc->c20, lc->aead, lc->xc20, lc->xaead };
    EVP_CIPHER_CTX *dup;
    EVP_CIPHER *c;
    EVP_MAC *m;
    EVP_PKEY *pk;
    EVP_MAC_CTX *mdup;
    unsigned char tag[16];
    size_t i, n = 0;
    int outl;

    TU_CHECK(status_of(prov) == 0, "status reads 0 in the error state (got %d)",
             status_of(prov));
    for (i = 0; i < 4; i++) {
        c = EVP_CIPHER_fetch(l, ciphers[i], TU_PROPQ_OURS);
        TU_CHECK(c == NULL, "fetch %s fails in the error state", ciphers[i]);
        TU_CHECK(queue_has(REFUSED), "  ... with the reason on the error queue");
        EVP_CIPHER_free(c);
    }
    m = EVP_MAC_fetch(l, "POLY1305", TU_PROPQ_OURS);
    TU_CHECK(m == NULL, "fetch MAC POLY1305 fails in the error state");
    EVP_MAC_free(m);
    pk = EVP_PKEY_new_raw_private_key_ex(l, "POLY1305", TU_PROPQ_OURS, key, sizeof(key));
    TU_CHECK(pk == NULL, "a new POLY1305 EVP_PKEY fails in the error state");
    EVP_PKEY_free(pk);
    ERR_clear_error();

    for (i = 0; i < 4; i++) {
        TU_CHECK(!EVP_EncryptUpdate(ctxs[i], out, &outl, buf, 16) && queue_has(REFUSED),
                 "%s: update of a context made before fails, with the reason", ciphers[i]);
        TU_CHECK(EVP_EncryptFinal_ex(ctxs[i], out, &outl) <= 0 && queue_has(REFUSED),
                 "%s: final fails, with the reason", ciphers[i]);
        TU_CHECK(EVP_Cipher(ctxs[i], out, buf, 16) <= 0 && queue_has(REFUSED),
                 "%s: EVP_Cipher fails, with the reason", ciphers[i]);
        TU_CHECK(!EVP_EncryptInit_ex(ctxs[i], NULL, NULL, key, NULL) && queue_has(REFUSED),
                 "%s: a new init fails, with the reason", ciphers[i]);
        dup = EVP_CIPHER_CTX_new();
        TU_CHECK(dup != NULL && !EVP_CIPHER_CTX_copy(dup, ctxs[i]),
                 "%s: dup fails", ciphers[i]);
        EVP_CIPHER_CTX_free(dup);
        ERR_clear_error();
    }
    TU_CHECK(!EVP_MAC_update(lc->mac, buf, 16) && queue_has(REFUSED),
             "MAC POLY1305: update fails, with the reason");
    TU_CHECK(!EVP_MAC_final(lc->mac, tag, &n, sizeof(tag)) && queue_has(REFUSED),
             "MAC POLY1305: final fails, with the reason");
    mdup = EVP_MAC_CTX_dup(lc->mac);
    TU_CHECK(mdup == NULL, "MAC POLY1305: dup fails");
    EVP_MAC_CTX_free(mdup);
    n = sizeof(tag);
    TU_CHECK(!EVP_DigestSignUpdate(lc->sig, buf, 16) || !EVP_DigestSignFinal(lc->sig, tag, &n),
             "POLY1305 signature: update/final fail");
    TU_CHECK(queue_has(REFUSED), "  ... with the reason");

    /* the default provider of the same library context goes on */
    c = EVP_CIPHER_fetch(l, "ChaCha20", TU_PROPQ_DEFAULT);
    TU_CHECK(c != NULL, "the default provider's ChaCha20 is still fetchable");
    EVP_CIPHER_free(c);
    ERR_clear_error();
}

static long usec_since(const struct timespec *t0)
{
    struct timespec t1;

    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (long)((t1.tv_sec - t0->tv_sec) * 1000000L + (t1.tv_nsec - t0->tv_nsec) / 1000);
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;

    return (x > y) - (x < y);
}

/* Load, callbacks, on-demand pass, timing, on-demand failure, error state. */
static void test_on_demand(void)
{
    OSSL_LIB_CTX *l = new_libctx();
    OSSL_PROVIDER *ours, *dflt;
    cb_state st = { 0, 0, 0, 0, NULL, "" };
    live_ctxs lc = { 0 };
    struct timespec t0;
    long us[25];
    int i, expected;

    OSSL_SELF_TEST_set_callback(l, self_test_cb, &st);
    ours = OSSL_PROVIDER_load(l, TU_OURS);
    dflt = OSSL_PROVIDER_load(l, "default");
    if (!TU_CHECK(ours != NULL && dflt != NULL, "load chacha and default")) {
        tu_print_errors();
        goto end;
    }
    printf("# at load: %d vectors started, %d passed, %d failed; first: %s\n",
           st.starts, st.passes, st.fails, st.first_desc);
    TU_CHECK(st.starts >= 6 && st.passes == st.starts && st.fails == 0,
             "the load ran the known answers through the callback, all passed");
    TU_CHECK(strstr(st.first_desc, "chacha20=") != NULL,
             "each vector names its kernel (\"%s\")", st.first_desc);
    TU_CHECK(status_of(ours) == 1, "status reads 1 after load");
    expected = st.starts;

    st.starts = st.passes = 0;
    TU_CHECK(OSSL_PROVIDER_self_test(ours) == 1, "OSSL_PROVIDER_self_test passes");
    TU_CHECK(st.starts == expected && st.passes == expected,
             "on demand: the same %d vectors, all passed", expected);

    /* warm cost, without the callback (as at load with none set) */
    OSSL_SELF_TEST_set_callback(l, NULL, NULL);
    for (i = 0; i < 25; i++) {
        clock_gettime(CLOCK_MONOTONIC, &t0);
        OSSL_PROVIDER_self_test(ours);
        us[i] = usec_since(&t0);
    }
    qsort(us, 25, sizeof(us[0]), cmp_long);
    printf("# self-test on demand, 25 runs: min %ld us, median %ld us, max %ld us\n",
           us[0], us[12], us[24]);

    make_live(l, &lc);
    st.corrupt_match = "AEAD 7 blocks";
    st.fails = 0;
    OSSL_SELF_TEST_set_callback(l, self_test_cb, &st);
    ERR_clear_error();
    TU_CHECK(OSSL_PROVIDER_self_test(ours) == 0,
             "OSSL_PROVIDER_self_test returns 0 when an answer is corrupted");
    TU_CHECK(st.corrupts > 0 && st.fails == 1, "the callback saw the corrupt phase and one "
             "Fail (corrupts %d, fails %d)", st.corrupts, st.fails);
    TU_CHECK(queue_has("AEAD 7 blocks"), "the error names the vector");
    check_error_state(l, ours, &lc);

    /* the error state stays, whatever the next self-test would say */
    st.corrupt_match = NULL;
    TU_CHECK(OSSL_PROVIDER_self_test(ours) == 0 && status_of(ours) == 0,
             "the error state is permanent for this instance");
    ERR_clear_error();
    free_live(&lc);
end:
    OSSL_PROVIDER_unload(dflt);
    OSSL_PROVIDER_unload(ours);
    OSSL_LIB_CTX_free(l);
}

/* A corrupted answer at load: the load is refused, naming kernel and vector. */
static void test_load_refused(const char *match)
{
    OSSL_LIB_CTX *l = new_libctx();
    OSSL_PROVIDER *ours;
    cb_state st = { 0, 0, 0, 0, match, "" };

    OSSL_SELF_TEST_set_callback(l, self_test_cb, &st);
    ERR_clear_error();
    ours = OSSL_PROVIDER_load(l, TU_OURS);
    TU_CHECK(ours == NULL, "a corrupted \"%s\" at load refuses the load", match);
    TU_CHECK(queue_has(match) , "  ... the error names the vector");
    ERR_clear_error();
    OSSL_PROVIDER_unload(ours);
    OSSL_LIB_CTX_free(l);
}

/* --broken-after-load: the kernel itself turns wrong after a clean load. */
static void test_broken_after_load(void)
{
    OSSL_LIB_CTX *l = new_libctx();
    OSSL_PROVIDER *ours = OSSL_PROVIDER_load(l, TU_OURS);
    OSSL_PROVIDER *dflt = OSSL_PROVIDER_load(l, "default");
    live_ctxs lc = { 0 };

    if (!TU_CHECK(ours != NULL && dflt != NULL, "the broken build loads (after-load mode)")) {
        tu_print_errors();
        goto end;
    }
    TU_CHECK(status_of(ours) == 1, "status reads 1 after the load");
    make_live(l, &lc);
    ERR_clear_error();
    TU_CHECK(OSSL_PROVIDER_self_test(ours) == 0,
             "OSSL_PROVIDER_self_test returns 0 on the broken kernel");
    TU_CHECK(queue_has("kernel chacha20="), "the error names the kernel");
    check_error_state(l, ours, &lc);
    free_live(&lc);
end:
    OSSL_PROVIDER_unload(dflt);
    OSSL_PROVIDER_unload(ours);
    OSSL_LIB_CTX_free(l);
}

/*
 * What a load costs, cold (the first library context of the process: the
 * module's dlopen, the path rule's probes, the known answers) and then in
 * further library contexts while the first lives (the rule's measurement and
 * the answers of kernels that passed are kept while the module is loaded:
 * core/shortpath.c, selftest.c).
 * Run first, before anything else loaded the module. With
 * CHACHA_PROVIDER_DEBUG=1 the module prints the self-test's own time per load.
 */
static long load_us[3];
static int load_ok[3];

static void measure_loads(void)
{
    OSSL_LIB_CTX *l[3];
    OSSL_PROVIDER *p[3];
    struct timespec t0;
    int i;

    /* all three alive at once: the last unload would dlclose the module */
    for (i = 0; i < 3; i++) {
        l[i] = new_libctx();
        clock_gettime(CLOCK_MONOTONIC, &t0);
        p[i] = l[i] != NULL ? OSSL_PROVIDER_load(l[i], TU_OURS) : NULL;
        load_us[i] = usec_since(&t0);
        load_ok[i] = p[i] != NULL;
    }
    for (i = 0; i < 3; i++) {
        OSSL_PROVIDER_unload(p[i]);
        OSSL_LIB_CTX_free(l[i]);
    }
}

int main(int argc, char **argv)
{
    const char *impl = getenv("CHACHA_PROVIDER_IMPL"), *pimpl =
        getenv("CHACHA_PROVIDER_POLY1305_IMPL");

    printf("# test_selftest: chacha20=%s poly1305=%s\n", impl ? impl : "auto",
           pimpl ? pimpl : "auto");
    if (argc > 1 && strcmp(argv[1], "--broken-after-load") == 0) {
        test_broken_after_load();
        return tu_finish();
    }
    measure_loads();
    if (!tu_init("test_selftest"))
        return tu_finish();
    printf("# OSSL_PROVIDER_load: first library context %ld us (cold), second %ld us, "
           "third %ld us\n", load_us[0], load_us[1], load_us[2]);
    TU_CHECK(load_ok[0] && load_ok[1] && load_ok[2],
             "three library contexts in a row load the module");
    if (argc > 1 && strcmp(argv[1], "--load-cost") == 0)
        return tu_finish();
    test_on_demand();
    test_load_refused("RFC 8439 2.4.2 ChaCha20");
    test_load_refused("RFC 8439 2.5.2 Poly1305");
    test_load_refused("draft-irtf-cfrg-xchacha-03 A.1");
    return tu_finish();
}
