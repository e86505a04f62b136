#!/usr/bin/env bash
# vp8-settings.sh - how fast vp8enc and vp9enc encode 1280x720 of moving content (colour bars scrolling 8 px a frame) under each set of real-time
# settings the live VP8 and VP9 encoders could use, one after another in one run: the settings chosen for EncoderChoice must encode well above
# 30 fps on this machine, where the camera's own pipeline shares the cores. Prints frames per second (unthrottled:
# a live camera is paced at 30) and the bytes each produced. `make bench-vp8`; figures in docs/benchmarks.md.
set -euo pipefail
frames=${FRAMES:-300}
base="deadline=1 lag-in-frames=0 keyframe-max-dist=30 end-usage=cbr target-bitrate=2000000"
rt="error-resilient=default token-partitions=4 buffer-size=1000 buffer-initial-size=500 buffer-optimal-size=600"
rt9="error-resilient=default buffer-size=1000 buffer-initial-size=500 buffer-optimal-size=600"
declare -a names=(
  "realtime, cpu-used 8, 2 threads (before)"
  "+ error-resilient, 4 token partitions, 1 s buffer"
  "the same, cpu-used 12"
  "the same, cpu-used 16"
  "the same, cpu-used 16, 1 thread"
  "the same, cpu-used 4"
  "vp9enc realtime, cpu-used 8, 2 threads, row-mt"
  "vp9enc the same, error-resilient, 2 tile columns, 1 s buffer"
  "vp9enc the same, cpu-used 9 (chosen)"
)
declare -a settings=(
  "$base cpu-used=8 threads=2"
  "$base cpu-used=8 threads=2 $rt"
  "$base cpu-used=12 threads=2 $rt"
  "$base cpu-used=16 threads=2 $rt"
  "$base cpu-used=16 threads=1 $rt"
  "$base cpu-used=4 threads=2 $rt"
  "vp9enc $base cpu-used=8 threads=2 row-mt=true"
  "vp9enc $base cpu-used=8 threads=2 row-mt=true tile-columns=1 $rt9"
  "vp9enc $base cpu-used=9 threads=2 row-mt=true tile-columns=1 $rt9"
)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# The frames are made once and read back raw, so only the encoder is timed.
raw=$(mktemp --suffix=.i420)
trap 'rm -f "$out" "$raw"' EXIT
gst-launch-1.0 -q videotestsrc pattern=smpte horizontal-speed=8 num-buffers="$frames" ! video/x-raw,format=I420,width=1280,height=720,framerate=30/1 \
  ! filesink location="$raw"
printf '%-60s %8s %10s\n' "vp8enc (unless named) 1280x720, $frames frames" "fps" "kbit/s"
for index in "${!names[@]}"; do
  encoder=vp8enc setting=${settings[$index]}
  if [[ $setting == vp9enc* ]]; then encoder=vp9enc setting=${setting#vp9enc }; fi
  start=$(date +%s.%N)
  # shellcheck disable=SC2086
  gst-launch-1.0 -q filesrc location="$raw" blocksize=$((1280 * 720 * 3 / 2)) \
    ! rawvideoparse format=i420 width=1280 height=720 framerate=30/1 ! $encoder $setting ! filesink location="$out"
  end=$(date +%s.%N)
  bytes=$(stat -c %s "$out")
  awk -v n="${names[$index]}" -v f="$frames" -v s="$start" -v e="$end" -v b="$bytes" \
    'BEGIN { printf "%-60s %8.1f %10.0f\n", n, f / (e - s), b * 8 / 1000 / (f / 30) }'
done
