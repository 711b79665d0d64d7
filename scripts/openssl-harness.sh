#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# OpenSSL's own test programs, unmodified, against this provider (docs/harness.md):
# evp_test on OpenSSL's ChaCha20/Poly1305 data files with ONLY our provider loaded,
# libssl's ssl_test and sslapitest (and 3.5's quic_record_test) with our provider
# preferred and carrying the records.
#
#   scripts/openssl-harness.sh prepare 3.0|3.5     fetch the Debian source of the OpenSSL
#                                                  under test, build those programs and
#                                                  cache them (nothing if already cached)
#   scripts/openssl-harness.sh run 3.0|3.5 DIR     run them against DIR/chacha.so
#   scripts/openssl-harness.sh ci 3.0|3.5          prepare; run the provider under test (must
#                                                  pass) and three controls (must fail); ends
#                                                  with "harness-3.0: N passed, N failed, ..."
#
# 3.0 is the installed libcrypto (its exact Debian version's source); 3.5 is Debian 13's,
# run with its own loader as ../shared/OPENSSL-3.5.md describes.
#
# Environment:
#   CHACHA_CACHE    cache root (default $HOME/.cache/chacha-provider); the built programs
#                   and their data go to $CHACHA_CACHE/openssl-harness-<Debian version>/
#   CHACHA_MODULES  (ci) directory holding the chacha.so under test (default ./.libs)
#   LIST_KERNELS   test/kernel/list_kernels of the build: one run per kernel (default: auto only)
#   srcdir          (ci) the project's source tree, for the broken-kernel control build
#   HARNESS_WORK    (ci) scratch directory (default ./harness)
#   HARNESS_BROKEN  (ci) where the broken-kernel control is built (default $HARNESS_WORK/broken)
#   OPENSSL35_DIR   (3.5) Debian 13's OpenSSL unpacked by .ci/tls-deps.sh (default
#                   $HOME/openssl-3.5; unpacked there when missing)
#   HARNESS_MIRROR, HARNESS_SECURITY  Debian archives (default deb.debian.org)
#   JOBS            make -j for OpenSSL's build (default 2)
set -u

# evp_test stanzas that cannot pass yet, one "file|test line" per line. They run and are
# counted (XFAIL, not passed); one that passes is a failure (XPASS): then delete it here.
# None today: the EVP_PKEY Poly1305 stanzas pass since the POLY1305 key manager and
# signature exist.
HARNESS_PENDING=${HARNESS_PENDING-}

# sslapitest cases that negotiate TLS_CHACHA20_POLY1305_SHA256 in some iteration: every
# test of sslapitest.c naming CHACHA except the KTLS ones (the kernel does the crypto)
# and test_ssl_get_shared_ciphers (it compares cipher lists, the records run AES).
SSLAPI_TESTS="test_tls13_ciphersuite test_early_data_psk_with_all_ciphers
test_early_data_skip test_early_data_skip_hrr test_early_data_skip_hrr_fail
test_early_data_skip_abort"

# 3.5's QUIC record layer test: known-answer packets (RFC 9001 A.5 among them) protected
# with ChaCha20-Poly1305 and ChaCha20 header protection, in some iterations of each. It
# uses the default library context: our configuration is given to it as OPENSSL_CONF.
# Each test runs whole (test_wire_pkt_hdr's last iteration checks the ones before it).
QUIC_TESTS="test_rx_script test_tx_script test_wire_pkt_hdr"

# the programs built from OpenSSL's tree (nothing else of it is built but what they link)
PROGS="evp_test ssl_test sslapitest"
OURS='chacha20|poly1305'            # what a stanza or TLS case must name to be ours
TRACE_AEAD='new ChaCha20-Poly1305 context'

