/* SPDX-License-Identifier: Apache-2.0 */
/* Poly1305 one-time authenticator: streaming front end over a kernel. */
#ifndef CHACHA_CORE_POLY1305_STREAM_H
#define CHACHA_CORE_POLY1305_STREAM_H

#include "kernel.h"

typedef struct {
    poly1305_state st;
    const poly1305_kernel *kernel;
    uint8_t buf[16];           /* pending bytes of an incomplete block */
    size_t num;
} poly1305_ctx;

void poly1305_init(poly1305_ctx *ctx, const poly1305_kernel *kernel,
                   const uint8_t key[32]);
void poly1305_update(poly1305_ctx *ctx, const uint8_t *in, size_t len);
/* Absorb zero bytes up to the next 16-byte boundary (RFC 8439 pad16). */
void poly1305_pad16(poly1305_ctx *ctx);
/* Write the tag and wipe the key, state and buffer. */
void poly1305_final(poly1305_ctx *ctx, uint8_t mac[16]);

#endif
