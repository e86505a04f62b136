#!/usr/bin/env bash
# RTSP clients per host before frames drop (release host, 1280x720@30 H.264): Tests/PublishTests/CapacityTests.swift
# in a network namespace with only lo. Steps of 10, 25, 50, 100, 150, 200, 300 depayloading (not decoding) readers,
# LOAD_SECONDS (10) each; prints host and reader CPU and each step's worst and median client.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product swiftcam
swift build --build-tests
binary="$PWD/.build/release/swiftcam"
report=$(mktemp)
sudo_cmd=()
[[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
status=0
"${sudo_cmd[@]}" env SWIFTCAM_BINARY="$binary" SWIFTCAM_LOAD_REPORT="$report" SWIFTCAM_RTSP_CAPACITY=1 \
  SWIFTCAM_RTSP_CAPACITY_SECONDS="${LOAD_SECONDS:-10}" \
  unshare --net bash -c 'ip link set lo up && exec swift test --skip-build --filter "PublishTests.CapacityTests"' >"$report.log" 2>&1 || status=$?
echo "swiftcam load-rtsp: $(date -u +%F), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), release host"
if [[ -s "$report" ]]; then cat "$report"; else grep -vE "^warning: prohibited" "$report.log" | tail -20; fi
grep -E "Expectation failed|Caught error" "$report.log" | sed 's/^/FAIL: /' || true
rm -f "$report" "$report.log"
exit "$status"
