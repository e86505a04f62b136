#!/usr/bin/env bash
# test-arm64.sh — SwiftCam built for ARM64 on this x86-64 machine and tested there under emulation
# (scripts/arm64-root.sh: Debian sid with the same Swift 6.2.3 for amd64 and arm64, qemu-user-static).
#
#   scripts/test-arm64.sh build     the root, then everything the other parts run, cross-built for aarch64
#   scripts/test-arm64.sh filters   every Filters test on aarch64 (release build, testable): the portable kernels'
#                                   golden bytes, and ArchitectureDigestTests' digests, written on x86-64, equal there
#   scripts/test-arm64.sh host      the element in the arm64 gst-launch-1.0 with pixel checks, the host's demo, and the
#                                   arm64 package installed in the root with the toolchains hidden (--version, validate,
#                                   the demo); SWIFTCAM_ARM64_CONFIG=release|debug (default debug) builds the host
#   scripts/test-arm64.sh all       filters, then host (`make test-arm64`; `make test` runs it on its background build)
#   scripts/test-arm64.sh package   the release package only: prints .build/arm64/package/swiftcam_VERSION_arm64.deb
#
# Each part prints its time; a compiler warning of SwiftCam's code fails the build. SWIFTCAM_ARM64_SKIP_BUILD=1 runs
# what an earlier `build` made. As root.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
sdk=/opt/swift-aarch64/sdk/swift-sdk.json
triple=aarch64-unknown-linux-gnu
filters_scratch=.build/arm64/filters
config=${SWIFTCAM_ARM64_CONFIG:-debug}
[ "$what" != package ] || config=release
case "$config" in release|debug) ;; *) echo "SWIFTCAM_ARM64_CONFIG is release or debug, not '$config'" >&2; exit 64 ;; esac
scratch=.build/arm64/$config
bin=$scratch/$triple/$config
gst_env="GST_PLUGIN_PATH=/src/$bin GST_REGISTRY=/tmp/swiftcam-arm64-registry.bin"

say() { printf 'arm64: %s\n' "$*"; }
fail() { printf 'FAIL (arm64): %s\n' "$*"; exit 1; }
# timed NAME COMMAND…: runs COMMAND and says how long NAME took.
timed() {
  local name=$1 started status=0
  shift
  started=$(date +%s)
  "$@" || status=$?
  say "$name: $(($(date +%s) - started)) s"
  return "$status"
}
in_root() { bash scripts/arm64-root.sh run "$1"; }
quiet() { "$@" >/dev/null; }
# logged LOG COMMAND…: COMMAND's output into LOG.
logged() { local log=$1; shift; "$@" >"$log" 2>&1; }
# is_aarch64 FILE: an ELF file for aarch64 (e_machine 183), so no step passes on an x86 build by mistake.
is_aarch64() { [ "$(od -An -tu2 -j18 -N2 "$1" 2>/dev/null | tr -d ' ')" = 183 ]; }

# cross_build NAME ENV ARGS: a cross-build in the root (SWIFTCAM_PORTABLE=1: the manifest is read on x86-64, the code
# is for aarch64) whose log is kept; its errors, or any warning of SwiftCam's code, fail it. SwiftPM's own warnings
# about pkg-config's -pthread are not the code's.
cross_build() {
  local name=$1 log
  log=$(mktemp)
  if ! timed "$name cross-built" logged "$log" \
      in_root "PKG_CONFIG_PATH=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig SWIFTCAM_PORTABLE=1 $2 swift build --destination $sdk $3"; then
    grep -E 'error:' "$log" | sort -u | head -30
    rm -f "$log"
    fail "the cross-build of $name failed"
  fi
  if grep -E '^/src/.*warning:' "$log" | sort -u | grep .; then
    rm -f "$log"
    fail "the cross-build of $name has warnings"
  fi
  rm -f "$log"
}

build_all() {
  timed "root (scripts/arm64-root.sh)" quiet bash scripts/arm64-root.sh || fail "the root could not be made"
  timed "root: the arm64 GStreamer packages (scripts/arm64-root.sh gstreamer)" quiet bash scripts/arm64-root.sh gstreamer \
    || fail "the arm64 GStreamer packages could not be added to the root"
  build_filters
  build_host
}

# Release with -enable-testing: the debug build's kernels run too slowly under emulation for the property sweeps.
build_filters() {
  cross_build "Filters and its tests (release)" 'SWIFTCAM_TARGETS="Filters FiltersTests"' \
    "-c release --build-tests -Xswiftc -enable-testing --scratch-path $filters_scratch"
}

