/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Secrets hygiene. Before any other OpenSSL call this test installs its own
 * allocator with CRYPTO_set_mem_functions(): every OPENSSL_malloc / zalloc /
 * realloc / free of libcrypto and of the chacha module (which shares
 * libcrypto with the test) goes through it, and a registry keeps every live
 * block. On free -- and for realloc, on the block left behind -- the block
 * is searched for the current secrets before it is released:
 *   - the 32-byte key (and the previous key after a re-key),
 *   - the Poly1305 one-time key of the message (first 32 bytes of ChaCha20
 *     block 0 for the nonce, computed here independently), and its r and s
 *     halves (r clamped),
 *   - the keystream of the last block used (partial last block).
 * A freed block that still holds one of them is a failure, reported with
 * the allocation site. The module frees its contexts with
 * OPENSSL_clear_free(), so a freed context is already zero when the hook
 * sees it: the freed-block checks catch copies the module makes elsewhere,
 * not a missing wipe inside a context. Those are caught by the live scans:
 * after a re-init with a new key every live block is searched for the old
 * key; after an AEAD Final, and after a POLY1305 MAC final, for the
 * message's one-time key (whole, r clamped, s), which the Poly1305 emit must
 * have wiped while the context lives on.
 *
 * Stack: the kernels run on a thread whose stack is a buffer of this test,
 * filled with a pattern first; after the thread ends the buffer is searched
 * for 16-byte windows of the key, of a key word broadcast (a vector of one
 * key word), of the keystream of every block the message used, and of the
 * one-time key. A kernel that leaves key-derived state unwiped on its stack
 * fails here. (Intermediate round state is not recognisable this way;
 * keystream, key and broadcast key are.) Not under ASan, whose fake stacks
 * move locals off the thread stack.
 *
 * Positive controls: a block freed with a secret in it, a live block holding
 * one, and a function that leaves one on its stack must each be caught.
 *
 * Scenarios: the four ciphers, after key set, after encrypt/decrypt (in
 * pieces, so the partial-block keystream cache is used), after
 * EVP_CIPHER_CTX_copy, freed mid-message, TLS 1.2 records, the POLY1305 MAC;
 * for XChaCha also the HChaCha20 subkey (computed here independently): in
 * freed blocks, live after a re-key, and on the stack (with its broadcast
 * words) beside the key. Runs once per
 * kernel through test/lib/run-kernels. Links libtestutil + libcrypto;
 * needs OPENSSL_MODULES.
 */
#define _GNU_SOURCE 1        /* pthread_attr_setstack */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include "testutil.h"

/* ---- the allocator and its registry ------------------------------------ */

typedef struct blk {
    void *p;
    size_t n;
    const char *file;
    int line;
    struct blk *next;
} blk;

#define NBUCKET 65536
static blk *buckets[NBUCKET];
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long n_allocs, n_frees;

typedef struct {
    const char *name;
    unsigned char v[64];
    size_t len;
} secret;

#define MAXSECRETS 16
static secret secrets[MAXSECRETS];
static int n_secrets;
static const char *scenario = "";
static unsigned long violations;

static size_t bucket_of(const void *p)
{
    return ((uintptr_t)p >> 4) % NBUCKET;
}

static const void *find_bytes(const unsigned char *h, size_t hn,
                              const unsigned char *n, size_t nn)
{
    size_t i;

    if (nn == 0 || hn < nn)
        return NULL;
    for (i = 0; i + nn <= hn; i++)
        if (h[i] == n[0] && memcmp(h + i, n, nn) == 0)
            return h + i;
    return NULL;
}

/* Search one block for the armed secrets; report each hit. */
static int inspect(const blk *b, const char *when)
{
    int i, hits = 0;

    for (i = 0; i < n_secrets; i++) {
        const unsigned char *at = find_bytes(b->p, b->n, secrets[i].v,
                                             secrets[i].len);

        if (at != NULL) {
            printf("#   [%s] %s: block of %zu bytes from %s:%d holds the %s at"
                   " offset %td\n", scenario, when, b->n,
                   b->file ? b->file : "?", b->line, secrets[i].name,
                   at - (const unsigned char *)b->p);
            hits++;
        }
    }
    return hits;
}

static void reg_add(void *p, size_t n, const char *file, int line)
{
    blk *b = malloc(sizeof(*b));

    if (b == NULL)
        abort();
    b->p = p;
    b->n = n;
    b->file = file;
    b->line = line;
    pthread_mutex_lock(&reg_lock);
    b->next = buckets[bucket_of(p)];
    buckets[bucket_of(p)] = b;
    n_allocs++;
    pthread_mutex_unlock(&reg_lock);
}

/* Unlink p; returns the record (caller frees it) or NULL if unknown. */
static blk *reg_take(void *p)
{
    blk **pp, *b;

    pthread_mutex_lock(&reg_lock);
    for (pp = &buckets[bucket_of(p)]; (b = *pp) != NULL; pp = &b->next)
        if (b->p == p) {
            *pp = b->next;
            n_frees++;
            break;
        }
    pthread_mutex_unlock(&reg_lock);
    return b;
}

static void *t_malloc(size_t n, const char *file, int line)
{
    void *p = malloc(n ? n : 1);

    if (p != NULL)
        reg_add(p, n, file, line);
    return p;
}

static void t_free(void *p, const char *file, int line)
{
    blk *b;

    (void)file;
    (void)line;
    if (p == NULL)
        return;
    b = reg_take(p);
    if (b != NULL) {
        violations += inspect(b, "freed");
        free(b);
    }
    free(p);
}

