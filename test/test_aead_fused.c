/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fused ChaCha20-Poly1305 kernel (chacha20_poly1305_avx2_xor_mac) against the
 * two-step composition it replaces: portable ChaCha20, then (encrypt) or
 * before (decrypt) poly1305_r64_blocks over the ciphertext. Every length
 * multiple of 64 from 0 to 64 * 80, plus 16 KiB and 1 MiB; random keys,
 * counters, r, s and starting accumulators (including h just below and above
 * 2^130 and the largest partially reduced h2); in place and not; misaligned
 * buffers placed against guard pages (PROT_NONE) on either side, so that any
 * read or write outside [0, len) faults; canaries around the output.
 * Needs AVX2 and BMI2; prints a skip line and exits 77 without them.
 * Usage: test_aead_fused   (seed from AEAD_FUSED_TEST_SEED if set)
 */
#define _DEFAULT_SOURCE   /* MAP_ANONYMOUS under -std=c11 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "backend.h"
#include "poly1305_r64.h"
#include "chacha20_poly1305_avx2.h"
#include "testrng.h"

static unsigned long n_pass, n_fail;


/* A mapping with an inaccessible page on each side of the data pages. */
typedef struct {
    uint8_t *base;      /* whole mapping */
    size_t total;
    uint8_t *lo, *hi;   /* first and one-past-last accessible byte */
} guarded;

static size_t page;

