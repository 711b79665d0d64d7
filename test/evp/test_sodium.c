/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Differential against libsodium (an independent implementation, linked
 * here only): our XChaCha20-Poly1305 and XChaCha20 through EVP against
 * crypto_aead_xchacha20poly1305_ietf_encrypt/_decrypt and
 * crypto_stream_xchacha20_xor_ic, with random keys, nonces, AAD and lengths
 * 0..70000 (and the edges around 16/64-byte blocks and the 448-byte head),
 * AAD and text fed in random chunks, in place or not, through
 * Update/Final or EVP_Cipher:
 *  - seal: our ciphertext and tag equal libsodium's;
 *  - open: we open libsodium's record; a record with one bit flipped in
 *    the tag, the ciphertext or the AAD is refused (by libsodium too, as a
 *    check of the tampering itself) and nothing but the Final fails;
 *  - stream: our XChaCha20 with IV = nonce || LE64(ic) equals
 *    crypto_stream_xchacha20_xor_ic(nonce, ic), ic random and near 2^32 and
 *    2^64 (the 64-bit counter's carry and wrap).
 * Runs once per kernel (test/lib/run-kernels). CHACHA_TEST_ITERATIONS sets
 * the number of cases of each kind (default 4000), CHACHA_TEST_SEED the seed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <sodium.h>

#include "testutil.h"
#include "testrng.h"

#define MAXLEN 70000
#define MAXAAD 700

static EVP_CIPHER *xaead, *xc20;
static unsigned char *pt, *ct, *buf, *aad;
static unsigned long long total_bytes;

/* A length: edges of the block and head structure, small, medium or up to MAXLEN. */
static size_t pick_len(size_t max)
{
    static const size_t edges[] = { 0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 447,
                                    448, 449, 511, 512, 513, 1023, 1024, 4096, 65536 };
    size_t v;

    switch (rng() % 4) {
    case 0:
        v = edges[rng() % (sizeof(edges) / sizeof(edges[0]))];
        break;
    case 1:
        v = (size_t)(rng() % 300);
        break;
    case 2:
        v = (size_t)(rng() % 4500);
        break;
    default:
        v = (size_t)(rng() % (MAXLEN + 1));
        break;
    }
    return v > max ? max : v;
}

/* The next chunk of a message fed in pieces: 1..17, a block, or anything. */
static size_t chunk(size_t left)
{
    size_t n;

    switch (rng() % 4) {
    case 0:
        n = 1 + (size_t)(rng() % 17);
        break;
    case 1:
        n = 64 * (1 + (size_t)(rng() % 8));
        break;
    case 2:
        n = 1 + (size_t)(rng() % 1000);
        break;
    default:
        n = left;
        break;
    }
    return n > left ? left : n;
}

/*
 * Our AEAD over (aad, in) into out (out may be in): AAD and text in random
 * chunks through EVP_CipherUpdate, or through EVP_Cipher (api 1). Opening
 * sets tag before the text. Returns the Final's result (1 ok).
 */
static int ours_aead(int enc, const unsigned char *key, const unsigned char *nonce,
                     const unsigned char *a, size_t alen, const unsigned char *in,
                     size_t len, unsigned char *out, unsigned char tag[16], int api,
                     int *steps_ok)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    size_t done, n;
    int outl, ok, fin = 0;

    ok = ctx != NULL && EVP_CipherInit_ex2(ctx, xaead, key, nonce, enc, NULL)
         && (enc || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag) > 0);
    for (done = 0; ok && done < alen; done += n) {
        n = chunk(alen - done);
        ok = api ? EVP_Cipher(ctx, NULL, a + done, (unsigned int)n) == (int)n
                 : EVP_CipherUpdate(ctx, NULL, &outl, a + done, (int)n) && outl == (int)n;
    }
    for (done = 0; ok && done < len; done += n) {
        n = chunk(len - done);
        ok = api ? EVP_Cipher(ctx, out + done, in + done, (unsigned int)n) == (int)n
                 : EVP_CipherUpdate(ctx, out + done, &outl, in + done, (int)n)
                   && outl == (int)n;
    }
    if (ok) {
        fin = api ? EVP_Cipher(ctx, NULL, NULL, 0) == 0
                  : EVP_CipherFinal_ex(ctx, out + len, &outl) == 1 && outl == 0;
        if (fin && enc)
            fin = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag) > 0;
    }
    *steps_ok = ok;
    ERR_clear_error();
    EVP_CIPHER_CTX_free(ctx);
    return fin;
}

