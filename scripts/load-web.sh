#!/usr/bin/env bash
# Load on the camera page's host (release build): 10 WebRTC viewers + 20 MJPEG viewers + 5 stills a second for
# LOAD_SECONDS (60) at 640x480@30 (LOAD_PATTERN: a videotestsrc pattern, smpte by default; LOAD_SIZE=1280x720 and
# LOAD_FILTER="sepia" for a camera-sized, filtered stream), plus one MJPEG viewer that never reads. Prints the camera rate, each viewer's
# share, RSS, CPU with 1 vs 10 WebRTC viewers, and whether the stalled viewer was dropped; fails when a bound is missed.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product swiftcam
swift build --build-tests
binary="$PWD/.build/release/swiftcam"
report=$(mktemp)
sudo_cmd=()
[[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
status=0
"${sudo_cmd[@]}" env SWIFTCAM_BINARY="$binary" SWIFTCAM_LOAD_REPORT="$report" SWIFTCAM_WEB_LOAD=1 \
  SWIFTCAM_WEB_LOAD_SECONDS="${LOAD_SECONDS:-60}" SWIFTCAM_WEB_LOAD_PATTERN="${LOAD_PATTERN:-smpte}" \
  SWIFTCAM_WEB_LOAD_SIZE="${LOAD_SIZE:-}" SWIFTCAM_WEB_LOAD_FILTER="${LOAD_FILTER:-}" \
  unshare --net bash -c 'ip link set lo up && exec swift test --skip-build --filter "WebTests.LoadTests"' >"$report.log" 2>&1 || status=$?
echo "swiftcam load-web: $(date -u +%F), $(nproc) cores, release host, headless Chromium $(chromium --version 2>/dev/null | awk '{print $2}')"
if [[ -s "$report" ]]; then cat "$report"; else grep -vE "^warning: prohibited" "$report.log" | tail -20; fi
grep -E "Expectation failed|Caught error" "$report.log" | sed 's/^/FAIL: /' || true
rm -f "$report" "$report.log"
exit "$status"
