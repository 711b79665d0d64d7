# SPDX-License-Identifier: Apache-2.0
# Sourced by the package tests (run from the source tree's top, as
# autopkgtest does): a scratch directory, the installed configuration,
# and "ok"/"FAIL" lines ending with a count.
set -eu
cnf=/usr/share/doc/chacha-provider/chacha-provider.cnf
work=${AUTOPKGTEST_TMP:-$(mktemp -d)}
cd "$work"
passed=0
failed=0
check() {
    desc=$1; shift
    if "$@"; then passed=$((passed + 1)); echo "ok - $desc"
    else failed=$((failed + 1)); echo "FAIL - $desc"; fi
}
finish() {
    echo "$1: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
