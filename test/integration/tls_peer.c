/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tls_peer: a libssl endpoint for the TLS integration tests (test/integration/tls_*.sh).
 *
 *   tls_peer server --cert F --key F [--port N] [--port-file F] [opts]
 *   tls_peer client --port N [opts]
 *   tls_peer pair   --cert F --key F [opts]        (two endpoints, one process,
 *                                                   memory BIOs, no sockets)
 *   tls_peer tamper --cert F --key F [--tamper-at body|tag] [--tamper-to server|client]
 *   tls_peer gen    --seed S --bytes N [--hold SEC] (the byte stream on stdout)
 *
 * Each endpoint has its own OSSL_LIB_CTX, chosen by --prov (both ends) or
 * --server-prov / --client-prov (pair, tamper):
 *   default      the default provider only
 *   chacha       chacha + default, property query "?provider=chacha"
 *   conf:FILE    OSSL_LIB_CTX_load_config(FILE) (providers and
 *                default_properties from the file, e.g. chacha-provider.cnf)
 *   global       the process-wide context (whatever OPENSSL_CONF says)
 *
 * Data: each side sends --send N bytes of a deterministic stream (seed
 * --send-seed, default 1 for the client and 2 for the server) in SSL_write
 * calls whose sizes cycle through --sizes (each call <= 16384 bytes is one
 * record), and checks the --recv N bytes it receives (-1: until close_notify)
 * byte for byte against --recv-seed (default: the peer's default seed; 0:
 * hash only). sha256 of both directions is printed. --keyupdate-every N sends
 * a TLS 1.3 KeyUpdate (update_requested) after every N bytes written;
 * KeyUpdate messages are counted in both directions through the message
 * callback, as are application-data records and their payload sizes.
 *
 * tamper: a handshake between the two endpoints, one intact record (must
 * arrive), then one ChaCha20-Poly1305 record with one byte flipped in transit
 * (in the ciphertext or in the tag): the receiver must fail with
 * SSL_R_DECRYPTION_FAILED_OR_BAD_RECORD_MAC and send a bad_record_mac alert,
 * which the sender must receive.
 *
 * Output: "tls_peer: ..." lines on stdout; exit 0 on success, 1 on failure,
 * 2 on usage errors. Everything is bounded by --timeout (default 60 s).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <openssl/ssl.h>

#define MAXREC 16384

static const char *prog_role = "tls_peer";

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
    va_list ap;

    fflush(stdout);
    fprintf(stderr, "tls_peer: %s: error: ", prog_role);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    ERR_print_errors_fp(stderr);
    printf("tls_peer: %s: FAILED\n", prog_role);
    exit(1);
}

static void on_alarm(int sig)
{
    static const char msg[] = "tls_peer: timeout\n";

    (void)sig;
    if (write(2, msg, sizeof(msg) - 1) < 0) {
        /* nothing to do */
    }
    _exit(1);
}

/* ---- the deterministic byte stream (xorshift64*) ------------------------ */
typedef struct {
    uint64_t s;
    uint64_t word;
    int left;
    int text;       /* printable: lines of 64 letters a..p */
    unsigned col;
} GEN;

static int text_mode;   /* --text: every stream printable */

static void gen_init(GEN *g, uint64_t seed)
{
    g->s = seed * 0x9E3779B97F4A7C15ULL + 0x2545F4914F6CDD1DULL;
    if (g->s == 0)
        g->s = 1;
    g->left = 0;
    g->word = 0;
    g->text = text_mode;
    g->col = 0;
}

static unsigned char gen_raw(GEN *g);

static unsigned char gen_byte(GEN *g)
{
    if (!g->text)
        return gen_raw(g);
    if (g->col++ == 64) {
        g->col = 0;
        return '\n';
    }
    return (unsigned char)('a' + (gen_raw(g) & 15));
}

static unsigned char gen_raw(GEN *g)
{
    unsigned char b;

    if (g->left == 0) {
        g->s ^= g->s >> 12;
        g->s ^= g->s << 25;
        g->s ^= g->s >> 27;
        g->word = g->s * 0x2545F4914F6CDD1DULL;
        g->left = 8;
    }
    b = (unsigned char)(g->word & 0xff);
    g->word >>= 8;
    g->left--;
    return b;
}

static void gen_fill(GEN *g, unsigned char *buf, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        buf[i] = gen_byte(g);
}

/* ---- options ------------------------------------------------------------ */
typedef struct {
    const char *mode;
    const char *cert, *key;
    int port;
    const char *port_file;
    const char *prov, *server_prov, *client_prov;
    int tls; /* 12, 13, 0 = any */
    const char *cipher;
    const char *expect_cipher;
    long long send, recv;
    long long send_seed, recv_seed; /* -1 = role default */
    size_t sizes[64];
    int nsizes;
    long long ku_every;
    long long min_keyupdates; /* KeyUpdates that must be received, -1 = no check */
    const char *tamper_at;
    const char *tamper_to;
    int timeout;
    int hold;
    int max_frag;
} OPTS;

