#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# End to end, what an operator sees: nginx serving a 64 MiB file over
# loopback HTTPS to a load client, with TLS_CHACHA20_POLY1305_SHA256 (TLS
# 1.3) and ECDHE-RSA-CHACHA20-POLY1305 (TLS 1.2), nginx on our provider
# (OPENSSL_CONF, as in docs/operators.md) vs on OpenSSL's default, in the
# same run, alternating, best of ROUNDS. nginx (one worker) is pinned to CPU
# 1 and the client to CPU 0. Reports throughput and the server's CPU seconds
# (user + system of master and worker, from /proc) per GB served.
# The client is wrk (-t1 -c2, DURATION seconds per run); without wrk,
# curl downloads the file COUNT times. Every run is bounded in time.
# nginx's error log must show contexts of ours in the runs on ours and none
# in the others; the access log must show the negotiated suite.
#   bench/nginx-bench.sh   (env: DURATION=5 ROUNDS=2 COUNT=8; see tls-common.sh)
set -u
name=nginx-bench
here=$(cd "$(dirname "$0")" && pwd)
srcdir=${srcdir:-$(cd "$here/.." && pwd)}
# shellcheck source=test/integration/tls-common.sh
. "$srcdir/test/integration/tls-common.sh"
DURATION=${DURATION:-5}
ROUNDS=${ROUNDS:-2}
COUNT=${COUNT:-8}
NGINX=${NGINX:-$(command -v nginx 2>/dev/null || { [ -x /usr/sbin/nginx ] && echo /usr/sbin/nginx; })}
[ -n "$NGINX" ] && [ -x "$NGINX" ] || skip "nginx not installed (scripts/install-deps bench)"
command -v curl >/dev/null 2>&1 || skip "curl not installed"
need_module
make_certs || { echo "nginx-bench: certificates failed"; exit 1; }
make_conf "$tmp/chacha.cnf"
WRK=$(command -v wrk 2>/dev/null || true)
tck=$(getconf CLK_TCK)
size=$((64 * 1024 * 1024))
mkdir -p "$tmp/html"
head -c $size /dev/urandom >"$tmp/html/big.bin"
chmod 755 "$tmp/html"; chmod 644 "$tmp/html/big.bin"
nginx_user=
[ "$(id -u)" -eq 0 ] && nginx_user="user $(id -un) $(id -gn);"
pin_srv= pin_cli=
if command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then
    pin_srv="taskset -c 1"; pin_cli="taskset -c 0"
fi

# start WHO SUITE: nginx on ours|default for tls13|tls12; sets npid nport pfx
start() {
    local who=$1 suite=$2 protos ciphers
    pfx=$tmp/$who-$suite
    mkdir -p "$pfx/logs" "$pfx/tmp"
    chmod 755 "$pfx" "$pfx/logs" "$pfx/tmp"
    if [ "$suite" = tls13 ]; then
        protos=TLSv1.3; ciphers="ssl_conf_command Ciphersuites TLS_CHACHA20_POLY1305_SHA256;"
    else
        protos=TLSv1.2; ciphers="ssl_ciphers ECDHE-RSA-CHACHA20-POLY1305;"
    fi
    nport=$(random_port)
    cat >"$pfx/nginx.conf" <<EOF
daemon off;
$nginx_user
worker_processes 1;
pid $pfx/nginx.pid;
error_log $pfx/logs/error.log info;
events { worker_connections 64; }
http {
    log_format suite '\$ssl_protocol \$ssl_cipher \$body_bytes_sent';
    access_log $pfx/logs/access.log suite;
    client_body_temp_path $pfx/tmp/body;
    proxy_temp_path $pfx/tmp/proxy;
    fastcgi_temp_path $pfx/tmp/fastcgi;
    uwsgi_temp_path $pfx/tmp/uwsgi;
    scgi_temp_path $pfx/tmp/scgi;
    default_type application/octet-stream;
    server {
        listen 127.0.0.1:$nport ssl;
        ssl_certificate $tmp/rsa.crt;
        ssl_certificate_key $tmp/rsa.key;
        ssl_protocols $protos;
        $ciphers
        root $tmp/html;
    }
}
EOF
    if [ "$who" = ours ]; then
        env OPENSSL_CONF="$tmp/chacha.cnf" CHACHA_PROVIDER_DEBUG=1 \
            timeout 300 $pin_srv "$NGINX" -p "$pfx" -c "$pfx/nginx.conf" >"$pfx/stderr" 2>&1 &
    else
        env -u OPENSSL_CONF -u CHACHA_PROVIDER_DEBUG \
            timeout 300 $pin_srv "$NGINX" -p "$pfx" -c "$pfx/nginx.conf" >"$pfx/stderr" 2>&1 &
    fi
    npid=$!
    started $npid
    wait_port $npid "$nport" >/dev/null || { echo "nginx-bench: nginx did not start"; show "$pfx/stderr"; exit 1; }
}

