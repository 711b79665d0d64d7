#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The layers only point down (docs/architecture.md):
#   entry    provider/*.c             OSSL_provider_init, algorithm tables
#   dispatch provider/impl/           OpenSSL params, EVP phases, TLS framing
#   core     provider/core/           CPU, registry, streams, AEAD construction
#   kernel   provider/asm/, provider/core/kernel/, core/*_portable.c
# Checked from the sources (what each file includes) and from the built
# objects (which layer defines each symbol a layer uses):
#   - kernels include only the kernel interface (kernel.h, caps.def, util.h,
#     poly1305_r64.h), headers of provider/asm/ and system headers, no OpenSSL;
#   - cores include nothing from impl/ or the entry, and no OpenSSL dispatch
#     header (openssl/core.h, core_dispatch.h, core_names.h, params.h);
#   - dispatch files include nothing of the entry's, nothing by a ../ path;
#   - no object uses a symbol defined by a layer above its own.
# The tests sit beside them (docs/architecture.md, "Tests"):
#   test/lib/          shared helpers: no provider header or symbol
#   test/evp/          EVP black-box: test/lib and their own headers only, no
#                      provider symbol -- but for the white-box files named
#                      in evp_whitebox below
#   test/kernel/       white-box: also core and kernel headers and symbols,
#                      none of the dispatch layer or the entry
#   test/integration/  programs: no provider header
# Ends with "layering: N passed, N failed".
set -u
src=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${builddir:-.}
. "$(dirname "$0")/../lib/lib.sh"

# layer of a source file, by path
layer_of() {
    case $1 in
    provider/asm/*|provider/core/kernel/*|provider/core/*_portable.c) echo 0 ;;
    provider/core/*) echo 1 ;;
    provider/impl/*) echo 2 ;;
    provider/*) echo 3 ;;
    *) echo 9 ;;
    esac
}
name_of() { case $1 in 0) echo kernel ;; 1) echo core ;; 2) echo dispatch ;; 3) echo entry ;; esac; }

# check_includes ROOT: one line per violation in the sources under ROOT
check_includes() (
    cd "$1" || exit 1
    for f in provider/*.c provider/*.h provider/impl/* provider/core/* \
             provider/core/kernel/* provider/asm/*; do
        [ -f "$f" ] || continue
        l=$(layer_of "$f")
        for h in $(sed -n 's/^[ \t]*#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$f"); do
            case $h in
            */*) echo "$f includes \"$h\" by a path (headers are found by layer)"; continue ;;
            esac
            if [ -f "provider/core/kernel/$h" ] || [ -f "provider/asm/$h" ]; then hl=0
            elif [ -f "provider/core/$h" ]; then hl=1
            elif [ -f "provider/impl/$h" ]; then hl=2
            elif [ -f "provider/$h" ]; then hl=3
            elif [ "$h" = config.h ]; then continue
            # the emulated AVX-512 copy (test-only, -DCHACHA_AVX512_EMU, never
            # in the module) takes its intrinsics from SIMDe through test/kernel/
            elif [ "$h" = avx512_emu.h ] && [ -f "test/kernel/$h" ] &&
                 [ "$f" = provider/asm/avx512_isa.h ]; then continue
            else echo "$f includes \"$h\", found in no layer"; continue
            fi
            if [ "$hl" -gt "$l" ]; then
                echo "$f ($(name_of "$l")) includes $h of the $(name_of "$hl") layer above it"
            elif [ "$l" = 0 ] && [ -f "provider/core/kernel/$h" ] &&
                 ! echo " $kernel_api " | grep -q " $h "; then
                echo "$f (kernel) includes $h, not part of the kernel interface"
            fi
        done
        # OpenSSL headers: none in kernels, no dispatch types in cores
        for h in $(sed -n 's/^[ \t]*#[ \t]*include[ \t]*<\(openssl\/[^>]*\)>.*/\1/p' "$f"); do
            case $l:$h in
            0:*) echo "$f (kernel) includes <$h>: kernels use no OpenSSL" ;;
            1:openssl/core.h|1:openssl/core_dispatch.h|1:openssl/core_names.h|1:openssl/params.h)
                echo "$f (core) includes <$h>: cores have no OpenSSL dispatch types" ;;
            esac
        done
    done
)

