/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Poly1305 kernel tests: RFC 8439 and OpenSSL vectors, reduction edge cases
 * built with a bignum model, and every usable kernel against the portable one
 * on every length 0..4096 with random chunking through poly1305_update(),
 * the emulated AVX-512 kernels (emu_kernels.h) among them on any CPU.
 * Usage: test_poly1305_kernels [vectors-dir]   (default: $srcdir/test/vectors)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include "poly1305_stream.h"
#include "registry.h"
#include "cpu.h"
#include "testrng.h"
#include "tu_check.h"
#include "emu_kernels.h"

#define MAX_LEN 4096

static const poly1305_kernel *impls[16];
static const char *labels[16];   /* name (native) or name (emulated) */
static size_t n_impls;

static void check(int ok, const char *impl, const char *what, size_t detail)
{
    if (tu_count(ok))
        fprintf(stderr, "FAIL [%s] %s (%zu)\n", impl, what, detail);
}

/* a check of the reference itself (the model, OpenSSL, the vector file):
 * in the native build only, the emulated one compares its kernels with it */
#define check_ref(...) do { if (TEST_NATIVE_KERNELS) check(__VA_ARGS__); } while (0)


static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decode hex into a fresh buffer (at least 1 byte); -1 on bad input. */
static long unhex(const char *s, uint8_t **out)
{
    size_t n = strlen(s), i;
    uint8_t *b;

    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
        n--;
    if (n % 2 != 0 || (b = malloc(n / 2 + 1)) == NULL)
        return -1;
    for (i = 0; i < n / 2; i++) {
        int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);

        if (hi < 0 || lo < 0) {
            free(b);
            return -1;
        }
        b[i] = (uint8_t)(hi << 4 | lo);
    }
    *out = b;
    return (long)(n / 2);
}

/* One-shot MAC through the streaming front end. */
static void mac_oneshot(const poly1305_kernel *impl, const uint8_t key[32],
                        const uint8_t *msg, size_t len, uint8_t tag[16])
{
    poly1305_ctx ctx;

    poly1305_init(&ctx, impl, key);
    poly1305_update(&ctx, msg, len);
    poly1305_final(&ctx, tag);
}

/* Same MAC fed in random-sized pieces (including empty ones). */
static void mac_chunked(const poly1305_kernel *impl, const uint8_t key[32],
                        const uint8_t *msg, size_t len, uint8_t tag[16])
{
    poly1305_ctx ctx;
    size_t off = 0;

    poly1305_init(&ctx, impl, key);
    while (off < len) {
        size_t n, r = rng();

        switch (r % 4) {
        case 0: n = (r >> 8) % 17; break;          /* tiny, often 0..16 */
        case 1: n = (r >> 8) % 80; break;          /* around block sizes */
        case 2: n = 16 * ((r >> 8) % 24); break;   /* whole blocks */
        default: n = (r >> 8) % 1100; break;       /* long runs */
        }
        if (n > len - off)
            n = len - off;
        poly1305_update(&ctx, msg + off, n);
        off += n;
    }
    poly1305_final(&ctx, tag);
}

/* OpenSSL's own Poly1305, used as an independent oracle. */
static int mac_openssl(const uint8_t key[32], const uint8_t *msg, size_t len,
                       uint8_t tag[16])
{
    static EVP_MAC *mac;
    EVP_MAC_CTX *ctx;
    OSSL_PARAM params[2];
    size_t outl = 0;
    int ok;

    if (mac == NULL && (mac = EVP_MAC_fetch(NULL, "POLY1305", NULL)) == NULL)
        return 0;
    if ((ctx = EVP_MAC_CTX_new(mac)) == NULL)
        return 0;
    params[0] = OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_KEY,
                                                  (void *)key, 32);
    params[1] = OSSL_PARAM_construct_end();
    ok = EVP_MAC_init(ctx, NULL, 0, params)
         && EVP_MAC_update(ctx, msg, len)
         && EVP_MAC_final(ctx, tag, &outl, 16) && outl == 16;
    EVP_MAC_CTX_free(ctx);
    return ok;
}

