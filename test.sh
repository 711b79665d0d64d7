#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The full test suite, from a fresh checkout: installs what is missing, builds
# with warnings as errors, runs `make check` (every test once per kernel this
# CPU has), `make check-emu` (the kernel tests on the emulated AVX-512
# kernels) and `make distcheck`, and ends with "N passed, N failed" summed
# over every assertion of every job. Exit status 0 only if all passed.
set -u
cd "$(dirname "$0")"
top=$(pwd)
jobs=${JOBS:-2}
build=$top/_ci
logdir=$build/logs
passed=0
failed=0

t0=$(date +%s)
# each job's header says when it started (seconds into the run): CI's budget
log() { printf '\n=== %s (at %ss)\n' "$*" $(($(date +%s) - t0)); }

# Add the "N passed, N failed" lines found in test logs to the totals.
count_logs() {
    set -- $(cat "$@" 2>/dev/null | sed -n 's/.*: \([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed.*/\1 \2/p' |
        awk '{p += $1; f += $2} END {print p + 0, f + 0}')
    passed=$((passed + $1))
    failed=$((failed + $2))
}

# A job that runs a suite: its "N passed, N failed" lines add to the totals;
# a non-zero exit with no failure counted counts as one failure.
suite() {
    name=$1; shift
    log "$name"
    before=$failed
    "$@" >"$logdir/$name.log" 2>&1
    rc=$?
    grep -E '^(PASS|FAIL|XFAIL|ERROR|SKIP|===)' "$logdir/$name.log"
    count_logs "$logdir/$name.log"
    if [ $rc -ne 0 ]; then
        [ $failed -eq $before ] && failed=$((failed + 1))
        echo "FAIL - $name (exit $rc)"; tail -n 60 "$logdir/$name.log"
    fi
}

# A job that is one check: runs the command, counts one pass or one fail.
job() {
    name=$1; shift
    log "$name"
    if "$@" >"$logdir/$name.log" 2>&1; then
        passed=$((passed + 1)); echo "ok - $name"
    else
        failed=$((failed + 1)); echo "FAIL - $name"; tail -n 40 "$logdir/$name.log"
    fi
}

log "dependencies"
scripts/install-deps test tls harness || { echo "0 passed, 1 failed"; exit 1; }
# cross toolchains, qemu and ARM's libcrypto (this may upgrade the amd64
# OpenSSL packages to the same version: done first, before anything builds)
arm_ok=1
bash .ci/arm-setup.sh >"$top/arm-setup.log" 2>&1 || { arm_ok=0; tail -20 "$top/arm-setup.log"; }
# TLS peers (GnuTLS, nginx, curl) and OpenSSL 3.5 LTS, unpacked, not installed
export OPENSSL35_DIR="${OPENSSL35_DIR:-$HOME/openssl-3.5}"
tls_ok=1
{ bash .ci/tls-deps.sh && bash .ci/tls-deps.sh openssl35 "$OPENSSL35_DIR"; } \
    >"$top/tls-deps.log" 2>&1 || { tls_ok=0; tail -20 "$top/tls-deps.log"; }

log "build"
if [ -f config.status ]; then
    echo "the source tree is configured in place: run 'make distclean' first (builds go to _build/ or _ci/)"
    echo "0 passed, 1 failed"
    exit 1
fi
rm -rf "$build"
mkdir -p "$logdir"
mv "$top/arm-setup.log" "$top/tls-deps.log" "$logdir/" 2>/dev/null
autoreconf -fi >"$logdir/autoreconf.log" 2>&1 &&
    (cd "$build" && ../configure --enable-werror >"$logdir/configure.log" 2>&1 &&
     make -j"$jobs" >"$logdir/make.log" 2>&1)
