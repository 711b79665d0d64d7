/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_parity: ChaCha20 streams (re-init, counter carry, chunks, EVP_Cipher,
 * dup).
 */
#include "parity.h"

/* ------------------------------------------------------------------------ */
/* ChaCha20 specifics                                                        */

/* key-only re-init after `split` bytes: the partial block is kept */
/*
 * A block completed by pieces (32 + 32): OpenSSL has not stepped past it, so
 * a key-only re-init restarts that same block with the new key.
 */
static void seq_c20_rekey_pieces(const EVP_CIPHER *c, const void *arg)
{
    const size_t *pieces = arg;
    EVP_CIPHER_CTX *ctx = s_new();
    unsigned char out[512] = { 0 };
    size_t off = 0;

    s_init(ctx, c, KEY1, IV16, 1, "key1+iv");
    for (; *pieces != 0; pieces++) {
        s_upd(ctx, out + off, PT + off, *pieces, 0, "piece");
        off += *pieces;
    }
    s_init(ctx, NULL, KEY2, NULL, -1, "key2 only");
    s_upd(ctx, out, PT, 100, 0, "after re-key 100");
    EVP_CIPHER_CTX_free(ctx);
}

static void seq_c20_rekey(const EVP_CIPHER *c, const void *arg)
{
    size_t split = *(const size_t *)arg;
    EVP_CIPHER_CTX *ctx = s_new(), *ref = s_new();
    unsigned char out[512] = { 0 }, ks[100], zero[100], iv[16];
    int outl;

    s_init(ctx, c, KEY1, IV16, 1, "key1+iv");
    s_upd(ctx, out, PT, split, 0, "before re-key");
    s_init(ctx, NULL, KEY2, NULL, -1, "key2 only");
    s_upd(ctx, out, PT, 100, 0, "after re-key 100");
    /*
     * What the default (3.0.22) does, measured: the rest of a partly used
     * block is dropped and the new key starts at the beginning of that block,
     * i.e. at block counter + floor(split / 64).
     */
    memcpy(iv, IV16, 16);
    store_le32(iv, (uint32_t)(IV16[0] | IV16[1] << 8 | IV16[2] << 16
                              | (uint32_t)IV16[3] << 24) + (uint32_t)(split / 64));
    memset(zero, 0, sizeof(zero));
    EVP_EncryptInit_ex(ref, c, NULL, KEY2, iv);
    EVP_EncryptUpdate(ref, ks, &outl, zero, 100);
    for (outl = 0; outl < 100; outl++)
        ks[outl] ^= PT[outl];
    r_int(memcmp(ks, out, 100) == 0,
          "after re-key: key2 stream from block ctr+%zu, offset 0", split / 64);
    want_int(1);
    EVP_CIPHER_CTX_free(ref);
    s_upd(ctx, out, PT, 64, 0, "then 64");
    s_upd(ctx, out, PT, 3, 0, "then 3");
    s_init(ctx, NULL, KEY1, NULL, -1, "key1 only again");
    s_upd(ctx, out, PT, 200, 0, "then 200");
    s_init(ctx, NULL, NULL, IV16B, -1, "iv only");
    s_upd(ctx, out, PT, 77, 0, "after iv-only 77");
    s_init(ctx, NULL, KEY2, IV16, -1, "key2+iv");
    s_upd(ctx, out, PT, 130, 0, "after key+iv 130");
    s_final(ctx, "c20");
    EVP_CIPHER_CTX_free(ctx);
}

typedef struct {
    uint32_t w0, w1;
    size_t len;
    size_t pat[8];
    int npat;
} carry_case;

/* counter near 2^32: OpenSSL carries into IV bytes 4-7 */
static void seq_c20_carry(const EVP_CIPHER *c, const void *arg)
{
    const carry_case *cc = arg;
    unsigned char iv[16], out1[4096], out2[4096];
    spec s;
    EVP_CIPHER_CTX *ctx = s_new();
    size_t off = 0;
    int i, n;
    size_t ch[MAXCH];

    memcpy(iv, IV16, 16);
    store_le32(iv, cc->w0);
    store_le32(iv + 4, cc->w1);
    spec_c20(&s, 1, iv, cc->len);
    s_init(ctx, c, KEY1, iv, 1, "carry");
    s_upd(ctx, out1, PT, cc->len, 0, "one shot");
    s_init(ctx, NULL, NULL, iv, -1, "carry again");
    chunks(ch, &n, cc->len, cc->pat, cc->npat);
    for (i = 0; i < n; i++) {
        char lbl[24];

        snprintf(lbl, sizeof(lbl), "chunk[%d]", i);
        s_upd(ctx, out2 + off, PT + off, ch[i], 0, lbl);
        off += ch[i];
    }
    r_int(memcmp(out1, out2, cc->len) == 0, "chunked == one shot");
    want_int(1);
    EVP_CIPHER_CTX_free(ctx);
}

/* The carry itself, independently of the default: block 1 at word0 2^32-1,
 * word1 w equals block 0 at word0 0, word1 w+1. */
