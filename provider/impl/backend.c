/* SPDX-License-Identifier: Apache-2.0 */
/* CPU feature detection (once) and the lists of compiled-in backends. */
#include <openssl/crypto.h>
#include <stdlib.h>
#include <string.h>
#include "backend.h"

#if defined(__x86_64__) || defined(_M_X64)
# include <cpuid.h>
#elif defined(__aarch64__) || defined(__arm__)
# include <sys/auxv.h>
#endif

#if defined(CHACHA_HAVE_X86_64_SIMD)
extern const chacha20_impl chacha20_avx2_impl;
extern const chacha20_impl chacha20_ssse3_impl;
extern const poly1305_impl poly1305_avx2_impl;
# include "poly1305_r64.h"
# include "chacha20_poly1305_avx2.h"
#endif
#if defined(CHACHA_HAVE_NEON)
extern const chacha20_impl chacha20_neon_impl;
#endif

const chacha20_impl *const chacha20_impl_list[] = {
#if defined(CHACHA_HAVE_X86_64_SIMD)
    &chacha20_avx2_impl,
    &chacha20_ssse3_impl,
#endif
#if defined(CHACHA_HAVE_NEON)
    &chacha20_neon_impl,
#endif
    &chacha20_portable_impl,
    NULL
};

const poly1305_impl *const poly1305_impl_list[] = {
#if defined(CHACHA_HAVE_X86_64_SIMD)
    &poly1305_avx2_impl,
#endif
    &poly1305_portable_impl,
    NULL
};

#if defined(CHACHA_HAVE_X86_64_SIMD)
/*
 * Opening stitches from one 512-byte pass on. Sealing MACs the previous
 * pass's output, so its first ChaCha20 pass and last MAC pass run alone:
 * below SEAL_MIN the two-step path (AVX2 ChaCha20, then AVX2 Poly1305) wins.
 */
#ifndef CHACHA_FUSED_SEAL_MIN
# define CHACHA_FUSED_SEAL_MIN 2048
#endif
static const chacha20_poly1305_impl chacha20_poly1305_avx2_impl = {
    "avx2", CHACHA_CAP_AVX2 | CHACHA_CAP_BMI2, &chacha20_avx2_impl,
    &poly1305_avx2_impl, chacha20_poly1305_avx2_xor_mac,
    { 512, CHACHA_FUSED_SEAL_MIN }
};
#endif

static const chacha20_poly1305_impl *const chacha20_poly1305_impl_list[] = {
#if defined(CHACHA_HAVE_X86_64_SIMD)
    &chacha20_poly1305_avx2_impl,
#endif
    NULL
};

const chacha20_poly1305_impl *chacha20_poly1305_impl_for(const chacha20_impl *c,
                                                         const poly1305_impl *p)
{
    size_t i;

    for (i = 0; chacha20_poly1305_impl_list[i] != NULL; i++) {
        const chacha20_poly1305_impl *f = chacha20_poly1305_impl_list[i];

        if (f->chacha == c && f->poly == p && p->r64_state && chacha_caps_ok(f->caps))
            return f;
    }
    return NULL;
}

static CRYPTO_ONCE caps_once = CRYPTO_ONCE_STATIC_INIT;
static unsigned int caps_value;

