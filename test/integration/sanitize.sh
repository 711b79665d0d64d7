#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Sanitizer jobs, each in its own build directory (never the source tree):
#  1. ASan+UBSan: ./configure --enable-sanitizers, `make check` and `make
#     check-emu` (every test once per kernel, the hardening tests included). The C tests
#     are ASan executables that dlopen the ASan-built module; the `openssl`
#     CLI of test/integration/cli.sh is not, so OPENSSL points at a wrapper that runs it
#     with LD_PRELOAD=libasan (leak checking off for the CLI itself: its
#     own exit-time allocations are not ours).
#  2. TSan: ./configure CC=clang --enable-sanitizers=thread, the module and
#     test_threads, run once per ChaCha20 kernel.
#  3. clang: ./configure CC=clang (no sanitizer, -O2), the kernel tests and
#     test_stack_residue (clang's frames are not gcc's).
# Ends with "sanitize: N passed, N failed" (one per job step).
#
#   test/integration/sanitize.sh (env: SAN_BUILD, TSAN_BUILD, CLANG_BUILD, JOBS, CC)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
jobs=${JOBS:-2}
asan=${SAN_BUILD:-/tmp/chacha-asan-build}
tsan=${TSAN_BUILD:-/tmp/chacha-tsan-build}
: "${CC:=gcc}"
. "$(dirname "$0")/../lib/lib.sh"
step() { # step NAME CMD...: one pass/fail
    name=$1; shift
    echo "=== $name"
    if "$@"; then ok "$name"; else bad "$name"; fi
}

if [ ! -x "$top/configure" ] || [ "$top/configure.ac" -nt "$top/configure" ] \
   || [ "$top/Makefile.am" -nt "$top/Makefile.in" ]; then
    (cd "$top" && autoreconf -fi) || { echo "sanitize: 0 passed, 1 failed"; exit 1; }
fi

# ---- 1. ASan + UBSan -----------------------------------------------------
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
libasan=$($CC -print-file-name=libasan.so)
asan_build() {
    rm -rf "$asan" && mkdir -p "$asan" && cd "$asan" &&
    "$top/configure" -q --enable-sanitizers CC="$CC" >configure.log 2>&1 &&
    make -j"$jobs" >make.log 2>&1 || { tail -n 30 "$asan"/*.log; return 1; }
    # the CLI under the ASan module: preload the runtime into `openssl`
    cat >"$asan/openssl-asan" <<EOF
#!/bin/sh
LD_PRELOAD="$libasan" ASAN_OPTIONS="detect_leaks=0:abort_on_error=1" exec $(command -v openssl) "\$@"
EOF
    chmod +x "$asan/openssl-asan"
}
asan_check() {
    cd "$asan" && { make -j"$jobs" check OPENSSL="$asan/openssl-asan" >check.log 2>&1
    rc=$?
    make -j"$jobs" check-emu OPENSSL="$asan/openssl-asan" >check-emu.log 2>&1 || rc=1; }
    grep -E '^(PASS|FAIL|SKIP|ERROR|XFAIL|XPASS):' check.log check-emu.log
    [ $rc -eq 0 ] || failed_logs 60 test/*/*.log
    return $rc
}
step "asan+ubsan build" asan_build
if [ -x "$asan/.libs/chacha.so" ]; then
    step "asan+ubsan make check" asan_check
fi

# ---- 2. TSan -------------------------------------------------------------
unset ASAN_OPTIONS
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1"
tsan_build() {
    command -v clang >/dev/null 2>&1 || { echo "clang not installed"; return 1; }
    rm -rf "$tsan" && mkdir -p "$tsan" && cd "$tsan" &&
    "$top/configure" -q CC=clang CFLAGS="-g -O1" --enable-sanitizers=thread \
        >configure.log 2>&1 &&
    make -j"$jobs" chacha.la test/kernel/list_kernels test/evp/test_threads >make.log 2>&1 ||
        { tail -n 30 "$tsan"/*.log; return 1; }
}
tsan_run() {
    cd "$tsan" || return 1
    OPENSSL_MODULES="$tsan/.libs" LIST_KERNELS="$tsan/test/kernel/list_kernels" \
        CHACHA_TEST_SECONDS=${CHACHA_TEST_SECONDS:-3} \
        sh "$top/test/lib/run-kernels" test/evp/test_threads >test/evp/test_threads.tsanlog 2>&1
    r=$?
    grep -E '^== run|passed, [0-9]+ failed|WARNING: ThreadSanitizer' test/evp/test_threads.tsanlog
    [ $r -eq 0 ] || grep -A40 'WARNING: ThreadSanitizer' test/evp/test_threads.tsanlog | head -n 80
    return $r
}
step "tsan build" tsan_build
[ -x "$tsan/test/evp/test_threads" ] && step "tsan test_threads" tsan_run

# ---- 3. a plain clang build ----------------------------------------------
# The kernels as clang -O2 compiles them (its own register allocation and
# frames): the kernel tests, and test_stack_residue, which found clang-only
# residue before (stop 33) that no gcc or sanitizer build shows.
clang=${CLANG_BUILD:-$asan-clang}
clang_build() {
    command -v clang >/dev/null 2>&1 || { echo "clang not installed"; return 1; }
    rm -rf "$clang" && mkdir -p "$clang" && cd "$clang" &&
    "$top/configure" -q CC=clang --enable-werror >configure.log 2>&1 &&
    make -j"$jobs" >make.log 2>&1 || { tail -n 30 "$clang"/*.log; return 1; }
}
clang_check() {
    cd "$clang" || return 1
    make -j"$jobs" check TESTS="test/kernel/test_chacha20_kernels test/kernel/test_poly1305_kernels \
        test/kernel/test_aead_fused test/kernel/test_shortpath test/kernel/test_stack_residue" \
        >check.log 2>&1
    rc=$?
    grep -E '^(PASS|FAIL|SKIP|ERROR):' check.log
    grep -h -E '^(chacha20|poly1305|fused) .*\(native\)|: [0-9]+ passed, [0-9]+ failed' test/kernel/*.log
    grep -q '^SKIP:' check.log && { echo "a kernel test skipped in the clang build"; rc=1; }
    [ $rc -eq 0 ] || failed_logs 40 test/kernel/*.log
    return $rc
}
step "clang build" clang_build
[ -x "$clang/.libs/chacha.so" ] && step "clang kernel tests and stack residue" clang_check

summary sanitize
