/* SPDX-License-Identifier: Apache-2.0 */
/* CPU feature detection, once per process, and CHACHA_PROVIDER_DISABLE. */
#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernel.h"
#include "cpu.h"

#if defined(__x86_64__) || defined(_M_X64)
# include <cpuid.h>
#elif defined(__aarch64__) || defined(__arm__)
# include <sys/auxv.h>
#endif

static CRYPTO_ONCE caps_once = CRYPTO_ONCE_STATIC_INIT;
static unsigned int caps_value;

/*
 * Arm's wide out-of-order server cores (implementer 0x41, part numbers as
 * Linux's arch/arm64/include/asm/cputype.h has them): Neoverse N1 0xd0c,
 * V1 0xd40, N2 0xd49, V2 0xd4f, V3 0xd84, N3 0xd8e: ARM_WIDE. On LLVM 19's
 * models of N1, V1, V2 and N2 the neon_wide kernel's pass costs fewer cycles
 * a byte than neon's; on the Cortex-A57 and A53 models more. All but N1 also
 * ARM_WIDE_MAC: neon_wide-fused costs fewer cycles than the two steps on
 * the V1, V2 and N2 models, more on N1's (see caps.def); V1 also
 * ARM_WIDE_MAC1 (neon_wide1-fused: fewer cycles there); V2 and V3
 * ARM_MAC_FWD (Poly1305 neon_wide: fewer cycles on the V2 model, whose
 * multiply-accumulates forward their sum, more on the others) and
 * ARM_SVE2_WIDE (ChaCha20 sve2_wide, 4 SVE2 + 2 scalar blocks a pass: fewer
 * cycles on the V2 model, more on N2's); V1 ARM_SVE_WIDE (ChaCha20
 * sve_wide, SVE without SVE2: fewer cycles on the V1 model). Built on every
 * architecture, so that the tests check the table everywhere.
 */
unsigned int chacha_arm_core_prefer(uint64_t midr)
{
    static const struct {
        unsigned short part;
        unsigned int prefer;
    } cores[] = {
        { 0xd0c, CHACHA_CAP_ARM_WIDE },                              /* N1 */
        { 0xd40, CHACHA_CAP_ARM_WIDE | CHACHA_CAP_ARM_WIDE_MAC
                 | CHACHA_CAP_ARM_WIDE_MAC1 | CHACHA_CAP_ARM_SVE_WIDE }, /* V1 */
        { 0xd49, CHACHA_CAP_ARM_WIDE | CHACHA_CAP_ARM_WIDE_MAC },    /* N2 */
        { 0xd4f, CHACHA_CAP_ARM_WIDE | CHACHA_CAP_ARM_WIDE_MAC
                 | CHACHA_CAP_ARM_MAC_FWD | CHACHA_CAP_ARM_SVE2_WIDE }, /* V2 */
        { 0xd84, CHACHA_CAP_ARM_WIDE | CHACHA_CAP_ARM_WIDE_MAC
                 | CHACHA_CAP_ARM_MAC_FWD | CHACHA_CAP_ARM_SVE2_WIDE }, /* V3 */
        { 0xd8e, CHACHA_CAP_ARM_WIDE | CHACHA_CAP_ARM_WIDE_MAC },    /* N3 */
    };
    unsigned int implementer = (unsigned int)(midr >> 24) & 0xff;
    unsigned int part = (unsigned int)(midr >> 4) & 0xfff;
    size_t i;

    if (implementer != 0x41)
        return 0;
    for (i = 0; i < sizeof(cores) / sizeof(cores[0]); i++)
        if (part == cores[i].part)
            return cores[i].prefer;
    return 0;
}