stage_filters() {
  local bundle=$filters_scratch/$triple/release/SwiftCamPackageTests.xctest log
  is_aarch64 "$bundle" || fail "$bundle is not an aarch64 program"
  log=$(mktemp)
  timed "Filters tests on aarch64 (emulated)" logged "$log" in_root "$bundle --testing-library swift-testing" \
    || { grep -E '✘|error' "$log" | head -40; rm -f "$log"; fail "Filters tests on aarch64"; }
  grep -E '^✔ Test run|ArchitectureDigestTests passed' "$log"
  grep -q 'Suite ArchitectureDigestTests passed' "$log" || { rm -f "$log"; fail "ArchitectureDigestTests did not run"; }
  say "ok: the portable kernels on aarch64 give the bytes written on x86-64"
  rm -f "$log"
}

build_host() {
  local product
  for product in swiftcam gstswiftfilter; do
    cross_build "$product ($config)" "" "-c $config --scratch-path $scratch --product $product"
  done
  is_aarch64 "$bin/swiftcam" && is_aarch64 "$bin/libgstswiftfilter.so" || fail "$bin holds no aarch64 swiftcam and plugin"
}

# The element in the arm64 gst-launch-1.0: the same frames through the same chains give the same bytes as this
# machine's x86-64 plugin (one input file for both, made by the arm64 videotestsrc), and sepia of pure red is
# (87, 75, 55) with its alpha kept. 104 pixels wide: every plane's rows fill their stride, so the files hold no padding
# (which the SIMD kernels' wide stores may leave different from run to run) and their tails are not 64-pixel groups.
stage_element() {
  local dir=.build/arm64/element format chain i x86_plugin
  rm -rf "$dir" && mkdir -p "$dir"
  swift build --product gstswiftfilter >/dev/null 2>&1 || fail "the x86-64 plugin to compare with did not build (swift build --product gstswiftfilter)"
  x86_plugin=$(swift build --show-bin-path)
  local inspect
  inspect=$(in_root "$gst_env gst-inspect-1.0 swiftfilter" 2>&1) || true
  grep -q 'Filter/Effect/Video' <<<"$inspect" || fail "the arm64 gst-inspect-1.0 does not list swiftfilter: $inspect"
  local chains=("sepia | vignette" "blur radius=3" "colorcontrols contrast=1.3 saturation=0.7 | mirror" "edges" "zoom factor=1.5 | invert")
  local formats=(RGBA BGRx I420 NV12 YUY2)
  # One gst-launch-1.0 a machine for all 25 (a process start under emulation costs seconds): the inputs first, one
  # independent chain a format, then one description with a tee a format and a branch a chain.
  local make='' filter=''
  for format in "${formats[@]}"; do
    make+=" videotestsrc num-buffers=1 pattern=smpte ! video/x-raw,format=$format,width=104,height=62 ! filesink location=$dir/in-$format.raw"
    filter+=" filesrc location=$dir/in-$format.raw ! rawvideoparse format=${format,,} width=104 height=62 framerate=30/1 ! tee name=t$format"
    i=0
    for chain in "${chains[@]}"; do
      i=$((i + 1))
      filter+=" t$format. ! queue ! swiftfilter chain=\"$chain\" ! filesink location=$dir/MACHINE-$format-$i.raw"
    done
  done
  in_root "gst-launch-1.0 -q$make" || fail "the arm64 videotestsrc made no frames"
  in_root "$gst_env gst-launch-1.0 -q ${filter//MACHINE/arm64}" || fail "gst-launch-1.0 on aarch64 with swiftfilter failed"
  GST_PLUGIN_PATH=$x86_plugin bash -c "gst-launch-1.0 -q ${filter//MACHINE/x86}" || fail "gst-launch-1.0 on x86-64 with swiftfilter failed"
  for format in "${formats[@]}"; do
    i=0
    for chain in "${chains[@]}"; do
      i=$((i + 1))
      [ -s "$dir/arm64-$format-$i.raw" ] && cmp -s "$dir/arm64-$format-$i.raw" "$dir/x86-$format-$i.raw" \
        || fail "swiftfilter chain=\"$chain\" on $format: aarch64's frame differs from x86-64's ($dir)"
    done
  done
  in_root "$gst_env gst-launch-1.0 -q videotestsrc num-buffers=1 pattern=solid-color foreground-color=0xffff0000 \
    ! video/x-raw,format=RGBA,width=8,height=4 ! swiftfilter chain=sepia ! filesink location=$dir/red.raw" \
    || fail "sepia of pure red on aarch64 failed"
  local pixels
  pixels=$(od -An -tu1 -v "$dir/red.raw" | tr -s ' \n' ' ' | sed 's/^ //; s/ $//')
  [ "$pixels" = "$(printf '87 75 55 255 %.0s' $(seq 32) | sed 's/ $//')" ] \
    || fail "sepia of pure red on aarch64 gave '${pixels:0:40}…', not (87, 75, 55, 255) in every pixel"
  say "ok: swiftfilter in the arm64 gst-launch-1.0 gives x86-64's bytes (5 chains × 5 formats) and sepia's golden red"
}

