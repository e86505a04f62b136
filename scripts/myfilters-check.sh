#!/usr/bin/env bash
# Builds Examples/MyFilters as a user's package (its own build folder, SwiftCam as a dependency by URL and version,
# without the NativeSIMD trait) and checks its plugin, libgstmyfilters.so: from plain gst-launch-1.0 with pixel checks on RGBA and NV12, in
# `swiftcam filters`, through the host's loader (FilterPluginTests: fusion, pixels, the brightness analyser, a copy
# stamped with another SwiftCam version), its analyser run by the host on a scene that crosses its level and a bad
# option of it refused by `swiftcam validate`, and a wrongly stamped copy refused by gst-launch-1.0 and `swiftcam
# validate` with a clear message. The plugin stays in .build/myfilters for the page's tests (scripts/test.sh web).
# Usage: myfilters-check.sh (after `swift build --build-tests`, as make test runs it).
set -euo pipefail
cd "$(dirname "$0")/.."
fail() { echo "FAIL: $*"; exit 1; }

version=$(sed -n 's/^#define SWIFTCAM_VERSION "\(.*\)"$/\1/p' Sources/CFilterPlugin/include/SwiftCamVersion.h)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# As a user's package depends on SwiftCam: by URL and version (SwiftPM refuses unsafe flags only in such a dependency).
# The URL is a clone of this checkout's commit tagged with its version; the example is copied out, so its
# Package.resolved is written there and not into the tree.
git clone -q --no-hardlinks . "$work/swiftcam"
git -C "$work/swiftcam" tag -f "$version" >/dev/null
cp -r Examples/MyFilters "$work/example"
scratch=$PWD/.build/myfilters
export SWIFTCAM_PACKAGE_URL="file://$work/swiftcam" SWIFTCAM_PACKAGE_VERSION=$version
swift build --package-path "$work/example" --scratch-path "$scratch" --product gstmyfilters
plugin="$(swift build --package-path "$work/example" --scratch-path "$scratch" --show-bin-path)/libgstmyfilters.so"
unset SWIFTCAM_PACKAGE_URL SWIFTCAM_PACKAGE_VERSION
[ -f "$plugin" ] || fail "no $plugin"
swift build --product gstswiftfilter >/dev/null
bin=$(swift build --show-bin-path)
# GStreamer's plugin path with the two plugins a user installs, and a private registry.
mkdir "$work/plugins" "$work/mine" "$work/old"
cp "$bin/libgstswiftfilter.so" "$plugin" "$work/plugins/"
cp "$plugin" "$work/mine/"