#if defined(__x86_64__) || defined(_M_X64)
static uint64_t read_xcr0(void)
{
    uint32_t lo, hi;

    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

static unsigned int detect_caps(void)
{
    unsigned int a, b, c, d, caps = 0, max;
    uint64_t xcr0 = 0;

    if (!__get_cpuid(0, &max, &b, &c, &d))
        return 0;
    __cpuid(1, a, b, c, d);
    if (c & bit_SSSE3)
        caps |= CHACHA_CAP_SSSE3;
    if (!(c & bit_OSXSAVE) || !(c & bit_AVX) || max < 7)
        return caps;
    xcr0 = read_xcr0();
    __cpuid_count(7, 0, a, b, c, d);
    if (b & bit_BMI2)
        caps |= CHACHA_CAP_BMI2;
    if (b & bit_ADX)
        caps |= CHACHA_CAP_ADX;
    /* the OS must save YMM (XCR0 bits 1,2) before AVX2 may be used */
    if ((xcr0 & 0x6) == 0x6 && (b & bit_AVX2))
        caps |= CHACHA_CAP_AVX2;
    /* ... and opmask + ZMM state (bits 5,6,7) for AVX-512 */
    if ((xcr0 & 0xe6) == 0xe6 && (b & bit_AVX512F)) {
        caps |= CHACHA_CAP_AVX512F;
        if (b & bit_AVX512VL)
            caps |= CHACHA_CAP_AVX512VL;
        if (b & bit_AVX512BW)
            caps |= CHACHA_CAP_AVX512BW;
        if (b & bit_AVX512IFMA)
            caps |= CHACHA_CAP_AVX512IFMA;
    }
    return caps;
}
#elif defined(__aarch64__)
static unsigned int detect_caps(void)
{
    /* Advanced SIMD is mandatory on AArch64 Linux */
    return CHACHA_CAP_NEON;
}
#elif defined(__arm__)
# ifndef HWCAP_NEON
#  define HWCAP_NEON (1 << 12)
# endif
static unsigned int detect_caps(void)
{
    return (getauxval(AT_HWCAP) & HWCAP_NEON) ? CHACHA_CAP_NEON : 0;
}
#else
static unsigned int detect_caps(void)
{
    return 0;
}
#endif

/*
 * CHACHA_PROVIDER_DISABLE hides CPU features, like OPENSSL_ia32cap does for
 * OpenSSL: a comma-separated list of ssse3, avx2, avx512f, avx512vl, avx512bw,
 * avx512ifma, bmi2, adx, neon, or "all". It can only take features away, so
 * tests can run the module as on an older CPU.
 */
static unsigned int disabled_caps(void)
{
    static const struct { const char *name; unsigned int bit; } names[] = {
        { "ssse3", CHACHA_CAP_SSSE3 }, { "avx2", CHACHA_CAP_AVX2 },
        { "avx512f", CHACHA_CAP_AVX512F }, { "avx512vl", CHACHA_CAP_AVX512VL },
        { "avx512bw", CHACHA_CAP_AVX512BW }, { "avx512ifma", CHACHA_CAP_AVX512IFMA },
        { "bmi2", CHACHA_CAP_BMI2 }, { "adx", CHACHA_CAP_ADX },
        { "neon", CHACHA_CAP_NEON }, { "all", ~0u },
    };
    const char *v = getenv("CHACHA_PROVIDER_DISABLE");
    unsigned int mask = 0;
    size_t i;

    while (v != NULL && *v != '\0') {
        size_t len = strcspn(v, ",");

        for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
            if (strlen(names[i].name) == len && strncmp(v, names[i].name, len) == 0)
                mask |= names[i].bit;
        v += len;
        if (*v == ',')
            v++;
    }
    return mask;
}

static void caps_init(void)
{
    caps_value = detect_caps() & ~disabled_caps();
}

unsigned int chacha_cpu_caps(void)
{
    if (!CRYPTO_THREAD_run_once(&caps_once, caps_init))
        return 0;
    return caps_value;
}

int chacha_caps_ok(unsigned int caps)
{
    return (chacha_cpu_caps() & caps) == caps;
}

/*
 * Both lists share one lookup; the entries differ in type, so it walks them
 * through a name/caps accessor.
 */
static const void *select_impl(const void *const *list,
                               const char *(*name_of)(const void *),
                               unsigned int (*caps_of)(const void *),
                               const char *name, const char **why)
{
    int auto_pick = name == NULL || *name == '\0' || strcmp(name, "auto") == 0;
    size_t i;

    *why = NULL;
    for (i = 0; list[i] != NULL; i++) {
        if (auto_pick) {
            if (chacha_caps_ok(caps_of(list[i])))
                return list[i];
        } else if (strcmp(name_of(list[i]), name) == 0) {
            if (chacha_caps_ok(caps_of(list[i])))
                return list[i];
            *why = "unavailable";
            return NULL;
        }
    }
    *why = "unknown";
    return NULL;
}

static const char *chacha_name(const void *p) { return ((const chacha20_impl *)p)->name; }
static unsigned int chacha_caps(const void *p) { return ((const chacha20_impl *)p)->caps; }
static const char *poly_name(const void *p) { return ((const poly1305_impl *)p)->name; }
static unsigned int poly_caps(const void *p) { return ((const poly1305_impl *)p)->caps; }

const chacha20_impl *chacha20_impl_select(const char *name, const char **why)
{
    return select_impl((const void *const *)chacha20_impl_list, chacha_name,
                       chacha_caps, name, why);
}

const poly1305_impl *poly1305_impl_select(const char *name, const char **why)
{
    return select_impl((const void *const *)poly1305_impl_list, poly_name,
                       poly_caps, name, why);
}
