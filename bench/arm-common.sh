# SPDX-License-Identifier: Apache-2.0
# Sourced (bash) by bench/arm-icount.sh and bench/arm-mca.sh: the toolchain
# and emulator of one ARM architecture, a cross build of the provider, and the
# workload program (bench/arm-loop.c) linked with that build's kernels.
#   in:  top (source tree), work (scratch dir), ARCH = aarch64 (default) | armv7,
#        BUILD = an existing cross build to measure (default: build this tree
#        afresh in _build/arm-bench-$ARCH), QEMU_CPU (default cortex-a72,
#        cortex-a15 for armv7)
#   out: arch, cpu, qemu=(...), loop=$work/loop; arm_trace WHO LEN ITERS LOG runs
#        it under qemu with the instruction and execution log
arch=${ARCH:-aarch64}
case $arch in
aarch64)
    cpu=${QEMU_CPU:-cortex-a72}
    cc=(aarch64-linux-gnu-gcc)
    qemu=(qemu-aarch64 -L /)
    ;;
armv7)
    cpu=${QEMU_CPU:-cortex-a15}
    cc=(arm-linux-gnueabihf-gcc -mfpu=neon)
    # the armhf loader comes from libc6:armhf when installed, else the cross sysroot
    root=/; [ -e /lib/ld-linux-armhf.so.3 ] || root=/usr/arm-linux-gnueabihf
    qemu=(qemu-arm -L "$root")
    # libcrypto from the private sysroot that .ci/arm-setup.sh may have unpacked
    s=/opt/armhf-openssl
    if [ -e "$s/usr/lib/arm-linux-gnueabihf/libcrypto.so" ]; then
        cc+=(-I"$s/usr/include" -I"$s/usr/include/arm-linux-gnueabihf"
             -L"$s/usr/lib/arm-linux-gnueabihf")
        qemu+=(-E "LD_LIBRARY_PATH=$s/usr/lib/arm-linux-gnueabihf")
    fi
    ;;
*) echo "ARCH must be aarch64 or armv7" >&2; exit 2 ;;
esac

if [ -z "${BUILD:-}" ]; then
    BUILD=$top/_build/arm-bench-$arch
    echo "# building $arch in $BUILD" >&2
    sh "$top/.ci/arm-build.sh" "$arch" "$BUILD" >&2 || exit 1
fi
BUILD=$(cd "$BUILD" && pwd)
# the headers of the tree that build was made from
src=$(sed -n 's/^abs_top_srcdir = //p' "$BUILD/Makefile")
"${cc[@]}" -O2 -I"$src/provider/core" -I"$src/provider/core/kernel" \
    -o "$work/loop" "$top/bench/arm-loop.c" "$BUILD/.libs/libchachacore.a" \
    -lcrypto -ldl || exit 1
loop=$work/loop

# arm_trace WHO LEN ITERS LOG: one run, logging every translated block's
# instructions (in_asm) and every block executed (exec; nochain, so that no
# execution hides behind block chaining); the load bases go to LOG.bases.
arm_trace() {
    "${qemu[@]}" -cpu "$cpu" -d in_asm,exec,nochain -D "$4" \
        "$loop" "$1" "$2" "$3" > /dev/null 2> "$4.bases"
}
