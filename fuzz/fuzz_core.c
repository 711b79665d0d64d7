/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Core-level differential fuzzer (libFuzzer), the fast target of the issue 24
 * campaign: no OpenSSL, no provider. Each input is one message put through
 * provider/core/ directly, on every kernel this CPU runs and on the emulated
 * AVX-512 kernels (test/kernel/emu_kernels.h, when the build has SIMDe), streamed in
 * pieces cut where the input says, against two references: the portable
 * kernel in one call, and libsodium (when built with it), an implementation
 * that shares no code with ours.
 *
 * First byte: the primitive (low 3 bits) --
 *   0 ChaCha20 (OpenSSL's IV: 32-bit counter || 96-bit nonce; counters near
 *     the 2^32 wrap, where the stream carries into the nonce word like
 *     OpenSSL; libsodium's IETF ChaCha20 only where nothing wraps)
 *   1 Poly1305 (crypto_onetimeauth_poly1305)
 *   2 ChaCha20-Poly1305 seal and open (crypto_aead_chacha20poly1305_ietf_*)
 *   3 XChaCha20 with a 64-bit counter (crypto_stream_xchacha20_xor_ic), and
 *     HChaCha20 on every kernel (crypto_core_hchacha20)
 *   4 XChaCha20-Poly1305 seal and open (crypto_aead_xchacha20poly1305_ietf_*)
 * The AEADs run every ChaCha20 kernel (each paired with a Poly1305 kernel
 * the input picks), every fused kernel, and every fused kernel once more with
 * its minimum lengths lowered to one block, so that short inputs reach its
 * one-pass code (the real descriptors need 2-8 KiB texts).
 * Then: the short-path rule (scalar blocks 0-4, hybrid off/on/pairs), in
 * place or not, a long PRNG text (up to 16 KiB: fused kernels' real
 * thresholds, bulk passes) or the input's own bytes, key, nonce, counter,
 * AAD and text lengths and up to 7 cut points each. Buffers are heap blocks
 * of the exact length, so ASan sees any byte read or written past them.
 * A difference prints the primitive, kernels and lengths, then aborts.
 * FUZZ_CORE_NEGATIVE=1 (the smoke run's negative control) flips a bit of the
 * first kernel's output in each primitive: every input with a text must abort.
 *
 * Build: --enable-fuzzing (CC=clang), `make fuzz/fuzz_core`; fuzz/long.sh and
 * fuzz/run-smoke.sh run it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernel.h"
#include "util.h"
#include "cpu.h"
#include "registry.h"
#include "chacha20_stream.h"
#include "poly1305_stream.h"
#include "aead.h"
#include "xchacha.h"
#include "emu_kernels.h"
#include "reader.h"
#ifdef HAVE_LIBSODIUM
# include <sodium.h>
#endif

#define MAXTEXT 16384
#define MAXAAD 1024
#define MAXCUTS 7
#define MAXK 16

/*
 * The kernels: [0] every one, [1] without the emulated ones (SIMDe's AVX-512
 * is some 20 times slower than the native kernels built from the same
 * sources: with native AVX-512, the emulated copies run on 1 input in 64).
 * Fused: the real descriptors, then copies with min_len lowered.
 */
static const chacha20_kernel *cks[2][MAXK];
static const poly1305_kernel *pks[2][MAXK];
static chacha20_poly1305_kernel fks[2][2 * MAXK];
static size_t ncks[2], npks[2], nfks[2];
static int emu_always, negative;
/* this input's lists */
static const chacha20_kernel *const *ck;
static const poly1305_kernel *const *pk;
static const chacha20_poly1305_kernel *fk;
static size_t nck, npk, nfk;

static void prng_fill(uint64_t s, uint8_t *p, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        if ((i & 7) == 0) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        }
        p[i] = (uint8_t)(s >> (56 - 8 * (i & 7)));
    }
}

/* The input's next bytes, then a PRNG continuation seeded by what was read. */
static void fill(reader *r, uint8_t *p, size_t n, uint64_t seed)
{
    size_t take = n < r->n ? n : r->n;

    memcpy(p, r->p, take);
    r->p += take;
    r->n -= take;
    prng_fill(seed ^ take, p + take, n - take);
}

/* ------------------------------------------------------------------------ */

static const char *prim_name = "?";
static char who[160];