# The host's demo on aarch64, from a folder of its own: its JPEGs are written and decode.
stage_demo() {
  local dir=.build/arm64/demo
  rm -rf "$dir" && mkdir -p "$dir" && cp -R pipelines "$dir/"
  in_root "cd $dir && /src/$bin/swiftcam run demo --no-control >demo.log 2>&1 && /src/$bin/swiftcam gallery captures" \
    || { tail -20 "$dir/demo.log"; fail "swiftcam run demo on aarch64 failed"; }
  local jpeg
  jpeg=$(find "$dir/captures" -name '*.jpg' | sort | tail -1)
  [ -n "$jpeg" ] || fail "the demo on aarch64 wrote no JPEG into $dir/captures"
  in_root "gst-launch-1.0 -q filesrc location=$jpeg ! jpegdec ! fakesink" || fail "$jpeg does not decode"
  say "ok: swiftcam run demo on aarch64 wrote $(find "$dir/captures" -name '*.jpg' | wc -l) stills; the last decodes"
}

# The arm64 package, built in the root from the cross-built binaries, installed there by dpkg with the toolchains
# hidden (a tmpfs over each), and used: --version, validate, the demo.
# make_package: the .deb from $bin, built in the root (the arm64 libraries and dpkg-shlibdeps' view of them are there);
# prints its path in this checkout.
make_package() {
  local out=.build/arm64/package deb
  deb=$(in_root "SWIFTCAM_PACKAGE_ARCH=arm64 SWIFTCAM_PACKAGE_CONFIG=$config SWIFTCAM_PACKAGE_BIN=/src/$bin \
    SWIFTCAM_PACKAGE_DIR=$out bash scripts/package.sh") || fail "scripts/package.sh for arm64 failed"
  [ -f "$out/${deb##*/}" ] || fail "no $out/${deb##*/}"
  echo "$out/${deb##*/}"
}

stage_package() {
  local deb
  deb=$(make_package)
  say "package: ${deb##*/}, $(du -h "$deb" | cut -f1), installs $(dpkg-deb -f "$deb" Installed-Size) KiB"
  in_root "dpkg --purge swiftcam >/dev/null 2>&1; apt-get install -y -qq --no-install-recommends ./$deb >/dev/null" \
    || fail "the arm64 package does not install in the root"
  local status=0 dir=/tmp/swiftcam-package-demo
  bash scripts/arm64-root.sh bare "set -e; test ! -e /usr/libexec/swift/bin/swift; rm -rf $dir; mkdir -p $dir; cd $dir
    swiftcam --version; swiftcam validate; swiftcam run demo --no-control >demo.log 2>&1 || { tail demo.log; exit 1; }
    echo \"the installed demo wrote \$(ls captures/*.jpg | wc -l) stills\"" || status=$?
  in_root "dpkg --purge swiftcam >/dev/null 2>&1"
  [ "$status" = 0 ] || fail "the installed arm64 package did not run with the toolchain hidden"
  say "ok: the arm64 package installs, and swiftcam --version, validate and the demo run with no toolchain"
}

stage_host() {
  timed "the element on aarch64" stage_element
  timed "the demo on aarch64" stage_demo
  timed "the package on aarch64" stage_package
}

built() { [ "${SWIFTCAM_ARM64_SKIP_BUILD:-0}" = 1 ] || build_all; }

case "$what" in
  build) build_all ;;
  filters) built; stage_filters ;;
  host) built; stage_host ;;
  all) started=$(date +%s); built; stage_filters; stage_host; say "all: $(($(date +%s) - started)) s" ;;
  package)
    [ "${SWIFTCAM_ARM64_SKIP_BUILD:-0}" = 1 ] || {
      bash scripts/arm64-root.sh gstreamer >/dev/null || fail "the root could not be made"
      build_host
    }
    make_package
    ;;
  # One part of host, on what an earlier run built.
  element | demo) "stage_$what" ;;
  *) echo "usage: $0 [build|filters|host|all|package|element|demo]" >&2; exit 64 ;;
esac