static void usage(void)
{
    fprintf(stderr,
            "usage: tls_peer server|client|pair|tamper|gen [options]\n"
            "  --cert F --key F         server certificate and key (PEM)\n"
            "  --port N                 server: listen (0 = any free port); client: connect to 127.0.0.1:N\n"
            "  --port-file F            server: write the bound port to F\n"
            "  --prov HOW               default | chacha | conf:FILE | global (both ends)\n"
            "  --server-prov HOW / --client-prov HOW   per end (pair, tamper)\n"
            "  --tls 1.2|1.3            pin the protocol version\n"
            "  --cipher S               TLS 1.2 cipher list / TLS 1.3 ciphersuites\n"
            "  --expect-cipher NAME     fail unless this suite is negotiated\n"
            "  --send N --recv N        bytes to send / to receive (-1: until close)\n"
            "  --send-seed S --recv-seed S   streams (recv-seed 0: no byte check)\n"
            "  --sizes a,b,c            SSL_write sizes, cycled (1..16384)\n"
            "  --keyupdate-every N      TLS 1.3 KeyUpdate after every N bytes sent\n"
            "  --min-keyupdates N       fail unless >= N KeyUpdates were received\n"
            "  --tamper-at body|tag     tamper: the byte to flip\n"
            "  --tamper-to server|client  tamper: the receiving end\n"
            "  --max-frag N             SSL_CTX_set_max_send_fragment\n"
            "  --text 1                 printable streams (lines of 64 letters), for line-based peers\n"
            "  --timeout SEC            overall limit (default 60)\n"
            "  gen: --seed S --bytes N [--hold SEC]  write the stream to stdout, then\n"
            "       (--hold) keep stdout open until the reader goes away\n");
    exit(2);
}

static long long num(const char *s)
{
    char *end;
    long long v = strtoll(s, &end, 0);

    if (*s == '\0' || *end != '\0')
        usage();
    return v;
}

static void parse_sizes(OPTS *o, const char *s)
{
    char *copy = strdup(s), *tok, *save = NULL;

    o->nsizes = 0;
    for (tok = strtok_r(copy, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
        long long v = num(tok);

        if (v < 1 || v > MAXREC || o->nsizes == 64)
            usage();
        o->sizes[o->nsizes++] = (size_t)v;
    }
    free(copy);
    if (o->nsizes == 0)
        usage();
}

static void parse(OPTS *o, int argc, char **argv)
{
    int i;

    memset(o, 0, sizeof(*o));
    o->prov = "global";
    o->send_seed = o->recv_seed = -1;
    o->ku_every = 0;
    o->min_keyupdates = -1;
    o->timeout = 60;
    o->tamper_at = "body";
    o->tamper_to = "server";
    o->port = -1;
    parse_sizes(o, "1,16384,7,1000,16383,100,4096,2,16384,513");
    if (argc < 2)
        usage();
    o->mode = argv[1];
    for (i = 2; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;

        if (v == NULL)
            usage();
        i++;
        if (!strcmp(a, "--cert")) o->cert = v;
        else if (!strcmp(a, "--key")) o->key = v;
        else if (!strcmp(a, "--port")) o->port = (int)num(v);
        else if (!strcmp(a, "--port-file")) o->port_file = v;
        else if (!strcmp(a, "--prov")) o->prov = v;
        else if (!strcmp(a, "--server-prov")) o->server_prov = v;
        else if (!strcmp(a, "--client-prov")) o->client_prov = v;
        else if (!strcmp(a, "--tls")) o->tls = !strcmp(v, "1.2") ? 12 : !strcmp(v, "1.3") ? 13 : (usage(), 0);
        else if (!strcmp(a, "--cipher")) o->cipher = v;
        else if (!strcmp(a, "--expect-cipher")) o->expect_cipher = v;
        else if (!strcmp(a, "--send") || !strcmp(a, "--bytes")) o->send = num(v);
        else if (!strcmp(a, "--recv")) o->recv = num(v);
        else if (!strcmp(a, "--send-seed") || !strcmp(a, "--seed")) o->send_seed = num(v);
        else if (!strcmp(a, "--recv-seed")) o->recv_seed = num(v);
        else if (!strcmp(a, "--sizes")) parse_sizes(o, v);
        else if (!strcmp(a, "--keyupdate-every")) o->ku_every = num(v);
        else if (!strcmp(a, "--min-keyupdates")) o->min_keyupdates = num(v);
        else if (!strcmp(a, "--tamper-at")) o->tamper_at = v;
        else if (!strcmp(a, "--tamper-to")) o->tamper_to = v;
        else if (!strcmp(a, "--timeout")) o->timeout = (int)num(v);
        else if (!strcmp(a, "--hold")) o->hold = (int)num(v);
        else if (!strcmp(a, "--max-frag")) o->max_frag = (int)num(v);
        else if (!strcmp(a, "--text")) text_mode = (int)num(v);
        else usage();
    }
}

/* ---- library contexts --------------------------------------------------- */
typedef struct {
    OSSL_LIB_CTX *libctx;       /* NULL = the global one */
    const char *propq;
    const char *how;
    OSSL_PROVIDER *loaded[2];
} PROV;

static void prov_setup(PROV *p, const char *how)
{
    p->how = how;
    p->propq = NULL;
    p->libctx = NULL;
    p->loaded[0] = p->loaded[1] = NULL;
    if (!strcmp(how, "global"))
        return;
    if ((p->libctx = OSSL_LIB_CTX_new()) == NULL)
        die("OSSL_LIB_CTX_new");
    if (!strcmp(how, "default")) {
        if ((p->loaded[0] = OSSL_PROVIDER_load(p->libctx, "default")) == NULL)
            die("loading the default provider");
    } else if (!strcmp(how, "chacha")) {
        if ((p->loaded[0] = OSSL_PROVIDER_load(p->libctx, "chacha")) == NULL)
            die("loading the chacha provider (OPENSSL_MODULES=%s)",
                getenv("OPENSSL_MODULES") ? getenv("OPENSSL_MODULES") : "(unset)");
        if ((p->loaded[1] = OSSL_PROVIDER_load(p->libctx, "default")) == NULL)
            die("loading the default provider");
        p->propq = "?provider=chacha";
    } else if (!strncmp(how, "conf:", 5)) {
        if (!OSSL_LIB_CTX_load_config(p->libctx, how + 5))
            die("OSSL_LIB_CTX_load_config(%s)", how + 5);
    } else {
        die("unknown provider setup '%s'", how);
    }
}

/* Which provider libssl will get for ChaCha20-Poly1305 with this context. */
static const char *aead_provider(const PROV *p)
{
    static char name[64];
    EVP_CIPHER *c = EVP_CIPHER_fetch(p->libctx, "ChaCha20-Poly1305", p->propq);

    if (c == NULL) {
        ERR_clear_error();
        return "(none)";
    }
    snprintf(name, sizeof(name), "%s", OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(c)));
    EVP_CIPHER_free(c);
    return name;
}