cache=${CHACHA_CACHE:-${HOME:?set HOME or CHACHA_CACHE}/.cache/chacha-provider}
mirror=${HARNESS_MIRROR:-http://deb.debian.org/debian}
security=${HARNESS_SECURITY:-http://deb.debian.org/debian-security}
jobs=${JOBS:-2}
here=$(cd "$(dirname "$0")" && pwd)
libdir=usr/lib/x86_64-linux-gnu

die() { echo "harness: $*" >&2; exit 2; }
note() { echo "harness: $*"; }

# ---- the OpenSSL under test --------------------------------------------------------

# Sets ver (Debian version of the libcrypto under test), suite, and RUN (the command
# prefix that runs a program against it; empty: the system's).
find_target() {
    RUN=
    case $1 in
    3.0)
        suite=bookworm
        lib=$(ldconfig -p | sed -n 's/.*libcrypto\.so\.3 (libc6,x86-64) => //p' | head -n 1)
        [ -n "$lib" ] || die "no libcrypto.so.3 installed"
        pkg=$(dpkg -S "$(readlink -f "$lib")" 2>/dev/null | sed -n '1s/: .*//p')
        [ -n "$pkg" ] || die "$lib belongs to no Debian package"
        ver=$(dpkg-query -W -f='${Version}' "$pkg")
        up=$(openssl version | sed -n 's/.*Library: OpenSSL \([0-9.]*\).*/\1/p')
        [ -z "$up" ] && up=$(openssl version | awk '{print $2}')
        case $ver in "$up"-*) ;; *) die "openssl says $up, package $pkg is $ver";; esac
        ;;
    3.5)
        suite=trixie
        o35=${OPENSSL35_DIR:-$HOME/openssl-3.5}
        if [ ! -x "$o35/usr/bin/openssl" ]; then
            sh "$here/../.ci/tls-deps.sh" openssl35 "$o35" >&2 || die "cannot unpack OpenSSL 3.5 into $o35"
        fi
        o35=$(cd "$o35" && pwd)
        ver=$(zcat "$o35/usr/share/doc/libssl3t64/changelog.Debian.gz" | sed -n '1s/^openssl (\([^)]*\)).*/\1/p')
        [ -n "$ver" ] || die "no OpenSSL 3.5 version found in $o35"
        ;;
    *) die "OpenSSL series: 3.0 or 3.5, not '$1'" ;;
    esac
}

# The 3.5 programs run with the unpacked libssl3t64 of their own version (runtime/),
# then Debian 13's loader and C library from OPENSSL35_DIR.
set_run() {
    [ -d "$H/runtime" ] || return 0
    RUN="$o35/$libdir/ld-linux-x86-64.so.2 --library-path $H/runtime/$libdir:$o35/$libdir"
}

# ---- fetch and build ---------------------------------------------------------------

# A private apt configuration for $suite (sources, lists, cache under $b/apt): the
# host's apt sources are neither read nor changed.
apt_private() {
    a=$b/apt
    mkdir -p "$a/lists/partial" "$a/cache/archives/partial"
    for s in "$mirror|$suite $suite-updates" "$security|$suite-security"; do
        printf 'Types: %s\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: %s\n\n' \
            "$1" "${s%%|*}" "${s#*|}" /usr/share/keyrings/debian-archive-keyring.gpg
    done >"$a/harness.sources"
    apt_o="-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=$a \
-o Dir::State::Lists=$a/lists -o Dir::Cache=$a/cache -o APT::Sandbox::User=root"
    # shellcheck disable=SC2086
    apt-get $apt_o update -qq
}