# check_symbols BUILD: one line per use of a symbol a higher layer defines,
# over the libtool objects (<lib>_la-<source>.o) under BUILD/provider
check_symbols() (
    cd "$1" || exit 1
    defs=$(mktemp) uses=$(mktemp)
    n=0
    for o in $(find provider -name '*_la-*.o' -path '*/.libs/*' 2>/dev/null); do
        base=$(basename "$o" .o)
        dir=$(dirname "$(dirname "$o")")
        f=$dir/${base#*_la-}.c
        l=$(layer_of "$f")
        [ "$l" = 9 ] && continue
        n=$((n + 1))
        nm --defined-only -g "$o" | awk -v l="$l" 'NF == 3 { print $3, l }' >>"$defs"
        nm -u "$o" | awk -v l="$l" -v f="$f" '{ print $NF, l, f }' >>"$uses"
    done
    [ "$n" -gt 0 ] || echo "no objects under $1/provider"
    awk 'NR == FNR { def[$1] = $2; next }
         ($1 in def) && def[$1] > $2 { print $3 " uses " $1 " of a layer above" }' \
        "$defs" "$uses" | sort -u
    rm -f "$defs" "$uses"
)

# ---- the tests -----------------------------------------------------------
# EVP tests that reach into a dispatch file on purpose (the AEAD's nonce limit)
evp_whitebox="test/evp/test_bad_input.c"

# the lowest provider layer a test folder may not reach: 0 = none of it,
# 2 = not the dispatch layer nor the entry; 9 = anything (white-box EVP)
test_limit() {
    case " $evp_whitebox " in *" $1 "*) echo 9; return ;; esac
    case $1 in
    test/kernel/*) echo 2 ;;
    test/*) echo 0 ;;
    esac
}

# check_test_includes ROOT: one line per test source including above its limit
check_test_includes() (
    cd "$1" || exit 1
    for f in test/lib/*.[ch] test/evp/*.[ch] test/kernel/*.[ch] test/integration/*.c; do
        [ -f "$f" ] || continue
        lim=$(test_limit "$f")
        d=$(dirname "$f")
        for h in $(sed -n 's/^[ \t]*#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$f"); do
            case $h in
            */*) echo "$f includes \"$h\" by a path"; continue ;;
            esac
            if [ -f "$d/$h" ]; then continue
            elif [ -f "test/lib/$h" ]; then
                [ "$d" = test/integration ] &&
                    echo "$f includes $h of test/lib: integration programs stand alone"
                continue
            elif [ -f "provider/core/kernel/$h" ] || [ -f "provider/asm/$h" ]; then hl=0
            elif [ -f "provider/core/$h" ]; then hl=1
            elif [ -f "provider/impl/$h" ]; then hl=2
            elif [ -f "provider/$h" ]; then hl=3
            else echo "$f includes \"$h\", found in no layer"; continue
            fi
            [ "$hl" -ge "$lim" ] &&
                echo "$f includes $h of the $(name_of "$hl") layer (not for $d)"
        done
    done
)

