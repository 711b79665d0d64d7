/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The AEAD bug classes OpenSSL fixed or is fixing in 2026, one named
 * regression test each, on both AEADs of ours; for ChaCha20-Poly1305 the
 * default provider's result is printed beside ours (it is not asserted: it
 * is what the system's OpenSSL does, bug or not). XChaCha20-Poly1305 has no
 * default implementation ("n/a").
 *   openssl#32752  EVP_Cipher(ctx, out, in, 0) between two AAD pieces must
 *                  be transparent: same tag as the AAD in one piece
 *   openssl#32258  an empty text decrypted and finalised by
 *                  EVP_Cipher(ctx, out, NULL, 0) must check the tag
 *   openssl#31285  decrypt Final with no tag set must fail
 *   tag length 0 and 17 (over EVP_CHACHAPOLY_TLS_TAG_LEN) set on decrypt, or
 *                  asked for after encrypt, must fail
 *   empty AAD after the text (EVP_Cipher(ctx, NULL, aad, 0), found by our
 *                  fuzzing campaign): refused, or the tag of the message;
 *                  the default provider pads the AAD again at the end
 * Each row: "<case> <aead>: ours=<result> default=<result>".
 */
#include <stdio.h>
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include "testutil.h"

static const unsigned char key[32] = { 0x80, 0x81, 0x82, 0x83, 7 };
static const unsigned char iv[24] = { 0x07, 0, 0, 0, 0x40, 0x41, 0x42 };
static const unsigned char aad1[] = "first piece of aad, ";
static const unsigned char aad2[] = "second piece";
static const unsigned char text[40] = "forty bytes of text to seal and open...";

/* One run of a case: 1 = the safe outcome, 0 = unsafe or wrong; what = words. */
typedef int case_fn(const EVP_CIPHER *c, const char **what);

static int start(EVP_CIPHER_CTX *x, const EVP_CIPHER *c, int enc)
{
    return EVP_CipherInit_ex(x, c, NULL, key, iv, enc);
}

/* The reference: AAD aad1||aad2 in one piece, text, tag (one EVP_Cipher each). */
static int seal_ref(const EVP_CIPHER *c, const unsigned char *a, size_t alen,
                    unsigned char *ct, size_t tlen, unsigned char tag[16])
{
    EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
    int ok = x != NULL && start(x, c, 1)
             && EVP_Cipher(x, NULL, a, (unsigned int)alen) >= 0
             && (tlen == 0 || EVP_Cipher(x, ct, text, (unsigned int)tlen) >= 0)
             && EVP_Cipher(x, NULL, NULL, 0) >= 0
             && EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_GET_TAG, 16, tag) > 0;

    EVP_CIPHER_CTX_free(x);
    return ok;
}

static int both_aad(unsigned char *a, size_t *alen)
{
    *alen = sizeof(aad1) - 1 + sizeof(aad2) - 1;
    memcpy(a, aad1, sizeof(aad1) - 1);
    memcpy(a + sizeof(aad1) - 1, aad2, sizeof(aad2) - 1);
    return 1;
}

/* openssl#32752, encrypt: the tag must be the one of the AAD in one piece. */
static int c32752_seal(const EVP_CIPHER *c, const char **what)
{
    EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
    unsigned char a[64], ct[40], ct_ref[40], tag[16], tag_ref[16], o[16];
    size_t alen;
    int ok = 0;

    both_aad(a, &alen);
    if (x == NULL || !seal_ref(c, a, alen, ct_ref, sizeof(text), tag_ref)
        || !start(x, c, 1)
        || EVP_Cipher(x, NULL, aad1, sizeof(aad1) - 1) < 0
        || EVP_Cipher(x, o, text, 0) < 0
        || EVP_Cipher(x, NULL, aad2, sizeof(aad2) - 1) < 0) {
        *what = "refused the second AAD piece";
    } else if (EVP_Cipher(x, ct, text, sizeof(text)) < 0 || EVP_Cipher(x, NULL, NULL, 0) < 0
               || EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_GET_TAG, 16, tag) <= 0) {
        *what = "failed after the AAD";
    } else if (memcmp(tag, tag_ref, 16) != 0 || memcmp(ct, ct_ref, sizeof(ct)) != 0) {
        *what = "WRONG TAG (AAD closed by the zero-length call)";
    } else {
        *what = "transparent (tag as one AAD piece)";
        ok = 1;
    }
    EVP_CIPHER_CTX_free(x);
    ERR_clear_error();
    return ok;
}

