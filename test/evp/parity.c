/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_parity's machinery: traces of both providers, expectations,
 * comparison, the data, recorded EVP calls, the message runner.
 */
#include "parity.h"

/* ------------------------------------------------------------------------ */
/* Traces                                                                    */





trace tr[2] = { { "ours", NULL, 0, 0 }, { "default", NULL, 0, 0 } };
trace *T;               /* the trace being recorded */
const char *cur_case = "";
EVP_CIPHER *c20[2], *cp[2];
unsigned long notes, n_parity, n_deviation;
int list_cases;         /* CHACHA_TEST_VERBOSE: list every case */

int is_ours(void)
{
    return T == &tr[OURS];
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);

    if (p == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

static rec *rec_vnew(int kind, const char *fmt, va_list ap) PRINTF(2, 0);
static rec *rec_vnew(int kind, const char *fmt, va_list ap)
{
    rec *r;

    if (T->n == T->cap) {
        size_t cap = T->cap ? 2 * T->cap : 64;
        rec *nr = realloc(T->r, cap * sizeof(*nr));

        if (nr == NULL) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
        T->r = nr;
        T->cap = cap;
    }
    r = &T->r[T->n++];
    memset(r, 0, sizeof(*r));
    r->kind = kind;
    vsnprintf(r->label, sizeof(r->label), fmt, ap);
    return r;
}

void trace_reset(trace *t)
{
    size_t i;

    for (i = 0; i < t->n; i++)
        free(t->r[i].data);
    t->n = 0;
}

void r_int(long long v, const char *fmt, ...)
{
    va_list ap;
    rec *r;

    va_start(ap, fmt);
    r = rec_vnew(K_INT, fmt, ap);
    va_end(ap);
    r->v = v;
}

void r_bytes(const void *p, size_t len, const char *fmt, ...)
{
    va_list ap;
    rec *r;

    va_start(ap, fmt);
    r = rec_vnew(K_BYTES, fmt, ap);
    va_end(ap);
    r->data = xmalloc(len);
    if (len)
        memcpy(r->data, p, len);
    r->len = len;
}

/* Records rc, then the error queue's last entry (and clears the queue). */
static long long r_rc_v(int lenient, long long rc, const char *fmt,
                        va_list ap) PRINTF(3, 0);
static long long r_rc_v(int lenient, long long rc, const char *fmt, va_list ap)
{
    char label[64];
    rec *r;

    vsnprintf(label, sizeof(label), fmt, ap);
    r_int(rc, "%s", label);
    r_int(0, "%s err", label);
    r = &T->r[T->n - 1];
    r->kind = K_ERR;
    r->err = ERR_peek_last_error();
    r->lenient = lenient;
    ERR_clear_error();
    return rc;
}

long long r_rc(long long rc, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    rc = r_rc_v(0, rc, fmt, ap);
    va_end(ap);
    return rc;
}

/* For authentication results: OpenSSL raises nothing, we may or may not. */
static long long r_rc_auth(long long rc, const char *fmt, ...) PRINTF(2, 3);
static long long r_rc_auth(long long rc, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    rc = r_rc_v(1, rc, fmt, ap);
    va_end(ap);
    return rc;
}

/* --- expectations on the last recorded step (both providers, or ours) --- */

static const rec *last_kind(int kind)
{
    size_t i = T->n;

    while (i-- > 0)
        if (T->r[i].kind == kind)
            return &T->r[i];
    return NULL;
}

static const char *err_lib_name(unsigned long e)
{
    const char *s = ERR_lib_error_string(e);

    return s ? s : "?";
}

static const char *err_reason_name(unsigned long e)
{
    const char *s = ERR_reason_error_string(e);

    return s ? s : "?";
}

/* reason: -1 anything, 0 none raised, >0 that PROV reason */
static int check_err(const rec *e, int reason, int only_ours)
{
    if (reason < 0 || (only_ours && !is_ours()))
        return 1;
    if (reason == 0)
        return TU_CHECK(e->err == 0, "[%s] %s: %s: unexpected error %s: %s",
                        cur_case, T->who, e->label, err_lib_name(e->err),
                        err_reason_name(e->err));
    return TU_CHECK(ERR_GET_LIB(e->err) == ERR_LIB_PROV
                    && ERR_GET_REASON(e->err) == reason,
                    "[%s] %s: %s: error %lu:%d (%s: %s), want PROV reason %d",
                    cur_case, T->who, e->label,
                    (unsigned long)ERR_GET_LIB(e->err), ERR_GET_REASON(e->err),
                    err_lib_name(e->err), err_reason_name(e->err), reason);
}

/* The last r_rc step returned want (and raised reason, see check_err). */
int want_rc_(long long want, int reason, int only_ours)
{
    const rec *e = last_kind(K_ERR), *r = e - 1;
    int ok;

    if (only_ours && !is_ours())
        return 1;
    ok = TU_CHECK(r->v == want, "[%s] %s: %s returned %lld, want %lld",
                  cur_case, T->who, r->label, r->v, want);
    if (r->v == want)
        ok &= check_err(e, reason, only_ours);
    return ok;
}


int want_int_(long long want, int only_ours)
{
    const rec *r = last_kind(K_INT);

    if (only_ours && !is_ours())
        return 1;
    return TU_CHECK(r->v == want, "[%s] %s: %s = %lld, want %lld", cur_case,
                    T->who, r->label, r->v, want);
}


/* Ours raised an error from our own library whose reason text has needle. */
int want_ours_err_text(const char *needle)
{
    const rec *e = last_kind(K_ERR);
    const char *s;

    if (!is_ours())
        return 1;
    s = e->err ? ERR_reason_error_string(e->err) : NULL;
    return TU_CHECK(e->err != 0 && ERR_GET_LIB(e->err) != ERR_LIB_PROV
                    && s != NULL && strstr(s, needle) != NULL,
                    "[%s] ours: %s: error %s: %s, want \"%s\" from our library",
                    cur_case, e->label, e->err ? err_lib_name(e->err) : "none",
                    e->err ? err_reason_name(e->err) : "", needle);
}

/* ------------------------------------------------------------------------ */
/* Comparison                                                                */

static void hex_window(const char *who, const unsigned char *p, size_t len,
                       size_t at)
{
    size_t from = at > 16 ? at - 16 : 0, to = from + 48, i;

    if (to > len)
        to = len;
    printf("#     %-7s [%zu..%zu): ", who, from, to);
    for (i = from; i < to; i++)
        printf("%02x", p[i]);
    printf("\n");
}

static void print_err(const char *who, const rec *r)
{
    if (r->err == 0)
        printf("#     %-7s no error\n", who);
    else
        printf("#     %-7s %s: %s (lib %d reason %d)\n", who,
               err_lib_name(r->err), err_reason_name(r->err),
               ERR_GET_LIB(r->err), ERR_GET_REASON(r->err));
}

/* 1 if equal; on a difference prints it under the case name. */
static int rec_equal(const rec *a, const rec *b, size_t i, int verbose)
{
    size_t k;

    if (a->kind != b->kind || strcmp(a->label, b->label) != 0) {
        if (verbose)
            printf("#   step %zu: sequence diverged: ours \"%s\", default "
                   "\"%s\"\n", i, a->label, b->label);
        return 0;
    }
    switch (a->kind) {
    case K_INT:
        if (a->v == b->v)
            return 1;
        if (verbose)
            printf("#   step %zu \"%s\": ours %lld, default %lld\n", i,
                   a->label, a->v, b->v);
        return 0;
    case K_BYTES:
        if (a->len == b->len && memcmp(a->data, b->data, a->len) == 0)
            return 1;
        for (k = 0; k < a->len && k < b->len && a->data[k] == b->data[k]; k++)
            ;
        if (verbose) {
            printf("#   step %zu \"%s\": bytes differ (len %zu vs %zu, first "
                   "difference at %zu)\n", i, a->label, a->len, b->len, k);
            hex_window("ours", a->data, a->len, k);
            hex_window("default", b->data, b->len, k);
        }
        return 0;
    default:
        if (a->err == b->err
            || (ERR_GET_LIB(a->err) == ERR_GET_LIB(b->err)
                && ERR_GET_REASON(a->err) == ERR_GET_REASON(b->err)))
            return 1;
        if (b->err == 0 || (a->lenient && a->err == 0)) {
            /* we raise where the default raises nothing: harmless */
            if (a->err != 0 && verbose) {
                notes++;
                printf("# note [%s] step %zu \"%s\": ours raises %s: %s, the "
                       "default nothing\n", cur_case, i, a->label,
                       err_lib_name(a->err), err_reason_name(a->err));
            }
            return 1;
        }
        if (verbose) {
            printf("#   step %zu \"%s\": errors differ\n", i, a->label);
            print_err("ours", a);
            print_err("default", b);
        }
        return 0;
    }
}

/* Counts one check per step (or one for the whole trace if !per_step). */
int compare_traces(int per_step, const char *detail)
{
    const trace *a = &tr[OURS], *b = &tr[DFLT];
    size_t i, n = a->n < b->n ? a->n : b->n;
    int ok = 1, eq;

    for (i = 0; i < n; i++) {
        eq = rec_equal(&a->r[i], &b->r[i], i, 0);
        if (!eq) {
            if (ok)
                printf("# [%s]%s%s: parity difference\n", cur_case,
                       detail ? " " : "", detail ? detail : "");
            rec_equal(&a->r[i], &b->r[i], i, 1);
        } else if (a->r[i].kind == K_ERR) {
            rec_equal(&a->r[i], &b->r[i], i, per_step); /* print notes */
        }
        if (per_step)
            TU_CHECK(eq, "[%s] step %zu \"%s\": ours != default", cur_case, i,
                     a->r[i].label);
        ok &= eq;
        if (a->r[i].kind != b->r[i].kind
            || strcmp(a->r[i].label, b->r[i].label) != 0)
            break;
    }
    if (a->n != b->n) {
        printf("# [%s]: %zu steps for ours, %zu for default\n", cur_case, a->n,
               b->n);
        ok = 0;
    }
    if (!per_step || a->n != b->n)
        TU_CHECK(ok, "[%s]%s%s: ours != default", cur_case, detail ? " " : "",
                 detail ? detail : "");
    return ok;
}

/* Prints a trace compactly (what the default does in a fail-closed case). */
static void dump_trace(const trace *t)
{
    size_t i;

    for (i = 0; i < t->n; i++) {
        const rec *r = &t->r[i];

        if (r->kind == K_INT)
            printf("#     %s: %s = %lld\n", t->who, r->label, r->v);
        else if (r->kind == K_ERR && r->err != 0)
            printf("#     %s: %s: %s\n", t->who, r->label,
                   err_reason_name(r->err));
    }
}


void record(int which, const EVP_CIPHER *c, seq_fn fn, const void *arg)
{
    T = &tr[which];
    trace_reset(T);
    ERR_clear_error();
    fn(c, arg);
    ERR_clear_error();
}

/* Runs fn on both providers and compares (per_step: one check per step). */
int parity(const char *name, int aead, seq_fn fn, const void *arg,
                  int per_step, const char *detail)
{
    EVP_CIPHER **c = aead ? cp : c20;
    int ok;

    n_parity++;
    cur_case = name;
    record(OURS, c[OURS], fn, arg);
    record(DFLT, c[DFLT], fn, arg);
    ok = compare_traces(per_step, detail);
    if (list_cases && per_step)
        printf("# case [%s]: %zu steps, %s\n", name, tr[OURS].n,
               ok ? "equal" : "DIFFERENT");
    return ok;
}

/* Deviations: fn checks ours itself (want_ours_*); the default is shown. */
void deviation(const char *name, int aead, seq_fn fn, const void *arg)
{
    EVP_CIPHER **c = aead ? cp : c20;
    unsigned long before = tu_failed();

    n_deviation++;
    cur_case = name;
    record(OURS, c[OURS], fn, arg);
    record(DFLT, c[DFLT], fn, arg);
    printf("# deviation [%s]: ours %s; the default does:\n", name,
           tu_failed() == before ? "as designed" : "NOT as designed");
    dump_trace(&tr[DFLT]);
}

/* ------------------------------------------------------------------------ */
/* Data                                                                      */

unsigned char PT[MAXLEN + 64], AAD[2048 + 1];
unsigned char KEY1[32], KEY2[32], IV16[16], IV16B[16], N12[12], N12B[12];

/* Standard AEAD message: AAD 40 bytes, text 300 bytes (ct/tag by default). */
unsigned char STD_CT[STD_LEN], STD_TAG[TAGLEN];

void store_le32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

/* One-shot AEAD encryption with the default provider (outside any trace). */
int ref_seal(const unsigned char *key, const unsigned char *iv,
                    const unsigned char *aad, size_t alen,
                    const unsigned char *pt, size_t len, unsigned char *ct,
                    unsigned char tag[TAGLEN])
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int ok, outl;

    ok = ctx != NULL && EVP_EncryptInit_ex(ctx, cp[DFLT], NULL, key, iv)
         && (alen == 0
             || EVP_EncryptUpdate(ctx, NULL, &outl, aad, (int)alen))
         && (len == 0 || EVP_EncryptUpdate(ctx, ct, &outl, pt, (int)len))
         && EVP_EncryptFinal_ex(ctx, ct + len, &outl)
         && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, TAGLEN, tag) > 0;
    EVP_CIPHER_CTX_free(ctx);
    return ok;
}

