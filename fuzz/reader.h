/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared by the fuzzers (fuzz_differential.c, fuzz_core.c): the input
 * reader (bytes taken off the front of the input, zeros once it is used up)
 * and the hex dump of a failure report.
 */
#ifndef CHACHA_FUZZ_READER_H
#define CHACHA_FUZZ_READER_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    const uint8_t *p;
    size_t n;
} reader;

static inline uint8_t rd8(reader *r)
{
    uint8_t v;

    if (r->n == 0)
        return 0;
    v = *r->p++;
    r->n--;
    return v;
}

static inline uint16_t rd16(reader *r)
{
    uint16_t v = rd8(r);

    return (uint16_t)(v | (rd8(r) << 8));
}

static inline void rdbytes(reader *r, uint8_t *out, size_t n)
{
    size_t take = n < r->n ? n : r->n;

    memcpy(out, r->p, take);
    memset(out + take, 0, n - take);
    r->p += take;
    r->n -= take;
}

/* label (n): up to 96 bytes in hex, 32 a line, on stderr */
static inline void hexdump(const char *label, const uint8_t *p, size_t n)
{
    size_t i;

    fprintf(stderr, "   %s (%zu):", label, n);
    for (i = 0; i < n && i < 96; i++)
        fprintf(stderr, "%s%02x", i % 32 ? "" : "\n     ", p[i]);
    fprintf(stderr, "%s\n", n > 96 ? " ..." : "");
}

#endif
