/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ARM benchmarks' workload (bench/arm-icount.sh, bench/arm-mca.sh), run
 * under qemu-user: one primitive on one buffer, ITERS times.
 *   argv: WHO LEN ITERS, WHO = {chacha,poly,aead}-{ours,openssl}
 * ours: the cores of this build (linked from its libchachacore.a) with the
 * kernels the registry picks for this CPU: ChaCha20 through the kernel's
 * xor_stream, Poly1305 through the stream front end (init, update, final),
 * the AEAD through its core (bulk text of a running message: the fused
 * kernel when one is registered, else two steps). CHACHA_PROVIDER_IMPL and
 * CHACHA_PROVIDER_POLY1305_IMPL name other kernels, as for the provider;
 * CHACHA_BENCH_AEAD a fused kernel of the pair by name (or "two-step"),
 * also one that the registry would not pick on this CPU.
 * openssl: the same through
 * EVP with the default provider (the arm64 libcrypto's own code).
 * Every path is set up before the loop, so a run with ITERS = 0 is the
 * baseline that cancels setup. Prints the load bases of this program and of
 * libcrypto (dladdr) on stderr, for mapping traced addresses to the files.
 */
#define _GNU_SOURCE   /* dladdr */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include "registry.h"
#include "chacha20_stream.h"
#include "poly1305_stream.h"
#include "aead.h"

static void print_base(const char *what, void *sym)
{
    Dl_info info;

    if (dladdr(sym, &info) != 0)
        fprintf(stderr, "base %s %p %s\n", what, info.dli_fbase, info.dli_fname);
}

/* the fused kernel: the registry's choice, or CHACHA_BENCH_AEAD's (exit 2: none) */
static const chacha20_poly1305_kernel *bench_fused(const chacha20_kernel *ck,
                                                   const poly1305_kernel *pk)
{
    const char *name = getenv("CHACHA_BENCH_AEAD");
    size_t i;

    if (name == NULL)
        return chacha_select_fused(ck, pk,
                                   chacha_select_is_auto(getenv("CHACHA_PROVIDER_IMPL")));
    if (strcmp(name, "two-step") == 0)
        return NULL;
    for (i = 0; chacha20_poly1305_kernels[i] != NULL; i++)
        if (strcmp(chacha20_poly1305_kernels[i]->name, name) == 0
            && chacha_fused_pairs(chacha20_poly1305_kernels[i], ck, pk))
            return chacha20_poly1305_kernels[i];
    fprintf(stderr, "CHACHA_BENCH_AEAD=%s: no such fused kernel of this pair\n", name);
    exit(2);
}

int main(int argc, char **argv)
{
    static const unsigned char key[32] = { 1, 2, 3 }, iv[16] = { 0, 0, 0, 0, 9 };
    static const uint32_t nonce[3] = { 9, 0, 0 };
    uint32_t k[8], c[4] = { 0, 9, 0, 0 };
    size_t len, iters, i;
    unsigned char *buf, tag[16];
    const char *who;
    int ours, mode, outl;
    enum chacha_select_status status;
    const chacha20_kernel *ck =
        chacha_select_chacha20(getenv("CHACHA_PROVIDER_IMPL"), &status);
    const poly1305_kernel *pk =
        chacha_select_poly1305(getenv("CHACHA_PROVIDER_POLY1305_IMPL"), &status);
    static chacha_aead aead;
    poly1305_ctx pc;
    EVP_CIPHER_CTX *ctx = NULL;
    EVP_CIPHER *ciph = NULL;
    EVP_MAC *mac = NULL;
    EVP_MAC_CTX *mctx = NULL;
    OSSL_PARAM mp[2] = { OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_KEY,
                                                           (void *)key, 32),
                         OSSL_PARAM_END };
    size_t ml;

    if (argc != 4 || ck == NULL || pk == NULL)
        return 2;
    print_base("self", (void *)main);
    print_base("libcrypto", (void *)EVP_EncryptUpdate);
    who = argv[1];
    ours = strstr(who, "-ours") != NULL;
    /* decoded once: no string compare inside the measured loop */
    mode = (strncmp(who, "poly", 4) == 0 ? 2 : strncmp(who, "aead", 4) == 0 ? 4 : 0)
           + ours;
    len = strtoul(argv[2], NULL, 0);
    iters = strtoul(argv[3], NULL, 0);
    buf = calloc(1, len + 64);
    if (buf == NULL)
        return 1;
    memcpy(k, key, sizeof(k));
    ciph = EVP_CIPHER_fetch(NULL, mode >= 4 ? "ChaCha20-Poly1305" : "ChaCha20",
                            "provider=default");
    ctx = EVP_CIPHER_CTX_new();
    mac = EVP_MAC_fetch(NULL, "POLY1305", "provider=default");
    mctx = EVP_MAC_CTX_new(mac);
    if (ciph == NULL || ctx == NULL || mctx == NULL
        || !EVP_EncryptInit_ex2(ctx, ciph, key, iv, NULL))
        return 1;
    /* a running AEAD message: one-time key made, AAD closed, 64 bytes in */
    if (!EVP_EncryptUpdate(ctx, buf, &outl, buf, 64))
        return 1;
    chacha_aead_setup(&aead, ck, pk, bench_fused(ck, pk));
    chacha_aead_set_key(&aead, key);
    chacha_aead_set_nonce(&aead, nonce);
    chacha_aead_text(&aead, buf, buf, 64, 1);
    poly1305_init(&pc, pk, key);
    for (i = 0; i < iters; i++) {
        switch (mode) {
        case 1:                                 /* chacha-ours */
            ck->xor_stream(buf, buf, len, k, c);
            c[0] += (uint32_t)((len + 63) / 64);
            break;
        case 3:                                 /* poly-ours */
            poly1305_init(&pc, pk, key);
            poly1305_update(&pc, buf, len);
            poly1305_final(&pc, tag);
            buf[0] ^= tag[0];
            break;
        case 5:                                 /* aead-ours */
            chacha_aead_text(&aead, buf, buf, len, 1);
            break;
        case 2:                                 /* poly-openssl */
            if (!EVP_MAC_init(mctx, NULL, 0, mp) || !EVP_MAC_update(mctx, buf, len)
                || !EVP_MAC_final(mctx, tag, &ml, sizeof(tag)))
                return 1;
            buf[0] ^= tag[0];
            break;
        default:                                /* chacha-, aead-openssl */
            if (!EVP_EncryptUpdate(ctx, buf, &outl, buf, (int)len))
                return 1;
            break;
        }
    }
    printf("%02x\n", buf[0]);
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(ciph);
    EVP_MAC_CTX_free(mctx);
    EVP_MAC_free(mac);
    free(buf);
    return 0;
}