# Source package openssl=$1 unpacked into $b/dl, the first way that works:
#  1. apt-get source (files checked against the signed index);
#  2. the .dsc from the pool (checked against the index when it lists the version),
#     each file checked against the .dsc;
#  3. Debian's copy of the upstream tarball alone (checked against the index), when
#     the mirror lacks the .dsc or the Debian patches: OpenSSL's tests unpatched.
fetch_source() {
    v=$1
    rm -rf "$b/dl"; mkdir -p "$b/dl"; cd "$b/dl" || return 1
    # shellcheck disable=SC2086
    if apt-get $apt_o source -qq "openssl=$v" >"$b/fetch.log" 2>&1; then
        origin="apt-get source openssl=$v (signed $suite index)"
        return 0
    fi
    # the index's record of openssl=$v: "sha256 filename" lines
    # shellcheck disable=SC2086
    rec=$(apt-cache $apt_o showsrc openssl 2>/dev/null | awk -v V="$v" '
        /^Package:/ { p = 0 } /^Version:/ { p = ($2 == V) }
        /^[A-Za-z0-9-]+:/ { c = p && /^Checksums-Sha256:/; next }
        c { print $1, $3 }' | sort -u)
    dsc_sha=$(echo "$rec" | awk '$2 ~ /\.dsc$/ { print $1; exit }')
    pools="$mirror/pool/main/o/openssl $security/pool/updates/main/o/openssl"
    for base in $pools; do
        rm -rf "$b/dl"/*
        get "$base/openssl_$v.dsc" "$dsc_sha" || continue
        ok=1
        for fh in $(sed -n '/^Checksums-Sha256:/,/^[A-Z]/s/^ \([0-9a-f]\{64\}\) [0-9]* \(.*\)/\2:\1/p' "openssl_$v.dsc"); do
            get "$base/${fh%%:*}" "${fh#*:}" || { ok=0; break; }
        done
        [ $ok -eq 1 ] || continue
        dpkg-source -x "openssl_$v.dsc" >>"$b/fetch.log" 2>&1 || continue
        if [ -n "$dsc_sha" ]; then
            origin="$base/openssl_$v.dsc (checked against the signed $suite index)"
        else
            origin="$base/openssl_$v.dsc (NOT in the $suite index: files checked against the .dsc only)"
        fi
        return 0
    done
    orig=$(echo "$rec" | awk '$2 ~ /\.orig\.tar\.[a-z0-9]+$/ { print $1 ":" $2; exit }')
    [ -n "$orig" ] || return 1
    for base in $pools; do
        rm -rf "$b/dl"/*
        get "$base/${orig#*:}" "${orig%%:*}" && tar xf "${orig#*:}" || continue
        origin="$base/${orig#*:} (checked against the signed $suite index); the mirror lacks the"
        origin="$origin .dsc or Debian's patches of $v: OpenSSL's upstream tests, unpatched"
        return 0
    done
    return 1
}

# get URL SHA256: download into the current directory with apt's downloader, checked
get() {
    /usr/lib/apt/apt-helper download-file "$1" "$(basename "$1")" ${2:+"SHA256:$2"} \
        >>"$b/fetch.log" 2>&1
}

# Configure, build the programs (and what they link), stage them with their data.
build_programs() {
    progs=$PROGS
    [ "$series" = 3.5 ] && progs="$progs quic_record_test"
    if [ "$series" = 3.5 ]; then
        # the OpenSSL libraries of this very version, to run the programs with
        # shellcheck disable=SC2086
        (cd "$b" && apt-get $apt_o download -qq "libssl3t64=$v") >>"$b/fetch.log" 2>&1 &&
            dpkg -x "$b"/libssl3t64_*.deb "$b/runtime" ||
            { tail -n 5 "$b/fetch.log"; note "cannot fetch libssl3t64=$v"; return 1; }
    fi
    src=$(ls -d "$b"/dl/openssl-*/ 2>/dev/null | head -n 1)
    [ -f "$src/Configure" ] || { note "no source tree in $b/dl"; return 1; }
    cd "$src" || return 1
    t0=$(date +%s)
    note "building $progs of OpenSSL $v (make -j$jobs, log: $b/build.log)"
    # shellcheck disable=SC2046
    { ./Configure linux-x86_64 && nice make -j"$jobs" build_generated &&
      nice make -j"$jobs" $(for p in $progs; do printf 'test/%s ' "$p"; done); } >"$b/build.log" 2>&1 ||
        { tail -n 30 "$b/build.log"; return 1; }
    st=$H.tmp.$$
    rm -rf "$st"; mkdir -p "$st/bin" "$st/ssl-tests" "$st/sslapi" "$st/ct"
    for p in $progs; do cp "test/$p" "$st/bin/"; done
    # the evp data files that could hold a stanza of ours (3.5's whole set is 71 MB)
    mkdir -p "$st/evp-data"
    grep -l -i -E "$OURS" test/recipes/30-test_evp_data/*.txt | xargs -I{} cp {} "$st/evp-data/"
    cp -R test/certs "$st/certs"
    cp test/ct/log_list.cnf "$st/ct/"
    cp test/recipes/90-test_sslapi_data/* "$st/sslapi/"
    # the evp_test methods: the keywords that start a test stanza
    grep -A1 'static const EVP_TEST_METHOD' test/evp_test.c | sed -n 's/^ *"\([^"]*\)",.*/\1/p' \
        >"$st/evp-methods"
    # ssl-tests naming ChaCha, generated from .cnf.in by OpenSSL's own script (as
    # test/recipes/80-test_ssl_new.t does for the default provider)
    for in in $(grep -l -i -E "$OURS" test/ssl-tests/*.cnf.in); do
        out=$st/ssl-tests/$(basename "$in" .in)
        SRCTOP=$src BLDTOP=$src perl -I util/perl test/generate_ssl_tests.pl "$in" default >"$out" ||
            { note "generate_ssl_tests.pl $in failed"; return 1; }
        cmp -s "$out" "${in%.in}" || note "$(basename "$out") differs from the one OpenSSL ships"
    done
    [ -d "$b/runtime" ] && mv "$b/runtime" "$st/runtime"
    {
        echo "openssl source: $v, $origin"
        echo "configure: ./Configure linux-x86_64; make build_generated; make $progs"
        echo "built: $(date -u +%Y-%m-%dT%H:%MZ) in $(( $(date +%s) - t0 ))s on $(nproc) cores"
        [ -d "$st/runtime" ] && echo "runtime: libssl3t64 $v unpacked in runtime/" ||
            echo "runtime: the installed libcrypto/libssl (${pkg:-} $ver)"
    } >"$st/MANIFEST"
    touch "$st/.complete"
    rm -rf "$H"; mv "$st" "$H"
}

# Sets H to the cached harness for series $1, building it when missing.
prepare() {
    series=$1
    find_target "$series"
    v=$ver
    # a 3.5 whose source is not on the mirror was replaced once by another version
    # (recorded in openssl-harness-for-VERSION; delete that file to try again)
    memo=$cache/openssl-harness-for-$ver
    [ -f "$memo" ] && v=$(cat "$memo")
    H=$cache/openssl-harness-$v
    if [ -f "$H/.complete" ]; then
        [ "$v" != "$ver" ] && note "the source of $ver is not on the mirror: using $v, with its own libraries ($memo)"
        note "cached: $H"
        set_run; return 0
    fi
    mkdir -p "$cache"
    b=$(mktemp -d "${TMPDIR:-/tmp}/openssl-harness.XXXXXX")
    t0=$(date +%s)
    types=deb-src; [ "$series" = 3.5 ] && types="deb deb-src"
    apt_private "$types" >"$b/apt.log" 2>&1 || { cat "$b/apt.log"; rm -rf "$b"; die "apt-get update failed"; }
    if ! fetch_source "$v"; then
        [ "$series" = 3.0 ] && { tail -n 5 "$b/fetch.log"; rm -rf "$b"; die "the source of openssl $v (the installed libcrypto) is not reachable"; }
        # Debian 13 is not installed here: take the newest 3.5 whose libraries are in the
        # signed index and whose source the mirror has, and run against those libraries
        found=
        mm=$(echo "$ver" | cut -d. -f1,2)
        # shellcheck disable=SC2086
        for v in $(apt-cache $apt_o madison libssl3t64 | awk -F'|' '{ gsub(/ /, "", $2); print $2 }' |
                   sort -u -r -V); do
            case $v in "$mm".*) ;; *) continue ;; esac
            [ "$v" = "$ver" ] && continue
            H=$cache/openssl-harness-$v
            [ -f "$H/.complete" ] && { found=cached; break; }
            fetch_source "$v" && { found=fetched; break; }
        done
        [ -n "$found" ] || { rm -rf "$b"; die "no OpenSSL $series source reachable"; }
        echo "$v" >"$memo"
        note "the source of $ver is not on the mirror: using $v, with its own libraries"
        [ "$found" = cached ] && { rm -rf "$b"; note "cached: $H"; set_run; return 0; }
    fi
    build_programs || { rm -rf "$b" "$H.tmp.$$"; die "building the harness of $v failed"; }
    rm -rf "$b"
    note "prepared $H in $(( $(date +%s) - t0 ))s (cold)"
    set_run
}

# ---- running -------------------------------------------------------------------------

# The configurations: only ours (evp_test), default + ours preferring ours (libssl),
# default + ours preferring default (control), only legacy (control).
write_configs() {
    cfg=$1
    mkdir -p "$cfg"
    : >"$cfg/empty.cnf"
    provs() {
        printf 'openssl_conf = openssl_init\n[openssl_init]\nproviders = provider_sect\n'
        [ -n "$2" ] && printf 'alg_section = algorithm_sect\n'
        printf '[provider_sect]\n'
        for p in $1; do printf '%s = %s_sect\n' "$p" "$p"; done
        for p in $1; do printf '[%s_sect]\nactivate = 1\n' "$p"; done
        [ "$1" = legacy ] && printf 'module = %s\n' "$legacy_so"
        [ -n "$2" ] && printf '[algorithm_sect]\ndefault_properties = %s\n' "$2"
    }
    provs chacha "" >"$cfg/only-chacha.cnf"
    provs "default chacha" "?provider=chacha" >"$cfg/default-chacha.cnf"
    provs "default chacha" "?provider=default" >"$cfg/prefer-default.cnf"
    provs legacy "" >"$cfg/only-legacy.cnf"
}

# run_prog PROG ARGS...: one harness program, hermetic (no system openssl.cnf), traced
run_prog() {
    p=$1; shift
    # shellcheck disable=SC2086
    env OPENSSL_CONF="${prog_conf:-$cfg/empty.cnf}" OPENSSL_MODULES="$moddir" CHACHA_PROVIDER_DEBUG=1 \
        ${c_impl:+CHACHA_PROVIDER_IMPL=$c_impl} ${p_impl:+CHACHA_PROVIDER_POLY1305_IMPL=$p_impl} \
        $RUN "$H/bin/$p" "$@"
}

ok() { pass=$((pass + $2)); echo "PASS $1"; }
bad() { fail=$((fail + $2)); echo "FAIL $1"; }

# stanzas FILE [extract]: one "start|test line|ours" per test stanza of an evp_test
# file (start: the line evp_test reports), or (extract) the text of the ours ones
stanzas() {
    awk -v methods="$(cat "$H/evp-methods")" -v ours="$OURS" -v mode="${2:-list}" '
        BEGIN { n = split(methods, a, "\n"); for (i = 1; i <= n; i++) M[a[i]] = 1 }
        function flush() {
            if (m != "" && mode == "list") print start "|" m "|" o
            if (m != "" && mode == "extract" && o) print text
            m = ""; o = 0; in_st = 0; text = ""
        }
        /^[ \t]*#/ { next }
        /^[ \t]*$/ { flush(); next }
        {
            sub(/[ \t\r]+$/, "")
            if (!in_st) { in_st = 1; start = NR }
            text = text $0 "\n"
            key = $0; sub(/[ \t]*=.*/, "", key)
            if (m == "" && (key in M)) m = $0
            if (tolower($0) ~ ours) o = 1
        }
        END { flush() }' "$1"
}

