/* SPDX-License-Identifier: Apache-2.0 */
/* Wiping secrets on hot paths. */
#ifndef CHACHA_PROV_WIPE_H
#define CHACHA_PROV_WIPE_H

#include <string.h>

/*
 * memset, then an empty asm statement that claims to read the memory, so the
 * compiler cannot drop the stores as dead. Inlined, it costs a few vector
 * stores, where OPENSSL_cleanse() is a call and a byte loop.
 */
static inline void chacha_wipe(void *p, size_t len)
{
    memset(p, 0, len);
    __asm__ __volatile__("" : : "r"(p) : "memory");
}

#endif
