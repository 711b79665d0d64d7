/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Side-by-side benchmark: the chacha provider against OpenSSL's default
 * provider, through EVP with identical call patterns, in one process, pinned
 * to one core. Measurements alternate between the two providers and repeat:
 * the MB/s columns are the best sample of each side, `ratio` is the ratio
 * of those, and `median` is the median of the rounds' own ratios (ours
 * over the peer's sample just after it). A machine whose speed drifts
 * between phases (a VM's neighbours: on a Zen 3 VM the same AEAD record
 * took 0.85 or 1.5 TSC ticks a byte from one second to the next) moves
 * both samples of a round alike, and so the median little; the best of
 * each side can come from different phases.
 *
 *   bench [--quick] [--only chacha20|aead|poly1305|xchacha] [--openssl-avx2]
 *         [--sizes N,N,...] [--csv FILE]
 *
 * --csv FILE appends one row per cell (mode,pattern,bytes,ours_mbs,
 * default_mbs,ratio,median: the ratio of the best MB/s, the median of the
 * rounds' ratios) and, when FILE is empty, a header; bench/chart.sh draws
 * the chart from it. Every fetch is checked to come from the
 * provider it names, so "ours" is always this provider.
 *
 * --openssl-avx2 re-runs itself with OPENSSL_ia32cap masking OpenSSL's
 * AVX-512 paths (leaving AVX2) and pins our ChaCha20/Poly1305 to AVX2, to
 * compare same-ISA code. Reports MB/s (10^6 bytes/s) and ours/default.
 *
 * XChaCha20-Poly1305 has no default-provider peer: its rows (mode "xchacha",
 * native mode only) put ours against libsodium's
 * crypto_aead_xchacha20poly1305_ietf_encrypt/_decrypt (built with libsodium)
 * and against our own ChaCha20-Poly1305 (the cost of HChaCha20), with the
 * same record: a fresh nonce per message, 13 bytes of AAD, the tag.
 */
#define _GNU_SOURCE 1
#include <sched.h>
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
#ifdef HAVE_LIBSODIUM
# include <sodium.h>
#endif

static OSSL_LIB_CTX *libctx;
static unsigned char *inbuf, *outbuf, *ctbuf[2];  /* ctbuf: a record to open, per side */
static const unsigned char key[32] = { 0x42 };
static unsigned char iv[32];   /* room for XChaCha20-Poly1305's 24 bytes */
static int quick;
static FILE *csv;
static const char *mode = "native";
static const char *our_c20, *our_p1305;   /* our active kernels */

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void die(const char *what)
{
    fprintf(stderr, "bench: %s failed\n", what);
    ERR_print_errors_fp(stderr);
    exit(1);
}

/* One measured workload: runs `iters` messages of `len` bytes. */
typedef struct {
    const char *alg;           /* "libsodium": not through EVP */
    EVP_CIPHER *cipher;
    EVP_CIPHER_CTX *ctx;
    EVP_MAC *mac;
    size_t len;
    int enc;
    unsigned char tag[16];
    unsigned char *ct;         /* this side's record to open */
} job;

typedef void run_fn(job *j, long iters);

/* (a) Update only, on a live context: what `openssl speed -evp` does. */
static void run_update(job *j, long iters)
{
    int outl;

    while (iters-- > 0)
        if (!EVP_CipherUpdate(j->ctx, outbuf, &outl, inbuf, (int)j->len))
            die("update");
}

/* (b) Init(iv) + Update per message. */
static void run_init_update(job *j, long iters)
{
    int outl;

    while (iters-- > 0) {
        iv[15]++;
        if (!EVP_CipherInit_ex(j->ctx, NULL, NULL, NULL, iv, j->enc)
            || !EVP_CipherUpdate(j->ctx, outbuf, &outl, inbuf, (int)j->len))
            die("init+update");
    }
}

/* TLS-like AEAD record: Init(iv), 13 B AAD, Update, Final, tag out/in. */
static void run_record(job *j, long iters)
{
    int outl;

    while (iters-- > 0) {
        if (!EVP_CipherInit_ex(j->ctx, NULL, NULL, NULL, iv, j->enc))
            die("record init");
        if (!j->enc && EVP_CIPHER_CTX_ctrl(j->ctx, EVP_CTRL_AEAD_SET_TAG, 16, j->tag) <= 0)
            die("record set tag");
        if (!EVP_CipherUpdate(j->ctx, NULL, &outl, inbuf, 13)
            || !EVP_CipherUpdate(j->ctx, outbuf, &outl, j->enc ? inbuf : j->ct,
                                 (int)j->len))
            die("record update");
        if (!EVP_CipherFinal_ex(j->ctx, outbuf, &outl))
            die("record final (tag)");
        if (j->enc && EVP_CIPHER_CTX_ctrl(j->ctx, EVP_CTRL_AEAD_GET_TAG, 16, j->tag) <= 0)
            die("record get tag");
    }
}

static void run_mac(job *j, long iters)
{
    OSSL_PARAM p[2] = { OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_KEY,
                                                          (void *)key, 32),
                        OSSL_PARAM_END };
    unsigned char out[16];
    size_t outl;
    EVP_MAC_CTX *m = EVP_MAC_CTX_new(j->mac);

    while (iters-- > 0) {
        if (!EVP_MAC_init(m, NULL, 0, p) || !EVP_MAC_update(m, inbuf, j->len)
            || !EVP_MAC_final(m, out, &outl, sizeof(out)))
            die("mac");
    }
    EVP_MAC_CTX_free(m);
}

