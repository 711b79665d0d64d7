/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the kernels leave on the stack: the stack below this test's frame is
 * painted, a kernel runs there, and the paint is searched for what it must
 * not leave behind (kernel.h: nothing derived from the key): the ChaCha20
 * key, any of its words broadcast to a whole ymm or zmm (a spilled state
 * row), any 16 bytes of the keystream; the Poly1305 r and s, and a 44-bit
 * limb of r broadcast to a zmm (a spilled IFMA power). Every native kernel
 * this CPU runs, at lengths that reach each path; the emulated copies are
 * not searched (SIMDe's helpers are not written to keep secrets in
 * registers). Negative control: a deliberately leaky function must be
 * caught. Run directly (not once per kernel).
 * Every kernel is asserted (passing with gcc 12 on x86-64, aarch64 and
 * ARMv7, and with clang 14 on x86-64); an instrumented build
 * (-DCHACHA_TEST_INSTRUMENTED_FRAMES) asserts only the negative control and
 * reports the kernels.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "registry.h"
#include "cpu.h"
#include "testrng.h"
#include "tu_check.h"
#if defined(__SIZEOF_INT128__)
# include "poly1305_r64.h"
#endif

/*
 * AddressSanitizer poisons the frames this test reads after they return
 * (and may move them to a fake stack): there the test cannot run.
 */
#if defined(__SANITIZE_ADDRESS__)
# define RESIDUE_ASAN 1
#elif defined(__has_feature)
# if __has_feature(address_sanitizer)
#  define RESIDUE_ASAN 1
# endif
#endif

#define PAINT 32768
#define PAINT_BYTE 0xa5
/*
 * The kernels run this deep below main's frame (DEEP), so that the search,
 * called from main, never overwrites or reads its own frames: it leaves
 * the top SCAN_SKIP bytes of the paint alone, all above the kernels.
 */
#define DEEP 4096
#define SCAN_SKIP 2048

static uintptr_t paint_lo, paint_hi;   /* addresses, once the frame is gone */

static int asserted(const char *who)
{
#ifdef CHACHA_TEST_INSTRUMENTED_FRAMES
    /*
     * A build whose instrumentation spills what the optimised code keeps in
     * registers (the aarch64 UBSan job: -O1, checks on every add): there
     * only the negative control is asserted, the kernels are reported.
     */
    return strcmp(who, "control") == 0;
#else
    (void)who;
    return 1;
#endif
}

static void check(int ok, const char *who, const char *what, size_t len)
{
    if (ok) {
        tu_count(ok);
        return;
    }
    if (!asserted(who)) {
        printf("REPORT [%s] leaves %s (len %zu): not asserted\n", who, what, len);
        return;
    }
    if (tu_count(ok))
        fprintf(stderr, "FAIL [%s] %s (len %zu)\n", who, what, len);
}

static __attribute__((noinline)) void paint(void)
{
    volatile unsigned char buf[PAINT];
    size_t i;

    for (i = 0; i < PAINT; i++)
        buf[i] = PAINT_BYTE;
    paint_lo = (uintptr_t)buf;
    paint_hi = (uintptr_t)buf + PAINT;
}

/*
 * The search: every byte offset of the paint below the top SCAN_SKIP bytes,
 * through an index of the 4-byte word at each offset (a hash of it, chained),
 * built once a call is done (run_deep, the last thing it does); a needle's
 * candidates are the offsets whose word is its first four bytes, each
 * compared whole. The same answer as comparing at every offset, in a few
 * hundredths of its time (under qemu the plain scan took most of this test's
 * 100 s). Static, not on the stack it reads. One index serves every search
 * of that paint (leaked(), twice for a fused call) as long as nothing between
 * them writes below the top SCAN_SKIP bytes: the searches do not, and a
 * test's report (printf) waits until its searches are done.
 */
#define INDEX_BITS 16
static int32_t index_head[1 << INDEX_BITS];
static int32_t index_next[PAINT];

static unsigned index_hash(uint32_t w)
{
    return (unsigned)((w * 2654435761u) >> (32 - INDEX_BITS));
}

