#!/usr/bin/env bash
# footprint.sh - what the Debian package costs a small board: its size, what it installs, and the host's peak memory
# beside gst-launch-1.0 running the same graph.
#
#   scripts/footprint.sh             # this machine's package (.build/package, made by scripts/package.sh if absent)
#   scripts/footprint.sh arm64       # the arm64 package (.build/arm64/package: make package ARCH=arm64), run in
#                                    # scripts/arm64-root.sh's root under qemu-user
#
# The graph: a 1920×1080 NV12 test pattern at 30 fps through `sepia | vignette`, 300 frames, no preview window. The host
# runs it as a config (`swiftcam run`); gst-launch-1.0 runs the line `swiftcam show` prints for that config, with the
# package's plugin, for the same 300 frames. Both from the unpacked package, with no Swift toolchain visible (a tmpfs
# over /opt/swift and /usr/libexec/swift, in a mount namespace of their own). Peak RSS is the kernel's maximum
# resident set size (scripts/peak-rss.py). Under qemu-user (arm64) both figures include the emulator's own memory.
# Prints one table (Markdown) on stdout; the ratio is host ÷ gst-launch-1.0.
# As root: the toolchain is hidden in a mount namespace of the run's own.
# Exit status: 0 measured; 1 a step failed (one line says which).
set -euo pipefail
cd "$(dirname "$0")/.."
arch=${1:-$(dpkg --print-architecture)}
say() { printf 'footprint: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }
# shellcheck source-path=SCRIPTDIR source=debian-packages.sh
. scripts/debian-packages.sh
[ "$(id -u)" = 0 ] || die "run it as root: it hides the Swift toolchain in a mount namespace (unshare --mount)"
install_missing dpkg-dev python3

case "$arch" in
  arm64) folder=.build/arm64/package ;;
  "$(dpkg --print-architecture)")
    folder=.build/package
    ls "$folder"/swiftcam_*_"$arch".deb >/dev/null 2>&1 || bash scripts/package.sh >/dev/null || die "scripts/package.sh failed"
    ;;
  *) die "the architecture is this machine's or arm64, not '$arch'" ;;
esac
deb=$(ls -t "$folder"/swiftcam_*_"$arch".deb 2>/dev/null | head -1 || true)
[ -n "$deb" ] || die "no $folder/swiftcam_*_$arch.deb (make package${1:+ ARCH=$1})"

# The package unpacked into a folder the run (and, for arm64, the root) can see.
if [ "$arch" = arm64 ]; then work=.build/arm64/footprint; else work=.build/footprint; fi
rm -rf "$work" && mkdir -p "$work/run/pipelines"
dpkg-deb -x "$deb" "$work/unpacked"
cat >"$work/run/pipelines/footprint.json" <<'EOF'
{
  "description": "1080p test pattern through sepia and vignette, 300 frames (scripts/footprint.sh)",
  "sources": [{ "kind": "test", "pattern": "smpte" }],
  "caps": { "width": 1920, "height": 1080, "framerate": "30/1", "format": "NV12" },
  "filter": "sepia | vignette",
  "preview": "none",
  "frames": 300
}
EOF
plugins=$(find "$work/unpacked/usr/lib" -name libgstswiftfilter.so -printf '%h\n' | head -1)
[ -n "$plugins" ] || die "$deb holds no libgstswiftfilter.so"

# run COMMAND: COMMAND (a shell line) with the toolchains hidden, in the run folder; for arm64 inside the root (whose
# /src is this checkout).
run() {
  local hide='for t in /opt/swift /usr/libexec/swift; do [ -d "$t" ] && mount -t tmpfs none "$t"; done; '
  if [ "$arch" = arm64 ]; then
    bash scripts/arm64-root.sh bare "cd /src/$work/run && $1"
  else
    unshare --mount --propagation private bash -c "$hide cd '$work/run' && $1"
  fi
}
# Paths as the run sees them.
if [ "$arch" = arm64 ]; then base=/src/$work scripts=/src/scripts; else base=$(cd "$work" && pwd -P) scripts=$(pwd -P)/scripts; fi
host="$base/unpacked/usr/lib/swiftcam/swiftcam"
env="GST_PLUGIN_PATH=$base/${plugins#"$work"/} GST_REGISTRY=$base/registry.bin"

line=$(run "$host show footprint" | sed -n '/^gst-launch-1.0/,/^$/p' | sed 's/ \\$//' | tr -d '\n' || true)
[ -n "$line" ] || die "swiftcam show footprint printed no gst-launch-1.0 line"
# The same 300 frames: the host stops after its config's frames, gst-launch-1.0 at the source's end.
line=${line/videotestsrc name=source0/videotestsrc name=source0 num-buffers=300}

# peak COMMAND: the peak RSS in KiB of COMMAND's process.
peak() {
  local out
  out=$(run "python3 $scripts/peak-rss.py $1 2>&1 >/dev/null") || { printf '%s\n' "$out" | tail -5 >&2; return 1; }
  sed -n 's/^peak-rss \([0-9]*\)$/\1/p' <<<"$out" | tail -1
}
# The registry made first, so neither run spawns gst-plugin-scanner (which loads every plugin, and would be counted).
run "env $env gst-inspect-1.0 swiftfilter >/dev/null" || die "gst-inspect-1.0 does not find the package's swiftfilter"
host_kib=$(peak "env $env $host run footprint --no-control") || die "swiftcam run footprint failed"
launch_kib=$(peak "env $env ${line/gst-launch-1.0/gst-launch-1.0 -q}") || die "gst-launch-1.0 with the same graph failed"
[ -n "$host_kib" ] && [ -n "$launch_kib" ] || die "no peak RSS was reported"

size=$(stat -c %s "$deb")
installed=$(dpkg-deb -f "$deb" Installed-Size)
binary=$(stat -c %s "$work/unpacked/usr/lib/swiftcam/swiftcam")
plugin=$(stat -c %s "$plugins/libgstswiftfilter.so")
mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }
printf '| %s | package | installs | swiftcam | plugin | host peak RSS | gst-launch-1.0 peak RSS | ratio |\n' "$arch"
printf '|---|---|---|---|---|---|---|---|\n'
printf '| %s | %s | %s | %s | %s | %d MiB | %d MiB | %s× |\n' "$(dpkg-deb -f "$deb" Version)" "$(mb "$size")" \
  "$(mb $((installed * 1024)))" "$(mb "$binary")" "$(mb "$plugin")" $((host_kib / 1024)) $((launch_kib / 1024)) \
  "$(awk -v h="$host_kib" -v g="$launch_kib" 'BEGIN { printf "%.2f", h / g }')"
