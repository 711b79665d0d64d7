#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The self-test against a really wrong kernel: the --enable-test-broken-kernel
# build (one key bit flipped where every kernel takes its key).
#   1. the load is refused, on every ChaCha20 kernel this CPU runs, with a
#      message naming the kernel and the vector (stderr and the error queue);
#   2. CHACHA_TEST_BROKEN_KERNEL=after-load: the build loads clean, the kernel
#      turns wrong after the load, OSSL_PROVIDER_self_test returns 0, status
#      reads 0 and every fetch and operation fails (test_selftest
#      --broken-after-load);
#   3. negative control: the same test against the real build must fail.
# Usage: selftest-broken.sh BROKEN_BUILD_DIR (built here if it has no module);
# env builddir (the normal build: test/evp/test_selftest, test/kernel/list_kernels,
# .libs), srcdir. Ends with "selftest-broken: N passed, N failed".
set -u
bb=${1:?usage: $0 BROKEN_BUILD_DIR}
src=${srcdir:?srcdir}
build=${builddir:?builddir}
OPENSSL=${OPENSSL:-openssl}
. "$(dirname "$0")/../lib/lib.sh"
finish() { summary selftest-broken; exit; }
# the last line of a test's output, reworded: test.sh adds up every
# "N passed, N failed" line of this log, and only ours must count
reword() { tail -n 1 "$1" | sed 's/ passed, / ok, /; s/ failed$/ not ok/'; }

if [ ! -f "$bb/.libs/chacha.so" ]; then
    mkdir -p "$bb"
    if ! ( cd "$bb" && { [ -f Makefile ] || "$src/configure" --enable-test-broken-kernel; } &&
           make chacha.la ) >"$bb/selftest-broken-build.log" 2>&1; then
        tail -n 20 "$bb/selftest-broken-build.log"
        bad "the --enable-test-broken-kernel build failed"
        finish
    fi
fi
bb=$(cd "$bb" && pwd)
grep -q -- '-DCHACHA_TEST_BROKEN_KERNEL' "$bb/Makefile" ||
    { bad "$bb is not an --enable-test-broken-kernel build"; finish; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# 1. refused at load, per kernel, naming kernel and vector
for impl in $("$build/test/kernel/list_kernels" chacha20); do
    if CHACHA_PROVIDER_IMPL=$impl "$OPENSSL" list -providers -provider-path "$bb/.libs" \
        -provider chacha >"$out" 2>&1; then
        bad "chacha20=$impl: the broken build loaded"
    elif grep -q "chacha-provider: not loaded: self-test at load failed: kernel chacha20=$impl, vector \"RFC 8439 2.4.2 ChaCha20\"" "$out" &&
         grep -q "self-test at load failed: kernel chacha20=$impl" "$out"; then
        ok "chacha20=$impl: load refused: $(grep -m1 'not loaded' "$out")"
    else
        bad "chacha20=$impl: refused without the kernel and vector named"; cat "$out"
    fi
done

# 2. wrong after a clean load: the on-demand self-test finds it
if CHACHA_TEST_BROKEN_KERNEL=after-load CHACHA_SELFTEST_MODULES="$bb/.libs" \
    "$build/test/evp/test_selftest" --broken-after-load >"$out" 2>&1; then
    ok "after-load: $(reword "$out")"
else
    bad "after-load: test_selftest --broken-after-load"; sed 's/ passed, / ok, /' "$out"
fi
grep -E 'error state|error:' "$out" | head -n 3

# 3. negative control: against the real build that test must fail
if CHACHA_SELFTEST_MODULES="$build/.libs" "$build/test/evp/test_selftest" \
    --broken-after-load >"$out" 2>&1; then
    bad "control: test_selftest --broken-after-load passed on the real build"
else
    ok "control: on the real build --broken-after-load fails as it must ($(reword "$out"))"
fi
finish
