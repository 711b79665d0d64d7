/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The intrinsics of the AVX-512 kernels (chacha20_avx512.c, poly1305_ifma.c,
 * chacha20_poly1305_avx512.c). In the module: the compiler's, with the
 * -mavx512* flags of their library. Built with CHACHA_AVX512_EMU (test-only,
 * never in the module), the same source runs on SIMDe's portable
 * implementations, without AVX-512 flags, so that the kernel suites cover
 * these kernels on any x86-64 CPU; its descriptors then carry an _emu suffix.
 */
#ifndef CHACHA_AVX512_ISA_H
#define CHACHA_AVX512_ISA_H

#ifdef CHACHA_AVX512_EMU
# include "avx512_emu.h"        /* test/: SIMDe plus what it lacks */
# define CHACHA_AVX512_SYM(name) name##_emu
# define CHACHA_AVX512_EMULATED 1
#else
# include <immintrin.h>
# if !defined(__AVX512F__) || !defined(__AVX512VL__) || !defined(__AVX512BW__)
#  error "the AVX-512 kernels need -mavx512f -mavx512vl -mavx512bw"
# endif
# define CHACHA_AVX512_SYM(name) name
# define CHACHA_AVX512_EMULATED 0
#endif

#endif