static void *t_realloc(void *p, size_t n, const char *file, int line)
{
    blk *b;
    void *q;

    if (p == NULL)
        return t_malloc(n, file, line);
    if (n == 0) {
        t_free(p, file, line);
        return NULL;
    }
    /* always move, so the block left behind is inspected like a free */
    q = t_malloc(n, file, line);
    if (q == NULL)
        return NULL;
    b = reg_take(p);
    if (b != NULL) {
        memcpy(q, p, b->n < n ? b->n : n);
        violations += inspect(b, "left behind by realloc");
        free(b);
    }
    free(p);
    return q;
}

/* Search every live block (the contexts in use). */
static int scan_live(const char *when)
{
    int hits = 0;
    size_t i;
    blk *b;

    pthread_mutex_lock(&reg_lock);
    for (i = 0; i < NBUCKET; i++)
        for (b = buckets[i]; b != NULL; b = b->next)
            hits += inspect(b, when);
    pthread_mutex_unlock(&reg_lock);
    return hits;
}

/* ---- independent ChaCha20 block (RFC 8439), for the expected secrets ---- */

#define ROTL(v, n) (((v) << (n)) | ((v) >> (32 - (n))))
#define QR(a, b, c, d) (a += b, d ^= a, d = ROTL(d, 16), c += d, b ^= c, \
    b = ROTL(b, 12), a += b, d ^= a, d = ROTL(d, 8), c += d, b ^= c, b = ROTL(b, 7))

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16
           | (uint32_t)p[3] << 24;
}

/* the 20 rounds on x */
static void rounds(uint32_t x[16])
{
    int i;

    for (i = 0; i < 10; i++) {
        QR(x[0], x[4], x[8], x[12]); QR(x[1], x[5], x[9], x[13]);
        QR(x[2], x[6], x[10], x[14]); QR(x[3], x[7], x[11], x[15]);
        QR(x[0], x[5], x[10], x[15]); QR(x[1], x[6], x[11], x[12]);
        QR(x[2], x[7], x[8], x[13]); QR(x[3], x[4], x[9], x[14]);
    }
}

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

/* the state for key, words 12-15 from 16 bytes */
static void state(uint32_t s[16], const unsigned char key[32], const unsigned char w12[16])
{
    int i;

    s[0] = 0x61707865; s[1] = 0x3320646e; s[2] = 0x79622d32; s[3] = 0x6b206574;
    for (i = 0; i < 8; i++)
        s[4 + i] = le32(key + 4 * i);
    for (i = 0; i < 4; i++)
        s[12 + i] = le32(w12 + 4 * i);
}

/* block for key, 32-bit counter and 12-byte nonce */
static void chacha_block(const unsigned char key[32], uint32_t ctr,
                         const unsigned char nonce[12], unsigned char out[64])
{
    uint32_t s[16], x[16];
    unsigned char w12[16];
    int i;

    put32(w12, ctr);
    memcpy(w12 + 4, nonce, 12);
    state(s, key, w12);
    memcpy(x, s, sizeof(x));
    rounds(x);
    for (i = 0; i < 16; i++)
        put32(out + 4 * i, x[i] + s[i]);
}

/* XChaCha20: the HChaCha20 subkey of (key, nonce[0..15]) and the 12-byte nonce */
static void xchacha_subkey(const unsigned char key[32], const unsigned char nonce[24],
                           unsigned char subkey[32], unsigned char nonce12[12])
{
    uint32_t x[16];
    int i;

    state(x, key, nonce);
    rounds(x);
    for (i = 0; i < 4; i++) {
        put32(subkey + 4 * i, x[i]);
        put32(subkey + 16 + 4 * i, x[12 + i]);
    }
    memset(nonce12, 0, 4);
    memcpy(nonce12 + 4, nonce + 16, 8);
}

/* ---- scenarios ----------------------------------------------------------- */

static unsigned char KEY1[32], KEY2[32], NONCE[12], IV16[16], PT[300];
static unsigned char N24[24], IV32[32];        /* XChaCha: nonce, and nonce || counter */
static unsigned char SUB1[32], SUBN12[12], SUB1S[32], SUBS12[12];  /* their subkeys */
static EVP_CIPHER *c20, *aead, *xc20, *xaead;

static void arm(const char *name, const void *v, size_t len)
{
    if (n_secrets < MAXSECRETS) {
        secrets[n_secrets].name = name;
        memcpy(secrets[n_secrets].v, v, len);
        secrets[n_secrets].len = len;
        n_secrets++;
    }
}

static void begin(const char *name)
{
    scenario = name;
    n_secrets = 0;
}

/* Arm the one-time key of (key, nonce): whole, r (clamped) and s. */
static void arm_otk(const unsigned char key[32], const unsigned char nonce[12],
                    const char *which)
{
    unsigned char blk0[64], r[16];
    static char names[3][3][48];
    static int slot;
    char *n = names[slot % 3][0];

    (void)n;
    chacha_block(key, 0, nonce, blk0);
    memcpy(r, blk0, 16);
    r[3] &= 15; r[7] &= 15; r[11] &= 15; r[15] &= 15;
    r[4] &= 252; r[8] &= 252; r[12] &= 252;
    snprintf(names[slot % 3][0], 48, "%s one-time key", which);
    snprintf(names[slot % 3][1], 48, "%s one-time key r (clamped)", which);
    snprintf(names[slot % 3][2], 48, "%s one-time key s", which);
    arm(names[slot % 3][0], blk0, 32);
    arm(names[slot % 3][1], r, 16);
    arm(names[slot % 3][2], blk0 + 16, 16);
    slot++;
}

