#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The provider through the real `openssl` command line: listing, `enc`
# round trips against the default provider (both directions), `speed`,
# loading through chacha-provider.cnf, and forced backends.
set -u
: "${OPENSSL:=openssl}"
: "${OPENSSL_MODULES:?OPENSSL_MODULES must point at the built chacha.so}"
: "${srcdir:=.}"
export OPENSSL_MODULES
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); echo "ok - $1"; }
bad() { fail=$((fail + 1)); echo "FAIL - $1"; }
check() { # check "label" command...
    label=$1; shift
    if "$@" >"$tmp/out" 2>&1; then ok "$label"; else bad "$label"; sed 's/^/#   /' "$tmp/out"; fi
}

ours="-provider chacha -provider default -propquery provider=chacha"
# checks of the backend choice itself must not inherit a pinned backend
unpinned="env -u CHACHA_PROVIDER_IMPL -u CHACHA_PROVIDER_POLY1305_IMPL"
dflt="-provider default"
echo "# $($OPENSSL version)"

check "list -providers shows chacha" \
    sh -c "$OPENSSL list -providers $ours | grep -q '^  chacha'"
check "list -cipher-algorithms shows ChaCha20 @ chacha" \
    sh -c "$OPENSSL list -cipher-algorithms $ours | grep -q 'ChaCha20 @ chacha'"
check "list -cipher-algorithms shows ChaCha20-Poly1305 @ chacha" \
    sh -c "$OPENSSL list -cipher-algorithms $ours | grep -q 'ChaCha20-Poly1305 @ chacha'"

# sizes around block boundaries, and one large file
for n in 0 1 63 64 65 1000 65537 1048583; do
    head -c "$n" /dev/urandom >"$tmp/pt"
    key=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
    iv=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
    $OPENSSL enc -chacha20 -K "$key" -iv "$iv" -in "$tmp/pt" -out "$tmp/ct.ours" $ours 2>"$tmp/err" || cat "$tmp/err"
    $OPENSSL enc -chacha20 -K "$key" -iv "$iv" -in "$tmp/pt" -out "$tmp/ct.dflt" $dflt 2>"$tmp/err" || cat "$tmp/err"
    check "enc $n bytes: same ciphertext as default" cmp "$tmp/ct.ours" "$tmp/ct.dflt"
    $OPENSSL enc -d -chacha20 -K "$key" -iv "$iv" -in "$tmp/ct.ours" -out "$tmp/rt1" $dflt 2>"$tmp/err" || cat "$tmp/err"
    check "enc $n bytes: ours -> default -d round trip" cmp "$tmp/rt1" "$tmp/pt"
    $OPENSSL enc -d -chacha20 -K "$key" -iv "$iv" -in "$tmp/ct.dflt" -out "$tmp/rt2" $ours 2>"$tmp/err" || cat "$tmp/err"
    check "enc $n bytes: default -> ours -d round trip" cmp "$tmp/rt2" "$tmp/pt"
done

# password mode (PBKDF2 from the default provider, cipher from ours)
head -c 5000 /dev/urandom >"$tmp/pt"
$OPENSSL enc -chacha20 -pbkdf2 -pass pass:secret -in "$tmp/pt" -out "$tmp/ct" $ours 2>/dev/null
$OPENSSL enc -d -chacha20 -pbkdf2 -pass pass:secret -in "$tmp/ct" -out "$tmp/rt" $dflt 2>/dev/null
check "enc -pbkdf2: ours -> default round trip" cmp "$tmp/rt" "$tmp/pt"

# the counter carry: IV counter 0xffffffff, 3 blocks cross into IV bytes 4-7
head -c 192 /dev/zero >"$tmp/z"
key=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
$OPENSSL enc -chacha20 -K $key -iv ffffffff050000000000000000000000 -in "$tmp/z" -out "$tmp/c1" $ours
$OPENSSL enc -chacha20 -K $key -iv ffffffff050000000000000000000000 -in "$tmp/z" -out "$tmp/c2" $dflt
check "enc counter carry into IV bytes 4-7 matches default" cmp "$tmp/c1" "$tmp/c2"

