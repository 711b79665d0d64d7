#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# TLS over loopback with OpenSSL's own programs and test/integration/tls_peer, the chacha
# provider loaded (by -provider flags or by an OPENSSL_CONF made from
# chacha-provider.cnf) on the server only, the client only, or both:
#   A  s_server -WWW -> s_client: a 2 MiB file, every byte compared, TLS 1.3
#      TLS_CHACHA20_POLY1305_SHA256 and TLS 1.2 ECDHE-{ECDSA,RSA}-CHACHA20-POLY1305
#   B  tls_peer client <-> s_server: both directions, SSL_write sizes 1..16384,
#      TLS 1.3 KeyUpdates (update_requested, answered by s_server)
#   C  s_client <-> tls_peer server: the same, the other way round
#   D  tls_peer <-> tls_peer over a socket and in one process (memory BIOs)
#   E  s_client's "K" command: a KeyUpdate in the middle of a transfer
#   F  tamper: one bit of a ChaCha20-Poly1305 record flipped in transit; our
#      provider, decrypting, must reject it (bad_record_mac)
#   H  every ChaCha20 x Poly1305 kernel this CPU runs (test/kernel/list_kernels)
#      carries TLS 1.3 and 1.2 (in-process, both ends on the provider)
# Every case checks the CHACHA_PROVIDER_DEBUG trace: present on each side
# that loads the provider, absent on the side that does not.
# Env: OPENSSL, OPENSSL_MODULES, srcdir, builddir, TLS_PEER (see tls-common.sh).
set -u
name=tls_openssl
# shellcheck source=test/integration/tls-common.sh
. "$(dirname "$0")/tls-common.sh"

command -v "$OPENSSL" >/dev/null 2>&1 || skip "$OPENSSL not installed"
need_module
need_tls_peer
make_certs || { bad "openssl req: throwaway certificates"; finish $name; }
make_conf "$tmp/chacha.cnf"
T=$TLS_TIMEOUT
echo "# $($OPENSSL version), module $OPENSSL_MODULES/chacha.so"

SUITES="tls13 tls12-ecdsa tls12-rsa"

# tls_peer's --prov for a mode
peer_prov() { case $1 in none) echo default ;; flags) echo chacha ;; conf) echo "conf:$tmp/chacha.cnf" ;; esac; }

# s_server in the background, stdin held open by a pipe; sets $spid $sport.
# start_s_server TAG MODE SUITE STDIN-BYTES EXTRA-OPTS...
start_s_server() {
    local tag=$1 mode=$2 suite=$3 nbytes=$4 c
    shift 4
    app_mode "$mode"
    c=$(suite_cert "$suite")
    # shellcheck disable=SC2046,SC2086
    "$TLS_PEER" gen --seed 2 --bytes "$nbytes" --hold "$T" |
        $app_env timeout "$T" "$OPENSSL" s_server -accept 127.0.0.1:0 -naccept 1 \
        -cert "$tmp/$c.crt" -key "$tmp/$c.key" $(suite_opts "$suite") $app_flags "$@" \
        >"$tmp/$tag.srv.out" 2>"$tmp/$tag.srv.err" &
    spid=$!
    started $spid
    sport=$(wait_port $spid) || { sport=; bad "${label:-$tag}: s_server did not start"; show "$tmp/$tag.srv.err"; return 1; }
}