# The evp_test inputs: every data file with a stanza naming ours; whole when every
# stanza is ours, else only those stanzas, extracted into $work/evp-extract-FILE.
select_evp_files() {
    evp_files=
    for f in "$H"/evp-data/*.txt; do
        all=$(stanzas "$f" | wc -l)
        mine=$(stanzas "$f" | grep -c '|1$')
        [ "$mine" -eq 0 ] && continue
        if [ "$mine" -eq "$all" ]; then
            evp_files="$evp_files $f"
        else
            x=$work/evp-extract-$(basename "$f")
            stanzas "$f" extract >"$x"
            note "$(basename "$f"): $mine of $all stanzas name ChaCha20/Poly1305, run extracted ($x)"
            evp_files="$evp_files $x"
        fi
    done
}

# evp_file FILE: one evp_test run with $evp_cnf, counted per stanza
evp_file() {
    f=$1; n=$(basename "$f"); out=$work/evp.out
    run_prog evp_test -config "$evp_cnf" "$f" >"$out" 2>&1
    [ "$expect_ours" = 0 ] || check_kernel "$out" || return 0
    stanzas "$f" >"$work/stanzas"
    total=$(wc -l <"$work/stanzas")
    # shellcheck disable=SC2046
    set -- $(sed -n 's/.*Completed \([0-9]*\) tests with \([0-9]*\) errors and \([0-9]*\) skipped.*/\1 \2 \3/p' "$out") 0 0 0
    done_=$1; errs=$2; skipped=$3
    passed=$((done_ - errs - skipped)); [ $passed -lt 0 ] && passed=0
    # the stanzas evp_test reports failing, against the pending list
    xf=0; xf_lines=; pend=0
    for l in $(sed -n "s|.*$n:\([0-9][0-9]*\)[: ].*|\1|p" "$out" | sort -un); do
        t=$(sed -n "s/^$l|\(.*\)|[01]$/\1/p" "$work/stanzas")
        if is_pending "$n" "$t"; then xf=$((xf + 1)); xf_lines="$xf_lines $l"; fi
    done
    while IFS='|' read -r _s t _o; do is_pending "$n" "$t" && pend=$((pend + 1)); done <"$work/stanzas"
    failed=$((total - passed - xf))
    xpass=0; [ "$done_" -eq "$total" ] && xpass=$((pend - xf))
    pass=$((pass + passed)); fail=$((fail + failed + xpass)); xfail=$((xfail + xf))
    msg="evp_test $n [$label]: $passed/$total stanzas passed"
    [ "$skipped" -ne 0 ] && msg="$msg, $skipped SKIPPED (a skip is a failure here)"
    [ "$xf" -ne 0 ] && msg="$msg, $xf expected failures (XFAIL below)"
    [ "$xpass" -ne 0 ] && msg="$msg, $xpass pending ones passed (XPASS: remove them from HARNESS_PENDING)"
    if [ $failed -ne 0 ] || [ $xpass -ne 0 ]; then
        echo "FAIL $msg, $failed failed"
        grep -E "$n:[0-9]+[: ]" "$out" | sed 's/^/    /' | head -n 8
    else
        echo "PASS $msg"
    fi
    [ $xf -ne 0 ] && echo "XFAIL evp_test $n [$label]: $xf stanzas pending (HARNESS_PENDING), lines$xf_lines"
    return 0
}