/* the index of the paint as the last call left it */
static __attribute__((noinline)) void index_paint(void)
{
    const unsigned char *lo = (const unsigned char *)paint_lo;
    long n = (long)(paint_hi - SCAN_SKIP - paint_lo) - 3, i;

    memset(index_head, 0xff, sizeof(index_head));
    for (i = n - 1; i >= 0; i--) {
        uint32_t w;
        unsigned h;

        memcpy(&w, lo + i, 4);
        h = index_hash(w);
        index_next[i] = index_head[h];
        index_head[h] = (int32_t)i;
    }
}

/* lowest offset of needle (n >= 4 bytes) in the indexed paint, or -1 */
static __attribute__((noinline)) long find(const void *needle, size_t n)
{
    const unsigned char *lo = (const unsigned char *)paint_lo;
    size_t span = (size_t)(paint_hi - SCAN_SKIP - paint_lo);
    uint32_t w;
    int32_t i;

    memcpy(&w, needle, 4);
    for (i = index_head[index_hash(w)]; i >= 0; i = index_next[i])
        if ((size_t)i + n <= span && memcmp(lo + i, needle, n) == 0)
            return i;
    return -1;
}

/* the secrets of one call, and whether any is found */
typedef struct {
    uint8_t key[32];
    uint32_t kw[8];
    uint8_t ks[4096];
    size_t kslen;
    uint8_t rs[32];         /* Poly1305 key r || s */
    int poly;
} secrets;

/*
 * The rounds' output before the feed-forward (keystream word minus input
 * word), as a kernel's round rows hold it: four words of one block (a
 * horizontal row) or word i of four blocks 4m..4m+3 (a vertical row, one
 * 128-bit lane of it; passes start at multiples of 4 blocks). The last
 * rows of a pass are what a kernel parks in its state block (the AVX2 8x
 * pass's c rows in their swap slots).
 */
static int round_rows_found(const secrets *s)
{
    static const uint32_t sigma[4] = { 0x61707865, 0x3320646e, 0x79622d32,
                                       0x6b206574 };
    static uint32_t x[64][16];
    uint32_t in[16], w[4];
    size_t nb = s->kslen / 64, b, i, j;

    if (nb > 64)
        nb = 64;       /* the first 4 KiB: every pass shape, in bounded time */
    for (b = 0; b < nb; b++) {
        memcpy(in, sigma, sizeof(sigma));
        memcpy(in + 4, s->kw, sizeof(s->kw));
        in[12] = 1 + (uint32_t)b;       /* run_chacha's counter { 1, 2, 3, 4 } */
        in[13] = 2;
        in[14] = 3;
        in[15] = 4;
        for (i = 0; i < 16; i++) {
            uint32_t k;

            memcpy(&k, s->ks + 64 * b + 4 * i, 4);
            x[b][i] = k - in[i];
        }
        for (i = 0; i < 16; i += 4)
            if (find(&x[b][i], 16) >= 0)
                return 1;
    }
    for (b = 0; b + 4 <= nb; b += 4)
        for (i = 0; i < 16; i++) {
            for (j = 0; j < 4; j++)
                w[j] = x[b + j][i];
            if (find(w, 16) >= 0)
                return 1;
        }
    return 0;
}

/*
 * Every word a scalar core computes on its way through the rounds of block
 * nb - 1 (the last block: a scalar core reuses its spill slots, block after
 * block): each quarter round's twelve results, in the order RFC 8439 gives
 * them. A 4-byte search, so it is run only on the scalar cores (portable,
 * and every HChaCha20), whose frames are a few hundred bytes: a chance
 * match of 960 random words there is ~1e-4. This is what catches a core
 * that keeps its state in local words and lets the compiler spill them.
 */
