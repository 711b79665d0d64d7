#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Load soak: nginx (2 workers, TLS 1.3 TLS_CHACHA20_POLY1305_SHA256 only) on
# our provider (OPENSSL_CONF, as in docs/operators.md), then the same on
# OpenSSL's default, each for SOAK_SECONDS, under two loads at once:
#  - many short connections: wrk -c SOAK_CONNS with "Connection: close" on a
#    1 KiB file (a full TLS 1.3 handshake per request);
#  - long downloads: SOAK_DOWNLOADERS curl loops fetching a 16 MiB file,
#    each download's sha256 checked.
# Everything on 127.0.0.1, every process under a timeout. Every 2 s the RSS
# of both workers is sampled; after the warm-up (the first third) its slope
# (least squares, KiB per minute) must stay under SOAK_MAX_SLOPE (default
# 512) per worker on ours (the default's is reported beside it). Errors that fail the run: wrk socket errors or non-2xx
# responses, a download with wrong bytes or a failed curl, [alert]/[crit]/
# [emerg]/[error] lines in nginx's error log, a worker that died, no
# handshake on our provider (its trace) in the run on ours.
# SOAK_ASAN=1 (the module built with --enable-sanitizers): nginx runs with
# libasan preloaded, ASan reports go to files, any report naming chacha.so
# fails the run (leaks included, checked when the workers exit); RSS is
# reported but not judged (ASan's quarantine grows by design).
# Prints a side-by-side table and "soak_nginx: N passed, N failed".
#   test/integration/soak_nginx.sh   (env: SOAK_SECONDS=60 SOAK_CONNS=4 SOAK_DOWNLOADERS=2
#                         SOAK_SIDES="ours default" SOAK_ASAN SOAK_CSV=FILE)
set -u
name=soak_nginx
# shellcheck source=test/integration/tls-common.sh
. "$(dirname "$0")/tls-common.sh"
SECS=${SOAK_SECONDS:-60}
CONNS=${SOAK_CONNS:-4}
DL=${SOAK_DOWNLOADERS:-2}
MAX_SLOPE=${SOAK_MAX_SLOPE:-512}
SIDES=${SOAK_SIDES:-ours default}
asan=${SOAK_ASAN:-0}
NGINX=${NGINX:-$(command -v nginx 2>/dev/null || { [ -x /usr/sbin/nginx ] && echo /usr/sbin/nginx; })}
[ -n "$NGINX" ] && [ -x "$NGINX" ] || skip "nginx not installed (.ci/tls-deps.sh)"
command -v curl >/dev/null 2>&1 || skip "curl not installed"
WRK=$(command -v wrk 2>/dev/null) || skip "wrk not installed (scripts/install-deps bench)"
need_module
preload=
if [ "$asan" = 1 ]; then
    preload=$(ldd "$OPENSSL_MODULES/chacha.so" | sed -n 's/.*libasan[^ ]* => \([^ ]*\).*/\1/p')
    [ -n "$preload" ] || { bad "SOAK_ASAN=1 but $OPENSSL_MODULES/chacha.so has no libasan"; finish $name; }
fi
make_certs || { bad "openssl req: throwaway certificates"; finish $name; }
make_conf "$tmp/chacha.cnf"
html=$tmp/html
mkdir -p "$html"
head -c 1024 /dev/urandom >"$html/small.bin"
head -c $((16 * 1024 * 1024)) /dev/urandom >"$html/big.bin"
big_sha=$(sha "$html/big.bin")
chmod 755 "$html"; chmod 644 "$html"/*
nginx_user=
[ "$(id -u)" -eq 0 ] && nginx_user="user $(id -un) $(id -gn);"
echo "# $("$NGINX" -v 2>&1); wrk -c$CONNS Connection: close on 1 KiB + $DL curl loops on 16 MiB;" \
     "${SECS}s per side; asan=$asan"

# start WHO: nginx on ours|default; sets npid nport pfx
start() {
    local who=$1 envs
    pfx=$tmp/$who
    nginx_prefix "$pfx"
    nport=$(random_port)
    cat >"$pfx/nginx.conf" <<EOF
$(nginx_head "$pfx" 2 error)
$([ "$who" = ours ] && printf 'env OPENSSL_CONF;\nenv CHACHA_PROVIDER_DEBUG;\n')
$([ "$asan" = 1 ] && printf 'env LD_PRELOAD;\nenv ASAN_OPTIONS;\n')
events { worker_connections 256; }
http {
    log_format soak '\$status \$ssl_protocol \$ssl_cipher \$body_bytes_sent';
    access_log $pfx/logs/access.log soak;
$(nginx_temp_paths "$pfx")
    default_type application/octet-stream;
    server {
        listen 127.0.0.1:$nport ssl;
        ssl_certificate $tmp/ec.crt;
        ssl_certificate_key $tmp/ec.key;
        ssl_protocols TLSv1.3;
        ssl_conf_command Ciphersuites TLS_CHACHA20_POLY1305_SHA256;
        root $html;
    }
}
EOF
    envs="-u OPENSSL_CONF -u CHACHA_PROVIDER_DEBUG"
    [ "$who" = ours ] && envs="OPENSSL_CONF=$tmp/chacha.cnf CHACHA_PROVIDER_DEBUG=1"
    [ "$asan" = 1 ] && envs="$envs LD_PRELOAD=$preload ASAN_OPTIONS=detect_leaks=1:log_path=$pfx/asan"
    # shellcheck disable=SC2086
    env $envs timeout $((SECS + 120)) "$NGINX" -p "$pfx" -c "$pfx/nginx.conf" >"$pfx/stderr" 2>&1 &
    npid=$!
    started $npid
    wait_port $npid "$nport" >/dev/null || { show "$pfx/stderr"; show "$pfx/logs/error.log"; return 1; }
}

# the nginx master (child of the timeout wrapper) and its workers
workers() {
    local master
    master=$(sed -n 's/^\([0-9]*\) (nginx) [A-Za-z] '"$npid"' .*/\1/p' /proc/[0-9]*/stat 2>/dev/null | head -n 1)
    [ -n "$master" ] && sed -n 's/^\([0-9]*\) (nginx) [A-Za-z] '"$master"' .*/\1/p' /proc/[0-9]*/stat 2>/dev/null
}

