/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The path rule (core/shortpath.c): calls of at most scalar_blocks blocks
 * run the portable kernel, HChaCha20 too when scalar_blocks >= 1, and the
 * others the kernel's hybrid entry when hybrid is on. For every ChaCha20
 * kernel this CPU runs (and the emulated AVX-512 one), every scalar_blocks
 * 0..CHACHA_SCALAR_BLOCKS_MAX and hybrid off and on, through the cores the
 * provider uses (chacha20_stream, the AEAD, XChaCha20):
 *  - the stream at every length 0..2048, in one call and in two pieces
 *    split at a random point, against the portable kernel's keystream;
 *  - the AEAD sealed at every length 0..2048 (13 bytes of AAD) against the
 *    same core on the portable kernel, ciphertext and tag;
 *  - XChaCha20's subkey against the portable HChaCha20;
 *  - which entry ran: the kernel under test is wrapped by a counting copy
 *    (one count per entry), and a call of n blocks must reach it exactly
 *    when n > scalar_blocks, through the hybrid entry exactly when hybrid
 *    is on and the kernel has one (so a rule that is ignored, or applied
 *    to the wrong lengths or entry, fails).
 * Then the rule itself: forced values are taken as given, anything else is
 * refused; auto gives 0..4 from "model" (with its measurements) or
 * "static", and the portable kernel is never given a scalar path.
 * Usage: test_shortpath   (seed from SHORTPATH_TEST_SEED if set)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "registry.h"
#include "cpu.h"
#include "aead.h"
#include "xchacha.h"
#include "shortpath.h"
#include "kernel.h"
#include "util.h"
#include "testrng.h"
#include "tu_check.h"
#include "emu_kernels.h"

#define MAXLEN 2048


static void check(int ok, const char *kname, unsigned int sb, const char *what,
                  size_t len)
{
    if (tu_count(ok))
        printf("FAIL %s scalar_blocks=%u: %s at %zu bytes\n", kname, sb, what, len);
}

/* The kernel under test, behind a wrapper that counts its calls. */
static const chacha20_kernel *under_test;
static unsigned long kernel_calls, hybrid_calls, pairs_calls;

static void counting_xor(uint8_t *out, const uint8_t *in, size_t len,
                         const uint32_t key[8], const uint32_t counter[4])
{
    kernel_calls++;
    under_test->xor_stream(out, in, len, key, counter);
}

static void counting_xor_hybrid(uint8_t *out, const uint8_t *in, size_t len,
                                const uint32_t key[8], const uint32_t counter[4])
{
    kernel_calls++;
    hybrid_calls++;
    under_test->xor_stream_hybrid(out, in, len, key, counter);
}

static void counting_xor_pairs(uint8_t *out, const uint8_t *in, size_t len,
                               const uint32_t key[8], const uint32_t counter[4])
{
    kernel_calls++;
    pairs_calls++;
    under_test->xor_stream_pairs(out, in, len, key, counter);
}

static void counting_hchacha(uint32_t out[8], const uint32_t key[8],
                             const uint32_t in[4])
{
    hchacha20_fn *h = under_test->hchacha20 != NULL
                      ? under_test->hchacha20 : chacha20_portable_kernel.hchacha20;

    kernel_calls++;
    h(out, key, in);
}

static uint8_t in[MAXLEN + 64], got[MAXLEN + 64], want[MAXLEN + 64];
static unsigned long made_ahead, used_ahead;   /* blocks made ahead, and used */

/* a piece of a stream: 1..80 bytes, often 16 or 64 */
static size_t piece_len(void)
{
    switch (rng() % 4) {
    case 0:
        return 16;
    case 1:
        return 64;
    default:
        return 1 + (size_t)(rng() % 80);
    }
}

