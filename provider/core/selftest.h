/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Known-answer self-test of the kernels a provider instance uses: ChaCha20,
 * Poly1305, the AEAD (two-step and, when the instance has one, its fused
 * kernel) and XChaCha20-Poly1305, through the same cores the algorithms use.
 * No OpenSSL types: the entry point reports through the hooks.
 */
#ifndef CHACHA_CORE_SELFTEST_H
#define CHACHA_CORE_SELFTEST_H

#include "kernel.h"

/* Optional observers, called around each vector (all may be NULL). */
typedef struct {
    /* kernel: "chacha20=avx2", "chacha20=avx2 poly1305=avx2 aead=avx2-fused" ... */
    void (*begin)(void *arg, const char *kernel, const char *vector);
    /* called on each output before it is compared; may alter out[0] */
    void (*corrupt)(void *arg, uint8_t *out);
    void (*end)(void *arg, int ok);
    void *arg;
} chacha_selftest_hooks;

/* The first vector that failed. */
typedef struct {
    char kernel[96];
    const char *vector;
} chacha_selftest_failure;

/*
 * Run every vector on these kernels (fused may be NULL), the ChaCha20 ones
 * and the AEAD on the path rule's choice (core/shortpath.h): the portable
 * kernel too when scalar_blocks >= 1, the long text when hybrid. 1: all passed;
 * 0: *fail names the first that did not (the rest are not run).
 */
int chacha_selftest_run(const chacha20_kernel *chacha, const poly1305_kernel *poly,
                        const chacha20_poly1305_kernel *fused,
                        unsigned int scalar_blocks, int hybrid,
                        const chacha_selftest_hooks *hooks,
                        chacha_selftest_failure *fail);

/*
 * The same without hooks, once per process per kernel combination: a
 * combination that passed before in this process (any library context,
 * any thread) returns 1 at once with *ran = 0; else the tests run (*ran =
 * 1) and a pass is remembered. Failures are never remembered: a failing
 * combination fails every time. For the tests at load; on demand, and with
 * an application's self-test callback, chacha_selftest_run() runs them.
 */
int chacha_selftest_run_once(const chacha20_kernel *chacha, const poly1305_kernel *poly,
                             const chacha20_poly1305_kernel *fused,
                             unsigned int scalar_blocks, int hybrid,
                             chacha_selftest_failure *fail, int *ran);

#ifdef CHACHA_TEST_BROKEN_KERNEL
/*
 * TEST ONLY (--enable-test-broken-kernel): the bit the stream layer flips in
 * key word 0. 1 always, unless CHACHA_TEST_BROKEN_KERNEL=after-load: then 0
 * until chacha_test_broken_arm() (called once a load has passed its self-test).
 */
unsigned int chacha_test_broken_bit(void);
void chacha_test_broken_arm(void);
#endif

#endif
