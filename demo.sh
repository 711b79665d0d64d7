#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The main job: install what is missing, build the provider, then show it in
# action next to OpenSSL's default provider -- an `openssl enc` round trip in
# both directions and an `openssl speed` comparison, side by side with the
# ratio, our active kernels and the CPU path OpenSSL's own code takes.
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
kernels=$(CHACHA_PROVIDER_DEBUG=1 openssl list -providers $ours 2>&1 >/dev/null |
    sed -n 's/.*chacha-provider: loaded [^,]*, //p' | head -n 1)
echo "our active kernels: ${kernels:-unknown (no trace)}"
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
# OpenSSL's own CPU path: the capability vector its asm dispatches on
# (leaf 7 EBX: bit 5 AVX2, 16 AVX512F, 21 IFMA, 31 AVX512VL)
cpuinfo=$(openssl speed -seconds 1 -bytes 16 -evp chacha20 -provider default 2>/dev/null | sed -n 's/^CPUINFO: //p')
ossl_path=
case $cpuinfo in OPENSSL_ia32cap=0x*:0x*)
    w2=${cpuinfo##*:}
    if [ $((w2 & (1 << 16))) -ne 0 ]; then
        ossl_path="AVX-512 (ChaCha20 avx512 paths"
        [ $((w2 & ((1 << 31) | (1 << 21)))) -eq $(((1 << 31) | (1 << 21))) ] &&
            ossl_path="$ossl_path, Poly1305 IFMA base 2^44)" || ossl_path="$ossl_path, Poly1305 avx512)"
    elif [ $((w2 & (1 << 5))) -ne 0 ]; then ossl_path="AVX2"
    else ossl_path="SSSE3 or scalar"; fi ;;
esac
asm_uses=
[ -n "$ossl_path" ] && asm_uses=" -> OpenSSL's asm uses $ossl_path"
echo "== OpenSSL's CPU path: ${cpuinfo:-unknown}$asm_uses"
[ -n "${OPENSSL_ia32cap:-}" ] && echo "   (OPENSSL_ia32cap=$OPENSSL_ia32cap is set in this shell)"
echo

# `openssl speed` fetches the -evp cipher as it parses it: the provider
# options go first, else the default provider is measured. The trace shows
# which provider carried the run.
slower=
for alg in chacha20 chacha20-poly1305; do
    aead=; ctx=ChaCha20
    [ $alg = chacha20-poly1305 ] && { aead=-aead; ctx=ChaCha20-Poly1305; }
    echo "== openssl speed $aead${aead:+ }-evp $alg: ours vs OpenSSL's default (1 s per size, MB/s)"
    CHACHA_PROVIDER_DEBUG=1 openssl speed -seconds 1 $ours $aead -evp $alg >"$tmp/s.ours" 2>"$tmp/s.trace"
    openssl speed -seconds 1 -provider default $aead -evp $alg >"$tmp/s.dflt" 2>/dev/null
    if ! grep -q "new $ctx context" "$tmp/s.trace"; then
        echo "ERROR: our provider did not carry the run (no context of ours in the trace)"; exit 1
    fi
    grep -i "^$alg " "$tmp/s.ours" | sed 's/^/ours /' >"$tmp/rows"
    grep -i "^$alg " "$tmp/s.dflt" | sed 's/^/default /' >>"$tmp/rows"
    sizes=$(grep '^type' "$tmp/s.ours" | sed 's/^type *//; s/ bytes//g')
    awk -v sizes="$sizes" -v alg="$alg" -v out="$tmp/slower" '
        { who = $1; for (i = 3; i <= NF; i++) { v = $i; sub(/k$/, "", v); mb[who, i - 2] = v / 1000 } n = NF - 2 }
        END {
            split(sizes, sz, " ")
            printf "%-8s", "bytes"; for (i = 1; i <= n; i++) printf " %9s", sz[i]; print ""
            printf "%-8s", "ours"; for (i = 1; i <= n; i++) printf " %9.1f", mb["ours", i]; print ""
            printf "%-8s", "default"; for (i = 1; i <= n; i++) printf " %9.1f", mb["default", i]; print ""
            printf "%-8s", "ratio"; for (i = 1; i <= n; i++) {
                r = mb["default", i] > 0 ? mb["ours", i] / mb["default", i] : 0
                printf " %8.2fx", r
                if (r < 1) printf "  %s at %s bytes: %.2fx\n", alg, sz[i], r >> out
            }
            print ""
        }' "$tmp/rows"
    echo "   trace: $(grep -m1 "new $ctx context" "$tmp/s.trace" | sed 's/.*chacha-provider: //')"
    echo
done
echo "(ratio = ours / default; above 1.00x ours is faster. One 1-second run per cell on a"
echo " possibly busy machine: +-10% is noise. 'make bench' interleaves, repeats and charts.)"
if [ -s "$tmp/slower" ]; then
    echo "Where ours is SLOWER than OpenSSL's default provider on this machine:"
    cat "$tmp/slower"
    case $ossl_path:$kernels in
    AVX-512*:*avx512*) ;;
    AVX-512*)
        echo "  (OpenSSL runs AVX-512 code here, ours does not: $kernels; see CHACHA_PROVIDER_DISABLE and impl in the README)" ;;
    esac
else
    echo "Ours was not slower than the default provider at any size in this run."
fi
echo
echo "build tree: $top/_build  (OPENSSL_MODULES=$OPENSSL_MODULES)"
