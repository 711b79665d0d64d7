/* SPDX-License-Identifier: Apache-2.0 */
#include "testutil.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/params.h>
#include <openssl/provider.h>

OSSL_LIB_CTX *tu_libctx;
OSSL_PROVIDER *tu_prov_ours;
static OSSL_PROVIDER *tu_prov_default;
static const char *tu_name = "test";
static unsigned long tu_pass, tu_fail;

int tu_check_(int cond, const char *file, int line, const char *fmt, ...)
{
    va_list ap;

    if (cond) {
        tu_pass++;
        return 1;
    }
    tu_fail++;
    printf("FAIL %s:%d: ", file, line);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    tu_print_errors();
    fflush(stdout);
    return 0;
}

void tu_print_errors(void)
{
    unsigned long e;
    const char *file, *data;
    int line, flags;
    char buf[256];

    while ((e = ERR_get_error_all(&file, &line, NULL, &data, &flags)) != 0) {
        ERR_error_string_n(e, buf, sizeof(buf));
        printf("#   openssl error: %s (%s:%d)%s%s\n", buf, file, line,
               (flags & ERR_TXT_STRING) ? " " : "",
               (flags & ERR_TXT_STRING) ? data : "");
    }
}

void tu_hex_print(const char *label, const unsigned char *buf, size_t len)
{
    size_t i;

    printf("#   %s (%zu): ", label, len);
    for (i = 0; i < len; i++)
        printf("%02x", buf[i]);
    printf("\n");
}

int tu_mem_eq_(const void *got, size_t got_len, const void *exp,
               size_t exp_len, const char *file, int line, const char *label)
{
    int ok = got_len == exp_len
             && (exp_len == 0 || memcmp(got, exp, exp_len) == 0);

    if (!tu_check_(ok, file, line, "%s: mismatch", label)) {
        tu_hex_print("expected", exp, exp_len);
        tu_hex_print("got     ", got, got_len);
    }
    return ok;
}

unsigned long tu_failed(void)
{
    return tu_fail;
}

int tu_finish(void)
{
    printf("%s: %lu passed, %lu failed\n", tu_name, tu_pass, tu_fail);
    OSSL_PROVIDER_unload(tu_prov_ours);
    OSSL_PROVIDER_unload(tu_prov_default);
    tu_prov_ours = tu_prov_default = NULL;
    OSSL_LIB_CTX_free(tu_libctx);
    tu_libctx = NULL;
    return (tu_fail == 0 && tu_pass > 0) ? 0 : 1;
}

int tu_init(const char *testname)
{
    const char *c20 = NULL, *aead = NULL, *p1305 = NULL, *name = NULL, *version = NULL,
               *buildinfo = NULL, *want;
    int status = -1;
    OSSL_PARAM params[8];

    tu_name = testname;
    setvbuf(stdout, NULL, _IOLBF, 0);
    tu_libctx = OSSL_LIB_CTX_new();
    if (!TU_CHECK(tu_libctx != NULL, "OSSL_LIB_CTX_new"))
        return 0;
    tu_prov_ours = OSSL_PROVIDER_load(tu_libctx, TU_OURS);
    if (!TU_CHECK(tu_prov_ours != NULL,
                  "cannot load provider \"%s\" (OPENSSL_MODULES=%s)", TU_OURS,
                  getenv("OPENSSL_MODULES") ? getenv("OPENSSL_MODULES")
                                            : "(unset)"))
        return 0;
    tu_prov_default = OSSL_PROVIDER_load(tu_libctx, "default");
    if (!TU_CHECK(tu_prov_default != NULL, "cannot load provider \"default\""))
        return 0;

    params[0] = OSSL_PARAM_construct_utf8_ptr(OSSL_PROV_PARAM_NAME,
                                              (char **)&name, 0);
    params[1] = OSSL_PARAM_construct_utf8_ptr(OSSL_PROV_PARAM_VERSION,
                                              (char **)&version, 0);
    params[2] = OSSL_PARAM_construct_utf8_ptr(OSSL_PROV_PARAM_BUILDINFO,
                                              (char **)&buildinfo, 0);
    params[3] = OSSL_PARAM_construct_int(OSSL_PROV_PARAM_STATUS, &status);
    params[4] = OSSL_PARAM_construct_utf8_ptr("chacha20-impl",
                                              (char **)&c20, 0);
    params[5] = OSSL_PARAM_construct_utf8_ptr("poly1305-impl",
                                              (char **)&p1305, 0);
    params[6] = OSSL_PARAM_construct_utf8_ptr("chacha20-poly1305-impl",
                                              (char **)&aead, 0);
    params[7] = OSSL_PARAM_construct_end();
    if (!TU_CHECK(OSSL_PROVIDER_get_params(tu_prov_ours, params),
                  "OSSL_PROVIDER_get_params"))
        return 0;
    printf("# provider: %s %s (%s) status=%d\n", name ? name : "?",
           version ? version : "?", buildinfo ? buildinfo : "?", status);
    printf("# kernel: chacha20=%s poly1305=%s aead=%s\n", c20 ? c20 : "(none)",
           p1305 ? p1305 : "(none)", aead ? aead : "(none)");
    if (!TU_CHECK(status == 1, "provider status %d, want 1", status))
        return 0;
    if (!TU_CHECK(c20 != NULL && p1305 != NULL,
                  "provider params chacha20-impl/poly1305-impl missing"))
        return 0;
    /* A forced kernel must really be the active one ("auto" = pick). */
    want = getenv("CHACHA_PROVIDER_IMPL");
    if (want != NULL && *want != '\0' && strcmp(want, "auto") != 0
        && !TU_CHECK(strcmp(c20, want) == 0,
                     "CHACHA_PROVIDER_IMPL=%s but chacha20-impl=%s", want, c20))
        return 0;
    want = getenv("CHACHA_PROVIDER_POLY1305_IMPL");
    if (want != NULL && *want != '\0' && strcmp(want, "auto") != 0
        && !TU_CHECK(strcmp(p1305, want) == 0,
                     "CHACHA_PROVIDER_POLY1305_IMPL=%s but poly1305-impl=%s",
                     want, p1305))
        return 0;
    return 1;
}

