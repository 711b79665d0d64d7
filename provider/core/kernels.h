/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the `where` column of kernels.def means in this build:
 * CHACHA_BUILT_<where>(...) keeps its arguments when kernels of that kind
 * are compiled in and drops them when not; CHACHA_ARCH_<where> is the
 * architecture they belong to ("" for any).
 */
#ifndef CHACHA_CORE_KERNELS_H
#define CHACHA_CORE_KERNELS_H

#include "kernel.h"

#if defined(CHACHA_HAVE_X86_64_SIMD)
# define CHACHA_BUILT_X86_64(...) __VA_ARGS__
#else
# define CHACHA_BUILT_X86_64(...)
#endif
#if defined(CHACHA_HAVE_NEON)
# define CHACHA_BUILT_ARM(...) __VA_ARGS__
#else
# define CHACHA_BUILT_ARM(...)
#endif
#if defined(CHACHA_HAVE_NEON) && defined(__aarch64__)
# define CHACHA_BUILT_AARCH64(...) __VA_ARGS__
#else
# define CHACHA_BUILT_AARCH64(...)
#endif
#if defined(CHACHA_HAVE_SVE2)
# define CHACHA_BUILT_SVE2(...) __VA_ARGS__
#else
# define CHACHA_BUILT_SVE2(...)
#endif
#define CHACHA_BUILT_ANY(...) __VA_ARGS__

#define CHACHA_ARCH_X86_64 "x86_64"
#define CHACHA_ARCH_ARM "arm"
#define CHACHA_ARCH_AARCH64 "arm"
#define CHACHA_ARCH_SVE2 "arm"
#define CHACHA_ARCH_ANY ""

#if defined(__x86_64__) || defined(_M_X64)
# define CHACHA_ARCH_THIS "x86_64"
#elif defined(__aarch64__) || defined(__arm__)
# define CHACHA_ARCH_THIS "arm"
#else
# define CHACHA_ARCH_THIS ""
#endif

/* The kernels of this build, declared. */
#define CHACHA_KEEP(where, emu) CHACHA_BUILT_##where
#define CHACHA_SYM(symbol) symbol
#include "kernels_declare.h"

#endif