is_pending() {
    [ -n "$HARNESS_PENDING" ] || return 1
    printf '%s\n' "$HARNESS_PENDING" | grep -qxF "$1|$2"
}

# The trace names the kernels the provider loaded with: they must be the forced ones.
check_kernel() {
    line=$(grep -m1 '^chacha-provider: loaded' "$1")
    if [ -z "$line" ]; then
        bad "[$label]: our provider did not load (no trace)" 1; sed 's/^/    /' "$1" | tail -n 8; return 1
    fi
    for want in ${c_impl:+chacha20=$c_impl} ${p_impl:+poly1305=$p_impl}; do
        case " $line " in
        *" $want "*) ;;
        *) bad "[$label]: forced $want, the trace says: $line" 1; return 1 ;;
        esac
    done
}

# ssl_test on every generated ssl-tests file, one case per process: each must pass,
# and every case expecting a ChaCha20-Poly1305 suite must show our contexts.
run_ssl_test() {
    for cnf in "$H"/ssl-tests/*.cnf; do
        n=$(basename "$cnf")
        num=$(sed -n 's/^num_tests *= *//p' "$cnf")
        np=0; nf=0; carried=
        i=1
        while [ "$i" -le "$num" ]; do
            k=$((i - 1))
            name=$(sed -n "s/^test-$k *= *//p" "$cnf")
            exp=$(awk -v s="[test-$k]" '$0 == s { p = 1; next } /^\[/ { p = 0 } p && /^ExpectedCipher/' "$cnf")
            out=$work/ssl_test.out
            TEST_CERTS_DIR=$H/certs CTLOG_FILE=$H/ct/log_list.cnf \
                run_prog ssl_test -iter "$i" "$cnf" chacha "$1" >"$out" 2>&1
            rc=$?
            ctx=$(grep -c "$TRACE_AEAD" "$out")
            [ "$ctx" -gt 0 ] && carried="$carried $name"
            if [ $rc -ne 0 ]; then
                nf=$((nf + 1)); echo "    case $name failed:"; tail -n 15 "$out" | sed 's/^/      /'
            elif printf '%s' "$exp" | grep -qi chacha && [ "$ctx" -eq 0 ]; then
                nf=$((nf + 1)); echo "    case $name negotiated ChaCha20-Poly1305, but not with our provider"
            else
                np=$((np + 1))
            fi
            i=$((i + 1))
        done
        tally "ssl_test $n [$label]: $np/$num cases passed, carried by ours:" $np $nf "$carried"
    done
}

