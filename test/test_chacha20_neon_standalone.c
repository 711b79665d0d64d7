/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NEON ChaCha20 kernel against the portable one, without libcrypto, so it can
 * run under qemu-aarch64 / qemu-arm with nothing but the two kernels linked:
 * every length 0..1100 at several misalignments and in place, guard pages
 * right after the input and the output, large lengths, counters ending at
 * exactly 2^32, and split calls. Exit 77 (skip) when the CPU has no NEON.
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#if defined(__arm__)
# include <sys/auxv.h>
# ifndef HWCAP_NEON
#  define HWCAP_NEON (1 << 12)
# endif
#endif
#include "backend.h"

extern const chacha20_impl chacha20_neon_impl;

#define MAX_LEN 1100
#define BIG_LEN (256 * 1024 + 77)

static unsigned long n_pass, n_fail;

static void check(int ok, const char *what, size_t a, size_t b)
{
    if (ok) {
        n_pass++;
        return;
    }
    n_fail++;
    if (n_fail <= 40)
        fprintf(stderr, "FAIL %s (%zu, %zu)\n", what, a, b);
}

static uint64_t rng_state = 0x243f6a8885a308d3u;

static uint64_t rng(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static void rng_bytes(uint8_t *p, size_t n)
{
    while (n--)
        *p++ = (uint8_t)rng();
}

static chacha20_xor_fn *neon, *portable;
static uint32_t key[8], ctr[4];

/* Run both kernels on len bytes at the given offsets; also in place. */
static void compare(size_t len, size_t in_off, size_t out_off)
{
    static uint8_t src[BIG_LEN + 64], exp[BIG_LEN + 64], got[BIG_LEN + 96];
    uint8_t *o = got + 16 + out_off;

    rng_bytes(src, len + in_off);
    portable(exp, src + in_off, len, key, ctr);
    memset(got, 0xa5, len + out_off + 48);
    neon(o, src + in_off, len, key, ctr);
    check(memcmp(o, exp, len) == 0, "out-of-place", len, in_off * 100 + out_off);
    check(got[15 + out_off] == 0xa5 && o[len] == 0xa5 && o[len + 15] == 0xa5,
          "write outside [out, out+len)", len, out_off);

    memcpy(o, src + in_off, len);
    neon(o, o, len, key, ctr);
    check(memcmp(o, exp, len) == 0, "in place", len, out_off);
}

/* Input and output each end exactly at a PROT_NONE page: any over-read or
 * over-write past len faults. */
static void compare_guarded(uint8_t *in_end, uint8_t *out_end, size_t len)
{
    static uint8_t exp[MAX_LEN];
    uint8_t *in = in_end - len, *out = out_end - len;

    rng_bytes(in, len);
    portable(exp, in, len, key, ctr);
    neon(out, in, len, key, ctr);
    check(memcmp(out, exp, len) == 0, "guard pages", len, 0);
    neon(in, in, len, key, ctr);
    check(memcmp(in, exp, len) == 0, "guard pages, in place", len, 0);
}

static int have_neon(void)
{
#if defined(__arm__)
    return (getauxval(AT_HWCAP) & HWCAP_NEON) != 0;
#else
    return 1;
#endif
}

int main(void)
{
    static const size_t offs[][2] = { {0, 0}, {1, 0}, {0, 3}, {7, 13}, {15, 1} };
    static const size_t big[] = { 4096, 4096 + 64 + 1, 16384, 65536 + 255, BIG_LEN };
    /* RFC 8439 2.3.2: key 00..1f, counter 1, nonce 00000009 0000004a 00000000 */
    static const uint8_t rfc_ks16[16] = {
        0x10, 0xf1, 0xe7, 0xe4, 0xd1, 0x3b, 0x59, 0x15,
        0x50, 0x0f, 0xdd, 0x1f, 0xa3, 0x20, 0x71, 0xc4
    };
    uint8_t zero[64] = { 0 }, ks[64];
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), len, i, npg;
    uint8_t *map;

    if (!have_neon()) {
        printf("# no NEON on this CPU: skipped\n");
        return 77;
    }
    neon = chacha20_neon_impl.xor_stream;
    portable = chacha20_portable_impl.xor_stream;

    for (i = 0; i < 8; i++)
        key[i] = (uint32_t)(i * 4) | (uint32_t)(i * 4 + 1) << 8
                 | (uint32_t)(i * 4 + 2) << 16 | (uint32_t)(i * 4 + 3) << 24;
    ctr[0] = 1;
    ctr[1] = 0x09000000;
    ctr[2] = 0x4a000000;
    ctr[3] = 0;
    neon(ks, zero, 64, key, ctr);
    check(memcmp(ks, rfc_ks16, 16) == 0, "RFC 8439 2.3.2 block", 64, 0);

    for (i = 0; i < 8; i++)
        key[i] = (uint32_t)rng();
    for (i = 0; i < 4; i++)
        ctr[i] = (uint32_t)rng();
    ctr[0] = 7;
    for (len = 0; len <= MAX_LEN; len++)
        for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++)
            compare(len, offs[i][0], offs[i][1]);
    for (i = 0; i < sizeof(big) / sizeof(big[0]); i++)
        compare(big[i], i & 3, (i * 5) & 7);

    /* counters whose last block is 0xffffffff, the contract's limit */
    for (len = 1; len <= 1100; len += 37) {
        ctr[0] = (uint32_t)(0 - (len + 63) / 64);
        compare(len, 0, 0);
        compare(len, 3, 1);
    }
    ctr[0] = 0xfffffffcu;
    compare(256, 0, 0);
    ctr[0] = (uint32_t)(0 - (BIG_LEN + 63) / 64);
    compare(BIG_LEN, 0, 0);

    /* one call == two calls split at a block boundary */
    {
        static uint8_t src[2048], one[2048], two[2048];
        uint32_t c2[4];
        size_t split;

        ctr[0] = 1000;
        rng_bytes(src, sizeof(src));
        neon(one, src, sizeof(src), key, ctr);
        for (split = 0; split <= sizeof(src); split += 64) {
            memcpy(c2, ctr, sizeof(c2));
            neon(two, src, split, key, c2);
            c2[0] += (uint32_t)(split / 64);
            neon(two + split, src + split, sizeof(src) - split, key, c2);
            check(memcmp(one, two, sizeof(src)) == 0, "split call", split, 0);
        }
    }

    /* guard pages: [in pages][none][out pages][none] */
    npg = (MAX_LEN + pg - 1) / pg;
    map = mmap(NULL, (2 * npg + 2) * pg, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    mprotect(map + npg * pg, pg, PROT_NONE);
    mprotect(map + (2 * npg + 1) * pg, pg, PROT_NONE);
    ctr[0] = 3;
    for (len = 0; len <= MAX_LEN; len++)
        compare_guarded(map + npg * pg, map + (2 * npg + 1) * pg, len);
    munmap(map, (2 * npg + 2) * pg);

    printf("test_chacha20_neon_standalone: %lu passed, %lu failed\n", n_pass, n_fail);
    return n_fail ? 1 : 0;
}