launch() { # FORMAT PATTERN CHAIN OUT
  GST_PLUGIN_PATH="$work/plugins" GST_REGISTRY="$work/registry.bin" env -u LD_LIBRARY_PATH gst-launch-1.0 -q \
    videotestsrc pattern="$2" num-buffers=1 ! "video/x-raw,format=$1,width=16,height=8,colorimetry=bt601" \
    ! swiftfilter chain="$3" ! filesink location="$4"
}
# check FILE FORMAT EXPECTED...: every pixel is EXPECTED (RGBA: r g b a; NV12: y u v), each byte within 2.
check() {
  python3 - "$@" <<'PY' || exit 1
import sys
path, fmt, want = sys.argv[1], sys.argv[2], [int(v) for v in sys.argv[3:]]
data = open(path, 'rb').read()
if fmt == 'RGBA':
    got = [list(data[i:i + 4]) for i in range(0, 16 * 8 * 4, 4)]
else:
    chroma = lambda i: 128 + (i // 16 // 2) * 16 + (i % 16 // 2) * 2
    got = [[data[i], data[chroma(i)], data[chroma(i) + 1]] for i in range(16 * 8)]
bad = [g for g in got if any(abs(a - b) > 2 for a, b in zip(g, want))]
if len(data) < (16 * 8 * 4 if fmt == 'RGBA' else 16 * 8 * 3 // 2) or bad:
    sys.exit(f"FAIL: {fmt} {path}: expected {want} everywhere, found {bad[:3]} ({len(data)} bytes)")
PY
}
# duotone: black → hue 240 at value 0.35 (0, 0, 89); white → hue 60 half saturated (255, 255, 128), in NV12 limited
# range Y 223, U 72, V 137. emboss after it: a flat picture is mid grey, 128.
launch RGBA black "duotone" "$work/a.raw" || fail "gst-launch-1.0 swiftfilter chain=duotone (RGBA) failed"
check "$work/a.raw" RGBA 0 0 89 255
launch RGBA white "duotone" "$work/b.raw" || fail "gst-launch-1.0 swiftfilter chain=duotone (RGBA) failed"
check "$work/b.raw" RGBA 255 255 128 255
launch NV12 white "duotone" "$work/c.raw" || fail "gst-launch-1.0 swiftfilter chain=duotone (NV12) failed"
check "$work/c.raw" NV12 223 72 137
launch RGBA white "duotone | emboss strength=3" "$work/d.raw" || fail "gst-launch-1.0 swiftfilter chain=\"duotone | emboss\" (RGBA) failed"
check "$work/d.raw" RGBA 128 128 128 255
launch NV12 black "duotone | emboss" "$work/e.raw" || fail "gst-launch-1.0 swiftfilter chain=\"duotone | emboss\" (NV12) failed"
check "$work/e.raw" NV12 128 128 128
echo "ok: gst-launch-1.0 runs swiftfilter chain=\"duotone | emboss\" from libgstmyfilters.so on GST_PLUGIN_PATH (RGBA, NV12 pixels)"

listing=$(GST_PLUGIN_PATH="$work/mine" GST_REGISTRY="$work/registry-mine.bin" "$bin/swiftcam" filters)
grep -q "^duotone: two colours mapped by luma" <<<"$listing" || fail "swiftcam filters does not list duotone"
grep -q "strength=1  a number in 0...8; depth of the relief" <<<"$listing" || fail "swiftcam filters does not list emboss strength"
echo "ok: swiftcam filters lists the plugin's filters"

# The host loads a plugin a config names (relative to the config's folder) and runs its filters.
printf '%s\n' '{"plugins": ["mine/libgstmyfilters.so"], "sources": [{"kind": "test"}], "preview": "none", "frames": 5,' \
  '"caps": {"width": 160, "height": 120, "format": "NV12"}, "filter": "duotone dark=200 | emboss"}' >"$work/mine.json"
"$bin/swiftcam" validate "$work/mine.json" >/dev/null || fail "swiftcam validate refused a config with plugins: [mine/libgstmyfilters.so]"
run=$(timeout 120 "$bin/swiftcam" run "$work/mine.json" --no-control 2>&1) || fail "swiftcam run with the plugin's filters failed: $run"
grep -q 'chain "duotone dark=200 | emboss"' <<<"$run" || fail "swiftcam run did not run the plugin's chain: $run"
echo "ok: a config's plugins are loaded by the host, which runs their filters"

# The plugin's analyser run by the host: videotestsrc's blink pattern shows black and white frames in turn, so the
# mean luma crosses any level both ways and the host prints brightness start and end events on stdout.
printf '%s\n' '{"plugins": ["mine/libgstmyfilters.so"], "sources": [{"kind": "test", "pattern": "blink"}], "preview": "none",' \
  '"frames": 30, "caps": {"width": 160, "height": 120, "format": "NV12"}, "analyze": [{"brightness": {"level": 120, "hysteresis": 20}}]}' \
  >"$work/bright.json"
"$bin/swiftcam" validate "$work/bright.json" >/dev/null || fail "swiftcam validate refused analyze: [{brightness: …}] from the plugin"
out=$(timeout 120 "$bin/swiftcam" run "$work/bright.json" --no-control 2>"$work/bright.err") \
  || fail "swiftcam run with the plugin's analyser failed: $(cat "$work/bright.err")"
grep -q "^event brightness start " <<<"$out" || fail "no brightness start event on stdout: $out"
grep -q "^event brightness end " <<<"$out" || fail "no brightness end event on stdout: $out"
echo "ok: the host runs the plugin's brightness analyser: $(grep -c '^event brightness' <<<"$out") events on stdout"
# Found on GStreamer's plugin path instead of named by the config: its analyser is known just the same.
sed 's|"plugins": \["mine/libgstmyfilters.so"\], ||' "$work/bright.json" >"$work/bright-path.json"
GST_PLUGIN_PATH="$work/mine" GST_REGISTRY="$work/registry-mine.bin" "$bin/swiftcam" validate "$work/bright-path.json" >/dev/null \
  || fail "swiftcam validate did not know brightness from the plugin on GST_PLUGIN_PATH"
if log=$(env -u GST_PLUGIN_PATH "$bin/swiftcam" validate "$work/bright-path.json" 2>&1); then fail "brightness was known without the plugin"; fi
grep -q 'analyze\[0\]: no analyser "brightness"' <<<"$log" || fail "without the plugin, validate did not name analyze[0]: $log"
echo "ok: the plugin's analyser is known when the plugin is on GST_PLUGIN_PATH, and unknown without it"
sed 's/"level": 120/"level": 300/' "$work/bright.json" >"$work/bright-bad.json"
if log=$("$bin/swiftcam" validate "$work/bright-bad.json" 2>&1); then fail "swiftcam validate accepted brightness level 300"; fi
grep -q 'analyze\[0\]\.brightness\.level: 300' <<<"$log" || fail "swiftcam validate did not name analyze[0].brightness.level: $log"
[ "$(wc -l <<<"$log")" -eq 1 ] || fail "swiftcam validate said more than one line: $log"
echo "ok: swiftcam validate refuses a bad option of the plugin's analyser in one line: $log"

SWIFTCAM_MYFILTERS_PLUGIN="$plugin" swift test --skip-build --filter SwiftFilterElementTests.FilterPluginTests

# A copy stamped with another SwiftCam version: refused before it is loaded, with the file and both versions.
python3 - "$plugin" "$work/old/libgstmyfilters.so" "$version" <<'PY'
import sys
data = open(sys.argv[1], 'rb').read()
stamp = f"SwiftCam filter plugin ABI 2, SwiftCam {sys.argv[3]}\0".encode()
assert data.count(stamp) == 1, "the plugin has no stamp"
open(sys.argv[2], 'wb').write(data.replace(stamp, b"SwiftCam filter plugin ABI 2, SwiftCam 9.9.9\0".ljust(len(stamp), b"\0")))
PY
cp "$bin/libgstswiftfilter.so" "$work/old/"
if log=$(GST_PLUGIN_PATH="$work/old" GST_REGISTRY="$work/registry-old.bin" env -u LD_LIBRARY_PATH gst-launch-1.0 \
    videotestsrc num-buffers=1 ! swiftfilter chain=duotone ! fakesink 2>&1); then
  fail "gst-launch-1.0 ran chain=duotone from a plugin stamped 9.9.9"
fi
grep -q "was built against SwiftCam 9.9.9, but this is SwiftCam $version; rebuild the plugin against $version" <<<"$log" \
  || fail "gst-launch-1.0 did not say why the 9.9.9 plugin was refused: $log"
printf '{"plugins": ["old/libgstmyfilters.so"], "sources": [{"kind": "test"}], "filter": "duotone", "frames": 1, "analyze": [{"brightness": {}}]}\n' >"$work/old.json"
if log=$("$bin/swiftcam" validate "$work/old.json" 2>&1); then fail "swiftcam validate accepted a plugin stamped 9.9.9"; fi
grep -q "plugins\[0\].*built against SwiftCam 9.9.9" <<<"$log" || fail "swiftcam validate did not name the plugin and versions: $log"
echo "ok: a plugin built against another SwiftCam is refused with its file and both versions (gst-launch-1.0, swiftcam validate)"