static void cmp(const char *what, const uint8_t *got, const uint8_t *want, size_t n)
{
    size_t d;

    if (n == 0 || memcmp(got, want, n) == 0)
        return;
    for (d = 0; got[d] == want[d]; d++)
        ;
    fprintf(stderr, "\n==== CORE DIFFERENTIAL FAILURE (%s) ====\n   %s: %s differs "
            "from byte %zu of %zu\n", prim_name, who, what, d, n);
    hexdump("got from there", got + d, n - d);
    hexdump("want from there", want + d, n - d);
    abort();
}

/* Cut points in [0, len], sorted, ending with len. Returns how many pieces. */
static size_t cuts(const uint16_t *raw, size_t nraw, size_t len, size_t *at)
{
    size_t i, j, n = 0;

    for (i = 0; i < nraw; i++) {
        size_t v = len ? raw[i] % (len + 1) : 0;

        for (j = n; j > 0 && at[j - 1] > v; j--)
            at[j] = at[j - 1];
        at[j] = v;
        n++;
    }
    at[n++] = len;
    return n;
}

typedef struct {
    unsigned int scalar_blocks;
    int hybrid, inplace;
    size_t ncut;
    uint16_t cut[MAXCUTS];
    size_t aadlen, len;
    uint8_t key[32], nonce[24];
    uint64_t counter;
    uint8_t *aad, *in, *out, *ref;   /* heap, exact lengths (out, ref: len) */
} job;

static void key_words(const job *j, uint32_t kw[8])
{
    int i;

    for (i = 0; i < 8; i++)
        kw[i] = chacha_load_le32(j->key + 4 * i);
}

/* Run a piecewise function over the text at the job's cut points. */
#define FOR_PIECES(J, LEN, POS, N, BODY)                                    \
    do {                                                                    \
        size_t at_[MAXCUTS + 1], k_, np_ = cuts((J)->cut, (J)->ncut, LEN, at_); \
        size_t POS = 0, N;                                                  \
        for (k_ = 0; k_ < np_; k_++) {                                      \
            N = at_[k_] - POS;                                              \
            BODY;                                                           \
            POS = at_[k_];                                                  \
        }                                                                   \
    } while (0)

/* ---- ChaCha20 / XChaCha20 streams ---------------------------------------- */

static void stream_run(const job *j, const chacha20_kernel *k, int x,
                       unsigned int sb, int hybrid, uint8_t *out, int cut)
{
    chacha20_stream cs;
    const uint8_t *src = j->in;

    memset(&cs, 0, sizeof(cs));
    chacha20_stream_set_kernel(&cs, k, sb, hybrid);
    if (x) {
        uint32_t kw[8];

        key_words(j, kw);
        chacha_xchacha20_start(&cs, kw, j->nonce, j->counter);
    } else {
        uint8_t iv[16];

        chacha_store_le32(iv, (uint32_t)j->counter);
        memcpy(iv + 4, j->nonce, 12);
        chacha20_stream_set_key(&cs, j->key);
        chacha20_stream_set_iv(&cs, iv);
    }
    if (j->inplace && out != j->ref) {
        memcpy(out, j->in, j->len);
        src = out;
    }
    if (!cut)
        chacha20_stream_xor(&cs, out, src, j->len);
    else
        FOR_PIECES(j, j->len, pos, n, chacha20_stream_xor(&cs, out + pos, src + pos, n));
}

