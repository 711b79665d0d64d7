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
# Ends with "layering: N passed, N failed".
set -u
src=${srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
build=${builddir:-.}
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
bad() { fail=$((fail + 1)); echo "FAIL - $*"; }

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
            # in the module) takes its intrinsics from SIMDe through test/
            elif [ "$h" = avx512_emu.h ] && [ -f "test/$h" ] &&
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

# ---- negative controls: both checks catch a planted violation ------------------
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

echo "layering: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
