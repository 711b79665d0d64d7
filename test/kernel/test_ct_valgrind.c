/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Constant-time check under valgrind memcheck (run by test/integration/ct-valgrind.sh).
 * Secrets are marked undefined with VALGRIND_MAKE_MEM_UNDEFINED: the key,
 * the nonce, the plaintext and, for open, the received tag. Memcheck then
 * reports any conditional jump or memory address that depends on them
 * ("Conditional jump or move depends on uninitialised value(s)", "Use of
 * uninitialised value of size N") -- i.e. a secret-dependent branch or table
 * index. Outputs are marked defined again (VALGRIND_MAKE_MEM_DEFINED) only
 * where branching is allowed: after the ciphertext/tag are produced, and on
 * the tag-check result.
 *
 *  1. EVP seal and open with our provider, once per kernel: each kernel is
 *     forced by setting CHACHA_PROVIDER_IMPL / CHACHA_PROVIDER_POLY1305_IMPL
 *     before loading the provider into its own OSSL_LIB_CTX (kernel choice
 *     is per provider load). Lengths cover the short path (<= 256), the
 *     streaming path, partial blocks and TLS 1.2 records.
 *     XChaCha20-Poly1305 too (seal, open, bad tag), its nonce marked secret.
 *  2. The cores directly (linked): every ChaCha20 kernel and its HChaCha20,
 *     every Poly1305 kernel through the streaming front end, every fused
 *     AEAD kernel; and the emulated AVX-512 kernels (under valgrind the CPU
 *     has none).
 * Results are compared with OpenSSL's default provider / the portable core.
 *
 * "--self-test" adds one deliberate secret-dependent branch, so the script
 * can show that the check is able to fail.
 * Without <valgrind/memcheck.h> at build time the test skips (exit 77).
 * Links libtestutil + libchachacore + libcrypto.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_include)
# if __has_include(<valgrind/memcheck.h>)
#  include <valgrind/memcheck.h>
#  define HAVE_MEMCHECK 1
# endif
#endif

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include "testutil.h"
#include "registry.h"
#include "cpu.h"
#include "chacha20_stream.h"
#include "util.h"
#include "poly1305_stream.h"
#include "xchacha.h"
#include "emu_kernels.h"

#ifndef HAVE_MEMCHECK
int main(void)
{
    printf("test_ct_valgrind: SKIP (no <valgrind/memcheck.h>)\n");
    return 77;
}
#else

#define SECRET(p, n) VALGRIND_MAKE_MEM_UNDEFINED((p), (n))
#define PUBLIC(p, n) VALGRIND_MAKE_MEM_DEFINED((p), (n))

static unsigned char KEY[32], NONCE[24], AAD[40], PT[1100];  /* NONCE: 12 or 24 bytes used */
static const size_t LENS[] = { 0, 1, 63, 64, 65, 255, 256, 257, 1024, 1100 };

/* seal with ctx from cipher c (ours: secrets marked); ct gets len + tag */
static int seal(EVP_CIPHER *c, int mark, size_t len, unsigned char *ct,
                unsigned char tag[16])
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    unsigned char key[32], nonce[24], pt[1100];
    int outl, ok;
    size_t half = len / 3;

    memcpy(key, KEY, 32);
    memcpy(nonce, NONCE, 24);
    memcpy(pt, PT, len);
    if (mark) {
        SECRET(key, 32);
        SECRET(nonce, 24);
        SECRET(pt, len);
    }
    ok = ctx != NULL && EVP_EncryptInit_ex2(ctx, c, key, nonce, NULL)
         && EVP_EncryptUpdate(ctx, NULL, &outl, AAD, sizeof(AAD))
         && (half == 0 || EVP_EncryptUpdate(ctx, ct, &outl, pt, (int)half))
         && (len == half || EVP_EncryptUpdate(ctx, ct + half, &outl, pt + half,
                                              (int)(len - half)))
         && EVP_EncryptFinal_ex(ctx, ct + len, &outl)
         && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag) > 0;
    EVP_CIPHER_CTX_free(ctx);
    PUBLIC(ct, len);
    PUBLIC(tag, 16);
    return ok;
}