/* ------------------------------------------------------------------------ */
/* Recorded EVP calls                                                        */

EVP_CIPHER_CTX *s_new(void)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();

    if (ctx == NULL) {
        fprintf(stderr, "EVP_CIPHER_CTX_new failed\n");
        exit(1);
    }
    return ctx;
}

int s_init(EVP_CIPHER_CTX *ctx, const EVP_CIPHER *c,
                  const unsigned char *key, const unsigned char *iv, int enc,
                  const char *what)
{
    return (int)r_rc(EVP_CipherInit_ex(ctx, c, NULL, key, iv, enc),
                     "init %s", what);
}

/* Update; records rc, outl and all len bytes of out (if any). */
int s_upd(EVP_CIPHER_CTX *ctx, unsigned char *out,
                 const unsigned char *in, size_t len, int auth,
                 const char *what)
{
    int outl = -1, rc = EVP_CipherUpdate(ctx, out, &outl, in, (int)len);

    if (auth)
        r_rc_auth(rc, "update %s", what);
    else
        r_rc(rc, "update %s", what);
    r_int(outl, "update %s outl", what);
    if (out != NULL)
        r_bytes(out, len, "update %s out", what);
    return rc;
}

int s_final(EVP_CIPHER_CTX *ctx, const char *what)
{
    unsigned char buf[32];
    int outl = -1, rc;

    memset(buf, 0xa5, sizeof(buf));
    rc = EVP_CipherFinal_ex(ctx, buf, &outl);
    r_rc_auth(rc, "final %s", what);
    r_int(outl, "final %s outl", what);
    r_bytes(buf, sizeof(buf), "final %s out", what);
    return rc;
}

