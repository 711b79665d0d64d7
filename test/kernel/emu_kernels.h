/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The emulated copies of the AVX-512 kernels (test-only: the same sources
 * built against SIMDe without AVX-512 flags, libasm_avx512_emu.la), which
 * the kernel tests run on any x86-64 CPU: the rows of kernels.def marked
 * EMU. A kernel test is built twice: for `make check` against the native
 * kernels only (these lists empty, TEST_NATIVE_KERNELS 1), and for `make
 * check-emu` with CHACHA_TEST_EMU (test/kernel/<test>_emu.emu) against the
 * emulated kernels only (TEST_NATIVE_KERNELS 0), so that each kernel runs
 * once over both. Lists end with NULL.
 */
#ifndef CHACHA_TEST_EMU_KERNELS_H
#define CHACHA_TEST_EMU_KERNELS_H

#include "kernels.h"

#if defined(CHACHA_TEST_EMU)
# define TEST_NATIVE_KERNELS 0
# define CHACHA_EMU_EMU(...) __VA_ARGS__
#else
# define TEST_NATIVE_KERNELS 1
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