/* open with secrets (key, nonce, received tag, and the output) marked */
static int open_msg(EVP_CIPHER *c, size_t len, const unsigned char *ct,
                    const unsigned char tag_in[16], unsigned char *pt)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    unsigned char key[32], nonce[24], tag[16];
    int outl, ok, fin;

    memcpy(key, KEY, 32);
    memcpy(nonce, NONCE, 24);
    memcpy(tag, tag_in, 16);
    SECRET(key, 32);
    SECRET(nonce, 24);
    SECRET(tag, 16);
    ok = ctx != NULL && EVP_DecryptInit_ex2(ctx, c, key, nonce, NULL)
         && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag) > 0
         && EVP_DecryptUpdate(ctx, NULL, &outl, AAD, sizeof(AAD))
         && (len == 0 || EVP_DecryptUpdate(ctx, pt, &outl, ct, (int)len));
    /* the verdict is public: EVP branches on it (suppressed, see the script) */
    fin = EVP_DecryptFinal_ex(ctx, pt + len, &outl);
    PUBLIC(&fin, sizeof(fin));
    PUBLIC(pt, len);
    EVP_CIPHER_CTX_free(ctx);
    return ok && fin == 1;
}

/* TLS 1.2 record seal + open with the key and nonce marked */
static int tls_round(EVP_CIPHER *c, size_t plen, unsigned char *rec)
{
    unsigned char key[32], nonce[12], aad[13] = { 0, 0, 0, 0, 0, 0, 0, 3, 23, 3, 3 };
    EVP_CIPHER_CTX *e = EVP_CIPHER_CTX_new(), *d = EVP_CIPHER_CTX_new();
    int outl, ok, rc;

    memcpy(key, KEY, 32);
    memcpy(nonce, NONCE, 12);
    SECRET(key, 32);
    SECRET(nonce, 12);
    memcpy(rec, PT, plen);
    SECRET(rec, plen);
    aad[11] = (unsigned char)(plen >> 8);
    aad[12] = (unsigned char)plen;
    ok = EVP_EncryptInit_ex2(e, c, key, nonce, NULL)
         && EVP_CIPHER_CTX_ctrl(e, EVP_CTRL_AEAD_TLS1_AAD, 13, aad) == 16
         && EVP_EncryptUpdate(e, rec, &outl, rec, (int)(plen + 16));
    PUBLIC(rec, plen + 16);
    aad[11] = (unsigned char)((plen + 16) >> 8);
    aad[12] = (unsigned char)(plen + 16);
    ok = ok && EVP_DecryptInit_ex2(d, c, key, nonce, NULL)
         && EVP_CIPHER_CTX_ctrl(d, EVP_CTRL_AEAD_TLS1_AAD, 13, aad) == 16;
    SECRET(rec + plen, 16);                       /* the received tag */
    rc = EVP_DecryptUpdate(d, rec, &outl, rec, (int)(plen + 16));
    PUBLIC(&rc, sizeof(rc));
    PUBLIC(rec, plen + 16);
    EVP_CIPHER_CTX_free(e);
    EVP_CIPHER_CTX_free(d);
    return ok && rc == 1 && memcmp(rec, PT, plen) == 0;
}

