#!/usr/bin/env bash
# arm64-root.sh — the Debian root in which SwiftCam is cross-built for ARM64 and its arm64 programs run emulated, made
# once and cached under .build/arm64 (ARM64_ROOT moves it). As root (mmdebstrap, chroot, mounts, binfmt_misc).
#
#   scripts/arm64-root.sh              make the root (or check the cached one) and print its path
#   scripts/arm64-root.sh gstreamer    add the arm64 GStreamer -dev packages and plugins (the element, the host, the
#                                      package need them; the Filters tests do not)
#   scripts/arm64-root.sh run CMD…     run CMD (one shell line) inside it, as root, in /src: this checkout, mounted
#   scripts/arm64-root.sh bare CMD…    the same with both Swift toolchains hidden (an empty tmpfs over /usr/libexec/swift and
#                                      /opt/swift-aarch64, in a mount namespace of its own): what a machine without Swift has
#
# Debian stable has no Swift; unstable ships `swiftlang` 6.2.3 for amd64 and for arm64, so the root is sid: amd64 with
# arm64 as a second architecture (multiarch). Its compiler is sid's amd64 swiftlang, the same version as the arm64
# package, whose Swift modules, runtime and static libraries are unpacked to /opt/swift-aarch64 (both packages install
# to /usr/libexec/swift, so dpkg cannot hold both); /opt/swift-aarch64/sdk/swift-sdk.json is the Swift SDK that
# `swift build --destination` cross-builds with, linking with the toolchain's ld.lld against the arm64 libraries in
# /usr/lib/aarch64-linux-gnu (C with -fPIC, which SwiftPM adds for a native Linux build and not for a Swift SDK's:
# the plugin's C objects are linked into a shared library). Every package is unpacked and configured by the machine's own dpkg: only SwiftCam's
# arm64 programs and what they start run through qemu-user-static (binfmt_misc). The archive this machine reaches may
# be a dated snapshot: apt is told not to refuse an old Release file.
set -euo pipefail
cd "$(dirname "$0")/.."
root=${ARM64_ROOT:-$PWD/.build/arm64/root}
mirror=${ARM64_MIRROR:-http://deb.debian.org/debian}
swift_arm64=/opt/swift-aarch64
stamp=$root/.swiftcam-root-ready
gstreamer_stamp=$root/.swiftcam-gstreamer-ready
# The arm64 side of scripts/deps.sh: what the element, the host and their tests link and run.
gstreamer_packages=(
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev libgstrtspserver-1.0-dev
  libsoup-3.0-dev libssl-dev gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly gstreamer1.0-nice gstreamer1.0-rtsp libcurl4t64 libxml2-16
)

die() { printf 'arm64-root: %s\n' "$*" >&2; exit 69; }
[ "$(id -u)" = 0 ] || die "needs root (mmdebstrap, chroot, binfmt_misc)"
# shellcheck source=scripts/debian-packages.sh
. scripts/debian-packages.sh
install_missing mmdebstrap qemu-user-static binfmt-support

# binfmt_misc: the kernel runs arm64 programs through qemu-aarch64-static once the format is registered.
if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
  mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc || die "cannot mount binfmt_misc"
fi
if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
  update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
  [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || die "qemu-aarch64 is not registered with binfmt_misc (update-binfmts --enable qemu-aarch64)"
fi

# unmount_all: whatever is mounted inside the root (its own mounts, or a killed run's, or mmdebstrap's), innermost first,
# so that nothing ever removes files through a bind mount (the checkout, /dev) when the root is made again.
unmount_all() {
  local mounted
  mounted=$(awk -v r="$root/" 'index($2, r) == 1 { print $2 }' /proc/self/mounts | sort -r)
  [ -z "$mounted" ] || xargs -r -n1 umount -l <<<"$mounted" 2>/dev/null || true
  ! awk -v r="$root/" 'index($2, r) == 1 { found = 1 } END { exit !found }' /proc/self/mounts
}
trap 'unmount_all >/dev/null 2>&1 || true' EXIT
trap 'exit 143' TERM INT

# in_root LINE: runs the shell line in the root with /proc (the toolchain finds itself through /proc/self/exe), /dev,
# /sys (plugins read the CPU list there) and this checkout mounted, unmounting them however it ends.
in_root() {
  mkdir -p "$root/src"
  mount -t proc proc "$root/proc"
  mount --rbind /dev "$root/dev"
  mount --rbind /sys "$root/sys"
  mount --bind "$PWD" "$root/src"
  local status=0
  chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive /bin/sh -c "cd /src && $1" || status=$?
  unmount_all || die "cannot unmount what is mounted inside $root"
  return "$status"
}

# apt_in_root PACKAGE…: installed in the root; apt's and dpkg's lines go to a log, shown when the install fails.
apt_in_root() {
  local log
  log=$(mktemp)
  in_root "apt-get install -y -qq --no-install-recommends -o Dpkg::Use-Pty=0 $*" >"$log" 2>&1 \
    || { tail -n 30 "$log" >&2; rm -f "$log"; return 1; }
  rm -f "$log"
}

if [ ! -e "$stamp" ]; then
  started=$(date +%s)
  unmount_all || die "something is still mounted inside $root; unmount it first"
  rm -rf --one-file-system "$root"
  mkdir -p "$(dirname "$root")"
  echo "arm64-root: Debian sid (amd64 + arm64) into $root" >&2
  mmdebstrap --quiet --variant=apt --mode=root --architectures=amd64,arm64 \
    --aptopt='Acquire::Check-Valid-Until "false"' \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' \
    --include=swiftlang,pkg-config,libc6-dev,libc6-dev:arm64 sid "$root" "$mirror" >&2 \
    || die "mmdebstrap of Debian sid into $root failed"
  in_root "apt-get update -qq" >&2 || die "apt-get update in the root failed"
  # libstdc++'s headers and libraries for arm64 in the version of the root's default compiler (the Swift runtime links
  # libstdc++; the major version changes with the archive, so it is read, not written here).
  gcc_major=$(in_root "gcc -dumpversion" | cut -d. -f1)
  apt_in_root "libstdc++-$gcc_major-dev:arm64" || die "installing libstdc++-$gcc_major-dev:arm64 in the root failed"
  # The arm64 Swift: modules, runtime, static libraries and Clang's headers, unpacked where no package owns them.
  in_root "rm -rf /tmp/swift-debs $swift_arm64 && mkdir -p /tmp/swift-debs $swift_arm64 && cd /tmp/swift-debs \
    && apt-get download -qq swiftlang:arm64 libswiftlang:arm64" >&2 2>/dev/null \
    || die "downloading swiftlang:arm64 into the root failed"
  unpack() {  # DEB FOLDER…: the folders of usr/libexec/swift/lib in the package, without the compiler's own libraries
    local deb=("$root"/tmp/swift-debs/"$1"_*_arm64.deb) folder patterns=()
    shift
    for folder in "$@"; do patterns+=("./usr/libexec/swift/lib/$folder/*"); done
    dpkg-deb --fsys-tarfile "${deb[0]}" | tar -x -C "$root$swift_arm64" --wildcards \
      --exclude='./usr/libexec/swift/lib/swift/host/*' "${patterns[@]}" \
      || die "unpacking ${deb[0]##*/} into $root$swift_arm64 failed"
  }
  unpack swiftlang swift swift_static clang
  unpack libswiftlang swift
  rm -rf "$root/tmp/swift-debs"
  resources=$swift_arm64/usr/libexec/swift/lib
  [ -e "$root$resources/swift/linux/libswiftCore.so" ] || die "no arm64 libswiftCore.so in $root$resources"
  # Debian's arm64 swiftlang has _Testing_Foundation's module but not its library, which every test bundle links (the
  # cross-import overlay of Testing and Foundation): an empty library stands in. A test that used the overlay would
  # fail to link, not pass.
  if [ ! -e "$root$resources/swift/linux/lib_Testing_Foundation.so" ]; then
    in_root ": > /tmp/empty.c && /usr/libexec/swift/bin/clang --target=aarch64-linux-gnu -shared -nostdlib \
      -fuse-ld=lld -Wl,-soname,lib_Testing_Foundation.so -o $resources/swift/linux/lib_Testing_Foundation.so /tmp/empty.c" \
      || die "cannot make the stand-in lib_Testing_Foundation.so"
  fi
  mkdir -p "$root$swift_arm64/sdk"
  cat >"$root$swift_arm64/sdk/swift-sdk.json" <<EOF
{
  "schemaVersion": "4.0",
  "targetTriples": {
    "aarch64-unknown-linux-gnu": {
      "sdkRootPath": "/",
      "swiftResourcesPath": "$resources/swift",
      "swiftStaticResourcesPath": "$resources/swift_static",
      "toolsetPaths": ["toolset.json"]
    }
  }
}
EOF
  cat >"$root$swift_arm64/sdk/toolset.json" <<EOF
{
  "schemaVersion": "1.0",
  "swiftCompiler": { "extraCLIOptions": ["-use-ld=lld"] },
  "cCompiler": { "extraCLIOptions": ["-fPIC"] },
  "linker": { "path": "/usr/libexec/swift/bin/ld.lld" }
}
EOF
  date -u +%FT%TZ >"$stamp"
  echo "arm64-root: made in $(($(date +%s) - started)) s" >&2
fi

case "${1:-}" in
  "") echo "$root" ;;
  gstreamer)
    if [ ! -e "$gstreamer_stamp" ]; then
      started=$(date +%s)
      apt_in_root "${gstreamer_packages[@]/%/:arm64} binutils-aarch64-linux-gnu dpkg-dev patchelf" \
        || die "installing the arm64 GStreamer packages in the root failed"
      date -u +%FT%TZ >"$gstreamer_stamp"
      echo "arm64-root: GStreamer for arm64 added in $(($(date +%s) - started)) s" >&2
    fi
    echo "$root"
    ;;
  run) shift; in_root "$*" ;;
  bare)
    shift
    if [ -z "${ARM64_ROOT_BARE:-}" ]; then
      exec env ARM64_ROOT_BARE=1 unshare --mount --propagation private bash "$PWD/scripts/arm64-root.sh" bare "$@"
    fi
    mount -t tmpfs none "$root/usr/libexec/swift"
    mount -t tmpfs none "$root$swift_arm64"
    in_root "$*"
    ;;
  *) die "usage: scripts/arm64-root.sh [gstreamer | run CMD… | bare CMD…]" ;;
esac
