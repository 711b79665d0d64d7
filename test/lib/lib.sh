# SPDX-License-Identifier: Apache-2.0
# Shared helpers of the shell tests; sourced, not run:
#   . "$(dirname "$0")/../lib/lib.sh"
# ok/bad count one assertion each and say what it was; BAD_DETAIL, when set
# to a file, has bad() show its first lines; summary NAME prints the
# "NAME: N passed, N failed" line ./test.sh adds up and returns 0 only when
# none failed.
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
bad() {
    fail=$((fail + 1)); echo "FAIL - $*"
    if [ -n "${BAD_DETAIL:-}" ] && [ -f "$BAD_DETAIL" ]; then
        sed 's/^/#   /' "$BAD_DETAIL" | head -n 8
    fi
    return 0
}
summary() {
    echo "$1: $pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
# check "label" command...: one assertion, the command's output shown when
# it fails ($tmp: the caller's scratch directory)
check() {
    _label=$1; shift
    if "$@" >"$tmp/check.out" 2>&1; then
        ok "$_label"
    else
        bad "$_label"; sed 's/^/#   /' "$tmp/check.out" | head -n 40
    fi
}
# failed_logs LINES LOG...: each test log whose .trs says FAIL or ERROR,
# named, then its last LINES lines (a job's failed tests, after make check)
failed_logs() {
    _lines=$1; shift
    for _f in "$@"; do
        grep -q -E '^:test-result: (FAIL|ERROR)' "${_f%.log}.trs" 2>/dev/null &&
            { echo "--- $_f"; tail -n "$_lines" "$_f"; }
    done
    return 0
}