/*
 * OpenSSL <= 3.0.20's default provider never computed or checked the tag in
 * EVP_Cipher(ctx, NULL, NULL, 0) (CVE-2026-75803; Debian's armhf libcrypto
 * is such a version). Against it, that finalisation runs as the equivalent
 * EVP_CipherFinal_ex on both sides, mapped to EVP_Cipher's return values.
 */
int dflt_cipher_final_unchecked;

int s_cipher(EVP_CIPHER_CTX *ctx, unsigned char *out,
                    const unsigned char *in, size_t len, const char *what)
{
    int rc, outl;

    if (in == NULL && len == 0 && dflt_cipher_final_unchecked
        && (EVP_CIPHER_get_flags(EVP_CIPHER_CTX_get0_cipher(ctx)) & EVP_CIPH_FLAG_AEAD_CIPHER) != 0) {
        unsigned char buf[32];

        rc = EVP_CipherFinal_ex(ctx, buf, &outl) == 1 ? 0 : -1;
    } else {
        rc = EVP_Cipher(ctx, out, in, (unsigned int)len);
    }

    r_rc_auth(rc, "EVP_Cipher %s", what);
    if (out != NULL)
        r_bytes(out, len, "EVP_Cipher %s out", what);
    return rc;
}

int s_ctrl(EVP_CIPHER_CTX *ctx, int type, int arg, void *ptr,
                  const char *what)
{
    return (int)r_rc(EVP_CIPHER_CTX_ctrl(ctx, type, arg, ptr), "ctrl %s",
                     what);
}

