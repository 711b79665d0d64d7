#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Cross-builds the provider and its tests for ARM and runs the whole `make
# check` suite under qemu-user with ARM's own libcrypto and `openssl`, once
# per pinned configuration:
#   aarch64: NEON on -cpu cortex-a53, NEON on -cpu max (both with the NEON
#            Poly1305 and the fused AEAD kernel), neon_wide ChaCha20 and
#            Poly1305 on -cpu max, portable ChaCha20 and
#            Poly1305 on -cpu max, SVE2 ChaCha20 on -cpu max with 128, 256
#            and 512-bit vectors, sve2_wide with 128, sve_wide (SVE
#            only) on -cpu a64fx, and NEON on -cpu max built with UBSan
#   armv7:   NEON on -cpu cortex-a7, portable on -cpu cortex-r5f (no NEON)
# Needs .ci/arm-setup.sh first. Usage: .ci/arm-check.sh aarch64|armv7
# The large random tests run fewer iterations under emulation; every vector
# set runs in full. The allocation sweep (run once on x86-64 too) runs in the
# first configuration of each architecture and in the UBSan build; the
# kernel-level tests (every kernel, whatever is pinned) once per qemu CPU.
set -u
arch=$1
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/test/lib/lib.sh"     # failed_logs
build=$top/_ci/$arch
S=/opt/armhf-openssl
case $arch in
aarch64)
    emu="qemu-aarch64 -L /"
    cli=/opt/arm64-openssl/usr/bin/openssl
    set -- "neon cortex-a53" "neon max" "neon_wide max" "portable max"
    # the SVE2 kernel at 128, 256 and 512-bit vectors (vector-length agnostic
    # code: each length its own pass size and shuffle network)
    # (a build without it fails them: the kernel is forced)
    set -- "$@" "sve2 max,sve128=on" "sve2 max,sve256=on" "sve2 max,sve512=on"
    # sve2_wide (two scalar blocks a pass) at 128 bits, the vectors of the
    # cores auto gives it (V2, V3); the kernel-level tests of the sve2 runs
    # above take it at 256 and 512 bits too (they run every kernel)
    set -- "$@" "sve2_wide max,sve128=on"
    # sve_wide (SVE without SVE2, auto on Neoverse V1) on qemu's A64FX, a
    # core with SVE (512-bit) and no SVE2: an SVE2 instruction would trap
    set -- "$@" "sve_wide a64fx"
    ;;
armv7)
    # the loader of the glibc the libraries run with: the armhf glibc's where
    # libssl-dev:armhf brought it, else the cross toolchain's (a loader of
    # another glibc build crashes fork and threads); libcrypto from the
    # private sysroot where arm-setup.sh unpacked it there
    # (the same test as bench/arm-common.sh: libc6:armhf ships /lib's loader)
    root=/; [ -e /lib/ld-linux-armhf.so.3 ] || root=/usr/arm-linux-gnueabihf
    emu="qemu-arm -L $root -E LD_LIBRARY_PATH=$S/usr/lib/arm-linux-gnueabihf"
    cli=$S/usr/bin/openssl
    set -- "neon cortex-a7" "portable cortex-r5f"
    ;;
*)
    echo "usage: $0 aarch64|armv7" >&2
    exit 2
    ;;
esac

sh "$top/.ci/arm-build.sh" $arch "$build" --tests ||
    { echo "$arch build: 0 passed, 1 failed"; exit 1; }
cd "$build" || exit 1
grep -E 'NEON' configure.log | tail -1
$emu ./test/kernel/list_kernels

# auto's choice on the cores qemu names by MIDR_EL1 (the runs below force
# their kernel): Neoverse N1 takes neon_wide, the Poly1305 neon_split and,
# without ARM_WIDE_MAC, the AEAD neon_wide_split-fused (the MAC split
# between the passes and the NEON loop); the A72 neon and neon-fused; max (SVE2, no Neoverse
# MIDR) sve2 and sve2-fused; A64FX (SVE, not SVE2; Fujitsu's MIDR) neon
if [ "$arch" = aarch64 ]; then
    ok=0 bad=0
    for want in "neoverse-n1:chacha20=neon_wide poly1305=neon_split aead=neon_wide_split-fused" \
                "cortex-a72:chacha20=neon poly1305=neon aead=neon-fused" \
                "cortex-a53:chacha20=neon poly1305=neon aead=neon-fused" \
                "max:chacha20=sve2 poly1305=neon aead=sve2-fused" \
                "a64fx:chacha20=neon poly1305=neon aead=neon-fused"; do
        got=$($emu -cpu "${want%%:*}" ./test/kernel/list_kernels auto)
        if [ "$got" = "${want#*:}" ]; then
            ok=$((ok + 1))
        else
            bad=$((bad + 1))
            echo "FAIL: auto on -cpu ${want%%:*}: $got, want ${want#*:}"
        fi
    done
    echo "$arch auto selection by core: $ok passed, $bad failed"
    [ "$bad" = 0 ] || rc_auto=1