# downloader I END: curl loops until END, one line per download: ok|bad
downloader() {
    local out=$pfx/dl$1 got
    while [ "$(date +%s)" -lt "$2" ]; do
        got=$(timeout 120 curl -sk --max-time 100 "https://127.0.0.1:$nport/big.bin" | sha256sum | cut -d' ' -f1)
        [ "$got" = "$big_sha" ] && echo ok >>"$out" || echo bad >>"$out"
    done
}

# slope of "t rss" lines after the warm-up, KiB per minute (least squares)
slope() {
    awk -v w="$1" '$1 >= w { n++; sx += $1; sy += $2; sxx += $1 * $1; sxy += $1 * $2 }
        END { d = n * sxx - sx * sx; printf "%.0f", (n > 2 && d != 0 ? (n * sxy - sx * sy) / d * 60 : 0) }'
}

declare -A R
for who in $SIDES; do
    if ! start "$who"; then bad "$who: nginx did not start"; continue; fi
    mapfile -t wk < <(workers)
    [ ${#wk[@]} -eq 2 ] || { bad "$who: ${#wk[@]} workers, want 2"; kill_tree $npid; continue; }
    t0=$(date +%s)
    end=$((t0 + SECS))
    timeout $((SECS + 30)) "$WRK" -t1 -c"$CONNS" -d"${SECS}s" --timeout 20s -H "Connection: close" \
        "https://127.0.0.1:$nport/small.bin" >"$pfx/wrk.out" 2>&1 &
    wrkpid=$!
    dls=
    for i in $(seq "$DL"); do downloader "$i" "$end" & dls="$dls $!"; done
    : >"$pfx/rss"
    while [ "$(date +%s)" -lt "$end" ]; do
        t=$(($(date +%s) - t0))
        for i in 0 1; do
            r=$(awk '/^VmRSS:/ { print $2 }' "/proc/${wk[$i]}/status" 2>/dev/null)
            echo "$i $t ${r:-0}" >>"$pfx/rss"
        done
        sleep 2
    done
    wait $wrkpid
    # shellcheck disable=SC2086
    wait $dls
    alive=0
    for i in 0 1; do kill -0 "${wk[$i]}" 2>/dev/null && alive=$((alive + 1)); done
    # graceful stop: the workers exit (and, under ASan, check for leaks)
    master=$(sed -n 's/^\([0-9]*\) (nginx) [A-Za-z] '"$npid"' .*/\1/p' /proc/[0-9]*/stat 2>/dev/null | head -n 1)
    [ -n "$master" ] && kill -QUIT "$master"
    wait_pid $npid 60
    kill_tree $npid

    reqs=$(awk '$1 == 200 && $4 == 1024' "$pfx/logs/access.log" | wc -l)
    other=$(awk '$1 != 200' "$pfx/logs/access.log" | wc -l)
    suites=$(awk '{ print $2 "/" $3 }' "$pfx/logs/access.log" | sort -u | tr '\n' ' ')
    sockerr=$(sed -n 's/.*Socket errors: connect \([0-9]*\), read \([0-9]*\), write \([0-9]*\), timeout \([0-9]*\).*/\1 \2 \3 \4/p' "$pfx/wrk.out" |
              awk '{ print $1 + $2 + $3 + $4 }')
    # no "Socket errors" line: none (if wrk ran at all)
    grep -q 'requests in' "$pfx/wrk.out" && sockerr=${sockerr:-0}
    non2xx=$(sed -n 's/.*Non-2xx or 3xx responses: *\([0-9]*\).*/\1/p' "$pfx/wrk.out")
    dl_ok=$(cat "$pfx"/dl* 2>/dev/null | grep -c '^ok$')
    dl_bad=$(cat "$pfx"/dl* 2>/dev/null | grep -c '^bad$')
    logerr=$(grep -c -E '\[(alert|crit|emerg|error)\]' "$pfx/logs/error.log")
    trace=$(cat "$pfx/stderr" "$pfx/logs/error.log" | grep -c "$TRACE")
    warm=$((SECS / 3))
    s0=$(awk '$1 == 0 { print $2, $3 }' "$pfx/rss" | slope $warm)
    s1=$(awk '$1 == 1 { print $2, $3 }' "$pfx/rss" | slope $warm)
    rss=$(awk -v w=$warm '$2 >= w { if (!($1 in a)) a[$1] = $3; b[$1] = $3 }
        END { printf "%s->%s / %s->%s", a[0], b[0], a[1], b[1] }' "$pfx/rss")
    sanrep=$(cat "$pfx"/asan.* 2>/dev/null | grep -c -E '^==[0-9]+==ERROR')
    sanours=$(cat "$pfx"/asan.* 2>/dev/null | grep -c "chacha.so")
    rate=$(awk -v r="$reqs" -v s="$SECS" 'BEGIN { printf "%.1f", r / s }')
    R[$who]="$reqs $rate $dl_ok $dl_bad ${sockerr:-0} ${non2xx:-0} $other $logerr $s0 $s1 $sanrep"
    echo "# $who: $reqs short TLS 1.3 connections ($rate/s), $dl_ok+$dl_bad downloads of 16 MiB," \
         "wrk socket errors ${sockerr:-0}, non-2xx ${non2xx:-0}, log errors $logerr, suites: $suites"
    echo "# $who: worker RSS after warm-up (KiB, start->end per worker) $rss; slope $s0 / $s1 KiB/min;" \
         "our contexts traced: $trace; ASan reports: $sanrep ($sanours lines naming chacha.so)"
    [ -n "${SOAK_CSV:-}" ] && sed "s/^/$who /" "$pfx/rss" >>"$SOAK_CSV"
    check "$who: both workers alive to the end" sh -c "[ $alive -eq 2 ]"
    check "$who: short connections served" sh -c "[ $reqs -gt 0 ]"
    check "$who: downloads, all with the right bytes" sh -c "[ $dl_ok -gt 0 ] && [ $dl_bad -eq 0 ]"
    check "$who: 0 wrk socket errors, 0 non-2xx" sh -c "[ ${sockerr:-1} -eq 0 ] && [ ${non2xx:-0} -eq 0 ] && [ $other -eq 0 ]"
    check "$who: no error in nginx's log" sh -c "[ $logerr -eq 0 ]"
    check "$who: only TLSv1.3/TLS_CHACHA20_POLY1305_SHA256" sh -c "[ \"$suites\" = 'TLSv1.3/TLS_CHACHA20_POLY1305_SHA256 ' ]"
    if [ "$who" = ours ]; then
        check "ours: the handshakes ran on our provider" sh -c "[ $trace -gt 0 ]"
    else
        check "default: nothing of ours loaded" sh -c "[ $trace -eq 0 ]"
    fi
    if [ "$asan" = 1 ]; then
        check "$who: no ASan/LSan report naming chacha.so" sh -c "[ $sanours -eq 0 ]"
    elif [ "$who" = ours ]; then
        check "$who: worker RSS flat after warm-up (slope <= $MAX_SLOPE KiB/min)" \
            sh -c "[ $s0 -le $MAX_SLOPE ] && [ $s1 -le $MAX_SLOPE ]"
    fi
    [ "$fail" -eq 0 ] || { show "$pfx/wrk.out" 20; show "$pfx/logs/error.log" 10; cat "$pfx"/asan.* 2>/dev/null | head -n 40; }
done

printf '%-8s %10s %8s %10s %8s %8s %8s %16s %8s\n' side conns conn/s downloads errors logerr rss-slope0 rss-slope1 asan
for who in $SIDES; do
    [ -n "${R[$who]:-}" ] || continue
    # shellcheck disable=SC2086
    set -- ${R[$who]}
    printf '%-8s %10s %8s %10s %8s %8s %10s %16s %8s\n' "$who" "$1" "$2" "$3" $(($4 + $5 + $6 + $7)) "$8" \
        "$9" "${10}" "${11}"
done
finish $name