static void do_stream(const job *j, int x)
{
    size_t i;

    prim_name = x ? "XChaCha20" : "ChaCha20";
    snprintf(who, sizeof(who), "portable one call");
    stream_run(j, &chacha20_portable_kernel, x, 0, 0, j->ref, 0);
#ifdef HAVE_LIBSODIUM
    if (x) {
        /* libsodium's 64-bit counter stops at 2^64: compare below it */
        if (j->counter <= UINT64_MAX - (j->len + 63) / 64) {
            crypto_stream_xchacha20_xor_ic(j->out, j->in, j->len, j->nonce, j->counter,
                                           j->key);
            snprintf(who, sizeof(who), "libsodium xchacha20 vs portable");
            cmp("keystream xor", j->ref, j->out, j->len);
        }
    } else if ((uint64_t)(uint32_t)j->counter + (j->len + 63) / 64 <= ((uint64_t)1 << 32)) {
        crypto_stream_chacha20_ietf_xor_ic(j->out, j->in, j->len, j->nonce,
                                           (uint32_t)j->counter, j->key);
        snprintf(who, sizeof(who), "libsodium chacha20-ietf vs portable");
        cmp("keystream xor", j->ref, j->out, j->len);
    }
#endif
    for (i = 0; i < nck; i++) {
        snprintf(who, sizeof(who), "chacha20=%s scalar_blocks=%u hybrid=%d inplace=%d",
                 ck[i]->name, j->scalar_blocks, j->hybrid, j->inplace);
        stream_run(j, ck[i], x, j->scalar_blocks, j->hybrid, j->out, 1);
        if (negative && i == 0 && j->len > 0)
            j->out[j->len - 1] ^= 0x10;
        cmp("keystream xor", j->out, j->ref, j->len);
    }
    if (x) {
        /* HChaCha20 of every kernel (the subkey: first 16 nonce bytes) */
        uint32_t kw[8], sub[8], want[8];
        uint8_t sb[32];

        key_words(j, kw);
        chacha_hchacha20(&chacha20_portable_kernel, want, kw, j->nonce);
#ifdef HAVE_LIBSODIUM
        crypto_core_hchacha20(sb, j->nonce, j->key, NULL);
        for (i = 0; i < 8; i++)
            sub[i] = chacha_load_le32(sb + 4 * i);
        snprintf(who, sizeof(who), "libsodium hchacha20 vs portable");
        cmp("subkey", (const uint8_t *)sub, (const uint8_t *)want, sizeof(want));
#else
        (void)sb;
#endif
        for (i = 0; i < nck; i++) {
            snprintf(who, sizeof(who), "hchacha20=%s", ck[i]->name);
            chacha_hchacha20(ck[i], sub, kw, j->nonce);
            cmp("subkey", (const uint8_t *)sub, (const uint8_t *)want, sizeof(want));
        }
    }
}

/* ---- Poly1305 ------------------------------------------------------------ */

static void do_poly(const job *j)
{
    static poly1305_ctx ctx;
    uint8_t want[16], tag[16];
    size_t i;

    prim_name = "Poly1305";
    poly1305_init(&ctx, &poly1305_portable_kernel, j->key);
    poly1305_update(&ctx, j->in, j->len);
    poly1305_final(&ctx, want);
#ifdef HAVE_LIBSODIUM
    crypto_onetimeauth_poly1305(tag, j->in, j->len, j->key);
    snprintf(who, sizeof(who), "libsodium vs portable");
    cmp("tag", want, tag, 16);
#endif
    for (i = 0; i < npk; i++) {
        snprintf(who, sizeof(who), "poly1305=%s", pk[i]->name);
        poly1305_init(&ctx, pk[i], j->key);
        FOR_PIECES(j, j->len, pos, n, poly1305_update(&ctx, j->in + pos, n));
        poly1305_final(&ctx, tag);
        if (negative && i == 0)
            tag[15] ^= 0x10;
        cmp("tag", tag, want, 16);
    }
}

/* ---- the AEADs ------------------------------------------------------------ */

static void aead_start(const job *j, chacha_aead *a, int x)
{
    if (x) {
        uint32_t kw[8];

        key_words(j, kw);
        chacha_xaead_set_key_nonce(a, kw, j->nonce);
        chacha_aead_reset(a);
    } else {
        uint32_t nw[3];
        int i;

        for (i = 0; i < 3; i++)
            nw[i] = chacha_load_le32(j->nonce + 4 * i);
        chacha_aead_set_key(a, j->key);
        chacha_aead_set_nonce(a, nw);
    }
}

/* One message through the core: AAD and text in pieces; out gets the text. */
static void aead_once(const job *j, chacha_aead *a, int x, int enc, const uint8_t *in,
                      uint8_t *out, uint8_t tag[16])
{
    const uint8_t *src = in;

    aead_start(j, a, x);
    FOR_PIECES(j, j->aadlen, pos, n,
               if (chacha_aead_aad(a, j->aad + pos, n) != CHACHA_AEAD_OK) {
                   fprintf(stderr, "%s: aad refused\n", who); abort(); });
    if (j->inplace) {
        memcpy(out, in, j->len);
        src = out;
    }
    FOR_PIECES(j, j->len, pos, n,
               if (chacha_aead_text(a, out + pos, src + pos, n, enc) != CHACHA_AEAD_OK) {
                   fprintf(stderr, "%s: text refused\n", who); abort(); });
    chacha_aead_tag(a, tag);
}

static void aead_check(const job *j, chacha_aead *a, int x, const uint8_t want_tag[16])
{
    uint8_t tag[16];

    aead_once(j, a, x, 1, j->in, j->out, tag);
    if (negative)
        tag[0] ^= 0x10;
    cmp("sealed text", j->out, j->ref, j->len);
    cmp("seal tag", tag, want_tag, 16);
    aead_once(j, a, x, 0, j->ref, j->out, tag);
    cmp("opened text", j->out, j->in, j->len);
    cmp("open tag", tag, want_tag, 16);
}