static int end(unsigned long before)
{
    int ok = TU_CHECK(violations == before, "[%s] secrets left in freed memory",
                      scenario);

    if (ok)
        printf("#   [%s] ok: no freed block held a secret\n", scenario);
    return ok;
}

static EVP_CIPHER_CTX *mk(const EVP_CIPHER *c, const unsigned char *key,
                          const unsigned char *iv, int enc)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();

    if (!TU_CHECK(ctx != NULL && EVP_CipherInit_ex2(ctx, c, key, iv, enc, NULL),
                  "[%s] init", scenario)) {
        EVP_CIPHER_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

/* ChaCha20: 30 + 70 bytes from counter IV16[0..3] (the last block is partial,
 * so its keystream sits in the context's cache while streaming) */
static void c20_scenarios(void)
{
    unsigned char out[300], ks[64];
    unsigned long v;
    EVP_CIPHER_CTX *ctx, *dup;
    int outl;
    uint32_t c0 = le32(IV16);

    chacha_block(KEY1, c0 + 1, IV16 + 4, ks);   /* bytes 64..127 */

    begin("ChaCha20 after key set");
    v = violations;
    arm("key", KEY1, 32);
    ctx = mk(c20, KEY1, IV16, 1);
    EVP_CIPHER_CTX_free(ctx);
    end(v);

    begin("ChaCha20 after encrypt");
    v = violations;
    arm("key", KEY1, 32);
    arm("last keystream block", ks, 64);
    ctx = mk(c20, KEY1, IV16, 1);
    EVP_EncryptUpdate(ctx, out, &outl, PT, 30);
    EVP_EncryptUpdate(ctx, out + 30, &outl, PT + 30, 70);
    EVP_CIPHER_CTX_free(ctx);
    end(v);

    begin("ChaCha20 after decrypt");
    v = violations;
    arm("key", KEY1, 32);
    arm("last keystream block", ks, 64);
    ctx = mk(c20, KEY1, IV16, 0);
    EVP_DecryptUpdate(ctx, out, &outl, PT, 30);
    EVP_DecryptUpdate(ctx, out + 30, &outl, PT + 30, 70);
    EVP_DecryptFinal_ex(ctx, out, &outl);
    EVP_CIPHER_CTX_free(ctx);
    end(v);

    begin("ChaCha20 after dup");
    v = violations;
    arm("key", KEY1, 32);
    arm("last keystream block", ks, 64);
    ctx = mk(c20, KEY1, IV16, 1);
    dup = EVP_CIPHER_CTX_new();
    EVP_EncryptUpdate(ctx, out, &outl, PT, 30);
    EVP_EncryptUpdate(ctx, out + 30, &outl, PT + 30, 70);
    TU_CHECK(EVP_CIPHER_CTX_copy(dup, ctx), "copy");
    EVP_EncryptUpdate(dup, out, &outl, PT, 10);
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_CTX_free(dup);
    end(v);

    begin("ChaCha20 re-key");
    v = violations;
    ctx = mk(c20, KEY1, IV16, 1);
    EVP_EncryptUpdate(ctx, out, &outl, PT, 100);
    EVP_EncryptInit_ex2(ctx, NULL, KEY2, NULL, NULL);
    arm("old key (live, after re-key)", KEY1, 32);
    TU_CHECK(scan_live("live after re-key") == 0,
             "[%s] the old key is still in live memory", scenario);
    n_secrets = 0;
    arm("key", KEY2, 32);
    EVP_CIPHER_CTX_free(ctx);
    end(v);
}

/*
 * After Final the context still holds the key (and the cached keystream of
 * a partial last block, until the next IV or the free): no added exposure.
 * The one-time key must be gone: the Poly1305 emit wipes its state.
 */
static void live_after_final(const unsigned char key[32],
                             const unsigned char nonce[12],
                             const unsigned char *last_ks)
{
    int n = n_secrets;

    n_secrets = 0;
    arm_otk(key, nonce, "finished message");
    TU_CHECK(scan_live("live after Final") == 0,
             "[%s] the one-time key is still in the live context after Final",
             scenario);
    if (last_ks != NULL) {
        n_secrets = 0;
        arm("finished message's last keystream block", last_ks, 64);
        if (scan_live("live after Final (information only)") != 0)
            printf("#   [%s] note: the above stays in the live context until "
                   "the next IV or free (the key is there too)\n", scenario);
    }
    n_secrets = n;
}

/* ChaCha20-Poly1305 */
static void aead_scenarios(void)
{
    unsigned char out[300], tag[16], ks[64], nonce2[12];
    unsigned long v;
    EVP_CIPHER_CTX *ctx, *dup;
    int outl;

    /* text starts at block 1: 100 bytes end in block 2 (partial) */
    chacha_block(KEY1, 2, NONCE, ks);

    begin("AEAD after key set");
    v = violations;
    arm("key", KEY1, 32);
    ctx = mk(aead, KEY1, NONCE, 1);
    EVP_CIPHER_CTX_free(ctx);
    end(v);

    begin("AEAD seal");
    v = violations;
    arm("key", KEY1, 32);
    arm_otk(KEY1, NONCE, "message");
    arm("last keystream block", ks, 64);
    ctx = mk(aead, KEY1, NONCE, 1);
    EVP_EncryptUpdate(ctx, NULL, &outl, PT, 20);
    EVP_EncryptUpdate(ctx, out, &outl, PT, 30);
    EVP_EncryptUpdate(ctx, out + 30, &outl, PT + 30, 70);
    EVP_EncryptFinal_ex(ctx, out, &outl);
    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag);
    live_after_final(KEY1, NONCE, ks);
    EVP_CIPHER_CTX_free(ctx);
    end(v);

    begin("AEAD open");
    v = violations;
    arm("key", KEY1, 32);
    arm_otk(KEY1, NONCE, "message");
    arm("last keystream block", ks, 64);
    ctx = mk(aead, KEY1, NONCE, 0);
    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag);
    EVP_DecryptUpdate(ctx, NULL, &outl, PT, 20);
    memcpy(out + 100, out, 100);
    EVP_DecryptUpdate(ctx, out, &outl, out + 100, 30);
    EVP_DecryptUpdate(ctx, out + 30, &outl, out + 130, 70);
    TU_CHECK(EVP_DecryptFinal_ex(ctx, out + 200, &outl) == 1
             && memcmp(out, PT, 100) == 0, "[%s] round trip", scenario);
    live_after_final(KEY1, NONCE, ks);
    EVP_CIPHER_CTX_free(ctx);
    end(v);

    begin("AEAD dup mid-message");
    v = violations;
    arm("key", KEY1, 32);
    arm_otk(KEY1, NONCE, "message");
    arm("last keystream block", ks, 64);
    ctx = mk(aead, KEY1, NONCE, 1);
    dup = EVP_CIPHER_CTX_new();
    EVP_EncryptUpdate(ctx, NULL, &outl, PT, 20);
    EVP_EncryptUpdate(ctx, out, &outl, PT, 30);
    EVP_EncryptUpdate(ctx, out + 30, &outl, PT + 30, 70);
    TU_CHECK(EVP_CIPHER_CTX_copy(dup, ctx), "copy");
    EVP_EncryptFinal_ex(dup, out, &outl);
    EVP_CIPHER_CTX_free(ctx);              /* freed mid-message */
    EVP_CIPHER_CTX_free(dup);
    end(v);

    begin("AEAD long message freed mid-way");
    v = violations;
    arm("key", KEY1, 32);
    arm_otk(KEY1, NONCE, "message");
    ctx = mk(aead, KEY1, NONCE, 1);
    EVP_EncryptUpdate(ctx, NULL, &outl, PT, 100);  /* long AAD: MAC keyed */
    EVP_EncryptUpdate(ctx, out, &outl, PT, 290);
    EVP_CIPHER_CTX_free(ctx);
    end(v);

    begin("AEAD TLS 1.2 records");
    v = violations;
    arm("key", KEY1, 32);
    {
        unsigned char aad[13] = { 0, 0, 0, 0, 0, 0, 0, 9, 23, 3, 3, 0, 100 };
        unsigned char seqnonce[12];
        EVP_CIPHER_CTX *d;
        int i;

        memcpy(seqnonce, NONCE, 12);
        for (i = 0; i < 8; i++)
            seqnonce[4 + i] ^= aad[i];
        arm_otk(KEY1, seqnonce, "record");
        ctx = mk(aead, KEY1, NONCE, 1);
        d = mk(aead, KEY1, NONCE, 0);
        memcpy(out, PT, 100);
        EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 13, aad);
        EVP_EncryptUpdate(ctx, out, &outl, out, 116);
        aad[12] = 116;
        EVP_CIPHER_CTX_ctrl(d, EVP_CTRL_AEAD_TLS1_AAD, 13, aad);
        TU_CHECK(EVP_DecryptUpdate(d, out, &outl, out, 116) == 1
                 && memcmp(out, PT, 100) == 0, "[%s] record round trip", scenario);
        EVP_CIPHER_CTX_free(ctx);
        EVP_CIPHER_CTX_free(d);
    }
    end(v);

    begin("AEAD re-key");
    v = violations;
    memcpy(nonce2, NONCE, 12);
    nonce2[0] ^= 0x55;
    ctx = mk(aead, KEY1, NONCE, 1);
    EVP_EncryptUpdate(ctx, out, &outl, PT, 100);   /* message left open */
    EVP_EncryptInit_ex2(ctx, NULL, KEY2, nonce2, NULL);
    arm("old key (live, after re-key)", KEY1, 32);
    arm_otk(KEY1, NONCE, "abandoned message");
    TU_CHECK(scan_live("live after re-key") == 0,
             "[%s] the old key or the abandoned message's one-time key is "
             "still in live memory", scenario);
    n_secrets = 0;
    arm("key", KEY2, 32);
    EVP_EncryptUpdate(ctx, out, &outl, PT, 10);
    EVP_CIPHER_CTX_free(ctx);
    end(v);
}

