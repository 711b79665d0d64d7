#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs the package tests of debian/tests/control (autopkgtest layout) against
# the installed package, from the top of a tree holding debian/tests: each
# test must exit 0, and write nothing to stderr unless its Restrictions say
# allow-stderr (autopkgtest's rules). Prints each test's output and
# "pkg-tests: N passed, N failed".
# Usage: .ci/pkg-tests.sh [--depends]   (--depends: print the tests'
# Depends, one package a line, and exit)
set -u
ctl=debian/tests/control
[ -f "$ctl" ] || { echo "pkg-tests: no $ctl in $(pwd)"; exit 2; }
# one line per test: NAME RESTRICTION,RESTRICTION,...  (from RFC 822 paragraphs)
stanzas() {
    awk 'BEGIN { RS = ""; FS = "\n" }
         { t = ""; r = ""; d = ""
           for (i = 1; i <= NF; i++) {
               if ($i ~ /^#/) continue
               if ($i ~ /^Tests:/) { t = $i; sub(/^Tests:[ \t]*/, "", t) }
               if ($i ~ /^Restrictions:/) { r = $i; sub(/^Restrictions:[ \t]*/, "", r) }
               if ($i ~ /^Depends:/) { d = $i; sub(/^Depends:[ \t]*/, "", d) }
           }
           gsub(/[ \t]+/, "", r); gsub(/[ \t]+/, "", d)
           n = split(t, names, /[ \t,]+/)
           for (j = 1; j <= n; j++) if (names[j] != "") print names[j], (r == "" ? "-" : r), (d == "" ? "-" : d) }' "$ctl"
}
if [ "${1:-}" = --depends ]; then
    stanzas | awk '{ n = split($3, d, ","); for (i = 1; i <= n; i++) if (d[i] != "-") print d[i] }' | sort -u
    exit 0
fi
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
stanzas >"$tmp/list"
while read -r name restr _; do
    mkdir -p "$tmp/$name"
    AUTOPKGTEST_TMP=$tmp/$name "debian/tests/$name" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null
    rc=$?
    echo "--- $name (restrictions: $restr)"
    cat "$tmp/$name.out"
    why=
    [ $rc -eq 0 ] || why="exit $rc"
    case ",$restr," in *,allow-stderr,*) ;; *)
        [ -s "$tmp/$name.err" ] && why="${why:+$why, }output on stderr" ;;
    esac
    if [ -s "$tmp/$name.err" ]; then echo "--- $name stderr"; cat "$tmp/$name.err"; fi
    if [ -z "$why" ]; then pass=$((pass + 1)); echo "ok - package test $name"
    else fail=$((fail + 1)); echo "FAIL - package test $name ($why)"; fi
done <"$tmp/list"
echo "pkg-tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
