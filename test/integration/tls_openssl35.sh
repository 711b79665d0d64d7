#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Forward compatibility: the chacha.so built against OpenSSL 3.0 loaded,
# unchanged, by OpenSSL 3.5 LTS (Debian 13's packages unpacked into a
# directory and run with their own loader; nothing is installed):
#   V0  3.5's openssl lists the provider and its two ciphers
#   V1  3.5 s_server -WWW -> 3.5 s_client, 2 MiB, TLS 1.3 and both TLS 1.2
#       ChaCha20-Poly1305 suites, provider on the server, client or both
#   V2  across versions: 3.5 (chacha) <-> 3.0 (default) and the reverse
#   V3  test/integration/tls_peer (built against 3.0) on 3.5's libssl -- 3.5's new
#       record layer: in-process transfers with 1..16384-byte writes and
#       KeyUpdates, and the tamper test (bad_record_mac)
#   V4  3.5 s_client's "K" command: KeyUpdate in the middle of a transfer
#   V5  the project's EVP test programs run on 3.5's libcrypto
#   V6  the provider sources compile against 3.5's headers (same warnings
#       as the build, -Werror included when configured)
# Env: OPENSSL35_DIR (default $HOME/openssl-3.5; unpacked there with
# `.ci/tls-deps.sh openssl35 DIR` when missing), plus those of tls-common.sh.
# Exit 77 only if the 3.5 tree is absent and cannot be unpacked.
set -u
name=tls_openssl35
# shellcheck source=test/integration/tls-common.sh
. "$(dirname "$0")/tls-common.sh"

D=${OPENSSL35_DIR:-${HOME:-/root}/openssl-3.5}
L=$D/usr/lib/x86_64-linux-gnu
if [ ! -x "$D/usr/bin/openssl" ]; then
    echo "# unpacking OpenSSL 3.5 into $D"
    timeout 300 sh "$srcdir/.ci/tls-deps.sh" openssl35 "$D" >"$tmp/unpack.log" 2>&1 || { show "$tmp/unpack.log"; }
fi
[ -x "$D/usr/bin/openssl" ] && [ -x "$L/ld-linux-x86-64.so.2" ] ||
    skip "OpenSSL 3.5 not unpacked in $D (.ci/tls-deps.sh openssl35 $D)"
skip_if_sanitized "OpenSSL 3.5 (its own loader and C library)"
RUN35="$L/ld-linux-x86-64.so.2 --library-path $L"
O35="$RUN35 $D/usr/bin/openssl"
O30=$OPENSSL
need_module
need_tls_peer
make_certs || { bad "openssl req: throwaway certificates"; finish $name; }
make_conf "$tmp/chacha.cnf"
T=$TLS_TIMEOUT
v35=$($O35 version 2>&1)
echo "# 3.5: $v35"
echo "# 3.0: $($O30 version)"

# ---- V0: the provider under 3.5 --------------------------------------------
case $v35 in
"OpenSSL 3.5"*) ok "V0: 3.5's openssl runs ($v35)" ;;
*) bad "V0: 3.5's openssl: $v35" ;;
esac
ours="-provider chacha -provider default"
check "V0: 3.5 list -providers: chacha active" \
    sh -c "$O35 list -providers $ours | grep -A3 '^  chacha' | grep -q 'status: active'"
check "V0: 3.5 list -cipher-algorithms: ChaCha20-Poly1305 @ chacha" \
    sh -c "$O35 list -cipher-algorithms $ours | grep -q 'ChaCha20-Poly1305 @ chacha'"
check "V0: 3.5 list -cipher-algorithms: ChaCha20 @ chacha" \
    sh -c "$O35 list -cipher-algorithms $ours | grep -q 'ChaCha20 @ chacha'"
check "V0: 3.5 with chacha-provider.cnf: both providers active" \
    sh -c "OPENSSL_CONF='$tmp/chacha.cnf' $O35 list -providers | grep -q '^  chacha' && OPENSSL_CONF='$tmp/chacha.cnf' $O35 list -providers | grep -q '^  default'"


mkdir -p "$tmp/www"
"$TLS_PEER" gen --seed 7 --bytes $((2 * 1024 * 1024 + 333)) >"$tmp/www/data.bin"
want=$(sha "$tmp/www/data.bin")