#define ARX_WORDS (20 * 4 * 12)
static uint32_t scalar_state[16];     /* the rounds' output: a self-check */
static int scalar_words_found(const secrets *s, size_t nb)
{
    static const uint8_t qr[8][4] = { { 0, 4, 8, 12 }, { 1, 5, 9, 13 },
                                      { 2, 6, 10, 14 }, { 3, 7, 11, 15 },
                                      { 0, 5, 10, 15 }, { 1, 6, 11, 12 },
                                      { 2, 7, 8, 13 }, { 3, 4, 9, 14 } };
    static const int rot[4] = { 16, 12, 8, 7 };
    static uint32_t w[ARX_WORDS];    /* static: not on the searched stack */
    uint32_t *x = scalar_state;
    size_t n = 0, i, q, k;

    x[0] = 0x61707865;
    x[1] = 0x3320646e;
    x[2] = 0x79622d32;
    x[3] = 0x6b206574;
    memcpy(x + 4, s->kw, sizeof(s->kw));
    x[12] = 1 + (uint32_t)(nb - 1);     /* run_chacha's counter { 1, 2, 3, 4 } */
    x[13] = 2;
    x[14] = 3;
    x[15] = 4;
    for (i = 0; i < 20; i++)
        for (q = 0; q < 4; q++) {
            const uint8_t *v = qr[4 * (i & 1) + q];

            for (k = 0; k < 4; k++) {
                /* a += b; d ^= a; d <<<= r (then c, b; a, d; c, b) */
                uint32_t *a = &x[v[(k & 1) ? 2 : 0]], *b = &x[v[(k & 1) ? 3 : 1]];
                uint32_t *d = &x[v[(k & 1) ? 1 : 3]];

                *a += *b;
                w[n++] = *a;
                *d ^= *a;
                w[n++] = *d;
                *d = (*d << rot[k]) | (*d >> (32 - rot[k]));
                w[n++] = *d;
            }
        }
    for (i = 0; i < n; i++)
        if (find(&w[i], 4) >= 0)
            return 1;
    return 0;
}

/* what of s the indexed paint holds (run_deep indexed it), or NULL */
static const char *leaked(const secrets *s)
{
    uint32_t b32[16];
    uint64_t b64[8], r0, r1, limb[3];
    size_t i, j;

    if (!s->poly) {
        if (find(s->key, 32) >= 0)
            return "the key";
        for (i = 0; i < 8; i++) {
            for (j = 0; j < 16; j++)
                b32[j] = s->kw[i];
            if (find(b32, 32) >= 0)
                return "a key word broadcast (a spilled state row)";
        }
        for (i = 0; i + 16 <= s->kslen; i += 16)
            if (find(s->ks + i, 16) >= 0)
                return "16 bytes of keystream";
        if (round_rows_found(s))
            return "a row of the rounds' output (before the feed-forward)";
        return NULL;
    }
    if (find(s->rs, 16) >= 0)
        return "r";
    if (find(s->rs + 16, 16) >= 0)
        return "s";
    memcpy(&r0, s->rs, 8);
    memcpy(&r1, s->rs + 8, 8);
    r0 &= 0x0ffffffc0fffffffull;
    r1 &= 0x0ffffffc0ffffffcull;
    if (find(&r0, 8) >= 0 || find(&r1, 8) >= 0)
        return "clamped r";
#if defined(__SIZEOF_INT128__)
    /* r^1..r^16 as 44-bit limbs (and 20 times limbs 1, 2), broadcast */
    {
        uint64_t h[3] = { r0, r1, 0 }, m[5];
        int e, q;

        for (e = 1; e <= 16; e++) {
            uint64_t v0, v1, v2;
            unsigned __int128 t;

            if (e > 1)
                poly1305_r64_mul(h, r0, r1);
            /* fully reduced, as the kernels' carries leave it at most */
            t = (unsigned __int128)h[0] + 5 * (h[2] >> 2);
            v0 = (uint64_t)t;
            t = (unsigned __int128)h[1] + (uint64_t)(t >> 64);
            v1 = (uint64_t)t;
            v2 = (h[2] & 3) + (uint64_t)(t >> 64);
            m[0] = v0 & 0xfffffffffffull;
            m[1] = ((v0 >> 44) | (v1 << 20)) & 0xfffffffffffull;
            m[2] = (v1 >> 24) | (v2 << 40);
            m[3] = 20 * m[1];
            m[4] = 20 * m[2];
            for (q = 0; q < 5; q++) {
                for (j = 0; j < 8; j++)
                    b64[j] = m[q];
                if (m[q] != 0 && find(b64, 64) >= 0)
                    return "a power of r broadcast (a spilled multiplier)";
            }
        }
    }
#endif
    (void)limb;
    (void)b64;
    return NULL;
}

static uint8_t inbuf[1 << 17], outbuf[1 << 17];

static __attribute__((noinline)) void run_chacha(const chacha20_kernel *k,
                                                 secrets *s, size_t len)
{
    uint32_t ctr[4] = { 1, 2, 3, 4 };

    k->xor_stream(outbuf, inbuf, len, s->kw, ctr);
}

