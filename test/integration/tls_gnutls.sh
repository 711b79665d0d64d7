#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# GnuTLS (gnutls-cli, gnutls-serv) against OpenSSL peers whose record layer
# runs on the chacha provider -- both directions, TLS 1.3
# TLS_CHACHA20_POLY1305_SHA256 and TLS 1.2 ECDHE-{ECDSA,RSA}-CHACHA20-POLY1305,
# every byte compared:
#   G1  tls_peer client (chacha) -> gnutls-serv --echo: both directions,
#       SSL_write sizes 1..16384, TLS 1.3 KeyUpdates answered by GnuTLS (the
#       echo server is line-based and stops at NUL bytes: the stream is text)
#   G2  gnutls-cli -> tls_peer server (chacha): both directions
# (gnutls-cli is slow on bulk input -- ~1 s of system time per MiB here -- so
# its transfers are kept at 0.5-1 MiB)
#   G3  gnutls-cli -> openssl s_server -WWW (OPENSSL_CONF = chacha-provider.cnf)
#   G4  openssl s_client (-provider chacha) -> gnutls-serv --http
# gnutls-serv cannot be told an address: it is run with a tiny LD_PRELOAD shim
# (built here) that binds its sockets to 127.0.0.1 / ::1, and the test checks it.
# Exit 77 if gnutls-cli / gnutls-serv are not installed (.ci/tls-deps.sh).
set -u
name=tls_gnutls
# shellcheck source=test/integration/tls-common.sh
. "$(dirname "$0")/tls-common.sh"

command -v "$OPENSSL" >/dev/null 2>&1 || skip "$OPENSSL not installed"
command -v gnutls-cli >/dev/null 2>&1 || skip "gnutls-cli not installed (Debian: gnutls-bin)"
command -v gnutls-serv >/dev/null 2>&1 || skip "gnutls-serv not installed (Debian: gnutls-bin)"
need_module
need_tls_peer
make_certs || { bad "openssl req: throwaway certificates"; finish $name; }
make_conf "$tmp/chacha.cnf"
T=$TLS_TIMEOUT
echo "# $(gnutls-cli --version 2>/dev/null | head -n 1); $($OPENSSL version)"

# the bind() shim that keeps gnutls-serv on loopback
cat >"$tmp/lo.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
int bind(int fd, const struct sockaddr *sa, socklen_t len)
{
    static int (*real)(int, const struct sockaddr *, socklen_t);
    struct sockaddr_in a4;
    struct sockaddr_in6 a6;

    if (real == NULL)
        *(void **)&real = dlsym(RTLD_NEXT, "bind");
    if (sa != NULL && sa->sa_family == AF_INET && len >= sizeof(a4)) {
        memcpy(&a4, sa, sizeof(a4));
        a4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        return real(fd, (const struct sockaddr *)&a4, sizeof(a4));
    }
    if (sa != NULL && sa->sa_family == AF_INET6 && len >= sizeof(a6)) {
        memcpy(&a6, sa, sizeof(a6));
        a6.sin6_addr = in6addr_loopback;
        return real(fd, (const struct sockaddr *)&a6, sizeof(a6));
    }
    return real(fd, sa, len);
}
EOF
if ! ${CC:-cc} -shared -fPIC -O2 -o "$tmp/lo.so" "$tmp/lo.c" -ldl >"$tmp/lo.log" 2>&1; then
    show "$tmp/lo.log"
    bad "building the loopback bind() shim for gnutls-serv"
    finish $name
fi

gnutls_prio() {
    case $1 in
    tls13) echo 'NORMAL:-CIPHER-ALL:+CHACHA20-POLY1305:-VERS-ALL:+VERS-TLS1.3' ;;
    *) echo 'NORMAL:-CIPHER-ALL:+CHACHA20-POLY1305:-VERS-ALL:+VERS-TLS1.2' ;;
    esac
}
# what gnutls-cli's log says for the suite
gnutls_desc() {
    case $1 in
    tls13) echo '(TLS1.3-X.509)-.*(CHACHA20-POLY1305)' ;;
    tls12-ecdsa) echo '(TLS1.2-X.509)-(ECDHE-[^)]*)-(ECDSA-[^)]*)-(CHACHA20-POLY1305)' ;;
    tls12-rsa) echo '(TLS1.2-X.509)-(ECDHE-[^)]*)-(RSA-[^)]*)-(CHACHA20-POLY1305)' ;;
    esac
}
SUITES="tls13 tls12-ecdsa tls12-rsa"

