/* SPDX-License-Identifier: Apache-2.0 */
/*
 * POLY1305 as an EVP_PKEY (the 1.1.1 way of computing a MAC): our key
 * manager and signature, through EVP_PKEY_new_raw_private_key +
 * EVP_DigestSign*, must give what OpenSSL's default provider gives:
 *  - all 46 stanzas of OpenSSL's evpmac_poly1305.txt (the 42 EVP_MAC ones
 *    and the 4 "by EVP_PKEY" ones) through the EVP_PKEY path of provider
 *    chacha, the key manager and the signature checked to be ours, the data
 *    in one piece and in pieces; a wrong expected tag is noticed (control);
 *  - the 1.1.1 calls with no library context (EVP_PKEY_POLY1305, NULL
 *    engine) with only our provider in the default context;
 *  - keygen from "priv" (what `openssl dgst -mac poly1305 -macopt hexkey:`
 *    does), raw key export, EVP_PKEY_eq, EVP_MD_CTX_copy mid-message, a
 *    re-init that reuses the key, and the failures (a 16-byte key, a keygen
 *    without a key) side by side with the default provider: same result,
 *    same reason.
 */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include "testutil.h"

typedef struct {
    int line;
    unsigned char *key, *in, *out;
    size_t klen, ilen, olen;
} stanza;

#define MAXST 64
static stanza st[MAXST];
static int nst, npkey_stanzas;

static int read_stanzas(void)
{
    char *path = tu_vector_path("evpmac_poly1305.txt");
    char *text = tu_read_file(path, NULL), *line, *save = NULL;
    int lineno = 0, in_mac = 0;

    free(path);
    if (!TU_CHECK(text != NULL, "read evpmac_poly1305.txt"))
        return 0;
    for (line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
        char *eq = strstr(line, " = ");
        size_t n;
        unsigned char *v;

        lineno++;
        if (line[0] == '#' || eq == NULL)
            continue;
        *eq = '\0';
        if (strcmp(line, "MAC") == 0) {
            in_mac = strncmp(eq + 3, "Poly1305", 8) == 0 && nst < MAXST;
            if (in_mac) {
                st[nst].line = lineno;
                npkey_stanzas += strstr(eq + 3, "EVP_PKEY") != NULL;
                nst++;
            }
            continue;
        }
        if (!in_mac || (strcmp(line, "Key") && strcmp(line, "Input") && strcmp(line, "Output")))
            continue;
        v = tu_hex_decode(eq + 3, &n);
        if (!TU_CHECK(v != NULL, "line %d: hex", lineno))
            continue;
        if (line[0] == 'K') {
            st[nst - 1].key = v;
            st[nst - 1].klen = n;
        } else if (line[0] == 'I') {
            st[nst - 1].in = v;
            st[nst - 1].ilen = n;
        } else {
            st[nst - 1].out = v;
            st[nst - 1].olen = n;
        }
    }
    free(text);
    return 1;
}

static const char *provider_of_pctx(EVP_PKEY_CTX *pctx)
{
    const OSSL_PROVIDER *p = EVP_PKEY_CTX_get0_provider(pctx);

    return p != NULL ? OSSL_PROVIDER_get0_name(p) : "(none)";
}

/*
 * MAC of in under key through EVP_PKEY on libctx/propq, the data in pieces
 * of step bytes (0: one piece). Returns 1 and the tag, or 0; *sigprov is the
 * signature's provider.
 */
static int pkey_mac(OSSL_LIB_CTX *libctx, const char *propq, const unsigned char *key,
                    size_t klen, const unsigned char *in, size_t ilen, size_t step,
                    unsigned char *tag, size_t *tlen, const char **keyprov,
                    const char **sigprov)
{
    EVP_PKEY *pk = EVP_PKEY_new_raw_private_key_ex(libctx, "POLY1305", propq, key, klen);
    EVP_MD_CTX *m = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pctx = NULL;
    size_t done = 0, n, need = 0;
    int ok;

    *keyprov = pk != NULL && EVP_PKEY_get0_provider(pk) != NULL
               ? OSSL_PROVIDER_get0_name(EVP_PKEY_get0_provider(pk)) : "(none)";
    ok = pk != NULL && m != NULL
         && EVP_DigestSignInit_ex(m, &pctx, NULL, libctx, propq, pk, NULL) == 1;
    *sigprov = ok ? provider_of_pctx(pctx) : "(none)";
    while (ok && done < ilen) {
        n = step == 0 || step > ilen - done ? ilen - done : step;
        ok = EVP_DigestSignUpdate(m, in + done, n) == 1;
        done += n;
    }
    ok = ok && EVP_DigestSignFinal(m, NULL, &need) == 1 && need == 16
         && (*tlen = need, EVP_DigestSignFinal(m, tag, tlen) == 1);
    EVP_MD_CTX_free(m);
    EVP_PKEY_free(pk);
    return ok;
}