# ---- A: s_server -WWW -> s_client ---------------------------------------
mkdir -p "$tmp/www"
"$TLS_PEER" gen --seed 7 --bytes $((2 * 1024 * 1024 + 333)) >"$tmp/www/data.bin"
want=$(sha "$tmp/www/data.bin")
frags="16384 512 4096 1024 16384 2048"
for suite in $SUITES; do
    set -- $frags
    for pl in server:flags server:conf client:flags client:conf both:flags both:conf; do
        where=${pl%:*}; how=${pl#*:}
        case $where in
        server) sm=$how; cm=none ;;
        client) sm=none; cm=$how ;;
        both) sm=$how; cm=$how ;;
        esac
        frag=$1; shift
        tag="A-$suite-$where-$how"
        label="A $suite s_server($sm)->s_client($cm) 2 MiB, frag $frag"
        cd "$tmp/www" || exit 1
        start_s_server "$tag" "$sm" "$suite" 0 -WWW -quiet -max_send_frag "$frag"
        rc=$?
        cd "$tmp" || exit 1
        [ $rc -eq 0 ] || continue
        app_mode "$cm"
        # shellcheck disable=SC2046,SC2086
        printf 'GET /data.bin HTTP/1.0\r\n\r\n' |
            $app_env timeout "$T" "$OPENSSL" s_client -connect "127.0.0.1:$sport" -brief -ign_eof \
            $(suite_opts "$suite") $app_flags >"$tmp/$tag.cli.out" 2>"$tmp/$tag.cli.err"
        crc=$?
        wait_pid "$spid" "$T"
        if [ $crc -eq 0 ] && grep -q "^Ciphersuite: $(suite_cipher "$suite")\$" "$tmp/$tag.cli.err"; then
            ok "$label: handshake, $(suite_cipher "$suite")"
        else
            bad "$label: handshake (s_client rc $crc)"; show "$tmp/$tag.cli.err"; show "$tmp/$tag.srv.err"
        fi
        hdr=$(head -c 45 "$tmp/$tag.cli.out" | tr -d '\r\n')
        got=$(tail -c +46 "$tmp/$tag.cli.out" | sha256sum | cut -d' ' -f1)
        if [ "$hdr" = "HTTP/1.0 200 okContent-type: text/plain" ] && [ "$got" = "$want" ]; then
            ok "$label: every byte received"
        else
            bad "$label: body differs ($(wc -c <"$tmp/$tag.cli.out") bytes incl. header)"
        fi
        assert_trace "$label: server" "$tmp/$tag.srv.err" "$(uses "$sm")"
        assert_trace "$label: client" "$tmp/$tag.cli.err" "$(uses "$cm")"
    done
done

