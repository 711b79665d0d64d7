/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The kernel registry: every kernel compiled into this build, selection by
 * name (or the fastest this CPU runs), the names a CPU can run, and the fused
 * AEAD kernel of a ChaCha20 + Poly1305 pair.
 */
#ifndef CHACHA_CORE_REGISTRY_H
#define CHACHA_CORE_REGISTRY_H

#include <stddef.h>
#include "kernel.h"

enum chacha_primitive { CHACHA_PRIM_CHACHA20, CHACHA_PRIM_POLY1305 };

/* Why a selection failed. */
enum chacha_select_status {
    CHACHA_SELECT_OK,
    CHACHA_SELECT_UNKNOWN,      /* no kernel of that name on any architecture */
    CHACHA_SELECT_UNSUPPORTED,  /* a kernel this CPU cannot run (or another
                                   architecture's) */
    CHACHA_SELECT_NOT_BUILT     /* this architecture's, left out of the build */
};

/*
 * Look a kernel up by name; NULL, "" or "auto" picks the one this CPU runs
 * fastest. Returns NULL with *status set when there is none: a forced name is
 * never silently downgraded.
 */
const chacha20_kernel *chacha_select_chacha20(const char *name,
                                              enum chacha_select_status *status);
const poly1305_kernel *chacha_select_poly1305(const char *name,
                                              enum chacha_select_status *status);

/* 1 when name asks for auto's choice: NULL, "" or "auto". */
int chacha_select_is_auto(const char *name);

/*
 * 1 when the fused kernel f runs the pair (c, p): its own kernels, or those
 * they pair as (.pairs_as).
 */
int chacha_fused_pairs(const chacha20_poly1305_kernel *f,
                       const chacha20_kernel *c, const poly1305_kernel *p);

/*
 * The fused kernel for this pair on this CPU, or NULL (two steps then).
 * The first of the list for this pair; auto_pick (the ChaCha20 kernel is
 * auto's choice): the first whose preference bits (.prefer) the CPU has
 * too. A forced pair fuses on any CPU that runs the fused kernel. The
 * provider then drops it where the path rule runs the ChaCha20 passes in
 * pairs (hybrid 2: select_kernels in chacha_prov.c).
 */
const chacha20_poly1305_kernel *chacha_select_fused(const chacha20_kernel *c,
                                                    const poly1305_kernel *p,
                                                    int auto_pick);
/* the same on a CPU with caps (CHACHA_CAP_* bits): list_kernels' midr-aead */
const chacha20_poly1305_kernel *
chacha_select_fused_caps(const chacha20_kernel *c, const poly1305_kernel *p,
                         int auto_pick, unsigned int caps);

/* "avx2 ssse3 portable": the names of prim this CPU runs, fastest first. */
void chacha_usable_names(enum chacha_primitive prim, char *buf, size_t len);

/*
 * Every kernel compiled in, fastest first, NULL-terminated; the portable
 * ones are always last. For the tests.
 */
extern const chacha20_kernel *const chacha20_kernels[];
extern const poly1305_kernel *const poly1305_kernels[];
extern const chacha20_poly1305_kernel *const chacha20_poly1305_kernels[];

#endif