# tally MSG NP NF CARRIED: a test's cases; if ours carried none, that is one more failure
tally() {
    pass=$((pass + $2))
    if [ -z "$4" ]; then fail=$((fail + $3 + 1)); echo "FAIL $1 none, so ours went untested"
    elif [ "$3" -ne 0 ]; then fail=$((fail + $3)); echo "FAIL $1$4"
    else echo "PASS $1$4"; fi
}

# sslapitest: every iteration of the listed tests, one per process; each must pass and
# each test must have iterations carried by our contexts.
run_sslapitest() {
    args="$H/certs $H/sslapi/passwd.txt $work/sslapi.tmp default $1 $H/sslapi/dhparams.pem $H/sslapi"
    # shellcheck disable=SC2086
    run_prog sslapitest -list $args >"$work/sslapi.list" 2>&1
    for t in $SSLAPI_TESTS; do
        line=$(grep -E "^ *[0-9]+ - $t( |\$)" "$work/sslapi.list")
        if [ -z "$line" ]; then bad "sslapitest [$label]: no test $t in this sslapitest" 1; continue; fi
        num=$(printf '%s' "$line" | sed -n 's/.*(1\.\.\([0-9]*\)).*/\1/p')
        np=0; nf=0; carried=
        i=1
        while [ "$i" -le "${num:-1}" ]; do
            out=$work/sslapi.out
            # shellcheck disable=SC2086
            run_prog sslapitest -test "$t" ${num:+-iter $i} $args >"$out" 2>&1
            rc=$?
            [ "$(grep -c "$TRACE_AEAD" "$out")" -gt 0 ] && carried="$carried $i"
            if [ $rc -ne 0 ]; then
                nf=$((nf + 1)); echo "    $t iteration $i failed:"; tail -n 15 "$out" | sed 's/^/      /'
            else
                np=$((np + 1))
            fi
            i=$((i + 1))
        done
        tally "sslapitest $t [$label]: $np/${num:-1} iterations passed, carried by ours (iterations):" \
            $np $nf "$carried"
    done
}

