#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The emulated AVX-512 kernels (libasm_avx512_emu, SIMDe) must hold no
# AVX-512 instruction, so that the kernel suites that run them pass on CPUs
# without it: no zmm or opmask register, no xmm/ymm 16-31, no EVEX-only
# instruction of the kernels (vprold, vpternlog, vpmadd52, masked moves).
# Negative control: the same pattern finds them in the native kernels.
: "${builddir:?builddir not set}"
if [ "${AVX512_EMU:-yes}" = no ]; then
    echo "SKIP: the emulated AVX-512 kernels were not built: configure found no SIMDe (install libsimde-dev and configure again)"
    exit 77
fi
OBJDUMP=${OBJDUMP:-objdump}
emu=$builddir/.libs/libasm_avx512_emu.a
native=$builddir/.libs/libasm_avx512.a
native_ifma=$builddir/.libs/libasm_avx512_ifma.a
evex='%zmm|%k[0-7]|%[xy]mm(1[6-9]|2[0-9]|3[01])|vprol|vpternlog|vpmadd52|vmovdqu(8|16|32|64)|vpexpand'
. "$(dirname "$0")/../lib/lib.sh"

count() { "$OBJDUMP" -d --no-show-raw-insn "$1" | grep -cE "$evex"; }

for lib in "$emu" "$native" "$native_ifma"; do
    if [ ! -f "$lib" ]; then
        bad "$lib not built"
        summary avx512_emu_isa
        exit 1
    fi
done
n=$(count "$emu")
insns=$("$OBJDUMP" -d --no-show-raw-insn "$emu" | grep -cE '^ +[0-9a-f]+:')
if [ "$n" -eq 0 ] && [ "$insns" -gt 1000 ]; then
    ok "emulated kernels: $insns instructions, none AVX-512"
else
    bad "emulated kernels: $n AVX-512 instructions among $insns"
    "$OBJDUMP" -d --no-show-raw-insn "$emu" | grep -E "$evex" | head -5
fi
for lib in "$native" "$native_ifma"; do
    n=$(count "$lib")
    if [ "$n" -gt 100 ]; then
        ok "native $(basename "$lib"): $n AVX-512 instructions found (the pattern works)"
    else
        bad "native $(basename "$lib"): only $n AVX-512 instructions found"
    fi
done
if "$OBJDUMP" -d --no-show-raw-insn "$native_ifma" | grep -q vpmadd52; then
    ok "native ifma library uses vpmadd52"
else
    bad "native ifma library has no vpmadd52"
fi
if "$OBJDUMP" -d --no-show-raw-insn "$native" | grep -q vpmadd52; then
    bad "IFMA code in the ChaCha20 library (built without -mavx512ifma)"
else
    ok "no IFMA code in the ChaCha20 library"
fi
summary avx512_emu_isa