static EVP_CIPHER *fetch(const char *name, const char *propq,
                         const char *want_prov)
{
    EVP_CIPHER *c = EVP_CIPHER_fetch(tu_libctx, name, propq);
    const char *pn;

    if (c == NULL)
        return NULL;
    pn = OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(c));
    if (!TU_CHECK(pn != NULL && strcmp(pn, want_prov) == 0,
                  "%s fetched with \"%s\" came from provider %s", name, propq,
                  pn ? pn : "(null)")) {
        EVP_CIPHER_free(c);
        return NULL;
    }
    return c;
}

EVP_CIPHER *tu_fetch_ours(const char *name)
{
    EVP_CIPHER *c = fetch(name, TU_PROPQ_OURS, TU_OURS);

    TU_CHECK(c != NULL, "fetch %s from provider %s", name, TU_OURS);
    return c;
}

EVP_CIPHER *tu_fetch_default(const char *name)
{
    return fetch(name, TU_PROPQ_DEFAULT, "default");
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = tolower(c);
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

unsigned char *tu_hex_decode(const char *hex, size_t *len)
{
    size_t n = strlen(hex), i;
    unsigned char *buf;

    if (n % 2 != 0)
        return NULL;
    buf = malloc(n / 2 + 1);
    if (buf == NULL)
        return NULL;
    for (i = 0; i < n / 2; i++) {
        int hi = hexval((unsigned char)hex[2 * i]);
        int lo = hexval((unsigned char)hex[2 * i + 1]);

        if (hi < 0 || lo < 0) {
            free(buf);
            return NULL;
        }
        buf[i] = (unsigned char)(hi << 4 | lo);
    }
    *len = n / 2;
    return buf;
}

char *tu_vector_path(const char *file)
{
    const char *dir = getenv("srcdir");
    size_t n;
    char *p;

    if (dir == NULL || *dir == '\0')
        dir = ".";
    n = strlen(dir) + strlen("/test/vectors/") + strlen(file) + 1;
    p = malloc(n);
    if (p != NULL)
        snprintf(p, n, "%s/test/vectors/%s", dir, file);
    return p;
}

char *tu_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0, r;

    if (f == NULL) {
        printf("# cannot open %s\n", path);
        return NULL;
    }
    do {
        if (cap - n < 4096) {
            char *nb = realloc(buf, cap = cap * 2 + 8192);

            if (nb == NULL) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        r = fread(buf + n, 1, cap - n - 1, f);
        n += r;
    } while (r > 0);
    fclose(f);
    buf[n] = '\0';
    if (len != NULL)
        *len = n;
    return buf;
}

/* ---------------- minimal JSON ---------------- */

typedef struct {
    const char *p;
    int depth;
} tj_parser;

static void tj_ws(tj_parser *ps)
{
    while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n'
           || *ps->p == '\r')
        ps->p++;
}

static tj_value *tj_new(tj_type t)
{
    tj_value *v = calloc(1, sizeof(*v));

    if (v != NULL)
        v->type = t;
    return v;
}

static char *tj_string(tj_parser *ps)
{
    size_t cap = 16, n = 0;
    char *s, *ns;

    if (*ps->p != '"')
        return NULL;
    ps->p++;
    if ((s = malloc(cap)) == NULL)
        return NULL;
    while (*ps->p != '"') {
        int c = (unsigned char)*ps->p++;

        if (c == '\0' || c < 0x20)
            goto err;
        if (c == '\\') {
            c = (unsigned char)*ps->p++;
            switch (c) {
            case '"': case '\\': case '/': break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 't': c = '\t'; break;
            case 'u': {
                int i, u = 0;

                for (i = 0; i < 4; i++) {
                    int h = hexval((unsigned char)*ps->p++);

                    if (h < 0)
                        goto err;
                    u = u << 4 | h;
                }
                c = u < 0x80 ? u : '?';   /* enough for comments */
                break;
            }
            default:
                goto err;
            }
        }
        if (n + 2 > cap) {
            if ((ns = realloc(s, cap *= 2)) == NULL)
                goto err;
            s = ns;
        }
        s[n++] = (char)c;
    }
    ps->p++;
    s[n] = '\0';
    return s;
 err:
    free(s);
    return NULL;
}

