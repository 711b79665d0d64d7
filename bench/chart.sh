#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Draws the benchmark chart from bench/bench's CSV (make bench writes both):
# the ratio ours/default against the message size (log scale), one line per
# call pattern, the 1.0 line (parity) marked; one panel per mode (native:
# both providers on their best code for this CPU; openssl-avx2: OpenSSL's
# AVX-512 masked and ours pinned to AVX2). The title names the CPU, the
# OpenSSL version and our kernels, as recorded in the CSV's "#" lines.
#   bench/chart.sh bench.csv bench.svg     (or .png)
# Needs gnuplot (Debian: gnuplot-nox); without it, says so and exits 0.
set -eu
csv=${1:?usage: $0 bench.csv out.svg}
out=${2:?usage: $0 bench.csv out.svg}
if ! command -v gnuplot >/dev/null 2>&1; then
    echo "chart: gnuplot not installed (Debian: gnuplot-nox): no $out; the numbers are in $csv"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

meta() { sed -n "s/^# $1: //p" "$csv" | head -n 1; }
cpu=$(meta cpu)
ossl=$(meta openssl)
lat=$(meta latency)
# one data file per (mode, pattern): "bytes ratio", the ratio the last
# field: the median of the rounds' ratios where the header ends in
# ",median" (bytes then fifth from the end), else the ratio of the best
# MB/s (CSVs before 0.3.0; bytes fourth from the end)
awk -F, -v dir="$tmp" '
    NR == 1 { back = $0 ~ /,median$/ ? 4 : 3; next }
    /^#/ { next }
    { pat = $0; sub(/^[^,]*,"/, "", pat); sub(/",.*$/, "", pat)
      key = $1 SUBSEP pat
      if (!(key in file)) { n[$1]++; file[key] = dir "/" $1 "." n[$1]
                            print pat > (file[key] ".name") }
      print $(NF - back), $NF > file[key] }' "$csv"

panel() { # panel MODE TITLE [LABEL OF THE 1.0 LINE]
    parity="1.0: same speed as the default provider"
    set -- "$1" "$2" "${3:-$parity}" \
        "$(ls "$tmp/$1".[0-9]* 2>/dev/null | grep -v '\.name$' | sort -t. -k2 -n)"
    [ -n "$4" ] || return 0
    printf 'set title "%s" noenhanced\n' "$2"
    printf 'plot 1 with lines dt 2 lw 2 lc rgb "#000000" title "%s"' "$3"
    for f in $4; do
        printf ', "%s" using 1:2 with linespoints lw 2 pt 7 ps 0.6 title "%s" noenhanced' \
            "$f" "$(cat "$f.name")"
    done
    printf '\n'
}

modes=$(awk -F, '!/^#/ && NR > 1 && $1 !~ /^multi/ { print $1 }' "$csv" | awk '!seen[$0]++')
n=$(echo "$modes" | wc -l)
{
    case $out in
    *.png) printf 'set terminal pngcairo size 1000,%d font "sans,10" background "#ffffff"\n' $((640 * n + 40)) ;;
    *) printf 'set terminal svg size 1000,%d dynamic font "sans,11" background "#ffffff"\n' $((640 * n + 40)) ;;
    esac
    printf 'set output "%s"\n' "$out"
    printf 'set multiplot layout %d,1 title "chacha provider vs OpenSSL default provider: ratio ours/default (above 1: ours faster)\\n%s; %s\\nlatency profile (core cycles): %s" noenhanced\n' \
        "$n" "$cpu" "$ossl" "${lat:-not recorded}"
    printf 'set logscale x 2\nset xrange [12:1500000]\nset grid\n'
    printf 'set xtics ("16" 16, "64" 64, "256" 256, "1K" 1024, "8K" 8192, "16K" 16384, "1M" 1048576)\n'
    printf 'set xlabel "message size, bytes (log scale)"\nset ylabel "ours / default"\n'
    printf 'set key below left vertical maxrows 8 font "sans,9"\nset yrange [0:*]\n'
    for m in $modes; do
        b=$(meta "$m")
        case $m in
        native) t="native: each provider on its best code for this CPU\\nours: $b" ;;
        openssl-avx2) t="OpenSSL's AVX-512 masked (AVX2 left), ours pinned to AVX2\\nours: $b" ;;
        xchacha) t="XChaCha20-Poly1305 (OpenSSL has none): ours against libsodium and against our ChaCha20-Poly1305\\nours: $b" ;;
        *) t="$m\\nours: $b" ;;
        esac
        if [ "$m" = xchacha ]; then
            panel "$m" "$t" "1.0: same speed as the peer named in the line"
        else
            panel "$m" "$t"
        fi
    done
    printf 'unset multiplot\n'
} >"$tmp/plot.gp"
gnuplot "$tmp/plot.gp"
echo "chart: $out"
