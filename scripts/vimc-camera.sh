#!/usr/bin/env bash
# vimc-camera.sh - the kernel's virtual media controller camera, vimc, as libcamera sees it: a sensor,
# a debayer and a scaler behind one media device, the Raspberry Pi camera's shape (libcamera's `vimc`
# pipeline handler drives it; `cam -l` lists it as `Sensor B`). Debian's kernel does not build vimc,
# so this script builds it from Debian's own kernel source for the VM's kernel, and starts it there.
#
#   bash scripts/vimc-camera.sh build KVER DIR  # on the host: DIR/vimc.ko for kernel KVER (prints the path)
#   bash scripts/vimc-camera.sh start           # in the VM: load vimc, start udev, wait for `cam -l` to list it
#   scripts/vivid-vm.sh 'bash scripts/vimc-camera.sh start && cam -l'
#
# `build` installs `linux-source-6.1` (the same 6.1 source as Debian's kernel image) and the headers of
# KVER when missing, unpacks only drivers/media/test-drivers/vimc and runs
# `make -C /lib/modules/KVER/build M=… CONFIG_VIDEO_VIMC=m modules` (~12 s); Debian's config builds
# everything vimc selects (v4l2-tpg, videobuf2-vmalloc, the media controller). The module is kept in DIR
# (vivid-vm.sh keeps it in its cache, keyed by the kernel and the source package's version) and
# vivid-vm.sh hands its path to the guest as VIMC_MODULE.
#
# `start` loads vimc's dependencies with modprobe and vimc.ko with insmod, then starts systemd-udevd
# (libcamera enumerates cameras through udev and finds none without it; under the VM's busybox init it
# runs in a chroot, hence SYSTEMD_IGNORE_CHROOT=1) and waits for `cam -l` to list the camera. It is
# idempotent. It prints the camera's id as `cam -l` prints it on stdout.
#
# What vimc and Debian's libcamera 0.0.3 do, which a test meets:
# - vimc's scaler takes only sizes that are multiples of 6 (its debayer/scaler steps): 640x480 is refused
#   (not-negotiated) while 480x360 or 1920x1080 work; libcamera rounds other sizes without telling.
# - Its test pattern is colour bars at full range: white, yellow, cyan, green, magenta, red, blue, black.
# - libcamera 0.0.3's vimc pipeline handler segfaults now and then (VimcCameraData::bufferReady, on
#   libcamera's own thread), at the end of a stream and when the process is stopped by a signal: the
#   process that opened the camera dies. SwiftCam runs libcamera in a child process for that reason.
#
# Exit status: 0 done; 1 the camera did not come up; 2 usage; 69 a package or the kernel's build
# tree is unavailable; 77 not root.
#
# Environment:
#   VIMC_MODULE   `start`: the vimc.ko to load (vivid-vm.sh sets it)
#   VIMC_TIMEOUT  `start`: seconds to wait for `cam -l` to list the camera (default 60)
set -euo pipefail

prog=vimc-camera
say() { printf '%s: %s\n' "$prog" "$*" >&2; }
die() { say "$*"; exit 69; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }

build() {
  local kver=$1 dir=$2
  # shellcheck source-path=SCRIPTDIR source=debian-packages.sh
  . "${BASH_SOURCE[0]%/*}/debian-packages.sh"
  install_missing linux-source-6.1 make gcc
  if [ ! -e "/lib/modules/$kver/build" ]; then
    apt-cache show "linux-headers-$kver" >/dev/null 2>&1 || die "no linux-headers-$kver to build vimc against"
    install_missing "linux-headers-$kver"
  fi
  local source=/usr/src/linux-source-6.1.tar.xz
  [ -r "$source" ] || die "$source missing (package linux-source-6.1)"
  mkdir -p "$dir"
  [ -s "$dir/vimc.ko" ] && { echo "$dir/vimc.ko"; return 0; }
  local work
  work=$(mktemp -d "$dir/build.XXXXXX")
  # Only vimc's folder: the whole source is ~140 MB unpacked.
  tar -xJf "$source" -C "$work" --wildcards '*/drivers/media/test-drivers/vimc/*' \
    || { rm -rf "$work"; die "cannot unpack vimc from $source"; }
  local src
  src=$(find "$work" -type d -path '*/drivers/media/test-drivers/vimc' -print -quit)
  [ -n "$src" ] || { rm -rf "$work"; die "no drivers/media/test-drivers/vimc in $source"; }
  say "building vimc for kernel $kver from $source"
  make -s -C "/lib/modules/$kver/build" M="$src" CONFIG_VIDEO_VIMC=m modules >&2 \
    || { rm -rf "$work"; die "building vimc for $kver failed"; }
  mv "$src/vimc.ko" "$dir/vimc.ko"
  rm -rf "$work"
  echo "$dir/vimc.ko"
}

camera_id() {
  # `cam -l` prints "Available cameras:" then "1: 'Sensor B' (/base/…/platform/vimc.0/…)".
  cam -l 2>/dev/null | sed -n "s/^[0-9][0-9]*: .*(\(.*\))$/\1/p" | head -n 1
}

start() {
  [ "$(id -u)" = 0 ] || { say "start needs root (insmod)"; exit 77; }
  command -v cam >/dev/null || die "no cam (Debian package libcamera-tools; vivid-vm.sh installs it on the host)"
  if ! grep -q '^vimc ' /proc/modules; then
    local module=${VIMC_MODULE:-}
    [ -r "$module" ] || die "no vimc.ko to load (VIMC_MODULE='$module'; vivid-vm.sh builds it)"
    modprobe -a videobuf2-vmalloc videobuf2-dma-contig videobuf2-v4l2 v4l2-tpg videodev mc \
      || die "cannot load vimc's dependencies"
    insmod "$module" || die "insmod $module failed"
  fi
  # udevd, udevadm trigger and settle all refuse to act in a chroot (the VM's busybox init runs the command in one).
  export SYSTEMD_IGNORE_CHROOT=1
  if ! pgrep -x systemd-udevd >/dev/null; then
    /lib/systemd/systemd-udevd --daemon >&2 || die "systemd-udevd would not start"
  fi
  udevadm trigger --action=add >&2
  udevadm settle --timeout="${VIMC_TIMEOUT:-60}" >&2 || true
  local id
  id=$(camera_id)
  if [ -z "$id" ]; then
    say "cam -l lists no camera after udev settled:"
    cam -l >&2 || true
    exit 1
  fi
  echo "$id"
}

case "${1:-}" in
  build) [ $# -eq 3 ] || usage; build "$2" "$3" ;;
  start) start ;;
  -h|--help|'') usage ;;
  *) usage ;;
esac