/* ---- endpoints ---------------------------------------------------------- */
typedef struct {
    const char *role;
    int is_server;
    PROV prov;
    SSL_CTX *ctx;
    SSL *ssl;
    int fd;
    /* sending */
    long long send_total, sent;
    GEN sgen;
    EVP_MD_CTX *shash;
    unsigned char wbuf[MAXREC];
    size_t wlen;
    int size_idx;
    long long ku_every, next_ku;
    unsigned long writes;
    /* receiving */
    long long recv_total, received;
    int verify;
    GEN rgen;
    EVP_MD_CTX *rhash;
    long long bad_at;
    /* state */
    int hs_done, sent_close, got_close, eof, done, want_write;
    /* message-callback statistics */
    unsigned long ku_sent, ku_recv;
    unsigned long rec_in, rec_out;
    long rec_in_min, rec_in_max, rec_out_min, rec_out_max;
    int alert_sent, alert_recv;
    int tls13;
} PEER;

static int peer_idx = -1;

static void msg_cb(int write_p, int version, int content_type, const void *buf,
                   size_t len, SSL *ssl, void *arg)
{
    PEER *p = SSL_get_ex_data(ssl, peer_idx);
    const unsigned char *b = buf;

    (void)version; (void)arg;
    if (p == NULL)
        return;
    if (content_type == SSL3_RT_HANDSHAKE && len >= 1 && b[0] == SSL3_MT_KEY_UPDATE) {
        if (write_p)
            p->ku_sent++;
        else
            p->ku_recv++;
    }
    /* record headers of application-data records after the handshake */
    if (content_type == SSL3_RT_HEADER && len == 5 && b[0] == SSL3_RT_APPLICATION_DATA
        && SSL_is_init_finished(ssl)) {
        long l = (long)((b[3] << 8) | b[4]) - (p->tls13 ? 17 : 16);

        if (write_p) {
            p->rec_out++;
            if (p->rec_out == 1 || l < p->rec_out_min) p->rec_out_min = l;
            if (l > p->rec_out_max) p->rec_out_max = l;
        } else {
            p->rec_in++;
            if (p->rec_in == 1 || l < p->rec_in_min) p->rec_in_min = l;
            if (l > p->rec_in_max) p->rec_in_max = l;
        }
    }
}

static void info_cb(const SSL *ssl, int where, int ret)
{
    PEER *p = SSL_get_ex_data(ssl, peer_idx);

    if (p == NULL || !(where & SSL_CB_ALERT))
        return;
    if (where & SSL_CB_WRITE)
        p->alert_sent = ret & 0xff;
    else
        p->alert_recv = ret & 0xff;
}

