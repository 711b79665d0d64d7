#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The provider through the real `openssl` command line: listing, `enc`
# round trips against the default provider (both directions), `speed`,
# loading through chacha-provider.cnf, and forced kernels.
set -u
: "${OPENSSL:=openssl}"
: "${OPENSSL_MODULES:?OPENSSL_MODULES must point at the built chacha.so}"
: "${srcdir:=.}"
export OPENSSL_MODULES
. "$(dirname "$0")/../lib/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# must "label" command...: a step whose failure counts (its success is not a check)
must() {
    label=$1; shift
    "$@" 2>"$tmp/err" || { bad "$label: exit $?"; sed 's/^/#   /' "$tmp/err"; }
}

ours="-provider chacha -provider default -propquery provider=chacha"
# checks of the kernel choice itself must not inherit a pinned kernel
unpinned="env -u CHACHA_PROVIDER_IMPL -u CHACHA_PROVIDER_POLY1305_IMPL"
dflt="-provider default"
echo "# $($OPENSSL version)"

check "list -providers shows chacha" \
    sh -c "$OPENSSL list -providers $ours | grep -q '^  chacha'"
check "list -cipher-algorithms shows ChaCha20 @ chacha" \
    sh -c "$OPENSSL list -cipher-algorithms $ours | grep -q 'ChaCha20 @ chacha'"
check "list -cipher-algorithms shows ChaCha20-Poly1305 @ chacha" \
    sh -c "$OPENSSL list -cipher-algorithms $ours | grep -q 'ChaCha20-Poly1305 @ chacha'"
for alg in XChaCha20 XChaCha20-Poly1305; do
    check "list -cipher-algorithms shows $alg @ chacha" \
        sh -c "$OPENSSL list -cipher-algorithms $ours | grep -q '^  $alg @ chacha'"
done
check "list -key-managers and -signature-algorithms show POLY1305 @ chacha" \
    sh -c "$OPENSSL list -key-managers $ours | grep -q 'POLY1305 @ chacha' &&
           $OPENSSL list -signature-algorithms $ours | grep -q 'POLY1305 @ chacha'"

# POLY1305 as an EVP_PKEY: dgst -mac poly1305 (keygen from hexkey, then
# EVP_DigestSign) with only our provider and a mandatory provider=chacha,
# equal to the default provider's; the trace shows our signature context
key=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
head -c 1000 /dev/urandom >"$tmp/pt"
CHACHA_PROVIDER_DEBUG=1 $OPENSSL dgst -provider chacha -propquery provider=chacha -mac poly1305 \
    -macopt hexkey:"$key" -r "$tmp/pt" >"$tmp/mac.ours" 2>"$tmp/trace"
$OPENSSL dgst $dflt -mac poly1305 -macopt hexkey:"$key" -r "$tmp/pt" >"$tmp/mac.dflt" 2>&1
check "dgst -mac poly1305, only chacha, propquery provider=chacha: a MAC" \
    grep -q '^[0-9a-f]\{32\} ' "$tmp/mac.ours"
check "dgst -mac poly1305: the same MAC as the default provider" cmp "$tmp/mac.ours" "$tmp/mac.dflt"
check "dgst -mac poly1305: our POLY1305 signature carried it (trace)" \
    grep -q "new POLY1305 signature context" "$tmp/trace"
CHACHA_PROVIDER_DEBUG=1 $OPENSSL dgst $dflt -mac poly1305 -macopt hexkey:"$key" "$tmp/pt" \
    >/dev/null 2>"$tmp/trace"
check "dgst -mac poly1305 -provider default: no context of ours (control)" \
    sh -c "! grep -q 'POLY1305 signature' '$tmp/trace'"