#ifdef HAVE_LIBSODIUM
/* libsodium's XChaCha20-Poly1305 with the record of run_record(). */
static void run_sodium_record(job *j, long iters)
{
    unsigned long long n;

    while (iters-- > 0) {
        if (j->enc) {
            if (crypto_aead_xchacha20poly1305_ietf_encrypt(outbuf, &n, inbuf, j->len,
                                                           inbuf, 13, NULL, iv, key) != 0)
                die("libsodium seal");
        } else if (crypto_aead_xchacha20poly1305_ietf_decrypt(outbuf, &n, NULL, j->ct,
                                                              j->len + 16, inbuf, 13,
                                                              iv, key) != 0) {
            die("libsodium open");
        }
    }
}
#endif

static void job_setup(job *j, const char *propq)
{
    int outl;

#ifdef HAVE_LIBSODIUM
    if (strcmp(j->alg, "libsodium") == 0) {
        unsigned long long n;

        memset(iv, 0, sizeof(iv));
        if (crypto_aead_xchacha20poly1305_ietf_encrypt(j->ct, &n, inbuf, j->len, inbuf,
                                                       13, NULL, iv, key) != 0)
            die("libsodium prepare");
        return;
    }
#endif
    if (strcmp(j->alg, "POLY1305") == 0) {
        j->mac = EVP_MAC_fetch(libctx, j->alg, propq);
        if (j->mac == NULL
            || strcmp(OSSL_PROVIDER_get0_name(EVP_MAC_get0_provider(j->mac)),
                      strchr(propq, '=') + 1) != 0)
            die("EVP_MAC_fetch from the named provider");
        return;
    }
    j->cipher = EVP_CIPHER_fetch(libctx, j->alg, propq);
    j->ctx = EVP_CIPHER_CTX_new();
    if (j->cipher == NULL || j->ctx == NULL)
        die("EVP_CIPHER_fetch");
    /* propq is "provider=NAME": the cipher must come from NAME */
    if (strcmp(OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(j->cipher)),
               strchr(propq, '=') + 1) != 0)
        die("fetching from the named provider");
    memset(iv, 0, sizeof(iv));
    if (!EVP_CipherInit_ex(j->ctx, j->cipher, NULL, key, iv, 1))
        die("init");
    if (!j->enc && EVP_CIPHER_get_mode(j->cipher) == 0 && EVP_CIPHER_CTX_get_tag_length(j->ctx) >= 0
        && (EVP_CIPHER_get_flags(j->cipher) & EVP_CIPH_FLAG_AEAD_CIPHER)) {
        /* a valid record to open: encrypt once into j->ct, keep the tag */
        if (!EVP_CipherUpdate(j->ctx, NULL, &outl, inbuf, 13)
            || !EVP_CipherUpdate(j->ctx, j->ct, &outl, inbuf, (int)j->len)
            || !EVP_CipherFinal_ex(j->ctx, outbuf, &outl)
            || EVP_CIPHER_CTX_ctrl(j->ctx, EVP_CTRL_AEAD_GET_TAG, 16, j->tag) <= 0)
            die("prepare record");
    }
    if (!EVP_CipherInit_ex(j->ctx, NULL, NULL, key, iv, j->enc))
        die("init");
}

