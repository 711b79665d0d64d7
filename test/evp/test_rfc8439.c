/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Every RFC 8439 vector in test/vectors/rfc8439_vectors.json that can be
 * reached through EVP, run against the "chacha" provider:
 *  - chacha20_block (2.3.2, A.1) and chacha20_encrypt (2.4.2, A.2) through
 *    "ChaCha20" with OpenSSL's IV = LE32(counter) || 12-byte nonce;
 *  - poly1305_keygen (2.6.2, A.4): first 32 bytes of the ChaCha20 keystream
 *    at counter 0;
 *  - aead_chacha20_poly1305 (2.8.2, A.5) through "ChaCha20-Poly1305", plus
 *    its one-time key;
 *  - poly1305 (2.5.2, A.3): through EVP_MAC "POLY1305" of provider chacha,
 *    which must offer it (a MAC that cannot be fetched is a failure).
 * The quarter-round vectors (2.1.1, 2.2.1) are internal to the block
 * function and not reachable through EVP.
 * Usage: test_rfc8439 [path/to/rfc8439_vectors.json]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include "testutil.h"

static EVP_CIPHER *c20, *aead;
static EVP_MAC *mac;

typedef struct {
    const char *id;
    unsigned char *b[8];
    size_t len[8];
    int n;
} hexset;

/* Decodes the named fields of v; missing optional fields ("?name") give
 * NULL. Returns 1 if all required fields were present and valid. */
static int get_hex(hexset *h, const tj_value *v, const char *const *names)
{
    int i, ok = 1;

    memset(h, 0, sizeof(*h));
    h->id = tj_str(v, "id");
    if (h->id == NULL)
        h->id = "(no id)";
    for (i = 0; names[i] != NULL && i < 8; i++) {
        const char *name = names[i];
        int optional = name[0] == '?';
        const char *s = tj_str(v, optional ? name + 1 : name);

        h->n = i + 1;
        if (s == NULL) {
            if (!optional)
                ok = TU_CHECK(0, "%s: missing field %s", h->id, name);
            continue;
        }
        h->b[i] = tu_hex_decode(s, &h->len[i]);
        if (h->b[i] == NULL)
            ok = TU_CHECK(0, "%s: bad hex in %s", h->id, name);
    }
    return ok;
}

static void free_hex(hexset *h)
{
    int i;

    for (i = 0; i < h->n; i++)
        free(h->b[i]);
}

/* ChaCha20 through EVP. iv = LE32(counter) || nonce. Returns 1 on success;
 * next_iv (16 bytes) gets EVP_CIPHER_CTX_get_updated_iv() afterwards. */
static int chacha20(const char *id, const unsigned char key[32],
                    unsigned long counter, const unsigned char *nonce,
                    size_t nonce_len, const unsigned char *in, size_t len,
                    unsigned char *out, unsigned char next_iv[16], int enc)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    unsigned char iv[16];
    int outl = 0, fl = 0, ok;

    if (!TU_CHECK(nonce_len == 12, "%s: nonce length %zu", id, nonce_len)) {
        EVP_CIPHER_CTX_free(ctx);
        return 0;
    }
    iv[0] = (unsigned char)counter;
    iv[1] = (unsigned char)(counter >> 8);
    iv[2] = (unsigned char)(counter >> 16);
    iv[3] = (unsigned char)(counter >> 24);
    memcpy(iv + 4, nonce, 12);
    ok = TU_CHECK(ctx != NULL
                  && EVP_CipherInit_ex(ctx, c20, NULL, key, iv, enc)
                  && EVP_CipherUpdate(ctx, out, &outl, in, (int)len)
                  && EVP_CipherFinal_ex(ctx, out + outl, &fl)
                  && (size_t)(outl + fl) == len,
                  "%s: ChaCha20 %s", id, enc ? "encrypt" : "decrypt");
    if (ok && next_iv != NULL) {
        memset(next_iv, 0xa5, 16);
        ok = TU_CHECK(EVP_CIPHER_CTX_get_updated_iv(ctx, next_iv, 16),
                      "%s: get_updated_iv", id);
    }
    ERR_clear_error();
    EVP_CIPHER_CTX_free(ctx);
    return ok;
}

/* Expected updated IV: the counter advanced by ceil(len / 64) blocks (no
 * RFC vector gets near the 32-bit wrap, so no carry is needed here). */