/*
 * XChaCha20-Poly1305 and XChaCha20: besides the key, the HChaCha20 subkey
 * (a key for this nonce) must not outlive the context or a re-key, and the
 * one-time key (under the subkey) must be gone after Final.
 */
static void xchacha_scenarios(void)
{
    unsigned char out[300], tag[16], ks[64], n2[24];
    unsigned long v;
    EVP_CIPHER_CTX *ctx, *dup;
    int outl;

    chacha_block(SUB1, 2, SUBN12, ks);   /* text from block 1: 100 bytes end in block 2 */
    begin("XChaCha20-Poly1305 seal and open");
    v = violations;
    arm("key", KEY1, 32);
    arm("HChaCha20 subkey", SUB1, 32);
    arm_otk(SUB1, SUBN12, "message");
    arm("last keystream block", ks, 64);
    ctx = mk(xaead, KEY1, N24, 1);
    EVP_EncryptUpdate(ctx, NULL, &outl, PT, 20);
    EVP_EncryptUpdate(ctx, out, &outl, PT, 30);
    EVP_EncryptUpdate(ctx, out + 30, &outl, PT + 30, 70);
    EVP_EncryptFinal_ex(ctx, out + 100, &outl);
    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag);
    live_after_final(SUB1, SUBN12, ks);
    dup = EVP_CIPHER_CTX_new();
    EVP_CIPHER_CTX_free(ctx);
    ctx = mk(xaead, KEY1, N24, 0);
    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag);
    EVP_DecryptUpdate(ctx, NULL, &outl, PT, 20);
    EVP_DecryptUpdate(ctx, out, &outl, out, 50);
    TU_CHECK(EVP_CIPHER_CTX_copy(dup, ctx), "copy");
    EVP_DecryptUpdate(dup, out + 50, &outl, out + 50, 50);
    TU_CHECK(EVP_DecryptFinal_ex(dup, out + 100, &outl) == 1 && memcmp(out, PT, 100) == 0,
             "[%s] round trip through a copy", scenario);
    EVP_CIPHER_CTX_free(ctx);              /* the original freed mid-message */
    EVP_CIPHER_CTX_free(dup);
    end(v);

    begin("XChaCha20-Poly1305 re-key");
    v = violations;
    memcpy(n2, N24, 24);
    n2[0] ^= 0x55;
    ctx = mk(xaead, KEY1, N24, 1);
    EVP_EncryptUpdate(ctx, out, &outl, PT, 100);   /* message left open */
    EVP_EncryptInit_ex2(ctx, NULL, KEY2, n2, NULL);
    arm("old key (live, after re-key)", KEY1, 32);
    arm("old subkey (live, after re-key)", SUB1, 32);
    arm_otk(SUB1, SUBN12, "abandoned message");
    TU_CHECK(scan_live("live after re-key") == 0,
             "[%s] the old key, subkey or one-time key is still in live memory", scenario);
    /* a key alone (the nonce kept) must replace the subkey of the old pair too */
    EVP_CIPHER_CTX_free(ctx);
    ctx = mk(xaead, KEY1, N24, 1);
    EVP_EncryptInit_ex2(ctx, NULL, KEY2, NULL, NULL);
    n_secrets = 0;
    arm("old subkey (live, after a key-only re-init)", SUB1, 32);
    TU_CHECK(scan_live("live after a key-only re-init") == 0,
             "[%s] the subkey of the old key is still in live memory", scenario);
    n_secrets = 0;
    arm("key", KEY2, 32);
    EVP_CIPHER_CTX_free(ctx);
    end(v);

    /* XChaCha20 from counter IV32[24..31] = 5: 30 + 70 bytes end in block 6 */
    chacha_block(SUB1S, 5 + 1, SUBS12, ks);
    begin("XChaCha20 encrypt");
    v = violations;
    arm("key", KEY1, 32);
    arm("HChaCha20 subkey", SUB1S, 32);
    arm("last keystream block", ks, 64);
    ctx = mk(xc20, KEY1, IV32, 1);
    EVP_EncryptUpdate(ctx, out, &outl, PT, 30);
    EVP_EncryptUpdate(ctx, out + 30, &outl, PT + 30, 70);
    EVP_CIPHER_CTX_free(ctx);
    end(v);

    begin("XChaCha20 re-key");
    v = violations;
    ctx = mk(xc20, KEY1, IV32, 1);
    EVP_EncryptUpdate(ctx, out, &outl, PT, 100);
    EVP_EncryptInit_ex2(ctx, NULL, KEY2, NULL, NULL);
    arm("old key (live, after re-key)", KEY1, 32);
    arm("old subkey (live, after re-key)", SUB1S, 32);
    arm("old last keystream block (live, after re-key)", ks, 64);
    TU_CHECK(scan_live("live after re-key") == 0,
             "[%s] the old key, subkey or keystream is still in live memory", scenario);
    n_secrets = 0;
    arm("key", KEY2, 32);
    EVP_CIPHER_CTX_free(ctx);
    end(v);
}