static void job_free(job *j)
{
    EVP_CIPHER_CTX_free(j->ctx);
    EVP_CIPHER_free(j->cipher);
    EVP_MAC_free(j->mac);
}

/* Best MB/s over rounds; each sample runs for about `target` seconds. */
static double measure(job *j, run_fn *fn, long *iters_io, double target)
{
    long iters = *iters_io;
    double t0, dt;

    if (iters == 0) {          /* calibrate */
        iters = 1;
        for (;;) {
            t0 = now();
            fn(j, iters);
            dt = now() - t0;
            if (dt > target / 4)
                break;
            iters *= 2;
        }
        iters = (long)(iters * target / dt) + 1;
        *iters_io = iters;
    }
    t0 = now();
    fn(j, iters);
    dt = now() - t0;
    return (double)iters * (double)j->len / dt / 1e6;
}

/* message sizes of every table; --sizes replaces them (e.g. 1000,16400:
   lengths that are not a multiple of OpenSSL's 128-byte Poly1305 step) */
static size_t sizes[16] = { 16, 64, 256, 1024, 8192, 16384, 1 << 20 };
static size_t nsizes = 7;

/* One side of a comparison: an algorithm from a provider (or libsodium). */
typedef struct {
    const char *alg, *propq;
    run_fn *fn;
} side;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

#define ROUNDS_MAX 25
#define ROUNDS (quick ? 5 : ROUNDS_MAX)     /* rounds a cell */

/*
 * Ours (a) against a peer (b), per message size, alternating: the best MB/s
 * of each and the median of the per-round ratios.
 */
static void compare(const char *title, const char *peer, int enc, side a, side b)
{
    size_t i;
    int r, rounds = ROUNDS;
    double target = quick ? 0.01 : 0.01;

    printf("\n%s\n", title);
    printf("%10s %12s %12s %8s %8s\n", "bytes", "ours MB/s", peer, "ratio", "median");
    for (i = 0; i < nsizes; i++) {
        job ours = { a.alg, NULL, NULL, NULL, sizes[i], enc, { 0 }, ctbuf[0] };
        job other = { b.alg, NULL, NULL, NULL, sizes[i], enc, { 0 }, ctbuf[1] };
        double best_o = 0, best_d = 0, v, w, ratio[ROUNDS_MAX], med;
        long it_o = 0, it_d = 0;

        job_setup(&ours, a.propq);
        job_setup(&other, b.propq);
        for (r = 0; r < rounds; r++) {       /* alternate: a round is a pair */
            if ((v = measure(&ours, a.fn, &it_o, target)) > best_o)
                best_o = v;
            if ((w = measure(&other, b.fn, &it_d, target)) > best_d)
                best_d = w;
            ratio[r] = v / w;
        }
        qsort(ratio, (size_t)rounds, sizeof(ratio[0]), cmp_double);
        med = ratio[rounds / 2];
        printf("%10zu %12.1f %12.1f %7.2fx %7.2fx\n", sizes[i], best_o, best_d,
               best_o / best_d, med);
        fflush(stdout);
        if (csv != NULL)
            fprintf(csv, "%s,\"%s\",%zu,%.1f,%.1f,%.4f,%.4f\n", mode, title, sizes[i],
                    best_o, best_d, best_o / best_d, med);
        job_free(&ours);
        job_free(&other);
    }
}

static void table(const char *title, const char *alg, int enc, run_fn *fn)
{
    side ours = { alg, "provider=chacha", fn }, dflt = { alg, "provider=default", fn };

    compare(title, "default MB/s", enc, ours, dflt);
}

