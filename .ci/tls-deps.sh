#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Installs (idempotently, only what is missing) the external programs the TLS
# interoperability tests use: gnutls-cli/gnutls-serv, nginx, curl.
# Without them test/tls_gnutls.sh and test/tls_nginx.sh exit 77 (skip).
# nginx: Debian 12's nginx-light (a thin package on top of `nginx`) when the
# archive has it, else `nginx`. The package's own service is kept from
# starting (policy-rc.d) so nothing listens on port 80 afterwards.
set -eu
missing=
command -v gnutls-cli >/dev/null 2>&1 && command -v gnutls-serv >/dev/null 2>&1 || missing="$missing gnutls-bin"
command -v curl >/dev/null 2>&1 || missing="$missing curl"
if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
    if apt-cache policy nginx-light 2>/dev/null | grep -q 'Candidate: [0-9]'; then
        missing="$missing nginx-light"
    else
        missing="$missing nginx"
    fi
fi
[ -z "$missing" ] && { echo "tls-deps: nothing to install"; exit 0; }

echo "tls-deps: installing:$missing"
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
prc=/usr/sbin/policy-rc.d
own_prc=
if [ ! -e "$prc" ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee "$prc" >/dev/null
    $sudo chmod 755 "$prc"
    own_prc=1
fi
rc=0
$sudo apt-get update -qq || rc=$?
# shellcheck disable=SC2086
[ $rc -eq 0 ] && { $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null || rc=$?; }
[ -n "$own_prc" ] && $sudo rm -f "$prc"
exit $rc