/* POLY1305 MAC: after final the live context must not hold r or s */
static void mac_scenarios(void)
{
    EVP_MAC *m = EVP_MAC_fetch(tu_libctx, "POLY1305", TU_PROPQ_OURS);
    EVP_MAC_CTX *x = NULL;
    unsigned char tag[16], r[16];
    size_t outl;
    unsigned long v;

    if (!TU_CHECK(m != NULL, "fetch POLY1305 from %s", TU_OURS))
        return;
    memcpy(r, KEY1, 16);
    r[3] &= 15; r[7] &= 15; r[11] &= 15; r[15] &= 15;
    r[4] &= 252; r[8] &= 252; r[12] &= 252;
    begin("POLY1305 MAC");
    v = violations;
    arm("MAC key", KEY1, 32);
    arm("MAC key r (clamped)", r, 16);
    arm("MAC key s", KEY1 + 16, 16);
    x = EVP_MAC_CTX_new(m);
    TU_CHECK(x != NULL && EVP_MAC_init(x, KEY1, 32, NULL)
             && EVP_MAC_update(x, PT, 17) && EVP_MAC_update(x, PT + 17, 283)
             && EVP_MAC_final(x, tag, &outl, sizeof(tag)), "[%s] MAC", scenario);
    TU_CHECK(scan_live("live after MAC final") == 0,
             "[%s] the MAC key is still in the live context after final", scenario);
    EVP_MAC_CTX_free(x);
    end(v);
    EVP_MAC_free(m);
}