# check_test_symbols BUILD: one line per test object using a provider symbol
# of a layer its folder may not reach (layers as the objects under provider/)
check_test_symbols() (
    cd "$1" || exit 1
    defs=$(mktemp)
    for o in $(find provider -name '*_la-*.o' -path '*/.libs/*' 2>/dev/null); do
        base=$(basename "$o" .o)
        l=$(layer_of "$(dirname "$(dirname "$o")")/${base#*_la-}.c")
        [ "$l" = 9 ] && continue
        nm --defined-only -g "$o" | awk -v l="$l" 'NF == 3 { print $3, l }' >>"$defs"
    done
    for o in $(find test -name '*.o' 2>/dev/null); do
        base=$(basename "$o" .o)
        f=$(dirname "$o")/${base#*-}.c
        lim=$(test_limit "$f")
        nm -u "$o" | awk -v lim="$lim" -v f="$f" 'NR == FNR { def[$1] = $2; next }
            ($NF in def) && def[$NF] >= lim { print f " uses " $NF " of a layer it may not reach" }' \
            "$defs" -
    done | sort -u
    rm -f "$defs"
)

kernel_api="kernel.h caps.def util.h poly1305_r64.h"
out=$(check_includes "$src")
if [ -z "$out" ]; then
    ok "includes point down in $(cd "$src" && ls provider/*.[ch] provider/*/*.[ch] provider/core/kernel/*.h | wc -l) sources"
else
    echo "$out" | sed 's/^/# /'; bad "includes point up"
fi
out=$(check_symbols "$build")
if [ -z "$out" ]; then
    ok "no object under provider/ uses a symbol of a layer above its own"
else
    echo "$out" | sed 's/^/# /'; bad "calls point up"
fi

out=$(check_test_includes "$src")
if [ -z "$out" ]; then
    ok "tests: $(cd "$src" && ls test/*/*.[ch] | wc -l) sources include only what their folder may"
else
    echo "$out" | sed 's/^/# /'; bad "tests include what their folder may not"
fi
if [ -z "$(find "$build/test" -name '*.o' 2>/dev/null | head -n 1)" ]; then
    bad "no test objects under $build/test (run from make check)"
else
    out=$(check_test_symbols "$build")
    if [ -z "$out" ]; then
        ok "tests: no object under test/ uses a provider symbol its folder may not reach"
    else
        echo "$out" | sed 's/^/# /'; bad "tests call what their folder may not"
    fi
fi

# ---- negative controls: every check catches a planted violation --------------
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/provider/asm/.libs" "$t/provider/core/kernel" "$t/provider/core/.libs"
printf '#include "registry.h"\n' >"$t/provider/asm/bad.c"
: >"$t/provider/core/registry.h"
out=$(check_includes "$t")
case $out in
*"bad.c (kernel) includes registry.h of the core layer"*)
    ok "negative control: a kernel including a core header is caught" ;;
*) bad "negative control: a kernel including registry.h went unnoticed ($out)" ;;
esac
printf 'unsigned int chacha_cpu_caps(void);\nunsigned int k(void) { return chacha_cpu_caps(); }\n' \
    >"$t/bad.c"
printf 'unsigned int chacha_cpu_caps(void) { return 0; }\n' >"$t/cpu.c"
if ${CC:-cc} -c "$t/bad.c" -o "$t/provider/asm/.libs/libasm_x_la-bad.o" &&
   ${CC:-cc} -c "$t/cpu.c" -o "$t/provider/core/.libs/libchachacore_la-cpu.o"; then
    out=$(check_symbols "$t")
    case $out in
    *"provider/asm/bad.c uses chacha_cpu_caps"*)
        ok "negative control: a kernel calling into the core is caught" ;;
    *) bad "negative control: a kernel calling chacha_cpu_caps went unnoticed ($out)" ;;
    esac
else
    bad "negative control: could not compile the planted objects"
fi
mkdir -p "$t/test/evp" "$t/test/kernel" "$t/provider/impl"
printf '#include "registry.h"\n' >"$t/test/evp/test_bad.c"
printf '#include "prov_ctx.h"\n' >"$t/test/kernel/test_bad.c"
: >"$t/provider/impl/prov_ctx.h"
out=$(check_test_includes "$t")
case $out in
*"test/evp/test_bad.c includes registry.h of the core layer"*"test/kernel/test_bad.c includes prov_ctx.h of the dispatch layer"*)
    ok "negative control: an EVP test including a core header, a kernel test a dispatch one, are caught" ;;
*) bad "negative control: planted test includes went unnoticed ($out)" ;;
esac
printf 'unsigned int chacha_cpu_caps(void);\nint main(void) { return (int)chacha_cpu_caps(); }\n' \
    >"$t/bad.c"
if ${CC:-cc} -c "$t/bad.c" -o "$t/test/evp/test_bad-test_bad.o" &&
   ${CC:-cc} -c "$t/bad.c" -o "$t/test/kernel/test_bad-test_bad.o"; then
    out=$(check_test_symbols "$t")
    case $out in
    *"test/evp/test_bad.c uses chacha_cpu_caps"*)
        case $out in
        *"test/kernel/test_bad.c"*) bad "negative control: a kernel test calling the core is refused ($out)" ;;
        *) ok "negative control: an EVP test calling into the core is caught, a kernel test may" ;;
        esac ;;
    *) bad "negative control: an EVP test calling chacha_cpu_caps went unnoticed ($out)" ;;
    esac
else
    bad "negative control: could not compile the planted test objects"
fi

summary layering