static void peer_init(PEER *p, const OPTS *o, int is_server, const char *how)
{
    const SSL_METHOD *m = is_server ? TLS_server_method() : TLS_client_method();
    int v = o->tls == 12 ? TLS1_2_VERSION : o->tls == 13 ? TLS1_3_VERSION : 0;

    memset(p, 0, sizeof(*p));
    p->role = is_server ? "server" : "client";
    p->is_server = is_server;
    p->fd = -1;
    prov_setup(&p->prov, how);
    if ((p->ctx = SSL_CTX_new_ex(p->prov.libctx, p->prov.propq, m)) == NULL)
        die("%s: SSL_CTX_new_ex", p->role);
    if (v != 0 && (!SSL_CTX_set_min_proto_version(p->ctx, v)
                   || !SSL_CTX_set_max_proto_version(p->ctx, v)))
        die("%s: protocol version", p->role);
    if (o->cipher != NULL) {
        if (o->tls == 13 ? !SSL_CTX_set_ciphersuites(p->ctx, o->cipher)
                         : !SSL_CTX_set_cipher_list(p->ctx, o->cipher))
            die("%s: cipher '%s' not available", p->role, o->cipher);
    }
    if (is_server) {
        if (o->cert == NULL || o->key == NULL)
            die("server: --cert and --key are required");
        if (SSL_CTX_use_certificate_chain_file(p->ctx, o->cert) != 1
            || SSL_CTX_use_PrivateKey_file(p->ctx, o->key, SSL_FILETYPE_PEM) != 1)
            die("server: loading %s / %s", o->cert, o->key);
    } else {
        SSL_CTX_set_verify(p->ctx, SSL_VERIFY_NONE, NULL);
    }
    if (o->max_frag > 0 && !SSL_CTX_set_max_send_fragment(p->ctx, (long)o->max_frag))
        die("max send fragment");
    SSL_CTX_set_msg_callback(p->ctx, msg_cb);
    SSL_CTX_set_info_callback(p->ctx, info_cb);
    if ((p->ssl = SSL_new(p->ctx)) == NULL)
        die("SSL_new");
    SSL_set_ex_data(p->ssl, peer_idx, p);
    if (is_server)
        SSL_set_accept_state(p->ssl);
    else
        SSL_set_connect_state(p->ssl);

    p->send_total = o->send;
    p->recv_total = o->recv;
    gen_init(&p->sgen, (uint64_t)(o->send_seed >= 0 ? o->send_seed : is_server ? 2 : 1));
    {
        long long rs = o->recv_seed >= 0 ? o->recv_seed : is_server ? 1 : 2;

        p->verify = rs != 0;
        gen_init(&p->rgen, (uint64_t)rs);
    }
    p->shash = EVP_MD_CTX_new();
    p->rhash = EVP_MD_CTX_new();
    if (p->shash == NULL || p->rhash == NULL
        || !EVP_DigestInit_ex(p->shash, EVP_sha256(), NULL)
        || !EVP_DigestInit_ex(p->rhash, EVP_sha256(), NULL))
        die("sha256");
    p->ku_every = o->ku_every;
    p->next_ku = o->ku_every;
    p->bad_at = -1;
    printf("tls_peer: %s: provider setup %s, ChaCha20-Poly1305 from provider %s\n",
           p->role, how, aead_provider(&p->prov));
}

static const OPTS *gopts;

static void fatal_ssl(PEER *p, const char *what, int r)
{
    int e = SSL_get_error(p->ssl, r);

    die("%s: %s failed (SSL_get_error %d, errno %d, alert sent %d, received %d)", p->role,
        what, e, errno, p->alert_sent, p->alert_recv);
}

/* An SSL call that did not complete: wait for the socket, or fail. */
static void wait_or_fail(PEER *p, const char *what, int r)
{
    int e = SSL_get_error(p->ssl, r);

    if (e == SSL_ERROR_WANT_WRITE)
        p->want_write = 1;
    else if (e != SSL_ERROR_WANT_READ)
        fatal_ssl(p, what, r);
}

static void on_handshake(PEER *p)
{
    const SSL_CIPHER *c = SSL_get_current_cipher(p->ssl);
    const char *name = c ? SSL_CIPHER_get_name(c) : "(none)";
    const char *std = c ? SSL_CIPHER_standard_name(c) : "(none)";

    p->hs_done = 1;
    p->tls13 = SSL_version(p->ssl) == TLS1_3_VERSION;
    printf("tls_peer: %s: handshake done: %s %s (%s)\n", p->role,
           SSL_get_version(p->ssl), name, std);
    if (gopts->expect_cipher != NULL && strcmp(gopts->expect_cipher, name) != 0
        && strcmp(gopts->expect_cipher, std) != 0)
        die("%s: negotiated %s, expected %s", p->role, name, gopts->expect_cipher);
}

