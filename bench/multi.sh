#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Multi-process rows of `make bench`: `openssl speed -multi 2` (2 processes,
# their throughputs summed) ours vs OpenSSL's default, and ours at 2
# processes over ours at 1 (the provider shares no mutable state between
# processes: on 2 idle cores that is close to 2x). 16 KiB buffers, ChaCha20
# (-evp) and ChaCha20-Poly1305 (-aead -evp). The provider options come
# before -evp and the trace must show contexts of ours, else it stops.
#   bench/multi.sh [CSV]     (env: OPENSSL, OPENSSL_MODULES, SECONDS_PER_RUN)
set -eu
: "${OPENSSL:=openssl}"
: "${OPENSSL_MODULES:?OPENSSL_MODULES must point at the built chacha.so}"
export OPENSSL_MODULES
csv=${1:-}
secs=${SECONDS_PER_RUN:-3}
ours="-provider chacha -provider default -propquery provider=chacha"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# speed WHO NPROC ALG AEAD: prints kB/s at 16384 bytes
speed() {
    who=$1 np=$2 alg=$3 aead=$4
    if [ "$who" = ours ]; then prov=$ours; else prov="-provider default"; fi
    multi=
    [ "$np" -gt 1 ] && multi="-multi $np"
    # shellcheck disable=SC2086
    CHACHA_PROVIDER_DEBUG=1 $OPENSSL speed $multi -seconds "$secs" -bytes 16384 $prov $aead -evp "$alg" \
        >"$tmp/out" 2>"$tmp/err"
    n=$(grep -c 'chacha-provider: new ChaCha20' "$tmp/err" || true)
    if [ "$who" = ours ] && [ "$n" -lt "$np" ]; then
        echo "multi: our provider did not carry the $np-process run of $alg ($n contexts)" >&2
        exit 1
    elif [ "$who" = default ] && [ "$n" -ne 0 ]; then
        echo "multi: the default-only run shows contexts of ours" >&2
        exit 1
    fi
    # -multi prints "evp ... NNNk" (or the cipher name) as the last line with numbers
    grep -i -E "^($alg|evp) " "$tmp/out" | tail -n 1 | awk '{ v = $NF; sub(/k$/, "", v); print v }'
}

echo
echo "Multi-process: openssl speed -multi 2, 16384-byte buffers, ${secs} s (MB/s summed over the processes)"
printf '%-26s %10s %10s %12s %16s %14s\n' "" "ours 1p" "ours 2p" "default 2p" "ours/default 2p" "ours 2p / 1p"
for a in "chacha20:" "chacha20-poly1305:-aead"; do
    alg=${a%%:*} aead=${a#*:}
    o1=$(speed ours 1 "$alg" "$aead")
    o2=$(speed ours 2 "$alg" "$aead")
    d2=$(speed default 2 "$alg" "$aead")
    awk -v n="$alg${aead:+ ($aead)}" -v o1="$o1" -v o2="$o2" -v d2="$d2" 'BEGIN {
        printf "%-26s %10.1f %10.1f %12.1f %15.2fx %13.2fx\n", n, o1 / 1000, o2 / 1000, d2 / 1000, o2 / d2, o2 / o1 }'
    [ -z "$csv" ] || awk -v n="$alg${aead:+ $aead}" -v o1="$o1" -v o2="$o2" -v d2="$d2" 'BEGIN {
        printf "multi-2,\"%s openssl speed -multi 2\",16384,%.1f,%.1f,%.4f,%.4f\n", n, o2 / 1000, d2 / 1000, o2 / d2, o2 / d2
        printf "multi-scaling,\"%s ours 2 processes / 1\",16384,%.1f,%.1f,%.4f,%.4f\n", n, o2 / 1000, o1 / 1000, o2 / o1, o2 / o1 }' >>"$csv"
done
echo "(2 cores: any other load on the machine takes from the 2-process runs)"
