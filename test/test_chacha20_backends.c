/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ChaCha20 backend tests: the portable core against RFC 8439 and OpenSSL's
 * EVP ChaCha20, then every backend the CPU can run against the portable core:
 * every length 0..2048 plus large ones, misaligned and in place, buffers that
 * end at an unmapped page, guard bytes around the output, counters running up
 * to 2^32, random keys and nonces. The emulated AVX-512 kernels
 * (emu_kernels.h) run the same suite on any CPU; each "run" line says native
 * or emulated.
 * Seed: CHACHA_TEST_SEED (decimal) if set.
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <openssl/evp.h>
#include "registry.h"
#include "cpu.h"
#include "testrng.h"
#include "emu_kernels.h"

#define MAX_SWEEP 2048
#define GUARD 64
#define BIG_LEN ((size_t)1 << 20)

static unsigned long n_pass, n_fail;
static const char *cur_name = "portable";   /* the backend under test */

static void check(int ok, const char *impl, const char *what, size_t a,
                  size_t b)
{
    if (ok) {
        n_pass++;
        return;
    }
    n_fail++;
    if (n_fail <= 40)
        fprintf(stderr, "FAIL [%s] %s (%zu, %zu)\n", impl, what, a, b);
}


static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16
           | (uint32_t)p[3] << 24;
}

static void random_params(uint32_t key[8], uint32_t ctr[4])
{
    int i;

    for (i = 0; i < 8; i++)
        key[i] = (uint32_t)rng();
    for (i = 0; i < 4; i++)
        ctr[i] = (uint32_t)rng();
}

/* counter[0] so that a len-byte call ends exactly at the 2^32 limit */
static uint32_t ctr_at_limit(size_t len)
{
    uint64_t blocks = (len + 63) / 64;

    return (uint32_t)((1ull << 32) - (blocks ? blocks : 1));
}

/* RFC 8439 section 2.4.2 */
static void test_rfc8439(void)
{
    static const char *const pt =
        "Ladies and Gentlemen of the class of '99: If I could offer you only "
        "one tip for the future, sunscreen would be it.";
    static const uint8_t ct_head[16] = {
        0x6e, 0x2e, 0x35, 0x9a, 0x25, 0x68, 0xf9, 0x80,
        0x41, 0xba, 0x07, 0x28, 0xdd, 0x0d, 0x69, 0x81
    };
    static const uint8_t ct_tail[2] = { 0x87, 0x4d };
    uint8_t keyb[32], out[114];
    uint32_t key[8], ctr[4] = { 1, 0, 0x4a000000, 0 };
    int i;

    for (i = 0; i < 32; i++)
        keyb[i] = (uint8_t)i;
    for (i = 0; i < 8; i++)
        key[i] = le32(keyb + 4 * i);
    chacha20_portable_kernel.xor_stream(out, (const uint8_t *)pt, 114, key, ctr);
    check(memcmp(out, ct_head, 16) == 0 && memcmp(out + 112, ct_tail, 2) == 0,
          "portable", "RFC 8439 2.4.2", 114, 0);
}

/* The portable core against OpenSSL's ChaCha20 (IV = counter || nonce). */
static void test_portable_vs_evp(void)
{
    static const size_t lens[] = { 1, 63, 64, 65, 200, 1000, 4097 };
    static uint8_t in[4097], a[4097], b[4097];
    EVP_CIPHER *c = EVP_CIPHER_fetch(NULL, "ChaCha20", NULL);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    size_t t, i;

    if (c == NULL || ctx == NULL) {
        check(0, "portable", "EVP ChaCha20 unavailable", 0, 0);
        goto done;
    }
    for (t = 0; t < sizeof(lens) / sizeof(lens[0]); t++) {
        uint8_t keyb[32], iv[16];
        uint32_t key[8], ctr[4];
        int outl = 0;

        rng_bytes(keyb, 32);
        rng_bytes(iv, 16);
        rng_bytes(in, lens[t]);
        for (i = 0; i < 8; i++)
            key[i] = le32(keyb + 4 * i);
        for (i = 0; i < 4; i++)
            ctr[i] = le32(iv + 4 * i);
        if (ctr[0] > 0xffff0000u)   /* keep clear of the 32-bit wrap */
            ctr[0] = 0;
        iv[0] = (uint8_t)ctr[0];
        iv[1] = (uint8_t)(ctr[0] >> 8);
        iv[2] = (uint8_t)(ctr[0] >> 16);
        iv[3] = (uint8_t)(ctr[0] >> 24);
        chacha20_portable_kernel.xor_stream(a, in, lens[t], key, ctr);
        check(EVP_EncryptInit_ex2(ctx, c, keyb, iv, NULL) == 1
              && EVP_EncryptUpdate(ctx, b, &outl, in, (int)lens[t]) == 1
              && (size_t)outl == lens[t] && memcmp(a, b, lens[t]) == 0,
              "portable", "vs EVP ChaCha20", lens[t], 0);
    }
done:
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(c);
}