static int recv_bytes(PEER *p, const unsigned char *buf, int n)
{
    int i;

    EVP_DigestUpdate(p->rhash, buf, (size_t)n);
    if (p->verify) {
        for (i = 0; i < n; i++) {
            if (gen_byte(&p->rgen) != buf[i] && p->bad_at < 0)
                p->bad_at = p->received + i;
        }
    }
    p->received += n;
    if (p->recv_total >= 0 && p->received > p->recv_total)
        die("%s: received %lld bytes, more than the %lld expected", p->role,
            p->received, p->recv_total);
    return 1;
}

/*
 * One round of progress on an endpoint: handshake, writes, reads, shutdown.
 * Returns nonzero if something happened.
 */
static int peer_step(PEER *p)
{
    int progress = 0, r;
    unsigned char rbuf[MAXREC + 1024];

    p->want_write = 0;
    ERR_clear_error();
    if (!p->hs_done) {
        r = SSL_do_handshake(p->ssl);
        if (r == 1) {
            on_handshake(p);
            progress = 1;
        } else {
            wait_or_fail(p, "handshake", r);
            return progress;
        }
    }
    /* write */
    while (p->sent < p->send_total && !p->sent_close) {
        if (p->wlen == 0) {
            size_t n = gopts->sizes[p->size_idx++ % gopts->nsizes];

            if ((long long)n > p->send_total - p->sent)
                n = (size_t)(p->send_total - p->sent);
            gen_fill(&p->sgen, p->wbuf, n);
            p->wlen = n;
        }
        r = SSL_write(p->ssl, p->wbuf, (int)p->wlen);
        if (r > 0) {
            if ((size_t)r != p->wlen)
                die("%s: short SSL_write", p->role);
            EVP_DigestUpdate(p->shash, p->wbuf, p->wlen);
            p->sent += (long long)p->wlen;
            p->wlen = 0;
            p->writes++;
            progress = 1;
            if (p->ku_every > 0 && p->tls13 && p->sent >= p->next_ku
                && p->sent < p->send_total) {
                if (!SSL_key_update(p->ssl, SSL_KEY_UPDATE_REQUESTED))
                    die("%s: SSL_key_update", p->role);
                p->next_ku += p->ku_every;
            }
        } else {
            wait_or_fail(p, "SSL_write", r);
            break;
        }
    }
    /* read */
    while (!p->got_close && !p->eof) {
        r = SSL_read(p->ssl, rbuf, sizeof(rbuf));
        if (r > 0) {
            recv_bytes(p, rbuf, r);
            progress = 1;
            continue;
        } else {
            int e = SSL_get_error(p->ssl, r);

            if (e == SSL_ERROR_ZERO_RETURN) {
                p->got_close = 1;
                progress = 1;
            } else if (e == SSL_ERROR_WANT_WRITE) {
                p->want_write = 1;
            } else if (e == SSL_ERROR_WANT_READ) {
                /* nothing yet */
            } else if (p->sent_close && p->sent >= p->send_total) {
                /* the peer went away after our close_notify: fine */
                p->eof = 1;
                progress = 1;
                ERR_clear_error();
            } else {
                fatal_ssl(p, "SSL_read", r);
            }
            break;
        }
    }
    if (p->got_close && p->recv_total >= 0 && p->received < p->recv_total)
        die("%s: peer closed after %lld of %lld bytes", p->role, p->received, p->recv_total);
    /* shutdown once everything is sent and received */
    if (!p->sent_close && p->sent >= p->send_total
        && (p->recv_total < 0 ? p->got_close : p->received >= p->recv_total)) {
        r = SSL_shutdown(p->ssl);
        if (r >= 0) {
            p->sent_close = 1;
            progress = 1;
        } else {
            wait_or_fail(p, "SSL_shutdown", r);
        }
    }
    if (p->sent_close && (p->got_close || p->eof) && !p->done) {
        p->done = 1;
        progress = 1;
    }
    return progress;
}

