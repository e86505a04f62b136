#!/usr/bin/env bash
# arm64-root.sh — an emulated Debian arm64 root with Swift and SwiftCam's -dev packages, made once and cached, for
# building and testing SwiftCam for ARM64 on this x86-64 machine (qemu-user-static through binfmt_misc).
#
#   scripts/arm64-root.sh            make the root (or check the cached one) and print its path
#   scripts/arm64-root.sh run CMD…   run CMD as root inside it, in /src (this checkout, bind-mounted read-write)
#
# Debian stable has no Swift; unstable ships `swiftlang` for arm64 (and amd64), so the root is sid. The archive this
# machine reaches may be a dated snapshot: apt is told not to refuse an old Release file. ARM64_ROOT (default
# .build/arm64/root) moves it. As root (debootstrap, chroot, mounts, binfmt_misc).
set -euo pipefail
cd "$(dirname "$0")/.."
root=${ARM64_ROOT:-$PWD/.build/arm64/root}
mirror=${ARM64_MIRROR:-http://deb.debian.org/debian}
stamp="$root/.swiftcam-root-ready"
# What SwiftCam needs inside: the toolchain and the -dev packages of scripts/deps.sh that a build links against, and
# the GStreamer plugins the tests run.
packages=(
  swiftlang pkg-config build-essential ca-certificates
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev libgstrtspserver-1.0-dev
  libsoup-3.0-dev libssl-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly
)

die() { printf 'arm64-root: %s\n' "$*" >&2; exit 69; }
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, binfmt_misc)"
# shellcheck source=scripts/debian-packages.sh
. scripts/debian-packages.sh
install_missing debootstrap qemu-user-static binfmt-support

# binfmt_misc: the kernel runs arm64 binaries through qemu-aarch64-static once the format is registered.
if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
  mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc || die "cannot mount binfmt_misc"
fi
if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
  update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
  [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || die "qemu-aarch64 is not registered with binfmt_misc (update-binfmts --enable qemu-aarch64)"
fi

# mounted CMD…: runs CMD with /proc, /dev and this checkout mounted in the root, unmounting them however it ends.
mounted() {
  mkdir -p "$root/src"
  mount -t proc proc "$root/proc"
  mount --rbind /dev "$root/dev"
  mount --bind "$PWD" "$root/src"
  trap 'umount -l "$root/src" "$root/dev" "$root/proc" 2>/dev/null || true' RETURN
  "$@"
}

in_root() {
  mounted chroot "$root" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive /bin/sh -c "cd /src && $*"
}

if [ ! -e "$stamp" ]; then
  started=$(date +%s)
  rm -rf "$root"
  mkdir -p "$root"
  echo "arm64-root: debootstrap sid arm64 into $root (emulated: several minutes)" >&2
  debootstrap --arch=arm64 --variant=minbase --include=apt-utils sid "$root" "$mirror" >&2 \
    || die "debootstrap failed (log: $root/debootstrap/debootstrap.log)"
  echo 'Acquire::Check-Valid-Until "false";' >"$root/etc/apt/apt.conf.d/99snapshot"
  in_root "apt-get update -qq && apt-get install -y -qq --no-install-recommends ${packages[*]}" >&2 \
    || die "installing the toolchain and -dev packages in the root failed"
  date -u +%FT%TZ >"$stamp"
  echo "arm64-root: made in $(( $(date +%s) - started )) s, $(du -sh "$root" | cut -f1)" >&2
fi

case "${1:-}" in
  "") echo "$root" ;;
  run) shift; in_root "$*" ;;
  *) die "usage: scripts/arm64-root.sh [run CMD…]" ;;
esac
