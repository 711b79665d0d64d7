#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# `openssl enc -xchacha20` (issue 24): what README and provider-chacha(7)
# claim, checked on the real `openssl` programs. Their IV buffer is
# EVP_MAX_IV_LENGTH (16) bytes, XChaCha20's IV 32: -iv and -pbkdf2 write
# past it (an ASan build of the app reports the write: scripts/enc-asan.sh).
#   3.0 (Debian 12): -K/-iv left IV bytes 16-31 equal to the key's first 16
#       (the buffer sits just below the key): the provider refuses such an
#       IV, so enc fails with "iv holds key bytes" and writes nothing;
#       -pbkdf2 aborts (FORTIFY_SOURCE), a bare -pass aborts (assertion).
#   3.5 (Debian 13, when unpacked in OPENSSL35_DIR): -K/-iv writes the tail
#       into the salt buffer and gets the right bytes (draft A.2.1
#       keystream), exit 0: undefined behaviour that happens to work;
#       -pbkdf2 aborts (FORTIFY_SOURCE), a bare -pass aborts (assertion).
#   control: the same commands with ChaCha20 (16-byte IV) succeed and match
#       the default provider, so a check here can pass as well as fail.
# Ends with "enc_xchacha: N passed, N failed".
set -u
: "${OPENSSL:=openssl}"
: "${OPENSSL_MODULES:?OPENSSL_MODULES must point at the built chacha.so}"
: "${OPENSSL35_DIR:=${HOME:-/root}/openssl-3.5}"
# what is claimed is the layout of Debian's x86-64 builds of the app
if [ -n "${EMULATOR:-}" ]; then
    echo "SKIP: the claims are about Debian's x86-64 openssl, not the one under $EMULATOR"
    exit 77
fi
# a sanitizer-built module loads only into $OPENSSL (test/integration/sanitize.sh's wrapper)
sanitized=
ldd "$OPENSSL_MODULES/chacha.so" 2>/dev/null | grep -q -E 'lib(asan|tsan|ubsan)' && sanitized=1
. "$(dirname "$0")/../lib/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
BAD_DETAIL=$tmp/err     # bad() shows the command's errors

ours="-provider-path $OPENSSL_MODULES -provider chacha -provider default"
# draft-irtf-cfrg-xchacha-03 A.2.1: key, nonce || counter 0, first 64 keystream bytes
K=808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f
IV=404142434445464748494a4b4c4d4e4f50515253545556580000000000000000
# the control's ChaCha20 IV: block counter 1, a 12-byte nonce
C20IV=01000000404142434445464748494a4b
KS=1131ce9a2a20ae0d67c8935c7789fa1025c9e5bb720fb96f11354fb97af0bd9aadec0863ba60cac8582c48f86cdfc48edd46a48642c5de62ccf11c7b21bf337d
head -c 64 /dev/zero >"$tmp/zero"

# enc_run NAME OPENSSL-CMD ARGS...: status to $tmp/rc, ciphertext (hex) to $tmp/out
enc_run() {
    # shellcheck disable=SC2086
    $1 enc -in "$tmp/zero" -out "$tmp/ct" $2 2>"$tmp/err"
    echo $? >"$tmp/rc"
    od -An -v -tx1 "$tmp/ct" 2>/dev/null | tr -d ' \n' >"$tmp/out"
}

# must_refuse LABEL OPENSSL ARGS PATTERN: non-zero exit, nothing but a header out, PATTERN on stderr
must_refuse() {
    enc_run "$2" "$3"
    rc=$(cat "$tmp/rc")
    if [ "$rc" -ne 0 ] && grep -q -E -- "$4" "$tmp/err" && [ "$(wc -c <"$tmp/out")" -le 32 ]; then
        ok "$1: exit $rc, \"$(grep -m1 -o -E -- "($4).*" "$tmp/err" | cut -c1-90)\""
    else
        bad "$1: exit $rc (a refusal with \"$4\" expected)"
    fi
}

for o in "$OPENSSL" 35; do
    if [ "$o" = 35 ]; then
        L=$OPENSSL35_DIR/usr/lib/x86_64-linux-gnu
        [ -x "$OPENSSL35_DIR/usr/bin/openssl" ] ||
            { echo "# no OpenSSL 3.5 in $OPENSSL35_DIR (.ci/tls-deps.sh openssl35 DIR): 3.5 not checked"; continue; }
        [ -z "$sanitized" ] || { echo "# sanitizer-built module: 3.5 checked by the host run"; continue; }
        o="$L/ld-linux-x86-64.so.2 --library-path $L $OPENSSL35_DIR/usr/bin/openssl"
    fi
    v=$($o version 2>&1)
    echo "# $v"
    case $v in
    "OpenSSL 3.0"*)
        must_refuse "3.0 enc -xchacha20 -K -iv" "$o" "-e -xchacha20 -K $K -iv $IV $ours" \
            "iv holds key bytes"
        must_refuse "3.0 enc -d -xchacha20 -K -iv" "$o" "-d -xchacha20 -K $K -iv $IV $ours" \
            "iv holds key bytes"
        # (under test/integration/sanitize.sh's ASan preload the checked memcpy may not
        # abort: the overflow then reaches the key and the provider refuses)
        must_refuse "3.0 enc -xchacha20 -pbkdf2" "$o" "-xchacha20 -pbkdf2 -pass pass:x $ours" \
            "buffer overflow detected|AddressSanitizer|iv holds key bytes"
        must_refuse "3.0 enc -xchacha20 -pass (EVP_BytesToKey)" "$o" "-xchacha20 -pass pass:x $ours" \
            "assertion failed: niv <= EVP_MAX_IV_LENGTH"
        ;;
    "OpenSSL 3.5"*)
        enc_run "$o" "-e -xchacha20 -K $K -iv $IV $ours"
        if [ "$(cat "$tmp/rc")" -eq 0 ] && [ "$(cat "$tmp/out")" = "$KS" ]; then
            ok "3.5 enc -xchacha20 -K -iv: exit 0 and the A.2.1 keystream (the IV tail lands in its salt buffer)"
        else
            bad "3.5 enc -xchacha20 -K -iv: exit $(cat "$tmp/rc"), $(cut -c1-32 "$tmp/out")..."
        fi
        must_refuse "3.5 enc -xchacha20 -pbkdf2" "$o" "-xchacha20 -pbkdf2 -pass pass:x $ours" \
            "buffer overflow detected|AddressSanitizer"
        must_refuse "3.5 enc -xchacha20 -pass (EVP_BytesToKey)" "$o" "-xchacha20 -pass pass:x $ours" \
            "assertion failed: niv "
        ;;
    *) bad "unexpected openssl: $v" ;;
    esac
    # control: ChaCha20 (16-byte IV), same shape, ours against the default provider
    enc_run "$o" "-e -chacha20 -K $K -iv $C20IV $ours -propquery provider=chacha"
    cp "$tmp/out" "$tmp/ours"; r1=$(cat "$tmp/rc")
    enc_run "$o" "-e -chacha20 -K $K -iv $C20IV -provider default"
    if [ "$r1" -eq 0 ] && [ "$(cat "$tmp/rc")" -eq 0 ] && [ -s "$tmp/ours" ] && cmp -s "$tmp/ours" "$tmp/out"; then
        ok "control: enc -chacha20 -K -iv succeeds, ours = default"
    else
        bad "control: enc -chacha20 -K -iv"
    fi
done
echo "enc_xchacha: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