/* XChaCha20-Poly1305 records: against libsodium, and against our ChaCha20-Poly1305. */
static void xchacha_tables(void)
{
    static const char *const dir[2] = { "open", "seal" };
    side ours = { "XChaCha20-Poly1305", "provider=chacha", run_record };
    side c20p = { "ChaCha20-Poly1305", "provider=chacha", run_record };
    const char *saved = mode;
    char title[160];
    int enc;

    mode = "xchacha";
    if (csv != NULL)
        fprintf(csv, "# xchacha: chacha20=%s poly1305=%s%s%s\n", our_c20, our_p1305,
#ifdef HAVE_LIBSODIUM
                "; libsodium ", sodium_version_string()
#else
                "", ""
#endif
                );
    for (enc = 1; enc >= 0; enc--) {
#ifdef HAVE_LIBSODIUM
        side sodium = { "libsodium", "", run_sodium_record };

        snprintf(title, sizeof(title), "XChaCha20-Poly1305 %s: ours vs libsodium %s, "
                 "record: nonce + AAD(13) + text + tag", dir[enc], sodium_version_string());
        compare(title, "libsodium MB/s", enc, ours, sodium);
#else
        printf("\nXChaCha20-Poly1305 vs libsodium: built without libsodium\n");
#endif
        snprintf(title, sizeof(title), "XChaCha20-Poly1305 %s vs our ChaCha20-Poly1305 "
                 "(the HChaCha20 cost), same record", dir[enc]);
        compare(title, "ChaCha20P MB/s", enc, ours, c20p);
    }
    mode = saved;
}

/*
 * The latency profile: dependent-chain latencies in core cycles (a dependent
 * GPR add is one), which tell apart CPUs that report the same CPUID (VMs on
 * Zen 4 have shown a vector step of 1 and of 2 cycles). Every table printed
 * comes with it, so each figure says which profile it came from.
 */
#if defined(__x86_64__)
# define LAT_OPS 4096
# define LAT_R8(i) i "\n\t" i "\n\t" i "\n\t" i "\n\t" i "\n\t" i "\n\t" i "\n\t" i "\n\t"
# define LAT_CHAIN(fn, insn) \
    static void fn(void) \
    { \
        for (int n = 0; n < LAT_OPS; n += 8) \
            __asm__ volatile(LAT_R8(insn) ::: "xmm0"); \
    }
static void lat_add(void)
{
    unsigned long x = 0;

    for (int n = 0; n < LAT_OPS; n += 8)
        __asm__ volatile(LAT_R8("add $1, %0") : "+r"(x));
}
LAT_CHAIN(lat_vpaddd_x, "vpaddd %%xmm1, %%xmm0, %%xmm0")
LAT_CHAIN(lat_vpaddd_y, "vpaddd %%ymm1, %%ymm0, %%ymm0")
LAT_CHAIN(lat_vpaddd_z, "vpaddd %%zmm1, %%zmm0, %%zmm0")
LAT_CHAIN(lat_vprold, "vprold $7, %%zmm0, %%zmm0")
LAT_CHAIN(lat_vpshufb, "vpshufb %%ymm1, %%ymm0, %%ymm0")
LAT_CHAIN(lat_vpshufd, "vpshufd $0x39, %%ymm0, %%ymm0")

/* seconds per op of fn, the best of 9 runs */
static double lat_time(void (*fn)(void))
{
    double best = 1e9;

    for (int r = 0; r < 9; r++) {
        double t = now();

        fn();
        t = now() - t;
        if (t < best)
            best = t;
    }
    return best / LAT_OPS;
}

static void latency_profile(char *buf, size_t len)
{
    double add = lat_time(lat_add);
    int n;

    if (!__builtin_cpu_supports("avx2")) {
        snprintf(buf, len, "no AVX2: no vector latencies");
        return;
    }
    n = snprintf(buf, len, "add 1, vpaddd x/y %.1f/%.1f, vpshufb-y %.1f, vpshufd-y %.1f",
                 lat_time(lat_vpaddd_x) / add, lat_time(lat_vpaddd_y) / add,
                 lat_time(lat_vpshufb) / add, lat_time(lat_vpshufd) / add);
    if (n > 0 && (size_t)n < len && __builtin_cpu_supports("avx512f"))
        snprintf(buf + n, len - (size_t)n, ", vpaddd-z %.1f, vprold-z %.1f",
                 lat_time(lat_vpaddd_z) / add, lat_time(lat_vprold) / add);
}
#else
static void latency_profile(char *buf, size_t len)
{
    snprintf(buf, len, "not measured on this architecture");
}
#endif

