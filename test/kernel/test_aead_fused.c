/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Every fused ChaCha20-Poly1305 kernel this CPU runs against the two-step
 * composition it replaces: portable ChaCha20, then (encrypt) or before
 * (decrypt) its own Poly1305 kernel's blocks() over the ciphertext. Every length
 * multiple of 64 from 0 to 64 * 80, plus 16 KiB and 1 MiB; random keys,
 * counters, r, s and starting accumulators (including h just below and above
 * 2^130 and the largest partially reduced h2), counters ending at 2^32; in
 * place and not; misaligned buffers placed against guard pages (PROT_NONE)
 * on either side, so that any read or write outside [0, len) faults;
 * canaries around the output.
 * Then the whole AEAD core (aead.c) with the fused kernel against the same
 * core without it: every text length 0..2048 (the kernel takes the runs its
 * min_len admits), sealed and opened in place in random chunks, with AAD.
 * The emulated AVX-512 fused kernel (emu_kernels.h) runs the same suite on
 * any CPU; each kernel's line says native or emulated. Prints a skip line
 * and exits 77 when no fused kernel ran.
 * Usage: test_aead_fused   (seed from AEAD_FUSED_TEST_SEED if set)
 */
#define _DEFAULT_SOURCE   /* MAP_ANONYMOUS under -std=c11 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "registry.h"
#include "cpu.h"
#include "aead.h"
#include "kernel.h"
#if defined(__SIZEOF_INT128__)      /* radix 2^64 Poly1305 (not 32-bit ARM) */
# include "poly1305_r64.h"
#endif
#include "testrng.h"
#include "tu_check.h"
#include "emu_kernels.h"

#if defined(CHACHA_HAVE_X86_64_SIMD)
extern const poly1305_kernel poly1305_avx2_kernel;
extern const poly1305_kernel poly1305_ifma_kernel;
#endif
#if defined(CHACHA_HAVE_NEON) && defined(__aarch64__)
extern const poly1305_kernel poly1305_neon_kernel;
#endif



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

static const char *kernel_name;

static void check(int ok, const char *what, size_t len, int enc, int inplace,
                  int variant)
{
    if (tu_count(ok))
        fprintf(stderr, "FAIL [%s] %s len=%zu enc=%d inplace=%d variant=%d\n",
                kernel_name, what, len, enc, inplace, variant);
}

#if defined(__SIZEOF_INT128__)
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
#endif

/*
 * A Poly1305 state of kernel poly in one of the kinds above: for kernels
 * whose state is radix 2^64 (poly1305_r64_of) the accumulator is set
 * directly, edge values included; for others it is reached by absorbing
 * 0..4 random blocks.
 */
static void random_state(const poly1305_kernel *poly, poly1305_state *st,
                         int kind)
{
    uint8_t key[32], blk[64];

#if defined(__SIZEOF_INT128__)
    if (poly == &poly1305_portable_kernel
#if defined(CHACHA_HAVE_X86_64_SIMD)
        || poly == &poly1305_avx2_kernel || poly == &poly1305_ifma_kernel
#if defined(CHACHA_TEST_EMU)
        || poly == &poly1305_ifma_kernel_emu
#endif
#endif
#if defined(CHACHA_HAVE_NEON) && defined(__aarch64__)
        || poly == &poly1305_neon_kernel
#endif
        ) {
        poly1305_r64 m;

        random_mac(&m, kind);
        memset(key, 0, sizeof(key));
        poly->init(st, key);
        *poly1305_r64_of(st) = m;
        return;
    }
#endif
    rng_bytes(key, sizeof(key));
    if (kind == 3)
        memset(key, 0xff, 16);
    poly->init(st, key);
    rng_bytes(blk, sizeof(blk));
    poly->blocks(st, blk, 16 * (size_t)(kind % 5), 1);
}