int s_get_tag(EVP_CIPHER_CTX *ctx, int n, const char *what)
{
    unsigned char tag[32];
    int rc;

    memset(tag, 0x5a, sizeof(tag));
    rc = s_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, n, tag, what);
    r_bytes(tag, sizeof(tag), "%s tag", what);
    return rc;
}

int s_set_params(EVP_CIPHER_CTX *ctx, const OSSL_PARAM *params,
                        const char *what)
{
    return (int)r_rc(EVP_CIPHER_CTX_set_params(ctx, params), "set_params %s",
                     what);
}

void s_get_size(EVP_CIPHER_CTX *ctx, const char *key)
{
    size_t v = 12345;
    OSSL_PARAM p[2];

    p[0] = OSSL_PARAM_construct_size_t(key, &v);
    p[1] = OSSL_PARAM_construct_end();
    r_rc(EVP_CIPHER_CTX_get_params(ctx, p), "get_params %s", key);
    r_int((long long)v, "get_params %s value", key);
}

/* ------------------------------------------------------------------------ */
/* Generic message runners (named cases and the random differential)         */


/* Sums a chunk pattern (cycled) over len; the last chunk takes the rest. */
void chunks(size_t *ch, int *n, size_t len, const size_t *pat, int npat)
{
    int k = 0;

    *n = 0;
    while (len > 0) {
        size_t c = npat ? pat[k++ % npat] : len;

        if (c > len || *n == MAXCH - 1)
            c = len;
        ch[(*n)++] = c;
        len -= c;
    }
}