static void print_header(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[4096], cpu[256] = "unknown", isa[128] = "";
    const char *c20 = NULL, *p1305 = NULL, *aead = NULL, *scalar = NULL;
    char lat[160];
    static const char *const feats[] = { "avx512f", "avx512vl", "avx512ifma", "avx2", "ssse3" };
    size_t k;
    OSSL_PROVIDER *prov = OSSL_PROVIDER_load(libctx, "chacha");
    OSSL_PARAM p[5] = { OSSL_PARAM_construct_utf8_ptr("chacha20-impl", (char **)&c20, 0),
                        OSSL_PARAM_construct_utf8_ptr("poly1305-impl", (char **)&p1305, 0),
                        OSSL_PARAM_construct_utf8_ptr("chacha20-poly1305-impl", (char **)&aead, 0),
                        OSSL_PARAM_construct_utf8_ptr("chacha20-path-rule", (char **)&scalar, 0),
                        OSSL_PARAM_END };

    /* the model name and the SIMD the CPU has (the name alone may be bare) */
    while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
        if (strncmp(line, "model name", 10) == 0 && strcmp(cpu, "unknown") == 0) {
            snprintf(cpu, sizeof(cpu), "%s", strchr(line, ':') + 2);
            cpu[strcspn(cpu, "\n")] = '\0';
        } else if (strncmp(line, "flags", 5) == 0 && isa[0] == '\0') {
            for (k = 0; k < sizeof(feats) / sizeof(feats[0]); k++) {
                char w[32];

                snprintf(w, sizeof(w), " %s ", feats[k]);
                line[strcspn(line, "\n")] = ' ';
                if (strstr(line, w) != NULL && strlen(isa) + strlen(feats[k]) + 2 < sizeof(isa))
                    strcat(strcat(isa, isa[0] ? " " : ""), feats[k]);
            }
        }
    }
    if (f != NULL)
        fclose(f);
    printf("cpu: %s (%s)\n", cpu, isa);
    if (prov == NULL || !OSSL_PROVIDER_get_params(prov, p))
        die("loading the chacha provider");
    our_c20 = c20;
    our_p1305 = p1305;
    printf("openssl: %s\n", OpenSSL_version(OPENSSL_VERSION));
    printf("OPENSSL_ia32cap: %s\n", getenv("OPENSSL_ia32cap") ? getenv("OPENSSL_ia32cap") : "(unset)");
    printf("chacha provider kernels: chacha20=%s poly1305=%s aead=%s\n", c20, p1305,
           aead != NULL ? aead : "?");
    printf("chacha provider path rule: %s\n", scalar != NULL ? scalar : "?");
    latency_profile(lat, sizeof(lat));
    printf("latency profile (core cycles, dependent chains): %s\n", lat);
    if (csv != NULL) {
        fprintf(csv, "# cpu: %s (%s)\n", cpu, isa);
        fprintf(csv, "# openssl: %s\n", OpenSSL_version(OPENSSL_VERSION));
        fprintf(csv, "# latency: %s\n", lat);
        fprintf(csv, "# %s: chacha20=%s poly1305=%s aead=%s %.*s"
                " OPENSSL_ia32cap=%s\n", mode, c20, p1305, aead != NULL ? aead : "?",
                scalar != NULL ? (int)strcspn(scalar, ";") : 1, scalar != NULL ? scalar : "?",
                getenv("OPENSSL_ia32cap") ? getenv("OPENSSL_ia32cap") : "(unset)");
    }
    printf("pinned to cpu %d; %d alternating rounds per cell: MB/s the best of"
           " each side, ratio of those; median of the rounds' own ratios\n",
           sched_getcpu(), ROUNDS);
}

