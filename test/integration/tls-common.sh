# SPDX-License-Identifier: Apache-2.0
# Shared helpers for the TLS integration tests (test/integration/tls_*.sh); sourced, not run.
#
# Environment (all optional):
#   srcdir           source tree (default: the directory above this file)
#   builddir         build tree (default: the current directory if it is one,
#                    else $srcdir/_build)
#   OPENSSL          the openssl command (default: openssl)
#   OPENSSL_MODULES  directory holding chacha.so (default: $builddir/.libs)
#   TLS_PEER         the test/integration/tls_peer program (default: $builddir/test/integration/tls_peer;
#                    compiled into the temp dir with $CC when it is missing)
#   TLS_TIMEOUT      seconds any one step may take (default 60)
#
# Every server is started by the test, on 127.0.0.1 only, killed by the EXIT
# trap, and every wait is bounded.

: "${srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
srcdir=$(cd "$srcdir" && pwd)
if [ -z "${builddir:-}" ]; then
    # make check runs tests from the build tree; by hand, _build/ (demo.sh's)
    if [ -f ./Makefile ] && [ -f ./config.status ]; then builddir=$(pwd)
    elif [ -f "$srcdir/_build/Makefile" ]; then builddir=$srcdir/_build
    else builddir=$(pwd); fi
fi
builddir=$(cd "$builddir" && pwd)
: "${OPENSSL:=openssl}"
: "${OPENSSL_MODULES:=$builddir/.libs}"
: "${TLS_TIMEOUT:=60}"
export OPENSSL_MODULES
unset OPENSSL_CONF   # CHACHA_PROVIDER_IMPL etc. pass through: pin a kernel for a whole run
export CHACHA_PROVIDER_DEBUG=1
TRACE='new ChaCha20-Poly1305 context'

# The ARM jobs run the suite under qemu: the TLS integration is a host job
# (OpenSSL's own s_server/s_client, GnuTLS and nginx are host programs)
if [ -n "${EMULATOR:-}" ]; then
    echo "SKIP: TLS integration tests run on the host build, not under $EMULATOR"
    exit 77
fi

# shellcheck source=test/lib/lib.sh
. "$srcdir/test/lib/lib.sh"
pids=
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tls-test.XXXXXX")
chmod 755 "$tmp"
t_start=$(date +%s)

# kill_tree PID: PID and its descendants (the processes this test started)
kill_tree() {
    local _k
    pid_ports "$1" >/dev/null   # sets ps_list: PID and its descendants
    for _k in $ps_list; do
        kill "$_k" 2>/dev/null
    done
}

cleanup() {
    for p in $pids; do
        kill_tree "$p"
    done
    for p in $pids; do
        wait "$p" 2>/dev/null
    done
    if [ "$fail" -ne 0 ] && [ -n "${TLS_KEEP:-}" ]; then
        echo "# kept $tmp"
    else
        rm -rf "$tmp"
    fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# show a file indented, as a diagnostic
show() { [ -f "$1" ] && sed -e 's/^/#   /' "$1" | head -n "${2:-25}"; }
# expect_eq "label" got want
expect_eq() {
    if [ "$2" = "$3" ]; then ok "$1"; else bad "$1 (got '$2', want '$3')"; fi
}

# The summary line and the exit status.
finish() {
    local name=$1
    echo "# $name: $(($(date +%s) - t_start)) s"
    summary "$name" && exit 0
    exit 1
}

# skip "why": exit 77 (automake's skip) -- only for a missing external tool
skip() {
    echo "# SKIP: $1"
    echo "${name:-tls}: 0 passed, 0 failed (skipped: $1)"
    exit 77
}

# The ChaCha20-Poly1305 suites: name -> openssl options, certificate type,
# TLS version, OpenSSL suite name.
suite_opts() {
    case $1 in
    tls13) echo "-tls1_3 -ciphersuites TLS_CHACHA20_POLY1305_SHA256" ;;
    tls12-ecdsa) echo "-tls1_2 -cipher ECDHE-ECDSA-CHACHA20-POLY1305" ;;
    tls12-rsa) echo "-tls1_2 -cipher ECDHE-RSA-CHACHA20-POLY1305" ;;
    esac
}
suite_cert() { case $1 in tls12-rsa) echo rsa ;; *) echo ec ;; esac; }
suite_ver() { case $1 in tls13) echo 1.3 ;; *) echo 1.2 ;; esac; }
suite_cipher() {
    case $1 in
    tls13) echo TLS_CHACHA20_POLY1305_SHA256 ;;
    tls12-ecdsa) echo ECDHE-ECDSA-CHACHA20-POLY1305 ;;
    tls12-rsa) echo ECDHE-RSA-CHACHA20-POLY1305 ;;
    esac
}

