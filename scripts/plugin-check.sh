#!/usr/bin/env bash
# Checks the plugin file from plain gst-inspect-1.0 / gst-launch-1.0, as a user would load it.
# Usage: plugin-check.sh [debug|release]
set -euo pipefail
cd "$(dirname "$0")/.."
config=${1:-debug}
swift build -c "$config" --product gstswiftfilter >/dev/null
dir=$(swift build -c "$config" --show-bin-path)
export GST_PLUGIN_PATH="$dir"
# A private registry, so a stale cache from another build never answers for this one.
export GST_REGISTRY="$(mktemp -d)/registry.bin"
fail() { echo "FAIL: $*"; exit 1; }

test -f "$dir/libgstswiftfilter.so" || fail "no $dir/libgstswiftfilter.so"
# The plugin carries SwiftCam's version (swiftcam --version and the package carry it too): `--exists` alone would
# ask for at least GStreamer's own version, as it does of every plugin outside GStreamer's releases.
version=$(sed -n 's/^#define SWIFTCAM_VERSION "\(.*\)"$/\1/p' Sources/CFilterPlugin/include/SwiftCamVersion.h)
env -u LD_LIBRARY_PATH gst-inspect-1.0 --exists --atleast-version="$version" swiftfilter \
  || fail "gst-inspect-1.0 --exists --atleast-version=$version swiftfilter is false"
inspect=$(env -u LD_LIBRARY_PATH gst-inspect-1.0 swiftfilter)
for expected in "Filter/Effect/Video" "SINK template: 'sink'" "SRC template: 'src'" "chain" "n-threads" "stats" "qos" "NV12"; do
  grep -qF "$expected" <<<"$inspect" || fail "gst-inspect-1.0 swiftfilter does not show '$expected'"
done
echo "ok: gst-inspect-1.0 lists swiftfilter with its pads and properties"
shown=$(sed -n 's/^ *Version *//p' <<<"$inspect")
[[ -n $version && $shown == "$version" ]] || fail "gst-inspect-1.0 swiftfilter shows version '$shown', SwiftCamVersion.h says '$version'"
echo "ok: the plugin's version is SwiftCam's, $version"

out=$(mktemp -d)
env -u LD_LIBRARY_PATH gst-launch-1.0 -q videotestsrc num-buffers=30 ! video/x-raw,format=NV12,width=640,height=480 \
  ! swiftfilter chain="sepia | vignette" ! jpegenc ! multifilesink location="$out/out-%02d.jpg" || fail "gst-launch with swiftfilter failed"
count=$(find "$out" -name 'out-*.jpg' | wc -l)
[[ $count -eq 30 ]] || fail "expected 30 JPEGs, found $count"
gst-launch-1.0 -q filesrc location="$out/out-29.jpg" ! jpegdec ! fakesink || fail "out-29.jpg does not decode"
echo "ok: gst-launch-1.0 wrote 30 decodable JPEGs through swiftfilter"

if log=$(env -u LD_LIBRARY_PATH gst-launch-1.0 videotestsrc num-buffers=30 ! swiftfilter chain="nosuch" ! fakesink 2>&1); then
  fail "chain=\"nosuch\" exited 0"
fi
grep -q "Unknown filter 'nosuch' at column 1" <<<"$log" || fail "chain=\"nosuch\" did not print the parse error: $log"
echo "ok: chain=\"nosuch\" exits non-zero with the parse error"
rm -rf "$out" "$(dirname "$GST_REGISTRY")"