# CPU ticks of nginx (the timeout wrapper's children)
ticks() {
    pid_ports "$npid" >/dev/null
    local t=0 p
    for p in $ps_list; do
        [ -r "/proc/$p/stat" ] || continue
        t=$((t + $(awk '{ print $14 + $15 }' "/proc/$p/stat")))
    done
    echo $t
}

# run: one timed load; prints "bytes seconds"
run() {
    local t0 t1 b
    if [ -n "$WRK" ]; then
        t0=$(date +%s.%N)
        $pin_cli "$WRK" -t1 -c2 -d"${DURATION}s" --timeout 30s "https://127.0.0.1:$nport/big.bin" >"$pfx/wrk.out" 2>&1
        t1=$(date +%s.%N)
        # bytes from the server's own access log (every completed response)
        b=$(awk '{ s += $3 } END { print s + 0 }' "$pfx/logs/access.log")
    else
        t0=$(date +%s.%N)
        for _ in $(seq "$COUNT"); do
            $pin_cli curl -sk --max-time 60 -o /dev/null "https://127.0.0.1:$nport/big.bin"
        done
        t1=$(date +%s.%N)
        b=$(awk '{ s += $3 } END { print s + 0 }' "$pfx/logs/access.log")
    fi
    echo "$b $(echo "$t1 $t0" | awk '{ print $1 - $2 }')"
}

echo "nginx-bench: $("$NGINX" -v 2>&1); client: $([ -n "$WRK" ] && echo "wrk -t1 -c2 ${DURATION}s" || echo "curl x$COUNT"); 64 MiB file; ${pin_srv:+nginx on cpu 1, client on cpu 0; }best of $ROUNDS alternating runs"
printf '%-34s %12s %12s %10s %16s %16s\n' suite "ours MB/s" "default MB/s" ratio "ours CPU s/GB" "default CPU s/GB"
rc=0
for suite in tls13 tls12; do
    mb_ours=0 mb_default=0 cpu_ours= cpu_default=
    for r in $(seq "$ROUNDS"); do
        for who in ours default; do
            start "$who" "$suite"
            c0=$(ticks)
            set -- $(run)
            c1=$(ticks)
            bytes=$1 secs=$2
            kill_tree $npid; wait_pid $npid 10
            [ -n "${BENCH_DEBUG:-}" ] && { echo "# $who $suite: $bytes bytes $secs s ticks $((c1 - c0))"; head -n 3 "$pfx/logs/access.log" "$pfx/wrk.out"; }
            want=TLS_CHACHA20_POLY1305_SHA256
            [ "$suite" = tls12 ] && want=ECDHE-RSA-CHACHA20-POLY1305
            if ! grep -q " $want " "$pfx/logs/access.log"; then
                echo "nginx-bench: $who $suite: $want not negotiated"; head -n 3 "$pfx/logs/access.log"; rc=1
            fi
            n=$(cat "$pfx/stderr" "$pfx/logs/error.log" 2>/dev/null | grep -c 'new ChaCha20-Poly1305 context')
            if { [ "$who" = ours ] && [ "$n" -eq 0 ]; } || { [ "$who" = default ] && [ "$n" -ne 0 ]; }; then
                echo "nginx-bench: $who $suite: $n contexts of ours in nginx's log: not what was measured"; rc=1
            fi
            mb=$(awk -v b="$bytes" -v s="$secs" 'BEGIN { printf "%.1f", (s > 0 ? b / s / 1e6 : 0) }')
            cpu=$(awk -v t=$((c1 - c0)) -v k="$tck" -v b="$bytes" 'BEGIN { printf "%.3f", (b > 0 ? (t / k) / (b / 1e9) : 0) }')
            eval "pmb=\$mb_$who pcpu=\$cpu_$who"
            # shellcheck disable=SC2154
            if awk -v a="$mb" -v b="$pmb" 'BEGIN { exit !(a + 0 > b + 0) }'; then eval "mb_$who=$mb"; fi
            if [ -z "$pcpu" ] || awk -v a="$cpu" -v b="$pcpu" 'BEGIN { exit !(a + 0 < b + 0 && a + 0 > 0) }'; then
                eval "cpu_$who=$cpu"
            fi
        done
    done
    label=$([ "$suite" = tls13 ] && echo "TLS 1.3 TLS_CHACHA20_POLY1305_SHA256" || echo "TLS 1.2 ECDHE-RSA-CHACHA20-POLY1305")
    awk -v l="$label" -v o="$mb_ours" -v d="$mb_default" -v oc="$cpu_ours" -v dc="$cpu_default" \
        'BEGIN { printf "%-34s %12.1f %12.1f %9.2fx %16.3f %16.3f\n", l, o, d, (d > 0 ? o / d : 0), oc, dc }'
done
echo "(throughput: bytes nginx logged as sent / wall time of the load; CPU: nginx's user+system seconds"
echo " per 10^9 bytes -- lower is better; the client, on the default provider, is the same in both)"
exit $rc