check "speed -evp chacha20 runs with the provider" \
    sh -c "$OPENSSL speed -seconds 1 -bytes 1024 -evp chacha20 $ours | grep -qi chacha20"

# chacha-provider.cnf: no -provider flags; the debug trace proves ours ran
head -c 3000 /dev/urandom >"$tmp/pt"
key=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
$unpinned OPENSSL_CONF="$srcdir/chacha-provider.cnf" CHACHA_PROVIDER_DEBUG=1 \
    $OPENSSL enc -chacha20 -K "$key" -iv 00000000000000000000000000000000 \
    -in "$tmp/pt" -out "$tmp/ct" 2>"$tmp/trace"
check "chacha-provider.cnf: enc runs on our provider (trace)" \
    grep -q "new ChaCha20 context" "$tmp/trace"
$OPENSSL enc -d -chacha20 -K "$key" -iv 00000000000000000000000000000000 \
    -in "$tmp/ct" -out "$tmp/rt" $dflt
check "chacha-provider.cnf: output decrypts with default" cmp "$tmp/rt" "$tmp/pt"
check "chacha-provider.cnf: both providers active" \
    sh -c "OPENSSL_CONF='$srcdir/chacha-provider.cnf' $OPENSSL list -providers | grep -q '^  chacha' && OPENSSL_CONF='$srcdir/chacha-provider.cnf' $OPENSSL list -providers | grep -q '^  default'"
check "chacha-provider.cnf: SHA-256 still served by default" \
    sh -c "echo x | OPENSSL_CONF='$srcdir/chacha-provider.cnf' $OPENSSL dgst -sha256"

# forced backends: each usable one loads and reports itself; the others fail
if [ -n "${LIST_BACKENDS:-}" ]; then
    # shellcheck disable=SC2086
    usable=$(${EMULATOR:-} "$LIST_BACKENDS" chacha20)
    for c in $usable; do
        CHACHA_PROVIDER_IMPL=$c CHACHA_PROVIDER_DEBUG=1 \
            $OPENSSL enc -chacha20 -K "$key" -iv 00000000000000000000000000000000 \
            -in "$tmp/pt" -out "$tmp/ct.$c" $ours 2>"$tmp/trace"
        check "forced chacha20=$c: loads and runs it" grep -q "chacha20=$c" "$tmp/trace"
        check "forced chacha20=$c: same bytes" cmp "$tmp/ct.$c" "$tmp/ct"
    done
    for c in $usable; do
        [ "$c" = portable ] && continue
        CHACHA_PROVIDER_DISABLE=all CHACHA_PROVIDER_IMPL=$c \
            $OPENSSL list -providers -provider chacha >"$tmp/o" 2>&1
        check "forced chacha20=$c on a CPU without it: load fails with a clear message" \
            grep -q "is not supported by this CPU" "$tmp/o"
    done
fi
$unpinned CHACHA_PROVIDER_DISABLE=all CHACHA_PROVIDER_DEBUG=1 \
    $OPENSSL enc -chacha20 -K "$key" -iv 00000000000000000000000000000000 \
    -in "$tmp/pt" -out "$tmp/ct.nosimd" $ours 2>"$tmp/trace"
check "no SIMD features: auto picks portable" grep -q "chacha20=portable" "$tmp/trace"
check "no SIMD features: same bytes" cmp "$tmp/ct.nosimd" "$tmp/ct"
# the same choice from the provider's config section (impl = ...)
sed 's/^# impl = auto.*/impl = portable/' "$srcdir/chacha-provider.cnf" >"$tmp/portable.cnf"
$unpinned OPENSSL_CONF="$tmp/portable.cnf" CHACHA_PROVIDER_DEBUG=1 \
    $OPENSSL enc -chacha20 -K "$key" -iv 00000000000000000000000000000000 \
    -in "$tmp/pt" -out "$tmp/ct.cnf" 2>"$tmp/trace"
