#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Dependencies of the TLS integration tests (test/integration/tls_*.sh), idempotent:
#
#   .ci/tls-deps.sh                  install what is missing of gnutls-bin
#                                    (gnutls-cli, gnutls-serv), nginx, curl
#   .ci/tls-deps.sh openssl35 DIR    unpack OpenSSL 3.5 LTS (Debian 13's
#                                    packages) into DIR for test/integration/tls_openssl35.sh;
#                                    nothing is installed, nothing done if
#                                    DIR/usr/bin/openssl exists
#   .ci/tls-deps.sh openssl35-arm64 DIR   the same for arm64's libcrypto
#                                    (bench/arm-mca.sh's OpenSSL 3.5 column)
#
# Without them test/integration/tls_gnutls.sh, test/integration/tls_nginx.sh and
# test/integration/tls_openssl35.sh exit 77 (skip).
# The packages are named in scripts/install-deps (job tls): Debian 12's
# nginx-light when the archive has it, else nginx; its service is kept from
# starting so nothing is left listening on port 80.
set -eu
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo

# trixie DIR PKG...: Debian 13's PKGs unpacked into DIR (nothing installed)
trixie() {
    dir=$1
    shift
    src=/etc/apt/sources.list.d/debian.sources
    [ -f "$src" ] || { echo "tls-deps: $src not found (a Debian 12 machine is expected)" >&2; exit 1; }
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    st=$(mktemp -d)
    chmod 755 "$st"
    mkdir -p "$st/lists/partial" "$st/cache/archives/partial"
    sed -e 's/bookworm-updates//; s/bookworm/trixie/g' "$src" >"$st/trixie.sources"
    o="-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=$st
       -o Dir::State::Lists=$st/lists -o Dir::Cache=$st/cache"
    # shellcheck disable=SC2086
    apt-get $o update -qq
    # shellcheck disable=SC2086
    (cd "$st" && apt-get $o download -qq "$@")
    for f in "$st"/*.deb; do dpkg -x "$f" "$dir"; done
    rm -rf "$st"
}

if [ "${1:-}" = openssl35 ]; then
    dir=${2:?usage: $0 openssl35 DIR}
    [ -x "$dir/usr/bin/openssl" ] && { echo "tls-deps: OpenSSL 3.5 already in $dir"; exit 0; }
    trixie "$dir" libssl3t64 libssl-dev openssl libc6 libzstd1 zlib1g
    "$dir/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" --library-path \
        "$dir/usr/lib/x86_64-linux-gnu" "$dir/usr/bin/openssl" version
    exit 0
fi
# the arm64 libcrypto of 3.5 with its glibc (bench/arm-mca.sh); run a program
# with its loader: L=DIR/usr/lib/aarch64-linux-gnu;
#   qemu-aarch64 $L/ld-linux-aarch64.so.1 --library-path $L ./prog
# (not qemu-aarch64 -L DIR: paths DIR lacks fall back to this machine's arm64
# libraries, OpenSSL 3.0's among them). Needs the arm64 dpkg architecture.
if [ "${1:-}" = openssl35-arm64 ]; then
    dir=${2:?usage: $0 openssl35-arm64 DIR}
    [ -e "$dir/usr/lib/aarch64-linux-gnu/libcrypto.so.3" ] && exit 0
    trixie "$dir" libssl3t64:arm64 libc6:arm64 libzstd1:arm64 zlib1g:arm64
    exit 0
fi

exec sh "$(dirname "$0")/../scripts/install-deps" tls