static void do_aead(const job *j, int x, unsigned int sel)
{
    static chacha_aead a;
    uint8_t want[16];
    size_t i;

    prim_name = x ? "XChaCha20-Poly1305" : "ChaCha20-Poly1305";
    /* reference: portable kernels, one call each */
    memset(&a, 0, sizeof(a));
    chacha_aead_setup(&a, &chacha20_portable_kernel, &poly1305_portable_kernel, NULL);
    aead_start(j, &a, x);
    chacha_aead_aad(&a, j->aad, j->aadlen);
    chacha_aead_text(&a, j->ref, j->in, j->len, 1);
    chacha_aead_tag(&a, want);
#ifdef HAVE_LIBSODIUM
    {
        uint8_t tag[16];
        unsigned long long tl;

        snprintf(who, sizeof(who), "libsodium vs portable");
        if (x)
            crypto_aead_xchacha20poly1305_ietf_encrypt_detached(
                j->out, tag, &tl, j->in, j->len, j->aad, j->aadlen, NULL, j->nonce, j->key);
        else
            crypto_aead_chacha20poly1305_ietf_encrypt_detached(
                j->out, tag, &tl, j->in, j->len, j->aad, j->aadlen, NULL, j->nonce, j->key);
        cmp("sealed text", j->ref, j->out, j->len);
        cmp("seal tag", want, tag, 16);
    }
#endif
    for (i = 0; i < nck; i++) {
        const poly1305_kernel *p = pk[(i + sel) % npk];

        snprintf(who, sizeof(who), "chacha20=%s poly1305=%s aead=two-step "
                 "scalar_blocks=%u hybrid=%d inplace=%d", ck[i]->name, p->name,
                 j->scalar_blocks, j->hybrid, j->inplace);
        chacha_aead_setup(&a, ck[i], p, NULL);
        chacha_aead_set_short_rule(&a, j->scalar_blocks, j->hybrid);
        aead_check(j, &a, x, want);
    }
    for (i = 0; i < nfk; i++) {
        snprintf(who, sizeof(who), "aead=%s%s scalar_blocks=%u hybrid=%d inplace=%d",
                 fk[i].name, fk[i].min_len[1] <= 64 ? " (min_len lowered)" : "",
                 j->scalar_blocks, j->hybrid, j->inplace);
        chacha_aead_setup(&a, fk[i].chacha, fk[i].poly, &fk[i]);
        chacha_aead_set_short_rule(&a, j->scalar_blocks, j->hybrid);
        aead_check(j, &a, x, want);
    }
    chacha_wipe(&a, sizeof(a));
}

static void add_fused(int set, const chacha20_poly1305_kernel *f)
{
    if (nfks[set] + 2 > 2 * MAXK)
        return;
    fks[set][nfks[set]++] = *f;
    fks[set][nfks[set]] = *f;
    fks[set][nfks[set]].min_len[0] = fks[set][nfks[set]].min_len[1] = 64;
    nfks[set]++;
}

/* ------------------------------------------------------------------------ */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    unsigned int caps = chacha_cpu_caps();
    size_t i;
    int set;

    (void)argc;
    (void)argv;
#ifdef HAVE_LIBSODIUM
    if (sodium_init() < 0) {
        fprintf(stderr, "fuzz_core: sodium_init failed\n");
        exit(2);
    }