static void hex(const unsigned char *b, unsigned int n, char *out)
{
    unsigned int i;

    for (i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
}

static int peer_report(PEER *p)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen;
    char h[2 * EVP_MAX_MD_SIZE + 1];
    int ok = 1;

    EVP_DigestFinal_ex(p->shash, md, &mdlen);
    hex(md, mdlen, h);
    printf("tls_peer: %s: sent %lld bytes in %lu writes, sha256 %s\n", p->role, p->sent,
           p->writes, h);
    EVP_DigestFinal_ex(p->rhash, md, &mdlen);
    hex(md, mdlen, h);
    printf("tls_peer: %s: received %lld bytes, sha256 %s, %s\n", p->role, p->received, h,
           !p->verify ? "not compared" : p->bad_at >= 0 ? "MISMATCH" : "every byte as expected");
    printf("tls_peer: %s: app-data records out %lu (payload %ld..%ld), in %lu (payload %ld..%ld)\n",
           p->role, p->rec_out, p->rec_out_min, p->rec_out_max, p->rec_in, p->rec_in_min,
           p->rec_in_max);
    printf("tls_peer: %s: KeyUpdate sent %lu, received %lu\n", p->role, p->ku_sent, p->ku_recv);
    if (p->bad_at >= 0) {
        printf("tls_peer: %s: first wrong byte at offset %lld\n", p->role, p->bad_at);
        ok = 0;
    }
    if (p->recv_total >= 0 && p->received != p->recv_total) {
        printf("tls_peer: %s: expected %lld bytes\n", p->role, p->recv_total);
        ok = 0;
    }
    if (gopts->min_keyupdates >= 0 && (long long)p->ku_recv < gopts->min_keyupdates) {
        printf("tls_peer: %s: expected at least %lld KeyUpdates received\n", p->role,
               gopts->min_keyupdates);
        ok = 0;
    }
    return ok;
}

static void peer_free(PEER *p)
{
    SSL_free(p->ssl);
    SSL_CTX_free(p->ctx);
    EVP_MD_CTX_free(p->shash);
    EVP_MD_CTX_free(p->rhash);
    if (p->fd >= 0)
        close(p->fd);
    if (p->prov.loaded[1] != NULL)
        OSSL_PROVIDER_unload(p->prov.loaded[1]);
    if (p->prov.loaded[0] != NULL)
        OSSL_PROVIDER_unload(p->prov.loaded[0]);
    OSSL_LIB_CTX_free(p->prov.libctx);
}

/* ---- sockets ------------------------------------------------------------ */
static int run_socket(const OPTS *o, int is_server)
{
    PEER p;
    int fd, one = 1, ok;

    prog_role = is_server ? "server" : "client";
    peer_init(&p, o, is_server, o->prov);
    if (is_server) {
        struct sockaddr_in a;
        socklen_t alen = sizeof(a);
        int ls = socket(AF_INET, SOCK_STREAM, 0);

        memset(&a, 0, sizeof(a));
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a.sin_port = htons((uint16_t)(o->port < 0 ? 0 : o->port));
        setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(ls, 1) != 0)
            die("server: bind/listen 127.0.0.1:%d: %s", o->port, strerror(errno));
        getsockname(ls, (struct sockaddr *)&a, &alen);
        printf("tls_peer: server: listening on 127.0.0.1:%d\n", ntohs(a.sin_port));
        fflush(stdout);
        if (o->port_file != NULL) {
            char tmp[4096];
            FILE *f;

            snprintf(tmp, sizeof(tmp), "%s.tmp", o->port_file);
            if ((f = fopen(tmp, "w")) == NULL)
                die("writing %s", tmp);
            fprintf(f, "%d\n", ntohs(a.sin_port));
            fclose(f);
            rename(tmp, o->port_file);
        }
        fd = accept(ls, NULL, NULL);
        if (fd < 0)
            die("accept: %s", strerror(errno));
        close(ls);
    } else {
        struct sockaddr_in a;

        if (o->port <= 0)
            die("client: --port is required");
        memset(&a, 0, sizeof(a));
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a.sin_port = htons((uint16_t)o->port);
        fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0)
            die("client: connect 127.0.0.1:%d: %s", o->port, strerror(errno));
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    p.fd = fd;
    SSL_set_fd(p.ssl, fd);
    while (!p.done) {
        if (!peer_step(&p)) {
            struct pollfd pf = { fd, POLLIN, 0 };

            if (p.want_write)
                pf.events |= POLLOUT;
            if (poll(&pf, 1, 1000) < 0 && errno != EINTR)
                die("poll: %s", strerror(errno));
        }
    }
    ok = peer_report(&p);
    peer_free(&p);
    printf("tls_peer: %s: %s\n", prog_role, ok ? "OK" : "FAILED");
    return ok ? 0 : 1;
}

/* ---- in-process pair over memory BIOs ----------------------------------- */
static void attach_mem(PEER *p)
{
    BIO *rb = BIO_new(BIO_s_mem()), *wb = BIO_new(BIO_s_mem());

    if (rb == NULL || wb == NULL)
        die("BIO_new");
    BIO_set_mem_eof_return(rb, -1);
    BIO_set_mem_eof_return(wb, -1);
    SSL_set_bio(p->ssl, rb, wb);
}

/* Moves pending bytes from a's write BIO to b's read BIO. */
static size_t pump(PEER *a, PEER *b)
{
    BIO *w = SSL_get_wbio(a->ssl), *r = SSL_get_rbio(b->ssl);
    char *data;
    long n = BIO_get_mem_data(w, &data);

    if (n <= 0)
        return 0;
    if (BIO_write(r, data, (int)n) != n)
        die("BIO_write");
    (void)BIO_reset(w);
    return (size_t)n;
}

