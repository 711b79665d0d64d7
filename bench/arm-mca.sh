#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Cycle models of the AArch64 loops: llvm-mca (LLVM 19) on the steady-state
# pass of each ChaCha20, Poly1305 and AEAD loop of ours (the kernels of a
# cross build) and of OpenSSL's, side by side: 3.0 (Debian 12's arm64
# libcrypto) and 3.5 (Debian 13's libssl3t64:arm64, unpacked by
# `.ci/tls-deps.sh openssl35-arm64`, run with its own glibc), both stripped: their loops
# are found by structure. Cycles per byte per model, beside the instructions
# per byte of the same pass; then ours / OpenSSL per model; then the
# whole-call instruction counts of bench/arm-icount.sh. How: bench/arm_mca.py.
# SVE passes (ours: the sve2 and sve2_wide kernels; sve_wide, SVE only, at
# 256 under -cpu a64fx; OpenSSL 3.5's own) are traced at 128
# and 256-bit vectors (qemu -cpu max,sveN=on; for 3.5 at 256, -cpu a64fx
# at 256 bits, SVE without SVE2, as Neoverse V1) and modelled only on the
# models of cores with SVE of that length (neoverse-v1: 256, SVE only;
# neoverse-n2, -v2: 128, SVE2); SVE2 code on V1's model counts as absent.
#
# Needs .ci/arm-setup.sh; installs llvm-19 and python3 when missing
# (scripts/install-deps mca). Usage: bench/arm-mca.sh
#   BUILD: an aarch64 cross build to measure (default: this tree, built afresh)
#   MODELS: comma-separated -mcpu names (default: the models below)
#   RUNS: workloads and lengths (default below); QEMU_CPU (default cortex-a72)
#   OPENSSL35: where 3.5 is unpacked (default /opt/arm64-openssl-3.5;
#     OPENSSL35=none: no 3.5 column); SVE=0: no SVE sides
#   LLVM_MCA, LLVM_MC (default llvm-mca-19, llvm-mc-19)
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

# LLVM 19's server-core models, with the A57 and A53 of the first ARM
# kernels (the group check below shows which names alias which)
models=${MODELS:-cortex-a57,cortex-a53,neoverse-n1,neoverse-v1,neoverse-v2,neoverse-n2}
export LLVM_MCA=${LLVM_MCA:-llvm-mca-19} LLVM_MC=${LLVM_MC:-llvm-mc-19}
o35=${OPENSSL35:-/opt/arm64-openssl-3.5}
# ChaCha20: 16 KiB (bulk loops), 1 KiB, and 448 B (OpenSSL's 4+1 pass runs
# for 192..511 bytes only); Poly1305: 16 KiB (OpenSSL's NEON loop) and 112 B
# (below 128 bytes OpenSSL keeps to its scalar loop); AEAD: 16 KiB
runs=${RUNS:-"chacha:16384,1024,448;poly:16384,112;aead:16384"}

objdump=aarch64-linux-gnu-objdump
"$objdump" -d --no-show-raw-insn "$loop" > "$work/self.dis"
base_of() { "$@" "$loop" chacha-ours 64 0 2>&1 >/dev/null | awk '$2 == "libcrypto" { print $4 }'; }
crypto=$(base_of "${qemu[@]}")
"$objdump" -d --no-show-raw-insn "$crypto" > "$work/crypto30.dis"
q="${qemu[*]}"
sides=("ours|$work/self.dis|$q -cpu $cpu||0"
       "openssl-3.0|$work/crypto30.dis|$q -cpu $cpu||0")
# the neon_wide kernel (auto picks it only on Neoverse cores), its own side
if CHACHA_PROVIDER_IMPL=neon_wide "${qemu[@]}" -cpu "$cpu" "$loop" chacha-ours 64 0 2>/dev/null >&2; then
    sides+=("ours-neon_wide|$work/self.dis|$q -cpu $cpu|CHACHA_PROVIDER_IMPL=neon_wide|0")
    # its AEADs other than the forced kernel's first fused one (auto's
    # choices: neon_wide-fused on N2/V2/V3/N3, neon_wide_split-fused on N1;
    # and the two steps)
    for f in neon_wide-fused neon_wide_split-fused two-step; do
        sides+=("ours-neon_wide+$f|$work/self.dis|$q -cpu $cpu|CHACHA_PROVIDER_IMPL=neon_wide,CHACHA_BENCH_AEAD=$f|0")
    done
