#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# nginx, unmodified, serving HTTPS with its record layer on the chacha
# provider -- enabled purely by configuration (OPENSSL_CONF pointing at a copy
# of chacha-provider.cnf, OPENSSL_MODULES, in nginx's environment and in
# nginx.conf `env` lines) -- and curl downloading over TLS 1.3
# TLS_CHACHA20_POLY1305_SHA256, TLS 1.2 ECDHE-RSA-CHACHA20-POLY1305 and
# ECDHE-ECDSA-CHACHA20-POLY1305: a 4 MiB file plus 1-byte / 16 KiB / 16 KiB+1
# files on one kept-alive connection, sha256 compared. nginx's error log must
# show the provider's trace growing with every download; curl (default
# provider) must show none. A second nginx without OPENSSL_CONF is the
# control: same bytes, no trace.
# nginx runs in the foreground (daemon off) on 127.0.0.1 at a random high
# port (retried on collision) with its own prefix, temp dirs and logs, and is
# stopped by this script. Exit 77 if nginx or curl is not installed
# (.ci/tls-deps.sh).
set -u
name=tls_nginx
# shellcheck source=test/integration/tls-common.sh
. "$(dirname "$0")/tls-common.sh"

NGINX=${NGINX:-$(command -v nginx 2>/dev/null || { [ -x /usr/sbin/nginx ] && echo /usr/sbin/nginx; })}
[ -n "$NGINX" ] && [ -x "$NGINX" ] || skip "nginx not installed (Debian: nginx-light or nginx)"
command -v curl >/dev/null 2>&1 || skip "curl not installed"
command -v "$OPENSSL" >/dev/null 2>&1 || skip "$OPENSSL not installed"
need_module
skip_if_sanitized "nginx"
need_tls_peer
make_certs || { bad "openssl req: throwaway certificates"; finish $name; }
make_conf "$tmp/chacha.cnf"
T=$TLS_TIMEOUT
echo "# $("$NGINX" -v 2>&1); $(curl --version | head -n 1 | cut -d' ' -f1-5)"