#endif
    for (set = 0; set < 2; set++) {
        for (i = 0; chacha20_kernels[i] != NULL; i++)
            if ((chacha20_kernels[i]->caps & ~caps) == 0 && ncks[set] < MAXK)
                cks[set][ncks[set]++] = chacha20_kernels[i];
        for (i = 0; poly1305_kernels[i] != NULL; i++)
            if ((poly1305_kernels[i]->caps & ~caps) == 0 && npks[set] < MAXK)
                pks[set][npks[set]++] = poly1305_kernels[i];
        for (i = 0; chacha20_poly1305_kernels[i] != NULL; i++)
            if ((chacha20_poly1305_kernels[i]->caps & ~caps) == 0)
                add_fused(set, chacha20_poly1305_kernels[i]);
    }
    for (i = 0; emu_chacha20_kernels[i] != NULL && ncks[0] < MAXK; i++)
        cks[0][ncks[0]++] = emu_chacha20_kernels[i];
    for (i = 0; emu_poly1305_kernels[i] != NULL && npks[0] < MAXK; i++)
        pks[0][npks[0]++] = emu_poly1305_kernels[i];
    for (i = 0; emu_fused_kernels[i] != NULL; i++)
        add_fused(0, emu_fused_kernels[i]);
    emu_always = strcmp(cks[1][0]->name, "avx512") != 0;
    negative = getenv("FUZZ_CORE_NEGATIVE") != NULL
               && strcmp(getenv("FUZZ_CORE_NEGATIVE"), "1") == 0;
    fprintf(stderr, "fuzz_core: chacha20:");
    for (i = 0; i < ncks[0]; i++)
        fprintf(stderr, " %s%s", cks[0][i]->name, i >= ncks[1] ? "(emulated)" : "");
    fprintf(stderr, "; poly1305:");
    for (i = 0; i < npks[0]; i++)
        fprintf(stderr, " %s%s", pks[0][i]->name, i >= npks[1] ? "(emulated)" : "");
    fprintf(stderr, "; fused:");
    for (i = 0; i < nfks[0]; i += 2)
        fprintf(stderr, " %s%s", fks[0][i].name, i >= nfks[1] ? "(emulated)" : "");
    fprintf(stderr, "; emulated kernels on %s inputs%s\n", emu_always ? "all" : "1/64 of the",
#ifdef HAVE_LIBSODIUM
            ""
#else
            "; no libsodium: portable is the only reference"
#endif
            );
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = { data, size };
    uint8_t b0 = rd8(&r), b1 = rd8(&r), b2 = rd8(&r), sel = rd8(&r);
    unsigned int prim = b0 & 7;
    uint64_t seed;
    job j;
    size_t i;
    int set;

    if (prim > 4)
        prim -= 3;     /* 5..7 -> the AEADs and XChaCha20 once more */
    memset(&j, 0, sizeof(j));
    j.scalar_blocks = b1 % 5;
    j.hybrid = (b1 >> 3) & 1 ? 1 + ((b1 >> 5) & 1) : 0;   /* off, on, pairs */
    j.inplace = (b1 >> 4) & 1;
    rdbytes(&r, j.key, 32);
    rdbytes(&r, j.nonce, prim >= 3 ? 24 : 12);
    /* the counter: the input's, or steered to the 32- and 64-bit wraps */
    j.counter = rd16(&r) | (uint64_t)rd16(&r) << 16;
    switch (b2 & 3) {
    case 1: j.counter = 0xffffffffULL - (b2 >> 2); break;
    case 2: if (prim == 3) j.counter = UINT64_MAX - (b2 >> 2); break;
    case 3: if (prim == 3) j.counter |= (uint64_t)rd16(&r) << 48; break;
    default: break;
    }
    j.ncut = rd8(&r) % (MAXCUTS + 1);
    for (i = 0; i < j.ncut; i++)
        j.cut[i] = rd16(&r);
    if (prim == 2 || prim == 4)
        j.aadlen = rd16(&r) % (MAXAAD + 1);
    if ((b1 & 0xe0) == 0xe0 && (sel & 3) == 0)
        j.len = rd16(&r) % (MAXTEXT + 1);   /* 1 in 32: long text, PRNG-filled */
    else
        j.len = r.n > j.aadlen ? r.n - j.aadlen : 0;
    if (j.len > MAXTEXT)
        j.len = MAXTEXT;
    j.aad = malloc(j.aadlen ? j.aadlen : 1);
    j.in = malloc(j.len ? j.len : 1);
    j.out = malloc(j.len ? j.len : 1);
    j.ref = malloc(j.len ? j.len : 1);
    if (j.aad == NULL || j.in == NULL || j.out == NULL || j.ref == NULL)
        abort();
    seed = chacha_load_le32(j.key) ^ (uint64_t)size << 32;
    fill(&r, j.aad, j.aadlen, seed);
    fill(&r, j.in, j.len, ~seed);
    set = emu_always || (sel & 0xfc) == 0 ? 0 : 1;
    ck = cks[set], pk = pks[set], fk = fks[set];
    nck = ncks[set], npk = npks[set], nfk = nfks[set];
    switch (prim) {
    case 0: do_stream(&j, 0); break;
    case 1: do_poly(&j); break;
    case 2: do_aead(&j, 0, sel); break;
    case 3: do_stream(&j, 1); break;
    default: do_aead(&j, 1, sel); break;
    }
    free(j.aad);
    free(j.in);
    free(j.out);
    free(j.ref);
    return 0;
}
