/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A/B of two builds of the chacha provider, side by side with OpenSSL's
 * default provider, in one process (one library context per side, each
 * loading chacha.so from its own directory), through EVP:
 *
 *   ab DIR_A DIR_B CIPHER BYTES...       (taskset -c 1 ab ...: pin it)
 *
 * CIPHER is ChaCha20 or ChaCha20-Poly1305. MODE (environment) picks the
 * pattern: 0 (default) Update on a live context (the AEAD: a TLS-like
 * record, Init(iv) + 13 bytes of AAD + Update + Final + tag), 1 Init(iv)
 * before each Update, 2 (the AEAD) bulk Update on a live context.
 * Per size, 301 trials; a trial times 16 calls on each of A, B and the
 * default, best of 3, in turn. It prints the fastest trial of each side in
 * TSC ticks a byte and the medians of the trials' own ratios (default / A,
 * default / B, A / B), which a machine whose speed drifts from second to
 * second moves little: the three samples of a trial are microseconds
 * apart. PCT=1 adds each side's 10th, 50th and 90th percentile. The output
 * buffer sits 320 bytes off the input's page offset: input and output at
 * the same offset in 4 KiB pages (two mallocs of 1 MiB) make false
 * store-to-load dependencies that some code suffers more than other.
 * x86-64 only (rdtsc).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#define TRIALS 301
#define MAXLEN (1 << 20)

static unsigned char inbuf[MAXLEN], outspace[MAXLEN + 4096];
static unsigned char *const outbuf = outspace + 320;
static int aead, mode;

static void die(const char *what)
{
    fprintf(stderr, "ab: %s\n", what);
    exit(1);
}

/* TSC ticks a byte of one call, the best of 3 runs of 16 */
static double run(EVP_CIPHER_CTX *c, size_t len)
{
    static const unsigned char iv[16], aad[13];
    unsigned char tag[16];
    uint64_t best = UINT64_MAX;
    int r, i, ol;

    for (r = 0; r < 3; r++) {
        uint64_t t = __rdtsc();

        for (i = 0; i < 16; i++) {
            if (mode == 1 && !EVP_EncryptInit_ex(c, NULL, NULL, NULL, iv))
                die("init");
            if (aead && mode == 0) {
                if (!EVP_EncryptInit_ex(c, NULL, NULL, NULL, iv)
                    || !EVP_EncryptUpdate(c, NULL, &ol, aad, sizeof(aad))
                    || !EVP_EncryptUpdate(c, outbuf, &ol, inbuf, (int)len)
                    || !EVP_EncryptFinal_ex(c, outbuf + len, &ol)
                    || EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, 16, tag) <= 0)
                    die("record");
            } else if (!EVP_EncryptUpdate(c, outbuf, &ol, inbuf, (int)len)) {
                die("update");
            }
        }
        t = __rdtsc() - t;
        if (t < best)
            best = t;
    }
    return (double)best / 16 / (double)len;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    static double t[3][TRIALS], ra[TRIALS], rb[TRIALS], rab[TRIALS];
    static const unsigned char key[32] = { 1 }, iv[16];
    EVP_CIPHER_CTX *ctx[3];
    int i, k, n;

    if (argc < 5)
        die("usage: ab DIR_A DIR_B ChaCha20|ChaCha20-Poly1305 BYTES...");
    aead = strstr(argv[3], "Poly1305") != NULL;
    mode = getenv("MODE") != NULL ? atoi(getenv("MODE")) : 0;
    for (i = 0; i < 3; i++) {
        OSSL_LIB_CTX *lc = OSSL_LIB_CTX_new();
        EVP_CIPHER *c;

        if (lc == NULL)
            die("library context");
        if (i < 2) {
            if (!OSSL_PROVIDER_set_default_search_path(lc, argv[1 + i])
                || OSSL_PROVIDER_load(lc, "chacha") == NULL)
                die("loading chacha.so from DIR_A or DIR_B");
        }
        if (OSSL_PROVIDER_load(lc, "default") == NULL)
            die("loading the default provider");
        c = EVP_CIPHER_fetch(lc, argv[3], i < 2 ? "provider=chacha" : "provider=default");
        ctx[i] = EVP_CIPHER_CTX_new();
        if (c == NULL || ctx[i] == NULL || !EVP_EncryptInit_ex(ctx[i], c, NULL, key, iv))
            die("fetch or init");
        EVP_CIPHER_free(c);
    }
    for (k = 4; k < argc; k++) {
        size_t len = strtoul(argv[k], NULL, 10);

        if (len == 0 || len > MAXLEN)
            die("BYTES: 1 .. 1 MiB");
        for (n = 0; n < TRIALS; n++) {
            for (i = 0; i < 3; i++)
                t[i][n] = run(ctx[i], len);
            ra[n] = t[2][n] / t[0][n];
            rb[n] = t[2][n] / t[1][n];
            rab[n] = t[0][n] / t[1][n];
        }
        for (i = 0; i < 3; i++)
            qsort(t[i], TRIALS, sizeof(double), cmp);
        qsort(ra, TRIALS, sizeof(double), cmp);
        qsort(rb, TRIALS, sizeof(double), cmp);
        qsort(rab, TRIALS, sizeof(double), cmp);
        if (getenv("PCT") != NULL)
            for (i = 0; i < 3; i++)
                printf("  %s ticks/B p10 %.3f p50 %.3f p90 %.3f\n", i == 2 ? "default" : i ? "B" : "A",
                       t[i][TRIALS / 10], t[i][TRIALS / 2], t[i][TRIALS * 9 / 10]);
        printf("%s %7zu mode %d: best ticks/B A %.3f B %.3f default %.3f;"
               " median default/A %.3f default/B %.3f A/B %.3f\n",
               argv[3], len, mode, t[0][0], t[1][0], t[2][0], ra[TRIALS / 2],
               rb[TRIALS / 2], rab[TRIALS / 2]);
        fflush(stdout);
    }
    for (i = 0; i < 3; i++)
        EVP_CIPHER_CTX_free(ctx[i]);
    return 0;
}