static void stanzas(void)
{
    static const size_t steps[] = { 0, 1, 7, 16, 17, 100 };
    unsigned char tag[16];
    size_t tlen = 0, k;
    const char *kp, *sp;
    int i, ok, all = 1;

    for (i = 0; i < nst; i++) {
        const stanza *s = &st[i];

        if (!TU_CHECK(s->key && s->in && s->out && s->olen == 16, "line %d: fields", s->line))
            continue;
        for (k = 0; k < sizeof(steps) / sizeof(steps[0]); k++) {
            ok = pkey_mac(tu_libctx, TU_PROPQ_OURS, s->key, s->klen, s->in, s->ilen,
                          steps[k], tag, &tlen, &kp, &sp);
            all &= TU_CHECK(ok && tlen == 16 && memcmp(tag, s->out, 16) == 0,
                            "evpmac_poly1305.txt line %d (pieces of %zu): EVP_PKEY MAC",
                            s->line, steps[k])
                   && TU_CHECK(strcmp(kp, TU_OURS) == 0 && strcmp(sp, TU_OURS) == 0,
                               "line %d: key manager %s, signature %s", s->line, kp, sp);
        }
    }
    printf("# evpmac_poly1305.txt: %d stanzas (%d of them \"by EVP_PKEY\") through "
           "EVP_PKEY + EVP_DigestSign on provider %s: %s\n", nst, npkey_stanzas, TU_OURS,
           all ? "all equal" : "MISMATCHES");
    TU_CHECK(nst == 46 && npkey_stanzas == 4, "46 stanzas, 4 by EVP_PKEY (found %d, %d)",
             nst, npkey_stanzas);
    /* control: the comparison sees a wrong tag */
    ok = pkey_mac(tu_libctx, TU_PROPQ_OURS, st[1].key, st[1].klen, st[1].in, st[1].ilen, 0,
                  tag, &tlen, &kp, &sp);
    tag[0] ^= 1;
    TU_CHECK(ok && memcmp(tag, st[1].out, 16) != 0, "control: a wrong tag compares equal");
}

/* The 1.1.1 calls: no library context, a NID, only our provider loaded. */
static void legacy_api(void)
{
    OSSL_PROVIDER *p = OSSL_PROVIDER_load(NULL, TU_OURS);
    const stanza *s = &st[nst - 1];
    EVP_PKEY *pk = NULL;
    EVP_MD_CTX *m = EVP_MD_CTX_new();
    unsigned char tag[16], raw[32];
    size_t tlen = sizeof(tag), rlen = sizeof(raw);
    int ok;

    if (!TU_CHECK(p != NULL, "load %s into the default library context", TU_OURS))
        goto end;
    pk = EVP_PKEY_new_raw_private_key(EVP_PKEY_POLY1305, NULL, s->key, s->klen);
    ok = TU_CHECK(pk != NULL, "EVP_PKEY_new_raw_private_key(EVP_PKEY_POLY1305, NULL, ...)")
         && TU_CHECK(EVP_PKEY_get0_provider(pk) == p, "the key is our provider's")
         && TU_CHECK(EVP_PKEY_is_a(pk, "POLY1305"), "the key is a POLY1305 key");
    ok = ok && TU_CHECK(EVP_PKEY_get_raw_private_key(pk, raw, &rlen) == 1 && rlen == 32
                        && memcmp(raw, s->key, 32) == 0, "EVP_PKEY_get_raw_private_key");
    ok = ok && TU_CHECK(EVP_DigestSignInit(m, NULL, NULL, NULL, pk) == 1
                        && EVP_DigestSignUpdate(m, s->in, s->ilen) == 1
                        && EVP_DigestSignFinal(m, tag, &tlen) == 1 && tlen == 16,
                        "EVP_DigestSignInit(m, NULL, NULL, NULL, pkey) + Update + Final");
    if (ok)
        TU_MEM_EQ(tag, tlen, s->out, 16, "1.1.1-style Poly1305 MAC");
    /* the one-shot form */
    tlen = sizeof(tag);
    ok = TU_CHECK(EVP_DigestSignInit(m, NULL, NULL, NULL, pk) == 1
                  && EVP_DigestSign(m, tag, &tlen, s->in, s->ilen) == 1, "EVP_DigestSign");
    if (ok)
        TU_MEM_EQ(tag, tlen, s->out, 16, "EVP_DigestSign one-shot");
 end:
    ERR_clear_error();
    EVP_MD_CTX_free(m);
    EVP_PKEY_free(pk);
    OSSL_PROVIDER_unload(p);
}