static void pair_setup(const OPTS *o, PEER *s, PEER *c)
{
    peer_init(s, o, 1, o->server_prov ? o->server_prov : o->prov);
    peer_init(c, o, 0, o->client_prov ? o->client_prov : o->prov);
    attach_mem(s);
    attach_mem(c);
}

static int run_pair(const OPTS *o)
{
    PEER s, c;
    int idle = 0, ok;

    prog_role = "pair";
    pair_setup(o, &s, &c);
    while (!(s.done && c.done)) {
        int prog = 0;

        prog |= c.done ? 0 : peer_step(&c);
        prog |= pump(&c, &s) != 0;
        prog |= s.done ? 0 : peer_step(&s);
        prog |= pump(&s, &c) != 0;
        if (!prog && ++idle > 100)
            die("pair: no progress (server done %d, client done %d)", s.done, c.done);
        if (prog)
            idle = 0;
    }
    ok = peer_report(&c);
    ok &= peer_report(&s);
    peer_free(&s);
    peer_free(&c);
    printf("tls_peer: pair: %s\n", ok ? "OK" : "FAILED");
    return ok ? 0 : 1;
}

/* ---- tamper ------------------------------------------------------------- */
static int run_tamper(const OPTS *o)
{
    PEER s, c, *tx, *rx;
    int i, r, e, ok = 1;
    unsigned long err;
    unsigned char msg[1000], got[2000];
    char *data;
    long n;
    size_t pos = 0;

    prog_role = "tamper";
    if (o->cipher == NULL) {
        static OPTS o2;

        o2 = *o;
        o2.cipher = o->tls == 12 ? "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"
                                 : "TLS_CHACHA20_POLY1305_SHA256";
        o = gopts = &o2;
        if (o2.tls == 0)
            o2.tls = 13;
    }
    pair_setup(o, &s, &c);
    /* handshake, then let the post-handshake messages (tickets) settle */
    for (i = 0; i < 1000 && !(s.hs_done && c.hs_done); i++) {
        PEER *pp[2] = { &c, &s };
        int k;

        for (k = 0; k < 2; k++) {
            if (pp[k]->hs_done)
                continue;
            r = SSL_do_handshake(pp[k]->ssl);
            if (r == 1)
                on_handshake(pp[k]);
            else if (SSL_get_error(pp[k]->ssl, r) != SSL_ERROR_WANT_READ)
                fatal_ssl(pp[k], "handshake", r);
        }
        pump(&c, &s);
        pump(&s, &c);
    }
    if (!(s.hs_done && c.hs_done))
        die("tamper: handshake did not complete");
    for (i = 0; i < 4; i++) {       /* reads only: no data is expected */
        r = SSL_read(c.ssl, got, sizeof(got));
        if (r > 0 || SSL_get_error(c.ssl, r) != SSL_ERROR_WANT_READ)
            die("tamper: unexpected data or error on the client after the handshake");
        pump(&c, &s);
        r = SSL_read(s.ssl, got, sizeof(got));
        if (r > 0 || SSL_get_error(s.ssl, r) != SSL_ERROR_WANT_READ)
            die("tamper: unexpected data or error on the server after the handshake");
        pump(&s, &c);
    }
    if (strstr(SSL_CIPHER_get_name(SSL_get_current_cipher(s.ssl)), "CHACHA20") == NULL)
        die("tamper: the negotiated suite is not ChaCha20-Poly1305");
    rx = !strcmp(o->tamper_to, "client") ? &c : &s;
    tx = rx == &c ? &s : &c;
    prog_role = tx->role;

    /* 1. an intact record arrives intact */
    memset(msg, 'A', sizeof(msg));
    if (SSL_write(tx->ssl, msg, sizeof(msg)) != (int)sizeof(msg))
        die("SSL_write (intact record)");
    pump(tx, rx);
    r = SSL_read(rx->ssl, got, sizeof(got));
    if (r != (int)sizeof(msg) || memcmp(got, msg, sizeof(msg)) != 0)
        die("%s: the intact record did not arrive intact (%d)", rx->role, r);
    printf("tls_peer: tamper: intact %zu-byte record from %s accepted by %s\n", sizeof(msg),
           tx->role, rx->role);

    /* 2. the same record with one byte flipped */
    memset(msg, 'B', sizeof(msg));
    if (SSL_write(tx->ssl, msg, sizeof(msg)) != (int)sizeof(msg))
        die("SSL_write (record to tamper with)");
    n = BIO_get_mem_data(SSL_get_wbio(tx->ssl), &data);
    if (n < 5 + (long)sizeof(msg) + 16 || (unsigned char)data[0] != SSL3_RT_APPLICATION_DATA
        || 5 + (((unsigned char)data[3] << 8) | (unsigned char)data[4]) != n)
        die("tamper: expected exactly one application-data record, got %ld bytes", n);
    if (!strcmp(o->tamper_at, "tag"))
        pos = (size_t)n - 1;            /* last byte of the Poly1305 tag */
    else if (!strcmp(o->tamper_at, "body"))
        pos = 5 + 100;                  /* a ciphertext byte */
    else
        die("tamper: --tamper-at body|tag");
    data[pos] ^= 0x01;
    printf("tls_peer: tamper: flipped byte %zu of a %ld-byte record (%s) on its way to %s\n",
           pos, n, o->tamper_at, rx->role);
    pump(tx, rx);
    prog_role = rx->role;
    ERR_clear_error();
    r = SSL_read(rx->ssl, got, sizeof(got));
    e = SSL_get_error(rx->ssl, r);
    {
        /* the whole error queue: 3.2+ libssl adds "record layer failure" after the cause */
        int found = 0;

        while ((err = ERR_get_error()) != 0) {
            printf("tls_peer: tamper: %s error queue: %s\n", rx->role,
                   ERR_reason_error_string(err) ? ERR_reason_error_string(err) : "(unknown)");
            if (ERR_GET_LIB(err) == ERR_LIB_SSL
                && ERR_GET_REASON(err) == SSL_R_DECRYPTION_FAILED_OR_BAD_RECORD_MAC)
                found = 1;
        }
        printf("tls_peer: tamper: %s SSL_read = %d, SSL_get_error = %d%s\n", rx->role, r, e,
               found ? ", decryption failed or bad record mac" : "");
        if (r > 0) {
            printf("tls_peer: tamper: FAIL: the tampered record was accepted\n");
            ok = 0;
        } else if (e != SSL_ERROR_SSL || !found) {
            printf("tls_peer: tamper: FAIL: expected SSL_R_DECRYPTION_FAILED_OR_BAD_RECORD_MAC\n");
            ok = 0;
        }
    }
    ERR_clear_error();
    if (rx->alert_sent != SSL_AD_BAD_RECORD_MAC) {
        printf("tls_peer: tamper: FAIL: %s sent alert %d, expected bad_record_mac (%d)\n",
               rx->role, rx->alert_sent, SSL_AD_BAD_RECORD_MAC);
        ok = 0;
    } else {
        printf("tls_peer: tamper: %s sent alert bad_record_mac\n", rx->role);
    }
    /* 3. the sender receives the alert */
    pump(rx, tx);
    r = SSL_read(tx->ssl, got, sizeof(got));
    err = ERR_peek_last_error();
    if (r > 0 || tx->alert_recv != SSL_AD_BAD_RECORD_MAC) {
        printf("tls_peer: tamper: FAIL: %s received alert %d, expected bad_record_mac\n",
               tx->role, tx->alert_recv);
        ok = 0;
    } else {
        printf("tls_peer: tamper: %s received alert bad_record_mac (%s)\n", tx->role,
               err ? ERR_reason_error_string(err) : "");
    }
    ERR_clear_error();
    peer_free(&s);
    peer_free(&c);
    printf("tls_peer: tamper: %s\n", ok ? "OK" : "FAILED");
    return ok ? 0 : 1;
}

