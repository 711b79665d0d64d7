#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Every shell script of the project parses under the shells that run it:
# bash for all (make's $(SHELL) is often bash, and `bash script` is how
# users run them), dash as well for the /bin/sh ones (Debian's sh). Then
# bench/chart.sh draws the committed reference CSV, under sh and bash, where
# gnuplot is installed. Found a script that parsed under dash only.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/../lib/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in "$top"/.ci/run "$top"/.ci/*.sh "$top"/bench/*.sh "$top"/demo.sh "$top"/test.sh \
         "$top"/fuzz/*.sh "$top"/scripts/install-deps "$top"/scripts/*.sh \
         "$top"/test/*/*.sh "$top"/test/lib/run-kernels; do
    [ -f "$f" ] || continue
    rel=${f#"$top"/}
    check "bash -n $rel" bash -n "$f"
    case $(head -n 1 "$f") in
    '#!/bin/sh'*) check "sh -n $rel" sh -n "$f" ;;
    esac
done
if command -v gnuplot >/dev/null 2>&1; then
    for sh in sh bash; do
        out=$tmp/chart.svg
        check "$sh bench/chart.sh docs/bench-epyc-zen4.csv" \
            $sh "$top/bench/chart.sh" "$top/docs/bench-epyc-zen4.csv" "$out"
        check "$sh bench/chart.sh: an SVG with the ratio axis" grep -q "ours / default" "$out"
        rm -f "$out"
    done
else
    echo "# gnuplot not installed (Debian: gnuplot-nox): the chart is not drawn"
fi
summary scripts