# sizes around block boundaries, and one large file
for n in 0 1 63 64 65 1000 65537 1048583; do
    head -c "$n" /dev/urandom >"$tmp/pt"
    key=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
    iv=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
    rm -f "$tmp/ct.ours" "$tmp/ct.dflt" "$tmp/rt1" "$tmp/rt2"
    must "enc $n bytes with ours" $OPENSSL enc -chacha20 -K "$key" -iv "$iv" -in "$tmp/pt" -out "$tmp/ct.ours" $ours
    must "enc $n bytes with default" $OPENSSL enc -chacha20 -K "$key" -iv "$iv" -in "$tmp/pt" -out "$tmp/ct.dflt" $dflt
    check "enc $n bytes: same ciphertext as default" cmp "$tmp/ct.ours" "$tmp/ct.dflt"
    must "enc -d $n bytes with default" $OPENSSL enc -d -chacha20 -K "$key" -iv "$iv" -in "$tmp/ct.ours" -out "$tmp/rt1" $dflt
    check "enc $n bytes: ours -> default -d round trip" cmp "$tmp/rt1" "$tmp/pt"
    must "enc -d $n bytes with ours" $OPENSSL enc -d -chacha20 -K "$key" -iv "$iv" -in "$tmp/ct.dflt" -out "$tmp/rt2" $ours
    check "enc $n bytes: default -> ours -d round trip" cmp "$tmp/rt2" "$tmp/pt"
done

# password mode (PBKDF2 from the default provider, cipher from ours)
head -c 5000 /dev/urandom >"$tmp/pt"
must "enc -pbkdf2 with ours" $OPENSSL enc -chacha20 -pbkdf2 -pass pass:secret -in "$tmp/pt" -out "$tmp/ct" $ours
must "enc -d -pbkdf2 with default" $OPENSSL enc -d -chacha20 -pbkdf2 -pass pass:secret -in "$tmp/ct" -out "$tmp/rt" $dflt
check "enc -pbkdf2: ours -> default round trip" cmp "$tmp/rt" "$tmp/pt"

# the counter carry: IV counter 0xffffffff, 3 blocks cross into IV bytes 4-7
head -c 192 /dev/zero >"$tmp/z"
key=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
must "enc counter carry with ours" $OPENSSL enc -chacha20 -K $key -iv ffffffff050000000000000000000000 -in "$tmp/z" -out "$tmp/c1" $ours
must "enc counter carry with default" $OPENSSL enc -chacha20 -K $key -iv ffffffff050000000000000000000000 -in "$tmp/z" -out "$tmp/c2" $dflt
check "enc counter carry into IV bytes 4-7 matches default" cmp "$tmp/c1" "$tmp/c2"

