/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel registry: what is compiled in, and choosing among it. */
#include <string.h>
#include "kernel.h"
#include "cpu.h"
#include "registry.h"
#include "kernels.h"

/* The lists, fastest first, from kernels.def (kernels.h declares them). */
const chacha20_kernel *const chacha20_kernels[] = {
#define CHACHA20_KERNEL(name, where, emu) \
    CHACHA_BUILT_##where(&chacha20_##name##_kernel,)
#include "kernels.def"
    NULL
};

const poly1305_kernel *const poly1305_kernels[] = {
#define POLY1305_KERNEL(name, where, emu) \
    CHACHA_BUILT_##where(&poly1305_##name##_kernel,)
#include "kernels.def"
    NULL
};

const chacha20_poly1305_kernel *const chacha20_poly1305_kernels[] = {
#define AEAD_KERNEL(name, where, emu) \
    CHACHA_BUILT_##where(&chacha20_poly1305_##name##_kernel,)
#include "kernels.def"
    NULL
};

/*
 * Every kernel name of every architecture, so that a name from another one
 * (neon on x86-64) is "not supported by this CPU" rather than unknown.
 */
static const struct {
    enum chacha_primitive prim;
    const char *name, *arch;
} known[] = {
#define CHACHA20_KERNEL(name, where, emu) \
    { CHACHA_PRIM_CHACHA20, #name, CHACHA_ARCH_##where },
#define POLY1305_KERNEL(name, where, emu) \
    { CHACHA_PRIM_POLY1305, #name, CHACHA_ARCH_##where },
#include "kernels.def"
};

/* Why name, absent from this build's lists, cannot be had. */
static enum chacha_select_status absent(enum chacha_primitive prim,
                                        const char *name)
{
    size_t i;

    for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
        if (known[i].prim == prim && strcmp(known[i].name, name) == 0)
            return strcmp(known[i].arch, CHACHA_ARCH_THIS) == 0
                   ? CHACHA_SELECT_NOT_BUILT : CHACHA_SELECT_UNSUPPORTED;
    return CHACHA_SELECT_UNKNOWN;
}

/*
 * The i-th kernel of prim's list: its name, caps and preference (the
 * CHACHA_CAP_* bits auto also asks for: avx512 and ifma ZMM_FAST, neon_wide
 * ARM_WIDE; forced by name, a kernel runs without them), or 0 past the end.
 */
static int entry(enum chacha_primitive prim, size_t i, const void **k,
                 const char **name, unsigned int *caps, unsigned int *prefer)
{
    if (prim == CHACHA_PRIM_CHACHA20) {
        const chacha20_kernel *c = chacha20_kernels[i];

        if (c == NULL)
            return 0;
        *k = c;
        *name = c->name;
        *caps = c->caps;
        *prefer = c->prefer;
    } else {
        const poly1305_kernel *p = poly1305_kernels[i];

        if (p == NULL)
            return 0;
        *k = p;
        *name = p->name;
        *caps = p->caps;
        *prefer = p->prefer;
    }
    return 1;
}

int chacha_select_is_auto(const char *name)
{
    return name == NULL || *name == '\0' || strcmp(name, "auto") == 0;
}

static const void *select_kernel(enum chacha_primitive prim, const char *name,
                                 enum chacha_select_status *status)
{
    int auto_pick = chacha_select_is_auto(name);
    const void *k;
    const char *kname;
    unsigned int caps, prefer;
    size_t i;

    *status = CHACHA_SELECT_OK;
    for (i = 0; entry(prim, i, &k, &kname, &caps, &prefer); i++) {
        if (auto_pick ? chacha_caps_ok(caps | prefer)
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

int chacha_fused_pairs(const chacha20_poly1305_kernel *f,
                       const chacha20_kernel *c, const poly1305_kernel *p)
{
    return (f->chacha == c || f->chacha == c->pairs_as)
           && (f->poly == p || f->poly == p->pairs_as);
}

const chacha20_poly1305_kernel *
chacha_select_fused_caps(const chacha20_kernel *c, const poly1305_kernel *p,
                         int auto_pick, unsigned int caps)
{
    size_t i;

    for (i = 0; chacha20_poly1305_kernels[i] != NULL; i++) {
        const chacha20_poly1305_kernel *f = chacha20_poly1305_kernels[i];

        if (!chacha_fused_pairs(f, c, p) || (caps & f->caps) != f->caps)
            continue;
        /* a pair forced on a slow-zmm CPU fuses too */
        if (!auto_pick || (caps & f->prefer) == f->prefer)
            return f;
    }
    return NULL;
}

const chacha20_poly1305_kernel *chacha_select_fused(const chacha20_kernel *c,
                                                    const poly1305_kernel *p,
                                                    int auto_pick)
{
    return chacha_select_fused_caps(c, p, auto_pick, chacha_cpu_caps());
}

void chacha_usable_names(enum chacha_primitive prim, char *buf, size_t len)
{
    const void *k;
    const char *name;
    unsigned int caps, prefer;
    size_t i, used = 0;

    buf[0] = '\0';
    for (i = 0; entry(prim, i, &k, &name, &caps, &prefer); i++)
        if (chacha_caps_ok(caps) && !chacha_append_word(buf, len, &used, name))
            break;
}
