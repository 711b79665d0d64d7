/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel registry: what is compiled in, and choosing among it. */
#include <stdio.h>
#include <string.h>
#include "kernel.h"
#include "cpu.h"
#include "registry.h"

#if defined(CHACHA_HAVE_X86_64_SIMD)
extern const chacha20_kernel chacha20_avx512_kernel;
extern const chacha20_kernel chacha20_avx2_kernel;
extern const chacha20_kernel chacha20_ssse3_kernel;
extern const poly1305_kernel poly1305_ifma_kernel;
extern const poly1305_kernel poly1305_avx2_kernel;
extern const chacha20_poly1305_kernel chacha20_poly1305_avx512_kernel;
extern const chacha20_poly1305_kernel chacha20_poly1305_avx2_kernel;
#endif
#if defined(CHACHA_HAVE_NEON)
extern const chacha20_kernel chacha20_neon_kernel;
#endif
#if defined(CHACHA_HAVE_SVE2)
extern const chacha20_kernel chacha20_sve2_kernel;
#endif
#if defined(CHACHA_HAVE_NEON) && defined(__aarch64__)
extern const poly1305_kernel poly1305_neon_kernel;
extern const chacha20_poly1305_kernel chacha20_poly1305_neon_kernel;
#endif

const chacha20_kernel *const chacha20_kernels[] = {
#if defined(CHACHA_HAVE_X86_64_SIMD)
    &chacha20_avx512_kernel,
    &chacha20_avx2_kernel,
    &chacha20_ssse3_kernel,
#endif
#if defined(CHACHA_HAVE_SVE2)
    &chacha20_sve2_kernel,
#endif
#if defined(CHACHA_HAVE_NEON)
    &chacha20_neon_kernel,
#endif
    &chacha20_portable_kernel,
    NULL
};

const poly1305_kernel *const poly1305_kernels[] = {
#if defined(CHACHA_HAVE_X86_64_SIMD)
    &poly1305_ifma_kernel,
    &poly1305_avx2_kernel,
#endif
#if defined(CHACHA_HAVE_NEON) && defined(__aarch64__)
    &poly1305_neon_kernel,
#endif
    &poly1305_portable_kernel,
    NULL
};

const chacha20_poly1305_kernel *const chacha20_poly1305_kernels[] = {
#if defined(CHACHA_HAVE_X86_64_SIMD)
    &chacha20_poly1305_avx512_kernel,
    &chacha20_poly1305_avx2_kernel,
#endif
#if defined(CHACHA_HAVE_NEON) && defined(__aarch64__)
    &chacha20_poly1305_neon_kernel,
#endif
    NULL
};

/*
 * Every kernel name of every architecture, so that a name from another one
 * (neon on x86-64) is "not supported by this CPU" rather than unknown.
 */
#if defined(__x86_64__) || defined(_M_X64)
# define THIS_ARCH "x86_64"
#elif defined(__aarch64__) || defined(__arm__)
# define THIS_ARCH "arm"
#else
# define THIS_ARCH ""
#endif

static const struct {
    enum chacha_primitive prim;
    const char *name, *arch;
} known[] = {
    { CHACHA_PRIM_CHACHA20, "portable", "" },
    { CHACHA_PRIM_CHACHA20, "ssse3", "x86_64" },
    { CHACHA_PRIM_CHACHA20, "avx2", "x86_64" },
    { CHACHA_PRIM_CHACHA20, "avx512", "x86_64" },
    { CHACHA_PRIM_CHACHA20, "neon", "arm" },
    { CHACHA_PRIM_CHACHA20, "sve2", "arm" },
    { CHACHA_PRIM_POLY1305, "portable", "" },
    { CHACHA_PRIM_POLY1305, "avx2", "x86_64" },
    { CHACHA_PRIM_POLY1305, "ifma", "x86_64" },
    { CHACHA_PRIM_POLY1305, "neon", "arm" },
};

/* Why name, absent from this build's lists, cannot be had. */
static enum chacha_select_status absent(enum chacha_primitive prim,
                                        const char *name)
{
    size_t i;

    for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
        if (known[i].prim == prim && strcmp(known[i].name, name) == 0)
            return strcmp(known[i].arch, THIS_ARCH) == 0
                   ? CHACHA_SELECT_NOT_BUILT : CHACHA_SELECT_UNSUPPORTED;
    return CHACHA_SELECT_UNKNOWN;
}

/* The i-th kernel of prim's list: its name and caps, or 0 past the end. */
static int entry(enum chacha_primitive prim, size_t i, const void **k,
                 const char **name, unsigned int *caps)
{
    if (prim == CHACHA_PRIM_CHACHA20) {
        const chacha20_kernel *c = chacha20_kernels[i];

        if (c == NULL)
            return 0;
        *k = c;
        *name = c->name;
        *caps = c->caps;
    } else {
        const poly1305_kernel *p = poly1305_kernels[i];

        if (p == NULL)
            return 0;
        *k = p;
        *name = p->name;
        *caps = p->caps;
    }
    return 1;
}

/*
 * What auto also asks of a kernel: of a zmm kernel, a CPU that keeps its
 * clock for zmm (else the AVX2 ones are the choice). Forcing one by name
 * still works there.
 */
static unsigned int zmm_preference(unsigned int caps)
{
    return (caps & CHACHA_CAP_AVX512F) ? CHACHA_CAP_ZMM_FAST : 0;
}

static const void *select_kernel(enum chacha_primitive prim, const char *name,
                                 enum chacha_select_status *status)
{
    int auto_pick = name == NULL || *name == '\0' || strcmp(name, "auto") == 0;
    const void *k;
    const char *kname;
    unsigned int caps;
    size_t i;

    *status = CHACHA_SELECT_OK;
    for (i = 0; entry(prim, i, &k, &kname, &caps); i++) {
        if (auto_pick ? chacha_caps_ok(caps | zmm_preference(caps))
                      : strcmp(kname, name) == 0) {
            if (chacha_caps_ok(caps))
                return k;
            *status = CHACHA_SELECT_UNSUPPORTED;
            return NULL;
        }
    }
    /* auto always finds the portable kernel */
    *status = absent(prim, name);
    return NULL;
}

const chacha20_kernel *chacha_select_chacha20(const char *name,
                                              enum chacha_select_status *status)
{
    return select_kernel(CHACHA_PRIM_CHACHA20, name, status);
}

const poly1305_kernel *chacha_select_poly1305(const char *name,
                                              enum chacha_select_status *status)
{
    return select_kernel(CHACHA_PRIM_POLY1305, name, status);
}

const chacha20_poly1305_kernel *chacha_select_fused(const chacha20_kernel *c,
                                                    const poly1305_kernel *p)
{
    size_t i;

    for (i = 0; chacha20_poly1305_kernels[i] != NULL; i++) {
        const chacha20_poly1305_kernel *f = chacha20_poly1305_kernels[i];

        if (f->chacha == c && f->poly == p && chacha_caps_ok(f->caps))
            return f;     /* a pair forced on a slow-zmm CPU fuses too */
    }
    return NULL;
}

void chacha_usable_names(enum chacha_primitive prim, char *buf, size_t len)
{
    const void *k;
    const char *name;
    unsigned int caps;
    size_t i, used = 0;

    buf[0] = '\0';
    for (i = 0; entry(prim, i, &k, &name, &caps); i++) {
        int n;

        if (!chacha_caps_ok(caps))
            continue;
        n = snprintf(buf + used, len - used, "%s%s", used ? " " : "", name);
        if (n < 0 || (size_t)n >= len - used)
            break;
        used += (size_t)n;
    }
}