static unsigned long n_seal, n_open, n_tamper, n_stream, n_inplace, n_cipher_api;

static void aead_case(void)
{
    unsigned char key[32], nonce[24], tag[16], stag[16];
    unsigned long long clen;
    size_t len = pick_len(MAXLEN), alen = pick_len(MAXAAD);
    int inplace = (int)(rng() & 1), api = rng() % 5 == 0, steps, r;
    unsigned char *out = inplace ? buf : ct + MAXLEN + 16;   /* ct's upper half */

    rng_bytes(key, 32);
    rng_bytes(nonce, 24);
    rng_bytes(pt, len);
    rng_bytes(aad, alen);
    n_inplace += (unsigned long)inplace;
    n_cipher_api += (unsigned long)api;
    total_bytes += 2 * len;

    /* libsodium seals: ct = c || tag */
    if (!TU_CHECK(crypto_aead_xchacha20poly1305_ietf_encrypt(ct, &clen, pt, len, aad, alen,
                                                             NULL, nonce, key) == 0
                  && clen == len + 16, "libsodium seal"))
        return;
    memcpy(stag, ct + len, 16);
    /* ours seals the same */
    if (inplace)
        memcpy(buf, pt, len);
    r = ours_aead(1, key, nonce, aad, alen, inplace ? buf : pt, len, out, tag, api, &steps);
    if (!TU_CHECK(r && steps, "seal len %zu aad %zu (%s%s)", len, alen,
                  inplace ? "in place" : "", api ? " EVP_Cipher" : "")
        || !TU_MEM_EQ(out, len, ct, len, "seal: ciphertext vs libsodium")
        || !TU_MEM_EQ(tag, 16, stag, 16, "seal: tag vs libsodium"))
        return;
    n_seal++;
    /* ours opens libsodium's record */
    if (inplace)
        memcpy(buf, ct, len);
    memcpy(tag, stag, 16);
    r = ours_aead(0, key, nonce, aad, alen, inplace ? buf : ct, len, out, tag, api, &steps);
    if (!TU_CHECK(r && steps, "open len %zu aad %zu", len, alen)
        || !TU_MEM_EQ(out, len, pt, len, "open: plaintext"))
        return;
    n_open++;
    /* one bit flipped: tag, ciphertext (if any) or AAD (if any) */
    {
        int where = (int)(rng() % 3);
        size_t at;

        if (where == 1 && len == 0)
            where = 0;
        if (where == 2 && alen == 0)
            where = 0;
        at = where == 0 ? (size_t)(rng() % 16) : (size_t)(rng() % (where == 1 ? len : alen));
        if (where == 0)
            ct[len + at] ^= (unsigned char)(1u << (rng() % 8));
        else if (where == 1)
            ct[at] ^= (unsigned char)(1u << (rng() % 8));
        else
            aad[at] ^= (unsigned char)(1u << (rng() % 8));
        TU_CHECK(crypto_aead_xchacha20poly1305_ietf_decrypt(buf, NULL, NULL, ct, len + 16,
                                                            aad, alen, nonce, key) != 0,
                 "libsodium opened a tampered record (the tampering is wrong)");
        if (inplace)
            memcpy(buf, ct, len);
        memcpy(tag, ct + len, 16);
        r = ours_aead(0, key, nonce, aad, alen, inplace ? buf : ct, len, out, tag, api,
                      &steps);
        if (TU_CHECK(!r && steps, "a record tampered in the %s (len %zu aad %zu) was %s",
                     where == 0 ? "tag" : where == 1 ? "ciphertext" : "aad", len, alen,
                     r ? "accepted" : "refused before the Final"))
            n_tamper++;
    }
}