# How an openssl command loads the provider: none | flags | conf (the
# $tmp/chacha.cnf written by make_conf). Sets $app_env (an env prefix) and
# $app_flags; uses MODE says whether the provider is expected in the trace.
app_mode() {
    case $1 in
    none) app_env="env -u OPENSSL_CONF"; app_flags= ;;
    flags) app_env="env -u OPENSSL_CONF"
           app_flags="-provider chacha -provider default -propquery ?provider=chacha" ;;
    conf) app_env="env OPENSSL_CONF=$tmp/chacha.cnf"; app_flags= ;;
    esac
}
uses() { [ "$1" != none ] && echo yes || echo no; }

# skip_if_sanitized WHAT: a sanitizer-built module needs its runtime
# preloaded into every process that loads it; only $OPENSSL (a wrapper in
# test/integration/sanitize.sh) and our own programs have it. The host run covers WHAT.
skip_if_sanitized() {
    if ldd "$OPENSSL_MODULES/chacha.so" 2>/dev/null | grep -q -E 'lib(asan|tsan|ubsan)'; then
        skip "sanitizer-built module: $1 cannot load it (the host run covers it)"
    fi
}

need_module() {
    if [ ! -f "$OPENSSL_MODULES/chacha.so" ]; then
        echo "FAIL - chacha.so not found in OPENSSL_MODULES=$OPENSSL_MODULES (build first)"
        echo "${name:-tls}: 0 passed, 1 failed"
        exit 1
    fi
}

# Finds or builds test/integration/tls_peer.
need_tls_peer() {
    if [ -z "${TLS_PEER:-}" ]; then
        TLS_PEER=$builddir/test/integration/tls_peer
        if [ ! -x "$TLS_PEER" ]; then
            TLS_PEER=$tmp/tls_peer
            # shellcheck disable=SC2046
            if ! ${CC:-cc} -std=c11 -O2 -Wall -Wextra -o "$TLS_PEER" "$srcdir/test/integration/tls_peer.c" \
                $(pkg-config --cflags --libs libssl libcrypto 2>/dev/null || echo -lssl -lcrypto) \
                >"$tmp/cc.log" 2>&1; then
                show "$tmp/cc.log"
                echo "FAIL - building tls_peer"
                echo "${name:-tls}: 0 passed, 1 failed"
                exit 1
            fi
        fi
    fi
}

# A configuration made from chacha-provider.cnf, naming the module by path.
make_conf() { # make_conf OUT
    sed -e "s|^\[chacha_sect\]|[chacha_sect]\nmodule = $OPENSSL_MODULES/chacha.so|" \
        "$srcdir/chacha-provider.cnf" >"$1"
}

