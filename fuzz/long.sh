#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The long fuzzing campaign (`make fuzz-long`): two fuzzers, each in two
# instrumented builds of the project --
#   core: fuzz_core, the cores and kernels called directly (every kernel the
#         CPU runs and the emulated AVX-512 ones against the portable kernel
#         and libsodium): the fast target, for the bulk of the executions;
#   evp:  fuzz_differential, EVP against OpenSSL's default provider, with the
#         param/ctrl surface;
#   plain: clang -O2 -fsanitize=fuzzer-no-link (libFuzzer coverage only),
#          kernels on auto;
#   asan:  clang -O1 --enable-sanitizers (ASan + UBSan + LeakSanitizer),
#          CHACHA_PROVIDER_IMPL / _POLY1305_IMPL = $FUZZ_ASAN_IMPL (default avx2
#          where the CPU has it, so that the EVP targets run different kernels)
# -- one target after the other (one fuzz process at a time), SECONDS in all
# (default 600) shared as FUZZ_SPLIT says (percent per target). A finding
# (crash, sanitizer report, DIFFERENTIAL FAILURE) is kept in the build's
# artifacts/ and the target restarts on its corpus until its time is up.
# With FUZZ_MINIMIZE=1 the corpora are then merged (libFuzzer -merge=1, which
# keeps the inputs that add coverage) with the committed ones into
# fuzz/corpus-min (evp) and fuzz/corpus-core-min (core). Prints per target the
# executions, the rate, the findings and the corpus size; ends with
# "fuzz-long: N passed, N failed" (one check per target: no finding).
#
#   fuzz/long.sh [SECONDS]
# Environment: FUZZ_PLAIN_BUILD, FUZZ_ASAN_BUILD (build dirs, default
# fuzz/build-plain, fuzz/build-asan), FUZZ_WORK (the campaign's corpora,
# default fuzz/campaign), FUZZ_SPLIT (default "core-plain:60 core-asan:20
# evp-plain:12 evp-asan:8"), FUZZ_MAX_LEN (evp, default 4096),
# FUZZ_CORE_MAX_LEN (core, default 1024), FUZZ_MINIMIZE, FUZZ_ASAN_IMPL, JOBS.
# Run it under `nice`/`taskset` on a shared machine.
set -u
secs=${1:-600}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
plain=${FUZZ_PLAIN_BUILD:-$here/build-plain}
asan=${FUZZ_ASAN_BUILD:-$here/build-asan}
work=${FUZZ_WORK:-$here/campaign}
maxlen=${FUZZ_MAX_LEN:-4096}
core_maxlen=${FUZZ_CORE_MAX_LEN:-1024}
split=${FUZZ_SPLIT:-core-plain:60 core-asan:20 evp-plain:12 evp-asan:8}
pass=0
fail=0
mkdir -p "$work/seeds" || exit 1

# build DIR CFLAGS CONFIGURE-ARGS...: the module and the fuzzer
build() {
    dir=$1 cflags=$2; shift 2
    mkdir -p "$dir/artifacts" && cd "$dir" &&
    { [ -f Makefile ] || "$top/configure" -q CC=clang CFLAGS="$cflags" --enable-fuzzing "$@" \
          >configure.log 2>&1; } &&
    make -j"${JOBS:-2}" chacha.la fuzz/fuzz_differential fuzz/fuzz_core test/kernel/list_kernels \
        >make.log 2>&1 ||
        { tail -n 30 "$dir/configure.log" "$dir/make.log" 2>/dev/null; return 1; }
}
if [ ! -x "$top/configure" ] || [ "$top/configure.ac" -nt "$top/configure" ] \
   || [ "$top/Makefile.am" -nt "$top/Makefile.in" ]; then
    (cd "$top" && autoreconf -fi) >"$work/autoreconf.log" 2>&1 || exit 1
fi
echo "# building $plain (plain) and $asan (asan)"
(build "$plain" "-g -O2") || { echo "fuzz-long: 0 passed, 1 failed"; exit 1; }
(build "$asan" "-g -O1" --enable-sanitizers) || { echo "fuzz-long: 0 passed, 1 failed"; exit 1; }
sh "$here/make_corpus.sh" "$work/seeds" >/dev/null || exit 1