/* Run impl on (out, in, len) with guard bytes around out; compare to want. */
static void run_one(const chacha20_kernel *impl, uint8_t *buf_out, size_t out_off,
                    const uint8_t *in, size_t len, const uint32_t key[8],
                    const uint32_t ctr[4], const uint8_t *want,
                    const char *what, size_t detail)
{
    uint8_t *out = buf_out + GUARD + out_off;
    size_t i;
    int guard_ok = 1;

    memset(buf_out, 0xa5, GUARD + out_off + len + GUARD);
    impl->xor_stream(out, in, len, key, ctr);
    for (i = 0; i < GUARD + out_off; i++)
        guard_ok &= buf_out[i] == 0xa5;
    for (i = 0; i < GUARD; i++)
        guard_ok &= out[len + i] == 0xa5;
    check(memcmp(out, want, len) == 0, cur_name, what, len, detail);
    check(guard_ok, cur_name, "guard bytes", len, detail);
}

static void test_backend(const chacha20_kernel *impl, const chacha20_kernel *ref)
{
    static const size_t align_lens[] = {
        0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 191, 192, 255, 256, 257,
        383, 384, 385, 447, 511, 512, 513, 575, 1023, 1024, 1025, 1537
    };
    size_t cap = BIG_LEN + 2 * GUARD + 128;
    uint8_t *in = malloc(cap), *want = malloc(cap), *out = malloc(cap);
    uint8_t *copy = malloc(cap);
    uint32_t key[8], ctr[4];
    size_t len, t, ia, oa;
    long page = sysconf(_SC_PAGESIZE);
    uint8_t *map;

    if (in == NULL || want == NULL || out == NULL || copy == NULL) {
        check(0, cur_name, "malloc", 0, 0);
        goto done;
    }

    /* every length, fresh key and nonce each time, counter anywhere legal */
    for (len = 0; len <= MAX_SWEEP; len++) {
        random_params(key, ctr);
        if (ctr[0] > ctr_at_limit(len))
            ctr[0] = ctr_at_limit(len);
        rng_bytes(in, len);
        memcpy(copy, in, len);
        ref->xor_stream(want, in, len, key, ctr);
        run_one(impl, out, 0, in, len, key, ctr, want, "sweep", 0);
        check(memcmp(in, copy, len) == 0, cur_name, "input modified", len, 0);
        /* in place */
        memcpy(out, in, len);
        impl->xor_stream(out, out, len, key, ctr);
        check(memcmp(out, want, len) == 0, cur_name, "in place", len, 0);
        /* counter ending exactly at the 2^32 limit */
        ctr[0] = ctr_at_limit(len);
        ref->xor_stream(want, in, len, key, ctr);
        run_one(impl, out, 0, in, len, key, ctr, want, "counter limit", 0);
    }

    /* large inputs */
    {
        static const size_t big[] = { 65536 + 17, 65536, BIG_LEN, BIG_LEN - 1 };

        for (t = 0; t < sizeof(big) / sizeof(big[0]); t++) {
            random_params(key, ctr);
            if (ctr[0] > ctr_at_limit(big[t]))
                ctr[0] = ctr_at_limit(big[t]);
            if (t == 2)
                ctr[0] = ctr_at_limit(big[t]);
            rng_bytes(in, big[t]);
            ref->xor_stream(want, in, big[t], key, ctr);
            run_one(impl, out, 0, in, big[t], key, ctr, want, "large", t);
        }
    }

    /* every input and output misalignment 0..63 on chosen lengths */
    for (t = 0; t < sizeof(align_lens) / sizeof(align_lens[0]); t++) {
        len = align_lens[t];
        random_params(key, ctr);
        ctr[0] = (uint32_t)rng() & 0x7fffffffu;
        rng_bytes(in + 64, len + 64);
        for (ia = 0; ia < 64; ia++) {
            ref->xor_stream(want, in + ia, len, key, ctr);
            for (oa = 0; oa < 64; oa++)
                run_one(impl, out, oa, in + ia, len, key, ctr, want,
                        "misaligned", ia * 64 + oa);
            /* in place at this alignment */
            memcpy(copy + ia, in + ia, len);
            impl->xor_stream(copy + ia, copy + ia, len, key, ctr);
            check(memcmp(copy + ia, want, len) == 0, cur_name,
                  "in place misaligned", len, ia);
        }
    }

    /* input and output ending right before an unmapped page */
    map = mmap(NULL, (size_t)page * 4, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED || mprotect(map + page, (size_t)page, PROT_NONE) != 0
        || mprotect(map + 3 * page, (size_t)page, PROT_NONE) != 0) {
        check(0, cur_name, "mmap", 0, 0);
    } else {
        for (len = 0; len <= (size_t)page && len <= 1100; len++) {
            uint8_t *pin = map + page - len, *pout = map + 3 * page - len;

            random_params(key, ctr);
            ctr[0] &= 0x7fffffffu;
            rng_bytes(pin, len);
            ref->xor_stream(want, pin, len, key, ctr);
            impl->xor_stream(pout, pin, len, key, ctr);
            check(memcmp(pout, want, len) == 0, cur_name, "page end", len, 0);
            impl->xor_stream(pin, pin, len, key, ctr);
            check(memcmp(pin, want, len) == 0, cur_name, "page end in place",
                  len, 0);
        }
        munmap(map, (size_t)page * 4);
    }

    /* a stream split at every block boundary matches one call */
    for (t = 0; t < 32; t++) {
        size_t split = 64 * (size_t)(rng() % 24), total = split + rng() % 1500;
        uint32_t c2[4];

        random_params(key, ctr);
        ctr[0] &= 0x7fffffffu;
        rng_bytes(in, total);
        ref->xor_stream(want, in, total, key, ctr);
        impl->xor_stream(out, in, split, key, ctr);
        memcpy(c2, ctr, sizeof(c2));
        c2[0] += (uint32_t)(split / 64);
        impl->xor_stream(out + split, in + split, total - split, key, c2);
        check(memcmp(out, want, total) == 0, cur_name, "split stream",
              total, split);
    }

done:
    free(in);
    free(want);
    free(out);
    free(copy);
}

