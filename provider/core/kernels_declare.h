/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Declares kernel descriptors of kernels.def: those rows that
 * CHACHA_KEEP(where, emu)(...) keeps, under the symbol CHACHA_SYM(symbol).
 * No include guard: kernels.h includes it for the kernels of this build,
 * test/emu_kernels.h for their emulated copies; the includer defines both
 * macros before and they are #undef'd after.
 */
#define CHACHA20_KERNEL(name, where, emu) CHACHA_KEEP(where, emu)( \
    extern const chacha20_kernel CHACHA_SYM(chacha20_##name##_kernel);)
#define POLY1305_KERNEL(name, where, emu) CHACHA_KEEP(where, emu)( \
    extern const poly1305_kernel CHACHA_SYM(poly1305_##name##_kernel);)
#define AEAD_KERNEL(name, where, emu) CHACHA_KEEP(where, emu)( \
    extern const chacha20_poly1305_kernel \
    CHACHA_SYM(chacha20_poly1305_##name##_kernel);)
#include "kernels.def"
#undef CHACHA_KEEP
#undef CHACHA_SYM