static void stream_suite(const chacha20_kernel *wrapped, const char *kname,
                         unsigned int sb, int hy)
{
    size_t len;

    for (len = 0; len <= MAXLEN; len++) {
        chacha20_stream cs;
        uint8_t key[32], iv[16];
        uint32_t ctr[4];
        size_t cut, blocks = (len + 63) / 64;
        int i;

        memset(&cs, 0, sizeof(cs));
        rng_bytes(key, sizeof(key));
        rng_bytes(iv, sizeof(iv));
        iv[3] = 0;                  /* no 32-bit counter wrap in this test */
        rng_bytes(in, len);
        chacha20_stream_set_kernel(&cs, wrapped, sb, hy);
        chacha20_stream_set_key(&cs, key);
        chacha20_stream_set_iv(&cs, iv);
        for (i = 0; i < 4; i++)
            ctr[i] = (uint32_t)iv[4 * i] | (uint32_t)iv[4 * i + 1] << 8
                     | (uint32_t)iv[4 * i + 2] << 16 | (uint32_t)iv[4 * i + 3] << 24;
        chacha20_portable_kernel.xor_stream(want, in, len, cs.key, ctr);

        kernel_calls = hybrid_calls = pairs_calls = 0;
        chacha20_stream_xor(&cs, got, in, len);
        check(memcmp(got, want, len) == 0, kname, sb, "stream, one call", len);
        /* one call of n blocks (a short one is made whole, 1 block) */
        check(len == 0 || (kernel_calls != 0) == ((blocks > sb) ? 1 : 0), kname,
              sb, "kernel reached iff blocks > scalar_blocks", len);
        /* hybrid 2 takes the paired passes, or the hybrid entry without them */
        check(hybrid_calls == ((hy == 1 || (hy == 2 && wrapped->xor_stream_pairs == NULL))
                               && wrapped->xor_stream_hybrid != NULL ? kernel_calls : 0),
              kname, sb, "the hybrid entry iff hybrid", len);
        check(pairs_calls == (hy == 2 && wrapped->xor_stream_pairs != NULL ? kernel_calls : 0),
              kname, sb, "the paired passes iff hybrid 2", len);

        /* two pieces, split anywhere: partial blocks and the kept keystream */
        cut = len == 0 ? 0 : (size_t)(rng() % (len + 1));
        chacha20_stream_set_iv(&cs, iv);
        chacha20_stream_xor(&cs, got, in, cut);
        chacha20_stream_xor(&cs, got + cut, in + cut, len - cut);
        check(memcmp(got, want, len) == 0, kname, sb, "stream, two pieces", len);

        /*
         * Many pieces, with a block made ahead wherever the stream makes one
         * (forced on with scalar_blocks 0, whatever the kernel's flag: the
         * logic is the stream's); the IV read back after each piece; then,
         * with a block made ahead (or not), the IV set again and the first
         * 64 bytes made again, and the key set again on a block boundary.
         */
        chacha20_stream_set_iv(&cs, iv);
        cs.make_ahead = sb == 0;
        for (cut = 0; cut < len; ) {
            size_t n = piece_len();
            uint8_t civ[16];
            uint32_t blk;
            unsigned int had = cs.ahead;

            if (n > len - cut)
                n = len - cut;
            chacha20_stream_xor(&cs, got + cut, in + cut, n);
            cut += n;
            made_ahead += cs.ahead && !had;
            used_ahead += had && !cs.ahead;
            chacha20_stream_get_iv(&cs, civ);
            blk = (uint32_t)civ[0] | (uint32_t)civ[1] << 8 | (uint32_t)civ[2] << 16
                  | (uint32_t)civ[3] << 24;
            check(blk == ctr[0] + (uint32_t)((cut + 63) / 64)
                  && memcmp(civ + 4, iv + 4, 12) == 0, kname, sb,
                  "IV read back after a piece (a block made ahead is not counted)",
                  cut);
        }
        check(memcmp(got, want, len) == 0, kname, sb, "stream, many pieces", len);
        if (len >= 128) {
            size_t j;
            int same = 1;

            chacha20_stream_set_iv(&cs, iv);
            check(!cs.ahead && !cs.ks_valid, kname, sb,
                  "the IV set: no kept keystream survives", len);
            chacha20_stream_xor(&cs, got, in, 64);
            chacha20_stream_xor(&cs, got + 64, in + 64, 16);   /* may make one ahead */
            check(memcmp(got, want, 80) == 0, kname, sb,
                  "the IV set again after pieces: the first 80 bytes again", len);
            /* OpenSSL's key-only re-init mid-block: block 1 starts again */
            chacha20_stream_set_key(&cs, key);
            check(!cs.ahead, kname, sb, "the key set: no block made ahead survives", len);
            chacha20_stream_xor(&cs, got + 80, in + 80, 48);
            for (j = 0; j < 48; j++)
                same &= (got[80 + j] ^ in[80 + j]) == (want[64 + j] ^ in[64 + j]);
            check(same, kname, sb, "the key set again mid-block restarts the block", len);
            chacha20_stream_set_iv(&cs, iv);
            chacha20_stream_xor(&cs, got, in, len);
            check(memcmp(got, want, len) == 0, kname, sb,
                  "the IV set again after pieces", len);
        }
        chacha_wipe(&cs, sizeof(cs));
    }
}

