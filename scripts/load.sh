#!/usr/bin/env bash
# Load runs on the release host, each a test suite in a network namespace with only lo; prints the suite's report
# and fails when a bound is missed. Usage: load.sh web|webrtc|rtsp|janus
#
#   web  (make load-web): 10 WebRTC viewers + 20 MJPEG viewers + 5 stills a second for LOAD_SECONDS (60) at 640x480@30
#        (LOAD_PATTERN: a videotestsrc pattern, smpte by default; LOAD_SIZE=1280x720 and LOAD_FILTER="sepia" for a
#        camera-sized, filtered stream), plus one MJPEG viewer that never reads: the camera rate, each viewer's share,
#        RSS, CPU with 1 vs 10 WebRTC viewers (by thread), whether the stalled viewer was dropped.
#   webrtc (make load-webrtc): LOAD_LIFETIMES (1000) whole WebRTC viewer lifetimes in Chromium (watch, DTLS, a decoded
#        frame, close), two at a time; the host's RSS after them within 10 MB of where it was after the first eight.
#   rtsp (make load-rtsp): RTSP clients per host before frames drop at 1280x720@30 H.264: steps of 10, 25, 50, 100,
#        150, 200, 300 depayloading (not decoding) readers, LOAD_SECONDS (10) each; host and reader CPU, each step's
#        worst and median client.
#   janus (make load-janus): 1, 5 and 10 WebRTC viewers through Debian's Janus and through the host's own webrtcbin,
#        side by side in one run (scripts/janus_load.py, JANUS_LOAD_SECONDS (15) a step): the host's and Janus's CPU,
#        and each one's CPU per RTP packet a viewer receives.
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:-}
if [[ "$kind" == janus ]]; then
  swift build -c release --product swiftcam
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  echo "swiftcam load-janus: $(date -u +%F), $(nproc) cores, release host, headless Chromium $(chromium --version 2>/dev/null | awk '{print $2}'), $(janus --version 2>/dev/null | head -1)"
  exec "${sudo_cmd[@]}" env JANUS_LOAD_SECONDS="${JANUS_LOAD_SECONDS:-15}" unshare --net --mount --pid --fork --mount-proc \
    python3 scripts/janus_load.py "$PWD/.build/release/swiftcam"
fi
case "$kind" in
  web) suite=WebTests.LoadTests
       settings=(SWIFTCAM_WEB_LOAD=1 SWIFTCAM_WEB_LOAD_SECONDS="${LOAD_SECONDS:-60}" SWIFTCAM_WEB_LOAD_PATTERN="${LOAD_PATTERN:-smpte}"
                 SWIFTCAM_WEB_LOAD_SIZE="${LOAD_SIZE:-}" SWIFTCAM_WEB_LOAD_FILTER="${LOAD_FILTER:-}")
       about="headless Chromium $(chromium --version 2>/dev/null | awk '{print $2}')" ;;
  webrtc) suite=WebTests.ViewerLifetimeTests
       settings=(SWIFTCAM_VIEWER_LIFETIMES="${LOAD_LIFETIMES:-1000}")
       about="headless Chromium $(chromium --version 2>/dev/null | awk '{print $2}')" ;;
  rtsp) suite=PublishTests.CapacityTests
       settings=(SWIFTCAM_RTSP_CAPACITY=1 SWIFTCAM_RTSP_CAPACITY_SECONDS="${LOAD_SECONDS:-10}")
       about="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" ;;
  *) echo "usage: $0 web|webrtc|rtsp|janus"; exit 64 ;;
esac
swift build -c release --product swiftcam
swift build --build-tests
report=$(mktemp)
sudo_cmd=()
[[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
status=0
"${sudo_cmd[@]}" env SWIFTCAM_BINARY="$PWD/.build/release/swiftcam" SWIFTCAM_LOAD_REPORT="$report" "${settings[@]}" \
  unshare --net --pid --fork --mount-proc bash -c "ip link set lo up && swift test --skip-build --filter '$suite'; exit \$?" >"$report.log" 2>&1 || status=$?
echo "swiftcam load-$kind: $(date -u +%F), $(nproc) cores, release host, $about"
if [[ -s "$report" ]]; then cat "$report"; else grep -vE "^warning: prohibited" "$report.log" | tail -20; fi
grep -E "Expectation failed|Caught error" "$report.log" | sed 's/^/FAIL: /' || true
rm -f "$report" "$report.log"
exit "$status"