/*
 * Init variants: 0 key+iv; 1 cipher, key, iv; 2 iv then key; 3 key then iv;
 * 4 opposite direction first, then key+iv with this one; 5 key+iv then an
 * empty re-init with enc = -1.
 */
static void do_init(EVP_CIPHER_CTX *ctx, const EVP_CIPHER *c, const spec *s)
{
    int set_early = !s->enc && s->tag_len > 0 && s->split == 1 && !s->tag_late;

    switch (s->split) {
    default:
        s_init(ctx, c, s->key, s->iv, s->enc, "key+iv");
        break;
    case 1:
        s_init(ctx, c, NULL, NULL, s->enc, "cipher only");
        if (set_early)
            s_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, (int)s->tag_len,
                   (void *)s->tag, "SET_TAG before key");
        s_init(ctx, NULL, s->key, NULL, -1, "key, enc=-1");
        s_init(ctx, NULL, NULL, s->iv, -1, "iv, enc=-1");
        break;
    case 2:
        s_init(ctx, c, NULL, s->iv, s->enc, "iv only");
        s_init(ctx, NULL, s->key, NULL, -1, "then key");
        break;
    case 3:
        s_init(ctx, c, s->key, NULL, s->enc, "key only");
        s_init(ctx, NULL, NULL, s->iv, -1, "then iv");
        break;
    case 4:
        s_init(ctx, c, s->key, s->iv, !s->enc, "other direction");
        s_init(ctx, NULL, s->key, s->iv, s->enc, "this direction");
        break;
    case 5:
        s_init(ctx, c, s->key, s->iv, s->enc, "key+iv");
        s_init(ctx, NULL, NULL, NULL, -1, "nothing, enc=-1");
        break;
    }
    r_int(EVP_CIPHER_CTX_is_encrypting(ctx), "is_encrypting");
    if (s->tag_len > 0 && !set_early && !(s->tag_late && !s->enc)) {
        if (s->enc)
            s_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, (int)s->tag_len, NULL,
                   "SET_TAG(n, NULL)");
        else
            s_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, (int)s->tag_len,
                   (void *)s->tag, "SET_TAG");
    }
}

