#!/usr/bin/env bash
# Glass-to-glass latency of the camera page on loopback (WebRTC and MJPEG, 640x480 at 30 fps), with the release
# swiftcam as the host: the source stamps the wall clock into each frame and headless Chromium reads it back from
# what it shows. Runs in a network namespace with only lo, like the Web tests. Prints p50/p95.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product swiftcam
swift build --build-tests
binary="$PWD/$(swift build -c release --show-bin-path | sed "s|^$PWD/||")/swiftcam"
report=$(mktemp)
sudo_cmd=()
[[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
status=0
"${sudo_cmd[@]}" env SWIFTCAM_BINARY="$binary" SWIFTCAM_LATENCY_REPORT="$report" \
  unshare --net --pid --fork --mount-proc bash -c 'ip link set lo up && swift test --skip-build --filter "WebTests.LatencyTests"; exit $?' >"$report.log" 2>&1 || status=$?
echo "swiftcam bench-web: $(date -u +%F), $(nproc) cores, release host, headless Chromium $(chromium --version 2>/dev/null | awk '{print $2}')"
if [[ -s "$report" ]]; then cat "$report"; else grep -vE "^warning: prohibited" "$report.log" | tail -20; fi
rm -f "$report" "$report.log"
exit "$status"
