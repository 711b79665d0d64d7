#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Does `openssl enc -xchacha20` read or write out of bounds? An ASan build of
# OpenSSL's `openssl` app (and its libcrypto) from Debian's upstream tarball
# of the version under test, then enc with our module: -K/-iv, -pbkdf2.
# Not part of `make check` (a build of OpenSSL took 50-70 minutes on one busy
# core); the outcome is stated in README.md ("openssl enc and XChaCha20") and
# checked on the distribution's own binaries by test/integration/enc_xchacha.sh.
# Usage: scripts/enc-asan.sh VERSION MODULES_DIR [WORKDIR]
#   VERSION      upstream version, e.g. 3.0.19 or 3.5.7 (Debian's pool must hold it)
#   MODULES_DIR  the directory holding chacha.so
set -eu
ver=${1:?usage: $0 VERSION MODULES_DIR [WORKDIR]}
mods=$(cd "${2:?usage: $0 VERSION MODULES_DIR [WORKDIR]}" && pwd)
work=${3:-${TMPDIR:-/tmp}/enc-asan}
mkdir -p "$work"; cd "$work"
src=openssl-$ver
if [ ! -x "$src/apps/openssl" ]; then
    [ -f "openssl_$ver.orig.tar.gz" ] ||
        curl -fsSO "http://deb.debian.org/debian/pool/main/o/openssl/openssl_$ver.orig.tar.gz"
    tar xzf "openssl_$ver.orig.tar.gz"
    extra=
    case $ver in 3.5.*) extra="no-quic no-ml-dsa no-ml-kem no-slh-dsa" ;; esac
    # shellcheck disable=SC2086
    (cd "$src" && ./Configure linux-x86_64 enable-asan -O1 -g shared no-tests no-engine \
        no-legacy no-comp no-idea no-seed no-camellia no-aria no-sm2 no-sm3 no-sm4 \
        no-whirlpool no-rc5 no-md2 no-mdc2 no-srp no-ssl3 no-dtls no-srtp $extra &&
     make build_generated && make apps/openssl) >"$work/build-$ver.log" 2>&1
fi
run() { LD_LIBRARY_PATH=$work/$src "$work/$src/apps/openssl" "$@"; }
K=808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f
IV=404142434445464748494a4b4c4d4e4f50515253545556580000000000000000
echo "== $(run version)"
for args in "-K $K -iv $IV" "-pbkdf2 -pass pass:x"; do
    echo "== enc -xchacha20 $args"
    # shellcheck disable=SC2086
    head -c 64 /dev/zero | ASAN_OPTIONS=detect_leaks=0 run enc -xchacha20 $args \
        -provider-path "$mods" -provider chacha -provider default 2>&1 >/dev/null |
        grep -E "ERROR: AddressSanitizer|(READ|WRITE) of size|^    #[0-4] |is located|'iv'|iv holds key|Error setting" |
        head -n 12
done