static void one_case(const chacha20_poly1305_kernel *f, size_t len, int enc,
                     int inplace, int variant, guarded *gin, guarded *gout,
                     uint8_t *ref, uint8_t *src)
{
    uint32_t key[8], ctr[4];
    poly1305_state mac_ref, mac_got;
    uint8_t tag_ref[16], tag_got[16];
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
    if (variant == 9)       /* the last block of the call is block 2^32 - 1 */
        ctr[0] = (uint32_t)(0xffffffffu - len / 64 + (len > 0));
    ctr[1] = (uint32_t)rng();
    ctr[2] = (uint32_t)rng();
    ctr[3] = (uint32_t)rng();
    random_state(f->poly, &mac_ref, variant % 5);
    mac_got = mac_ref;

    rng_bytes(src, len);
    /* reference: portable ChaCha20 and the pair's Poly1305 kernel */
    if (enc) {
        chacha20_portable_kernel.xor_stream(ref, src, len, key, ctr);
        f->poly->blocks(&mac_ref, ref, len, 1);
    } else {
        f->poly->blocks(&mac_ref, src, len, 1);
        chacha20_portable_kernel.xor_stream(ref, src, len, key, ctr);
    }

    in = place(gin, len, in_off, at_end);
    memcpy(in, src, len);
    if (inplace) {
        out = in;
    } else {
        out = place(gout, len, out_off, !at_end);
        memset(gout->lo, 0xa5, (size_t)(gout->hi - gout->lo));
    }
    f->xor_mac(out, in, len, key, ctr, &mac_got, enc);

    check(memcmp(out, ref, len) == 0, "output", len, enc, inplace, variant);
    f->poly->emit(&mac_ref, tag_ref);
    f->poly->emit(&mac_got, tag_got);
    check(memcmp(tag_got, tag_ref, 16) == 0, "accumulator (tag)", len, enc,
          inplace, variant);
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

/*
 * Feed len bytes of text through the core in place in buf and return the
 * tag: in one piece (mode 0), in pieces of whole blocks (1) or of any size,
 * some empty (2).
 */
static void aead_chunked(chacha_aead *a, uint8_t *buf, size_t len, int enc,
                         const uint8_t *aad, size_t aad_len, int mode,
                         uint8_t tag[16])
{
    size_t off = 0;

    chacha_aead_aad(a, aad, aad_len);
    while (off < len) {
        size_t n = mode == 0 ? len : mode == 1 ? 64 * (size_t)(rng() % 24)
                   : (size_t)(rng() % 4 == 0 ? rng() % 17 : rng() % 1500);

        if (n > len - off)
            n = len - off;
        chacha_aead_text(a, buf + off, buf + off, n, enc);
        off += n;
    }
    chacha_aead_tag(a, tag);
}

/* The core with kernel f against the core with two steps, lengths 0..2048. */
static void core_cases(const chacha20_poly1305_kernel *f)
{
    static uint8_t text[2048], ref[2048], got[2048];
    static chacha_aead a, b;
    uint8_t key[32], aad[40], tref[16], tgot[16];
    uint32_t nonce[3];
    size_t len;
    int enc;

    for (len = 0; len <= sizeof(text); len++) {
        for (enc = 1; enc >= 0; enc--) {
            size_t aad_len = (size_t)(rng() % sizeof(aad));

            rng_bytes(key, sizeof(key));
            rng_bytes(aad, aad_len);
            rng_bytes(text, len);
            nonce[0] = (uint32_t)rng();
            nonce[1] = (uint32_t)rng();
            nonce[2] = (uint32_t)rng();
            chacha_aead_setup(&a, f->chacha, f->poly, NULL);
            chacha_aead_setup(&b, f->chacha, f->poly, f);
            chacha_aead_set_key(&a, key);
            chacha_aead_set_key(&b, key);
            chacha_aead_set_nonce(&a, nonce);
            chacha_aead_set_nonce(&b, nonce);
            memcpy(ref, text, len);
            memcpy(got, text, len);
            chacha_aead_aad(&a, aad, aad_len);
            chacha_aead_text(&a, ref, ref, len, enc);
            chacha_aead_tag(&a, tref);
            aead_chunked(&b, got, len, enc, aad, aad_len, (int)(len % 3), tgot);
            check(memcmp(got, ref, len) == 0, "core: text", len, enc, 1,
                  (int)(len % 3));
            check(memcmp(tgot, tref, 16) == 0, "core: tag", len, enc, 1,
                  (int)(len % 3));
        }
    }
}

/* Every case of this file on kernel f (label: its name in FAIL lines). */
static void run_kernel(const chacha20_poly1305_kernel *f, const char *label,
                       const char *how, guarded *gin, guarded *gout,
                       uint8_t *ref, uint8_t *src)
{
    const size_t big[] = { 16384, 16384 + 64 * 5, 1u << 20 };
    size_t len, b;
    int enc, inplace, variant;

    kernel_name = label;
    printf("test_aead_fused: kernel %s, %s (chacha20=%s poly1305=%s)\n",
           f->name, how, f->chacha->name, f->poly->name);
    for (len = 0; len <= 64 * 80; len += 64)
        for (enc = 0; enc < 2; enc++)
            for (inplace = 0; inplace < 2; inplace++)
                for (variant = 0; variant < 10; variant++)
                    one_case(f, len, enc, inplace, variant, gin, gout, ref,
                             src);
    for (b = 0; b < sizeof(big) / sizeof(big[0]); b++)
        for (enc = 0; enc < 2; enc++)
            for (inplace = 0; inplace < 2; inplace++)
                for (variant = 0; variant < 5; variant++)
                    one_case(f, big[b], enc, inplace,
                             variant * 2 + (int)(b & 1), gin, gout, ref, src);
    core_cases(f);
}

int main(void)
{
    const size_t maxlen = 1u << 20;
    guarded gin, gout;
    uint8_t *ref, *src;
    const char *seed = getenv("AEAD_FUSED_TEST_SEED");
    size_t k, ran = 0;

    if (seed != NULL)
        rng_state = strtoull(seed, NULL, 0);
    page = (size_t)sysconf(_SC_PAGESIZE);
    ref = malloc(maxlen);
    src = malloc(maxlen);
    if (ref == NULL || src == NULL || !guarded_alloc(&gin, maxlen)
        || !guarded_alloc(&gout, maxlen)) {
        fprintf(stderr, "allocation failed\n");
        return 1;
    }

    for (k = 0; TEST_NATIVE_KERNELS && chacha20_poly1305_kernels[k] != NULL; k++) {
        const chacha20_poly1305_kernel *f = chacha20_poly1305_kernels[k];

        if (!chacha_caps_ok(f->caps)) {
            printf("test_aead_fused: %s (native) not run (this CPU lacks its features)\n",
                   f->name);
            continue;
        }
        run_kernel(f, f->name, "native", &gin, &gout, ref, src);
        ran++;
    }
    /* the same suite on the emulated AVX-512 kernels, on any CPU */
    for (k = 0; emu_fused_kernels[k] != NULL; k++) {
        static char name[64];

        snprintf(name, sizeof(name), "%s (emulated)", emu_fused_kernels[k]->name);
        run_kernel(emu_fused_kernels[k], name, "emulated", &gin, &gout, ref, src);
        ran++;
    }
    if (ran == 0) {
        printf("test_aead_fused: skipped (this CPU runs no fused kernel)\n");
        return 77;
    }

    guarded_free(&gin);
    guarded_free(&gout);
    free(ref);
    free(src);
    return tu_summary("test_aead_fused");
}
