#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Differential fuzzing smoke run: configures an instrumented build of the
# project (CC=clang --enable-sanitizers --enable-fuzzing: the module, the
# cores and the kernels with ASan, UBSan and libFuzzer coverage), builds
# fuzz_differential there, writes the seed corpus from test/vectors, then runs
# libFuzzer once per kernel this CPU has (every ChaCha20 kernel with
# Poly1305 on auto, then every other Poly1305 kernel), SECONDS (default 60)
# split between the runs (JOBS of them at a time). Prints execs and
# coverage per run; exits non-zero on any crash or differential failure;
# ends with "fuzz: N passed, N failed" (one check per kernel run). Then
# fuzz_core (the cores and kernels directly, against the portable kernel
# and libsodium) for FUZZ_CORE_SECONDS (default
# 10), and the committed corpora replayed input by input: fuzz/corpus-min and
# fuzz/regressions through fuzz_differential, fuzz/corpus-core-min through
# fuzz_core.
#
#   fuzz/run-smoke.sh [SECONDS]
# Environment: CC (default clang), FUZZ_BUILD (build dir, default
# fuzz/build), FUZZ_CORPUS (default fuzz/corpus), FUZZ_ARGS (extra libFuzzer
# flags), JOBS (make -j, default 2).
set -u
total=${1:-60}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
: "${CC:=clang}"
build=${FUZZ_BUILD:-$here/build}
corpus=${FUZZ_CORPUS:-$here/corpus}
pass=0
fail=0

