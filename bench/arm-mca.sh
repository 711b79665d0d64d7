#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Cycle models of the AArch64 loops: llvm-mca (LLVM 14) on the steady-state
# pass of each ChaCha20, Poly1305 and AEAD loop of ours (the kernels of a
# cross build) and of OpenSSL's (Debian's arm64 libcrypto, stripped: its
# loops are found by structure), as cycles per byte per model, beside the
# instructions per byte of the same pass; then the whole-call instruction
# counts of bench/arm-icount.sh. How: bench/arm_mca.py.
#
# Needs .ci/arm-setup.sh; installs llvm-14 and python3 when missing
# (scripts/install-deps mca). Usage: bench/arm-mca.sh
#   BUILD: an aarch64 cross build to measure (default: this tree, built afresh)
#   MODELS: comma-separated -mcpu names (default: the distinct models below)
#   RUNS: workloads and lengths (default below); QEMU_CPU (default cortex-a72)
#   MODEL_CHECK=0: skip the check of which -mcpu names share a model
#   ICOUNT=0: skip the instruction-count table
#   KEEP=DIR: keep the decoded passes there (KIND-SIDE-HEAD.s, llvm-mca input)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
sh "$top/scripts/install-deps" mca >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ARCH=aarch64
source "$top/bench/arm-common.sh"

# the distinct LLVM 14 models (the group check below shows the aliases)
models=${MODELS:-cortex-a57,cortex-a53,cortex-a55,apple-m1,exynos-m5,thunderx2t99,ampere1}
# ChaCha20: 16 KiB (bulk loops), 1 KiB, and 448 B (OpenSSL's 4+1 pass runs
# for 192..511 bytes only); Poly1305: 16 KiB (OpenSSL's NEON loop) and 112 B
# (below 128 bytes OpenSSL keeps to its scalar loop); AEAD: 16 KiB
runs=${RUNS:-"chacha:16384,1024,448;poly:16384,112;aead:16384"}

objdump=aarch64-linux-gnu-objdump
"$objdump" -d --no-show-raw-insn "$loop" > "$work/self.dis"
crypto=$("${qemu[@]}" "$loop" chacha-ours 64 0 2>&1 >/dev/null | awk '$2 == "libcrypto" { print $4 }')
"$objdump" -d --no-show-raw-insn "$crypto" > "$work/crypto.dis"
echo "# llvm-mca $(llvm-mca-14 --version | awk '/LLVM version/ { print $NF }'), traces from qemu-aarch64 -cpu $cpu; ours: $BUILD; OpenSSL: $crypto ($(dpkg-query -W -f='${Version}' libssl3:arm64 2>/dev/null))"
groups=()
[ "${MODEL_CHECK:-1}" = 0 ] || groups=(--groups)
python3 "$top/bench/arm_mca.py" --qemu "${qemu[*]} -cpu $cpu" --loop "$loop" \
    --dis-self "$work/self.dis" --dis-crypto "$work/crypto.dis" --work "${KEEP:-$work}" \
    --models "$models" --runs "$runs" "${groups[@]}"
if [ "${ICOUNT:-1}" != 0 ]; then
    echo
    BUILD=$BUILD "$top/bench/arm-icount.sh" 64 1024 16384
fi