static __attribute__((noinline)) void run_poly(const poly1305_kernel *k,
                                               const secrets *s, size_t len)
{
    poly1305_state st;
    uint8_t tag[16];

    k->init(&st, s->rs);
    k->blocks(&st, inbuf, len & ~(size_t)15, 1);
    k->blocks(&st, inbuf, 16, 0);
    k->emit(&st, tag);
}

static __attribute__((noinline)) void run_fused(const chacha20_poly1305_kernel *f,
                                                const secrets *s, size_t len,
                                                int enc)
{
    uint32_t ctr[4] = { 1, 2, 3, 4 };
    poly1305_state st;
    uint8_t tag[16];

    f->poly->init(&st, s->rs);
    f->xor_mac(outbuf, inbuf, len, s->kw, ctr, &st, enc);
    f->poly->emit(&st, tag);
}

static uint32_t hchacha_out[8];        /* static: not on the searched stack */

/* HChaCha20 of the key and nonce words { 1, 2, 3, 4 }: block 0's rounds */
static __attribute__((noinline)) void run_hchacha(const chacha20_kernel *k,
                                                  const secrets *s)
{
    static const uint32_t nonce[4] = { 1, 2, 3, 4 };
    hchacha20_fn *h = k->hchacha20 != NULL ? k->hchacha20
                                           : chacha20_portable_kernel.hchacha20;

    h(hchacha_out, s->kw, nonce);
}

/* What to run deep below main: one call of a kernel, as a closure. */
typedef struct {
    int what;                   /* 0 chacha, 1 poly, 2 fused, 3 leaky, 4 hchacha */
    const void *k;
    secrets *s;
    size_t len;
    int enc;
} job;

static void run_job(const job *j);

static __attribute__((noinline)) void deep(const job *j)
{
    volatile unsigned char pad[DEEP];

    pad[0] = 0;
    /*
     * The address escapes, so the whole array is in the frame: clang 14
     * kept one byte of it, ran the kernels inside the top SCAN_SKIP bytes,
     * which the search leaves alone, and missed the planted leak.
     */
    __asm__ __volatile__("" : : "r"(pad) : "memory");
    run_job(j);
    pad[DEEP - 1] = pad[0];
}

/* a function that leaves key words on the stack, for the negative control */
static __attribute__((noinline)) void leaky(const secrets *s)
{
    uint32_t spill[64];
    int i;

    for (i = 0; i < 64; i++)
        spill[i] = s->kw[(i / 16) % 8];
    __asm__ __volatile__("" : : "r"(spill) : "memory");
}

static void run_job(const job *j)
{
    switch (j->what) {
    case 0: run_chacha(j->k, j->s, j->len); break;
    case 1: run_poly(j->k, j->s, j->len); break;
    case 2: run_fused(j->k, j->s, j->len, j->enc); break;
    case 4: run_hchacha(j->k, j->s); break;
    default: leaky(j->s); break;
    }
}

static void run_deep(int what, const void *k, secrets *s, size_t len, int enc)
{
    job j;

    j.what = what;
    j.k = k;
    j.s = s;
    j.len = len;
    j.enc = enc;
    paint();
    deep(&j);
    index_paint();
}

static void new_secrets(secrets *s, size_t kslen)
{
    uint32_t ctr[4] = { 1, 2, 3, 4 };
    size_t i;

    rng_bytes(s->key, 32);
    for (i = 0; i < 8; i++)
        memcpy(&s->kw[i], s->key + 4 * i, 4);
    rng_bytes(s->rs, 32);
    s->kslen = kslen < sizeof(s->ks) ? kslen : sizeof(s->ks);
    memset(s->ks, 0, s->kslen);
    chacha20_portable_kernel.xor_stream(s->ks, s->ks, s->kslen, s->kw, ctr);
}