/* openssl#32752, decrypt: the right tag must verify across the zero-length call. */
static int c32752_open(const EVP_CIPHER *c, const char **what)
{
    EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
    unsigned char a[64], ct[40], pt[40], tag[16], o[16];
    size_t alen;
    int ok = 0;

    both_aad(a, &alen);
    if (x == NULL || !seal_ref(c, a, alen, ct, sizeof(ct), tag) || !start(x, c, 0)
        || EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_SET_TAG, 16, tag) <= 0
        || EVP_Cipher(x, NULL, aad1, sizeof(aad1) - 1) < 0
        || EVP_Cipher(x, o, ct, 0) < 0
        || EVP_Cipher(x, NULL, aad2, sizeof(aad2) - 1) < 0
        || EVP_Cipher(x, pt, ct, sizeof(ct)) < 0) {
        *what = "refused a step";
    } else if (EVP_Cipher(x, NULL, NULL, 0) < 0) {
        *what = "REJECTED THE RIGHT TAG (AAD closed by the zero-length call)";
    } else if (memcmp(pt, text, sizeof(pt)) != 0) {
        *what = "wrong text";
    } else {
        *what = "transparent (right tag verifies)";
        ok = 1;
    }
    EVP_CIPHER_CTX_free(x);
    ERR_clear_error();
    return ok;
}

/*
 * openssl#32258: empty text, AAD only, wrong (or right) tag, finalised by
 * EVP_Cipher(ctx, out, NULL, 0).
 */
static int empty_open(const EVP_CIPHER *c, int flip, const char **what)
{
    EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
    unsigned char tag[16], o[16];
    int r = -2, ok;

    if (x != NULL && seal_ref(c, aad1, sizeof(aad1) - 1, NULL, 0, tag)) {
        tag[0] ^= (unsigned char)flip;
        if (start(x, c, 0) && EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_SET_TAG, 16, tag) > 0
            && EVP_Cipher(x, NULL, aad1, sizeof(aad1) - 1) >= 0)
            r = EVP_Cipher(x, o, NULL, 0);
    }
    if (flip) {
        ok = r < 0 && r != -2;
        *what = r == -2 ? "setup failed" : r < 0 ? "rejected the wrong tag"
                                                 : "ACCEPTED A WRONG TAG";
    } else {
        ok = r >= 0;
        *what = r >= 0 ? "accepted the right tag" : "rejected the right tag";
    }
    EVP_CIPHER_CTX_free(x);
    ERR_clear_error();
    return ok;
}

static int c32258_wrong(const EVP_CIPHER *c, const char **what) { return empty_open(c, 1, what); }
static int c32258_right(const EVP_CIPHER *c, const char **what) { return empty_open(c, 0, what); }

/* openssl#31285: decrypt, text, Final with no tag ever set. */
static int c31285(const EVP_CIPHER *c, const char **what)
{
    EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
    unsigned char pt[40];
    int outl, r = -2;

    if (x != NULL && start(x, c, 0)
        && EVP_DecryptUpdate(x, NULL, &outl, aad1, sizeof(aad1) - 1)
        && EVP_DecryptUpdate(x, pt, &outl, text, sizeof(text)))
        r = EVP_DecryptFinal_ex(x, pt, &outl);
    *what = r == -2 ? "setup failed" : r > 0 ? "ACCEPTED (nothing authenticated)"
                                             : "refused";
    EVP_CIPHER_CTX_free(x);
    ERR_clear_error();
    return r != -2 && r <= 0;
}

