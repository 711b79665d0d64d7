#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Dynamic instruction counts on ARM under qemu-user: our kernels (the cores of
# a cross build, as the registry picks them) against OpenSSL's own ARM code
# (EVP, default provider, ARM's libcrypto), as instructions per byte of one
# whole call at several lengths. Timings under qemu mean nothing; executed
# instructions are a fair proxy between two codes (bench/arm-mca.sh adds a
# cycle model of their loops).
#
# Method: bench/arm-loop.c runs one call `iters` times; awk sums the
# instructions of the executed blocks from qemu's log (arm_trace in
# bench/arm-common.sh). The same run with iters = 0 is the baseline (loader,
# OpenSSL init); (count(iters) - count(0)) / (iters * len) is instructions per
# byte, including per-call overhead (for OpenSSL: EVP's).
#
# Needs .ci/arm-setup.sh first. Usage: bench/arm-icount.sh [lengths...]
#   ARCH=aarch64 (default) or armv7; QEMU_CPU: emulated core (default
#   cortex-a72, cortex-a15 for armv7); ITERS: calls per measured run
#   (default 8); BUILD: a cross build to measure (default: this tree, built
#   afresh); CHACHA_PROVIDER_IMPL / CHACHA_PROVIDER_POLY1305_IMPL: kernels.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
lens=("$@")
[ "${#lens[@]}" -eq 0 ] && lens=(64 1024 16384)
iters=${ITERS:-8}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$top/bench/arm-common.sh"
whos=(chacha-ours chacha-openssl poly-ours poly-openssl aead-ours aead-openssl)

# Executed instructions of one run: in_asm gives each block's size at
# translation (a block may be translated again: the newest size wins), exec
# lines name the block run.
count() {
    arm_trace "$1" "$2" "$3" "$work/log"
    awk '
        function norm(h) { sub(/^0x/, "", h); sub(/^0+/, "", h); return h }
        /^IN:/ { inblk = 1; pc = ""; n = 0; next }
        inblk && /^0x[0-9a-f]+:/ {
            if (pc == "") pc = norm(substr($1, 1, length($1) - 1))
            n++; next
        }
        inblk { if (pc != "") size[pc] = n; inblk = 0 }
        /^Trace / { split($0, f, /[\[\/]/); total += size[norm(f[3])] }
        END { printf "%d\n", total }
    ' "$work/log"
}

printf '# %s -cpu %s, %s iterations, executed instructions per byte\n' \
    "${qemu[0]}" "$cpu" "$iters"
printf '%-8s' "bytes"; printf ' %14s' "${whos[@]}"; printf '\n'
for len in "${lens[@]}"; do
    row=()
    for who in "${whos[@]}"; do
        base=$(count "$who" "$len" 0)
        full=$(count "$who" "$len" "$iters")
        row+=("$(awk -v a="$full" -v b="$base" -v n="$((iters * len))" \
            'BEGIN { printf "%.3f", (a - b) / n }')")
    done
    printf '%-8s' "$len"; printf ' %14s' "${row[@]}"; printf '\n'
done