/* ---- stack scans ----------------------------------------------------- */

#define STACK_SIZE (256 * 1024)
#define STACK_FILL 0x5a
#define WIN 16
#define MAXWIN 8192

/* the 16-byte windows to look for, sorted for bsearch, with their names */
typedef struct {
    unsigned char b[WIN];
    const char *what;
} window;
static window wins[MAXWIN];
static size_t n_wins;

static void add_windows(const unsigned char *p, size_t len, const char *what)
{
    size_t o;

    for (o = 0; o + WIN <= len && n_wins < MAXWIN; o += 4) {
        memcpy(wins[n_wins].b, p + o, WIN);
        wins[n_wins++].what = what;
    }
}

static int win_cmp(const void *a, const void *b)
{
    return memcmp(a, b, WIN);
}

/* a key and each of its words broadcast (a vector of one key word) */
static void add_key_windows(const unsigned char key[32], const char *what,
                            const char *bwhat)
{
    unsigned char bc[WIN];
    size_t i;
    int w;

    add_windows(key, 32, what);
    for (w = 0; w < 8; w++) {
        for (i = 0; i < WIN; i += 4)
            memcpy(bc + i, key + 4 * w, 4);
        add_windows(bc, WIN, bwhat);
    }
}

/*
 * The key, its broadcast words, the keystream of blocks ctr..ctr+nblk; for
 * XChaCha (outer != NULL) key is the subkey and outer the key it came from.
 */
static void arm_stack_secrets_x(const unsigned char *outer, const unsigned char key[32],
                                uint32_t ctr, const unsigned char nonce[12], size_t nblk)
{
    unsigned char ks[64];
    size_t i;

    n_wins = 0;
    if (outer != NULL) {
        add_key_windows(outer, "key", "broadcast key word");
        add_key_windows(key, "HChaCha20 subkey", "broadcast subkey word");
    } else {
        add_key_windows(key, "key", "broadcast key word");
    }
    for (i = 0; i < nblk; i++) {
        chacha_block(key, ctr + (uint32_t)i, nonce, ks);
        add_windows(ks, 64, i == 0 && ctr == 0 ? "block 0 (one-time key)" : "keystream");
    }
    qsort(wins, n_wins, sizeof(wins[0]), win_cmp);
}

static void arm_stack_secrets(const unsigned char key[32], uint32_t ctr,
                              const unsigned char nonce[12], size_t nblk)
{
    arm_stack_secrets_x(NULL, key, ctr, nonce, nblk);
}

typedef struct {
    void (*fn)(void *);
    void *arg;
} stack_job;

static void *stack_thread(void *arg)
{
    stack_job *j = arg;

    j->fn(j->arg);
    return NULL;
}

/*
 * Not under AddressSanitizer (its fake stacks move the kernels' locals off
 * the thread stack), nor in a build whose instrumentation makes the kernels'
 * frames larger than those of the optimised build their stack burns are
 * sized for (UBSan: about 4x; the build says so with
 * -DCHACHA_TEST_INSTRUMENTED_FRAMES). The plain builds run the scans.
 */
#if defined(__SANITIZE_ADDRESS__) || defined(CHACHA_TEST_INSTRUMENTED_FRAMES)
# define NO_STACK_SCAN 1
#elif defined(__has_feature)
# if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#  define NO_STACK_SCAN 1
# endif
#endif

/*
 * Runs fn(arg) on a thread whose stack is a pattern-filled buffer, then
 * searches the buffer for the armed windows. Returns the number of hits
 * (printed with their depth), or -1 if the thread could not run.
 */
static int stack_scan(void (*fn)(void *), void *arg, const char *what)
{
    static unsigned char *stk;
    const char *env = getenv("CHACHA_TEST_VERBOSE");
    int verbose = env != NULL && *env != '\0' && *env != '0';
    pthread_attr_t at;
    pthread_t t;
    stack_job j = { fn, arg };
    size_t i, used = 0, hits = 0;

    if (stk == NULL && posix_memalign((void **)&stk, 4096, STACK_SIZE) != 0)
        return -1;
    memset(stk, STACK_FILL, STACK_SIZE);
    if (pthread_attr_init(&at) != 0)
        return -1;
    if (pthread_attr_setstack(&at, stk, STACK_SIZE) != 0
        || pthread_create(&t, &at, stack_thread, &j) != 0) {
        pthread_attr_destroy(&at);
        return -1;
    }
    pthread_join(t, NULL);
    pthread_attr_destroy(&at);
    for (i = 0; i < STACK_SIZE; i++)
        if (stk[i] != STACK_FILL) {
            used = STACK_SIZE - i;      /* the stack grows down */
            break;
        }
    for (i = 0; i + WIN <= STACK_SIZE; i += 4) {
        const window *w = bsearch(stk + i, wins, n_wins, sizeof(wins[0]), win_cmp);

        if (w != NULL) {
            if (hits < 6 || verbose)
                printf("#   [%s] stack: %s at depth %zu\n", what, w->what,
                       (size_t)STACK_SIZE - i);
            hits++;
        }
    }
    printf("#   [%s] stack: %zu of %zu used bytes searched, %zu windows found\n",
           what, used, (size_t)STACK_SIZE, hits);
    return (int)hits;
}

