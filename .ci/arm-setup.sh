#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Idempotent install of what the ARM cross builds and qemu tests need:
#  - aarch64: cross gcc, libssl-dev:arm64, pkgconf:arm64 (so ./configure --host
#    reads the arm64 libcrypto.pc), and the arm64 openssl CLI unpacked under
#    /opt/arm64-openssl (installing openssl:arm64 would remove openssl:amd64);
#  - armv7:   cross gcc (armhf), and an armhf libcrypto (see step 3);
#  - qemu-user for both.
# Installing libssl-dev:<foreign> upgrades the amd64 OpenSSL packages to the same
# version: expected. apt updates are transactional per repository, so one broken
# foreign index (seen: armhf on a syncing security mirror) hides the arm64 one too;
# armhf is therefore added in a second, optional step that backs out on failure.
# Usage: arm-setup.sh [--no-armhf-libssl]
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
# it changes the system (packages, dpkg architectures, /opt): as root, or
# through sudo (README, "What it needs and changes on the machine")
if [ "$(id -u)" -ne 0 ]; then exec sudo -E bash "$0" "$@"; fi

want_armhf_ssl=1
[ "${1:-}" = "--no-armhf-libssl" ] && want_armhf_ssl=0

have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
has_arch() { dpkg --print-foreign-architectures | grep -qx "$1"; }
apt_update() { apt-get update -q >/tmp/arm-setup-apt.log 2>&1 || { sleep 5; apt-get update -q >/tmp/arm-setup-apt.log 2>&1; }; }
install_missing() {
    local missing=() p
    for p in "$@"; do have_pkg "$p" || missing+=("$p"); done
    [ "${#missing[@]}" -eq 0 ] && return 0
    apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# 1. arm64 + the cross compilers (these are amd64 packages) + qemu
# (named in scripts/install-deps, job arm; libubsan1:arm64 is the UBSan
# runtime of the emulated sanitizer run)
mapfile -t base < <(sh "$(dirname "$0")/../scripts/install-deps" --list arm)
if ! install_missing "${base[@]}" 2>/dev/null; then
    has_arch arm64 || dpkg --add-architecture arm64
    if ! apt_update; then
        # a broken armhf index must not block arm64: retry without armhf
        if has_arch armhf && ! have_pkg libssl3:armhf; then
            dpkg --remove-architecture armhf
        fi
        apt_update || { cat /tmp/arm-setup-apt.log; exit 1; }
    fi
    install_missing "${base[@]}"
fi

# 2. the arm64 openssl CLI, unpacked beside the amd64 one
ver=$(dpkg-query -W -f='${Version}' libssl3:arm64)
stamp=/opt/arm64-openssl/.version
if [ ! -x /opt/arm64-openssl/usr/bin/openssl ] || [ "$(cat "$stamp" 2>/dev/null)" != "$ver" ]; then
    d=$(mktemp -d) && chmod 755 "$d"     # readable by _apt
    (cd "$d" && apt-get download -q "openssl:arm64=$ver")
    rm -rf /opt/arm64-openssl
    dpkg -x "$d"/openssl_*_arm64.deb /opt/arm64-openssl
    echo "$ver" > "$stamp"
    rm -rf "$d"
fi

# 3. armhf libcrypto: libssl-dev:armhf when its index can be had; otherwise the
#    armhf libssl3 + libssl-dev debs unpacked into a private sysroot,
#    /opt/armhf-openssl (the bookworm main index is enough for that). Build with
#    CRYPTO_CFLAGS="-I$S/usr/include -I$S/usr/include/arm-linux-gnueabihf"
#    CRYPTO_LIBS="-L$S/usr/lib/arm-linux-gnueabihf -lcrypto" (S=/opt/armhf-openssl)
#    and run with qemu-arm -L /usr/arm-linux-gnueabihf -E LD_LIBRARY_PATH=$S/usr/lib/arm-linux-gnueabihf.
#    libsodium (the XChaCha differential's reference) comes the same way.
armhf_sysroot=/opt/armhf-openssl
if [ "$want_armhf_ssl" = 1 ] && { { ! have_pkg libssl-dev:armhf \
        && [ ! -e "$armhf_sysroot/usr/lib/arm-linux-gnueabihf/libcrypto.so" ]; } \
        || { ! have_pkg libsodium-dev:armhf \
        && [ ! -e "$armhf_sysroot/usr/lib/arm-linux-gnueabihf/libsodium.so" ]; } \
        || [ ! -x "$armhf_sysroot/usr/bin/openssl" ]; }; then
    added=0
    has_arch armhf || { dpkg --add-architecture armhf; added=1; }
    if apt_update && install_missing libssl-dev:armhf libsodium-dev:armhf; then
        # the armhf openssl CLI, unpacked (as for arm64) for the CLI tests;
        # no libraries of an earlier unpack may stay beside it
        rm -rf "$armhf_sysroot"
        d=$(mktemp -d) && chmod 755 "$d"
        (cd "$d" && apt-get download -q "openssl:armhf=$(dpkg-query -W -f='${Version}' libssl3:armhf)") &&
            dpkg -x "$d"/openssl_*_armhf.deb "$armhf_sysroot"
        rm -rf "$d"
    else
        d=$(mktemp -d) && chmod 755 "$d"
        if (cd "$d" && apt-get download -q libssl3:armhf libssl-dev:armhf openssl:armhf \
                libsodium23:armhf libsodium-dev:armhf); then
            rm -rf "$armhf_sysroot"
            for f in "$d"/*.deb; do dpkg -x "$f" "$armhf_sysroot"; done
            echo "arm-setup: libssl-dev:armhf not installable; unpacked into $armhf_sysroot" >&2
        else
            echo "arm-setup: no armhf libcrypto (see /tmp/arm-setup-apt.log); armv7 provider build skipped" >&2
        fi
        rm -rf "$d"
        if [ "$added" = 1 ] && ! have_pkg libssl3:armhf; then
            dpkg --remove-architecture armhf
            apt_update || true
        fi
    fi
fi

qemu-aarch64 -L / /opt/arm64-openssl/usr/bin/openssl version
if have_pkg libssl-dev:armhf; then
    echo "armhf libcrypto: libssl-dev:armhf"
elif [ -e "$armhf_sysroot/usr/lib/arm-linux-gnueabihf/libcrypto.so" ]; then
    echo "armhf libcrypto: $armhf_sysroot"
else
    echo "armhf libcrypto: none"
fi