static const char *take_error(void)
{
    static char msg[200];
    unsigned long e = ERR_peek_last_error();

    msg[0] = '\0';
    if (e != 0)
        ERR_error_string_n(e, msg, sizeof(msg));
    ERR_clear_error();
    return msg;
}

/* One scenario on ours and on the default provider: same result, same reason. */
typedef int scenario_fn(const char *propq, unsigned char tag[16]);

static int keygen_hexkey(const char *propq, unsigned char tag[16])
{
    EVP_PKEY_CTX *g = EVP_PKEY_CTX_new_from_name(tu_libctx, "POLY1305", propq);
    EVP_PKEY *pk = NULL;
    EVP_MD_CTX *m = EVP_MD_CTX_new();
    char hex[65];
    size_t tlen = 16;
    int i, ok;

    for (i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", st[2].key[i]);
    ok = g != NULL && EVP_PKEY_keygen_init(g) == 1
         && EVP_PKEY_CTX_ctrl_str(g, "hexkey", hex) > 0 && EVP_PKEY_keygen(g, &pk) == 1
         && EVP_DigestSignInit_ex(m, NULL, NULL, tu_libctx, propq, pk, NULL) == 1
         && EVP_DigestSign(m, tag, &tlen, st[2].in, st[2].ilen) == 1;
    EVP_MD_CTX_free(m);
    EVP_PKEY_free(pk);
    EVP_PKEY_CTX_free(g);
    return ok;
}

static int keygen_nokey(const char *propq, unsigned char tag[16])
{
    EVP_PKEY_CTX *g = EVP_PKEY_CTX_new_from_name(tu_libctx, "POLY1305", propq);
    EVP_PKEY *pk = NULL;
    int ok;

    (void)tag;
    ok = g != NULL && EVP_PKEY_keygen_init(g) == 1 && EVP_PKEY_keygen(g, &pk) == 1;
    EVP_PKEY_free(pk);
    EVP_PKEY_CTX_free(g);
    return ok;
}

static int short_key(const char *propq, unsigned char tag[16])
{
    const char *kp, *sp;
    size_t tlen;

    return pkey_mac(tu_libctx, propq, st[3].key, 16, st[3].in, st[3].ilen, 0, tag, &tlen,
                    &kp, &sp);
}

/* EVP_MD_CTX_copy_ex mid-message (signature dupctx), then a re-init with the same key */
static int copy_and_reinit(const char *propq, unsigned char tag[16])
{
    EVP_PKEY *pk = EVP_PKEY_new_raw_private_key_ex(tu_libctx, "POLY1305", propq,
                                                   st[4].key, 32);
    EVP_MD_CTX *m = EVP_MD_CTX_new(), *c = EVP_MD_CTX_new();
    unsigned char t1[16], t2[16];
    size_t l1 = 16, l2 = 16, l3 = 16, half = st[4].ilen / 2;
    int ok;

    ok = pk != NULL && EVP_DigestSignInit_ex(m, NULL, NULL, tu_libctx, propq, pk, NULL) == 1
         && EVP_DigestSignUpdate(m, st[4].in, half) == 1 && EVP_MD_CTX_copy_ex(c, m) == 1
         && EVP_DigestSignUpdate(m, st[4].in + half, st[4].ilen - half) == 1
         && EVP_DigestSignUpdate(c, st[4].in + half, st[4].ilen - half) == 1
         && EVP_DigestSignFinal(m, t1, &l1) == 1 && EVP_DigestSignFinal(c, t2, &l2) == 1
         && memcmp(t1, st[4].out, 16) == 0 && memcmp(t2, st[4].out, 16) == 0
         /* re-init: no new key, the EVP_PKEY's is used again */
         && EVP_DigestSignInit_ex(m, NULL, NULL, NULL, NULL, NULL, NULL) == 1
         && EVP_DigestSignUpdate(m, st[4].in, st[4].ilen) == 1
         && EVP_DigestSignFinal(m, tag, &l3) == 1;
    EVP_MD_CTX_free(m);
    EVP_MD_CTX_free(c);
    EVP_PKEY_free(pk);
    return ok;
}

static int keys_eq(const char *propq, unsigned char tag[16])
{
    EVP_PKEY *a = EVP_PKEY_new_raw_private_key_ex(tu_libctx, "POLY1305", propq, st[5].key, 32);
    EVP_PKEY *b = EVP_PKEY_new_raw_private_key_ex(tu_libctx, "POLY1305", propq, st[5].key, 32);
    EVP_PKEY *c = EVP_PKEY_new_raw_private_key_ex(tu_libctx, "POLY1305", propq, st[6].key, 32);
    /* both results, as one number: OpenSSL 3.0 answers -2 or 0 for MAC keys */
    int r = a && b && c ? 10 * EVP_PKEY_eq(a, b) + EVP_PKEY_eq(a, c) : -100;

    (void)tag;
    EVP_PKEY_free(a);
    EVP_PKEY_free(b);
    EVP_PKEY_free(c);
    return r;
}

#define AS_DEFAULT (-1000)

static void side_by_side(void)
{
    static const struct {
        const char *name;
        scenario_fn *fn;
        int want, tag;         /* want: ours' result (AS_DEFAULT: the default's);
                                  tag: compare tags */
    } sc[] = {
        { "keygen with \"hexkey\" (openssl dgst -macopt hexkey:)", keygen_hexkey, 1, 1 },
        { "keygen without a key", keygen_nokey, 0, 0 },
        { "a 16-byte key: DigestSignInit", short_key, 0, 0 },
        { "EVP_MD_CTX_copy_ex mid-message, then a re-init reusing the key", copy_and_reinit, 1, 1 },
        { "EVP_PKEY_eq (10 x same key + other key)", keys_eq, AS_DEFAULT, 0 },
    };
    unsigned char to[16], td[16];
    char eo[200];
    size_t i;

    for (i = 0; i < sizeof(sc) / sizeof(sc[0]); i++) {
        int ro, rd;
        const char *ed;

        memset(to, 0, 16);
        memset(td, 0xff, 16);
        ERR_clear_error();
        ro = sc[i].fn(TU_PROPQ_OURS, to);
        snprintf(eo, sizeof(eo), "%s", take_error());
        rd = sc[i].fn(TU_PROPQ_DEFAULT, td);
        ed = take_error();
        printf("# [%s] ours %d %s; default %d %s\n", sc[i].name, ro, eo[0] ? eo : "(no error)",
               rd, ed[0] ? ed : "(no error)");
        TU_CHECK(ro == rd && (ro == sc[i].want || sc[i].want == AS_DEFAULT),
                 "[%s] ours %d default %d, want %d", sc[i].name, ro, rd, sc[i].want);
        if (sc[i].want == 0)
            /* the same reason text (after the code: library and reason) */
            TU_CHECK(eo[0] != '\0' && ed[0] != '\0'
                     && strcmp(strchr(eo + 6, ':'), strchr(ed + 6, ':')) == 0,
                     "[%s] ours \"%s\", default \"%s\"", sc[i].name, eo, ed);
        if (sc[i].tag)
            TU_MEM_EQ(to, 16, td, 16, sc[i].name);
    }
}

int main(void)
{
    int i;

    if (!tu_init("test_pkey_poly1305"))
        return tu_finish();
    if (read_stanzas() && TU_CHECK(nst > 6, "stanzas read")) {
        stanzas();
        side_by_side();
        legacy_api();
    }
    for (i = 0; i < nst; i++) {
        free(st[i].key);
        free(st[i].in);
        free(st[i].out);
    }
    return tu_finish();
}