int main(void)
{
    static const size_t lens[] = { 1, 63, 64, 100, 128, 200, 256, 300, 448,
                                   512, 576, 700, 768, 1000, 1024, 1088, 1500,
                                   2048, 2600, 3136, 4096, 4600, 16384, 65536 };
    secrets s;
    const char *why;
    size_t i, t;

#ifdef RESIDUE_ASAN
    printf("test_stack_residue: skipped (built with AddressSanitizer)\n");
    return 77;
#endif
    rng_bytes(inbuf, sizeof(inbuf));
    /* negative control: the search must find a leak that is there */
    new_secrets(&s, 64);
    s.poly = 0;
    run_deep(3, NULL, &s, 0, 0);
    check(leaked(&s) != NULL, "control", "a planted leak is found", 0);

    for (i = 0; chacha20_kernels[i] != NULL; i++) {
        const chacha20_kernel *k = chacha20_kernels[i];
        chacha20_kernel entry;
        int h;

        if (!chacha_caps_ok(k->caps))
            continue;
        /* each entry: xor_stream, then the hybrid and paired ones it has */
        for (h = 0; h < 3; h++) {
            if (h > 0) {
                /* each entry once: one k lacks falls back to one already run */
                entry = *chacha20_kernels[i];
                entry.xor_stream = chacha20_kernel_entry(chacha20_kernels[i], h);
                if (entry.xor_stream == chacha20_kernel_entry(chacha20_kernels[i], h - 1))
                    continue;
                k = &entry;
            }
            printf("chacha20 %s%s (native)%s\n", k->name,
                   h == 1 ? " hybrid" : h == 2 ? " pairs" : "",
                   asserted(k->name) ? "" : ", reported only");
            for (t = 0; t < sizeof(lens) / sizeof(lens[0]); t++) {
                new_secrets(&s, lens[t]);
                s.poly = 0;
                run_deep(0, k, &s, lens[t], 0);
                why = leaked(&s);
                if (why == NULL && h == 0 && k == &chacha20_portable_kernel
                    && scalar_words_found(&s, (lens[t] + 63) / 64))
                    why = "a word of the rounds (a spilled local)";
                check(why == NULL, k->name, why ? why : "", lens[t]);
            }
        }
        /* its HChaCha20 (the portable one where it has none) */
        k = chacha20_kernels[i];
        if (k->hchacha20 == NULL && k != &chacha20_portable_kernel)
            continue;
        printf("hchacha20 %s (native)%s\n", k->name,
               asserted(k->name) ? "" : ", reported only");
        new_secrets(&s, 64);
        s.poly = 0;
        run_deep(4, k, &s, 0, 0);
        why = leaked(&s);
        if (why == NULL && scalar_words_found(&s, 1))
            why = "a word of the rounds (a spilled local)";
        check(why == NULL, k->name, why ? why : "", 0);
        /* the search's rounds are the kernel's: the subkey is their words */
        check(memcmp(hchacha_out, scalar_state, 16) == 0
              && memcmp(hchacha_out + 4, scalar_state + 12, 16) == 0,
              "control", "hchacha20's subkey is the searched rounds' output", 0);
    }
    for (i = 0; poly1305_kernels[i] != NULL; i++) {
        const poly1305_kernel *k = poly1305_kernels[i];

        if (!chacha_caps_ok(k->caps))
            continue;
        printf("poly1305 %s (native)%s\n", k->name,
               asserted(k->name) ? "" : ", reported only");
        for (t = 0; t < sizeof(lens) / sizeof(lens[0]); t++) {
            new_secrets(&s, 0);
            s.poly = 1;
            run_deep(1, k, &s, lens[t], 0);
            why = leaked(&s);
            check(why == NULL, k->name, why ? why : "", lens[t]);
        }
    }
    for (i = 0; chacha20_poly1305_kernels[i] != NULL; i++) {
        const chacha20_poly1305_kernel *f = chacha20_poly1305_kernels[i];
        int enc;

        if (!chacha_caps_ok(f->caps))
            continue;
        printf("fused %s (native)%s\n", f->name,
               asserted(f->name) ? "" : ", reported only");
        for (t = 0; t < sizeof(lens) / sizeof(lens[0]); t++)
            for (enc = 0; enc < 2 && lens[t] >= 64; enc++) {
                /* whole blocks (at 0 bytes the tag is s, which is public) */
                size_t len = lens[t] & ~(size_t)63;
                const char *why_mac;

                new_secrets(&s, len);
                run_deep(2, f, &s, len, enc);
                /* both searches before a report can write on the paint */
                s.poly = 0;
                why = leaked(&s);
                s.poly = 1;
                why_mac = leaked(&s);
                check(why == NULL, f->name, why ? why : "", len);
                check(why_mac == NULL, f->name, why_mac ? why_mac : "", len);
            }
    }
    return tu_summary("test_stack_residue");
}