/*
 * The reference for a stream whose 32-bit block counter wraps: block by
 * block on the portable kernel, carrying into counter word 1 as OpenSSL.
 */
static void ref_stream(uint8_t *out, const uint8_t *src, size_t len,
                       const uint32_t key[8], const uint32_t counter[4])
{
    uint32_t c[4] = { counter[0], counter[1], counter[2], counter[3] };
    size_t off;

    for (off = 0; off < len; off += 64) {
        chacha20_portable_kernel.xor_stream(out + off, src + off,
                                            len - off < 64 ? len - off : 64, key, c);
        if (++c[0] == 0)
            c[1]++;
    }
}

/* pieces of 1..80 bytes over len bytes of cs, into got */
static void stream_pieces(chacha20_stream *cs, size_t from, size_t len)
{
    size_t cut, n;

    for (cut = from; cut < len; cut += n) {
        unsigned int had = cs->ahead;

        n = piece_len();
        if (n > len - cut)
            n = len - cut;
        chacha20_stream_xor(cs, got + cut, in + cut, n);
        made_ahead += cs->ahead && !had;
        used_ahead += had && !cs->ahead;
    }
}

/*
 * With a block made ahead forced on (scalar_blocks 0): the stream across the
 * 32-bit counter wrap (block counter 0xffffffff - 3 .. 0xffffffff), and
 * XChaCha20's rekey (new key words, chacha20_stream_key_changed()) in the
 * middle of pieces, where a block made ahead with the old key may wait.
 */
static void ahead_suite(const chacha20_kernel *wrapped, const char *kname, int hy)
{
    int i;

    for (i = 0; i < 64; i++) {
        chacha20_stream cs;
        uint8_t key[32], iv[16], newkey[32];
        uint32_t ctr[4], nk[8];
        size_t len = 64 + (size_t)(rng() % 512), cut = (size_t)(rng() % len), j;
        int w;

        memset(&cs, 0, sizeof(cs));
        rng_bytes(key, sizeof(key));
        rng_bytes(iv, sizeof(iv));
        rng_bytes(in, len);
        iv[0] = (uint8_t)(0xff - (i & 3));
        iv[1] = iv[2] = iv[3] = 0xff;
        for (w = 0; w < 4; w++)
            ctr[w] = chacha_load_le32(iv + 4 * w);
        chacha20_stream_set_kernel(&cs, wrapped, 0, hy);
        cs.make_ahead = 1;
        chacha20_stream_set_key(&cs, key);
        chacha20_stream_set_iv(&cs, iv);
        ref_stream(want, in, len, cs.key, ctr);
        stream_pieces(&cs, 0, len);
        check(memcmp(got, want, len) == 0, kname, 0,
              "pieces across the 32-bit counter wrap, blocks made ahead", len);

        /* the rekey: pieces to cut, new key words, pieces to the end */
        chacha20_stream_set_iv(&cs, iv);
        stream_pieces(&cs, 0, cut);
        rng_bytes(newkey, sizeof(newkey));
        for (w = 0; w < 8; w++)
            nk[w] = chacha_load_le32(newkey + 4 * w);
        memcpy(cs.key, nk, sizeof(nk));
        chacha20_stream_key_changed(&cs);
        check(!cs.ahead && !cs.ks_valid, kname, 0,
              "the key words changed: no kept keystream survives", cut);
        stream_pieces(&cs, cut, len);
        ref_stream(want, in, len, nk, ctr);
        for (j = cut; j < len && got[j] == want[j]; j++)
            ;
        check(j == len, kname, 0, "pieces after a rekey run on the new key", cut);
        chacha_wipe(&cs, sizeof(cs));
    }
}