/* Check every usable kernel (one-shot, chunked, misaligned) against want. */
static void check_all(const char *what, const uint8_t key[32],
                      const uint8_t *msg, size_t len, const uint8_t want[16])
{
    static uint8_t shifted[MAX_LEN + 64];
    uint8_t tag[16];
    size_t i;

    for (i = 0; i < n_impls; i++) {
        mac_oneshot(impls[i], key, msg, len, tag);
        check(memcmp(tag, want, 16) == 0, labels[i], what, len);
        mac_chunked(impls[i], key, msg, len, tag);
        check(memcmp(tag, want, 16) == 0, labels[i], what, len);
        if (len <= MAX_LEN) {
            size_t sh = 1 + rng() % 15;

            memcpy(shifted + sh, msg, len);
            mac_oneshot(impls[i], key, shifted + sh, len, tag);
            check(memcmp(tag, want, 16) == 0, labels[i], what, len);
        }
    }
}

/* RFC 8439 A.3 vectors #2 and #3: the same 375-byte message */
#define IETF_TEXT \
    "416e79207375626d697373696f6e20746f20746865204945544620696e74656e" \
    "6465642062792074686520436f6e7472696275746f7220666f72207075626c69" \
    "636174696f6e20617320616c6c206f722070617274206f6620616e2049455446" \
    "20496e7465726e65742d4472616674206f722052464320616e6420616e792073" \
    "746174656d656e74206d6164652077697468696e2074686520636f6e74657874" \
    "206f6620616e204945544620616374697669747920697320636f6e7369646572" \
    "656420616e20224945544620436f6e747269627574696f6e222e205375636820" \
    "73746174656d656e747320696e636c756465206f72616c2073746174656d656e" \
    "747320696e20494554462073657373696f6e732c2061732077656c6c20617320" \
    "7772697474656e20616e6420656c656374726f6e696320636f6d6d756e696361" \
    "74696f6e73206d61646520617420616e792074696d65206f7220706c6163652c" \
    "207768696368206172652061646472657373656420746f"

/* RFC 8439 section 2.5.2 and appendix A.3 #1-11 (from rfc8439_vectors.json) */
static const struct {
    const char *id, *key, *msg, *tag;
} rfc_vectors[] = {
    { "rfc8439-2.5.2",
      "85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b",
      "43727970746f6772617068696320466f72756d2052657365617263682047726f"
      "7570",
      "a8061dc1305136c6c22b8baf0c0127a9" },
    { "rfc8439-A.3-1",
      "0000000000000000000000000000000000000000000000000000000000000000",
      "0000000000000000000000000000000000000000000000000000000000000000"
      "0000000000000000000000000000000000000000000000000000000000000000",
      "00000000000000000000000000000000" },
    { "rfc8439-A.3-2",
      "0000000000000000000000000000000036e5f6b5c5e06070f0efca96227a863e",
      IETF_TEXT,
      "36e5f6b5c5e06070f0efca96227a863e" },
    { "rfc8439-A.3-3",
      "36e5f6b5c5e06070f0efca96227a863e00000000000000000000000000000000",
      IETF_TEXT,
      "f3477e7cd95417af89a6b8794c310cf0" },
    { "rfc8439-A.3-4",
      "1c9240a5eb55d38af333888604f6b5f0473917c1402b80099dca5cbc207075c0",
      "2754776173206272696c6c69672c20616e642074686520736c6974687920746f"
      "7665730a446964206779726520616e642067696d626c6520696e207468652077"
      "6162653a0a416c6c206d696d737920776572652074686520626f726f676f7665"
      "732c0a416e6420746865206d6f6d65207261746873206f757467726162652e",
      "4541669a7eaaee61e708dc7cbcc5eb62" },
    { "rfc8439-A.3-5",
      "0200000000000000000000000000000000000000000000000000000000000000",
      "ffffffffffffffffffffffffffffffff",
      "03000000000000000000000000000000" },
    { "rfc8439-A.3-6",
      "02000000000000000000000000000000ffffffffffffffffffffffffffffffff",
      "02000000000000000000000000000000",
      "03000000000000000000000000000000" },
    { "rfc8439-A.3-7",
      "0100000000000000000000000000000000000000000000000000000000000000",
      "fffffffffffffffffffffffffffffffff0ffffffffffffffffffffffffffffff"
      "11000000000000000000000000000000",
      "05000000000000000000000000000000" },
    { "rfc8439-A.3-8",
      "0100000000000000000000000000000000000000000000000000000000000000",
      "fffffffffffffffffffffffffffffffffbfefefefefefefefefefefefefefefe"
      "01010101010101010101010101010101",
      "00000000000000000000000000000000" },
    { "rfc8439-A.3-9",
      "0200000000000000000000000000000000000000000000000000000000000000",
      "fdffffffffffffffffffffffffffffff",
      "faffffffffffffffffffffffffffffff" },
    { "rfc8439-A.3-10",
      "0100000000000000040000000000000000000000000000000000000000000000",
      "e33594d7505e43b900000000000000003394d7505e4379cd0100000000000000"
      "0000000000000000000000000000000001000000000000000000000000000000",
      "14000000000000005500000000000000" },
    { "rfc8439-A.3-11",
      "0100000000000000040000000000000000000000000000000000000000000000",
      "e33594d7505e43b900000000000000003394d7505e4379cd0100000000000000"
      "00000000000000000000000000000000",
      "13000000000000000000000000000000" },
};