static void expected_next_iv(unsigned char out[16], unsigned long counter,
                             const unsigned char *nonce, size_t len)
{
    unsigned long c = counter + (unsigned long)((len + 63) / 64);

    out[0] = (unsigned char)c;
    out[1] = (unsigned char)(c >> 8);
    out[2] = (unsigned char)(c >> 16);
    out[3] = (unsigned char)(c >> 24);
    memcpy(out + 4, nonce, 12);
}

static void test_block(const tj_value *v)
{
    static const char *const f[] = { "key", "nonce", "keystream", NULL };
    hexset h;
    unsigned long counter = (unsigned long)tj_num(v, "counter", -1);
    unsigned char zero[64] = { 0 }, out[64], niv[16], eniv[16];
    char label[80];

    if (get_hex(&h, v, f)
        && TU_CHECK(h.len[0] == 32 && h.len[2] == 64, "%s: sizes", h.id)
        && chacha20(h.id, h.b[0], counter, h.b[1], h.len[1], zero, 64, out,
                    niv, 1)) {
        snprintf(label, sizeof(label), "%s: keystream block", h.id);
        TU_MEM_EQ(out, 64, h.b[2], h.len[2], label);
        expected_next_iv(eniv, counter, h.b[1], 64);
        snprintf(label, sizeof(label), "%s: updated IV", h.id);
        TU_MEM_EQ(niv, 16, eniv, 16, label);
    }
    free_hex(&h);
}

static void test_encrypt(const tj_value *v)
{
    static const char *const f[] = { "key", "nonce", "plaintext",
                                     "ciphertext", "?keystream", NULL };
    hexset h;
    unsigned long counter = (unsigned long)tj_num(v, "counter", -1);
    unsigned char *out = NULL, *zero = NULL, niv[16], eniv[16];
    char label[80];

    if (!get_hex(&h, v, f)
        || !TU_CHECK(h.len[0] == 32 && h.len[2] == h.len[3], "%s: sizes",
                     h.id))
        goto end;
    out = malloc(h.len[2] + 1);
    zero = calloc(1, h.len[2] + 1);
    if (chacha20(h.id, h.b[0], counter, h.b[1], h.len[1], h.b[2], h.len[2],
                 out, niv, 1)) {
        snprintf(label, sizeof(label), "%s: ciphertext", h.id);
        TU_MEM_EQ(out, h.len[2], h.b[3], h.len[3], label);
        expected_next_iv(eniv, counter, h.b[1], h.len[2]);
        snprintf(label, sizeof(label), "%s: updated IV", h.id);
        TU_MEM_EQ(niv, 16, eniv, 16, label);
    }
    if (chacha20(h.id, h.b[0], counter, h.b[1], h.len[1], h.b[3], h.len[3],
                 out, NULL, 0)) {
        snprintf(label, sizeof(label), "%s: decrypted plaintext", h.id);
        TU_MEM_EQ(out, h.len[3], h.b[2], h.len[2], label);
    }
    if (h.b[4] != NULL
        && chacha20(h.id, h.b[0], counter, h.b[1], h.len[1], zero, h.len[2],
                    out, NULL, 1)) {
        snprintf(label, sizeof(label), "%s: keystream", h.id);
        TU_MEM_EQ(out, h.len[2], h.b[4], h.len[4], label);
    }
 end:
    free(out);
    free(zero);
    free_hex(&h);
}

static void test_keygen(const tj_value *v)
{
    static const char *const f[] = { "key", "nonce", "otk", NULL };
    hexset h;
    unsigned char zero[32] = { 0 }, out[32];
    char label[80];

    if (get_hex(&h, v, f)
        && TU_CHECK(h.len[0] == 32 && h.len[2] == 32, "%s: sizes", h.id)
        && chacha20(h.id, h.b[0], 0, h.b[1], h.len[1], zero, 32, out, NULL,
                    1)) {
        snprintf(label, sizeof(label), "%s: Poly1305 one-time key", h.id);
        TU_MEM_EQ(out, 32, h.b[2], 32, label);
    }
    free_hex(&h);
}