static void seq_c20_carry_layout(const EVP_CIPHER *c, const void *arg)
{
    unsigned char iv_a[16], iv_b[16], a[128], b[64];
    EVP_CIPHER_CTX *ctx = s_new();

    (void)arg;
    memcpy(iv_a, IV16, 16);
    store_le32(iv_a, 0xffffffffu);
    store_le32(iv_a + 4, 5);
    memcpy(iv_b, IV16, 16);
    store_le32(iv_b, 0);
    store_le32(iv_b + 4, 6);
    memset(a, 0, sizeof(a));
    memset(b, 0, sizeof(b));
    s_init(ctx, c, KEY1, iv_a, 1, "ctr 0xffffffff, w1 5");
    s_upd(ctx, a, a, sizeof(a), 0, "128 zero bytes");
    s_init(ctx, NULL, NULL, iv_b, -1, "ctr 0, w1 6");
    s_upd(ctx, b, b, sizeof(b), 0, "64 zero bytes");
    r_int(memcmp(a + 64, b, 64) == 0, "carry into word 1");
    want_int(1);
    EVP_CIPHER_CTX_free(ctx);
}

static void seq_c20_cipher_api(const EVP_CIPHER *c, const void *arg)
{
    EVP_CIPHER_CTX *ctx = s_new();
    unsigned char out[1000] = { 0 };

    (void)arg;
    s_init(ctx, c, KEY1, IV16, 1, "key+iv");
    s_cipher(ctx, out, PT, 1000, "one shot 1000");
    s_cipher(ctx, out, PT, 0, "zero length");
    s_cipher(ctx, out, PT, 33, "33");
    s_cipher(ctx, NULL, NULL, 0, "NULL finalise");
    s_init(ctx, NULL, NULL, IV16, -1, "iv again");
    memcpy(out, PT, 1000);
    s_cipher(ctx, out, out, 1000, "in place");
    s_init(ctx, NULL, NULL, IV16, 0, "decrypt");
    s_cipher(ctx, out, out, 1000, "decrypt in place");
    r_int(memcmp(out, PT, 1000) == 0, "round trip");
    want_int(1);
    EVP_CIPHER_CTX_free(ctx);
}


/* ChaCha20 streams */
void cases_chacha20(void)
{
    static const size_t splits_c20[] = { 0, 1, 37, 63, 64, 65, 100 };
    static const carry_case carries[] = {
        { 0xfffffffeu, 0x01020304u, 300, { 1, 63, 65, 7, 100, 64 }, 6 },
        { 0xfffffffeu, 0xffffffffu, 700, { 64, 1, 127 }, 3 },
        { 0xffffffffu, 0xffffffffu, 200, { 100 }, 1 },
        { 0xfffffff0u, 0x7u, 4000, { 1000, 24, 513 }, 3 },
        { 0xffffffffu, 0u, 64, { 1 }, 1 },
    };
    spec s;
    char name[96];
    int i;

    for (i = 0; i < (int)(sizeof(splits_c20) / sizeof(splits_c20[0])); i++) {
        snprintf(name, sizeof(name), "ChaCha20 key-only re-init after %zu",
                 splits_c20[i]);
        parity(name, 0, seq_c20_rekey, &splits_c20[i], 1, NULL);
    }
    {
        static const size_t p1[] = { 32, 32, 0 }, p2[] = { 1, 63, 64, 0 },
                            p3[] = { 100, 28, 0 }, p4[] = { 10, 118, 5, 0 };
        static const size_t *const pieces[] = { p1, p2, p3, p4 };

        for (i = 0; i < 4; i++) {
            snprintf(name, sizeof(name), "ChaCha20 key-only re-init after pieces #%d", i);
            parity(name, 0, seq_c20_rekey_pieces, pieces[i], 1, NULL);
        }
    }
    for (i = 0; i < (int)(sizeof(carries) / sizeof(carries[0])); i++) {
        snprintf(name, sizeof(name), "ChaCha20 carry ctr=%08x w1=%08x len=%zu",
                 carries[i].w0, carries[i].w1, carries[i].len);
        parity(name, 0, seq_c20_carry, &carries[i], 1, NULL);
    }
    parity("ChaCha20 carry layout", 0, seq_c20_carry_layout, NULL, 1, NULL);
    {
        static const struct {
            const size_t *pat;
            int npat;
            size_t len;
            const char *what;
        } cs[] = {
            { pat_a, 6, 1000, "1,63,65,7,100,64" },
            { pat_b, 1, 640, "64s" },
            { pat_c, 5, 300, "0,1,0,2,61" },
            { pat_d, 3, 5000, "3,200,129" },
            { NULL, 0, MAXLEN, "one shot 70000" },
            { NULL, 0, 0, "empty" },
        };
        int k, inplace;

        for (k = 0; k < (int)(sizeof(cs) / sizeof(cs[0])); k++)
            for (inplace = 0; inplace <= 1; inplace++) {
                spec_c20(&s, 1, IV16, cs[k].len);
                chunks(s.ch, &s.n_ch, s.len, cs[k].pat, cs[k].npat);
                s.inplace = inplace;
                s.zero_calls = k == 2;
                snprintf(name, sizeof(name), "ChaCha20 chunks %s%s",
                         cs[k].what, inplace ? " in place" : "");
                parity(name, 0, run_msg, &s, 1, NULL);
            }
    }
    parity("ChaCha20 EVP_Cipher", 0, seq_c20_cipher_api, NULL, 1, NULL);
    {
        static const size_t dups[] = { 0, 1, 2, 3, 6 };
        int k;

        for (k = 0; k < 5; k++) {
            spec_c20(&s, 1, IV16, 400);
            chunks(s.ch, &s.n_ch, s.len, pat_a, 6);
            s.copy_after = (int)dups[k];
            snprintf(name, sizeof(name), "ChaCha20 dup after chunk %zu",
                     dups[k]);
            parity(name, 0, run_msg, &s, 1, NULL);
        }
    }
}
