/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The emulated copies of the AVX-512 kernels (test-only: the same sources
 * built against SIMDe without AVX-512 flags, libasm_avx512_emu.la), which
 * the kernel tests run on any x86-64 CPU. A kernel test is built twice:
 * for `make check` against the native kernels only (these lists empty,
 * TEST_NATIVE_KERNELS 1), and for `make check-emu` with CHACHA_TEST_EMU
 * (test/kernel/<test>_emu.emu) against the emulated kernels only
 * (TEST_NATIVE_KERNELS 0), so that each kernel runs once over both.
 * Lists end with NULL.
 */
#ifndef CHACHA_TEST_EMU_KERNELS_H
#define CHACHA_TEST_EMU_KERNELS_H

#include "kernel.h"

#if defined(CHACHA_TEST_EMU)
#define TEST_NATIVE_KERNELS 0
extern const chacha20_kernel chacha20_avx512_kernel_emu;
extern const poly1305_kernel poly1305_ifma_kernel_emu;
extern const chacha20_poly1305_kernel chacha20_poly1305_avx512_kernel_emu;

static const chacha20_kernel *const emu_chacha20_kernels[] = {
    &chacha20_avx512_kernel_emu, NULL
};
static const poly1305_kernel *const emu_poly1305_kernels[] = {
    &poly1305_ifma_kernel_emu, NULL
};
static const chacha20_poly1305_kernel *const emu_fused_kernels[] = {
    &chacha20_poly1305_avx512_kernel_emu, NULL
};
#else
#define TEST_NATIVE_KERNELS 1
static const chacha20_kernel *const emu_chacha20_kernels[] = { NULL };
static const poly1305_kernel *const emu_poly1305_kernels[] = { NULL };
static const chacha20_poly1305_kernel *const emu_fused_kernels[] = { NULL };
#endif

#endif