typedef struct {
    const EVP_CIPHER *c;
    const unsigned char *key;
    size_t len;
    int enc;
    int ok;
} cipher_run;

static unsigned char big_pt[4096 + 64], big_out[4096 + 64];

static void run_cipher(void *arg)
{
    cipher_run *r = arg;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int is_aead = r->c == aead || r->c == xaead;
    const unsigned char *iv = r->c == aead ? NONCE : r->c == xaead ? N24
                              : r->c == xc20 ? IV32 : IV16;
    unsigned char tag[16];
    int outl, fl;

    r->ok = ctx != NULL && EVP_CipherInit_ex2(ctx, r->c, r->key, iv, r->enc, NULL);
    if (r->ok && is_aead && !r->enc) {
        memset(tag, 0, sizeof(tag));
        EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag);
    }
    if (r->ok && is_aead)
        r->ok = EVP_CipherUpdate(ctx, NULL, &outl, PT, 13);
    r->ok = r->ok && EVP_CipherUpdate(ctx, big_out, &outl, big_pt, (int)r->len);
    if (r->ok) {
        /* an open with a wrong tag fails here: the kernels have run */
        fl = EVP_CipherFinal_ex(ctx, big_out + outl, &outl);
        if (r->enc)
            r->ok = fl == 1;
    }
    ERR_clear_error();
    EVP_CIPHER_CTX_free(ctx);
}

static void run_mac(void *arg)
{
    cipher_run *r = arg;
    EVP_MAC *m = EVP_MAC_fetch(tu_libctx, "POLY1305", TU_PROPQ_OURS);
    EVP_MAC_CTX *x = m != NULL ? EVP_MAC_CTX_new(m) : NULL;
    unsigned char tag[16];
    size_t outl;

    r->ok = x != NULL && EVP_MAC_init(x, r->key, 32, NULL)
            && EVP_MAC_update(x, big_pt, r->len)
            && EVP_MAC_final(x, tag, &outl, sizeof(tag));
    EVP_MAC_CTX_free(x);
    EVP_MAC_free(m);
}

/* the stack positive control: a copy of the key left in a dead frame */
/* (deep in a large frame: the thread's exit path reuses the shallow part) */
static void leave_key_on_stack(void *arg)
{
    volatile unsigned char copy[4096];
    size_t i;

    (void)arg;
    for (i = 0; i < 32; i++)
        copy[16 + i] = KEY1[i];
    (void)copy[0];
}

/* the same for the XChaCha20 subkey: the scan recognises it too */
static void leave_subkey_on_stack(void *arg)
{
    volatile unsigned char copy[4096];
    size_t i;

    (void)arg;
    for (i = 0; i < 32; i++)
        copy[40 + i] = SUB1[i];
    (void)copy[0];
}

/*
 * Every operation once with KEY2, on a scan thread: the first calls made on
 * a thread resolve lazily bound symbols, and the dynamic linker then saves
 * every vector register on that stack -- registers a new thread inherits
 * from the main thread, which holds KEY1 material from the scenarios
 * above. After this, nothing is resolved lazily during the scans.
 */
static void warm_up(void *arg)
{
    static const size_t lens[] = { 64, 256, 511, 512, 1000, 4096 };
    cipher_run r;
    size_t i;

    (void)arg;
    for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
        r.key = KEY2;
        r.len = lens[i];
        r.c = c20;
        r.enc = 1;
        run_cipher(&r);
        r.c = aead;
        run_cipher(&r);
        r.enc = 0;
        run_cipher(&r);
        r.c = xaead;
        run_cipher(&r);
        r.enc = 1;
        run_cipher(&r);
        r.c = xc20;
        run_cipher(&r);
        run_mac(&r);
    }
}