/* ---- gen ---------------------------------------------------------------- */
static int run_gen(const OPTS *o)
{
    GEN g;
    unsigned char buf[65536];
    long long left = o->send;

    signal(SIGPIPE, SIG_DFL);
    gen_init(&g, (uint64_t)(o->send_seed >= 0 ? o->send_seed : 1));
    while (left > 0) {
        size_t n = left > (long long)sizeof(buf) ? sizeof(buf) : (size_t)left;

        gen_fill(&g, buf, n);
        if (fwrite(buf, 1, n, stdout) != n)
            return 1;
        left -= (long long)n;
    }
    if (fflush(stdout) != 0)
        return 1;
    if (o->hold > 0) {
        /* keep the pipe open until the reader exits (POLLERR on a pipe's write end) */
        struct pollfd pf = { 1, 0, 0 };
        time_t end = time(NULL) + o->hold;

        while (time(NULL) < end) {
            if (poll(&pf, 1, 200) > 0 && (pf.revents & (POLLERR | POLLHUP)))
                break;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    OPTS o;

    parse(&o, argc, argv);
    gopts = &o;
    setvbuf(stdout, NULL, _IOLBF, 0);
    signal(SIGPIPE, SIG_IGN);
    if (!strcmp(o.mode, "gen"))
        return run_gen(&o);
    signal(SIGALRM, on_alarm);
    alarm((unsigned)o.timeout);
    peer_idx = SSL_get_ex_new_index(0, NULL, NULL, NULL, NULL);
    if (!strcmp(o.mode, "server"))
        return run_socket(&o, 1);
    if (!strcmp(o.mode, "client"))
        return run_socket(&o, 0);
    if (!strcmp(o.mode, "pair"))
        return run_pair(&o);
    if (!strcmp(o.mode, "tamper"))
        return run_tamper(&o);
    usage();
    return 2;
}
