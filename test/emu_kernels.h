/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The emulated copies of the AVX-512 kernels (test-only: the same sources
 * built against SIMDe without AVX-512 flags, libasm_avx512_emu.la), which
 * the kernel suites run beside the native kernels on any x86-64 CPU: the
 * rows of kernels.def marked EMU. Lists end with NULL; empty where there is
 * no x86-64 SIMD or where configure found no SIMDe to build them on
 * (CHACHA_NO_AVX512_EMU).
 */
#ifndef CHACHA_TEST_EMU_KERNELS_H
#define CHACHA_TEST_EMU_KERNELS_H

#include "kernels.h"

#if defined(CHACHA_HAVE_X86_64_SIMD) && !defined(CHACHA_NO_AVX512_EMU)
# define CHACHA_EMU_EMU(...) __VA_ARGS__
#else
# define CHACHA_EMU_EMU(...)
#endif
#define CHACHA_EMU_NO_EMU(...)

#define CHACHA_KEEP(where, emu) CHACHA_EMU_##emu
#define CHACHA_SYM(symbol) symbol##_emu
#include "kernels_declare.h"

static const chacha20_kernel *const emu_chacha20_kernels[] = {
#define CHACHA20_KERNEL(name, where, emu) \
    CHACHA_EMU_##emu(&chacha20_##name##_kernel_emu,)
#include "kernels.def"
    NULL
};
static const poly1305_kernel *const emu_poly1305_kernels[] = {
#define POLY1305_KERNEL(name, where, emu) \
    CHACHA_EMU_##emu(&poly1305_##name##_kernel_emu,)
#include "kernels.def"
    NULL
};
static const chacha20_poly1305_kernel *const emu_fused_kernels[] = {
#define AEAD_KERNEL(name, where, emu) \
    CHACHA_EMU_##emu(&chacha20_poly1305_##name##_kernel_emu,)
#include "kernels.def"
    NULL
};

#endif