#if defined(__x86_64__) || defined(_M_X64)
static uint64_t read_xcr0(void)
{
    uint32_t lo, hi;

    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

/*
 * Intel's cores that lower their clock when 512-bit instructions run, as
 * Linux lists them for its AVX-512 crypto (family 6): Skylake-SP and its
 * successors Cascade/Cooper Lake (0x55), Ice Lake client and server (0x6a,
 * 0x6c, 0x7d, 0x7e, 0x9d), Tiger Lake (0x8c, 0x8d). Not measured here (the
 * development machine is an AMD Zen 4, where zmm costs nothing extra).
 */
static int zmm_slows_clock(unsigned int vendor_ebx, unsigned int eax1)
{
    static const unsigned char models[] = {
        0x55, 0x6a, 0x6c, 0x7d, 0x7e, 0x9d, 0x8c, 0x8d
    };
    unsigned int family = (eax1 >> 8) & 0xf;
    unsigned int model = ((eax1 >> 4) & 0xf) | ((eax1 >> 12) & 0xf0);
    size_t i;

    if (vendor_ebx != 0x756e6547 || family != 6)        /* "Genu"ineIntel */
        return 0;
    for (i = 0; i < sizeof(models); i++)
        if (model == models[i])
            return 1;
    return 0;
}

static unsigned int detect_caps(void)
{
    unsigned int a, b, c, d, caps = 0, max, vendor, eax1;
    uint64_t xcr0 = 0;

    if (!__get_cpuid(0, &max, &vendor, &c, &d))
        return 0;
    __cpuid(1, a, b, c, d);
    eax1 = a;
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
        if (!zmm_slows_clock(vendor, eax1))
            caps |= CHACHA_CAP_ZMM_FAST;
    }
    return caps;
}
#elif defined(__aarch64__)
# ifndef HWCAP_SVE
#  define HWCAP_SVE (1 << 22)
# endif
# ifndef HWCAP2_SVE2
#  define HWCAP2_SVE2 (1 << 1)
# endif
# ifndef HWCAP_CPUID
#  define HWCAP_CPUID (1 << 11)
# endif

/*
 * MIDR_EL1 of this CPU: read with mrs when the kernel emulates it for user
 * space (HWCAP_CPUID), else from sysfs; 0 if neither. CPU 0's only: on a
 * big.LITTLE system the cores differ, and the wide cores below come in
 * server parts that have one kind of core.
 */
static uint64_t read_midr(void)
{
    uint64_t midr = 0;

    if (getauxval(AT_HWCAP) & HWCAP_CPUID) {
        __asm__ volatile("mrs %0, midr_el1" : "=r"(midr));
    } else {
        FILE *f = fopen("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1",
                        "r");
        unsigned long long v;

        if (f != NULL) {
            if (fscanf(f, "%llx", &v) == 1)
                midr = v;
            fclose(f);
        }
    }
    return midr;
}

static unsigned int detect_caps(void)
{
    /* Advanced SIMD is mandatory on AArch64 Linux */
    return CHACHA_CAP_NEON
           | ((getauxval(AT_HWCAP) & HWCAP_SVE) ? CHACHA_CAP_SVE : 0)
           | ((getauxval(AT_HWCAP) & HWCAP_SVE) && (getauxval(AT_HWCAP2) & HWCAP2_SVE2)
              ? CHACHA_CAP_SVE2 : 0)
           | chacha_arm_core_prefer(read_midr());
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

/* CHACHA_PROVIDER_DISABLE (see cpu.h); an unknown word is remembered. */
static char disable_bad_word[32];

/* The words it takes: one per row of caps.def, and "all". */
static const struct { const char *name; unsigned int bit; } names[] = {
#define CHACHA_CAP(id, word) { word, CHACHA_CAP_##id },
#include "caps.def"
#undef CHACHA_CAP
    { "all", ~0u },
};

int chacha_append_word(char *buf, size_t len, size_t *used, const char *word)
{
    int n = snprintf(buf + *used, len - *used, "%s%s", *used ? " " : "", word);

    if (n < 0 || (size_t)n >= len - *used)
        return 0;
    *used += (size_t)n;
    return 1;
}

void chacha_cpu_disable_words(char *buf, size_t len)
{
    size_t i, used = 0;

    buf[0] = '\0';
    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (!chacha_append_word(buf, len, &used, names[i].name))
            break;
}

static unsigned int disabled_caps(void)
{
    const char *v = getenv("CHACHA_PROVIDER_DISABLE");
    unsigned int mask = 0;
    size_t i;

    while (v != NULL && *v != '\0') {
        size_t len = strcspn(v, ",");

        for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
            if (strlen(names[i].name) == len && strncmp(v, names[i].name, len) == 0)
                break;
        if (i < sizeof(names) / sizeof(names[0]))
            mask |= names[i].bit;
        else if (len > 0 && disable_bad_word[0] == '\0')
            snprintf(disable_bad_word, sizeof(disable_bad_word), "%.*s",
                     (int)(len < 31 ? len : 31), v);
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

const char *chacha_cpu_disable_error(void)
{
    chacha_cpu_caps();
    return disable_bad_word[0] != '\0' ? disable_bad_word : NULL;
}