static void test_rfc(void)
{
    size_t v;

    for (v = 0; v < sizeof(rfc_vectors) / sizeof(rfc_vectors[0]); v++) {
        uint8_t *key = NULL, *msg = NULL, *tag = NULL;
        long kl = unhex(rfc_vectors[v].key, &key);
        long ml = unhex(rfc_vectors[v].msg, &msg);
        long tl = unhex(rfc_vectors[v].tag, &tag);

        if (kl != 32 || ml < 0 || tl != 16)
            check(0, "-", rfc_vectors[v].id, 0);
        else
            check_all(rfc_vectors[v].id, key, msg, (size_t)ml, tag);
        free(key);
        free(msg);
        free(tag);
    }
}

/* Parse the MAC = Poly1305 stanzas of OpenSSL's evpmac_poly1305.txt. */
static int test_evpmac_file(const char *dir)
{
    char path[4096], line[8192], name[64];
    uint8_t *key = NULL, *msg = NULL, *tag = NULL;
    long kl = -1, ml = -1, tl = -1;
    int stanzas = 0, is_poly = 0;
    FILE *f;

    if (snprintf(path, sizeof(path), "%s/evpmac_poly1305.txt", dir)
            >= (int)sizeof(path) || (f = fopen(path, "r")) == NULL) {
        perror(path);
        check(0, "-", "open evpmac_poly1305.txt", 0);
        return 0;
    }
    for (;;) {
        char *got = fgets(line, sizeof(line), f);
        int end = got == NULL || line[0] == '\n' || line[0] == '\r';

        if (end && is_poly) {
            snprintf(name, sizeof(name), "evpmac stanza %d", stanzas + 1);
            if (kl == 32 && ml >= 0 && tl == 16)
                check_all(name, key, msg, (size_t)ml, tag);
            else
                check(0, "-", name, 0);
            stanzas++;
        }
        if (end) {
            free(key);
            free(msg);
            free(tag);
            key = msg = tag = NULL;
            kl = ml = tl = -1;
            is_poly = 0;
            if (got == NULL)
                break;
            continue;
        }
        if (line[strlen(line) - 1] != '\n' && !feof(f)) {
            check(0, "-", "evpmac line too long", 0);
            break;
        }
        if (strncmp(line, "MAC = ", 6) == 0)
            is_poly = strncmp(line + 6, "Poly1305", 8) == 0;
        else if (strncmp(line, "Key = ", 6) == 0 && key == NULL)
            kl = unhex(line + 6, &key);
        else if (strncmp(line, "Input = ", 8) == 0 && msg == NULL)
            ml = unhex(line + 8, &msg);
        else if (strncmp(line, "Output = ", 9) == 0 && tag == NULL)
            tl = unhex(line + 9, &tag);
    }
    free(key);
    free(msg);
    free(tag);
    fclose(f);
    check_ref(stanzas == 46, "-", "evpmac stanza count is 46", (size_t)stanzas);
    return stanzas;
}

/*
 * Bignum model of Poly1305 (RFC 8439 2.5.1), independent of every kernel.
 * Also returns the accumulator h mod p before s is added.
 */
static void bn_le(BIGNUM *bn, const uint8_t *p, size_t n)
{
    BN_lebin2bn(p, (int)n, bn);
}