fi
# the other Poly1305 kernels (neon_split: auto's on the Neoverse cores;
# neon_wide: forced only), each its own side
for p in neon_wide neon_split; do
    if CHACHA_PROVIDER_POLY1305_IMPL=$p "${qemu[@]}" -cpu "$cpu" "$loop" poly-ours 64 0 2>/dev/null >&2; then
        sides+=("ours-poly_$p|$work/self.dis|$q -cpu $cpu|CHACHA_PROVIDER_POLY1305_IMPL=$p|0")
    fi
done
sve=${SVE:-1}
if [ "$sve" = 1 ] && ! CHACHA_PROVIDER_IMPL=sve2 "${qemu[@]}" -cpu max "$loop" chacha-ours 64 0 2>/dev/null >&2; then
    echo "# no sve2 kernel in $BUILD: no SVE sides of ours" >&2
    sve=0
fi
if [ "$sve" = 1 ]; then
    for vl in 128 256; do
        sides+=("ours-sve$vl|$work/self.dis|$q -cpu max,sve$vl=on|CHACHA_PROVIDER_IMPL=sve2|$vl")
    done
    # sve2_wide (two scalar blocks a pass; auto takes it on V2 and V3 only,
    # by MIDR, which no qemu core has), at 128 bits; its AEAD is sve2-fused
    if CHACHA_PROVIDER_IMPL=sve2_wide "${qemu[@]}" -cpu max "$loop" chacha-ours 64 0 2>/dev/null >&2; then
        sides+=("ours-sve2_wide128|$work/self.dis|$q -cpu max,sve128=on|CHACHA_PROVIDER_IMPL=sve2_wide|128")
    fi
    # sve_wide (SVE without SVE2; auto on V1 only, by MIDR) as V1 runs it:
    # qemu's A64FX (SVE, no SVE2) at 256 bits
    if CHACHA_PROVIDER_IMPL=sve_wide "${qemu[@]}" -cpu max "$loop" chacha-ours 64 0 2>/dev/null >&2; then
        sides+=("ours-sve_wide256|$work/self.dis|$q -cpu a64fx,sve512=off|CHACHA_PROVIDER_IMPL=sve_wide|256")
    fi
fi
v35=none
if [ "$o35" != none ]; then
    sh "$top/.ci/tls-deps.sh" openssl35-arm64 "$o35" >/dev/null
    # its own loader and glibc, named: under -L, paths missing from $o35
    # (Debian 13's /lib is a symlink of the base-files package) fall back
    # to this machine's arm64 libraries, OpenSSL 3.0's among them
    l35=$o35/usr/lib/aarch64-linux-gnu
    crypto35=$(base_of "${qemu[0]}" -cpu "$cpu" "$l35/ld-linux-aarch64.so.1" --library-path "$l35")
    q35="${qemu[0]} @ $l35/ld-linux-aarch64.so.1 --library-path $l35"
    "$objdump" -d --no-show-raw-insn "$crypto35" > "$work/crypto35.dis"
    v35=$(strings "$crypto35" | sed -n 's/^OpenSSL \(3\.[0-9.]*\) .*/\1/p' | head -1)
    sides+=("openssl-3.5|$work/crypto35.dis|${q35/@/-cpu $cpu}||0")
    # 3.5's SVE code as the cores run it: SVE2 at 128 bits (Neoverse N2, V2:
    # qemu's max), SVE without SVE2 at 256 (V1: qemu's A64FX at 256 bits)
    sides+=("openssl-3.5-sve128|$work/crypto35.dis|${q35/@/-cpu max,sve128=on}||128"
            "openssl-3.5-sve256|$work/crypto35.dis|${q35/@/-cpu a64fx,sve512=off}||256")
fi
echo "# $("$LLVM_MCA" --version | awk '/LLVM version/ { print "llvm-mca " $NF }'), traces from qemu-aarch64 -cpu $cpu (SVE sides: -cpu max,sveN=on); ours: $BUILD; OpenSSL 3.0: $crypto ($(dpkg-query -W -f='${Version}' libssl3:arm64 2>/dev/null)); OpenSSL 3.5: ${crypto35:-none} ($v35)"
groups=()
[ "${MODEL_CHECK:-1}" = 0 ] || groups=(--groups)
side_args=()
for s in "${sides[@]}"; do side_args+=(--side "$s"); done
python3 "$top/bench/arm_mca.py" --loop "$loop" "${side_args[@]}" --work "${KEEP:-$work}" \
    --models "$models" --runs "$runs" "${groups[@]}"
if [ "${ICOUNT:-1}" != 0 ]; then
    echo
    BUILD=$BUILD "$top/bench/arm-icount.sh" 64 1024 16384
fi