# start_gnutls_serv TAG SUITE ARGS...: sets $gpid $gport
start_gnutls_serv() {
    local tag=$1 suite=$2 c
    shift 2
    c=$(suite_cert "$suite")
    LD_PRELOAD=$tmp/lo.so timeout "$T" gnutls-serv -p 0 --x509certfile "$tmp/$c.crt" \
        --x509keyfile "$tmp/$c.key" --priority "$(gnutls_prio "$suite")" "$@" \
        >"$tmp/$tag.gserv.out" 2>"$tmp/$tag.gserv.err" &
    gpid=$!
    started $gpid
    gport=$(wait_port $gpid) || { bad "$tag: gnutls-serv did not start"; show "$tmp/$tag.gserv.err"; return 1; }
    if listens_on_loopback_only $gpid; then ok "$tag: gnutls-serv listens on loopback only (port $gport)"
    else bad "$tag: gnutls-serv listens beyond loopback"; kill_tree $gpid; return 1; fi
}

N=$((1536 * 1024 + 7))

# ---- G1: tls_peer client (chacha) -> gnutls-serv --echo -------------------
for suite in $SUITES; do
    start_gnutls_serv "G1-$suite" "$suite" --echo --crlf || continue
    for prov in chacha conf; do
        pp=$prov; [ $prov = conf ] && pp="conf:$tmp/chacha.cnf"
        tag="G1-$suite-$prov"
        ku=
        [ "$suite" = tls13 ] && ku="--keyupdate-every 400000 --min-keyupdates 1"
        label="G1 $suite tls_peer($prov) <-> gnutls-serv --echo, $N bytes each way${ku:+, KeyUpdates}"
        # shellcheck disable=SC2086
        timeout "$T" "$TLS_PEER" client --port "$gport" --prov "$pp" --tls "$(suite_ver "$suite")" \
            --cipher "$(suite_cipher "$suite")" --expect-cipher "$(suite_cipher "$suite")" \
            --send $N --recv $N --recv-seed 1 --text 1 $ku >"$tmp/$tag.out" 2>"$tmp/$tag.err"
        rc=$?
        if [ $rc -eq 0 ]; then
            ok "$label: every byte echoed back intact (1..16384-byte writes${ku:+, KeyUpdate answered})"
        else
            bad "$label: tls_peer rc $rc"; show "$tmp/$tag.out"; show "$tmp/$tag.err"
        fi
        assert_trace "$label: tls_peer" "$tmp/$tag.err" yes
    done
    kill_tree $gpid
done

# ---- G2: gnutls-cli -> tls_peer server (chacha) ---------------------------
NC=$((512 * 1024 + 3))
NS=$((1024 * 1024 + 1))
"$TLS_PEER" gen --seed 2 --bytes $NS >"$tmp/s2c.bin"
want_s2c=$(sha "$tmp/s2c.bin")
for suite in $SUITES; do
    for prov in chacha conf; do
        pp=$prov; [ $prov = conf ] && pp="conf:$tmp/chacha.cnf"
        c=$(suite_cert "$suite")
        tag="G2-$suite-$prov"
        ku=
        # (GnuTLS's answer to update_requested can come after we are done: not required here, G1 checks it)
        [ "$suite" = tls13 ] && ku="--keyupdate-every 400000"
        label="G2 $suite gnutls-cli <-> tls_peer server($prov), $NC+$NS bytes${ku:+, KeyUpdates}"
        # shellcheck disable=SC2086
        timeout "$T" "$TLS_PEER" server --port 0 --cert "$tmp/$c.crt" --key "$tmp/$c.key" --prov "$pp" \
            --tls "$(suite_ver "$suite")" --cipher "$(suite_cipher "$suite")" \
            --expect-cipher "$(suite_cipher "$suite")" --send $NS --recv $NC $ku \
            >"$tmp/$tag.srv.out" 2>"$tmp/$tag.srv.err" &
        spid=$!
        started $spid
        sport=$(wait_port $spid) || { bad "$label: tls_peer server did not start"; show "$tmp/$tag.srv.err"; continue; }
        "$TLS_PEER" gen --seed 1 --bytes $NC --hold "$T" |
            timeout "$T" gnutls-cli --logfile="$tmp/$tag.cli.log" --insecure -p "$sport" 127.0.0.1 \
            --priority "$(gnutls_prio "$suite")" >"$tmp/$tag.cli.out" 2>"$tmp/$tag.cli.err"
        wait_pid $spid "$T"
        if [ "$wait_rc" -eq 0 ]; then ok "$label: tls_peer received every byte gnutls-cli sent"
        else bad "$label: tls_peer rc $wait_rc"; show "$tmp/$tag.srv.out"; show "$tmp/$tag.srv.err"; show "$tmp/$tag.cli.log"; fi
        expect_eq "$label: gnutls-cli received every byte" "$(sha "$tmp/$tag.cli.out")" "$want_s2c"
        check "$label: gnutls-cli negotiated $(suite_cipher "$suite")" grep -q -- "$(gnutls_desc "$suite")" "$tmp/$tag.cli.log"
        assert_trace "$label: tls_peer server" "$tmp/$tag.srv.err" yes
    done
