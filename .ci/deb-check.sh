#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The Debian package end to end, each stage in a fresh Debian 12 root
# (debootstrap minbase, from .ci/run's cached tarball, made here when absent):
#   1. build root: the release tarball (make dist) unpacked with debian/
#      beside it; devscripts, equivs and lintian installed, the build
#      dependencies installed by mk-build-deps from debian/control alone,
#      `dpkg-buildpackage -us -uc -b` (make check-package inside), then
#      lintian on the result: no error, no warning;
#   2. test root: a second fresh root, `apt-get install ./<the .deb>` plus
#      the tests' Depends (from the archive), then debian/tests run there
#      (.ci/pkg-tests.sh) with no source tree and no build tools.
# Nothing is installed on the machine running it: the roots live in a
# temporary directory and their mounts in a private mount namespace.
# Needs root (chroot, mount), unshare, and the network for apt.
# Usage: .ci/deb-check.sh TARBALL OUTDIR   (TARBALL: chacha-provider-V.tar.gz)
#        .ci/deb-check.sh DEB OUTDIR       (a built chacha-provider_*.deb: stage 2 only)
# Prints "deb-check: N passed, N failed"; logs and the .deb go to OUTDIR.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
tarball=${1:?usage: .ci/deb-check.sh TARBALL OUTDIR}
out=${2:?usage: .ci/deb-check.sh TARBALL OUTDIR}
cache=${CHACHA_CACHE:-${HOME:-/root}/.cache/chacha-provider}
rootball=$cache/bookworm-minbase-amd64.tar.gz      # the one .ci/run makes
pass=0
fail=0
t0=$(date +%s)
ok() { pass=$((pass + 1)); echo "ok - $* ($(($(date +%s) - t0)) s)"; }
bad() { fail=$((fail + 1)); echo "FAIL - $* ($(($(date +%s) - t0)) s)"; }
finish() { echo "deb-check: $pass passed, $fail failed"; [ "$fail" -eq 0 ] && exit 0; exit 1; }
# step LABEL LOG COMMAND...: one check, its output in OUTDIR/LOG (tail on failure)
step() {
    label=$1 log=$out/$2; shift 2
    if "$@" >"$log" 2>&1; then ok "$label"; return 0; fi
    bad "$label (log: $log)"; tail -n 40 "$log"; return 1
}

mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
[ -f "$tarball" ] || { bad "release tarball $tarball missing (make dist)"; finish; }
[ "$(id -u)" -eq 0 ] || { bad "needs root (chroot and mounts in fresh roots)"; finish; }
for t in unshare chroot; do
    command -v $t >/dev/null 2>&1 || { bad "$t not found"; finish; }
done
mkdir -p "$cache/apt-archives/partial" || { bad "cannot create $cache"; finish; }
work=$(mktemp -d "${TMPDIR:-/var/tmp}/chacha-deb.XXXXXX") || exit 1
trap 'rm -rf --one-file-system "$work"' EXIT
trap 'exit 1' INT TERM HUP