int main(int argc, char **argv)
{
    const char *only = NULL;
    cpu_set_t set;
    int i;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            only = argv[++i];
        } else if (strcmp(argv[i], "--openssl-avx2") == 0) {
            /* OpenSSL reads the mask when libcrypto starts: re-exec */
            setenv("OPENSSL_ia32cap", ":~0xc0230000", 1);
            setenv("CHACHA_PROVIDER_IMPL", "avx2", 1);
            setenv("CHACHA_PROVIDER_POLY1305_IMPL", "avx2", 1);
            argv[i] = (char *)"--quiet-mode-avx2";
            execv("/proc/self/exe", argv);
            die("re-exec");
        } else if (strcmp(argv[i], "--quiet-mode-avx2") == 0) {
            mode = "openssl-avx2";     /* already re-executed */
        } else if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) {
            char *p = argv[++i], *end;

            for (nsizes = 0; *p != '\0' && nsizes < sizeof(sizes) / sizeof(sizes[0]);
                 p = *end == ',' ? end + 1 : end) {
                unsigned long long n = strtoull(p, &end, 10);

                if (end == p || n == 0 || n > ((size_t)1 << 20) || (*end != ',' && *end != '\0')) {
                    fprintf(stderr, "bench: --sizes wants sizes 1..1048576, comma-separated\n");
                    return 2;
                }
                sizes[nsizes++] = (size_t)n;
            }
            if (nsizes == 0) {
                fprintf(stderr, "bench: --sizes wants at least one size\n");
                return 2;
            }
            if (*p != '\0') {
                fprintf(stderr, "bench: --sizes takes at most %zu sizes\n",
                        sizeof(sizes) / sizeof(sizes[0]));
                return 2;
            }
        } else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
            csv = fopen(argv[++i], "a");
            if (csv == NULL)
                die("opening the CSV file");
        } else {
            fprintf(stderr, "usage: %s [--quick] [--only chacha20|aead|poly1305|xchacha] [--openssl-avx2] [--sizes N,N,...] [--csv FILE]\n",
                    argv[0]);
            return 2;
        }
    }
    if (csv != NULL && fseek(csv, 0, SEEK_END) == 0 && ftell(csv) == 0)
        fprintf(csv, "mode,pattern,bytes,ours_mbs,default_mbs,ratio,median\n");
    CPU_ZERO(&set);
    CPU_SET(sched_getcpu(), &set);
    sched_setaffinity(0, sizeof(set), &set);

    inbuf = malloc((1 << 20) + 8192);
    outbuf = malloc((1 << 20) + 8192);
    ctbuf[0] = malloc((1 << 20) + 8192);
    ctbuf[1] = malloc((1 << 20) + 8192);
    if (inbuf == NULL || outbuf == NULL || ctbuf[0] == NULL || ctbuf[1] == NULL)
        return 1;
    memset(inbuf, 0x5a, (1 << 20) + 8192);
#ifdef HAVE_LIBSODIUM
    if (sodium_init() < 0)
        die("sodium_init");
#endif
    libctx = OSSL_LIB_CTX_new();
    if (OSSL_PROVIDER_load(libctx, "default") == NULL)
        die("loading the default provider");
    print_header();

    if (only == NULL || strcmp(only, "chacha20") == 0) {
        table("ChaCha20 encrypt, Update only on a live context (openssl speed pattern)",
              "ChaCha20", 1, run_update);
        table("ChaCha20 encrypt, Init(iv) + Update per message", "ChaCha20", 1,
              run_init_update);
    }
    if (only == NULL || strcmp(only, "aead") == 0) {
        table("ChaCha20-Poly1305 seal, TLS-like record: Init(iv) + AAD(13) + Update + Final + tag",
              "ChaCha20-Poly1305", 1, run_record);
        table("ChaCha20-Poly1305 open, TLS-like record: Init(iv) + tag + AAD(13) + Update + Final",
              "ChaCha20-Poly1305", 0, run_record);
        table("ChaCha20-Poly1305 seal, bulk Update on a live context", "ChaCha20-Poly1305",
              1, run_update);
        table("ChaCha20-Poly1305 open, bulk Update on a live context", "ChaCha20-Poly1305",
              0, run_update);
    }
    if (only == NULL || strcmp(only, "poly1305") == 0) {
        EVP_MAC *m = EVP_MAC_fetch(libctx, "POLY1305", "provider=chacha");

        if (m == NULL) {
            ERR_clear_error();
            printf("\nPOLY1305 MAC: not provided by the chacha provider in this build\n");
        } else {
            EVP_MAC_free(m);
            table("Poly1305 MAC: init + update + final per message", "POLY1305", 1, run_mac);
        }
    }
    /* no peer in OpenSSL, so no same-ISA mode: native only */
    if ((only == NULL && strcmp(mode, "native") == 0)
        || (only != NULL && strcmp(only, "xchacha") == 0))
        xchacha_tables();
    OSSL_LIB_CTX_free(libctx);
    if (csv != NULL)
        fclose(csv);
    free(inbuf);
    free(outbuf);
    free(ctbuf[0]);
    free(ctbuf[1]);
    return 0;
}