static void evp_kernel(const char *env, const char *name, EVP_CIPHER *ref)
{
    OSSL_LIB_CTX *lib = OSSL_LIB_CTX_new();
    OSSL_PROVIDER *p;
    EVP_CIPHER *c;
    static unsigned char ct[2][1200], tag[2][16], pt[1200];
    size_t i;

    setenv(env, name, 1);
    p = OSSL_PROVIDER_load(lib, "chacha");
    unsetenv(env);
    if (!TU_CHECK(p != NULL, "load chacha with %s=%s", env, name)) {
        OSSL_LIB_CTX_free(lib);
        return;
    }
    c = EVP_CIPHER_fetch(lib, "ChaCha20-Poly1305", NULL);
    for (i = 0; c != NULL && i < sizeof(LENS) / sizeof(LENS[0]); i++) {
        size_t len = LENS[i];

        TU_CHECK(seal(c, 1, len, ct[0], tag[0]) && seal(ref, 0, len, ct[1], tag[1])
                 && memcmp(ct[0], ct[1], len) == 0 && memcmp(tag[0], tag[1], 16) == 0,
                 "[%s=%s] seal %zu bytes", env, name, len);
        TU_CHECK(open_msg(c, len, ct[1], tag[1], pt) && memcmp(pt, PT, len) == 0,
                 "[%s=%s] open %zu bytes", env, name, len);
        tag[1][0] ^= 1;
        TU_CHECK(!open_msg(c, len, ct[1], tag[1], pt),
                 "[%s=%s] open %zu bytes with a bad tag", env, name, len);
        if (len > 0 && len <= 1024)
            TU_CHECK(tls_round(c, len, ct[0]), "[%s=%s] TLS record %zu", env,
                     name, len);
    }
    EVP_CIPHER_free(c);
    /* XChaCha20-Poly1305: HChaCha20 of the secret key and nonce, then the same */
    c = EVP_CIPHER_fetch(lib, "XChaCha20-Poly1305", NULL);
    for (i = 0; c != NULL && i < sizeof(LENS) / sizeof(LENS[0]); i++) {
        size_t len = LENS[i];

        TU_CHECK(seal(c, 1, len, ct[0], tag[0]) && open_msg(c, len, ct[0], tag[0], pt)
                 && memcmp(pt, PT, len) == 0, "[%s=%s] XChaCha20-Poly1305 %zu bytes", env,
                 name, len);
        tag[0][15] ^= 1;
        TU_CHECK(!open_msg(c, len, ct[0], tag[0], pt),
                 "[%s=%s] XChaCha20-Poly1305 %zu bytes with a bad tag", env, name, len);
    }
    TU_CHECK(c != NULL, "fetch XChaCha20-Poly1305");
    printf("# EVP %s=%s: seal/open/TLS and XChaCha20-Poly1305 over %zu lengths done\n",
           env, name, sizeof(LENS) / sizeof(LENS[0]));
    EVP_CIPHER_free(c);
    OSSL_PROVIDER_unload(p);
    OSSL_LIB_CTX_free(lib);
}

/* One ChaCha20 kernel on marked secrets, against the portable result. */
static void core_chacha20(const chacha20_kernel *ci, const char *label,
                          const uint32_t kw[8], const uint32_t ctr[4],
                          const unsigned char *want)
{
    static unsigned char out[1100];
    uint32_t skw[8], sctr[4];

    memcpy(skw, kw, sizeof(skw));
    memcpy(sctr, ctr, sizeof(sctr));
    SECRET(skw, sizeof(skw));
    SECRET(sctr + 1, 12);
    memcpy(out, PT, sizeof(PT));
    SECRET(out, sizeof(PT));
    ci->xor_stream(out, out, sizeof(PT), skw, sctr);
    PUBLIC(out, sizeof(PT));
    TU_CHECK(memcmp(out, want, sizeof(PT)) == 0, "chacha20 core %s", label);
    {
        uint32_t sub[2][8];
        unsigned char n16[16];

        memcpy(n16, NONCE, 16);
        chacha_hchacha20(&chacha20_portable_kernel, sub[1], kw, n16);
        memcpy(skw, kw, sizeof(skw));
        SECRET(skw, sizeof(skw));
        SECRET(n16, sizeof(n16));
        chacha_hchacha20(ci, sub[0], skw, n16);
        PUBLIC(sub[0], sizeof(sub[0]));
        TU_CHECK(memcmp(sub[0], sub[1], sizeof(sub[0])) == 0, "hchacha20 core %s",
                 label);
    }
    printf("# core chacha20 %s (and its HChaCha20): done\n", label);
}