# `openssl speed` fetches the -evp cipher when it parses -evp: the provider
# options must come first, else the default provider is measured. Ours must
# carry the run (its trace shows a context of ours), the default-only run
# must not, and the wrong order is the negative control (no context of ours).
speed_run() { # speed_run OUT -evp-and-provider-options...
    out=$1; shift
    CHACHA_PROVIDER_DEBUG=1 $OPENSSL speed -seconds 1 -bytes 1024 "$@" >"$out" 2>&1
}
for alg in "chacha20:ChaCha20:" "chacha20-poly1305:ChaCha20-Poly1305:-aead"; do
    name=${alg%%:*}; rest=${alg#*:}; ctx=${rest%%:*}; aead=${rest#*:}
    # shellcheck disable=SC2086
    speed_run "$tmp/sp.ours" $ours $aead -evp $name
    check "speed ${aead:+$aead }-evp $name (provider options first): a result row" \
        grep -q -i "^$name " "$tmp/sp.ours"
    check "speed ${aead:+$aead }-evp $name (provider options first): our provider carried the run" \
        grep -q "new $ctx context" "$tmp/sp.ours"
    # shellcheck disable=SC2086
    speed_run "$tmp/sp.dflt" $dflt $aead -evp $name
    check "speed ${aead:+$aead }-evp $name -provider default: a result row" grep -q -i "^$name " "$tmp/sp.dflt"
    check "speed ${aead:+$aead }-evp $name -provider default: no context of ours" \
        sh -c "! grep -q 'new $ctx context' '$tmp/sp.dflt'"
    # shellcheck disable=SC2086
    speed_run "$tmp/sp.late" $aead -evp $name $ours
    check "speed ${aead:+$aead }-evp $name with provider options after -evp: default measured (no context of ours)" \
        sh -c "grep -q -i '^$name ' '$tmp/sp.late' && ! grep -q 'new $ctx context' '$tmp/sp.late'"
done

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

# forced kernels: each usable one loads and reports itself; the others fail
if [ -n "${LIST_KERNELS:-}" ]; then
    # shellcheck disable=SC2086
    usable=$(${EMULATOR:-} "$LIST_KERNELS" chacha20)
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
check "config key with an unknown kernel: the load fails with a clear message" \
    grep -q 'implementation "no-such-impl" is unknown' "$tmp/o"

# AVX-512: auto takes the zmm kernels where they run and keep the clock;
# forced by name or in the config they run even where auto would not
if [ -n "${LIST_KERNELS:-}" ] && ${EMULATOR:-} "$LIST_KERNELS" chacha20 | grep -qx avx512; then
    zmm_auto=avx512
    ${EMULATOR:-} "$LIST_KERNELS" poly1305 | grep -qx ifma && zmm_auto="$zmm_auto poly1305=ifma"
    $unpinned CHACHA_PROVIDER_DEBUG=1 $OPENSSL list -providers $ours >"$tmp/o" 2>&1
    check "AVX-512 CPU: auto picks chacha20=$zmm_auto" grep -q "chacha20=$zmm_auto" "$tmp/o"
    $unpinned CHACHA_PROVIDER_DISABLE=zmm CHACHA_PROVIDER_DEBUG=1 \
        $OPENSSL list -providers $ours >"$tmp/o" 2>&1
    check "zmm not preferred (CHACHA_PROVIDER_DISABLE=zmm): auto passes over avx512" \
        sh -c "grep -q 'chacha20=' '$tmp/o' && ! grep -q 'chacha20=avx512' '$tmp/o'"
    check "zmm not preferred: auto passes over ifma and avx512-fused too" \
        sh -c "grep -q 'poly1305=' '$tmp/o' && ! grep -q 'poly1305=ifma' '$tmp/o' && ! grep -q 'aead=avx512-fused' '$tmp/o'"
    $unpinned CHACHA_PROVIDER_DISABLE=zmm CHACHA_PROVIDER_IMPL=avx512 CHACHA_PROVIDER_DEBUG=1 \
        $OPENSSL enc -chacha20 -K "$key" -iv 00000000000000000000000000000000 \
        -in "$tmp/pt" -out "$tmp/ct.zmm" $ours 2>"$tmp/trace"
    check "zmm not preferred: forced avx512 still loads and runs it" grep -q "chacha20=avx512" "$tmp/trace"
    check "zmm not preferred: forced avx512, same bytes" cmp "$tmp/ct.zmm" "$tmp/ct"
    $unpinned CHACHA_PROVIDER_DISABLE=avx512f CHACHA_PROVIDER_IMPL=avx512 \
        $OPENSSL list -providers -provider chacha >"$tmp/o" 2>&1
    check "CHACHA_PROVIDER_DISABLE=avx512f, forced avx512: load fails with a clear message" \
        grep -q 'implementation "avx512" is not supported by this CPU' "$tmp/o"
    if ${EMULATOR:-} "$LIST_KERNELS" poly1305 | grep -qx ifma; then
        sed -e 's/^# impl = auto.*/impl = avx512/' -e 's/^# poly1305_impl = auto.*/poly1305_impl = ifma/' \
            "$srcdir/chacha-provider.cnf" >"$tmp/zmm.cnf"
        $unpinned OPENSSL_CONF="$tmp/zmm.cnf" CHACHA_PROVIDER_HYBRID=on CHACHA_PROVIDER_DEBUG=1 \
            $OPENSSL list -providers >"$tmp/o" 2>&1
        check "config impl = avx512, poly1305_impl = ifma: read back, fused" \
            grep -q "chacha20=avx512 poly1305=ifma aead=avx512-fused" "$tmp/o"
        # the paired passes take the pipes the fused pass's MAC fills
        $unpinned OPENSSL_CONF="$tmp/zmm.cnf" CHACHA_PROVIDER_HYBRID=pairs CHACHA_PROVIDER_DEBUG=1 \
            $OPENSSL list -providers >"$tmp/o" 2>&1
        check "the same with hybrid = pairs: the AEAD in two steps" \
            grep -q "chacha20=avx512 poly1305=ifma aead=two-step" "$tmp/o"
    fi
fi

# Arm's server cores by MIDR_EL1 (the table is built on every architecture):
# ARM_WIDE (auto takes neon_wide) on Neoverse N1, V1, N2, V2, V3, N3;
# ARM_WIDE_MAC (auto takes neon_wide-fused for the AEAD) on all but N1;
# ARM_WIDE_MAC1 (neon_wide1-fused instead) and ARM_SVE_WIDE (ChaCha20
# sve_wide) on V1; ARM_MAC_FWD (Poly1305 neon_wide) and ARM_SVE2_WIDE
# (ChaCha20 sve2_wide) on V2, V3
if [ -n "${LIST_KERNELS:-}" ]; then
    for m in "410fd0c0:armwide" "410fd401:armwide armwidemac armwidemac1 armsvewide" \
             "410fd490:armwide armwidemac" "410fd4f0:armwide armwidemac armmacfwd armsve2wide" \
             "410fd840:armwide armwidemac armmacfwd armsve2wide" "410fd8e0:armwide armwidemac" \
             "410fd080:none" "410fd034:none" "510fd0c0:none"; do
        check "MIDR_EL1 ${m%%:*}: ${m#*:}" \
            test "$(${EMULATOR:-} "$LIST_KERNELS" midr "${m%%:*}")" = "${m#*:}"
    done
    # and the AEAD auto takes there beside neon_wide (where this build has
    # it): on N1 the split MAC, on V1 neon_wide1-fused, on N2, V2, V3, N3
    # neon_wide-fused; none on Cortex-A72, where auto keeps neon
    if ${EMULATOR:-} "$LIST_KERNELS" midr-aead 410fd0c0 >/dev/null 2>&1; then
        for m in "410fd0c0:neon_wide_split-fused" "410fd401:neon_wide1-fused" \
                 "410fd490:neon_wide-fused" "410fd4f0:neon_wide-fused" \
                 "410fd840:neon_wide-fused" "410fd8e0:neon_wide-fused" \
                 "410fd080:two-step"; do
            check "MIDR_EL1 ${m%%:*}: auto's AEAD beside neon_wide is ${m#*:}" \
                test "$(${EMULATOR:-} "$LIST_KERNELS" midr-aead "${m%%:*}")" = "${m#*:}"
        done
    fi
    # the module loads with the registry's auto choice on this CPU (hybrid
    # on: with pairs, the AEAD runs in two steps, checked above)
    auto=$(${EMULATOR:-} "$LIST_KERNELS" auto)
    $unpinned CHACHA_PROVIDER_HYBRID=on CHACHA_PROVIDER_DEBUG=1 $OPENSSL list -providers $ours >"$tmp/o" 2>&1
    check "auto: the module picks what the registry does ($auto)" grep -qF "($auto)" "$tmp/o"
    $unpinned CHACHA_PROVIDER_DEBUG=1 $OPENSSL list -providers $ours >"$tmp/o" 2>&1
    check "auto: the AEAD in two steps where the rule runs pairs, else as the registry picks" \
        sh -c "if grep -q 'hybrid=pairs' '$tmp/o'; then grep -q 'aead=two-step' '$tmp/o';
               else grep -qF '($auto)' '$tmp/o'; fi"
    if ${EMULATOR:-} "$LIST_KERNELS" chacha20 | grep -qx neon_wide; then
        $unpinned CHACHA_PROVIDER_IMPL=neon_wide CHACHA_PROVIDER_POLY1305_IMPL=neon \
            CHACHA_PROVIDER_DEBUG=1 $OPENSSL list -providers $ours >"$tmp/o" 2>&1
        check "forced neon_wide: the AEAD runs its first fused kernel, neon_wide1-fused, on any core" \
            grep -qF "(chacha20=neon_wide poly1305=neon aead=neon_wide1-fused)" "$tmp/o"
        $unpinned CHACHA_PROVIDER_DISABLE=armwidemac CHACHA_PROVIDER_DEBUG=1 \
            $OPENSSL list -providers $ours >"$tmp/o" 2>&1
        check "CHACHA_PROVIDER_DISABLE=armwidemac: auto's AEAD is neither neon_wide fused kernel" \
            sh -c "grep -q 'aead=' '$tmp/o' && ! grep -q 'aead=neon_wide1*-fused' '$tmp/o'"
    fi
    # sve2_wide pairs as sve2 (.pairs_as): its AEAD is sve2-fused
    if ${EMULATOR:-} "$LIST_KERNELS" chacha20 | grep -qx sve2_wide; then
        $unpinned CHACHA_PROVIDER_IMPL=sve2_wide CHACHA_PROVIDER_POLY1305_IMPL=neon \
            CHACHA_PROVIDER_DEBUG=1 $OPENSSL list -providers $ours >"$tmp/o" 2>&1
        check "forced sve2_wide: the AEAD runs sve2-fused" \
            grep -qF "(chacha20=sve2_wide poly1305=neon aead=sve2-fused)" "$tmp/o"
    fi
    # sve_wide pairs as neon_wide: its AEAD is neon_wide1-fused (V1's, as before)
    if ${EMULATOR:-} "$LIST_KERNELS" chacha20 | grep -qx sve_wide; then
        $unpinned CHACHA_PROVIDER_IMPL=sve_wide CHACHA_PROVIDER_POLY1305_IMPL=neon \
            CHACHA_PROVIDER_DEBUG=1 $OPENSSL list -providers $ours >"$tmp/o" 2>&1
        check "forced sve_wide: the AEAD runs neon_wide1-fused" \
            grep -qF "(chacha20=sve_wide poly1305=neon aead=neon_wide1-fused)" "$tmp/o"
    fi
fi

CHACHA_PROVIDER_IMPL=bogus $OPENSSL list -providers -provider chacha >"$tmp/o" 2>&1
check "unknown kernel name: load fails with a clear message" grep -q 'implementation "bogus" is unknown' "$tmp/o"

# loud failures through the configuration file, without CHACHA_PROVIDER_DEBUG
# and with or without config_diagnostics: one line on stderr, and the default
# provider alone is left (OpenSSL itself carries on silently)
# another architecture's kernel: the module's own (uname -m is the host's
# under qemu), from the kernels compiled in
if [ -n "${LIST_KERNELS:-}" ]; then
    # shellcheck disable=SC2086
    kernels=" $(${EMULATOR:-} "$LIST_KERNELS" | awk '{ printf "%s ", $2 }')"
else
    kernels=" $(uname -m) "
fi
case $kernels in
*" ssse3 "*|*" x86_64 "*) foreign=neon ;;
*) foreign=avx2 ;;
esac
for diag in 0 1; do
    for v in "avx3:is unknown" "AVX2:is unknown" "$foreign:is not supported by this CPU"; do
        name=${v%%:*} want=${v#*:}
        sed "s/^# impl = auto.*/impl = $name/" "$srcdir/chacha-provider.cnf" >"$tmp/loud.cnf"
        [ $diag = 1 ] && sed -i 's/^openssl_conf = openssl_init/config_diagnostics = 1\n&/' "$tmp/loud.cnf"
        $unpinned OPENSSL_CONF="$tmp/loud.cnf" $OPENSSL list -providers >"$tmp/o" 2>"$tmp/e"
        check "cnf impl = $name (config_diagnostics=$diag): one stderr line says it $want" \
            sh -c "[ \$(grep -c 'chacha-provider: not loaded' '$tmp/e') -eq 1 ] && grep -q 'implementation \"$name\" $want' '$tmp/e'"
        check "cnf impl = $name (config_diagnostics=$diag): chacha not listed as loaded" \
            sh -c "! grep -q '^  chacha' '$tmp/o'"
    done
done
$unpinned CHACHA_PROVIDER_DISABLE=avx2,sse9 $OPENSSL list -providers -provider chacha >"$tmp/o" 2>&1
check "unknown word in CHACHA_PROVIDER_DISABLE: the load fails with a clear message" \
    grep -q 'CHACHA_PROVIDER_DISABLE names an unknown feature "sse9"' "$tmp/o"
check "unknown word in CHACHA_PROVIDER_DISABLE: chacha not loaded" \
    sh -c "! grep -q '^  chacha' '$tmp/o'"
# the active kernels are in buildinfo (openssl list -providers -verbose)
$unpinned OPENSSL_CONF="$srcdir/chacha-provider.cnf" $OPENSSL list -providers -verbose >"$tmp/o" 2>&1
check "list -providers -verbose: buildinfo names the active kernels" \
    grep -q 'build info: chacha-provider .*(chacha20=[a-z0-9_]* poly1305=[a-z0-9_]* aead=[a-z0-9_-]*)' "$tmp/o"
# the path rule (docs/path-rule.md): read back, forced by cnf and by env
# (env wins), a bad value fails the load with the reason
rule="unset CHACHA_PROVIDER_SCALAR_BLOCKS CHACHA_PROVIDER_HYBRID;"
check "list -providers -verbose: buildinfo has the path rule" \
    grep -q 'scalar-blocks=[0-4] ([a-z ]*) hybrid=\(on\|off\|pairs\) ' "$tmp/o"
sed 's/^\[chacha_sect\]/&\nscalar_blocks = 3\nhybrid = off/' "$srcdir/chacha-provider.cnf" >"$tmp/rule.cnf"
sh -c "$rule $unpinned OPENSSL_CONF='$tmp/rule.cnf' $OPENSSL list -providers -verbose" >"$tmp/o" 2>&1
check "cnf scalar_blocks = 3, hybrid = off: read back as forced" \
    grep -q 'scalar-blocks=3 (forced) hybrid=off (forced)' "$tmp/o"
sh -c "$rule CHACHA_PROVIDER_SCALAR_BLOCKS=0 CHACHA_PROVIDER_HYBRID=on $unpinned \
    OPENSSL_CONF='$tmp/rule.cnf' $OPENSSL list -providers -verbose" >"$tmp/o" 2>&1
check "CHACHA_PROVIDER_SCALAR_BLOCKS=0 wins over the cnf" \
    grep -q 'scalar-blocks=0 (forced) hybrid=o[nf]* (forced)' "$tmp/o"
# pairs: the paired passes where the kernel has them (avx512), else its hybrid
# entry (avx2), else none
sh -c "$rule CHACHA_PROVIDER_HYBRID=pairs $unpinned \
    OPENSSL_CONF='$srcdir/chacha-provider.cnf' $OPENSSL list -providers -verbose" >"$tmp/o" 2>&1
check "CHACHA_PROVIDER_HYBRID=pairs: read back as forced, what the kernel has of it" \
    sh -c "grep -q 'chacha20=avx512 .*hybrid=pairs (forced)' '$tmp/o' ||
           grep -q 'chacha20=avx2 .*hybrid=on (forced)' '$tmp/o' ||
           grep -q 'chacha20=\(ssse3\|portable\|neon[a-z0-9_]*\|sve[a-z0-9_]*\) .*hybrid=off (forced)' '$tmp/o'"
for v in "CHACHA_PROVIDER_SCALAR_BLOCKS=5" "CHACHA_PROVIDER_SCALAR_BLOCKS=one" \
         "CHACHA_PROVIDER_HYBRID=yes"; do
    sh -c "$rule $v $OPENSSL list -providers -provider chacha" >"$tmp/o" 2>&1
    check "$v: the load fails and says why" \
        sh -c "grep -q 'chacha-provider: not loaded: scalar_blocks .* or hybrid .* is not valid' '$tmp/o' &&
               ! grep -q '^  chacha' '$tmp/o'"
done
# with every block on the scalar path, enc still matches the default provider
head -c 300 /dev/urandom >"$tmp/rpt"
sh -c "$rule CHACHA_PROVIDER_SCALAR_BLOCKS=4 CHACHA_PROVIDER_DEBUG=1 $OPENSSL enc -chacha20 \
    -K $key -iv 00000000000000000000000000000000 -in '$tmp/rpt' -out '$tmp/rct' $ours" 2>"$tmp/trace"
$OPENSSL enc -chacha20 -K "$key" -iv 00000000000000000000000000000000 -in "$tmp/rpt" \
    -out "$tmp/rct.dflt" $dflt
check "scalar_blocks=4: enc -chacha20 equals the default provider, and our trace says so" \
    sh -c "cmp -s '$tmp/rct' '$tmp/rct.dflt' && grep -q 'new ChaCha20 context (.*scalar-blocks=4' '$tmp/trace'"

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