static void ref_poly(const uint8_t key[32], const uint8_t *msg, size_t len,
                     BIGNUM *h, uint8_t tag[16], BN_CTX *bc)
{
    BIGNUM *p = BN_new(), *r = BN_new(), *s = BN_new(), *n = BN_new();
    uint8_t rk[16], blk[17];
    size_t off;

    BN_zero(p);
    BN_set_bit(p, 130);
    BN_sub_word(p, 5);
    memcpy(rk, key, 16);
    rk[3] &= 15; rk[7] &= 15; rk[11] &= 15; rk[15] &= 15;
    rk[4] &= 252; rk[8] &= 252; rk[12] &= 252;
    bn_le(r, rk, 16);
    bn_le(s, key + 16, 16);
    BN_zero(h);
    for (off = 0; off < len; off += 16) {
        size_t take = len - off < 16 ? len - off : 16;

        memset(blk, 0, sizeof(blk));
        memcpy(blk, msg + off, take);
        blk[take] = 1;
        bn_le(n, blk, 17);
        BN_add(h, h, n);
        BN_mod_mul(h, h, r, p, bc);
    }
    BN_add(n, h, s);
    BN_mask_bits(n, 128);
    BN_bn2lebinpad(n, tag, 16);
    BN_free(p);
    BN_free(r);
    BN_free(s);
    BN_free(n);
}

/*
 * Make the accumulator land exactly on target (mod p) before the final
 * reduction: random key and prefix, then solve (h + m) * r = target for the
 * last full block m, retrying until m - 2^128 fits in 16 bytes. The prefix
 * is 0-3 blocks (scalar paths) or, with longpre, 15-198 blocks (vector
 * paths, every group shape).
 */
static void edge_target_pre(const char *what, const BIGNUM *target,
                            BN_CTX *bc, int longpre)
{
    BIGNUM *p = BN_new(), *r = BN_new(), *h = BN_new(), *m = BN_new(),
           *t128 = BN_new(), *t129 = BN_new();
    static uint8_t msg[16 * 200];
    uint8_t key[32], tag[16], want[16], rk[16];
    int tries;

    BN_zero(p); BN_set_bit(p, 130); BN_sub_word(p, 5);
    BN_zero(t128); BN_set_bit(t128, 128);
    BN_zero(t129); BN_set_bit(t129, 129);
    for (tries = 0; tries < 1000; tries++) {
        size_t pre = 16 * (longpre ? 15 + rng() % 184 : rng() % 4);

        rng_bytes(key, 32);
        rng_bytes(msg, pre);
        ref_poly(key, msg, pre, h, tag, bc);
        memcpy(rk, key, 16);
        rk[3] &= 15; rk[7] &= 15; rk[11] &= 15; rk[15] &= 15;
        rk[4] &= 252; rk[8] &= 252; rk[12] &= 252;
        bn_le(r, rk, 16);
        if (BN_is_zero(r))
            continue;
        /* m = target / r - h (mod p) */
        BN_mod_inverse(m, r, p, bc);
        BN_mod_mul(m, m, target, p, bc);
        BN_mod_sub(m, m, h, p, bc);
        if (BN_cmp(m, t128) < 0 || BN_cmp(m, t129) >= 0)
            continue;
        BN_sub(m, m, t128);
        BN_bn2lebinpad(m, msg + pre, 16);
        ref_poly(key, msg, pre + 16, h, want, bc);
        check_ref(BN_cmp(h, target) == 0 || BN_is_zero(target), "model", what, 0);
        check_all(what, key, msg, pre + 16, want);
        break;
    }
    check_ref(tries < 1000, "-", "edge construction converged", 0);
    BN_free(p); BN_free(r); BN_free(h); BN_free(m);
    BN_free(t128); BN_free(t129);
}

static void edge_target(const char *what, const BIGNUM *target, BN_CTX *bc)
{
    edge_target_pre(what, target, bc, 0);
    edge_target_pre(what, target, bc, 1);
}