static void text_chunk(EVP_CIPHER_CTX *ctx, const spec *s, unsigned char *out,
                       const unsigned char *src, size_t off, size_t n,
                       const char *who, int i)
{
    char lbl[40];

    snprintf(lbl, sizeof(lbl), "%s%stext[%d]", who, *who ? " " : "", i);
    if (s->api)
        s_cipher(ctx, out + off, src + off, n, lbl);
    else
        s_upd(ctx, out + off, src + off, n, 0, lbl);
    if (s->zero_calls) {
        snprintf(lbl, sizeof(lbl), "%s%szero after text[%d]", who,
                 *who ? " " : "", i);
        if (s->api)
            s_cipher(ctx, out + off, src + off, 0, lbl);
        else
            s_upd(ctx, out + off, src + off, 0, 0, lbl);
    }
}

void finish(EVP_CIPHER_CTX *ctx, const spec *s, int aead,
                   const char *who)
{
    char lbl[40];
    int rc;

    if (aead && !s->enc && s->tag_late && s->tag_len > 0) {
        snprintf(lbl, sizeof(lbl), "%s%sSET_TAG late", who, *who ? " " : "");
        s_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, (int)s->tag_len, (void *)s->tag,
               lbl);
    }
    snprintf(lbl, sizeof(lbl), "%s%sfinal", who, *who ? " " : "");
    if (s->api)
        rc = s_cipher(ctx, NULL, NULL, 0, lbl);
    else
        rc = s_final(ctx, lbl);
    if (aead && !s->enc && s->auth_expect >= 0) {
        long long want = s->api ? (s->auth_expect ? 0 : -1) : s->auth_expect;

        TU_CHECK(rc == want, "[%s] %s: %s returned %d, want %lld", cur_case,
                 T->who, lbl, rc, want);
    }
    if (aead && s->enc) {
        snprintf(lbl, sizeof(lbl), "%s%sGET_TAG", who, *who ? " " : "");
        s_get_tag(ctx, TAGLEN, lbl);
    }
}

