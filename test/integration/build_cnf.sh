#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The build tree's chacha-provider-build.cnf (the README's build-tree
# recipe): it names the built module by absolute path, loads it with
# OPENSSL_MODULES unset, and libcrypto's own modules (legacy) still load
# beside it. Negative control: OPENSSL_MODULES pointed at the build, the
# recipe this replaced, hides legacy, and the same check sees it.
set -u
: "${OPENSSL:=openssl}"
: "${builddir:?builddir not set}"
unset OPENSSL_MODULES
cnf=$builddir/chacha-provider-build.cnf
. "$(dirname "$0")/../lib/lib.sh"
result() { # result "label" status
    if [ "$2" -eq 0 ]; then ok "$1"; else bad "$1"; fi
}
# legacy DIR: chacha (through the cnf) and legacy both listed active
both_active() {
    # shellcheck disable=SC2086  # $OPENSSL may be "qemu-aarch64 -L / .../openssl"
    out=$(env ${1:+OPENSSL_MODULES=$1} OPENSSL_CONF="$cnf" $OPENSSL list -providers \
        -provider legacy -provider default 2>&1)
    echo "$out" | sed 's/^/#   /'
    echo "$out" | grep -q '^  chacha$' && echo "$out" | grep -q '^  legacy$'
}

grep -qx "module = $builddir/.libs/chacha.so" "$cnf"
result "$cnf names $builddir/.libs/chacha.so" $?
# shellcheck disable=SC2086
if $OPENSSL list -providers -provider legacy >/dev/null 2>&1; then
    both_active ""
    result "OPENSSL_CONF=$cnf: chacha and legacy both load" $?
    both_active "$builddir/.libs"
    [ $? -ne 0 ]
    result "negative control: with OPENSSL_MODULES=$builddir/.libs legacy is hidden" $?
else
    echo "# this OpenSSL has no legacy provider: the legacy checks do not apply"
    # shellcheck disable=SC2086
    OPENSSL_CONF=$cnf $OPENSSL list -providers | grep -q '^  chacha$'
    result "OPENSSL_CONF=$cnf: chacha loads" $?
fi
summary build_cnf