done

# ---- G3: gnutls-cli -> openssl s_server -WWW (provider from OPENSSL_CONF) ---
mkdir -p "$tmp/www"
"$TLS_PEER" gen --seed 9 --bytes $((1024 * 1024 + 99)) >"$tmp/www/data.bin"
want_www=$(sha "$tmp/www/data.bin")
for suite in $SUITES; do
    c=$(suite_cert "$suite")
    tag="G3-$suite"
    label="G3 $suite gnutls-cli <- openssl s_server -WWW (OPENSSL_CONF), 1 MiB"
    case $suite in
    tls13) sopts="-tls1_3 -ciphersuites TLS_CHACHA20_POLY1305_SHA256" ;;
    *) sopts="-tls1_2 -cipher $(suite_cipher "$suite")" ;;
    esac
    cd "$tmp/www" || exit 1
    # shellcheck disable=SC2086
    "$TLS_PEER" gen --bytes 0 --hold "$T" |
        OPENSSL_CONF=$tmp/chacha.cnf timeout "$T" "$OPENSSL" s_server -accept 127.0.0.1:0 -naccept 1 \
        -cert "$tmp/$c.crt" -key "$tmp/$c.key" $sopts -WWW -quiet \
        >"$tmp/$tag.srv.out" 2>"$tmp/$tag.srv.err" &
    spid=$!
    cd "$tmp" || exit 1
    started $spid
    sport=$(wait_port $spid) || { bad "$label: s_server did not start"; show "$tmp/$tag.srv.err"; continue; }
    { printf 'GET /data.bin HTTP/1.0\r\n\r\n'; exec "$TLS_PEER" gen --bytes 0 --hold "$T"; } |
        timeout "$T" gnutls-cli --logfile="$tmp/$tag.cli.log" --insecure -p "$sport" 127.0.0.1 \
        --priority "$(gnutls_prio "$suite")" >"$tmp/$tag.cli.out" 2>"$tmp/$tag.cli.err"
    wait_pid $spid "$T"
    http_body "$tmp/$tag.cli.out" "$tmp/$tag.body"
    expect_eq "$label: gnutls-cli received every byte" "$(sha "$tmp/$tag.body")" "$want_www"
    check "$label: gnutls-cli negotiated $(suite_cipher "$suite")" grep -q -- "$(gnutls_desc "$suite")" "$tmp/$tag.cli.log"
    assert_trace "$label: s_server" "$tmp/$tag.srv.err" yes
done

# ---- G4: openssl s_client (-provider chacha) -> gnutls-serv --http ----------
"$TLS_PEER" gen --seed 4 --bytes $((2 * 1024 * 1024 + 17)) >"$tmp/http.bin"
want_http=$(sha "$tmp/http.bin")
for suite in $SUITES; do
    start_gnutls_serv "G4-$suite" "$suite" --http --httpdata="$tmp/http.bin" || continue
    tag="G4-$suite"
    label="G4 $suite openssl s_client(-provider chacha) <- gnutls-serv --http, 2 MiB"
    case $suite in
    tls13) copts="-tls1_3 -ciphersuites TLS_CHACHA20_POLY1305_SHA256" ;;
    *) copts="-tls1_2 -cipher $(suite_cipher "$suite")" ;;
    esac
    # shellcheck disable=SC2086
    printf 'GET / HTTP/1.0\r\n\r\n' |
        timeout "$T" "$OPENSSL" s_client -connect "127.0.0.1:$gport" -brief -ign_eof $copts \
        -provider chacha -provider default -propquery '?provider=chacha' \
        >"$tmp/$tag.cli.out" 2>"$tmp/$tag.cli.err"
    rc=$?
    if [ $rc -eq 0 ] && grep -q "^Ciphersuite: $(suite_cipher "$suite")\$" "$tmp/$tag.cli.err"; then
        ok "$label: handshake, $(suite_cipher "$suite")"
    else
        bad "$label: s_client rc $rc"; show "$tmp/$tag.cli.err"; show "$tmp/$tag.gserv.err"
    fi
    http_body "$tmp/$tag.cli.out" "$tmp/$tag.body"
    expect_eq "$label: s_client received every byte" "$(sha "$tmp/$tag.body")" "$want_http"
    assert_trace "$label: s_client" "$tmp/$tag.cli.err" yes
    kill_tree $gpid
done

finish $name