static void aead_seal(const chacha20_kernel *k, unsigned int sb, int hy,
                      const uint8_t key[32], const uint32_t nonce[3],
                      const uint8_t *aad, size_t len, uint8_t *out,
                      uint8_t tag[16])
{
    chacha_aead a;

    memset(&a, 0, sizeof(a));
    chacha_aead_setup(&a, k, &poly1305_portable_kernel, NULL);
    chacha_aead_set_short_rule(&a, sb, hy);
    chacha_aead_set_key(&a, key);
    chacha_aead_set_nonce(&a, nonce);
    chacha_aead_aad(&a, aad, 13);
    chacha_aead_text(&a, out, in, len, 1);
    chacha_aead_tag(&a, tag);
    chacha_wipe(&a, sizeof(a));
}

static void aead_suite(const chacha20_kernel *wrapped, const char *kname,
                       unsigned int sb, int hy)
{
    size_t len;

    for (len = 0; len <= MAXLEN; len++) {
        uint8_t key[32], aad[13], t1[16], t2[16];
        uint32_t nonce[3];

        rng_bytes(key, sizeof(key));
        rng_bytes(aad, sizeof(aad));
        rng_bytes((uint8_t *)nonce, sizeof(nonce));
        rng_bytes(in, len);
        aead_seal(&chacha20_portable_kernel, 0, 0, key, nonce, aad, len, want, t1);
        aead_seal(wrapped, sb, hy, key, nonce, aad, len, got, t2);
        check(memcmp(got, want, len) == 0 && memcmp(t1, t2, 16) == 0, kname,
              sb, "AEAD seal", len);
        if (sb == 0 && len % 61 == 0) {
            /* the text in pieces, blocks made ahead forced on, as bulk Updates */
            chacha_aead a;
            size_t cut, n;

            memset(&a, 0, sizeof(a));
            chacha_aead_setup(&a, wrapped, &poly1305_portable_kernel, NULL);
            chacha_aead_set_short_rule(&a, 0, hy);
            a.cs.make_ahead = 1;
            chacha_aead_set_key(&a, key);
            chacha_aead_set_nonce(&a, nonce);
            chacha_aead_aad(&a, aad, 13);
            for (cut = 0; cut < len; cut += n) {
                unsigned int had = a.cs.ahead;

                n = piece_len();
                if (n > len - cut)
                    n = len - cut;
                chacha_aead_text(&a, got + cut, in + cut, n, 1);
                made_ahead += a.cs.ahead && !had;
                used_ahead += had && !a.cs.ahead;
            }
            chacha_aead_tag(&a, t2);
            check(memcmp(got, want, len) == 0 && memcmp(t1, t2, 16) == 0, kname,
                  sb, "AEAD seal in pieces, blocks made ahead", len);
            check(!a.cs.ahead && !a.cs.ks_valid, kname, sb,
                  "no keystream kept past the AEAD tag", len);
            chacha_wipe(&a, sizeof(a));
        }
    }
}

static void xchacha_suite(const chacha20_kernel *wrapped, const char *kname,
                          unsigned int sb, int hy)
{
    int i;

    for (i = 0; i < 64; i++) {
        chacha20_stream cs, ref;
        uint32_t key[8];
        uint8_t nonce[CHACHA_XNONCE_LEN];

        memset(&cs, 0, sizeof(cs));
        memset(&ref, 0, sizeof(ref));
        rng_bytes((uint8_t *)key, sizeof(key));
        rng_bytes(nonce, sizeof(nonce));
        chacha20_stream_set_kernel(&cs, wrapped, sb, hy);
        chacha20_stream_set_kernel(&ref, &chacha20_portable_kernel, 0, 0);
        kernel_calls = 0;
        chacha_xchacha20_start(&cs, key, nonce, 0);
        chacha_xchacha20_start(&ref, key, nonce, 0);
        check(memcmp(cs.key, ref.key, sizeof(cs.key)) == 0, kname, sb,
              "XChaCha20 subkey", 0);
        check((kernel_calls != 0) == (sb == 0), kname, sb,
              "HChaCha20 on the kernel iff scalar_blocks == 0", 0);
    }
}