/* One Poly1305 kernel on a marked key and message, against the portable. */
static void core_poly1305(const poly1305_kernel *pi, const char *label)
{
    static unsigned char msg[1100];
    unsigned char key[32], mac[2][16];
    poly1305_ctx pc;
    size_t len;

    for (len = 0; len <= sizeof(PT); len += (len < 80 ? 1 : 97)) {
        memcpy(key, KEY, 32);
        memcpy(msg, PT, len);
        SECRET(key, 32);
        SECRET(msg, len);
        poly1305_init(&pc, pi, key);
        poly1305_update(&pc, msg, len / 2);
        poly1305_update(&pc, msg + len / 2, len - len / 2);
        poly1305_final(&pc, mac[0]);
        PUBLIC(mac[0], 16);
        poly1305_init(&pc, &poly1305_portable_kernel, KEY);
        poly1305_update(&pc, PT, len);
        poly1305_final(&pc, mac[1]);
        if (!TU_CHECK(memcmp(mac[0], mac[1], 16) == 0, "poly1305 %s, %zu bytes",
                      label, len))
            break;
    }
    printf("# core poly1305 %s: done\n", label);
}

/* A fused AEAD kernel on marked secrets, against the two steps. */
static void core_fused(const chacha20_poly1305_kernel *f, const char *label,
                       const uint32_t kw[8], const uint32_t ctr[4])
{
    static unsigned char out[1024 * 3], want[1024 * 3];
    unsigned char key[32], tag[2][16];
    uint32_t skw[8], sctr[4];
    poly1305_state st[2];
    int enc;

    for (enc = 0; enc < 2; enc++) {
        size_t i, len = sizeof(out);

        for (i = 0; i < len; i++)
            out[i] = (unsigned char)(PT[i % sizeof(PT)] ^ i);
        memcpy(want, out, len);
        /* reference: the two steps, unmarked */
        f->poly->init(&st[1], KEY);
        if (!enc)
            f->poly->blocks(&st[1], want, len, 1);
        chacha20_portable_kernel.xor_stream(want, want, len, kw, ctr);
        if (enc)
            f->poly->blocks(&st[1], want, len, 1);
        f->poly->emit(&st[1], tag[1]);
        memcpy(key, KEY, 32);
        memcpy(skw, kw, sizeof(skw));
        memcpy(sctr, ctr, sizeof(sctr));
        SECRET(key, 32);
        SECRET(skw, sizeof(skw));
        SECRET(sctr + 1, 12);
        SECRET(out, len);
        f->poly->init(&st[0], key);
        f->xor_mac(out, out, len, skw, sctr, &st[0], enc);
        f->poly->emit(&st[0], tag[0]);
        PUBLIC(out, len);
        PUBLIC(tag[0], 16);
        TU_CHECK(memcmp(out, want, len) == 0 && memcmp(tag[0], tag[1], 16) == 0,
                 "fused %s enc=%d", label, enc);
    }
    printf("# core fused %s: done\n", label);
}

/*
 * The cores directly: each ChaCha20 kernel, each Poly1305 kernel; also
 * the emulated AVX-512 kernels (valgrind hides AVX-512 from the CPUID it
 * shows, so the native ones do not run here: their C source and its
 * control flow are the same).
 */