# quic_record_test (3.5): each test must pass with our contexts in its trace
run_quic_record() {
    [ -x "$H/bin/quic_record_test" ] || return 0
    for t in $QUIC_TESTS; do
        out=$work/quic.out
        prog_conf=$1
        run_prog quic_record_test -test "$t" >"$out" 2>&1
        rc=$?
        prog_conf=
        aead=$(grep -c "$TRACE_AEAD" "$out"); hp=$(grep -c 'new ChaCha20 context' "$out")
        [ $rc -eq 0 ] || grep -E 'ERROR|not ok' "$out" | head -n 8 | sed 's/^/    /'
        carried=; [ $((aead + hp)) -gt 0 ] && carried=" $aead ChaCha20-Poly1305 and $hp ChaCha20 contexts"
        tally "quic_record_test $t [$label]: $((1 - (rc != 0)))/1 passed, carried by ours:" \
            $((rc == 0)) $((rc != 0)) "$carried"
    done
}

# run_all DIR [evp|libssl|all] [libssl config]: the harness against DIR/chacha.so, once
# per kernel of LIST_KERNELS (every ChaCha20 kernel, then every other Poly1305 one)
run_all() {
    moddir=$1; what=${2:-all}; sslcnf=${3:-$cfg/default-chacha.cnf}
    [ -f "$moddir/chacha.so" ] || die "no chacha.so in $moddir"
    runs="auto:auto"
    if [ -n "${LIST_KERNELS:-}" ]; then
        runs=
        for c in $("$LIST_KERNELS" chacha20); do runs="$runs $c:auto"; done
        first=
        for p in $("$LIST_KERNELS" poly1305); do
            [ -z "$first" ] && { first=$p; continue; }
            runs="$runs auto:$p"
        done
    fi
    [ "$what" = libssl ] || select_evp_files
    for r in $runs; do
        c_impl=${r%:*}; p_impl=${r#*:}
        [ "$c_impl" = auto ] && c_impl=; [ "$p_impl" = auto ] && p_impl=
        label="chacha20=${c_impl:-auto} poly1305=${p_impl:-auto}"
        echo "=== OpenSSL $v harness, $label"
        if [ "$what" != libssl ]; then
            for f in $evp_files; do evp_file "$f"; done
        fi
        if [ "$what" != evp ]; then
            run_ssl_test "$sslcnf"
            run_sslapitest "$sslcnf"
            run_quic_record "$sslcnf"
        fi
    done
}

run_legacy() { evp_cnf=$cfg/only-legacy.cnf; expect_ours=0; run_all "$1" evp; }

summary() { echo "$1: $pass passed, $fail failed, $xfail expected failures (HARNESS_PENDING)"; }

# A control: the harness run as a child, output in $work/control-NAME.log; it must fail.
control() {
    ctl=$1; shift
    clog=$work/control-$ctl.log
    ( pass=0; fail=0; xfail=0; LIST_KERNELS=; "$@"; summary "control"; [ $fail -eq 0 ] ) >"$clog" 2>&1
    rc=$?
    got=$(tail -n 1 "$clog" | sed 's/^control: //')
    if [ $rc -ne 0 ] && grep -q -- "$control_must" "$clog"; then
        ok "control $ctl: the harness fails as it must ($got)" 1
    else
        bad "control $ctl: the harness did not fail as it must ($got)" 1
    fi
    grep -E '^(PASS|FAIL) ' "$clog" | sed 's/^/    | /' | head -n 12
}

# The provider rebuilt with --enable-test-broken-kernel (a wrong ChaCha20).
broken_build() {
    bb=${HARNESS_BROKEN:-$work/broken}
    mkdir -p "$bb"
    ( cd "$bb" && { [ -f Makefile ] ||
        "${srcdir:?srcdir: the project source tree}/configure" --enable-test-broken-kernel; } &&
      make -j"$jobs" chacha.la ) >"$work/broken-build.log" 2>&1 ||
        { tail -n 20 "$work/broken-build.log"; return 1; }
}

cmd=${1:-}; series=${2:-}
[ -n "$series" ] || die "usage: $0 prepare|run|ci 3.0|3.5 [DIR]"
pass=0; fail=0; xfail=0
evp_cnf=; expect_ours=1; prog_conf=
case $cmd in
prepare)
    prepare "$series"
    cat "$H/MANIFEST"
    ;;