html=$tmp/html
mkdir -p "$html"
"$TLS_PEER" gen --seed 11 --bytes $((4 * 1024 * 1024 + 123)) >"$html/big.bin"
"$TLS_PEER" gen --seed 12 --bytes 1 >"$html/one.bin"
"$TLS_PEER" gen --seed 13 --bytes 16384 >"$html/r16k.bin"
"$TLS_PEER" gen --seed 14 --bytes 16385 >"$html/r16k1.bin"
chmod 755 "$html"; chmod 644 "$html"/*

# A root-started nginx drops its worker to an unprivileged user, which cannot
# read a docroot under a 0700 home or TMPDIR (/root, pam_tmpdir): the worker
# runs as the user running this test, so any checkout or temp path works.
nginx_user=
[ "$(id -u)" -eq 0 ] && nginx_user="user $(id -un) $(id -gn);"

# start_nginx TAG with|without: sets $npid $nport $nlog ($nlog = error log)
start_nginx() {
    local tag=$1 mode=$2 pfx try envlines
    pfx=$tmp/$tag
    nginx_prefix "$pfx"
    nlog=$pfx/logs/error.log
    envlines=
    if [ "$mode" != without ]; then
        envlines="env OPENSSL_CONF=$tmp/chacha.cnf;
env OPENSSL_MODULES=$OPENSSL_MODULES;
env CHACHA_PROVIDER_DEBUG=1;"
    fi
    for try in 1 2 3 4 5; do
        nport=$(random_port)
        cat >"$pfx/nginx.conf" <<EOF
$(nginx_head "$pfx" 1 info)
$envlines
events { worker_connections 64; }
http {
    access_log $pfx/logs/access.log;
$(nginx_temp_paths "$pfx")
    default_type application/octet-stream;
    keepalive_requests 100;
    server {
        listen 127.0.0.1:$nport ssl;
        server_name localhost;
        ssl_certificate $tmp/rsa.crt;
        ssl_certificate_key $tmp/rsa.key;
        ssl_certificate $tmp/ec.crt;
        ssl_certificate_key $tmp/ec.key;
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_ciphers ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305;
        ssl_conf_command Ciphersuites TLS_CHACHA20_POLY1305_SHA256;
        ssl_session_tickets off;
        root $html;
    }
}
EOF
        : >"$nlog"
        if [ "$mode" = envonly ]; then
            env -u OPENSSL_CONF -u CHACHA_PROVIDER_DEBUG \
                timeout "$T" "$NGINX" -p "$pfx" -c "$pfx/nginx.conf" -e "$nlog" \
                >"$pfx/stdout" 2>"$pfx/stderr" &
        elif [ "$mode" = with ]; then
            env OPENSSL_CONF="$tmp/chacha.cnf" OPENSSL_MODULES="$OPENSSL_MODULES" CHACHA_PROVIDER_DEBUG=1 \
                timeout "$T" "$NGINX" -p "$pfx" -c "$pfx/nginx.conf" -e "$nlog" \
                >"$pfx/stdout" 2>"$pfx/stderr" &
        else
            env -u OPENSSL_CONF -u CHACHA_PROVIDER_DEBUG \
                timeout "$T" "$NGINX" -p "$pfx" -c "$pfx/nginx.conf" -e "$nlog" \
                >"$pfx/stdout" 2>"$pfx/stderr" &
        fi
        npid=$!
        started $npid
        if wait_port $npid "$nport" >/dev/null; then
            ok "$tag: nginx ($mode provider) listening on 127.0.0.1:$nport (attempt $try)"
            return 0
        fi
        kill_tree $npid
        wait $npid 2>/dev/null
        grep -q 'Address already in use' "$nlog" "$pfx/stderr" 2>/dev/null || break
    done
    bad "$tag: nginx did not start"
    show "$pfx/stderr"; show "$nlog"
    return 1
}

# all the trace the nginx processes wrote (stderr of the master, error log)
nginx_trace() { cat "$tmp/$1/stderr" "$tmp/$1/logs/error.log" 2>/dev/null; }

# fetch TAG NGINX-TAG "curl tls options" CIPHER with|without
fetch() {
    local tag=$1 ntag=$2 opts=$3 cipher=$4 mode=$5 before after f rc
    before=$(nginx_trace "$ntag" | grep -c "$TRACE")
    # shellcheck disable=SC2086
    timeout "$T" curl -sS -v -k --max-time "$T" $opts \
        "https://127.0.0.1:$nport/big.bin" -o "$tmp/$tag.big" \
        "https://127.0.0.1:$nport/one.bin" -o "$tmp/$tag.one" \
        "https://127.0.0.1:$nport/r16k.bin" -o "$tmp/$tag.r16k" \
        "https://127.0.0.1:$nport/r16k1.bin" -o "$tmp/$tag.r16k1" \
        2>"$tmp/$tag.curl.err"
    rc=$?
    if [ $rc -eq 0 ] && grep -q "SSL connection using .* / $cipher\$" "$tmp/$tag.curl.err"; then
        ok "$tag: curl negotiated $cipher"
    else
        bad "$tag: curl rc $rc, wanted $cipher"
        grep -E 'SSL connection|error|alert' "$tmp/$tag.curl.err" | head -n 5 | sed 's/^/#   /'
    fi
    [ "$(grep -c 'Re-using existing connection' "$tmp/$tag.curl.err")" -ge 3 ] &&
        ok "$tag: 4 files over one TLS connection" || bad "$tag: connection not reused"
    for f in big one r16k r16k1; do
        expect_eq "$tag: $f.bin ($(wc -c <"$html/$f.bin") bytes) every byte" \
            "$(sha "$tmp/$tag.$f" 2>/dev/null)" "$(sha "$html/$f.bin")"
    done
    sleep 0.2   # let the worker flush its stderr
    after=$(nginx_trace "$ntag" | grep -c "$TRACE")
    if [ "$mode" = with ]; then
        if [ $((after - before)) -ge 2 ]; then
            ok "$tag: nginx's trace shows our ChaCha20-Poly1305 carried the connection (+$((after - before)) contexts)"
        else
            bad "$tag: no new '$TRACE' in nginx's log ($before -> $after)"
        fi
    else
        if ! nginx_trace "$ntag" | grep -q chacha-provider; then ok "$tag: control nginx: no chacha-provider trace"
        else bad "$tag: control nginx shows a chacha-provider trace"; fi
    fi
    if ! grep -q chacha-provider "$tmp/$tag.curl.err"; then ok "$tag: curl (default provider): no trace"
    else bad "$tag: curl shows a chacha-provider trace"; fi
}

if start_nginx ngx with; then
    if nginx_trace ngx | grep -q 'chacha-provider: loaded'; then ok "nginx loaded the chacha provider from OPENSSL_CONF"
    else bad "nginx did not report loading the provider"; nginx_trace ngx | head -n 20 | sed 's/^/#   /'; fi
    fetch ngx-tls13 ngx "--tlsv1.3 --tls13-ciphers TLS_CHACHA20_POLY1305_SHA256" TLS_CHACHA20_POLY1305_SHA256 with
    fetch ngx-tls12-rsa ngx "--tlsv1.2 --tls-max 1.2 --ciphers ECDHE-RSA-CHACHA20-POLY1305" ECDHE-RSA-CHACHA20-POLY1305 with
    fetch ngx-tls12-ecdsa ngx "--tlsv1.2 --tls-max 1.2 --ciphers ECDHE-ECDSA-CHACHA20-POLY1305" ECDHE-ECDSA-CHACHA20-POLY1305 with
    # an OpenSSL client on our provider too, for good measure
    before=$(nginx_trace ngx | grep -c "$TRACE")
    printf 'GET /big.bin HTTP/1.0\r\nHost: localhost\r\n\r\n' |
        OPENSSL_CONF=$tmp/chacha.cnf timeout "$T" "$OPENSSL" s_client -connect "127.0.0.1:$nport" -brief -ign_eof \
        -tls1_3 -ciphersuites TLS_CHACHA20_POLY1305_SHA256 >"$tmp/sc.out" 2>"$tmp/sc.err"
    http_body "$tmp/sc.out" "$tmp/sc.body"
    expect_eq "ngx-s_client: s_client (chacha via OPENSSL_CONF) <- nginx (chacha), 4 MiB every byte" \
        "$(sha "$tmp/sc.body")" "$(sha "$html/big.bin")"
    assert_trace "ngx-s_client: s_client" "$tmp/sc.err" yes
    kill_tree $npid
    wait_pid $npid 10
fi

# Informational: nginx reads nginx.conf after initialising OpenSSL, so `env
# OPENSSL_CONF=...;` in nginx.conf alone does not load the provider; the
# service's own environment must carry OPENSSL_CONF (systemd Environment=).
if start_nginx ngx-envonly envonly; then
    curl -sk --max-time "$T" --tlsv1.3 --tls13-ciphers TLS_CHACHA20_POLY1305_SHA256 \
        "https://127.0.0.1:$nport/one.bin" -o /dev/null 2>/dev/null
    sleep 0.2
    if nginx_trace ngx-envonly | grep -q 'chacha-provider: loaded'; then
        echo "# note: this nginx loads the provider from nginx.conf's env lines alone"
    else
        echo "# note: nginx.conf 'env OPENSSL_CONF=...' alone does NOT load the provider (OpenSSL is initialised before nginx.conf is read): set OPENSSL_CONF in the service environment"
    fi
    kill_tree $npid
    wait_pid $npid 10
fi

if start_nginx ngx-control without; then
    fetch ctl-tls13 ngx-control "--tlsv1.3 --tls13-ciphers TLS_CHACHA20_POLY1305_SHA256" TLS_CHACHA20_POLY1305_SHA256 without
    kill_tree $npid
    wait_pid $npid 10
fi

finish $name