# www_case LABEL SUITE SERVER-OPENSSL SERVER-MODE CLIENT-OPENSSL CLIENT-MODE
www_case() {
    local label=$1 suite=$2 sbin=$3 sm=$4 cbin=$5 cm=$6 tag c spid sport crc
    tag=$(echo "$label" | tr -c 'A-Za-z0-9\n' '_' | cut -c1-60)
    c=$(suite_cert "$suite")
    app_mode "$sm"
    cd "$tmp/www" || exit 1
    # shellcheck disable=SC2046,SC2086
    "$TLS_PEER" gen --bytes 0 --hold "$T" |
        $app_env timeout "$T" $sbin s_server -accept 127.0.0.1:0 -naccept 1 \
        -cert "$tmp/$c.crt" -key "$tmp/$c.key" $(suite_opts "$suite") $app_flags -WWW -quiet \
        >"$tmp/$tag.srv.out" 2>"$tmp/$tag.srv.err" &
    spid=$!
    cd "$tmp" || exit 1
    started $spid
    sport=$(wait_port $spid) || { bad "$label: s_server did not start"; show "$tmp/$tag.srv.err"; return; }
    app_mode "$cm"
    # shellcheck disable=SC2046,SC2086
    printf 'GET /data.bin HTTP/1.0\r\n\r\n' |
        $app_env timeout "$T" $cbin s_client -connect "127.0.0.1:$sport" -brief -ign_eof \
        $(suite_opts "$suite") $app_flags >"$tmp/$tag.cli.out" 2>"$tmp/$tag.cli.err"
    crc=$?
    wait_pid $spid "$T"
    if [ $crc -eq 0 ] && grep -q "^Ciphersuite: $(suite_cipher "$suite")\$" "$tmp/$tag.cli.err"; then
        ok "$label: handshake, $(suite_cipher "$suite")"
    else
        bad "$label: handshake (s_client rc $crc)"; show "$tmp/$tag.cli.err"; show "$tmp/$tag.srv.err"
    fi
    http_body "$tmp/$tag.cli.out" "$tmp/$tag.body"
    expect_eq "$label: every byte received" "$(sha "$tmp/$tag.body")" "$want"
    assert_trace "$label: server" "$tmp/$tag.srv.err" "$(uses "$sm")"
    assert_trace "$label: client" "$tmp/$tag.cli.err" "$(uses "$cm")"
}

# ---- V1: 3.5 <-> 3.5 ------------------------------------------------------
for suite in tls13 tls12-ecdsa tls12-rsa; do
    www_case "V1 $suite 3.5 s_server(flags) -> 3.5 s_client(none)" $suite "$O35" flags "$O35" none
    www_case "V1 $suite 3.5 s_server(none) -> 3.5 s_client(conf)" $suite "$O35" none "$O35" conf
    www_case "V1 $suite 3.5 s_server(conf) -> 3.5 s_client(flags)" $suite "$O35" conf "$O35" flags
done

# ---- V2: across versions ---------------------------------------------------
for suite in tls13 tls12-rsa; do
    www_case "V2 $suite 3.5 s_server(chacha) -> 3.0 s_client(default)" $suite "$O35" flags "$O30" none
    www_case "V2 $suite 3.0 s_server(default) -> 3.5 s_client(chacha)" $suite "$O30" none "$O35" conf
done

# ---- V3: tls_peer on 3.5's libssl -----------------------------------------
for suite in tls13 tls12-ecdsa tls12-rsa; do
    c=$(suite_cert "$suite")
    ku=
    [ "$suite" = tls13 ] && ku="--keyupdate-every 300000 --min-keyupdates 2"
    for pl in client server; do
        if [ $pl = client ]; then cp=chacha; sp=default; else cp=default; sp="conf:$tmp/chacha.cnf"; fi
        tag="V3-$suite-$pl"
        label="V3 $suite tls_peer on 3.5 libssl, in-process, chacha on the $pl, 2 MiB each way${ku:+, KeyUpdates}"
        # shellcheck disable=SC2086
        timeout "$T" $RUN35 "$TLS_PEER" pair --cert "$tmp/$c.crt" --key "$tmp/$c.key" \
            --client-prov "$cp" --server-prov "$sp" --tls "$(suite_ver "$suite")" \
            --cipher "$(suite_cipher "$suite")" --expect-cipher "$(suite_cipher "$suite")" \
            --send 2097152 --recv 2097152 $ku >"$tmp/$tag.out" 2>"$tmp/$tag.err"
        rc=$?
        if [ $rc -eq 0 ]; then ok "$label: every byte both ways"
        else bad "$label: rc $rc"; show "$tmp/$tag.out"; show "$tmp/$tag.err"; fi
        assert_trace "$label" "$tmp/$tag.err" yes
    done
done
for v in 1.3 1.2; do
    for at in body tag; do
        if [ $at = body ]; then to=server; sp=chacha; cp=default; else to=client; sp=default; cp=chacha; fi
        tag="V3-tamper-$v-$at"
        label="V3 TLS $v tamper ($at byte) on 3.5 libssl -> $to decrypting with chacha"
        timeout "$T" $RUN35 "$TLS_PEER" tamper --cert "$tmp/ec.crt" --key "$tmp/ec.key" --tls $v \
            --server-prov $sp --client-prov $cp --tamper-at $at --tamper-to $to \
            >"$tmp/$tag.out" 2>"$tmp/$tag.err"
        rc=$?
        if [ $rc -eq 0 ] && grep -q "$to sent alert bad_record_mac" "$tmp/$tag.out"; then
            ok "$label: rejected, bad_record_mac alert sent and received"
        else
            bad "$label: rc $rc"; show "$tmp/$tag.out"; show "$tmp/$tag.err"
        fi
        assert_trace "$label" "$tmp/$tag.err" yes
    done