static void test_edges(void)
{
    BN_CTX *bc = BN_CTX_new();
    BIGNUM *t = BN_new(), *h = BN_new();
    uint8_t key[32], msg[MAX_LEN], want[16], ossl[16];
    char what[96];
    int i, j;

    /* h mod p = 2^130-5-i, i.e. p - i: p itself (0), p-1, p-2, ... */
    for (i = 0; i < 64; i++) {
        BN_zero(t); BN_set_bit(t, 130); BN_sub_word(t, 5);
        BN_sub_word(t, (BN_ULONG)i);
        if (i == 0)
            BN_zero(t);
        snprintf(what, sizeof(what), "h = 2^130-5-%d", i);
        edge_target(what, t, bc);
        /* and small h, and h just around 2^128 and 2^129 */
        BN_set_word(t, (BN_ULONG)i);
        snprintf(what, sizeof(what), "h = %d", i);
        edge_target(what, t, bc);
        BN_zero(t); BN_set_bit(t, 128 + (i & 1));
        if (i & 2)
            BN_sub_word(t, (BN_ULONG)(i >> 2));
        else
            BN_add_word(t, (BN_ULONG)(i >> 2));
        snprintf(what, sizeof(what), "h = 2^%d %c %d", 128 + (i & 1),
                 (i & 2) ? '-' : '+', i >> 2);
        edge_target(what, t, bc);
    }

    /*
     * r = 1: blocks just add, so the partially reduced accumulator ends
     * unreduced in [p, 2^130) or past 2^130; emit must fold it down.
     * Three blocks 3 * 2^128 + c1 + c2 + c3 = p + i - 8 for i in [0, 40).
     */
    for (i = 0; i < 40; i++) {
        memset(key, 0, 32);
        key[0] = 1;
        for (j = 16; j < 32; j++)
            key[j] = (uint8_t)(i & 8 ? 0xff : 0);
        memset(msg, 0, 64);
        memset(msg, 0xff, 16);              /* c1 = 2^128 - 1 */
        /* c2 = i - 12 (+ 2^128 - 1 from c1 gives p + i - 8 - 3*2^128) */
        if (i >= 12) {
            msg[16] = (uint8_t)(i - 12);
        } else {
            memset(msg + 16, 0, 16);
            msg[0] = (uint8_t)(0xff - (12 - i)); /* c1 = 2^128 - 1 - (12-i) */
        }
        for (j = 3; j <= 4; j++) {          /* 3 or 4 blocks */
            ref_poly(key, msg, 16 * (size_t)j, h, want, bc);
            snprintf(what, sizeof(what), "r = 1, %d blocks, i = %d", j, i);
            check_all(what, key, msg, 16 * (size_t)j, want);
        }
    }

    /* all-ones key and message at many lengths, against model and OpenSSL */
    memset(key, 0xff, 32);
    memset(msg, 0xff, sizeof(msg));
    for (i = 0; i <= MAX_LEN; i += (i < 300 ? 1 : 61)) {
        ref_poly(key, msg, (size_t)i, h, want, bc);
        check_ref(mac_openssl(key, msg, (size_t)i, ossl)
              && memcmp(want, ossl, 16) == 0, "openssl", "all-ones", (size_t)i);
        check_all("all-ones key and message", key, msg, (size_t)i, want);
    }
    /* all-ones message, zero s (the clamped r is still maximal) */
    memset(key + 16, 0, 16);
    for (i = 0; i <= 1024; i += 7) {
        ref_poly(key, msg, (size_t)i, h, want, bc);
        check_all("all-ones r, zero s", key, msg, (size_t)i, want);
    }
    BN_free(t);
    BN_free(h);
    BN_CTX_free(bc);
}

/* Every kernel vs portable (and portable vs OpenSSL) on every length. */
static void test_cross(void)
{
    static uint8_t msg[MAX_LEN];
    uint8_t key[32], want[16], tag[16];
    size_t len, i;

    for (len = 0; len <= MAX_LEN; len++) {
        rng_bytes(key, sizeof(key));
        rng_bytes(msg, len);
        if (len % 8 == 0)
            memset(key, 0xff, 16);          /* the largest clamped r */
        mac_oneshot(&poly1305_portable_kernel, key, msg, len, want);
        check_ref(mac_openssl(key, msg, len, tag) && memcmp(tag, want, 16) == 0,
              "portable", "vs OpenSSL", len);
        for (i = 0; i < n_impls; i++) {
            if (impls[i] != &poly1305_portable_kernel) {
                mac_oneshot(impls[i], key, msg, len, tag);
                check(memcmp(tag, want, 16) == 0, labels[i],
                      "vs portable, one-shot", len);
            }
            mac_chunked(impls[i], key, msg, len, tag);
            check(memcmp(tag, want, 16) == 0, labels[i],
                  "vs portable, chunked", len);
        }
    }
}

