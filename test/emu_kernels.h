/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The emulated copies of the AVX-512 kernels (test-only: the same sources
 * built against SIMDe without AVX-512 flags, libasm_avx512_emu.la), which
 * the backend suites run beside the native kernels on any x86-64 CPU.
 * Lists end with NULL; empty where there is no x86-64 SIMD or where
 * configure found no SIMDe to build them on (CHACHA_NO_AVX512_EMU).
 */
#ifndef CHACHA_TEST_EMU_KERNELS_H
#define CHACHA_TEST_EMU_KERNELS_H

#include "kernel.h"

#if defined(CHACHA_HAVE_X86_64_SIMD) && !defined(CHACHA_NO_AVX512_EMU)
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
static const chacha20_kernel *const emu_chacha20_kernels[] = { NULL };
static const poly1305_kernel *const emu_poly1305_kernels[] = { NULL };
static const chacha20_poly1305_kernel *const emu_fused_kernels[] = { NULL };
#endif

#endif