static void stack_scenarios(void)
{
    static const size_t lens[] = { 64, 256, 511, 512, 1000, 4096 };
    char what[96];
    size_t i;
    int h, enc;
    cipher_run r;

#ifdef NO_STACK_SCAN
    printf("# stack scans: not in a sanitizer build (ASan moves locals off the "
           "stack, UBSan enlarges the frames the burns are sized for); the "
           "plain build runs them\n");
    return;
#endif
    for (i = 0; i < sizeof(big_pt); i++)
        big_pt[i] = (unsigned char)(i * 29 + 7);   /* nonzero: ciphertext is not keystream */
    n_wins = 0;
    stack_scan(warm_up, NULL, "warm-up with another key");
    /* positive control */
    arm_stack_secrets(KEY1, 0, NONCE, 1);
    h = stack_scan(leave_key_on_stack, NULL, "control: key left on the stack");
    TU_CHECK(h > 0, "stack positive control: a key left on the stack was not found (%d)", h);
    arm_stack_secrets_x(KEY1, SUB1, 0, SUBN12, 1);
    h = stack_scan(leave_subkey_on_stack, NULL, "control: XChaCha20 subkey left on the stack");
    TU_CHECK(h > 0, "stack positive control: a subkey left on the stack was not found (%d)", h);

    for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
        r.c = c20;
        r.key = KEY1;
        r.len = lens[i];
        r.enc = 1;
        arm_stack_secrets(KEY1, le32(IV16), IV16 + 4, (lens[i] + 63) / 64);
        snprintf(what, sizeof(what), "ChaCha20 %zu bytes", lens[i]);
        h = stack_scan(run_cipher, &r, what);
        TU_CHECK(r.ok && h == 0, "[%s] key-derived state left on the stack "
                 "(%d windows; run ok %d)", what, h, r.ok);
        for (enc = 1; enc >= 0; enc--) {
            r.c = aead;
            r.enc = enc;
            arm_stack_secrets(KEY1, 0, NONCE, (lens[i] + 63) / 64 + 1);
            snprintf(what, sizeof(what), "ChaCha20-Poly1305 %s %zu bytes",
                     enc ? "seal" : "open", lens[i]);
            h = stack_scan(run_cipher, &r, what);
            TU_CHECK((r.ok || !enc) && h == 0, "[%s] key-derived state left on "
                     "the stack (%d windows)", what, h);
            /* XChaCha20-Poly1305: also the key the subkey came from */
            r.c = xaead;
            arm_stack_secrets_x(KEY1, SUB1, 0, SUBN12, (lens[i] + 63) / 64 + 1);
            snprintf(what, sizeof(what), "XChaCha20-Poly1305 %s %zu bytes",
                     enc ? "seal" : "open", lens[i]);
            h = stack_scan(run_cipher, &r, what);
            TU_CHECK((r.ok || !enc) && h == 0, "[%s] key or subkey-derived state left "
                     "on the stack (%d windows)", what, h);
        }
        r.c = xc20;
        r.enc = 1;
        arm_stack_secrets_x(KEY1, SUB1S, 5, SUBS12, (lens[i] + 63) / 64);
        snprintf(what, sizeof(what), "XChaCha20 %zu bytes", lens[i]);
        h = stack_scan(run_cipher, &r, what);
        TU_CHECK(r.ok && h == 0, "[%s] key or subkey-derived state left on the stack "
                 "(%d windows; run ok %d)", what, h, r.ok);
    }
    r.len = 4096;
    r.key = KEY1;
    n_wins = 0;
    {
        unsigned char rr[16];

        memcpy(rr, KEY1, 16);
        rr[3] &= 15; rr[7] &= 15; rr[11] &= 15; rr[15] &= 15;
        rr[4] &= 252; rr[8] &= 252; rr[12] &= 252;
        add_windows(KEY1, 32, "MAC key");
        add_windows(rr, 16, "MAC key r (clamped)");
        qsort(wins, n_wins, sizeof(wins[0]), win_cmp);
    }
    h = stack_scan(run_mac, &r, "POLY1305 4096 bytes");
    TU_CHECK(r.ok && h == 0, "[POLY1305] key left on the stack (%d windows)", h);
}

/* freed and live positive controls: the hook and the live scan do see */
static void heap_controls(void)
{
    unsigned long v = violations;
    unsigned char *p;

    begin("control: secret freed unwiped");
    arm("key", KEY1, 32);
    p = OPENSSL_malloc(100);
    if (!TU_CHECK(p != NULL, "OPENSSL_malloc"))
        return;
    memcpy(p + 33, KEY1, 32);
    TU_CHECK(scan_live("control: live") > 0,
             "live-scan positive control: a live block holding the key was not found");
    OPENSSL_free(p);
    TU_CHECK(violations == v + 1,
             "freed-block positive control: an unwiped freed block was not caught");
    violations = v;
    printf("#   [%s] ok: caught (as it must be)\n", scenario);
    n_secrets = 0;
}

int main(void)
{
    size_t i;

    /* first OpenSSL call of the process */
    if (!CRYPTO_set_mem_functions(t_malloc, t_realloc, t_free)) {
        printf("test_secrets: CRYPTO_set_mem_functions refused (allocations "
               "already made)\ntest_secrets: 0 passed, 1 failed\n");
        return 1;
    }
    for (i = 0; i < 32; i++) {
        KEY1[i] = (unsigned char)(0xa0 + i);
        KEY2[i] = (unsigned char)(0x3c ^ (i * 7));
    }
    for (i = 0; i < 12; i++)
        NONCE[i] = (unsigned char)(0x70 + i);
    for (i = 0; i < 16; i++)
        IV16[i] = (unsigned char)(i < 4 ? (i == 0 ? 5 : 0) : 0x90 + i);
    for (i = 0; i < sizeof(PT); i++)
        PT[i] = (unsigned char)(i * 13 + 1);
    for (i = 0; i < 24; i++)
        N24[i] = IV32[i] = (unsigned char)(0xc1 + 3 * i);
    memset(IV32 + 24, 0, 8);
    IV32[24] = 5;                              /* XChaCha20 counter 5 */
    xchacha_subkey(KEY1, N24, SUB1, SUBN12);
    xchacha_subkey(KEY1, IV32, SUB1S, SUBS12);

    if (!tu_init("test_secrets"))
        return tu_finish();
    c20 = tu_fetch_ours("ChaCha20");
    aead = tu_fetch_ours("ChaCha20-Poly1305");
    xc20 = tu_fetch_ours("XChaCha20");
    xaead = tu_fetch_ours("XChaCha20-Poly1305");
    if (c20 == NULL || aead == NULL || xc20 == NULL || xaead == NULL)
        return tu_finish();
    heap_controls();
    c20_scenarios();
    aead_scenarios();
    xchacha_scenarios();
    mac_scenarios();
    stack_scenarios();
    printf("# allocator: %lu allocations, %lu frees seen (module and libcrypto)\n",
           n_allocs, n_frees);
    TU_CHECK(n_allocs > 0 && n_frees > 0, "the custom allocator saw nothing");
    EVP_CIPHER_free(c20);
    EVP_CIPHER_free(aead);
    EVP_CIPHER_free(xc20);
    EVP_CIPHER_free(xaead);
    return tu_finish();
}