static void run_kernel(const chacha20_kernel *k, const char *how)
{
    chacha20_kernel wrapped = *k;
    unsigned long before = n_fail, runs = n_pass;
    unsigned int sb;
    int hy;

    under_test = k;
    wrapped.xor_stream = counting_xor;
    if (k->xor_stream_hybrid != NULL)
        wrapped.xor_stream_hybrid = counting_xor_hybrid;
    if (k->xor_stream_pairs != NULL)
        wrapped.xor_stream_pairs = counting_xor_pairs;
    wrapped.hchacha20 = counting_hchacha;
    for (hy = 0; hy <= 2; hy++)
        for (sb = 0; sb <= CHACHA_SCALAR_BLOCKS_MAX; sb++) {
            stream_suite(&wrapped, k->name, sb, hy);
            aead_suite(&wrapped, k->name, sb, hy);
            xchacha_suite(&wrapped, k->name, sb, hy);
        }
    for (hy = 0; hy <= 2; hy++)
        ahead_suite(&wrapped, k->name, hy);
    check(made_ahead > 0 && used_ahead > 0, k->name, 0,
          "blocks made ahead and used in the many-pieces runs", 0);
    printf("run: kernel %s (%s%s%s), scalar_blocks 0..%d, hybrid off/on/pairs, lengths 0..%d:"
           " %lu checks, %lu blocks made ahead, %lu of them used, %s\n", k->name, how,
           k->xor_stream_hybrid != NULL ? ", with its hybrid entry" : "",
           k->xor_stream_pairs != NULL ? " and paired passes" : "",
           CHACHA_SCALAR_BLOCKS_MAX, MAXLEN, n_pass - runs, made_ahead, used_ahead,
           n_fail == before ? "ok" : "FAILED");
    made_ahead = used_ahead = 0;
}