int main(void)
{
    const chacha20_kernel *ref = &chacha20_portable_kernel;
    const char *seed = getenv("CHACHA_TEST_SEED");
    size_t i;
    unsigned int ran_caps = 0, want_caps = 0;

    if (seed != NULL)
        rng_state = strtoull(seed, NULL, 10);
    test_rfc8439();
    test_portable_vs_evp();

    for (i = 0; chacha20_kernels[i] != NULL; i++) {
        const chacha20_kernel *impl = chacha20_kernels[i];

        cur_name = impl->name;
        if (!chacha_caps_ok(impl->caps)) {
            printf("skip %s (native; CPU lacks it)\n", cur_name);
            continue;
        }
        printf("run  %s (native)\n", cur_name);
        fflush(stdout);
        test_backend(impl, ref);
        ran_caps |= impl->caps;
    }
    /* the same suite on the emulated AVX-512 kernels, on any CPU */
    for (i = 0; emu_chacha20_kernels[i] != NULL; i++) {
        static char name[64];

        snprintf(name, sizeof(name), "%s (emulated)",
                 emu_chacha20_kernels[i]->name);
        cur_name = name;
        printf("run  %s\n", cur_name);
        fflush(stdout);
        test_backend(emu_chacha20_kernels[i], ref);
    }
    /*
     * Detect the SIMD the CPU has independently of the provider's detection,
     * so a broken CPUID/XGETBV/HWCAP check cannot make the SIMD paths go
     * untested silently (unless features are hidden on purpose).
     */
    if (getenv("CHACHA_PROVIDER_DISABLE") == NULL) {
#if defined(CHACHA_HAVE_X86_64_SIMD)
        __builtin_cpu_init();
        if (__builtin_cpu_supports("ssse3"))
            want_caps |= CHACHA_CAP_SSSE3;
        if (__builtin_cpu_supports("avx2"))
            want_caps |= CHACHA_CAP_AVX2;
        if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl")
            && __builtin_cpu_supports("avx512bw"))
            want_caps |= CHACHA_CAP_AVX512F | CHACHA_CAP_AVX512VL
                         | CHACHA_CAP_AVX512BW;
#elif defined(CHACHA_HAVE_NEON) && defined(__aarch64__)
        want_caps |= CHACHA_CAP_NEON;
#endif
    }
    if ((want_caps & ran_caps) != want_caps)
        check(0, "list", "the CPU has SIMD that no backend exercised", 0,
              (int)(want_caps & ~ran_caps));
    printf("%lu passed, %lu failed\n", n_pass, n_fail);
    return n_fail == 0 ? 0 : 1;
}