static void stream_case(void)
{
    static const unsigned long long near[] = {
        0xffffffffull, 0xfffffffeull, 0xfffffff0ull, 0x1ffffffffull,
        0xffffffffffffffffull, 0xfffffffffffffff0ull
    };
    unsigned char key[32], iv[32];
    unsigned long long ic = rng() % 3 == 0 ? near[rng() % 6] - (rng() % 4) : rng();
    size_t len = pick_len(MAXLEN), done, n, i;
    int inplace = (int)(rng() & 1), outl, ok;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();

    if (rng() % 4 == 0)
        ic &= 0xffff;          /* small counters, as most callers use */
    rng_bytes(key, 32);
    rng_bytes(iv, 24);
    for (i = 0; i < 8; i++)
        iv[24 + i] = (unsigned char)(ic >> (8 * i));
    rng_bytes(pt, len);
    total_bytes += 2 * len;
    TU_CHECK(crypto_stream_xchacha20_xor_ic(ct, pt, len, iv, ic, key) == 0,
             "libsodium stream");
    if (inplace)
        memcpy(buf, pt, len);
    ok = ctx != NULL && EVP_EncryptInit_ex2(ctx, xc20, key, iv, NULL);
    for (done = 0; ok && done < len; done += n) {
        n = chunk(len - done);
        ok = EVP_EncryptUpdate(ctx, buf + done, &outl, inplace ? buf + done : pt + done,
                               (int)n) && outl == (int)n;
    }
    ok = ok && EVP_EncryptFinal_ex(ctx, buf + len, &outl);
    if (TU_CHECK(ok, "XChaCha20 len %zu ic %llx", len, ic)
        && TU_MEM_EQ(buf, len, ct, len, "XChaCha20 vs crypto_stream_xchacha20_xor_ic"))
        n_stream++;
    else
        printf("#   ic %016llx len %zu %s\n", ic, len, inplace ? "in place" : "");
    EVP_CIPHER_CTX_free(ctx);
}

int main(void)
{
    const char *seed = getenv("CHACHA_TEST_SEED"), *it = getenv("CHACHA_TEST_ITERATIONS");
    long iters = it != NULL && atol(it) > 0 ? atol(it) : 4000, i;

    if (seed != NULL)
        rng_state = strtoull(seed, NULL, 10);
    printf("# seed %llu, %ld cases of each kind\n", (unsigned long long)rng_state, iters);
    if (!tu_init("test_sodium"))
        return tu_finish();
    if (!TU_CHECK(sodium_init() >= 0, "sodium_init"))
        return tu_finish();
    printf("# libsodium %s\n", sodium_version_string());
    xaead = tu_fetch_ours("XChaCha20-Poly1305");
    xc20 = tu_fetch_ours("XChaCha20");
    pt = malloc(MAXLEN + 16);
    ct = malloc(2 * (MAXLEN + 16));
    buf = malloc(MAXLEN + 16);
    aad = malloc(MAXAAD);
    if (xaead == NULL || xc20 == NULL || !TU_CHECK(pt && ct && buf && aad, "malloc"))
        goto end;
    for (i = 0; i < iters && tu_failed() < 20; i++) {
        aead_case();
        stream_case();
    }
    printf("# XChaCha20-Poly1305: %lu sealed equal to libsodium, %lu of libsodium's opened,"
           " %lu tampered refused (%lu in place, %lu through EVP_Cipher)\n",
           n_seal, n_open, n_tamper, n_inplace, n_cipher_api);
    printf("# XChaCha20: %lu streams equal to crypto_stream_xchacha20_xor_ic; %.1f MB"
           " compared\n", n_stream, (double)total_bytes / 1e6);
    TU_CHECK(n_seal == (unsigned long)iters && n_open == (unsigned long)iters
             && n_tamper == (unsigned long)iters && n_stream == (unsigned long)iters,
             "every case of each kind ran and agreed");
 end:
    free(pt);
    free(ct);
    free(buf);
    free(aad);
    EVP_CIPHER_free(xaead);
    EVP_CIPHER_free(xc20);
    return tu_finish();
}