static int tj_push(tj_value *v, char *key, tj_value *item)
{
    tj_value **ni = realloc(v->items, (v->n + 1) * sizeof(*ni));

    if (ni == NULL)
        return 0;
    v->items = ni;
    if (v->type == TJ_OBJ) {
        char **nk = realloc(v->keys, (v->n + 1) * sizeof(*nk));

        if (nk == NULL)
            return 0;
        v->keys = nk;
        v->keys[v->n] = key;
    }
    v->items[v->n++] = item;
    return 1;
}

static tj_value *tj_value_parse(tj_parser *ps)
{
    tj_value *v = NULL, *item;
    char *key = NULL;

    tj_ws(ps);
    if (++ps->depth > 64)
        return NULL;
    if (*ps->p == '{' || *ps->p == '[') {
        int obj = *ps->p == '{';
        char close = obj ? '}' : ']';

        ps->p++;
        if ((v = tj_new(obj ? TJ_OBJ : TJ_ARR)) == NULL)
            return NULL;
        tj_ws(ps);
        if (*ps->p == close) {
            ps->p++;
            goto done;
        }
        for (;;) {
            if (obj) {
                tj_ws(ps);
                if ((key = tj_string(ps)) == NULL)
                    goto err;
                tj_ws(ps);
                if (*ps->p++ != ':')
                    goto err;
            }
            if ((item = tj_value_parse(ps)) == NULL)
                goto err;
            if (!tj_push(v, key, item)) {
                tj_free(item);
                goto err;
            }
            key = NULL;
            tj_ws(ps);
            if (*ps->p == ',') {
                ps->p++;
                continue;
            }
            if (*ps->p++ != close)
                goto err;
            goto done;
        }
    } else if (*ps->p == '"') {
        if ((v = tj_new(TJ_STR)) == NULL || (v->str = tj_string(ps)) == NULL)
            goto err;
    } else if (strncmp(ps->p, "true", 4) == 0
               || strncmp(ps->p, "false", 5) == 0) {
        if ((v = tj_new(TJ_BOOL)) == NULL)
            return NULL;
        v->boolean = *ps->p == 't';
        ps->p += v->boolean ? 4 : 5;
    } else if (strncmp(ps->p, "null", 4) == 0) {
        if ((v = tj_new(TJ_NULL)) == NULL)
            return NULL;
        ps->p += 4;
    } else if (*ps->p == '-' || isdigit((unsigned char)*ps->p)) {
        const char *s = ps->p;

        while (*ps->p != '\0' && strchr("+-0123456789.eE", *ps->p) != NULL)
            ps->p++;
        if ((v = tj_new(TJ_NUM)) == NULL
            || (v->str = malloc((size_t)(ps->p - s) + 1)) == NULL)
            goto err;
        memcpy(v->str, s, (size_t)(ps->p - s));
        v->str[ps->p - s] = '\0';
    } else {
        return NULL;
    }
 done:
    ps->depth--;
    return v;
 err:
    free(key);
    tj_free(v);
    return NULL;
}

tj_value *tj_parse(const char *text)
{
    tj_parser ps = { text, 0 };
    tj_value *v = tj_value_parse(&ps);

    if (v == NULL)
        return NULL;
    tj_ws(&ps);
    if (*ps.p != '\0') {
        tj_free(v);
        return NULL;
    }
    return v;
}

void tj_free(tj_value *v)
{
    size_t i;

    if (v == NULL)
        return;
    for (i = 0; i < v->n; i++) {
        if (v->keys != NULL)
            free(v->keys[i]);
        tj_free(v->items[i]);
    }
    free(v->keys);
    free(v->items);
    free(v->str);
    free(v);
}

const tj_value *tj_get(const tj_value *obj, const char *key)
{
    size_t i;

    if (obj == NULL || obj->type != TJ_OBJ)
        return NULL;
    for (i = 0; i < obj->n; i++)
        if (strcmp(obj->keys[i], key) == 0)
            return obj->items[i];
    return NULL;
}

const char *tj_str(const tj_value *obj, const char *key)
{
    const tj_value *v = tj_get(obj, key);

    return v != NULL && v->type == TJ_STR ? v->str : NULL;
}

long tj_num(const tj_value *obj, const char *key, long dflt)
{
    const tj_value *v = tj_get(obj, key);

    return v != NULL && v->type == TJ_NUM ? strtol(v->str, NULL, 10) : dflt;
}