static void cores(void)
{
    static unsigned char want[1100];
    char label[64];
    uint32_t kw[8], ctr[4];
    size_t i, j;

    for (j = 0; j < 8; j++)
        kw[j] = chacha_load_le32(KEY + 4 * j);
    ctr[0] = 1;
    ctr[1] = chacha_load_le32(NONCE);
    ctr[2] = chacha_load_le32(NONCE + 4);
    ctr[3] = chacha_load_le32(NONCE + 8);
    chacha20_portable_kernel.xor_stream(want, PT, sizeof(PT), kw, ctr);
    for (i = 0; TEST_NATIVE_KERNELS && chacha20_kernels[i] != NULL; i++)
        if (chacha_caps_ok(chacha20_kernels[i]->caps))
            core_chacha20(chacha20_kernels[i], chacha20_kernels[i]->name, kw,
                          ctr, want);
    for (i = 0; emu_chacha20_kernels[i] != NULL; i++) {
        snprintf(label, sizeof(label), "%s (emulated)", emu_chacha20_kernels[i]->name);
        core_chacha20(emu_chacha20_kernels[i], label, kw, ctr, want);
    }
    for (i = 0; TEST_NATIVE_KERNELS && poly1305_kernels[i] != NULL; i++)
        if (chacha_caps_ok(poly1305_kernels[i]->caps))
            core_poly1305(poly1305_kernels[i], poly1305_kernels[i]->name);
    for (i = 0; emu_poly1305_kernels[i] != NULL; i++) {
        snprintf(label, sizeof(label), "%s (emulated)", emu_poly1305_kernels[i]->name);
        core_poly1305(emu_poly1305_kernels[i], label);
    }
    for (i = 0; TEST_NATIVE_KERNELS && chacha20_poly1305_kernels[i] != NULL; i++)
        if (chacha_caps_ok(chacha20_poly1305_kernels[i]->caps))
            core_fused(chacha20_poly1305_kernels[i],
                       chacha20_poly1305_kernels[i]->name, kw, ctr);
    for (i = 0; emu_fused_kernels[i] != NULL; i++) {
        snprintf(label, sizeof(label), "%s (emulated)", emu_fused_kernels[i]->name);
        core_fused(emu_fused_kernels[i], label, kw, ctr);
    }
}

int main(int argc, char **argv)
{
    EVP_CIPHER *ref;
    size_t i;
    char names[256], *save = NULL, *n;
    FILE *f;

    for (i = 0; i < 32; i++)
        KEY[i] = (unsigned char)(0x80 + i * 3);
    for (i = 0; i < 24; i++)
        NONCE[i] = (unsigned char)(7 + i);
    for (i = 0; i < sizeof(AAD); i++)
        AAD[i] = (unsigned char)i;
    for (i = 0; i < sizeof(PT); i++)
        PT[i] = (unsigned char)(i * 29 + 3);
    printf("# running under valgrind: %s\n", RUNNING_ON_VALGRIND ? "yes" : "NO");
    if (!tu_init("test_ct_valgrind"))
        return tu_finish();
    if (argc > 1 && strcmp(argv[1], "--self-test") == 0) {
        /* a deliberate secret-dependent branch: memcheck must report it */
        volatile int sink = 0;
        unsigned char k[32];

        memcpy(k, KEY, 32);
        SECRET(k, 32);
        if (k[5] & 1)
            sink++;
        printf("# self-test: branched on a secret (%d)\n", sink);
    }
    ref = tu_fetch_default("ChaCha20-Poly1305");
    if (ref == NULL)
        return tu_finish();
    /* every ChaCha20 kernel (Poly1305 auto), then every Poly1305 kernel */
    for (i = 0; TEST_NATIVE_KERNELS && i < 2; i++) {
        const char *env = i ? "CHACHA_PROVIDER_POLY1305_IMPL" : "CHACHA_PROVIDER_IMPL";
        size_t k, used = 0;

        names[0] = '\0';
        for (k = 0; i ? poly1305_kernels[k] != NULL : chacha20_kernels[k] != NULL; k++) {
            const char *nm = i ? poly1305_kernels[k]->name : chacha20_kernels[k]->name;
            unsigned caps = i ? poly1305_kernels[k]->caps : chacha20_kernels[k]->caps;

            if (chacha_caps_ok(caps))
                used += (size_t)snprintf(names + used, sizeof(names) - used, "%s ", nm);
        }
        for (n = strtok_r(names, " ", &save); n != NULL; n = strtok_r(NULL, " ", &save))
            evp_kernel(env, n, ref);
    }
    cores();
    EVP_CIPHER_free(ref);
    (void)f;
    return tu_finish();
}
#endif