check "config key impl = portable: loads and runs it" grep -q "chacha20=portable" "$tmp/trace"
check "config key impl = portable: same bytes" cmp "$tmp/ct.cnf" "$tmp/ct"
sed 's/^# impl = auto.*/impl = no-such-impl/' "$srcdir/chacha-provider.cnf" >"$tmp/bad.cnf"
$unpinned OPENSSL_CONF="$tmp/bad.cnf" CHACHA_PROVIDER_DEBUG=1 $OPENSSL list -providers >"$tmp/o" 2>&1
check "config key with an unknown backend: the load fails with a clear message" \
    grep -q 'implementation "no-such-impl" is unknown' "$tmp/o"

# AVX-512: auto takes the zmm kernels where they run and keep the clock;
# forced by name or in the config they run even where auto would not
if [ -n "${LIST_BACKENDS:-}" ] && ${EMULATOR:-} "$LIST_BACKENDS" chacha20 | grep -qx avx512; then
    zmm_auto=avx512
    ${EMULATOR:-} "$LIST_BACKENDS" poly1305 | grep -qx ifma && zmm_auto="$zmm_auto poly1305=ifma"
    $unpinned CHACHA_PROVIDER_DEBUG=1 $OPENSSL list -providers $ours >"$tmp/o" 2>&1
    check "AVX-512 CPU: auto picks chacha20=$zmm_auto" grep -q "chacha20=$zmm_auto" "$tmp/o"
    $unpinned CHACHA_PROVIDER_DISABLE=zmm CHACHA_PROVIDER_DEBUG=1 \
        $OPENSSL list -providers $ours >"$tmp/o" 2>&1
    check "zmm not preferred (CHACHA_PROVIDER_DISABLE=zmm): auto passes over avx512" \
        sh -c "grep -q 'chacha20=' '$tmp/o' && ! grep -q 'chacha20=avx512' '$tmp/o'"
    $unpinned CHACHA_PROVIDER_DISABLE=zmm CHACHA_PROVIDER_IMPL=avx512 CHACHA_PROVIDER_DEBUG=1 \
        $OPENSSL enc -chacha20 -K "$key" -iv 00000000000000000000000000000000 \
        -in "$tmp/pt" -out "$tmp/ct.zmm" $ours 2>"$tmp/trace"
    check "zmm not preferred: forced avx512 still loads and runs it" grep -q "chacha20=avx512" "$tmp/trace"
    check "zmm not preferred: forced avx512, same bytes" cmp "$tmp/ct.zmm" "$tmp/ct"
    $unpinned CHACHA_PROVIDER_DISABLE=avx512f CHACHA_PROVIDER_IMPL=avx512 \
        $OPENSSL list -providers -provider chacha >"$tmp/o" 2>&1
    check "CHACHA_PROVIDER_DISABLE=avx512f, forced avx512: load fails with a clear message" \
        grep -q 'implementation "avx512" is not supported by this CPU' "$tmp/o"
    if ${EMULATOR:-} "$LIST_BACKENDS" poly1305 | grep -qx ifma; then
        sed -e 's/^# impl = auto.*/impl = avx512/' -e 's/^# poly1305_impl = auto.*/poly1305_impl = ifma/' \
            "$srcdir/chacha-provider.cnf" >"$tmp/zmm.cnf"
        $unpinned OPENSSL_CONF="$tmp/zmm.cnf" CHACHA_PROVIDER_DEBUG=1 \
            $OPENSSL list -providers >"$tmp/o" 2>&1
        check "config impl = avx512, poly1305_impl = ifma: read back, fused" \
            grep -q "chacha20=avx512 poly1305=ifma aead=avx512-fused" "$tmp/o"
    fi
fi

CHACHA_PROVIDER_IMPL=bogus $OPENSSL list -providers -provider chacha >"$tmp/o" 2>&1
check "unknown backend name: load fails with a clear message" grep -q 'implementation "bogus" is unknown' "$tmp/o"

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
