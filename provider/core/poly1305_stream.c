/* SPDX-License-Identifier: Apache-2.0 */
/* Poly1305 streaming: block buffering shared by every kernel. */
#include <string.h>
#include "util.h"
#include "poly1305_stream.h"

void poly1305_init(poly1305_ctx *ctx, const poly1305_kernel *kernel,
                   const uint8_t key[32])
{
    ctx->kernel = kernel;
    ctx->num = 0;
    kernel->init(&ctx->st, key);
}

void poly1305_update(poly1305_ctx *ctx, const uint8_t *in, size_t len)
{
    if (ctx->num != 0) {
        size_t take = 16 - ctx->num;

        if (take > len)
            take = len;
        memcpy(ctx->buf + ctx->num, in, take);
        ctx->num += take;
        in += take;
        len -= take;
        if (ctx->num < 16)
            return;
        ctx->kernel->blocks(&ctx->st, ctx->buf, 16, 1);
        ctx->num = 0;
    }
    if (len >= 16) {
        size_t whole = len & ~(size_t)15;

        ctx->kernel->blocks(&ctx->st, in, whole, 1);
        in += whole;
        len -= whole;
    }
    if (len != 0) {
        memcpy(ctx->buf, in, len);
        ctx->num = len;
    }
}

void poly1305_pad16(poly1305_ctx *ctx)
{
    if (ctx->num != 0) {
        memset(ctx->buf + ctx->num, 0, 16 - ctx->num);
        ctx->kernel->blocks(&ctx->st, ctx->buf, 16, 1);
        ctx->num = 0;
    }
}

void poly1305_final(poly1305_ctx *ctx, uint8_t mac[16])
{
    if (ctx->num != 0) {
        /* RFC 8439: the last partial block gets a 1 byte, then zeros, no 2^128 */
        ctx->buf[ctx->num] = 1;
        memset(ctx->buf + ctx->num + 1, 0, 15 - ctx->num);
        ctx->kernel->blocks(&ctx->st, ctx->buf, 16, 0);
    }
    ctx->kernel->emit(&ctx->st, mac);           /* wipes the kernel state */
    chacha_wipe(ctx->buf, sizeof(ctx->buf));
    ctx->num = 0;
}