/* Poly1305 through EVP_MAC of our provider. */
static void poly1305_mac(const char *id, const unsigned char *key,
                         size_t key_len, const unsigned char *msg,
                         size_t msg_len, const unsigned char *tag,
                         size_t tag_len)
{
    EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(mac);
    unsigned char out[16];
    size_t outl = 0;
    char label[80];

    if (TU_CHECK(ctx != NULL && EVP_MAC_init(ctx, key, key_len, NULL)
                 && EVP_MAC_update(ctx, msg, msg_len)
                 && EVP_MAC_final(ctx, out, &outl, sizeof(out)),
                 "%s: EVP_MAC POLY1305", id)) {
        snprintf(label, sizeof(label), "%s: Poly1305 tag", id);
        TU_MEM_EQ(out, outl, tag, tag_len, label);
    }
    ERR_clear_error();
    EVP_MAC_CTX_free(ctx);
}

static void test_aead(const tj_value *v)
{
    static const char *const f[] = { "key", "nonce", "aad", "plaintext",
                                     "ciphertext", "tag", "?poly1305_otk",
                                     "?poly1305_input", NULL };
    hexset h;
    EVP_CIPHER_CTX *ctx = NULL;
    unsigned char *out = NULL, tag[16], zero[32] = { 0 }, otk[32];
    int outl = 0, fl = 0;
    char label[80];
    const char *fixed = tj_str(v, "iv_fixed_common_part");
    const char *ivpart = tj_str(v, "iv");

    if (!get_hex(&h, v, f)
        || !TU_CHECK(h.len[0] == 32 && h.len[1] == 12 && h.len[5] == 16
                     && h.len[3] == h.len[4], "%s: sizes", h.id))
        goto end;
    if (fixed != NULL && ivpart != NULL) {
        /* nonce = fixed-common part || IV (RFC 8439 2.8.2) */
        char joined[64];

        snprintf(joined, sizeof(joined), "%s%s", fixed, ivpart);
        TU_CHECK(strcmp(joined, tj_str(v, "nonce")) == 0,
                 "%s: nonce != fixed || iv", h.id);
    }
    out = malloc(h.len[3] + 1);

    /* encrypt */
    ctx = EVP_CIPHER_CTX_new();
    if (TU_CHECK(ctx != NULL
                 && EVP_EncryptInit_ex(ctx, aead, NULL, h.b[0], h.b[1])
                 && EVP_EncryptUpdate(ctx, NULL, &outl, h.b[2], (int)h.len[2])
                 && EVP_EncryptUpdate(ctx, out, &outl, h.b[3], (int)h.len[3])
                 && EVP_EncryptFinal_ex(ctx, out + outl, &fl)
                 && (size_t)(outl + fl) == h.len[3]
                 && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag),
                 "%s: AEAD encrypt", h.id)) {
        snprintf(label, sizeof(label), "%s: AEAD ciphertext", h.id);
        TU_MEM_EQ(out, h.len[3], h.b[4], h.len[4], label);
        snprintf(label, sizeof(label), "%s: AEAD tag", h.id);
        TU_MEM_EQ(tag, 16, h.b[5], 16, label);
    }
    ERR_clear_error();
    EVP_CIPHER_CTX_free(ctx);

    /* decrypt, tag set after the key as libssl does for TLS 1.3 */
    ctx = EVP_CIPHER_CTX_new();
    if (TU_CHECK(ctx != NULL
                 && EVP_DecryptInit_ex(ctx, aead, NULL, h.b[0], h.b[1])
                 && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16,
                                        h.b[5])
                 && EVP_DecryptUpdate(ctx, NULL, &outl, h.b[2], (int)h.len[2])
                 && EVP_DecryptUpdate(ctx, out, &outl, h.b[4], (int)h.len[4])
                 && EVP_DecryptFinal_ex(ctx, out + outl, &fl)
                 && (size_t)(outl + fl) == h.len[4],
                 "%s: AEAD decrypt", h.id)) {
        snprintf(label, sizeof(label), "%s: AEAD plaintext", h.id);
        TU_MEM_EQ(out, h.len[4], h.b[3], h.len[3], label);
    }
    ERR_clear_error();
    EVP_CIPHER_CTX_free(ctx);

    /* the one-time Poly1305 key = ChaCha20 keystream at counter 0 */
    if (h.b[6] != NULL
        && chacha20(h.id, h.b[0], 0, h.b[1], 12, zero, 32, otk, NULL, 1)) {
        snprintf(label, sizeof(label), "%s: Poly1305 one-time key", h.id);
        TU_MEM_EQ(otk, 32, h.b[6], h.len[6], label);
    }
    if (h.b[6] != NULL && h.b[7] != NULL)
        poly1305_mac(h.id, h.b[6], h.len[6], h.b[7], h.len[7], h.b[5], 16);
 end:
    free(out);
    free_hex(&h);
}