if [ $? -ne 0 ]; then
    tail -n 40 "$logdir"/*.log
    echo "0 passed, 1 failed"
    exit 1
fi
(cd "$build" && make test/kernel/list_kernels >/dev/null 2>&1) &&
    "$build/test/kernel/list_kernels" | sed 's/^/kernel: /'

log "make check"
(cd "$build" && make -j"$jobs" check >"$logdir/check.log" 2>&1)
check_rc=$?
grep -E '^(PASS|FAIL|SKIP|XFAIL|XPASS|ERROR):' "$logdir/check.log"
# the kernel tests on the emulated AVX-512 kernels (SIMDe), every run
log "make check-emu"
(cd "$build" && make -j"$jobs" check-emu >"$logdir/check-emu.log" 2>&1) || check_rc=1
grep -E '^(PASS|FAIL|SKIP|XFAIL|XPASS|ERROR):' "$logdir/check-emu.log"
count_logs "$build"/test/*/*.log
# a test program that died before printing its summary still counts
nores=$(grep -l -E '^:test-result: (FAIL|ERROR)' "$build"/test/*/*.trs 2>/dev/null | while read -r t; do
    grep -q ' passed, [0-9]* failed' "${t%.trs}.log" || echo x; done | wc -l)
failed=$((failed + nores))
# CI installs every tool the tests need: a skipped test here is a failure
skipped=$(cat "$logdir/check.log" "$logdir/check-emu.log" | grep -c '^SKIP:')
if [ "$skipped" -ne 0 ]; then
    echo "FAIL - $skipped test(s) skipped on the host (tls deps ok: $tls_ok)"
    failed=$((failed + skipped))
fi
if [ $check_rc -ne 0 ]; then
    for f in "$build"/test/*/*.log; do
        grep -q -E '^:test-result: (FAIL|ERROR)' "${f%.log}.trs" 2>/dev/null && { echo "--- $f"; grep -m 20 -E "^FAIL|SEED=" "$f"; tail -n 40 "$f"; }
    done
    [ $nores -eq 0 ] && [ $failed -eq 0 ] && failed=1
fi

job distcheck sh -c "cd '$build' && make -j$jobs distcheck"

# the Debian package, from the release tarball distcheck left, in fresh
# Debian 12 roots: build (mk-build-deps, dpkg-buildpackage), lintian, then
# installed into a second root for debian/tests (.ci/deb-check.sh; root)
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
suite package $sudo env JOBS="$jobs" CHACHA_CACHE="${CHACHA_CACHE:-$HOME/.cache/chacha-provider}" \
    sh .ci/deb-check.sh "$(ls "$build"/chacha-provider-*.tar.gz 2>/dev/null | head -n 1)" "$logdir/package"

# hardening: ASan+UBSan over the whole suite, TSan over the threads test,
# a one-minute differential fuzz against the default provider
suite sanitizers env SAN_BUILD="$build/asan" TSAN_BUILD="$build/tsan" JOBS=$jobs sh test/integration/sanitize.sh
suite fuzz-smoke env FUZZ_BUILD="$build/fuzz" FUZZ_CORPUS="$build/fuzz-corpus" sh fuzz/run-smoke.sh 60
# issue 24: the nginx load soak (2 workers, short TLS 1.3 connections and
# long downloads at once, ours then the default) on the ASan module of the
# sanitizer job, nginx with libasan preloaded: no error, no report naming ours
suite soak-asan env SOAK_ASAN=1 SOAK_SECONDS=45 OPENSSL_MODULES="$build/asan/.libs" \
    srcdir="$top" builddir="$build/asan" bash test/integration/soak_nginx.sh

# OpenSSL's own evp_test, ssl_test and sslapitest against the provider, with their
# negative controls; built once per OpenSSL version into $CHACHA_CACHE (docs/harness.md)
harness_env="LIST_KERNELS=$build/test/kernel/list_kernels CHACHA_MODULES=$build/.libs srcdir=$top HARNESS_BROKEN=$build/harness-broken"
suite harness env $harness_env HARNESS_WORK="$build/harness" sh scripts/openssl-harness.sh ci 3.0
suite harness35 env $harness_env HARNESS_WORK="$build/harness35" sh scripts/openssl-harness.sh ci 3.5
# issue 24: the self-test against the broken-kernel build (the one the harness built)
suite selftest-broken env builddir="$build" srcdir="$top" sh test/integration/selftest-broken.sh "$build/harness-broken"

# the same suite on ARM, cross-built and run under qemu
if [ $arm_ok -eq 1 ]; then
    suite arm-aarch64 sh .ci/arm-check.sh aarch64
    suite arm-armv7 sh .ci/arm-check.sh armv7
else
    failed=$((failed + 1)); echo "FAIL - ARM setup (see arm-setup.log)"
fi

echo
echo "test.sh: $(($(date +%s) - t0)) s in all"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