run|ci)
    t_start=$(date +%s)
    prepare "$series" || exit 2
    sed 's/^/harness: /' "$H/MANIFEST"
    work=${HARNESS_WORK:-$(pwd)/harness}
    mkdir -p "$work"; work=$(cd "$work" && pwd)
    cfg=$work/cnf
    legacy_so=$(openssl version -m | sed -n 's/^MODULESDIR: "\(.*\)"/\1/p')/legacy.so
    [ -d "$H/runtime" ] && legacy_so=$H/runtime/$libdir/ossl-modules/legacy.so
    write_configs "$cfg"
    evp_cnf=$cfg/only-chacha.cnf
    if [ "$cmd" = run ]; then
        run_all "$(cd "${3:?usage: $0 run $series DIR}" && pwd)"
        summary "harness-$series"
        [ $fail -eq 0 ]; exit
    fi
    mods=$(cd "${CHACHA_MODULES:-.libs}" && pwd)
    run_all "$mods"
    t_real=$(date +%s)
    echo "=== controls: each must make the harness fail"
    # a wrong ChaCha20 (one key bit) must fail OpenSSL's ChaCha20 stanzas
    if broken_build; then
        control_must='^FAIL evp_test evpciph_chacha.txt'
        # wrong only after the load: its self-test would refuse it (test/integration/selftest-broken.sh)
        export CHACHA_TEST_BROKEN_KERNEL=after-load
        control broken-kernel run_all "$bb/.libs"
        unset CHACHA_TEST_BROKEN_KERNEL
    else
        bad "control broken-kernel: the --enable-test-broken-kernel build failed" 1
    fi
    # OpenSSL's legacy provider (no ChaCha20) in place of ours: evp_test must fail
    control_must='^FAIL evp_test evpciph_chacha.txt.*: 0/'
    control legacy-provider run_legacy "$mods"
    # ours loaded, default preferred: the default provider carries the records and the
    # trace check must notice
    control_must='so ours went untested'
    control prefer-default run_all "$mods" libssl "$cfg/prefer-default.cnf"
    note "times: real provider $((t_real - t_start))s (incl. prepare), controls $(( $(date +%s) - t_real ))s"
    summary "harness-$series"
    [ $fail -eq 0 ]; exit
    ;;
*) die "usage: $0 prepare|run|ci 3.0|3.5 [DIR]" ;;
esac
