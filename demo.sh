#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The main job: install what is missing, build the provider, then show it in
# action next to OpenSSL's default provider -- an `openssl enc` round trip in
# both directions and an `openssl speed` comparison, side by side.
set -eu
cd "$(dirname "$0")"
top=$(pwd)
scripts/install-deps build
[ -x configure ] || autoreconf -fi >/dev/null
mkdir -p _build
cd _build
[ -f Makefile ] || ../configure --quiet
make -j"$(nproc)" >/dev/null
export OPENSSL_MODULES="$PWD/.libs"
ours="-provider chacha -provider default -propquery provider=chacha"

echo "== providers"
openssl list -providers $ours
echo
echo "== openssl enc round trip (1 MiB): encrypt with chacha, decrypt with default"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
head -c 1048576 /dev/urandom >"$tmp/plain"
key=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
iv=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
CHACHA_PROVIDER_DEBUG=1 openssl enc -chacha20 -K "$key" -iv "$iv" \
    -in "$tmp/plain" -out "$tmp/ct.ours" $ours 2>&1 | sort -u
openssl enc -chacha20 -K "$key" -iv "$iv" -in "$tmp/plain" -out "$tmp/ct.default" -provider default
openssl enc -d -chacha20 -K "$key" -iv "$iv" -in "$tmp/ct.ours" -out "$tmp/back" -provider default
cmp "$tmp/ct.ours" "$tmp/ct.default" && echo "ciphertext identical to the default provider's"
cmp "$tmp/back" "$tmp/plain" && echo "default provider decrypts it back to the plaintext"
echo
for alg in chacha20 chacha20-poly1305; do
    echo "== openssl speed -evp $alg: chacha provider vs default provider (1 s per size)"
    # one row per provider, same columns: "type 16 bytes 64 bytes ..."
    fmt='{ printf "%-9s", who; for (i = first; i <= NF; i++) printf " %13s", $i; print "" }'
    openssl speed -seconds 1 -evp $alg $ours 2>/dev/null >"$tmp/s.ours"
    openssl speed -seconds 1 -evp $alg -provider default 2>/dev/null >"$tmp/s.dflt"
    grep '^type' "$tmp/s.ours" | sed 's/ bytes/B/g' | awk -v who=bytes -v first=2 "$fmt"
    grep -i '^chacha' "$tmp/s.ours" | awk -v who=chacha -v first=2 "$fmt"
    grep -i '^chacha' "$tmp/s.dflt" | awk -v who=default -v first=2 "$fmt"
    echo
done
echo "(throughput in 1000s of bytes per second; the machine may be noisy -- see 'make bench' for interleaved, repeated measurements)"
echo "build tree: $top/_build  (OPENSSL_MODULES=$OPENSSL_MODULES)"