fi

# The run-once tests (EVP_ONCE_TESTS: the allocation sweep, ~2,800 forked
# sessions, 96 s under qemu, no kernel-dependent allocation) run in the
# first configuration and the UBSan build, as `make check` runs them once on
# x86-64; the later runs take the rest of the list.
# The kernel-level tests (KERNEL_TESTS: every kernel of the build, whatever
# is pinned) run once per qemu CPU: a later run on the same -cpu takes the
# rest of its list.
lists=$(printf 'print-tests:\n\t@echo $(TESTS)\n\t@echo $(EVP_ONCE_TESTS)\n\t@echo $(KERNEL_TESTS)\n' |
    make -s -f Makefile -f - print-tests)
all_tests=$(echo "$lists" | sed -n 1p)
once_tests=$(echo "$lists" | sed -n 2p)
kernel_tests=$(echo "$lists" | sed -n 3p)
# without_tests LIST EXCLUDED: LIST without the tests in EXCLUDED
without_tests() {
    _kept=
    for _t in $1; do
        case " $2 " in *" $_t "*) ;; *) _kept="$_kept $_t" ;; esac
    done
    echo $_kept
}
[ -n "$all_tests" ] && [ -n "$once_tests" ] && [ -n "$kernel_tests" ] ||
    { echo "$arch: cannot read the test lists from the Makefile: 0 passed, 1 failed"; exit 1; }
first=1
cpus_seen=

rc=0
for run in "$@"; do
    impl=${run% *}
    cpu=${run#* }
    echo "=== $arch: chacha20=$impl, qemu -cpu $cpu"
    if [ -x "$cli" ] || [ -x "${cli%/openssl}/openssl" ]; then
        openssl_cmd="$emu $cli"
    else
        openssl_cmd=false      # no ARM CLI: cli.sh reports its checks failing
    fi
    rm -f test/*/*.log test/*/*.trs test-suite.log
    # the portable run pins both primitives: every kernel of the build runs;
    # the neon_wide run takes the Poly1305 neon_wide too (auto's pair on
    # Neoverse V2/V3, which no qemu core is)
    poly=auto; [ "$impl" = portable ] && poly=portable
    [ "$impl" = neon_wide ] && poly=neon_wide
    tests=$all_tests
    [ "$first" = 1 ] || tests=$(without_tests "$tests" "$once_tests")
    case " $cpus_seen " in
    *" $cpu "*) tests=$(without_tests "$tests" "$kernel_tests")
                echo "(the kernel-level tests ran on -cpu $cpu above)" ;;
    esac
    first=0
    cpus_seen="$cpus_seen $cpu"
    make -j"${JOBS:-2}" check TESTS="$tests" EMULATOR="$emu" QEMU_CPU=$cpu CHACHA_PROVIDER_IMPL=$impl \
        CHACHA_PROVIDER_POLY1305_IMPL=$poly \
        OPENSSL="$openssl_cmd" CHACHA_TEST_ITERATIONS=300 >"check-$impl-$cpu.log" 2>&1 || rc=1
    grep -E '^(PASS|FAIL|ERROR|SKIP):' "check-$impl-$cpu.log"
    for f in test/*/*.log; do
        grep -H -E '(# kernel:|: [0-9]+ passed, [0-9]+ failed|^[0-9]+ passed, [0-9]+ failed)' "$f" |
            sed "s|^test/|  $arch/$impl/$cpu: |"
    done
    failed_logs 40 test/*/*.log
done

# UBSan under emulation (aarch64): every undefined behaviour aborts the test
if [ "$arch" = aarch64 ]; then
    ub=$top/_ci/$arch-ubsan
    echo "=== $arch: chacha20=neon, qemu -cpu max, UBSan build"
    if sh "$top/.ci/arm-build.sh" $arch "$ub" --tests \
            CFLAGS="-O1 -g -fsanitize=undefined -fno-sanitize-recover=undefined -DCHACHA_TEST_INSTRUMENTED_FRAMES" \
            LDFLAGS="-fsanitize=undefined"; then
        cd "$ub" || exit 1
        rm -f test/*/*.log test/*/*.trs
        make -j"${JOBS:-2}" check EMULATOR="$emu" QEMU_CPU=max CHACHA_PROVIDER_IMPL=neon \
            OPENSSL="$emu $cli" CHACHA_TEST_ITERATIONS=300 >check-ubsan.log 2>&1 || rc=1
        grep -E '^(PASS|FAIL|ERROR|SKIP):' check-ubsan.log
        for f in test/*/*.log; do
            grep -H -E ': [0-9]+ passed, [0-9]+ failed|^[0-9]+ passed, [0-9]+ failed' "$f" |
                sed "s|^test/|  $arch/ubsan: |"
            grep -H 'runtime error' "$f" && rc=1
        done
    else
        echo "$arch ubsan build: 0 passed, 1 failed"
        rc=1
    fi
fi
exit $((rc | ${rc_auto:-0}))