static void test_poly1305(const tj_value *v)
{
    static const char *const f[] = { "key", "msg", "tag", NULL };
    hexset h;

    if (get_hex(&h, v, f))
        poly1305_mac(h.id, h.b[0], h.len[0], h.b[1], h.len[1], h.b[2],
                     h.len[2]);
    free_hex(&h);
}

static const struct {
    const char *key;
    void (*run)(const tj_value *);  /* NULL: not reachable through EVP */
    long expected;
} sets[] = {
    { "chacha20_quarter_round", NULL, 1 },
    { "chacha20_state_quarter_round", NULL, 1 },
    { "chacha20_block", test_block, 6 },
    { "chacha20_encrypt", test_encrypt, 4 },
    { "poly1305", test_poly1305, 12 },
    { "poly1305_keygen", test_keygen, 4 },
    { "aead_chacha20_poly1305", test_aead, 2 },
};

int main(int argc, char **argv)
{
    char *path = argc > 1 ? strcpy(malloc(strlen(argv[1]) + 1), argv[1])
                          : tu_vector_path("rfc8439_vectors.json");
    char *text = NULL;
    tj_value *root = NULL;
    size_t i, k, s;
    const size_t nsets = sizeof(sets) / sizeof(sets[0]);

    if (!tu_init("test_rfc8439"))
        goto end;
    if ((c20 = tu_fetch_ours("ChaCha20")) == NULL
        || (aead = tu_fetch_ours("ChaCha20-Poly1305")) == NULL)
        goto end;
    mac = EVP_MAC_fetch(tu_libctx, "POLY1305", TU_PROPQ_OURS);
    if (!TU_CHECK(mac != NULL, "EVP_MAC POLY1305 cannot be fetched from %s",
                  TU_OURS)) {
        tu_print_errors();
        goto end;
    }
    TU_CHECK(strcmp(OSSL_PROVIDER_get0_name(EVP_MAC_get0_provider(mac)),
                    TU_OURS) == 0, "POLY1305 MAC not from %s", TU_OURS);

    text = tu_read_file(path, NULL);
    if (!TU_CHECK(text != NULL, "read %s", path))
        goto end;
    root = tj_parse(text);
    if (!TU_CHECK(root != NULL && root->type == TJ_OBJ,
                  "JSON parse error in %s", path))
        goto end;

    /* every list in the file must be a known vector set */
    for (k = 0; k < root->n; k++) {
        if (root->items[k]->type != TJ_ARR)
            continue;
        for (s = 0; s < nsets; s++)
            if (strcmp(root->keys[k], sets[s].key) == 0)
                break;
        TU_CHECK(s < nsets, "unknown vector set \"%s\"", root->keys[k]);
    }
    for (s = 0; s < nsets; s++) {
        const tj_value *list = tj_get(root, sets[s].key);
        unsigned long before = tu_failed();
        long n = list != NULL && list->type == TJ_ARR ? (long)list->n : -1;

        if (!TU_CHECK(n == sets[s].expected, "%s: %ld vectors, expected %ld",
                      sets[s].key, n, sets[s].expected))
            continue;
        if (sets[s].run == NULL) {
            printf("# %-24s %ld vector(s): internal to the block function, "
                   "not reachable through EVP (", sets[s].key, n);
            for (i = 0; i < list->n; i++)
                printf("%s%s", i ? " " : "", tj_str(list->items[i], "id"));
            printf(")\n");
            continue;
        }
        for (i = 0; i < list->n; i++)
            sets[s].run(list->items[i]);
        printf("# %-24s %ld vectors: %s\n", sets[s].key, n,
               tu_failed() == before ? "ok" : "FAILED");
    }
 end:
    tj_free(root);
    free(text);
    free(path);
    EVP_MAC_free(mac);
    EVP_CIPHER_free(c20);
    EVP_CIPHER_free(aead);
    return tu_finish();
}