finish() {
    echo "fuzz: $pass passed, $fail failed"
    [ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
    exit $?
}

if ! command -v "$CC" >/dev/null 2>&1; then
    echo "run-smoke: $CC not found (install clang)"; fail=1; finish
fi
mkdir -p "$build/artifacts" || { fail=1; finish; }

# ---- build: the project's own, configured for fuzzing ---------------------
if [ ! -x "$top/configure" ] || [ "$top/configure.ac" -nt "$top/configure" ] \
   || [ "$top/Makefile.am" -nt "$top/Makefile.in" ]; then
    (cd "$top" && autoreconf -fi) >"$build/autoreconf.log" 2>&1 || { fail=1; finish; }
fi
echo "# building the instrumented module and the fuzzer in $build"
if ! (cd "$build" &&
      { [ -f Makefile ] || "$top/configure" -q CC="$CC" CFLAGS="-g -O1" \
            --enable-sanitizers --enable-fuzzing >configure.log 2>&1; } &&
      make -j"${JOBS:-2}" chacha.la fuzz/fuzz_differential fuzz/fuzz_core test/kernel/list_kernels \
          >make.log 2>&1); then
    tail -n 30 "$build"/configure.log "$build"/make.log 2>/dev/null
    echo "run-smoke: build failed"; fail=1; finish
fi

# ---- corpus --------------------------------------------------------------
sh "$here/make_corpus.sh" "$corpus" || { fail=1; finish; }

# ---- runs ----------------------------------------------------------------
export OPENSSL_MODULES="$build/.libs"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
chacha=$("$build/test/kernel/list_kernels" chacha20)
poly=$("$build/test/kernel/list_kernels" poly1305)
first_poly=$(echo "$poly" | head -n 1)
runs=
for c in $chacha; do runs="$runs $c/auto"; done
for p in $poly; do [ "$p" = "$first_poly" ] || runs="$runs auto/$p"; done
n=$(echo $runs | wc -w)
share=$((total / n)); [ $share -lt 1 ] && share=1
echo "# $n kernel runs, ${share}s each, ${JOBS:-2} at a time: $runs"

# verdict RC LOG NAME DETAIL OK_TEXT LINES: one libFuzzer run's execs line
# and check (exit 0 and libFuzzer's "Done" line); on failure the report's
# first LINES lines. Returns 1 on failure.
verdict() {
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$2" | tail -n 1)
    eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$2" | tail -n 1)
    echo "# ${3#fuzz }: ${execs:-?} execs (${eps:-?}/s), $4"
    if [ "$1" -eq 0 ] && grep -q '^Done [0-9]* runs' "$2"; then
        pass=$((pass + 1)); echo "ok - $5"; return 0
    fi
    fail=$((fail + 1)); echo "FAIL - $3 (exit $1, log $2)"
    grep -A60 -E 'DIFFERENTIAL FAILURE|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error' "$2" | head -n "$6"
    return 1
}

# one libFuzzer run (chacha20 kernel $1, Poly1305 kernel $2); its verdict,
# for the parent to read, in $build/verdict-$1-$2
fuzz_run() {
    c=$1; p=$2
    log=$build/run-$c-$p.log
    # libFuzzer: keep new inputs in a scratch dir, seeds read from the corpus
    work=$build/work-$c-$p
    mkdir -p "$work"
    CHACHA_PROVIDER_IMPL=$([ "$c" = auto ] || echo "$c") \
    CHACHA_PROVIDER_POLY1305_IMPL=$([ "$p" = auto ] || echo "$p") \
        "$build/fuzz/fuzz_differential" -max_total_time="$share" -print_final_stats=1 \
        -max_len=4096 -timeout=20 -rss_limit_mb=2048 \
        -artifact_prefix="$build/artifacts/" ${FUZZ_ARGS:-} "$work" "$corpus" \
        "$here/regressions" >"$log" 2>&1
    echo $? >"$build/verdict-$c-$p"
}

# the runs, JOBS (default 2) at a time: each its share of SECONDS of one
# core, as one after the other, in less wall time
set -- $runs
while [ $# -gt 0 ]; do
    batch=
    for j in $(seq "${JOBS:-2}"); do
        [ $# -gt 0 ] || break
        batch="$batch $1"; shift
        run=${batch##* }
        fuzz_run "${run%/*}" "${run#*/}" &
    done
    wait
    for run in $batch; do
        c=${run%/*}; p=${run#*/}
        log=$build/run-$c-$p.log
        rc=$(cat "$build/verdict-$c-$p" 2>/dev/null || echo 99)
        cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -n 1)
        if ! verdict "$rc" "$log" "fuzz chacha20=$c poly1305=$p" "${cov:-no coverage line}" \
                "fuzz chacha20=$c poly1305=$p" 80; then
            a=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
            [ -n "$a" ] && echo "# reproduce: CHACHA_PROVIDER_IMPL=$c OPENSSL_MODULES=$build/.libs $build/fuzz/fuzz_differential $a"
        fi
    done
done

# the core target: every kernel at once, kernels not forced; in the
# background, beside the negative control and the replays below
log=$build/run-core.log
mkdir -p "$build/work-core"
"$build/fuzz/fuzz_core" -max_total_time="${FUZZ_CORE_SECONDS:-10}" -print_final_stats=1 \
    -max_len=1024 -timeout=20 -rss_limit_mb=2048 -artifact_prefix="$build/artifacts/core-" \
    ${FUZZ_ARGS:-} "$build/work-core" >"$log" 2>&1 &
core_pid=$!
# negative control: with a bit of each first kernel's output flipped, the
# core target must report a difference within a few hundred inputs
log=$build/run-core-negative.log
rm -rf "$build/work-core-negative" && mkdir -p "$build/work-core-negative"
FUZZ_CORE_NEGATIVE=1 "$build/fuzz/fuzz_core" -runs=2000 -max_len=1024 \
    -artifact_prefix="$build/work-core-negative/" "$build/work-core-negative" >"$log" 2>&1
if [ $? -ne 0 ] && grep -q 'CORE DIFFERENTIAL FAILURE' "$log"; then
    pass=$((pass + 1)); echo "ok - fuzz_core negative control: a flipped output bit is reported"
else
    fail=$((fail + 1)); echo "FAIL - fuzz_core negative control: no difference reported (log $log)"
fi
if [ -d "$here/corpus-core-min" ]; then
    log=$build/replay-core.log
    mkdir -p "$build/replay-core-scratch"
    "$build/fuzz/fuzz_core" -runs=0 -max_len=16384 -timeout=20 -rss_limit_mb=2048 \
        -artifact_prefix="$build/artifacts/core-" "$build/replay-core-scratch" \
        "$here/corpus-core-min" >"$log" 2>&1
    rc=$?
    n=$(ls "$here/corpus-core-min" | wc -l)
    if [ $rc -eq 0 ]; then
        pass=$((pass + 1)); echo "ok - replay of fuzz/corpus-core-min ($n inputs)"
    else
        fail=$((fail + 1)); echo "FAIL - replay of fuzz/corpus-core-min (exit $rc, log $log)"
        grep -A40 -E 'DIFFERENTIAL FAILURE|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error' "$log" | head -n 60
    fi
fi

# the committed minimized corpus of the long campaign (fuzz/long.sh) and the
# regressions, every input once, kernels on auto: one check
if [ -d "$here/corpus-min" ]; then
    log=$build/replay.log
    mkdir -p "$build/replay-scratch"
    "$build/fuzz/fuzz_differential" -runs=0 -max_len=4096 -timeout=20 -rss_limit_mb=2048 \
        -artifact_prefix="$build/artifacts/" "$build/replay-scratch" "$here/corpus-min" \
        "$here/regressions" >"$log" 2>&1
    rc=$?
    n=$(ls "$here/corpus-min" "$here/regressions" | wc -l)
    if [ $rc -eq 0 ]; then
        pass=$((pass + 1)); echo "ok - replay of fuzz/corpus-min and fuzz/regressions ($n inputs)"
    else
        fail=$((fail + 1)); echo "FAIL - replay of fuzz/corpus-min (exit $rc, log $log)"
        grep -A40 -E 'DIFFERENTIAL FAILURE|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error' "$log" | head -n 60
    fi
fi
wait "$core_pid"
rc=$?
log=$build/run-core.log
verdict "$rc" "$log" "fuzz_core" "$(grep -m1 '^fuzz_core:' "$log")" \
    "fuzz_core (every kernel vs portable and libsodium)" 60
finish