# the minbase tarball, when .ci/run has not made it on this machine
make_rootball() {
    command -v debootstrap >/dev/null 2>&1 || "$top/scripts/install-deps" deb || return 1
    mirror=$(apt-get indextargets --format '$(REPO_URI) $(CODENAME)' 2>/dev/null |
        awk '$2 == "bookworm" { print $1; exit }')
    [ -n "$mirror" ] || { echo "no bookworm mirror in apt's sources"; return 1; }
    debootstrap --variant=minbase bookworm "$work/boot" "$mirror" &&
        tar -C "$work/boot" --numeric-owner -czf "$work/root.tar.gz" . &&
        mv "$work/root.tar.gz" "$rootball" && rm -rf --one-file-system "$work/boot"
}
# fresh_root DIR: the minbase root unpacked, this machine's bookworm apt
# sources, name resolution, and no service started by a package
fresh_root() {
    mkdir "$1" && tar -C "$1" --numeric-owner -xzf "$rootball" || return 1
    rm -f "$1/etc/apt/sources.list"
    for f in $(grep -l -s bookworm /etc/apt/sources.list /etc/apt/sources.list.d/*); do
        cp "$f" "$1$f" || return 1
    done
    cp /etc/resolv.conf /etc/hosts "$1/etc/" 2>/dev/null
    printf '#!/bin/sh\nexit 101\n' >"$1/usr/sbin/policy-rc.d" && chmod 755 "$1/usr/sbin/policy-rc.d" &&
    # a throwaway root: no fsync per unpacked file, no man-db index rebuilds
    echo force-unsafe-io >"$1/etc/dpkg/dpkg.cfg.d/unsafe-io" &&
    mkdir -p "$1/var/lib/man-db" && rm -f "$1/var/lib/man-db/auto-update"
}
# in_root DIR SCRIPT: SCRIPT (sh -e) as root in DIR, a clean environment,
# /dev and /proc mounted, apt's downloads cached in $cache/apt-archives
# Mounts for a root live in a private mount namespace. Inside a chroot (the
# fresh root .ci/run runs this in) "/" is no mount point, so unshare cannot
# make it private ("cannot change root filesystem propagation"); there the
# namespace around us is already private (.ci/run made it so), and the new
# one inherits that unchanged.
propagation=private
unshare --mount --propagation private true 2>/dev/null || propagation=unchanged
in_root() {
    # shellcheck disable=SC2016
    unshare --mount --propagation "$propagation" sh -c '
        r=$1 cache=$2
        mount --rbind /dev "$r/dev" && mount -t proc proc "$r/proc" &&
            mount --bind "$cache/apt-archives" "$r/var/cache/apt/archives" || exit 1
        chroot "$r" chown _apt:root /var/cache/apt/archives/partial 2>/dev/null
        exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
            LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive \
            DEB_BUILD_OPTIONS="parallel=$4" sh -ec "$3" </dev/null
    ' in-root "$1" "$cache" "$2" "${JOBS:-2}"
}
apt_install="echo 'man-db man-db/auto-update boolean false' | debconf-set-selections &&
    apt-get update -qq && apt-get install -y -q --no-install-recommends"

if [ ! -s "$rootball" ]; then
    step "debootstrap minbase bookworm (cached as $rootball)" debootstrap.log make_rootball || finish
fi

# ---- 1. build root -----------------------------------------------------------
# build_package: stage 1, the .deb, .buildinfo and .changes copied to OUTDIR
build_package() {
    b=$work/build
    step "build root unpacked" build-root.log fresh_root "$b" || finish
    name=$(basename "$tarball" .tar.gz)              # chacha-provider-0.3.0
    version=${name##*-}
    src=/root/$name
    tar -C "$b/root" -xzf "$tarball" && cp -R "$top/debian" "$b$src/" &&
        cp "$tarball" "$b/root/chacha-provider_$version.orig.tar.gz" ||
        { bad "unpacking $tarball with debian/"; finish; }
    pkgver=$(cd "$top" && dpkg-parsechangelog -S Version 2>/dev/null ||
        sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' debian/changelog)
    [ "${pkgver%-*}" = "$version" ] && ok "debian/changelog $pkgver is the tarball's version $version" ||
        bad "debian/changelog $pkgver is not the tarball's version $version"
    step "devscripts, equivs, lintian in the build root" build-tools.log \
        in_root "$b" "$apt_install devscripts equivs lintian" || finish
    step "mk-build-deps installs debian/control's Build-Depends" build-deps.log \
        in_root "$b" "cd /root && mk-build-deps -i -r -t 'apt-get -y -q --no-install-recommends' $src/debian/control" || finish
    step "dpkg-buildpackage -us -uc -b (make check-package inside)" dpkg-buildpackage.log \
        in_root "$b" "cd $src && dpkg-buildpackage -us -uc -b" || finish
    grep -E '^(PASS|FAIL|SKIP|XFAIL|ERROR):' "$out/dpkg-buildpackage.log" | sed 's/^/  build: /'
    cp "$b"/root/*.deb "$b"/root/*.buildinfo "$b"/root/*.changes "$out/" || { bad "no .deb built"; finish; }
    step "lintian: no error, no warning (info tags in lintian.log)" lintian.log \
        in_root "$b" "lintian -I --fail-on error,warning /root/chacha-provider_${pkgver}_*.changes"
    cat "$out/lintian.log"
    rm -rf --one-file-system "$b"
}
case $tarball in
*.deb) cp "$tarball" "$out/" || finish ;;
*) build_package ;;
esac

# ---- 2. test root --------------------------------------------------------------
c=$work/test
step "test root unpacked" test-root.log fresh_root "$c" || finish
mkdir -p "$c/root/pkg/debian" && cp "$out"/chacha-provider_*.deb "$c/root/pkg/" &&
    cp -R "$top/debian/tests" "$c/root/pkg/debian/" && cp "$top/.ci/pkg-tests.sh" "$c/root/pkg/" ||
    { bad "copying the .deb and debian/tests"; finish; }
deps=$(cd "$c/root/pkg" && sh pkg-tests.sh --depends | grep -vx chacha-provider | tr '\n' ' ')
step "apt-get install ./chacha-provider_*.deb $deps(from the archive)" install.log \
    in_root "$c" "cd /root/pkg && $apt_install ./chacha-provider_*.deb $deps && dpkg -L chacha-provider" || finish
sed -n '/^\/usr/p' "$out/install.log" | grep -v '/$' | sed 's/^/  installed: /'
in_root "$c" "cd /root/pkg && exec sh pkg-tests.sh" >"$out/pkg-tests.log" 2>&1
rc=$?
cat "$out/pkg-tests.log"
[ $rc -eq 0 ] && ok "package tests in the test root" || bad "package tests in the test root"
finish
