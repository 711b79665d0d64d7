#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The example program examples/xchacha_file.c (built by make check):
# files of several sizes sealed and opened back, a fresh random nonce per
# seal, the sealed format checked against libsodium's XChaCha20-Poly1305
# through python3 when it is there (else skipped as a check), and what must
# fail: a flipped bit anywhere, a truncated file, the wrong key -- with no
# output file left behind.
set -u
: "${OPENSSL_MODULES:?OPENSSL_MODULES must point at the built chacha.so}"
: "${builddir:=.}"
export OPENSSL_MODULES
ex="${EMULATOR:-} $builddir/examples/xchacha_file"
. "$(dirname "$0")/../lib/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
refuse() { # refuse "label" file: open must fail, leave no output, say why
    rm -f "$tmp/rt" "$tmp/rt.partial"
    if $ex open "$tmp/key" "$2" "$tmp/rt" >"$tmp/out" 2>&1; then
        bad "$1: opened"
    elif [ -e "$tmp/rt" ] || [ -e "$tmp/rt.partial" ]; then
        bad "$1: refused, but an output file was left"
    elif ! grep -q -E '^xchacha_file: (authentication failed|IN is not a sealed file)' "$tmp/out"; then
        bad "$1: failed, but not as a refusal: $(head -n 1 "$tmp/out")"
    else
        ok "$1: refused, nothing written ($(head -n 1 "$tmp/out"))"
    fi
}

if ! $ex keygen "$tmp/key" >"$tmp/out" 2>&1; then
    bad "keygen (is $builddir/examples/xchacha_file built?)"; sed 's/^/#   /' "$tmp/out"
    summary example
    exit 1
fi
ok "keygen"
check "the key file holds 32 bytes" test "$(wc -c <"$tmp/key")" -eq 32
for n in 0 1 16 1000 65536 65537 1000003; do
    head -c "$n" /dev/urandom >"$tmp/pt"
    check "seal $n bytes" $ex seal "$tmp/key" "$tmp/pt" "$tmp/ct"
    check "sealed $n bytes: nonce + text + tag = $((n + 40)) bytes" test "$(wc -c <"$tmp/ct")" -eq $((n + 40))
    rm -f "$tmp/rt"
    check "open $n bytes" $ex open "$tmp/key" "$tmp/ct" "$tmp/rt"
    check "open $n bytes: the original back" cmp "$tmp/rt" "$tmp/pt"
done
$ex seal "$tmp/key" "$tmp/pt" "$tmp/ct2"
check "two seals of one file: different nonces" \
    sh -c "! cmp -s -n 24 '$tmp/ct' '$tmp/ct2'"
# tampering: one bit in the nonce, the ciphertext, the tag; truncation; another key
for at in 0 23 24 500000 $((1000003 + 24 + 15)); do
    cp "$tmp/ct" "$tmp/bad"
    b=$(od -An -tu1 -j "$at" -N1 "$tmp/bad" | tr -d ' ')
    # shellcheck disable=SC2059
    printf "\\$(printf %o $((b ^ 1)))" | dd of="$tmp/bad" bs=1 seek="$at" conv=notrunc 2>/dev/null
    check "byte $at: one bit flipped" sh -c "! cmp -s '$tmp/ct' '$tmp/bad'"
    refuse "byte $at changed" "$tmp/bad"
done
head -c $((1000003 + 39)) "$tmp/ct" >"$tmp/short"
refuse "truncated by one byte" "$tmp/short"
head -c 39 "$tmp/ct" >"$tmp/tiny"
refuse "shorter than nonce + tag" "$tmp/tiny"
$ex keygen "$tmp/key2"
cp "$tmp/key" "$tmp/key.keep"
cp "$tmp/key2" "$tmp/key"
refuse "another key" "$tmp/ct"
cp "$tmp/key.keep" "$tmp/key"
# the format is plain XChaCha20-Poly1305: libsodium opens it (AAD "xchacha_file v1\0")
if python3 -c 'import ctypes.util, sys; sys.exit(ctypes.util.find_library("sodium") is None)' 2>/dev/null; then
    head -c 3000 /dev/urandom >"$tmp/pt"
    $ex seal "$tmp/key" "$tmp/pt" "$tmp/ct"
    check "libsodium opens a sealed file" python3 - "$tmp/key" "$tmp/ct" "$tmp/pt" <<'PY'
import ctypes, ctypes.util, sys
s = ctypes.CDLL(ctypes.util.find_library("sodium"))
assert s.sodium_init() >= 0
key, ct, pt = (open(p, "rb").read() for p in sys.argv[1:4])
nonce, body, aad = ct[:24], ct[24:], b"xchacha_file v1\0"
m = ctypes.create_string_buffer(len(body))
mlen = ctypes.c_ulonglong()
r = s.crypto_aead_xchacha20poly1305_ietf_decrypt(m, ctypes.byref(mlen), None, body,
        ctypes.c_ulonglong(len(body)), aad, ctypes.c_ulonglong(len(aad)), nonce, key)
sys.exit(0 if r == 0 and m.raw[:mlen.value] == pt else 1)
PY
else
    echo "# no libsodium for python3: the format check against libsodium is not run"
fi
echo "example: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