done

# ---- V4: 3.5 s_client "K" ---------------------------------------------------
"$TLS_PEER" gen --seed 1 --bytes 600000 >"$tmp/c2s.bin"
od -An -v -tx1 -N 300000 "$tmp/c2s.bin" >"$tmp/hex1"
od -An -v -tx1 -j 300000 "$tmp/c2s.bin" >"$tmp/hex2"
cat "$tmp/hex1" "$tmp/hex2" >"$tmp/hex12"
tag=V4
label="V4 tls13 3.5 s_client(chacha) 'K' -> 3.5 s_server(chacha)"
# shellcheck disable=SC2046,SC2086
"$TLS_PEER" gen --bytes 0 --hold "$T" |
    timeout "$T" $O35 s_server -accept 127.0.0.1:0 -naccept 1 -cert "$tmp/ec.crt" -key "$tmp/ec.key" \
    $(suite_opts tls13) $ours -propquery '?provider=chacha' -quiet \
    >"$tmp/$tag.srv.out" 2>"$tmp/$tag.srv.err" &
spid=$!
started $spid
if sport=$(wait_port $spid); then
    # shellcheck disable=SC2046,SC2086
    { cat "$tmp/hex1"; sleep 0.5; echo K; sleep 0.5; cat "$tmp/hex2"; sleep 0.5; } |
        OPENSSL_CONF=$tmp/chacha.cnf timeout "$T" $O35 s_client -connect "127.0.0.1:$sport" -brief \
        -no_ign_eof $(suite_opts tls13) >"$tmp/$tag.cli.out" 2>"$tmp/$tag.cli.err"
    wait_pid $spid "$T"
    check "$label: s_client sent a KeyUpdate" grep -q '^KEYUPDATE' "$tmp/$tag.cli.err"
    expect_eq "$label: s_server received both halves, every byte" "$(sha "$tmp/$tag.srv.out")" "$(sha "$tmp/hex12")"
    assert_trace "$label: server" "$tmp/$tag.srv.err" yes
    assert_trace "$label: client" "$tmp/$tag.cli.err" yes
else
    bad "$label: s_server did not start"; show "$tmp/$tag.srv.err"
fi

# ---- V5: the EVP test programs on 3.5's libcrypto ----------------------------
n_evp=0
for p in evp/test_evp_vectors evp/test_wycheproof evp/test_rfc8439 evp/test_errors \
         evp/test_parity kernel/test_aead_fused; do
    prog=$builddir/test/$p t=${p#*/}
    [ -x "$prog" ] || { echo "# V5: $t not built, not run"; continue; }
    n_evp=$((n_evp + 1))
    (cd "$builddir" && srcdir=$srcdir timeout "$T" $RUN35 "$prog") >"$tmp/V5-$t.log" 2>&1
    rc=$?
    summary=$(grep -E "^$t: [0-9]+ passed, [0-9]+ failed" "$tmp/V5-$t.log" | tail -n 1)
    if [ $rc -eq 0 ] && [ -n "$summary" ] && echo "$summary" | grep -q ' 0 failed'; then
        ok "V5 $t on 3.5's libcrypto: $summary"
    else
        bad "V5 $t on 3.5's libcrypto: rc $rc, ${summary:-no summary}"
        grep -E '^(FAIL|not ok)' "$tmp/V5-$t.log" | head -n 10 | sed 's/^/#   /'
    fi
done
[ $n_evp -gt 0 ] || bad "V5: no EVP test program found in $builddir/test (build with make check first)"

# ---- V6: the sources against 3.5's headers -----------------------------------
# the project's own build (configure + make), pointed at 3.5's headers and
# libcrypto, with the flags of this build (-Werror when configured so)
b35=$tmp/build35
mkdir -p "$b35"
werror=
grep -q -- '-Werror' "$builddir/Makefile" 2>/dev/null && werror=--enable-werror
# a source tree configured in place refuses a second build beside it (and
# its objects would be found through VPATH): configure a copy of the
# sources the module is built from instead
src35=$srcdir
if [ -f "$srcdir/config.status" ]; then
    src35=$tmp/src35
    mkdir -p "$src35"
    (cd "$srcdir" && tar -cf - configure configure.ac Makefile.am Makefile.in \
        config.h.in aclocal.m4 build-aux m4 $(find provider -name '*.[ch]')) |
        (cd "$src35" && tar -xf -)
fi
if (cd "$b35" && "$src35/configure" $werror CRYPTO_CFLAGS="-I$D/usr/include" \
        CRYPTO_LIBS="$L/libcrypto.so.3" SSL_CFLAGS="-I$D/usr/include" \
        SSL_LIBS="$L/libssl.so.3" >configure.log 2>&1 &&
    make -j2 chacha.la >make.log 2>&1); then
    ok "V6: the module builds against 3.5's headers ($(grep -c ' CC ' "$b35/make.log") sources)"
else
    bad "V6: the module does not build against 3.5's headers"
    show "$b35/configure.log" 10
    show "$b35/make.log" 25
fi

finish $name
