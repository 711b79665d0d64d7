/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers every layer below the dispatch shares: endianness, wiping, constants. */
#ifndef CHACHA_KERNEL_UTIL_H
#define CHACHA_KERNEL_UTIL_H

#include <stdint.h>
#include <string.h>

/* A helper that must be inlined (kernels' building blocks). */
#define CHACHA_INLINE static inline __attribute__((always_inline))

/* One ChaCha20 block in bytes, and n blocks (an int expression, like 64 * n) */
#define CHACHA_BLOCK_LEN 64
#define CHACHA_BLOCKS(n) ((n) * CHACHA_BLOCK_LEN)

/* "expand 32-byte k", the first four ChaCha20 state words */
#define CHACHA_SIGMA0 0x61707865u
#define CHACHA_SIGMA1 0x3320646eu
#define CHACHA_SIGMA2 0x79622d32u
#define CHACHA_SIGMA3 0x6b206574u

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/*
 * Little-endian hosts: plain (unaligned) loads and stores. GCC 12 merges the
 * byte-wise forms below only sometimes; on AArch64 it vectorised a tag
 * store into sixteen lane inserts.
 */
static inline uint32_t chacha_load_le32(const uint8_t *p)
{
    uint32_t v;

    memcpy(&v, p, 4);
    return v;
}

static inline void chacha_store_le32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4);
}

static inline uint64_t chacha_load_le64(const uint8_t *p)
{
    uint64_t v;

    memcpy(&v, p, 8);
    return v;
}

static inline void chacha_store_le64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, 8);
}
#else
static inline uint32_t chacha_load_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16)
           | ((uint32_t)p[3] << 24);
}

static inline void chacha_store_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline uint64_t chacha_load_le64(const uint8_t *p)
{
    return (uint64_t)chacha_load_le32(p) | ((uint64_t)chacha_load_le32(p + 4) << 32);
}

static inline void chacha_store_le64(uint8_t *p, uint64_t v)
{
    chacha_store_le32(p, (uint32_t)v);
    chacha_store_le32(p + 4, (uint32_t)(v >> 32));
}
#endif

/* a 32-byte vector type: one store with AVX, two with SSE2 or NEON */
typedef unsigned char chacha_zero32
    __attribute__((vector_size(32), aligned(1), may_alias));

/* Zero the 128 bytes at b: four 32-byte stores, then a compiler barrier. */
static inline void chacha_zero128(unsigned char *b)
{
    *(chacha_zero32 *)(void *)b = (chacha_zero32){ 0 };
    *(chacha_zero32 *)(void *)(b + 32) = (chacha_zero32){ 0 };
    *(chacha_zero32 *)(void *)(b + 64) = (chacha_zero32){ 0 };
    *(chacha_zero32 *)(void *)(b + 96) = (chacha_zero32){ 0 };
    __asm__ __volatile__("" : : "r"(b) : "memory");
}

/*
 * Copy n bytes (a short, variable length: the AEAD's first text) in 32-byte
 * moves, then 16/8/4/1. GCC turns memcpy() with a bounded length into
 * "rep movsq", whose start-up cost two of them ~60 cycles a TLS record
 * (Zen 3); the empty asm keeps it from making the loop a memcpy() call.
 */
static inline void chacha_copy(void *dst, const void *src, size_t n)
{
    unsigned char *d = (unsigned char *)dst;
    const unsigned char *s = (const unsigned char *)src;
    unsigned char t[32];
    size_t i = 0;

    for (; i + 32 <= n; i += 32) {
        memcpy(t, s + i, 32);
        memcpy(d + i, t, 32);
        __asm__ __volatile__("" : : "r"(d) : "memory");
    }
    if (n - i >= 16) {
        memcpy(d + i, s + i, 16);
        i += 16;
    }
    if (n - i >= 8) {
        memcpy(d + i, s + i, 8);
        i += 8;
    }
    if (n - i >= 4) {
        memcpy(d + i, s + i, 4);
        i += 4;
    }
    for (; i < n; i++)
        d[i] = s[i];
}

/*
 * Zero len bytes so that the compiler cannot drop the stores as dead: an
 * empty asm statement claims to read the memory. The one wipe of every layer.
 * 128 bytes a step, then 32, then 16/8/4 (vector stores where the file's ISA
 * has them), with the asm inside the loops so that GCC cannot turn it into a
 * memset call or "rep stos", whose start-up costs more than a short message
 * (a 1.3 KB wipe through rep stos took 6% of a 512-byte AVX2 ChaCha20 call
 * on Zen 4).
 * Inlined, it costs a few stores, where OPENSSL_cleanse() is a call and a
 * byte loop.
 */
static inline void chacha_wipe(void *p, size_t len)
{
    typedef unsigned char zero16
        __attribute__((vector_size(16), aligned(1), may_alias));
    typedef uint64_t zero8 __attribute__((aligned(1), may_alias));
    typedef uint32_t zero4 __attribute__((aligned(1), may_alias));
    unsigned char *b = (unsigned char *)p;
    size_t i;

    /* 128 bytes a step: one loop branch for four stores, not one for each */
    for (i = 0; i + 128 <= len; i += 128)
        chacha_zero128(b + i);
    for (; i + 32 <= len; i += 32) {
        *(chacha_zero32 *)(void *)(b + i) = (chacha_zero32){ 0 };
        __asm__ __volatile__("" : : "r"(b) : "memory");
    }
    /* the rest in 16-, 8-, 4-byte stores (not a byte loop: a 56-byte state
       took 24 byte stores and their loop, 90 instructions on aarch64) */
    if (len - i >= 16) {
        *(zero16 *)(void *)(b + i) = (zero16){ 0 };
        i += 16;
    }
    if (len - i >= 8) {
        *(zero8 *)(void *)(b + i) = 0;
        i += 8;
    }
    if (len - i >= 4) {
        *(zero4 *)(void *)(b + i) = 0;
        i += 4;
    }
    for (; i < len; i++)
        b[i] = 0;
    __asm__ __volatile__("" : : "r"(p) : "memory");
}

/*
 * Wipe the n bytes of stack just below the caller's frame: where the
 * functions it has just called kept their locals, spills included (the
 * compiler spills key and keystream rows that no source-level wipe can
 * name). n covers the deepest frame of those callees (gcc -fstack-usage)
 * plus the 128-byte red zone a leaf may use below its stack pointer.
 * Out of line, so that its alloca is below the caller's frame: inlined with
 * a constant n, clang 14 makes it a fixed slot of the caller's own frame,
 * above the callees' (test_stack_residue caught that). n is rounded up to
 * 128 bytes and wiped in 128-byte steps only: with chacha_wipe's tests for
 * a tail, a 512-byte burn took 90 instructions on aarch64.
 */
static __attribute__((noinline, unused)) void chacha_burn_stack(size_t n)
{
    unsigned char *b;
    size_t i;

    n = (n + 127) & ~(size_t)127;
    b = (unsigned char *)__builtin_alloca(n);
    for (i = 0; i < n; i += 128)
        chacha_zero128(b + i);
}

#endif
