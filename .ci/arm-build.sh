#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Cross-configures and builds the provider for ARM in a fresh directory:
# the module, its libraries (.libs/libchachacore.a holds every kernel) and,
# with --tests, the test programs. Shared by .ci/arm-check.sh and the ARM
# benchmarks (bench/arm-icount.sh, bench/arm-mca.sh). Needs .ci/arm-setup.sh.
# Usage: .ci/arm-build.sh aarch64|armv7 BUILD_DIR [--tests] [configure args...]
# Prints the tail of the failing log and exits 1 on failure.
set -u
arch=$1
build=$2
shift 2
tests=0
[ "${1:-}" = --tests ] && { tests=1; shift; }
top=$(cd "$(dirname "$0")/.." && pwd)
S=/opt/armhf-openssl
case $arch in
aarch64) host=aarch64-linux-gnu ;;
armv7) host=arm-linux-gnueabihf ;;
*) echo "usage: $0 aarch64|armv7 BUILD_DIR [--tests] [configure args...]" >&2; exit 2 ;;
esac
[ -x "$top/configure" ] || (cd "$top" && autoreconf -fi >/dev/null 2>&1) ||
    { echo "autoreconf failed" >&2; exit 1; }

rm -rf "$build"
mkdir -p "$build"
cd "$build" || exit 1
if [ "$arch" = armv7 ] && [ -e "$S/usr/lib/arm-linux-gnueabihf/libcrypto.so" ] \
        && ! dpkg-query -W libssl-dev:armhf >/dev/null 2>&1; then
    # the armhf libcrypto (and libsodium) unpacked by arm-setup.sh, not installed
    if [ -e "$S/usr/lib/arm-linux-gnueabihf/libsodium.so" ]; then
        set -- SODIUM_CFLAGS="-I$S/usr/include" \
            SODIUM_LIBS="-L$S/usr/lib/arm-linux-gnueabihf -lsodium" "$@"
    fi
    "$top/configure" --host=$host --enable-werror PKG_CONFIG=/bin/false \
        CRYPTO_CFLAGS="-I$S/usr/include -I$S/usr/include/arm-linux-gnueabihf" \
        CRYPTO_LIBS="-L$S/usr/lib/arm-linux-gnueabihf -lcrypto" \
        --with-modulesdir=/usr/lib/$host/ossl-modules "$@" >configure.log 2>&1
else
    "$top/configure" --host=$host --enable-werror "$@" >configure.log 2>&1
fi || { tail -30 configure.log; exit 1; }
make -j2 >make.log 2>&1 || { tail -30 make.log; exit 1; }
if [ $tests = 1 ]; then
    make -j2 check TESTS= >>make.log 2>&1 || { tail -30 make.log; exit 1; }
fi
exit 0
