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
#
# Without them test/integration/tls_gnutls.sh, test/integration/tls_nginx.sh and
# test/integration/tls_openssl35.sh exit 77 (skip).
# The packages are named in scripts/install-deps (job tls): Debian 12's
# nginx-light when the archive has it, else nginx; its service is kept from
# starting so nothing is left listening on port 80.
set -eu
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo

if [ "${1:-}" = openssl35 ]; then
    dir=${2:?usage: $0 openssl35 DIR}
    [ -x "$dir/usr/bin/openssl" ] && { echo "tls-deps: OpenSSL 3.5 already in $dir"; exit 0; }
    src=/etc/apt/sources.list.d/debian.sources
    [ -f "$src" ] || { echo "tls-deps: $src not found (a Debian 12 machine is expected)" >&2; exit 1; }
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    st=$(mktemp -d)
    chmod 755 "$st"
    mkdir -p "$st/lists/partial" "$st/cache/archives/partial"
    sed -e 's/bookworm-updates//; s/bookworm/trixie/g' "$src" >"$st/trixie.sources"
    set -- -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$st" \
        -o Dir::State::Lists="$st/lists" -o Dir::Cache="$st/cache"
    apt-get "$@" update -qq
    (cd "$st" && apt-get "$@" download -qq libssl3t64 libssl-dev openssl libc6 libzstd1 zlib1g)
    for f in "$st"/*.deb; do dpkg -x "$f" "$dir"; done
    rm -rf "$st"
    "$dir/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" --library-path \
        "$dir/usr/lib/x86_64-linux-gnu" "$dir/usr/bin/openssl" version
    exit 0
fi

exec sh "$(dirname "$0")/../scripts/install-deps" tls
