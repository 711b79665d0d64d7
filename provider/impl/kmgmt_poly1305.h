/* SPDX-License-Identifier: Apache-2.0 */
/* The provider side of a POLY1305 EVP_PKEY, shared by its key manager and signature. */
#ifndef CHACHA_IMPL_KMGMT_POLY1305_H
#define CHACHA_IMPL_KMGMT_POLY1305_H

#include <stddef.h>

typedef struct {
    unsigned char *priv;       /* NULL: no key yet */
    size_t priv_len;           /* as given: the MAC checks it is 32 */
} chacha_poly1305_key;

#endif