# target NAME FUZZER BUILD IMPL MAXLEN SECONDS CORPORA...: runs until its
# seconds are up, restarting after findings
target() {
    name=$1 fuzzer=$2 dir=$3 impl=$4 ml=$5 tsecs=$6
    shift 6
    end=$(($(date +%s) + tsecs))
    mkdir -p "$work/$name"
    : >"$work/$name.runs"
    i=0
    while [ "$(date +%s)" -lt "$end" ]; do
        i=$((i + 1))
        log=$work/$name-run$i.log
        CHACHA_PROVIDER_IMPL=$impl CHACHA_PROVIDER_POLY1305_IMPL=$impl \
        OPENSSL_MODULES="$dir/.libs" \
        ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:allocator_may_return_null=1" \
        UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
            "$dir/fuzz/$fuzzer" -max_total_time=$((end - $(date +%s))) \
            -print_final_stats=1 -max_len="$ml" -timeout=20 -rss_limit_mb=2048 \
            -artifact_prefix="$dir/artifacts/$name-" "$work/$name" "$@" >"$log" 2>&1
        rc=$?
        execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
        echo "$rc ${execs:-0}" >>"$work/$name.runs"
        [ $rc -eq 0 ] || grep -m1 -A8 -E 'DIFFERENTIAL FAILURE|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error' "$log"
    done
}

impl_asan=${FUZZ_ASAN_IMPL:-$("$asan/test/kernel/list_kernels" chacha20 | grep -x avx2 || echo "")}
mkdir -p "$work/core-seeds" "$here/corpus-core-min"
total=0
for t in $split; do
    name=${t%%:*} pct=${t#*:}
    tsecs=$((secs * pct / 100))
    [ "$tsecs" -gt 0 ] || continue
    case $name in
    core-plain) set -- fuzz_core "$plain" "" "$core_maxlen" "$work/core-seeds" "$here/corpus-core-min" ;;
    core-asan) set -- fuzz_core "$asan" "" "$core_maxlen" "$work/core-seeds" "$here/corpus-core-min" ;;
    evp-plain) set -- fuzz_differential "$plain" "" "$maxlen" "$work/seeds" "$here/regressions" \
                   ${FUZZ_CORPUS_MIN:-"$here/corpus-min"} ;;
    evp-asan) set -- fuzz_differential "$asan" "$impl_asan" "$maxlen" "$work/seeds" "$here/regressions" \
                  ${FUZZ_CORPUS_MIN:-"$here/corpus-min"} ;;
    *) echo "fuzz-long: unknown target $name in FUZZ_SPLIT"; fail=$((fail + 1)); continue ;;
    esac
    fuzzer=$1 dir=$2 impl=$3 ml=$4
    shift 4
    echo "# target $name: $fuzzer in $dir for ${tsecs}s"
    t0=$(date +%s)
    target "$name" "$fuzzer" "$dir" "$impl" "$ml" "$tsecs" "$@"
    elapsed=$(($(date +%s) - t0))
    set -- $(awk '{n++; e += $2; if ($1 != 0) f++} END {print n + 0, e + 0, f + 0}' "$work/$name.runs")
    runs=$1 execs=$2 finds=$3
    total=$((total + execs))
    echo "# target $name (kernels ${impl:-auto}): $execs executions in ${elapsed}s" \
         "($((execs / (elapsed > 0 ? elapsed : 1)))/s), $runs run(s), $finds finding(s)," \
         "corpus $(ls "$work/$name" | wc -l) inputs"
    if [ "$finds" -eq 0 ] && [ "$execs" -gt 0 ]; then
        pass=$((pass + 1)); echo "ok - fuzz-long $name"
    else
        fail=$((fail + 1)); echo "FAIL - fuzz-long $name (artifacts in the build's artifacts/)"
    fi
done
echo "# all targets: $total executions"

# merge OUT FUZZER CORPORA...: the inputs that add coverage, into OUT
merge() {
    out=$1 fuzzer=$2
    shift 2
    mkdir -p "$out.new"
    OPENSSL_MODULES="$plain/.libs" "$plain/fuzz/$fuzzer" -merge=1 -max_len="$maxlen" \
        "$out.new" "$@" >"$work/merge-$fuzzer.log" 2>&1 &&
        rm -rf "$out" && mv "$out.new" "$out" &&
        echo "# minimized corpus: $(ls "$out" | wc -l) inputs in $out"
}
if [ "${FUZZ_MINIMIZE:-0}" = 1 ]; then
    merge "$here/corpus-min" fuzz_differential "$here/regressions" "$work/evp-plain" \
        "$work/evp-asan" ${FUZZ_CORPUS_MIN:-"$here/corpus-min"}
    merge "$here/corpus-core-min" fuzz_core "$work/core-plain" "$work/core-asan" \
        "$here/corpus-core-min"
fi
echo "fuzz-long: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