# ---- B: tls_peer client <-> s_server (both directions) -------------------
NC=$((1536 * 1024 + 11))    # client -> server
NS=$((1024 * 1024 + 5))     # server -> client (s_server sends its stdin)
"$TLS_PEER" gen --seed 1 --bytes $NC >"$tmp/c2s.bin"
want_c2s=$(sha "$tmp/c2s.bin")
for suite in $SUITES; do
    for pl in server:flags client:flags server:conf client:conf; do
        where=${pl%:*}; how=${pl#*:}
        if [ "$where" = server ]; then sm=$how; pm=none; else sm=none; pm=$how; fi
        tag="B-$suite-$where-$how"
        ku=
        [ "$suite" = tls13 ] && ku="--keyupdate-every 400000 --min-keyupdates 1"
        label="B $suite tls_peer($pm)->s_server($sm) ${NC}+${NS} bytes, writes 1..16384${ku:+, KeyUpdates}"
        start_s_server "$tag" "$sm" "$suite" $NS -quiet || continue
        # shellcheck disable=SC2086
        timeout "$T" "$TLS_PEER" client --port "$sport" --prov "$(peer_prov "$pm")" \
            --tls "$(suite_ver "$suite")" --cipher "$(suite_cipher "$suite")" \
            --expect-cipher "$(suite_cipher "$suite")" --send $NC --recv $NS $ku \
            >"$tmp/$tag.cli.out" 2>"$tmp/$tag.cli.err"
        crc=$?
        wait_pid "$spid" "$T"
        if [ $crc -eq 0 ]; then
            ok "$label: tls_peer received every byte s_server sent (and the suite, 1-byte and 16 KiB records${ku:+, KeyUpdate})"
        else
            bad "$label: tls_peer rc $crc"; show "$tmp/$tag.cli.out"; show "$tmp/$tag.cli.err"; show "$tmp/$tag.srv.err"
        fi
        grep -q 'app-data records out .* (payload 1\.\.16384)' "$tmp/$tag.cli.out" ||
            { bad "$label: records of 1 and 16384 bytes not both sent"; grep records "$tmp/$tag.cli.out"; }
        expect_eq "$label: s_server received every byte" "$(sha "$tmp/$tag.srv.out")" "$want_c2s"
        assert_trace "$label: server" "$tmp/$tag.srv.err" "$(uses "$sm")"
        assert_trace "$label: client" "$tmp/$tag.cli.err" "$(uses "$pm")"
    done
done

# ---- C: s_client <-> tls_peer server --------------------------------------
"$TLS_PEER" gen --seed 2 --bytes $NS >"$tmp/s2c.bin"
want_s2c=$(sha "$tmp/s2c.bin")
for suite in $SUITES; do
    for pl in server:flags client:flags client:conf; do
        where=${pl%:*}; how=${pl#*:}
        if [ "$where" = server ]; then pm=$how; cm=none; else pm=none; cm=$how; fi
        tag="C-$suite-$where-$how"
        ku=
        [ "$suite" = tls13 ] && ku="--keyupdate-every 300000 --min-keyupdates 1"
        label="C $suite s_client($cm)->tls_peer($pm) ${NC}+${NS} bytes${ku:+, KeyUpdates}"
        c=$(suite_cert "$suite")
        # shellcheck disable=SC2086
        timeout "$T" "$TLS_PEER" server --port 0 --cert "$tmp/$c.crt" --key "$tmp/$c.key" \
            --prov "$(peer_prov "$pm")" --tls "$(suite_ver "$suite")" --cipher "$(suite_cipher "$suite")" \
            --expect-cipher "$(suite_cipher "$suite")" --send $NS --recv $NC $ku \
            >"$tmp/$tag.srv.out" 2>"$tmp/$tag.srv.err" &
        spid=$!
        started $spid
        sport=$(wait_port $spid) || { bad "$label: tls_peer server did not start"; show "$tmp/$tag.srv.err"; continue; }
        app_mode "$cm"
        # shellcheck disable=SC2046,SC2086
        "$TLS_PEER" gen --seed 1 --bytes $NC --hold "$T" |
            $app_env timeout "$T" "$OPENSSL" s_client -connect "127.0.0.1:$sport" -brief -ign_eof \
            -nocommands $(suite_opts "$suite") $app_flags >"$tmp/$tag.cli.out" 2>"$tmp/$tag.cli.err"
        wait_pid "$spid" "$T"
        if [ "$wait_rc" -eq 0 ]; then
            ok "$label: tls_peer received every byte s_client sent${ku:+ (and KeyUpdates)}"
        else
            bad "$label: tls_peer rc $wait_rc"; show "$tmp/$tag.srv.out"; show "$tmp/$tag.srv.err"; show "$tmp/$tag.cli.err"
        fi
        grep -q 'app-data records out .* (payload 1\.\.16384)' "$tmp/$tag.srv.out" ||
            { bad "$label: records of 1 and 16384 bytes not both sent"; grep records "$tmp/$tag.srv.out"; }
        expect_eq "$label: s_client received every byte" "$(sha "$tmp/$tag.cli.out")" "$want_s2c"
        assert_trace "$label: server" "$tmp/$tag.srv.err" "$(uses "$pm")"
        assert_trace "$label: client" "$tmp/$tag.cli.err" "$(uses "$cm")"
    done
done

# ---- D: tls_peer <-> tls_peer ---------------------------------------------
for suite in $SUITES; do
    c=$(suite_cert "$suite")
    ku=
    [ "$suite" = tls13 ] && ku="--keyupdate-every 250000 --min-keyupdates 2"
    common="--tls $(suite_ver "$suite") --cipher $(suite_cipher "$suite") --expect-cipher $(suite_cipher "$suite")"
    tag="D-$suite-socket"
    label="D $suite tls_peer(conf)<->tls_peer(default) socket, 2 MiB each way"
    # shellcheck disable=SC2086
    timeout "$T" "$TLS_PEER" server --port 0 --cert "$tmp/$c.crt" --key "$tmp/$c.key" \
        --prov "conf:$tmp/chacha.cnf" $common --send 2097152 --recv 2097152 $ku \
        --sizes 16384,1,3,16384,1500,16383,1 >"$tmp/$tag.srv.out" 2>"$tmp/$tag.srv.err" &
    spid=$!
    started $spid
    if sport=$(wait_port $spid); then
        # shellcheck disable=SC2086
        timeout "$T" "$TLS_PEER" client --port "$sport" --prov default $common \
            --send 2097152 --recv 2097152 $ku >"$tmp/$tag.cli.out" 2>"$tmp/$tag.cli.err"
        crc=$?
        wait_pid "$spid" "$T"
        if [ $crc -eq 0 ] && [ "$wait_rc" -eq 0 ]; then ok "$label: every byte both ways"
        else bad "$label: rc client $crc server $wait_rc"; show "$tmp/$tag.srv.out"; show "$tmp/$tag.srv.err"; show "$tmp/$tag.cli.out"; show "$tmp/$tag.cli.err"; fi
        assert_trace "$label: server" "$tmp/$tag.srv.err" yes
        assert_trace "$label: client" "$tmp/$tag.cli.err" no
    else
        bad "$label: tls_peer server did not start"; show "$tmp/$tag.srv.err"
    fi
    tag="D-$suite-pair"
    label="D $suite in-process pair, client(chacha) server(default), 2 MiB each way"
    # shellcheck disable=SC2086
    timeout "$T" "$TLS_PEER" pair --cert "$tmp/$c.crt" --key "$tmp/$c.key" --client-prov chacha \
        --server-prov default $common --send 2097152 --recv 2097152 $ku \
        >"$tmp/$tag.out" 2>"$tmp/$tag.err"
    crc=$?
    if [ $crc -eq 0 ]; then ok "$label: every byte both ways"
    else bad "$label: rc $crc"; show "$tmp/$tag.out"; show "$tmp/$tag.err"; fi
    assert_trace "$label: client" "$tmp/$tag.err" yes
done

# ---- E: s_client's K command: KeyUpdate between two halves of a transfer --
od -An -v -tx1 -N 300000 "$tmp/c2s.bin" >"$tmp/hex1"
od -An -v -tx1 -j 300000 -N 300000 "$tmp/c2s.bin" >"$tmp/hex2"
cat "$tmp/hex1" "$tmp/hex2" >"$tmp/hex12"
for pl in server:flags client:conf; do
    where=${pl%:*}; how=${pl#*:}
    if [ "$where" = server ]; then sm=$how; cm=none; else sm=none; cm=$how; fi
    tag="E-$where-$how"
    label="E tls13 s_client($cm) 'K' -> s_server($sm)"
    start_s_server "$tag" "$sm" tls13 0 -quiet || continue
    app_mode "$cm"
    # shellcheck disable=SC2046,SC2086
    { cat "$tmp/hex1"; sleep 0.5; echo K; sleep 0.5; cat "$tmp/hex2"; sleep 0.5; } |
        $app_env timeout "$T" "$OPENSSL" s_client -connect "127.0.0.1:$sport" -brief -no_ign_eof \
        $(suite_opts tls13) $app_flags >"$tmp/$tag.cli.out" 2>"$tmp/$tag.cli.err"
    wait_pid "$spid" "$T"
    check "$label: s_client sent a KeyUpdate" grep -q '^KEYUPDATE' "$tmp/$tag.cli.err"
    expect_eq "$label: s_server received both halves, every byte" "$(sha "$tmp/$tag.srv.out")" "$(sha "$tmp/hex12")"
    assert_trace "$label: server" "$tmp/$tag.srv.err" "$(uses "$sm")"
    assert_trace "$label: client" "$tmp/$tag.cli.err" "$(uses "$cm")"
    n=$(trace_count "$tmp/$tag.srv.err"); m=$(trace_count "$tmp/$tag.cli.err")
    echo "# $label: cipher contexts: server $n, client $m (4 = handshake + traffic keys, more = KeyUpdate)"
done

# ---- F: tamper: our provider must reject a modified record ---------------
for v in 1.3 1.2; do
    for at in body tag; do
        for to in server client; do
            if [ "$to" = server ]; then sp=chacha; cp=default; else sp=default; cp=chacha; fi
            tag="F-$v-$at-$to"
            label="F TLS $v tamper ($at byte) -> $to decrypting with chacha"
            timeout "$T" "$TLS_PEER" tamper --cert "$tmp/ec.crt" --key "$tmp/ec.key" --tls $v \
                --server-prov $sp --client-prov $cp --tamper-at $at --tamper-to $to \
                >"$tmp/$tag.out" 2>"$tmp/$tag.err"
            crc=$?
            if [ $crc -eq 0 ] && grep -q 'decryption failed or bad record mac' "$tmp/$tag.out" &&
               grep -q "$to sent alert bad_record_mac" "$tmp/$tag.out"; then
                ok "$label: rejected, bad_record_mac alert sent and received"
            else
                bad "$label: rc $crc"; show "$tmp/$tag.out"; show "$tmp/$tag.err"
            fi
            assert_trace "$label" "$tmp/$tag.err" yes
        done
    done
done

# ---- H: every kernel this CPU runs carries TLS (in-process pairs) ---------
LB=${LIST_KERNELS:-$builddir/test/kernel/list_kernels}
if [ -n "${CHACHA_PROVIDER_IMPL:-}${CHACHA_PROVIDER_POLY1305_IMPL:-}" ]; then
    echo "# H: kernels pinned by the caller (chacha20=${CHACHA_PROVIDER_IMPL:-auto} poly1305=${CHACHA_PROVIDER_POLY1305_IMPL:-auto}): sweep skipped"
elif [ ! -x "$LB" ]; then
    echo "# H: $LB not built: kernel sweep skipped"
else
    for ci in $("$LB" chacha20); do
        for pi in $("$LB" poly1305); do
            for v in 1.3 1.2; do
                c=TLS_CHACHA20_POLY1305_SHA256; [ $v = 1.2 ] && c=ECDHE-ECDSA-CHACHA20-POLY1305
                tag="H-$ci-$pi-$v"
                label="H TLS $v on kernels chacha20=$ci poly1305=$pi (pair, 1 MiB each way)"
                ku=; [ $v = 1.3 ] && ku="--keyupdate-every 300000 --min-keyupdates 1"
                # shellcheck disable=SC2086
                CHACHA_PROVIDER_IMPL=$ci CHACHA_PROVIDER_POLY1305_IMPL=$pi timeout "$T" "$TLS_PEER" pair \
                    --cert "$tmp/ec.crt" --key "$tmp/ec.key" --client-prov chacha --server-prov chacha \
                    --tls $v --cipher $c --expect-cipher $c --send 1048576 --recv 1048576 $ku \
                    >"$tmp/$tag.out" 2>"$tmp/$tag.err"
                rc=$?
                if [ $rc -eq 0 ] && grep -q "$TRACE (chacha20=$ci, poly1305=$pi" "$tmp/$tag.err"; then
                    ok "$label: every byte both ways, trace shows the pinned kernels"
                else
                    bad "$label: rc $rc"; show "$tmp/$tag.out"; show "$tmp/$tag.err"
                fi
            done
        done
    done
fi

finish $name