/* Empty AAD after the text, seal: refused, or the message's own tag. */
static int empty_aad_after_text(const EVP_CIPHER *c, const char **what)
{
    EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
    const size_t alen = sizeof(aad1) - 1;     /* 20: not a multiple of 16 */
    unsigned char ref[16], tag[16], ct[40];
    int r = -2, same = 0;

    *what = "setup failed";
    if (x != NULL && seal_ref(c, aad1, alen, ct, sizeof(text), ref) && start(x, c, 1)
        && EVP_Cipher(x, NULL, aad1, (unsigned int)alen) >= 0
        && EVP_Cipher(x, ct, text, sizeof(text)) >= 0) {
        r = EVP_Cipher(x, NULL, aad1, 0);
        if (r < 0) {
            *what = "refused";
        } else if (EVP_Cipher(x, NULL, NULL, 0) >= 0
                   && EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_GET_TAG, 16, tag) > 0) {
            same = memcmp(tag, ref, sizeof(tag)) == 0;
            *what = same ? "accepted, the message's tag"
                         : "ACCEPTED, A TAG OF NEITHER MESSAGE";
        } else {
            r = -2;
        }
    }
    EVP_CIPHER_CTX_free(x);
    ERR_clear_error();
    return r != -2 && (r < 0 || same);
}

/* A tag length set on decrypt (set = 1) or asked for after encrypt (set = 0). */
static int tag_len_case(const EVP_CIPHER *c, int set, int len, const char **what)
{
    EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
    unsigned char tag[32] = { 0 }, ct[40];
    int outl, r = -2;

    if (x != NULL && start(x, c, !set)) {
        if (set) {
            r = EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_SET_TAG, len, tag);
        } else if (EVP_EncryptUpdate(x, ct, &outl, text, sizeof(text))
                   && EVP_EncryptFinal_ex(x, ct, &outl)) {
            r = EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_GET_TAG, len, tag);
        }
    }
    *what = r == -2 ? "setup failed" : r > 0 ? "ACCEPTED" : "refused";
    EVP_CIPHER_CTX_free(x);
    ERR_clear_error();
    return r != -2 && r <= 0;
}

static int set_tag0(const EVP_CIPHER *c, const char **w) { return tag_len_case(c, 1, 0, w); }
static int set_tag17(const EVP_CIPHER *c, const char **w) { return tag_len_case(c, 1, 17, w); }
static int get_tag0(const EVP_CIPHER *c, const char **w) { return tag_len_case(c, 0, 0, w); }
static int get_tag17(const EVP_CIPHER *c, const char **w) { return tag_len_case(c, 0, 17, w); }

static const struct {
    const char *name;
    case_fn *fn;
} cases[] = {
    { "openssl#32752 zero-length EVP_Cipher between AAD pieces, seal", c32752_seal },
    { "openssl#32752 zero-length EVP_Cipher between AAD pieces, open", c32752_open },
    { "openssl#32258 empty text, EVP_Cipher(out, NULL, 0) final, wrong tag", c32258_wrong },
    { "openssl#32258 (control) same with the right tag", c32258_right },
    { "openssl#31285 decrypt Final with no tag set", c31285 },
    { "tag length 0 set on decrypt", set_tag0 },
    { "tag length 17 set on decrypt", set_tag17 },
    { "tag length 0 asked after encrypt", get_tag0 },
    { "tag length 17 asked after encrypt", get_tag17 },
    { "empty AAD through EVP_Cipher after the text, seal", empty_aad_after_text },
};

int main(void)
{
    static const char *const aeads[] = { "ChaCha20-Poly1305", "XChaCha20-Poly1305" };
    EVP_CIPHER *ours, *dflt;
    const char *w_ours, *w_dflt;
    size_t i, a;
    int ok;

    if (!tu_init("test_aead_regress"))
        return tu_finish();
    for (a = 0; a < 2; a++) {
        ours = tu_fetch_ours(aeads[a]);
        dflt = a == 0 ? tu_fetch_default(aeads[a]) : NULL;
        if (ours == NULL)
            continue;
        for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            ok = cases[i].fn(ours, &w_ours);
            w_dflt = "n/a (no such cipher)";
            if (dflt != NULL)
                cases[i].fn(dflt, &w_dflt);
            printf("# %s, %s: ours=%s default=%s\n", cases[i].name, aeads[a],
                   w_ours, w_dflt);
            TU_CHECK(ok, "%s, %s: ours must be safe", cases[i].name, aeads[a]);
        }
        EVP_CIPHER_free(ours);
        EVP_CIPHER_free(dflt);
    }
    return tu_finish();
}