static void rule_suite(void)
{
    static const char *const bad[] = { "5", "-1", "x", "1x", " 1", "99999999999" };
    static const char *const bad_hybrid[] = { "1", "yes", "On", " on", "onx" };
    chacha_short_rule r;
    char desc[256], n[4];
    size_t i;
    unsigned int sb;

    for (i = 0; chacha20_kernels[i] != NULL; i++) {
        const chacha20_kernel *k = chacha20_kernels[i];

        for (sb = 0; sb <= CHACHA_SCALAR_BLOCKS_MAX; sb++) {
            snprintf(n, sizeof(n), "%u", sb);
            check(chacha_short_rule_choose(k, n, "on", &r) && r.scalar_blocks == sb
                  && strcmp(r.source, "forced") == 0
                  && r.hybrid == (k->xor_stream_hybrid != NULL), k->name, sb,
                  "forced rule (hybrid on)", 0);
            check(chacha_short_rule_choose(k, n, "pairs", &r) && r.scalar_blocks == sb
                  && strcmp(r.hybrid_source, "forced") == 0
                  && r.hybrid == (k->xor_stream_hybrid == NULL ? 0
                                  : k->xor_stream_pairs != NULL ? 2 : 1), k->name, sb,
                  "forced rule (hybrid pairs: what the kernel has of it)", 0);
            check(chacha_short_rule_choose(k, n, "off", &r) && r.scalar_blocks == sb
                  && !r.hybrid && strcmp(r.hybrid_source, "forced") == 0, k->name,
                  sb, "forced rule (hybrid off)", 0);
        }
        for (sb = 0; sb < sizeof(bad) / sizeof(bad[0]); sb++)
            check(!chacha_short_rule_choose(k, bad[sb], NULL, &r), k->name, 0,
                  "a bad scalar_blocks refused", sb);
        for (sb = 0; sb < sizeof(bad_hybrid) / sizeof(bad_hybrid[0]); sb++)
            check(!chacha_short_rule_choose(k, NULL, bad_hybrid[sb], &r), k->name, 0,
                  "a bad hybrid refused", sb);
        check(chacha_short_rule_choose(k, "auto", "auto", &r)
              && chacha_short_rule_choose(k, NULL, NULL, &r)
              && r.scalar_blocks <= CHACHA_SCALAR_BLOCKS_MAX
              && (!r.hybrid || k->xor_stream_hybrid != NULL), k->name, r.scalar_blocks,
              "auto rule", 0);
        if (k == &chacha20_portable_kernel)
            check(r.scalar_blocks == 0, k->name, r.scalar_blocks,
                  "no scalar path for the scalar kernel", 0);
        else if (chacha_caps_ok(k->caps) && k->row_steps != 0)
            check(strcmp(r.source, "model") == 0 || strcmp(r.source, "static") == 0,
                  k->name, r.scalar_blocks, "auto rule from the model or static", 0);
        else if (k->row_steps != 0)    /* a kernel this CPU lacks: not probed */
            check(strcmp(r.source, "static") == 0 && r.step_cycles == 0, k->name,
                  r.scalar_blocks, "a kernel this CPU lacks is not probed (static rule)", 0);
        else if (k->row_steps == 0)    /* nothing to weigh (neon): no scalar path */
            check(r.scalar_blocks == 0 && strcmp(r.source, "none") == 0, k->name,
                  r.scalar_blocks, "no model, no scalar path", 0);
        if (k->xor_stream_hybrid != NULL && k->hybrid_race != 0
            && strcmp(r.source, "model") == 0)
            /* a raced entry: the faster one, by the measured ratio */
            check(strcmp(r.hybrid_source, "race") == 0 && r.race_ratio >= 0.25
                  && r.race_ratio <= 4 && (r.hybrid != 0) == (r.race_ratio < 31.0 / 32.0),
                  k->name, r.scalar_blocks, "hybrid entry chosen by the race", 0);
        else if (k->xor_stream_hybrid != NULL && strcmp(r.source, "model") == 0)
            check(strcmp(r.hybrid_source, "model") == 0 && r.race_ratio == 0
                  && (r.hybrid != 0) == (r.step_cycles >= 1.5), k->name, r.scalar_blocks,
                  "hybrid entry chosen by the model", 0);
        /*
         * the paired passes: on the hybrid choice, where L W says a pass is
         * bound by its chains and the pairs won their race at load; the race
         * runs only there
         */
        check(r.hybrid != 2
              || (k->xor_stream_pairs != NULL && strcmp(r.source, "model") == 0
                  && r.step_cycles * r.width > CHACHA_PAIRS_MIN_LW
                  && r.pairs_race > 0 && r.pairs_race < CHACHA_PAIRS_WIN),
              k->name, r.scalar_blocks, "paired passes only by the model's L W and the race", 0);
        check(r.pairs_race == 0
              || (k->xor_stream_pairs != NULL && r.step_cycles * r.width > CHACHA_PAIRS_MIN_LW
                  && r.pairs_race >= 0.25 && r.pairs_race <= 4),
              k->name, r.scalar_blocks, "the pairs raced only where L W says a pass is chain-bound", 0);
        if (r.hybrid != 0 && k->xor_stream_pairs != NULL && strcmp(r.source, "model") == 0)
            check((r.hybrid == 2) == (r.step_cycles * r.width > CHACHA_PAIRS_MIN_LW
                                      && r.pairs_race > 0 && r.pairs_race < CHACHA_PAIRS_WIN)
                  && r.width > 0, k->name, r.scalar_blocks,
                  "paired passes where L W passes CHACHA_PAIRS_MIN_LW and the pairs win", 0);
        chacha_short_rule_describe(&r, desc, sizeof(desc));
        printf("rule: kernel %s, auto: %s\n", k->name, desc);
    }
}

int main(void)
{
    const char *seed = getenv("SHORTPATH_TEST_SEED");
    size_t i;
    int ran = 0;

    if (seed != NULL)
        rng_state = strtoull(seed, NULL, 0);
    if (TEST_NATIVE_KERNELS)
        rule_suite();
    for (i = 0; TEST_NATIVE_KERNELS && chacha20_kernels[i] != NULL; i++) {
        const chacha20_kernel *k = chacha20_kernels[i];

        if (!chacha_caps_ok(k->caps)) {
            printf("skip: kernel %s: not supported by this CPU\n", k->name);
            continue;
        }
        run_kernel(k, "native");
        ran++;
    }
    for (i = 0; emu_chacha20_kernels[i] != NULL; i++) {
        run_kernel(emu_chacha20_kernels[i], "emulated");
        ran++;
    }
    printf("# %d kernels\n", ran);
    return tu_summary("test_shortpath") == 0 && ran > 0 ? 0 : 1;
}