# Throwaway EC (P-256) and RSA (2048) certificates: $tmp/ec.{crt,key}, $tmp/rsa.{crt,key}
make_certs() {
    env -u OPENSSL_CONF "$OPENSSL" req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
        -keyout "$tmp/ec.key" -out "$tmp/ec.crt" -subj /CN=localhost -days 2 \
        >"$tmp/req.log" 2>&1 &&
    env -u OPENSSL_CONF "$OPENSSL" req -x509 -newkey rsa:2048 -nodes \
        -keyout "$tmp/rsa.key" -out "$tmp/rsa.crt" -subj /CN=localhost -days 2 \
        >>"$tmp/req.log" 2>&1 || { show "$tmp/req.log"; return 1; }
    chmod 644 "$tmp"/*.key
}

# Ports ------------------------------------------------------------------
# The TCP ports PID (or one of its children) listens on, one per line.
pid_ports() {
    ps_list=$1
    level=$1
    for _d in 1 2 3; do   # children, grandchildren, great-grandchildren
        next=
        for pp in $level; do
            next="$next $(sed -n "s/^\([0-9]*\) (.*) [A-Za-z] $pp .*/\1/p" /proc/[0-9]*/stat 2>/dev/null | tr '\n' ' ')"
        done
        ps_list="$ps_list $next"
        level=$next
    done
    inodes=
    for p in $ps_list; do
        inodes="$inodes $(ls -l "/proc/$p/fd" 2>/dev/null | sed -n 's/.*socket:\[\([0-9]*\)\].*/\1/p' | tr '\n' ' ')"
    done
    [ -n "${inodes# }" ] || return 0
    for h in $(cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
               awk -v ino="$inodes" 'BEGIN { n = split(ino, a, " "); for (i = 1; i <= n; i++) w[a[i]] = 1 }
                   $4 == "0A" && ($10 in w) { split($2, x, ":"); print x[2] }'); do
        printf '%d\n' "0x$h"
    done
}

# wait_port PID [PORT]: waits until PID listens (on PORT), prints the port.
# Fails if PID exits first or after TLS_TIMEOUT seconds.
wait_port() {
    local i=0 got
    while [ $i -lt $((TLS_TIMEOUT * 20)) ]; do
        kill -0 "$1" 2>/dev/null || return 1
        got=$(pid_ports "$1" | head -n 1)
        if [ -n "${2:-}" ]; then
            pid_ports "$1" | grep -qx "$2" && { echo "$2"; return 0; }
        elif [ -n "$got" ]; then
            echo "$got"; return 0
        fi
        sleep 0.05
        i=$((i + 1))
    done
    return 1
}

# A random high port nobody listens on right now (collisions are then handled
# by the caller's retry).
random_port() {
    local p h
    while :; do
        p=$((20000 + ($(od -An -tu2 -N2 /dev/urandom | tr -d ' ') % 40000)))
        h=$(printf ':%04X ' "$p")
        cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk '$4 == "0A" { print $2 " " }' |
            grep -q "$h" || { echo "$p"; return; }
    done
}

# Background processes, killed by the EXIT trap
started() { pids="$pids $1"; }
# wait_pid PID SECONDS: waits for PID to exit (status in $wait_rc); kills it on timeout
wait_pid() {
    local i=0
    while kill -0 "$1" 2>/dev/null && [ $i -lt $(($2 * 20)) ]; do sleep 0.05; i=$((i + 1)); done
    if kill -0 "$1" 2>/dev/null; then
        kill "$1" 2>/dev/null
        wait "$1" 2>/dev/null
        wait_rc=124
        return 1
    fi
    wait "$1" 2>/dev/null
    wait_rc=$?
    return 0
}

# Traces -----------------------------------------------------------------
trace_count() { grep -c "$TRACE" "$1" 2>/dev/null || true; }
# assert_trace "label" FILE yes|no: our provider did / did not carry records
assert_trace() {
    local n
    n=$(trace_count "$2")
    if [ "$3" = yes ]; then
        if [ "${n:-0}" -ge 2 ]; then ok "$1: trace shows our ChaCha20-Poly1305 ($n contexts)"
        else bad "$1: no '$TRACE' trace"; show "$2"; fi
    else
        if ! grep -q 'chacha-provider' "$2" 2>/dev/null; then ok "$1: no chacha-provider trace"
        else bad "$1: unexpected chacha-provider trace"; show "$2"; fi
    fi
}

sha() { sha256sum <"$1" | cut -d' ' -f1; }

# http_body IN OUT: the body of an HTTP response (everything after the first
# empty header line)
http_body() {
    local off
    off=$(head -c 4096 "$1" | LC_ALL=C grep -a -b -m1 -x "$(printf '\r')" | cut -d: -f1)
    [ -n "$off" ] || { : >"$2"; return 1; }
    tail -c +$((off + 3)) "$1" >"$2"
}

# listens_on_loopback_only PID: every listening socket of PID is on 127.0.0.1 or ::1
listens_on_loopback_only() {
    local inodes p
    pid_ports "$1" >/dev/null
    inodes=
    for p in $ps_list; do
        inodes="$inodes $(ls -l "/proc/$p/fd" 2>/dev/null | sed -n 's/.*socket:\[\([0-9]*\)\].*/\1/p' | tr '\n' ' ')"
    done
    cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
        awk -v ino="$inodes" 'BEGIN { n = split(ino, a, " "); for (i = 1; i <= n; i++) w[a[i]] = 1; bad = 0; seen = 0 }
            $4 == "0A" && ($10 in w) { seen++; split($2, x, ":");
                if (x[1] != "0100007F" && x[1] != "00000000000000000000000001000000") bad++ }
            END { exit !(seen > 0 && bad == 0) }'
}

# nginx_prefix DIR: a private prefix (logs/, tmp/) a worker that dropped its
# privileges can write to
nginx_prefix() { mkdir -p "$1/logs" "$1/tmp" && chmod 755 "$1" "$1/logs" "$1/tmp"; }
# nginx_temp_paths DIR: the http{} lines that keep nginx's temp files in DIR/tmp
nginx_temp_paths() {
    local t
    for t in client_body proxy fastcgi uwsgi scgi; do
        printf '    %s_temp_path %s/tmp/%s;\n' "$t" "$1" "${t#client_}"
    done
}
# nginx_head DIR WORKERS LEVEL: the main-context lines (foreground, the user
# of $nginx_user, pid and error log in DIR)
nginx_head() {
    printf 'daemon off;\n%s\nworker_processes %s;\npid %s/nginx.pid;\nerror_log %s/logs/error.log %s;\n' \
        "${nginx_user:-}" "$2" "$1" "$1" "$3"
}