/* One message (ChaCha20 or AEAD), optionally duplicated mid-stream. */
void run_msg(const EVP_CIPHER *c, const void *arg)
{
    const spec *s = arg;
    int aead = EVP_CIPHER_get_flags(c) & EVP_CIPH_FLAG_AEAD_CIPHER ? 1 : 0;
    EVP_CIPHER_CTX *ctx = s_new(), *dup = NULL;
    unsigned char *out = xmalloc(s->len + 1), *out2 = xmalloc(s->len + 1);
    const unsigned char *src = s->inplace ? out : s->in;
    size_t off = 0, aoff = 0;
    char lbl[40];
    int i;

    memset(out, 0xee, s->len + 1);
    if (s->inplace)
        memcpy(out, s->in, s->len);
    do_init(ctx, c, s);
    for (i = 0; aead && i < s->n_aad_ch; i++) {
        snprintf(lbl, sizeof(lbl), "aad[%d]", i);
        if (s->api)
            s_cipher(ctx, NULL, s->aad + aoff, s->aad_ch[i], lbl);
        else
            s_upd(ctx, NULL, s->aad + aoff, s->aad_ch[i], 0, lbl);
        aoff += s->aad_ch[i];
        if (s->zero_calls && !s->api) {
            snprintf(lbl, sizeof(lbl), "zero after aad[%d]", i);
            s_upd(ctx, NULL, s->aad, 0, 0, lbl);
        }
    }
    for (i = 0; i < s->n_ch; i++) {
        if (i == s->copy_after) {
            dup = EVP_CIPHER_CTX_new();
            r_rc(EVP_CIPHER_CTX_copy(dup, ctx), "copy after text[%d]", i);
            memcpy(out2, out, s->len + 1);
        }
        text_chunk(ctx, s, out, src, off, s->ch[i], "", i);
        off += s->ch[i];
    }
    if (s->copy_after >= 0 && s->copy_after == s->n_ch) {
        dup = EVP_CIPHER_CTX_new();
        r_rc(EVP_CIPHER_CTX_copy(dup, ctx), "copy after all text");
        memcpy(out2, out, s->len + 1);
    }
    finish(ctx, s, aead, "");
    r_bytes(out, s->len + 1, "output");
    if (dup != NULL) {
        const unsigned char *src2 = s->inplace ? out2 : s->in;

        /* the copy finishes the same message, in its own chunking */
        off = 0;
        for (i = 0; i < s->copy_after && i < s->n_ch; i++)
            off += s->ch[i];
        if (off < s->len) {
            size_t half = (s->len - off) / 2;

            text_chunk(dup, s, out2, src2, off, half, "dup", 0);
            text_chunk(dup, s, out2, src2, off + half, s->len - off - half,
                       "dup", 1);
        }
        finish(dup, s, aead, "dup");
        r_bytes(out2, s->len + 1, "dup output");
        r_int(memcmp(out, out2, s->len + 1) == 0, "dup output == output");
        want_int(1);
    }
    EVP_CIPHER_CTX_free(dup);
    EVP_CIPHER_CTX_free(ctx);
    free(out);
    free(out2);
}

/* spec with the standard AEAD message and one-shot chunks */
void spec_std(spec *s, int enc)
{
    memset(s, 0, sizeof(*s));
    s->enc = enc;
    s->key = KEY1;
    s->iv = N12;
    s->aad = AAD;
    s->aad_len = STD_AAD;
    chunks(s->aad_ch, &s->n_aad_ch, STD_AAD, NULL, 0);
    s->in = enc ? PT : STD_CT;
    s->len = STD_LEN;
    chunks(s->ch, &s->n_ch, STD_LEN, NULL, 0);
    s->tag = STD_TAG;
    s->tag_len = enc ? 0 : TAGLEN;
    s->copy_after = -1;
    s->auth_expect = 1;
}

void spec_c20(spec *s, int enc, const unsigned char *iv, size_t len)
{
    memset(s, 0, sizeof(*s));
    s->enc = enc;
    s->key = KEY1;
    s->iv = iv;
    s->in = PT;
    s->len = len;
    chunks(s->ch, &s->n_ch, len, NULL, 0);
    s->copy_after = -1;
    s->auth_expect = -1;
}

/* ------------------------------------------------------------------------ */

/* Does the default provider's EVP_Cipher(NULL, NULL, 0) accept a wrong tag? */
int default_cipher_final_unchecked(void)
{
    EVP_CIPHER *c = tu_fetch_default("ChaCha20-Poly1305");
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    unsigned char key[32] = { 0 }, iv[12] = { 0 }, tag[16] = { 0 };
    int unchecked = 0;

    if (c != NULL && ctx != NULL && EVP_DecryptInit_ex(ctx, c, NULL, key, iv)
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag) > 0)
        unchecked = EVP_Cipher(ctx, NULL, NULL, 0) >= 0;
    if (unchecked)
        printf("# note: this OpenSSL's default provider does not check the tag in "
               "EVP_Cipher(ctx, NULL, NULL, 0) (before 3.0.22); that step runs as "
               "EVP_CipherFinal_ex on both sides\n");
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(c);
    ERR_clear_error();
    return unchecked;
}


/* chunk patterns of the named cases */
const size_t pat_a[6] = { 1, 63, 65, 7, 100, 64 };
const size_t pat_b[1] = { 64 };
const size_t pat_c[5] = { 0, 1, 0, 2, 61 };
const size_t pat_d[3] = { 3, 200, 129 };