static int guarded_alloc(guarded *g, size_t len)
{
    size_t data = (len + 64 + page - 1) / page * page;

    g->total = data + 2 * page;
    g->base = mmap(NULL, g->total, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (g->base == MAP_FAILED)
        return 0;
    if (mprotect(g->base, page, PROT_NONE) != 0
        || mprotect(g->base + page + data, page, PROT_NONE) != 0)
        return 0;
    g->lo = g->base + page;
    g->hi = g->lo + data;
    return 1;
}

static void guarded_free(guarded *g)
{
    munmap(g->base, g->total);
}

/*
 * Place len bytes at offset off (0..31) from the low guard, or ending off
 * bytes before the high guard (so off = 0 puts the last byte against it).
 */
static uint8_t *place(const guarded *g, size_t len, size_t off, int at_end)
{
    return at_end ? g->hi - off - len : g->lo + off;
}

static void check(int ok, const char *what, size_t len, int enc, int inplace,
                  int variant)
{
    if (ok) {
        n_pass++;
        return;
    }
    n_fail++;
    if (n_fail <= 40)
        fprintf(stderr, "FAIL %s len=%zu enc=%d inplace=%d variant=%d\n",
                what, len, enc, inplace, variant);
}

static void random_mac(poly1305_r64 *m, int kind)
{
    uint8_t key[32];

    rng_bytes(key, sizeof(key));
    if (kind == 3)
        memset(key, 0xff, 16);   /* largest clamped r */
    poly1305_r64_init(m, key);
    switch (kind) {
    case 0:     /* fresh */
        break;
    case 1:     /* any partially reduced value, h2 <= 4 */
        m->h[0] = rng();
        m->h[1] = rng();
        m->h[2] = rng() % 5;
        break;
    case 2:     /* just below 2^130 */
        m->h[0] = ~(uint64_t)0 - (rng() & 7);
        m->h[1] = ~(uint64_t)0;
        m->h[2] = 3;
        break;
    case 3:     /* largest accumulator the invariant allows */
        m->h[0] = ~(uint64_t)0;
        m->h[1] = ~(uint64_t)0;
        m->h[2] = 4;
        break;
    default:    /* 2^130 .. 2^130 + small */
        m->h[0] = rng() & 15;
        m->h[1] = 0;
        m->h[2] = 4;
        break;
    }
}

static void one_case(size_t len, int enc, int inplace, int variant,
                     guarded *gin, guarded *gout, uint8_t *ref, uint8_t *src)
{
    uint32_t key[8], ctr[4];
    poly1305_r64 mac_ref, mac_got;
    size_t in_off = (size_t)(rng() % 32), out_off = (size_t)(rng() % 32);
    int at_end = variant & 1;
    uint8_t *in, *out;
    size_t i;
    int ok;

    for (i = 0; i < 8; i++)
        key[i] = (uint32_t)rng();
    ctr[0] = (uint32_t)rng();
    if ((uint64_t)ctr[0] + len / 64 > 0xffffffffu)   /* no 32-bit wrap */
        ctr[0] = (uint32_t)(0xffffffffu - len / 64 - (rng() & 3));
    ctr[1] = (uint32_t)rng();
    ctr[2] = (uint32_t)rng();
    ctr[3] = (uint32_t)rng();
    random_mac(&mac_ref, variant % 5);
    mac_got = mac_ref;

    rng_bytes(src, len);
    /* reference: portable ChaCha20 and the scalar Poly1305 */
    if (enc) {
        chacha20_portable_impl.xor_stream(ref, src, len, key, ctr);
        poly1305_r64_blocks(&mac_ref, ref, len / 16, 1);
    } else {
        poly1305_r64_blocks(&mac_ref, src, len / 16, 1);
        chacha20_portable_impl.xor_stream(ref, src, len, key, ctr);
    }

    in = place(gin, len, in_off, at_end);
    memcpy(in, src, len);
    if (inplace) {
        out = in;
    } else {
        out = place(gout, len, out_off, !at_end);
        memset(gout->lo, 0xa5, (size_t)(gout->hi - gout->lo));
    }
    chacha20_poly1305_avx2_xor_mac(out, in, len, key, ctr, &mac_got, enc);

    check(memcmp(out, ref, len) == 0, "output", len, enc, inplace, variant);
    check(mac_got.h[0] == mac_ref.h[0] && mac_got.h[1] == mac_ref.h[1]
          && mac_got.h[2] == mac_ref.h[2], "accumulator", len, enc, inplace,
          variant);
    check(memcmp(mac_got.r, mac_ref.r, sizeof(mac_ref.r)) == 0
          && memcmp(mac_got.s, mac_ref.s, sizeof(mac_ref.s)) == 0,
          "key untouched", len, enc, inplace, variant);
    if (!inplace) {
        check(memcmp(in, src, len) == 0, "input untouched", len, enc, inplace,
              variant);
        ok = 1;
        for (i = 0; out - i > gout->lo && i < 64; i++)
            ok &= out[-1 - (ptrdiff_t)i] == 0xa5;
        for (i = 0; out + len + i < gout->hi && i < 64; i++)
            ok &= out[len + i] == 0xa5;
        check(ok, "no write outside out", len, enc, inplace, variant);
    }
}

int main(void)
{
    const size_t big[] = { 16384, 16384 + 64 * 5, 1u << 20 };
    const size_t maxlen = 1u << 20;
    guarded gin, gout;
    uint8_t *ref, *src;
    const char *seed = getenv("AEAD_FUSED_TEST_SEED");
    size_t len, b;
    int enc, inplace, variant;

    if (seed != NULL)
        rng_state = strtoull(seed, NULL, 0);
    if (!chacha_caps_ok(CHACHA_CAP_AVX2 | CHACHA_CAP_BMI2)) {
        printf("test_aead_fused: skipped (no AVX2 + BMI2)\n");
        return 77;
    }
    page = (size_t)sysconf(_SC_PAGESIZE);
    ref = malloc(maxlen);
    src = malloc(maxlen);
    if (ref == NULL || src == NULL || !guarded_alloc(&gin, maxlen)
        || !guarded_alloc(&gout, maxlen)) {
        fprintf(stderr, "allocation failed\n");
        return 1;
    }

    for (len = 0; len <= 64 * 80; len += 64)
        for (enc = 0; enc < 2; enc++)
            for (inplace = 0; inplace < 2; inplace++)
                for (variant = 0; variant < 10; variant++)
                    one_case(len, enc, inplace, variant, &gin, &gout, ref, src);
    for (b = 0; b < sizeof(big) / sizeof(big[0]); b++)
        for (enc = 0; enc < 2; enc++)
            for (inplace = 0; inplace < 2; inplace++)
                for (variant = 0; variant < 5; variant++)
                    one_case(big[b], enc, inplace, variant * 2 + (int)(b & 1),
                             &gin, &gout, ref, src);

    guarded_free(&gin);
    guarded_free(&gout);
    free(ref);
    free(src);
    printf("test_aead_fused: %lu passed, %lu failed\n", n_pass, n_fail);
    return n_fail == 0 ? 0 : 1;
}
