/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers every layer below the dispatch shares: endianness, wiping, constants. */
#ifndef CHACHA_KERNEL_UTIL_H
#define CHACHA_KERNEL_UTIL_H

#include <stdint.h>
#include <string.h>

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

/*
 * memset, then an empty asm statement that claims to read the memory, so the
 * compiler cannot drop the stores as dead. Inlined, it costs a few vector
 * stores, where OPENSSL_cleanse() is a call and a byte loop. The one wipe of
 * every layer.
 */
static inline void chacha_wipe(void *p, size_t len)
{
    memset(p, 0, len);
    __asm__ __volatile__("" : : "r"(p) : "memory");
}

#endif