/*
 * Runs much longer than MAX_LEN (many steps of the SIMD loops, every tail
 * shape after them), random and all-ones, against portable; neon_split's
 * from its first (4 KiB) and over several of its rounds (240,272 bytes
 * each at most: 300,000 + 32 takes two).
 */
static void test_long(void)
{
    static const size_t lens[] = { 4096, 4096 + 16, 4096 + 176, 8192, 8192 + 16,
                                   16384 + 48, 16384 + 64, 16384 + 112,
                                   65536 + 64 + 48, 65536 + 128, 300000 + 32 };
    size_t max = 300000 + 256, i, j, k;
    uint8_t *msg = malloc(max), key[32], want[16], tag[16];

    if (msg == NULL) {
        check(0, "-", "malloc", max);
        return;
    }
    for (k = 0; k < 2; k++) {
        for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
            rng_bytes(key, sizeof(key));
            if (k == 0) {
                rng_bytes(msg, lens[i]);
            } else {
                memset(key, 0xff, 16);      /* the largest clamped r */
                memset(msg, 0xff, lens[i]);
            }
            mac_oneshot(&poly1305_portable_kernel, key, msg, lens[i], want);
            for (j = 0; j < n_impls; j++) {
                mac_oneshot(impls[j], key, msg, lens[i], tag);
                check(memcmp(tag, want, 16) == 0, labels[j],
                      k ? "long all-ones, one-shot" : "long, one-shot", lens[i]);
                mac_chunked(impls[j], key, msg, lens[i], tag);
                check(memcmp(tag, want, 16) == 0, labels[j],
                      k ? "long all-ones, chunked" : "long, chunked", lens[i]);
            }
        }
    }
    free(msg);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : NULL;
    const char *seed = getenv("POLY1305_TEST_SEED");
    char dirbuf[4096];
    size_t i;

    if (dir == NULL) {
        const char *srcdir = getenv("srcdir");

        if (snprintf(dirbuf, sizeof(dirbuf), "%s/test/vectors",
                     srcdir != NULL ? srcdir : ".") >= (int)sizeof(dirbuf))
            return 1;
        dir = dirbuf;
    }
    if (seed != NULL)
        rng_state = strtoull(seed, NULL, 0);
    printf("seed 0x%llx\n", (unsigned long long)rng_state);
    for (i = 0; TEST_NATIVE_KERNELS && poly1305_kernels[i] != NULL; i++) {
        const poly1305_kernel *impl = poly1305_kernels[i];
        int ok = chacha_caps_ok(impl->caps);

        printf("kernel %-9s (native) %s\n", impl->name,
               ok ? "run" : "skipped (CPU)");
        if (ok && n_impls < sizeof(impls) / sizeof(impls[0])) {
            labels[n_impls] = impl->name;
            impls[n_impls++] = impl;
        }
    }
    check_ref(n_impls > 0 && impls[n_impls - 1] == &poly1305_portable_kernel, "-",
          "portable kernel is listed last", n_impls);
#if defined(CHACHA_HAVE_X86_64_SIMD)
    /* as the CPU reports it, apart from the provider's detection */
    __builtin_cpu_init();
    if (TEST_NATIVE_KERNELS && getenv("CHACHA_PROVIDER_DISABLE") == NULL
        && __builtin_cpu_supports("avx512ifma")
        && __builtin_cpu_supports("avx512vl")
        && __builtin_cpu_supports("avx512bw"))
        check(strcmp(impls[0]->name, "ifma") == 0, "-",
              "the CPU has IFMA and the ifma kernel runs", 0);
#endif
    /* the same suite on the emulated AVX-512 kernels, on any CPU */
    for (i = 0; emu_poly1305_kernels[i] != NULL; i++) {
        static char names[4][64];

        snprintf(names[i], sizeof(names[i]), "%s (emulated)",
                 emu_poly1305_kernels[i]->name);
        printf("kernel %s run\n", names[i]);
        if (n_impls < sizeof(impls) / sizeof(impls[0])) {
            labels[n_impls] = names[i];
            impls[n_impls++] = emu_poly1305_kernels[i];
        }
    }

    test_rfc();
    printf("evpmac stanzas: %d\n", test_evpmac_file(dir));
    test_edges();
    test_cross();
    test_long();

    return tu_summary("test_poly1305_kernels");
}
